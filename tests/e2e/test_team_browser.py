"""A team's dashboard in a real browser: `agreebound serve --auth` with a real OpenID Connect provider
(tests/support/oidc.py), three people in three browser contexts. A private run is invisible and
unopenable to another user, by the History page and by link; shared, it opens; the audit trail
records each step; no page shows a server path or a credential to someone who is not an admin.
And without sign-in on a public address every page warns.

Who is who (issue 50): an account whose verified address equals Alice's after case-folding and
trimming is someone else, whichever signs in first after an upgrade, and is not on a list that
names her address (nor an admin by it); the operator gives runs no sign-in claims to their
account (`agreebound claim`); strangers at a public mail domain are no team; an unverified address is
in no team whatever it claims; a report downloaded by a click is not at an address derived from its
content and is gone seconds later (and at sign-out); a provider reached over plain http on another
host is unsafe, said by `serve --check`, at start and on every page."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect

from agreebound.app.access import Viewer
from agreebound.app.store import Store
from tests.support import oidc
from tests.support.dashboard import free_port as _free_port
from tests.support.dashboard import settle, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
IDLE = oidc.IDLE
USERS = {"alice": ("alice@red.example", "red"), "alan": ("alan@red.example", "red"),
         "bob": ("bob@blue.example", "blue"), "root": ("root@ops.example", "ops")}
PAGES = ("", "panel", "judge", "whatif", "history", "help")
#: Accounts signed in by the tests that need them: (address as the provider gives it, team claim,
#: email_verified). Alice's case-twin (admitted by @red.example), and the issue's twin with a space
#: (on no list); the admin's case-twin (not the listed address); two strangers at a public mail
#: domain; an unverified address claiming team red (admitted by its subject form, to see what it
#: gets once in); Dana and her case twin, who signs in first; Erin, whose provider gives her address
#: with capitals (earlier versions stored it in lower case, as they would have a twin's).
OTHERS = {"alice-twin": ("ALICE@RED.EXAMPLE", "red", True), "alice-spaced": ("ALICE@RED.EXAMPLE ", "red", True),
          "root-twin": ("ROOT@ops.example", "ops", True), "p1": ("p1@yahoo.co.uk", None, True),
          "p2": ("p2@yahoo.co.uk", None, True), "carol": ("carol@red.example", "red", False),
          "dana": ("dana@red.example", "red", True), "dana-twin": ("Dana@red.example", "red", True),
          "erin": ("Erin@Red.Example", "red", True)}
#: A run an earlier version stored under Alice's address: hers once she signs in, never her twin's.
LEGACY_NAME = "legacy-alice.csv"
#: Runs earlier versions stored under these addresses (the fixture's "legacy_<name>" ids).
LEGACY_OWNERS = ("dana@red.example", "erin@red.example")
pytestmark = pytest.mark.e2e


def _serve(args: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    """`agreebound serve` as a deployment starts it (its own process group, killed whole)."""
    proc = subprocess.Popen([sys.executable, "-m", "agreebound.cli.main", "serve", "--port", str(port), *args], cwd=ROOT,
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
        for sub, (email, team_name, verified) in OTHERS.items():
            idp.add_user(sub, email=email, name=sub.title(), email_verified=verified,
                         **({"team": team_name} if team_name else {}))
        secret = {"client": "client-secret-" + secrets.token_hex(8), "cookie": secrets.token_hex(32)}
        env = {**os.environ, "AGREEBOUND_DB": f"sqlite:///{folder / 'runs.db'}", "XDG_DATA_HOME": str(folder / "data"),
               "AGREEBOUND_OIDC_METADATA_URL": idp.metadata_url, "AGREEBOUND_OIDC_CLIENT_ID": "agreebound",
               "AGREEBOUND_OIDC_CLIENT_SECRET": secret["client"], "AGREEBOUND_COOKIE_SECRET": secret["cookie"],
               "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
               "AGREEBOUND_ADMINS": "root@ops.example", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
               "AGREEBOUND_ALLOWED": "@red.example, @blue.example, root@ops.example, @yahoo.co.uk, sub:carol@127.0.0.1"}
        # a run owned by Alice's address, as earlier versions (and a terminal's AGREEBOUND_USER) stored it
        (folder / LEGACY_NAME).write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
        done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(folder / LEGACY_NAME), "--record"],
                              cwd=ROOT, env={**env, "AGREEBOUND_USER": "alice@red.example", "AGREEBOUND_TEAM": "red"},
                              capture_output=True, text=True, timeout=120)
        legacy = re.search(r"run ([0-9a-f]{32}) recorded in \S+ as alice@red\.example's", done.stdout + done.stderr)
        assert legacy, done.stdout + done.stderr
        more = {}
        for owner in LEGACY_OWNERS:
            done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(folder / LEGACY_NAME),
                                   "--record", "--label", owner], cwd=ROOT,
                                  env={**env, "AGREEBOUND_USER": owner, "AGREEBOUND_TEAM": "red"},
                                  capture_output=True, text=True, timeout=120)
            found = re.search(rf"run ([0-9a-f]{{32}}) recorded in \S+ as {re.escape(owner)}'s", done.stdout + done.stderr)
            assert found, done.stdout + done.stderr
            more[f"legacy_{owner.split('@')[0]}"] = found.group(1)
        check = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "serve", "--port", str(port), "--auth",
                                "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "sign-in: on, provider " + idp.metadata_url in check.stdout, check.stdout
        assert secret["client"] not in check.stdout and secret["cookie"] not in check.stdout
        proc = _serve(["--auth"], env, port)
        try:
            yield {"url": f"http://127.0.0.1:{port}", "db": env["AGREEBOUND_DB"], "folder": folder, "secret": secret,
                   "issuer": idp.issuer, "legacy": legacy.group(1), "env": env, **more}
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


def go(page: Page, url: str) -> None:
    page.goto(url)
    settle(page)


def text(page: Page) -> str:
    """The page's text as read (without the word joiners that keep an e-mail address from becoming a link)."""
    return page.locator("body").inner_text().replace("\u2060", "")


