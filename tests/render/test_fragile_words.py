"""Every text a person or a CI log reads says how sure the gating number is (issue 54, item 2): the CLI
text, the Markdown and the HTML give alpha's 95% interval and say "fragile" where the interval holds
the floor, with what would decide it; a judge rate's interval says "fragile" too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agreebound.app.synthetic import binary_panel
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "sample_data" / "krippendorff_2011.csv"  # 11 units: ENFORCE, interval [0.415, 1.000]


@pytest.fixture(scope="module")
def straddling(tmp_path_factory) -> Path:
    """400 units, three detectors, alpha 0.589 just under the floor: REPORT_ONLY, interval [0.518, 0.654]."""
    path = tmp_path_factory.mktemp("fragile") / "straddling.csv"
    binary_panel(400, {"d1": 120, "d2": 130, "d3": 125}, 0.59, seed=3, human=None).to_csv(path, index=False)
    return path


def test_the_cli_text_says_the_interval_and_fragile_on_a_small_enforce_panel(capsys):
    code, out, _ = run(capsys, "panel", SMALL)
    assert code == 0 and "all: ENFORCE" in out
    assert ("  alpha 0.743, 95% interval [0.415, 1.000]: fragile, the interval holds the floor 0.600 (another sample of "
            "the same size could reach the other verdict); about 78 more units would decide it, if alpha holds") in out


def test_the_cli_text_says_it_on_a_report_only_panel_whose_interval_straddles_the_floor(capsys, straddling):
    code, out, _ = run(capsys, "panel", straddling)
    assert code == 1 and "all: REPORT_ONLY" in out
    assert "  alpha 0.589, 95% interval [0.518, 0.654]: fragile, the interval holds the floor 0.600" in out
    assert "more units would decide it, if alpha holds" in out
    report = json.loads(run(capsys, "panel", straddling, "--json")[1])
    assert report["panel"]["dimensions"][0]["alpha"]["fragile"] is True


def test_a_clear_verdict_says_where_its_whole_interval_lies(capsys):
    code, out, _ = run(capsys, "panel", ROOT / "sample_data" / "detector_panel.csv")
    assert ("  alpha 0.236, 95% interval [0.179, 0.295]: the whole interval lies on one side of the floor 0.600 (not "
            "fragile)") in out
    assert "  alpha 0.779, 95% interval [0.733, 0.821]: the whole interval lies on one side of the floor 0.600" in out
    assert ": fragile" not in out


@pytest.mark.parametrize("panel", ["small", "straddling"])
def test_markdown_and_html_say_fragile_with_the_interval(capsys, tmp_path, straddling, panel):
    source = SMALL if panel == "small" else straddling
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    run(capsys, "panel", source, "--report", md)
    run(capsys, "panel", source, "--report", page)
    text, html = md.read_text(), page.read_text()
    interval = "[0.415, 1.000]" if panel == "small" else "[0.518, 0.654]"
    assert f"- **How sure**: alpha {'0.743' if panel == 'small' else '0.589'}, 95% interval {interval}: fragile, the " \
           "interval holds the floor 0.600" in text
    assert "**fragile** |" in text  # beside the interval in the summary table
    assert "<strong>fragile</strong>" in html and f"95% interval {interval}: fragile, the interval holds the floor" in html
    assert "more units would decide it" in html


def test_a_judge_rates_interval_says_fragile(capsys, tmp_path):
    code, out, _ = run(capsys, "calibrate", ROOT / "sample_data" / "judge_illustrative.json")
    assert ("  position_flip: 0/4 = 0 bps (<= 500): pass\n    95% interval [0.00%, 48.99%] (4 cases, 4 observations; "
            "design effect 1): fragile, it holds the threshold") in out
    md = tmp_path / "j.md"
    run(capsys, "calibrate", ROOT / "sample_data" / "judge_illustrative.json", "--report", md)
    assert "[0.00%, 48.99%] (4 cases, 4 observations) **fragile**" in md.read_text()
