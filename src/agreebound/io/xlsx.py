"""A workbook's sheet, streamed: every cell counted while the XML is read, within the limits.

openpyxl builds each whole row before a caller can count it (a 3 MB workbook whose one row holds
60 million cells took 5.9 GB), trusts the sheet's ``<dimension>`` in read-only mode (a stale one
silently cut 400 ratings to 10) and keeps whitespace between elements as element text (1.9 GB of
padding held in memory). This reader parses the parts itself with expat, one 64 KiB chunk at a
time:

- every member is inflated through :mod:`agreebound.io.archive`, which counts the bytes as they
  come out against a limit per kind of member (and the archive's total), whatever the header says;
- a row holds at most :data:`MAX_COLUMNS` cells and a column index past Excel's last column is
  refused; cells are counted over the sheet (:data:`MAX_CELLS`), rows likewise;
- a cell's text is at most Excel's own 32,767 characters; a shared-string table at most
  :data:`MAX_SHARED_STRINGS` entries;
- a document type declaration (the door to entity expansion and external entities) is refused:
  no part of an Office Open XML package has one;
- the rows read are the rows the sheet's XML holds, whatever ``<dimension>`` claims.

Values read as openpyxl reads them with ``data_only=True`` (the cached results of formulas):
numbers as int or float, dates by the cell's number format (1900 or 1904 epoch), booleans,
error codes as their text, shared and inline strings (rich text runs joined, phonetic runs left
out). A test holds the two readers equal on every workbook of the exports corpus.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, NoReturn, TypeAlias
from xml.parsers import expat

from agreebound.core.errors import InputError
from agreebound.io.archive import Archive, Member, open_archive
from agreebound.core.escape import excerpt
from agreebound.core.interrupt import checkpoint
from agreebound.core.limits import (
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_SHARED_STRINGS,
    MAX_XLSX_PART_BYTES,
    MAX_XLSX_SHEET_BYTES,
    MAX_XLSX_TEXT_CHARS,
    MAX_XLSX_STRINGS_BYTES,
    XLSX_CELL_CHARS,
)

if TYPE_CHECKING:
    import datetime as dt

CHUNK = 1 << 16
EXCEL_COLUMNS = 16_384
EXCEL_ROWS = 1_048_576
_REF = re.compile(r"([A-Za-z]{1,3})?(\d+)?")


class _Refused(Exception):
    """Raised inside an expat handler; carries the InputError out of the parser."""

    def __init__(self, error: InputError) -> None:
        super().__init__(str(error))
        self.error = error


#: A cell's value as the sheet holds it: text, a number, true/false, a date or time (a date style's
#: number, or an ISO date cell), or None.
CellValue: TypeAlias = "str | int | float | bool | dt.datetime | dt.date | dt.time | dt.timedelta | None"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _feed(name: str, part: str, stream: Member, start: Callable[[str, dict[str, str]], None],
          end: Callable[[str], None] | None = None, text: Callable[[str], None] | None = None) -> Iterator[None]:
    """Feed one member to expat a chunk at a time, yielding after each; handlers get local names.
    Bad XML, a DTD or a damaged member is the file's fault."""
    p = expat.ParserCreate(namespace_separator="}")
    p.buffer_text = True
    p.buffer_size = CHUNK

    def doctype(*_: object) -> None:
        raise _Refused(InputError(name, None, None, f"the workbook's {part} declares a document type (DTD); an "
                                  ".xlsx part never does, and entities are not expanded"))

    p.StartDoctypeDeclHandler = doctype
    p.EntityDeclHandler = doctype
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    p.StartElementHandler = lambda tag, attrs: start(_local(tag), attrs)
    if end is not None:
        p.EndElementHandler = lambda tag: end(_local(tag))
    if text is not None:
        p.CharacterDataHandler = text
    while True:
        try:
            chunk = stream.read(CHUNK)
            p.Parse(chunk, not chunk)
        except _Refused as e:
            raise e.error from None
        except expat.ExpatError as e:
            raise InputError(name, None, None, f"the workbook's {part} is not well-formed XML "
                             f"({expat.ErrorString(e.code)}, line {e.lineno}, column {e.offset + 1})") from None
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, NotImplementedError) as e:
            # RuntimeError: an encrypted member; the rest: a damaged one
            raise InputError(name, None, None, f"the workbook's {part} cannot be unpacked ({excerpt(str(e), 80)})") from None
        except (LookupError, ValueError) as e:  # an encoding expat does not know; a value no cell can hold
            raise InputError(name, None, None, f"the workbook's {part} cannot be read ({excerpt(str(e), 80)})") from None
        yield None
        if not chunk:
            return


