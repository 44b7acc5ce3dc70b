"""Marginal homogeneity (agreebound.panel.marginal_homogeneity): Stuart-Maxwell against pyirr and
statsmodels, a hand-worked table, Bhapkar's m-rater test, the size under homogeneity by simulation,
a planted lenient rater found and named, and the chi-square tail against scipy."""

from __future__ import annotations
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chi2

from agreebound.core.chi_square import chi_square_sf
from agreebound.panel.marginal_homogeneity import (explain_low_alpha, marginal_homogeneity, paired_table,
                                                   rater_rates, stuart_maxwell)

VISION = [[1520, 266, 124, 66], [234, 1512, 432, 78], [117, 362, 1772, 205], [36, 82, 179, 492]]
HAND3 = [[20, 5, 3], [10, 15, 2], [1, 6, 18]]
EMPTY4 = [[12, 3, 0, 4], [7, 9, 0, 1], [0, 0, 0, 0], [2, 6, 0, 11]]
RAND5 = [[5, 10, 5, 0, 14], [14, 9, 10, 0, 8], [4, 3, 6, 9, 2], [5, 14, 8, 11, 3], [1, 0, 4, 8, 9]]
ONE_SIDED = [[10, 2, 0], [3, 8, 0], [1, 2, 0]]  # the second rater never uses the third category

# pyirr 0.84.1.2 (stuart_maxwell_mh and bhapkar on the table expanded to one row per unit; vision is its
# own data set, read_data("vision")) and statsmodels 0.15.0 (SquareTable(t, shift_zeros=False).homogeneity(),
# method "stuart_maxwell" and "bhapkar"), in a scratch venv:
#   python3 -m venv /tmp/smt-venv && /tmp/smt-venv/bin/pip install pyirr statsmodels
#   r = pyirr.stuart_maxwell_mh(rows); r.value, r.stat_name, r.pvalue
# statistic, df, p (pyirr), and Bhapkar's statistic, p
PEERS = {
    "vision": (VISION, 11.956569622982554, 3, 0.007533425054800591, 11.975720155525678, 0.007466797469723896),
    "hand3": (HAND3, 0.641509433962264, 2, 0.7256012068189803, 0.6466951973371375, 0.7237222457520017),
    # pyirr's crosstab leaves out the category no rater used (statsmodels gives nan: S is singular)
    "empty4": (EMPTY4, 0.7209302325581395, 2, 0.697351900907815, 0.7305055698371894, 0.6940211906118867),
    "rand5": (RAND5, 8.291785825159696, 4, 0.08145585932956312, 8.739086007127284, 0.06796243177170802),
}
# statsmodels (pyirr's stuart_maxwell_mh fails on it: its crosstab is 3 x 2); pyirr's bhapkar, which keeps all levels
STATSMODELS_ONE_SIDED = (3.176470588235291, 2, 0.20428579817889847)
PYIRR_BHAPKAR_ONE_SIDED = (3.618556701030927, 2, 0.1637722803501579)


def _rows(table: list[list[int]]) -> list[list[str]]:
    return [[f"c{i}", f"c{j}"] for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)]


