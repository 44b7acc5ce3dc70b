"""Spark: a judge audit from the tabular form on a cluster's storage (or locally with ``local[N]``);
the SQL and its checks are agreebound.engines.judge_sql's, run as Spark SQL.

File order, for the first offending row: files by name, then ``monotonically_increasing_id()``,
which grows with the position in a file (a file's splits are read in order). A local CSV row is
then read back from the file itself, as the in-memory reader reads it; a row on cluster storage is
named by its record (the data row under the header).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence
from urllib.parse import unquote, urlparse

from agreebound.judge.measure import CalibrationMeasurement
from agreebound.judge.slices import NO_VALUE
from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract
from agreebound.engines.judge_duckdb import csv_record
from agreebound.engines.judge_sql import ID, Audit, audit_with, first_unreadable, memory_csv_error, q
from agreebound.core.errors import InputError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class SparkDialect:
    name = "Spark"
    literal = staticmethod(_literal)

    @staticmethod
    def full_match(x: str, pattern: str) -> str:
        return f"({x} rlike {_literal('^(?:' + pattern + ')' + chr(92) + 'z')})"  # \z: the very end, as fullmatch

    @staticmethod
    def reviewers_ok(x: str) -> str:
        parts = f"split({x}, ';')"
        return (f"coalesce({x} <> '' AND forall({parts}, e -> {SparkDialect.full_match('e', ID)}) "
                f"AND array_sort({parts}) = {parts} AND size(array_distinct({parts})) = size({parts}), false)")

    @staticmethod
    def count_ids(x: str) -> str:
        return f"size(split({x}, ';'))"

    @staticmethod
    def index_in(names: Sequence[str], x: str) -> str:
        return f"nullif(array_position(array({', '.join(_literal(t) for t in names)}), {x}), 0)"

    @staticmethod
    def text_at(names: Sequence[str], i: str) -> str:
        return f"element_at(array({', '.join(_literal(t) for t in names)}), CAST({i} AS INT))"

    @staticmethod
    def field(x: str, shift: int, mask: int) -> str:
        return f"(shiftright({x}, {shift}) & {mask})"

    @staticmethod
    def packed_sum(x: str) -> str:
        return f"try_sum(CAST({x} AS BIGINT))"  # null, not an error (ANSI mode), where it overflows

    @staticmethod
    def smallest_ids(groups: Sequence[str], where: str, n: int, source: str) -> str:
        ms = ", ".join(f"m{i}" for i in range(len(groups)))
        return (f"SELECT {ms}, case_id FROM (SELECT {', '.join(f'{g} AS m{i}' for i, g in enumerate(groups))}, "
                f"case_id, row_number() OVER (PARTITION BY {', '.join(groups)} ORDER BY case_id) AS i "
                f"FROM {source} WHERE {where}) AS y WHERE i <= {n}")


class _Source:
    def __init__(self, spark: SparkSession, role: str, paths: Sequence[str], fields: Sequence[str], names: Sequence[str]) -> None:
        from pyspark.sql import functions as F
        from pyspark.sql import types as T

        from agreebound.engines.spark_engine import hadoop_paths, spark_files

        self.spark, self.role, self.fields = spark, role, tuple(fields)
        self.remote = any("://" in p for p in paths)
        self.files = list(paths) if self.remote else spark_files(paths)
        self.names = list(names) if len(names) == len(self.files) else [Path(f).name for f in self.files]
        self.parquet = self.files[0].lower().endswith((".parquet", ".pq", ".parquet/*"))
        self.delimiter = "\t" if self.files[0].lower().endswith(".tsv") else ","
        self.shown = self.names[0] if len(self.files) == 1 else f"{self.names[0]} (and {len(self.files) - 1} more)"
        reader = spark.read
        paths = hadoop_paths(self.files)  # local files read as exactly these files, never as patterns
        if self.parquet:
            df = reader.parquet(*paths)
        else:  # quotes doubled as the in-memory reader reads them; every file's header checked by name
            df = (reader.option("header", True).option("inferSchema", False).option("enforceSchema", False)
                  .option("mode", "FAILFAST")
                  .option("escape", '"').option("sep", self.delimiter).csv(paths))
        missing = [c for c in self.fields if c not in df.columns]
        # the observations' other columns are slice columns (agreebound.judge.slices, in memory): not counted here
        extra = [] if self.role == "observations" else [c for c in df.columns if c not in self.fields]
        self.problem = None if not (missing or extra) else (missing[0] if missing else extra[0],
                                                            "missing column" if missing else "unexpected column")
        self.raw = df
        self.view, self.numbered, self.everything = f"{role}_text", f"{role}_numbered", f"{role}_all"
        # the observations' slice columns, in the view as x0, x1, ... (each cell as its text: an empty
        # CSV cell as '' as the in-memory reader reads it, a Parquet null as the slices' NO_VALUE)
        self.extras = tuple(c for c in df.columns if c not in self.fields) if role == "observations" else ()
        if self.problem is not None:
            self.integer: set[str] = set()
            return
        types = {f.name: f.dataType for f in df.schema.fields}
        integer = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
        self.integer = {f for f in self.fields if isinstance(types[f], integer)}

        def text(f: str) -> Column:
            c = F.col(f"`{f}`")
            return F.array_join(c, ";") if isinstance(types[f], T.ArrayType) else c.cast("string")

        cols = [text(f).alias(q(f)) for f in self.fields]
        # a row whose every cell is empty is not a row, as in memory (a spreadsheet's ,,,)
        blank = F.lit(True)
        for f in self.fields:
            blank = blank & F.coalesce(F.col(q(f)).rlike("^\\s*\\z"), F.lit(True))
        missing_as = F.lit(NO_VALUE if self.parquet else "")
        slices = [F.coalesce(text(x), missing_as).alias(f"x{i}") for i, x in enumerate(self.extras)]
        df.select(*cols, *slices).where(~blank).createOrReplaceTempView(self.view)
        every = df.select(F.input_file_name().alias("o1"), F.monotonically_increasing_id().alias("o2"), *cols)
        every.createOrReplaceTempView(self.everything)  # record indices count the blank rows too
        every.where(~blank).createOrReplaceTempView(self.numbered)

    def number(self, field: str) -> str:
        """The field's cell as a BIGINT (null where it is not one)."""
        return f"try_cast({q(field)} AS BIGINT)"

    def check_header(self) -> None:
        if self.problem is None:
            return
        col, why = self.problem
        if not self.parquet and not self.remote:
            err = memory_csv_error(self.files[0], self.names[0], self.fields, self.delimiter,
                                   with_row=self.raw.limit(1).count() > 0, extra=self.role == "observations")
            if err is not None:
                raise err
        raise InputError(self.names[0], 1, col, f"{why}; expected a {'Parquet file' if self.parquet else 'CSV'} "
                         f"with the columns {','.join(self.fields)}")

    def no_rows(self) -> None:
        if not self.parquet and not self.remote and len(self.files) == 1:
            err = memory_csv_error(self.files[0], self.names[0], self.fields, self.delimiter, with_row=False,
                                   extra=self.role == "observations")
            if err is not None:
                raise err
        raise InputError(self.shown, None, None, "the file has a header but no data rows; expected a "
                         f"{'Parquet file with the columns' if self.parquet else 'CSV with the header'} "
                         f"{','.join(self.fields)}")

    def first(self, condition: str, after: tuple[str, int] | None = None) -> tuple[str, int] | None:
        later = "" if after is None else f" AND (o1 > {_literal(after[0])} OR (o1 = {_literal(after[0])} AND o2 > {int(after[1])}))"
        rows = self.spark.sql(f"SELECT o1, o2 FROM {self.numbered} WHERE ({condition}){later} ORDER BY o1, o2 LIMIT 1"
                              ).collect()
        return (rows[0][0], int(rows[0][1])) if rows else None

    def where(self, at: tuple[str, int]) -> tuple[str, int, dict[str, str]]:
        uri, mid = at
        record = self.spark.sql(f"SELECT count(*) FROM {self.everything} WHERE o1 = {_literal(uri)} AND o2 < {int(mid)}"
                                ).collect()[0][0]
        parsed = urlparse(uri)
        name = Path(unquote(parsed.path)).name
        if parsed.scheme in ("", "file") and not self.parquet:
            line, cells = csv_record(unquote(parsed.path), self.delimiter, int(record), self.fields)
            return name, line, cells
        row = self.spark.sql(f"SELECT {', '.join(q(f) for f in self.fields)} FROM {self.numbered} "
                             f"WHERE o1 = {_literal(uri)} AND o2 = {int(mid)}").collect()[0]
        cells = {f: ("" if v is None else str(v)) for f, v in zip(self.fields, row)}
        return name, int(record) + (1 if self.parquet else 2), cells


