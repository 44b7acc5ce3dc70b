"""Intervals both domains use: Wilson score intervals for a rate, exact-comparable against a
threshold, and a rate's interval at an effective number of observations (a design effect).
"""

from __future__ import annotations
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist
from typing import Callable, Literal, Protocol

from agreebound.core.student_t import beta_quantile


Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def simultaneous_z(k: int, alpha: Fraction = Fraction(1, 20)) -> float:
    """The z of a two-sided Bonferroni interval over ``k`` intervals (each at 1 - alpha / k: alpha
    / k split over two tails), so the ``k`` cover together with probability at least 1 - alpha;
    Z95 for one.

    >>> round(simultaneous_z(1), 4), round(simultaneous_z(4), 4)
    (1.96, 2.4977)
    """
    return NormalDist().inv_cdf(1 - float(alpha) / (2 * max(k, 1)))

# --- rates -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wilson:
    """Wilson score interval for successes/trials at ``z``; bounds as floats, tests exact.

    The bounds are exact at the edges: no successes gives a lower bound of exactly 0 and all
    successes an upper bound of exactly 1 (the float formula gives 3e-17, or a negative number).

    Newcombe (1998), Statistics in Medicine 17:857-872, Table I, the score method: 81/263 gives
    0.2553 to 0.3662, 15/148 gives 0.0624 to 0.1605, 0/20 gives 0 to 0.1611:

    >>> [(round(w.low, 4), round(w.high, 4)) for w in (Wilson(81, 263), Wilson(15, 148), Wilson(0, 20))]
    [(0.2553, 0.3662), (0.0624, 0.1605), (0.0, 0.1611)]
    >>> Wilson(81, 263).high_at_most(Fraction(3663, 10000)), Wilson(81, 263).high_at_most(Fraction(3662, 10000))
    (True, False)
    """

    successes: int
    trials: int
    z: float = Z95

    @property
    def low(self) -> float:
        if self.successes == 0:
            return 0.0
        return self._bound(-1)

    @property
    def high(self) -> float:
        if self.successes == self.trials:
            return 1.0
        return self._bound(+1)

    def _bound(self, sign: int) -> float:
        n, z = self.trials, self.z
        if n == 0:
            return 0.0 if sign < 0 else 1.0
        p = self.successes / n  # int / int: exact rounding at any size
        try:
            nf = float(n)
        except OverflowError:
            return p  # beyond 1e308 trials the interval is the point
        centre = p + z * z / (2 * nf)
        half = z * math.sqrt(p * (1 - p) / nf + z * z / (4 * nf * nf))
        return min(1.0, max(0.0, (centre + sign * half) / (1 + z * z / nf)))

    def high_at_most(self, t: Fraction) -> bool:
        """Exactly: upper bound <= t.  The Wilson interval is {p0 : n (phat - p0)^2 <= z^2 p0 (1 - p0)}
        (z taken as the exact value of its float); t bounds it from above iff t >= phat and t lies
        outside or on the interval."""
        if self.trials == 0:
            return t >= 1
        phat = Fraction(self.successes, self.trials)
        z2 = Fraction(self.z) ** 2
        return t >= phat and self.trials * (phat - t) ** 2 >= z2 * t * (1 - t)

    def low_at_least(self, t: Fraction) -> bool:
        """Exactly: lower bound >= t."""
        if self.trials == 0:
            return t <= 0
        phat = Fraction(self.successes, self.trials)
        z2 = Fraction(self.z) ** 2
        return t <= phat and self.trials * (phat - t) ** 2 >= z2 * t * (1 - t)


