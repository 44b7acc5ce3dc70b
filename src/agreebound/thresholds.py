"""Threshold data: the defaults with their citations, named presets, load and save.

Sliders, files and presets all produce a :class:`ThresholdSet`; the core's ``decide`` functions
take it as an argument.  Nothing here compares a measurement to a threshold.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from agreebound.calibration import CalibrationThresholds
from agreebound.panel import DEFAULT_CITATIONS as PANEL_CITATIONS
from agreebound.panel import PanelThresholds

CITATIONS: dict[str, str] = {
    **PANEL_CITATIONS,
    "calibration": "The judge contract's own thresholds (content-addressed); edits make a draft contract.",
    "krippendorff-tentative": (
        "Krippendorff (2004), Content Analysis, 2nd ed., p. 241: alpha >= .667 is the lowest "
        "conceivable limit, for tentative conclusions only."
    ),
    "krippendorff-reliable": (
        "Krippendorff (2004), Content Analysis, 2nd ed., p. 241: rely on variables with alpha >= .800."
    ),
}


@dataclass(frozen=True)
class ThresholdSet:
    """Panel thresholds, and calibration thresholds (None = each contract's own)."""

    panel: PanelThresholds = field(default_factory=PanelThresholds)
    calibration: CalibrationThresholds | None = None
    source: str = "default"  # "default", "preset:<name>", "file:<name>", "draft"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"panel": asdict(self.panel)}
        if self.calibration is not None:
            out["calibration"] = asdict(self.calibration)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"



DEFAULT = ThresholdSet()

#: Built-in presets; a thresholds file may add its own.
PRESETS: dict[str, ThresholdSet] = {
    "seed-defaults": ThresholdSet(PanelThresholds(600, 2000), None, "preset:seed-defaults"),
    "krippendorff-tentative": ThresholdSet(PanelThresholds(667, 2000), None, "preset:krippendorff-tentative"),
    "krippendorff-reliable": ThresholdSet(PanelThresholds(800, 1500), None, "preset:krippendorff-reliable"),
}


def threshold_set_from_dict(data: Any, source: str) -> ThresholdSet:
    """Build from parsed JSON/TOML; raises ValueError naming the offending key."""
    if not isinstance(data, dict):
        raise ValueError("expected an object with 'panel' and/or 'calibration'")
    unknown = sorted(set(data) - {"panel", "calibration"})
    if unknown:
        raise ValueError(f"unknown key(s) {unknown}; expected 'panel' and/or 'calibration'")
    panel = PanelThresholds()
    if "panel" in data:
        p = data["panel"]
        if not isinstance(p, dict):
            raise ValueError("'panel' must be an object")
        extra = sorted(set(p) - {"alpha_floor_permil", "ratio_cap_permil", "strict"})
        if extra:
            raise ValueError(f"panel: unknown key(s) {extra}; expected alpha_floor_permil, ratio_cap_permil, strict")
        panel = PanelThresholds(**p)
    calibration = None
    if "calibration" in data:
        c = data["calibration"]
        if not isinstance(c, dict):
            raise ValueError("'calibration' must be an object")
        names = [f for f in CalibrationThresholds.__dataclass_fields__ if f != "strict"]
        extra = sorted(set(c) - set(names) - {"strict"})
        missing = [n for n in names if n not in c]
        if extra or missing:
            raise ValueError(f"calibration: needs exactly {names}; missing {missing}, unknown {extra}")
        calibration = CalibrationThresholds(**c)
    return ThresholdSet(panel, calibration, source)
