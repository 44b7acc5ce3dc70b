"""No contract, no verdict (issue 22, section 2): a judge source without a contract is measured
against illustrative limits (the seed's example), never decided: INCOMPLETE with the reason, exit 1,
never a pass's or a fail's colour, never called "bound". With a contract it is decided as before.
And FastChat pair logs give their candidates' lengths from the judge prompts (whitespace tokens)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from hashlib import sha256
from pathlib import Path

import jsonschema
import pytest

from agreebound.io import templates
from agreebound.judge.decision import ILLUSTRATIVE_LIMITS, NO_CONTRACT_REASON
from agreebound.judge.decide import decide
from agreebound.render.view import calibration_view
from agreebound.judge.contract import JudgeCalibrationContract
from tests.support import apptest, cli
from tests.support.apptest import shown
from agreebound.app.pipeline import parse_judge_log
from agreebound.render.gates import judge_gates, judge_sentence
from agreebound.io.judge_log_records import answer_tokens, prompt_answers
from agreebound.render.report import EXIT_CODES
from agreebound.core.thresholds import DEFAULT

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
LOGS = S / "judge_logs"
MT = LOGS / "mt_bench_gpt-4_pair.jsonl"
HUMAN = LOGS / "mt_bench_human_judgments.jsonl"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())

# --- a FastChat-shaped pair log, written here ------------------------------------------------------
# FastChat's pair templates (fastchat/llm_judge/data/judge_prompts.jsonl: pair-v2, pair-v2-multi-turn).
PAIR = ("[User Question]\n{question}\n\n[The Start of Assistant A's Answer]\n{answer_a}\n[The End of Assistant A's "
        "Answer]\n\n[The Start of Assistant B's Answer]\n{answer_b}\n[The End of Assistant B's Answer]")
PAIR_MULTI = ("<|The Start of Assistant A's Conversation with User|>\n\n### User:\n{question_1}\n\n### Assistant A:\n"
              "{answer_a_1}\n\n### User:\n{question_2}\n\n### Assistant A:\n{answer_a_2}\n\n<|The End of Assistant A's "
              "Conversation with User|>\n\n\n<|The Start of Assistant B's Conversation with User|>\n\n### User:\n"
              "{question_1}\n\n### Assistant B:\n{answer_b_1}\n\n### User:\n{question_2}\n\n### Assistant B:\n"
              "{answer_b_2}\n\n<|The End of Assistant B's Conversation with User|>")
SMALL, JUDGE = "alpha-7b", "gpt-4"  # model_1 and model_2; model_2 is also the judge
ANSWERS = {  # (question, turn) -> (model_1's answer, model_2's answer)
    (1, 1): ("Paris is the capital of France.",  # 6 whitespace tokens
             "The capital of France is Paris, a city on the Seine."),  # 11
    (2, 1): ("line one\n\n  line   two",  # 4: newlines and runs of spaces separate tokens
             "Three short words"),  # 3
    (2, 2): ("Yes.", "Yes, it does, for three reasons."),  # the judged turn: 1 and 6
}
TOKENS = {(1, 1): (6, 11), (2, 1): (4, 3), (2, 2): (1, 6)}
FIRST_TURN = {2: ("It depends.", "It depends on the season and the year.")}  # turn 1 of question 2 (multi-turn prompts)


def prompt(q: int, turn: int, a: str, b: str) -> str:
    if turn == 1:
        return PAIR.format(question=f"Question {q}?", answer_a=a, answer_b=b)
    first_a, first_b = FIRST_TURN[q] if a == ANSWERS[(q, turn)][0] else FIRST_TURN[q][::-1]
    return PAIR_MULTI.format(question_1=f"Question {q}?", question_2="And then?", answer_a_1=first_a, answer_a_2=a,
                             answer_b_1=first_b, answer_b_2=b)


def fastchat_log(truncate_g1: tuple[int, int] | None = (2, 1)) -> bytes:
    """Game 1 shows model_1 as assistant A, game 2 swaps them (A = model_2). ``truncate_g1``: that
    judgment's game-1 prompt holds no answers (its lengths come from game 2's, swapped back)."""
    winners = {(1, 1): ("model_2", "model_2"), (2, 1): ("model_2", "model_1"), (2, 2): ("tie", "model_1")}
    records = []
    for (q, turn), (m1, m2) in ANSWERS.items():
        g1 = prompt(q, turn, m1, m2) if (q, turn) != truncate_g1 else f"[User Question]\nQuestion {q}..."
        records.append({"question_id": q, "model_1": SMALL, "model_2": JUDGE, "g1_winner": winners[(q, turn)][0],
                        "g2_winner": winners[(q, turn)][1],
                        "judge": [JUDGE, "pair-v2" if turn == 1 else "pair-v2-multi-turn"],
                        "g1_user_prompt": g1, "g1_judgment": "...", "g2_user_prompt": prompt(q, turn, m2, m1),
                        "g2_judgment": "...", "turn": turn, "tstamp": 1687222701.0})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def human_votes() -> bytes:
    """Two experts per case, unanimous: model_1 (the shorter) on q1, model_2 (the shorter) on q2
    turn 1, a tie on q2 turn 2. Humans saw the pair in either order (model_a is either model)."""
    votes = [(1, 1, SMALL, JUDGE, "model_a"), (2, 1, JUDGE, SMALL, "model_a"), (2, 2, SMALL, JUDGE, "tie")]
    return "".join(json.dumps({"question_id": q, "model_a": a, "model_b": b, "winner": w, "judge": expert, "turn": t})
                   + "\n" for q, t, a, b, w in votes for expert in ("expert_0", "expert_1")).encode()


def contract_file(judge: str = JUDGE, **limits: int) -> bytes:
    c = JudgeCalibrationContract(version="team-judge-v1", scope="fastchat-pairs", judge_generator=judge,
                                 repetitions_per_order=2, minimum_cases=1, minimum_reviewers=2,
                                 minimum_human_agreement_bps=limits.get("agreement", 9000),
                                 maximum_position_flip_bps=500, maximum_repeat_variance_bps=500,
                                 maximum_verbosity_bias_bps=500, maximum_self_preference_bps=500)
    header = {"scope": c.scope, "contract_content_id": c.content_id, "rubric_digest": sha256(b"rubric").hexdigest()}
    return templates.contract_json(c, header).encode()


def run(capsys, tmp_path: Path, *argv: str | Path, files: dict[str, bytes] | None = None) -> tuple[int, str]:
    for name, data in (files or {}).items():
        (tmp_path / name).write_bytes(data)
    code, out, _ = cli.run(capsys, *argv)
    return code, out


# --- FastChat prompts -> candidate lengths -----------------------------------------------------------


def test_the_answers_are_read_from_fastchats_pair_prompts():
    assert prompt_answers(PAIR.format(question="Q?", answer_a="one two", answer_b="three")) == ("\none two\n", "\nthree\n")
    multi = prompt(2, 2, *ANSWERS[(2, 2)])
    a, b = prompt_answers(multi, 2)
    assert (a.split(), b.split()) == (["Yes."], "Yes, it does, for three reasons.".split())
    a, b = prompt_answers(multi, 1)  # the first turn's answers, should a log judge it
    assert (a.split(), b.split()) == (FIRST_TURN[2][0].split(), FIRST_TURN[2][1].split())
    assert prompt_answers("[User Question]\nQuestion 81...") is None  # the sample log: no answers in its prompts
    assert prompt_answers(None) is None
    assert [answer_tokens(t) for t in ("", "  ", "a\tb\nc  d")] == [1, 1, 4]  # at least 1, the seed's floor


def test_fastchat_lengths_are_whitespace_tokens_attached_to_the_right_candidate():
    b = parse_judge_log("fastchat_pair.jsonl", fastchat_log())
    obs = b.observations.drop_duplicates("case_id").set_index("case_id")
    got = {case: (int(r["candidate_a_tokens"]), int(r["candidate_b_tokens"])) for case, r in obs.iterrows()}
    # candidate a is model_1 in both orders; (2, 1)'s game-1 prompt is truncated: game 2's, swapped back
    assert got == {f"q{q}-t{t}-{SMALL}-vs-{JUDGE}": TOKENS[(q, t)] for q, t in TOKENS}
    notes = b.measurement.notes
    assert any(n.startswith("candidate lengths: whitespace tokens of each answer, recovered from the judge prompt")
               for n in notes)
    assert "verbosity_bias" in b.measurement.unavailable  # lengths alone: references are still missing
    assert "candidate lengths" not in b.measurement.unavailable["verbosity_bias"]
    assert b.measurement.unavailable["verbosity_bias"] == "the source has no human references (give them as a second file)"


def test_with_references_verbosity_becomes_evaluable_and_counts_exactly():
    b = parse_judge_log("fastchat_pair.jsonl", fastchat_log(), ("human.jsonl", human_votes()))
    m = b.measurement
    assert "verbosity_bias" not in m.unavailable and "self_preference" not in m.unavailable
    # q1: humans prefer model_1 (6 < 11 tokens), the judge picks model_2 (longer) twice: 2 errors of 2;
    # q2 turn 1: humans prefer model_2 (3 < 4), the judge picks model_1 (longer) once: 1 of 2; the tie: none
    assert (m.verbosity_bias.numerator, m.verbosity_bias.denominator) == (3, 4)
    # self-preference: the judge is gpt-4 (model_2); humans preferred the other candidate on q1 only
    assert (m.self_preference.numerator, m.self_preference.denominator) == (2, 2)
    assert set(m.unavailable) == {"repeat_variance"}
    assert m.unavailable["repeat_variance"] == ("this log has one judgment per order; the contract requires 2 "
                                                "repetitions: repeat variance cannot be evaluated (only a log that "
                                                "repeats each judgment supplies it)")


def test_lengths_for_only_some_cases_are_not_used_and_said():
    records = [json.loads(x) for x in fastchat_log(truncate_g1=None).decode().splitlines()]
    records[0]["g2_user_prompt"] = records[0]["g1_user_prompt"] = "[User Question]\nQuestion 1..."
    b = parse_judge_log("partly.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode(),
                        ("human.jsonl", human_votes()))
    assert b.observations["candidate_a_tokens"].isna().all()
    assert "the judge prompts hold both answers for 2 of 3 cases: candidate lengths need every case's, so none are " \
           "used" in b.measurement.notes
    assert b.measurement.unavailable["verbosity_bias"].startswith("the source has no candidate lengths (the answers' "
                                                                  "texts supply them")


def test_completion_advice_lists_every_missing_need_per_gate():
    m = parse_judge_log(MT.name, MT.read_bytes()).measurement  # the sample log: no answers in its prompts
    refs = "the source has no human references (give them as a second file)"
    assert m.unavailable["self_preference"] == refs  # generators are in the log: only references are missing
    verbosity = m.unavailable["verbosity_bias"].split("; and ")
    assert verbosity[0] == refs and verbosity[1].startswith("the source has no candidate lengths (the answers' texts "
                                                            "supply them, e.g. FastChat judge prompts")
    assert "this log has one judgment per order; the contract requires 2 repetitions: repeat variance cannot be " \
           "evaluated" in m.unavailable["repeat_variance"]
    with_refs = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes())).measurement
    assert set(with_refs.unavailable) == {"repeat_variance", "verbosity_bias"}
    assert with_refs.unavailable["verbosity_bias"].startswith("the source has no candidate lengths")


# --- no contract: not decided ------------------------------------------------------------------------


def test_a_fastchat_log_alone_is_incomplete_with_the_reason_and_exits_1(capsys, tmp_path):
    b = parse_judge_log(MT.name, MT.read_bytes())
    d = decide(b.measurement)
    assert (d.decision, d.seed_decision, d.reason) == ("INCOMPLETE", "INCOMPLETE", NO_CONTRACT_REASON)
    assert NO_CONTRACT_REASON == "no contract: measured against illustrative limits"
    assert ILLUSTRATIVE_LIMITS == "illustrative limits (the seed's example), not a contract"
    assert (d.contract_origin, d.contract_kind, b.measurement.bound) == ("illustrative", "illustrative", False)
    assert judge_sentence(d) == ("Judge: not decided (no contract); 1 of 5 gates measurable, against illustrative "
                                 "limits (the seed's example), not a contract.")
    # the measured values are still there (a partial audit is useful), never with a verdict
    flip = d.rate("position_flip")
    assert (flip.numerator, flip.denominator) == (48, 142) and d.gate("position_flip").exact == Fraction(48, 142)
    gates = {g.name: g for g in judge_gates("judge", d)}
    assert all(g.passed is None for g in gates.values())  # never drawn in a pass or fail colour
    assert gates["position_flip"].margin == "position flip 33.8%, illustrative limit 5.0%: 28.8 points over"
    assert gates["position_flip"].status == "not decided (no contract)"

    code, out = run(capsys, tmp_path, "calibrate", MT)
    assert code == 1 == EXIT_CODES["INCOMPLETE"]
    assert out.splitlines()[0] == "decision: INCOMPLETE (no contract: measured against illustrative limits)"
    assert "measured against illustrative limits (the seed's example), not a contract (judge-calibration@sha256:" in out
    assert "  position_flip: 48/142 = 3380 bps (<= 500 illustrative): outside the limit" in out
    assert "FAIL" not in out and "PASS" not in out
    assert "  INCOMPLETE: no contract: measured against illustrative limits: not decided, this is not a pass " \
           "(1 of 5 gates measurable)" in out

    code, out = run(capsys, tmp_path, "calibrate", MT, "--references", HUMAN, "--json")
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    c = report["calibration"]
    assert code == 1 and c["decision"] == c["seed_decision"] == "INCOMPLETE" and not c["seed_disagrees"]
    assert (c["contract_origin"], c["decision_reason"], c["contract_source"]) == (
        "illustrative", NO_CONTRACT_REASON, ILLUSTRATIVE_LIMITS)
    assert c["decided_against"]["kind"] == "illustrative" and c["snapshot"]["bound"] is False
    assert [(r["name"], r["numerator"], r["denominator"]) for r in c["rates"] if not r["unavailable"]] == [
        ("human_agreement", 188, 254), ("position_flip", 48, 142), ("self_preference", 8, 27)]


def test_thresholds_in_force_without_a_contract_are_not_a_contract_either(capsys, tmp_path):
    code, out = run(capsys, tmp_path, "calibrate", MT, "--thresholds", S / "thresholds.toml", "--preset",
                    "release-gate", "--json")
    c = json.loads(out)["calibration"]
    assert code == 1 and c["decision"] == "INCOMPLETE"
    assert (c["contract_origin"], c["decision_reason"], c["decided_against"]["kind"]) == (
        "thresholds", "no contract: measured against the thresholds in force, not a contract", "thresholds")


def test_a_complete_log_that_would_pass_is_still_not_decided_without_its_contract(capsys, tmp_path):
    files = {"obs.jsonl": templates.observations_jsonl().encode(), "refs.csv": templates.references_csv().encode(),
             "contract.json": templates.contract_json().encode()}
    code, out = run(capsys, tmp_path, "calibrate", tmp_path / "obs.jsonl", "--references", tmp_path / "refs.csv",
                    "--json", files=files)
    c = json.loads(out)["calibration"]
    assert (code, c["decision"], c["partial"]) == (1, "INCOMPLETE", False)  # every gate measured, none decided
    assert all(r["passed"] for r in c["rates"])
    # the same log with its contract: decided, a pass, exit 0
    code, out = run(capsys, tmp_path, "calibrate", tmp_path / "obs.jsonl", "--references", tmp_path / "refs.csv",
                    "--contract", tmp_path / "contract.json", "--json")
    c = json.loads(out)["calibration"]
    assert (code, c["decision"], c["contract_origin"], c["decision_reason"]) == (
        0, "PASS_CALIBRATION", "given", None) and c["decided_against"]["kind"] == "bound"


def test_a_fastchat_log_with_its_contract_is_decided_against_it(capsys, tmp_path):
    files = {"fastchat_pair.jsonl": fastchat_log(), "human.jsonl": human_votes(), "contract.json": contract_file()}
    code, out = run(capsys, tmp_path, "calibrate", tmp_path / "fastchat_pair.jsonl", "--references",
                    tmp_path / "human.jsonl", "--contract", tmp_path / "contract.json", files=files)
    # decided: human agreement 2/6 (q1: humans model_1, judge model_2 twice; q2 t1: 1 of 2; the tie: 1 of 2)
    assert code == EXIT_CODES["FAIL_CALIBRATION"] == 1
    assert out.splitlines()[0].startswith("decision: FAIL_CALIBRATION (against the bound contract, judge-calibration@")
    assert "  verbosity_bias: 3/4 = 7500 bps (<= 500): FAIL" in out
    assert "illustrative" not in out
    b = parse_judge_log("fastchat_pair.jsonl", fastchat_log(), ("human.jsonl", human_votes()),
                        ("contract.json", contract_file()))
    d = decide(b.measurement)
    assert (d.decision, d.contract_origin, d.contract_kind, d.reason) == ("FAIL_CALIBRATION", "given", "bound", None)
    assert b.measurement.human_agreement.numerator == 2 and b.measurement.human_agreement.denominator == 6


def test_illustrative_limits_are_never_called_bound(capsys, tmp_path):
    code, text = run(capsys, tmp_path, "calibrate", MT, "--references", HUMAN)
    assert code == 1 and not re.search(r"\bbound\b", text, re.I)
    b = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes()))
    view = calibration_view(b, decide(b.measurement, DEFAULT.calibration), DEFAULT,
                            [(MT.name, MT.read_bytes()), (HUMAN.name, HUMAN.read_bytes())])
    markdown = view.markdown()
    assert "bound contract" not in markdown and "against the illustrative contract" not in markdown
    assert "**Decision: INCOMPLETE** (no contract\\: measured against illustrative limits)" in markdown
    page = view.html()
    assert "bound contract" not in page and "the illustrative contract" not in page
    assert "INCOMPLETE: no contract: measured against illustrative limits: not decided, this is not a pass." in page
    assert 'class="result bad"' not in page and 'class="result ok"' not in page  # no verdict's colour on a gate
    assert "illustrative limits (the seed&#x27;s example), not a contract" in page \
        or "illustrative limits (the seed's example), not a contract" in page


def test_help_lists_incomplete_under_exit_1():
    out = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "calibrate", "--help"], capture_output=True,
                         text=True)
    assert out.returncode == 0
    assert "  1  REPORT_ONLY / FAIL_CALIBRATION / INCOMPLETE" in out.stdout


# --- the dashboard ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dashboard():
    at = apptest.app("pages/judge.py")
    return apptest.upload(at, "bundle_upload", MT.name, MT.read_bytes(), "application/json")


def test_judge_page_shows_the_incomplete_warning_with_the_reason(dashboard):
    at = dashboard
    assert [shown(w.value) for w in at.warning] == [
        "INCOMPLETE: no contract: measured against illustrative limits (not decided, never a pass)"]
    assert [e.value for e in at.error] == [] and [s.value for s in at.success] == []
    body = " ".join(shown(m.value) for m in at.markdown)
    assert ("Judge: not decided (no contract); 1 of 5 gates measurable, against illustrative limits (the seed's "
            "example), not a contract.") in body
    assert "bound contract" not in body and "**bound**" not in body
    assert "Measured against illustrative limits (the seed's example), not a contract, drafted from the log" in body
    table = next(t.value for t in at.table if "rate" in t.value.columns)
    gates = dict(zip(table["rate"], table["gate"]))
    assert gates["Position flip"] == "outside the illustrative limit" and "FAIL" not in set(gates.values())
    assert any("No contract was given, so nothing is decided" in i.value for i in at.info)


def test_overview_says_the_judge_is_not_decided(dashboard):
    at = dashboard
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    body = [shown(m.value) for m in at.markdown]
    assert any(x.startswith("**Judge: not decided (no contract); 1 of 5 gates measurable") for x in body)
    assert "INCOMPLETE: no contract: measured against illustrative limits (not decided, never a pass)" in \
        [shown(w.value) for w in at.warning]
    assert not any("FAIL_CALIBRATION" in e.value for e in at.error)
    assert not any("bound contract" in x for x in body)
    assert ("**Position flip** not decided (no contract): position flip 33.8%, illustrative limit 5.0%: 28.8 points "
            "over (3,380 bps, illustrative limit 500 bps)") in " ".join(body)
    # nothing decided, so no judge gate is a reason why, and none is fragile (the panel's may be)
    assert not any(x.startswith("Why:") and "illustrative" in x for x in body)
    assert not any("Fragile" in w and any(r in w for r in ("Position flip", "Human agreement", "Self-preference"))
                   for w in [shown(w.value) for w in at.warning])
    assert any(x.startswith("Not decided: measured against illustrative limits (the seed's example), not a contract, "
                            "drafted from the log as `judge-calibration@sha256:") for x in body)
