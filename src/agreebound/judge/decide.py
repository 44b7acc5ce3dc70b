"""The judge's decision: the contract's gates against threshold data, the seed's basis points beside
them, and the verdict. The one place a judge rate meets a threshold (tests/architecture/test_decide_only.py).
"""


from __future__ import annotations
from dataclasses import replace
from fractions import Fraction
from agreebound.judge.columns import Frame, values
from agreebound.judge.contract import (
    BPS,
    ILLUSTRATIVE_CONTRACT,
)
from agreebound.core.gate import NOT_EVALUABLE, Gate, StrictGateLabels, cases_to_flip, evaluate, meets
from agreebound.core.planner import plan_difference, plan_rate
from agreebound.judge.bias import GATE_OF
from agreebound.judge.counts import ISSUE_IDS, JudgeCounts
from agreebound.core.thresholds import NET_GATES, RATE_GATES, CalibrationThresholds
from agreebound.core.intervals import RateInterval, Wilson
from agreebound.judge.measure import CalibrationMeasurement, Decision, FAIL, INCOMPLETE, PASS, Rate
from agreebound.judge.decision import CalibrationDecision, NO_CONTRACT_REASON, NO_CONTRACT_THRESHOLDS_REASON, seed_view




# --- deciding --------------------------------------------------------------------------------


def reference_issues(counts: JudgeCounts, minimum_reviewers: int,
                     cases: Frame | None = None) -> tuple[tuple[str, ...], int]:
    """The references that fail the contract, as it names and sorts them (every "adjudication:<case>"
    before every "reviewers:<case>"), and how many more there are than are listed: the one listing,
    for :func:`decide`. ``cases``: the rows per case when the engine kept them (in memory): every
    issue is listed from their ids. Without them the counts' first ``ISSUE_IDS`` ids of each kind
    hold the first ``ISSUE_IDS`` issues in that order, and the rest are counted.

    >>> from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT
    >>> from agreebound.judge.measure import measure
    >>> m = measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)  # 4 cases of 2 reviewers, adjudicated
    >>> reference_issues(m.counts, 2)
    ((), 0)
    >>> issues = reference_issues(m.counts, 3)  # a third reviewer required: every reference falls short
    >>> issues[0][:2], issues[1], issues == reference_issues(m.counts, 3, m.rows) == reference_issues(m.counts, 3, m.cases)
    (('reviewers:case-accuracy', 'reviewers:case-refusal'), 0, True)
    """
    n_low = sum(n for r, n in counts.reviewers.items() if r < minimum_reviewers)
    if cases is None:
        low = sorted(i for r, ids in counts.reviewer_ids.items() if r < minimum_reviewers for i in ids)[:ISSUE_IDS]
        unadjudicated, limit = counts.unadjudicated_ids, ISSUE_IDS
    else:
        # a partial audit: only the cases that have a reference
        kept = values(cases["has_reference"]).astype(bool) if "has_reference" in cases else slice(None)
        ids = values(cases["case_id"]).astype(object)[kept]
        low = ids[values(cases["reviewers"])[kept] < minimum_reviewers].tolist()
        unadjudicated, limit = ids[~values(cases["adjudicated"]).astype(bool)[kept]].tolist(), None
    listed = sorted(["adjudication:" + i for i in unadjudicated] + ["reviewers:" + i for i in low])[:limit]
    return tuple(listed), counts.unadjudicated + n_low - len(listed)


