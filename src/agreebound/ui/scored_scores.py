"""The Judge page's section on a graded or pass/fail judge's own scores (agreebound.scored.describe):
how many it gave, their spread over the scale, each model's mean with its 95% interval. It needs no
human labels: a log without them is described here, and nothing about agreement is decided.

The rows are the reports' own (agreebound.render.scored: the JSON's section, its Markdown's rows), so
the page shows what the downloads say. Judge, model and score names are user text: every cell is
escaped (ui.blocks.text_table), and so is every name in Markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from agreebound.render.scored import (
    DESCRIBED_ONLY,
    distribution_rows,
    model_rows,
    scores_caption,
    scores_dict,
)
from agreebound.scored.audit import ScoredMeasurement
from agreebound.scored.one_judge import JudgeAgreement
from agreebound.ui.blocks import md, text_table

#: After INCOMPLETE in the verdict's banner when the log has no human labels.
BANNER_TAIL = f": {DESCRIBED_ONLY} below"
def needs_humans() -> None:
    """A judge card without human labels: what the rest of the audit needs, not rows of "not measured"."""
    st.markdown(NEEDS_HUMANS)


NEEDS_HUMANS = ("Its agreement with people needs their scores: give human labels for the same items as a second file "
                "(a scores table with a human rater, or the harness's own human file). Then the two gates "
                "(admissibility and the floor on the judge's alpha with the humans), the alphas, the measures beside "
                "the gates and the judge-against-humans figure are measured.")


def counts(m: ScoredMeasurement, a: JudgeAgreement) -> str:
    """"6 items with its score and a human's, 6 judge-human pairs", or without human labels the
    scores read (never "0 items")."""
    if m.described_only:
        n = next((j.scores for j in m.scores if j.judge == a.judge), 0)
        return f"{n:,} score{'' if n == 1 else 's'} read, no human labels to compare them with"
    return f"{a.items:,} items with its score and a human's, {a.pairs:,} judge-human pairs"


def section(m: ScoredMeasurement) -> None:
    """Each judge's own scores: a sentence, the count per score (or bin), each model's mean."""
    if not m.scores:
        return
    st.header("The judge's own scores", anchor="judge-scores")
    st.caption("What the judge's scores say without any human label: how many, how they spread over the scale, "
               "and each model's mean (MT-Bench's headline)." + ("" if m.described_only else
                                                                  " The agreement with the humans is below."))
    labels = {str(k): v for k, v in m.labels.items()}
    for i, described in enumerate(m.scores):
        j = scores_dict(described)
        with st.container(border=True, key=f"scored_scores_{i}"):
            st.markdown(f"**{md(j['judge'], 80)}**: {md(j['sentence'], 200)}")
            left, right = st.columns([2, 3])
            with left:
                text_table(pd.DataFrame(distribution_rows(j, labels),
                                        columns=["bin" if j["binned"] else "score", "count", "share"]))
            with right:
                if j["models"]:
                    what = "pass rate" if j["binary"] else "mean judge score"
                    text_table(pd.DataFrame(model_rows(j), columns=["model", "items", what, "95% interval"]))
                else:
                    st.markdown("The log names no model for the judge's items: no mean per model.")
            st.caption(md(scores_caption(j), 600))


def methods_caption(a: JudgeAgreement) -> None:
    """Under the measures' table: how the rank correlations' intervals were drawn (BCa over items,
    percentiles over models), once per method."""
    said = dict.fromkeys(m.method for m in a.measures
                         if m.name in ("spearman_items", "spearman_models") and m.method)
    if said:
        st.caption("Rank correlations' 95% intervals: " + "; ".join(md(x, 300) for x in said) + ".")
