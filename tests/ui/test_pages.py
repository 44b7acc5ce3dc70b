"""Every page through streamlit's AppTest: the samples' verdicts, uploads, sliders, reset, the URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agreebound.ui import data
from tests.support.apptest import SECTIONS, app, ok, open_panel, open_whatif, plain, shown, tables, texts, upload

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SAMPLES = ROOT / "sample_data"
BAD = ROOT / "tests" / "data" / "bad"


def upload_ratings(at: AppTest, name: str, data: bytes, measure: bool = True) -> AppTest:
    """Upload a ratings file: the mapping preview opens; ``measure`` presses Measure with its defaults."""
    upload(at, "ratings_upload", name, data)
    if measure and at.session_state["pending"] is not None and not at.button(key="pv_measure").disabled:
        ok(at.button(key="pv_measure").click().run())
    return at


def test_overview_shows_every_sample_verdict():
    at = app()
    # each dimension's verdict is one box, the Panel page's: verdict and level, why, how sure (issue 54)
    heads = [w.split("  \n")[0] for w in texts(at.warning)]
    assert heads == ["REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce."] * 2
    assert [w.split("  \n")[0] for w in texts(at.success)] == [
        "ENFORCE at the nominal level (the default): reliable enough to act on."]
    assert texts(at.error) == ["FAIL_CALIBRATION"]
    body = " ".join(texts(at.markdown))
    # one sentence per domain, at the top
    assert texts(at.markdown)[:4] == [":gray-badge[Sample data]",
                                      "**Panel (sample data): 1 of 3 dimensions may be enforced at the nominal level "
                                      "(the default).**",
                                      "violence: REPORT_ONLY · insult: REPORT_ONLY · sexual: ENFORCE",
                                      "**Judge (sample data): fails 4 of 5 gates.**"]
    assert [h.value for h in at.subheader] == ["violence", "insult", "sexual"]
    # each gate: measured value against its threshold, the margin in words, same units everywhere
    assert texts(at.warning)[0].split("  \n")[1:] == [
        "**Why**: alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over.",
        "**How sure**: alpha's 95% interval, 0.179 to 0.295, lies on one side of the floor 0.600"]
    assert "Why: alpha" not in body  # no second "Why" outside the box
    assert "**spread** passes: spread 1.45x, cap 2.00x: 0.55x to spare (1450 permil, cap 2000 permil)" in body
    assert ("**alpha (nominal)** fails: alpha (nominal) 0.236, needs 0.600: 0.364 short (236 permil, floor 600 "
            "permil). 95% interval") in body
    # the judge's failing gates with their limits
    assert "position flip 11.2%, limit 5.0%: 6.2 points over" in body
    # exact fractions and content ids only behind the expander
    assert "520132/2203311" not in body
    (exact,) = [e for e in at.expander if e.label == "Exact values"]
    assert "520132/2203311" in exact.dataframe[0].value["exact"].tolist()
    # the bullet charts a click away in each box, drawn only once opened: none on the first view
    sections = [e.label for e in at.expander if e.label != "Exact values"]
    assert sections == ["Charts: each gate above, its value and 95% interval against the threshold"] * 4
    assert not at.get("plotly_chart")
    words = texts(at.markdown)
    for key in ("ov_charts_0", "ov_charts_1", "ov_charts_2", "ov_charts_judge"):
        at.session_state[key] = True
    ok(at.run())
    assert len(at.get("plotly_chart")) == 3 * 2 + 5  # alpha and spread per dimension, five judge gates
    assert texts(at.markdown) == words  # the words stay as they were


def test_overview_of_a_sample_without_rates_says_spread_not_checked():
    at = app()
    at.sidebar  # noqa: B018
    at.switch_page("pages/panel.py").run()
    at.selectbox(key="panel_sample").set_value("Krippendorff (2011) reliability data").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    body = " ".join(texts(at.markdown))
    assert "**Panel (sample data): may be enforced at the nominal level (the default); spread not checked.**" in body
    (box,) = texts(at.success)
    assert box.startswith("ENFORCE at the nominal level (the default): reliable enough to act on.  \n**Why**: 4 "
                          "independent raters, needs 2; alpha (nominal) 0.743, needs 0.600: 0.143 to spare; spread not "
                          "measured (it does not block).  \n**How sure**: fragile: alpha's 95% interval 0.415 to 1.000 "
                          "includes the floor 0.600")
    assert not any(w.startswith("**Fragile**") for w in texts(at.warning))  # said in the box, not a second box
    assert "spread within the cap" not in body


def test_a_four_case_judge_that_passes_is_marked_fragile():
    at = app("pages/judge.py")
    at.selectbox(key="judge_sample").set_value("The seed's illustrative snapshot, 4 cases").run()
    at.switch_page("pages/overview.py").run()
    assert "PASS_CALIBRATION" in texts(at.success)
    assert ("**Judge (sample data): passes all 5 gates.** Fragile: the 95% intervals of 5 of 5 gates include their thresholds "
            "(4 cases).") in texts(at.markdown)
    (fragile,) = [w for w in texts(at.warning) if w.startswith("**Fragile**")]
    assert "Position flip: its 95% interval 0.0% to 49.0% includes the limit 5.0%" in fragile


def test_a_link_with_edited_thresholds_shows_a_banner_on_every_page():
    at = app(th=json.dumps({"panel": {"alpha_floor_permil": 150, "ratio_cap_permil": 4600}}))
    banner = ("**Decided under edited thresholds** (from a shared link): alpha floor 0.150 (default 0.600); "
              "spread cap 4.60x (default 2.00x).")
    for page in ("pages/overview.py", "pages/panel.py", "pages/judge.py", "pages/whatif.py", "pages/help.py"):
        at.switch_page(page).run()
        assert not at.exception
        assert banner in texts(at.warning), page
    at.button(key="banner_reset").click().run()
    assert not any("edited thresholds" in w for w in texts(at.warning))
    assert "th" not in at.query_params


def test_panel_page_samples_and_reasons():
    at = app("pages/panel.py")
    assert [t.label for t in at.tabs] == ["violence", "insult", "sexual"]
    verdict = texts(at.warning)[0]
    assert verdict.startswith("violence: REPORT_ONLY at the nominal level (the default): measure and publish, do not "
                              "auto-enforce.")
    assert "**Why**: alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over." in verdict
    at.selectbox(key="panel_sample").set_value("Single detector (refused structurally)").run()
    verdict = texts(at.error)[0]
    assert verdict.startswith("all: REFUSE_SINGLE at the nominal level (the default): fewer than two independent detectors")
    assert "**Why**: 1 independent detector, needs 2: one alone is a coin flip." in verdict


def test_upload_krippendorff_2011_shows_published_alpha():
    at = app("pages/panel.py")
    upload_ratings(at, "k2011.csv", (SAMPLES / "krippendorff_2011.csv").read_bytes())
    body = " ".join(m.value for m in at.markdown)
    # 1..5 whole numbers: nominal by default (the specification's), every admissible level shown beside it
    # (published values), and the suggested ordinal one click away
    assert "alpha = **0.7434 = 113/152 (743 permil)** from 40 pairable values in 11 units (nominal)" in body
    # the unit with one rating (unit-12) is said where the load is, not only counted in the alpha line
    assert ("12 units; 4 raters: observer-a, observer-b, observer-c, observer-d. 1 of 12 units has fewer than two "
            "ratings and does not enter alpha (alpha compares the ratings within a unit).") in \
        plain(" ".join(c.value for c in at.caption))
    assert "Level in force: **nominal** (the default: the specification's level, and R kripp.alpha's default)." in body
    levels = tables(at)[0]
    assert list(levels["level"]) == ["nominal (in force)", "ordinal", "interval", "ratio"]
    assert "exact" not in levels.columns  # the fractions are behind Exact values
    assert "alpha at each level, exact: nominal 113/152, ordinal 108577/133160, interval 951/1120, ratio 18222619/22852465." \
        in body
    assert list(levels["verdict"]) == ["ENFORCE (may be enforced)"] * 3 + ["not compared (ratio needs a true zero)"]
    assert at.metric[0].label == "alpha (nominal level)" and at.metric[0].value == "0.743"
    switch = at.button(key="level_switch_all")
    assert switch.label == "These look like a 1-5 rating scale. Read as ordinal?"
    switch.click().run()
    body = " ".join(m.value for m in at.markdown)
    assert "alpha = **0.8154 = 108577/133160 (815 permil)** from 40 pairable values in 11 units (ordinal)" in body
    assert texts(at.success)[0].startswith("all: ENFORCE at the ordinal level (chosen): reliable enough to act on")
    at.selectbox(key="level_widget").set_value("interval").run()
    body = " ".join(m.value for m in at.markdown)
    assert "alpha = **0.8491 = 951/1120 (849 permil)** from 40 pairable values in 11 units (interval)" in body


def test_bad_upload_names_the_problem_and_keeps_the_data():
    at = app("pages/panel.py")
    upload_ratings(at, "ragged_long_row.csv", (BAD / "ragged_long_row.csv").read_bytes())
    assert texts(at.error) == ["ragged_long_row.csv, row 3: row has 4 cells; the header has 3 "
                               "(the data loaded before is still shown)"]
    assert [t.label for t in at.tabs] == ["violence", "insult", "sexual"]  # still the sample panel


def test_labels_at_interval_level_fall_back_with_the_reason():
    at = app("pages/panel.py")
    upload_ratings(at, "labels.csv", b"unit,det-a,det-b\nu1,yes,yes\nu2,no,yes\nu3,no,no\n")
    at.selectbox(key="level_widget").set_value("interval").run()
    assert not at.exception
    fallback = [e for e in texts(at.error) if "interval alpha needs numeric values" in e]
    assert len(fallback) == 1 and fallback[0].endswith("(shown at the suggested level and positive category instead)")
    assert "(nominal)" in " ".join(m.value for m in at.markdown)
    at.run()  # a rerun (a click on a tab or a section): the verdict still rests on the fallback, still said
    assert [e for e in texts(at.error) if "interval alpha needs numeric values" in e] == fallback
    at.selectbox(key="level_widget").set_value("nominal").run()  # chosen again: nothing left to explain
    assert not at.error and "(nominal)" in " ".join(m.value for m in at.markdown)
    at.selectbox(key="level_widget").set_value("interval").run()
    assert [e for e in texts(at.error) if "interval alpha needs numeric values" in e] == fallback
    at.selectbox(key="panel_sample").set_value("Krippendorff (2011) reliability data").run()  # other data
    assert not at.error


def test_slider_flips_a_verdict_without_remeasuring_and_reset_restores_it():
    at = app("pages/whatif.py")
    assert not at.table  # the tables are a section drawn when opened: the strip says the verdicts first
    open_whatif(at, "Panel", "tables")
    calls = dict(data.MEASURE_CALLS)
    assert calls == {"panel": 1, "judge": 1, "judge_diagnostics": 1}  # each measured once, then cached
    table = tables(at)[0]
    assert list(table["edited"]) == ["REPORT_ONLY", "REPORT_ONLY", "ENFORCE"]
    at.slider(key="slider_alpha_floor_permil").set_value(800).run()
    table = tables(at)[0]
    assert list(table["edited"]) == ["REPORT_ONLY", "REPORT_ONLY", "REPORT_ONLY"]
    assert list(table["changed"]) == ["", "", "yes"]
    assert at.number_input(key="number_alpha_floor_permil").value == 800  # the pair stays in step
    at.slider(key="slider_ratio_cap_permil").set_value(4000).run()
    at.number_input(key="number_alpha_floor_permil").set_value(400).run()
    assert list(tables(at)[0]["edited"]) == ["REPORT_ONLY", "ENFORCE", "ENFORCE"]
    assert dict(data.MEASURE_CALLS) == calls  # sliders re-decide, never re-measure
    assert json.loads(at.query_params["th"]) == {"panel": {"alpha_floor_permil": 400, "ratio_cap_permil": 4000, "strict": False}}
    at.button(key="sidebar_reset").click().run()
    assert list(tables(at)[0]["edited"]) == ["REPORT_ONLY", "REPORT_ONLY", "ENFORCE"]
    assert at.slider(key="slider_alpha_floor_permil").value == 600
    assert "th" not in at.query_params


def test_judge_draft_contract_and_reset_to_bound():
    at = open_whatif(app("pages/whatif.py"), "Judge contract", "tables")
    bound_id = "judge-calibration@sha256:60428a8c4b31117f1b546da6b8356ddb2f0f280fdab2c0ad737f887775fce829"
    assert f"Bound contract: `{bound_id}`" in [m.value for m in at.markdown]
    for field, value in [("minimum_human_agreement_bps", 6000), ("maximum_position_flip_bps", 1200),
                         ("maximum_verbosity_bias_bps", 5000), ("maximum_self_preference_bps", 6000)]:
        at.slider(key=f"slider_{field}").set_value(value).run()
    judge_row = tables(at)[1].iloc[0]
    assert (judge_row["bound contract"], judge_row["edited"], judge_row["changed"]) == (
        "FAIL_CALIBRATION", "PASS_CALIBRATION", "yes")
    edited = [m.value for m in at.markdown if m.value.startswith("Edited (draft): `judge-calibration@sha256:")]
    assert len(edited) == 1 and bound_id not in edited[0]
    at.button(key="reset_contract").click().run()
    assert tables(at)[1].iloc[0]["edited"] == "FAIL_CALIBRATION"
    assert f"Edited (bound): `{bound_id}`" in [m.value for m in at.markdown]


def test_link_reproduces_thresholds_and_bad_link_is_explained():
    at = app(th=json.dumps({"panel": {"alpha_floor_permil": 800, "ratio_cap_permil": 2000}}))
    assert texts(at.success) == []  # sexual (alpha 0.78) no longer enforces under a 0.8 floor
    warnings = texts(at.warning)
    assert [w.split("  \n")[0] for w in warnings].count(
        "REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce.") == 3
    assert warnings[0] == ("**Decided under edited thresholds** (from a shared link): alpha floor 0.800 "
                           "(default 0.600).")
    # sexual's alpha 0.779 is below 0.800, but its interval reaches above it: marked fragile
    assert any("**How sure**: fragile: alpha's 95% interval 0." in w and "includes the floor 0.800" in w
               for w in warnings)  # said in sexual's verdict box
    bad = app(th='{"panel": {"alpha_floor_permil": 6000}}')
    assert "The link's thresholds were ignored: alpha_floor_permil must be between 0 and 1000 (permil), got 6000" in texts(bad.warning)


def test_preset_from_sidebar_and_threshold_file_upload():
    at = app()
    at.sidebar.selectbox(key="preset_pick").set_value("krippendorff-reliable").run()
    assert len(at.success) == 0
    assert "In force: preset:krippendorff-reliable" in texts(at.sidebar.caption)
    assert "- alpha floor **0.800** (800 permil)" in at.sidebar.markdown[1].value
    open_whatif(at.switch_page("pages/whatif.py"), "Panel", "load")
    at.file_uploader(key="thresholds_upload").set_value(
        ("thresholds_float.json", (BAD / "thresholds_float.json").read_bytes(), "application/json")).run()
    assert any(e.startswith("thresholds_float.json, line 1, column 'panel.alpha_floor_permil'") for e in texts(at.error))
    assert at.slider(key="slider_alpha_floor_permil").value == 800  # unchanged by the failed upload
    at.file_uploader(key="thresholds_upload").set_value(
        ("t.toml", b"[panel]\nalpha_floor_permil = 300\n[presets.loose]\npanel = { alpha_floor_permil = 100, ratio_cap_permil = 9000 }\n",
         "application/toml")).run()
    assert at.slider(key="slider_alpha_floor_permil").value == 300
    assert "loose" in at.sidebar.selectbox(key="preset_pick").options


def test_judge_page_samples_upload_and_drilldown():
    at = app("pages/judge.py")
    assert texts(at.error) == ["FAIL_CALIBRATION"]
    rates = next(t for t in tables(at) if "gate" in t.columns)
    assert list(rates["gate"]) == ["FAIL", "FAIL", "pass", "FAIL", "FAIL"]
    assert list(rates["measured"])[1] == "26/233 = 11.16% (1116 bps)"
    at.selectbox(key="case_filter").set_value("flipped (position)").run()
    assert "26 of 240 cases" in [c.value for c in at.caption]
    at.selectbox(key="judge_sample").set_value("The seed's illustrative snapshot, 4 cases").run()
    assert texts(at.success) == ["PASS_CALIBRATION"]
    at.file_uploader(key="bundle_upload").set_value(
        ("bundle_bool_repetition.json", (BAD / "bundle_bool_repetition.json").read_bytes(), "application/json")).run()
    assert texts(at.error) == [
        "bundle_bool_repetition.json, observation 6, column 'repetition': observation.repetition must be exact int "
        "(observation case_id='case-refusal', order='ab', repetition=True) (the data loaded before is still shown)"]
    assert texts(at.success) == ["PASS_CALIBRATION"]  # the illustrative bundle is still loaded


def test_judge_tables_trio():
    at = app("pages/judge.py")
    at.selectbox(key="judge_sample").set_value("The seed's illustrative snapshot, 4 cases").run()
    for key, name in [("contract_upload", "judge_failing_contract.json"), ("references_upload", "judge_failing_references.csv"),
                      ("observations_upload", "judge_failing_observations.csv")]:
        at.file_uploader(key=key).set_value((name, (SAMPLES / name).read_bytes(), "text/plain")).run()
    at.button(key="load_tables").click().run()
    assert not at.exception
    assert texts(at.error) == ["FAIL_CALIBRATION"]
    assert "240 cases, 1,440 observations: 2 orders x 3 repetitions per case, as the contract declares" in \
        " ".join(c.value for c in at.caption)


def test_help_page_renders_the_formats():
    at = app("pages/help.py")
    body = " ".join(m.value for m in at.markdown)
    assert "# Input formats" in body and "REFUSE_SINGLE" in body


def test_positive_category_gives_rates_for_a_non_binary_panel():
    at = app("pages/panel.py")
    upload_ratings(at, "k2011.csv", (SAMPLES / "krippendorff_2011.csv").read_bytes())
    assert any(c.value.startswith("Spread not measured: there are no rater rates") for c in at.caption)
    at.selectbox(key="positive_widget").set_value(2).run()
    body = " ".join(m.value for m in at.markdown)
    # "2" from observers A..D: 3 of 9, 4 of 11, 3 of 10, 3 of 11 units rated: hi/lo = (4/11)/(3/11)
    assert "spread = **1.333x = 4/3**" in body
    assert not any("not measured" in c.value for c in at.caption)


def test_uncertainty_is_shown_and_strict_mode_is_threshold_data():
    at = app("pages/panel.py")
    body = " ".join(m.value for m in at.markdown)
    assert "alpha 95% interval [" in body and "(units bootstrap, 2,000 draws, seed 0)" in body  # the default
    assert "q = P(alpha < floor) = 1.000" in body  # violence: alpha 0.24 is nowhere near 0.6
    assert "95% bracket [" in body
    at.radio(key="interval_widget").set_value("pairs").run()
    assert "(pairs bootstrap (KALPHA), 2,000 draws of " in " ".join(m.value for m in at.markdown)
    assert "narrower than 95% when units have 3+ ratings" in " ".join(m.value for m in at.markdown)
    at.switch_page("pages/judge.py").run()
    rates = next(t for t in tables(at) if "margin" in t.columns)
    assert list(rates["margin"]) == ["370 more agreements would pass", "15 fewer flips would pass",
                                     "18 more unstable orders fail the gate", "298 fewer verbosity errors would pass",
                                     "87 fewer self-preferring picks would pass"]
    assert "position flips: 26 with both orders stable (the gated rate), 1 more where repetition noise" in \
        " ".join(m.value for m in at.markdown)
    calls = dict(data.MEASURE_CALLS)
    open_whatif(at.switch_page("pages/whatif.py"), "Judge contract")
    at.slider(key="slider_maximum_position_flip_bps").set_value(2000).run()
    at.switch_page("pages/judge.py").run()
    assert dict(data.MEASURE_CALLS) == calls  # judge rates and diagnostics came from the cache
    at.switch_page("pages/whatif.py").run()
    open_whatif(at, "Panel", "tables")
    at.slider(key="slider_ratio_cap_permil").set_value(4000).run()
    at.slider(key="slider_alpha_floor_permil").set_value(400).run()
    assert list(tables(at)[0]["edited"]) == ["REPORT_ONLY", "ENFORCE", "ENFORCE"]
    at.checkbox(key="check_panel_strict").check().run()
    # insult: alpha 0.431 passes a 0.400 floor, but its bootstrap lower bound (0.388) does not, and its
    # spread's upper bound (4.6x) exceeds the 4.0x cap; sexual's bounds (0.753, 2.0x) still pass.
    assert list(tables(at)[0]["edited"]) == ["REPORT_ONLY", "REPORT_ONLY", "ENFORCE"]
    assert dict(data.MEASURE_CALLS) == calls  # strict mode re-decides from the cached bootstrap
    assert at.session_state["thresholds"].panel.strict is True


def test_every_page_offers_reports():
    for page, keys in [(None, {"dl_panel_json", "dl_judge_html"}), ("pages/panel.py", {"dl_panel_md"}),
                       ("pages/judge.py", {"dl_judge_json"}), ("pages/whatif.py", {"dl_panel_html", "dl_thresholds"})]:
        at = app(page)
        if page == "pages/whatif.py":  # a section drawn when opened: built under the thresholds in force
            assert not at.get("download_button")
            open_whatif(at, "Panel", "downloads")
        present = {e.key for e in at.get("download_button")}
        assert keys <= present, (page, present)


# --- hostile input in the dashboard: an error box, the data kept, never a traceback ---------------

HOSTILE = ROOT / "tests" / "data" / "hostile"
SAMPLE_TABS = ["violence", "insult", "sexual"]


def _hostile(where: str) -> list[dict]:
    manifest = json.loads((HOSTILE / "manifest.json").read_text())
    return [c for c in manifest if c["codes"] == [3] and c["argv"] == where]


def test_hostile_rating_files_show_one_error_and_keep_the_loaded_panel():
    cases = _hostile(["panel", "{f}"])
    assert len(cases) >= 45
    at = app("pages/panel.py")
    previewed = 0
    for c in cases:
        upload_ratings(at, c["file"], (HOSTILE / c["file"]).read_bytes())
        errors = texts(at.error)
        if at.session_state["pending"] is not None:  # the head read well; the whole file did not
            previewed += 1
            assert len(errors) == 1 and errors[0].endswith("or Cancel to keep the data loaded before)"), (c["file"], errors)
            assert at.button(key="pv_measure").disabled, c["file"]
            assert not at.tabs  # the preview stands in for the results until Measure or Cancel
            at.button(key="pv_cancel").click().run()
            assert not at.exception and not at.error, c["file"]
        else:
            assert len(errors) == 1 and errors[0].endswith("(the data loaded before is still shown)"), (c["file"], errors)
        assert [t.label for t in at.tabs] == SAMPLE_TABS, c["file"]
    assert 0 < previewed < len(cases)


def test_hostile_rates_judge_and_threshold_files_keep_what_is_loaded():
    at = app("pages/panel.py")
    for c in _hostile(["panel", "{sample:detector_panel.csv}", "--rates", "{f}"]):
        at.file_uploader(key="rates_upload").set_value((c["file"], (HOSTILE / c["file"]).read_bytes(), "text/csv")).run()
        assert not at.exception and len(at.error) == 1, c["file"]
        assert [t.label for t in at.tabs] == SAMPLE_TABS
    at.switch_page("pages/judge.py").run()
    judge = _hostile(["calibrate", "{f}"])
    assert len(judge) >= 30
    for c in judge:
        at.file_uploader(key="bundle_upload").set_value((c["file"], (HOSTILE / c["file"]).read_bytes(), "application/json")).run()
        assert not at.exception, c["file"]
        assert texts(at.error)[0].endswith("(the data loaded before is still shown)"), c["file"]
        assert texts(at.error)[1:] == ["FAIL_CALIBRATION"], c["file"]  # the sample judge is still shown
    open_whatif(at.switch_page("pages/whatif.py"), "Panel", "load")
    for c in _hostile(["panel", "{sample:detector_panel.csv}", "--thresholds", "{f}"]):
        at.file_uploader(key="thresholds_upload").set_value((c["file"], (HOSTILE / c["file"]).read_bytes(), "text/plain")).run()
        assert not at.exception, c["file"]
        assert any(e.endswith("(the thresholds in force are unchanged)") for e in texts(at.error)), c["file"]
        assert at.session_state["thresholds"].panel.alpha_floor_permil == 600


def test_markup_in_names_is_shown_as_text():
    at = app("pages/panel.py")
    upload_ratings(at, "markdown_names.csv", (HOSTILE / "markdown_names.csv").read_bytes())
    assert not at.error
    open_panel(at, "all", *SECTIONS)  # the per-rater diagnostics and coefficients name the raters too
    assert not at.error and len(at.dataframe) >= 3
    caption = next(c.value for c in at.caption if c.value.startswith("Loaded:"))
    # every Markdown character of the names is escaped, so no link or image can form
    assert "\\[click\\]\\(http\u2060\\:\\/\\/evil\\.example\\/x\\)" in caption and "\\!\\[i\\]" in caption
    assert shown(caption).count("[click](http://evil.example/x)") == 1


@pytest.mark.parametrize("th", [
    {"panel": {"alpha_floor_permil": 0, "ratio_cap_permil": 8000, "strict": False}},
    {"panel": {"alpha_floor_permil": 1000, "ratio_cap_permil": 1_000_000, "strict": True}},
    {"panel": {"alpha_floor_permil": 600, "ratio_cap_permil": 2000, "strict": False},
     "calibration": {"minimum_reviewers": 20, "minimum_human_agreement_bps": 0, "maximum_position_flip_bps": 10000,
                     "maximum_repeat_variance_bps": 0, "maximum_verbosity_bias_bps": 10000,
                     "maximum_self_preference_bps": 1, "strict": False}},
    {"panel": {"alpha_floor_permil": 600, "ratio_cap_permil": 2000, "strict": False},
     "calibration": {"minimum_reviewers": 100, "minimum_human_agreement_bps": 10000, "maximum_position_flip_bps": 0,
                     "maximum_repeat_variance_bps": 10000, "maximum_verbosity_bias_bps": 0,
                     "maximum_self_preference_bps": 0, "strict": True}},
])
def test_what_if_renders_for_every_legal_threshold(th):
    at = app("pages/whatif.py", th=json.dumps(th))
    assert not at.exception and not at.error
    assert at.number_input(key="number_ratio_cap_permil").value == th["panel"]["ratio_cap_permil"]
    assert at.slider(key="slider_ratio_cap_permil").value == th["panel"]["ratio_cap_permil"]
    if "calibration" in th:
        open_whatif(at, "Judge contract")
        assert at.slider(key="slider_minimum_reviewers").value == th["calibration"]["minimum_reviewers"]


def test_an_unexpected_error_is_a_short_box_and_the_frame_survives(monkeypatch):
    from agreebound.ui import loading

    def boom():
        raise RuntimeError("/srv/secret/path.py line 3")

    monkeypatch.setattr(loading, "panel_decisions", boom)
    at = app()
    assert not at.exception
    (box,) = texts(at.error)
    assert box.startswith("Something went wrong while drawing this page. The data you loaded is kept")
    assert "secret" not in box and "Traceback" not in box
    assert at.sidebar.button(key="sidebar_reset")  # the frame (sidebar, navigation) still stands


def test_the_dashboard_and_the_cli_share_one_upload_limit():
    import tomllib

    from agreebound.core import limits

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == limits.UPLOAD_MB
    assert limits.MAX_INPUT_BYTES == limits.UPLOAD_MB * 10**6  # the smaller reading of Streamlit's "MB"
    assert config["browser"]["gatherUsageStats"] is False and config["client"]["showErrorDetails"] == "none"


def test_the_server_spends_its_cpu_on_its_users():
    """Streamlit's full garbage collection after every rerun was half of a slider move's server CPU,
    and its source watcher rescanned the folder on every change under it (bench/bench_load.py):
    both are off for `make run` and for every `agreebound serve`."""
    import tomllib

    from agreebound.app import serve

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False and config["server"]["fileWatcherType"] == "none"
    assert serve.FIXED["runner.postScriptGC"] == "false" and serve.FIXED["server.fileWatcherType"] == "none"


def test_after_its_first_page_the_server_leaves_what_it_loaded_out_of_full_collections():
    """Python's own full collections walked every object the server had loaded (the libraries, the
    samples' measurements) and stopped every session each time (~190 ms each, 5 per bench_load run
    with 20 sessions). After the first page has run, those objects are frozen out of them, once.
    In a process of its own: the count is the process's."""
    import subprocess
    import sys

    script = ("import gc, sys\nfrom streamlit.testing.v1 import AppTest\nbefore = gc.get_freeze_count()\n"
              "at = AppTest.from_file(sys.argv[1], default_timeout=120)\nat.run()\nassert not at.exception\n"
              "first = gc.get_freeze_count()\nat.run()\nprint(before, first, gc.get_freeze_count())\n")
    out = subprocess.run([sys.executable, "-c", script, APP], capture_output=True, text=True, timeout=300, cwd=ROOT)
    before, first, second = (int(x) for x in out.stdout.split())
    assert before == 0 and first > 100_000  # the libraries and the samples' measurements
    assert second <= first  # once per process, not on every run (frozen objects may still be freed)


