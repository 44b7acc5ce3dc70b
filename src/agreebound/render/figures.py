"""Plotly figures. They draw what the core measured and what ``decide`` returned; they never
compare a number with a threshold themselves (pass/fail arrives as a flag from the decided gates:
``agreebound.core.gate.Gate``, viewed as ``agreebound.render.gates.GateView``).

API
---
Every figure function takes ``dark: bool = False`` (keyword only) and returns a ``go.Figure``:

* ``gate_bullet(gate)``: one gate of a verdict (``agreebound.render.gates.GateView``) as a compact bullet.
* ``threshold_sweep(gate)``: that gate's verdict over the whole range of its threshold.
* ``alpha_bullet(m, d)``: the alpha gate of a measured panel (``gate_bullet`` of it).
* ``rates_interval(m, d)``: each detector's rate with its Wilson interval, against the cap.
* ``coincidence_heatmap(m)``: the coincidence matrix alpha is computed from.
* ``calibration_rates(d)``: the judge's five rates against their thresholds.
* ``reliability_figure(confidence)``: a graded or pass/fail judge's stated confidence (reliability diagram).
* ``score_heatmap(table, judge)``: a graded judge's scores against the humans' (counts of pairs).

Captions: each figure carries a plain-language caption, read with ``caption(fig)`` (it lives in
``fig.layout.meta["caption"]``, so it survives ``update_layout`` and travels with the figure).
Captions are plain text built from fixed words and numbers, never from names in the data, so
they can be shown with ``st.caption`` as they are.

Colours: ``palette(dark)`` returns the theme's ``Palette``; ``contrast(a, b)`` is the WCAG
contrast ratio of two ``#rrggbb`` colours. Threshold marks and the pass/fail colours reach 3:1
against the theme's background (#ffffff light, #0e1117 Streamlit dark). Paper and plot
backgrounds are the theme's background (so a PNG saved from the toolbar stays readable); text
takes the theme's colour.
The modebar keeps only "download as PNG" (client-side, works offline); titles sit below it.
"""


from __future__ import annotations
from typing import TYPE_CHECKING, Sequence
import plotly.graph_objects as go
from agreebound.panel.measure import PanelMeasurement
from agreebound.judge.decision import ILLUSTRATIVE_LIMITS, CalibrationDecision, seed_view
from agreebound.core.escape import html_text
from agreebound.core.json_types import JSONObject
from agreebound.render.gates import RATE_LABELS, GateView, panel_gates  # noqa: F401 - RATE_LABELS re-exported
from agreebound.panel.decision import PanelDecision
from agreebound.render.figure_style import TITLE_TOP, finish, legend_bottom, labels, palette
from agreebound.render.gate_figures import axis_top, gate_bullet
if TYPE_CHECKING:
    from agreebound.panel.coefficients import Coefficients, PairDetail



# --- panel -----------------------------------------------------------------------------------


def alpha_bullet(m: PanelMeasurement, d: PanelDecision, *, dark: bool = False) -> go.Figure:
    """Alpha on a bullet against the floor: ``gate_bullet`` of the panel's alpha gate (an
    undefined alpha is drawn as its state in words)."""
    gate = next(g for g in panel_gates(m.dimension, m, d) if g.name == "alpha")
    return gate_bullet(gate, dark=dark)


