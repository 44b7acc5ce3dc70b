"""Panel reliability: alpha against the floor, detector spread against the cap, the verdict."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from agreebound.app.pipeline import PanelRecipe
from agreebound.render.gates import panel_gates, panel_sentence
from agreebound.ui import preview, shell, state, widgets
from agreebound.render import figures
from agreebound.ui.data import Loaded, data_digest, folder_diagnostics, panel_coefficients, panel_diagnostics

shell.enter(__file__)

S = st.session_state
st.title("Panel reliability")


def on_ratings() -> None:
    """A new file opens the mapping preview; nothing is measured (or replaced) until Measure."""
    if (u := widgets.uploaded("ratings_upload")) is not None:
        state.remember_error("panel", preview.start(u))


def on_measure() -> None:
    """Adopt the previewed file through its mapping: the level in force becomes the mapping's."""
    pending = S.pending
    m = pending["mapping"]
    src = Loaded(f"upload: {pending['upload'].name}", PanelRecipe((pending["upload"],), m.to_json()))
    old = (S.level, S.positive)
    S.level, S.positive = m.level or "auto", "auto"
    error = widgets.try_panel_source(src)
    if error:
        S.level, S.positive = old
        S.pending = {**pending, "error": error}
        return
    state.remember_error("panel", None)
    preview.cancel()
    for key in ("level_widget", "positive_widget"):
        S.pop(key, None)


def on_rates() -> None:
    if (u := widgets.uploaded("rates_upload")) is not None:
        loaded = S.panel_source
        state.remember_error("panel", widgets.try_panel_source(replace(loaded, recipe=replace(loaded.recipe, rates=u))))


def loaded_caption(m) -> None:
    """What is loaded: the file, its units and raters, the rates' source, the reader's notes."""
    shown = ", ".join(widgets.md(r, 60) for r in m.raters[:12]) + (
        f" and {len(m.raters) - 12:,} more" if len(m.raters) > 12 else "")
    read = widgets.rows_read(S.panel_source)
    st.caption(f"Loaded: {widgets.md(S.panel_source.label)}{' (' + widgets.md(read) + ')' if read else ''}. "
               f"{m.n_units:,} units; {len(m.raters):,} raters: "
               f"{shown}; human raters: {', '.join(widgets.md(h, 60) for h in m.humans[:12]) or 'none'}. "
               f"Rates: {widgets.md(m.rates_source)}.")
    for note in m.notices:
        st.caption("Note: " + widgets.md(note))


def dimension_views(decisions) -> list:
    """(container, dimension, (measurement, decision)) to draw: the open one of a tab each, or
    (many dimensions) one table of all and the details of the one chosen (worst first)."""
    if len(decisions) > widgets.DETAIL_DIMENSIONS:
        st.dataframe(widgets.safe_frame(widgets.dimension_table(decisions)), hide_index=True, width="stretch")
        order = widgets.worst_first(decisions)
        pick = st.selectbox(f"Dimension ({len(decisions):,}, worst verdicts first)", order, key="panel_dimension",
                            format_func=lambda d: widgets.printable(d, 80))  # options are plain text, not Markdown
        return [(st.container(), pick, decisions[pick])]
    tab, i = widgets.open_tab(list(decisions), 60, key="panel_tab")
    dim = list(decisions)[i]
    return [(tab, dim, decisions[dim])]


