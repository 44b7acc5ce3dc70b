"""A judge audit from the tabular form in SQL, for any engine (DuckDB, Spark SQL): only the audit's
counts (agreebound.judge.counts) come back to Python.

Validation keeps the in-memory meaning, in the same order, with the same messages: the CSV cells'
parsing (references, then observations, field by field), each record's rules (references, then
observations), the snapshot's header, duplicate ids and keys, the binding, observations without a
reference or of another judge or with changed candidate metadata, and completeness. Each check is
a count over the whole data first (cheap); only when a count says a rule may be broken is the first
offending row found, in file order, and its cells read back and put through the same Python rules
as in memory, so the message, the file and the row are the in-memory path's.

The observations are read in one grouped scan: per case, each order's selections, whether a
repetition is seen twice (bit masks: no distinct count), the candidates' metadata as its least
values and whether they vary (one packed number where the names are places); ids are checked once
per case. The counts are summed packed into a few numbers and the names held as numbers where
they fit (:func:`_observation_table`): grouping 1e8 observations is then about twice as fast.
References and observations are joined once, grouped by what the audit reads of a case: the
measures are summed over a few kinds of case, each with its number of cases.

An engine gives: ``run(sql)`` (rows), ``table(name, sql)`` (materialised), ``view(name, sql)``
(computed where read), ``sequential()`` (a context in which scans keep file order), the dialect's
few functions, and two sources
(references, observations) with ``view`` (the rows as text columns named as the fields; "order"
is ``od_``),
``numbered`` (the same with the order columns ``o1, o2``), ``number(field)`` (a field as a BIGINT),
``first(condition, after)`` and ``where(position)``.

Why one module of this size: each rule's count, its first-offending-row query and its message are
written side by side for every dialect, so that a rule cannot change in one engine's SQL and not in
the other's; its sections (the slow path, a CSV's header and rows, the audit) are its seams.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, ContextManager, NamedTuple, Protocol, Sequence, TypeVar, cast

from agreebound.judge.measure import CalibrationMeasurement, measure_counts
from agreebound.judge.contract import (
    CANDIDATES,
    ID_PATTERN,
    MAX_REPETITION,
    MAX_TOKENS,
    ORDERS,
    HumanReference,
    JudgeCalibrationContract,
    JudgeObservation,
    binding_fault,
    completeness_message,
    duplicate_observation,
    duplicate_reference,
    field_of,
    header_fault,
    observation_fault,
)
from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.judge.counts import ALL_RATE_NAMES, ISSUE_IDS, REVIEWER_CAP, UNNAMED, JudgeCounts, RateStats

ID = ID_PATTERN.pattern.removeprefix("^").removesuffix("$")
INT = "-?(?:0|[1-9][0-9]*)"
INT_FIELDS = ("repetition", "candidate_a_tokens", "candidate_b_tokens")
#: Rows a cheap check may doubt that the Python rules then accept, before we say the engines disagree.
DOUBT_LIMIT = 100
DISAGREE = ("the {engine} engine reads these rows differently from the in-memory reader; use --engine numpy "
            "(files up to 200 MB)")


class Dialect(Protocol):
    name: str

    def literal(self, text: str) -> str:
        """``text`` as a quoted string in this dialect's SQL."""
        ...

    def full_match(self, x: str, pattern: str) -> str: ...

    def reviewers_ok(self, x: str) -> str: ...

    def count_ids(self, x: str) -> str: ...

    def smallest_ids(self, groups: Sequence[str], where: str, n: int, source: str) -> str:
        """(group..., case_id) rows: the n smallest case ids of each group (one column per expression
        of ``groups``) of the references' relation ``source`` (table r's columns)."""
        ...

    def index_in(self, texts: Sequence[str], x: str) -> str:
        """``x``'s place (from 1) in ``texts``; null where it is null or not there."""
        ...

    def text_at(self, texts: Sequence[str], i: str) -> str:
        """The text at place ``i`` (from 1) of ``texts``; null where ``i`` is null."""
        ...

    def field(self, x: str, shift: int, mask: int) -> str:
        """The bits of the BIGINT ``x`` from ``shift`` up, ``mask`` (2^bits - 1) of them."""
        ...

    def packed_sum(self, x: str) -> str:
        """The sum of the BIGINT ``x`` as a BIGINT, null where it does not fit (a case too large to
        pack, counted again one by one: never an error)."""
        ...


#: Where a row is in a source's files: an engine's own (DuckDB: file and record indices; Spark: the
#: file's URI and a row id).
_Pos = TypeVar("_Pos")


class Source(Protocol[_Pos]):
    """One role's rows (references or observations) as an engine reads them."""

    @property
    def shown(self) -> str:
        """The files' name in messages."""
        ...

    @property
    def fields(self) -> tuple[str, ...]: ...

    @property
    def view(self) -> str:
        """The rows as text columns named as the fields ("order" is ``od_``)."""
        ...

    @property
    def numbered(self) -> str:
        """The same rows with the order columns ``o1, o2``."""
        ...

    @property
    def integer(self) -> set[str]:
        """The fields the files hold as integers."""
        ...

    @property
    def extras(self) -> tuple[str, ...]:
        """The observations' columns beside the fields (slice columns, in file order), in ``view`` as
        ``x0, x1, ...``, each cell as its text; none for the references."""
        ...

    def number(self, field: str) -> str:
        """A field as a BIGINT."""
        ...

    def check_header(self) -> None: ...

    def no_rows(self) -> None: ...

    def first(self, condition: str, after: _Pos | None = None) -> _Pos | None:
        """The first row meeting ``condition`` (after ``after``), in file order."""
        ...

    def where(self, at: _Pos) -> tuple[str, int, dict[str, str]]:
        """The row's file, row number and cells, as the in-memory reader says them."""
        ...


