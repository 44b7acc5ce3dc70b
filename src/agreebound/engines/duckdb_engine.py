"""DuckDB: the counts of long-format ratings (one row per rating) in CSV or Parquet files or
globs, out of core, streaming; nothing but the counts comes back to Python.

A unit's ratings may sit in any row of any file: grouping by unit (and dimension) is DuckDB's.
Values are grouped by their text (trimmed); the distinct texts are then read by the same rules as
every other path (agreebound.io.values.classify_values: missing spellings, numbers held exactly,
labels), so "1" and "1.0" become one category, as they do in memory.

Data whose head names its raters and value texts, with plain names, is counted in one scan
(:func:`_one_scan`); anything that head did not foresee takes the general path, which reads names
as the reader compares them and proves no rater rated a unit twice in a pass of its own.

The ratings themselves (per unit, rater and value, with the order of their first rows) come back
for the annotation study only (:func:`rating_triples`).

Why one module of this size (about 700 lines): the one-scan path and the general path count the same
rows and must stay in step; they are kept side by side on purpose.
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from agreebound.panel.categories import Level
from agreebound.panel.counts import PanelCounts, UnitPatterns
from agreebound.engines.common import (
    PIVOT_MAX_CATEGORIES,
    Coding,
    LongColumns,
    MAX_STUDY_RATINGS,
    PairRow,
    RatingTriples,
    RaterRow,
    SizeRow,
    assemble,
    check_columns,
    code_texts,
    first_rater,
    input_files,
    is_parquet,
    most_disagreeing,
    pairs_from_histograms,
    patterns_from_entries,
    pivot_cells,
    refuse_large_study,
    unit_counts,
    unit_shown,
)
from agreebound.core.errors import InputError
from agreebound.core.escape import INVISIBLE_RE2, excerpt

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

__all__ = ["LongColumns", "panel_counts", "rating_triples", "PIVOT_MAX_CATEGORIES", "MEMORY_LIMIT", "source", "literal_paths",
           "quote_identifier", "string_list"]


def quote_identifier(name: str) -> str:
    """A column name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def string_list(texts: Sequence[str]) -> str:
    """SQL for a list of these strings, each quoted."""
    return "[" + ", ".join("'" + t.replace("'", "''") + "'" for t in texts) + "]"


def source(files: list[str], delimiter: str | None = None) -> str:
    listing = string_list(files)
    if is_parquet(files):
        return f"read_parquet({listing}, union_by_name = true)"
    delim = delimiter or ("\\t" if files[0].lower().endswith(".tsv") else ",")
    delim = {"\t": "\\t"}.get(delim, delim).replace("'", "''")
    return f"read_csv({listing}, header = true, all_varchar = true, delim = '{delim}', union_by_name = true)"


#: DuckDB's working memory (it spills to a temporary folder beyond it): bounded whatever the data's
#: size. $AGREEBOUND_DUCKDB_MEMORY overrides it (e.g. 8GB on a large machine).
MEMORY_LIMIT = "1GB"


def one_row(result: DuckDBPyConnection) -> tuple[Any, ...]:
    """The one row a query returns: an aggregate's (no GROUP BY), or a row known to be there."""
    row = result.fetchone()
    assert row is not None  # an aggregate over no rows still returns one row
    return row


def _name(expr: str) -> str:
    """SQL for a name as the in-memory reader compares names (agreebound.core.escape.normalise_name):
    invisible characters removed, NFC, surrounding whitespace trimmed."""
    return (f"regexp_replace(nfc_normalize(regexp_replace(CAST({expr} AS VARCHAR), '[{INVISIBLE_RE2}]', '', 'g')), "
            f"'^{_SPACE}+|{_SPACE}+$', '', 'g')")


_SPACE = r"[\s\p{Z}\x{0b}\x{1c}-\x{1f}\x{85}]"


#: Rows read from the head of the data for the names of its raters and the texts of its values.
HEAD_ROWS = 100_000
#: Printable ASCII with no surrounding space: a name that is already as the reader compares it.
PLAIN = "[!-~]([ -~]*[!-~])?"


def _digit(base: int, t: int) -> str:
    """SQL for digit t of a histogram packed as one number ``key`` in ``base``: the count of code t."""
    return f"((key // CAST('{base ** t}' AS HUGEINT)) % {base})::BIGINT"


def _fast_name(expr: str) -> str:
    """_name, skipped for printable ASCII with no surrounding space (already normal)."""
    return f"CASE WHEN regexp_full_match({expr}, '{PLAIN}') THEN {expr} ELSE {_name(expr)} END"


#: Characters DuckDB may read as a pattern (or, the backslash, as an escape) in a path.
PATTERN_CHARS = "*?[]{}\\"


def duckdb_said(e: BaseException, shown: str, files: Sequence[str], temp: str) -> str:
    """DuckDB's first line of error as a user may see it: each input's path (as given, absolute, or
    linked from ``temp``) is replaced by ``shown`` (the user's name for it), and the temporary
    folder by words; a server's paths never reach a page."""
    text = str(e).splitlines()[0][:600] if str(e).strip() else type(e).__name__
    paths = sorted({*files, *(os.path.abspath(f) for f in files)} - {""}, key=len, reverse=True)
    if paths:  # one pass: a name put in is never replaced again ("a.csv (and 1 more)" holds "a.csv")
        text = re.sub("|".join(map(re.escape, paths)), lambda _: shown, text)
    for folder in {temp, os.path.realpath(temp)}:
        text = re.sub(re.escape(folder) + r"[^\s'\"]*", "(a temporary file)", text)
    return f"DuckDB could not read it: {text[:300]}"


