"""agreebound.judge (measure, decide, frames, seed_report): seed identity, error conditions, hand-computed rates, frames parity."""

from __future__ import annotations

import copy
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreebound.judge.frames as cal_frames
import agreebound.judge.contract as cal_contract
from agreebound.core.thresholds import CalibrationThresholds
from agreebound.judge.seed_report import audit_calibration, format_example
from agreebound.judge.frames import audit_frames, measure_frames
from agreebound.judge.decide import decide
from agreebound.judge.decision import seed_view
from agreebound.judge.measure import measure
from agreebound.judge.contract import (
    ILLUSTRATIVE_CONTRACT as C,
    ILLUSTRATIVE_SNAPSHOT as S,
    HumanReference,
    JudgeCalibrationSnapshot,
    JudgeObservation,
    snapshot_frames,
)
from agreebound.app.synthetic import JudgeBehaviour, judge_frames
from tests.support.judge_records import DIGEST, case, contract, snapshot
from tests.support.seed_oracle import seed_audit

SEED_LINES = """example=illustrative_only
calibration_id=judge-calibration@sha256:27575a4cb05907995935c4ba3c8e7e96c9614d1504a90442d48060067f7ce2f1
cases=4;observations=16
human_agreement_bps=10000
position_flip_bps=0;repeat_variance_bps=0
verbosity_bias_bps=0;self_preference_bps=0
decision=PASS_CALIBRATION
claim=LOCAL_DECLARED_LABEL_AUDIT_NOT_JUDGE_VALIDATION"""



def test_illustrative_lines_exact():
    assert format_example() == SEED_LINES
    assert C.content_id == "judge-calibration@sha256:27575a4cb05907995935c4ba3c8e7e96c9614d1504a90442d48060067f7ce2f1"


def test_module_main_prints_the_lines():
    out = subprocess.run([sys.executable, "-m", "agreebound.judge.seed_report"], capture_output=True, text=True, check=True)
    assert out.stdout == SEED_LINES + "\n"


def test_hand_computed_every_rate():
    con = contract()
    snap = snapshot(
        con,
        # stable both orders, agrees: no flip
        case("case-one", "a", {"ab": ["a", "a"], "ba": ["a", "a"]}, a_tok=50, b_tok=90),
        # stable both orders, flips a -> b; human prefers shorter a, judge picked longer b twice
        case("case-two", "a", {"ab": ["a", "a"], "ba": ["b", "b"]}, a_tok=50, b_tok=90),
        # unstable in "ab": leaves the flip denominator; tie preferred: no verbosity, no self
        case("case-three", "tie", {"ab": ["a", "tie"], "ba": ["tie", "tie"]}, b_gen="judge-v1"),
        # self-candidate b (judge's own), humans preferred a: self opportunity x4, 3 self picks
        case("case-four", "a", {"ab": ["b", "b"], "ba": ["b", "a"]}, b_gen="judge-v1"),
    )
    m = measure(con, snap)
    agree = 4 + 2 + 3 + 1  # case-one 4, case-two 2, case-three 3 ties, case-four 1
    assert (m.human_agreement.numerator, m.human_agreement.denominator) == (agree, 16)
    assert (m.repeat_variance.numerator, m.repeat_variance.denominator) == (2, 8)  # case-three ab, case-four ba
    assert (m.position_flip.numerator, m.position_flip.denominator) == (1, 2)  # case-one, case-two only
    assert (m.verbosity_bias.numerator, m.verbosity_bias.denominator) == (2, 8)  # case-one/two, 4 obs each
    assert (m.self_preference.numerator, m.self_preference.denominator) == (3, 4)
    assert m.human_agreement.value == Fraction(10, 16)
    assert m.human_agreement.bps == 6250 and m.repeat_variance.bps == 2500 and m.position_flip.bps == 5000
    facts = m.cases.set_index("case_id")
    assert facts.loc["case-two", "flipped"] and not facts.loc["case-one", "flipped"]
    assert facts.loc["case-three", "unstable_ab"] and not facts.loc["case-three", "flip_opportunity"]
    assert facts.loc["case-four", "self_candidate"] == "b" and facts.loc["case-four", "self_errors"] == 3
    assert facts.loc["case-three", "self_opportunities"] == 0  # tie preference: never a self opportunity
    assert facts.loc["case-two", "verbosity_errors"] == 2
    assert pd.isna(facts.loc["case-four", "verdict_ba"]) and facts.loc["case-four", "verdict_ab"] == "b"
    rep = audit_calibration(con, snap)
    assert seed_audit(con, snap) == (rep.decision, rep.human_agreement_bps, rep.position_flip_bps,
                                     rep.repeat_variance_bps, rep.verbosity_bias_bps, rep.self_preference_bps,
                                     rep.reference_issues)


