"""The pooled alphas' delete-one-item jackknife (agreebound.scored.pairwise.leave_one_out): each item's
pairs subtracted from the pooled table's counts, one alpha per distinct contribution, equals the
refit: the same audit of the log without that item."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreebound.scored.items import scored_input
from agreebound.scored.pairwise import _alpha_from_tables, contributions, pooled_alpha


def _log(seed: int, items: int, humans: int, missing: float, scale: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, scale + 1, items)
    rows = []
    for i in range(items):
        for r in ["J"] + [f"h{k}" for k in range(humans)]:
            if rng.random() >= missing:
                v = float(np.clip(truth[i] + rng.integers(-1, 2), 1, scale))
                rows.append((f"i{i}", r, "judge" if r == "J" else "human", v))
    return pd.DataFrame(rows, columns=["item", "rater", "role", "score"])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed, humans, missing, scale", [(0, 2, 0.0, 5), (1, 3, 0.2, 5), (2, 4, 0.3, 3),
                                                          (3, 2, 0.1, 10)])
def test_subtraction_equals_the_refit_exactly(level, seed, humans, missing, scale):
    """For every item: the subtraction's alpha is, bit for bit, the float kernel's alpha on the table
    refitted from the log without the item (the same integer counts), and within 1e-12 of that log's
    exact alpha (the float kernel's rounding); judge-human pairs, on every item and on the items two or
    more humans scored, and human-human pairs."""
    f = _log(seed, 24, humans, missing, scale)
    x = scored_input(f)
    hs = x.humans
    for raters, two in (([("J", h) for h in hs], False), ([("J", h) for h in hs], True),
                        ([(a, b) for k, a in enumerate(hs) for b in hs[k + 1:]], True)):
        full = pooled_alpha(x, raters, level, x.two_humans if two else None)
        assert full.exact is not None and len(full.items) > 10
        values = np.asarray(x.values)
        for i, item in enumerate(full.items.tolist()):
            rest = scored_input(f[f["item"] != x.items[item]])
            assert rest.values == x.values  # the same scale: tables comparable cell by cell
            refit = pooled_alpha(rest, raters, level, rest.two_humans if two else None)
            kernel = _alpha_from_tables(refit.table.astype(float)[None], values, level)[0]
            if refit.exact is None:
                assert np.isnan(full.loo[i]) and np.isnan(kernel)
                continue
            assert full.loo[i] == kernel  # bit for bit
            assert full.loo[i] == pytest.approx(float(refit.exact), abs=1e-12)


def test_items_with_the_same_pairs_share_one_contribution():
    """Two items whose pairs fall in the same cells (in any order) are one contribution; a different
    cell, or one pair fewer, is another. An item with far more pairs than the others: each its own."""
    slot = np.array([0, 0, 1, 1, 2, 2, 3])
    cell = np.array([4, 7, 7, 4, 4, 8, 4])
    first, at = contributions(slot, cell, 4)
    assert first.tolist() == [3, 0, 2]  # [4], [4, 7] (items 0 and 1), [4, 8]
    assert at.tolist() == [1, 1, 2, 0]
    many = np.r_[np.zeros(2_000_000, dtype=np.int64), np.arange(1, 100)]
    first, at = contributions(many, np.zeros(len(many), dtype=np.int64), 100)
    assert first.tolist() == at.tolist() == list(range(100))
