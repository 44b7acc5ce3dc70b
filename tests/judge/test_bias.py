"""Bias or disagreement (agreebound.judge.bias): each measure hand-computed on a small audit, the
issue's numbers on the failing sample, the opt-in net gates and the content id they leave alone."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.core.thresholds import CalibrationThresholds
from agreebound.judge.decide import decide
from agreebound.judge.measure import measure
from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, JudgeCalibrationContract
from agreebound.judge.bias import binomial_two_sided, clustered_variance, verdict_notes
from agreebound.judge.counts import RateStats
from agreebound.app.pipeline import parse_judge_bundle
from agreebound.render.report import calibration_report
from agreebound.render.markdown import to_markdown
from agreebound.core.thresholds import ThresholdSet, threshold_set_from_dict
from tests.support.judge_records import case, contract, snapshot

ROOT = Path(__file__).resolve().parents[2]
FAILING = ROOT / "sample_data" / "judge_failing.json"


def small_audit(**kw):
    """Five cases, 2 orders x 2 repetitions, every measure's cases worked by hand below."""
    con = contract(**kw)
    return con, measure(con, snapshot(
        con,
        # human prefers the shorter a; judge picks a in ab, b (the longer) in ba: first slot 4 of 4,
        # a first-both pair; verbosity: 2 of 4 longer picks
        case("case-one", "a", {"ab": ["a", "a"], "ba": ["b", "b"]}, a_tok=50, b_tok=90),
        # human prefers the longer b; judge picks a (shorter) once in ab: the mirror error 1 of 4;
        # ab unstable: no directed flip
        case("case-two", "b", {"ab": ["a", "b"], "ba": ["b", "b"]}, a_tok=50, b_tok=90),
        # the judge's own b, humans prefer a: it picks b, shown first in ba, twice of 4 (self error 2 of 4)
        case("case-three", "a", {"ab": ["a", "a"], "ba": ["b", "b"]}, b_gen="judge-v1"),
        # a tie preferred; judge says tie in ab, a in ba: one decisive order, not a decisive pair
        case("case-four", "tie", {"ab": ["tie", "tie"], "ba": ["a", "a"]}),
        # control: no own candidate, humans prefer b; judge picks a (rejected) in ab only; a second-both pair
        case("case-five", "b", {"ab": ["b", "b"], "ba": ["a", "a"]}),
    ))


def test_every_measure_hand_computed():
    _, m = small_audit()
    b = m.bias
    # first slot: decisive verdicts 4+4+4+2+4 = 18; first-shown picks: one 4, two (ab a, ba b,b,b: a=1 of ab, 2 of
    # ba) 3, three 4, four (ba a: second-shown) 0, five (ab b: second, ba a: second) 0 -> 11
    assert b["first_slot"].fraction == "11/18"
    # directed flips: case-one and case-three pick the first-shown both times, case-five the second-shown both
    assert (m.counts.first_both, m.counts.second_both) == (2, 1)
    assert b["mcnemar"].fraction == "2/3" and b["mcnemar"].p_value == 1.0
    # the seed's flip: stable in both orders: one, three, four, five; flipped: one, three, four (tie vs a), five
    assert b["flip_with_ties"].fraction == "4/4"
    # decisive pairs: one, three, five (four has a tie)
    assert b["flip_decisive"].fraction == "3/3"
    # verbosity: the seed's (human prefers the shorter): case-one, 2 longer picks of 4; the mirror (human
    # prefers the longer): case-two, 1 shorter pick of 4; net = 2/4 - 1/4
    assert (b["verbosity_bias"].fraction, b["verbosity_mirror"].fraction) == ("2/4", "1/4")
    assert b["verbosity_net"].exact == Fraction(1, 4) and b["verbosity_net"].fraction == "2/4 - 1/4"
    # judgemetry's: decisive unequal cases one and two: judge picks the longer b 2 + 3 = 5 of 8, humans 4 of 8
    assert b["length_excess"].fraction == "5/8 - 4/8" and b["length_excess"].exact == Fraction(1, 8)
    # self: case-three, judge picks its own b 2 of 4; control (no own candidate, humans decided): one, two,
    # five: rejected picks 2 (one: b) + 1 (two: a) + 2 (five: a) = 5 of 12
    assert (b["self_preference"].fraction, b["self_control"].fraction) == ("2/4", "5/12")
    assert b["self_error_excess"].exact == Fraction(1, 2) - Fraction(5, 12)
    # one case in the self set: its Wilson interval at the worst-case design effect (one observation's worth)
    # still gives the difference an honest width, within [-1, 1]
    excess = b["self_error_excess"]
    assert -1 <= excess.low < 0 < float(excess.exact) < excess.high <= 1 and excess.method.startswith("MOVER")
    # the net of strength: the one own pair (candidate-a, judge-v1) has case-three, where the judge gives its
    # own b 2 of 4 verdicts and the humans none: 1/2 - 0. The other pair's human shares (+1/2, -1/2, 0, -1/2
    # over cases one, two, four, five: mean -1/8) spread 4 (1/8)^2 = 1/16, less their noise 11/48
    # (44/64 over 3 degrees of freedom): nothing left to scale, so the slope is 1
    net = b["self_preference_net"]
    assert (net.exact, net.fraction) == (Fraction(1, 2), "1/2 - 0")
    assert net.low is None and net.method.startswith("no interval: fewer than 10 cases on the judge's own pairs")
    assert net.sentence.startswith("The excess attributable to self-preference is 50.0 points (too few cases for an "
                                   "interval). It assumes the judge scales")


