"""The OpenID Connect harness (tests/support/oidc.py) end to end: Streamlit's st.login against a real
provider on 127.0.0.1, in headless chromium. Two browser contexts sign in as two users and each sees
only its own email and team; a third, never signed in, sees only the Sign in button; signing out
brings the button back.

A toy app in a temporary folder, not the dashboard: this proves the harness, not the product."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect

from tests.support import oidc
from tests.support.dashboard import free_port, wait_healthy

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

TOY_APP = '''
import streamlit as st

if not st.user.is_logged_in:
    st.button("Sign in", on_click=st.login)
else:
    st.markdown(f"email: `{st.user.email}`")
    st.markdown(f"team: `{st.user.team}`")
    st.markdown("claims: `" + " ".join(sorted(st.user.to_dict())) + "`")
'''

# st.user's keys for a mock user given email, name and team: the ID token's claims (Authlib's
# parsed userinfo, standard JWT fields included), Streamlit's is_logged_in and provider ("default"),
# and "tokens" (empty unless [auth] expose_tokens is set).
EXPECTED_CLAIMS = "at_hash aud auth_time email exp iat is_logged_in iss name nonce provider sub team tokens"

USERS = {"alice": ("alice@a.example", "Alice A", "red"), "bob": ("bob@b.example", "Bob B", "blue")}


def _start_streamlit(app: Path, port: int, secrets: Path) -> subprocess.Popen:
    """`streamlit run` with the flags the dashboard's auth tests will use; secrets come from a
    temporary file, so nothing is written to the repo's .streamlit/."""
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.enableXsrfProtection", "true", "--server.enableCORS", "false",
         "--secrets.files", str(secrets)],
        cwd=app.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def idp() -> Iterator[oidc.Provider]:
    with oidc.provider() as running:
        for sub, (email, name, team) in USERS.items():
            running.add_user(sub, email=email, name=name, team=team)
        yield running


@pytest.fixture(scope="module")
def app_url(idp: oidc.Provider, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("oidc-app")
    (folder / "toy_app.py").write_text(TOY_APP)
    port = free_port()
    secrets = folder / "secrets.toml"
    secrets.write_text(oidc.secrets_toml(idp, port))
    proc = _start_streamlit(folder / "toy_app.py", port, secrets)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's chromium, launched from pytest-playwright's shared Playwright (a second
    sync_playwright() in the same session would clash with tests/e2e's)."""
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
    yield launched
    launched.close()


@pytest.fixture
def new_page(browser: Browser) -> Iterator:
    """Pages in separate browser contexts: separate cookie jars, i.e. separate people."""
    contexts: list[BrowserContext] = []

    def make() -> Page:
        contexts.append(browser.new_context())
        return contexts[-1].new_page()

    yield make
    for context in contexts:
        context.close()


def _shown(page: Page) -> str:
    return " | ".join(t.strip() for t in page.locator("[data-testid='stMarkdown']").all_inner_texts())


@pytest.mark.e2e
def test_two_people_sign_in_and_each_sees_only_their_own_claims(app_url, new_page):
    pages = {}
    for sub in USERS:
        page = new_page()
        page.goto(app_url)
        oidc.sign_in(page, app_url, sub)
        pages[sub] = page
    for sub, (email, _name, team) in USERS.items():
        page = pages[sub]
        page.reload()  # a fresh session must read the same identity back from the cookie
        page.wait_for_selector(oidc.IDLE)
        expect(page.get_by_text(f"email: {email}")).to_be_visible()
        expect(page.get_by_text(f"team: {team}")).to_be_visible()
        assert _shown(page) == f"email: {email} | team: {team} | claims: {EXPECTED_CLAIMS}"
    stranger = new_page()
    stranger.goto(app_url)
    stranger.wait_for_selector(oidc.IDLE)
    expect(stranger.get_by_role("button", name="Sign in")).to_have_count(1)
    assert _shown(stranger) == ""
    assert [c["name"] for c in stranger.context.cookies(app_url) if c["name"] == oidc.USER_COOKIE] == []


@pytest.mark.e2e
def test_sign_out_brings_the_sign_in_button_back(app_url, new_page):
    page = new_page()
    page.goto(app_url)
    oidc.sign_in(page, app_url, "alice")
    expect(page.get_by_text("email: alice@a.example")).to_be_visible()
    oidc.sign_out(page, app_url)
    expect(page.get_by_role("button", name="Sign in")).to_have_count(1)
    assert _shown(page) == ""