def key(team: dict, sub: str) -> str:
    """The owner key of the provider's account ``sub`` (access.identity_key)."""
    return f"{team['issuer']}|{sub}"


def sign_in_new(browser: Browser, url: str, sub: str, **options) -> Page:
    """A new browser context (its own cookies) signed in as ``sub``."""
    page = browser.new_context(viewport={"width": 1400, "height": 2000}, **options).new_page()
    go(page, url)
    oidc.sign_in(page, url, sub)
    return page


def upload_and_measure(page: Page, url: str, path: Path) -> str:
    """Upload ``path`` on the Panel page and measure it: the run recorded, its id from the URL."""
    go(page, f"{url}/panel")
    upload(page, path)
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)
    page.wait_for_function("() => location.search.includes('run=')", timeout=20_000)
    return re.search(r"run=([0-9a-f]{32})", page.url).group(1)


def cli_record(team: dict, sub: str, team_name: str, share: str, name: str, tmp_path: Path) -> str:
    """A run of the sample recorded from a terminal as the account ``sub`` (its key as
    AGREEBOUND_USER), of team ``team_name``, shared ``share``: an openable run, made fast."""
    data = tmp_path / name
    data.write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
    env = {**team["env"], "AGREEBOUND_USER": key(team, sub), "AGREEBOUND_TEAM": team_name}
    done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(data), "--record", "--share", share],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    found = re.search(r"run ([0-9a-f]{32}) recorded", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    return found.group(1)


def lists_only(page: Page, team: dict, *, team_name: str | None) -> None:
    """The History page lists exactly the runs shared with everyone, and with ``team_name``'s
    team (the table is drawn on a canvas: its count says it)."""
    with Store.open(team["db"]) as s:
        n = sum(r.share == "all" or (r.share == "team" and team_name is not None and r.team == team_name)
                for r in s.runs(reports=False))
    shown = text(page)
    assert (f"{n} of {n} runs" in shown) if n else ("No runs yet" in shown), shown


def refused(page: Page, run_id: str) -> bool:
    return f"could not be opened: no run {run_id} that you can open here" in text(page)


def opened(page: Page, run_id: str) -> bool:
    return f"Panel: run {run_id}" in page.locator("[data-testid='stSidebar']").inner_text()


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
                      ("eve", "You are signed in as eve@elsewhere.example, whom this dashboard does not admit."),
                      # issue 50's twin: "red.example " is not the listed @red.example
                      ("alice-spaced", "You are signed in as ALICE@RED.EXAMPLE , whom this dashboard does not admit."),
                      # the admin's address is listed, not its case twin's
                      ("root-twin", "You are signed in as ROOT@ops.example, whom this dashboard does not admit.")):
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
    upload(alice, tmp_path / name)
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
    expect(alice.get_by_text("2 of 2 runs")).to_be_visible()  # hers and the one claimed (drawn on a canvas)
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
        assert {(r.owner, r.owner_name) for r in s.runs() if r.label not in LEGACY_OWNERS} == {
            (key(team, "alice"), "alice@red.example")}
    assert refused in text(bob)
    go(bob, f"{url}/history")
    assert "alice@red.example's run, shared with everyone signed in" in text(bob)
    expect(bob.get_by_role("button", name="Delete this run")).to_have_count(0)
    bob.screenshot(path=str(ARTIFACTS / "team-history-other.png"), full_page=True)

    # the admin sees the audit trail (drawn on the page; read here from the store the page reads)
    go(root, f"{url}/history")
    expect(root.get_by_text("For admins: the store, retention and the audit trail")).to_be_visible()
    with Store.open(team["db"]) as s:
        events = [(e["actor_shown"], e["action"], e.get("detail", {}).get("how"))
                  for e in reversed(s.trail(run_id=run_id))]
        assert {e["actor"] for e in s.trail(run_id=run_id)} == {key(team, "alice"), key(team, "bob"), key(team, "alan")}
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
    check = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "serve", "--host", "0.0.0.0", "--check"], cwd=ROOT,
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


