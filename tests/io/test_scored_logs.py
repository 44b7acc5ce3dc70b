"""Graded and binary judge logs as the tools write them (tests/data/judge_logs/, made as
make_scored_logs.md says), and the pairwise shapes added beside them (arena-hard, judgekit
pairwise, judgecal)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from agreebound.core.errors import InputError
from agreebound.io.judge_logs import judges_in, read_judge_log
from agreebound.io.registry import scored_log_shape
from agreebound.io.score_values import SCORE_COLUMNS, score_value
from agreebound.io.scored_logs import read_scored_log
from agreebound.io.scored_tables import join_human_labels, scores_table

LOGS = Path(__file__).resolve().parents[1] / "data" / "judge_logs"


def _read(name: str) -> bytes:
    return (LOGS / name).read_bytes()


def _jsonl_edit(name: str, line: int, edit) -> bytes:
    """A copy of a JSON Lines file with one line's record edited."""
    lines = _read(name).decode().splitlines()
    obj = json.loads(lines[line - 1])
    edit(obj)
    lines[line - 1] = json.dumps(obj)
    return ("\n".join(lines) + "\n").encode()


def test_every_file_is_small():
    sizes = {p.name: p.stat().st_size for p in LOGS.iterdir() if p.is_file()}
    assert sizes and max(sizes.values()) < 200_000, sizes


# --- inspect_ai --------------------------------------------------------------------------------------

INSPECT_SCORES = {"q1/1": 1.0, "q2/1": 1.0, "q3/1": 0.0, "q4/1": 0.5, "q1/2": 1.0, "q2/2": 1.0, "q3/2": 0.0, "q4/2": 0.5}


@pytest.mark.parametrize("file", ["inspect_ai_model_graded_qa.json", "inspect_ai_model_graded_qa.eval"])
def test_inspect_ai_log_reads_with_defaults(file):
    log = read_scored_log(file, _read(file))
    assert log.shape == "inspect_ai"
    assert list(log.scores.columns) == list(SCORE_COLUMNS)
    assert dict(zip(log.scores["item"], log.scores["score"])) == INSPECT_SCORES
    assert log.judges == ("mockllm/grader",)
    assert set(log.scores["rater"]) == {"mockllm/grader"} and set(log.scores["role"]) == {"judge"}
    assert set(log.scores["model"]) == {"mockllm/model"}
    assert log.labels == {1.0: "C", 0.0: "I", 0.5: "P"}
    assert log.scale is None
    # "I think it is Saturn, the ringed one": 8 whitespace tokens; the grader gave no confidence
    q3 = log.scores[log.scores["item"] == "q3/1"].iloc[0]
    assert q3["length"] == 8.0 and math.isnan(q3["confidence"]) and q3["line"] == 3
    assert log.identity["grader"] == "mockllm/grader"
    assert log.identity["tool"] == "inspect_ai 0.3.285"
    assert log.identity["task"] == "tiny_qa" and log.identity["scorer"] == "model_graded_qa"
    assert re.fullmatch(r"[0-9a-f]{12}", log.identity["rubric"])
    assert log.notes[0] == "8 scores read (8 items, 1 rater)"
    assert "2 unscored judgments (no grade in the grader's reply) left out (samples 5, 10)" in log.notes


def test_inspect_ai_json_and_eval_archive_agree():
    a = read_scored_log("a.json", _read("inspect_ai_model_graded_qa.json"))
    b = read_scored_log("b.eval", _read("inspect_ai_model_graded_qa.eval"))
    assert a.scores.equals(b.scores) and a.identity == b.identity


def test_inspect_ai_bad_score_value_is_located():
    doc = json.loads(_read("inspect_ai_model_graded_qa.json").decode().replace("NaN", "null"))
    doc["samples"][2]["scores"]["model_graded_qa"]["value"] = {"nested": 1}
    with pytest.raises(InputError) as e:
        read_scored_log("edited.json", json.dumps(doc).encode())
    assert str(e.value).startswith("edited.json, sample 3, column 'scores.model_graded_qa.value': expected a grade")


def test_inspect_ai_sample_without_id_is_located():
    doc = json.loads(_read("inspect_ai_model_graded_qa.json").decode().replace("NaN", "null"))
    del doc["samples"][0]["id"]
    with pytest.raises(InputError, match=r"^edited.json, sample 1, column 'id'"):
        read_scored_log("edited.json", json.dumps(doc).encode())