def test_self_candidate_rules():
    con = contract()
    # both candidates are the judge's own: no self candidate
    both = measure(con, snapshot(con, case("case-both", "a", {"ab": ["b", "b"], "ba": ["b", "b"]},
                                            a_gen="judge-v1", b_gen="judge-v1")))
    assert both.self_preference.denominator == 0 and not both.self_preference.evaluable
    assert both.self_preference.bps == 0 and both.self_preference.value is None
    # a is the judge's own and humans preferred a: not an opportunity (preferring own is right)
    own_right = measure(con, snapshot(con, case("case-own", "a", {"ab": ["a", "a"], "ba": ["a", "a"]}, a_gen="judge-v1")))
    assert own_right.self_preference.denominator == 0
    # a is the judge's own, humans preferred b: every observation is an opportunity
    own_wrong = measure(con, snapshot(con, case("case-own", "b", {"ab": ["a", "b"], "ba": ["a", "a"]}, a_gen="judge-v1")))
    assert (own_wrong.self_preference.numerator, own_wrong.self_preference.denominator) == (3, 4)


def test_equal_tokens_give_no_verbosity_opportunity():
    con = contract()
    m = measure(con, snapshot(con, case("case-equal", "a", {"ab": ["b", "b"], "ba": ["b", "b"]}, a_tok=70, b_tok=70)))
    assert m.verbosity_bias.denominator == 0
    m = measure(con, snapshot(con, case("case-longer", "a", {"ab": ["b", "b"], "ba": ["b", "b"]}, a_tok=71, b_tok=70)))
    assert m.verbosity_bias.denominator == 0  # preferred answer is the longer one: not a verbosity case
    m = measure(con, snapshot(con, case("case-shorter", "b", {"ab": ["a", "b"], "ba": ["tie", "a"]}, a_tok=71, b_tok=70)))
    assert (m.verbosity_bias.numerator, m.verbosity_bias.denominator) == (2, 4)


def test_ties_in_agreement():
    con = contract()
    m = measure(con, snapshot(con, case("case-tie", "tie", {"ab": ["tie", "a"], "ba": ["tie", "tie"]})))
    assert (m.human_agreement.numerator, m.human_agreement.denominator) == (3, 4)


def test_all_orders_unstable_leaves_flip_not_evaluable():
    con = contract()
    m = measure(con, snapshot(con, case("case-noisy", "a", {"ab": ["a", "b"], "ba": ["b", "a"]})))
    assert m.position_flip.denominator == 0 and m.position_flip.bps == 0
    assert m.repeat_variance.value == 1


def test_reference_issues_sorted_and_failing():
    con = contract(minimum_reviewers=2)
    snap = snapshot(con, case("case-b", "a", {"ab": ["a", "a"], "ba": ["a", "a"]}, adjudicated=False),
                    case("case-a", "a", {"ab": ["a", "a"], "ba": ["a", "a"]}, reviewers=("reviewer:x", "reviewer:y")))
    rep = audit_calibration(con, snap)
    assert rep.reference_issues == ("adjudication:case-b", "reviewers:case-b")
    assert rep.decision == "FAIL_CALIBRATION"


# --- decide: exact gates, the seed flag, drafts ----------------------------------------------


def test_exact_gate_flags_seed_rounding():
    # 8999.5 bps of agreement: the seed rounds half up to 9000 and passes a 9000 floor.
    picks_ok = {"ab": ["a"] * 20, "ba": ["a"] * 20}
    cases_ = [case(f"case-{i:05d}", "a", picks_ok) for i in range(499)]
    bad = {"ab": ["a"] * 20, "ba": ["a"] * 19 + ["b"]}
    cases_ += [case(f"case-x{i:04d}", "a", bad) for i in range(1)]
    con = contract(repetitions_per_order=20)
    m = measure(con, snapshot(con, *cases_))
    assert m.human_agreement.value == Fraction(19999, 20000)
    d = decide(m, replace(con.thresholds, minimum_human_agreement_bps=10_000))
    assert m.human_agreement.bps == 10_000  # 9999.5 rounds half up
    assert d.decision == "FAIL_CALIBRATION" and d.seed_decision == "PASS_CALIBRATION" and d.seed_disagrees
    gate = d.gates[0]
    assert gate.name == "human_agreement" and not gate.passed and seed_view(gate).passed
    assert seed_view(gate).threshold_bps == 10_000 and d.rate("human_agreement").bps == 10_000
    assert gate.margin == Fraction(-1, 20000)


