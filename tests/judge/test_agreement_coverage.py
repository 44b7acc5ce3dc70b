"""Coverage of the per-vote agreement intervals (agreebound.judge.agreement) by simulation.

Cases are drawn independently from a population (each case a latent truth a, b or tie; one to
four human votes and the judge's vote drawn given it), so the case is the sampling unit, as the
intervals assume. The population values are exact: every figure is a ratio of expectations
summed over the truth, the number of votes and every split of the votes (multinomial), and kappa
is the population's (the plurality reference against the judge's vote). Each interval's coverage
over the simulated sets must lie within [0.92, 0.98] (fixed seeds: deterministic).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from agreebound.judge.agreement import cohen_kappa, human_agreement, kappa_of

TRUTH = np.array([0.45, 0.35, 0.20])  # a, b, tie
HUMAN = np.array([[0.75, 0.10, 0.15], [0.10, 0.75, 0.15], [0.25, 0.25, 0.50]])  # a human's vote given the truth
JUDGE = np.array([[0.70, 0.10, 0.20], [0.15, 0.65, 0.20], [0.30, 0.30, 0.40]])  # the judge's vote given the truth
VOTES = (1, 2, 3, 4)  # votes per case, equally likely
NAMES = ("judge_human_with_ties", "judge_human_without_ties", "human_human_with_ties", "human_human_without_ties")


def pairs(k: int) -> float:
    return k * (k - 1) / 2


def plurality(counts: tuple[int, int, int]) -> int:
    top = max(counts)
    return counts.index(top) if counts.count(top) == 1 else 2


def population() -> dict[str, float]:
    """The exact population values: E[y] / E[m] for each rate, their differences, and kappa."""
    ey = dict.fromkeys(NAMES, 0.0)
    em = dict.fromkeys(NAMES, 0.0)
    joint = np.zeros((3, 3))  # (reference, judge) probabilities
    for c, pc in enumerate(TRUTH):
        for n in VOTES:
            w = pc / len(VOTES)
            for split in itertools.product(range(n + 1), repeat=3):
                if sum(split) != n:
                    continue
                na, nb, nt = split
                p = w * math.factorial(n) / (math.factorial(na) * math.factorial(nb) * math.factorial(nt)) * \
                    HUMAN[c, 0] ** na * HUMAN[c, 1] ** nb * HUMAN[c, 2] ** nt
                joint[plurality(split)] += p * JUDGE[c]
                for j, q in enumerate(JUDGE[c]):
                    ey["judge_human_with_ties"] += p * q * split[j]
                    em["judge_human_with_ties"] += p * q * n
                    if j != 2:
                        ey["judge_human_without_ties"] += p * q * split[j]
                        em["judge_human_without_ties"] += p * q * (na + nb)
                ey["human_human_with_ties"] += p * (pairs(na) + pairs(nb) + pairs(nt))
                em["human_human_with_ties"] += p * pairs(n)
                ey["human_human_without_ties"] += p * (pairs(na) + pairs(nb))
                em["human_human_without_ties"] += p * pairs(na + nb)
    out = {name: ey[name] / em[name] for name in NAMES}
    out["with_ties"] = out["judge_human_with_ties"] - out["human_human_with_ties"]
    out["without_ties"] = out["judge_human_without_ties"] - out["human_human_without_ties"]
    po, pe = np.trace(joint), float(joint.sum(axis=1) @ joint.sum(axis=0))
    out["kappa"] = (po - pe) / (1 - pe)
    return out


def simulate(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.choice(3, k, p=TRUTH)
    n = rng.choice(VOTES, k)
    humans = np.stack([rng.multinomial(n[i], HUMAN[truth[i]]) for i in range(k)])
    judge = np.array([rng.choice(3, p=JUDGE[t]) for t in truth])
    return judge, humans


@pytest.mark.parametrize("cases,sets,seed", [(40, 600, 1), (150, 600, 2)])
def test_every_interval_covers_about_95_percent(cases, sets, seed):
    truth = population()
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys([*NAMES, "with_ties", "without_ties", "kappa"], 0)
    for _ in range(sets):
        judge, humans = simulate(rng, cases)
        h = human_agreement(judge, humans, voters=cases)
        for name in NAMES:
            iv = h.rates[name].interval
            hits[name] += iv.low <= truth[name] <= iv.high
        for name in ("with_ties", "without_ties"):
            d = h.differences[name]
            hits[name] += d.low <= truth[name] <= d.high
        confusion = np.zeros((3, 3), dtype=np.int64)
        np.add.at(confusion, ([plurality(tuple(int(x) for x in row)) for row in humans], judge), 1)
        k = cohen_kappa(confusion)
        hits["kappa"] += k.low <= truth["kappa"] <= k.high
    coverage = {name: h / sets for name, h in hits.items()}
    print(cases, "cases:", {name: round(float(c), 3) for name, c in coverage.items()})
    assert all(0.92 <= c <= 0.98 for c in coverage.values()), coverage


def test_the_population_values_are_what_the_model_says():
    """A sanity check of the enumeration: with one vote per case there is no human pair, and the
    judge-human agreement with ties is sum_c pi_c sum_l q_cl p_cl."""
    expected = float(sum(TRUTH[c] * JUDGE[c] @ HUMAN[c] for c in range(3)))
    assert population()["judge_human_with_ties"] == pytest.approx(expected)
    assert kappa_of(np.array([[5, 0, 0], [0, 5, 0], [0, 0, 0]])) == Fraction(1)
