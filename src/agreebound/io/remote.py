"""Inputs that are not local files: ``s3://`` objects (AWS or any S3-compatible server), ``http(s)://``
URLs and standard input (``-``), read as bytes within the same size limit as a local file.

S3 is reached through pyarrow's built-in S3 filesystem, configured by the standard variables:
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN`` (or a profile, as the AWS
SDK finds it), ``AWS_REGION`` / ``AWS_DEFAULT_REGION``, and ``AWS_ENDPOINT_URL_S3`` /
``AWS_ENDPOINT_URL`` for an S3-compatible endpoint (MinIO, Ceph, a test server). An ``s3://``
pattern (``s3://bucket/ratings/*.parquet``) is expanded from the bucket's listing. An http(s) URL is
the user's own explicit input: fetched once, never listed, never retried.

Nothing here waits forever: a connection is given :data:`TIMEOUT` seconds, and a transfer that
makes no progress for as long is stopped and said so (``AGREEBOUND_NETWORK_TIMEOUT`` sets it).
Every failure is one :class:`InputError` naming the URL and what happened: a missing bucket or
object, refused credentials, an endpoint that cannot be reached.

>>> is_remote("s3://bucket/ratings.csv"), is_remote("ratings.csv"), is_remote("-")
(True, False, False)
>>> url_name("s3://bucket/panels/week%201.csv"), url_name("https://example.org/"), url_name("-")
('week 1.csv', 'example.org', 'stdin')
>>> s3_parts("s3://bucket/a/b.parquet")
('bucket', 'a/b.parquet')

Why one module of this size (about 600 lines): S3, http(s) and standard input share one bounded
reader and one set of timeouts and messages; kept together so each door keeps the same limits.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar, cast
from urllib.parse import unquote, urlsplit

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt, printable
from agreebound.core.limits import MAX_INPUT_BYTES

if TYPE_CHECKING:
    import http.client
    import io

    import pyarrow.fs as pafs

_T = TypeVar("_T")

#: Seconds to connect, and seconds a transfer may make no progress, before it is stopped.
TIMEOUT = 30.0
#: The name standard input is given in messages and reports.
STDIN = "stdin"
#: At most this many objects are listed to expand one ``s3://`` pattern.
MAX_LISTED = 100_000
SCHEMES = ("s3", "http", "https")
GLOB_CHARS = "*?["
_CHUNK = 1 << 20
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def timeout() -> float:
    """:data:`TIMEOUT`, or ``AGREEBOUND_NETWORK_TIMEOUT`` seconds when set (a positive number)."""
    given = os.environ.get("AGREEBOUND_NETWORK_TIMEOUT", "")
    try:
        value = float(given)
    except ValueError:
        return TIMEOUT
    return value if 0 < value < 86_400 else TIMEOUT


def is_stdin(path: str) -> bool:
    return path == "-"


def is_remote(path: str) -> bool:
    """A URL (``scheme://...``), not a local path."""
    return bool(_URL.match(path))


def scheme(url: str) -> str:
    return url.split("://", 1)[0].lower()


def url_name(path: str) -> str:
    """How a URL's data is named in messages and reports: the last part of its path, as the
    local file of the same name would be (else the host); standard input is "stdin". A name is
    one plain part, never a path: what follows the last / (an encoded %2F too), control characters
    as _, and no "..".

    >>> url_name("s3://b/..%2F..%2Fescaped%2Fpwned.csv"), url_name("s3://b/%2E%2E"), url_name("s3://b/x%00%0A.csv")
    ('pwned.csv', 'b', 'x__.csv')
    """
    if is_stdin(path):
        return STDIN
    parts = urlsplit(path)
    return _plain_name(unquote(parts.path.rstrip("/").rsplit("/", 1)[-1])) or _plain_name(parts.netloc) or "input"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _plain_name(text: str) -> str:
    """``text`` as one part of a path that stays where it is put: what follows its last / or \\,
    control characters as _, runs of dots as one ("" when nothing is left but dots)."""
    name = re.sub(r"\.{2,}", ".", _CONTROL.sub("_", re.split(r"[/\\]", text)[-1]))
    return "" if name.strip(".") == "" else name


def s3_parts(url: str) -> tuple[str, str]:
    """(bucket, key) of an ``s3://`` URL."""
    rest = url.split("://", 1)[1]
    bucket, _, key = rest.partition("/")
    return bucket, key


def is_pattern(url: str) -> bool:
    """An ``s3://`` URL whose key holds * ? or [ (expanded by :func:`expand`)."""
    return scheme(url) == "s3" and any(ch in s3_parts(url)[1] for ch in GLOB_CHARS)


def _unsupported(url: str) -> InputError:
    return InputError(url, None, None, f"cannot read {scheme(url)}:// URLs; agreebound reads local files, s3:// "
                      "(AWS or an S3-compatible endpoint through AWS_ENDPOINT_URL), http(s):// and - (standard "
                      "input); with --engine spark the cluster reads its own storage")


# --- bounded waiting ---------------------------------------------------------------------------


class Transfer:
    """A download the waiting thread can stop: the bytes read so far (its progress), a flag the
    reading loop checks between chunks, and what to close so a read blocked on a silent server
    returns at once (an HTTP response's socket; pyarrow's S3 stream is not closed from another
    thread, so an S3 copy stops at its next chunk, and a read blocked in it ends at pyarrow's
    own request timeout, :func:`timeout` seconds)."""

    def __init__(self) -> None:
        self.done = 0
        self.stopped = threading.Event()
        self._close: Callable[[], None] | None = None
        self._lock = threading.Lock()

    def closing(self, close: Callable[[], None]) -> None:
        """Register what :meth:`stop` closes (closed at once when the transfer is already stopped)."""
        with self._lock:
            self._close = close
            stopped = self.stopped.is_set()
        if stopped:
            _quietly(close)

    def stop(self) -> None:
        with self._lock:
            self.stopped.set()
            close = self._close
        if close is not None:
            _quietly(close)


def _quietly(close: Callable[[], None]) -> None:
    try:
        close()
    except (OSError, ValueError):  # already closed
        pass


#: Seconds a stopped transfer's thread is given to end before the timeout is said.
_STOP_GRACE = 2.0


def _bounded(url: str, work: Callable[[], _T], transfer: Transfer | None = None, what: str = "no answer") -> _T:
    """``work()`` in a daemon thread, stopped (said as an InputError) when it makes no progress
    (``transfer.done``) for :func:`timeout` seconds: a server that accepts a connection and never
    answers cannot hold the command forever, whatever the client library's own timeouts do. A
    transfer is stopped then: its loop reads no further chunk, and its connection is closed, so no
    thread goes on downloading after the command has given up."""
    box: dict[str, Any] = {}  # the work's value (its type, _T) or the error it raised

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread as it was
            box["error"] = e

    limit = timeout()
    thread = threading.Thread(target=run, name="agreebound-remote", daemon=True)
    thread.start()
    seen, since = -1, time.monotonic()
    while thread.is_alive():
        thread.join(0.1)
        now = transfer.done if transfer is not None else 0
        if now != seen:
            seen, since = now, time.monotonic()
        elif time.monotonic() - since > limit:
            if transfer is not None:
                transfer.stop()
                thread.join(_STOP_GRACE)
            raise InputError(url, None, None, f"cannot reach it: {what} within {limit:g} s "
                             "(AGREEBOUND_NETWORK_TIMEOUT sets the wait)")
    if "error" in box:
        raise box["error"]
    return cast("_T", box.get("value"))  # what work() returned


# --- standard input ----------------------------------------------------------------------------

_stdin: bytes | None = None


def read_stdin() -> tuple[str, bytes]:
    """Standard input's bytes, named "stdin", read once (a second read gets the same bytes) and
    refused past the size limit; a terminal is refused rather than waited on."""
    global _stdin
    from agreebound.io.tables import check_size

    if _stdin is None:
        stream = sys.stdin
        if stream is None or getattr(stream, "buffer", None) is None:
            raise InputError(STDIN, None, None, "there is no standard input to read")
        if stream.isatty():
            raise InputError(STDIN, None, None, "- reads standard input, and it is a terminal: pipe the data in "
                             "(agreebound panel - < ratings.csv)")
        data = stream.buffer.read(MAX_INPUT_BYTES + 1)
        check_size(STDIN, len(data))
        _stdin = data
    return STDIN, _stdin


# --- S3 ----------------------------------------------------------------------------------------


def _endpoint() -> str | None:
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None


def s3_filesystem(bucket: str | None = None) -> pafs.S3FileSystem:
    """pyarrow's S3 filesystem from the standard AWS variables (credentials are found by the AWS
    SDK: the variables, then the shared files, then the instance's role). The endpoint variables
    are read here, since pyarrow does not read them itself; with an endpoint and no region, the
    region is us-east-1 (what S3-compatible servers expect)."""
    import pyarrow.fs as pafs

    kwargs: dict[str, object] = {"connect_timeout": timeout(), "request_timeout": timeout(),
                              "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=2)}
    endpoint = _endpoint()
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if endpoint:
        parts = urlsplit(endpoint if "://" in endpoint else "https://" + endpoint)
        kwargs["endpoint_override"] = parts.netloc + parts.path.rstrip("/")
        kwargs["scheme"] = parts.scheme or "https"
        region = region or "us-east-1"
    elif not region and bucket:
        try:  # the bucket's own region, as the AWS CLI finds it
            region = pafs.resolve_s3_region(bucket)
        except Exception:  # noqa: BLE001 - the SDK's own rules decide then
            region = None
    if region:
        kwargs["region"] = region
    return pafs.S3FileSystem(**kwargs)


def _where() -> str:
    """Where S3 requests go, as messages say it (never a user:password an endpoint URL may hold)."""
    endpoint = _endpoint()
    if not endpoint:
        return "S3"
    parts = urlsplit(endpoint if "://" in endpoint else "https://" + endpoint)
    shown = f"{parts.scheme}://{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "") + parts.path.rstrip("/")
    return f"the S3 endpoint {printable(shown, 120)}"


def _s3_error(url: str, e: BaseException, fs: pafs.S3FileSystem | None = None) -> InputError:
    """pyarrow's (the AWS SDK's) error as one line saying what happened."""
    text = str(e)
    bucket, key = s3_parts(url)
    if isinstance(e, FileNotFoundError) or "NO_SUCH_KEY" in text or "Path does not exist" in text:
        return _not_found(url, fs)
    if "NO_SUCH_BUCKET" in text:
        return InputError(url, None, None, f"no bucket {excerpt(bucket)} at {_where()}")
    if any(code in text for code in ("ACCESS_DENIED", "INVALID_ACCESS_KEY_ID", "SIGNATURE_DOES_NOT_MATCH",
                                     "InvalidAccessKeyId", "AccessDenied", "SignatureDoesNotMatch", "EXPIRED_TOKEN",
                                     "HTTP response code: 403")):
        return InputError(url, None, None, f"access refused by {_where()}: check the credentials "
                          "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and their rights on the bucket")
    if "NETWORK_CONNECTION" in text or "curlCode" in text:
        detail = text.split("Details:", 1)[-1].strip() if "Details:" in text else text
        return InputError(url, None, None, f"cannot reach {_where()} ({printable(detail, 120)})")
    return InputError(url, None, None, f"cannot read it from {_where()} ({printable(text.splitlines()[0] if text else type(e).__name__, 160)})")


def _no_bucket(url: str, fs: pafs.S3FileSystem | None) -> bool:
    """The URL's bucket is known to be missing (False when it exists or cannot be looked up)."""
    import pyarrow.fs as pafs

    if fs is None:
        return False
    try:
        return bool(_bounded(url, lambda: fs.get_file_info(s3_parts(url)[0])).type == pafs.FileType.NotFound)
    except Exception:  # noqa: BLE001 - the object is missing either way
        return False


def _not_found(url: str, fs: pafs.S3FileSystem | None) -> InputError:
    """A missing object, or the bucket itself missing (said apart when the bucket can be looked up)."""
    bucket, key = s3_parts(url)
    if _no_bucket(url, fs):
        return InputError(url, None, None, f"no bucket {excerpt(bucket)} at {_where()}")
    return InputError(url, None, None, f"no object {excerpt(key)} in bucket {excerpt(bucket)} at {_where()}")


def _s3_info_form(url: str) -> tuple[str, str]:
    """(bucket, key) of a URL that names an object, or an InputError saying what to give."""
    bucket, key = s3_parts(url)
    if not bucket or not key or key.endswith("/"):
        raise InputError(url, None, None, "give an object: s3://bucket/path/file.csv (or a pattern such as "
                         "s3://bucket/ratings/*.parquet)")
    return bucket, key


def _s3_info(url: str) -> tuple[pafs.S3FileSystem, pafs.FileInfo]:
    """(filesystem, FileInfo) of an ``s3://`` URL's object, or an InputError saying what is wrong."""
    import pyarrow.fs as pafs

    bucket, key = _s3_info_form(url)
    try:
        fs = _bounded(url, lambda: s3_filesystem(bucket))
        info = _bounded(url, lambda: fs.get_file_info(f"{bucket}/{key}"))
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - pyarrow's many error types: said in one line
        raise _s3_error(url, e) from None
    if info.type == pafs.FileType.NotFound:
        raise _not_found(url, fs)
    if info.type == pafs.FileType.Directory:
        raise InputError(url, None, None, "this is a folder of objects; give an object, or a pattern such as "
                         f"{url.rstrip('/')}/*.csv")
    return fs, info


def remote_size(url: str) -> int | None:
    """An ``s3://`` object's size in bytes (None: another URL, or not known before reading)."""
    if scheme(url) != "s3" or is_pattern(url):
        return None
    return int(_s3_info(url)[1].size)


def _s3_copy(url: str, fs: pafs.S3FileSystem, info: pafs.FileInfo, write: Callable[[bytes], None], limit: int | None) -> int:
    """Stream the object through ``write`` in chunks; stopped when it stalls. Returns the bytes read."""
    transfer = Transfer()

    def work() -> int:
        with fs.open_input_stream(info.path) as f:
            while not transfer.stopped.is_set():  # stopped: the waiting thread has given up
                block = f.read(_CHUNK)
                if not block:
                    return transfer.done
                transfer.done += len(block)
                if limit is not None and transfer.done > limit:
                    return transfer.done
                write(block)
            return transfer.done

    try:
        return int(_bounded(url, work, transfer, "no data"))
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001
        raise _s3_error(url, e, fs) from None


def read_s3(url: str) -> tuple[str, bytes]:
    """An ``s3://`` object's name and bytes; its size is checked before it is read."""
    from agreebound.io.tables import check_size

    name = url_name(url)
    fs, info = _s3_info(url)
    check_size(name, int(info.size))
    parts: list[bytes] = []
    size = _s3_copy(url, fs, info, parts.append, MAX_INPUT_BYTES)
    check_size(name, size)
    return name, b"".join(parts)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A key pattern as glob reads a path: * and ? within one part, [..] a character set, ** any
    parts."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                body = "^" + body[1:] if body.startswith("!") else body
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def expand(url: str) -> list[str]:
    """An ``s3://`` pattern's objects, sorted by key, from the bucket's listing under the pattern's
    fixed prefix; an object named as written (a key holding * or [) is that object alone."""
    bucket = s3_parts(url)[0]
    return [f"s3://{bucket}/{i.path.split('/', 1)[1]}" for i in _matching(url)]


def _matching(url: str) -> list[pafs.FileInfo]:
    """The FileInfo of each object an ``s3://`` pattern matches (:func:`expand`), sorted by key."""
    import pyarrow.fs as pafs

    bucket, key = s3_parts(url)
    fs = None
    try:
        fs = _bounded(url, lambda: s3_filesystem(bucket))
        exact = _bounded(url, lambda: fs.get_file_info(f"{bucket}/{key}"))
        if exact.type == pafs.FileType.File:
            return [exact]
        first = min(key.find(ch) for ch in GLOB_CHARS if ch in key)
        prefix = key[:first].rsplit("/", 1)[0] if "/" in key[:first] else ""
        rest = key[len(prefix):].lstrip("/")  # the pattern below the prefix: one level, unless it holds / or **
        selector = pafs.FileSelector(f"{bucket}/{prefix}".rstrip("/"), recursive="/" in rest or "**" in rest,
                                     allow_not_found=True)
        listed = _bounded(url, lambda: fs.get_file_info(selector))
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001
        raise _s3_error(url, e, fs) from None
    if len(listed) > MAX_LISTED:
        raise InputError(url, None, None, f"the pattern's prefix lists more than {MAX_LISTED:,} objects; give a "
                         "narrower pattern")
    match = _glob_regex(key)
    found = sorted((i for i in listed if i.type == pafs.FileType.File and match.match(i.path.split("/", 1)[1])),
                   key=lambda i: i.path.split("/", 1)[1])
    if not found:
        if not listed and _no_bucket(url, fs):  # nothing under the prefix: is there a bucket at all?
            raise InputError(url, None, None, f"no bucket {excerpt(bucket)} at {_where()}")
        raise InputError(url, None, None, "no object matches this pattern")
    return found


def stage(urls: Sequence[str], folder: str, first: int = 0) -> list[str]:
    """Copy ``s3://`` objects into ``folder`` for an engine that reads local files (DuckDB: its S3
    extension cannot be installed everywhere), streamed in chunks, after checking the disk has
    room. Each copy is named by its number (``first`` + its place in ``urls``) and the key's suffix
    (``0.csv``, ``1.parquet``: letters, digits and dots only), never by the key itself, and is
    checked to lie in ``folder``: a key cannot place a file anywhere else. Returns the local paths,
    in order (the caller names each copy by its URL)."""
    sized = [(u, *_s3_info(u)) for u in urls]
    need = sum(int(info.size) for _, _, info in sized)
    free = shutil.disk_usage(folder).free
    if need > free:
        raise InputError(urls[0], None, None, f"the objects hold {need:,} bytes and the temporary folder "
                         f"({folder}) has {free:,} free; set TMPDIR to a larger disk")
    root = Path(folder).resolve()
    out = []
    for i, (url, fs, info) in enumerate(sized):
        target = (root / f"{first + i}{copy_suffix(url)}").resolve()
        if target.parent != root:
            raise InputError(url, None, None, f"its copy would be written outside the temporary folder ({folder})")
        with open(target, "xb") as f:  # a new file: never one (or a link) already there
            def write(block: bytes, f: io.BufferedWriter = f) -> None:
                f.write(block)

            _s3_copy(url, fs, info, write, None)
        out.append(str(target))
    return out


_SUFFIX = re.compile(r"(?:\.[A-Za-z0-9]+)+\Z")


def copy_suffix(url: str) -> str:
    """The suffix of the key's last part a local copy keeps (the engines read a file's kind from
    it), of letters, digits and dots only: ``.csv``, ``.csv.gz``; "" when it has none such (or one
    over 32 characters).

    >>> copy_suffix("s3://b/parts/part-0.csv"), copy_suffix("s3://b/..%2F..%2Fx%2Fpwned.csv"), copy_suffix("s3://b/a.c$v")
    ('.csv', '.csv', '')
    """
    found = _SUFFIX.search(s3_parts(url)[1].rsplit("/", 1)[-1])
    return found.group(0) if found and len(found.group(0)) <= 32 else ""


def stamp(url: str) -> str:
    """What changes when an ``s3://`` object changes, learnt without downloading it: its size,
    ETag and last-modified time from one HEAD request; for a pattern, each matching object's
    key, size and time from the listing that expands it."""
    if is_pattern(url):
        return "\n".join(f"{i.path}\0{i.size}\0{i.mtime_ns}" for i in _matching(url))
    bucket, key = _s3_info_form(url)
    fs = None
    try:
        fs = _bounded(url, lambda: s3_filesystem(bucket))
        head = _bounded(url, lambda: fs.open_input_file(f"{bucket}/{key}"))  # HEAD: the size and the headers
        try:
            meta = head.metadata()
            size = head.size()
        finally:
            head.close()
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - said as reading it says it
        _s3_info(url)
        raise _s3_error(url, e, fs) from None
    said = {k.lower(): v.decode("latin-1") if isinstance(v, bytes) else str(v) for k, v in meta.items()}
    return f"{size}\0{said.get('etag', '')}\0{said.get('last-modified', '')}"


# --- http(s) ----------------------------------------------------------------------------------


def read_http(url: str) -> tuple[str, bytes]:
    """An http(s) URL's body: one GET, redirects followed, its declared length checked against the
    size limit before the body is read, and the body read no further than the limit."""
    import socket
    import urllib.error
    import urllib.request

    from agreebound.io.tables import check_size
    from agreebound.version import __version__

    name = url_name(url)
    limit = timeout()
    request = urllib.request.Request(url, headers={"User-Agent": f"agreebound/{__version__}"})
    transfer = Transfer()
    host = urlsplit(url).netloc

    def work() -> bytes:
        with urllib.request.urlopen(request, timeout=limit) as response:  # noqa: S310 - the user's own URL
            transfer.closing(lambda: _shut(response))
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit():
                check_size(name, int(declared))
            parts: list[bytes] = []
            while not transfer.stopped.is_set():  # stopped: the waiting thread has given up
                block = response.read(_CHUNK)
                if not block:
                    return b"".join(parts)
                transfer.done += len(block)
                parts.append(block)
                if transfer.done > MAX_INPUT_BYTES:
                    return b"".join(parts)
            return b""

    try:
        data = _bounded(url, work, transfer)
    except InputError:
        raise
    except urllib.error.HTTPError as e:
        raise InputError(url, None, None, f"cannot read it: the server answered HTTP {e.code} "
                         f"{printable(str(e.reason), 60)}") from None
    except urllib.error.URLError as e:
        reason = e.reason
        said = "no answer" if isinstance(reason, (socket.timeout, TimeoutError)) else \
            getattr(reason, "strerror", None) or str(reason)
        raise InputError(url, None, None, f"cannot reach {printable(host, 80)} ({printable(str(said), 120)})") from None
    except (socket.timeout, TimeoutError):
        raise InputError(url, None, None, f"cannot reach {printable(host, 80)}: no answer within {limit:g} s") from None
    except (OSError, ValueError) as e:  # a connection reset mid-body, a malformed URL
        raise InputError(url, None, None, f"cannot read it ({printable(str(e), 120)})") from None
    check_size(name, len(data))
    return name, data


def _shut(response: http.client.HTTPResponse) -> None:
    """Shut an HTTP response's connection down from another thread: a read blocked in it returns
    at once (closing the response itself would wait for the reader's lock)."""
    import socket

    fd = response.fileno()
    if fd >= 0:
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)


# --- any ---------------------------------------------------------------------------------------


def read_remote(path: str) -> tuple[str, bytes]:
    """The name and bytes of ``-`` (standard input) or a URL."""
    if is_stdin(path):
        return read_stdin()
    kind = scheme(path)
    if kind == "s3":
        if is_pattern(path):
            raise InputError(path, None, None, "a pattern of objects is read out of core (--engine duckdb); "
                             "in memory, give one object")
        return read_s3(path)
    if kind in ("http", "https"):
        return read_http(path)
    raise _unsupported(path)


def check_scheme(path: str) -> None:
    """Refuse, before any work, a URL of a kind agreebound does not read."""
    if is_remote(path) and scheme(path) not in SCHEMES:
        raise _unsupported(path)
