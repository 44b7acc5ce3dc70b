"""Annotation data sets as users keep them -> long ratings (unit, rater, value[, dimension]).

Three shapes nest several ratings in one row; each is recognised by its fields, read into one row
per rating, and said so in a note (what was read, and how many things were left out and why):

* **A data set with list columns** (Hugging Face ``datasets`` rows, as JSON Lines, JSON, Parquet,
  an Arrow file or a ``save_to_disk`` folder): a list of raters beside a list of their labels,
  paired by position, e.g. ``{"id": 7, "annotators": ["a1", "a2"], "labels": ["x", "y"]}``. The
  column names recognised are :data:`RATER_LISTS` and :data:`VALUE_LISTS` (several value lists
  beside one rater list: each is a dimension); the unit is :data:`UNIT_FIELDS`' first, else the
  row. Class-label codes (a ``ClassLabel`` feature in the file's Hugging Face metadata) are read as
  their names.
* **Argilla v2, nested** (``dataset.records.to_json``): records with ``fields`` and
  ``responses: {question: [{user_id, value, status}]}``.
* **Argilla v2, flattened** (``to_datasets()`` / the Hub export): ``<question>.responses``,
  ``<question>.responses.users`` and ``<question>.responses.status`` list columns.

For Argilla, each question is a dimension, the record's ``id`` the unit and ``user_id`` the
rater. Only *submitted* responses are ratings: drafts and discarded responses are left out and
counted; a response with no status (older exports) is read as submitted, and counted. A question
whose answers are lists (multi-label, ranking, spans) is left out, named; suggestions (a model's
pre-annotations) are not raters and are counted, not read.

This module recognises the shapes and reads their records; :mod:`agreebound.io.arrow_datasets`
reads the Arrow and Parquet files and ``save_to_disk`` folders that hold them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt, plural, printable
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.mapping import Mapping
from agreebound.io.tables import Table, list_type, table_from_values
from agreebound.core.limits import MAX_ROWS

if TYPE_CHECKING:
    import pyarrow as pa

#: A list of who rated, recognised by its column name (case and surrounding spaces ignored).
RATER_LISTS = ("annotators", "annotator_ids", "annotator", "raters", "rater_ids", "workers", "worker_ids",
               "users", "user_ids", "labelers", "labeler_ids")
#: A list of what each rated, paired with the rater list by position.
VALUE_LISTS = ("labels", "label", "answers", "annotations", "ratings", "scores", "judgments", "judgements")
#: The unit's id, by column name; none: each row is a unit, named by its row number.
UNIT_FIELDS = ("id", "unit", "item_id", "item", "example_id", "uid", "idx")
SUBMITTED = "submitted"


@dataclass(frozen=True)
class Shape:
    """A recognised shape: its kind and which fields play which part."""

    kind: str  # "lists" | "argilla" | "argilla-flat"
    unit: str | None = None  # the unit's field (None: the row)
    rater: str | None = None  # lists: the rater list
    values: tuple[str, ...] = ()  # lists: the value lists; argilla-flat: the questions
    class_names: dict[str, list[str]] = field(default_factory=dict)  # lists: ClassLabel names by value list

    def columns(self) -> list[str]:
        """The fields the shape reads (the rest of a row is never decoded)."""
        if self.kind == "lists":
            out = [self.rater or "", *self.values]
        elif self.kind == "argilla-flat":
            out = []
            for q in self.values:
                out += [f"{q}.responses", f"{q}.responses.users", f"{q}.responses.status", f"{q}.suggestion"]
        else:
            out = ["responses", "suggestions"]
        return ([self.unit] if self.unit else []) + out


def _key(name: object) -> str:
    return str(name).strip().lower()


def _find(names: Sequence[str], wanted: Sequence[str]) -> list[str]:
    """The names among ``names`` that are in ``wanted`` (compared as :func:`_key`), in ``wanted``'s order."""
    by_key: dict[str, str] = {}
    for n in names:
        by_key.setdefault(_key(n), n)
    return [by_key[w] for w in wanted if w in by_key]


def _unit_field(names: Sequence[str], scalar: Callable[[str], bool]) -> str | None:
    return next((n for n in _find(names, UNIT_FIELDS) if scalar(n)), None)


# --- recognising ---------------------------------------------------------------------------------


