"""DuckDB: the counts of long-format ratings (one row per rating) in CSV or Parquet files or
globs, out of core, streaming; nothing but the counts comes back to Python.

A unit's ratings may sit in any row of any file: grouping by unit (and dimension) is DuckDB's.
Values are grouped by their text (trimmed); the distinct texts are then read by the same rules as
every other path (agreebound.formats.classify_values: missing spellings, numbers held exactly,
labels), so "1" and "1.0" become one category, as they do in memory.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from agreebound.counts import PanelCounts, from_rows
from agreebound.errors import InputError
from agreebound.escape import excerpt
from agreebound.formats import classify_values
from agreebound.panel import _float_value


@dataclass(frozen=True)
class LongColumns:
    """Which columns hold the unit (one or more), the rater, the value, and the dimension (or none)."""

    unit: tuple[str, ...] = ("unit",)
    rater: str = "rater"
    value: str = "value"
    dimension: str | None = None


def _files(paths: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        found = sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]
        if not found:
            raise InputError(p, None, None, "no file matches this pattern")
        for f in found:
            if os.path.isdir(f):
                raise InputError(f, None, None, "this is a folder; give files or a pattern such as data/*.parquet")
            if not os.path.exists(f):
                raise InputError(f, None, None, "cannot read the file (no such file)")
        out += found
    kinds = {Path(f).suffix.lower() for f in out}
    if not kinds <= {".csv", ".tsv", ".txt", ".parquet", ".pq"}:
        raise InputError(out[0], None, None, "the DuckDB engine reads CSV/TSV and Parquet files")
    if len({"parquet" if k in (".parquet", ".pq") else "csv" for k in kinds}) > 1:
        raise InputError(out[0], None, None, "mix of CSV and Parquet files; give one kind at a time")
    return out


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _source(files: list[str]) -> str:
    listing = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    if Path(files[0]).suffix.lower() in (".parquet", ".pq"):
        return f"read_parquet({listing}, union_by_name = true)"
    delim = "\\t" if Path(files[0]).suffix.lower() == ".tsv" else ","
    return f"read_csv({listing}, header = true, all_varchar = true, delim = '{delim}', union_by_name = true)"


#: DuckDB's working memory (it spills to a temporary folder beyond it): bounded whatever the data's
#: size. $AGREEBOUND_DUCKDB_MEMORY overrides it (e.g. 8GB on a large machine).
MEMORY_LIMIT = "1GB"


def panel_counts(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                 threads: int | None = None, memory_limit: str | None = None) -> dict[str, PanelCounts]:
    """Counts per dimension of the long ratings in ``paths`` (files or globs)."""
    import shutil
    import tempfile

    import duckdb

    files = _files(paths)
    spill = tempfile.mkdtemp(prefix="agreebound-duckdb-")
    con = duckdb.connect(config={"threads": threads or os.cpu_count() or 1,
                                 "memory_limit": memory_limit or os.environ.get("AGREEBOUND_DUCKDB_MEMORY") or MEMORY_LIMIT,
                                 "temp_directory": spill, "preserve_insertion_order": False})
    try:
        have = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {_source(files)} LIMIT 0").fetchall()]
        need = [*columns.unit, columns.rater, columns.value] + ([columns.dimension] if columns.dimension else [])
        for c in need:
            if c not in have:
                raise InputError(files[0], 1, c, f"missing column; the files have {', '.join(have[:20])}")
        unit = " || '\x1f' || ".join(f"CAST({_quote(c)} AS VARCHAR)" for c in columns.unit)
        dim = f"CAST({_quote(columns.dimension)} AS VARCHAR)" if columns.dimension else "'all'"
        # One scan of the files: ratings per (unit, value) and per (rater, value), by dimension.
        con.execute(f"""
            CREATE TEMP TABLE g AS
            SELECT {dim} AS d, {unit} AS u, CAST({_quote(columns.rater)} AS VARCHAR) AS r,
                   trim(CAST({_quote(columns.value)} AS VARCHAR)) AS v, count(*)::BIGINT AS n
            FROM {_source(files)}
            GROUP BY GROUPING SETS ((d, u, v), (d, r, v))""")
        by_rater = con.execute("SELECT d, r, v, n FROM g WHERE r IS NOT NULL").fetchall()
        # the distinct value texts, read by the one set of rules (missing spellings, exact numbers, labels)
        texts = sorted({v for _, _, v, _ in by_rater if v is not None})
        kinds, bad = classify_values(texts, missing)
        if bad is not None:
            i, why = bad
            row = con.execute("SELECT d, u FROM g WHERE u IS NOT NULL AND v = ? LIMIT 1", [texts[i]]).fetchone()
            who = next((r for _, r, v, _ in by_rater if v == texts[i]), "?")
            raise InputError(files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} files)", None,
                             columns.value, f"{why} (unit {excerpt(row[1]) if row else '?'}, rater {excerpt(who)})")
        numbers = all(kinds.number[i] for i in range(len(texts)) if not kinds.missing[i])
        value_of = {t: (_float_value(float(kinds.floats[i])) if numbers else t)
                    for i, t in enumerate(texts) if not kinds.missing[i]}
        values = sorted(set(value_of.values())) if numbers else sorted(set(value_of.values()), key=str)
        code_of_value = {v: i for i, v in enumerate(values)}
        code_of = {t: code_of_value[v] for t, v in value_of.items()}  # "1" and "1.0": one code
        con.execute("CREATE TEMP TABLE vals (v VARCHAR, code INTEGER)")
        if code_of:
            con.executemany("INSERT INTO vals VALUES (?, ?)", list(code_of.items()))
        con.execute("""
            CREATE TEMP TABLE uc AS
            SELECT g.d, g.u, vals.code AS c, sum(g.n)::BIGINT AS n
            FROM g JOIN vals ON g.v = vals.v WHERE g.u IS NOT NULL GROUP BY g.d, g.u, vals.code""")
        con.execute("DROP TABLE g")
        k = len(values)
        if 0 < k <= PIVOT_MAX_CATEGORIES:
            sizes, pairs = _pairs_by_pivot(con, k)
        else:
            sizes, pairs = _pairs_by_join(con)
    except duckdb.Error as e:
        raise InputError(files[0], None, None, f"DuckDB could not read it: {str(e).splitlines()[0][:300]}") from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)
    totals: dict[str, list[int]] = {}
    raters: dict[str, list[tuple[str, int | None, int]]] = {}
    for d, r, v, n in by_rater:
        c = code_of.get(v) if v is not None else None
        raters.setdefault(d, []).append((r, c, int(n) if c is not None else 0))  # a rater with missing cells only
        if c is not None:
            totals.setdefault(d, [0] * len(values))[c] += int(n)
    out = {}
    kind = "number" if numbers else "label"
    for d in sorted(raters):
        counts = from_rows(d, kind, values, {int(m): int(n) for dd, m, n in sizes if dd == d},
                           [(m, c, k, n) for dd, m, c, k, n in pairs if dd == d], totals.get(d, [0] * len(values)),
                           raters[d])
        out[d] = _drop_unused(counts)
    return out


#: Up to this many categories, pair counts come from one pass over each unit's histogram (k(k+1)/2
#: sums); above, from a self-join of the (unit, value) counts.
PIVOT_MAX_CATEGORIES = 16


def _pairs_by_pivot(con: Any, k: int) -> tuple[list[Any], list[Any]]:
    """Each unit's histogram as k columns, then per (dimension, unit size) the sums of n_c * n_k."""
    hist = ", ".join(f"coalesce(sum(n) FILTER (WHERE c = {i}), 0)::BIGINT AS n{i}" for i in range(k))
    cells = [(i, j) for i in range(k) for j in range(i, k)]
    sums = ", ".join(f"sum(n{i} * n{j}{f' - n{i}' if i == j else ''})::HUGEINT" for i, j in cells)
    rows = con.execute(f"""
        SELECT d, m, count(*), {sums}
        FROM (SELECT d, u, sum(n)::BIGINT AS m, {hist} FROM uc GROUP BY d, u)
        GROUP BY d, m""").fetchall()
    sizes, pairs = [], []
    for d, m, units, *vals in rows:
        sizes.append((d, m, units))
        if m < 2:
            continue
        for (i, j), x in zip(cells, vals):
            if x:
                pairs.append((d, m, i, j, x))
                if i != j:
                    pairs.append((d, m, j, i, x))
    return sizes, pairs


