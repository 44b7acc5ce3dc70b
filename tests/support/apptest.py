"""The dashboard through Streamlit's AppTest, as the page tests (tests/ui) drive it: one way to open
a page, to read what it says as a user reads it, and to upload a file.

Every run is checked: ``app`` and ``upload`` fail on the first exception the script raised, after
the first run, after the page switch and after each upload. Text is read as shown: Markdown's
backslash escapes, the word joiners that stop autolinks and (``bold=False``) bold marks removed,
no-break spaces read as spaces.

The Panel page draws only its open dimension's tab, and a dimension's Diagnostics, Other
coefficients and Exact numbers only once opened (each a click that reruns, as in the browser):
what a test reads there, it opens first (``open_panel``), as a user would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 120  # seconds a script run may take (the first page of a session measures the samples)
TEXT_KINDS = ("markdown", "caption", "info", "warning", "error", "success", "header", "subheader")
SECTIONS = ("diagnostics", "coefficients", "exact", "study")  # the Panel page's expanders' keys: f"{section}_{dimension}"


def ok(at: AppTest) -> AppTest:
    """``at`` after a run that raised nothing (the exception is the failure's message)."""
    assert not at.exception, at.exception
    return at


def app(page: str | None = None, query: Mapping[str, object] | None = None, **params: object) -> AppTest:
    """A new session of the dashboard with ``query`` and ``params`` as its URL's query parameters
    (a list is a repeated parameter), run, then switched to ``page`` (e.g. "pages/panel.py")."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in {**(query or {}), **params}.items():
        at.query_params[key] = value
    ok(at.run())
    if page:
        ok(at.switch_page(page).run())
    return at


def upload(at: AppTest, key: str, name: str, payload: bytes, mime: str = "text/csv") -> AppTest:
    """``payload`` uploaded as ``name`` to the file uploader ``key``, and the run that follows."""
    return ok(at.file_uploader(key=key).set_value((name, payload, mime)).run())


def param(at: AppTest, key: str) -> list[str]:
    """A query parameter's values (AppTest gives one value as a string)."""
    v = at.query_params.get(key)
    return [] if v is None else ([v] if isinstance(v, str) else list(v))


def shown(markdown: str, bold: bool = True) -> str:
    """The text a user sees: Markdown's backslash escapes and the invisible word joiners that stop
    autolinks (how user text is escaped) removed, no-break spaces read as spaces; without bold
    marks too when ``bold`` is False."""
    if not bold:
        markdown = re.sub(r"(?<!\\)\*\*", "", markdown)
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "").replace("\u00a0", " ")


def plain(markdown: str) -> str:
    """Markdown as the reader sees it (``shown``)."""
    return shown(markdown)


def texts(elements, bold: bool = True) -> list[str]:
    """Each element's text as shown."""
    return [shown(e.value, bold) for e in elements]


def text(at: AppTest) -> str:
    """The page's Markdown, a line per element, as shown."""
    return plain("\n".join(m.value for m in at.markdown))


def said(at: AppTest, bold: bool = True) -> str:
    """Every line of text on the page as a user reads it."""
    return "\n".join(shown(e.value, bold) for kind in TEXT_KINDS for e in getattr(at, kind))


def tables(at: AppTest, bold: bool = True) -> list:
    """The text tables (st.table, every cell whole) as a user reads them: cells and headers are
    Markdown there, escaped; the escapes removed."""
    return [t.value.rename(columns=lambda c: shown(c, bold)).map(lambda c: shown(c, bold)) for t in at.table]


def table_with(at: AppTest, column: str, row: str, nth: int = 0, bold: bool = True):
    """The ``nth`` text table with a row whose ``column`` is ``row``, indexed by that column."""
    found = [t for t in tables(at, bold) if column in t.columns and row in set(t[column])]
    return found[nth].set_index(column)


def open_panel(at: AppTest, dim: str, *sections: str) -> AppTest:
    """The Panel page (already shown in ``at``) rerun with ``dim``'s tab open (its label: the name
    escaped as Markdown) and its ``sections`` expanded; checked: the open tab's verdict is ``dim``'s."""
    from agreebound.ui.blocks import md

    at.session_state["panel_tab"] = md(dim, 60)
    for section in sections:
        assert section in SECTIONS, section
        at.session_state[f"{section}_{dim}"] = True
    ok(at.run())
    banners = [a.value for a in [*at.success, *at.warning, *at.error]
               if re.search(r": (ENFORCE|REPORT_ONLY|REFUSE_SINGLE) at the \w+ level", a.value)]
    assert [b.split(": ")[0] for b in banners] == [md(dim, 60)], banners  # the tab opened is dim's
    return at


#: The What-if page's sections drawn only while open (their keys: ui.state.K), by the name a test opens them with.
WHATIF_SECTIONS = {"tables": "WHATIF_TABLES", "sweep": "SWEEP", "downloads": "WHATIF_DOWNLOADS", "load": "WHATIF_LOAD"}


def open_whatif(at: AppTest, group: str = "Panel", *sections: str) -> AppTest:
    """The What-if page (already shown in ``at``) rerun with ``group``'s editors open (a tab:
    "Panel", "Judge contract", "Graded judge") and its ``sections`` open; checked: the open tab's
    editors are ``group``'s."""
    from agreebound.ui.state import K

    at.session_state[K.WHATIF_GROUP] = group  # a click on the tab (AppTest cannot click one)
    for section in sections:
        at.session_state[getattr(K, WHATIF_SECTIONS[section])] = True
    ok(at.run())
    keys = {s.key for s in at.slider}
    first = {"Panel": "slider_alpha_floor_permil", "Judge contract": "slider_minimum_reviewers",
             "Graded judge": "slider_admissibility_margin_permil"}[group]
    assert first in keys, (group, sorted(keys))
    return at
