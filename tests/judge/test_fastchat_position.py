"""Acceptance (issue 24): on a FastChat pairwise judgment log, the position measures, each with its
interval: the first-slot rate, McNemar's test on the directed flips, and the flip rate with and
without ties.

The log is our own, in FastChat's ``gpt-4_pair.jsonl`` shape, generated from a seed with a planted
first-slot preference (tests/support/fastchat_log.py), and read through the public path
(``agreebound.app.pipeline.parse_judge_log``). Every expected value is computed here from the log's
records, independently of agreebound: the fractions by hand count, the exact tests by
``scipy.stats.binomtest`` and statsmodels' McNemar, the Wilson intervals by statsmodels, and the
first-slot rate's case-clustered interval from its definition (a Wilson interval at the effective
number of verdicts, the design effect of the cases' cluster-robust variance floored at 1).

On the real FastChat log the issue quotes (a FastChat fork's ``gpt-4_pair.jsonl``: GPT-4 judging
phi-3 against phi-3-dpo, 75 records, 3 judgments errors; not committed) the same path gives the
issue's fractions: first slot 79/122 = 64.8%, 16 of the 18 decisive flips favouring the first slot
(McNemar exact p = 0.0013), flips 27/73 with ties and 18/56 without. The issue's interval for the
first slot, [58.5, 71.2], is judgecal's cluster bootstrap; ours is [55.9, 72.7]: the cases'
measured design effect is 0.589 (a case's two verdicts tend to split between the slots), and ours
is floored at 1, never narrower than the verdict-level Wilson interval.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import pytest
from scipy import stats
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from agreebound.app.pipeline import parse_judge_log
from tests.support.fastchat_log import fastchat_log, games, to_jsonl

Z = NormalDist().inv_cdf(0.975)
TOL = 1e-9
DECISIVE = ("a", "b")


@pytest.fixture(scope="module")
def log():
    records = fastchat_log()
    return games(records), parse_judge_log("gpt-4_pair.jsonl", to_jsonl(records)).measurement


def wilson(p: float, n: float, z: float = Z) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_the_log_is_read_as_fastchat_games(log):
    g, m = log
    assert len(g) == 160 and sum(x.ab is None for x in g) + sum(x.ba is None for x in g) == 4
    assert m.notes[0] == ("read as MT-Bench pairwise judgments by gpt-4: 160 cases (question, turn, model pair); "
                          "game 1 is order ab, game 2 order ba")
    assert "4 judgments the harness could not parse ('error') were left out" in m.notes
    assert m.counts.n_cases == 159  # one record lost both games
    assert not {"position_flip"} & set(m.unavailable)  # the position measures need no human reference


def test_first_slot_rate_its_clustered_interval_and_exact_test(log):
    g, m = log
    # per case: verdicts that pick the first-shown answer (model_1 in game 1, model_2 in game 2) of its decisive ones
    y = [(x.ab == "a") + (x.ba == "b") for x in g]
    n = [(x.ab in DECISIVE) + (x.ba in DECISIVE) for x in g]
    cases = [(yi, ni) for yi, ni in zip(y, n) if ni]
    Y, N, k = sum(y), sum(n), len(cases)
    assert (Y, N, k) == (159, 258, 145)
    fs = m.bias["first_slot"]
    assert (fs.fraction, fs.exact) == ("159/258", Fraction(159, 258))
    p = Y / N
    raw = k / (k - 1) * sum((yi - p * ni) ** 2 for yi, ni in cases) / (N * p * (1 - p))
    deff = min(max(raw, 0.25), sum(ni * ni for _, ni in cases) / N)
    assert 0.25 < deff < 1.0  # consistent verdicts (one first-slot pick per case) make the cases less variable
    # Wilson at the effective n with Student's t quantile over the cases (k - 1 degrees of freedom)
    q = stats.t.ppf(0.975, k - 1)
    low, high = wilson(p, N / deff, q)
    assert (fs.low, fs.high) == (pytest.approx(low, abs=TOL), pytest.approx(high, abs=TOL))
    assert f"design effect {raw:.3g} over {k} cases" in fs.method
    # the cluster-robust (ratio-estimator) standard error gives the same width within a point
    se = math.sqrt(k / (k - 1) * sum((yi - p * ni) ** 2 for yi, ni in cases)) / N
    assert abs((high - low) - 2 * q * se) < 0.01
    # the test is the one the interval inverts: the score test of 1/2 at the same effective n, against t(k - 1)
    score = 2 * stats.t.sf(math.sqrt(4 * (N / deff) * (p - 0.5) ** 2), k - 1)
    assert fs.p_value == pytest.approx(score, rel=1e-6)
    assert fs.low > 0.5 and fs.p_value < 0.05  # the planted preference is found, and the two agree
    assert fs.sentence == (f"The judge picks the first-shown candidate in {100 * p:.1f}% [{100 * low:.1f}, "
                           f"{100 * high:.1f}] of its decisive verdicts: a preference for the first slot "
                           f"(score test {'p < 0.0001' if score < 1e-4 else f'p = {score:.2g}'}, the test this "
                           "interval inverts).")
    assert fs.test.startswith("score test of 50% at the interval's effective n")


def test_mcnemar_on_the_directed_flips(log):
    g, m = log
    pairs = [(x.ab, x.ba) for x in g if x.ab in DECISIVE and x.ba in DECISIVE]
    table = [[sum(p == (r, c) for p in pairs) for c in DECISIVE] for r in DECISIVE]  # game 1 x game 2 verdicts
    first_both, second_both = table[0][1], table[1][0]  # a then b: the first-shown answer both times
    assert (first_both, second_both) == (21, 3)
    mc = m.bias["mcnemar"]
    assert (mc.fraction, mc.exact) == ("21/24", Fraction(21, 24))
    exact = mcnemar(table, exact=True).pvalue
    assert exact == pytest.approx(binomtest(21, 24, 0.5).pvalue, rel=TOL)
    assert mc.p_value == pytest.approx(exact, rel=TOL)
    low, high = proportion_confint(21, 24, alpha=0.05, method="wilson")
    assert (mc.low, mc.high) == (pytest.approx(low, abs=TOL), pytest.approx(high, abs=TOL))
    assert mc.low > 0.5
    assert mc.sentence == f"21 of the 24 decisive flips favour the first slot, 3 the second (McNemar exact p = {exact:.2g})."
    assert mc.sentence == "21 of the 24 decisive flips favour the first slot, 3 the second (McNemar exact p = 0.00028)."


def test_flip_rates_with_and_without_ties(log):
    g, m = log
    both = [(x.ab, x.ba) for x in g if x.ab is not None and x.ba is not None]
    decisive = [(a, b) for a, b in both if a in DECISIVE and b in DECISIVE]
    expected = {"flip_with_ties": (sum(a != b for a, b in both), len(both)),
                "flip_decisive": (sum(a != b for a, b in decisive), len(decisive))}
    assert expected == {"flip_with_ties": (54, 157), "flip_decisive": (24, 113)}
    for name, (flips, n) in expected.items():
        r = m.bias[name]
        assert (r.fraction, r.exact) == (f"{flips}/{n}", Fraction(flips, n))
        low, high = proportion_confint(flips, n, alpha=0.05, method="wilson")
        assert (r.low, r.high) == (pytest.approx(low, abs=TOL), pytest.approx(high, abs=TOL))
        assert r.method == f"Wilson over {n} independent cases"
    # the seed's gate reads the same flips
    assert (m.position_flip.numerator, m.position_flip.denominator) == (54, 157)
    assert m.bias["flip_with_ties"].points() == "34.4% [27.4, 42.1]"
    assert m.bias["flip_decisive"].points() == "21.2% [14.7, 29.7]"
