"""Bytes -> the core's inputs, strictly; or one :class:`InputError` naming file, row and column.

Formats (documented with examples in docs/formats.md):

* rating matrix, wide CSV: ``unit,<rater>,<rater>,...``; one row per unit
* rating matrix, long CSV or Parquet: ``unit,rater,value`` and optionally ``dimension``
* detector rates CSV: ``detector,positives,total`` and optionally ``dimension``
* judge bundle JSON ``{"contract": {...}, "snapshot": {...}}``, or the tabular trio
  (contract JSON + references CSV + observations CSV)
* thresholds, JSON or TOML

Values are read exactly: whole numbers and decimals (at most 15 significant digits) are numbers,
one documented set of spellings is missing (:data:`agreebound.io.tables.MISSING_TOKENS`), anything
else is a label. Names (units, raters, dimensions, headers) are compared after trimming
surrounding spaces and removing invisible characters; a name with a control character is refused.
A repeated rating is an error, never collapsed. Limits (``agreebound.limits``) are checked first.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import pandas as pd

from agreebound.calibration import (
    OBSERVATION_FIELDS,
    REFERENCE_FIELDS,
    CalibrationMeasurement,
    FrameError,
    JudgeCalibrationContract,
    measure_frames,
)
from agreebound.errors import InputError
from agreebound.escape import excerpt, has_unsafe, normalise_name, printable
from agreebound.limits import (
    MAX_COUNT_DIGITS,
    MAX_NAME_CHARS,
    MAX_NESTING,
    MAX_LABELS,
    MAX_RATERS,
    MAX_SIGNIFICANT_DIGITS,
    RATIO_MAX_CATEGORIES,
)
from agreebound.panel import Categories, Coded
from agreebound.io.tables import (
    MISSING_TOKENS,
    Column,
    Table,
    decode_text,
    read_csv,
    read_parquet,
    require_columns,
)
from agreebound.thresholds import PRESETS, ThresholdError, ThresholdSet, threshold_set_from_dict

__all__ = ["InputError", "RatingPanel", "DetectorRate", "JudgeBundle", "ThresholdFile", "MISSING_TOKENS",
           "parse_ratings", "parse_detector_rates", "parse_judge_bundle", "parse_judge_tables", "parse_thresholds"]

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
#: Scientific notation (numpy's savetxt, R, spreadsheets): 1e3, 2.5E-02, 1.000000000000000000e+00.
_SCIENTIFIC = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?[eE][+-]?[0-9]{1,4}")
WIDE_HELP = "a wide rating CSV with the header unit,<rater>,<rater>,..."
LONG_COLUMNS = ("unit", "rater", "value")
RATES_COLUMNS = ("detector", "positives", "total")
HUMAN_PREFIX = "human"
RATINGS_EXPECTED = WIDE_HELP + ", or a long CSV with unit,rater,value[,dimension]"


def is_parquet(data: bytes) -> bool:
    return data[:4] == b"PAR1"


# --- values: missing, numbers, labels ----------------------------------------------------------


def _significant_digits(text: str) -> int:
    text = re.split("[eE]", text, maxsplit=1)[0]
    whole, _, frac = text.lstrip("-").partition(".")
    digits = (whole + frac.rstrip("0")).lstrip("0")
    if not frac.rstrip("0"):
        digits = digits.rstrip("0") or digits  # trailing zeros of a whole number are its magnitude
    return len(digits)


def _float_round_trips(text: str, f: float) -> bool:
    """The text is exactly the float's shortest round-trip decimal (what pandas, numpy and R write
    for a float: 3.0000000000000004), so reading it as that float loses nothing."""
    from decimal import Decimal, InvalidOperation

    try:
        return Decimal(text) == Decimal(repr(f))
    except InvalidOperation:
        return False


def _too_many_digits(text: str) -> str:
    return (f"the number {excerpt(text)} has more than {MAX_SIGNIFICANT_DIGITS} significant digits and is not a "
            "float's shortest form; Agreebound keeps every value exact")


@dataclass(frozen=True)
class ValueKinds:
    """One entry per distinct value of a file's value cells."""

    missing: np.ndarray  # bool
    number: np.ndarray  # bool
    floats: np.ndarray  # float64 (NaN where not a number)
    texts: Any  # each value's text (labels are compared as text): a list, or a pyarrow string array
    decimal: np.ndarray  # bool: a number that is not whole
    normalised_cells: int = 0  # cells whose spaces or invisible characters were removed

    def text(self, indices: np.ndarray) -> list[str]:
        t = self.texts
        if isinstance(t, list):
            return [t[i] for i in indices]
        import pyarrow as pa

        return t.take(pa.array(np.asarray(indices, dtype=np.int64))).to_pylist()

    def __len__(self) -> int:
        return len(self.missing)


# Control and invisible characters (as agreebound.escape), for pyarrow's RE2 (surrogates cannot
# occur in valid UTF-8).
_INVISIBLE_RE2 = (r"\p{Cf}\x{34f}\x{115f}-\x{1160}\x{180b}-\x{180f}\x{2028}-\x{2029}\x{3164}\x{fe00}-\x{fe0f}"
                  r"\x{ffa0}\x{e0100}-\x{e01ef}")
_UNSAFE_RE2 = r"[\x{00}-\x{1f}\x{7f}-\x{9f}" + _INVISIBLE_RE2 + "]"


def _classify_text(arr: Any, extra_missing: Sequence[str] = ()) -> ValueKinds | None:
    """classify_values for a pyarrow string array, vectorised; None when some value needs the
    careful path (a long number, a long or unsafe label), which also finds the first bad one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        return None
    tokens = pa.array(sorted(MISSING_TOKENS | {m.strip() for m in extra_missing}))
    missing = pc.is_in(pc.utf8_trim_whitespace(arr), value_set=tokens).to_numpy(zero_copy_only=False)
    is_int = pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)$").to_numpy(zero_copy_only=False)
    is_dec = pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)\.[0-9]+$").to_numpy(zero_copy_only=False)
    is_sci = pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?[eE][+-]?[0-9]{1,4}$").to_numpy(
        zero_copy_only=False)
    if is_sci.any():
        return None  # the careful path: the exponent's range and the digits checked value by value
    length = pc.utf8_length(arr).to_numpy(zero_copy_only=False)
    number = (is_int | is_dec) & ~missing
    label = ~number & ~missing
    unsafe = pc.match_substring_regex(arr, _UNSAFE_RE2).to_numpy(zero_copy_only=False)
    if (number & (length > MAX_SIGNIFICANT_DIGITS)).any() or (label & ((length > MAX_NAME_CHARS) | unsafe)).any():
        return None  # the careful path: digits counted, and the first bad value located
    floats = np.full(len(arr), np.nan)
    if number.any():
        floats[number] = pc.cast(arr.filter(pa.array(number)), pa.float64()).to_numpy(zero_copy_only=False)
    decimal = is_dec & number & (floats != np.floor(floats))
    return ValueKinds(missing, number, floats, arr, decimal)


def classify_values(uniques: Sequence[Any], extra_missing: Sequence[str] = ()) -> tuple[ValueKinds, tuple[int, str] | None]:
    """Classify distinct values; returns (kinds, (index, reason) of the first bad one or None)."""
    missing_tokens = MISSING_TOKENS | {m.strip() for m in extra_missing}
    n = len(uniques)
    missing = np.zeros(n, dtype=bool)
    number = np.zeros(n, dtype=bool)
    decimal = np.zeros(n, dtype=bool)
    floats = np.full(n, np.nan)
    texts: list[str] = [""] * n
    bad: tuple[int, str] | None = None
    for i, u in enumerate(uniques):
        if u is None:
            missing[i] = True
            continue
        if isinstance(u, bool):
            bad = bad or (i, "a true/false value; expected a number or a label")
            continue
        if isinstance(u, int):
            texts[i] = str(u)
            if texts[i] in missing_tokens:
                missing[i] = True
                continue
            if _significant_digits(texts[i]) > MAX_SIGNIFICANT_DIGITS:
                bad = bad or (i, _too_many_digits(texts[i]))
                continue
            number[i], floats[i] = True, float(u)
            continue
        if isinstance(u, float):
            if u != u:
                missing[i] = True
            elif u in (float("inf"), float("-inf")):
                bad = bad or (i, f"{u} is not a finite number")
            else:
                texts[i] = str(int(u)) if u.is_integer() and abs(u) < 2**53 else repr(u)
                if texts[i] in missing_tokens:
                    missing[i] = True
                    continue
                number[i], floats[i] = True, u
                decimal[i] = not u.is_integer()
            continue
        s = str(u)
        texts[i] = s
        if s.strip() in missing_tokens:
            missing[i] = True
            continue
        if _INT.fullmatch(s) or _DECIMAL.fullmatch(s) or (len(s) <= 64 and _SCIENTIFIC.fullmatch(s)):
            if len(s) > 400:
                bad = bad or (i, _too_many_digits(s))
                continue
            f = float(s)
            if f in (float("inf"), float("-inf")) or (f == 0 and re.split("[eE]", s)[0].strip("-0.")):
                bad = bad or (i, f"the number {excerpt(s)} is beyond the range Agreebound holds exactly")
                continue
            digits = _significant_digits(s)
            subnormal = f != 0 and abs(f) < 2.2250738585072014e-308  # float64 holds fewer digits there
            if (digits > MAX_SIGNIFICANT_DIGITS or subnormal) and not _float_round_trips(s, f):
                bad = bad or (i, _too_many_digits(s) if digits > MAX_SIGNIFICANT_DIGITS else
                              f"the number {excerpt(s)} is beyond the range Agreebound holds exactly")
                continue
            number[i], floats[i] = True, f
            decimal[i] = not f.is_integer()
            continue
        if len(s) > MAX_NAME_CHARS:
            bad = bad or (i, f"a label {len(s):,} characters long; the limit is {MAX_NAME_CHARS:,}")
            continue
        if has_unsafe(s):
            bad = bad or (i, f"the label {excerpt(s)} contains a control or invisible character")
            continue
    return ValueKinds(missing, number, floats, texts, decimal), bad


def name_text(value: Any) -> str:
    """A name cell's text (Parquet ids may be numbers)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return str(value) if not isinstance(value, float) else repr(value)


