"""The dashboard under load with real browsers: 10 Chromium contexts on What-if, beside the server alone.

One Chromium, one context per user, all on the same 2-core machine as the server (so the figures
include the ten pages' own rendering, which in real use runs on each user's machine):

- **Opening:** the ten contexts open ``/whatif`` at the same moment; each page's time from its
  ``goto`` to the verdict strip showing a verdict. Target: each within 10 s. Beside it, Streamlit's
  own floor: the same ten contexts opening a one-line Streamlit app (a title and a verdict where
  the probe looks), and Chromium's CPU per page of each.
- **Moving:** each user moves the alpha-floor slider by keyboard (ArrowRight/ArrowLeft) every
  0.5-1.5 s. A move's time is from the keydown to the moment the strip shows the text it settles on
  (the page's own clock, bench_whatif's probe). Target: no move over 5 s.
- **The client's share:** the same ten users' moves through ``wsclient`` (the server alone, no
  rendering), run in the same process just before; the difference of the medians is the share of
  the browsers (rendering, and the CPU they take from the server on this shared machine). The
  server's and Chromium's CPU per move are read from ``/proc``.

Run: make bench (or .venv/bin/python bench/bench_load_browser.py [moves_per_user]). Exits 1 when a
target is missed. Writes bench/results/load_browser.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import cpu_seconds, phase, running, server, summary  # noqa: E402
from bench_whatif import CHROMIUM, LAUNCH_ARGS, PROBE, STRIP, VIEWPORT  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "load_browser.json"
USERS = 10
MOVES = 12
FIRST_VERDICT_S = 10.0
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


async def moves(page, count: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = []
    await page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=180_000)
    for i in range(count):
        await asyncio.sleep(rng.uniform(0.5, 1.5))
        slider = page.get_by_role("slider").first
        await slider.focus()
        await page.evaluate("window.__wb.arm()")
        await page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        await page.wait_for_function("window.__wb.done(200)", timeout=180_000, polling=50)
        r = await page.evaluate("window.__wb.take()")
        final = next((t for t, _, text in r["changes"] if text == r["final"]), None)
        out.append(((final if final is not None else r["t_down"]) - r["t_down"]) / 1000)
    return out


async def browsers(url: str, pid: int, count: int) -> dict:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        c_open = chromium_cpu()
        opened = await asyncio.gather(*(open_page(browser, url) for _ in range(USERS)))
        c_server, c_client = cpu_seconds(pid), chromium_cpu()
        open_cpu = (c_client - c_open) / USERS
        times = await asyncio.gather(*(moves(page, count, 7 + i) for i, (page, _) in enumerate(opened)))
        n = sum(len(t) for t in times)
        server_cpu, client_cpu = (cpu_seconds(pid) - c_server) / n, (chromium_cpu() - c_client) / n
        await browser.close()
    return {"first_verdict_s": [round(s, 2) for _, s in opened], "chromium_cpu_per_page_s": round(open_cpu, 3),
            "moves": summary([x for t in times for x in t]),
            "server_cpu_per_move_s": round(server_cpu, 4), "chromium_cpu_per_move_s": round(client_cpu, 4)}


#: The least Streamlit page that shows a verdict where the probe looks: Streamlit's own client cost.
ONE_LINE_APP = ("import streamlit as st\nst.title('What-if thresholds')\n"
                "with st.container(key='whatif_strip'):\n    st.markdown('ENFORCE')\n")


async def opened_at_once(url: str, path: str = "whatif") -> tuple[list[float], float]:
    """``USERS`` contexts open ``url/path`` at the same moment: each one's time to a verdict, and
    Chromium's CPU seconds per page."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        c0 = chromium_cpu()
        opened = await asyncio.gather(*(open_page(browser, url, path) for _ in range(USERS)))
        cpu = (chromium_cpu() - c0) / USERS
        await browser.close()
    return [round(s, 2) for _, s in opened], cpu


def floor(tmp: Path) -> dict:
    """Streamlit's own floor for the opening target: the same ten contexts opening a one-line
    Streamlit app (a title and the word ENFORCE where the probe looks) on the same machine."""
    app = tmp / "one_line_app.py"
    app.write_text(ONE_LINE_APP)
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    argv = ["-m", "streamlit", "run", str(app), "--server.headless", "true", "--runner.postScriptGC", "false"]
    with running(argv, env, tmp / "floor.out") as (url, _):
        asyncio.run(opened_at_once(url, ""))  # the server's first run, outside the figures
        times, cpu = asyncio.run(opened_at_once(url, ""))
    return {"first_verdict_s": times, "chromium_cpu_per_page_s": round(cpu, 3)}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else MOVES
    with tempfile.TemporaryDirectory(prefix="agreebound-loadb-") as d:
        one_line = floor(Path(d))
        with server(Path(d)) as (url, pid):
            from wsclient import Session

            asyncio.run(Session.open(url, "whatif"))  # imports and the samples' measurement, outside the figures
            alone = asyncio.run(phase(url, pid, "whatif", USERS, count))
            real = asyncio.run(browsers(url, pid, count))
    a, b = alone["actions"]["move"], real["moves"]
    print(f"What-if, {USERS} users at once, {count} moves each:")
    print(f"  server alone (wsclient): median {a['median_s']:.3f} s, p95 {a['p95_s']:.3f}, max {a['max_s']:.3f}; "
          f"server CPU per move {alone['cpu_per_action_s']:.4f} s")
    print(f"  with {USERS} Chromium contexts: median {b['median_s']:.3f} s, p95 {b['p95_s']:.3f}, max {b['max_s']:.3f}; "
          f"server CPU per move {real['server_cpu_per_move_s']:.4f} s, Chromium CPU per move "
          f"{real['chromium_cpu_per_move_s']:.4f} s")
    share = 1 - a["median_s"] / b["median_s"] if b["median_s"] else float("nan")
    print(f"  the client's share of the median move: {share:.0%} ({b['median_s'] - a['median_s']:.3f} s)")
    slowest = max(real["first_verdict_s"])
    least = max(one_line["first_verdict_s"])
    print(f"  {USERS} pages opened at once: the slowest shows its verdict in {slowest:.1f} s, Chromium CPU "
          f"{real['chromium_cpu_per_page_s']:.2f} s per page; Streamlit's own floor (a one-line app, the same "
          f"{USERS} contexts): {least:.1f} s, {one_line['chromium_cpu_per_page_s']:.2f} s per page "
          f"(ours {slowest / least:.2f}x the floor)")
    missed = []
    for name, ok, said in (("first verdict", slowest <= FIRST_VERDICT_S,
                            f"{USERS} pages opened at once show a verdict within {slowest:.1f} s (target <= {FIRST_VERDICT_S:.0f})"),
                           ("move max", b["max_s"] <= MOVE_MAX_S,
                            f"slowest move with {USERS} Chromium contexts {b['max_s']:.2f} s (target <= {MOVE_MAX_S:.0f})")):
        print(f"{'PASS' if ok else 'FAIL'} {said}")
        missed += [] if ok else [name]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"alone": alone, "browsers": real, "one_line_app": one_line, "client_share": share,
                                   "missed": missed}, indent=1))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
