"""Bytes in any supported format -> one :class:`~agreebound.tables.Table`, within the limits.

CSV/TSV (delimiter and encoding sniffed), Parquet, Excel .xlsx (a sheet), JSON Lines of flat
records, and annotation-tool exports: Label Studio's JSON (and its JSON-MIN), Prodigy's JSONL.
Annotation exports become long tables (unit, rater, value[, dimension]) with a notice saying
which fields were used.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from agreebound.errors import InputError
from agreebound.escape import excerpt
from agreebound.importers.mapping import Mapping
from agreebound.importers.prelude import Prelude, plan_rows, prelude, rewrite
from agreebound.importers.sniff import Sniffed, sniff, sniff_delimiter
from agreebound.limits import MAX_CELLS, MAX_NESTING, MAX_PARQUET_UNCOMPRESSED_BYTES, MAX_ROWS
from agreebound.tables import (
    Table,
    check_size,
    read_csv,
    read_parquet,
    table_from_values,
    transcode,
)

RATINGS_EXPECTED = ("a rating table: wide (one row per unit, a column per rater), long (unit, rater, value), "
                    "or raters x units")


@dataclass(frozen=True)
class Source:
    """A table read from a file, and what was learnt reading it."""

    table: Table
    format: str  # csv, parquet, xlsx, jsonl, label-studio, prodigy, ...
    sniffed: Sniffed
    notices: tuple[str, ...] = ()
    sheets: tuple[str, ...] = ()  # Excel: every sheet, for the picker
    #: Set by annotation exports, whose shape is known: the mapping to use.
    mapping: Mapping | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    skip: int = 0  # CSV: lines above the header that were skipped (a title, comments, blank lines)


# --- Excel -------------------------------------------------------------------------------------


def _check_zip(name: str, data: bytes) -> None:
    """A zip bomb is refused from the archive's directory, before anything is inflated."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except zipfile.BadZipFile as e:
        raise InputError(name, None, None, f"not a readable .xlsx file ({e})") from None
    total = sum(i.file_size for i in infos)
    if total > MAX_PARQUET_UNCOMPRESSED_BYTES:
        raise InputError(name, None, None, f"the workbook unpacks to {total / 10**6:,.0f} MB; the limit is "
                         f"{MAX_PARQUET_UNCOMPRESSED_BYTES / 10**6:,.0f} MB")


def xlsx_sheets(name: str, data: bytes) -> list[str]:
    import openpyxl

    _check_zip(name, data)
    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as e:  # noqa: BLE001 - a broken workbook is the file's fault
        raise InputError(name, None, None, f"not a readable .xlsx file ({type(e).__name__}: {excerpt(str(e), 120)})") from None
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


def _holds_table(ws: Any) -> bool:
    rows = 0
    for values in ws.iter_rows(values_only=True, max_row=3):
        if values and sum(v is not None for v in values) >= 2:
            rows += 1
    return rows >= 2


def read_xlsx(name: str, data: bytes, sheet: str | None = None, header: bool = True,
              head_rows: int | None = None) -> tuple[Table, list[str], tuple[str, ...]]:
    """One sheet of a workbook (cached values of formulas, as Excel shows them)."""
    import openpyxl

    _check_zip(name, data)
    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as e:  # noqa: BLE001
        raise InputError(name, None, None, f"not a readable .xlsx file ({type(e).__name__}: {excerpt(str(e), 120)})") from None
    try:
        sheets = list(wb.sheetnames)
        if sheet is not None and sheet not in sheets:
            raise InputError(name, None, None, f"no sheet {excerpt(sheet)}; the workbook has {', '.join(sheets)}")
        if sheet is None:  # the first sheet that holds a table (at least 2 rows and 2 columns)
            sheet = next((s for s in sheets if _holds_table(wb[s])), sheets[0])
        ws = wb[sheet]
        rows: list[tuple[Any, ...]] = []
        numbers: list[int] = []
        truncated = False
        for r, values in enumerate(ws.iter_rows(values_only=True), start=1):
            if values is None or all(v is None or (isinstance(v, str) and not v.strip()) for v in values):
                continue
            if head_rows is not None and len(rows) > head_rows:
                truncated = True
                break
            if len(rows) > MAX_ROWS:
                raise InputError(name, None, None, f"the sheet has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}")
            if len(values) * len(rows) > MAX_CELLS:
                raise InputError(name, None, None, f"the sheet has more than {MAX_CELLS:,} cells")
            rows.append(tuple(("TRUE" if v else "FALSE") if isinstance(v, bool) else v for v in values))
            numbers.append(r)
    finally:
        wb.close()
    if not rows:
        raise InputError(name, None, None, f"the sheet {excerpt(sheet or sheets[0])} is empty; expected {RATINGS_EXPECTED}")
    width = max(len(r) for r in rows)
    while width > 0 and all(len(r) < width or r[width - 1] is None for r in rows):
        width -= 1  # trailing empty columns (formatting Excel keeps)
    grid = [tuple(_cell(v) for v in r[:width]) + (None,) * (width - len(r)) for r in rows]
    notes: tuple[str, ...] = ()
    if header:
        plan = plan_rows([[_name(v) for v in r] for r in grid[:60]])
        notes = plan.notices
        top = plan.skip
        names = plan.header if plan.header is not None else [_name(v) for v in grid[top]]
        start = top + plan.header_span + plan.drop_records
        body, body_rows = grid[start:], np.array(numbers[start:], dtype=np.int64)
    else:
        names, body, body_rows = [f"column {i + 1}" for i in range(width)], grid, np.array(numbers, dtype=np.int64)
    if not body:
        raise InputError(name, None, None, f"the sheet has a header but no data rows; expected {RATINGS_EXPECTED}")
    columns = [[row[j] for row in body] for j in range(width)]
    table = table_from_values(name, names, columns, "xlsx", body_rows, truncated=truncated)
    return table, [sheet] + [s for s in sheets if s != sheet], notes


