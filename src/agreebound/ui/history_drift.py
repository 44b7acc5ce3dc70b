"""The History page's drift section: when the two runs compared are judge logs, the change between
them split into the judge's shift on the anchor items (the same candidate text in both runs) and
the systems' change (agreebound.app.history.measure_anchor_drift), decided under the judge shift
tolerance in force (ThresholdSet.drift: its slider here, a thresholds file, a shared link).

The logs are read from the store and measured once per pair of stored logs (keyed by their
SHA-256, so every session shares it); a slider move only decides again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from agreebound.app.history import anchor_drift_refusal, measure_anchor_drift
from agreebound.app.store import StoreError
from agreebound.judge.drift import CHANGED, NO_ANCHORS, UNCHANGED, decide_drift
from agreebound.ui import auth, state
from agreebound.ui.blocks import md
from agreebound.ui.threshold_editors import threshold_pair

if TYPE_CHECKING:
    from agreebound.app.store import Run, Store
    from agreebound.judge.drift import Drift

FIELD = "judge_shift_tolerance_permil"


def drift_key(a: Run, b: Run) -> tuple[object, ...]:
    """What the measurement depends on: each run's kind, source and judge, and its stored inputs' SHA-256
    (content, never a run id: a run recorded again from the same log shares the entry)."""
    return tuple((r.kind, str(r.recipe.get("source")), str(r.recipe.get("judge")),
                  tuple((i.role, i.sha256) for i in r.inputs)) for r in (a, b))


@st.cache_resource(max_entries=8, show_spinner="Reading the two judge logs...")
def _measured(key: tuple[object, ...], _s: Store, _a: Run, _b: Run) -> tuple[Drift | None, str]:
    """The two runs' logs read from the store (a StoreError is raised, so never kept) and split."""
    return measure_anchor_drift(_a, _b, _s.inputs(_a), _s.inputs(_b))


def draw(s: Store, before: Run, after: Run) -> None:
    """Nothing unless both runs are judge runs; why not when they are not two judge logs; else the
    decision's sentences (user text escaped) under a slider for the tolerance."""
    refusal = anchor_drift_refusal(before, after)
    if refusal == "":
        return
    st.markdown("**The judge's drift: its shift on the anchor items, and the systems' change**")
    if refusal is not None:
        st.caption(md(refusal, 300))
        return
    try:
        measured, why = _measured(drift_key(before, after), s, before, after)
    except StoreError as e:
        st.error("Drift unavailable: " + md(auth.shown(str(e)), 400))
        return
    if measured is None:
        st.caption(md(why, 400))
        return
    t = state.thresholds().drift
    decision = decide_drift(measured, t)
    lines = decision.sentences()
    if decision.state == NO_ANCHORS:
        st.warning("No anchor items: no item has the same candidate text in both runs, so the change cannot be "
                   "split into the judge's and the systems' (`agreebound drift --anchors FILE` takes a declared "
                   "list of anchor items). " + md(lines[0], 600))
    else:
        threshold_pair("Judge shift tolerance (permil of the headline's scale)", FIELD, getattr(t, FIELD), 5,
                       state.edit_table, ("drift",), "Permil: 50 = 0.050 of a mean score, or 5 points of a win rate. The judge changed when its "
                       "shift's 95% interval on the anchor items lies beyond +-tolerance; no change shown when it "
                       "lies within. Threshold data: a thresholds file's [drift] table, and a shared link, carry it.")
        box = st.error if decision.state == CHANGED else st.success if decision.state == UNCHANGED else st.warning
        box(md(lines[0], 600))
    for line in lines[1:]:
        st.markdown(md(line, 1200))
