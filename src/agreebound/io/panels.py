"""A table -> rating panels (one per dimension), strictly; or one :class:`InputError` naming
file, row and column. The layouts: wide (``unit,<rater>,<rater>,...``, one row per unit), long
(``unit,rater,value`` and optionally ``dimension``) and raters x units, through a
:class:`~agreebound.io.mapping.Mapping`. :mod:`agreebound.io.ratings` reads a file into a table
and hands it here; the formats a table can come from are :data:`agreebound.io.registry.FORMATS`
(documented with examples in docs/formats.md).

Values are read exactly: whole numbers and decimals (at most 15 significant digits) are numbers,
one documented set of spellings is missing (:data:`agreebound.io.tables.MISSING_TOKENS`), anything
else is a label. Names (units, raters, dimensions, headers) are compared after trimming
surrounding spaces and removing invisible characters; a name with a control character is refused.
A repeated rating is an error, never collapsed. Limits (``agreebound.core.limits``) are checked first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import INVISIBLE_RE2, UNSAFE_RE2, excerpt, normalise_name
from agreebound.core.limits import MAX_LABELS, MAX_NAME_CHARS, MAX_RATERS
from agreebound.io.detect import header_names
from agreebound.io.mapping import UNIT_JOIN, Mapping
from agreebound.io.values import ValueKinds, classify_text, classify_values, names_need_care, normalise_names
from agreebound.panel.categories import Categories, Coded, Level, order_of
from agreebound.panel.levels import inferred_order
from agreebound.panel.ratings import Names, RatingPanel, category_texts, name_text
from agreebound.io.tables import MISSING_CODES, Column, Table, numpy_of

if TYPE_CHECKING:
    import pyarrow as pa


WIDE_HELP = "a wide rating CSV with the header unit,<rater>,<rater>,..."
LONG_COLUMNS = ("unit", "rater", "value")
RATINGS_EXPECTED = WIDE_HELP + ", or a long CSV with unit,rater,value[,dimension]"


# --- rating panels ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LabelPanel(RatingPanel):
    """A panel of labels as a file gives them: nominal, or ordinal once their order is given
    (the mapping's ``order``, ``--order``: ordered categories, ranks for the ordinal level). Without
    an order, the ordinal level says how to give one, with the order the labels seem to have."""

    def ratings(self, level: Level = "nominal") -> Coded:
        if level != "ordinal":
            return super().ratings(level)
        if self.categories.ordered:
            return self.coded
        mask = self.label_mask if self.label_mask is not None else np.ones(len(self.categories), dtype=bool)
        hits = np.flatnonzero(mask[self.coded.code])
        row, column = self.locate(int(hits[np.argmin(self.records[hits])]) if len(hits) else 0)
        guess = inferred_order(self.categories.first(ORDER_SHOWN + 1))
        give = (f"They look ordered ({order_text(guess)}): give that order with --order "
                f"{excerpt(order_option(guess), 200)}, or the mapping's \"order\"" if guess is not None else
                "Give their order, lowest first, with --order or the mapping's \"order\"")
        raise InputError(self.file, row, column,
                         "ordinal alpha needs numeric values or the categories' order; this panel has labels (first: "
                         f"this cell) and no order. {give}; or recode the labels to numbers (--recode), or use the "
                         "nominal level")


#: Labels an order is shown with in a note or a message (the rest as "...").
ORDER_SHOWN = 12


def order_text(order: Sequence[str]) -> str:
    """An order as the notes say it: ``'1st grade' < '2nd grade' < ...`` (labels excerpted)."""
    return " < ".join(excerpt(v) for v in order[:ORDER_SHOWN]) + (" < ..." if len(order) > ORDER_SHOWN else "")


def order_option(order: Sequence[str]) -> str:
    """An order as ``--order`` takes it: comma-separated, or a JSON list when a label has a comma."""
    if any("," in v or v != v.strip() for v in order):
        return json.dumps(list(order), ensure_ascii=False)
    return ",".join(order)


def _build_panel(table: Table, dimension: str, unit_names: Sequence[str], rater_names: Sequence[str],
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
    make = LabelPanel if kind == "label" else RatingPanel
    return make(table.file, dimension, unit_names, tuple(rater_names), coded, kind,
                records.astype(np.int32, copy=False), table.locator(), value_column, label_mask, notices,
                value_by_unit)


def _coded_missing(panel: RatingPanel) -> RatingPanel:
    """``panel`` with a note when values that often mean missing (``-99``, ``999``, ``-``, ``?``,
    ``#DIV/0!``) are read as ratings beside others: a verdict can turn on them (Krippendorff's
    data with -99 for its gaps: alpha 0.577 and REPORT_ONLY, against 0.743 and ENFORCE), and
    ``inspect`` flagged them while ``panel`` said nothing. The values are kept: only the user
    knows what they mean."""
    if len(panel.categories) < 2 or len(panel.categories) > 2_000:
        return panel
    texts = category_texts(panel.categories)
    hits = [i for i, t in enumerate(texts) if t.strip() in MISSING_CODES]
    if not hits or len(hits) == len(texts):
        return panel
    counts = np.bincount(panel.coded.code, minlength=len(texts))
    shown = ", ".join(f"{excerpt(texts[i])} ({counts[i]:,} cell{'s' if counts[i] != 1 else ''})" for i in hits)
    option = ",".join(texts[i] for i in hits)
    one = len(hits) == 1
    note = (f"{shown} often mean{'s' if one else ''} missing (a statistics package's code, a spreadsheet's dash or "
            f"error) and {'is' if one else 'are'} read as {'a rating' if one else 'ratings'} here; if "
            f"{'it does' if one else 'they do'}, give --missing={excerpt(option)} (or the mapping's \"missing\")")
    return _with(panel, notices=panel.notices + (note,))


#: Unit names a spreadsheet's summary rows carry ("Mean", "Total"), compared lower-cased.
SUMMARY_NAMES = frozenset({"mean", "means", "average", "avg", "total", "totals", "sum", "median", "sd", "s.d.",
                           "std", "stdev", "std dev", "std. dev.", "standard deviation", "variance", "count", "min",
                           "max", "minimum", "maximum", "overall", "grand total", "mean score", "average score"})
#: How many of the last units are looked at (summary rows sit under the table).
SUMMARY_TAIL = 5


def _summary_units(panel: RatingPanel) -> RatingPanel:
    """``panel`` with a note when one of its last units is named like a spreadsheet's summary row
    ("Mean", "Total", "SD"): its cells are then averages or sums of the units above, read as a
    unit's ratings, and alpha changes with them. The unit is kept: only the user knows
    (tests/io/test_summary_rows.py)."""
    names = [str(u) for u in list(panel.units[-SUMMARY_TAIL:])]
    hits = [u for u in names if u.strip().casefold().rstrip(":") in SUMMARY_NAMES]
    if not hits or len(hits) == len(panel.units):
        return panel
    shown = ", ".join(excerpt(u) for u in hits)
    one = len(hits) == 1
    note = (f"unit{'' if one else 's'} {shown} {'is' if one else 'are'} named like a summary row (a mean, a total): "
            f"{'its' if one else 'their'} values are read as a unit's ratings and change alpha; if "
            f"{'it summarises' if one else 'they summarise'} the rows above, remove {'it' if one else 'them'} from the file")
    return _with(panel, notices=panel.notices + (note,))


def _in_order(panel: RatingPanel, mapping: Mapping, row_label: str) -> RatingPanel:
    """``panel`` with its labels in the order the mapping gives (ordered categories), and a note
    saying the order; labels the order lacks are an InputError at the first one's cell. Without an
    order, labels that look ordered get a note with the order they seem to have."""
    order = mapping.order_for(panel.dimension)
    texts = [str(v) for v in panel.categories.values] if panel.kind == "label" else []
    if order is None:
        guess = inferred_order(texts) if texts else None
        if guess is None:
            return panel
        note = (f"the labels look ordered: {order_text(guess)}; to read them at the ordinal level in this order, give "
                f"it (--order {excerpt(order_option(guess), 200)}, or the mapping's \"order\")")
        return _with(panel, notices=panel.notices + (note,))
    own = panel.dimension in dict(mapping.order)
    if panel.kind != "label":
        if own:
            raise InputError(panel.file, None, panel.value_column, f"the order given for dimension "
                             f"{excerpt(panel.dimension)} is for labels; its values are numbers, ordered by value "
                             "already (read them at the ordinal level as they are)")
        return _with(panel, notices=panel.notices + (
            f"the order given is not applied to dimension {excerpt(panel.dimension)}: its values are numbers, "
            "ordered by value",))
    by, unknown = order_of(texts, order)
    if by is None:
        missing = np.isin(np.array(texts, dtype=object), np.array(unknown, dtype=object))
        hits = np.flatnonzero(missing[panel.coded.code])
        row, column = panel.locate(int(hits[np.argmin(panel.records[hits])]))
        shown = ", ".join(excerpt(v) for v in unknown[:ORDER_SHOWN]) + (", ..." if len(unknown) > ORDER_SHOWN else "")
        where = f" of dimension {excerpt(panel.dimension)}" if len(mapping.order) > 1 or mapping.dimension else ""
        raise InputError(panel.file, row, column,
                         f"{len(unknown)} label{'s' if len(unknown) != 1 else ''}{where} not in the order given: "
                         f"{shown} (the first at this cell); the order has {order_text(order)}. Add "
                         f"{'it' if len(unknown) == 1 else 'them'} to the order, or recode "
                         f"{'it' if len(unknown) == 1 else 'them'} to a label in it (--recode, the mapping's "
                         "\"recode\")", row_label=row_label)
    new_code = np.empty(len(texts), dtype=np.int32)
    new_code[by] = np.arange(len(texts), dtype=np.int32)
    c = panel.coded
    ranked = [texts[int(i)] for i in by]
    coded = Coded(c.unit, c.rater, new_code[c.code], c.n_units, c.n_raters, Categories(labels=ranked, ordered=True))
    mask = None if panel.label_mask is None else panel.label_mask[by]
    absent = len(order) - len(texts)
    note = (f"categories in the order given, lowest first: {order_text(ranked)}"
            + (f" ({absent} more in the order, not in the data)" if absent else "")
            + "; the ordinal level reads their ranks")
    return _with(panel, coded=coded, label_mask=mask, notices=panel.notices + (note,))


def _with(panel: RatingPanel, **changes: object) -> RatingPanel:
    """``panel`` with ``changes``, of its own class (a label panel stays one)."""
    values = {f.name: getattr(panel, f.name) for f in fields(panel)}
    values.update(changes)
    return type(panel)(**values)


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
    text_of: Callable[[int], str]
    if _plain_text(col):  # a plain CSV's column (agreebound.io.tables._plain_csv): its texts read as they are
        texts: list[str] = col.dictionary
        found = [j for j, t in enumerate(texts) if _bracketed(t.strip()) and _nested(t.strip())]
        text_of = texts.__getitem__
    else:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = col.text
        if arr is None or not len(arr):
            return
        arr = arr.cast(pa.string())
        stripped = pc.utf8_trim_whitespace(arr)
        candidates = pc.or_(pc.and_(pc.starts_with(stripped, "["), pc.ends_with(stripped, "]")),
                            pc.and_(pc.starts_with(stripped, "{"), pc.ends_with(stripped, "}")))
        found = [int(j) for j in np.flatnonzero(numpy_of(candidates.fill_null(False)))
                 if _nested(stripped[int(j)].as_py())]
        text_of = lambda j: arr[j].as_py()  # noqa: E731
    if not found:
        return
    i = int(np.flatnonzero(np.isin(col.codes, found))[0])
    cell = text_of(int(col.codes[i]))
    kind = "an object" if cell.strip().startswith("{") else "a list"
    raise InputError(table.file, table.row_of(i), label,
                     f"{kind} in a cell ({excerpt(cell)}): a cell holds one label, "
                     "never a list or an object. An export that nests its annotations (per-question responses, "
                     "lists of annotators and labels) needs one row per unit, rater and label",
                     row_label=table.row_label)


def _bracketed(text: str) -> bool:
    return (text.startswith("[") and text.endswith("]")) or (text.startswith("{") and text.endswith("}"))


def _plain_text(col: Column) -> bool:
    """The column's distinct values are a list of printable ASCII text, as a plain CSV read without
    pyarrow gives them (agreebound.io.tables._plain_csv): no invisible character, no NFC form to
    take, no space but the space, so Python's string methods read them as pyarrow's kernels do."""
    d = col.dictionary
    return isinstance(d, list) and all(isinstance(u, str) and u.isascii() and u.isprintable() for u in d)


def names_column(table: Table, col: Column, label: str) -> tuple[np.ndarray, Names, int]:
    """A column of names: codes into normalised distinct names (merged where normalising makes
    two spellings one), the names, and how many spellings were normalised. Vectorised: Python
    only touches the first bad name, to say what is wrong with it."""
    if (col.codes < 0).any():
        raise InputError(table.file, table.row_of(int(np.flatnonzero(col.codes < 0)[0])), label,
                         "expected a name, the cell is empty")
    refuse_nested(table, col, label)
    if _plain_text(col) and all(0 < len(u) <= MAX_NAME_CHARS and u == u.strip() for u in col.uniques):
        # a plain CSV's names (printable ASCII) that are normal already: names_need_care says no to them
        return col.codes, Names(list(col.uniques)), 0
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = col.text
    if arr is None:  # Parquet ids typed as numbers; a plain CSV's names that need care
        arr = pa.array([name_text(u) for u in col.uniques], pa.string())
    changed = 0
    if names_need_care(arr):
        norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + INVISIBLE_RE2 + "]", ""),
                                                          form="NFC"))
        changed = int(pc.sum(pc.not_equal(norm, arr)).as_py() or 0)
        length = numpy_of(pc.utf8_length(norm))
        raw_length = numpy_of(pc.utf8_length(arr))
        bad = (length == 0) | (raw_length > MAX_NAME_CHARS) | \
            numpy_of(pc.match_substring_regex(norm, UNSAFE_RE2))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _, _, reason = normalise_names([arr[i].as_py()])
            row = table.row_of(int(np.flatnonzero(col.codes == i)[0]))
            raise InputError(table.file, row, label, reason[1] if reason else "expected a name")
        arr = norm
    else:  # a column's distinct values are distinct already: no new dictionary, no copy
        return col.codes, Names(arr), 0
    encoded = pc.dictionary_encode(arr)
    remap = numpy_of(encoded.indices).astype(np.int32)
    return remap[col.codes], Names(encoded.dictionary), changed


def _changed_cells(changed: np.ndarray, per: Sequence[np.ndarray]) -> int:
    flag = np.append(changed, False)
    return int(sum(int(flag[codes].sum()) for codes in per))


def _normalise_value_text(arr: pa.Array, per: list[np.ndarray]) -> tuple[pa.Array, list[np.ndarray], int]:
    """Values compared as names are: surrounding spaces and invisible characters removed, NFC.
    Spellings that become one are merged; returns the new dictionary, codes, and cells changed."""
    import pyarrow.compute as pc

    if not names_need_care(arr) and not pc.any(pc.equal(pc.utf8_length(arr), 0)).as_py():
        return arr, per, 0
    norm = pc.utf8_trim_whitespace(pc.utf8_normalize(pc.replace_substring_regex(arr, "[" + INVISIBLE_RE2 + "]", ""),
                                                      form="NFC"))
    changed = numpy_of(pc.not_equal(norm, arr))
    if not changed.any():
        return arr, per, 0
    count = _changed_cells(changed, per)
    encoded = pc.dictionary_encode(norm)
    lut = np.append(numpy_of(encoded.indices).astype(np.int32), np.int32(-1))
    return encoded.dictionary, [lut[codes] for codes in per], count


def _normalise_value_list(values: list[object], per: list[np.ndarray]) -> tuple[list[object], list[np.ndarray], int]:
    """:func:`_normalise_value_text` for a list of typed values (only text changes)."""
    norm = [normalise_name(v) if isinstance(v, str) else v for v in values]
    changed = np.array([a != b for a, b in zip(norm, values)], dtype=bool)
    if not changed.any():
        return values, per, 0
    count = _changed_cells(changed, per)
    merged, remapped = _merged(norm, per)
    return merged, remapped, count


def _decimal_comma_text(arr: pa.Array, per: list[np.ndarray]) -> tuple[pa.Array, list[np.ndarray]]:
    """1,5 -> 1.5 in a dictionary of value texts (spellings that become one are merged)."""
    import pyarrow.compute as pc

    dotted = pc.replace_substring_regex(arr, pattern=r"^(-?\d+),(\d+)$", replacement=r"\1.\2")
    encoded = pc.dictionary_encode(dotted)
    lut = np.append(numpy_of(encoded.indices).astype(np.int32), np.int32(-1))
    return encoded.dictionary, [lut[codes] for codes in per]


def _values_column(table: Table, cols: Sequence[Column], label_of: Sequence[str],
                   missing: Sequence[str] = (), decimal: str = ".", recode: Sequence[tuple[str, str]] = (),
                   notes: list[str] | None = None) -> tuple[list[np.ndarray], ValueKinds]:
    """Value columns on one shared list of distinct values; the first bad value is located.
    ``decimal=","``: 1,5 is the number 1.5 (a European spreadsheet's CSV). ``recode``: labels
    renamed or merged (from, to) before the values are read, counted in a note added to ``notes``."""
    for c, label in zip(cols, label_of):
        refuse_nested(table, c, label)
    texts = [c.text for c in cols]
    kinds: ValueKinds | None = None
    bad: tuple[int, str] | None = None
    if all(t is not None for t in texts):
        import pyarrow as pa
        import pyarrow.compute as pc

        arrays = [t for t in texts if t is not None]  # every column's: all are text
        if len(cols) == 1:
            shared_arr, per = arrays[0], [cols[0].codes]
        else:  # one shared dictionary: encode the columns' dictionaries together
            joined = pc.dictionary_encode(pa.concat_arrays([t.cast(pa.string()) for t in arrays]))
            shared_arr = joined.dictionary
            luts = np.append(numpy_of(joined.indices).astype(np.int32), np.int32(-1))
            per, start = [], 0
            for c, t in zip(cols, arrays):
                lut = np.append(luts[start:start + len(t)], np.int32(-1))
                per.append(lut[c.codes])
                start += len(t)
        shared_arr, per, changed = _normalise_value_text(shared_arr, per)
        if recode:
            shared_arr, per = _recoded_text(shared_arr, per, recode, notes)
        if decimal == ",":
            shared_arr, per = _decimal_comma_text(shared_arr, per)
        kinds = classify_text(shared_arr, missing)
        shared = shared_arr
    else:
        if len(cols) == 1:
            shared, per = list(cols[0].uniques), [cols[0].codes]
        else:
            keys: dict[tuple[str, object], int] = {}
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
        if recode:
            shared, per = _recoded_list(shared, per, recode, notes)
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


def _recoded_text(arr: pa.Array, per: list[np.ndarray], recode: Sequence[tuple[str, str]],
                  notes: list[str] | None) -> tuple[pa.Array, list[np.ndarray]]:
    """A dictionary of value texts with ``recode``'s labels replaced (spellings that become one are
    merged), its codes, and the note counting the cells recoded."""
    import pyarrow as pa
    import pyarrow.compute as pc

    froms, tos = pa.array([a for a, _ in recode], pa.string()), pa.array([b for _, b in recode], pa.string())
    hit = pc.index_in(arr.cast(pa.string()), value_set=froms)
    _recode_note(np.asarray(numpy_of(hit.fill_null(-1)), dtype=np.int64), per, recode, notes)
    if hit.null_count == len(hit):
        return arr, per
    replaced = pc.if_else(pc.is_null(hit), arr.cast(pa.string()), tos.take(hit.fill_null(0)))
    encoded = pc.dictionary_encode(replaced)
    lut = np.append(numpy_of(encoded.indices).astype(np.int32), np.int32(-1))
    return encoded.dictionary, [lut[codes] for codes in per]


def _recoded_list(values: list[object], per: list[np.ndarray], recode: Sequence[tuple[str, str]],
                  notes: list[str] | None) -> tuple[list[object], list[np.ndarray]]:
    """:func:`_recoded_text` for a list of typed values (a number is matched by its text: 1 by "1")."""
    index = {a: j for j, (a, _) in enumerate(recode)}
    hit = np.array([index.get(v if isinstance(v, str) else name_text(v), -1) if v is not None else -1
                    for v in values], dtype=np.int64)
    _recode_note(hit, per, recode, notes)
    if not (hit >= 0).any():
        return values, per
    new = [recode[int(j)][1] if j >= 0 else v for v, j in zip(values, hit)]
    return _merged(new, per)


def _merged(values: list[object], per: list[np.ndarray]) -> tuple[list[object], list[np.ndarray]]:
    """Values that became equal merged into one entry (by type and value), codes remapped."""
    index: dict[tuple[str, object], int] = {}
    lut = np.empty(len(values) + 1, dtype=np.int32)
    lut[-1] = -1
    merged: list[object] = []
    for i, v in enumerate(values):
        key = (type(v).__name__, v)
        if key not in index:
            index[key] = len(merged)
            merged.append(v)
        lut[i] = index[key]
    return merged, [lut[codes] for codes in per]


def _recode_note(hit: np.ndarray, per: list[np.ndarray], recode: Sequence[tuple[str, str]],
                 notes: list[str] | None) -> None:
    """Say what was recoded: each label's cells (``hit``: each distinct value's recode, -1 none)."""
    counts = np.zeros(len(recode), dtype=np.int64)
    flag = np.append(hit, -1)
    for codes in per:
        cell = flag[codes]
        counts += np.bincount(cell[cell >= 0], minlength=len(recode))
    if notes is None:
        return
    done = [f"{excerpt(a)} -> {excerpt(b)} ({int(n):,})" for (a, b), n in zip(recode, counts) if n]
    absent = [excerpt(a) for (a, _), n in zip(recode, counts) if not n]
    total = int(counts.sum())
    note = f"recoded {total:,} cell{'s' if total != 1 else ''}" + (": " + ", ".join(done[:20]) if done else "") \
        + ("; not in the data: " + ", ".join(absent[:20]) if absent else "")
    notes.append(note)


def _cells_notice(kinds: ValueKinds) -> tuple[str, ...]:
    n = kinds.normalised_cells
    return (f"{n:,} cell{'s' if n != 1 else ''} had surrounding spaces or invisible characters (removed; "
            "' 1' is the number 1)",) if n else ()


def _notice(count: int, what: str) -> tuple[str, ...]:
    if not count:
        return ()
    what = what.removesuffix("s") if count == 1 else what  # "1 unit name", "2 unit names"
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
    return Column(" + ".join(c.name for c in cols), numpy_of(encoded.indices).astype(np.int32),
                  encoded.dictionary)


def _row_units(n: int) -> tuple[np.ndarray, Names]:
    """Units that are simply the rows, named "unit 1", "unit 2", ... in file order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    numbers = pa.array(np.arange(1, n + 1)).cast(pa.string())
    return np.arange(n, dtype=np.int32), Names(pc.binary_join_element_wise("unit", numbers, " "))


