"""A panel's decision as decide returned it: the verdict, its reasons, its gates; and the one reading
of a stored report's reasons back into gates. Every view reads these; only agreebound.panel.decide
makes them.
"""

from __future__ import annotations
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING
from agreebound.core.gate import NOT_MEASURED, UNDEFINED, Gate, StrictGateLabels, evaluate
from agreebound.core.json_types import JSONObject
from agreebound.core.planner import Plan
from agreebound.core.thresholds import PERMIL, PanelThresholds
from agreebound.panel.seed import Verdict

if TYPE_CHECKING:
    from agreebound.panel.categories import Level


# --- the decision --------------------------------------------------------------


@dataclass(frozen=True)
class Reason:
    """One failed check: what was measured, against what, and by how much."""

    check: str  # "single_detector" | "alpha_undefined" | "alpha_below_floor" | "ratio_unbounded" | "ratio_above_cap"
    value: Fraction | int | None
    threshold: Fraction | int
    margin: Fraction | int | None  # value - threshold (how far on the wrong side); None when value is None
    message: str


@dataclass(frozen=True)
class PanelDecision:
    verdict: Verdict
    reasons: tuple[Reason, ...]
    ndet: int
    alpha: Fraction | None
    spread: Fraction | None  # None = unbounded
    rates_span: tuple[Fraction | int, Fraction | int]
    thresholds: PanelThresholds
    seed_alpha_permil: int
    seed_ratio_permil: int
    seed_verdict: Verdict

    #: Where ``seed_alpha_permil`` comes from: "matrix" (the seed's nominal integer formula applied
    #: to the rating matrix itself) or "value" (the seed's rounding of a given alpha value).
    seed_alpha_source: str = "value"

    @property
    def seed_disagrees(self) -> bool:
        """True whenever the seed's own path would reach another verdict: its nominal integer alpha
        on the same matrix (which ignores missing cells differently and rounds up), its integer
        spread and its check order, under the same thresholds."""
        return self.seed_verdict is not self.verdict

    @property
    def spread_measured(self) -> bool:
        """False when there were no detector rates: the spread gate then passes as the seed's
        empty panel does (1000 permil), and says "not measured"."""
        return bool(self.rates_measured)

    rates_measured: int = 0
    #: The gates as decided, in order: the seed's "detectors", "alpha", "spread", then each optional
    #: gate the thresholds turned on (OPTIONAL_PANEL_GATES; agreebound.core.gate).
    gates: tuple[Gate, ...] = ()
    #: The verdict alpha at each compared level would give (decide_panel; empty from decide alone).
    at_levels: dict[Level, Verdict] = field(default_factory=dict)

    @property
    def depends_on_level(self) -> bool:
        """The verdict differs between the compared levels."""
        return len(set(self.at_levels.values())) > 1

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)


#: Why a gate has no number, in the words every screen shows.
ALPHA_UNDEFINED_DETAIL = "no pairable values or no variation"
SPREAD_UNBOUNDED_DETAIL = "a detector found nothing where another found something"
#: The reasons' checks that fail each gate: what a stored report's reasons say about its gates.
GATE_CHECKS: dict[str, tuple[str, ...]] = {
    "detectors": ("single_detector",),
    "alpha": ("alpha_undefined", "alpha_below_floor", "alpha_interval_missing", "alpha_lower_bound_below_floor"),
    "spread": ("ratio_unbounded", "ratio_above_cap", "spread_interval_missing", "spread_upper_unbounded",
               "spread_upper_above_cap"),
}


def optional_check(name: str, kind: str) -> str:
    """The reason's check that fails an optional gate (OPTIONAL_PANEL_GATES): "units_below_minimum"."""
    return f"{name}_{'below_minimum' if kind == 'min' else 'above_maximum'}"


# --- gates of a stored report ----------------------------------------------------------------


def gates_from_report(dimension: JSONObject, thresholds: JSONObject) -> tuple[Gate, ...]:
    """The gates of one dimension of a stored JSON report (the seed's three, then its optional ones;
    ``report["panel"]["dimensions"]``
    under ``report["thresholds"]["panel"]``), for reports that do not carry them: each gate
    passed when its decision gave no reason against it (:data:`GATE_CHECKS`). The one place a
    report's reasons are read back as gates."""
    checks = {r["check"] for r in dimension.get("reasons", ())}
    floor = Fraction(thresholds["alpha_floor_permil"], PERMIL)
    cap = Fraction(thresholds["ratio_cap_permil"], PERMIL)
    strict = bool(thresholds.get("strict"))
    source = "stored"
    ndet = int(dimension.get("ndet", 2 if "single_detector" not in checks else 1))
    det = replace(evaluate("detectors", "min", Fraction(ndet), Fraction(2), threshold_source="structural"),
                  passed="single_detector" not in checks)
    a = dimension["alpha"]
    iv = a.get("interval") or {}
    alpha_value = Fraction(a["exact"]) if a.get("defined") and a.get("exact") is not None else None
    alpha = evaluate("alpha", "min", alpha_value, floor, low=iv.get("low"),
                     high=iv.get("high") if iv.get("low") is not None else None,
                     state=None if alpha_value is not None else UNDEFINED,
                     detail="" if alpha_value is not None else ALPHA_UNDEFINED_DETAIL,
                     threshold_field="alpha_floor_permil", threshold_source=source, strict=strict)
    alpha = replace(alpha, passed=not checks & set(GATE_CHECKS["alpha"]), plan=Plan.from_dict(a.get("plan")))
    s = dimension["spread"]
    bracket = s.get("bracket95") or [None, None]
    common = StrictGateLabels(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=strict)
    if s["state"] == "not measured":
        sp = Gate("spread", "max", None, cap, None, state=NOT_MEASURED, **common)
    else:
        bounded = s["state"] == "bounded"
        sp = evaluate("spread", "max", Fraction(s["exact"]) if bounded else None, cap, low=bracket[0],
                      high=bracket[1], state=None if bounded else s["state"],
                      detail="" if bounded else SPREAD_UNBOUNDED_DETAIL, **common)
        sp = replace(sp, passed=not checks & set(GATE_CHECKS["spread"]))
    optional = tuple(replace(evaluate(o["name"], o["kind"], None if o["exact"] is None else Fraction(o["exact"]),
                                      Fraction(o["threshold"]), unit="n",
                                      state=None if o["exact"] is not None else o["state"],
                                      threshold_field=o["threshold_field"], threshold_source=source),
                             passed=optional_check(o["name"], o["kind"]) not in checks)
                     for o in dimension.get("optional_gates", ()))
    return (det, alpha, sp) + optional
