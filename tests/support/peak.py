"""Run the agreebound CLI in its own process and learn that process's own peak memory.

``ru_maxrss`` from wait4 is not enough: a forked child starts with its parent's peak (pytest's, or
a benchmark's), so the child reports ``VmHWM`` from /proc/self/status itself, which exec resets.

``run_cli`` starts a new interpreter per run (benchmarks use it: their peaks are a fresh process's).
``run_cli_forked`` is for the corpora that run hundreds of cases (tests/cli/test_hostile.py,
tests/io/test_bombs.py): a waiting process has already imported the CLI, and each case is a child
forked from it, with its own stdin (/dev/null), stdout, stderr, working folder, environment and
argv, running ``agreebound.cli.main`` as ``__main__`` as ``python -m`` would. The child resets its peak
(``/proc/self/clear_refs``) before it starts, so its ``VmHWM`` counts what it holds of the imports
plus what the case itself took. It saves the ~0.7 s of imports each case would otherwise pay.
"""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import sys
import tempfile
import threading
import time
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
runpy.run_module('agreebound.cli.main', run_name='__main__')
"""


def run_cli(argv: list[str], cwd: Path | None = None, timeout: float = 120) -> tuple[int, bytes, bytes, float]:
    """(exit code, stdout, stderr, peak RSS in MiB) of ``agreebound *argv``."""
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak:
        proc = subprocess.run([sys.executable, "-c", _CHILD, peak.name, *argv], capture_output=True,
                              stdin=subprocess.DEVNULL, cwd=cwd, timeout=timeout)
        text = Path(peak.name).read_text().strip()
    return proc.returncode, proc.stdout, proc.stderr, (int(text) / 1024 if text else float("nan"))


# The waiting process: imports what a panel or calibrate run imports, then reads one request per
# line on fd 0 (unbuffered, so a child's stdin holds nothing of it), forks, and answers on fd 1
# "started <pid>" then "done <wait status>". Every request carries the whole environment.
_ZYGOTE = r"""
import atexit, json, os, runpy, sys, traceback
import agreebound.panel.categories, agreebound.io.ratings, agreebound.render.report, agreebound.judge.measure
import agreebound.app.judge_input  # (not agreebound.cli.main itself: each child runs it afresh as __main__)

def _child(req):
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, req["out"], os.O_WRONLY | os.O_TRUNC),
                            (2, req["err"], os.O_WRONLY | os.O_TRUNC)):
        new = os.open(path, flags)
        os.dup2(new, fd)
        os.close(new)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    sys.argv = ["agreebound", *req["argv"]]
    code = 0
    try:
        runpy.run_module("agreebound.cli.main", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(req["peak"], "w") as f:
        f.write(str(kb))
    os._exit(code)

raw = sys.stdin.buffer.raw
while True:
    line = raw.readline()
    if not line:
        break
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            _child(req)
        finally:
            os._exit(4)
    os.write(1, f"started {pid}\n".encode())
    _, status = os.waitpid(pid, 0)
    os.write(1, f"done {status}\n".encode())
"""


class _Zygote:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True)
        self.pending = b""

    def _line(self, deadline: float | None) -> str:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("the forking CLI server ended")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def run(self, request: dict, timeout: float) -> int:
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        pid = int(self._line(deadline).split()[1])
        try:
            status = int(self._line(deadline).split()[1])
        except TimeoutError:
            os.kill(pid, 9)
            self.close()
            raise subprocess.TimeoutExpired(request["argv"], timeout) from None
        return os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


_IDLE: queue.SimpleQueue = queue.SimpleQueue()
_ALL: list[_Zygote] = []
_LOCK = threading.Lock()


def _take() -> _Zygote:
    try:
        return _IDLE.get_nowait()
    except queue.Empty:
        with _LOCK:
            z = _Zygote()
            _ALL.append(z)
            return z


def run_cli_forked(argv: list[str], cwd: Path | None = None, timeout: float = 120) -> tuple[int, bytes, bytes, float]:
    """What ``run_cli`` returns, from a child forked off a process that has the CLI imported."""
    if not os.access("/proc/self/clear_refs", os.W_OK):
        return run_cli(argv, cwd, timeout)
    with tempfile.TemporaryDirectory() as tmp:
        files = {name: os.path.join(tmp, name) for name in ("out", "err", "peak")}
        for path in files.values():
            Path(path).touch()
        request = {"argv": [str(a) for a in argv], "cwd": str(cwd or os.getcwd()), "env": dict(os.environ), **files}
        zygote = _take()
        try:
            code = zygote.run(request, timeout)
        except BaseException:
            zygote.close()
            raise
        _IDLE.put(zygote)
        text = Path(files["peak"]).read_text().strip()
        return (code, Path(files["out"]).read_bytes(), Path(files["err"]).read_bytes(),
                int(text) / 1024 if text else float("nan"))


if __name__ == "__main__":
    code, out, err, mib = run_cli(sys.argv[1:])
    sys.stdout.buffer.write(out)
    sys.stderr.buffer.write(err)
    print(f"peak {mib:.0f} MiB", file=sys.stderr)
    sys.exit(code)
