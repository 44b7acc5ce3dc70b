"""The agreebound command line: the dashboard's verdicts for CI jobs and for files people send.

Exit codes are the contract a CI job gates on, so nothing else may ever produce a verdict's code:

  0  ENFORCE / PASS_CALIBRATION
  1  REPORT_ONLY / FAIL_CALIBRATION / INCOMPLETE (a judge not decided: no contract, or a partial audit)
  2  REFUSE_SINGLE
  3  bad input or bad usage (one line on stderr: file, row, column, reason; or the usage)
  4  internal error (one line on stderr: a bug in agreebound, never a verdict)
"""


from __future__ import annotations
import os
import sys
import traceback
from typing import TYPE_CHECKING, Sequence
from agreebound.core.errors import InputError, missing_extra
from agreebound.core.escape import printable
from agreebound.cli.common import INPUT_ERROR, INTERNAL_ERROR, INTERRUPTED, OutputError, UsageError
from agreebound.cli.parser import build_parser



if TYPE_CHECKING:

    pass

def _safe_streams() -> None:
    """Whatever the locale, an undecodable name prints as escapes instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        try:
            # typed TextIO, which has no reconfigure; a stream without it (a test's capture) stays as it is
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass


def _internal(error: BaseException) -> int:
    what = f"{type(error).__name__}: {printable(error, 160)}"
    print(f"agreebound: internal error ({what}). This is a bug in agreebound, not a verdict: please report it with "
          "the command line; rerun with AGREEBOUND_TRACE=1 to print the trace.", file=sys.stderr)
    if os.environ.get("AGREEBOUND_TRACE"):
        traceback.print_exception(error, file=sys.stderr)
    return INTERNAL_ERROR


def _store_error() -> type[BaseException]:
    """The store's error type, imported only once a command has touched the store."""
    mod = sys.modules.get("agreebound.app.store")
    return mod.StoreError if mod is not None else _Never


class _Never(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    _safe_streams()
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # said with the command's own usage line, not the top level's
            parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
        return int(args.func(args))
    except UsageError as e:
        print(printable(e), file=sys.stderr)
        return INPUT_ERROR
    except InputError as e:
        print(str(e), file=sys.stderr)
        return INPUT_ERROR
    except KeyboardInterrupt:
        print("agreebound: interrupted", file=sys.stderr)
        return INTERRUPTED
    except ModuleNotFoundError as e:
        if (needed := missing_extra(e)) is None:
            return _internal(e)
        print(f"agreebound: {needed}", file=sys.stderr)
        return INPUT_ERROR
    except MemoryError:  # every reader is bounded before the work; what still does not fit is too large here
        print("agreebound: the input needs more memory than this machine has; it is too large or too wide to "
              "read here (see the limits in docs/formats.md)", file=sys.stderr)
        return INPUT_ERROR
    except _store_error() as e:
        print(f"agreebound: {printable(e, 400)}", file=sys.stderr)
        return INPUT_ERROR
    except OutputError as e:
        print(f"agreebound: {e}; no verdict was given", file=sys.stderr)
        return INTERNAL_ERROR
    except SystemExit:
        raise  # --help and --version
    except BaseException as e:  # noqa: BLE001 - the one place that turns a crash into exit 4
        return _internal(e)


if __name__ == "__main__":
    sys.exit(main())