def test_panel_page_other_coefficients_explain_the_gap_and_sliders_do_not_recompute():
    at = open_panel(app("pages/panel.py"), "violence", "coefficients", "exact")
    exact = "\n".join(c.value for c in at.code)
    assert exact.splitlines()[:3] == ["alpha      = 520132/2203311", "D_o        = 719/3513", "D_e        = 734437/2741311"]
    assert "seed alpha = 254 permil" in exact and "seed ratio = 3900 permil" in exact  # the seed's integer formulas
    tables = [t.value for t in at.dataframe]
    coef = next(t for t in tables if "coefficient" in t.columns and "chance" in t.columns)
    assert list(coef["coefficient"]) == ["percent agreement", "Conger's kappa", "Fleiss' kappa", "Gwet's AC1",
                                         "Brennan-Prediger"]
    assert list(coef["exact"]) == ["191/240", "325897/1321822", "60413/256413", "507587/703587", "71/120"]
    assert at.selectbox(key="pair_pick_violence").value == 2  # a detector against the person first
    open_panel(at, "insult", "coefficients")
    body = " ".join(shown(m.value) for m in at.markdown)
    # the sample's insult dimension: 84% agreement, alpha 0.431, prevalence of '0'
    assert ("- Raters agree on 84% of the pairs they rated together, yet alpha is 0.431: alpha counts only the "
            "agreement beyond what chance would give with these marginals.") in body
    assert "- Prevalence: one category ('0') holds 83% of the values." in body
    calls = data.MEASURE_CALLS["coefficients"]
    at.switch_page("pages/whatif.py").run()
    at.slider(key="slider_alpha_floor_permil").set_value(300).run()
    at.switch_page("pages/panel.py").run()
    open_panel(at, "insult", "coefficients")  # drawn again (its coefficients shown), not measured again
    assert "- Prevalence: one category ('0') holds 83% of the values." in " ".join(shown(m.value) for m in at.markdown)
    assert not at.exception and data.MEASURE_CALLS["coefficients"] == calls  # sliders only decide
    open_panel(at, "violence")  # alpha 0.236 is still under the moved floor 0.300
    assert any(w.startswith("violence: REPORT_ONLY at the nominal level (the default): measure and publish, do not "
                            "auto-enforce.") for w in texts(at.warning))  # alpha's verdict