def test_inspect_ai_grader_falls_back_to_the_role_then_the_model():
    doc = json.loads(_read("inspect_ai_model_graded_qa.json").decode().replace("NaN", "null"))
    for s in doc["samples"]:
        for sc in s["scores"].values():
            sc["metadata"] = {}
    log = read_scored_log("x.json", json.dumps(doc).encode())
    assert log.judges == ("mockllm/grader",)  # eval.model_roles.grader
    del doc["eval"]["model_roles"]
    log = read_scored_log("x.json", json.dumps(doc).encode())
    assert log.judges == ("mockllm/model",)  # inspect grades with the model under test when the role is unbound


def test_inspect_ai_human_labels_join_by_sample_and_epoch():
    log = read_scored_log("log.json", _read("inspect_ai_model_graded_qa.json"))
    humans = b"id,epoch,annotator,label\nq1,1,ann,C\nq3,1,ann,I\nq4,2,ann,P\nq9,1,ann,C\n"
    joined = join_human_labels(log, "humans.csv", humans)
    h = joined.scores[joined.scores["role"] == "human"]
    assert dict(zip(h["item"], h["score"])) == {"q1/1": 1.0, "q3/1": 0.0, "q4/2": 0.5}
    assert set(h["rater"]) == {"ann"} and list(h["line"]) == [2, 3, 4]
    assert joined.notes[-2:] == ("3 human scores joined from humans.csv (3 items, 1 raters)",
                                 "1 human rows for items the log does not have left out (rows 5)")
    assert joined.judges == log.judges and len(joined.scores) == len(log.scores) + 3


def test_inspect_ai_human_label_needs_the_epoch_when_the_log_has_two():
    log = read_scored_log("log.json", _read("inspect_ai_model_graded_qa.json"))
    with pytest.raises(InputError, match=r"^humans.csv, row 2: 'q1' fits 2 items of the log"):
        join_human_labels(log, "humans.csv", b"sample_id,score\nq1,1\n")


def test_a_bad_human_value_is_located():
    log = read_scored_log("log.json", _read("inspect_ai_model_graded_qa.json"))
    with pytest.raises(InputError, match=r"^humans.csv, row 3, column 'value': expected a number or a verdict"):
        join_human_labels(log, "humans.csv", b"item,value\nq1/1,pass\nq2/1,maybe\n")


# --- promptfoo ---------------------------------------------------------------------------------------


def test_promptfoo_results_read_with_defaults():
    log = read_scored_log("results.json", _read("promptfoo_llm_rubric.json"))
    assert log.shape == "promptfoo"
    rubric, closedqa = "file://grader.js (llm-rubric)", "file://grader.js (model-graded-closedqa)"
    assert log.judges == (rubric, closedqa)
    got = {(i, r): s for i, r, s in zip(log.scores["item"], log.scores["rater"], log.scores["score"])}
    assert got == {("0/0/echo", rubric): 0.9, ("0/0/echo", closedqa): 1.0, ("1/0/echo", rubric): 0.1,
                   ("1/0/echo", closedqa): 0.0, ("2/0/echo", rubric): 0.4}
    assert log.scores["item"].nunique() == 3
    assert list(log.scores["length"]) == [6.0, 6.0, 9.0, 9.0, 6.0]  # "Answer briefly: Name a red fruit" ...
    assert set(log.scores["model"]) == {"echo"}
    assert log.labels == {1.0: "pass", 0.0: "fail"}
    assert log.identity["grader"] == "file://grader.js"
    assert log.identity["tool"] == "promptfoo 0.121.20" and log.identity["results_version"] == "3"
    assert log.identity["assertions"] == "llm-rubric, model-graded-closedqa"
    assert "1 grader replies promptfoo could not parse left out (records 4)" in log.notes
    assert ("1 assertions that no model graded (contains) are not judgments and were not read") in log.notes


def test_promptfoo_grader_from_default_test_when_the_assertion_names_none():
    doc = json.loads(_read("promptfoo_llm_rubric.json"))
    for r in doc["results"]["results"]:
        for c in r["gradingResult"]["componentResults"]:
            c["assertion"].pop("provider", None)
    doc["config"]["defaultTest"] = {"options": {"provider": "openai:gpt-4.1-mini"}}
    log = read_scored_log("r.json", json.dumps(doc).encode())
    assert log.identity["grader"] == "openai:gpt-4.1-mini"
    assert log.judges == ("openai:gpt-4.1-mini (llm-rubric)", "openai:gpt-4.1-mini (model-graded-closedqa)")
    one = read_scored_log("r.json", json.dumps(doc).encode(), judge="openai:gpt-4.1-mini (llm-rubric)")
    assert len(one.scores) == 3 and one.judges == ("openai:gpt-4.1-mini (llm-rubric)",)


