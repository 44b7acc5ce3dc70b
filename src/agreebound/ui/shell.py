"""The app's frame: navigation, sidebar, URL sync, the guard every page runs in; and the switch
that puts a page back in the frame.

Streamlit still honours the legacy ``pages/`` directory: when a server's first run is a request
for ``/panel`` (or in AppTest after ``switch_page``), it executes ``pages/panel.py`` on its own,
never calling ``st.navigation``, and every later run stays in that mode. A page therefore calls
:func:`enter` first: run outside the frame, it registers the navigation (which switches
Streamlit to it for good) and switches to itself, so the next run goes through ``app.py``.
"""

from __future__ import annotations

import gc
import logging
import secrets
import threading
from pathlib import Path
from typing import Any, Callable

import streamlit as st

from agreebound.core import interrupt
from agreebound.core.escape import md_text
from agreebound.ui import auth, run_links, sidebar, state
from agreebound.ui.state import session

log = logging.getLogger("agreebound.ui")

# Script runs of different sessions run on different threads: the flag must be per thread.
_local = threading.local()

# No icons: Streamlit draws :material/...: icons with a font it fetches from the internet.
PAGES = (
    ("pages/overview.py", "Overview"),
    ("pages/panel.py", "Panel reliability"),
    ("pages/judge.py", "Judge calibration"),
    ("pages/whatif.py", "What-if thresholds"),  # WHATIF
    ("pages/history.py", "History"),
    ("pages/help.py", "Formats & help"),
)


WHATIF = "What-if thresholds"

# Captions are drawn at 60% of the text colour: 3.9:1 on white, below WCAG AA's 4.5:1. The text
# colour itself at 80% opacity reaches 6:1 on both themes. Static CSS: no user text.
# blocks.responsive_table: the table on wide screens, stacked rows on phones. On a touch screen a
# table's toolbar is always shown, 44 px above the table, over the caption before it: the table
# keeps that room free there.
CSS = ("<style>[data-testid='stCaptionContainer']{color:inherit !important;opacity:.8;}"
       "@media (hover:none){[data-testid='stElementContainer']:has([data-testid='stElementToolbar'])"
       "{margin-top:2.75rem;}}"
       "[class*='_narrowview']{display:none !important;}[class*='_narrowview'] p{overflow-wrap:anywhere;}"
       "@media (max-width:640px){[class*='_wideview']{display:none !important;}"
       "[class*='_narrowview']{display:flex !important;}}</style>")


def _pages() -> list[st.Page]:
    return [st.Page(path, title=title, default=i == 0) for i, (path, title) in enumerate(PAGES)]


def _stop_if_left() -> None:
    """The readers' checkpoint (agreebound.core.interrupt): when this thread's script run was asked to
    stop (its tab closed, its session ended), stop reading now rather than read on for nobody.
    Reruns are left to finish: a slider moved during a measurement must not restart it forever.
    Streamlit has no public call for this; where its internals differ, the check does nothing."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    requests = getattr(ctx, "script_requests", None)
    if requests is not None and getattr(requests, "_state", None) == ScriptRequestType.STOP:
        from streamlit.runtime.scriptrunner_utils.exceptions import StopException

        raise StopException()


def guarded(what: str, body: Callable[[], Any]) -> None:
    """Run ``body``; an unexpected exception becomes a short error box (no traceback, no server
    paths, no user text) and the full trace goes to the server log under a reference."""
    try:
        body()
    except MemoryError:  # a limit reached, not a bug: the worker goes on serving
        log.warning("%s ran out of memory", what)
        st.error(f"Drawing {what} needed more memory than this server has. The data you loaded is kept; "
                 "choose smaller data, or reload the page.")
    except Exception:  # noqa: BLE001 - Streamlit's reruns and stops are BaseException and pass through
        ref = secrets.token_hex(4)
        log.exception("%s failed (reference %s)", what, ref)
        st.error(f"Something went wrong while drawing {what}. The data you loaded is kept; choose other "
                 f"data or thresholds, or reload the page. The server log has the details under reference {ref}.")


def run_app() -> None:
    """The body of app.py."""
    st.set_page_config(page_title="Agreebound", layout="wide")
    interrupt.install(_stop_if_left)
    if not auth.gate([Path(path).stem for path, _ in PAGES[1:]]):  # a team's server: nothing before sign-in
        st.stop()
    if state.init() and st.query_params.get_all("run"):  # a link's runs: data, mapping, reading, thresholds
        guarded("the link's runs", run_links.open_link_runs)
    page = st.navigation(_pages())
    st.set_page_config(page_title=f"{page.title} · Agreebound")  # each page its own tab title
    session.entered(page.title)
    st.html(CSS)
    live = page.title == WHATIF  # its sliders rerun only their fragment, which draws the banner itself
    guarded("the sidebar", lambda: sidebar.sidebar(live))
    if warning := auth.public_warning():
        st.warning(warning)
    if session.url_error:
        st.warning(md_text(session.url_error, 300))
    if not live:
        guarded("the thresholds in force", sidebar.threshold_banner)
    _local.inside = True
    try:
        guarded("this page", page.run)
    finally:
        _local.inside = False
    run_links.sync_url()
    _freeze_once()


def _freeze_once() -> None:
    """After the process's first page run (every module imported, the samples measured): the
    objects alive then are left out of Python's full collections, which otherwise walked them all
    and stopped every session for 120-190 ms each time (streamlit's own collection after each run
    is off, .streamlit/config.toml). Later objects are collected as ever; what dies among the
    frozen ones in a reference cycle stays (what the first run left, once). Whether it was done is
    the interpreter's own count of frozen objects."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


def enter(file: str) -> None:
    """First line of every page: make sure it runs inside the frame."""
    if getattr(_local, "inside", False):
        return
    pages = _pages()
    st.navigation(pages)
    name = Path(file).name
    # the link's parameters (?run=, ?th=) go along: a deep link is the first request a server sees
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    st.switch_page(next(p for p, (path, _) in zip(pages, PAGES) if Path(path).name == name),
                   query_params=params or None)
