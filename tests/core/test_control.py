"""Control charts (agreebound.core.control): exact small cases by hand; the false-alarm rates each
setting states, measured by simulation on in-control series (fixed seeds; the measured and the
stated number are printed, and must agree within 3 Monte-Carlo standard errors); a planted step
detected within a stated number of runs; a drift in the first half of a series caught because the
baseline is pinned, where a baseline estimated from that half hides it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agreebound.core.control import (ALARM_HIGH, ALARM_LOW, IN_CONTROL, NO_NOISE, NO_VALUE, Baseline, ControlSettings,
                                     Point, chart, one_sided_arl, se_from_interval, two_sided_arl)

EWMA, CUSUM = ControlSettings("ewma"), ControlSettings("cusum")


# --- by hand ------------------------------------------------------------------------------------


def test_cusum_by_hand():
    # baseline 10, se 2: values 12, 16, 8, 20 -> z 1, 3, -1, 5; k 0.5, h 5
    # S+ 0.5, 3.0, 1.5, 6.0 (> 5: alarm); S- 0, 0, 0.5, 0
    pts = [Point(v, 2.0) for v in (12.0, 16.0, 8.0, 20.0)]
    c = chart(pts, Baseline(10.0), CUSUM)
    assert [p.z for p in c] == [1.0, 3.0, -1.0, 5.0]
    assert [p.high for p in c] == [0.5, 3.0, 1.5, 6.0]
    assert [p.low for p in c] == [0.0, 0.0, 0.5, 0.0]
    assert [p.state for p in c] == [IN_CONTROL, IN_CONTROL, IN_CONTROL, ALARM_HIGH]
    # a value alarms iff S+_{t-1} + z - k > h, i.e. x > 10 + 2 (5.5 - S+_{t-1})
    assert [p.keep_high for p in c] == [21.0, 20.0, 15.0, 18.0]
    assert [p.keep_low for p in c] == [-1.0, -1.0, -1.0, 0.0]
    # the band on the value scale: 10 -/+ 2 * 5; the statistic on it: 10 + 2 S+ = 22 at the alarm
    assert (c[3].lower, c[3].upper, c[3].level_high, c[3].level_low) == (0.0, 20.0, 22.0, 10.0)


def test_ewma_by_hand_with_a_pinned_baseline_whose_error_widens_the_limits():
    # lambda 0.5, L 2, baseline 0 with its own se 1, every value's se 1: z = x.
    # t=1: E = 0.5 z1; var = 0.25 + 1 * 0.5^2 = 0.5; t=2: var = 0.0625 + 0.25 + (0.25 + 0.5)^2 = 0.875
    s = ControlSettings("ewma", lam=0.5, width=2.0)
    c = chart([Point(1.0, 1.0), Point(-5.0, 1.0)], Baseline(0.0, se=1.0), s)
    assert c[0].high == 0.5 and c[0].limit == pytest.approx(2 * math.sqrt(0.5))
    assert c[1].high == -2.25 and c[1].low == 2.25 and c[1].limit == pytest.approx(2 * math.sqrt(0.875))
    assert [p.state for p in c] == [IN_CONTROL, ALARM_LOW]  # 2.25 > 1.871
    # without the baseline's own error the limit would be 2 sqrt(0.3125) = 1.118: the pinned run's noise widens it
    assert chart([Point(1.0, 1.0), Point(-5.0, 1.0)], Baseline(0.0), s)[1].limit == pytest.approx(2 * math.sqrt(0.3125))
    # the values that keep run 2 in control: -limit - 0.5 * 0.5 <= 0.5 z <= limit - 0.25
    lim = 2 * math.sqrt(0.875)
    assert c[1].keep_low == pytest.approx((-lim - 0.25) / 0.5) and c[1].keep_high == pytest.approx((lim - 0.25) / 0.5)
    assert c[1].lower == pytest.approx(-lim) and c[1].level_low == -2.25  # the smoothed value below the band


def test_the_statistic_outside_the_band_and_a_value_outside_its_keeping_range_are_exactly_in_alarm():
    rng = np.random.default_rng(7)
    for s in (EWMA, CUSUM, ControlSettings("ewma", lam=0.05, width=2.5)):
        ses = rng.uniform(0.02, 0.08, 400)
        values = 0.6 + rng.normal(0, 1, 400) * ses + np.r_[np.zeros(200), np.full(200, 0.15)]
        c = chart([Point(float(v), float(e)) for v, e in zip(values, ses)], Baseline(0.6, se=0.03), s)
        kept = [p.keep_low <= p.value <= p.keep_high for p in c]
        assert [not i for i in kept] == [p.alarm for p in c]
        inside = [p.lower <= p.level_high <= p.upper and p.lower <= p.level_low <= p.upper for p in c]
        assert [not i for i in inside] == [p.alarm for p in c]
        assert sum(p.alarm for p in c) > 0  # the shifted half alarms


def test_values_without_a_number_or_an_interval_are_not_charted_and_the_statistic_carries_over():
    c = chart([Point(3.0, 1.0), Point(None, 1.0), Point(9.0, None), Point(9.0, 0.0), Point(3.0, 1.0)], Baseline(0.0),
              CUSUM)
    assert [p.state for p in c] == [IN_CONTROL, NO_VALUE, NO_NOISE, NO_NOISE, IN_CONTROL]
    assert [p.high for p in c] == [2.5, 2.5, 2.5, 2.5, 5.0]  # 5.0 is not above h 5
    assert c[2].upper is None and c[2].limit is None and c[2].keep_high is None
    # an explicit sd scales every value, whatever its interval
    c = chart([Point(9.0, None)], Baseline(0.0, sd=3.0), CUSUM)
    assert c[0].z == 3.0 and c[0].state == IN_CONTROL


def test_se_and_settings_from_threshold_data():
    assert se_from_interval(0.4, 0.8) == pytest.approx(0.4 / (2 * 1.959963984540054))
    assert Baseline.pinned(0.6, 0.5, None) is None
    assert ControlSettings.from_data({"method": "cusum", "k": 0.25, "h": 8}) == ControlSettings("cusum", k=0.25, h=8.0)
    derived = ControlSettings.from_data({"method": "cusum", "false_alarm_rate": 0.001})
    assert derived.arl0() == pytest.approx(1000, rel=1e-9)
    assert ControlSettings.from_data({"false_alarm_rate": 0.0027}).width == pytest.approx(2.99998, abs=1e-5)
    for bad, said in (({"method": "shewhart"}, "method must be ewma or cusum"), ({"lamda": 0.2}, "unknown control field"),
                      ({"lambda": 0}, "lambda must be a number above 0"), ({"L": "3"}, "L must be a number"),
                      ({"method": "ewma", "L": 3, "false_alarm_rate": 0.01}, "not both"),
                      ({"false_alarm_rate": 0.7}, "false-alarm rate must be above 0")):
        with pytest.raises(ValueError, match=said):
            ControlSettings.from_data(bad)
    assert EWMA.words() == ("EWMA (lambda 0.2, L 3): while in control, each charted number is in alarm by chance at "
                            "0.27% of runs")
    assert CUSUM.words() == ("CUSUM (k 0.5, h 5): while in control, each charted number's false alarm comes after 465 "
                             "runs on average")
    assert CUSUM.per_run_words(5) == ("a run charts 5 numbers, so some false alarm comes after about 93 runs on "
                                      "average (fewer when the numbers move together)")


def test_arl_against_published_values():
    # Montgomery, Introduction to Statistical Quality Control (6th ed.), table 9.3, k = 1/2 (two-sided
    # tabular CUSUM): h = 4: ARL0 168, ARL(1 sd) 8.38; h = 5: ARL0 465, ARL(1 sd) 10.4, ARL(2 sd) 4.01
    assert round(two_sided_arl(0.5, 4, 0)) == 168 and round(two_sided_arl(0.5, 4, 1), 2) == 8.38
    assert round(two_sided_arl(0.5, 5, 0)) == 465 and round(two_sided_arl(0.5, 5, 1), 1) == 10.4
    assert round(two_sided_arl(0.5, 5, 2), 2) == 4.01
    assert one_sided_arl(0.5, 5, 0, nodes=32) == pytest.approx(one_sided_arl(0.5, 5, 0, nodes=128), rel=1e-9)


# --- the stated false-alarm rates, measured ------------------------------------------------------


def _ewma_alarm_share(s: ControlSettings, series: int, runs: int, seed: int, baseline_se: float,
                      told: bool = True) -> tuple[float, float]:
    """The share of in-control runs in alarm over ``series`` simulated series of ``runs`` values
    (each value's se drawn from 0.02-0.08, values drawn around the true mean 0.6 with it; the
    baseline a pinned value drawn with its own ``baseline_se``, told to the chart or not), and its
    Monte-Carlo standard error (from the per-series shares: alarms cluster within a series)."""
    rng = np.random.default_rng(seed)
    per_series = np.empty(series)
    for i in range(series):
        ses = rng.uniform(0.02, 0.08, runs)
        values = 0.6 + rng.normal(0, 1, runs) * ses
        base = Baseline(0.6 + rng.normal() * baseline_se, se=baseline_se if told else 0.0)
        per_series[i] = np.mean([p.alarm for p in chart([Point(float(v), float(e)) for v, e in zip(values, ses)],
                                                         base, s)])
    return float(per_series.mean()), float(per_series.std(ddof=1) / math.sqrt(series))


def test_ewma_false_alarms_per_run_match_the_stated_rate(capsys):
    # exact baseline, the default L = 3: stated 0.270% (2 (1 - Phi(3)))
    stated = EWMA.per_value_false_alarm()
    measured, mc = _ewma_alarm_share(EWMA, 8000, 30, seed=55, baseline_se=0.0)
    with capsys.disabled():
        print(f"\nEWMA lambda 0.2 L 3, exact baseline: stated {stated:.5f}, measured {measured:.5f} +/- {mc:.5f}")
    assert stated == pytest.approx(0.0026998, abs=1e-7)
    assert abs(measured - stated) <= 3 * mc


def test_ewma_false_alarms_per_run_hold_with_a_noisy_pinned_baseline(capsys):
    # a pinned run as the baseline: its own error (as large as a run's) is in every comparison, and the
    # exact variance of E_t carries it: the per-run rate holds (alarms cluster in the unlucky series)
    s = ControlSettings.for_false_alarms("ewma", 0.05)
    measured, mc = _ewma_alarm_share(s, 4000, 25, seed=56, baseline_se=0.05)
    with capsys.disabled():
        print(f"EWMA L {s.width:.3f}, pinned baseline se 0.05: stated 0.05000, measured {measured:.5f} +/- {mc:.5f}")
    assert abs(measured - 0.05) <= 3 * mc
    # the same pinned baseline taken as exact alarms on far more in-control runs than stated
    naive, _ = _ewma_alarm_share(s, 1000, 25, seed=57, baseline_se=0.05, told=False)
    with capsys.disabled():
        print(f"  the same baseline taken as exact: measured {naive:.5f}")
    assert naive > 0.3


def _cusum_run_lengths(k: float, h: float, series: int, seed: int, shift: float = 0.0) -> np.ndarray:
    """Values until the first alarm of the two-sided CUSUM on z ~ N(shift, 1), ``series`` at once:
    the recursion of agreebound.core.control.chart (test_the_vectorised_cusum_is_chart pins it)."""
    rng = np.random.default_rng(seed)
    up, down = np.zeros(series), np.zeros(series)
    length = np.zeros(series, dtype=int)
    alive = np.ones(series, dtype=bool)
    t = 0
    while alive.any():
        t += 1
        z = rng.normal(shift, 1, series)
        up = np.maximum(0.0, up + z - k)
        down = np.maximum(0.0, down - z - k)
        fired = alive & ((up > h) | (down > h))
        length[fired] = t
        alive &= ~fired
        assert t < 200_000
    return length


def test_the_vectorised_cusum_is_chart():
    rng = np.random.default_rng(3)
    for _ in range(50):
        z = rng.normal(0, 1, 300)
        states = [p.state for p in chart([Point(float(v), 1.0) for v in z], Baseline(0.0), CUSUM)]
        up = down = 0.0
        for v, state in zip(z, states):
            up, down = max(0.0, up + v - 0.5), max(0.0, down - v - 0.5)
            assert state == (ALARM_HIGH if up > 5 else ALARM_LOW if down > 5 else IN_CONTROL)


@pytest.mark.parametrize("settings", [CUSUM, ControlSettings.for_false_alarms("cusum", 1 / 100)],
                         ids=["default h 5", "h for ARL0 100"])
def test_cusum_arl0_matches_the_stated_one(settings, capsys):
    lengths = _cusum_run_lengths(settings.k, settings.h, 6000, seed=465)
    stated = settings.arl0()
    measured, mc = lengths.mean(), lengths.std(ddof=1) / math.sqrt(len(lengths))
    with capsys.disabled():
        print(f"CUSUM k {settings.k} h {settings.h:.4f}: ARL0 stated {stated:.1f}, measured {measured:.1f} +/- {mc:.1f}")
    assert abs(measured - stated) <= 3 * mc


# --- what the charts catch -----------------------------------------------------------------------


@pytest.mark.parametrize("settings", [EWMA, CUSUM], ids=["ewma", "cusum"])
def test_a_step_of_two_standard_errors_is_alarmed_within_ten_runs(settings, capsys):
    """A step of 2 se at run 21 of 60, the series in control before (series with a false alarm
    before the step are left out): the step is alarmed within 10 runs in at least 99.5% of series."""
    rng = np.random.default_rng(21)
    delays = []
    for _ in range(1500):
        z = rng.normal(0, 1, 60)
        z[20:] += 2
        alarms = [p.alarm for p in chart([Point(float(v), 1.0) for v in z], Baseline(0.0), settings)]
        if not any(alarms[:20]):
            delays.append(next((t - 19 for t in range(20, 60) if alarms[t]), 99))
    d = np.array(delays)
    with capsys.disabled():
        print(f"{settings.method}: step of 2 se alarmed after {d.mean():.2f} runs on average; within 10 runs in "
              f"{(d <= 10).mean():.2%} of {len(d)} series")
    assert (d <= 10).mean() >= 0.995
    if settings.method == "cusum":  # Page's ARL at shift 2 (4.01, from 0) bounds the mean delay from above
        assert d.mean() <= settings.arl(2.0)


def test_cusum_mean_delay_from_zero_matches_its_arl():
    lengths = _cusum_run_lengths(0.5, 5.0, 20000, seed=1, shift=1.0)
    assert abs(lengths.mean() - two_sided_arl(0.5, 5.0, 1.0)) <= 3 * lengths.std(ddof=1) / math.sqrt(len(lengths))


@pytest.mark.parametrize("settings", [EWMA, CUSUM], ids=["ewma", "cusum"])
def test_a_drift_in_the_first_half_is_caught_against_a_pinned_baseline_and_hidden_by_an_estimated_one(settings):
    """Runs 1-20 drift from the baseline up to +3 se, runs 21-40 stay there. Pinned at the true
    start, the chart alarms within the first 20 runs in every one of 1000 series; a baseline estimated
    from those 20 runs (their mean and sd, as a chart that judges a series by itself does) alarms on
    at most 5% of them in the same runs: the drift became the baseline."""
    rng = np.random.default_rng(20)
    pinned = estimated = 0
    for _ in range(1000):
        z = rng.normal(0, 1, 40) + np.r_[np.linspace(0.15, 3, 20), np.full(20, 3.0)]
        pinned += any(p.alarm for p in chart([Point(float(v), 1.0) for v in z], Baseline(0.0), settings)[:20])
        own = Baseline(float(z[:20].mean()), sd=float(z[:20].std(ddof=1)))
        estimated += any(p.alarm for p in chart([Point(float(v), None) for v in z], own, settings)[:20])
    assert pinned == 1000
    assert estimated <= 50