def _spread_out(ys: list[float], gap: float) -> list[float]:
    """Pixel positions moved apart (upwards first) so no two are closer than ``gap``."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = list(ys)
    for a, b in zip(order, order[1:]):
        if out[b] - out[a] < gap:
            out[b] = out[a] + gap
    return out


def rates_interval(m: PanelMeasurement, d: PanelDecision, *, dark: bool = False) -> go.Figure:
    """Each detector's rate with its Wilson 95% interval. The tinted band is where every rate
    would have to lie for the spread to stay within the cap given the lowest rate (lowest ..
    lowest x cap); the lowest and highest rates are marked and labelled outside the plot."""
    p = palette(dark)
    names = labels([r.detector for r in m.rates], 60)  # plotly renders tags in labels: names are text
    ticks = [f"{n}<br>{r.positives:,}/{r.total:,}" for n, r in zip(names, m.rates)]
    values = [float(r.rate) for r in m.rates]
    lo, hi = (float(x) for x in d.rates_span)
    cap = float(d.thresholds.ratio_cap)
    failed = d.gate("spread").passed is False  # as decided: strict mode's bound fails it too
    color = p.failed if failed else p.passed
    verdict = "fails" if failed else "passes"
    wilson = m.wilson
    fig = go.Figure(go.Bar(
        x=ticks, y=values, marker_color=color, name=f"rate (spread {verdict})",
        error_y=dict(type="data", symmetric=False, array=[w.high - v for w, v in zip(wilson, values)],
                     arrayminus=[v - w.low for w, v in zip(wilson, values)], color=p.text, thickness=1.5, width=6),
        customdata=[[w.low, w.high] for w in wilson],
        hovertemplate="%{y:.2%} (Wilson 95%: %{customdata[0]:.2%} to %{customdata[1]:.2%})<extra></extra>",
    ))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="Wilson 95%",
                             line=dict(color=p.text, width=1.5), hoverinfo="skip"))
    band_top = lo * cap
    if lo > 0:
        fig.add_shape(type="rect", xref="paper", yref="y", x0=0, x1=1, y0=lo, y1=band_top, fillcolor=p.zone,
                      line_width=0, layer="below", name=f"within {cap:.2f}x of lowest",
                      showlegend=True, legendrank=1000)
        fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=band_top, y1=band_top,
                      line=dict(color=p.threshold, width=2), name="threshold")
    fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=lo, y1=lo,
                  line=dict(color=p.muted, width=1.5, dash="dot"), name="lowest rate")
    fig.add_shape(type="line", xref="paper", yref="y", x0=0, x1=1, y0=hi, y1=hi,
                  line=dict(color=p.muted, width=1.5, dash="dot"), name="highest rate")
    top = axis_top(values + [w.high for w in wilson] + [band_top]) * 1.15 or 1.0
    height, b_guess = 340, 110
    t_margin = TITLE_TOP + 18 + 14
    plot_px = height - t_margin - b_guess
    fmt = ".1%"
    marks = [("lowest rate", lo, p.muted), ("highest rate", hi, p.muted)]
    if lo > 0:
        marks.append((f"cap {cap:.2f}x lowest", band_top, p.text))
    px = [y / top * plot_px for _, y, _ in marks]
    moved = _spread_out(px, 15)
    annotations = [dict(x=1, xref="paper", y=y, yref="y", yshift=mv - p0, xanchor="left", xshift=6, showarrow=False,
                        text=f"{text} {y:{fmt}}", font=dict(size=11, color=c), name=text)
                   for (text, y, c), p0, mv in zip(marks, px, moved)]
    fig.update_layout(annotations=annotations, legend=legend_bottom(), showlegend=True)
    fig.update_yaxes(title_text="rate (% of rated items positive)", range=[0, top],
                     tickformat=".1%" if top < 0.1 else ".0%")
    fig.update_xaxes(title_text="detector (positives / rated)", type="category")
    band_words = (f" The tinted band runs from the lowest rate to {cap:.2f} times it: with every rate inside it the "
                  "spread would be within the cap; the solid line is that cap." if lo > 0 else
                  " The lowest rate is 0, so no multiple of it can bound the others: the spread is unbounded.")
    cap_text = (f"Each bar is a detector's rate (positives out of items rated) with its Wilson 95% interval. The spread"
                f" is the highest rate over the lowest ({hi:{fmt}} over {lo:{fmt}}); it {verdict} the cap of "
                f"{cap:.2f}x, as decided.{band_words}")
    return finish(fig, p, height=height, title="Detector rates with Wilson 95% intervals", caption_text=cap_text,
                   top=t_margin, right=150, bottom=10)


def coincidence_heatmap(m: PanelMeasurement, *, dark: bool = False) -> go.Figure:
    """The coincidence matrix: how often each value was paired with each other value within a
    unit (alpha weighs the off-diagonal mass against what chance would give)."""
    p = palette(dark)
    cats = labels(list(m.alpha.categories), 40)
    assert m.alpha.coincidence is not None  # drawn only where the matrix is kept
    z = [[float(x) for x in row] for row in m.alpha.coincidence]
    small = len(cats) <= 12
    fig = go.Figure(go.Heatmap(
        z=z, x=cats, y=cats, colorscale=[list(s) for s in p.heat], showscale=not small,
        colorbar=dict(title=dict(text="pairs", font=dict(color=p.text)), tickfont=dict(color=p.text)),
        text=[[f"{v:.1f}" for v in row] for row in z] if small else None,
        texttemplate="%{text}" if small else None,
        hovertemplate="value %{y} with %{x}: %{z:.3f} pairs<extra></extra>",
    ))
    fig.update_xaxes(title_text="paired with value", type="category", showgrid=False)
    fig.update_yaxes(title_text="value", type="category", autorange="reversed", showgrid=False)
    cap_text = ("Each cell counts the pairs of values found together in a unit (rows: a value, columns: the value it "
                "was paired with; each unit's pairs add up to one per pairable value). Agreement is on the diagonal; "
                "alpha falls as weight moves off it, measured against what chance pairings would give."
                + ("" if small else " Colour shows the count (scale at the right)."))
    return finish(fig, p, height=340, title="Coincidence matrix (pairable values)", caption_text=cap_text,
                   bottom=10)


def pair_heatmap(co: Coefficients, *, dark: bool = False) -> go.Figure:
    """Cohen's kappa for each pair of raters on the units both rated (blank: undefined), the count
    of those units in the hover."""
    p = palette(dark)
    names = labels(list(co.raters), 30)
    r = len(names)
    z: list[list[float | None]] = [[None] * r for _ in range(r)]
    hover = [[""] * r for _ in range(r)]
    index = {n: i for i, n in enumerate(co.raters)}
    for pair in co.pairs:
        i, j = index[pair.a], index[pair.b]
        k = None if pair.kappa is None else float(pair.kappa)
        ag = "undefined" if pair.agreement is None else f"{float(pair.agreement):.1%}"
        text = (f"{names[i]} / {names[j]}<br>Cohen's kappa {'undefined' if k is None else f'{k:.3f}'}"
                f"<br>agreement {ag} on {pair.shared:,} units both rated")
        z[i][j] = z[j][i] = k
        hover[i][j] = hover[j][i] = text
    for i in range(r):
        z[i][i] = 1.0
        hover[i][i] = f"{names[i]}"
    small = r <= 10
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, zmin=-1, zmax=1, colorscale=[list(s) for s in p.heat], showscale=True,
        colorbar=dict(title=dict(text="kappa", font=dict(color=p.text)), tickfont=dict(color=p.text)),
        text=[["" if v is None else f"{v:.2f}" for v in row] for row in z] if small else None,
        texttemplate="%{text}" if small else None, customdata=hover, hovertemplate="%{customdata}<extra></extra>",
    ))
    fig.update_xaxes(type="category", showgrid=False, tickangle=-30)
    fig.update_yaxes(type="category", autorange="reversed", showgrid=False)
    cap_text = ("Cohen's kappa of each pair of raters on the units both rated (hover for the count and the raw "
                "agreement). A rater whose row is pale disagrees with the others beyond chance.")
    longest = max((len(n) for n in names), default=4)
    return finish(fig, p, height=max(320, 60 + 34 * r + 6 * min(longest, 30)), title="Each pair of raters: Cohen's kappa",
                   caption_text=cap_text, bottom=20 + 6 * min(longest, 30))


def confusion_heatmap(pair: PairDetail, texts: Sequence[str], *, dark: bool = False) -> go.Figure:
    """The confusion matrix of two raters on the units both rated: rows the first rater's category,
    columns the second's; agreement on the diagonal."""
    p = palette(dark)
    cats = labels(list(texts), 30)
    a, b = labels([pair.a], 30)[0], labels([pair.b], 30)[0]
    z = pair.confusion.tolist()
    small = len(cats) <= 12
    # names go in as data, not into the template (a name holding %{...} would be read as a field)
    hover = [[f"{a}: {cats[i]}<br>{b}: {cats[j]}<br>{v:,} units" for j, v in enumerate(row)] for i, row in enumerate(z)]
    fig = go.Figure(go.Heatmap(
        z=z, x=cats, y=cats, colorscale=[list(s) for s in p.heat], showscale=not small,
        colorbar=dict(title=dict(text="units", font=dict(color=p.text)), tickfont=dict(color=p.text)),
        text=[[f"{v:,}" for v in row] for row in z] if small else None, texttemplate="%{text}" if small else None,
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
    ))
    fig.update_xaxes(title_text=b, type="category", showgrid=False)
    fig.update_yaxes(title_text=a, type="category", autorange="reversed", showgrid=False)
    kappa = "undefined" if pair.kappa is None else f"{float(pair.kappa):.3f}"
    return finish(fig, p, height=340, title=f"{a} against {b}: Cohen's kappa {kappa}",
                   caption_text=f"Units both rated: {pair.shared:,}. Agreement is on the diagonal.", bottom=10)


