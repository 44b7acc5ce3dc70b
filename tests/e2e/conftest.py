"""Real-browser tests: `streamlit run app.py` on a free port, driven by Playwright in Debian's
chromium (Playwright's own browser download cannot work here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.support.dashboard import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts"


def pytest_collection_modifyitems(config, items):
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"browser tests need Debian's chromium at {CHROMIUM}; `make test` installs it")
    skip = pytest.mark.skip(reason="Debian's chromium is not installed (`make test` installs it)")
    for item in items:
        if "e2e" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 2200}, "accept_downloads": True}


@pytest.fixture(scope="session")
def _tab(browser, browser_context_args):
    """The test process's one browser tab (see `page`), made again if a test closed or crashed it."""
    tab = {}

    def get() -> Page:
        if "page" not in tab or tab["page"].is_closed():
            if "context" in tab:
                tab["context"].close()
            tab["context"] = browser.new_context(**browser_context_args)
            tab["page"] = tab["context"].new_page()
        return tab["page"]

    yield get
    if "context" in tab:
        tab["context"].close()


@pytest.fixture
def page(_tab, browser_context_args) -> Iterator[Page]:
    """The process's one tab, handed to each test at the default size, light and on screen media.

    Each test still opens its pages by URL (page.goto: a new Streamlit session, nothing carried
    over from the last test's), but in a tab that has loaded the app before: Chromium then keeps
    its renderer and the compiled JavaScript, and a page load costs about 4 CPU-seconds where a new
    context per test cost about 7.5 (Panel page, measured on this 2-core machine). After each test
    the cookies and the app's storage (the sidebar's state and width) are cleared; the HTTP cache
    and the compiled code are kept, as a returning user's browser keeps them. A test that watches
    the tab's requests or opens file:// pages makes its own (`context`). pytest-playwright's
    --tracing, --video and --screenshot record only the contexts it makes, so not this tab."""
    tab = _tab()
    tab.set_viewport_size(browser_context_args["viewport"])
    tab.emulate_media(media="screen", color_scheme="light")
    yield tab
    if tab.is_closed():
        return
    tab.context.clear_cookies()
    if tab.url.startswith("http"):
        try:
            tab.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        except PlaywrightError:
            tab.close()  # the next test gets a new one


@pytest.fixture(scope="session")
def app_url():
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc)
    ARTIFACTS.mkdir(exist_ok=True)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
