"""Panel reliability: alpha against the floor, detector spread against the cap, the verdict."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from agreebound.app.recipes import PanelRecipe
from agreebound.render.gates import panel_sentence
from agreebound.ui import (data_folder, gates, into_view, loading, memo, panel_order, panel_study, panel_view, pickers, preview,
                           provenance, recording, reports, shell, state)
from agreebound.render import figures
from agreebound.ui.blocks import md, open_tab, printable, safe_frame, section_when_open, show_error, text_table
from agreebound.ui.data import Loaded, panel_coefficients
from agreebound.ui.state import K, session

shell.enter(__file__)

st.title("Panel reliability")


def on_ratings() -> None:
    """A new file opens the mapping preview; nothing is measured (or replaced) until Measure."""
    if (u := loading.uploaded(K.RATINGS_UPLOAD)) is not None:
        state.remember_error("panel", preview.start(u))


def on_measure() -> None:
    """Adopt the previewed file through its mapping: the level in force becomes the mapping's."""
    pending = session.pending
    m = pending["mapping"]
    src = Loaded(f"upload: {pending['upload'].name}", PanelRecipe((pending["upload"],), m.to_json()))
    error = loading.try_panel_source(src, (m.level or "auto", "auto", None))  # in force once adopted
    if error:
        session.set_pending({**pending, "error": error})
        return
    state.remember_error("panel", None)
    preview.cancel()


def on_rates() -> None:
    if (u := loading.uploaded(K.RATES_UPLOAD)) is not None:
        loaded = session.panel_source
        state.remember_error("panel", loading.try_panel_source(replace(loaded, recipe=replace(loaded.recipe, rates=u))))


def loaded_caption(m) -> None:
    """What is loaded: the file, its units and raters, the rates' source, the reader's notes."""
    st.caption(panel_view.loaded_caption(m, session.panel_source, loading.rows_read(session.panel_source)))
    for note in m.notices:
        st.caption("Note: " + md(note, 600))  # our sentence, its user text excerpted: whole, not cut at 200


def dimension_views(decisions) -> list:
    """(container, dimension, (measurement, decision)) to draw: the open one of a tab each, or
    (many dimensions) one table of all and the details of the one chosen (worst first)."""
    if len(decisions) > panel_view.DETAIL_DIMENSIONS:
        st.dataframe(safe_frame(panel_view.dimension_table(decisions)), hide_index=True, width="stretch")
        order = panel_view.worst_first(decisions)
        pick = st.selectbox(panel_view.dimension_pick_label(decisions), order, key=K.PANEL_DIMENSION,
                            format_func=lambda d: printable(d, 80))  # options are plain text, not Markdown
        return [(st.container(), pick, decisions[pick])]
    tab, i = open_tab(list(decisions), 60, key=K.PANEL_TAB)
    dim = list(decisions)[i]
    return [(tab, dim, decisions[dim])]


def headline_numbers(dim, m, d) -> None:
    """The verdict said once (why, how sure; details under it), alpha and the spread in plain numbers."""
    from agreebound.ui import panel_verdict

    panel_verdict.headline(dim, m, d)
    src = session.panel_source.recipe.ratings[0]
    if src.data is not None and d.gate("alpha").passed is False:  # a low alpha: do the raters' rates explain it?
        from agreebound.ui.data import rates_sentence

        mapping = session.panel_source.recipe.mapping
        sentence = rates_sentence(src.name, src.digest, src.data, m.level, dim, mapping if isinstance(mapping, str) else None)
        if sentence:
            st.caption(md(sentence, 600) + " (the annotation study below says more)")


def charts(dim, m, d) -> None:
    """alpha against the floor and the rates against the cap; the coincidences and categories;
    each detector's rate with its Wilson interval."""
    left, right = st.columns(2)
    with left:
        if m.alpha.value is None:
            st.info("alpha is undefined here: nothing to draw against the floor.")
        else:
            st.plotly_chart(memo.figure(figures.alpha_bullet, m, d, dark=gates.dark()), width="stretch",
                            key=K.ALPHA_CHART.format(dim), config=gates.PLOT_CONFIG)
        if m.rates:
            st.plotly_chart(memo.figure(figures.rates_interval, m, d, dark=gates.dark()), width="stretch",
                            key=K.RATES_CHART.format(dim), config=gates.PLOT_CONFIG)
    with right:
        if m.alpha.coincidence_scaled is not None:
            st.plotly_chart(memo.figure(figures.coincidence_heatmap, m, dark=gates.dark()), width="stretch",
                            key=K.COINCIDENCE_CHART.format(dim), config=gates.PLOT_CONFIG)
        elif m.alpha.n_categories:
            st.caption(panel_view.coincidence_note(m))
        if m.kind == "label":
            st.markdown("**Categories** (most frequent first)")
            st.dataframe(safe_frame(pd.DataFrame(m.category_table(), columns=["category", "count"])),
                         hide_index=True, height=180)
    if m.rates:
        text_table(panel_view.rate_rows(m))


