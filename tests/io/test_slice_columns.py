"""The judge log readers keep the columns a judge can be followed by (issue 55): MT-Bench's prompt
template, turn and question category, any field beside the observation fields of agreebound's own
observation records; a log judged with several prompt templates says so rather than reading them
silently as one judge."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agreebound.app.pipeline import parse_judge_log
from agreebound.io.judge_log_records import slice_columns
from agreebound.io.judge_logs import read_judge_log

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_data" / "judge_logs"
MT = LOGS / "mt_bench_gpt-4_pair.jsonl"
HUMAN = LOGS / "mt_bench_human_judgments.jsonl"

#: The note the sample log gets: FastChat's four pair templates, by cases (question, turn, model pair).
SAMPLE_TEMPLATES = ("4 prompt templates: pair-v2 (60 cases), pair-v2-multi-turn (60 cases), pair-math-v1 (12 cases), "
                    "pair-math-v1-multi-turn (12 cases); split by template to audit each")


def jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_the_mt_bench_reader_keeps_template_turn_and_the_question_s_category():
    log = read_judge_log(MT.name, MT.read_bytes())
    obs = log.observations
    assert slice_columns(obs) == ["template", "turn", "category"]
    per_case = obs.groupby("case_id")[["template", "turn", "category"]].nunique()
    assert (per_case == 1).all().all()  # each a property of the case: one value per case
    cases = obs.drop_duplicates("case_id")
    assert Counter(zip(cases["template"], cases["turn"])) == {
        ("pair-v2", 1): 60, ("pair-v2-multi-turn", 2): 60, ("pair-math-v1", 1): 12, ("pair-math-v1-multi-turn", 2): 12}
    # the sample's questions 81 to 104: FastChat's question.jsonl numbers 10 per category from 81
    assert Counter(cases["category"]) == {"writing": 60, "roleplay": 60, "reasoning": 24}
    assert set(cases.loc[cases["case_id"].str.startswith("q101-"), "category"]) == {"reasoning"}
    assert set(cases.loc[cases["category"] == "reasoning", "template"]) == {"pair-math-v1", "pair-math-v1-multi-turn"}
    assert SAMPLE_TEMPLATES in log.notes
    assert ("category from the question id (MT-Bench's questions 81-160: writing, roleplay, reasoning, math, coding, "
            "extraction, stem, humanities, 10 each)") in log.notes


def test_two_templates_are_said_in_the_audit_s_notes_not_merged_silently():
    b = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes()))
    assert SAMPLE_TEMPLATES in b.measurement.notes


def test_the_template_is_a_new_column_the_audit_s_numbers_do_not_move():
    """The same judgments with the judge field naming the model alone: every rate is the same."""
    records = [json.loads(x) for x in MT.read_text().splitlines()]
    plain = jsonl([{**r, "judge": r["judge"][0]} for r in records])
    with_templates = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes())).measurement
    without = parse_judge_log(MT.name, plain, (HUMAN.name, HUMAN.read_bytes())).measurement
    assert with_templates.rates == without.rates
    log = read_judge_log(MT.name, plain)
    assert set(log.observations["template"]) == {""}
    assert not any("prompt templates" in n for n in log.notes)


def _record(q: int, template: str, **extra: object) -> dict:
    return {"question_id": q, "model_1": "m1", "model_2": "m2", "g1_winner": "model_1", "g2_winner": "model_2",
            "judge": ["gpt-4", template], "turn": 1, **extra}


def test_ids_81_to_160_whose_templates_contradict_mt_bench_s_categories_get_no_category():
    # question 81 is MT-Bench's writing, which FastChat never judges with the math template
    log = read_judge_log("other.jsonl", jsonl([_record(81, "pair-math-v1"), _record(111, "pair-math-v1")]))
    assert "category" not in log.observations
    assert any(n.startswith("no category: the question ids are MT-Bench's (81-160) but the judge's templates "
                            "do not match their categories") for n in log.notes)
    # a record's own category is kept as it is, and an id outside 81-160 gives none
    log = read_judge_log("own.jsonl", jsonl([_record(7, "pair-v2", category="travel"), _record(8, "pair-v2")]))
    assert log.observations["category"].tolist()[:2] == ["travel", "travel"]
    assert log.observations["category"].isna().tolist()[2:] == [True, True]
    assert not any("prompt templates" in n for n in log.notes)  # one template: nothing to say


def test_observation_records_keep_any_other_field_as_a_slice_column():
    rows = [{"case_id": f"case-{i}", "order": order, "repetition": 1, "selected_candidate": "a",
             "judge_generator": "judge-x", "prompt_variant": "short" if i % 2 else "long", "meta": {"k": 1}}
            for i in range(4) for order in ("ab", "ba")]
    log = read_judge_log("obs.jsonl", jsonl(rows))
    assert slice_columns(log.observations) == ["prompt_variant"]
    assert log.observations["prompt_variant"].tolist()[:4] == ["long", "long", "short", "short"]
    assert "slice column (fields beside the observation fields): 'prompt_variant'" in log.notes
    assert "field 'meta' holds nested values: not slice columns" in log.notes
