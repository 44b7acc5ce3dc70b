"""Panel reliability: exact Krippendorff alpha, detector spread and the enforcement verdict.

The contract is the seed ``nx_agreebound`` (rung W-AGB-1): a panel that cannot agree cannot
license enforcement, and fewer than two independent detectors is refused structurally, whatever
the scores.  Everything here is pure: no I/O, no streamlit, no plotly.

Alpha follows Krippendorff's definitions (coincidence matrix; only pairable values count):

    alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

computed with integers and ``fractions.Fraction`` only, and never through a k x k structure
unless k is small: the nominal, interval and ordinal sums reduce to per-unit counts and power
sums (ordinal distances are interval distances between mid-ranks), so time and memory grow with
the number of ratings, not with the square of the number of distinct values.

>>> r = krippendorff_alpha([[1, 1], [2, 2], [1, 2]])
>>> r.value, r.permil
(Fraction(4, 9), 444)
>>> ratio_permil([10, 39])
3900
>>> decide(1, Fraction(1), [5, 5]).verdict
<Verdict.REFUSE_SINGLE: 'REFUSE_SINGLE'>
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from numbers import Rational, Real
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from agreebound.limits import COINCIDENCE_MAX_CATEGORIES, RATIO_MAX_CATEGORIES
from agreebound.thresholds import ALPHA_FLOOR_DEFAULT, CITATIONS, PERMIL, RATIO_CAP_DEFAULT, PanelThresholds

__all__ = [
    "AB_UNDEFINED",
    "AB_RATIO_UNBOUNDED",
    "AB_ENFORCE",
    "AB_REPORT_ONLY",
    "AB_REFUSE_SINGLE",
    "AB_ALPHA_FLOOR_DEFAULT",
    "AB_RATIO_CAP_DEFAULT",
    "AB_PERMIL",
    "LEVELS",
    "AlphaResult",
    "Categories",
    "Coded",
    "PanelThresholds",
    "PanelDecision",
    "Reason",
    "Verdict",
    "alpha_coded",
    "decide",
    "encode",
    "krippendorff_alpha",
    "rate_span",
    "ratio_permil",
    "seed_alpha_permil",
    "seed_enforce",
]

# --- the seed's constants, named as the seed names them --------------------------------------
# Sentinels lie outside every legal permil range so no caller can mistake one for a score.
AB_UNDEFINED = -1_000_000  # alpha undefined: fewer than 2 raters, no units, or zero variation
AB_RATIO_UNBOUNDED = -1  # one detector fired and another never did: the ratio is infinite
AB_ENFORCE = 0
AB_REPORT_ONLY = 1
AB_REFUSE_SINGLE = 2
AB_PERMIL = PERMIL
AB_ALPHA_FLOOR_DEFAULT = ALPHA_FLOOR_DEFAULT
AB_RATIO_CAP_DEFAULT = RATIO_CAP_DEFAULT

#: Where each default comes from (the seed's own citations), stated once in agreebound.thresholds.
DEFAULT_CITATIONS = {k: CITATIONS[k] for k in ("alpha_floor_permil", "ratio_cap_permil")}

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Float64 arithmetic on integers is exact while every value stays below 2**53.
_FLOAT_EXACT = 2**53
# Units per counting block for the coincidence matrix: bounds the dense block to ~ 16M cells.
_BLOCK_CELLS = 16_000_000


class Verdict(str, enum.Enum):
    """The enforcement verdict; the value is the name the seed gives it."""

    ENFORCE = "ENFORCE"
    REPORT_ONLY = "REPORT_ONLY"
    REFUSE_SINGLE = "REFUSE_SINGLE"

    @property
    def seed_code(self) -> int:
        return {"ENFORCE": AB_ENFORCE, "REPORT_ONLY": AB_REPORT_ONLY, "REFUSE_SINGLE": AB_REFUSE_SINGLE}[
            self.value
        ]

    @classmethod
    def from_seed_code(cls, code: int) -> "Verdict":
        return {AB_ENFORCE: cls.ENFORCE, AB_REPORT_ONLY: cls.REPORT_ONLY, AB_REFUSE_SINGLE: cls.REFUSE_SINGLE}[code]


# --- categories: the sorted distinct values, exact on demand ----------------------------------


class Categories:
    """The distinct values of a panel, sorted; ``codes`` index into them.

    Numbers are held either as float64 (each float read as its shortest round-trip decimal, the
    number the file or the caller wrote: 0.1 is 1/10) or as exact Python numbers; labels as
    Python objects.  Exact values are made only when asked for, so a panel with 500,000 distinct
    scores never builds 500,000 Fractions.
    """

    def __init__(self, *, floats: np.ndarray | None = None, exact: Sequence[Any] | None = None,
                 labels: Sequence[Any] | None = None) -> None:
        given = [x is not None for x in (floats, exact, labels)]
        if sum(given) != 1:
            raise ValueError("Categories takes exactly one of floats, exact, labels")
        self._floats = None if floats is None else np.asarray(floats, dtype=np.float64)
        self._exact = None if exact is None else tuple(exact)
        self._labels = None if labels is None else tuple(labels)

    @property
    def numeric(self) -> bool:
        return self._labels is None

    def __len__(self) -> int:
        if self._floats is not None:
            return len(self._floats)
        return len(self._exact if self._exact is not None else self._labels)  # type: ignore[arg-type]

    @cached_property
    def values(self) -> tuple[Any, ...]:
        """Exact Python values: ints, Fractions (decimals) or the labels."""
        if self._labels is not None:
            return self._labels
        if self._exact is not None:
            return self._exact
        return tuple(_float_value(float(v)) for v in self._floats)  # type: ignore[union-attr]

    def first(self, n: int) -> tuple[Any, ...]:
        """The first ``n`` exact values, without converting the rest."""
        if self._floats is not None and "values" not in self.__dict__:
            return tuple(_float_value(float(v)) for v in self._floats[:n])
        return self.values[:n]

    @cached_property
    def floats(self) -> np.ndarray:
        """float64 approximations (figures, bootstraps); numeric categories only."""
        self._need_numeric("")
        if self._floats is not None:
            return self._floats
        return np.array([float(v) for v in self._exact], dtype=np.float64)  # type: ignore[union-attr]

    def _need_numeric(self, level: str) -> None:
        if self._labels is not None:
            first = next((v for v in self._labels if isinstance(v, bool) or not isinstance(v, Real)), None)
            raise ValueError(f"{level or 'this'} alpha needs numeric values; got {first!r}")

    @cached_property
    def scaled(self) -> tuple[np.ndarray, int]:
        """(X, S): every value exactly X / S, X integers (int64 when they fit, else Python ints)."""
        self._need_numeric("")
        if self._floats is not None:
            v = self._floats
            if not np.isfinite(v).all():
                raise ValueError(f"numeric alpha needs finite values; got {float(v[~np.isfinite(v)][0])!r}")
            for dp in range(0, 18):
                scale = 10**dp
                x = np.rint(v * scale)
                if np.abs(x).max(initial=0) >= 2**51:
                    break
                if (x / scale == v).all():
                    return x.astype(np.int64), scale
            exact: Sequence[Any] = self.values
        else:
            exact = self._exact  # type: ignore[assignment]
        fr = [Fraction(e) for e in exact]
        scale = 1
        for f in fr:
            scale = math.lcm(scale, f.denominator)
        ints = [f.numerator * (scale // f.denominator) for f in fr]
        return _int_array(ints), scale


def _float_value(v: float) -> Any:
    """The number a float prints as: its shortest round-trip decimal (1e+38 is 10**38, 0.1 is
    1/10), an int when whole."""
    if not math.isfinite(v):
        return v
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    f = Fraction(repr(v))
    return int(f) if f.denominator == 1 else f


def _int_array(ints: Sequence[int]) -> np.ndarray:
    if all(-(2**62) < i < 2**62 for i in ints):
        return np.array(ints, dtype=np.int64)
    out = np.empty(len(ints), dtype=object)
    out[:] = list(ints)
    return out


# --- coding: any rating matrix -> one code per present rating --------------------------------


@dataclass(frozen=True)
class Coded:
    """Ratings as codes: one entry per present rating (missing cells have no entry).

    ``unit`` and ``rater`` index the rating's unit and rater, ``code`` its value in ``categories``.
    Alpha only needs each unit's multiset of codes; the raters matter to rates and diagnostics.
    """

    unit: np.ndarray
    rater: np.ndarray
    code: np.ndarray
    n_units: int
    n_raters: int
    categories: Categories

    def __post_init__(self) -> None:
        if not (len(self.unit) == len(self.rater) == len(self.code)):
            raise ValueError("unit, rater and code must have one entry per rating")

    @property
    def n_ratings(self) -> int:
        return len(self.code)


def _as_matrix(ratings: Any) -> np.ndarray:
    if isinstance(ratings, pd.DataFrame):
        arr = ratings.to_numpy()
    elif isinstance(ratings, np.ndarray):
        arr = ratings
    else:
        try:
            rows = [list(r) for r in ratings]
        except TypeError as error:
            raise ValueError("ratings must be 2-D: rows are units, columns are raters") from error
        widths = {len(r) for r in rows}
        if len(widths) > 1:
            raise ValueError(f"ratings rows have different lengths {sorted(widths)}: every unit needs one cell per rater")
        arr = np.empty((len(rows), widths.pop() if widths else 0), dtype=object)
        for i, r in enumerate(rows):
            arr[i, :] = r
    if arr.ndim != 2:
        raise ValueError(f"ratings must be 2-D (units x raters), got {arr.ndim}-D")
    return arr


def encode(ratings: Any) -> Coded:
    """A rating matrix (rows = units, columns = raters; None/NaN missing) as :class:`Coded`."""
    if isinstance(ratings, Coded):
        return ratings
    arr = _as_matrix(ratings)
    n_units, n_raters = arr.shape
    flat = arr.ravel()
    if flat.dtype.kind == "b":
        raise ValueError("ratings must not be booleans: use 0/1 or labels")
    if flat.dtype.kind in "iu":
        uniques, codes = np.unique(flat, return_inverse=True)
        cats = Categories(exact=[int(u) for u in uniques])
        present = np.ones(len(flat), dtype=bool)
    elif flat.dtype.kind == "f":
        codes, uniques = pd.factorize(flat, use_na_sentinel=True)  # hashing: no sort of every rating
        order = np.argsort(uniques, kind="stable")
        remap = np.empty(len(uniques) + 1, dtype=np.int64)
        remap[order] = np.arange(len(uniques))
        remap[-1] = -1
        codes = remap[codes]
        present = codes >= 0
        cats = Categories(floats=np.asarray(uniques, dtype=np.float64)[order])
    else:
        codes, cats = _encode_objects(flat)
        present = codes >= 0
    idx = np.flatnonzero(present)
    codes = np.asarray(codes, dtype=np.int64)[idx]
    return Coded(idx // max(n_raters, 1), idx % max(n_raters, 1), codes, n_units, n_raters, cats)


def _encode_objects(flat: np.ndarray) -> tuple[np.ndarray, Categories]:
    codes, uniques = pd.factorize(flat, use_na_sentinel=True)
    values = [v.item() if isinstance(v, np.generic) else v for v in uniques]
    if any(isinstance(v, (bool, np.bool_)) for v in values):
        raise ValueError("ratings must not be booleans: use 0/1 or labels")
    numeric = all(isinstance(v, Real) for v in values)
    if numeric:
        exact: list[Any] = []
        for v in values:
            if isinstance(v, float):
                if not math.isfinite(v):
                    numeric = False
                    break
                exact.append(_float_value(v))
            elif isinstance(v, Rational):
                exact.append(int(v) if v.denominator == 1 else Fraction(v))
            else:  # other Reals (Decimal, numpy floats handled above): through their float's repr
                exact.append(_float_value(float(v)))
        if numeric:
            values = exact
    try:
        order = sorted(range(len(values)), key=lambda i: values[i])
    except TypeError:
        order = sorted(range(len(values)), key=lambda i: (type(values[i]).__name__, repr(values[i])))
    remap = np.empty(len(values) + 1, dtype=np.int64)
    remap[np.asarray(order, dtype=np.int64)] = np.arange(len(values), dtype=np.int64)
    remap[-1] = -1  # code -1 indexes the last slot: stays missing
    codes = remap[np.asarray(codes, dtype=np.int64)]
    sorted_values = [values[i] for i in order]
    cats = Categories(exact=sorted_values) if numeric else Categories(labels=sorted_values)
    return codes, cats


# --- alpha -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha, exact.

    ``value`` is ``None`` when alpha is undefined (no pairable values, or no variation).
    ``seed_permil`` is the seed's ``ab_alpha_permil`` applied to the same matrix (its nominal
    integer formula, every column a rater). The coincidence matrix is kept (scaled to integers,
    ``coincidence_scaled / coincidence_scale``) when there are at most
    ``COINCIDENCE_MAX_CATEGORIES`` distinct values; above, it is None.
    """

    level: str
    value: Fraction | None
    observed_disagreement: Fraction | None
    expected_disagreement: Fraction | None
    pairable: int  # n: values in units with at least two ratings
    units: int  # units with at least two ratings
    category_set: Categories = field(repr=False, compare=False)
    seed_permil: int = AB_UNDEFINED
    pairs: int = 0  # M = sum over pairable units of m(m-1)/2: the pairs a bootstrap draws
    #: (mean, mean square) of the pair distance d2 over the coincidences: the bootstrap's moments.
    distance_moments: tuple[float, float] | None = field(default=None, repr=False, compare=False)
    #: Builds the coincidence matrix when first asked for (None when k is large).
    coincidence_source: Any = field(default=None, repr=False, compare=False)

    @cached_property
    def _coincidence(self) -> tuple[tuple[tuple[int, ...], ...] | None, int]:
        if self.coincidence_source is None:
            return None, 1
        big, scale = self.coincidence_source()
        return tuple(tuple(row) for row in big), scale

    @property
    def coincidence_scaled(self) -> tuple[tuple[int, ...], ...] | None:
        """O_ck = L o_ck, integers (None above COINCIDENCE_MAX_CATEGORIES distinct values)."""
        return self._coincidence[0]

    @property
    def coincidence_scale(self) -> int:
        return self._coincidence[1]

    @property
    def defined(self) -> bool:
        return self.value is not None

    @property
    def categories(self) -> tuple[Any, ...]:
        return self.category_set.values

    @property
    def n_categories(self) -> int:
        return len(self.category_set)

    @property
    def permil(self) -> int | None:
        """floor(1000 x alpha): never rounded up, so it can never flatter a panel."""
        if self.value is None:
            return None
        return math.floor(self.value * AB_PERMIL)

    @property
    def coincidence(self) -> tuple[tuple[Fraction, ...], ...] | None:
        if self.coincidence_scaled is None:
            return None
        s = self.coincidence_scale
        return tuple(tuple(Fraction(x, s) for x in row) for row in self.coincidence_scaled)

    @property
    def marginals(self) -> tuple[Fraction, ...] | None:
        if self.coincidence_scaled is None:
            return None
        s = self.coincidence_scale
        return tuple(Fraction(sum(row), s) for row in self.coincidence_scaled)


