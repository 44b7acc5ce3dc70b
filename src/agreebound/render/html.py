"""The self-contained HTML report: the report's content as real HTML (headings, tables of gates
with value, threshold and result) with the dashboard's figures, plotly.js inlined once, every user
string escaped. Opening it makes no network request (no CDN, no web font, no MathJax); it reads on
a laptop screen and prints on A4 or Letter (the charts are never wider than the printable width).

Landmarks: ``<header>`` (title and verdict), ``<main>`` (sections labelled by their headings),
``<footer>``; headings go h1, h2, h3 without skips; text meets WCAG AA contrast.
"""

from __future__ import annotations

import html
import re
from fractions import Fraction
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Iterable

import plotly.graph_objects as go

from agreebound.panel.measure import PanelMeasurement, decide_panel
from agreebound.judge.calibration import decide
from agreebound.core.escape import html_text, printable
from agreebound.core.gate import SEVERITY, Gate
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, level_phrase
from agreebound.core.limits import DETAIL_DIMENSIONS, LISTED_CATEGORIES
from agreebound.panel.decide import gates_from_report
from agreebound.core.thresholds import ThresholdSet
from agreebound.render.gates import RATE_LABELS
from agreebound.render import figures

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
td .verdict { padding: .1rem .45rem; font-size: .85rem; }
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
_MEANING = {"ENFORCE": "reliable enough to act on", "REPORT_ONLY": "measure and publish, do not auto-enforce",
            "REFUSE_SINGLE": "fewer than two independent detectors: refused whatever the scores",
            "PASS_CALIBRATION": "the judge meets its calibration contract",
            "FAIL_CALIBRATION": "the judge does not meet its calibration contract",
            "INCOMPLETE": "not decided: no contract was given, or some gates could not be evaluated; this is not a pass"}
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle


# --- small pieces ------------------------------------------------------------------------------


def _t(x: Any, limit: int | None = 200) -> str:
    """User (or any) text, escaped, controls shown as escapes, cut with its length said."""
    return html_text(x, limit)


def _verdict(v: str) -> str:
    return f'<span class="verdict {_TONE.get(v, "warn")}">{html.escape(v)}</span>'


def _result(state: str) -> str:
    """A gate's result in words (never colour alone): pass, FAIL, or a state without a number."""
    tone = {"pass": "ok", "FAIL": "bad"}.get(state, "none")
    return f'<span class="result {tone}">{_t(state, 120)}</span>'


def _dec(exact: str | None, digits: int = 3) -> str:
    """An exact fraction string as a decimal for reading (the exact value is printed beside)."""
    if exact is None:
        return "undefined"
    try:
        return f"{float(Fraction(exact)):.{digits}f}"
    except (ValueError, ZeroDivisionError, OverflowError):
        return _t(exact, 40)


def _pct(x: float | None, digits: int = 1) -> str:
    return "none" if x is None else f"{100 * x:.{digits}f}%"


def _table(caption: str, head: list[str], rows: Iterable[list[str]], widths: list[int], numeric: Iterable[int] = (),
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


def _list(items: Iterable[str]) -> str:
    items = list(items)
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else ""


def _names(names: list[Any], limit: int = LISTED_CATEGORIES) -> str:
    shown = ", ".join(_t(n, 60) for n in names[:limit])
    more = f", and {len(names) - limit:,} more" if len(names) > limit else ""
    return (shown or "none") + more


def _section(sid: str, heading: str, body: str) -> str:
    return f'<section aria-labelledby="{sid}">\n<h2 id="{sid}">{heading}</h2>\n{body}\n</section>'


def _inputs_section(report: dict[str, Any], extra: str = "") -> str:
    rows = [[_t(i["file"], 120), f"<code>{_t(i['sha256'], 80)}</code>"] for i in report["inputs"]]
    body = (f"<p>agreebound {_t(report['tool']['version'], 40)}; thresholds: {_t(report['thresholds']['source'], 200)}.</p>"
            + _table("Every input, named with its SHA-256", ["file", "sha256"], rows, [32, 68],
                     small=len(rows) <= 8) + extra)
    return _section("inputs", "Inputs", body)


def _data_name(report: dict[str, Any]) -> str:
    name = str(report["inputs"][0]["file"]) if report.get("inputs") else "data"
    return name + (" (sample data, not yours)" if report.get("sample") else "")


# --- charts ------------------------------------------------------------------------------------


def _cartesian(fig: go.Figure) -> bool:
    return any(t.type in ("bar", "scatter", "heatmap", "box", "histogram") for t in fig.data)


def _fit(fig: go.Figure, extra_height: int = 0) -> go.Figure:
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


def _caption(fig: go.Figure, fallback: str) -> str:
    """The figure's own plain-language caption when it carries one, else ``fallback``; escaped."""
    read = getattr(figures, "caption", None)
    text = read(fig) if callable(read) else ""
    return html.escape(text or fallback)


def _chart(fig: go.Figure, index: int, heading: str, caption: str, filename: str) -> str:
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


def _slug(*parts: str) -> str:
    """A PNG file name for a chart's toolbar: the data's stem, the dimension, the chart."""
    parts = (PurePath(parts[0]).stem, *parts[1:]) if parts else parts
    return "-".join(_SLUG.sub("_", p).strip("._-")[:60] or "x" for p in parts)


def _page(title: str, subject: str, verdict: str, sections: list[str], charts: int, meaning: str | None = None) -> str:
    """``meaning``: the verdict in words, when the report's kind reads it otherwise than _MEANING."""
    meaning = _MEANING.get(verdict, "") if meaning is None else meaning
    plotly_note = "plotly.js is inlined once; " if charts else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}: {_t(subject, 80)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<header>\n<h1>{html.escape(title)}</h1>\n<p class=\"meta\">Data: {_t(subject, 120)}</p>\n"
        f"<p>{_verdict(verdict)} <span class=\"meaning\">{html.escape(meaning)}</span></p>\n"
        "</header>\n<main>\n" + "\n".join(sections) + "\n</main>\n"
        f"<footer><p>Written by agreebound. This file is self-contained: {plotly_note}opening it makes no "
        "network request. Each chart's toolbar downloads it as a PNG.</p></footer>\n"
        f"{FIT_SCRIPT if charts else ''}\n</body>\n</html>\n"
    )


