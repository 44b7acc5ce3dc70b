"""Krippendorff's alpha: the one implementation, over counts (agreebound.panel.counts.PanelCounts).

Every engine returns counts (numpy in memory, DuckDB out of core, Spark on a cluster) and
:func:`alpha` measures them; :func:`krippendorff_alpha` is the convenience for a rating matrix
(it goes through the numpy engine's counts too). Following Krippendorff's definitions (only
pairable values count),

    alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

computed with integers and ``fractions.Fraction`` only. Two kernels read the counts, whichever
the counts hold, and give the same exact fraction (tests/panel/test_alpha.py checks it on random panels):

* **unit histograms** (``counts.patterns``: each pairable unit's categories and their counts, and
  how many units have it): nominal, interval and ordinal sums reduce to per-histogram counts and
  power sums (ordinal distances are interval distances between mid-ranks), so time and memory
  grow with the number of ratings, never with the square of the number of distinct values;
* **pair counts** (``counts.pairs``: ordered pairs of ratings within units, by unit size), for
  counts that carry no histograms (an out-of-core source with more than MAX_PATTERNS of them).

The coincidence matrix (kept up to ``COINCIDENCE_MAX_CATEGORIES`` values, and what ratio alpha
needs) is built from either when first asked for. The distances between categories are defined
once (:func:`category_distances`): alpha and each unit's disagreement (:func:`unit_disagreement`,
what ranks the units that disagree most, in memory and out of core) read them. The seed's own
integer formulas stay in agreebound.panel (``seed_permil_from_totals``, which alpha calls with the
counts' totals, and ``seed_alpha_permil``): they are the specification's oracle, not a kernel here.

>>> K2011 = [[1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
...          [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, 3, None, None]]
>>> r = krippendorff_alpha(K2011)        # Krippendorff (2011), section C: nominal alpha 0.743
>>> r.value, round(float(r.value), 3)
(Fraction(113, 152), 0.743)
>>> round(float(krippendorff_alpha(K2011, "interval").value), 3)    # published: 0.849
0.849
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property
from typing import Callable, Mapping, NamedTuple, Sequence

import numpy as np

from agreebound.panel.counts import PanelCounts, UnitPatterns, from_coded
from agreebound.core.limits import COINCIDENCE_MAX_CATEGORIES, RATIO_MAX_CATEGORIES
from agreebound.panel.result import AlphaResult
from agreebound.panel.seed import exact_sum, seed_permil_from_totals, unit_sums
from agreebound.panel.categories import LEVELS, Categories, Coded, Level, Ratings, encode, int_array, is_level

__all__ = ["Distances", "alpha", "alpha_without_each_rater", "category_distances", "check_level", "krippendorff_alpha",
           "unit_disagreement"]

# Float64 arithmetic on integers is exact while every value stays below 2**53.
_FLOAT_EXACT = 2**53
# Units per counting block for the coincidence matrix and the ratio level's per-unit disagreement:
# bounds a dense block of units x categories to ~ 16M cells. Its one home: both blocks are here.
_BLOCK_CELLS = 16_000_000

#: (d_o, d_e, the bootstrap's distance moments): what a kernel returns for one level.
Disagreements = tuple[Fraction, Fraction, tuple[float, float]]


def check_level(level: str) -> None:
    if not is_level(level):
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")


def krippendorff_alpha(ratings: Coded | Ratings, level: Level = "nominal") -> AlphaResult:
    """Krippendorff's alpha of ``ratings`` (rows = units, columns = raters; None/NaN missing), via
    the numpy engine's counts. Floats are read as the decimal they print as (0.1 is 1/10), as a
    file would hold them.

    >>> krippendorff_alpha([[0, 0], [1, 1]]).value
    Fraction(1, 1)
    >>> krippendorff_alpha([[0, 0], [0, 0]]).value is None   # no variation: undefined
    True
    >>> krippendorff_alpha([[0, 1], [1, 0]]).permil           # worse than chance stays negative
    -500
    """
    check_level(level)
    coded = encode(ratings)
    return alpha(from_coded(coded), level)


def alpha(counts: PanelCounts, level: Level = "nominal") -> AlphaResult:
    """Krippendorff's alpha of one dimension's counts, exact; ``value`` None where undefined (no
    pairable values, or no variation)."""
    check_level(level)
    cats = counts.category_set
    k = len(cats)
    _check_values(cats, level)
    kernel = _kernel(counts)
    n_c = kernel.pairable_totals(k)
    n = exact_sum(n_c)
    units = sum(u for m, u in counts.units_by_m.items() if m >= 2)
    pairs = sum(u * m * (m - 1) // 2 for m, u in counts.units_by_m.items() if m >= 2)
    seed = seed_permil_from_totals(kernel.different_pairs(), counts.category_totals_array(), len(counts.raters))
    source = None
    if 0 < k <= COINCIDENCE_MAX_CATEGORIES and units:
        def source() -> tuple[list[list[int]], int]:
            return kernel.coincidence(k)

    def result(found: Disagreements | None) -> AlphaResult:
        if found is None:
            return AlphaResult(level, None, None, None, n, units, cats, seed, pairs, None, source)
        d_o, d_e, moments = found
        return AlphaResult(level, 1 - d_o / d_e, d_o, d_e, n, units, cats, seed, pairs, moments, source)

    if n < 2:
        return result(None)
    if level == "nominal":
        return result(kernel.nominal(n, n_c))
    d = category_distances(cats, level, n_c)
    if level in ("interval", "ordinal"):
        assert d.positions is not None  # placed at every level but nominal
        return result(kernel.distances(n, n_c, d.positions, d.root * d.root))
    assert source is not None  # ratio: k <= RATIO_MAX_CATEGORIES
    return result(_ratio(d, n, n_c, *source()))


def _kernel(counts: PanelCounts) -> "_Matrix | _Histograms | _Pairs":
    """The kernel over what the counts hold: their units' histograms (as a count matrix, or as
    entries), else their pair counts."""
    if counts.patterns is not None and counts.patterns.held_as_matrix():
        return _Matrix(counts.patterns)
    rows = counts.patterns.rows() if counts.patterns is not None else None
    return _Histograms(*rows) if rows is not None else _Pairs(counts.pairs)


def _check_values(cats: Categories, level: Level) -> None:
    if level == "nominal":
        return
    cats.need_numeric(level)
    k = len(cats)
    if level == "ratio" and k > RATIO_MAX_CATEGORIES:
        raise ValueError(f"ratio alpha is computed exactly for at most {RATIO_MAX_CATEGORIES} distinct values "
                         f"(its distances have a new denominator for every pair of values); this panel has {k:,}. "
                         "Use the interval level, or group the values")


class Distances(NamedTuple):
    """The squared distances d2_ck between categories at one level, the one definition every
    number over distances reads (alpha, each unit's disagreement): nominal, 1 between different
    categories; interval and ordinal, ((X_c - X_k) / root)^2 over integer positions X (interval:
    the values scaled to integers; ordinal: twice the mid-ranks of the pairable values, so that
    they are integers, root 2); ratio, ((x_c - x_k) / (x_c + x_k))^2 over the values (X / root
    again), 0 where both are 0.

    >>> d = category_distances(Categories(exact=[1, 2, 4]), "ordinal", np.array([2, 1, 3]))
    >>> d.positions.tolist(), d.root                  # mid-ranks 1, 2.5, 4.5
    ([2, 5, 9], 2)
    """

    level: Level
    categories: Categories
    positions: np.ndarray | None  # None at the nominal level
    root: int

    def floats(self) -> np.ndarray:
        """X / root as float64: the values (interval, ratio) or the mid-ranks (ordinal)."""
        if self.level == "ratio":
            return self.categories.floats
        return np.asarray(self.positions, dtype=np.float64) / self.root

    def ratio_matrix(self) -> list[list[Fraction]]:
        """The ratio level's k x k distances, exact (k is at most RATIO_MAX_CATEGORIES)."""
        xs = [int(v) for v in np.asarray(self.positions).tolist()]
        return [[Fraction((a - b) ** 2, (a + b) ** 2) if a + b else Fraction(0) for b in xs] for a in xs]

    def ratio_floats(self) -> np.ndarray:
        """The ratio level's k x k distances in float64, from the values as floats (what each
        unit's disagreement is ranked by)."""
        v = self.floats()
        a, b = v[:, None], v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a + b != 0, ((a - b) / (a + b)) ** 2, 0.0)


