"""DuckDB: a judge audit from the tabular form (contract JSON, references and observations as CSV or
Parquet files or globs), out of core; the SQL and its checks are agreebound.engines.judge_sql's.

A Parquet file is read as its CSV would be: integers and booleans as their text, a list of
reviewer ids joined by ';'. Rows are found in file order by a single-threaded scan (CSV) or
Parquet's own row numbers.
"""

from __future__ import annotations

import contextlib
import csv
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from agreebound.judge.measure import CalibrationMeasurement
from agreebound.judge.slices import NO_VALUE
from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract
from agreebound.engines.common import input_files, is_parquet
from agreebound.engines.duckdb_engine import (MEMORY_LIMIT, duckdb_said, literal_paths, one_row, quote_identifier,
                                              string_list)
from agreebound.engines.judge_sql import ID, Audit, audit_with, first_unreadable, memory_csv_error, q
from agreebound.core.errors import InputError

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")


class DuckDialect:
    name = "DuckDB"

    @staticmethod
    def literal(text: str) -> str:
        return "'" + text.replace("'", "''") + "'"

    @staticmethod
    def full_match(x: str, pattern: str) -> str:
        return f"regexp_full_match({x}, '{pattern}')"

    @staticmethod
    def reviewers_ok(x: str) -> str:
        # ids joined by ';' (no id holds one, none is empty), matched whole: one match per cell where
        # one per id took 3.7 s of 25M references' 6.3 s; sorted and distinct, as in memory
        parts = f"string_split({x}, ';')"
        return (f"coalesce(regexp_full_match({x}, '(?:{ID})(?:;(?:{ID}))*') "
                f"AND list_sort({parts}) = {parts} AND len(list_distinct({parts})) = len({parts}), false)")

    @staticmethod
    def count_ids(x: str) -> str:
        return f"len(string_split({x}, ';'))"

    @staticmethod
    def index_in(names: Sequence[str], x: str) -> str:
        return f"list_position([{', '.join(DuckDialect.literal(t) for t in names)}], {x})"

    @staticmethod
    def text_at(names: Sequence[str], i: str) -> str:
        return f"[{', '.join(DuckDialect.literal(t) for t in names)}][{i}]"

    @staticmethod
    def field(x: str, shift: int, mask: int) -> str:
        return f"(({x} >> {shift}) & {mask})"

    @staticmethod
    def packed_sum(x: str) -> str:
        return f"try_cast(sum({x}) AS BIGINT)"  # DuckDB sums BIGINTs as a HUGEINT

    @staticmethod
    def smallest_ids(groups: Sequence[str], where: str, n: int, source: str) -> str:
        ms = ", ".join(f"m{i}" for i in range(len(groups)))
        return (f"SELECT {ms}, unnest(ids) FROM (SELECT {', '.join(f'{g} AS m{i}' for i, g in enumerate(groups))}, "
                f"min(case_id, {n}) AS ids FROM {source} WHERE {where} GROUP BY {ms})")


