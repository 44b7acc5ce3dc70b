"""The corrected headline (agreebound.judge.headline): equal to ppi-python's prediction-powered and
classical mean intervals on the same arrays, a worked example by hand, a judge log with human
references for part of its cases end to end, and the interval's coverage by simulation."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

from agreebound.judge.headline import corrected_headline, pair_headline
from agreebound.judge.counts import verdict_cells
from agreebound.app.pipeline import parse_judge_bundle, parse_judge_log

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_data" / "judge_logs"
MT = LOGS / "mt_bench_gpt-4_pair.jsonl"
HUMAN = LOGS / "mt_bench_human_judgments.jsonl"
TOL = 1e-9


def simulated_cases(rng: np.random.Generator, cases: int, labelled: int, *, error: float = 0.3,
                    tie: float = 0.1, first_wins: float = 0.6, max_m: int = 1) -> dict:
    """Cases between m1 and m2 (m1 shown in either slot): the humans' label, and m verdicts (1 to
    max_m per case) each the humans' label with probability 1 - error, else one of the other two."""
    human = rng.choice(3, size=cases, p=[first_wins * (1 - tie), (1 - first_wins) * (1 - tie), tie])  # m1, m2, tie
    m = rng.integers(1, max_m + 1, size=cases)
    wrong = rng.random((cases, max_m)) < error
    other = (human[:, None] + rng.integers(1, 3, size=(cases, max_m))) % 3  # either other label
    vote = np.where(wrong, other, human[:, None])
    votes = np.zeros((cases, 3), dtype=np.int64)
    for slot in range(max_m):
        given = slot < m
        np.add.at(votes, (np.flatnonzero(given), vote[given, slot]), 1)
    m1_in_a = rng.random(cases) < 0.5
    labels = np.zeros(cases, dtype=bool)
    labels[rng.choice(cases, size=labelled, replace=False)] = True
    return {"human": human, "votes": votes, "m1_in_a": m1_in_a, "labelled": labels}


def cells_of(sim: dict) -> dict:
    """The cases' verdict cells, through judge_counts.verdict_cells (slots a/b, human codes a/b/tie)."""
    in_a = sim["m1_in_a"]
    a_gen = np.where(in_a, "m1", "m2")
    b_gen = np.where(in_a, "m2", "m1")
    v = sim["votes"]
    a_votes, b_votes = np.where(in_a, v[:, 0], v[:, 1]), np.where(in_a, v[:, 1], v[:, 0])
    h = sim["human"]
    human = np.where(h == 2, 2, np.where((h == 0) == in_a, 0, 1))  # 0: slot a preferred, 1: slot b, 2: tie
    return verdict_cells(a_gen, b_gen, sim["labelled"], human, a_votes, b_votes, v[:, 2])


