"""The bias measures' 95% intervals (agreebound.judge.bias), checked by simulation: judges with
planted defects drawn independently (agreebound.app.synthetic.planted_frames(exact=False)), each
measure's interval against the true value the generator planted (synthetic.implants)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agreebound.judge.frames import measure_frames
from agreebound.app.synthetic import PlantedDesign, PlantedJudge, implants, planted_frames

#: Every defect at once, so each interval meets a measure away from its null and the cases are
#: clustered as a real audit's are (2 orders x 3 repetitions, unstable groups, position-bound cases).
MIXED = PlantedJudge("mixed", disagreement=0.15, first_slot=0.1, second_slot=0.03, length=0.2, self_preference=0.3,
                     instability=0.1)
DESIGN = PlantedDesign(n_cases=600)
AUDITS = 300
COVERED = ("first_slot", "verbosity_net", "length_excess", "self_error_excess", "self_preference_net")
#: The self-preference net of strength takes the wider of two intervals (agreebound.judge.self_preference):
#: conservative by construction where both hold, so up to 99% is accepted for it.
UPPER = {"self_preference_net": 297}


def covered(judge: PlantedJudge, design: PlantedDesign, seed: int) -> dict[str, int]:
    """How many of AUDITS simulated audits' 95% intervals cover each measure's planted value (a
    measure without an interval covers nothing)."""
    planted = implants(judge, design)
    hits = dict.fromkeys(COVERED, 0)
    for i in range(AUDITS):
        contract, refs, obs, header = planted_frames(judge, design, (seed, i), exact=False)
        bias = measure_frames(contract, refs, obs, scope=header["scope"],
                              contract_content_id=header["contract_content_id"],
                              rubric_digest=header["rubric_digest"]).bias
        for name in COVERED:
            m = bias[name]
            hits[name] += m.low is not None and m.low <= planted[name] <= m.high
    return hits


@pytest.fixture(scope="module")
def coverage() -> dict[str, int]:
    return covered(MIXED, DESIGN, 2024)


@pytest.mark.parametrize("name", COVERED)
def test_interval_covers_its_planted_value_95_percent_of_the_time(coverage, name):
    """At 95% the count of covering intervals in 300 audits is Binomial(300, 0.95): mean 285, sd 3.8.
    Accepting 276..294 (92% to 98%) is +-2.4 sd: a correct interval fails it about 1.6% of the
    time, one at 90% coverage (270 expected) or a degenerate 100% one is refused. The seeds are
    fixed, so the count is the same on every run (when written: first_slot 288, verbosity_net 286,
    length_excess 290, self_error_excess 280, self_preference_net 295 of 300)."""
    assert 276 <= coverage[name] <= UPPER.get(name, 294), \
        f"{name}: {coverage[name]}/{AUDITS} intervals cover the planted value"


def test_the_planted_values_are_away_from_the_nulls():
    """The coverage above is checked where the measures are not at their nulls (a degenerate
    interval at the null would cover it trivially)."""
    planted = implants(MIXED, DESIGN)
    assert planted["first_slot"] == Fraction(85187, 159174)  # 53.5%
    assert planted["verbosity_net"] == Fraction(659141, 5000000)  # 13.2 points
    assert planted["length_excess"] == planted["verbosity_net"] / 2  # humans prefer the longer in half the cases
    assert planted["self_error_excess"] == Fraction(942123, 5000000)  # 18.8 points
    # the net of strength: P(judge picks own) - P(humans pick own) over every own case, ties included
    assert planted["self_preference_net"] == (1 - Fraction(1, 10)) * planted["self_error_excess"] / 2  # 8.5 points


#: A clean judge on a small audit: the self set holds about 15 cases and the judge's own rejected
#: candidate is rarely picked, so the raw rates are often 0 (where a Wald interval of the difference
#: collapses and claims a bias). The intervals must still cover the planted values.
CLEAN = PlantedJudge("clean")
SMALL = PlantedDesign(n_cases=120)


@pytest.fixture(scope="module")
def small_coverage() -> dict[str, int]:
    return covered(CLEAN, SMALL, 77)


@pytest.mark.parametrize("name", COVERED)
def test_a_clean_judge_on_a_small_audit_is_covered_too(small_coverage, name):
    """At least 92% of 300 audits (276): a rate of 0 in a set of ~15 cases keeps an honest width
    (MOVER from the case-clustered Wilson intervals; the worst-case design effect where nothing
    varies), so the interval errs wide, not narrow, on such audits (up to 100% is accepted). When
    written: first_slot 300 (a clean judge splits each case's verdicts evenly between the slots:
    the design effect is below 1 and floored at 1), verbosity_net 296, length_excess 290,
    self_preference_net 288 of 300; the self-preference rate was 0 in 161 of the 300 audits."""
    assert small_coverage[name] >= 276, f"{name}: {small_coverage[name]}/{AUDITS} intervals cover the planted value"
