"""Uncertainty and diagnostics: an interval for every number that gates a verdict.

* Alpha, by default: the units (cluster) bootstrap, the ordinary nonparametric bootstrap over
  pairable units: a unit's ratings are resampled together, so the interval is a 95% interval
  whatever the number of ratings per unit. It is drawn from the units' patterns (each unit's
  histogram of categories, and how many units have it: agreebound.panel.counts.UnitPatterns), so the
  in-memory engine and the out-of-core ones (whose counts carry the patterns) give the same one.
  ``q`` is the share of resamples below the floor.
* Alpha, as an option: KALPHA's pairs bootstrap (Hayes & Krippendorff 2007; Krippendorff,
  "Algorithm for bootstrapping a distribution of alpha", 2006/2011): each resample draws M pairs
  of values from the observed coincidences (p_ck = o_ck / n) with the expected disagreement D_e
  held fixed, alpha* = 1 - mean(d2) / D_e; M is the number of pairable pairs, sum_u m_u(m_u-1)/2.
  It treats the pairs as independent, but a unit with m ratings gives m(m-1)/2 dependent pairs:
  with 3 or more ratings per unit it is narrower than a 95% interval (simulated coverage 0.64 to
  0.88, tests/panel/test_interval_coverage.py). Method names: "units" and "pairs" ("krippendorff", the
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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence
import numpy as np
from agreebound.core.limits import COINCIDENCE_MAX_CATEGORIES
from agreebound.panel.alpha import alpha as alpha_of_counts
from agreebound.panel.counts import PanelCounts, UnitPatterns, from_coded
from agreebound.panel.result import AlphaResult
from agreebound.panel.categories import Coded, Level, Ratings, encode
from agreebound.core.intervals import Z95, Wilson






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
        the number of units (agreebound.core.planner.plan_alpha); None with fewer than two draws."""
        return float(np.std(self.samples, ddof=1)) if len(self.samples) > 1 else None

    def q_below(self, floor: Fraction) -> float | None:
        """P(alpha < floor) over the resamples (KALPHA's q)."""
        return float(np.mean(self.samples < float(floor))) if self.defined else None


def interval_method(name: object) -> str:
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


def pairable_pairs(ratings: Coded | Ratings) -> int:
    """M = sum over pairable units of m_u (m_u - 1) / 2."""
    c = encode(ratings)
    m = np.bincount(c.unit, minlength=c.n_units)
    m = m[m >= 2].astype(object)
    return int((m * (m - 1) // 2).sum())


def _distance_groups(result: AlphaResult) -> tuple[np.ndarray, np.ndarray] | None:
    """The distribution of one coincidence pair's distance: (distinct d2 values, probabilities)."""
    if result.level == "nominal":
        assert result.observed_disagreement is not None  # alpha is defined (bootstrap_alpha checked)
        d_o = float(result.observed_disagreement)
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

    >>> from agreebound.panel.alpha import krippendorff_alpha
    >>> from agreebound.panel.published import KRIPPENDORFF_2011
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
        moments = result.distance_moments
        if moments is None:
            assert result.observed_disagreement is not None  # alpha is defined (checked above)
            moments = (float(result.observed_disagreement), 0.0)
        mean, mean_sq = moments
        sd = math.sqrt(max(mean_sq - mean * mean, 0.0) / m)
        means = mean + sd * rng.standard_normal(draws)
        note = (f"{result.n_categories:,} distinct values: each resample's mean distance over {m:,} pairs is drawn "
                "from its normal limit (exact mean and variance of one pair's distance)")
    return AlphaBootstrap("pairs", draws, seed, level, 1.0 - means / de, m, note)


def bootstrap_alpha_units(ratings: Coded | Ratings, level_name: Level, *, draws: int = DRAWS, seed: int = 0,
                          level: float = 0.95, result: AlphaResult | None = None) -> AlphaBootstrap:
    """The units (cluster) bootstrap: resample pairable units with replacement and recompute alpha
    (the ordinal metric keeps the original marginals' mid-ranks). Drawn from the units' patterns
    (:func:`bootstrap_alpha_patterns`), as from an out-of-core engine's counts. ``result``: alpha
    of these ratings at ``level_name``, when already computed.

    Krippendorff (2011), section C (published nominal alpha 0.743): seed 0's interval holds the
    estimate; with 11 pairable units, many resamples agree perfectly, so the upper end is 1:

    >>> from agreebound.panel.published import KRIPPENDORFF_2011
    >>> b = bootstrap_alpha_units(KRIPPENDORFF_2011, "nominal")
    >>> round(b.low, 3), b.high, b.low < 0.743 < b.high
    (0.415, 1.0, True)
    """
    c = encode(ratings)
    counts = from_coded(c)
    base = alpha_of_counts(counts, level_name) if result is None else result
    if base.value is None:
        return AlphaBootstrap("units", draws, seed, level, np.empty(0), 0)
    assert counts.patterns is not None  # from_coded keeps every unit's histogram
    return bootstrap_alpha_patterns(counts.patterns, base, level_name, draws=draws, seed=seed, level=level)


def bootstrap_alpha_counts(counts: PanelCounts, result: AlphaResult, level_name: Level, method: str = DEFAULT_INTERVAL, *,
                           draws: int = DRAWS, seed: int = 0, level: float = 0.95) -> AlphaBootstrap:
    """The interval from an engine's counts (agreebound.panel.counts.PanelCounts): the units bootstrap
    from the counts' unit patterns, exactly as in memory; where the counts carry none (more than
    MAX_PATTERNS distinct ones, or a source that does not count them), the pairs bootstrap, with
    method "pairs" and a note that says why.

    Krippendorff (2011), section C, counted (published nominal alpha 0.743): the units interval is
    the one drawn in memory (:func:`bootstrap_alpha_units`), the pairs one KALPHA's:

    >>> from agreebound.panel.alpha import alpha
    >>> from agreebound.panel.counts import from_coded
    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import KRIPPENDORFF_2011
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
    from agreebound.panel.counts import MAX_PATTERNS  # read when called: tests lower it

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


def bootstrap_alpha_patterns(patterns: UnitPatterns, base: AlphaResult, level_name: Level, *, draws: int = DRAWS,
                             seed: int = 0, level: float = 0.95) -> AlphaBootstrap:
    """The units bootstrap from unit patterns (agreebound.panel.counts.UnitPatterns): each resample draws
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

    >>> from agreebound.panel.alpha import alpha
    >>> from agreebound.panel.counts import from_coded
    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import KRIPPENDORFF_2011
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

    level_name: Level
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


def _unit_sums(patterns: UnitPatterns, base: AlphaResult, level_name: Level) -> _UnitSums | None:
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
        assert u.d2p is not None  # ratio data: the distances among its categories
        exp = np.einsum("bi,ij,bj->b", rest, u.d2p, rest)
    a = np.where(exp > 0, 1.0 - (n - 1) * o / exp, np.nan)
    return a, not (np.isfinite(exp).all() and np.isfinite(a[~np.isnan(a)]).all())


def _units_resamples(patterns: UnitPatterns, base: AlphaResult, level_name: Level, draws: int,
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



def alpha_interval_words(b: AlphaBootstrap) -> str:
    """How alpha's interval was drawn, in words ("" when there is none)."""
    if not b.defined:
        return ""
    if b.method == "pairs":
        return f"pairs bootstrap (KALPHA), {b.draws:,} draws: narrower than 95% when units have 3+ ratings"
    return f"units bootstrap, {b.draws:,} draws"


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


