"""History: runs recorded over time, a timeline per data set, two runs compared, a run opened or
deleted. Layout only: the store is read through agreebound.ui.runs and agreebound.ui.history_tables,
comparisons come from agreebound.app.history."""

import streamlit as st

from agreebound.ui import control_bands, gates, history_drift, history_tables, run_links, runs, shell
from agreebound.render.figure_style import caption
from agreebound.render.figures import history_timeline
from agreebound.ui.blocks import md, responsive_table, safe_frame
from agreebound.ui.state import K, session

shell.enter(__file__)

st.title("History")
st.caption(md(runs.status(), 300))

if run_id := session.take_run_to_open():
    error = run_links.open_run(run_id)
    if error:
        st.error(md(error, 400) + " (what was loaded is kept)")
    else:
        kind = session.panel_source if session.panel_source.run == run_id else None
        st.switch_page("pages/panel.py" if kind is not None else "pages/judge.py")

if message := session.take_history_message():
    (st.error if message[0] == "error" else st.info)(md(message[1], 400))

store = runs.store()
everything, listing_error = history_tables.all_runs(store) if store is not None else ([], None)
if store is None:
    st.info("No history here: " + md(runs.status(), 300))
elif listing_error:
    st.error("History unavailable: " + md(listing_error, 400) + " (what is loaded is kept)")
elif not everything:
    st.info("No runs yet. Each upload on the Panel or Judge page is recorded here once it parses; from a terminal, "
            "`agreebound panel FILE --record` records one too.")
