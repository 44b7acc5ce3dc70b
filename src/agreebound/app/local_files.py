"""The files an out-of-core engine reads: local paths as given, remote ones fetched to a temporary
copy within the limits, each named in a message as the user gave it.
"""

from __future__ import annotations
from contextlib import contextmanager
import tempfile
import threading
from pathlib import Path
from typing import (TYPE_CHECKING, ContextManager, Iterator, Sequence)
from agreebound.core.errors import InputError
from agreebound.app.recipes import PanelRecipe, sha256_file
if TYPE_CHECKING:

    pass



def files_read(files: Sequence[str], remote: bool) -> list[tuple[str, str]]:
    """Files read by an engine as the report names them: each with its SHA-256, or (a cluster's
    storage) named, not read here."""
    if remote:
        return [(f, "not read by agreebound (" + f.split("://")[0] + " storage)") for f in files]
    return [(display_name(f), sha256_file(f)) for f in files]


@contextmanager
def local_files(paths: Sequence[str], engine: str) -> Iterator[tuple[list[str], bool]]:
    """The files an out-of-core engine reads (patterns expanded) and whether they are remote (a
    cluster's storage, read by Spark itself). DuckDB reads local files here (its S3 extension cannot
    be installed everywhere): ``s3://`` objects (patterns expanded from the bucket's listing) are
    copied to a temporary folder first, removed afterwards, and a message naming a copy names its URL."""
    from agreebound.engines.common import input_files
    from agreebound.io import remote as rm

    if engine == "spark" and any("://" in p for p in paths):
        yield list(paths), True
        return
    if not any(rm.is_remote(p) or rm.is_stdin(p) for p in paths):
        yield input_files(paths), False
        return
    for p in paths:
        if rm.is_stdin(p):
            raise InputError(rm.STDIN, None, None, f"the {engine} engine reads files; standard input is read in "
                             "memory (--engine numpy)")
        rm.check_scheme(p)
        if rm.is_remote(p) and rm.scheme(p) != "s3":
            raise InputError(p, None, None, f"the {engine} engine reads local files and s3:// objects; an "
                             f"{rm.scheme(p)} URL is read in memory (--engine numpy)")
    urls = [u for p in paths for u in (rm.expand(p) if rm.is_remote(p) and rm.is_pattern(p) else [p])]
    with tempfile.TemporaryDirectory(prefix="agreebound-s3-") as tmp:
        objects = [u for u in urls if rm.is_remote(u)]
        copies = dict(zip(objects, rm.stage(objects, tmp, _numbers(len(objects)))))
        given = {c: u for u, c in copies.items()}
        _COPIES.update(given)
        try:
            yield input_files([copies.get(u, u) for u in urls]), False
        except InputError as e:
            raise _named_as_given(e, given) from None
        finally:
            for c in given:
                _COPIES.pop(c, None)


#: The local copies of s3:// objects the engines are reading now, each with its URL: the copies are
#: named by number (agreebound.io.remote.stage), a report names each as its object and a message by
#: its URL. Numbers are never reused in a process, so a message naming a copy by its file name alone
#: (``3.csv``) is said with the right URL even when two sets of copies are open (a judge's references
#: and observations).
_COPIES: dict[str, str] = {}
_COPY_NUMBERS = [0]
_COPY_LOCK = threading.Lock()


def _numbers(n: int) -> int:
    """The first of ``n`` copy numbers no other copy in this process has had."""
    with _COPY_LOCK:
        first = _COPY_NUMBERS[0]
        _COPY_NUMBERS[0] += n
    return first


def display_name(path: str) -> str:
    """How a report names a file an engine read: a copy of an object by the object's name."""
    from agreebound.io.remote import url_name

    url = _COPIES.get(path)
    return url_name(url) if url is not None else Path(path).name


def _named_as_given(e: InputError, given: dict[str, str]) -> InputError:
    """The same error with each local copy's path replaced by the URL it was copied from (and a
    file named by a copy's file name alone, as the engines name a file at its row)."""
    def said(text: str) -> str:
        for local in sorted(given, key=len, reverse=True):
            text = text.replace(local, given[local])
        return text

    by_name = {Path(local).name: url for local, url in given.items()}
    file = by_name.get(e.file) or said(e.file)
    return InputError(file, e.row, e.column, said(e.reason), e.row_label, e.column_label)


def engine_files(recipe: PanelRecipe, engine: str) -> ContextManager[tuple[list[str], bool]]:
    """The files an out-of-core engine reads for the recipe's ratings (:func:`local_files`)."""
    return local_files([s.given for s in recipe.ratings], engine)