# --- panel -------------------------------------------------------------------------------------


def _panel_gates(d: dict[str, Any], p: dict[str, Any], gates: tuple[Gate, ...]) -> str:
    """``gates``: the dimension's gates as decided (detectors, alpha, spread)."""
    from agreebound.render.report import plan_text

    result = {g.name: {True: "pass", False: "FAIL", None: "not checked"}[g.passed] for g in gates}
    a, s = d["alpha"], d["spread"]
    floor, cap = p["alpha_floor_permil"], p["ratio_cap_permil"]
    if a["defined"]:
        iv = a["interval"]
        interval = "" if iv.get("low") is None else \
            f'<br><span class="small">95% interval [{iv["low"]:.3f}, {iv["high"]:.3f}]' + \
            ("" if iv.get("method") == "units" else " (pairs, KALPHA: narrower than 95% when units have 3+ ratings)") + \
            "</span>"
        alpha = (f'{_dec(a["exact"])} <span class="small">= {_t(a["exact"], 60)}, {a["permil"]} permil</span>'
                 f"{interval}")
        if plan := plan_text(a.get("plan"), "alpha"):
            alpha += f'<br><span class="small">{_t(plan, 400)}</span>'

    else:
        alpha = "undefined"
    if s["state"] == "bounded":
        spread = f'{_dec(s["exact"], 2)}x <span class="small">= {_t(s["exact"], 60)}, {s["permil"]} permil</span>'
        if s.get("bracket95"):
            lo, hi = s["bracket95"]
            spread += f'<br><span class="small">95% bracket [{lo:.2f}x, {"unbounded" if hi is None else f"{hi:.2f}x"}]</span>'
    else:
        spread = _t(s["state"], 40)
    rows = [
        ["independent detectors", str(d["ndet"]), "at least 2", _result(result["detectors"])],
        [f"alpha ({_t(a['level'], 20)})", alpha, f"at least {floor / 1000:.3f} ({floor} permil)",
         _result(result["alpha"])],
        ["detector spread (max / min rate)", spread, f"at most {cap / 1000:.2f}x ({cap} permil)",
         _result(result["spread"])],
    ]
    return _table(f"Gates for {_t(d['dimension'], 60)}", ["gate", "value", "threshold", "result"], rows,
                  [25, 34, 25, 16], small=True)


