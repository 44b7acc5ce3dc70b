"""Bias or disagreement? The judge's measures beside its gates (agreebound.judge.bias) as the pages
draw them: each failing raw gate read against its net measure, next to the verdict; the Judge
page's section of the three groups of measures; the What-if strip's lines. Nothing here compares a
number with a threshold: the readings arrive from judge_bias, the results from the decided gates.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

from agreebound.judge.decision import CalibrationDecision
from agreebound.core.escape import md_text
from agreebound.judge.bias import BiasMeasures, Measure, p_words, verdict_notes
from agreebound.app.judge_input import JudgeBundle
from agreebound.render.gates import NET_LABELS
from agreebound.core.thresholds import NET_GATES
from agreebound.ui.blocks import responsive_table

NBSP = "\u00a0"
#: What the section calls each group, and the key of its box.
GROUP_KEYS = {"Position": "position", "Verbosity": "verbosity", "Self-preference": "self_preference"}


def notes(bundle: JudgeBundle, d: CalibrationDecision) -> tuple[str, ...]:
    """Each failing raw gate of ``d`` read against its bias measure ("Fails the contract's verbosity
    limit; the excess attributable to length is ...: the failure is mostly general disagreement.")."""
    return verdict_notes(d.gates, bundle.measurement.bias, d.contract_origin)


def draw_notes(bundle: JudgeBundle, d: CalibrationDecision, link: bool = False) -> None:
    """Next to the verdict: what each failing gate's failure is, bias or general disagreement.
    ``link``: point to the section with the measures (on the Judge page)."""
    said = notes(bundle, d)
    if not said:
        return
    more = "\n\nThe measures: [Bias or disagreement?](#bias) below." if link else ""
    st.info("**Bias or disagreement?**\n\n" + "\n".join(f"- {md_text(n, 400)}" for n in said) + more,
            icon="⚖️")


def measure_rows(group: Sequence[Measure]) -> list[dict[str, str]]:
    """A group's measures as the rows of its table: value, exact fraction, interval, test, definition
    (numbers held together by no-break spaces: a narrow column wraps between them, not inside)."""
    return [{"measure": m.title, "measured": m.value_text().replace(" ", NBSP),
             "95% interval": m.interval_text().replace(" ", NBSP) or "none",
             "exact": m.fraction.replace(" - ", f"{NBSP}-{NBSP}"),
             "test": "" if m.p_value is None else p_words(m.p_value).replace(" ", NBSP),
             "what it counts": f"not measured: {m.unavailable}" if m.unavailable else m.definition}
            for m in group]


def _group_caption(group: Sequence[Measure]) -> str:
    """How each measure's interval (and test) was computed."""
    said = []
    for m in group:
        parts = ([f"95% interval: {m.method}"] if m.method and m.low is not None else []) + (
            [f"test: {m.test}"] if m.test and m.p_value is not None else [])
        if parts:
            said.append(f"{m.title}: {'; '.join(parts)}.")
    return " ".join(said)


def gated_words(d: CalibrationDecision) -> str:
    """Which net measures the contract in force gates on, in words."""
    names = {g.name for g in d.gates}
    gated = [NET_LABELS[name].lower() for name, _, _ in NET_GATES if name in names]
    if not gated:
        return "They are not gates unless the contract says so (contract version 2 may gate on the two net measures)."
    return (f"The contract in force gates on {' and '.join(gated)} (contract version 2): see the gates above; the "
            "others are information, not gates.")


def section(bundle: JudgeBundle, d: CalibrationDecision) -> None:
    """The Judge page's "Bias or disagreement?": the three groups of measures, each with its
    sentences and a table of its measures, then the mix note."""
    bias: BiasMeasures = bundle.measurement.bias
    st.header("Bias or disagreement?", anchor="bias")
    st.markdown("A raw rate counts general disagreement with the humans as bias too: a judge that disagrees on "
                "30% of cases, whatever their lengths, fails a 5% verbosity limit. The measures below net it out. "
                + gated_words(d))
    for title, group in bias.groups:
        with st.container(border=True, key=f"bias_{GROUP_KEYS[title]}"):
            st.subheader(title)
            whys = {m.unavailable for m in group}
            if all(m.unavailable for m in group) and len(whys) == 1:  # one reason for all: said once
                st.markdown(f"Not measured: {md_text(whys.pop(), 600)}")
                continue
            said = [m.sentence for m in group if m.sentence]
            if title == "Self-preference" and bias.mix_note:
                said.append(bias.mix_note)
            if said:
                st.markdown("  \n".join(md_text(x, 600) for x in said))
            responsive_table(pd.DataFrame(measure_rows(group)), f"bias_table_{GROUP_KEYS[title]}", limit=600)
            if caption := _group_caption(group):
                st.caption(md_text(caption, 1500))


def strip_lines(bundle: JudgeBundle, d: CalibrationDecision) -> list[str]:
    """The What-if strip's judge lines beyond its gates (Markdown): the net measures the contract
    does not gate on, as information, and the verdict's reading under the thresholds in force."""
    bias = bundle.measurement.bias
    names = {g.name for g in d.gates}
    lines = []
    for name, _, _ in NET_GATES:
        if name in names:  # a gate of this contract: in the strip with the others
            continue
        m = bias[name]
        value = f"{m.value_text()} {m.interval_text()}".strip() if m.value is not None else (
            "not measured" + (f" ({m.unavailable})" if m.unavailable else ""))
        lines.append(f"{md_text(m.title.lower(), 80)} {md_text(value, 300)}: information, not a gate unless the "
                     "contract says so")
    return lines + [f"*bias or disagreement?* {md_text(n, 400)}" for n in notes(bundle, d)]
