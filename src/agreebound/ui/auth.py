"""Who is looking at the dashboard: sign-in (Streamlit's ``st.login``, OpenID Connect) on a team's
server, the single user otherwise; and what a page may say about the server.

Sign-in is on when Streamlit has an ``[auth]`` section in its secrets (``agreebound serve`` passes
one built from the environment, or ``.streamlit/secrets.toml`` holds it). Then no page shows data
until the visitor has signed in. Without it the dashboard is single-user: the one user owns every
run and, on this machine only, is its admin; on an address other machines reach, every page warns.

With sign-in on, files offered for download are private to the account they were made for
(:func:`private_downloads`): Streamlit serves them at ``/media/<id>`` to any request, cookie or not,
so each gets a random id (not the hash of its content) and a report made by a click is deleted
:data:`DOWNLOAD_TTL_S` seconds later, and at once when its owner signs out.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shlex
import threading
import time
from typing import Any, Callable, Sequence, cast

import streamlit as st

from agreebound.app.access import (
    LOCAL,
    SHARE_WORDS,
    Settings,
    SettingError,
    Viewer,
    admitted,
    earlier_owner,
    settings,
    signed_in_viewer,
)
from agreebound.app.serve import LOOPBACK, REQUIRE_SIGNIN_ENV, plain_http_provider
from agreebound.ui.state import K

log = logging.getLogger("agreebound.ui")

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
    """The deployment's access settings (agreebound.app.access.settings); a bad value in the
    environment falls back to the defaults here, and `serve --check` and the start say why."""
    try:
        return settings()
    except SettingError:  # said by `serve --check` and at start; the defaults meanwhile (no admins)
        return Settings()


def viewer() -> Viewer:
    """The visitor: the signed-in identity, or the single user (an admin on this machine only)."""
    if signin_configured():
        if not st.user.is_logged_in:
            return Viewer("", None, admin=False, signed_in=False, shown="(not signed in)")
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
    if _signed_out_since(v.user, _issued()):
        _only(_signed_out_elsewhere, paths)
        return False
    private_downloads()
    _remember(v)
    return True


def _issued() -> float:
    """When this session's sign-in was issued (the ID token's iat, in seconds; 0 unknown)."""
    try:
        return float(cast("str | int", st.user.to_dict().get("iat") or 0))  # a number (anything else: 0.0)
    except (TypeError, ValueError):
        return 0.0


def _signed_out_since(user: str, issued: float) -> bool:
    """``user`` signed out (the sidebar's button) after a sign-in issued at ``issued`` (a second's slack)."""
    with _SIGNED_OUT_LOCK:
        return _SIGNED_OUT.get(user, 0.0) - 1 > issued


#: When this server process last told the store who signed in (account -> time.monotonic()): once
#: every :data:`REMEMBER_S` per account, not at every rerun.
_REMEMBERED: dict[str, float] = {}
REMEMBER_S = 300.0


def _remember(v: Viewer) -> None:
    """The store learns how to name this account and hands it the runs earlier versions stored
    under its address (when the provider gives it exactly as they stored it: in lower case, no
    spaces) or subject form, unless another account claimed them first
    (agreebound.app.store.Store.sign_in). Runs stored under this address's lower-case form that it may
    not claim (``Alice@Red.Example``: earlier versions stored ``alice@red.example`` for her and for
    any case twin alike) are said in the server's log, with the command that gives them to this
    account, for the operator to decide; the page says nothing of another name's runs. A store
    that cannot be used is said in the log and tried again at the next rerun; the page goes on
    (its history says why it has none)."""
    now = time.monotonic()
    with _SIGNED_OUT_LOCK:
        if now - _REMEMBERED.get(v.user, -REMEMBER_S) < REMEMBER_S:
            return
    from agreebound.app.store import StoreError, configured_url, shared

    if configured_url() is None:
        return
    try:
        claimed = shared().as_viewer(v).sign_in()
    except StoreError as e:
        log.warning("the store could not note who signed in: %s", e)
        return
    with _SIGNED_OUT_LOCK:
        _REMEMBERED[v.user] = now
    for legacy, n in claimed:
        log.info("%s claimed %d run(s) recorded as %s", v.user, n, legacy)
    old = earlier_owner(v.email) if v.email else None
    if old and old not in v.legacy:
        try:
            n = shared().owned_by(old)
        except StoreError as e:
            log.warning("the store could not count the runs recorded as %s: %s", old, e)
            return
        if n:
            log.warning("%s (shown as %r) signed in: %d run(s) an earlier version recorded as %s stay unclaimed, as its "
                        "provider's address is not exactly that name (another account's may be alike but for case or "
                        "spaces). If they are this account's, give them to it: agreebound claim --from %s --to %s",
                        v.user, v.email, n, old, shlex.quote(old), shlex.quote(v.user))


def sign_out() -> None:
    """on_click of Sign out: every other tab of this user stops showing data, the files made for
    them to download are deleted, then Streamlit's own sign-out (its cookies cleared, the provider
    told)."""
    user = viewer().user
    with _SIGNED_OUT_LOCK:
        _SIGNED_OUT[user] = time.time()
    _drop_downloads(user)
    st.logout()


#: Seconds a file made by a click on a download button (a report) stays at its address: the
#: browser fetches it as soon as it is made; a link to it kept or passed on is dead after this.
DOWNLOAD_TTL_S = 15.0
#: Files made for an account to download that may still be stored (id -> account).
_DOWNLOADS: dict[str, str] = {}
_DOWNLOADS_LOCK = threading.Lock()
#: In the thread storing a download: the account it is for, and whether it expires (a click's).
_MAKING = threading.local()


def private_downloads() -> None:
    """Make this server's downloads private to the signed-in account they were made for (once per
    Streamlit runtime). Streamlit stores a download button's file in memory and serves it at
    ``/media/<id>`` to any request, with no cookie and no session, under an id that is a hash of
    its content (so anyone who knows or can guess the content has its address). Here:

    - each file offered for download gets a random 128-bit id (unguessable: knowing the report
      does not give its address);
    - a file made by a click (a report: the buttons pass a callable, so nothing is stored before
      the click) is deleted :data:`DOWNLOAD_TTL_S` seconds after it was made, and is not made at
      all for a session whose account signed out since the button was drawn;
    - every file made for an account is deleted when it signs out (the sidebar's Sign out).

    A file shown as part of a page (a static download button) lives while the page shows it, as
    Streamlit keeps it, under its random id. Streamlit's own cleanup still runs. This replaces
    what Streamlit names by content (``memory_media_file_storage._calculate_file_id``) and wraps
    the media manager's ``add`` and ``add_deferred`` for this runtime: the browser test
    (tests/e2e/test_team_browser.py) fetches a report with no cookie to hold it."""
    from streamlit import runtime
    from streamlit.runtime import memory_media_file_storage as storage

    if not runtime.exists():
        return
    mgr = runtime.get_instance().media_file_mgr
    if getattr(mgr, "agreebound_private", False):
        return
    with _DOWNLOADS_LOCK:
        if getattr(mgr, "agreebound_private", False):
            return
        if not getattr(storage._calculate_file_id, "agreebound_private", False):
            by_content = storage._calculate_file_id

            def file_id(data: bytes, mimetype: str, filename: str | None = None) -> str:
                made_for = getattr(_MAKING, "made_for", None)
                if made_for is None:
                    return by_content(data, mimetype, filename)
                _MAKING.made_for = None
                return _made(*made_for)

            setattr(file_id, "agreebound_private", True)  # a mark on the function: this module's own
            storage._calculate_file_id = file_id
        add, add_deferred = mgr.add, mgr.add_deferred

        def add_private(path_or_data: Any, mimetype: str, coordinates: str, file_name: str | None = None,
                        is_for_static_download: bool = False) -> str:
            if is_for_static_download:
                _MAKING.made_for = (viewer().user, None)
            try:
                return add(path_or_data, mimetype, coordinates, file_name=file_name,
                           is_for_static_download=is_for_static_download)
            finally:
                _MAKING.made_for = None

        def add_deferred_private(data_callable: Callable[[], Any], mimetype: str | None, coordinates: str,
                                 file_name: str | None = None, *, element_id: str = "") -> str:
            user, issued = viewer().user, _issued()

            def make() -> Any:
                _MAKING.made_for = None
                if not user or _signed_out_since(user, issued):
                    raise PermissionError("the account this download was offered to has signed out")
                data = data_callable()
                _MAKING.made_for = (user, DOWNLOAD_TTL_S)  # Streamlit stores it next, in this thread
                return data

            return add_deferred(make, mimetype, coordinates, file_name=file_name, element_id=element_id)

        # Streamlit's media file manager's methods replaced on purpose: every download made private
        mgr.add, mgr.add_deferred = add_private, add_deferred_private  # type: ignore[method-assign]
        setattr(mgr, "agreebound_private", True)


def _made(user: str, ttl: float | None) -> str:
    """A random id for a file made for ``user``, deleted after ``ttl`` seconds (None: when
    Streamlit's cleanup or the user's sign-out deletes it)."""
    file_id = secrets.token_hex(16)
    with _DOWNLOADS_LOCK:
        _DOWNLOADS[file_id] = user
        stale = len(_DOWNLOADS) > 1000
    if stale:  # ids Streamlit's cleanup deleted already: forgotten here too
        _forget_deleted()
    if ttl is not None:
        timer = threading.Timer(ttl, _drop_files, args=([file_id],))
        timer.daemon = True
        timer.start()
    return file_id


def _forget_deleted() -> None:
    from streamlit import runtime

    if not runtime.exists():
        return
    mgr = runtime.get_instance().media_file_mgr
    with _DOWNLOADS_LOCK:
        ids = list(_DOWNLOADS)
    gone = [i for i in ids if mgr.read_file(i) is None]
    with _DOWNLOADS_LOCK:
        for i in gone:
            _DOWNLOADS.pop(i, None)


def _drop_downloads(user: str) -> None:
    with _DOWNLOADS_LOCK:
        ids = [i for i, u in _DOWNLOADS.items() if u == user]
    _drop_files(ids)


def _drop_files(ids: list[str]) -> None:
    """Delete these files from Streamlit's media storage: their addresses answer 404 from now on
    (Streamlit's cleanup forgets their entries later, as it does its own)."""
    from streamlit import runtime

    with _DOWNLOADS_LOCK:
        for i in ids:
            _DOWNLOADS.pop(i, None)
    if not ids or not runtime.exists():
        return
    storage = runtime.get_instance().media_file_mgr._storage
    for i in ids:
        storage.delete_file(i)


def _only(page: Callable[[], None], paths: Sequence[str]) -> None:
    """``page`` as the only page, at the app's root and at each of the pages' paths, with no menu
    (Streamlit would list pages/ itself)."""
    found = [st.Page(page, title="Sign in", url_path="signin", default=True)]
    found += [st.Page(lambda: page(), title="Sign in", url_path=path) for path in paths]
    st.navigation(found, position="hidden").run()


def _signed_out_elsewhere() -> None:
    st.title("Agreebound")
    st.warning(md_plain(f"{viewer().name} signed out in another tab or window. Reload this page to sign in again."))


def _signin_missing() -> None:
    st.title("Agreebound")
    st.error("This dashboard requires sign-in, and its sign-in settings cannot be read: nothing is shown. Ask whoever "
             "runs it to check the server (agreebound serve --check).")


def _not_admitted() -> None:
    st.title("Agreebound")
    st.warning(md_plain(f"You are signed in as {viewer().name}, whom this dashboard does not admit. Sign in with "
                        "another account, or ask its admins to add you."))
    st.button("Sign out", key=K.SIGN_OUT_REFUSED, on_click=st.logout)


def _signin_page() -> None:
    st.title("Agreebound")
    st.markdown("Is this verdict reliable enough to act on? This dashboard is shared by a team: sign in to see "
                "your runs and the runs shared with you.")
    if warning := provider_warning():
        st.warning(warning)
    st.button("Sign in", type="primary", on_click=st.login, key=K.SIGN_IN)
    if st.query_params.get_all("run"):
        st.caption("You opened a link to a run: after signing in, open the link again.")


def sidebar_lines() -> None:
    """Who is signed in (with Sign out), or that the dashboard is single-user."""
    v = viewer()
    if v.signed_in:
        team = f" (team {v.team})" if v.team else " (no team)"
        st.caption(md_plain(f"Signed in as {v.name}{team}" + (", an admin" if v.admin else "") + "."))
        st.button("Sign out", key=K.SIGN_OUT, on_click=sign_out)
    else:
        st.caption("Single-user mode: no sign-in; every run here is yours.")


def public_warning() -> str | None:
    """The warning every page shows on an address others reach without sign-in, or with sign-in
    through a provider reached over plain http on another host."""
    if public() and not signin_configured():
        return ("This dashboard is reachable from other machines and has no sign-in: anyone who reaches it sees, "
                "opens and deletes every run. Ask whoever runs it to turn sign-in on (agreebound serve --auth) or to "
                "bind it to this machine only.")
    return provider_warning()


def provider_warning() -> str | None:
    """Said on every page, the sign-in page first, when sign-in goes through a provider reached over
    plain http on another host (agreebound.app.serve.plain_http_provider; ``serve --check`` calls it
    unsafe)."""
    if not signin_configured():
        return None
    try:
        auth = st.secrets["auth"].to_dict()
    except Exception:  # noqa: BLE001 - unreadable secrets: gate() fails closed on its own
        return None
    urls = [auth.get("server_metadata_url")] + [v.get("server_metadata_url") for v in auth.values()
                                                 if isinstance(v, dict)]
    plain = next((str(u) for u in urls if u and plain_http_provider(str(u))), None)
    if plain is None:
        return None
    from agreebound.core.escape import md_text

    return md_text(f"Sign-in here goes through {plain[:200]}, reached over plain http on another host: whoever is on "
                   "the way can read or change what it answers, and sign in as anyone. Ask whoever runs this "
                   "dashboard to give the provider's https:// address (agreebound serve --check calls this unsafe).",
                   600)


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
    from agreebound.core.escape import md_text

    return md_text(text, 400)


def share_words(share: str) -> str:
    return SHARE_WORDS.get(share, share)
