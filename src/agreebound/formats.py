"""Bytes -> the core's inputs, strictly; or one :class:`InputError` naming file, row and column.

Formats (documented with examples in docs/formats.md):

* rating matrix, wide CSV: ``unit,<rater>,<rater>,...``; one row per unit
* rating matrix, long CSV or Parquet: ``unit,rater,value`` and optionally ``dimension``
* detector rates CSV: ``detector,positives,total`` and optionally ``dimension``
* judge bundle JSON ``{"contract": {...}, "snapshot": {...}}``, or the tabular trio
  (contract JSON + references CSV + observations CSV)
* thresholds, JSON or TOML

Nothing is coerced silently: " 3", "1.0" and "true" are not whole numbers; a repeated rating
is an error, never collapsed; text keeps its exact characters so the calibration contract's
identifier rules see what the file holds.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from dataclasses import asdict, dataclass
from fractions import Fraction
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
from agreebound.thresholds import PRESETS, ThresholdSet, threshold_set_from_dict

MAX_BYTES = 200 * 2**20  # matches .streamlit/config.toml server.maxUploadSize
MISSING = frozenset({"", "NA", "NaN"})
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
WIDE_HELP = "a wide rating CSV with the header unit,<rater>,<rater>,..."
LONG_COLUMNS = ("unit", "rater", "value")
RATES_COLUMNS = ("detector", "positives", "total")
HUMAN_PREFIX = "human"


class InputError(Exception):
    """Bad input: where it is (file, 1-based row as a spreadsheet shows it, column) and why."""

    def __init__(self, file: str, row: int | None, column: str | None, reason: str, row_label: str = "row"):
        super().__init__(reason)
        self.file, self.row, self.column, self.reason, self.row_label = file, row, column, reason, row_label

    def __str__(self) -> str:
        parts = [self.file]
        if self.row is not None:
            parts.append(f"{self.row_label} {self.row}")
        if self.column is not None:
            parts.append(f"column '{self.column}'")
        return ", ".join(parts) + f": {self.reason}"


# --- text and CSV ----------------------------------------------------------------------------


def _text(name: str, data: bytes, expected: str) -> str:
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(name, None, None, "expected the file's bytes")
    if len(data) > MAX_BYTES:
        raise InputError(name, None, None, f"the file is {_size(len(data))}; the limit is {_size(MAX_BYTES)}")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(name, None, None, "UTF-16 text; save the file as UTF-8")
    if not data.strip():
        raise InputError(name, None, None, f"the file is empty; expected {expected}")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(name, line, None, f"binary data (a NUL byte), not a text file; expected {expected}")
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(name, line, None, f"not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8") from None


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"


def _csv(name: str, data: bytes, expected: str, row_offset: int = 2) -> tuple[list[str], list[np.ndarray]]:
    """Header and one array of exact cell strings per column; ragged, duplicate-header and empty
    rows are errors.  Files without quotes take a fast path that checks the same things."""
    text = _text(name, data, expected)
    first_line = text.split("\n", 1)[0].rstrip("\r")
    if '"' not in text and "\r" not in text and first_line.count(",") >= 1:
        lines = text.split("\n")
        while lines and lines[-1] == "":
            lines.pop()  # trailing blank lines
        header = lines[0].split(",")
        _check_header(name, header, expected)
        body = lines[1:]
        if not body:
            raise InputError(name, None, None, f"the file has a header but no data rows; expected {expected}")
        counts = np.fromiter(map(str.count, body, [","] * len(body)), dtype=np.int64, count=len(body))
        bad = np.flatnonzero(counts != len(header) - 1)
        if len(bad):
            _ragged(name, body[int(bad[0])].split(",") if body[int(bad[0])] else [], int(bad[0]) + row_offset, len(header))
        frame = pd.read_csv(io.StringIO("\n".join(body)), dtype=str, keep_default_na=False, na_filter=False,
                            header=None, names=list(range(len(header))), skip_blank_lines=False,
                            engine="c", quoting=csv.QUOTE_NONE)
        return header, [frame[i].to_numpy(dtype=object) for i in range(len(header))]
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
        rows = list(reader)
    except csv.Error as e:
        raise InputError(name, reader.line_num, None, f"malformed CSV ({e}); expected {expected}") from None
    while rows and not rows[-1]:
        rows.pop()  # trailing blank lines
    _check_header(name, header, expected)
    if not rows:
        raise InputError(name, None, None, f"the file has a header but no data rows; expected {expected}")
    width = len(header)
    for i, row in enumerate(rows):
        if len(row) != width:
            _ragged(name, row, i + row_offset, width)
    return header, [np.array(col, dtype=object) for col in zip(*rows)]


def _ragged(name: str, row: list[str], at: int, width: int) -> None:
    if not row:
        raise InputError(name, at, None, "empty row; delete it or fill in every column")
    raise InputError(name, at, None, f"row has {len(row)} cells; the header has {width}")


def _check_header(name: str, header: list[str], expected: str) -> None:
    if not header or all(not h for h in header):
        raise InputError(name, 1, None, f"the header line is empty; expected {expected}")
    seen: set[str] = set()
    for h in header:
        if h == "":
            raise InputError(name, 1, None, f"a column header is empty; expected {expected}")
        if h != h.strip():
            raise InputError(name, 1, h, "column header has surrounding spaces; remove them")
        if h in seen:
            raise InputError(name, 1, h, "duplicate column header; every column needs its own name")
        seen.add(h)


def _names_ok(name: str, column: str, values: np.ndarray, offset: int) -> None:
    """Every cell a non-empty name without surrounding spaces (checked per distinct value)."""
    codes, uniques = pd.factorize(values)
    bad_u = np.fromiter((u == "" or u != u.strip() for u in uniques), dtype=bool, count=len(uniques))
    if bad_u.any():
        i = int(np.flatnonzero(bad_u[codes])[0])
        _name_cell(name, i + offset, column, str(values[i]))


def _require_header(name: str, header: Sequence[str], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    missing = [c for c in required if c not in header]
    extra = [c for c in header if c not in required and c not in optional]
    if missing:
        raise InputError(name, 1, missing[0], f"missing column; expected columns {', '.join(required)}"
                         + (f" (optional: {', '.join(optional)})" if optional else ""))
    if extra:
        raise InputError(name, 1, extra[0], f"unexpected column; expected columns {', '.join(required)}"
                         + (f" (optional: {', '.join(optional)})" if optional else ""))


def _whole(name: str, row: int, column: str, cell: str, minimum: int | None = None, maximum: int | None = None) -> int:
    if not _INT.fullmatch(cell):
        raise InputError(name, row, column, f"expected a whole number like 3, got {cell!r}")
    value = int(cell)
    if minimum is not None and value < minimum:
        raise InputError(name, row, column, f"expected a whole number >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InputError(name, row, column, f"expected a whole number <= {maximum}, got {value}")
    return value


def _name_cell(name: str, row: int, column: str, cell: str) -> str:
    if cell == "" or cell != cell.strip():
        raise InputError(name, row, column, f"expected a non-empty name without surrounding spaces, got {cell!r}")
    return cell


# --- rating panels ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingPanel:
    """One dimension's rating matrix: rows = units, columns = raters.

    ``kind`` is "integer" (every value a whole number), "decimal" (exact decimals) or "label"
    (text categories: nominal only).  Raters named ``human...`` are human raters; the others are
    the independent detectors the enforcement decision counts.
    """

    file: str
    dimension: str
    units: tuple[str, ...]
    raters: tuple[str, ...]
    values: np.ndarray  # float64 with NaN (integer kind) or object with None
    kind: str
    first_label: tuple[int, str] | None  # (row, column) of the first non-numeric value

    @property
    def humans(self) -> tuple[str, ...]:
        return tuple(r for r in self.raters if r.lower().startswith(HUMAN_PREFIX))

    @property
    def detectors(self) -> tuple[str, ...]:
        return tuple(r for r in self.raters if not r.lower().startswith(HUMAN_PREFIX))

    @property
    def n_ratings(self) -> int:
        if self.values.dtype.kind == "f":
            return int(np.count_nonzero(~np.isnan(self.values)))
        return int(np.count_nonzero(pd.notna(self.values)))

    def ratings(self, level: str = "nominal") -> np.ndarray:
        """The matrix for ``krippendorff_alpha`` at ``level``; labels only suit nominal."""
        if level != "nominal" and self.kind == "label":
            row, column = self.first_label  # type: ignore[misc]
            raise InputError(self.file, row, column,
                             f"{level} alpha needs numeric values; this panel has labels (first: this cell). "
                             "Use the nominal level, or number the categories")
        return self.values

    def detector_rates(self, positive: Any) -> tuple["DetectorRate", ...]:
        """Each detector's rate of ``positive`` over the units it rated (exact)."""
        out = []
        for j, rater in enumerate(self.raters):
            if rater not in self.detectors:
                continue
            col = self.values[:, j]
            if col.dtype.kind == "f":
                rated = ~np.isnan(col)
                hits = rated & (col == positive)
            else:
                rated = pd.notna(col)
                hits = np.array([v == positive for v in col], dtype=bool) & rated
            out.append(DetectorRate(rater, int(hits.sum()), int(rated.sum())))
        return tuple(out)


