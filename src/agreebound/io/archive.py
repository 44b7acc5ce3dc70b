"""Zip archives (inspect_ai ``.eval`` logs, ``.xlsx`` workbooks): the one door through which a
member is inflated.

A member's header says how large it unpacks, but the header is the file's word, not a bound: a
1.9 MB archive can declare (or hide) a 1.9 GB member, and a Zstandard member is decompressed by a
codec that allocates whatever size it is told. So every member is read here as a stream, 64 KiB at
a time, and the bytes that actually come out are counted:

- a member stops at its limit (the reader's limit for that kind of member) the moment the count
  passes it, before the rest is inflated, whatever the header declared;
- a member that inflates past its declared size is damaged (and is stopped there);
- the archive's members together stop at :data:`MAX_ARCHIVE_UNPACKED_BYTES`, counted the same way;
- the member count and the directory's size are read from the end record and checked before
  zipfile parses the directory (:func:`check_directory`);
- Zstandard members (ZIP method 93, which inspect_ai writes and Python's ``zipfile`` reads only
  from 3.14) are streamed through pyarrow's codec and checked by their CRC like the others.

The directory is checked first (:func:`open_archive`): the declared sizes' total against the
archive's limit, so an honest large archive is refused before anything is inflated.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Any, Protocol

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.limits import MAX_ARCHIVE_DIRECTORY_BYTES, MAX_ARCHIVE_MEMBERS, MAX_ARCHIVE_UNPACKED_BYTES

CHUNK = 2**16
ZSTD_METHOD = 93
_ERRORS = (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, zlib.error, ValueError)


class Archive:
    """An opened archive: its directory, and the bytes inflated from it so far (all members)."""

    def __init__(self, name: str, data: bytes, zf: zipfile.ZipFile, what: str):
        self.name, self.data, self.zf, self.what = name, data, zf, what
        self.unpacked = 0

    def infos(self) -> list[zipfile.ZipInfo]:
        return self.zf.infolist()

    def refuse(self, info: zipfile.ZipInfo, reason: str) -> InputError:
        """The error for one member: the file, the member's name, and why."""
        return InputError(self.name, None, info.filename, reason, column_label="member")

    def count(self, n: int) -> None:
        self.unpacked += n
        if self.unpacked > MAX_ARCHIVE_UNPACKED_BYTES:
            raise InputError(self.name, None, None, f"the {self.what} unpacks to more than "
                             f"{MAX_ARCHIVE_UNPACKED_BYTES / 10**6:,.0f} MB; the limit is "
                             f"{MAX_ARCHIVE_UNPACKED_BYTES / 10**6:,.0f} MB")

    def open(self, info: zipfile.ZipInfo, part: str, limit: int) -> "Member":
        """A stream of ``info``'s inflated bytes that refuses to pass ``limit`` (``part``: what the
        member is, in the messages). The declared size is checked first, then the bytes themselves."""
        if info.file_size > limit:
            raise self.refuse(info, f"the {self.what}'s {part} unpacks to "
                              f"{info.file_size / 10**6:,.0f} MB; the limit is {limit / 10**6:,.0f} MB")
        try:
            raw = self._zstd(info) if info.compress_type == ZSTD_METHOD else self.zf.open(info)
        except InputError:
            raise
        except _ERRORS as e:
            raise self.refuse(info, f"the {self.what}'s {part} cannot be unpacked ({excerpt(str(e), 80)})") from None
        return Member(self, info, part, limit, raw)

    def read(self, info: zipfile.ZipInfo, part: str, limit: int) -> bytearray:
        """The whole member, within ``limit`` (see :meth:`open`): a bytearray filled in place (a
        member of 60 MB costs 60 MB, not twice that while it is copied into bytes)."""
        with self.open(info, part, limit) as stream:
            out = bytearray()
            while chunk := stream.read(CHUNK):
                out += chunk
        return out

    def _zstd(self, info: zipfile.ZipInfo) -> _Checked:
        import pyarrow as pa

        at = info.header_offset
        head = self.data[at:at + 30]
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise self.refuse(info, f"the {self.what}'s entry for this member is damaged")
        start = at + 30 + struct.unpack("<H", head[26:28])[0] + struct.unpack("<H", head[28:30])[0]
        raw = memoryview(self.data)[start:start + info.compress_size]
        return _Checked(pa.CompressedInputStream(pa.BufferReader(raw), "zstd"), info.CRC)


class _Stream(Protocol):
    """What a member's inflated bytes are read from: zipfile's own stream, or a checked zstd one."""

    def read(self, n: int) -> bytes: ...

    def close(self) -> None: ...


