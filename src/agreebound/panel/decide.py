"""The panel's decision: its gates against threshold data, the verdict and its reasons.

The one place a panel number is compared with a threshold (tests/architecture/test_decide_only.py).

>>> decide(1, Fraction(1), [5, 5]).verdict
<Verdict.REFUSE_SINGLE: 'REFUSE_SINGLE'>
"""


from __future__ import annotations
import math
from dataclasses import replace
from fractions import Fraction
from numbers import Rational
from typing import TYPE_CHECKING, Callable, Mapping, Sequence
import numpy as np
from agreebound.core.gate import (MEASURED, NOT_EVALUABLE, NOT_MEASURED, UNBOUNDED, UNDEFINED, Gate, StrictGateLabels,
                                  evaluate, meets)
from agreebound.core.planner import plan_alpha
from agreebound.core.thresholds import OPTIONAL_PANEL_GATES, PanelThresholds
from agreebound.panel.categories import Level
from agreebound.panel.intervals import alpha_interval_words
from agreebound.panel.result import AlphaResult
from agreebound.panel.seed import AB_PERMIL, AB_UNDEFINED, Verdict, seed_enforce
from agreebound.panel.spread import checked_rates, rate_span, ratio_permil, spread
from agreebound.panel.decision import ALPHA_UNDEFINED_DETAIL, SPREAD_UNBOUNDED_DETAIL, PanelDecision, Reason, optional_check

if TYPE_CHECKING:
    from agreebound.panel.measure import PanelMeasurement


#: What each optional panel gate (agreebound.core.thresholds.OPTIONAL_PANEL_GATES) reads of a measured
#: panel: gate name -> (its noun, the whole number it gates).
PANEL_MEASURES: dict[str, tuple[str, Callable[[PanelMeasurement], int | None]]] = {
    "units": ("pairable units", lambda m: m.alpha.units),
}


def _fmt(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4f} ({x})"


def _plain(value: Fraction, threshold: Fraction, digits: int = 3) -> tuple[str, str, str]:
    """``value``, ``threshold`` and their gap in plain decimals for a reader (the exact fractions stay
    in the reason's fields): ``digits`` decimals, more where they would show the two alike (0.5995
    against 0.6).

    >>> _plain(Fraction(520132, 2203311), Fraction(3, 5)), _plain(Fraction(5995, 10000), Fraction(3, 5))
    (('0.236', '0.600', '0.364'), ('0.5995', '0.6000', '0.0005'))
    """
    while digits < 12 and f"{float(value):.{digits}f}" == f"{float(threshold):.{digits}f}":
        digits += 1
    return tuple(f"{float(x):.{digits}f}" for x in (value, threshold, abs(value - threshold)))  # type: ignore[return-value]


