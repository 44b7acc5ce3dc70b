"""Graded and pass/fail judges against human labels (agreebound.scored.audit, agreebound.scored.confidence):
the panel path's alpha exactly, the coefficients module's kappa, sklearn's binary measures, judgekit's
ECE and Brier, the admissibility gate on planted judges, and the intervals' coverage."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from agreebound.panel.alpha import krippendorff_alpha
from agreebound.panel.categories import encode
from agreebound.panel.coefficients import coefficients
from agreebound.scored.confidence import brier, calibration, ece, isotonic_apply, isotonic_fit, murphy, reliability_bins
from agreebound.core.errors import InputError
from agreebound.scored.items import FAIL, INCOMPLETE, PASS
from agreebound.scored.decide import decide_scored
from agreebound.scored.one_judge import is_self, reference
from agreebound.scored.audit import measure_scored
from agreebound.scored.pairwise import pair_alpha, pooled_alpha
from agreebound.scored.items import scored_input
from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.core.thresholds import ScoredThresholds, threshold_set_from_dict, ThresholdError


def _rows(matrix: list[list[float | None]], raters: list[str], judges: int = 1) -> pd.DataFrame:
    out = []
    for i, row in enumerate(matrix):
        for r, v in zip(raters, row):
            if v is not None:
                out.append((f"i{i}", r, "judge" if raters.index(r) < judges else "human", v))
    return pd.DataFrame(out, columns=["item", "rater", "role", "score"])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(6))
def test_judge_alpha_is_the_panel_paths_alpha_exactly(level, seed):
    """alpha(judge, humans) is the panel path's alpha on the matrix of the judge-human pairs (each
    pair's two scores on an item one row); the humans' is the same on the human-human pairs of the
    items two or more humans scored; the jackknife's float kernel agrees at full sample and with one
    item left out."""
    rng = np.random.default_rng(seed)
    n = 40
    truth = rng.integers(1, 6, n)
    m = [[float(np.clip(truth[i] + rng.integers(-1, 2), 1, 5)) if rng.random() < 0.9 else None for _ in range(3)]
         for i in range(n)]
    f = _rows(m, ["J", "h1", "h2"])
    a = measure_scored(f, "m.csv", level).agreements[0]
    jh = [[r[0], r[c]] for c in (1, 2) for r in m if r[0] is not None and r[c] is not None]
    hh = [[r[1], r[2]] for r in m if r[1] is not None and r[2] is not None]
    assert a.judge_alpha.exact == krippendorff_alpha(jh, level).value
    assert a.human_alpha.exact == krippendorff_alpha(hh, level).value
    jh2 = [[r[0], r[c]] for c in (1, 2) for r in m if None not in r]
    assert a.difference.exact == krippendorff_alpha(jh2, level).value - a.human_alpha.exact
    x = scored_input(f)
    p = pooled_alpha(x, [("J", "h1"), ("J", "h2")], level)
    i = int(p.items[3])
    rest = [[r[0], r[c]] for c in (1, 2) for k, r in enumerate(m) if k != i and r[0] is not None and r[c] is not None]
    assert p.loo[3] == pytest.approx(float(krippendorff_alpha(rest, level).value), abs=1e-12)
    assert pair_alpha(x, "J", "h1", level).exact == krippendorff_alpha(
        [[r[0], r[1]] for r in m if r[0] is not None and r[1] is not None], level).value


def test_a_sparse_design_does_not_flatter_the_judge():
    """Each item scored by 2 of 10 humans (crowdsourcing): the pooled alphas weigh the judge's pairs
    and the humans' pairs alike, so an exchangeable judge's difference stays near 0 (a mean of
    per-pair alphas over four to nine shared items each was biased 0.09 towards the judge)."""
    rng = np.random.default_rng(7)
    diffs = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        truth = rng.normal(3, 1, 300)
        rows = []
        for i in range(300):
            for h in rng.choice(10, 2, replace=False):
                rows.append((f"i{i}", f"h{h}", "human", float(np.clip(np.rint(truth[i] + rng.normal(0, .5)), 1, 5))))
            rows.append((f"i{i}", "J", "judge", float(np.clip(np.rint(truth[i] + rng.normal(0, .5)), 1, 5))))
        d = measure_scored(pd.DataFrame(rows, columns=["item", "rater", "role", "score"]), "s.csv").agreements[0]
        diffs.append(float(d.difference.exact))
        assert d.difference.low is not None
    assert abs(np.mean(diffs)) < 0.015, np.mean(diffs)


def test_weighted_kappa_is_the_coefficients_modules():
    rng = np.random.default_rng(5)
    for _ in range(5):
        n = 80
        truth = rng.integers(1, 8, n)
        j = np.clip(truth + rng.integers(-2, 3, n), 1, 7)
        h = np.clip(truth + rng.integers(-1, 2, n), 1, 7)
        f = _rows([[float(a), float(b)] for a, b in zip(j, h)], ["J", "h"])
        a = measure_scored(f, "k.csv").agreements[0]
        co = coefficients(encode([[int(x), int(y)] for x, y in zip(j, h)]), ["J", "h"], "ordinal")
        assert a.measure("weighted_kappa").exact == co.get("cohen_kappa", "quadratic").value
        assert a.measure("exact_agreement").exact == co.get("percent_agreement", "identity").value
        assert a.measure("leniency").exact == Fraction(int((j - h).sum()), n)


def test_binary_measures_equal_sklearns():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    for trial in range(10):
        n = int(rng.integers(30, 300))
        h = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(float)
        j = np.where(rng.random(n) < rng.uniform(0.6, 0.95), h, 1 - h)
        f = _rows([[a, b] for a, b in zip(j, h)], ["J", "h"])
        m = measure_scored(f, "b.csv")
        assert m.kind == "binary" and m.level == "nominal"
        a = m.agreements[0]
        assert float(a.measure("accuracy").exact) == pytest.approx(metrics.accuracy_score(h, j), abs=1e-12)
        assert float(a.measure("kappa").exact) == pytest.approx(metrics.cohen_kappa_score(h, j), abs=1e-12)
        assert float(a.measure("sensitivity").exact) == pytest.approx(metrics.recall_score(h, j), abs=1e-12)
        assert float(a.measure("specificity").exact) == pytest.approx(
            metrics.recall_score(h, j, pos_label=0), abs=1e-12)
        assert a.measure("yes_lean").exact == Fraction(int(j.sum() - h.sum()), n)


def test_ece_brier_and_decomposition_equal_judgekits():
    jk = pytest.importorskip("judgekit.calibration")
    rng = np.random.default_rng(3)
    for trial in range(20):
        n = int(rng.integers(5, 400))
        p = np.round(rng.random(n), int(rng.integers(1, 4)))  # ties, as judges state them
        y = (rng.random(n) < p ** rng.uniform(0.5, 2)).astype(float)
        bins = int(rng.integers(2, 15))
        assert ece(p, y, bins) == pytest.approx(jk.ece_equal_mass(p, y, bins), abs=1e-12)
        assert brier(p, y) == pytest.approx(jk.brier(p, y), abs=1e-15)
        assert murphy(p, y) == pytest.approx(jk.murphy_decomposition(p, y), abs=1e-12)
        rel, res, unc = murphy(p, y)
        assert rel - res + unc == pytest.approx(brier(p, y), abs=1e-12)
        curve = [v for b in reliability_bins(p, y, bins) for v in (b.mean_p, b.frequency, b.count)]
        assert curve == pytest.approx([v for point in jk.reliability_curve(p, y, bins) for v in point])


def test_isotonic_fit_equals_sklearns():
    iso = pytest.importorskip("sklearn.isotonic")
    rng = np.random.default_rng(8)
    for _ in range(10):
        n = int(rng.integers(10, 200))
        p = np.round(rng.random(n), 2)
        y = (rng.random(n) < p).astype(float)
        values, fitted = isotonic_fit(p, y)
        ref = iso.IsotonicRegression(out_of_bounds="clip").fit(p, y)
        assert fitted == pytest.approx(ref.predict(values), abs=1e-12)
        q = np.unique(p)
        assert isotonic_apply(values, fitted, q) == pytest.approx(ref.predict(q), abs=1e-12)


def test_recalibration_is_shown_on_the_held_out_half():
    """An overconfident judge: the isotonic map fitted on half lowers the other half's ECE (shown)."""
    f = scored_frame([ScoredJudge("judge-model", noise=0.6, confidence_slope=2.0, overconfidence=4.0)], 600, humans=1,
                     scale=(0, 1), seed=4)
    a = measure_scored(f, "c.csv").agreements[0]
    c = a.confidence
    assert c is not None and c.n == 600 and c.held_out == 300
    assert c.ece_after < c.ece_before
    assert "shown, not applied" in c.sentence


