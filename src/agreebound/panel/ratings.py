"""The rating panel: the domain's input to alpha and the spread, whatever file or engine it came from.

A :class:`RatingPanel` is one dimension's ratings (which unit, which rater, which value), sparse
and coded (:class:`agreebound.panel.categories.Coded`); :class:`DetectorRate` is one detector's rate of a
positive category. io builds them from files; the measuring code reads them. They live in the
core, below io, so that nothing that measures depends on the parsers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Protocol, Sequence, overload

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.core.limits import RATIO_MAX_CATEGORIES
from agreebound.panel.categories import Categories, Coded, Level, Value

if TYPE_CHECKING:
    import pyarrow as pa

#: Raters named so are people (a human baseline), not independent detectors, unless every rater is.
HUMAN_PREFIX = "human"


class RowLocator(Protocol):
    """What a panel needs of the table it came from: a data row's row number in the file."""

    def row_of(self, index: int) -> int: ...


def name_text(value: object) -> str:
    """A name cell's text (Parquet ids may be numbers)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return str(value) if not isinstance(value, float) else repr(value)


class Names(Sequence[str]):
    """Names in first-seen order, held as one pyarrow string array: no Python object per name, so
    millions of distinct unit names cost bytes each, not a string object each. Compares equal to a
    tuple or list of the same strings. A small file read without pyarrow (agreebound.io.tables'
    plain CSV) holds its names as a Python list instead; both read alike."""

    def __init__(self, arr: pa.Array | list[str]) -> None:
        self._arr = arr

    def __len__(self) -> int:
        return len(self._arr)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Names: ...

    def __getitem__(self, i: int | slice) -> str | Names:
        if isinstance(i, slice):
            return Names(self._arr[i])
        if isinstance(self._arr, list):
            return self._arr[int(i)]
        return self._arr[int(i)].as_py()

    def __iter__(self) -> Iterator[str]:
        if isinstance(self._arr, list):
            yield from self._arr
            return
        step = 65_536
        for start in range(0, len(self._arr), step):
            yield from self._arr[start:start + step].to_pylist()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names):
            if isinstance(self._arr, list) or isinstance(other._arr, list):
                return len(other) == len(self) and all(a == b for a, b in zip(self, other))
            return self._arr.equals(other._arr)
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    # unhashable, as a list is (it compares equal to one); Sequence's __hash__ is object's
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in list(self[:5]))
        return f"Names([{head}{', ...' if len(self) > 5 else ''}], {len(self):,} names)"

    def take(self, indices: Sequence[int] | np.ndarray) -> "Names":
        if isinstance(self._arr, list):
            names = self._arr
            return Names([names[int(i)] for i in np.asarray(indices, dtype=np.int64)])
        import pyarrow as pa

        return Names(self._arr.take(pa.array(np.asarray(indices, dtype=np.int64))))


@dataclass(frozen=True)
class DetectorRate:
    """One detector's positives over the units it rated.

    >>> DetectorRate("detector-a", 3, 12).rate
    Fraction(1, 4)
    """

    detector: str
    positives: int
    total: int

    @property
    def rate(self) -> Fraction:
        return Fraction(self.positives, self.total) if self.total else Fraction(0)


@dataclass(frozen=True, eq=False)
class RatingPanel:
    """One dimension's ratings: which unit, which rater, which value; sparse (missing cells have
    no entry), so a long file with many raters never becomes a dense units x raters matrix.

    ``kind`` is "integer" (every value a whole number), "decimal" or "label" (text categories:
    nominal only). Raters named ``human...`` are human raters; the others are the independent
    detectors the enforcement decision counts.
    """

    file: str
    dimension: str
    units: Sequence[str]  # Names (a pyarrow-backed sequence) from files, any sequence otherwise
    raters: tuple[str, ...]
    coded: Coded
    kind: str
    records: np.ndarray  # per rating: the data row (0-based) of the table it came from
    table: RowLocator | None = None  # the source table's locator (agreebound.io.tables.Table)
    value_column: str | None = None  # long format: the value column; wide: each rater's column
    label_mask: np.ndarray | None = None  # per category: a label (not a number), for label panels
    notices: tuple[str, ...] = ()
    column_is_unit: bool = False  # raters x units: a cell's column is its unit's, not its rater's
    #: The human raters as chosen (a mapping's humans); None: by name (see :attr:`humans`).
    human_names: tuple[str, ...] | None = None

    @cached_property
    def humans(self) -> tuple[str, ...]:
        """Raters that are people, not independent detectors: the chosen ones, or by default the
        raters whose names start with "human" -- unless every rater's does (a study of human
        coders), when every rater counts as independent."""
        if self.human_names is not None:
            return self.human_names
        named = tuple(r for r in self.raters if r.lower().startswith(HUMAN_PREFIX))
        return () if len(named) == len(self.raters) else named

    @cached_property
    def detectors(self) -> tuple[str, ...]:
        humans = set(self.humans)
        return tuple(r for r in self.raters if r not in humans)

    @property
    def n_ratings(self) -> int:
        return self.coded.n_ratings

    @property
    def categories(self) -> Categories:
        return self.coded.categories

    def locate(self, rating: int) -> tuple[int | None, str | None]:
        """(source row, column) of rating number ``rating``."""
        row = self.table.row_of(int(self.records[rating])) if self.table is not None else None
        if self.value_column is not None:
            return row, self.value_column
        if self.column_is_unit:
            return row, self.units[int(self.coded.unit[rating])]
        return row, self.raters[int(self.coded.rater[rating])]

    def _first_where(self, mask_by_code: np.ndarray) -> tuple[int | None, str | None]:
        return self.locate(self._first_rating(mask_by_code))

    def _first_rating(self, mask_by_code: np.ndarray) -> int:
        """The rating, first in the file, whose category the mask marks."""
        hits = np.flatnonzero(mask_by_code[self.coded.code])
        return int(hits[np.argmin(self.records[hits])]) if len(hits) else 0

    def ratings(self, level: Level = "nominal") -> Coded:
        """The coded ratings for alpha at ``level``; a level the values cannot take is a located
        InputError (labels at a numeric level, negative values at the ratio level)."""
        cats = self.coded.categories
        if level != "nominal" and self.kind == "label":
            row, column = self._first_where(self.label_mask if self.label_mask is not None
                                            else np.ones(len(cats), dtype=bool))
            raise InputError(self.file, row, column,
                             f"{level} alpha needs numeric values; this panel has labels (first: this cell). "
                             "Use the nominal level, or number the categories")
        if level == "ratio":
            floats = cats.floats
            negative = floats < 0
            if negative.any():
                rating = self._first_rating(negative)
                row, column = self.locate(rating)
                code = int(self.coded.code[rating])
                raise InputError(self.file, row, column,
                                 f"ratio alpha needs values >= 0 (a ratio scale has a true zero); this cell holds "
                                 f"{printable(cats.first(code + 1)[-1])}. Use the interval level")
            if len(cats) > RATIO_MAX_CATEGORIES:
                raise InputError(self.file, None, self.value_column,
                                 f"ratio alpha is computed exactly for at most {RATIO_MAX_CATEGORIES} distinct values "
                                 f"(each pair of values has its own denominator); dimension {self.dimension!r} has "
                                 f"{len(cats):,}. Use the interval level, or group the values")
        return self.coded

    def category_index(self, positive: Value) -> int | None:
        return category_index(self.coded.categories, positive)

    def matrix(self, units: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """A dense units x raters object matrix (None missing) of the given units (all by default)."""
        rows = np.arange(len(self.units)) if units is None else np.asarray(units, dtype=np.int64)
        pos = {int(u): i for i, u in enumerate(rows)}
        out = np.full((len(rows), len(self.raters)), None, dtype=object)
        values = self.coded.categories.values
        sel = np.flatnonzero(np.isin(self.coded.unit, rows))
        for i in sel:
            out[pos[int(self.coded.unit[i])], int(self.coded.rater[i])] = values[int(self.coded.code[i])]
        return out


def category_texts(cats: Categories) -> list[str]:
    """How each category is written: labels as they are, numbers as their shortest decimal.

    >>> category_texts(Categories(floats=np.array([0.5, 1.0, 1e20])))
    ['0.5', '1', '100000000000000000000']
    """
    out = []
    for v in cats.values:
        if isinstance(v, Fraction):
            out.append(_decimal_text(v))
        else:
            out.append(str(v))
    return out


def _decimal_text(v: Fraction) -> str:
    f = float(v)
    text = repr(f)
    if "e" in text or "E" in text:
        return str(v)
    return text


def category_index(categories: Categories, positive: Value) -> int | None:
    """The index of the category ``positive`` names: a category value, or its text.

    >>> cats = Categories(floats=np.array([0.0, 1.0]))
    >>> category_index(cats, 1), category_index(cats, "1"), category_index(cats, "yes")
    (1, 1, None)
    """
    if positive is None:
        return None
    if isinstance(positive, str):
        for i, v in enumerate(category_texts(categories)):
            if v == positive:
                return i
        return None
    for i, value in enumerate(categories.values):
        if value == positive and type(value) is not str:
            return i
    return None