def test_an_account_whose_address_matches_after_case_folding_is_someone_else(
        browser: Browser, people: dict[str, Page], team: dict, tmp_path: Path):
    """Issue 50: an account whose verified address was 'ALICE@RED.EXAMPLE ' signed in as
    alice@red.example and saw her private run. Now a case twin (admitted by @red.example) is shown
    as its own address, and sees nothing of hers: neither her run, nor the run an earlier version
    stored under her address (hers since she signed in)."""
    url = team["url"]
    name = f"alice-own-{secrets.token_hex(3)}.csv"
    (tmp_path / name).write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
    private = upload_and_measure(people["alice"], url, tmp_path / name)  # private, as every run starts
    twin = sign_in_new(browser, url, "alice-twin")
    try:
        go(twin, f"{url}/history")
        assert "Signed in as ALICE@RED.EXAMPLE (team red)." in text(twin)  # shown as its own address...
        lists_only(twin, team, team_name="red")  # ...and owning nothing of hers
        for run_id in (private, team["legacy"]):
            go(twin, f"{url}/panel?run={run_id}")
            assert refused(twin, run_id), text(twin)
        twin.screenshot(path=str(ARTIFACTS / "team-case-twin.png"), full_page=True)
    finally:
        twin.context.close()
    with Store.open(team["db"]) as s:
        assert s.get(team["legacy"]).owner == key(team, "alice")  # claimed by her account at her sign-in
        claims = [e for e in s.trail(limit=1000) if e["action"] == "claim" and e["detail"]["from"] == "alice@red.example"]
        assert [(e["actor"], e["detail"]["from"], e["detail"]["runs"]) for e in claims] == [
            (key(team, "alice"), "alice@red.example", 1)]


def test_a_case_twin_signing_in_first_gets_nothing_and_the_operator_gives_runs_no_sign_in_claims(
        browser: Browser, team: dict):
    """The review of issue 50: after the upgrade, whichever account signed in first with an address
    alike but for case took the runs an earlier version stored under it. Dana's case twin signs in
    first and gets nothing; Dana, whose provider gives the address exactly as it was stored, then
    opens her run. Erin's provider gives 'Erin@Red.Example': no sign-in claims 'erin@red.example',
    until the operator gives it to her account (`agreebound claim`)."""
    url, dana_run, erin_run = team["url"], team["legacy_dana"], team["legacy_erin"]
    twin = sign_in_new(browser, url, "dana-twin")
    try:
        go(twin, f"{url}/panel?run={dana_run}")
        assert "Signed in as Dana@red.example (team red)." in text(twin)
        assert refused(twin, dana_run), text(twin)
    finally:
        twin.context.close()
    dana = sign_in_new(browser, url, "dana")
    try:
        go(dana, f"{url}/panel?run={dana_run}")
        assert opened(dana, dana_run), text(dana)
    finally:
        dana.context.close()
    erin = sign_in_new(browser, url, "erin")
    try:
        go(erin, f"{url}/panel?run={erin_run}")
        assert "Signed in as Erin@Red.Example (team red)." in text(erin) and refused(erin, erin_run), text(erin)
        done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "claim", "--from", "erin@red.example", "--to",
                               "Erin@Red.Example"], cwd=ROOT, env=team["env"], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and done.stdout == (
            f"gave 1 run recorded as erin@red.example to 'Erin@Red.Example' ({key(team, 'erin')})\n"), done.stderr
        go(erin, f"{url}/panel?run={erin_run}")
        assert opened(erin, erin_run), text(erin)
    finally:
        erin.context.close()
    with Store.open(team["db"]) as s:
        assert (s.get(dana_run).owner, s.get(erin_run).owner) == (key(team, "dana"), key(team, "erin"))
        seen = s.as_viewer(Viewer(key(team, "dana-twin"), "red", signed_in=True)).runs(reports=False)
        assert dana_run not in [r.id for r in seen] and erin_run not in [r.id for r in seen]


