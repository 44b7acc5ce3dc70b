"""Threshold data: the defaults with their citations, the one legal range of every threshold,
named presets, load and save.

Sliders, files, presets and links all produce a :class:`ThresholdSet`; the core's ``decide``
functions take it as an argument.  Nothing here compares a measurement to a threshold.

Every threshold's legal range is defined once, in :data:`RANGES`, and used by the threshold
classes' own validation (so by every parser, the URL state and the CLI, which all build them) and
by the dashboard's sliders and number inputs.

>>> RANGES["alpha_floor_permil"]
Range(lo=0, hi=1000, unit='permil')
>>> PanelThresholds(alpha_floor_permil=-1000)
Traceback (most recent call last):
...
ValueError: alpha_floor_permil must be between 0 and 1000 (permil), got -1000
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from typing import Any, Callable, NamedTuple, TypeVar

from agreebound.core.json_types import JSONObject

# The seed's defaults (nx_agreebound): AB_ALPHA_FLOOR_DEFAULT and AB_RATIO_CAP_DEFAULT.
ALPHA_FLOOR_DEFAULT = 600
RATIO_CAP_DEFAULT = 2000
PERMIL = 1000
BPS = 10_000

#: Where each default comes from (the seed's own citations), stated once.
CITATIONS: dict[str, str] = {
    "alpha_floor_permil": (
        "600 permil = Krippendorff's 'substantial' 0.6 bar, the same bar the seed's ruler "
        "measures itself against (LLM-vs-human alpha collapses to 0.24 violence / 0.43 insult)."
    ),
    "ratio_cap_permil": (
        "2000 permil = 2.0x. The ruler's detectors disagree 1.45x (sexual) to 3.9x (violence) on "
        "the same corpus; a panel wider than 2x reports two phenomena, not one noisy measurement."
    ),
    "calibration": "The judge contract's own thresholds (content-addressed); edits make a draft contract.",
    "krippendorff-tentative": (
        "Krippendorff (2004), Content Analysis, 2nd ed., p. 241: alpha >= .667 is the lowest "
        "conceivable limit, for tentative conclusions only."
    ),
    "krippendorff-reliable": (
        "Krippendorff (2004), Content Analysis, 2nd ed., p. 241: rely on variables with alpha >= .800."
    ),
}


#: The graded and pass/fail judges' defaults (agreebound.scored.audit), with their citations.
ADMISSIBILITY_MARGIN_DEFAULT = 50
JUDGE_ALPHA_FLOOR_DEFAULT = ALPHA_FLOOR_DEFAULT
CITATIONS["admissibility_margin_permil"] = (
    "50 permil = 0.05 alpha: the judge may agree with the humans at most 0.05 less than they agree with each "
    "other. The alternative-annotator test (Calderon, Reichart & Dror, 2025, 'The Alternative Annotator Test for "
    "LLM-as-a-Judge') asks the same of an LLM against leave-one-out humans, with margins of 0.05 to 0.2; 0.05 is "
    "its strictest.")
CITATIONS["judge_alpha_floor_permil"] = (
    "600 permil = the panel's own floor (Krippendorff's 0.6 bar, as for detectors): a judge is a rater, and a "
    "rater below it does not measure what the humans measure.")

#: How far a judge's shift on anchor items between two runs may go before it counts as a change
#: (agreebound.judge.drift), in permil of the outcome's scale.
JUDGE_SHIFT_TOLERANCE_DEFAULT = 50
CITATIONS["judge_shift_tolerance_permil"] = (
    "50 permil = 0.05 on the outcome's scale: a mean score moving by 0.05, or a win rate by 5 points. A "
    "convention of this project, not a published bar: a shift below it is within what a re-run of the same "
    "judge moves on unchanged items; tighten it for a fine-grained score, loosen it for a coarse one.")


class Range(NamedTuple):
    """A threshold's legal values, inclusive, and its unit."""

    lo: int
    hi: int
    unit: str

    def check(self, name: str, value: object) -> int:
        """``value`` as an int, or a ValueError that names the field, the range and the value."""
        if type(value) is not int:
            raise ValueError(f"{name} must be a whole number ({self.unit}), got {_short(value)}")
        if not self.lo <= value <= self.hi:
            raise ValueError(f"{name} must be between {self.lo} and {self.hi} ({self.unit}), got {_short(value)}")
        return value