# --- judge -----------------------------------------------------------------------------------


def calibration_rates(d: CalibrationDecision, *, dark: bool = False) -> go.Figure:
    """The five rates against their thresholds: bars coloured by the exact gate's result (grey
    when a gate cannot be evaluated), the thresholds as marks. Each rate's name and threshold,
    then its result in words, sit above its bar: no label column or result column takes the
    plot's width, so the bars keep nearly the figure's width on a phone too."""
    p = palette(dark)
    rows, values, colors, notes, marks, seen = [], [], [], [], [], {}
    given = d.contract_given  # no contract: measured against illustrative limits, never a verdict's colour
    # the five rates (a contract's opt-in net gates are differences, drawn as bullets of their own)
    for g, rate in zip(d.gates[:len(d.rates)], d.rates, strict=True):
        t = seed_view(g).threshold_bps / 100
        rows.append(f"<b>{RATE_LABELS[g.name]}</b>, {'at least' if g.kind == 'min' else 'at most'} {t:.1f}%")
        evaluable = g.exact is not None  # neither unavailable from this source nor without opportunities
        v = float(g.exact) * 100 if g.exact is not None else 0.0
        values.append(v)
        if not evaluable:
            colors.append(p.neutral)
            seen["not evaluable"] = p.neutral
            notes.append("not evaluable")
        elif not given:
            colors.append(p.band)
            seen["measured, not decided (no contract)"] = p.band
            notes.append(f"{v:.1f}% ({rate.numerator:,}/{rate.denominator:,}): "
                         f"{'within' if g.passed else 'outside'} the limit")
        else:
            colors.append(p.passed if g.passed else p.failed)
            seen["passes" if g.passed else "fails"] = p.passed if g.passed else p.failed
            notes.append(f"{v:.1f}% ({rate.numerator:,}/{rate.denominator:,}): {'passes' if g.passed else 'fails'}")
        marks.append(t)
    # Row i spans y from i - 0.5 (top: the axis is reversed) to i + 0.5: two lines of words in its
    # upper part, the bar in its lower part.
    # Pixels: the two lines take the top 32 of a row's 70, the bar (18) and the mark (20) sit below.
    row_px, n = 70, len(rows)
    bars_y = [i + 0.25 for i in range(n)]
    names = [RATE_LABELS[g.name] for g in d.gates[:len(d.rates)]]
    fig = go.Figure(go.Bar(y=bars_y, x=values, orientation="h", marker_color=colors, showlegend=False, name="rate",
                           width=0.26, customdata=names, hovertemplate="%{customdata}: %{x:.2f}%<extra></extra>"))
    for word in ("passes", "fails", "measured, not decided (no contract)", "not evaluable"):  # the legend
        if word in seen:
            fig.add_trace(go.Bar(y=[None], x=[None], orientation="h", marker_color=seen[word], name=word,
                                 hoverinfo="skip"))
    fig.add_trace(go.Scatter(y=bars_y, x=marks, mode="markers", name="threshold", customdata=names,
                             marker=dict(symbol="line-ns", size=20, line=dict(width=3, color=p.threshold)),
                             hovertemplate="%{customdata}: threshold %{x:.2f}%<extra></extra>", cliponaxis=False))
    title = ("Judge rates against the contract's thresholds" if given
             else "Judge rates against illustrative limits<br>(not a contract)")
    # The plot keeps row_px per rate whatever the screen: the top margin holds the title (as finish
    # places it), the bottom one the axis and a legend of up to three lines (a phone wraps it).
    lines = title.count("<br>") + 1
    top_px, bottom_px = TITLE_TOP + 9 * (lines - 1) + int(14 * 1.3 * lines) + 14, 112
    height = top_px + row_px * n + bottom_px
    annotations = []
    for i, (r, note) in enumerate(zip(rows, notes)):
        top = dict(x=0, xref="paper", y=i - 0.47, yref="y", xanchor="left", yanchor="top", showarrow=False)
        annotations.append(dict(top, text=r, font=dict(size=12, color=p.text), name="label"))
        annotations.append(dict(top, text=note, yshift=-16, font=dict(size=11, color=p.text), name="result"))
    fig.update_layout(annotations=annotations, barmode="overlay", legend=legend_bottom(), showlegend=True)
    fig.update_xaxes(title_text="rate (%)", range=[0, 100], ticksuffix="%", showgrid=True)
    fig.update_yaxes(visible=False, range=[n - 0.5, -0.5], showgrid=False, fixedrange=True)
    failing = sum(n.endswith("fails") for n in notes)
    unevaluable = (f"; {notes.count('not evaluable')} cannot be evaluated from this source (grey)."
                   if "not evaluable" in notes else ".")
    if not given:
        outside = sum(n.endswith("outside the limit") for n in notes)
        cap_text = (f"Each bar is one of the judge's rates in percent; the black mark (white in dark mode) is its "
                    f"limit, one of the {ILLUSTRATIVE_LIMITS}. No contract was given, so nothing is decided: "
                    f"{outside} of {len(notes)} rates lie outside these limits" + unevaluable)
        return finish(fig, p, height=height, title=title, caption_text=cap_text, top=top_px, right=16,
                       bottom=bottom_px)
    cap_text = (f"Each bar is one of the judge's rates in percent; the black mark (white in dark mode) is its "
                f"threshold from the contract in force. Human agreement must reach its threshold; the other four must "
                f"stay at or below theirs. {failing} of {len(notes)} rates fail, as decided" + unevaluable)
    return finish(fig, p, height=height, title=title, caption_text=cap_text, top=top_px, right=16,
                   bottom=bottom_px)


