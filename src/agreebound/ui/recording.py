"""Recording the view: the loaded data's run (its id is in the URL), a failed recording said, and
"Record this view" (the data under the thresholds in force, with an optional label)."""

from __future__ import annotations

import streamlit as st

from agreebound.ui import runs
from agreebound.ui.blocks import md
from agreebound.ui.loading import judge, panels
from agreebound.ui.state import K, session


def record_controls(kind: str) -> None:
    """The loaded data's run (its id is in the URL), a failed recording said, and "Record this
    view": the data under the thresholds in force, with an optional label."""
    loaded = session.panel_source if kind == "panel" else session.judge_source
    if session.record_error(kind):
        st.warning(md(session.record_error(kind), 500))
    if runs.store() is None:
        return
    with st.expander("History: record this view as a run", expanded=False):
        if loaded.run:
            st.caption(f"This data is run {md(loaded.run)} in the history (the link carries its id, never the data).")
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.text_input("Label (optional)", key=K.RECORD_LABEL.format(kind), max_chars=200,
                        placeholder="e.g. week 48, after retraining")
        right.button("Record this view", key=K.RECORD.format(kind), on_click=record_view, args=(kind,))
        if message := session.take_record_message(kind):
            st.success(md(message))


def record_view(kind: str) -> None:
    """on_click of "Record this view": what is loaded, under the thresholds in force."""
    measured = panels() if kind == "panel" else judge()
    loaded = session.panel_source if kind == "panel" else session.judge_source
    run = runs.record(kind, loaded, measured, label=(session.widget(K.RECORD_LABEL.format(kind)) or "").strip() or None)
    if run is not None:
        session.say_recorded(kind, f"Recorded run {run.id}.")