def test_a_tab_opened_again_shows_what_was_left_open_in_it():
    """Only the open tab is drawn, and Streamlit forgets the state of what a run does not draw: the
    sections left open in a dimension's tab, and the pair picked there, are as they were when the
    tab opens again; another page forgets them, as it forgets its own widgets."""
    def drawn(at: AppTest) -> tuple[bool, bool, bool, int | None]:
        body = " ".join(m.value for m in at.markdown)
        picks = [s.value for s in at.selectbox if s.key == "pair_pick_violence"]
        return ("**Alpha with each rater removed**" in body, bool(picks), any("D_o" in c.value for c in at.code),
                picks[0] if picks else None)

    at = open_panel(app("pages/panel.py"), "violence", "diagnostics", "coefficients")
    assert drawn(at) == (True, True, False, 2)  # the sample's default pair: a detector against the person
    at.selectbox(key="pair_pick_violence").set_value(0).run()
    assert drawn(at) == (True, True, False, 0)
    open_panel(at, "insult")  # violence's tab closed: none of its sections drawn
    assert drawn(at) == (False, False, False, None)
    open_panel(at, "violence")  # opened again: Diagnostics and Other coefficients open, the pair kept
    assert drawn(at) == (True, True, False, 0)
    at.session_state["diagnostics_violence"] = False  # closed by the user: closed when the tab returns
    at.run()
    open_panel(at, "sexual")
    open_panel(at, "violence")
    assert drawn(at) == (False, True, False, 0)
    at.switch_page("pages/whatif.py").run()
    at.switch_page("pages/panel.py").run()
    open_panel(at, "violence")  # another page in between: the Panel page starts afresh
    assert drawn(at) == (False, False, False, None)
    open_panel(at, "violence", "coefficients")
    assert drawn(at) == (False, True, False, 2)


