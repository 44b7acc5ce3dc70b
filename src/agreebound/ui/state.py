"""Session state: what is loaded, and the one canonical threshold set every page decides under.

Widgets never own state: each has its own key and an ``on_change`` callback that writes the
canonical value, so a page can be left and revisited without losing anything, and nothing is
assigned to a widget key after the widget is drawn.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import streamlit as st

from agreebound.judge.calibration import CalibrationThresholds
from agreebound.judge.contract import JudgeCalibrationContract
from agreebound.io.formats import parse_threshold_link
from agreebound.core.errors import InputError
from agreebound.app.pipeline import JudgeRecipe, PanelRecipe
from agreebound.core.thresholds import DEFAULT, ThresholdSet
from agreebound.ui.data import JUDGE_SAMPLES, PANEL_SAMPLES, Loaded, Upload, threshold_file

S = st.session_state


def init() -> bool:
    """First run of a session: samples loaded, thresholds from the URL (validated) or defaults.
    True on that first run (the frame then opens the link's runs, if any)."""
    if "panel_source" in S:
        return False
    S.panel_source = Loaded(next(iter(PANEL_SAMPLES)), PanelRecipe((Upload.sample("detector_panel.csv"),)))
    S.pending = None  # an uploaded file in the mapping preview, not yet measured
    S.judge_source = Loaded(next(iter(JUDGE_SAMPLES)), JudgeRecipe(Upload.sample("judge_failing.json"), "bundle"))
    S.judge_unmapped = None  # uploaded JSON Lines of an unknown shape, waiting for its mapping file
    S.judge_unbound = None  # an uploaded bundle bound to another contract: "bind to this contract" offers it
    S.level = "auto"  # the level suggested for the values, with its reason shown
    S.positive = "auto"
    S.interval = "units"  # alpha's interval: the units bootstrap (or "pairs", KALPHA's)
    S.errors = {}
    sample = Upload.sample("thresholds.toml")
    tf = threshold_file(sample.name, sample.digest, sample.data)
    S.presets = dict(tf.presets)
    S.preset_file = "sample_data/thresholds.toml"
    S.thresholds = DEFAULT
    S.url_error = None
    raw = st.query_params.get("th")
    if raw:
        try:
            S.thresholds = parse_threshold_link(raw)
        except InputError as e:  # a hand-edited link: say so (as text), keep defaults
            leaf = (e.column or "").split(".")[-1]
            where = f"{e.column}: " if e.column and leaf not in e.reason else ""
            S.url_error = f"The link's thresholds were ignored: {where}{e.reason}"
    return True




def thresholds() -> ThresholdSet:
    return S.thresholds




def sync_url() -> None:
    """The thresholds travel in the URL as validated JSON, so a link reproduces the view."""
    from agreebound.ui import runs

    ids = runs.url_runs()
    if st.query_params.get_all("run") != ids:
        if ids:
            st.query_params["run"] = ids
        elif "run" in st.query_params:
            del st.query_params["run"]
    reading = runs.url_reading()  # beside a panel run: the level, interval and positive in force
    for key in runs.READING_PARAMS:
        if key in reading:
            if st.query_params.get(key) != reading[key]:
                st.query_params[key] = reading[key]
        elif key in st.query_params:
            del st.query_params[key]
    t: ThresholdSet = S.thresholds
    if t.panel == DEFAULT.panel and t.calibration is None and t.scored == DEFAULT.scored and not ids:
        if "th" in st.query_params:
            del st.query_params["th"]
        return
    encoded = json.dumps(t.to_dict(), separators=(",", ":"), sort_keys=True)
    if st.query_params.get("th") != encoded:
        st.query_params["th"] = encoded


# --- edits (all called from callbacks) -------------------------------------------------------


def edit_panel(field: str, widget_key: str) -> None:
    value = int(S[widget_key])
    t: ThresholdSet = S.thresholds
    S.thresholds = replace(t, panel=replace(t.panel, **{field: value}), source="draft")
    _mirror(field, value)


def edit_calibration(field: str, widget_key: str, contract: JudgeCalibrationContract) -> None:
    value = int(S[widget_key])
    t: ThresholdSet = S.thresholds
    base = t.calibration or CalibrationThresholds.from_contract(contract)
    S.thresholds = replace(t, calibration=replace(base, **{field: value}), source="draft")
    _mirror(field, value)


def edit_strict(kind: str, widget_key: str, contract: JudgeCalibrationContract) -> None:
    value = bool(S[widget_key])
    t: ThresholdSet = S.thresholds
    if kind == "panel":
        S.thresholds = replace(t, panel=replace(t.panel, strict=value), source="draft")
    else:
        base = t.calibration or CalibrationThresholds.from_contract(contract)
        S.thresholds = replace(t, calibration=replace(base, strict=value), source="draft")


def edit_scored(field: str, widget_key: str) -> None:
    """A graded or pass/fail judge's threshold (ThresholdSet.scored), from its slider or number input."""
    value = int(S[widget_key])
    t: ThresholdSet = S.thresholds
    S.thresholds = replace(t, scored=replace(t.scored, **{field: value}), source="draft")
    _mirror(field, value)


def scored_edits(t: ThresholdSet) -> list[str]:
    """The graded judges' thresholds that differ from their defaults, in words (for the banner)."""
    from agreebound.core.thresholds import SCORED_FIELDS, THRESHOLD_WORDS

    out = []
    for name in SCORED_FIELDS:
        now, then = getattr(t.scored, name), getattr(DEFAULT.scored, name)
        if now != then:
            words, fmt = THRESHOLD_WORDS[name]
            out.append(f"graded judge {words} {fmt(now)} (default {fmt(then)})")
    return out


def _mirror(field: str, value: int) -> None:
    """Keep a slider and its number input showing the same value (inside a callback: allowed)."""
    for prefix in ("slider_", "number_"):
        S[prefix + field] = value


def clear_widgets() -> None:
    """Forget widget values so they are drawn again from the canonical thresholds."""
    for key in list(S.keys()):
        if str(key).startswith(("slider_", "number_", "check_")):
            del S[key]


def reset_defaults() -> None:
    S.thresholds = DEFAULT
    clear_widgets()


def reset_to_contract() -> None:
    S.thresholds = replace(S.thresholds, calibration=None, source="draft" if S.thresholds.panel != DEFAULT.panel else "default")
    clear_widgets()


def apply_preset(name_key: str) -> None:
    name = S[name_key]
    if name in S.presets:
        S.thresholds = S.presets[name]
        clear_widgets()


def load_preset_file(upload: Upload) -> str | None:
    """A thresholds file's presets join the list; its main set is applied. Returns an error text."""
    try:
        tf = threshold_file(upload.name, upload.digest, upload.data)
    except InputError as e:
        return str(e)
    S.presets = dict(tf.presets)
    S.preset_file = upload.name
    S.thresholds = tf.thresholds
    clear_widgets()
    return None


def panel_value(field: str) -> int:
    return getattr(S.thresholds.panel, field)


def calibration_value(field: str, contract: JudgeCalibrationContract) -> int:
    t: ThresholdSet = S.thresholds
    base = t.calibration or CalibrationThresholds.from_contract(contract)
    return getattr(base, field)


def thresholds_json() -> str:
    return S.thresholds.to_json()


def draft_contract_json(contract: JudgeCalibrationContract) -> str:
    cal = S.thresholds.calibration
    c = contract.with_thresholds(cal) if cal is not None else contract
    return json.dumps({"content_id": c.content_id, "contract": c.to_dict()}, indent=2) + "\n"




def presets() -> dict[str, ThresholdSet]:
    return S.presets




def entered(title: str) -> None:
    """Each run of the page titled ``title``: what the user left in its tabs (:func:`tab_views`)
    is kept while they stay on one page and forgotten when they go to another, as Streamlit keeps
    a hidden widget's value under ``persist_state="page"``."""
    if S.get("page_in_view") != title:
        S.page_in_view, S.tab_views = title, {}


def tab_views() -> dict[str, Any]:
    """What the user left in this page's tabs, by widget key: a section open (widgets.section_when_open),
    a pair picked. Streamlit forgets a widget that a run does not draw (its tab closed); the page
    draws it again from here when its tab opens."""
    return S.setdefault("tab_views", {})


def forget_tab_views() -> None:
    """Other data adopted: its tabs start as new ones do (sections closed, pairs at their defaults),
    whatever the earlier data's tabs of the same names were left showing."""
    for key in tab_views():
        S.pop(key, None)
    S.tab_views = {}


def remember_fallback(message: str, reading: tuple[Any, ...]) -> None:
    """The level (or positive category) chosen could not read the data, which was measured at the
    suggested one: why, and the ``reading`` fallen back to (the message holds while it is in force)."""
    S.level_fallback = (reading, message)


def fallback() -> tuple[tuple[Any, ...], str] | None:
    return S.get("level_fallback")


def remember_error(slot: str, message: str | None) -> None:
    S.errors[slot] = message


def error(slot: str) -> str | None:
    return S.errors.get(slot)