def test_promptfoo_bad_score_is_located():
    doc = json.loads(_read("promptfoo_llm_rubric.json"))
    c = doc["results"]["results"][1]["gradingResult"]["componentResults"][0]
    c["score"], c["pass"] = "high", "yes"
    with pytest.raises(InputError) as e:
        read_scored_log("r.json", json.dumps(doc).encode())
    assert str(e.value) == ("r.json, record 2, column 'gradingResult.componentResults[0].score': expected a number "
                            "or a pass, got 'high'")


def test_promptfoo_human_labels_join_by_test_index():
    log = read_scored_log("results.json", _read("promptfoo_llm_rubric.json"))
    joined = join_human_labels(log, "h.jsonl", b'{"test": 0, "human": "ann", "label": "pass"}\n'
                                                b'{"test": 1, "human": "ann", "label": "fail"}\n'
                                                b'{"test": 7, "human": "ann", "label": "fail"}\n')
    h = joined.scores[joined.scores["role"] == "human"]
    assert dict(zip(h["item"], h["score"])) == {"0/0/echo": 1.0, "1/0/echo": 0.0}
    assert "1 human rows for items the log does not have left out (lines 3)" in joined.notes


# --- FastChat MT-Bench single-answer grading ---------------------------------------------------------


def test_mt_bench_single_reads_with_defaults():
    log = read_scored_log("gpt-4_single.jsonl", _read("mt_bench_gpt-4_single.jsonl"))
    assert log.shape == "mt-bench single"
    assert dict(zip(log.scores["item"], log.scores["score"])) == {
        "81/vicuna-13b/1": 9.0, "81/alpaca-13b/1": 6.0, "111/vicuna-13b/1": 10.0, "111/alpaca-13b/1": 2.0,
        "81/vicuna-13b/2": 8.0, "81/alpaca-13b/2": 3.0, "111/alpaca-13b/2": 7.0}
    assert log.scale == tuple(float(x) for x in range(1, 11))
    assert log.judges == ("gpt-4",)
    assert log.identity == {"grader": "gpt-4", "template": "single-v1, single-v1-multi-turn",
                            "tool": "FastChat llm_judge (single-answer grading)"}
    # turn 1: "Leaves drift on cold wind, ..." (16 tokens); turn 2 of a multi-turn prompt: "Snow hushes the pines."
    lengths = dict(zip(log.scores["item"], log.scores["length"]))
    assert lengths["81/vicuna-13b/1"] == 16.0 and lengths["81/vicuna-13b/2"] == 4.0
    assert "1 judgments FastChat could not parse (score -1) left out (lines 7)" in log.notes


def test_mt_bench_single_bad_score_is_located():
    data = _jsonl_edit("mt_bench_gpt-4_single.jsonl", 4, lambda r: r.update(score="ten"))
    with pytest.raises(InputError) as e:
        read_scored_log("gpt-4_single.jsonl", data)
    assert str(e.value) == "gpt-4_single.jsonl, line 4, column 'score': expected a rating from 1 to 10 (or -1), got 'ten'"


def test_mt_bench_single_missing_field_is_located():
    data = _jsonl_edit("mt_bench_gpt-4_single.jsonl", 2, lambda r: r.pop("model"))
    with pytest.raises(InputError, match=r"^gpt-4_single.jsonl, line 2, column 'model': missing field"):
        read_scored_log("gpt-4_single.jsonl", data)


def test_mt_bench_single_human_scores_join_by_question_model_and_turn():
    log = read_scored_log("gpt-4_single.jsonl", _read("mt_bench_gpt-4_single.jsonl"))
    humans = b"question_id,model,turn,rater,score\n81,vicuna-13b,1,expert-1,8\n81,vicuna-13b,2,expert-1,7\n" \
             b"111,alpaca-13b,2,expert-1,6\n111,vicuna-13b,2,expert-1,9\n"
    joined = join_human_labels(log, "h.csv", humans)
    h = joined.scores[joined.scores["role"] == "human"]
    assert dict(zip(h["item"], h["score"])) == {"81/vicuna-13b/1": 8.0, "81/vicuna-13b/2": 7.0,
                                                "111/alpaca-13b/2": 6.0}
    # question 111 turn 2 by vicuna was unparsable (-1): no judge score, so the human row is unmatched
    assert "1 human rows for items the log does not have left out (rows 5)" in joined.notes