def literal_paths(files: list[str], tmp: str) -> list[str]:
    """The paths to give DuckDB so that it reads exactly these files. DuckDB reads every path as a
    pattern, a leading ~ as the home folder and a first part such as s3: or file: as a storage
    prefix: such a path is given absolute, and one that holds * ? [ ] { } or a backslash through a
    link with a plain name (other paths as given, so that DuckDB's messages show them as typed)."""
    out = []
    for i, f in enumerate(files):
        path = f if not f.startswith("~") and ":" not in f.split("/")[0] else os.path.abspath(f)
        if any(ch in path for ch in PATTERN_CHARS):
            link = os.path.join(tmp, f"input-{i}{os.path.splitext(f)[1]}")
            os.symlink(os.path.abspath(f), link)
            out.append(link)
        else:
            out.append(path)
    return out


def connect(threads: int | None = None, memory_limit: str | None = None, *, ordered: bool = False
            ) -> tuple[DuckDBPyConnection, str]:
    """A DuckDB connection for one query of the ratings, and its spill folder (the caller closes the
    one and removes the other): ``threads`` (default every core), ``memory_limit`` (default
    AGREEBOUND_DUCKDB_MEMORY, else MEMORY_LIMIT), rows kept in insertion order when ``ordered`` (a
    first row's position matters), no progress bar (stdout is the report's)."""
    import tempfile

    import duckdb

    spill = tempfile.mkdtemp(prefix="agreebound-duckdb-")
    con = duckdb.connect(config={"threads": threads or os.cpu_count() or 1,
                                 "memory_limit": memory_limit or os.environ.get("AGREEBOUND_DUCKDB_MEMORY") or MEMORY_LIMIT,
                                 "temp_directory": spill, "preserve_insertion_order": ordered})
    con.execute("SET enable_progress_bar = false")
    return con, spill


def panel_counts(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                 threads: int | None = None, memory_limit: str | None = None, delimiter: str | None = None,
                 display: str | None = None) -> dict[str, PanelCounts]:
    """Counts per dimension of the long ratings in ``paths`` (files or patterns). The reader's rules
    hold: names normalised, empty unit/rater/dimension names and a rater rating a unit twice are
    errors, no ratings at all is an error. ``display`` names the data in messages (not its path)."""
    import shutil

    import duckdb

    files = input_files(paths)
    shown = display or (files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)")
    con, spill = connect(threads, memory_limit)
    try:
        src = source(literal_paths(files, spill), delimiter)
        have = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src} LIMIT 0").fetchall()]
        check_columns([shown], have, columns)
        keys = _keys(columns)
        one = _one_scan(con, src, columns, keys, missing, shown)
        if one is not None:
            return assemble(*one)
        merged = _group_names(con, src, columns, keys)
        _check_names(con, src, columns, keys, merged, shown)
        coding, by_rater = _code_values(con, columns, missing, shown)
        k = len(coding.values)
        if 0 < k <= PIVOT_MAX_CATEGORIES:  # each unit's histogram straight from g: no table in between
            most = len({r for _, r, _, _ in by_rater})  # each rater rates a unit once (checked above)
            sizes, pairs = _pairs_by_pivot(con, k, patterns=True, entries=_CODED, most=most)
        else:
            con.execute(f"CREATE TEMP TABLE uc AS SELECT d, u, c, sum(n)::BIGINT AS n FROM {_CODED} GROUP BY d, u, c")
            sizes, pairs = _pairs_by_join(con)
            _pattern_table_by_lists(con)
        con.execute("DROP TABLE g")
        patterns = _fetch_patterns(con, k)
    except duckdb.Error as e:
        raise InputError(shown, None, None, duckdb_said(e, shown, files, spill)) from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)
    return assemble(coding, by_rater, sizes, pairs, patterns)