def records_shape(head: Sequence[JSONObject]) -> Shape | None:
    """The shape of JSON records by their first records' fields, or None (read as flat records)."""
    if not head:
        return None
    first = head[0]
    names = list(dict.fromkeys(k for rec in head for k in rec))

    def holds(n: str, kinds: tuple[type, ...]) -> bool:
        return any(isinstance(rec.get(n), kinds) for rec in head)

    def scalar(n: str) -> bool:
        return not holds(n, (list, dict))

    if isinstance(first.get("fields"), dict) and isinstance(first.get("responses"), dict):
        return Shape("argilla", unit=next((n for n in ("id", "_server_id") if n in first and scalar(n)), None))
    questions = tuple(n[: -len(".responses")] for n in names
                      if n.endswith(".responses") and n + ".users" in names and holds(n, (list,)))
    if questions:
        return Shape("argilla-flat", unit=next((n for n in ("id", "_server_id") if n in names and scalar(n)), None),
                     values=questions)
    raters = [n for n in _find(names, RATER_LISTS) if holds(n, (list,))]
    values = tuple(n for n in _find(names, VALUE_LISTS) if holds(n, (list,)))
    if raters and values:
        return Shape("lists", unit=_unit_field(names, scalar), rater=raters[0], values=values)
    return None


def arrow_shape(schema: pa.Schema) -> Shape | None:
    """The shape of an Arrow or Parquet schema by its column names and list types, or None."""
    names = list(schema.names)
    types = {f.name: f.type for f in schema}

    def is_list(n: str) -> bool:
        return list_type(types[n])

    def scalar(n: str) -> bool:
        import pyarrow.types as pt

        return not (is_list(n) or pt.is_struct(types[n]) or pt.is_map(types[n]))

    questions = tuple(n[: -len(".responses")] for n in names
                      if n.endswith(".responses") and n + ".users" in types and is_list(n))
    if questions:
        return Shape("argilla-flat", unit=next((n for n in ("id", "_server_id") if n in types and scalar(n)), None),
                     values=questions)
    raters = [n for n in _find(names, RATER_LISTS) if is_list(n)]
    values = tuple(n for n in _find(names, VALUE_LISTS) if is_list(n))
    if raters and values:
        return Shape("lists", unit=_unit_field(names, scalar), rater=raters[0], values=values,
                     class_names=_class_names(schema, values))
    return None


def _class_names(schema: pa.Schema, columns: Sequence[str]) -> dict[str, list[str]]:
    """The ClassLabel names of list columns, from the Hugging Face features a file carries."""
    try:
        meta = json.loads((schema.metadata or {}).get(b"huggingface", b"{}"))
        features = meta.get("info", {}).get("features", {})
    except (ValueError, AttributeError, TypeError):
        return {}
    out = {}
    for c in columns:
        f = features.get(c) if isinstance(features, dict) else None
        inner = f.get("feature") if isinstance(f, dict) else (f[0] if isinstance(f, list) and len(f) == 1 else None)
        if isinstance(inner, dict) and inner.get("_type") == "ClassLabel" and isinstance(inner.get("names"), list):
            out[c] = [str(n) for n in inner["names"]]
    return out


# --- reading -------------------------------------------------------------------------------------


class _Long:
    """Long ratings as they are read: one entry per rating, with the source row it came from."""

    def __init__(self, name: str, row_label: str) -> None:
        self.name, self.row_label = name, row_label
        self.units: list[JSONValue] = []
        self.raters: list[JSONValue] = []
        self.dims: list[str] = []
        self.values: list[JSONValue] = []
        self.rows: list[int] = []

    def add(self, unit: JSONValue, rater: JSONValue, dim: str, value: JSONValue, row: int, field_name: str) -> None:
        if len(self.rows) >= MAX_ROWS:
            raise InputError(self.name, row, None, f"more than {MAX_ROWS:,} ratings; the limit is {MAX_ROWS:,}",
                             row_label=self.row_label)
        if rater is None or isinstance(rater, (list, dict)) or (isinstance(rater, str) and not rater.strip()):
            raise InputError(self.name, row, field_name, f"a rating without a rater ({excerpt(rater)}); every "
                             "rating needs who gave it", row_label=self.row_label)
        if isinstance(value, (list, dict)):
            raise InputError(self.name, row, field_name, f"a list inside the list ({excerpt(json.dumps(value))}): "
                             "one label per rater expected", row_label=self.row_label)
        self.units.append(_cell(unit))
        self.raters.append(_cell(rater))
        self.dims.append(dim)
        self.values.append(_cell(value))
        self.rows.append(row)

    def drop(self, dims: set[str]) -> None:
        keep = [i for i, d in enumerate(self.dims) if d not in dims]
        for name in ("units", "raters", "dims", "values", "rows"):
            col = getattr(self, name)
            setattr(self, name, [col[i] for i in keep])

    def table(self, unit: str, rater: str, value: str, dimension: str | None, truncated: bool) -> Table:
        names = [unit, rater] + ([dimension] if dimension else []) + [value]
        cols = [self.units, self.raters] + ([self.dims] if dimension else []) + [self.values]
        return table_from_values(self.name, names, cols, "records", np.array(self.rows, dtype=np.int64),
                                 self.row_label, truncated=truncated)


