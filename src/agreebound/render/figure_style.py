"""What every figure shares: the colours (a verdict's, light and dark), the layout, numbers as text."""

from __future__ import annotations
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING
import plotly.graph_objects as go
from agreebound.core.escape import html_text
from agreebound.core.json_types import JSONObject
from agreebound.render.gates import RATE_LABELS, GateView, panel_gates  # noqa: F401 - RATE_LABELS re-exported
if TYPE_CHECKING:
    pass




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
TITLE_TOP = 30  # px from the figure's top to the title: the modebar (2 to 32 px) sits above it


def caption(fig: go.Figure) -> str:
    """The figure's plain-language caption ("" for a figure not made here)."""
    meta = fig.layout.meta
    return meta.get("caption", "") if isinstance(meta, dict) else ""


def finish(fig: go.Figure, p: Palette, *, height: int, title: str, caption_text: str,
            top: int | None = None, left: int = 10, right: int = 16, bottom: int = 10,
            title_size: int = 14) -> go.Figure:
    """Theme, margins and the title below the modebar; ``top`` leaves room for a legend too."""
    lines = title.count("<br>") + 1
    title_px = int(title_size * 1.3 * lines)
    # plotly moves a title of several lines up by about half a line each: start it lower
    title_top = TITLE_TOP + 9 * (lines - 1)
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


def legend_bottom() -> JSONObject:
    """A horizontal legend at the figure's foot (plotly makes room for it below the axis title)."""
    return dict(orientation="h", x=0, xanchor="left", xref="container", y=0, yref="container",
                yanchor="bottom", traceorder="normal")


def text_frac(text: str, size: int, width_px: float) -> float:
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


# --- numbers as text -------------------------------------------------------------------------


def fraction_text(x: Fraction | None, digits: int = 4) -> str:
    if x is None:
        return "undefined"
    return f"{float(x):.{digits}f}"


def exact_text(x: Fraction | None) -> str:
    if x is None:
        return "undefined"
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