def _one_scan(con: DuckDBPyConnection, src: str, columns: LongColumns, keys: _Keys, missing: Sequence[str],
              shown: str) -> tuple[Coding, list[RaterRow], list[SizeRow], list[PairRow],
                                   dict[str, UnitPatterns | None]] | None:
    """The counts in one scan of the data, when its head names every value text (up to
    PIVOT_MAX_CATEGORIES) and up to 63 raters, and every name is plain (:data:`PLAIN`); otherwise
    None, and nothing is left behind (the general path then reads the data its own way).

    Per unit the scan keeps its ratings, a mask of its raters (a bit per rater name of the head,
    one bit shared by any other name) and its histogram of texts as one number (digit t: the
    ratings with text t). A unit whose mask holds as many bits as it has ratings has no rater
    twice; where a unit holds fewer (raters the head did not name), a pass of its own decides, as
    on the general path. A digit that carried lowers the digits' sum below the unit's ratings: the
    general path then counts. Per (rater, value) it keeps the ratings. Returns assemble()'s
    arguments."""
    value = f"trim(CAST({quote_identifier(columns.value)} AS VARCHAR))"
    unit_plain = PLAIN if len(columns.unit) == 1 else f"{PLAIN}(\x1f{PLAIN}){{{len(columns.unit) - 1}}}"
    plain = (f"regexp_full_match({keys.raw_unit}, '{unit_plain}') AND regexp_full_match({keys.raw_rater}, '{PLAIN}')"
             + (f" AND regexp_full_match({keys.raw_dim}, '{PLAIN}')" if columns.dimension else ""))
    head = con.execute(f"SELECT DISTINCT {keys.raw_rater}, {value}, coalesce({plain}, false) "
                       f"FROM (SELECT * FROM {src} LIMIT {HEAD_ROWS})").fetchall()
    raters = sorted({r for r, _, _ in head if r is not None})
    texts = sorted({v for _, v, _ in head if v is not None})
    # digits: the texts, then any other text, then missing values; a histogram is one BIGINT (whose
    # sum over all the ratings, in the (rater, value) set, fits a HUGEINT), in the largest base that
    # allows, and at least the head's raters + 2 (no digit of a unit its rater bits prove reaches it)
    digits = len(texts) + 2
    base = int(2 ** (62 / digits))
    while base ** digits >= 2**62:
        base -= 1
    # a name to normalise, too many raters or texts: the general path
    if not all(ok for _, _, ok in head) or not 0 < len(raters) <= 63 or not 0 < len(texts) <= PIVOT_MAX_CATEGORIES \
            or base < len(raters) + 2:
        return None
    known = string_list(texts)
    weights = "[" + ", ".join(f"{base ** t}::BIGINT" for t in range(len(texts))) + "]"
    con.execute(f"""
        CREATE TEMP TABLE one AS
        SELECT d, u, r, v, count(*)::BIGINT AS n, bit_or(b) AS b, sum(w)::HUGEINT AS key, grouping(u, r, v) AS gid
        FROM (SELECT d, u, r, v, 1::UBIGINT << coalesce(list_position({string_list(raters)}, r) - 1, 63) AS b,
                     CASE WHEN v IS NULL THEN {base ** (digits - 1)}::BIGINT
                          ELSE coalesce(list_extract({weights}, list_position({known}, v)),
                                        {base ** len(texts)}::BIGINT) END AS w
              FROM (SELECT {keys.raw_dim} AS d, {keys.raw_unit} AS u, {keys.raw_rater} AS r, {value} AS v FROM {src}))
        GROUP BY GROUPING SETS ((d, u), (d, r, v))""")

    def digit(t: int) -> str:  # the ratings of a unit with text t
        return _digit(base, t)
    # beyond the head: a name to normalise, or a text it did not hold: the general path
    odd = (f"(gid = 3 AND regexp_full_match(u, '{unit_plain}') IS NOT TRUE) "
           f"OR (gid = 4 AND regexp_full_match(r, '{PLAIN}') IS NOT TRUE) "
           f"OR (gid = 4 AND v IS NOT NULL AND NOT list_contains({known}, v))"
           + (f" OR regexp_full_match(d, '{PLAIN}') IS NOT TRUE" if columns.dimension else ""))
    odd, unproven, total = one_row(con.execute(f"""
        SELECT count(*) FILTER (WHERE {odd}), count(*) FILTER (WHERE gid = 3 AND bit_count(b) < n),
               coalesce(sum(n) FILTER (WHERE gid = 4), 0) FROM one"""))
    # a unit with fewer rater bits than ratings (a rater twice, or raters the head did not name) may
    # have carried a digit (the digits' sum then falls below its ratings)
    if odd or unproven and one_row(con.execute(
            f"SELECT count(*) FROM one WHERE gid = 3 AND {' + '.join(digit(t) for t in range(digits))} <> n"))[0]:
        con.execute("DROP TABLE one")
        return None
    if unproven:
        named = f"SELECT {keys.raw_dim} AS d, {keys.raw_unit} AS u, {keys.raw_rater} AS r FROM {src}"
        _no_rater_twice(con, src, columns, keys, named, total, shown, "one")
    by_rater = con.execute("SELECT d, r, v, n FROM one WHERE gid = 4").fetchall()

    def where(text: str) -> tuple[object, str]:
        i = texts.index(text)
        row = con.execute(f"SELECT min(u) FROM one WHERE gid = 3 AND {digit(i)} > 0").fetchone()
        return (row[0] if row and row[0] is not None else "?"), first_rater(by_rater, text)

    coding = code_texts([v for _, _, v, _ in by_rater if v is not None], missing, [shown], columns.value, where)
    k = len(coding.values)
    if k == 0:
        con.execute("DROP TABLE one")
        return None
    _pattern_table_by_texts(con, coding, texts, base)
    con.execute("DROP TABLE one")
    sizes, pairs = _pairs_of_patterns(con, k)
    return coding, by_rater, sizes, pairs, _fetch_patterns(con, k)


def _pattern_table_by_texts(con: DuckDBPyConnection, coding: Coding, texts: Sequence[str], base: int) -> None:
    """The table ``pat`` (d, m, n0.., units) from the units of table ``one``, each histogram of
    texts a number (digit t: text t) in ``base``: texts of one code summed, units with no coded
    rating left out."""
    k = len(coding.values)
    hist = [" + ".join(_digit(base, t) for t, text in enumerate(texts) if coding.code_of.get(text) == c)
            for c in range(k)]
    size = " + ".join(f"n{c}" for c in range(k))
    con.execute(f"""
        CREATE TEMP TABLE pat AS
        SELECT d, {size} AS m, {", ".join(f"n{c}" for c in range(k))}, sum(units)::BIGINT AS units
        FROM (SELECT d, {", ".join(f"{h} AS n{c}" for c, h in enumerate(hist))}, units
              FROM (SELECT d, key, count(*)::BIGINT AS units FROM one WHERE gid = 3 GROUP BY d, key))
        WHERE {size} > 0
        GROUP BY ALL""")


