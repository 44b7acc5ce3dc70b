"""A graded judge's rank correlations with the humans (agreebound.scored.correlation): Spearman's rho
and Kendall's tau-b over items and over models equal scipy's on the same vectors, value by value
(the judgekit sample with its humans, random logs with ties); fewer than three models is "not
measured" with its reason; the intervals' coverage on simulated audits of a known population."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss

from agreebound.app.judge_runs import measure_scored_recipe
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.scored.audit import measure_scored
from agreebound.scored.correlation import (
    BOOT,
    batch_kendall,
    batch_spearman,
    concordance,
    kendall_tau_b,
    midranks,
    rank_measures,
    spearman,
    table_kendall,
    table_spearman,
)

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "judge_logs"
NAMES = ("spearman_items", "kendall_items", "spearman_models", "kendall_models")


def scipy_pair(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant input: scipy warns and gives NaN
        return float(ss.spearmanr(x, y).statistic), float(ss.kendalltau(x, y, variant="b").statistic)


def expected(judge: pd.Series, human: pd.DataFrame, model: pd.Series) -> dict[str, float]:
    """scipy on vectors built with pandas alone: the judge's score and the item's mean human score
    over the items both scored; each model's mean of each, over the models."""
    items = pd.DataFrame({"judge": judge, "human": human.groupby("item")["score"].mean(), "model": model}).dropna(
        subset=["judge", "human"])
    rho, tau = scipy_pair(items["judge"].to_numpy(), items["human"].to_numpy())
    means = items[items["model"] != ""].groupby("model")[["judge", "human"]].mean()
    mrho, mtau = scipy_pair(means["judge"].to_numpy(), means["human"].to_numpy())
    return {"spearman_items": rho, "kendall_items": tau, "spearman_models": mrho, "kendall_models": mtau}


def measured(m, judge: str | None = None) -> dict[str, float | None]:
    a = m.agreement(judge or m.input.judges[0])
    return {name: a.measure(name).value for name in NAMES}


def test_judgekit_graded_with_its_humans_is_scipys_value_by_value():
    m = measure_scored_recipe(JudgeRecipe(Source.at(str(LOGS / "judgekit_graded.jsonl")),
                                          references=Source.at(str(LOGS / "judgekit_graded_human.jsonl"))))
    log = pd.read_json(LOGS / "judgekit_graded.jsonl", lines=True).drop_duplicates(["item_id", "judge_id"])  # first kept
    humans = pd.read_json(LOGS / "judgekit_graded_human.jsonl", lines=True).rename(columns={"item_id": "item"})
    want = expected(log.set_index("item_id")["score"].rename_axis("item"), humans,
                    log.set_index("item_id")["candidate_model"].rename_axis("item"))
    got = measured(m)
    assert got == want  # exactly: the same floats
    # the sample's judge gives the humans' own scores: every correlation is 1, over 6 items and 3 models;
    # two models tie at a mean of 3 on both sides, and tau-b = 2 / sqrt(2) / sqrt(2) is 1 - 2^-53 in
    # floating point, scipy's as ours
    assert want == {"spearman_items": 1.0, "kendall_items": 1.0, "spearman_models": 1.0,
                    "kendall_models": 0.9999999999999999}
    assert {m.agreement("gpt-4o").measure(n).value_text() for n in NAMES} == {"1.000"}
    a = m.agreement("gpt-4o")
    assert a.measure("spearman_items").title == "Spearman's rho with the humans, over items (n = 6 items)"
    assert a.measure("kendall_models").title == ("Kendall's tau-b with the humans, over models (system level; "
                                                 "n = 3 models, 6 items)")
    # six items: too few for an interval, as for alpha (MIN_ITEMS), and said
    assert a.measure("spearman_items").low is None
    assert a.measure("spearman_items").method == "no interval: 6 items, fewer than 10"


