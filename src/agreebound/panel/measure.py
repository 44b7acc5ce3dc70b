"""Measure once, decide often: the glue the dashboard, the CLI and the reports share.

``measure_*`` does the expensive work (alpha, the calibration audit) and is what callers cache
by input digest; ``decide_*`` is cheap and is all a threshold slider reruns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Literal, Sequence

import numpy as np

from agreebound.core.escape import excerpt
from agreebound.core.errors import InputError
from agreebound.panel.levels import (
    LEVEL_ORIGINS,
    admissible_levels,
    default_level,
    default_positive,
    suggest_level,
    suggest_positive,
)
from agreebound.core.limits import LISTED_CATEGORIES, MAX_TYPED_CHARS
from agreebound.panel.alpha import alpha as alpha_of_counts
from agreebound.panel.counts import PanelCounts, from_panel
from agreebound.panel.result import AlphaResult
from agreebound.panel.ratings import HUMAN_PREFIX, DetectorRate, RatingPanel, category_index, category_texts
from agreebound.panel.intervals import AlphaBootstrap, DEFAULT_INTERVAL, bootstrap_alpha_counts, spread_interval
from agreebound.core.intervals import Wilson
from agreebound.panel.categories import Level, Value
from agreebound.panel.seed import Verdict

if TYPE_CHECKING:
    from agreebound.panel.coefficients import Coefficients


@dataclass(frozen=True)
class PanelMeasurement:
    """Everything the panel decision needs for one dimension."""

    file: str
    dimension: str
    level: Level
    alpha: AlphaResult
    raters: tuple[str, ...]
    detectors: tuple[str, ...]
    humans: tuple[str, ...]
    rates: tuple[DetectorRate, ...]  # empty when not measured
    rates_source: str  # "matrix (positive = 1)", "file: rates.csv", or "none: ..."
    positive: Value | None
    n_units: int
    n_ratings: int
    alpha_boot: AlphaBootstrap  # the units bootstrap by default (2,000 draws, seed 0); or KALPHA's pairs
    spread_bracket: tuple[float, float | None]  # Wilson-based (low, high); high None = unbounded
    kind: str = "integer"  # the panel's values: "integer", "decimal" or "label"
    #: How often each category occurs (all ratings, pairable or not), in category order.
    category_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False, compare=False)
    notices: tuple[str, ...] = ()
    #: The level suggested for these values and why, in words (the level in force may differ).
    level_suggestion: tuple[Level, str] = ("nominal", "")
    #: Who chose the level in force (LEVEL_ORIGINS: "user", "mapping" or "default") and, for the
    #: default, why (the rule of :func:`default_level`).
    level_origin: tuple[str, str] = ("default", "")
    #: Alpha at every level the values admit (None: undefined there), so the choice is visible.
    alpha_at_levels: dict[Level, Fraction | None] = field(default_factory=dict, compare=False)
    #: A category that looks like a detector's "positive", offered when none is in force.
    positive_suggestion: Value | None = None

    @property
    def wilson(self) -> tuple[Wilson, ...]:
        return tuple(Wilson(r.positives, r.total) for r in self.rates)

    @property
    def ndet(self) -> int:
        return len(self.detectors)

    @property
    def rate_values(self) -> list[Fraction]:
        return [r.rate for r in self.rates]

    @property
    def spread_measured(self) -> bool:
        return bool(self.rates)

    def category_table(self, limit: int = LISTED_CATEGORIES) -> list[tuple[str, int]]:
        """(category as written, count) for the first ``limit`` categories, most frequent first."""
        order = np.argsort(-self.category_counts, kind="stable")[:limit]
        texts = self.alpha.category_set.first(int(order.max()) + 1) if len(order) else ()
        return [(_text(texts[i]), int(self.category_counts[i])) for i in order]


def _text(v: Value) -> str:
    if isinstance(v, Fraction):
        return repr(float(v)) if float(v) == v else str(v)
    return str(v)


def resolve_positive(panel: RatingPanel | _CountsPanel, positive: Value) -> Value:
    """The category ``positive`` names (a value, or its text as typed on a command line); a name
    the panel does not have is an InputError listing the categories it has."""
    if isinstance(positive, str) and len(positive) > MAX_TYPED_CHARS:
        raise InputError(panel.file, None, None, f"the positive category is {len(positive):,} characters long; "
                         f"categories have at most {MAX_TYPED_CHARS}")
    k = panel.category_index(positive)
    if k is None and isinstance(positive, str) and panel.categories.numeric and len(positive) <= 40:
        try:
            want = Fraction(positive)
        except (ValueError, ZeroDivisionError):
            want = None
        if want is not None:
            k = next((i for i, v in enumerate(panel.categories.values) if v == want), None)
    if k is None:
        texts = category_texts(panel.categories) if len(panel.categories) <= LISTED_CATEGORIES else \
            [str(v) for v in panel.categories.first(LISTED_CATEGORIES)] + ["..."]
        raise InputError(panel.file, None, None,
                         f"no category {excerpt(positive)} in dimension {excerpt(panel.dimension)} to count as a "
                         f"detector's positive; its categories are {', '.join(texts)}")
    return panel.categories.values[k]


def measure_panel(panel: RatingPanel, level: Level | Literal["auto"] = "nominal", positive: Value = "auto",
                  rates: tuple[DetectorRate, ...] | None = None, rates_file: str | None = None,
                  interval: str = DEFAULT_INTERVAL, chosen_by: str = "user",
                  counts: PanelCounts | None = None) -> PanelMeasurement:
    """The ratings in memory measured: their counts (the numpy engine's,
    agreebound.engines.numpy_engine.panel_counts, as the pipeline passes them; counted here by the
    same function, counts.from_panel, for a caller that holds only the ratings) measured by
    :func:`measure_counts`, with what only the ratings know (the raters as listed, the units,
    notices, the panel's kind, a located error for a level the values cannot take). ``level``: a
    level, or "auto" for nobody's choice (:func:`default_level`); ``chosen_by`` says who chose a
    given level ("user" or "mapping"). ``interval``: "units" (the units bootstrap, a 95% interval;
    the default) or "pairs" (KALPHA's pair resampling, narrower than 95% when units have 3+
    ratings; "krippendorff", its name in runs recorded before, is the same)."""
    in_force, _ = _level_in_force(panel, level, chosen_by)
    panel.ratings(in_force)  # labels at a numeric level, negatives at ratio: said at their cell
    if counts is None:
        counts = from_panel(panel)
    return measure_counts(counts, panel.file, level, positive, panel.humans, interval, chosen_by, ratings=panel,
                          rates=rates, rates_file=rates_file)


def _level_in_force(panel: RatingPanel | _CountsPanel, level: Level | Literal["auto"],
                    chosen_by: str) -> tuple[Level, tuple[str, str]]:
    if level == "auto":
        chosen, why = default_level(panel)
        return chosen, ("default", why)
    if chosen_by not in LEVEL_ORIGINS[:2]:
        raise ValueError(f"chosen_by must be one of {LEVEL_ORIGINS[:2]}, got {chosen_by!r}")
    return level, (chosen_by, "chosen in the mapping file" if chosen_by == "mapping" else "chosen by the user")


def measure_panels(panels: dict[str, RatingPanel], level: Level | Literal["auto"] = "nominal", positive: Value = "auto",
                   rates: dict[str, tuple[DetectorRate, ...]] | None = None, rates_file: str | None = None,
                   interval: str = DEFAULT_INTERVAL, chosen_by: str = "user",
                   count: Callable[[RatingPanel], PanelCounts] | None = None) -> dict[str, PanelMeasurement]:
    """Measure every dimension; a rates file supplies each dimension's rates by name (a file
    without a dimension column serves them all). ``count``: the engine that counts a dimension's
    ratings (the pipeline's agreebound.engines.numpy_engine.panel_counts), called for one
    dimension at a time, just before it is measured."""
    out = {}
    for dim, panel in panels.items():
        given = None
        if rates:
            given = rates.get(dim) or (rates["all"] if set(rates) == {"all"} else None)
            if given is None:
                raise InputError(rates_file or "", None, "dimension",
                                 f"no rates for dimension {excerpt(dim)}; the rates file has "
                                 f"{', '.join(sorted(rates)[:LISTED_CATEGORIES])}")
            named = {r.detector for r in given}
            panel_detectors = set(panel.detectors)
            if named != panel_detectors:
                extra, absent = sorted(named - panel_detectors), sorted(panel_detectors - named)
                what = (f"rates for {', '.join(excerpt(x) for x in extra[:5])}, which "
                        f"{'is' if len(extra) == 1 else 'are'} not a detector in the ratings" if extra else
                        f"no rate for {', '.join(excerpt(x) for x in absent[:5])}")
                raise InputError(rates_file or "", None, "detector",
                                 f"{what} (dimension {excerpt(dim)}); the spread is over the panel's own detectors: "
                                 f"{', '.join(excerpt(x) for x in sorted(panel_detectors)[:10])}")
        out[dim] = measure_panel(panel, level, positive, given, rates_file if given is not None else None, interval,
                                 chosen_by, None if count is None else count(panel))
    return out


def level_note(m: PanelMeasurement, verdicts: dict[Level, Verdict]) -> str | None:
    """``REPORT_ONLY at nominal; ENFORCE at ordinal and interval (alpha 0.186 at nominal, 0.959
    at ordinal, ...)``, said beside a verdict that depends on the level; None where it does not."""
    if len(set(verdicts.values())) < 2:
        return None
    order = [m.level] + [lv for lv in verdicts if lv != m.level]
    by_verdict: dict[str, list[str]] = {}
    for lv in order:
        by_verdict.setdefault(verdicts[lv].value, []).append(lv)
    said = "; ".join(f"{v} at {' and '.join(lvs)}" for v, lvs in by_verdict.items())
    alphas = ", ".join(f"{_alpha_text(m.alpha_at_levels[lv])} at {lv}" for lv in order)
    return f"{said} (alpha {alphas})"


def _alpha_text(v: Fraction | None) -> str:
    return "undefined" if v is None else f"{float(v):.3f}"


# --- from mergeable counts (any engine) ---------------------------------------------------------


class _CountsPanel:
    """What the level and positive-category suggestions read of a panel, from counts."""

    def __init__(self, counts: PanelCounts, file: str):
        self.counts, self.file, self.dimension = counts, file, counts.dimension
        self.categories = counts.category_set
        self.value_column = "value"
        if counts.kind == "label":
            self.kind = "label"
        else:
            self.kind = "decimal" if any(isinstance(v, Fraction) and v.denominator != 1 for v in counts.categories) \
                else "integer"

    def category_index(self, positive: Value) -> int | None:
        return category_index(self.categories, positive)


def measure_counts(counts: PanelCounts, file: str, level: Level | Literal["auto"] = "auto", positive: Value = "auto",
                   humans: Sequence[str] | None = None, interval: str = DEFAULT_INTERVAL,
                   chosen_by: str = "user", *, ratings: RatingPanel | None = None,
                   rates: tuple[DetectorRate, ...] | None = None, rates_file: str | None = None) -> PanelMeasurement:
    """A dimension measured from its counts (agreebound.panel.counts), whatever engine counted them: the
    one measurement of a panel. ``ratings``: the panel itself when in memory (:func:`measure_panel`),
    for what counts do not hold; ``rates``: detector rates from a file (``rates_file``).
    ``interval`` "units" is drawn from the counts' unit patterns; counts without them (too many
    distinct patterns out of core) give the pairs bootstrap, and its note says so."""
    panel: RatingPanel | _CountsPanel = ratings if ratings is not None else _CountsPanel(counts, file)
    suggestion = suggest_level(panel)
    level, origin = _level_in_force(panel, level, chosen_by)
    try:
        alpha = alpha_of_counts(counts, level)
    except ValueError as e:
        raise InputError(file, None, panel.value_column, str(e)) from None
    boot = bootstrap_alpha_counts(counts, alpha, level, interval)
    raters, humans_t, detectors = _roles(counts, ratings, humans)
    if rates is not None:
        used, source, pos = rates, f"file: {rates_file}", None
    else:
        pos = _positive(panel, alpha, positive)
        used, source = _rates(counts, pos, detectors)
    bracket = spread_interval([(r.positives, r.total) for r in used])
    totals = counts.category_totals_array()
    at_levels: dict[Level, Fraction | None] = {}
    for other in admissible_levels(panel):
        at_levels[other] = alpha.value if other == level else alpha_of_counts(counts, other).value
    offered = suggest_positive(panel, totals) if pos is None and rates is None else None
    units = len(ratings.units) if ratings is not None else counts.n_units
    notices = ratings.notices if ratings is not None else ()
    return PanelMeasurement(file, panel.dimension, level, alpha, raters, detectors, humans_t, tuple(used), source, pos,
                            units, counts.n_ratings, boot, bracket, panel.kind, totals, notices, suggestion,
                            origin, at_levels, offered)


def _roles(counts: PanelCounts, ratings: RatingPanel | None,
           humans: Sequence[str] | None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(raters, humans, detectors): the panel's own when in memory, else from the counts' raters."""
    if ratings is not None:
        return ratings.raters, ratings.humans, ratings.detectors
    raters = counts.raters
    if humans is None:
        named = tuple(r for r in raters if r.lower().startswith(HUMAN_PREFIX))
        humans_t = () if len(named) == len(raters) else named
    else:
        humans_t = tuple(r for r in raters if r in set(humans))
    return raters, humans_t, tuple(r for r in raters if r not in set(humans_t))


