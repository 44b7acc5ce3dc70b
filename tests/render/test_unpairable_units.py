"""Units that do not enter alpha are said beside the verdict, not left out silently: alpha pairs the
ratings within a unit, so a unit with fewer than two ratings adds nothing to it. Krippendorff (2011)'s
example has 12 units, and unit 12's single value is not pairable: alpha is computed from 11.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run, run_json

ROOT = Path(__file__).resolve().parents[2]
K2011 = ROOT / "sample_data" / "krippendorff_2011.csv"
SAID = "1 of 12 units has fewer than two ratings and does not enter alpha (alpha compares the ratings within a unit)"


def test_krippendorff_2011s_single_valued_unit_is_said_on_every_report(tmp_path, capsys):
    _, report, _ = run_json(capsys, "panel", K2011)
    d = report["panel"]["dimensions"][0]
    assert (d["units"], d["alpha"]["pairable_units"], d["alpha"]["pairable"]) == (12, 11, 40)
    _, out, _ = run(capsys, "panel", K2011)
    lines = out.splitlines()
    assert lines[1].startswith("all: ENFORCE") and lines[2] == f"  units: {SAID}"
    run(capsys, "panel", K2011, "--report", tmp_path / "r.md")
    assert f"- units: {SAID}\n" in (tmp_path / "r.md").read_text()
    run(capsys, "panel", K2011, "--report", tmp_path / "r.html")
    assert SAID in (tmp_path / "r.html").read_text()


def test_units_without_any_rating_count_too_and_read_in_the_plural(tmp_path, capsys):
    f = tmp_path / "z.csv"
    f.write_bytes(b"unit,a,b\nu1,1,1\nu2,NA,NA\nu3,2,2\nu4,1,NA\n")  # u2: no rating; u4: one
    _, out, _ = run(capsys, "panel", f)
    assert ("  units: 2 of 4 units have fewer than two ratings and do not enter alpha (alpha compares the ratings "
            "within a unit)") in out.splitlines()


def test_a_panel_whose_units_all_enter_alpha_says_nothing_more(tmp_path, capsys):
    _, report, _ = run_json(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv")
    for d in report["panel"]["dimensions"]:
        assert d["alpha"]["pairable_units"] == d["units"]
    _, out, _ = run(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv")
    assert "enter alpha" not in out
    run(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv", "--report", tmp_path / "r.md")
    assert "enter alpha" not in (tmp_path / "r.md").read_text()
