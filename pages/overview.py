"""Overview: every verdict for the loaded data at a glance."""

import streamlit as st

from agreebound.ui import shell, state, widgets

shell.enter(__file__)

st.title("Is this verdict reliable enough to act on?")
st.caption("Panel reliability (Krippendorff's alpha and detector spread) and judge calibration, "
           "decided exactly under the thresholds in force.")

st.subheader("Panel reliability")
st.caption(f"Data: {widgets.md(state.S.panel_source['label'])} (level: {state.S.level})")
decisions = widgets.panel_decisions()
for col, (dim, (m, d)) in zip(st.columns(len(decisions)), decisions.items()):
    with col:
        st.markdown(f"#### {widgets.md(dim)}")
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