class _Keys(NamedTuple):
    """SQL for a rating's dimension, unit (its columns joined by U+001F) and rater: as written
    (``raw_*``), and as the reader compares names (:func:`_name`)."""

    raw_dim: str
    raw_unit: str
    raw_rater: str
    dim: str
    unit: str
    rater: str


def _keys(columns: LongColumns) -> _Keys:
    raw_parts = [f"coalesce(CAST({quote_identifier(c)} AS VARCHAR), '')" for c in columns.unit]
    parts = [f"coalesce({_name(quote_identifier(c))}, '')" for c in columns.unit]
    return _Keys(
        raw_dim=f"CAST({quote_identifier(columns.dimension)} AS VARCHAR)" if columns.dimension else "'all'",
        raw_unit=raw_parts[0] if len(raw_parts) == 1 else " || '\x1f' || ".join(raw_parts),
        raw_rater=f"CAST({quote_identifier(columns.rater)} AS VARCHAR)",
        dim=_name(quote_identifier(columns.dimension)) if columns.dimension else "'all'",
        unit=parts[0] if len(parts) == 1 else " || '\x1f' || ".join(parts),
        rater=_name(quote_identifier(columns.rater)),
    )


def _group_names(con: DuckDBPyConnection, src: str, columns: LongColumns, keys: _Keys) -> bool:
    """The table ``g``: ratings per (dimension, unit, value) (gid 2) and per (dimension, rater,
    value) (gid 4), names normalised. True when two spellings of a unit or rater name merged."""
    # One scan, on the names as written: ratings per (unit, value) and per (rater, value).
    con.execute(f"""
        CREATE TEMP TABLE g0 AS
        SELECT d, u, r, v, count(*)::BIGINT AS n, grouping(u, r, v) AS gid
        FROM (SELECT {keys.raw_dim} AS d, {keys.raw_unit} AS u, {keys.raw_rater} AS r,
                     trim(CAST({quote_identifier(columns.value)} AS VARCHAR)) AS v FROM {src})
        GROUP BY GROUPING SETS ((d, u, v), (d, r, v))""")  # (grouped by its own names: a column may be "u")
    plain = f"'{PLAIN}'"  # printable ASCII, no surrounding space: already normal
    odd = [f"(gid = 2 AND regexp_full_match(u, {plain}) IS NOT TRUE)",
           f"(gid = 4 AND regexp_full_match(r, {plain}) IS NOT TRUE)"]
    if columns.dimension:
        odd.append(f"regexp_full_match(d, {plain}) IS NOT TRUE")
    respelled = one_row(con.execute("SELECT count(*) FROM g0 WHERE " + " OR ".join(odd)))[0]
    if not respelled:  # every name as the reader compares it already: g0 is g
        con.execute("ALTER TABLE g0 RENAME TO g")
        return False
    # Then the names as the reader compares them, on the grouped rows (far fewer than ratings);
    # plain printable ASCII names are already normal and skip the work.
    unit_norm = " || '\x1f' || ".join(
        f"{_fast_name(f'split_part(u, chr(31), {i + 1})')}" for i in range(len(columns.unit))) \
        if len(columns.unit) > 1 else _fast_name("u")
    empty_unit = "'" + "\x1f" * (len(columns.unit) - 1) + "'"
    con.execute(f"""
        CREATE TEMP TABLE g AS
        SELECT {_fast_name("d") if columns.dimension else "d"} AS d,
               nullif(nullif({unit_norm}, ''), {empty_unit}) AS u, nullif({_fast_name("r")}, '') AS r, v,
               sum(n)::BIGINT AS n, gid
        FROM g0 GROUP BY ALL""")
    merged = one_row(con.execute("""SELECT (SELECT count(DISTINCT (d, u)) FROM g0 WHERE gid = 2)
                                         - (SELECT count(DISTINCT (d, u)) FROM g WHERE gid = 2)"""))[0] \
        or one_row(con.execute("""SELECT (SELECT count(DISTINCT (d, r)) FROM g0 WHERE gid = 4)
                                       - (SELECT count(DISTINCT (d, r)) FROM g WHERE gid = 4)"""))[0]
    con.execute("DROP TABLE g0")
    return bool(merged)


def _check_names(con: DuckDBPyConnection, src: str, columns: LongColumns, keys: _Keys, merged: bool, shown: str) -> None:
    """The reader's errors, from ``g`` and a second pass: no ratings, an empty name, a rater rating
    a unit twice."""
    total = one_row(con.execute("SELECT coalesce(sum(n), 0) FROM g WHERE gid = 4"))[0]  # the (d, r, v) set
    if not total:
        raise InputError(shown, None, None, "no ratings: the files have a header but no data rows")
    # grouping(u, r, v): 2 = the (d, u, v) set, 4 = (d, r, v)
    empty = (("dimension", columns.dimension, "d IS NULL OR d = ''"), ("unit", columns.unit[0], "gid = 2 AND u IS NULL"),
             ("rater", columns.rater, "gid = 4 AND r IS NULL"))
    for what, col, cond in empty:
        if col is not None and one_row(con.execute(f"SELECT count(*) FROM g WHERE {cond}"))[0]:
            raise InputError(shown, None, col, f"an empty {what} name; every rating needs one")
    # A rater rating a unit twice: a second pass, on the names as written, or normalised when two
    # spellings merged.
    named = (f"SELECT {keys.dim} AS d, nullif({keys.unit}, '') AS u, {keys.rater} AS r FROM {src}" if merged else
             f"SELECT {keys.raw_dim} AS d, {keys.raw_unit} AS u, {keys.raw_rater} AS r FROM {src}")
    _no_rater_twice(con, src, columns, keys, named, total, shown, "g")


