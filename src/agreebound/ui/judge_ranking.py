"""The ranking on the Judge page (agreebound.judge.ranking): the candidates' generators ranked by the
judge's verdicts, with each rating's bootstrap 95% interval and the groups the data cannot separate,
as a table, one figure and a sentence. The bootstrap runs once per bundle (memo.once: the bundle is
the cached measurement every session shares). Model names are user text: the table escapes its
cells, the figure's labels are escaped (figure_style.labels), sentences go through md_text."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.core.escape import md_text
from agreebound.judge.ranking import NoRatings, Ranking, battles_of, rank, ranking_dict
from agreebound.render.figure_style import finish, labels, palette
from agreebound.ui import memo
from agreebound.ui.blocks import responsive_table
from agreebound.ui.gates import PLOT_CONFIG, dark

#: Group markers cycle through these symbols (a group is also named in the hover and the table).
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "star")


def ranking_of(bundle: JudgeBundle) -> Ranking | str:
    """The bundle's ranking, or why there is none (a sentence)."""
    b = battles_of(bundle.observations)
    if b.empty:
        return "No ranking: the judgments do not name the two candidates' generators (models)."
    if b[["model_a", "model_b"]].stack().nunique() < 2:
        return "No ranking: every judgment compares the same model with itself."
    try:
        return rank(b)
    except NoRatings as e:
        return f"No ranking: {e}."


def cached_ranking(bundle: JudgeBundle) -> Ranking | str:
    return memo.once("ranking", bundle, ranking_of)


def rows(r: Ranking) -> list[dict[str, str]]:
    """The table's rows (plain text: the table escapes it)."""
    return [{"rank": str(k + 1), "model": m, "rating": f"{x:.1f}", "95% interval": f"[{lo:.1f}, {hi:.1f}]",
             "tie group": str(g)}
            for k, (m, x, lo, hi, g) in enumerate(zip(r.models, r.ratings, r.lower, r.upper, r.groups))]


def ranking_figure(r: Ranking, dark_theme: bool = False) -> go.Figure:
    """Ratings with their 95% intervals, top model first, a marker shape per tie group."""
    p = palette(dark_theme)
    names = labels(list(r.models), 40)
    fig = go.Figure()
    for g in sorted(set(r.groups)):
        idx = [i for i, gi in enumerate(r.groups) if gi == g]
        fig.add_trace(go.Scatter(
            x=[r.ratings[i] for i in idx], y=[names[i] for i in idx], mode="markers", name=f"group {g}",
            marker=dict(size=10, symbol=SYMBOLS[(g - 1) % len(SYMBOLS)], color=p.neutral),
            error_x=dict(type="data", symmetric=False, array=[r.upper[i] - r.ratings[i] for i in idx],
                         arrayminus=[r.ratings[i] - r.lower[i] for i in idx], color=p.muted, thickness=1.5),
            customdata=[[r.lower[i], r.upper[i], g] for i in idx],
            hovertemplate="%{y}<br>rating %{x:.1f} [%{customdata[0]:.1f}, %{customdata[1]:.1f}]"
                          "<br>tie group %{customdata[2]}<extra></extra>"))
    fig.update_yaxes(categoryorder="array", categoryarray=names[::-1])
    fig.update_xaxes(title_text="rating (Elo scale; 95% interval)")
    return finish(fig, p, height=140 + 28 * len(names), title="Ratings and their 95% intervals",
                  caption_text="Each model's rating with its bootstrap 95% interval; a marker shape per group of "
                               "models not separable from each other.")


def section(bundle: JudgeBundle) -> None:
    """The Judge page's "Ranking" section."""
    st.header("Ranking of the candidates' models", anchor="ranking")
    r = cached_ranking(bundle)
    if isinstance(r, str):
        st.markdown(md_text(r, 600))
        return
    st.markdown(md_text(r.sentence(), 800))
    responsive_table(rows(r), "ranking_table")
    # no widget key: ui.state owns every key, and one chart in the section needs none
    st.plotly_chart(memo.figure(ranking_figure, r, dark_theme=dark()), width="stretch", config=PLOT_CONFIG)
    st.caption(md_text(f"Method: {r.method}; anchored at {r.anchoring}. Intervals: {r.interval_method}. "
                       f"{r.battles:,} judgments.", 800))


def report_block(bundle: JudgeBundle) -> dict[str, object] | None:
    """The ranking as the judge report would store it (None: no ranking)."""
    r = cached_ranking(bundle)
    return None if isinstance(r, str) else ranking_dict(r)
