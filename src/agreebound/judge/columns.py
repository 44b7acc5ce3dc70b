"""A judge set's records as read: a pandas frame (a harness's log, a caller's frames) or, where they
were read without pandas (a bundle's JSON records, the tabular trio's CSVs), columns: one numpy
array per field, of the dtypes a frame of the same records has (int64, bool, or object holding each
value as given).

The audit validates and measures either (agreebound.judge.frames). pandas is imported only when a
frame is asked for (a page, a ranking, the slices) or when a column is long enough for its hash
table to repay the import (:func:`factorize`): a small judge file reaches its verdict without it.

>>> c = columns_of([{"case_id": "c1", "n": 2}, {"case_id": "c2", "n": 3}], ("case_id", "n"))
>>> c["n"].dtype, c["case_id"].tolist(), n_rows(c)
(dtype('int64'), ['c1', 'c2'], 2)
>>> factorize(np.array(["b", "a", "b"], dtype=object))
(array([0, 1, 0]), ['b', 'a'])
>>> duplicated(np.array([3, 1, 3, 2, 1])).tolist()
[False, False, True, False, True]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Columns by field name, every array of one length.
Columns = dict[str, np.ndarray]
#: What the judge's readers hand the audit.
Frame = Union["pd.DataFrame", Columns]

#: From this many values :func:`factorize`, :func:`duplicated` and :func:`count_rows` use pandas'
#: hash table (C); below, a dict or numpy's sort, which cost less than importing pandas (about
#: 0.2 s). Both sides give the same results (tests/judge/test_columns.py).
PANDAS_FROM = 50_000

_BOUND = 2**63


def columns_of(records: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> Columns:
    """Records (dicts with every field) as columns keeping each value's exact JSON type: a field of
    ints only (within int64) is int64, of bools only bool, anything else object (text, or mixed
    types, for the contract's checks); ``reviewer_ids``' lists become tuples."""
    out: Columns = {}
    n = len(records)
    for f in fields:
        values = [r[f] for r in records]
        types = set(map(type, values))
        if f == "reviewer_ids":
            values = [tuple(v) if type(v) is list else v for v in values]
        if f != "reviewer_ids" and types == {int} and all(-_BOUND <= v < _BOUND for v in values):
            out[f] = np.array(values, dtype=np.int64)
        elif f != "reviewer_ids" and types == {bool}:
            out[f] = np.array(values, dtype=bool)
        else:  # one element per record, whatever it holds (a tuple stays one element)
            out[f] = np.fromiter(values, dtype=object, count=n)
    return out


def n_rows(data: Frame) -> int:
    """The number of records."""
    if isinstance(data, dict):
        return len(next(iter(data.values()))) if data else 0
    return len(data)


def field_names(data: Frame) -> list[str]:
    return list(data) if isinstance(data, dict) else [str(c) for c in data.columns]


def values(column: Any) -> np.ndarray:
    """A column's values as a numpy array (a pandas column's ``to_numpy``; a list's array)."""
    if isinstance(column, np.ndarray):
        return column
    return column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)


def as_frame(data: Frame) -> "pd.DataFrame":
    """The records as a pandas frame (imports pandas): a frame as it is, columns as the frame of
    the same records."""
    if not isinstance(data, dict):
        return data
    import pandas as pd

    return pd.DataFrame({n: pd.Series(v, dtype=v.dtype, copy=False) for n, v in data.items()}, columns=list(data))


def factorize(items: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Hashable values as codes into their distinct values, in order of first appearance (what
    ``pandas.factorize`` gives for values without a missing one)."""
    if len(items) >= PANDAS_FROM:
        import pandas as pd

        codes, uniques = pd.factorize(items, use_na_sentinel=True)
        return np.asarray(codes, dtype=np.int64), list(uniques)
    index: dict[Any, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in items.tolist()), dtype=np.int64, count=len(items))
    return codes, list(index)


def duplicated(keys: np.ndarray) -> np.ndarray:
    """Each key seen at an earlier position (``pandas.Series.duplicated``: the first stays); from
    PANDAS_FROM keys by pandas' hash table, below by numpy's sort."""
    if len(keys) >= PANDAS_FROM:
        import pandas as pd

        return pd.Series(keys).duplicated().to_numpy()
    dup = np.ones(len(keys), dtype=bool)
    if len(keys):
        dup[np.unique(keys, return_index=True)[1]] = False
    return dup


def count_rows(columns: Mapping[str, np.ndarray]) -> dict[tuple[Any, ...], int]:
    """How many times each distinct row occurs, rows sorted (``DataFrame.groupby(all columns,
    sort=True, dropna=False).size()``), each row a tuple of Python values (``tolist``). Rows hold no
    missing value (None or NaN do not sort among text)."""
    n = len(next(iter(columns.values()))) if columns else 0
    if n >= PANDAS_FROM:
        import pandas as pd

        frame = pd.DataFrame(dict(columns))
        sizes = frame.groupby(list(frame.columns), sort=True, dropna=False).size()
        return {k if isinstance(k, tuple) else (k,): int(v) for k, v in sizes.items()}
    counted: dict[tuple[Any, ...], int] = {}
    for row in zip(*(c.tolist() for c in columns.values())):
        counted[row] = counted.get(row, 0) + 1
    return dict(sorted(counted.items()))
