"""The seed's own report of a judge audit (``audit_calibration``) and its eight illustrative lines."""

from __future__ import annotations
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from agreebound.judge.contract import (
    ILLUSTRATIVE_CONTRACT,
    ILLUSTRATIVE_SNAPSHOT,
    JudgeCalibrationContract,
)
from agreebound.judge.decide import decide
from agreebound.judge.measure import CalibrationMeasurement, Decision, measure_records, rebuild_contract, rebuild_snapshot

if TYPE_CHECKING:
    from agreebound.judge.contract import JudgeCalibrationSnapshot
    from agreebound.judge.frames import FrameSnapshot


# --- the seed's report -----------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationReport:
    contract: JudgeCalibrationContract
    snapshot: JudgeCalibrationSnapshot | FrameSnapshot  # a FrameSnapshot from the frames path
    decision: Decision
    human_agreement_bps: int
    position_flip_bps: int
    repeat_variance_bps: int
    verbosity_bias_bps: int
    self_preference_bps: int
    reference_issues: tuple[str, ...]
    measurement: CalibrationMeasurement | None = field(default=None, repr=False, compare=False)


def seed_report(measurement: CalibrationMeasurement, snapshot: JudgeCalibrationSnapshot | FrameSnapshot) -> CalibrationReport:
    d = decide(measurement)
    agreement, flip, repeat, verbosity, self_pref = (r.bps for r in measurement.rates)
    return CalibrationReport(
        measurement.contract,
        snapshot,
        d.seed_decision,  # the seed decides on rounded bps; decide() also reports the exact gate
        agreement, flip, repeat, verbosity, self_pref,
        d.reference_issues,
        measurement,
    )


def audit_calibration(contract: object, snapshot: object) -> CalibrationReport:
    """The seed's audit: the same five bps, sorted reference issues and decision on every input."""
    c = rebuild_contract(contract)
    s = rebuild_snapshot(snapshot)
    return seed_report(measure_records(c, s), s)


def format_example() -> str:
    """The seed's eight illustrative lines, exactly."""
    report = audit_calibration(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)
    return "\n".join((
        "example=illustrative_only",
        f"calibration_id={report.contract.content_id}",
        f"cases={len(report.snapshot.references)};observations={len(report.snapshot.observations)}",
        f"human_agreement_bps={report.human_agreement_bps}",
        f"position_flip_bps={report.position_flip_bps};repeat_variance_bps={report.repeat_variance_bps}",
        f"verbosity_bias_bps={report.verbosity_bias_bps};self_preference_bps={report.self_preference_bps}",
        f"decision={report.decision}",
        "claim=LOCAL_DECLARED_LABEL_AUDIT_NOT_JUDGE_VALIDATION",
    ))


def main() -> None:
    print(format_example())


if __name__ == "__main__":
    main()
