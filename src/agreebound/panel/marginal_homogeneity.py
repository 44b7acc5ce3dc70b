"""Marginal homogeneity: whether the raters use the categories at the same rates.

A panel whose raters sort the same units into the categories at different rates cannot agree well,
whatever else it does: one rater's lenience alone lowers alpha. These tests say whether the rates
differ by more than chance, and the sentence beside alpha says who uses which category more.

* :func:`stuart_maxwell`: two raters, the k x k table of their paired labels (Stuart 1955,
  Biometrika 42:412-416; Maxwell 1970, British Journal of Psychiatry 116:651-655): d' S^- d on the
  differences d of the row and column totals, S their covariance under homogeneity, chi-square on
  rank(S) degrees of freedom (k - 1 when no category drops out).
* :func:`marginal_homogeneity`: m raters on the same units, Bhapkar's Wald test (Bhapkar 1966, JASA
  61:228-235) in its m-margin form, the weighted-least-squares test of Koch, Landis, Freeman, Freeman
  and Lehnen (1977, Biometrics 33:133-158; Agresti, Categorical Data Analysis, 3rd ed., section 11.2):
  the (m - 1)(k - 1) differences between each rater's category rates and the last rater's, with
  their covariance estimated from the units themselves (each unit one cluster of m paired ratings,
  so the covariance is the cluster-robust one, no independence between raters assumed). For two
  raters it is Bhapkar's statistic, W = SM / (1 - SM / n) for Stuart-Maxwell's SM on n units.

A singular covariance is met with a generalized inverse, computed exactly (the counts are integers,
the statistic a :class:`~fractions.Fraction`): a category no rater pair disagreed on (an empty one,
or one met only on the diagonal) has zero variance and a zero difference and drops out, and so does
any difference that is a sum of others; the degrees of freedom are the covariance's rank. The
statistic is the same for every generalized inverse because the differences lie in the covariance's
column space (for Stuart-Maxwell always; for Bhapkar's test unless a difference is the same nonzero
number on every unit, which is certain evidence: an infinite statistic, p = 0).

The chi-square tail is agreebound.core.chi_square (no scipy at run time).
"""

from __future__ import annotations
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence
import numpy as np
from agreebound.core.chi_square import chi_square_sf
from agreebound.core.escape import printable
from agreebound.core.intervals import Wilson
from agreebound.panel.categories import Coded, Ratings, encode

#: The size of the test the sentence beside alpha uses: rates that differ at p < 5%.
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class MarginalTest:
    """A marginal-homogeneity test: ``statistic`` (exact; None when infinite: a difference seen on every
    unit alike), chi-square on ``df`` degrees of freedom (0: nothing to test), its ``p_value``, ``units``
    the units it used, and ``method`` the words that say which test and what dropped out."""

    statistic: Fraction | None
    df: int
    p_value: float
    units: int
    method: str

    @property
    def statistic_float(self) -> float:
        return math.inf if self.statistic is None else float(self.statistic)


def _solve_exact(matrix: list[list[Fraction]], rhs: list[Fraction]) -> tuple[Fraction | None, int]:
    """rhs' M^- rhs for a symmetric positive semi-definite M, and rank(M): Gauss-Jordan over fractions with
    full pivoting; None when rhs is not in M's column space (the quadratic form is then infinite)."""
    n = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    pivots: list[tuple[int, int]] = []
    row = 0
    for col in range(n):
        pivot = next((r for r in range(row, n) if a[r][col] != 0), None)
        if pivot is None:
            continue
        a[row], a[pivot] = a[pivot], a[row]
        lead = a[row][col]
        a[row] = [v / lead for v in a[row]]
        for r in range(n):
            if r != row and a[r][col] != 0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[row])]
        pivots.append((row, col))
        row += 1
    if any(a[r][n] != 0 for r in range(row, n)):
        return None, row
    solution = [Fraction(0)] * n
    for r, c in pivots:
        solution[c] = a[r][n]
    return sum((x * y for x, y in zip(rhs, solution)), Fraction(0)), row


def _test(quad: Fraction | None, rank: int, units: int, method: str) -> MarginalTest:
    if quad is None:
        return MarginalTest(None, rank, 0.0, units, method + "; a difference the same on every unit: certain")
    if rank == 0:
        return MarginalTest(Fraction(0), 0, 1.0, units, method + "; no differences to test (df 0)")
    p = 0.0 if quad is None else chi_square_sf(float(quad), rank)
    return MarginalTest(quad, rank, p, units, method)