def _positive(panel: RatingPanel | _CountsPanel, alpha: AlphaResult, positive: Value) -> Value | None:
    if positive == "auto":
        return default_positive(alpha.categories) if len(alpha.category_set) <= 2 else None
    return None if positive is None else resolve_positive(panel, positive)


def _rates(counts: PanelCounts, pos: Value | None, detectors: tuple[str, ...]) -> tuple[tuple[DetectorRate, ...], str]:
    """Each detector's rate of the positive category, from its counts (whatever engine counted them)."""
    if pos is None:
        return (), "none: choose a positive category or upload detector rates"
    used = tuple(DetectorRate(r, hits, total) for r, hits, total in counts.rates(pos, detectors))
    return used, f"matrix (positive = {_text(pos)})"


def _alpha_of_panel(panel: RatingPanel, level: Level) -> Fraction | None:
    return alpha_of_counts(from_panel(panel, level), level).value


# --- the coefficients beside alpha (issue: reviewers ask "but they agree 94% of the time?") --------

@dataclass(frozen=True)
class PanelCoefficients:
    coefficients: Coefficients | None  # None: too many categories (the explanation says so)
    explanation: tuple[str, ...]
    texts: tuple[str, ...]  # each category as written
    level: Level
    alpha: Fraction | None = None
    without: dict[str, Fraction | None] = field(default_factory=dict)  # leave-one-rater-out alphas

    def explained(self, floor_permil: int | None) -> tuple[str, ...]:
        """The explanation against another floor (a slider moved): no recomputation."""
        from agreebound.panel.coefficients import explain

        if self.coefficients is None:
            return self.explanation
        floor = Fraction(floor_permil, 1000) if floor_permil is not None else None
        return tuple(explain(self.coefficients, self.alpha, self.texts, self.without, floor))