def _coefficients_html(i: int, section: dict[str, Any]) -> str:
    """The coefficients beside alpha: what explains the gap, the table, pairs and categories."""
    from agreebound.render.report import coefficient_rows

    from agreebound.render.report import LISTED_PAIRS

    rows = [[_t(r[0], 60)] + [_t(x, 60) for x in r[1:]] for r in coefficient_rows(section)]
    out = [f'<h3 id="dim-{i}-coefficients">Other coefficients (beside alpha; they do not decide)</h3>',
           _list(_t(t, 1000) for t in section["explanation"])]
    if not section["table"]:
        return "\n".join(out)
    out += [
           _table("Agreement coefficients, exact, with Gwet's 95% intervals",
                  ["coefficient", "value", "exact", "95% interval", "agreement", "chance"], rows,
                  [23, 9, 21, 19, 15, 13], numeric=(1, 4, 5), small=True)]
    if section["pairs"]:
        pairs = [[f"{_t(p['a'], 40)} / {_t(p['b'], 40)}", f"{p['shared_units']:,}", _dec(p["agreement"]),
                  _dec(p["cohen_kappa"])] for p in section["pairs"][:LISTED_PAIRS]]
        out.append(_table("Each pair of raters, on the units both rated",
                          ["pair", "units", "agreement", "Cohen's kappa"], pairs, [44, 12, 20, 24],
                          numeric=(1, 2, 3), small=True))
        if len(section["pairs"]) > LISTED_PAIRS:
            out.append(f'<p class="note">The first {LISTED_PAIRS} of {len(section["pairs"]):,} pairs are listed '
                       "(every pair is in the JSON report).</p>")
    cats = [[_t(c["category"], 40), f"{float(Fraction(c['share'])):.1%}", _dec(c["specific_agreement"])]
            for c in section["categories"][:LISTED_CATEGORIES]]
    out.append(_table("Per category: its share of the values, and how often a second rater agrees on it",
                      ["category", "share", "specific agreement"], cats, [50, 25, 25], numeric=(1, 2), small=True))
    if len(section["categories"]) > LISTED_CATEGORIES:
        out.append(f'<p class="note">The first {LISTED_CATEGORIES} of {len(section["categories"]):,} categories are '
                   "listed (every category is in the JSON report).</p>")
    return "\n".join(out)


def _panel_dimension(i: int, d: dict[str, Any], p: dict[str, Any], charts: list[str], gates: tuple[Gate, ...]) -> str:
    items = [_t(r["message"], 400) for r in d["reasons"]] or ["every check passed"]
    if d["spread"]["state"] == "not measured":
        items.append("spread not checked: no detector rates (choose a positive category or give a rates file)"
                     + ("" if d.get("positive_suggestion") is None
                        else f"; try the positive category {_t(d['positive_suggestion'], 40)}"))
    if d["seed_disagrees"]:
        items.append(f"the specification's integer formula ({_t(d['seed_path'], 300)}) would decide "
                     f"{html.escape(d['seed_verdict'])}")
    items += [f"note: {_t(n, 400)}" for n in d.get("notices", [])]
    lv = d["level"]
    others = ", ".join(f"{_t(k, 20)} {_dec(v)}" for k, v in lv["alpha_at_levels"].items() if k != d["alpha"]["level"])
    why = _t(lv["chosen_reason"], 300) + ("" if lv["suggested"] == lv["in_force"] else
                                         f"; suggested {_t(lv['suggested'], 20)}: {_t(lv['reason'], 300)}")
    facts = [f"level of measurement {_t(lv['in_force'], 20)}, {_t(LEVEL_ORIGIN_WORDS[lv['chosen_by']], 20)} ({why})"
             + (f"; alpha at the other levels: {others}" if others else ""),
             f"{d['units']:,} units, {d['ratings']:,} ratings; detectors: {_names(d['detectors'])}; "
             f"people: {_names(d['humans'])}"]
    if d.get("rates_source"):
        facts.append(f"detector rates: {_t(d['rates_source'], 120)}")
    if d.get("kind") == "label":
        cats = d["categories"]
        more = f", and {cats['total'] - len(cats['listed']):,} more" if cats["total"] > len(cats["listed"]) else ""
        facts.append(f"categories ({cats['total']:,}): "
                     + ", ".join(f"{_t(c['category'], 40)} ({c['count']:,})" for c in cats["listed"]) + more)
        facts += [f"check: {_t(f, 300)}" for f in cats.get("flags", [])]
    depends = f"<p><strong>Depends on the level</strong>: {_t(lv['note'], 400)}.</p>\n" if lv["note"] else ""
    body = (f"<p>{_verdict(d['verdict'])} {_t(level_phrase(lv['in_force'], lv['chosen_by']), 80)}: "
            f"{html.escape(_MEANING.get(d['verdict'], ''))}</p>\n{depends}"
            f"{_panel_gates(d, p, gates)}\n<h3 id=\"dim-{i}-why\">Why</h3>\n{_list(items)}\n"
            f"<h3 id=\"dim-{i}-facts\">What was measured</h3>\n{_list(facts)}\n" + "\n".join(charts)
            + (_coefficients_html(i, d["coefficients"]) if d.get("coefficients") else ""))
    return _section(f"dim-{i}", f"Dimension {_t(d['dimension'], 60)}: {html.escape(d['verdict'])} at "
                    f"{_t(lv['in_force'], 20)}", body)