def stuart_maxwell(table: Sequence[Sequence[int]] | np.ndarray) -> MarginalTest:
    """The Stuart-Maxwell test of marginal homogeneity on a k x k table of two raters' paired labels
    (rows: the first rater's category, columns: the second's).

    Stuart's unaided distance vision of 7,477 women (right eye by left eye, Stuart 1955; Agresti's
    Categorical Data Analysis): 11.957 on 3 df, p = 0.0075, as R's irr and pyirr give:

    >>> t = stuart_maxwell([[1520, 266, 124, 66], [234, 1512, 432, 78], [117, 362, 1772, 205], [36, 82, 179, 492]])
    >>> round(t.statistic_float, 3), t.df, round(t.p_value, 4)
    (11.957, 3, 0.0075)

    A category met only on the diagonal drops out (the rest is McNemar's test, (3 - 6)^2 / (3 + 6)):

    >>> t = stuart_maxwell([[10, 0, 0], [0, 8, 3], [0, 6, 9]])
    >>> t.statistic, t.df
    (Fraction(1, 1), 1)
    """
    n = np.asarray(table, dtype=object)
    if n.ndim != 2 or n.shape[0] != n.shape[1] or n.shape[0] < 2:
        raise ValueError(f"stuart_maxwell needs a square table of at least 2 x 2 counts, not shape {n.shape}")
    if any(int(v) != v or v < 0 for v in n.flat):
        raise ValueError("stuart_maxwell needs whole, non-negative counts")
    k = n.shape[0]
    cells = [[int(n[i, j]) for j in range(k)] for i in range(k)]
    d = [Fraction(sum(cells[i]) - sum(cells[r][i] for r in range(k))) for i in range(k)]
    s = [[Fraction(sum(cells[i][j] + cells[j][i] for j in range(k) if j != i) if i == j
                   else -(cells[i][j] + cells[j][i])) for j in range(k)] for i in range(k)]
    quad, rank = _solve_exact(s, d)
    dropped = [i for i in range(k) if all(v == 0 for v in s[i])]
    gone = (f"; {len(dropped)} categor{'y' if len(dropped) == 1 else 'ies'} no pair disagreed on "
            f"(empty or only on the diagonal) dropped out" if dropped else "")
    method = (f"Stuart-Maxwell test of marginal homogeneity (d' S^- d, generalized inverse, "
              f"chi-square on rank(S) = {rank} df){gone}")
    return _test(quad, rank, sum(map(sum, cells)), method)


def paired_table(ratings: Coded | Ratings, first: int = 0, second: int = 1) -> np.ndarray:
    """The k x k table of two raters' labels on the units both rated (rows: ``first``'s category)."""
    c = encode(ratings)
    k = len(c.categories.values)
    label = np.full((c.n_raters, c.n_units), -1, dtype=np.int64)
    label[c.rater, c.unit] = c.code
    both = (label[first] >= 0) & (label[second] >= 0)
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (label[first][both], label[second][both]), 1)
    return table


def _complete_labels(c: Coded) -> np.ndarray:
    """The units every rater rated, each a row of its m labels (in unit order): a matrix no larger
    than the ratings (never units x raters, which a sparse file with many raters makes huge)."""
    unit, rater, code = np.asarray(c.unit), np.asarray(c.rater), np.asarray(c.code)
    complete = np.flatnonzero(np.bincount(unit, minlength=c.n_units) == c.n_raters)
    keep = np.isin(unit, complete)
    row = np.searchsorted(complete, unit[keep])
    label = np.full((len(complete), c.n_raters), -1, dtype=np.int64)
    label[row, rater[keep]] = code[keep]
    return label[(label >= 0).all(axis=1)]


def marginal_homogeneity(ratings: Coded | Ratings) -> MarginalTest:
    """Bhapkar's test that all m raters use the k categories at the same rates, on the units every rater
    rated (a unit missing a rating is left out: the test pairs each unit's m labels).

    For two raters it is Bhapkar's two-rater statistic (pyirr's ``bhapkar``, statsmodels'
    ``SquareTable.homogeneity(method="bhapkar")``), SM / (1 - SM / n):

    >>> rows = [["a", "a"]] * 20 + [["a", "b"]] * 5 + [["b", "a"]] * 10 + [["b", "b"]] * 15
    >>> t = marginal_homogeneity(rows)
    >>> t.statistic, stuart_maxwell([[20, 5], [10, 15]]).statistic
    (Fraction(50, 29), Fraction(5, 3))
    >>> Fraction(5, 3) / (1 - Fraction(5, 3) / 50)
    Fraction(50, 29)
    """
    c = encode(ratings)
    k, m = len(c.categories.values), c.n_raters
    labels = _complete_labels(c)
    n = len(labels)
    left_out = c.n_units - n
    if m < 2 or k < 2 or n == 0:
        return MarginalTest(Fraction(0), 0, 1.0, n, "Bhapkar's test: fewer than 2 raters, 2 categories or 1 complete unit")
    # one row per unit: rater r's indicator of category j minus the last rater's, j < k - 1, r < m - 1
    onehot = (labels[:, :, None] == np.arange(k)[None, None, :]).astype(np.int64)  # units x raters x k
    contrast = (onehot[:, :-1, :-1] - onehot[:, -1:, :-1]).reshape(n, -1)
    total = [int(v) for v in contrast.sum(axis=0)]
    # exact in int64: each entry a sum of n products of -1, 0, 1 (|entry| <= n); Python ints from here
    gram = (contrast.T @ contrast).astype(object)
    # the centred covariance times n^2: n sum c c' - (sum c)(sum c)'; W = n s' M^- s
    dim = len(total)
    centred = [[Fraction(n * int(gram[i, j]) - total[i] * total[j]) for j in range(dim)] for i in range(dim)]
    quad, rank = _solve_exact(centred, [Fraction(t) for t in total])
    if quad is None:  # df: the differences' own rank (the uncentred covariance's, which holds them)
        rank = _solve_exact([[Fraction(int(v)) for v in row] for row in gram], [Fraction(t) for t in total])[1]
    method = (f"Bhapkar's test of marginal homogeneity across {m} raters (Wald, cluster-robust covariance over "
              f"{n:,} units, generalized inverse, chi-square on its rank = {rank} df)")
    if left_out:
        method += f"; {left_out:,} unit{'' if left_out == 1 else 's'} missing a rating left out"
    return _test(None if quad is None else n * quad, rank, n, method)


