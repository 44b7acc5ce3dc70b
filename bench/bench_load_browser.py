"""The dashboard under load with real browsers: 10 Chromium contexts on What-if, beside the server alone.

One Chromium, one context per user, all on the same 2-core machine as the server (so the figures
include the ten pages' own rendering, which in real use runs on each user's machine):

- **Opening:** ten contexts of a fresh Chromium open ``/whatif`` at the same moment; each page's
  time from its ``goto`` to the verdict strip showing a verdict. Its floor, measured in the same
  run: Streamlit's own one-line app (a title and a verdict where the probe looks), served by a
  second server started beside ours, opened the same way by ten contexts of a fresh Chromium.
  A round opens both, one after the other, the order alternating between rounds (``ROUNDS``
  rounds; both servers warm, a first round outside the figures). Within a round each of our pages
  is set against the floor's page of the same rank (the fastest against the fastest, ...).
  Target: the median of those ratios within 1.2x; the worst is said beside it. Chromium's CPU per
  page of each is said too.
- **Moving:** each user moves the alpha-floor slider by keyboard (ArrowRight/ArrowLeft) every
  0.5-1.5 s. A move's time is from the keydown to the moment the strip shows the text it settles on
  (the page's own clock, bench_whatif's probe). Target: no move over 5 s.
- **The client's share:** the same ten users' moves through ``wsclient`` (the server alone, no
  rendering), run in the same process just before; the difference of the medians is the share of
  the browsers (rendering, and the CPU they take from the server on this shared machine). The
  server's and Chromium's CPU per move are read from ``/proc``.

Run: make bench (or .venv/bin/python -m bench.bench_load_browser [moves_per_user] [rounds]; 0 moves:
the opening only). Exits 1 when a
target is missed. Writes bench/results/load_browser.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_load import cpu_seconds, phase, running, server, summary  # noqa: E402
from bench.bench_whatif import CHROMIUM, FLOOR_SLIDER, IDLE, LAUNCH_ARGS, PROBE, STRIP, VIEWPORT, slider  # noqa: E402
from playwright.async_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "load_browser.json"
USERS = 10
MOVES = 12
ROUNDS = 3
OPEN_RATIO = 1.2  # our page's first verdict against the one-line app's, median over pages and rounds
MOVE_MAX_S = 5.0
VERDICT = "['ENFORCE', 'REPORT_ONLY', 'REFUSE_SINGLE'].some(v => (document.querySelector(%r) || {}).textContent?.includes(v))" % STRIP


def chromium_cpu() -> float:
    """CPU seconds of every Chromium process on the machine (the bench's own browser only runs here)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        if "chrom" in name:
            total += cpu_seconds(int(stat.parent.name))
    return total


async def open_page(browser, url: str, path: str = "whatif") -> tuple[object, float]:
    ctx = await browser.new_context(viewport=VIEWPORT)
    await ctx.add_init_script(PROBE)
    page = await ctx.new_page()
    t0 = time.perf_counter()
    await page.goto(f"{url}/{path}")
    await page.wait_for_function(VERDICT, timeout=180_000, polling=50)
    return page, time.perf_counter() - t0


#: Key presses that did not reach the slider (it was drawn again between its focus and the key)
#: and were pressed again: said, not hidden. A move's time runs from the press that took.
LOST_PRESSES: list[int] = []
#: Moves whose page never showed the move's rerun ended within STALL_S: counted at STALL_S (so the
#: slowest-move target fails), not waited for.
STALL_S = 30.0
STALLED: list[int] = []


async def press(page, key: str) -> None:
    """Focus the alpha-floor slider and press ``key``; press again (at most twice more) if the
    slider's value did not change within 5 s."""
    for attempt in range(3):
        floor = slider(page, "floor")
        handle = await floor.element_handle()
        before = await handle.evaluate("el => el.value")  # an <input type=range>
        await floor.focus()
        await page.evaluate("window.__wb.arm()")
        await page.keyboard.press(key)
        try:
            await page.wait_for_function("([el, v]) => el.isConnected && el.value !== v",
                                         arg=[handle, before], timeout=5_000, polling=50)
            return
        except PlaywrightTimeout:
            LOST_PRESSES.append(1)
    raise RuntimeError(f"three {key} presses did not move the slider")


async def moves(page, count: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = []
    await page.wait_for_selector(IDLE, timeout=180_000)
    await page.wait_for_selector(FLOOR_SLIDER, timeout=180_000)  # drawn after the strip: a user waits for it too
    for i in range(count):
        await asyncio.sleep(rng.uniform(0.5, 1.5))
        await press(page, "ArrowRight" if i % 2 == 0 else "ArrowLeft")
        try:
            await page.wait_for_function("window.__wb.done(200)", timeout=STALL_S * 1000, polling=50)
        except PlaywrightTimeout:  # the page never showed the move: a stalled move, timed at STALL_S and said
            STALLED.append(1)
            out.append(STALL_S)
            continue
        r = await page.evaluate("window.__wb.take()")
        final = next((t for t, _, text in r["changes"] if text == r["final"]), None)
        out.append(((final if final is not None else r["t_down"]) - r["t_down"]) / 1000)
    return out


async def browsers(url: str, pid: int, count: int) -> dict:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        opened, _ = await opened_at_once(browser, url)
        c_server, c_client = cpu_seconds(pid), chromium_cpu()
        times = await asyncio.gather(*(moves(page, count, 7 + i) for i, (page, _) in enumerate(opened)))
        n = sum(len(t) for t in times)
        server_cpu, client_cpu = (cpu_seconds(pid) - c_server) / n, (chromium_cpu() - c_client) / n
        await browser.close()
    return {"presses_pressed_again": len(LOST_PRESSES), "moves_stalled": len(STALLED),
            "moves": summary([x for t in times for x in t]),
            "server_cpu_per_move_s": round(server_cpu, 4), "chromium_cpu_per_move_s": round(client_cpu, 4)}


#: The least Streamlit page that shows a verdict where the probe looks: Streamlit's own client cost.
ONE_LINE_APP = ("import streamlit as st\nst.title('What-if thresholds')\n"
                "with st.container(key='whatif_strip'):\n    st.markdown('ENFORCE')\n")


async def opened_at_once(browser, url: str, path: str = "whatif") -> tuple[list[tuple[object, float]], float]:
    """``USERS`` contexts of ``browser`` open ``url/path`` at the same moment: each page with its
    time to a verdict, and Chromium's CPU seconds per page."""
    c0 = chromium_cpu()
    opened = await asyncio.gather(*(open_page(browser, url, path) for _ in range(USERS)))
    return opened, (chromium_cpu() - c0) / USERS


async def open_round(url: str, path: str) -> tuple[list[float], float]:
    """Ten contexts of a fresh Chromium open ``url/path`` at once: their times to a verdict
    (sorted) and Chromium's CPU seconds per page."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        opened, cpu = await opened_at_once(browser, url, path)
        await browser.close()
    return sorted(round(s, 3) for _, s in opened), cpu


def opening(floor_url: str, url: str, rounds: int) -> dict:
    """Ours (``/whatif``) and the floor (the one-line app) opened by ten contexts at once,
    alternating, ``rounds`` times each after a round of each outside the figures; each of our
    pages against the floor's page of the same rank in the same round."""
    asyncio.run(open_round(floor_url, ""))  # the servers' first runs (imports, the samples' measurement)
    asyncio.run(open_round(url, "whatif"))
    ours, least, cpu_ours, cpu_least = [], [], [], []
    for r in range(rounds):
        for which in (("floor", "ours") if r % 2 == 0 else ("ours", "floor")):
            times, cpu = asyncio.run(open_round(floor_url, "") if which == "floor" else open_round(url, "whatif"))
            (least if which == "floor" else ours).append(times)
            (cpu_least if which == "floor" else cpu_ours).append(cpu)
    ratios = [o / f for oo, ff in zip(ours, least) for o, f in zip(oo, ff)]
    return {"rounds": rounds, "ours_s": ours, "floor_s": least, "ratios": [round(x, 3) for x in ratios],
            "median_ratio": round(statistics.median(ratios), 3), "worst_ratio": round(max(ratios), 3),
            "ours_median_s": round(statistics.median(x for t in ours for x in t), 2),
            "floor_median_s": round(statistics.median(x for t in least for x in t), 2),
            "chromium_cpu_per_page_s": round(statistics.median(cpu_ours), 3),
            "floor_chromium_cpu_per_page_s": round(statistics.median(cpu_least), 3)}


def floor_app(tmp: Path):
    """Streamlit's own floor for the opening target: a one-line Streamlit app (a title and the
    word ENFORCE where the probe looks), served beside ours: (url, process)."""
    app = tmp / "one_line_app.py"
    app.write_text(ONE_LINE_APP)
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    argv = ["-m", "streamlit", "run", str(app), "--server.headless", "true", "--runner.postScriptGC", "false"]
    return running(argv, env, tmp / "floor.out")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else MOVES
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="agreebound-loadb-") as d:
        with floor_app(Path(d)) as (floor_url, _), server(Path(d)) as (url, pid):
            opened = opening(floor_url, url, rounds)
            alone = real = None
            if count:
                from bench.wsclient import Session

                asyncio.run(Session.open(url, "whatif"))
                alone = asyncio.run(phase(url, pid, "whatif", USERS, count))
                real = asyncio.run(browsers(url, pid, count))
    missed = []
    print(f"{USERS} pages opened at once, {rounds} rounds (load average {load[0]:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end; {os.cpu_count()} CPUs):")
    print(f"  What-if: first verdict median {opened['ours_median_s']:.2f} s (per round: "
          + ", ".join(f"{t[0]:.1f}-{t[-1]:.1f}" for t in opened["ours_s"])
          + f"), Chromium CPU {opened['chromium_cpu_per_page_s']:.2f} s per page")
    print(f"  Streamlit's one-line app (the floor): median {opened['floor_median_s']:.2f} s (per round: "
          + ", ".join(f"{t[0]:.1f}-{t[-1]:.1f}" for t in opened["floor_s"])
          + f"), Chromium CPU {opened['floor_chromium_cpu_per_page_s']:.2f} s per page")
    ok = opened["median_ratio"] <= OPEN_RATIO
    print(f"{'PASS' if ok else 'FAIL'} first verdict on each of {USERS} pages opened at once: median "
          f"{opened['median_ratio']:.2f}x the floor's page of the same rank (target <= {OPEN_RATIO}x; the worst "
          f"page {opened['worst_ratio']:.2f}x)")
    missed += [] if ok else ["first verdict"]
    share = None
    if alone is not None and real is not None:
        a, b = alone["actions"]["move"], real["moves"]
        print(f"What-if, {USERS} users at once, {count} moves each:")
        print(f"  server alone (wsclient): median {a['median_s']:.3f} s, p95 {a['p95_s']:.3f}, max {a['max_s']:.3f}; "
              f"server CPU per move {alone['cpu_per_action_s']:.4f} s")
        print(f"  with {USERS} Chromium contexts: median {b['median_s']:.3f} s, p95 {b['p95_s']:.3f}, max {b['max_s']:.3f}; "
              f"server CPU per move {real['server_cpu_per_move_s']:.4f} s, Chromium CPU per move "
              f"{real['chromium_cpu_per_move_s']:.4f} s")
        if real["presses_pressed_again"]:
            print(f"  {real['presses_pressed_again']} key presses did not reach the slider (drawn again between its "
                  "focus and the key) and were pressed again; those moves are timed from the press that took")
        if real["moves_stalled"]:
            print(f"  {real['moves_stalled']} moves never showed their rerun's end within {STALL_S:.0f} s "
                  f"(counted at {STALL_S:.0f} s)")
        share = 1 - a["median_s"] / b["median_s"] if b["median_s"] else float("nan")
        print(f"  the client's share of the median move: {share:.0%} ({b['median_s'] - a['median_s']:.3f} s)")
        ok = b["max_s"] <= MOVE_MAX_S
        print(f"{'PASS' if ok else 'FAIL'} slowest move with {USERS} Chromium contexts {b['max_s']:.2f} s "
              f"(target <= {MOVE_MAX_S:.0f})")
        missed += [] if ok else ["move max"]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"load_average": [load, os.getloadavg()], "opening": opened, "alone": alone,
                                   "browsers": real, "client_share": share, "missed": missed}, indent=1))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
