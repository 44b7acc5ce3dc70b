"""Plotly figures. They draw what the core measured and what ``decide`` returned; they never
compare a number with a threshold themselves (pass/fail arrives as a flag)."""

from __future__ import annotations

from fractions import Fraction

import plotly.graph_objects as go

from agreebound.analysis import PanelMeasurement
from agreebound.calibration import CalibrationDecision
from agreebound.escape import html_text
from agreebound.panel import PanelDecision

PASS_COLOR = "#2e7d32"
FAIL_COLOR = "#c62828"
NEUTRAL = "#607d8b"
BAND = "rgba(46,125,50,0.12)"

RATE_LABELS = {
    "human_agreement": "Human agreement",
    "position_flip": "Position flip",
    "repeat_variance": "Repeat variance",
    "verbosity_bias": "Verbosity bias",
    "self_preference": "Self-preference",
}


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


def _layout(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def alpha_bullet(m: PanelMeasurement, d: PanelDecision) -> go.Figure:
    """Alpha on a bullet gauge with the floor as the threshold mark (alpha must be defined)."""
    value = float(m.alpha.value)  # type: ignore[arg-type]
    floor = float(d.thresholds.alpha_floor)
    failed = any(r.check == "alpha_below_floor" for r in d.reasons)
    lo = min(-0.2, value - 0.05)
    fig = go.Figure(go.Indicator(
        mode="number+gauge", value=value, number={"valueformat": ".3f"},
        title={"text": "alpha", "font": {"size": 14}},
        gauge={
            "shape": "bullet",
            "axis": {"range": [lo, 1]},
            "bar": {"color": FAIL_COLOR if failed else PASS_COLOR, "thickness": 0.5},
            "steps": [{"range": [lo, 0], "color": "#eeeeee"}, {"range": [floor, 1], "color": BAND}]
            + ([{"range": [m.alpha_boot.low, m.alpha_boot.high], "color": "rgba(33,33,33,0.25)"}]
               if m.alpha_boot.defined else []),
            "threshold": {"line": {"color": "#212121", "width": 3}, "thickness": 0.9, "value": floor},
        },
        domain={"x": [0.12, 1], "y": [0, 1]},
    ))
    return _layout(fig, 110)


def rates_interval(m: PanelMeasurement, d: PanelDecision) -> go.Figure:
    """Each detector's rate; the band is where every rate would have to lie for the spread to
    stay under the cap given the lowest rate (lo .. lo x cap)."""
    names = labels([r.detector for r in m.rates], 60)  # plotly renders tags in labels: names are text
    values = [float(r.rate) for r in m.rates]
    lo, hi = (float(x) for x in d.rates_span)
    failed = any(r.check in ("ratio_above_cap", "ratio_unbounded") for r in d.reasons)
    wilson = m.wilson
    fig = go.Figure(go.Bar(
        x=names, y=values, marker_color=FAIL_COLOR if failed else PASS_COLOR,
        text=[f"{r.positives}/{r.total}" for r in m.rates], textposition="outside",
        error_y=dict(type="data", symmetric=False, array=[w.high - v for w, v in zip(wilson, values)],
                     arrayminus=[v - w.low for w, v in zip(wilson, values)], color="#424242"),
        hovertemplate="%{x}: %{y:.4f}<extra></extra>",
    ))
    if lo > 0:
        fig.add_hrect(y0=lo, y1=lo * float(d.thresholds.ratio_cap), fillcolor=BAND, line_width=0,
                      annotation_text=f"within {float(d.thresholds.ratio_cap):.2f}x of the lowest rate",
                      annotation_position="top left")
    fig.add_hline(y=lo, line_dash="dot", line_color=NEUTRAL, annotation_text="lo", annotation_position="bottom right")
    fig.add_hline(y=hi, line_dash="dot", line_color=NEUTRAL, annotation_text="hi", annotation_position="top right")
    top = max(values + [w.high for w in wilson] + [lo * float(d.thresholds.ratio_cap)]) * 1.2 or 1
    fig.update_yaxes(title="rate (positives / rated)", range=[0, top], tickformat=".0%")
    fig.update_layout(title={"text": "Detector rates with Wilson 95% intervals", "font": {"size": 14}})
    return _layout(fig, 300)


def coincidence_heatmap(m: PanelMeasurement) -> go.Figure:
    cats = labels(list(m.alpha.categories), 40)
    z = [[float(x) for x in row] for row in m.alpha.coincidence]
    fig = go.Figure(go.Heatmap(
        z=z, x=cats, y=cats, colorscale="Blues", showscale=False,
        text=[[f"{v:.1f}" for v in row] for row in z] if len(cats) <= 12 else None,
        texttemplate="%{text}" if len(cats) <= 12 else None,
        hovertemplate="value %{y} with %{x}: %{z:.3f} pairs<extra></extra>",
    ))
    fig.update_xaxes(title="value", type="category")
    fig.update_yaxes(title="value", type="category", autorange="reversed")
    fig.update_layout(title={"text": "Coincidence matrix (pairable values)", "font": {"size": 14}})
    return _layout(fig, 320)


def calibration_rates(d: CalibrationDecision) -> go.Figure:
    """The five rates against their thresholds: bars coloured by the exact gate's result."""
    labels, values, colors, texts, marks = [], [], [], [], []
    for c in d.checks:
        kind = "min" if c.kind == "min" else "max"
        labels.append(f"{RATE_LABELS[c.name]} ({kind})")
        v = None if c.unavailable else c.rate.value  # a partial audit's gate this source cannot evaluate
        values.append(float(v) * 100 if v is not None else 0)
        colors.append(NEUTRAL if v is None else PASS_COLOR if c.passed else FAIL_COLOR)
        texts.append("not evaluable" if v is None else f"{c.rate.numerator}/{c.rate.denominator}")
        marks.append(c.threshold_bps / 100)
    fig = go.Figure(go.Bar(y=labels, x=values, orientation="h", marker_color=colors, text=texts,
                           textposition="outside", name="rate", hovertemplate="%{y}: %{x:.2f}%<extra></extra>"))
    fig.add_trace(go.Scatter(y=labels, x=marks, mode="markers", name="threshold",
                             marker=dict(symbol="line-ns", size=26, line=dict(width=3, color="#212121")),
                             hovertemplate="threshold %{x:.2f}%<extra></extra>"))
    fig.update_xaxes(title="% (basis points / 100)", range=[0, 112])
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(showlegend=False, title={"text": "Judge rates against the contract's thresholds", "font": {"size": 14}})
    return _layout(fig, 300)


def fraction_text(x: Fraction | None, digits: int = 4) -> str:
    if x is None:
        return "undefined"
    return f"{float(x):.{digits}f}"


def exact_text(x: Fraction | None) -> str:
    if x is None:
        return "undefined"
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"