def build_panels(table: Table, mapping: Mapping, notices: Sequence[str] = ()) -> dict[str, RatingPanel]:
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
    for dim, _ in mapping.order:
        if dim is not None and dim not in panels:
            shown = ", ".join(excerpt(d) for d in list(panels)[:20])
            raise InputError(table.file, None, mapping.dimension, f"the order given names dimension {excerpt(dim)}; "
                             f"the file's dimensions are {shown}")
    panels = {dim: _summary_units(_coded_missing(_in_order(p, mapping, table.row_label))) for dim, p in panels.items()}
    if mapping.humans is not None:
        assign_roles(panels, humans=mapping.humans)
    return panels


def _wide_panel(table: Table, header: list[str], mapping: Mapping, notes: tuple[str, ...],
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
        unit_codes, unit_names, changed_units = names_column(table, unit_col, label)
        if len(unit_names) != len(unit_codes):
            i = _first_repeat(unit_codes)
            first = int(np.flatnonzero(unit_codes == unit_codes[i])[0])
            raise InputError(table.file, table.row_of(i), label, f"unit {excerpt(unit_names[unit_codes[i]])} appears "
                             f"again (first at row {table.row_of(first)}); one row per unit")
    else:
        unit_codes, unit_names = _row_units(table.n_rows)
    cols = [table.columns[header.index(r)] for r in raters]
    recoded: list[str] = []
    per, kinds = _values_column(table, cols, [c.name for c in cols], missing, mapping.decimal, mapping.recode, recoded)
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
                        notes + _notice(changed_units, "unit names") + _cells_notice(kinds) + tuple(recoded))


