"""A rating file, in any format :data:`agreebound.io.registry.FORMATS` reads as ratings -> panels:
read (:func:`agreebound.io.readers.read_source`), its layout and roles suggested
(:func:`agreebound.io.detect.suggest`) unless a mapping says them, then built into panels
(:mod:`agreebound.io.panels`). Also: a mapping file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from agreebound.core.errors import FieldError, InputError
from agreebound.io.detect import suggest
from agreebound.io.json_toml import read_json, read_toml
from agreebound.io.mapping import Mapping
from agreebound.io.readers import read_source
from agreebound.panel.ratings import RatingPanel
from agreebound.io.tables import decode_text
from agreebound.io.log_kinds import refuse_judge_log
from agreebound.io.panels import build_panels


@dataclass(frozen=True, eq=False)
class Imported:
    """A rating file read through a mapping: the panels, the mapping used, and what was said."""

    panels: dict[str, "RatingPanel"]
    mapping: Mapping
    format: str
    reasons: tuple[str, ...]  # how the layout and roles were chosen
    notices: tuple[str, ...]  # what was read differently from plain UTF-8 CSV, and normalised
    #: The data rows read (after the header, rows of empty cells left out), what a row is called
    #: (row, line, record, task) and the first and last of them as the file numbers them: said in
    #: every report, so what was read can be held against the file.
    rows_read: int = 0
    row_label: str = "row"
    row_span: tuple[int, int] | None = None
    source_rows: int = 0  # distinct rows of the file they came from (an export's task gives several)


def import_ratings(name: str, data: bytes, mapping: Mapping | None = None, sheet: str | None = None,
                   missing: Sequence[str] | None = None) -> Imported:
    """Any supported rating file -> panels, through ``mapping`` or the suggested one; ``sheet``
    and ``missing`` adjust either."""
    if mapping is None:
        refuse_judge_log(name, data)
    source = read_source(name, data, mapping if mapping is not None else
                         (Mapping("wide", sheet=sheet) if sheet else None))
    if mapping is None:
        suggestion = suggest(source.table, source.mapping)
        mapping, reasons = suggestion.mapping, suggestion.reasons
        if sheet:
            mapping = mapping.with_(sheet=sheet)
        if not mapping.header:
            source = read_source(name, data, mapping)
    else:
        reasons = ("the mapping given",)
    if missing:
        mapping = mapping.with_(missing=tuple(missing))
    panels = build_panels(source.table, mapping, source.notices)
    t = source.table
    span = (t.row_of(0), t.row_of(t.n_rows - 1)) if t.n_rows else None
    distinct = len(np.unique(t.source_rows)) if t.source_rows is not None else t.n_rows
    return Imported(panels, mapping, source.format, tuple(reasons), source.notices, t.n_rows, t.row_label, span,
                    distinct)


def suggested_mapping(name: str, data: bytes, sheet: str | None = None) -> Mapping:
    """The mapping :func:`import_ratings` suggests for a whole file (``sheet``: Excel's sheet to
    read), to which a caller adds what only the user knows (the categories' order, a recoding)."""
    refuse_judge_log(name, data)
    source = read_source(name, data, Mapping("wide", sheet=sheet) if sheet else None)
    mapping = suggest(source.table, source.mapping).mapping
    return mapping.with_(sheet=sheet) if sheet else mapping


def read_source_mapping(name: str, data: bytes) -> Mapping:
    """The mapping the reader suggests for ``data`` (a file's head), without building panels."""
    source = read_source(name, data, None)
    return suggest(source.table, source.mapping).mapping


def parse_mapping(name: str, data: bytes) -> Mapping:
    """A mapping file (JSON or TOML) -> Mapping, or an InputError naming the key."""
    text = decode_text(name, data, "a mapping file (JSON or TOML)")
    obj = read_json(name, data) if text.lstrip().startswith("{") else read_toml(name, data)
    try:
        return Mapping.from_dict(obj)
    except FieldError as e:  # the key the mapping's rule names
        raise InputError(name, None, e.field, str(e)) from None
    except (ValueError, TypeError) as e:
        raise InputError(name, None, None, str(e)) from None


def parse_ratings(name: str, data: bytes, mapping: Mapping | None = None) -> dict[str, RatingPanel]:
    """A rating file (any format the registry reads as ratings) -> one panel per dimension, read
    through ``mapping`` or the suggested one."""
    return import_ratings(name, data, mapping).panels
