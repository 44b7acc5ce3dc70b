"""Mergeable sufficient statistics of a panel dimension: what every engine returns.

Alpha at every level, the seed's integer alpha, the spread's detector rates and alpha's interval
(the units bootstrap; KALPHA's pairs bootstrap) need only these integers, never the ratings
themselves:

* per unit size m (ratings in a unit), the number of units of that size and the **pair counts**
  ``P_m[c, k] = sum over units of size m of n_uc * n_uk - [c == k] * n_uc`` (ordered pairs of
  ratings within a unit; sparse: only pairs that occur);
* every rating's category total (singleton units included: the seed's marginals count them);
* per rater, its ratings per category (detector rates for any positive category);
* the **unit patterns**: each pairable unit's histogram of categories (which categories, how many
  ratings of each) and how many units have it (:class:`UnitPatterns`), what the units bootstrap
  resamples (:func:`agreebound.panel.intervals.bootstrap_alpha_patterns`: the interval in memory is
  drawn from the same patterns, so every engine gives the same interval). At most
  ``MAX_PATTERNS`` distinct patterns are kept; beyond, the counts carry none (``too_many_patterns``)
  and the interval falls back to the pairs bootstrap, which says so.

The coincidence matrix is ``o_ck = sum_m P_m[c, k] / (m - 1)``. Counts of disjoint sets of units
**merge** by adding (:func:`merge`: associative and commutative, categories united by value), so a
file split into parts, read by any engine (numpy here; DuckDB or Spark elsewhere), gives the same
counts, and alpha (:func:`agreebound.panel.alpha.alpha`, the one implementation) gives the same exact
alpha as on the whole. The numpy engine's counts keep each unit's histogram as it is
(:meth:`UnitPatterns.of_units`), which alpha reads in one pass, as it read the ratings before.
"""

from __future__ import annotations

import math
from functools import cached_property, partial
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence, cast

import numpy as np
import numpy.typing as npt

from agreebound.panel.seed import dense_fits, matrix_sums, per_unit_counts, per_unit_matrix
from agreebound.panel.categories import Categories, Coded, Level, Number, Value

if TYPE_CHECKING:
    from agreebound.panel.ratings import RatingPanel


#: Distinct unit patterns the counts keep for the units bootstrap; beyond, none are kept.
MAX_PATTERNS = 1_000_000


