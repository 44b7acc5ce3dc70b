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
A repeated rating is an error, never collapsed. Limits (``agreebound.core.limits``) are checked first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from agreebound.judge.contract import (
    JudgeInput,
    OBSERVATION_FIELDS,
    REFERENCE_FIELDS,
    JudgeCalibrationContract,
)
from agreebound.core.errors import FieldError, InputError
from agreebound.core.escape import INVISIBLE_RE2, UNSAFE_RE2, excerpt, normalise_name, printable
from agreebound.core.limits import MAX_LABELS, MAX_NAME_CHARS, MAX_RATERS
from agreebound.core.thresholds import NET_FIELDS
from agreebound.io.detect import header_names, suggest
from agreebound.io.json_toml import read_json, read_toml
from agreebound.io.mapping import UNIT_JOIN, Mapping
from agreebound.io.readers import read_source
from agreebound.io.records import csv_records
from agreebound.io.values import (
    ValueKinds,
    classify_text,
    classify_values,
    names_need_care,
    normalise_names,
    plain_header,
    whole_number,
    with_header,
)
from agreebound.panel.categories import Categories, Coded
from agreebound.panel.ratings import DetectorRate, Names, RatingPanel, name_text
from agreebound.io.tables import (
    Column,
    Table,
    decode_text,
    read_csv,
    require_columns,
)
from agreebound.core.thresholds import PRESETS, ThresholdError, ThresholdSet, threshold_set_from_dict

__all__ = ["ThresholdFile", "parse_ratings", "parse_detector_rates", "read_judge_bundle", "read_judge_tables",
           "read_judge_log", "parse_thresholds"]

WIDE_HELP = "a wide rating CSV with the header unit,<rater>,<rater>,..."
LONG_COLUMNS = ("unit", "rater", "value")
RATES_COLUMNS = ("detector", "positives", "total")
RATINGS_EXPECTED = WIDE_HELP + ", or a long CSV with unit,rater,value[,dimension]"


# --- rating panels ---------------------------------------------------------------------------


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
    if mapping is None:
        refuse_judge_log(name, data)
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


def read_source_mapping(name: str, data: bytes) -> Any:
    """The mapping the reader suggests for ``data`` (a file's head), without building panels."""
    source = read_source(name, data, None)
    return suggest(source.table, source.mapping).mapping


def parse_mapping(name: str, data: bytes) -> Any:
    """A mapping file (JSON or TOML) -> Mapping, or an InputError naming the key."""
    text = decode_text(name, data, "a mapping file (JSON or TOML)")
    obj = read_json(name, data) if text.lstrip().startswith("{") else read_toml(name, data)
    try:
        return Mapping.from_dict(obj)
    except FieldError as e:  # the key the mapping's rule names
        raise InputError(name, None, e.field, str(e)) from None
    except (ValueError, TypeError) as e:
        raise InputError(name, None, None, str(e)) from None


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


def _nested(text: str) -> bool:
    """The cell's text is a list or an object (JSON, or Python's repr as pandas writes a list
    column to CSV): ``[...]`` or ``{...}`` that parses as one."""
    import ast

    if len(text) > 100 * MAX_NAME_CHARS:  # longer than any label: refused as a label elsewhere
        return False
    for parse in (json.loads, ast.literal_eval):
        try:
            if isinstance(parse(text), (list, dict, tuple, set)):
                return True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False