class Names(Sequence[str]):
    """Names in first-seen order, held as one pyarrow string array: no Python object per name, so
    millions of distinct unit names cost bytes each, not a string object each. Compares equal to a
    tuple or list of the same strings."""

    def __init__(self, arr: Any) -> None:
        self._arr = arr

    def __len__(self) -> int:
        return len(self._arr)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return Names(self._arr[i])
        return self._arr[int(i)].as_py()

    def __iter__(self) -> Any:
        step = 65_536
        for start in range(0, len(self._arr), step):
            yield from self._arr[start:start + step].to_pylist()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names):
            return self._arr.equals(other._arr)
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in self._arr[:5].to_pylist())
        return f"Names([{head}{', ...' if len(self) > 5 else ''}], {len(self):,} names)"

    def take(self, indices: Any) -> "Names":
        import pyarrow as pa

        return Names(self._arr.take(pa.array(np.asarray(indices, dtype=np.int64))))




def _names_need_care(arr: Any) -> bool:
    """False when every name in a pyarrow string array is already normal (vectorised, and without
    copying the names: only the non-ASCII ones are checked for NFC)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        return True
    length = pc.utf8_length(arr)
    if pc.min(length).as_py() == 0 or pc.max(length).as_py() > MAX_NAME_CHARS:
        return True
    if pc.any(pc.match_substring_regex(arr, _UNSAFE_RE2)).as_py():
        return True
    if pc.any(pc.match_substring_regex(arr, r"^[\s\p{Z}]|[\s\p{Z}]$")).as_py():
        return True
    wide = pc.match_substring_regex(arr, r"[^\x{00}-\x{7f}]")
    if pc.any(wide).as_py():
        sub = arr.filter(wide)
        if pc.any(pc.not_equal(pc.utf8_normalize(sub, form="NFC"), sub)).as_py():
            return True
    del pa
    return False


def normalise_names(uniques: Sequence[Any]) -> tuple[list[str], int, tuple[int, str] | None]:
    """Normalised names, how many changed, and (index, reason) of the first unusable one."""
    out: list[str] = []
    changed = 0
    bad: tuple[int, str] | None = None
    for i, u in enumerate(uniques):
        if u is None:
            out.append("")
            bad = bad or (i, "expected a name, the cell is empty")
            continue
        raw = name_text(u)
        if len(raw) > MAX_NAME_CHARS:
            out.append(raw[:MAX_NAME_CHARS])
            bad = bad or (i, f"a name {len(raw):,} characters long; the limit is {MAX_NAME_CHARS:,}")
            continue
        name = normalise_name(raw)
        if name != raw:
            changed += 1
        if not name:
            bad = bad or (i, f"expected a name, got {excerpt(raw)}" if raw else "expected a name, the cell is empty")
        elif has_unsafe(name):
            bad = bad or (i, f"the name {excerpt(name)} contains a control character")
        out.append(name)
    return out, changed, bad


# --- rating panels ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectorRate:
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
    table: Table | None = None
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

    def ratings(self, level: str = "nominal") -> Coded:
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

    def category_index(self, positive: Any) -> int | None:
        return category_index(self.coded.categories, positive)

    def detector_rates(self, positive: Any) -> tuple[DetectorRate, ...]:
        """Each detector's rate of ``positive`` over the units it rated (exact)."""
        k = self.category_index(positive)
        n_r = len(self.raters)
        totals = np.bincount(self.coded.rater, minlength=n_r)
        hits = np.bincount(self.coded.rater[self.coded.code == k], minlength=n_r) if k is not None \
            else np.zeros(n_r, dtype=np.int64)
        humans = set(self.humans)
        return tuple(DetectorRate(r, int(hits[j]), int(totals[j])) for j, r in enumerate(self.raters)
                     if r not in humans)

    def matrix(self, units: Sequence[int] | None = None) -> np.ndarray:
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
    """How each category is written: labels as they are, numbers as their shortest decimal."""
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


def _build_panel(table: Table, dimension: str, unit_names: Any, rater_names: Sequence[str],
                 unit: np.ndarray, rater: np.ndarray, values: np.ndarray, kinds: ValueKinds,
                 records: np.ndarray, value_column: str | None, notices: tuple[str, ...],
                 value_by_unit: bool = False) -> RatingPanel:
    """unit/rater index names; ``values`` are indices into the file's distinct values, missing
    already dropped; ``records`` the rating's data row."""
    used = np.zeros(len(kinds), dtype=bool)
    used[values] = True
    numeric = bool(kinds.number[used].all()) if used.any() else True
    if numeric:
        idx = np.flatnonzero(used)
        fl, inv = np.unique(kinds.floats[idx], return_inverse=True)
        lut = np.full(len(kinds), -1, dtype=np.int32)
        lut[idx] = inv
        cats = Categories(floats=fl)
        kind = "decimal" if kinds.decimal[idx].any() else "integer"
        label_mask = None
    else:
        idx = np.flatnonzero(used)
        if len(idx) > MAX_LABELS:
            raise InputError(table.file, None, value_column, f"{len(idx):,} distinct labels in dimension "
                             f"{excerpt(dimension)}; labels are categories and the limit is {MAX_LABELS:,}")
        texts = kinds.text(idx)
        uniq, inv = np.unique(np.array(texts, dtype=object), return_inverse=True)
        lut = np.full(len(kinds), -1, dtype=np.int32)
        lut[idx] = inv
        cats = Categories(labels=[str(u) for u in uniq])
        kind = "label"
        label_mask = np.zeros(len(uniq), dtype=bool)
        label_mask[inv[~kinds.number[idx]]] = True
    coded = Coded(unit.astype(np.int32, copy=False), rater.astype(np.int32, copy=False), lut[values],
                  len(unit_names), len(rater_names), cats)
    return RatingPanel(table.file, dimension, unit_names, tuple(rater_names), coded, kind,
                       records.astype(np.int32, copy=False), table.locator(), value_column, label_mask, notices,
                       value_by_unit)


def read_table(name: str, data: bytes, expected: str = RATINGS_EXPECTED) -> Table:
    return read_parquet(name, data) if is_parquet(data) else read_csv(name, data, expected)


