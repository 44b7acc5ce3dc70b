"""A team's dashboard in a real browser: `agreebound serve --auth` with a real OpenID Connect provider
(tests/app/oidc.py), three people in three browser contexts. A private run is invisible and
unopenable to another user, by the History page and by link; shared, it opens; the audit trail
records each step; no page shows a server path or a credential to someone who is not an admin.
And without sign-in on a public address every page warns."""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import oidc
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect

from agreebound.access import Viewer
from agreebound.store import Store

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
IDLE = oidc.IDLE
USERS = {"alice": ("alice@red.example", "red"), "alan": ("alan@red.example", "red"),
         "bob": ("bob@blue.example", "blue"), "root": ("root@ops.example", "ops")}
PAGES = ("", "panel", "judge", "whatif", "history", "help")
pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(args: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    """`agreebound serve` as a deployment starts it (its own process group, killed whole)."""
    proc = subprocess.Popen([sys.executable, "-m", "agreebound.cli", "serve", "--port", str(port), *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.3)
    _stop(proc)
    raise RuntimeError("agreebound serve did not become healthy: " + proc.stdout.read().decode(errors="replace")[-3000:])


def _stop(proc: subprocess.Popen) -> str:
    """Stop the server's whole process group; returns what it printed."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    said = proc.stdout.read().decode(errors="replace")
    proc.stdout.close()
    return said


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    folder = tmp_path_factory.mktemp("team-server")
    port = _free_port()
    with oidc.provider() as idp:
        for sub, (email, team_name) in USERS.items():
            idp.add_user(sub, email=email, name=sub.title(), team=team_name, email_verified=True)
        # claims an admin's address the provider does not vouch for; a verified stranger
        idp.add_user("mallory", email="root@ops.example", name="Mallory", team="ops", email_verified=False)
        idp.add_user("eve", email="eve@elsewhere.example", name="Eve", email_verified=True)
        secret = {"client": "client-secret-" + secrets.token_hex(8), "cookie": secrets.token_hex(32)}
        env = {**os.environ, "AGREEBOUND_DB": f"sqlite:///{folder / 'runs.db'}", "XDG_DATA_HOME": str(folder / "data"),
               "AGREEBOUND_OIDC_METADATA_URL": idp.metadata_url, "AGREEBOUND_OIDC_CLIENT_ID": "agreebound",
               "AGREEBOUND_OIDC_CLIENT_SECRET": secret["client"], "AGREEBOUND_COOKIE_SECRET": secret["cookie"],
               "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
               "AGREEBOUND_ADMINS": "root@ops.example", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
               "AGREEBOUND_ALLOWED": "@red.example, @blue.example, root@ops.example"}
        check = subprocess.run([sys.executable, "-m", "agreebound.cli", "serve", "--port", str(port), "--auth",
                                "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "sign-in: on, provider " + idp.metadata_url in check.stdout, check.stdout
        assert secret["client"] not in check.stdout and secret["cookie"] not in check.stdout
        proc = _serve(["--auth"], env, port)
        try:
            yield {"url": f"http://127.0.0.1:{port}", "db": env["AGREEBOUND_DB"], "folder": folder, "secret": secret}
        finally:
            _stop(proc)


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
    yield launched
    launched.close()


@pytest.fixture(scope="module")
def people(browser: Browser, team: dict) -> Iterator[dict[str, Page]]:
    """One signed-in page per person, each in its own browser context (its own cookies)."""
    contexts: list[BrowserContext] = []
    pages = {}
    for sub in USERS:
        contexts.append(browser.new_context(viewport={"width": 1400, "height": 2000}))
        page = contexts[-1].new_page()
        page.goto(team["url"])
        page.wait_for_selector(IDLE)
        oidc.sign_in(page, team["url"], sub)
        pages[sub] = page
    yield pages
    for context in contexts:
        context.close()


def settle(page: Page) -> None:
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(400)
    page.wait_for_selector(IDLE, timeout=60_000)


def go(page: Page, url: str) -> None:
    page.goto(url)
    settle(page)


def text(page: Page) -> str:
    """The page's text as read (without the word joiners that keep an e-mail address from becoming a link)."""
    return page.locator("body").inner_text().replace("\u2060", "")


def test_before_sign_in_nothing_shows(browser: Browser, team: dict):
    context = browser.new_context()
    page = context.new_page()
    for path in ("", "history", "panel?run=" + "a" * 32):
        go(page, f"{team['url']}/{path}")
        shown = text(page)
        assert "Sign in" in shown and "sign in to see your runs" in shown
        assert "Panel" not in shown and "History" not in shown and "Thresholds" not in shown
        assert "Page not found" not in shown
    assert "after signing in, open the link again" in shown
    context.close()


def test_only_verified_and_admitted_people_get_in(browser: Browser, team: dict):
    for sub, said in (("mallory", "You are signed in as sub:mallory@127.0.0.1, whom this dashboard does not admit."),
                      ("eve", "You are signed in as eve@elsewhere.example, whom this dashboard does not admit.")):
        context = browser.new_context()
        page = context.new_page()
        go(page, team["url"])
        page.get_by_role("button", name="Sign in").click()
        form = page.locator("form", has=page.locator("input[name='sub']"))
        form.locator("input[name='sub']").fill(sub)
        form.get_by_role("button", name="Authorize").click()
        page.wait_for_url(team["url"] + "/", timeout=30_000)
        settle(page)
        go(page, f"{team['url']}/history")
        shown = text(page)
        assert said in shown and "History" not in shown and "Thresholds" not in shown, shown
        context.close()


def test_a_private_run_is_invisible_until_shared(people: dict[str, Page], team: dict, tmp_path: Path):
    url, alice, bob, alan, root = team["url"], people["alice"], people["bob"], people["alan"], people["root"]
    name = f"alice-private-{secrets.token_hex(3)}.csv"
    (tmp_path / name).write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
    go(alice, f"{url}/panel")
    assert "Signed in as alice@red.example (team red)." in text(alice)
    uploader = alice.locator("[data-testid='stFileUploader']").filter(has_text="Ratings: CSV/TSV")
    uploader.locator("input[type='file']").set_input_files(str(tmp_path / name))
    settle(alice)
    alice.get_by_role("button", name="Measure with this mapping").click()
    settle(alice)
    alice.wait_for_function("() => location.search.includes('run=')", timeout=20_000)
    run_id = re.search(r"run=([0-9a-f]+)", alice.url).group(1)
    assert re.fullmatch(r"[0-9a-f]{32}", run_id)

    # Bob: not listed, not openable by link; the answer is the same as for an id that does not exist
    go(bob, f"{url}/history")
    assert name not in text(bob) and "No runs yet" in text(bob)
    for attempt in (run_id, "0" * 32):
        go(bob, f"{url}/panel?run={attempt}")
        assert (f"The link's run '{attempt[:20]}' could not be opened: no run {attempt} that you can open here. If "
                "someone sent you this link, ask them to share the run with you (History page, Who sees this run)."
                in text(bob))
        assert name not in text(bob)
    go(bob, f"{url}/panel?run={run_id[:8]}")  # a prefix is no link
    expect(bob.get_by_text("is not a run id (32 hex digits)")).to_be_visible()

    # Alice shares with her team: Alan (team red) opens it, Bob (team blue) still cannot
    go(alice, f"{url}/history")
    expect(alice.get_by_text("1 of 1 runs")).to_be_visible()  # her run (the table is drawn on a canvas)
    alice.get_by_role("radio", name="its owner's team").click()
    settle(alice)
    expect(alice.get_by_text(f"Run {run_id} is shared with its owner's team.")).to_be_visible()
    alice.screenshot(path=str(ARTIFACTS / "team-history-owner.png"), full_page=True)
    go(alan, f"{url}/panel?run={run_id}")
    expect(alan.locator("[data-testid='stSidebar']")).to_contain_text(f"Panel: run {run_id}: {name}")
    go(bob, f"{url}/panel?run={run_id}")
    assert name not in text(bob)

    # shared with everyone: Bob opens it, sees whose it is, and has no Delete
    go(alice, f"{url}/history")
    alice.get_by_role("radio", name="everyone signed in").click()
    settle(alice)
    go(bob, f"{url}/panel?run={run_id}")
    expect(bob.locator("[data-testid='stSidebar']")).to_contain_text(f"Panel: run {run_id}: {name}")
    # looking is not owning: Bob cannot record her data as a run of his own (which he could share on)
    bob.get_by_text("History: record this view as a run").first.click()
    bob.get_by_role("button", name="Record this view").first.click()
    settle(bob)
    # waited for, not read at once: on a busy machine the click's rerun may start after settle returned
    refused = (f"Not recorded: this is alice@red.example's run {run_id}, shared with you; only its owner (or an admin) "
               "records new runs of its data")
    deadline = time.time() + 60
    while refused not in text(bob) and time.time() < deadline:
        bob.wait_for_timeout(250)
    with Store.open(team["db"]) as s:  # whatever the page says, nothing of hers became his
        assert [r.owner for r in s.runs()] == ["alice@red.example"]
    assert refused in text(bob)
    go(bob, f"{url}/history")
    assert "alice@red.example's run, shared with everyone signed in" in text(bob)
    expect(bob.get_by_role("button", name="Delete this run")).to_have_count(0)
    bob.screenshot(path=str(ARTIFACTS / "team-history-other.png"), full_page=True)

    # the admin sees the audit trail (drawn on the page; read here from the store the page reads)
    go(root, f"{url}/history")
    expect(root.get_by_text("For admins: the store, retention and the audit trail")).to_be_visible()
    with Store.open(team["db"]) as s:
        events = [(e["actor"], e["action"], e.get("detail", {}).get("how")) for e in reversed(s.trail(run_id=run_id))]
        with pytest.raises(Exception, match="admins only"):
            s.as_viewer(Viewer("bob@blue.example", "blue", signed_in=True)).trail()
    assert events == [("alice@red.example", "record", None), ("bob@blue.example", "refused", "link"),
                      ("alice@red.example", "share", None), ("alan@red.example", "open", "link"),
                      ("bob@blue.example", "refused", "link"), ("alice@red.example", "share", None),
                      ("bob@blue.example", "open", "link")]


def test_no_page_shows_a_server_path_or_a_credential(people: dict[str, Page], team: dict):
    folder = str(team["folder"])
    forbidden = [folder, os.path.realpath(folder), str(Path.home()), "sqlite:", team["secret"]["client"],
                 team["secret"]["cookie"], "runs.db", "/tmp/"]
    for who in ("bob", "alan"):
        for path in PAGES:
            go(people[who], f"{team['url']}/{path}")
            shown = text(people[who])
            leaked = [f for f in forbidden if f in shown]
            assert not leaked, f"{who} sees {leaked} on /{path}"
    go(people["bob"], f"{team['url']}/history")
    assert "Uploads are recorded in a local SQLite file" in text(people["bob"])
    go(people["root"], f"{team['url']}/history")
    assert "Uploads are recorded in sqlite:///" in text(people["root"])  # an admin is told where


def test_a_public_address_without_sign_in_warns_on_every_page(browser: Browser, tmp_path: Path):
    port = _free_port()
    env = {**os.environ, "AGREEBOUND_DB": "off"}
    check = subprocess.run([sys.executable, "-m", "agreebound.cli", "serve", "--host", "0.0.0.0", "--check"], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=60)
    assert check.returncode == 1 and "UNSAFE: listening on 0.0.0.0" in check.stdout
    proc = _serve(["--host", "0.0.0.0"], env, port)
    try:
        context = browser.new_context()
        page = context.new_page()
        for path in ("", "history", "whatif"):
            go(page, f"http://127.0.0.1:{port}/{path}")
            expect(page.get_by_text("This dashboard is reachable from other machines and has no sign-in")).to_be_visible()
            expect(page.get_by_text("Single-user mode: no sign-in; every run here is yours.")).to_be_visible()
        context.close()
    finally:
        said = _stop(proc)
    assert "agreebound serve: WARNING: listening on 0.0.0.0 (reachable from other machines) with no sign-in" in said


def test_signing_out_stops_the_other_tabs(people: dict[str, Page], team: dict):
    """Alan has two tabs; he signs out in one: the other shows nothing more of his until reloaded."""
    first = people["alan"]
    second = first.context.new_page()
    go(second, f"{team['url']}/panel")
    assert "Signed in as alan@red.example (team red)." in text(second)
    go(first, f"{team['url']}/history")
    first.get_by_role("button", name="Sign out").click()
    first.get_by_role("button", name="End session").wait_for(timeout=30_000)  # at the provider: signed out here
    go(first, team["url"])
    assert "Sign in" in text(first)
    second.get_by_role("button", name="Reset to defaults").click()  # any rerun of the old tab
    settle(second)
    shown = text(second)
    assert "alan@red.example signed out in another tab or window. Reload this page to sign in again." in shown
    assert "Thresholds" not in shown and "Panel: " not in shown
    second.reload()
    settle(second)
    assert "Sign in" in text(second) and "alan@red.example" not in text(second)
