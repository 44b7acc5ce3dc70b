"""What the browser tests share: the dashboard's server on a free port and its health, opening a
page at a size, waiting for the app to settle and finding a slider by its label.

``settle`` waits on Streamlit's own run state, never a fixed time. The DOM alone cannot say that a
run is coming: a click or a key sends its rerun request from a timer, the page reads "notRunning"
until the server answers, and an upload first goes over HTTP. So a small tracker in the page (put
there by ``settle``, before any page of the tab's context loads) watches the app's websocket: the
rerun requests it sends (a BackMsg whose first field is ``rerun_script``, 11), the uploads it asks
for (``file_urls_request``, 16: a rerun follows the upload, unless the upload fails) and the
sessions' statuses it receives (a ForwardMsg ``session_status_changed``, 9, whose
``script_is_running`` is false: the run asked for is over). Settled: no rerun asked for since the
last "not running", no upload under way, the app's ``data-test-script-state`` "notRunning", and no
element still drawing its placeholder. Streamlit 1.67's protocol (streamlit/proto, and
static/js/index.*.js: WidgetStateManager.scheduleFlush, ConnectionManager.sendMessage).
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request

from playwright.sync_api import Page, expect

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"

# Installed once per document (an init script of the tab's context, or at the first settle of a page
# that was open before): counts, in one sequence, the rerun requests sent and the "not running"
# statuses received.
TRACKER = r"""() => {
  if (window.__agreeboundRuns) return;
  const runs = window.__agreeboundRuns = {seq: 0, asked: 0, idle: 0, uploading: false, failures: 0};
  const varints = bytes => {  // a protobuf message's top-level fields: [number, wire type, value or length]
    const out = []; let i = 0;
    const varint = () => { let v = 0, m = 1; while (i < bytes.length) { const b = bytes[i++]; v += (b & 127) * m;
      if (!(b & 128)) break; m *= 128; } return v; };
    while (i < bytes.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
      if (wire === 0) out.push([field, wire, varint()]);
      else if (wire === 2) { const n = varint(); out.push([field, wire, bytes.subarray(i, i + n)]); i += n; }
      else if (wire === 1) i += 8; else if (wire === 5) i += 4; else break;
    }
    return out;
  };
  const received = data => {
    if (!(data instanceof ArrayBuffer)) return;
    for (const [field, wire, value] of varints(new Uint8Array(data))) {
      if (field === 9 && wire === 2) {  // session_status_changed: script_is_running (2) false or absent
        if (!varints(value).some(([f, , v]) => f === 2 && v)) runs.idle = ++runs.seq;
        return;
      }
    }
  };
  const listening = new WeakSet();
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!listening.has(this)) { listening.add(this); this.addEventListener("message", e => received(e.data)); }
    const bytes = data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : null;
    const first = bytes && bytes.length ? bytes[0] >> 3 : 0;  // the BackMsg's one field (numbers below 16: one byte)
    if (first === 11) { runs.asked = ++runs.seq; runs.uploading = false; }  // rerun_script
    else if (bytes && bytes[0] === 0x82 && bytes[1] === 0x01) runs.uploading = true;  // file_urls_request (16)
    return send.call(this, data);
  };
  const failed = () => { runs.uploading = false; runs.failures++; };  // no rerun follows a failed upload
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (String(url).includes("/_stcore/upload_file")) {
      this.addEventListener("loadend", () => { if (!(this.status >= 200 && this.status < 300)) failed(); });
    }
    return open.call(this, method, url, ...rest);
  };
  const fetch = window.fetch;
  window.fetch = function (input, init) {
    const answer = fetch.call(this, input, init);
    if (String(input && input.url || input).includes("/_stcore/upload_file")) {
      answer.then(r => { if (!r.ok) failed(); }, failed);
    }
    return answer;
  };
}"""

# A widget sends its rerun request from a timer (setTimeout 0) after the event: two frames and a
# timer later it has gone, and the messages already received have been handled.
LATER = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))))"

SETTLED = """() => {
  const runs = window.__agreeboundRuns, app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute("data-test-script-state") === "notRunning" && !runs.uploading
    && (runs.asked === 0 || runs.idle > runs.asked);
}"""

# Streamlit draws a grey placeholder (stSkeleton) while a lazily loaded element's code arrives; on a
# busy machine that can outlast the script run (seen: the Judge page's uploaders and its styles).
DRAWN = "() => !document.querySelector(\"[data-testid='stSkeleton']\")"


def track(page: Page) -> None:
    """The run tracker in ``page`` now and in every page its context opens from now on."""
    context = page.context
    if not getattr(context, "_agreebound_tracked", False):
        context.add_init_script(f"({TRACKER})()")
        context._agreebound_tracked = True  # type: ignore[attr-defined]
    page.evaluate(TRACKER)


def settle(page: Page, timeout: float = 60_000) -> None:
    """Until the app has finished every run asked for so far (a click's, a key's, an upload's,
    a page load's) and drawn it; at most ``timeout`` milliseconds for each wait."""
    track(page)
    deadline = time.monotonic() + timeout / 1000
    while True:
        page.evaluate(LATER)  # a request a widget has scheduled is sent
        page.wait_for_function(SETTLED, timeout=timeout)
        page.evaluate(LATER)  # what was received is handled: still settled, or a run started meanwhile
        if page.evaluate(SETTLED):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"the app kept starting new runs for {timeout / 1000:.0f} s")
    page.wait_for_function(DRAWN, timeout=timeout)