class Engine(Protocol[_Pos]):
    """What the audit asks of an engine (DuckDB, Spark SQL): see the module's docstring."""

    @property
    def name(self) -> str: ...

    @property
    def dialect(self) -> Dialect: ...

    @property
    def refs(self) -> Source[_Pos]: ...

    @property
    def obs(self) -> Source[_Pos]: ...

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of ``sql``."""
        ...

    def table(self, name: str, sql: str) -> None: ...

    def view(self, name: str, sql: str) -> None: ...

    def sequential(self) -> ContextManager[None]:
        """A context in which scans keep file order."""
        ...


def q(name: str) -> str:
    """A field's column in the sources' views: its own name, but "order" (an SQL keyword) is od_."""
    return "od_" if name == "order" else name


def _in(x: str, values: Sequence[str]) -> str:
    return f"coalesce({x} IN ({', '.join(repr(v) for v in values)}), false)"


class Rules:
    """The per-row rules as SQL in one dialect (exact: a row passes iff the Python rules pass it)."""

    def __init__(self, d: Dialect) -> None:
        self.d = d

    def id_ok(self, x: str) -> str:
        return f"coalesce({self.d.full_match(x, ID)}, false)"

    def int_ok(self, x: str) -> str:
        return f"coalesce({self.d.full_match(x, INT)} AND length({x}) <= 20, false)"

    @staticmethod
    def range(x: str, lo: int, hi: int) -> str:
        return f"coalesce(try_cast({x} AS BIGINT) BETWEEN {lo} AND {hi}, false)"

    def ref_parse(self) -> dict[str, str]:
        return {"adjudicated": f"NOT {_in(q('adjudicated'), ('true', 'false'))}"}

    def ref_record(self) -> str:
        return " AND ".join([self.id_ok(q("case_id")), _in(q("preferred_candidate"), CANDIDATES),
                             self.d.reviewers_ok(q("reviewer_ids")), _in(q("adjudicated"), ("true", "false"))])

    def obs_parse(self, integer: set[str]) -> dict[str, str]:
        # an integer column's text always parses (its missing cells do not); text is checked as in memory
        return {f: f"{q(f)} IS NULL" if f in integer else f"NOT {self.int_ok(q(f))}" for f in INT_FIELDS}

    def obs_record(self) -> str:
        return " AND ".join([
            self.id_ok(q("case_id")), _in(q("order"), ORDERS), self.range(q("repetition"), 1, MAX_REPETITION),
            _in(q("selected_candidate"), CANDIDATES), self.range(q("candidate_a_tokens"), 1, MAX_TOKENS),
            self.range(q("candidate_b_tokens"), 1, MAX_TOKENS), self.id_ok(q("candidate_a_generator")),
            self.id_ok(q("candidate_b_generator")), self.id_ok(q("judge_generator"))])


# --- the slow path: one row, in file order, through the Python rules ----------------------------

def typed(fields: Sequence[str], cells: dict[str, str]) -> list[str | int | bool | tuple[str, ...]]:
    """A row's cells as the in-memory tabular form holds them once parsed."""
    out: list[str | int | bool | tuple[str, ...]] = []
    for f in fields:
        v = cells[f]
        if f in INT_FIELDS:
            out.append(int(v))
        elif f == "adjudicated":
            out.append(v == "true")
        elif f == "reviewer_ids":
            out.append(tuple(v.split(";")) if v else ())
        else:
            out.append(v)
    return out


def parse_error(src: Source[_Pos], rules: dict[str, str], counts: dict[str, int]) -> None:
    """The first field (in field order) with a cell that does not parse: its first row."""
    for f, cond in rules.items():
        if counts[f]:
            at = src.first(cond)
            if at is None:
                continue
            name, row, cells = src.where(at)
            cell = cells[f]
            if f == "adjudicated":
                raise InputError(name, row, f, f"expected true or false, got {excerpt(cell)}")
            from agreebound.io.values import whole_number

            whole_number(name, row, f, cell, digits=18)
            raise InputError(name, row, f, f"expected a whole number like 3, got {excerpt(cell)}")


def record_error(src: Source[_Pos], condition: str, build: Callable[..., object], engine: str) -> None:
    """The first row the Python rules refuse among those the SQL rules refuse (none: no error)."""
    at = None
    for _ in range(DOUBT_LIMIT):
        at = src.first(f"NOT ({condition})", at)
        if at is None:
            return
        name, row, cells = src.where(at)
        try:
            build(*typed(src.fields, cells))
        except ValueError as error:
            raise InputError(name, row, field_of(error), str(error)) from None
    raise InputError(src.shown, None, None, DISAGREE.format(engine=engine))


# --- a CSV's header and rows, as the in-memory reader says them ---------------------------------

def memory_csv_error(path: str, name: str, fields: Sequence[str], delimiter: str, with_row: bool,
                     extra: bool = False) -> InputError | None:
    """The in-memory tabular form's error for this CSV's head: its first record (the header) and,
    ``with_row``, a placeholder row under it (so that a header problem, not "no rows", is said)."""
    import csv
    import io

    from agreebound.io.records import csv_records

    header: list[str] = []
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            header = next((r for r in csv.reader(fh, delimiter=delimiter) if r), [])
    except OSError as err:
        return InputError(name, None, None, f"cannot read the file ({err.strerror})")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(header)
        if with_row:
            writer.writerow(["x"] * len(header))
    try:
        csv_records(name, out.getvalue().encode(), fields, extra=extra)
    except InputError as err:
        return err
    return None


def first_unreadable(files: Sequence[str], names: Sequence[str], delimiter: str) -> InputError | None:
    """The first record the engine could not read, found as the in-memory reader reads CSV: a record
    with another number of cells than the header, or bytes that are not UTF-8."""
    import csv

    for path, name in zip(files, names):
        try:
            with open(path, "rb") as raw:
                for line, data in enumerate(raw, start=1):
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError as err:
                        return InputError(name, line, None, f"not UTF-8 (byte 0x{data[err.start]:02x}): the "
                                          "out-of-core engines read UTF-8; save the file as UTF-8, or use --engine "
                                          "numpy (files up to 200 MB)")
            with open(path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, delimiter=delimiter)
                width, last = None, 0
                while True:
                    try:
                        cells = next(reader)
                    except StopIteration:
                        break
                    except csv.Error as err:  # the record that starts after the last one read
                        return InputError(name, last + 1, None, f"malformed CSV ({err})")
                    start, last = last + 1, reader.line_num
                    if not cells:
                        continue
                    if width is None:
                        width = len(cells)
                    elif len(cells) != width:
                        if len(cells) < width and "\n" in cells[-1]:
                            return InputError(name, start, None, "a quoted cell is never closed (its opening quote "
                                              "is on this row); close the quote or remove it")
                        return InputError(name, start, None, f"row has {len(cells)} cells; the header has {width}")
        except (csv.Error, OSError, UnicodeDecodeError) as err:
            return InputError(name, None, None, f"malformed CSV ({err})")
    return None


# --- the audit --------------------------------------------------------------------------------

class Audit(NamedTuple):
    """An audit counted out of core: its measurement and, when asked, its counts per slice and its
    battles' kinds of case (both only counted here: measured as in memory, by
    agreebound.judge.slices.measure_slice_counts and agreebound.judge.ranking.rank_kinds)."""

    measurement: CalibrationMeasurement
    #: slice column -> value -> the counts of that value's cases (the columns that are slices)
    slices: dict[str, dict[str, JudgeCounts]]
    #: slice column -> why it is no slice (the rules of agreebound.judge.slices)
    refused: dict[str, str]
    #: the kinds of case of the battles (agreebound.judge.ranking.KIND_COLUMNS rows); None: not asked
    kinds: list[tuple[str, str, int, int, int, int]] | None