def arrays_of(sim: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Y, Yhat labelled, Yhat unlabelled) for m1, straight from the simulated cases."""
    v = sim["votes"]
    yhat = (v[:, 0] + 0.5 * v[:, 2]) / v.sum(axis=1)
    y = np.select([sim["human"] == 0, sim["human"] == 2], [1.0, 0.5], 0.0)
    lab = sim["labelled"]
    return y[lab], yhat[lab], yhat[~lab]


@pytest.mark.parametrize("seed, cases, labelled, error, max_m", [
    (1, 400, 60, 0.3, 1), (2, 1000, 150, 0.1, 3), (3, 250, 200, 0.45, 5), (4, 90, 12, 0.2, 4),
    (5, 3000, 40, 0.3, 2), (6, 30, 3, 0.3, 7), (7, 500, 499, 0.3, 3), (8, 300, 100, 0.67, 2),
])
def test_equal_to_ppi_python_mean_intervals_on_the_same_arrays(seed, cases, labelled, error, max_m):
    sim = simulated_cases(np.random.default_rng(seed), cases, labelled, error=error, max_m=max_m)
    y, yhat, yhat_u = arrays_of(sim)
    h = corrected_headline(SimpleNamespace(verdicts=cells_of(sim)))
    (p,) = h.pairs
    assert (p.first, p.second, p.labelled, p.unlabelled) == ("m1", "m2", labelled, cases - labelled)
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=None)
    point = ppi_mean_pointestimate(y, yhat, yhat_u, lam=None)
    assert p.ppi.value == pytest.approx(float(point[0]), abs=TOL)
    assert p.ppi.low == pytest.approx(float(low[0]), abs=TOL)
    assert p.ppi.high == pytest.approx(float(high[0]), abs=TOL)
    h_low, h_high = classical_mean_ci(y, alpha=0.05)
    assert (p.human.value, p.human.low, p.human.high) == pytest.approx((y.mean(), h_low, h_high), abs=TOL)
    everything = np.concatenate([yhat, yhat_u])
    j_low, j_high = classical_mean_ci(everything, alpha=0.05)
    assert (p.judge.value, p.judge.low, p.judge.high) == pytest.approx((everything.mean(), j_low, j_high), abs=TOL)
    # the gain: n var(human) / var(PPI) - n, with ppi-python's standard errors
    se_human, se_ppi = (h_high - h_low) / 2, (high[0] - low[0]) / 2
    assert p.gain_labels == pytest.approx(labelled * se_human ** 2 / se_ppi ** 2 - labelled, rel=1e-9)
    assert p.judge_off_points == pytest.approx((everything.mean() - point[0]) * 100, abs=1e-7)


def test_the_judge_exact_sums_are_fractions_of_the_cells():
    sim = simulated_cases(np.random.default_rng(11), 200, 50, max_m=4)
    (p,) = corrected_headline(SimpleNamespace(verdicts=cells_of(sim))).pairs
    v = sim["votes"]
    # the judge's score per case is (2 x votes for m1 + ties) / 2m: its mean an exact fraction
    assert p.judge.exact == sum(Fraction(int(2 * a + t), int(2 * (a + b + t))) for a, b, t in v) / 200
    assert p.human.exact == Fraction(int(2 * (sim["human"][sim["labelled"]] == 0).sum()
                                         + (sim["human"][sim["labelled"]] == 2).sum()), 2 * 50)


def test_worked_example_by_hand():
    # labelled: judge and humans both for m1 three times, both for m2 twice, judge for m1 where the
    # humans chose m2 once; unlabelled: the judge for m1 five times, for m2 once. By hand:
    # cov(Y, Yhat) = 3/6 - 1/2 * 2/3 = 1/6; the sample variance of all twelve scores (nine 1s) is
    # (9 - 81/12) / 11 = 9/44; lam = (1/6) / ((1 + 6/6) 9/44) = 11/27;
    # PPI = 1/2 + 11/27 (5/6 - 2/3) = 46/81 = 56.79%; its variance
    # (11/27)^2 (5/36) / 6 + (1/4 - 2 (11/27)(1/6) + (11/27)^2 (2/9)) / 6 = 2285/78732;
    # the humans' (1/4) / 6 = 1/24; the gain 6 (1/24) / (2285/78732) - 6 = 2.614 labels.
    cells = {("m1", "m2", True, 1, 2, 2): 3, ("m1", "m2", True, 1, 0, 0): 2, ("m1", "m2", True, 1, 2, 0): 1,
             ("m1", "m2", False, 1, 2, -1): 5, ("m1", "m2", False, 1, 0, -1): 1}
    p = pair_headline("m1", "m2", cells.items())
    half = 1.959963984540054 * (2285 / 78732) ** 0.5
    assert p.lam == pytest.approx(11 / 27, abs=1e-15)
    assert (p.ppi.value, p.ppi.low, p.ppi.high) == pytest.approx((46 / 81, 46 / 81 - half, 46 / 81 + half), abs=1e-12)
    assert p.gain_labels == pytest.approx(6 * 78732 / (24 * 2285) - 6, rel=1e-12)
    assert (p.judge.exact, p.human.exact) == (Fraction(3, 4), Fraction(1, 2))
    assert p.sentence == (
        "m1 vs m2: the judge alone gives m1 a win rate of 75.0% [50.5, 99.5] over 12 cases (ties count half); "
        "corrected with the 6 cases that have a human reference (prediction-powered), 56.8% [23.4, 90.2]; the "
        "humans alone give 50.0% [10.0, 90.0] over 6 cases. The judge-only estimate is off by +18.2 points; the "
        "judge's verdicts are worth about 3 more human labels here.")


def mt_bench_arrays() -> dict[tuple[str, str], tuple[list[float], list[float], list[float]]]:
    """Y and Yhat per pair (first model in name order) straight from the raw FastChat files: the
    judge's two games (errors left out), the humans' plurality vote (a tied plurality is a tie)."""
    votes: dict[tuple, list[str]] = {}
    for line in HUMAN.read_text().splitlines():
        h = json.loads(line)
        winner = {"model_a": h["model_a"], "model_b": h["model_b"]}.get(h["winner"], "tie")
        votes.setdefault((h["question_id"], h["turn"], frozenset((h["model_a"], h["model_b"]))), []).append(winner)
    out: dict[tuple[str, str], tuple[list[float], list[float], list[float]]] = {}
    for line in MT.read_text().splitlines():
        r = json.loads(line)
        first, second = sorted((r["model_1"], r["model_2"]))
        picks = [{"model_1": r["model_1"], "model_2": r["model_2"]}.get(g, "tie")
                 for g in (r["g1_winner"], r["g2_winner"]) if g != "error"]
        y, yhat, yhat_u = out.setdefault((first, second), ([], [], []))
        score = (picks.count(first) + picks.count("tie") / 2) / len(picks)
        vs = votes.get((r["question_id"], r["turn"], frozenset((first, second))))
        if not vs:
            yhat_u.append(score)
            continue
        count = Counter(vs)
        leaders = [v for v, c in count.items() if c == max(count.values())]
        human = leaders[0] if len(leaders) == 1 else "tie"
        y.append(1.0 if human == first else 0.5 if human == "tie" else 0.0)
        yhat.append(score)
    return out


def test_a_judge_log_with_references_for_part_of_its_cases_end_to_end():
    b = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes()))
    h = b.measurement.headline
    assert h is b.measurement.headline  # measured once
    raw = mt_bench_arrays()
    assert [(p.first, p.second, p.labelled, p.unlabelled) for p in h.pairs] == [
        ("claude-v1", "gpt-4", 43, 5), ("gpt-3.5-turbo", "vicuna-13b-v1.3", 40, 8),
        ("llama-13b", "vicuna-13b-v1.3", 45, 3)]  # 16 of 144 cases without a human reference
    for p in h.pairs:
        y, yhat, yhat_u = (np.array(a) for a in raw[(p.first, p.second)])
        low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
        assert (p.ppi.low, p.ppi.high) == pytest.approx((low[0], high[0]), abs=TOL)
    shown = [(p.judge.points(), p.ppi.points(), p.human.points(), f"{p.judge_off_points:+.1f}", round(p.gain_labels))
             for p in h.pairs]
    assert shown == [
        ("43.8% [34.0, 53.5]", "51.3% [39.8, 62.7]", "51.2% [39.3, 63.0]", "-7.5", 3),
        ("56.8% [46.6, 67.0]", "63.3% [51.9, 74.8]", "65.0% [52.9, 77.1]", "-6.6", 5),
        ("46.4% [35.1, 57.6]", "33.8% [22.1, 45.5]", "34.4% [22.6, 46.3]", "+12.6", 1),
    ]
    assert h.pairs[0].sentence == (
        "claude-v1 vs gpt-4: the judge alone gives claude-v1 a win rate of 43.8% [34.0, 53.5] over 48 cases (ties "
        "count half); corrected with the 43 cases that have a human reference (prediction-powered), 51.3% "
        "[39.8, 62.7]; the humans alone give 51.2% [39.3, 63.0] over 43 cases. The judge-only estimate is off by "
        "-7.5 points; the judge's verdicts are worth about 3 more human labels here.")
    assert h.pairs[2].sentence.endswith("the judge's verdicts are worth about 1 more human label here.")
    assert h.note.endswith("128 cases have a human reference and 16 do not: the judge's verdicts on the labelled "
                           "cases measure its errors, which correct it on the others. The correction holds when the labelled "
                           "cases are a random sample of all the cases; if the humans labelled chosen cases (the hard "
                           "ones, one model's), it is biased by that choice.")
    d = h.to_dict()
    # stored to 6 decimals: the same bytes on every platform
    assert json.loads(json.dumps(d)) == d and d["pairs"][0]["ppi"]["interval95"] == [0.398497, 0.627291]
    assert d["pairs"][0]["ppi"]["interval95"] == [round(h.pairs[0].ppi.low, 6), round(h.pairs[0].ppi.high, 6)]


def test_a_full_audit_makes_the_human_only_estimate_the_headline():
    data = (ROOT / "sample_data" / "judge_failing.json").read_bytes()
    h = parse_judge_bundle("judge_failing.json", data).measurement.headline
    assert all(p.ppi is None and p.unlabelled == 0 and p.gain_labels is None for p in h.pairs)
    first = h.pairs[0]
    assert (first.first, first.second, first.labelled) == ("candidate-a", "candidate-b", 180)
    assert "every case has a human reference, so the human-only estimate, 51.4% [44.4, 58.4], is the headline " \
           "(prediction-powered inference needs cases without one); the judge-only estimate is off by -2.8 points." \
           in first.sentence
    assert "Every case has a human reference: the human-only estimates are the headline" in h.note


def test_edges_few_labels_none_a_constant_judge_and_a_judge_that_adds_nothing():
    one = pair_headline("x", "y", [(("x", "y", True, 2, 4, 2), 1), (("x", "y", False, 2, 0, -1), 9)])
    assert one.ppi is None and (one.human.value, one.human.low) == (1.0, None)
    assert "only 1 case has a human reference (fewer than 2): no corrected estimate and no human interval " \
           "(the humans alone give 100.0% over 1 case)." in one.sentence
    none = pair_headline("x", "y", [(("x", "y", False, 2, 0, -1), 9)])
    assert none.human is None and none.ppi is None and none.judge.value == 0.0
    assert none.sentence.endswith("no case has a human reference, so the judge's estimate cannot be corrected.")
    # a judge that always says tie carries nothing: lam is 0 (ppi-python's is 0/0) and PPI is the humans'
    flat = pair_headline("x", "y", [(("x", "y", True, 2, 2, 2), 3), (("x", "y", True, 2, 2, 0), 5),
                                    (("x", "y", False, 2, 2, -1), 4)])
    assert flat.lam == 0 and (flat.ppi.low, flat.ppi.high) == pytest.approx((flat.human.low, flat.human.high))
    assert flat.sentence.endswith("the judge's verdicts add nothing here: correlation too low.")
    # a judge whose verdicts ignore the humans' adds nothing either
    sim = simulated_cases(np.random.default_rng(5), 400, 100, error=2 / 3)
    (p,) = corrected_headline(SimpleNamespace(verdicts=cells_of(sim))).pairs
    assert p.gain_labels < 1 and "add nothing here: correlation too low" in p.sentence
    assert corrected_headline(None).pairs == () and corrected_headline(None).note.startswith("No case compares")


def counted_cells(sim: dict) -> dict:
    """The same cells as :func:`cells_of`, counted directly (m1 first): quicker, for the simulation."""
    v, h = sim["votes"], sim["human"]
    y = np.where(sim["labelled"], np.select([h == 0, h == 2], [2, 1], 0), -1)
    keys = zip(sim["labelled"].tolist(), v.sum(axis=1).tolist(), (2 * v[:, 0] + v[:, 2]).tolist(), y.tolist())
    return {("m1", "m2", lab, m, w, yy): k for (lab, m, w, yy), k in Counter(keys).items()}


def test_the_ppi_interval_covers_the_true_win_rate_in_about_95_percent_of_simulated_logs():
    # A judge that errs 30% of the time at random (either other label), 1 or 2 verdicts per case;
    # the humans prefer m1 in 60% x 90% of cases and tie in 10%: the true win rate is 0.54 + 0.05.
    # 1000 logs of 1000 cases, 200 of them with a human reference.
    rng = np.random.default_rng(2024)
    truth = 0.6 * 0.9 + 0.1 / 2
    covered, covered_human, gains, logs = 0, 0, [], 1000
    for i in range(logs):
        sim = simulated_cases(rng, 1000, 200, error=0.3, max_m=2)
        cells = counted_cells(sim)
        if i == 0:
            assert cells == cells_of(sim)
        (p,) = corrected_headline(SimpleNamespace(verdicts=cells)).pairs
        covered += p.ppi.low <= truth <= p.ppi.high
        covered_human += p.human.low <= truth <= p.human.high
        gains.append(p.gain_labels)
    assert 0.93 <= covered / logs <= 0.97, covered  # seeded: 948 of 1000 (94.5% over 6 seeds)
    assert 0.93 <= covered_human / logs <= 0.97, covered_human  # the human-only interval alike: 947 of 1000
    assert 80 < np.median(gains) < 120  # a 30%-noisy judge on 800 more cases is worth about 100 labels