def other_coefficients(dim, m, d) -> None:
    src = session.panel_source.recipe.ratings[0]
    if src.data is None:
        st.caption("These are computed in memory; a data set opened from the data folder shows alpha "
                   "and the spread (the command line's --coefficients reads files up to 200 MB).")
    else:
        pc = panel_coefficients(src.name, src.digest, src.data, m.level, dim, session.panel_source.recipe.mapping)
        panel_view.coefficients_section(pc, m, d, dim)


def exact_numbers(m, d) -> None:
    st.code(panel_view.exact_numbers(m, d))


def results(decisions) -> None:
    """The measured panel: verdicts, the numbers behind them, diagnostics, reports."""
    pickers.interval_picker()

    show_error("panel", "(the data loaded before is still shown)")
    loading.show_level_fallback()  # on every run while it holds: a click on a tab or a section reruns
    loaded_caption(next(iter(decisions.values()))[0])
    for tab, dim, (m, d) in dimension_views(decisions):
        with tab:
            headline_numbers(dim, m, d)
            charts(dim, m, d)
            if panel_order.available(m):
                with st.expander("Order and recode the categories", expanded=panel_order.suggested(m)):
                    panel_order.order_controls(dim, m)
            section_when_open("Diagnostics: which rater, which units", K.DIAGNOSTICS.format(dim),
                              lambda: panel_view.diagnostics_section(dim, m))
            section_when_open("Annotation study: whom to trust, what to relabel", K.STUDY.format(dim),
                              lambda: panel_study.study_section(dim, m, d))
            section_when_open("Other coefficients: percent agreement, kappa, pi, Gwet's AC1, Brennan-Prediger",
                              K.COEFFICIENTS.format(dim), lambda: other_coefficients(dim, m, d))
            section_when_open("Exact numbers", K.EXACT.format(dim), lambda: exact_numbers(m, d))

    st.header("Report")
    recording.record_controls("panel")
    reports.report_downloads("panel")


# One place above the uploaders, drawn on every run, whatever it holds (the verdict, its scroll into
# view, or nothing during a preview): an uploader that moves is drawn afresh by the browser, which
# drops a file still on its way (a file replacing the measured one: the removal's rerun came first).
above = st.empty()
if session.pending is None:
    # Measured before anything is drawn: a level the data cannot take falls back before its picker shows.
    decisions = loading.panel_decisions()
    with above.container():
        # The verdict first: a phone stacks the uploaders and pickers below into a screen and a half.
        with st.container(border=True, key="panel_headline"):
            st.markdown(f"**{md(provenance.sample_said('panel', panel_sentence(decisions)), 400)}**")
            if 1 < len(decisions) <= panel_view.DETAIL_DIMENSIONS:
                st.markdown(panel_view.verdicts_line(decisions))
        # after an action that changed the answer (Measure, a level, a sample), the answer in view
        into_view.verdict_into_view("panel", "panel_headline", (session.panel_source.label, tuple(
            (dim, d.verdict.value, m.level) for dim, (m, d) in decisions.items())))
up1, up2, up3 = st.columns(3)
with up1:
    st.file_uploader(preview.PANEL_LABEL, type=list(preview.PANEL_TYPES), key=K.RATINGS_UPLOAD, on_change=on_ratings,
                     help=preview.PANEL_HELP)
with up2:
    st.file_uploader("Rates CSV (optional: each rater's or detector's positives)", type=list(preview.RATES_TYPES),
                     key=K.RATES_UPLOAD,
                     on_change=on_rates)
with up3:
    pickers.sample_picker("panel")
    if session.pending is None:
        pickers.level_picker(decisions)
        pickers.positive_picker(decisions)
data_folder.folder_picker()
if session.pending is not None:
    show_error("panel", "")
    preview.draw(on_measure)
    st.caption(f"Still loaded until you press Measure: {md(session.panel_source.label)}.")
else:
    results(decisions)
