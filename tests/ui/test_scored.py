"""Issue 25 on the dashboard: a graded or pass/fail judge's log on the Judge page (its kind, decision,
gates, alphas, measures, figures, panel of judges and notes), its two thresholds on the What-if page
(deciding again, never measuring again), its sentence on the Overview, and names shown as text."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.ui import data, scored
from tests.support import apptest

ROOT = Path(__file__).resolve().parents[2]
GRADED = "Graded judge log: 2 judges and 3 humans score 120 answers 1-5 (synthetic)"
PASSFAIL = "Pass/fail judge with stated confidence: 300 answers, 3 humans (synthetic)"
PAIRWISE = "Support judge, 240 cases x 2 orders x 3 repetitions"


def app(page: str | None = "pages/judge.py", **query: str) -> AppTest:
    """The dashboard, on the Judge page unless told (tests.support.apptest.app)."""
    return apptest.app(page, **query)


def shown(markdown: str) -> str:
    """The text a user sees, bold marks removed too."""
    return apptest.shown(markdown, bold=False)


def said(at: AppTest) -> str:
    return apptest.said(at, bold=False)


def tables(at: AppTest) -> list[pd.DataFrame]:
    return apptest.tables(at, bold=False)


def table_with(at: AppTest, column: str, row: str, nth: int = 0) -> pd.DataFrame:
    """The ``nth`` text table with a row whose ``column`` is ``row``, indexed by that column."""
    return apptest.table_with(at, column, row, nth, bold=False)


def pick_sample(at: AppTest, label: str) -> AppTest:
    return apptest.ok(at.selectbox(key="judge_sample").set_value(label).run())


def upload(at: AppTest, name: str, payload: bytes, key: str = "bundle_upload") -> AppTest:
    return apptest.upload(at, key, name, payload)


@lru_cache(maxsize=None)
def noisy_log(name: str = "noisy-judge") -> bytes:
    """One judge 1.6 times as noisy as the 3 humans (0.8 scale points against 0.5) over 150 items:
    its alpha with the humans 0.698 clears the 0.600 floor, but it falls 0.099 short of theirs
    with each other (0.797): inadmissible at the default margin 0.050, admissible at 0.100."""
    frame = scored_frame([ScoredJudge(name, noise=0.8)], 150, 3, seed=3).drop(columns=["line"])
    return frame.to_csv(index=False).encode()


def test_the_graded_sample_opens_with_its_kind_its_decision_and_its_numbers():
    at = pick_sample(app(), GRADED)
    text = said(at)
    assert ("Graded judge (graded, 1-5, ordinal): graded judge: scores on a scale of 5 values from 1 to 5; read at the "
            "ordinal level, chosen from the data (a score on a scale is ordinal: its steps need not be equal).") in text
    assert [e.value for e in at.error] == ["FAIL_CALIBRATION (every judge must pass: the worst of 2 decides)"]
    assert "- judge-model: PASS\n- judge-b: FAIL: admissibility (alpha difference) -0.231, needs -0.050: 0.181 short; " \
           "judge alpha 0.545, needs 0.600: 0.055 short" in text
    # judge-model's alpha with the humans, as the page shows it, is the ordinal alpha of the judge-human
    # pairs (each pair's two scores on an item one unit) by the krippendorff package (a peer implementation)
    log = pd.read_csv(ROOT / "sample_data" / "graded_judge.csv").pivot(index="item", columns="rater", values="score")
    humans = ("human-1", "human-2", "human-3")
    stacked = np.array([np.concatenate([log["judge-model"].to_numpy()] * 3),
                        np.concatenate([log[h].to_numpy() for h in humans])])
    peer = krippendorff.alpha(reliability_data=stacked, level_of_measurement="ordinal")
    alphas = table_with(at, "alpha", "judge vs humans (pooled pairs)")
    assert alphas.loc["judge vs humans (pooled pairs)", "value"] == f"{peer:.3f}" == "0.763"
    assert list(alphas.loc["judge vs humans (pooled pairs)"]) == ["0.763", "[0.699, 0.826]", "120"]
    assert list(alphas.loc["humans vs humans (pooled pairs)"]) == ["0.777", "[0.714, 0.839]", "120"]
    assert list(alphas.loc["judge's minus the humans'"]) == ["-0.014", "[-0.066, 0.038]", "120"]
    assert list(alphas.loc["judge-model ~ human-1"]) == ["0.773", "", "120"]
    measures = table_with(at, "measure", "exact agreement with a human")
    assert list(measures.loc["exact agreement with a human", ["measured", "95% interval", "exact"]]) == [
        "49.2%", "[42.8, 55.5]", "177/360"]
    assert ("admissibility (alpha difference) -0.014, needs -0.050: 0.036 to spare (margin 50 permil). 95% interval "
            "-0.066 to 0.038") in text
    assert "Alpha among the 2 judges (ordinal, over the items they scored): 0.518." in text
    assert ("To drop: judge-b: it agrees with the humans least: alpha 0.545 [0.433, 0.658], below judge-model's "
            "0.763.") in text
    assert "- 600 scores read (120 items, 5 raters)" in text
    assert "Cases" not in [h.value for h in at.header]  # the pairwise view is not drawn
    assert data.MEASURE_CALLS["scored"] == 1


def test_deciding_for_one_judge_decides_only(monkeypatch):
    at = pick_sample(app(), GRADED)
    at.selectbox(key="scored_for_pick").set_value("judge-model").run()
    assert not at.exception, at.exception
    assert [s.value for s in at.success] == ["PASS_CALIBRATION for judge\\-model"] and not at.error
    assert data.MEASURE_CALLS["scored"] == 1


def test_a_bad_scores_table_says_where_and_keeps_what_was_loaded():
    at = pick_sample(app(), GRADED)
    upload(at, "bad.csv", b"item,rater,role,score\ni1,j,judge,4\ni1,h1,human,high\n")
    assert [shown(e.value) for e in at.error] == [
        "bad.csv, row 3, column 'score': expected a number or a verdict (pass/fail, yes/no, true/false, C/I/P), got "
        "'high' (the data loaded before is still shown)",
        "FAIL_CALIBRATION (every judge must pass: the worst of 2 decides)"]
    assert f"Loaded: {GRADED}: 120 items, 2 judges, 3 human raters; read as scores table." in said(at)


def test_the_margin_slider_flips_a_noisy_judge_without_measuring_again(monkeypatch):
    calls = []
    measure = scored.measure_scored_recipe

    def counted(recipe):
        calls.append(recipe.first.name)
        return measure(recipe)

    monkeypatch.setattr(scored, "measure_scored_recipe", counted)
    at = upload(app(), "noisy.csv", noisy_log())
    assert [e.value for e in at.error] == ["FAIL_CALIBRATION"]
    at.switch_page("pages/whatif.py").run()
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == ["Panel", "Judge contract", "Graded judge"]  # a tab for its sliders
    strip = said(apptest.open_whatif(at, "Graded judge"))
    assert "graded judge (graded, 1-5, ordinal): FAIL_CALIBRATION (same as under the defaults)" in strip
    assert "measured judge alpha minus the humans': noisy-judge -0.099" in strip
    at.slider(key="slider_admissibility_margin_permil").set_value(99).run()  # -0.0992... is below -0.099
    assert "graded judge (graded, 1-5, ordinal): FAIL_CALIBRATION (same as under the defaults)" in said(at)
    at.slider(key="slider_admissibility_margin_permil").set_value(100).run()
    assert not at.exception, at.exception
    strip = said(at)
    assert "graded judge (graded, 1-5, ordinal): PASS_CALIBRATION (was FAIL_CALIBRATION under the defaults)" in strip
    assert ("noisy-judge: admissibility (alpha difference) -0.099, needs -0.100: 0.001 to spare: passes (flipped from "
            "fails)") in strip
    assert "graded judge admissibility margin 0.100 (default 0.050)" in strip  # the edited-thresholds banner
    link = at.query_params["th"]
    assert json.loads(link if isinstance(link, str) else link[0])["scored"] == {"admissibility_margin_permil": 100,
                                                              "judge_alpha_floor_permil": 600}
    at.switch_page("pages/judge.py").run()
    assert [s.value for s in at.success] == ["PASS_CALIBRATION"]
    at.switch_page("pages/overview.py").run()
    assert ("Graded judge: noisy-judge (graded, 1-5, ordinal): PASS: agrees with the humans 0.698 vs their 0.797 with "
            "each other (margin 0.100, floor 0.600).") in said(at)
    assert calls == ["noisy.csv"] and data.MEASURE_CALLS["scored"] == 1


def test_a_link_carries_the_graded_judges_thresholds():
    th = json.dumps({"panel": {"alpha_floor_permil": 600, "ratio_cap_permil": 2000},
                     "scored": {"admissibility_margin_permil": 150, "judge_alpha_floor_permil": 700}})
    at = upload(app(th=th), "noisy.csv", noisy_log())
    assert [e.value for e in at.error] == ["FAIL_CALIBRATION"]  # admissible now, but alpha 0.698 is below 0.700
    assert "- noisy-judge: FAIL: judge alpha 0.698, needs 0.700: 0.002 short" in said(at)
    apptest.open_whatif(at.switch_page("pages/whatif.py"), "Graded judge")
    assert at.slider(key="slider_admissibility_margin_permil").value == 150
    assert at.slider(key="slider_judge_alpha_floor_permil").value == 700


def test_a_judge_named_with_markup_is_shown_as_text():
    at = upload(app(), "markup.csv", noisy_log("<b>x</b>"))
    text = said(at)
    assert "<b>x</b>" in [shown(s.value) for s in at.subheader]
    assert "- <b>x</b>: FAIL: admissibility (alpha difference) -0.099, needs -0.050: 0.049 short" in text
    raw = "\n".join(e.value for kind in ("markdown", "subheader", "caption") for e in getattr(at, kind))
    assert "<b>" not in raw and "\\<b\\>x\\<\\/b\\>" in raw
    at.switch_page("pages/overview.py").run()
    raw = "\n".join(m.value for m in at.markdown)
    assert "Graded judge: <b>x</b> (graded, 1-5, ordinal): FAIL" in said(at) and "<b>" not in raw


def test_the_pass_fail_sample_shows_its_stated_confidence():
    at = pick_sample(app(), PASSFAIL)
    text = said(at)
    assert "Pass/fail judge (pass/fail, nominal): pass/fail judge: every score is 0 or 1 (pass = 1)" in text
    assert [s.value for s in at.success] == ["PASS_CALIBRATION"]
    assert "Isotonic recalibration (fitted on 150 items, tried on the other 150; shown, not applied)" in text
    iso = table_with(at, "on the held-out items", "as stated")
    assert list(iso.loc["as stated"]) == ["0.125", "0.090"] and list(iso.loc["recalibrated"]) == ["0.031", "0.069"]
    assert len(at.get("plotly_chart")) == 4  # two gates' bullets, the score table, the reliability diagram


def test_the_pairwise_view_comes_back_and_the_graded_judge_stays_one_click_away():
    at = pick_sample(app(), GRADED)
    pick_sample(at, PAIRWISE)
    assert "Cases" in [h.value for h in at.header]  # the pairwise judge's page, as before
    assert f"Graded judge: {GRADED}" in [shown(c.value) for c in at.caption]  # the sidebar: still held
    at.button(key="scored_show").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == ["FAIL_CALIBRATION (every judge must pass: the worst of 2 decides)"]
    assert data.MEASURE_CALLS["scored"] == 1


def test_three_judges_get_a_tab_each_and_only_the_open_tab_is_drawn():
    """More than two judges: a tab each, the judge decided for first. Only the open tab's section
    (its gates, alphas, measures and figures) is drawn; another tab's is drawn when opened."""
    frame = scored_frame([ScoredJudge("judge-model"), ScoredJudge("model-b", noise=0.9),
                          ScoredJudge("model-c", leniency=0.6)], 120, 3, seed=5).drop(columns=["line"])
    at = upload(app(), "three.csv", frame.to_csv(index=False).encode())
    assert "Loaded: upload: three.csv: 120 items, 3 judges, 3 human raters; read as scores table." in said(at)
    labels = [t.label for t in at.tabs]  # Markdown: user text escaped
    assert [shown(t) for t in labels] == ["judge-model", "model-b", "model-c"]
    assert [shown(h.value) for h in at.subheader if "judge" in h.value or "model" in h.value] == ["judge-model"]
    at.session_state["scored_tab"] = labels[2]  # a click on model-c's tab
    at.run()
    assert not at.exception, at.exception
    assert [shown(h.value) for h in at.subheader if "judge" in h.value or "model" in h.value] == ["model-c"]


