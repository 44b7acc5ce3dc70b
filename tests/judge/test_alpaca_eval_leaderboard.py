"""The published AlpacaEval 2.0 leaderboard (tatsu-lab/alpaca_eval at cd543a1,
weighted_alpaca_eval_gpt4_turbo_leaderboard.csv) reproduced on its own log: the annotations of the 57
leaderboard models whose annotations.json that copy holds (tests/data/alpaca_eval_2/README.md),
read through the product's AlpacaEval reader.

* discrete win rate: n_wins, n_wins_base, n_draws, n_total exactly, (wins + draws / 2) / total to 1e-9,
  and the order by it;
* the continuous win rate (the mean of preference - 1, the reader's ``stated``) and its standard error
  to 1e-9: the product has no pairwise "mean stated preference with standard error"; the nearest is
  the graded judge's :func:`agreebound.scored.describe.mean_score`, whose Student-t half-width divided by
  t(0.975, n - 1) is sd / sqrt(n), AlpacaEval's ``sem``;
* the ranking: one opponent (the reference) for every model, so Bradley-Terry's rating less the
  reference's is 400 log10(p / (1 - p)) of the discrete win rate p, and the order is the discrete
  order; its bootstrap 95% intervals (1,000 case draws, seed 0), mapped back to win probabilities, are
  compared with the leaderboard's win_rate +- 1.96 standard_error (a different method: a bootstrap of
  the discrete outcome against the normal interval of the continuous mean).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreebound.core.student_t import t_quantile
from agreebound.io.judge_log_records import slug
from agreebound.io.judge_logs import read_judge_log
from agreebound.judge.ranking import (battles_of, case_kinds, fit_ratings, rank, rank_kinds,
                                      win_probability)
from agreebound.scored.describe import mean_score

DATA = Path(__file__).parents[1] / "data" / "alpaca_eval_2"
REFERENCE = "gpt4_1106_preview"
DRAWS = 1000


@pytest.fixture(scope="module")
def board() -> pd.DataFrame:
    b = pd.read_csv(DATA / "leaderboard.csv")
    b.index = pd.Index([slug(m, "m") for m in b["model"]])  # the reader's model names
    assert b.index.is_unique and len(b) == 57
    return b


@pytest.fixture(scope="module")
def observations() -> pd.DataFrame:
    """The fixture as an annotations.json (texts left out) read by the product's reader."""
    p = pd.read_csv(DATA / "preferences.csv.gz")
    records = [{"instruction": f"AlpacaEval instruction {i}", "output_1": "", "output_2": "",
                "generator_1": REFERENCE, "generator_2": m, "annotator": "weighted_alpaca_eval_gpt4_turbo",
                "preference": float(x)} for m, i, x in p.itertuples(index=False)]
    log = read_judge_log("annotations.json", json.dumps(records).encode())
    assert log.shape == "alpacaeval annotations"
    return log.observations


@pytest.fixture(scope="module")
def battles(observations: pd.DataFrame) -> pd.DataFrame:
    return battles_of(observations)


def test_discrete_counts_and_win_rate_exactly(observations: pd.DataFrame, board: pd.DataFrame) -> None:
    counts = observations.groupby("candidate_b_generator")["selected_candidate"].value_counts().unstack(fill_value=0)
    assert sorted(counts.index) == sorted(board.index)
    for model, row in board.iterrows():
        wins, base, draws = (int(counts.loc[model, k]) for k in ("b", "a", "tie"))
        assert (wins, base, draws, wins + base + draws) == (row.n_wins, row.n_wins_base, row.n_draws, row.n_total), model
        rate = Fraction(2 * wins + draws, 2 * (wins + base + draws)) * 100
        assert float(rate) == pytest.approx(row.discrete_win_rate, abs=1e-9), model


