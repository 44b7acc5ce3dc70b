"""A graded or pass/fail judge's decision: its gates against threshold data, the one place its
numbers meet a threshold (tests/architecture/test_decide_only.py).
"""

from __future__ import annotations
from dataclasses import dataclass, replace
from fractions import Fraction
from agreebound.core.gate import NOT_EVALUABLE, Gate, evaluate, worst
from agreebound.core.planner import plan_se
from agreebound.judge.bias import Measure
from agreebound.core.thresholds import ScoredThresholds
from agreebound.scored.audit import ScoredMeasurement
from agreebound.scored.items import FAIL, INCOMPLETE, PASS


# --- deciding ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredDecision:
    """Each judge's gates and decision, and the run's (the worst judge's)."""

    decision: str
    thresholds: ScoredThresholds
    source: str
    per_judge: dict[str, tuple[str, tuple[Gate, ...], str | None]]  # judge -> (decision, gates, reason)
    judge: str | None = None  # the judge the decision is about; None: every judge (the worst decides)

    def gates(self, judge: str) -> tuple[Gate, ...]:
        return self.per_judge[judge][1]


def decide_scored(m: ScoredMeasurement, thresholds: ScoredThresholds | None = None,
                  source: str = "default", judge: str | None = None) -> ScoredDecision:
    """The only place a graded or pass/fail judge's measures meet thresholds: for each judge,
    admissibility (its alpha with the humans minus theirs with each other, against minus the margin)
    and the floor on its alpha with the humans; a gate without a number is not a pass (INCOMPLETE).
    The decision is ``judge``'s, or with several judges and none named the worst of theirs (every
    judge of the panel must be admissible)."""
    th = thresholds or ScoredThresholds()
    if judge is not None and judge not in m.input.judges:
        raise ValueError(f"no judge {judge!r} in the log; judges: {', '.join(m.input.judges)}")
    per: dict[str, tuple[str, tuple[Gate, ...], str | None]] = {}
    for a in m.agreements:
        gates = (_gate(a.difference, "admissibility", -th.admissibility_margin, "admissibility_margin_permil",
                       source, "needs two or more humans on shared items", th.strict),
                 _gate(a.judge_alpha, "judge_alpha", th.judge_alpha_floor, "judge_alpha_floor_permil", source,
                       "needs human labels on the judge's items", th.strict))
        per[a.judge] = _judge_decision(gates)
    decision = per[judge][0] if judge is not None else worst(d for d, _, _ in per.values())
    return ScoredDecision(decision, th, source, per, judge)


def _gate(measure: Measure | None, name: str, threshold: Fraction, field_name: str, source: str,
          need: str, strict: bool = False) -> Gate:
    """One gate: not evaluable without a value or without an interval (too few items to say, or
    alpha undefined without some item: never a pass); decided on the value, and in strict mode on
    the interval's lower bound too (the non-inferiority reading of the admissibility margin)."""
    if measure is None or measure.exact is None or measure.low is None:
        detail = need if measure is None else (measure.unavailable or measure.method or need)
        # a measure's exact value: a Fraction, or a float where it takes a square root (Measure.exact);
        # Gate.value is typed Fraction | None (agreebound.core.gate)
        return Gate(name, "min", None if measure is None else measure.exact, threshold, None,  # type: ignore[arg-type]
                    state=NOT_EVALUABLE, threshold_field=field_name, threshold_source=source, detail=detail)
    g = evaluate(name, "min", Fraction(measure.exact), threshold, low=measure.low, high=measure.high,
                 interval_method=measure.method, threshold_field=field_name, threshold_source=source, strict=strict)
    if measure.se is None:
        return g
    plan = plan_se(Fraction(measure.exact), threshold, se=measure.se, size=measure.cases, fragile=g.fragile,
                   unit_word="items", holds="the difference" if name == "admissibility" else "alpha",
                   how="the delete-one-item jackknife")
    return replace(g, plan=plan)


def _judge_decision(gates: tuple[Gate, ...]) -> tuple[str, tuple[Gate, ...], str | None]:
    if any(g.passed is False for g in gates):
        return FAIL, gates, None
    unknown = [g for g in gates if g.passed is None]
    if unknown:
        return INCOMPLETE, gates, "; ".join(f"{g.name}: {g.detail}" for g in unknown)
    return PASS, gates, None

