"""A spreadsheet's summary row under the table ("Mean", "Total", "SD") read as a unit is said: its
cells are averages or sums of the units above, and alpha changes with them. Here the four units
alone are whole numbers, read at the nominal level: 25/47, REPORT_ONLY. With a "Mean" row their
decimals make the default level interval: 604/835, ENFORCE. The values are kept (only the user knows
whether "Mean" is a unit), and the note says it."""

from __future__ import annotations

from tests.support.cli import run, run_json

ROWS = "unit,a,b,c\nu1,1,1,2\nu2,2,2,2\nu3,3,3,3\nu4,1,2,1\n"
SAID = ("unit 'Mean' is named like a summary row (a mean, a total): its values are read as a unit's ratings and "
        "change alpha; if it summarises the rows above, remove it from the file")


def test_a_mean_row_under_the_table_is_said_and_kept(tmp_path, capsys):
    f = tmp_path / "sheet.csv"
    f.write_text(ROWS + "Mean,1.75,2,2\n")
    _, out, _ = run(capsys, "panel", f)
    assert f"note: {SAID}" in out.splitlines()
    _, report, _ = run_json(capsys, "panel", f)
    d = report["panel"]["dimensions"][0]
    assert d["units"] == 5 and d["alpha"]["exact"] == "604/835"  # kept: the note says, the user decides
    (tmp_path / "plain.csv").write_text(ROWS)
    _, plain, _ = run_json(capsys, "panel", tmp_path / "plain.csv")
    p = plain["panel"]["dimensions"][0]
    assert (p["alpha"]["exact"], p["verdict"], d["verdict"]) == ("25/47", "REPORT_ONLY", "ENFORCE")


def test_several_summary_rows_are_named_together(tmp_path, capsys):
    f = tmp_path / "sheet.csv"
    f.write_text(ROWS + "Total:,7,8,8\nSD,0.96,0.58,0.82\n")
    _, out, _ = run(capsys, "panel", f)
    assert ("note: units 'Total:', 'SD' are named like a summary row (a mean, a total): their values are read as a "
            "unit's ratings and change alpha; if they summarise the rows above, remove them from the file") in out


def test_a_unit_named_so_above_the_tables_end_is_not_flagged(tmp_path, capsys):
    f = tmp_path / "sheet.csv"
    f.write_text("unit,a,b\ntotal,1,1\n" + "".join(f"u{i},{i % 3},{i % 3}\n" for i in range(8)))
    _, out, _ = run(capsys, "panel", f)
    assert "summary row" not in out
