"""The History page's control bands: one data set's runs charted against a baseline run the user
pins (agreebound.app.control_bands over agreebound.core.control), per gating number a chart of the
values with the band (the control limits on the value's own scale), the baseline, the chart's
statistic on the same scale, and the runs in alarm marked; a sentence per alarm. No baseline
pinned: no band, and it is said (a band is never estimated from the runs it judges)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import plotly.graph_objects as go
import streamlit as st

from agreebound.app.control_bands import NOT_PINNED, Band, Bands, BandsError, control_bands
from agreebound.core.control import ALARM_HIGH, METHODS, ControlSettings
from agreebound.core.escape import html_text, md_text
from agreebound.render.figure_style import caption, finish, legend_bottom, palette
from agreebound.ui import gates
from agreebound.ui.history_tables import choice
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.app.store import Run

METHOD_WORDS = {"ewma": "EWMA (smoothed)", "cusum": "CUSUM (accumulated)"}


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def band_figure(band: Band, bands: Bands, *, dark: bool = False, name: str = "") -> go.Figure:
    """One gating number over the charted runs: the values (95% intervals as bars), the band of
    control limits, the baseline, the chart's statistic on the value's scale, the alarms marked."""
    p = palette(dark)
    scale = 100.0 if band.unit == "%" else 1.0
    method = bands.settings.method
    base_run = bands.baseline_run
    assert base_run is not None and band.baseline is not None
    fig = go.Figure()
    xs = [_time(r.created_utc) for r in band.runs]
    ids = [[r.id] for r in band.runs]

    def at(values: list[float | None]) -> list[float | None]:
        return [None if v is None else v * scale for v in values]

    fig.add_trace(go.Scatter(x=xs, y=at([q.upper for q in band.points]), mode="lines", line=dict(width=0),
                             hoverinfo="skip", showlegend=False, connectgaps=False))
    fig.add_trace(go.Scatter(x=xs, y=at([q.lower for q in band.points]), mode="lines", fill="tonexty",
                             fillcolor=p.zone, line=dict(width=1, color=p.muted), name="control band",
                             hovertemplate="band %{y:.3f}<extra></extra>", connectgaps=False))
    fig.add_trace(go.Scatter(x=xs, y=at([q.upper for q in band.points]), mode="lines", showlegend=False,
                             line=dict(width=1, color=p.muted), hovertemplate="band %{y:.3f}<extra></extra>",
                             connectgaps=False))
    fig.add_hline(y=band.baseline.mean * scale, line=dict(color=p.threshold, width=1.5, dash="dash"))
    fig.add_trace(go.Scatter(x=[_time(base_run.created_utc)], y=[band.baseline.mean * scale], mode="markers",
                             marker=dict(symbol="diamond", size=12, color=p.threshold), name="baseline run",
                             customdata=[[base_run.id]], hovertemplate="baseline %{y:.3f}<br>run %{customdata[0]}"
                                                                       "<extra></extra>"))
    statistic = "smoothed value (EWMA)" if method == "ewma" else "accumulated excess (CUSUM)"
    fig.add_trace(go.Scatter(x=xs, y=at([q.level_high for q in band.points]), mode="lines",
                             line=dict(color=p.neutral, width=2, dash="dot"), name=statistic, connectgaps=False,
                             hovertemplate=f"{statistic} %{{y:.3f}}<extra></extra>"))
    if method == "cusum":
        fig.add_trace(go.Scatter(x=xs, y=at([q.level_low for q in band.points]), mode="lines", showlegend=False,
                                 line=dict(color=p.neutral, width=2, dash="dot"), connectgaps=False,
                                 hovertemplate="accumulated shortfall (CUSUM) %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=xs, y=at([q.value for q in band.points]), mode="lines+markers", name="value",
                             line=dict(color=p.text, width=1.5), marker=dict(size=8, color=p.text),
                             customdata=ids, connectgaps=False,
                             hovertemplate="value %{y:.3f}<br>run %{customdata[0]}<extra></extra>"))
    alarms = band.alarms()
    if alarms:
        fig.add_trace(go.Scatter(
            x=[_time(r.created_utc) for r, _ in alarms], y=at([q.value for _, q in alarms]), mode="markers",
            name="alarm", customdata=[[r.id, "high" if q.state == ALARM_HIGH else "low"] for r, q in alarms],
            marker=dict(symbol="x", size=15, color=p.failed, line=dict(width=1, color=p.failed)),
            hovertemplate="alarm (%{customdata[1]}) %{y:.3f}<br>run %{customdata[0]}<extra></extra>"))
    if band.unit == "%":
        fig.update_yaxes(ticksuffix="%")
    fig.update_layout(legend=legend_bottom(), showlegend=True, hovermode="closest", clickmode="event+select")
    fig.update_xaxes(title_text="recorded (UTC)")
    words = "smoothed value" if method == "ewma" else "accumulated excess or shortfall"
    cap = (f"{len(band.runs):,} run{'' if len(band.runs) == 1 else 's'} after the baseline run. The shaded band is the "
           f"control limits on the value's scale; the dotted line is the chart's {words}: a run is in alarm (a red "
           "cross) when the dotted line leaves the band, not the value itself. The dashed line is the baseline, the "
           "pinned run's value.")
    title = f"{html_text(band.title, 60)}: control band" + (f" ({html_text(name, 40)})" if name else "")
    return finish(fig, p, height=360, title=title, caption_text=cap, bottom=10)


def _baseline_pick(of_data: list[Run], kind: str) -> Run | None:
    by_id = {r.id: r for r in of_data}
    key = K.BAND_BASELINE.format(kind)
    if session.widget(key) not in (None, *by_id):
        session.set_widget(key, None)  # a filter left the pinned run out: nothing is pinned
    picked = st.selectbox("Baseline run (pinned)", [None, *by_id], key=key,
                          format_func=lambda i: "no baseline pinned" if i is None else choice(by_id[i]),
                          help="Every run recorded after it is charted against its value and its 95% interval. "
                               "A baseline is never estimated from the runs it judges: a drift would move it.")
    return by_id.get(picked) if picked else None


def draw(of_data: list[Run], name: str, kind: str) -> None:
    """The control bands of one data set's runs of one kind (the History page, under its timeline)."""
    st.markdown(f"**Control bands** ({md_text(name, 60)}, {kind})")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    with c1:
        baseline = _baseline_pick(of_data, kind)
    method = c2.selectbox("Chart", METHODS, key=K.BAND_METHOD.format(kind), format_func=METHOD_WORDS.__getitem__)
    if baseline is None:
        st.caption(md_text(NOT_PINNED, 300))
        return
    try:
        bands = control_bands(of_data, baseline, ControlSettings(method or "ewma"))
    except BandsError as e:
        st.warning(md_text(str(e), 300))
        return
    (st.error if bands.newest_in_alarm else st.info)(md_text(bands.headline(), 600))
    for sentence in bands.sentences():
        st.markdown("- " + md_text(sentence, 400))
    for note in bands.notes():
        st.caption(md_text(note, 400))
    charted = [b for b in bands.bands if b.baseline is not None and b.runs]
    for i, band in enumerate(charted):
        fig = band_figure(band, bands, dark=gates.dark(), name=name)
        st.plotly_chart(fig, width="stretch", config=gates.PLOT_CONFIG, key=K.BAND_CHART.format(kind, i))
        st.caption(caption(fig))