def _pairs_by_join(con: Any) -> tuple[list[Any], list[Any]]:
    con.execute("CREATE TEMP TABLE um AS SELECT d, u, sum(n)::BIGINT AS m FROM uc GROUP BY d, u")
    sizes = con.execute("SELECT d, m, count(*) FROM um GROUP BY d, m").fetchall()
    pairs = con.execute("""
        SELECT a.d, um.m, a.c, b.c, sum(a.n * b.n - CASE WHEN a.c = b.c THEN a.n ELSE 0 END)::HUGEINT
        FROM uc a JOIN uc b ON a.d = b.d AND a.u = b.u JOIN um ON um.d = a.d AND um.u = a.u
        WHERE um.m >= 2 GROUP BY a.d, um.m, a.c, b.c""").fetchall()
    return sizes, pairs


def _drop_unused(c: PanelCounts) -> PanelCounts:
    """Categories that occur in another dimension only are not this dimension's."""
    import numpy as np

    keep = [i for i, n in enumerate(c.category_totals) if n]
    if len(keep) == len(c.categories):
        return c
    new = np.full(len(c.categories), -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    pairs = {m: (new[ci], new[ki], w) for m, (ci, ki, w) in c.pairs.items()}
    raters = {r: {int(new[k]): n for k, n in per.items() if new[k] >= 0} for r, per in c.rater_counts.items()}
    return PanelCounts(c.dimension, c.kind, tuple(c.categories[i] for i in keep), c.units_by_m, pairs,
                       tuple(c.category_totals[i] for i in keep), raters)
