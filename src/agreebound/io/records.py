"""The seed's record files as CSV (the tabular trio's references and observations): each field
typed as the seed's JSON would type it, every bad cell located by row and field.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.tables import Table, read_csv, require_columns
from agreebound.io.values import INT, plain_header, whole_number, with_header


_INT_FIELDS = {"repetition": (1, 100), "candidate_a_tokens": (1, 10**6), "candidate_b_tokens": (1, 10**6)}


def csv_records(name: str, data: bytes, fields: Sequence[str], *, extra: bool = False) -> tuple[pd.DataFrame, Table]:
    """The record fields of a CSV, typed; ``extra``: any other column is kept too, after them, as its
    text (the observations' slice columns), instead of refused."""
    expected = "a CSV with the header " + ",".join(fields)
    table = read_csv(name, data, expected)
    header = plain_header(table, expected)
    others = [h for h in header if h not in fields] if extra else []
    require_columns(with_header(table, header), fields, others)
    at = {h: table.columns[i] for i, h in enumerate(header)}
    columns: dict[str, pd.Series] = {}
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
            columns[f] = pd.Series(vals.tolist(), dtype=np.int64) if all(abs(int(u)) < 2**62 for u in col.uniques) \
                else pd.Series(vals.tolist(), dtype=object)
        elif f == "adjudicated":
            ok = np.array([u in ("true", "false") for u in col.uniques], dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                i = int(np.flatnonzero(col.codes == bad)[0])
                raise InputError(name, table.row_of(i), f, f"expected true or false, got {excerpt(col.uniques[bad])}")
            columns[f] = pd.Series(np.array([u == "true" for u in col.uniques], dtype=bool)[col.codes], dtype=bool)
        elif f == "reviewer_ids":
            split = np.empty(len(col.uniques), dtype=object)
            split[:] = [tuple(u.split(";")) if u else () for u in col.uniques]
            columns[f] = pd.Series(split[col.codes], dtype=object)
        else:
            columns[f] = pd.Series(col.values(), dtype=object)
    for h in others:
        columns[h] = pd.Series(at[h].values(), dtype=object)
    return pd.DataFrame(columns, columns=list(fields) + others), table