def per_unit_counts(c: Coded) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unit, code, count) of every (unit, value) present, sorted by unit then value; and the
    index where each unit's entries start. One bincount (or one sort) over the ratings."""
    k = max(len(c.categories), 1)
    n = c.n_ratings
    key = c.unit.astype(np.int64)
    key *= k
    key += c.code
    if c.n_units * k <= 2 * n + 1_000_000:
        counts = np.bincount(key, minlength=c.n_units * k)
        del key
        keys = np.flatnonzero(counts)
        cnt = counts[keys].astype(np.int64)
        del counts
    else:
        keys, cnt = np.unique(key, return_counts=True)
        del key
    small = np.int32 if c.n_units < 2**31 and k < 2**31 else np.int64
    unit = (keys // k).astype(small)
    code = (keys % k).astype(small)
    del keys
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]]) if len(unit) else np.zeros(0, dtype=np.int64)
    return unit, code, cnt, starts


def _exact_sum(a: np.ndarray) -> int:
    """The exact sum of an int64 (or object) array as a Python int (no int64 overflow)."""
    if a.dtype == object:
        return int(sum(a.tolist()))
    if len(a) == 0:
        return 0
    hi, lo = np.divmod(a, 2**31)  # |hi| < 2**32, 0 <= lo < 2**31: sums of up to 2**31 terms fit
    return int(hi.sum()) * 2**31 + int(lo.sum())


