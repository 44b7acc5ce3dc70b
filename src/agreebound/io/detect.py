"""A suggested mapping for a table, and the reasons, in words. Pure: a table's header and its first
rows in, a :class:`~agreebound.io.mapping.Mapping` out; the user can change every choice.

>>> from agreebound.io.tables import table_from_values
>>> t = table_from_values("x.csv", ["item_id", "annotator", "label", "note"],
...                       [["a", "a", "b"], ["x", "y", "x"], ["1", "2", "1"], ["", "", ""]], "csv")
>>> suggest(t).mapping
Mapping(layout='long', unit=('item_id',), rater='annotator', value='label', dimension=None, raters=None, ignore=('note',), humans=None, level=None, positive=None, missing=(), header=True, sheet=None, delimiter=None, encoding=None, skip=None, decimal='.', order=(), recode=())
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import normalise_name
from agreebound.io.mapping import Mapping
from agreebound.io.tables import MISSING_TOKENS, Table

UNIT_NAMES = ("unit", "units", "unit_id", "item", "items", "item_id", "subject", "subjects", "subject_id", "id",
              "case", "case_id", "doc", "doc_id", "document", "document_id", "text_id", "sentence_id", "segment",
              "segment_id", "sample", "sample_id", "example", "example_id", "question_id", "task_id", "object",
              "object_id", "target", "target_id", "post_id", "comment_id", "message_id", "record", "record_id")
RATER_NAMES = ("rater", "raters", "rater_id", "coder", "coders", "coder_id", "annotator", "annotators",
               "annotator_id", "judge", "judges", "judge_id", "detector", "detectors", "detector_id", "labeler",
               "labeller", "labelers", "labeler_id", "worker", "worker_id", "observer", "observers", "observer_id",
               "reviewer", "reviewer_id", "user", "user_id", "model", "classifier")
VALUE_NAMES = ("value", "values", "label", "labels", "rating", "ratings", "score", "scores", "annotation",
               "annotations", "code", "codes", "category", "class", "response", "answer", "judgment", "judgement",
               "grade", "verdict", "decision")
DIMENSION_NAMES = ("dimension", "dimensions", "question", "task", "category_set", "aspect", "attribute",
                   "criterion", "facet", "variable", "harm", "policy")
#: Columns of a wide file that are clearly not raters: ignored, with a notice.
NOT_RATERS = ("text", "texts", "sentence", "content", "body", "comment", "comments", "note", "notes", "title",
              "url", "link", "date", "time", "timestamp", "created_at", "updated_at", "duration", "prompt",
              "source", "language", "lang", "split", "gold", "truth", "description")
#: What an annotation tool writes beside a rating (Label Studio's CSV and JSON-MIN exports:
#: annotation_id, created_at, updated_at, lead_time): never a rating, so never the value column.
_BOOKKEEPING = NOT_RATERS + ("lead_time", "agreement", "ground_truth", "was_cancelled", "draft_created_at")
#: A name that says its column holds ids (annotation_id, hit_id, uuid): a key, never a rating.
_ID_NAME = re.compile(r"(^|_)(id|ids|uuid|guid|hash|key)$")


def header_names(table: Table) -> list[str]:
    """The names columns go by: trimmed and normalised; an unnamed one is "column N"."""
    return [normalise_name(h) if (h or "").strip() else f"column {i + 1}" for i, h in enumerate(table.header)]


def column_key(name: str) -> str:
    """How header names are compared: case, spaces, dashes and dots do not matter."""
    return re.sub(r"[\s\-.]+", "_", normalise_name(name).lower()).strip("_")


@dataclass(frozen=True)
class Suggestion:
    mapping: Mapping
    reasons: tuple[str, ...]  # how the layout and roles were chosen, in words


def _values(table: Table, col: int, limit: int = 2000) -> list[str]:
    c = table.columns[col]
    uniques = c.uniques
    out = []
    for code in c.codes[:limit]:
        v = uniques[code] if code >= 0 else None
        out.append("" if v is None else str(v))
    return out


def _looks_like_id(table: Table, col: int) -> bool:
    """Distinct in (almost) every row and not drawn from the other columns' values."""
    vals = [v for v in _values(table, col) if v.strip() not in MISSING_TOKENS]
    if len(vals) < 2:
        return False
    distinct = len(set(vals)) >= 0.95 * len(vals)
    others: set[str] = set()
    for j in range(len(table.columns)):
        if j != col:
            others.update(_values(table, j, 500))
    shared = sum(v in others for v in set(vals)) / max(len(set(vals)), 1)
    return distinct and shared < 0.5


