"""Hugging Face datasets on disk -> tables, within the limits: Arrow IPC files and streams (a
dataset's ``.arrow`` shards), ``save_to_disk`` folders (a Dataset, or a DatasetDict's one split),
and Parquet or Arrow tables of a shape :mod:`agreebound.io.dataset_shapes` recognises (list
columns of raters and labels, Argilla's export), read into long ratings.

What an Arrow file's record batches decode to is read from their metadata (a small FlatBuffers
reader, below) and refused past a limit before anything is decompressed.
"""

from __future__ import annotations

import itertools
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt, printable
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.core.escape import plural
from agreebound.io.dataset_shapes import Shape, arrow_shape, read_shaped, shape_format
from agreebound.io.mapping import Mapping
from agreebound.io.tables import Table, check_size
from agreebound.core.limits import MAX_CELLS, MAX_COLUMNS, MAX_INPUT_BYTES, MAX_PARQUET_UNCOMPRESSED_BYTES, MAX_ROWS

if TYPE_CHECKING:
    import pyarrow as pa

#: The schema metadata key under which a save_to_disk folder's stream says how it was read.
_META = b"agreebound:read"


# --- Arrow and Parquet ---------------------------------------------------------------------------


def _arrow_records(table: pa.Table, shape: Shape) -> Iterator[tuple[JSONObject, int]]:
    """Rows of the shape's columns only, a batch at a time (the row's number from 1)."""
    cols = [c for c in shape.columns() if c in table.column_names]
    row = 0
    for batch in table.select(cols).to_batches(max_chunksize=8192):
        for rec in batch.to_pylist():
            row += 1
            yield rec, row


def read_arrow_shaped(name: str, table: pa.Table, shape: Shape, head_rows: int | None = None
                      ) -> tuple[Table, tuple[str, ...], Mapping]:
    return read_shaped(name, shape, _arrow_records(table, shape), "row", head_rows)