def _name(v: Any) -> str:
    return "" if v is None else (str(v) if not isinstance(v, float) or not v.is_integer() else str(int(v)))


def _cell(v: Any) -> Any:
    """A sheet's cell as a table cell: dates and times as ISO text (labels), the rest as they are."""
    import datetime as dt

    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
    if isinstance(v, dt.timedelta):
        return str(v)
    return v


# --- JSON records and annotation exports --------------------------------------------------------


def _pandas_json(obj: Any) -> tuple[Any, str | None]:
    """pandas' DataFrame.to_json shapes other than records, as records: orient="split"
    ({columns, index, data}), "columns" ({column: {index: value}}, the default) and "index"
    ({index: {column: value}}). The index becomes the ``unit`` field."""
    if not isinstance(obj, dict) or not obj:
        return obj, None
    if {"columns", "data"} <= set(obj) and isinstance(obj["columns"], list) and isinstance(obj["data"], list) \
            and all(isinstance(r, list) for r in obj["data"]):
        cols = [str(c) for c in obj["columns"]]
        index = obj.get("index")
        rows = []
        for i, r in enumerate(obj["data"]):
            rec = dict(zip(cols, r))
            if isinstance(index, list) and i < len(index):
                rec = {"unit": index[i], **rec}
            rows.append(rec)
        return rows, "read as pandas' to_json(orient='split'): the index names the units"
    if all(isinstance(v, dict) for v in obj.values()) and not {"contract", "snapshot"} & set(obj):
        outer = list(obj)
        inner = list(dict.fromkeys(k for v in obj.values() for k in v))
        if len(inner) >= len(outer):  # orient="columns": {rater: {unit: value}}
            return ([{"unit": u, **{r: obj[r].get(u) for r in outer}} for u in inner],
                    "read as pandas' to_json() (orient='columns'): outer keys are the columns, inner keys the units")
        return ([{"unit": u, **obj[u]} for u in outer],
                "read as pandas' to_json(orient='index'): outer keys are the units")
    return obj, None


def _scalar(v: Any) -> Any:
    """A record's field as a table cell: nested values become their JSON text (so an ignored
    field never stops a file; a used one shows as an odd label)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def _records_table(name: str, records: list[dict[str, Any]], rows: list[int], row_label: str,
                   kind: str = "records") -> Table:
    keys: dict[str, None] = {}
    for rec in records:
        for k in rec:
            keys.setdefault(str(k), None)
    names = list(keys)
    columns = [[_scalar(rec.get(k)) for rec in records] for k in names]
    return table_from_values(name, names, columns, kind, np.array(rows, dtype=np.int64), row_label)


def _json_lines(name: str, text: str, head_rows: int | None) -> tuple[list[dict[str, Any]], list[int], bool]:
    from agreebound.formats import _no_constant, _no_duplicates

    records: list[dict[str, Any]] = []
    lines: list[int] = []
    truncated = False
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if head_rows is not None and len(records) >= head_rows:
            truncated = True
            break
        if len(records) >= MAX_ROWS:
            raise InputError(name, i, None, f"more than {MAX_ROWS:,} records; the limit is {MAX_ROWS:,}", row_label="line")
        try:
            obj = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
        except RecursionError:
            raise InputError(name, i, None, f"nested too deeply (more than {MAX_NESTING} levels)", row_label="line") from None
        except ValueError as e:
            raise InputError(name, i, None, f"not a JSON object ({excerpt(str(e), 80)})", row_label="line") from None
        if not isinstance(obj, dict):
            raise InputError(name, i, None, "expected one JSON object per line", row_label="line")
        records.append(obj)
        lines.append(i)
    if not records:
        raise InputError(name, None, None, "the file has no JSON records")
    return records, lines, truncated


def _first_value(v: Any) -> Any:
    """A Label Studio result's value: the chosen label(s), the rating, the number or the text."""
    if not isinstance(v, dict):
        return v
    for key in ("choices", "labels", "rating", "number", "text", "taxonomy", "value"):
        if key in v:
            got = v[key]
            if isinstance(got, list):
                flat = [";".join(map(str, x)) if isinstance(x, list) else x for x in got]
                return flat[0] if len(flat) == 1 else ";".join(map(str, flat))
            return got
    return None