def _classify(cells: np.ndarray) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """Panel kind, codes into uniques (-1 missing), the uniques' values, and which are labels."""
    codes, uniques = pd.factorize(cells)
    uniq = [str(u) for u in uniques]
    is_missing = np.array([u in MISSING for u in uniq], dtype=bool)
    is_int = np.array([bool(_INT.fullmatch(u)) for u in uniq], dtype=bool)
    is_dec = np.array([bool(_DECIMAL.fullmatch(u)) for u in uniq], dtype=bool)
    present = ~is_missing
    if (is_int | is_missing).all():
        kind = "integer"
        vals = np.array([int(u) if i else 0 for u, i in zip(uniq, is_int)], dtype=object)
    elif (is_int | is_dec | is_missing).all():
        kind = "decimal"
        vals = np.array([Fraction(u) if p else None for u, p in zip(uniq, present)], dtype=object)
    else:
        kind = "label"
        vals = np.array([u if p else None for u, p in zip(uniq, present)], dtype=object)
    codes = np.where(np.append(is_missing, True)[codes], -1, codes)
    label_mask = ~(is_int | is_dec | is_missing)
    return kind, codes, vals, label_mask


def _matrix(kind: str, codes: np.ndarray, vals: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    if kind == "integer" and all(abs(int(v)) < 2**53 for v in vals):
        table = np.append(vals.astype(np.float64), np.nan)
        return table[codes].reshape(shape)
    table = np.append(vals, None)
    return table[codes].reshape(shape)


def _panel(file: str, dimension: str, units: list[str], raters: list[str], cells: np.ndarray,
           cell_rows: np.ndarray, cell_cols: np.ndarray) -> RatingPanel:
    """cells: (units x raters) strings ("" where absent); cell_rows/cols locate each cell."""
    kind, codes, vals, label_mask = _classify(cells.ravel())
    first_label = None
    if kind == "label":
        flat = np.flatnonzero(np.append(label_mask, False)[codes])
        pos = flat[np.argmin(cell_rows.ravel()[flat])]
        first_label = (int(cell_rows.ravel()[pos]), str(cell_cols.ravel()[pos]))
    return RatingPanel(file, dimension, tuple(units), tuple(raters),
                       _matrix(kind, codes, vals, cells.shape), kind, first_label)


def parse_ratings(name: str, data: bytes) -> dict[str, RatingPanel]:
    """A rating file (wide CSV, long CSV, or Parquet) -> one panel per dimension."""
    if data[:4] == b"PAR1":
        header, cols, offset = _parquet_columns(name, data)
    else:
        header, cols = _csv(name, data, WIDE_HELP + ", or a long CSV with unit,rater,value[,dimension]")
        offset = 2
    if set(LONG_COLUMNS) <= set(header):
        return _long_panels(name, header, cols, offset)
    if header[0] != "unit":
        raise InputError(name, 1, header[0], "expected the first column to be 'unit' (wide format) or the columns "
                         "unit,rater,value[,dimension] (long format)")
    return {"all": _wide_panel(name, header, cols, offset)}


def _wide_panel(name: str, header: list[str], cols: list[np.ndarray], offset: int) -> RatingPanel:
    raters = header[1:]
    if not raters:
        raise InputError(name, 1, None, "no rater columns after 'unit'; " + WIDE_HELP)
    units = cols[0]
    _names_ok(name, "unit", units, offset)
    dup = pd.Series(units).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero(units == units[i])[0])
        raise InputError(name, i + offset, "unit", f"unit {units[i]!r} appears again (first at row {first + offset}); "
                         "one row per unit")
    n = len(units)
    cells = np.column_stack(cols[1:]).astype(object)
    row_idx = np.repeat(np.arange(n) + offset, len(raters)).reshape(cells.shape)
    col_idx = np.tile(np.array(raters, dtype=object), (n, 1))
    return _panel(name, "all", [str(u) for u in units], raters, cells, row_idx, col_idx)


