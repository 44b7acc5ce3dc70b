"""``panel --study`` and ``--relabel``: the annotation study beside each dimension (JSON valid against
the schema, text, Markdown, HTML), the relabel queue written as CSV, a Label Studio import with its
config, and Argilla records; the verdict and its exit code unchanged; a bad file name refused
before any work."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from agreebound.panel.relabel import CSV_COLUMNS
from tests.support.cli import run, run_json

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
PANEL = str(S / "detector_panel.csv")


def test_no_study_unless_asked_and_the_verdict_unchanged_by_it(capsys):
    code, plain, _ = run_json(capsys, "panel", PANEL)
    code2, studied, _ = run_json(capsys, "panel", PANEL, "--study")
    assert code == code2 == 1
    assert all("study" not in d for d in plain["panel"]["dimensions"])
    for a, b in zip(plain["panel"]["dimensions"], studied["panel"]["dimensions"]):
        assert a["verdict"] == b["verdict"] and a["alpha"] == b["alpha"]
        assert {k: v for k, v in b.items() if k != "study"} == a
    s = {d["dimension"]: d["study"] for d in studied["panel"]["dimensions"]}
    assert set(s) == {"violence", "insult", "sexual"}
    v = s["violence"]
    assert v["decides"] is False and v["units"] == 600 and v["queue_length"] == 600 and len(v["queue"]) == 20
    assert [r["rater"] for r in v["raters"]] == ["detector-lexicon", "detector-classifier", "detector-llm", "human"]
    assert all(not r["chance"] and not r["confused"] for r in v["raters"])
    llm = v["raters"][2]  # the lenient detector: its skill is its agreement, far from chance
    assert abs(llm["skill"] - llm["agreement"]) < 0.01 and llm["skill_interval95"][0] > 0.1
    assert v["marginal"]["df"] == 3 and v["marginal"]["units"] == 542 and v["marginal"]["p_value"] < 0.001
    assert v["explanation"].startswith("The raters use the categories at different rates (Bhapkar's test: 126.5 on 3 df")
    assert "detector-llm says '1' on 26% of the units it rated" in v["explanation"]
    assert s["sexual"]["explanation"] is None  # alpha 0.779 passes the floor: the rates explain no low alpha
    first = v["queue"][0]
    assert (first["rank"], first["split"], first["impact_action"]) == (1, "1/2", "removed")
    assert "Dawid-Skene" in v["method"] and "1000 resamples" in v["method"] and "uncertain-first" in v["rule"]


def test_the_text_names_raters_at_chance(capsys, tmp_path):
    """A planted panel: three good raters and a spammer whose labels are independent of the truth."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 300)
    rows = ["unit,good-1,good-2,good-3,spammer"]
    for u, t in enumerate(truth):
        good = [t if rng.random() < 0.85 else rng.integers(0, 3) for _ in range(3)]
        rows.append(",".join(map(str, [f"u{u}", *good, rng.integers(0, 3)])))
    path = tmp_path / "planted.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run(capsys, "panel", str(path), "--study")
    assert code in (0, 1), err
    assert "annotation study (beside the verdict; it does not decide):" in out
    assert "Indistinguishable from chance (skill's 95% interval includes 0): spammer." in out
    line = next(x for x in out.splitlines() if x.strip().startswith("spammer "))
    assert line.rstrip().endswith("at chance")
    assert "relabel queue: 300 units, uncertain-first" in out


def test_relabel_csv_has_every_unit_of_every_dimension(capsys, tmp_path):
    target = tmp_path / "queue.csv"
    code, out, err = run(capsys, "panel", PANEL, "--relabel", str(target))
    assert code == 1, err
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert list(rows[0]) == ["dimension", *CSV_COLUMNS]
    assert [sum(r["dimension"] == d for r in rows) for d in ("violence", "insult", "sexual")] == [600, 600, 600]
    v = [r for r in rows if r["dimension"] == "violence"]
    assert [int(r["rank"]) for r in v] == list(range(1, 601))
    assert v[0]["unit"] == "item-0135" and v[0]["split"] == "1/2" and v[0]["alpha"] == "520132/2203311"
    assert "annotation study" in out  # --relabel implies --study


def test_relabel_for_label_studio_and_argilla(capsys, tmp_path):
    ls = tmp_path / "tasks.json"
    code, _, err = run(capsys, "panel", PANEL, "--dimension", "violence", "--relabel", str(ls),
                       "--relabel-format", "label-studio")
    assert code == 1, err
    tasks = json.loads(ls.read_text())
    assert len(tasks) == 600
    t = tasks[0]
    assert t["data"]["relabel_rank"] == 1 and t["data"]["unit"] == "item-0135"
    pred = t["predictions"][0]
    assert pred["result"][0]["type"] == "choices" and pred["result"][0]["value"] == {"choices": ["0"]}
    config = Path(str(ls) + ".xml").read_text()
    assert config.startswith("<View>") and '<Choice value="0"/>' in config and '<Choice value="1"/>' in config

    ar = tmp_path / "records.json"
    code, _, err = run(capsys, "panel", PANEL, "--dimension", "violence", "--relabel", str(ar),
                       "--relabel-format", "argilla")
    assert code == 1, err
    records = json.loads(ar.read_text())
    assert len(records) == 600 and records[0]["suggestions"][0]["value"] == "0"
    assert set(records[0]) >= {"id", "fields", "metadata", "suggestions"}


