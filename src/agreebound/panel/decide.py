"""The panel's decision: its gates against threshold data, the verdict and its reasons.

The one place a panel number is compared with a threshold (tests/test_decide_only.py).

>>> decide(1, Fraction(1), [5, 5]).verdict
<Verdict.REFUSE_SINGLE: 'REFUSE_SINGLE'>
"""

from __future__ import annotations
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from numbers import Rational
from typing import Any, Sequence
import numpy as np
from agreebound.core.gate import MEASURED, NOT_MEASURED, UNBOUNDED, UNDEFINED, Gate, evaluate, meets
from agreebound.core.planner import Plan, plan_alpha
from agreebound.core.thresholds import PERMIL, PanelThresholds
from agreebound.panel.result import AlphaResult
from agreebound.panel.seed import AB_PERMIL, AB_UNDEFINED, Verdict, seed_enforce
from agreebound.panel.spread import checked_rates, rate_span, ratio_permil, spread


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
    #: The three gates as decided, in order: "detectors", "alpha", "spread" (agreebound.core.gate).
    gates: tuple[Gate, ...] = ()

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)


def _fmt(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4f} ({x})"


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


def decide(
    ndet: int,
    alpha: AlphaResult | Fraction | int | None,
    rates: Sequence[Any],
    thresholds: PanelThresholds = PanelThresholds(),
    *,
    alpha_low: float | None = None,
    spread_high: float | None | str = "unknown",
    alpha_high: float | None = None,
    alpha_method: str = "",
    spread_low: float | None = None,
    source: str | None = None,
    alpha_se: float | None = None,
    alpha_units: int = 0,
) -> PanelDecision:
    """The enforcement verdict: the only place panel numbers meet thresholds.

    Order is the seed's: ``ndet < 2`` refuses first, whatever the scores; then alpha (undefined
    or below the floor), then the spread (unbounded or above the cap) -> REPORT_ONLY.  Gates
    compare exact values; every failed check is listed, the structural refusal first.

    Strict mode (``thresholds.strict``) adds the interval gates: ``alpha_low`` (the 95% lower
    bound of alpha) must reach the floor and ``spread_high`` (the upper end of the spread's
    bracket; None = unbounded) must stay within the cap. A missing interval fails strict mode.
    ``alpha_high``, ``alpha_method`` and ``spread_low`` complete the intervals the gates carry
    (for "fragile"); ``source`` is where the thresholds came from (default: "default" when they
    are the defaults, else "given"). ``alpha_se``: the standard error of alpha's bootstrap draws at
    ``alpha_units`` pairable units, from which alpha's gate plans how many units would decide it
    (agreebound.core.planner.plan_alpha; no plan without them).

    >>> decide(3, Fraction(5994, 10000), [1, 1]).verdict            # seed would say 600 >= 600
    <Verdict.REPORT_ONLY: 'REPORT_ONLY'>
    >>> decide(3, Fraction(5994, 10000), [1, 1]).seed_disagrees
    True
    >>> decide(3, Fraction(3, 5), [1, 1]).gate("alpha").passed       # at the floor exactly: passes
    True
    """
    if type(ndet) is not int and not isinstance(ndet, np.integer):
        raise ValueError(f"ndet must be an int, got {ndet!r}")
    ndet = int(ndet)
    if not isinstance(thresholds, PanelThresholds):
        raise ValueError("thresholds must be a PanelThresholds")
    if isinstance(alpha, AlphaResult):
        value = alpha.value
    elif alpha is None:
        value = None
    elif isinstance(alpha, Rational) and not isinstance(alpha, bool):
        value = Fraction(alpha)
    else:
        raise ValueError(f"alpha must be an AlphaResult, a Fraction or None, got {alpha!r}")
    checked = checked_rates(rates)
    s = spread(checked)
    if source is None:
        source = "default" if thresholds == PanelThresholds() else "given"
    gates = (_detectors_gate(ndet),
             _alpha_gate(value, thresholds, (alpha_low, alpha_high, alpha_method), source, (alpha_se, alpha_units)),
             _spread_gate(s, bool(checked), thresholds, (spread_low, spread_high), source))
    reasons = _reasons(gates, thresholds.strict, spread_high)
    if ndet < 2:
        verdict = Verdict.REFUSE_SINGLE
    elif reasons:
        verdict = Verdict.REPORT_ONLY
    else:
        verdict = Verdict.ENFORCE
    if isinstance(alpha, AlphaResult):
        seed_a, seed_source = alpha.seed_permil, "matrix"
    else:
        seed_a = AB_UNDEFINED if value is None else AB_PERMIL - math.floor(AB_PERMIL * (1 - value))
        seed_source = "value"
    seed_r = ratio_permil(checked)
    seed_v = Verdict.from_seed_code(
        seed_enforce(ndet, seed_a, seed_r, thresholds.alpha_floor_permil, thresholds.ratio_cap_permil)
    )
    lohi = rate_span(checked)
    return PanelDecision(verdict, tuple(reasons), ndet, value, s, lohi, thresholds, seed_a, seed_r, seed_v,
                         seed_source, len(checked), gates)


