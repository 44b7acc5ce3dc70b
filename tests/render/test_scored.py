"""A graded or pass/fail judge's reports: the Markdown, the HTML page, the CLI's text and JSON of a
fixed synthetic log show its numbers (the measures' own value_text), the decision and for whom, the
gates, why a gate is not evaluable, the isotonic map's before/after; user text stays text; the exit
codes are the verdict's; every kind of scored report validates against the JSON schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from agreebound.cli.main import main
from tests.support.cli import run as cli
from agreebound.scored.audit import measure_scored
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.app.pipeline import run
from agreebound.render import figures as F
from agreebound.render import figure_style
from agreebound.render.html import scored_html
from agreebound.render.markdown import to_markdown
from agreebound.render.scored import gate_notes
from agreebound.app.synthetic import ScoredJudge, scored_frame

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())

DATA = ROOT / "tests" / "data" / "scored_reports"
#: The fixed logs, written once by agreebound.app.synthetic.scored_frame (then frozen, so that the numbers
#: asserted here move only when the measurement does): graded3 [ScoredJudge("judge-model")], 100
#: items, 3 humans, seed 3; graded1 the same with 1 human; binary [ScoredJudge("judge-model",
#: confidence_slope=2.0, overconfidence=3.0)], 300 items, 2 humans, scale (0, 1), seed 4; judges3
#: judge-model, judge-b (noise 1.0) and judge-c (noise 0.8), 100 items, 3 humans, seed 3.
FIXED = ("graded3", "graded1", "binary", "judges3")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    out = {name: DATA / f"{name}.csv" for name in FIXED}
    # the brief's noisy judge, drawn afresh: whatever the draw, a judge this noisy fails
    path = tmp_path_factory.mktemp("scored") / "noisy.csv"
    scored_frame([ScoredJudge("judge-model", noise=1.2)], 400, 3, seed=1).drop(columns=["line"]).to_csv(path, index=False)
    out["noisy"] = path
    return out


@pytest.fixture(scope="module")
def reports(files) -> dict[str, dict]:
    return {name: run(JudgeRecipe(Source.at(str(path)))).report for name, path in files.items()}


# --- the measurement's own strings, as every renderer must show them -----------------------------------


#: graded3's judge: each measure's value_text and interval_text (agreebound.judge.bias.Measure).
GRADED3 = {
    "exact_agreement": ("54.0%", "[47.4, 60.4]"),
    "within_one": ("96.7%", "[92.8, 98.5]"),
    "weighted_kappa": ("0.778", "[0.709, 0.848]"),
    "leniency": ("-0.05 scale points", "[-0.17, +0.07]"),
    "central_tendency": ("1.01x", "[0.93, 1.10]"),
    "length_effect": ("0.022", "[-0.150, 0.195]"),
    "self_preference_scored": ("-0.03 scale points", "[-0.31, +0.25]"),
    # the rank correlations (agreebound.scored.correlation): 100 items; 3 models (their intervals: the
    # models' means resampled, across three models a correlation takes a few values only)
    "spearman_items": ("0.829", "[0.742, 0.887]"),
    "kendall_items": ("0.728", "[0.638, 0.792]"),
    "spearman_models": ("1.000", "[-0.500, 1.000]"),
    "kendall_models": ("1.000", "[-0.333, 1.000]"),
}


def test_the_fixed_log_measures_what_the_reports_are_checked_for(files):
    import pandas as pd

    m = measure_scored(pd.read_csv(files["graded3"]), "graded3.csv")
    (a,) = m.agreements
    assert {x.name: (x.value_text(), x.interval_text()) for x in a.measures} == GRADED3
    assert (a.judge_alpha.value_text(), a.judge_alpha.interval_text()) == ("0.763", "[0.685, 0.842]")
    assert (a.human_alpha.value_text(), a.difference.value_text()) == ("0.758", "0.005")
    assert a.measure("exact_agreement").fraction == "162/300"


def test_markdown_shows_the_decision_gates_and_measures(reports):
    md = to_markdown(reports["graded3"])
    assert md.startswith("# Agreebound scored report\n")
    assert "**Decision: PASS_CALIBRATION** for every judge (the log's one judge)." in md
    assert "Level: ordinal, the default for a graded scale" in md
    assert ("| agreement with humans, against the humans' own (alpha difference) | 0.005 | [-0.050, 0.061] | "
            ">= -0.050 (admissibility_margin_permil 50) | pass (0.055 to spare) |") in md
    assert ("| agreement with humans (alpha of the judge-human pairs) | 0.763 | [0.685, 0.842] | "
            ">= 0.600 (judge_alpha_floor_permil 600) | pass (0.163 to spare) |") in md
    for value, interval in GRADED3.values():
        assert f"| {value} | {interval} |" in md
    assert "| exact agreement with a human | 54.0% | [47.4, 60.4] | 162\\/300 |" in md
    assert "- judge_alpha: detects a true value 0.111 from the threshold at 100 items (80% power)" in md
    # the score table, its diagonal in bold
    assert "| 3 | 2 | 25 | **50** | 28 | 0 |" in md
    assert "- admissibility_margin_permil = 50: 50 permil = 0.05 alpha" in md


def test_markdown_says_why_a_gate_is_not_evaluable_with_one_human(reports):
    md = to_markdown(reports["graded1"])
    assert "**Decision: INCOMPLETE**" in md
    assert "Not decided, this is not a pass: admissibility: needs two or more humans on shared items." in md
    assert ("| agreement with humans, against the humans' own (alpha difference) | not measured | - | "
            ">= -0.050 (admissibility_margin_permil 50) | not evaluable: needs two or more humans on shared items |") in md
    assert "| humans vs humans: alpha | not measured | - | needs two or more humans on shared items |" in md


ISOTONIC = ("isotonic recalibration fitted on 121 items and evaluated on the other 121: ECE 0.029 -> 0.030, "
            "Brier 0.056 -> 0.056 (shown, not applied: the verdicts are audited as the judge gave them)")


def test_markdown_of_a_pass_fail_judge_with_confidence(reports):
    md = to_markdown(reports["binary"])
    assert "Judge: pass/fail judge: every score is 0 or 1 (pass = 1). Level: nominal, the default for a pass/fail " \
           "verdict" in md
    assert "| accuracy (judge = human) | 78.3% | [74.1, 82.0] | 470\\/600 |" in md
    assert ("- ECE 0.018 over 242 items, against the humans' verdict (10 equal-mass bins; 58 items the humans split "
            "evenly left out)") in md
    assert ("- Brier 0.058 [0.038, 0.078] = reliability 0.001 - resolution 0.188 + uncertainty 0.249 + within-bin "
            "-0.004 (grouped by the equal-mass bins: most stated values are distinct)") in md
    assert f"- {ISOTONIC}" in md
    assert "| 0.003 | 0.000 | [0.000, 0.133] | 25 |" in md  # the second bin of the reliability diagram
    assert ("| agreement with humans (alpha of the judge-human pairs) | 0.566 | [0.486, 0.645] | "
            ">= 0.600 (judge_alpha_floor_permil 600) | FAIL (0.034 short) |") in md
    assert ("| agreement with humans, against the humans' own (alpha difference) | -0.048 | [-0.141, 0.046] | "
            ">= -0.050 (admissibility_margin_permil 50) | pass (0.002 to spare) |") in md


def test_markdown_of_a_panel_of_judges(reports):
    md = to_markdown(reports["judges3"])
    assert "**Decision: FAIL_CALIBRATION** for every judge (the worst judge's decision decides)." in md
    assert "## Judge `judge-b`: FAIL_CALIBRATION" in md
    assert "- admissibility: fragile: the 95% interval holds values on both sides of the threshold" in md
    assert "Alpha among the judges: 0.614 (= 1576063373/2567210400)." in md
    assert "| judge\\-model | 0.583 |" in md
    assert ("Which judge to drop: drop `judge-b`: it agrees with the humans least: alpha 0.654 [0.550, 0.758], below "
            "judge-model's 0.763.") in md


def test_a_plan_counts_a_judges_items(reports):
    """The core plans a graded judge's gates in items (agreebound.core.planner.plan_se), and the notes say so."""
    plans = [g["plan"] for r in reports.values() for a in r["scored"]["audits"] for g in a["gates"] if g["plan"]]
    assert plans and {p["unit"] for p in plans} == {"items"}
    g = {"evaluable": True, "fragile": True, "plan": {"mdd": 0.124, "design_effect": None, "size": 100, "more": 430,
                                                      "decidable": True, "unit": "items", "method": "",
                                                      "sentence": "about 430 more items would decide it"}}
    assert gate_notes(g) == ["fragile: the 95% interval holds values on both sides of the threshold",
                             "detects a true value 0.124 from the threshold at 100 items (80% power); about 430 more "
                             "items would decide it"]