def _who(v: Any) -> str:
    if isinstance(v, dict):
        return str(v.get("email") or v.get("id") or json.dumps(v, sort_keys=True))
    return str(v)


def label_studio(name: str, tasks: list[Any]) -> tuple[Table, tuple[str, ...]]:
    """Label Studio's JSON export: one row per (task, annotator or model, control) -> long."""
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    cancelled = predictions = 0
    for t, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            raise InputError(name, t, None, "expected a task object", row_label="task")
        unit = task.get("id", t)
        sources = [("annotations", a) for a in task.get("annotations") or []]
        sources += [("predictions", p) for p in task.get("predictions") or []]
        for kind, ann in sources:
            if not isinstance(ann, dict):
                raise InputError(name, t, kind, "expected an annotation object", row_label="task")
            if ann.get("was_cancelled"):
                cancelled += 1
                continue
            if kind == "predictions":
                predictions += 1
                rater = f"model:{ann.get('model_version') or ann.get('id', 'prediction')}"
            else:
                rater = _who(ann.get("completed_by", ann.get("id")))
            for result in ann.get("result") or []:
                if not isinstance(result, dict):
                    continue
                records.append({"unit": str(unit), "rater": rater, "dimension": str(result.get("from_name", "all")),
                                "value": _scalar(_first_value(result.get("value")))})
                rows.append(t)
    if not records:
        raise InputError(name, None, None, "a Label Studio export with no annotation results")
    notes = [f"read as a Label Studio export: {len(records):,} results (task id = unit, annotator = rater, "
             "control name = dimension)"]
    if cancelled:
        notes.append(f"{cancelled:,} cancelled annotations were left out")
    if predictions:
        notes.append(f"{predictions:,} model predictions are raters named model:<version> (independent detectors)")
    return _records_table(name, records, rows, "task"), tuple(notes)


def prodigy(name: str, records: list[dict[str, Any]], lines: list[int]) -> tuple[Table, tuple[str, ...]]:
    """Prodigy's JSONL: binary answers (accept/reject a label) or choices (the accepted options)."""
    out: list[dict[str, Any]] = []
    rows: list[int] = []
    ignored = 0
    for rec, line in zip(records, lines):
        rater = rec.get("_annotator_id") or rec.get("_session_id") or "annotator"
        unit = rec.get("_input_hash", rec.get("_task_hash"))
        answer = rec.get("answer")
        if answer == "ignore":
            ignored += 1
            continue
        if isinstance(rec.get("accept"), list) and "options" in rec:
            value: Any = ";".join(map(str, rec["accept"])) if answer == "accept" else None
            dim = "choice"
        else:
            value, dim = answer, str(rec.get("label", "answer"))
        out.append({"unit": str(unit), "rater": str(rater), "dimension": dim, "value": value})
        rows.append(line)
    if not out:
        raise InputError(name, None, None, "a Prodigy export with no answers")
    notes = [f"read as a Prodigy export: {len(out):,} answers (input hash = unit, annotator/session = rater, "
             "label = dimension, accept/reject = value)"]
    if ignored:
        notes.append(f"{ignored:,} answers marked 'ignore' were left out")
    return _records_table(name, out, rows, "line"), tuple(notes)


JUDGE_LOG_FIELDS = {
    "observations": {"case_id", "order", "repetition", "selected_candidate"},
    "mt-bench judgments": {"g1_winner", "g2_winner", "model_1", "model_2"},
    "mt-bench human judgments": {"winner", "model_a", "model_b"},
    "alpacaeval annotations": {"preference", "output_1", "output_2"},
}


