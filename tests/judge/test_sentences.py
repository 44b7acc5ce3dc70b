"""No sentence contradicts the test it cites: 1,000 simulated audits (planted judges with and without a
slot preference, 30-120 cases, ties, unstable repetitions) through the pipeline, each position
sentence read against its own numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agreebound.app.synthetic import PlantedDesign, PlantedJudge, planted_frames
from agreebound.core.gate import Gate
from agreebound.judge.bias import position_attribution
from agreebound.judge.frames import measure_frames

AUDITS = 1_000


@pytest.fixture(scope="module")
def audits():
    rng = np.random.default_rng(53)
    out = []
    for i in range(AUDITS):
        judge = PlantedJudge("slot", disagreement=0.15, first_slot=float(rng.choice([0.0, 0.04, 0.08, 0.15])),
                             instability=float(rng.choice([0.0, 0.1])))
        design = PlantedDesign(n_cases=int(rng.choice([30, 60, 120])), repetitions=int(rng.choice([1, 2])) + 1,
                               tie_share=0.1)
        contract, refs, obs, header = planted_frames(judge, design, (53, i), exact=False)
        m = measure_frames(contract, refs, obs, scope=header["scope"], contract_content_id=header["contract_content_id"],
                           rubric_digest=header["rubric_digest"])
        out.append(m.bias)
    return out


def test_the_first_slot_sentence_its_interval_and_its_test_never_disagree(audits):
    """"a preference for the ... slot" exactly when the interval excludes 50% exactly when the
    score test it cites has p < 0.05; and the planted preferences are found often enough to show
    the sentence is not always "no preference" (when written: 391 of the 1,000 audits)."""
    said = 0
    for b in audits:
        fs = b["first_slot"]
        excludes = not fs.low <= 0.5 <= fs.high
        claims = "a preference for the" in fs.sentence
        assert claims == excludes == (fs.p_value < 0.05), (fs.sentence, fs.p_value, fs.low, fs.high)
        assert ("the interval holds 50%" in fs.sentence) == (not excludes)
        said += claims
    assert 200 < said < 800, said


def test_the_position_flip_reading_follows_the_mcnemar_test_it_cites(audits):
    """A failing position-flip gate reads "a slot preference" exactly when McNemar's exact test,
    which the reading cites, has p < 0.05."""
    read = 0
    for b in audits:
        mc = b["mcnemar"]
        if mc.p_value is None:
            continue
        text = position_attribution(Gate("position_flip", "max", Fraction(1, 2), Fraction(1, 20), passed=False), b)
        assert text is not None
        assert ("a slot preference, not only inconsistency" in text) == (mc.p_value < 0.05), (text, mc.p_value)
        read += 1
    assert read > 500
