"""Judge calibration at scale: our frames path against the seed's record path, in one process.

100,000 cases x 2 orders x 5 repetitions = 1,000,000 observations.
- seed record path: build the seed's records (HumanReference / JudgeObservation, validated per
  record), build the snapshot, then the seed's audit loop (tests/seed_oracle.py, a literal
  restatement of the seed's audit_calibration);
- our record path: the same records, then agreebound.calibration.audit_calibration;
- our frames path: audit_frames on the DataFrames, validation included.
Target: frames >= 10x faster than the seed's record path.  Run: make bench.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from seed_oracle import seed_audit  # noqa: E402

from agreebound.calibration import (  # noqa: E402
    OBSERVATION_FIELDS,
    REFERENCE_FIELDS,
    HumanReference,
    JudgeCalibrationSnapshot,
    JudgeObservation,
    audit_calibration,
    audit_frames,
)
from agreebound.synthetic import JudgeBehaviour, judge_frames  # noqa: E402


def build_records(refs, obs, header):
    ref_cols = [refs[n].tolist() for n in REFERENCE_FIELDS]
    obs_cols = [obs[n].tolist() for n in OBSERVATION_FIELDS]
    return JudgeCalibrationSnapshot(
        header["scope"], header["contract_content_id"], header["rubric_digest"],
        tuple(HumanReference(*r) for r in zip(*ref_cols)),
        tuple(JudgeObservation(*r) for r in zip(*obs_cols)),
    )


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(n_cases: int = 100_000, reps: int = 5) -> None:
    b = JudgeBehaviour(accuracy=0.9, position_bias=0.05, noise=0.02, verbosity_bias=0.2, self_preference=0.2)
    contract, refs, obs, header = judge_frames(n_cases, reps, b, seed=1)
    print(f"{n_cases:,} cases x 2 orders x {reps} repetitions = {len(obs):,} observations")

    t_frames, rep_frames = timed(lambda: audit_frames(contract, refs, obs, **header))
    t_build, snap = timed(lambda: build_records(refs, obs, header))
    t_seed_audit, seed = timed(lambda: seed_audit(contract, snap))
    t_our_audit, rep_records = timed(lambda: audit_calibration(contract, snap))
    ours = (rep_frames.decision, rep_frames.human_agreement_bps, rep_frames.position_flip_bps,
            rep_frames.repeat_variance_bps, rep_frames.verbosity_bias_bps, rep_frames.self_preference_bps,
            rep_frames.reference_issues)
    assert ours == seed, (ours, seed)
    assert rep_records.measurement == rep_frames.measurement
    t_seed = t_build + t_seed_audit
    print(f"frames path (ours, end to end):        {t_frames:8.3f} s")
    print(f"record path (seed): build {t_build:.3f} s + audit {t_seed_audit:.3f} s = {t_seed:8.3f} s")
    print(f"record path (ours): build {t_build:.3f} s + audit {t_our_audit:.3f} s = {t_build + t_our_audit:8.3f} s")
    print(f"speed-up frames vs seed record path: {t_seed / t_frames:.1f}x (target >= 10x)")
    print(f"result: {ours[0]}, bps {ours[1:6]}")


if __name__ == "__main__":
    main()