# --- graded and pass/fail judges (the report's "scored" section) --------------------------------


def reliability_figure(confidence: JSONObject, *, dark: bool = False) -> go.Figure:
    """The reliability diagram of a judge's stated confidence (a scored report's ``confidence``):
    each equal-mass bin's mean stated probability against the observed frequency of a human's pass,
    with its Wilson 95% interval; the diagonal is a calibrated judge. Bin sizes in the hover."""
    p = palette(dark)
    bins = confidence["bins"]
    xs = [b["mean_p"] for b in bins]
    ys = [b["frequency"] for b in bins]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="calibrated (stated = observed)",
                             line=dict(color=p.threshold, width=1.5, dash="dash"), hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=xs, y=ys, mode="lines+markers", name=f"the judge (a bin of {confidence.get('unit', 'items')})",
        line=dict(color=p.neutral, width=1.5), marker=dict(size=9, color=p.neutral),
        error_y=dict(type="data", symmetric=False, array=[b["interval95"][1] - b["frequency"] for b in bins],
                     arrayminus=[b["frequency"] - b["interval95"][0] for b in bins], color=p.neutral, thickness=1.2,
                     width=4),
        customdata=[[b["count"], b["interval95"][0], b["interval95"][1]] for b in bins],
        hovertemplate="stated %{x:.3f}, observed %{y:.3f} [%{customdata[1]:.3f}, %{customdata[2]:.3f}]"
                      "<br>%{customdata[0]:,} pairs<extra></extra>"))
    fig.update_xaxes(title_text="stated probability of pass (bin mean)", range=[-0.02, 1.02], dtick=0.2)
    fig.update_yaxes(title_text="observed share the humans pass", range=[-0.02, 1.02], dtick=0.2)
    fig.update_layout(legend=legend_bottom(), showlegend=True)
    iso = confidence["isotonic"]
    cap_text = (f"Each point is one of {len(bins)} equal-mass bins of {confidence.get('unit', 'items')}: the judge's mean stated "
                f"probability of pass against how often the humans' verdict (their majority) was pass, with its Wilson 95% interval; "
                f"points on the dashed diagonal are calibrated, below it overconfident in pass. ECE "
                f"{confidence['ece']:.3f}, Brier {confidence['brier']:.3f}; an isotonic map fitted on half the {confidence.get('unit', 'items')} "
                f"moves the other half's ECE from {iso['ece_before']:.3f} to {iso['ece_after']:.3f} (shown, not "
                "applied).")
    return finish(fig, p, height=400, title="Stated confidence against the humans (reliability diagram)",
                   caption_text=cap_text, bottom=10)


