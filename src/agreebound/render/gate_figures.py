"""A gate as a figure: its bullet (the value, its interval, the threshold), the strip of gates, the
threshold sweep (the verdict as a function of the threshold).
"""

from __future__ import annotations
import html
import math
from typing import TYPE_CHECKING
import plotly.graph_objects as go
from agreebound.core.json_types import JSONObject
from agreebound.render.gates import RATE_LABELS, GateView, panel_gates  # noqa: F401 - RATE_LABELS re-exported
from agreebound.render.figure_style import Palette, finish, text_frac, palette
if TYPE_CHECKING:
    pass



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
        return f"spread, max/min {g.rater_word} rate (x)"
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


def _xaxis_for(g: GateView, rng: tuple[float, float]) -> JSONObject:
    ax: JSONObject = dict(title_text=_axis_title(g), range=list(rng), showgrid=True, zeroline=False,
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
    elif g.unit == "n":  # a whole number of any size (an optional panel gate's units)
        ax["tickformat"] = ",d"
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
        text += f": no {g.rater_word} rates, so it does not block"
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
    return other if room[other] >= text_frac else max(room, key=lambda side: room[side])


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
    return finish(fig, p, height=164 + 26 * title.count("<br>"), title=title, caption_text=cap, bottom=8,
                   title_size=13, left=26, right=26)


def _axis_frac(x: float, rng: tuple[float, float]) -> float:
    """Where ``x`` sits along the axis ``rng``, 0 at its left end and 1 at its right."""
    return (x - rng[0]) / (rng[1] - rng[0])


def _bullet_threshold(fig: go.Figure, g: GateView, p: Palette,
                      rng: tuple[float, float]) -> tuple[list[JSONObject], str]:
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
    t_width = text_frac(t_text, size, _ASSUMED_PLOT_PX)
    away = "left" if g.kind == "min" else "right"  # the side of the line outside the zone
    t_side = _side_anchor(_axis_frac(t, rng), t_width + 0.02, away)
    annotations = [dict(x=t, y=_BULLET_TOP, xref="x", yref="y", text=t_text, showarrow=False, yanchor="top",
                        xanchor="right" if t_side == "left" else "left", xshift=-4 if t_side == "left" else 4,
                        font=dict(size=size, color=p.text), name="threshold label")]
    z_text = _zone_words(g)
    z_width = text_frac(z_text, size, _ASSUMED_PLOT_PX)
    zone_frac = _axis_frac(zone[1], rng) - _axis_frac(zone[0], rng)
    if t_side == away and zone_frac >= z_width + 0.04:
        end = "right" if g.kind == "min" else "left"  # the zone's far end, away from the line
        annotations.append(dict(x=zone[1] if end == "right" else zone[0], y=_BULLET_TOP, xref="x", yref="y",
                                text=z_text, showarrow=False, yanchor="top", xanchor=end,
                                xshift=-3 if end == "right" else 3, font=dict(size=size, color=p.muted),
                                name="zone label"))
    return annotations, z_text


def _bullet_unmeasured(g: GateView, p: Palette, annotations: list[JSONObject]) -> tuple[str, str]:
    """A gate without a number: no marker, no interval, never a verdict's colour; the state in
    words joins ``annotations``. The title and the caption."""
    annotations.append(dict(x=0.5, y=-0.3, xref="paper", yref="y", text=_wrap(html.escape(_state_words(g)), 50),
                            showarrow=False, font=dict(size=11, color=p.text), bgcolor=p.background,
                            bordercolor=p.neutral, borderwidth=1, borderpad=3, name="state"))
    title = _wrap(f"{html.escape(g.label)}: {html.escape(g.status)}", 48)
    cap = (f"{_state_words(g, False).capitalize()}: there is no number to draw, only the {g.threshold_word} in "
           f"force ({g.fmt(g.threshold)}). {_status_sentence(g)}")
    return title, cap


def _bullet_interval(fig: go.Figure, g: GateView, p: Palette, rng: tuple[float, float]) -> JSONObject:
    """The 95% interval as a grey band on ``fig`` (an arrow where it runs past the axis); its label,
    centred under the band unless that would cross an end of the axis."""
    assert g.low is not None  # drawn for a gate with an interval only
    x0, x1 = rng
    cut = g.high is None or g.high > x1
    hi = x1 if cut or g.high is None else g.high  # (cut: unbounded, or past the axis)
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
    i_width = text_frac(i_text, _BULLET_FONT - 1, _ASSUMED_PLOT_PX)
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


def axis_top(numbers: list[float]) -> float:
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
    annotations: list[JSONObject] = []
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
            if (v - u) / span >= text_frac(name, 13, _SWEEP_PLOT_PX) + 0.03:
                annotations.append(dict(x=(u + v) / 2, y=mid_y, xref="x", yref="y", text=f"<b>{name}</b>",
                                        showarrow=False, font=dict(size=13, color=p.text), name=f"{name} label"))
        # the measured value: where the verdict flips
        fig.add_shape(type="line", xref="x", yref="y", x0=b, x1=b, y0=bottom_y, y1=top_y,
                      line=dict(color=p.text, width=2, dash="dash"), name="measured")
        m_text = f"measured {g.fmt(flip)}"
        side = _side_anchor((b - x0) / span, text_frac(m_text, size, _ASSUMED_PLOT_PX) + 0.02, "right")
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
    side = _side_anchor((tc - x0) / span, text_frac(f_text, size, _ASSUMED_PLOT_PX) + 0.02, "right")
    annotations.append(dict(x=tc, y=top_y, xref="x", yref="y", text=f_text, showarrow=False, yanchor="top",
                            xanchor="left" if side == "right" else "right", xshift=4 if side == "right" else -4,
                            font=dict(size=size, color=p.text), bgcolor=p.background, name="threshold label"))
    fig.update_layout(annotations=annotations, showlegend=False)
    ax = _xaxis_for(g, (x0, x1))
    ax["title_text"] = (f"minimum independent {g.rater_word}s (count)" if g.name == "detectors" else
                        "limit on the difference (points)" if g.unit == "pt" else
                        {"floor": "alpha floor (−1 to 1)", "cap": f"spread cap, max/min {g.rater_word} rate (x)",
                         "limit": "limit on the rate (%)", "minimum": "minimum rate (%)"}[word])
    fig.update_xaxes(**ax)
    fig.update_yaxes(visible=False, range=[bottom_y, top_y], fixedrange=True)
    return finish(fig, p, height=176, title=f"{html.escape(g.label)}: the verdict at every {word}",
                   caption_text=cap, bottom=8, title_size=13, left=26, right=26)


