"""The HTML report's pieces: its style, tables, lists and sections, the verdict's words, the charts
embedded with their text alternative. Every user text is escaped here (agreebound.core.escape).
"""

from __future__ import annotations
import html
import re
from fractions import Fraction
from pathlib import PurePath
from typing import Iterable, Sequence
import plotly.graph_objects as go
from agreebound.core.escape import html_text
from agreebound.core.limits import LISTED_CATEGORIES
from agreebound.core.json_types import JSONObject
from agreebound.render.figure_style import caption as figure_caption



# The column (and so every chart) is at most 700 CSS px wide: A4's printable width at the 12 mm
# margins below is 703 px (Letter's 725 px), so a chart drawn on screen prints whole even where
# the browser does not re-lay it out for print.
STYLE = """
:root { color-scheme: light; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: #ffffff; color: var(--ink); line-height: 1.5;
       font: 16px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
header, main, footer { max-width: 700px; margin: 0 auto; padding: 0 1rem; }
header { padding-top: 1.5rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 .5rem; }
h2 { font-size: 1.3rem; line-height: 1.3; margin: 2rem 0 .6rem; padding-top: .6rem; border-top: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.3rem 0 .4rem; }
p { margin: .4rem 0; }
ul { margin: .4rem 0; padding-left: 1.4rem; }
.meta, footer, .note, caption { color: var(--muted); }
.meta { font-size: .95rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace; font-size: .88em; }
code { overflow-wrap: anywhere; word-break: break-all; }
.verdict { display: inline-block; padding: .35rem .8rem; border-radius: .4rem; font-weight: 650; border: 1px solid; }
.ok { background: #e8f5e9; color: #1b5e20; border-color: #a5d6a7; }
.warn { background: #fff8e1; color: #6b4f00; border-color: #e6c65c; }
.bad { background: #ffebee; color: #b71c1c; border-color: #ef9a9a; }
.result { font-weight: 650; white-space: nowrap; }
.result.ok, .result.warn, .result.bad { background: none; border: 0; padding: 0; }
.result.none { color: var(--muted); }
table { width: 100%; table-layout: fixed; border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
caption { text-align: left; font-size: .9rem; padding: 0 0 .3rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .45rem; border-bottom: 1px solid var(--line);
         overflow-wrap: break-word; }
td code, td .small { overflow-wrap: anywhere; }
thead th { background: var(--soft); border-bottom: 2px solid var(--line); white-space: nowrap; overflow-wrap: normal; }
tbody th { font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td .verdict { padding: .1rem .4rem; font-size: .82rem; white-space: nowrap; }
/* a phone: a table keeps its columns readable and scrolls sideways rather than overlapping them */
@media screen and (max-width: 600px) {
  table { display: block; overflow-x: auto; table-layout: auto; width: 100%; }
  th, td { min-width: 4.5rem; }
  thead th { white-space: normal; }
  td .verdict { white-space: nowrap; overflow-wrap: normal; }
}
.small { font-size: .85em; color: var(--muted); }
figure.chart { margin: .6rem 0 1.2rem; max-width: 700px; break-inside: avoid; page-break-inside: avoid; }
figure.chart figcaption { font-size: .85rem; color: var(--muted); }
.plot { width: 100%; }
footer { margin-top: 2.5rem; padding-bottom: 2rem; font-size: .85rem; }
footer p { border-top: 1px solid var(--line); padding-top: .8rem; }
details { margin: .4rem 0; }
@page { margin: 12mm; }
@media print {
  body { font-size: 11pt; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  header, main, footer { max-width: none; padding: 0; }
  h2 { break-after: avoid; page-break-after: avoid; }
  h3 { break-after: avoid; page-break-after: avoid; }
  tr, figure.chart, table.gates { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .modebar-container { display: none !important; }
}
"""

#: Charts follow their column on screen (plotly's responsive mode) and are re-fitted before
#: printing; the column is never wider than the printable width either way.
FIT_SCRIPT = """<script>
(function () {
  function fit() {
    if (!window.Plotly) { return; }
    document.querySelectorAll('.js-plotly-plot').forEach(function (g) { window.Plotly.Plots.resize(g); });
  }
  window.addEventListener('beforeprint', fit);
  window.addEventListener('afterprint', fit);
})();
</script>"""

