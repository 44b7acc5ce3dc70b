"""Formats & help."""

import streamlit as st

from agreebound.templates import TEMPLATES
from agreebound.ui.data import ROOT
from agreebound.ui import shell

shell.enter(__file__)

st.title("Formats & help")
st.markdown("""
**Verdicts.** `ENFORCE`: at least two independent detectors, Krippendorff's alpha at or above the
floor, and the detectors' rates within the spread cap. `REPORT_ONLY`: measure and publish, but do
not auto-enforce (alpha undefined or low, or a spread that is unbounded or too wide).
`REFUSE_SINGLE`: fewer than two independent detectors; refused structurally, whatever the scores.

**Exactness.** Alpha and every rate are exact fractions; gates compare exact values. The seed's
integer formulas round alpha *up* to permil and rates half-up to basis points; where that rounding
would have decided differently, the page says so.

**Judge calibration.** Human agreement (>=), position flip, repeat variance, verbosity bias and
self-preference (<=) in basis points against a content-addressed contract. A rate with no
opportunities is *not evaluable* and passes, as in the seed. Edited thresholds make a *draft*
contract with its own content id; the snapshot stays bound to the original.
""")
st.header("Templates: one of every input")
st.caption("Each is read by the same code that reads your files, and loads to a known result: the rating templates "
           "to Krippendorff's (2011) published alpha (nominal 0.743, interval 0.849), the judge templates to the "
           "seed's illustrative audit (PASS_CALIBRATION).")
columns = st.columns(3)
for i, t in enumerate(TEMPLATES):
    with columns[i % 3]:
        st.download_button(f"{t.title} ({t.file_name})", t.build, file_name=t.file_name, mime=t.mime,
                           key=f"template_{t.key}", on_click="ignore", width="stretch")
        st.caption(t.what)
st.markdown((ROOT / "docs" / "formats.md").read_text(encoding="utf-8"))
