"""The import journey in the dashboard: upload -> mapping preview -> change a role or the level ->
Measure -> verdict; and a misspelt label flagged before anything is measured."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agreebound.ui import data
from tests.support import apptest

ROOT = Path(__file__).resolve().parents[2]
IMPORTS = ROOT / "sample_data" / "imports"


def panel_page() -> AppTest:
    return apptest.app("pages/panel.py")


def upload(at: AppTest, name: str, payload: bytes) -> None:
    apptest.upload(at, "ratings_upload", name, payload)


def body(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def test_r_export_preview_then_level_then_role_then_verdict():
    at = panel_page()
    calls = dict(data.MEASURE_CALLS)
    upload(at, "r_write_csv.csv", (IMPORTS / "r_write_csv.csv").read_bytes())
    # The preview: how the file will be read, nothing measured yet, the loaded sample kept.
    assert at.header[0].value == "Preview: how r_write_csv.csv will be read"
    reasons = [t.value for t in at.text]
    assert "- one row per unit (wide): 4 rater columns" in reasons
    assert any("unnamed first column" in r and "name the units" in r for r in reasons)
    assert at.radio(key="pv_layout").value == "wide"
    assert at.multiselect(key="pv_humans").value == []
    assert any("Missing cells found: NA x " in c.value for c in at.caption)
    assert not at.tabs and dict(data.MEASURE_CALLS).get("panel", 0) == calls.get("panel", 0)
    assert at.session_state["panel_source"].label.startswith("Detector panel")
    # Level: interval instead of the suggested ordinal, then Measure.
    at.selectbox(key="pv_level").set_value("interval").run()
    at.button(key="pv_measure").click().run()
    assert not at.exception
    assert at.session_state["pending"] is None
    text = body(at)
    assert "alpha = **0.8491 = 951/1120 (849 permil)** from 40 pairable values in 11 units (interval)" in text
    (verdict,) = [apptest.shown(w.value) for w in at.success]
    assert verdict.startswith("all: ENFORCE at the interval level (chosen): reliable enough to act on.  \n**Why**: "
                              "4 independent raters, needs 2; alpha (interval) 0.849, needs 0.600: 0.249 to spare; "
                              "spread not measured (it does not block).")
    levels = at.table[0].value  # a text table: its cells are Markdown, escaped
    assert [re.sub(r"\\(.)", r"\1", v) for v in levels.iloc[:, 0]] == ["nominal", "ordinal", "interval (in force)",
                                                                     "ratio"]
    # Roles: three of the four are humans -> one independent detector -> refused structurally.
    upload(at, "r_write_csv (2).csv", (IMPORTS / "r_write_csv.csv").read_bytes() + b"\n")
    at.multiselect(key="pv_humans").set_value(["A", "B", "C"]).run()
    at.button(key="pv_measure").click().run()
    assert not at.exception
    assert [apptest.shown(e.value).split("  \n")[0] for e in at.error] == [
        "all: REFUSE_SINGLE at the nominal level (the default): fewer than two independent detectors."]
    caption = next(c.value for c in at.caption if c.value.startswith("Loaded:"))
    assert "human raters: A, B, C" in caption


def test_a_label_typo_is_flagged_in_the_preview_and_cancel_keeps_the_loaded_data():
    rows = [("toxic", "toxic", "toxic"), ("ok", "ok", "ok"), ("toxic", "toxc", "toxic"), ("ok", "ok", "toxic"),
            ("ok", "ok", "ok"), ("toxic", "toxic", "ok")]
    payload = b"item,human_1,det_a,det_b\n" + b"".join(f"i{i},{a},{b},{c}\n".encode() for i, (a, b, c) in enumerate(rows))
    at = panel_page()
    upload(at, "typo.csv", payload)
    assert [w.value for w in at.warning] == ["1 category to check: a misspelling becomes a category of its own and "
                                             "moves alpha (see the check column)"]
    categories = at.dataframe[1].value
    assert list(categories["category"]) == ["toxc", "ok", "toxic"]  # the one to check first
    assert list(categories["count"]) == [1, 9, 8]
    assert categories["check"].iloc[0] == "maybe the same as 'toxic': a rare spelling (1) close to a more common one; occurs once"
    assert at.multiselect(key="pv_humans").value == ["human_1"]
    at.button(key="pv_cancel").click().run()
    assert at.session_state["pending"] is None
    assert [t.label for t in at.tabs] == ["violence", "insult", "sexual"]


@pytest.mark.parametrize("name, level, alpha", [
    ("pandas_named_index.csv", "nominal", Fraction(113, 152)),
    ("excel_semicolon.csv", "interval", Fraction(951, 1120)),
    ("long_natural_headers.csv", "nominal", Fraction(113, 152)),
    ("raters_by_units.csv", "interval", Fraction(951, 1120)),
    ("k2011.xlsx", "nominal", Fraction(113, 152)),
    ("label_studio.json", "interval", Fraction(951, 1120)),
    ("prodigy.jsonl", None, Fraction(113, 152)),  # nobody chose: nominal (ordinal is suggested beside it)
    ("generic.jsonl", "nominal", Fraction(113, 152)),
])
def test_real_shaped_exports_reach_their_alpha_through_the_preview_defaults(name, level, alpha):
    at = panel_page()
    upload(at, name, (IMPORTS / name).read_bytes())
    assert not at.error, [e.value for e in at.error]
    if level:
        at.selectbox(key="pv_level").set_value(level).run()
    at.button(key="pv_measure").click().run()
    assert not at.exception and at.session_state["pending"] is None
    from dataclasses import replace

    src = at.session_state["panel_source"]  # the cached measurement the page drew
    measured = data.measured_panel(replace(src.recipe, level=at.session_state["level"], chosen_by="user"))
    m = next(iter(measured.values()))
    assert m.alpha.value == alpha and m.level == (level or "nominal") and m.n_units == 12
    assert f"= {alpha.numerator}/{alpha.denominator} (" in body(at)


def test_the_header_checkbox_is_short_its_help_says_the_rest_and_unticked_the_first_row_is_data():
    at = panel_page()
    upload(at, "k2011.csv", (ROOT / "sample_data" / "krippendorff_2011.csv").read_bytes())
    box = at.checkbox(key="pv_header")
    assert (box.label, box.value) == ("Header row", True)
    assert box.help == ("Ticked: the first row names the columns. Unticked: the first row is data, and the columns "
                        "are named column 1, column 2, ...")
    assert list(at.dataframe[0].value.columns) == ["unit", "observer-a", "observer-b", "observer-c", "observer-d"]
    box.uncheck().run()
    assert not at.exception and at.checkbox(key="pv_header").value is False
    first = at.dataframe[0].value
    assert list(first.columns) == ["column 1", "column 2", "column 3", "column 4", "column 5"]
    assert list(first.iloc[0]) == ["unit", "observer-a", "observer-b", "observer-c", "observer-d"]
