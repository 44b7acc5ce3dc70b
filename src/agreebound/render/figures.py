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

import html
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import plotly.graph_objects as go

from agreebound.panel.measure import PanelMeasurement
from agreebound.judge.calibration import ILLUSTRATIVE_LIMITS, CalibrationDecision, seed_view
from agreebound.core.escape import html_text
from agreebound.render.gates import RATE_LABELS, GateView, panel_gates  # noqa: F401 - RATE_LABELS re-exported
from agreebound.panel.decide import PanelDecision

# --- colours ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Palette:
    """One theme's colours. ``background`` is the page the figure sits on (and the figure's own
    background); it backs text that crosses a line and is what contrast is measured against."""

    dark: bool
    background: str
    text: str
    muted: str  # secondary text, modebar icons
    grid: str
    passed: str
    failed: str
    neutral: str  # a value with no verdict (not evaluated / not evaluable)
    threshold: str  # threshold lines and markers
    band: str  # 95% intervals (translucent)
    zone: str  # the side of a threshold that meets it (faint)
    pass_region: str  # threshold sweep: thresholds at which the gate passes (translucent)
    fail_region: str
    heat: tuple[tuple[float, str], ...]  # heatmap colour scale, low to high


LIGHT = Palette(
    dark=False, background="#ffffff", text="#31333f", muted="#5f6b7a", grid="#e6e9ef",
    passed="#2e7d32", failed="#c62828", neutral="#607d8b", threshold="#212121",
    band="rgba(96,125,139,0.38)", zone="rgba(96,125,139,0.10)",
    pass_region="rgba(46,125,50,0.22)", fail_region="rgba(198,40,40,0.20)",
    heat=((0.0, "#f7fbff"), (0.5, "#6baed6"), (1.0, "#08306b")),
)
DARK = Palette(
    dark=True, background="#0e1117", text="#fafafa", muted="#a3a8b8", grid="#31333f",
    passed="#66bb6a", failed="#ef5350", neutral="#90a4ae", threshold="#fafafa",
    band="rgba(144,164,174,0.42)", zone="rgba(144,164,174,0.12)",
    pass_region="rgba(102,187,106,0.26)", fail_region="rgba(239,83,80,0.24)",
    heat=((0.0, "#1a1f2b"), (0.5, "#1f5a9e"), (1.0, "#64b5f6")),
)


def palette(dark: bool = False) -> Palette:
    return DARK if dark else LIGHT


def _luminance(color: str) -> float:
    c = color.lstrip("#")
    if len(c) != 6:
        raise ValueError(f"expected #rrggbb, got {color!r}")
    out = []
    for i in (0, 2, 4):
        x = int(c[i:i + 2], 16) / 255
        out.append(x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4)
    return 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2]