@dataclass(frozen=True)
class RateInterval:
    """A judge rate's 95% interval that respects its case clusters: Wilson at ``n_eff``.

    ``low``/``high`` are fractions of 1. The exact helpers decide gates: with z taken as the
    exact value of its float and ``n_eff_exact`` a fraction, the bound is compared with a
    threshold in rational arithmetic. ``low``/``high`` are those exact bounds rounded outward to
    the nearest float (low down, high up), adjusted until they agree with the helpers, so
    ``high_at_most(Fraction(x))`` holds exactly when ``x >= high`` for every float x (and the same
    for ``low``).
    """

    name: str
    successes: int  # the rate's numerator
    observations: int  # the rate's denominator
    cases: int  # cases contributing observations to the rate (0: no per-case counts, see method)
    deff: float  # design effect (>= 1)
    n_eff: float  # observations / deff
    low: float
    high: float
    method: str  # in words, e.g. "Wilson with effective n (design effect 2.41 over 12 cases)"
    n_eff_exact: Fraction = field(repr=False)
    z: float = Z95

    @property
    def point(self) -> Fraction:
        return Fraction(self.successes, self.observations)

    def high_at_most(self, t: Fraction) -> bool:
        """Exactly: upper bound <= t. At effective size n the Wilson interval is
        {p0 : n (phat - p0)^2 <= z^2 p0 (1 - p0)}; its upper end is 1 when phat = 1, else the larger
        root, which lies above phat."""
        t = Fraction(t)
        phat = self.point
        if phat == 1:
            return t >= 1
        return t > phat and self.n_eff_exact * (t - phat) ** 2 >= Fraction(self.z) ** 2 * t * (1 - t)

    def low_at_least(self, t: Fraction) -> bool:
        """Exactly: lower bound >= t (the lower end is 0 when phat = 0, else the smaller root)."""
        t = Fraction(t)
        phat = self.point
        if phat == 0:
            return t <= 0
        return t < phat and self.n_eff_exact * (phat - t) ** 2 >= Fraction(self.z) ** 2 * t * (1 - t)


def _wilson_float(p: float, n: float, z: float, sign: int) -> float:
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    return min(1.0, max(0.0, (centre + sign * half) / (1 + z * z / n)))


_ONE_BITS = struct.unpack("<q", struct.pack("<d", 1.0))[0]


def _first_true(estimate: float, ok: Callable[[int], bool]) -> int:
    """The smallest float in [0, 1], as its bit pattern (monotone for non-negative floats), at
    which ``ok`` holds; ``ok`` is monotone, false at 0 and true at 1. A gallop from the float
    estimate, then bisection: exact whatever the estimate's error."""
    lo, hi = 0, _ONE_BITS
    b = min(max(struct.unpack("<q", struct.pack("<d", max(estimate, 0.0)))[0], 1), _ONE_BITS)
    step = 1
    if ok(b):
        hi = b
        while hi - step > lo:
            if not ok(hi - step):
                lo = hi - step
                break
            hi, step = hi - step, step * 2
    else:
        lo = b
        while lo + step < hi:
            if ok(lo + step):
                hi = lo + step
                break
            lo, step = lo + step, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _as_float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<q", bits))[0]


class CaseSums(Protocol):
    """A rate's per-case sums, as :func:`rate_interval` reads them (agreebound.judge.counts.RateStats):
    ``k`` cases, Smm (the sum of squared case sizes) and the residuals' spread."""

    @property
    def k(self) -> int: ...

    @property
    def smm(self) -> int: ...

    def spread(self) -> int: ...


#: The rate intervals :func:`rate_interval` draws: Wilson's score interval (the default, every 95%
#: interval of an audit), or Clopper-Pearson's (exact binomial: at least its level at every rate, for
#: the simultaneous intervals whose level is extreme, agreebound.judge.slices).
IntervalKind = Literal["wilson", "clopper-pearson"]
KIND_WORDS: dict[str, str] = {"wilson": "Wilson", "clopper-pearson": "Clopper-Pearson"}


@dataclass(frozen=True)
class ClopperPearsonInterval(RateInterval):
    """A rate's Clopper-Pearson interval at ``n_eff`` (the effective counts x = phat n_eff of
    n_eff): the lower bound the (alpha/2)-quantile of Beta(x, n_eff - x + 1), 0 when x = 0, the upper
    the (1 - alpha/2)-quantile of Beta(x + 1, n_eff - x), 1 when x = n_eff, with alpha / 2 = P(Z > z).
    Conservative: at whole counts it covers at least 1 - alpha at every rate.

    Its bounds are floats to the incomplete beta's accuracy (agreebound.core.student_t.beta_quantile:
    within 1e-11 relative of scipy's beta.ppf), not exact roots: the helpers compare with those floats, so they agree with
    ``low``/``high`` by construction (``high_at_most(Fraction(x))`` exactly when ``x >= high``)."""

    def high_at_most(self, t: Fraction) -> bool:
        return Fraction(t) >= Fraction(self.high)

    def low_at_least(self, t: Fraction) -> bool:
        return Fraction(t) <= Fraction(self.low)


