"""Agreebound dashboard entry point (minimal until the dashboard issue lands)."""

import streamlit as st

from agreebound.panel import decide, krippendorff_alpha

st.set_page_config(page_title="Agreebound", layout="wide")
st.title("Agreebound")
N = None
K2011 = [[1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, 3, N, N]]
alpha = krippendorff_alpha(K2011)
d = decide(4, alpha, [])
st.metric("Krippendorff (2011) reliability data, nominal alpha", f"{float(alpha.value):.3f}")
st.subheader(d.verdict.value)