def headline_numbers(dim, m, d) -> None:
    """The verdict, its reasons, and alpha and the spread against their thresholds."""
    widgets.verdict_banner(m, d, prefix=dim)
    widgets.fragile_note(panel_gates(dim, m, d))
    widgets.panel_reasons(d, m)
    c1, c2, c3 = st.columns(3)
    c1.metric(f"alpha ({m.level} level)", "undefined" if m.alpha.value is None else f"{float(m.alpha.value):.3f}",
              help=f"{m.alpha.permil} permil, floored, in the specification's units"
              if m.alpha.permil is not None else None)
    c2.metric("detector spread", "unbounded" if (m.rates and d.spread is None) else
              ("not measured" if not m.rates else f"{float(d.spread):.2f}x"),
              help="The highest detector rate over the lowest. The cap is in permil, thousandths of one: "
                   "2000 permil is a spread of 2.00x.")
    c3.metric(f"independent {widgets.rater_noun(m.raters)}s", m.ndet)
    st.markdown(f"alpha = **{widgets.alpha_text(m)}** from {m.alpha.pairable} pairable values in "
                f"{m.alpha.units} units ({m.level}); floor {d.thresholds.alpha_floor_permil} permil.")
    st.markdown(f"alpha {widgets.alpha_ci_text(m, d)} ({widgets.GLOSSARY_LINK.format('q, KALPHA, permil')}).")
    st.markdown(f"spread = **{widgets.spread_text(d, m)}**; cap {d.thresholds.ratio_cap_permil} permil; "
                f"{widgets.spread_ci_text(m)}.")
    widgets.level_table(m, d, key=dim)
    if not m.rates:
        hint = (f"choose a positive category (suggested: {widgets.md(m.positive_suggestion, 60)})"
                if m.positive_suggestion is not None else "choose a positive category")
        st.info(f"Detector spread: not measured. There are no detector rates, so this gate does not block "
                f"(the seed counts an empty panel as 1000 permil). To measure it, {hint} or upload a "
                "detector rates CSV.")


def charts(dim, m, d) -> None:
    """alpha against the floor and the rates against the cap; the coincidences and categories;
    each detector's rate with its Wilson interval."""
    left, right = st.columns(2)
    with left:
        if m.alpha.value is None:
            st.info("alpha is undefined here: nothing to draw against the floor.")
        else:
            st.plotly_chart(widgets.figure(figures.alpha_bullet, m, d, dark=widgets.dark()), width="stretch",
                            key=f"alpha_{dim}", config=widgets.PLOT_CONFIG)
        if m.rates:
            st.plotly_chart(widgets.figure(figures.rates_interval, m, d, dark=widgets.dark()), width="stretch",
                            key=f"rates_{dim}", config=widgets.PLOT_CONFIG)
    with right:
        if m.alpha.coincidence_scaled is not None:
            st.plotly_chart(widgets.figure(figures.coincidence_heatmap, m, dark=widgets.dark()), width="stretch",
                            key=f"coinc_{dim}", config=widgets.PLOT_CONFIG)
        elif m.alpha.n_categories:
            st.caption(f"The coincidence matrix is drawn for at most {widgets.COINCIDENCE_MAX_CATEGORIES} distinct "
                       f"values; this dimension has {m.alpha.n_categories:,}.")
        if m.kind == "label":
            st.markdown("**Categories** (most frequent first)")
            st.dataframe(widgets.safe_frame(pd.DataFrame(m.category_table(), columns=["category", "count"])),
                         hide_index=True, height=180)
    if m.rates:
        widgets.text_table(pd.DataFrame([{"detector": r.detector, "positives / rated": f"{r.positives}/{r.total}",
                                          "rate": f"{float(r.rate):.2%}",
                                          "Wilson 95%": f"[{w.low:.2%}, {w.high:.2%}]"}
                                         for r, w in zip(m.rates, m.wilson)]))


def diagnostics(dim, m) -> None:
    """Which rater, which units (drawn when its expander is opened): in memory at once; a data
    folder's with DuckDB, on request."""
    recipe = S.panel_source.recipe
    src = recipe.ratings[0]
    diag = None
    if src.data is None:  # opened from the data folder: DuckDB, one pass per rater, on request
        asked = (data_digest(recipe), m.level, dim)
        if asked in S.get("folder_diagnostics", set()):
            diag = folder_diagnostics(asked[0], recipe, m.level, dim)
        else:
            st.button("Compute with DuckDB (one pass over the data per rater)", key=f"folder_diag_{dim}",
                      on_click=widgets.ask_folder_diagnostics, args=(asked,))
    else:
        diag = panel_diagnostics(src.name, src.digest, src.data, m.level, dim, recipe.mapping)
    if diag is None:
        return
    if diag.capped:
        st.caption(f"Per-rater diagnostics run one alpha per rater and are shown for at most "
                   f"{widgets.DIAGNOSTIC_RATERS} raters; this panel has {len(m.raters):,}.")
    else:
        st.markdown("**Alpha with each rater removed** (a rater whose removal raises alpha most is the outlier)")
        st.dataframe(widgets.safe_frame(pd.DataFrame([{"without": r, "alpha": figures.fraction_text(v)}
                                                      for r, v in diag.without_rater.items()])), hide_index=True)
    if diag.versus_human:
        st.markdown("**Each detector against the human column** (alpha of the pair)")
        st.dataframe(widgets.safe_frame(pd.DataFrame([{"detector": r, "alpha vs human": figures.fraction_text(v)}
                                                      for r, v in diag.versus_human.items()])), hide_index=True)
    st.markdown("**Units contributing most disagreement**")
    st.dataframe(widgets.safe_frame(diag.top_units), hide_index=True, width="stretch")


