"""The mapping preview on the Panel page: how an uploaded file will be read, before anything is
measured. Every role is a widget writing to one pending Mapping (data); "Measure" adopts it.

Widget keys start with ``pv_`` and are cleared when a new file arrives, so one file's choices never
carry over to the next.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agreebound.core.errors import InputError, memory_message
from agreebound.core.escape import printable
from agreebound.io.mapping import LAYOUTS, Mapping
from agreebound.io.preview import Preview, preview
from agreebound.ui.data import Upload

S = st.session_state
LAYOUT_TEXT = {"wide": "one row per unit, a column per rater (wide)",
               "long": "one row per rating: unit, rater, value (long)",
               "transposed": "one row per rater, a column per unit (raters x units)"}
NONE = "(none)"
#: What the ratings uploader offers (the format is read from the bytes; the name only breaks ties).
PANEL_TYPES = ("csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "ndjson", "json")


def _clear_widgets() -> None:
    for key in [k for k in S.keys() if str(k).startswith("pv_")]:
        del S[key]


def start(upload: Upload) -> str | None:
    """A new file: read its head, suggest a mapping, show the preview. Returns an error text."""
    _clear_widgets()
    try:
        pv = preview(upload.name, upload.data)
    except InputError as e:
        S.pending = None
        return str(e)
    except MemoryError:
        S.pending = None
        return memory_message(upload.name)
    S.pending = {"upload": upload, "mapping": pv.mapping, "preview": pv, "error": pv.error}
    return None


def _refresh(mapping: Mapping) -> None:
    """The preview again, through an edited mapping (the head only: cheap)."""
    upload: Upload = S.pending["upload"]
    try:
        pv = preview(upload.name, upload.data, mapping)
    except (InputError, MemoryError) as e:
        pv = S.pending["preview"]
        error = str(e) if isinstance(e, InputError) else memory_message(upload.name)
        S.pending = {**S.pending, "mapping": mapping, "preview": pv, "error": error}
        return
    S.pending = {**S.pending, "mapping": mapping, "preview": pv, "error": pv.error}


def _columns() -> list[str]:
    return list(S.pending["preview"].columns)


def _on_layout() -> None:
    layout = S.pv_layout
    cols = _columns()
    old: Mapping = S.pending["mapping"]
    if layout == old.layout:
        return
    if layout == "long":  # a first guess the user then corrects: unit, rater, value in column order
        unit = old.unit[:1] or tuple(cols[:1])
        rest = [c for c in cols if c not in unit]
        mapping = Mapping("long", unit, rest[0] if rest else cols[0], rest[1] if len(rest) > 1 else cols[-1],
                          header=old.header, sheet=old.sheet, missing=old.missing)
    elif layout == "transposed":
        mapping = Mapping("transposed", rater=cols[0] if old.header else None, header=old.header, sheet=old.sheet,
                          missing=old.missing)
    else:
        mapping = Mapping("wide", old.unit if old.layout != "transposed" else tuple(cols[:1]), header=old.header,
                          sheet=old.sheet, missing=old.missing)
    for key in [k for k in S.keys() if str(k).startswith("pv_") and k != "pv_layout"]:
        del S[key]
    _refresh(mapping)


def _edit(field: str, key: str, transform: Any = None) -> None:
    value = S[key]
    if transform is not None:
        value = transform(value)
    try:
        mapping = S.pending["mapping"].with_(**{field: value})
    except ValueError as e:
        S.pending = {**S.pending, "error": str(e)}
        return
    _refresh(mapping)


def _none(v: Any) -> Any:
    return None if v == NONE else v


def _split(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in (text or "").split(",") if t.strip())


def _on_sheet() -> None:
    """Another sheet: its own suggested mapping."""
    from agreebound.io.detect import suggest
    from agreebound.io.readers import read_source

    _clear_widgets_except("pv_sheet")
    upload: Upload = S.pending["upload"]
    try:
        source = read_source(upload.name, upload.data, Mapping("wide", sheet=S.pv_sheet), head_rows=10_000)
        _refresh(suggest(source.table).mapping.with_(sheet=S.pv_sheet))
    except InputError as e:
        S.pending = {**S.pending, "error": str(e)}
    except MemoryError:
        S.pending = {**S.pending, "error": memory_message(upload.name)}


def _clear_widgets_except(keep: str) -> None:
    for key in [k for k in S.keys() if str(k).startswith("pv_") and k != keep]:
        del S[key]


def _on_mapping_file() -> None:
    f = S.get("pv_mapping_file")
    if f is None:
        return
    from agreebound.io.formats import parse_mapping

    try:
        mapping = parse_mapping(f.name, f.getvalue())
    except InputError as e:
        S.pending = {**S.pending, "error": str(e)}
        return
    _clear_widgets_except("pv_mapping_file")
    _refresh(mapping)


def cancel() -> None:
    S.pending = None
    _clear_widgets()


def draw(measure: Any) -> None:
    """The preview: what was found, the roles (editable), the first rows, the categories."""
    pending = S.pending
    pv: Preview = pending["preview"]
    m: Mapping = pending["mapping"]
    upload: Upload = pending["upload"]
    with st.container(border=True):
        st.header(f"Preview: how {printable(upload.name, 80)} will be read")
        how = [pv.format] + ([pv.encoding] if pv.encoding not in ("utf-8", "utf-8-sig") else []) + \
            ([{";": "semicolons", "\t": "tabs", "|": "pipes"}.get(pv.delimiter, pv.delimiter)]
             if pv.format == "csv" and pv.delimiter != "," else [])
        st.caption(f"{', '.join(how)}; nothing is measured until you press Measure. "
                   + ("Read from the first " + f"{pv.rows_read:,} rows." if pv.head_only else ""))
        for r in pv.reasons:
            st.text(f"- {printable(r)}")
        for n in pv.notices:
            st.text(f"note: {printable(n)}")
        c1, c2, c3 = st.columns([2, 2, 1])
        with c1:
            if "pv_layout" not in S:
                S.pv_layout = m.layout
            st.radio("Layout", list(LAYOUTS), format_func=LAYOUT_TEXT.get, key="pv_layout", on_change=_on_layout)
        with c2:
            _role_editors(m, pv)
        with c3:
            if pv.sheets and len(pv.sheets) > 1:
                if "pv_sheet" not in S:
                    S.pv_sheet = pv.sheets[0]
                st.selectbox("Sheet", list(pv.sheets), key="pv_sheet", on_change=_on_sheet)
            if "pv_header" not in S:
                S.pv_header = m.header
            st.checkbox("The first row names the columns", key="pv_header", on_change=_edit, args=("header", "pv_header"))
            if pv.format == "csv":
                if "pv_skip" not in S:
                    S.pv_skip = int(m.skip) if m.skip is not None else int(pv.skip)
                st.number_input("Lines above the header", 0, 1000, step=1, key="pv_skip", on_change=_edit,
                                args=("skip", "pv_skip", int), help="A title, comments or empty lines to skip.")
                if "pv_decimal" not in S:
                    S.pv_decimal = m.decimal == ","
                st.checkbox("Decimal comma (1,5)", key="pv_decimal", on_change=_edit,
                            args=("decimal", "pv_decimal", lambda v: "," if v else "."))
            if "pv_missing" not in S:
                S.pv_missing = ", ".join(m.missing)
            st.text_input("Also missing (comma-separated)", key="pv_missing", on_change=_edit,
                          args=("missing", "pv_missing", _split), help="Besides empty, NA, N/A, NaN, null, None, #N/A, .")
        st.markdown("**First rows**")
        frame = pd.DataFrame(list(pv.rows), columns=_unique(pv.columns))
        from agreebound.ui.widgets import safe_frame

        st.dataframe(safe_frame(frame), hide_index=True, width="stretch", height=min(320, 38 + 35 * len(pv.rows)))
        if pv.missing_found:
            st.caption("Missing cells found: " + ", ".join(f"{printable(k) or '(empty)'} x {v:,}"
                                                          for k, v in pv.missing_found.items()))
        if pending.get("error"):
            from agreebound.core.escape import md_text

            st.error(md_text(pending["error"], 400) + " (change the mapping above, or Cancel to keep the data "
                     "loaded before)")
        elif not pv.dimensions:
            st.error(f"Nothing to measure with this mapping: no ratings in the first {pv.rows_read:,} rows "
                     "(change the mapping above, or Cancel to keep the data loaded before)")
        for d in pv.dimensions[:12]:
            _dimension(d, m)
        b1, b2, b3, b4 = st.columns(4)
        b1.button("Measure with this mapping", type="primary", on_click=measure, key="pv_measure",
                  disabled=bool(pending.get("error")) or not pv.dimensions)
        b2.button("Cancel (keep the data loaded before)", on_click=cancel, key="pv_cancel")
        b3.download_button("Download this mapping (JSON)", m.to_json(), file_name="agreebound-mapping.json",
                           mime="application/json", key="pv_mapping_download", on_click="ignore")
        b4.file_uploader("Or use a mapping file", type=["json", "toml"], key="pv_mapping_file",
                         on_change=_on_mapping_file, label_visibility="collapsed")


def _unique(names: tuple[str, ...]) -> list[str]:
    out, seen = [], set()
    for n in names:
        text = printable(n, 40)
        while text in seen:
            text += " "
        seen.add(text)
        out.append(text)
    return out


def _role_editors(m: Mapping, pv: Preview) -> None:
    cols = list(pv.columns)
    if m.layout == "long":
        if "pv_unit" not in S:
            S.pv_unit = [u for u in m.unit if u in cols]
        st.multiselect("Unit column(s)", cols, key="pv_unit", on_change=_edit, args=("unit", "pv_unit", tuple))
        for field, label in (("rater", "Rater column"), ("value", "Value column")):
            key = f"pv_{field}"
            if key not in S:
                S[key] = getattr(m, field) if getattr(m, field) in cols else cols[0]
            st.selectbox(label, cols, key=key, on_change=_edit, args=(field, key))
        if "pv_dimension" not in S:
            S.pv_dimension = m.dimension if m.dimension in cols else NONE
        st.selectbox("Dimension column (one panel per value)", [NONE] + cols, key="pv_dimension", on_change=_edit,
                     args=("dimension", "pv_dimension", _none))
    elif m.layout == "wide":
        if "pv_unit" not in S:
            S.pv_unit = [u for u in m.unit if u in cols]
        st.multiselect("Unit id column(s) (none: each row is a unit)", cols, key="pv_unit", on_change=_edit,
                       args=("unit", "pv_unit", tuple))
        if "pv_ignore" not in S:
            S.pv_ignore = [c for c in m.ignore if c in cols]
        st.multiselect("Columns that are not raters", cols, key="pv_ignore", on_change=_edit,
                       args=("ignore", "pv_ignore", tuple))
    else:
        if "pv_rater" not in S:
            S.pv_rater = m.rater if m.rater in cols else NONE
        st.selectbox("Column naming the raters (none: rater 1, 2, ...)", [NONE] + cols, key="pv_rater",
                     on_change=_edit, args=("rater", "pv_rater", _none))
        if "pv_ignore" not in S:
            S.pv_ignore = [c for c in m.ignore if c in cols]
        st.multiselect("Columns that are not units", cols, key="pv_ignore", on_change=_edit,
                       args=("ignore", "pv_ignore", tuple))
    raters = sorted({r for d in pv.dimensions for r in d.raters})
    if raters and len(raters) <= 2_000:
        humans = sorted({h for d in pv.dimensions for h in d.humans})
        if "pv_humans" not in S:
            S.pv_humans = humans
        st.multiselect("Human raters (the rest are independent detectors)", raters, key="pv_humans",
                       on_change=_edit, args=("humans", "pv_humans", tuple),
                       help="Default: raters whose name starts with 'human' (all raters count if every one does).")
    level_options = ["auto", "nominal", "ordinal", "interval", "ratio"]
    first = pv.dimensions[0] if pv.dimensions else None
    default = first.default if first else ("nominal", "")
    suggested = first.level if first else ("nominal", "")
    if "pv_level" not in S:
        S.pv_level = m.level or "auto"
    st.selectbox("Level of measurement", level_options, key="pv_level", on_change=_edit,
                 args=("level", "pv_level", lambda v: None if v == "auto" else v),
                 format_func=lambda v: f"auto: {default[0]} (the default)" if v == "auto" else v,
                 help=f"auto reads {default[0]}: {default[1]}. The suggested level is offered beside it; "
                      "the verdict names the level it was decided at.")
    in_force = S.pv_level if S.pv_level != "auto" else default[0]
    if first is not None and suggested[0] != in_force:
        st.button(f"{_question(first)} Read as {suggested[0]}?", key="pv_level_switch", on_click=_take_level,
                  args=(suggested[0],), help=f"Suggested: {suggested[1]}")


def _question(d: Any) -> str:
    """The one-click switch's question for a previewed dimension (levels.level_question)."""
    from agreebound.panel.levels import level_question

    values = sorted(int(float(c.category)) for c in d.categories) if d.kind == "integer" else []
    return level_question(d.level[0], d.kind, values)


def _take_level(level: str) -> None:
    S.pv_level = level
    _edit("level", "pv_level")


def _dimension(d: Any, m: Mapping) -> None:
    title = "" if d.dimension == "all" else f" {printable(d.dimension, 60)}:"
    st.markdown(f"**Dimension{title or ''}** {len(d.raters)} raters, {d.n_categories:,} categories")
    st.caption(f"Suggested level {d.level[0]}: {printable(d.level[1])}"
               + (f". Positive category for detector rates: try {printable(d.positive, 40)}" if d.positive is not None
                  else ""))
    rows = [{"category": c.category, "count": c.count, "check": "; ".join(c.flags)} for c in d.categories]
    if rows:
        from agreebound.ui.widgets import safe_frame

        flagged = sum(bool(r["check"]) for r in rows)
        if flagged:
            st.warning(f"{flagged} categor{'y' if flagged == 1 else 'ies'} to check: a misspelling becomes a category "
                       "of its own and moves alpha (see the check column)")
        st.dataframe(safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch", height=min(240, 38 + 35 * len(rows)))