else:
    names = list(dict.fromkeys(r.data_name for r in everything))  # newest first
    f1, f2, f3 = st.columns(3)
    name = f1.selectbox("Data", names, index=None, placeholder="all data", key=K.HISTORY_NAME)
    kind = f2.selectbox("Kind", ("panel", "judge"), index=None, placeholder="panel and judge", key=K.HISTORY_KIND)
    verdict = f3.selectbox("Verdict", sorted({r.verdict for r in everything}), index=None, placeholder="any verdict",
                           key=K.HISTORY_VERDICT)
    days = sorted({r.created_utc[:10] for r in everything})
    with st.expander("More filters: judge, contract, dates"):
        g1, g2 = st.columns(2)
        judge = g1.selectbox("Judge", sorted({r.judge for r in everything if r.judge}), index=None,
                             placeholder="any judge", key=K.HISTORY_JUDGE)
        contract = g2.selectbox("Contract", sorted({r.contract_id for r in everything if r.contract_id}), index=None,
                                placeholder="any contract", key=K.HISTORY_CONTRACT,
                                format_func=history_tables.short_contract)
        since = g1.selectbox("From (UTC date)", days, index=None, placeholder="the first run", key=K.HISTORY_SINCE)
        until = g2.selectbox("To (UTC date)", days, index=None, placeholder="the last run", key=K.HISTORY_UNTIL)
    shown, listing_error = history_tables.filtered(store, name, kind, judge, contract, verdict, since, until)
    if listing_error:
        st.error("History unavailable: " + md(listing_error, 400))
    st.subheader(history_tables.shown_of(shown, everything))
    if shown:
        st.dataframe(safe_frame(history_tables.runs_frame(shown)), hide_index=True, width="stretch",
                     key=K.HISTORY_TABLE)
        by_id = {r.id: r for r in shown}
        a1, a2, a3 = st.columns([4, 1, 1], vertical_alignment="bottom")
        pick = a1.selectbox("Run", list(by_id), format_func=lambda i: history_tables.choice(by_id[i]),
                            key=K.HISTORY_PICK)
        a2.button("Open this run", key=K.HISTORY_OPEN, on_click=history_tables.open_from_table,
                  help="Load its stored data, mapping and thresholds, and show its page")
        picked = by_id[pick]
        if history_tables.mine(picked):
            with a3.popover("Delete this run"):
                st.caption("The run, and its stored files when no other run uses them. This cannot be undone; the "
                           "audit trail keeps a note of it.")
                st.button("Delete", key=K.HISTORY_DELETE, type="primary", on_click=history_tables.delete, args=(pick,))
            session.set_widget(K.SHARE_PICK, picked.share)
            st.segmented_control("Who sees this run", history_tables.SHARES, key=K.SHARE_PICK,
                                 on_change=history_tables.share, args=(pick,), format_func=runs.auth.share_words,
                                 help="Only you (and admins); your team; or everyone signed in to this dashboard. "
                                      "A link to the run opens it only for those who may see it.")
        else:
            a3.caption(md(f"{picked.owner_name}'s run, shared with {runs.auth.share_words(picked.share)}", 200))
        st.caption(md(history_tables.usage_line(store), 200))

        st.subheader("Runs over time")
        series = list(dict.fromkeys(r.data_name for r in shown))  # the newest run's data first
        which = name or st.selectbox("Timeline of", series, key=K.HISTORY_TIMELINE_NAME)
        for k in sorted({r.kind for r in shown if r.data_name == which}):
            of_data, error = history_tables.with_reports(store, which, k, judge=judge, contract=contract,
                                                         verdict=verdict, since=since, until=until)
            if error:
                st.error("History unavailable: " + md(error, 400))
                continue
            fig = history_timeline(history_tables.timeline_of(of_data), dark=gates.dark(), name=f"{which} ({k})")
            chart = K.TIMELINE_CHART.format(k)
            st.plotly_chart(fig, width="stretch", config=gates.PLOT_CONFIG, key=chart,
                            on_select=history_tables.chart_opener(chart), selection_mode="points")
            st.caption(caption(fig) + (" The newest 200 runs are drawn." if len(of_data) >= 200 else ""))
            control_bands.draw(of_data, which, k)

        st.subheader("Compare two runs")
        ids = list(by_id)
        after_default, before_default = history_tables.compare_defaults(shown, which)
        if session.widget(K.COMPARE_A) not in ids or session.widget(K.COMPARE_B) not in ids:
            # first drawn, or a filter left a picked run out: both pickers take the defaults (set as
            # values, before they are drawn, so the browser shows them too)
            session.set_widget(K.COMPARE_A, before_default)
            session.set_widget(K.COMPARE_B, after_default)
        c1, c2 = st.columns(2)
        before = c1.selectbox("Before", ids, format_func=lambda i: history_tables.choice(by_id[i]), key=K.COMPARE_A)
        after = c2.selectbox("After", ids, format_func=lambda i: history_tables.choice(by_id[i]), key=K.COMPARE_B)
        if before == after:
            st.caption("Pick two different runs.")
        else:
            c, why = history_tables.compared(store, before, after)
            if why is not None:
                st.warning(md(why, 300))
            else:
                (st.error if c.regression else st.success)(md(c.headline(), 1200))
                for shift in c.alpha_shifts:
                    st.markdown(md(shift.sentence(), 400))
                responsive_table(history_tables.compare_frame(c), "compare_table")
                history_drift.draw(store, by_id[before], by_id[after])  # two judge logs: the judge's own shift
    else:
        st.caption("No run matches these filters.")

if store is not None and runs.auth.viewer().admin:
    with st.expander("For admins: the store, retention and the audit trail"):
        st.caption(md(f"Runs are recorded in {store.where}.", 400))
        r1, r2 = st.columns([1, 3], vertical_alignment="bottom")
        days = int(r1.number_input("Delete runs older than (days)", min_value=1, max_value=36_500, value=365,
                                   key=K.PRUNE_DAYS))
        with r2.popover("Delete them"):
            st.caption(md(history_tables.prune_preview(store, days), 300) + " This cannot be undone; the audit trail "
                       "keeps a tombstone of each. `agreebound prune --days N` does the same from a terminal.")
            st.button("Delete", key=K.PRUNE_NOW, type="primary", on_click=history_tables.prune, args=(days,))
        events, trail_error = history_tables.audit_trail(store)
        if trail_error:
            st.error(md(trail_error, 400))
        else:
            st.dataframe(safe_frame(history_tables.audit_frame(events)), hide_index=True, width="stretch",
                         key=K.AUDIT_TABLE)
            st.caption(history_tables.trail_caption(events))