@dataclass(frozen=True, eq=False)
class Imported:
    """A rating file read through a mapping: the panels, the mapping used, and what was said."""

    panels: dict[str, "RatingPanel"]
    mapping: Any  # agreebound.io.mapping.Mapping
    format: str
    reasons: tuple[str, ...]  # how the layout and roles were chosen
    notices: tuple[str, ...]  # what was read differently from plain UTF-8 CSV, and normalised
    #: The data rows read (after the header, rows of empty cells left out), what a row is called
    #: (row, line, record, task) and the first and last of them as the file numbers them: said in
    #: every report, so what was read can be held against the file.
    rows_read: int = 0
    row_label: str = "row"
    row_span: tuple[int, int] | None = None
    source_rows: int = 0  # distinct rows of the file they came from (an export's task gives several)


def import_ratings(name: str, data: bytes, mapping: Any = None, sheet: str | None = None,
                   missing: Sequence[str] | None = None) -> Imported:
    """Any supported rating file -> panels, through ``mapping`` or the suggested one; ``sheet``
    and ``missing`` adjust either."""
    from agreebound.io.detect import suggest
    from agreebound.io.mapping import Mapping
    from agreebound.io.readers import read_source

    source = read_source(name, data, mapping if mapping is not None else
                         (Mapping("wide", sheet=sheet) if sheet else None))
    if mapping is None:
        suggestion = suggest(source.table, source.mapping)
        mapping, reasons = suggestion.mapping, suggestion.reasons
        if sheet:
            mapping = mapping.with_(sheet=sheet)
        if not mapping.header:
            source = read_source(name, data, mapping)
    else:
        reasons = ("the mapping given",)
    if missing:
        mapping = mapping.with_(missing=tuple(missing))
    panels = build_panels(source.table, mapping, source.notices)
    t = source.table
    span = (t.row_of(0), t.row_of(t.n_rows - 1)) if t.n_rows else None
    distinct = len(np.unique(t.source_rows)) if t.source_rows is not None else t.n_rows
    return Imported(panels, mapping, source.format, tuple(reasons), source.notices, t.n_rows, t.row_label, span,
                    distinct)


def category_index(categories: Categories, positive: Any) -> int | None:
    """The index of the category ``positive`` names: a category value, or its text."""
    if positive is None:
        return None
    if isinstance(positive, str):
        for i, v in enumerate(category_texts(categories)):
            if v == positive:
                return i
        return None
    for i, v in enumerate(categories.values):
        if v == positive and type(v) is not str:
            return i
    return None


def read_source_mapping(name: str, data: bytes) -> Any:
    """The mapping the reader suggests for ``data`` (a file's head), without building panels."""
    from agreebound.io.detect import suggest
    from agreebound.io.readers import read_source

    source = read_source(name, data, None)
    return suggest(source.table, source.mapping).mapping


def parse_mapping(name: str, data: bytes) -> Any:
    """A mapping file (JSON or TOML) -> Mapping, or an InputError naming the key."""
    from agreebound.io.mapping import Mapping

    text = decode_text(name, data, "a mapping file (JSON or TOML)")
    obj = _json(name, data) if text.lstrip().startswith("{") else _toml(name, data)
    try:
        return Mapping.from_dict(obj)
    except (ValueError, TypeError) as e:
        from dataclasses import fields as _fields

        known = {f.name for f in _fields(Mapping)}
        key = re.match(r"(?:unknown key |missing key )'(\w+)'", str(e)) or re.match(r"(\w+) must be", str(e))
        column = key.group(1) if key and (key.group(1) in known or str(e).startswith("unknown key")) else None
        raise InputError(name, None, column, str(e)) from None


def assign_roles(panels: dict[str, "RatingPanel"], humans: Sequence[str] | None = None,
                 detectors: Sequence[str] | None = None) -> None:
    """Say which raters are human (``humans``) or independent detectors (``detectors``, the rest
    human). A name that is not a rater anywhere is an InputError listing the raters."""
    if humans is None and detectors is None:
        return
    everyone = {r for p in panels.values() for r in p.raters}
    for given, what in ((humans, "--humans"), (detectors, "--detectors")):
        for name in given or ():
            if name not in everyone:
                shown = ", ".join(excerpt(r) for r in sorted(everyone)[:20])
                raise InputError(what, None, None, f"{excerpt(name)} is not a rater; the raters are {shown}")
    for p in panels.values():
        if detectors is not None:
            chosen = tuple(r for r in p.raters if r not in set(detectors))
        else:
            chosen = tuple(r for r in p.raters if r in set(humans or ()))
        object.__setattr__(p, "human_names", chosen)
        p.__dict__.pop("humans", None)
        p.__dict__.pop("detectors", None)


def parse_ratings(name: str, data: bytes, mapping: Any = None) -> dict[str, RatingPanel]:
    """A rating file (CSV/TSV, Parquet, Excel, JSON Lines, annotation exports) -> one panel per
    dimension, read through ``mapping`` or the suggested one."""
    return import_ratings(name, data, mapping).panels


def _checked_header(table: Table) -> list[str]:
    """Normalised header names (an unnamed column is "column N"); unusable or, after normalising,
    repeated ones are errors."""
    raw = [c.name for c in table.columns]
    if all(not (h or "").strip() for h in raw):
        raise InputError(table.file, 1, None, f"the header line is empty; expected {RATINGS_EXPECTED}")
    from agreebound.io.detect import header_names

    filled = header_names(table)
    names, _, bad = normalise_names(filled)
    if bad is not None:
        i, reason = bad
        raise InputError(table.file, 1, raw[i], reason)
    seen: dict[str, int] = {}
    for i, h in enumerate(names):
        if h in seen:
            first = raw[seen[h]]
            also = "" if first == raw[i] else f" (the same name as column {seen[h] + 1}, {excerpt(first)}, once "\
                                                "spaces and invisible characters are removed)"
            raise InputError(table.file, 1, raw[i], "duplicate column header" + also + "; every column needs its own name")
        seen[h] = i
    return names


