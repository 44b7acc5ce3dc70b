"""Uncertainty and diagnostics: an interval for every number that gates a verdict.

* Alpha, by default: the units (cluster) bootstrap, the ordinary nonparametric bootstrap over
  pairable units: a unit's ratings are resampled together, so the interval is a 95% interval
  whatever the number of ratings per unit. It is drawn from the units' patterns (each unit's
  histogram of categories, and how many units have it: agreebound.counts.UnitPatterns), so the
  in-memory engine and the out-of-core ones (whose counts carry the patterns) give the same one.
  ``q`` is the share of resamples below the floor.
* Alpha, as an option: KALPHA's pairs bootstrap (Hayes & Krippendorff 2007; Krippendorff,
  "Algorithm for bootstrapping a distribution of alpha", 2006/2011): each resample draws M pairs
  of values from the observed coincidences (p_ck = o_ck / n) with the expected disagreement D_e
  held fixed, alpha* = 1 - mean(d2) / D_e; M is the number of pairable pairs, sum_u m_u(m_u-1)/2.
  It treats the pairs as independent, but a unit with m ratings gives m(m-1)/2 dependent pairs:
  with 3 or more ratings per unit it is narrower than a 95% interval (simulated coverage 0.64 to
  0.88, tests/test_interval_coverage.py). Method names: "units" and "pairs" ("krippendorff", the
  name runs and links recorded before carry, means "pairs").
* Rates: Wilson score intervals (95%), exact-comparable against thresholds; the spread as the
  interval the seed asks for.
* Judge rates: the observations of one case (two orders x R repetitions) are not independent, so
  :func:`judge_rate_intervals` gives Wilson intervals at the effective number of observations,
  the total divided by the measured design effect of the case clusters.
* Diagnostics: alpha with each rater removed, the units that disagree most, each detector
  against the human column.

Simulations use float64 and a seeded ``numpy.random.Generator``: deterministic for a seed.
"""

from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

from agreebound.limits import COINCIDENCE_MAX_CATEGORIES, DIAGNOSTIC_RATERS
from agreebound.alpha import alpha as alpha_of_counts
from agreebound.alpha import alpha_without_each_rater as _alpha_without_each
from agreebound.counts import from_coded
from agreebound.panel import AlphaResult
from agreebound.categories import Coded, encode
from agreebound.alpha import unit_disagreement as _histogram_disagreement

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054
DRAWS = 2000
#: The alpha interval's methods, by the names the CLI, the dashboard, links and stored runs use;
#: "krippendorff" is the name runs and links recorded before carry for "pairs".
INTERVAL_METHODS = {"units": "units", "pairs": "pairs", "krippendorff": "pairs"}
DEFAULT_INTERVAL = "units"
TOO_LARGE = "no interval: the values are too large to resample in floating point"
#: Up to this many distinct unit patterns, the units bootstrap draws every resample's units;
#: above, each resample's totals are drawn from their normal limit (and the note says so).
EXACT_MAX_PATTERNS = 5_000
#: Distinct pair distances above which a resample's mean distance is drawn from its normal limit.
MAX_DISTANCE_GROUPS = 4096


# --- alpha -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaBootstrap:
    """A bootstrap distribution of alpha; the interval and q are read off its samples, so a new
    floor needs no new resampling."""

    method: str  # "units" (the units bootstrap, the default) or "pairs" (KALPHA's pair resampling)
    draws: int
    seed: int
    level: float  # e.g. 0.95
    samples: np.ndarray = field(repr=False, compare=False)  # empty when alpha is undefined
    pairs: int  # M, pairs drawn per resample (pairs method; 0 for units)
    #: How each resample was drawn when not the textbook way, said in words ("" = textbook).
    note: str = ""

    @property
    def defined(self) -> bool:
        return len(self.samples) > 0

    # read on every decision (a slider move): computed once per distribution
    @functools.cached_property
    def low(self) -> float | None:
        return float(np.quantile(self.samples, (1 - self.level) / 2)) if self.defined else None

    @functools.cached_property
    def high(self) -> float | None:
        return float(np.quantile(self.samples, 1 - (1 - self.level) / 2)) if self.defined else None

    @functools.cached_property
    def se(self) -> float | None:
        """The standard error: the standard deviation of the draws (ddof 1), what a plan scales with
        the number of units (agreebound.gate.plan_alpha); None with fewer than two draws."""
        return float(np.std(self.samples, ddof=1)) if len(self.samples) > 1 else None

    def q_below(self, floor: Fraction) -> float | None:
        """P(alpha < floor) over the resamples (KALPHA's q)."""
        return float(np.mean(self.samples < float(floor))) if self.defined else None


def interval_method(name: Any) -> str:
    """"units" or "pairs" for a method's name as given or stored ("krippendorff": "pairs"); another
    name is a ValueError."""
    method = INTERVAL_METHODS.get(name) if isinstance(name, str) else None
    if method is None:
        raise ValueError(f"the alpha interval is units or pairs, not {str(name)[:40]!r}")
    return method