def score_heatmap(table: JSONObject, judge: str, *, dark: bool = False) -> go.Figure:
    """A judge's scores against the humans' (a scored report's ``table``): rows the judge's score,
    columns the human's, each cell the judge-human pairs; the diagonal (the same score) outlined."""
    p = palette(dark)
    values = [f"{v:g}" for v in table["values"]]
    z = [list(row) for row in table["counts"]]
    name = html_text(judge, 60)
    small = len(values) <= 12
    # the judge's name goes in as data, never into the template (a name holding %{...} would be read)
    hover = [[f"{name}: {values[i]}<br>human: {values[j]}<br>{n:,} pairs" for j, n in enumerate(row)]
             for i, row in enumerate(z)]
    fig = go.Figure(go.Heatmap(
        z=z, x=values, y=values, colorscale=[list(s) for s in p.heat], showscale=not small,
        colorbar=dict(title=dict(text="pairs", font=dict(color=p.text)), tickfont=dict(color=p.text)),
        text=[[f"{n:,}" for n in row] for row in z] if small else None, texttemplate="%{text}" if small else None,
        customdata=hover, hovertemplate="%{customdata}<extra></extra>"))
    for i in range(len(values)):  # the diagonal: judge and human gave the same score
        fig.add_shape(type="rect", xref="x", yref="y", x0=i - 0.5, x1=i + 0.5, y0=i - 0.5, y1=i + 0.5,
                      line=dict(color=p.threshold, width=2), fillcolor="rgba(0,0,0,0)", name="diagonal")
    fig.update_xaxes(title_text="human's score", type="category", showgrid=False)
    fig.update_yaxes(title_text=f"{name}'s score", type="category", autorange="reversed", showgrid=False)
    total = sum(sum(row) for row in z)
    same = sum(z[i][i] for i in range(len(z)))
    cap_text = (f"Each cell counts the judge-human pairs with this judge score (row) and human score (column); "
                f"the outlined diagonal is agreement ({same:,} of {total:,} pairs). Mass above the diagonal is the "
                "judge scoring lower than the human, below it higher.")
    return finish(fig, p, height=max(320, 120 + 36 * len(values)), title=f"{name}: its scores against the humans'",
                   caption_text=cap_text, bottom=10)