def _no_rater_twice(con: DuckDBPyConnection, src: str, columns: LongColumns, keys: _Keys, named: str, total: int, shown: str,
                    table: str) -> None:
    """The reader's error when a rater rated a unit twice, in a pass over the ratings ``named`` (d,
    u, r; ``total`` of them; ``table`` holds their raters in its (d, r, v) rows, gid 4). First
    grouping units only (a rater a bit); where that cannot tell, grouping by (unit, rater), which
    DuckDB spills to disk beyond its memory (in grouping sets it could not)."""
    if _each_rater_once(con, named, total, table):
        return
    twice = con.execute(f"SELECT d, u FROM ({named}) GROUP BY d, u, r HAVING count(*) > 1 LIMIT 1").fetchone()
    if twice:
        who = con.execute(f"""SELECT r FROM (SELECT {keys.rater} AS r, count(*) AS n FROM {src}
                              WHERE {keys.dim} = ? AND nullif({keys.unit}, '') = ? GROUP BY ALL) WHERE n > 1 LIMIT 1""",
                          [twice[0], twice[1]]).fetchone()
        raise InputError(shown, None, columns.rater, f"rater {excerpt(who[0] if who else '?')} rated unit "
                         f"{excerpt(unit_shown(twice[1]))} again"
                         + (f" in dimension {excerpt(twice[0])}" if columns.dimension else "")
                         + "; each rater rates a unit once")


def _each_rater_once(con: DuckDBPyConnection, named: str, total: int, table: str = "g") -> bool:
    """True when no rater rated a unit twice, found in one pass that groups units only: each
    rating's rater is one bit of a 64-bit mask per unit (the unit by its hash), so a unit with
    fewer bits than ratings may hold a rater twice, or share its hash with another unit. False
    when this cannot tell (more than 64 raters, a unit so flagged, a rating not matched to a
    rater of ``table``): the exact pass then decides."""
    raters = [r for (r,) in con.execute(f"SELECT DISTINCT r FROM {table} WHERE gid = 4 AND r IS NOT NULL LIMIT 65"
                                        ).fetchall()]
    if not 0 < len(raters) <= 64:
        return False
    con.execute("CREATE TEMP TABLE rater_bit (r VARCHAR, bit INTEGER)")
    con.executemany("INSERT INTO rater_bit VALUES (?, ?)", [(r, i) for i, r in enumerate(raters)])
    flagged, seen = one_row(con.execute(f"""
        SELECT count(*) FILTER (WHERE bit_count(b) < n), coalesce(sum(n), 0) FROM (
            SELECT hash(d, u) AS h, count(*) AS n, bit_or(1::UBIGINT << bit) AS b
            FROM ({named}) JOIN rater_bit USING (r) GROUP BY h)"""))
    con.execute("DROP TABLE rater_bit")
    return flagged == 0 and seen == total


#: The ratings per (dimension, unit, value code) of ``g`` and ``vals`` (a unit's code may come
#: from several spellings, in rows of their own): what the unit histograms are counted from.
_CODED = "(SELECT g.d AS d, g.u AS u, vals.code AS c, g.n AS n FROM g JOIN vals ON g.v = vals.v WHERE g.gid = 2)"


def _code_values(con: DuckDBPyConnection, columns: LongColumns, missing: Sequence[str], shown: str) -> tuple[Coding, list[RaterRow]]:
    """The values' texts coded by the reader's rules (the table ``vals``: text, code) and the
    ratings per (dimension, rater, value)."""
    by_rater = con.execute("SELECT d, r, v, n FROM g WHERE gid = 4").fetchall()

    def where(text: str) -> tuple[object, str]:
        row = con.execute("SELECT min(u) FROM g WHERE gid = 2 AND v = ?", [text]).fetchone()
        return (row[0] if row and row[0] is not None else "?"), first_rater(by_rater, text)

    coding = code_texts([v for _, _, v, _ in by_rater if v is not None], missing, [shown], columns.value, where)
    con.execute("CREATE TEMP TABLE vals (v VARCHAR, code INTEGER)")
    if coding.code_of:
        con.executemany("INSERT INTO vals VALUES (?, ?)", list(coding.code_of.items()))
    return coding, by_rater


def _pairs_by_pivot(con: DuckDBPyConnection, k: int, patterns: bool = False, entries: str = "uc",
                    most: int | None = None) -> tuple[list[SizeRow], list[PairRow]]:
    """Each unit's histogram as k columns, then per (dimension, unit size) the sums of n_c * n_k.
    ``entries``: the (d, u, c, n) rows counted (a code may come in several rows of a unit).
    ``patterns``: the histograms are grouped into the table ``pat`` (dimension, histogram, units),
    the unit patterns, and the sums taken from it. ``most``: no unit holds a value more often
    (its raters), which lets a histogram be grouped as one number (:func:`_packed_patterns`)."""
    hist = ", ".join(f"coalesce(sum(n) FILTER (WHERE c = {i}), 0)::BIGINT AS n{i}" for i in range(k))
    cells = pivot_cells(k)
    if not patterns:
        sums = ", ".join(f"sum(n{i} * n{j}{f' - n{i}' if i == j else ''})::HUGEINT" for i, j in cells)
        rows = con.execute(f"""
            SELECT d, m, count(*), {sums}
            FROM (SELECT d, u, sum(n)::BIGINT AS m, {hist} FROM {entries} GROUP BY d, u)
            GROUP BY d, m""").fetchall()
        return pairs_from_histograms(rows, k)
    if most is None or not _packed_patterns(con, k, entries, most + 1):
        con.execute(f"""
            CREATE TEMP TABLE pat AS
            SELECT d, m, {", ".join(f"n{i}" for i in range(k))}, count(*)::BIGINT AS units
            FROM (SELECT d, u, sum(n)::BIGINT AS m, {hist} FROM {entries} GROUP BY d, u)
            GROUP BY ALL""")
    return _pairs_of_patterns(con, k)


