"""The What-if page's threshold editors: a slider and a number input per threshold, bound to the
one canonical threshold set (ui.state), each with the measured values under it; strict mode per
domain. Edits are threshold data: a move re-decides, never re-measures."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreebound.core.thresholds import NET_GATES, OPTIONAL_PANEL_GATES, RANGES, RATE_GATES, SLIDER_SPAN, THRESHOLD_WORDS
from agreebound.judge.contract import JudgeCalibrationContract
from agreebound.judge.decision import CalibrationDecision
from agreebound.panel.decision import PanelDecision
from agreebound.panel.measure import PanelMeasurement
from agreebound.render.gates import NET_LABELS, RATE_LABELS
from agreebound.ui import state
from agreebound.ui.blocks import md, more
from agreebound.ui.judge_view import net_text, rate_text
from agreebound.ui.state import K, session


def threshold_pair(label: str, field: str, value: int, step: int, on_change: Any,
                   args: tuple[Any, ...], help_text: str) -> None:
    """A slider and a number input bound to one canonical threshold. The number input takes the
    threshold's whole legal range (agreebound.core.thresholds.RANGES); the slider's track is the
    useful part of it, widened to reach any legal value in force (a link with a cap of 8000)."""
    legal = RANGES[field]
    track_lo, track_hi = SLIDER_SPAN.get(field, (legal.lo, legal.hi))
    track_lo, track_hi = min(track_lo, value), max(track_hi, value)
    slider, number = K.SLIDER_ + field, K.NUMBER_ + field
    for key in (slider, number):
        session.seed_widget(key, value)
    if not track_lo <= session.widget(slider) <= track_hi:
        session.set_widget(slider, value)
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    with left:
        st.slider(label, track_lo, track_hi, step=step, key=slider, on_change=on_change,
                  args=(field, slider, *args), help=help_text)
    with right:
        st.number_input(label, legal.lo, legal.hi, step=1, key=number, on_change=on_change,
                        args=(field, number, *args), label_visibility="hidden")


def panel_editors(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]] | None = None) -> None:
    """``decisions``: show where each dimension's measured value sits, under its slider."""
    threshold_pair("Alpha floor (permil)", "alpha_floor_permil", state.panel_value("alpha_floor_permil"),
                   1, state.edit_panel, (),
                   "Permil: thousandths (600 permil = 0.600). ENFORCE needs alpha >= floor / 1000 (exactly). "
                   "The specification's (seed's) default 600 = Krippendorff's 0.6.")
    if decisions:
        st.caption("measured alpha: " + ", ".join(
            f"{md(dim, 30)} " + ("undefined" if m.alpha.value is None else
                                 f"{float(m.alpha.value):.3f} ({m.alpha.permil} permil)")
            for dim, (m, _) in list(decisions.items())[:12]) + more(decisions, 12))
    threshold_pair("Spread cap (permil)", "ratio_cap_permil", state.panel_value("ratio_cap_permil"),
                   10, state.edit_panel, (),
                   "ENFORCE needs max/min detector rate <= cap / 1000 (permil: thousandths). The specification's "
                   "(seed's) default 2000 = 2.0x.")
    if decisions:
        st.caption("measured spread: " + ", ".join(
            f"{md(dim, 30)} " + ("not measured" if not m.rates else "unbounded" if d.spread is None else
                                 f"{float(d.spread):.2f}x ({round(d.spread * 1000)} permil)")
            for dim, (m, d) in list(decisions.items())[:12]) + more(decisions, 12))
    optional_editors(decisions)


def optional_editors(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]] | None = None) -> None:
    """The gates a panel's threshold data may turn on (OPTIONAL_PANEL_GATES): each off by default (the
    seed's rule), a checkbox turns it on and a slider sets its threshold; drawn from the table, so a
    new optional gate needs no code here."""
    for name, field, kind in OPTIONAL_PANEL_GATES:
        words = THRESHOLD_WORDS[field][0]
        key = K.CHECK_ + field
        value = state.panel_optional(field)
        session.seed_widget(key, value is not None)
        st.checkbox(f"Gate on the {words}", key=key, on_change=state.switch_panel_gate, args=(field, key),
                    help=f"Off by default (the specification's rule). On: ENFORCE also needs the measured {name} "
                         f"{'at least' if kind == 'min' else 'at most'} this {words.split()[0]}.")
        if value is None:
            continue
        threshold_pair(words.capitalize(), field, value, 1, state.edit_panel, (),
                       f"ENFORCE needs {'at least' if kind == 'min' else 'at most'} this many {name} (a whole number).")
        if decisions:
            st.caption(f"measured {name}: " + ", ".join(
                f"{md(dim, 30)} {optional_value(d, name)}" for dim, (_, d) in list(decisions.items())[:12])
                + more(decisions, 12))


def optional_value(d: PanelDecision, name: str) -> str:
    """An optional gate's measured number as its decision holds it ("not measured" when it has none)."""
    g = next((g for g in d.gates if g.name == name), None)
    return "not measured" if g is None or g.exact is None else f"{int(g.exact):,}"


def strict_toggle(kind: str, contract: JudgeCalibrationContract) -> None:
    key = K.STRICT.format(kind)
    t = state.thresholds()
    current = t.panel.strict if kind == "panel" else (t.calibration.strict if t.calibration else False)
    session.seed_widget(key, current)
    st.checkbox("Strict: also gate on the 95% interval bound", key=key, on_change=state.edit_strict,
                args=(kind, key, contract),
                help=("alpha's bootstrap lower bound must reach the floor and the spread's upper bound stay "
                      "within the cap" if kind == "panel" else
                      "each rate's Wilson bound must pass its threshold (not part of the contract)"))


def calibration_editors(contract: JudgeCalibrationContract, decision: CalibrationDecision | None = None) -> None:
    """``decision``: show each gate's measured rate under its slider."""
    threshold_pair("Minimum reviewers per reference", "minimum_reviewers",
                   state.calibration_value("minimum_reviewers", contract), 1,
                   state.edit_calibration, (contract,), "References with fewer reviewers fail the audit.")
    for name, field, kind in RATE_GATES:
        threshold_pair(f"{RATE_LABELS[name]} {'minimum' if kind == 'min' else 'maximum'} (bps)", field,
                       state.calibration_value(field, contract), 50,
                       state.edit_calibration, (contract,),
                       f"{'At least' if kind == 'min' else 'At most'} this many basis points (1/100 of a percent).")
        if decision is not None:
            st.caption("measured: " + rate_text(decision, name))
    for name, field, _ in NET_GATES:  # the contract's opt-in gates (version 2) only when it sets them
        if (value := state.calibration_optional(field, contract)) is None:
            continue
        threshold_pair(f"{NET_LABELS[name]} maximum (bps)", field, value, 50, state.edit_calibration, (contract,),
                       "At most this many basis points (1/100 of a point): the bias net of general disagreement, "
                       "a gate of this contract (version 2).")
        if decision is not None:
            st.caption("measured: " + md(net_text(decision.gate(name)), 300))
