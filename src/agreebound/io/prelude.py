"""What comes before a CSV's data, as tools write it: found from the head of the text, said in
words, and undone before the reader sees the file.

* Excel's delimiter hint ``sep=;`` on the first line;
* empty lines, lines of delimiters only (``,,,,``) and ``#`` comment lines above the header;
* a title line above the header (one cell filled, the next line a real header);
* pandas' column MultiIndex / ``pivot()`` without ``values=`` / ``unstack()``: two or three
  header lines (``,rating,rating`` / ``annotator,A,B`` / ``item,,``) read as one header;
* R's ``write.table`` with row names: the header one cell short of the rows;
* Qualtrics: two description rows under the header (question text, ``{"ImportId": ...}``).

The physical line numbers of the file are kept for messages (:attr:`Prelude.line_offset`).

>>> p = prelude("sep=;\\nunit;a;b\\nu1;1;2\\n", None)
>>> (p.skip, p.delimiter, p.notices[0])
(1, ';', "the first line 'sep=;' names the delimiter (Excel's hint)")
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from agreebound.io.sniff import sniff_delimiter

_SEP = re.compile(r'^"?sep=(.)"?\s*$')
QUALTRICS = '{"ImportId":'


@dataclass(frozen=True)
class Prelude:
    skip: int = 0  # physical lines before the header line(s)
    header_span: int = 1  # physical lines the header takes (pandas MultiIndex columns: 2 or 3)
    header: list[str] | None = None  # the header cells, when rewritten (joined levels, R's missing cell)
    delimiter: str | None = None  # from a sep= line, or sniffed after the skipped lines
    drop_records: int = 0  # data records right under the header that are not data (Qualtrics)
    notices: tuple[str, ...] = field(default=())

    @property
    def line_offset(self) -> int:
        """Physical lines removed before the data (the rewritten header stands in for its span)."""
        return self.skip + self.header_span - 1

    @property
    def changes(self) -> bool:
        return bool(self.skip or self.header_span != 1 or self.header is not None)


def _cells(line: str, delimiter: str) -> list[str]:
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return line.split(delimiter)


def _blank(line: str) -> bool:
    return not line.strip().strip(",;\t|\"'").strip()


def prelude(head: str, delimiter: str | None) -> Prelude:
    """The prelude of a CSV text whose first lines are ``head``; ``delimiter``: given by the user
    (None: sniffed here, after the lines that are not the table)."""
    lines = head.splitlines()
    if len(lines) > 1 and not head.endswith(("\n", "\r")):
        lines = lines[:-1]  # the last line of a head may be cut
    notices: list[str] = []
    i = 0
    given = delimiter
    if lines and (m := _SEP.match(lines[0])):
        given = given or m.group(1)
        notices.append(f"the first line {lines[0].strip()!r} names the delimiter (Excel's hint)")
        i = 1
    comments = blanks = 0
    while i < len(lines) and (_blank(lines[i]) or lines[i].lstrip().startswith("#")):
        if lines[i].lstrip().startswith("#"):
            comments += 1
        else:
            blanks += 1
        i += 1
    if comments:
        notices.append(f"{comments} comment line{'s' if comments > 1 else ''} (#) above the header skipped")
    if blanks and i < len(lines):
        notices.append(f"{blanks} empty line{'s' if blanks > 1 else ''} above the header skipped")
    if i >= len(lines):
        return Prelude(delimiter=given or sniff_delimiter(head), notices=tuple(notices))
    delim = given or sniff_delimiter("\n".join(lines[i:]) + "\n")
    rows = [_cells(line, delim) for line in lines[i:i + 60]]
    plan = plan_rows(rows)
    if plan.skip and delim != given:  # a title line can hide the delimiter: sniff again below it
        delim2 = sniff_delimiter("\n".join(lines[i + plan.skip:]) + "\n")
        if delim2 != delim:
            delim = delim2
            plan = plan_rows([_cells(line, delim) for line in lines[i:i + 60]])
    return Prelude(i + plan.skip, plan.header_span, plan.header, delim, plan.drop_records,
                   tuple(notices) + plan.notices)


def plan_rows(rows: list[list[str]]) -> Prelude:
    """What of the first ``rows`` (cells as text) is not data: a title above the header, header
    levels to read as one, R's one-short header, Qualtrics' description rows. CSV and Excel alike;
    ``skip`` counts rows here."""
    notices: list[str] = []
    if not rows:
        return Prelude()
    skip = 0
    first = rows[0]
    filled = [c for c in first if c.strip()]
    if len(filled) == 1 and first[0].strip() and len(rows) > 2:
        j = 1
        while j < len(rows) and all(not c.strip() for c in rows[j]):
            j += 1
        names = [c.strip() for c in rows[j]] if j < len(rows) else []
        if j < len(rows) - 1 and sum(bool(c) for c in names) >= 3 and not any(_number(c) for c in names):
            notices.append(f"the first line {first[0].strip()[:60]!r} is a title, not the header: skipped")
            skip = j
    rows = rows[skip:]
    header_span, header = 1, None
    lead = 1 if rows and rows[0] and not rows[0][0].strip() else 0  # an index column's empty corner
    # pandas MultiIndex columns: levels whose names repeat, then the last level (distinct).
    if len(rows) > 2 and _level(rows[0][lead:], rows[1][lead:]):
        k = 1
        while k < min(len(rows) - 1, 4) and _level(rows[k][lead:], rows[k + 1][lead:]):
            k += 1
        last = rows[k]
        if len(last) == len(rows[0]) and all(c.strip() for c in last[lead:]) and not _repeats(last[lead:]) \
                and not all(_number(c) for c in last[lead:]) and not _recurs(rows[1:k + 1], rows[k + 1:], lead):
            names = [c.strip() for c in last[lead:]]
            span = k + 1
            header = names
            if lead:
                unit = last[0].strip()
                index_row = rows[k + 1] if len(rows) > k + 1 else []
                if index_row and index_row[0].strip() and not any(c.strip() for c in index_row[1:]):
                    unit, span = index_row[0].strip(), span + 1  # pandas writes the index name on its own line
                header = [unit] + names
            header_span = span
            notices.append(f"{k + 1} header lines (column levels {', '.join(repr(r[lead]) for r in rows[:k])} over "
                           f"{names[0]!r}, ...) read as one header")
    elif len(rows) > 2:
        # R's write.table(row.names = TRUE): the header is one cell short of the rows.
        widths = {len(r) for r in rows[1:]}
        if len(widths) == 1 and len(rows[0]) == widths.pop() - 1:
            header = [""] + rows[0]
            notices.append("the header has one name fewer than the rows (R's write.table with row names): the "
                           "first column names the rows")
    drop = 0
    data_rows = rows[header_span:]
    if len(data_rows) >= 2 and any(c.startswith(QUALTRICS) for c in data_rows[1]):
        drop = 2
        notices.append("a Qualtrics export: its two description rows under the header (question text, import "
                       "ids) skipped")
    return Prelude(skip, header_span, header, None, drop, tuple(notices))


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _level(cells: list[str], below: list[str]) -> bool:
    """A header level over the row ``below``: its names repeat (CSV), or are merged cells that
    span several below (Excel: filled once, then empty)."""
    filled = sum(bool(c.strip()) for c in cells)
    full = len(below) > 1 and all(c.strip() and not _number(c) for c in below)  # a row of names
    return _repeats(cells) or (full and 0 < filled < len(below) and bool(cells[0].strip()))


def _recurs(levels: list[list[str]], below: list[list[str]], lead: int) -> bool:
    """A cell of the would-be header levels met again in its column below: data, not a level
    (``unit,rater,value,value`` over ``u0,alice,0,1``: a duplicated column name, not a MultiIndex,
    whose rows are ``u0`` again and again), so the header is read as it is and its duplicate named."""
    for j in range(lead, max((len(r) for r in levels), default=0)):
        cells = {r[j].strip() for r in levels if len(r) > j and r[j].strip()}
        if cells and any(len(r) > j and r[j].strip() in cells for r in below):
            return True
    return False


def _repeats(cells: list[str]) -> bool:
    named = [c for c in cells if c.strip()]
    return len(named) >= 2 and len(set(named)) < len(named)


def rewrite(data: bytes, p: Prelude) -> bytes:
    """The UTF-8 CSV bytes without the prelude: the header line first (rewritten when needed)."""
    if not p.changes:
        return data
    at = 0
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        at = 3
    for _ in range(p.skip + (p.header_span if p.header is not None else 0)):
        nxt = _line_end(data, at)
        if nxt < 0:
            return data[:0]
        at = nxt
    if p.header is None:
        return data[at:]
    buf = io.StringIO()
    csv.writer(buf, delimiter=p.delimiter or ",", lineterminator="\n").writerow(p.header)
    return buf.getvalue().encode("utf-8") + data[at:]


def _line_end(data: bytes, at: int) -> int:
    """Just past the line starting at ``at`` (\\n, \\r\\n or \\r), or -1 at the end."""
    n = data.find(b"\n", at)
    r = data.find(b"\r", at)
    if r >= 0 and (n < 0 or r < n):
        return r + 2 if data[r + 1:r + 2] == b"\n" else r + 1
    return -1 if n < 0 else n + 1
