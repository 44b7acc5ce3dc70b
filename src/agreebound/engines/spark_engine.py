"""Spark: the same counts as DuckDB from long ratings on a cluster's storage (or locally with
``local[N]``), with the DataFrame API; only the counts come back to the driver.

A real cluster (the CLI module as the application; README, "Engines")::

    spark-submit --master spark://host:7077 --py-files agreebound.zip \\
        path/to/agreebound/cli/main.py panel 'hdfs:///ratings/*.parquet' --engine spark --master spark://host:7077

Paths on a cluster's storage (hdfs://, s3a://, patterns there) are given to Spark as they are: Spark
lists them itself. Local paths are expanded here, once (engines.common.input_files), and each file is
given to Spark as exactly that file: its absolute path with Hadoop's pattern characters escaped, so a
file named a*.csv is read alone, as by every other engine and as the report lists it.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from fractions import Fraction
from functools import reduce
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, overload

from agreebound.panel.categories import Level
from agreebound.panel.counts import PanelCounts, UnitPatterns
from agreebound.engines.common import (
    PIVOT_MAX_CATEGORIES,
    Coding,
    LongColumns,
    MAX_STUDY_RATINGS,
    PairRow,
    RatingTriples,
    SizeRow,
    assemble,
    check_columns,
    code_texts,
    input_files,
    most_disagreeing,
    pairs_from_histograms,
    patterns_from_entries,
    pivot_cells,
    refuse_large_study,
    unit_counts,
    unit_shown,
)
from agreebound.core.errors import InputError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, Row, SparkSession


#: The session's settings (also given to the JVM at its launch, as spark-submit's --conf).
SETTINGS = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "8",
            "spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"}

# pyspark's own notices (e.g. that it does not yet fully support this pandas) are not the user's
warnings.filterwarnings("ignore", module=r"(pyspark|py4j)(\.|$)")


def session(master: str = "local[2]") -> SparkSession:
    """A Spark session (quiet, no UI, local temporary folders); one per process. The JVM's own
    output (log4j's start-up lines, Java's warnings, a task's stack trace) never reaches the user's
    terminal: a bad input is one line on stderr, as with every engine (AGREEBOUND_TRACE=1 shows it)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable or "python3")  # workers import agreebound too
    from pyspark.sql import SparkSession

    _quiet_gateway(master)
    builder = SparkSession.builder.master(master).appName("agreebound")
    for key, value in SETTINGS.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _quiet_gateway(master: str) -> None:
    """Launch the JVM (unless it runs: an earlier session, or spark-submit's) with its stdout and
    stderr away from ours: stdout is the report's, stderr the one-line error's."""
    import subprocess

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ \
                or os.environ.get("SPARK_REMOTE") or os.environ.get("SPARK_CONNECT_MODE_ENABLED"):
            return  # a JVM runs already, or none is needed (Spark Connect)
        conf = SparkConf().setMaster(master).setAppName("agreebound").setAll(list(SETTINGS.items()))
        # with AGREEBOUND_TRACE the JVM's lines go to stderr, still never to stdout
        out = {"stdout": 2, "stderr": None} if os.environ.get("AGREEBOUND_TRACE") else \
            {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        SparkContext._gateway = launch_gateway(conf, popen_kwargs=out)
        SparkContext._jvm = SparkContext._gateway.jvm


#: Names that are printable ASCII with no surrounding space are already as the reader compares them.
#: (Java's ``$`` also matches before a last line break, so that "a\n" would pass for plain: ``\z``.)
PLAIN = "^[!-~]([ -~]*[!-~])?\\z"


#: Up to this many distinct names that are not plain ASCII are normalised on the driver and joined
#: back (broadcast); above it, the reader's function runs on the workers, row by row.
MAPPING_MAX = 100_000


def as_text(df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """``df`` with its columns ``cols`` (names, never empty) as strings."""
    from pyspark.sql import functions as F

    return df.select(*[F.col(f"`{c}`").cast("string").alias(c) if c in cols else F.col(f"`{c}`") for c in df.columns])


def normalised_names(spark: SparkSession, df: DataFrame, cols: Sequence[str]) -> DataFrame:
    """``df`` with its name columns ``cols`` as strings compared as the in-memory reader compares
    names (agreebound.core.escape.normalise_name: NFC, invisible characters removed, whitespace trimmed).
    Plain ASCII names are already so; one pass finds the others, which are normalised by the
    reader's own function (a Python UDF would otherwise run on every row: Spark evaluates it even
    where a condition skips it)."""
    from pyspark.sql import functions as F

    from agreebound.core.escape import normalise_name

    cols = [c for c in dict.fromkeys(cols) if c]
    out = as_text(df, cols)
    odd = out.select(F.explode(F.array(*[F.col(f"`{c}`") for c in cols])).alias("raw")) \
        .where(F.col("raw").isNotNull() & ~F.col("raw").rlike(PLAIN)).distinct()
    found = [r[0] for r in odd.limit(MAPPING_MAX + 1).collect()]
    if not found:
        return out
    if len(found) > MAPPING_MAX:
        norm = F.udf(lambda text: None if text is None else normalise_name(text), "string")
        for c in cols:
            out = out.withColumn(c, F.when(F.col(f"`{c}`").rlike(PLAIN), F.col(f"`{c}`")).otherwise(norm(F.col(f"`{c}`"))))
        return out
    mapping = spark.createDataFrame([(t, normalise_name(t)) for t in found], "raw string, norm string")
    for i, c in enumerate(cols):
        m = F.broadcast(mapping.select(F.col("raw").alias(f"_raw{i}"), F.col("norm").alias(f"_norm{i}")))
        out = out.join(m, out[f"`{c}`"] == m[f"_raw{i}"], "left") \
            .withColumn(c, F.coalesce(F.col(f"_norm{i}"), F.col(f"`{c}`"))).drop(f"_raw{i}", f"_norm{i}")
    return out


#: PLAIN for Python's re.fullmatch.
_PLAIN = re.compile("[!-~]([ -~]*[!-~])?")


def _ratings(df: DataFrame, columns: LongColumns, keep: Sequence[str] = ()) -> DataFrame:
    """The ratings (d, u, r, v) of the frame ``df`` (its name columns strings), names compared as
    the reader compares them when ``df``'s are (an empty name is none), a unit's columns joined by
    U+001F; ``odd``: a unit name is not plain (PLAIN), so that the names as written are not;
    ``keep``: more columns of ``df`` kept as they are."""
    from pyspark.sql import functions as F

    def name(c: str) -> Column:
        t = F.col(f"`{c}`")
        return F.when(t == "", F.lit(None)).otherwise(t)

    parts = [F.coalesce(name(c), F.lit("")) for c in columns.unit]
    unit = parts[0] if len(parts) == 1 else F.concat_ws("\x1f", *parts)
    unit = F.when(unit == ("\x1f" * (len(parts) - 1)), F.lit(None)).otherwise(unit)
    odd = reduce(lambda a, b: a | b, [F.col(f"`{c}`").isNotNull() & ~F.col(f"`{c}`").rlike(PLAIN) for c in columns.unit])
    dim = name(columns.dimension) if columns.dimension else F.lit("all")
    return df.select(dim.alias("d"), unit.alias("u"), name(columns.rater).alias("r"),
                     F.trim(F.col(f"`{columns.value}`").cast("string")).alias("v"), odd.alias("odd"),
                     *[F.col(f"`{c}`") for c in keep])


def _by_rater(r: DataFrame) -> list[tuple[Any, ...]]:
    """One pass over the ratings ``r``: per (d, r, v) the ratings, those with no unit name, and
    those whose unit name is not plain."""
    from pyspark.sql import functions as F

    return [tuple(x) for x in r.groupBy("d", "r", "v").agg(
        F.count(F.lit(1)), F.count(F.when(F.col("u").isNull(), 1)), F.count(F.when(F.col("odd"), 1))).collect()]


def panel_counts(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                 master: str = "local[2]", spark: SparkSession | None = None) -> dict[str, PanelCounts]:
    """Counts per dimension of the long ratings in ``paths`` (files or patterns Spark can list)."""
    from pyspark.sql import functions as F
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    files = spark_files(paths)
    spark = spark or session(master)
    try:
        df = _read(spark, files)
        check_columns(files, df.columns, columns)
        names = [c for c in dict.fromkeys([columns.dimension, *columns.unit, columns.rater]) if c]
        # names as written first: when every one is plain ASCII (PLAIN), they are as the reader
        # compares them, and this one pass over the ratings is the first count
        r = _ratings(as_text(df, names), columns)
        rows = _by_rater(r)
        if any(x[5] for x in rows) or any(x[i] is not None and not _PLAIN.fullmatch(x[i]) for x in rows for i in (0, 1)):
            r = _ratings(normalised_names(spark, df, names), columns)
            rows = _by_rater(r)
        by_rater = [x[:4] for x in rows]
        if not by_rater:
            raise InputError(files[0], None, None, "no ratings: the files have a header but no data rows")
        for what, col, pos in (("dimension", columns.dimension, 0), ("rater", columns.rater, 1)):
            if col is not None and any(row[pos] is None for row in by_rater):
                raise InputError(files[0], None, col, f"an empty {what} name; every rating needs one")
        if any(x[4] for x in rows):
            raise InputError(files[0], None, columns.unit[0], "an empty unit name; every rating needs one")

        def where(text: str) -> tuple[object, object]:
            row = r.where(F.col("v") == text).orderBy("u", "r").select("u", "r").first()  # a rating that holds it
            return (row[0], row[1]) if row else ("?", "?")

        try:
            coding = code_texts([v for _, _, v, _ in by_rater if v is not None], missing, files, columns.value, where)
        except InputError:
            _refuse_twice(r, files, columns)  # a rater rating a unit twice is said first, as by every engine
            raise
        raters = sorted({x[1] for x in by_rater})
        k = len(coding.values)
        if 0 < k <= PIVOT_MAX_CATEGORIES and len(raters) <= RATER_BITS:
            sizes, pairs, patterns = _pairs_by_pivot(_histograms(r, coding, raters), k, lambda: _refuse_twice(
                r, files, columns))
        else:
            _refuse_twice(r, files, columns)
            vals = spark.createDataFrame(list(coding.code_of.items()) or [("", -1)], "v string, c int")
            uc = r.join(F.broadcast(vals), "v").groupBy("d", "u", "c").agg(F.count(F.lit(1)).alias("n"))
            sizes, pairs, patterns = _pairs(uc, k, patterns=True)
    except (PySparkException, Py4JJavaError) as e:
        raise InputError(files[0], None, None, f"Spark could not read it: {spark_error(e)}") from None
    return assemble(coding, by_rater, sizes, pairs, patterns)


def spark_error(e: BaseException) -> str:
    """The first line of a Spark error about the input (cut), to say in one line. A JVM error that
    is not a failure to read a file (a corrupt Parquet footer, a file gone or unreadable) is not
    the input's fault: raised again, as an internal error."""
    java = getattr(e, "java_exception", None)
    if java is None:  # a PySparkException: Spark's own message
        return str(e).splitlines()[0][:300]
    try:
        condition = str(java.getErrorClass() or "")
        message = str(java.getMessage() or "")
    except Exception:  # noqa: BLE001 - not a SparkThrowable: not a read failure
        condition, message = "", ""
    if not condition.startswith("FAILED_READ_FILE") or not message:
        raise e
    return message.splitlines()[0][:300]


#: Up to this many raters, a rater rating a unit twice is found in the pass that counts each unit's
#: histogram: each rater is one bit of a 64-bit mask per unit (the sign bit left unused), and a
#: unit with more ratings than bits holds a rater twice. Above it, a pass of its own groups by
#: (unit, rater).
RATER_BITS = 63


def _refuse_twice(r: DataFrame, files: Sequence[str], columns: LongColumns) -> None:
    """The reader's error when a rater rated a unit twice in the (d, u, r, v) ratings ``r``."""
    from pyspark.sql import functions as F

    twice = r.groupBy("d", "u", "r").count().where(F.col("count") > 1).first()
    if twice is not None:
        raise InputError(files[0], None, columns.rater, f"rater {twice['r']!r} rated unit "
                         f"{unit_shown(twice['u'])!r} again; each rater rates a unit once")


def _histograms(r: DataFrame, coding: Coding, raters: Sequence[str]) -> DataFrame:
    """Each unit's histogram straight from the ratings ``r`` (no join): (d, u, m, n0..n{k-1}, t),
    ``m`` its coded ratings (0: none), ``t`` 1 when it holds a rater twice (see RATER_BITS)."""
    from itertools import chain

    from pyspark.sql import functions as F

    codes = F.create_map(*chain.from_iterable((F.lit(t), F.lit(c)) for t, c in coding.code_of.items()))
    bits = F.create_map(*chain.from_iterable((F.lit(x), F.lit(1 << i).cast("long")) for i, x in enumerate(raters)))
    # a missing spelling or an empty cell has no code (null), as the join with the codes drops it
    rows = r.select("d", "u", F.try_element_at(codes, F.col("v")).alias("c"), F.try_element_at(bits, F.col("r")).alias("b"))
    return rows.groupBy("d", "u").agg(
        F.count("c").alias("m"), *[F.count(F.when(F.col("c") == i, 1)).alias(f"n{i}") for i in range(len(coding.values))],
        (F.count(F.lit(1)) > F.bit_count(F.bit_or("b"))).cast("int").alias("t"))


def _pairs_by_pivot(hist: DataFrame, k: int, twice: Callable[[], None] | None
                    ) -> tuple[list[SizeRow], list[PairRow], dict[str, UnitPatterns | None]]:
    """Sizes, pairs and unit patterns from the unit histograms ``hist`` (d, u, m, n0.., t): grouped
    into the distinct histograms once (cached), each figure counted from those. ``twice()`` is
    called (it raises the reader's error) when a unit holds a rater twice; a unit with no coded
    rating (m = 0) counts nowhere."""
    from pyspark.sql import functions as F

    pat = hist.groupBy("d", "m", *[f"n{i}" for i in range(k)]).agg(
        F.count(F.lit(1)).alias("units"), F.max("t").alias("t")).cache()
    units = F.col("units").cast("decimal(38,0)")
    sums = [F.sum(units * (F.col(f"n{i}") * F.col(f"n{j}") - (F.col(f"n{i}") if i == j else F.lit(0))))
            .cast("decimal(38,0)").alias(f"p{i}_{j}") for i, j in pivot_cells(k)]
    rows = [tuple(x) for x in pat.groupBy("d", "m").agg(F.max("t"), F.sum("units"), *sums).collect()]
    if twice is not None and any(x[2] for x in rows):
        twice()
        raise RuntimeError("the rater mask found a rater twice in a unit; the exact pass did not")
    sizes, pairs = pairs_from_histograms([(d, m, *rest) for d, m, _, *rest in rows if m], k)

    def entries(row: Row) -> list[tuple[int, int]]:
        return [(i, int(row[f"n{i}"])) for i in range(k) if row[f"n{i}"]]

    return sizes, pairs, _patterns(pat, pat.where(F.col("m") >= 2), entries)


@overload
def _pairs(uc: DataFrame, k: int, patterns: Literal[False] = False) -> tuple[list[SizeRow], list[PairRow]]: ...
@overload
def _pairs(uc: DataFrame, k: int, patterns: Literal[True]
           ) -> tuple[list[SizeRow], list[PairRow], dict[str, UnitPatterns | None]]: ...


def _pairs(uc: DataFrame, k: int, patterns: bool = False
           ) -> tuple[list[SizeRow], list[PairRow]] | tuple[list[SizeRow], list[PairRow], dict[str, UnitPatterns | None]]:
    """Per (dimension, unit size) the units and the pair counts, from (d, u, c, n) rows: each unit's
    histogram as k columns up to PIVOT_MAX_CATEGORIES, a self-join above. ``patterns``: also each
    dimension's unit patterns (None for one with more than MAX_PATTERNS), a third element."""
    from pyspark.sql import functions as F

    if 0 < k <= PIVOT_MAX_CATEGORIES:
        hist = uc.groupBy("d", "u").agg(F.sum("n").alias("m"), *[
            F.coalesce(F.sum(F.when(F.col("c") == i, F.col("n"))), F.lit(0)).cast("long").alias(f"n{i}")
            for i in range(k)])
        if not patterns:
            sums = [F.sum(F.col(f"n{i}") * F.col(f"n{j}") - (F.col(f"n{i}") if i == j else F.lit(0)))
                    .cast("decimal(38,0)").alias(f"p{i}_{j}") for i, j in pivot_cells(k)]
            rows = [tuple(x) for x in hist.groupBy("d", "m").agg(F.count(F.lit(1)), *sums).collect()]
            return pairs_from_histograms(rows, k)
        return _pairs_by_pivot(hist.withColumn("t", F.lit(0)), k, None)
    um = uc.groupBy("d", "u").agg(F.sum("n").alias("m"))
    sizes = [tuple(x) for x in um.groupBy("d", "m").count().collect()]
    a, b = uc.alias("a"), uc.select("d", "u", F.col("c").alias("c2"), F.col("n").alias("n2")).alias("b")
    joined = a.join(b, ["d", "u"]).join(um, ["d", "u"]).where(F.col("m") >= 2)
    w = F.col("n") * F.col("n2") - F.when(F.col("c") == F.col("c2"), F.col("n")).otherwise(F.lit(0))
    pairs = [tuple(x) for x in joined.groupBy("d", "m", "c", "c2").agg(F.sum(w).cast("decimal(38,0)")).collect()]
    if not patterns:
        return sizes, pairs
    cells = uc.groupBy("d", "u").agg(F.sort_array(F.collect_list(F.struct("c", "n"))).alias("cells"),
                                     F.sum("n").alias("m"))
    pat = cells.where(F.col("m") >= 2).groupBy("d", "cells").agg(F.count(F.lit(1)).alias("units")).cache()

    def entries(row: Row) -> list[tuple[int, int]]:
        return [(int(e["c"]), int(e["n"])) for e in row["cells"]]

    return sizes, pairs, _patterns(pat, pat, entries)


def _patterns(pat: DataFrame, pairable: DataFrame,
              entries: Callable[[Row], list[tuple[int, int]]]) -> dict[str, UnitPatterns | None]:
    """Each dimension's unit patterns from the cached distinct histograms ``pat`` (None for one with
    more than MAX_PATTERNS): ``pairable`` its rows of units with two ratings or more, ``entries(row)``
    a row's (code, count) pairs. ``pat`` is released."""
    from pyspark.sql import functions as F

    from agreebound.panel.counts import MAX_PATTERNS

    many = [(x[0], int(x[1])) for x in pairable.groupBy("d").count().collect()]
    keep = [d for d, n in many if n <= MAX_PATTERNS]
    found: dict[str, UnitPatterns | None] = {d: None for d, n in many if n > MAX_PATTERNS}
    if keep:
        d_: list[str] = []
        pid: list[int] = []
        held: list[int] = []
        code: list[int] = []
        n_: list[int] = []
        for i, row in enumerate(pairable.where(F.col("d").isin(keep)).toLocalIterator()):
            for c, n in entries(row):
                d_.append(row["d"])
                pid.append(i)
                held.append(int(row["units"]))
                code.append(c)
                n_.append(n)
        found.update(patterns_from_entries(d_, pid, held, code, n_))
    pat.unpersist()
    return found


def _names_read(spark: SparkSession, files: list[str], columns: LongColumns) -> DataFrame:
    """The files as a frame whose name columns are compared as the in-memory reader compares them."""
    df = _read(spark, files)
    check_columns(files, df.columns, columns)
    return normalised_names(spark, df, [columns.dimension or "", *columns.unit, columns.rater])


def _read(spark: SparkSession, files: list[str]) -> DataFrame:
    parquet = files[0].lower().endswith((".parquet", ".pq")) or files[0].lower().endswith(".parquet/*")
    reader = spark.read
    paths = hadoop_paths(files)
    return reader.parquet(*paths) if parquet else reader.option("header", True).option("inferSchema", False) \
        .option("sep", "\t" if files[0].lower().endswith(".tsv") else ",").csv(paths)


def spark_files(paths: Sequence[str]) -> list[str]:
    """The files Spark reads: a path on a cluster's storage (``scheme://``) as given (Spark lists
    it there); local files and patterns expanded here, once, into regular files (input_files),
    each one that Spark can read as exactly that file."""
    remote = [p for p in paths if "://" in p]
    local = [p for p in paths if "://" not in p]
    files = input_files(local) if local else []
    for f in files:
        name = os.path.basename(f)
        if ":" in name:  # Hadoop takes it for a URI's scheme and cannot read the file
            raise InputError(f, None, None, "Spark cannot read a file whose name holds a colon; rename it, or use "
                             "--engine duckdb")
        if _skipped_by_spark(name):
            raise InputError(f, None, None, "Spark skips a file whose name starts with _ or . (it takes it for "
                             "metadata or a hidden file); rename it, or use --engine duckdb")
    return remote + files


def _skipped_by_spark(name: str) -> bool:
    """Spark's rule for the files it leaves out even when named (InMemoryFileIndex.shouldFilterOutPathName)."""
    left_out = (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_")
    return left_out and not name.startswith(("_common_metadata", "_metadata"))


#: What Hadoop reads as a pattern in a path (the backslash is its escape).
HADOOP_PATTERN = "\\{}[]*?"


def hadoop_paths(files: Sequence[str]) -> list[str]:
    """Local files as Spark must be given them to read exactly these: absolute (a name with a colon
    is not a URI scheme), Hadoop's pattern characters escaped (a file named a*.csv is not a
    pattern). A path on a cluster's storage is given as it is."""
    out = []
    for f in files:
        if "://" in f:
            out.append(f)
        else:
            out.append("".join("\\" + ch if ch in HADOOP_PATTERN else ch for ch in os.path.abspath(f)))
    return out


def _most_disagreeing_units(spark: SparkSession, urc: DataFrame, whole: PanelCounts, level: Level, k: int,
                            top: int) -> list[tuple[str, float]]:
    """The ``top`` units of the (unit, rater, code) counts ``urc`` that disagree most: Spark counts
    each unit's histogram and the distinct histograms; their disagreement is measured on the driver
    (engines.common.most_disagreeing), and Spark then names the units that hold them."""
    from itertools import islice

    from pyspark.sql import functions as F

    cols = [f"n{i}" for i in range(k)]
    hist = urc.groupBy("u").agg(F.sum("n").alias("m"), *[
        F.coalesce(F.sum(F.when(F.col("c") == i, F.col("n"))), F.lit(0)).cast("long").alias(f"n{i}")
        for i in range(k)]).where(F.col("m") >= 2).drop("m")
    rows = (tuple(r) for r in hist.groupBy(*cols).count().toLocalIterator())
    chosen = most_disagreeing(iter(lambda: list(islice(rows, 100_000)), []), whole, level, top)
    if not chosen:
        return []
    table = spark.createDataFrame([(*h, x) for h, x in chosen], ", ".join(f"{c} long" for c in cols) + ", x double")
    x = hist.join(F.broadcast(table), cols).select("u", "x").orderBy(F.col("x").desc(), F.col("u")).limit(int(top))
    return [(row[0], float(row[1])) for row in x.collect()]


def rater_diagnostics(paths: Sequence[str], columns: LongColumns, dimension: str, level: Level, *,
                      missing: Sequence[str] = (), top: int = 10, max_raters: int = 50, master: str = "local[2]",
                      spark: SparkSession | None = None) -> tuple[dict[str, Fraction | None], list[tuple[str, float]]]:
    """Leave-one-rater-out alpha (one Spark job per rater over the cached (unit, rater, value)
    counts; none above ``max_raters``) and the ``top`` units contributing most disagreement, for one
    dimension: the DuckDB engine's diagnostics (agreebound.engines.duckdb_engine.rater_diagnostics)
    on a cluster."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    from agreebound.panel.alpha import alpha as alpha_of
    from agreebound.panel.alpha import alpha_without_each_rater

    files = spark_files(paths)
    spark = spark or session(master)
    try:
        df = _names_read(spark, files, columns)
        parts = [F.coalesce(F.col(f"`{c}`"), F.lit("")) for c in columns.unit]
        unit = parts[0] if len(parts) == 1 else F.concat_ws("\x1f", *parts)
        if columns.dimension:
            df = df.where(F.col(f"`{columns.dimension}`") == dimension)
        g = df.select(unit.alias("u"), F.col(f"`{columns.rater}`").alias("r"),
                      F.trim(F.col(f"`{columns.value}`").cast("string")).alias("v")) \
            .groupBy("u", "r", "v").agg(F.count(F.lit(1)).alias("n")).cache()
        texts = [x[0] for x in g.select("v").where(F.col("v").isNotNull()).distinct().collect()]
        coding = code_texts(texts, missing, files, columns.value, lambda t: ("?", "?"))
        raters = sorted(x[0] for x in g.select("r").distinct().collect())
        vals = spark.createDataFrame(list(coding.code_of.items()) or [("", -1)], "v string, c int")
        urc = g.join(F.broadcast(vals), "v").groupBy("u", "r", "c").agg(F.sum("n").alias("n")).cache()
        k = len(coding.values)

        def counts_without(rater: str | None) -> PanelCounts:
            rows = urc if rater is None else urc.where(~F.col("r").eqNullSafe(rater))
            uc = rows.groupBy("u", "c").agg(F.sum("n").alias("n")).withColumn("d", F.lit("x"))
            sizes, pairs = _pairs(uc, k)
            return unit_counts(dimension, coding, sizes, pairs)

        without = alpha_without_each_rater(raters, counts_without, level, max_raters)
        units: list[tuple[str, float]] = []
        if 0 < k <= PIVOT_MAX_CATEGORIES:
            whole = counts_without(None)
            if alpha_of(whole, level).value is not None:
                units = _most_disagreeing_units(spark, urc, whole, level, k, top)
        g.unpersist()
        urc.unpersist()
    except (PySparkException, Py4JJavaError) as e:
        raise InputError(files[0], None, None, f"Spark could not read it: {spark_error(e)}") from None
    return without, units


#: The columns :func:`rating_triples` adds to the files' own: a row's file (its rank) and its place there.
_FILE, _ROW = "__agreebound_file", "__agreebound_row"


def _file_rank(df: DataFrame, files: Sequence[str]) -> Column:
    """Each row's file as a rank: local files in the order given (engines.common.input_files), then
    the files Spark lists on a cluster's storage, by name."""
    from itertools import chain
    from urllib.parse import unquote, urlparse

    from pyspark.sql import functions as F

    given = {os.path.abspath(f): i for i, f in enumerate(files) if "://" not in f}

    def key(uri: str) -> tuple[int, str]:
        parsed = urlparse(uri)
        return (given.get(unquote(parsed.path), len(given)) if parsed.scheme in ("", "file") else len(given)), uri

    ranked = sorted(df.inputFiles(), key=key)
    ranks = F.create_map(*chain.from_iterable((F.lit(u), F.lit(i)) for i, u in enumerate(ranked)))
    return F.coalesce(F.element_at(ranks, F.input_file_name()), F.lit(len(ranked)))


def rating_triples(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                   dimensions: Sequence[str] | None = None, limit: int = MAX_STUDY_RATINGS, master: str = "local[2]",
                   spark: SparkSession | None = None) -> tuple[Coding, dict[str, RatingTriples]]:
    """DuckDB's :func:`agreebound.engines.duckdb_engine.rating_triples` on Spark: per dimension (those
    in ``dimensions``, or every one) the ratings as ``GROUP BY unit, rater, value COUNT(*)``, values
    coded by the reader's rules, units, raters and dimensions numbered in the order of their first
    row. A row's place is its file's rank (local files in the order given) and
    ``monotonically_increasing_id()`` (the partition, then the row: a file's splits are read in order).
    Every rating comes back to the driver (three int arrays and a count): more than ``limit`` is an
    InputError before any is collected."""
    import numpy as np
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    files = spark_files(paths)
    spark = spark or session(master)
    try:
        df = _read(spark, files)
        check_columns(files, df.columns, columns)
        # a row's place, taken at the scan (before any join moves the rows)
        df = df.withColumn(_FILE, _file_rank(df, files)).withColumn(_ROW, F.monotonically_increasing_id())
        names = [c for c in dict.fromkeys([columns.dimension, *columns.unit, columns.rater]) if c]
        r = _ratings(normalised_names(spark, df, names), columns, keep=(_FILE, _ROW))
        if dimensions is not None:
            r = r.where(F.col("d").isin(list(dimensions)))
        g = r.groupBy("d", "u", "r", "v").agg(F.count(F.lit(1)).alias("n"),
                                              F.min(F.struct(_FILE, _ROW)).alias("f")).cache()
        texts = [x[0] for x in g.select("v").where(F.col("v").isNotNull()).distinct().collect()]

        def where(text: str) -> tuple[object, object]:
            row = g.where(F.col("v") == text).agg(F.min("u"), F.min("r")).first()
            return (row[0], row[1]) if row and row[0] is not None else ("?", "?")

        coding = code_texts(texts, missing, files, columns.value, where)
        vals = spark.createDataFrame(list(coding.code_of.items()) or [("", -1)], "v string, c int")
        coded = g.join(F.broadcast(vals), "v")
        total = coded.agg(F.sum("n")).first()
        refuse_large_study(int(total[0] or 0) if total is not None else 0, files[0], limit)

        def numbered(col: str) -> DataFrame:  # each name's number: the order of its first row
            firsts = g.groupBy("d", col).agg(F.min("f").alias("f"))
            return firsts.withColumn("i", F.row_number().over(Window.partitionBy("d").orderBy("f")) - 1).drop("f")

        un, ra = numbered("u").cache(), numbered("r").cache()
        listed: dict[str, dict[str, list[str]]] = {"u": {}, "r": {}}
        for table, col in ((un, "u"), (ra, "r")):
            for row in table.orderBy("d", "i").toLocalIterator():
                listed[col].setdefault(row["d"], []).append(row[col])
        order = [x[0] for x in g.groupBy("d").agg(F.min("f").alias("f")).orderBy("f").collect()]
        triples = coded.join(un.withColumnRenamed("i", "ui"), ["d", "u"]).join(ra.withColumnRenamed("i", "ri"), ["d", "r"]) \
            .groupBy("d", "ui", "ri", "c").agg(F.sum("n").alias("n"))
        found: dict[str, RatingTriples] = {}
        for d in order:
            got: list[list[int]] = [[], [], [], []]
            for row in triples.where(F.col("d") == d).orderBy("ui", "ri", "c").toLocalIterator():
                for i, x in enumerate(row[1:]):
                    got[i].append(int(x))
            found[d] = RatingTriples(d, tuple(unit_shown(u) for u in listed["u"][d]), tuple(listed["r"][d]),
                                     *(np.asarray(a, dtype=np.int64) for a in got))
        for cached in (g, un, ra):
            cached.unpersist()
    except (PySparkException, Py4JJavaError) as e:
        raise InputError(files[0], None, None, f"Spark could not read it: {spark_error(e)}") from None
    return coding, found
