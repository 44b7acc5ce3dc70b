"""Graded and pass/fail judges on the dashboard (agreebound.scored.audit): loading a judge's scores
(a log, a scores table) with the humans' labels, the Judge page's view of it, the What-if page's
two sliders and lines, and the Overview's sentence.

The session holds such a judge beside the pairwise one (``session.scored_source``): the pairwise judge
keeps its slot (the Overview and What-if pages decide it as before), and the Judge page shows the
graded judge while it is the judge loaded last (:func:`showing`).

An upload is recorded in the history as a judge run (report kind "scored"; ui.runs.adopt_scored,
as ``agreebound calibrate --record`` records it), and such a run reopens here (ui.runs.scored_replay).

Measuring is :func:`agreebound.app.judge_runs.measure_scored_recipe`, cached by the recipe's digest (its
files' digests: never an UploadedFile; the cache is ui.runs.scored_measurement); everything a slider
or a "decide for" choice moves only reruns :func:`agreebound.scored.decide.decide_scored` on the cached
measurement. Nothing here compares a number with a threshold: the gates arrive decided, drawn as the
pairwise judge's are (agreebound.render.gates.GateView, ui.gates.gate_block). Judge and rater names
are user text: escaped before any Markdown (ui.blocks.md) and any plotly label (the figures escape them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import pandas as pd
import streamlit as st

from agreebound.core.escape import plural, printable
from agreebound.scored.items import FAIL, INCOMPLETE, PASS
from agreebound.scored.one_judge import JudgeAgreement
from agreebound.scored.decide import ScoredDecision, decide_scored
from agreebound.scored.audit import ScoredMeasurement
from agreebound.app.recipes import JudgeRecipe, ReadInput, judge_source
from agreebound.app.judge_runs import measure_scored_recipe
from agreebound.core.json_types import JSONObject
from agreebound.render import figures
from agreebound.render import figure_style
from agreebound.render.gates import GateView, view
from agreebound.render.scored import judge_dict
from agreebound.core.thresholds import CITATIONS, SCORED_FIELDS, THRESHOLD_WORDS, ScoredThresholds
from agreebound.core.limits import DETAIL_DIMENSIONS
from agreebound.ui import bias, gates, pickers, runs, scored_scores, scored_study, state
from agreebound.ui.blocks import md, open_tab, responsive_table, text_table
from agreebound.ui.data import JUDGE_SAMPLES, Loaded, Upload
from agreebound.ui.loading import uploaded
from agreebound.ui.provenance import SAMPLE_WORDS
from agreebound.ui import memo
from agreebound.ui.state import K, session
from agreebound.ui.threshold_editors import threshold_pair

#: The sample kind of a graded or pass/fail judge in ui.data.JUDGE_SAMPLES.
SCORED = "scored"
#: The two gates as a reader names them (render.gates labels the pairwise judge's the same way).
GATE_LABELS = {"admissibility": "Admissibility (alpha difference)", "judge_alpha": "Judge alpha"}
#: Each threshold's short name beside the gate (as the panel's "floor 600 permil").
SECONDARY = {"admissibility_margin_permil": "margin", "judge_alpha_floor_permil": "floor"}
SHORT = {PASS: "PASS", FAIL: "FAIL", INCOMPLETE: "INCOMPLETE"}
#: After the decision in its banner (INCOMPLETE is never a pass's or a fail's colour).
BANNER_TAIL = {PASS: "", FAIL: "", INCOMPLETE: ": a gate has no number (never a pass)"}
#: Why the data's kind reads at its level (agreebound.scored.audit.default_level).
LEVEL_WHY = {"binary": "a pass/fail verdict is nominal", "graded": "a score on a scale is ordinal: its steps need "
             "not be equal"}
LEVELS = ("nominal", "ordinal", "interval")
EVERY_JUDGE = "every judge (the worst decides)"
#: The human labels' uploader: the one the Judge page offers a pairwise log for its references.
REFERENCES_KEY = K.LOG_REFERENCES_UPLOAD


# --- loading --------------------------------------------------------------------------------------


def measured(recipe: JudgeRecipe) -> ScoredMeasurement:
    """The judge measured as ``recipe`` says, once per files and level (ui.runs.scored_measured:
    the cache lives there, so that a run reopened from a link (run_links.open_run) shares it)."""
    return runs.scored_measured(recipe, measure_scored_recipe)


def loaded() -> Loaded[JudgeRecipe] | None:
    """The graded or pass/fail judge the session holds (None: none yet)."""
    return session.scored_source


def showing() -> bool:
    """The Judge page shows the graded judge: one is held and no pairwise judge was loaded since
    (the pairwise slot still holds the judge it was loaded over)."""
    return loaded() is not None and session.scored_over is session.loaded("judge")


def show() -> None:
    """on_click: show the graded judge held again (a pairwise one was loaded since)."""
    session.show_scored()


def is_scored(upload: Upload) -> bool:
    """The file is a graded or pass/fail judge's log (a scores table, inspect_ai, promptfoo, ...)."""
    try:
        return judge_source(JudgeRecipe(upload), upload.name, upload.data) == SCORED
    except Exception:  # noqa: BLE001 - not recognisable: the pairwise readers say what it is not
        return False