def test_other_data_starts_its_tabs_afresh_whatever_the_last_data_left_open():
    """A tab is known by its dimension's name, and every file without a dimension column has one
    named 'all': what the last data's tab was left showing (a section open, a pair picked) is not
    carried to other data."""
    def pick(at: AppTest) -> int | None:
        return next((s.value for s in at.selectbox if s.key == "pair_pick_all"), None)

    at = app("pages/panel.py")
    upload_ratings(at, "a.csv", b"unit,r1,r2,r3,r4\n" + b"".join(f"u{i},{i % 2},{i % 3 % 2},{i % 2},1\n".encode()
                                                                   for i in range(12)))
    at = open_panel(at, "all", "coefficients")
    assert pick(at) == 0  # no person among the raters: the first pair
    at.selectbox(key="pair_pick_all").set_value(5).run()
    assert pick(at) == 5
    upload_ratings(at, "b.csv", b"unit,x1,x2,x3,x4\n" + b"".join(f"u{i},{i % 2},1,{i % 3 % 2},{i % 2}\n".encode()
                                                                  for i in range(12)))
    assert "x1" in " ".join(c.value for c in at.caption)  # b.csv is the data now
    assert pick(at) is None  # Other coefficients closed, as a new tab's are
    at = open_panel(at, "all", "coefficients")
    assert pick(at) == 0  # the default pair, not the one picked in a.csv


