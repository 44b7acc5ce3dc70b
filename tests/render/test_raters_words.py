"""A study of raters reads "raters" on every report (issue 54, item 4): the command line, the JSON's
``rater_word``, Markdown and HTML; the detector panel samples still read "detectors"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agreebound.cli.main import main

S = Path(__file__).resolve().parents[2] / "sample_data"


def _reports(tmp_path, sample: str) -> tuple[str, dict, str, str]:
    out = {ext: tmp_path / f"{sample}.{ext}" for ext in ("json", "md", "html")}
    for path in out.values():
        main(["panel", str(S / f"{sample}.csv"), "--report", str(path)])
    return "", json.loads(out["json"].read_text()), out["md"].read_text(), out["html"].read_text()


def test_krippendorff_2011_reads_raters_everywhere(tmp_path, capsys):
    main(["panel", str(S / "krippendorff_2011.csv")])
    text = capsys.readouterr().out
    _, report, markdown, html = _reports(tmp_path, "krippendorff_2011")
    capsys.readouterr()
    (dim,) = report["panel"]["dimensions"]
    assert dim["rater_word"] == "rater" and dim["ndet"] == 4 and dim["humans"] == []  # the old keys kept
    assert "raters=4" in text and "detector" not in text
    assert "| spread | raters |" in markdown and "detector" not in markdown.lower()
    assert ">independent raters</th>" in html and "rater spread (max / min rate)" in html
    assert "detector" not in html.lower().replace("detector panel", "")


@pytest.mark.parametrize("sample, refused", [("detector_panel", False), ("single_detector", True)])
def test_the_detector_samples_still_read_detectors(tmp_path, capsys, sample, refused):
    main(["panel", str(S / f"{sample}.csv")])
    text = capsys.readouterr().out
    _, report, markdown, html = _reports(tmp_path, sample)
    assert {d["rater_word"] for d in report["panel"]["dimensions"]} == {"detector"}
    assert "detectors=" in text and "| spread | detectors |" in markdown
    assert ">independent detectors</th>" in html and "detector spread (max / min rate)" in html
    if refused:
        assert "fewer than two independent detectors" in html
