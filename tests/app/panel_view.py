"""The Panel page draws only its open dimension's tab, and a dimension's Diagnostics, Other
coefficients and Exact numbers only once opened (each a click that reruns, as in the browser).
What a test reads there, it opens first, as a user would."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from agreebound.ui import widgets

SECTIONS = ("diagnostics", "coefficients", "exact")  # the expanders' keys: f"{section}_{dimension}"


def open_panel(at: AppTest, dim: str, *sections: str) -> AppTest:
    """The Panel page (already shown in ``at``) rerun with ``dim``'s tab open (its label: the name
    escaped as Markdown) and its ``sections`` expanded; checked: the open tab's verdict is ``dim``'s."""
    at.session_state["panel_tab"] = widgets.md(dim, 60)
    for section in sections:
        assert section in SECTIONS, section
        at.session_state[f"{section}_{dim}"] = True
    at.run()
    assert not at.exception, at.exception
    banners = [a.value for a in [*at.success, *at.warning, *at.error]
               if re.search(r": (ENFORCE|REPORT_ONLY|REFUSE_SINGLE) at the \w+ level", a.value)]
    assert [b.split(": ")[0] for b in banners] == [widgets.md(dim, 60)], banners  # the tab opened is dim's
    return at