def _pairs_of_patterns(con: DuckDBPyConnection, k: int) -> tuple[list[SizeRow], list[PairRow]]:
    """Sizes and pairs from the unit patterns of table ``pat`` (d, m, n0.., units), and the table
    ``pat_entries`` (dimension, pattern id, units, code, count) of its pairable patterns."""
    cells = pivot_cells(k)
    sums = ", ".join(f"sum(units::HUGEINT * (n{i} * n{j}{f' - n{i}' if i == j else ''}))::HUGEINT" for i, j in cells)
    rows = con.execute(f"SELECT d, m, sum(units)::BIGINT, {sums} FROM pat GROUP BY d, m").fetchall()
    con.execute(f"""
        CREATE TEMP TABLE pat_entries AS
        SELECT d, pid, units, c, n FROM (
            SELECT d, row_number() OVER () AS pid, units, UNNEST([{", ".join(str(i) for i in range(k))}]) AS c,
                   UNNEST([{", ".join(f"n{i}" for i in range(k))}]) AS n
            FROM pat WHERE m >= 2) WHERE n > 0""")
    return pairs_from_histograms(rows, k)


def _packed_patterns(con: DuckDBPyConnection, k: int, entries: str, base: int) -> bool:
    """The table ``pat`` as :func:`_pairs_by_pivot` makes it, each unit's histogram grouped as the
    one number sum_c n_c * base^c (every n_c < base: its digits), which DuckDB groups several times
    faster than k columns. False (nothing made) where that number would not fit in a HUGEINT, or
    where a digit carried (a count of ``base`` or more: units merged by a name the repeat check read
    otherwise); carries lower the digits' sum, so equal sums prove there were none."""
    if base ** k >= 2**126:
        return False
    weights = ", ".join(f"({c}, CAST('{base ** c}' AS HUGEINT))" for c in range(k))
    digits = [_digit(base, c) for c in range(k)]
    con.execute(f"""
        CREATE TEMP TABLE pat AS
        SELECT d, {" + ".join(digits)} AS m, {", ".join(f"{x} AS n{c}" for c, x in enumerate(digits))}, units
        FROM (SELECT d, key, count(*)::BIGINT AS units
              FROM (SELECT e.d, e.u, sum(e.n * w.w)::HUGEINT AS key
                    FROM {entries} e JOIN (VALUES {weights}) w(c, w) ON e.c = w.c GROUP BY e.d, e.u)
              GROUP BY d, key)""")
    whole = one_row(con.execute(
        f"SELECT (SELECT coalesce(sum(units * m), 0) FROM pat) = (SELECT coalesce(sum(n), 0) FROM {entries})"))[0]
    if not whole:
        con.execute("DROP TABLE pat")
    return bool(whole)


def _pattern_table_by_lists(con: DuckDBPyConnection) -> None:
    """The unit patterns (pairable units' histograms, as (code, count) lists) of ``uc`` as the table
    ``pat_entries`` (dimension, pattern id, units, code, count)."""
    con.execute("""
        CREATE TEMP TABLE pat_entries AS
        SELECT d, pid, units, UNNEST(cs) AS c, UNNEST(ns) AS n FROM (
            SELECT d, cs, ns, units, row_number() OVER () AS pid FROM (
                SELECT d, cs, ns, count(*)::BIGINT AS units
                FROM (SELECT d, u, list(c ORDER BY c) AS cs, list(n ORDER BY c) AS ns FROM uc GROUP BY d, u
                      HAVING sum(n) >= 2)
                GROUP BY d, cs, ns))""")


def _fetch_patterns(con: DuckDBPyConnection, k: int) -> dict[str, UnitPatterns | None]:
    """Each dimension's unit patterns from ``pat_entries``; None for a dimension with more than
    MAX_PATTERNS (counted in DuckDB, not fetched)."""
    from agreebound.panel.counts import MAX_PATTERNS

    many = con.execute("SELECT d, count(DISTINCT pid) FROM pat_entries GROUP BY d").fetchall()
    keep = [d for d, n in many if n <= MAX_PATTERNS]
    out: dict[str, UnitPatterns | None] = {d: None for d, n in many if n > MAX_PATTERNS}
    if keep:
        got = con.execute("SELECT d, pid, units, c, n FROM pat_entries WHERE d IN (SELECT UNNEST(?)) ORDER BY pid",
                          [keep]).fetchnumpy()
        out.update(patterns_from_entries(got["d"], got["pid"], got["units"], got["c"], got["n"]))
    return out