def parquet_shaped(name: str, data: bytes, head_rows: int | None = None
                   ) -> tuple[Table, tuple[str, ...], Mapping, str] | None:
    """A Parquet file of a recognised shape (list columns), read; None for any other Parquet file
    (read by the plain reader, which says what is wrong with one it cannot read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        shape = arrow_shape(pf.schema_arrow)
    except Exception:  # noqa: BLE001 - not readable: the plain reader says why
        return None
    if shape is None:
        return None
    meta = pf.metadata
    if meta.num_rows > MAX_ROWS:
        raise InputError(name, None, None, f"the file has {meta.num_rows:,} rows; the limit is {MAX_ROWS:,}")
    uncompressed = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if uncompressed > MAX_PARQUET_UNCOMPRESSED_BYTES:
        raise InputError(name, None, None, f"the file decompresses to {uncompressed:,} bytes; the limit is "
                         f"{MAX_PARQUET_UNCOMPRESSED_BYTES:,}")
    cols = [c for c in shape.columns() if c in pf.schema_arrow.names]
    try:
        table = pf.read(columns=cols, use_threads=False)
    except Exception as e:  # noqa: BLE001
        raise InputError(name, None, None, f"not a readable Parquet file ({type(e).__name__}: "
                         f"{excerpt(str(e), 120)})") from None
    return (*read_arrow_shaped(name, table, shape, head_rows), shape_format(shape))


def is_arrow(data: bytes) -> bool:
    """Arrow IPC bytes: the file format (ARROW1) or the stream format (Hugging Face's .arrow files)."""
    return data[:6] == b"ARROW1" or data[:4] == b"\xff\xff\xff\xff"


_U8, _U16, _I32, _U32, _I64 = (struct.Struct(f).unpack_from for f in ("<B", "<H", "<i", "<I", "<q"))


class _Flat:
    """Just enough of a FlatBuffers reader for Arrow's IPC metadata (format/Message.fbs, File.fbs):
    one table's scalars, sub-tables and vectors of structs. Every read is checked against the
    buffer (struct refuses to read past its end; a negative position is refused here): a malformed
    buffer is an error, said as an unreadable file."""

    __slots__ = ("buf", "pos", "slots")

    def __init__(self, buf: memoryview, pos: int) -> None:
        vtable = pos - _I32(buf, pos)[0] if pos >= 0 else -1
        if vtable < 0:
            raise ValueError("metadata points outside itself")
        n = (_U16(buf, vtable)[0] - 4) // 2
        self.buf, self.pos = buf, pos
        self.slots = struct.unpack_from(f"<{n}H", buf, vtable + 4) if n > 0 else ()

    @classmethod
    def root(cls, buf: memoryview) -> "_Flat":
        return cls(buf, _U32(buf, 0)[0])

    def _field(self, index: int) -> int:
        """The field's position, or 0 when it is absent (a field is never at a table's start)."""
        offset = self.slots[index] if index < len(self.slots) else 0
        return self.pos + offset if offset else 0

    def scalar(self, index: int, read: Callable[[memoryview, int], tuple[int]], default: int = 0) -> int:
        at = self._field(index)
        return read(self.buf, at)[0] if at else default

    def table(self, index: int) -> "_Flat | None":
        at = self._field(index)
        return _Flat(self.buf, at + _U32(self.buf, at)[0]) if at else None

    def has(self, index: int) -> bool:
        return bool(self._field(index))

    def int64_vector(self, index: int, width: int) -> tuple[int, int]:
        """(where its first element starts, how many elements) of a vector of structs of ``width``
        int64s, checked to lie in the buffer."""
        at = self._field(index)
        if not at:
            return 0, 0
        start = at + _U32(self.buf, at)[0]
        n = _U32(self.buf, start)[0]
        if start + 4 + 8 * width * n > len(self.buf):
            raise ValueError("a vector runs past the metadata's end")
        return start + 4, n


_HEADER_DICTIONARY, _HEADER_RECORD_BATCH = 2, 3  # Message.fbs: union MessageHeader
_BLOCK = np.dtype([("offset", "<i8"), ("meta", "<i4"), ("pad", "<i4"), ("body", "<i8")])  # File.fbs: struct Block
_FEW = 64  # buffers read with struct below this many; with numpy above


def _decoded(metadata: pa.Buffer, body: pa.Buffer) -> tuple[int, int]:
    """(rows, bytes once decoded) of one IPC message, from its metadata and, when its buffers are
    compressed, the decoded length each compressed buffer starts with (an int64; -1: stored as it
    is): known before anything is decompressed. A record batch's rows; a dictionary's bytes; a
    schema message is (0, 0)."""
    buf = memoryview(metadata)
    message = _Flat.root(buf)
    kind = message.scalar(1, _U8)
    if kind not in (_HEADER_DICTIONARY, _HEADER_RECORD_BATCH):
        return 0, 0
    header = message.table(2)
    batch = header if kind == _HEADER_RECORD_BATCH or header is None else header.table(1)
    if batch is None:
        return 0, 0
    rows = batch.scalar(0, _I64)
    start, n = batch.int64_vector(2, 2)  # struct Buffer {offset: long; length: long}
    size = 0 if body is None else body.size
    compressed = batch.has(3)
    if rows < 0:
        raise ValueError("a record batch with a negative length")
    if n < _FEW:
        pairs = struct.unpack_from(f"<{2 * n}q", buf, start) if n else ()
        total = 0
        for offset, length in zip(pairs[::2], pairs[1::2]):
            if offset < 0 or length < 0 or offset + length > size:
                raise ValueError("a buffer outside its message's body")
            if compressed and length >= 8:
                declared = _I64(body, offset)[0]
                if declared < -1:
                    raise ValueError("a compressed buffer with a negative length")
                total += length - 8 if declared == -1 else declared
            elif not compressed:
                total += length
    else:
        buffers = np.frombuffer(buf, dtype="<i8", count=2 * n, offset=start).reshape(n, 2)
        offsets, lengths = buffers[:, 0], buffers[:, 1]
        if (offsets < 0).any() or (lengths < 0).any() or (offsets + lengths > size).any():
            raise ValueError("a buffer outside its message's body")
        if not compressed:
            total = int(lengths.sum())
        else:
            whole = np.frombuffer(body, dtype=np.uint8)
            starts, stored = offsets[lengths >= 8], lengths[lengths >= 8]
            total = 0
            for i in range(0, len(starts), 1 << 18):
                declared = whole[starts[i:i + (1 << 18), None] + np.arange(8)].view("<i8").ravel()
                if (declared < -1).any():
                    raise ValueError("a compressed buffer with a negative length")
                sizes = np.where(declared == -1, stored[i:i + (1 << 18)] - 8, declared)
                # each below 2 GB, 2**18 of them sum within int64; else summed as Python ints
                total += int(sizes.sum()) if (sizes < MAX_PARQUET_UNCOMPRESSED_BYTES).all() else sum(map(int, sizes))
    return (rows if kind == _HEADER_RECORD_BATCH else 0), total


def _declared_stream(source: pa.Buffer) -> tuple[int, int, int]:
    """(rows, decoded bytes, record batches) of an Arrow stream, message by message, as the
    stream reader will meet them (the same message reader), without decoding one."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    reader = pa.BufferReader(source)
    rows = nbytes = batches = 0
    while True:
        try:
            message = ipc.read_message(reader)
        except EOFError:
            return rows, nbytes, batches
        r, b = _decoded(message.metadata, message.body)
        rows, nbytes = rows + r, nbytes + b
        batches += message.type == "record batch"


def _declared_file(source: pa.Buffer) -> tuple[int, int, int]:
    """(rows, decoded bytes, record batches) of an Arrow file, from the blocks its footer lists
    (what the file reader decodes: a block listed twice is decoded twice, and counted twice)."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    size = source.size
    if size < 18 or source[size - 6:].to_pybytes() != b"ARROW1":
        raise ValueError("no Arrow file footer")
    length = struct.unpack("<i", source[size - 10:size - 6].to_pybytes())[0]
    if not 0 < length <= size - 18:
        raise ValueError("the footer's length is out of range")
    footer = _Flat.root(memoryview(source[size - 10 - length:size - 10]))
    dictionaries, batches = (footer.int64_vector(i, 3) for i in (2, 3))  # struct Block: 24 bytes
    blocks = np.concatenate([np.frombuffer(footer.buf, dtype=_BLOCK, count=n, offset=start)
                             for start, n in (dictionaries, batches)])
    reader = pa.BufferReader(source)
    rows = nbytes = 0
    for block in blocks:
        offset, meta = int(block["offset"]), int(block["meta"])
        if offset < 0 or meta < 0 or offset + meta > size:
            raise ValueError("a block outside the file")
        reader.seek(offset)
        message = ipc.read_message(reader)
        body = message.body
        if reader.tell() - (0 if body is None else body.size) != offset + meta:
            raise ValueError("a block's length is not its message's")  # the file reader reads the body there
        r, b = _decoded(message.metadata, body)
        rows, nbytes = rows + r, nbytes + b
    return rows, nbytes, batches[1]


@dataclass
class ArrowBudget:
    """What Arrow files may decode to, spent as they are read (the files of one ``save_to_disk``
    folder share one): rows, cells (rows x columns) and decoded bytes, each refused with its limit
    before the batch that would pass it is decoded, or kept."""

    max_bytes: int = MAX_PARQUET_UNCOMPRESSED_BYTES
    why: str = ""  # what the byte limit is, when it is not the decoded-bytes limit itself
    rows: int = 0
    nbytes: int = 0

    def refuse_past(self, name: str, rows: int, nbytes: int, columns: int, what: str) -> None:
        """Refuse when ``rows`` and ``nbytes`` more would pass a limit (``what`` says whose they are)."""
        rows, nbytes = self.rows + rows, self.nbytes + nbytes
        so_far = " with the files before it" if self.rows or self.nbytes else ""
        if rows > MAX_ROWS:
            raise InputError(name, None, None, f"{what} hold {rows:,} rows{so_far}; the limit is {MAX_ROWS:,}")
        if rows * max(columns, 1) > MAX_CELLS:
            raise InputError(name, None, None, f"{what} hold {columns:,} columns x {rows:,} rows{so_far}; the "
                             f"limit is {MAX_CELLS:,} cells")
        if nbytes > self.max_bytes:
            raise InputError(name, None, None, f"{what} decode to {nbytes:,} bytes{so_far}; the limit is "
                             f"{self.max_bytes:,} bytes{self.why}")

    def spend(self, rows: int, nbytes: int) -> None:
        self.rows += rows
        self.nbytes += nbytes


def _new_bytes(batch: pa.RecordBatch, seen: set[int]) -> int:
    """Bytes of the buffers a decoded batch holds that no batch before it held (a dictionary the
    batches share is counted once)."""
    total = 0
    for column in batch.columns:
        buffers = column.buffers()
        if hasattr(column, "dictionary"):
            buffers += column.dictionary.buffers()
        for b in buffers:
            if b is not None and b.address not in seen:
                seen.add(b.address)
                total += b.size
    return total


def read_arrow(name: str, data: bytes, budget: ArrowBudget | None = None) -> pa.Table:
    """An Arrow IPC file or stream as a pyarrow Table, within the limits. What the record batches
    decode to (rows, and bytes: a compressed buffer states its decoded length before it) is summed
    from the messages' metadata and refused past a limit before any batch is decompressed; then
    the batches are decoded one at a time, and each is counted again before it is kept."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    check_size(name, len(data))
    budget = budget if budget is not None else ArrowBudget()
    file_format = data[:6] == b"ARROW1"
    source = pa.py_buffer(data)
    try:
        reader = ipc.open_file(pa.BufferReader(source)) if file_format else ipc.open_stream(pa.BufferReader(source))
        columns = len(reader.schema)
        rows, nbytes, count = (_declared_file if file_format else _declared_stream)(source)
    except Exception as e:  # noqa: BLE001 - pyarrow's many error types: said in one line
        raise _unreadable(name, e) from None
    if columns > MAX_COLUMNS:
        raise InputError(name, None, None, f"the file has {columns:,} columns; the limit is {MAX_COLUMNS:,}")
    budget.refuse_past(name, rows, nbytes, columns, "the file's record batches")
    batches: list[pa.RecordBatch] = []
    kept = ArrowBudget(budget.max_bytes, budget.why, budget.rows, budget.nbytes)
    seen: set[int] = set()
    try:
        for i in range(count) if file_format else itertools.count():
            if file_format:
                batch = reader.get_batch(i)
            else:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    break
            more = _new_bytes(batch, seen)
            kept.refuse_past(name, batch.num_rows, more, columns, f"the file's first {i + 1:,} record batches")
            kept.spend(batch.num_rows, more)
            batches.append(batch)
        table = pa.Table.from_batches(batches, schema=reader.schema)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001
        raise _unreadable(name, e) from None
    budget.spend(rows, nbytes)
    if table.num_rows == 0:
        raise InputError(name, None, None, "the Arrow file has no rows")
    return table


def _unreadable(name: str, e: BaseException) -> InputError:
    return InputError(name, None, None, f"not a readable Arrow file ({type(e).__name__}: {excerpt(str(e), 120)})")


def arrow_source(name: str, data: bytes, head_rows: int | None = None
                 ) -> tuple[Table, tuple[str, ...], Mapping | None, str]:
    """Arrow IPC bytes (a Hugging Face dataset's ``.arrow`` file, or a ``save_to_disk`` folder as
    :func:`read_saved_dataset` hands it on) -> (table, notes, mapping or None, format). A recognised
    shape is read into long ratings; any other table is read as a Parquet file of the same columns
    would be."""
    import io

    import pyarrow.parquet as pq

    table = read_arrow(name, data)
    said = (table.schema.metadata or {}).get(_META)
    hf = b"huggingface" in (table.schema.metadata or {})
    notes: tuple[str, ...] = (said.decode("utf-8", "replace"),) if said else \
        ("read as a Hugging Face dataset's Arrow file" if hf else "read as an Arrow file",)
    shape = arrow_shape(table.schema)
    if shape is not None:
        long, more, mapping = read_arrow_shaped(name, table, shape, head_rows)
        return long, notes + more, mapping, shape_format(shape)
    from agreebound.io.tables import read_parquet

    buf = io.BytesIO()
    pq.write_table(table.replace_schema_metadata(_keep_pandas(table.schema.metadata)), buf)
    return read_parquet(name, buf.getvalue(), head_rows), notes, None, "arrow"


def _keep_pandas(meta: dict[bytes, bytes] | None) -> dict[bytes, bytes] | None:
    return {b"pandas": meta[b"pandas"]} if meta and b"pandas" in meta else None


# --- a save_to_disk folder -----------------------------------------------------------------------


def is_saved_dataset(path: str) -> bool:
    """A folder Hugging Face ``datasets`` wrote with ``save_to_disk`` (a Dataset or a DatasetDict)."""
    p = Path(path)
    return p.is_dir() and ((p / "state.json").is_file() or (p / "dataset_dict.json").is_file())


def _json_file(path: Path, shown: str) -> JSONValue:
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        return json.loads(data)
    except (OSError, ValueError) as e:
        raise InputError(shown, None, path.name, f"cannot read the data set's {path.name} ({printable(str(e), 120)})") from None


def read_saved_dataset(path: str) -> tuple[str, bytes]:
    """A ``save_to_disk`` folder's rows as one Arrow stream (its shards in order), named by the
    folder, with a note saying what was read. A DatasetDict with one split is that split; with
    several, the user names one (its folder): reading them as one panel would mix them."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    root = Path(path)
    shown = root.name or path
    split_note = ""
    if (root / "dataset_dict.json").is_file() and not (root / "state.json").is_file():
        splits = _json_file(root / "dataset_dict.json", shown).get("splits")
        if not isinstance(splits, list) or not splits or not all(isinstance(s, str) for s in splits):
            raise InputError(shown, None, "splits", "a DatasetDict folder whose dataset_dict.json lists no splits")
        if len(splits) > 1:
            raise InputError(shown, None, None, f"a DatasetDict with {len(splits)} splits ({', '.join(printable(s, 40) for s in splits)}): "
                             f"give one split's folder, e.g. {printable(os.path.join(path, splits[0]))}")
        split_note = f", its only split {splits[0]!r}"
        shown = f"{shown}/{splits[0]}"
        root = root / splits[0]
        if not (root / "state.json").is_file():
            raise InputError(shown, None, None, "the split's folder has no state.json")
    state = _json_file(root / "state.json", shown)
    files = state.get("_data_files") if isinstance(state, dict) else None
    if not isinstance(files, list) or not files:
        raise InputError(shown, None, "_data_files", "the data set's state.json lists no data files")
    paths = []
    for f in files:
        fname = f.get("filename") if isinstance(f, dict) else None
        if not isinstance(fname, str) or Path(fname).name != fname or fname in ("", ".", ".."):
            raise InputError(shown, None, "_data_files", f"a data file name that is not a file in the folder "
                             f"({excerpt(fname)})")
        p = root / fname
        if not p.is_file():
            raise InputError(shown, None, "_data_files", f"the data file {excerpt(fname)} is missing")
        paths.append(p)
    total = sum(p.stat().st_size for p in paths)
    if total > MAX_INPUT_BYTES:
        check_size(shown, total)
    # the folder's rows are handed on as one uncompressed Arrow stream, an input within MAX_INPUT_BYTES:
    # its files are refused as soon as they decode to more (not after holding up to 2 GB of them)
    budget = ArrowBudget(MAX_INPUT_BYTES, " (a save_to_disk folder is read as one input file)")
    tables = []
    for p in paths:
        with open(p, "rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
        tables.append(read_arrow(f"{shown}/{p.name}", data, budget))
        del data
    try:
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    except pa.ArrowInvalid as e:
        raise InputError(shown, None, None, f"the data files do not share one schema ({printable(str(e), 120)})") from None
    note = (f"read as a Hugging Face dataset saved with save_to_disk{split_note}: "
            f"{plural(len(paths), 'Arrow file')}, {plural(table.num_rows, 'row')}")
    meta = dict(table.schema.metadata or {})
    meta[_META] = note.encode()
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, table.schema.with_metadata(meta)) as w:
        w.write_table(table.replace_schema_metadata(meta))
    return shown, sink.getvalue().to_pybytes()
