"""Measure once, decide often: the glue the dashboard, the CLI and the reports share.

``measure_*`` does the expensive work (alpha, the calibration audit) and is what callers cache
by input digest; ``decide_*`` is cheap and is all a threshold slider reruns.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agreebound.formats import DetectorRate, InputError, RatingPanel
from agreebound.panel import AlphaResult, PanelDecision, PanelThresholds, decide, krippendorff_alpha
from agreebound.uncertainty import (
    AlphaBootstrap,
    Wilson,
    bootstrap_alpha,
    bootstrap_alpha_units,
    pairable_pairs,
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

    @property
    def wilson(self) -> tuple[Wilson, ...]:
        return tuple(Wilson(r.positives, r.total) for r in self.rates)

    @property
    def ndet(self) -> int:
        return len(self.detectors)

    @property
    def rate_values(self) -> list[Fraction]:
        return [r.rate for r in self.rates]


def default_positive(categories: tuple[Any, ...]) -> Any:
    """1 for a 0/1 panel; otherwise no default (the caller must choose a positive category)."""
    if categories and set(categories) <= {0, 1} and 1 in categories:
        return 1
    return None


def measure_panel(panel: RatingPanel, level: str = "nominal", positive: Any = "auto",
                  rates: tuple[DetectorRate, ...] | None = None, rates_file: str | None = None,
                  interval: str = "krippendorff") -> PanelMeasurement:
    """``interval``: "krippendorff" (KALPHA's pair resampling, the default) or "units" (resample
    units; wider, and slower on large panels)."""
    matrix = panel.ratings(level)
    alpha = krippendorff_alpha(matrix, level)
    if interval == "units":
        boot = bootstrap_alpha_units(matrix, level)
    else:
        boot = bootstrap_alpha(alpha, pairs=pairable_pairs(matrix))
    if rates is not None:
        used, source = rates, f"file: {rates_file}"
        pos = None
    else:
        pos = default_positive(alpha.categories) if positive == "auto" else positive
        if pos is None:
            used, source = (), "none: choose a positive category or upload detector rates"
        else:
            used, source = panel.detector_rates(pos), f"matrix (positive = {pos})"
    bracket = spread_interval([(r.positives, r.total) for r in used])
    return PanelMeasurement(panel.file, panel.dimension, level, alpha, panel.raters, panel.detectors, panel.humans,
                            tuple(used), source, pos, len(panel.units), panel.n_ratings, boot, bracket)


def measure_panels(panels: dict[str, RatingPanel], level: str = "nominal", positive: Any = "auto",
                   rates: dict[str, tuple[DetectorRate, ...]] | None = None, rates_file: str | None = None,
                   interval: str = "krippendorff") -> dict[str, PanelMeasurement]:
    """Measure every dimension; a rates file supplies each dimension's rates by name (a file with a
    single dimension, e.g. one without a dimension column, serves them all)."""
    out = {}
    for dim, panel in panels.items():
        given = None
        if rates:
            given = rates.get(dim) or (next(iter(rates.values())) if len(rates) == 1 else None)
            if given is None:
                raise InputError(rates_file or "", None, "dimension",
                                 f"no rates for dimension {dim!r}; the rates file has {', '.join(sorted(rates))}")
        out[dim] = measure_panel(panel, level, positive, given, rates_file if given is not None else None, interval)
    return out


def decide_panel(m: PanelMeasurement, thresholds: PanelThresholds) -> PanelDecision:
    return decide(m.ndet, m.alpha, m.rate_values, thresholds, alpha_low=m.alpha_boot.low,
                  spread_high=m.spread_bracket[1])
