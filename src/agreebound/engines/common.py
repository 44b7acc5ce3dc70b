"""What every out-of-core engine shares: the input files and columns, reading the distinct value
texts by the one set of rules, pairs from unit histograms, assembling the counts, and keeping the
unit histograms that disagree most (measured by agreebound.panel.alpha, as in memory)."""

from __future__ import annotations

import glob
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from agreebound.panel.alpha import unit_disagreement
from agreebound.panel.counts import PanelCounts, UnitPatterns, from_rows, unit_patterns
from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.mapping import UNIT_JOIN
from agreebound.io.values import classify_values
from agreebound.panel.categories import Level, Number, Value, float_value

if TYPE_CHECKING:
    from agreebound.io.mapping import Mapping

#: An engine's result rows: per (dimension, rater, value text) its ratings; per (dimension, m) the units of
#: m ratings; per (dimension, m, c, k) the pairs of values c and k within units of m ratings.
RaterRow = tuple[str, str, "str | None", int]
SizeRow = tuple[str, int, int]
PairRow = tuple[str, int, int, int, int]

#: Up to this many categories, pair counts come from one pass over each unit's histogram (k(k+1)/2
#: sums); above, from a self-join of the (unit, value) counts.
PIVOT_MAX_CATEGORIES = 16


@dataclass(frozen=True)
class LongColumns:
    """Which columns hold the unit (one or more), the rater, the value, and the dimension (or none)."""

    unit: tuple[str, ...] = ("unit",)
    rater: str = "rater"
    value: str = "value"
    dimension: str | None = None

    def needed(self) -> list[str]:
        return [*self.unit, self.rater, self.value] + ([self.dimension] if self.dimension else [])


#: What Python's glob expands; a path holding one that does not exist as written is a pattern.
GLOB_CHARS = "*?["


def input_files(paths: Sequence[str]) -> list[str]:
    """Files and patterns to files; one kind (CSV/TSV or Parquet). A path that exists is that file,
    whatever characters its name holds (a file named a*.csv or lit[1].csv is read alone); one that
    does not and holds * ? [ is a pattern, expanded here, once: the list returned is what every
    engine reads and what the report lists. Each is a regular file, checked with stat without
    opening it (a pipe or a device would block a reader forever)."""
    out: list[str] = []
    for p in paths:
        if "://" in p and not os.path.lexists(p):
            # agreebound.app.pipeline copies s3:// objects to a temporary folder for DuckDB; Spark reads
            # a cluster's storage itself (engines.spark_engine.spark_files)
            raise InputError(p, None, None, "a URL, and DuckDB reads local files here: run it through "
                             "'agreebound panel' / 'agreebound calibrate', which copy s3:// objects for it")
        if os.path.lexists(p) or not any(ch in p for ch in GLOB_CHARS):
            found = [p]
        else:
            found = sorted(glob.glob(p))
            if not found:
                raise InputError(p, None, None, "no file matches this pattern")
        for f in found:
            regular_file(f)
        out += found
    kinds = {Path(f).suffix.lower() for f in out}
    if not kinds <= {".csv", ".tsv", ".txt", ".parquet", ".pq"}:
        raise InputError(out[0], None, None, "the out-of-core engines read CSV/TSV and Parquet files")
    if len({"parquet" if k in (".parquet", ".pq") else "csv" for k in kinds}) > 1:
        raise InputError(out[0], None, None, "mix of CSV and Parquet files; give one kind at a time")
    return out