#: The label of the Overview's sections that hold each box's bullet charts (drawn only once opened).
CHARTS = "Charts: each gate above"


def open_charts(page: Page, box: str) -> None:
    """The Overview's box ``box`` (a container's key: ``dimension_0``, ``judge_gates``) with its
    charts' section opened, and the app settled after the rerun the click asks for."""
    page.locator(f".st-key-{box} [data-testid='stExpander'] summary").filter(has_text=CHARTS).click()
    settle(page)
    page.locator(f".st-key-{box} .js-plotly-plot .main-svg").first.wait_for()


def open_section(page: Page, label: str) -> None:
    """A section drawn only while open (blocks.section_when_open), found by its label's start, opened;
    the app settled after the rerun the click asks for."""
    page.locator("[data-testid='stExpander'] summary").filter(has_text=label).click()
    settle(page)


def open_tab(page: Page, name: str) -> None:
    """A tab drawn only while open (the What-if page's groups of sliders) opened; the app settled."""
    page.get_by_role("tab", name=name, exact=True).click()
    settle(page)


def upload(page: Page, path, label: str = "Ratings: ", timeout: float = 60_000) -> None:
    """``path`` put into the uploader labelled ``label``, and the app settled after the upload's rerun.

    ``settle`` alone can miss an upload: the browser asks the server for an upload URL a moment after
    the file is set, and on a busy machine that moment can come after ``settle`` has looked (seen in
    CI: the next click then waited 30 s for a preview still on its way). So this waits for the rerun
    request the upload ends with (or for the upload's failure, after which none comes), then settles."""
    track(page)
    before = page.evaluate("() => [window.__agreeboundRuns.asked, window.__agreeboundRuns.failures]")
    uploader = page.locator("[data-testid='stFileUploader']").filter(has_text=label)
    expect(uploader).to_have_count(1)
    uploader.locator("input[type='file']").set_input_files(str(path))
    page.wait_for_function("([asked, failures]) => { const r = window.__agreeboundRuns;"
                           " return r.asked > asked || r.failures > failures; }", arg=before, timeout=timeout)
    settle(page, timeout)


def slider(page: Page, label: str):
    """A slider by its label (never "the first slider": the page may still be drawing)."""
    found = page.locator("[data-testid='stSlider']").filter(has_text=label).get_by_role("slider")
    expect(found).to_have_count(1)
    return found


def open_page(page: Page, url: str, width: int = 1440, height: int = 900, scheme: str = "light") -> Page:
    """``url`` opened afresh (a new Streamlit session) in the test's tab, at this size and colour scheme."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.goto(url)
    settle(page)
    return page


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    """Until the server at ``url`` answers its health route; fails with the server's output when it
    exits or does not answer within ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.5)
    if proc.poll() is None:
        proc.kill()
    out = proc.stdout.read().decode(errors="replace")[-2000:] if proc.stdout else ""
    raise RuntimeError(f"the server at {url} did not become healthy: {out}")