# --- history ----------------------------------------------------------------------------------

_SERIES_COLORS_LIGHT = ("#1f5a9e", "#8e44ad", "#b35900", "#00796b", "#6d4c41", "#37474f")
_SERIES_COLORS_DARK = ("#64b5f6", "#ce93d8", "#ffb74d", "#4db6ac", "#bcaaa4", "#b0bec5")


def history_timeline(rows: list[JSONObject], *, dark: bool = False, name: str = "") -> go.Figure:
    """Runs of one data set over time (``agreebound.app.history.timeline`` rows): one panel per gate
    (alpha and spread; or the judge's five rates), one line per dimension with its 95% interval
    as error bars, the threshold in force at each run as a dashed step line, and each point
    marked as decided (filled: passes; open: fails; grey: not evaluable). A point's customdata is
    its run id, so a click can open the run. Runs all recorded at one moment (a single run) are
    drawn on a day centred on it, its one tick the run's date and time."""
    from datetime import datetime, timedelta

    from plotly.subplots import make_subplots

    p = palette(dark)
    colors = _SERIES_COLORS_DARK if dark else _SERIES_COLORS_LIGHT
    gates_in_order = list(dict.fromkeys(r["gate"] for r in rows))
    titles = []
    for g in gates_in_order:
        r0 = next(r for r in rows if r["gate"] == g)
        titles.append({"alpha": "alpha (−1 to 1)", "spread": "spread, max/min detector rate (x)",
                       "judge_alpha": "judge's alpha with the humans (−1 to 1)",
                       "admissibility": "judge's alpha minus the humans' (−2 to 2)"}
                      .get(g, f"{html_text(r0['gate_label'], 40)} (%)"))
    n = max(1, len(gates_in_order))
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.12 if n <= 2 else 0.06,
                        subplot_titles=titles)
    scopes = list(dict.fromkeys(r["scope"] for r in rows))
    names = dict(zip(scopes, labels(scopes, 40)))
    runs = len({r["run"] for r in rows})
    for i, g in enumerate(gates_in_order, start=1):
        pct = rows and next(r for r in rows if r["gate"] == g)["unit"] == "%"
        scale = 100.0 if pct else 1.0
        for j, scope in enumerate(scopes):
            pts = [r for r in rows if r["gate"] == g and r["scope"] == scope]
            if not pts:
                continue
            color = colors[j % len(colors)]
            xs = [datetime.fromisoformat(r["time"].replace("Z", "+00:00")) for r in pts]
            ys = [None if r["value"] is None else r["value"] * scale for r in pts]
            plus = [None if r["high"] is None or r["value"] is None else max(0.0, r["high"] * scale - r["value"] * scale)
                    for r in pts]
            minus = [None if r["low"] is None or r["value"] is None else max(0.0, r["value"] * scale - r["low"] * scale)
                     for r in pts]
            symbols = ["circle" if r["passed"] else ("circle-open" if r["passed"] is False else "x-thin-open")
                       for r in pts]
            words = ["passes" if r["passed"] else ("fails" if r["passed"] is False else html_text(r["state"], 30))
                     for r in pts]
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="lines+markers", name=names[scope], legendgroup=scope, showlegend=i == 1,
                line=dict(color=color, width=2), connectgaps=False,
                marker=dict(symbol=symbols, size=11, color=color, line=dict(width=2, color=color)),
                error_y=dict(type="data", symmetric=False, array=plus, arrayminus=minus, color=color, thickness=1.2,
                             width=4),
                customdata=[[r["run"], w] for r, w in zip(pts, words)],
                hovertemplate=f"{names[scope]}: %{{y:.3f}}{'%' if pct else ''} (%{{customdata[1]}})<br>"
                              "run %{customdata[0]}<extra></extra>"), row=i, col=1)
        th = sorted({(r["time"], r["threshold"]) for r in rows if r["gate"] == g and r["threshold"] is not None})
        if th:
            fig.add_trace(go.Scatter(
                x=[datetime.fromisoformat(t.replace("Z", "+00:00")) for t, _ in th], y=[v * scale for _, v in th],
                mode="lines+markers", line=dict(color=p.threshold, width=2, dash="dash", shape="hv"), name="threshold",
                marker=dict(symbol="line-ew-open", size=16, line=dict(width=3, color=p.threshold)),
                legendgroup="threshold", showlegend=i == 1, hovertemplate="threshold %{y:.3f}<extra></extra>"),
                row=i, col=1)
        if pct:
            fig.update_yaxes(ticksuffix="%", row=i, col=1)
    height = 150 + 190 * n
    fig.update_layout(legend=legend_bottom(), showlegend=True, hovermode="closest", clickmode="event+select")
    fig.update_xaxes(title_text="recorded (UTC)", row=n, col=1)
    instants = {r["time"] for r in rows}
    if len(instants) == 1:  # one moment (one run): plotly alone zooms into a millisecond around it
        at = datetime.fromisoformat(instants.pop().replace("Z", "+00:00"))
        fig.update_xaxes(range=[at - timedelta(hours=12), at + timedelta(hours=12)], tickvals=[at],
                         ticktext=[f"{at:%Y-%m-%d %H:%M:%S}"])
    for a in fig.layout.annotations:  # subplot titles in the theme's text colour, left-aligned
        a.update(font=dict(size=12, color=p.text), x=0, xanchor="left")
    graded = any(r["gate"] in ("judge_alpha", "admissibility") for r in rows)
    each = "one judge" if graded else "a dimension (or the judge)"
    cap_text = (f"{runs} run{'s' if runs != 1 else ''} of this data over time. Each line is {each}; "
                "the bars are 95% intervals; the dashed line is the threshold in force at each run. Filled points "
                "pass their gate, open points fail it, crosses could not be evaluated. Click a point to open its run.")
    title = f"{html_text(name, 60)}: runs over time" if name else "Runs over time"
    return finish(fig, p, height=height, title=title, caption_text=cap_text, bottom=10)
