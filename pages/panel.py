"""Panel reliability: alpha against the floor, detector spread against the cap, the verdict."""

import pandas as pd
import streamlit as st

from agreebound.escape import printable
from agreebound.limits import COINCIDENCE_MAX_CATEGORIES, DETAIL_DIMENSIONS, DIAGNOSTIC_RATERS
from agreebound.ui import figures, shell, state, widgets
from agreebound.ui.data import panel_diagnostics

shell.enter(__file__)

S = st.session_state
st.title("Panel reliability")


def on_ratings() -> None:
    if (u := widgets.uploaded("ratings_upload")) is not None:
        src = {"label": f"upload: {u.name}", "ratings": u, "rates": None}
        state.remember_error("panel", widgets.try_panel_source(src))


def on_rates() -> None:
    if (u := widgets.uploaded("rates_upload")) is not None:
        state.remember_error("panel", widgets.try_panel_source(dict(S.panel_source, rates=u)))


up1, up2, up3 = st.columns(3)
with up1:
    st.file_uploader("Ratings (wide or long CSV, Parquet)", type=["csv", "parquet"], key="ratings_upload",
                     on_change=on_ratings)
with up2:
    st.file_uploader("Detector rates CSV (optional)", type=["csv"], key="rates_upload", on_change=on_rates)
with up3:
    widgets.sample_picker("panel")
    widgets.level_picker()
    widgets.positive_picker()
widgets.interval_picker()

notices = st.container()
decisions = widgets.panel_decisions()  # measuring may add a notice (a level the data cannot take)
with notices:
    widgets.show_error("panel", "(the data loaded before is still shown)")
    if state.error("level"):
        widgets.show_error("level", "(shown at the nominal level instead)")
        state.remember_error("level", None)
any_m = next(iter(decisions.values()))[0]
shown = ", ".join(widgets.md(r, 60) for r in any_m.raters[:12]) + (
    f" and {len(any_m.raters) - 12:,} more" if len(any_m.raters) > 12 else "")
st.caption(f"Loaded: {widgets.md(S.panel_source['label'])}. {any_m.n_units:,} units; {len(any_m.raters):,} raters: "
           f"{shown}; human raters: {', '.join(widgets.md(h, 60) for h in any_m.humans[:12]) or 'none'}. "
           f"Rates: {widgets.md(any_m.rates_source)}.")
for note in any_m.notices:
    st.caption("Note: " + widgets.md(note))

if len(decisions) > DETAIL_DIMENSIONS:
    # Many dimensions: one table of all, and the details of the one chosen (worst first).
    st.dataframe(widgets.safe_frame(widgets.dimension_table(decisions)), hide_index=True, width="stretch")
    order = widgets.worst_first(decisions)
    pick = st.selectbox(f"Dimension ({len(decisions):,}, worst verdicts first)", order, key="panel_dimension",
                        format_func=lambda d: printable(d, 80))  # options are plain text, not Markdown
    views = [(st.container(), pick, decisions[pick])]
else:
    tabs = st.tabs([widgets.md(dim, 60) for dim in decisions])
    views = [(tab, dim, md) for tab, (dim, md) in zip(tabs, decisions.items())]
for tab, dim, (m, d) in views:
    with tab:
        widgets.verdict_banner(d.verdict, prefix=dim)
        widgets.panel_reasons(d)
        c1, c2, c3 = st.columns(3)
        c1.metric("alpha (permil, floored)", "undefined" if m.alpha.permil is None else m.alpha.permil)
        c2.metric("detector spread", "unbounded" if (m.rates and d.spread is None) else
                  ("not measured" if not m.rates else f"{float(d.spread):.2f}x"))
        c3.metric("independent detectors", m.ndet)
        st.markdown(f"alpha = **{widgets.alpha_text(m)}** from {m.alpha.pairable} pairable values in "
                    f"{m.alpha.units} units ({m.level}); floor {d.thresholds.alpha_floor_permil} permil.")
        st.markdown(f"alpha {widgets.alpha_ci_text(m, d)}.")
        st.markdown(f"spread = **{widgets.spread_text(d, m)}**; cap {d.thresholds.ratio_cap_permil} permil; "
                    f"{widgets.spread_ci_text(m)}.")
        if not m.rates:
            st.info("The spread gate had no detector rates to check, so it passes as the seed's empty panel "
                    "does (1000 permil). Choose a positive category or upload detector rates to evaluate it.")
        left, right = st.columns(2)
        with left:
            if m.alpha.value is None:
                st.info("alpha is undefined here: nothing to draw against the floor.")
            else:
                st.plotly_chart(figures.alpha_bullet(m, d), width="stretch", key=f"alpha_{dim}")
            if m.rates:
                st.plotly_chart(figures.rates_interval(m, d), width="stretch", key=f"rates_{dim}")
        with right:
            if m.alpha.coincidence_scaled is not None:
                st.plotly_chart(figures.coincidence_heatmap(m), width="stretch", key=f"coinc_{dim}")
            elif m.alpha.n_categories:
                st.caption(f"The coincidence matrix is drawn for at most {COINCIDENCE_MAX_CATEGORIES} distinct values; "
                           f"this dimension has {m.alpha.n_categories:,}.")
            if m.kind == "label":
                st.markdown("**Categories** (most frequent first)")
                st.dataframe(widgets.safe_frame(pd.DataFrame(m.category_table(), columns=["category", "count"])),
                             hide_index=True, height=180)
        if m.rates:
            st.dataframe(widgets.safe_frame(pd.DataFrame([{"detector": r.detector, "positives / rated": f"{r.positives}/{r.total}",
                                        "rate": f"{float(r.rate):.2%}",
                                        "Wilson 95%": f"[{w.low:.2%}, {w.high:.2%}]"}
                                       for r, w in zip(m.rates, m.wilson)])), hide_index=True, width="stretch")
        with st.expander("Diagnostics: which rater, which units"):
            src = S.panel_source["ratings"]
            diag = panel_diagnostics(src.name, src.digest, src.data, m.level, dim)
            if diag.capped:
                st.caption(f"Per-rater diagnostics run one alpha per rater and are shown for at most "
                           f"{DIAGNOSTIC_RATERS} raters; this panel has {len(m.raters):,}.")
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
        with st.expander("Exact numbers"):
            st.code(f"alpha      = {figures.exact_text(m.alpha.value)}\n"
                    f"D_o        = {figures.exact_text(m.alpha.observed_disagreement)}\n"
                    f"D_e        = {figures.exact_text(m.alpha.expected_disagreement)}\n"
                    f"seed alpha = {d.seed_alpha_permil} permil (the seed's nominal integer formula on this matrix)\n"
                    f"seed ratio = {d.seed_ratio_permil} permil\n"
                    f"rates      = " + ", ".join(f"{r.detector} {r.positives}/{r.total}" for r in m.rates))

st.subheader("Report")
widgets.report_downloads("panel")
