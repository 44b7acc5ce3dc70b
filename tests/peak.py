"""Run the agreebound CLI in its own process and learn that process's own peak memory.

``ru_maxrss`` from wait4 is not enough: a forked child starts with its parent's peak (pytest's, or
a benchmark's), so the child reports ``VmHWM`` from /proc/self/status itself, which exec resets.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

_CHILD = """
import atexit, runpy, sys
def _peak(path=sys.argv[1]):
    with open('/proc/self/status') as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith('VmHWM:'))
    with open(path, 'w') as f:
        f.write(str(kb))
atexit.register(_peak)
sys.argv = ['agreebound'] + sys.argv[2:]
runpy.run_module('agreebound.cli', run_name='__main__')
"""


def run_cli(argv: list[str], cwd: Path | None = None, timeout: float = 120) -> tuple[int, bytes, bytes, float]:
    """(exit code, stdout, stderr, peak RSS in MiB) of ``agreebound *argv``."""
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak:
        proc = subprocess.run([sys.executable, "-c", _CHILD, peak.name, *argv], capture_output=True,
                              stdin=subprocess.DEVNULL, cwd=cwd, timeout=timeout)
        text = Path(peak.name).read_text().strip()
    return proc.returncode, proc.stdout, proc.stderr, (int(text) / 1024 if text else float("nan"))


if __name__ == "__main__":
    code, out, err, mib = run_cli(sys.argv[1:])
    sys.stdout.buffer.write(out)
    sys.stderr.buffer.write(err)
    print(f"peak {mib:.0f} MiB", file=sys.stderr)
    sys.exit(code)