def try_source(source: Loaded[JudgeRecipe]) -> str | None:
    """Adopt ``source`` if it reads and measures; otherwise keep what is loaded. Returns the error.
    An upload is then recorded as a judge run (ui.runs.adopt_scored): once per distinct bytes,
    reading and thresholds; a sample or a restored run is not."""
    return runs.adopt_scored(source, measure_scored_recipe)


def load_upload(upload: Upload) -> None:
    """The Judge page's upload, recognised as a graded or pass/fail judge's log."""
    state.remember_error("judge", try_source(Loaded(f"upload: {upload.name}", JudgeRecipe(upload, SCORED))))


def on_references() -> None:
    """on_change of the human labels' uploader: the judge measured again with them (or without)."""
    src = loaded()
    if src is None:
        return
    refs = uploaded(REFERENCES_KEY)
    label = src.label.split(" (+ ")[0] + (f" (+ {refs.name})" if refs is not None else "")
    state.remember_error("judge", try_source(Loaded(label, replace(src.recipe, references=refs))))


def on_level() -> None:
    """on_change of the level: a level changes alpha, so the judge is measured again."""
    src = loaded()
    pick = session.widget(K.SCORED_LEVEL_PICK)
    if src is None:
        return
    level = None if pick not in LEVELS else pick
    state.remember_error("judge", try_source(replace(src, recipe=replace(src.recipe, level=level))))


def on_decided_for() -> None:
    """on_change of "Decide for": which judge the decision is about (a decision only)."""
    session.set_scored_for(session.widget(K.SCORED_FOR_PICK))


def sample_picker() -> None:
    """The Judge page's samples: the pairwise ones (loaded as pickers.load_sample does) and the
    graded and pass/fail judges' (ui.data.JUDGE_SAMPLES, kind "scored")."""
    st.selectbox("Or pick a sample", list(JUDGE_SAMPLES), index=None, placeholder="choose a sample...",
                 key=K.SAMPLE.format("judge"), on_change=on_sample)


def on_sample() -> None:
    """on_change of the sample picker: a graded judge's sample here, a pairwise one by ui.pickers."""
    label = session.widget(K.SAMPLE.format("judge"))
    if label is None:
        return
    kind, first, *rest = JUDGE_SAMPLES[label]
    if kind != SCORED:
        pickers.load_sample("judge")
        return
    references = Upload.sample(rest[0]) if rest and rest[0] else None
    recipe = JudgeRecipe(Upload.sample(first), SCORED, references=references)
    state.remember_error("judge", try_source(Loaded(label, recipe)))


# --- deciding (cheap: what a slider reruns) --------------------------------------------------------


def decision() -> tuple[ScoredMeasurement, ScoredDecision]:
    """The held judge, measured (cached) and decided under the thresholds in force."""
    src = loaded()
    assert src is not None, "no graded judge is loaded"
    m = measured(src.recipe)
    t, judge = state.thresholds(), session.scored_for
    # decided once per thresholds and judge (ui.memo): the page, its figures and its downloads share it
    return m, memo.once("scored", m, lambda m: decide_scored(m, t.scored, t.source, judge), (t.scored, t.source, judge))