@pytest.mark.parametrize("name", sorted(PEERS))
def test_stuart_maxwell_equals_pyirr(name):
    table, stat, df, p, _, _ = PEERS[name]
    t = stuart_maxwell(table)
    assert (t.df, t.units) == (df, sum(map(sum, table)))
    assert t.statistic_float == pytest.approx(stat, rel=1e-9, abs=1e-12)
    assert t.p_value == pytest.approx(p, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", sorted(PEERS))
def test_two_rater_bhapkar_equals_pyirr(name):
    table, _, df, _, stat, p = PEERS[name]
    # the table's empty category is no rater's label: encoding the rows leaves it out, as pyirr's crosstab does
    t = marginal_homogeneity(_rows(table))
    assert t.df == df
    assert t.statistic_float == pytest.approx(stat, rel=1e-9)
    assert t.p_value == pytest.approx(p, rel=1e-9)


def test_a_category_one_rater_never_uses():
    t = stuart_maxwell(ONE_SIDED)
    assert t.statistic == Fraction(54, 17)
    assert (t.statistic_float, t.df, t.p_value) == pytest.approx(STATSMODELS_ONE_SIDED, rel=1e-9)
    b = marginal_homogeneity(_rows(ONE_SIDED))
    assert (b.statistic_float, b.df, b.p_value) == pytest.approx(PYIRR_BHAPKAR_ONE_SIDED, rel=1e-9)


def test_hand_worked_3x3():
    # rows 28, 27, 25; columns 31, 26, 23; d = (-3, 1) on the first two categories;
    # S = [[28 + 31 - 40, -(5 + 10)], [-(5 + 10), 27 + 26 - 30]] = [[19, -15], [-15, 23]], det 212;
    # d' S^-1 d = (23 * 9 - 2 * 15 * 3 + 19 * 1) / 212 = 136 / 212 = 34 / 53; on 2 df the tail is exp(-x / 2)
    t = stuart_maxwell(HAND3)
    assert (t.statistic, t.df) == (Fraction(34, 53), 2)
    assert t.p_value == pytest.approx(math.exp(-17 / 53), rel=1e-14)
    assert "dropped" not in t.method


def test_singular_tables_drop_what_carries_nothing():
    diag = stuart_maxwell([[10, 0, 0], [0, 8, 3], [0, 6, 9]])  # McNemar on the rest: (3 - 6)^2 / 9
    assert (diag.statistic, diag.df) == (Fraction(1), 1)
    assert "1 category no pair disagreed on" in diag.method
    # two blocks that never meet: S has rank 2, the statistic is the two McNemar's summed
    blocks = stuart_maxwell([[5, 4, 0, 0], [1, 5, 0, 0], [0, 0, 5, 2], [0, 0, 2, 5]])
    assert (blocks.statistic, blocks.df) == (Fraction(9, 5) + 0, 2)
    agree = stuart_maxwell([[7, 0], [0, 3]])
    assert (agree.statistic, agree.df, agree.p_value) == (0, 0, 1.0)
    with pytest.raises(ValueError, match="square"):
        stuart_maxwell([[1, 2, 3], [4, 5, 6]])


def test_paired_table_reads_the_rows():
    rows = [["x", "y", None], ["x", "x", "y"], ["y", "y", "y"], [None, "x", "x"]]
    assert paired_table(rows).tolist() == [[1, 1], [0, 1]]
    assert paired_table(rows, 0, 2).tolist() == [[0, 1], [0, 1]]


def test_bhapkar_for_three_raters_equals_the_float_formula():
    # the same Wald statistic in floats: n * dbar' pinv(cov(contrasts, ddof=0)) dbar
    rng = np.random.default_rng(5601)
    truth = rng.integers(0, 3, 150)
    labels = np.where(rng.random((150, 3)) < 0.6, truth[:, None], rng.integers(0, 3, (150, 3)))
    labels[:, 2] = np.where(rng.random(150) < 0.15, 2, labels[:, 2])
    t = marginal_homogeneity(labels)
    onehot = (labels[:, :, None] == np.arange(3)).astype(float)
    c = (onehot[:, :-1, :-1] - onehot[:, -1:, :-1]).reshape(150, -1)
    dbar = c.mean(axis=0)
    w = 150 * dbar @ np.linalg.pinv(np.cov(c, rowvar=False, ddof=0)) @ dbar
    assert t.df == 4
    assert t.statistic_float == pytest.approx(w, rel=1e-9)
    assert t.p_value == pytest.approx(chi2.sf(w, 4), rel=1e-9)
    missing = labels.astype(object)
    missing[:10, 1] = None
    assert "10 units missing a rating left out" in marginal_homogeneity(missing).method
    assert marginal_homogeneity(missing).units == 140


def test_a_difference_on_every_unit_is_certain():
    # the first rater always says "a", the second always "b": every unit shows the same nonzero difference
    # in the first category's indicator, so its centred variance is 0
    t = marginal_homogeneity([["a", "b"]] * 12)
    assert (t.statistic, t.df, t.p_value) == (None, 1, 0.0)


def test_size_under_homogeneity():
    """2,000 tables from a symmetric joint distribution (homogeneous margins), 300 units each: the
    Stuart-Maxwell test rejects at 5% in 0.054 of them (Monte-Carlo sd 0.0049). At 100 units it was
    0.035 (conservative: about 30 off-diagonal pairs). Bhapkar's test over 3 exchangeable raters on 200
    units, 2,000 panels: 0.0615, liberal as Wald tests with an estimated covariance are, within 3 sd."""
    rng = np.random.default_rng(56)
    joint = np.array([[.2, .05, .05], [.05, .2, .05], [.05, .05, .3]]).ravel()
    sm = [stuart_maxwell(rng.multinomial(300, joint).reshape(3, 3)).p_value for _ in range(2000)]
    sd = math.sqrt(0.05 * 0.95 / 2000)
    rate = float(np.mean(np.array(sm) < 0.05))
    assert abs(rate - 0.05) < 3 * sd, rate
    # uniform-ish: each tenth of [0, 1] holds 10% +- 3 sd (discreteness of 100-unit tables included)
    deciles = np.histogram(sm, bins=10, range=(0, 1))[0] / 2000
    assert np.all(np.abs(deciles - 0.1) < 3 * math.sqrt(0.09 / 2000)), deciles
    bh = []
    for _ in range(2000):
        truth = rng.integers(0, 3, 200)
        bh.append(marginal_homogeneity(np.where(rng.random((200, 3)) < 0.7, truth[:, None],
                                                rng.integers(0, 3, (200, 3)))).p_value)
    rate = float(np.mean(np.array(bh) < 0.05))
    assert abs(rate - 0.05) < 3 * sd, rate


def test_a_planted_lenient_rater_is_found_and_named():
    """Four raters on 120 items, "pass" for 50% of them; "Lenient" turns a fail into a pass a third of the
    time. Over 200 panels the test finds it (p < 0.05) in 187 (at least 180 asserted); in the seeded panel below the
    sentence names Lenient as the rater saying 'pass' most."""
    rng = np.random.default_rng(5656)

    def panel() -> np.ndarray:
        truth = rng.random(120) < 0.5
        said = np.where(rng.random((120, 4)) < 0.85, truth[:, None], ~truth[:, None])
        said[:, 3] |= rng.random(120) < 1 / 3
        return np.where(said, "pass", "fail")

    found = sum(marginal_homogeneity(panel()).p_value < 0.05 for _ in range(200))
    assert found >= 180, found
    rows = panel()
    raters = ["Ann", "Bo", "Cy", "Lenient"]
    test = marginal_homogeneity(rows)
    assert test.df == 3 and test.p_value < 0.05
    rates = rater_rates(rows, raters)
    sentence = explain_low_alpha(test, rates, alpha_is_low=True)
    assert sentence is not None
    assert "Lenient says 'pass'" in sentence, sentence
    assert explain_low_alpha(test, rates, alpha_is_low=False) is None
    calm = marginal_homogeneity([["x", "x"], ["y", "y"], ["x", "y"], ["y", "x"]])
    assert explain_low_alpha(calm, rater_rates([["x", "x"]], ["A", "B"]), alpha_is_low=True) is None


def test_rater_rates_and_their_intervals():
    rates = rater_rates([["yes", "no"], ["yes", None], ["no", "no"]], ["A", "B"])
    assert [(r.rater, r.category, r.count, r.rated) for r in rates] == [
        ("A", "no", 1, 3), ("A", "yes", 2, 3), ("B", "no", 2, 2), ("B", "yes", 0, 2)]
    assert rates[1].rate == Fraction(2, 3)
    assert (rates[3].interval.low, rates[2].interval.high) == (0.0, 1.0)


def test_a_name_is_shown_as_printable_text():
    rows = [["yes", "yes"]] * 30 + [["yes", "no"]] * 25 + [["no", "no"]] * 45
    sentence = explain_low_alpha(marginal_homogeneity(rows), rater_rates(rows, ["Ann\nX", "Bo"]), alpha_is_low=True)
    assert sentence is not None and "\n" not in sentence and "Ann\\nX on 45%" in sentence


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 12, 41])
def test_chi_square_tail_equals_scipy(df):
    for x in [1e-8, 0.3, 1.0, df - 0.5, df + 3.0, 4.0 * df + 20.0, 300.0]:
        assert chi_square_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-12), (x, df)
    with pytest.raises(ValueError):
        chi_square_sf(1.0, 0)