def test_a_bad_relabel_name_is_refused_before_any_work(capsys, tmp_path):
    code, out, err = run(capsys, "panel", PANEL, "--relabel", str(tmp_path / "queue.txt"))
    assert code == 3 and "--relabel with --relabel-format csv needs a .csv file name" in err
    code, out, err = run(capsys, "panel", PANEL, "--relabel", str(tmp_path / "nowhere" / "q.csv"))
    assert code == 3 and "does not exist" in err
    code, out, err = run(capsys, "panel", PANEL, "--relabel", PANEL.replace(".csv", ".csv"))
    assert code == 3 and "one of the inputs" in err


def test_markdown_and_html_reports_carry_the_study(capsys, tmp_path):
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    for target in (md, html):
        code, _, err = run(capsys, "panel", PANEL, "--dimension", "violence", "--study", "--report", str(target))
        assert code == 1, err
    text = md.read_text()
    assert "### Annotation study (beside the verdict; it does not decide)" in text
    assert "| rater | ratings | skill | skill 95% interval | agreement | agreement 95% interval | the model says |" in text
    assert "Marginal homogeneity: Bhapkar's test" in text and "p < 0.001." in text
    page = html.read_text()
    assert 'id="dim-0-study"' in page and "Relabel queue: the first 20 of 600 units" in page


def test_judge_alone_needs_people_beside_the_detectors(capsys):
    code, out, err = run(capsys, "panel", PANEL, "--dimension", "violence", "--study", "--relabel-rule", "judge-alone")
    assert code == 1, err
    assert "relabel queue: 600 units, judge-alone: units where judges or detectors disagree with the people" in out
    assert "detector-classifier says '1', detector-llm says '1' where the 1 human says '0'" in out
    code, out, err = run(capsys, "panel", str(S / "krippendorff_2011.csv"), "--study", "--relabel-rule", "judge-alone")
    assert code == 3 and "has no human rater (name them with --humans)" in err


def test_edge_panels_are_said_not_crashed(capsys, tmp_path):
    """Found by a review: two raters who use one category (Stuart-Maxwell on a 1 x 1 table) and a
    panel with no rating exited 4; one or two units made Bhapkar's test "certain"; a unit's only
    rating was outweighed without a word."""
    one = tmp_path / "onecat.csv"
    one.write_text("unit,r1,r2\nu1,yes,yes\nu2,yes,yes\nu3,yes,yes\n")
    code, out, err = run(capsys, "panel", str(one), "--study")
    assert code == 1 and "Every rating is 'yes': one category, so there is no disagreement to model" in out
    code, out, err = run(capsys, "panel", str(ROOT / "tests" / "data" / "hostile" / "all_missing.csv"), "--study")
    assert code == 1 and "No ratings: nothing to model." in out
    few = tmp_path / "few.csv"
    few.write_text("unit,r1,r2,r3\nu1,a,b,a\nu2,a,b,a\n")
    code, out, err = run(capsys, "panel", str(few), "--study")
    assert "rates: not tested: 2 units rated by every rater; a test of equal rates needs at least 10" in out
    assert "certain:" not in out and "different rates" not in out
    lone = tmp_path / "lone.csv"
    lone.write_text("unit,r1,r2,r3\nu1,a,a,\nu2,b,b,\nu3,a,a,\nu4,c,c,\nu5,b,a,\nu6,a,a,\nu7,b,b,\nu8,c,b,\nu9,,,c\n")
    code, out, err = run(capsys, "panel", str(lone), "--study")
    line = next(x for x in out.splitlines() if x.strip().startswith("1. u9"))
    assert "(the ratings say 'c'; the model outweighs them, weighing each rater by its confusion rows)" in line


def test_outputs_that_would_overwrite_each_other_or_an_input_are_refused(capsys, tmp_path):
    same = tmp_path / "same.json"
    code, out, err = run(capsys, "panel", PANEL, "--relabel", str(same), "--relabel-format", "argilla", "--report",
                         str(same))
    assert code == 3 and "--report and --relabel name the same file" in err and not same.exists()
    data = tmp_path / "in.json.xml"
    data.write_bytes((S / "krippendorff_2011.csv").read_bytes())
    code, out, err = run(capsys, "panel", str(data), "--relabel", str(tmp_path / "in.json"), "--relabel-format",
                         "label-studio")
    assert code == 3 and "--relabel's labelling config names one of the inputs" in err
    assert data.read_bytes() == (S / "krippendorff_2011.csv").read_bytes()
    code, out, err = run(capsys, "panel", PANEL, "--relabel-format", "argilla")
    assert code == 3 and "give --relabel PATH" in err


def test_argilla_ids_are_unique_across_dimensions(capsys, tmp_path):
    target = tmp_path / "records.json"
    code, _, err = run(capsys, "panel", PANEL, "--relabel", str(target), "--relabel-format", "argilla")
    assert code == 1, err
    records = json.loads(target.read_text())
    assert len(records) == 1800 and len({r["id"] for r in records}) == 1800
    assert records[0]["id"] == "violence/item-0135" and records[0]["metadata"]["dimension"] == "violence"
