"""``calibrate --recalibrate`` and ``--map-out``: a graded judge's scores mapped onto the humans'
scale in every report (JSON valid against the schema, text, Markdown, HTML), the map written for a
pipeline, the decision and exit code unchanged; a lenient judge's mapped scores pass the gate its
raw scores fail; refused where there is no scale to map."""

from __future__ import annotations

import json
from pathlib import Path


from agreebound.app.synthetic import ScoredJudge, scored_frame
from tests.support.cli import run, run_json

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
GRADED = str(S / "graded_judge.csv")


def test_the_sample_recalibrated_in_the_json_and_the_map_written(capsys, tmp_path):
    code, plain, _ = run_json(capsys, "calibrate", GRADED)
    target = tmp_path / "map.json"
    code2, report, err = run_json(capsys, "calibrate", GRADED, "--map-out", str(target))
    assert code == code2 == 1, err
    assert "recalibration" not in plain["scored"]
    assert {k: v for k, v in report["scored"].items() if k != "recalibration"} == plain["scored"]
    rec = {r["judge"]: r for r in report["scored"]["recalibration"]}
    m = rec["judge-model"]
    assert m["mapped"] and m["items"] == 120 and m["folds"] == 5
    mae = m["errors"][0]
    assert (mae["name"], mae["before"], mae["after"], mae["interval_is_95"]) == ("mean absolute error", 0.497222,
                                                                                 0.472576, True)
    assert m["errors"][1]["interval_is_95"] is False
    assert m["before"]["decision"] == "PASS_CALIBRATION" and rec["judge-b"]["after"]["decision"] == "FAIL_CALIBRATION"
    maps = json.loads(target.read_text())["maps"]
    assert [x["judge"] for x in maps] == ["judge-model", "judge-b"]
    assert [b["score"] for b in maps[0]["breakpoints"]] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert maps[0]["breakpoints"] == m["map"]["breakpoints"]


def test_a_lenient_judge_passes_after_the_map_in_the_text(capsys, tmp_path):
    path = tmp_path / "lenient.csv"
    scored_frame([ScoredJudge(leniency=1.0, noise=0.3)], n_items=200, seed=0).to_csv(path, index=False)
    code, out, err = run(capsys, "calibrate", str(path), "--recalibrate")
    assert code == 1, err  # the decision is the raw judge's: the map is beside it
    assert "recalibration (the judge's scores mapped to the humans' scale; beside the decision, not part of it):" in out
    assert "decision: raw scores FAIL_CALIBRATION; mapped scores PASS_CALIBRATION" in out
    assert "mean absolute error:" in out and "(95% interval" in out and "rough range (not a 95% interval)" in out


def test_markdown_and_html_carry_it_and_refusals(capsys, tmp_path):
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    for target in (md, html):
        code, _, err = run(capsys, "calibrate", GRADED, "--recalibrate", "--report", str(target))
        assert code == 1, err
    assert "## The judge's scores on the humans' scale (beside the decision, not part of it)" in md.read_text()
    assert "The judge&#x27;s scores on the humans&#x27; scale" in html.read_text() or \
        "The judge's scores on the humans' scale" in html.read_text()
    code, out, err = run(capsys, "calibrate", GRADED, "--map-out", str(tmp_path / "map.txt"))
    assert code == 3 and "--map-out needs a .json file name" in err
    code, out, err = run(capsys, "calibrate", str(S / "passfail_judge.csv"), "--map-out", str(tmp_path / "m.json"))
    assert code == 3 and "no judge could be mapped" in err and "graded judge" in err
    code, out, err = run(capsys, "calibrate", str(S / "judge_failing.json"), "--recalibrate")
    assert code == 3 and "--recalibrate maps a graded judge's scores" in err


def test_the_level_asked_for_is_the_level_both_audits_read(capsys):
    """Found by a review: at --level nominal judge-model fails, and the recalibration's "raw scores"
    decision said PASS (it audited at the log's default level)."""
    code, report, err = run_json(capsys, "calibrate", GRADED, "--recalibrate", "--level", "nominal")
    rec = {r["judge"]: r for r in report["scored"]["recalibration"]}
    audits = {a["judge"]: a["decision"] for a in report["scored"]["audits"]}
    assert audits["judge-model"] == "FAIL_CALIBRATION"
    assert all(rec[j]["before"]["decision"] == audits[j] for j in audits)
    assert "rounded to the scale, nominal level" in rec["judge-model"]["sentence"]
