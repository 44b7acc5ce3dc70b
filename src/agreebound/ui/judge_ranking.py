"""The ranking on the Judge page (agreebound.judge.ranking, made by agreebound.app.rankings as the
reports make it): the candidates' generators ranked by the judge's verdicts, with each rating's
bootstrap 95% interval and the groups the data cannot separate, as a table, one figure and a
sentence; a gate ("model X beats the baseline Y by at least a margin": two pickers and a number,
threshold data decided by decide_gate); and, when the references hold human labels, the ratings
corrected by them (prediction-powered) beside the judge's, with how far the humans move them.
The bootstrap and the correction run once per bundle (memo.once: the bundle is the cached
measurement every session shares); moving the gate decides again, it never ranks again. Model
names are user text: the table escapes its cells, the figure's labels are escaped
(figure_style.labels), sentences go through md_text."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go
import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.app.rankings import decide_ranking_gate, gate_in_force, ppi_of, ranking_block, ranking_of
from agreebound.core.escape import md_text, printable
from agreebound.core.json_types import JSONObject
from agreebound.judge.ranking import PPIRatings, Ranking, RankingDecision, RankingGate, ppi_shift
from agreebound.render.figure_style import finish, labels, palette
from agreebound.ui import memo, state
from agreebound.ui.blocks import responsive_table
from agreebound.ui.gates import PLOT_CONFIG, dark
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.core.thresholds import ThresholdSet

#: Group markers cycle through these symbols (a group is also named in the hover and the table).
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "star")
#: The model picker's first choice: no gate.
NO_GATE = "(no gate)"

def cached_ranking(bundle: JudgeBundle) -> Ranking | str:
    return memo.once("ranking", bundle, ranking_of)


def cached_ppi(bundle: JudgeBundle) -> PPIRatings | str | None:
    return memo.once("ranking_ppi", bundle, lambda b: ppi_of(b, cached_ranking(b)))


def rows(r: Ranking) -> list[dict[str, str]]:
    """The table's rows (plain text: the table escapes it)."""
    return [{"rank": str(k + 1), "model": m, "rating": f"{x:.1f}", "95% interval": f"[{lo:.1f}, {hi:.1f}]",
             "tie group": str(g)}
            for k, (m, x, lo, hi, g) in enumerate(zip(r.models, r.ratings, r.lower, r.upper, r.groups))]


def ppi_rows(r: Ranking, p: PPIRatings) -> list[dict[str, str]]:
    """The corrected ratings beside the judge's (shifted to the same anchor), in the corrected order."""
    shift = ppi_shift(r, p)
    return [{"model": m, "corrected": f"{x:.1f}", "95% interval": f"[{lo:.1f}, {hi:.1f}]",
             "judge alone": f"{shift.judge[m]:.1f}", "moved": f"{shift.moved[m]:+.1f}"}
            for m, x, lo, hi in zip(p.models, p.ratings, p.lower, p.upper)]


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


def _thresholds() -> ThresholdSet | None:
    return state.thresholds() if session.has(K.THRESHOLDS) else None


def page_gate(models: tuple[str, ...] | None = None) -> RankingGate | None | str:
    """The gate the page's controls hold (None: no gate; a sentence: the controls hold no valid one).
    ``models``: the ranking's, to check that a remembered pick still names one of them."""
    model, baseline = session.widget(K.RANK_MODEL), session.widget(K.RANK_BASELINE)
    if model in (None, NO_GATE) or baseline is None:
        return None
    if models is not None and (model not in models or baseline not in models):
        return None
    try:
        return RankingGate(str(model), str(baseline), int(session.widget(K.RANK_MARGIN, 0) or 0))
    except ValueError as e:
        return f"No gate: {e}."


def _gate_controls(r: Ranking) -> RankingDecision | str | None:
    """Two pickers and a number: the gate, decided (a sentence when the picks make none)."""
    st.subheader("Does a model beat a baseline?")
    left, mid, right = st.columns(3)
    left.selectbox("Model", [NO_GATE, *r.models], key=K.RANK_MODEL, format_func=lambda m: printable(m, 80))
    mid.selectbox("beats the baseline", list(r.models), index=len(r.models) - 1, key=K.RANK_BASELINE,
                  format_func=lambda m: printable(m, 80))
    right.number_input("by at least (rating points)", min_value=0, max_value=1000, value=0, step=5,
                       key=K.RANK_MARGIN, help="400 points = 10:1 odds; 70 points = a win probability of about 60%")
    gate = page_gate(r.models)
    if gate is None or isinstance(gate, str):
        return gate
    return decide_ranking_gate(r, gate_in_force(gate, _thresholds()))


def _ppi_part(r: Ranking, p: PPIRatings | str | None) -> None:
    if p is None:
        return
    st.subheader("Corrected by the human labels")
    if isinstance(p, str):
        st.markdown(md_text(p, 600))
        return
    st.markdown(md_text(ppi_shift(r, p).sentence(p), 800))
    responsive_table(ppi_rows(r, p), "ranking_ppi_table")
    st.caption(md_text(f"Anchored at {p.anchor} = 1000, the first model in name order (an anchor the humans "
                       f"cannot move); the judge's ratings shifted to the same anchor. Method: {p.method}.", 800))


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
    decided = _gate_controls(r)
    if isinstance(decided, str):
        st.markdown(md_text(decided, 400))
    elif decided is not None:
        st.markdown(f"**{md_text(decided.status, 40)}**: " + md_text(decided.sentence(), 800))
        st.caption("The gate is about the models, not the judge: it never changes the judge's decision.")
    _ppi_part(r, cached_ppi(bundle))


def report_block(bundle: JudgeBundle) -> JSONObject:
    """The ranking as the judge report stores it, with the gate the page's controls hold (the
    ranking and the correction the page drew: no second bootstrap)."""
    gate = page_gate()
    return ranking_block(bundle, gate if isinstance(gate, RankingGate) else None, cached_ranking(bundle),
                         cached_ppi(bundle), _thresholds())
