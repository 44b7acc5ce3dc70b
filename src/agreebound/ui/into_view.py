"""The verdict brought into view after an action that changes it (issue 54): the Panel page keeps
its scroll position across a rerun, so after "Measure" (or a level switch, a sample, a positive
category) the answer sat a screen or more above what the user was looking at.

A zero-height component runs a few lines of script in the page (same origin: the app's own page,
no network) that scroll the container holding the verdict to the top of the view. Only when the
verdicts drawn differ from the ones drawn last (ui.state.Session.verdicts_changed): a rerun that
changes nothing (a scroll, an expander) leaves the view where the user put it. Static script: no
user text reaches it (the container's key is ours).
"""

from __future__ import annotations

import hashlib

import streamlit.components.v1 as components

from agreebound.ui.state import session

_SCROLL = """<script>
// %s: a frame whose text is new each time, so the page runs it again (an unchanged one is kept)
(() => {
  let tries = 0;
  const go = () => {
    const el = window.parent.document.querySelector('.st-key-%s');
    if (el) {
      // below the app's fixed header (60 px), which would cover the verdict's first lines
      const bar = window.parent.document.querySelector('[data-testid="stHeader"]');
      el.style.scrollMarginTop = ((bar ? bar.getBoundingClientRect().bottom : 0) + 8) + 'px';
      el.scrollIntoView({block: 'start', behavior: 'instant'});
      return;
    }
    if (++tries < 40) { setTimeout(go, 50); }
  };
  go();
})();
</script>"""


def verdict_into_view(page: str, key: str, shown: object) -> None:
    """On ``page``, scroll the container keyed ``key`` (one of ours: no user text) into view when
    ``shown`` (the verdicts drawn, any comparable value) differs from what the page drew last."""
    if session.verdicts_changed(page, shown):
        nonce = hashlib.sha256(repr(shown).encode()).hexdigest()[:16]  # digits only: no user text
        components.html(_SCROLL % (nonce, key), height=0)