class _Engine:
    name = "Spark"
    dialect = SparkDialect()

    refs: _Source  # set once read
    obs: _Source

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.cached: list[DataFrame] = []

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.spark.sql(sql).collect()]

    def table(self, name: str, sql: str) -> None:
        from pyspark import StorageLevel

        df = self.spark.sql(sql).persist(StorageLevel.MEMORY_AND_DISK)
        df.createOrReplaceTempView(name)
        self.cached.append(df)

    def view(self, name: str, sql: str) -> None:
        self.spark.sql(sql).createOrReplaceTempView(name)

    @contextlib.contextmanager
    def sequential(self) -> Iterator[None]:
        yield  # file order is in the numbered view's columns


def judge_measurement(contract_name: str, contract_data: bytes, references: Sequence[str],
                      observations: Sequence[str], *, master: str = "local[2]", spark: SparkSession | None = None,
                      reference_names: Sequence[str] = (), observation_names: Sequence[str] = ()
                      ) -> tuple[JudgeCalibrationContract, tuple[str, str, str], CalibrationMeasurement]:
    """The DuckDB engine's judge audit (agreebound.engines.judge_duckdb) on Spark: the same
    decision, rates, intervals and, for bad input, the same messages."""
    contract, header, audit = judge_audit(contract_name, contract_data, references, observations,
                                          master=master, spark=spark,
                                          reference_names=reference_names, observation_names=observation_names)
    return contract, header, audit.measurement


