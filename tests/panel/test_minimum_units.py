"""An optional panel threshold, as data: minimum_units holds a small panel to REPORT_ONLY, and is off
by default so the seed's rule is unchanged."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

from agreebound.app.recipes import PanelRecipe, Source
from agreebound.app.pipeline import run
from agreebound.app.resources import schema_text
from agreebound.cli.main import main
from agreebound.core.thresholds import (DEFAULT, OPTIONAL_PANEL_GATES, PanelThresholds, ThresholdError, ThresholdSet,
                                        edits, threshold_set_from_dict)
from agreebound.render.view import View

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
#: 8 units, 3 raters who agree on all but one: alpha 0.9 would enforce under the seed's rule
SMALL = "unit,r1,r2,r3\n" + "".join(f"u{i},{i % 2},{i % 2},{i % 2 if i != 3 else 1 - i % 2}\n" for i in range(8))


def _run(text: str, t: ThresholdSet, tmp_path: Path):
    f = tmp_path / "small.csv"
    f.write_text(text)
    return run(PanelRecipe(ratings=(Source.at(str(f)),), thresholds=t))


def test_off_by_default_the_seeds_rule_and_the_report_are_unchanged(tmp_path):
    assert ("units", "minimum_units", "min") in OPTIONAL_PANEL_GATES
    assert PanelThresholds().minimum_units is None
    report = _run(SMALL, DEFAULT, tmp_path)
    assert report.verdict == "ENFORCE"
    dim = report.report["panel"]["dimensions"][0]
    assert "optional_gates" not in dim and "minimum_units" not in report.report["thresholds"]["panel"]
    assert [g.name for g in report.decisions[dim["dimension"]].gates] == ["detectors", "alpha", "spread"]


def test_a_panel_of_8_units_is_held_to_report_only_by_data(tmp_path):
    t = ThresholdSet(PanelThresholds(minimum_units=20), source="file:t.toml")
    report = _run(SMALL, t, tmp_path)
    assert report.verdict == "REPORT_ONLY" and report.exit_code == 1
    dim = report.report["panel"]["dimensions"][0]
    assert dim["units"] == 8
    assert dim["optional_gates"] == [{"name": "units", "kind": "min", "threshold_field": "minimum_units",
                                      "exact": "8", "threshold": "20", "passed": False, "state": "measured"}]
    assert [r["message"] for r in dim["reasons"]] == ["8 pairable units: below the minimum of 20"]
    assert report.report["thresholds"]["panel"]["minimum_units"] == 20
    jsonschema.validate(report.report, json.loads(schema_text()))
    # the seed knows no such gate: its verdict stays, and the report says they differ
    assert dim["seed_verdict"] == "ENFORCE" and dim["seed_disagrees"] is True
    # every renderer says it: Markdown, HTML, JUnit; a stored run reads the gate back
    assert "- 8 pairable units\\: below the minimum of 20" in report.view.markdown().splitlines()
    assert "8 pairable units: below the minimum of 20" in report.html()
    assert '<failure message="units 8, needs 20: 12 short" type="gate failed">' in report.junit()
    stored = dict((g.name, g) for _, g in View.stored(report.report).gates())
    assert stored["units"].passed is False and stored["units"].exact == Fraction(8)


def test_enough_units_pass_and_the_gate_is_said(tmp_path):
    report = _run(SMALL, ThresholdSet(PanelThresholds(minimum_units=8)), tmp_path)
    assert report.verdict == "ENFORCE"
    gate = report.report["panel"]["dimensions"][0]["optional_gates"][0]
    assert (gate["exact"], gate["passed"]) == ("8", True)


def test_the_threshold_is_data_with_its_one_legal_range():
    assert threshold_set_from_dict({"panel": {"minimum_units": 30}}, "file").panel.minimum_units == 30
    with pytest.raises(ThresholdError) as e:
        threshold_set_from_dict({"panel": {"minimum_units": 1}}, "file")
    assert e.value.key == "panel.minimum_units"
    assert "minimum_units must be between 2 and 1000000000 (units), got 1" in str(e.value)
    assert edits(ThresholdSet(PanelThresholds(minimum_units=30)), None) == ["minimum units 30 (default off)"]
    assert ThresholdSet(PanelThresholds(minimum_units=30)).to_dict()["panel"]["minimum_units"] == 30
    assert "minimum_units" not in DEFAULT.to_dict()["panel"]


def test_the_cli_reads_it_from_a_thresholds_file(tmp_path, capsys):
    (tmp_path / "small.csv").write_text(SMALL)
    (tmp_path / "t.toml").write_text("[panel]\nminimum_units = 20\n")
    code = main(["panel", str(tmp_path / "small.csv"), "--thresholds", str(tmp_path / "t.toml")])
    out = capsys.readouterr().out
    assert code == 1 and "REPORT_ONLY" in out and "8 pairable units: below the minimum of 20" in out


def test_the_verdict_at_every_level_reads_the_optional_gate_too(tmp_path):
    """A passing optional gate changes no level's verdict: the levels are decided with it measured."""
    ratings = SAMPLES / "krippendorff_2011.csv"
    plain = run(PanelRecipe(ratings=(Source.at(str(ratings)),), level="interval"))
    gated = run(PanelRecipe(ratings=(Source.at(str(ratings)),), level="interval",
                            thresholds=ThresholdSet(PanelThresholds(minimum_units=2))))
    levels = [d["level"]["verdict_at_levels"] for d in (r.report["panel"]["dimensions"][0] for r in (plain, gated))]
    assert levels[0] == levels[1] and levels[1]["interval"] == gated.verdict == "ENFORCE"


def test_every_report_names_the_gate_and_its_threshold(tmp_path):
    report = _run(SMALL, ThresholdSet(PanelThresholds(minimum_units=8)), tmp_path)  # passes: said all the same
    assert "(alpha floor 600 permil, spread cap 2000 permil, minimum units 8)." in report.view.markdown()
    page = report.html()
    assert "minimum units 8" in page and "at least 8 (minimum units)" in page


def test_compare_says_a_threshold_turned_on_or_off(tmp_path, capsys):
    from tests.support.cli import recorded_id
    from tests.support.cli import run as cli

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = tmp_path / "k.csv"
    data.write_bytes((SAMPLES / "krippendorff_2011.csv").read_bytes())
    (tmp_path / "t.toml").write_text("[panel]\nminimum_units = 12\n")
    _, out, _ = cli(capsys, "panel", data, "--record", "--db", db)
    a = recorded_id(out)
    _, out, _ = cli(capsys, "panel", data, "--thresholds", tmp_path / "t.toml", "--record", "--db", db)
    b = recorded_id(out)
    _, forward, _ = cli(capsys, "compare", a, b, "--db", db)
    _, back, _ = cli(capsys, "compare", b, a, "--db", db)
    assert "minimum units off -> 12" in forward and "minimum units 12 -> off" in back
