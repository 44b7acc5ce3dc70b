"""Rows that gave no rating are said, not dropped silently: a panel read one row per rating whose
value is empty or a missing-value code counts in "rows read" but gives no rating, and every
surface that says what was read (the CLI's text, the Markdown and HTML reports, the Panel page's
caption, tests/ui/test_said_plainly.py) says how many such rows there were. Files without them read as before.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run, run_json

ROOT = Path(__file__).resolve().parents[2]
# 8 rows, one rating each; u2/b is empty and u3/a is "NA" (a missing-value code read by default)
MISSING = b"unit,rater,value\nu1,a,1\nu1,b,1\nu2,a,2\nu2,b,\nu3,a,NA\nu3,b,3\nu4,a,1\nu4,b,2\n"
SAID = "8 rows read (rows 2-9); 2 of them have no value (an empty cell or a missing-value code) and gave no rating"


def test_the_cli_counts_the_rows_without_a_value(tmp_path, capsys):
    f = tmp_path / "m.csv"
    f.write_bytes(MISSING)
    code, report, _ = run_json(capsys, "panel", f)
    assert report["read"]["rows"]["count"] == 8 and report["panel"]["dimensions"][0]["ratings"] == 6
    assert report["read"]["rows"]["unrated"] == 2
    code, out, _ = run(capsys, "panel", f)
    assert out.splitlines()[0] == f"read: csv, {SAID}, one row per rating; unit unit, rater rater, value value"
    run(capsys, "panel", f, "--report", tmp_path / "r.md")
    assert f"Read as csv: {SAID}." in (tmp_path / "r.md").read_text()
    run(capsys, "panel", f, "--report", tmp_path / "r.html")
    assert f"Read as csv, long layout, {SAID}." in (tmp_path / "r.html").read_text()


def test_one_row_without_a_value_reads_in_the_singular(tmp_path, capsys):
    f = tmp_path / "one.csv"
    f.write_bytes(MISSING.replace(b"u3,a,NA", b"u3,a,2"))
    _, out, _ = run(capsys, "panel", f)
    assert "8 rows read (rows 2-9); 1 of them has no value (an empty cell or a missing-value code)" in out


def test_a_file_without_missing_values_reads_as_before(capsys):
    _, out, _ = run(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv")
    assert "no value" not in out.splitlines()[0]
    # one dimension shown of three: the other dimensions' rows gave ratings, so none is "without a value"
    _, report, _ = run_json(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv", "--dimension", "violence")
    assert "unrated" not in report["read"]["rows"] and report["read"]["rows"]["count"] == 7032
    _, out, _ = run(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv", "--dimension", "violence")
    assert out.splitlines()[0].startswith("read: csv, 7,032 rows read (rows 2-7033), one row per rating")
    # a wide file's empty cells are a sparse design, not rows left out: said as before
    _, out, _ = run(capsys, "panel", ROOT / "sample_data" / "krippendorff_2011.csv")
    assert out.splitlines()[0].startswith("read: csv, 12 rows read (rows 2-13), one row per unit")

