"""A real OpenID Connect provider on 127.0.0.1 for browser tests of Streamlit's st.login / st.user.

oidc-provider-mock (a Flask app built on Authlib, https://github.com/geigerzaehler/oidc-provider-mock)
runs in a thread of the test process; Streamlit's own auth routes talk to it exactly as they would
to Google or Okta: discovery document, authorization form in the browser, code exchange, signed ID
token. Nothing leaves localhost.

How a test uses it::

    with oidc.provider() as idp:
        idp.add_user("alice", email="alice@a.example", name="Alice", team="red")
        secrets = tmp_path / "secrets.toml"
        secrets.write_text(oidc.secrets_toml(idp, app_port))
        # streamlit run app.py --server.port {app_port} --server.address 127.0.0.1 --secrets.files {secrets}
        page.goto(f"http://127.0.0.1:{app_port}")
        oidc.sign_in(page, f"http://127.0.0.1:{app_port}", "alice")

Facts this module relies on (read from Streamlit 1.67 and oidc-provider-mock 0.3.4):

- The mock accepts any client_id and client_secret (``require_client_registration=False``) and any
  redirect_uri; a user is whatever claims were PUT at ``/users/{sub}``; a ``sub`` never PUT signs in
  with the single claim ``email = sub``.
- The mock's issuer is the Host the request came in on, so every URL here says ``127.0.0.1``: the
  discovery document, the ID token's ``iss`` (fetched by Streamlit's server) and the browser's
  authorize URL then agree.
- Streamlit stamps the identity cookie with the origin of ``redirect_uri`` and drops the identity
  (st.user.is_logged_in stays False, the server logs "Origin mismatch ...") when the browser's
  websocket Origin differs, so the browser must open the app on the same host as ``redirect_uri``:
  http://127.0.0.1:PORT here, never http://localhost:PORT.

Imports of oidc_provider_mock and playwright are inside the functions: the suite runs with
--doctest-modules, which imports this file even where those packages are absent.
"""

from __future__ import annotations

import json
import re
import secrets
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

HOST = "127.0.0.1"
# Streamlit's identity cookie (streamlit/web/server/starlette/starlette_server_config.py).
USER_COOKIE = "_streamlit_user"
# Set while a provider on another host runs (Authlib would refuse its plain http otherwise).
INSECURE_ENV = "AUTHLIB_INSECURE_TRANSPORT"
# The app has finished a script run (the same selector as tests/support/dashboard.py).
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


