"""The Panel page draws only its open dimension's tab, and a dimension's Diagnostics, Other
coefficients and Exact numbers only once opened (each a click that reruns, as in the browser).
What a test reads there, it opens first, as a user would."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

SECTIONS = ("diagnostics", "coefficients", "exact")  # the expanders' keys: f"{section}_{dimension}"


def open_panel(at: AppTest, dim: str, *sections: str) -> AppTest:
    """The Panel page (already shown in ``at``) rerun with ``dim``'s tab open and its ``sections``
    expanded."""
    at.session_state["panel_tab"] = dim
    for section in sections:
        assert section in SECTIONS, section
        at.session_state[f"{section}_{dim}"] = True
    at.run()
    assert not at.exception, at.exception
    return at
