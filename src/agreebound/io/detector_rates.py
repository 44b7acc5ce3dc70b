"""A detector rates CSV -> rates per dimension: ``detector,positives,total`` and optionally
``dimension``, strictly.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.values import plain_header, whole_number, with_header
from agreebound.panel.ratings import DetectorRate
from agreebound.io.tables import read_csv, require_columns
from agreebound.io.panels import names_column


RATES_COLUMNS = ("detector", "positives", "total")


def parse_detector_rates(name: str, data: bytes) -> dict[str, tuple[DetectorRate, ...]]:
    """detector,positives,total[,dimension] -> rates per dimension ("all" when none given)."""
    expected = "a CSV with the header detector,positives,total[,dimension]"
    table = read_csv(name, data, expected)
    header = plain_header(table, expected)
    require_columns(with_header(table, header), RATES_COLUMNS, ("dimension",))
    at = {h: table.columns[i] for i, h in enumerate(header)}
    det_codes, det_names, _ = names_column(table, at["detector"], "detector")
    dim_names: Sequence[str]
    if "dimension" in at:
        dim_codes, dim_names, _ = names_column(table, at["dimension"], "dimension")
    else:
        dim_codes, dim_names = np.zeros(table.n_rows, dtype=np.int64), ["all"]
    pos = at["positives"].values()
    tot = at["total"].values()
    out: dict[str, list[DetectorRate]] = {}
    seen: dict[tuple[int, int], int] = {}
    for i in range(table.n_rows):
        try:  # the row is found (a pass over the file) only when something is wrong with it
            p = whole_number(name, 0, "positives", pos[i], minimum=0)
            t = whole_number(name, 0, "total", tot[i], minimum=1)
        except InputError as e:
            raise InputError(name, table.row_of(i), e.column, e.reason) from None
        if p > t:
            raise InputError(name, table.row_of(i), "positives", f"positives ({p}) exceed total ({t})")
        key = (int(dim_codes[i]), int(det_codes[i]))
        if key in seen:
            raise InputError(name, table.row_of(i), "detector", f"detector {excerpt(det_names[key[1]])} appears again "
                             f"for dimension {excerpt(dim_names[key[0]])} (first at row {table.row_of(seen[key])})")
        seen[key] = i
        out.setdefault(dim_names[key[0]], []).append(DetectorRate(det_names[key[1]], p, t))
    return {k: tuple(v) for k, v in out.items()}
