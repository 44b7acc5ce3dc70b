"""History: runs recorded over time, a timeline per data set, two runs compared, a run opened or
deleted. Layout only: the store is read through agreebound.ui.runs, comparisons come from
agreebound.app.history."""

import streamlit as st

from agreebound.ui import runs, shell, widgets
from agreebound.render.figures import caption, history_timeline

shell.enter(__file__)
S = st.session_state

st.title("History")
st.caption(widgets.md(runs.status(), 300))

if S.get("open_run"):
    run_id, S.open_run = S.open_run, None
    error = widgets.open_run(run_id)
    if error:
        st.error(widgets.md(error, 400) + " (what was loaded is kept)")
    else:
        kind = S.panel_source if S.panel_source.run == run_id else None
        st.switch_page("pages/panel.py" if kind is not None else "pages/judge.py")

if message := S.get("history_message"):
    (st.error if message[0] == "error" else st.info)(widgets.md(message[1], 400))
    S.history_message = None

store = runs.store()
everything, listing_error = runs.all_runs(store) if store is not None else ([], None)
if store is None:
    st.info("No history here: " + widgets.md(runs.status(), 300))
elif listing_error:
    st.error("History unavailable: " + widgets.md(listing_error, 400) + " (what is loaded is kept)")
elif not everything:
    st.info("No runs yet. Each upload on the Panel or Judge page is recorded here once it parses; from a terminal, "
            "`agreebound panel FILE --record` records one too.")
else:
    names = list(dict.fromkeys(r.data_name for r in everything))  # newest first
    f1, f2, f3 = st.columns(3)
    name = f1.selectbox("Data", names, index=None, placeholder="all data", key="history_name")
    kind = f2.selectbox("Kind", ("panel", "judge"), index=None, placeholder="panel and judge", key="history_kind")
    verdict = f3.selectbox("Verdict", sorted({r.verdict for r in everything}), index=None, placeholder="any verdict",
                           key="history_verdict")
    days = sorted({r.created_utc[:10] for r in everything})
    with st.expander("More filters: judge, contract, dates"):
        g1, g2 = st.columns(2)
        judge = g1.selectbox("Judge", sorted({r.judge for r in everything if r.judge}), index=None,
                             placeholder="any judge", key="history_judge")
        contract = g2.selectbox("Contract", sorted({r.contract_id for r in everything if r.contract_id}), index=None,
                                placeholder="any contract", key="history_contract", format_func=runs.short_contract)
        since = g1.selectbox("From (UTC date)", days, index=None, placeholder="the first run", key="history_since")
        until = g2.selectbox("To (UTC date)", days, index=None, placeholder="the last run", key="history_until")
    shown, listing_error = runs.filtered(store, name, kind, judge, contract, verdict, since, until)
    if listing_error:
        st.error("History unavailable: " + widgets.md(listing_error, 400))
    st.subheader(f"{len(shown):,} of {len(everything):,} runs")
    if shown:
        st.dataframe(widgets.safe_frame(runs.runs_frame(shown)), hide_index=True, width="stretch", key="history_table")
        by_id = {r.id: r for r in shown}
        a1, a2, a3 = st.columns([4, 1, 1], vertical_alignment="bottom")
        pick = a1.selectbox("Run", list(by_id), format_func=lambda i: runs.choice(by_id[i]), key="history_pick")
        a2.button("Open this run", key="history_open", on_click=runs.open_from_table,
                  help="Load its stored data, mapping and thresholds, and show its page")
        picked = by_id[pick]
        if runs.mine(picked):
            with a3.popover("Delete this run"):
                st.caption("The run, and its stored files when no other run uses them. This cannot be undone; the "
                           "audit trail keeps a note of it.")
                st.button("Delete", key="history_delete", type="primary", on_click=runs.delete, args=(pick,))
            S.share_pick = picked.share
            st.segmented_control("Who sees this run", runs.SHARES, key="share_pick", on_change=runs.share,
                                 args=(pick,), format_func=runs.auth.share_words,
                                 help="Only you (and admins); your team; or everyone signed in to this dashboard. "
                                      "A link to the run opens it only for those who may see it.")
        else:
            a3.caption(widgets.md(f"{picked.owner_name}'s run, shared with {runs.auth.share_words(picked.share)}", 200))
        st.caption(widgets.md(runs.usage_line(store), 200))

        st.subheader("Runs over time")
        series = list(dict.fromkeys(r.data_name for r in shown))  # the newest run's data first
        which = name or st.selectbox("Timeline of", series, key="history_timeline_name")
        for k in sorted({r.kind for r in shown if r.data_name == which}):
            of_data, error = runs.with_reports(store, which, k, judge=judge, contract=contract, verdict=verdict,
                                               since=since, until=until)
            if error:
                st.error("History unavailable: " + widgets.md(error, 400))
                continue
            fig = history_timeline(runs.timeline_of(of_data), dark=widgets.dark(), name=f"{which} ({k})")
            st.plotly_chart(fig, width="stretch", config=widgets.PLOT_CONFIG, key=f"timeline_chart_{k}",
                            on_select=runs.chart_opener(f"timeline_chart_{k}"), selection_mode="points")
            st.caption(caption(fig) + (" The newest 200 runs are drawn." if len(of_data) >= 200 else ""))

        st.subheader("Compare two runs")
        ids = list(by_id)
        after_default, before_default = runs.compare_defaults(shown, which)
        if S.get("compare_a") not in ids or S.get("compare_b") not in ids:
            # first drawn, or a filter left a picked run out: both pickers take the defaults (set as
            # values, before they are drawn, so the browser shows them too)
            S.compare_a, S.compare_b = before_default, after_default
        c1, c2 = st.columns(2)
        before = c1.selectbox("Before", ids, format_func=lambda i: runs.choice(by_id[i]), key="compare_a")
        after = c2.selectbox("After", ids, format_func=lambda i: runs.choice(by_id[i]), key="compare_b")
        if before == after:
            st.caption("Pick two different runs.")
        else:
            c, why = runs.compared(store, before, after)
            if why is not None:
                st.warning(widgets.md(why, 300))
            else:
                (st.error if c.regression else st.success)(widgets.md(c.headline(), 1200))
                for shift in c.alpha_shifts:
                    st.markdown(widgets.md(shift.sentence(), 400))
                widgets.responsive_table(runs.compare_frame(c), key="compare_table")
    else:
        st.caption("No run matches these filters.")

if store is not None and runs.auth.viewer().admin:
    with st.expander("For admins: the store, retention and the audit trail"):
        st.caption(widgets.md(f"Runs are recorded in {store.where}.", 400))
        r1, r2 = st.columns([1, 3], vertical_alignment="bottom")
        days = int(r1.number_input("Delete runs older than (days)", min_value=1, max_value=36_500, value=365,
                                   key="prune_days"))
        with r2.popover("Delete them"):
            st.caption(widgets.md(runs.prune_preview(store, days), 300) + " This cannot be undone; the audit trail "
                       "keeps a tombstone of each. `agreebound prune --days N` does the same from a terminal.")
            st.button("Delete", key="prune_now", type="primary", on_click=runs.prune, args=(days,))
        events, trail_error = runs.audit_trail(store)
        if trail_error:
            st.error(widgets.md(trail_error, 400))
        else:
            st.dataframe(widgets.safe_frame(runs.audit_frame(events)), hide_index=True, width="stretch",
                         key="audit_table")
            st.caption(f"The newest {len(events):,} event{'' if len(events) == 1 else 's'}. Deleted runs keep their "
                       "row here (a tombstone); `agreebound audit` prints the whole trail.")