def test_judge_page_shows_the_judge_against_the_human_reference():
    at = app("pages/judge.py")
    body = " ".join(shown(m.value) for m in at.markdown)
    assert ("The judge against the human reference (each case, each order: the judge's majority verdict); "
            "Cohen's kappa 0.380 where the judge has a majority") in body.replace("**", "")
    table = next(t.value for t in at.dataframe if "human preferred" in t.value.columns)
    assert list(table["human preferred"]) == ["a", "b", "tie"]
    assert list(table["judge: a"]) == [137, 60, 4] and list(table["judge: no majority"]) == [0, 0, 0]


def test_a_rerun_draws_the_figures_it_drew_and_a_moved_threshold_draws_anew(monkeypatch):
    """memo.figure: a chart is built once per inputs (measurements and decisions by identity,
    gates by value) and shared; a rerun that moves nothing builds none, a moved floor rebuilds
    exactly what it moved, and a figure is the one the builder makes."""
    from agreebound.render import figures
    from agreebound.render import gate_figures
    from agreebound.ui import memo

    built = []
    for module, name in ((figures, "alpha_bullet"), (figures, "rates_interval"), (figures, "coincidence_heatmap"),
                         (gate_figures, "gate_bullet"), (gate_figures, "threshold_sweep")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, (lambda real: lambda *a, **k: built.append(real.__name__) or real(*a, **k))(real))
    at = app()
    assert built.count("gate_bullet") == 0  # the Overview's bullets: drawn once their box's charts are opened
    for key in ("ov_charts_0", "ov_charts_1", "ov_charts_2", "ov_charts_judge"):
        at.session_state[key] = True
    ok(at.run())
    assert built.count("gate_bullet") == 3 * 2 + 5
    at.switch_page("pages/panel.py").run()
    assert built.count("alpha_bullet") == built.count("coincidence_heatmap") == 1  # the open tab's dimension
    built.clear()
    at.run()
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/panel.py").run()
    assert not at.exception and at.get("plotly_chart")
    assert any(t.startswith("violence: REPORT_ONLY") for t in texts(at.warning))  # the open tab's verdict
    assert built == []  # both pages drawn again from the figures they built
    at.switch_page("pages/whatif.py").run()
    built.clear()
    at.slider(key="slider_alpha_floor_permil").set_value(917).run()  # a floor no other test sets
    assert not at.exception
    at.switch_page("pages/panel.py").run()
    assert not at.exception
    assert built.count("alpha_bullet") == 1  # the floor moved: the open dimension's decision, and its bullet, is new
    built.clear()
    open_panel(at, "sexual")  # another tab: its own bullet, built when opened
    assert built.count("alpha_bullet") == built.count("coincidence_heatmap") == 1
    assert "floor 0.917" in str(at.get("plotly_chart")[0].proto.spec)
    open_panel(at, "violence")
    assert "floor 0.917" in str(at.get("plotly_chart")[0].proto.spec)
    # by value: an equal gate (another rerun's) gets the figure built before; another value its own
    from dataclasses import replace

    from agreebound.panel.measure import measure_panels
    from agreebound.panel.decide import decide_panel
    from agreebound.io.ratings import parse_ratings
    from agreebound.render.gates import panel_gates
    from agreebound.core.thresholds import PanelThresholds

    monkeypatch.undo()
    m = measure_panels(parse_ratings("k.csv", (SAMPLES / "krippendorff_2011.csv").read_bytes()), "interval")["all"]
    gate = next(g for g in panel_gates("all", m, decide_panel(m, PanelThresholds())) if g.name == "alpha")
    fig = memo.figure(gate_figures.gate_bullet, gate, dark=True)
    assert memo.figure(gate_figures.gate_bullet, replace(gate), dark=True) is fig
    assert fig.to_dict() == gate_figures.gate_bullet(gate, dark=True).to_dict()
    assert memo.figure(gate_figures.gate_bullet, gate, dark=False) is not fig
    moved = replace(gate, threshold=gate.threshold / 2)
    assert memo.figure(gate_figures.gate_bullet, moved, dark=True).to_dict() == gate_figures.gate_bullet(moved, dark=True).to_dict()
    assert memo.figure(gate_figures.gate_bullet, moved, dark=True).to_dict() != fig.to_dict()