def test_decide_on_bound_contract_equals_seed_and_drafts_get_their_own_id():
    m = measure(C, S)
    d = decide(m)
    assert d.decision == "PASS_CALIBRATION" and d.contract_kind == "bound"
    assert d.decided_against.content_id == C.content_id
    tighter = replace(C.thresholds, minimum_reviewers=3)
    d2 = decide(m, tighter)
    assert d2.decision == "FAIL_CALIBRATION" and d2.contract_kind == "draft"
    assert d2.decided_against.content_id != C.content_id
    assert d2.decided_against.content_id == C.with_thresholds(tighter).content_id
    assert d2.reference_issues == tuple(sorted(f"reviewers:{r.case_id}" for r in S.references))
    # thresholds equal to the contract's make no draft
    assert decide(m, CalibrationThresholds.from_contract(C)).contract_kind == "bound"


def test_thresholds_validated():
    with pytest.raises(ValueError, match="maximum_position_flip_bps must be between 0 and 10000"):
        replace(C.thresholds, maximum_position_flip_bps=10_001)
    with pytest.raises(ValueError, match=r"minimum_reviewers must be a whole number \(reviewers\), got True"):
        replace(C.thresholds, minimum_reviewers=True)


# --- every seed error condition --------------------------------------------------------------

OK_OBS = dict(case_id="case-one", order="ab", repetition=1, selected_candidate="a", candidate_a_tokens=10,
              candidate_b_tokens=20, candidate_a_generator="gen-a", candidate_b_generator="gen-b",
              judge_generator="judge-v1")
OK_REF = dict(case_id="case-one", preferred_candidate="a", reviewer_ids=("reviewer:one",), adjudicated=True)


@pytest.mark.parametrize("change, message", [
    ({"case_id": 5}, "reference.case_id must be non-empty exact str (reference case_id=5)"),
    ({"case_id": " case-one"}, "reference.case_id must not have surrounding whitespace"),
    ({"case_id": "Case-One"}, "reference.case_id must be a canonical identifier (reference case_id='Case-One')"),
    ({"case_id": "c" * 97}, "reference.case_id is outside the bounded text contract"),
    ({"preferred_candidate": "c"}, "reference.preferred_candidate must be a, b, or tie (reference case_id='case-one')"),
    ({"reviewer_ids": 7}, "reference.reviewer_ids must be iterable"),
    ({"reviewer_ids": ()}, "reference.reviewer_ids must not be empty"),
    ({"reviewer_ids": ("r",)}, "reference.reviewer_id must be a canonical identifier"),
    ({"reviewer_ids": ("rev-a", "rev-a")}, "reference.reviewer_ids must be unique"),
    ({"reviewer_ids": ("rev-b", "rev-a")}, "reference.reviewer_ids must be sorted"),
    ({"adjudicated": 1}, "reference.adjudicated must be exact bool (reference case_id='case-one')"),
])
def test_reference_errors(change, message):
    with pytest.raises(ValueError) as e:
        HumanReference(**{**OK_REF, **change})
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("change, message", [
    ({"order": "xy"}, "observation.order must be ab or ba (observation case_id='case-one', order='xy', repetition=1)"),
    ({"order": "abc"}, "observation.order is outside the bounded text contract"),
    ({"repetition": True}, "observation.repetition must be exact int (observation case_id='case-one', order='ab', repetition=True)"),
    ({"repetition": 1.0}, "observation.repetition must be exact int"),
    ({"repetition": 0}, "observation.repetition must be between 1 and 100"),
    ({"repetition": 101}, "observation.repetition must be between 1 and 100"),
    ({"selected_candidate": "A"}, "observation.selected_candidate must be a, b, or tie"),
    ({"selected_candidate": "tie "}, "observation.selected_candidate must not have surrounding whitespace"),
    ({"candidate_a_tokens": 0}, "observation.candidate_a_tokens must be between 1 and 1000000"),
    ({"candidate_b_tokens": 1_000_001}, "observation.candidate_b_tokens must be between 1 and 1000000"),
    ({"candidate_a_generator": "a"}, "observation.candidate_a_generator must be a canonical identifier"),
    ({"candidate_b_generator": "gen\tb"}, "observation.candidate_b_generator is outside the bounded text contract"),
    ({"judge_generator": ""}, "observation.judge_generator must be non-empty exact str"),
])
def test_observation_errors(change, message):
    with pytest.raises(ValueError) as e:
        JudgeObservation(**{**OK_OBS, **change})
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("change, message", [
    ({"version": "V1"}, "contract.version must be a canonical identifier"),
    ({"repetitions_per_order": 1}, "contract.repetitions_per_order must be between 2 and 20"),
    ({"minimum_cases": 0}, "contract.minimum_cases must be between 1 and 100000"),
    ({"minimum_reviewers": 2.0}, "contract.minimum_reviewers must be exact int"),
    ({"maximum_self_preference_bps": -1}, "contract.maximum_self_preference_bps must be between 0 and 10000"),
    ({"minimum_human_agreement_bps": False}, "contract.minimum_human_agreement_bps must be exact int"),
])
def test_contract_errors(change, message):
    with pytest.raises(ValueError, match="^" + message.replace(".", r"\.")):
        replace(C, **change)


