"""The ranking block of a judge report (agreebound.app.rankings, printed by agreebound.render.rankings):
each of its shapes valid against the report schema, and the lines the text and Markdown reports
print, a hostile model name escaped in Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agreebound.app.judge_runs import judge_result
from agreebound.app.pipeline import parse_judge_log
from agreebound.app.rankings import ranking_block
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.core.thresholds import DEFAULT
from agreebound.judge.ranking import RankingGate
from agreebound.render.markdown import to_markdown
from agreebound.render.rankings import ranking_lines
from tests.support.fastchat_log import fastchat_log, human_judgments, to_jsonl

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
SAMPLE = ROOT / "sample_data" / "judge_logs"


@pytest.fixture(scope="module")
def labelled():
    records = fastchat_log(seed=7)
    return parse_judge_log("log.jsonl", to_jsonl(records), ("humans.jsonl", human_judgments(records)))


@pytest.fixture(scope="module")
def mt_bench():
    log, humans = SAMPLE / "mt_bench_gpt-4_pair.jsonl", SAMPLE / "mt_bench_human_judgments.jsonl"
    return parse_judge_log(log.name, log.read_bytes(), (humans.name, humans.read_bytes()))


def _report(bundle, block):
    recipe = JudgeRecipe(Source("log.jsonl", b"x"), "log")
    return judge_result(recipe, bundle, DEFAULT, [("bundle", "log.jsonl", b"x")], ranking=block).report


def test_every_shape_of_the_block_is_valid(labelled, mt_bench):
    shapes = {
        "ranking, gate, ppi": ranking_block(labelled, RankingGate("gpt-4", "claude-v1", 600, "win_permil")),
        "ranking, ppi unavailable": ranking_block(mt_bench, RankingGate("gpt-4", "claude-v1", 10)),
        "gate not decidable": ranking_block(mt_bench, RankingGate("gpt-4", "llama-13b", 10)),
        "no ranking": {"unavailable": "No ranking: x.", "gate": None},
    }
    for name, block in shapes.items():
        report = _report(labelled, block)
        jsonschema.validate(report, SCHEMA)
        assert report["calibration"]["ranking"] == block, name
    assert shapes["ranking, ppi unavailable"]["ppi"] == {
        "unavailable": "No prediction-powered ranking: some models are never compared with the anchor, even through "
                       "other models."}
    assert shapes["gate not decidable"]["gate"]["why"] == ("gpt-4 and llama-13b were never compared, even through "
                                                           "other models")


def test_the_schema_refuses_a_block_it_does_not_know(labelled):
    block = ranking_block(labelled)
    block["ppi"]["extra"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_report(labelled, block), SCHEMA)
    bad_gate = ranking_block(labelled, RankingGate("gpt-4", "claude-v1", 10))
    bad_gate["gate"]["status"] = None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_report(labelled, bad_gate), SCHEMA)


def test_no_ranking_block_without_one(labelled):
    assert "ranking" not in _report(labelled, None)["calibration"]


def test_the_lines_for_the_mt_bench_sample(mt_bench):
    lines = ranking_lines(ranking_block(mt_bench, RankingGate("gpt-4", "claude-v1", 10)))
    assert lines[:5] == ["1. gpt-3.5-turbo: 1038.9 [984.8, 1099.8] (group 1)", "2. gpt-4: 1023.9 [990.7, 1060.8] (group 1)",
                         "3. vicuna-13b-v1.3: 991.5 [954.0, 1031.8] (group 1)",
                         "4. claude-v1: 976.1 [939.2, 1009.3] (group 1)", "5. llama-13b: 969.6 [906.4, 1023.7] (group 1)"]
    assert lines[5].endswith("The comparisons form 2 separate sets of models: ratings compare only within a set.")
    assert lines[6] == ("method: Bradley-Terry maximum likelihood, a tie half a win for each side, on the Elo scale (400 "
                        "points = 10:1 odds); anchored at mean 1000 within each connected group; intervals: percentile "
                        "bootstrap over cases (a case's judgments together): 1,000 draws, seed 0, numpy default_rng; "
                        "286 judgments")
    assert lines[7] == ("gate (passes, fragile): gpt-4 beats claude-v1 by at least 10 points: passes: gpt-4 leads "
                        "claude-v1 by +47.8 points [-18.5, +121.6] (a win probability of 56.8%). Fragile: the "
                        "difference's 95% interval holds the margin of 10.0 points, so another sample could reach the "
                        "other result.")
    assert lines[8:] == ["No prediction-powered ranking: some models are never compared with the anchor, even through "
                         "other models."]


def test_the_lines_without_a_ranking():
    gate = {"status": "not decided", "sentence": "x beats y by at least 5 points: not decided: no ranking: why."}
    assert ranking_lines({"unavailable": "No ranking: why.", "gate": gate}) == [
        "No ranking: why.", "gate (not decided): x beats y by at least 5 points: not decided: no ranking: why."]
    assert ranking_lines(None) == [] and ranking_lines({}) == []


def test_markdown_escapes_a_model_name(labelled):
    from agreebound.core.escape import md_text

    block = ranking_block(labelled)
    block["models"][0]["model"] = "**bold** [x](http://e.test) <b>"
    md = to_markdown(_report(labelled, block))
    section = md[md.index("## Ranking of the candidates' models"):]
    lines = section.splitlines()
    assert lines[2] == "From the judge's verdicts; beside the decision, never part of it."
    first = lines[4]
    assert first == "- " + md_text("1. **bold** [x](http://e.test) <b>: 1059.0 [995.9, 1124.3] (group 1)", 800)
    assert "<b>" not in first and "](http" not in first and "**bold" not in first
    assert "- " + md_text("6. alpaca-13b: 881.5 [803.4, 942.5] (group 2)") in lines
    assert "  - " + md_text("gpt-4: 1162.4 [1021.5, 1303.4]; judge alone 1153.5") in lines  # under the PPI heading
    assert any(x.startswith("- " + md_text("With the humans' labels on 99 of 159 cases (lambda 0.17)")) for x in lines)