# --- judgekit -----------------------------------------------------------------------------------------


def test_judgekit_graded_reads_with_defaults():
    log = read_scored_log("judge.jsonl", _read("judgekit_graded.jsonl"))
    assert log.shape == "judgekit" and log.judges == ("gpt-4o",)
    assert dict(zip(log.scores["item"], log.scores["score"])) == {"g0": 5.0, "g1": 3.0, "g2": 2.0, "g3": 1.0,
                                                                  "g4": 1.0, "g5": 4.0}
    assert list(log.scores["length"]) == [262.0, 122.0, 35.0, 26.0, 329.0, 366.0]
    assert list(log.scores["model"]) == ["model-a", "model-b", "judge-model"] * 2
    assert "graded scales: 1..5 (12 scores)" in log.notes
    assert ("6 repeated scores of one item by one rater (the first is kept) left out (lines 7, 8, 9, 10, 11, 12)"
            in log.notes)


def test_judgekit_binary_confidence_is_the_probability_of_pass():
    log = read_scored_log("binary.jsonl", _read("judgekit_binary.jsonl"))
    assert list(log.scores["score"]) == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert log.labels == {1.0: "pass", 0.0: "fail"}
    # line 2: label false at confidence 0.853656186491971 -> pass at 1 - 0.853656186491971
    assert log.scores["confidence"][0] == 0.732405971116054
    assert log.scores["confidence"][1] == 1 - 0.853656186491971


def test_judgekit_off_scale_score_is_located():
    data = _jsonl_edit("judgekit_graded.jsonl", 3, lambda r: r.update(score=7.0))
    with pytest.raises(InputError) as e:
        read_scored_log("judge.jsonl", data)
    assert str(e.value) == "judge.jsonl, line 3, column 'score': expected a score on the scale 1..5, got '7.0'"


def test_judgekit_human_file_joins_as_human_scores():
    log = read_scored_log("judge.jsonl", _read("judgekit_graded.jsonl"))
    joined = join_human_labels(log, "human.jsonl", _read("judgekit_graded_human.jsonl"))
    h = joined.scores[joined.scores["role"] == "human"]
    assert list(h["item"]) == ["g0", "g1", "g2", "g3", "g4", "g5"]
    assert list(h["score"]) == [5.0, 3.0, 2.0, 1.0, 1.0, 4.0]
    assert set(h["rater"]) == {"human"}


def test_judgekit_pairwise_goes_to_the_pairwise_reader():
    with pytest.raises(InputError, match="this is a pairwise judge log .judgekit pairwise."):
        read_scored_log("p.jsonl", _read("judgekit_pairwise.jsonl"))
    log = read_judge_log("p.jsonl", _read("judgekit_pairwise.jsonl"))
    obs = log.observations
    assert log.shape == "judgekit pairwise" and log.judges == ("gpt-4o",) and log.lacks == ()
    assert len(obs) == 12 and obs["case_id"].nunique() == 3
    assert list(obs["order"][:6]) == ["ab", "ba"] * 3
    assert list(obs["selected_candidate"][:6]) == ["a", "a", "b", "b", "tie", "b"]
    assert list(obs["repetition"]) == [1] * 6 + [2] * 6
    assert (obs["candidate_a_tokens"][0], obs["candidate_b_tokens"][0]) == (214, 122)


def test_judgekit_pairwise_bad_choice_is_located():
    data = _jsonl_edit("judgekit_pairwise.jsonl", 5, lambda r: r.update(choice="A"))
    with pytest.raises(InputError) as e:
        read_judge_log("p.jsonl", data)
    assert str(e.value) == "p.jsonl, line 5, column 'choice': expected a, b or tie, got 'A'"


# --- judgecal (pairwise) ---------------------------------------------------------------------------------