def contrast(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two opaque ``#rrggbb`` colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# --- shared layout ---------------------------------------------------------------------------

# Only "download as PNG" stays (drawn in the browser, offline). "sendChartToCloud" would upload the
# chart, data and all, to a hosted service: it is removed with the zoom and pan tools.
_MODEBAR_REMOVE = ["zoom", "pan", "select", "lasso", "zoomIn", "zoomOut", "autoScale", "resetScale",
                   "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian", "sendChartToCloud",
                   "sendDataToCloud", "editInChartStudio"]
_TITLE_TOP = 30  # px from the figure's top to the title: the modebar (2 to 32 px) sits above it


def caption(fig: go.Figure) -> str:
    """The figure's plain-language caption ("" for a figure not made here)."""
    meta = fig.layout.meta
    return meta.get("caption", "") if isinstance(meta, dict) else ""


def _finish(fig: go.Figure, p: Palette, *, height: int, title: str, caption_text: str,
            top: int | None = None, left: int = 10, right: int = 16, bottom: int = 10,
            title_size: int = 14) -> go.Figure:
    """Theme, margins and the title below the modebar; ``top`` leaves room for a legend too."""
    lines = title.count("<br>") + 1
    title_px = int(title_size * 1.3 * lines)
    # plotly moves a title of several lines up by about half a line each: start it lower
    title_top = _TITLE_TOP + 9 * (lines - 1)
    t = top if top is not None else title_top + title_px + 14
    fig.update_layout(
        height=height,
        margin=dict(l=left, r=right, t=t, b=bottom),
        # The theme's own background (not transparent): a PNG saved from the toolbar stays readable.
        paper_bgcolor=p.background, plot_bgcolor=p.background,
        font=dict(color=p.text, size=12),
        title=dict(text=title, x=0, xanchor="left", xref="container", y=1 - title_top / height,
                   yref="container", yanchor="top", pad=dict(l=left, t=0, b=0),
                   font=dict(size=title_size, color=p.text)),
        modebar=dict(bgcolor="rgba(0,0,0,0)", color=p.muted, activecolor=p.text, remove=_MODEBAR_REMOVE),
        hoverlabel=dict(bgcolor=p.background, font_color=p.text, bordercolor=p.muted),
        meta={"caption": caption_text},
        legend=dict(font=dict(color=p.text, size=11), bgcolor="rgba(0,0,0,0)"),
    )
    axis = dict(gridcolor=p.grid, zerolinecolor=p.grid, linecolor=p.muted, tickfont=dict(color=p.text, size=11),
                title_font=dict(color=p.text, size=12), title_standoff=6, automargin=True)
    fig.update_xaxes(**axis)
    fig.update_yaxes(**axis)
    return fig


def _legend_bottom() -> dict[str, Any]:
    """A horizontal legend at the figure's foot (plotly makes room for it below the axis title)."""
    return dict(orientation="h", x=0, xanchor="left", xref="container", y=0, yref="container",
                yanchor="bottom", traceorder="normal")


def _text_frac(text: str, size: int, width_px: float) -> float:
    """A generous estimate of a text's width as a fraction of a plot ``width_px`` wide."""
    return len(text) * size * 0.56 / width_px


def labels(names: list[object], limit: int) -> list[str]:
    """Escaped, cut labels that stay distinct (plotly merges equal category labels)."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for n in names:
        text = html_text(n, limit)
        if text in seen:
            seen[text] += 1
            text = f"{text} ({seen[text]})"
        else:
            seen[text] = 1
        out.append(text)
    return out


# --- gates -----------------------------------------------------------------------------------

_ASSUMED_PLOT_PX = 320  # bullets' labels are placed so they fit a plot this narrow (a third of a page)
_SWEEP_PLOT_PX = 480  # a sweep is drawn wide (half a page or more)


def _zone_words(g: GateView) -> str:
    word = g.threshold_word
    return f"meets the {word}" if g.kind == "min" else f"within the {word}"


def _axis_title(g: GateView) -> str:
    if g.name == "alpha":
        return "alpha (−1 to 1)"
    if g.name == "admissibility":
        return "judge's alpha minus the humans' (−2 to 2)"
    if g.unit == "x":
        return "spread, max/min detector rate (x)"
    if g.unit == "%":
        return "rate (%)"
    if g.unit == "pt":
        return "difference of two rates (points)"
    return f"{g.label} (count)"


def _nice_ceiling(x: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten at or above ``x``."""
    if x <= 0:
        return 1.0
    base = 10 ** math.floor(math.log10(x))
    for step in (1, 2, 2.5, 5, 10):
        if step * base >= x - 1e-12:
            return step * base
    return 10 * base


def _bullet_range(g: GateView) -> tuple[float, float]:
    """The x axis of a gate's bullet: alpha [-0.2 or lower, 1], the spread [1, 1.15 x the largest
    number], rates [0, 100] or zoomed to [0, 1.3 x the largest number] when all are small."""
    numbers = [x for x in (g.value, g.low, g.high, g.threshold) if x is not None]
    if g.value is None:  # only the threshold is drawn: centre the axis on it
        numbers = [g.threshold * 1.3 if g.unit == "x" else g.threshold]
    if g.name == "alpha":
        lo = min([-0.2] + [x - 0.05 for x in numbers])
        return (max(-1.0, lo), 1.0)
    if g.name == "admissibility":  # a difference of two alphas: zoomed on the threshold and 0
        return (max(-2.0, min([-0.3] + [x - 0.05 for x in numbers])), min(2.0, max([0.2] + [x + 0.05 for x in numbers])))
    if g.unit == "x":
        top = max(numbers + [g.threshold]) * 1.15
        # an interval far beyond the value and the cap is cut (and marked) rather than squash the rest
        near = max([x for x in (g.value, g.threshold, g.low) if x is not None]) * 3
        return (1.0, max(min(top, near), 1.25))
    if g.unit == "%":
        top = max(numbers) * 1.3
        return (0.0, 100.0) if top >= 77 else (0.0, _nice_ceiling(max(top, 1.0)))
    if g.unit == "pt":  # a difference of two rates: 0 always shown, negative values too
        lo, hi = min(numbers + [0.0]), max(numbers + [0.0])
        pad = max(hi - lo, 1.0) * 0.15
        return (max(-100.0, lo - pad if lo < 0 else 0.0), min(100.0, hi + pad))
    return (0.0, max(numbers) + 1.5)


def _xaxis_for(g: GateView, rng: tuple[float, float]) -> dict[str, Any]:
    ax: dict[str, Any] = dict(title_text=_axis_title(g), range=list(rng), showgrid=True, zeroline=False,
                              ticks="outside", showticklabels=True, fixedrange=True, nticks=8)
    if g.name == "alpha":
        ax.update(tickformat=".1f", tick0=0, dtick=0.2, range=[rng[0] - 1e-9, rng[1] + 1e-9])
    elif g.name == "admissibility":
        ax.update(tickformat=".2f", tick0=0, dtick=0.05 if rng[1] - rng[0] <= 0.6 else 0.2)
    elif g.unit == "x":
        ax["ticksuffix"] = "x"
    elif g.unit == "%":
        ax["ticksuffix"] = "%"
    elif g.unit == "pt":
        ax["ticksuffix"] = " pt"
    else:
        ax["dtick"] = 1
    return ax


def _state_words(g: GateView, detail: bool = True) -> str:
    """A gate without a number, in words: "alpha undefined: no pairable values or no variation"
    (``detail=False``: without the reason, which may quote the data, as captions are)."""
    what = g.label if g.domain == "panel" else g.label.lower()
    text = f"{what} {g.state or 'not checked'}"
    if detail and g.detail and g.state != "not measured":
        text += f": {g.detail}"
    elif g.state == "not measured":
        text += ": no detector rates, so it does not block"
    return text


def _wrap(text: str, width: int) -> str:
    """Break a long line (already escaped) into lines of at most ``width`` characters, at ": "
    when that gives two lines, else word by word."""
    if len(text) <= width:
        return text
    head, sep, tail = text.partition(": ")
    if sep and len(head) < width and len(tail) <= width:
        return f"{head}:<br>{tail}"
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "<br>".join(lines + [line])


def _side_anchor(frac: float, text_frac: float, prefer: str) -> str:
    """Which side of a vertical line at ``frac`` (0..1 of the axis) a label of width ``text_frac``
    goes: the preferred side when it fits, else the other."""
    room = {"left": frac, "right": 1 - frac}
    if room[prefer] >= text_frac:
        return prefer
    other = "right" if prefer == "left" else "left"
    return other if room[other] >= text_frac else max(room, key=room.get)


_BULLET_FONT = 11  # px; the interval's label is a size smaller
# rows inside a bullet's plot: labels of the threshold and zone on top, the gate in the middle, the
# interval's label at the bottom; nothing in one row can meet anything in another
_BULLET_TOP, _BULLET_BOTTOM = 1.5, -1.5


def gate_bullet(gate: GateView, *, dark: bool = False) -> go.Figure:
    """One gate as a compact bullet: the measured value (a diamond coloured by ``gate.passed``),
    its 95% interval (a grey band, labelled below it), the threshold (a line labelled "floor
    0.600" / "cap 2.00x" / "limit 5.0%"), the side of the threshold that meets it (faint), and
    the margin in words as the title. Without a value: the threshold and the state in words."""
    g, p = gate, palette(dark)
    rng = _bullet_range(g)
    fig = go.Figure()
    annotations, z_text = _bullet_threshold(fig, g, p, rng)
    if g.value is None:
        title, cap = _bullet_unmeasured(g, p, annotations)
    else:
        if g.low is not None:
            annotations.append(_bullet_interval(fig, g, p, rng))
        title, cap = _bullet_measured(fig, g, p, z_text)
    fig.update_layout(annotations=annotations, showlegend=False)
    fig.update_xaxes(**_xaxis_for(g, rng))
    fig.update_yaxes(visible=False, range=[_BULLET_BOTTOM, _BULLET_TOP], fixedrange=True)
    return _finish(fig, p, height=164 + 26 * title.count("<br>"), title=title, caption_text=cap, bottom=8,
                   title_size=13, left=26, right=26)


def _axis_frac(x: float, rng: tuple[float, float]) -> float:
    """Where ``x`` sits along the axis ``rng``, 0 at its left end and 1 at its right."""
    return (x - rng[0]) / (rng[1] - rng[0])


def _bullet_threshold(fig: go.Figure, g: GateView, p: Palette,
                      rng: tuple[float, float]) -> tuple[list[dict[str, Any]], str]:
    """The threshold's line and the zone that meets it, drawn on ``fig``; their labels (the zone's
    only where it fits beside a label on the far side of the line) and the zone's words."""
    x0, x1 = rng
    t, word, size = g.threshold, g.threshold_word, _BULLET_FONT
    zone = (t, x1) if g.kind == "min" else (x0, t)
    fig.add_shape(type="rect", xref="x", yref="y", x0=zone[0], x1=zone[1], y0=_BULLET_BOTTOM, y1=_BULLET_TOP,
                  fillcolor=p.zone, line_width=0, layer="below", name="zone")
    fig.add_shape(type="line", xref="x", yref="y", x0=t, x1=t, y0=_BULLET_BOTTOM, y1=_BULLET_TOP,
                  line=dict(color=p.threshold, width=2.5), name="threshold")
    t_text = f"{word} {g.fmt(t)}"
    t_width = _text_frac(t_text, size, _ASSUMED_PLOT_PX)
    away = "left" if g.kind == "min" else "right"  # the side of the line outside the zone
    t_side = _side_anchor(_axis_frac(t, rng), t_width + 0.02, away)
    annotations = [dict(x=t, y=_BULLET_TOP, xref="x", yref="y", text=t_text, showarrow=False, yanchor="top",
                        xanchor="right" if t_side == "left" else "left", xshift=-4 if t_side == "left" else 4,
                        font=dict(size=size, color=p.text), name="threshold label")]
    z_text = _zone_words(g)
    z_width = _text_frac(z_text, size, _ASSUMED_PLOT_PX)
    zone_frac = _axis_frac(zone[1], rng) - _axis_frac(zone[0], rng)
    if t_side == away and zone_frac >= z_width + 0.04:
        end = "right" if g.kind == "min" else "left"  # the zone's far end, away from the line
        annotations.append(dict(x=zone[1] if end == "right" else zone[0], y=_BULLET_TOP, xref="x", yref="y",
                                text=z_text, showarrow=False, yanchor="top", xanchor=end,
                                xshift=-3 if end == "right" else 3, font=dict(size=size, color=p.muted),
                                name="zone label"))
    return annotations, z_text


def _bullet_unmeasured(g: GateView, p: Palette, annotations: list[dict[str, Any]]) -> tuple[str, str]:
    """A gate without a number: no marker, no interval, never a verdict's colour; the state in
    words joins ``annotations``. The title and the caption."""
    annotations.append(dict(x=0.5, y=-0.3, xref="paper", yref="y", text=_wrap(html.escape(_state_words(g)), 50),
                            showarrow=False, font=dict(size=11, color=p.text), bgcolor=p.background,
                            bordercolor=p.neutral, borderwidth=1, borderpad=3, name="state"))
    title = _wrap(f"{html.escape(g.label)}: {html.escape(g.status)}", 48)
    cap = (f"{_state_words(g, False).capitalize()}: there is no number to draw, only the {g.threshold_word} in "
           f"force ({g.fmt(g.threshold)}). {_status_sentence(g)}")
    return title, cap


def _bullet_interval(fig: go.Figure, g: GateView, p: Palette, rng: tuple[float, float]) -> dict[str, Any]:
    """The 95% interval as a grey band on ``fig`` (an arrow where it runs past the axis); its label,
    centred under the band unless that would cross an end of the axis."""
    x0, x1 = rng
    cut = g.high is None or g.high > x1
    hi = x1 if cut else g.high
    fig.add_trace(go.Scatter(x=[g.low, hi], y=[0, 0], mode="lines", name="95% interval",
                             line=dict(color=p.band, width=14), showlegend=False,
                             hovertemplate=f"95% interval {g.fmt(g.low)} to {g.fmt(g.high)}<extra></extra>"))
    if cut:
        fig.add_trace(go.Scatter(x=[x1], y=[0], mode="markers", name="interval continues",
                                 marker=dict(symbol="triangle-right", size=13, color=p.neutral),
                                 showlegend=False, cliponaxis=False, hoverinfo="skip"))
    i_text = f"95% interval {g.fmt(g.low)} to {g.fmt(g.high)}" + (" →" if cut else "")
    if g.fragile:
        i_text += f", includes the {g.threshold_word}"
    i_width = _text_frac(i_text, _BULLET_FONT - 1, _ASSUMED_PLOT_PX)
    mid = (_axis_frac(g.low, rng) + _axis_frac(hi, rng)) / 2
    if mid - i_width / 2 < 0:
        ix, ianchor = x0, "left"
    elif mid + i_width / 2 > 1:
        ix, ianchor = x1, "right"
    else:
        ix, ianchor = x0 + mid * (x1 - x0), "center"
    return dict(x=ix, y=_BULLET_BOTTOM, xref="x", yref="y", text=i_text, showarrow=False,
                yanchor="bottom", xanchor=ianchor, font=dict(size=_BULLET_FONT - 1, color=p.text),
                bgcolor=p.background, borderpad=1, name="interval label")


def _bullet_measured(fig: go.Figure, g: GateView, p: Palette, z_text: str) -> tuple[str, str]:
    """The measured value as a diamond on ``fig``, coloured by the verdict (grey: not checked).
    The title (the margin in words) and the caption."""
    color = p.neutral if g.passed is None else p.passed if g.passed else p.failed
    fig.add_trace(go.Scatter(
        x=[g.value], y=[0], mode="markers", name=f"measured {g.label}",
        marker=dict(symbol="diamond", size=16, color=color, line=dict(color=p.background, width=1.5)),
        showlegend=False, cliponaxis=False,
        hovertemplate=html.escape(f"measured {g.fmt(g.value)}: {g.status}"
                                  + (f" ({g.secondary})" if g.secondary else "")) + "<extra></extra>"))
    title = _wrap(html.escape(g.margin), 48)
    word = g.threshold_word
    interval = ""
    if g.low is not None:
        interval = (f" The grey band is its 95% interval, {g.fmt(g.low)} to {g.fmt(g.high)}"
                    + (f" ({g.interval_method})" if g.interval_method else "")
                    + ".")
        if g.fragile:
            interval += f" The interval includes the {word}: another sample could reach the other verdict."
    what = g.label.lower() if g.domain == "judge" else g.label
    shade = ("grey: not decided, the limit is not a contract" if g.illustrative else
             "grey: not checked" if g.passed is None else "coloured by the verdict")
    cap = (f"{_status_sentence(g)} The diamond is the measured {what} ({g.fmt(g.value)}), {shade}.{interval} "
           f"The vertical line is the {word} in force ({g.fmt(g.threshold)}); the faint side of the line {z_text}.")
    return title, cap


def _status_sentence(g: GateView) -> str:
    what = g.label if g.domain == "panel" else g.label.lower()
    if g.illustrative and g.value is not None:  # a judge without a contract: measured, not decided
        return f"The {what} gate is not decided (no contract): {g.margin}."
    if g.passed is None:
        return f"The {what} gate is not checked ({g.state or 'no value'}): it does not block."
    if g.value is None:
        return f"The {what} gate {g.status} ({g.state})."
    return f"The {what} gate {g.status}: {g.margin}."


def _on_axis(x: float, lo: float, hi: float) -> float:
    """Where a line at ``x`` is drawn on an axis from ``lo`` to ``hi``: at the nearer end when beyond it."""
    return min(max(x, lo), hi)


def _axis_top(numbers: list[float]) -> float:
    """The largest number an axis must show (values, interval ends, a threshold's line)."""
    return max(numbers)


def _sweep_range(g: GateView) -> tuple[float, float]:
    v = g.value
    t = g.threshold
    if g.name == "alpha":
        lo = min([0.0, t - 0.05] + ([v - 0.05] if v is not None else []))
        return (max(-1.0, lo), 1.0)
    if g.name == "admissibility":  # the margin's legal range, 0 to 1: the threshold from -1 to 0
        return (max(-2.0, min([-1.0] + ([v - 0.05] if v is not None else []))), 0.2)
    if g.unit == "x":
        return (1.0, max([5.0, t * 1.1] + ([v * 1.1] if v is not None else [])))
    if g.unit == "%":
        return (0.0, 100.0)
    if g.unit == "pt":  # a difference: the limit's legal range is 0 to 100 points; the value may be below 0
        return (min([0.0] + ([v - 5] if v is not None else [])), 100.0)
    return (0.0, max([5.0, t + 1] + ([v + 1] if v is not None else [])))


def threshold_sweep(gate: GateView, *, dark: bool = False) -> go.Figure:
    """The gate's verdict as a function of its threshold: the thresholds at which it would pass
    and fail, as decided (``gate.flip_at``, the decided gate's ``flips_at``: a "min" gate passes
    for thresholds up to it, a "max" gate for thresholds from it up), the threshold in force and
    the measured value."""
    g, p = gate, palette(dark)
    x0, x1 = _sweep_range(g)
    span = x1 - x0
    word = g.threshold_word
    size = 11
    top_y, mid_y, bottom_y = 3.0, 1.5, 0.0
    fig = go.Figure()
    annotations: list[dict[str, Any]] = []
    t = g.threshold
    tc = _on_axis(t, x0, x1)  # the threshold's line
    flip = g.flip_at
    if flip is None:
        fig.add_shape(type="rect", xref="x", yref="y", x0=x0, x1=x1, y0=bottom_y, y1=top_y,
                      fillcolor=p.zone, line=dict(color=p.neutral, width=1), layer="below", name="state")
        text = _wrap(html.escape(_state_words(g)), 60) + f"<br>the verdict does not depend on the {word}"
        annotations.append(dict(x=0.5, y=mid_y, xref="paper", yref="y", showarrow=False, text=text,
                                font=dict(size=12, color=p.text), bgcolor=p.background, borderpad=3, name="state"))
        cap = (f"{_state_words(g, False).capitalize()}: with no measured value the verdict is the same at every "
               f"{word}. {_status_sentence(g)} The {word} in force is {g.fmt(t)}.")
    else:
        b = _on_axis(flip, x0, x1)
        if g.kind == "min":
            regions = [("passes", x0, b, p.pass_region), ("fails", b, x1, p.fail_region)]
            rule = f"passes for any {word} up to {g.fmt(flip)}" + (" and fails above it" if flip < x1 else "")
        else:
            regions = [("fails", x0, b, p.fail_region), ("passes", b, x1, p.pass_region)]
            rule = f"passes for any {word} at or above {g.fmt(flip)}" + (" and fails below it" if flip > x0 else "")
        for name, a, c, fill in regions:
            if c <= a:
                continue
            fig.add_shape(type="rect", xref="x", yref="y", x0=a, x1=c, y0=bottom_y, y1=top_y, fillcolor=fill,
                          line_width=0, layer="below", name=name)
            # the label goes in the widest stretch of the band that no line crosses
            cuts = sorted({a, c} | {x for x in (tc,) if a < x < c})
            u, v = max(zip(cuts, cuts[1:]), key=lambda uv: uv[1] - uv[0])
            if (v - u) / span >= _text_frac(name, 13, _SWEEP_PLOT_PX) + 0.03:
                annotations.append(dict(x=(u + v) / 2, y=mid_y, xref="x", yref="y", text=f"<b>{name}</b>",
                                        showarrow=False, font=dict(size=13, color=p.text), name=f"{name} label"))
        # the measured value: where the verdict flips
        fig.add_shape(type="line", xref="x", yref="y", x0=b, x1=b, y0=bottom_y, y1=top_y,
                      line=dict(color=p.text, width=2, dash="dash"), name="measured")
        m_text = f"measured {g.fmt(flip)}"
        side = _side_anchor((b - x0) / span, _text_frac(m_text, size, _ASSUMED_PLOT_PX) + 0.02, "right")
        annotations.append(dict(x=b, y=bottom_y, xref="x", yref="y", text=m_text, showarrow=False, yanchor="bottom",
                                xanchor="left" if side == "right" else "right", xshift=4 if side == "right" else -4,
                                font=dict(size=size, color=p.text), bgcolor=p.background, name="measured label"))
        cap = (f"The {g.label.lower() if g.domain == 'judge' else g.label} gate {rule} (the measured value, "
               f"{g.fmt(flip)}). The {word} in force is {g.fmt(t)}; the gate {g.status} there, as decided.")
        if g.fragile:
            cap += f" The measurement's 95% interval includes the {word}: the flip point is uncertain."
    # the threshold in force
    fig.add_shape(type="line", xref="x", yref="y", x0=tc, x1=tc, y0=bottom_y, y1=top_y,
                  line=dict(color=p.threshold, width=3), name="threshold")
    f_text = f"in force: {g.fmt(t)}"
    side = _side_anchor((tc - x0) / span, _text_frac(f_text, size, _ASSUMED_PLOT_PX) + 0.02, "right")
    annotations.append(dict(x=tc, y=top_y, xref="x", yref="y", text=f_text, showarrow=False, yanchor="top",
                            xanchor="left" if side == "right" else "right", xshift=4 if side == "right" else -4,
                            font=dict(size=size, color=p.text), bgcolor=p.background, name="threshold label"))
    fig.update_layout(annotations=annotations, showlegend=False)
    ax = _xaxis_for(g, (x0, x1))
    ax["title_text"] = ("minimum independent detectors (count)" if g.name == "detectors" else
                        "limit on the difference (points)" if g.unit == "pt" else
                        {"floor": "alpha floor (−1 to 1)", "cap": "spread cap, max/min detector rate (x)",
                         "limit": "limit on the rate (%)", "minimum": "minimum rate (%)"}[word])
    fig.update_xaxes(**ax)
    fig.update_yaxes(visible=False, range=[bottom_y, top_y], fixedrange=True)
    return _finish(fig, p, height=176, title=f"{html.escape(g.label)}: the verdict at every {word}",
                   caption_text=cap, bottom=8, title_size=13, left=26, right=26)


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
    top = _axis_top(values + [w.high for w in wilson] + [band_top]) * 1.15 or 1.0
    height, b_guess = 340, 110
    t_margin = _TITLE_TOP + 18 + 14
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
    fig.update_layout(annotations=annotations, legend=_legend_bottom(), showlegend=True)
    fig.update_yaxes(title_text="rate (% of rated items positive)", range=[0, top],
                     tickformat=".1%" if top < 0.1 else ".0%")
    fig.update_xaxes(title_text="detector (positives / rated)", type="category")
    band_words = (f" The tinted band runs from the lowest rate to {cap:.2f} times it: with every rate inside it the "
                  "spread would be within the cap; the solid line is that cap." if lo > 0 else
                  " The lowest rate is 0, so no multiple of it can bound the others: the spread is unbounded.")
    cap_text = (f"Each bar is a detector's rate (positives out of items rated) with its Wilson 95% interval. The spread"
                f" is the highest rate over the lowest ({hi:{fmt}} over {lo:{fmt}}); it {verdict} the cap of "
                f"{cap:.2f}x, as decided.{band_words}")
    return _finish(fig, p, height=height, title="Detector rates with Wilson 95% intervals", caption_text=cap_text,
                   top=t_margin, right=150, bottom=10)


def coincidence_heatmap(m: PanelMeasurement, *, dark: bool = False) -> go.Figure:
    """The coincidence matrix: how often each value was paired with each other value within a
    unit (alpha weighs the off-diagonal mass against what chance would give)."""
    p = palette(dark)
    cats = labels(list(m.alpha.categories), 40)
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
    return _finish(fig, p, height=340, title="Coincidence matrix (pairable values)", caption_text=cap_text,
                   bottom=10)


def pair_heatmap(co: Any, *, dark: bool = False) -> go.Figure:
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
    return _finish(fig, p, height=max(320, 60 + 34 * r + 6 * min(longest, 30)), title="Each pair of raters: Cohen's kappa",
                   caption_text=cap_text, bottom=20 + 6 * min(longest, 30))


def confusion_heatmap(pair: Any, texts: Sequence[str], *, dark: bool = False) -> go.Figure:
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
    return _finish(fig, p, height=340, title=f"{a} against {b}: Cohen's kappa {kappa}",
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
        v = float(g.exact) * 100 if evaluable else 0.0
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
    # The plot keeps row_px per rate whatever the screen: the top margin holds the title (as _finish
    # places it), the bottom one the axis and a legend of up to three lines (a phone wraps it).
    lines = title.count("<br>") + 1
    top_px, bottom_px = _TITLE_TOP + 9 * (lines - 1) + int(14 * 1.3 * lines) + 14, 112
    height = top_px + row_px * n + bottom_px
    annotations = []
    for i, (r, note) in enumerate(zip(rows, notes)):
        top = dict(x=0, xref="paper", y=i - 0.47, yref="y", xanchor="left", yanchor="top", showarrow=False)
        annotations.append(dict(top, text=r, font=dict(size=12, color=p.text), name="label"))
        annotations.append(dict(top, text=note, yshift=-16, font=dict(size=11, color=p.text), name="result"))
    fig.update_layout(annotations=annotations, barmode="overlay", legend=_legend_bottom(), showlegend=True)
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
        return _finish(fig, p, height=height, title=title, caption_text=cap_text, top=top_px, right=16,
                       bottom=bottom_px)
    cap_text = (f"Each bar is one of the judge's rates in percent; the black mark (white in dark mode) is its "
                f"threshold from the contract in force. Human agreement must reach its threshold; the other four must "
                f"stay at or below theirs. {failing} of {len(notes)} rates fail, as decided" + unevaluable)
    return _finish(fig, p, height=height, title=title, caption_text=cap_text, top=top_px, right=16,
                   bottom=bottom_px)


# --- graded and pass/fail judges (the report's "scored" section) --------------------------------


def reliability_figure(confidence: dict[str, Any], *, dark: bool = False) -> go.Figure:
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
    fig.update_layout(legend=_legend_bottom(), showlegend=True)
    iso = confidence["isotonic"]
    cap_text = (f"Each point is one of {len(bins)} equal-mass bins of {confidence.get('unit', 'items')}: the judge's mean stated "
                f"probability of pass against how often the humans' verdict (their majority) was pass, with its Wilson 95% interval; "
                f"points on the dashed diagonal are calibrated, below it overconfident in pass. ECE "
                f"{confidence['ece']:.3f}, Brier {confidence['brier']:.3f}; an isotonic map fitted on half the {confidence.get('unit', 'items')} "
                f"moves the other half's ECE from {iso['ece_before']:.3f} to {iso['ece_after']:.3f} (shown, not "
                "applied).")
    return _finish(fig, p, height=400, title="Stated confidence against the humans (reliability diagram)",
                   caption_text=cap_text, bottom=10)


def score_heatmap(table: dict[str, Any], judge: str, *, dark: bool = False) -> go.Figure:
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
    return _finish(fig, p, height=max(320, 120 + 36 * len(values)), title=f"{name}: its scores against the humans'",
                   caption_text=cap_text, bottom=10)


# --- numbers as text -------------------------------------------------------------------------


def fraction_text(x: Fraction | None, digits: int = 4) -> str:
    if x is None:
        return "undefined"
    return f"{float(x):.{digits}f}"


def exact_text(x: Fraction | None) -> str:
    if x is None:
        return "undefined"
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


# --- history ----------------------------------------------------------------------------------

_SERIES_COLORS_LIGHT = ("#1f5a9e", "#8e44ad", "#b35900", "#00796b", "#6d4c41", "#37474f")
_SERIES_COLORS_DARK = ("#64b5f6", "#ce93d8", "#ffb74d", "#4db6ac", "#bcaaa4", "#b0bec5")


def history_timeline(rows: list[dict[str, Any]], *, dark: bool = False, name: str = "") -> go.Figure:
    """Runs of one data set over time (``agreebound.app.history.timeline`` rows): one panel per gate
    (alpha and spread; or the judge's five rates), one line per dimension with its 95% interval
    as error bars, the threshold in force at each run as a dashed step line, and each point
    marked as decided (filled: passes; open: fails; grey: not evaluable). A point's customdata is
    its run id, so a click can open the run."""
    from datetime import datetime

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
    fig.update_layout(legend=_legend_bottom(), showlegend=True, hovermode="closest", clickmode="event+select")
    fig.update_xaxes(title_text="recorded (UTC)", row=n, col=1)
    for a in fig.layout.annotations:  # subplot titles in the theme's text colour, left-aligned
        a.update(font=dict(size=12, color=p.text), x=0, xanchor="left")
    graded = any(r["gate"] in ("judge_alpha", "admissibility") for r in rows)
    each = "one judge" if graded else "a dimension (or the judge)"
    cap_text = (f"{runs} run{'s' if runs != 1 else ''} of this data over time. Each line is {each}; "
                "the bars are 95% intervals; the dashed line is the threshold in force at each run. Filled points "
                "pass their gate, open points fail it, crosses could not be evaluated. Click a point to open its run.")
    title = f"{html_text(name, 60)}: runs over time" if name else "Runs over time"
    return _finish(fig, p, height=height, title=title, caption_text=cap_text, bottom=10)
