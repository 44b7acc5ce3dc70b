"""A large Label Studio export (about 107 MB of JSON, as issue 21 measured) to a verdict, beside
its floor: ``json.load`` of the same file alone, the least any reader that builds Python objects
pays. The export used to be parsed whole and copied into records (82 s, 1.9 GB); it is now
streamed one task at a time, so its peak should stay near the floor's and far under 1 GiB.

Each contender runs in its own process (its own peak RSS, VmHWM), interleaved, median of REPEATS.
Run: make bench (or .venv/bin/python -m bench.bench_label_studio [tasks]).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from tests.support.peak import run_cli  # noqa: E402

REPEATS = 3
PEAK_TARGET_MIB = 1024
TIME_TARGET = 3.0  # ours / json.load

_FLOOR = textwrap.dedent("""
    import json, sys, time
    t0 = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        obj = json.load(f)
    dt = time.perf_counter() - t0
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    print(dt, kb / 1024, len(obj))
""")


def write_export(path: Path, tasks: int, annotators: int = 3) -> None:
    """Tasks with a text, three annotators' choices and one model prediction, as Label Studio
    writes them (ids, timestamps, lead times): the bulk of a real export is this bookkeeping."""
    with path.open("w") as f:
        f.write("[")
        for t in range(tasks):
            anns = [{"id": t * 10 + a, "completed_by": {"id": a, "email": f"annotator{a}@example.org"},
                     "result": [{"id": f"r{t}-{a}", "from_name": "sentiment", "to_name": "text", "type": "choices",
                                 "origin": "manual", "value": {"choices": [("pos", "neg", "neu")[(t + a * (t % 3)) % 3]]}}],
                     "was_cancelled": False, "ground_truth": False, "created_at": "2026-11-01T10:00:00.000000Z",
                     "updated_at": "2026-11-01T10:00:00.000000Z", "lead_time": 12.5 + a, "task": t, "project": 7}
                    for a in range(annotators)]
            pred = [{"id": t, "model_version": "v3", "score": 0.8,
                     "result": [{"from_name": "sentiment", "to_name": "text", "type": "choices",
                                 "value": {"choices": [("pos", "neg", "neu")[t % 3]]}}]}]
            task = {"id": t + 1, "data": {"text": f"Review {t}: " + "lorem ipsum dolor sit amet " * 8},
                    "annotations": anns, "predictions": pred, "meta": {}, "created_at": "2026-11-01T09:00:00Z"}
            f.write(("," if t else "") + json.dumps(task))
        f.write("]")


def main() -> None:
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 62_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export.json"
        write_export(path, tasks)
        print(f"Label Studio export: {tasks:,} tasks, {path.stat().st_size / 10**6:.0f} MB")
        ours, floor = [], []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            code, _, err, mib = run_cli(["panel", str(path), "--json"], timeout=900)
            ours.append((time.perf_counter() - t0, mib))
            if code not in (0, 1, 2):
                raise SystemExit(f"the CLI failed ({code}): {err.decode()[:300]}")
            dt, fm, _ = subprocess.run([sys.executable, "-c", _FLOOR, str(path)], capture_output=True, text=True,
                                       check=True).stdout.split()
            floor.append((float(dt), float(fm)))
        t_ours, m_ours = statistics.median(t for t, _ in ours), statistics.median(m for _, m in ours)
        t_floor, m_floor = statistics.median(t for t, _ in floor), statistics.median(m for _, m in floor)
        print(f"  floor: json.load alone:            {t_floor:6.2f} s  peak {m_floor:6.0f} MiB")
        print(f"  agreebound panel (to a verdict):   {t_ours:6.2f} s  peak {m_ours:6.0f} MiB")
        print(f"  ratio time ours/floor = {t_ours / t_floor:.2f}x (target <= {TIME_TARGET:.0f}x); "
              f"memory ours/floor = {m_ours / m_floor:.2f}x; peak target < {PEAK_TARGET_MIB} MiB")
        if m_ours >= PEAK_TARGET_MIB or t_ours / t_floor > TIME_TARGET:
            raise SystemExit("bench_label_studio: a target was missed")


if __name__ == "__main__":
    main()
