"""A graded judge's scores mapped to the humans' mean (agreebound.scored.recalibrate): the map on the
sample, the mapped judge audited as the raw one, and simulations (fixed seeds) of a lenient judge made
admissible, a noisy one not, and the out-of-sample error against the error on fresh items."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.scored.items import scored_input
from agreebound.scored.recalibrate import calibration_error, decide_recalibration, recalibrate

SAMPLE = "sample_data/graded_judge.csv"
LENIENT = ScoredJudge(leniency=1.0, noise=0.3)  # the humans' truth + 1, small noise, rounded and clipped to 1-5
NOISY = ScoredJudge(noise=2.0)


def _admissible(r) -> tuple[bool | None, bool | None]:
    before, after = decide_recalibration(r)
    return before.gates(r.judge)[0].passed, after.gates(r.judge)[0].passed


def test_the_full_map_is_the_humans_mean_per_score_on_the_sample_and_exports_as_json():
    """On the sample the humans' mean rises with judge-model's score, so the isotonic map is each
    score's mean of the humans' means (pandas' groupby, independently); the JSON holds it."""
    f = pd.read_csv(SAMPLE)
    r = recalibrate(f, "judge-model")
    x = scored_input(f)
    s, h = x.column("judge-model"), x.human_mean
    use = ~np.isnan(s) & ~np.isnan(h)
    means = pd.Series(h[use]).groupby(s[use]).mean()
    assert [b[0] for b in r.breakpoints] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert np.allclose([b[1] for b in r.breakpoints], means.to_numpy(), atol=1e-12)
    assert r.items == int(use.sum()) == 120
    out = json.loads(json.dumps(r.to_json()))
    assert out["breakpoints"][2]["score"] == 3.0 and out["breakpoints"][2]["mapped"] == pytest.approx(means[3.0])
    # the step rule: 3.5 takes 3's value, 0.5 (below the first) takes 1's
    assert r.map([3.5, 0.5]).tolist() == [r.breakpoints[2][1], r.breakpoints[0][1]]
    assert r.sentence.startswith("judge-model mapped to the humans' mean by an isotonic map cross-fitted over 5 folds "
                                 "of 120 items: mean absolute error 0.497 -> 0.473, calibration error ")


def test_the_mapped_judge_is_audited_by_the_audit_itself():
    """The after audit reads the mapped scores (rounded to 1-5) in place of the judge's, the humans
    unchanged; the before audit is the audit of the judge alone."""
    f = pd.read_csv(SAMPLE)
    r = recalibrate(f, "judge-b")
    assert r.before.input.judges == r.after.input.judges == ("judge-b",)
    assert r.before.level == r.after.level == "ordinal"
    assert set(r.mapped.values()) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    assert np.array_equal(r.before.input.matrix[:, 1:], r.after.input.matrix[:, 1:], equal_nan=True)
    col = r.after.input.column("judge-b")
    assert [r.mapped[i] for i in r.after.input.items] == col.tolist()
    assert _admissible(r) == (False, False)  # judge-b's disagreement is not a shift a map can remove


def test_refusals():
    f = pd.read_csv(SAMPLE)
    with pytest.raises(ValueError, match="name the judge"):
        recalibrate(f)
    with pytest.raises(ValueError, match="no judge 'nobody'"):
        recalibrate(f, "nobody")
    binary = scored_frame([ScoredJudge()], n_items=50, scale=(0, 1), seed=1)
    with pytest.raises(ValueError, match="graded judge"):
        recalibrate(binary)


def test_a_lenient_judge_becomes_admissible_after_the_map():
    """Measured over 20 seeds: the raw audit's admissibility fails 20 of 20, the mapped passes 20 of
    20 (asserted: at least 18)."""
    got = [_admissible(recalibrate(scored_frame([LENIENT], n_items=200, seed=seed))) for seed in range(20)]
    assert all(before is False for before, _ in got)
    assert sum(after is True for _, after in got) >= 18


def test_a_lenient_judge_at_the_interval_level_unrounded():
    r = recalibrate(scored_frame([LENIENT], n_items=200, seed=0), rounded=False)
    assert r.before.level == r.after.level == "interval"
    assert len(set(r.mapped.values()) - {1.0, 2.0, 3.0, 4.0, 5.0}) > 0
    assert _admissible(r) == (False, True)


def test_a_noisy_judge_does_not_become_admissible():
    """Measured over 10 seeds: admissible neither before nor after in any (the mapped judge's
    alpha difference is lower still: the map pulls its scores to the middle)."""
    for seed in range(10):
        r = recalibrate(scored_frame([NOISY], n_items=200, seed=seed))
        assert _admissible(r) == (False, False)


def test_the_out_of_sample_error_matches_the_error_on_fresh_items():
    """30 simulated logs of 200 items (a judge with leniency 0.5, noise 0.8): the cross-fitted MAE
    and the per-fold CE against the full map's on 2,000 fresh items of the same judge (CE on fresh
    sets of 40 items, the size of a fold). Measured: MAE 0.5658 reported vs 0.5756 fresh (difference
    -0.0098, Monte-Carlo SE 0.0078); CE 0.2065 vs 0.2050 (difference 0.0014, SE 0.0088); the 95%
    fold-spread intervals cover the mean fresh error in 27 of 30 runs (MAE) and 26 of 30 (CE) (over
    200 runs: 95% and 89%); the raw judge's MAE 0.7378, CE 0.5749."""
    judge = ScoredJudge(leniency=0.5, noise=0.8)
    rows = []
    for seed in range(30):
        r = recalibrate(scored_frame([judge], n_items=200, seed=seed))
        x = scored_input(scored_frame([judge], n_items=2000, seed=100_000 + seed))
        s, h = x.column(x.judges[0]), x.human_mean
        m = r.map(s)
        sets = np.unique(s, return_inverse=True)[1] + 10 * (np.arange(2000) // 40)
        rows.append((r.mae.after, float(np.abs(m - h).mean()), r.ce.after, calibration_error(m, h, sets),
                     *r.mae.after_interval, *r.ce.after_interval, r.mae.before, r.ce.before))
    a = np.array(rows)
    for reported, fresh in ((0, 1), (2, 3)):
        d = a[:, reported] - a[:, fresh]
        se = d.std(ddof=1) / np.sqrt(len(d))
        assert abs(d.mean()) < 3 * se, (d.mean(), se)
    mae_fresh, ce_fresh = a[:, 1].mean(), a[:, 3].mean()
    assert ((a[:, 4] <= mae_fresh) & (mae_fresh <= a[:, 5])).sum() >= 25
    assert ((a[:, 6] <= ce_fresh) & (ce_fresh <= a[:, 7])).sum() >= 24
    # the map helps: the raw judge's errors on the same logs are larger (0.7378 and 0.5749)
    assert a[:, 8].mean() - a[:, 0].mean() > 0.15 and a[:, 9].mean() - a[:, 2].mean() > 0.3
