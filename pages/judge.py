"""Judge calibration: the five rates against the contract, reference issues, the decision; a graded
or pass/fail judge's log is shown by ui.scored instead (its gates, alphas and measures)."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from agreebound.app.recipes import JudgeRecipe

from agreebound.render.gates import judge_sentence
from agreebound.render.report import judge_fingerprint
from agreebound.render.scored import fingerprint_text
from agreebound.ui import (bias, contract_editor, gates, judge_view, loading, memo, recording, reports, scored, shell,
                           judge_ranking, judge_slices, provenance, state, win_rates)
from agreebound.render import figures
from agreebound.ui.blocks import md, responsive_table, safe_frame, show_error
from agreebound.ui.data import Loaded, bundle_unbound, judge_diagnostics_for, judge_log, judges_in_log, json_lines
from agreebound.ui.state import K, session

shell.enter(__file__)

st.title("Judge calibration")


def on_bundle() -> None:
    """A bundle, or a judge log (its references and contract can follow in the uploaders below);
    JSON Lines of another shape wait for a mapping file."""
    session.set_judge_unbound(None)
    session.set_judge_unmapped(None)
    if (u := loading.uploaded(K.BUNDLE_UPLOAD)) is None:
        return
    if scored.is_scored(u):  # a graded or pass/fail judge's log (or scores table)
        scored.load_upload(u)
        return
    if not judge_log(u.name, u.data) and json_lines(u.name, u.data):
        session.set_judge_unmapped(u)
        state.remember_error("judge", f"{u.name}: JSON Lines that are not a shape this version knows (MT-Bench, "
                             "AlpacaEval, observation records): give a mapping from its fields to the observation "
                             "fields below")
        return
    if judge_log(u.name, u.data):
        judges = judges_in_log(u.name, u.data)
        # several judges: audit the one with the most judgments, offer the rest
        recipe = JudgeRecipe(u, "log", judge=judges[0] if len(judges) > 1 else None)
        state.remember_error("judge", loading.try_judge_source(Loaded(f"upload: {u.name}", recipe)))
        return
    error = loading.try_judge_source(Loaded(f"upload: {u.name}", JudgeRecipe(u, "bundle")))
    if error and bundle_unbound(u.name, u.data):
        session.set_judge_unbound(u)  # offer "bind to this contract" as a draft
    state.remember_error("judge", error)


def on_log_mapping() -> None:
    u, m = session.judge_unmapped, loading.uploaded(K.LOG_MAPPING_UPLOAD)
    if u is None or m is None:
        return
    error = loading.try_judge_source(Loaded(f"upload: {u.name} (+ mapping {m.name})", JudgeRecipe(u, "log", mapping=m)))
    state.remember_error("judge", error)
    if error is None:
        session.set_judge_unmapped(None)


def on_bind() -> None:
    u = session.judge_unbound
    if u is None:
        return
    src = Loaded(f"upload: {u.name} (bound to its contract as a draft)", JudgeRecipe(u, "bundle", rebind=True))
    state.remember_error("judge", loading.try_judge_source(src))
    session.set_judge_unbound(None)


def on_log_extra() -> None:
    """References and/or a contract for the loaded log: the audit is redone with them."""
    src = session.judge_source
    log, mapping = src.recipe.first, src.recipe.mapping
    refs = loading.uploaded(K.LOG_REFERENCES_UPLOAD)
    contract = loading.uploaded(K.LOG_CONTRACT_UPLOAD)
    extra = [f.name for f in (refs, contract) if f]
    extra += [f"mapping {mapping.name}"] if mapping else []
    label = f"upload: {log.name}" + (f" (+ {', '.join(extra)})" if extra else "")
    recipe = replace(src.recipe, references=refs, contract=contract)
    state.remember_error("judge", loading.try_judge_source(replace(src, label=label, recipe=recipe)))


def on_judge() -> None:
    src = session.judge_source
    judge = session.widget(K.JUDGE_PICK)
    state.remember_error("judge", loading.try_judge_source(replace(src, recipe=replace(src.recipe, judge=judge))))


def on_tables() -> None:
    files = [loading.uploaded(k) for k in (K.CONTRACT_UPLOAD, K.REFERENCES_UPLOAD, K.OBSERVATIONS_UPLOAD)]
    if any(f is None for f in files):
        state.remember_error("judge", "Load tables needs all three files: contract JSON, references CSV, observations CSV.")
        return
    recipe = JudgeRecipe(files[0], "tables", references=files[1], observations=files[2])
    state.remember_error("judge", loading.try_judge_source(Loaded(f"upload: {files[2].name} (+ contract, references)",
                                                                  recipe)))


c1, c2 = st.columns(2)
with c1:
    st.file_uploader("Judge bundle (JSON), or a judge log: MT-Bench judgments (JSONL), AlpacaEval annotations "
                     "(JSON), observations (JSONL); or a graded or pass/fail judge's scores (a CSV with item, "
                     "rater, role, score; inspect_ai, promptfoo, MT-Bench single)",
                     type=["json", "jsonl", "ndjson", "csv", "eval"], key=K.BUNDLE_UPLOAD, on_change=on_bundle)
with c2:
    scored.sample_picker()
with st.expander("Or the tabular trio: contract JSON + references CSV + observations CSV"):
    t1, t2, t3 = st.columns(3)
    t1.file_uploader("Contract JSON", type=["json"], key=K.CONTRACT_UPLOAD)
    t2.file_uploader("References CSV", type=["csv"], key=K.REFERENCES_UPLOAD)
    t3.file_uploader("Observations CSV", type=["csv"], key=K.OBSERVATIONS_UPLOAD)
    st.button("Load tables", on_click=on_tables, key=K.LOAD_TABLES)

show_error("judge", "(the data loaded before is still shown)")
if session.judge_unmapped is not None:
    st.file_uploader("Mapping for this log (JSON or TOML; a template is on the Formats & help page)",
                     type=["json", "toml"], key=K.LOG_MAPPING_UPLOAD, on_change=on_log_mapping)
if session.judge_unbound is not None:
    st.button("Bind to this contract (a draft: the report records the id the snapshot named)", on_click=on_bind,
              key=K.BIND_CONTRACT, type="primary")



def pairwise() -> None:
    """The pairwise judge: its five rates against the contract, its bias measures, its cases."""
    scored.offer()  # a graded judge held beside it: one click away
    bundle, d = loading.judge_decision()
    m = bundle.measurement
    src = session.judge_source
    if src.recipe.source == "log":
        with st.container(border=True):
            st.markdown("**A judge log.** Rates that need human references or candidate lengths are evaluable only "
                        "when the log or a second file has them. Add them here:")
            l1, l2, l3 = st.columns(3)
            l1.file_uploader("Human references: MT-Bench human judgments (JSONL) or references CSV",
                             type=["jsonl", "ndjson", "json", "csv"], key=K.LOG_REFERENCES_UPLOAD,
                             on_change=on_log_extra)
            l2.file_uploader("Contract JSON (without one nothing is decided: illustrative limits only)", type=["json"],
                             key=K.LOG_CONTRACT_UPLOAD, on_change=on_log_extra)
            with l3:
                judges = judges_in_log(src.recipe.first.name, src.recipe.first.data)  # a convenience: () if unreadable
                if len(judges) > 1:
                    if session.widget(K.JUDGE_PICK) not in judges:
                        session.set_widget(K.JUDGE_PICK, src.recipe.judge or judges[0])
                    st.selectbox(f"Judge ({len(judges)} in this log)", judges, key=K.JUDGE_PICK, on_change=on_judge)
    counts = judge_view.judge_counts(bundle)  # one sentence of counts, here and in the snapshot below
    st.caption(f"Loaded: {md(src.label)}: {counts}.")
    # what a later run is compared against: `agreebound compare` exits 1 when any of it changes
    st.caption("Fingerprint: " + md(fingerprint_text(judge_fingerprint(bundle, provenance.shown_files(src))), 600) + ".")
    for note in m.notes + d.notes:
        st.caption("Note: " + md(note, 400))
    judge_view.decision_banner(d)
    st.markdown(md(judge_sentence(d), 300) + (f" Why: {why}." if (why := gates.why_text(
        gates.judge_gate_list(bundle, d))) else ""))
    bias.draw_notes(bundle, d, link=True)  # each failing gate read against its bias measure: bias or disagreement?
    if m.partial:
        missing = judge_view.judge_missing_lines(d)
        st.markdown(("A partial audit: this source lacks what some gates need, so it can fail but never pass."
                     if d.contract_given else "A partial audit: this source lacks what some gates need.")
                    + " Per gate, what is missing and what supplies it:\n\n" + "\n".join(f"- {x}" for x in missing))
    if not d.contract_given:
        st.info(f"No contract was given, so nothing is decided: the gates are measured against {d.limits_text} "
                f"({d.thresholds.minimum_human_agreement_bps} bps agreement, {d.thresholds.maximum_position_flip_bps} bps "
                "position flip, ...). Add your contract JSON above, or write one in the contract editor below.")
        st.markdown(f"Measured against {md(d.limits_text)}, drafted from the log as "
                    f"`{d.decided_against.content_id}`")
    else:
        st.markdown(f"Decided against the **{d.contract_kind}** contract: `{d.decided_against.content_id}`")
    if d.contract_kind == "draft":
        st.markdown(f"The snapshot is bound to `{bundle.contract.content_id}`; the draft is a what-if, not a new binding.")
    if bundle.rebound_from:
        st.warning(f"Bound as a draft: the snapshot named `{bundle.rebound_from}`; it is audited against this "
                   f"contract's content `{bundle.contract.content_id}`, and the report records both.")
    if d.seed_disagrees:
        st.info(f"Seed rounding: [the specification's (seed's)](/help#the-specification) half-up basis points would "
                f"have said {d.seed_decision}; "
                f"the exact gate decides {d.decision}.")

    with st.expander("Contract and snapshot", expanded=False):
        st.code(f"contract id     {bundle.contract.content_id}\n"
                f"scope           {bundle.scope}\n"
                f"judge           {bundle.contract.judge_generator}\n"
                f"rubric digest   {bundle.rubric_digest}\n"
                f"snapshot bound  {m.bound} "
                f"({bundle.contract_content_id})\n"
                f"counts          {counts}")

    details(bundle, d)


def details(bundle, d) -> None:
    """The pairwise judge's rates, diagnostics, bias measures, reports, cases and contract editor."""
    m = bundle.measurement
    diag = judge_diagnostics_for(loading.judge_key(session.judge_source), m)
    left, right = st.columns([1, 1])
    with left:
        st.plotly_chart(memo.figure(figures.calibration_rates, d, dark=gates.dark()), width="stretch", key=K.CAL_RATES,
                        config=gates.PLOT_CONFIG)
    with right:
        st.markdown(judge_view.judge_diagnostics_text(diag, m, bundle.judge_human_alpha, bundle.human_agreement))
        if d.reference_issues:
            st.markdown(f"**Reference issues ({len(d.reference_issues)})**: each fails the audit.")
            st.dataframe(safe_frame(pd.DataFrame({"issue": list(d.reference_issues)})), hide_index=True, height=160)
        elif "human_agreement" not in m.unavailable:
            st.markdown("No reference issues: every reference is adjudicated with enough reviewers.")
        if "human_agreement" not in m.unavailable and len(m.cases):
            judge_view.judge_confusion_table(m.cases)

    rows = judge_view.judge_gate_rows(d, diag, m.n_cases)
    responsive_table(pd.DataFrame(rows), "gates_table")
    methods = sorted({iv.method for iv in diag.intervals.values()})
    st.caption("bps: basis points, hundredths of a percent (500 bps = 5.00%). Intervals count cases, not observations: "
               "the two orders and the repetitions of one case are not independent. "
               + " ".join(md(x, 200) + "." for x in methods[:3])
               + f" ({gates.GLOSSARY_LINK.format('bps, design effect, effective n')})")
    gates.fragile_note(gates.judge_gate_list(bundle, d), plans=True)

    bias.section(bundle, d)
    win_rates.section(bundle)
    judge_slices.section(bundle)  # every gate split by a column of the data (template, turn, category)
    judge_ranking.section(bundle)  # the models ranked from the judge's verdicts, with tie groups

    recording.record_controls("judge")
    reports.report_downloads("judge")

    st.header("Cases")
    choice = st.selectbox("Show", list(judge_view.CASE_FILTERS), key=K.CASE_FILTER)
    cases = judge_view.filter_cases(m.cases, choice)
    st.caption(judge_view.cases_shown(cases, m.n_cases))
    st.dataframe(safe_frame(cases), hide_index=True, width="stretch", height=320)

    contract_editor.draw(bundle)


if scored.showing():
    scored.page()
else:
    pairwise()
