"""Graded and pass/fail judges' runs in the history: recorded as judge runs with their report kind
"scored", their gates read back per judge, compared with another scored run (a threshold edit flips
the admissibility gate and says why), and refused beside a pairwise run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agreebound.app.history import CompareError, compare, gates, timeline
from agreebound.render.figure_style import caption
from agreebound.render.figures import history_timeline
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.app.pipeline import run
from agreebound.app.store import Store
from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.core.thresholds import ScoredThresholds, ThresholdSet

ROOT = Path(__file__).resolve().parents[2]


def _log(tmp_path: Path, noise: float = 0.8) -> Path:
    f = scored_frame([ScoredJudge("judge-model", noise=noise), ScoredJudge("judge-b", noise=0.5)], 200, 3, seed=21)
    p = tmp_path / "graded.csv"
    f.drop(columns=["line"]).to_csv(p, index=False)
    return p


def _record(store: Store, path: Path, t: ThresholdSet) -> object:
    r = run(JudgeRecipe(Source.at(str(path)), thresholds=t))
    assert r.kind == "scored"
    return store.record("judge", list(r.inputs), r.report, r.recipe, t.to_dict(), t.source)


def test_scored_runs_compare_per_judge(db_url, tmp_path):
    path = _log(tmp_path)
    strict = ThresholdSet(source="default")
    lenient = ThresholdSet(scored=ScoredThresholds(admissibility_margin_permil=200), source="file:lenient.toml")
    with Store.open(db_url) as store:
        a = _record(store, path, strict)
        b = _record(store, path, lenient)
        assert a.verdict == "FAIL_CALIBRATION" and b.verdict == "PASS_CALIBRATION"
        assert a.judge == "judge-model, judge-b"
        ra, rb = store.get(a.id), store.get(b.id)
    scopes = [(scope, g.name) for scope, g in gates(ra)]
    assert scopes == [("judge-model", "admissibility"), ("judge-model", "judge_alpha"),
                      ("judge-b", "admissibility"), ("judge-b", "judge_alpha")]
    c = compare(ra, rb)
    flipped = [g for g in c.gates if g.flipped]
    assert [(g.scope, g.name) for g in flipped] == [("judge-model", "admissibility")]
    assert "threshold" in flipped[0].why
    assert {v.scope: (v.before, v.after, v.direction) for v in c.verdicts}["judge-model"] == (
        "FAIL_CALIBRATION", "PASS_CALIBRATION", "better")
    assert any("admissibility margin 0.050 -> 0.200" in cause for cause in c.causes), c.causes
    rows = timeline([ra, rb])
    assert {r["gate"] for r in rows} == {"admissibility", "judge_alpha"} and len(rows) == 8
    fig = history_timeline(rows)
    assert [a.text for a in fig.layout.annotations][:2] == ["judge's alpha minus the humans' (−2 to 2)",
                                                           "judge's alpha with the humans (−1 to 1)"]
    assert fig.layout.yaxis.ticksuffix is None  # alphas, not percentages
    assert "Each line is one judge;" in caption(fig)


def test_a_scored_run_is_not_compared_with_a_pairwise_one(db_url, tmp_path):
    path = _log(tmp_path)
    with Store.open(db_url) as store:
        a = _record(store, path, ThresholdSet())
        pair = run(JudgeRecipe(Source.at(str(ROOT / "sample_data" / "judge_failing.json"))))
        b = store.record("judge", list(pair.inputs), pair.report, pair.recipe, pair.thresholds.to_dict(), "default")
        ra, rb = store.get(a.id), store.get(b.id)
    with pytest.raises(CompareError, match="graded or pass/fail judge and run .* a pairwise one"):
        compare(ra, rb)
