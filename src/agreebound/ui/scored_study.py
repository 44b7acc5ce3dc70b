"""The Judge page's annotation section for a graded judge with human scores (issue 56), drawn when
opened: each judge's scores mapped onto the humans' scale (agreebound.scored.recalibrate: an
isotonic map cross-fitted over 5 folds, the error before and after out of sample, the mapped
scores audited as the raw ones under the thresholds in force) with the map to download; and a
rater model of the judges and the humans together (agreebound.panel.study: whom to trust, each
item's consensus, what to relabel). The words and rows are the reports' (agreebound.render.scored,
agreebound.render.study). Beside the decision: nothing here changes it.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from agreebound.ui.blocks import md, safe_frame, section_when_open
from agreebound.ui.state import K


@st.cache_resource(max_entries=8, show_spinner="Mapping the judge's scores onto the humans' scale...")
def _recalibrations(key: str, _recipe: Any, _m: Any) -> dict[str, Any]:
    """The judges' maps, once per files and level (``key``: the recipe's digest); decided per run."""
    from agreebound.app.judge_runs import recalibrate_recipe

    return recalibrate_recipe(_recipe, _m)


@st.cache_resource(max_entries=8, show_spinner=False)
def _study(key: str, _m: Any, floor_permil: int) -> Any:
    """The study of the judges and the humans over the items (``key``: the recipe's digest), per floor;
    its rater model once per log and level (ui.data.study_model): a moved floor never refits it."""
    from agreebound.panel.categories import encode
    from agreebound.panel.study import annotation_study
    from agreebound.ui.data import study_model

    x = _m.input
    coded = encode(x.matrix)
    model = study_model(f"{key}|{_m.level}|judge and humans", coded, x.raters)
    return annotation_study(coded, x.raters, x.items, _m.level, floor_permil, dimension="judge and humans",
                            rule="judge-alone", judges=x.judges, model=model)


def section(m: Any, d: Any, recipe: Any) -> None:
    """The expander on the Judge page (a graded judge's, with human scores)."""
    if m.described_only or recipe is None:
        return
    title = ("The judge's scores on the humans' scale, and whom to trust" if m.kind == "graded"
             else "Whom to trust: a rater model of the judges and the humans")
    section_when_open(title, K.SCORED_RECAL, lambda: _draw(m, d, recipe))


def _draw(m: Any, d: Any, recipe: Any) -> None:
    from dataclasses import replace

    from agreebound.app.recipes import recipe_digest

    key = recipe_digest(replace(recipe, judge=None))
    st.caption("Beside the decision above: neither the map nor the rater model changes it.")
    if m.kind == "graded":
        _recalibration(m, d, recipe, key)
    _rater_model(m, d, key)


def _recalibration(m: Any, d: Any, recipe: Any, key: str) -> None:
    from dataclasses import replace

    from agreebound.app.judge_runs import decide_recalibrations
    from agreebound.render.scored import recalibration_section, recalibration_text

    decided = decide_recalibrations(_recalibrations(key, replace(recipe, judge=None), m), d.thresholds, d.source)
    section = recalibration_section(decided, d.source)
    st.markdown("**The judge's scores on the humans' scale**: an isotonic (monotone) map from each score to the "
                "humans' mean, fitted on 4 folds of the items and measured on the fifth, in turn")
    for i, r in enumerate(section):
        if not r["mapped"]:
            st.markdown(f"- {md(r['judge'], 60)}: not mapped: {md(r['why_not'], 300)}")
            continue
        st.markdown(f"**{md(r['judge'], 60)}**: raw scores **{r['before']['decision']}**, mapped scores "
                    f"**{r['after']['decision']}** (under the thresholds in force)")
        rows = [{"error (out of sample)": e["name"], "before": f"{e['before']:.3f}", "after": f"{e['after']:.3f}",
                 "change": f"{e['change']:+.3f}",
                 "interval of the change": f"[{e['change_interval'][0]:+.3f}, {e['change_interval'][1]:+.3f}]"
                 + (" (95%)" if e["interval_is_95"] else " (rough range, not 95%)")} for e in r["errors"]]
        st.dataframe(safe_frame(pd.DataFrame(rows)), hide_index=True)
        points = pd.DataFrame([{"judge's score": f"{p['score']:g}", "on the humans' scale": f"{p['mapped']:.3f}"}
                               for p in r["map"]["breakpoints"]])
        st.dataframe(safe_frame(points), hide_index=True)
        st.download_button(f"The map of {r['judge'][:40]} (JSON)", json.dumps(r["map"], indent=2) + "\n",
                           file_name="agreebound-map.json", mime="application/json", on_click="ignore",
                           key=K.SCORED_MAP_DL.format(i))
    with st.expander("How the map and its errors are made"):
        st.text("\n".join(recalibration_text(section)) + "\n\n" +
                next((r["interval_method"] for r in section if r["mapped"]), ""))


def _rater_model(m: Any, d: Any, key: str) -> None:
    from agreebound.render.study import QUEUE_HEADER, RATER_HEADER, queue_rows, rater_rows
    from agreebound.render.study import study_section as section_of

    floor = int(getattr(d.thresholds, "judge_alpha_floor_permil", 600))
    study = _study(key, m, floor)
    section = section_of(study, listed=20)
    st.markdown("**Whom to trust**: a rater model (Dawid-Skene) of the judges and the humans together, each score "
                "a label")
    for sentence in section["summary"]:
        st.markdown("- " + md(sentence, 1000))
    if section["skipped"]:
        return
    st.dataframe(safe_frame(pd.DataFrame(rater_rows(section), columns=RATER_HEADER)), hide_index=True, width="stretch")
    st.markdown(f"**Items to look at again first** ({section['queue_length']:,} items: a judge alone against humans "
                "who agree first, then the least certain consensus):")
    if section["queue"]:  # the why in full once (the table's cells cut it)
        first = section["queue"][0]
        st.markdown(f"Why {md(first['unit'], 60)} is first: {md(first['why'], 600)}.")
    frame = pd.DataFrame(queue_rows(section), columns=QUEUE_HEADER)
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch", height=min(420, 40 + 35 * len(frame)))
