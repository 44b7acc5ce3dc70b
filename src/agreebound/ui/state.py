"""Session state: what is loaded, and the one canonical threshold set every page decides under.

This module is the one owner of ``st.session_state``. Its keys are the constants of :class:`K`
(a widget's ``key=`` among them); :data:`session` reads them through its properties, and its named
setters are the only code that writes them. No other module of the dashboard touches
``st.session_state`` (tests/ui/test_session_state_owner.py holds them to it).

Widgets never own state: each has its own key and an ``on_change`` callback that writes the
canonical value, so a page can be left and revisited without losing anything, and nothing is
assigned to a widget key after the widget is drawn.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import streamlit as st

from agreebound.judge.contract import JudgeCalibrationContract
from agreebound.io.threshold_files import parse_threshold_link
from agreebound.core.errors import InputError
from agreebound.app.recipes import JudgeRecipe, PanelRecipe
from agreebound.core.thresholds import DEFAULT, RANGES, CalibrationThresholds, ThresholdSet
from agreebound.ui.data import JUDGE_SAMPLES, PANEL_SAMPLES, Loaded, Upload, threshold_file

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from agreebound.panel.categories import Level

_D = TypeVar("_D", bound="DataclassInstance")

_S = st.session_state


class K:
    """Every session-state key and widget key of the dashboard. ``"..{}.."``: a key per kind, dimension or
    index (``K.RECORD_ERROR.format("panel")``); a name ending in ``_``: a prefix. A container's key (CSS
    only, no state) is not here."""

    # what is loaded, and how the panel is read
    PANEL_SOURCE, JUDGE_SOURCE, SCORED_SOURCE = "panel_source", "judge_source", "scored_source"
    SCORED_OVER, SCORED_FOR = "scored_over", "scored_for"  # the pairwise judge it was loaded over; decided for
    PENDING, JUDGE_UNMAPPED, JUDGE_UNBOUND = "pending", "judge_unmapped", "judge_unbound"
    LEVEL, POSITIVE, INTERVAL = "level", "positive", "interval"
    # thresholds, messages, what the user left where
    THRESHOLDS, PRESETS, PRESET_FILE, URL_ERROR = "thresholds", "presets", "preset_file", "url_error"
    ERRORS, LEVEL_FALLBACK, PAGE_IN_VIEW, TAB_VIEWS = "errors", "level_fallback", "page_in_view", "tab_views"
    VERDICTS_SHOWN = "verdicts_shown"  # per page: the verdicts last drawn (ui.into_view)
    STORE_ERROR, HISTORY_MESSAGE = "store_error", "history_message"
    HISTORY_SKIPPED, OPEN_RUN = "history_skipped", "open_run"
    RECORD_ERROR, RUN = "record_error_{}", "{}_run"  # per kind: "panel", "judge", "scored"
    RECORD_MESSAGE, RECORD_MESSAGE_SCORED = "record_message", "record_message_scored"
    FOLDER_DIAGNOSTICS, FOLDER_GO, FOLDER_MESSAGE = "folder_diagnostics", "folder_go", "folder_message"
    # the frame: sidebar, banner, sign-in
    PRESET_PICK, SIDEBAR_RESET = "preset_pick", "sidebar_reset"
    BANNER_RESET, RECORD_RUNS = "banner_reset", "record_runs"
    SIGN_IN, SIGN_OUT, SIGN_OUT_REFUSED = "sign_in", "sign_out", "sign_out_refused"
    # What-if: a slider and a number input per threshold field, a strict box per kind; the editors' tab; sections
    SLIDER_, NUMBER_, CHECK_, STRICT = "slider_", "number_", "check_", "check_{}_strict"
    RESET_CONTRACT, THRESHOLDS_UPLOAD, WHATIF_LEVEL = "reset_contract", "thresholds_upload", "whatif_level_{}"
    DL_THRESHOLDS, DL_CONTRACT, SWEEP_GATE, SWEEP_CHART, SWEEP = "dl_thresholds", "dl_contract", "sweep_gate", "sweep_chart", "whatif_sweep"
    WHATIF_GROUP, WHATIF_TABLES, WHATIF_DOWNLOADS, WHATIF_LOAD = "whatif_group", "whatif_tables", "whatif_dl", "whatif_load"
    # the panel: pickers, uploads, tabs, sections, charts
    LEVEL_WIDGET, POSITIVE_WIDGET, INTERVAL_WIDGET = "level_widget", "positive_widget", "interval_widget"
    SAMPLE, LEVEL_SWITCH = "{}_sample", "level_switch_{}"  # a sample picker per kind; a switch per dimension
    # a label dimension's categories: their order and recoding (a box each per dimension and data; an apply button)
    ORDER_TEXT, RECODE_TEXT, ORDER_APPLY = "order_text_{}_{}", "recode_text_{}_{}", "order_apply_{}"
    RATINGS_UPLOAD, RATES_UPLOAD = "ratings_upload", "rates_upload"
    PANEL_TAB, PANEL_DIMENSION = "panel_tab", "panel_dimension"
    DIAGNOSTICS, COEFFICIENTS, EXACT, STUDY = "diagnostics_{}", "coefficients_{}", "exact_{}", "study_{}"  # sections
    STUDY_RULE, STUDY_RATER, STUDY_DL, STUDY_GO = "study_rule_{}", "study_rater_{}", "study_dl_{}_{}", "study_go_{}"
    ALPHA_CHART, RATES_CHART, COINCIDENCE_CHART = "alpha_{}", "rates_{}", "coinc_{}"
    PAIRS_CHART, CONFUSION_CHART, PAIR_PICK = "pairs_{}", "confusion_{}", "pair_pick_{}"
    FOLDER_PICK, FOLDER_MEASURE, FOLDER_DIAGNOSE = "folder_pick", "folder_measure", "folder_diag_{}"
    OVERVIEW_GATE, OVERVIEW_JUDGE_GATE, OVERVIEW_CHARTS = "ov_{}_{}", "ov_judge_{}", "ov_charts_{}"  # a box's charts
    # the mapping preview (every key starts with PV_, cleared with each new file)
    PV_ = "pv_"
    PV_LAYOUT, PV_SHEET, PV_HEADER, PV_SKIP, PV_DECIMAL = "pv_layout", "pv_sheet", "pv_header", "pv_skip", "pv_decimal"
    PV_MISSING, PV_UNIT, PV_RATER = "pv_missing", "pv_unit", "pv_rater"
    PV_VALUE, PV_DIMENSION, PV_IGNORE, PV_HUMANS = "pv_value", "pv_dimension", "pv_ignore", "pv_humans"
    PV_LEVEL, PV_LEVEL_SWITCH = "pv_level", "pv_level_switch"
    PV_MEASURE, PV_CANCEL, PV_MAPPING_FILE, PV_MAPPING_DOWNLOAD = ("pv_measure", "pv_cancel", "pv_mapping_file",
                                                                   "pv_mapping_download")
    # the judge: uploads, pickers, tables, the contract editor (its fields: CE_ + the contract's field name)
    BUNDLE_UPLOAD, LOG_MAPPING_UPLOAD = "bundle_upload", "log_mapping_upload"
    LOG_REFERENCES_UPLOAD, LOG_CONTRACT_UPLOAD = "log_references_upload", "log_contract_upload"
    CONTRACT_UPLOAD, REFERENCES_UPLOAD, OBSERVATIONS_UPLOAD = ("contract_upload", "references_upload",
                                                               "observations_upload")
    LOAD_TABLES, BIND_CONTRACT, JUDGE_PICK, CASE_FILTER, CAL_RATES = ("load_tables", "bind_contract", "judge_pick",
                                                                      "case_filter", "cal_rates")
    SLICE_PICK, SLICE_METHOD, SLICE_CHART = "slice_pick", "slice_method", "slice_chart"  # the Judge page's slices
    RANK_MODEL, RANK_BASELINE, RANK_MARGIN = "rank_model", "rank_baseline", "rank_margin"  # the ranking's gate
    CE_, CE_LOADED, CE_RUBRIC_DIGEST, CE_RUBRIC_TEXT = "ce_", "ce_loaded", "ce_rubric_digest", "ce_rubric_text"
    CE_DOWNLOAD, CE_RESET = "ce_download", "ce_reset"
    # the graded judge
    SCORED_FOR_PICK, SCORED_LEVEL_PICK = "scored_for_pick", "scored_level_pick"
    SCORED_SHOW, SCORED_TAB, SCORED_RECAL, SCORED_MAP_DL = "scored_show", "scored_tab", "scored_recal", "scored_map_dl_{}"
    SCORED_GATE, SCORED_HEATMAP, SCORED_RELIABILITY = "scored_gate_{}_{}", "scored_heatmap_{}", "scored_reliability_{}"
    # history and reports: a run recorded, opened, shared, compared, pruned; downloads per kind and format
    RECORD, RECORD_LABEL, REPORT_DOWNLOAD = "record_{}", "record_label_{}", "dl_{}_{}"
    HISTORY_NAME, HISTORY_KIND, HISTORY_VERDICT = "history_name", "history_kind", "history_verdict"
    HISTORY_JUDGE, HISTORY_CONTRACT = "history_judge", "history_contract"
    HISTORY_SINCE, HISTORY_UNTIL, HISTORY_TABLE = "history_since", "history_until", "history_table"
    HISTORY_PICK, HISTORY_OPEN, HISTORY_DELETE, SHARE_PICK = "history_pick", "history_open", "history_delete", "share_pick"
    HISTORY_TIMELINE_NAME, TIMELINE_CHART = "history_timeline_name", "timeline_chart_{}"
    BAND_BASELINE, BAND_METHOD, BAND_CHART = "band_baseline_{}", "band_method_{}", "band_chart_{}_{}"  # per kind
    COMPARE_A, COMPARE_B, PRUNE_DAYS, PRUNE_NOW, AUDIT_TABLE = ("compare_a", "compare_b", "prune_days", "prune_now",
                                                                "audit_table")
    TEMPLATE = "template_{}"


#: The session's slot of each kind of loaded data.
SLOTS = {"panel": K.PANEL_SOURCE, "judge": K.JUDGE_SOURCE, "scored": K.SCORED_SOURCE}
#: The panel's pickers, drawn again from the canonical reading when it changes.
PICKERS = (K.LEVEL_WIDGET, K.POSITIVE_WIDGET, K.INTERVAL_WIDGET)


class Session:
    """``st.session_state`` through names: what is loaded, the panel's reading, the thresholds, the
    messages a page shows once. The setters are the only writers of session state."""

    # --- what is loaded -----------------------------------------------------------------------------

    @property
    def panel_source(self) -> Loaded[PanelRecipe]:
        return _S[K.PANEL_SOURCE]

    @property
    def judge_source(self) -> Loaded[JudgeRecipe]:
        return _S[K.JUDGE_SOURCE]

    @property
    def scored_source(self) -> Loaded[JudgeRecipe] | None:
        """A graded or pass/fail judge held beside the pairwise one (ui.scored), or None."""
        return _S.get(K.SCORED_SOURCE)

    @property
    def scored_over(self) -> Loaded[JudgeRecipe] | None:
        """The pairwise judge the graded one was loaded over (the Judge page shows the one loaded last)."""
        return _S.get(K.SCORED_OVER)

    @property
    def scored_for(self) -> str | None:
        """The judge of a graded log the decision is about (None: every judge)."""
        return _S.get(K.SCORED_FOR)

    @overload
    def loaded(self, kind: Literal["panel"]) -> Loaded[PanelRecipe] | None: ...
    @overload
    def loaded(self, kind: Literal["judge", "scored"]) -> Loaded[JudgeRecipe] | None: ...
    @overload
    def loaded(self, kind: str) -> Loaded[PanelRecipe | JudgeRecipe] | None: ...

    def loaded(self, kind: str) -> Loaded[PanelRecipe | JudgeRecipe] | None:
        """What the session holds of ``kind`` ("panel", "judge", "scored"), or None."""
        return _S.get(SLOTS[kind])

    @property
    def pending(self) -> dict[str, Any] | None:
        """An uploaded file in the mapping preview, not yet measured (ui.preview)."""
        return _S.get(K.PENDING)

    @property
    def judge_unmapped(self) -> Upload | None:
        return _S.get(K.JUDGE_UNMAPPED)

    @property
    def judge_unbound(self) -> Upload | None:
        return _S.get(K.JUDGE_UNBOUND)

    def set_loaded(self, kind: str, loaded: Loaded[PanelRecipe | JudgeRecipe]) -> None:
        _S[SLOTS[kind]] = loaded

    def hold_scored(self, source: Loaded[JudgeRecipe]) -> None:
        """A graded judge adopted: held, and shown over the pairwise judge loaded now."""
        _S[K.SCORED_SOURCE] = source
        self.show_scored()

    def show_scored(self) -> None:
        _S[K.SCORED_OVER] = _S.get(K.JUDGE_SOURCE)

    def set_scored_for(self, judge: str | None, forget_pick: bool = False) -> None:
        _S[K.SCORED_FOR] = judge
        if forget_pick:
            self.forget(K.SCORED_FOR_PICK)

    def set_pending(self, pending: dict[str, Any] | None) -> None:
        _S[K.PENDING] = pending

    def verdicts_changed(self, page: str, shown: object) -> bool:
        """Note the verdicts ``page`` draws now; True when they differ from the ones it drew last (an
        action changed them), False the first time and when they are the same (a rerun, a scroll)."""
        seen = _S.setdefault(K.VERDICTS_SHOWN, {})
        before = seen.get(page)
        seen[page] = shown
        return before is not None and before != shown

    def set_judge_unmapped(self, upload: Upload | None) -> None:
        _S[K.JUDGE_UNMAPPED] = upload

    def set_judge_unbound(self, upload: Upload | None) -> None:
        _S[K.JUDGE_UNBOUND] = upload

    # --- the panel's reading: its level, positive category and interval ---------------------------------

    @property
    def level(self) -> Level | Literal["auto"]:
        return _S[K.LEVEL]

    @property
    def positive(self) -> Any:
        return _S[K.POSITIVE]

    @property
    def interval(self) -> str:
        return _S.get(K.INTERVAL, "units")

    def set_reading(self, level: Level | Literal["auto"], positive: Any, interval: str | None = None) -> None:
        """The reading in force (``interval`` None: kept); the pickers are drawn again from it."""
        _S[K.LEVEL], _S[K.POSITIVE] = level, positive
        if interval is not None:
            _S[K.INTERVAL] = interval
        self.forget(*PICKERS)

    def set_positive(self, positive: Any) -> None:
        """The positive category alone (before its picker is drawn: one no longer offered is "auto")."""
        _S[K.POSITIVE] = positive

    def switch_level(self, level: Level | Literal["auto"]) -> None:
        """The one-click switch (an on_click): the level becomes the user's choice (the picker follows)."""
        _S[K.LEVEL] = level
        self.forget(K.LEVEL_WIDGET)

    def take_pick(self, widget: str) -> None:
        """on_change of a panel picker: its value becomes the canonical one."""
        _S[{K.LEVEL_WIDGET: K.LEVEL, K.POSITIVE_WIDGET: K.POSITIVE, K.INTERVAL_WIDGET: K.INTERVAL}[widget]] = _S[widget]

    # --- thresholds -------------------------------------------------------------------------------------

    @property
    def thresholds(self) -> ThresholdSet:
        return _S[K.THRESHOLDS]

    @property
    def presets(self) -> dict[str, ThresholdSet]:
        return _S[K.PRESETS]

    @property
    def preset_file(self) -> str:
        return _S[K.PRESET_FILE]

    def set_thresholds(self, t: ThresholdSet, redraw: bool = False) -> None:
        """``redraw``: the editors forget their values and are drawn again from ``t``."""
        _S[K.THRESHOLDS] = t
        if redraw:
            self.forget(*[k for k in _S.keys() if str(k).startswith((K.SLIDER_, K.NUMBER_, K.CHECK_))])

    def set_presets(self, presets: dict[str, ThresholdSet], file: str) -> None:
        _S[K.PRESETS], _S[K.PRESET_FILE] = presets, file

    # --- messages and what the user left ------------------------------------------------------------------

    @property
    def url_error(self) -> str | None:
        return _S.get(K.URL_ERROR)

    def set_url_error(self, text: str | None) -> None:
        _S[K.URL_ERROR] = text

    def error(self, slot: str) -> str | None:
        return _S[K.ERRORS].get(slot)

    def remember_error(self, slot: str, message: str | None) -> None:
        _S[K.ERRORS][slot] = message

    @property
    def fallback(self) -> tuple[tuple[Any, ...], str] | None:
        return _S.get(K.LEVEL_FALLBACK)

    def remember_fallback(self, message: str, reading: tuple[Any, ...]) -> None:
        """The level (or positive category) chosen could not read the data, which was measured at the
        suggested one: why, and the ``reading`` fallen back to (the message holds while it is in force)."""
        _S[K.LEVEL_FALLBACK] = (reading, message)

    def entered(self, title: str) -> None:
        """Each run of the page titled ``title``: what the user left in its tabs (:meth:`tab_views`)
        is kept while they stay on one page and forgotten when they go to another, as Streamlit keeps
        a hidden widget's value under ``persist_state="page"``."""
        if _S.get(K.PAGE_IN_VIEW) != title:
            _S[K.PAGE_IN_VIEW], _S[K.TAB_VIEWS] = title, {}

    def tab_views(self) -> dict[str, Any]:
        """What the user left in this page's tabs, by widget key: a section open (blocks.section_when_open),
        a pair picked. Streamlit forgets a widget that a run does not draw (its tab closed); the page
        draws it again from here when its tab opens."""
        return dict(_S.get(K.TAB_VIEWS) or {})

    def remember_tab_view(self, key: str, value: Any) -> None:
        _S[K.TAB_VIEWS] = {**(_S.get(K.TAB_VIEWS) or {}), key: value}

    def forget_tab_views(self) -> None:
        """Other data adopted: its tabs start as new ones do (sections closed, pairs at their defaults),
        whatever the earlier data's tabs of the same names were left showing."""
        self.forget(*self.tab_views())
        _S[K.TAB_VIEWS] = {}

    # --- history ---------------------------------------------------------------------------------------

    @property
    def store_error(self) -> str | None:
        return _S.get(K.STORE_ERROR)

    def set_store_error(self, text: str | None) -> None:
        _S[K.STORE_ERROR] = text

    def say_history(self, kind: str, text: str) -> None:
        """A message for the History page's next run: ("error" or "info", the text)."""
        _S[K.HISTORY_MESSAGE] = (kind, text)

    def take_history_message(self) -> tuple[str, str] | None:
        message = _S.get(K.HISTORY_MESSAGE)
        if message:
            _S[K.HISTORY_MESSAGE] = None
        return message

    @property
    def history_skipped(self) -> list[str]:
        return _S.get(K.HISTORY_SKIPPED) or []

    def set_history_skipped(self, ids: list[str]) -> None:
        _S[K.HISTORY_SKIPPED] = ids

    def ask_to_open(self, run_id: str | None) -> None:
        """The run the History page opens on its next run."""
        _S[K.OPEN_RUN] = run_id

    def take_run_to_open(self) -> str | None:
        run_id = _S.get(K.OPEN_RUN)
        if run_id:
            _S[K.OPEN_RUN] = None
        return run_id

    def record_error(self, kind: str) -> str | None:
        return _S.get(K.RECORD_ERROR.format(kind))

    def set_record_error(self, kind: str, text: str | None) -> None:
        _S[K.RECORD_ERROR.format(kind)] = text

    def set_run(self, kind: str, run_id: str) -> None:
        _S[K.RUN.format(kind)] = run_id

    def say_recorded(self, kind: str, text: str) -> None:
        """"Recorded run ..." for the next run of the page (the pairwise kinds share one message)."""
        _S[K.RECORD_MESSAGE_SCORED if kind == "scored" else K.RECORD_MESSAGE] = text

    def take_record_message(self, kind: str) -> str | None:
        key = K.RECORD_MESSAGE_SCORED if kind == "scored" else K.RECORD_MESSAGE
        message = _S.get(key)
        if message:
            _S[key] = None
        return message

    @property
    def recording_on(self) -> bool:
        """The sidebar's "Record uploads" (on unless switched off)."""
        return bool(_S.get(K.RECORD_RUNS, True))

    # --- the data folder -------------------------------------------------------------------------------

    @property
    def folder_diagnostics(self) -> set[tuple[str, str, str]]:
        return _S.get(K.FOLDER_DIAGNOSTICS, set())

    def ask_folder_diagnostics(self, asked: tuple[str, str, str]) -> None:
        """on_click: compute the per-rater diagnostics of folder data (digest, level, dimension)."""
        _S[K.FOLDER_DIAGNOSTICS] = self.folder_diagnostics | {asked}

    def press_folder_go(self) -> None:
        _S[K.FOLDER_GO] = True

    def take_folder_go(self) -> bool:
        return bool(_S.pop(K.FOLDER_GO, False))

    @property
    def folder_message(self) -> str | None:
        return _S.get(K.FOLDER_MESSAGE)

    def set_folder_message(self, text: str) -> None:
        _S[K.FOLDER_MESSAGE] = text

    # --- widgets by key (a K constant) ------------------------------------------------------------------

    def widget(self, key: str, default: Any = None) -> Any:
        """A widget's value (an uploader's file, a picker's choice), or ``default``."""
        return _S.get(key, default)

    def has(self, key: str) -> bool:
        return key in _S

    def set_widget(self, key: str, value: Any) -> None:
        """A widget's value: before the widget is drawn, or in a callback (never after it is drawn)."""
        _S[key] = value

    def seed_widget(self, key: str, value: Any) -> None:
        """A widget's first value, when it has none yet."""
        if key not in _S:
            _S[key] = value

    def forget(self, *keys: str | int) -> None:
        for key in keys:
            _S.pop(key, None)

    def forget_prefixed(self, prefix: str, keep: str | None = None) -> None:
        self.forget(*[k for k in _S.keys() if str(k).startswith(prefix) and k != keep])

    # --- the first run --------------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return K.PANEL_SOURCE in _S

    def start(self, presets: dict[str, ThresholdSet], preset_file: str, t: ThresholdSet, url_error: str | None) -> None:
        """A new session: the samples loaded, the suggested reading, ``t`` in force."""
        _S[K.PANEL_SOURCE] = Loaded(next(iter(PANEL_SAMPLES)), PanelRecipe((Upload.sample("detector_panel.csv"),)))
        _S[K.PENDING] = None  # an uploaded file in the mapping preview, not yet measured
        _S[K.JUDGE_SOURCE] = Loaded(next(iter(JUDGE_SAMPLES)),
                                    JudgeRecipe(Upload.sample("judge_failing.json"), "bundle"))
        _S[K.JUDGE_UNMAPPED] = None  # uploaded JSON Lines of an unknown shape, waiting for its mapping file
        _S[K.JUDGE_UNBOUND] = None  # an uploaded bundle bound to another contract: "bind to this contract" offers it
        _S[K.LEVEL] = "auto"  # the level suggested for the values, with its reason shown
        _S[K.POSITIVE] = "auto"
        _S[K.INTERVAL] = "units"  # alpha's interval: the units bootstrap (or "pairs", KALPHA's)
        _S[K.ERRORS] = {}
        _S[K.PRESETS], _S[K.PRESET_FILE] = presets, preset_file
        _S[K.THRESHOLDS] = t
        _S[K.URL_ERROR] = url_error