def test_judgecal_judgments_read_as_pairwise():
    with pytest.raises(InputError, match="pairwise judge log .judgecal judgments."):
        read_scored_log("j.jsonl", _read("judgecal_judgments.jsonl"))
    log = read_judge_log("judgments.jsonl", _read("judgecal_judgments.jsonl"), judge="qwen3.5-9b")
    obs = log.observations
    assert log.shape == "judgecal judgments" and log.judges == ("qwen3.5-9b",)
    assert len(obs) == 12 and obs["case_id"].nunique() == 3
    assert set(obs["judge_generator"]) == {"qwen3.5-9b"}
    # 27 usages: 3 shared executions, 6 verbosity judgments, 6 invalid: 27 - 3 - 6 - 6 = 12
    assert "6 judgments judgecal could not parse (invalid) were left out" in log.notes
    assert log.notes[-1].startswith("6 judgments of other probes (verbosity:")
    first = obs.iloc[0]  # line 1: position orig, first_is_a, verdict second -> b
    assert (first["order"], first["selected_candidate"], first["candidate_a_tokens"]) == ("ab", "b", 333)
    swapped = obs[obs["line"] == 9].iloc[0]  # position swap: first_is_a false, verdict second -> a's slot
    assert (swapped["order"], swapped["selected_candidate"]) == ("ba", "b")
    assert judges_in("j.jsonl", _read("judgecal_judgments.jsonl")) == ("judge",)


def test_judgecal_bad_verdict_is_located():
    data = _jsonl_edit("judgecal_judgments.jsonl", 2, lambda r: r.update(verdict="A"))
    with pytest.raises(InputError) as e:
        read_judge_log("j.jsonl", data)
    assert str(e.value) == "j.jsonl, line 2, column 'verdict': expected first, second, tie or invalid, got 'A'"


# --- arena-hard (pairwise) ----------------------------------------------------------------------------------


def test_arena_hard_games_are_orders_ab_and_ba():
    log = read_judge_log("gpt-4-0613.jsonl", _read("arena_hard_v0.1_gpt-4-0613.jsonl"))
    obs = log.observations
    assert log.shape == "arena-hard judgments" and log.judges == ("gpt-4-1106-preview",)
    assert log.lacks == ("repetitions",)
    # q1: B>>A with the baseline shown first, A>B with the model shown first: the model both times
    assert list(zip(obs["order"], obs["selected_candidate"])) == [
        ("ab", "b"), ("ba", "b"), ("ab", "a"), ("ba", "a"), ("ab", "tie"), ("ba", "tie"), ("ab", "b")]
    assert set(obs["candidate_a_generator"]) == {"baseline"} and set(obs["candidate_b_generator"]) == {"gpt-4-0613"}
    # q1's baseline "Paris is the capital of France." (6 tokens), answer "... on the Seine." (9 tokens)
    assert (obs["candidate_a_tokens"][0], obs["candidate_b_tokens"][0]) == (6, 9)
    assert ("verdict strength collapsed: 1 strong (A>>B, B>>A) and 4 weak (A>B, B>A) verdicts are each one "
            "choice; 2 ties (A=B)") in log.notes
    assert "1 games without a verdict label (null or unparsable) were left out" in log.notes


def test_arena_hard_v2_record_with_baseline_and_uid():
    rec = {"uid": "abc", "category": "hard_prompt", "judge": "gpt-4.1", "model": "qwq-32b", "baseline": "o3-mini",
           "games": [{"score": "A>B", "judgment": {"answer": "[[A>B]]"}, "prompt": []},
                     {"score": "B>>A", "judgment": {"answer": "[[B>>A]]"}, "prompt": []}]}
    log = read_judge_log("v2.jsonl", (json.dumps(rec) + "\n").encode())
    assert list(log.observations["selected_candidate"]) == ["a", "a"]
    assert log.candidates == {"qabc-qwq-32b-vs-o3-mini": ("o3-mini", "qwq-32b")}


def test_arena_hard_bad_score_type_is_located():
    data = _jsonl_edit("arena_hard_v0.1_gpt-4-0613.jsonl", 2, lambda r: r["games"][0].update(score=3))
    with pytest.raises(InputError) as e:
        read_judge_log("a.jsonl", data)
    assert str(e.value) == "a.jsonl, line 2, column 'games.score': expected a verdict label like A>B, got '3'"


# --- scores tables, shapes and values ---------------------------------------------------------------------


