"""Uncertainty and diagnostics: an interval for every number that gates a verdict.

* Alpha: Krippendorff's bootstrap (Hayes & Krippendorff 2007; Krippendorff, "Algorithm for
  bootstrapping a distribution of alpha", 2006/2011): each resample draws M pairs of values
  from the observed coincidences (p_ck = o_ck / n) with the expected disagreement D_e held
  fixed, alpha* = 1 - mean(d2) / D_e; M is the number of pairable pairs, sum_u m_u(m_u-1)/2.
  ``q`` is the share of resamples below the floor, as KALPHA reports it.  Unit resampling
  (the ordinary nonparametric bootstrap over units) is available as an option.
* Rates: Wilson score intervals (95%), exact-comparable against thresholds; the spread as the
  interval the seed asks for.
* Diagnostics: alpha with each rater removed, the units that disagree most, each detector
  against the human column.

Simulations use float64 and a seeded ``numpy.random.Generator``: deterministic for a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

from agreebound.panel import AlphaResult, krippendorff_alpha

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054
DRAWS = 2000


# --- alpha -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaBootstrap:
    """A bootstrap distribution of alpha; the interval and q are read off its samples, so a new
    floor needs no new resampling."""

    method: str  # "krippendorff" (coincidence resampling) or "units"
    draws: int
    seed: int
    level: float  # e.g. 0.95
    samples: np.ndarray = field(repr=False, compare=False)  # empty when alpha is undefined
    pairs: int  # M, pairs drawn per resample (krippendorff method)

    @property
    def defined(self) -> bool:
        return len(self.samples) > 0

    @property
    def low(self) -> float | None:
        return float(np.quantile(self.samples, (1 - self.level) / 2)) if self.defined else None

    @property
    def high(self) -> float | None:
        return float(np.quantile(self.samples, 1 - (1 - self.level) / 2)) if self.defined else None

    def q_below(self, floor: Fraction) -> float | None:
        """P(alpha < floor) over the resamples (KALPHA's q)."""
        return float(np.mean(self.samples < float(floor))) if self.defined else None


def _distance_matrix(result: AlphaResult) -> np.ndarray:
    """Squared differences d2_ck as floats, consistent with ``result`` (see panel._distances)."""
    cats = result.categories
    k = len(cats)
    if result.level == "nominal":
        return 1.0 - np.eye(k)
    if result.level == "ordinal":
        marg = [float(x) for x in result.marginals]
        cum = np.concatenate([[0.0], np.cumsum(marg)])
        d = np.zeros((k, k))
        for i in range(k):
            for j in range(i + 1, k):
                d[i, j] = d[j, i] = (cum[j + 1] - cum[i] - (marg[i] + marg[j]) / 2) ** 2
        return d
    v = np.array([float(c) for c in cats])
    if result.level == "interval":
        return (v[:, None] - v[None, :]) ** 2
    s = v[:, None] + v[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s != 0, ((v[:, None] - v[None, :]) / s) ** 2, 0.0)


def pairable_pairs(ratings: Any) -> int:
    """M = sum over pairable units of m_u (m_u - 1) / 2."""
    arr = np.asarray(ratings, dtype=object) if not isinstance(ratings, np.ndarray) else ratings
    if arr.dtype.kind == "f":
        m = (~np.isnan(arr)).sum(axis=1)
    else:
        m = np.array([[v is not None and not (isinstance(v, float) and v != v) for v in row] for row in arr]).sum(axis=1)
    m = m[m >= 2]
    return int((m * (m - 1) // 2).sum())


def bootstrap_alpha(result: AlphaResult, *, pairs: int, draws: int = DRAWS, seed: int = 0,
                    level: float = 0.95) -> AlphaBootstrap:
    """Krippendorff's bootstrap of alpha from the coincidence matrix (D_e fixed)."""
    if result.value is None or result.expected_disagreement is None or pairs <= 0:
        return AlphaBootstrap("krippendorff", draws, seed, level, np.empty(0), pairs)
    o = np.array([[float(x) for x in row] for row in result.coincidence]).ravel()
    p = o / o.sum()
    d2 = _distance_matrix(result).ravel()
    de = float(result.expected_disagreement)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(pairs, p, size=draws)
    alphas = 1.0 - (counts @ d2) / pairs / de
    return AlphaBootstrap("krippendorff", draws, seed, level, alphas, pairs)


def bootstrap_alpha_units(ratings: Any, level_name: str, *, draws: int = DRAWS, seed: int = 0,
                          level: float = 0.95) -> AlphaBootstrap:
    """Nonparametric bootstrap over units: resample rows with replacement, recompute alpha.

    Per-unit pair contributions are computed once; each resample only reweights them (the
    ordinal metric keeps the original marginals' distances).
    """
    base = krippendorff_alpha(ratings, level_name)
    if base.value is None:
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0)
    arr = np.asarray(ratings, dtype=float) if not isinstance(ratings, np.ndarray) or ratings.dtype.kind != "f" else ratings
    cats = [float(c) for c in base.categories]
    k = len(cats)
    counts = np.zeros((arr.shape[0], k))
    for i, c in enumerate(cats):
        counts[:, i] = (arr == c).sum(axis=1)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m = counts[keep], m[keep]
    d2 = _distance_matrix(base)
    # unit u's contribution to sum_ck o_ck d2_ck: (c_u^T D c_u - diag term 0) / (m_u - 1)
    obs_u = np.einsum("uc,cd,ud->u", counts, d2, counts) / (m - 1)
    rng = np.random.default_rng(seed)
    n_units = len(m)
    alphas = np.empty(draws)
    for b in range(draws):
        w = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units)
        nc = w @ counts
        n = nc.sum()
        de_num = nc @ d2 @ nc
        alphas[b] = 1.0 - (n - 1) * (w @ obs_u) / de_num if de_num > 0 else np.nan
    return AlphaBootstrap("units", draws, seed, level, alphas[~np.isnan(alphas)], 0)


# --- rates -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wilson:
    """Wilson score interval for successes/trials at ``z``; bounds as floats, tests exact."""

    successes: int
    trials: int
    z: float = Z95

    @property
    def low(self) -> float:
        return self._bound(-1)

    @property
    def high(self) -> float:
        return self._bound(+1)

    def _bound(self, sign: int) -> float:
        n, z = self.trials, self.z
        if n == 0:
            return 0.0 if sign < 0 else 1.0
        p = self.successes / n
        centre = p + z * z / (2 * n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre + sign * half) / (1 + z * z / n)

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


def spread_interval(counts: Sequence[tuple[int, int]], z: float = Z95) -> tuple[float, float | None]:
    """A conservative bracket for max/min rate: (max lower / min upper, max upper / min lower).

    The upper end is None (unbounded) when some detector's lower bound is 0.
    """
    ws = [Wilson(s, t, z) for s, t in counts]
    if not ws:
        return (1.0, 1.0)
    lows, highs = [w.low for w in ws], [w.high for w in ws]
    low = max(1.0, max(lows) / min(highs)) if min(highs) > 0 else 1.0
    high = max(highs) / min(lows) if min(lows) > 0 else None
    return (low, high)


def cases_to_flip(numerator: int, denominator: int, threshold_bps: int, kind: str) -> tuple[str, int]:
    """How many cases move the exact gate: ("fail", k) = k more errors (or k fewer agreements)
    fail a passing gate; ("pass", k) = k fewer errors (more agreements) pass a failing one."""
    if denominator == 0:
        return ("not evaluable", 0)
    limit = Fraction(threshold_bps * denominator, 10_000)
    if kind == "max":
        allowed = math.floor(limit)  # most errors that still pass
        return ("fail", allowed - numerator + 1) if numerator <= allowed else ("pass", numerator - allowed)
    needed = math.ceil(limit)  # fewest agreements that pass
    return ("fail", numerator - needed + 1) if numerator >= needed else ("pass", needed - numerator)


# --- diagnostics -----------------------------------------------------------------------------


def alpha_without_each_rater(ratings: np.ndarray, raters: Sequence[str], level: str) -> dict[str, Fraction | None]:
    out = {}
    for j, name in enumerate(raters):
        rest = np.delete(ratings, j, axis=1)
        out[name] = krippendorff_alpha(rest, level).value if rest.shape[1] >= 2 else None
    return out


def unit_disagreement(ratings: np.ndarray, level: str, result: AlphaResult) -> np.ndarray:
    """Each unit's contribution to the observed disagreement sum_ck o_ck d2_ck (0 for unpairable)."""
    cats = list(result.categories)
    if not cats:
        return np.zeros(ratings.shape[0])
    counts = np.zeros((ratings.shape[0], len(cats)))
    for i, c in enumerate(cats):
        counts[:, i] = (ratings == c).sum(axis=1) if ratings.dtype.kind == "f" else \
            np.array([[v == c and v is not None for v in row] for row in ratings]).sum(axis=1)
    m = counts.sum(axis=1)
    d2 = _distance_matrix(result)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = np.einsum("uc,cd,ud->u", counts, d2, counts) / (m - 1)
    return np.where(m >= 2, contrib, 0.0)


def detector_vs_human(ratings: np.ndarray, raters: Sequence[str], humans: Sequence[str],
                      level: str) -> dict[str, Fraction | None]:
    """Alpha of each non-human rater against the (first) human column."""
    if not humans:
        return {}
    h = list(raters).index(humans[0])
    out = {}
    for j, name in enumerate(raters):
        if name in humans:
            continue
        out[name] = krippendorff_alpha(ratings[:, [j, h]], level).value
    return out


# --- judge diagnostics ------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeDiagnostics:
    agreement_with_ties: tuple[int, int]
    agreement_without_ties: tuple[int, int]  # observations whose human reference is not a tie
    judge_human_alpha: AlphaResult  # nominal: human reference, judge majority in "ab", in "ba"
    stable_flips: int  # both orders stable and different (the seed's flips)
    noisy_flips: int  # at least one order unstable, and the orders' majorities differ
    wilson: dict[str, Wilson]


def judge_diagnostics(m: Any) -> JudgeDiagnostics:
    """Diagnostics from a CalibrationMeasurement's per-case facts."""
    cases = m.cases
    no_tie = (cases["preferred"] != "tie").to_numpy()
    obs = cases["observations"].to_numpy()
    agree = cases["agreements"].to_numpy()
    human = cases["preferred"].astype(object).to_numpy()
    ab = cases["majority_ab"].astype(object).where(cases["majority_ab"].notna(), None).to_numpy()
    ba = cases["majority_ba"].astype(object).where(cases["majority_ba"].notna(), None).to_numpy()
    alpha = krippendorff_alpha(np.column_stack([human, ab, ba]).astype(object), "nominal")
    unstable = (cases["unstable_ab"] | cases["unstable_ba"]).to_numpy()
    differ = np.array([a is not None and b is not None and a != b for a, b in zip(ab, ba)], dtype=bool)
    wilson = {r.name: Wilson(r.numerator, r.denominator) for r in m.rates}
    return JudgeDiagnostics(
        agreement_with_ties=(int(agree.sum()), int(obs.sum())),
        agreement_without_ties=(int(agree[no_tie].sum()), int(obs[no_tie].sum())),
        judge_human_alpha=alpha,
        stable_flips=int(cases["flipped"].sum()),
        noisy_flips=int((unstable & differ).sum()),
        wilson=wilson,
    )