def _detectors_gate(ndet: int) -> Gate:
    # structural, not a threshold: fewer than two detectors is refused whatever the thresholds say
    return evaluate("detectors", "min", Fraction(ndet), Fraction(2), threshold_source="structural")


def _alpha_gate(value: Fraction | None, th: PanelThresholds, interval: tuple[Any, Any, str], source: str,
                se_units: tuple[float | None, int] = (None, 0)) -> Gate:
    low, high, method = interval
    se, units = se_units
    if value is None:
        return evaluate("alpha", "min", None, th.alpha_floor, state=UNDEFINED, detail=ALPHA_UNDEFINED_DETAIL,
                        threshold_field="alpha_floor_permil", threshold_source=source, strict=th.strict)
    # strict mode: the 95% lower bound must reach the floor; no interval fails it
    bound = None if not th.strict else low is not None and meets(Fraction(low), "min", th.alpha_floor)
    g = evaluate("alpha", "min", value, th.alpha_floor, low=low, high=high if low is not None else None,
                 interval_method=method, strict=th.strict, bound_passed=bound,
                 threshold_field="alpha_floor_permil", threshold_source=source)
    if se is None or not units:
        return g
    # how many units would decide it: the bootstrap's standard error scaled by the units (gate.plan_alpha)
    return replace(g, plan=plan_alpha(value, th.alpha_floor, se=se, units=units, fragile=g.fragile,
                                      bootstrap=method))


def alpha_gate_at(value: Fraction, floor: Fraction) -> Gate:
    """Alpha's gate on a value alone against ``floor`` (no interval, no strict mode): decide's own
    comparison, for a reader asking where another alpha would land (coefficients.explain: leaving
    a rater out)."""
    return evaluate("alpha", "min", value, floor, threshold_field="alpha_floor_permil", threshold_source="given")


def _spread_gate(s: Fraction | None, measured: bool, th: PanelThresholds, bracket: tuple[Any, Any],
                 source: str) -> Gate:
    low, high = bracket
    known = high != "unknown"
    low, high = (low, high) if known else (None, None)
    common = dict(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=th.strict)
    if not measured:  # no detector rates: passes as the seed's empty panel does, and is not checked
        return Gate("spread", "max", None, th.ratio_cap, None, state=NOT_MEASURED, **common)  # type: ignore[arg-type]
    if s is None:
        return evaluate("spread", "max", None, th.ratio_cap, low=low, high=high, state=UNBOUNDED,
                        detail=SPREAD_UNBOUNDED_DETAIL, **common)  # type: ignore[arg-type]
    # strict mode: the bracket's upper end must stay within the cap; unbounded or missing fails
    bound = None if not th.strict else known and high is not None and meets(Fraction(high), "max", th.ratio_cap)
    return evaluate("spread", "max", s, th.ratio_cap, low=low, high=high,
                    interval_method="bracket from the detectors' Wilson intervals", bound_passed=bound,
                    **common)  # type: ignore[arg-type]