#: The session of the script run in progress (st.session_state is per session already).
session = Session()


def init() -> bool:
    """First run of a session: samples loaded, thresholds from the URL (validated) or defaults.
    True on that first run (the frame then opens the link's runs, if any)."""
    if session.started:
        return False
    sample = Upload.sample("thresholds.toml")
    tf = threshold_file(sample.name, sample.digest, sample.data)
    t, url_error = DEFAULT, None
    raw = st.query_params.get("th")
    if raw:
        try:
            t = parse_threshold_link(raw)
        except InputError as e:  # a hand-edited link: say so (as text), keep defaults
            leaf = (e.column or "").split(".")[-1]
            where = f"{e.column}: " if e.column and leaf not in e.reason else ""
            url_error = f"The link's thresholds were ignored: {where}{e.reason}"
    session.start(dict(tf.presets), "sample_data/thresholds.toml", t, url_error)
    return True


def thresholds() -> ThresholdSet:
    return session.thresholds


# --- edits (all called from callbacks) -------------------------------------------------------


def edit_table(field: str, widget_key: str, table: str) -> None:
    """A threshold of a ThresholdSet's table ("panel", "scored", "drift"), from its slider or number input."""
    value = int(session.widget(widget_key))
    t = session.thresholds
    session.set_thresholds(replace(t, **{table: _with(getattr(t, table), field, value)}, source="draft"))
    _mirror(field, value)