def audit(e: Engine[_Pos], c: JudgeCalibrationContract, header: tuple[str, str, str], contract_name: str
          ) -> CalibrationMeasurement:
    """Validate and measure, in the in-memory path's order; ``e`` is the engine. The engine only
    aggregates (:func:`judge_counts`); the rates are measured as in memory (measure_counts)."""
    return audit_with(e, c, header, contract_name).measurement


def audit_with(e: Engine[_Pos], c: JudgeCalibrationContract, header: tuple[str, str, str], contract_name: str,
               *, slices: bool = False, kinds: bool = False) -> Audit:
    """:func:`audit`, and, once the data are valid, ``slices``: the counts of each slice of each slice
    column (:func:`slice_counts`), ``kinds``: the battles' kinds of case (:func:`case_kinds`)."""
    n_refs, n_obs, strays, (names, counts) = _check_records(e, c)
    _check_snapshot(e, c, header, contract_name, n_refs, strays, counts)
    m = measure_counts(c, header, judge_counts(e, c, n_obs, names))
    by, refused = slice_counts(e, c, names, counts) if slices else ({}, {})
    return Audit(m, by, refused, case_kinds(e, names) if kinds else None)


def slice_counts(e: Engine[_Pos], c: JudgeCalibrationContract, names: "Names", counts: "Counts"
                 ) -> tuple[dict[str, dict[str, JudgeCounts]], dict[str, str]]:
    """Per slice column of the observations (in file order): each case's value (table ``sl``), refused
    as in memory (agreebound.judge.slices.case_values: a column that varies within a case, or holds one
    value, or too many); else the validated join again with each case's value (:func:`_join`) and the
    audit's counts grouped by it (:func:`_counts_by`): one grouped pass per column, every slice's
    counts from it."""
    from agreebound.judge.slices import too_few_or_many, varies_text

    out: dict[str, dict[str, JudgeCounts]] = {}
    refused: dict[str, str] = {}
    for i, column in enumerate(e.obs.extras):
        e.table("sl", f"""SELECT case_id, min(v) AS v, count(DISTINCT v) AS nv FROM (
                              SELECT {q('case_id')} AS case_id, x{i} AS v FROM {e.obs.view}) AS x GROUP BY case_id""")
        varying, most, first, n_values = e.run(
            "SELECT count(*) FILTER (WHERE nv > 1), max(nv), min(case_id) FILTER (WHERE nv > 1), count(DISTINCT v) "
            "FROM sl")[0]
        why = varies_text(str(first), int(most)) if varying else too_few_or_many(int(n_values))
        if why:
            refused[column] = why
            continue
        _join(e, counts, "js", by="sl")
        _case_table(e, c, names, join="jsv", view="ks")
        out[column] = _counts_by(e, names, "ks", "(SELECT r.*, sl.v AS sv FROM r JOIN sl ON r.case_id = sl.case_id) AS rs")
    return out, refused


def case_kinds(e: Engine[_Pos], names: "Names") -> list[tuple[str, str, int, int, int, int]]:
    """The battles (each judgment of a case whose two candidates' generators differ, in candidate
    terms: agreebound.judge.ranking.battles_of) as kinds of case: candidate a's and b's generators, the
    judgments that picked a, b and a tie, and the number of such cases; from the validated join ``jv``
    (a case's generators are one per case, validated), one row per kind."""
    rows = e.run(f"""
        SELECT {names.text('ag')}, {names.text('bg')}, aab + aba AS na, bab + bba AS nb, tab + tba AS nt, sum(cnt)
        FROM jv WHERE ag <> bg GROUP BY ag, bg, aab + aba, bab + bba, tab + tba""")
    return [(str(a), str(b), int(x), int(y), int(t), int(n)) for a, b, x, y, t, n in rows]


def _check_records(e: Engine[_Pos], c: JudgeCalibrationContract
                   ) -> tuple[int, int, tuple[int, int, int], tuple["Names", "Counts"]]:
    """As the tabular form reads: the references file (no rows, its header, its cells), then the
    observations file the same way; then every record's rules. The numbers of references and
    observations, the snapshot's counts that need table ``p`` alone (:func:`_strays`, counted in
    the same scan of it, said later), and how ``p`` holds names and counts; the references are left
    in table ``r`` and the observations per case in table ``p``."""
    rules, refs, obs = Rules(e.dialect), e.refs, e.obs
    refs.check_header()
    ref_parse = rules.ref_parse()
    flags = _reference_table(e, rules, ref_parse)
    n_refs, *ref_bad_parse, ref_bad = e.run(
        f"SELECT count(*), {', '.join(f'count(*) FILTER (WHERE {x})' for x in flags)}, "
        f"count(*) FILTER (WHERE bad) FROM r")[0]
    with e.sequential():
        if n_refs == 0:
            refs.no_rows()
        parse_error(refs, ref_parse, dict(zip(ref_parse, ref_bad_parse)))
    obs.check_header()
    parse = rules.obs_parse(obs.integer)
    names, counts = _observation_table(e, c, parse)
    # a case's id once per case; generators and judges by their distinct values (few)
    n_obs, *obs_bad_parse, obs_bad, twice, other, changed = e.run(f"""
        SELECT coalesce(sum(n), 0), {', '.join(f"coalesce(sum(parse_{i}), 0)" for i in range(len(parse)))},
               coalesce(sum(CASE WHEN NOT {rules.id_ok('case_id')} OR names_vary THEN n
                                 ELSE bad END), 0), {_strays(names.literal(c.judge_generator))}
        FROM p""")[0]
    obs_bad += names.not_ids() if names.names else e.run(
        f"""SELECT count(*) FROM (SELECT ag AS v FROM p UNION SELECT bg AS v FROM p UNION
            SELECT jg AS v FROM p) AS t WHERE NOT {rules.id_ok('v')}""")[0][0]
    with e.sequential():
        if n_obs == 0:
            obs.no_rows()
        parse_error(obs, parse, dict(zip(parse, obs_bad_parse)))
        if ref_bad:
            record_error(refs, rules.ref_record(), HumanReference, e.name)
        if obs_bad:  # some row may break a record rule: find the first that does, if any
            record_error(obs, rules.obs_record(), JudgeObservation, e.name)
    return int(n_refs), int(n_obs), (int(twice), int(other), int(changed)), (names, counts)