def category_distances(cats: Categories, level: Level, pairable_totals: np.ndarray | None) -> Distances:
    """The distances between ``cats`` at ``level`` (:class:`Distances`); ``pairable_totals``: each
    category's values in pairable units (n_c), which place the ordinal mid-ranks (only the
    ordinal level reads them)."""
    if level == "nominal":
        return Distances(level, cats, None, 1)
    if level == "ordinal":
        # the mid-rank P_c = sum_{g<c} n_g + n_c / 2: 2 P_c is an integer, so ordinal alpha is
        # interval alpha of 2 P with d2 scaled by 4
        n_c = np.asarray(pairable_totals)
        before = np.r_[0, np.cumsum(n_c)[:-1]]
        return Distances(level, cats, int_array((2 * before + n_c).tolist()), 2)
    x_all, scale = cats.scaled
    if level == "ratio" and any(v < 0 for v in np.asarray(x_all).tolist()):
        raise ValueError("ratio alpha needs non-negative values; got " + repr(cats.values[0]))
    return Distances(level, cats, x_all, scale)


def unit_disagreement(counts: PanelCounts, level: Level,
                      rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Each unit histogram's contribution to the observed disagreement sum_ck o_ck d2_ck: the sum
    over its ordered pairs of values of d2 / (m - 1), in float64 (what ranks the units that
    disagree most). The histograms are the counts' own (``counts.patterns.rows()``; the numpy
    engine's hold one per pairable unit, in unit order) or ``rows`` (code, count, starts: the
    histograms of units of two or more ratings, as an SQL engine fetched them), at the distances
    of ``counts`` (:func:`category_distances`).

    >>> c = from_coded(encode([[1, 1], [1, 2], [1, 3]]), ["a", "b"])
    >>> unit_disagreement(c, "nominal").tolist(), unit_disagreement(c, "interval").tolist()
    ([0.0, 2.0, 2.0], [0.0, 2.0, 8.0])
    """
    if rows is None:
        assert counts.patterns is not None  # without rows, the counts' own histograms (the numpy engine's)
        rows = counts.patterns.rows()[:3]
    code, cnt, starts = rows
    cats = counts.category_set
    n_c = _kernel(counts).pairable_totals(len(cats)) if level == "ordinal" else None
    d = category_distances(cats, level, n_c)
    if not len(starts):
        return np.zeros(0)
    m_u = np.add.reduceat(cnt, starts)
    lens = np.diff(np.r_[starts, len(cnt)])
    if level == "nominal":
        return (m_u * m_u - np.add.reduceat(cnt * cnt, starts)) / np.maximum(m_u - 1, 1)
    if level in ("interval", "ordinal"):
        x = d.floats()[code]
        mean = np.add.reduceat(cnt * x, starts) / m_u
        dev = x - np.repeat(mean, lens)
        return 2 * m_u * np.add.reduceat(cnt * dev * dev, starts) / np.maximum(m_u - 1, 1)
    # ratio: k is small (RATIO_MAX_CATEGORIES); per unit c^T D c over dense blocks of units
    dd = d.ratio_floats()
    k = len(cats)
    out = np.zeros(len(starts))
    owner = np.repeat(np.arange(len(starts)), lens)
    block = max(1, _BLOCK_CELLS // max(k, 1))
    for b0 in range(0, len(starts), block):
        b1 = min(len(starts), b0 + block)
        lo, hi = int(starts[b0]), int(starts[b1]) if b1 < len(starts) else len(code)
        dense = np.zeros((b1 - b0, k))
        dense[owner[lo:hi] - b0, code[lo:hi]] = cnt[lo:hi]
        out[b0:b1] = ((dense @ dd) * dense).sum(axis=1) / np.maximum(m_u[b0:b1] - 1, 1)
    return out


def _ratio(d: Distances, n: int, n_c: np.ndarray, coinc: list[list[int]], coinc_scale: int) -> Disagreements | None:
    """Ratio alpha from the coincidences: every pair of values has its own distance (k is small)."""
    dist = d.ratio_matrix()
    k = len(dist)
    obs = sum(coinc[i][j] * dist[i][j] for i in range(k) for j in range(k) if coinc[i][j] and dist[i][j])
    nl = [int(v) for v in n_c.tolist()]
    exp = sum(nl[i] * nl[j] * dist[i][j] for i in range(k) for j in range(k) if nl[i] and nl[j] and dist[i][j])
    if exp == 0:
        return None
    d_o = Fraction(obs) / (coinc_scale * n)
    d_e = Fraction(exp) / (n * (n - 1))
    mean_sq = sum(_as_float(coinc[i][j]) * float(dist[i][j]) ** 2 for i in range(k) for j in range(k)) \
        / _as_float(coinc_scale) / n
    return d_o, d_e, (_as_float(d_o), mean_sq)


def _expected(n: int, n_c: np.ndarray, x_all: np.ndarray | None = None) -> int:
    """sum_ck n_c n_k d2_ck x n (n - 1) / ... : the expected disagreement's numerator (x None: nominal)."""
    nco = n_c.astype(object)
    if x_all is None:
        return n * n - exact_sum(nco * n_c)
    xo = x_all.astype(object)
    t1 = int((nco * xo).sum()) if len(n_c) else 0
    t2 = int((nco * xo * xo).sum()) if len(n_c) else 0
    return 2 * n * t2 - 2 * t1 * t1


