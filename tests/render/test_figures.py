"""agreebound.render.figures on the samples, light and dark: threshold marks that contrast with the
theme, axis titles, labels that do not collide, states in words, captions."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.panel.measure import measure_panels
from agreebound.panel.decide import decide_panel
from agreebound.judge.decide import decide
from agreebound.io.detector_rates import parse_detector_rates
from agreebound.io.ratings import parse_ratings
from agreebound.app.pipeline import parse_judge_bundle
from agreebound.core.gate import evaluate
from agreebound.render.gates import GateView, judge_gates, panel_gates, view
from agreebound.core.thresholds import DEFAULT
from agreebound.render import figures as F
from agreebound.render import figure_style
from agreebound.render import gate_figures
from agreebound.judge.intervals import judge_rate_intervals

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
THEMES = [pytest.param(False, id="light"), pytest.param(True, id="dark")]


def _panel(rates: bytes | None = None, name: str = "detector_panel.csv"):
    panels = parse_ratings(name, (SAMPLES / name).read_bytes())
    if rates is None:
        r = parse_detector_rates("detector_rates.csv", (SAMPLES / "detector_rates.csv").read_bytes())
    else:
        r = parse_detector_rates("r.csv", rates)
    ms = measure_panels(panels, rates=r, rates_file="r.csv")
    return {dim: (m, decide_panel(m, DEFAULT.panel)) for dim, m in ms.items()}


@pytest.fixture(scope="module")
def panel():
    return _panel()


@pytest.fixture(scope="module")
def close_rates():
    """Three detectors within a point of each other: the lowest and highest labels nearly meet."""
    return _panel(b"detector,positives,total\ndetector-lexicon,60,600\ndetector-llm,63,600\n"
                  b"detector-classifier,61,600\n")["violence"]


@pytest.fixture(scope="module")
def undefined_alpha():
    flat = parse_ratings("flat.csv", b"unit,rater,value\n" + b"".join(
        f"u{i},r{j},1\n".encode() for i in range(5) for j in range(3)))
    m = measure_panels(flat)["all"]
    return m, decide_panel(m, DEFAULT.panel)


@pytest.fixture(scope="module")
def unmeasured_spread():
    k = parse_ratings("krippendorff_2011.csv", (SAMPLES / "krippendorff_2011.csv").read_bytes())
    m = measure_panels(k, "auto")["all"]
    return m, decide_panel(m, DEFAULT.panel)


@pytest.fixture(scope="module")
def judge():
    out = {}
    for name in ("judge_failing.json", "judge_illustrative.json"):
        b = parse_judge_bundle(name, (SAMPLES / name).read_bytes())
        d = decide(b.measurement, DEFAULT.calibration)
        gates = judge_gates("judge", d, judge_rate_intervals(b.measurement))
        out[name.split("_")[1].split(".")[0]] = (d, {g.name: g for g in gates})
    return out


def gates_of(m, d) -> dict[str, GateView]:
    return {g.name: g for g in panel_gates(m.dimension, m, d)}


def drawn_gate(domain, subject, name, label, kind, unit, value, low, high, threshold, passed, **words) -> GateView:
    """A gate's view drawn by hand: decided from these numbers (display units; rates in percent),
    shown with ``passed`` (None: not checked)."""
    scale = 100 if unit == "%" else 1

    def exact(x):
        return None if x is None else Fraction(x) / scale

    decided = evaluate(name, kind, exact(value), exact(threshold), unit=unit, state=words.pop("state", None),
                       low=None if low is None else low / scale, high=None if high is None else high / scale)
    return view(decided, domain, subject, label, passed=passed, **words)


def shapes(fig, name: str) -> list:
    return [s for s in fig.layout.shapes if s.name == name]


def annotation(fig, name: str):
    found = [a for a in fig.layout.annotations if a.name == name]
    assert len(found) == 1, [a.name for a in fig.layout.annotations]
    return found[0]


def colours_used(fig) -> set[str]:
    """Every colour a figure paints with: shapes, markers, lines, bars."""
    out: set[str] = set()
    for s in fig.layout.shapes:
        out |= {s.fillcolor, s.line.color}
    for t in fig.data:
        marker = getattr(t, "marker", None)
        if marker is not None:
            c = marker.color
            out |= set(c) if isinstance(c, (list, tuple)) else {c}
            if getattr(marker, "line", None) is not None:
                out.add(marker.line.color)
        line = getattr(t, "line", None)
        if line is not None:
            out.add(line.color)
    return out - {None}


def all_figures(panel, judge, dark: bool):
    m, d = panel["violence"]
    g = gates_of(m, d)
    jd, jg = judge["failing"]
    return {
        "alpha_bullet": F.alpha_bullet(m, d, dark=dark),
        "rates_interval": F.rates_interval(m, d, dark=dark),
        "coincidence_heatmap": F.coincidence_heatmap(m, dark=dark),
        "calibration_rates": F.calibration_rates(jd, dark=dark),
        "gate_bullet alpha": gate_figures.gate_bullet(g["alpha"], dark=dark),
        "gate_bullet spread": gate_figures.gate_bullet(g["spread"], dark=dark),
        "gate_bullet judge": gate_figures.gate_bullet(jg["position_flip"], dark=dark),
        "threshold_sweep alpha": gate_figures.threshold_sweep(g["alpha"], dark=dark),
        "threshold_sweep spread": gate_figures.threshold_sweep(g["spread"], dark=dark),
        "threshold_sweep judge": gate_figures.threshold_sweep(jg["human_agreement"], dark=dark),
    }


# --- the palette -----------------------------------------------------------------------------


def test_contrast_is_the_wcag_ratio():
    assert figure_style.contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert figure_style.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert figure_style.contrast("#777777", "#777777") == pytest.approx(1.0)
    assert figure_style.contrast("#2e7d32", "#ffffff") == pytest.approx(5.13, abs=0.01)
    with pytest.raises(ValueError):
        figure_style.contrast("rgba(0,0,0,0.5)", "#ffffff")


@pytest.mark.parametrize("dark", THEMES)
def test_palette_marks_and_verdict_colours_reach_3_to_1(dark):
    p = figure_style.palette(dark)
    assert p.dark is dark and p.background == ("#0e1117" if dark else "#ffffff")
    for colour in (p.threshold, p.passed, p.failed, p.neutral):
        assert figure_style.contrast(colour, p.background) >= 3.0, colour
    assert figure_style.contrast(p.text, p.background) >= 4.5
    assert figure_style.contrast(p.threshold, p.background) >= 14  # #212121 on white, #fafafa on #0e1117
    assert len({p.passed, p.failed, p.neutral}) == 3


def test_palettes_differ_where_the_theme_matters():
    light, dark = figure_style.palette(False), figure_style.palette(True)
    assert (light.threshold, dark.threshold) == ("#212121", "#fafafa")
    assert figure_style.contrast(light.threshold, dark.background) < 3  # the old black mark vanished in dark mode
    assert light.text != dark.text


# --- every figure ----------------------------------------------------------------------------


@pytest.mark.parametrize("dark", THEMES)
def test_every_figure_is_themed_titled_and_captioned(panel, judge, dark):
    p = figure_style.palette(dark)
    for name, fig in all_figures(panel, judge, dark).items():
        lay = fig.layout
        assert lay.paper_bgcolor == lay.plot_bgcolor == p.background, name  # a saved PNG stays readable
        assert lay.font.color == p.text and lay.title.font.color == p.text, name
        assert lay.title.text, name
        # the title starts below the modebar (which ends about 32 px from the top)
        assert round((1 - lay.title.y) * lay.height, 6) >= 30 and lay.title.yanchor == "top", name
        assert lay.margin.t >= (1 - lay.title.y) * lay.height + 14, name
        assert "toImage" not in lay.modebar.remove and "sendChartToCloud" in lay.modebar.remove, name
        assert lay.xaxis.title.text and lay.xaxis.showticklabels is not False, name
        if lay.yaxis.visible is not False:
            assert lay.yaxis.title.text, name
        text = figure_style.caption(fig)
        assert len(text) > 60 and text.endswith("."), name
        positions = [(a.xref, a.x, a.yref, a.y, a.yshift, a.xanchor, a.yanchor) for a in lay.annotations]
        assert len(positions) == len(set(positions)), name  # no two labels drawn at one spot


@pytest.mark.parametrize("dark", THEMES)
def test_threshold_marks_use_the_themes_contrasting_colour(panel, judge, dark):
    p = figure_style.palette(dark)
    for name, fig in all_figures(panel, judge, dark).items():
        if name == "coincidence_heatmap":
            continue
        if name == "calibration_rates":
            (trace,) = [t for t in fig.data if t.name == "threshold"]
            used = trace.marker.line.color
        else:
            (mark,) = shapes(fig, "threshold")
            used = mark.line.color
        assert used == p.threshold, name
        assert figure_style.contrast(used, p.background) >= 3.0, name
        assert "#212121" not in colours_used(fig) or not dark, name  # no hard-coded black in dark mode


def test_caption_of_a_foreign_figure_is_empty():
    import plotly.graph_objects as go

    assert figure_style.caption(go.Figure()) == ""


# --- gate_bullet -----------------------------------------------------------------------------


@pytest.mark.parametrize("dark", THEMES)
def test_gate_bullet_draws_the_threshold_at_the_gates_threshold(panel, judge, dark):
    m, d = panel["violence"]
    g = gates_of(m, d)
    jg = judge["failing"][1]
    cases = [(g["alpha"], "floor 0.600", "alpha (−1 to 1)"),
             (g["spread"], "cap 2.00x", "spread, max/min detector rate (x)"),
             (jg["position_flip"], "limit 5.0%", "rate (%)"),
             (jg["human_agreement"], "minimum 90.0%", "rate (%)")]
    for gate, label, axis in cases:
        fig = gate_figures.gate_bullet(gate, dark=dark)
        (mark,) = shapes(fig, "threshold")
        assert mark.x0 == mark.x1 == gate.threshold
        assert annotation(fig, "threshold label").text == label
        assert fig.layout.xaxis.title.text == axis
        assert fig.layout.title.text.replace("<br>", " ") == gate.margin
        assert gate.margin in figure_style.caption(fig)
        assert 150 <= fig.layout.height <= 200


@pytest.mark.parametrize("dark", THEMES)
def test_gate_bullet_colours_the_value_by_the_decided_flag(panel, dark):
    p = figure_style.palette(dark)
    for dim, colour in (("violence", p.failed), ("sexual", p.passed)):
        m, d = panel[dim]
        fig = gate_figures.gate_bullet(gates_of(m, d)["alpha"], dark=dark)
        (value,) = [t for t in fig.data if t.name == "measured alpha (nominal)"]
        assert value.x == (gates_of(m, d)["alpha"].value,) and value.marker.color == colour
    unchecked = drawn_gate("panel", "d", "spread", "spread", "max", "x", 1.5, 1.2, 1.9, 2.0, None)
    (value,) = [t for t in gate_figures.gate_bullet(unchecked, dark=dark).data if t.name == "measured spread"]
    assert value.marker.color == p.neutral


@pytest.mark.parametrize("dark", THEMES)
def test_gate_bullet_interval_and_axes(panel, judge, dark):
    m, d = panel["violence"]
    g = gates_of(m, d)
    fig = gate_figures.gate_bullet(g["alpha"], dark=dark)
    (band,) = [t for t in fig.data if t.name == "95% interval"]
    assert band.x == (g["alpha"].low, g["alpha"].high)
    assert annotation(fig, "interval label").text == "95% interval 0.179 to 0.295"  # the units bootstrap (the default)
    assert fig.layout.xaxis.range[0] == pytest.approx(-0.2) and fig.layout.xaxis.range[1] == pytest.approx(1.0)
    assert fig.layout.xaxis.dtick == 0.2
    spread = gate_figures.gate_bullet(g["spread"], dark=dark)
    assert spread.layout.xaxis.range == (1.0, pytest.approx(max(2.0, 3.9, g["spread"].high) * 1.15))
    assert spread.layout.xaxis.ticksuffix == "x"
    # the zone label and the threshold label sit on opposite sides of the line
    assert annotation(fig, "threshold label").xanchor == "right" and annotation(fig, "zone label").xanchor == "right"
    assert annotation(fig, "zone label").x == 1.0 and annotation(fig, "zone label").text == "meets the floor"
    jg = judge["failing"][1]
    flip = gate_figures.gate_bullet(jg["position_flip"], dark=dark)  # 11.2% against 5.0%: zoomed, not 0..100
    assert flip.layout.xaxis.range == (0.0, 25.0) and flip.layout.xaxis.ticksuffix == "%"
    assert gate_figures.gate_bullet(jg["human_agreement"], dark=dark).layout.xaxis.range == (0.0, 100.0)


@pytest.mark.parametrize("dark", THEMES)
def test_gate_bullet_unbounded_interval_runs_to_the_axis_end(dark):
    g = drawn_gate("panel", "d", "spread", "spread", "max", "x", 3.0, 2.5, None, 2.0, False)
    fig = gate_figures.gate_bullet(g, dark=dark)
    end = fig.layout.xaxis.range[1]
    (band,) = [t for t in fig.data if t.name == "95% interval"]
    assert band.x == (2.5, end)
    (arrow,) = [t for t in fig.data if t.name == "interval continues"]
    assert arrow.x == (end,) and arrow.marker.symbol == "triangle-right"
    assert annotation(fig, "interval label").text == "95% interval 2.50x to unbounded →"


@pytest.mark.parametrize("dark", THEMES)
def test_undefined_alpha_is_drawn_as_its_state_never_in_a_passing_colour(undefined_alpha, dark):
    p = figure_style.palette(dark)
    m, d = undefined_alpha
    for fig in (F.alpha_bullet(m, d, dark=dark), gate_figures.gate_bullet(gates_of(m, d)["alpha"], dark=dark)):
        state = annotation(fig, "state")
        assert state.text.replace("<br>", " ") == "alpha (nominal) undefined: no pairable values or no variation"
        assert (state.x, state.xref) == (0.5, "paper")
        assert fig.layout.title.text == "alpha (nominal): fails"
        assert [t for t in fig.data] == []  # no marker, no interval
        assert p.passed not in colours_used(fig) and p.pass_region not in colours_used(fig)
        (mark,) = shapes(fig, "threshold")
        assert mark.x0 == 0.6 and mark.line.color == p.threshold
        assert figure_style.caption(fig).startswith("Alpha (nominal) undefined: there is no number to draw, only the floor in force "
                                         "(0.600).")
    sweep = gate_figures.threshold_sweep(gates_of(m, d)["alpha"], dark=dark)
    assert "alpha (nominal) undefined" in annotation(sweep, "state").text
    assert shapes(sweep, "passes") == shapes(sweep, "fails") == []
    assert p.pass_region not in colours_used(sweep) and p.passed not in colours_used(sweep)


@pytest.mark.parametrize("dark", THEMES)
def test_unmeasured_spread_is_drawn_as_its_state(unmeasured_spread, dark):
    p = figure_style.palette(dark)
    m, d = unmeasured_spread
    gate = gates_of(m, d)["spread"]
    assert gate.state == "not measured"
    fig = gate_figures.gate_bullet(gate, dark=dark)
    state = annotation(fig, "state").text
    assert state.replace("<br>", " ") == "spread not measured: no rater rates, so it does not block"
    assert fig.layout.title.text == "spread: not measured"
    assert fig.data == ()
    assert p.passed not in colours_used(fig) and p.failed not in colours_used(fig)
    assert fig.layout.xaxis.range == (1.0, pytest.approx(2.0 * 1.3 * 1.15))
    assert "does not block" in figure_style.caption(fig)


def test_state_words_are_escaped_in_the_plot_and_kept_out_of_captions():
    g = drawn_gate("judge", "j", "verbosity_bias", "Verbosity bias", "max", "%", None, None, None, 5.0, None,
             state="not evaluable", detail="<b>column</b> missing")
    fig = gate_figures.gate_bullet(g)
    assert "&lt;b&gt;column&lt;/b&gt;" in annotation(fig, "state").text
    assert "column" not in figure_style.caption(fig) and figure_style.caption(fig).startswith("Verbosity bias not evaluable")
    assert figure_style.palette(False).passed not in colours_used(fig)


# --- threshold_sweep -------------------------------------------------------------------------


@pytest.mark.parametrize("dark", THEMES)
def test_threshold_sweep_flips_at_the_measured_value(panel, judge, dark):
    p = figure_style.palette(dark)
    m, d = panel["violence"]
    g = gates_of(m, d)
    alpha = gate_figures.threshold_sweep(g["alpha"], dark=dark)  # "min": passes for floors up to the value
    (ok,), (bad,) = shapes(alpha, "passes"), shapes(alpha, "fails")
    flip = g["alpha"].flip_at
    assert (ok.x0, ok.x1, bad.x0, bad.x1) == (0.0, flip, flip, 1.0)
    assert (ok.fillcolor, bad.fillcolor) == (p.pass_region, p.fail_region)
    (measured,) = shapes(alpha, "measured")
    assert measured.x0 == measured.x1 == flip
    assert annotation(alpha, "measured label").text == "measured 0.236"
    assert annotation(alpha, "threshold label").text == "in force: 0.600"
    assert shapes(alpha, "threshold")[0].x0 == 0.6
    assert alpha.layout.xaxis.title.text == "alpha floor (−1 to 1)"
    assert "passes for any floor up to 0.236 and fails above it" in figure_style.caption(alpha)

    spread = gate_figures.threshold_sweep(g["spread"], dark=dark)  # "max": passes for caps from the value up
    (ok,), (bad,) = shapes(spread, "passes"), shapes(spread, "fails")
    assert (bad.x0, bad.x1, ok.x0, ok.x1) == (1.0, 3.9, 3.9, 5.0)
    assert annotation(spread, "threshold label").text == "in force: 2.00x"

    jg = judge["failing"][1]["position_flip"]
    flipfig = gate_figures.threshold_sweep(jg, dark=dark)
    (ok,), (bad,) = shapes(flipfig, "passes"), shapes(flipfig, "fails")
    assert (bad.x0, bad.x1, ok.x0, ok.x1) == (0.0, jg.flip_at, jg.flip_at, 100.0)
    assert flipfig.layout.xaxis.title.text == "limit on the rate (%)"


@pytest.mark.parametrize("dark", THEMES)
def test_sweep_band_labels_avoid_the_threshold_line(panel, dark):
    m, d = panel["violence"]
    fig = gate_figures.threshold_sweep(gates_of(m, d)["alpha"], dark=dark)
    fails = annotation(fig, "fails label")
    assert fails.text == "<b>fails</b>"
    assert fails.x == pytest.approx(0.8)  # the middle of 0.600..1, not of 0.236..1 (where the line is)
    assert annotation(fig, "passes label").x == pytest.approx(0.236068 / 2, abs=1e-6)


def test_sweep_with_nothing_to_fail(judge):
    g = judge["illustrative"][1]["position_flip"]  # 0% measured: every limit passes
    fig = gate_figures.threshold_sweep(g)
    assert shapes(fig, "fails") == [] and (shapes(fig, "passes")[0].x0, shapes(fig, "passes")[0].x1) == (0.0, 100.0)
    assert figure_style.caption(fig).startswith("The position flip gate passes for any limit at or above 0.0% (the measured")


# --- the dashboard's figures -----------------------------------------------------------------


@pytest.mark.parametrize("dark", THEMES)
def test_rates_interval_labels_sit_outside_the_plot_apart(panel, close_rates, dark):
    p = figure_style.palette(dark)
    m, d = panel["violence"]
    fig = F.rates_interval(m, d, dark=dark)
    low, high = annotation(fig, "lowest rate"), annotation(fig, "highest rate")
    assert (low.text, high.text) == ("lowest rate 6.7%", "highest rate 26.0%")
    for a in (low, high, annotation(fig, "cap 2.00x lowest")):
        assert a.xref == "paper" and a.x == 1 and a.xanchor == "left"  # right of the plot area
    (cap,) = shapes(fig, "threshold")
    assert cap.y0 == cap.y1 == pytest.approx(40 / 600 * 2)
    assert fig.layout.yaxis.title.text == "rate (% of rated items positive)" and fig.layout.yaxis.tickformat == ".0%"
    assert fig.layout.xaxis.title.text == "detector (positives / rated)"
    assert list(fig.data[0].x) == ["detector-lexicon<br>40/600", "detector-classifier<br>90/600",
                                   "detector-llm<br>156/600"]
    assert fig.data[0].marker.color == p.failed and fig.layout.yaxis.automargin and fig.layout.xaxis.automargin
    # rates a point apart: the labels are pushed apart rather than drawn over each other
    cm, cd = close_rates
    close = F.rates_interval(cm, cd, dark=dark)
    low, high = annotation(close, "lowest rate"), annotation(close, "highest rate")
    assert low.y < high.y and (low.yshift or 0) == 0 and high.yshift >= 10


@pytest.mark.parametrize("dark", THEMES)
def test_calibration_rates_results_in_words_and_markers(judge, dark):
    p = figure_style.palette(dark)
    d, _ = judge["failing"]
    fig = F.calibration_rates(d, dark=dark)
    bars = fig.data[0]
    assert bars.marker.color == (p.failed, p.failed, p.passed, p.failed, p.failed)
    (marks,) = [t for t in fig.data if t.name == "threshold"]
    assert marks.x == (90.0, 5.0, 5.0, 5.0, 5.0)
    assert marks.marker.line.color == p.threshold
    results = [a.text for a in fig.layout.annotations if a.name == "result"]
    assert results[0] == "64.3% (926/1,440): fails" and results[2] == "1.5% (7/480): passes"
    labels = [a.text for a in fig.layout.annotations if a.name == "label"]
    assert labels[0] == "<b>Human agreement</b>, at least 90.0%" and labels[1] == "<b>Position flip</b>, at most 5.0%"
    # the words sit above each bar, from the plot's left edge: no label or result column takes its width
    assert all(a.xref == "paper" and a.x == 0 and a.xanchor == "left" for a in fig.layout.annotations)
    for i, (label, result) in enumerate(zip(*[[a for a in fig.layout.annotations if a.name == n]
                                                for n in ("label", "result")])):
        assert label.y == result.y < bars.y[i] and result.yshift < 0  # the result on the line below the name
    assert fig.layout.margin.l <= 10 and fig.layout.margin.r <= 16 and fig.layout.yaxis.visible is False
    assert fig.layout.xaxis.title.text == "rate (%)" and fig.layout.xaxis.range == (0, 100)
    assert {t.name for t in fig.data} >= {"passes", "fails", "threshold"}


def test_calibration_rates_not_evaluable_is_grey(judge):
    from dataclasses import replace

    d, _ = judge["failing"]
    gates = list(d.gates)
    gates[3] = replace(gates[3], exact=None, passed=None, state="not evaluable", detail="no candidate lengths")
    fig = F.calibration_rates(replace(d, gates=tuple(gates)))
    p = figure_style.palette(False)
    assert fig.data[0].marker.color[3] == p.neutral
    assert [a.text for a in fig.layout.annotations if a.name == "result"][3] == "not evaluable"
    assert "not evaluable" in {t.name for t in fig.data}
    assert "1 cannot be evaluated" in figure_style.caption(fig)


@pytest.mark.parametrize("dark", THEMES)
def test_coincidence_heatmap(panel, dark):
    p = figure_style.palette(dark)
    m, _ = panel["violence"]
    fig = F.coincidence_heatmap(m, dark=dark)
    (heat,) = fig.data
    assert heat.colorscale[0][1] == p.heat[0][1] and heat.colorscale[-1][1] == p.heat[-1][1]
    assert heat.text[0][0] == "1729.3" and heat.showscale is False
    assert (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("paired with value", "value")
    assert "diagonal" in figure_style.caption(fig)


def test_old_call_signatures_still_work(panel, judge):
    m, d = panel["insult"]
    assert F.alpha_bullet(m, d).layout.title.text == "alpha (nominal) 0.431, needs 0.600: 0.169 short"
    assert F.rates_interval(m, d).layout.height == 340
    assert F.coincidence_heatmap(m).layout.height == 340
    assert F.calibration_rates(judge["failing"][0]).layout.height == 62 + 70 * 5 + 112  # title, five rows, axis


def _timeline_rows(times: list[str]) -> list[dict]:
    """agreebound.app.history.timeline rows: one alpha gate per run, recorded at ``times``."""
    return [{"run": f"run{i}", "time": t, "data_name": "d.csv", "label": "", "verdict": "ENFORCE", "scope": "all",
             "gate": "alpha", "gate_label": "alpha", "value": 0.8, "low": 0.7, "high": 0.9, "threshold": 0.6,
             "passed": True, "state": "measured", "unit": ""} for i, t in enumerate(times)]


@pytest.mark.parametrize("dark", THEMES)
def test_a_timeline_of_one_run_spans_a_day_around_it_labelled_with_its_date_and_time(dark):
    """One run: plotly alone would zoom the axis into a millisecond around the point (ticks like
    "21:04:05.0005"); the axis is a day centred on the run, its one tick the run's date and time."""
    from datetime import datetime, timezone

    rows = _timeline_rows(["2026-03-14T21:04:05.000512Z"])
    rows.append({**rows[0], "gate": "spread", "gate_label": "spread", "value": 1.5, "low": None, "high": None,
                 "threshold": 2.0, "unit": "x"})
    fig = F.history_timeline(rows, dark=dark, name="d.csv")
    at = datetime(2026, 3, 14, 21, 4, 5, 512, tzinfo=timezone.utc)
    for x in (fig.layout.xaxis, fig.layout.xaxis2):  # the alpha panel's and the spread panel's (shared)
        assert list(x.range) == [datetime(2026, 3, 14, 9, 4, 5, 512, tzinfo=timezone.utc),
                                 datetime(2026, 3, 15, 9, 4, 5, 512, tzinfo=timezone.utc)]
        assert list(x.tickvals) == [at] and list(x.ticktext) == ["2026-03-14 21:04:05"]
    assert fig.layout.xaxis2.title.text == "recorded (UTC)"
    # two runs recorded at the same instant are one moment too
    same = F.history_timeline(_timeline_rows(["2026-03-14T21:04:05.000512Z"] * 2), dark=dark)
    assert list(same.layout.xaxis.ticktext) == ["2026-03-14 21:04:05"]


@pytest.mark.parametrize("dark", THEMES)
def test_a_timeline_of_two_runs_keeps_plotlys_own_time_axis(dark):
    fig = F.history_timeline(_timeline_rows(["2026-03-14T21:04:05Z", "2026-03-14T21:04:07.5Z"]), dark=dark)
    x = fig.layout.xaxis
    assert (x.range, x.tickvals, x.ticktext, x.tickformat) == (None, None, None, None)
    assert [len(t.x) for t in fig.data] == [2, 2]  # the alpha line and the threshold's step line