@dataclass(frozen=True)
class Provider:
    """A running mock provider: its issuer URL and a way to give a user claims."""

    issuer: str

    @property
    def metadata_url(self) -> str:
        """The discovery document, Streamlit's ``server_metadata_url``."""
        return f"{self.issuer}/.well-known/openid-configuration"

    def add_user(self, sub: str, email: str, name: str, **claims: Any) -> None:
        """Create or replace user ``sub``. The ID token carries ``email`` (scope email), ``name``
        (scope profile) and every non-standard claim (e.g. ``team="red"``, ``groups=[...]``)
        whatever the scope; st.user shows them under the same names."""
        body = json.dumps({"email": email, "name": name, **claims}).encode()
        request = urllib.request.Request(
            f"{self.issuer}/users/{urllib.parse.quote(sub, safe='')}", data=body, method="PUT",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            if response.status != 204:
                raise RuntimeError(f"the mock provider refused user {sub!r}: HTTP {response.status}")


@contextmanager
def provider(host: str = HOST) -> Iterator[Provider]:
    """Start the mock provider on ``host`` (default 127.0.0.1) and a free port; stop it (and its
    thread) on exit.

    ``run_server_in_thread`` binds "localhost" with IPv4 (werkzeug only picks IPv6 for a host
    containing ":"), i.e. 127.0.0.1; ``require_nonce`` makes the mock check the nonce Authlib sends.
    Another ``host`` (this machine's address on its network, :func:`network_address`) serves the
    same app through werkzeug's threaded server bound there: a provider "on another host", over
    plain http, as far as the dashboard can tell.
    """
    with _serving(host) as server:
        idp = Provider(issuer=f"http://{host}:{server.server_port}")
        with urllib.request.urlopen(idp.metadata_url, timeout=10) as response:
            issuer = json.load(response)["issuer"]
        if issuer != idp.issuer:
            raise RuntimeError(f"the mock provider names itself {issuer}, expected {idp.issuer}")
        yield idp


@contextmanager
def _serving(host: str) -> Iterator[Any]:
    if host == HOST:
        from oidc_provider_mock import run_server_in_thread

        with run_server_in_thread(port=0, require_nonce=True) as server:
            yield server
        return
    import os
    import threading

    import werkzeug.serving
    from oidc_provider_mock import app

    # Authlib's server side refuses plain http to a host other than localhost unless told: this
    # provider is meant to be insecure. The variable is read per request, in this process only.
    before = os.environ.get(INSECURE_ENV)
    os.environ[INSECURE_ENV] = "1"
    server = werkzeug.serving.make_server(host, 0, app(require_nonce=True), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
        if before is None:
            os.environ.pop(INSECURE_ENV, None)
        else:
            os.environ[INSECURE_ENV] = before


def network_address() -> str | None:
    """This machine's IPv4 address on its network (not loopback), or None when it has none: the
    address a packet to the outside would leave from (a UDP "connect" sends nothing)."""
    import ipaddress
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: routed like any outside address, never answered
            found = s.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(found).is_loopback else found


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escaping is valid TOML for these ASCII values)."""
    return json.dumps(value)


def secrets_toml(idp: Provider, app_port: int, client_id: str = "agreebound",
                 client_secret: str = "agreebound-test-client-secret", cookie_secret: str | None = None,
                 host: str = HOST) -> str:
    """The ``[auth]`` section for a Streamlit server at ``http://{host}:{app_port}``, to be written to
    a temporary file passed as ``streamlit run ... --secrets.files FILE`` (never .streamlit/).

    ``cookie_secret`` defaults to a fresh random one (Streamlit warns below 14 bytes). ``host`` must
    be the host the browser opens: the identity cookie is bound to this origin.
    """
    values = {
        "redirect_uri": f"http://{host}:{app_port}/oauth2callback",
        "cookie_secret": cookie_secret or secrets.token_hex(32),
        "client_id": client_id,
        "client_secret": client_secret,
        "server_metadata_url": idp.metadata_url,
    }
    lines = ["[auth]", *(f"{key} = {_toml_string(value)}" for key, value in values.items())]
    return "\n".join(lines) + "\n"


def _wait_back_on_app(page: Page, base_url: str, timeout_ms: float) -> None:
    """Wait until the browser is on the app again (not the provider, not /oauth2callback) and the
    script has run."""
    base = base_url.rstrip("/")
    page.wait_for_url(re.compile(re.escape(base) + r"/?(\?.*)?$"), timeout=timeout_ms)
    page.wait_for_selector(IDLE, timeout=timeout_ms)


def sign_in(page: Page, base_url: str, sub: str, timeout_ms: float = 30_000) -> None:
    """Sign in as user ``sub`` through the real flow and return once the app runs signed in.

    ``page`` must be on the app, showing a button whose text contains "Sign in" that calls
    st.login. The click makes Streamlit send the browser to /auth/login?provider=<signed token>,
    which redirects to the provider's authorization form; this fills ``sub`` and presses Authorize;
    the provider redirects to /oauth2callback, which sets the identity cookie and redirects to the
    app's root (always "/": the page and query string the user started from are not restored),
    whose new session reads the cookie into st.user. Signed in means: the identity cookie is set
    and no button containing "Sign in" is left on the page.
    """
    from playwright.sync_api import expect

    page.wait_for_selector(IDLE, timeout=timeout_ms)
    page.get_by_role("button", name=re.compile("Sign in")).first.click()
    form = page.locator("form", has=page.locator("input[name='sub']"))
    form.wait_for(timeout=timeout_ms)
    form.locator("input[name='sub']").fill(sub)
    form.get_by_role("button", name="Authorize").click()
    _wait_back_on_app(page, base_url, timeout_ms)
    names = [c["name"] for c in page.context.cookies(base_url)]
    if USER_COOKIE not in names:
        raise AssertionError(f"no {USER_COOKIE} cookie after signing in as {sub!r}; cookies: {names}")
    expect(page.get_by_role("button", name=re.compile("Sign in"))).to_have_count(0, timeout=timeout_ms)


def sign_out(page: Page, base_url: str, timeout_ms: float = 30_000) -> None:
    """Sign out by opening Streamlit's logout route (where st.logout sends the browser).

    Streamlit clears its cookies and, because the mock advertises an end_session_endpoint, sends the
    browser to the provider's "End session" page; pressing its button returns to /oauth2callback
    (redirect_uri), which redirects to the app's root, now signed out.
    """
    page.goto(base_url.rstrip("/") + "/auth/logout")
    end_session = page.get_by_role("button", name="End session")
    end_session.wait_for(timeout=timeout_ms)
    end_session.click()
    _wait_back_on_app(page, base_url, timeout_ms)
    names = [c["name"] for c in page.context.cookies(base_url)]
    if USER_COOKIE in names:
        raise AssertionError(f"{USER_COOKIE} is still set after signing out; cookies: {names}")