def panel_html(measurements: dict[str, PanelMeasurement], thresholds: ThresholdSet, report: dict[str, Any]) -> str:
    """The summary table lists every dimension; details and charts follow for at most
    DETAIL_DIMENSIONS dimensions (the worst verdicts first), as in the Markdown report."""
    p = report["thresholds"]["panel"]
    dims = report["panel"]["dimensions"]
    decided = [(m, decide_panel(m, thresholds.panel, thresholds.source)) for m in measurements.values()]
    by_name = {m.dimension: (m, d) for m, d in decided}
    pairs = list(zip(dims, decided)) if len(decided) == len(dims) else [(d, by_name.get(d["dimension"])) for d in dims]
    detailed = sorted(range(len(pairs)), key=lambda k: SEVERITY.get(pairs[k][0]["verdict"], 0))[:DETAIL_DIMENSIONS]
    data = _data_name(report)
    rows = []
    for d in dims:
        a, s = d["alpha"], d["spread"]
        iv = a["interval"]
        interval = f"[{iv['low']:.3f}, {iv['high']:.3f}]" if a["defined"] and iv.get("low") is not None else "none"
        spread = f"{_dec(s['exact'], 2)}x" if s["state"] == "bounded" else _t(s["state"], 40)
        lv = d["level"]
        level = _t(lv["in_force"], 20) + (" (depends on the level)" if lv["depends_on_level"] else "")
        rows.append([_t(d["dimension"], 60), _verdict(d["verdict"]), level,
                     _dec(a["exact"]) if a["defined"] else "undefined", interval, spread, str(d["ndet"])])
    strict = ", strict: gates on the 95% bounds" if p.get("strict") else ""
    summary = (f"<p>Overall {_verdict(report['panel']['verdict'])} over {len(dims):,} dimension"
               f"{'s' if len(dims) != 1 else ''}: alpha floor {p['alpha_floor_permil'] / 1000:.3f} "
               f"({p['alpha_floor_permil']} permil), spread cap {p['ratio_cap_permil'] / 1000:.2f}x "
               f"({p['ratio_cap_permil']} permil){strict}.</p>\n"
               + _table("Every dimension", ["dimension", "verdict", "level", "alpha", "95% interval", "spread",
                                            "detectors"], rows, [18, 16, 14, 10, 16, 14, 12], numeric=(3, 6)))
    if len(dims) > len(detailed):
        summary += (f"<p class=\"note\">Details follow for the {len(detailed)} dimensions with the worst verdicts; "
                    f"the table above lists all {len(dims):,}.</p>")
    sections = [_section("summary", "Summary", summary)]
    n = 0
    for i, k in enumerate(detailed):
        d, md = pairs[k]
        charts = []
        if md is not None:
            m, dec = md
            name = _t(d["dimension"], 60)
            if m.alpha.value is not None:
                fig = _fit(figures.alpha_bullet(m, dec))
                charts.append(_chart(fig, n, f"{name}: alpha against the floor", _caption(
                    fig, "The diamond is alpha, the vertical line the floor, the grey bar alpha's 95% interval, the "
                         "shaded zone the values at or above the floor."), _slug(data, d["dimension"], "alpha")))
                n += 1
            if m.rates:
                longest = max(len(printable(r.detector, 60)) for r in m.rates)
                # a long name is drawn slanted below the axis: the figure grows by about its height
                fig = _fit(figures.rates_interval(m, dec), int(3.4 * min(longest, 90)) if longest > 12 else 0)
                charts.append(_chart(fig, n, f"{name}: detector rates with Wilson 95% intervals", _caption(
                    fig, "Each detector's positive rate with its Wilson 95% interval; the band is where every rate "
                         "would have to lie for the spread to stay under the cap."), _slug(data, d["dimension"], "rates")))
                n += 1
        # the decided gates; a dimension without its measurement here is read back from the report
        gates = md[1].gates if md is not None else gates_from_report(d, p)
        sections.append(_panel_dimension(i, d, p, charts, gates))
    read = report.get("read")
    extra = ""
    if read:
        from agreebound.render.report import rows_read_text

        rows = f", {_t(rows_read_text(read['rows']), 120)}" if read.get("rows") else ""
        extra = (f"<p>Read as {_t(read['format'], 40)}, {_t(read['mapping'].get('layout'), 20)} layout{rows}.</p>"
                 + _list(_t(r, 300) for r in read.get("reasons", [])))
    sections.append(_inputs_section(report, extra))
    return _page("Agreebound panel report", data, report["panel"]["verdict"], sections, n)


# --- judge -------------------------------------------------------------------------------------


def _rate_label(name: str) -> str:
    return RATE_LABELS.get(name) or name.replace("_", " ").capitalize()


