"""`agreebound validate`: judges with planted defects audited by the pipeline, every bias measure
read against its planted value (agreebound.app.validate), and the generator's true values
(agreebound.app.synthetic.implants)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

import agreebound.judge.frames as calibration
import agreebound.judge.measure as judge_measure
from agreebound.cli.main import main
from agreebound.judge.bias import BiasMeasures, measure_bias, verdict_notes
from agreebound.app.synthetic import ScoredJudge, PlantedDesign, PlantedJudge, implants, planted_frames
from agreebound.app.validate import JUDGES, MEASURES, audit, table, validate

NOISY_SENTENCE = ("Fails the contract's verbosity limit; the excess attributable to length is 0.3 points "
                  "[-6.7, 7.3]: the failure is mostly general disagreement.")


@pytest.fixture(scope="module")
def validation():
    return validate(seed=0)


def _row(text: str, judge: str, measure: str) -> list[str]:
    """A table line's cells (split on runs of 2+ spaces)."""
    import re

    line = next(x for x in text.splitlines() if x.split()[:2] == [judge, measure])
    return re.split(r"\s{2,}", line.strip())


def test_validate_holds_and_exits_0(capsys):
    assert main(["validate"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("agreebound validate: 6 judges with planted defects, each audited by the pipeline "
                                   "(800 cases x 2 orders x 3 repetitions; seed 0)")
    assert out.rstrip().splitlines()[-1] == (
        "validate: holds: 78 measures recovered their planted values, every bias flag as planted (clean and noisy "
        "judges: none), 6 verdicts as planted; 7 graded and pass/fail judges as planted")
    assert "MISS" not in out
    assert ("  graded-noisy: expected FAIL_CALIBRATION; found FAIL_CALIBRATION (admissibility fails, judge_alpha "
            "fails)") in out
    assert ("  graded-exchangeable: expected PASS_CALIBRATION; found PASS_CALIBRATION (admissibility passes, "
            "judge_alpha passes)") in out
    assert ("  graded-lenient: expected leniency flagged (its 95% interval excludes 0); found leniency +0.56 scale "
            "points [+0.51, +0.61]") in out
    # planted, measured, interval, recovered, flag planted, flag raised
    assert _row(out, "noisy", "verbosity_net")[2:] == ["+0.0 pts", "+0.3 pts", "[-6.7, 7.3]", "yes", "no", "no"]
    assert _row(out, "length", "verbosity_net")[2:] == ["+27.0 pts", "+27.2 pts", "[20.8, 33.3]", "yes", "yes", "yes"]
    assert _row(out, "first-slot", "mcnemar")[2:] == ["83.3%", "83.2%", "[77.3, 87.9]", "yes", "yes", "yes"]
    assert _row(out, "clean", "mcnemar")[2:] == ["-", "-", "-", "yes", "no", "no"]
    assert _row(out, "unstable", "repeat_variance")[2:] == ["30.0%", "29.7%", "[27.5, 32.0]", "yes", "-", "-"]
    assert ("  noisy: expected verbosity_bias fails, the verdict says 'the failure is mostly general disagreement'; "
            f'found verbosity_bias fails: "{NOISY_SENTENCE}"') in out.splitlines()


def test_validate_rows(validation):
    assert validation.holds and validation.failures == ()
    assert [r.measure for r in validation.rows[:len(MEASURES)]] == list(MEASURES)
    assert [j.name for j in validation.judges] == ["clean", "first-slot", "length", "self-preference", "noisy",
                                                    "unstable"]
    raised = sorted((r.judge, r.measure) for r in validation.rows if r.flag_raised)
    assert raised == [("first-slot", "first_slot"), ("first-slot", "mcnemar"), ("length", "length_excess"),
                      ("length", "verbosity_net"), ("self-preference", "self_preference_net")]
    assert not any(r.flag_raised for r in validation.rows if r.judge in ("clean", "noisy", "unstable"))
    noisy = {r.measure: r for r in validation.rows if r.judge == "noisy"}
    assert noisy["verbosity_net"].estimate == Fraction(1, 324)  # 588/1944 - 582/1944
    assert noisy["verbosity_bias"].estimate == Fraction(588, 1944)


def test_validate_json(capsys):
    import json

    assert main(["validate", "--json", "--seed", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["holds"] is True and data["seed"] == 3 and data["failures"] == []
    assert len(data["rows"]) == 78 and len(data["checks"]) == 6
    row = next(r for r in data["rows"] if (r["judge"], r["measure"]) == ("length", "verbosity_net"))
    assert row["implant"] == "27/100" and row["flag_expected"] is True and row["flag_raised"] is True


@pytest.mark.parametrize("argv", [["validate", "--seed", "-1"], ["validate", "--seed", "x"],
                                  ["validate", "--seed", str(2**63)]])
def test_validate_bad_seed_exits_3(argv, capsys):
    assert main(argv) == 3
    assert "agreebound validate" in capsys.readouterr().err


def _broken(monkeypatch, name: str, fix) -> None:
    """The pipeline's bias measures with one measure broken on purpose (``fix``: the measure and all
    the measures -> the broken measure)."""
    def broken(counts, unavailable=None, *, judge=None):
        b = measure_bias(counts, unavailable, judge=judge)
        group = lambda ms: tuple(fix(m, b) if m.name == name else m for m in ms)  # noqa: E731
        return BiasMeasures(group(b.position), group(b.verbosity), group(b.self_preference), b.mix_note)

    monkeypatch.setattr(judge_measure, "measure_bias", broken)


def test_a_shifted_first_slot_fails_validate(monkeypatch, capsys):
    """A first-slot rate computed 10 points too high (its interval with it): exit 1, and the table
    names the measure on every judge."""
    _broken(monkeypatch, "first_slot", lambda m, b: replace(m, exact=m.exact + Fraction(1, 10), low=m.low + 0.1,
                                                             high=m.high + 0.1))
    assert main(["validate"]) == 1
    out = capsys.readouterr().out
    assert _row(out, "clean", "first_slot")[2:] == ["50.0%", "60.0%", "[59.3, 60.7]", "NO", "no", "yes", "MISS"]
    assert "validate: FAILS: 6 of 91 checks do not hold:" in out
    assert "  - clean judge, first_slot: planted 50.0% outside [59.3, 60.7]" in out
    assert "  - noisy judge, first_slot: planted 50.0% outside [59.3, 60.7]" in out
    assert [line for line in out.splitlines() if "MISS" in line and "first_slot" not in line] == []


def test_a_net_measure_that_forgets_the_mirror_fails_validate(monkeypatch):
    """A verbosity net that is the raw rate (the mirror not subtracted): the noisy and the clean
    judge raise a bias flag they should not; validate fails and says so."""
    _broken(monkeypatch, "verbosity_net", lambda m, b: replace(
        m, exact=b["verbosity_bias"].exact, low=b["verbosity_bias"].low, high=b["verbosity_bias"].high))
    v = validate(seed=0)
    assert not v.holds
    failing = {(r.judge, r.measure) for r in v.rows if not r.holds}
    assert failing == {(j.name, "verbosity_net") for j in JUDGES}
    assert "noisy judge, verbosity_net: planted +0.0 pts outside [25.5, 35.5]" in v.failures
    # the noisy judge's verdict now calls its failure a length bias: that check fails too
    assert [c.judge for c in v.checks if not c.holds] == ["noisy"]
    assert "FAILS" in table(v)


def test_noisy_judge_fails_the_raw_gate_as_general_disagreement():
    """Acceptance: on a planted noisy-but-unbiased judge the raw verbosity gate fails, the net
    verbosity interval includes 0, and the verdict says the failure is general disagreement."""
    noisy = JUDGES[4]
    assert noisy == PlantedJudge("noisy", disagreement=0.3)
    report = audit(noisy, PlantedDesign(), (0, 4))
    m, decision = report.bundle.measurement, report.decisions
    gate = decision.gate("verbosity_bias")
    assert (m.verbosity_bias.numerator, m.verbosity_bias.denominator) == (588, 1944)
    assert gate.passed is False and decision.decision == "FAIL_CALIBRATION"
    assert m.contract.maximum_verbosity_bias_bps == 500
    net = m.bias["verbosity_net"]
    assert net.fraction == "588/1944 - 582/1944" and net.includes_zero is True
    assert net.points() == "0.3 points [-6.7, 7.3]"
    assert verdict_notes(decision.gates, m.bias)[0] == NOISY_SENTENCE
    assert report.report["calibration"]["bias"]["verdict_notes"][0] == NOISY_SENTENCE


# --- the generator --------------------------------------------------------------------------------


def test_implants_in_closed_form():
    d = PlantedDesign()
    clean = implants(PlantedJudge("clean", disagreement=0.04), d)
    assert clean["first_slot"] == Fraction(1, 2) and clean["mcnemar"] is None
    assert clean["verbosity_bias"] == clean["verbosity_mirror"] == clean["self_control"] == Fraction(1, 25)
    assert clean["verbosity_net"] == clean["length_excess"] == clean["self_preference_net"] == 0
    assert clean["self_error_excess"] == 0
    first = implants(JUDGES[1], d)
    # q1 = 0.2, q2 = 0.04, e = 0.1, t = 0.1, r = 3: decisive base D = 0.91;
    # first picks 0.2 * 6 + 0.76 * 0.91 * 3 = 3.2748 of 0.24 * 6 + 0.76 * 0.91 * 6 = 5.5896
    assert first["first_slot"] == Fraction("3.2748") / Fraction("5.5896")
    assert first["mcnemar"] == Fraction(5, 6) and first["flip_with_ties"] == Fraction(6, 25)
    length = implants(JUDGES[2], d)
    # the longer picked when the humans preferred the shorter: 1 - 0.7 * 0.9; when they preferred the longer: 0.1
    assert length["verbosity_bias"] == Fraction(37, 100) and length["verbosity_mirror"] == Fraction(1, 10)
    assert length["length_excess"] == Fraction(27, 200)  # judgemetry's: half the net when humans split evenly
    assert length["self_preference_net"] == 0
    selfish = implants(JUDGES[3], d)
    assert selfish["self_preference"] == Fraction(46, 100) and selfish["self_error_excess"] == Fraction(36, 100)
    # the net of strength over every own case: half have the own candidate rejected, half preferred; ties give 0
    assert selfish["self_preference_net"] == Fraction(9, 10) * Fraction(36, 100) / 2
    assert selfish["verbosity_net"] == 0
    unstable = implants(JUDGES[5], d)
    # an unstable group's changed repetition: picks R at 0.1 + 0.3 / 3 * (1 - 0.2)
    assert unstable["repeat_variance"] == Fraction(3, 10) and unstable["verbosity_bias"] == Fraction(18, 100)
    assert unstable["first_slot"] == Fraction(1, 2) and unstable["verbosity_net"] == 0
    # humans who prefer the longer answer more often: judgemetry's excess reads general disagreement as
    # a preference for shorter answers; the net measure does not
    skewed = implants(PlantedJudge("noisy", disagreement=0.3), replace(d, human_longer=0.7))
    assert skewed["verbosity_net"] == 0 and skewed["length_excess"] == Fraction(-12, 100)


def test_planted_frames_hold_the_plants_exactly():
    """exact=True: every share planted within one unit of each stratum."""
    contract, refs, obs, header = planted_frames(PlantedJudge("noisy", disagreement=0.3), PlantedDesign(), 5)
    assert len(refs) == 800 and len(obs) == 800 * 2 * 3
    assert (refs["preferred_candidate"] == "tie").sum() == 80
    assert contract.maximum_verbosity_bias_bps == 500 and contract.repetitions_per_order == 3
    assert header["contract_content_id"] == contract.content_id
    m = calibration.measure_frames(contract, refs, obs, scope=header["scope"],
                                   contract_content_id=header["contract_content_id"],
                                   rubric_digest=header["rubric_digest"])
    assert abs(m.verbosity_bias.value - Fraction(3, 10)) < Fraction(1, 100)
    assert m.repeat_variance.numerator == 0 and m.position_flip.numerator == 0


def test_a_graded_judge_planted_against_its_verdict_fails_validate():
    """A noisier graded judge expected to pass: validate catches the mismatch and names it."""
    v = validate(seed=0, judges=(), scored=[(ScoredJudge("too-noisy", noise=1.2), (1, 5), "PASS_CALIBRATION", None)])
    assert not v.holds
    assert v.failures[0].startswith("too-noisy judge: expected PASS_CALIBRATION; found FAIL_CALIBRATION (admissibility "
                                    "fails")
