"""Judge calibration at scale: our frames path against the seed's record path, in one process,
interleaved, medians of REPEATS.

100,000 cases x 2 orders x 5 repetitions = 1,000,000 observations.
- the peer, the seed's record path: the seed's own records (bench/seed_records.py, validated per
  record), its snapshot, the audit's rebuild of every record, then its loop (tests/support/seed_oracle.py);
- our record path (for information): our record classes, then agreebound.judge.seed_report.audit_calibration;
- our frames path: audit_frames on the DataFrames, validation included.
Target: frames >= 10x faster than the seed's record path.  Run: make bench.
"""

from __future__ import annotations

import statistics
import time

from bench import seed_records  # noqa: E402

from tests.support.seed_oracle import seed_audit  # noqa: E402

from agreebound.judge.seed_report import audit_calibration
from agreebound.judge.frames import audit_frames  # noqa: E402
from agreebound.judge.contract import (  # noqa: E402
    OBSERVATION_FIELDS,
    REFERENCE_FIELDS,
    HumanReference,
    JudgeCalibrationSnapshot,
    JudgeObservation,
)
from agreebound.app.synthetic import JudgeBehaviour, judge_frames  # noqa: E402


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


REPEATS = 3


def main(n_cases: int = 100_000, reps: int = 5) -> None:
    b = JudgeBehaviour(accuracy=0.9, position_bias=0.05, noise=0.02, verbosity_bias=0.2, self_preference=0.2)
    contract, refs, obs, header = judge_frames(n_cases, reps, b, seed=1)
    print(f"{n_cases:,} cases x 2 orders x {reps} repetitions = {len(obs):,} observations")
    times: dict[str, list[float]] = {"frames": [], "seed": [], "seed_build": [], "seed_rebuild": [], "seed_loop": [],
                                     "ours_build": [], "ours_audit": []}
    for _ in range(REPEATS):  # interleaved: each repetition runs all three paths
        t, rep_frames = timed(lambda: audit_frames(contract, refs, obs, **header))
        times["frames"].append(t)
        t1, built = timed(lambda: seed_records.build(refs, obs, header))
        t2, rebuilt = timed(lambda: seed_records.rebuild(built))
        t3, seed = timed(lambda: seed_audit(contract, rebuilt))
        times["seed_build"].append(t1)
        times["seed_rebuild"].append(t2)
        times["seed_loop"].append(t3)
        times["seed"].append(t1 + t2 + t3)
        t, snap = timed(lambda: build_records(refs, obs, header))
        times["ours_build"].append(t)
        t, rep_records = timed(lambda: audit_calibration(contract, snap))
        times["ours_audit"].append(t)
    ours = (rep_frames.decision, rep_frames.human_agreement_bps, rep_frames.position_flip_bps,
            rep_frames.repeat_variance_bps, rep_frames.verbosity_bias_bps, rep_frames.self_preference_bps,
            rep_frames.reference_issues)
    assert ours == seed, (ours, seed)
    assert rep_records.measurement == rep_frames.measurement
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"frames path (ours, end to end):                        {med['frames']:8.3f} s")
    print(f"record path (the seed's records, rebuild and loop):      {med['seed']:8.3f} s  (build "
          f"{med['seed_build']:.3f} + the audit's rebuild {med['seed_rebuild']:.3f} + loop {med['seed_loop']:.3f})")
    print(f"record path (ours, for information): build {med['ours_build']:.3f} s + audit {med['ours_audit']:.3f} s")
    print(f"speed-up frames vs the seed's record path: {med['seed'] / med['frames']:.1f}x (target >= 10x); "
          f"medians of {REPEATS} interleaved repetitions")
    print(f"result: {ours[0]}, bps {ours[1:6]}")


if __name__ == "__main__":
    main()
