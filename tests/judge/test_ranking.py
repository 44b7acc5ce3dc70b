"""Rankings from pairwise verdicts (agreebound.judge.ranking): the peers' own leaderboard code on the
sample MT-Bench log, small cases by hand, the bootstrap interval's coverage of planted strengths,
tie groups on planted equal models, the gate, and the prediction-powered ratings equal to
ppi-python's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_logistic_ci

from agreebound.core.errors import InputError
from agreebound.io.judge_logs import read_judge_log
from agreebound.judge.ranking import (
    ALPHA, GROUP_RULE, NoRatings, PPIRatings, RankingGate, battles_of, cells_of, decide_gate, fit_ratings,
    no_ranking_dict, ppi_ratings, ppi_shift, rank, ranking_dict,
)

ROOT = Path(__file__).resolve().parents[2]
MT = ROOT / "sample_data" / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"


def sample_battles() -> pd.DataFrame:
    return battles_of(read_judge_log(MT.name, MT.read_bytes()).observations)


# --- parity with the peers' leaderboard code ----------------------------------------------------------------
#
# The peers' own functions, run (outside this repository) on battles_of(the sample log) as their frame
# (model_a, model_b, winner = "model_a" / "model_b" / "tie"), with numpy 2.4, scipy 1.17, scikit-learn 1.9:
# * arena-hard-auto v0.1's utils_math.compute_mle_elo (lmarena/arena-hard-auto before commit 9a1d386, the code
#   behind its 2024 leaderboards: each battle twice, a tie as one a-win and one b-win, sklearn
#   LogisticRegression(fit_intercept=False, penalty=None, tol=1e-8); no gpt-4-0314 here, so no anchor);
# * FastChat's rating_systems.compute_bt (lm-sys/FastChat at 0e6d3e4b, Chatbot Arena's current code: a tie is
#   outcome 1/2, scipy L-BFGS-B with gtol 1e-6, maxiter 100; no mixtral-8x7b-instruct-v0.1, so no anchor), and
#   its compute_bootstrap_bt's draws (np.random.default_rng(0).multinomial over preprocess_for_bt's cells,
#   100 rounds) fitted one by one (its Pool.imap_unordered only reorders rows) and their pandas quantiles;
# * the same FastChat loss (bt_loss_and_grad) minimised to convergence (L-BFGS-B, gtol 1e-13, ftol 1e-16).
ARENA_HARD_V01 = {"gpt-3.5-turbo": 1038.8837570922024, "gpt-4": 1023.9219806199583,
                  "vicuna-13b-v1.3": 991.5443948812788, "claude-v1": 976.0780193800417,
                  "llama-13b": 969.5718480265188}
FASTCHAT_BT = {"gpt-3.5-turbo": 1038.8838167328024, "gpt-4": 1023.9220323442954,
               "vicuna-13b-v1.3": 991.5444983769898, "claude-v1": 976.0779676557046,
               "llama-13b": 969.5716848902078}
FASTCHAT_BT_CONVERGED = {"vicuna-13b-v1.3": 991.5443948764284, "llama-13b": 969.5718480213403,
                         "gpt-4": 1023.9219806206478, "gpt-3.5-turbo": 1038.8837571022311,
                         "claude-v1": 976.0780193793522}
FASTCHAT_BOOT_Q025 = {"vicuna-13b-v1.3": 962.1727354435455, "llama-13b": 926.7705707528559,
                      "gpt-4": 994.4575640667113, "gpt-3.5-turbo": 1004.1812965292743,
                      "claude-v1": 940.8944690569018}
FASTCHAT_BOOT_Q975 = {"vicuna-13b-v1.3": 1022.5408975680756, "llama-13b": 1014.2686889270466,
                      "gpt-4": 1059.105530943098, "gpt-3.5-turbo": 1078.2379545201459,
                      "claude-v1": 1005.5424359332887}
FASTCHAT_BOOT_CONVERGED_Q025 = {"vicuna-13b-v1.3": 962.1727748672902, "llama-13b": 926.7719053190563,
                                "gpt-4": 994.4575627715615, "gpt-3.5-turbo": 1004.1814034450126,
                                "claude-v1": 940.8945983524488}
FASTCHAT_BOOT_CONVERGED_Q975 = {"vicuna-13b-v1.3": 1022.5405585907679, "llama-13b": 1014.2686945124733,
                                "gpt-4": 1059.1054016475512, "gpt-3.5-turbo": 1078.2378451064346,
                                "claude-v1": 1005.5424372284385}


def test_sample_log_as_battles_keeps_candidate_terms_in_both_orders():
    b = sample_battles()
    # 48 records x 2 games, less the games FastChat could not parse
    assert len(b) == 286 and b["outcome"].value_counts().to_dict() == {"b": 115, "a": 109, "tie": 62}
    # line 3: model_1 gpt-4, model_2 claude-v1; game 1 (gpt-4 shown first) model_2, game 2 (claude-v1 shown
    # first) model_1: claude-v1 then gpt-4 won, in the same candidate columns
    q81 = b[b["case_id"] == "q81-t1-gpt-4-vs-claude-v1"]
    assert q81[["model_a", "model_b", "outcome"]].values.tolist() == [["gpt-4", "claude-v1", "b"],
                                                                      ["gpt-4", "claude-v1", "a"]]


def test_ratings_equal_arena_hard_v01_and_fastchat_on_the_sample_log():
    r = fit_ratings(sample_battles())
    assert list(r.index) == list(ARENA_HARD_V01) == list(FASTCHAT_BT)  # the same order
    for m, v in ARENA_HARD_V01.items():
        assert abs(r[m] - v) < 1e-6, m  # measured: 1e-8
    for m, v in FASTCHAT_BT_CONVERGED.items():
        assert abs(r[m] - v) < 1e-6, m  # measured: 1.3e-11
    # FastChat's own settings stop L-BFGS-B at scipy's default ftol first: 1.6e-4 points away at most
    diffs = [abs(r[m] - v) for m, v in FASTCHAT_BT.items()]
    assert 1e-5 < max(diffs) < 2e-4


def test_battle_bootstrap_draws_as_fastchat_draws_them():
    r = rank(sample_battles(), draws=100, seed=0, by_case=False)
    assert r.resampled == "battle" and r.left_out_draws == 0
    lo, hi = dict(zip(r.models, r.lower)), dict(zip(r.models, r.upper))
    for m in r.models:
        # the same resampled data: equal to FastChat's loss fitted to convergence on the same draws
        assert abs(lo[m] - FASTCHAT_BOOT_CONVERGED_Q025[m]) < 1e-5 and abs(hi[m] - FASTCHAT_BOOT_CONVERGED_Q975[m]) < 1e-5
        # and to its own (early-stopped) fits within their optimiser's error
        assert abs(lo[m] - FASTCHAT_BOOT_Q025[m]) < 2e-3 and abs(hi[m] - FASTCHAT_BOOT_Q975[m]) < 2e-3
    assert "100 draws, seed 0" in r.interval_method and "over battles" in r.interval_method


def test_the_sample_log_is_two_separate_sets_of_models():
    r = rank(sample_battles(), draws=200)
    assert r.components == (("gpt-3.5-turbo", "llama-13b", "vicuna-13b-v1.3"), ("claude-v1", "gpt-4"))
    # each set has mean 1000, as the peers' optimisers leave it
    rating = dict(zip(r.models, r.ratings))
    assert abs(rating["gpt-4"] + rating["claude-v1"] - 2000) < 1e-9
    assert abs(rating["gpt-3.5-turbo"] + rating["llama-13b"] + rating["vicuna-13b-v1.3"] - 3000) < 1e-9
    assert r.difference("gpt-4", "vicuna-13b-v1.3")[1:] == (None, None)
    assert r.resampled == "case"
    assert r.sentence().endswith("The comparisons form 2 separate sets of models: ratings compare only within a set.")


# --- small cases by hand ------------------------------------------------------------------------------------


def battles(*rows: tuple[str, str, str], cases: bool = False) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"])
    return frame.assign(case_id=[f"c{i}" for i in range(len(frame))]) if cases else frame


def test_two_models_are_the_log_odds_of_their_score_ties_half():
    # x: 3 wins and 2 ties, 4 of 7 against y; y 3 of 7: 400 log10(4 / 3) points apart, mean 1000
    b = battles(("x", "y", "a"), ("y", "x", "b"), ("x", "y", "a"), ("x", "y", "tie"), ("y", "x", "tie"),
                ("x", "y", "b"), ("y", "x", "a"))
    r = fit_ratings(b)
    assert abs((r["x"] - r["y"]) - 400 * math.log10(4 / 3)) < 1e-9
    assert abs(r["x"] + r["y"] - 2000) < 1e-9


def test_a_balanced_cycle_rates_everyone_equal_and_the_anchor_moves_all():
    b = battles(("x", "y", "a"), ("y", "z", "a"), ("z", "x", "a"), ("x", "y", "b"), ("y", "z", "b"), ("z", "x", "b"))
    r = fit_ratings(b)
    assert all(abs(v - 1000) < 1e-9 for v in r)
    b2 = battles(("x", "y", "a"), ("x", "y", "a"), ("x", "y", "b"), ("y", "z", "a"), ("y", "z", "tie"))
    free, anchored = fit_ratings(b2), fit_ratings(b2, anchor="y", anchor_rating=1114)
    assert anchored["y"] == 1114 and all(abs((anchored[m] - free[m]) - (1114 - free["y"])) < 1e-9 for m in "xyz")
    # x: 2 of 3 against y; y: 1.5 of 2 against z
    assert abs(anchored["x"] - 1114 - 400 * math.log10(2)) < 1e-9
    assert abs(1114 - anchored["z"] - 400 * math.log10(3)) < 1e-9


def test_no_ratings_when_a_model_won_every_comparison():
    with pytest.raises(NoRatings, match=r"^x won every comparison with y, z \(no finite ratings\)$"):
        fit_ratings(battles(("x", "y", "a"), ("z", "x", "b"), ("y", "z", "a"), ("y", "z", "b")))
    # a tie is half a win each way: then the ratings exist
    assert fit_ratings(battles(("x", "y", "a"), ("x", "y", "tie"))).index[0] == "x"
    with pytest.raises(NoRatings, match="no battles"):
        fit_ratings(battles())


def test_observations_without_generators_name_the_column():
    with pytest.raises(InputError, match="candidate_b_generator"):
        battles_of(pd.DataFrame({"case_id": ["c"], "selected_candidate": ["a"], "candidate_a_generator": ["m"]}))


def test_cells_are_fastchats_order():
    c = cells_of(battles(("y", "x", "a"), ("x", "y", "tie"), ("y", "x", "b"), ("y", "x", "a")))
    assert c.models == ("y", "x")  # first appearance: model_a's column first
    assert (c.a.tolist(), c.b.tolist(), c.score.tolist(), c.counts.tolist()) == (
        [0, 0, 1], [1, 1, 0], [0.0, 1.0, 0.5], [1.0, 2.0, 1.0])


# --- intervals and groups by simulation ----------------------------------------------------------------------

PLANTED = np.array([60.0, 20.0, 0.0, -80.0]) - np.mean([60.0, 20.0, 0.0, -80.0])
NAMES = np.array(["m0", "m1", "m2", "m3"])


def planted(rng: np.random.Generator, strengths: np.ndarray, cases: int, tie: float = 0.2,
            together: float = 0.5) -> pd.DataFrame:
    """Cases between two of the models, judged in both orders: a's expected score is the planted
    P(a beats b) exactly (a tie with probability ``tie``, else a wins with the rest of it), and the
    second order repeats the first verdict with probability ``together`` (a case's orders are dependent)."""
    k = len(strengths)
    a = rng.integers(0, k, cases)
    b = (a + rng.integers(1, k, cases)) % k
    p = 1 / (1 + np.exp(-ALPHA * (strengths[a] - strengths[b])))
    q = (p - tie / 2) / (1 - tie)

    def draw() -> np.ndarray:
        u, v = rng.random(cases), rng.random(cases)
        return np.where(u < tie, "tie", np.where(v < q, "a", "b"))

    first, second = draw(), draw()
    second = np.where(rng.random(cases) < together, first, second)
    names = NAMES[:k] if k <= 4 else np.array([f"m{i}" for i in range(k)])
    return pd.DataFrame({"model_a": np.repeat(names[a], 2), "model_b": np.repeat(names[b], 2),
                         "outcome": np.column_stack([first, second]).reshape(-1),
                         "case_id": np.repeat(np.arange(cases).astype(str), 2)})


def coverage(reps: int, by_case: bool, cases: int = 300) -> np.ndarray:
    rng = np.random.default_rng(2024)
    hit = np.zeros(4)
    for rep in range(reps):
        r = rank(planted(rng, PLANTED, cases), draws=200, seed=rep, by_case=by_case)
        for k, m in enumerate(r.models):
            i = int(m[1])
            hit[i] += r.lower[k] <= 1000 + PLANTED[i] <= r.upper[k]
    return hit / reps


@pytest.mark.slow
def test_case_bootstrap_intervals_cover_planted_strengths():
    # 400 data sets of 300 cases x 2 orders among 4 models (ratings 1050, 1010, 990, 910 around mean
    # 1000), 200 draws each. Measured: 0.9463 over the 1,600 intervals (per model 0.9425, 0.9575, 0.9425,
    # 0.9425); one model's Monte-Carlo error is sqrt(.95 .05 / 400) = 0.011, the mean's at most that.
    # (150 cases: 0.9369, the percentile bootstrap's known shortfall at 25 cases per model pair.)
    cov = coverage(400, by_case=True)
    assert abs(cov.mean() - 0.95) < 0.02 and (np.abs(cov - 0.95) < 0.035).all(), cov


@pytest.mark.slow
def test_resampling_battles_of_dependent_orders_undercovers():
    # the same data resampled by battle, as if a case's two orders were independent (200 data sets): measured
    # 0.8988 (per model 0.885, 0.920, 0.895, 0.895; Monte-Carlo error about 0.015 per model),
    # why the ranking resamples cases
    cov = coverage(200, by_case=False)
    assert cov.mean() < 0.92, cov


def test_planted_equal_models_share_a_group():
    # m0 = m1 = 1150, m2 = 1000, m3 = 800 (before centring), 600 cases each, 20 data sets: the equal pair
    # shares the top group unless its difference's interval misses 0 (about 5% of data sets: measured 1 of
    # 20); the others, 150 and 200 points apart, are always separated (measured 20 of 20)
    rng = np.random.default_rng(7)
    shared = separated = 0
    for s in range(20):
        r = rank(planted(rng, np.array([150.0, 150.0, 0.0, -200.0]), 600), draws=200, seed=s)
        assert set(r.models[:2]) == {"m0", "m1"} and r.models[2:] == ("m2", "m3")
        shared += r.groups[1] == 1
        separated += r.groups[2] == r.groups[1] + 1 and r.groups[3] == r.groups[2] + 1
    assert shared >= 17 and separated == 20
    assert r.groups == (1, 1, 2, 3)
    assert r.sentence() == f"4 models in 3 groups not separable from each other (rule: {GROUP_RULE})."
    d, lo, hi = r.difference(r.models[0], r.models[1])
    assert lo is not None and hi is not None and lo <= 0 <= hi and 0 <= d
    # few cases: the top three are not separable
    small = rank(planted(np.random.default_rng(7), np.array([150.0, 150.0, 0.0, -200.0]), 12), draws=200, seed=1)
    assert small.groups[:3] == (1, 1, 1)


# --- the gate ---------------------------------------------------------------------------------------------------


def gate_ranking():
    # x scores 30 of 40 against y: 400 log10(3) = 190.85 points
    rows = [("x", "y", "a")] * 28 + [("x", "y", "tie")] * 4 + [("x", "y", "b")] * 8
    return rank(battles(*rows, cases=True), anchor="y", draws=400, seed=3)


def test_gate_passes_fails_and_converts_win_probability():
    r = gate_ranking()
    lead = 400 * math.log10(3)
    d = decide_gate(r, RankingGate("x", "y", 190))
    assert d.passed is True and abs(d.difference - lead) < 1e-9 and abs(d.win_probability - 0.75) < 1e-12
    assert d.why.startswith("passes: x leads y by +190.8 points [")
    assert decide_gate(r, RankingGate("x", "y", 191)).passed is False
    # a win probability of 75% is exactly the lead: passes; 75.1% fails
    assert RankingGate("x", "y", 750, "win_permil").margin_points == pytest.approx(lead, abs=1e-9)
    assert decide_gate(r, RankingGate("x", "y", 751, "win_permil")).passed is False
    # strict: the lower bound must clear the margin too
    # strict: the lower bound (+79.5 from 400 draws) must clear the margin too
    assert decide_gate(r, RankingGate("x", "y", 50, strict=True)).passed is True
    strict = decide_gate(r, RankingGate("x", "y", 100, strict=True))
    assert strict.passed is False and strict.why == (
        "fails in strict mode: the lead +190.8 points [+79.5, +319.0] (a win probability of 75.0%) has its 95% "
        "lower bound below the margin of 100.0 points")
    assert decide_gate(r, RankingGate("y", "x", 0)).passed is False


def test_gate_undecidable_and_bad_thresholds():
    assert decide_gate(gate_ranking(), RankingGate("w", "y")).why == "w has no battle"
    apart = rank(battles(("a1", "a2", "a"), ("a1", "a2", "b"), ("b1", "b2", "a"), ("b1", "b2", "b"), cases=True),
                 draws=50)
    d = decide_gate(apart, RankingGate("a1", "b1"))
    assert d.passed is None and d.why == "a1 and b1 were never compared, even through other models"
    with pytest.raises(ValueError, match=r"margin must be a whole number between 500 and 999 \(win_permil\)"):
        RankingGate("x", "y", 400, "win_permil")
    with pytest.raises(ValueError, match="unit must be one of elo, win_permil"):
        RankingGate("x", "y", 1, "percent")
    with pytest.raises(ValueError, match="must differ"):
        RankingGate("x", "x")


def test_ranking_dict_is_json_ready():
    r = gate_ranking()
    out = ranking_dict(r, decide_gate(r, RankingGate("x", "y", 100)))
    data = json.loads(json.dumps(out))
    assert [m["model"] for m in data["models"]] == ["x", "y"] and data["models"][1]["rating"] == 1000.0
    assert data["models"][0]["rank"] == 1 and data["models"][1]["interval95"] == [1000.0, 1000.0]
    assert data["draws"] == 400 and data["seed"] == 3 and data["resampled"] == "case"
    assert data["tie_group_rule"] == GROUP_RULE and data["anchoring"] == "y at 1000"
    assert data["gate"]["passed"] is True and data["gate"]["gate"] == "x beats y by at least 100 points"


def test_a_gate_is_fragile_when_the_interval_holds_the_margin():
    r = gate_ranking()  # x leads y by 190.85 [+79.5, +319.0] (400 draws, seed 3)
    inside = decide_gate(r, RankingGate("x", "y", 100))
    assert inside.passed is True and inside.fragile is True and inside.status == "passes, fragile"
    assert inside.sentence() == (
        "x beats y by at least 100 points: passes: x leads y by +190.8 points [+79.5, +319.0] (a win probability of "
        "75.0%). Fragile: the difference's 95% interval holds the margin of 100.0 points, so another sample could "
        "reach the other result.")
    below = decide_gate(r, RankingGate("x", "y", 50))  # the whole interval clears 50: not fragile
    assert below.passed is True and below.fragile is False and below.status == "passes"
    assert below.sentence().endswith("(a win probability of 75.0%).")
    short = decide_gate(r, RankingGate("x", "y", 250))  # fails on the value, the interval reaches 319
    assert (short.passed, short.fragile, short.status) == (False, True, "fails, fragile")
    beyond = decide_gate(r, RankingGate("x", "y", 400))  # above the interval's top: a sure fail
    assert (beyond.passed, beyond.fragile, beyond.status) == (False, False, "fails")
    # strict mode decides on the bound: inside the interval it fails, and says it is fragile
    strict = decide_gate(r, RankingGate("x", "y", 100, strict=True))
    assert (strict.passed, strict.fragile, strict.status) == (False, True, "fails, fragile")
    data = strict.to_dict()
    assert data["fragile"] is True and data["status"] == "fails, fragile" and data["sentence"] == strict.sentence()


def test_a_gate_not_decided_says_so():
    d = decide_gate(gate_ranking(), RankingGate("w", "y", 5))
    assert (d.passed, d.fragile, d.status) == (None, False, "not decided")
    assert d.sentence() == "w beats y by at least 5 points: not decided: w has no battle."
    assert no_ranking_dict("No ranking: none.", d)["gate"]["status"] == "not decided"


# --- prediction-powered ratings ---------------------------------------------------------------------------------


def labelled_cases(seed: int, cases: int = 240, labelled: int = 80):
    """4 models; the humans' verdict per case from the planted strengths (no ties: ppi-python's logistic
    point estimate starts from scikit-learn's classifier, which takes 0/1 labels); the judge agrees in
    each order with probability 0.7, says tie with 0.15, the other with 0.15."""
    rng = np.random.default_rng(seed)
    true = {"m0": 1100, "m1": 1050, "m2": 1000, "m3": 900}
    models = list(true)
    rows, human = [], {}
    for c in range(cases):
        a, b = rng.choice(4, 2, replace=False)
        ma, mb = models[a], models[b]
        hy = "a" if rng.random() < 1 / (1 + 10 ** ((true[mb] - true[ma]) / 400)) else "b"
        for _ in ("ab", "ba"):
            u = rng.random()
            rows.append((ma, mb, hy if u < 0.7 else "tie" if u < 0.85 else "b" if hy == "a" else "a", f"c{c:03d}"))
        if c < labelled:
            human[f"c{c:03d}"] = hy
    return pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "case_id"]), human