def test_a_judge_as_good_as_the_humans_is_admissible_and_a_noisier_one_is_not():
    good = scored_frame([ScoredJudge("judge-model", noise=0.5)], 400, humans=3, seed=1)
    noisy = scored_frame([ScoredJudge("judge-model", noise=1.2)], 400, humans=3, seed=1)
    dg = decide_scored(measure_scored(good, "good.csv"))
    dn = decide_scored(measure_scored(noisy, "noisy.csv"))
    assert dg.decision == PASS
    assert dn.decision == FAIL
    gate = dn.gates("judge-model")[0]
    assert gate.name == "admissibility" and gate.passed is False and gate.threshold == Fraction(-1, 20)
    assert gate.exact < Fraction(-1, 20)


def test_one_human_cannot_decide_admissibility():
    f = scored_frame([ScoredJudge("judge-model", noise=0.5)], 150, humans=1, seed=2)
    d = decide_scored(measure_scored(f, "one.csv"))
    adm = d.gates("judge-model")[0]
    assert adm.passed is None and "two or more humans" in adm.detail
    assert d.decision == INCOMPLETE
    assert d.per_judge["judge-model"][2] == "admissibility: needs two or more humans on shared items"


def test_thresholds_are_data_and_edit_the_decision_only():
    f = scored_frame([ScoredJudge("judge-model", noise=1.1)], 300, humans=3, seed=6)
    m = measure_scored(f, "t.csv")
    diff = m.agreements[0].difference.exact
    margin = int(-diff * 1000) + 1  # just enough
    assert decide_scored(m, ScoredThresholds(margin, 0)).decision == PASS
    assert decide_scored(m, ScoredThresholds(max(margin - 2, 0), 0)).decision == FAIL
    t = threshold_set_from_dict({"scored": {"admissibility_margin_permil": 120}}, "file:x")
    assert t.scored == ScoredThresholds(120, 600) and t.to_dict()["scored"]["admissibility_margin_permil"] == 120
    assert "scored" not in threshold_set_from_dict({}, "x").to_dict()  # defaults: the file reads as before
    with pytest.raises(ThresholdError, match="unknown key") as e:
        threshold_set_from_dict({"scored": {"margin": 1}}, "x")
    assert e.value.key == "scored.margin"
    with pytest.raises(ValueError, match="between 0 and 1000"):
        ScoredThresholds(admissibility_margin_permil=1001)