_TONE = {"ENFORCE": "ok", "PASS_CALIBRATION": "ok", "REPORT_ONLY": "warn", "INCOMPLETE": "warn",
         "REFUSE_SINGLE": "bad", "FAIL_CALIBRATION": "bad"}
MEANING = {"ENFORCE": "reliable enough to act on", "REPORT_ONLY": "measure and publish, do not auto-enforce",
            "REFUSE_SINGLE": "fewer than two independent detectors: refused whatever the scores",
            "PASS_CALIBRATION": "the judge meets its calibration contract",
            "FAIL_CALIBRATION": "the judge does not meet its calibration contract",
            "INCOMPLETE": "not decided: no contract was given, or some gates could not be evaluated; this is not a pass"}
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def meaning_of(verdict: str, noun: str = "detector") -> str:
    """A verdict in words (:data:`MEANING`), said of a panel's raters (``noun``: "rater" for a study
    of raters: "fewer than two independent raters")."""
    return MEANING.get(verdict, "").replace("detectors", f"{noun}s")


# --- small pieces ------------------------------------------------------------------------------


def escaped(x: object, limit: int | None = 200) -> str:
    """User (or any) text, escaped, controls shown as escapes, cut with its length said."""
    return html_text(x, limit)


def verdict_html(v: str) -> str:
    return f'<span class="verdict {_TONE.get(v, "warn")}">{html.escape(v)}</span>'


def result_html(state: str) -> str:
    """A gate's result in words (never colour alone): pass, FAIL, or a state without a number."""
    tone = {"pass": "ok", "FAIL": "bad"}.get(state, "none")
    return f'<span class="result {tone}">{escaped(state, 120)}</span>'


def decimal_text(exact: str | None, digits: int = 3) -> str:
    """An exact fraction string as a decimal for reading (the exact value is printed beside)."""
    if exact is None:
        return "undefined"
    try:
        return f"{float(Fraction(exact)):.{digits}f}"
    except (ValueError, ZeroDivisionError, OverflowError):
        return escaped(exact, 40)


def pct(x: float | None, digits: int = 1) -> str:
    return "none" if x is None else f"{100 * x:.{digits}f}%"


