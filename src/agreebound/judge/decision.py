"""A judge's decision as decide returned it: the verdict, the gates, the seed's view of each gate, and
the one reading of a stored report's rates back into gates. Every view reads these; only
agreebound.judge.decide makes them.
"""

from __future__ import annotations
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Sequence
from agreebound.judge.contract import (
    BPS,
    JudgeCalibrationContract,
    rate_bps,
)
from agreebound.core.gate import straddles, NOT_EVALUABLE, Gate, GateLabels, evaluate, meets
from agreebound.core.intervals import RateInterval
from agreebound.core.json_types import JSONObject
from agreebound.core.planner import Plan
from agreebound.core.thresholds import CalibrationThresholds
from agreebound.judge.measure import Decision, Rate




# --- deciding --------------------------------------------------------------------------------


#: How the illustrative limits are named wherever they appear: they are an example, not a contract.
ILLUSTRATIVE_LIMITS = "illustrative limits (the seed's example), not a contract"
#: The reason a source without a contract is not decided (with the seed's illustrative limits).
NO_CONTRACT_REASON = "no contract: measured against illustrative limits"
#: ... and with thresholds the user set (a preset, a file, an edit) but still no contract.
NO_CONTRACT_THRESHOLDS_REASON = "no contract: measured against the thresholds in force, not a contract"