def decide(measurement: CalibrationMeasurement, thresholds: CalibrationThresholds | None = None, *,
           intervals: dict[str, RateInterval] | None = None) -> CalibrationDecision:
    """The calibration decision: the only place rates meet thresholds (exact fractions).

    ``thresholds`` defaults to the contract's own; edited thresholds make a draft contract with
    its own content id, named in the decision. A measurement without a contract the user gave
    (``contract_given`` False) is measured against its limits but never decided: INCOMPLETE, with
    the reason (:data:`NO_CONTRACT_REASON`). ``intervals``: the case-aware 95% intervals
    (agreebound.judge.intervals.judge_rate_intervals) when the caller has them; otherwise the measurement's own
    (its cached diagnostics). Each gate carries its interval, whether it is fragile, and its plan
    (agreebound.core.planner.Plan: the minimum detectable difference, how many more cases would decide it).
    """
    th = thresholds if thresholds is not None else measurement.contract.thresholds
    if not isinstance(th, CalibrationThresholds):
        raise ValueError("thresholds must be CalibrationThresholds")
    if intervals is None and any(r.denominator for r in measurement.rates):
        # the case-aware intervals, cached with the measurement's diagnostics: each gate's interval,
        # whether it is fragile, its plan (how many cases would decide it), strict mode's bound
        intervals = measurement.diagnostics.intervals
    origin = "given"
    if not measurement.contract_given:  # no contract: the gates are measured, nothing is decided
        illustrative = th.contract_fields() == ILLUSTRATIVE_CONTRACT.thresholds.contract_fields()
        origin = "illustrative" if illustrative else "thresholds"
    elif th.contract_fields() != measurement.contract.thresholds.contract_fields():
        origin = "draft"
    source = {"given": "contract"}.get(origin, origin)
    gates = tuple(_rate_gate(measurement, th, name, field_name, kind, intervals, source)
                  for name, field_name, kind in RATE_GATES)
    # the opt-in gates on the bias net of disagreement (a version 2 contract's, or edited thresholds')
    net = tuple(_net_gate(measurement, th, name, field_name, kind, source)
                for name, field_name, kind in NET_GATES if getattr(th, field_name) is not None)
    issues, unlisted = reference_issues(measurement.counts, th.minimum_reviewers, measurement.rows)
    decision, seed_decision, reason = _decision(gates, net, bool(issues))
    if origin in ("illustrative", "thresholds"):
        decision = seed_decision = INCOMPLETE
        reason = NO_CONTRACT_REASON if origin == "illustrative" else NO_CONTRACT_THRESHOLDS_REASON
    return CalibrationDecision(
        decision=decision,
        reference_issues=issues,
        thresholds=th,
        decided_against=measurement.contract.with_thresholds(th),
        bound_content_id=measurement.contract.content_id,
        seed_decision=seed_decision,
        contract_origin="given" if origin == "draft" else origin,
        reason=reason,
        gates=gates + net,
        rates=measurement.rates,
        unlisted_issues=unlisted,
    )


def _decision(gates: tuple[Gate, ...], net: tuple[Gate, ...], issues: bool) -> tuple[Decision, Decision, str | None]:
    """The decision from the decided gates: the seed's five (and its own view of them, rounded) and
    the net gates a contract opted in to (not the seed's: decided exactly in both). A gate that
    cannot be evaluated (passed None) is never a pass: the decision is then INCOMPLETE, unless a gate
    that could be evaluated failed (FAIL), with the reason."""
    checked = gates + net
    failed = issues or any(g.passed is False for g in checked)
    seed_failed = issues or any(g.passed is not None and not seed_view(g).passed for g in gates) or any(
        g.passed is False for g in net)
    unknown = [g for g in checked if g.passed is None]
    if not unknown:
        return (FAIL if failed else PASS), (FAIL if seed_failed else PASS), None
    if failed:
        return FAIL, FAIL, None
    seed_unknown = [g for g in gates if g.passed is None]
    reason = (f"a partial audit: {len(seed_unknown)} of {len(gates)} gates cannot be evaluated from this source"
              if seed_unknown else "")
    net_unknown = [g for g in net if g.passed is None]
    if net_unknown:
        said = "; ".join(f"{g.name}: {g.detail}" for g in net_unknown)
        reason = (reason + "; and " if reason else "") + (
            f"the contract gates on {len(net_unknown)} measure{'' if len(net_unknown) == 1 else 's'} net of "
            f"disagreement this audit cannot measure ({said})")
    return INCOMPLETE, INCOMPLETE, reason


