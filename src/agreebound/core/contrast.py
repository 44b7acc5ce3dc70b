"""A linear combination of ratio estimators over the same clusters, with its cluster-robust 95%
interval: the one linearised (delta method) variance both domains use (the judge's agreement
differences, the drift's split), and Student's t quantile for a z's coverage. No domain words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from agreebound.core.intervals import Z95
from agreebound.core.student_t import t_quantile


@dataclass(frozen=True)
class Contrast:
    """A linear combination of ratio estimators over the same clusters, exactly, with its 95%
    interval (None: fewer than two clusters) and the number of clusters that count."""

    exact: Fraction | None
    low: float | None
    high: float | None
    clusters: int

    @property
    def value(self) -> float | None:
        return None if self.exact is None else float(self.exact)


#: One term of a contrast: (coefficient, per-cluster sums y_i, per-cluster counts m_i), arrays aligned
#: by cluster; y may hold ints, Fractions or floats (an object array keeps Fractions exact).
Term = tuple[int | Fraction, np.ndarray, np.ndarray]


def ratio_contrast(terms: Sequence[Term], z: float = Z95) -> Contrast:
    """sum_j c_j p_j for ratio estimators p_j = sum_i y_ji / sum_i m_ji over the same clusters i,
    with the linearised (delta method) cluster-robust variance: with
    e_i = sum_j c_j (y_ji - p_j m_ji) / M_j over the k clusters where some m_ji > 0,
    v = k / (k - 1) * sum e_i^2, and the interval estimate +- t sqrt(v), t Student's quantile at
    k - 1 degrees of freedom. The estimate is exact (Fractions) when the y are ints or Fractions.
    None throughout when some term counts nothing; no interval for fewer than two clusters.

    One mean minus another over three clusters, y = (1, 2, 3) of m = (1, 1, 1) against
    y = (0, 2, 1) of m = (1, 1, 1): 2 - 1 = 1; e = ((1-2) - (0-1), (2-2) - (2-1), (3-2) - (1-1)) / 3
    = (0, -1/3, 1/3), v = 3/2 * 2/9 = 1/3, half = t(2 df) sqrt(1/3) = 4.303 * 0.577:

    >>> c = ratio_contrast(((1, np.array([1, 2, 3]), np.array([1, 1, 1])),
    ...                     (-1, np.array([0, 2, 1]), np.array([1, 1, 1]))))
    >>> c.exact, round(c.low, 3), round(c.high, 3), c.clusters
    (Fraction(1, 1), -1.484, 3.484, 3)
    """
    arrays = [(c, np.asarray(y), np.asarray(m, dtype=np.int64)) for c, y, m in terms]
    totals = [int(m.sum()) for _, _, m in arrays]
    if not arrays or any(t == 0 for t in totals):
        return Contrast(None, None, None, 0)
    shares = [_exact_sum(y) / t for (_, y, _), t in zip(arrays, totals)]
    exact = sum((Fraction(c) * p for (c, _, _), p in zip(arrays, shares)), Fraction(0))
    used = np.zeros(len(arrays[0][2]), dtype=bool)
    for _, _, m in arrays:
        used |= m > 0
    k = int(used.sum())
    if k < 2:
        return Contrast(exact, None, None, k)
    e = np.zeros(k)
    for (c, y, m), p, t in zip(arrays, shares, totals):
        term = (y[used].astype(np.float64) - float(p) * m[used]) / t
        e = e + term if c == 1 else e - term if c == -1 else e + float(c) * term
    half = quantile(z, k - 1) * math.sqrt(k / (k - 1) * float(np.sum(e * e)))
    return Contrast(exact, float(exact) - half, float(exact) + half, k)


def _exact_sum(y: np.ndarray) -> Fraction:
    """The sum of per-cluster sums, exactly (ints and Fractions stay exact; a float is its binary value)."""
    if y.dtype.kind in "iub":
        return Fraction(int(y.sum()))
    return sum((Fraction(v) for v in y.tolist()), Fraction(0))


def quantile(z: float, df: int) -> float:
    """Student's t quantile at ``df`` degrees of freedom for the coverage that ``z`` gives (z = Z95:
    the 0.975 quantile)."""
    return t_quantile(NormalDist().cdf(z), df)