#: The one legal range of every threshold. The alpha floor is a share of agreement (0..1: a
#: negative floor would let every panel enforce); a spread cap below 1.0x could never pass; the
#: judge gates are the seed contract's basis-point ranges and its minimum_reviewers range.
RANGES: dict[str, Range] = {
    "alpha_floor_permil": Range(0, PERMIL, "permil"),
    "ratio_cap_permil": Range(PERMIL, 1_000_000, "permil"),
    "minimum_reviewers": Range(1, 100, "reviewers"),
    "minimum_human_agreement_bps": Range(0, BPS, "basis points"),
    "maximum_position_flip_bps": Range(0, BPS, "basis points"),
    "maximum_repeat_variance_bps": Range(0, BPS, "basis points"),
    "maximum_verbosity_bias_bps": Range(0, BPS, "basis points"),
    "maximum_self_preference_bps": Range(0, BPS, "basis points"),
    "maximum_verbosity_net_bps": Range(0, BPS, "basis points"),
    "maximum_self_preference_net_bps": Range(0, BPS, "basis points"),
    "admissibility_margin_permil": Range(0, PERMIL, "permil"),
    "judge_alpha_floor_permil": Range(0, PERMIL, "permil"),
    "minimum_units": Range(2, 1_000_000_000, "units"),
    # up to 100 on the outcome's scale: a score out of 100 (a win rate's whole range is 1000 permil)
    "judge_shift_tolerance_permil": Range(0, 100_000, "permil"),
}

#: The visible track of a slider; a legal value beyond it widens the track (the number input
#: beside every slider accepts the whole legal range).
SLIDER_SPAN: dict[str, tuple[int, int]] = {
    "ratio_cap_permil": (1000, 5000),
    "minimum_reviewers": (1, 10),
    "admissibility_margin_permil": (0, 300),
    "minimum_units": (2, 200),
    "judge_shift_tolerance_permil": (0, 200),
}


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_strict(value: object) -> None:
    if type(value) is not bool:
        raise ValueError(f"strict must be true or false, got {_short(value)}")


#: The panel's gates as data, like the judge's :data:`RATE_GATES`: (gate, threshold field, kind).
#: "min" gates pass at >=, "max" at <=. The seed's two (alpha and the spread) are always on; the
#: structural refusal of a single detector is not a threshold and stays code.
PANEL_GATES: tuple[tuple[str, str, str], ...] = (
    ("alpha", "alpha_floor_permil", "min"),
    ("spread", "ratio_cap_permil", "max"),
)
#: Gates a panel's threshold data may turn on (a field of :class:`PanelThresholds`, None = off, the
#: default, so the seed's rule is unchanged). Each gates a whole measured number that
#: agreebound.panel.decide names (PANEL_MEASURES); a new one is a row here, its field, range and words,
#: and its measure there: the sliders, files, links and reports read them from these tables.
OPTIONAL_PANEL_GATES: tuple[tuple[str, str, str], ...] = (
    ("units", "minimum_units", "min"),
)
OPTIONAL_PANEL_FIELDS = tuple(f for _, f, _ in OPTIONAL_PANEL_GATES)


@dataclass(frozen=True)
class PanelThresholds:
    """Threshold *data* for the panel decision. Defaults and citations: :data:`CITATIONS`."""

    alpha_floor_permil: int = ALPHA_FLOOR_DEFAULT
    ratio_cap_permil: int = RATIO_CAP_DEFAULT
    #: Strict mode: also gate on the 95% interval's bound (alpha's lower bound >= floor, the
    #: spread's upper bound <= cap). Off by default: the seed gates on the point.
    strict: bool = False
    #: The fewest pairable units (units with two or more ratings) a panel may enforce on; None = off,
    #: the seed's rule. 8 units cannot tell an alpha of 0.6 from 0.9 (the interval spans most of it).
    minimum_units: int | None = None

    def __post_init__(self) -> None:
        for _, name, _ in PANEL_GATES:
            RANGES[name].check(name, getattr(self, name))
        for name in OPTIONAL_PANEL_FIELDS:
            if getattr(self, name) is not None:
                RANGES[name].check(name, getattr(self, name))
        _check_strict(self.strict)

    def to_dict(self) -> JSONObject:
        """As data: every field, an optional gate's only when it is on (a file without it reads the same)."""
        return {k: v for k, v in asdict(self).items() if not (k in OPTIONAL_PANEL_FIELDS and v is None)}

    @property
    def alpha_floor(self) -> Fraction:
        return Fraction(self.alpha_floor_permil, PERMIL)

    @property
    def ratio_cap(self) -> Fraction:
        return Fraction(self.ratio_cap_permil, PERMIL)