def edit_panel(field: str, widget_key: str) -> None:
    edit_table(field, widget_key, "panel")


def switch_panel_gate(field: str, widget_key: str) -> None:
    """An optional panel gate (OPTIONAL_PANEL_GATES) turned on at the lowest legal value of its field,
    or off (None): threshold data, as a file or a link would set it."""
    on = bool(session.widget(widget_key))
    value = RANGES[field].lo if on else None
    t = session.thresholds
    session.set_thresholds(replace(t, panel=_with(t.panel, field, value), source="draft"))
    if value is not None:
        _mirror(field, value)


def edit_calibration(field: str, widget_key: str, contract: JudgeCalibrationContract) -> None:
    value = int(session.widget(widget_key))
    t = session.thresholds
    base = t.calibration or CalibrationThresholds.from_contract(contract)
    session.set_thresholds(replace(t, calibration=_with(base, field, value), source="draft"))
    _mirror(field, value)


def edit_strict(kind: str, widget_key: str, contract: JudgeCalibrationContract) -> None:
    value = bool(session.widget(widget_key))
    t = session.thresholds
    if kind == "panel":
        session.set_thresholds(replace(t, panel=replace(t.panel, strict=value), source="draft"))
    else:
        base = t.calibration or CalibrationThresholds.from_contract(contract)
        session.set_thresholds(replace(t, calibration=replace(base, strict=value), source="draft"))


