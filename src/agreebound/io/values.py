"""Cells to values and names: which cell is missing, a number (held exactly) or a label, and
which name is usable; every refusal located by the caller at its first cell.

Values are read exactly: whole numbers and decimals (at most 15 significant digits, or a float's
shortest form) are numbers, one documented set of spellings is missing
(:data:`agreebound.io.tables.MISSING_TOKENS`), anything else is a label. Names are compared
after trimming surrounding spaces and removing invisible characters; a name with a control
character is refused. The engines classify their values here too, so every path reads alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import UNSAFE_RE2, excerpt, has_unsafe, normalise_name
from agreebound.io.tables import MISSING_TOKENS, Column, Table, numpy_of
from agreebound.core.limits import MAX_COUNT_DIGITS, MAX_NAME_CHARS, MAX_SIGNIFICANT_DIGITS
from agreebound.panel.ratings import name_text

if TYPE_CHECKING:
    import pyarrow as pa


INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
#: Scientific notation (numpy's savetxt, R, spreadsheets): 1e3, 2.5E-02, 1.000000000000000000e+00.
_SCIENTIFIC = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?[eE][+-]?[0-9]{1,4}")


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
    texts: list[str] | pa.Array  # each value's text (labels are compared as text): a list, or a pyarrow string array
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


def classify_text(arr: pa.Array, extra_missing: Sequence[str] = ()) -> ValueKinds | None:
    """classify_values for a pyarrow string array, vectorised; None when some value needs the
    careful path (a long number, a long or unsafe label), which also finds the first bad one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        return None
    tokens = pa.array(sorted(MISSING_TOKENS | {m.strip() for m in extra_missing}))
    missing = numpy_of(pc.is_in(pc.utf8_trim_whitespace(arr), value_set=tokens))
    is_int = numpy_of(pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)$"))
    is_dec = numpy_of(pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)\.[0-9]+$"))
    is_sci = numpy_of(pc.match_substring_regex(arr, r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?[eE][+-]?[0-9]{1,4}$"))
    if is_sci.any():
        return None  # the careful path: the exponent's range and the digits checked value by value
    length = numpy_of(pc.utf8_length(arr))
    number = (is_int | is_dec) & ~missing
    label = ~number & ~missing
    unsafe = numpy_of(pc.match_substring_regex(arr, UNSAFE_RE2))
    if (number & (length > MAX_SIGNIFICANT_DIGITS)).any() or (label & ((length > MAX_NAME_CHARS) | unsafe)).any():
        return None  # the careful path: digits counted, and the first bad value located
    floats = np.full(len(arr), np.nan)
    if number.any():
        floats[number] = numpy_of(pc.cast(arr.filter(pa.array(number)), pa.float64()))
    decimal = is_dec & number & (floats != np.floor(floats))
    return ValueKinds(missing, number, floats, arr, decimal)


def classify_values(uniques: Sequence[object], extra_missing: Sequence[str] = ()) -> tuple[ValueKinds, tuple[int, str] | None]:
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
        if INT.fullmatch(s) or _DECIMAL.fullmatch(s) or (len(s) <= 64 and _SCIENTIFIC.fullmatch(s)):
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


def names_need_care(arr: pa.Array) -> bool:
    """False when every name in a pyarrow string array is already normal (vectorised, and without
    copying the names: only the non-ASCII ones are checked for NFC)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        return True
    length = pc.utf8_length(arr)
    if pc.min(length).as_py() == 0 or pc.max(length).as_py() > MAX_NAME_CHARS:
        return True
    if pc.any(pc.match_substring_regex(arr, UNSAFE_RE2)).as_py():
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


def normalise_names(uniques: Sequence[object]) -> tuple[list[str], int, tuple[int, str] | None]:
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


def whole_number(name: str, row: int, column: str, cell: object, minimum: int | None = None, maximum: int | None = None,
           digits: int = MAX_COUNT_DIGITS) -> int:
    if isinstance(cell, bool) or not isinstance(cell, (int, str)):
        raise InputError(name, row, column, f"expected a whole number like 3, got {excerpt(cell)}")
    text = str(cell)
    if len(text) > digits + 1 or not INT.fullmatch(text):
        if INT.fullmatch(text[: digits + 2]) and text.lstrip("-").isdigit():
            raise InputError(name, row, column, f"a whole number with {len(text.lstrip('-')):,} digits; "
                             f"counts have at most {digits}")
        raise InputError(name, row, column, f"expected a whole number like 3, got {excerpt(text)}")
    value = int(text)
    if minimum is not None and value < minimum:
        raise InputError(name, row, column, f"expected a whole number >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InputError(name, row, column, f"expected a whole number <= {maximum}, got {value}")
    return value


def plain_header(table: Table, expected: str) -> list[str]:
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


def with_header(table: Table, header: list[str]) -> Table:
    cols = tuple(Column(h, c.codes, c.dictionary) for h, c in zip(header, table.columns))
    return Table(table.file, cols, table.n_rows, table.kind, table.data, table.delimiter)
