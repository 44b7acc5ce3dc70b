"""A CI call's cost: the command line as whole processes, beside ``python -c "import numpy"`` (issue 57).

A CI job pays for the interpreter, the imports and then the arithmetic; on a small file the
arithmetic takes milliseconds, so the imports are the cost. The floor is a fresh interpreter that
imports numpy and nothing else (the least any numeric command line pays), measured in the same run.

Targets, on the median wall time of each command against the floor's median (interleaved: one
repetition of every command, then the next):

- ``agreebound --help`` and every subcommand's ``--help``: within 1.5x of the floor;
- a small panel file to its verdict: ``agreebound panel sample_data/krippendorff_2011.csv`` (12 units
  x 4 observers, the README's example): within 3x of the floor;
- a small judge file to its verdict: ``agreebound calibrate sample_data/judge_illustrative.json`` (the
  seed's bundle of eight lines): within 3x of the floor. A bundle's records are read as columns and
  measured without pandas (agreebound.judge.columns); ``python -c "import pandas"``, printed beside it
  from the same run, is about 4x the floor on a quiet machine with pandas 3.1 and pyarrow, which is
  why: a command that imports pandas cannot meet this target.

Also printed, not gated: the median CPU time of each process (user + system, getrusage's
RUSAGE_CHILDREN deltas) and its ratio to the floor's, ``import pandas`` alone, and larger samples to
their verdicts (the 7,032-rating detector panel, the judge trio's 1,440 observations, the 600-score
graded judge, an AlpacaEval log, whose readers still build pandas frames), for the record. Wall time is the gate: it
is what a CI job waits for; CPU time is printed beside it because another job on a shared machine
stretches wall time more than CPU time. The machine's load average is printed at the start and the
end.

Every process reads compiled bytecode, as an installed package does (pip compiles it at install): the
children write and read it under a fresh PYTHONPYCACHEPREFIX, warmed by one untimed run of each
command, whatever PYTHONDONTWRITEBYTECODE says here. ``--compile`` measures instead what a process
costs when it compiles every module it imports (PYTHONDONTWRITEBYTECODE=1 and no cache).

Run: make bench (or .venv/bin/python -m bench.bench_cli_startup [--compile] [repeats]).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 9
HELP_TARGET = 1.5
VERDICT_TARGET = 3.0

FLOOR = ("python -c 'import numpy'", ["-c", "import numpy"])
_CLI = ["-m", "agreebound"]
SUBCOMMANDS = ("panel", "calibrate", "inspect", "history", "compare", "delete", "share", "prune", "audit", "claim",
               "example", "validate", "serve", "samples", "schema", "drift")
HELPS = [("agreebound --help", [*_CLI, "--help"])] + [
    (f"agreebound {c} --help", [*_CLI, c, "--help"]) for c in SUBCOMMANDS]
VERDICTS = [
    ("agreebound panel sample_data/krippendorff_2011.csv", [*_CLI, "panel", "sample_data/krippendorff_2011.csv"]),
    ("agreebound calibrate sample_data/judge_illustrative.json",
     [*_CLI, "calibrate", "sample_data/judge_illustrative.json"]),
]
LARGER = [
    ("python -c 'import pandas' (a judge log's path imports it; a bundle's and the trio's do not)", ["-c", "import pandas"]),
    ("agreebound panel sample_data/detector_panel.csv", [*_CLI, "panel", "sample_data/detector_panel.csv"]),
    ("agreebound calibrate sample_data/judge_failing_contract.json (the tabular trio, 240 cases x 6 observations: no pandas)",
     [*_CLI, "calibrate", "sample_data/judge_failing_contract.json", "--references",
      "sample_data/judge_failing_references.csv", "--observations", "sample_data/judge_failing_observations.csv"]),
    ("agreebound calibrate sample_data/graded_judge.csv", [*_CLI, "calibrate", "sample_data/graded_judge.csv"]),
    ("agreebound calibrate sample_data/judge_logs/alpaca_eval_annotations.json (a harness's log: read into pandas)",
     [*_CLI, "calibrate", "sample_data/judge_logs/alpaca_eval_annotations.json"]),
]


def environment(pycache: str, compile_each: bool) -> dict[str, str]:
    """The children's environment: no history database (a verdict is never recorded here); bytecode
    written to and read from the folder ``pycache``, or (``compile_each``) never written there, so
    every process compiles what it imports."""
    env = {**os.environ, "AGREEBOUND_DB": "off", "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if compile_each:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


ENV: dict[str, str] = {}


def run(argv: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one whole process: ``python *argv`` from the repository's root,
    in the environment ``ENV``."""
    env = ENV
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def measure(commands: list[tuple[str, list[str]]], repeats: int) -> dict[str, tuple[float, float, int]]:
    """Median wall and CPU seconds of each command, interleaved (every command once, then again)."""
    walls: dict[str, list[float]] = {name: [] for name, _ in commands}
    cpus: dict[str, list[float]] = {name: [] for name, _ in commands}
    codes: dict[str, int] = {}
    for name, argv in commands:  # one warm-up each: the page cache and the bytecode, not timed
        wall, cpu, code = run(argv)
        codes[name] = code
    for _ in range(repeats):
        for name, argv in commands:
            wall, cpu, code = run(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
            if code != codes[name]:
                raise SystemExit(f"{name}: exit {code}, then {codes[name]}: not the same run twice")
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name]), codes[name])
            for name, _ in commands}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    compile_each = "--compile" in args
    args = [a for a in args if a != "--compile"]
    repeats = int(args[0]) if args else REPEATS
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs); "
          + ("every process compiles what it imports (--compile)" if compile_each else
             "bytecode compiled once, read by every process (as installed)"))
    commands = [FLOOR, *HELPS, *VERDICTS, *LARGER]
    with tempfile.TemporaryDirectory(prefix="agreebound-bench-pycache-") as pycache:
        ENV.clear()
        ENV.update(environment(pycache, compile_each))
        got = measure(commands, repeats)
    fw, fc, _ = got[FLOOR[0]]
    print(f"{FLOOR[0]}: wall {fw * 1000:.0f} ms, CPU {fc * 1000:.0f} ms (the floor; medians of {repeats} "
          "interleaved repetitions)")
    checks = []
    for group, target in ((HELPS, HELP_TARGET), (VERDICTS, VERDICT_TARGET), (LARGER, None)):
        for name, _ in group:
            w, c, code = got[name]
            line = (f"{name}: exit {code}, wall {w * 1000:.0f} ms ({w / fw:.2f}x the floor), "
                    f"CPU {c * 1000:.0f} ms ({c / fc:.2f}x)")
            if target is None:
                print(f"info: {line}")
                continue
            expected = 0 if group is HELPS else None
            ok = w / fw <= target and (expected is None or code == expected)
            checks.append((f"{line}; target: wall <= {target}x the floor", ok))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}: {text}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