def edit_scored(field: str, widget_key: str) -> None:
    """A graded or pass/fail judge's threshold (ThresholdSet.scored), from its slider or number input."""
    edit_table(field, widget_key, "scored")


def _with(obj: _D, field: str, value: int | None) -> _D:
    """``obj`` with the field an editor names (at run time) set to ``value``."""
    return replace(obj, **{field: value})


def _mirror(field: str, value: int) -> None:
    """Keep a slider and its number input showing the same value (inside a callback: allowed)."""
    for prefix in (K.SLIDER_, K.NUMBER_):
        session.set_widget(prefix + field, value)


def reset_defaults() -> None:
    session.set_thresholds(DEFAULT, redraw=True)


def reset_to_contract() -> None:
    t = session.thresholds
    session.set_thresholds(replace(t, calibration=None, source="draft" if t.panel != DEFAULT.panel else "default"),
                           redraw=True)


def apply_preset(name_key: str) -> None:
    name = session.widget(name_key)
    if name in session.presets:
        session.set_thresholds(session.presets[name], redraw=True)


def load_preset_file(upload: Upload) -> str | None:
    """A thresholds file's presets join the list; its main set is applied. Returns an error text."""
    try:
        tf = threshold_file(upload.name, upload.digest, upload.data)
    except InputError as e:
        return str(e)
    session.set_presets(dict(tf.presets), upload.name)
    session.set_thresholds(tf.thresholds, redraw=True)
    return None


