"""Dashboard responsiveness, like with like: the What-if page's first render with a 1M-rating panel
against the same page's slider rerun, both in Chromium from the user's action to the updated
screen (the verdict strip's final text, the app idle).

First render: a fresh browser opens ``/whatif?run=<id>`` (a run recorded from the command line):
the stored bytes are read back, parsed, measured (alpha for every dimension, the bootstrap) and the
page drawn. Slider rerun: a key press on the alpha-floor slider (decide and redraw only). Target:
the rerun's median at most 10% of the first render's median; the script exits 1 when it is not.

Run: make bench (or .venv/bin/python -m bench.bench_dashboard [repetitions]).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_whatif import (  # noqa: E402  (the What-if bench's server, probe and measuring)
    CHROMIUM,
    LAUNCH_ARGS,
    PROBE,
    ROOT,
    STRIP,
    VIEWPORT,
    million_csv,
    server,
    settle,
    slider_moves,
)
from playwright.sync_api import sync_playwright  # noqa: E402

TARGET = 0.10
KEYS = ["ArrowRight", "ArrowLeft", "PageUp", "PageDown"]


def main() -> int:
    repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGREEBOUND_DB"] = f"sqlite:///{Path(tmp) / 'runs.db'}"  # the server and the CLI share it
        csv = Path(tmp) / "million.csv"
        million_csv(csv)
        done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(csv), "--record"],
                              capture_output=True, text=True, cwd=ROOT)
        if done.returncode not in (0, 1, 2):
            raise SystemExit(f"could not record the run: {done.stderr[:300]}")
        run_id = done.stdout.strip().splitlines()[-1].split()[1]
        first, moves = [], []
        with server(Path(tmp)) as (url, log), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                for _ in range(repetitions):  # interleaved: a first render, then its slider reruns
                    context = browser.new_context(viewport=VIEWPORT)
                    context.add_init_script(PROBE)
                    page = context.new_page()
                    t0 = time.perf_counter()
                    page.goto(f"{url}/whatif?run={run_id}")
                    page.wait_for_selector(STRIP, timeout=600_000)
                    settle(page, 600_000)
                    first.append((time.perf_counter() - t0) * 1000)
                    side = page.locator("[data-testid='stSidebar']").inner_text()
                    assert "million.csv" in side, side[-600:]
                    moves += [m["strip_ms"] for m in slider_moves(page, log, "floor", KEYS) if m["strip_ms"] is not None]
                    context.close()
            finally:
                browser.close()
    f, s = statistics.median(first), statistics.median(moves)
    ratio = s / f
    print(f"1,000,000 ratings ({csv.name}, 100,000 units x 10 raters), What-if page, Chromium, {os.cpu_count()} CPUs")
    print(f"first render (open ?run=, read, parse, measure, draw): median {f:.0f} ms over {len(first)} fresh browsers")
    print(f"slider rerun (key press -> updated strip): median {s:.0f} ms over {len(moves)} moves "
          f"(max {max(moves):.0f} ms)")
    ok = ratio <= TARGET
    print(f"{'PASS' if ok else 'FAIL'}: slider rerun / first render = {ratio:.1%} (target <= {TARGET:.0%})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