def other_coefficients(dim, m, d) -> None:
    src = S.panel_source.recipe.ratings[0]
    if src.data is None:
        st.caption("These are computed in memory; a data set opened from the data folder shows alpha "
                   "and the spread (the command line's --coefficients reads files up to 200 MB).")
    else:
        pc = panel_coefficients(src.name, src.digest, src.data, m.level, dim, S.panel_source.recipe.mapping)
        widgets.coefficients_section(pc, m, d, dim)


def exact_numbers(m, d) -> None:
    st.code(f"alpha      = {figures.exact_text(m.alpha.value)}\n"
            f"D_o        = {figures.exact_text(m.alpha.observed_disagreement)}\n"
            f"D_e        = {figures.exact_text(m.alpha.expected_disagreement)}\n"
            f"seed alpha = {d.seed_alpha_permil} permil (the seed's nominal integer formula on this matrix)\n"
            f"seed ratio = {d.seed_ratio_permil} permil\n"
            f"rates      = " + ", ".join(f"{r.detector} {r.positives}/{r.total}" for r in m.rates))


def results(decisions) -> None:
    """The measured panel: verdicts, the numbers behind them, diagnostics, reports."""
    widgets.interval_picker()

    widgets.show_error("panel", "(the data loaded before is still shown)")
    widgets.show_level_fallback()  # on every run while it holds: a click on a tab or a section reruns
    loaded_caption(next(iter(decisions.values()))[0])
    for tab, dim, (m, d) in dimension_views(decisions):
        with tab:
            headline_numbers(dim, m, d)
            charts(dim, m, d)
            widgets.section_when_open("Diagnostics: which rater, which units", f"diagnostics_{dim}",
                                      lambda: diagnostics(dim, m))
            widgets.section_when_open("Other coefficients: percent agreement, kappa, pi, Gwet's AC1, Brennan-Prediger",
                                      f"coefficients_{dim}", lambda: other_coefficients(dim, m, d))
            widgets.section_when_open("Exact numbers", f"exact_{dim}", lambda: exact_numbers(m, d))

    st.header("Report")
    widgets.record_controls("panel")
    widgets.report_downloads("panel")


if S.get("pending") is None:
    # Measured before anything is drawn: a level the data cannot take falls back before its picker shows.
    decisions = widgets.panel_decisions()
    # The verdict first: a phone stacks the uploaders and pickers below into a screen and a half.
    with st.container(border=True, key="panel_headline"):
        st.markdown(f"**{widgets.md(widgets.sample_said('panel', panel_sentence(decisions)), 400)}**")
        if 1 < len(decisions) <= widgets.DETAIL_DIMENSIONS:
            st.markdown(" · ".join(f"{widgets.md(dim, 40)}: {d.verdict.value}" for dim, (_, d) in decisions.items()))
up1, up2, up3 = st.columns(3)
with up1:
    st.file_uploader("Ratings: CSV/TSV (any delimiter), Excel, Parquet, JSON Lines, Label Studio or Prodigy export",
                     type=list(preview.PANEL_TYPES), key="ratings_upload", on_change=on_ratings)
with up2:
    st.file_uploader("Detector rates CSV (optional)", type=["csv"], key="rates_upload", on_change=on_rates)
with up3:
    widgets.sample_picker("panel")
    if S.get("pending") is None:
        widgets.level_picker(decisions)
        widgets.positive_picker(decisions)
widgets.folder_picker()
if S.get("pending") is not None:
    widgets.show_error("panel", "")
    preview.draw(on_measure)
    st.caption(f"Still loaded until you press Measure: {widgets.md(S.panel_source.label)}.")
else:
    results(decisions)