def regular_file(path: str, folder_hint: str = "give files or a pattern such as data/*.parquet") -> os.stat_result:
    """``path``'s stat (a link followed) if it is a regular file; else an InputError naming it: a
    folder, a pipe, a device or a socket is refused without being opened. The CLI's in-memory
    reader uses it too (``folder_hint``: what to give instead of a folder)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(path, None, None, f"cannot read the file ({e.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, None, None, f"this is a folder; {folder_hint}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(path, None, None, "not a regular file (a device, a pipe or a socket); give a file")
    return st


def is_parquet(files: Sequence[str]) -> bool:
    return Path(files[0]).suffix.lower() in (".parquet", ".pq")


def check_columns(files: Sequence[str], have: Sequence[str], columns: LongColumns) -> None:
    for c in columns.needed():
        if c not in have:
            raise InputError(files[0], 1, c, f"missing column; the files have {', '.join(list(have)[:20])}")


@dataclass(frozen=True)
class Coding:
    """The distinct value texts read as categories: each text's code (missing texts have none)."""

    kind: str  # "number" | "label"
    values: tuple[Value, ...]
    code_of: dict[str, int]
    number_of: dict[str, Number] = field(default_factory=dict)  # the texts that read as numbers: their number

    def within(self, texts: Iterable[str | None]) -> tuple[str, list[Value]]:
        """The kind, and each code's category, as one dimension holding ``texts`` (coded texts)
        reads them on its own, as the in-memory reader reads each dimension: where the texts of
        all dimensions are labels but this one's are all numbers, they are numbers here (codes
        of one number merge). A code this dimension does not hold is given a category it holds."""
        mine = [t for t in texts if t is not None and t in self.code_of]  # (a missing cell's text is None)
        if not mine:  # no value here: numbers, as the in-memory reader reads an empty dimension
            return "number", list(self.values)
        if self.kind == "number" or not all(t in self.number_of for t in mine):
            return self.kind, list(self.values)
        by_code = {self.code_of[t]: self.number_of[t] for t in mine}
        some = by_code[min(by_code)]
        return "number", [by_code.get(c, some) for c in range(len(self.values))]


def code_texts(texts: Sequence[str], missing: Sequence[str], files: Sequence[str], column: str,
               where: Callable[[str], tuple[object, object]]) -> Coding:
    """Read the distinct texts as in memory ("1" and "1.0" one number; missing spellings dropped);
    a bad one is an InputError naming a unit and a rater that hold it (``where(text)``: the first
    of each by name, so that every run names the same; a unit of several columns shown as in
    memory, its parts joined by " | ")."""
    texts = sorted(set(texts))
    kinds, bad = classify_values(texts, missing)
    if bad is not None:
        i, why = bad
        unit, rater = where(texts[i])
        name = files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} files)"
        raise InputError(name, None, column, f"{why} (unit {excerpt(unit_shown(unit))}, rater {excerpt(rater)})")
    number_of = {t: float_value(float(kinds.floats[i])) for i, t in enumerate(texts)
                 if not kinds.missing[i] and kinds.number[i]}
    numbers = all(kinds.number[i] for i in range(len(texts)) if not kinds.missing[i])
    value_of = {t: (number_of[t] if numbers else t) for i, t in enumerate(texts) if not kinds.missing[i]}
    values = sorted(set(value_of.values())) if numbers else sorted(set(value_of.values()), key=str)
    code_of_value = {v: i for i, v in enumerate(values)}
    return Coding("number" if numbers else "label", tuple(values), {t: code_of_value[v] for t, v in value_of.items()},
                  number_of)


def unit_shown(unit: object) -> str:
    """An engine's unit key (its columns' names joined by U+001F) as the in-memory reader shows a
    unit of several columns: joined by " | "."""
    return str(unit).replace("\x1f", UNIT_JOIN)


def first_rater(by_rater: Sequence[RaterRow], text: str) -> str:
    """The first rater by name, of an engine's (d, r, text, n) rows, holding ``text`` ("?": none)."""
    return min((r for _, r, v, _ in by_rater if v == text), default="?")


def pairs_from_histograms(rows: Sequence[tuple[str, int, int, *tuple[int, ...]]],
                          k: int) -> tuple[list[SizeRow], list[PairRow]]:
    """Rows (d, m, units, sum_{i<=j} n_i n_j - [i=j] n_i ...) in the order of :func:`pivot_cells` ->
    sizes (d, m, units) and pairs (d, m, c, k, count), both orders of an off-diagonal pair."""
    cells = pivot_cells(k)
    sizes: list[SizeRow] = []
    pairs: list[PairRow] = []
    for d, m, units, *vals in rows:
        sizes.append((d, int(m), int(units)))
        if m < 2:
            continue
        for (i, j), x in zip(cells, vals):
            if x:
                pairs.append((d, int(m), i, j, int(x)))
                if i != j:
                    pairs.append((d, int(m), j, i, int(x)))
    return sizes, pairs


def pivot_cells(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(i, k)]