def _sum_by_m(q: np.ndarray, m: np.ndarray) -> tuple[int, ...]:
    """sum_m q_m / (m - 1) pieces: returns (numerator, denominator) of the exact total."""
    order = np.argsort(m, kind="stable")
    ms = m[order]
    qs = q[order]
    bounds = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1], True])
    scale = 1
    distinct = [int(ms[b]) for b in bounds[:-1]]
    for mm in distinct:
        scale = math.lcm(scale, mm - 1)
    total = 0
    for (b0, b1), mm in zip(zip(bounds[:-1], bounds[1:]), distinct):
        total += _exact_sum(qs[b0:b1]) * (scale // (mm - 1))
    return total, scale


def _seed_permil_from(unit_sumsq: np.ndarray, m_u: np.ndarray, n_all_c: np.ndarray, n_raters: int,
                      n_units: int, k: int) -> int:
    """The seed's ab_alpha_permil from per-unit counts: every value counts in the marginals."""
    if n_raters < 2 or n_units <= 0 or k <= 0:
        return AB_UNDEFINED
    dpairs = _exact_sum(m_u * m_u - unit_sumsq)
    n = _exact_sum(n_all_c)
    if n < 2:
        return AB_UNDEFINED
    epairs = n * n - _exact_sum(n_all_c.astype(object) * n_all_c)
    if epairs <= 0:
        return AB_UNDEFINED
    return AB_PERMIL - (AB_PERMIL * dpairs * (n - 1)) // ((n_raters - 1) * epairs)


def _power_sums(x: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray) -> np.ndarray:
    """Per unit, the sum over ordered pairs of values of (x_i - x_j)^2 = 2 m S2 - 2 S1^2, exactly.

    Values are shifted by the unit's smallest one first (differences do not change), which
    keeps int64 exact on most data; otherwise Python ints.
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


def _as_float(x: Any) -> float:
    """A float, or inf when the exact value is beyond float64 (1e300-sized values)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _fourth_moment(x: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray) -> np.ndarray:
    """Per unit, the sum over ordered pairs of (x_i - x_j)^4, in float64 about the unit's mean
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


def _coincidence(code: np.ndarray, cnt: np.ndarray, starts: np.ndarray, m_u: np.ndarray,
                 k: int) -> tuple[list[list[int]], int]:
    """The coincidence matrix over a common denominator L = lcm(m - 1): o_ck = O_ck / L.

    From the (unit, value, count) entries of pairable units, sorted by unit: per block of units a
    dense unit x value count matrix (k is small here), and per m the product C^T C - diag, with
    BLAS exact in float64 while every entry stays below 2**53.
    """
    per_m: dict[int, np.ndarray] = {}
    n_units = len(starts)
    ends = np.r_[starts[1:], len(code)]
    block = max(1, _BLOCK_CELLS // max(1, k))
    for b0 in range(0, n_units, block):
        b1 = min(n_units, b0 + block)
        lo, hi = int(starts[b0]), int(ends[b1 - 1])
        local = np.repeat(np.arange(b1 - b0), ends[b0:b1] - starts[b0:b1])
        counts = np.zeros((b1 - b0, k), dtype=np.int64)
        counts[local, code[lo:hi]] = cnt[lo:hi]
        mb = m_u[b0:b1]
        for m in np.unique(mb):
            m = int(m)
            block_counts = counts[mb == m]
            rows = block_counts.shape[0]
            if rows * m * m < _FLOAT_EXACT:
                f = block_counts.astype(np.float64)
                prod = (f.T @ f).astype(np.int64).astype(object)
            else:
                o = block_counts.astype(object)
                prod = o.T.dot(o)
            prod[np.diag_indices(k)] -= block_counts.sum(axis=0).astype(object)
            per_m[m] = per_m[m] + prod if m in per_m else prod
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


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")


def alpha_coded(c: Coded, level: str = "nominal") -> AlphaResult:
    """Krippendorff's alpha of coded ratings; see :func:`krippendorff_alpha`."""
    _check_level(level)
    cats = c.categories
    k = len(cats)
    if level != "nominal":
        cats._need_numeric(level)
        if level == "ratio" and k > RATIO_MAX_CATEGORIES:
            raise ValueError(f"ratio alpha is computed exactly for at most {RATIO_MAX_CATEGORIES} distinct values "
                             f"(its distances have a new denominator for every pair of values); this panel has {k:,}. "
                             "Use the interval level, or group the values")
    unit, code, cnt, starts = per_unit_counts(c)
    m_u = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    sumsq = np.add.reduceat(cnt * cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    n_all_c = np.bincount(code, weights=cnt, minlength=k).astype(np.int64) if k else np.zeros(0, dtype=np.int64)
    seed = _seed_permil_from(sumsq, m_u, n_all_c, c.n_raters, c.n_units, k)

    pairable = m_u >= 2
    lens = np.diff(np.r_[starts, len(cnt)])
    triple_pairable = np.repeat(pairable, lens)
    p_code, p_cnt = code[triple_pairable], cnt[triple_pairable]
    del triple_pairable
    mp = m_u[pairable]
    p_starts = np.r_[0, np.cumsum(lens[pairable])[:-1]].astype(np.int64) if len(mp) else np.zeros(0, dtype=np.int64)
    n_c = np.bincount(p_code, weights=p_cnt, minlength=k).astype(np.int64) if k else np.zeros(0, dtype=np.int64)
    n = _exact_sum(n_c)
    units = int(pairable.sum())
    pairs = _exact_sum(mp * (mp - 1) // 2)

    source = None
    if 0 < k <= COINCIDENCE_MAX_CATEGORIES and units:
        def source(p_code: np.ndarray = p_code, p_cnt: np.ndarray = p_cnt, p_starts: np.ndarray = p_starts,
                   mp: np.ndarray = mp) -> tuple[list[list[int]], int]:
            return _coincidence(p_code, p_cnt, p_starts, mp, k)

    def result(value: Fraction | None, d_o: Fraction | None, d_e: Fraction | None,
               moments: tuple[float, float] | None = None) -> AlphaResult:
        return AlphaResult(level, value, d_o, d_e, n, units, cats, seed, pairs, moments, source)

    if n < 2:
        return result(None, None, None)

    if level == "nominal":
        q = mp * mp - sumsq[pairable]  # ordered pairs of different values in each unit
        obs_num, obs_den = _sum_by_m(q, mp)
        exp = n * n - _exact_sum(n_c.astype(object) * n_c)
        if exp == 0:
            return result(None, None, None)
        d_o = Fraction(obs_num, obs_den * n)
        d_e = Fraction(exp, n * (n - 1))
        return result(1 - d_o / d_e, d_o, d_e, (_as_float(d_o), _as_float(d_o)))
    if level in ("interval", "ordinal"):
        if level == "interval":
            x_all, scale = cats.scaled
            d_scale = scale * scale
        else:
            # Ordinal: d2_ck = (P_k - P_c)^2 with the mid-rank P_c = sum_{g<c} n_g + n_c / 2, so
            # 2 P_c is an integer and ordinal alpha is interval alpha of 2 P, d2 scaled by 4.
            before = np.r_[0, np.cumsum(n_c)[:-1]]
            x_all = _int_array((2 * before + n_c).tolist())
            d_scale = 4
        x = x_all[p_code]
        q = _power_sums(x, p_cnt, p_starts, mp)
        obs_num, obs_den = _sum_by_m(q, mp)
        xo = x_all.astype(object)
        nco = n_c.astype(object)
        t1 = int((nco * xo).sum()) if k else 0
        t2 = int((nco * xo * xo).sum()) if k else 0
        exp = 2 * n * t2 - 2 * t1 * t1
        if exp == 0:
            return result(None, None, None)
        d_o = Fraction(obs_num, obs_den * n * d_scale)
        d_e = Fraction(exp, n * (n - 1) * d_scale)
        with np.errstate(over="ignore", invalid="ignore"):
            q4 = _fourth_moment(x, p_cnt, p_starts, mp)
            mean_sq = float(np.sum(q4 / (mp - 1))) / n / _as_float(d_scale) ** 2 if d_scale < 10**150 else math.inf
        return result(1 - d_o / d_e, d_o, d_e, (_as_float(d_o), mean_sq))
    # ratio: needs every pair of values (k is bounded above)
    x_all, _ = cats.scaled
    xs = [int(v) for v in x_all.tolist()]
    if any(v < 0 for v in xs):
        raise ValueError("ratio alpha needs non-negative values; got " + repr(cats.values[0]))
    assert source is not None
    big, coinc_scale = source()
    coinc = big
    d = [[Fraction((a - b) ** 2, (a + b) ** 2) if a + b else Fraction(0) for b in xs] for a in xs]
    obs = sum(coinc[i][j] * d[i][j] for i in range(k) for j in range(k) if coinc[i][j] and d[i][j])
    nl = [int(v) for v in n_c.tolist()]
    exp_f = sum(nl[i] * nl[j] * d[i][j] for i in range(k) for j in range(k) if nl[i] and nl[j] and d[i][j])
    if exp_f == 0:
        return result(None, None, None)
    d_o = Fraction(obs) / (coinc_scale * n)
    d_e = Fraction(exp_f) / (n * (n - 1))
    mean_sq = sum(_as_float(coinc[i][j]) * float(d[i][j]) ** 2 for i in range(k) for j in range(k)) / _as_float(coinc_scale) / n
    return result(1 - d_o / d_e, d_o, d_e, (_as_float(d_o), mean_sq))


def krippendorff_alpha(ratings: Any, level: str = "nominal") -> AlphaResult:
    """Krippendorff's alpha of ``ratings`` (rows = units, columns = raters; None/NaN missing).

    Floats are read as the decimal they print as (0.1 is 1/10), as a file would hold them.

    >>> krippendorff_alpha([[0, 0], [1, 1]]).value
    Fraction(1, 1)
    >>> krippendorff_alpha([[0, 0], [0, 0]]).value is None   # no variation: undefined
    True
    >>> krippendorff_alpha([[0, 1], [1, 0]]).permil           # worse than chance stays negative
    -500
    """
    _check_level(level)
    return alpha_coded(encode(ratings), level)


def unit_disagreement(c: Coded, level: str, result: AlphaResult) -> np.ndarray:
    """Each unit's contribution to sum_ck o_ck d2_ck (true distances, float; 0 for unpairable)."""
    out = np.zeros(c.n_units)
    if result.value is None:
        return out
    unit, code, cnt, starts = per_unit_counts(c)
    m_u = np.add.reduceat(cnt, starts)
    lens = np.diff(np.r_[starts, len(cnt)])
    units = unit[starts]
    keep = m_u >= 2
    if level == "nominal":
        sumsq = np.add.reduceat(cnt * cnt, starts)
        contrib = (m_u * m_u - sumsq) / np.maximum(m_u - 1, 1)
    elif level in ("interval", "ordinal"):
        if level == "interval":
            x_all, scale = result.category_set.scaled
            xf = np.asarray(x_all, dtype=np.float64) / scale
        else:
            n_c = np.bincount(code[np.repeat(keep, lens)], weights=cnt[np.repeat(keep, lens)],
                              minlength=len(result.category_set))
            xf = (np.r_[0, np.cumsum(n_c)[:-1]] + n_c / 2).astype(np.float64)
        x = xf[code]
        mean = np.add.reduceat(cnt * x, starts) / m_u
        dev = x - np.repeat(mean, lens)
        contrib = 2 * m_u * np.add.reduceat(cnt * dev * dev, starts) / np.maximum(m_u - 1, 1)
    else:  # ratio: k is small (RATIO_MAX_CATEGORIES); per unit c^T D c over dense blocks of units
        v = result.category_set.floats
        a, b = v[:, None], v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            dd = np.where(a + b != 0, ((a - b) / (a + b)) ** 2, 0.0)
        k = len(v)
        contrib = np.zeros(len(starts))
        owner = np.repeat(np.arange(len(starts)), lens)
        block = max(1, _BLOCK_CELLS // max(k, 1))
        for b0 in range(0, len(starts), block):
            b1 = min(len(starts), b0 + block)
            lo, hi = int(starts[b0]), int(starts[b1]) if b1 < len(starts) else len(code)
            dense = np.zeros((b1 - b0, k))
            dense[owner[lo:hi] - b0, code[lo:hi]] = cnt[lo:hi]
            contrib[b0:b1] = ((dense @ dd) * dense).sum(axis=1) / np.maximum(m_u[b0:b1] - 1, 1)
    out[units[keep]] = contrib[keep]
    return out


def seed_alpha_permil(ratings: Any, ncat: int) -> int:
    """The seed's ``ab_alpha_permil``, bit for bit: an equal-raters panel of category ids.

    Ids outside [0, ncat) (and None/NaN) are skipped, yet their unit still counts; the result is
    ``1000 - (1000 D (n-1)) // ((m-1) E)``, i.e. alpha rounded *up* to permil, or AB_UNDEFINED.

    >>> seed_alpha_permil([[0, 0], [1, 1], [0, 1]], 2)
    445
    """
    arr = _as_matrix(ratings)
    nunits, nraters = arr.shape
    if nraters < 2 or nunits <= 0 or ncat <= 0:
        return AB_UNDEFINED
    # The seed's ids are integers; anything that is not an integral number is "outside".
    if arr.dtype.kind in "iu":
        ids = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        ok = np.isfinite(arr) & (np.floor(arr) == arr) & (np.abs(arr) < 2**62)
        ids = np.where(ok, np.nan_to_num(arr), -1).astype(np.int64)
    else:
        ids = np.full(arr.shape, -1, dtype=np.int64)
        for idx, v in np.ndenumerate(arr):
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                ids[idx] = int(v) if -(2**62) < int(v) < 2**62 else -1
    ids = np.where((ids >= 0) & (ids < ncat), ids, -1).ravel()
    present = np.flatnonzero(ids >= 0)
    coded = Coded(present // nraters, present % nraters, ids[present], nunits, nraters,
                  Categories(exact=list(range(ncat))))
    unit, code, cnt, starts = per_unit_counts(coded)
    m_u = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    sumsq = np.add.reduceat(cnt * cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    n_all_c = np.bincount(code, weights=cnt, minlength=ncat).astype(np.int64)
    return _seed_permil_from(sumsq, m_u, n_all_c, nraters, nunits, ncat)


# --- detector spread --------------------------------------------------------------------------


def _checked_rates(rates: Iterable[Any]) -> list[Fraction]:
    out = []
    for i, r in enumerate(rates):
        if isinstance(r, bool) or not isinstance(r, Rational):
            raise ValueError(f"rate #{i + 1} must be an int or a Fraction, got {r!r}")
        if r < 0:
            raise ValueError(f"rate #{i + 1} is negative ({r}): a detector rate is a count or share, >= 0")
        out.append(Fraction(r))
    return out


def rate_span(rates: Iterable[Any]) -> tuple[Fraction | int, Fraction | int]:
    """(lo, hi): the interval a single detector's rate must be reported as; (0, 0) when empty.

    >>> rate_span([3, 9, 5])
    (3, 9)
    """
    checked = _checked_rates(rates)
    if not checked:
        return (0, 0)
    lo, hi = min(checked), max(checked)
    return (_simplify(lo), _simplify(hi))


def _simplify(x: Fraction) -> Fraction | int:
    return int(x) if x.denominator == 1 else x


def spread(rates: Iterable[Any]) -> Fraction | None:
    """hi / lo exactly; 1 for an empty or all-zero panel; None when unbounded (some zero)."""
    checked = _checked_rates(rates)
    if not checked:
        return Fraction(1)
    lo, hi = min(checked), max(checked)
    if hi == 0:
        return Fraction(1)
    if lo == 0:
        return None
    return hi / lo


def ratio_permil(rates: Iterable[Any]) -> int:
    """The seed's ``ab_ratio_permil``: floor(1000 hi / lo); 1000 all-zero; AB_RATIO_UNBOUNDED.

    Bit for bit with the seed on every list of non-negative rates. Negative rates are refused
    here on purpose (a ValueError), where the seed would return a number: a detector rate is a
    count or a share, and a negative one is bad input, not a spread.

    >>> ratio_permil([0, 0]), ratio_permil([0, 4]), ratio_permil([2, 3])
    (1000, -1, 1500)
    """
    s = spread(rates)
    if s is None:
        return AB_RATIO_UNBOUNDED
    return math.floor(s * AB_PERMIL)


# --- the decision --------------------------------------------------------------


@dataclass(frozen=True)
class Reason:
    """One failed check: what was measured, against what, and by how much."""

    check: str  # "single_detector" | "alpha_undefined" | "alpha_below_floor" | "ratio_unbounded" | "ratio_above_cap"
    value: Fraction | int | None
    threshold: Fraction | int
    margin: Fraction | int | None  # value - threshold (how far on the wrong side); None when value is None
    message: str


@dataclass(frozen=True)
class PanelDecision:
    verdict: Verdict
    reasons: tuple[Reason, ...]
    ndet: int
    alpha: Fraction | None
    spread: Fraction | None  # None = unbounded
    rates_span: tuple[Fraction | int, Fraction | int]
    thresholds: PanelThresholds
    seed_alpha_permil: int
    seed_ratio_permil: int
    seed_verdict: Verdict

    #: Where ``seed_alpha_permil`` comes from: "matrix" (the seed's nominal integer formula applied
    #: to the rating matrix itself) or "value" (the seed's rounding of a given alpha value).
    seed_alpha_source: str = "value"

    @property
    def seed_disagrees(self) -> bool:
        """True whenever the seed's own path would reach another verdict: its nominal integer alpha
        on the same matrix (which ignores missing cells differently and rounds up), its integer
        spread and its check order, under the same thresholds."""
        return self.seed_verdict is not self.verdict

    @property
    def spread_measured(self) -> bool:
        """False when there were no detector rates: the spread gate then passes as the seed's
        empty panel does (1000 permil), and says "not measured"."""
        return bool(self.rates_measured)

    rates_measured: int = 0


def seed_enforce(ndet: int, alpha_permil: int, ratio_permil_: int, alpha_floor: int, ratio_cap: int) -> int:
    """The seed's ``ab_enforce`` on its integers, in its order (structural refusal first)."""
    if ndet < 2:
        return AB_REFUSE_SINGLE
    if alpha_permil == AB_UNDEFINED:
        return AB_REPORT_ONLY
    if alpha_permil < alpha_floor:
        return AB_REPORT_ONLY
    if ratio_permil_ == AB_RATIO_UNBOUNDED:
        return AB_REPORT_ONLY
    if ratio_permil_ > ratio_cap:
        return AB_REPORT_ONLY
    return AB_ENFORCE


def _fmt(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4f} ({x})"


def decide(
    ndet: int,
    alpha: AlphaResult | Fraction | int | None,
    rates: Sequence[Any],
    thresholds: PanelThresholds = PanelThresholds(),
    *,
    alpha_low: float | None = None,
    spread_high: float | None | str = "unknown",
) -> PanelDecision:
    """The enforcement verdict: the only place panel numbers meet thresholds.

    Order is the seed's: ``ndet < 2`` refuses first, whatever the scores; then alpha (undefined
    or below the floor), then the spread (unbounded or above the cap) -> REPORT_ONLY.  Gates
    compare exact values; every failed check is listed, the structural refusal first.

    Strict mode (``thresholds.strict``) adds the interval gates: ``alpha_low`` (the 95% lower
    bound of alpha) must reach the floor and ``spread_high`` (the upper end of the spread's
    bracket; None = unbounded) must stay within the cap. A missing interval fails strict mode.

    >>> decide(3, Fraction(5994, 10000), [1, 1]).verdict            # seed would say 600 >= 600
    <Verdict.REPORT_ONLY: 'REPORT_ONLY'>
    >>> decide(3, Fraction(5994, 10000), [1, 1]).seed_disagrees
    True
    """
    if type(ndet) is not int and not isinstance(ndet, np.integer):
        raise ValueError(f"ndet must be an int, got {ndet!r}")
    ndet = int(ndet)
    if not isinstance(thresholds, PanelThresholds):
        raise ValueError("thresholds must be a PanelThresholds")
    if isinstance(alpha, AlphaResult):
        value = alpha.value
    elif alpha is None:
        value = None
    elif isinstance(alpha, Rational) and not isinstance(alpha, bool):
        value = Fraction(alpha)
    else:
        raise ValueError(f"alpha must be an AlphaResult, a Fraction or None, got {alpha!r}")
    checked = _checked_rates(rates)
    s = spread(checked)
    reasons: list[Reason] = []
    if ndet < 2:
        reasons.append(
            Reason("single_detector", ndet, 2, ndet - 2,
                   f"{ndet} independent detector(s): fewer than two is a coin flip and is refused "
                   "structurally, whatever the scores")
        )
    floor = thresholds.alpha_floor
    if value is None:
        reasons.append(Reason("alpha_undefined", None, floor, None,
                              "alpha is undefined (no pairable values or no variation): it cannot license action"))
    elif value < floor:
        reasons.append(Reason("alpha_below_floor", value, floor, value - floor,
                              f"alpha {_fmt(value)} is below the floor {_fmt(floor)} by {_fmt(floor - value)}"))
    cap = thresholds.ratio_cap
    if s is None:
        reasons.append(Reason("ratio_unbounded", None, cap, None,
                              "detector spread is unbounded: one detector found nothing where another found something"))
    elif s > cap:
        reasons.append(Reason("ratio_above_cap", s, cap, s - cap,
                              f"detector spread {_fmt(s)}x is above the cap {_fmt(cap)}x by {_fmt(s - cap)}x"))
    if thresholds.strict:
        reasons.extend(_strict_reasons(value, alpha_low, checked, spread_high, floor, cap))
    if ndet < 2:
        verdict = Verdict.REFUSE_SINGLE
    elif reasons:
        verdict = Verdict.REPORT_ONLY
    else:
        verdict = Verdict.ENFORCE
    if isinstance(alpha, AlphaResult):
        seed_a, seed_source = alpha.seed_permil, "matrix"
    else:
        seed_a = AB_UNDEFINED if value is None else AB_PERMIL - math.floor(AB_PERMIL * (1 - value))
        seed_source = "value"
    seed_r = ratio_permil(checked)
    seed_v = Verdict.from_seed_code(
        seed_enforce(ndet, seed_a, seed_r, thresholds.alpha_floor_permil, thresholds.ratio_cap_permil)
    )
    lohi = rate_span(checked)
    return PanelDecision(verdict, tuple(reasons), ndet, value, s, lohi, thresholds, seed_a, seed_r, seed_v,
                         seed_source, len(checked))


def _strict_reasons(value: Fraction | None, alpha_low: float | None, rates: list[Fraction],
                    spread_high: float | None | str, floor: Fraction, cap: Fraction) -> list[Reason]:
    out = []
    if value is not None:
        if alpha_low is None:
            out.append(Reason("alpha_interval_missing", None, floor, None,
                              "strict mode gates on alpha's 95% lower bound, and none was computed"))
        elif Fraction(alpha_low) < floor:
            low = Fraction(alpha_low)
            out.append(Reason("alpha_lower_bound_below_floor", low, floor, low - floor,
                              f"strict mode: alpha's 95% lower bound {float(low):.4f} is below the floor "
                              f"{_fmt(floor)}"))
    if rates and spread(rates) is not None:
        if spread_high == "unknown":
            out.append(Reason("spread_interval_missing", None, cap, None,
                              "strict mode gates on the spread's upper bound, and none was computed"))
        elif spread_high is None:
            out.append(Reason("spread_upper_unbounded", None, cap, None,
                              "strict mode: the spread's upper bound is unbounded (a detector's rate could be 0)"))
        elif Fraction(spread_high) > cap:
            high = Fraction(spread_high)
            out.append(Reason("spread_upper_above_cap", high, cap, high - cap,
                              f"strict mode: the spread's 95% upper bound {float(high):.3f}x is above the cap {_fmt(cap)}x"))
    return out
