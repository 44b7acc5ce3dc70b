"""Scores as tables: a scores table (any harness's scores, with the
:data:`~agreebound.io.score_values.SCORE_COLUMNS` names) read as a log, and human labels joined to
a log by item.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.score_values import (SCORE_COLUMNS, Gathered, ScoredLog, ScoreRangeError, finish_log, is_nan,
                                        lines_text, optional_number, score_row, score_value)
from agreebound.io.scored_documents import read_document
from agreebound.io.sniff import sniff
from agreebound.io.tables import Table, read_csv, transcode
from agreebound.core.limits import MAX_ROWS
from agreebound.core.json_types import JSONObject, JSONValue

# --- scores tables and human labels ------------------------------------------------------------------


def _table_records(name: str, data: bytes) -> tuple[list[JSONObject], list[int], str]:
    """A CSV or JSON Lines file's records (every CSV cell as text) and their line numbers."""
    sn = sniff(name, data)
    if sn.format in ("json", "jsonl"):
        _, records, lines = read_document(name, data)
        if not records:
            raise InputError(name, None, None, "expected records (JSON Lines or a JSON list), one score each")
        return records, lines, "line" if sn.format == "jsonl" else "record"
    if sn.format != "csv":
        raise InputError(name, None, None, "expected a CSV or JSON Lines file")
    table = read_csv(name, transcode(name, data, sn.encoding), "a CSV with a header row", sn.delimiter or ",")
    if table.n_rows > MAX_ROWS:
        raise InputError(name, None, None, f"{table.n_rows:,} rows; the limit is {MAX_ROWS:,}")
    columns = {c.name.strip(): c.values() for c in table.columns}
    records = [{k: (v[i] if v[i] != "" else None) for k, v in columns.items()} for i in range(table.n_rows)]
    return records, _csv_rows(table, data), "row"


def _csv_rows(table: Table, data: bytes) -> list[int]:
    """Each data row's row number in the file, in one pass: consecutive from the first when no record
    spans lines and no line is blank (the usual file); otherwise each found as the reader finds it
    (a scan per row: only for files with quoted line breaks or blank lines)."""
    if not table.n_rows:
        return []
    body = data.replace(b"\r\n", b"\n")
    if b'"' not in data and b"\n\n" not in body.strip(b"\n"):
        first = table.row_of(0)
        return list(range(first, first + table.n_rows))
    return [table.row_of(i) for i in range(table.n_rows)]


def table_rows(name: str, records: list[JSONObject], lines: list[int], label: str = "line") -> Gathered:
    """A long table of scores with the SCORE_COLUMNS names."""
    got = Gathered([], {}, {"tool": "scores table"}, [], [("rows without a score", [])], unit=label)
    for r, line in zip(records, lines):
        for f in ("item", "rater", "role", "score"):
            if f not in r:
                raise InputError(name, line, f, f"missing column; a scores table has {', '.join(SCORE_COLUMNS[:4])}",
                                 row_label=label)
        role = str(r["role"]).strip().lower()
        if role not in ("judge", "human"):
            raise InputError(name, line, "role", f"expected judge or human, got {excerpt(r['role'])}", row_label=label)
        value = _label_value(name, line, "score", r["score"], label)
        if value is None:
            got.left_out[0][1].append(line)
            continue
        if value[1] is not None:
            got.labels[value[0]] = value[1]
        conf = optional_number(name, line, "confidence", r.get("confidence"), label)
        if not math.isnan(conf) and not 0 <= conf <= 1:
            raise InputError(name, line, "confidence", f"expected a probability from 0 to 1, got {excerpt(conf)}",
                             row_label=label)
        got.rows.append(score_row(item_key(r["item"]), str(r["rater"]), role, value[0], str(r.get("model") or ""),
                                  optional_number(name, line, "length", r.get("length"), label), conf, line))
    got.identity["grader"] = ", ".join(dict.fromkeys(r["rater"] for r in got.rows if r["role"] == "judge"))
    return got


def _label_value(name: str, line: int, field_: str, v: JSONValue, label: str) -> tuple[float, str | None] | None:
    """A scores table's or human label file's score; None for an empty cell (or null): a missing score.
    NaN is not a missing score there (no tool writes a table's gap as NaN): refused, located."""
    if is_nan(v):
        raise InputError(name, line, field_, "expected a number or a verdict (pass/fail, yes/no, true/false, C/I/P), "
                         "got NaN (a missing score is an empty cell or null)", row_label=label)
    try:
        return score_value(v)
    except ScoreRangeError as e:
        raise InputError(name, line, field_, f"expected {e}, got {excerpt(v)}", row_label=label) from None
    except ValueError:
        raise InputError(name, line, field_, "expected a number or a verdict (pass/fail, yes/no, true/false, C/I/P), "
                         f"got {excerpt(v)}", row_label=label) from None


def scores_table(name: str, data: bytes) -> ScoredLog:
    """A plain long table of scores (CSV or JSON Lines) with the :data:`SCORE_COLUMNS` names:
    ``item, rater, role, score`` required, ``model, length, confidence, line`` optional."""
    records, lines, label = _table_records(name, data)
    return finish_log(name, "scores table", table_rows(name, records, lines, label), None, None)


