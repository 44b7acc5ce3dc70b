"""The app's frame: navigation, sidebar, URL sync; and the guard that puts a page back in it.

Streamlit still honours the legacy ``pages/`` directory: when a server's first run is a request
for ``/panel`` (or in AppTest after ``switch_page``), it executes ``pages/panel.py`` on its own,
never calling ``st.navigation``, and every later run stays in that mode. A page therefore calls
:func:`enter` first: run outside the frame, it registers the navigation (which switches
Streamlit to it for good) and switches to itself, so the next run goes through ``app.py``.
"""

from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st

from agreebound.ui import state, widgets

# Script runs of different sessions run on different threads: the flag must be per thread.
_local = threading.local()

PAGES = (
    ("pages/overview.py", "Overview", ":material/dashboard:"),
    ("pages/panel.py", "Panel reliability", ":material/groups:"),
    ("pages/judge.py", "Judge calibration", ":material/gavel:"),
    ("pages/whatif.py", "What-if thresholds", ":material/tune:"),
    ("pages/help.py", "Formats & help", ":material/help:"),
)


def _pages() -> list[st.Page]:
    return [st.Page(path, title=title, icon=icon, default=i == 0) for i, (path, title, icon) in enumerate(PAGES)]


def run_app() -> None:
    """The body of app.py."""
    st.set_page_config(page_title="Agreebound", page_icon=":material/balance:", layout="wide")
    state.init()
    page = st.navigation(_pages())
    widgets.sidebar()
    if state.S.url_error:
        st.warning(state.S.url_error)
    _local.inside = True
    try:
        page.run()
    finally:
        _local.inside = False
    state.sync_url()


def enter(file: str) -> None:
    """First line of every page: make sure it runs inside the frame."""
    if getattr(_local, "inside", False):
        return
    pages = _pages()
    st.navigation(pages)
    name = Path(file).name
    st.switch_page(next(p for p, (path, _, _) in zip(pages, PAGES) if Path(path).name == name))