# --- HTML -------------------------------------------------------------------------------------------------


def test_html_page_has_the_same_sections_and_numbers(reports):
    page = scored_html(reports["binary"])
    assert page.startswith("<!DOCTYPE html>") and "<title>Agreebound pass/fail judge report: binary.csv</title>" in page
    headings = re.findall(r"<h2 id=\"[^\"]+\">([^<]*)</h2>", page)
    assert headings == ["Summary", "The judge's own scores (no human labels needed)", "Judge judge-model: FAIL_CALIBRATION",
                        "Identity, notes and thresholds", "Inputs"]
    for text in ("78.3%", "[74.1, 82.0]", "= 470/600", "0.566", "[0.486, 0.645]", "not applied",
                 "ECE 0.029 -&gt; 0.030", "FAIL</span>", "(0.034 short)", "about 3,000 more items would decide it"):
        assert text in page, text
    assert "judge-model: reliability diagram" in page and "judge-model: its scores against the humans'</h3>" in page
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, flags=re.S)
    assert sum(len(body) > 500_000 for _, body in scripts) == 1  # plotly.js, inlined once for both charts
    assert all("src" not in attrs for attrs, _ in scripts) and "<link" not in page  # nothing fetched


def test_html_says_why_with_one_human_and_draws_the_panel(reports):
    page = scored_html(reports["graded1"])
    assert "not evaluable</span><br><span class=\"small\">needs two or more humans on shared items</span>" in page
    panel = scored_html(reports["judges3"])
    assert "<h2 id=\"panel\">The panel of judges</h2>" in panel
    assert ("Which judge to drop: <code>judge-b</code>: it agrees with the humans least: alpha 0.654 [0.550, 0.758], "
            "below judge-model&#x27;s 0.763.") in panel


