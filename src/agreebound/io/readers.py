"""Bytes in any supported rating format -> one :class:`~agreebound.io.tables.Table`, within the limits.

The formats are :data:`agreebound.io.registry.FORMATS`: :func:`read_source` reads a file in the
first file format there whose recogniser accepts its bytes, and a JSON or JSON Lines file as the
first record shape its first records have (annotation-tool exports and data set shapes become
long tables (unit, rater, value[, dimension]) with a notice saying which fields were used; a
pairwise judge log's shape is refused, named). Each format's reader here takes the
:class:`~agreebound.io.sniff.Peek` its recogniser saw.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.interrupt import checkpoint
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.arrow_datasets import arrow_source, parquet_shaped
from agreebound.io.dataset_shapes import read_shaped, shape_format
from agreebound.io.json_toml import DuplicateKey, json_depth, no_constant, no_duplicates, read_json
from agreebound.io.mapping import Mapping
from agreebound.io.prelude import Prelude, plan_rows, prelude, rewrite
from agreebound.io.registry import RATINGS, dataset_shape, file_formats, rating_shapes
from agreebound.io.sniff import Peek, Sniffed, sniff_delimiter
from agreebound.core.limits import MAX_CELLS, MAX_COLUMNS, MAX_NESTING, MAX_ROWS
from agreebound.io.tables import (
    Table,
    check_size,
    read_csv,
    read_parquet,
    table_from_values,
    transcode,
    without_notes,
)

if TYPE_CHECKING:
    from agreebound.io.xlsx import Workbook

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
    extra: dict[str, object] = field(default_factory=dict)
    skip: int = 0  # CSV: lines above the header that were skipped (a title, comments, blank lines)


# --- Excel -------------------------------------------------------------------------------------


def _blank(values: tuple[object, ...]) -> bool:
    return all(v is None or (isinstance(v, str) and not v.strip()) for v in values)


def _holds_table(book: Workbook, sheet: str) -> bool:
    """At least two of the sheet's first three rows hold two values or more."""
    from agreebound.io.xlsx import iter_rows

    rows = 0
    for i, (_, values) in enumerate(iter_rows(book, sheet)):
        if i == 3:
            break
        rows += sum(v is not None for v in values) >= 2
    return rows >= 2


def read_xlsx(name: str, data: bytes, sheet: str | None = None, header: bool = True,
              head_rows: int | None = None) -> tuple[Table, list[str], tuple[str, ...]]:
    """One sheet of a workbook (cached values of formulas, as Excel shows them), streamed and
    counted while read (:mod:`agreebound.io.xlsx`): every row the sheet holds, whatever its
    ``<dimension>`` says."""
    from agreebound.io.xlsx import iter_rows, open_workbook

    book = open_workbook(name, data)
    sheets = list(book.sheets)
    if sheet is not None and sheet not in sheets:
        raise InputError(name, None, None, f"no sheet {excerpt(sheet)}; the workbook has {', '.join(sheets)}")
    if sheet is None:  # the first sheet that holds a table (at least 2 rows and 2 columns)
        sheet = next((s for s in sheets if _holds_table(book, s)), sheets[0])
    rows: list[tuple[object, ...]] = []
    numbers: list[int] = []
    truncated = False
    width = 0
    for r, values in iter_rows(book, sheet):
        if _blank(values):
            continue
        if head_rows is not None and len(rows) > head_rows:
            truncated = True
            break
        width = max(width, len(values))
        if width * (len(rows) + 1) > MAX_CELLS:
            raise InputError(name, r, None, f"the sheet has more than {MAX_CELLS:,} cells ({width:,} columns); "
                             f"the limit is {MAX_CELLS:,}")
        rows.append(tuple(("TRUE" if v else "FALSE") if isinstance(v, bool) else v for v in values))
        numbers.append(r)
    if not rows:
        raise InputError(name, None, None, f"the sheet {excerpt(sheet)} is empty; expected {RATINGS_EXPECTED}")
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