class _Checked:
    """A decompressed stream whose CRC-32 is checked at its end (zipfile checks its own members)."""

    def __init__(self, stream: _Stream, crc: int):
        self.stream, self.crc, self.running = stream, crc, 0

    def read(self, n: int) -> bytes:
        chunk = self.stream.read(n)
        if chunk:
            self.running = zlib.crc32(chunk, self.running)
        elif self.running != self.crc:
            raise zipfile.BadZipFile("the part fails its checksum (a damaged archive)")
        return bytes(chunk)

    def close(self) -> None:
        self.stream.close()


class Member(io.RawIOBase):
    """One member's inflated bytes, counted as they come (see the module's docstring)."""

    def __init__(self, archive: Archive, info: zipfile.ZipInfo, part: str, limit: int, raw: _Stream):
        super().__init__()
        self.archive, self.info, self.part, self.limit, self.raw = archive, info, part, limit, raw
        self.got = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            return self.readall()
        archive, info = self.archive, self.info
        try:
            # one byte more than the declared size can hold shows a member that lies about it
            chunk = self.raw.read(min(n, CHUNK, max(info.file_size - self.got, 0) + 1))
        except InputError:
            raise
        except _ERRORS as e:
            raise archive.refuse(info, f"the {archive.what}'s {self.part} cannot be unpacked ({excerpt(str(e), 80)})") from None
        self.got += len(chunk)
        if self.got > self.limit:
            raise archive.refuse(info, f"the {archive.what}'s {self.part} unpacks to more than "
                                 f"{self.limit / 10**6:,.0f} MB; the limit is {self.limit / 10**6:,.0f} MB")
        if self.got > info.file_size:
            raise archive.refuse(info, f"the {archive.what}'s {self.part} unpacks to more than "
                                 "its entry declares (a damaged or crafted archive)")
        archive.count(len(chunk))
        return bytes(chunk)

    def readinto(self, b: Any) -> int:
        chunk = self.read(len(b))
        b[:len(chunk)] = chunk
        return len(chunk)

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            super().close()


def directory_extent(data: bytes) -> tuple[int, int] | None:
    """(members, central directory bytes): the directory's size as the end record says (zip64
    included), and its members counted by their entries' signatures in that extent (an end record
    can understate the count: zipfile reads the directory by its size, not by the count; a
    signature inside a name only overcounts). None when there is no end record (zipfile then says
    the file is not a zip)."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 65535))
    if at < 0 or len(data) < at + 22:
        return None
    entries, size = struct.unpack("<H", data[at + 10:at + 12])[0], struct.unpack("<I", data[at + 12:at + 16])[0]
    locator = at - 20
    if (entries == 0xFFFF or size == 0xFFFFFFFF) and locator >= 0 and data[locator:locator + 4] == b"PK\x06\x07":
        end64 = struct.unpack("<Q", data[locator + 8:locator + 16])[0]
        if data[end64:end64 + 4] == b"PK\x06\x06" and len(data) >= end64 + 56:
            entries = struct.unpack("<Q", data[end64 + 32:end64 + 40])[0]
            size = struct.unpack("<Q", data[end64 + 40:end64 + 48])[0]
    if size <= MAX_ARCHIVE_DIRECTORY_BYTES:  # zipfile finds the directory just before the end record
        start = max(0, at - size - (20 if locator >= 0 and data[locator:locator + 4] == b"PK\x06\x07" else 0) - 56)
        entries = max(entries, data.count(b"PK\x01\x02", start, at))
    return entries, size


def check_directory(name: str, data: bytes, what: str) -> None:
    """The member count and the directory's size within their limits, from the end record, before
    zipfile parses the directory (it holds every member's entry in memory)."""
    extent = directory_extent(data)
    if extent is None:
        return
    members, size = extent
    if members > MAX_ARCHIVE_MEMBERS:
        raise InputError(name, None, None, f"the {what} holds {members:,} members; the limit is {MAX_ARCHIVE_MEMBERS:,}")
    if size > MAX_ARCHIVE_DIRECTORY_BYTES:
        raise InputError(name, None, None, f"the {what}'s directory is {size / 10**6:,.1f} MB; the limit is "
                         f"{MAX_ARCHIVE_DIRECTORY_BYTES / 10**6:,.0f} MB")


def open_archive(name: str, data: bytes, what: str) -> Archive:
    """The archive's directory, and its declared unpacked total within the limit, before anything
    is inflated (``what``: ".eval archive", "workbook", in the messages)."""
    check_directory(name, data, what)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except _ERRORS as e:
        raise InputError(name, None, None, f"not a readable {what} ({excerpt(str(e), 80)})") from None
    total = sum(i.file_size for i in infos)
    if total > MAX_ARCHIVE_UNPACKED_BYTES:
        raise InputError(name, None, None, f"the {what} unpacks to {total / 10**6:,.0f} MB; the limit is "
                         f"{MAX_ARCHIVE_UNPACKED_BYTES / 10**6:,.0f} MB")
    return Archive(name, data, zf, what)