def _pairs_by_join(con: DuckDBPyConnection) -> tuple[list[SizeRow], list[PairRow]]:
    con.execute("CREATE TEMP TABLE um AS SELECT d, u, sum(n)::BIGINT AS m FROM uc GROUP BY d, u")
    sizes = con.execute("SELECT d, m, count(*) FROM um GROUP BY d, m").fetchall()
    pairs = con.execute("""
        SELECT a.d, um.m, a.c, b.c, sum(a.n * b.n - CASE WHEN a.c = b.c THEN a.n ELSE 0 END)::HUGEINT
        FROM uc a JOIN uc b ON a.d = b.d AND a.u = b.u JOIN um ON um.d = a.d AND um.u = a.u
        WHERE um.m >= 2 GROUP BY a.d, um.m, a.c, b.c""").fetchall()
    return sizes, pairs


def _most_disagreeing_units(con: DuckDBPyConnection, whole: PanelCounts, level: Level, k: int, top: int) -> list[tuple[str, float]]:
    """The ``top`` units of the staged (unit, rater, code) counts ``urc`` that disagree most: DuckDB
    counts each unit's histogram and the distinct histograms; their disagreement is measured in
    Python (engines.common.most_disagreeing), and DuckDB then names the units that hold them."""
    cols = ", ".join(f"n{i}" for i in range(k))
    hist = ", ".join(f"coalesce(sum(n) FILTER (WHERE c = {i}), 0)::BIGINT AS n{i}" for i in range(k))
    con.execute(f"CREATE TEMP TABLE uh AS SELECT u, {hist} FROM urc GROUP BY u HAVING sum(n) >= 2")
    found = con.execute(f"SELECT {cols}, count(*) FROM uh GROUP BY ALL")
    chosen = most_disagreeing(iter(lambda: found.fetchmany(100_000), []), whole, level, top)
    con.execute(f"CREATE TEMP TABLE chosen AS SELECT {cols}, 0::DOUBLE AS x FROM uh LIMIT 0")
    if chosen:
        con.executemany(f"INSERT INTO chosen VALUES ({', '.join('?' * (k + 1))})", [(*h, x) for h, x in chosen])
    return [(u, float(x)) for u, x in con.execute(f"""
        SELECT uh.u, chosen.x FROM uh JOIN chosen USING ({cols}) ORDER BY chosen.x DESC, uh.u
        LIMIT {int(top)}""").fetchall()]


def rater_diagnostics(paths: Sequence[str], columns: LongColumns, dimension: str, level: Level, *,
                      missing: Sequence[str] = (), top: int = 10, max_raters: int = 50,
                      delimiter: str | None = None) -> tuple[dict[str, Fraction | None], list[tuple[str, float]]]:
    """Leave-one-rater-out alpha (one pass per rater over the staged (unit, rater, value) counts;
    none above ``max_raters``) and the ``top`` units contributing most disagreement (true distances,
    as in memory), for one dimension. Computed out of core, like the counts."""
    import shutil

    import duckdb

    from agreebound.panel.alpha import alpha as alpha_of
    from agreebound.panel.alpha import alpha_without_each_rater

    files = input_files(paths)
    con, spill = connect()
    try:
        parts = [f"coalesce({_name(quote_identifier(c))}, '')" for c in columns.unit]
        unit = " || '\x1f' || ".join(parts)
        dim = _name(quote_identifier(columns.dimension)) if columns.dimension else "'all'"
        con.execute(f"""
            CREATE TEMP TABLE g AS
            SELECT {unit} AS u, {_name(quote_identifier(columns.rater))} AS r,
                   trim(CAST({quote_identifier(columns.value)} AS VARCHAR)) AS v, count(*)::BIGINT AS n
            FROM {source(literal_paths(files, spill), delimiter)} WHERE {dim} = ? GROUP BY ALL""", [dimension])
        texts = [t for (t,) in con.execute("SELECT DISTINCT v FROM g WHERE v IS NOT NULL").fetchall()]
        coding = code_texts(texts, missing, files, columns.value, lambda t: ("?", "?"))
        raters = sorted(r for (r,) in con.execute("SELECT DISTINCT r FROM g").fetchall())
        con.execute("CREATE TEMP TABLE vals (v VARCHAR, code INTEGER)")
        if coding.code_of:
            con.executemany("INSERT INTO vals VALUES (?, ?)", list(coding.code_of.items()))
        con.execute("""CREATE TEMP TABLE urc AS SELECT g.u, g.r, vals.code AS c, sum(g.n)::BIGINT AS n
                       FROM g JOIN vals ON g.v = vals.v GROUP BY ALL""")
        k = len(coding.values)

        def counts_without(rater: str | None) -> PanelCounts:
            con.execute("DROP TABLE IF EXISTS uc")
            con.execute("CREATE TEMP TABLE uc AS SELECT 'x' AS d, u, c, sum(n)::BIGINT AS n FROM urc "
                        "WHERE r IS DISTINCT FROM ? GROUP BY u, c", [rater])
            sizes, pairs = _pairs_by_pivot(con, k) if 0 < k <= PIVOT_MAX_CATEGORIES else _pairs_by_join(con)
            con.execute("DROP TABLE IF EXISTS um")
            return unit_counts(dimension, coding, sizes, pairs)

        without = alpha_without_each_rater(raters, counts_without, level, max_raters)
        units: list[tuple[str, float]] = []
        if 0 < k <= PIVOT_MAX_CATEGORIES:
            whole = counts_without(None)
            if alpha_of(whole, level).value is not None:
                units = _most_disagreeing_units(con, whole, level, k, top)
    except duckdb.Error as e:
        name = os.path.basename(files[0])
        raise InputError(name, None, None, duckdb_said(e, name, files, spill)) from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)
    return without, units