def decided_under_defaults(m: ScoredMeasurement) -> ScoredDecision:
    """The same judge decided under the default thresholds (what What-if compares with)."""
    return decide_scored(m, ScoredThresholds(), "default", session.scored_for)


def threshold_words(field: str, value: int) -> str:
    """"admissibility margin 0.050" (agreebound.core.thresholds.THRESHOLD_WORDS)."""
    words, fmt = THRESHOLD_WORDS[field]
    return f"{words} {fmt(value)}"


def gate_views(judge: str, d: ScoredDecision, a: JudgeAgreement) -> list[GateView]:
    """The judge's two gates as ``d`` decided them, in display units: the floor on alpha's axis, the
    admissibility gate (a difference of two alphas, against minus the margin) on a difference's."""
    out = []
    for g in d.gates(judge):
        secondary = f"{SECONDARY[g.threshold_field]} {getattr(d.thresholds, g.threshold_field)} permil"
        detail = g.detail if g.exact is None else f"{plural(a.items, 'item')}, {plural(a.pairs, 'judge-human pair')}"
        v = view(g, "judge", judge, GATE_LABELS[g.name], interval_method=g.interval_method, detail=detail,
                 secondary=secondary)
        # figures draw alpha's axis for a gate named so, and a difference's for admissibility
        out.append(replace(v, name="alpha" if g.name == "judge_alpha" else g.name))
    return out


# --- words ----------------------------------------------------------------------------------------


def kind_short(m: ScoredMeasurement) -> str:
    """"graded, 1-5, ordinal" / "pass/fail, nominal"."""
    if m.kind == "binary":
        return f"pass/fail, {m.level}"
    lo, hi = m.input.values[0], m.input.values[-1]
    return f"graded, {lo:g}-{hi:g}, {m.level}"


def level_words(m: ScoredMeasurement) -> str:
    """The level in force and who chose it."""
    if m.level_chosen_by == "data":
        return f"read at the **{m.level}** level, chosen from the data ({LEVEL_WHY[m.kind]})"
    return f"read at the **{m.level}** level, as you chose (the data's default: {LEVEL_WHY[m.kind]})"


def judge_clause(m: ScoredMeasurement, d: ScoredDecision, judge: str) -> str:
    """"PASS: agrees with the humans 0.763 vs their 0.777 with each other" (plain text)."""
    a = m.agreement(judge)
    decided = SHORT[d.per_judge[judge][0]]
    ja = a.judge_alpha.value_text()
    if a.judge_alpha.exact is None:
        return f"{decided}: its agreement with the humans is not measured ({a.judge_alpha.unavailable})"
    if a.human_alpha is None or a.human_alpha.exact is None:
        return f"{decided}: agrees with the humans {ja}; the humans' own agreement is not measured (two humans needed)"
    return f"{decided}: agrees with the humans {ja} vs their {a.human_alpha.value_text()} with each other"


def sentence(m: ScoredMeasurement, d: ScoredDecision) -> str:
    """The Overview's sentence, from the decision (plain text: escape it for Markdown)."""
    th = d.thresholds
    tail = f" (margin {th.admissibility_margin_permil / 1000:.3f}, floor {th.judge_alpha_floor_permil / 1000:.3f})"
    judges = (d.judge,) if d.judge is not None else m.input.judges
    if len(judges) == 1:
        return f"{judges[0]} ({kind_short(m)}): {judge_clause(m, d, judges[0])}{tail}."
    each = "; ".join(f"{j} {judge_clause(m, d, j)}" for j in judges)
    return f"{len(judges)} judges ({kind_short(m)}): {SHORT[d.decision]}, the worst decides: {each}{tail}."


def overview_sentence() -> str | None:
    """The Overview's sentence for the graded judge held (None: none held)."""
    if loaded() is None:
        return None
    m, d = decision()
    return sentence(m, d)


def data_line() -> str:
    """Which data the graded judge's verdict is about (Markdown, escaped)."""
    src = loaded()
    assert src is not None
    files = [f for f in (src.recipe.first, src.recipe.references) if f is not None]
    names = ", ".join(f"{md(f.name, 60)} (sha256 {f.digest[:12]}…)" for f in files)
    return f"Data: **{md(src.label, 120)}**{' (sample data, not yours)' if is_sample() else ''}: {names}"


