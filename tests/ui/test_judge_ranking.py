"""The Judge page's ranking section (agreebound.ui.judge_ranking) drawn by itself through AppTest: the
sentence, the table and the figure for the sample MT-Bench log, a hostile model name shown as text,
and the sentence that says why there is no ranking."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.support.apptest import ok, said, table_with

TIMEOUT = 120


def _sample_section() -> None:
    import os
    from pathlib import Path

    from agreebound.app.pipeline import parse_judge_log
    from agreebound.ui import judge_ranking

    log = Path(os.environ["RANKING_TEST_LOG"])
    judge_ranking.section(parse_judge_log(log.name, log.read_bytes()))


def _hostile_section() -> None:
    # the log readers make model names identifiers; other inputs (a mapping, a future reader) need not:
    # the section only reads bundle.observations
    from types import SimpleNamespace

    import pandas as pd

    from agreebound.ui import judge_ranking

    name = "**bold** [x](http://e.test) <b>"
    obs = pd.DataFrame({"case_id": [f"c{i}" for i in range(6)], "selected_candidate": ["a", "a", "b", "tie", "a", "b"],
                        "candidate_a_generator": [name] * 6, "candidate_b_generator": ["plain"] * 6})
    judge_ranking.section(SimpleNamespace(observations=obs))


def _no_ranking_section() -> None:
    from types import SimpleNamespace

    import pandas as pd

    from agreebound.ui import judge_ranking

    obs = pd.DataFrame({"case_id": ["c1", "c2"], "selected_candidate": ["a", "a"],
                        "candidate_a_generator": ["m1", "m1"], "candidate_b_generator": ["m2", "m2"]})
    judge_ranking.section(SimpleNamespace(observations=obs))


def _run(script, monkeypatch) -> AppTest:
    from pathlib import Path

    log = Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    monkeypatch.setenv("RANKING_TEST_LOG", str(log))
    return ok(AppTest.from_function(script, default_timeout=TIMEOUT).run())


def test_the_ranking_section_on_the_sample_log(monkeypatch):
    at = _run(_sample_section, monkeypatch)
    assert [h.value for h in at.header] == ["Ranking of the candidates' models"]
    text = said(at)
    assert ("5 models in 1 group not separable from each other (rule: adjacent models share a group unless the "
            "bootstrap 95% interval of their rating difference lies above 0 (not adjusted for the several "
            "comparisons)). The comparisons form 2 separate sets of models: ratings compare only within a set.") in text
    t = table_with(at, "model", "gpt-3.5-turbo")
    assert list(t.index) == ["gpt-3.5-turbo", "gpt-4", "vicuna-13b-v1.3", "claude-v1", "llama-13b"]
    assert t.loc["gpt-3.5-turbo", "rating"] == "1038.9" and t.loc["llama-13b", "rank"] == "5"
    assert set(t["tie group"]) == {"1"}
    assert len(at.get("plotly_chart")) == 1
    assert "1,000 draws, seed 0" in text and "over cases (a case's judgments together)" in text


def test_a_model_name_is_shown_as_text(monkeypatch):
    at = _run(_hostile_section, monkeypatch)
    t = table_with(at, "rank", "1")
    assert list(t["model"]) == ["**bold** [x](http://e.test) <b>", "plain"]
    spec = at.get("plotly_chart")[0].proto.spec
    assert "<b>" not in spec and "&lt;b&gt;" in spec  # the figure's label is escaped


def test_no_ranking_says_why(monkeypatch):
    at = _run(_no_ranking_section, monkeypatch)
    assert "No ranking: m1 won every comparison with m2 (no finite ratings)." in said(at)
    assert not at.get("plotly_chart")