class _Histograms:
    """The kernel over unit histograms: (code, count) entries by row, rows starting at ``starts``,
    each row held by ``weight`` units (None: one unit each, as the numpy engine's own rows)."""

    def __init__(self, code: np.ndarray, cnt: np.ndarray, starts: np.ndarray, weight: np.ndarray | None) -> None:
        self.code, self.cnt, self.starts, self.weight = code, cnt, starts, weight

    @cached_property
    def m(self) -> np.ndarray:
        """Each row's ratings."""
        return np.add.reduceat(self.cnt, self.starts) if len(self.cnt) else np.zeros(0, dtype=np.int64)

    @cached_property
    def different(self) -> np.ndarray:
        """Each row's ordered pairs of different values, times its units: m^2 - sum_c n_c^2."""
        return self._weighted(self.m * self.m - self._sumsq())

    def _weighted(self, per_row: np.ndarray) -> np.ndarray:
        if self.weight is None:
            return per_row
        if per_row.dtype != object and int(np.abs(per_row).max(initial=0)) * int(self.weight.max(initial=0)) >= 2**62:
            per_row = per_row.astype(object)
        return per_row * self.weight

    def pairable_totals(self, k: int) -> np.ndarray:
        w = self.cnt if self.weight is None else self.cnt * np.repeat(self.weight, np.diff(np.r_[self.starts, len(self.cnt)]))
        return np.bincount(self.code, weights=w, minlength=k).astype(np.int64) if k else np.zeros(0, dtype=np.int64)

    def _sumsq(self) -> np.ndarray:
        return np.add.reduceat(self.cnt * self.cnt, self.starts) if len(self.cnt) else np.zeros(0, dtype=np.int64)

    def different_pairs(self) -> int:
        """Ordered pairs of different values within units (the seed's D)."""
        return exact_sum(self.different)

    def nominal(self, n: int, n_c: np.ndarray) -> Disagreements | None:
        return _nominal(self.different, self.m, n, n_c)

    def distances(self, n: int, n_c: np.ndarray, x_all: np.ndarray, d_scale: int) -> Disagreements | None:
        x = x_all[self.code]
        obs_num, obs_den = _sum_by_m(self._weighted(_power_sums(x, self.cnt, self.starts, self.m)), self.m)
        exp = _expected(n, n_c, x_all)
        if exp == 0:
            return None
        d_o = Fraction(obs_num, obs_den * n * d_scale)
        with np.errstate(over="ignore", invalid="ignore"):
            q4 = _fourth_moment(x, self.cnt, self.starts, self.m)
            if self.weight is not None:
                q4 = q4 * self.weight
            mean_sq = float(np.sum(q4 / (self.m - 1))) / n / _as_float(d_scale) ** 2 if d_scale < 10**150 else math.inf
        return d_o, Fraction(exp, n * (n - 1) * d_scale), (_as_float(d_o), mean_sq)

    def coincidence(self, k: int) -> tuple[list[list[int]], int]:
        return _coincidence(self.code, self.cnt, self.starts, self.m, self.weight, k)