# --- user text is data ---------------------------------------------------------------------------------------


HOSTILE = "<b>x</b>|y"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict:
    f = scored_frame([ScoredJudge(HOSTILE)], 60, 2, seed=5)
    path = tmp_path_factory.mktemp("hostile") / "h.csv"
    f.drop(columns=["line"]).to_csv(path, index=False)
    return run(JudgeRecipe(Source.at(str(path)))).report


def test_a_hostile_judge_name_is_escaped_in_markdown(hostile):
    md = to_markdown(hostile)
    # outside code spans (where Markdown shows a tag as text), no tag at all
    assert "<b>" not in re.sub(r"`[^`]*`", "", md)
    assert "## Judge `<b>x</b>|y`: PASS_CALIBRATION" in md and "- grader: `<b>x</b>|y`" in md
    escaped = "\\<b\\>x\\<\\/b\\>\\|y"  # each punctuation character escaped: no tag, no cell break
    assert "| " + escaped + " | human\\-1 | 60 | 0.791 |" in md
    assert "judges: " + escaped + "; humans: human\\-1, human\\-2." in md


def test_a_hostile_judge_name_is_escaped_in_html_and_figures(hostile):
    page = scored_html(hostile)
    assert "<b>x</b>" not in page
    assert "&lt;b&gt;x&lt;/b&gt;|y" in page
    a = hostile["scored"]["audits"][0]
    fig = F.score_heatmap(a["table"], a["judge"])
    assert fig.layout.title.text == "&lt;b&gt;x&lt;/b&gt;|y: its scores against the humans'"
    assert "<b>" not in json.dumps(fig.to_plotly_json()["data"][0]["customdata"])


# --- figures --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_reliability_figure_draws_the_bins_and_the_diagonal(reports, dark):
    c = reports["binary"]["scored"]["audits"][0]["confidence"]
    fig = F.reliability_figure(c, dark=dark)
    p = figure_style.palette(dark)
    diagonal, judge = fig.data
    assert (list(diagonal.x), list(diagonal.y)) == ([0, 1], [0, 1]) and diagonal.line.color == p.threshold
    assert (judge.x[1], judge.y[1]) == (0.002684, 0.0)
    assert round(judge.error_y.arrayminus[1], 6) == 0.0
    assert round(judge.error_y.array[1], 6) == 0.133192
    assert [row[0] for row in judge.customdata] == [25, 25] + [24] * 8  # bin sizes, in the hover
    assert fig.layout.paper_bgcolor == fig.layout.plot_bgcolor == p.background
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert "ECE 0.018" in figure_style.caption(fig) and figure_style.caption(fig).endswith(".")


def test_score_heatmap_rows_are_the_judge_and_the_diagonal_is_outlined(reports):
    a = reports["graded3"]["scored"]["audits"][0]
    fig = F.score_heatmap(a["table"], a["judge"])
    heat = fig.data[0]
    assert list(heat.z[2]) == [2, 25, 50, 28, 0]  # judge's 3 against the humans' 1..5
    assert list(heat.x) == list(heat.y) == ["1", "2", "3", "4", "5"]
    assert len([s for s in fig.layout.shapes if s.name == "diagonal"]) == 5
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("human's score", "judge-model's score")
    assert "(162 of 300 pairs)" in figure_style.caption(fig)