def panel_coefficients(panel: RatingPanel, level: Level, floor_permil: int | None = None,
                       without: dict[str, Fraction | None] | None = None) -> PanelCoefficients:
    """Percent agreement, kappa, pi, AC1/AC2, Brennan-Prediger with their intervals, the pairwise and
    per-category detail, and the sentences explaining a high agreement beside a low alpha (the
    leave-one-rater-out alphas name a rater who drags alpha down; pass them when the diagnostics
    have them already). Alpha and the verdict are not touched: they stay the seed's."""
    from agreebound.panel.coefficients import MAX_CATEGORIES, coefficients, explain
    from agreebound.panel.diagnostics import alpha_without_each_rater

    coded = panel.ratings(level)
    texts = tuple(category_texts(coded.categories))
    if len(texts) > MAX_CATEGORIES:
        why = (f"{len(texts):,} distinct values: agreement coefficients are computed for at most {MAX_CATEGORIES} "
               "categories (kappa-type statistics count matching categories; for continuous scores, alpha at the "
               "interval or ratio level is the measure)")
        return PanelCoefficients(None, (why,), texts, level, _alpha_of_panel(panel, level), {})
    co = coefficients(coded, panel.raters, level)
    alpha = _alpha_of_panel(panel, level)
    if without is None:
        without = alpha_without_each_rater(coded, panel.raters, level)  # {} above DIAGNOSTIC_RATERS
    floor = Fraction(floor_permil, 1000) if floor_permil is not None else None
    return PanelCoefficients(co, tuple(explain(co, alpha, texts, without, floor)), texts, level, alpha, without)