def _reference_table(e: Engine[_Pos], rules: Rules, parse: dict[str, str]) -> list[str]:
    """Table ``r``, the references in one scan of their file: per reference its case, preferred
    candidate (0: a, 1: b, 2: tie), number of reviewers and whether it was adjudicated, which is
    what the audit reads of it; and, for the checks that come first, whether each of its cells does
    not parse (``parse_i``) and whether it breaks a record rule (``bad``). Every expression here
    reads any text without failing, so the table is made before the references are known valid:
    one scan where there were two (a check, then the table): 0.9 s of 45 at 1e8 observations.
    Returns the ``parse_i`` columns' names, in ``parse``'s order."""
    flags = [f"parse_{i}" for i in range(len(parse))]
    e.table("r", f"""SELECT {q('case_id')} AS case_id, CASE {q('preferred_candidate')} WHEN 'a' THEN 0 WHEN 'b' THEN 1
                     ELSE 2 END AS pref, {e.dialect.count_ids(q('reviewer_ids'))} AS nrev,
                     {q('adjudicated')} = 'true' AS adj,
                     {"".join(f"{x} AS {f}, " for x, f in zip(parse.values(), flags))}NOT ({rules.ref_record()}) AS bad
                     FROM {e.refs.view}""")
    return flags


def _strays(judge: str) -> str:
    """The cases of table ``p`` with an (order, repetition) observed twice, with another judge than
    ``judge`` (as ``p`` holds it) or one that varies, with candidates' metadata that changes. Where
    the names are places, any change counts in both of the last two: both send the audit to the
    same search for the first such observation (:func:`_observation_error`)."""
    return f"""count(*) FILTER (WHERE twice), count(*) FILTER (WHERE jg <> {judge} OR judge_varies),
               count(*) FILTER (WHERE metadata_varies)"""


#: Table ``p``'s counts are summed per case as fields of FIELD_BITS bits, packed FIELDS_PER_WORD to a
#: BIGINT (one aggregate in place of seven: DuckDB's grouping is several times faster). No field
#: reaches 2^FIELD_BITS while a case holds fewer observations; a valid case holds at most
#: 2 x MAX_REPETITION, and a case with more (an observation repeated) is counted unpacked.
FIELD_BITS, FIELDS_PER_WORD = 9, 7


def _observation_table(e: Engine[_Pos], c: JudgeCalibrationContract, parse: dict[str, str]) -> tuple["Names", "Counts"]:
    """Table ``p`` (a view over the table ``pk`` where the counts are packed), the observations in
    one grouped scan: per case, each order's selections, the cells that do not parse or break a
    cheap rule, each candidate's metadata and the judge (their least values) and whether they vary,
    and whether an (order, repetition) is observed twice (told by bit masks of the repetitions,
    where every row is valid: a row that is not is an error found first); and how ``p`` holds these
    names and counts. The view ``pks`` reads the same facts, with the counts as ``pk`` stores them."""
    reps, obs = c.repetitions_per_order, e.obs
    cheap = " AND ".join([_in("od", ORDERS), _in("selected_candidate", CANDIDATES),
                          f"coalesce(rp BETWEEN 1 AND {MAX_REPETITION}, false)",
                          f"coalesce(ta BETWEEN 1 AND {MAX_TOKENS}, false)", f"coalesce(tb BETWEEN 1 AND {MAX_TOKENS}, false)",
                          "ag IS NOT NULL AND bg IS NOT NULL AND jg IS NOT NULL"])
    counted = [(f"{x}{o}", f"od = '{o}'{f' AND {cond}' if cond else ''}") for o in ORDERS for x, cond in (
        ("a", "sel = 0"), ("b", "sel = 1"), ("t", "sel = 2"), ("n", ""), ("g", f"rp <= {reps}"))]
    counted += [(f"parse_{i}", cond) for i, cond in enumerate(parse.values())] + [("bad", f"NOT ({cheap})")]
    bit = "CAST(pow(2, rp - {0}) AS BIGINT)"
    # each a BIGINT: DuckDB's bit_count is a TINYINT, and the four reach 200
    masks = [f"CAST(bit_count(coalesce(bit_or(CASE WHEN rp BETWEEN {lo} AND {lo + 49} THEN {bit.format(lo)} ELSE 0 END) "
             f"FILTER (WHERE od = '{o}'), 0)) AS BIGINT)" for o in ORDERS for lo in (1, 51)]

    def grouped(names: Names, facts: Facts) -> str:  # the observations grouped by case, names as ``names`` holds them
        return f"""{", ".join(f"{sql} AS {name}" for name, sql in facts.stored)}
        FROM (SELECT {q('case_id')} AS case_id, {q('order')} AS od, {', '.join(q(f) for f in INT_FIELDS)},
                     {obs.number('repetition')} AS rp,
                     CASE {q('selected_candidate')} WHEN 'a' THEN 0 WHEN 'b' THEN 1 WHEN 'tie' THEN 2 END AS sel,
                     {q('selected_candidate')} AS selected_candidate,
                     {obs.number('candidate_a_tokens')} AS ta, {obs.number('candidate_b_tokens')} AS tb,
                     {names.held(q('candidate_a_generator'))} AS ag, {names.held(q('candidate_b_generator'))} AS bg,
                     {names.held(q('judge_generator'))} AS jg
              FROM {obs.view}) AS x
        GROUP BY case_id"""
    words = [counted[i:i + FIELDS_PER_WORD] for i in range(0, len(counted), FIELDS_PER_WORD)]
    packed = ", ".join("{} AS w{}".format(e.dialect.packed_sum(" + ".join(
        f"CASE WHEN {cond} THEN {2 ** (FIELD_BITS * i)} ELSE 0 END" for i, (_, cond) in enumerate(word))), j)
        for j, word in enumerate(words))
    one_by_one = ", ".join(f"count(*) FILTER (WHERE {cond}) AS {name}" for name, cond in counted)
    # packed, with the head's names as places; once more, as it must, where a case holds too many
    # observations to pack or a name the head did not hold
    names, fits = Names(e.dialect, _head_names(e)), True
    facts = _case_facts(e.dialect, names, masks)
    e.table("pk", f"SELECT case_id, count(*) AS n, {packed}, {grouped(names, facts)}")
    most, unknown = e.run(f"SELECT coalesce(max(n), 0), count(*) FILTER (WHERE {names.unknown()}) FROM "
                          f"(SELECT n, {facts.read_sql()} FROM pk) AS x")[0]
    if most >= 2 ** FIELD_BITS or unknown:
        fits, names = most < 2 ** FIELD_BITS, (Names(e.dialect, []) if unknown else names)
        facts = _case_facts(e.dialect, names, masks)
        e.table("pk", f"SELECT case_id, count(*) AS n, {packed if fits else one_by_one}, {grouped(names, facts)}")
    counts = Counts([f"w{j}" for j in range(len(words))], [
        e.dialect.field(f"w{j}", FIELD_BITS * i, 2 ** FIELD_BITS - 1) + f" AS {name}"
        for j, word in enumerate(words) for i, (name, _) in enumerate(word)]) if fits else \
        Counts([name for name, _ in counted], [name for name, _ in counted])
    # p reads the counts one by one; pks keeps them as stored (fewer columns to join and group)
    e.view("p", f"SELECT case_id, n, {facts.read_sql()}, {', '.join(counts.fields)} FROM pk")
    e.view("pks", f"SELECT case_id, {facts.read_sql()}, {', '.join(counts.stored)} FROM pk")
    return names, counts


