"""Judge calibration: the five rates against the contract, reference issues, the decision."""

import pandas as pd
import streamlit as st

from agreebound.ui import figures, shell, state, widgets
from agreebound.ui.data import judge_diagnostics_for

shell.enter(__file__)

S = st.session_state
st.title("Judge calibration")


def on_bundle() -> None:
    if (u := widgets.uploaded("bundle_upload")) is not None:
        state.remember_error("judge", widgets.try_judge_source({"label": f"upload: {u.name}", "files": (u,)}))


def on_tables() -> None:
    files = [widgets.uploaded(k) for k in ("contract_upload", "references_upload", "observations_upload")]
    if any(f is None for f in files):
        state.remember_error("judge", "Load tables needs all three files: contract JSON, references CSV, observations CSV.")
        return
    src = {"label": f"upload: {files[2].name} (+ contract, references)", "files": tuple(files)}
    state.remember_error("judge", widgets.try_judge_source(src))


c1, c2 = st.columns(2)
with c1:
    st.file_uploader("Judge bundle (JSON)", type=["json"], key="bundle_upload", on_change=on_bundle)
with c2:
    widgets.sample_picker("judge")
with st.expander("Or the tabular trio: contract JSON + references CSV + observations CSV"):
    t1, t2, t3 = st.columns(3)
    t1.file_uploader("Contract JSON", type=["json"], key="contract_upload")
    t2.file_uploader("References CSV", type=["csv"], key="references_upload")
    t3.file_uploader("Observations CSV", type=["csv"], key="observations_upload")
    st.button("Load tables", on_click=on_tables, key="load_tables")

widgets.show_error("judge", "(the data loaded before is still shown)")

bundle, d = widgets.judge_decision()
m = bundle.measurement
st.caption(f"Loaded: {widgets.md(S.judge_source['label'])}: {m.n_cases} cases, {m.n_observations} observations, "
           f"{bundle.contract.repetitions_per_order} repetitions per order.")
widgets.decision_banner(d)
st.markdown(f"Decided against the **{d.contract_kind}** contract: `{d.decided_against.content_id}`")
if d.contract_kind == "draft":
    st.markdown(f"The snapshot is bound to `{bundle.contract.content_id}`; the draft is a what-if, not a new binding.")
if d.seed_disagrees:
    st.info(f"Seed rounding: the seed's half-up basis points would have said {d.seed_decision}; "
            f"the exact gate decides {d.decision}.")

with st.expander("Contract and snapshot", expanded=False):
    st.code(f"contract id     {bundle.contract.content_id}\n"
            f"scope           {bundle.scope}\n"
            f"judge           {bundle.contract.judge_generator}\n"
            f"rubric digest   {bundle.rubric_digest}\n"
            f"snapshot bound  {m.bound} "
            f"({bundle.contract_content_id})")

diag = judge_diagnostics_for(tuple(f.digest for f in S.judge_source["files"]), m)
left, right = st.columns([1, 1])
with left:
    st.plotly_chart(figures.calibration_rates(d), width="stretch", key="cal_rates")
with right:
    st.markdown(widgets.judge_diagnostics_text(diag))
    if d.reference_issues:
        st.markdown(f"**Reference issues ({len(d.reference_issues)})**: each fails the audit.")
        st.dataframe(widgets.safe_frame(pd.DataFrame({"issue": list(d.reference_issues)})), hide_index=True, height=160)
    else:
        st.markdown("No reference issues: every reference is adjudicated with enough reviewers.")

rows = [{"rate": figures.RATE_LABELS[c.name], "measured": widgets.rate_check_text(c),
         "Wilson 95%": f"[{diag.wilson[c.name].low:.2%}, {diag.wilson[c.name].high:.2%}]" if c.rate.evaluable else "",
         "threshold (bps)": f"{'>=' if c.kind == 'min' else '<='} {c.threshold_bps}",
         "gate": "not evaluable (passes)" if not c.rate.evaluable else ("pass" if c.passed else "FAIL"),
         "margin": widgets.margin_text(c)}
        for c in d.checks]
st.dataframe(widgets.safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch")

widgets.report_downloads("judge")

st.subheader("Cases")
choice = st.selectbox("Show", list(widgets.CASE_FILTERS), key="case_filter")
cases = widgets.filter_cases(m.cases, choice)
st.caption(f"{len(cases)} of {m.n_cases} cases")
st.dataframe(widgets.safe_frame(cases), hide_index=True, width="stretch", height=320)