class UnitPatterns:
    """The multiset of pairable units' histograms: row i is a unit pattern, categories ``codes[i]``
    (ascending, padded with -1) rated ``counts[i]`` times each (padded with 0), held by ``units[i]``
    units. Canonical (:func:`unit_patterns`): rows distinct and in one order, so two sources of the
    same units give equal arrays. Mergeable by adding units of equal rows.

    The numpy engine holds one histogram per unit already, as entries (:meth:`of_units`) or as the
    columns of a values x units count matrix (:meth:`of_matrix`); its canonical form is made when first
    read (the units bootstrap, comparisons), while alpha reads the rows as held (:meth:`rows`,
    :meth:`matrix`): measuring alpha in memory never pays for sorting the units' histograms."""

    def __init__(self, codes: np.ndarray, counts: np.ndarray, units: np.ndarray) -> None:
        self._canonical: tuple[np.ndarray, np.ndarray, np.ndarray] | None = (codes, counts, units)
        self._per_unit: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._matrix: np.ndarray | None = None
        self._keep: np.ndarray | None = None
        self._sums: tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None] = (None, None, None)

    @classmethod
    def of_units(cls, code: np.ndarray, cnt: np.ndarray, starts: np.ndarray) -> "UnitPatterns":
        """One row per pairable unit: its (code, count) entries by code, rows starting at ``starts``."""
        p = cls.__new__(cls)
        p._canonical, p._per_unit, p._matrix, p._keep, p._sums = None, (code, cnt, starts), None, None, (None, None, None)
        return p

    @classmethod
    def of_matrix(cls, matrix: np.ndarray, sizes: np.ndarray | None = None, squares: np.ndarray | None = None,
                  totals: np.ndarray | None = None, keep: np.ndarray | None = None) -> "UnitPatterns":
        """One row per pairable unit: ``matrix[c, u]`` ratings of value c in unit u (int64, values x
        units, every unit two or more), or the units ``keep`` marks of it (the others are taken out
        when the matrix is first read: alpha from the sums never copies it); ``sizes``, ``squares``
        and ``totals``: the pairable units' ratings and sums of squared counts, and each value's
        ratings in them, when the engine has them already (alpha does not sum the matrix again)."""
        p = cls.__new__(cls)
        p._canonical, p._per_unit, p._matrix, p._keep, p._sums = None, None, matrix, keep, (sizes, squares, totals)
        return p

    def held_as_matrix(self) -> bool:
        """Whether the rows are held as a count matrix (:meth:`of_matrix`)."""
        return self._matrix is not None

    def matrix(self) -> np.ndarray | None:
        """The values x units count matrix the rows are held as, if they are (:meth:`of_matrix`)."""
        if self._keep is not None and self._matrix is not None:
            self._matrix, self._keep = np.compress(self._keep, self._matrix, axis=1), None
        return self._matrix

    def matrix_sums(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(each unit's ratings, each unit's sum of squared counts, each value's ratings) of
        :meth:`matrix`, where the engine gave them (:func:`agreebound.panel.seed.matrix_sums`)."""
        return self._sums

    def _units(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        if self._per_unit is None and (matrix := self.matrix()) is not None:
            unit, code = np.nonzero(matrix.T)  # by unit, then value
            cnt = matrix[code, unit]
            small = np.int32 if matrix.shape[0] < 2**31 else np.int64
            starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]]) if len(unit) else np.zeros(0, dtype=np.int64)
            self._per_unit = (code.astype(small), cnt, starts)
        return self._per_unit

    def _form(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._canonical is None:
            held = self._units()
            assert held is not None  # rows not canonical yet: held per unit, as entries or as a matrix
            code, cnt, starts = held
            owner = np.repeat(np.arange(len(starts), dtype=np.int64), np.diff(np.r_[starts, len(code)]))
            self._canonical = unit_patterns(owner, code, cnt, np.ones(len(starts), dtype=np.int64))._form()
        return self._canonical

    @property
    def codes(self) -> np.ndarray:
        return self._form()[0]

    @property
    def counts(self) -> np.ndarray:
        return self._form()[1]

    @property
    def units(self) -> np.ndarray:
        return self._form()[2]

    def __len__(self) -> int:
        return len(self.units)

    @property
    def n_units(self) -> int:
        if self._sums[0] is not None:
            return len(self._sums[0])
        if (matrix := self.matrix()) is not None:
            return matrix.shape[1]
        if self._per_unit is not None:
            return len(self._per_unit[2])
        return int(self.units.sum())

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, code, count) of every present entry of the canonical rows, by row then code."""
        row, col = np.nonzero(self.codes >= 0)
        return row.astype(np.int64), self.codes[row, col], self.counts[row, col]

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(code, count, starts, units per row) of the rows as held: one per unit (units None) when
        the numpy engine gave them, else the canonical ones. Alpha's histogram kernel reads these."""
        if (held := self._units()) is not None:
            return (*held, None)
        row, code, cnt = self.entries()
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]]) if len(row) else np.zeros(0, dtype=np.int64)
        return code, cnt, starts, self.units

    def equals(self, other: "UnitPatterns") -> bool:
        return all(np.array_equal(a, b) for a, b in ((self.codes, other.codes), (self.counts, other.counts),
                                                     (self.units, other.units)))