@pytest.mark.filterwarnings("ignore:'penalty' was deprecated:FutureWarning")  # ppi-python's own scikit-learn call
@pytest.mark.parametrize("seed", [5, 11])
def test_ppi_ratings_equal_ppi_python_logistic_ci(seed):
    b, human = labelled_cases(seed)
    r = ppi_ratings(b, human, "m2")
    assert (r.labelled, r.unlabelled) == (80, 160) and 0 <= r.lam <= 1
    # the same cases as ppi-python's arrays: per case, ln 10 (e_a - e_b) without the anchor's column,
    # the judge's share of its two verdicts for model_a (ties half), the humans' 1/0
    cells = cells_of(b)
    cols = [m for m in cells.models if m != "m2"]
    per = b.assign(s=b["outcome"].map({"a": 1.0, "tie": 0.5, "b": 0.0})).groupby("case_id").agg(
        a=("model_a", "first"), b=("model_b", "first"), s=("s", "mean"))
    x = np.array([[math.log(10) * ((m == a) - (m == bb)) for m in cols] for a, bb in zip(per["a"], per["b"])])
    lab = np.array([c in human for c in per.index])
    y = np.array([1.0 if human.get(c) == "a" else 0.0 for c in per.index])
    lo, hi = ppi_logistic_ci(x[lab], y[lab], per["s"].to_numpy()[lab], x[~lab], per["s"].to_numpy()[~lab], alpha=0.05)
    for k, m in enumerate(cols):
        i = r.models.index(m)
        assert abs(r.lower[i] - (1000 + 400 * lo[k])) < 1e-6 and abs(r.upper[i] - (1000 + 400 * hi[k])) < 1e-6
        assert abs(r.ratings[i] - (1000 + 200 * (lo[k] + hi[k]))) < 1e-6  # measured: 1e-9
    assert r.ratings[r.models.index("m2")] == 1000.0