def _reasons(gates: tuple[Gate, Gate, Gate], strict: bool, spread_high: Any) -> list[Reason]:
    """The failed checks, in the seed's order, from the gates (the structural refusal first)."""
    det, alpha, sp = gates
    out: list[Reason] = []
    if not det.passed:
        ndet = int(det.exact or 0)
        out.append(Reason("single_detector", ndet, 2, ndet - 2,
                          f"{ndet} independent detector(s): fewer than two is a coin flip and is refused "
                          "structurally, whatever the scores"))
    floor, value = alpha.threshold, alpha.exact
    if value is None:
        out.append(Reason("alpha_undefined", None, floor, None,
                          "alpha is undefined (no pairable values or no variation): it cannot license action"))
    elif not alpha.value_passed:
        out.append(Reason("alpha_below_floor", value, floor, value - floor,
                          f"alpha {_fmt(value)} is below the floor {_fmt(floor)} by {_fmt(floor - value)}"))
    cap, s = sp.threshold, sp.exact
    if sp.state == UNBOUNDED:
        out.append(Reason("ratio_unbounded", None, cap, None,
                          "detector spread is unbounded: one detector found nothing where another found something"))
    elif sp.value_passed is False:
        assert s is not None
        out.append(Reason("ratio_above_cap", s, cap, s - cap,
                          f"detector spread {_fmt(s)}x is above the cap {_fmt(cap)}x by {_fmt(s - cap)}x"))
    if strict:
        out.extend(_strict_reasons(alpha, sp, spread_high))
    return out


def _strict_reasons(alpha: Gate, sp: Gate, spread_high: Any) -> list[Reason]:
    """``spread_high``: as given to decide ("unknown": none was computed; None: unbounded)."""
    out = []
    floor, cap = alpha.threshold, sp.threshold
    if alpha.exact is not None:
        if alpha.low is None:
            out.append(Reason("alpha_interval_missing", None, floor, None,
                              "strict mode gates on alpha's 95% lower bound, and none was computed"))
        elif not alpha.bound_passed:
            low = Fraction(alpha.low)
            out.append(Reason("alpha_lower_bound_below_floor", low, floor, low - floor,
                              f"strict mode: alpha's 95% lower bound {float(low):.4f} is below the floor "
                              f"{_fmt(floor)}"))
    if sp.state == MEASURED:
        if spread_high == "unknown":
            out.append(Reason("spread_interval_missing", None, cap, None,
                              "strict mode gates on the spread's upper bound, and none was computed"))
        elif spread_high is None:
            out.append(Reason("spread_upper_unbounded", None, cap, None,
                              "strict mode: the spread's upper bound is unbounded (a detector's rate could be 0)"))
        elif not sp.bound_passed:
            high = Fraction(sp.high)
            out.append(Reason("spread_upper_above_cap", high, cap, high - cap,
                              f"strict mode: the spread's 95% upper bound {float(high):.3f}x is above the cap {_fmt(cap)}x"))
    return out


# --- gates of a stored report ----------------------------------------------------------------


def gates_from_report(dimension: dict[str, Any], thresholds: dict[str, Any]) -> tuple[Gate, ...]:
    """The three gates of one dimension of a stored JSON report (``report["panel"]["dimensions"]``
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
    common = dict(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=strict)
    if s["state"] == "not measured":
        sp = Gate("spread", "max", None, cap, None, state=NOT_MEASURED, **common)  # type: ignore[arg-type]
    else:
        bounded = s["state"] == "bounded"
        sp = evaluate("spread", "max", Fraction(s["exact"]) if bounded else None, cap, low=bracket[0],
                      high=bracket[1], state=None if bounded else s["state"],
                      detail="" if bounded else SPREAD_UNBOUNDED_DETAIL, **common)  # type: ignore[arg-type]
        sp = replace(sp, passed=not checks & set(GATE_CHECKS["spread"]))
    return (det, alpha, sp)
