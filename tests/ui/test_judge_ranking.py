"""The Judge page's ranking section (agreebound.ui.judge_ranking) drawn by itself through AppTest: the
sentence, the table and the figure for the sample MT-Bench log, a hostile model name shown as text,
the sentence that says why there is no ranking; the gate's controls (two pickers and a number)
deciding the gate and handing it to the report; the prediction-powered ranking beside the judge's
when human labels exist, and why there is none on the MT-Bench sample."""

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


def _labelled_section() -> None:
    # a FastChat log of 160 cases over 6 models with human judgments on 100 (tests.support.fastchat_log);
    # the report block the downloads would store, shown as JSON so the test reads what the page hands them
    import json
    import os
    from pathlib import Path

    import streamlit as st

    from agreebound.app.pipeline import parse_judge_log
    from agreebound.ui import judge_ranking

    log, humans = Path(os.environ["RANKING_TEST_LOG"]), Path(os.environ["RANKING_TEST_HUMANS"])
    bundle = parse_judge_log(log.name, log.read_bytes(), (humans.name, humans.read_bytes()))
    judge_ranking.section(bundle)
    st.code(json.dumps(judge_ranking.report_block(bundle)), language="json")


def _run(script, monkeypatch, log=None, humans=None) -> AppTest:
    from pathlib import Path

    log = log or Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    monkeypatch.setenv("RANKING_TEST_LOG", str(log))
    if humans is not None:
        monkeypatch.setenv("RANKING_TEST_HUMANS", str(humans))
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


def _labelled(monkeypatch, tmp_path) -> AppTest:
    from tests.support.fastchat_log import fastchat_log, human_judgments, to_jsonl

    records = fastchat_log(seed=7)
    log, humans = tmp_path / "gpt-4_pair.jsonl", tmp_path / "human_judgments.jsonl"
    log.write_bytes(to_jsonl(records))
    humans.write_bytes(human_judgments(records))
    return _run(_labelled_section, monkeypatch, log, humans)


def _block(at: AppTest) -> dict:
    import json

    return json.loads(at.code[0].value)


def test_the_gate_controls_decide_the_gate_and_hand_it_to_the_report(monkeypatch, tmp_path):
    from agreebound.ui.state import K

    at = _labelled(monkeypatch, tmp_path)
    assert [h.value for h in at.subheader] == ["Does a model beat a baseline?", "Corrected by the human labels"]
    model, baseline = at.selectbox(key=K.RANK_MODEL), at.selectbox(key=K.RANK_BASELINE)
    assert model.value == "(no gate)" and model.options[1:] == ["llama-13b", "gpt-4", "gpt-3.5-turbo", "claude-v1",
                                                                 "vicuna-13b-v1.3", "alpaca-13b"]
    assert baseline.value == "alpaca-13b" and at.number_input(key=K.RANK_MARGIN).value == 0
    assert _block(at)["gate"] is None and "beats alpaca-13b" not in said(at)

    model.set_value("gpt-4")
    baseline.set_value("claude-v1")
    at.number_input(key=K.RANK_MARGIN).set_value(10)
    ok(at.run())
    text = said(at)
    assert ("passes, fragile: gpt-4 beats claude-v1 by at least 10 points: passes: gpt-4 leads claude-v1 by +30.4 points "
            "[-69.5, +136.9] (a win probability of 54.4%). Fragile: the difference's 95% interval holds the margin of "
            "10.0 points, so another sample could reach the other result.") in said(at, bold=False)
    assert "The gate is about the models, not the judge: it never changes the judge's decision." in text
    gate = _block(at)["gate"]
    assert (gate["model"], gate["baseline"], gate["margin"], gate["status"]) == ("gpt-4", "claude-v1", 10,
                                                                                   "passes, fragile")

    at.number_input(key=K.RANK_MARGIN).set_value(200)  # moving the margin decides again
    ok(at.run())
    assert "fails: gpt-4 beats claude-v1 by at least 200 points: fails: gpt-4 leads claude-v1 by +30.4" in said(at, False)
    assert _block(at)["gate"]["passed"] is False

    at.selectbox(key=K.RANK_BASELINE).set_value("gpt-4")
    ok(at.run())
    assert "No gate: the model and the baseline must differ." in said(at)
    assert _block(at)["gate"] is None


def test_the_corrected_ranking_beside_the_judge_s(monkeypatch, tmp_path):
    at = _labelled(monkeypatch, tmp_path)
    text = said(at)
    assert ("With the humans' labels on 99 of 159 cases (lambda 0.17), the ratings move by at most 183.7 points "
            "(llama-13b: 1177.5 by the judge alone, 993.8 corrected), both with alpaca-13b at 1000; the order changes: "
            "llama-13b > gpt-4 > gpt-3.5-turbo > claude-v1 > vicuna-13b-v1.3 > alpaca-13b by the judge alone, "
            "gpt-4 > claude-v1 > gpt-3.5-turbo > alpaca-13b > llama-13b > vicuna-13b-v1.3 corrected.") in text
    t = table_with(at, "model", "alpaca-13b", nth=1)  # the second table: the corrected one
    assert list(t.index) == ["gpt-4", "claude-v1", "gpt-3.5-turbo", "alpaca-13b", "llama-13b", "vicuna-13b-v1.3"]
    assert t.loc["llama-13b", "corrected"] == "993.8" and t.loc["llama-13b", "judge alone"] == "1177.5"
    assert t.loc["llama-13b", "moved"] == "-183.7" and t.loc["alpaca-13b", "95% interval"] == "[1000.0, 1000.0]"
    assert "Anchored at alpaca-13b = 1000, the first model in name order" in text
    assert _block(at)["ppi"]["anchor"] == "alpaca-13b"


def test_no_corrected_ranking_on_the_mt_bench_sample_says_why(monkeypatch):
    from pathlib import Path

    humans = Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs" / "mt_bench_human_judgments.jsonl"
    at = _run(_labelled_section, monkeypatch, humans=humans)
    assert ("No prediction-powered ranking: some models are never compared with the anchor, even through other "
            "models.") in said(at)
    assert _block(at)["ppi"] == {"unavailable": "No prediction-powered ranking: some models are never compared with "
                                                "the anchor, even through other models."}
