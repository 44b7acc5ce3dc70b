"""The seed's record files as CSV (the tabular trio's references and observations): each field
typed as the seed's JSON would type it, every bad cell located by row and field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.tables import Table, read_csv, require_columns
from agreebound.io.values import INT, plain_header, whole_number, with_header
from agreebound.judge.columns import Columns, as_frame

if TYPE_CHECKING:
    import pandas as pd


_INT_FIELDS = {"repetition": (1, 100), "candidate_a_tokens": (1, 10**6), "candidate_b_tokens": (1, 10**6)}


def csv_records(name: str, data: bytes, fields: Sequence[str], *, extra: bool = False) -> tuple["pd.DataFrame", Table]:
    """:func:`csv_columns` as a pandas frame."""
    columns, table = csv_columns(name, data, fields, extra=extra)
    return as_frame(columns), table


def csv_columns(name: str, data: bytes, fields: Sequence[str], *, extra: bool = False) -> tuple[Columns, Table]:
    """The record fields of a CSV, typed, as columns (agreebound.judge.columns: no pandas); ``extra``:
    any other column is kept too, after them, as its text (the observations' slice columns), instead
    of refused."""
    expected = "a CSV with the header " + ",".join(fields)
    table = read_csv(name, data, expected)
    header = plain_header(table, expected)
    others = [h for h in header if h not in fields] if extra else []
    require_columns(with_header(table, header), fields, others)
    at = {h: table.columns[i] for i, h in enumerate(header)}
    columns: Columns = {}
    for f in fields:
        col = at[f]
        if f in _INT_FIELDS:
            ok = np.array([bool(INT.fullmatch(u)) and len(u) <= 20 for u in col.uniques], dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                i = int(np.flatnonzero(col.codes == bad)[0])
                whole_number(name, table.row_of(i), f, col.uniques[bad], digits=18)
            table_ = np.array([int(u) for u in col.uniques] + [0], dtype=object)
            vals = table_[col.codes]
            columns[f] = vals.astype(np.int64) if all(abs(int(u)) < 2**62 for u in col.uniques) else vals
        elif f == "adjudicated":
            ok = np.array([u in ("true", "false") for u in col.uniques], dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                i = int(np.flatnonzero(col.codes == bad)[0])
                raise InputError(name, table.row_of(i), f, f"expected true or false, got {excerpt(col.uniques[bad])}")
            columns[f] = np.array([u == "true" for u in col.uniques], dtype=bool)[col.codes]
        elif f == "reviewer_ids":
            split = np.empty(len(col.uniques), dtype=object)
            split[:] = [tuple(u.split(";")) if u else () for u in col.uniques]
            columns[f] = split[col.codes]
        else:
            columns[f] = col.values()  # one object per row (None for an empty cell)
    for h in others:
        columns[h] = at[h].values()
    return columns, table
