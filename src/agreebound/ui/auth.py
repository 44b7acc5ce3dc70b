"""Who is looking at the dashboard: sign-in (Streamlit's ``st.login``, OpenID Connect) on a team's
server, the single user otherwise; and what a page may say about the server.

Sign-in is on when Streamlit has an ``[auth]`` section in its secrets (``agreebound serve`` passes
one built from the environment, or ``.streamlit/secrets.toml`` holds it). Then no page shows data
until the visitor has signed in. Without it the dashboard is single-user: the one user owns every
run and, on this machine only, is its admin; on an address other machines reach, every page warns.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Callable, Sequence

import streamlit as st

from agreebound.access import (
    LOCAL,
    SHARE_WORDS,
    Settings,
    SettingError,
    Viewer,
    admitted,
    settings,
    signed_in_viewer,
)
from agreebound.serve import LOOPBACK, REQUIRE_SIGNIN_ENV

#: An absolute server path in a message (a folder and a name at least): replaced for non-admins.
SERVER_PATH = re.compile(r"(?<![\w:/.])/(?:[\w.@+-]+/)+[\w.@+-]*")


def signin_configured() -> bool:
    """An [auth] section is in Streamlit's secrets (a missing or unreadable secrets file: no)."""
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - Streamlit raises its own error when no secrets file exists
        return False


