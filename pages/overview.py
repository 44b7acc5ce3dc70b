"""Overview: one screen a manager reads. A sentence per domain, then every gate behind each verdict
as a bullet chart with its threshold and margin in words; exact values behind an expander."""

import pandas as pd
import streamlit as st

from agreebound.render.gates import judge_sentence, panel_gates, panel_sentence
from agreebound.ui import bias, scored, shell, widgets
from agreebound.render.figures import exact_text

shell.enter(__file__)

st.title("Is this verdict reliable enough to act on?")

decisions = widgets.panel_decisions()
bundle, jd = widgets.judge_decision()
judge_gates = widgets.judge_gate_list(bundle, jd)

with st.container(border=True, key="headline"):
    sample = [k for k in ("panel", "judge") if widgets.is_sample(k)]
    if sample:
        st.badge(widgets.SAMPLE_WORDS, color="gray")
        st.caption("Sample data: the " + " and the ".join(sample) + " verdicts below are about bundled samples, not "
                   "your data. Upload yours on the Panel reliability and Judge calibration pages.")
    st.markdown(f"**{widgets.md(widgets.sample_said('panel', panel_sentence(decisions)), 400)}**")
    if 1 < len(decisions) <= widgets.DETAIL_DIMENSIONS:
        st.markdown(" · ".join(f"{widgets.md(dim, 40)}: {d.verdict.value}" for dim, (_, d) in decisions.items()))
    fragile = [g for g in judge_gates if g.fragile]
    st.markdown(f"**{widgets.md(widgets.sample_said('judge', judge_sentence(jd)), 400)}**" + (
        f" Fragile: the 95% intervals of {len(fragile)} of {len(judge_gates)} gates include their thresholds"
        f" ({bundle.measurement.n_cases:,} cases)." if fragile else ""))
    if (graded := scored.overview_sentence()) is not None:  # a graded or pass/fail judge held
        head = "Graded judge (sample data): " if scored.is_sample() else "Graded judge: "
        st.markdown(f"**{widgets.md(head + graded, 800)}**")
        st.caption(scored.data_line())
    st.caption(f"Decided exactly under the thresholds in force: {widgets.thresholds_words()} (change them on the "
               "What-if thresholds page). Each gate below: the measured value with its 95% interval, the threshold "
               "as a labelled line, and the margin in words "
               f"({widgets.GLOSSARY_LINK.format('permil, bps, fragile, design effect')}).")

st.header("Panel reliability")
st.caption(widgets.data_line("panel"))
shown = decisions
if len(decisions) > widgets.DETAIL_DIMENSIONS:
    st.markdown(f"{len(decisions):,} dimensions; the {widgets.DETAIL_DIMENSIONS} with the worst verdicts are shown "
                "below, the table lists all.")
    st.dataframe(widgets.safe_frame(widgets.dimension_table(decisions)), hide_index=True, width="stretch", height=240)
    shown = {k: decisions[k] for k in widgets.worst_first(decisions)[:widgets.DETAIL_DIMENSIONS]}
for i, (dim, (m, d)) in enumerate(shown.items()):
    gates = panel_gates(dim, m, d)
    with st.container(border=True, key=f"dimension_{i}"):
        st.subheader(widgets.md(dim, 80))
        widgets.verdict_banner(m, d)
        if why := widgets.why_text(gates):
            st.markdown(f"Why: {why}.")
        widgets.fragile_note(gates)
        detectors, *charted = gates
        st.markdown(widgets.gate_words(detectors))
        cols = st.columns(len(charted))
        for col, g in zip(cols, charted):
            with col:
                widgets.gate_block(g, key=f"ov_{i}_{g.name}")

st.header("Judge calibration")
st.caption(widgets.data_line("judge"))
with st.container(border=True, key="judge_gates"):
    widgets.decision_banner(jd)
    st.markdown(widgets.md(judge_sentence(jd), 400))
    if why := widgets.why_text(judge_gates):
        st.markdown(f"Why: {why}.")
    bias.draw_notes(bundle, jd)  # each failing gate read against its bias measure: bias or disagreement?
    if jd.reference_issues:
        st.markdown(f"Reference issues: {len(jd.reference_issues):,} (see the Judge calibration page).")
    widgets.fragile_note(judge_gates)
    for pair in widgets.in_rows(judge_gates, 2):  # a row of columns per pair: a phone stacks them in order
        for col, g in zip(st.columns(2), pair):
            with col:
                widgets.gate_block(g, key=f"ov_judge_{g.name}")

with st.expander("Exact values"):
    rows = []
    for dim, (m, d) in decisions.items():
        rows.append({"what": f"{dim}: alpha", "exact": exact_text(m.alpha.value),
                     "seed units": "undefined" if m.alpha.permil is None else f"{m.alpha.permil} permil"})
        rows.append({"what": f"{dim}: spread", "exact": "not measured" if not m.rates else
                     ("unbounded" if d.spread is None else exact_text(d.spread)),
                     "seed units": f"{d.seed_ratio_permil} permil" if m.rates else ""})
    for g, rate in zip(jd.gates, jd.rates):  # the five rates; then a contract's opt-in net gates
        rows.append({"what": f"judge: {g.name}", "exact": "not evaluable" if g.exact is None
                     else f"{rate.numerator}/{rate.denominator}",
                     "seed units": "" if g.passed is None else f"{rate.bps} bps"})  # None: unavailable here
    for g in jd.gates[len(jd.rates):]:
        rows.append({"what": f"judge: {g.name}", "exact": "not evaluable" if g.exact is None
                     else bundle.measurement.bias[g.name].fraction, "seed units": ""})
    st.dataframe(widgets.safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch")
    if not jd.contract_given:  # no contract: measured, never decided
        st.markdown(f"Not decided: measured against {widgets.md(jd.limits_text)}, drafted from the log as "
                    f"`{jd.decided_against.content_id}`.")
    else:
        st.markdown(f"Decided against the **{jd.contract_kind}** contract `{jd.decided_against.content_id}`"
                    + ("" if jd.against_bound else f" (the data is bound to `{jd.bound_content_id}`)") + ".")

st.header("Reports")
widgets.report_downloads("panel")
widgets.report_downloads("judge")