def random_log(seed: int, n: int = 60, models: int = 5) -> pd.DataFrame:
    """A graded judge (1-5) and 1 to 3 humans per item (1-5), ties everywhere; every model named."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(3, 1, n)
    model = np.array([f"m{k}" for k in range(models)])[rng.integers(0, models, n)]
    rows = []
    for i in range(n):
        rows.append((f"i{i}", "judge", "judge", float(np.clip(np.rint(truth[i] + rng.normal(0, 1)), 1, 5)), model[i]))
        for h in range(int(rng.integers(1, 4))):
            rows.append((f"i{i}", f"h{h}", "human", float(np.clip(np.rint(truth[i] + rng.normal(0, 0.8)), 1, 5)),
                         model[i]))
    return pd.DataFrame(rows, columns=["item", "rater", "role", "score", "model"])


@pytest.mark.parametrize("seed", range(8))
def test_random_logs_with_ties_are_scipys_value_by_value(seed):
    frame = random_log(seed)
    m = measure_scored(frame, "random.csv")
    j = frame[frame.role == "judge"].set_index("item")
    want = expected(j["score"], frame[frame.role == "human"], j["model"])
    assert measured(m) == want
    a = m.agreement("judge")
    assert a.measure("spearman_items").cases == 60 and a.measure("kendall_models").cases == 60
    for name in NAMES:  # 60 items: every value has its interval, around it
        x = a.measure(name)
        assert x.kind == "coefficient" and x.low <= x.value <= x.high, (name, x)
        assert f"{BOOT:,} resamples of the 60 items" in x.method


def test_the_resamples_formulas_are_the_values_formulas():
    """The bootstrap's vectorised forms (tables of counts, batches of rows) give the exact functions'
    values on the sample itself."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(3, 40))
        x = rng.integers(0, 4, n).astype(float)
        y = rng.integers(0, 6, n) / 2
        rho, tau = spearman(x, y), kendall_tau_b(x, y)
        xc, yc = np.unique(x, return_inverse=True)[1], np.unique(y, return_inverse=True)[1]
        t = np.zeros((xc.max() + 1, yc.max() + 1))
        np.add.at(t, (xc, yc), 1)
        if rho is None:
            assert np.isnan(table_spearman(t)) and np.isnan(batch_spearman(x[None], y[None])[0])
            continue
        assert table_spearman(t) == pytest.approx(rho, abs=1e-12)
        assert table_kendall(t) == pytest.approx(tau, abs=1e-12)
        assert batch_spearman(x[None], y[None])[0] == pytest.approx(rho, abs=1e-12)
        assert batch_kendall(x[None], y[None])[0] == pytest.approx(tau, abs=1e-12)


def test_published_small_cases():
    """Kendall's own textbook example (no ties) and a tied one, against scipy; midranks as rankdata's."""
    x, y = np.array([12, 2, 1, 12, 2]), np.array([1, 4, 7, 1, 0])
    assert kendall_tau_b(x, y) == ss.kendalltau(x, y).statistic == pytest.approx(-0.4714045207910316)
    assert spearman(x, y) == ss.spearmanr(x, y).statistic
    assert midranks(np.array([3, 1, 3, 2])).tolist() == ss.rankdata([3, 1, 3, 2]).tolist() == [3.5, 1, 3.5, 2]
    assert concordance(x, y) == (-4, 8, 9)
    assert spearman(np.array([1, 1, 1]), np.array([1, 2, 3])) is None
    assert kendall_tau_b(np.array([1, 1, 1]), np.array([1, 2, 3])) is None


def test_fewer_than_three_models_is_not_measured_and_says_why():
    frame = random_log(1, models=2)
    a = measure_scored(frame, "two.csv").agreement("judge")
    for name in ("spearman_models", "kendall_models"):
        x = a.measure(name)
        assert x.exact is None and x.value_text() == "not measured"
        assert x.unavailable == "2 models in the log; a correlation across models needs 3 or more"
    a = measure_scored(frame.drop(columns="model"), "none.csv").agreement("judge")
    assert a.measure("spearman_models").unavailable == ("the log names no model for the items the judge and a "
                                                        "human scored")
    assert a.measure("spearman_items").value is not None  # over items it is measured all the same


