"""The Panel page's annotation study (agreebound.panel.study), drawn when its section is opened: whom
to trust (each rater's skill and agreement with intervals, raters at chance or confused named, a
rater's confusion rows), whether the raters use the categories at the same rates, and what to
relabel first with the why, downloadable as CSV, a Label Studio import (and its config) and Argilla
records. The sentences and the tables' rows are the reports' (agreebound.render.study): one
wording everywhere. Diagnostics: nothing here changes the verdict above.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agreebound.ui.blocks import md, safe_frame
from agreebound.ui.state import K, session

#: Units of the relabel queue shown on the page (the downloads have them all).
SHOWN_QUEUE = 50

RULE_WORDS = {"uncertain-first": "least certain consensus first",
              "gate-first": "largest move of alpha toward the floor first",
              "judge-alone": "a detector alone against agreeing people first"}


def study_section(dim: str, m: Any, d: Any) -> None:
    """The section's content for dimension ``dim`` (measurement ``m``, decision ``d``)."""
    from agreebound.render.study import QUEUE_HEADER, RATER_HEADER, queue_rows, rater_rows, rates_text
    from agreebound.render.study import study_section as section_of
    from agreebound.ui.data import panel_study

    recipe = session.panel_source.recipe
    src = recipe.ratings[0]
    st.caption("Who to trust, what each unit's label should be and what to send back for relabelling. These are "
               "diagnostics beside the verdict: they do not change it.")
    rules = [r for r in RULE_WORDS if r != "judge-alone" or m.humans]  # a detector alone: against people
    rule = st.radio("Relabel first", rules, format_func=RULE_WORDS.get, horizontal=True, key=K.STUDY_RULE.format(dim))
    if src.data is None:  # opened from the data folder: the engine's counts, on request
        from agreebound.ui.data import data_digest, folder_study

        asked = ("study:" + data_digest(recipe), m.level, dim)
        if asked not in session.folder_diagnostics:
            st.button("Compute with DuckDB (one pass over the data, then the model in memory)",
                      key=K.STUDY_GO.format(dim), on_click=session.ask_folder_diagnostics, args=(asked,))
            return
        study = folder_study(asked[0], recipe, m.level, dim, d.thresholds.alpha_floor_permil, str(rule), m)
    else:
        study = panel_study(src.name, src.digest, src.data, m.level, dim, d.thresholds.alpha_floor_permil, str(rule),
                            recipe.mapping if isinstance(recipe.mapping, str) else None, m)
    section = section_of(study, listed=SHOWN_QUEUE)
    for sentence in section["summary"]:
        st.markdown("- " + md(sentence, 1000))
    if section["skipped"]:
        return
    st.markdown("**Each rater**: skill (how much its labels tell about the truth) and agreement (how far beyond "
                "chance its labels say the truth as named), each with its 95% interval")
    st.dataframe(safe_frame(pd.DataFrame(rater_rows(section), columns=RATER_HEADER)), hide_index=True,
                 width="stretch")
    _confusion(dim, section)
    t = section["marginal"]
    st.caption(f"Do the raters use the categories at the same rates? {rates_text(t)}.")
    st.markdown(f"**Relabel queue**: {section['queue_length']:,} units, {RULE_WORDS[str(rule)]}; "
                f"{section['consensus_probability_below_90']:,} have a consensus below 90% probability. The first "
                f"{len(section['queue'])}:")
    if section["queue"]:  # the why in full once (the table's cells cut it; a phone shows no room for it)
        first = section["queue"][0]
        st.markdown(f"Why {md(first['unit'], 60)} is first: {md(first['why'], 600)}.")
    frame = pd.DataFrame(queue_rows(section), columns=QUEUE_HEADER)
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch", height=min(420, 40 + 35 * len(frame)),
                 column_config={"why": st.column_config.TextColumn(width="large")})
    _downloads(dim, study)
    with st.expander("How the study is made"):
        st.text(section["method"])


def _confusion(dim: str, section: dict[str, Any]) -> None:
    """One rater's confusion rows: what it says (columns) when the model's truth is each label (rows)."""
    from agreebound.core.escape import printable

    names = [r["rater"] for r in section["raters"]]
    flagged = next((i for i, r in enumerate(section["raters"]) if r["chance"] or r["confused"]), 0)
    pick = st.selectbox("Confusion rows of", range(len(names)), index=flagged, format_func=lambda i: printable(names[i], 60),
                        key=K.STUDY_RATER.format(dim))
    labels = [printable(v, 40) for v in section["labels"]]
    rows = section["raters"][int(pick)]["confusion"]
    frame = pd.DataFrame([[f"{v:.2f}" if v is not None else "" for v in row] for row in rows],
                         columns=[f"says {v}" for v in labels])
    frame.insert(0, "truth", labels)
    st.dataframe(safe_frame(frame), hide_index=True)


def _downloads(dim: str, study: Any) -> None:
    from pathlib import Path

    from agreebound.panel.relabel import argilla_records, label_studio_config, label_studio_tasks, queue_csv
    from agreebound.render.names import report_filename
    from agreebound.ui.provenance import shown_files

    q = study.queue
    # the data's name, "panel" and the UTC time, as the reports are named; then what the file holds
    stem = report_filename(Path(shown_files(session.panel_source)[0][0]).stem, "panel", "csv")[:-4] + "-relabel"
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button("Relabel queue (CSV)", queue_csv(q), file_name=f"{stem}.csv", mime="text/csv",
                       key=K.STUDY_DL.format(dim, "csv"), on_click="ignore")
    c2.download_button("Label Studio tasks (JSON)", label_studio_tasks(q), file_name=f"{stem}-label-studio.json",
                       mime="application/json", key=K.STUDY_DL.format(dim, "ls"), on_click="ignore")
    c3.download_button("Label Studio config (XML)", label_studio_config(list(study.model.labels_)),
                       file_name=f"{stem}-label-studio.xml", mime="application/xml", key=K.STUDY_DL.format(dim, "lsx"),
                       on_click="ignore")
    c4.download_button("Argilla records (JSON)", argilla_records(q), file_name=f"{stem}-argilla.json",
                       mime="application/json", key=K.STUDY_DL.format(dim, "ar"), on_click="ignore")
