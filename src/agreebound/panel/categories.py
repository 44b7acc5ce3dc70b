"""The ratings' domain: categories (the sorted distinct values, exact on demand) and the coded
panel (one code per present rating), the types every reader builds and every measure reads.

>>> c = encode([[1, 1], [2, None]])
>>> c.categories.values, c.code.tolist(), c.n_raters
((1, 2), [0, 0, 1], 2)
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from functools import cached_property
from numbers import Rational, Real
from typing import TYPE_CHECKING, Iterable, Literal, Sequence, TypeAlias

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# the level of measurement, defined on the standard library alone (the command line's parser reads it
# without numpy or pandas); re-exported here, where the readers and measures import it from
from agreebound.panel.level_names import LEVELS as LEVELS, Level as Level, is_level as is_level

#: An exact number as the categories hold it: an int, a Fraction (a decimal read exactly), a float
#: only when it is not finite.
Number = int | Fraction | float
#: A category: a Number (numeric categories) or a label (the text, or any other hashable value, as given).
Value: TypeAlias = object

# --- categories: the sorted distinct values, exact on demand ----------------------------------


class Categories:
    """The distinct values of a panel, sorted; ``codes`` index into them.

    Numbers are held either as float64 (each float read as its shortest round-trip decimal, the
    number the file or the caller wrote: 0.1 is 1/10) or as exact Python numbers; labels as
    Python objects.  Exact values are made only when asked for, so a panel with 500,000 distinct
    scores never builds 500,000 Fractions.

    Labels are sorted by their text, unless ``ordered``: then they are in the order the user gave
    (lowest first, the ``krippendorff`` package's ``value_domain``), and the ordinal level reads
    their ranks; interval and ratio still need numbers.

    >>> Categories(labels=["low", "mid", "high"], ordered=True).need_numeric("ordinal")  # ranks suffice
    >>> Categories(labels=["low", "mid", "high"], ordered=True).need_numeric("interval")
    Traceback (most recent call last):
    ...
    ValueError: interval alpha needs numeric values; got 'low'
    """

    def __init__(self, *, floats: np.ndarray | None = None, exact: Sequence[Number] | None = None,
                 labels: Sequence[Value] | None = None, ordered: bool = False) -> None:
        given = [x is not None for x in (floats, exact, labels)]
        if sum(given) != 1:
            raise ValueError("Categories takes exactly one of floats, exact, labels")
        if ordered and labels is None:
            raise ValueError("only labels are ordered as given; numbers are ordered by their value")
        self._floats = None if floats is None else np.asarray(floats, dtype=np.float64)
        self._exact = None if exact is None else tuple(exact)
        self._labels = None if labels is None else tuple(labels)
        self._ordered = ordered

    @property
    def numeric(self) -> bool:
        return self._labels is None

    @property
    def ordered(self) -> bool:
        """Labels in an order the user gave (ranks for the ordinal level), not sorted by text."""
        return self._ordered

    def __len__(self) -> int:
        if self._floats is not None:
            return len(self._floats)
        return len(self._exact) if self._exact is not None else len(self._labels or ())

    @cached_property
    def values(self) -> tuple[Value, ...]:
        """Exact Python values: ints, Fractions (decimals) or the labels."""
        if self._labels is not None:
            return self._labels
        return self.numbers

    @property
    def numbers(self) -> tuple[Number, ...]:
        """The exact values of numeric categories (``values``, typed as numbers)."""
        self.need_numeric("")
        if self._exact is not None:
            return self._exact
        assert self._floats is not None  # exactly one of floats, exact, labels
        return tuple(float_value(float(v)) for v in self._floats)

    def first(self, n: int) -> tuple[Value, ...]:
        """The first ``n`` exact values, without converting the rest."""
        if self._floats is not None and "values" not in self.__dict__:
            return tuple(float_value(float(v)) for v in self._floats[:n])
        return self.values[:n]

    @cached_property
    def floats(self) -> np.ndarray:
        """float64 approximations (figures, bootstraps); numeric categories only."""
        self.need_numeric("")
        if self._floats is not None:
            return self._floats
        return np.array([float(v) for v in self.numbers], dtype=np.float64)

    def need_numeric(self, level: Level | Literal[""]) -> None:
        """A ValueError unless the values can be read at ``level`` ("": as numbers): numbers, or
        ordered labels at the ordinal level."""
        if self._labels is not None and not (self._ordered and level == "ordinal"):
            first = next((v for v in self._labels if isinstance(v, bool) or not isinstance(v, Real)), None)
            raise ValueError(f"{level or 'this'} alpha needs numeric values; got {first!r}")

    @cached_property
    def scaled(self) -> tuple[np.ndarray, int]:
        """(X, S): every value exactly X / S, X integers (int64 when they fit, else Python ints)."""
        self.need_numeric("")
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
        fr = [Fraction(e) for e in self.numbers]
        scale = 1
        for f in fr:
            scale = math.lcm(scale, f.denominator)
        ints = [f.numerator * (scale // f.denominator) for f in fr]
        return int_array(ints), scale


def float_value(v: float) -> Number:
    """The number a float prints as: its shortest round-trip decimal (1e+38 is 10**38, 0.1 is
    1/10), an int when whole."""
    if not math.isfinite(v):
        return v
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    f = Fraction(repr(v))
    return int(f) if f.denominator == 1 else f


def int_array(ints: Sequence[int]) -> np.ndarray:
    """int64 when every value fits (with room for sums), else Python ints in an object array."""
    if all(-(2**62) < i < 2**62 for i in ints):
        return np.array(ints, dtype=np.int64)
    out = np.empty(len(ints), dtype=object)
    out[:] = list(ints)
    return out


# --- coding: any rating matrix -> one code per present rating --------------------------------


class Coded:
    """Ratings as codes: one entry per present rating (missing cells have no entry).

    ``unit`` and ``rater`` index the rating's unit and rater, ``code`` its value in ``categories``.
    Alpha only needs each unit's multiset of codes; the raters matter to rates and diagnostics, so a
    matrix coded in memory (:meth:`of_cells`) finds each rating's rater when it is first read. Plain
    and read-only, as a frozen dataclass would be.

    >>> c = Coded.of_cells(np.array([0, 2, 3]), np.array([1, 0, 1]), 2, 2, Categories(exact=[0, 1]))
    >>> c.unit.tolist(), c.rater.tolist(), c.n_ratings
    ([0, 1, 1], [0, 0, 1], 3)
    """

    __slots__ = ("unit", "code", "n_units", "n_raters", "categories", "_rater", "_cells")

    unit: np.ndarray
    code: np.ndarray
    n_units: int
    n_raters: int
    categories: Categories
    _rater: np.ndarray | None
    _cells: np.ndarray | None

    def __init__(self, unit: np.ndarray, rater: np.ndarray, code: np.ndarray, n_units: int, n_raters: int,
                 categories: Categories) -> None:
        if not (len(unit) == len(rater) == len(code)):
            raise ValueError("unit, rater and code must have one entry per rating")
        for name, value in (("unit", unit), ("_rater", rater), ("code", code), ("n_units", n_units),
                            ("n_raters", n_raters), ("categories", categories), ("_cells", None)):
            object.__setattr__(self, name, value)

    @classmethod
    def of_cells(cls, cells: np.ndarray, code: np.ndarray, n_units: int, n_raters: int,
                 categories: Categories) -> "Coded":
        """The ratings in the cells ``cells`` (unit * n_raters + rater, ascending) of a units x raters
        matrix: each rating's unit now, its rater when first read."""
        if len(cells) != len(code):
            raise ValueError("unit, rater and code must have one entry per rating")
        c = cls.__new__(cls)
        for name, value in (("unit", cells // max(n_raters, 1)), ("_rater", None), ("code", code),
                            ("n_units", n_units), ("n_raters", n_raters), ("categories", categories),
                            ("_cells", cells)):
            object.__setattr__(c, name, value)
        return c

    @property
    def rater(self) -> np.ndarray:
        if self._rater is None:
            assert self._cells is not None  # a rater is given, or made once from the cells
            rater = self.unit * max(self.n_raters, 1)
            np.subtract(self._cells, rater, out=rater)
            object.__setattr__(self, "_rater", rater)
            object.__setattr__(self, "_cells", None)
            return rater
        return self._rater

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Coded is read-only: cannot set {name}")

    def __getstate__(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, object]) -> None:  # pickling and copying, past __setattr__
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (f"Coded(ratings={self.n_ratings}, n_units={self.n_units}, n_raters={self.n_raters}, "
                f"categories={len(self.categories)})")

    @property
    def n_ratings(self) -> int:
        return len(self.code)


#: A rating matrix as the callers give it: a frame or an array (units x raters), or rows of cells
#: (None or NaN missing).
Ratings: TypeAlias = "pd.DataFrame | np.ndarray | Iterable[Iterable[object]]"


def as_matrix(ratings: Ratings) -> np.ndarray:
    pandas = sys.modules.get("pandas")  # a frame is pandas': none was given unless pandas is imported
    if pandas is not None and isinstance(ratings, pandas.DataFrame):
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


def encode(ratings: Coded | Ratings, order: Sequence[Value] | None = None) -> Coded:
    """A rating matrix (rows = units, columns = raters; None/NaN missing) as :class:`Coded`;
    ``order``: the categories' order, lowest first (the ``krippendorff`` package's
    ``value_domain``), which makes them ordered labels (:func:`in_order`).

    >>> c = encode([["low", "high"], ["mid", None]], order=["low", "mid", "high"])
    >>> c.categories.values, c.categories.ordered, c.code.tolist()
    (('low', 'mid', 'high'), True, [0, 2, 1])
    """
    if order is not None:
        return in_order(encode(ratings), order)
    if isinstance(ratings, Coded):
        return ratings
    arr = as_matrix(ratings)
    n_units, n_raters = arr.shape
    flat = arr.ravel()
    if flat.dtype.kind == "b":
        raise ValueError("ratings must not be booleans: use 0/1 or labels")
    if flat.dtype.kind in "iu":
        idx, (codes, cats) = None, _encode_ints(flat)
    elif flat.dtype.kind == "f":
        idx, codes, cats = _encode_floats(flat)
    else:
        codes, cats = _encode_objects(flat)
        idx = np.flatnonzero(codes >= 0)
        codes = codes[idx]
    if idx is None:  # every cell rated: units and raters by repetition, no division
        unit = np.repeat(np.arange(n_units, dtype=np.int64), n_raters)
        rater = np.tile(np.arange(n_raters, dtype=np.int64), n_units)
        return Coded(unit, rater, np.asarray(codes, dtype=np.int64), n_units, n_raters, cats)
    return Coded.of_cells(idx, np.asarray(codes, dtype=np.int64), n_units, n_raters, cats)


SMALL_RANGE = 1 << 16  # whole-number ratings spanning fewer values are coded by one bincount


def _small_range(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and the sorted distinct values of ``values`` when they are whole numbers (of any
    dtype) spanning fewer than SMALL_RANGE values: one bincount, no hashing or sorting of every
    rating. None otherwise (or when empty)."""
    if not len(values):
        return None
    lo, hi = values.min().item(), values.max().item()
    if not (-(2**53) < lo <= hi < 2**53) or hi - lo >= SMALL_RANGE:  # NaN/inf fail the first test
        return None
    whole = values.astype(np.int64, copy=False)
    if values.dtype.kind == "f" and not np.array_equal(whole, values):
        return None
    base = 0 if 0 <= lo and hi < 2 * SMALL_RANGE else int(lo)  # small whole numbers index as they are
    offset = whole - base if base else whole
    # every value from the lowest to the highest used: the offsets are the codes. A sample that holds
    # them all proves it (lo and hi are the whole's) at a fraction of a count of every rating.
    span = int(hi) - base + 1
    sampled = len(offset) >= 1 << 16 and np.count_nonzero(np.bincount(offset[::64], minlength=span)) == span
    seen = None if sampled else np.bincount(offset) > 0
    if lo == base and (sampled or seen is not None and seen.all()):
        return (offset if offset is not values else offset.copy()), np.arange(span, dtype=np.int64) + base
    if seen is None:
        seen = np.bincount(offset) > 0
    table = np.cumsum(seen) - 1
    return table[offset], np.flatnonzero(seen) + base


def _encode_ints(flat: np.ndarray) -> tuple[np.ndarray, Categories]:
    if (small := _small_range(flat)) is not None:
        codes, uniques = small
    else:
        uniques, codes = np.unique(flat, return_inverse=True)
    return codes, Categories(exact=[int(u) for u in uniques])


def _encode_floats(flat: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, Categories]:
    """The present cells' indexes (None: all present), their codes and the categories. A float is
    its own category; 0.0 and -0.0 are one, shown as the first one read."""
    present_at = np.flatnonzero(flat == flat)  # NaN is not itself
    idx = None if len(present_at) == len(flat) else present_at
    present = flat if idx is None else flat[idx]
    if (small := _small_range(present)) is not None:
        codes, uniques = small
        floats = uniques.astype(np.float64)
        if 0 in uniques and np.signbit(_first_zero(present)):
            floats[np.searchsorted(uniques, 0)] = -0.0
        return idx, codes, Categories(floats=floats)
    import pandas as pd  # imported where it is used: importing this module (as the CLI does) stays off pandas

    codes, uniques = pd.factorize(flat, use_na_sentinel=True)  # hashing: no sort of every rating
    order = np.argsort(uniques, kind="stable")
    remap = np.empty(len(uniques) + 1, dtype=np.int64)
    remap[order] = np.arange(len(uniques))
    remap[-1] = -1
    codes = remap[codes]
    if idx is not None:
        codes = codes[idx]
    return idx, codes, Categories(floats=np.asarray(uniques, dtype=np.float64)[order])


def _first_zero(values: np.ndarray) -> float:
    """The first zero (0.0 or -0.0) of ``values``, which hold one: looked for in doubling chunks,
    so a zero near the start costs no comparison of every value."""
    start, size = 0, 1024
    while start < len(values):
        chunk = values[start:start + size]
        hit = np.flatnonzero(chunk == 0)
        if len(hit):
            return float(chunk[hit[0]])
        start, size = start + size, size * 2
    raise ValueError("no zero among the values")


def _encode_objects(flat: np.ndarray) -> tuple[np.ndarray, Categories]:
    import pandas as pd

    codes, uniques = pd.factorize(flat, use_na_sentinel=True)
    values = [v.item() if isinstance(v, np.generic) else v for v in uniques]
    if any(isinstance(v, (bool, np.bool_)) for v in values):
        raise ValueError("ratings must not be booleans: use 0/1 or labels")
    numeric = all(isinstance(v, Real) for v in values)
    if numeric:
        exact: list[Number] = []
        for v in values:
            if isinstance(v, float):
                if not math.isfinite(v):
                    numeric = False
                    break
                exact.append(float_value(v))
            elif isinstance(v, Rational):
                exact.append(int(v.numerator) if v.denominator == 1 else Fraction(v))
            else:  # other Reals (Decimal, numpy floats handled above): through their float's repr
                exact.append(float_value(float(v)))
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


# --- an order the user gives: ordered labels ----------------------------------------------------


def order_of(values: Sequence[Value], order: Sequence[Value]) -> tuple[np.ndarray | None, list[Value]]:
    """Where ``values`` (a panel's categories) fall in ``order``: (the indexes of ``values`` in the
    order given, lowest first; the values the order lacks, in their own order). Values absent from
    the data are no category and take no rank (they change no alpha: the ordinal metric reads the
    categories' frequencies). With a value unknown to the order, the indexes are None.

    >>> order_of(["a", "b", "c"], ["c", "x", "a", "b"])[0].tolist()
    [2, 0, 1]
    >>> order_of(["a", "z"], ["a", "b"])
    (None, ['z'])
    """
    rank: dict[Value, int] = {}
    for i, v in enumerate(order):
        if v in rank:
            raise ValueError(f"the order names {v!r} twice; each category once")
        rank[v] = i
    unknown = [v for v in values if v not in rank]
    if unknown:
        return None, unknown
    return np.argsort(np.array([rank[v] for v in values], dtype=np.int64), kind="stable"), []


def in_order(coded: Coded, order: Sequence[Value]) -> Coded:
    """``coded`` with its categories ranked as ``order`` ranks them (ordered labels, which the
    ordinal level reads by rank); a category the order lacks is a ValueError naming it.

    >>> in_order(encode([[1, 3], [2, 3]]), [3, 2, 1]).categories.values
    (3, 2, 1)
    >>> in_order(encode([["a", "b"]]), ["a"])
    Traceback (most recent call last):
    ...
    ValueError: 1 value not in the order given: 'b'; the order has 'a'
    """
    values = coded.categories.values
    by, unknown = order_of(values, order)
    if by is None:
        shown = ", ".join(repr(v) for v in unknown[:10]) + (", ..." if len(unknown) > 10 else "")
        given = ", ".join(repr(v) for v in list(order)[:10]) + (", ..." if len(order) > 10 else "")
        raise ValueError(f"{len(unknown)} value{'s' if len(unknown) != 1 else ''} not in the order given: {shown}; "
                         f"the order has {given}")
    new_code = np.empty(len(values), dtype=np.int64)
    new_code[by] = np.arange(len(values), dtype=np.int64)
    cats = Categories(labels=[values[int(i)] for i in by], ordered=True)
    return Coded(coded.unit, coded.rater, new_code[coded.code], coded.n_units, coded.n_raters, cats)
