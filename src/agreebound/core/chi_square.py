"""The chi-square upper tail at a whole number of degrees of freedom, without scipy: the closed forms
(a Poisson tail for even df, erfc plus a half-integer series for odd df), no domain words."""

from __future__ import annotations
import math


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` (a whole number >= 1) degrees of freedom.

    Even df = 2m: exp(-x/2) sum_{j<m} (x/2)^j / j!; odd df = 2m + 1: erfc(sqrt(x/2)) plus
    exp(-x/2) sum_{j=1..m} (x/2)^(j-1/2) / Gamma(j + 1/2) (Abramowitz and Stegun 26.4.4-26.4.5).
    Each term is summed from its logarithm, so large x and df neither overflow nor lose the tail;
    within 1e-12 relative of scipy's ``chi2.sf`` (tests/panel/test_marginal_homogeneity.py).

    The 95% points: 3.841 on 1 df, 5.991 on 2, 7.815 on 3:

    >>> [round(chi_square_sf(x, df), 4) for x, df in ((3.841459, 1), (5.991465, 2), (7.814728, 3))]
    [0.05, 0.05, 0.05]
    >>> chi_square_sf(0.0, 4), chi_square_sf(math.inf, 4)
    (1.0, 0.0)
    """
    if df < 1 or int(df) != df:
        raise ValueError(f"chi_square_sf needs a whole df >= 1, not {df}")
    if x <= 0.0:
        return 1.0
    if math.isinf(x):
        return 0.0
    half = x / 2.0
    log_half = math.log(half)
    if df % 2 == 0:
        terms = (j * log_half - math.lgamma(j + 1.0) - half for j in range(df // 2))
        return min(1.0, math.fsum(math.exp(t) for t in terms))
    tail = math.erfc(math.sqrt(half))
    terms = ((j - 0.5) * log_half - math.lgamma(j + 0.5) - half for j in range(1, (df - 1) // 2 + 1))
    return min(1.0, tail + math.fsum(math.exp(t) for t in terms))