def refuse_nested(table: Table, col: Column, label: str) -> None:
    """A list or an object in a cell is never a category, a rater or a unit: an export that nests
    its annotations (a tool's ``responses``, a dataset's ``annotators``/``labels`` lists) read as
    labels gives an alpha of nothing real. Refused at its first row, naming the field. Records'
    nested fields arrive here as their JSON text (agreebound.io.readers._scalar)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = col.text
    if arr is None or not len(arr):
        return
    arr = arr.cast(pa.string())
    stripped = pc.utf8_trim_whitespace(arr)
    candidates = pc.or_(pc.and_(pc.starts_with(stripped, "["), pc.ends_with(stripped, "]")),
                        pc.and_(pc.starts_with(stripped, "{"), pc.ends_with(stripped, "}")))
    found = [int(i) for i in np.flatnonzero(candidates.fill_null(False).to_numpy(zero_copy_only=False))
             if _nested(stripped[int(i)].as_py())]
    if not found:
        return
    i = int(np.flatnonzero(np.isin(col.codes, found))[0])
    kind = "an object" if stripped[int(col.codes[i])].as_py().startswith("{") else "a list"
    raise InputError(table.file, table.row_of(i), label,
                     f"{kind} in a cell ({excerpt(arr[int(col.codes[i])].as_py())}): a cell holds one label, "
                     "never a list or an object. An export that nests its annotations (per-question responses, "
                     "lists of annotators and labels) needs one row per unit, rater and label",
                     row_label=table.row_label)


def _names_column(table: Table, col: Column, label: str) -> tuple[np.ndarray, Names, int]:
    """A column of names: codes into normalised distinct names (merged where normalising makes
    two spellings one), the names, and how many spellings were normalised. Vectorised: Python
    only touches the first bad name, to say what is wrong with it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if (col.codes < 0).any():
        raise InputError(table.file, table.row_of(int(np.flatnonzero(col.codes < 0)[0])), label,
                         "expected a name, the cell is empty")
    refuse_nested(table, col, label)
    arr = col.text
    if arr is None:  # Parquet ids typed as numbers
        arr = pa.array([name_text(u) for u in col.uniques], pa.string())
    changed = 0
    if names_need_care(arr):
        norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + INVISIBLE_RE2 + "]", ""),
                                                          form="NFC"))
        changed = int(pc.sum(pc.not_equal(norm, arr)).as_py() or 0)
        length = pc.utf8_length(norm).to_numpy(zero_copy_only=False)
        raw_length = pc.utf8_length(arr).to_numpy(zero_copy_only=False)
        bad = (length == 0) | (raw_length > MAX_NAME_CHARS) | \
            pc.match_substring_regex(norm, UNSAFE_RE2).to_numpy(zero_copy_only=False)
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

    if not names_need_care(arr) and not pc.any(pc.equal(pc.utf8_length(arr), 0)).as_py():
        return arr, per, 0
    norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + INVISIBLE_RE2 + "]", ""),
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
    for c, label in zip(cols, label_of):
        refuse_nested(table, c, label)
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
        kinds = classify_text(shared_arr, missing)
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


def parse_detector_rates(name: str, data: bytes) -> dict[str, tuple[DetectorRate, ...]]:
    """detector,positives,total[,dimension] -> rates per dimension ("all" when none given)."""
    expected = "a CSV with the header detector,positives,total[,dimension]"
    table = read_csv(name, data, expected)
    header = plain_header(table, expected)
    require_columns(with_header(table, header), RATES_COLUMNS, ("dimension",))
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
            p = whole_number(name, 0, "positives", pos[i], minimum=0)
            t = whole_number(name, 0, "total", tot[i], minimum=1)
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


# --- JSON and TOML ----------------------------------------------------------------------------


# --- judge inputs (read, not measured: agreebound.app.judge_input.measure_judge audits them) -----------


def _contract(name: str, obj: Any, path: str = "contract") -> JudgeCalibrationContract:
    fields = list(JudgeCalibrationContract.__dataclass_fields__)
    required = [f for f in fields if f not in NET_FIELDS]
    if not isinstance(obj, dict):
        raise InputError(name, None, path, "expected an object with the contract's fields " + ", ".join(required))
    missing = [f for f in required if f not in obj]
    extra = [k for k in obj if k not in fields]
    if missing:
        raise InputError(name, None, f"{path}.{missing[0]}", "missing field of the judge calibration contract")
    if extra:
        raise InputError(name, None, f"{path}.{extra[0]}", "unknown field; the contract has " + ", ".join(required)
                         + " (and optionally " + ", ".join(NET_FIELDS) + ")")
    try:
        return JudgeCalibrationContract(**obj)
    except ValueError as e:
        where = str(e).split(" ")[0]
        raise InputError(name, None, where, str(e)) from None


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


def read_judge_bundle(name: str, data: bytes, rebind: bool = False) -> JudgeInput:
    """``{"contract": {...}, "snapshot": {scope, contract_content_id, rubric_digest, references, observations}}``.

    ``rebind``: a snapshot that names another contract content is audited against this contract
    anyway, as a draft binding the result records (the dashboard's "bind to this contract")."""
    try:
        obj = read_json(name, data)
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
    return JudgeInput(name, contract, header, refs, obs, row_labels=labels, rebound_from=rebound_from)


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
            obj = read_json(name, data)
            return isinstance(obj, list) and bool(obj) and isinstance(obj[0], dict) and judge_log_shape(obj[0]) is not None
        first = head.split(b"\n", 1)[0]
        obj = json.loads(first)
        return isinstance(obj, dict) and judge_log_shape(obj) is not None
    except (ValueError, UnicodeDecodeError, RecursionError, InputError):
        return False  # not a log: the bundle reader says what is wrong with it


