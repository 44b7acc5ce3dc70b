"""The mapping preview on the Panel page: how an uploaded file will be read, before anything is
measured. Every role is a widget writing to one pending Mapping (data); "Measure" adopts it.

Widget keys start with ``K.PV_`` (``pv_``) and are cleared when a new file arrives, so one file's
choices never carry over to the next.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agreebound.core.errors import InputError, memory_message
from agreebound.core.escape import printable
from agreebound.io.mapping import LAYOUTS, Mapping
from agreebound.io.preview import Preview, preview
from agreebound.ui.blocks import safe_frame
from agreebound.ui.data import Upload
from agreebound.ui.state import K, session
from agreebound.io.registry import DETECTOR_RATES, RATINGS, THRESHOLDS, format_list, short_list, upload_types
LAYOUT_TEXT = {"wide": "one row per unit, a column per rater (wide)",
               "long": "one row per rating: unit, rater, value (long)",
               "transposed": "one row per rater, a column per unit (raters x units)"}
NONE = "(none)"
#: The header checkbox's help: what its short label ("Header row") means, ticked and not.
HEADER_HELP = ("Ticked: the first row names the columns. Unticked: the first row is data, and the columns are "
               "named column 1, column 2, ...")
#: What the ratings uploader offers (the format is read from the bytes; the name only breaks ties).
#: The ratings uploader's endings and label, from the reader registry (one entry per format).
PANEL_TYPES = tuple(upload_types(RATINGS))
PANEL_LABEL = f"Ratings: {short_list(RATINGS)}"
PANEL_HELP = f"Any of: {format_list(RATINGS)}."
#: The detector rates' and the thresholds' uploaders' endings, from the same registry.
RATES_TYPES = tuple(upload_types(DETECTOR_RATES))
THRESHOLDS_TYPES = tuple(upload_types(THRESHOLDS))


def _clear_widgets() -> None:
    session.forget_prefixed(K.PV_)


def start(upload: Upload) -> str | None:
    """A new file: read its head, suggest a mapping, show the preview. Returns an error text."""
    _clear_widgets()
    try:
        pv = preview(upload.name, upload.data)
    except InputError as e:
        session.set_pending(None)
        return str(e)
    except MemoryError:
        session.set_pending(None)
        return memory_message(upload.name)
    session.set_pending({"upload": upload, "mapping": pv.mapping, "preview": pv, "error": pv.error})
    return None


def _refresh(mapping: Mapping) -> None:
    """The preview again, through an edited mapping (the head only: cheap)."""
    pending = _pending()
    upload: Upload = pending["upload"]
    try:
        pv = preview(upload.name, upload.data, mapping)
    except (InputError, MemoryError) as e:
        pv = pending["preview"]
        error = str(e) if isinstance(e, InputError) else memory_message(upload.name)
        session.set_pending({**pending, "mapping": mapping, "preview": pv, "error": error})
        return
    session.set_pending({**pending, "mapping": mapping, "preview": pv, "error": pv.error})


def _pending() -> dict[str, Any]:
    """The file in the preview (ui.state.session.pending): only drawn, and edited, while there is one."""
    pending = session.pending
    assert pending is not None, "no file in the preview"
    return pending


def _set_error(error: str) -> None:
    session.set_pending({**_pending(), "error": error})


def _columns() -> list[str]:
    return list(_pending()["preview"].columns)


def _on_layout() -> None:
    layout = session.widget(K.PV_LAYOUT)
    cols = _columns()
    old: Mapping = _pending()["mapping"]
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
    session.forget_prefixed(K.PV_, keep=K.PV_LAYOUT)
    _refresh(mapping)


def _edit(field: str, key: str, transform: Any = None) -> None:
    value = session.widget(key)
    if transform is not None:
        value = transform(value)
    try:
        mapping = _pending()["mapping"].with_(**{field: value})
    except ValueError as e:
        _set_error(str(e))
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

    session.forget_prefixed(K.PV_, keep=K.PV_SHEET)
    upload: Upload = _pending()["upload"]
    sheet = session.widget(K.PV_SHEET)
    try:
        source = read_source(upload.name, upload.data, Mapping("wide", sheet=sheet), head_rows=10_000)
        _refresh(suggest(source.table).mapping.with_(sheet=sheet))
    except InputError as e:
        _set_error(str(e))
    except MemoryError:
        _set_error(memory_message(upload.name))


def _on_mapping_file() -> None:
    f = session.widget(K.PV_MAPPING_FILE)
    if f is None:
        return
    from agreebound.io.ratings import parse_mapping

    try:
        mapping = parse_mapping(f.name, f.getvalue())
    except InputError as e:
        _set_error(str(e))
        return
    session.forget_prefixed(K.PV_, keep=K.PV_MAPPING_FILE)
    _refresh(mapping)


def cancel() -> None:
    session.set_pending(None)
    _clear_widgets()


def draw(measure: Any) -> None:
    """The preview: what was found, the roles (editable), the first rows, the categories."""
    pending = _pending()
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
            session.seed_widget(K.PV_LAYOUT, m.layout)
            st.radio("Layout", list(LAYOUTS), format_func=LAYOUT_TEXT.get, key=K.PV_LAYOUT, on_change=_on_layout)
        with c2:
            _role_editors(m, pv)
        with c3:
            if pv.sheets and len(pv.sheets) > 1:
                session.seed_widget(K.PV_SHEET, pv.sheets[0])
                st.selectbox("Sheet", list(pv.sheets), key=K.PV_SHEET, on_change=_on_sheet)
            session.seed_widget(K.PV_HEADER, m.header)
            # a short label: this column is a fifth of the preview, and a checkbox's label is cut, not wrapped
            st.checkbox("Header row", key=K.PV_HEADER, on_change=_edit, args=("header", K.PV_HEADER), help=HEADER_HELP)
            if pv.format == "csv":
                session.seed_widget(K.PV_SKIP, int(m.skip) if m.skip is not None else int(pv.skip))
                st.number_input("Lines above the header", 0, 1000, step=1, key=K.PV_SKIP, on_change=_edit,
                                args=("skip", K.PV_SKIP, int), help="A title, comments or empty lines to skip.")
                session.seed_widget(K.PV_DECIMAL, m.decimal == ",")
                st.checkbox("Decimal comma (1,5)", key=K.PV_DECIMAL, on_change=_edit,
                            args=("decimal", K.PV_DECIMAL, lambda v: "," if v else "."))
            session.seed_widget(K.PV_MISSING, ", ".join(m.missing))
            st.text_input("Also missing (comma-separated)", key=K.PV_MISSING, on_change=_edit,
                          args=("missing", K.PV_MISSING, _split), help="Besides empty, NA, N/A, NaN, null, None, #N/A, .")
        st.markdown("**First rows**")
        frame = pd.DataFrame(list(pv.rows), columns=_unique(pv.columns))
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
        b1.button("Measure with this mapping", type="primary", on_click=measure, key=K.PV_MEASURE,
                  disabled=bool(pending.get("error")) or not pv.dimensions)
        b2.button("Cancel (keep the data loaded before)", on_click=cancel, key=K.PV_CANCEL)
        b3.download_button("Download this mapping (JSON)", m.to_json(), file_name="agreebound-mapping.json",
                           mime="application/json", key=K.PV_MAPPING_DOWNLOAD, on_click="ignore")
        b4.file_uploader("Or use a mapping file", type=["json", "toml"], key=K.PV_MAPPING_FILE,
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
        session.seed_widget(K.PV_UNIT, [u for u in m.unit if u in cols])
        st.multiselect("Unit column(s)", cols, key=K.PV_UNIT, on_change=_edit, args=("unit", K.PV_UNIT, tuple))
        for field, label, key in (("rater", "Rater column", K.PV_RATER), ("value", "Value column", K.PV_VALUE)):
            session.seed_widget(key, getattr(m, field) if getattr(m, field) in cols else cols[0])
            st.selectbox(label, cols, key=key, on_change=_edit, args=(field, key))
        session.seed_widget(K.PV_DIMENSION, m.dimension if m.dimension in cols else NONE)
        st.selectbox("Dimension column (one panel per value)", [NONE] + cols, key=K.PV_DIMENSION, on_change=_edit,
                     args=("dimension", K.PV_DIMENSION, _none))
    elif m.layout == "wide":
        session.seed_widget(K.PV_UNIT, [u for u in m.unit if u in cols])
        st.multiselect("Unit id column(s) (none: each row is a unit)", cols, key=K.PV_UNIT, on_change=_edit,
                       args=("unit", K.PV_UNIT, tuple))
        session.seed_widget(K.PV_IGNORE, [c for c in m.ignore if c in cols])
        st.multiselect("Columns that are not raters", cols, key=K.PV_IGNORE, on_change=_edit,
                       args=("ignore", K.PV_IGNORE, tuple))
    else:
        session.seed_widget(K.PV_RATER, m.rater if m.rater in cols else NONE)
        st.selectbox("Column naming the raters (none: rater 1, 2, ...)", [NONE] + cols, key=K.PV_RATER,
                     on_change=_edit, args=("rater", K.PV_RATER, _none))
        session.seed_widget(K.PV_IGNORE, [c for c in m.ignore if c in cols])
        st.multiselect("Columns that are not units", cols, key=K.PV_IGNORE, on_change=_edit,
                       args=("ignore", K.PV_IGNORE, tuple))
    raters = sorted({r for d in pv.dimensions for r in d.raters})
    if raters and len(raters) <= 2_000:
        humans = sorted({h for d in pv.dimensions for h in d.humans})
        session.seed_widget(K.PV_HUMANS, humans)
        st.multiselect("Human raters (the rest are independent detectors)", raters, key=K.PV_HUMANS,
                       on_change=_edit, args=("humans", K.PV_HUMANS, tuple),
                       help="Default: raters whose name starts with 'human' (all raters count if every one does).")
    level_options = ["auto", "nominal", "ordinal", "interval", "ratio"]
    first = pv.dimensions[0] if pv.dimensions else None
    default = first.default if first else ("nominal", "")
    suggested = first.level if first else ("nominal", "")
    session.seed_widget(K.PV_LEVEL, m.level or "auto")
    st.selectbox("Level of measurement", level_options, key=K.PV_LEVEL, on_change=_edit,
                 args=("level", K.PV_LEVEL, lambda v: None if v == "auto" else v),
                 format_func=lambda v: f"auto: {default[0]} (the default)" if v == "auto" else v,
                 help=f"auto reads {default[0]}: {default[1]}. The suggested level is offered beside it; "
                      "the verdict names the level it was decided at.")
    level = session.widget(K.PV_LEVEL)
    in_force = level if level != "auto" else default[0]
    order = _looks_ordered(first, m)
    if first is not None and order is not None and in_force != "ordinal":
        st.button(f"{_question(first)} Read as ordinal in their order?", key=K.PV_LEVEL_SWITCH, on_click=_take_order,
                  args=(first.dimension if m.dimension else None, order),
                  help="Suggested: the order the labels seem to have, lowest first: " + printable(" < ".join(order)) +
                       ". It is written into the mapping (its order), and can be edited after Measure.")
    elif first is not None and suggested[0] != in_force:
        st.button(f"{_question(first)} Read as {suggested[0]}?", key=K.PV_LEVEL_SWITCH, on_click=_take_level,
                  args=(suggested[0],), help=f"Suggested: {suggested[1]}")


def _looks_ordered(d: Any, m: Mapping) -> tuple[str, ...] | None:
    """The order a previewed label dimension seems to have (its categories all shown), when the
    mapping gives it none."""
    from agreebound.panel.levels import inferred_order

    if d is None or d.kind != "label" or d.level[0] != "ordinal" or m.order or len(d.categories) != d.n_categories:
        return None
    return inferred_order([c.category for c in d.categories])


def _take_order(dimension: str | None, order: tuple[str, ...]) -> None:
    """on_click: the labels' order written into the previewed mapping (the ordinal level then its default)."""
    try:
        mapping = _pending()["mapping"].with_(order=((dimension, order),))
    except ValueError as e:
        _set_error(str(e))
        return
    _refresh(mapping)


