"""Which data a verdict is about: a bundled sample said as such (a badge, "(sample data)"), the
data's name and its files' digests, as a page and a report name them."""

from __future__ import annotations

import streamlit as st

from agreebound.app.recipes import JudgeRecipe, PanelRecipe
from agreebound.ui import runs
from agreebound.ui.blocks import md
from agreebound.ui.data import Loaded, data_digest
from agreebound.ui.state import session


def is_sample(kind: str) -> bool:
    """The data behind this domain's verdicts is a bundled sample (synthetic or published), not
    the user's: every verdict drawn from it says so."""
    loaded = session.loaded(kind)
    files = [] if loaded is None else runs.files_of(loaded)[:1] if kind == "panel" else runs.files_of(loaded)
    return any(getattr(f, "origin", "") == "sample" for f in files)


SAMPLE_WORDS = "Sample data"


def sample_said(kind: str, sentence: str) -> str:
    """"Panel: ..." -> "Panel (sample data): ..." when the verdict is a sample's."""
    head = "Panel:" if kind == "panel" else "Judge:"
    return sentence.replace(head, f"{head[:-1]} (sample data):", 1) if is_sample(kind) else sentence


def sample_badge(kind: str) -> None:
    """A badge before a verdict drawn from a bundled sample."""
    if is_sample(kind):
        st.badge(SAMPLE_WORDS, color="gray", help="A bundled sample, not your data: upload yours on the "
                 + ("Panel reliability" if kind == "panel" else "Judge calibration") + " page.")


def data_line(kind: str) -> str:
    """Which data a verdict is about: the source's name and a digest excerpt (Markdown, escaped)."""
    loaded = session.panel_source if kind == "panel" else session.judge_source
    names = ", ".join(f"{md(name, 60)} (sha256 {digest[:12]}…)" for name, digest in shown_files(loaded))
    sample = " (sample data, not yours)" if is_sample(kind) else ""
    return f"Data: **{md(loaded.label, 120)}**{sample}: {names}"


def shown_files(loaded: Loaded[PanelRecipe | JudgeRecipe]) -> list[tuple[str, str]]:
    """The loaded files by name and digest, as a page and a report name them (a data set of the data
    folder: its name there and its files' digest together)."""
    r = loaded.recipe
    if isinstance(r, PanelRecipe) and r.display is not None:
        return [(r.display, data_digest(r))]
    return [(f.name, f.digest) for f in runs.files_of(loaded)]