def unit_patterns(row: npt.ArrayLike, code: npt.ArrayLike, cnt: npt.ArrayLike, units: npt.ArrayLike) -> UnitPatterns:
    """Canonical patterns from entries (row, code, count): row r (of ``len(units)``) is held by
    ``units[r]`` units; a code given twice in a row is added up; equal rows are merged (units added)
    and rows are ordered by their codes, then their counts."""
    row, code, cnt = (np.asarray(a) for a in (row, code, cnt))
    units = np.asarray(units, dtype=np.int64)
    if len(row) > 1:
        same = row[1:] == row[:-1]
        if not np.all((row[1:] > row[:-1]) | (same & (code[1:] > code[:-1]))):  # not sorted and distinct
            order = np.lexsort((code, row))
            row, code, cnt = row[order], code[order], cnt[order]
            first = np.flatnonzero(np.r_[True, (row[1:] != row[:-1]) | (code[1:] != code[:-1])])
            cnt = np.add.reduceat(cnt.astype(np.int64), first)
            row, code = row[first], code[first]
    keep = cnt > 0
    if not keep.all():
        row, code, cnt = row[keep], code[keep], cnt[keep]
    lens = np.bincount(row, minlength=len(units)) if len(row) else np.zeros(len(units), dtype=np.int64)
    present = np.flatnonzero(lens)  # a row with no entry holds no pattern
    starts = np.cumsum(lens[present]) - lens[present]
    held = units[present]
    # equal rows first, by one integer per row where the histogram fits in one (base max count + 1)
    base = int(cnt.max()) + 1 if len(cnt) else 1
    digits = int(code.max()) + 1 if len(code) else 0
    if len(present) > 1 and digits * math.log2(base) < 62:
        power = base ** np.arange(digits, dtype=np.int64)
        key = np.add.reduceat(cnt.astype(np.int64) * power[code], starts)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        held = np.bincount(inverse.ravel(), weights=held, minlength=len(first)).astype(np.int64)
        lens_p = lens[present][first]
        take = np.repeat(starts[first], lens_p) + _ranges(lens_p)
        code, cnt, lens_p = code[take], cnt[take], lens_p
    else:
        lens_p = lens[present]
    # then the rows as padded (codes, counts), sorted: the canonical order
    n_rows = len(lens_p)
    width = int(lens_p.max()) if n_rows else 0
    r = np.repeat(np.arange(n_rows), lens_p)
    pos = _ranges(lens_p)
    codes = np.full((n_rows, width), -1, dtype=np.int64)
    counts = np.zeros((n_rows, width), dtype=np.int64)
    codes[r, pos], counts[r, pos] = code, cnt
    if n_rows > 1:
        keys = [counts[:, j] for j in range(width - 1, -1, -1)] + [codes[:, j] for j in range(width - 1, -1, -1)]
        order = np.lexsort(keys)
        codes, counts, held = codes[order], counts[order], held[order]
        new = np.r_[True, (codes[1:] != codes[:-1]).any(axis=1) | (counts[1:] != counts[:-1]).any(axis=1)]
        if not new.all():
            first = np.flatnonzero(new)
            codes, counts, held = codes[first], counts[first], np.add.reduceat(held, first)
    return UnitPatterns(codes, counts, held)


def _bounded(p: UnitPatterns | None) -> tuple[UnitPatterns | None, bool]:
    """(patterns, too many): none kept beyond MAX_PATTERNS."""
    if p is not None and len(p) > MAX_PATTERNS:
        return None, True
    return p, False


def _recode_patterns(p: UnitPatterns, old_to_new: np.ndarray) -> UnitPatterns:
    row, code, cnt = p.entries()
    return unit_patterns(row, old_to_new[code], cnt, p.units)


def merge_patterns(a: UnitPatterns, b: UnitPatterns) -> UnitPatterns:
    """The patterns of two disjoint sets of units (over the same category codes)."""
    ra, ca, na = a.entries()
    rb, cb, nb = b.entries()
    return unit_patterns(np.r_[ra, rb + len(a)], np.r_[ca, cb], np.r_[na, nb], np.r_[a.units, b.units])


