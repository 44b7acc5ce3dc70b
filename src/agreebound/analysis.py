"""Measure once, decide often: the glue the dashboard, the CLI and the reports share.

``measure_*`` does the expensive work (alpha, the calibration audit) and is what callers cache
by input digest; ``decide_*`` is cheap and is all a threshold slider reruns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from agreebound.escape import excerpt
from agreebound.formats import DetectorRate, InputError, RatingPanel, category_texts
from agreebound.limits import LISTED_CATEGORIES, MAX_TYPED_CHARS, RATIO_MAX_CATEGORIES
from agreebound.panel import AlphaResult, PanelDecision, PanelThresholds, alpha_coded, decide
from agreebound.uncertainty import (
    AlphaBootstrap,
    Wilson,
    bootstrap_alpha,
    bootstrap_alpha_units,
    spread_interval,
)


@dataclass(frozen=True)
class PanelMeasurement:
    """Everything the panel decision needs for one dimension."""

    file: str
    dimension: str
    level: str
    alpha: AlphaResult
    raters: tuple[str, ...]
    detectors: tuple[str, ...]
    humans: tuple[str, ...]
    rates: tuple[DetectorRate, ...]  # empty when not measured
    rates_source: str  # "matrix (positive = 1)", "file: rates.csv", or "none: ..."
    positive: Any
    n_units: int
    n_ratings: int
    alpha_boot: AlphaBootstrap  # Krippendorff's bootstrap (2,000 draws, seed 0)
    spread_bracket: tuple[float, float | None]  # Wilson-based (low, high); high None = unbounded
    kind: str = "integer"  # the panel's values: "integer", "decimal" or "label"
    #: How often each category occurs (all ratings, pairable or not), in category order.
    category_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False, compare=False)
    notices: tuple[str, ...] = ()
    #: The level suggested for these values and why, in words (the level in force may differ).
    level_suggestion: tuple[str, str] = ("nominal", "")
    #: Alpha at every level the values admit (None: undefined there), so the choice is visible.
    alpha_at_levels: dict[str, Fraction | None] = field(default_factory=dict, compare=False)
    #: A category that looks like a detector's "positive", offered when none is in force.
    positive_suggestion: Any = None

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


def _text(v: Any) -> str:
    if isinstance(v, Fraction):
        return repr(float(v)) if float(v) == v else str(v)
    return str(v)


POSITIVE_WORDS = ("1", "yes", "y", "true", "positive", "pos", "toxic", "flagged", "flag", "unsafe", "harmful",
                  "violation", "violating", "spam", "abusive", "offensive", "hate", "accept", "relevant", "present")


def suggest_level(panel: RatingPanel) -> tuple[str, str]:
    """The level the values most likely mean, and why, in words. Never ratio: that needs a true
    zero only the user knows about."""
    cats = panel.categories
    k = len(cats)
    if panel.kind == "label":
        return "nominal", "the values are labels (categories with no order)"
    if k <= 2:
        return "nominal", f"{k} distinct value{'s' if k != 1 else ''}: every level gives the same alpha"
    if panel.kind == "integer" and k <= 10:
        shown = ", ".join(str(v) for v in cats.first(3)) + ("..." if k > 3 else "")
        return "ordinal", (f"{k} ordered whole numbers ({shown}), like a rating scale: ordinal or interval fits; "
                           "nominal would treat neighbouring values as unrelated")
    return "interval", (f"{k:,} numeric values: distances between them mean something; nominal would treat "
                        "close values as unrelated")


def admissible_levels(panel: RatingPanel) -> tuple[str, ...]:
    """The levels these values can be read at: labels are nominal only; ratio needs values >= 0
    and at most RATIO_MAX_CATEGORIES of them."""
    if panel.kind == "label":
        return ("nominal",)
    cats = panel.categories
    out = ("nominal", "ordinal", "interval")
    if len(cats) and cats.floats.min() >= 0 and len(cats) <= RATIO_MAX_CATEGORIES:
        out += ("ratio",)
    return out


def suggest_positive(panel: RatingPanel, counts: Any = None) -> Any:
    """For two-valued data, the value that reads as a detector firing (1, yes, toxic, ...), or the
    rarer one (``counts``: each category's ratings; by default counted from the panel); None otherwise."""
    cats = panel.categories
    if len(cats) != 2:
        return None
    values = list(cats.values)
    for v in values:
        if str(v).strip().lower() in POSITIVE_WORDS:
            return v
    if counts is None:
        counts = np.bincount(panel.coded.code, minlength=2)
    return values[int(np.argmin(counts))]


def default_positive(categories: tuple[Any, ...]) -> Any:
    """1 for a 0/1 panel; otherwise no default (the caller must choose a positive category)."""
    if categories and len(categories) <= 2 and set(categories) <= {0, 1} and 1 in categories:
        return 1
    return None


def resolve_positive(panel: RatingPanel, positive: Any) -> Any:
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


def measure_panel(panel: RatingPanel, level: str = "nominal", positive: Any = "auto",
                  rates: tuple[DetectorRate, ...] | None = None, rates_file: str | None = None,
                  interval: str = "krippendorff") -> PanelMeasurement:
    """``level``: a level, or "auto" for the suggested one. ``interval``: "krippendorff" (KALPHA's
    pair resampling, the default) or "units" (resample units; wider, and slower on large panels)."""
    suggestion = suggest_level(panel)
    if level == "auto":
        level = suggestion[0]
    coded = panel.ratings(level)
    try:
        alpha = alpha_coded(coded, level)
    except ValueError as e:
        raise InputError(panel.file, None, panel.value_column, str(e)) from None
    if interval == "units":
        boot = bootstrap_alpha_units(coded, level)
    else:
        boot = bootstrap_alpha(alpha)
    if rates is not None:
        used, source = rates, f"file: {rates_file}"
        pos = None
    else:
        if positive == "auto":
            pos = default_positive(alpha.categories) if len(alpha.category_set) <= 2 else None
        elif positive is None:
            pos = None
        else:
            pos = resolve_positive(panel, positive)
        if pos is None:
            used, source = (), "none: choose a positive category or upload detector rates"
        else:
            used, source = panel.detector_rates(pos), f"matrix (positive = {_text(pos)})"
    bracket = spread_interval([(r.positives, r.total) for r in used])
    counts = np.bincount(coded.code, minlength=len(coded.categories))
    at_levels: dict[str, Fraction | None] = {}
    for other in admissible_levels(panel):
        at_levels[other] = alpha.value if other == level else alpha_coded(coded, other).value
    offered = suggest_positive(panel) if pos is None and rates is None else None
    return PanelMeasurement(panel.file, panel.dimension, level, alpha, panel.raters, panel.detectors, panel.humans,
                            tuple(used), source, pos, len(panel.units), panel.n_ratings, boot, bracket, panel.kind,
                            counts, panel.notices, suggestion, at_levels, offered)


def measure_panels(panels: dict[str, RatingPanel], level: str = "nominal", positive: Any = "auto",
                   rates: dict[str, tuple[DetectorRate, ...]] | None = None, rates_file: str | None = None,
                   interval: str = "krippendorff") -> dict[str, PanelMeasurement]:
    """Measure every dimension; a rates file supplies each dimension's rates by name (a file
    without a dimension column serves them all)."""
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
        out[dim] = measure_panel(panel, level, positive, given, rates_file if given is not None else None, interval)
    return out


def decide_panel(m: PanelMeasurement, thresholds: PanelThresholds) -> PanelDecision:
    return decide(m.ndet, m.alpha, m.rate_values, thresholds, alpha_low=m.alpha_boot.low,
                  spread_high=m.spread_bracket[1])


# --- from mergeable counts (any engine) ---------------------------------------------------------


class _CountsPanel:
    """What the level and positive-category suggestions read of a panel, from counts."""

    def __init__(self, counts: Any, file: str):
        from agreebound.counts import categories_of

        self.counts, self.file, self.dimension = counts, file, counts.dimension
        self.categories = categories_of(counts)
        self.value_column = "value"
        if counts.kind == "label":
            self.kind = "label"
        else:
            self.kind = "decimal" if any(isinstance(v, Fraction) and v.denominator != 1 for v in counts.categories) \
                else "integer"

    def category_index(self, positive: Any) -> int | None:
        from agreebound.formats import category_index

        return category_index(self.categories, positive)


def measure_counts(counts: Any, file: str, level: str = "auto", positive: Any = "auto",
                   humans: Sequence[str] | None = None, interval: str = "krippendorff") -> PanelMeasurement:
    """A dimension measured from its counts (agreebound.counts): the same measurement as
    :func:`measure_panel` on the ratings, for engines that never hold the ratings (DuckDB, Spark).
    ``interval`` "units" needs the ratings, so counts give Krippendorff's pair bootstrap."""
    from agreebound.counts import alpha as alpha_of_counts
    from agreebound.formats import HUMAN_PREFIX

    panel = _CountsPanel(counts, file)
    suggestion = suggest_level(panel)  # type: ignore[arg-type]
    if level == "auto":
        level = suggestion[0]
    try:
        alpha = alpha_of_counts(counts, level)
    except ValueError as e:
        raise InputError(file, None, "value", str(e)) from None
    boot = bootstrap_alpha(alpha)
    raters = counts.raters
    if humans is None:
        named = tuple(r for r in raters if r.lower().startswith(HUMAN_PREFIX))
        humans_t = () if len(named) == len(raters) else named
    else:
        humans_t = tuple(r for r in raters if r in set(humans))
    detectors = tuple(r for r in raters if r not in set(humans_t))
    if positive == "auto":
        pos = default_positive(alpha.categories) if len(alpha.category_set) <= 2 else None
    elif positive is None:
        pos = None
    else:
        pos = resolve_positive(panel, positive)  # type: ignore[arg-type]
    if pos is None:
        used: tuple[DetectorRate, ...] = ()
        source = "none: choose a positive category or upload detector rates"
    else:
        used = tuple(DetectorRate(r, hits, total) for r, hits, total in counts.rates(pos, detectors))
        source = f"matrix (positive = {_text(pos)})"
    bracket = spread_interval([(r.positives, r.total) for r in used])
    totals = np.array(counts.category_totals, dtype=np.int64)
    at_levels: dict[str, Fraction | None] = {}
    for other in admissible_levels(panel):  # type: ignore[arg-type]
        at_levels[other] = alpha.value if other == level else alpha_of_counts(counts, other).value
    offered = suggest_positive(panel, totals) if pos is None else None  # type: ignore[arg-type]
    return PanelMeasurement(file, counts.dimension, level, alpha, raters, detectors, humans_t, used, source, pos,
                            counts.n_units, counts.n_ratings, boot, bracket, panel.kind, totals, (), suggestion,
                            at_levels, offered)


# --- the coefficients beside alpha (issue: reviewers ask "but they agree 94% of the time?") --------

@dataclass(frozen=True)
class PanelCoefficients:
    coefficients: Any  # agreebound.coefficients.Coefficients
    explanation: tuple[str, ...]
    texts: tuple[str, ...]  # each category as written
    level: str
    alpha: Fraction | None = None
    without: dict[str, Any] = field(default_factory=dict)  # leave-one-rater-out alphas

    def explained(self, floor_permil: int | None) -> tuple[str, ...]:
        """The explanation against another floor (a slider moved): no recomputation."""
        from agreebound.coefficients import explain

        if self.coefficients is None:
            return self.explanation
        floor = Fraction(floor_permil, 1000) if floor_permil is not None else None
        return tuple(explain(self.coefficients, self.alpha, self.texts, self.without, floor))


def panel_coefficients(panel: RatingPanel, level: str, floor_permil: int | None = None,
                       without: dict[str, Any] | None = None) -> PanelCoefficients:
    """Percent agreement, kappa, pi, AC1/AC2, Brennan-Prediger with their intervals, the pairwise and
    per-category detail, and the sentences explaining a high agreement beside a low alpha (the
    leave-one-rater-out alphas name a rater who drags alpha down; pass them when the diagnostics
    have them already). Alpha and the verdict are not touched: they stay the seed's."""
    from agreebound.coefficients import MAX_CATEGORIES, coefficients, explain
    from agreebound.uncertainty import alpha_without_each_rater

    coded = panel.ratings(level)
    texts = tuple(category_texts(coded.categories))
    if len(texts) > MAX_CATEGORIES:
        why = (f"{len(texts):,} distinct values: agreement coefficients are computed for at most {MAX_CATEGORIES} "
               "categories (kappa-type statistics count matching categories; for continuous scores, alpha at the "
               "interval or ratio level is the measure)")
        return PanelCoefficients(None, (why,), texts, level, alpha_coded(coded, level).value, {})
    co = coefficients(coded, panel.raters, level)
    alpha = alpha_coded(coded, level).value
    if without is None:
        without = alpha_without_each_rater(coded, panel.raters, level)  # {} above DIAGNOSTIC_RATERS
    floor = Fraction(floor_permil, 1000) if floor_permil is not None else None
    return PanelCoefficients(co, tuple(explain(co, alpha, texts, without, floor)), texts, level, alpha, without)