def _first_repeat(codes: np.ndarray) -> int:
    """The first row whose code an earlier row already has (pandas' ``duplicated``, on numpy alone).

    >>> _first_repeat(np.array([3, 1, 4, 1, 3]))
    3
    """
    firsts = np.unique(codes, return_index=True)[1]
    repeat = np.ones(len(codes), dtype=bool)
    repeat[firsts] = False
    return int(np.flatnonzero(repeat)[0])


def _transposed_panel(table: Table, header: list[str], mapping: Mapping, notes: tuple[str, ...],
                      missing: tuple[str, ...]) -> RatingPanel:
    """One row per rater, one column per unit."""
    ignore = set(mapping.ignore)
    if mapping.rater is not None:
        rater_col = _pick(table, header, mapping.rater, "rater")
        rater_codes, rater_arr, changed = names_column(table, rater_col, mapping.rater)
        if len(rater_arr) != len(rater_codes):
            i = _first_repeat(rater_codes)
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
    recoded: list[str] = []
    per, kinds = _values_column(table, cols, [c.name for c in cols], missing, mapping.decimal, mapping.recode, recoded)
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
                        notes + _notice(changed, "rater names") + _cells_notice(kinds) + tuple(recoded),
                        value_by_unit=True)


def _long_panels(table: Table, header: list[str], mapping: Mapping, notes: tuple[str, ...],
                 missing: tuple[str, ...]) -> dict[str, RatingPanel]:
    assert mapping.rater is not None and mapping.value is not None  # a long mapping names both (Mapping checks)
    ids = [_pick(table, header, u, "unit") for u in mapping.unit]
    rater_col = _pick(table, header, mapping.rater, "rater")
    value_col = _pick(table, header, mapping.value, "value")
    unit_col = ids[0] if len(ids) == 1 else _joined(table, ids)
    unit_label = mapping.unit[0] if len(ids) == 1 else " + ".join(mapping.unit)
    unit_all, unit_names_all, cu = names_column(table, unit_col, unit_label)
    rater_all, rater_arr, cr = names_column(table, rater_col, mapping.rater)
    if len(rater_arr) > MAX_RATERS:
        raise InputError(table.file, None, mapping.rater, f"{len(rater_arr):,} distinct raters; the limit is "
                         f"{MAX_RATERS:,} (is the rater column really the rater?)")
    rater_names_all = list(rater_arr)
    if mapping.dimension is not None:
        dim_col = _pick(table, header, mapping.dimension, "dimension")
        dim_all, dim_arr, cd = names_column(table, dim_col, mapping.dimension)
        dim_names = list(dim_arr)
    else:
        dim_all, dim_names, cd = np.zeros(table.n_rows, dtype=np.int32), ["all"], 0
    recoded: list[str] = []
    (values_all,), kinds = _values_column(table, [value_col], [mapping.value], missing, mapping.decimal,
                                          mapping.recode, recoded)
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
        + _cells_notice(kinds) + tuple(recoded)
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


def _compact_index(codes: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, Sequence[str]]:
    """Renumber the codes a subset uses, in order of first appearance."""
    if len(codes) == 0:
        return codes, names[:0]
    uniq, first = np.unique(codes, return_index=True)
    order = uniq[np.argsort(first, kind="stable")]
    lut = np.full(len(names), -1, dtype=np.int32)
    lut[order] = np.arange(len(order))
    picked = names.take(order) if isinstance(names, Names) else [names[i] for i in order]
    return lut[codes], picked