class Counts(NamedTuple):
    """The columns of table ``pk`` that hold a case's counts, and the SQL that reads each count
    (named) from them."""

    stored: list[str]
    fields: list[str]


class Names:
    """How table ``p`` (and what is made from it) holds the generators' and judges' names: as
    themselves, or, when there are up to MAX_CODED_NAMES of them, each as its place (from 1) in
    their sorted list, which orders as the names do (DuckDB groups numbers much faster than texts)."""

    def __init__(self, dialect: Dialect, names: Sequence[str]) -> None:
        self.dialect, self.names = dialect, list(names)

    def held(self, x: str) -> str:
        """The name ``x`` (SQL) as ``p`` holds it: 0 for a name not among them (:meth:`unknown`)."""
        if not self.names:
            return x
        return f"CASE WHEN {x} IS NULL THEN NULL ELSE coalesce({self.dialect.index_in(self.names, x)}, 0) END"

    def unknown(self) -> str:
        """A case of ``p`` with a name not among them, in its least names. A name the head did not hold
        may hide in a case whose names or lengths vary; such a case is an error found from the
        texts (its rows go through the record rules, then :func:`_observation_error`)."""
        return "ag = 0 OR bg = 0 OR jg = 0" if self.names else "false"

    def literal(self, text: str) -> str:
        """``text`` as ``p`` holds it, for comparing (0, no place, when it is not one of the names)."""
        if not self.names:
            return self.dialect.literal(text)
        return str(self.names.index(text) + 1) if text in self.names else "0"

    def text(self, x: str) -> str:
        """The name that the column ``x`` of ``p`` holds."""
        return self.dialect.text_at(self.names, x) if self.names else x

    def not_ids(self) -> int:
        """How many of the names break the id rule (a name's rule as in memory: contract.ID_PATTERN)."""
        return sum(ID_PATTERN.fullmatch(name) is None for name in self.names)


#: Up to this many distinct generator and judge names in the first HEAD_ROWS observations, table ``p``
#: holds each as its place (:class:`Names`); a name after them has the texts grouped instead.
MAX_CODED_NAMES, HEAD_ROWS = 64, 100_000


def _head_names(e: Engine[_Pos]) -> list[str]:
    """The distinct candidates' generators and judges of the observations' head, sorted (as the
    engines order texts: by code point); none where there are more than MAX_CODED_NAMES."""
    head = f"(SELECT * FROM {e.obs.view} LIMIT {HEAD_ROWS}) AS h"
    found = e.run(" UNION ".join(f"SELECT {q(x)} AS v FROM {head} WHERE {q(x)} IS NOT NULL"
                                 for x in ("candidate_a_generator", "candidate_b_generator", "judge_generator")))
    return sorted(str(v) for (v,) in found) if len(found) <= MAX_CODED_NAMES else []


#: Where the names are places (:class:`Names`), a case's metadata (both candidates' lengths, their
#: generators, the judge) is summed up as one BIGINT of these fields (name, bits), high to low: its
#: least value holds the five, and it varies iff one of them does (two aggregates in place of ten).
PACKED_METADATA = (("ta", 20), ("tb", 20), ("ag", 7), ("bg", 7), ("jg", 7))
assert MAX_TOKENS < 2 ** 20 and MAX_CODED_NAMES < 2 ** 7 and sum(bits for _, bits in PACKED_METADATA) < 63


class Facts(NamedTuple):
    """A case's facts beside its counts: as table ``pk`` stores them, (name, aggregate); as ``p`` reads
    them, (name, SQL over the stored)."""

    stored: list[tuple[str, str]]
    read: list[tuple[str, str]]

    def read_sql(self) -> str:
        return ", ".join(f"{sql} AS {name}" for name, sql in self.read)


def _case_facts(d: Dialect, names: Names, masks: Sequence[str]) -> Facts:
    """A case's facts beside its counts: its candidates' lengths and names and its judge (their least
    values); whether its names vary (a doubt that sends its rows through the record rules), whether
    its judge varies, whether its metadata varies; whether an (order, repetition) is observed twice
    (the rows beyond the repetitions ``masks`` hold). Where the names are places, the first five are
    stored as one packed number and the three doubts as one flag (a narrower table to write, and to
    join)."""
    twice = ("twice", f"count(*) <> {' + '.join(masks)}")
    if not names.names:
        def varies(*xs: str) -> str:
            return " OR ".join(f"min({x}) <> max({x})" for x in xs)
        stored = [(x, f"min({x})") for x in ("ta", "tb", "ag", "bg", "jg")] + [
            twice, ("names_vary", varies("ag", "bg", "jg")), ("judge_varies", varies("jg")),
            ("metadata_varies", varies("ta", "tb", "ag", "bg"))]
        return Facts(stored, [(name, name) for name, _ in stored])
    shifts = [sum(bits for _, bits in PACKED_METADATA[i + 1:]) for i in range(len(PACKED_METADATA))]
    # a row whose lengths are out of range (then a record error) is left out: it cannot be packed
    meta = (f"CASE WHEN ta BETWEEN 1 AND {MAX_TOKENS} AND tb BETWEEN 1 AND {MAX_TOKENS} THEN "
            f"{' + '.join(f'{x} * {2 ** shift}' for (x, _), shift in zip(PACKED_METADATA, shifts))} END")
    return Facts([("meta", f"min({meta})"), twice, ("varies", f"min({meta}) <> max({meta})")], [
        (x, d.field("meta", shift, 2 ** bits - 1)) for (x, bits), shift in zip(PACKED_METADATA, shifts)] + [
        ("twice", "twice"), ("names_vary", "varies"), ("judge_varies", "varies"), ("metadata_varies", "varies")])