def html_table(caption: str, head: list[str], rows: Iterable[list[str]], widths: list[int], numeric: Iterable[int] = (),
           small: bool = False) -> str:
    """A table of fixed column widths (percent: a long name wraps inside its column instead of
    widening the table past the page); the first cell of each row is its header. Cells are HTML
    already escaped."""
    num = set(numeric)
    cols = "".join(f'<col style="width:{w}%">' for w in widths)
    cls = [' class="num"' if i in num else "" for i in range(len(head))]
    thead = "".join(f'<th scope="col"{cls[i]}>{h}</th>' for i, h in enumerate(head))
    body = []
    for row in rows:
        cells = [f'<th scope="row">{row[0]}</th>'] + [f"<td{cls[i]}>{c}</td>" for i, c in enumerate(row) if i]
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls_attr = ' class="gates"' if small else ""
    return (f"<table{cls_attr}><caption>{caption}</caption><colgroup>{cols}</colgroup><thead><tr>{thead}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def html_list(items: Iterable[str]) -> str:
    items = list(items)
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else ""


def names_html(names: Sequence[object], limit: int = LISTED_CATEGORIES) -> str:
    shown = ", ".join(escaped(n, 60) for n in names[:limit])
    more = f", and {len(names) - limit:,} more" if len(names) > limit else ""
    return (shown or "none") + more


def html_section(sid: str, heading: str, body: str) -> str:
    return f'<section aria-labelledby="{sid}">\n<h2 id="{sid}">{heading}</h2>\n{body}\n</section>'


def inputs_section(report: JSONObject, extra: str = "") -> str:
    rows = [[escaped(i["file"], 120), f"<code>{escaped(i['sha256'], 80)}</code>"] for i in report["inputs"]]
    body = (f"<p>agreebound {escaped(report['tool']['version'], 40)}; thresholds: {escaped(report['thresholds']['source'], 200)}.</p>"
            + html_table("Every input, named with its SHA-256", ["file", "sha256"], rows, [32, 68],
                     small=len(rows) <= 8) + extra)
    return html_section("inputs", "Inputs", body)


def data_name(report: JSONObject) -> str:
    name = str(report["inputs"][0]["file"]) if report.get("inputs") else "data"
    return name + (" (sample data, not yours)" if report.get("sample") else "")


# --- charts ------------------------------------------------------------------------------------


def _cartesian(fig: go.Figure) -> bool:
    return any(t.type in ("bar", "scatter", "heatmap", "box", "histogram") for t in fig.data)


def fit(fig: go.Figure, extra_height: int = 0) -> go.Figure:
    """Margins that keep every label whatever the fonts: the axes grow their own margin
    (automargin), the figure follows its column's width, and the top margin holds the toolbar
    above the title. ``extra_height`` (long category labels) makes the figure taller while a
    title, legend or note placed in the figure's height keeps its distance in pixels from the edge
    it is anchored to."""
    fig.update_layout(autosize=True, width=None)
    top = fig.layout.margin.t
    if top is None or top < 36:
        fig.update_layout(margin={"t": 36})
    if _cartesian(fig):
        fig.update_xaxes(automargin=True)
        fig.update_yaxes(automargin=True)
    if extra_height > 0:
        old = fig.layout.height or 450
        new = old + extra_height
        for part in (fig.layout.title, fig.layout.legend, *fig.layout.annotations):
            if part.yref == "container" and isinstance(part.y, (int, float)):
                # keep its distance in pixels from the edge it is anchored to
                bottom = part.yanchor == "bottom" or (part.yanchor in (None, "auto", "middle") and part.y < 0.5)
                part.y = part.y * old / new if bottom else 1 - (1 - part.y) * old / new
        fig.update_layout(height=new)
    return fig


def chart_caption(fig: go.Figure, fallback: str) -> str:
    """The figure's own plain-language caption when it carries one, else ``fallback``; escaped."""
    return html.escape(figure_caption(fig) or fallback)


def chart(fig: go.Figure, index: int, heading: str, caption: str, filename: str) -> str:
    """One figure under its own h3 (the toolbar never covers it); plotly.js is inlined with the
    first figure only. ``caption`` is escaped HTML."""
    hid = f"chart-{index}-title"
    height = fig.layout.height or 450
    div = fig.to_html(full_html=False, include_plotlyjs=(index == 0), include_mathjax=False,
                      div_id=f"chart-{index}", default_width="100%", default_height=f"{height}px",
                      config={"displaylogo": False, "responsive": True,
                              "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}})
    return (f'<figure class="chart" aria-labelledby="{hid}">\n<h3 id="{hid}">{heading}</h3>\n'
            f'<div class="plot">{div}</div>\n<figcaption>{caption}</figcaption>\n</figure>')


def slug(*parts: str) -> str:
    """A PNG file name for a chart's toolbar: the data's stem, the dimension, the chart."""
    parts = (PurePath(parts[0]).stem, *parts[1:]) if parts else parts
    return "-".join(_SLUG.sub("_", p).strip("._-")[:60] or "x" for p in parts)


def html_page(title: str, subject: str, verdict: str, sections: list[str], charts: int, meaning: str | None = None) -> str:
    """``meaning``: the verdict in words, when the report's kind reads it otherwise than MEANING."""
    meaning = MEANING.get(verdict, "") if meaning is None else meaning
    plotly_note = "plotly.js is inlined once; " if charts else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}: {escaped(subject, 80)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<header>\n<h1>{html.escape(title)}</h1>\n<p class=\"meta\">Data: {escaped(subject, 120)}</p>\n"
        f"<p>{verdict_html(verdict)} <span class=\"meaning\">{html.escape(meaning)}</span></p>\n"
        "</header>\n<main>\n" + "\n".join(sections) + "\n</main>\n"
        f"<footer><p>Written by agreebound. This file is self-contained: {plotly_note}opening it makes no "
        "network request. Each chart's toolbar downloads it as a PNG.</p></footer>\n"
        f"{FIT_SCRIPT if charts else ''}\n</body>\n</html>\n"
    )