def _judge_rows(c: dict[str, Any]) -> list[list[str]]:
    rows = []
    given = c.get("contract_origin", "given") == "given"
    for r in c["rates"]:
        op = "at least" if r["kind"] == "min" else "at most"
        threshold = f"{op} {r['threshold_bps'] / 100:.2f}% ({r['threshold_bps']:,} bps)"
        why = ""
        if r.get("unavailable"):
            measured, state = "none", "not evaluable"
            why = f'<br><span class="small">{_t(r["unavailable"], 300)}</span>'
        elif not r["evaluable"]:
            measured, state = "none", "not evaluable (no opportunities)"
        else:
            measured = (f"{r['bps'] / 100:.2f}% <span class=\"small\">= {r['numerator']:,}/{r['denominator']:,}, "
                        f"{r['bps']:,} bps</span>")
            state = "pass" if r["passed"] else "FAIL"
            if not given:  # against a limit that is not a contract: words, never a verdict's colour
                state = "within the limit" if r["passed"] else "outside the limit"
        iv, w = r.get("interval95"), r.get("wilson95")
        if r.get("unavailable") or not (iv or w):
            interval = "none"
        elif iv:  # case-aware: a case's observations are one cluster
            interval = f"[{_pct(iv[0], 2)}, {_pct(iv[1], 2)}]"
            said = [f"{r['cases']:,} cases" if r.get("cases") is not None else "",
                    f"{r['observations']:,} observations" if r.get("observations") is not None else "",
                    f"design effect {r['design_effect']:.3g}" if r.get("design_effect") is not None else ""]
            if any(said):
                interval += f'<br><span class="small">{", ".join(x for x in said if x)}</span>'
        else:
            interval = f"[{_pct(w[0], 2)}, {_pct(w[1], 2)}]"
        if r.get("bound_passed") is not None:
            interval += f'<br><span class="small">bound gate: {"pass" if r["bound_passed"] else "FAIL"}</span>'
        from agreebound.render.report import flip_words, plan_text

        flip = r.get("cases_to_flip") or {}
        flip_text = "" if not flip or flip.get("direction") == "not evaluable" or not r["evaluable"] \
            or r.get("unavailable") else f'<br><span class="small">{_t(flip_words(flip, given), 60)} (cases)</span>'
        plan = plan_text(r.get("plan")) if r["evaluable"] and not r.get("unavailable") else None
        plan_html = f'<br><span class="small">{_t(plan, 400)}</span>' if plan else ""
        rows.append([html.escape(_rate_label(r["name"])), measured, interval, threshold,
                     _result(state) + why + flip_text + plan_html])
    return rows


def _bias_html(bias: dict[str, Any], net_gates: list[dict[str, Any]]) -> str:
    """The measures beside the gates that tell bias from general disagreement, and the verdict's reading."""
    from agreebound.render.report import bias_measures, bias_said, measure_interval, measure_value

    rows = []
    for m in bias_measures(bias):
        interval = measure_interval(m) or "none"
        if m.get("interval95") and m.get("interval_method"):
            interval += f'<br><span class="small">{_t(m["interval_method"], 200)}</span>'
        test = "" if m.get("p_value") is None else f'<br><span class="small">p = {m["p_value"]:.2g}</span>'
        rows.append([_t(m["title"], 80), f"{measure_value(m)}<br><span class=\"small\">= {_t(m['fraction'], 80)}"
                     f"</span>{test}", interval, _t(m.get("unavailable") or m["definition"], 300)])
    body = _table("Measures beside the gates (not gates unless the contract gates on them)",
                  ["measure", "measured", "95% interval", "what it counts"], rows, [22, 22, 26, 30], small=True)
    said = bias_said(bias)
    body += _list(_t(x, 400) for x in said) if said else ""
    notes = list(bias.get("verdict_notes", [])) + [
        f"Contract gate {g['name']} (at most {g['threshold_bps'] / 100:g} points): "
        + ("not evaluable" if not g["evaluable"] else "pass" if g["passed"] else "FAIL") for g in net_gates]
    if notes:
        body += "<h3>What the verdict rests on</h3>" + _list(_t(x, 400) for x in notes)
    return body


def _headline_html(headline: dict[str, Any]) -> str:
    """Each model pair's win rate: the judge's alone, corrected by the human labels, the humans'."""
    from agreebound.render.report import headline_rows

    body = f"<p>{_t(headline['note'], 800)}</p>"
    rows = headline_rows(headline)
    if rows:
        body += _table("Win rate of the first model of each pair", ["model pair", "judge only", "corrected",
                                                                    "human only", "labelled / unlabelled",
                                                                    "judge off by"],
                       [[_t(x, 200) for x in row] for row in rows], [24, 15, 17, 15, 14, 15], small=True)
        body += _list(_t(p["sentence"], 600) for p in headline["pairs"])
    return body + f'<p class="note">Method: {_t(headline["method"], 400)}.</p>'