def test_judges_whose_names_shorten_alike_get_tabs_of_their_own():
    """Tab labels are shortened to 40 characters: two long names alike but for their ends would give
    one label, and a click on the second tab would open the first. The second is told apart."""
    long = "judge-" + "x" * 40
    frame = scored_frame([ScoredJudge(long + "-one"), ScoredJudge(long + "-two", noise=0.9),
                          ScoredJudge("judge-model")], 120, 3, seed=5).drop(columns=["line"])
    at = upload(app(), "alike.csv", frame.to_csv(index=False).encode())
    labels = [t.label for t in at.tabs]
    assert len(set(labels)) == 3 and labels[1] == labels[0] + " (2)" and shown(labels[2]) == "judge-model", labels
    at.session_state["scored_tab"] = labels[1]  # a click on the second long name's tab
    at.run()
    assert not at.exception, at.exception
    heads = [shown(h.value) for h in at.subheader if h.value.startswith("judge")]
    assert len(heads) == 1 and heads[0].endswith("-two"), heads


def test_a_graded_log_without_human_labels_is_described_not_0_items():
    """MT-Bench's single-answer grading log, no human labels: the banner says nothing about agreement
    is decided; the judge's own scores are shown (7 read, the count per score, each model's mean
    with its 95% interval), the same rows as the reports'."""
    log = ROOT / "tests" / "data" / "judge_logs" / "mt_bench_gpt-4_single.jsonl"
    at = upload(app(), log.name, log.read_bytes())
    assert [w.value for w in at.warning][-1].startswith(
        "INCOMPLETE: no human labels were given, so nothing about agreement is decided; the judge's own scores are "
        "described below")
    assert "The judge's own scores" in [h.value for h in at.header]
    text = said(at)
    assert "gpt-4: 7 scores, mean 6.43 [3.66, 9.20]" in text
    assert "7 scores read, no human labels to compare them with" in text
    assert "0 items with" not in text and "0 judge-human pairs" not in text
    means = table_with(at, "model", "vicuna-13b")
    assert list(means.loc["vicuna-13b"]) == ["3", "9.00", "[6.52, 10.00]"]
    assert list(means.loc["alpaca-13b"]) == ["4", "4.50", "[1.00, 8.29]"]
    counts = table_with(at, "score", "10")
    assert list(counts["count"]) == ["0", "1", "1", "0", "0", "1", "1", "1", "1", "1"]
    # issue 54, item 9: no rows of "not measured" and no empty judge-against-humans heatmap; what the rest needs
    assert "Its agreement with people needs their scores: give human labels for the same items" in text
    assert "not measured: fewer than two humans" not in text
    assert len(at.get("plotly_chart")) == 0  # the all-zero judge-against-humans heatmap is gone