def _category_floats(result: AlphaResult) -> np.ndarray:
    return result.category_set.floats


def _distance_matrix(result: AlphaResult) -> np.ndarray:
    """True squared distances d2_ck as floats, consistent with ``result`` (small k only)."""
    k = result.n_categories
    if result.level == "nominal":
        return 1.0 - np.eye(k)
    if result.level == "ordinal":
        marg = np.array([float(x) for x in result.marginals or ()])
        pos = np.concatenate([[0.0], np.cumsum(marg)[:-1]]) + marg / 2  # mid-ranks
        return (pos[:, None] - pos[None, :]) ** 2
    v = _category_floats(result)
    if result.level == "interval":
        return (v[:, None] - v[None, :]) ** 2
    s = v[:, None] + v[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s != 0, ((v[:, None] - v[None, :]) / s) ** 2, 0.0)


def pairable_pairs(ratings: Any) -> int:
    """M = sum over pairable units of m_u (m_u - 1) / 2."""
    c = encode(ratings)
    m = np.bincount(c.unit, minlength=c.n_units)
    m = m[m >= 2].astype(object)
    return int((m * (m - 1) // 2).sum())


def _distance_groups(result: AlphaResult) -> tuple[np.ndarray, np.ndarray] | None:
    """The distribution of one coincidence pair's distance: (distinct d2 values, probabilities)."""
    if result.level == "nominal":
        d_o = float(result.observed_disagreement)  # type: ignore[arg-type]
        return np.array([0.0, 1.0]), np.array([1.0 - d_o, d_o])
    if result.coincidence_scaled is None:
        return None
    try:
        o = np.array(result.coincidence_scaled, dtype=object).astype(np.float64).ravel()
    except OverflowError:
        return None
    d2 = _distance_matrix(result).ravel()
    keep = o > 0
    values, inverse = np.unique(d2[keep], return_inverse=True)
    if len(values) > MAX_DISTANCE_GROUPS:
        return None
    probs = np.bincount(inverse, weights=o[keep], minlength=len(values))
    return values, probs / probs.sum()


def bootstrap_alpha(result: AlphaResult, *, pairs: int | None = None, draws: int = DRAWS, seed: int = 0,
                    level: float = 0.95) -> AlphaBootstrap:
    """KALPHA's pairs bootstrap of alpha (method "pairs"): each resample draws M pairs from the
    observed coincidences (D_e fixed), alpha* = 1 - mean d2 / D_e. Pairs of one unit are not
    independent: with 3+ ratings per unit it is narrower than 95% (the default is
    :func:`bootstrap_alpha_units`).

    Pairs are drawn by their distance (the multinomial over distinct distances is the same
    distribution as over the k x k cells, without a draws x k^2 array). Where there is no small
    coincidence matrix and distances are many (interval, ordinal or ratio data with more than
    ``COINCIDENCE_MAX_CATEGORIES`` values), a resample's mean of M draws is taken from its normal
    limit with the exact mean and variance of one draw; ``note`` says so.

    Krippendorff (2011), section C (published nominal alpha 0.743): M = 55 pairs, and seed 0's
    interval, which holds the estimate:

    >>> from agreebound.alpha import krippendorff_alpha
    >>> from agreebound.published import KRIPPENDORFF_2011
    >>> result = krippendorff_alpha(KRIPPENDORFF_2011)
    >>> round(float(result.value), 3)
    0.743
    >>> b = bootstrap_alpha(result)
    >>> b.pairs, round(b.low, 3), round(b.high, 3)
    (55, 0.603, 0.883)
    >>> b.low < result.value < b.high
    True
    """
    m = result.pairs if pairs is None else pairs
    if result.value is None or result.expected_disagreement is None or m <= 0:
        return AlphaBootstrap("pairs", draws, seed, level, np.empty(0), m)
    try:
        de = float(result.expected_disagreement)
        moments_ok = result.distance_moments is None or all(math.isfinite(v) for v in result.distance_moments)
    except OverflowError:
        de, moments_ok = math.inf, False
    if not math.isfinite(de) or de == 0 or not moments_ok:
        return AlphaBootstrap("pairs", draws, seed, level, np.empty(0), m, TOO_LARGE)
    rng = np.random.default_rng(seed)
    groups = _distance_groups(result)
    note = ""
    if groups is not None:
        values, probs = groups
        step = max(1, 8_000_000 // max(len(values), 1))
        means = np.concatenate([rng.multinomial(m, probs, size=min(step, draws - i)) @ values
                                for i in range(0, draws, step)]) / m
    else:
        mean, mean_sq = result.distance_moments or (float(result.observed_disagreement), 0.0)  # type: ignore[arg-type]
        sd = math.sqrt(max(mean_sq - mean * mean, 0.0) / m)
        means = mean + sd * rng.standard_normal(draws)
        note = (f"{result.n_categories:,} distinct values: each resample's mean distance over {m:,} pairs is drawn "
                "from its normal limit (exact mean and variance of one pair's distance)")
    return AlphaBootstrap("pairs", draws, seed, level, 1.0 - means / de, m, note)


def bootstrap_alpha_units(ratings: Any, level_name: str, *, draws: int = DRAWS, seed: int = 0,
                          level: float = 0.95, result: AlphaResult | None = None) -> AlphaBootstrap:
    """The units (cluster) bootstrap: resample pairable units with replacement and recompute alpha
    (the ordinal metric keeps the original marginals' mid-ranks). Drawn from the units' patterns
    (:func:`bootstrap_alpha_patterns`), as from an out-of-core engine's counts. ``result``: alpha
    of these ratings at ``level_name``, when already computed.

    Krippendorff (2011), section C (published nominal alpha 0.743): seed 0's interval holds the
    estimate; with 11 pairable units, many resamples agree perfectly, so the upper end is 1:

    >>> from agreebound.published import KRIPPENDORFF_2011
    >>> b = bootstrap_alpha_units(KRIPPENDORFF_2011, "nominal")
    >>> round(b.low, 3), b.high, b.low < 0.743 < b.high
    (0.415, 1.0, True)
    """
    c = encode(ratings)
    counts = from_coded(c)
    base = alpha_of_counts(counts, level_name) if result is None else result
    if base.value is None:
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0)
    return bootstrap_alpha_patterns(counts.patterns, base, level_name, draws=draws, seed=seed, level=level)


def bootstrap_alpha_counts(counts: Any, result: AlphaResult, level_name: str, method: str = DEFAULT_INTERVAL, *,
                           draws: int = DRAWS, seed: int = 0, level: float = 0.95) -> AlphaBootstrap:
    """The interval from an engine's counts (agreebound.counts.PanelCounts): the units bootstrap
    from the counts' unit patterns, exactly as in memory; where the counts carry none (more than
    MAX_PATTERNS distinct ones, or a source that does not count them), the pairs bootstrap, with
    method "pairs" and a note that says why.

    Krippendorff (2011), section C, counted (published nominal alpha 0.743): the units interval is
    the one drawn in memory (:func:`bootstrap_alpha_units`), the pairs one KALPHA's:

    >>> from agreebound.alpha import alpha
    >>> from agreebound.counts import from_coded
    >>> from agreebound.categories import encode
    >>> from agreebound.published import KRIPPENDORFF_2011
    >>> counts = from_coded(encode(KRIPPENDORFF_2011), ["A", "B", "C", "D"])
    >>> result = alpha(counts, "nominal")
    >>> round(float(result.value), 3)
    0.743
    >>> units = bootstrap_alpha_counts(counts, result, "nominal")
    >>> units.method, round(units.low, 3), units.high
    ('units', 0.415, 1.0)
    >>> pairs = bootstrap_alpha_counts(counts, result, "nominal", "pairs")
    >>> pairs.method, round(pairs.low, 3), round(pairs.high, 3)
    ('pairs', 0.603, 0.883)
    """
    from agreebound.counts import MAX_PATTERNS  # read when called: tests lower it

    if interval_method(method) == "units":
        if counts.patterns is not None:
            return bootstrap_alpha_patterns(counts.patterns, result, level_name, draws=draws, seed=seed, level=level)
        why = (f"more than {MAX_PATTERNS:,} distinct unit patterns (each unit's categories and their counts)"
               if counts.too_many_patterns else "these counts carry no unit patterns")
        pairs = bootstrap_alpha(result, draws=draws, seed=seed, level=level)
        note = (f"not the units bootstrap: {why}, so this is KALPHA's pairs bootstrap, narrower than 95% when units "
                "have 3+ ratings; read the ratings in memory (--engine numpy) for the units interval")
        return AlphaBootstrap("pairs", pairs.draws, seed, level, pairs.samples, pairs.pairs,
                              note + (f"; {pairs.note}" if pairs.note else ""))
    return bootstrap_alpha(result, draws=draws, seed=seed, level=level)


def bootstrap_alpha_patterns(patterns: Any, base: AlphaResult, level_name: str, *, draws: int = DRAWS,
                             seed: int = 0, level: float = 0.95) -> AlphaBootstrap:
    """The units bootstrap from unit patterns (agreebound.counts.UnitPatterns): each resample draws
    n units with replacement from the n pairable units, i.e. how many units of each pattern (a
    multinomial over the patterns), and computes alpha = 1 - (n. - 1) sum_u o_u / sum_ck n_c n_k d2_ck
    from the resample's totals (o_u: a unit's disagreement sum over its ordered pairs / (m_u - 1)).

    Up to EXACT_MAX_PATTERNS patterns every resample is drawn; above (so at least that many units),
    the resample's totals (values, disagreement, and the level's sums: per category, or of the
    centred values and their squares) are drawn from their normal limit, with the exact mean and
    covariance over the units, and ``note`` says so. Nominal data with more than
    COINCIDENCE_MAX_CATEGORIES categories take the categories' squared totals to first order around
    their mean, the second-order rest at its exact expectation. Equal patterns give equal samples
    whatever engine counted them.

    Krippendorff (2011), section C (published nominal alpha 0.743): its 11 pairable units fall in
    9 patterns; seed 0's interval holds the estimate:

    >>> from agreebound.alpha import alpha
    >>> from agreebound.counts import from_coded
    >>> from agreebound.categories import encode
    >>> from agreebound.published import KRIPPENDORFF_2011
    >>> counts = from_coded(encode(KRIPPENDORFF_2011), ["A", "B", "C", "D"])
    >>> b = bootstrap_alpha_patterns(counts.patterns, alpha(counts, "nominal"), "nominal")
    >>> len(counts.patterns), counts.patterns.n_units, round(b.low, 3), b.high
    (9, 11, 0.415, 1.0)
    """
    if base.value is None or len(patterns) == 0:
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0)
    with np.errstate(all="ignore"):  # values beyond float range: no interval, and it is said
        out, note = _units_resamples(patterns, base, level_name, draws, seed)
    if out is None:
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0, TOO_LARGE)
    kept = out[np.isfinite(out)]
    undefined = len(out) - len(kept)
    if undefined > (1 - level) / 2 * len(out):  # more than a tail's worth: no honest 95% interval
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0,
                              f"no interval: {undefined:,} of {len(out):,} resamples of the units had no variation "
                              "(alpha undefined); too few units, or too little variation, for a 95% interval")
    if undefined:
        note = (note + "; " if note else "") + (f"{undefined:,} of {len(out):,} resamples had no variation (alpha "
                                                "undefined) and are left out")
    return AlphaBootstrap("units", draws, seed, level, kept, 0, note)