def panel_value(field: str) -> int:
    return getattr(session.thresholds.panel, field)


def panel_optional(field: str) -> int | None:
    """An optional panel gate's threshold in force; None when the gate is off."""
    value: int | None = getattr(session.thresholds.panel, field)
    return value


def calibration_value(field: str, contract: JudgeCalibrationContract) -> int:
    t = session.thresholds
    base = t.calibration or CalibrationThresholds.from_contract(contract)
    return getattr(base, field)


def calibration_optional(field: str, contract: JudgeCalibrationContract) -> int | None:
    """An opt-in judge gate's threshold in force (NET_GATES); None when it is not gated."""
    t = session.thresholds
    base = t.calibration or CalibrationThresholds.from_contract(contract)
    value: int | None = getattr(base, field)
    return value


def thresholds_json() -> str:
    return session.thresholds.to_json()


def draft_contract_json(contract: JudgeCalibrationContract) -> str:
    cal = session.thresholds.calibration
    c = contract.with_thresholds(cal) if cal is not None else contract
    return json.dumps({"content_id": c.content_id, "contract": c.to_dict()}, indent=2) + "\n"


def presets() -> dict[str, ThresholdSet]:
    return session.presets


def remember_error(slot: str, message: str | None) -> None:
    session.remember_error(slot, message)


def error(slot: str) -> str | None:
    return session.error(slot)
