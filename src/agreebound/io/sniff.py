"""What a file is, before it is read: format, text encoding, delimiter. Pure, from the bytes.

:class:`Peek` is what :mod:`agreebound.io.registry`'s recognisers look at: a file's name, its
bytes, what :func:`sniff` says of them (worked out once, when first asked) and its first records.

>>> sniff("x.csv", b"unit;a;b\\nu1;1;2\\n").delimiter
';'
>>> sniff("x.tsv", "unit\\ta\\nu1\\t1\\n".encode("utf-16")).encoding
'utf-16'
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import zipfile
from dataclasses import dataclass
from functools import cached_property

from agreebound.core.errors import InputError
from agreebound.core.json_types import JSONValue
from agreebound.io.archive import check_directory

DELIMITERS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class Sniffed:
    format: str  # csv, parquet, xlsx, json or jsonl: the file formats of agreebound.io.registry
    encoding: str = "utf-8"  # of text formats: utf-8, utf-16, cp1252 (read as Latin-1 where cp1252 cannot)
    delimiter: str = ","
    notice: str | None = None  # said to the user when the bytes were not plain UTF-8


def _bom_encoding(data: bytes) -> str | None:
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return None


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 text without a byte-order mark: every other byte of ASCII text is zero."""
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def utf16_as_utf8(data: bytes) -> bytes | None:
    """UTF-16 text (by its byte-order mark, or every other byte zero) as UTF-8 bytes, for the readers
    that take UTF-8 (JSON, a judge's CSV); None for anything else. Text that is not valid UTF-16
    is None too: the UTF-8 check then names its first bad byte.

    >>> utf16_as_utf8('{"a": 1}'.encode("utf-16"))
    b'{"a": 1}'
    >>> utf16_as_utf8(b'{"a": 1}') is None
    True
    """
    encoding = _bom_encoding(data[:4]) or _utf16_without_bom(data[:4096])
    if encoding is None or not encoding.startswith("utf-16"):
        return None
    try:
        return data.decode(encoding).removeprefix("\ufeff").encode("utf-8")
    except UnicodeDecodeError:
        return None


def text_encoding(data: bytes) -> tuple[str, str | None]:
    """(encoding, notice): UTF-8 (with or without BOM) silently; UTF-16 and Windows-1252 /
    Latin-1 with a notice, because they are read, not rejected."""
    bom = _bom_encoding(data)
    if bom == "utf-16":
        return "utf-16", "read as UTF-16 text (it has a UTF-16 byte-order mark)"
    if bom == "utf-8-sig":
        return "utf-8-sig", None
    guess = _utf16_without_bom(data[:4096])
    if guess:
        return guess, f"read as {guess.upper()} text (every other byte is zero)"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data[: 2**20], final=len(data) <= 2**20)
        if len(data) > 2**20:
            data.decode("utf-8")
        return "utf-8", None
    except UnicodeDecodeError:
        pass
    try:
        data.decode("cp1252")
        return "cp1252", "not UTF-8: read as Windows-1252 (what Excel on Windows writes); save as UTF-8 to be sure"
    except UnicodeDecodeError:
        return "latin-1", "not UTF-8: read as Latin-1 (ISO-8859-1); save as UTF-8 to be sure"


def sniff_delimiter(text_head: str) -> str:
    """The delimiter that splits the first lines into the same number (>= 2) of cells, the most
    cells winning (the header may be one cell short: R's row names); a comma when none does, and
    a single space (R's write.table, numpy's savetxt) only when nothing else splits the lines."""
    lines = text_head.splitlines()[:50] if text_head else []
    if len(lines) > 1 and not text_head.endswith(("\n", "\r")):
        lines = lines[:-1]  # the last line of a head may be cut
    best, best_width = ",", 1
    for d in DELIMITERS + (" ",):
        if d == " " and best_width > 1:
            break
        try:
            rows = [r for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=d) if r]
        except csv.Error:
            continue
        if not rows:
            continue
        widths = {len(r) for r in rows[1:]} or {len(rows[0])}
        width = max(widths)
        if len(widths) == 1 and len(rows[0]) in (width, width - 1) and width > best_width:
            best, best_width = d, width
    return best


def is_parquet(data: bytes) -> bool:
    """Parquet's magic bytes open the file."""
    return data[:4] == b"PAR1"