class _Source:
    """One role's files (references or observations) as text columns named as the fields."""

    #: (file, column, why): said in the reading order; set by _read_header
    problem: tuple[int, str, str] | None

    def __init__(self, con: DuckDBPyConnection, role: str, paths: Sequence[str], fields: Sequence[str], tmp: str,
                 names: Sequence[str]) -> None:
        self.con, self.role, self.fields = con, role, tuple(fields)
        self.files = input_files(paths)
        self.names = list(names) if len(names) == len(self.files) else [Path(f).name for f in self.files]
        self.parquet = is_parquet(self.files)
        self.read = literal_paths(self.files, tmp)
        self.shown = self.names[0] if len(self.files) == 1 else f"{self.names[0]} (and {len(self.files) - 1} more)"
        self.delimiter = "\t" if self.files[0].lower().endswith(".tsv") else ","
        types = self._read_header()
        self.integer = {f for f in self.fields if types.get(f) in INTEGER_TYPES}
        # the observations' slice columns, in the view as x0, x1, ... (each cell as its text: an empty
        # CSV cell as '' as the in-memory reader reads it, a Parquet null as the slices' NO_VALUE)
        self.extras = tuple(c for c in types if c not in self.fields) if role == "observations" else ()
        missing_as = DuckDialect.literal("" if not self.parquet else NO_VALUE)
        slice_columns = [f"coalesce({self._text(x, types[x])}, {missing_as}) AS x{i}" for i, x in enumerate(self.extras)]
        self.view, self.numbered = f"{role}_text", f"{role}_numbered"
        if self.problem is not None:
            return
        self.columns = ", ".join([f"{self._text(f, types[f])} AS {q(f)}" for f in self.fields] + [
            f"try_cast({quote_identifier(f)} AS BIGINT) AS {self.number(f)}" for f in sorted(self.integer)] + slice_columns)
        # a row whose every cell is empty is not a row, as in memory (a spreadsheet's ,,,); RE2's \s is
        # [\t\n\f\r ], so a cell whose first character is above ' ' is not blank: only those below
        # pay for the expression (10x cheaper over a scan where most cells are not blank)
        self.blank = " AND ".join(f"({q(f)} IS NULL OR ascii({q(f)}) <= 32 AND regexp_full_match({q(f)}, '\\s*'))"
                                  for f in self.fields)
        con.execute(f"CREATE TEMP VIEW {self.view} AS SELECT * FROM (SELECT {self.columns} FROM {self._scan()}) "
                    f"WHERE NOT ({self.blank})")
        # file order: record indices from a single-threaded scan (CSV) or Parquet's own row numbers
        con.execute(f"CREATE TEMP VIEW {self.numbered} AS " + " UNION ALL ".join(
            f"SELECT {i} AS o1, rn AS o2, * EXCLUDE (rn) FROM {self._numbered(i)}" for i in range(len(self.read))))

    def number(self, field: str) -> str:
        """The field's cell as a BIGINT (null where it is not one), read from the file's integers
        where the column holds integers (not through their text), else from its text."""
        return f"n_{field}" if field in self.integer else f"try_cast({q(field)} AS BIGINT)"

    def check_header(self) -> None:
        """A file whose columns are not the fields: the in-memory reader's message (CSV), in its order
        (a file with no rows says so first)."""
        if self.problem is None:
            return
        i, col, why = self.problem
        if not self.parquet:
            rows = one_row(self.con.execute(f"SELECT count(*) FROM {self._scan([self.read[i]])}"))[0]
            err = memory_csv_error(self.files[i], self.names[i], self.fields, self.delimiter, with_row=rows > 0,
                                   extra=self.role == "observations")
            if err is not None:
                raise err
        raise InputError(self.names[i], 1, col, f"{why}; expected a {'Parquet file' if self.parquet else 'CSV'} "
                         f"with the columns {','.join(self.fields)}")

    def no_rows(self) -> None:
        """No data rows in any file: as the in-memory reader says it."""
        if not self.parquet and len(self.files) == 1:
            err = memory_csv_error(self.files[0], self.names[0], self.fields, self.delimiter, with_row=False,
                                   extra=self.role == "observations")
            if err is not None:
                raise err
        raise InputError(self.shown, None, None, "the file has a header but no data rows; expected a "
                         f"{'Parquet file with the columns' if self.parquet else 'CSV with the header'} "
                         f"{','.join(self.fields)}")

    def _scan(self, files: Sequence[str] | None = None, numbered: bool = False) -> str:
        listing = string_list(files or self.read)
        if self.parquet:
            extra = ", file_row_number = true" if numbered else ""
            return f"read_parquet({listing}, union_by_name = true{extra})"
        delim = "\\t" if self.delimiter == "\t" else ","
        return f"read_csv({listing}, header = true, all_varchar = true, delim = '{delim}', union_by_name = true)"

    def _numbered(self, i: int) -> str:
        """File i's rows with their record index (blank rows keep their place, then are left out)."""
        if self.parquet:
            rows = f"SELECT file_row_number AS rn, {self.columns} FROM {self._scan([self.read[i]], True)}"
        else:
            rows = f"SELECT row_number() OVER () - 1 AS rn, {self.columns} FROM {self._scan([self.read[i]])}"
        return f"(SELECT * FROM ({rows}) WHERE NOT ({self.blank}))"

    def _read_header(self) -> dict[str, str]:
        self.problem = None
        types: dict[str, str] = {}
        for i, f in enumerate(self.read):
            have = self.con.execute(f"DESCRIBE SELECT * FROM {self._scan([f])} LIMIT 0").fetchall()
            cols = [str(r[0]) for r in have]
            missing = [c for c in self.fields if c not in cols]
            # the observations' other columns are slice columns (agreebound.judge.slices, in memory): not counted
            extra = [] if self.role == "observations" else [c for c in cols if c not in self.fields]
            if (missing or extra) and self.problem is None:
                self.problem = (i, missing[0] if missing else extra[0],
                                "missing column" if missing else "unexpected column")
            types.update({str(r[0]): str(r[1]) for r in have})
        return types

    @staticmethod
    def _text(field: str, kind: str) -> str:
        c = quote_identifier(field)
        if kind.endswith("[]"):
            return f"array_to_string({c}, ';')"
        return c if kind == "VARCHAR" else f"CAST({c} AS VARCHAR)"

    # --- one row, in file order ----------------------------------------------------------------

    def first(self, condition: str, after: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """(file index, record index) of the first row meeting ``condition`` (after ``after``)."""
        for i in range(len(self.read)):
            if after is not None and i < after[0]:
                continue
            floor = after[1] if after is not None and i == after[0] else -1
            row = one_row(self.con.execute(
                f"SELECT min(rn) FROM {self._numbered(i)} WHERE rn > {floor} AND ({condition})"))[0]
            if row is not None:
                return i, int(row)
        return None

    def where(self, at: tuple[int, int]) -> tuple[str, int, dict[str, str]]:
        """The row's file, its row number as the in-memory reader says it, and its cells as it reads them."""
        i, record = int(at[0]), int(at[1])
        if self.parquet:
            values = one_row(self.con.execute(f"SELECT {', '.join(q(f) for f in self.fields)} FROM {self._numbered(i)} "
                                              f"WHERE rn = {record}"))
            return self.names[i], record + 1, {f: ("" if v is None else v) for f, v in zip(self.fields, values)}
        line, cells = csv_record(self.files[i], self.delimiter, record, self.fields)
        return self.names[i], line, cells


def csv_record(path: str, delimiter: str, record: int, fields: Sequence[str]) -> tuple[int, dict[str, str]]:
    """Data record ``record`` (0-based, under the header) of a CSV file, read as the in-memory
    reader reads it: its first physical line and its cells by header name."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header: list[str] = []
        last, n = 0, -1
        for cells in reader:
            start, last = last + 1, reader.line_num
            if not cells:
                continue
            if n < 0:
                header, n = cells, 0
                continue
            if n == record:
                return start, {f: cells[header.index(f)] if header.index(f) < len(cells) else "" for f in fields}
            n += 1
    return record + 2, {f: "" for f in fields}


class _Engine:
    name = "DuckDB"
    dialect = DuckDialect()

    refs: _Source  # set once read
    obs: _Source

    def __init__(self, con: DuckDBPyConnection, threads: int) -> None:
        self.con, self.threads = con, threads

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        return self.con.execute(sql).fetchall()

    def table(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

    def view(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")

    @contextlib.contextmanager
    def sequential(self) -> Iterator[None]:
        self.con.execute("SET threads = 1")  # scans keep file order
        try:
            yield
        finally:
            self.con.execute(f"SET threads = {self.threads}")


def judge_measurement(contract_name: str, contract_data: bytes, references: Sequence[str],
                      observations: Sequence[str], *, threads: int | None = None, memory_limit: str | None = None,
                      reference_names: Sequence[str] = (), observation_names: Sequence[str] = ()
                      ) -> tuple[JudgeCalibrationContract, tuple[str, str, str], CalibrationMeasurement]:
    """Validate and measure a judge audit out of core: the same decision, rates, intervals and
    errors as the in-memory tabular form (io.judge_inputs.read_judge_tables, measured by judge_input)."""
    contract, header, audit = judge_audit(contract_name, contract_data, references, observations,
                                          threads=threads, memory_limit=memory_limit,
                                          reference_names=reference_names, observation_names=observation_names)
    return contract, header, audit.measurement


def judge_audit(contract_name: str, contract_data: bytes, references: Sequence[str],
                observations: Sequence[str], *, threads: int | None = None, memory_limit: str | None = None,
                reference_names: Sequence[str] = (), observation_names: Sequence[str] = (),
                slices: bool = False, kinds: bool = False
                ) -> tuple[JudgeCalibrationContract, tuple[str, str, str], Audit]:
    """:func:`judge_measurement`, and, asked, each slice's counts (``slices``) and the battles' kinds of
    case (``kinds``): agreebound.engines.judge_sql.audit_with.
    """
    import duckdb

    from agreebound.io.judge_inputs import judge_tables_contract

    contract, header = judge_tables_contract(contract_name, contract_data)
    spill = tempfile.mkdtemp(prefix="agreebound-duckdb-")
    n_threads = threads or os.cpu_count() or 1
    con = duckdb.connect(config={"threads": n_threads,
                                 "memory_limit": memory_limit or os.environ.get("AGREEBOUND_DUCKDB_MEMORY") or MEMORY_LIMIT,
                                 "temp_directory": spill, "preserve_insertion_order": False})
    shown = ", ".join(dict.fromkeys(str(p) for p in [*references, *observations]))
    try:
        con.execute("SET enable_progress_bar = false")  # stdout is the report's
        e = _Engine(con, n_threads)
        e.refs = _Source(con, "references", references, REFERENCE_FIELDS, spill, reference_names)
        shown = e.refs.shown
        e.obs = _Source(con, "observations", observations, OBSERVATION_FIELDS, spill, observation_names)
        shown = e.obs.shown
        return contract, header, audit_with(e, contract, header, contract_name, slices=slices, kinds=kinds)
    except duckdb.Error as err:
        # which file, which row: found as the in-memory reader reads it (a ragged row, bytes not UTF-8)
        for paths, given in ((references, reference_names), (observations, observation_names)):
            files = input_files(paths)
            names = list(given) if len(given) == len(files) else [Path(f).name for f in files]
            if not is_parquet(files):
                found = first_unreadable(files, names, "\t" if files[0].lower().endswith(".tsv") else ",")
                if found is not None:
                    raise found from None
        given = [*input_files(references), *input_files(observations)]
        raise InputError(shown, None, None, duckdb_said(err, shown, given, spill)) from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)