#: The contract's gate fields: (rate, contract field, kind). "min" gates pass at >=, "max" at <=.
RATE_GATES: tuple[tuple[str, str, str], ...] = (
    ("human_agreement", "minimum_human_agreement_bps", "min"),
    ("position_flip", "maximum_position_flip_bps", "max"),
    ("repeat_variance", "maximum_repeat_variance_bps", "max"),
    ("verbosity_bias", "maximum_verbosity_bias_bps", "max"),
    ("self_preference", "maximum_self_preference_bps", "max"),
)
#: The gates a contract may opt in to (optional fields; a contract without them is the seed's, with
#: the same content id): the bias measures net of general disagreement (agreebound.judge.bias).
NET_GATES: tuple[tuple[str, str, str], ...] = (
    ("verbosity_net", "maximum_verbosity_net_bps", "max"),
    ("self_preference_net", "maximum_self_preference_net_bps", "max"),
)
NET_FIELDS = tuple(f for _, f, _ in NET_GATES)


@dataclass(frozen=True)
class CalibrationThresholds:
    """The five gates and minimum_reviewers: the part of a judge contract a slider may edit.

    The contract's structural fields (repetitions_per_order, minimum_cases) decide which data is
    valid at all; they are not thresholds and stay in the contract.
    """

    minimum_reviewers: int
    minimum_human_agreement_bps: int
    maximum_position_flip_bps: int
    maximum_repeat_variance_bps: int
    maximum_verbosity_bias_bps: int
    maximum_self_preference_bps: int
    #: Strict mode: a rate must also pass with its 95% bound (not part of the contract).
    strict: bool = False
    #: The opt-in gates on the bias measures net of disagreement (NET_GATES): None = not gated.
    maximum_verbosity_net_bps: int | None = None
    maximum_self_preference_net_bps: int | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name != "strict" and not (f.name in NET_FIELDS and getattr(self, f.name) is None):
                RANGES[f.name].check(f.name, getattr(self, f.name))
        _check_strict(self.strict)

    @classmethod
    def from_contract(cls, contract: object, strict: bool = False) -> "CalibrationThresholds":
        # the contract's threshold fields by name (an opt-in gate None when the contract has none)
        given: dict[str, Any] = {f.name: getattr(contract, f.name, None) for f in fields(cls) if f.name != "strict"}
        return cls(**given, strict=strict)

    def to_dict(self) -> JSONObject:
        """As data: every field, an opt-in gate only when it is set (a file without them reads the same)."""
        return {k: v for k, v in asdict(self).items() if not (k in NET_FIELDS and v is None)}

    def contract_fields(self) -> dict[str, int]:
        """The contract's threshold fields (an opt-in gate only when it is set)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "strict" and not (f.name in NET_FIELDS and getattr(self, f.name) is None)}


@dataclass(frozen=True)
class ScoredThresholds:
    """Threshold *data* for a graded or pass/fail judge (agreebound.scored.audit): the admissibility
    margin (the judge's alpha with the humans may fall short of the humans' with each other by at
    most this) and the floor on the judge's alpha with the humans. Defaults: :data:`CITATIONS`."""

    admissibility_margin_permil: int = ADMISSIBILITY_MARGIN_DEFAULT
    judge_alpha_floor_permil: int = JUDGE_ALPHA_FLOOR_DEFAULT
    #: Strict mode: a gate passes only when its 95% interval's lower bound passes too (for the
    #: admissibility gate, a non-inferiority test at the margin). Off by default, as the panel's.
    strict: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name != "strict":
                RANGES[f.name].check(f.name, getattr(self, f.name))
        _check_strict(self.strict)

    @property
    def admissibility_margin(self) -> Fraction:
        return Fraction(self.admissibility_margin_permil, PERMIL)

    @property
    def judge_alpha_floor(self) -> Fraction:
        return Fraction(self.judge_alpha_floor_permil, PERMIL)