def patterns_from_entries(d: npt.ArrayLike, pid: npt.ArrayLike, units: npt.ArrayLike, code: npt.ArrayLike,
                          n: npt.ArrayLike) -> dict[str, UnitPatterns]:
    """Each dimension's unit patterns from an engine's entry rows (dimension, pattern id, units of
    the pattern, category code, count), one row per category of a pattern."""
    import pandas as pd

    pid = np.asarray(pid, dtype=np.int64)
    units, code, n = (np.asarray(a, dtype=np.int64) for a in (units, code, n))
    out = {}
    which, names = pd.factorize(np.asarray(d, dtype=object))  # names as they are (no fixed-width strings)
    for i, name in enumerate(names.tolist()):
        sel = np.flatnonzero(which == i)
        ids, row = np.unique(pid[sel], return_inverse=True)
        held = np.zeros(len(ids), dtype=np.int64)
        held[row] = units[sel]
        out[name] = unit_patterns(row, code[sel], n[sel], held)
    return out


def assemble(coding: Coding, by_rater: Sequence[RaterRow], sizes: Sequence[SizeRow],
             pairs: Sequence[PairRow], patterns: dict[str, UnitPatterns | None] | None = None
             ) -> dict[str, PanelCounts]:
    """Counts per dimension from an engine's rows: by_rater (d, r, text, n), sizes (d, m, units),
    pairs (d, m, c, k, n); ``patterns``: each dimension's unit patterns (None: more than
    MAX_PATTERNS; a dimension not in it has no pairable unit), or None when not counted."""
    totals: dict[str, list[int]] = {}
    raters: dict[str, list[tuple[str, int | None, int]]] = {}
    held: dict[str, set[str | None]] = {}  # each dimension's texts
    k = len(coding.values)
    for d, r, v, n in by_rater:
        held.setdefault(d, set()).add(v)
        c = coding.code_of.get(v) if v is not None else None
        raters.setdefault(d, []).append((r, c, int(n) if c is not None else 0))  # a rater with missing cells only
        if c is not None:
            totals.setdefault(d, [0] * k)[c] += int(n)
    out = {}
    for d in sorted(raters):
        kind, categories = coding.within(held[d])
        if patterns is None:
            mine, too_many = None, False
        else:
            mine = patterns.get(d, unit_patterns([], [], [], []))
            too_many = d in patterns and patterns[d] is None
        counts = from_rows(d, kind, categories, {int(m): int(n) for dd, m, n in sizes if dd == d},
                           [(m, c, kk, n) for dd, m, c, kk, n in pairs if dd == d], totals.get(d, [0] * k), raters[d],
                           mine, too_many)
        out[d] = drop_unused(counts)
    return out


