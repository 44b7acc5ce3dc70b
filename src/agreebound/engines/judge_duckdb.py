"""DuckDB: a judge audit from the tabular form (contract JSON, references and observations as CSV or
Parquet files or globs), out of core; only the audit's counts (agreebound.judge_counts) come back.

Validation keeps the in-memory meaning, in the same order, with the same messages: the CSV cells'
parsing (references, then observations, field by field), each record's rules (references, then
observations), the snapshot's header, no records, duplicate ids and keys, the binding, observations
without a reference or of another judge or with changed candidate metadata, and completeness.
Each check is a count over the whole data first (cheap); only when a count says a rule is broken
is the first offending row found, by a sequential pass in file order, and its cells read back and
put through the same Python rules as in memory, so the message, the file and the row are the
in-memory path's.

A Parquet file is read as its CSV would be: integers and booleans as their text, a list of
reviewer ids joined by ';'.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from agreebound.calibration import (
    ID_PATTERN,
    OBSERVATION_FIELDS,
    ORDERS,
    REFERENCE_FIELDS,
    CalibrationMeasurement,
    HumanReference,
    JudgeCalibrationContract,
    JudgeObservation,
    Rate,
    _check_binding,
    _completeness_message,
    _describe_observation,
    _field_of,
    _validate_snapshot_header,
)
from agreebound.engines.common import input_files, is_parquet
from agreebound.engines.duckdb_engine import MEMORY_LIMIT, _literal, _quote
from agreebound.errors import InputError
from agreebound.escape import excerpt
from agreebound.judge_counts import ISSUE_IDS, REVIEWER_CAP, JudgeCounts, RateStats

_ID = ID_PATTERN.pattern.removeprefix("^").removesuffix("$")
_INT = "-?(?:0|[1-9][0-9]*)"
_INT_FIELDS = {"repetition": (1, 100), "candidate_a_tokens": (1, 10**6), "candidate_b_tokens": (1, 10**6)}
#: Rows a cheap check may doubt that the Python rules then accept, before we say the engines disagree.
_DOUBT_LIMIT = 100


def _id_ok(x: str) -> str:
    return f"coalesce(regexp_full_match({x}, '{_ID}'), false)"


def _int_ok(x: str) -> str:
    return f"coalesce(regexp_full_match({x}, '{_INT}') AND length({x}) <= 20, false)"


def _in(x: str, values: Sequence[str]) -> str:
    return f"coalesce({x} IN ({', '.join(repr(v) for v in values)}), false)"


def _reviewers_ok(x: str) -> str:
    parts = f"string_split({x}, ';')"
    return (f"coalesce({x} <> '' AND list_bool_and(list_transform({parts}, lambda e: regexp_full_match(e, '{_ID}'))) "
            f"AND list_sort({parts}) = {parts} AND len(list_distinct({parts})) = len({parts}), false)")


_REF_PARSE = {"adjudicated": f"NOT {_in('adjudicated', ('true', 'false'))}"}
_REF_RECORD = " AND ".join([_id_ok("case_id"), _in("preferred_candidate", ("a", "b", "tie")),
                            _reviewers_ok("reviewer_ids"), _in("adjudicated", ("true", "false"))])


def _range(x: str, lo: int, hi: int) -> str:
    return f"coalesce(TRY_CAST({x} AS BIGINT) BETWEEN {lo} AND {hi}, false)"


_OBS_RECORD = " AND ".join([
    _id_ok("case_id"), _in('"order"', ORDERS), _range("repetition", 1, 100),
    _in("selected_candidate", ("a", "b", "tie")), _range("candidate_a_tokens", 1, 10**6),
    _range("candidate_b_tokens", 1, 10**6), _id_ok("candidate_a_generator"), _id_ok("candidate_b_generator"),
    _id_ok("judge_generator")])


class _Source:
    """One role's files (references or observations) as text columns named as the fields."""

    def __init__(self, con: Any, role: str, paths: Sequence[str], fields: Sequence[str], tmp: str,
                 names: Sequence[str]) -> None:
        self.role, self.fields = role, tuple(fields)
        self.files = input_files(paths)
        self.names = list(names) if len(names) == len(self.files) else [Path(f).name for f in self.files]
        self.parquet = is_parquet(self.files)
        self.read = _literal(self.files, tmp)
        self.shown = self.names[0] if len(self.files) == 1 else f"{self.names[0]} (and {len(self.files) - 1} more)"
        self.con = con
        types = self._check_header()
        self.integer = {f for f in self.fields if types[f] in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                                                               "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")}
        self.columns = ", ".join(f"{self._text(f, types[f])} AS {_quote(f)}" for f in self.fields)

    def scan(self, files: Sequence[str] | None = None, numbered: bool = False) -> str:
        listing = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in (files or self.read)) + "]"
        if self.parquet:
            extra = ", file_row_number = true" if numbered else ""
            return f"read_parquet({listing}, union_by_name = true{extra})"
        delim = "\\t" if self.files[0].lower().endswith(".tsv") else ","
        return f"read_csv({listing}, header = true, all_varchar = true, delim = '{delim}', union_by_name = true)"

    def view(self) -> str:
        return f"(SELECT {self.columns} FROM {self.scan()})"

    def numbered(self, i: int) -> str:
        """File i's rows with their 0-based record index, in file order."""
        if self.parquet:
            return f"(SELECT file_row_number AS rn, {self.columns} FROM {self.scan([self.read[i]], True)})"
        return f"(SELECT row_number() OVER () - 1 AS rn, {self.columns} FROM {self.scan([self.read[i]])})"

    def _check_header(self) -> dict[str, str]:
        types: dict[str, str] = {}
        for i, f in enumerate(self.read):
            have = self.con.execute(f"DESCRIBE SELECT * FROM {self.scan([f])} LIMIT 0").fetchall()
            cols = [str(r[0]) for r in have]
            missing = [c for c in self.fields if c not in cols]
            extra = [c for c in cols if c not in self.fields]
            if missing or extra:
                col = missing[0] if missing else extra[0]
                why = "missing column" if missing else "unexpected column"
                raise InputError(self.names[i], 1, col, f"{why}; expected a {'Parquet file' if self.parquet else 'CSV'} "
                                 f"with the columns {','.join(self.fields)}")
            types.update({str(r[0]): str(r[1]) for r in have})
        return types

    @staticmethod
    def _text(field: str, kind: str) -> str:
        q = _quote(field)
        if kind.endswith("[]"):
            return f"array_to_string({q}, ';')"
        if kind == "VARCHAR":
            return q
        return f"CAST({q} AS VARCHAR)"

    # --- the slow path: one row, in file order ----------------------------------------------

    def first(self, condition: str, after: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """(file index, record index) of the first row meeting ``condition`` (after ``after``)."""
        for i in range(len(self.read)):
            if after is not None and i < after[0]:
                continue
            floor = after[1] if after is not None and i == after[0] else -1
            row = self.con.execute(f"SELECT min(rn) FROM {self.numbered(i)} WHERE rn > {floor} AND ({condition})"
                                   ).fetchone()[0]
            if row is not None:
                return i, int(row)
        return None

    def cells(self, at: tuple[int, int]) -> tuple[int, dict[str, str]]:
        """The row's cells as the in-memory reader reads them, and its row number as it says it."""
        i, record = at
        if self.parquet:
            values = self.con.execute(f"SELECT {', '.join(_quote(f) for f in self.fields)} FROM {self.numbered(i)} "
                                      f"WHERE rn = {record}").fetchone()
            return record + 1, {f: ("" if v is None else v) for f, v in zip(self.fields, values)}
        delim = "\t" if self.files[0].lower().endswith(".tsv") else ","
        with open(self.files[i], encoding="utf-8-sig", errors="replace", newline="") as fh:
            reader = csv.reader(fh, delimiter=delim)
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
                    return start, {f: cells[header.index(f)] if header.index(f) < len(cells) else ""
                                   for f in self.fields}
                n += 1
        return record + 2, {f: "" for f in self.fields}

    def where(self, at: tuple[int, int]) -> tuple[str, int, dict[str, str]]:
        row, cells = self.cells(at)
        return self.names[at[0]], row, cells


def _typed(fields: Sequence[str], cells: dict[str, str]) -> list[Any]:
    """A row's cells as the in-memory tabular form holds them once parsed."""
    out: list[Any] = []
    for f in fields:
        v = cells[f]
        if f in _INT_FIELDS:
            out.append(int(v))
        elif f == "adjudicated":
            out.append(v == "true")
        elif f == "reviewer_ids":
            out.append(tuple(v.split(";")) if v else ())
        else:
            out.append(v)
    return out


def _parse_error(src: _Source, parse: dict[str, str], counts: dict[str, int]) -> None:
    """The first field (in field order) with a cell that does not parse: its first row."""
    for f, cond in parse.items():
        if counts[f]:
            ta = src.first(cond)
            if ta is None:
                continue
            name, row, cells = src.where(ta)
            cell = cells[f]
            if f == "adjudicated":
                raise InputError(name, row, f, f"expected true or false, got {excerpt(cell)}")
            from agreebound.formats import _whole

            _whole(name, row, f, cell, digits=18)
            raise InputError(name, row, f, f"expected a whole number like 3, got {excerpt(cell)}")


def _record_error(src: _Source, condition: str, build: Any) -> None:
    """The first row the Python rules refuse among those the SQL check doubts."""
    ta = None
    for _ in range(_DOUBT_LIMIT):
        ta = src.first(f"NOT ({condition})", ta)
        if ta is None:
            return
        name, row, cells = src.where(ta)
        try:
            build(*_typed(src.fields, cells))
        except ValueError as error:
            raise InputError(name, row, _field_of(str(error)), str(error)) from None
    raise InputError(src.names[ta[0]] if ta else src.shown, None, None, "the DuckDB engine reads these rows "
                     "differently from the in-memory reader; use --engine numpy (files up to 200 MB)")


def _snapshot_error(contract_name: str, error: ValueError, field: str | None) -> InputError:
    return InputError(contract_name, None, f"snapshot.{field}" if field else None, str(error))


def judge_measurement(contract_name: str, contract_data: bytes, references: Sequence[str],
                      observations: Sequence[str], *, threads: int | None = None, memory_limit: str | None = None,
                      reference_names: Sequence[str] = (), observation_names: Sequence[str] = ()
                      ) -> tuple[JudgeCalibrationContract, tuple[str, str, str], CalibrationMeasurement]:
    """Validate and measure a judge audit out of core: the same decision, rates, intervals and
    errors as the in-memory tabular form (formats.parse_judge_tables)."""
    import duckdb

    from agreebound.formats import judge_tables_contract

    contract, header = judge_tables_contract(contract_name, contract_data)
    spill = tempfile.mkdtemp(prefix="agreebound-duckdb-")
    n_threads = threads or os.cpu_count() or 1
    con = duckdb.connect(config={"threads": n_threads,
                                 "memory_limit": memory_limit or os.environ.get("AGREEBOUND_DUCKDB_MEMORY") or MEMORY_LIMIT,
                                 "temp_directory": spill, "preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")  # stdout is the report's
    shown = "?"
    try:
        refs = _Source(con, "references", references, REFERENCE_FIELDS, spill, reference_names)
        shown = refs.shown
        obs = _Source(con, "observations", observations, OBSERVATION_FIELDS, spill, observation_names)
        shown = obs.shown
        return contract, header, _measure(con, contract, header, contract_name, refs, obs, n_threads)
    except duckdb.Error as e:
        raise InputError(shown, None, None, f"DuckDB could not read it: {str(e).splitlines()[0][:300]}") from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def _measure(con: Any, c: JudgeCalibrationContract, header: tuple[Any, Any, Any], contract_name: str,
             refs: _Source, obs: _Source, n_threads: int) -> CalibrationMeasurement:
    ref_filters = ", ".join(f"count(*) FILTER ({cond})" for cond in _REF_PARSE.values())
    n_refs, *ref_parse, ref_bad = con.execute(
        f"SELECT count(*), {ref_filters}, count(*) FILTER (NOT ({_REF_RECORD})) FROM {refs.view()}").fetchone()
    # One grouped scan of the observations: per case, each order's selections, repetitions and a
    # mask of which repetitions occur, the candidates' metadata (min and max of each field: equal
    # when it never changes), the judge, and how many rows any rule may refuse. Ids are checked once
    # per case (the group's key), generators on their min and max (rows between them are checked
    # one by one if those differ).
    reps, judge = c.repetitions_per_order, c.judge_generator.replace("'", "''")
    # an integer column's text always parses (its missing cells do not); text is checked as in memory
    parse = {f: f"{_quote(f)} IS NULL" if f in obs.integer else f"NOT {_int_ok(_quote(f))}" for f in _INT_FIELDS}
    cheap = " AND ".join([_in('"order"', ORDERS), _in("selected_candidate", ("a", "b", "tie")),
                          "coalesce(rp BETWEEN 1 AND 100, false)", "coalesce(ta BETWEEN 1 AND 1000000, false)",
                          "coalesce(tb BETWEEN 1 AND 1000000, false)",
                          "ag IS NOT NULL AND bg IS NOT NULL AND jg IS NOT NULL"])

    def order(o: str) -> str:
        return (f"count(*) FILTER (od = '{o}' AND sel = 0) AS a{o}, count(*) FILTER (od = '{o}' AND sel = 1) AS b{o}, "
                f"count(*) FILTER (od = '{o}' AND sel = 2) AS t{o}, count(*) FILTER (od = '{o}') AS n{o}, "
                f"count(*) FILTER (od = '{o}' AND rp <= {reps}) AS g{o}, "
                f"bit_or(CASE WHEN rp BETWEEN 1 AND 50 THEN 1::BIGINT << (rp - 1) ELSE 0 END) FILTER (od = '{o}') AS lo{o}, "
                f"bit_or(CASE WHEN rp BETWEEN 51 AND 100 THEN 1::BIGINT << (rp - 51) ELSE 0 END) FILTER (od = '{o}') AS hi{o}")

    con.execute(f"""
        CREATE TEMP TABLE p AS
        SELECT case_id, count(*) AS n, {order('ab')}, {order('ba')},
               {', '.join(f"count(*) FILTER ({cond}) AS parse_{i}" for i, cond in enumerate(parse.values()))},
               count(*) FILTER (NOT ({cheap})) AS bad,
               min(ta) AS ta, max(ta) AS ta2, min(tb) AS tb, max(tb) AS tb2, min(ag) AS ag, max(ag) AS ag2,
               min(bg) AS bg, max(bg) AS bg2, min(jg) AS jg, max(jg) AS jg2
        FROM (SELECT case_id, "order" AS od, repetition, candidate_a_tokens, candidate_b_tokens,
                     TRY_CAST(repetition AS BIGINT) AS rp, CASE selected_candidate WHEN 'a' THEN 0 WHEN 'b' THEN 1
                     WHEN 'tie' THEN 2 END AS sel, selected_candidate, "order",
                     TRY_CAST(candidate_a_tokens AS BIGINT) AS ta, TRY_CAST(candidate_b_tokens AS BIGINT) AS tb,
                     candidate_a_generator AS ag, candidate_b_generator AS bg, judge_generator AS jg
              FROM {obs.view()})
        GROUP BY case_id""")
    texts = " OR ".join(f"NOT {_id_ok(x)}" for x in ("case_id", "ag", "ag2", "bg", "bg2", "jg", "jg2"))
    n_obs, *obs_parse, obs_bad = con.execute(f"""
        SELECT coalesce(sum(n), 0), {', '.join(f"coalesce(sum(parse_{i}), 0)" for i in range(len(parse)))},
               coalesce(sum(CASE WHEN {texts} OR ag <> ag2 OR bg <> bg2 OR jg <> jg2 THEN n ELSE bad END), 0)
        FROM p""").fetchone()
    con.execute("SET threads = 1")  # the slow path reads in file order
    for src, n, rules, counts in ((refs, n_refs, _REF_PARSE, ref_parse), (obs, n_obs, parse, obs_parse)):
        if n == 0:  # as the CSV reader says it (the tabular form reads references first)
            raise InputError(src.shown, None, None, "the file has a header but no data rows; expected a "
                             f"{'Parquet file with the columns' if src.parquet else 'CSV with the header'} "
                             f"{','.join(src.fields)}")
        _parse_error(src, rules, dict(zip(rules, counts)))
    if ref_bad:
        _record_error(refs, _REF_RECORD, HumanReference)
    if obs_bad:  # some row may break a record rule: find the first that does, if any
        _record_error(obs, _OBS_RECORD, JudgeObservation)
    con.execute(f"SET threads = {n_threads}")
    try:
        _validate_snapshot_header(*header)
    except ValueError as error:
        raise _snapshot_error(contract_name, error, str(error).split(" ")[0].removeprefix("snapshot.")) from None

    con.execute(f"""CREATE TEMP TABLE r AS SELECT case_id, CASE preferred_candidate WHEN 'a' THEN 0 WHEN 'b' THEN 1
                    ELSE 2 END AS pref, len(string_split(reviewer_ids, ';')) AS nrev, adjudicated = 'true' AS adj
                    FROM {refs.view()}""")
    if con.execute("SELECT count(DISTINCT case_id) FROM r").fetchone()[0] != n_refs:
        _duplicate_reference(con, refs)
    twice, other, orphans, changed = con.execute(f"""
        SELECT coalesce(sum((nab <> bit_count(loab) + bit_count(hiab))::INT + (nba <> bit_count(loba) + bit_count(hiba))::INT), 0),
               count(*) FILTER (jg <> '{judge}' OR jg2 <> '{judge}'),
               count(*) FILTER (r.case_id IS NULL),
               count(*) FILTER (ta <> ta2 OR tb <> tb2 OR ag <> ag2 OR bg <> bg2)
        FROM p LEFT JOIN r USING (case_id)""").fetchone()
    if twice:
        _duplicate_key(con, obs)
    try:
        _check_binding(c, header[0], header[1], n_refs)
    except ValueError as error:
        text = str(error)
        field = "scope" if "scope" in text else "contract_content_id" if "bound" in text else None
        raise _snapshot_error(contract_name, error, field) from None
    if other or orphans or changed:
        _observation_error(con, c, obs)
    incomplete = con.execute(f"""
        SELECT count(*) FROM r LEFT JOIN p USING (case_id)
        WHERE coalesce(gab, 0) <> {reps} OR coalesce(nab, 0) <> {reps} OR coalesce(gba, 0) <> {reps}
              OR coalesce(nba, 0) <> {reps}""").fetchone()[0]
    if incomplete:
        _incomplete(con, refs, obs, reps)
    return _aggregate(con, c, header, n_obs)


def _duplicate_reference(con: Any, refs: _Source) -> None:
    con.execute("SET threads = 1")
    union = " UNION ALL ".join(f"(SELECT {i} AS fi, rn, case_id FROM {refs.numbered(i)})" for i in range(len(refs.read)))
    row = con.execute(f"""SELECT fi, rn, case_id FROM (SELECT *, row_number() OVER (PARTITION BY case_id ORDER BY fi, rn)
                          AS k FROM ({union})) WHERE k = 2 ORDER BY fi, rn LIMIT 1""").fetchone()
    name, line, _ = refs.where((int(row[0]), int(row[1])))
    raise InputError(name, line, "case_id", f"reference case IDs must be unique (duplicate case_id={row[2]!r})")


def _numbered_obs(obs: _Source, select: str) -> str:
    return " UNION ALL ".join(f"(SELECT {i} AS fi, rn, {select} FROM {obs.numbered(i)})" for i in range(len(obs.read)))


def _duplicate_key(con: Any, obs: _Source) -> None:
    con.execute("SET threads = 1")
    union = _numbered_obs(obs, "case_id, \"order\" AS od, CAST(repetition AS BIGINT) AS rep")
    row = con.execute(f"""SELECT fi, rn, case_id, od, rep FROM (SELECT *, row_number() OVER (PARTITION BY case_id, od, rep
                          ORDER BY fi, rn) AS k FROM ({union})) WHERE k = 2 ORDER BY fi, rn LIMIT 1""").fetchone()
    name, line, _ = obs.where((int(row[0]), int(row[1])))
    raise InputError(name, line, "repetition", "observation keys must be unique (duplicate "
                     f"{_describe_observation(row[2], row[3], int(row[4]))})")


def _observation_error(con: Any, c: JudgeCalibrationContract, obs: _Source) -> None:
    """The first observation without a reference, of another judge, or whose candidates' metadata
    differs from its case's first valid observation."""
    con.execute("SET threads = 1")
    judge = c.judge_generator.replace("'", "''")
    union = _numbered_obs(obs, "case_id, \"order\" AS od, CAST(repetition AS BIGINT) AS rep, "
                               "CAST(candidate_a_tokens AS BIGINT) AS ta, CAST(candidate_b_tokens AS BIGINT) AS bt, "
                               "candidate_a_generator AS ag, candidate_b_generator AS bg, judge_generator AS jg")
    con.execute(f"CREATE TEMP TABLE n AS SELECT * FROM ({union})")
    row = con.execute(f"""
        WITH v AS (SELECT n.*, r.case_id IS NOT NULL AS has_ref, n.jg = '{judge}' AS same_judge FROM n
                   LEFT JOIN r USING (case_id)),
             f AS (SELECT case_id, arg_min({{'ta': ta, 'bt': bt, 'ag': ag, 'bg': bg}}, (fi, rn)) AS meta FROM v WHERE has_ref AND same_judge
                   GROUP BY case_id)
        SELECT v.fi, v.rn, v.case_id, v.od, v.rep, v.has_ref, v.same_judge, v.jg,
               f.meta.ta <> v.ta, f.meta.bt <> v.bt, f.meta.ag <> v.ag, f.meta.bg <> v.bg
        FROM v LEFT JOIN f USING (case_id)
        WHERE NOT v.has_ref OR NOT v.same_judge OR (f.meta.ta, f.meta.bt, f.meta.ag, f.meta.bg) <> (v.ta, v.bt, v.ag, v.bg)
        ORDER BY v.fi, v.rn LIMIT 1""").fetchone()
    if row is None:
        raise InputError(obs.shown, None, None, "the DuckDB engine reads these rows differently from the in-memory "
                         "reader; use --engine numpy (files up to 200 MB)")
    fi, rn, case_id, od, rep, has_ref, same_judge, jg = row[:8]
    name, line, _ = obs.where((int(fi), int(rn)))
    where = _describe_observation(case_id, od, int(rep))
    if not has_ref:
        raise InputError(name, line, "case_id", f"observation has no human reference ({where})")
    if not same_judge:
        raise InputError(name, line, "judge_generator", f"observation uses another judge generator ({where}: "
                         f"{jg!r}, contract {c.judge_generator!r})")
    field = next(f for f, differs in zip(("candidate_a_tokens", "candidate_b_tokens", "candidate_a_generator",
                                          "candidate_b_generator"), row[8:]) if differs)
    raise InputError(name, line, field, f"candidate metadata changes across observations ({where})")


def _incomplete(con: Any, refs: _Source, obs: _Source, reps: int) -> None:
    """The first (case, order) in reference order that does not hold exactly the repetitions 1..R."""
    con.execute("SET threads = 1")
    union = " UNION ALL ".join(f"(SELECT {i} AS fi, rn, case_id FROM {refs.numbered(i)})" for i in range(len(refs.read)))
    row = con.execute(f"""
        SELECT q.case_id, t.ob FROM ({union}) AS q CROSS JOIN (VALUES (0), (1)) AS t(ob)
        LEFT JOIN p ON p.case_id = q.case_id
        WHERE CASE t.ob WHEN 0 THEN coalesce(p.gab, 0) <> {reps} OR coalesce(p.nab, 0) <> {reps}
                        ELSE coalesce(p.gba, 0) <> {reps} OR coalesce(p.nba, 0) <> {reps} END
        ORDER BY q.fi, q.rn, t.ob LIMIT 1""").fetchone()
    case_id, ob = row
    got = {int(v[0]) for v in con.execute(
        f"SELECT DISTINCT CAST(repetition AS BIGINT) FROM {obs.view()} WHERE case_id = ? AND \"order\" = ?",
        [case_id, ORDERS[int(ob)]]).fetchall()}
    raise InputError(obs.shown, None, "repetition", _completeness_message(case_id, ORDERS[int(ob)], got, reps))


def _rate(y: str, m: str) -> str:
    return (f"sum({y})::HUGEINT, sum({m})::HUGEINT, count(*) FILTER ({m} > 0), sum({y} * {y})::HUGEINT, "
            f"sum({y} * {m})::HUGEINT, sum({m} * {m})::HUGEINT")


def _aggregate(con: Any, c: JudgeCalibrationContract, header: tuple[Any, Any, Any], n_obs: int) -> CalibrationMeasurement:
    judge = c.judge_generator.replace("'", "''")
    con.execute(f"""
        CREATE TEMP TABLE k AS
        WITH p AS (SELECT case_id, aab, bab, tab, aba, bba, tba, ta, tb, ag, bg FROM p),
        d AS (
            SELECT r.case_id, r.pref, r.nrev, r.adj, p.*,
                   (aab > 0)::INT + (bab > 0)::INT + (tab > 0)::INT AS dab,
                   (aba > 0)::INT + (bba > 0)::INT + (tba > 0)::INT AS dba,
                   greatest(aab, bab, tab) AS topab, greatest(aba, bba, tba) AS topba
            FROM r JOIN p USING (case_id)),
        e AS (
            SELECT *,
                   CASE WHEN dab = 1 THEN (CASE WHEN aab > 0 THEN 0 WHEN bab > 0 THEN 1 ELSE 2 END) ELSE -1 END AS vab,
                   CASE WHEN dba = 1 THEN (CASE WHEN aba > 0 THEN 0 WHEN bba > 0 THEN 1 ELSE 2 END) ELSE -1 END AS vba,
                   CASE WHEN (aab = topab)::INT + (bab = topab)::INT + (tab = topab)::INT = 1
                        THEN (CASE WHEN aab = topab THEN 0 WHEN bab = topab THEN 1 ELSE 2 END) ELSE -1 END AS mab,
                   CASE WHEN (aba = topba)::INT + (bba = topba)::INT + (tba = topba)::INT = 1
                        THEN (CASE WHEN aba = topba THEN 0 WHEN bba = topba THEN 1 ELSE 2 END) ELSE -1 END AS mba,
                   aab + bab + tab + aba + bba + tba AS nobs,
                   CASE pref WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE tab + tba END AS agree,
                   CASE WHEN pref = 0 AND ta < tb THEN 1 WHEN pref = 1 AND tb < ta THEN 0
                        ELSE -1 END AS verb,
                   CASE WHEN ag = '{judge}' AND ag <> bg THEN 0
                        WHEN bg = '{judge}' AND ag <> bg THEN 1 ELSE -1 END AS selfc
            FROM d)
        SELECT case_id, pref, nrev, adj, dab, dba, mab, mba, nobs, agree,
               (vab >= 0 AND vba >= 0)::BIGINT AS fopp, (vab >= 0 AND vba >= 0 AND vab <> vba)::BIGINT AS flipped,
               ((dab > 1)::INT + (dba > 1)::INT)::BIGINT AS unst,
               CASE WHEN verb >= 0 THEN nobs ELSE 0 END AS vopp,
               CASE verb WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE 0 END AS verr,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2 THEN nobs ELSE 0 END AS sopp,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2
                    THEN (CASE selfc WHEN 0 THEN aab + aba ELSE bab + bba END) ELSE 0 END AS serr
        FROM e""")
    two = "2::BIGINT"
    row = con.execute(f"""
        SELECT count(*), {_rate('agree', 'nobs')}, {_rate('flipped', 'fopp')}, {_rate('unst', two)},
               {_rate('verr', 'vopp')}, {_rate('serr', 'sopp')},
               count(*) FILTER (NOT adj), min(case_id, {ISSUE_IDS}) FILTER (NOT adj),
               coalesce(sum(agree) FILTER (pref <> 2), 0)::HUGEINT, coalesce(sum(nobs) FILTER (pref <> 2), 0)::HUGEINT,
               count(*) FILTER ((dab > 1 OR dba > 1) AND mab >= 0 AND mba >= 0 AND mab <> mba)
        FROM k""").fetchone()
    n_cases = int(row[0])
    names = ("human_agreement", "position_flip", "repeat_variance", "verbosity_bias", "self_preference")
    rates = {name: RateStats(*(int(v or 0) for v in row[1 + 6 * i: 7 + 6 * i])) for i, name in enumerate(names)}
    rest = row[31:]
    reviewers = con.execute(f"""SELECT least(nrev, {REVIEWER_CAP}) AS m, count(*),
                                       min(case_id, {ISSUE_IDS}) FILTER (nrev < {REVIEWER_CAP})
                                FROM k GROUP BY m ORDER BY m""").fetchall()
    patterns = con.execute("SELECT pref, mab, mba, count(*) FROM k GROUP BY ALL").fetchall()
    counts = JudgeCounts(
        n_cases, n_obs, rates, {int(m): int(n) for m, n, _ in reviewers},
        {int(m): tuple(ids) for m, _, ids in reviewers if ids}, int(rest[0]), tuple(rest[1] or ()),
        (int(rest[2]), int(rest[3])), int(rest[4]), {(int(a), int(b), int(d)): int(n) for a, b, d, n in patterns})
    measured = {name: Rate(name, s.numerator, s.denominator) for name, s in rates.items()}
    shown, hidden = counts.issues(c.minimum_reviewers)
    notes = (f"{len(shown) + hidden:,} reference issues; the first {len(shown):,} are listed",) if hidden else ()
    empty = pd.DataFrame({name: pd.Series(dtype=object) for name in (
        "case_id", "preferred", "reviewers", "adjudicated", "observations", "agreements")})
    return CalibrationMeasurement(c, header[0], header[1], header[2], n_cases, n_obs, measured["human_agreement"],
                                  measured["position_flip"], measured["repeat_variance"], measured["verbosity_bias"],
                                  measured["self_preference"], empty, {}, notes, counts)
