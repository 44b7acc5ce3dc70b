"""The dashboard under load, the server alone: N sessions acting at once, measured without a browser.

Each session is a ``wsclient.Session``: Streamlit's own websocket protocol, no rendering. So the
figures are the server's: an action's time runs from its request sent to its ``script_finished``
received (server work and queueing plus a loopback hop); CPU and memory are the server process's
own (``/proc``). The browser-included figures for 10 sessions are bench/bench_load_browser.py's.

Scenarios, each with 1, 4, 10, 20 and 50 sessions opened at the same moment:

- **whatif**: every session moves the alpha-floor slider to a random value every 0.5-1.5 s.
- **panel**: every session uploads a ratings file (the bundled panel, its rows shuffled: new bytes,
  same verdicts) and presses Measure, every 2-4 s.
- **overview**: every session reruns the Overview page (what any widget outside a fragment does)
  every 0.5-1.5 s.

Also: the time for every page opened at once to show its first verdict, and the server's RSS with
20 sessions each holding a 1M-rating upload (the same file: its measurement is cached once by
digest and shared; RSS is said before, after one session and after twenty).

Targets (this machine, 2 cores): server CPU per slider move <= 0.05 s; with 20 sessions on What-if
p95 <= 300 ms, max <= 1 s, 0 errors; no errors in any scenario. The script exits 1 when one is
missed. ``--quick`` runs 1, 4 and 20 sessions and fewer actions; ``--only=whatif`` one scenario (no memory figures).

Run: make bench (or .venv/bin/python -m bench.bench_load [--quick]). Writes bench/results/load.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bench.wsclient import Action, Session  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "load.json"
SESSIONS = [1, 4, 10, 20, 50]
ACTIONS = {"whatif": 12, "panel": 4, "overview": 6}  # per session (an upload measures ~1 s of CPU)
FLOOR = "Alpha floor (permil)"
RATINGS = "Ratings: CSV/TSV (any delimiter), Excel, Parquet, JSON Lines, Label Studio or Prodigy export"
MEASURE = "Measure with this mapping"
CPU_PER_MOVE = 0.05
P95_20 = 0.300
MAX_20 = 1.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def running(argv: list[str], env: dict, out_path: Path):
    """``python <argv> --server.port <free port>`` (a Streamlit server), waited for until healthy
    and stopped afterwards: (url, process). Its output goes to ``out_path``."""
    port = free_port()
    out = out_path.open("wb")
    proc = subprocess.Popen([sys.executable, *argv, "--server.port", str(port)], cwd=ROOT, env=env,
                            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise SystemExit("streamlit did not start: " + out_path.read_text(errors="replace")[-2000:])
                time.sleep(0.3)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()


@contextmanager
def server(tmp: Path):
    """``streamlit run app.py`` with the repository's own .streamlit/config.toml (what `make run`
    and `agreebound serve` start), uploads recorded in a SQLite file of its own: (url, pid)."""
    env = {**os.environ, "AGREEBOUND_DB": str(tmp / "runs.db"), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with running(["-m", "streamlit", "run", "app.py"], env, tmp / "server.out") as (url, proc):
        yield url, proc.pid


def shuffled_panel(rng: random.Random) -> bytes:
    """The bundled panel with its rows in another order: new bytes (a new digest), same verdicts."""
    head, *rows = (ROOT / "sample_data" / "detector_panel.csv").read_text().splitlines()
    rng.shuffle(rows)
    return ("\n".join([head, *rows]) + "\n").encode()


async def act(s: Session, scenario: str, rng: random.Random) -> list[tuple[str, Action]]:
    if scenario == "whatif":
        return [("move", await s.set_slider(FLOOR, rng.randrange(400, 900)))]
    if scenario == "panel":
        up = await s.upload(RATINGS, "panel.csv", shuffled_panel(rng))
        return [("upload", up), ("measure", await s.click(MEASURE))]
    return [("rerun", await s.rerun())]


async def user(s: Session, scenario: str, actions: int, seed: int) -> list[tuple[str, Action]]:
    rng = random.Random(seed)
    think = (2.0, 4.0) if scenario == "panel" else (0.5, 1.5)
    done: list[tuple[str, Action]] = []
    for _ in range(actions):
        await asyncio.sleep(rng.uniform(*think))
        try:
            done += await act(s, scenario, rng)
        except Exception as e:  # noqa: BLE001  (a refused or dropped connection is an error counted, not a crash)
            done.append(("error", Action(0.0, 0, 0, [f"{type(e).__name__}: {e}"])))
    return done


def summary(times: list[float]) -> dict:
    if not times:
        return {}
    q = statistics.quantiles(times, n=20, method="inclusive") if len(times) > 1 else [times[0]] * 19
    return {"n": len(times), "median_s": round(statistics.median(times), 3), "p95_s": round(q[18], 3),
            "max_s": round(max(times), 3)}


PAGES = {"whatif": "whatif", "panel": "panel", "overview": ""}


async def phase(url: str, pid: int, scenario: str, n: int, actions: int) -> dict:
    opened = await asyncio.gather(*(Session.open(url, PAGES[scenario]) for _ in range(n)), return_exceptions=True)
    sessions = [o[0] for o in opened if not isinstance(o, BaseException)]
    errors = [f"open: {o}" for o in opened if isinstance(o, BaseException)]
    errors += [e for o in opened if not isinstance(o, BaseException) for e in o[1].errors]
    first = [s.first_verdict for s in sessions]
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    results = await asyncio.gather(*(user(s, scenario, actions, 1000 * n + i) for i, s in enumerate(sessions)))
    busy, wall = cpu_seconds(pid) - c0, time.perf_counter() - t0
    done = [x for r in results for x in r]
    errors += [e for _, a in done for e in a.errors]
    row = {"scenario": scenario, "sessions": n, "open": summary([o[1].seconds for o in opened
                                                                  if not isinstance(o, BaseException)]),
           "first_verdict_max_s": round(max((f for f in first if f is not None), default=float("nan")), 3),
           "actions": {}, "cpu_per_action_s": round(busy / max(1, sum(k != "upload" for k, _ in done)), 4),
           "server_cores_busy": round(busy / wall, 2), "rss_mb": round(rss_mb(pid)), "errors": errors[:10],
           "error_count": len(errors)}
    for kind in sorted({k for k, _ in done}):
        row["actions"][kind] = summary([a.seconds for k, a in done if k == kind])
    await asyncio.gather(*(s.close() for s in sessions))
    return row


async def memory(url: str, pid: int, data: bytes) -> dict:
    """RSS with 20 sessions each holding the same 1M-rating upload, measured."""
    await asyncio.sleep(2)
    base = rss_mb(pid)
    sessions = []
    for i in range(20):
        s, _ = await Session.open(url, "panel")
        a = await s.upload(RATINGS, "million.csv", data)
        if ("button", MEASURE) in s.widgets:  # else: the same bytes reopened as the run recorded before
            a = await s.click(MEASURE)
        sessions.append(s)
        if i == 0:
            one = rss_mb(pid)
            first = a.seconds
    twenty = rss_mb(pid)
    move = [(await s.rerun()).seconds for s in sessions]
    await asyncio.gather(*(s.close() for s in sessions))
    return {"rss_before_mb": round(base), "rss_one_session_mb": round(one), "rss_twenty_sessions_mb": round(twenty),
            "per_extra_session_mb": round((twenty - one) / 19, 1), "first_measure_s": round(first, 2),
            "rerun_median_s": round(statistics.median(move), 3), "upload_mb": round(len(data) / 1e6, 1)}


def million_bytes(tmp: Path) -> bytes:
    from bench.bench_whatif import million_csv

    path = tmp / "million.csv"
    million_csv(path)
    return path.read_bytes()


def header() -> None:
    print(f"{'scenario':9} {'n':>3} {'open med/max':>13} {'1st verdict':>11} {'action':8} {'median':>7} {'p95':>7} "
          f"{'max':>7} {'cpu/act':>8} {'cores':>5} {'rss MB':>6} {'errors':>6}", flush=True)


def line(r: dict) -> None:
    for kind, a in r["actions"].items():
        print(f"{r['scenario']:9} {r['sessions']:3} {r['open'].get('median_s', 0):6.2f}/{r['open'].get('max_s', 0):<6.2f}"
              f"{r['first_verdict_max_s']:11.2f} {kind:8} {a['median_s']:7.3f} {a['p95_s']:7.3f} {a['max_s']:7.3f} "
              f"{r['cpu_per_action_s']:8.4f} {r['server_cores_busy']:5.2f} {r['rss_mb']:6} {r['error_count']:6}", flush=True)


def report(rows: list[dict], mem: dict | None) -> list[str]:
    header()
    for r in rows:
        line(r)
    missed = []
    wi = {r["sessions"]: r for r in rows if r["scenario"] == "whatif"}
    if 1 in wi:
        c = wi[1]["cpu_per_action_s"]
        ok = c <= CPU_PER_MOVE
        print(f"{'PASS' if ok else 'FAIL'} server CPU per slider move {c:.4f} s (target <= {CPU_PER_MOVE})")
        missed += [] if ok else ["cpu per move"]
    if 20 in wi:
        a = wi[20]["actions"]["move"]
        for name, val, lim in (("p95", a["p95_s"], P95_20), ("max", a["max_s"], MAX_20)):
            ok = val <= lim
            print(f"{'PASS' if ok else 'FAIL'} What-if, 20 sessions at once: {name} {val * 1000:.0f} ms (target <= {lim * 1000:.0f})")
            missed += [] if ok else [f"20 sessions {name}"]
    errs = sum(r["error_count"] for r in rows)
    print(f"{'PASS' if errs == 0 else 'FAIL'} errors in every scenario: {errs}")
    missed += [] if errs == 0 else ["errors"]
    for r in rows:
        for e in r["errors"][:3]:
            print(f"  {r['scenario']} x{r['sessions']}: {e}")
    if mem:
        copied = mem["rss_one_session_mb"] - mem["rss_before_mb"]
        ok = mem["per_extra_session_mb"] <= max(10.0, 0.25 * copied)
        print(f"{'PASS' if ok else 'FAIL'} RSS with 20 sessions x a {mem['upload_mb']} MB, 1M-rating upload: "
              f"{mem['rss_before_mb']} MB before, {mem['rss_one_session_mb']} with one, {mem['rss_twenty_sessions_mb']} "
              f"with twenty ({mem['per_extra_session_mb']} MB per extra session; one session's measurement added "
              f"{copied} MB: shared, not copied)")
        missed += [] if ok else ["memory"]
    return missed


def main() -> None:
    quick = "--quick" in sys.argv
    only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
    counts = [1, 4, 20] if quick else SESSIONS
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="agreebound-load-") as d:
        tmp = Path(d)
        data = million_bytes(tmp)
        header()
        with server(tmp) as (url, pid):
            asyncio.run(Session.open(url, ""))  # the first import and sample measurement, outside the figures
            for scenario in only or ("whatif", "panel", "overview"):
                for n in counts:
                    rows.append(asyncio.run(phase(url, pid, scenario, n, max(2, ACTIONS[scenario] // (2 if quick else 1)))))
                    line(rows[-1])
        mem = None
        if not only:
            with server(tmp) as (url, pid):  # a fresh server: the memory figures start clean
                asyncio.run(Session.open(url, "panel"))
                mem = asyncio.run(memory(url, pid, data))
    missed = report(rows, mem)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"rows": rows, "memory": mem, "missed": missed}, indent=1))
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