def _check_snapshot(e: Engine[_Pos], c: JudgeCalibrationContract, header: tuple[str, str, str], contract_name: str,
                    n_refs: int, strays: tuple[int, int, int], counts: Counts) -> None:
    """The snapshot's rules, in the in-memory order: its header, unique case ids and observation
    keys, the binding to the contract, each observation's case, judge and metadata, completeness.
    The references are in table ``r`` (:func:`_reference_table`)."""
    reps = c.repetitions_per_order
    fault: tuple[str | None, str] | None = header_fault(*header)
    if fault:
        raise _snapshot_error(contract_name, fault)

    # one join of the observed cases to their references, grouped by what the audit reads of a case
    # (table ``j``: a row per kind of case with its number of cases, ``cnt``; its counts as ``pk``
    # holds them, the view ``jv`` reads them): it counts both sides' strays (cases observed without a
    # reference: pref, never null in r, is null; references whose case does not hold exactly the
    # repetitions 1..R in each order, among them those not observed: the references that no case
    # joined, as each joins at most one case of pk) and is what is measured. The number of reviewers
    # is kept up to REVIEWER_CAP, the candidates' lengths as which is longer (0: a, 1: b, -1:
    # neither): all the audit reads of them. A left join: a full one takes about twice as long.
    _join(e, counts, "j")
    orphans, incomplete, joined, matched = e.run(f"""
        SELECT coalesce(sum(cnt) FILTER (WHERE pref IS NULL), 0),
               coalesce(sum(cnt) FILTER (WHERE pref IS NOT NULL AND (
                   coalesce(gab, 0) <> {reps} OR coalesce(nab, 0) <> {reps}
                   OR coalesce(gba, 0) <> {reps} OR coalesce(nba, 0) <> {reps})), 0),
               coalesce(sum(cnt), 0), coalesce(sum(cnt) FILTER (WHERE pref IS NOT NULL), 0)
        FROM jv""")[0]
    incomplete += n_refs - matched  # the references not observed
    # a case id twice in the references: an observed case then joins twice (more rows than cases of
    # p), one not observed is incomplete; only then are the references' ids counted
    if (joined != e.run("SELECT count(*) FROM pk")[0][0] or incomplete) and \
            e.run("SELECT count(DISTINCT case_id) FROM r")[0][0] != n_refs:
        with e.sequential():
            _duplicate_reference(e)
    twice, other, changed = strays
    if twice:
        with e.sequential():
            _duplicate_key(e)
    fault = binding_fault(c, header[0], header[1], n_refs)
    if fault:
        raise _snapshot_error(contract_name, fault)
    if other or orphans or changed:
        with e.sequential():
            _observation_error(e, c)
    if incomplete:
        with e.sequential():
            _incomplete(e, reps)


def _join(e: Engine[_Pos], counts: Counts, name: str, by: str | None = None) -> None:
    """Table ``name`` (and the view ``name`` + "v" that reads its counts): the observed cases joined to
    their references, a row per kind of case with its number of cases ``cnt``; ``by``: a table of
    (case_id, v), each case's slice value, kept as the column ``sv`` (every case once: a slice's cases
    are grouped apart; without ``by`` every case's is '')."""
    longer = "CASE WHEN pk.ta > pk.tb THEN 0 WHEN pk.tb > pk.ta THEN 1 ELSE -1 END"  # pk: its facts as p reads them
    key, join = ("sl.v", f" JOIN {by} AS sl ON pk.case_id = sl.case_id") if by else ("''", "")
    stored = ", ".join(f"pk.{x}" for x in counts.stored)
    e.table(name, f"""
        SELECT {key} AS sv, r.pref, least(r.nrev, {REVIEWER_CAP}) AS nrev, r.adj, {longer} AS lg, pk.ag, pk.bg,
               {stored}, count(*) AS cnt
        FROM pks AS pk LEFT JOIN r ON pk.case_id = r.case_id{join}
        GROUP BY {key + ", " if by else ""}r.pref, least(r.nrev, {REVIEWER_CAP}), r.adj, {longer}, pk.ag, pk.bg,
                 {stored}""")
    e.view(f"{name}v", f"SELECT sv, pref, nrev, adj, lg, ag, bg, {', '.join(counts.fields)}, cnt FROM {name}")


def _snapshot_error(contract_name: str, fault: tuple[str | None, str]) -> InputError:
    field, message = fault
    return InputError(contract_name, None, f"snapshot.{field}" if field else None, message)


def _duplicate_reference(e: Engine[_Pos]) -> None:
    row = e.run(f"""SELECT o1, o2, case_id FROM (SELECT o1, o2, {q('case_id')} AS case_id,
                    row_number() OVER (PARTITION BY {q('case_id')} ORDER BY o1, o2) AS k FROM {e.refs.numbered}) AS x
                    WHERE k = 2 ORDER BY o1, o2 LIMIT 1""")[0]
    name, line, _ = e.refs.where(cast(_Pos, (row[0], row[1])))  # o1, o2: the engine's position
    raise InputError(name, line, "case_id", duplicate_reference(row[2]))


def _duplicate_key(e: Engine[_Pos]) -> None:
    row = e.run(f"""SELECT o1, o2, case_id, od, rep FROM (SELECT o1, o2, {q('case_id')} AS case_id, {q('order')} AS od,
                    CAST({q('repetition')} AS BIGINT) AS rep, row_number() OVER (PARTITION BY {q('case_id')},
                    {q('order')}, CAST({q('repetition')} AS BIGINT) ORDER BY o1, o2) AS k FROM {e.obs.numbered}) AS x
                    WHERE k = 2 ORDER BY o1, o2 LIMIT 1""")[0]
    name, line, _ = e.obs.where(cast(_Pos, (row[0], row[1])))  # o1, o2: the engine's position
    raise InputError(name, line, "repetition", duplicate_observation(row[2], row[3], int(row[4])))


def _observation_error(e: Engine[_Pos], c: JudgeCalibrationContract) -> None:
    """The first observation without a reference, of another judge, or whose candidates' metadata
    differs from its case's first valid observation."""
    judge = e.dialect.literal(c.judge_generator)
    rows = e.run(f"""
        WITH v AS (SELECT n.o1, n.o2, n.case_id, n.od, n.rep, n.ta, n.tb, n.ag, n.bg, n.jg,
                          r.case_id IS NOT NULL AS has_ref, n.jg = {judge} AS same_judge
                   FROM (SELECT o1, o2, {q('case_id')} AS case_id, {q('order')} AS od,
                                CAST({q('repetition')} AS BIGINT) AS rep, CAST({q('candidate_a_tokens')} AS BIGINT) AS ta,
                                CAST({q('candidate_b_tokens')} AS BIGINT) AS tb, {q('candidate_a_generator')} AS ag,
                                {q('candidate_b_generator')} AS bg, {q('judge_generator')} AS jg
                         FROM {e.obs.numbered}) AS n LEFT JOIN r ON n.case_id = r.case_id),
             f AS (SELECT case_id, ta AS fa, tb AS fb, ag AS fg, bg AS fh FROM (
                       SELECT case_id, ta, tb, ag, bg, row_number() OVER (PARTITION BY case_id ORDER BY o1, o2) AS k
                       FROM v WHERE has_ref AND same_judge) AS y WHERE k = 1)
        SELECT v.o1, v.o2, v.case_id, v.od, v.rep, v.has_ref, v.jg, f.case_id IS NOT NULL,
               v.ta, v.tb, v.ag, v.bg, f.fa, f.fb, f.fg, f.fh
        FROM v LEFT JOIN f ON v.case_id = f.case_id
        WHERE NOT v.has_ref OR NOT v.same_judge OR f.fa <> v.ta OR f.fb <> v.tb OR f.fg <> v.ag OR f.fh <> v.bg
        ORDER BY v.o1, v.o2 LIMIT 1""")
    fault = None
    if rows:
        o1, o2, case_id, od, rep, has_ref, jg, has_first = rows[0][:8]
        metadata = tuple(rows[0][8:12])
        fault = observation_fault(c, (case_id, od, int(rep)), bool(has_ref), jg, metadata,
                                  tuple(rows[0][12:]) if has_first else metadata)
    if fault is None:
        raise InputError(e.obs.shown, None, None, DISAGREE.format(engine=e.name))
    name, line, _ = e.obs.where(cast(_Pos, (o1, o2)))  # the engine's position
    raise InputError(name, line, fault[0], fault[1])