def _long_panels(name: str, header: list[str], cols: list[np.ndarray], offset: int) -> dict[str, RatingPanel]:
    _require_header(name, header, LONG_COLUMNS, ("dimension",))
    get = dict(zip(header, cols))
    n = len(cols[0])
    for column in ("unit", "rater", "dimension"):
        if column in get:
            _names_ok(name, column, get[column], offset)
    dims = get.get("dimension", np.full(n, "all", dtype=object))
    frame = pd.DataFrame({"d": dims, "u": get["unit"], "r": get["rater"]})
    dup = frame.duplicated(keep=False).to_numpy()
    if dup.any():
        idx = np.flatnonzero(dup)
        first = idx[0]
        same = idx[(frame.iloc[idx] == frame.iloc[first]).all(axis=1).to_numpy()]
        raise InputError(name, int(same[1]) + offset, "rater",
                         f"rater {get['rater'][first]!r} rated unit {get['unit'][first]!r} again "
                         f"(first at row {int(same[0]) + offset}); each (dimension, unit, rater) once")
    panels: dict[str, RatingPanel] = {}
    d_codes, d_names = pd.factorize(dims)
    for k, dim in enumerate(d_names):
        sel = np.flatnonzero(d_codes == k)
        u_codes, u_names = pd.factorize(get["unit"][sel])
        r_codes, r_names = pd.factorize(get["rater"][sel])
        shape = (len(u_names), len(r_names))
        cells = np.full(shape, "", dtype=object)
        cells[u_codes, r_codes] = get["value"][sel]
        rows_at = np.full(shape, 1 << 60, dtype=np.int64)  # absent cells never name a location
        rows_at[u_codes, r_codes] = sel + offset
        cols_at = np.full(shape, "value", dtype=object)
        panels[str(dim)] = _panel(name, str(dim), [str(u) for u in u_names], [str(r) for r in r_names],
                                  cells, rows_at, cols_at)
    return panels


