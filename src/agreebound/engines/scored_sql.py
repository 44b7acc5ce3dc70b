"""A graded or pass/fail judge's counts in SQL (DuckDB out of core, Spark SQL on a cluster): the
tables of paired scores of every two raters over the items both scored, and each rater's role. Only
these counts come back to Python; agreebound.scored.audit reads them (``measure_counts``), through
the same functions as the in-memory audit (alpha from the pair tables through the panel path), so
the exact values are the same whatever the engine.

The source is a scores table (io's SCORE_COLUMNS: item, rater, role, score), CSV or Parquet. Two
scores of one rater on one item, a score that is not a number, or a role other than judge/human are
bad input, named as the in-memory reader names them.
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Sequence

from agreebound.core.errors import InputError
from agreebound.core.limits import MAX_SCORE_MAGNITUDE, MIN_SCORE_MAGNITUDE, SCORE_RANGE
from agreebound.panel.categories import Level
from agreebound.scored.audit import CountedAudit, ScoredCounts, measure_counts
from agreebound.scored.items import check_judges, check_scale

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: A source's rows as (item, rater, role, score) with the score as a number (NULL: not a number).
PAIRS = ("SELECT a.rater AS ra, b.rater AS rb, a.score AS sa, b.score AS sb, count(*) AS n FROM scores a "
         "JOIN scores b ON a.item = b.item AND a.rater < b.rater GROUP BY a.rater, b.rater, a.score, b.score")
#: The same over the items two or more humans scored (the admissibility gate's items).
PAIRS_TWO = ("SELECT a.rater AS ra, b.rater AS rb, a.score AS sa, b.score AS sb, count(*) AS n FROM scores a "
             "JOIN scores b ON a.item = b.item AND a.rater < b.rater WHERE a.item IN (SELECT item FROM scores WHERE "
             "role = 'human' GROUP BY item HAVING count(*) >= 2) GROUP BY a.rater, b.rater, a.score, b.score")
ROLES = "SELECT rater, min(role), max(role), count(DISTINCT item) FROM scores GROUP BY rater"
DUPLICATE = "SELECT item, rater FROM scores GROUP BY item, rater HAVING count(*) > 1 LIMIT 1"
NOT_A_NUMBER = "SELECT count(*) FROM scores WHERE score IS NULL"
#: A score beyond MAX_SCORE_MAGNITUDE, an infinity or NaN (DuckDB and Spark SQL order NaN above every
#: number, so the one comparison finds it too), or one other than 0 below MIN_SCORE_MAGNITUDE: the
#: first, with its item and rater.
OUT_OF_RANGE = (f"SELECT item, rater, score FROM scores WHERE abs(score) > {MAX_SCORE_MAGNITUDE} OR (score <> 0 "
                f"AND abs(score) < {MIN_SCORE_MAGNITUDE!r}) ORDER BY item, rater LIMIT 1")


def counts_from(run: Callable[[str], list[tuple[Any, ...]]], shown: str) -> ScoredCounts:
    """The counts from an engine's ``run(sql)`` over a view ``scores``; bad input named by ``shown``."""
    dup = run(DUPLICATE)
    if dup:
        raise InputError(shown, None, "item", f"a second score of rater {str(dup[0][1])[:60]} on item "
                         f"{str(dup[0][0])[:60]}: one score per rater and item")
    if run(NOT_A_NUMBER)[0][0]:
        raise InputError(shown, None, "score", "expected a number (a score, or 1/0 for pass/fail)")
    far = run(OUT_OF_RANGE)
    if far:
        raise InputError(shown, None, "score", f"expected {SCORE_RANGE}, got {float(far[0][2])!r} (rater "
                         f"{str(far[0][1])[:60]}, item {str(far[0][0])[:60]})")
    roles: dict[str, str] = {}
    items: dict[str, int] = {}
    for rater, low, high, n in run(ROLES):
        if low != high or low not in ("judge", "human"):
            raise InputError(shown, None, "role", f"rater {str(rater)[:60]} has the role {str(low)[:20]!r}"
                             + ("" if low == high else f" and {str(high)[:20]!r}") + ": expected judge or human")
        roles[str(rater)], items[str(rater)] = str(low), int(n)
    check_judges(shown, sum(role == "judge" for role in roles.values()))  # before the pairs: they grow with its square
    check_scale(shown, run("SELECT count(DISTINCT score) FROM scores")[0][0])
    pairs = [(str(a), str(b), float(x), float(y), int(n)) for a, b, x, y, n in run(PAIRS)]
    pairs2 = [(str(a), str(b), float(x), float(y), int(n)) for a, b, x, y, n in run(PAIRS_TWO)]
    return ScoredCounts.of(roles, items, pairs, pairs2)


def duckdb_counts(paths: Sequence[str], level: Level | None = None, shown: str | None = None) -> dict[str, CountedAudit]:
    """The counts of a scores table (CSV or Parquet files) read by DuckDB, measured."""
    import duckdb

    from agreebound.engines.common import input_files, is_parquet
    from agreebound.engines.duckdb_engine import MEMORY_LIMIT, duckdb_said, literal_paths

    files = input_files(list(paths))
    shown = shown or os.path.basename(files[0])
    with tempfile.TemporaryDirectory(prefix="agreebound-scored-") as tmp:
        con = duckdb.connect(config={"threads": os.cpu_count() or 1, "temp_directory": tmp,
                                     "memory_limit": os.environ.get("AGREEBOUND_DUCKDB_MEMORY") or MEMORY_LIMIT})
        try:
            read = ", ".join(f"'{p}'" for p in literal_paths(files, tmp))
            scan = (f"read_parquet([{read}])" if is_parquet(files)
                    else f"read_csv([{read}], header = true, all_varchar = true)")
            con.execute(f"CREATE TEMP VIEW scores AS SELECT CAST(item AS VARCHAR) AS item, CAST(rater AS VARCHAR) "
                        f"AS rater, lower(trim(CAST(role AS VARCHAR))) AS role, TRY_CAST(score AS DOUBLE) AS score "
                        f"FROM {scan}")
            counts = counts_from(lambda sql: con.execute(sql).fetchall(), shown)
        except duckdb.Error as e:
            raise InputError(shown, None, None, duckdb_said(e, shown, files, tmp)) from None
        finally:
            con.close()
    return measure_counts(counts, level)


def spark_counts(paths: Sequence[str], level: Level | None = None, *, master: str = "local[2]",
                 spark: SparkSession | None = None, shown: str | None = None) -> dict[str, CountedAudit]:
    """The same counts by Spark SQL (a cluster, or local[N]), measured."""
    from agreebound.engines.spark_engine import session

    spark = spark or session(master)
    shown = shown or os.path.basename(paths[0])
    parquet = all(p.lower().endswith((".parquet", ".pq")) for p in paths)
    frame = (spark.read.parquet(*paths) if parquet else spark.read.option("header", True).csv(list(paths)))
    frame.createOrReplaceTempView("scores_raw")
    spark.sql("CREATE OR REPLACE TEMP VIEW scores AS SELECT CAST(item AS STRING) AS item, CAST(rater AS STRING) AS "
              "rater, lower(trim(CAST(role AS STRING))) AS role, TRY_CAST(score AS DOUBLE) AS score FROM scores_raw")
    counts = counts_from(lambda sql: [tuple(r) for r in spark.sql(sql).collect()], shown)
    return measure_counts(counts, level)
