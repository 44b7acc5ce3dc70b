"""Overview: every verdict for the loaded data at a glance."""

import streamlit as st

from agreebound.limits import DETAIL_DIMENSIONS
from agreebound.ui import shell, state, widgets

shell.enter(__file__)

st.title("Is this verdict reliable enough to act on?")
st.caption("Panel reliability (Krippendorff's alpha and detector spread) and judge calibration, "
           "decided exactly under the thresholds in force.")

st.subheader("Panel reliability")
st.caption(f"Data: {widgets.md(state.S.panel_source['label'])} (level: {state.S.level})")
decisions = widgets.panel_decisions()
if len(decisions) > DETAIL_DIMENSIONS:
    counts = {v: sum(d.verdict.value == v for _, d in decisions.values()) for v in ("ENFORCE", "REPORT_ONLY", "REFUSE_SINGLE")}
    st.markdown(f"{len(decisions):,} dimensions: {counts['ENFORCE']:,} ENFORCE, {counts['REPORT_ONLY']:,} REPORT_ONLY, "
                f"{counts['REFUSE_SINGLE']:,} REFUSE_SINGLE. The {DETAIL_DIMENSIONS} worst are shown below; the table "
                "lists all.")
    st.dataframe(widgets.safe_frame(widgets.dimension_table(decisions)), hide_index=True, width="stretch", height=240)
    decisions = {k: decisions[k] for k in widgets.worst_first(decisions)[:DETAIL_DIMENSIONS]}
cards = [(col, dim, md) for start in range(0, len(decisions), 4)
         for col, (dim, md) in zip(st.columns(min(4, len(decisions) - start)), list(decisions.items())[start:start + 4])]
for col, dim, (m, d) in cards:
    with col:
        st.markdown(f"#### {widgets.md(dim, 60)}")
        widgets.verdict_banner(d.verdict)
        st.markdown(f"alpha: **{widgets.alpha_text(m)}**")
        st.markdown(f"spread: **{widgets.spread_text(d, m)}**")
        st.markdown(f"independent detectors: **{m.ndet}**")

st.subheader("Judge calibration")
bundle, jd = widgets.judge_decision()
st.caption(f"Data: {widgets.md(state.S.judge_source['label'])}")
widgets.decision_banner(jd)
failed = [f"{widgets.RATE_LABELS[c.name]} ({widgets.rate_check_text(c)})" for c in jd.failed_checks]
st.markdown(f"Decided against the **{jd.contract_kind}** contract `{jd.decided_against.content_id}`.")
if failed:
    st.markdown("Failed gates: " + "; ".join(failed))
if jd.reference_issues:
    st.markdown(f"Reference issues: {len(jd.reference_issues)}")

st.subheader("Reports")
widgets.report_downloads("panel")
widgets.report_downloads("judge")