def test_scores_table_csv():
    data = (b"item,rater,role,score,model,length,confidence\n"
            b"a,gpt-4o,judge,pass,m1,12,0.9\na,ann,human,fail,,,\nb,gpt-4o,judge,0.5,m1,,\nc,gpt-4o,judge,,m1,,\n")
    log = scores_table("s.csv", data)
    assert log.shape == "scores table" and log.judges == ("gpt-4o",)
    assert list(log.scores["score"]) == [1.0, 0.0, 0.5]
    assert list(log.scores["role"]) == ["judge", "human", "judge"]
    assert list(log.scores["line"]) == [2, 3, 4]
    assert log.scores["length"][0] == 12.0 and log.scores["confidence"][0] == 0.9
    assert log.labels == {1.0: "pass", 0.0: "fail"}
    assert "1 rows without a score left out (rows 5)" in log.notes


def test_scores_table_bad_role_is_located():
    with pytest.raises(InputError) as e:
        scores_table("s.csv", b"item,rater,role,score\na,x,judge,1\nb,x,robot,1\n")
    assert str(e.value) == "s.csv, row 3, column 'role': expected judge or human, got 'robot'"


def test_scores_table_jsonl_reads_through_read_scored_log():
    data = b'{"item": "a", "rater": "j", "role": "judge", "score": 3}\n{"item": "a", "rater": "h", "role": "human", "score": 4}\n'
    log = read_scored_log("s.jsonl", data)
    assert log.shape == "scores table" and list(log.scores["score"]) == [3.0, 4.0]


def test_a_file_with_no_usable_score_says_so():
    data = b'{"question_id": 1, "model": "m", "judge": ["gpt-4", "single-v1"], "score": -1, "turn": 1}\n'
    with pytest.raises(InputError) as e:
        read_scored_log("s.jsonl", data)
    assert str(e.value) == ("s.jsonl: no usable score in the file (1 judgments FastChat could not parse (score -1); "
                            "0 scores outside FastChat's 1..10 scale)")


def test_an_unknown_judge_is_refused():
    with pytest.raises(InputError, match=r"^s.jsonl, column 'judge': no judge 'claude'; the log has gpt-4o"):
        read_scored_log("s.jsonl", _read("judgekit_graded.jsonl"), judge="claude")


def test_shapes_by_fields():
    assert scored_log_shape({"version": 2, "eval": {}, "samples": []}) == "inspect_ai"
    assert scored_log_shape({"evalId": "x", "results": {"version": 3, "results": []}}) == "promptfoo"
    assert scored_log_shape({"question_id": 1, "model": "m", "judge": [], "score": 5}) == "mt-bench single"
    assert scored_log_shape({"question_id": 1, "model": "m", "judge": "j", "games": []}) is None
    assert scored_log_shape({"kind": "binary", "item_id": "x", "label": True}) == "judgekit"
    assert scored_log_shape({"item": 1, "rater": "r", "role": "judge", "score": 1}) == "scores table"
    assert scored_log_shape({"a": 1}) is None


def test_score_values():
    assert [score_value(v) for v in ("C", "i", "P", "pass", "FAIL", "yes", "no", "true", False, 3, "2.5")] == [
        (1.0, "C"), (0.0, "I"), (0.5, "P"), (1.0, "pass"), (0.0, "fail"), (1.0, "yes"), (0.0, "no"),
        (1.0, "true"), (0.0, "false"), (3.0, None), (2.5, None)]
    assert score_value(None) is None and score_value(float("nan")) is None
    for bad in ("maybe", [1], {"a": 1}, float("inf"), "inf"):
        with pytest.raises(ValueError):
            score_value(bad)


def test_a_damaged_eval_archive_is_refused():
    data = bytearray(_read("inspect_ai_model_graded_qa.eval"))
    at = data.find(b"samples/q1_epoch_1.json") + len(b"samples/q1_epoch_1.json") + 40  # inside its compressed data
    data[at:at + 8] = b"\x00" * 8
    with pytest.raises(InputError, match=r"^x.eval, member 'samples/q1_epoch_1.json': "):
        read_scored_log("x.eval", bytes(data))


def test_a_csv_scores_table_reads_through_read_scored_log():
    data = b"item,rater,role,score\na,j1,judge,1\na,j2,judge,0\na,h,human,1\n"
    assert read_scored_log("s.csv", data).judges == ("j1", "j2")
    one = read_scored_log("s.csv", data, judge="j2")
    assert list(zip(one.scores["rater"], one.scores["score"])) == [("j2", 0.0), ("h", 1.0)]