def _parquet_columns(name: str, data: bytes) -> tuple[list[str], list[np.ndarray], int]:
    """Parquet -> the same text cells a CSV gives (ints as digits, nulls as empty)."""
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as e:  # noqa: BLE001 - any reader failure is the file's fault here
        raise InputError(name, None, None, f"not a readable Parquet file ({type(e).__name__}: {e})") from None
    if len(frame) == 0:
        raise InputError(name, None, None, "the Parquet file has no rows")
    header = [str(c) for c in frame.columns]
    if len(set(header)) != len(header):
        raise InputError(name, None, None, "duplicate column names")
    text_cols = []
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_bool_dtype(s.dtype):
            raise InputError(name, None, str(col), "boolean column; expected whole numbers or text")
        if pd.api.types.is_integer_dtype(s.dtype):
            text_cols.append(["" if pd.isna(v) else str(int(v)) for v in s.tolist()])
        elif pd.api.types.is_float_dtype(s.dtype):
            text_cols.append(["" if v != v else _float_text(name, str(col), i, v) for i, v in enumerate(s.tolist())])
        else:
            out = []
            for i, v in enumerate(s.tolist()):
                if v is None or (isinstance(v, float) and v != v):
                    out.append("")
                elif isinstance(v, str):
                    out.append(v)
                else:
                    raise InputError(name, i + 1, str(col), f"expected a number or text, got {type(v).__name__}")
            text_cols.append(out)
    return header, [np.array(c, dtype=object) for c in text_cols], 1