def is_sample() -> bool:
    """The graded judge held is a bundled sample (its verdicts say so)."""
    src = loaded()
    return src is not None and getattr(src.recipe.first, "origin", "") == "sample"


# --- the Judge page ---------------------------------------------------------------------------------


def offer() -> None:
    """On the pairwise view: the graded judge held is one click away (a pairwise one was loaded since)."""
    src = loaded()
    if src is not None and not showing():
        st.button(f"Show the graded judge loaded before: {md(src.label, 80)}", on_click=show,
                  key=K.SCORED_SHOW)


def page() -> None:
    """The Judge page for the graded or pass/fail judge held: what was read and its kind, the
    controls (human labels, level, the judge decided for), the decision, each judge's gates,
    alphas, measures and figures, the panel of judges, and what was read and left out."""
    m, d = decision()
    head(m)
    controls(m)
    verdict(m, d)
    scored_scores.section(m)
    agreements = sorted(m.agreements, key=lambda a: a.judge != d.judge)  # the judge decided for first
    if len(agreements) > 2:  # many judges: one tab each (labels escaped: tab labels are Markdown)
        tab, i = open_tab([a.judge for a in agreements], 40, key=K.SCORED_TAB)
        with tab:
            judge_section(m, d, agreements[i], i)
    else:
        for i, a in enumerate(agreements):
            judge_section(m, d, a, i)
    panel_section(m)
    scored_study.section(m, d, session.scored_source.recipe if session.scored_source else None)
    read_section(m)
    history_controls()
    downloads(m)


def head(m: ScoredMeasurement) -> None:
    """What is loaded, counted, and the judge's kind as the data showed it."""
    src = loaded()
    assert src is not None
    x = m.input
    st.caption(f"Loaded: {md(src.label, 160)}: {plural(len(x.items), 'item')}, {plural(len(x.judges), 'judge')}, "
               f"{plural(len(x.humans), 'human rater')}; read as {md(m.shape, 60)}.")
    kind = "Pass/fail judge" if m.kind == "binary" else "Graded judge"
    st.markdown(f"**{kind}** ({md(kind_short(m), 80)}): {md(m.kind_words, 300)}; {level_words(m)}.")
    if m.identity:
        st.caption("Identity: " + "; ".join(f"{md(k, 40)} {md(v, 200)}"
                                            for k, v in sorted(m.identity.items())))
    if not x.humans:
        st.warning("No human labels: nothing about agreement is measured or decided (the judge's own scores are "
                   "described below). Add the humans' scores (a CSV or JSON Lines file with item, rater and score).")


def controls(m: ScoredMeasurement) -> None:
    """The human labels (the page's references uploader), the level, and the judge decided for."""
    c1, c2, c3 = st.columns(3)
    c1.file_uploader("Human labels for this log (CSV or JSON Lines: item, rater, score)",
                     type=["csv", "jsonl", "ndjson", "json"], key=REFERENCES_KEY, on_change=on_references)
    current = "from the data" if m.level_chosen_by == "data" else m.level
    if session.widget(K.SCORED_LEVEL_PICK) != current:
        session.set_widget(K.SCORED_LEVEL_PICK, current)  # before the widget is drawn: the level in force
    c2.selectbox("Level of measurement (a new level measures again)", ("from the data", *LEVELS),
                 key=K.SCORED_LEVEL_PICK, on_change=on_level,
                 help=f"From the data: {LEVEL_WHY[m.kind]}. Interval treats the scores' steps as equal.")
    if len(m.input.judges) > 1:
        if session.widget(K.SCORED_FOR_PICK) != session.scored_for:
            session.set_widget(K.SCORED_FOR_PICK, session.scored_for)
        c3.selectbox("Decide for", (None, *m.input.judges), key=K.SCORED_FOR_PICK, on_change=on_decided_for,
                     format_func=lambda j: EVERY_JUDGE if j is None else printable(j, 60),
                     help="Every judge: the log passes only if each judge does. One judge: its own decision.")