def _parse(name: str, part: str, stream: Member, start: Callable[[str, dict[str, str]], None],
           end: Callable[[str], None] | None = None, text: Callable[[str], None] | None = None) -> None:
    for _ in _feed(name, part, stream, start, end, text):
        checkpoint()


@dataclass
class Workbook:
    """What a sheet's cells need: the sheets (name -> part), shared strings, date styles, epoch."""

    name: str
    archive: Archive
    sheets: dict[str, str]
    strings_part: str | None
    styles_part: str | None
    date1904: bool
    _strings: list[str] | None = None
    _styles: tuple[set[int], set[int]] | None = None
    text_held: int = 0  # characters of text kept (shared strings, cells), against MAX_XLSX_TEXT_CHARS

    @property
    def zf(self) -> zipfile.ZipFile:
        return self.archive.zf

    def hold(self, chars: int) -> None:
        """Count text about to be kept: 30,000 cells of 32,767 characters each are a 2 MB file."""
        self.text_held += chars
        if self.text_held > MAX_XLSX_TEXT_CHARS:
            raise _Refused(InputError(self.name, None, None, f"the workbook holds more than {MAX_XLSX_TEXT_CHARS:,} "
                                      f"characters of text; the limit is {MAX_XLSX_TEXT_CHARS:,}"))

    def member(self, part: str, what: str, limit: int) -> Member:
        try:
            info = self.zf.getinfo(part)
        except KeyError:
            raise InputError(self.name, None, None, f"the workbook lists {what} ({excerpt(part, 60)}) "
                             "but does not hold it") from None
        return self.archive.open(info, what, limit)

    def strings(self) -> list[str]:
        if self._strings is None:
            self._strings = [] if self.strings_part is None else _shared_strings(self)
        return self._strings

    def styles(self) -> tuple[set[int], set[int]]:
        if self._styles is None:
            self._styles = (set(), set()) if self.styles_part is None else _date_styles(self)
        return self._styles