@dataclass(frozen=True)
class CalibrationDecision:
    decision: Decision
    reference_issues: tuple[str, ...]
    thresholds: CalibrationThresholds
    decided_against: JudgeCalibrationContract  # the bound contract, or a draft of it
    bound_content_id: str  # the contract the measurement was bound to
    seed_decision: Decision  # what the seed's rounded bps decide under the same thresholds
    #: Where the contract came from: "given" (by the user: a bundle, the trio, --contract), or no
    #: contract at all and the gates measured against "illustrative" limits (the seed's example)
    #: or the "thresholds" in force (a preset, a file, an edit). Without a contract nothing is decided.
    contract_origin: str = "given"
    #: Why the decision is INCOMPLETE, in words (None otherwise).
    reason: str | None = None
    #: The five gates as decided, in RATE_GATES order (agreebound.core.gate): the decision's only
    #: per-gate result. The seed's view of one is :func:`seed_view`.
    gates: tuple[Gate, ...] = ()
    #: The measured rates the gates were decided on, in the same order: their raw counts, which a
    #: gate's exact (reduced) fraction does not keep, and the seed's basis points. Not a result.
    rates: tuple[Rate, ...] = ()
    #: Reference issues beyond those listed (an out-of-core audit lists the first ISSUE_IDS).
    unlisted_issues: int = 0

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)

    def rate(self, name: str) -> Rate:
        return next(r for r in self.rates if r.name == name)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the decision adds to the measurement's notes: how many reference issues there are
        when only the first are listed (decided here: they depend on ``minimum_reviewers``)."""
        if not self.unlisted_issues:
            return ()
        shown = len(self.reference_issues)
        return (f"{shown + self.unlisted_issues:,} reference issues; the first {shown:,} (in the contract's "
                "order) are listed",)

    @property
    def contract_given(self) -> bool:
        return self.contract_origin == "given"

    @property
    def against_bound(self) -> bool:
        return self.decided_against.content_id == self.bound_content_id

    @property
    def contract_kind(self) -> str:
        """"bound" or "draft" (edited thresholds) for a contract the user gave; "illustrative" or
        "thresholds" when there is no contract (nothing is bound, nothing is decided)."""
        if not self.contract_given:
            return self.contract_origin
        return "bound" if self.against_bound else "draft"

    @property
    def limits_text(self) -> str:
        """What the gates were measured against, in words."""
        if self.contract_origin == "illustrative":
            return ILLUSTRATIVE_LIMITS
        if self.contract_origin == "thresholds":
            return "the thresholds in force, not a contract (none was given)"
        return f"the {self.contract_kind} contract"

    @property
    def seed_disagrees(self) -> bool:
        return self.seed_decision != self.decision


def unavailable(g: Gate) -> str | None:
    """Why this source cannot evaluate a judge gate (a partial audit), in words; None when it can.
    Such a gate is not checked (``passed`` None): it neither passes nor fails."""
    return g.detail if g.passed is None else None


@dataclass(frozen=True)
class SeedView:
    """A judge gate as the seed reads it: its threshold in basis points, and whether the seed's
    comparison of rounded half-up basis points passes (a gate this source cannot evaluate does not)."""

    threshold_bps: int
    passed: bool


def seed_view(g: Gate) -> SeedView:
    """The seed's view of a decided judge gate, the one place it is derived (a gate without a value
    is the seed's 0 bps; half-up rounding of a fraction does not depend on its reduction).

    >>> from agreebound.core.gate import evaluate
    >>> seed_view(evaluate("human_agreement", "min", Fraction(17999, 20000), Fraction(9000, BPS)))
    SeedView(threshold_bps=9000, passed=True)
    """
    threshold_bps = int(g.threshold * BPS)  # a judge threshold is whole basis points
    if g.passed is None:
        return SeedView(threshold_bps, False)
    bps = 0 if g.exact is None else rate_bps(g.exact.numerator, g.exact.denominator)
    return SeedView(threshold_bps, meets(bps, g.kind, threshold_bps))


def with_intervals(gates: Sequence[Gate], intervals: dict[str, RateInterval] | None) -> tuple[Gate, ...]:
    """The gates with the case-aware 95% intervals (agreebound.judge.intervals.judge_rate_intervals) a decision
    made without them lacks, and whether each is fragile; a gate that has its interval, or has no
    value, is kept as decided. For screens that hold the intervals apart from the decision."""
    out = []
    for g in gates:
        iv = (intervals or {}).get(g.name)
        if iv is None or g.exact is None or g.low is not None or g.threshold is None:
            out.append(g)
            continue
        out.append(replace(g, low=iv.low, high=iv.high, interval_method=iv.method,
                           fragile=straddles(iv.low, iv.high, g.kind, g.threshold)))
    return tuple(out)


def gates_from_report(rates: Sequence[JSONObject]) -> tuple[Gate, ...]:
    """The judge's gates from a stored JSON report's ``calibration.rates``, for reports that do not
    carry them: as decided and stored (``passed``), a gate that could not be evaluated is not
    checked (None). The one place a stored judge report is read back as gates."""
    out = []
    for r in rates:
        evaluable = bool(r.get("evaluable")) and not r.get("unavailable")
        t = None if r.get("threshold_bps") is None else Fraction(r["threshold_bps"], BPS)
        value = Fraction(r["exact"]) if evaluable and r.get("exact") is not None else None
        iv = r.get("interval95") or [None, None]
        flip = r.get("cases_to_flip")
        common = GateLabels(unit="%", threshold_field={"min": "minimum_", "max": "maximum_"}[r["kind"]] + r["name"]
                            + "_bps", threshold_source="stored")
        to_decide = None if not flip else (flip["direction"], flip["cases"])
        method = r.get("interval_method") or ""
        if value is None or t is None:
            # a stored rate without threshold_bps keeps its threshold None, as stored (with_intervals
            # then leaves the gate as it is): the one Gate whose threshold is not a Fraction
            out.append(Gate(r["name"], r["kind"], value, t, bool(r["passed"]) if evaluable else None,  # type: ignore[arg-type]
                            state="measured" if evaluable else NOT_EVALUABLE, low=iv[0], high=iv[1],
                            detail=r.get("unavailable") or ("" if evaluable else "no opportunities"),
                            interval_method=method, cases_to_decide=to_decide, **common))
            continue
        g = evaluate(r["name"], r["kind"], value, t, low=iv[0], high=iv[1], bound_passed=r.get("bound_passed"),
                     strict=r.get("bound_passed") is not None, interval_method=method,
                     cases_to_decide=to_decide, **common)
        out.append(replace(g, passed=bool(r["passed"])))
    # the plan as stored (reports written before plans have none)
    return tuple(replace(g, plan=Plan.from_dict(r.get("plan"))) for g, r in zip(out, rates))


