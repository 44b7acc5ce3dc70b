"""A small builder for hand-computed judge audits: a contract, a case (its human reference and the
judge's picks in both orders), a snapshot of cases. Shared by the judge's and the intervals' tests."""

from __future__ import annotations

from hashlib import sha256

from agreebound.judge.contract import (HumanReference, JudgeCalibrationContract, JudgeCalibrationSnapshot,
                                       JudgeObservation)

DIGEST = sha256(b"rubric").hexdigest()


def contract(**kw) -> JudgeCalibrationContract:
    base = dict(version="judge-calibration-v1", scope="unit-test-scope", judge_generator="judge-v1",
                repetitions_per_order=2, minimum_cases=1, minimum_reviewers=1,
                minimum_human_agreement_bps=0, maximum_position_flip_bps=10_000,
                maximum_repeat_variance_bps=10_000, maximum_verbosity_bias_bps=10_000,
                maximum_self_preference_bps=10_000)
    base.update(kw)
    return JudgeCalibrationContract(**base)


def case(case_id, preferred, picks, a_tok=100, b_tok=100, a_gen="candidate-a", b_gen="candidate-b",
         reviewers=("reviewer:one",), adjudicated=True, judge="judge-v1"):
    """picks: {"ab": [rep1, rep2, ...], "ba": [...]} selected candidates."""
    ref = HumanReference(case_id, preferred, reviewers, adjudicated)
    obs = tuple(JudgeObservation(case_id, order, i + 1, pick, a_tok, b_tok, a_gen, b_gen, judge)
                for order in ("ab", "ba") for i, pick in enumerate(picks[order]))
    return ref, obs


def snapshot(con, *cases, scope=None, content_id=None):
    refs = tuple(r for r, _ in cases)
    obs = tuple(o for _, os in cases for o in os)
    return JudgeCalibrationSnapshot(scope or con.scope, content_id or con.content_id, DIGEST, refs, obs)