def calibration_html(bundle: JudgeBundle, thresholds: ThresholdSet, report: dict[str, Any]) -> str:
    d = decide(bundle.measurement, thresholds.calibration)
    c = report["calibration"]
    data = _data_name(report)
    if c.get("contract_origin", "given") == "given":
        against = (f"against the {_t(c['decided_against']['kind'], 20)} contract "
                   f"<code>{_t(c['decided_against']['content_id'], 120)}</code>")
    else:  # no contract: measured against a draft from the log, never decided
        against = (f"({_t(c['decision_reason'], 120)}): measured against {_t(c['contract_source'], 120)}, drafted "
                   f"from the log as <code>{_t(c['decided_against']['content_id'], 120)}</code>; give the contract "
                   "for a decision")
    summary = (f"<p>{_verdict(c['decision'])} {against}.</p>\n"
               f"<p>{c['cases']:,} cases, {c['observations']:,} observations; scope "
               f"<code>{_t(c['snapshot']['scope'], 120)}</code>.</p>\n"
               + _table("Every gate of the contract" if c.get("contract_origin", "given") == "given" else
                        f"Every gate, against {_t(c['contract_source'], 120)}",
                        ["gate", "measured", "95% interval", "threshold", "result"],
                        _judge_rows(c), [17, 20, 23, 18, 22], small=True))
    if any(r.get("interval95") for r in c["rates"]):
        summary += ("<p class=\"note\">95% intervals are Wilson intervals at the effective number of observations: "
                    "the observations of one case (two orders x repetitions) are not independent, so their count is "
                    "divided by the measured design effect of the cases.</p>")
    if c.get("contract_origin", "given") != "given":
        summary += f"<p>INCOMPLETE: {_t(c['decision_reason'], 200)}: not decided, this is not a pass.</p>"
    elif c["decision"] == "INCOMPLETE":
        some = any(not r.get("unavailable") for r in c["rates"])
        summary += ("<p>INCOMPLETE: " + ("every gate that could be evaluated passed, but some could not" if some
                                          else "no gate could be evaluated from this source") + ": this is not a pass.</p>")
    if c.get("seed_disagrees"):
        summary += f"<p>Seed rounding would have said {html.escape(c['seed_decision'])}.</p>"
    notes = [_t(n, 400) for n in c.get("notes", [])]
    issues = c.get("reference_issues", [])
    more = ""
    if issues:
        shown = _list(f"<code>{_t(x, 120)}</code>" for x in issues[:LISTED_CATEGORIES])
        rest = f"<p>and {len(issues) - LISTED_CATEGORIES:,} more.</p>" if len(issues) > LISTED_CATEGORIES else ""
        more = f"<details><summary>Reference issues: {len(issues):,}</summary>{shown}{rest}</details>"
    else:
        more = "<p>Reference issues: 0.</p>"
    diag = c.get("diagnostics") or {}
    facts = []
    if diag:
        aw, an = diag.get("agreement_with_ties"), diag.get("agreement_without_ties")
        if aw:
            facts.append(f"agreement with the human reference, ties included: {aw[0]:,}/{aw[1]:,}")
        if an:
            facts.append(f"agreement without ties: {an[0]:,}/{an[1]:,}")
        if diag.get("judge_human_alpha") is not None:
            facts.append(f"judge-human alpha: {_dec(diag['judge_human_alpha'])}")
        facts.append(f"position flips: {diag.get('stable_flips', 0):,} stable, {diag.get('noisy_flips', 0):,} noisy")
    details = (("<h3 id=\"notes-title\">Notes</h3>" + _list(notes) if notes else "")
               + "<h3 id=\"refs-title\">References</h3>" + more
               + ("<h3 id=\"diag-title\">Diagnostics</h3>" + _list(facts) if facts else ""))
    fig = _fit(figures.calibration_rates(d))
    summary += _chart(fig, 0, "Judge rates against the contract's thresholds", _caption(
        fig, "Each rate as a bar (in percent), the vertical mark its threshold; the table above gives the numbers."),
        _slug(data, "judge", "rates"))
    sections = [_section("summary", "Summary", summary)]
    if c.get("bias"):
        sections.append(_section("bias", "Bias or disagreement?", _bias_html(c["bias"], c.get("net_gates", []))))
    if c.get("headline"):
        sections.append(_section("headline", "The corrected headline", _headline_html(c["headline"])))
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        fig = _fit(figures.reliability_figure(c["confidence"]))
        body = _scored_confidence(c["confidence"]) + _chart(fig, 1, "Reliability diagram", _caption(
            fig, "Each bin's mean stated probability against the observed frequency, with Wilson 95% intervals."),
            _slug(data, "judge", "reliability"))
        sections.append(_section("confidence", "Stated confidence against the humans", body))
    sections.append(_section("details", "Notes and references", details))
    snap = c["snapshot"]
    extra = _table("The contract and the snapshot", ["field", "value"], widths=[25, 75], small=True, rows=[
        ["contract", f"<code>{_t(c['contract'].get('content_id'), 120)}</code>"],
        ["contract version", _t(c["contract"].get("version"), 80)],
        ["snapshot names", f"<code>{_t(snap.get('contract_content_id'), 120)}</code>"],
        ["rubric digest", f"<code>{_t(snap.get('rubric_digest'), 80)}</code>"],
    ] + ([["rebound from", f"<code>{_t(snap['rebound_from'], 120)}</code>"]] if snap.get("rebound_from") else []))
    sections.append(_inputs_section(report, extra))
    return _page("Agreebound judge calibration report", data, c["decision"], sections, 1)