# --- the command line -----------------------------------------------------------------------------------------


def test_cli_text_shows_the_numbers_and_exits_0_on_a_passing_judge(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["graded3"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "decision: PASS_CALIBRATION for every judge (the log's one judge)"
    assert "  admissibility: 0.005 [-0.050, 0.061] (>= -0.050 (admissibility_margin_permil 50)): pass (0.055 to " \
           "spare)" in lines
    assert "    exact agreement with a human: 54.0% [47.4, 60.4] = 162/300" in lines
    assert "    leniency (judge minus human, mean): -0.05 scale points [-0.17, +0.07]" in lines
    assert lines[-1] == "overall: PASS_CALIBRATION"


def test_cli_exits_1_on_a_noisy_judge(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["noisy"])
    assert code == 1
    assert "judge judge-model: FAIL_CALIBRATION (400 items, 1,200 judge-human pairs)" in out


def test_cli_one_human_is_incomplete_with_the_reason(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["graded1"])
    assert code == 1
    assert "  not decided, this is not a pass: admissibility: needs two or more humans on shared items" in out
    assert "  admissibility: not measured (>= -0.050 (admissibility_margin_permil 50)): not evaluable: needs two or " \
           "more humans on shared items" in out


def test_cli_text_of_a_pass_fail_judge_says_the_isotonic_map(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["binary"])
    assert code == 1
    assert f"    {ISOTONIC}" in out.splitlines()


def test_cli_exits_3_on_a_score_that_is_not_a_number(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("item,rater,role,score\ni1,judge-model,judge,4\ni1,human-1,human,four\n")
    code, out, err = cli(capsys, "calibrate", bad)
    assert code == 3 and out == ""
    assert err.startswith("bad.csv, row 3, column 'score': ")


def test_cli_json_parses_and_validates(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["judges3"], "--json")
    assert code == 1
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    assert report["kind"] == "scored" and report["scored"]["decision"] == "FAIL_CALIBRATION"
    assert report["scored"]["level"] == {"in_force": "ordinal", "chosen_by": "data"}


def test_cli_level_changes_the_level_in_the_report(capsys, files):
    code, out, _ = cli(capsys, "calibrate", files["graded3"], "--level", "interval", "--json")
    report = json.loads(out)
    assert report["scored"]["level"] == {"in_force": "interval", "chosen_by": "user"}
    assert report["scored"]["audits"][0]["alpha"]["judge_humans"]["value_text"] == "0.779"  # 0.763 at ordinal
    code, out, _ = cli(capsys, "calibrate", files["graded3"], "--level", "interval")
    assert "judge: graded judge: scores on a scale of 5 values from 1 to 5; level interval, chosen by the user" in out


def test_cli_level_with_a_pairwise_judge_is_a_usage_error(capsys):
    code, out, err = cli(capsys, "calibrate", ROOT / "sample_data" / "judge_failing.json", "--level", "ordinal")
    assert code == 3 and out == ""
    assert "--level is for a graded or pass/fail judge's log" in err


def test_cli_writes_the_markdown_and_html_reports(capsys, files, tmp_path):
    for suffix in ("md", "html"):
        path = tmp_path / f"r.{suffix}"
        assert cli(capsys, "calibrate", files["graded1"], "--report", path)[0] == 1
        text = path.read_text(encoding="utf-8")
        assert "needs two or more humans on shared items" in text and "INCOMPLETE" in text


def test_calibrate_help_names_the_graded_logs(capsys):
    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    out = capsys.readouterr().out
    for name in ("inspect_ai", "promptfoo", "MT-Bench single-answer grading", "judgekit graded or binary",
                 "item,rater,role,score", "--level {nominal,ordinal,interval}"):
        assert name in " ".join(out.split()), name  # argparse wraps the description
    graded = out.split("A graded judge")[1].split("positional arguments")[0]
    assert "judgecal" not in graded  # a pairwise log: not among the graded ones


# --- the JSON schema ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["graded3", "graded1", "binary", "judges3"])
def test_every_kind_of_scored_report_validates(reports, name):
    jsonschema.validate(reports[name], SCHEMA)


def test_the_schema_rejects_a_tampered_scored_report(reports):
    r = json.loads(json.dumps(reports["graded3"]))
    r["scored"]["audits"][0]["gates"][0]["passed"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(r, SCHEMA)
    r = json.loads(json.dumps(reports["graded3"]))
    r["panel"] = {"dimensions": [], "verdict": "ENFORCE", "depends_on_level": False}  # one kind per report
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(r, SCHEMA)