def test_strangers_at_a_public_mail_domain_are_no_team(browser: Browser, team: dict, tmp_path: Path):
    """Issue 50: p1@yahoo.co.uk shared a run with 'its owner's team', and p2@yahoo.co.uk, a
    stranger, opened it."""
    url = team["url"]
    p1, p2 = sign_in_new(browser, url, "p1"), sign_in_new(browser, url, "p2")
    try:
        assert "Signed in as p1@yahoo.co.uk (no team)." in text(p1)
        name = f"p1-{secrets.token_hex(3)}.csv"
        (tmp_path / name).write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
        run_id = upload_and_measure(p1, url, tmp_path / name)
        go(p1, f"{url}/history")
        p1.get_by_role("radio", name="its owner's team").click()
        settle(p1)
        expect(p1.get_by_text(f"Run {run_id} is shared with its owner's team.")).to_be_visible()
        go(p2, f"{url}/panel?run={run_id}")
        assert "Signed in as p2@yahoo.co.uk (no team)." in text(p2)
        assert refused(p2, run_id) and name not in text(p2)
        go(p2, f"{url}/history")
        lists_only(p2, team, team_name=None)
    finally:
        p1.context.close()
        p2.context.close()
    with Store.open(team["db"]) as s:
        run = s.get(run_id)
        assert (run.owner, run.team, run.share) == (key(team, "p1"), None, "team")


def test_an_unverified_address_is_in_no_team_whatever_it_claims(
        browser: Browser, people: dict[str, Page], team: dict, tmp_path: Path):
    """Issue 50: the team claim placed an unverified address in a team. Carol's provider says
    team red and does not vouch for carol@red.example: she is admitted (her subject form is on the
    allowed list) and is in no team, so Alan's run shared with team red does not open for her,
    while it does for Alice (team red, verified)."""
    url = team["url"]
    run_id = cli_record(team, "alan", "red", "team", f"alan-team-{secrets.token_hex(3)}.csv", tmp_path)
    carol = sign_in_new(browser, url, "carol")
    try:
        go(carol, f"{url}/panel?run={run_id}")
        assert "Signed in as sub:carol@127.0.0.1 (no team)." in text(carol)
        assert refused(carol, run_id), text(carol)
    finally:
        carol.context.close()
    go(people["alice"], f"{url}/panel?run={run_id}")
    assert opened(people["alice"], run_id)