def drop_unused(c: PanelCounts) -> PanelCounts:
    """Categories that occur in another dimension only are not this dimension's."""
    keep = [i for i, n in enumerate(c.category_totals) if n]
    if len(keep) == len(c.categories):
        return c
    new = np.full(len(c.categories), -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    pairs = {m: (new[ci], new[ki], w) for m, (ci, ki, w) in c.pairs.items()}
    raters = {r: {int(new[k]): n for k, n in per.items() if new[k] >= 0} for r, per in c.rater_counts.items()}
    patterns = None
    if c.patterns is not None:
        row, code, cnt = c.patterns.entries()
        patterns = unit_patterns(row, new[code], cnt, c.patterns.units)
    return PanelCounts(c.dimension, c.kind, tuple(c.categories[i] for i in keep), c.units_by_m, pairs,
                       tuple(c.category_totals[i] for i in keep), raters, patterns, c.too_many_patterns)


HEAD_BYTES = 1 << 20


def detect_columns(path: str) -> Mapping:
    """The columns of long ratings as the in-memory reader would map them (header synonyms such as
    item/annotator/label, a dimension column named question), read from the file's head: the
    suggested Mapping. A file that does not read as long ratings is an InputError."""
    from agreebound.io.ratings import read_source_mapping

    name = Path(path).name
    if is_parquet([path]):
        import io

        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(path)
            first = next(pf.iter_batches(batch_size=2000), None)
        except Exception as e:  # noqa: BLE001 - pyarrow's many error types: said in one line
            raise InputError(path, None, None, f"not a readable Parquet file ({str(e).splitlines()[0][:200]})") from None
        if first is None:
            raise InputError(path, None, None, "the Parquet file has no rows")
        buf = io.BytesIO()
        import pyarrow as pa

        pq.write_table(pa.Table.from_batches([first]), buf)
        head = buf.getvalue()
    else:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
        if len(head) == HEAD_BYTES and b"\n" in head:
            head = head[: head.rindex(b"\n") + 1]
    mapping = read_source_mapping(name, head)
    if mapping.layout != "long":
        raise InputError(path, None, None, f"it reads as {mapping.layout} ratings; the out-of-core engines read long "
                         "ratings (one row per rating): convert it, give --mapping with layout long, or use "
                         "--engine numpy (files up to 200 MB)")
    return mapping


def unit_counts(dimension: str, coding: Coding, sizes: Sequence[SizeRow], pairs: Sequence[PairRow]) -> PanelCounts:
    """One dimension's counts from an engine's (d, m, units) and (d, m, c, k, pairs) rows, without
    rater or total facts (what leave-one-rater-out and the disagreeing units need)."""

    k = len(coding.values)
    return from_rows(dimension, coding.kind, coding.values, {int(m): int(n) for _, m, n in sizes},
                     [(m, c, kk, n) for _, m, c, kk, n in pairs], [0] * k, [])


def most_disagreeing(batches: Iterable[Sequence[Sequence[int]]], whole: PanelCounts, level: Level,
                     top: int) -> list[tuple[tuple[int, ...], float]]:
    """The unit histograms (n_0, ..., n_{k-1}: ratings of each category) that hold the ``top``
    units disagreeing most, each with its disagreement (agreebound.panel.alpha.unit_disagreement at the
    distances of ``whole``, as in memory), most first. ``batches``: an engine's distinct histograms
    of units of two or more ratings, each row (n_0, ..., n_{k-1}, units holding it). Units of one
    histogram disagree equally, so only histograms that can still be among the top are kept: in
    order of disagreement until they hold ``top`` units, and those tied with the last."""
    k = len(whole.categories)
    x_kept, hist_kept, units_kept = np.zeros(0), np.zeros((0, k), dtype=np.int64), np.zeros(0, dtype=np.int64)
    for batch in batches:
        arr = np.asarray(batch, dtype=np.int64).reshape(-1, k + 1)
        if not len(arr):
            continue
        hist = arr[:, :k]
        row, code = np.nonzero(hist)  # row by row, codes ascending: the histograms as in memory
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        x = np.r_[x_kept, unit_disagreement(whole, level, (code, hist[row, code], starts))]
        hist, units = np.r_[hist_kept, hist], np.r_[units_kept, arr[:, k]]
        order = np.argsort(-x, kind="stable")
        order = order[x[order] > 0]
        enough = int(np.searchsorted(np.cumsum(units[order]), top))  # the first that makes ``top`` units
        if enough < len(order):
            order = order[x[order] >= x[order[enough]]]
        x_kept, hist_kept, units_kept = x[order], hist[order], units[order]
    return [(tuple(h), float(v)) for h, v in zip(hist_kept.tolist(), x_kept.tolist())]


# --- the ratings themselves, for the annotation study ------------------------------------------

#: The most ratings an out-of-core study takes: the study holds each rating's unit, rater and code
#: in memory (3 int64 arrays, 24 bytes a rating, plus the rater model's per-triple work arrays),
#: so 50 million ratings need some gigabytes; above it the engines refuse, before fetching anything.
MAX_STUDY_RATINGS = 50_000_000


@dataclass(frozen=True)
class RatingTriples:
    """One dimension's ratings as an engine's ``GROUP BY unit, rater, value COUNT(*)`` returns them:
    triple i says rater ``raters[rater[i]]`` gave unit ``units[unit[i]]`` the value of code
    ``code[i]`` (a code of the engine's :class:`Coding`) ``count[i]`` times. ``units`` and
    ``raters`` are in the order of their first rating in the files (missing values included), as
    the in-memory reader numbers them; a unit of several columns shown as in memory (" | ")."""

    dimension: str
    units: tuple[str, ...]
    raters: tuple[str, ...]
    unit: np.ndarray
    rater: np.ndarray
    code: np.ndarray
    count: np.ndarray


def refuse_large_study(ratings: int, shown: str, limit: int = MAX_STUDY_RATINGS) -> None:
    """An InputError when the study would hold more than ``limit`` ratings in memory."""
    if ratings > limit:
        raise InputError(shown, None, None, f"{ratings:,} ratings: the annotation study holds every rating's unit, "
                         f"rater and code in memory and takes at most {limit:,}; choose one dimension "
                         "(--dimension) or a sample of the units, or leave out --study")

