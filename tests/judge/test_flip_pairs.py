"""The position flip per repetition pair (agreebound.judge.bias, ``flip_pairs``): every decisive
verdict of order ab paired with every decisive verdict of order ba of the same case, as peers pair
judgments, so a noisy judge never reads clean on position (the flip among decisive pairs keeps only
the cases whose repetitions all agree)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS
from agreebound.judge.frames import measure_frames
from agreebound.judge.measure import measure
from tests.support.judge_records import DIGEST, case, contract, snapshot


def test_worked_by_hand():
    """case-one: ab a, b, a and ba a, a, b: 2 x 1 + 1 x 2 = 4 of the 3 x 3 pairs name different
    candidates; case-two: ab a, a, tie and ba b, b, b: 2 x 3 = 6 of 2 x 3 decisive pairs; case-three:
    stable, no flip: 0 of 9. Among decisive pairs only case-three counts (the others are unstable)."""
    con = contract(repetitions_per_order=3)
    m = measure(con, snapshot(con,
                              case("case-one", "a", {"ab": ["a", "b", "a"], "ba": ["a", "a", "b"]}),
                              case("case-two", "a", {"ab": ["a", "a", "tie"], "ba": ["b", "b", "b"]}),
                              case("case-three", "b", {"ab": ["b", "b", "b"], "ba": ["b", "b", "b"]})))
    pairs, decisive = m.bias["flip_pairs"], m.bias["flip_decisive"]
    assert (pairs.fraction, pairs.exact) == ("10/24", Fraction(5, 12))
    assert decisive.fraction == "0/1"
    assert pairs.low < 5 / 12 < pairs.high and "case" in pairs.method


def _noisy(rng: np.random.Generator, cases: int, reps: int, right: float):
    """A judge with no position preference whose every verdict is right (the human-preferred
    candidate) with probability ``right``, independently: its flips come from noise alone."""
    con = contract(repetitions_per_order=reps, judge_generator="judge-v1")
    ids = [f"case-{i:05d}" for i in range(cases)]
    preferred = rng.integers(0, 2, cases)
    refs = pd.DataFrame({"case_id": ids, "preferred_candidate": np.array(["a", "b"])[preferred],
                         "reviewer_ids": [("reviewer:one",)] * cases, "adjudicated": True}, columns=list(REFERENCE_FIELDS))
    rows = []
    for i, c in enumerate(ids):
        for order in ("ab", "ba"):
            for r in range(reps):
                pick = preferred[i] if rng.random() < right else 1 - preferred[i]
                rows.append((c, order, r + 1, "ab"[pick], 100, 100, "candidate-a", "candidate-b", "judge-v1"))
    obs = pd.DataFrame(rows, columns=list(OBSERVATION_FIELDS))
    return measure_frames(con, refs, obs, scope=con.scope, contract_content_id=con.content_id, rubric_digest=DIGEST)


def test_a_noisy_judge_reads_its_flips_per_pair_where_stable_cases_read_clean():
    """Each verdict right with probability 0.8, 5 repetitions per order: a pair of verdicts differs
    with probability 2 x 0.8 x 0.2 = 0.32; the cases whose 10 verdicts all agree are the ones the
    noise spared (each order all right or all wrong), among which the two orders rarely differ."""
    m = _noisy(np.random.default_rng(5), 600, 5, 0.8)
    pairs, decisive = m.bias["flip_pairs"], m.bias["flip_decisive"]
    assert pairs.low < 0.32 < pairs.high and abs(float(pairs.exact) - 0.32) < 0.03
    assert float(decisive.exact) < 0.05  # what the stable cases alone say of this judge
    assert m.counts.rates["flip_decisive"].denominator < 0.25 * 600  # few cases are stable