def _question(d: Any) -> str:
    """The one-click switch's question for a previewed dimension (levels.level_question)."""
    from agreebound.panel.levels import level_question

    values = sorted(int(float(c.category)) for c in d.categories) if d.kind == "integer" else []
    return level_question(d.level[0], d.kind, values)


def _take_level(level: str) -> None:
    session.set_widget(K.PV_LEVEL, level)
    _edit("level", K.PV_LEVEL)


def _dimension(d: Any, m: Mapping) -> None:
    title = "" if d.dimension == "all" else f" {printable(d.dimension, 60)}:"
    st.markdown(f"**Dimension{title or ''}** {len(d.raters)} raters, {d.n_categories:,} categories")
    st.caption(f"Suggested level {d.level[0]}: {printable(d.level[1])}"
               + (f". Positive category for detector rates: try {printable(d.positive, 40)}" if d.positive is not None
                  else ""))
    rows = [{"category": c.category, "count": c.count, "check": "; ".join(c.flags)} for c in d.categories]
    if rows:
        flagged = sum(bool(r["check"]) for r in rows)
        if flagged:
            st.warning(f"{flagged} categor{'y' if flagged == 1 else 'ies'} to check: a misspelling becomes a category "
                       "of its own and moves alpha (see the check column)")
        st.dataframe(safe_frame(pd.DataFrame(rows)), hide_index=True, width="stretch", height=min(240, 38 + 35 * len(rows)))