def public() -> bool:
    """Other machines may be looking: the server listens on an address they can reach, or this
    request came through another host name or a proxy (a reverse proxy in front of 127.0.0.1)."""
    if str(st.get_option("server.address") or "") not in LOOPBACK:
        return True
    try:
        headers = st.context.headers
        host = str(headers.get("Host") or "")
        forwarded = any(headers.get(h) for h in ("X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "X-Real-Ip"))
    except Exception:  # noqa: BLE001 - no request (a test's AppTest): the bind address decides
        return False
    name = host.rsplit(":", 1)[0].strip("[]") if host else ""
    return forwarded or (bool(name) and name not in LOOPBACK)


def deployment() -> Settings:
    """The deployment's access settings (agreebound.access.settings); a bad value in the
    environment falls back to the defaults here, and `serve --check` and the start say why."""
    try:
        return settings()
    except SettingError:  # said by `serve --check` and at start; the defaults meanwhile (no admins)
        return Settings()


def viewer() -> Viewer:
    """The visitor: the signed-in identity, or the single user (an admin on this machine only)."""
    if signin_configured():
        if not st.user.is_logged_in:
            return Viewer("(not signed in)", None, admin=False, signed_in=False)
        return signed_in_viewer(st.user.to_dict(), deployment())
    return Viewer(LOCAL, None, admin=not public(), signed_in=False)


#: When each user last signed out through the sidebar's button (this server process): a session
#: still holding that identity from before (another tab) shows nothing more until it is reloaded.
_SIGNED_OUT: dict[str, float] = {}
_SIGNED_OUT_LOCK = threading.Lock()


def gate(paths: Sequence[str] = ()) -> bool:
    """True when the page may be drawn. With sign-in configured and no one signed in, draws the
    sign-in page instead (nothing of the data, the history or the server) and returns False; the
    same for someone not admitted, or a tab whose user signed out elsewhere. ``paths``: the pages'
    URL paths, each answered by that page (a link to /panel shows it, not "page not found")."""
    if not signin_configured():
        if os.environ.get(REQUIRE_SIGNIN_ENV) != "1":
            return True
        _only(_signin_missing, paths)  # started with --auth, and the sign-in settings are gone: fail closed
        return False
    if not st.user.is_logged_in:
        _only(_signin_page, paths)
        return False
    v = viewer()
    if not admitted(v, deployment()):
        _only(_not_admitted, paths)
        return False
    try:  # when this session's sign-in was issued (the ID token's iat, in seconds)
        issued = float(st.user.to_dict().get("iat") or 0)
    except (TypeError, ValueError):
        issued = 0.0
    with _SIGNED_OUT_LOCK:
        gone = _SIGNED_OUT.get(v.user, 0.0) - 1 > issued  # signed out after this sign-in (a second's slack)
    if gone:
        _only(_signed_out_elsewhere, paths)
        return False
    return True


def sign_out() -> None:
    """on_click of Sign out: every other tab of this user stops showing data, then Streamlit's own
    sign-out (its cookies cleared, the provider told)."""
    with _SIGNED_OUT_LOCK:
        _SIGNED_OUT[viewer().user] = time.time()
    st.logout()


def _only(page: Callable[[], None], paths: Sequence[str]) -> None:
    """``page`` as the only page, at the app's root and at each of the pages' paths, with no menu
    (Streamlit would list pages/ itself)."""
    found = [st.Page(page, title="Sign in", url_path="signin", default=True)]
    found += [st.Page(lambda: page(), title="Sign in", url_path=path) for path in paths]
    st.navigation(found, position="hidden").run()


def _signed_out_elsewhere() -> None:
    st.title("Agreebound")
    st.warning(md_plain(f"{viewer().user} signed out in another tab or window. Reload this page to sign in again."))


def _signin_missing() -> None:
    st.title("Agreebound")
    st.error("This dashboard requires sign-in, and its sign-in settings cannot be read: nothing is shown. Ask whoever "
             "runs it to check the server (agreebound serve --check).")


def _not_admitted() -> None:
    st.title("Agreebound")
    st.warning(md_plain(f"You are signed in as {viewer().user}, whom this dashboard does not admit. Sign in with "
                        "another account, or ask its admins to add you."))
    st.button("Sign out", key="sign_out_refused", on_click=st.logout)


def _signin_page() -> None:
    st.title("Agreebound")
    st.markdown("Is this verdict reliable enough to act on? This dashboard is shared by a team: sign in to see "
                "your runs and the runs shared with you.")
    st.button("Sign in", type="primary", on_click=st.login, key="sign_in")
    if st.query_params.get_all("run"):
        st.caption("You opened a link to a run: after signing in, open the link again.")


def sidebar_lines() -> None:
    """Who is signed in (with Sign out), or that the dashboard is single-user."""
    v = viewer()
    if v.signed_in:
        team = f" (team {v.team})" if v.team else " (no team)"
        st.caption(md_plain(f"Signed in as {v.user}{team}" + (", an admin" if v.admin else "") + "."))
        st.button("Sign out", key="sign_out", on_click=sign_out)
    else:
        st.caption("Single-user mode: no sign-in; every run here is yours.")


def public_warning() -> str | None:
    """The warning every page shows on an address others reach without sign-in."""
    if public() and not signin_configured():
        return ("This dashboard is reachable from other machines and has no sign-in: anyone who reaches it sees, "
                "opens and deletes every run. Ask whoever runs it to turn sign-in on (agreebound serve --auth) or to "
                "bind it to this machine only.")
    return None


def shown(text: str) -> str:
    """A message as the visitor may see it: for anyone but an admin, server paths are replaced
    (the store's own messages name it by kind already; this catches the rest, e.g. a folder)."""
    if viewer().admin:
        return text
    return SERVER_PATH.sub("(a server path)", text)


def store_error(text: str) -> str:
    """Why the history store cannot be opened, as the visitor may see it: an admin reads the reason;
    anyone else a reference to it in the server's log (the reason names the database's host, port
    or folder)."""
    if viewer().admin:
        return text
    import logging
    import secrets

    ref = secrets.token_hex(4)
    logging.getLogger("agreebound.ui").warning("the history store cannot be opened (reference %s): %s", ref, text)
    return f"the history cannot be used right now (the server's log has the reason, reference {ref})"


def md_plain(text: str) -> str:
    from agreebound.escape import md_text

    return md_text(text, 400)


def share_words(share: str) -> str:
    return SHARE_WORDS.get(share, share)
