"""Gates as the pages draw them (the Overview, the Judge page, the What-if strip): each in words
with its margin and interval, then its bullet chart; the fragile ones said together; the failing
ones' margins in one line. The gates arrive decided (agreebound.render.gates): nothing here
compares a number with a threshold."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.judge.decision import CalibrationDecision
from agreebound.ui import memo
from agreebound.ui.blocks import md, section_when_open
from agreebound.ui.loading import judge_key
from agreebound.ui.state import session

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

#: Markdown: terms explained on the Help page's glossary (it opens in a new tab: what is loaded stays).
GLOSSARY_LINK = "terms: [{}](/help#glossary)"


def in_rows(items: list[Any], per_row: int) -> list[list[Any]]:
    """Items cut into rows of ``per_row`` (a row of columns each): stacked on a phone, they keep
    their order, where one set of columns would stack column by column (1, 3, 5, 2, 4)."""
    return [items[i:i + per_row] for i in range(0, len(items), per_row)]


def dark() -> bool:
    """The theme the browser shows (charts pick theme-aware colours)."""
    try:
        return st.context.theme.type == "dark"
    except Exception:  # noqa: BLE001 - outside a browser session (AppTest): light
        return False


def judge_gate_list(bundle: JudgeBundle, d: CalibrationDecision) -> list[Any]:
    """The judge's gates; the case-aware intervals come from the cached diagnostics of the loaded
    judge (a slider move only re-decides)."""
    from agreebound.render.gates import judge_gates
    from agreebound.ui.data import judge_diagnostics_for

    intervals = judge_diagnostics_for(judge_key(session.judge_source), bundle.measurement).intervals
    return memo.once("judge gates", d, lambda d: judge_gates("judge", d, intervals))


def gate_words(g: Any) -> str:
    """Markdown: the gate's status and margin, the numbers' secondary units, the interval."""
    status = {True: "passes", False: "fails", None: "not checked"}[g.passed]
    if g.illustrative and not g.state:  # a judge without a contract: measured, not decided
        status = g.status
    text = f"**{md(g.label)}** {status}: {md(g.margin, 300)}"
    if g.secondary:
        text += f" ({md(g.secondary, 120)})"
    if g.low is not None:
        text += f". 95% interval {g.fmt(g.low)} to {g.fmt(g.high)}"
        if g.interval_method:
            text += f" ({md(g.interval_method, 160)})"
    if g.cases is not None:
        text += f"; {g.cases:,} cases, {g.observations:,} observations"
    for n in g.notes:
        text += f"; {md(n, 120)}"
    return text + "."


def gate_block(g: Any, key: str, chart: bool = True) -> None:
    """The gate in words, then its bullet chart; a gate with no number (not evaluable, undefined,
    not measured) is its line of words only: a chart would hold nothing but the threshold."""
    st.markdown(gate_words(g))
    if g.plan_sentence:  # fragile: how many more cases (units) would decide it
        st.caption(f"Fragile: {md(g.plan_sentence, 300)}.")
    if chart and charted(g):
        gate_chart(g, key)


def gate_chart(g: Any, key: str) -> None:
    """The gate's bullet chart: its value with the 95% interval against the threshold line."""
    from agreebound.render import gate_figures

    st.plotly_chart(memo.figure(gate_figures.gate_bullet, g, dark=dark()), width="stretch", key=key, config=PLOT_CONFIG)


def charted(g: Any) -> bool:
    """Whether the gate has a chart: a gate with no number (not evaluable, undefined, not measured)
    is its line of words only, a chart would hold nothing but the threshold."""
    return g.name != "detectors" and g.value is not None


def charts_when_open(gate_list: list[Any], per_row: int, key: str, chart_key: Callable[[Any], str]) -> None:
    """The gates' bullet charts (those with a number), ``per_row`` to a row of columns, in a section
    drawn only while open (ui.blocks.section_when_open): closed, a page draws no chart, and a browser
    loads no charting code for it. Nothing when no gate has a number."""
    shown = [g for g in gate_list if charted(g)]
    if not shown:
        return

    def draw() -> None:
        for row in in_rows(shown, per_row):
            for col, g in zip(st.columns(per_row), row):
                with col:
                    gate_chart(g, chart_key(g))

    section_when_open("Charts: each gate above, its value and 95% interval against the threshold", key, draw)


def fragile_note(gates: list[Any], plans: bool = False) -> None:
    """The verdict could go either way: an interval includes its threshold (shown whether or not
    strict mode gates on it). ``plans``: with how many more cases would decide each (a page that
    does not say it under each gate)."""
    reasons = [f"{md(g.label)}: {g.fragile}" + (f" ({md(g.plan_sentence, 300)})" if plans and g.plan_sentence else "")
               for g in gates if g.fragile]
    if reasons:
        strict = any(g.strict for g in gates)
        st.warning("**Fragile**: " + "; ".join(reasons) + ". Another sample of the same size could reach the "
                   "other verdict." + (" Strict mode is on: these bounds decide." if strict else
                                       " Strict mode (What-if page) gates on these bounds.")
                   + f" ({GLOSSARY_LINK.format('fragile, strict')})")


def why_text(gates: list[Any]) -> str:
    """The failing gates' margins in one Markdown line (empty when nothing fails)."""
    failing = [md(g.margin, 200) for g in gates if g.passed is False]
    return "; ".join(failing)
