"""The Panel page's verdict of one dimension, said once: one box holding the verdict with its plain
words, the level, why (the decided gates' margins, as the Overview says them) and how sure (alpha's
interval; "fragile" when it holds the floor). What another level or the specification's integer
formula would say is a detail under it, worded as one; the exact fractions, permil and q sit behind
"Exact values". The gates arrive decided (agreebound.render.gates): nothing here compares a number
with a threshold. A panel's raters are called as agreebound.panel.levels.rater_noun says."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreebound.panel.decision import PanelDecision
from agreebound.panel.levels import level_phrase, panel_noun
from agreebound.panel.measure import PanelMeasurement
from agreebound.render.figure_style import exact_text
from agreebound.render.gates import GateView, panel_gates
from agreebound.ui import panel_view
from agreebound.ui.panel_view import token_with_words, verdict_words
from agreebound.ui.blocks import md
from agreebound.ui.gates import GLOSSARY_LINK
from agreebound.ui.provenance import sample_badge

def why_words(gates: list[GateView], verdict: str) -> str:
    """Why, in the gates' own margins ("alpha (nominal) 0.236, needs 0.600: 0.364 short"): the
    refusing count for REFUSE_SINGLE, the failing gates otherwise, every gate when all pass."""
    det = gates[0]
    if verdict == "REFUSE_SINGLE":
        return f"{det.margin}: one alone is a coin flip"
    failing = [g.margin for g in gates if g.passed is False]
    if failing:
        return "; ".join(failing)
    return "; ".join(g.margin + (" (it does not block)" if g.state == "not measured" else "") for g in gates)


def how_sure(gates: list[GateView], verdict: str) -> str:
    """How sure: alpha's 95% interval on one side of the floor, or "fragile" (an interval holds its
    threshold, as decided) with how many more units would decide it."""
    if verdict == "REFUSE_SINGLE":
        return "certain: the panel's make-up decides it, whatever the scores"
    fragile = [g for g in gates if g.fragile]
    if fragile:
        said = "; ".join(("alpha" if g.name == "alpha" else f"the {g.label}") + "'s" + str(g.fragile).removeprefix("its")
                         for g in fragile)
        plans = "; ".join(g.plan_sentence for g in fragile if g.plan_sentence)
        strict = " Strict mode is on: these bounds decide." if any(g.strict for g in gates) else ""
        return (f"fragile: {said}, so another sample of the same size could reach the other verdict"
                + (f"; {plans}" if plans else "") + f".{strict} ({GLOSSARY_LINK.format('fragile, strict')})")
    alpha = next(g for g in gates if g.name == "alpha")
    if alpha.value is None:
        return "alpha is undefined, so there is no interval"
    if alpha.low is None:
        return "alpha has no 95% interval here"
    return (f"alpha's 95% interval, {alpha.fmt(alpha.low)} to {alpha.fmt(alpha.high)}, lies on one side of the "
            f"floor {alpha.fmt(alpha.threshold)}")


def statement(dim: str, m: PanelMeasurement, d: PanelDecision, gates: list[GateView]) -> str:
    """The one box's Markdown: "dim: VERDICT at the level (who chose): words.", Why, How sure.
    ``dim`` is user text: escaped."""
    v = d.verdict.value
    head = (md(dim, 80) + ": " if dim else "") + f"{v} {level_phrase(m.level, m.level_origin[0])}: " \
        f"{verdict_words(v, panel_noun(m))}."
    return f"{head}  \n**Why**: {md(why_words(gates, v), 600)}.  \n**How sure**: {how_sure(gates, v)}"


def details(m: PanelMeasurement, d: PanelDecision) -> list[str]:
    """What another level or the specification's integer formula would say, each a detail in words
    (numbers and tokens only: no user text)."""
    out = []
    others = [(lv, v) for lv, v in d.at_levels.items() if lv != m.level and v is not d.verdict]
    if others:
        said = "; ".join(f"at the {lv} level alpha is {_alpha(m.alpha_at_levels.get(lv))}, so it would be "
                         f"{token_with_words(v.value)}" for lv, v in others)
        out.append(f"Detail, other levels: {said}. The verdict above is the {m.level} level's; the level table "
                   "below shows every level.")
    if d.seed_disagrees:
        out.append(f"Detail, the specification's integer formula: it would decide {token_with_words(d.seed_verdict.value)} "
                   "here (it rounds alpha to whole thousandths and counts units with one rating). Agreebound "
                   "decides on the exact values; both sets of numbers are under Exact values.")
    return out


def box(dim: str, m: PanelMeasurement, d: PanelDecision, gates: list[GateView]) -> None:
    """The one box (verdict, level, why, how sure) and its details under it: the Panel page's and
    the Overview's, the same words on both."""
    {"ENFORCE": st.success, "REPORT_ONLY": st.warning, "REFUSE_SINGLE": st.error}[d.verdict.value](
        statement(dim, m, d, gates))
    for detail in details(m, d):
        st.caption(detail)


