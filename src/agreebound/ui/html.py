"""The self-contained HTML report: the Markdown report's content with the dashboard's figures,
plotly.js inlined once, every user string escaped. Opening it makes no network request."""

from __future__ import annotations

import html
from typing import Any

import plotly.graph_objects as go

from agreebound.analysis import PanelMeasurement, decide_panel
from agreebound.calibration import decide
from agreebound.escape import html_text
from agreebound.formats import JudgeBundle
from agreebound.limits import DETAIL_DIMENSIONS
from agreebound.report import to_markdown
from agreebound.thresholds import ThresholdSet
from agreebound.ui import figures

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #212121; line-height: 1.45; }
pre { background: #f5f5f5; padding: 1rem; overflow-x: auto; white-space: pre-wrap; }
.verdict { padding: .6rem 1rem; border-radius: .4rem; font-weight: 600; display: inline-block; }
.ENFORCE, .PASS_CALIBRATION { background: #e8f5e9; color: #1b5e20; }
.REPORT_ONLY { background: #fff8e1; color: #7a5c00; }
.REFUSE_SINGLE, .FAIL_CALIBRATION { background: #ffebee; color: #b71c1c; }
"""


def _figures_html(figs: list[go.Figure]) -> str:
    parts = []
    for i, fig in enumerate(figs):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(i == 0), include_mathjax=False,
                                 config={"displaylogo": False}))
    return "\n".join(parts)


def _page(title: str, verdicts: list[tuple[str, str]], report: dict[str, Any], figs: list[go.Figure]) -> str:
    badges = "\n".join(f'<p><span class="verdict {v if v in _SEVERITY or v.endswith("CALIBRATION") else ""}">'
                       f'{html_text(label, 80)}: {html.escape(v)}</span></p>' for label, v in verdicts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n{badges}\n"
        f"{_figures_html(figs)}\n"
        f"<h2>Report</h2>\n<pre>{html.escape(to_markdown(report))}</pre>\n"
        "</body></html>\n"
    )


_SEVERITY = {"REFUSE_SINGLE": 0, "REPORT_ONLY": 1, "ENFORCE": 2}


def panel_html(measurements: dict[str, PanelMeasurement], thresholds: ThresholdSet, report: dict[str, Any]) -> str:
    """Charts for at most DETAIL_DIMENSIONS dimensions (the worst verdicts first); the report
    section below lists every dimension."""
    decided = {dim: (m, decide_panel(m, thresholds.panel)) for dim, m in measurements.items()}
    order = sorted(decided, key=lambda k: _SEVERITY[decided[k][1].verdict.value])[:DETAIL_DIMENSIONS]
    figs = []
    verdicts = [(dim, d.verdict.value) for dim, (_, d) in decided.items()][:DETAIL_DIMENSIONS]
    for dim in order:
        m, d = decided[dim]
        name = html_text(dim, 60)
        if m.alpha.value is not None:
            f = figures.alpha_bullet(m, d)
            f.update_layout(title={"text": f"{name}: alpha against the floor"})
            figs.append(f)
        if m.rates:
            f = figures.rates_interval(m, d)
            f.update_layout(title={"text": f"{name}: detector rates with Wilson 95% intervals"})
            figs.append(f)
    if len(decided) > DETAIL_DIMENSIONS:
        verdicts.append((f"and {len(decided) - DETAIL_DIMENSIONS:,} more dimensions", "see the report below"))
    return _page("Agreebound panel report", verdicts, report, figs)


def calibration_html(bundle: JudgeBundle, thresholds: ThresholdSet, report: dict[str, Any]) -> str:
    d = decide(bundle.measurement, thresholds.calibration)
    return _page("Agreebound judge calibration report", [("judge", d.decision)], report, [figures.calibration_rates(d)])