def test_clustered_variance_and_exact_test_by_hand():
    # cases 2/4 and 1/4: theta = 3/8; residuals 2 - 1.5 = 0.5 and 1 - 1.5 = -0.5; 2/1 * 0.5 / 64
    assert clustered_variance(RateStats(3, 8, 2, 5, 12, 32)) == Fraction(1, 64)
    # a signed numerator (judgemetry's per-case differences): +1 and -1 of 2 each: theta 0, 2 * 2 / 16
    assert clustered_variance(RateStats(0, 4, 2, 2, 0, 8)) == Fraction(1, 4)
    # 16 of 18 flips favour the first slot: 2 * (1 + 18 + 153) / 2^18, the issue's FastChat count
    assert binomial_two_sided(16, 18) == pytest.approx(2 * 172 / 2 ** 18, abs=0)
    assert binomial_two_sided(2, 18) == binomial_two_sided(16, 18)
    # the float tail above the exact limit agrees with the rational sum to 1e-12 (relative)
    from math import comb
    n, k = 2_400, 1_140
    exact = float(Fraction(2 * sum(comb(n, i) for i in range(k + 1)), 2 ** n))
    assert binomial_two_sided(k, n) == pytest.approx(exact, rel=1e-12)


def test_failing_sample_reads_as_the_issue_says():
    m = parse_judge_bundle(FAILING.name, FAILING.read_bytes()).measurement
    b = m.bias
    assert b["verbosity_bias"].fraction == "333/714" and f"{b['verbosity_bias'].value:.1%}" == "46.6%"
    assert b["verbosity_mirror"].fraction == "96/618" and f"{b['verbosity_mirror'].value:.1%}" == "15.5%"
    assert b["verbosity_net"].points() == "31.1 points [20.3, 41.0]"
    assert b["self_preference"].fraction == "95/168" and b["self_control"].fraction == "289/1002"
    assert f"{b['self_preference'].value:.1%} {b['self_control'].value:.1%}" == "56.5% 28.8%"
    notes = verdict_notes(decide(m).gates, b)
    assert notes[1] == ("Fails the contract's verbosity limit; the excess attributable to length is 31.1 points "
                        "[20.3, 41.0]: a length bias beyond general disagreement.")


def test_a_contract_without_net_gates_keeps_its_content_id_and_one_with_them_does_not():
    seed_id = "judge-calibration@sha256:27575a4cb05907995935c4ba3c8e7e96c9614d1504a90442d48060067f7ce2f1"
    assert ILLUSTRATIVE_CONTRACT.content_id == seed_id and "maximum_verbosity_net_bps" not in ILLUSTRATIVE_CONTRACT.to_dict()
    fields = {**ILLUSTRATIVE_CONTRACT.to_dict(), "maximum_verbosity_net_bps": 500}
    v2 = JudgeCalibrationContract(**fields)
    assert v2.content_id != seed_id and v2.net_gated and v2.to_dict()["maximum_verbosity_net_bps"] == 500
    with pytest.raises(ValueError, match="maximum_self_preference_net_bps must be between 0 and 10000"):
        JudgeCalibrationContract(**{**fields, "maximum_self_preference_net_bps": 10_001})


def test_net_gates_decide_when_the_contract_opts_in():
    _, m = small_audit()
    assert [g.name for g in decide(m).gates] == ["human_agreement", "position_flip", "repeat_variance",
                                                "verbosity_bias", "self_preference"]
    con, m = small_audit(maximum_verbosity_net_bps=2_000)  # net 1/4 = 25 points > 20
    d = decide(m)
    net = d.gate("verbosity_net")
    assert (net.exact, net.threshold, net.passed) == (Fraction(1, 4), Fraction(1, 5), False)
    assert d.decision == "FAIL_CALIBRATION" and d.seed_decision == "FAIL_CALIBRATION"
    con, m = small_audit(maximum_verbosity_net_bps=2_500)  # exactly at the limit: passes
    assert decide(m).gate("verbosity_net").passed and decide(m).decision == "PASS_CALIBRATION"


