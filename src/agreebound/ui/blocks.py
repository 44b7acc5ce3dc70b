"""Building blocks every page draws with: user text as escaped Markdown, tabs and sections drawn
only while open, a remembered error, and tables (whole cells on wide screens, stacked rows on
phones, a grid that scrolls when long)."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any, Literal, TypeAlias

import pandas as pd
import pyarrow as pa
import streamlit as st

from agreebound.core.escape import csv_cell, md_text
from agreebound.core.escape import printable  # noqa: F401 - re-exported for the pages (plain text of user text)
from agreebound.ui.state import session


def md(text: Any, limit: int | None = 200) -> str:
    """User text inside Markdown (st.markdown, st.error, tab labels...): shown as the text it is."""
    return md_text(text, limit)


def open_tab(names: list[Any], limit: int, key: str) -> tuple[Any, int]:
    """A tab for each of ``names`` that tracks which one is open (a click on another reruns): the
    open tab's container and its index. Only it is drawn; the hidden tabs stay empty, so a page
    does not make the browser (and the server) draw what nobody looks at."""
    tabs = st.tabs(_tab_labels(names, limit), key=key, on_change="rerun")
    i = next((i for i, t in enumerate(tabs) if t.open), 0)
    return tabs[i], i


def _tab_labels(names: list[Any], limit: int) -> list[str]:
    """Tab labels for ``names`` (Markdown: escaped, shortened to ``limit``), each one distinct. A
    tab that tracks its state is known by its label: two names that shorten alike would give two
    tabs one label, and a click on the second would open the first. A repeat gets " (2)", " (3)"."""
    labels: list[str] = []
    for name in names:
        label, n = md(name, limit), 1
        while label in labels:
            n += 1
            label = f"{md(name, limit)} ({n})"
        labels.append(label)
    return labels


def as_tab_left(key: str, default: Any, allowed: Container[Any]) -> None:
    """Before widget ``key`` of a tab drawn only while open (:func:`open_tab`) is drawn: the value
    it had when its tab was left (session.tab_views), else ``default``. Streamlit forgets a widget
    that a run did not draw; the caller records the value drawn there."""
    views = session.tab_views()
    if session.widget(key) not in allowed:
        session.set_widget(key, views[key] if views.get(key) in allowed else default)


def section_when_open(label: str, key: str, draw: Callable[[], None]) -> None:
    """An expander whose content is computed and drawn only while it is open (a click reruns).
    Left open in a tab, it is open again when that tab is."""
    as_tab_left(key, False, (True, False))
    with st.expander(label, key=key, on_change="rerun") as shown:
        session.remember_tab_view(key, shown.open)
        if shown.open:
            draw()


def show_error(slot: str, suffix: str) -> None:
    """The remembered error of ``slot`` (an InputError's line: user text, so escaped)."""
    message = session.error(slot)
    if message:
        st.error(md(message, 400) + " " + suffix)


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A table that a user can download as CSV (st.dataframe's toolbar): text cells and column
    names that a spreadsheet would run as formulas get a leading apostrophe (OWASP)."""
    out = frame.copy()
    for col in out.columns:
        dtype = out[col].dtype
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            out[col] = out[col].map(csv_cell).astype(object)
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


#: Rows a table draws as text (every cell whole); a longer table is a scrollable grid.
TABLE_ROWS = 100


#: A table as the pages build it: a frame, or its rows as dicts (no frame to build on each rerun).
Table: TypeAlias = pd.DataFrame | list[dict[str, Any]]


def raw_columns(table: Table) -> tuple[list[Any], list[list[Any]]]:
    """A table's column names and its cells, by column (rows as dicts: keys in first-seen order).
    A frame's text column holds a None as a missing value (NaN): it is a None again, an empty cell."""
    if isinstance(table, pd.DataFrame):
        def cells(col: pd.Series) -> list[Any]:
            if pd.api.types.is_string_dtype(col.dtype) and col.isna().any():
                return [None if v is None or v != v else v for v in col.tolist()]
            return col.tolist()
        return list(table.columns), [cells(table.iloc[:, i]) for i in range(table.shape[1])]
    names = list(dict.fromkeys(k for row in table for k in row))
    return names, [[row.get(k) for row in table] for k in names]


def md_table(names: list[Any], columns: list[list[Any]], limit: int = 200) -> pa.Table:
    """The table st.table draws, from :func:`raw_columns`: every header and cell escaped as Markdown
    (st.table renders each as Markdown, so a name or a ">= 9000" shows as the text it is: a leading
    ">" would be a quotation), as an Arrow table of strings, which st.table sends as it is (a frame
    would be converted on every rerun). ``limit``: the characters a cell shows (a longer one is cut,
    its length said)."""
    return pa.Table.from_arrays([pa.array(["" if v is None else md(v, limit) for v in c], type=pa.string())
                                 for c in columns], names=[md(c, 80) for c in names])


def _grid(table: Table) -> None:
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch")


def text_table(table: Table, width: Literal["stretch", "content"] | int = "stretch", limit: int = 200) -> None:
    """A short table whose cells wrap and are shown whole (st.dataframe draws a canvas grid that
    cuts a long cell at its column's edge). Long tables stay a grid that scrolls."""
    if len(table) > TABLE_ROWS:
        _grid(table)
    else:
        _short_table(*raw_columns(table), width, limit)


def _short_table(names: list[Any], columns: list[list[Any]], width: Literal["stretch", "content"] | int,
                 limit: int) -> None:
    st.table(md_table(names, columns, limit), hide_index=True, width=width)


def responsive_table(table: Table, key: str, limit: int = 200) -> None:
    """Wide screens: the table, its cells wrapped and whole. Phones: one stacked block per row,
    every column shown (columns this many would not fit). CSS in the frame (ui.shell) shows one or
    the other. A long table is one scrollable grid on every screen. ``key``: its containers' (CSS)."""
    if len(table) > TABLE_ROWS:
        st.caption(f"{len(table):,} rows: a grid that scrolls; drag a column's edge to widen it.")
        _grid(table)
        return
    names, columns = raw_columns(table)
    with st.container(key=f"{key}_wideview"):
        _short_table(names, columns, "stretch", limit)
    heads = [md(c, 60) for c in names[1:]]
    with st.container(key=f"{key}_narrowview"):
        for first, *rest in zip(*columns):
            st.markdown(f"**{md(first, 80)}**  \n" + "  \n".join(f"{h}: {md(v, limit)}" for h, v in zip(heads, rest)
                                                                if v is not None and v != ""))


def more(items: Any, shown: int) -> str:
    """" and 12 more" when ``items`` are more than the ``shown`` listed."""
    return f" and {len(items) - shown:,} more" if len(items) > shown else ""