def _nominal(different: np.ndarray, m: np.ndarray, n: int, n_c: np.ndarray) -> Disagreements | None:
    """Nominal alpha's disagreements from each unit's ordered pairs of different values and size."""
    return _nominal_of(_sums_by_m(different, m), n, n_c)


def _nominal_of(different_by_m: dict[int, int], n: int, n_c: np.ndarray) -> Disagreements | None:
    """Nominal alpha's disagreements from the ordered pairs of different values within units, per
    unit size m."""
    obs_num, obs_den = _over_m(different_by_m)
    exp = _expected(n, n_c)
    if exp == 0:
        return None
    d_o = Fraction(obs_num, obs_den * n)
    return d_o, Fraction(exp, n * (n - 1)), (_as_float(d_o), _as_float(d_o))


class _Matrix:
    """The kernel over the numpy engine's values x units count matrix (a unit a column): sizes,
    pairs and totals a value at a time; the other levels read the same units as entries
    (:class:`_Histograms`, made when first needed)."""

    def __init__(self, patterns: UnitPatterns) -> None:
        self.patterns = patterns
        self.sizes, self.squares, self.totals = patterns.matrix_sums()

    @property
    def matrix(self) -> np.ndarray:
        held = self.patterns.matrix()
        assert held is not None  # this kernel is for counts held as a matrix (_kernel)
        return held

    @cached_property
    def m(self) -> np.ndarray:
        return self.sizes if self.sizes is not None else unit_sums(self.matrix)

    @cached_property
    def different_by_m(self) -> dict[int, int]:
        """Per unit size m, the ordered pairs of different values within its units: sum of m^2 - sum_c
        n_c^2, from the units' sums of squared counts added by size (one sum where every unit has the
        same size), never an array of each unit's pairs."""
        m = self.m
        squares = self.squares if self.squares is not None else unit_sums(self.matrix, square=True)
        if not len(m):
            return {}
        lo, hi = int(m.min()), int(m.max())
        if lo == hi:  # the squares add up to at most m^2 per unit: exact in int64 below 2**63
            return {lo: lo * lo * len(m) - (int(squares.sum()) if lo * lo * len(m) < 2**63 else exact_sum(squares))}
        if int(squares.max()) >= _FLOAT_EXACT // len(squares):  # beyond float64's exact sums: per unit
            return _sums_by_m(m * m - squares, m)
        units, added = np.bincount(m), np.bincount(m, weights=squares)
        return {int(s): int(s) * int(s) * int(units[s]) - int(added[s]) for s in np.flatnonzero(units)}

    @cached_property
    def entries(self) -> _Histograms:
        return _Histograms(*self.patterns.rows())

    def pairable_totals(self, k: int) -> np.ndarray:
        return self.totals if self.totals is not None else self.matrix.sum(axis=1)

    def different_pairs(self) -> int:
        return sum(self.different_by_m.values())

    def nominal(self, n: int, n_c: np.ndarray) -> Disagreements | None:
        return _nominal_of(self.different_by_m, n, n_c)

    def distances(self, n: int, n_c: np.ndarray, x_all: np.ndarray, d_scale: int) -> Disagreements | None:
        return self.entries.distances(n, n_c, x_all, d_scale)

    def coincidence(self, k: int) -> tuple[list[list[int]], int]:
        return self.entries.coincidence(k)