def test_net_gates_in_the_reports_and_a_thresholds_file():
    con, m = small_audit(maximum_self_preference_net_bps=500)  # 1/2 - 0 = 50 points > 5
    t = threshold_set_from_dict({"calibration": {**CalibrationThresholds.from_contract(con).to_dict()}}, "file:t")
    assert t.calibration.maximum_self_preference_net_bps == 500
    report = calibration_report(_bundle_of(m), decide(_bundle_of(m).measurement, ThresholdSet(calibration=t.calibration).calibration), ThresholdSet(calibration=t.calibration), [])
    net = report["calibration"]["net_gates"]
    assert [(g["name"], g["exact"], g["threshold_bps"], g["passed"]) for g in net] == [
        ("self_preference_net", "1/2", 500, False)]
    assert report["calibration"]["decision"] == "FAIL_CALIBRATION"
    assert "- Contract gate self_preference_net (<= 5 points): FAIL" in to_markdown(report)


def _bundle_of(m):
    from types import SimpleNamespace

    import pandas as pd

    from agreebound.app.judge_input import judge_human_alpha

    return SimpleNamespace(measurement=m, contract=m.contract, scope=m.scope, contract_content_id=m.contract_content_id,
                           rubric_digest=m.rubric_digest, rebound_from=None, judge_human_alpha=judge_human_alpha(m.counts),
                           observations=pd.DataFrame(), observation_records=pd.DataFrame(), slices=None, harness="")


def test_the_cli_and_markdown_say_the_bias_measures_and_the_plans(capsys, tmp_path):
    from agreebound.cli.main import main

    root = ROOT / "sample_data"
    assert main(["calibrate", str(root / "judge_illustrative.json")]) == 0
    out = capsys.readouterr().out
    # the 4-case example passes on fragile gates: 0/4 flips against 5% needs about 69 more cases
    assert ("  position_flip: 0/4 = 0 bps (<= 500): pass\n    95% interval [0.00%, 48.99%] (4 cases, 4 observations; "
            "design effect 1): fragile, it holds the threshold\n    detects a true value 42.4 points from the threshold at 4 cases (80% power; design "
            "effect 1); about 69 more cases would decide it, if the rate holds") in out
    assert "  First-slot rate: 50.0% = 6/12 [" in out
    assert main(["panel", str(root / "krippendorff_2011.csv")]) == 0
    out = capsys.readouterr().out
    assert "  alpha: detects a true value 0.406 from the threshold at 11 units (80% power)\n" in out
    assert ("  alpha 0.743, 95% interval [0.415, 1.000]: fragile, the interval holds the floor 0.600 (another sample "
            "of the same size could reach the other verdict); about 78 more units would decide it") in out
    report = tmp_path / "judge.md"
    assert main(["calibrate", str(FAILING), "--report", str(report)]) == 1
    text = report.read_text()
    assert "### Bias or disagreement?" in text
    # (Markdown-escaped: the sentences pass through the one escape every report text takes)
    assert "| Verbosity net of disagreement | 31.1 points | 333\\/714 \\- 96\\/618 | [20.3, 41.0] | - |" in text
    assert ("- Fails the contract\\'s verbosity limit\\; the excess attributable to length is 31\\.1 points "
            "\\[20\\.3\\, 41\\.0\\]\\: a length bias beyond general disagreement\\.") in text


def test_a_net_gate_with_nothing_to_compare_against_is_never_a_pass():
    # 20 cases, the humans prefer the shorter a, the judge always picks the longer b: the raw verbosity rate
    # is 100%, and no case has the humans preferring the longer (no mirror): the net cannot be measured
    con = contract(maximum_verbosity_net_bps=500)
    cases = [case(f"case-{i:03d}", "a", {"ab": ["b", "b"], "ba": ["b", "b"]}, a_tok=50, b_tok=90) for i in range(20)]
    d = decide(measure(con, snapshot(con, *cases)))
    net = d.gate("verbosity_net")
    assert (net.passed, net.state, net.detail) == (None, "not evaluable", "no opportunities for the comparison rate")
    assert d.decision == "INCOMPLETE" and d.seed_decision == "INCOMPLETE"
    assert d.reason == ("the contract gates on 1 measure net of disagreement this audit cannot measure "
                        "(verbosity_net: no opportunities for the comparison rate)")
    # no case where the humans preferred the shorter either: nothing for the raw rate to count, the gate passes
    ties = [case(f"case-{i:03d}", "tie", {"ab": ["tie", "tie"], "ba": ["tie", "tie"]}) for i in range(4)]
    d = decide(measure(con, snapshot(con, *ties)))
    assert d.gate("verbosity_net").passed is True and d.decision == "PASS_CALIBRATION"


def test_without_a_contract_the_notes_say_outside_a_limit_not_fails_a_contract():
    m = parse_judge_bundle(FAILING.name, FAILING.read_bytes()).measurement
    from dataclasses import replace as copy

    d = decide(copy(m, contract_given=False))
    notes = verdict_notes(d.gates, m.bias, d.contract_origin)
    assert d.contract_origin == "illustrative" and d.decision == "INCOMPLETE"  # its limits are the example's
    assert notes[1] == ("Is outside the illustrative verbosity limit (no contract: nothing is decided); the excess "
                        "attributable to length is 31.1 points [20.3, 41.0]: a length bias beyond general "
                        "disagreement.")
    assert not any("contract's" in n for n in notes)