def test_graded_measures_recover_planted_biases():
    f = scored_frame([ScoredJudge("judge-model", noise=0.5, leniency=0.6, length_bias=0.5, self_bias=0.8)], 800,
                     humans=2, seed=9)
    a = measure_scored(f, "bias.csv").agreements[0]
    assert a.kind == "graded" and a.level == "ordinal"
    for name in ("leniency", "length_effect", "self_preference_scored"):
        m = a.measure(name)
        assert m.low > 0, (name, m.low)  # each planted bias is found, its interval above 0
    clean = measure_scored(scored_frame([ScoredJudge("judge-model", noise=0.5)], 800, humans=2, seed=9), "c.csv")
    for name in ("leniency", "self_preference_scored"):
        m = clean.agreements[0].measure(name)
        assert m.low < 0.05 and m.high > -0.05, (name, m.low, m.high)


@pytest.mark.slow
def test_the_alpha_difference_interval_covers_95_percent():
    """The jackknife interval of the admissibility gate's difference, over 400 simulated audits of a
    judge exchangeable with three humans at 120 items (true difference 0): it covers 0 in 92.8-97.2%
    of them (95% +/- 2.2 points, two binomial standard deviations; 375 of 400 measured here)."""
    covered = 0
    runs = 400
    for seed in range(runs):
        f = scored_frame([ScoredJudge("judge-model", noise=0.5)], 120, humans=3, seed=1000 + seed)
        d = measure_scored(f, "s.csv").agreements[0].difference
        covered += d.low <= 0 <= d.high
    assert 0.928 * runs <= covered <= 0.972 * runs, covered


def test_a_panel_of_judges_names_the_one_to_drop():
    f = scored_frame([ScoredJudge("judge-a", noise=0.7), ScoredJudge("judge-b", noise=0.5),
                      ScoredJudge("judge-c", noise=2.0)], 300, humans=2, seed=12)
    m = measure_scored(f, "panel.csv")
    assert m.panel is not None and m.panel.drop == "judge-c"
    assert set(m.panel.without) == {"judge-a", "judge-b", "judge-c"}
    assert m.panel.without["judge-c"] > m.panel.alpha  # the others agree better without it
    judges = [[row.get(j) for j in ("judge-a", "judge-b", "judge-c")]
              for _, row in f[f.role == "judge"].pivot(index="item", columns="rater", values="score").iterrows()]
    assert m.panel.alpha == krippendorff_alpha(judges, "ordinal").value
    d = decide_scored(m)
    assert d.per_judge["judge-c"][0] == FAIL and d.decision == FAIL


