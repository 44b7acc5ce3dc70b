"""The browser's work per page: the Overview's main-thread time against the What-if page's.

One Chromium (the house's launch arguments, 1440 x 900), the dashboard's own server on the
bundled samples. A round opens the Overview (``/``) and ``/whatif`` in a fresh context each, one after the
other, the order alternating between rounds (a first round outside the figures: the server's
imports and the samples' measurement). A page is done when the app is idle, every chart it drew
is on screen and nothing in the document changed for ``QUIET_MS``; then Chromium's own counters
(the DevTools protocol's ``Performance.getMetrics``, the page's renderer since the page opened)
are read:

- **main thread**: ``TaskDuration``, every task the page's main thread ran (script, style,
  layout, paint); ``ScriptDuration`` and ``LayoutDuration`` beside it;
- the page's DOM elements, its plotly charts (``.js-plotly-plot``) and the script bytes it loaded.

Target: the Overview's median main-thread time within 1.5x the What-if page's (medians over the
rounds, each page's figure from the same rounds). The ratio of the medians is the figure; the
script exits 1 when it is over.

Run: make bench (or .venv/bin/python -m bench.bench_page_weight [rounds]). Writes
bench/results/page_weight.json.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench.bench_load import server
from bench.bench_whatif import CHROMIUM, IDLE, LAUNCH_ARGS, VIEWPORT
from playwright.sync_api import Page, sync_playwright

RESULTS = Path(__file__).resolve().parent / "results" / "page_weight.json"
ROUNDS = 5
TARGET = 1.5
QUIET_MS = 1000
PAGES = ("overview", "whatif")
PATHS = {"overview": "", "whatif": "whatif"}  # the Overview is the default page: the app's root

# A page is drawn once the app is idle, its plotly charts have each drawn their plot (the main
# SVG), and the document has not changed for QUIET_MS (a MutationObserver installed before the app).
QUIET = """
(() => {
  window.__pw = {last: performance.now()};
  const start = () => new MutationObserver(() => { window.__pw.last = performance.now(); })
    .observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""
DRAWN = ("(q) => !!document.querySelector(\"[data-testid='stApp'][data-test-script-state='notRunning']\")"
         " && [...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelector('.main-svg'))"
         " && performance.now() - window.__pw.last >= q")


def weigh(browser, url: str, path: str) -> dict:
    """Open ``url/path`` in a fresh context; the renderer's counters once the page is drawn."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(QUIET)
    page: Page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    scripts: list[int] = []
    page.on("response", lambda r: scripts.append(int(r.headers.get("content-length", 0) or 0))
            if r.request.resource_type == "script" else None)
    page.goto(f"{url}/{path}")
    page.wait_for_selector(IDLE, timeout=180_000)
    page.wait_for_function(DRAWN, arg=QUIET_MS, timeout=180_000, polling=100)
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    out = {"task_s": round(metrics["TaskDuration"], 3), "script_s": round(metrics["ScriptDuration"], 3),
           "layout_s": round(metrics["LayoutDuration"] + metrics["RecalcStyleDuration"], 3),
           "elements": page.evaluate("document.getElementsByTagName('*').length"),
           "charts": page.evaluate("document.querySelectorAll('.js-plotly-plot').length"),
           "script_kb": round(sum(scripts) / 1024)}
    context.close()
    return out


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    load = os.getloadavg()
    rows: dict[str, list[dict]] = {p: [] for p in PAGES}
    with tempfile.TemporaryDirectory(prefix="agreebound-weight-") as d, server(Path(d)) as (url, _), \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            for p in PAGES:  # the server's first runs (imports, the samples' measurement), outside the figures
                weigh(browser, url, PATHS[p])
            for r in range(rounds):
                for p in (PAGES if r % 2 == 0 else PAGES[::-1]):
                    rows[p].append(weigh(browser, url, PATHS[p]))
        finally:
            browser.close()
    med = {p: {k: statistics.median(x[k] for x in rows[p]) for k in rows[p][0]} for p in PAGES}
    ratio = med["overview"]["task_s"] / med["whatif"]["task_s"]
    print(f"Main-thread time per page, Chromium {VIEWPORT['width']}x{VIEWPORT['height']}, {rounds} rounds interleaved, "
          f"medians (load average {load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; "
          f"{os.cpu_count()} CPUs):")
    print(f"  {'page':9} {'main thread s':>13} {'script s':>9} {'style+layout s':>14} {'elements':>8} {'charts':>6} "
          f"{'script KiB':>10}")
    for p in PAGES:
        m = med[p]
        print(f"  {p:9} {m['task_s']:13.3f} {m['script_s']:9.3f} {m['layout_s']:14.3f} {m['elements']:8.0f} "
              f"{m['charts']:6.0f} {m['script_kb']:10.0f}   (each round: "
              + ", ".join(f"{x['task_s']:.2f}" for x in rows[p]) + ")")
    ok = ratio <= TARGET
    print(f"{'PASS' if ok else 'FAIL'} the Overview's main-thread time {ratio:.2f}x the What-if page's "
          f"(target <= {TARGET}x)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"load_average": [load, os.getloadavg()], "rounds": rows, "medians": med,
                                   "ratio": round(ratio, 3), "target": TARGET}, indent=1))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
