"""The slices' figure: a heatmap of slice x gate coloured by what agreebound.judge.slices.decide_slices
decided for each cell (it compares nothing itself), the rate and the adjusted p written in the cell."""

from __future__ import annotations

import plotly.graph_objects as go

from agreebound.core.escape import html_text
from agreebound.judge.slices import FAIL, OVER, PASS, SliceDecision, p_text
from agreebound.render.figure_style import finish, palette
from agreebound.render.gates import RATE_LABELS

#: Each decided status's row in the colour scale (no verdict: a gap, drawn neutral).
_LEVEL = {PASS: 0, OVER: 1, FAIL: 2}


def slices_heatmap(d: SliceDecision, *, dark: bool = False) -> go.Figure:
    """Slice (rows) x gate (columns): passes, fails as measured but not confirmed, confirmed
    failure; a cell without a verdict (too few cases, not evaluable) is neutral. Slice values are
    user text: escaped."""
    p = palette(dark)
    rows = [html_text(v, 40) for v in d.values]
    columns = [RATE_LABELS[g] for g in d.gates]
    z, text = [], []
    for v in d.values:
        z_row, t_row = [], []
        for g in d.gates:
            c = d.cell(v, g)
            level = _LEVEL.get(c.status)
            z_row.append(-1 if level is None else level)
            if c.gate.exact is None or level is None:
                t_row.append(c.status)
            else:
                t_row.append(f"{float(c.gate.exact) * 100:.1f}%<br>p {p_text(c.adjusted_p)}"
                             + (("<br><b>FAIL</b>" if d.decisions[v].contract_given else "<br><b>OUTSIDE</b>")
                                if c.status == FAIL else ""))  # no contract: a limit's side, never a FAIL
        z.append(z_row)
        text.append(t_row)
    scale = [[0.0, p.zone], [0.25, p.zone], [0.25, p.pass_region], [0.5, p.pass_region], [0.5, p.fail_region],
             [0.75, p.fail_region], [0.75, p.failed], [1.0, p.failed]]
    fig = go.Figure(go.Heatmap(z=z, x=columns, y=rows, text=text, texttemplate="%{text}", zmin=-1.5, zmax=2.5,
                               colorscale=scale, showscale=False, xgap=2, ygap=2, hoverinfo="text"))
    fig.update_yaxes(autorange="reversed", tickfont=dict(color=p.text))
    fig.update_xaxes(side="top", tickfont=dict(color=p.text))
    return finish(fig, p, height=140 + 48 * len(rows), title=f"Every gate by {html_text(d.column, 40)}",
                  caption_text="")