def _names_column(table: Table, col: Column, label: str) -> tuple[np.ndarray, Names, int]:
    """A column of names: codes into normalised distinct names (merged where normalising makes
    two spellings one), the names, and how many spellings were normalised. Vectorised: Python
    only touches the first bad name, to say what is wrong with it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if (col.codes < 0).any():
        raise InputError(table.file, table.row_of(int(np.flatnonzero(col.codes < 0)[0])), label,
                         "expected a name, the cell is empty")
    arr = col.text
    if arr is None:  # Parquet ids typed as numbers
        arr = pa.array([name_text(u) for u in col.uniques], pa.string())
    changed = 0
    if _names_need_care(arr):
        norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + _INVISIBLE_RE2 + "]", ""),
                                                          form="NFC"))
        changed = int(pc.sum(pc.not_equal(norm, arr)).as_py() or 0)
        length = pc.utf8_length(norm).to_numpy(zero_copy_only=False)
        raw_length = pc.utf8_length(arr).to_numpy(zero_copy_only=False)
        bad = (length == 0) | (raw_length > MAX_NAME_CHARS) | \
            pc.match_substring_regex(norm, _UNSAFE_RE2).to_numpy(zero_copy_only=False)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _, _, reason = normalise_names([arr[i].as_py()])
            row = table.row_of(int(np.flatnonzero(col.codes == i)[0]))
            raise InputError(table.file, row, label, reason[1] if reason else "expected a name")
        arr = norm
    else:  # a column's distinct values are distinct already: no new dictionary, no copy
        return col.codes, Names(arr), 0
    encoded = pc.dictionary_encode(arr)
    remap = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    return remap[col.codes], Names(encoded.dictionary), changed


def _changed_cells(changed: np.ndarray, per: Sequence[np.ndarray]) -> int:
    flag = np.append(changed, False)
    return int(sum(int(flag[codes].sum()) for codes in per))


def _normalise_value_text(arr: Any, per: list[np.ndarray]) -> tuple[Any, list[np.ndarray], int]:
    """Values compared as names are: surrounding spaces and invisible characters removed, NFC.
    Spellings that become one are merged; returns the new dictionary, codes, and cells changed."""
    import pyarrow.compute as pc

    if not _names_need_care(arr) and not pc.any(pc.equal(pc.utf8_length(arr), 0)).as_py():
        return arr, per, 0
    norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + _INVISIBLE_RE2 + "]", ""),
                                                      form="NFC"))
    changed = pc.not_equal(norm, arr).to_numpy(zero_copy_only=False)
    if not changed.any():
        return arr, per, 0
    count = _changed_cells(changed, per)
    encoded = pc.dictionary_encode(norm)
    lut = np.append(encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32), np.int32(-1))
    return encoded.dictionary, [lut[codes] for codes in per], count


def _normalise_value_list(values: list[Any], per: list[np.ndarray]) -> tuple[list[Any], list[np.ndarray], int]:
    """:func:`_normalise_value_text` for a list of typed values (only text changes)."""
    norm = [normalise_name(v) if isinstance(v, str) else v for v in values]
    changed = np.array([a != b for a, b in zip(norm, values)], dtype=bool)
    if not changed.any():
        return values, per, 0
    count = _changed_cells(changed, per)
    index: dict[Any, int] = {}
    lut = np.empty(len(norm) + 1, dtype=np.int32)
    lut[-1] = -1
    merged: list[Any] = []
    for i, v in enumerate(norm):
        key = (type(v).__name__, v)
        if key not in index:
            index[key] = len(merged)
            merged.append(v)
        lut[i] = index[key]
    return merged, [lut[codes] for codes in per], count


def _decimal_comma_text(arr: Any, per: list[np.ndarray]) -> tuple[Any, list[np.ndarray]]:
    """1,5 -> 1.5 in a dictionary of value texts (spellings that become one are merged)."""
    import pyarrow.compute as pc

    dotted = pc.replace_substring_regex(arr, pattern=r"^(-?\d+),(\d+)$", replacement=r"\1.\2")
    encoded = pc.dictionary_encode(dotted)
    lut = np.append(encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32), np.int32(-1))
    return encoded.dictionary, [lut[codes] for codes in per]


def _values_column(table: Table, cols: Sequence[Column], label_of: Sequence[str],
                   missing: Sequence[str] = (), decimal: str = ".") -> tuple[list[np.ndarray], ValueKinds]:
    """Value columns on one shared list of distinct values; the first bad value is located.
    ``decimal=","``: 1,5 is the number 1.5 (a European spreadsheet's CSV)."""
    texts = [c.text for c in cols]
    kinds: ValueKinds | None = None
    bad: tuple[int, str] | None = None
    if all(t is not None for t in texts):
        import pyarrow as pa
        import pyarrow.compute as pc

        if len(cols) == 1:
            shared_arr, per = texts[0], [cols[0].codes]
        else:  # one shared dictionary: encode the columns' dictionaries together
            joined = pc.dictionary_encode(pa.concat_arrays([t.cast(pa.string()) for t in texts]))
            shared_arr = joined.dictionary
            luts = np.append(joined.indices.to_numpy(zero_copy_only=False).astype(np.int32), np.int32(-1))
            per, start = [], 0
            for c, t in zip(cols, texts):
                lut = np.append(luts[start:start + len(t)], np.int32(-1))
                per.append(lut[c.codes])
                start += len(t)
        shared_arr, per, changed = _normalise_value_text(shared_arr, per)
        if decimal == ",":
            shared_arr, per = _decimal_comma_text(shared_arr, per)
        kinds = _classify_text(shared_arr, missing)
        shared = shared_arr
    else:
        if len(cols) == 1:
            shared, per = list(cols[0].uniques), [cols[0].codes]
        else:
            keys: dict[Any, int] = {}
            shared = []
            per = []
            for c in cols:
                lut = np.empty(len(c.uniques) + 1, dtype=np.int32)
                lut[-1] = -1
                for j, u in enumerate(c.uniques):
                    key = (type(u).__name__, u)
                    if key not in keys:
                        keys[key] = len(shared)
                        shared.append(u)
                    lut[j] = keys[key]
                per.append(lut[c.codes])
        shared, per, changed = _normalise_value_list(shared, per)
        if decimal == ",":
            shared = [re.sub(r"^(-?\d+),(\d+)$", r"\1.\2", v) if isinstance(v, str) else v for v in shared]
    if kinds is None:
        kinds, bad = classify_values(shared if isinstance(shared, list) else shared.to_pylist(), missing)
    object.__setattr__(kinds, "normalised_cells", changed)
    if bad is not None:
        g, reason = bad
        best = None
        for j, codes in enumerate(per):
            hit = np.flatnonzero(codes == g)
            if len(hit) and (best is None or hit[0] < best[0]):
                best = (int(hit[0]), j)
        assert best is not None
        raise InputError(table.file, table.row_of(best[0]), label_of[best[1]], reason)
    return [np.asarray(p, dtype=np.int32) for p in per], kinds


def _cells_notice(kinds: ValueKinds) -> tuple[str, ...]:
    n = kinds.normalised_cells
    return (f"{n:,} cell{'s' if n != 1 else ''} had surrounding spaces or invisible characters (removed; "
            "' 1' is the number 1)",) if n else ()


def _notice(count: int, what: str) -> tuple[str, ...]:
    if not count:
        return ()
    return (f"{count} {what} normalised (surrounding spaces or invisible characters removed)",)


def _pick(table: Table, header: list[str], name: str | None, role: str) -> Column:
    if name is None or name not in header:
        have = ", ".join(repr(h) for h in header[:20]) + (", ..." if len(header) > 20 else "")
        raise InputError(table.file, 1, name, f"the mapping names {name!r} as the {role} column, but the file's "
                         f"columns are {have}")
    return table.columns[header.index(name)]


def _joined(table: Table, cols: Sequence[Column]) -> Column:
    """Several id columns as one: each row's values joined with " | " (a MultiIndex, doc + sentence)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from agreebound.io.mapping import UNIT_JOIN

    parts = []
    for c in cols:
        text = c.text if c.text is not None else pa.array([name_text(u) for u in c.uniques], pa.string())
        codes = pa.array(c.codes, pa.int32())
        parts.append(text.take(pc.if_else(pc.less(codes, 0), pa.scalar(None, pa.int32()), codes)))
    joined = pc.binary_join_element_wise(*parts, UNIT_JOIN, null_handling="replace", null_replacement="")
    encoded = pc.dictionary_encode(joined)
    return Column(" + ".join(c.name for c in cols), encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32),
                  encoded.dictionary)


def _row_units(n: int) -> tuple[np.ndarray, Names]:
    """Units that are simply the rows, named "unit 1", "unit 2", ... in file order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    numbers = pa.array(np.arange(1, n + 1)).cast(pa.string())
    return np.arange(n, dtype=np.int32), Names(pc.binary_join_element_wise("unit", numbers, " "))


def build_panels(table: Table, mapping: Any, notices: Sequence[str] = ()) -> dict[str, RatingPanel]:
    """A table read through a mapping -> one panel per dimension."""
    header = _checked_header(table)
    renamed = sum(1 for c, h in zip(table.columns, header) if (c.name or "").strip() and c.name != h)
    notes = tuple(notices) + _notice(renamed, "column headers")
    missing = tuple(mapping.missing)
    if mapping.layout == "long":
        panels = _long_panels(table, header, mapping, notes, missing)
    elif mapping.layout == "transposed":
        panels = {"all": _transposed_panel(table, header, mapping, notes, missing)}
    else:
        panels = {"all": _wide_panel(table, header, mapping, notes, missing)}
    if mapping.humans is not None:
        assign_roles(panels, humans=mapping.humans)
    return panels


def _wide_panel(table: Table, header: list[str], mapping: Any, notes: tuple[str, ...],
                missing: tuple[str, ...]) -> RatingPanel:
    ids = [_pick(table, header, u, "unit") for u in mapping.unit]
    ignore = set(mapping.ignore) | set(mapping.unit)
    for col in mapping.ignore:
        _pick(table, header, col, "ignored")
    raters = list(mapping.raters) if mapping.raters is not None else [h for h in header if h not in ignore]
    for r in raters:
        _pick(table, header, r, "rater")
    if not raters:
        raise InputError(table.file, 1, None, "no rater columns: " + WIDE_HELP)
    if len(raters) > MAX_RATERS:
        raise InputError(table.file, 1, None, f"{len(raters):,} rater columns; the limit is {MAX_RATERS:,}")
    changed_units = 0
    if ids:
        unit_col = ids[0] if len(ids) == 1 else _joined(table, ids)
        label = mapping.unit[0] if len(ids) == 1 else " + ".join(mapping.unit)
        unit_codes, unit_names, changed_units = _names_column(table, unit_col, label)
        if len(unit_names) != len(unit_codes):
            dup = pd.Series(unit_codes).duplicated().to_numpy()
            i = int(np.flatnonzero(dup)[0])
            first = int(np.flatnonzero(unit_codes == unit_codes[i])[0])
            raise InputError(table.file, table.row_of(i), label, f"unit {excerpt(unit_names[unit_codes[i]])} appears "
                             f"again (first at row {table.row_of(first)}); one row per unit")
    else:
        unit_codes, unit_names = _row_units(table.n_rows)
    cols = [table.columns[header.index(r)] for r in raters]
    per, kinds = _values_column(table, cols, [c.name for c in cols], missing, mapping.decimal)
    units, raters_idx, values, records = [], [], [], []
    for j, codes in enumerate(per):
        keep = np.flatnonzero((codes >= 0) & ~np.append(kinds.missing, True)[codes]).astype(np.int32)
        units.append(unit_codes[keep])
        raters_idx.append(np.full(len(keep), j, dtype=np.int32))
        values.append(codes[keep])
        records.append(keep)
    order = np.concatenate(records) if records else np.zeros(0, dtype=np.int64)
    return _build_panel(table, "all", unit_names, raters, np.concatenate(units), np.concatenate(raters_idx),
                        np.concatenate(values), kinds, order, None,
                        notes + _notice(changed_units, "unit names") + _cells_notice(kinds))


def _transposed_panel(table: Table, header: list[str], mapping: Any, notes: tuple[str, ...],
                      missing: tuple[str, ...]) -> RatingPanel:
    """One row per rater, one column per unit."""
    ignore = set(mapping.ignore)
    if mapping.rater is not None:
        rater_col = _pick(table, header, mapping.rater, "rater")
        rater_codes, rater_arr, changed = _names_column(table, rater_col, mapping.rater)
        if len(rater_arr) != len(rater_codes):
            dup = pd.Series(rater_codes).duplicated().to_numpy()
            i = int(np.flatnonzero(dup)[0])
            raise InputError(table.file, table.row_of(i), mapping.rater, f"rater {excerpt(rater_arr[rater_codes[i]])} "
                             "appears again; one row per rater")
        rater_names = list(rater_arr)
        ignore.add(mapping.rater)
    else:
        rater_codes = np.arange(table.n_rows, dtype=np.int32)
        rater_names, changed = [f"rater {i + 1}" for i in range(table.n_rows)], 0
    if len(rater_names) > MAX_RATERS:
        raise InputError(table.file, None, None, f"{len(rater_names):,} raters (rows); the limit is {MAX_RATERS:,}")
    unit_names = [h for h in header if h not in ignore]
    if not unit_names:
        raise InputError(table.file, 1, None, "no unit columns: a raters x units file has a column per unit")
    cols = [table.columns[header.index(u)] for u in unit_names]
    per, kinds = _values_column(table, cols, [c.name for c in cols], missing, mapping.decimal)
    units, raters_idx, values, records = [], [], [], []
    for j, codes in enumerate(per):
        keep = np.flatnonzero((codes >= 0) & ~np.append(kinds.missing, True)[codes]).astype(np.int32)
        units.append(np.full(len(keep), j, dtype=np.int32))
        raters_idx.append(rater_codes[keep])
        values.append(codes[keep])
        records.append(keep)
    import pyarrow as pa

    shown_units = Names(pa.array(unit_names if mapping.header else [f"unit {i + 1}" for i in range(len(unit_names))],
                                 pa.string()))
    return _build_panel(table, "all", shown_units, rater_names, np.concatenate(units), np.concatenate(raters_idx),
                        np.concatenate(values), kinds, np.concatenate(records), None,
                        notes + _notice(changed, "rater names") + _cells_notice(kinds), value_by_unit=True)


def _long_panels(table: Table, header: list[str], mapping: Any, notes: tuple[str, ...],
                 missing: tuple[str, ...]) -> dict[str, RatingPanel]:
    ids = [_pick(table, header, u, "unit") for u in mapping.unit]
    rater_col = _pick(table, header, mapping.rater, "rater")
    value_col = _pick(table, header, mapping.value, "value")
    unit_col = ids[0] if len(ids) == 1 else _joined(table, ids)
    unit_label = mapping.unit[0] if len(ids) == 1 else " + ".join(mapping.unit)
    unit_all, unit_names_all, cu = _names_column(table, unit_col, unit_label)
    rater_all, rater_arr, cr = _names_column(table, rater_col, mapping.rater)
    if len(rater_arr) > MAX_RATERS:
        raise InputError(table.file, None, mapping.rater, f"{len(rater_arr):,} distinct raters; the limit is "
                         f"{MAX_RATERS:,} (is the rater column really the rater?)")
    rater_names_all = list(rater_arr)
    if mapping.dimension is not None:
        dim_col = _pick(table, header, mapping.dimension, "dimension")
        dim_all, dim_arr, cd = _names_column(table, dim_col, mapping.dimension)
        dim_names = list(dim_arr)
    else:
        dim_all, dim_names, cd = np.zeros(table.n_rows, dtype=np.int32), ["all"], 0
    (values_all,), kinds = _values_column(table, [value_col], [mapping.value], missing, mapping.decimal)
    # each (dimension, unit, rater) once
    dup = _first_duplicate([dim_all, unit_all, rater_all], [len(dim_names), len(unit_names_all), len(rater_names_all)])
    if dup is not None:
        first, i = dup
        raise InputError(table.file, table.row_of(i), mapping.rater,
                         f"rater {excerpt(rater_names_all[rater_all[i]])} rated unit "
                         f"{excerpt(unit_names_all[unit_all[i]])} again (first at row {table.row_of(first)}); "
                         "each (dimension, unit, rater) once")
    present = (values_all >= 0) & ~np.append(kinds.missing, True)[values_all]
    used = {mapping.rater, mapping.value, mapping.dimension, *mapping.unit}
    others = [h for h in header if h not in used]
    extra = (f"ignored columns: {', '.join(excerpt(h) for h in others[:10])}",) if others else ()
    notices = notes + extra + _notice(cu, "unit names") + _notice(cr, "rater names") + _notice(cd, "dimension names") \
        + _cells_notice(kinds)
    panels: dict[str, RatingPanel] = {}
    if len(dim_names) == 1:  # the common case: no split, the codes are compact already
        keep = np.flatnonzero(present).astype(np.int32)
        panels[dim_names[0]] = _build_panel(table, dim_names[0], unit_names_all, rater_names_all, unit_all[keep],
                                            rater_all[keep], values_all[keep], kinds, keep, mapping.value, notices)
        return panels
    by_dim = np.argsort(dim_all, kind="stable").astype(np.int32)
    bounds = np.searchsorted(dim_all[by_dim], np.arange(len(dim_names) + 1))
    for k, dim in enumerate(dim_names):
        rows = by_dim[bounds[k]:bounds[k + 1]]
        u_codes, u_names = _compact_index(unit_all[rows], unit_names_all)
        r_codes, r_names = _compact_index(rater_all[rows], rater_names_all)
        keep = present[rows]
        panels[dim] = _build_panel(table, dim, u_names, r_names, u_codes[keep], r_codes[keep],
                                   values_all[rows][keep], kinds, rows[keep], mapping.value, notices)
    return panels


def _first_duplicate(codes: list[np.ndarray], sizes: list[int]) -> tuple[int, int] | None:
    """(first row, repeating row) of the earliest repeated combination of codes, or None.

    The check is a count (or one sort) of combined keys; rows are found only when there is a repeat.
    """
    n = len(codes[0])
    total = 1
    for size in sizes:
        total *= max(size, 1)
    if total < 2**62:
        key = np.zeros(n, dtype=np.int64)
        for c, size in zip(codes, sizes):
            key *= max(size, 1)
            key += c
        if total <= 4 * n + 1_000_000:
            repeated = np.bincount(key, minlength=total).max(initial=0) > 1
        else:
            repeated = len(np.unique(key)) < n
        if not repeated:
            return None
        order = np.argsort(key, kind="stable")
        same = key[order][1:] == key[order][:-1]
    else:
        order = np.lexsort(codes[::-1])
        same = np.logical_and.reduce([c[order][1:] == c[order][:-1] for c in codes])
    at = np.flatnonzero(same)
    if not len(at):
        return None
    seconds = order[at + 1]
    j = int(np.argmin(seconds))
    i = int(seconds[j])
    k = int(at[j])  # walk back over the equal run to its first row
    while k > 0 and same[k - 1]:
        k -= 1
    return int(order[k:at[j] + 2].min()), i


def _compact_index(codes: np.ndarray, names: Any) -> tuple[np.ndarray, Any]:
    """Renumber the codes a subset uses, in order of first appearance."""
    if len(codes) == 0:
        return codes, names[:0]
    uniq, first = np.unique(codes, return_index=True)
    order = uniq[np.argsort(first, kind="stable")]
    lut = np.full(len(names), -1, dtype=np.int32)
    lut[order] = np.arange(len(order))
    picked = names.take(order) if isinstance(names, Names) else [names[i] for i in order]
    return lut[codes], picked


# --- detector rates --------------------------------------------------------------------------


def _whole(name: str, row: int, column: str, cell: Any, minimum: int | None = None, maximum: int | None = None,
           digits: int = MAX_COUNT_DIGITS) -> int:
    if isinstance(cell, bool) or not isinstance(cell, (int, str)):
        raise InputError(name, row, column, f"expected a whole number like 3, got {excerpt(cell)}")
    text = str(cell)
    if len(text) > digits + 1 or not _INT.fullmatch(text):
        if _INT.fullmatch(text[: digits + 2]) and text.lstrip("-").isdigit():
            raise InputError(name, row, column, f"a whole number with {len(text.lstrip('-')):,} digits; "
                             f"counts have at most {digits}")
        raise InputError(name, row, column, f"expected a whole number like 3, got {excerpt(text)}")
    value = int(text)
    if minimum is not None and value < minimum:
        raise InputError(name, row, column, f"expected a whole number >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InputError(name, row, column, f"expected a whole number <= {maximum}, got {value}")
    return value


def parse_detector_rates(name: str, data: bytes) -> dict[str, tuple[DetectorRate, ...]]:
    """detector,positives,total[,dimension] -> rates per dimension ("all" when none given)."""
    expected = "a CSV with the header detector,positives,total[,dimension]"
    table = read_csv(name, data, expected)
    header = _checked_header_plain(table, expected)
    require_columns(_renamed(table, header), RATES_COLUMNS, ("dimension",))
    at = {h: table.columns[i] for i, h in enumerate(header)}
    det_codes, det_names, _ = _names_column(table, at["detector"], "detector")
    if "dimension" in at:
        dim_codes, dim_names, _ = _names_column(table, at["dimension"], "dimension")
    else:
        dim_codes, dim_names = np.zeros(table.n_rows, dtype=np.int64), ["all"]
    pos = at["positives"].values()
    tot = at["total"].values()
    out: dict[str, list[DetectorRate]] = {}
    seen: dict[tuple[int, int], int] = {}
    for i in range(table.n_rows):
        try:  # the row is found (a pass over the file) only when something is wrong with it
            p = _whole(name, 0, "positives", pos[i], minimum=0)
            t = _whole(name, 0, "total", tot[i], minimum=1)
        except InputError as e:
            raise InputError(name, table.row_of(i), e.column, e.reason) from None
        if p > t:
            raise InputError(name, table.row_of(i), "positives", f"positives ({p}) exceed total ({t})")
        key = (int(dim_codes[i]), int(det_codes[i]))
        if key in seen:
            raise InputError(name, table.row_of(i), "detector", f"detector {excerpt(det_names[key[1]])} appears again "
                             f"for dimension {excerpt(dim_names[key[0]])} (first at row {table.row_of(seen[key])})")
        seen[key] = i
        out.setdefault(dim_names[key[0]], []).append(DetectorRate(det_names[key[1]], p, t))
    return {k: tuple(v) for k, v in out.items()}


def _checked_header_plain(table: Table, expected: str) -> list[str]:
    raw = [c.name for c in table.columns]
    names, _, bad = normalise_names(raw)
    if bad is not None:
        i, reason = bad
        raise InputError(table.file, 1, raw[i] or None, reason if raw[i] else f"a column header is empty; expected {expected}")
    seen: set[str] = set()
    for r, h in zip(raw, names):
        if h in seen:
            raise InputError(table.file, 1, r, "duplicate column header; every column needs its own name")
        seen.add(h)
    return names


def _renamed(table: Table, header: list[str]) -> Table:
    cols = tuple(Column(h, c.codes, c.dictionary) for h, c in zip(header, table.columns))
    return Table(table.file, cols, table.n_rows, table.kind, table.data, table.delimiter)


# --- JSON and TOML ----------------------------------------------------------------------------


class _Duplicate(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


def _no_constant(token: str) -> Any:
    raise ValueError(f"invalid JSON: {token} is not a number JSON allows")


def _line_of(text: str, needle: str, occurrence: int = 1) -> int | None:
    at = -1
    for _ in range(occurrence):
        at = text.find(needle, at + 1)
        if at < 0:
            return None
    return text.count("\n", 0, at) + 1


_ALL_BUT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_STEP = np.zeros(256, dtype=np.int8)
_STEP[[91, 123]], _STEP[[93, 125]] = 1, -1


def json_depth(data: bytes) -> int:
    """The deepest nesting of [ and { outside strings, from the bytes and without parsing: escaped
    backslashes and quotes are removed, every byte but quotes and brackets is dropped (C speed),
    and the rest is one cumulative sum.

    >>> json_depth(b'{"a": [1, {"b": "[[[\\\\\\""}]}')
    3
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    a = np.frombuffer(data.translate(None, _ALL_BUT_STRUCTURE), dtype=np.uint8)
    step = _STEP[a]
    step[(np.cumsum(a == 34, dtype=np.int32) & 1).astype(bool)] = 0  # inside a string
    return int(np.cumsum(step, dtype=np.int32).max(initial=0))


def _json(name: str, data: bytes) -> Any:
    text = decode_text(name, data, "a JSON object")
    if json_depth(data if isinstance(data, bytes) else bytes(data)) > MAX_NESTING:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
    try:
        obj = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except _Duplicate as e:
        line = _line_of(text, json.dumps(e.key), 2)
        raise InputError(name, line, e.key, "duplicate key in one object; every key once (a repeated key would "
                         "silently replace the first)", row_label="line") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:  # e.g. an integer past Python's 4,300-digit limit
        if "digits" in str(e):
            raise InputError(name, None, None, "a number with more than 4,300 digits") from None
        raise InputError(name, None, None, str(e)) from None
    return obj


def _check_depth(name: str, obj: Any) -> None:
    """Iteratively: no container nested deeper than MAX_NESTING."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))


def _toml(name: str, data: bytes) -> Any:
    text = decode_text(name, data, "a thresholds file (JSON or TOML)")
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise InputError(name, int(m.group(1)) if m else None, None, f"invalid TOML ({e})", row_label="line") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:  # an integer past Python's 4,300-digit limit
        if "digits" in str(e):
            raise InputError(name, None, None, "a number with more than 4,300 digits; thresholds are small whole "
                             "numbers") from None
        raise InputError(name, None, None, f"invalid TOML ({excerpt(str(e), 120)})") from None
    _check_depth(name, obj)
    return obj


# --- judge bundles ---------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeBundle:
    """A validated judge set: the contract, the snapshot header, the frames and their measurement."""

    file: str
    contract: JudgeCalibrationContract
    scope: str
    contract_content_id: str
    rubric_digest: str
    references: pd.DataFrame
    observations: pd.DataFrame
    measurement: CalibrationMeasurement
    #: The snapshot named another contract content and the user bound it to this contract anyway
    #: (a draft binding, shown as such; never the file's own claim).
    rebound_from: str | None = None


def _contract(name: str, obj: Any, path: str = "contract") -> JudgeCalibrationContract:
    fields = list(JudgeCalibrationContract.__dataclass_fields__)
    if not isinstance(obj, dict):
        raise InputError(name, None, path, "expected an object with the contract's fields " + ", ".join(fields))
    missing = [f for f in fields if f not in obj]
    extra = [k for k in obj if k not in fields]
    if missing:
        raise InputError(name, None, f"{path}.{missing[0]}", "missing field of the judge calibration contract")
    if extra:
        raise InputError(name, None, f"{path}.{extra[0]}", "unknown field; the contract has exactly " + ", ".join(fields))
    try:
        return JudgeCalibrationContract(**obj)
    except ValueError as e:
        field = str(e).split(" ")[0]
        raise InputError(name, None, field, str(e)) from None


def _header(name: str, snap: Any, path: str = "snapshot") -> tuple[Any, Any, Any]:
    if not isinstance(snap, dict):
        raise InputError(name, None, path, "expected an object with scope, contract_content_id, rubric_digest")
    for key in ("scope", "contract_content_id", "rubric_digest"):
        if key not in snap:
            raise InputError(name, None, f"{path}.{key}", "missing field")
    return snap["scope"], snap["contract_content_id"], snap["rubric_digest"]


def _records_frame(name: str, items: Any, fields: Sequence[str], what: str) -> pd.DataFrame:
    """JSON records -> a frame whose columns keep each value's exact JSON type."""
    if not isinstance(items, list):
        raise InputError(name, None, f"snapshot.{what}", "expected a list of records")
    wanted = set(fields)
    for i, item in enumerate(items):
        if not isinstance(item, dict) or item.keys() != wanted:
            if not isinstance(item, dict):
                raise InputError(name, i + 1, None, f"expected an object with fields {', '.join(fields)}", row_label=what[:-1])
            missing = [f for f in fields if f not in item]
            extra = [k for k in item if k not in wanted]
            col = missing[0] if missing else extra[0]
            raise InputError(name, i + 1, col, "missing field" if missing else "unknown field", row_label=what[:-1])
    columns = {}
    for f in fields:
        col = [item[f] for item in items]
        types = set(map(type, col))
        if f == "reviewer_ids":
            col = [tuple(v) if type(v) is list else v for v in col]
            columns[f] = pd.Series(col, dtype=object)
        elif types == {int}:
            columns[f] = pd.Series(col, dtype=np.int64) if all(-(2**63) <= v < 2**63 for v in col) else pd.Series(col, dtype=object)
        elif types == {bool}:
            columns[f] = pd.Series(col, dtype=bool)
        else:  # text, or mixed types: kept exactly as given for the contract's checks
            columns[f] = pd.Series(col, dtype=object)
    return pd.DataFrame(columns, columns=list(fields))


def _measure(names: dict[str, str], row_labels: dict[str, str], locate: dict[str, Any], contract: JudgeCalibrationContract,
             refs: pd.DataFrame, obs: pd.DataFrame, header: tuple[Any, Any, Any], bundle_file: str) -> JudgeBundle:
    try:
        m = measure_frames(contract, refs, obs, scope=header[0], contract_content_id=header[1], rubric_digest=header[2])
    except FrameError as e:
        frame = e.frame or "snapshot"
        file = names.get(frame, bundle_file)
        row = None if e.row is None else locate.get(frame, lambda i: i + 1)(e.row)
        column = e.field if frame != "snapshot" else (f"snapshot.{e.field}" if e.field else None)
        raise InputError(file, row, column, str(e), row_label=row_labels.get(frame, "row")) from None
    except ValueError as e:
        raise InputError(bundle_file, None, None, str(e)) from None
    return JudgeBundle(bundle_file, contract, header[0], header[1], header[2], refs, obs, m)


def parse_judge_bundle(name: str, data: bytes, rebind: bool = False) -> JudgeBundle:
    """``{"contract": {...}, "snapshot": {scope, contract_content_id, rubric_digest, references, observations}}``.

    ``rebind``: a snapshot that names another contract content is audited against this contract
    anyway, as a draft binding the result records (the dashboard's "bind to this contract")."""
    try:
        obj = _json(name, data)
    except InputError as e:
        raise (_unknown_lines(name, data) or e) from None
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise InputError(name, None, None, 'expected a JSON object with exactly "contract" and "snapshot"')
    contract = _contract(name, obj["contract"])
    snap = obj["snapshot"]
    header = _header(name, snap)
    extra = [k for k in snap if k not in ("scope", "contract_content_id", "rubric_digest", "references", "observations")]
    if extra:
        raise InputError(name, None, f"snapshot.{extra[0]}", "unknown field")
    for key in ("references", "observations"):
        if key not in snap:
            raise InputError(name, None, f"snapshot.{key}", "missing list of records")
    refs = _records_frame(name, snap["references"], REFERENCE_FIELDS, "references")
    obs = _records_frame(name, snap["observations"], OBSERVATION_FIELDS, "observations")
    labels = {"references": "reference", "observations": "observation"}
    rebound_from = None
    if rebind and header[1] != contract.content_id:
        rebound_from, header = str(header[1]), (header[0], contract.content_id, header[2])
    bundle = _measure({}, labels, {}, contract, refs, obs, header, name)
    return replace(bundle, rebound_from=rebound_from) if rebound_from else bundle


def _unknown_lines(name: str, data: bytes) -> InputError | None:
    """Valid JSON Lines of a shape no reader knows: said as such, not as "invalid JSON"."""
    lines = [line for line in data[:65536].splitlines() if line.strip()][:2]
    if len(lines) < 2:
        return None
    try:
        first = json.loads(lines[0])
        json.loads(lines[1])
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(first, dict):
        return None
    fields = ", ".join(printable(k, 30) for k in list(first)[:8]) + (", ..." if len(first) > 8 else "")
    return InputError(name, None, None, f"JSON Lines with fields {fields}: not a shape Agreebound knows (a judge log "
                      "from MT-Bench, AlpacaEval or our observations, or one read through --mapping); see docs/formats.md")


def is_judge_log(name: str, data: bytes) -> bool:
    """A judge log (JSON Lines, or an AlpacaEval list) rather than a bundle or a contract."""
    from agreebound.io.readers import judge_log_shape

    head = data[:65536].lstrip()
    try:
        if head.startswith(b"["):
            obj = _json(name, data)
            return isinstance(obj, list) and bool(obj) and isinstance(obj[0], dict) and judge_log_shape(obj[0]) is not None
        first = head.split(b"\n", 1)[0]
        obj = json.loads(first)
        return isinstance(obj, dict) and judge_log_shape(obj) is not None
    except (ValueError, UnicodeDecodeError, RecursionError, InputError):
        return False  # not a log: the bundle reader says what is wrong with it


_INT_FIELDS = {"repetition": (1, 100), "candidate_a_tokens": (1, 10**6), "candidate_b_tokens": (1, 10**6)}


def _csv_records(name: str, data: bytes, fields: Sequence[str]) -> tuple[pd.DataFrame, Table]:
    expected = "a CSV with the header " + ",".join(fields)
    table = read_csv(name, data, expected)
    header = _checked_header_plain(table, expected)
    require_columns(_renamed(table, header), fields)
    at = {h: table.columns[i] for i, h in enumerate(header)}
    columns: dict[str, Any] = {}
    for f in fields:
        col = at[f]
        if f in _INT_FIELDS:
            ok = np.array([bool(_INT.fullmatch(u)) and len(u) <= 20 for u in col.uniques], dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                i = int(np.flatnonzero(col.codes == bad)[0])
                _whole(name, table.row_of(i), f, col.uniques[bad], digits=18)
            table_ = np.array([int(u) for u in col.uniques] + [0], dtype=object)
            vals = table_[col.codes]
            columns[f] = pd.Series(vals.tolist(), dtype=np.int64) if all(abs(int(u)) < 2**62 for u in col.uniques) \
                else pd.Series(vals.tolist(), dtype=object)
        elif f == "adjudicated":
            ok = np.array([u in ("true", "false") for u in col.uniques], dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                i = int(np.flatnonzero(col.codes == bad)[0])
                raise InputError(name, table.row_of(i), f, f"expected true or false, got {excerpt(col.uniques[bad])}")
            columns[f] = pd.Series(np.array([u == "true" for u in col.uniques], dtype=bool)[col.codes], dtype=bool)
        elif f == "reviewer_ids":
            split = np.empty(len(col.uniques), dtype=object)
            split[:] = [tuple(u.split(";")) if u else () for u in col.uniques]
            columns[f] = pd.Series(split[col.codes], dtype=object)
        else:
            columns[f] = pd.Series(col.values(), dtype=object)
    return pd.DataFrame(columns, columns=list(fields)), table


def judge_tables_contract(name: str, data: bytes) -> tuple[JudgeCalibrationContract, tuple[Any, Any, Any]]:
    """The tabular form's contract file: the contract and the snapshot's header (not yet validated)."""
    obj = _json(name, data)
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise InputError(name, None, None,
                         'expected a JSON object with exactly "contract" and "snapshot" (scope, contract_content_id, rubric_digest)')
    contract = _contract(name, obj["contract"])
    header = _header(name, obj["snapshot"])
    extra = [k for k in obj["snapshot"] if k not in ("scope", "contract_content_id", "rubric_digest")]
    if extra:
        raise InputError(name, None, f"snapshot.{extra[0]}", "unknown field (records go in the CSV files)")
    return contract, header


def parse_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> JudgeBundle:
    """The tabular alternative: contract JSON (``{"contract": {...}, "snapshot": {scope, contract_content_id,
    rubric_digest}}``), references CSV (reviewer ids joined by ';') and observations CSV."""
    contract, header = judge_tables_contract(contract_name, contract_data)
    refs, rt = _csv_records(references_name, references_data, REFERENCE_FIELDS)
    obs, ot = _csv_records(observations_name, observations_data, OBSERVATION_FIELDS)
    names = {"references": references_name, "observations": observations_name, "snapshot": contract_name}
    return _measure(names, {}, {"references": rt.row_of, "observations": ot.row_of}, contract, refs, obs, header,
                    contract_name)


def parse_judge_log(name: str, data: bytes, references: tuple[str, bytes] | None = None,
                    contract: tuple[str, bytes] | None = None, judge: str | None = None,
                    thresholds: Any = None, mapping: tuple[str, bytes] | None = None) -> JudgeBundle:
    """An evaluation harness's judge log (MT-Bench, AlpacaEval; any other JSON Lines through a
    ``mapping`` file, see :class:`agreebound.io.judge_logs.LogMapping`), with human
    references from a second file and a contract JSON (the trio's) if given. With everything the
    seed needs, the seed's full audit; otherwise a partial audit whose missing gates say why
    (never a pass). Without a contract the gates are measured against illustrative limits (the
    seed's example) and nothing is decided (INCOMPLETE)."""
    from hashlib import sha256 as _sha

    from agreebound.calibration import measure_partial
    from agreebound.io.judge_logs import (
        draft_contract,
        lacks_of,
        parse_log_mapping,
        read_judge_log,
        read_references,
        seed_frames,
    )

    log = read_judge_log(name, data, judge, parse_log_mapping(*mapping) if mapping else None)
    refs, ref_notes = (read_references(references[0], references[1], log) if references else (None, ()))
    if contract is not None:
        obj = _json(contract[0], contract[1])
        if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
            raise InputError(contract[0], None, None, 'expected a JSON object with exactly "contract" and "snapshot"')
        c = _contract(contract[0], obj["contract"])
        header = _header(contract[0], obj["snapshot"])
    else:
        c = draft_contract(log, thresholds)
        header = (c.scope, c.content_id, _sha(data).hexdigest())
    given = contract is not None  # without one, the draft's limits measure but never decide
    lacks = lacks_of(log, refs)
    obs = seed_frames(log)
    notes = log.notes + ref_notes
    complete = not lacks and refs is not None and set(refs["case_id"]) == set(obs["case_id"])
    if complete:
        try:
            m = measure_frames(c, refs, obs, scope=header[0], contract_content_id=header[1], rubric_digest=header[2])
            m = replace(m, notes=notes, contract_given=given)
            return JudgeBundle(name, c, header[0], header[1], header[2], refs, obs, m)
        except (FrameError, ValueError) as e:
            notes += (f"the seed's full audit refuses this data ({excerpt(str(e), 160)}): a partial audit follows",)
    m = measure_partial(c, log.observations, refs, lacks, header)
    m = replace(m, notes=notes + m.notes, contract_given=given)
    empty = pd.DataFrame(columns=list(REFERENCE_FIELDS))
    return JudgeBundle(name, c, header[0], header[1], header[2], refs if refs is not None else empty, obs, m)


def bundle_json(contract: JudgeCalibrationContract, header: dict[str, str], refs: pd.DataFrame, obs: pd.DataFrame) -> str:
    """The bundle JSON for frames (the inverse of :func:`parse_judge_bundle`)."""
    def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
        out = frame.to_dict("records")
        for r in out:
            for k, v in r.items():
                if isinstance(v, tuple):
                    r[k] = list(v)
                elif isinstance(v, np.generic):
                    r[k] = v.item()
        return out

    return json.dumps({"contract": asdict(contract), "snapshot": {**header, "references": records(refs),
                                                                  "observations": records(obs)}}, indent=1) + "\n"


# --- thresholds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdFile:
    file: str
    thresholds: ThresholdSet
    presets: dict[str, ThresholdSet]


def _threshold_error(name: str, text: str, e: ThresholdError, is_toml: bool) -> InputError:
    line = None
    if e.key:
        leaf = e.key.split(".")[-1]
        m = re.search(rf"^[ \t]*\"?{re.escape(leaf)}\"?[ \t]*[=:]", text, re.M) if is_toml else None
        if m is None:
            m = re.search(rf"[{{,\s]\"?{re.escape(leaf)}\"?\s*[=:]", text)
        if m is not None:
            line = text.count("\n", 0, m.start()) + 1 + (1 if text[m.start()] == "\n" else 0)
    return InputError(name, line, e.key, str(e), row_label="line")


def parse_thresholds(name: str, data: bytes) -> ThresholdFile:
    """JSON or TOML: ``panel`` / ``calibration`` tables and optional named ``presets``; every value
    in its legal range (agreebound.thresholds.RANGES), or an error naming the key and its line."""
    text = decode_text(name, data, "a thresholds file (JSON or TOML)")
    lower = name.lower()
    is_toml = lower.endswith(".toml") or (not lower.endswith(".json") and not text.lstrip().startswith(("{", "[")))
    obj = _toml(name, data) if is_toml else _json(name, data)
    if not isinstance(obj, dict):
        raise InputError(name, None, None, "expected a table with panel, calibration and/or presets")
    presets_raw = obj.get("presets", {})
    base = {k: v for k, v in obj.items() if k != "presets"}
    try:
        main = threshold_set_from_dict(base, f"file:{name}")
    except ThresholdError as e:
        raise _threshold_error(name, text, e, is_toml) from None
    if not isinstance(presets_raw, dict):
        raise InputError(name, None, "presets", "expected a table of named presets")
    presets = dict(PRESETS)
    for pname, pdata in presets_raw.items():
        try:
            presets[pname] = threshold_set_from_dict(pdata, f"preset:{pname}", prefix=f"presets.{pname}.")
        except ThresholdError as e:
            raise _threshold_error(name, text, e, is_toml) from None
    return ThresholdFile(name, main, presets)


def parse_threshold_link(text: str) -> ThresholdSet:
    """Thresholds from a link's ``th=`` parameter (JSON), validated like a file; raises InputError."""
    from agreebound.limits import MAX_URL_PARAM_CHARS

    if len(text) > MAX_URL_PARAM_CHARS:
        raise InputError("link", None, "th", f"the parameter is {len(text):,} characters; the limit is {MAX_URL_PARAM_CHARS:,}")
    obj = _json("link", text.encode("utf-8", "replace"))
    try:
        return threshold_set_from_dict(obj, "link")
    except ThresholdError as e:
        raise InputError("link", None, e.key, str(e)) from None

