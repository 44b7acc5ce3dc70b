"""Student's t quantile (an interval's df = n - 1) and the beta quantile (a Clopper-Pearson bound), without
scipy, on the one regularized incomplete beta function: the kernel's, no domain words."""

from __future__ import annotations
import math
from functools import lru_cache
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    pass



# --- Student's t quantile (the intervals' df = n - 1), without scipy --------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


@lru_cache(maxsize=8192)
def beta_quantile(q: float, a: float, b: float, guess: float | None = None) -> float:
    """The q-quantile of the Beta(a, b) distribution: the t in (0, 1) with I_t(a, b) = q (a, b > 0,
    not necessarily whole), by Newton's method on :func:`regularized_beta` (its derivative is the beta
    density) kept inside a shrinking bracket, bisecting when a step would leave it; to the incomplete
    beta's float accuracy (within 1e-11 relative of scipy's ``beta.ppf``: tests/core). ``guess``: where to start (the mean a / (a + b) if None).
    Remembered per arguments: a simulation asks for the same few counts again and again.

    The Clopper-Pearson 95% interval for 0 of 20 ends at 1 - 0.025^(1/20) = 0.16843 (the 0.975-quantile
    of Beta(1, 20)); for 81 of 263 it is the 0.025-quantile of Beta(81, 183) to the 0.975-quantile of
    Beta(82, 182), 0.2527 to 0.3676 (Newcombe 1998, Statistics in Medicine 17:857-872, Table I, the
    exact method):

    >>> round(beta_quantile(0.975, 1.0, 20.0), 5), round(1 - 0.025 ** (1 / 20), 5)
    (0.16843, 0.16843)
    >>> round(beta_quantile(0.025, 81.0, 183.0), 4), round(beta_quantile(0.975, 82.0, 182.0), 4)
    (0.2527, 0.3676)
    """
    if not 0.0 < q < 1.0 or a <= 0.0 or b <= 0.0:
        raise ValueError(f"beta_quantile needs 0 < q < 1 and a, b > 0, not q={q}, a={a}, b={b}")
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    lo, hi = 0.0, 1.0
    t = a / (a + b) if guess is None or not 0.0 < guess < 1.0 else guess
    for _ in range(400):
        f = regularized_beta(a, b, t) - q
        if f == 0.0:
            return t
        if f < 0.0:
            lo = t
        else:
            hi = t
        density = math.exp(log_norm + (a - 1.0) * math.log(t) + (b - 1.0) * math.log1p(-t))
        step = t - f / density if density > 0.0 and math.isfinite(density) else math.nan
        if not lo < step < hi:  # Newton would leave the bracket (or cannot step): bisect
            step = (lo + hi) / 2.0
        if abs(step - t) <= 4e-16 * t or step in (lo, hi):
            return step
        t = step
    return t


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom (bisection to float precision).
    Remembered per (p, df): an audit asks for the same few (0.975, n - 1) hundreds of times, and each
    answer costs some 55 evaluations of the incomplete beta function."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if df >= 1000:  # Cornish-Fisher (Abramowitz & Stegun 26.7.5): lgamma differences lose digits here
        from statistics import NormalDist

        z = NormalDist().inv_cdf(p)
        g = [(z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96,
             (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160]
        return z + sum(gi / df ** (i + 1) for i, gi in enumerate(g))
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return hi