def test_a_slider_move_reuses_what_it_does_not_move(monkeypatch):
    """memo.once: a value per object (by identity, held) and key. A What-if move re-decides only
    what its threshold touches: the panel's three dimensions, not the judge."""
    from agreebound.ui import memo

    calls = []
    a, b = [1], [1]  # equal, not the same object

    def compute(x):
        calls.append(x)
        return object()

    first = memo.once("t", a, compute, ("k", 1))
    assert memo.once("t", a, compute, ("k", 1)) is first and len(calls) == 1
    assert memo.once("t", b, compute, ("k", 1)) is not first and len(calls) == 2
    assert memo.once("t", a, compute, ("k", 2)) is not first and len(calls) == 3
    assert memo.once("t", a, compute, [1]) is not None and len(calls) == 4  # unhashable key: computed

    computed = []  # what each call of memo.once had to compute
    real = memo.once
    monkeypatch.setattr(memo, "once", lambda what, obj, fn, key=(): real(
        what, obj, lambda o: computed.append(what) or fn(o), key))
    at = app("pages/whatif.py")
    computed.clear()
    at.slider(key="slider_alpha_floor_permil").set_value(913).run()  # a floor no other test sets
    assert not at.exception
    # the panel re-decided under the new floor (the sample's sexual dimension, alpha 0.779, flips) ...
    assert any(m.value.startswith("**sexual**: REPORT_ONLY") and "(was ENFORCE under the defaults)" in m.value
               for m in at.markdown)
    # ... and nothing else was decided again: not the judge, whose thresholds did not move
    assert computed == ["panel"] * 3


def test_a_readers_note_is_shown_whole():
    """The Panel page shows each of the reader's notes in full: three missing-value codes make a note of
    222 characters, which ended "... (or the mapping's \"mis... (222 characters)" when notes were cut at
    200; a summary row's note beside it."""
    at = app("pages/panel.py")
    upload_ratings(at, "sheet.csv", b"unit,a,b\nu1,1,1\nu2,2,-99\nu3,999,3\nu4,1,?\nu5,2,2\nMean,1.5,1.5\n")
    notes = [plain(c.value) for c in at.caption if c.value.startswith("Note: ")]
    assert ("Note: '-99' (1 cell), '999' (1 cell), '?' (1 cell) often mean missing (a statistics package's code, a "
            "spreadsheet's dash or error) and are read as ratings here; if they do, give --missing='-99,999,?' (or the "
            "mapping's \"missing\")") in notes
    assert ("Note: unit 'Mean' is named like a summary row (a mean, a total): its values are read as a unit's "
            "ratings and change alpha; if it summarises the rows above, remove it from the file") in notes
