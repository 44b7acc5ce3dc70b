"""The Panel page's control for a label dimension's categories: their order, lowest first (so
ordinal alpha reads them by rank), and a recoding (labels renamed or merged) without editing the
file. Both are written into the loaded panel's mapping (as ``--order``/``--recode`` and a
mapping file's ``order``/``recode`` are), and the panel is adopted again through it: what the
page shows, a report says and a recorded run replays is that mapping.

The boxes are keyed by the loaded data's digest, so other data (or this data read through the
new mapping) starts them from what is in force."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal

import streamlit as st

from agreebound.app.recipes import PanelRecipe, recipe_digest
from agreebound.core.errors import FieldError
from agreebound.io.mapping import Mapping, parse_recode
from agreebound.panel.levels import inferred_order
from agreebound.panel.measure import PanelMeasurement
from agreebound.panel.ratings import category_texts
from agreebound.ui import state
from agreebound.ui.data import Loaded, imported_of
from agreebound.ui.loading import try_panel_source
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.panel.categories import Level


def _mapping(loaded: Loaded[PanelRecipe]) -> Mapping:
    """The mapping the loaded panel is read through: its own, else the one suggested for it."""
    m = loaded.recipe.mapping
    return Mapping.from_json(m) if isinstance(m, str) else imported_of(loaded.recipe).mapping


def _keys(dim: str) -> tuple[str, str]:
    tag = recipe_digest(session.panel_source.recipe)[:16]
    return K.ORDER_TEXT.format(dim, tag), K.RECODE_TEXT.format(dim, tag)


def available(m: PanelMeasurement) -> bool:
    """The control is drawn for labels held in memory (an upload or a sample; a data folder's
    files are ordered by a mapping file)."""
    return m.kind == "label" and session.panel_source.recipe.ratings[0].data is not None


def order_shown(m: PanelMeasurement) -> tuple[str, ...]:
    """The order the box starts from: the one in force, else the one the labels seem to have,
    else the categories as sorted."""
    texts = tuple(category_texts(m.alpha.category_set))
    if m.alpha.category_set.ordered:
        return texts
    return inferred_order(texts) or texts


def order_controls(dim: str, m: PanelMeasurement) -> None:
    """Two boxes (the order, a label a line, lowest first; the recoding, ``from = to`` a line)
    and a button that reads the data again through them."""
    order_key, recode_key = _keys(dim)
    mapping = _mapping(session.panel_source)
    session.seed_widget(order_key, "\n".join(order_shown(m)))
    session.seed_widget(recode_key, "\n".join(f"{a} = {b}" for a, b in mapping.recode))
    if m.alpha.category_set.ordered:
        st.caption("The categories are read in the order given (lowest first): ordinal alpha ranks them so.")
    elif m.level_suggestion[0] == "ordinal":
        st.caption("The labels look ordered: the box holds the order they seem to have. Check it, then apply it.")
    left, right = st.columns(2)
    left.text_area("Order, lowest first (a category a line)", key=order_key, height=150,
                   help="Ordinal alpha reads labels by their rank in this order (the krippendorff package's "
                        "value_domain). Every label in the data must be here; leave the box empty for no order.")
    right.text_area("Recode (from = to, a line each)", key=recode_key, height=150,
                    help="Rename or merge labels before they are read, without editing the file: 'First = 1st grade'. "
                         "A label recoded to a number is that number. The notes count the cells recoded.")
    st.button("Apply the order and recoding", key=K.ORDER_APPLY.format(dim), on_click=apply_order,
              args=(dim, order_key, recode_key))


def apply_order(dim: str, order_key: str, recode_key: str) -> None:
    """on_click: the boxes' order and recoding written into the mapping, and the panel adopted
    through it (kept as it was, with the reason shown, if the data cannot be read so)."""
    order = [line.strip() for line in str(session.widget(order_key, "")).splitlines() if line.strip()]
    lines = [line for line in str(session.widget(recode_key, "")).splitlines() if line.strip()]
    try:
        pairs = [line.split("=", 1) for line in lines]
        bad = next((line for line, p in zip(lines, pairs) if len(p) != 2), None)
        if bad is not None:
            raise FieldError(f"recode: {bad[:40]!r} is not 'from = to'", "recode")
        recode = parse_recode([(a.strip(), b.strip()) for a, b in pairs]) if pairs else ()  # a label twice: refused
        _adopt(dim, tuple(order), recode)
    except (FieldError, ValueError) as e:
        state.remember_error("panel", f"{session.panel_source.label}: {e}")


def apply_inferred(dim: str, order: tuple[str, ...]) -> None:
    """on_click of the level switch for labels that look ordered: their order given, read at ordinal."""
    try:
        _adopt(dim, order, None, level="ordinal")
    except (FieldError, ValueError) as e:
        state.remember_error("panel", f"{session.panel_source.label}: {e}")


def _adopt(dim: str, order: tuple[str, ...], recode: tuple[tuple[str, str], ...] | None,
           level: Level | Literal["auto"] | None = None) -> None:
    """The mapping in force with ``dim``'s order (none if empty) and ``recode`` (None: kept),
    adopted at ``level`` (None: the reading in force); an error is remembered, the data kept."""
    loaded = session.panel_source
    mapping = _mapping(loaded)
    orders = dict(mapping.order)
    key = dim if (mapping.dimension is not None or dim in orders) else None
    orders.pop(key, None)
    if order:
        orders[key] = order
    new = mapping.with_(order=tuple(orders.items()), recode=mapping.recode if recode is None else recode)
    adopted = replace(loaded, recipe=replace(loaded.recipe, mapping=new.to_json()))
    reading = None if level is None else (level, session.positive, None)
    state.remember_error("panel", try_panel_source(adopted, reading))


def suggested(m: PanelMeasurement) -> bool:
    """The control opens by itself where it has something to offer: labels that look ordered, or
    labels read in an order given."""
    return m.alpha.category_set.ordered or m.level_suggestion[0] == "ordinal"