def _float_text(name: str, column: str, i: int, v: float) -> str:
    if v == int(v):
        return str(int(v))
    text = repr(v)
    if not _DECIMAL.fullmatch(text):
        raise InputError(name, i + 1, column, f"value {text} is not a plain decimal")
    return text


# --- detector rates --------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectorRate:
    detector: str
    positives: int
    total: int

    @property
    def rate(self) -> Fraction:
        return Fraction(self.positives, self.total) if self.total else Fraction(0)


def parse_detector_rates(name: str, data: bytes) -> dict[str, tuple[DetectorRate, ...]]:
    """detector,positives,total[,dimension] -> rates per dimension ("all" when none given)."""
    expected = "a CSV with the header detector,positives,total[,dimension]"
    header, cols = _csv(name, data, expected)
    rows = list(zip(*cols))
    _require_header(name, header, RATES_COLUMNS, ("dimension",))
    at = {h: i for i, h in enumerate(header)}
    out: dict[str, list[DetectorRate]] = {}
    seen: dict[tuple[str, str], int] = {}
    for i, row in enumerate(rows):
        r = i + 2
        det = _name_cell(name, r, "detector", row[at["detector"]])
        dim = _name_cell(name, r, "dimension", row[at["dimension"]]) if "dimension" in at else "all"
        pos = _whole(name, r, "positives", row[at["positives"]], minimum=0)
        tot = _whole(name, r, "total", row[at["total"]], minimum=1)
        if pos > tot:
            raise InputError(name, r, "positives", f"positives ({pos}) exceed total ({tot})")
        if (dim, det) in seen:
            raise InputError(name, r, "detector", f"detector {det!r} appears again for dimension {dim!r} "
                             f"(first at row {seen[(dim, det)]})")
        seen[(dim, det)] = r
        out.setdefault(dim, []).append(DetectorRate(det, pos, tot))
    return {k: tuple(v) for k, v in out.items()}


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


def _json(name: str, data: bytes) -> Any:
    text = _text(name, data, "a JSON object")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except ValueError as e:
        raise InputError(name, None, None, str(e)) from None


def _no_constant(token: str) -> Any:
    raise ValueError(f"invalid JSON: {token} is not a number JSON allows")


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


def _measure(names: dict[str, str], row_labels: dict[str, str], offsets: dict[str, int], contract: JudgeCalibrationContract,
             refs: pd.DataFrame, obs: pd.DataFrame, header: tuple[Any, Any, Any], bundle_file: str) -> JudgeBundle:
    try:
        m = measure_frames(contract, refs, obs, scope=header[0], contract_content_id=header[1], rubric_digest=header[2])
    except FrameError as e:
        frame = e.frame or "snapshot"
        file = names.get(frame, bundle_file)
        row = None if e.row is None else e.row + offsets.get(frame, 1)
        column = e.field if frame != "snapshot" else (f"snapshot.{e.field}" if e.field else None)
        raise InputError(file, row, column, str(e), row_label=row_labels.get(frame, "row")) from None
    except ValueError as e:
        raise InputError(bundle_file, None, None, str(e)) from None
    return JudgeBundle(bundle_file, contract, header[0], header[1], header[2], refs, obs, m)


def parse_judge_bundle(name: str, data: bytes) -> JudgeBundle:
    """``{"contract": {...}, "snapshot": {scope, contract_content_id, rubric_digest, references, observations}}``."""
    obj = _json(name, data)
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
    return _measure({}, labels, {}, contract, refs, obs, header, name)


