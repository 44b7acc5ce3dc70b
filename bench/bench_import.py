"""The file path at scale, beside its physical floor: a 10-million-rating long CSV to a verdict.

Issue 11's target: the CLI's time and peak memory to a verdict within 3x of the floor, which is
``pandas.read_csv(engine="pyarrow")`` plus our alpha on the frame it returns (no validation, no
located errors, no bootstrap, no report). Also measured: reading the bytes alone, and the mapping
preview, which parses only the head of a file (its time should not grow with the file).

Each contender runs in its own process (its own peak RSS, VmHWM), interleaved, median of REPEATS.
Run: make bench (or .venv/bin/python -m bench.bench_import [ratings]).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from tests.support.peak import run_cli  # noqa: E402  (the CLI in its own process, with its own peak memory)

REPEATS = 3
TARGET = 3.0

_PEER = textwrap.dedent("""
    import sys, time
    t0 = time.perf_counter()
    import numpy as np, pandas as pd
    from agreebound.panel.alpha import krippendorff_alpha
    from agreebound.panel.categories import Categories, Coded
    df = pd.read_csv(sys.argv[1], engine="pyarrow")
    unit, _ = pd.factorize(df["unit"])
    rater, names = pd.factorize(df["rater"])
    values, code = np.unique(df["value"].to_numpy(), return_inverse=True)
    a = krippendorff_alpha(Coded(unit, rater, code, int(unit.max()) + 1, len(names), Categories(floats=values)), "nominal")
    dt = time.perf_counter() - t0
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    print(dt, kb / 1024, a.value)
""")

_PREVIEW = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    data = Path(sys.argv[1]).read_bytes()
    t0 = time.perf_counter()
    from agreebound.io.preview import preview
    pv = preview(Path(sys.argv[1]).name, data)
    print(time.perf_counter() - t0, pv.rows_read, pv.head_only)
""")


def write_long_csv(path: Path, ratings: int, raters: int = 8, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    units = ratings // raters
    truth = rng.integers(0, 5, units)
    with path.open("w") as f:
        f.write("unit,rater,value\n")
        step = 250_000
        for start in range(0, units, step):
            stop = min(units, start + step)
            n = stop - start
            noisy = np.where(rng.random((n, raters)) < 0.7, truth[start:stop, None], rng.integers(0, 5, (n, raters)))
            u = np.repeat(np.arange(start, stop), raters).astype(str)
            r = np.tile(np.array([f"r{j}" for j in range(raters)]), n)
            f.write("\n".join(np.char.add(np.char.add(np.char.add(np.char.add(u, ","), r), ","),
                                          noisy.ravel().astype(str))))
            f.write("\n")


def peer(path: Path) -> tuple[float, float, str]:
    out = subprocess.run([sys.executable, "-c", _PEER, str(path)], capture_output=True, text=True, check=True).stdout
    dt, mib, alpha = out.split()
    return float(dt), float(mib), alpha


def ours(path: Path) -> tuple[float, float]:
    t0 = time.perf_counter()
    code, out, err, mib = run_cli(["panel", str(path), "--level", "nominal", "--json"], timeout=600)
    dt = time.perf_counter() - t0
    if code not in (0, 1, 2):
        raise SystemExit(f"the CLI failed ({code}): {err.decode()[:300]}")
    return dt, mib


def read_bytes(path: Path) -> float:
    t0 = time.perf_counter()
    path.read_bytes()
    return time.perf_counter() - t0


def preview_time(path: Path) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", _PREVIEW, str(path)], capture_output=True, text=True, check=True).stdout
    dt, rows, _ = out.split()
    return float(dt), int(rows)


def main() -> None:
    ratings = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.csv"
        write_long_csv(path, ratings)
        small = Path(tmp) / "small.csv"
        write_long_csv(small, ratings // 100)
        print(f"long CSV: {ratings:,} ratings, {path.stat().st_size / 2**20:.0f} MiB "
              f"(unit,rater,value; 8 raters; values 0..4)")
        rows = {"ours": [], "peer": [], "bytes": []}
        alpha = None
        for _ in range(REPEATS):
            rows["ours"].append(ours(path))
            t, m, alpha = peer(path)
            rows["peer"].append((t, m))
            rows["bytes"].append((read_bytes(path), 0.0))
        t_ours = statistics.median(t for t, _ in rows["ours"])
        m_ours = statistics.median(m for _, m in rows["ours"])
        t_peer = statistics.median(t for t, _ in rows["peer"])
        m_peer = statistics.median(m for _, m in rows["peer"])
        t_bytes = statistics.median(t for t, _ in rows["bytes"])
        print(f"  read the bytes:                              {t_bytes:6.2f} s")
        print(f"  floor: pandas.read_csv(pyarrow) + our alpha: {t_peer:6.2f} s  peak {m_peer:6.0f} MiB  (alpha {alpha})")
        print(f"  agreebound panel (CLI, to a verdict):        {t_ours:6.2f} s  peak {m_ours:6.0f} MiB")
        print(f"  ratio time   ours/floor = {t_ours / t_peer:.2f}x (target <= {TARGET:.0f}x)")
        print(f"  ratio memory ours/floor = {m_ours / m_peer:.2f}x (target <= {TARGET:.0f}x)")
        big = statistics.median(preview_time(path)[0] for _ in range(REPEATS))
        little = statistics.median(preview_time(small)[0] for _ in range(REPEATS))
        print(f"  mapping preview (head only): {big:.2f} s on {ratings:,} ratings, {little:.2f} s on "
              f"{ratings // 100:,}: ratio {big / little:.2f}x for 100x the data")


if __name__ == "__main__":
    main()
