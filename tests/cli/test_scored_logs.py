"""Every graded or pass/fail log shape, as the real tools wrote it (tests/data/judge_logs, see
make_scored_logs.md), opens in the CLI with defaults: read, measured, and not decided without human
labels (INCOMPLETE, exit 1, saying why); with human labels joined from a second file, decided."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run as _run

LOGS = Path(__file__).resolve().parents[1] / "data" / "judge_logs"


@pytest.mark.parametrize("name,shape,judges,items", [
    ("inspect_ai_model_graded_qa.json", "inspect_ai", ["mockllm/grader"], 8),
    ("inspect_ai_model_graded_qa.eval", "inspect_ai", ["mockllm/grader"], 8),
    ("promptfoo_llm_rubric.json", "promptfoo", ["file://grader.js (llm-rubric)", "file://grader.js (model-graded-closedqa)"],
     3),
    ("mt_bench_gpt-4_single.jsonl", "mt-bench single", ["gpt-4"], 7),
    ("judgekit_graded.jsonl", "judgekit", ["gpt-4o"], 6),
    ("judgekit_binary.jsonl", "judgekit", ["gpt-4o"], 5),
])
def test_each_shape_opens_with_defaults(capsys, name, shape, judges, items):
    code, out, err = _run(capsys, "calibrate", LOGS / name, "--json")
    assert code == 1 and err == ""
    s = json.loads(out)["scored"]
    assert (s["shape"], s["judges"], s["items"], s["humans"]) == (shape, judges, items, [])
    assert s["decision"] == "INCOMPLETE"
    assert all("no human labels on the judge's items" in a["decision_reason"] for a in s["audits"])
    code, out, _ = _run(capsys, "calibrate", LOGS / name)
    assert out.startswith("decision: INCOMPLETE")


def test_inspect_json_and_eval_archive_read_the_same(capsys):
    reports = []
    for name in ("inspect_ai_model_graded_qa.json", "inspect_ai_model_graded_qa.eval"):
        _, out, _ = _run(capsys, "calibrate", LOGS / name, "--json")
        s = json.loads(out)["scored"]
        reports.append((s["identity"], s["scale"], s["labels"], [a["table"] for a in s["audits"]]))
    assert reports[0] == reports[1]
    assert reports[0][0]["tool"] == "inspect_ai 0.3.285" and reports[0][2] == {"0.0": "I", "0.5": "P", "1.0": "C"}


def test_inspect_log_with_two_humans_is_measured_but_too_small_to_decide(capsys, tmp_path):
    """Human labels joined by sample id and epoch: two humans, both alphas measured; 8 items are too
    few for an interval, so the gates are not evaluable and the verdict says why."""
    humans = tmp_path / "humans.csv"
    rows = ["id,epoch,rater,label"]
    grades = {"q1": ("C", "C"), "q2": ("C", "I"), "q3": ("I", "I"), "q4": ("P", "C")}
    for q, (a, b) in grades.items():
        for epoch in (1, 2):
            rows += [f"{q},{epoch},ann-1,{a}", f"{q},{epoch},ann-2,{b}"]
    humans.write_text("\n".join(rows) + "\n")
    code, out, err = _run(capsys, "calibrate", LOGS / "inspect_ai_model_graded_qa.json", "--references", humans,
                          "--json")
    s = json.loads(out)["scored"]
    assert s["humans"] == ["ann-1", "ann-2"] and s["audits"][0]["pairs"] == 16
    gates = {g["name"]: g for g in s["audits"][0]["gates"]}
    # 8 items: too few to put an interval on either alpha, so neither gate is evaluable (never a pass)
    assert gates["admissibility"]["value"] is not None and not gates["admissibility"]["evaluable"]
    assert gates["judge_alpha"]["unavailable"] == "no interval: 8 items, fewer than 10"
    assert code == 1 and s["decision"] == "INCOMPLETE"


def test_a_bad_human_label_is_located(capsys, tmp_path):
    humans = tmp_path / "humans.csv"
    humans.write_text("id,epoch,rater,label\nq1,1,ann-1,C\nq2,1,ann-1,maybe\n")
    code, out, err = _run(capsys, "calibrate", LOGS / "inspect_ai_model_graded_qa.json", "--references", humans)
    assert code == 3 and out == ""
    assert "humans.csv" in err and "row 3" in err and "label" in err


def test_inspect_previews_how_a_graded_log_is_read(capsys):
    code, out, _ = _run(capsys, "inspect", LOGS / "mt_bench_gpt-4_single.jsonl")
    assert code == 0
    assert out.splitlines()[0] == "file: mt_bench_gpt-4_single.jsonl (mt-bench single): a graded or pass/fail judge's log"
    assert "  1 judgments FastChat could not parse (score -1) left out (lines 7)" in out
    assert "  81/vicuna-13b/1  gpt-4  judge  9.0  vicuna-13b" in out
    code, out, _ = _run(capsys, "inspect", LOGS / "judgekit_binary.jsonl", "--json")
    preview = json.loads(out)
    assert code == 0 and preview["shape"] == "judgekit" and preview["judges"] == ["gpt-4o"]


def test_a_graded_log_is_not_read_as_ratings(capsys):
    code, out, err = _run(capsys, "panel", LOGS / "mt_bench_gpt-4_single.jsonl")
    assert code == 3 and out == ""
    assert err.strip().endswith("this is an LLM-judge log (mt-bench single), not ratings: audit it with 'agreebound "
                                "calibrate' (human labels: --references) or on the Judge calibration page")


def test_a_thresholds_file_sets_the_margin_and_the_report_names_it(capsys, tmp_path):
    """The [scored] table of a thresholds file is data: a wider margin admits a judge the default
    margin refuses; the report names the source and cites the defaults."""
    from agreebound.app.synthetic import ScoredJudge, scored_frame

    log = tmp_path / "graded.csv"
    scored_frame([ScoredJudge("judge-model", noise=0.8)], 200, 3, seed=21).drop(columns=["line"]).to_csv(log, index=False)
    code, out, _ = _run(capsys, "calibrate", log, "--json")
    s = json.loads(out)["scored"]
    assert code == 1 and s["decision"] == "FAIL_CALIBRATION" and s["threshold_source"] == "default"
    assert s["citations"]["admissibility_margin_permil"].startswith("50 permil = 0.05 alpha")
    th = tmp_path / "th.toml"
    th.write_text("[scored]\nadmissibility_margin_permil = 200\n")
    code, out, _ = _run(capsys, "calibrate", log, "--thresholds", th, "--json")
    s = json.loads(out)["scored"]
    assert code == 0 and s["decision"] == "PASS_CALIBRATION"
    assert s["threshold_source"] == "file:th.toml" and s["thresholds"]["admissibility_margin_permil"] == 200
    th.write_text("[scored]\nadmissibility_margin_permil = 2000\n")
    code, _, err = _run(capsys, "calibrate", log, "--thresholds", th)
    assert code == 3 and "scored.admissibility_margin_permil" in err and "between 0 and 1000" in err


def test_too_many_distinct_scores_are_refused_before_any_table_is_built(capsys, tmp_path):
    """Continuous scores (500 distinct values) would make every rater pair's table 500 x 500: a located
    refusal, exit 3, in memory and in DuckDB alike."""
    from agreebound.engines.scored_sql import duckdb_counts
    from agreebound.core.errors import InputError

    rows = ["item,rater,role,score"] + [f"i{i},{r},{role},{i / 7:.4f}" for i in range(500)
                                        for r, role in (("j", "judge"), ("h", "human"))]
    log = tmp_path / "continuous.csv"
    log.write_text("\n".join(rows) + "\n")
    code, out, err = _run(capsys, "calibrate", log)
    assert code == 3 and out == ""
    assert "continuous.csv, column 'score': 500 distinct scores; a graded judge's scale has at most 200 values" in err
    with pytest.raises(InputError, match="500 distinct scores"):
        duckdb_counts([str(log)])


def test_one_item_reads_in_the_singular(capsys, tmp_path):
    """A graded log of one item said "1 items" on its read line (text, Markdown and HTML)."""
    f = tmp_path / "one.csv"
    f.write_text("item,rater,role,score\ni1,j,judge,3\ni1,h1,human,3\ni1,h2,human,4\n")
    _, out, _ = _run(capsys, "calibrate", f)
    assert "read: scores table one.csv, 1 item; judges: j; humans: h1, h2" in out.splitlines()
    for ext in ("md", "html"):
        _run(capsys, "calibrate", f, "--report", tmp_path / f"r.{ext}")
        text = (tmp_path / f"r.{ext}").read_text()
        assert ", 1 item; judges: " in text and "1 items" not in text