def verdict(m: ScoredMeasurement, d: ScoredDecision) -> None:
    """The decision (overall, then per judge), as decided."""
    if is_sample():
        st.badge(SAMPLE_WORDS, color="gray", help="A bundled sample, not your data: upload yours above.")
    n = len(m.input.judges)
    who = (f" for {md(d.judge, 60)}" if d.judge is not None
           else f" (every judge must pass: the worst of {n} decides)" if n > 1 else "")
    tail = scored_scores.BANNER_TAIL if m.described_only else BANNER_TAIL[d.decision]
    {PASS: st.success, INCOMPLETE: st.warning}.get(d.decision, st.error)(d.decision + who + tail)
    lines = []
    for j in m.input.judges:
        decided, gates, reason = d.per_judge[j]
        failing = "; ".join(md(g.margin, 200) for g in gate_views(j, d, m.agreement(j)) if g.passed is False)
        lines.append(f"- **{md(j, 60)}**: {SHORT[decided]}" + (f": {failing}" if failing else "")
                     + (f" ({md(reason, 300)})" if reason else ""))
    st.markdown("\n".join(lines))
    th = d.thresholds
    st.caption(f"Decided exactly under {threshold_words('admissibility_margin_permil', th.admissibility_margin_permil)} "
               f"and {threshold_words('judge_alpha_floor_permil', th.judge_alpha_floor_permil)} (from "
               f"{md(d.source, 60)}; change them on the What-if thresholds page). Admissible: the judge's "
               "alpha with the humans is at most the margin below the humans' alpha with each other.")


def judge_section(m: ScoredMeasurement, d: ScoredDecision, a: JudgeAgreement, i: int) -> None:
    """One judge: its decision, its two gates, its alphas, its measures, its figures."""
    with st.container(border=True, key=f"scored_judge_{i}"):
        st.subheader(md(a.judge, 80))
        decided, _, clause = judge_clause(m, d, a.judge).partition(": ")
        st.markdown(f"**{decided}**: {md(clause, 400)}; {scored_scores.counts(m, a)}.")
        if m.described_only:  # no human labels: what the judge did is drawn above; say what the rest needs
            return scored_scores.needs_humans()
        for col, g in zip(st.columns(2), gate_views(a.judge, d, a)):
            with col:
                gates.gate_block(g, key=K.SCORED_GATE.format(i, g.decided.name if g.decided else g.label))
        st.markdown("**Alpha: the judge with the humans, the humans with each other**")
        responsive_table(pd.DataFrame(alpha_rows(a)), f"scored_alpha_{i}")
        if a.judge_alpha.method:
            st.caption(f"95% intervals: {md(a.judge_alpha.method, 300)}. The pooled alphas take each pair "
                       "of raters' two scores on an item as one unit (the humans' over the items two or more humans "
                       "scored); each pair's own alpha is shown below them, over the items both scored.")
        st.markdown("**Beside the gates** (information, not gates)")
        responsive_table(measures_frame(a), f"scored_measures_{i}", limit=600)
        scored_scores.methods_caption(a)
        figures_row(d, a, i)


def alpha_rows(a: JudgeAgreement) -> list[dict[str, str]]:
    """The alphas behind the gates (with their intervals), then each pair of raters' alpha."""
    rows = []
    for label, meas in (("judge vs humans (pooled pairs)", a.judge_alpha), ("humans vs humans (pooled pairs)", a.human_alpha),
                        ("judge's minus the humans'", a.difference)):
        if meas is None:
            rows.append({"alpha": label, "value": "not measured: fewer than two humans", "95% interval": "",
                         "items": ""})
            continue
        rows.append({"alpha": label, "value": meas.value_text() if meas.exact is not None
                     else f"not measured: {meas.unavailable}", "95% interval": meas.interval_text() or "none",
                     "items": f"{meas.cases:,}" if meas.exact is not None else ""})
    for p in a.alphas:
        rows.append({"alpha": f"{p.a} ~ {p.b}", "value": "undefined" if p.exact is None else f"{float(p.exact):.3f}",
                     "95% interval": "", "items": f"{p.items:,}"})
    return rows