# --- graded and pass/fail judges --------------------------------------------------------------


def _scored_summary(s: dict[str, Any]) -> str:
    """The decision and for whom, the judge's kind and level, what was read, every judge's decision."""
    from agreebound.render.scored import decided_for_words, level_words

    whom = html.escape(decided_for_words(s)) if s["decided_for"] == "every judge" else \
        f"the judge <code>{_t(s['decided_for'], 120)}</code>"
    rows = [[_t(a["judge"], 80), _verdict(a["decision"]), f"{a['items']:,}", f"{a['pairs']:,}",
             _t(a["decision_reason"] or "-", 300)] for a in s["audits"]]
    body = (f"<p>{_verdict(s['decision'])} for {whom}.</p>\n"
            f"<p>{_t(s['kind_words'], 200)}. Level: {_t(level_words(s), 120)} (alpha and weighted kappa at this "
            "level).</p>\n"
            f"<p>Read as {_t(s['shape'], 80)}: <code>{_t(s['file'], 120)}</code>, {s['items']:,} items; judges: "
            f"{_names(s['judges'])}; humans: {_names(s['humans'])}.</p>\n"
            + _table("Every judge's decision", ["judge", "decision", "items", "pairs", "why not decided"],
                     rows, [24, 24, 12, 12, 28], numeric=(2, 3), small=True))
    if s["decision"] == "INCOMPLETE":
        body += "<p>INCOMPLETE: some gate could not be evaluated: this is not a pass.</p>"
    return body


def _scored_gates(a: dict[str, Any]) -> str:
    """One judge's two gates: value, 95% interval, threshold, result in words, fragile and plan."""
    from agreebound.render.scored import gate_interval, gate_notes, gate_result, gate_threshold, gate_value

    rows = []
    for g in a["gates"]:
        word = "pass" if g["passed"] else "FAIL" if g["evaluable"] else "not evaluable"
        said = gate_result(g)
        extra = said[len(word):].lstrip(": ")
        notes = "".join(f'<br><span class="small">{_t(n, 500)}</span>' for n in ([extra] if extra else [])
                        + gate_notes(g))
        rows.append([_t(g["title"], 120), gate_value(g), gate_interval(g), _t(gate_threshold(g), 80),
                     _result(word) + notes])
    return _table("The gates (each judge must pass both)", ["gate", "measured", "95% interval", "threshold", "result"],
                  rows, [26, 12, 18, 20, 24], small=True)


def _scored_alpha(a: dict[str, Any]) -> str:
    from agreebound.render.scored import alpha_rows, pair_rows

    body = _table("The judge against the humans, the humans against each other (alphas of pooled pairs)",
                  ["alpha", "value", "95% interval", "over"], [[_t(c, 400) for c in r] for r in alpha_rows(a)],
                  [26, 12, 18, 44], small=True)
    return body + _table("Each pair of raters", ["rater", "rater", "items both rated", "alpha"],
                         [[_t(c, 80) for c in r] for r in pair_rows(a)], [32, 32, 18, 18], numeric=(2, 3), small=True)


def _scored_measures(a: dict[str, Any]) -> str:
    from agreebound.render.scored import measure_rows

    rows = [[_t(r[0], 120), _t(r[1], 40) + (f'<br><span class="small">= {_t(r[3], 80)}</span>' if r[3] != "-" else ""),
             _t(r[2], 40) + (f'<br><span class="small">{_t(r[4], 200)}</span>' if r[4] != "-" else ""), _t(r[5], 400)]
            for r in measure_rows(a)]
    return _table("Measures beside the gates (they do not decide)", ["measure", "measured", "95% interval",
                                                                      "what it counts"], rows, [24, 18, 26, 32],
                  small=True)


def _scored_confidence(c: dict[str, Any]) -> str:
    from agreebound.render.scored import bin_rows, confidence_lines

    return (_list(_t(x, 600) for x in confidence_lines(c))
            + _table("The reliability diagram's bins", ["stated (mean)", "observed",
                                                        "95% interval (Wilson)", _t(c.get("unit", "items"), 10)],
                     [[_t(x, 40) for x in r] for r in bin_rows(c)], [25, 25, 30, 20], numeric=(1, 3), small=True))