def _name(v: object) -> str:
    return "" if v is None else (str(v) if not isinstance(v, float) or not v.is_integer() else str(int(v)))


def _cell(v: object) -> object:
    """A sheet's cell as a table cell: dates and times as ISO text (labels), the rest as they are."""
    import datetime as dt

    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
    if isinstance(v, dt.timedelta):
        return str(v)
    return v


# --- JSON records and annotation exports --------------------------------------------------------


def _pandas_json(obj: JSONValue) -> tuple[JSONValue | Iterator[JSONObject], str | None]:
    """pandas' DataFrame.to_json shapes other than records, as records: orient="split"
    ({columns, index, data}), "columns" ({column: {index: value}}, the default) and "index"
    ({index: {column: value}}). The index becomes the ``unit`` field. The records are made one at
    a time, as they are tabulated (and counted)."""
    if not isinstance(obj, dict) or not obj:
        return obj, None
    if {"columns", "data"} <= set(obj) and isinstance(obj["columns"], list) and isinstance(obj["data"], list) \
            and all(isinstance(r, list) for r in obj["data"]):
        cols = [str(c) for c in obj["columns"]]
        index = obj.get("index")
        index = index if isinstance(index, list) else []
        rows = ({"unit": index[i], **dict(zip(cols, r))} if i < len(index) else dict(zip(cols, r))
                for i, r in enumerate(obj["data"]))
        return rows, "read as pandas' to_json(orient='split'): the index names the units"
    if all(isinstance(v, dict) for v in obj.values()) and not {"contract", "snapshot"} & set(obj):
        outer = list(obj)
        inner = list(dict.fromkeys(k for v in obj.values() for k in v))
        if len(inner) >= len(outer):  # orient="columns": {rater: {unit: value}}
            return (({"unit": u, **{r: obj[r].get(u) for r in outer}} for u in inner),
                    "read as pandas' to_json() (orient='columns'): outer keys are the columns, inner keys the units")
        return (({"unit": u, **obj[u]} for u in outer),
                "read as pandas' to_json(orient='index'): outer keys are the units")
    return obj, None


def _scalar(v: JSONValue) -> object:
    """A record's field as a table cell: nested values become their JSON text (so an ignored
    field never stops a file; a used one shows as an odd label)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _Columns:
    """Records become columns as they stream in; distinct fields and cells (records x fields, the
    table they make) are counted before anything is held, so a file whose every line brings a
    new key is refused at the line that crosses a limit, not after gigabytes."""

    def __init__(self, name: str, row_label: str) -> None:
        self.name, self.row_label = name, row_label
        self.columns: dict[str, list[object]] = {}
        self.rows: list[int] = []

    def add(self, record: JSONObject, row: int) -> None:
        n = len(self.rows)
        new = [k for k in map(str, record) if k not in self.columns]
        if new:
            if len(self.columns) + len(new) > MAX_COLUMNS:
                raise InputError(self.name, row, None, f"more than {MAX_COLUMNS:,} distinct fields; the limit is "
                                 f"{MAX_COLUMNS:,}", row_label=self.row_label)
            for k in new:
                self._fits(n + 1, len(self.columns) + 1, row)
                self.columns[k] = [None] * n
        self._fits(n + 1, len(self.columns), row)
        get = {str(k): v for k, v in record.items()}.get if new or any(not isinstance(k, str) for k in record) \
            else record.get
        for k, col in self.columns.items():
            v = _scalar(get(k))
            if isinstance(v, str) and not v.isascii() and _LONE_SURROGATE.search(v):
                raise InputError(self.name, row, k, "a \\u escape of half a character (a lone surrogate): not text",
                                 row_label=self.row_label)
            col.append(v)
        self.rows.append(row)
        if not n % 8192:
            checkpoint()

    def _fits(self, records: int, fields: int, row: int) -> None:
        if records * fields > MAX_CELLS:
            raise InputError(self.name, row, None, f"{records:,} records x {fields:,} distinct fields is more than "
                             f"{MAX_CELLS:,} cells; the limit is {MAX_CELLS:,}", row_label=self.row_label)

    def table(self, kind: str, truncated: bool = False) -> Table:
        return table_from_values(self.name, list(self.columns), list(self.columns.values()), kind,
                                 np.array(self.rows, dtype=np.int64), self.row_label, truncated=truncated)


def _records_table(name: str, records: Iterable[tuple[JSONObject, int]], row_label: str,
                   kind: str = "records", head_rows: int | None = None) -> Table:
    cols = _Columns(name, row_label)
    truncated = False
    for rec, row in records:
        if head_rows is not None and len(cols.rows) >= head_rows:
            truncated = True
            break
        cols.add(rec, row)
    return cols.table(kind, truncated)


_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) without a list of every line; \n, \r\n and \r end a line, as
    :meth:`str.splitlines` counts them (a JSON string never holds a raw one)."""
    at, i = 0, 0
    for i, m in enumerate(_LINE_END.finditer(text), start=1):
        yield i, text[at:m.start()]
        at = m.end()
    if at < len(text):
        yield i + 1, text[at:]


