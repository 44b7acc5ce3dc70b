"""What-if thresholds: sliders edit threshold data; verdicts are re-decided, never re-measured."""

import pandas as pd
import streamlit as st

from agreebound.analysis import decide_panel
from agreebound.calibration import decide
from agreebound.thresholds import DEFAULT
from agreebound.ui import shell, state, widgets

shell.enter(__file__)

S = st.session_state
st.title("What-if thresholds")
st.caption("Move a threshold and every verdict is decided again from the cached measurements. "
           "The link in the address bar carries these thresholds.")

decisions = widgets.panel_decisions()
bundle, jd = widgets.judge_decision()
contract = bundle.contract

left, right = st.columns(2)
with left:
    st.subheader("Panel")
    widgets.panel_editors()
    widgets.strict_toggle("panel", contract)
with right:
    st.subheader("Judge contract")
    widgets.calibration_editors(contract)
    widgets.strict_toggle("judge", contract)

b1, b2, b3 = st.columns(3)
b1.button("Reset to defaults", on_click=state.reset_defaults, key="reset_defaults")
b2.button("Reset judge thresholds to the bound contract", on_click=state.reset_to_contract, key="reset_contract")


def on_threshold_file() -> None:
    if (u := widgets.uploaded("thresholds_upload")) is not None:
        state.remember_error("thresholds", state.load_preset_file(u))


with b3:
    st.file_uploader("Thresholds file (JSON/TOML, with presets)", type=["json", "toml"], key="thresholds_upload",
                     on_change=on_threshold_file)
widgets.show_error("thresholds", "(the thresholds in force are unchanged)")

st.subheader("Verdicts: edited thresholds beside the defaults")
rows = []
for dim, (m, d) in decisions.items():
    base = decide_panel(m, DEFAULT.panel)
    rows.append({"panel dimension": dim, "defaults (600 / 2000)": base.verdict.value,
                 "edited": d.verdict.value, "changed": "yes" if base.verdict != d.verdict else ""})
st.dataframe(widgets.safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch")

bound = decide(bundle.measurement, None)
st.dataframe(pd.DataFrame([{
    "judge": "decision", "bound contract": bound.decision, "edited": jd.decision,
    "changed": "yes" if bound.decision != jd.decision else ""}]), hide_index=True, width="stretch")
st.markdown(f"Bound contract: `{contract.content_id}`")
st.markdown(f"Edited ({jd.contract_kind}): `{jd.decided_against.content_id}`")

d1, d2 = st.columns(2)
d1.download_button("Download thresholds (JSON)", state.thresholds_json(), file_name="agreebound-thresholds.json",
                   mime="application/json", key="dl_thresholds")
d2.download_button("Download the draft contract (JSON)", state.draft_contract_json(contract),
                   file_name="agreebound-draft-contract.json", mime="application/json", key="dl_contract")

st.subheader("Reports under these thresholds")
widgets.report_downloads("panel")
widgets.report_downloads("judge")