def _rate_gate(measurement: CalibrationMeasurement, th: CalibrationThresholds, name: str, field_name: str,
               kind: str, intervals: dict[str, RateInterval] | None, source: str) -> Gate:
    """One rate against its threshold, exactly (and in strict mode its case-aware bound)."""
    rate: Rate = getattr(measurement, name)
    t = getattr(th, field_name)
    limit = Fraction(t, BPS)
    flip = cases_to_flip(rate.numerator, rate.denominator, t, kind)
    common = StrictGateLabels(unit="%", threshold_field=field_name, threshold_source=source, strict=th.strict)
    if name in measurement.unavailable:  # a partial audit: this source cannot evaluate the gate
        return Gate(name, kind, None, limit, None, state=NOT_EVALUABLE, detail=measurement.unavailable[name],
                    cases_to_decide=flip, **common)
    if not rate.denominator:  # no opportunity: as the seed, a minimum above 0 is not met, a maximum is
        passed = meets(0, kind, t)
        return Gate(name, kind, None, limit, passed, passed, state=NOT_EVALUABLE, detail="no opportunities",
                    cases_to_decide=flip, **common)
    iv = (intervals or {}).get(name)
    bound_passed = None
    if th.strict:
        # the case-aware interval (observations of one case are not independent); the
        # observation-level Wilson only if the rate has no per-case counts
        w = iv or Wilson(rate.numerator, rate.denominator)
        bound_passed = w.low_at_least(limit) if kind == "min" else w.high_at_most(limit)
    value = Fraction(rate.numerator, rate.denominator)  # the rate's value: it has opportunities
    g = evaluate(name, kind, value, limit, low=None if iv is None else iv.low,
                 high=None if iv is None else iv.high, interval_method="" if iv is None else iv.method,
                 bound_passed=bound_passed, cases_to_decide=flip, **common)
    if iv is None:
        return g
    # how many cases would decide it: at the interval's own design effect (agreebound.core.planner.plan_rate)
    return replace(g, plan=plan_rate(value, limit, observations=iv.observations, cases=iv.cases,
                                     design_effect=iv.deff, fragile=g.fragile, total_cases=measurement.n_cases))


def _net_gate(measurement: CalibrationMeasurement, th: CalibrationThresholds, name: str, field_name: str,
              kind: str, source: str) -> Gate:
    """An opt-in gate on a bias measure net of disagreement (agreebound.judge.bias): its exact value
    (a difference, possibly negative) against the contract's maximum; in strict mode its interval's
    upper bound too. A source that cannot measure it leaves it unchecked; no opportunities pass it,
    as the seed passes a maximum with nothing to count."""
    m = measurement.bias[name]
    limit = Fraction(getattr(th, field_name), BPS)
    common = StrictGateLabels(unit="%", threshold_field=field_name, threshold_source=source, strict=th.strict)
    if m.exact is None:
        raw = GATE_OF[name]
        if raw not in measurement.unavailable and measurement.counts.rates[raw].denominator == 0:
            # nothing for the raw rate to count: as the seed passes a maximum with no opportunity
            return Gate(name, kind, None, limit, True, True, state=NOT_EVALUABLE, detail=m.unavailable,
                        **common)
        # the source lacks what it needs, or the comparison set is empty: not checked, never a pass
        return Gate(name, kind, None, limit, None, state=NOT_EVALUABLE, detail=m.unavailable,
                    **common)
    g = evaluate(name, kind, m.exact, limit, low=m.low, high=m.high, interval_method=m.method,
                 **common)
    if m.se is None:  # no interval: nothing to plan from
        return g
    return replace(g, plan=plan_difference(m.exact, limit, variance=m.se * m.se,
                                           srs_variance=m.se * m.se / m.design_effect if m.design_effect else None,
                                           cases=m.cases, fragile=g.fragile, total_cases=measurement.n_cases))