#: Per shape, the parts an item id is built from ("/"-joined), each with the columns that may hold it.
JOIN_PARTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "inspect_ai": (("id", "sample_id"), ("epoch",)),
    "promptfoo": (("id", "test", "testIdx", "test_index"), ("prompt", "promptIdx", "prompt_index"),
                  ("provider", "model")),
    "mt-bench single": (("question_id", "id"), ("model",), ("turn",)),
    "judgekit": (("item_id", "id"),),
    "scores table": (),
}
_RATER = ("rater", "human", "annotator", "judge_id")
_VALUE = ("score", "label", "value")


def item_key(v: object) -> str:
    """An id as text, the same whether it came as 81, 81.0 or "81"."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip() if isinstance(v, str) else str(v)


def _human_item(name: str, log: ScoredLog, r: JSONObject, line: int, label: str, items: list[str]) -> str:
    """The log's item a human row names: its ``item``, or the shape's parts (a left-out trailing
    part is fine when one item fits); the text it named when nothing fits (counted as unmatched)."""
    if r.get("item") is not None:
        return item_key(r["item"])
    parts: list[str] = []
    for names in JOIN_PARTS.get(log.shape, ()):
        found = next((r[n] for n in names if r.get(n) is not None), None)
        if found is None:
            break
        parts.append(item_key(found))
    if not parts:
        cols = ["item"] + [n[0] for n in JOIN_PARTS.get(log.shape, ())[:1]]
        raise InputError(name, line, " or ".join(cols), "no column names the item", row_label=label)
    key = "/".join(parts)
    if len(parts) == len(JOIN_PARTS[log.shape]) or key in items:
        return key
    fits = [i for i in items if i.startswith(key + "/")]
    if len(fits) > 1:
        raise InputError(name, line, None, f"{excerpt(key)} fits {len(fits):,} items of the log (e.g. "
                         f"{excerpt(fits[0])}, {excerpt(fits[1])}); add the column that tells them apart",
                         row_label=label)
    return fits[0] if fits else key


def _joined_none(name: str, label: str, items: list[str], unmatched: list[int], first: tuple[int, str]) -> InputError:
    """Human labels none of which is for an item of the log: refused, not read as "no human labels
    were given"; with an example of each side's ids, and said when they differ only in case."""
    line, item = first
    twin = next((i for i in items if str(i).casefold() == str(item).casefold()), None)
    same = "" if twin is None else ("; ids are matched exactly, and the file's differ from the log's only in "
                                    f"upper/lower case (e.g. {excerpt(item)} and {excerpt(twin)})")
    return InputError(name, line, None, f"none of the {len(unmatched):,} human rows is for an item of the log: this "
                      f"one is for {excerpt(item)}, the log's items are e.g. "
                      f"{', '.join(excerpt(i) for i in items[:3])}{same}", row_label=label)


def join_human_labels(log: ScoredLog, name: str, data: bytes) -> ScoredLog:
    """Human scores from a CSV or JSON Lines file added to the log as role "human" rows, joined by
    item (see :data:`JOIN_PARTS`); rows for items the log does not have are counted in the notes."""
    records, lines, label = _table_records(name, data)
    items = list(dict.fromkeys(log.scores["item"]))
    known = set(items)
    rows, unmatched, blank = [], [], []
    first_unmatched: tuple[int, str] | None = None
    labels = dict(log.labels)
    for r, line in zip(records, lines):
        field_ = next((f for f in _VALUE if f in r), None)
        if field_ is None:
            raise InputError(name, line, "score", "expected a column score, label or value", row_label=label)
        item = _human_item(name, log, r, line, label, items)
        value = _label_value(name, line, field_, r[field_], label)
        if value is None:
            blank.append(line)
            continue
        if item not in known:
            unmatched.append(line)
            first_unmatched = first_unmatched or (line, item)
            continue
        if value[1] is not None:
            labels.setdefault(value[0], value[1])
        rater = next((str(r[f]) for f in _RATER if r.get(f) is not None), "human")
        rows.append(score_row(item, rater, "human", value[0], "", math.nan, math.nan, line))
    if not rows and first_unmatched is not None:
        raise _joined_none(name, label, items, unmatched, first_unmatched)
    humans = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    repeated = humans.duplicated(["item", "rater"], keep="first")
    humans = humans[~repeated.to_numpy()]
    notes = [f"{len(humans):,} human scores joined from {name} ({humans['item'].nunique():,} items, "
             f"{humans['rater'].nunique():,} raters)"]
    for what, at in (("human rows for items the log does not have", unmatched), ("human rows without a score", blank),
                     ("repeated human scores of one item by one rater (the first is kept)",
                      [int(x) for x in pd.DataFrame(rows, columns=list(SCORE_COLUMNS)).loc[repeated.to_numpy(), "line"]])):
        if at:
            notes.append(f"{len(at):,} {what} left out ({label}s {lines_text(at)})")
    scores = pd.concat([log.scores, humans.astype(log.scores.dtypes.to_dict())], ignore_index=True)
    if len(scores) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(scores):,} scores; the limit is {MAX_ROWS:,}")
    return replace(log, scores=scores, labels=labels, notes=log.notes + tuple(notes))