def _csv_records(name: str, data: bytes, fields: Sequence[str], ints: dict[str, tuple[int, int]]) -> pd.DataFrame:
    header, cols = _csv(name, data, "a CSV with the header " + ",".join(fields))
    _require_header(name, header, fields)
    at = {h: i for i, h in enumerate(header)}
    columns: dict[str, Any] = {}
    for f in fields:
        col = cols[at[f]]
        if f in ints:
            codes, uniq = pd.factorize(np.array(col, dtype=object))
            ok = np.array([bool(_INT.fullmatch(u)) for u in uniq], dtype=bool)
            if not ok.all():
                i = int(np.flatnonzero(~ok[codes])[0])
                _whole(name, i + 2, f, col[i])
            table = np.array([int(u) for u in uniq], dtype=object)
            columns[f] = pd.Series(table[codes].tolist(), dtype=np.int64) if len(uniq) and max(abs(int(u)) for u in uniq) < 2**62 \
                else pd.Series(table[codes].tolist(), dtype=object)
        elif f == "adjudicated":
            bad = [i for i, v in enumerate(col) if v not in ("true", "false")]
            if bad:
                raise InputError(name, bad[0] + 2, f, f"expected true or false, got {col[bad[0]]!r}")
            columns[f] = pd.Series([v == "true" for v in col], dtype=bool)
        elif f == "reviewer_ids":
            columns[f] = pd.Series([tuple(v.split(";")) if v else () for v in col], dtype=object)
        else:
            columns[f] = pd.Series(col, dtype=object)
    return pd.DataFrame(columns, columns=list(fields))


def parse_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> JudgeBundle:
    """The tabular alternative: contract JSON (``{"contract": {...}, "snapshot": {scope, contract_content_id,
    rubric_digest}}``), references CSV (reviewer ids joined by ';') and observations CSV."""
    obj = _json(contract_name, contract_data)
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise InputError(contract_name, None, None,
                         'expected a JSON object with exactly "contract" and "snapshot" (scope, contract_content_id, rubric_digest)')
    contract = _contract(contract_name, obj["contract"])
    header = _header(contract_name, obj["snapshot"])
    extra = [k for k in obj["snapshot"] if k not in ("scope", "contract_content_id", "rubric_digest")]
    if extra:
        raise InputError(contract_name, None, f"snapshot.{extra[0]}", "unknown field (records go in the CSV files)")
    refs = _csv_records(references_name, references_data, REFERENCE_FIELDS, {})
    obs = _csv_records(observations_name, observations_data, OBSERVATION_FIELDS,
                       {"repetition": (1, 100), "candidate_a_tokens": (1, 10**6), "candidate_b_tokens": (1, 10**6)})
    names = {"references": references_name, "observations": observations_name, "snapshot": contract_name}
    return _measure(names, {}, {"references": 2, "observations": 2}, contract, refs, obs, header, contract_name)


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


def parse_thresholds(name: str, data: bytes) -> ThresholdFile:
    """JSON or TOML: ``panel`` / ``calibration`` tables and optional named ``presets``."""
    text = _text(name, data, "a thresholds file (JSON or TOML)")
    if name.lower().endswith(".toml") or not text.lstrip().startswith("{"):
        try:
            obj = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"line (\d+)", str(e))
            raise InputError(name, int(m.group(1)) if m else None, None, f"invalid TOML ({e})", row_label="line") from None
    else:
        obj = _json(name, data)
    if not isinstance(obj, dict):
        raise InputError(name, None, None, "expected an object with panel, calibration and/or presets")
    presets_raw = obj.get("presets", {})
    base = {k: v for k, v in obj.items() if k != "presets"}
    try:
        main = threshold_set_from_dict(base, f"file:{name}")
    except (ValueError, TypeError) as e:
        raise InputError(name, None, _key_in(str(e)), str(e)) from None
    if not isinstance(presets_raw, dict):
        raise InputError(name, None, "presets", "expected a table of named presets")
    presets = dict(PRESETS)
    for pname, pdata in presets_raw.items():
        try:
            presets[pname] = threshold_set_from_dict(pdata, f"preset:{pname}")
        except (ValueError, TypeError) as e:
            raise InputError(name, None, f"presets.{pname}", str(e)) from None
    return ThresholdFile(name, main, presets)


def _key_in(message: str) -> str | None:
    m = re.match(r"(\w+)", message)
    return m.group(1) if m else None
