"""What-if slider latency in a real browser: from the key press to the updated verdict strip.

Target: a slider move reaches an updated strip (``.st-key-whatif_strip``) in at most 250 ms, in
Chromium, on the bundled samples and on a 1M-rating upload. The sliders and the strip live in one
``st.fragment``, so a move reruns only the fragment. Its peer, side by side in the same server,
page and session: a full-page rerun that redraws the same strip ("Reset to defaults" in the
sidebar, clicked after a move of the same slider), measured the same way.

Timed in the page's own clock (``performance.now()``): a capture-phase listener records the
keydown and keyup (mousedown and click for the button), a MutationObserver records every change
of the strip's text and of the app's script state (running / notRunning). A move's latency is the
time from the keydown to the first moment the strip shows the text it settles on ("+frame": to
the next animation frame after that, which the paint follows). Moves alternate
ArrowRight/ArrowLeft and cross verdict flips with PageUp/PageDown, on the alpha-floor slider and
on the last judge slider (self-preference maximum).

Where the time goes: the page also timestamps every websocket frame it sends and handles, and
the server (``streamlit run app.py``, started through a launcher that only adds timestamps at
three points of Streamlit's own message path) logs when the rerun request arrives, when the
script produces each delta (the strip's last is the one before the sliders' tabs), when each message is written
to the socket, and when the run ends. Both are on the machine's wall clock
(``performance.timeOrigin``, ``time.time()``). Each number is one run; nothing is asserted.

The verdict: over the moves of both sliders (40 by default), the median and the slowest move,
each against the 250 ms budget (the README's figure), and the ratio of the median to its peer's.

Run: make bench (or .venv/bin/python -m bench.bench_whatif [moves] [peer_reruns_per_slider]
[samples] [upload_1M]: the scenarios named, both by default). Writes bench/results/whatif.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "whatif.json"
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1440, "height": 900}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
STRIP = ".st-key-whatif_strip"
TARGET_MS = 250.0
SCENARIOS = ("samples", "upload_1M")
MOVES = 20
PEER_RERUNS = 8  # per slider
REMOUNT = 500  # a move that makes the page insert this many elements redrew or remounted a part of it
QUIET_MS = 400  # a move is over when the app is idle and nothing changed for this long

# Alpha floor (0..1000, step 1, page 100) starts at 600: two PageUps cross the sexual dimension's
# alpha 0.779 (ENFORCE -> REPORT_ONLY) and two PageDowns come back.
FLOOR_KEYS = ["ArrowRight", "ArrowLeft"] * 3 + ["PageUp", "PageUp", "PageDown", "PageDown"]
# Self-preference maximum (0..10000 bps, step 50, page 1000) starts at 500: six PageUps cross the
# measured 56.5% (the gate flips from fails to passes), six PageDowns come back.
JUDGE_KEYS = ["ArrowRight", "ArrowLeft"] * 2 + ["PageUp"] * 6 + ["PageDown"] * 6 + ["ArrowRight", "ArrowLeft"] * 2

# The server: `streamlit run app.py` with wall-clock timestamps (ms) appended to a log file at the
# rerun request, at each script event (each delta as the script produces it) and at each message
# written to the websocket. Nothing else changes.
SERVER = r"""
import os, sys, time
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.runtime import Runtime

_log = open(os.environ["WHATIF_BENCH_LOG"], "a", buffering=1)


def _kind(msg):
    if msg is None:
        return "-"
    kind = msg.WhichOneof("type") or "other"
    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        el = msg.delta.new_element
        kind = el.WhichOneof("type") or "element"
    elif kind == "delta" and msg.delta.WhichOneof("type") == "add_block":
        kind = msg.delta.add_block.WhichOneof("type") or "block"
        if kind == "tab_container":
            kind = "after_strip"  # the first element after the strip (pages/whatif.py: the sliders' tabs)
    return kind


def _w(event, kind):
    _log.write(f"{time.time() * 1000:.3f} {event} {kind}\n")


_backmsg = AppSession.handle_backmsg
def handle_backmsg(self, msg):
    _w("request", msg.WhichOneof("type"))
    return _backmsg(self, msg)


_event = AppSession._on_scriptrunner_event
def on_scriptrunner_event(self, sender, event, forward_msg=None, *args, **kwargs):
    _w("produced" if forward_msg is not None else "script", _kind(forward_msg) if forward_msg is not None else event.name)
    return _event(self, sender, event, forward_msg, *args, **kwargs)