@dataclass(frozen=True)
class RaterRate:
    """How often ``rater`` used ``category``: ``count`` of the ``rated`` units it rated, a Wilson 95% interval."""

    rater: str
    category: str
    count: int
    rated: int

    @property
    def rate(self) -> Fraction:
        return Fraction(self.count, self.rated) if self.rated else Fraction(0)

    @property
    def interval(self) -> Wilson:
        return Wilson(self.count, self.rated)


def rater_rates(ratings: Coded | Ratings, raters: Sequence[str]) -> list[RaterRate]:
    """Each rater's rate of each category over the units it rated (rater-major, categories in order)."""
    c = encode(ratings)
    names = [str(v) for v in c.categories.values]
    out = []
    for r, rater in enumerate(raters):
        codes = c.code[c.rater == r]
        counts = np.bincount(codes, minlength=len(names))
        out += [RaterRate(rater, names[j], int(counts[j]), len(codes)) for j in range(len(names))]
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def explain_low_alpha(test: MarginalTest, rates: Sequence[RaterRate], alpha_is_low: bool,
                      significance: float = SIGNIFICANCE) -> str | None:
    """The sentence said beside alpha where the raters' category rates explain a low alpha; None when alpha
    is not low (``alpha_is_low``: what the panel's decision said) or the rates do not differ at ``significance``.

    It names the category whose rates differ most, the rater who uses it most and the one who uses it
    least, each with its 95% interval. Names and labels are shown as printable text (escape them for
    Markdown where drawn).

    >>> rows = [["yes", "yes"]] * 30 + [["yes", "no"]] * 25 + [["no", "no"]] * 45
    >>> t = marginal_homogeneity(rows)
    >>> print(explain_low_alpha(t, rater_rates(rows, ["Ann", "Bo"]), alpha_is_low=True))
    The raters use the categories at different rates (Bhapkar's test: 33.3 on 1 df, p < 0.001), which lowers alpha: Bo says 'no' on 70% of the units it rated (95% CI 60% to 78%), Ann on 45% (36% to 55%).
    """
    if not alpha_is_low or test.df == 0 or not test.p_value < significance:
        return None
    by_category: dict[str, list[RaterRate]] = {}
    for r in rates:
        if r.rated:
            by_category.setdefault(r.category, []).append(r)
    def spread(cat: str) -> tuple[Fraction, Fraction]:
        # the widest range of rates; among equal ranges (two categories always tie) the category one
        # rater uses most beyond the others' mean: the lenient rater's 'pass', not everyone else's 'fail'
        values = [r.rate for r in by_category[cat]]
        return max(values) - min(values), max(values) - sum(values, Fraction(0)) / len(values)

    category = max(by_category, key=spread)
    most = max(by_category[category], key=lambda r: r.rate)
    least = min(by_category[category], key=lambda r: r.rate)
    p = "p < 0.001" if test.p_value < 0.001 else f"p = {test.p_value:.3f}"
    name = "Stuart-Maxwell test" if test.method.startswith("Stuart") else "Bhapkar's test"
    hi, lo = most.interval, least.interval
    return (f"The raters use the categories at different rates ({name}: {test.statistic_float:.1f} on {test.df} df, "
            f"{p}), which lowers alpha: {printable(most.rater, 60)} says '{printable(category, 60)}' on "
            f"{_pct(float(most.rate))} of the units it rated (95% CI {_pct(hi.low)} to {_pct(hi.high)}), "
            f"{printable(least.rater, 60)} on {_pct(float(least.rate))} ({_pct(lo.low)} to {_pct(lo.high)}).")
