"""The frame's threshold displays: the banner of edited thresholds (every page, phones too), the
sidebar (presets, the thresholds in force, what is loaded, the history's state) and the
thresholds in force in one line."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreebound.core.thresholds import (DEFAULT, SCORED_FIELDS, THRESHOLD_WORDS, CalibrationThresholds,
                                         ThresholdSet)
from agreebound.ui import auth, runs, state
from agreebound.ui.blocks import md
from agreebound.ui.loading import judge
from agreebound.ui.state import K, session


def threshold_banner() -> None:
    """On every page, phones too: the thresholds that differ from the defaults (or the bound
    contract), each beside its default, with a reset. Nothing when all are the defaults."""
    from agreebound.core.thresholds import edits

    # Always the same slot, banner or not: when the banner comes and goes, the page updates the
    # elements below it instead of rebuilding them (a slider move's strip arrives sooner).
    slot = st.container(key="threshold_slot")
    t = state.thresholds()
    contract = judge().contract
    changed = edits(t, CalibrationThresholds.from_contract(contract)) + scored_edits(t)
    if not changed:
        return
    source = {"link": "a shared link", "draft": "edits on the What-if page"}.get(t.source, md(t.source, 80))
    with slot, st.container(key="edited_thresholds"):
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.warning(f"**Decided under edited thresholds** (from {source}): " + "; ".join(changed) + ".")
        right.button("Reset to defaults", on_click=state.reset_defaults, key=K.BANNER_RESET)


def scored_edits(t: ThresholdSet) -> list[str]:
    """The graded judges' thresholds that differ from their defaults, in words (for the banner)."""
    out = []
    for name in SCORED_FIELDS:
        now, then = getattr(t.scored, name), getattr(DEFAULT.scored, name)
        if now != then:
            words, fmt = THRESHOLD_WORDS[name]
            out.append(f"graded judge {words} {fmt(now)} (default {fmt(then)})")
    return out


def _judge_limits_words(t: Any) -> str:
    """What the judge is measured against: "the bound contract" only for a contract the user gave
    (a judge log without one is measured against illustrative limits and not decided)."""
    loaded = session.loaded("judge")
    given = loaded is None or loaded.recipe.source != "log" or loaded.recipe.contract is not None
    if not given:
        return "illustrative limits (no contract)" if t.calibration is None else "the thresholds in force (no contract)"
    return "the bound contract" if t.calibration is None else "a draft contract"


def sidebar(live: bool = False) -> None:
    """``live``: the page edits the thresholds in a fragment, which shows the values in force
    itself (the sidebar is not redrawn on a fragment's rerun)."""
    with st.sidebar:
        st.markdown("**Thresholds**")
        names = list(state.presets())
        st.selectbox("Preset", names, index=None, placeholder="choose a preset...", key=K.PRESET_PICK,
                     on_change=state.apply_preset, args=(K.PRESET_PICK,),
                     help=f"Presets: built-in, plus those in {md(session.preset_file, 80)}")
        t = state.thresholds()
        if live:
            st.caption("Edited on this page: the banner and the verdict strip show the values in force.")
        else:
            st.caption(f"In force: {md(t.source)}")
            st.markdown(f"- alpha floor **{t.panel.alpha_floor_permil / 1000:.3f}** ({t.panel.alpha_floor_permil} permil)\n"
                        f"- spread cap **{t.panel.ratio_cap_permil / 1000:.2f}x** ({t.panel.ratio_cap_permil} permil)\n"
                        f"- judge: **{_judge_limits_words(t)}**"
                        + ("\n- strict (interval bounds): **panel**" if t.panel.strict else "")
                        + ("\n- strict (interval bounds): **judge**" if t.calibration and t.calibration.strict else "")
                        + (f"\n- graded judge: {_scored_words(t, '**')}" if session.scored_source is not None else ""))
        st.button("Reset to defaults", on_click=state.reset_defaults, key=K.SIDEBAR_RESET)
        st.markdown("**Loaded**")
        st.caption(f"Panel: {md(session.panel_source.label)}")
        st.caption(f"Judge: {md(session.judge_source.label)}")
        if session.scored_source is not None:  # a graded or pass/fail judge, held beside (ui.scored)
            st.caption(f"Graded judge: {md(session.scored_source.label)}")
        st.markdown("**History**")
        if runs.where() != "off":
            st.toggle("Record uploads", value=True, key=K.RECORD_RUNS,
                      help="Each upload that parses is recorded as a run: its bytes (stored once), mapping, "
                           "thresholds and verdicts. A reload or a ?run= link restores it.")
        st.caption(md(runs.status(), 300))
        auth.sidebar_lines()


def thresholds_words() -> str:
    """The thresholds in force in one line, for places a phone shows (the sidebar is hidden there)."""
    t = state.thresholds()
    return (f"alpha floor {t.panel.alpha_floor_permil / 1000:.3f}, spread cap {t.panel.ratio_cap_permil / 1000:.2f}x, "
            f"judge: {_judge_limits_words(t)}" + (", strict: panel" if t.panel.strict else "")
            + (", strict: judge" if t.calibration and t.calibration.strict else "")
            + (f", graded judge: {_scored_words(t)}" if session.scored_source is not None else ""))


def _scored_words(t: Any, bold: str = "") -> str:
    """A graded judge's thresholds in force (ThresholdSet.scored), in display units."""
    from agreebound.core.thresholds import THRESHOLD_WORDS

    margin, floor = t.scored.admissibility_margin_permil, t.scored.judge_alpha_floor_permil
    return (f"margin {bold}{THRESHOLD_WORDS['admissibility_margin_permil'][1](margin)}{bold}, "
            f"floor {bold}{THRESHOLD_WORDS['judge_alpha_floor_permil'][1](floor)}{bold}")