def _incomplete(e: Engine[_Pos], reps: int) -> None:
    """The first (case, order) in reference order that does not hold exactly the repetitions 1..R."""
    case_id, ob = e.run(f"""
        SELECT x.case_id, t.ob FROM (SELECT o1, o2, {q('case_id')} AS case_id FROM {e.refs.numbered}) AS x
        CROSS JOIN (SELECT 0 AS ob UNION ALL SELECT 1 AS ob) AS t
        LEFT JOIN p ON p.case_id = x.case_id
        WHERE CASE t.ob WHEN 0 THEN coalesce(p.gab, 0) <> {reps} OR coalesce(p.nab, 0) <> {reps}
                        ELSE coalesce(p.gba, 0) <> {reps} OR coalesce(p.nba, 0) <> {reps} END
        ORDER BY x.o1, x.o2, t.ob LIMIT 1""")[0]
    order = ORDERS[int(ob)]
    got = {int(v[0]) for v in e.run(
        f"SELECT DISTINCT CAST({q('repetition')} AS BIGINT) FROM {e.obs.view} WHERE {q('case_id')} = "
        f"{e.dialect.literal(case_id)} AND {q('order')} = '{order}'")}
    raise InputError(e.obs.shown, None, "repetition", completeness_message(case_id, order, got, reps))


def _total(x: str, where: str = "") -> str:
    """The sum over the cases of view ``k`` of ``x`` (each row is ``cnt`` cases), as a DECIMAL(38,0);
    0 where there is none."""
    return (f"CAST(coalesce(sum(({x}) * cnt){f' FILTER (WHERE {where})' if where else ''}, 0) AS DECIMAL(38,0))")


def _rate(y: str, m: str) -> str:
    return ", ".join([_total(y), _total(m), _total("1", f"{m} > 0"), _total(f"({y}) * ({y})"), _total(f"({y}) * {m}"),
                      _total(f"{m} * {m}")])


#: Each rate of ALL_RATE_NAMES as (per-case numerator, per-case denominator): columns of view k.
RATE_COLUMNS = (("agree", "nobs"), ("flipped", "fopp"), ("unst", "CAST(2 AS BIGINT)"), ("verr", "vopp"),
                ("serr", "sopp"), ("fpick", "ndec"), ("fboth + sboth", "dpair"), ("merr", "mopp"),
                ("lpick", "lobs"), ("lpick - hlong * lobs", "lobs"), ("cerr", "copp"), ("pflip", "pdec"))


def _picks(label: str) -> str:
    """A case's verdicts (both orders) for the candidate whose label index is the column ``label``."""
    return f"CASE {label} WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE 0 END"


def _case_table(e: Engine[_Pos], c: JudgeCalibrationContract, names: Names, join: str = "jv", view: str = "k") -> None:
    """The view ``k``: the in-memory engine's per-case facts (agreebound.judge.measure.case_facts and
    _bias_facts) in SQL, from the validated join ``jv`` (every case there has its reference and its
    observations), a row per kind of case with its number of cases ``cnt``. A view: each query over
    it computes the facts it reads, from the one grouped join."""
    judge = names.literal(c.judge_generator)
    unnamed = [e.dialect.literal(u) for u in UNNAMED]

    def distinct(o: str) -> str:
        return f"CAST(a{o} > 0 AS INT) + CAST(b{o} > 0 AS INT) + CAST(t{o} > 0 AS INT)"

    def verdict(o: str) -> str:
        return (f"CASE WHEN d{o} = 1 THEN (CASE WHEN a{o} > 0 THEN 0 WHEN b{o} > 0 THEN 1 ELSE 2 END) ELSE -1 END")

    def majority(o: str) -> str:
        top = f"greatest(a{o}, b{o}, t{o})"
        return (f"CASE WHEN CAST(a{o} = {top} AS INT) + CAST(b{o} = {top} AS INT) + CAST(t{o} = {top} AS INT) = 1 "
                f"THEN (CASE WHEN a{o} = {top} THEN 0 WHEN b{o} = {top} THEN 1 ELSE 2 END) ELSE -1 END")

    def name(g: str, i: int) -> str:  # a generator's name; both unnamed: the candidates' slots
        if names.names:  # validated ids (never empty), each held as its place, which orders as they do
            return g
        return f"CASE WHEN coalesce(ag, '') = '' AND coalesce(bg, '') = '' THEN {unnamed[i]} ELSE coalesce({g}, '') END"

    def case(cond: str, then: str) -> str:
        return f"CASE WHEN {cond} THEN {then} ELSE 0 END"

    stable = "vab >= 0 AND vba >= 0"
    e.view(view, f"""
        WITH d AS (
            SELECT sv, pref, nrev, adj, aab, bab, tab, aba, bba, tba, lg, ag, bg, cnt,
                   {distinct('ab')} AS dab, {distinct('ba')} AS dba
            FROM {join}),
        x AS (
            SELECT *, {verdict('ab')} AS vab, {verdict('ba')} AS vba, {majority('ab')} AS mab, {majority('ba')} AS mba,
                   aab + bab + tab + aba + bba + tba AS nobs,
                   CASE pref WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE tab + tba END AS agree,
                   CASE WHEN pref = 0 AND lg = 1 THEN 1 WHEN pref = 1 AND lg = 0 THEN 0 ELSE -1 END AS verb,
                   CASE WHEN ag = {judge} AND ag <> bg THEN 0 WHEN bg = {judge} AND ag <> bg THEN 1
                        ELSE -1 END AS selfc,
                   CASE pref WHEN 0 THEN 1 WHEN 1 THEN 0 ELSE -1 END AS rj,
                   NOT coalesce(ag = {judge}, false) AND NOT coalesce(bg = {judge}, false) AND pref <> 2 AS ctl,
                   {name('ag', 0)} AS na, {name('bg', 1)} AS nb
            FROM d),
        y AS (
            SELECT *, pref <> 2 AND lg >= 0 AS uneq, na <= nb AS afirst FROM x)
        SELECT sv, cnt, pref, nrev, adj, dab, dba, mab, mba, nobs, agree,
               CAST({stable} AS BIGINT) AS fopp, CAST({stable} AND vab <> vba AS BIGINT) AS flipped,
               CAST(CAST(dab > 1 AS INT) + CAST(dba > 1 AS INT) AS BIGINT) AS unst,
               CASE WHEN verb >= 0 THEN nobs ELSE 0 END AS vopp, {_picks('verb')} AS verr,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2 THEN nobs ELSE 0 END AS sopp,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2 THEN {_picks('selfc')} ELSE 0 END AS serr,
               aab + bab + aba + bba AS ndec, aab + bba AS fpick,
               CAST({stable} AND vab <> 2 AND vba <> 2 AS BIGINT) AS dpair,
               CAST({stable} AND vab = 0 AND vba = 1 AS BIGINT) AS fboth,
               CAST({stable} AND vab = 1 AND vba = 0 AS BIGINT) AS sboth,
               {case('uneq AND pref = lg', 'nobs')} AS mopp, {case('uneq AND pref = lg', _picks('rj'))} AS merr,
               {case('uneq', 'nobs')} AS lobs, {case('uneq', _picks('lg'))} AS lpick,
               CAST(uneq AND pref = lg AS BIGINT) AS hlong,
               {case('ctl', 'nobs')} AS copp, {case('ctl', _picks('rj'))} AS cerr, uneq AND rj = lg AS rlong,
               CASE WHEN afirst THEN na ELSE nb END AS g1, CASE WHEN afirst THEN nb ELSE na END AS g2,
               2 * (CASE WHEN afirst THEN aab + aba ELSE bab + bba END) + tab + tba AS w,
               aab * bba + bab * aba AS pflip, (aab + bab) * (aba + bba) AS pdec,
               CASE WHEN pref = 2 THEN 1 WHEN pref = CASE WHEN afirst THEN 0 ELSE 1 END THEN 2 ELSE 0 END AS hy
        FROM y""")