def rate_interval(name: str, successes: int, observations: int, stats: CaseSums | None, z: float, *,
                  least_design_effect: Fraction = Fraction(1), kind: IntervalKind = "wilson") -> RateInterval:
    """``stats``: the rate's per-case sums (agreebound.judge.counts.RateStats: k, Syy, Sym, Smm), or None.
    ``least_design_effect``: the measured design effect's floor (1: a case's observations are never
    taken as worth more than independent ones; below 1 where they are negatively correlated by
    design, as the two presentation orders of a case are for the first-slot rate). ``kind``: Wilson's
    interval at the effective n (the default), or Clopper-Pearson's at the same effective n and the
    same level (a :class:`ClopperPearsonInterval`).

    Clopper-Pearson where Wilson undercovers: 4 flips in 60 cases at the level of 4 simultaneous
    intervals (z for 0.05 / 4 two-sided, a nominal 98.75%); one observation per case, so n_eff = 60
    and the effective counts are the counts. Wilson's lower bound, 2.07%, excludes a true rate of 2%,
    which gives 4 or more flips in 60 cases with probability 0.032: Wilson covers 2% with probability
    0.968, not 0.9875. Clopper-Pearson's, 1.22%, holds it. The values are statsmodels'
    proportion_confint(4, 60, 0.0125), methods "wilson" and "beta":

    >>> from statistics import NormalDist
    >>> z = NormalDist().inv_cdf(1 - 0.05 / 8)
    >>> for kind in ("wilson", "clopper-pearson"):
    ...     iv = rate_interval("position_flip", 4, 60, None, z, kind=kind)
    ...     print(kind, f"{iv.low:.6f} {iv.high:.6f}")
    wilson 0.020727 0.194231
    clopper-pearson 0.012184 0.190951
    """
    words = KIND_WORDS[kind]
    n_obs, s = observations, successes
    if stats is None:
        deff_exact, k = Fraction(1), 0
        method = f"{words} over observations (this source has no per-case counts for this rate)"
    else:
        k = stats.k
        deff_max = Fraction(stats.smm, n_obs)  # every case's observations identical
        over = f"{k:,} case{'' if k == 1 else 's'}"
        if deff_max == 1:
            deff_exact = Fraction(1)
            method = f"{words} over {over} (one observation per case: no clustering)"
        elif k == 1 or s == 0 or s == n_obs:
            deff_exact = deff_max
            why = "a single case" if k == 1 else f"the rate is {0 if s == 0 else 1}"
            method = (f"{words} with effective n {float(n_obs / deff_max):.4g} (worst case, one observation's worth "
                      f"per case: design effect {float(deff_max):.3g} over {over}; {why}, nothing to measure it on)")
        else:
            # cluster-robust (ratio-estimator) variance over the SRS variance, in integers:
            # deff = k/(k-1) * sum (N y_i - Y m_i)^2 / (N Y (N - Y)), the sum expanded over the case sums
            raw = Fraction(k * stats.spread(), (k - 1) * n_obs * s * (n_obs - s))
            deff_exact = min(max(raw, least_design_effect), deff_max)
            note = "" if deff_exact == raw else (
                f"; measured {float(raw):.3g}, " + (f"floored at {float(least_design_effect):.3g}" if raw < least_design_effect
                                                     else f"capped at {float(deff_max):.3g}, perfectly correlated cases"))
            method = f"{words} with effective n (design effect {float(deff_exact):.3g} over {over}{note})"
    n_eff_exact = Fraction(n_obs) / deff_exact
    p, n = s / n_obs, float(n_eff_exact)
    if kind == "clopper-pearson":
        tail = NormalDist().cdf(-z)  # alpha / 2
        x = float(Fraction(s) / deff_exact)  # the effective successes, phat n_eff
        low = 0.0 if s == 0 else beta_quantile(tail, x, n - x + 1, _wilson_float(p, n, z, -1))
        high = 1.0 if s == n_obs else beta_quantile(1 - tail, x + 1, n - x, _wilson_float(p, n, z, +1))
        return ClopperPearsonInterval(name, s, n_obs, k, float(deff_exact), n, low, high, method, n_eff_exact, z)
    interval = RateInterval(name, s, n_obs, k, float(deff_exact), n, 0.0, 1.0, method, n_eff_exact, z)
    # the exact bounds rounded outward: high the smallest float t with high_at_most(t), low the
    # largest float t with low_at_least(t)
    low = 0.0 if s == 0 else _as_float(_first_true(
        _wilson_float(p, n, z, -1), lambda b: not interval.low_at_least(Fraction(_as_float(b)))) - 1)
    high = 1.0 if s == n_obs else _as_float(_first_true(
        _wilson_float(p, n, z, +1), lambda b: interval.high_at_most(Fraction(_as_float(b)))))
    return RateInterval(name, s, n_obs, k, float(deff_exact), n, low, high, method, n_eff_exact, z)
