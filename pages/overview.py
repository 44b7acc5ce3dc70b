"""Overview: one screen a manager reads. A sentence per domain, then every gate behind each verdict
with its threshold and margin in words, its bullet chart a click away in the box (drawn only while
open: the charts were most of what a browser did to show this page); exact values behind an expander."""

import pandas as pd
import streamlit as st

from agreebound.render.gates import judge_sentence, panel_gates, panel_sentence
from agreebound.ui import (bias, gates, judge_view, loading, panel_verdict, panel_view, provenance, reports, scored,
                           shell, sidebar)
from agreebound.ui.blocks import md, safe_frame
from agreebound.ui.state import K

shell.enter(__file__)

st.title("Is this verdict reliable enough to act on?")

decisions = loading.panel_decisions()
bundle, jd = loading.judge_decision()
judge_gates = gates.judge_gate_list(bundle, jd)

with st.container(border=True, key="headline"):
    sample = [k for k in ("panel", "judge") if provenance.is_sample(k)]
    if sample:
        st.badge(provenance.SAMPLE_WORDS, color="gray")
        st.caption("Sample data: the " + " and the ".join(sample) + " verdicts below are about bundled samples, not "
                   "your data. Upload yours on the Panel reliability and Judge calibration pages.")
    st.markdown(f"**{md(provenance.sample_said('panel', panel_sentence(decisions)), 400)}**")
    if 1 < len(decisions) <= panel_view.DETAIL_DIMENSIONS:
        st.markdown(" · ".join(f"{md(dim, 40)}: {d.verdict.value}" for dim, (_, d) in decisions.items()))
    st.markdown(f"**{md(provenance.sample_said('judge', judge_sentence(jd)), 400)}**"
                + judge_view.fragile_sentence(judge_gates, bundle))
    if (graded := scored.overview_sentence()) is not None:  # a graded or pass/fail judge held
        head = "Graded judge (sample data): " if scored.is_sample() else "Graded judge: "
        st.markdown(f"**{md(head + graded, 800)}**")
        st.caption(scored.data_line())
    st.caption(f"Decided exactly under the thresholds in force: {sidebar.thresholds_words()} (change them on the "
               "What-if thresholds page). Each gate below: the measured value with its 95% interval and the margin "
               "in words; its bullet chart, the threshold as a labelled line, under Charts in its box "
               f"({gates.GLOSSARY_LINK.format('permil, bps, fragile, design effect')}).")

st.header("Panel reliability")
st.caption(provenance.data_line("panel"))
shown = decisions
if len(decisions) > panel_view.DETAIL_DIMENSIONS:
    st.markdown(panel_view.many_dimensions_line(decisions))
    st.dataframe(safe_frame(panel_view.dimension_table(decisions)), hide_index=True, width="stretch", height=240)
    shown = {k: decisions[k] for k in panel_view.worst_first(decisions)[:panel_view.DETAIL_DIMENSIONS]}
for i, (dim, (m, d)) in enumerate(shown.items()):
    dim_gates = panel_gates(dim, m, d)
    with st.container(border=True, key=f"dimension_{i}"):
        st.subheader(md(dim, 80))
        provenance.sample_badge("panel")
        panel_verdict.box("", m, d, dim_gates)  # the Panel page's box: verdict, level, why, how sure
        detectors, *charted = dim_gates
        st.markdown(gates.gate_words(detectors))
        for col, g in zip(st.columns(len(charted)), charted):
            with col:
                gates.gate_block(g, key=K.OVERVIEW_GATE.format(i, g.name), chart=False)
        gates.charts_when_open(charted, len(charted), K.OVERVIEW_CHARTS.format(i),
                               lambda g, i=i: K.OVERVIEW_GATE.format(i, g.name))

st.header("Judge calibration")
st.caption(provenance.data_line("judge"))
with st.container(border=True, key="judge_gates"):
    judge_view.decision_banner(jd)
    st.markdown(md(judge_sentence(jd), 400))
    if why := gates.why_text(judge_gates):
        st.markdown(f"Why: {why}.")
    bias.draw_notes(bundle, jd)  # each failing gate read against its bias measure: bias or disagreement?
    if jd.reference_issues:
        st.markdown(judge_view.reference_issues_line(jd))
    gates.fragile_note(judge_gates)
    for pair in gates.in_rows(judge_gates, 2):  # a row of columns per pair: a phone stacks them in order
        for col, g in zip(st.columns(2), pair):
            with col:
                gates.gate_block(g, key=K.OVERVIEW_JUDGE_GATE.format(g.name), chart=False)
    gates.charts_when_open(judge_gates, 2, K.OVERVIEW_CHARTS.format("judge"),
                           lambda g: K.OVERVIEW_JUDGE_GATE.format(g.name))

with st.expander("Exact values"):
    rows = panel_view.exact_rows(decisions) + judge_view.exact_rows(bundle, jd)
    st.dataframe(safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch")
    if not jd.contract_given:  # no contract: measured, never decided
        st.markdown(f"Not decided: measured against {md(jd.limits_text)}, drafted from the log as "
                    f"`{jd.decided_against.content_id}`.")
    else:
        st.markdown(f"Decided against the **{jd.contract_kind}** contract `{jd.decided_against.content_id}`"
                    + ("" if jd.against_bound else f" (the data is bound to `{jd.bound_content_id}`)") + ".")

st.header("Reports")
reports.report_downloads("panel")
reports.report_downloads("judge")