def _snap(**change):
    base = dict(scope=S.scope, contract_content_id=S.contract_content_id, rubric_digest=S.rubric_digest,
                references=S.references, observations=S.observations)
    base.update(change)
    return JudgeCalibrationSnapshot(**base)


@pytest.mark.parametrize("change, message", [
    ({"scope": "Scope"}, "snapshot.scope must be a canonical identifier"),
    ({"contract_content_id": "judge-calibration@sha256:abc"}, "snapshot.contract_content_id must be a judge calibration digest"),
    ({"rubric_digest": DIGEST.upper()}, "snapshot.rubric_digest must be lowercase SHA-256"),
    ({"references": 5}, "snapshot collections must be iterable"),
    ({"references": ()}, "references must contain exact HumanReference records"),
    ({"observations": (OK_OBS,)}, "observations must contain exact JudgeObservation records"),
    ({"references": S.references + S.references[:1]}, "reference case IDs must be unique (duplicate case_id='case-accuracy')"),
    ({"observations": S.observations + S.observations[-1:]}, "observation keys must be unique (duplicate observation case_id='case-tie', order='ba', repetition=2)"),
])
def test_snapshot_errors(change, message):
    with pytest.raises(ValueError) as e:
        _snap(**change)
    assert str(e.value).startswith(message)


def test_audit_errors():
    def err(con, snap):
        with pytest.raises(ValueError) as e:
            audit_calibration(con, snap)
        return str(e.value)

    assert err(replace(C, scope="another-scope"), S).startswith("snapshot belongs to another scope")
    assert err(replace(C, maximum_position_flip_bps=501), S).startswith("snapshot is not bound to this contract content")
    bigger = replace(C, minimum_cases=5)
    assert err(bigger, _snap(contract_content_id=bigger.content_id)) == (
        "snapshot has fewer cases than the calibration contract (4 < 5)")
    stray = replace(S.observations[0], case_id="case-stray")
    assert err(C, _snap(observations=S.observations + (stray,))).startswith(
        "observation has no human reference (observation case_id='case-stray', order='ab', repetition=1)")
    other = replace(S.observations[3], repetition=3, judge_generator="judge-v2")
    assert err(C, _snap(observations=S.observations + (other,))).startswith("observation uses another judge generator")
    meta = replace(S.observations[3], repetition=3, candidate_a_tokens=81)
    assert err(C, _snap(observations=S.observations + (meta,))).startswith(
        "candidate metadata changes across observations (observation case_id='case-accuracy', order='ba', repetition=3)")
    assert err(C, _snap(observations=S.observations[1:])) == (
        "each case requires every declared order and repetition (case_id='case-accuracy', order='ab': "
        "missing repetition(s) [1]; the contract declares 1..2)")
    extra = replace(S.observations[3], repetition=3)
    assert err(C, _snap(observations=S.observations + (extra,))).startswith(
        "each case requires every declared order and repetition (case_id='case-accuracy', order='ba': undeclared repetition(s) [3]")
    assert err(copy.copy(S), S) == "contract must be exact JudgeCalibrationContract"
    assert err(C, C) == "snapshot must be exact JudgeCalibrationSnapshot"