@dataclass(frozen=True, eq=False)
class _UnitSums:
    """What the units bootstrap adds up: the patterns' entries (row: pattern, code: category, count),
    each pattern's sums (values m_p, disagreement o_p, then the level's sums for interval and
    ordinal data), and the entries gathered by category for the categories' totals."""

    level_name: str
    row: np.ndarray
    code: np.ndarray
    count: np.ndarray  # float64
    units: np.ndarray  # float64: how many units hold each pattern
    n_units: int
    n_pat: int
    marg: np.ndarray  # the pairable values' marginals
    sums: np.ndarray  # (patterns, 2) or, for interval and ordinal data, (patterns, 4)
    by_code: np.ndarray  # the entries in category order (stable)
    first: np.ndarray  # where each category's run starts in that order
    present: np.ndarray  # the categories present, ascending
    d2p: np.ndarray | None  # ratio data: squared distances among the present categories


def _unit_sums(patterns: Any, base: AlphaResult, level_name: str) -> _UnitSums | None:
    """Each pattern's sums (None where they are beyond float range): o_p is the pattern's
    disagreement over its ordered pairs / (m_p - 1)."""
    row, code, cnt = patterns.entries()
    n_pat = len(patterns)
    units = patterns.units.astype(np.float64)
    cntf = cnt.astype(np.float64)
    k = base.n_categories
    m_p = np.bincount(row, weights=cntf, minlength=n_pat)
    marg = np.bincount(code, weights=cntf * units[row], minlength=k)
    if level_name in ("interval", "ordinal"):
        if level_name == "interval":
            x = _category_floats(base).astype(np.float64)
        else:
            x = np.concatenate([[0.0], np.cumsum(marg)[:-1]]) + marg / 2  # mid-ranks
        x = x - np.average(x, weights=marg)  # centred: less cancellation
        xv = x[code]
        s1 = np.bincount(row, weights=cntf * xv, minlength=n_pat)
        s2 = np.bincount(row, weights=cntf * xv * xv, minlength=n_pat)
        obs = (2 * m_p * s2 - 2 * s1 * s1) / (m_p - 1)
        sums = np.column_stack([m_p, obs, s1, s2])
    else:
        if level_name == "nominal":
            obs = (m_p * m_p - np.bincount(row, weights=cntf * cntf, minlength=n_pat)) / (m_p - 1)
        else:
            obs = _ratio_disagreement(row, code, cntf, n_pat, _distance_matrix(base)) / (m_p - 1)
        sums = np.column_stack([m_p, obs])
    if not np.isfinite(sums).all():
        return None
    by_code = np.argsort(code, kind="stable")
    first = np.flatnonzero(np.r_[True, code[by_code][1:] != code[by_code][:-1]]) if len(code) else np.zeros(0, int)
    present = code[by_code][first]
    d2p = _distance_matrix(base)[np.ix_(present, present)] if level_name == "ratio" else None
    return _UnitSums(level_name, row, code, cntf, units, patterns.n_units, n_pat, marg, sums, by_code, first,
                     present, d2p)


