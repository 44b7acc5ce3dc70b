"""Case-aware intervals for the judge's rates: Wilson at the effective number of observations,
the observations of one case (two orders x repetitions) counted as one cluster."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.core.thresholds import CalibrationThresholds
from agreebound.judge.decide import decide
from agreebound.judge.measure import measure
from agreebound.app.pipeline import parse_judge_bundle, parse_judge_log, parse_judge_tables
from agreebound.render.report import calibration_report
from agreebound.render.markdown import to_markdown
from agreebound.core.thresholds import ThresholdSet
from agreebound.core.intervals import Z95, Wilson
from agreebound.judge.intervals import judge_rate_intervals
from agreebound.judge.intervals import judge_diagnostics
from tests.support.judge_records import case, contract, snapshot

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
LOGS = S / "judge_logs"
Z = Z95  # the constant the existing Wilson uses


def bundle(name: str):
    return parse_judge_bundle(name, (S / name).read_bytes())


# --- the hand examples ------------------------------------------------------------------------


def _clustered(pattern, reps=3, **kw):
    """One case per entry: True = every observation of the case agrees with the human (picks a),
    False = none does (picks b in both orders: no flip, no instability)."""
    con = contract(repetitions_per_order=reps, **kw)
    cases = [case(f"case-{i:03d}", "a", {"ab": [("a" if agree else "b")] * reps, "ba": [("a" if agree else "b")] * reps})
             for i, agree in enumerate(pattern)]
    return con, measure(con, snapshot(con, *cases))


def test_perfect_within_case_correlation_counts_one_observation_per_case():
    # 4 cases x 2 orders x 3 repetitions; each case all-agree or all-disagree
    _, m = _clustered([True, True, False, False])
    assert (m.human_agreement.numerator, m.human_agreement.denominator) == (12, 24)
    iv = judge_rate_intervals(m)["human_agreement"]
    assert (iv.cases, iv.observations) == (4, 24)
    assert iv.deff == 6.0 and iv.n_eff == 4.0 and iv.n_eff_exact == 4  # deff = observations per case
    # the raw k/(k-1) estimate is 8 (6 x 4/3); it is capped at 6, the perfectly correlated design
    assert "capped at 6" in iv.method and "measured 8" in iv.method
    # so the interval is the Wilson interval of 2 successes in 4 trials
    assert iv.low == pytest.approx(Wilson(2, 4).low, abs=1e-15) and iv.high == pytest.approx(Wilson(2, 4).high, abs=1e-15)
    assert iv.low == pytest.approx(0.1500, abs=5e-5) and iv.high == pytest.approx(0.8500, abs=5e-5)
    # an unbalanced split too: 1 of 4 cases agrees
    iv = judge_rate_intervals(_clustered([True, False, False, False])[1])["human_agreement"]
    assert (iv.deff, iv.n_eff) == (6.0, 4.0)
    # observation-level Wilson would have counted 24 independent observations
    assert Wilson(12, 24).high == pytest.approx(0.6857, abs=5e-5)


def test_no_between_case_variation_is_floored_at_one():
    # every case: 3 agreements out of 6, all the variation is within the cases
    con = contract(repetitions_per_order=3)
    cases = [case(f"case-{i:03d}", "a", {"ab": ["a", "b", "a"], "ba": ["b", "a", "b"]}) for i in range(4)]
    iv = judge_rate_intervals(measure(con, snapshot(con, *cases)))["human_agreement"]
    assert (iv.successes, iv.observations, iv.cases) == (12, 24, 4)
    assert iv.deff == 1.0 and iv.n_eff == 24.0 and "measured 0, floored at 1" in iv.method
    w = Wilson(12, 24)
    assert (iv.low, iv.high) == pytest.approx((w.low, w.high), abs=1e-15)


def test_independent_observations_give_a_design_effect_near_one():
    rng = random.Random(7)
    con = contract(repetitions_per_order=3)
    cases = [case(f"case-{i:03d}", "a", {o: [rng.choice("aab") for _ in range(3)] for o in ("ab", "ba")})
             for i in range(300)]
    iv = judge_rate_intervals(measure(con, snapshot(con, *cases)))["human_agreement"]
    assert iv.cases == 300 and iv.observations == 1800
    assert 1.0 <= iv.deff < 1.15  # iid within and across cases: ~1, never below 1


def test_position_flip_has_one_observation_per_case_and_keeps_wilson():
    con = contract(maximum_position_flip_bps=500)
    stable = {"ab": ["a", "a"], "ba": ["a", "a"]}
    flip = {"ab": ["a", "a"], "ba": ["b", "b"]}
    m = measure(con, snapshot(con, *[case(f"case-{i:03d}", "a", flip if i < 4 else stable) for i in range(100)]))
    iv = judge_rate_intervals(m)["position_flip"]
    assert (iv.successes, iv.observations, iv.cases, iv.deff) == (4, 100, 100, 1.0)
    assert "no clustering" in iv.method
    assert (iv.low, iv.high) == pytest.approx((Wilson(4, 100).low, Wilson(4, 100).high), abs=1e-15)
    assert iv.high == pytest.approx(0.0984, abs=5e-5)  # the existing strict test's "Wilson high 9.8% > 5%"


# --- a 4-case set: the honest bound is far wider -----------------------------------------------


def test_the_illustrative_four_cases_upper_bounds_are_far_above_observation_wilson():
    m = bundle("judge_illustrative.json").measurement
    ivs = judge_rate_intervals(m)
    z2 = Z * Z
    # no variation (every rate is 0 or 1): worst case, one observation's worth per case
    expected = {  # name: (successes, observations, cases, deff, n_eff)
        "human_agreement": (16, 16, 4, 4.0, 4.0),
        "position_flip": (0, 4, 4, 1.0, 4.0),
        "repeat_variance": (0, 8, 4, 2.0, 4.0),
        "verbosity_bias": (0, 12, 3, 4.0, 3.0),
        "self_preference": (0, 4, 1, 4.0, 1.0),
    }
    for name, (s, n, k, deff, n_eff) in expected.items():
        iv = ivs[name]
        assert (iv.successes, iv.observations, iv.cases, iv.deff, iv.n_eff) == (s, n, k, deff, n_eff), name
    # at p = 0 the Wilson upper bound is z^2 / (n + z^2)
    assert ivs["repeat_variance"].high == pytest.approx(z2 / (4 + z2), abs=1e-15) == pytest.approx(0.48989, abs=1e-5)
    assert Wilson(0, 8).high == pytest.approx(z2 / (8 + z2), abs=1e-15) == pytest.approx(0.32441, abs=1e-5)
    assert ivs["verbosity_bias"].high == pytest.approx(0.56150, abs=1e-5)  # was 0.24249 over 12 observations
    assert Wilson(0, 12).high == pytest.approx(0.24249, abs=1e-5)
    assert ivs["self_preference"].high == pytest.approx(z2 / (1 + z2), abs=1e-15) == pytest.approx(0.79345, abs=1e-5)
    assert ivs["human_agreement"].low == pytest.approx(4 / (4 + z2), abs=1e-15) == pytest.approx(0.51011, abs=1e-5)
    assert Wilson(16, 16).low == pytest.approx(0.80639, abs=1e-5)
    # far above a 5% limit: every max rate's upper bound is at least 0.48
    assert all(ivs[n].high > 0.48 for n in ("position_flip", "repeat_variance", "verbosity_bias", "self_preference"))


def test_strict_mode_fails_the_four_cases_that_pass_on_the_point():
    m = bundle("judge_illustrative.json").measurement
    point = decide(m)
    assert point.decision == "PASS_CALIBRATION" and all(g.bound_passed is None for g in point.gates)
    strict = decide(m, CalibrationThresholds.from_contract(m.contract, strict=True))
    assert strict.decision == "FAIL_CALIBRATION"
    assert [g.bound_passed for g in strict.gates] == [False] * 5


def test_strict_mode_now_fails_a_set_the_observation_level_bound_passed():
    # 8 cases x 2 orders x 10 repetitions, the judge always agrees: 160/160 observations
    con, m = _clustered([True] * 8, reps=10, minimum_human_agreement_bps=9000)
    rate = m.human_agreement
    assert (rate.numerator, rate.denominator) == (160, 160)
    limit = Fraction(9000, 10_000)
    assert Wilson(160, 160).low_at_least(limit)  # observation level: low 0.9766, the old strict gate passed
    assert Wilson(160, 160).low == pytest.approx(160 / (160 + Z * Z), abs=1e-15)
    iv = judge_rate_intervals(m)["human_agreement"]
    assert (iv.deff, iv.n_eff, iv.cases) == (20.0, 8.0, 8)
    assert iv.low == pytest.approx(8 / (8 + Z * Z), abs=1e-15) == pytest.approx(0.67559, abs=1e-5)
    assert decide(m).decision == "PASS_CALIBRATION"
    strict = decide(m, CalibrationThresholds.from_contract(con, strict=True))
    assert strict.decision == "FAIL_CALIBRATION"
    assert strict.gates[0].name == "human_agreement" and strict.gates[0].bound_passed is False
    # the others' limits are 10000 bps; verbosity and self-preference have no opportunity
    assert [g.bound_passed for g in strict.gates[1:]] == [True, True, None, None]
    # with 60 such cases the case-aware bound clears 0.9 too: 60 / (60 + z^2) = 0.9399
    con, m = _clustered([True] * 60, reps=10, minimum_human_agreement_bps=9000)
    assert decide(m, CalibrationThresholds.from_contract(con, strict=True)).decision == "PASS_CALIBRATION"


# --- the sample data against a straightforward re-implementation -------------------------------


def _reference_counts(contract: dict, references: list[dict], observations: list[dict]) -> dict[str, list[tuple[int, int]]]:
    """Per rate, (y_i, m_i) of every contributing case, from the raw records, with plain loops."""
    by_case: dict[str, list[dict]] = defaultdict(list)
    for ob in observations:
        by_case[ob["case_id"]].append(ob)
    judge = contract["judge_generator"]
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for ref in references:
        obs = by_case[ref["case_id"]]
        pref = ref["preferred_candidate"]
        out["human_agreement"].append((sum(o["selected_candidate"] == pref for o in obs), len(obs)))
        verdicts, unstable = [], 0
        for order in ("ab", "ba"):
            picks = {o["selected_candidate"] for o in obs if o["order"] == order}
            unstable += len(picks) > 1
            verdicts.append(next(iter(picks)) if len(picks) == 1 else None)
        out["repeat_variance"].append((unstable, 2))
        if None not in verdicts:
            out["position_flip"].append((int(verdicts[0] != verdicts[1]), 1))
        first = obs[0]
        a_tok, b_tok = first["candidate_a_tokens"], first["candidate_b_tokens"]
        longer = "b" if pref == "a" and a_tok < b_tok else "a" if pref == "b" and b_tok < a_tok else None
        if longer:
            out["verbosity_bias"].append((sum(o["selected_candidate"] == longer for o in obs), len(obs)))
        a_gen, b_gen = first["candidate_a_generator"], first["candidate_b_generator"]
        own = None
        if a_gen != b_gen:
            own = "a" if a_gen == judge else "b" if b_gen == judge else None
        if own and pref not in (own, "tie"):
            out["self_preference"].append((sum(o["selected_candidate"] == own for o in obs), len(obs)))
    return out


def _reference_interval(counts: list[tuple[int, int]]) -> tuple[float, float, float, float]:
    """(deff, n_eff, low, high): the documented method, written out in floats."""
    k = len(counts)
    n = sum(m for _, m in counts)
    s = sum(y for y, _ in counts)
    p = s / n
    cap = sum(m * m for _, m in counts) / n
    if k == 1 or s in (0, n):
        deff = cap
    else:
        v_c = k / (k - 1) * sum((y - p * m) ** 2 for y, m in counts) / n ** 2
        v_srs = p * (1 - p) / n
        deff = min(max(v_c / v_srs, 1.0), cap)
    n_eff = n / deff
    centre = p + Z * Z / (2 * n_eff)
    half = Z * math.sqrt(p * (1 - p) / n_eff + Z * Z / (4 * n_eff * n_eff))
    low = 0.0 if s == 0 else (centre - half) / (1 + Z * Z / n_eff)
    high = 1.0 if s == n else (centre + half) / (1 + Z * Z / n_eff)
    return deff, n_eff, low, high


@pytest.mark.parametrize("name", ["judge_failing.json", "judge_illustrative.json"])
def test_sample_intervals_match_a_plain_reimplementation(name):
    raw = json.loads((S / name).read_text())
    counts = _reference_counts(raw["contract"], raw["snapshot"]["references"], raw["snapshot"]["observations"])
    m = bundle(name).measurement
    ivs = judge_rate_intervals(m)
    assert set(ivs) == set(counts) == {r.name for r in m.rates}
    for rate in m.rates:
        c = counts[rate.name]
        assert (sum(y for y, _ in c), sum(m_ for _, m_ in c)) == (rate.numerator, rate.denominator)
        deff, n_eff, low, high = _reference_interval(c)
        iv = ivs[rate.name]
        assert iv.cases == len(c)
        assert iv.deff == pytest.approx(deff, abs=1e-9) and iv.n_eff == pytest.approx(n_eff, abs=1e-9)
        assert iv.low == pytest.approx(low, abs=1e-9) and iv.high == pytest.approx(high, abs=1e-9)


def test_the_failing_sample_numbers():
    ivs = judge_rate_intervals(bundle("judge_failing.json").measurement)
    expected = {  # name: (cases, observations, deff, low, high); observation-level Wilson in comments
        "human_agreement": (240, 1440, 5.253428, 0.584720, 0.697437),  # [0.617960, 0.667390]
        "position_flip": (233, 233, 1.0, 0.077297, 0.158479),  # the same
        "repeat_variance": (240, 480, 1.0, 0.007082, 0.029793),  # the same (measured 0.989)
        "verbosity_bias": (119, 714, 5.386830, 0.383604, 0.551062),  # [0.430072, 0.503061]
        "self_preference": (28, 168, 5.192213, 0.396897, 0.720158),  # [0.489884, 0.638141]
    }
    for name, (k, n, deff, low, high) in expected.items():
        iv = ivs[name]
        assert (iv.cases, iv.observations) == (k, n), name
        assert (iv.deff, iv.low, iv.high) == pytest.approx((deff, low, high), abs=1e-6), name
    assert ivs["human_agreement"].n_eff_exact == Fraction(28438849, 103751)


def test_the_csv_trio_gives_the_same_intervals_as_the_bundle():
    trio = parse_judge_tables("c.json", (S / "judge_failing_contract.json").read_bytes(),
                              "r.csv", (S / "judge_failing_references.csv").read_bytes(),
                              "o.csv", (S / "judge_failing_observations.csv").read_bytes())
    a = judge_rate_intervals(trio.measurement)
    b = judge_rate_intervals(bundle("judge_failing.json").measurement)
    assert {k: (v.low, v.high, v.deff) for k, v in a.items()} == {k: (v.low, v.high, v.deff) for k, v in b.items()}


def test_partial_audit_skips_unavailable_rates_and_counts_referenced_cases():
    b = parse_judge_log((LOGS / "mt_bench_gpt-4_pair.jsonl").name, (LOGS / "mt_bench_gpt-4_pair.jsonl").read_bytes(),
                        ("h.jsonl", (LOGS / "mt_bench_human_judgments.jsonl").read_bytes()))
    m = b.measurement
    ivs = judge_rate_intervals(m)
    assert set(ivs) == {"human_agreement", "position_flip", "self_preference"}
    assert set(m.unavailable) == {"repeat_variance", "verbosity_bias"}
    ha = ivs["human_agreement"]
    assert (ha.successes, ha.observations, ha.cases) == (188, 254, 128)  # only the cases with a reference
    assert ivs["position_flip"].cases == 142 and ivs["position_flip"].deff == 1.0
    assert all(1.0 <= v.deff for v in ivs.values())


def test_missing_per_case_counts_fall_back_to_observation_wilson():
    class NoCases:
        rates = bundle("judge_failing.json").measurement.rates
        unavailable: dict = {}

    ivs = judge_rate_intervals(NoCases())
    iv = ivs["human_agreement"]
    w = Wilson(926, 1440)
    assert iv.deff == 1.0 and iv.cases == 0 and "no per-case counts" in iv.method
    assert (iv.low, iv.high) == pytest.approx((w.low, w.high), abs=1e-15)


# --- exactness ---------------------------------------------------------------------------------


def test_float_bounds_agree_with_the_exact_helpers():
    ivs = [*judge_rate_intervals(bundle("judge_failing.json").measurement).values(),
           *judge_rate_intervals(bundle("judge_illustrative.json").measurement).values()]
    for iv in ivs:
        if iv.high < 1:
            assert iv.high_at_most(Fraction(iv.high)) and not iv.high_at_most(Fraction(math.nextafter(iv.high, 0)))
        if iv.low > 0:
            assert iv.low_at_least(Fraction(iv.low)) and not iv.low_at_least(Fraction(math.nextafter(iv.low, 1)))
        for bps in range(0, 10_001, 7):
            t = Fraction(bps, 10_000)
            assert iv.high_at_most(t) == (t >= Fraction(iv.high)), (iv.name, bps)
            assert iv.low_at_least(t) == (t <= Fraction(iv.low)), (iv.name, bps)
    assert abs(Z95 - 1.959963984540054) < 1e-15


def test_diagnostics_keep_wilson_and_add_intervals():
    m = bundle("judge_failing.json").measurement
    d = judge_diagnostics(m)
    assert set(d.wilson) == set(d.intervals) == {r.name for r in m.rates}
    assert d.wilson["human_agreement"].high == pytest.approx(0.667390, abs=1e-6)
    assert d.intervals["human_agreement"].high == pytest.approx(0.697437, abs=1e-6)


def test_report_json_and_markdown_carry_the_interval():
    b = bundle("judge_illustrative.json")
    report = calibration_report(b, decide(b.measurement, ThresholdSet().calibration), ThresholdSet(), [(b.file, b"x")])
    rates = {r["name"]: r for r in report["calibration"]["rates"]}
    rv = rates["repeat_variance"]
    assert rv["interval95"] == [0.0, 0.489891] and rv["wilson95"] == [0.0, 0.324408]
    assert (rv["cases"], rv["observations"], rv["design_effect"], rv["effective_n"]) == (4, 8, 2.0, 4.0)
    assert "worst case" in rv["interval_method"]
    md = to_markdown(report)
    assert ("| repeat_variance | 0/8 | 0 | <= 500 | pass | [0.00%, 48.99%] (4 cases, 8 observations) **fragile** | 2 |"
            in md)
    assert "(1 case, 4 observations)" in md