def judge_audit(contract_name: str, contract_data: bytes, references: Sequence[str],
                observations: Sequence[str], *, master: str = "local[2]", spark: SparkSession | None = None,
                reference_names: Sequence[str] = (), observation_names: Sequence[str] = (),
                slices: bool = False, kinds: bool = False
                ) -> tuple[JudgeCalibrationContract, tuple[str, str, str], Audit]:
    """:func:`judge_measurement`, and, asked, each slice's counts (``slices``) and the battles' kinds of
    case (``kinds``): agreebound.engines.judge_sql.audit_with.
    """
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    from agreebound.engines.spark_engine import session, spark_error
    from agreebound.io.judge_inputs import judge_tables_contract

    contract, header = judge_tables_contract(contract_name, contract_data)
    spark = spark or session(master)
    e = _Engine(spark)
    shown = "?"
    refs = obs = None  # each source once read
    try:
        e.refs = refs = _Source(spark, "references", references, REFERENCE_FIELDS, reference_names)
        shown = refs.shown
        e.obs = obs = _Source(spark, "observations", observations, OBSERVATION_FIELDS, observation_names)
        shown = obs.shown
        return contract, header, audit_with(e, contract, header, contract_name, slices=slices, kinds=kinds)
    except (PySparkException, Py4JJavaError) as err:
        for src in (refs, obs):  # a ragged row or bytes not UTF-8, found as the in-memory reader reads CSV
            if src is not None and not src.parquet and not src.remote:
                found = first_unreadable(src.files, src.names, src.delimiter)
                if found is not None:
                    raise found from None
        said = spark_error(err)  # a JVM error other than a failure to read a file is raised again
        raise InputError(shown, None, None, f"Spark could not read it: {said}") from None
    finally:
        for df in e.cached:
            df.unpersist()