def _ratio_disagreement(row: np.ndarray, code: np.ndarray, cntf: np.ndarray, n_pat: int,
                        d2: np.ndarray) -> np.ndarray:
    """Each pattern's c^T D c (k <= RATIO_MAX_CATEGORIES), over dense blocks of patterns."""
    k = d2.shape[0]
    obs = np.zeros(n_pat)
    block = max(1, 4_000_000 // max(k, 1))
    for lo in range(0, n_pat, block):
        hi = min(n_pat, lo + block)
        sel = slice(*np.searchsorted(row, [lo, hi]))
        dense_ = np.zeros((hi - lo, k))
        dense_[row[sel] - lo, code[sel]] = cntf[sel]
        obs[lo:hi] = ((dense_ @ d2) * dense_).sum(axis=1)
    return obs


def _alpha_of_totals(u: _UnitSums, n: np.ndarray, o: np.ndarray, rest: np.ndarray,
                     exp: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Alpha from resamples' totals: n values, disagreement o, and the level's sums (or the expected
    disagreement ``exp``, given); and whether a number on the way was infinite (an overflow)."""
    if exp is None and u.level_name in ("interval", "ordinal"):
        exp = 2 * n * rest[:, 1] - 2 * rest[:, 0] * rest[:, 0]
    elif exp is None and u.level_name == "nominal":
        exp = n * n - (rest * rest).sum(axis=1)
    elif exp is None:
        exp = np.einsum("bi,ij,bj->b", rest, u.d2p, rest)
    a = np.where(exp > 0, 1.0 - (n - 1) * o / exp, np.nan)
    return a, not (np.isfinite(exp).all() and np.isfinite(a[~np.isnan(a)]).all())


def _units_resamples(patterns: Any, base: AlphaResult, level_name: str, draws: int,
                     seed: int) -> tuple[np.ndarray | None, str]:
    """The units bootstrap's alphas (NaN where a resample has no expected disagreement) and its
    note; None where the per-unit sums or a resample's totals are beyond float range."""
    u = _unit_sums(patterns, base, level_name)
    if u is None:
        return None, ""
    rng = np.random.default_rng(seed)
    if u.n_pat > EXACT_MAX_PATTERNS:  # (ratio data has at most RATIO_MAX_CATEGORIES = 64 values)
        out, overflow, note = _normal_limit_resamples(u, draws, rng)
    else:
        (out, overflow), note = _drawn_resamples(u, draws, rng), ""
    return (None, "") if overflow else (out, note)


def _normal_limit_resamples(u: _UnitSums, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, bool, str]:
    """Many patterns: the resample's totals T = sum_p w_p f_p, w ~ Multinomial(n, units / n), have
    mean n f_bar and covariance n Cov(f) over the units; each resample's T is drawn from that normal
    limit. Many nominal categories: the categories' squared totals to first order around their mean,
    sum_c n_c^2 = |n mu|^2 + 2 n mu.delta + |delta|^2 (delta = totals - n mu), the last term at its
    exact expectation (n tr Cov(x), second order)."""
    n_units, sums = u.n_units, u.sums
    linear = u.level_name == "nominal" and len(u.present) > COINCIDENCE_MAX_CATEGORIES
    if linear:
        mu = u.marg[u.present] / n_units
        g = np.bincount(u.row, weights=u.count * mu[np.searchsorted(u.present, u.code)], minlength=u.n_pat)
        sq = np.bincount(u.row, weights=u.count * u.count, minlength=u.n_pat)
        sums = np.column_stack([sums, g])
        second = float(u.units @ sq) - n_units * float(mu @ mu)
    by_category = u.level_name not in ("interval", "ordinal") and not linear
    mean, cov = _totals_moments(u, sums, np.searchsorted(u.present, u.code) if by_category else None)
    lam, vec = np.linalg.eigh(cov)
    z = rng.standard_normal((draws, len(mean))) * np.sqrt(np.clip(lam, 0, None))
    t = n_units * mean + math.sqrt(n_units) * z @ vec.T
    if linear:
        nmu2 = n_units * n_units * float(mu @ mu)
        exp = t[:, 0] * t[:, 0] - (nmu2 + 2 * n_units * (t[:, 2] - nmu2 / n_units) + second)
        out, overflow = _alpha_of_totals(u, t[:, 0], t[:, 1], t, exp)
    else:
        out, overflow = _alpha_of_totals(u, t[:, 0], t[:, 1], t[:, 2:])
    note = (f"{u.n_pat:,} distinct unit patterns: each resample's totals over {n_units:,} units are drawn from their "
            "normal limit (exact mean and covariance over the units"
            + ("; the categories' squared totals to first order, the rest at its expectation)" if linear else ")"))
    return out, overflow, note


def _totals_moments(u: _UnitSums, sums: np.ndarray, where: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance over the units of a unit's features: its pattern's ``sums`` and, where
    ``where`` (each entry's column among the present categories) is given, its category counts;
    built over blocks of patterns."""
    dim = sums.shape[1] + (0 if where is None else len(u.present))
    block = max(1, 8_000_000 // dim)

    def features(lo: int, hi: int) -> np.ndarray:
        f = np.zeros((hi - lo, dim))
        f[:, :sums.shape[1]] = sums[lo:hi]
        if where is not None:
            sel = slice(*np.searchsorted(u.row, [lo, hi]))
            f[u.row[sel] - lo, sums.shape[1] + where[sel]] = u.count[sel]
        return f

    mean = np.zeros(dim)
    for lo in range(0, u.n_pat, block):
        hi = min(u.n_pat, lo + block)
        mean += u.units[lo:hi] @ features(lo, hi)
    mean /= u.n_units
    cov = np.zeros((dim, dim))
    for lo in range(0, u.n_pat, block):
        hi = min(u.n_pat, lo + block)
        f = features(lo, hi) - mean
        cov += (f * u.units[lo:hi, None]).T @ f
    cov /= u.n_units
    return mean, cov


def _drawn_resamples(u: _UnitSums, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Every resample's units drawn: one by one (few units per pattern), or as a multinomial over
    the patterns (many units per pattern); each block's weights pattern-major, (patterns, draws)."""
    n_units, n_pat = u.n_units, u.n_pat
    out = np.empty(draws)
    overflow = False
    by_index = n_units < 8 * n_pat
    owner = None if not by_index or n_units == n_pat else np.repeat(np.arange(n_pat), u.units.astype(np.int64))
    dense = None
    if u.level_name not in ("interval", "ordinal") and len(u.present) <= COINCIDENCE_MAX_CATEGORIES:
        dense = np.zeros((n_pat, len(u.present)))
        dense[u.row, np.searchsorted(u.present, u.code)] = u.count
    g_row, g_cnt = u.row[u.by_code], u.count[u.by_code]  # the categories' totals: entries by category
    width = max(n_units if by_index else n_pat, len(u.code), 1)
    step = max(1, 4_000_000 // width)
    for start in range(0, draws, step):
        b = min(step, draws - start)
        if by_index:
            picks = rng.integers(0, n_units, size=(b, n_units))
            if owner is not None:
                picks = owner[picks]
            picks *= b
            picks += np.arange(b)[:, None]
            wt = np.bincount(picks.ravel(), minlength=n_pat * b).reshape(n_pat, b).astype(np.float64)
            del picks
        else:
            wt = rng.multinomial(n_units, u.units / n_units, size=b).astype(np.float64).T
        t = wt.T @ u.sums
        if u.level_name in ("interval", "ordinal"):
            rest = t[:, 2:]
        elif dense is not None:
            rest = wt.T @ dense
        else:
            rest = np.add.reduceat(wt[g_row] * g_cnt[:, None], u.first, axis=0).T
        out[start:start + b], overflowed = _alpha_of_totals(u, t[:, 0], t[:, 1], rest)
        overflow = overflow or overflowed
    return out, overflow


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


def _first_true(estimate: float, ok: Any) -> int:
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


def rate_interval(name: str, successes: int, observations: int, stats: Any, z: float) -> RateInterval:
    """``stats``: the rate's per-case sums (agreebound.judge_counts.RateStats: k, Syy, Sym, Smm), or None."""
    n_obs, s = observations, successes
    if stats is None:
        deff_exact, k = Fraction(1), 0
        method = "Wilson over observations (this source has no per-case counts for this rate)"
    else:
        k = stats.k
        deff_max = Fraction(stats.smm, n_obs)  # every case's observations identical
        over = f"{k:,} case{'' if k == 1 else 's'}"
        if deff_max == 1:
            deff_exact = Fraction(1)
            method = f"Wilson over {over} (one observation per case: no clustering)"
        elif k == 1 or s == 0 or s == n_obs:
            deff_exact = deff_max
            why = "a single case" if k == 1 else f"the rate is {0 if s == 0 else 1}"
            method = (f"Wilson with effective n {float(n_obs / deff_max):.4g} (worst case, one observation's worth "
                      f"per case: design effect {float(deff_max):.3g} over {over}; {why}, nothing to measure it on)")
        else:
            # cluster-robust (ratio-estimator) variance over the SRS variance, in integers:
            # deff = k/(k-1) * sum (N y_i - Y m_i)^2 / (N Y (N - Y)), the sum expanded over the case sums
            raw = Fraction(k * stats.spread(), (k - 1) * n_obs * s * (n_obs - s))
            deff_exact = min(max(raw, Fraction(1)), deff_max)
            note = "" if deff_exact == raw else (
                f"; measured {float(raw):.3g}, " + ("floored at 1" if raw < 1 else
                                                     f"capped at {float(deff_max):.3g}, perfectly correlated cases"))
            method = f"Wilson with effective n (design effect {float(deff_exact):.3g} over {over}{note})"
    n_eff_exact = Fraction(n_obs) / deff_exact
    interval = RateInterval(name, s, n_obs, k, float(deff_exact), float(n_eff_exact), 0.0, 1.0, method,
                            n_eff_exact, z)
    p, n = s / n_obs, float(n_eff_exact)
    # the exact bounds rounded outward: high the smallest float t with high_at_most(t), low the
    # largest float t with low_at_least(t)
    low = 0.0 if s == 0 else _as_float(_first_true(
        _wilson_float(p, n, z, -1), lambda b: not interval.low_at_least(Fraction(_as_float(b)))) - 1)
    high = 1.0 if s == n_obs else _as_float(_first_true(
        _wilson_float(p, n, z, +1), lambda b: interval.high_at_most(Fraction(_as_float(b)))))
    return RateInterval(name, s, n_obs, k, float(deff_exact), float(n_eff_exact), low, high, method, n_eff_exact, z)


def judge_rate_intervals(measurement: Any, z: float = Z95) -> dict[str, RateInterval]:
    """95% intervals for a judge's rates that count each case's observations as one cluster.

    For a rate p = sum y_i / sum m_i over the k cases that contribute to it (y_i, m_i: the case's
    numerator and denominator counts, summed in ``measurement.rate_stats()``):

    * v_c = k/(k-1) * sum (y_i - p m_i)^2 / (sum m_i)^2, the cluster-robust (ratio-estimator)
      variance; v_srs = p (1-p) / sum m_i, the variance if the observations were independent;
    * deff = v_c / v_srs, floored at 1 (never narrower than the observation-level Wilson) and
      capped at deff_max = sum m_i^2 / sum m_i, the design effect when every case's observations
      are identical (the k/(k-1) factor can push the estimate past it); n_eff = sum m_i / deff,
      which is k at the cap when the cases are of equal size;
    * when p is 0 or 1 (v_srs = 0: nothing to measure) or k = 1, the worst case deff = deff_max:
      one observation's worth per case (n_eff = k for equal case sizes, fewer otherwise);
    * a rate whose cases contribute one observation each (position flip) has deff_max = 1: it is
      the observation-level Wilson over cases;
    * Wilson score interval at phat = p and n = n_eff (z = ``Z95``).

    deff and n_eff are exact fractions (integer arithmetic), so the bound comparisons are exact.
    One entry per evaluable rate: rates with no opportunity or listed in ``unavailable`` are left
    out. A rate whose per-case counts cannot be derived keeps the observation-level Wilson
    (deff 1) and says so in ``method``.

    Two rates worked by hand. 81 of 263 cases, one observation each: deff_max = 263/263 = 1, so the
    interval is Newcombe's (1998, Table I) Wilson for 81/263, 0.2553 to 0.3662. 3 of 10 cases whose
    4 observations each all say yes (12 of 40): syy = sym = 3 * 4 * 4 = 48, smm = 10 * 16 = 160,
    deff_max = 160/40 = 4; measured 10/9 * (40^2 * 48 - 2 * 40 * 12 * 48 + 12^2 * 160) / (40 * 12 * 28)
    = 40/9 = 4.44, capped at 4: n_eff = 10, the Wilson interval for 3/10, 0.1078 to 0.6032:

    >>> from types import SimpleNamespace
    >>> from agreebound.judge_counts import RateStats
    >>> stats = {"position_flip": RateStats(81, 263, k=263, syy=81, sym=81, smm=263),
    ...          "human_agreement": RateStats(12, 40, k=10, syy=48, sym=48, smm=160)}
    >>> rates = [SimpleNamespace(name=name, numerator=r.numerator, denominator=r.denominator)
    ...          for name, r in stats.items()]
    >>> audit = SimpleNamespace(rates=rates, rate_stats=lambda: stats)
    >>> for r in judge_rate_intervals(audit).values():
    ...     print(r.name, r.deff, r.n_eff, round(r.low, 4), round(r.high, 4))
    position_flip 1.0 263.0 0.2553 0.3662
    human_agreement 4.0 10.0 0.1078 0.6032
    """
    getter = getattr(measurement, "rate_stats", None)
    stats = getter() if callable(getter) else {}
    unavailable = getattr(measurement, "unavailable", {}) or {}
    return {r.name: rate_interval(r.name, r.numerator, r.denominator, stats.get(r.name), z)
            for r in measurement.rates if r.denominator > 0 and r.name not in unavailable}


def spread_interval(counts: Sequence[tuple[int, int]], z: float = Z95) -> tuple[float, float | None]:
    """A conservative bracket for max/min rate: (max lower / min upper, max upper / min lower).

    The upper end is None (unbounded) exactly when some detector has no positives (its lower
    bound is exactly 0), decided on the counts, not on floats.

    With Newcombe's (1998, Table I) Wilson intervals, 81/263 (0.2553 to 0.3662) and 15/148 (0.0624
    to 0.1605): 0.2553 / 0.1605 = 1.59 to 0.3662 / 0.0624 = 5.87; with 0/20 (0 to 0.1611) beside
    81/263 the upper end is unbounded:

    >>> low, high = spread_interval([(81, 263), (15, 148)])
    >>> round(low, 2), round(high, 2)
    (1.59, 5.87)
    >>> spread_interval([(81, 263), (0, 20)])[1] is None
    True
    """
    ws = [Wilson(s, t, z) for s, t in counts]
    if not ws:
        return (1.0, 1.0)
    lows, highs = [w.low for w in ws], [w.high for w in ws]
    low = max(1.0, max(lows) / min(highs)) if min(highs) > 0 else 1.0
    high = None if any(s == 0 for s, _ in counts) else max(highs) / min(lows)
    return (low, high)


# --- diagnostics -----------------------------------------------------------------------------


def _without_rater(c: Coded, j: int) -> Coded:
    keep = c.rater != j
    return Coded(c.unit[keep], np.where(c.rater[keep] > j, c.rater[keep] - 1, c.rater[keep]), c.code[keep],
                 c.n_units, c.n_raters - 1, c.categories)


def _pair(c: Coded, a: int, b: int) -> Coded:
    keep = (c.rater == a) | (c.rater == b)
    return Coded(c.unit[keep], (c.rater[keep] == b).astype(np.int64), c.code[keep], c.n_units, 2, c.categories)


def alpha_without_each_rater(ratings: Any, raters: Sequence[str], level: str) -> dict[str, Fraction | None]:
    """Alpha with each rater left out, in memory (one alpha per rater: empty above DIAGNOSTIC_RATERS
    raters): the counts of the others' ratings measured by agreebound.alpha's one leave-one-out."""
    c = encode(ratings)
    index = {name: j for j, name in enumerate(raters)}

    def counts_without(name: str) -> Any:
        return from_coded(_without_rater(c, index[name]), [r for r in raters if r != name])

    return _alpha_without_each(list(raters), counts_without, level, DIAGNOSTIC_RATERS)


def unit_disagreement(ratings: Any, level: str, result: AlphaResult) -> np.ndarray:
    """Each unit's contribution to the observed disagreement sum_ck o_ck d2_ck (0 for unpairable):
    the numpy engine's unit histograms (one per pairable unit, in unit order) measured by
    agreebound.alpha.unit_disagreement."""
    c = encode(ratings)
    out = np.zeros(c.n_units)
    if result.value is None:
        return out
    pairable = np.flatnonzero(np.bincount(c.unit, minlength=c.n_units) >= 2)
    out[pairable] = _histogram_disagreement(from_coded(c), level)
    return out


def detector_vs_human(ratings: Any, raters: Sequence[str], humans: Sequence[str],
                      level: str) -> dict[str, Fraction | None]:
    """Alpha of each non-human rater against the (first) human rater (empty above DIAGNOSTIC_RATERS)."""
    if not humans or len(raters) > DIAGNOSTIC_RATERS:
        return {}
    c = encode(ratings)
    h = list(raters).index(humans[0])
    return {name: alpha_of_counts(from_coded(_pair(c, j, h), (name, humans[0])), level).value
            for j, name in enumerate(raters) if name not in humans}


# --- judge diagnostics ------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeDiagnostics:
    agreement_with_ties: tuple[int, int]
    agreement_without_ties: tuple[int, int]  # observations whose human reference is not a tie
    judge_human_alpha: AlphaResult  # nominal: human reference, judge majority in "ab", in "ba"
    stable_flips: int  # both orders stable and different (the seed's flips)
    noisy_flips: int  # at least one order unstable, and the orders' majorities differ
    wilson: dict[str, Wilson]  # over observations, as if independent (for comparison)
    #: the case-aware intervals (judge_rate_intervals): what strict mode gates on
    intervals: dict[str, RateInterval] = field(default_factory=dict)


def judge_diagnostics(m: Any) -> JudgeDiagnostics:
    """Diagnostics from a CalibrationMeasurement's counts (agreebound.judge_counts: every engine's,
    in memory too). In a partial audit, agreement with the humans and the judge-human alpha count
    only the cases that have a human reference (the counts' reference facts are theirs)."""
    from agreebound.judge_counts import human_alpha_counts

    counts = m.counts
    agree = counts.rates["human_agreement"]
    return JudgeDiagnostics(
        agreement_with_ties=(agree.numerator, agree.denominator),
        agreement_without_ties=counts.agreement_without_ties,
        judge_human_alpha=alpha_of_counts(human_alpha_counts(counts), "nominal"),
        stable_flips=counts.rates["position_flip"].numerator,
        noisy_flips=counts.noisy_flips,
        wilson={r.name: Wilson(r.numerator, r.denominator) for r in m.rates},
        intervals=judge_rate_intervals(m),
    )