def test_mutated_record_is_revalidated():
    snap = _snap(observations=tuple(replace(o) for o in S.observations))  # fresh records: S stays intact
    object.__setattr__(snap.observations[0], "repetition", 0)
    with pytest.raises(ValueError, match="repetition must be between 1 and 100"):
        audit_calibration(C, snap)


# --- record path vs frames path vs the seed's loop --------------------------------------------


def record_path(con, refs: pd.DataFrame, obs: pd.DataFrame, header):
    try:
        snap = JudgeCalibrationSnapshot(
            header["scope"], header["contract_content_id"], header["rubric_digest"],
            tuple(HumanReference(*r) for r in cal_frames._rows(refs, cal_contract.REFERENCE_FIELDS)),
            tuple(JudgeObservation(*r) for r in cal_frames._rows(obs, cal_contract.OBSERVATION_FIELDS)))
        return audit_calibration(con, snap), snap
    except ValueError as e:
        return str(e), None


def frames_path(con, refs, obs, header):
    try:
        return audit_frames(con, refs, obs, **header)
    except ValueError as e:
        return str(e)


def seed_tuple(rep):
    return (rep.decision, rep.human_agreement_bps, rep.position_flip_bps, rep.repeat_variance_bps,
            rep.verbosity_bias_bps, rep.self_preference_bps, rep.reference_issues)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(2, 4), st.integers(0, 2**32 - 1),
       st.floats(0, 1), st.floats(0, 0.5), st.floats(0, 0.5), st.floats(0, 1), st.floats(0, 1))
def test_differential_records_frames_seed(n, reps, seed, acc, pos, noise, verb, selfp):
    b = JudgeBehaviour(accuracy=acc, position_bias=pos, noise=noise, verbosity_bias=verb, self_preference=selfp,
                       self_share=0.4, tie_share=0.2, unadjudicated=0.05, single_reviewer=0.05)
    con, refs, obs, header = judge_frames(n, reps, b, seed=seed)
    ours, snap = record_path(con, refs, obs, header)
    frames = frames_path(con, refs, obs, header)
    assert seed_tuple(ours) == seed_tuple(frames) == seed_audit(con, snap)
    assert ours.measurement == frames.measurement
    pd.testing.assert_frame_equal(ours.measurement.cases, frames.measurement.cases)


def _mutations():
    """(description, frame, row, column, value): one bad cell each."""
    return [
        ("ref", 1, "case_id", "Bad Id"), ("ref", 2, "preferred_candidate", "x"), ("ref", 0, "reviewer_ids", ()),
        ("ref", 1, "reviewer_ids", ("reviewer:z", "reviewer:a")), ("ref", 2, "reviewer_ids", "reviewer:one"),
        ("ref", 1, "adjudicated", 1), ("ref", 3, "case_id", "case-0000001"),
        ("obs", 5, "order", "xy"), ("obs", 7, "repetition", 0), ("obs", 3, "repetition", True),
        ("obs", 4, "repetition", 2.0), ("obs", 9, "selected_candidate", "tie "), ("obs", 2, "candidate_a_tokens", 0),
        ("obs", 6, "candidate_b_generator", "x"), ("obs", 1, "judge_generator", "judge-v2"),
        ("obs", 8, "case_id", "case-9999999"), ("obs", 10, "candidate_a_tokens", 999_999),
        ("obs", 11, "candidate_b_generator", "judge-v1"), ("obs", 3, "repetition", 3),
        ("obs", 5, "repetition", 1), ("obs", 0, "case_id", None), ("obs", 1, "order", "ba"),
    ]


def mutated(frame, row, column, value):
    """The six-case synthetic judge with one cell of its references ("ref") or observations set."""
    con, refs, obs, header = judge_frames(6, 2, JudgeBehaviour(), seed=1)
    target = refs if frame == "ref" else obs
    target[column] = target[column].astype(object)
    target.at[row, column] = value
    return con, refs, obs, header


@pytest.mark.parametrize("frame, row, column, value", _mutations())
def test_frames_raise_the_record_paths_error(frame, row, column, value):
    con, refs, obs, header = mutated(frame, row, column, value)
    expected, _ = record_path(con, refs, obs, header)
    got = frames_path(con, refs, obs, header)
    assert isinstance(expected, str), "the mutation must make the input invalid"
    assert got == expected