def measures_frame(a: JudgeAgreement) -> pd.DataFrame:
    """The measures beside the gates as the pairwise judge's bias measures are tabled."""
    frame = pd.DataFrame(bias.measure_rows(a.measures))
    if "test" in frame and not frame["test"].astype(bool).any():
        frame = frame.drop(columns="test")  # no measure here carries a test
    return frame


def figures_row(d: ScoredDecision, a: JudgeAgreement, i: int) -> None:
    """The judge's scores against the humans'; its stated confidence (reliability diagram, and the
    isotonic map's before and after on held-out items) when it stated one."""
    section = judge_dict(a, d)  # the report's own section: the figures draw what the reports store
    dark = gates.dark()
    left, right = st.columns(2)
    with left:
        fig = figures.score_heatmap(section["table"], a.judge, dark=dark)
        st.plotly_chart(fig, width="stretch", key=K.SCORED_HEATMAP.format(i), config=gates.PLOT_CONFIG)
        st.caption(figure_style.caption(fig))
    with right:
        c = a.confidence
        if c is None:
            st.markdown("**Stated confidence**: " + ("none in the log, so there is no reliability diagram."
                                                     if a.kind == "binary" else
                                                     "read for pass/fail judges (a stated probability of pass)."))
            return
        fig = figures.reliability_figure(section["confidence"], dark=dark)
        st.plotly_chart(fig, width="stretch", key=K.SCORED_RELIABILITY.format(i), config=gates.PLOT_CONFIG)
        st.caption(figure_style.caption(fig))
        st.markdown(f"**Isotonic recalibration** (fitted on {c.n - c.held_out:,} items, tried on the other "
                    f"{c.held_out:,}; shown, not applied)")
        text_table(pd.DataFrame([
            {"on the held-out items": "as stated", "ECE": f"{c.ece_before:.3f}", "Brier": f"{c.brier_before:.3f}"},
            {"on the held-out items": "recalibrated", "ECE": f"{c.ece_after:.3f}", "Brier": f"{c.brier_after:.3f}"}]))
        st.caption(md(c.sentence, 600))


def panel_section(m: ScoredMeasurement) -> None:
    """Several judges: their alpha among themselves, without each, and which one to drop."""
    p = m.panel
    if p is None:
        return
    st.header("The panel of judges", anchor="judge-panel")
    value = "undefined" if p.alpha is None else f"{float(p.alpha):.3f}"
    st.markdown(f"Alpha among the {len(m.input.judges):,} judges ({m.level}, over the items they scored): **{value}**.")
    if p.without:
        responsive_table(pd.DataFrame([
            {"left out": j, "alpha of the others": "undefined" if v is None else f"{float(v):.3f}"}
            for j, v in p.without.items()]), "scored_without")
    else:
        st.caption("With two judges, leaving one out leaves no panel: alpha without each is not shown.")
    if p.drop is not None:
        st.markdown(f"To drop: **{md(p.drop, 80)}**: {md(p.why, 300)}.")
    else:
        st.markdown(md(p.why, 300) + ".")


def read_section(m: ScoredMeasurement) -> None:
    """What was read and what was left out (io's notes, counted)."""
    st.header("What was read", anchor="read")
    notes = m.notes or ("nothing was left out",)
    st.markdown("\n".join(f"- {md(n, 400)}" for n in notes))


def history_controls() -> None:
    """The graded judge's run (its id is in the link), a failed recording said, and "Record this
    view": the judge decided for under the thresholds in force, with an optional label (as the
    pairwise judge's recording.record_controls)."""
    src = loaded()
    assert src is not None
    if session.record_error(SCORED):
        st.warning(md(session.record_error(SCORED), 500))
    if runs.store() is None:
        return
    with st.expander("History: record this view as a run", expanded=False):
        if src.run:
            st.caption(f"This data is run {md(src.run)} in the history (the link carries its id, never the "
                       "data).")
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.text_input("Label (optional)", key=K.RECORD_LABEL.format(SCORED), max_chars=200,
                        placeholder="e.g. week 48, after retraining")
        right.button("Record this view", key=K.RECORD.format(SCORED), on_click=record_view)
        if message := session.take_record_message(SCORED):
            st.success(md(message))