def _alpha(a: Any) -> str:
    return "undefined" if a is None else f"{float(a):.3f}"


def exact_values(m: PanelMeasurement, d: PanelDecision) -> None:
    """Behind "Exact values": alpha as a fraction with its permil, q, the spread exact, alpha exact
    at every level, and what the specification's integer formula computes."""
    st.markdown(f"alpha = **{panel_view.alpha_text(m)}** from {m.alpha.pairable} pairable values in "
                f"{m.alpha.units} units ({m.level}); floor {d.thresholds.alpha_floor_permil} permil.")
    st.markdown(f"alpha {panel_view.alpha_ci_text(m, d)} ({GLOSSARY_LINK.format('q, KALPHA, permil')}).")
    st.markdown(f"spread = **{panel_view.spread_text(d, m)}**; cap {d.thresholds.ratio_cap_permil} permil; "
                f"{panel_view.spread_ci_text(m)}.")
    if len(m.alpha_at_levels) > 1:
        st.markdown("alpha at each level, exact: " + ", ".join(
            f"{lv} {'undefined' if a is None else exact_text(a)}" for lv, a in m.alpha_at_levels.items()) + ".")
    st.markdown(panel_view.seed_text(m, d))


def spread_line(m: PanelMeasurement, d: PanelDecision, noun: str) -> str:
    """The spread in plain numbers, or why it was not measured (Markdown; a suggested category is
    user text: escaped)."""
    if m.rates:
        low, high = m.spread_bracket
        top = "unbounded" if high is None else f"{high:.2f}x"
        return (f"spread **{panel_view.spread_metric(m, d)}**: the highest {noun}'s rate over the lowest; the cap is "
                f"{d.thresholds.ratio_cap_permil / 1000:.2f}x; its 95% bracket {low:.2f}x to {top}.")
    hint = (f"choose a positive category (suggested: {md(m.positive_suggestion, 60)})"
            if m.positive_suggestion is not None else "choose a positive category")
    return (f"Spread not measured: there are no {noun} rates, so this gate does not block. To measure it, {hint} "
            f"or upload a rates CSV.")


def alpha_line(m: PanelMeasurement, d: PanelDecision) -> str:
    """alpha in plain decimals: the value, the floor, the interval and how it was drawn."""
    floor = f"the floor is {d.thresholds.alpha_floor_permil / 1000:.3f}"
    if m.alpha.value is None:
        return f"alpha is undefined (no pairable values or no variation); {floor}."
    b = m.alpha_boot
    head = (f"alpha **{panel_view.alpha_metric(m)}** from {m.alpha.pairable:,} pairable values in {m.alpha.units:,} "
            f"units, {m.level} level; {floor}")
    if not b.defined:
        return head + "."
    how = "pairs bootstrap (KALPHA)" if b.method == "pairs" else "units bootstrap"
    return head + f"; 95% interval {b.low:.3f} to {b.high:.3f} ({how}, {b.draws:,} draws)."


def headline(dim: str, m: PanelMeasurement, d: PanelDecision) -> None:
    """The verdict box, its details, the headline metrics in plain decimals, Exact values behind an
    expander, the level table, and the spread's line."""
    gates = panel_gates(dim, m, d)
    noun = panel_noun(m)
    sample_badge("panel")
    box(dim, m, d, gates)
    c1, c2, c3 = st.columns(3)
    c1.metric(f"alpha ({m.level} level)", panel_view.alpha_metric(m),
              help="Krippendorff's alpha: 1 is perfect agreement, 0 is what chance alone gives.")
    c2.metric(f"{noun} spread", panel_view.spread_metric(m, d),
              help=f"The highest {noun}'s rate of the positive category over the lowest; the cap is "
                   f"{d.thresholds.ratio_cap_permil / 1000:.2f}x.")
    c3.metric(f"independent {noun}s", m.ndet)
    st.markdown(alpha_line(m, d))
    if m.rates:
        st.markdown(spread_line(m, d, noun))
    else:
        st.caption(spread_line(m, d, noun))  # one quiet line: a spread not measured does not block
    with st.expander("Exact values and the specification's formula"):
        exact_values(m, d)
    panel_view.level_table(m, d, key=dim)