def _rels(book: Workbook, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id -> (type's last word, target part)."""
    folder, base = posixpath.split(part)
    rels_part = posixpath.join(folder, "_rels", base + ".rels")
    out: dict[str, tuple[str, str]] = {}
    if rels_part not in book.zf.NameToInfo:
        return out

    def start(tag: str, a: dict[str, str]) -> None:
        if tag == "Relationship" and "Id" in a and "Target" in a:
            target = a["Target"]
            target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
            out[a["Id"]] = (a.get("Type", "").rsplit("/", 1)[-1], target)

    with book.member(rels_part, "relationships", MAX_XLSX_PART_BYTES) as f:
        _parse(book.name, "relationships", f, start)
    return out


def open_workbook(name: str, data: bytes) -> Workbook:
    archive = open_archive(name, data, "workbook")
    zf = archive.zf
    book = Workbook(name, archive, {}, None, None, False)
    root = _rels(book, "")
    workbook_part = next((t for kind, t in root.values() if kind == "officeDocument"), "xl/workbook.xml")
    if workbook_part not in zf.NameToInfo:
        raise InputError(name, None, None, "not a readable .xlsx file (it has no workbook part)")
    rels = _rels(book, workbook_part)
    order: list[tuple[str, str]] = []

    def start(tag: str, a: dict[str, str]) -> None:
        if tag == "sheet":
            rid = next((v for k, v in a.items() if _local(k) == "id"), None)
            if rid in rels:
                order.append((a.get("name", rid or ""), rels[rid][1]))
        elif tag == "workbookPr":
            book.date1904 = a.get("date1904", "0").lower() in ("1", "true", "on")

    with book.member(workbook_part, "workbook part", MAX_XLSX_PART_BYTES) as f:
        _parse(name, "workbook part", f, start)
    if not order:
        raise InputError(name, None, None, "the workbook has no sheets")
    book.sheets = dict(order)
    book.strings_part = next((t for kind, t in rels.values() if kind == "sharedStrings"), None)
    book.styles_part = next((t for kind, t in rels.values() if kind == "styles"), None)
    return book


class _TextRuns:
    """Collects a string item's text: ``<t>`` directly in it or in a rich-text run ``<r>``, never
    a phonetic run ``<rPh>``; at most Excel's 32,767 characters."""

    def __init__(self, name: str, what: str, hold: Callable[[int], None]) -> None:
        self.name, self.what, self.hold = name, what, hold
        self.parts: list[str] = []
        self.size = 0
        self.in_t = False
        self.phonetic = 0

    def start(self, tag: str) -> None:
        if tag == "rPh":
            self.phonetic += 1
        elif tag == "t" and not self.phonetic:
            self.in_t = True

    def end(self, tag: str) -> None:
        if tag == "rPh":
            self.phonetic -= 1
        elif tag == "t":
            self.in_t = False

    def text(self, s: str) -> None:
        if self.in_t:
            self.size += len(s)
            if self.size > XLSX_CELL_CHARS:
                raise _Refused(InputError(self.name, None, None, f"{self.what} holds more than {XLSX_CELL_CHARS:,} "
                                          "characters, Excel's own limit for a cell"))
            self.hold(len(s))
            self.parts.append(s)

    def take(self) -> str:
        s = "".join(self.parts)
        self.parts, self.size, self.in_t, self.phonetic = [], 0, False, 0
        return s


def _shared_strings(book: Workbook) -> list[str]:
    strings: list[str] = []
    runs = _TextRuns(book.name, "a shared string", book.hold)
    depth = [0]

    def start(tag: str, _a: dict[str, str]) -> None:
        if tag == "si":
            depth[0] += 1
            if len(strings) >= MAX_SHARED_STRINGS:
                raise _Refused(InputError(book.name, None, None, f"the workbook holds more than "
                                          f"{MAX_SHARED_STRINGS:,} distinct texts; the limit is {MAX_SHARED_STRINGS:,}"))
        elif depth[0]:
            runs.start(tag)

    def end(tag: str) -> None:
        if tag == "si":
            depth[0] -= 1
            strings.append(runs.take().replace("x005F_", ""))
        elif depth[0]:
            runs.end(tag)

    assert book.strings_part is not None
    with book.member(book.strings_part, "shared strings", MAX_XLSX_STRINGS_BYTES) as f:
        _parse(book.name, "shared strings", f, start, end, runs.text)
    return strings


def _date_styles(book: Workbook) -> tuple[set[int], set[int]]:
    """Which cell styles (``s=``) show numbers as dates, and which of those as durations."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

    custom: dict[int, str] = {}
    xf_formats: list[int] = []
    where = [""]

    def start(tag: str, a: dict[str, str]) -> None:
        # a cell's formats only: <numFmts> (not <dxfs>, conditional formats that may reuse an id)
        if tag == "numFmt" and where[0] == "numFmts" and (fmt_id := _number(a.get("numFmtId"))) is not None:
            custom[fmt_id] = a.get("formatCode", "")
        elif tag in ("cellXfs", "cellStyleXfs", "numFmts", "dxfs"):
            where[0] = tag
        elif tag == "xf" and where[0] == "cellXfs":
            xf_formats.append(_number(a.get("numFmtId")) or 0)

    def end(tag: str) -> None:
        if tag in ("cellXfs", "cellStyleXfs", "numFmts", "dxfs"):
            where[0] = ""

    assert book.styles_part is not None
    with book.member(book.styles_part, "styles", MAX_XLSX_PART_BYTES) as f:
        _parse(book.name, "styles", f, start, end)
    dates: set[int] = set()
    durations: set[int] = set()
    for i, fid in enumerate(xf_formats):
        code = custom.get(fid, BUILTIN_FORMATS.get(fid))
        if code is None:
            continue
        if is_date_format(code):
            dates.add(i)
        if is_timedelta_format(code):
            durations.add(i)
    return dates, durations


def _number(text: str | None) -> int | None:
    """A whole number as OOXML writes one (ASCII digits, at most 10), else None."""
    if text and len(text) <= 10 and text.isascii() and text.isdigit():
        return int(text)
    return None


def _column_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


class _SheetReader:
    """expat handlers for one sheet: rows completed while a chunk is parsed wait in ``done``."""

    def __init__(self, book: Workbook, sheet: str) -> None:
        self.name, self.sheet = book.name, sheet
        self.book = book
        self.strings: list[str] | None = None
        self.dates, self.durations = book.styles()
        self.done: list[tuple[int, tuple[CellValue, ...]]] = []
        self.row_no = 0
        self.row: dict[int, CellValue] | None = None
        self.col = 0
        self.cells = 0
        self.rows = 0
        self.cell: tuple[str, int, int] | None = None  # (type, style, column)
        self.value: list[str] = []
        self.value_size = 0
        self.in_value = False
        self.inline: _TextRuns | None = None
        from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

        self.epoch = CALENDAR_MAC_1904 if book.date1904 else CALENDAR_WINDOWS_1900

    def refuse(self, reason: str, column: int | None = None) -> NoReturn:
        col = None if column is None else _letters(column)
        raise _Refused(InputError(self.name, self.row_no or None, col, f"sheet {excerpt(self.sheet)}: {reason}"))

    def start(self, tag: str, a: dict[str, str]) -> None:
        if tag == "c" and self.row is not None:
            ref = a.get("r")
            if ref:
                m = _REF.fullmatch(ref)
                if m is None or not m.group(1):
                    self.refuse(f"a cell reference {excerpt(ref)} that is not a cell")
                col = _column_index(m.group(1))
            else:
                col = self.col + 1
            if col > EXCEL_COLUMNS or col > MAX_COLUMNS:
                self.refuse(f"a cell past the last column ({_letters(min(EXCEL_COLUMNS, MAX_COLUMNS))}): more cells in "
                            "one row than a sheet holds", col)
            self.col = col
            self.cells += 1
            if len(self.row) >= MAX_COLUMNS:
                self.refuse(f"more than {MAX_COLUMNS:,} cells in one row; the limit is {MAX_COLUMNS:,}", col)
            if self.cells > MAX_CELLS:
                self.refuse(f"more than {MAX_CELLS:,} cells; the limit is {MAX_CELLS:,}", col)
            self.cell = (a.get("t", "n"), _number(a.get("s")) or 0, col)
            self.value, self.value_size = [], 0
        elif tag == "row":
            given = _number(a.get("r"))
            self.row_no = given if given is not None else self.row_no + 1
            if self.row_no > EXCEL_ROWS:
                self.refuse(f"a row numbered past Excel's last row ({EXCEL_ROWS:,})")
            self.rows += 1
            if self.rows > MAX_ROWS:
                self.refuse(f"more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}")
            self.row, self.col = {}, 0
        elif self.cell is not None:
            if tag == "v":
                self.in_value = True
            elif tag == "is":
                self.inline = _TextRuns(self.name, f"cell {_letters(self.cell[2])}{self.row_no}", self.book.hold)
            elif self.inline is not None:
                self.inline.start(tag)

    def end(self, tag: str) -> None:
        if tag == "c" and self.cell is not None and self.row is not None:
            kind, style, col = self.cell
            raw = "".join(self.value) if self.value else None
            value = self._value(kind, style, col, raw)
            if value is not None:
                self.row[col] = value
            self.cell, self.inline, self.in_value = None, None, False
        elif tag == "row" and self.row is not None:
            if self.row:
                width = max(self.row)
                self.done.append((self.row_no, tuple(self.row.get(c) for c in range(1, width + 1))))
            self.row = None
        elif tag == "v":
            self.in_value = False
        elif self.inline is not None:
            self.inline.end(tag)

    def text(self, s: str) -> None:
        if self.in_value:
            self.value_size += len(s)
            if self.value_size > XLSX_CELL_CHARS:
                self.refuse(f"a cell holds more than {XLSX_CELL_CHARS:,} characters, Excel's own limit",
                            self.cell[2] if self.cell else None)
            self.book.hold(len(s))
            self.value.append(s)
        elif self.inline is not None:
            self.inline.text(s)

    def _value(self, kind: str, style: int, col: int, raw: str | None) -> CellValue:
        if kind == "inlineStr":
            return self.inline.take() if self.inline is not None else None
        if not raw:
            return None
        try:
            if kind == "n":
                number: int | float = float(raw) if ("." in raw or "e" in raw or "E" in raw) else int(raw)
                if style in self.dates:
                    from openpyxl.utils.datetime import from_excel

                    try:
                        return from_excel(number, self.epoch, timedelta=style in self.durations)
                    except (OverflowError, ValueError):
                        return "#VALUE!"
                return number
            if kind == "s":
                if self.strings is None:
                    self.strings = self.book.strings()
                return self.strings[int(raw)]
            if kind == "b":
                return bool(int(raw))
            if kind == "d":
                from openpyxl.utils.datetime import from_ISO8601

                return from_ISO8601(raw)
        except (ValueError, IndexError, TypeError):
            self.refuse(f"a cell of type {excerpt(kind)} holds {excerpt(raw)}, which that type cannot hold", col)
        return raw  # "str" (a formula's text), "e" (an error code), or a type Excel does not write


def _letters(col: int) -> str:
    s = ""
    while col > 0:
        col, r = divmod(col - 1, 26)
        s = chr(65 + r) + s
    return s


def iter_rows(book: Workbook, sheet: str) -> Iterator[tuple[int, tuple[CellValue, ...]]]:
    """(row number as the sheet shows it, the row's values from column A to its last cell), for
    every row with a cell that holds a value, in order."""
    reader = _SheetReader(book, sheet)
    if book.strings_part is not None:  # the shared strings first: one member inflating at a time
        reader.strings = book.strings()
    with book.member(book.sheets[sheet], f"sheet {excerpt(sheet)}", MAX_XLSX_SHEET_BYTES) as stream:
        for _ in _feed(book.name, f"sheet {excerpt(sheet)}", stream, reader.start, reader.end, reader.text):
            rows, reader.done = reader.done, []
            yield from rows
            checkpoint()