def _json_error(name: str, e: Exception, row: int, row_label: str, line: int | None) -> InputError:
    """A JSON decoding error located by its record (or line) and, for an array, its line in the
    file; never a second parse of the document."""
    where = f" (it starts on line {line:,})" if line is not None and row_label != "line" else ""
    if isinstance(e, DuplicateKey):
        return InputError(name, row, e.key, f"duplicate key in one object{where}; every key once (a repeated key "
                          "would silently replace the first)", row_label=row_label)
    if isinstance(e, RecursionError):
        return InputError(name, row, None, f"nested too deeply (more than {MAX_NESTING} levels)", row_label=row_label)
    if isinstance(e, json.JSONDecodeError):
        at = f", line {e.lineno:,} character {e.colno:,}" if row_label != "line" else f", character {e.colno:,}"
        return InputError(name, row, None, f"invalid JSON ({e.msg}{at})", row_label=row_label)
    if "digits" in str(e):
        return InputError(name, row, None, "a number with more than 4,300 digits", row_label=row_label)
    said = str(e)
    return InputError(name, row, None, said if said.startswith("invalid JSON") else f"invalid JSON ({excerpt(said, 80)})",
                      row_label=row_label)


def json_line_records(name: str, text: str) -> Iterator[tuple[JSONObject, int]]:
    """JSON Lines, one object a line, decoded as they are reached."""
    count = 0
    for i, line in _lines(text):
        if not line.strip():
            continue
        if count >= MAX_ROWS:
            raise InputError(name, i, None, f"more than {MAX_ROWS:,} records; the limit is {MAX_ROWS:,}", row_label="line")
        if (line.count("[") + line.count("{") > MAX_NESTING
                and json_depth(line.encode("utf-8", "surrogatepass")) > MAX_NESTING):
            raise InputError(name, i, None, f"nested too deeply (more than {MAX_NESTING} levels)", row_label="line")
        try:
            obj = json.loads(line, parse_constant=no_constant, object_pairs_hook=no_duplicates)
        except (ValueError, RecursionError) as e:
            raise _json_error(name, e, i, "line", i) from None
        if not isinstance(obj, dict):
            raise InputError(name, i, None, "expected one JSON object per line", row_label="line")
        count += 1
        yield obj, i


