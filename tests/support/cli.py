"""The agreebound command line as the tests run it: in this process (``run``, fast, pytest's capsys
captures its output) or in its own process (``process``: what a user's terminal shows, a timeout
so that a reader waiting on a pipe fails the test instead of hanging it, another environment or
working folder). tests/support/peak.py runs it in its own process and measures its peak memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def argv_of(args) -> list[str]:
    """Command-line arguments from strings, paths and file names as bytes (not UTF-8 ones included)."""
    return [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]


def run(capsys, *argv: object) -> tuple[int, str, str]:
    """``agreebound *argv`` in this process: (exit code, stdout, stderr), read from ``capsys``."""
    from agreebound.cli.main import main

    code = main(argv_of(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: object) -> tuple[int, dict, str]:
    """``agreebound *argv --json`` in this process: (exit code, the report, validated against the
    schema the package ships, stderr)."""
    import json

    import jsonschema

    from agreebound.app.resources import schema_text

    code, out, err = run(capsys, *argv, "--json")
    report = json.loads(out)
    jsonschema.validate(report, json.loads(schema_text()))
    return code, report, err


def process(*argv: object, cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
            stdin: bytes | str | None = None, timeout: float = 120, text: bool = True,
            prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    """``agreebound *argv`` in its own process (``python -m agreebound``), its output captured.

    ``env``: the whole environment (default: this process's); ``stdin``: what it reads (default:
    nothing, /dev/null); ``prefix``: a command that runs it (e.g. ``setpriv ...``); ``text``: the
    output decoded (as ``stdin`` must then be)."""
    return subprocess.run([*(prefix or []), sys.executable, "-m", "agreebound", *argv_of(argv)],
                          capture_output=True, text=text, cwd=cwd, env=None if env is None else dict(env),
                          timeout=timeout, **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}))


def recorded_id(out: str) -> str:
    """The run id in the line ``run ID recorded in WHERE`` that ends the output of ``--record``."""
    last = out.strip().splitlines()[-1]
    assert last.startswith("run ") and " recorded in " in last, last
    return last.split()[1]