def _cell(v: JSONValue) -> JSONValue:
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def _unit(rec: JSONObject, shape: Shape, row: int) -> JSONValue:
    u = rec.get(shape.unit) if shape.unit else None
    return row if u is None else u


def _read_lists(name: str, shape: Shape, records: Iterable[tuple[JSONObject, int]], row_label: str,
                head_rows: int | None) -> tuple[Table, tuple[str, ...], Mapping]:
    assert shape.rater is not None
    out = _Long(name, row_label)
    seen = truncated = False
    for n, (rec, row) in enumerate(records):
        if head_rows is not None and n >= head_rows:
            truncated = True
            break
        seen = True
        raters = rec.get(shape.rater)
        for vc in shape.values:
            vals = rec.get(vc)
            if vals is None or (isinstance(vals, list) and not vals and not raters):
                continue
            if not isinstance(vals, list):
                raise InputError(name, row, vc, f"expected a list of labels (one per rater in {shape.rater!r}); got "
                                 f"{excerpt(vals)}", row_label=row_label)
            if not isinstance(raters, list) or len(raters) != len(vals):
                have = len(raters) if isinstance(raters, list) else 0
                raise InputError(name, row, vc, f"{plural(len(vals), 'label')} beside {plural(have, 'rater')} in "
                                 f"{shape.rater!r}; the lists pair a rater with a label by position",
                                 row_label=row_label)
            names = shape.class_names.get(vc)
            for r, v in zip(raters, vals):
                if names is not None and isinstance(v, int) and not isinstance(v, bool):
                    if v == -1:  # datasets' code for no label
                        v = None
                    elif 0 <= v < len(names):
                        v = names[v]
                    else:
                        raise InputError(name, row, vc, f"class-label code {v} outside the feature's "
                                         f"{len(names)} names", row_label=row_label)
                out.add(_unit(rec, shape, row), r, vc, v, row, vc)
    if not seen or not out.rows:
        raise InputError(name, None, None, f"a data set with list columns {shape.rater!r} and "
                         f"{', '.join(map(repr, shape.values))} but no ratings in them")
    unit = shape.unit or "row"
    several = len(shape.values) > 1
    table = out.table(unit, shape.rater, "value" if several else shape.values[0], "dimension" if several else None,
                      truncated)
    notes = [f"read as a data set with list columns: each rater in {shape.rater!r} paired with the label at the same "
             f"place in {' / '.join(repr(v) for v in shape.values)}, {plural(len(out.rows), 'rating')}"
             + ("" if not several else "; each label column is a dimension")]
    notes.append(f"units: the {shape.unit!r} field" if shape.unit else
                 f"units: the {row_label}s (no id field: each {row_label} is a unit, named by its number)")
    for vc, names in shape.class_names.items():
        notes.append(f"{vc!r} holds class-label codes: read as their names ({', '.join(printable(n, 30) for n in names[:8])}"
                     + (", ..." if len(names) > 8 else "") + ")")
    mapping = Mapping("long", (unit,), shape.rater, "value" if several else shape.values[0],
                      "dimension" if several else None)
    return table, tuple(notes), mapping


def _argilla_responses(rec: JSONObject, shape: Shape, name: str, row: int,
                       row_label: str) -> Iterator[tuple[str, JSONValue, JSONValue, JSONValue]]:
    """(question, user, value, status) of each response of one Argilla record, nested or flattened."""
    if shape.kind == "argilla":
        responses = rec.get("responses")
        if responses is None:
            return
        if not isinstance(responses, dict):
            raise InputError(name, row, "responses", "expected an object of questions, each a list of responses",
                             row_label=row_label)
        for q, rs in responses.items():
            if rs is None:
                continue
            if not isinstance(rs, list):
                raise InputError(name, row, f"responses.{q}", "expected a list of responses", row_label=row_label)
            for r in rs:
                if not isinstance(r, dict):
                    raise InputError(name, row, f"responses.{q}", "expected a response object (user_id, value, "
                                     "status)", row_label=row_label)
                yield str(q), r.get("user_id"), r.get("value"), r.get("status")
        return
    for q in shape.values:
        vals: JSONValue = rec.get(f"{q}.responses")
        users: JSONValue = rec.get(f"{q}.responses.users")
        status: JSONValue = rec.get(f"{q}.responses.status")
        if vals is None and users is None:
            continue
        for what, got in ((f"{q}.responses", vals), (f"{q}.responses.users", users)):
            if not isinstance(got, list):
                raise InputError(name, row, what, f"expected a list; got {excerpt(got)}", row_label=row_label)
        if len(vals) != len(users) or (isinstance(status, list) and len(status) != len(vals)):
            raise InputError(name, row, f"{q}.responses", f"{plural(len(vals), 'response')} beside "
                             f"{plural(len(users), 'user')}" + (f" and {len(status):,} statuses"
                                                               if isinstance(status, list) else "")
                             + "; the lists pair by position", row_label=row_label)
        states = status if isinstance(status, list) else [None] * len(vals)
        yield from ((q, u, v, s) for u, v, s in zip(users, vals, states))


