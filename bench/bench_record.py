"""What recording a run costs on the way to a verdict: a 1M-rating upload, measured as the
dashboard does it (read, measure every dimension, build the report) with and without recording
the run (agreebound.app.store), side by side in this process, interleaved, medians.

Issue 13's target: recording adds at most 10% to the time to verdict of an upload (the dashboard's
path, in a process where the store is open). Beside it, for information: the command line from
process start, where --record also imports SQLAlchemy (about 0.2 s, once per process). Also shown: a second upload
of the same bytes stores no new blob (content addressing), on SQLite and on a throwaway
PostgreSQL server (Debian's postgresql, started the way the tests start it).

Run: make bench (or .venv/bin/python -m bench.bench_record [units]).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_whatif import million_csv  # noqa: E402  (the same 1M-rating upload the what-if bench uses)

from agreebound.panel.measure import measure_panels  # noqa: E402
from agreebound.io.ratings import import_ratings  # noqa: E402
from agreebound.render.report import panel_report  # noqa: E402
from agreebound.app.pipeline import decide_panels
from agreebound.app.store import Store  # noqa: E402
from agreebound.core.thresholds import DEFAULT  # noqa: E402

REPEATS = 9
TARGET = 1.10


def verdict(name: str, data: bytes) -> dict:
    imported = import_ratings(name, data)
    measured = measure_panels(imported.panels, "auto")
    return panel_report(measured, decide_panels(measured, DEFAULT), DEFAULT, [(name, data)], imported)


def verdict_and_record(store: Store, name: str, data: bytes) -> float:
    """The verdict, then the run recorded; returns the recording's own seconds."""
    report = verdict(name, data)
    t0 = time.perf_counter()
    store.record("panel", [("ratings", name, data)], report, {"level": "auto"}, DEFAULT.to_dict(),
                 DEFAULT.source, origin="dashboard")
    return time.perf_counter() - t0


def bench(label: str, url: str, name: str, data: bytes) -> dict:
    plain, recorded, record_only, writes = [], [], [], []
    with Store.open(url) as store:
        for i in range(REPEATS):  # interleaved: each pair sees the same machine state
            # each repetition is a new upload (one more unit, so new bytes): its blob is written
            upload = data + f"extra{i},1,1,1,1,1,1,1,1,1,1\n".encode()
            t0 = time.perf_counter()
            verdict(name, upload)
            plain.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            writes.append(verdict_and_record(store, name, upload))
            recorded.append(time.perf_counter() - t0)
        report = verdict(name, data)
        store.record("panel", [("ratings", name, data)], report, {}, DEFAULT.to_dict(), DEFAULT.source)
        counts_before = store.counts()
        for _ in range(REPEATS):  # the same bytes again: nothing new is stored
            t0 = time.perf_counter()
            store.record("panel", [("ratings", name, data)], report, {}, DEFAULT.to_dict(), DEFAULT.source)
            record_only.append(time.perf_counter() - t0)
        counts = store.counts()
    ratio = statistics.median(recorded) / statistics.median(plain)
    share = statistics.median(writes) / statistics.median(plain)
    print(f"{label}: verdict median {statistics.median(plain):.3f} s; verdict + record median "
          f"{statistics.median(recorded):.3f} s: ratio {ratio:.3f} (target <= {TARGET}); {REPEATS} interleaved "
          f"repetitions")
    print(f"{label}: the recording itself (new bytes, blob written): median {statistics.median(writes) * 1000:.0f} ms "
          f"= {100 * share:.1f}% of the verdict's median (max {max(writes) * 1000:.0f} ms); the same bytes again: "
          f"median {statistics.median(record_only) * 1000:.0f} ms")
    new_runs = counts["runs"] - counts_before["runs"]
    print(f"{label}: {new_runs} more uploads of the same bytes stored {counts['blobs'] - counts_before['blobs']} new "
          f"blobs and {counts['blob_bytes'] - counts_before['blob_bytes']} new bytes; {counts['blobs']} blobs of "
          f"{counts['blob_bytes']:,} bytes take {counts['stored_bytes']:,} bytes stored (zstd)")
    assert counts["blobs"] == counts_before["blobs"] and counts["blob_bytes"] == counts_before["blob_bytes"], counts
    return {"ratio": ratio, "share": share}


def cli(path: Path, db: str | None) -> float:
    """The command line from start to verdict (a new process each time), with --record or not."""
    import subprocess

    argv = [sys.executable, "-m", "agreebound.cli.main", "panel", str(path)] + (["--record", "--db", db] if db else [])
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    assert done.returncode in (0, 1, 2), done.stderr
    return dt


def bench_cli(path: Path, db: str) -> float:
    plain, recorded = [], []
    for _ in range(REPEATS):
        plain.append(cli(path, None))
        recorded.append(cli(path, db))
    ratio = statistics.median(recorded) / statistics.median(plain)
    print(f"CLI (SQLite), process start to verdict: median {statistics.median(plain):.3f} s plain, "
          f"{statistics.median(recorded):.3f} s with --record: ratio {ratio:.3f}; {REPEATS} interleaved repetitions "
          "(the difference is mostly importing SQLAlchemy, once per process; the dashboard pays it once)")
    return ratio


def main() -> int:
    units = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload_1M.csv"
        million_csv(path, units=units)
        data = path.read_bytes()
        print(f"upload: {units:,} units x 10 raters = {units * 10:,} cells, {len(data) / 2**20:.1f} MiB CSV")
        results = {"sqlite": bench("SQLite", f"sqlite:///{Path(tmp) / 'runs.db'}", path.name, data)}
        # Information, not the target: a new process pays SQLAlchemy's import (about 0.2 s) once.
        cli_ratio = bench_cli(path, f"sqlite:///{Path(tmp) / 'cli.db'}")
        try:
            from tests.support import pg_server

            server = pg_server.start()
        except Exception as e:  # noqa: BLE001 - PostgreSQL is optional for the benchmark
            print(f"PostgreSQL: not measured ({e})")
        else:
            try:
                results["postgresql"] = bench("PostgreSQL", server.url_for(server.create_database()), path.name, data)
            finally:
                server.stop()
    worst = max(r["ratio"] for r in results.values())
    ok = worst <= TARGET
    print(f"{'PASS' if ok else 'FAIL'}: recording a new upload adds {100 * (worst - 1):.1f}% at most to the time to "
          f"verdict (medians; target {100 * (TARGET - 1):.0f}%)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
