"""The Panel page's pickers: the level of measurement, the positive category, alpha's interval,
and the samples (of either page). Each picker has its own key and copies its value to the
canonical reading in its on_change (ui.state.session.take_pick)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreebound.app.recipes import JudgeRecipe, PanelRecipe
from agreebound.core.escape import printable
from agreebound.core.limits import LISTED_CATEGORIES
from agreebound.panel.categories import LEVELS
from agreebound.panel.decision import PanelDecision
from agreebound.panel.measure import PanelMeasurement
from agreebound.ui import state
from agreebound.ui.data import JUDGE_SAMPLES, PANEL_SAMPLES, Loaded, Upload
from agreebound.ui.loading import try_judge_source, try_panel_source
from agreebound.ui.state import K, session


def level_picker(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> None:
    """auto (nobody's choice: the default level for each dimension's values, levels.default_level)
    or one level for all; the suggested level is offered beside the verdict (level_table)."""
    defaults = sorted({m.level for m, _ in decisions.values() if m.level_origin[0] == "default"})
    auto = f"auto: {defaults[0]} (the default)" if len(defaults) == 1 else "auto: the default per dimension"
    if not session.has(K.LEVEL_WIDGET) or session.widget(K.LEVEL_WIDGET) not in LEVEL_OPTIONS:
        session.set_widget(K.LEVEL_WIDGET, session.level if session.level in LEVEL_OPTIONS else "auto")
    st.selectbox("Level of measurement", LEVEL_OPTIONS, key=K.LEVEL_WIDGET, on_change=session.take_pick,
                 args=(K.LEVEL_WIDGET,), format_func=lambda v: auto if v == "auto" else v,
                 help="nominal: categories; ordinal: ranks; interval: differences; ratio: proportions. auto: "
                      "nominal (the specification's level), or interval for numbers with decimals or more than 20 "
                      "distinct whole numbers. Each dimension shows alpha and the verdict at every level its values "
                      "admit.")


LEVEL_OPTIONS = ("auto",) + LEVELS


def positive_picker(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> None:
    """Which category counts as a detector's positive, for rates derived from the matrix (the
    most frequent categories are offered: a panel may have thousands)."""
    found: dict[Any, int] = {}
    offered = set()
    for m, _ in decisions.values():
        order = m.category_counts.argsort()[::-1][:LISTED_CATEGORIES]
        values = m.alpha.category_set.first(int(order.max()) + 1) if len(order) else ()
        for i in order:
            found[values[i]] = found.get(values[i], 0) + int(m.category_counts[i])
        if m.positive_suggestion is not None:
            offered.add(m.positive_suggestion)
    cats = sorted(found, key=lambda c: (str(type(c)), c))
    options = ["auto"] + cats
    if session.positive not in options:
        session.set_positive("auto")
    if not session.has(K.POSITIVE_WIDGET) or session.widget(K.POSITIVE_WIDGET) not in options:
        session.set_widget(K.POSITIVE_WIDGET, session.positive)
    st.selectbox("Positive category (for the rates and their spread)", options, key=K.POSITIVE_WIDGET, on_change=session.take_pick,
                 args=(K.POSITIVE_WIDGET,),
                 format_func=lambda v: f"{printable(v, 60)} (suggested)" if v in offered and v != "auto"
                 else printable(v, 60),
                 help="auto: 1 for a 0/1 panel, none otherwise (the spread is then not measured). "
                      "An uploaded rates file takes precedence.")


INTERVALS = {"units": "units (cluster bootstrap): a 95% interval",
             "pairs": "pairs (KALPHA): narrower than 95% when units have 3+ ratings"}


def interval_picker() -> None:
    session.seed_widget(K.INTERVAL_WIDGET, session.interval)
    st.radio("Alpha interval", list(INTERVALS), format_func=INTERVALS.get, key=K.INTERVAL_WIDGET, horizontal=True,
             on_change=session.take_pick, args=(K.INTERVAL_WIDGET,),
             help="The interval strict mode, q and 'fragile' read. Units (the default) resamples whole units, so a "
                  "unit's ratings stay together: a 95% interval. Pairs is KALPHA's bootstrap: it resamples pairs "
                  "from the coincidence matrix with D_e fixed, as if the m(m-1)/2 pairs of a unit were independent; "
                  "with 3 or more ratings per unit it covers the true alpha less often than 95%.")


def sample_picker(kind: str) -> None:
    options = list(PANEL_SAMPLES if kind == "panel" else JUDGE_SAMPLES)
    st.selectbox("Or pick a sample", options, index=None, placeholder="choose a sample...", key=K.SAMPLE.format(kind),
                 on_change=load_sample, args=(kind,))


def load_sample(kind: str) -> None:
    """on_change of a sample picker: the sample chosen loaded (what was loaded kept on an error)."""
    label = session.widget(K.SAMPLE.format(kind))
    if label is None:
        return
    if kind == "panel":
        filename, _ = PANEL_SAMPLES[label]
        # new data starts from its own suggestions: in force once it is adopted
        error = try_panel_source(Loaded(label, PanelRecipe((Upload.sample(filename),))), ("auto", "auto", None))
        state.remember_error("panel", error)
    else:
        source, first, *rest = JUDGE_SAMPLES[label]
        references = Upload.sample(rest[0]) if rest and rest[0] else None  # a log's human references
        recipe = JudgeRecipe(Upload.sample(first), source, references=references)
        state.remember_error("judge", try_judge_source(Loaded(label, recipe)))