def rating_triples(paths: Sequence[str], columns: LongColumns = LongColumns(), *, missing: Sequence[str] = (),
                   dimensions: Sequence[str] | None = None, limit: int = MAX_STUDY_RATINGS, threads: int | None = None,
                   memory_limit: str | None = None, delimiter: str | None = None, display: str | None = None
                   ) -> tuple[Coding, dict[str, RatingTriples]]:
    """The long ratings in ``paths`` as ``GROUP BY dimension, unit, rater, value COUNT(*)`` per
    dimension (those named in ``dimensions``, or every one), for the annotation study: the values'
    texts coded by the reader's rules (the returned :class:`Coding`, as :func:`panel_counts` codes
    them), names as the reader compares them, units and raters numbered in the order of their
    first row in the files (DuckDB counts the rows in file order: ``row_number() OVER ()`` with
    insertion order kept), as the in-memory reader numbers them; the dimensions in that order too.

    What comes back is one row per (unit, rater, value): every rating, as three int arrays and a
    count; more than ``limit`` coded ratings is an InputError (:func:`refuse_large_study`) before any
    is fetched. The reader's refusals (a rater rating a unit twice, empty names, a bad value) are
    :func:`panel_counts`'s, which runs first in the pipeline; here a repeat counts twice."""
    import shutil

    import duckdb
    import numpy as np

    files = input_files(paths)
    shown = display or (files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)")
    con, spill = connect(threads, memory_limit, ordered=True)
    try:
        src = source(literal_paths(files, spill), delimiter)
        have = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src} LIMIT 0").fetchall()]
        check_columns([shown], have, columns)
        keys = _keys(columns)
        # one scan: each (unit, rater, value) as written, its ratings and its first row
        con.execute(f"""
            CREATE TEMP TABLE t0 AS
            SELECT d, u, r, v, count(*)::BIGINT AS n, min(i)::BIGINT AS f
            FROM (SELECT {keys.raw_dim} AS d, {keys.raw_unit} AS u, {keys.raw_rater} AS r,
                         trim(CAST({quote_identifier(columns.value)} AS VARCHAR)) AS v, row_number() OVER () AS i
                  FROM {src})
            GROUP BY d, u, r, v""")
        # then the names as the reader compares them, on the grouped rows
        unit_norm = " || '\x1f' || ".join(
            f"{_fast_name(f'split_part(u, chr(31), {i + 1})')}" for i in range(len(columns.unit))) \
            if len(columns.unit) > 1 else _fast_name("u")
        empty_unit = "'" + "\x1f" * (len(columns.unit) - 1) + "'"
        chosen = "WHERE d IN (SELECT UNNEST(?))" if dimensions is not None else ""
        con.execute(f"""
            CREATE TEMP TABLE t AS SELECT * FROM (
                SELECT {_fast_name("d") if columns.dimension else "d"} AS d,
                       nullif(nullif({unit_norm}, ''), {empty_unit}) AS u, nullif({_fast_name("r")}, '') AS r, v,
                       sum(n)::BIGINT AS n, min(f) AS f
                FROM t0 GROUP BY ALL) {chosen}""", [list(dimensions)] if dimensions is not None else [])
        con.execute("DROP TABLE t0")
        texts = [v for (v,) in con.execute("SELECT DISTINCT v FROM t WHERE v IS NOT NULL").fetchall()]

        def where(text: str) -> tuple[object, str]:
            row = con.execute("SELECT min(u), min(r) FROM t WHERE v = ?", [text]).fetchone()
            return (row[0], row[1]) if row and row[0] is not None else ("?", "?")

        coding = code_texts(texts, missing, [shown], columns.value, where)
        con.execute("CREATE TEMP TABLE vals (v VARCHAR, code INTEGER)")
        if coding.code_of:
            con.executemany("INSERT INTO vals VALUES (?, ?)", list(coding.code_of.items()))
        total = one_row(con.execute("SELECT coalesce(sum(n), 0) FROM t JOIN vals USING (v)"))[0]
        refuse_large_study(int(total), shown, limit)
        for name, col in (("un", "u"), ("ra", "r")):  # each name's number: the order of its first row
            con.execute(f"""CREATE TEMP TABLE {name} AS
                            SELECT d, {col}, (row_number() OVER (PARTITION BY d ORDER BY min(f)) - 1)::BIGINT AS i
                            FROM t GROUP BY d, {col}""")
        units: dict[str, list[str]] = {}
        raters: dict[str, list[str]] = {}
        for table, out in (("un", units), ("ra", raters)):
            for d, x in con.execute(f"SELECT * EXCLUDE (i) FROM {table} ORDER BY d, i").fetchall():
                out.setdefault(d, []).append(x)
        found: dict[str, RatingTriples] = {}
        for (d,) in con.execute("SELECT d FROM t GROUP BY d ORDER BY min(f)").fetchall():
            got = con.execute("""
                SELECT un.i AS u, ra.i AS r, vals.code AS c, sum(t.n)::BIGINT AS n
                FROM t JOIN vals USING (v) JOIN un USING (d, u) JOIN ra USING (d, r)
                WHERE t.d = ? GROUP BY ALL ORDER BY u, r, c""", [d]).fetchnumpy()
            found[d] = RatingTriples(d, tuple(unit_shown(u) for u in units[d]), tuple(raters[d]),
                                     *(np.asarray(got[c], dtype=np.int64) for c in ("u", "r", "c", "n")))
    except duckdb.Error as e:
        raise InputError(shown, None, None, duckdb_said(e, shown, files, spill)) from None
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)
    return coding, found