def test_continuous_win_rate_and_standard_error(observations: pd.DataFrame, board: pd.DataFrame) -> None:
    for model, group in observations.groupby("candidate_b_generator"):
        row = board.loc[model]
        m = mean_score(group["stated"].to_numpy(dtype=float))
        assert m.items == row.n_total
        assert float(m.exact) * 100 == pytest.approx(row.win_rate, abs=1e-9), model
        if m.low is None or m.high is None:  # the reference against itself: every preference 1.5
            assert model == slug(REFERENCE, "m") and row.standard_error == 0
            continue
        se = (m.high - m.low) / 2 / t_quantile(0.975, m.items - 1) * 100
        assert se == pytest.approx(row.standard_error, abs=1e-9), model


def test_ratings_are_the_discrete_win_rate_on_the_elo_scale(battles: pd.DataFrame, board: pd.DataFrame) -> None:
    ref = slug(REFERENCE, "m")
    r = fit_ratings(battles, anchor=ref)
    assert r[ref] == 1000
    assert sorted(r.index) == sorted(board.index)
    for model, rating in r.items():
        p = board.loc[model, "discrete_win_rate"] / 100
        assert rating - 1000 == pytest.approx(400 * np.log10(p / (1 - p)), abs=1e-9), model
        assert win_probability(rating - 1000) * 100 == pytest.approx(board.loc[model, "discrete_win_rate"], abs=1e-9)


def test_ranking_order_is_the_leaderboards_discrete_order(battles: pd.DataFrame, board: pd.DataFrame) -> None:
    ranking = rank_kinds(case_kinds(battles), anchor=slug(REFERENCE, "m"), draws=DRAWS, seed=0)
    assert ranking.left_out_draws == 0
    # the leaderboard's discrete order as a weak order: models with equal discrete win rates (five pairs,
    # e.g. gpt4_0613_concise and claude-2.1_concise, 71 + 5/2 and 72 + 3/2 of 805) in either order
    levels = board["discrete_win_rate"].round(9)
    expected = [set(board.index[levels == v]) for v in sorted(levels.unique(), reverse=True)]
    got, at = [], 0
    for tier in expected:
        got.append(set(ranking.models[at:at + len(tier)]))
        at += len(tier)
    assert got == expected
    assert sum(len(t) == 2 for t in expected) == 5
    # the same point ratings as the battle-by-battle ranking
    by_case = rank(battles, anchor=slug(REFERENCE, "m"), draws=10, seed=0)
    assert dict(zip(by_case.models, by_case.ratings)) == pytest.approx(dict(zip(ranking.models, ranking.ratings)),
                                                                       abs=1e-9)


def test_bootstrap_intervals_against_the_published_normal_intervals(battles: pd.DataFrame,
                                                                    board: pd.DataFrame) -> None:
    """Measured with 1,000 draws, seed 0, over the 56 models other than the reference: the bootstrap
    interval of the discrete win rate holds its discrete win rate every time; its width is 0.99 to 1.44
    times the published 2 x 1.96 standard errors (median 1.09: a 0/1 outcome spreads more than a
    stated probability); the two intervals overlap for 55 models, not for NullModel (discrete 84.0%,
    continuous 76.9%: its judge is rarely sure, so its rounded wins run far above its mean)."""
    ref = slug(REFERENCE, "m")
    ranking = rank_kinds(case_kinds(battles), anchor=ref, draws=DRAWS, seed=0)
    ratios, apart = [], []
    for model, rating, lo, hi in zip(ranking.models, ranking.ratings, ranking.lower, ranking.upper):
        if model == ref:
            assert (rating, lo, hi) == (1000, 1000, 1000)
            continue
        row = board.loc[model]
        low, high = win_probability(lo - 1000) * 100, win_probability(hi - 1000) * 100
        assert low < row.discrete_win_rate < high, model
        c_low, c_high = row.win_rate - 1.96 * row.standard_error, row.win_rate + 1.96 * row.standard_error
        ratios.append((high - low) / (c_high - c_low))
        if high < c_low or c_high < low:
            apart.append(row.model)
    assert len(ratios) == 56
    assert 0.99 < min(ratios) and max(ratios) < 1.45 and 1.05 < float(np.median(ratios)) < 1.12
    assert apart == ["NullModel"]