def judge_counts(e: Engine[_Pos], c: JudgeCalibrationContract, n_obs: int, names: Names) -> JudgeCounts:
    """The audit's counts (agreebound.judge.counts), aggregated by the engine from the validated
    join ``jv`` (each kind of case's reference and observations, with its number of cases) through
    the per-case facts of the view ``k`` (:func:`_case_table`), summed with their weights."""
    _case_table(e, c, names)
    return replace(_counts_by(e, names, "k", "(SELECT r.*, '' AS sv FROM r) AS rs")[""], n_observations=n_obs)


def _counts_by(e: Engine[_Pos], names: Names, k: str, refs: str) -> dict[str, JudgeCounts]:
    """The counts of each value of the column ``sv`` of the case view ``k`` (:func:`_case_table`):
    every sum grouped by it, as :func:`agreebound.judge.counts.from_facts` sums a slice's cases.
    ``refs``: the references (table ``r``'s columns and ``sv``, each case's value), for the ids."""
    rows = e.run(f"""
        SELECT sv, {_total("1")}, {_total("nobs")}, {', '.join(_rate(y, m) for y, m in RATE_COLUMNS)},
               {_total("1", "NOT adj")}, {_total("agree", "pref <> 2")}, {_total("nobs", "pref <> 2")},
               {_total("1", "(dab > 1 OR dba > 1) AND mab >= 0 AND mba >= 0 AND mab <> mba")},
               {_total("fboth")}, {_total("sboth")}, {_total("1", "rlong AND sopp > 0")},
               {_total("1", "rlong AND copp > 0")}, {_total("1", "2 * fpick > ndec")}, {_total("1", "2 * fpick < ndec")}
        FROM {k} GROUP BY sv""")
    # k's nrev is capped at REVIEWER_CAP; the ids are the references' (after validation, the cases
    # of k are exactly those of r, each once)
    cap = REVIEWER_CAP
    reviewers: dict[str, dict[int, int]] = {}
    for v, m, n in e.run(f"SELECT sv, nrev, sum(cnt) FROM {k} GROUP BY sv, nrev"):
        reviewers.setdefault(v, {})[int(m)] = int(n)
    ids: dict[str, dict[int, list[str]]] = {}
    for v, m, case_id in e.run(e.dialect.smallest_ids(["sv", f"least(nrev, {cap})"], f"nrev < {cap}", ISSUE_IDS, refs)):
        ids.setdefault(v, {}).setdefault(int(m), []).append(case_id)
    unadj: dict[str, list[str]] = {}
    for v, case_id in e.run(e.dialect.smallest_ids(["sv"], "NOT adj", ISSUE_IDS, refs)):
        unadj.setdefault(v, []).append(case_id)
    patterns: dict[str, dict[tuple[int, int, int], int]] = {}
    for v, a, b, d, n in e.run(f"SELECT sv, pref, mab, mba, sum(cnt) FROM {k} GROUP BY sv, pref, mab, mba"):
        patterns.setdefault(v, {})[(int(a), int(b), int(d))] = int(n)
    # every case of a full audit has its human reference: labelled
    verdicts: dict[str, dict[tuple[str, str, bool, int, int, int], int]] = {}
    for v, f, s, m, w, y, n in e.run(
            f"SELECT sv, {names.text('g1')}, {names.text('g2')}, nobs, w, hy, sum(cnt) FROM {k} "
            "WHERE g1 <> g2 AND nobs > 0 GROUP BY sv, g1, g2, nobs, w, hy"):
        verdicts.setdefault(v, {})[(str(f), str(s), True, int(m), int(w), int(y))] = int(n)
    out = {}
    for row in rows:
        v, n_cases, n_obs, at = row[0], int(row[1]), int(row[2]), 3 + 6 * len(ALL_RATE_NAMES)
        rates = {name: RateStats(*(int(x or 0) for x in row[3 + 6 * i: 9 + 6 * i]))
                 for i, name in enumerate(ALL_RATE_NAMES)}
        (unadjudicated, agree_no_tie, obs_no_tie, noisy, first_both, second_both, self_longer, control_longer,
         first_lean, second_lean) = (int(x) for x in row[at:])
        out[str(v)] = JudgeCounts(
            n_cases, n_obs, rates, dict(sorted(reviewers.get(v, {}).items())),
            {m: tuple(sorted(x)) for m, x in sorted(ids.get(v, {}).items())}, unadjudicated,
            tuple(sorted(unadj.get(v, []))), (agree_no_tie, obs_no_tie), noisy, dict(sorted(patterns.get(v, {}).items())),
            first_both, second_both, self_longer, control_longer, dict(sorted(verdicts.get(v, {}).items())),
            first_lean, second_lean)
    return out
