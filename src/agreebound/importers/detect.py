"""A suggested mapping for a table, and the reasons, in words. Pure: a table's header and its first
rows in, a :class:`~agreebound.importers.mapping.Mapping` out; the user can change every choice.

>>> from agreebound.tables import table_from_values
>>> t = table_from_values("x.csv", ["item_id", "annotator", "label", "note"],
...                       [["a", "a", "b"], ["x", "y", "x"], ["1", "2", "1"], ["", "", ""]], "csv")
>>> suggest(t).mapping
Mapping(layout='long', unit=('item_id',), rater='annotator', value='label', dimension=None, raters=None, ignore=('note',), humans=None, level=None, positive=None, missing=(), header=True, sheet=None, delimiter=None, encoding=None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches

import numpy as np

from agreebound.errors import InputError
from agreebound.escape import normalise_name
from agreebound.importers.mapping import Mapping
from agreebound.tables import MISSING_TOKENS, Table

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


def _numeric(text: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", text.strip()))


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


def _headerless(header: list[str]) -> bool:
    """A first row of numbers and empty cells only is data, not a header."""
    cells = [h for h in header if h.strip()]
    return bool(cells) and all(_numeric(h) or h.strip() in MISSING_TOKENS for h in cells) and len(cells) >= len(header) // 2


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
    header = header_names(table)
    keys = ["" if not (raw or "").strip() else column_key(h) for raw, h in zip(table.header, header)]
    reasons: list[str] = []
    if table.header_rows and _headerless([h if k else "" for h, k in zip(header, keys)]):
        wide = len(table.columns) <= table.n_rows + 1
        reasons.append("the first row holds numbers, not names: read as data without a header")
        if wide:
            reasons.append("more rows than columns: each row is a unit, each column a rater")
            return Suggestion(Mapping("wide", header=False), tuple(reasons))
        reasons.append("more columns than rows: each row is a rater, each column a unit (as K-Alpha and the "
                       "krippendorff package lay data out)")
        return Suggestion(Mapping("transposed", header=False), tuple(reasons))

    def first(names: tuple[str, ...], exclude: set[int]) -> int | None:
        return next((i for i, k in enumerate(keys) if k in names and i not in exclude), None)

    rater = first(RATER_NAMES, set())
    value = first(VALUE_NAMES, {rater} if rater is not None else set())
    taken = {i for i in (rater, value) if i is not None}
    if (rater is None) != (value is None):
        # one role found by name: is another column a misspelling of the other role?
        want = VALUE_NAMES if value is None else RATER_NAMES
        spare = [k for i, k in enumerate(keys) if i not in taken and k]
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
    if rater is not None and value is not None:
        dimension = first(DIMENSION_NAMES, taken)
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
    if keys and keys[0] in RATER_NAMES and value is None:
        reasons.append(f"the first column {header[0]!r} names raters: one row per rater, one column per unit "
                       "(raters x units)")
        return Suggestion(Mapping("transposed", rater=header[0]), tuple(reasons))
    if (rater is None) != (value is None):
        found = header[rater if rater is not None else value]
        role, other = ("rater", "value") if rater is not None else ("value", "rater")
        raise InputError(table.file, 1, found, f"the columns look like one row per rating (a {role} column "
                         f"{found!r}) but no {other} column was found: say which column is which in a mapping "
                         "(the dashboard's preview, or --mapping), or name the columns unit, rater, value")

    # wide: leading id columns, then raters
    ids = []
    for i, k in enumerate(keys):
        if k in UNIT_NAMES or not k:
            ids.append(i)
        else:
            break
    named_ids = [i for i in ids if keys[i]]
    ignore: list[str] = []
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
    if ids:
        if not any(keys[i] for i in ids):
            reasons.append("the unnamed first column" + ("s" if len(ids) > 1 else "") + " (R row names or a pandas "
                           "index) name the units")
        elif len(ids) > 1:
            reasons.append("the units are named by " + " + ".join(repr(header[i]) for i in ids) + " together")
    else:
        reasons.append("no column names the units: each row is a unit (unit 1, unit 2, ... in file order)")
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
