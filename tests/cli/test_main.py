"""The agreebound command line and its reports: outputs, exit codes, schema, determinism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from agreebound.judge.seed_report import format_example
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
BAD = ROOT / "tests" / "data" / "bad"


@pytest.mark.parametrize("argv, code, lines", [
    (["panel", S / "detector_panel.csv"], 1, [
        "violence: REPORT_ONLY at the nominal level (the default)  alpha=520132/2203311 (236 permil)  spread=39/10  "
        "detectors=3",
        "insult: REPORT_ONLY at the nominal level (the default)  alpha=67581/156767 (431 permil)  spread=31/10  "
        "detectors=3",
        "sexual: ENFORCE at the nominal level (the default)  alpha=2077057/2664648 (779 permil)  spread=29/20  "
        "detectors=3",
        "overall: REPORT_ONLY"]),
    (["panel", S / "detector_panel.csv", "--dimension", "sexual"], 0, ["overall: ENFORCE"]),
    (["panel", S / "detector_panel.csv", "--rates", S / "detector_rates.csv", "--preset", "exploratory",
      "--thresholds", S / "thresholds.toml"], 1, [
        "violence: REPORT_ONLY at the nominal level (the default)  alpha=520132/2203311 (236 permil)  spread=39/10  "
        "detectors=3",
        "insult: ENFORCE at the nominal level (the default)  alpha=67581/156767 (431 permil)  spread=31/10  "
        "detectors=3"]),
    (["panel", S / "single_detector.csv"], 2, ["all: REFUSE_SINGLE at the nominal level (the default)  "
                                               "alpha=172640/191187 (902 permil)  spread=1  detectors=1"]),
    (["panel", S / "krippendorff_2011.csv", "--level", "interval"], 0,
     ["all: ENFORCE at the interval level (chosen)  alpha=951/1120 (849 permil)  spread=not measured  raters=4"]),
    (["panel", S / "krippendorff_2011.csv", "--positive", "2", "--level", "nominal"], 0,
     ["all: ENFORCE at the nominal level (chosen)  alpha=113/152 (743 permil)  spread=4/3  raters=4"]),
    (["panel", S / "krippendorff_2011.csv"], 0,  # five whole numbers: nominal by default, ordinal suggested beside
     ["all: ENFORCE at the nominal level (the default)  alpha=113/152 (743 permil)  spread=not measured  raters=4",
      "  level nominal: the specification's level, and R kripp.alpha's default; alpha at other levels: "
      "ordinal 108577/133160, interval 951/1120, ratio 18222619/22852465",
      "  suggested level ordinal: 5 ordered whole numbers (1, 2, 3...), like a rating scale: ordinal or interval "
      "fits; nominal would treat neighbouring values as unrelated (--level ordinal)"]),
    (["calibrate", S / "judge_failing.json"], 1, ["  position_flip: 26/233 = 1116 bps (<= 500): FAIL"]),
    (["calibrate", S / "judge_illustrative.json"], 0, ["  human_agreement: 16/16 = 10000 bps (>= 9000): pass"]),
    (["calibrate", S / "judge_failing_contract.json", "--references", S / "judge_failing_references.csv",
      "--observations", S / "judge_failing_observations.csv"], 1, ["  self_preference: 95/168 = 5655 bps (<= 500): FAIL"]),
])
def test_outputs_and_exit_codes(capsys, argv, code, lines):
    got, out, err = run(capsys, *argv)
    assert got == code and err == ""
    for line in lines:
        assert line in out.splitlines()


def test_a_gzip_file_is_said_as_one(tmp_path, capsys):
    import gzip

    f = tmp_path / "ratings.csv"
    f.write_bytes(gzip.compress((S / "krippendorff_2011.csv").read_bytes()))
    for command in ("panel", "calibrate", "inspect"):
        code, out, err = run(capsys, command, f)
        assert (code, out, err) == (3, "", "ratings.csv: a gzip-compressed file; decompress it (gunzip) and give what "
                                            "it holds\n")


@pytest.mark.parametrize("argv, message", [
    (["panel", BAD / "ragged_long_row.csv"], "ragged_long_row.csv, row 3: row has 4 cells; the header has 3"),
    (["calibrate", BAD / "bundle_bool_repetition.json"], "bundle_bool_repetition.json, observation 6, column 'repetition'"),
    (["panel", S / "detector_panel.csv", "--dimension", "gore"], "detector_panel.csv, column 'dimension': no dimension 'gore'"),
    (["panel", S / "detector_panel.csv", "--preset", "nope"], "--preset: no preset 'nope'; available:"),
    (["panel", ROOT / "does-not-exist.csv"], "does-not-exist.csv: cannot read the file (No such file or directory)"),
    (["panel", S / "detector_panel.csv", "--report", "out.pdf"], "out.pdf: --report needs a .json, .md, .html or .xml (JUnit) file name"),
    # a rating table given to calibrate: said as what it is and where it goes, not "invalid JSON"
    (["calibrate", S / "krippendorff_2011.csv"], "krippendorff_2011.csv, line 1: not JSON, and not a judge log or a "
     "graded or pass/fail judge's table (columns such as item, judge, score): a judge's bundle is a JSON object with "
     '"contract" and "snapshot", the tabular form takes --references and --observations, and a table of ratings '
     "(units and raters) is a panel's: agreebound panel, or the dashboard's Panel page"),
])
def test_input_errors_exit_3_with_the_line_on_stderr(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 3 and out == ""
    assert err.startswith(message.replace(str(ROOT) + "/", "")) or message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_example_prints_the_seed_lines(capsys):
    code, out, _ = run(capsys, "example")
    assert code == 0 and out == format_example() + "\n"


def test_help_everywhere_with_examples():
    for argv, needle in ([[], "4  internal error: a bug in agreebound, never a verdict"], [["panel"], "agreebound panel sample_data/detector_panel.csv"],
                         [["calibrate"], "agreebound calibrate sample_data/judge_failing.json"]):
        out = subprocess.run([sys.executable, "-m", "agreebound.cli.main", *argv, "--help"], capture_output=True, text=True)
        assert out.returncode == 0 and needle in out.stdout


@pytest.mark.parametrize("argv", [
    ["panel", S / "detector_panel.csv", "--json"],
    ["panel", S / "single_detector.csv", "--json"],
    ["panel", S / "krippendorff_2011.csv", "--json", "--level", "ordinal"],
    ["calibrate", S / "judge_failing.json", "--json"],
    ["calibrate", S / "judge_illustrative.json", "--json", "--thresholds", S / "thresholds.toml", "--preset", "release-gate"],
])
def test_json_report_matches_the_schema_and_is_deterministic(capsys, argv):
    _, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    assert first == second  # byte-identical
    report = json.loads(first)
    jsonschema.validate(report, SCHEMA)
    assert report["tool"] == {"name": "agreebound", "version": "0.1.0"}
    assert all(len(i["sha256"]) == 64 for i in report["inputs"])


def test_json_report_numbers(capsys):
    _, out, _ = run(capsys, "panel", S / "detector_panel.csv", "--json")
    r = json.loads(out)
    violence = r["panel"]["dimensions"][0]
    assert violence["alpha"]["exact"] == "520132/2203311" and violence["alpha"]["permil"] == 236
    assert violence["spread"] == {**violence["spread"], "exact": "39/10", "permil": 3900, "state": "bounded"}
    assert violence["reasons"][0]["margin"] == "-4009273/11016555"
    assert r["thresholds"] == {"source": "default", "calibration": None,
                               "panel": {"alpha_floor_permil": 600, "ratio_cap_permil": 2000, "strict": False}}
    import hashlib
    assert r["inputs"] == [{"file": "detector_panel.csv",
                            "sha256": hashlib.sha256((S / "detector_panel.csv").read_bytes()).hexdigest()}]
    _, out, _ = run(capsys, "calibrate", S / "judge_illustrative.json", "--json", "--thresholds", S / "thresholds.toml",
                    "--preset", "release-gate")
    c = json.loads(out)
    assert c["thresholds"]["source"] == "preset:release-gate"
    assert c["calibration"]["decided_against"]["kind"] == "draft"
    assert c["calibration"]["decision"] == "PASS_CALIBRATION"


def test_schema_rejects_a_tampered_report(capsys):
    _, out, _ = run(capsys, "panel", S / "detector_panel.csv", "--json")
    r = json.loads(out)
    r["panel"]["dimensions"][0]["alpha"]["exact"] = 0.236
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(r, SCHEMA)


def test_report_files(tmp_path, capsys):
    for suffix in ("json", "md", "html"):
        path = tmp_path / f"r.{suffix}"
        code, _, _ = run(capsys, "panel", S / "detector_panel.csv", "--report", path)
        assert code == 1 and path.exists()
    assert json.loads((tmp_path / "r.json").read_text())["panel"]["verdict"] == "REPORT_ONLY"
    md = (tmp_path / "r.md").read_text()
    assert "| violence | REPORT_ONLY | nominal (the default) | 520132/2203311 | 236 |" in md
    html = (tmp_path / "r.html").read_text()
    assert html.count("<script") >= 2 and 'src="http' not in html and "<link" not in html  # plotly.js inlined
    assert "REPORT_ONLY" in html


@pytest.mark.parametrize("given", [["--missing", "-99,999"], ["--missing", "-,?"], ["--order", "-2,-1,0,1,2"]])
def test_an_option_value_starting_with_a_dash_is_a_value_not_an_unknown_option(capsys, tmp_path, given):
    # the help's own example, --missing -99,999, ended "argument --missing: expected one argument"
    codes = {"--missing": ("-99", "999") if given[1] == "-99,999" else ("-", "?"), "--order": ("", "")}[given[0]]
    lines = (S / "krippendorff_2011.csv").read_text().splitlines()
    gaps = 0
    out_lines = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        for j, c in enumerate(cells):
            if c == "NA":
                cells[j] = codes[gaps % 2]
                gaps += 1
        out_lines.append(",".join(cells))
    f = tmp_path / "k.csv"
    f.write_text("\n".join(out_lines) + "\n")
    got, out, err = run(capsys, "panel", f, *given, "--level", "nominal")
    assert (got, err) == (0, "")
    if given[0] == "--missing":
        assert "all: ENFORCE at the nominal level (chosen)  alpha=113/152 (743 permil)  spread=not measured  " \
               "raters=4" in out.splitlines()
    else:  # the order reaches the reader: numbers are ordered by value already, and it says so
        assert "note: the order given is not applied to dimension 'all': its values are numbers, ordered by value" \
            in out.splitlines()


def test_a_missing_code_read_as_a_rating_is_said_by_the_panel_command(capsys, tmp_path):
    # Krippendorff's (2011) gaps written as -99 (Stata's and SPSS's habit): the panel command
    # measured alpha 64/111 and REPORT_ONLY without a word; only inspect flagged the code
    f = tmp_path / "k99.csv"
    f.write_text((S / "krippendorff_2011.csv").read_text().replace("NA", "-99"))
    got, out, err = run(capsys, "panel", f)
    assert (got, err) == (1, "")
    assert "note: '-99' (7 cells) often means missing (a statistics package's code, a spreadsheet's dash or error) " \
           "and is read as a rating here; if it does, give --missing='-99' (or the mapping's \"missing\")" \
        in out.splitlines()
    assert "all: REPORT_ONLY at the nominal level (the default)  alpha=64/111 (576 permil)  spread=not measured  " \
           "raters=4" in out.splitlines()
    got, out, _ = run(capsys, "panel", f, "--missing=-99")
    assert got == 0 and not any("often means missing" in line for line in out.splitlines())
