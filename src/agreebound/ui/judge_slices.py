"""The Judge page's "By slice": every gate split by a column of the data (a prompt template, a turn,
a category, a column the user added), decided per slice by agreebound.judge.slices with Holm's
adjustment (or Benjamini-Hochberg) and simultaneous intervals, and the method said. Slice values
are user text: every cell and sentence is escaped."""

from __future__ import annotations

import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.judge.slices import (FAIL, METHODS, OVER, Method, SliceAudit, SliceDecision, SliceRefused, cell_text,
                                     decide_slices, failure_sentences, measure_slices, slice_options)
from agreebound.render.gates import RATE_LABELS
from agreebound.render.slice_figures import slices_heatmap
from agreebound.ui import gates, memo, state
from agreebound.ui.blocks import md, responsive_table
from agreebound.ui.state import K, session

#: How a user adds a slice column, said when the data has none.
HOW_TO_ADD = ("No slice column found: add one as a column beside the observation fields (the observations CSV, or "
              "a field of observation records, e.g. template or category); MT-Bench judgment logs give the judge's "
              "template, the turn and the question's category.")
#: A cell's mark by its status: a confirmed failure stands out in the table.
MARKS = {FAIL: "FAIL: ", OVER: "over the limit, not confirmed: "}


def _audit(bundle: JudgeBundle, column: str) -> SliceAudit:
    return memo.once("slices", bundle, lambda b: measure_slices(b.measurement, b.observations, b.references,
                                                                b.slices, column), column)


def table_rows(d: SliceDecision) -> list[dict[str, str]]:
    """Slice x gate as rows of text (the table escapes them): each cell its rate, simultaneous
    interval, limit and adjusted p, marked when the slice fails the gate."""
    rows = []
    for v in d.values:
        row = {d.column: v, "cases": f"{d.n_cases[v]:,}"}
        for g in d.gates:
            c = d.cell(v, g)
            mark = MARKS.get(c.status, "")
            if mark and not d.decisions[v].contract_given:  # no contract: a limit's side, never a FAIL
                mark = "OUTSIDE the limit: " if c.status == FAIL else "outside the limit, not confirmed: "
            row[RATE_LABELS[g]] = mark + cell_text(c, d.method)
        rows.append(row)
    return rows


def section(bundle: JudgeBundle) -> None:
    """The Judge page's "By slice" (pages/judge.py calls it with the bundle it shows)."""
    st.header("By slice", anchor="slices")
    options = slice_options(bundle.slices)
    usable = [c for c, why in options.items() if why is None]
    refused = {c: why for c, why in options.items() if why is not None}
    if not len(bundle.measurement.cases):
        st.caption("Slices need the audit's cases in memory: this audit was counted out of core.")
        return
    if not usable:
        st.caption(HOW_TO_ADD + (" " + "; ".join(f"{md(c, 40)}: {md(why, 120)}" for c, why in refused.items())
                                 if refused else ""))
        return
    if session.widget(K.SLICE_PICK) not in usable:
        session.set_widget(K.SLICE_PICK, usable[0])
    left, right = st.columns([1, 1])
    column = left.selectbox("Split every gate by", usable, key=K.SLICE_PICK)
    picked = right.radio("Multiplicity control", list(METHODS), key=K.SLICE_METHOD, horizontal=True,
                         format_func=lambda m: {"holm": "Holm (family-wise)", "bh": "Benjamini-Hochberg (FDR)"}[m])
    method: Method = "bh" if picked == "bh" else "holm"  # Holm unless BH is asked for
    cal = state.thresholds().calibration
    try:
        audit = _audit(bundle, column)
    except SliceRefused as e:  # the data changed under a kept pick
        st.caption(f"{md(column, 40)}: {md(str(e), 200)}")
        return
    d = memo.once("slices_decided", audit, lambda a: decide_slices(a, cal, method=method), (cal, method))
    first = d.decisions[d.values[0]]
    if not first.contract_given:  # no contract: the slices are measured, as the audit is, not decided
        st.caption(f"No contract: every slice is measured against {md(first.limits_text, 120)}; nothing is decided.")
    failing = failure_sentences(d)
    if failing:
        st.markdown("\n".join(f"- {md(x, 300)}" for x in failing))
    else:
        st.markdown(f"No slice of {md(column, 40)} is a confirmed failure of any gate.")
    responsive_table(table_rows(d), "slices_table", limit=300)
    st.plotly_chart(memo.figure(slices_heatmap, d, dark=gates.dark()), width="stretch", key=K.SLICE_CHART,
                    config=gates.PLOT_CONFIG)
    st.caption(md(d.method_text[:1].upper() + d.method_text[1:], 600) + ". A slice fails a gate as the audit's decide says (its exact rate "
               "against the limit); the failure is confirmed when its adjusted p is at most "
               f"{float(d.alpha):g}. Cells with fewer than {d.min_cases} cases give no verdict."
               + (" Not slice columns here: " + "; ".join(f"{md(c, 40)} ({md(why, 120)})" for c, why in refused.items())
                  if refused else ""))


def whatif_rows(bundle: JudgeBundle) -> list[dict[str, str]]:
    """The What-if page's sweep of the slices: for each slice column, every slice and gate whose
    status under the thresholds being explored differs from the bound contract's (or the
    illustrative limits'), both statuses said. The slices' measurement is the Judge page's (cached
    once per bundle and column): a slider move only decides again."""
    if bundle.slices is None or not len(bundle.measurement.cases):
        return []
    edited = state.thresholds().calibration
    rows = []
    for column in (c for c, why in slice_options(bundle.slices).items() if why is None):
        try:
            audit = _audit(bundle, column)
        except SliceRefused:
            continue
        own = memo.once("slices_decided", audit, lambda a: decide_slices(a, None), (None, "holm"))
        now = memo.once("slices_decided", audit, lambda a: decide_slices(a, edited), (edited, "holm"))
        for key, c in now.cells.items():
            before = own.cells[key]
            if c.status != before.status:
                given = now.decisions[key[0]].contract_given
                rows.append({"slice": f"{column} = {key[0]}", "gate": RATE_LABELS[key[1]],
                             "own thresholds": _status(before.status, given), "edited": _status(c.status, given),
                             "measured": cell_text(c)})
    return rows


def _status(status: str, given: bool) -> str:
    """A cell's status as a word: without a contract a limit's side, never a FAIL."""
    if given:
        return status
    return {FAIL: "outside the limit", OVER: "outside the limit, not confirmed", "pass": "within the limit"}.get(
        status, status)