@dataclass(frozen=True)
class DriftThresholds:
    """Threshold *data* for the drift between two judge runs (agreebound.judge.drift): how far the
    judge's shift on the anchor items may go before it counts as a change, in permil of the
    outcome's scale (50 = 0.050 of a score, or 5 points of a win rate). Default: :data:`CITATIONS`.

    ``exact_tolerance``: a tolerance finer than a whole permil (a command line's ``--tolerance
    0.0125``), kept exact; ``judge_shift_tolerance_permil`` then holds its floor, for display.
    Files, links and sliders carry whole permil only: a :class:`ThresholdSet` refuses it.

    >>> DriftThresholds().tolerance, DriftThresholds.from_tolerance(Fraction(1, 10))
    (Fraction(1, 20), DriftThresholds(judge_shift_tolerance_permil=100, exact_tolerance=None))
    >>> DriftThresholds.from_tolerance(Fraction(1, 80)).tolerance
    Fraction(1, 80)
    """

    judge_shift_tolerance_permil: int = JUDGE_SHIFT_TOLERANCE_DEFAULT
    exact_tolerance: Fraction | None = None

    def __post_init__(self) -> None:
        name = "judge_shift_tolerance_permil"
        RANGES[name].check(name, self.judge_shift_tolerance_permil)
        x = self.exact_tolerance
        if x is None:
            return
        if not isinstance(x, Fraction) or (x * PERMIL).denominator == 1:
            raise ValueError(f"an exact judge shift tolerance is a Fraction finer than a permil, not {_short(x)}")
        # both ends of the permil it lies in are legal: so is it
        RANGES[name].check(name, math.ceil(x * PERMIL))
        if math.floor(x * PERMIL) != self.judge_shift_tolerance_permil:
            raise ValueError(f"{name} must be the floor of the exact tolerance {x} in permil")

    @classmethod
    def from_tolerance(cls, tolerance: Fraction) -> "DriftThresholds":
        """On the outcome's scale (a win rate's share: 1/20 is 5 points), exactly; a ValueError
        names the field when it is out of its range."""
        permil = Fraction(tolerance) * PERMIL
        if permil.denominator == 1:
            return cls(int(permil))
        return cls(math.floor(permil), Fraction(tolerance))

    @property
    def tolerance(self) -> Fraction:
        """The tolerance on the outcome's scale, exactly (what agreebound.judge.drift.decide_drift reads)."""
        return self.exact_tolerance if self.exact_tolerance is not None else \
            Fraction(self.judge_shift_tolerance_permil, PERMIL)

    def to_dict(self) -> JSONObject:
        """As data: whole permil (a finer tolerance is no data: see the class)."""
        if self.exact_tolerance is not None:
            raise ValueError(f"a judge shift tolerance of {self.exact_tolerance} is finer than a permil: not data")
        return {"judge_shift_tolerance_permil": self.judge_shift_tolerance_permil}


CALIBRATION_FIELDS = tuple(f.name for f in fields(CalibrationThresholds) if f.name not in ("strict", *NET_FIELDS))
PANEL_FIELDS = tuple(f.name for f in fields(PanelThresholds))
SCORED_FIELDS = tuple(f.name for f in fields(ScoredThresholds) if f.name != "strict")
#: The drift table's fields a file or link may set (the exact refinement is the command line's).
DRIFT_FIELDS = ("judge_shift_tolerance_permil",)