def json_array_items(name: str, data: bytes, text: str) -> Iterator[tuple[JSONValue, int]]:
    """A JSON array's elements one at a time (an element's number from 1), never the whole
    document as objects: a 100 MB export costs its text and what is kept of each element."""
    if json_depth(data) > MAX_NESTING:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
    decoder = json.JSONDecoder(parse_constant=no_constant, object_pairs_hook=no_duplicates)
    ws = " \t\n\r"  # JSON's whitespace, and only it
    size = len(text)
    at = 0
    while at < size and text[at] in ws:
        at += 1
    at += 1  # the "[" the caller saw
    n = 0

    def line_at(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def bad(what: str, pos: int) -> InputError:
        return InputError(name, line_at(pos), None, f"invalid JSON ({what}, after record {n:,})", row_label="line")

    while True:
        while at < size and text[at] in ws:
            at += 1
        if at < size and text[at] == "]" and n == 0:
            at += 1
            break
        try:
            obj, end = decoder.raw_decode(text, at)
        except (ValueError, RecursionError) as e:
            raise _json_error(name, e, n + 1, "record", line_at(at)) from None
        at = end
        n += 1
        if n > MAX_ROWS:
            raise InputError(name, n, None, f"more than {MAX_ROWS:,} records; the limit is {MAX_ROWS:,}", row_label="record")
        yield obj, n
        while at < size and text[at] in ws:
            at += 1
        if at < size and text[at] == ",":
            at += 1
            continue
        if at < size and text[at] == "]":
            at += 1
            break
        raise bad("expected , or ] between the array's elements", at)
    while at < size and text[at] in ws:
        at += 1
    if at < size:
        raise bad("text after the array", at)


def _first_value(v: JSONValue) -> JSONValue:
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


def _who(v: JSONValue) -> str:
    if isinstance(v, dict):
        return str(v.get("email") or v.get("id") or json.dumps(v, sort_keys=True))
    return str(v)


def label_studio(name: str, tasks: Iterable[tuple[JSONValue, int]]) -> tuple[Table, tuple[str, ...]]:
    """Label Studio's JSON export: one row per (task, annotator or model, control) -> long."""
    cols = _Columns(name, "task")
    cancelled = predictions = 0
    for task, t in tasks:
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
                cols.add({"unit": str(unit), "rater": rater, "dimension": str(result.get("from_name", "all")),
                          "value": _scalar(_first_value(result.get("value")))}, t)
    if not cols.rows:
        raise InputError(name, None, None, "a Label Studio export with no annotation results")
    notes = [f"read as a Label Studio export: {len(cols.rows):,} results (task id = unit, annotator = rater, "
             "control name = dimension)"]
    if cancelled:
        notes.append(f"{cancelled:,} cancelled annotations were left out")
    if predictions:
        notes.append(f"{predictions:,} model predictions are raters named model:<version> (independent detectors)")
    return cols.table("task"), tuple(notes)


def prodigy(name: str, records: Iterable[tuple[JSONObject, int]],
            head_rows: int | None = None) -> tuple[Table, tuple[str, ...]]:
    """Prodigy's JSONL: binary answers (accept/reject a label) or choices (the accepted options)."""
    cols = _Columns(name, "line")
    ignored = 0
    truncated = False
    for rec, line in records:
        if head_rows is not None and len(cols.rows) >= head_rows:
            truncated = True
            break
        rater = rec.get("_annotator_id") or rec.get("_session_id") or "annotator"
        unit = rec.get("_input_hash", rec.get("_task_hash"))
        answer = rec.get("answer")
        if answer == "ignore":
            ignored += 1
            continue
        if isinstance(rec.get("accept"), list) and "options" in rec:
            value: JSONValue = ";".join(map(str, rec["accept"])) if answer == "accept" else None
            dim = "choice"
        else:
            value, dim = answer, str(rec.get("label", "answer"))
        cols.add({"unit": str(unit), "rater": str(rater), "dimension": dim, "value": value}, line)
    if not cols.rows:
        raise InputError(name, None, None, "a Prodigy export with no answers")
    notes = [f"read as a Prodigy export: {len(cols.rows):,} answers (input hash = unit, annotator/session = rater, "
             "label = dimension, accept/reject = value)"]
    if ignored:
        notes.append(f"{ignored:,} answers marked 'ignore' were left out")
    return cols.table("line", truncated), tuple(notes)


def _json_source(name: str, utf8: bytes, sn: Sniffed, notices: list[str], head_rows: int | None) -> Source:
    """JSON records, JSON Lines, and the annotation tools' exports, streamed: an array's elements
    and a file's lines are decoded one at a time and tabulated as they come."""
    text = utf8.decode("utf-8-sig")
    items: Iterator[tuple[JSONValue, int]]
    if sn.format == "jsonl":
        items, row_label = json_line_records(name, text), "line"
    elif text.lstrip(" \t\n\r").startswith("["):  # JSON's own whitespace: anything else is not JSON
        items, row_label = json_array_items(name, utf8, text), "record"
    else:
        obj, how = _pandas_json(read_json(name, utf8))
        if how:
            notices.append(how)
        if isinstance(obj, dict) and isinstance(obj.get("data"), list):
            obj = obj["data"]
        if isinstance(obj, dict) or not isinstance(obj, Iterable) or isinstance(obj, (str, bytes)):
            raise InputError(name, None, None, "expected a list of records (or a Label Studio export)")
        items, row_label = ((r, i) for i, r in enumerate(obj, start=1)), "record"
    head = list(itertools.islice(items, 50))
    if not head:
        if sn.format == "jsonl":
            raise InputError(name, None, None, "the file has no JSON records")
        raise InputError(name, None, None, "expected a list of records (or a Label Studio export)")
    peek = Peek(name, utf8, records=tuple(head), sniffed=sn)
    for fmt in rating_shapes(sn.format):  # the registry's order: the first shape the first records have
        if fmt.recognise is not None and fmt.recognise(peek):
            if RATINGS not in fmt.inputs:  # a pairwise judge log's shape
                raise InputError(name, None, None, f"this is an LLM-judge log ({fmt.name}), not ratings: audit it "
                                 "with 'agreebound calibrate' or on the Judge calibration page")
            return fmt.load()(peek, items, row_label, notices, head_rows)
    records = _objects(name, itertools.chain(head, items), row_label)
    table = _records_table(name, records, row_label, head_rows=head_rows)
    return Source(table, sn.format, sn, tuple(notices))


def label_studio_source(peek: Peek, rest: Iterator[tuple[JSONValue, int]], row_label: str, notices: list[str],
                        head_rows: int | None) -> Source:
    """A Label Studio export's tasks (the first ones the recogniser saw, then the rest)."""
    table, notes = label_studio(peek.name, itertools.chain(peek.records, rest))
    return Source(table, "label-studio", peek.sniffed, tuple(notices) + notes,
                  mapping=Mapping("long", ("unit",), "rater", "value", "dimension"))


def prodigy_source(peek: Peek, rest: Iterator[tuple[JSONValue, int]], row_label: str, notices: list[str],
                   head_rows: int | None) -> Source:
    records = _objects(peek.name, itertools.chain(peek.records, rest), row_label)
    table, notes = prodigy(peek.name, records, head_rows)
    return Source(table, "prodigy", peek.sniffed, tuple(notices) + notes,
                  mapping=Mapping("long", ("unit",), "rater", "value", "dimension"))


def shaped_source(peek: Peek, rest: Iterator[tuple[JSONValue, int]], row_label: str, notices: list[str],
                  head_rows: int | None) -> Source:
    """Lists of raters and labels, or an Argilla export (:mod:`agreebound.io.dataset_shapes`)."""
    shape = dataset_shape(peek)
    assert shape is not None  # the registry chose this reader because a shape fits
    records = _objects(peek.name, itertools.chain(peek.records, rest), row_label)
    table, notes, known = read_shaped(peek.name, shape, records, row_label, head_rows)
    return Source(table, shape_format(shape), peek.sniffed, tuple(notices) + notes, mapping=known)


def _objects(name: str, items: Iterable[tuple[JSONValue, int]], row_label: str) -> Iterator[tuple[JSONObject, int]]:
    for obj, i in items:
        if not isinstance(obj, dict):
            raise InputError(name, i, None, "expected a JSON object (a record)", row_label=row_label)
        yield obj, i


# --- any file ----------------------------------------------------------------------------------


def read_source(name: str, data: bytes, mapping: Mapping | None = None, head_rows: int | None = None) -> Source:
    """Read ``data`` into a table, in the first file format of the registry serving ratings whose
    recogniser accepts it. ``mapping`` may fix what sniffing guesses (encoding, delimiter, header,
    sheet); ``head_rows``: only the first rows (a preview)."""
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(name, None, None, "expected the file's bytes")
    data = bytes(data)
    check_size(name, len(data))
    peek = Peek(name, data)
    fmt = next(f for f in file_formats(RATINGS) if f.recognise is not None and f.recognise(peek))
    return fmt.load()(peek, mapping, head_rows)


def read_arrow_source(peek: Peek, mapping: Mapping | None, head_rows: int | None) -> Source:
    """A Hugging Face dataset's Arrow file, or its save_to_disk folder (pipeline.read_file)."""
    table, notes, known, kind = arrow_source(peek.name, peek.data, head_rows)
    return Source(table, kind, Sniffed("parquet"), notes, mapping=known)


def read_parquet_source(peek: Peek, mapping: Mapping | None, head_rows: int | None) -> Source:
    sn = Sniffed("parquet")
    shaped = parquet_shaped(peek.name, peek.data, head_rows)  # list columns of raters and labels, Argilla's export
    if shaped is not None:
        return Source(shaped[0], shaped[3], sn, shaped[1], mapping=shaped[2])
    return Source(read_parquet(peek.name, peek.data, head_rows), "parquet", sn)


def read_xlsx_source(peek: Peek, mapping: Mapping | None, head_rows: int | None) -> Source:
    header = True if mapping is None else mapping.header
    table, sheets, notices = read_xlsx(peek.name, peek.data, mapping.sheet if mapping else None, header, head_rows)
    table, notes = without_notes(table)
    said = list(notices) + ([notes] if notes else [])
    if len(sheets) > 1:
        said.append(f"sheet {sheets[0]!r} of {len(sheets)} (the first that holds a table)"
                    if not (mapping and mapping.sheet) else f"sheet {sheets[0]!r} of {len(sheets)}")
    return Source(table, "xlsx", Sniffed("xlsx"), tuple(said), tuple(sheets))


def read_json_source(peek: Peek, mapping: Mapping | None, head_rows: int | None) -> Source:
    """JSON records or JSON Lines: a record shape the registry knows, else flat records."""
    sn = peek.sniffed
    notices: list[str] = [sn.notice] if sn.notice else []
    encoding = (mapping.encoding if mapping and mapping.encoding else None) or sn.encoding
    return _json_source(peek.name, transcode(peek.name, peek.data, encoding), sn, notices, head_rows)


def read_csv_source(peek: Peek, mapping: Mapping | None, head_rows: int | None) -> Source:
    """Delimited text: the lines above the header found, the delimiter and encoding sniffed (or given)."""
    name, data, sn = peek.name, peek.data, peek.sniffed
    header = True if mapping is None else mapping.header
    notices: list[str] = [sn.notice] if sn.notice else []
    encoding = (mapping.encoding if mapping and mapping.encoding else None) or sn.encoding
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
    table, notes = without_notes(table)
    notices.extend([notes] if notes else [])
    return Source(table, "csv", Sniffed("csv", encoding, delimiter, sn.notice), tuple(notices), skip=pre.skip)


def _lines_after(data: bytes, skip: int) -> str:
    head = data[: 2**16].decode("utf-8-sig", "replace").splitlines()
    return "\n".join(head[skip:]) + "\n"