class PanelCounts:
    """One dimension's sufficient statistics. ``categories``: the distinct values, sorted (exact
    numbers: ints and Fractions) or labels (str), with ``kind`` "number" or "label". ``pairs``:
    m -> (c index, k index, count) int64 arrays, sorted by (c, k), counts > 0.

    An out-of-core engine gives every statistic (:func:`from_rows`). The numpy engine
    (:func:`from_coded`) holds the ratings, so it gives the values as their :class:`Categories`
    (exact values made when first read: 500,000 distinct scores never become 500,000 Fractions),
    the units' histograms as they are (``patterns``), and the pair counts (``pairs`` None: from
    the histograms) and each rater's counts (``rater_counts`` a function of no argument) are
    counted when first read: what alpha in memory does not need, it does not pay for."""

    def __init__(self, dimension: str, kind: str, categories: Sequence[Value] | Categories,
                 units_by_m: Mapping[int, int],
                 pairs: Mapping[int, tuple[np.ndarray, np.ndarray, np.ndarray]] | None,
                 category_totals: Sequence[int] | np.ndarray,
                 rater_counts: Mapping[str, Mapping[int, int]] | Callable[[], Mapping[str, Mapping[int, int]]],
                 patterns: UnitPatterns | None = None, too_many_patterns: bool = False, *,
                 raters: Sequence[str] | None = None) -> None:
        if pairs is None and patterns is None:
            raise ValueError("counts need their pair counts or their units' histograms")
        self.dimension, self.kind, self.units_by_m = dimension, kind, units_by_m
        #: The pairable units' patterns (codes into ``categories``), or None: not counted by the
        #: source, or more than MAX_PATTERNS distinct ones (``too_many_patterns``).
        self.patterns, self.too_many_patterns = patterns, too_many_patterns
        self._categories, self._pairs, self._totals, self._rater_counts = categories, pairs, category_totals, rater_counts
        self._raters = None if raters is None else tuple(sorted(raters))

    @cached_property
    def category_set(self) -> Categories:
        """The values as :class:`Categories` (what alpha reads)."""
        if isinstance(self._categories, Categories):
            return self._categories
        if self.kind == "number":
            return Categories(exact=cast("Sequence[Number]", self._categories))
        return Categories(labels=self._categories)

    @cached_property
    def categories(self) -> tuple[Value, ...]:
        if not isinstance(self._categories, Categories):
            return tuple(self._categories)
        values = self._categories.values
        return tuple(values) if self.kind == "number" else tuple(str(v) for v in values)

    @cached_property
    def pairs(self) -> Mapping[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        if self._pairs is not None:
            return self._pairs
        assert self.patterns is not None  # counts without pairs hold their units' histograms (__init__)
        return pairs_of_rows(*self.patterns.rows(), len(self.category_set))

    @cached_property
    def category_totals(self) -> tuple[int, ...]:
        """Every rating's category (singleton units included: the seed's marginals count them)."""
        return tuple(int(t) for t in np.asarray(self._totals).tolist())

    @cached_property
    def rater_counts(self) -> Mapping[str, Mapping[int, int]]:
        return self._rater_counts() if callable(self._rater_counts) else self._rater_counts

    def category_totals_array(self) -> np.ndarray:
        """``category_totals`` as an int64 array (without a Python int per category when the
        numpy engine counted them)."""
        return np.asarray(self._totals if isinstance(self._totals, np.ndarray) else self.category_totals,
                          dtype=np.int64)

    @property
    def n_units(self) -> int:
        return sum(self.units_by_m.values())

    @property
    def n_ratings(self) -> int:
        if isinstance(self._totals, np.ndarray):
            return int(self._totals.sum())
        return sum(self.category_totals)

    @property
    def raters(self) -> tuple[str, ...]:
        return self._raters if self._raters is not None else tuple(sorted(self.rater_counts))

    def __repr__(self) -> str:
        return (f"PanelCounts(dimension={self.dimension!r}, kind={self.kind!r}, categories={len(self.category_set)}, "
                f"units_by_m={dict(self.units_by_m)!r}, ratings={self.n_ratings})")

    def rates(self, positive: Value, raters: Iterable[str] | None = None) -> list[tuple[str, int, int]]:
        """(rater, ratings of ``positive``, ratings) for each rater (or the ones named)."""
        k = self.categories.index(positive) if positive in self.categories else None
        out = []
        for r in (self.raters if raters is None else raters):
            per = self.rater_counts.get(r, {})
            out.append((r, int(per.get(k, 0)) if k is not None else 0, int(sum(per.values()))))
        return out

    def equals(self, other: "PanelCounts") -> bool:
        """The same statistics (arrays compared by value)."""
        if (self.dimension, self.kind, self.categories, dict(self.units_by_m), self.category_totals) != \
                (other.dimension, other.kind, other.categories, dict(other.units_by_m), other.category_totals):
            return False
        if {r: dict(v) for r, v in self.rater_counts.items()} != {r: dict(v) for r, v in other.rater_counts.items()}:
            return False
        if set(self.pairs) != set(other.pairs):
            return False
        if self.too_many_patterns != other.too_many_patterns or (self.patterns is None) != (other.patterns is None):
            return False
        if self.patterns is not None and other.patterns is not None and not self.patterns.equals(other.patterns):
            return False
        return all(all(np.array_equal(a, b) for a, b in zip(self.pairs[m], other.pairs[m])) for m in self.pairs)


# --- building --------------------------------------------------------------------------------


def from_panel(panel: RatingPanel, level: Level | None = None) -> PanelCounts:
    """One dimension's counts from its rating panel in memory (agreebound.panel.ratings.RatingPanel):
    its ratings as coded, or as ``level`` reads them."""
    coded = panel.coded if level is None else panel.ratings(level)
    return from_coded(coded, panel.raters, panel.dimension)


def from_coded(coded: Coded, raters: Sequence[str] | None = None, dimension: str = "all",
               kind: str | None = None) -> PanelCounts:
    """The counts of coded ratings (the numpy engine): one pass over the (unit, value) entries.
    ``raters``: their names, by default their column numbers ("0", "1", ...).
    The units' histograms are kept whatever their number (the ratings are in memory already), so
    the units bootstrap is always drawn in memory."""
    if raters is None:
        raters = [str(j) for j in range(coded.n_raters)]
    cats = coded.categories
    k = len(cats)
    kind = kind or ("number" if cats.numeric else "label")
    if (matrix := per_unit_matrix(coded)) is not None:
        m_u, squares, totals = matrix_sums(matrix)  # units without a rating too: m 0, not counted below
        lo, hi = (int(m_u.min()), int(m_u.max())) if len(m_u) else (0, 0)
        if lo >= 2:  # every unit pairable (as every complete panel): the matrix as it is, with its sums
            patterns = UnitPatterns.of_matrix(matrix, m_u, squares, totals)
        else:  # the few units of fewer than two ratings: their counts taken from the totals, not a copy made
            pairable = m_u >= 2
            short = np.flatnonzero(~pairable)
            patterns = UnitPatterns.of_matrix(matrix, m_u[pairable], squares[pairable],
                                              totals - matrix[:, short].sum(axis=1), pairable)
    else:
        m_u, totals, patterns = _entries_of(coded, k)
        lo, hi = -1, 0
    if lo == hi:  # one size: no count by size to make
        units_by_m = {lo: len(m_u)} if lo and len(m_u) else {}
    else:
        by_m = np.bincount(m_u) if len(m_u) else np.zeros(0, dtype=np.int64)
        units_by_m = {int(m): int(by_m[m]) for m in np.flatnonzero(by_m) if m}
    return PanelCounts(dimension, kind, cats, units_by_m, None, totals,
                       partial(rater_counts_of, coded, tuple(raters)), patterns, raters=raters)


def _entries_of(coded: Coded, k: int) -> tuple[np.ndarray, np.ndarray, UnitPatterns]:
    """Every rated unit's size, the category totals and the pairable units' histograms as sorted
    (unit, value, count) entries (:func:`per_unit_counts`: many units or values)."""
    _, code, cnt, starts = per_unit_counts(coded)
    m_u = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    totals = np.bincount(code, weights=cnt, minlength=k).astype(np.int64) if k else np.zeros(0, dtype=np.int64)
    pairable = m_u >= 2
    if not pairable.all():  # unpairable units hold no pattern
        lens = np.diff(np.r_[starts, len(cnt)])
        keep = np.repeat(pairable, lens)
        code, cnt = code[keep], cnt[keep]
        starts = np.r_[0, np.cumsum(lens[pairable])[:-1]].astype(np.int64) if pairable.any() \
            else np.zeros(0, dtype=np.int64)
    return m_u, totals, UnitPatterns.of_units(code, cnt, starts)


def rater_counts_of(coded: Coded, raters: Sequence[str]) -> dict[str, dict[int, int]]:
    """Each rater's ratings per category (raters with no rating too: rate 0/0)."""
    k = max(len(coded.categories), 1)
    per_rater: dict[str, dict[int, int]] = {r: {} for r in raters}
    key = coded.rater.astype(np.int64) * k + coded.code
    if dense_fits(len(raters) * k, len(key)):  # one bincount, as per_unit_counts: no sort
        by_key = np.bincount(key, minlength=len(raters) * k)
        keys = np.flatnonzero(by_key)
        counts = by_key[keys]
    else:
        keys, counts = np.unique(key, return_counts=True)
    for kk, nn in zip(keys.tolist(), counts.tolist()):
        r, cc = divmod(kk, k)
        per_rater[raters[r]][cc] = nn
    return per_rater


def pairs_of_rows(code: np.ndarray, cnt: np.ndarray, starts: np.ndarray, weight: np.ndarray | None,
                  k: int) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The pair counts of unit histograms (rows as :meth:`UnitPatterns.rows` gives them): within
    each row every ordered pair of its (value, count) entries, n_c * n_k (- n_c on the diagonal),
    times the units holding the row."""
    lens = np.diff(np.r_[starts, len(cnt)])
    m_row = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    held = np.ones(len(starts), dtype=np.int64) if weight is None else np.asarray(weight, dtype=np.int64)
    m_of_entry = np.repeat(m_row, lens)
    row_of_entry = np.repeat(np.arange(len(starts)), lens)
    pairs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for m in (int(x) for x in np.unique(m_row) if x >= 2):
        sel = np.flatnonzero(m_of_entry == m)
        u, c, n = row_of_entry[sel], code[sel].astype(np.int64), cnt[sel].astype(np.int64)
        # entries of one row are contiguous: pair them up by a self-join on the row index
        first = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
        size = np.diff(np.r_[first, len(u)])
        left = np.repeat(np.arange(len(u)), np.repeat(size, size))
        offs = np.repeat(first, size * size) + _ranges(np.repeat(size, size))
        w = n[left] * n[offs] - np.where(left == offs, n[left], 0)
        if weight is not None:
            units = held[u[left]]
            big = np.abs(w).max(initial=0) * units.max(initial=0) >= 2**62
            w = w.astype(object) * units.astype(object) if big else w * units
        pairs[m] = _reduce(c[left], c[offs], w, k)
    return pairs


def _ranges(lengths: np.ndarray) -> np.ndarray:
    """Concatenated 0..len-1 for each length."""
    if not len(lengths):
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    out = np.arange(ends[-1], dtype=np.int64)
    return out - np.repeat(ends - lengths, lengths)


def _reduce(ci: np.ndarray, ki: np.ndarray, w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum ``w`` by (c, k); keep positive sums, sorted by (c, k)."""
    key = ci.astype(np.int64) * max(k, 1) + ki
    keys, inv = np.unique(key, return_inverse=True)
    sums = np.bincount(inv, weights=w.astype(np.float64), minlength=len(keys))
    exact = sums < 2**53
    if not exact.all():  # beyond float64: add in Python ints
        acc = [0] * len(keys)
        for i, x in zip(inv.tolist(), w.tolist()):
            acc[i] += int(x)
        s = np.array(acc, dtype=object)
    else:
        s = sums.astype(np.int64)
    keep = s > 0
    keys, s = keys[keep], s[keep]
    return (keys // max(k, 1)).astype(np.int64), (keys % max(k, 1)).astype(np.int64), s


def from_rows(dimension: str, kind: str, categories: Sequence[Value], units_by_m: Mapping[int, int],
              pair_rows: Iterable[tuple[int, int, int, int]], totals: Sequence[int],
              rater_rows: Iterable[tuple[str, int | None, int]], patterns: UnitPatterns | None = None,
              too_many_patterns: bool = False) -> PanelCounts:
    """Counts from an engine's result rows: (m, c, k, count) pairs and (rater, c, count), category
    indices into ``categories`` (which need not be sorted or distinct by value: they are merged);
    ``patterns``: the pairable units' patterns over the same indices, when the engine counted them."""
    by_m: dict[int, list[tuple[int, int, int]]] = {}
    for m, c, k, n in pair_rows:
        by_m.setdefault(int(m), []).append((int(c), int(k), int(n)))
    kc = len(categories)
    pairs = {}
    for m, rows in by_m.items():
        arr = np.array(rows, dtype=object)
        pairs[m] = _reduce(arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), arr[:, 2], kc)
    raters: dict[str, dict[int, int]] = {}
    for r, code, n in rater_rows:  # code None (or n 0): a rater with no rating in this dimension
        per = raters.setdefault(str(r), {})
        if code is not None and int(n):
            per[int(code)] = per.get(int(code), 0) + int(n)
    patterns, too_many = (None, True) if too_many_patterns else _bounded(patterns)
    raw = PanelCounts(dimension, kind, tuple(categories), dict(units_by_m), pairs, tuple(int(t) for t in totals), raters,
                      patterns, too_many)
    return _recode(raw, _sorted_categories(kind, categories))


# --- merging ---------------------------------------------------------------------------------


def _sorted_categories(kind: str, values: Iterable[Value]) -> tuple[Value, ...]:
    distinct = set(values)
    return tuple(sorted(cast("set[Number]", distinct))) if kind == "number" else tuple(sorted(distinct, key=str))


def _recode(c: PanelCounts, categories: tuple[Value, ...]) -> PanelCounts:
    """The same counts over another (larger) category list."""
    where = {v: i for i, v in enumerate(categories)}
    old_to_new = np.array([where[v] for v in c.categories], dtype=np.int64) if c.categories else np.zeros(0, np.int64)
    k = len(categories)
    pairs = {m: _reduce(old_to_new[ci], old_to_new[ki], w, k) for m, (ci, ki, w) in c.pairs.items()}
    totals = [0] * k
    for i, t in enumerate(c.category_totals):
        totals[int(old_to_new[i])] += t
    raters = {}
    for r, per in c.rater_counts.items():
        new: dict[int, int] = {}
        for ci, n in per.items():
            new[int(old_to_new[ci])] = new.get(int(old_to_new[ci]), 0) + n
        raters[r] = new
    patterns = None if c.patterns is None else _recode_patterns(c.patterns, old_to_new)
    return PanelCounts(c.dimension, c.kind, categories, dict(c.units_by_m), pairs, tuple(totals), raters,
                       patterns, c.too_many_patterns)


def merge(a: PanelCounts, b: PanelCounts) -> PanelCounts:
    """The counts of two disjoint sets of units (the same dimension): associative, commutative."""
    if a.dimension != b.dimension:
        raise ValueError(f"cannot merge dimension {a.dimension!r} with {b.dimension!r}")
    kind = a.kind if b.categories == () else (b.kind if a.categories == () else a.kind)
    if a.kind != b.kind and a.categories and b.categories:
        raise ValueError(f"dimension {a.dimension!r}: one part holds {a.kind}s and another {b.kind}s")
    a, b = (a if a.kind == kind else _with_kind(a, kind)), (b if b.kind == kind else _with_kind(b, kind))
    cats = _sorted_categories(kind, a.categories + b.categories)
    ra, rb = _recode(a, cats), _recode(b, cats)
    k = len(cats)
    pairs = {}
    for m in sorted(set(ra.pairs) | set(rb.pairs)):
        parts = [p for p in (ra.pairs.get(m), rb.pairs.get(m)) if p is not None]
        ci = np.concatenate([p[0] for p in parts])
        ki = np.concatenate([p[1] for p in parts])
        w = np.concatenate([np.asarray(p[2], dtype=object) for p in parts])
        pairs[m] = _reduce(ci, ki, w, k)
    units = dict(ra.units_by_m)
    for m, n in rb.units_by_m.items():
        units[m] = units.get(m, 0) + n
    raters = {r: dict(v) for r, v in ra.rater_counts.items()}
    for r, per in rb.rater_counts.items():
        mine = raters.setdefault(r, {})
        for c, n in per.items():
            mine[c] = mine.get(c, 0) + n
    totals = tuple(x + y for x, y in zip(ra.category_totals, rb.category_totals))
    too_many = ra.too_many_patterns or rb.too_many_patterns
    patterns = None
    if not too_many and ra.patterns is not None and rb.patterns is not None:
        patterns, too_many = _bounded(merge_patterns(ra.patterns, rb.patterns))
    return PanelCounts(a.dimension, a.kind, cats, dict(sorted(units.items())), pairs, totals, raters,
                       patterns, too_many)


def _with_kind(c: PanelCounts, kind: str) -> PanelCounts:
    return PanelCounts(c.dimension, kind, c.categories, c.units_by_m, c.pairs, c.category_totals, c.rater_counts,
                       c.patterns, c.too_many_patterns)


def merge_all(parts: Iterable[PanelCounts]) -> PanelCounts:
    it = iter(parts)
    out = next(it)
    for p in it:
        out = merge(out, p)
    return out