def judge_tables_contract(name: str, data: bytes) -> tuple[JudgeCalibrationContract, tuple[Any, Any, Any]]:
    """The tabular form's contract file: the contract and the snapshot's header (not yet validated)."""
    obj = read_json(name, data)
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise InputError(name, None, None,
                         'expected a JSON object with exactly "contract" and "snapshot" (scope, contract_content_id, rubric_digest)')
    contract = _contract(name, obj["contract"])
    header = _header(name, obj["snapshot"])
    extra = [k for k in obj["snapshot"] if k not in ("scope", "contract_content_id", "rubric_digest")]
    if extra:
        raise InputError(name, None, f"snapshot.{extra[0]}", "unknown field (records go in the CSV files)")
    return contract, header


def read_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> JudgeInput:
    """The tabular alternative: contract JSON (``{"contract": {...}, "snapshot": {scope, contract_content_id,
    rubric_digest}}``), references CSV (reviewer ids joined by ';') and observations CSV."""
    contract, header = judge_tables_contract(contract_name, contract_data)
    refs, rt = csv_records(references_name, references_data, REFERENCE_FIELDS)
    obs, ot = csv_records(observations_name, observations_data, OBSERVATION_FIELDS)
    names = {"references": references_name, "observations": observations_name, "snapshot": contract_name}
    return JudgeInput(contract_name, contract, header, refs, obs, files=names,
                      locate={"references": rt.row_of, "observations": ot.row_of})


def read_judge_log(name: str, data: bytes, references: tuple[str, bytes] | None = None,
                    contract: tuple[str, bytes] | None = None, judge: str | None = None,
                    thresholds: Any = None, mapping: tuple[str, bytes] | None = None) -> JudgeInput:
    """An evaluation harness's judge log (MT-Bench, AlpacaEval; any other JSON Lines through a
    ``mapping`` file, see :class:`agreebound.io.judge_logs.LogMapping`), with human
    references from a second file and a contract JSON (the trio's) if given. With everything the
    seed needs, the seed's full audit; otherwise a partial audit whose missing gates say why
    (never a pass). Without a contract the gates are measured against illustrative limits (the
    seed's example) and nothing is decided (INCOMPLETE). Read only: measure_judge audits it."""
    from agreebound.io.judge_logs import parse_log_mapping
    from agreebound.io.judge_logs import read_judge_log as read_log

    log = read_log(name, data, judge, parse_log_mapping(*mapping) if mapping else None)
    return judge_input_of(name, data, log, references, contract, thresholds)


def read_single_as_pairs(name: str, data: bytes, references: tuple[str, bytes], contract: tuple[str, bytes] | None = None,
                         judge: str | None = None, thresholds: Any = None) -> JudgeInput:
    """A single-answer grading log (MT-Bench) audited against pairwise human votes
    (:func:`agreebound.io.judge_logs.single_as_pairs`): the pairwise judge audit of its implied choices."""
    from agreebound.io.judge_logs import single_as_pairs
    from agreebound.io.scored_logs import read_scored_log

    log = single_as_pairs(read_scored_log(name, data, judge), *references)
    return judge_input_of(name, data, log, references, contract, thresholds)


def judge_input_of(name: str, data: bytes, log: Any, references: tuple[str, bytes] | None,
                   contract: tuple[str, bytes] | None, thresholds: Any) -> JudgeInput:
    """A read judge log with its references and contract (or a draft of one) as the audit's input."""
    from hashlib import sha256 as _sha

    from agreebound.io.judge_logs import draft_contract, lacks_of, read_references, seed_frames

    refs, ref_notes = (read_references(references[0], references[1], log) if references else (None, ()))
    if contract is not None:
        obj = read_json(contract[0], contract[1])
        if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
            raise InputError(contract[0], None, None, 'expected a JSON object with exactly "contract" and "snapshot"')
        c = _contract(contract[0], obj["contract"])
        header = _header(contract[0], obj["snapshot"])
    else:
        c = draft_contract(log, thresholds)
        header = (c.scope, c.content_id, _sha(data).hexdigest())
    given = contract is not None  # without one, the draft's limits measure but never decide
    lacks = tuple(lacks_of(log, refs))
    obs = seed_frames(log)
    complete = not lacks and refs is not None and set(refs["case_id"]) == set(obs["case_id"])
    return JudgeInput(name, c, header, refs, obs, log=log, lacks=lacks, notes=log.notes + ref_notes,
                      contract_given=given, complete=complete)