def _scored_judge(k: int, a: dict[str, Any], data: str, first_chart: int) -> tuple[str, int]:
    """One judge's section and how many charts it drew (numbered from ``first_chart``)."""
    name = _t(a["judge"], 60)
    n = first_chart
    body = f"<p>{a['items']:,} items with the judge's score and a human's; {a['pairs']:,} judge-human pairs.</p>\n"
    if a["decision_reason"]:
        body += f"<p>Not decided, this is not a pass: {_t(a['decision_reason'], 400)}.</p>\n"
    body += _scored_gates(a) + "<h3>Alpha</h3>" + _scored_alpha(a) + "<h3>Measures beside the gates</h3>" \
        + _scored_measures(a)
    if a["table"]["values"]:
        fig = _fit(figures.score_heatmap(a["table"], a["judge"]))
        body += _chart(fig, n, f"{name}: its scores against the humans'", _caption(
            fig, "Judge score (rows) against human score (columns); agreement on the outlined diagonal."),
            _slug(data, a["judge"], "scores"))
        n += 1
    if a["confidence"]:
        body += "<h3>Stated confidence against the humans</h3>" + _scored_confidence(a["confidence"])
        fig = _fit(figures.reliability_figure(a["confidence"]))
        body += _chart(fig, n, f"{name}: reliability diagram", _caption(
            fig, "Each bin's mean stated probability against the observed frequency, with Wilson 95% intervals."),
            _slug(data, a["judge"], "reliability"))
        n += 1
    return _section(f"judge-{k}", f"Judge {name}: {html.escape(a['decision'])}", body), n - first_chart


def _scored_panel(p: dict[str, Any]) -> str:
    from agreebound.render.scored import panel_alpha, panel_rows

    body = f"<p>Alpha among the judges: {_t(panel_alpha(p), 120)}.</p>"
    if p["without"]:
        body += _table("Each judge left out in turn", ["judge left out", "alpha of the others"],
                       [[_t(j, 80), v] for j, v in panel_rows(p)], [60, 40], numeric=(1,), small=True)
    drop = f"<code>{_t(p['drop'], 120)}</code>" if p["drop"] else "none"
    return body + f"<p>Which judge to drop: {drop}: {_t(p['why'], 300)}.</p>"


def _scored_details(s: dict[str, Any]) -> str:
    """Identity, how scores were written, notes, and the thresholds with their source and citations."""
    from agreebound.render.scored import value_label

    body = ""
    if s["identity"]:
        body += _table("What ties the result to the judge and rubric", ["field", "value"],
                       [[_t(k, 60), f"<code>{_t(v, 300)}</code>"] for k, v in s["identity"].items()], [25, 75],
                       small=True)
    if s["labels"]:
        body += "<p>Scores as written: " + ", ".join(_t(value_label(float(k), s["labels"]), 80)
                                                     for k in s["labels"]) + ".</p>"
    if s["notes"]:
        body += "<h3>Notes</h3>" + _list(_t(n, 600) for n in s["notes"])
    rows = [[_t(k, 60), f"{v:,}", _t(s["citations"][k], 800)] for k, v in s["thresholds"].items() if k in s["citations"]]
    if s["thresholds"].get("strict"):
        rows.append(["strict", "on", "a gate passes only when its 95% interval's lower bound passes too"])
    body += (f"<h3>Thresholds</h3><p>Source: {_t(s['threshold_source'], 120)}.</p>"
             + _table("Thresholds in force, with their citations", ["threshold", "permil", "why this value"],
                      rows, [28, 12, 60], numeric=(1,), small=True))
    return body


def scored_html(report: dict[str, Any]) -> str:
    """A graded or pass/fail judge's report (kind "scored") as a self-contained page: the same sections
    as its Markdown (agreebound.render.scored.scored_markdown), with each judge's score table and
    reliability diagram drawn."""
    s = report["scored"]
    data = _data_name(report)
    sections = [_section("summary", "Summary", _scored_summary(s))]
    charts = 0
    for k, a in enumerate(s["audits"]):
        section, drawn = _scored_judge(k, a, data, charts)
        sections.append(section)
        charts += drawn
    if s["panel"]:
        sections.append(_section("panel", "The panel of judges", _scored_panel(s["panel"])))
    sections.append(_section("details", "Identity, notes and thresholds", _scored_details(s)))
    sections.append(_inputs_section(report))
    kind = "pass/fail" if s["judge_kind"] == "binary" else "graded"
    return _page(f"Agreebound {kind} judge report", data, s["decision"], sections, charts, SCORED_MEANING[s["decision"]])


#: A graded or pass/fail judge's decision in words (no contract: the gates are against the humans).
SCORED_MEANING = {
    "PASS_CALIBRATION": "every judge decided agrees with the humans about as well as they agree with each other, "
                        "and above the floor",
    "FAIL_CALIBRATION": "a judge agrees with the humans less than they agree with each other (beyond the margin), "
                        "or below the floor",
    "INCOMPLETE": "not decided: a gate could not be evaluated (it needs two or more humans on shared items, or "
                  "human labels on the judge's items); this is not a pass"}