def _status(url: str) -> tuple[int, bytes, str, str]:
    """GET ``url`` as anyone would (no cookie, no session): status, body, type, file name."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            named = re.search(r'filename="?([^";]+)', r.headers.get("Content-Disposition", ""))
            return r.status, r.read(), r.headers.get_content_type(), named.group(1) if named else ""
    except urllib.error.HTTPError as e:
        return e.code, b"", "", ""


def _content_id(data: bytes, mimetype: str, filename: str) -> str:
    """The id Streamlit itself gives a file: a hash of its bytes, type and name (what a report's
    address was before issue 50)."""
    from streamlit.runtime.memory_media_file_storage import _calculate_file_id

    return _calculate_file_id(data, mimetype, filename)


def test_a_report_download_is_at_an_unguessable_address_and_gone_seconds_later(
        browser: Browser, team: dict, tmp_path: Path):
    """Issue 50: while a signed-in user's page showed its report buttons, GET /media/<id> answered
    200 to a request with no cookie, at an id that is the hash of the content, and kept answering
    after she signed out. Now: a random id per file (two clicks, two addresses; not the content's
    hash); a report is fetchable for DOWNLOAD_TTL_S seconds after its click, then 404; and 404 at
    once when she signs out."""
    from agreebound.ui.auth import DOWNLOAD_TTL_S

    url = team["url"]
    page = sign_in_new(browser, url, "alice", accept_downloads=True)
    media: list[str] = []
    page.on("request", lambda r: media.append(r.url) if "/media/" in r.url and "/static/" not in r.url else None)
    try:
        name = f"report-{secrets.token_hex(3)}.csv"
        (tmp_path / name).write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
        upload_and_measure(page, url, tmp_path / name)
        button = page.get_by_role("button", name="Panel report (JSON)")
        got = []
        for _ in range(2):
            with page.expect_download() as download:
                button.click()
            got.append((download.value.url, Path(download.value.path()).read_bytes(), download.value.suggested_filename))
            made = time.monotonic()
        (u1, b1, f1), (u2, b2, f2) = got
        assert re.fullmatch(re.escape(url) + r"/media/[0-9a-f]{32}\.json", u1) and u1 != u2, (u1, u2)
        assert b1 == b2 and f1 == f2 and b'"kind"' in b1  # the same report, at two addresses
        assert u1.rsplit("/", 1)[1] != _content_id(b1, "application/json", f1) + ".json"
        # a file the page shows (the mapping's download button): not at its content's address either
        shown = [m for m in media if m not in (u1, u2)][-1]
        status, body, mimetype, filename = _status(shown)
        assert (status, filename) == (200, "agreebound-mapping.json"), (shown, status, filename)
        assert shown.rsplit("/", 1)[1] != _content_id(body, mimetype, filename) + ".json"
        # no cookie: answered only within seconds of the click, then never
        assert _status(u2)[:2] == (200, b2)
        time.sleep(max(0.0, made + DOWNLOAD_TTL_S + 2 - time.monotonic()))
        assert _status(u1)[0] == 404 and _status(u2)[0] == 404
        # a report made just before signing out is gone when she has signed out
        with page.expect_download() as download:
            page.get_by_role("button", name="Panel report (Markdown)").click()
        last = download.value.url
        page.get_by_role("button", name="Sign out").click()
        page.get_by_role("button", name="End session").wait_for(timeout=30_000)
        assert _status(last)[0] == 404
    finally:
        page.context.close()


def test_a_provider_over_plain_http_on_another_host_is_unsafe(browser: Browser, tmp_path: Path):
    """Issue 50: `serve --check` said "safe to serve" for a sign-in provider reached over plain http
    on another host. Now it is UNSAFE (exit 1); `serve` starts as with any unsafe finding, warning
    at start, and every page says it, the sign-in page first. Sign-in itself still works."""
    address = oidc.network_address()
    if address is None:
        pytest.skip("this machine has no address but loopback: no provider can be on another host")
    port = _free_port()
    with oidc.provider(address) as idp:
        idp.add_user("alice", email="alice@red.example", name="Alice", team="red", email_verified=True)
        env = {**os.environ, "AGREEBOUND_DB": "off", "AGREEBOUND_OIDC_METADATA_URL": idp.metadata_url,
               "AGREEBOUND_OIDC_CLIENT_ID": "agreebound", "AGREEBOUND_OIDC_CLIENT_SECRET": "s-" + secrets.token_hex(8),
               "AGREEBOUND_COOKIE_SECRET": secrets.token_hex(32), "AGREEBOUND_ALLOWED": "@red.example",
               "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        env.pop(oidc.INSECURE_ENV, None)  # the provider's own leave to speak http; the dashboard has none
        unsafe = (f"the sign-in provider {idp.metadata_url} is reached over plain http on another host: whoever is on "
                  "the way can change its keys and sign in as anyone. Give its https:// address")
        check = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "serve", "--port", str(port), "--auth",
                                "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert check.returncode == 1 and f"UNSAFE: {unsafe}" in check.stdout, check.stdout + check.stderr
        assert check.stdout.splitlines()[-1] == "unsafe: do not serve this way"
        proc = _serve(["--auth"], env, port)
        try:
            url = f"http://127.0.0.1:{port}"
            context = browser.new_context()
            page = context.new_page()
            warned = f"Sign-in here goes through {idp.metadata_url}, reached over plain http on another host"
            go(page, url)
            assert warned in text(page) and "Sign in" in text(page)
            oidc.sign_in(page, url, "alice")
            go(page, f"{url}/history")
            assert warned in text(page) and "Signed in as alice@red.example (team red)." in text(page)
            context.close()
        finally:
            said = _stop(proc)
    assert f"agreebound serve: WARNING: {unsafe}" in said