def record_view() -> None:
    """on_click of "Record this view": the graded judge held, decided for the judge chosen, under
    the thresholds in force."""
    src = loaded()
    if src is None:
        return
    view = replace(src, recipe=replace(src.recipe, judge=session.scored_for))
    label = (session.widget(K.RECORD_LABEL.format(SCORED)) or "").strip() or None
    run = runs.record(SCORED, view, measured(src.recipe), label=label)
    if run is not None:
        session.say_recorded(SCORED, f"Recorded run {run.id}.")


def downloads(m: ScoredMeasurement) -> None:
    """JSON, Markdown and HTML reports of what is shown, under the thresholds in force (the
    pipeline's report of the cached measurement; built only when a button is pressed)."""
    from datetime import datetime, timezone
    from pathlib import Path

    from agreebound.render.html import scored_html
    from agreebound.render.view import scored_view
    from agreebound.render.names import report_filename
    from agreebound.render.markdown import mark_sample, to_markdown
    from agreebound.render.report import to_json

    src = loaded()
    assert src is not None
    files = [cast(ReadInput, (role, f.name, f.data)) for role, f in (("bundle", src.recipe.first), ("references", src.recipe.references))
             if f is not None]
    stem, when = Path(src.recipe.first.name).stem, datetime.now(timezone.utc)

    def build() -> JSONObject:
        """The report under the thresholds in force when a button is pressed."""
        report = scored_view(m, decision()[1], state.thresholds(), [(n, b) for _, n, b in files]).report
        return mark_sample(report) if is_sample() else report

    st.header("Reports", anchor="scored-reports")
    c1, c2, c3 = st.columns(3)
    for col, (what, ext, mime, make) in zip((c1, c2, c3), (
            ("JSON", "json", "application/json", lambda: to_json(build())),
            ("Markdown", "md", "text/markdown", lambda: to_markdown(build())),
            ("HTML", "html", "text/html", lambda: scored_html(build())))):
        col.download_button(f"Graded judge report ({what})", make, file_name=report_filename(stem, "judge", ext, when),
                            mime=mime, key=K.REPORT_DOWNLOAD.format(SCORED, ext), on_click="ignore")


# --- the What-if page -------------------------------------------------------------------------------


def editors() -> None:
    """The graded judge's two thresholds as sliders (threshold data: ThresholdSet.scored; a move
    reruns decide_scored only), each with the measured values under it."""
    m, _ = decision()
    t = state.thresholds().scored
    measured_by = {"admissibility_margin_permil": ("measured judge alpha minus the humans'", "difference"),
                   "judge_alpha_floor_permil": ("measured judge alpha", "judge_alpha")}
    for field in SCORED_FIELDS:
        words = THRESHOLD_WORDS[field][0]
        threshold_pair(f"{words[0].upper()}{words[1:]} (permil)", field, getattr(t, field), 1,
                       state.edit_scored, (), "Permil: thousandths of alpha. " + CITATIONS[field])
        said, attr = measured_by[field]
        values = [f"{md(a.judge, 30)} {getattr(a, attr).value_text() if getattr(a, attr) else 'not measured'}"
                  for a in m.agreements[:12]]
        st.caption(f"{said}: " + ", ".join(values) + (f" and {len(m.agreements) - 12:,} more"
                                                       if len(m.agreements) > 12 else ""))


def verdict_rows() -> list[dict[str, str]]:
    """The What-if table's row for the graded judge: the defaults' decision beside the edited one."""
    if loaded() is None:
        return []
    m, d = decision()
    base = decided_under_defaults(m)
    defaults = ", ".join(f"{SECONDARY[f]} {THRESHOLD_WORDS[f][1](getattr(base.thresholds, f))}" for f in SCORED_FIELDS)
    return [{"graded judge": printable(cast("Loaded[JudgeRecipe]", loaded()).label, 80), f"defaults ({defaults})": base.decision,
             "edited": d.decision, "changed": "yes" if base.decision != d.decision else ""}]


def sweep_gates() -> dict[str, GateView]:
    """The graded judge's gates for the What-if threshold sweep, by their names there."""
    if loaded() is None:
        return {}
    m, d = decision()
    return {f"graded judge {j}: {g.label}": g for j in m.input.judges[:DETAIL_DIMENSIONS]
            for g in gate_views(j, d, m.agreement(j))}
