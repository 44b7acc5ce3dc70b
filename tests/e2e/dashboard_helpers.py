"""What the browser tests share: opening a page at a size, waiting for the app to settle and finding
a slider by its label."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request

from playwright.sync_api import Page, expect

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# Streamlit draws a grey placeholder (stSkeleton) while a lazily loaded element's code arrives; on a
# busy machine that can outlast the script run (seen: the Judge page's uploaders and its styles).
DRAWN = "() => !document.querySelector(\"[data-testid='stSkeleton']\")"


def settle(page: Page) -> None:
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(500)  # let a rerun that was just triggered start
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_function(DRAWN, timeout=60_000)


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