def test_reference_is_the_humans_mean():
    f = _rows([[3, 1, 5], [2, 4, 1], [1, None, 4], [2, 3, None]], ["J", "h1", "h2"])
    assert reference(scored_input(f)).tolist() == [3.0, 2.5, 4.0, 3.0]


def test_bad_scores_are_located():
    f = pd.DataFrame({"item": ["a", "a"], "rater": ["J", "J"], "role": ["judge", "judge"], "score": [1, 2],
                      "line": [4, 9]})
    with pytest.raises(InputError) as e:
        scored_input(f, "log.jsonl")
    assert (e.value.file, e.value.row, e.value.column) == ("log.jsonl", 9, "item")
    f = pd.DataFrame({"item": ["a"], "rater": ["J"], "role": ["judge"], "score": ["great"], "line": [3]})
    with pytest.raises(InputError, match="expected a number") as e:
        scored_input(f, "log.jsonl")
    assert e.value.row == 3


def test_self_is_the_judges_own_model():
    assert is_self("openai/gpt-4o", "gpt-4o") and is_self("GPT-4o", "gpt4o")
    assert not is_self("gpt-4o-mini", "gpt-4o") and not is_self("", "gpt-4o")


def test_strict_mode_decides_on_the_lower_bound():
    """Strict: the admissibility margin as a non-inferiority test (the interval's lower bound)."""
    f = scored_frame([ScoredJudge("judge-model", noise=0.5)], 120, humans=3, seed=10)
    m = measure_scored(f, "s.csv")
    diff = m.agreements[0].difference
    assert diff.exact > Fraction(-1, 20) and diff.low < -0.05  # passes on the value, not on its bound
    assert decide_scored(m).decision == PASS
    strict = decide_scored(m, ScoredThresholds(strict=True))
    gate = strict.gates("judge-model")[0]
    assert (gate.value_passed, gate.bound_passed, gate.passed) == (True, False, False)
    assert strict.decision == FAIL
    assert threshold_set_from_dict({"scored": {"strict": True}}, "x").scored.strict is True


def test_few_items_leave_the_gates_not_evaluable():
    f = scored_frame([ScoredJudge("judge-model", noise=0.5)], 9, humans=3, seed=5)
    d = decide_scored(measure_scored(f, "tiny.csv"))
    assert d.decision == INCOMPLETE
    assert [g.detail for g in d.gates("judge-model")] == ["no interval: 9 items, fewer than 10"] * 2


def test_no_judge_stands_out_among_exchangeable_judges():
    f = scored_frame([ScoredJudge(f"judge-{c}", noise=0.5) for c in "abc"], 200, humans=3, seed=14)
    p = measure_scored(f, "three.csv").panel
    assert p.drop is None and p.why.startswith("no judge stands out: the lowest alpha with the humans")


def test_the_length_effect_does_not_flag_an_unbiased_judge_when_longer_answers_are_better():
    """Length correlated 0.6 with quality, a judge exchangeable with the humans: the correlation of its
    excess with length stays near 0 (the partial correlation holding the humans' mean averaged +0.10
    with three humans and flagged 42-94% of such audits)."""
    values, flagged = [], 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        truth = rng.normal(3, 1, 300)
        length = np.round(np.exp(5 + 0.5 * (0.6 * (truth - 3) + 0.8 * rng.normal(size=300))))
        rows = [(f"i{i}", r, role, float(np.clip(np.rint(truth[i] + rng.normal(0, .5)), 1, 5)), "m", length[i])
                for i in range(300) for r, role in (("h1", "human"), ("h2", "human"), ("h3", "human"), ("J", "judge"))]
        f = pd.DataFrame(rows, columns=["item", "rater", "role", "score", "model", "length"])
        m = measure_scored(f, "len.csv").agreements[0].measure("length_effect")
        values.append(m.exact)
        flagged += not (m.low <= 0 <= m.high)
    assert abs(np.mean(values)) < 0.03 and flagged <= 4, (np.mean(values), flagged)


def test_distinct_stated_values_are_decomposed_over_the_bins():
    rng = np.random.default_rng(2)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(float)
    c = calibration(p, y)
    assert c.decomposed_by == "equal-mass bins"
    assert c.reliability - c.resolution + c.uncertainty + c.within == pytest.approx(c.brier, abs=1e-12)
    assert "within-bin" in c.decomposition()
    q = np.round(p, 1)
    assert calibration(q, y).decomposed_by == "stated value" and calibration(q, y).within == 0.0
