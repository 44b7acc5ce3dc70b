"""agreebound.panel.intervals: textbook Wilson values, reproducible bootstrap, coverage, diagnostics,
strict mode."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from agreebound.judge.decide import decide as decide_calibration
from agreebound.judge.measure import measure
from agreebound.core.thresholds import CalibrationThresholds
from agreebound.core.gate import cases_to_flip
from agreebound.panel.alpha import krippendorff_alpha
from agreebound.core.thresholds import PanelThresholds
from agreebound.panel.seed import Verdict
from agreebound.panel.decide import decide
from agreebound.core.intervals import Wilson
from agreebound.panel.diagnostics import alpha_without_each_rater, detector_vs_human, unit_disagreement
from agreebound.panel.intervals import bootstrap_alpha, bootstrap_alpha_units, pairable_pairs, spread_interval
from agreebound.judge.intervals import judge_diagnostics
from tests.support.judge_records import case, contract, snapshot
from tests.support.panels import K2011


@pytest.mark.parametrize("s, n, low, high", [
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score)
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_textbook(s, n, low, high):
    w = Wilson(s, n)
    assert (round(w.low, 4), round(w.high, 4)) == (low, high)


def test_wilson_exact_comparisons_agree_with_the_bounds():
    rng = random.Random(4)
    checked = 0
    for _ in range(3000):
        n = rng.randint(1, 400)
        s = rng.randint(0, n)
        t = Fraction(rng.randint(0, 10_000), 10_000)
        w = Wilson(s, n)
        if abs(w.high - float(t)) > 1e-9:
            assert w.high_at_most(t) == (w.high <= float(t))
            checked += 1
        if abs(w.low - float(t)) > 1e-9:
            assert w.low_at_least(t) == (w.low >= float(t))
    assert checked > 2900


def test_spread_interval():
    low, high = spread_interval([(10, 100), (30, 100)])
    assert low == pytest.approx(Wilson(30, 100).low / Wilson(10, 100).high)
    assert high == pytest.approx(Wilson(30, 100).high / Wilson(10, 100).low)
    assert low < 3 < high
    assert spread_interval([(0, 50), (5, 50)])[1] is None  # a zero lower bound: unbounded
    assert spread_interval([]) == (1.0, 1.0)


@pytest.mark.parametrize("num, den, bps, kind, expected", [
    (26, 233, 500, "max", ("pass", 15)),  # 11/233 = 4.72% passes, 12/233 = 5.15% fails
    (11, 233, 500, "max", ("fail", 1)),
    (0, 10, 0, "max", ("fail", 1)),
    (926, 1440, 9000, "min", ("pass", 370)),  # 1296/1440 = 90% exactly
    (1296, 1440, 9000, "min", ("fail", 1)),
    (0, 0, 500, "max", ("not evaluable", 0)),
])
def test_cases_to_flip(num, den, bps, kind, expected):
    assert cases_to_flip(num, den, bps, kind) == expected


def test_bootstrap_is_reproducible_and_centred():
    data = np.array(K2011, dtype=float)
    a = krippendorff_alpha(data)
    m = pairable_pairs(data)
    assert m == 3 + 8 * 6 + 3 + 1  # units with 3, 4 (x8), 3 and 2 ratings; the lone rating pairs with none
    b1 = bootstrap_alpha(a, pairs=m, seed=7)
    b2 = bootstrap_alpha(a, pairs=m, seed=7)
    b3 = bootstrap_alpha(a, pairs=m, seed=8)
    assert np.array_equal(b1.samples, b2.samples) and not np.array_equal(b1.samples, b3.samples)
    assert b1.low < float(a.value) < b1.high
    assert abs(float(np.mean(b1.samples)) - float(a.value)) < 0.02
    assert b1.q_below(Fraction(-1)) == 0.0 and b1.q_below(Fraction(2)) == 1.0
    assert b1.q_below(Fraction(3, 5)) == float(np.mean(b1.samples < 0.6))
    u1 = bootstrap_alpha_units(data, "nominal", seed=3, draws=500)
    u2 = bootstrap_alpha_units(data, "nominal", seed=3, draws=500)
    assert np.array_equal(u1.samples, u2.samples) and u1.method == "units"


def test_pairable_pairs_hand_count():
    # units with 2, 3 and 1 ratings: 1 + 3 + 0 pairs
    assert pairable_pairs(np.array([[0, 1, np.nan], [0, 0, 1], [1, np.nan, np.nan]])) == 4


def test_bootstrap_coverage_with_known_truth():
    """Two raters copy a fair binary truth with probability a, else guess: population alpha ~ a^2."""
    rng = np.random.default_rng(1)
    a = 0.8
    truth = a * a
    hits_k = hits_u = 0
    runs = 150
    for r in range(runs):
        t = rng.integers(0, 2, 200)
        data = np.where(rng.random((200, 2)) < a, t[:, None], rng.integers(0, 2, (200, 2))).astype(float)
        res = krippendorff_alpha(data)
        k = bootstrap_alpha(res, pairs=pairable_pairs(data), draws=1000, seed=r)
        u = bootstrap_alpha_units(data, "nominal", draws=300, seed=r)
        hits_k += k.low <= truth <= k.high
        hits_u += u.low <= truth <= u.high
    assert 0.88 <= hits_k / runs <= 0.99
    assert 0.88 <= hits_u / runs <= 0.99


def test_undefined_alpha_has_no_interval():
    a = krippendorff_alpha([[1, 1], [1, 1]])
    b = bootstrap_alpha(a, pairs=2)
    assert not b.defined and b.low is None and b.q_below(Fraction(1, 2)) is None


# --- diagnostics -----------------------------------------------------------------------------


def test_alpha_without_each_rater_and_vs_human():
    # detector-a and the human agree perfectly; detector-b is noise
    data = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    raters = ["detector-a", "detector-b", "human"]
    loo = alpha_without_each_rater(data, raters, "nominal")
    assert loo["detector-b"] == 1  # without the noisy detector, the rest agree perfectly
    assert loo["detector-a"] == krippendorff_alpha(data[:, [1, 2]]).value
    vs = detector_vs_human(data, raters, ["human"], "nominal")
    assert vs["detector-a"] == 1 and vs["detector-b"] == krippendorff_alpha(data[:, [1, 2]]).value


def test_unit_disagreement_sums_to_the_observed_disagreement():
    data = np.array(K2011, dtype=float)
    res = krippendorff_alpha(data)
    per_unit = unit_disagreement(data, "nominal", res)
    # unit 6 (1, 2, 3, 4): 12 ordered disagreeing pairs / (4 - 1) = 4, the most of any unit
    assert per_unit[5] == pytest.approx(4.0) and int(np.argmax(per_unit)) == 5
    assert per_unit[11] == 0  # one rating: not pairable
    assert per_unit.sum() == pytest.approx(float(res.observed_disagreement * res.pairable))


# --- strict mode ------------------------------------------------------------------------------


def test_panel_strict_mode_gates_on_the_bounds():
    point = PanelThresholds(600, 2000)
    strict = PanelThresholds(600, 2000, strict=True)
    assert decide(3, Fraction(7, 10), [10, 15], point, alpha_low=0.55, spread_high=2.5).verdict is Verdict.ENFORCE
    d = decide(3, Fraction(7, 10), [10, 15], strict, alpha_low=0.55, spread_high=2.5)
    assert d.verdict is Verdict.REPORT_ONLY
    assert [r.check for r in d.reasons] == ["alpha_lower_bound_below_floor", "spread_upper_above_cap"]
    assert decide(3, Fraction(7, 10), [10, 15], strict, alpha_low=0.65, spread_high=1.9).verdict is Verdict.ENFORCE
    missing = decide(3, Fraction(7, 10), [10, 15], strict)
    assert [r.check for r in missing.reasons] == ["alpha_interval_missing", "spread_interval_missing"]
    assert decide(3, Fraction(7, 10), [10, 15], strict, alpha_low=0.65, spread_high=None).reasons[0].check == "spread_upper_unbounded"
    with pytest.raises(ValueError, match="strict must be true or false"):
        PanelThresholds(strict=1)


def test_calibration_strict_mode_uses_wilson_bounds():
    con = contract(maximum_position_flip_bps=500)
    stable = {"ab": ["a", "a"], "ba": ["a", "a"]}
    flip = {"ab": ["a", "a"], "ba": ["b", "b"]}
    cases = [case(f"case-{i:03d}", "a", flip if i < 4 else stable) for i in range(100)]
    m = measure(con, snapshot(con, *cases))
    assert (m.position_flip.numerator, m.position_flip.denominator) == (4, 100)
    point = decide_calibration(m)
    assert point.gates[1].passed and point.gates[1].bound_passed is None
    strict = decide_calibration(m, CalibrationThresholds.from_contract(con, strict=True))
    assert not strict.gates[1].passed and strict.gates[1].bound_passed is False  # Wilson high 9.8% > 5%
    assert strict.decision == "FAIL_CALIBRATION"
    assert strict.decided_against.content_id == con.content_id  # strict is not part of the contract


def test_judge_diagnostics_hand_computed():
    con = contract(repetitions_per_order=3)
    snap = snapshot(
        con,
        case("case-one", "a", {"ab": ["a", "a", "a"], "ba": ["a", "a", "a"]}),
        case("case-two", "a", {"ab": ["a", "a", "a"], "ba": ["b", "b", "b"]}),  # stable flip
        case("case-three", "tie", {"ab": ["a", "tie", "tie"], "ba": ["tie", "tie", "tie"]}),
        case("case-four", "b", {"ab": ["b", "b", "a"], "ba": ["a", "a", "b"]}),  # noisy flip
    )
    from agreebound.app.judge_input import judge_human_alpha

    m = measure(con, snap)
    d = judge_diagnostics(m)
    assert d.agreement_with_ties == (6 + 3 + 5 + 3, 24)
    assert d.agreement_without_ties == (6 + 3 + 3, 18)
    assert (d.stable_flips, d.noisy_flips) == (1, 1)
    # alpha over units x (human, majority ab, majority ba): rows a,a,a / a,a,b / tie,tie,tie / b,b,a
    expected = krippendorff_alpha([["a", "a", "a"], ["a", "a", "b"], ["tie", "tie", "tie"], ["b", "b", "a"]])
    assert judge_human_alpha(m.counts).value == expected.value
    assert (d.wilson["position_flip"].successes, d.wilson["position_flip"].trials) == (1, 2)


def test_wilson_is_exact_at_the_edges():
    for n in (1, 5, 9, 10**6):
        assert Wilson(0, n).low == 0.0 and Wilson(n, n).high == 1.0
        assert Wilson(0, n).low_at_least(Fraction(0)) and not Wilson(0, n).low_at_least(Fraction(1, 10**9))
    # a detector that never fired: the spread's upper end is unbounded, decided on the counts
    assert spread_interval([(0, 9), (5, 9)])[1] is None
    assert spread_interval([(1, 9), (5, 9)])[1] is not None
    # totals far beyond a float do not overflow
    assert 0.0 <= Wilson(10**399, 10**400).low <= 0.1 <= Wilson(10**399, 10**400).high <= 1.0


def test_bootstrap_many_values_uses_the_normal_limit_and_says_so():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 10_000, 3000) / 100
    data = truth[:, None] + rng.integers(-300, 300, (3000, 3)) / 100
    a = krippendorff_alpha(data, "interval")
    b = bootstrap_alpha(a)
    assert a.coincidence is None and "normal limit" in b.note
    assert b.low < float(a.value) < b.high
    u = bootstrap_alpha_units(data, "interval", draws=200)
    assert u.low < float(a.value) < u.high
    # for few values the resampling is the textbook one, over distinct distances
    small = krippendorff_alpha(np.array(K2011, dtype=float), "interval")
    assert bootstrap_alpha(small).note == ""