class _Pairs:
    """The kernel over pair counts: m -> (c, k, count) of ordered pairs within units of size m."""

    def __init__(self, pairs: Mapping[int, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        self.pairs = {m: pairs[m] for m in sorted(x for x in pairs if x >= 2)}
        self.scale = 1
        for m in self.pairs:
            self.scale = math.lcm(self.scale, m - 1)

    def pairable_totals(self, k: int) -> np.ndarray:
        """n_c from sum_k P_m[c, k] = (m - 1) x (ratings of c in units of size m)."""
        n_c = [0] * k
        for m, (ci, _, w) in self.pairs.items():
            rows = [0] * k
            for i, x in zip(ci.tolist(), np.asarray(w).tolist()):
                rows[i] += int(x)
            n_c = [t + r // (m - 1) for t, r in zip(n_c, rows)]
        return np.array(n_c, dtype=np.int64)

    def different_pairs(self) -> int:
        return sum(exact_sum(np.asarray(w)[ci != ki]) for ci, ki, w in self.pairs.values())

    def nominal(self, n: int, n_c: np.ndarray) -> Disagreements | None:
        total = sum(exact_sum(np.asarray(w)[ci != ki]) * (self.scale // (m - 1))
                    for m, (ci, ki, w) in self.pairs.items())
        exp = _expected(n, n_c)
        if exp == 0:
            return None
        d_o = Fraction(total, self.scale * n)
        return d_o, Fraction(exp, n * (n - 1)), (_as_float(d_o), _as_float(d_o))

    def distances(self, n: int, n_c: np.ndarray, x_all: np.ndarray, d_scale: int) -> Disagreements | None:
        xa = np.array([int(v) for v in np.asarray(x_all).tolist()], dtype=object)
        total, fourth = 0, 0.0
        for m, (ci, ki, w) in self.pairs.items():
            d = xa[ci] - xa[ki]
            total += int((np.asarray(w, dtype=object) * d * d).sum()) * (self.scale // (m - 1))
            fourth += float(np.sum(np.asarray(w, dtype=np.float64) * np.asarray(d, dtype=np.float64) ** 4)) / (m - 1)
        exp = _expected(n, n_c, x_all)
        if exp == 0:
            return None
        d_o = Fraction(total, self.scale * n * d_scale)
        return d_o, Fraction(exp, n * (n - 1) * d_scale), (_as_float(d_o), fourth / n / float(d_scale) ** 2)

    def coincidence(self, k: int) -> tuple[list[list[int]], int]:
        big = [[0] * k for _ in range(k)]
        for m, (ci, ki, w) in self.pairs.items():
            f = self.scale // (m - 1)
            for i, j, x in zip(ci.tolist(), ki.tolist(), np.asarray(w).tolist()):
                big[i][j] += f * int(x)
        return big, self.scale


# --- the kernels' arithmetic ---------------------------------------------------------------------


def _as_float(x: Fraction | int) -> float:
    """A float, or inf when the exact value is beyond float64 (1e300-sized values)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _sum_by_m(q: np.ndarray, m: np.ndarray) -> tuple[int, int]:
    """sum_u q_u / (m_u - 1) as (numerator, denominator) of the exact total."""
    return _over_m(_sums_by_m(q, m))


def _sums_by_m(q: np.ndarray, m: np.ndarray) -> dict[int, int]:
    """sum_u q_u over the units of each size m, exactly."""
    if q.dtype != object and len(q) and q.min() >= 0 and int(q.max()) < _FLOAT_EXACT // len(q):
        # every partial sum an integer below 2**53: float64 adds them exactly, in one pass
        per_m = np.bincount(m, weights=q)
        sums = {int(mm): int(per_m[mm]) for mm in np.flatnonzero(np.bincount(m))}
    else:
        order = np.argsort(m, kind="stable")
        ms, qs = m[order], q[order]
        bounds = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1], True])
        sums = {int(ms[b0]): exact_sum(qs[b0:b1]) for b0, b1 in zip(bounds[:-1], bounds[1:])}
    return sums


def _over_m(sums: dict[int, int]) -> tuple[int, int]:
    """sum over sizes m of sums[m] / (m - 1), as (numerator, denominator) over lcm(m - 1)."""
    scale = 1
    for mm in sums:
        scale = math.lcm(scale, mm - 1)
    return sum(s * (scale // (mm - 1)) for mm, s in sums.items()), scale


def _power_sums(x: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray) -> np.ndarray:
    """Per row, the sum over ordered pairs of values of (x_i - x_j)^2 = 2 m S2 - 2 S1^2, exactly.

    Values are shifted by the row's smallest one first (differences do not change), which keeps
    int64 exact on most data; otherwise Python ints.
    """
    shift = np.repeat(x[starts], np.diff(np.r_[starts, len(x)]))
    xs = x - shift
    big = int(np.abs(xs).max(initial=0)) if xs.dtype != object else max((abs(v) for v in xs.tolist()), default=0)
    mmax = int(m_u.max(initial=0))
    if xs.dtype != object and 2 * mmax * mmax * big * big < 2**62:
        s1 = np.add.reduceat(cnt * xs, starts) if len(xs) else np.zeros(0, dtype=np.int64)
        s2 = np.add.reduceat(cnt * xs * xs, starts) if len(xs) else np.zeros(0, dtype=np.int64)
        return 2 * m_u * s2 - 2 * s1 * s1
    xo = xs.astype(object)
    co = cnt.astype(object)
    s1 = np.add.reduceat(co * xo, starts)
    s2 = np.add.reduceat(co * xo * xo, starts)
    return 2 * m_u.astype(object) * s2 - 2 * s1 * s1


def _fourth_moment(x: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray) -> np.ndarray:
    """Per row, the sum over ordered pairs of (x_i - x_j)^4, in float64 about the row's mean
    (inf where the values are beyond float64: the bootstrap then says it cannot resample)."""
    lens = np.diff(np.r_[starts, len(x)])
    w = cnt.astype(np.float64)
    try:
        xf = x.astype(np.float64)
    except OverflowError:
        return np.full(len(starts), np.inf)
    mean = np.add.reduceat(w * xf, starts) / m_u
    d = xf - np.repeat(mean, lens)
    s2 = np.add.reduceat(w * d * d, starts)
    s4 = np.add.reduceat(w * d**4, starts)
    return 2 * m_u * s4 + 6 * s2 * s2


def _coincidence(code: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray, weight: np.ndarray | None,
                 k: int) -> tuple[list[list[int]], int]:
    """The coincidence matrix over a common denominator L = lcm(m - 1): o_ck = O_ck / L.

    Per block of rows a dense row x value count matrix C (k is small here), and per m the product
    C^T W C - diag (W: units per row), with BLAS exact in float64 while every entry stays below
    2**53.
    """
    per_m: dict[int, np.ndarray] = {}
    n_rows = len(starts)
    ends = np.r_[starts[1:], len(code)]
    block = max(1, _BLOCK_CELLS // max(1, k))
    for b0 in range(0, n_rows, block):
        b1 = min(n_rows, b0 + block)
        lo, hi = int(starts[b0]), int(ends[b1 - 1])
        local = np.repeat(np.arange(b1 - b0), ends[b0:b1] - starts[b0:b1])
        counts = np.zeros((b1 - b0, k), dtype=np.int64)
        counts[local, code[lo:hi]] = cnt[lo:hi]
        mb = m_u[b0:b1]
        wb = None if weight is None else weight[b0:b1]
        for m in np.unique(mb):
            m = int(m)
            _add(per_m, m, _pair_products(counts[mb == m], m, None if wb is None else wb[mb == m], k))
    scale = 1
    for m in per_m:
        scale = math.lcm(scale, m - 1)
    big = [[0] * k for _ in range(k)]
    for m, s in per_m.items():
        w = scale // (m - 1)
        rows_ = s.tolist()
        for i in range(k):
            bi, ri = big[i], rows_[i]
            for j in range(k):
                bi[j] += w * ri[j]
    return big, scale


def _add(per_m: dict[int, np.ndarray], m: int, prod: np.ndarray) -> None:
    per_m[m] = per_m[m] + prod if m in per_m else prod


def _pair_products(block_counts: np.ndarray, m: int, units: np.ndarray | None, k: int) -> np.ndarray:
    """sum over rows of units x (c c^T - diag c): ordered pairs of values within units of size m."""
    rows = block_counts.shape[0]
    most = 1 if units is None else int(units.max(initial=1))
    if rows * m * m * most < _FLOAT_EXACT:
        f = block_counts.astype(np.float64)
        fw = f if units is None else f * units[:, None]
        prod = (fw.T @ f).astype(np.int64).astype(object)
        diag = (block_counts if units is None else block_counts * units[:, None]).sum(axis=0).astype(object)
    else:
        o = block_counts.astype(object)
        ow = o if units is None else o * units.astype(object)[:, None]
        prod = ow.T.dot(o)
        diag = ow.sum(axis=0)
    prod[np.diag_indices(k)] -= diag
    return prod


def alpha_without_each_rater(raters: Sequence[str], counts_without: Callable[[str], PanelCounts], level: Level,
                             max_raters: int) -> dict[str, Fraction | None]:
    """Alpha with each rater left out, from an engine's ``counts_without(rater)`` (the counts of the
    other raters' ratings): the one leave-one-rater-out every engine uses. None above ``max_raters``
    raters (empty), and None for each rater when fewer than two raters would remain."""
    if len(raters) > max_raters:
        return {}
    return {r: alpha(counts_without(r), level).value if len(raters) >= 3 else None for r in raters}
