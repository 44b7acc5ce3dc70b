"""The corrected headline on the Judge page (agreebound.judge.headline): per model pair, the judge's win
rate alone, corrected by the cases with a human reference (prediction-powered), and the humans'
alone, with the labelled and unlabelled counts and what the judge's verdicts are worth. Model
names are user text: every cell and sentence is escaped (the tables' cells by blocks.md_table)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from agreebound.core.escape import md_text
from agreebound.judge.headline import Headline, PairHeadline
from agreebound.app.judge_input import JudgeBundle
from agreebound.ui.blocks import responsive_table

#: More pairs than this and their sentences fold into an expander (the table lists every pair).
SENTENCES_SHOWN = 6


def pair_row(p: PairHeadline) -> dict[str, str]:
    """One pair as a row of the table (plain text: the table escapes it)."""
    return {"model pair": f"{p.first} vs {p.second}",
            "judge only": p.judge.points(),
            "corrected (prediction-powered)": p.ppi.points() if p.ppi is not None else
            "none: every case is labelled" if not p.unlabelled else "not defined",
            "human only": "no labelled case" if p.human is None else p.human.points(),
            "cases labelled / unlabelled": f"{p.labelled:,} / {p.unlabelled:,}",
            "judge-only estimate off by": "" if p.judge_off_points is None else f"{p.judge_off_points:+.1f} points"}


def section(bundle: JudgeBundle) -> None:
    """The Judge page's "The corrected headline"."""
    h: Headline = bundle.measurement.headline
    st.header("The corrected headline", anchor="headline")
    st.markdown(md_text(h.note, 1000))
    if not h.pairs:
        return
    responsive_table(pd.DataFrame([pair_row(p) for p in h.pairs]), "headline_table")
    sentences = "\n".join(f"- {md_text(p.sentence, 1200)}" for p in h.pairs)
    if len(h.pairs) > SENTENCES_SHOWN:
        with st.expander(f"Each pair in words ({len(h.pairs):,} pairs)"):
            st.markdown(sentences)
    else:
        st.markdown(sentences)
    st.caption(f"Method: {md_text(h.method, 400)}. The gain: how many more human labels the humans-only interval "
               "would need to be as narrow as the corrected one.")
