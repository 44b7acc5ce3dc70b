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
  resamples (:func:`agreebound.uncertainty.bootstrap_alpha_patterns`: the interval in memory is
  drawn from the same patterns, so every engine gives the same interval). At most
  ``MAX_PATTERNS`` distinct patterns are kept; beyond, the counts carry none (``too_many_patterns``)
  and the interval falls back to the pairs bootstrap, which says so.

The coincidence matrix is ``o_ck = sum_m P_m[c, k] / (m - 1)``. Counts of disjoint sets of units
**merge** by adding (:func:`merge`: associative and commutative, categories united by value), so a
file split into parts, read by any engine (numpy here; DuckDB or Spark elsewhere), gives the same
counts, and :func:`alpha` gives the same exact alpha as :func:`agreebound.panel.alpha_coded` on the
whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from agreebound.panel import (
    AB_PERMIL,
    AB_UNDEFINED,
    COINCIDENCE_MAX_CATEGORIES,
    RATIO_MAX_CATEGORIES,
    AlphaResult,
    Categories,
    Coded,
    _check_level,
    _exact_sum,
    per_unit_counts,
)


#: Distinct unit patterns the counts keep for the units bootstrap; beyond, none are kept.
MAX_PATTERNS = 1_000_000


@dataclass(frozen=True)
class UnitPatterns:
    """The multiset of pairable units' histograms: row i is a unit pattern, categories ``codes[i]``
    (ascending, padded with -1) rated ``counts[i]`` times each (padded with 0), held by ``units[i]``
    units. Canonical (:func:`unit_patterns`): rows distinct and in one order, so two sources of the
    same units give equal arrays. Mergeable by adding units of equal rows."""

    codes: np.ndarray
    counts: np.ndarray
    units: np.ndarray

    def __len__(self) -> int:
        return len(self.units)

    @property
    def n_units(self) -> int:
        return int(self.units.sum())

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, code, count) of every present entry, by row then code."""
        row, col = np.nonzero(self.codes >= 0)
        return row.astype(np.int64), self.codes[row, col], self.counts[row, col]

    def equals(self, other: "UnitPatterns") -> bool:
        return all(np.array_equal(a, b) for a, b in ((self.codes, other.codes), (self.counts, other.counts),
                                                     (self.units, other.units)))


def unit_patterns(row: np.ndarray, code: np.ndarray, cnt: np.ndarray, units: np.ndarray) -> UnitPatterns:
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


@dataclass(frozen=True)
class PanelCounts:
    """One dimension's sufficient statistics. ``categories``: the distinct values, sorted (exact
    numbers: ints and Fractions) or labels (str), with ``kind`` "number" or "label". ``pairs``:
    m -> (c index, k index, count) int64 arrays, sorted by (c, k), counts > 0."""

    dimension: str
    kind: str
    categories: tuple[Any, ...]
    units_by_m: Mapping[int, int]
    pairs: Mapping[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(repr=False)
    category_totals: tuple[int, ...]
    rater_counts: Mapping[str, Mapping[int, int]] = field(repr=False)
    #: The pairable units' patterns (codes into ``categories``), or None: not counted by the
    #: source, or more than MAX_PATTERNS distinct ones (``too_many_patterns``).
    patterns: UnitPatterns | None = field(default=None, repr=False)
    too_many_patterns: bool = False

    @property
    def n_units(self) -> int:
        return sum(self.units_by_m.values())

    @property
    def n_ratings(self) -> int:
        return sum(self.category_totals)

    @property
    def raters(self) -> tuple[str, ...]:
        return tuple(sorted(self.rater_counts))

    def rates(self, positive: Any, raters: Iterable[str] | None = None) -> list[tuple[str, int, int]]:
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
        if self.patterns is not None and not self.patterns.equals(other.patterns):  # type: ignore[arg-type]
            return False
        return all(all(np.array_equal(a, b) for a, b in zip(self.pairs[m], other.pairs[m])) for m in self.pairs)


# --- building --------------------------------------------------------------------------------


def from_coded(coded: Coded, raters: Sequence[str], dimension: str = "all", kind: str | None = None) -> PanelCounts:
    """The counts of coded ratings (the numpy engine): one pass over the (unit, value) entries."""
    cats = coded.categories
    k = len(cats)
    kind = kind or ("number" if cats.numeric else "label")
    values = tuple(cats.values) if kind == "number" else tuple(str(v) for v in cats.values)
    unit, code, cnt, starts = per_unit_counts(coded)
    m_u = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    ms, n_by_m = np.unique(m_u, return_counts=True)
    units_by_m = {int(m): int(n) for m, n in zip(ms, n_by_m)}
    lens = np.diff(np.r_[starts, len(cnt)])
    m_of_entry = np.repeat(m_u, lens)
    pairs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    # within each unit, every ordered pair of its (value, count) entries: n_c * n_k (- n_c on the diagonal)
    unit_of_entry = np.repeat(np.arange(len(starts)), lens)
    for m in (int(x) for x in ms if x >= 2):
        sel = np.flatnonzero(m_of_entry == m)
        if not len(sel):
            continue
        u, c, n = unit_of_entry[sel], code[sel].astype(np.int64), cnt[sel].astype(np.int64)
        # entries of one unit are contiguous: pair them up by a self-join on the unit index
        first = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
        size = np.diff(np.r_[first, len(u)])
        left = np.repeat(np.arange(len(u)), np.repeat(size, size))
        offs = np.repeat(first, size * size) + _ranges(np.repeat(size, size))
        ci, ki = c[left], c[offs]
        w = n[left] * n[offs] - np.where(left == offs, n[left], 0)
        pairs[m] = _reduce(ci, ki, w, k)
    totals = np.bincount(code, weights=cnt, minlength=k).astype(np.int64) if k else np.zeros(0, dtype=np.int64)
    per_rater: dict[str, dict[int, int]] = {}
    key = coded.rater.astype(np.int64) * max(k, 1) + coded.code
    keys, counts = np.unique(key, return_counts=True)
    for kk, nn in zip(keys.tolist(), counts.tolist()):
        r, cc = divmod(kk, max(k, 1))
        per_rater.setdefault(raters[r], {})[cc] = per_rater.get(raters[r], {}).get(cc, 0) + nn
    for r in raters:  # raters with no rating in this dimension still count (rate 0/0)
        per_rater.setdefault(r, {})
    pairable = np.repeat(m_u >= 2, lens)
    patterns, too_many = _bounded(unit_patterns(unit_of_entry[pairable], code[pairable], cnt[pairable],
                                                np.ones(len(starts), dtype=np.int64)))
    return PanelCounts(dimension, kind, values, units_by_m, pairs, tuple(int(x) for x in totals), per_rater,
                       patterns, too_many)


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


def from_rows(dimension: str, kind: str, categories: Sequence[Any], units_by_m: Mapping[int, int],
              pair_rows: Iterable[tuple[int, int, int, int]], totals: Sequence[int],
              rater_rows: Iterable[tuple[str, int, int]], patterns: UnitPatterns | None = None,
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
    for r, c, n in rater_rows:  # c None (or n 0): a rater with no rating in this dimension
        per = raters.setdefault(str(r), {})
        if c is not None and int(n):
            per[int(c)] = per.get(int(c), 0) + int(n)
    patterns, too_many = (None, True) if too_many_patterns else _bounded(patterns)
    raw = PanelCounts(dimension, kind, tuple(categories), dict(units_by_m), pairs, tuple(int(t) for t in totals), raters,
                      patterns, too_many)
    return _recode(raw, _sorted_categories(kind, categories))


# --- merging ---------------------------------------------------------------------------------


def _sorted_categories(kind: str, values: Iterable[Any]) -> tuple[Any, ...]:
    distinct = set(values)
    return tuple(sorted(distinct)) if kind == "number" else tuple(sorted(distinct, key=str))


def _recode(c: PanelCounts, categories: tuple[Any, ...]) -> PanelCounts:
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


# --- deciding from counts --------------------------------------------------------------------


def categories_of(c: PanelCounts) -> Categories:
    return Categories(exact=c.categories) if c.kind == "number" else Categories(labels=c.categories)


def alpha(c: PanelCounts, level: str = "nominal") -> AlphaResult:
    """Krippendorff's alpha from counts: the same exact result as ``alpha_coded`` on the ratings."""
    _check_level(level)
    cats = categories_of(c)
    k = len(cats)
    if level != "nominal":
        cats._need_numeric(level)
        if level == "ratio" and k > RATIO_MAX_CATEGORIES:
            raise ValueError(f"ratio alpha is computed exactly for at most {RATIO_MAX_CATEGORIES} distinct values; "
                             f"this panel has {k:,}. Use the interval level, or group the values")
    ms = sorted(m for m in c.pairs if m >= 2)
    scale = 1
    for m in ms:
        scale = math.lcm(scale, m - 1)
    n_c = pairable_totals(c)
    n = sum(n_c)
    units = sum(n_u for m, n_u in c.units_by_m.items() if m >= 2)
    pairs_m = sum(n_u * m * (m - 1) // 2 for m, n_u in c.units_by_m.items() if m >= 2)
    seed = _seed_from_counts(c)

    def coincidence() -> tuple[list[list[int]], int]:
        big = [[0] * k for _ in range(k)]
        for m in ms:
            ci, ki, w = c.pairs[m]
            f = scale // (m - 1)
            for i, j, x in zip(ci.tolist(), ki.tolist(), np.asarray(w).tolist()):
                big[i][j] += f * int(x)
        return big, scale

    source = coincidence if 0 < k <= COINCIDENCE_MAX_CATEGORIES and units else None

    def result(value: Fraction | None, d_o: Fraction | None, d_e: Fraction | None,
               moments: tuple[float, float] | None = None) -> AlphaResult:
        return AlphaResult(level, value, d_o, d_e, n, units, cats, seed, pairs_m, moments, source)

    if n < 2:
        return result(None, None, None)
    if level == "nominal":
        total = 0
        for m in ms:
            ci, ki, w = c.pairs[m]
            off = ci != ki
            total += _exact_sum(np.asarray(w)[off]) * (scale // (m - 1))
        exp = n * n - sum(x * x for x in n_c)
        if exp == 0:
            return result(None, None, None)
        d_o = Fraction(total, scale * n)
        d_e = Fraction(exp, n * (n - 1))
        return result(1 - d_o / d_e, d_o, d_e, (float(d_o), float(d_o)))
    if level in ("interval", "ordinal"):
        if level == "interval":
            x_all, xs = cats.scaled
            d_scale = xs * xs
            x = [int(v) for v in np.asarray(x_all).tolist()]
        else:
            before, x = 0, []
            for cnt in n_c:
                x.append(2 * before + cnt)
                before += cnt
            d_scale = 4
        total, fourth = 0, 0.0
        for m in ms:
            ci, ki, w = c.pairs[m]
            f = scale // (m - 1)
            xa = np.array(x, dtype=object)
            d = xa[ci] - xa[ki]
            total += int((np.asarray(w, dtype=object) * d * d).sum()) * f
            fourth += float(np.sum(np.asarray(w, dtype=np.float64) * np.asarray(d, dtype=np.float64) ** 4)) / (m - 1)
        t1 = sum(nc * xv for nc, xv in zip(n_c, x))
        t2 = sum(nc * xv * xv for nc, xv in zip(n_c, x))
        exp = 2 * n * t2 - 2 * t1 * t1
        if exp == 0:
            return result(None, None, None)
        d_o = Fraction(total, scale * n * d_scale)
        d_e = Fraction(exp, n * (n - 1) * d_scale)
        mean_sq = fourth / n / float(d_scale) ** 2
        return result(1 - d_o / d_e, d_o, d_e, (float(d_o), mean_sq))
    x_all, _ = cats.scaled
    xs_ = [int(v) for v in np.asarray(x_all).tolist()]
    if any(v < 0 for v in xs_):
        raise ValueError("ratio alpha needs non-negative values; got " + repr(cats.values[0]))
    assert source is not None
    coinc, coinc_scale = source()
    dist = [[Fraction((a - b) ** 2, (a + b) ** 2) if a + b else Fraction(0) for b in xs_] for a in xs_]
    obs = sum(coinc[i][j] * dist[i][j] for i in range(k) for j in range(k) if coinc[i][j] and dist[i][j])
    exp_f = sum(n_c[i] * n_c[j] * dist[i][j] for i in range(k) for j in range(k) if n_c[i] and n_c[j] and dist[i][j])
    if exp_f == 0:
        return result(None, None, None)
    d_o = Fraction(obs) / (coinc_scale * n)
    d_e = Fraction(exp_f) / (n * (n - 1))
    mean_sq = sum(float(coinc[i][j]) * float(dist[i][j]) ** 2 for i in range(k) for j in range(k)) / coinc_scale / n
    return result(1 - d_o / d_e, d_o, d_e, (float(d_o), mean_sq))


def pairable_totals(c: PanelCounts) -> list[int]:
    """n_c: each category's values in units of two or more ratings (the coincidence marginals),
    from sum_k P_m[c, k] = (m - 1) x (ratings of c in units of size m)."""
    k = len(c.categories)
    n_c = [0] * k
    for m in sorted(x for x in c.pairs if x >= 2):
        ci, _, w = c.pairs[m]
        rows = [0] * k
        for i, x in zip(ci.tolist(), np.asarray(w).tolist()):
            rows[i] += int(x)
        for i in range(k):
            n_c[i] += rows[i] // (m - 1)
    return n_c


def _seed_from_counts(c: PanelCounts) -> int:
    """The seed's ab_alpha_permil: every value counts in its marginals (singleton units too)."""
    k = len(c.categories)
    n_raters = len(c.rater_counts)
    if n_raters < 2 or c.n_units <= 0 or k <= 0:
        return AB_UNDEFINED
    dpairs = 0
    for m, (ci, ki, w) in c.pairs.items():
        dpairs += _exact_sum(np.asarray(w)[ci != ki])
    return _seed_formula(dpairs, [int(t) for t in c.category_totals], n_raters)


def _seed_formula(dpairs: int, totals: list[int], n_raters: int) -> int:
    """As panel._seed_permil_from, from the sums it takes of per-unit arrays."""
    n = sum(totals)
    if n < 2:
        return AB_UNDEFINED
    epairs = n * n - sum(t * t for t in totals)
    if epairs <= 0:
        return AB_UNDEFINED
    return AB_PERMIL - (AB_PERMIL * dpairs * (n - 1)) // ((n_raters - 1) * epairs)