@pytest.mark.parametrize("key, value", [
    ("scope", "other-scope"), ("scope", "Bad"), ("contract_content_id", "x"), ("rubric_digest", "ABC"),
])
def test_frames_header_errors_match(key, value):
    con, refs, obs, header = judge_frames(4, 2, seed=2)
    header = {**header, key: value}
    expected, _ = record_path(con, refs, obs, header)
    assert frames_path(con, refs, obs, header) == expected


def test_frames_structural_errors():
    con, refs, obs, header = judge_frames(4, 2, seed=2)
    with pytest.raises(ValueError, match="observations columns must be exactly"):
        audit_frames(con, refs, obs.drop(columns=["judge_generator"]), **header)
    assert frames_path(con, refs.iloc[:0], obs, header) == "references must contain exact HumanReference records"
    bigger = replace(con, minimum_cases=5)
    msg = frames_path(bigger, refs, obs, {**header, "contract_content_id": bigger.content_id})
    assert msg == "snapshot has fewer cases than the calibration contract (4 < 5)"
    assert frames_path(con, refs, obs.iloc[:0], header) == "observations must contain exact JudgeObservation records"


@pytest.mark.parametrize("frame, row, column, value, field", [
    ("obs", 8, "case_id", "case-9999999", "case_id"), ("obs", 1, "judge_generator", "judge-v2", "judge_generator"),
    ("obs", 10, "candidate_a_tokens", 999_999, "candidate_a_tokens"),
    ("obs", 11, "candidate_b_generator", "judge-v1", "candidate_b_generator"),
    ("obs", 5, "repetition", 1, "repetition"), ("ref", 3, "case_id", "case-0000001", "case_id"),
])
def test_frames_find_the_row_and_the_rules_say_it(frame, row, column, value, field):
    """The snapshot's rules say each message once (calibration.*_fault, duplicate_*); the frames path
    only finds the first offending row, and names the rule's field."""
    con, refs, obs, header = mutated(frame, row, column, value)
    expected, _ = record_path(con, refs, obs, header)
    with pytest.raises(cal_frames.FrameError) as e:
        measure_frames(con, refs, obs, **header)
    assert (str(e.value), e.value.row, e.value.field) == (expected, row, field)


def test_the_snapshot_rules_as_faults():
    key = ("case-x", "ab", 2)
    assert cal_contract.observation_fault(C, key, False, "judge-v1", (1, 2, "a", "b"), (1, 2, "a", "b"))[0] == "case_id"
    assert cal_contract.observation_fault(C, key, True, "judge-v1", (1, 2, "a", "b"), (1, 2, "a", "b")) is None
    assert cal_contract.observation_fault(C, key, True, "judge-v1", (1, 2, "a", "c"), (1, 2, "a", "b"))[0] == \
        "candidate_b_generator"
    assert cal_contract.binding_fault(C, "other-scope", C.content_id, 4)[0] == "scope"
    assert cal_contract.binding_fault(C, C.scope, "x", 4)[0] == "contract_content_id"
    assert cal_contract.binding_fault(C, C.scope, C.content_id, 3) == (
        None, "snapshot has fewer cases than the calibration contract (3 < 4)")
    assert cal_contract.binding_fault(C, C.scope, C.content_id, 4) is None
    assert cal_contract.header_fault(C.scope, C.content_id, "ABC") == (
        "rubric_digest", "snapshot.rubric_digest must be lowercase SHA-256")
    assert cal_contract.header_fault("Bad", C.content_id, DIGEST)[0] == "scope"
    assert cal_contract.header_fault(C.scope, C.content_id, DIGEST) is None


def test_frames_report_snapshot_builds_records_on_demand():
    refs, obs = snapshot_frames(S)
    rep = audit_frames(C, refs, obs, scope=S.scope, contract_content_id=S.contract_content_id, rubric_digest=S.rubric_digest)
    assert seed_tuple(rep) == seed_tuple(audit_calibration(C, S))
    assert rep.snapshot.references == S.references and rep.snapshot.observations == S.observations


def test_failing_synthetic_judge_fails_for_the_expected_reasons():
    b = JudgeBehaviour(accuracy=0.85, position_bias=0.2, noise=0.02, verbosity_bias=0.4, self_preference=0.5)
    con, refs, obs, header = judge_frames(300, 3, b, seed=9)
    m = measure_frames(con, refs, obs, **header)
    d = decide(m)
    failed = {g.name for g in d.gates if not g.passed}
    assert {"position_flip", "verbosity_bias", "self_preference"} <= failed
    assert d.decision == "FAIL_CALIBRATION"
