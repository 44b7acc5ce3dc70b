"""What every command shares: the exit codes a CI job gates on (0/1/2 verdicts, 3 bad input, 4 internal
error), the report endings, and the two errors that are no verdict.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from agreebound.app.access import Settings
    from agreebound.app.store import Store


INPUT_ERROR = 3
INTERNAL_ERROR = 4
INTERRUPTED = 130
REPORT_SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm", ".xml")
MAX_SEED = 2**63 - 1


class UsageError(Exception):
    """A command line argparse would reject: exit 3 (argparse's own 2 is REFUSE_SINGLE here)."""


class OutputError(Exception):
    """Standard output could not be written (a full disk, a closed terminal): not a verdict, and
    not a bug; exit 4 with the reason."""


def printing(body: Callable[[], None]) -> None:
    """Run ``body`` (which prints); a reader that went away (``| head``) ends the output quietly,
    and a stdout that cannot be written is an OutputError (exit 4), never a verdict."""
    try:
        body()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError as e:
        raise OutputError(f"could not write the output ({e.strerror or e})") from None


@contextmanager
def open_store(args: argparse.Namespace, purpose: str) -> Iterator[Store]:
    """The history database as the terminal's user sees it (access.terminal_viewer: $AGREEBOUND_USER,
    default "local"): every run listed, runs recorded as theirs, prefixes among their own runs."""
    from agreebound.app.access import terminal_viewer
    from agreebound.app.store import Store

    with Store.open(args.db, purpose=purpose) as store:
        yield store.as_viewer(terminal_viewer())


def access_settings() -> Settings:
    from agreebound.app.access import SettingError, settings

    try:
        return settings()
    except SettingError as e:
        raise UsageError(f"agreebound: {e}") from None