_send = Runtime._send_message
def send_message(self, session_info, msg):
    out = _send(self, session_info, msg)
    _w("written", _kind(msg))
    return out


AppSession.handle_backmsg = handle_backmsg
AppSession._on_scriptrunner_event = on_scriptrunner_event
Runtime._send_message = send_message

from streamlit.web.cli import main
sys.argv = ["streamlit", *sys.argv[1:]]
main()
"""

# Installed before any page script: page-clock timestamps of keys, clicks, the strip's text, the
# script state, the websocket frames and the long tasks of the main thread.
PROBE = """
(() => {
  const wb = window.__wb = {armed: false, rec: null, ws: [], long: []};
  const Native = window.WebSocket;
  class Probe extends Native {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', () => wb.ws.push([performance.now(), 'r']));
    }
    send(d) { wb.ws.push([performance.now(), 's']); return super.send(d); }
  }
  window.WebSocket = Probe;
  try {
    new PerformanceObserver(l => { for (const e of l.getEntries()) wb.long.push([e.startTime, e.duration]); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) {}
  const stamp = (name) => () => { if (wb.armed && wb.rec[name] === null) wb.rec[name] = performance.now(); };
  for (const [ev, name] of [['keydown', 't_down'], ['keyup', 't_up'], ['mousedown', 't_down'], ['click', 't_up']]) {
    window.addEventListener(ev, stamp(name), {capture: true});
  }
  const stripText = () => { const s = document.querySelector('.st-key-whatif_strip'); return s ? s.textContent : null; };
  const appState = () => { const a = document.querySelector("[data-testid='stApp']"); return a ? a.getAttribute('data-test-script-state') : null; };
  const observe = (records) => {
    if (!wb.armed) return;
    const now = performance.now(), r = wb.rec;
    r.last_mutation = now;
    for (const m of records) {
      if (m.type !== 'childList') continue;
      for (const n of m.addedNodes) if (n.nodeType === 1) r.added += 1 + n.getElementsByTagName('*').length;
      for (const n of m.removedNodes) if (n.nodeType === 1) r.removed += 1 + n.getElementsByTagName('*').length;
    }
    const txt = stripText();
    if (txt !== r.text) {
      r.text = txt;
      const entry = {t: now, text: txt, frame: null};
      r.changes.push(entry);
      requestAnimationFrame(() => { entry.frame = performance.now(); });
    }
    const st = appState();
    if (st !== r.state) { r.state = st; r.states.push([now, st]); }
  };
  wb.arm = () => {
    const now = performance.now();
    wb.rec = {t_down: null, t_up: null, text: stripText(), state: appState(), changes: [], states: [],
              added: 0, removed: 0, last_mutation: now, ws_from: wb.ws.length, t_arm: now};
    wb.base = wb.rec.text;
    wb.armed = true;
  };
  wb.done = (quiet) => {
    const r = wb.rec, now = performance.now();
    if (!r || r.t_down === null) return false;
    const started = r.changes.length > 0 || r.states.some(s => s[1] === 'running');
    return started && appState() === 'notRunning' && now - r.last_mutation >= quiet && now - r.t_down >= quiet;
  };
  wb.take = () => {
    wb.armed = false;
    const r = wb.rec;
    return {origin: performance.timeOrigin, t_down: r.t_down, t_up: r.t_up, base: wb.base, final: stripText(),
            added: r.added, removed: r.removed, states: r.states, changes: r.changes.map(c => [c.t, c.frame, c.text]), ws: wb.ws.slice(r.ws_from),
            long: wb.long.filter(l => l[0] + l[1] >= r.t_arm)};
  };
  const start = () => new MutationObserver(observe).observe(document.documentElement,
    {subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-test-script-state']});
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""


class ServerLog:
    """The server's timestamps (wall clock, ms), read incrementally."""

    def __init__(self, path: Path):
        self.path, self.pos = path, 0

    def since(self) -> list[tuple[float, str, str]]:
        with self.path.open() as f:
            f.seek(self.pos)
            text = f.read()
        end = text.rfind("\n") + 1
        self.pos += len(text[:end].encode())
        rows = []
        for line in text[:end].splitlines():
            t, event, kind = line.split(" ", 2)
            rows.append((float(t), event, kind))
        return rows


@contextmanager
def server(tmp: Path):
    from bench.bench_load import running  # the load bench's server start and health wait

    log_path = tmp / "server-timing.log"
    log_path.touch()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "WHATIF_BENCH_LOG": str(log_path)}
    argv = ["-c", SERVER, "run", "app.py", "--server.headless", "true", "--server.address", "127.0.0.1"]
    with running(argv, env, tmp / "server.out") as (url, _):
        yield url, ServerLog(log_path)


def settle(page: Page, timeout: float = 120_000) -> None:
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_timeout(500)  # let a rerun that was just triggered start
    page.wait_for_selector(IDLE, timeout=timeout)


def million_csv(path: Path, units: int = 100_000, raters: int = 10, seed: int = 11) -> None:
    """Wide 0/1 ratings, det_a..det_j, about 5% missing: 100,000 units x 10 raters = 1M cells."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, units)
    values = np.where(rng.random((units, raters)) < 0.8, truth[:, None], rng.integers(0, 2, (units, raters)))
    cells = values.astype(str).astype(object)
    cells[rng.random((units, raters)) < 0.05] = ""
    names = [f"det_{chr(ord('a') + j)}" for j in range(raters)]
    ids = np.char.add("u", np.arange(units).astype(str)).astype(object)
    with path.open("w") as f:
        f.write("unit," + ",".join(names) + "\n")
        f.write("\n".join(",".join(row) for row in np.column_stack([ids, cells])))
        f.write("\n")


def measure(page: Page, log: ServerLog, act) -> dict:
    """Arm the probe, act (a key press or a click), wait until the app is idle and quiet; the
    move's timings in ms from the keydown (mousedown)."""
    log.since()  # forget what came before
    page.evaluate("window.__wb.arm()")
    act()
    page.wait_for_function(f"window.__wb.done({QUIET_MS})", timeout=180_000, polling=50)
    r = page.evaluate("window.__wb.take()")
    srv = log.since()
    t0, t_up, final = r["t_down"], r["t_up"], r["final"]
    strip_t, strip_frame = next(((t, f) for t, f, text in r["changes"] if text == final), (None, None))
    ms = lambda t: None if t is None else round(t - t0, 1)  # noqa: E731
    idle = [t for t, s in r["states"] if s == "notRunning"]
    sent = [t for t, d in r["ws"] if d == "s" and t >= t0]
    handled = [t for t, d in r["ws"] if d == "r" and t >= t0]
    wall = lambda t: t - r["origin"]  # server wall-clock ms -> page clock  # noqa: E731
    request = next((wall(t) for t, ev, k in srv if ev == "request" and k == "rerun_script"), None)
    started = next((wall(t) for t, ev, k in srv if ev == "script" and k == "SCRIPT_STARTED"), None)
    # The strip's last delta is the one before the first element after it (whatever the strip's
    # last line says: a changed verdict, the expander of unchanged ones).
    def before_after_strip(event: str) -> tuple[int | None, float | None]:
        rows = [t for t, ev, k in srv if ev == event]
        i = next((i for i, (_, ev, k) in enumerate(x for x in srv if x[1] == event) if k == "after_strip"), None)
        return (None, None) if not i else (i - 1, wall(rows[i - 1]))

    _, produced = before_after_strip("produced")
    n_written, written = before_after_strip("written")
    written_n = [] if n_written is None else [n_written]
    finished = [wall(t) for t, ev, k in srv if ev == "script" and k.endswith("_WITH_SUCCESS")]
    # The page handles the websocket messages in the order they were written: the strip's last
    # delta is the n-th message handled since the keydown.
    handled_strip = handled[written_n[0]] if written_n and len(handled) > written_n[0] else None
    return {
        "changed": final != r["base"],
        "strip_ms": ms(strip_t),
        "strip_frame_ms": ms(strip_frame),
        "strip_from_keyup_ms": None if strip_t is None or t_up is None else round(strip_t - t_up, 1),
        "idle_ms": ms(idle[-1]) if idle else None,
        "page_sent_ms": ms(sent[0]) if sent else None,
        "server_request_ms": ms(request),
        "script_started_ms": ms(started),
        "strip_delta_produced_ms": ms(produced),
        "strip_delta_written_ms": ms(written),
        "strip_delta_handled_ms": ms(handled_strip),
        "script_finished_ms": ms(finished[-1]) if finished else None,
        "messages": len(handled),
        "elements_added": r["added"],
        "elements_removed": r["removed"],
        "messages_before_strip": written_n[0] + 1 if written_n else None,
        "long_tasks_before_strip_ms": round(sum(min(s0 + d, strip_t) - max(s0, t0) for s0, d in r["long"]
                                                if strip_t is not None and s0 < strip_t and s0 + d > t0), 1),
        "long_tasks": [[ms(s0), round(d, 1)] for s0, d in r["long"]],
    }


#: The sliders moved, by their keys: not "the first" or "the last slider", which while the page is
#: still being drawn (or with a contract's net gates shown) can be others: the judge's minimum
#: reviewers was pressed instead of the alpha floor under load.
FLOOR_SLIDER = ".st-key-slider_alpha_floor_permil input[type=range]"
JUDGE_SLIDER = ".st-key-slider_maximum_self_preference_bps input[type=range]"


def slider(page: Page, which: str):
    return page.locator(FLOOR_SLIDER if which == "floor" else JUDGE_SLIDER)


def slider_moves(page: Page, log: ServerLog, which: str, keys: list[str]) -> list[dict]:
    out = []
    for key in keys:
        settle(page)
        s = slider(page, which)
        s.focus()
        m = measure(page, log, lambda: page.keyboard.press(key))
        m.update(slider=which, key=key, value=s.input_value())
        out.append(m)
    return out


def full_reruns(page: Page, log: ServerLog, which: str, count: int) -> list[dict]:
    """The peer: a move of the same slider (not timed), then "Reset to defaults" in the sidebar,
    a full-page rerun that redraws the same strip, timed from the mousedown."""
    out = []
    for i in range(count):
        settle(page)
        s = slider(page, which)
        s.focus()
        page.keyboard.press(("PageUp", "ArrowRight")[i % 2])
        settle(page)
        button = page.locator("[data-testid='stSidebar']").get_by_role("button", name="Reset to defaults", exact=True)
        m = measure(page, log, lambda: button.click())
        m.update(slider=which, key="Reset to defaults")
        out.append(m)
    return out


def judge_tab(page: Page) -> None:
    """The judge's sliders: their tab opened (a click, a rerun of the sliders' fragment; not timed)."""
    settle(page)
    page.get_by_role("tab", name="Judge contract").click()
    page.wait_for_selector(JUDGE_SLIDER, timeout=60_000)
    settle(page)


def run_scenario(page: Page, log: ServerLog, moves: int, peers: int) -> dict:
    return {
        "floor": slider_moves(page, log, "floor", (FLOOR_KEYS * 4)[:moves]),
        "floor_full_rerun": full_reruns(page, log, "floor", peers),
        "judge": judge_tab(page) or slider_moves(page, log, "judge", (JUDGE_KEYS * 4)[:moves]),
        "judge_full_rerun": full_reruns(page, log, "judge", peers),
    }


def open_upload(page: Page, url: str, csv: Path) -> float:
    """Upload on the Panel page, measure, then go to What-if by the sidebar link (a reload would
    lose the session's upload). Returns the seconds Measure took to idle."""
    page.goto(f"{url}/panel")
    settle(page)
    page.wait_for_selector("h1:has-text('Panel reliability')", timeout=60_000)
    uploader = page.locator("[data-testid='stFileUploader']").filter(has_text="Ratings: ")
    uploader.locator("input[type='file']").set_input_files(str(csv))
    settle(page, 300_000)
    button = page.get_by_role("button", name="Measure with this mapping")
    button.wait_for(timeout=300_000)
    t0 = time.perf_counter()
    button.click()
    settle(page, 600_000)
    seconds = time.perf_counter() - t0
    page.get_by_role("link", name="What-if thresholds").click()
    settle(page, 600_000)
    return seconds


def stats(rows: list[dict], field: str) -> dict:
    xs = sorted(r[field] for r in rows if r.get(field) is not None)
    if not xs:
        return {"n": 0}
    p90 = xs[min(len(xs) - 1, int(np.ceil(0.9 * len(xs))) - 1)]
    return {"n": len(xs), "median": round(statistics.median(xs), 1), "p90": round(p90, 1), "max": round(max(xs), 1)}


# Where a move's time goes: consecutive spans (ms) whose sum is the strip latency.
SPANS = [
    ("key->request", None, "server_request_ms", "the page handles the key and sends the rerun request"),
    ("queue", "server_request_ms", "script_started_ms", "the server starts the (fragment) run"),
    ("script", "script_started_ms", "strip_delta_produced_ms", "the script runs down to the strip's last line"),
    ("flush", "strip_delta_produced_ms", "strip_delta_written_ms", "the server writes that delta to the socket"),
    ("wait", "strip_delta_written_ms", "strip_delta_handled_ms", "it waits for the page's main thread"),
    ("render", "strip_delta_handled_ms", "strip_ms", "the page applies it until the strip's text is final"),
]


def breakdown(rows: list[dict]) -> dict:
    def med(f):
        xs = [v for v in (f(r) for r in rows) if v is not None]
        return round(statistics.median(xs), 1) if xs else None
    out = {}
    for name, a, b, _ in SPANS:
        out[name] = med(lambda r, a=a, b=b: r.get(b) if a is None else
                        (None if r.get(a) is None or r.get(b) is None else r[b] - r[a]))
    for key in ("strip_ms", "script_finished_ms", "idle_ms", "long_tasks_before_strip_ms", "messages_before_strip",
                "messages", "elements_added"):
        out[key] = med(lambda r, k=key: r.get(k))
    return out


def against(ms: float) -> str:
    """A time against the budget, in words."""
    return (f"within {TARGET_MS:.0f} ms ({TARGET_MS - ms:.0f} ms to spare)" if ms <= TARGET_MS
            else f"OVER {TARGET_MS:.0f} ms by {ms - TARGET_MS:.0f} ms")


def main() -> None:
    args = [a for a in sys.argv[1:] if a.isdigit()]
    moves = int(args[0]) if args else MOVES
    peers = int(args[1]) if len(args) > 1 else PEER_RERUNS
    only = [a for a in sys.argv[1:] if not a.isdigit()] or list(SCENARIOS)
    results: dict = {"target_ms": TARGET_MS, "moves_per_slider": moves, "full_reruns_per_slider": peers,
                     "viewport": VIEWPORT, "cpus": os.cpu_count(), "load_average_at_start": os.getloadavg(),
                     "whatif_page_sha256": hashlib.sha256((ROOT / "pages" / "whatif.py").read_bytes()).hexdigest(),
                     "scenarios": {}}
    with tempfile.TemporaryDirectory() as tmp, server(Path(tmp)) as (url, log), sync_playwright() as pw:
        csv = Path(tmp) / "million.csv"
        if "upload_1M" in only:
            million_csv(csv)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        results["chromium"] = browser.version
        try:
            for name in only:
                context = browser.new_context(viewport=VIEWPORT)
                context.add_init_script(PROBE)
                page = context.new_page()
                extra: dict = {}
                if name == "samples":
                    page.goto(f"{url}/whatif")
                    settle(page)
                else:
                    extra["measure_s"] = round(open_upload(page, url, csv), 2)
                    extra["csv_mib"] = round(csv.stat().st_size / 2**20, 1)
                page.wait_for_selector(STRIP, timeout=600_000)
                extra["strip_text_at_start"] = page.locator(STRIP).inner_text()
                results["scenarios"][name] = {**extra, **run_scenario(page, log, moves, peers)}
                context.close()
        finally:
            browser.close()

    summary: dict = {}
    for name, res in results["scenarios"].items():
        s = summary[name] = {}
        for part in ("floor", "floor_full_rerun", "judge", "judge_full_rerun"):
            rows = res[part]
            s[part] = {"strip_ms": stats(rows, "strip_ms"), "strip_frame_ms": stats(rows, "strip_frame_ms"),
                       "strip_from_keyup_ms": stats(rows, "strip_from_keyup_ms"), "idle_ms": stats(rows, "idle_ms"),
                       "moves_without_text_change": sum(1 for m in rows if not m["changed"]),
                       "breakdown_median_ms": breakdown(rows)}
        s["slider_moves"] = stats(res["floor"] + res["judge"], "strip_ms")
        s["full_reruns"] = stats(res["floor_full_rerun"] + res["judge_full_rerun"], "strip_ms")
        s["ratio_slider_over_full_rerun"] = {
            "floor": round(s["floor"]["strip_ms"]["median"] / s["floor_full_rerun"]["strip_ms"]["median"], 2),
            "judge": round(s["judge"]["strip_ms"]["median"] / s["judge_full_rerun"]["strip_ms"]["median"], 2),
            "all": round(s["slider_moves"]["median"] / s["full_reruns"]["median"], 2)}
        s["meets_target"] = s["slider_moves"]["max"] <= TARGET_MS  # the slowest move within the budget
        s["median_meets_target"] = s["slider_moves"]["median"] <= TARGET_MS
        moves_all = res["floor"] + res["judge"]
        s["slider_moves_by_dom_insertions"] = {
            f"inserting >= {REMOUNT} elements": stats([m for m in moves_all if m["elements_added"] >= REMOUNT], "strip_ms"),
            f"inserting < {REMOUNT} elements": stats([m for m in moves_all if m["elements_added"] < REMOUNT], "strip_ms")}
    results["summary"] = summary
    results["load_average_at_end"] = os.getloadavg()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1))

    up = results["scenarios"].get("upload_1M")
    print(f"What-if: key press -> updated verdict strip, Chromium {results['chromium']} "
          f"{VIEWPORT['width']}x{VIEWPORT['height']}, page clock; {moves} moves per slider, {peers} full-page "
          f"reruns (sidebar 'Reset to defaults' after a move) per slider")
    print(f"{results['cpus']} CPUs; load average (1 min) {results['load_average_at_start'][0]:.1f} at the start, "
          f"{results['load_average_at_end'][0]:.1f} at the end (other work on the machine slows the browser)")
    if up:
        print(f"1M-rating upload: {up['csv_mib']} MiB wide CSV, 100,000 units x 10 raters; Measure took "
              f"{up['measure_s']} s to idle")
    fmt = lambda s: f"{s['median']:5.0f} {s['p90']:5.0f} {s['max']:5.0f}" if s.get("n") else f"{'n/a':>17}"  # noqa: E731
    head = (f"{'scenario':10} {'what':17} {'strip med/p90/max':>17}   {'+frame':>17}   {'from keyup':>17}   "
            f"{'to idle':>17}")
    print(head)
    print("-" * len(head))
    for name, s in summary.items():
        for part in ("floor", "floor_full_rerun", "judge", "judge_full_rerun"):
            p = s[part]
            print(f"{name:10} {part:17} {fmt(p['strip_ms'])}   {fmt(p['strip_frame_ms'])}   "
                  f"{fmt(p['strip_from_keyup_ms'])}   {fmt(p['idle_ms'])}"
                  + (f"   ({p['moves_without_text_change']} without a text change)"
                     if p["moves_without_text_change"] else ""))
    print()
    for name, s in summary.items():
        r, sm = s["ratio_slider_over_full_rerun"], s["slider_moves"]
        print(f"{name}: {sm['n']} slider moves, key press -> updated strip, against the {TARGET_MS:.0f} ms budget:")
        print(f"  median  {sm['median']:6.0f} ms  {against(sm['median'])}")
        print(f"  slowest {sm['max']:6.0f} ms  {against(sm['max'])}   (p90 {sm['p90']:.0f} ms)")
        print(f"  slider move / full-page rerun (its peer, medians): {r['all']:.2f}x "
              f"(floor {r['floor']:.2f}x, judge {r['judge']:.2f}x)")
    print()
    print(f"slider moves split by the elements the page inserted (>= {REMOUNT}: a part of the page was redrawn or "
          "remounted), strip ms median/p90/max:")
    for name, s in summary.items():
        print(f"  {name:10} " + "; ".join(f"{k}: n={v['n']}" + (f" {fmt(v)}" if v.get("n") else "")
                                          for k, v in s["slider_moves_by_dom_insertions"].items()))
    print()
    print("where the time goes, medians in ms (consecutive spans, keydown/mousedown -> strip):")
    for label, _, _, what in SPANS:
        print(f"  {label:12} {what}")
    cols = [c for c, *_ in SPANS] + ["strip", "run end", "idle", "long", "msgs<strip", "msgs", "DOM+"]
    keys = [c for c, *_ in SPANS] + ["strip_ms", "script_finished_ms", "idle_ms", "long_tasks_before_strip_ms",
                                      "messages_before_strip", "messages", "elements_added"]
    print("  (run end: the server's run ends; long: main-thread long tasks before the strip; msgs: websocket "
          "messages; DOM+: elements the page inserted, a remount shows as thousands)")
    print(f"{'scenario':10} {'what':17} " + " ".join(f"{c:>{max(6, len(c))}}" for c in cols))
    for name, s in summary.items():
        for part in ("floor", "floor_full_rerun", "judge", "judge_full_rerun"):
            b = s[part]["breakdown_median_ms"]
            print(f"{name:10} {part:17} " + " ".join(
                f"{b[k]:{max(6, len(c))}.0f}" if b[k] is not None else f"{'n/a':>{max(6, len(c))}}"
                for c, k in zip(cols, keys)))
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