@dataclass(frozen=True)
class ThresholdSet:
    """Panel thresholds, and calibration thresholds (None = each contract's own)."""

    panel: PanelThresholds = field(default_factory=PanelThresholds)
    calibration: CalibrationThresholds | None = None
    source: str = "default"  # "default", "preset:<name>", "file:<name>", "link", "draft"
    #: a graded or pass/fail judge's (agreebound.scored.audit)
    scored: ScoredThresholds = field(default_factory=ScoredThresholds)
    #: the drift between two judge runs (agreebound.judge.drift), whole permil
    drift: DriftThresholds = field(default_factory=DriftThresholds)

    def __post_init__(self) -> None:
        if self.drift.exact_tolerance is not None:
            raise ValueError("a threshold set's judge shift tolerance is whole permil (a finer one is the command "
                             "line's alone)")

    def to_dict(self) -> JSONObject:
        """As data; the graded judges' and the drift's tables only when they differ from their
        defaults (a file without them reads the same)."""
        out: JSONObject = {"panel": self.panel.to_dict()}
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        if self.scored != ScoredThresholds():
            out["scored"] = {k: v for k, v in asdict(self.scored).items() if k != "strict" or v}
        if self.drift != DriftThresholds():
            out["drift"] = self.drift.to_dict()
        return out

    @property
    def edited(self) -> bool:
        """Whether any table differs from the defaults (the source aside)."""
        return self.to_dict() != DEFAULT.to_dict()

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"


DEFAULT = ThresholdSet()


#: How each threshold reads in a sentence (display units: alpha as a number, the cap as a multiple,
#: the judge's gates in percent).
THRESHOLD_WORDS: dict[str, tuple[str, Callable[[int], str]]] = {
    "alpha_floor_permil": ("alpha floor", lambda v: f"{v / PERMIL:.3f}"),
    "ratio_cap_permil": ("spread cap", lambda v: f"{v / PERMIL:.2f}x"),
    "minimum_reviewers": ("minimum reviewers", str),
    "minimum_human_agreement_bps": ("human agreement minimum", lambda v: f"{v / 100:g}%"),
    "maximum_position_flip_bps": ("position flip maximum", lambda v: f"{v / 100:g}%"),
    "maximum_repeat_variance_bps": ("repeat variance maximum", lambda v: f"{v / 100:g}%"),
    "maximum_verbosity_bias_bps": ("verbosity bias maximum", lambda v: f"{v / 100:g}%"),
    "maximum_self_preference_bps": ("self-preference maximum", lambda v: f"{v / 100:g}%"),
    "maximum_verbosity_net_bps": ("net verbosity maximum", lambda v: f"{v / 100:g} points"),
    "maximum_self_preference_net_bps": ("net self-preference maximum", lambda v: f"{v / 100:g} points"),
    "admissibility_margin_permil": ("admissibility margin", lambda v: f"{v / PERMIL:.3f}"),
    "judge_alpha_floor_permil": ("judge alpha floor", lambda v: f"{v / PERMIL:.3f}"),
    "minimum_units": ("minimum units", lambda v: f"{v:,}"),
    "judge_shift_tolerance_permil": ("judge shift tolerance", lambda v: f"{v / PERMIL:.3f} ({v / 10:g} points of a "
                                                                        "win rate)"),
}


def edits(t: ThresholdSet, contract_thresholds: CalibrationThresholds | None) -> list[str]:
    """Each threshold in force that differs from its default (the seed's for the panel, the bound
    contract's for the judge), beside that default, in words.

    >>> edits(ThresholdSet(PanelThresholds(150, 4600)), None)
    ['alpha floor 0.150 (default 0.600)', 'spread cap 4.60x (default 2.00x)']
    >>> edits(DEFAULT, None)
    []
    >>> edits(ThresholdSet(drift=DriftThresholds(80)), None)
    ['judge shift tolerance 0.080 (8 points of a win rate) (default 0.050 (5 points of a win rate))']
    """
    out = []
    for name in PANEL_FIELDS:
        now, then = getattr(t.panel, name), getattr(DEFAULT.panel, name)
        if now != then:
            words, fmt = THRESHOLD_WORDS.get(name, (name, str))
            out.append("panel strict mode on (default off)" if name == "strict" else
                       f"{words} {'off' if now is None else fmt(now)} (default {'off' if then is None else fmt(then)})")
    if t.calibration is not None and contract_thresholds is not None:
        for name in CALIBRATION_FIELDS:
            now, then = getattr(t.calibration, name), getattr(contract_thresholds, name)
            if now != then:
                words, fmt = THRESHOLD_WORDS[name]
                out.append(f"judge {words} {fmt(now)} (contract {fmt(then)})")
        if t.calibration.strict:
            out.append("judge strict mode on (default off)")
    for name in DRIFT_FIELDS:
        now, then = getattr(t.drift, name), getattr(DEFAULT.drift, name)
        if now != then:
            words, fmt = THRESHOLD_WORDS[name]
            out.append(f"{words} {fmt(now)} (default {fmt(then)})")
    return out