def test_a_log_without_humans_measures_no_correlation():
    frame = random_log(2)
    a = measure_scored(frame[frame.role == "judge"], "judge-only.csv").agreement("judge")
    for name in NAMES:
        assert a.measure(name).exact is None and "no human labels" in a.measure(name).unavailable


# --- coverage ----------------------------------------------------------------------------------------


def graded(rng: np.random.Generator, n: int, models: np.ndarray | None = None, offsets: np.ndarray | None = None,
           bias: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 1-10 judge and the mean of three 1-10 humans, each the item's quality plus noise (the
    judge's plus ``bias`` on its model): the judge's score, the human mean, the model (codes)."""
    model = np.zeros(n, dtype=int) if models is None else models
    q = rng.normal(size=n) + (0 if offsets is None else offsets[model])
    h = np.clip(np.rint(5.5 + 2 * q[:, None] + rng.normal(0, 2, (n, 3))), 1, 10).mean(1)
    j = np.clip(np.rint(5.5 + 2 * (q + (0 if bias is None else bias[model])) + rng.normal(0, 2, n)), 1, 10)
    return j, h, model


def test_item_level_intervals_cover_the_population_value():
    """300 simulated audits of 40 items: the 95% BCa intervals of rho and tau-b cover the population
    values (their limits at 400,000 items: 0.585 and 0.441) 92-98% of the time (measured: 0.967 and
    0.957)."""
    rng = np.random.default_rng(11)
    j, h, _ = graded(rng, 400_000)
    population = (spearman(j, h), kendall_tau_b(j, h))
    hits = np.zeros(2)
    runs = 300
    for _ in range(runs):
        j, h, _ = graded(rng, 40)
        got = rank_measures(j, h, np.full(40, ""), 10)[:2]
        hits += [g.low <= p <= g.high for g, p in zip(got, population)]
    coverage = hits / runs
    assert np.all((coverage >= 0.92) & (coverage <= 0.98)), coverage


@pytest.mark.slow
def test_system_level_intervals_cover_the_population_value():
    """200 simulated audits of 6 models x 40 items, the judge favouring every other model: the 95%
    intervals of the correlation across models (items resampled within models) cover the
    population's (0.829 and 0.600, from the models' expected means over 200,000 items each) at least
    92% of the time (measured: 0.98 and 1.00: across six models the correlation takes a few values,
    so the percentile interval is conservative; BCa covered 0.76 in the same design, and is not
    used at the system level)."""
    rng = np.random.default_rng(5)
    offsets, bias = np.linspace(-0.6, 0.6, 6), np.where(np.arange(6) % 2 == 0, 0.45, 0.0)
    j, h, model = graded(rng, 1_200_000, np.repeat(np.arange(6), 200_000), offsets, bias)
    ej, eh = np.bincount(model, j) / 200_000, np.bincount(model, h) / 200_000
    population = (spearman(ej, eh), kendall_tau_b(ej, eh))
    names = np.array([f"m{k}" for k in range(6)], dtype=object)
    hits = np.zeros(2)
    runs = 200
    for _ in range(runs):
        j, h, model = graded(rng, 240, np.repeat(np.arange(6), 40), offsets, bias)
        got = rank_measures(j, h, names[model], 10)[2:]
        hits += [g.low <= p <= g.high for g, p in zip(got, population)]
    coverage = hits / runs
    assert np.all(coverage >= 0.92), coverage


def test_the_same_log_gives_the_same_intervals_whatever_its_row_order():
    """A fixed seed, and resamples drawn from tables of counts (items by value, models by name): the
    report of a log is the same bytes however its rows are ordered."""
    frame = random_log(3)
    one = measure_scored(frame, "a.csv").agreement("judge")
    two = measure_scored(frame.sample(frac=1, random_state=1), "a.csv").agreement("judge")
    for name in NAMES:
        assert (one.measure(name).low, one.measure(name).high) == (two.measure(name).low, two.measure(name).high)