def _suggestions(rec: JSONObject, shape: Shape) -> int:
    if shape.kind == "argilla":
        s = rec.get("suggestions")
        return sum(1 for v in s.values() if v is not None) if isinstance(s, dict) else 0
    return sum(1 for q in shape.values if rec.get(f"{q}.suggestion") is not None)


def _read_argilla(name: str, shape: Shape, records: Iterable[tuple[JSONObject, int]], row_label: str,
                  head_rows: int | None) -> tuple[Table, tuple[str, ...], Mapping]:
    out = _Long(name, row_label)
    left: Counter[str] = Counter()
    no_status = suggestions = 0
    list_questions: dict[str, int] = {}
    truncated = False
    records_read = 0
    for n, (rec, row) in enumerate(records):
        if head_rows is not None and n >= head_rows:
            truncated = True
            break
        records_read += 1
        suggestions += _suggestions(rec, shape)
        for q, user, value, status in _argilla_responses(rec, shape, name, row, row_label):
            if status is None:
                no_status += 1
            elif str(status) != SUBMITTED:
                left[str(status)] += 1
                continue
            if isinstance(value, (list, dict)):
                list_questions[q] = list_questions.get(q, 0) + 1
                continue
            out.add(_unit(rec, shape, row), user, q, value, row, "user_id" if shape.kind == "argilla"
                    else f"{q}.responses.users")
    out.drop(set(list_questions))
    lost = [f"{k:,} {printable(s, 40)}" for s, k in sorted(left.items())]
    if not out.rows:
        why = f" ({', '.join(lost)} responses left out: only submitted responses are ratings)" if lost else ""
        raise InputError(name, None, None, f"an Argilla export with no submitted responses to read{why}")
    form = "nested records" if shape.kind == "argilla" else "flattened columns"
    questions = sorted(set(out.dims))
    notes = [f"read as an Argilla export ({form}): {plural(len(out.rows), 'submitted response')} from "
             f"{plural(records_read, 'record')} (record id = unit, user = rater, question = dimension: "
             f"{', '.join(printable(q, 40) for q in questions)})"]
    if not shape.unit:
        notes.append(f"the records have no id: each {row_label} is a unit, named by its number")
    if lost:
        notes.append(f"left out: {', '.join(lost)} responses (only submitted responses are ratings; drafts and "
                     "discarded responses are not)")
    if no_status:
        notes.append(f"{plural(no_status, 'response')} carry no status (an older export): read as submitted")
    for q, k in list_questions.items():
        notes.append(f"question {printable(q, 40)!r} left out ({plural(k, 'response')}): its answers are lists "
                     "(multi-label, ranking or spans), and a rating here is one label")
    if suggestions:
        notes.append(f"{plural(suggestions, 'suggestion')} (pre-annotations) left out: suggestions are not raters")
    unit = shape.unit or row_label
    table = out.table(unit, "user_id", "value", "question", truncated)
    return table, tuple(notes), Mapping("long", (unit,), "user_id", "value", "question")


def read_shaped(name: str, shape: Shape, records: Iterable[tuple[JSONObject, int]], row_label: str,
                head_rows: int | None = None) -> tuple[Table, tuple[str, ...], Mapping]:
    """Records of a recognised shape -> (a long table, notes, the mapping that reads it)."""
    if shape.kind == "lists":
        return _read_lists(name, shape, records, row_label, head_rows)
    return _read_argilla(name, shape, records, row_label, head_rows)


def shape_format(shape: Shape) -> str:
    """The format a report names: "dataset-lists", "argilla" or "argilla-flat"."""
    return "dataset-lists" if shape.kind == "lists" else shape.kind