#: Built-in presets; a thresholds file may add its own.
PRESETS: dict[str, ThresholdSet] = {
    "seed-defaults": ThresholdSet(PanelThresholds(600, 2000), None, "preset:seed-defaults"),
    "krippendorff-tentative": ThresholdSet(PanelThresholds(667, 2000), None, "preset:krippendorff-tentative"),
    "krippendorff-reliable": ThresholdSet(PanelThresholds(800, 1500), None, "preset:krippendorff-reliable"),
}


class ThresholdError(ValueError):
    """A threshold that is not legal data: ``key`` is its dotted path (``panel.alpha_floor_permil``)."""

    def __init__(self, key: str | None, message: str):
        super().__init__(message)
        self.key = key


def _table(data: object, path: str) -> JSONObject:
    if not isinstance(data, dict):
        raise ThresholdError(path or None, f"{path or 'the thresholds'} must be a table/object, got {type(data).__name__}")
    return data


def threshold_set_from_dict(data: object, source: str, prefix: str = "") -> ThresholdSet:
    """Build from parsed JSON/TOML/URL data; a :class:`ThresholdError` names the offending key."""
    data = _table(data, prefix.rstrip("."))
    unknown = sorted(str(k) for k in data if k not in ("panel", "calibration", "scored", "drift"))
    if unknown:
        raise ThresholdError(prefix + unknown[0], "unknown key; expected 'panel', 'calibration', 'scored' and/or "
                             "'drift'")
    panel = _optional_table(data, "panel", PanelThresholds, PANEL_FIELDS, prefix)
    calibration = None
    if "calibration" in data:
        c = _table(data["calibration"], prefix + "calibration")
        extra = sorted(str(k) for k in c if k not in CALIBRATION_FIELDS and k not in NET_FIELDS and k != "strict")
        if extra:
            raise ThresholdError(f"{prefix}calibration.{extra[0]}",
                                 f"unknown key; expected {', '.join(CALIBRATION_FIELDS)} and optionally strict, "
                                 + ", ".join(NET_FIELDS))
        missing = [n for n in CALIBRATION_FIELDS if n not in c]
        if missing:
            raise ThresholdError(f"{prefix}calibration.{missing[0]}",
                                 f"missing; a calibration table needs all of {', '.join(CALIBRATION_FIELDS)}")
        calibration = _build(CalibrationThresholds, c, prefix + "calibration")
    scored = _optional_table(data, "scored", ScoredThresholds, SCORED_FIELDS, prefix, strict=True)
    drift = _optional_table(data, "drift", DriftThresholds, DRIFT_FIELDS, prefix)
    return ThresholdSet(panel, calibration, source, scored, drift)


def _optional_table(data: JSONObject, name: str, cls: type[_Optional], names: tuple[str, ...], prefix: str,
                    strict: bool = False) -> _Optional:
    """A table a file may leave out (its defaults then): its keys checked, each value in its range."""
    if name not in data:
        return cls()
    t = _table(data[name], prefix + name)
    extra = sorted(str(k) for k in t if k not in names and not (strict and k == "strict"))
    if extra:
        raise ThresholdError(f"{prefix}{name}.{extra[0]}", f"unknown key; expected {', '.join(names)}"
                             + (" and optionally strict" if strict else ""))
    return _build(cls, t, prefix + name)


#: The threshold tables a file's table is built into.
_Table = TypeVar("_Table", PanelThresholds, CalibrationThresholds, ScoredThresholds, DriftThresholds)
#: The tables a file may leave out (their defaults then).
_Optional = TypeVar("_Optional", PanelThresholds, ScoredThresholds, DriftThresholds)


def _build(cls: type[_Table], values: JSONObject, path: str) -> _Table:
    """Validate field by field so the error names the key that is out of its range."""
    for name, value in values.items():
        if name == "strict":
            try:
                _check_strict(value)
            except ValueError as e:
                raise ThresholdError(f"{path}.strict", str(e)) from None
        else:
            try:
                RANGES[name].check(name, value)
            except ValueError as e:
                raise ThresholdError(f"{path}.{name}", str(e)) from None
    return cls(**values)