def decide(
    ndet: int | np.integer,
    alpha: AlphaResult | Fraction | int | None,
    rates: Sequence[object],
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
    measured: Mapping[str, int | None] | None = None,
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
    (agreebound.core.planner.plan_alpha; no plan without them). ``measured``: the numbers the
    optional gates the thresholds turn on read (:data:`PANEL_MEASURES`, by gate name); each such gate
    follows the seed's three, and failing one holds the panel to REPORT_ONLY.

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
    elif isinstance(alpha, bool) or not isinstance(alpha, Rational):
        raise ValueError(f"alpha must be an AlphaResult, a Fraction or None, got {alpha!r}")
    else:
        value = Fraction(alpha)
    checked = checked_rates(rates)
    s = spread(checked)
    if source is None:
        source = "default" if thresholds == PanelThresholds() else "given"
    seed_gates = (_detectors_gate(ndet),
                  _alpha_gate(value, thresholds, (alpha_low, alpha_high, alpha_method), source, (alpha_se, alpha_units)),
                  _spread_gate(s, bool(checked), thresholds, (spread_low, spread_high), source))
    optional = _optional_gates(thresholds, measured or {}, source)
    gates = seed_gates + optional
    reasons = _reasons(seed_gates, thresholds.strict, spread_high) + [_optional_reason(g) for g in optional
                                                                       if g.passed is False]
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


def _alpha_gate(value: Fraction | None, th: PanelThresholds, interval: tuple[float | None, float | None, str], source: str,
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


def _spread_gate(s: Fraction | None, measured: bool, th: PanelThresholds, bracket: tuple[float | None, float | None | str],
                 source: str) -> Gate:
    low, given = bracket
    known = given != "unknown"  # "unknown": no bracket computed (None: unbounded above)
    low, high = (low, given) if known and not isinstance(given, str) else (None, None)
    common = StrictGateLabels(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=th.strict)
    if not measured:  # no detector rates: passes as the seed's empty panel does, and is not checked
        return Gate("spread", "max", None, th.ratio_cap, None, state=NOT_MEASURED, **common)
    if s is None:
        return evaluate("spread", "max", None, th.ratio_cap, low=low, high=high, state=UNBOUNDED,
                        detail=SPREAD_UNBOUNDED_DETAIL, **common)
    # strict mode: the bracket's upper end must stay within the cap; unbounded or missing fails
    bound = None if not th.strict else known and high is not None and meets(Fraction(high), "max", th.ratio_cap)
    return evaluate("spread", "max", s, th.ratio_cap, low=low, high=high,
                    interval_method="bracket from the detectors' Wilson intervals", bound_passed=bound,
                    **common)


def _optional_gates(th: PanelThresholds, measured: Mapping[str, int | None], source: str) -> tuple[Gate, ...]:
    """The gates the thresholds turn on (OPTIONAL_PANEL_GATES), each on its whole measured number."""
    out = []
    for name, field_name, kind in OPTIONAL_PANEL_GATES:
        limit = getattr(th, field_name)
        if limit is None:
            continue
        value = measured.get(name)
        out.append(evaluate(name, kind, None if value is None else Fraction(value), Fraction(limit), unit="n",
                            state=None if value is not None else NOT_EVALUABLE,
                            detail="" if value is not None else "not measured by this source",
                            threshold_field=field_name, threshold_source=source))
    return tuple(out)


def _optional_reason(g: Gate) -> Reason:
    """A failed optional gate, in the words of its measure and its threshold."""
    noun = PANEL_MEASURES[g.name][0]
    side, limit = ("minimum", "below") if g.kind == "min" else ("maximum", "above")
    if g.exact is None:
        return Reason(optional_check(g.name, g.kind), None, g.threshold, None,
                      f"{noun}: not measured, so the {side} of {int(g.threshold):,} cannot be met")
    return Reason(optional_check(g.name, g.kind), g.exact, g.threshold, g.exact - g.threshold,
                  f"{int(g.exact):,} {noun}: {limit} the {side} of {int(g.threshold):,}")


def _reasons(gates: tuple[Gate, Gate, Gate], strict: bool, spread_high: float | None | str) -> list[Reason]:
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
                          "alpha {} is below the floor {} by {}".format(*_plain(value, floor))))
    cap, s = sp.threshold, sp.exact
    if sp.state == UNBOUNDED:
        out.append(Reason("ratio_unbounded", None, cap, None,
                          "detector spread is unbounded: one detector found nothing where another found something"))
    elif sp.value_passed is False:
        assert s is not None
        out.append(Reason("ratio_above_cap", s, cap, s - cap,
                          "detector spread {}x is above the cap {}x by {}x".format(*_plain(s, cap, 2))))
    if strict:
        out.extend(_strict_reasons(alpha, sp, spread_high))
    return out


def _strict_reasons(alpha: Gate, sp: Gate, spread_high: float | None | str) -> list[Reason]:
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
            assert sp.high is not None  # the bracket's upper end, as given: bounded here
            high = Fraction(sp.high)
            out.append(Reason("spread_upper_above_cap", high, cap, high - cap,
                              f"strict mode: the spread's 95% upper bound {float(high):.3f}x is above the cap {_fmt(cap)}x"))
    return out


# --- a measured panel decided --------------------------------------------------------------


def decide_panel(m: "PanelMeasurement", thresholds: PanelThresholds, source: str | None = None) -> PanelDecision:
    """The panel's decision with its intervals (alpha's bootstrap, the spread's bracket), so each
    gate carries them, and the verdict at every compared level (``at_levels``); ``source``: where the
    thresholds came from (ThresholdSet.source). What every view of the panel reads (agreebound.render.view)."""
    b = m.alpha_boot
    d = decide(m.ndet, m.alpha, m.rate_values, thresholds, alpha_low=b.low, alpha_high=b.high,
               alpha_method=alpha_interval_words(b), spread_low=m.spread_bracket[0],
               spread_high=m.spread_bracket[1], source=source, alpha_se=b.se, alpha_units=m.alpha.units,
               measured=panel_measured(m))
    # the verdict at every compared level, decided here once: every renderer reads it from the decision
    return replace(d, at_levels=level_verdicts(m, thresholds))


def compared_levels(m: PanelMeasurement) -> tuple[Level, ...]:
    """The levels a verdict is held against: every level the values admit, ratio only where it
    is in force (it needs a true zero only the user knows of)."""
    return tuple(lv for lv in m.alpha_at_levels if lv != "ratio" or m.level == "ratio")


def level_verdicts(m: PanelMeasurement, thresholds: PanelThresholds) -> dict[Level, Verdict]:
    """The verdict alpha at each compared level would give, all else unchanged, by the point
    gates (strict mode's interval bound is drawn at the level in force only, so strict mode alone
    never makes a verdict depend on the level). They differ: the verdict *depends on the level*."""
    plain = replace(thresholds, strict=False)
    measured = panel_measured(m)
    return {lv: decide(m.ndet, m.alpha_at_levels[lv], m.rate_values, plain, spread_high=m.spread_bracket[1],
                       measured=measured).verdict
            for lv in compared_levels(m)}


def panel_measured(m: PanelMeasurement) -> dict[str, int | None]:
    """The numbers the optional gates read (PANEL_MEASURES), the same at every level."""
    return {name: measure(m) for name, (_, measure) in PANEL_MEASURES.items()}


