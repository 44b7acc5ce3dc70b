"""The one view model (agreebound.render.view): decided once, serialised as the JSON report, read by
every renderer, and read back from a stored report with the same gates."""

from __future__ import annotations

import ast
from pathlib import Path

import jsonschema
import pytest

import agreebound.panel.decide as panel_decide
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, Source
from agreebound.app.pipeline import run
from agreebound.app.resources import schema_text
from agreebound.render.view import View

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_data"
RENDER = ROOT / "src" / "agreebound" / "render"


def _panel(name: str = "detector_panel.csv", **kw):
    return run(PanelRecipe(ratings=(Source.at(str(SAMPLES / name)),), **kw))


def _judge(name: str = "judge_failing.json"):
    return run(JudgeRecipe(first=Source.at(str(SAMPLES / name))))


def _gate_facts(gates):
    return [(scope, g.name, g.passed, g.state, g.exact, g.threshold, g.fragile) for scope, g in gates]


@pytest.mark.parametrize("make", [_panel, lambda: _panel("krippendorff_2011.csv"), _judge,
                                  lambda: _judge("judge_illustrative.json")])
def test_a_stored_view_reads_back_the_gates_the_live_view_decided(make):
    report = make()
    live, stored = report.view, View.stored(report.report)
    assert live.live and not stored.live
    assert stored.verdict == live.verdict and stored.exit_code == report.exit_code
    assert _gate_facts(stored.gates()) == _gate_facts(live.gates())
    assert stored.to_json() == live.to_json() == report.to_json()


def test_the_json_is_the_views_serialisation_and_checks_against_the_schema():
    import json

    report = _panel()
    schema = json.loads(schema_text())
    jsonschema.validate(json.loads(report.view.to_json()), schema)
    assert report.report is report.view.report


def test_a_panel_run_decides_each_dimension_once(monkeypatch):
    """Every renderer reads the decisions the view holds: a run and all its renderings call the
    panel's decide once per dimension (and once per compared level, which decide_panel asks)."""
    calls = []
    real = panel_decide.decide_panel

    def counting(m, *a, **k):
        calls.append(m.dimension)
        return real(m, *a, **k)

    monkeypatch.setattr(panel_decide, "decide_panel", counting)
    report = _panel()
    report.to_json(), report.view.markdown(), report.html(), report.junit()
    assert sorted(calls) == sorted(report.measurements)  # one decision per dimension, for every rendering


def _calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "decide" or name.startswith("decide_"):
                names.append(f"{path.name}:{node.lineno} {name}")
    return names


def test_render_never_calls_decide():
    """The import-linter contract keeps render from importing the decide modules; this keeps it from
    calling any decide function that another module re-exports (decide_scored, decide_panel)."""
    assert [c for p in sorted(RENDER.glob("*.py")) for c in _calls(p)] == []


def test_the_check_finds_a_planted_call(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from agreebound.scored.audit import decide_scored\ndecide_scored(m, t)\n")
    assert _calls(planted) == ["planted.py:2 decide_scored"]  # decided_for_words, a word helper, is no decide


def test_the_html_charts_carry_the_gates_own_captions():
    """Each chart's caption is the figure's own sentence with the numbers (render.figure_style.caption),
    not the generic fallback."""
    page = _panel().html()
    assert "The alpha (nominal) gate fails: alpha (nominal) 0.236, needs 0.600: 0.364 short" in page


def test_a_stored_view_says_it_cannot_draw_html_or_junit():
    stored = View.stored(_judge().report)
    for draw in (stored.html, stored.junit):
        with pytest.raises(ValueError, match="a stored view holds its report only"):
            draw()