def is_xlsx(name: str, data: bytes) -> bool:
    """A zip archive holding ``xl/workbook.xml``: an Excel workbook."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    check_directory(name, data, "zip archive")  # before zipfile parses the whole directory
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return "xl/workbook.xml" in z.namelist()
    except zipfile.BadZipFile:
        return False


def refuse_gzip(name: str, data: bytes) -> None:
    """A gzip-compressed file (its magic number) is refused as such, before it is read as text."""
    if data[:2] == b"\x1f\x8b":
        raise InputError(name, None, None, "a gzip-compressed file; decompress it (gunzip) and give what it holds")


def sniff(name: str, data: bytes) -> Sniffed:
    """The format from the bytes (the file name only breaks ties: .tsv, .jsonl). A gzip-compressed
    file is refused as such (its bytes read as text would be "binary data" in row 1).

    >>> sniff("x.csv", b"\\x1f\\x8b\\x08\\x00")
    Traceback (most recent call last):
    agreebound.core.errors.InputError: x.csv: a gzip-compressed file; decompress it (gunzip) and give what it holds
    """
    refuse_gzip(name, data)
    if is_parquet(data):
        return Sniffed("parquet")
    if is_xlsx(name, data):
        return Sniffed("xlsx")
    encoding, notice = text_encoding(data)
    head = data[: 2**16].decode(encoding, "replace").lstrip("\ufeff")
    stripped = head.lstrip()
    lower = name.lower()
    if stripped.startswith("[") or (stripped.startswith("{") and not lower.endswith((".jsonl", ".ndjson"))
                                    and _one_json_document(head)):
        return Sniffed("json", encoding, notice=notice)
    if stripped.startswith("{"):
        return Sniffed("jsonl", encoding, notice=notice)
    delimiter = "\t" if lower.endswith(".tsv") and "\t" in head else sniff_delimiter(head)
    return Sniffed("csv", encoding, delimiter, notice)


def _one_json_document(head: str) -> bool:
    """A '{' file is one JSON document (not JSON Lines) unless its first line is a whole object."""
    first = head.lstrip().split("\n", 1)[0]
    if not first.rstrip().endswith("}"):
        return True
    import json

    try:
        json.loads(first)
    except (ValueError, RecursionError):  # too deep for the parser: the JSON reader refuses it, located
        return True
    rest = head.lstrip()[len(first):].lstrip()
    return not rest.startswith("{")


#: How many records of a JSON or JSON Lines file :class:`Peek` decodes, and how much of a file it
#: looks at for a JSON Lines file's first lines.
HEAD_RECORDS = 50
HEAD_BYTES = 65536


class Peek:
    """A file as a recogniser sees it: ``name``, ``data``, :attr:`sniffed` (worked out once, when
    first asked), and ``records``: the first records of a JSON or JSON Lines file as (record, its
    number) pairs. A reader that has decoded them hands them in; otherwise they are decoded here,
    leniently (a file that does not decode has none).

    >>> Peek("x.jsonl", b'{"a": 1}\\n{"a": 2}\\n').first
    {'a': 1}
    >>> Peek("x.csv", b"unit,a\\nu1,1\\n").records
    ()
    """

    def __init__(self, name: str, data: bytes, records: tuple[tuple[JSONValue, int], ...] | None = None,
                 sniffed: Sniffed | None = None) -> None:
        self.name, self.data = name, data
        if records is not None:
            self.__dict__["records"] = tuple(records)
        if sniffed is not None:
            self.__dict__["sniffed"] = sniffed

    @cached_property
    def sniffed(self) -> Sniffed:
        return sniff(self.name, self.data)

    @cached_property
    def records(self) -> tuple[tuple[JSONValue, int], ...]:
        if self.sniffed.format not in ("json", "jsonl"):
            return ()
        text = self.data.decode(self.sniffed.encoding, "replace").lstrip("\ufeff")
        if self.sniffed.format == "jsonl":
            out: list[tuple[JSONValue, int]] = []
            for i, line in enumerate(text[:HEAD_BYTES].splitlines(), start=1):
                if len(out) == HEAD_RECORDS:
                    break
                if line.strip():
                    try:
                        out.append((json.loads(line), i))
                    except (ValueError, RecursionError):
                        break
            return tuple(out)
        try:  # one JSON document: its first records (an array), or itself (an object)
            obj = json.loads(text, parse_constant=lambda _: None)
        except (ValueError, RecursionError):
            return ()
        items = obj[:HEAD_RECORDS] if isinstance(obj, list) else [obj]
        return tuple((r, i) for i, r in enumerate(items, start=1))

    @property
    def first(self) -> JSONValue:
        """The first record (None when there is none)."""
        return self.records[0][0] if self.records else None
