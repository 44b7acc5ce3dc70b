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


def panel_counts(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                 threads: int | None = None, memory_limit: str | None = None) -> dict[str, PanelCounts]:
    """Counts per dimension of the long ratings in ``paths`` (files or globs)."""
    import duckdb

    files = _files(paths)
    con = duckdb.connect(config={"threads": threads or os.cpu_count() or 1,
                                 **({"memory_limit": memory_limit} if memory_limit else {}),
                                 "preserve_insertion_order": False})
    try:
        have = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {_source(files)} LIMIT 0").fetchall()]
        need = [*columns.unit, columns.rater, columns.value] + ([columns.dimension] if columns.dimension else [])
        for c in need:
            if c not in have:
                raise InputError(files[0], 1, c, f"missing column; the files have {', '.join(have[:20])}")
        unit = " || '\x1f' || ".join(f"CAST({_quote(c)} AS VARCHAR)" for c in columns.unit)
        dim = f"CAST({_quote(columns.dimension)} AS VARCHAR)" if columns.dimension else "'all'"
        con.execute(f"""
            CREATE TEMP VIEW r AS
            SELECT {dim} AS d, {unit} AS u, CAST({_quote(columns.rater)} AS VARCHAR) AS r,
                   trim(CAST({_quote(columns.value)} AS VARCHAR)) AS v
            FROM {_source(files)}""")
        # the distinct value texts, read by the one set of rules; missing ones are dropped below
        texts = [row[0] for row in con.execute("SELECT DISTINCT v FROM r WHERE v IS NOT NULL").fetchall()]
        kinds, bad = classify_values(texts, missing)
        if bad is not None:
            i, why = bad
            row = con.execute("SELECT d, u, r FROM r WHERE v = ? LIMIT 1", [texts[i]]).fetchone()
            raise InputError(files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} files)", None,
                             columns.value, f"{why} (unit {excerpt(row[1]) if row else '?'}, rater "
                             f"{excerpt(row[2]) if row else '?'})")
        present = [t for t, m in zip(texts, kinds.missing) if not m]
        con.execute("CREATE TEMP TABLE vals (v VARCHAR, code INTEGER)")
        if present:
            con.executemany("INSERT INTO vals VALUES (?, ?)", [(t, i) for i, t in enumerate(present)])
        numbers = all(kinds.number[i] for i, m in enumerate(kinds.missing) if not m)
        values: list[Any] = []
        for i, t in enumerate(texts):
            if kinds.missing[i]:
                continue
            values.append(_float_value(float(kinds.floats[i])) if numbers else t)
        con.execute("""
            CREATE TEMP TABLE rc AS
            SELECT r.d, r.u, r.r, vals.code AS c FROM r JOIN vals ON r.v = vals.v""")
        con.execute("""
            CREATE TEMP TABLE uc AS SELECT d, u, c, count(*)::BIGINT AS n FROM rc GROUP BY d, u, c""")
        con.execute("""
            CREATE TEMP TABLE um AS SELECT d, u, sum(n)::BIGINT AS m FROM uc GROUP BY d, u""")
        sizes = con.execute("SELECT d, m, count(*) FROM um GROUP BY d, m").fetchall()
        pairs = con.execute("""
            SELECT a.d, um.m, a.c, b.c, sum(a.n * b.n - CASE WHEN a.c = b.c THEN a.n ELSE 0 END)::HUGEINT
            FROM uc a JOIN uc b ON a.d = b.d AND a.u = b.u JOIN um ON um.d = a.d AND um.u = a.u
            WHERE um.m >= 2 GROUP BY a.d, um.m, a.c, b.c""").fetchall()
        totals = con.execute("SELECT d, c, count(*) FROM rc GROUP BY d, c").fetchall()
        raters = con.execute("SELECT d, r, c, count(*) FROM rc GROUP BY d, r, c").fetchall()
        all_raters = con.execute("SELECT DISTINCT d, r FROM r").fetchall()  # raters whose every cell is missing too
    except duckdb.Error as e:
        raise InputError(files[0], None, None, f"DuckDB could not read it: {str(e).splitlines()[0][:300]}") from None
    finally:
        con.close()
    dims = sorted({d for d, *_ in sizes} | {d for d, _ in all_raters})
    out = {}
    kind = "number" if numbers else "label"
    for d in dims:
        t = [0] * len(values)
        for dd, c, n in totals:
            if dd == d:
                t[c] += int(n)
        rows = [(r, c, n) for dd, r, c, n in raters if dd == d]
        rows += [(r, None, 0) for dd, r in all_raters if dd == d]  # a rater with no rating here
        counts = from_rows(d, kind, values, {int(m): int(n) for dd, m, n in sizes if dd == d},
                           [(m, c, k, n) for dd, m, c, k, n in pairs if dd == d], t, rows)
        out[d] = _drop_unused(counts)
    return out


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