def test_ppi_needs_labels_on_both_sides_and_one_connected_set():
    b, human = labelled_cases(5)
    with pytest.raises(ValueError, match="2 labelled cases and 1 unlabelled"):
        ppi_ratings(b, dict(list(human.items())[:1]), "m2")
    with pytest.raises(ValueError, match="never compared with the anchor"):
        ppi_ratings(battles(("a1", "a2", "a"), ("b1", "b2", "a"), cases=True), {}, "a1")


def test_ppi_shift_reads_the_judge_only_ranking_at_the_ppi_anchor():
    # x 2.5 of 4 against y and z, y 3 of 4 against z: the judge alone puts x > y > z
    rows = [("x", "y", "a"), ("x", "y", "a"), ("x", "y", "tie"), ("x", "y", "b"), ("x", "z", "a"), ("x", "z", "a"),
            ("x", "z", "tie"), ("x", "z", "b"), ("y", "z", "a"), ("y", "z", "b"), ("y", "z", "a"), ("y", "z", "a")]
    b = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"]).assign(case_id=[f"c{i}" for i in range(12)])
    r = rank(b, draws=20)
    judge = dict(zip(r.models, r.ratings))
    p = PPIRatings(("y", "x", "z"), (1080.0, 1050.0, 1000.0), (1000.0, 990.0, 1000.0), (1160.0, 1110.0, 1000.0),
                   0.25, 6, 6, "z")
    s = ppi_shift(r, p)
    assert s.judge["z"] == 1000.0 and s.judge["x"] == pytest.approx(1000 + judge["x"] - judge["z"], abs=1e-9)
    assert s.moved["y"] == pytest.approx(1080 - s.judge["y"], abs=1e-9) and s.order_changed is True
    assert s.largest == max(s.moved, key=lambda m: abs(s.moved[m]))
    text = s.sentence(p)
    assert text.startswith("With the humans' labels on 6 of 12 cases (lambda 0.25), the ratings move by at most ")
    assert text.endswith("the order changes: x > y > z by the judge alone, y > x > z corrected.")
    out = ranking_dict(r, ppi=p)["ppi"]
    assert [m["model"] for m in out["models"]] == ["y", "x", "z"] and out["order_changed"] is True
    assert out["models"][2] == {"model": "z", "rating": 1000.0, "interval95": [1000.0, 1000.0], "judge_only": 1000.0,
                                "moved": 0.0}
    assert ranking_dict(r, ppi_unavailable="No prediction-powered ranking: why.")["ppi"] == {
        "unavailable": "No prediction-powered ranking: why."}