def judge_log_shape(record: dict[str, Any]) -> str | None:
    keys = set(record)
    for shape, needed in JUDGE_LOG_FIELDS.items():
        if needed <= keys:
            return shape
    return None


# --- any file ----------------------------------------------------------------------------------


def read_source(name: str, data: bytes, mapping: Mapping | None = None, head_rows: int | None = None) -> Source:
    """Read ``data`` into a table. ``mapping`` may fix what sniffing guesses (encoding, delimiter,
    header, sheet); ``head_rows``: only the first rows (a preview)."""
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(name, None, None, "expected the file's bytes")
    data = bytes(data)
    check_size(name, len(data))
    sn = sniff(name, data)
    header = True if mapping is None else mapping.header
    notices: list[str] = [sn.notice] if sn.notice else []
    if sn.format == "parquet":
        return Source(read_parquet(name, data, head_rows), "parquet", sn)
    if sn.format == "xlsx":
        table, sheets, xl_notes = read_xlsx(name, data, mapping.sheet if mapping else None, header, head_rows)
        notices.extend(xl_notes)
        if len(sheets) > 1:
            notices.append(f"sheet {sheets[0]!r} of {len(sheets)} (the first that holds a table)"
                           if not (mapping and mapping.sheet) else f"sheet {sheets[0]!r} of {len(sheets)}")
        return Source(table, "xlsx", sn, tuple(notices), tuple(sheets))
    encoding = (mapping.encoding if mapping and mapping.encoding else None) or sn.encoding
    if sn.format in ("json", "jsonl"):
        from agreebound.formats import _json

        utf8 = transcode(name, data, encoding)
        if sn.format == "json":
            obj = _json(name, utf8)
            obj, how = _pandas_json(obj)
            if how:
                notices.append(how)
            if isinstance(obj, dict) and isinstance(obj.get("data"), list):
                obj = obj["data"]
            if not isinstance(obj, list) or not obj:
                raise InputError(name, None, None, "expected a list of records (or a Label Studio export)")
            if any(isinstance(t, dict) and ("annotations" in t or "predictions" in t) for t in obj[:50]):
                table, notes = label_studio(name, obj)
                return Source(table, "label-studio", sn, tuple(notices) + notes,
                              mapping=Mapping("long", ("unit",), "rater", "value", "dimension"))
            if not all(isinstance(r, dict) for r in obj):
                raise InputError(name, None, None, "expected a list of JSON objects (records)")
            records, rows = obj, list(range(1, len(obj) + 1))
            row_label, truncated = "record", False
        else:
            text = utf8.decode("utf-8-sig")
            records, rows, truncated = _json_lines(name, text, head_rows)
            row_label = "line"
        shape = judge_log_shape(records[0])
        if shape is not None:
            raise InputError(name, None, None, f"this is an LLM-judge log ({shape}), not ratings: audit it with "
                             "'agreebound calibrate' or on the Judge calibration page")
        if any(k in records[0] for k in ("_input_hash", "_task_hash")) and "answer" in records[0]:
            table, notes = prodigy(name, records, rows)
            return Source(table, "prodigy", sn, tuple(notices) + notes,
                          mapping=Mapping("long", ("unit",), "rater", "value", "dimension"))
        table = _records_table(name, records, rows, row_label)
        return Source(replace(table, truncated=truncated), sn.format, sn, tuple(notices))
    utf8 = transcode(name, data, encoding)
    given = mapping.delimiter if mapping and mapping.delimiter else None
    if mapping is not None and mapping.skip is not None:  # the user said where the header is
        pre = Prelude(skip=mapping.skip, delimiter=given or sniff_delimiter(_lines_after(utf8, mapping.skip)))
    else:
        pre = prelude(utf8[: 2**16].decode("utf-8-sig", "replace"), given)
    delimiter = pre.delimiter or sn.delimiter
    notices.extend(pre.notices)
    table = read_csv(name, rewrite(utf8, pre), RATINGS_EXPECTED, delimiter, header, head_rows,
                     line_offset=pre.line_offset, drop_first=pre.drop_records)
    if delimiter != ",":
        notices.append({";": "semicolon", "\t": "tab", "|": "pipe", " ": "space"}.get(delimiter, repr(delimiter))
                       + "-separated")
    return Source(table, "csv", Sniffed("csv", encoding, delimiter, sn.notice), tuple(notices), skip=pre.skip)


def _lines_after(data: bytes, skip: int) -> str:
    head = data[: 2**16].decode("utf-8-sig", "replace").splitlines()
    return "\n".join(head[skip:]) + "\n"