def bundle_json(contract: JudgeCalibrationContract, header: dict[str, str], refs: pd.DataFrame, obs: pd.DataFrame) -> str:
    """The bundle JSON for frames (the inverse of :func:`read_judge_bundle`)."""
    def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
        out = frame.to_dict("records")
        for r in out:
            for k, v in r.items():
                if isinstance(v, tuple):
                    r[k] = list(v)
                elif isinstance(v, np.generic):
                    r[k] = v.item()
        return out

    return json.dumps({"contract": contract.to_dict(), "snapshot": {**header, "references": records(refs),
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
    in its legal range (agreebound.core.thresholds.RANGES), or an error naming the key and its line."""
    text = decode_text(name, data, "a thresholds file (JSON or TOML)")
    lower = name.lower()
    is_toml = lower.endswith(".toml") or (not lower.endswith(".json") and not text.lstrip().startswith(("{", "[")))
    obj = read_toml(name, data) if is_toml else read_json(name, data)
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
    from agreebound.core.limits import MAX_URL_PARAM_CHARS

    if len(text) > MAX_URL_PARAM_CHARS:
        raise InputError("link", None, "th", f"the parameter is {len(text):,} characters; the limit is {MAX_URL_PARAM_CHARS:,}")
    obj = read_json("link", text.encode("utf-8", "replace"))
    try:
        return threshold_set_from_dict(obj, "link")
    except ThresholdError as e:
        raise InputError("link", None, e.key, str(e)) from None



def scored_log_kind(name: str, data: bytes) -> str | None:
    """A harness's graded or pass/fail judge log (JSON: inspect_ai, promptfoo, MT-Bench single,
    judgekit), its shape by its fields; None for anything else (a scores table CSV is also a
    rating file a panel may read: not refused)."""
    head = data[:65536].lstrip()
    if data[:4] == b"PK\x03\x04":
        return "inspect_ai" if name.lower().endswith(".eval") else None
    if head[:1] != b"{":
        return None
    return scored_shape(name, data)


def refuse_judge_log(name: str, data: bytes) -> None:
    """Ratings are not a judge log: a graded or pass/fail judge's log says so before it is read as ratings."""
    kind = scored_log_kind(name, data)
    if kind is not None:
        raise InputError(name, None, None, f"this is an LLM-judge log ({kind}), not ratings: audit it with "
                         "'agreebound calibrate' (human labels: --references) or on the Judge calibration page")


def is_scored_log(name: str, data: bytes) -> bool:
    """A graded or pass/fail judge's log (agreebound.io.scored_logs: inspect_ai, promptfoo, MT-Bench
    single-answer grading, judgekit/judgecal JSONL, a scores table) rather than a pairwise one."""
    if data[:4] == b"PK\x03\x04":  # a zip: inspect_ai's .eval archive
        return name.lower().endswith(".eval")
    head = data[:65536].lstrip()
    if head.startswith((b"{", b"[")):  # one JSON document (a JSON array of score records too), or JSON Lines
        return scored_shape(name, data) is not None
    try:
        header = head.split(b"\n", 1)[0].decode("utf-8-sig").strip().lower()
    except UnicodeDecodeError:
        return False
    return {"item", "rater", "role", "score"} <= {c.strip().strip('"') for c in header.split(",")}


def scored_shape(name: str, data: bytes) -> str | None:
    """The shape of a JSON or JSON Lines judge log that io.scored_logs reads, by its first record's
    fields (the whole object for one JSON document); None when it is not one."""
    from agreebound.io.scored_logs import scored_log_shape

    head = data[:65536].lstrip()
    try:
        try:  # JSON Lines: its first record
            obj = json.loads(head.split(b"\n", 1)[0])
        except ValueError:  # one JSON document (inspect_ai's log, with its NaN scores; promptfoo's results)
            obj = json.loads(data.decode("utf-8-sig"), parse_constant=lambda _: None)
        if isinstance(obj, list):  # a JSON array of records: its first record says the shape
            obj = next((r for r in obj if isinstance(r, dict)), None) if obj else None
        return scored_log_shape(obj) if isinstance(obj, dict) else None
    except (ValueError, UnicodeDecodeError, RecursionError, InputError):
        return None  # not a scored log: the other readers say what is wrong with it


def read_scored(name: str, data: bytes, humans: tuple[str, bytes] | None = None, judge: str | None = None) -> Any:
    """A graded or pass/fail judge's log, with human labels joined from a second file if given
    (agreebound.io.scored_logs.ScoredLog). Read only: judge_scores measures it."""
    from agreebound.io.scored_logs import join_human_labels, read_scored_log, scores_table

    head = data[:65536].lstrip()
    log = read_scored_log(name, data, judge) if head[:1] in (b"{", b"[", b"P") else scores_table(name, data)
    return join_human_labels(log, humans[0], humans[1]) if humans is not None else log