#: Headers pandas writes for a column that had no name ("Unnamed: 0"): unnamed, like R's "".
_UNNAMED = re.compile(r"Unnamed: \d+(_level_\d+)?")


def _number_text(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


_INDEX_LEVEL = re.compile(r"__index_level_\d+__")
#: Names of a second id level (a sentence within a document, a turn within a dialogue): only such
#: a column joins a unit id that repeats, never a rater.
_ID_HINT = re.compile(r"(^|_)(id|idx|index|no|nr|num|number|seq|sent|sentence|seg|segment|turn|pos|position|line|row|"
                      r"part|para|paragraph|chunk|span|token|page|section|step|round|trial|session|block|item|unit)"
                      r"s?(_|$)")


def _all_empty(table: Table, col: int) -> bool:
    return all(not v.strip() for v in _values(table, col, 5000))


def _not_a_value(table: Table, col: int) -> bool:
    """The column's values do not occur in the columns to its right (ids, not ratings)."""
    mine = {v.strip().casefold() for v in _values(table, col, 500) if v.strip()}
    if not mine:
        return False
    others: set[str] = set()
    for j in range(col + 1, len(table.columns)):
        others.update(v.strip().casefold() for v in _values(table, j, 500))
    return len(mine & others) < 0.2 * len(mine)


def _distinct_rows(table: Table, cols: list[int]) -> set[tuple[str, ...]]:
    return set(zip(*(_values(table, c, 5000) for c in cols)))


def _unique_rows(table: Table, cols: list[int]) -> bool:
    return len(_distinct_rows(table, cols)) == min(table.n_rows, 5000)


def _first_row_is_data(table: Table, header: list[str]) -> str | None:
    """Why the row read as the header is data (None: it is a header). Numbers are data unless
    they are a tool's made-up names (an empty first cell, then 0..n-1 or 1..n) or ids that never
    occur as a value (101, 102, ...); a name followed by repeated numbers is a rater's row; a row
    whose every cell occurs again below in its column is a record."""
    cells = [h.strip() for h in header]
    filled = [c for c in cells if c]
    if not filled:
        return None
    numbers = [c for c in filled if _number_text(c) or c in MISSING_TOKENS]
    if len(numbers) == len(filled) and len(filled) >= len(cells) // 2:
        ints = [c for c in filled if re.fullmatch(r"-?\d+", c)]
        if not cells[0] and len(ints) == len(filled) and [int(c) for c in ints] in (
                list(range(len(ints))), list(range(1, len(ints) + 1))):
            return None  # pandas' / R's default column names over a transposed table
        if len(ints) == len(filled) and len(set(ints)) == len(ints) and table.n_rows >= 2:
            seen = {v.strip() for j in range(len(table.columns)) for v in _values(table, j, 500)}
            if not seen & set(ints):
                return None  # numeric ids (rater 101, 102, ...) that never occur as a value
        return "it holds numbers"
    rest = cells[1:]
    if cells[0] and not _number_text(cells[0]) and rest and all(not c or _number_text(c) or c in MISSING_TOKENS
                                                                for c in rest):
        named = [c for c in rest if c]
        if len(named) >= 3 and len(set(named)) < len(named):
            return "a name, then repeated numbers"
    if table.n_rows >= 3 and len(filled) >= 2:
        recurs = all(not c or c in set(v.strip() for v in _values(table, j, 2000)) for j, c in enumerate(cells))
        if recurs:
            return "each of its cells occurs again below in its column"
    return None


def _text_column(table: Table, col: int, include_first: bool = False) -> bool:
    """Most values of column ``col`` are names (not numbers, not missing)."""
    vals = [v.strip() for v in _values(table, col, 500)]
    if include_first:
        vals.append(table.header[col].strip())
    vals = [v for v in vals if v and v not in MISSING_TOKENS]
    return bool(vals) and sum(not _number_text(v) for v in vals) >= 0.8 * len(vals)


def _long_shape(table: Table) -> bool:
    """Three or four columns: units repeat down column 1, a few raters in column 2."""
    if table.n_rows < 4:
        return False
    units = [v for v in _values(table, 0)]
    raters = [v for v in _values(table, 1)]
    return len(set(units)) <= 0.8 * len(units) and len(set(raters)) <= max(2, 0.5 * len(raters))


def _free_text(table: Table, col: int) -> bool:
    """Sentences, not ratings: at least 5 values, most of them long and all different."""
    vals = [v for v in _values(table, col, 500) if v]
    if len(vals) < 5:
        return False
    return float(np.median([len(v) for v in vals])) > 40 and len(set(vals)) > 0.8 * len(vals)


#: Column names a tool makes up when the data had none: R's V1/X1, pandas' 0/1 or "Unnamed: 1".
_GENERIC = re.compile(r"(?i)(v|x|\.\.\.|unnamed: ?)?\d+")


def suggest(table: Table, known: Mapping | None = None) -> Suggestion:
    """The mapping a user most likely means; ``known`` (an annotation export's) wins."""
    if known is not None:
        return Suggestion(known, ("the file's format says which field is which",))
    s = _suggest(table)
    if table.kind == "csv" and table.delimiter != "," and _decimal_comma(table, s.mapping):
        return Suggestion(s.mapping.with_(decimal=","), s.reasons + (
            "numbers are written with a decimal comma (1,5): read as decimals",))
    return s


_COMMA_DECIMAL = re.compile(r"\s*-?\d+,\d+\s*")
_POINT_DECIMAL = re.compile(r"\s*-?\d+\.\d+\s*")


def _decimal_comma(table: Table, m: Mapping) -> bool:
    """The value columns hold 1,5-style decimals and no 1.5-style ones."""
    header = header_names(table)
    if m.layout == "long":
        cols = [header.index(m.value)] if m.value in header else []
    else:
        skip = set(m.unit) | set(m.ignore) | ({m.rater} if m.rater else set())
        cols = [i for i, h in enumerate(header) if h not in skip]
    comma = point = False
    for i in cols:
        for v in set(_values(table, i, 2000)):
            if _COMMA_DECIMAL.fullmatch(v):
                comma = True
            elif _POINT_DECIMAL.fullmatch(v):
                point = True
    return comma and not point


def _suggest(table: Table) -> Suggestion:
    header = header_names(table)
    keys = ["" if not (raw or "").strip() or _UNNAMED.fullmatch(raw.strip()) else column_key(h)
            for raw, h in zip(table.header, header)]
    if table.header_rows and (why := _first_row_is_data(table, [h if k else "" for h, k in zip(header, keys)])):
        return _without_header(table, why)
    reasons: list[str] = []
    by_names = _long_by_names(table, header, keys, reasons)
    return by_names if by_names is not None else _wide(table, header, keys, reasons)


def _without_header(table: Table, why: str) -> Suggestion:
    """The first row is data: the shape alone says long, wide or raters x units."""
    reasons = [f"the first row is data, not names ({why}): read without a header"]
    names_first = _text_column(table, 0, include_first=True)
    n_cols, n_rows = len(table.columns), table.n_rows + 1
    if n_cols in (3, 4) and _long_shape(table):
        reasons.insert(0, "one row per rating (long): unit 'column 1', rater 'column 2', value 'column 3'")
        return Suggestion(Mapping("long", ("column 1",), "column 2", "column 3",
                                  "column 4" if n_cols == 4 else None, header=False), tuple(reasons))
    if n_cols <= n_rows + 1:
        reasons.append("more rows than columns: each row is a unit, each column a rater")
        return Suggestion(Mapping("wide", ("column 1",) if names_first else (), header=False), tuple(reasons))
    reasons.append("more columns than rows: each row is a rater, each column a unit (as K-Alpha and the "
                   "krippendorff package lay data out)")
    return Suggestion(Mapping("transposed", rater="column 1" if names_first else None, header=False),
                      tuple(reasons))


def _first_named(keys: list[str], names: tuple[str, ...], exclude: set[int]) -> int | None:
    """The first column whose key is one of ``names``, other than those in ``exclude``."""
    return next((i for i, k in enumerate(keys) if k in names and i not in exclude), None)


def _long_by_names(table: Table, header: list[str], keys: list[str], reasons: list[str]) -> Suggestion | None:
    """Long (or raters x units) when the header names a rater or a value column; None: neither,
    look for a wide file. One role without the other is an error saying so."""
    rater = _first_named(keys, RATER_NAMES, set())
    value = _first_named(keys, VALUE_NAMES, {rater} if rater is not None else set())
    taken = {i for i in (rater, value) if i is not None}
    if (rater is None) != (value is None):
        rater, value = _misspelt_role(header, keys, rater, value, taken, reasons)
    if rater is not None and value is None:
        value = _lone_value(header, keys, taken, reasons)
    if rater is not None and value is not None:
        return _long(header, keys, rater, value, taken, reasons)
    if keys and keys[0] in RATER_NAMES and value is None:
        reasons.append(f"the first column {header[0]!r} names raters: one row per rater, one column per unit "
                       "(raters x units)")
        return Suggestion(Mapping("transposed", rater=header[0]), tuple(reasons))
    if (rater is None) != (value is None):
        at = rater if rater is not None else value
        assert at is not None  # exactly one of the two was found
        found = header[at]
        role, other = ("rater", "value") if rater is not None else ("value", "rater")
        left = [header[i] for i in _value_candidates(keys, taken)] if rater is not None else []
        among = f" (it may be one of {', '.join(repr(c) for c in left[:8])}{', ...' if len(left) > 8 else ''})" \
            if len(left) > 1 else ""
        raise InputError(table.file, 1, found, f"the columns look like one row per rating (a {role} column "
                         f"{found!r}) but no {other} column was found{among}: say which column is which in a "
                         "mapping (the dashboard's preview, or --mapping), or name the columns unit, rater, value")
    return None


def _misspelt_role(header: list[str], keys: list[str], rater: int | None, value: int | None, taken: set[int],
                   reasons: list[str]) -> tuple[int | None, int | None]:
    """One role found by name: is another column a misspelling of the other role?"""
    want = VALUE_NAMES if value is None else RATER_NAMES
    # an id column is no misspelt role: annotation_id is close to 'annotation' but holds keys
    spare = [k for i, k in enumerate(keys) if i not in taken and k and not _ID_NAME.search(k)]
    for k in spare:
        if get_close_matches(k, want, n=1, cutoff=0.75):
            i = keys.index(k)
            role = "value" if value is None else "rater"
            reasons.append(f"column {header[i]!r} read as the {role} column (it is close to "
                           f"{get_close_matches(k, want, n=1, cutoff=0.75)[0]!r}); change it if that is wrong")
            if value is None:
                value = i
            else:
                rater = i
            taken.add(i)
            break
    return rater, value


def _value_candidates(keys: list[str], taken: set[int]) -> list[int]:
    """Columns that could hold the ratings of a long file: named, and named like neither a unit, a
    dimension, an id nor a tool's bookkeeping (times, text, Label Studio's lead_time)."""
    return [i for i, k in enumerate(keys) if i not in taken and k and k not in UNIT_NAMES
            and k not in DIMENSION_NAMES and k not in _BOOKKEEPING and not _ID_NAME.search(k)]


def _lone_value(header: list[str], keys: list[str], taken: set[int], reasons: list[str]) -> int | None:
    """A rater column and no value column by name: the value is the one column left that is not a
    unit, an id, text, a time or a tool's bookkeeping (Label Studio's CSV export names it after the
    labelling control: ``id,text,sentiment,annotator,annotation_id,created_at,updated_at,lead_time``);
    None when there is not exactly one, or no column is named like a unit id."""
    left = _value_candidates(keys, taken)
    if len(left) != 1 or not any(k in UNIT_NAMES for i, k in enumerate(keys) if i not in taken):
        return None
    (i,) = left
    taken.add(i)
    reasons.append(f"column {header[i]!r} read as the value column (the only column that is not the unit, the "
                   "rater, an id, text or a time); change it if that is wrong")
    return i


def _long(header: list[str], keys: list[str], rater: int, value: int, taken: set[int],
          reasons: list[str]) -> Suggestion:
    """One row per rating: the unit (named, or the first spare column) and a dimension if named."""
    dimension = _first_named(keys, DIMENSION_NAMES, taken)
    if dimension is not None:
        taken.add(dimension)
    units = [i for i, k in enumerate(keys) if k in UNIT_NAMES and i not in taken]
    if not units:
        spare = [i for i in range(len(keys)) if i not in taken and keys[i]]
        if spare:
            units = [spare[0]]
            reasons.append(f"no column is named like a unit id; {header[spare[0]]!r} is the unit")
    if not units:
        units = [i for i in range(len(keys)) if i not in taken][:1]
    ignore = [header[i] for i in range(len(keys)) if i not in taken and i not in units]
    reasons.insert(0, "one row per rating (long): unit " + " + ".join(repr(header[i]) for i in units)
                   + f", rater {header[rater]!r}, value {header[value]!r}"
                   + (f", dimension {header[dimension]!r}" if dimension is not None else ""))
    if ignore:
        reasons.append(f"ignored: {', '.join(repr(c) for c in ignore)} (choose one as the dimension if it is one)")
    return Suggestion(Mapping("long", tuple(header[i] for i in units), header[rater], header[value],
                              header[dimension] if dimension is not None else None, ignore=tuple(ignore)),
                      tuple(reasons))


def _wide(table: Table, header: list[str], keys: list[str], reasons: list[str]) -> Suggestion:
    """One row per unit: leading id columns, then raters (or, by R's default names, raters x units)."""
    empty = [i for i in range(len(keys)) if not keys[i] and _all_empty(table, i)]
    if empty:
        reasons.append(f"{len(empty)} empty column{'s' if len(empty) > 1 else ''} without a name (a spreadsheet's "
                       "trailing delimiters): ignored")
    ids, ignore = _unit_columns(table, header, keys, empty, reasons)
    raters = []
    for i in range(len(keys)):
        if i in ids or header[i] in ignore:
            continue
        if keys[i] in NOT_RATERS or keys[i] in DIMENSION_NAMES or _free_text(table, i):
            ignore.append(header[i])
        else:
            raters.append(header[i])
    if ids == [0] and not keys[0] and len(raters) > max(table.n_rows, 1) and all(_GENERIC.fullmatch(r) for r in raters):
        # R's write.csv(t(m)) / pandas' df.T.to_csv(): default column names, rater names in the rows
        return Suggestion(Mapping("transposed", rater=header[0], ignore=tuple(ignore)), (
            "one row per rater, a column per unit (raters x units)",
            f"the columns have default names ({raters[0]}, {raters[1]}, ...) and outnumber the rows, and the unnamed "
            "first column names the rows: each row is a rater (as R's write.csv(t(m)) writes)"))
    reasons.insert(0, f"one row per unit (wide): {len(raters)} rater column" + ("s" if len(raters) != 1 else ""))
    skipped = [c for c in ignore if c]
    if skipped:
        reasons.append(f"not raters, ignored: {', '.join(repr(c) for c in skipped)}")
    return Suggestion(Mapping("wide", tuple(header[i] for i in ids), ignore=tuple(ignore)), tuple(reasons))


def _unit_columns(table: Table, header: list[str], keys: list[str], empty: list[int],
                  reasons: list[str]) -> tuple[list[int], list[str]]:
    """A wide file's unit id columns, and the columns ignored so far (empty ones, row names)."""
    index = [i for i, h in enumerate(table.header) if h in table.index_columns or _INDEX_LEVEL.fullmatch(h or "")]
    ids: list[int] = []
    for i, k in enumerate(keys):
        if i in empty:
            break
        named_id = k in UNIT_NAMES or not k or i in index
        if named_id or (not (ids and _unique_rows(table, ids)) and _text_column(table, i) and _not_a_value(table, i)):
            ids.append(i)  # a named or unnamed id column; or text that is no rating, while ids still repeat
        else:
            break
    ids += [i for i in index if i not in ids]
    if index:
        reasons.append("the columns the file marks as its index (" + ", ".join(repr(header[i]) for i in index)
                       + ") name the units")
    named_ids = [i for i in ids if keys[i]]
    ignore: list[str] = [header[i] for i in empty]
    if ids and not keys[ids[0]] and (named_ids or any(k in UNIT_NAMES for k in keys[len(ids):])):
        ignore.append(header[ids[0]])
        reasons.append("the unnamed first column holds row names (R's write.csv, a pandas index) beside a named "
                       "unit column: ignored")
        ids = ids[1:]
    if not ids:
        later = [i for i, k in enumerate(keys) if k in UNIT_NAMES]
        if later:
            ids = later[:1]
        elif keys and _looks_like_id(table, 0):
            ids = [0]
            reasons.append(f"the first column {header[0]!r} has a different value in every row: it names the units")
    _join_repeating_ids(table, header, keys, empty, ids, reasons)
    return ids, ignore


def _join_repeating_ids(table: Table, header: list[str], keys: list[str], empty: list[int], ids: list[int],
                        reasons: list[str]) -> None:
    """Ids that repeat take the next id-like column (a sentence within a document), up to four."""
    while ids and len(ids) < 4 and not _unique_rows(table, ids):
        nxt = max(ids) + 1
        if nxt >= len(keys) or nxt in empty or not _ID_HINT.search(keys[nxt]) or \
                len(_distinct_rows(table, ids + [nxt])) <= len(_distinct_rows(table, ids)):
            break
        ids.append(nxt)
        reasons.append(f"{header[nxt]!r} joins the unit id: without it, ids repeat")
    if ids:
        if not any(keys[i] for i in ids):
            reasons.append("the unnamed first column" + ("s" if len(ids) > 1 else "") + " (R row names or a pandas "
                           "index) name the units")
        elif len(ids) > 1:
            reasons.append("the units are named by " + " + ".join(repr(header[i]) for i in ids) + " together")
    else:
        reasons.append("no column names the units: each row is a unit (unit 1, unit 2, ... in file order)")


def near_duplicates(categories: list[str], counts: list[int], limit: int = 400) -> list[tuple[str, str, str]]:
    """Pairs of category spellings that probably mean the same thing: (rare, common, why)."""
    out: list[tuple[str, str, str]] = []
    by_key: dict[str, list[int]] = {}
    for i, c in enumerate(categories):
        k = c.strip().casefold()
        if re.fullmatch(r"[+-]?\d+", k):
            k = str(int(k))
        else:
            try:
                f = float(k)
                if f == f and abs(f) != float("inf"):
                    k = repr(f) if not f.is_integer() else str(int(f))
            except ValueError:
                pass
        by_key.setdefault(k, []).append(i)
    for group in by_key.values():
        if len(group) > 1:
            common = max(group, key=lambda i: counts[i])
            for i in group:
                if i != common:
                    out.append((categories[i], categories[common], "the same but for case, spaces, zeros or notation"))
    if len(categories) <= limit:
        flagged = {a for a, _, _ in out}
        total = sum(counts)
        order = np.argsort(-np.asarray(counts), kind="stable")
        for i in order[::-1]:
            c = categories[i]
            if c in flagged or len(c) < 3 or counts[i] > max(2, 0.05 * total):
                continue
            others = [categories[j] for j in order if j != i and counts[j] > counts[i] and len(categories[j]) > 2]
            close = get_close_matches(c, others, n=1, cutoff=0.8)
            if close:
                out.append((c, close[0], f"a rare spelling ({counts[i]}) close to a more common one"))
    return out
