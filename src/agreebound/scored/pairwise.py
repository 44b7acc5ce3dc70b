"""Pairwise alpha between two raters of the items, exact and by item sums, and its jackknife interval."""

from __future__ import annotations
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence
import numpy as np
from agreebound.panel.alpha import alpha
from agreebound.panel.categories import Level
from agreebound.core.student_t import t_quantile
from agreebound.panel.counts import PanelCounts, from_rows
from agreebound.judge.bias import Measure
from agreebound.scored.items import JACKKNIFE, ScoredInput


# --- pairwise alpha, exact and by item sums -----------------------------------------------------

def exact_value(v: float) -> int | Fraction:
    """A score as an exact number: an integer, or the decimal its float prints as (0.1 is 1/10), as a
    file holds it and as the panel path reads floats."""
    return int(v) if float(v).is_integer() else Fraction(repr(float(v)))


def plain_number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def table_counts(values: Sequence[float] | np.ndarray, table: np.ndarray, a: str = "a", b: str = "b") -> PanelCounts:
    """The panel counts of two raters over the items both rated, from their table of paired values
    (``table[i, j]``: items where ``a`` gave ``values[i]`` and ``b`` gave ``values[j]``): each item a
    unit of two ratings. Alpha (agreebound.panel.alpha, the one implementation) reads them."""
    t = np.asarray(table, dtype=np.int64)
    rows = []
    for i, j in zip(*np.nonzero(t)):
        n = int(t[i, j])
        rows += [(2, i, i, 2 * n)] if i == j else [(2, i, j, n), (2, j, i, n)]
    totals = t.sum(1) + t.sum(0)
    raters = [(a, i, int(v)) for i, v in enumerate(t.sum(1)) if v] + [(b, j, int(v)) for j, v in enumerate(t.sum(0)) if v]
    return from_rows("scores", "number", [exact_value(v) for v in values], {2: int(t.sum())}, rows, totals, raters)


def table_alpha(values: Sequence[float] | np.ndarray, table: np.ndarray, level: Level) -> Fraction | None:
    """Alpha of two raters from their table of paired values, exactly, through the panel path."""
    if not np.asarray(table).sum():
        return None
    return alpha(table_counts(values, table), level).value


def _alpha_from_tables(m: np.ndarray, values: np.ndarray, level: Level) -> np.ndarray:
    """Alpha of two raters from their C x C tables of paired values (..., C, C), in floating point:
    1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck with o = M + M^T (Krippendorff's coincidences of
    two-rater items). NaN where undefined."""
    n_c = m.sum(-1) + m.sum(-2)
    n = n_c.sum(-1)
    if level == "nominal":
        d = 1.0 - np.eye(len(values))
        d = np.broadcast_to(d, m.shape)
    elif level == "interval":
        d = np.broadcast_to((values[:, None] - values[None, :]) ** 2, m.shape)
    else:  # ordinal: (sum of n_g from c to k - (n_c + n_k) / 2)^2
        cum = np.cumsum(n_c, axis=-1)
        lo = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        hi = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        span = np.take(cum, hi, axis=-1) - np.take(cum, lo, axis=-1) + np.take(n_c, lo, axis=-1)
        d = (span - (n_c[..., :, None] + n_c[..., None, :]) / 2) ** 2
    do = ((m + np.swapaxes(m, -1, -2)) * d).sum((-1, -2))
    de = (n_c[..., :, None] * n_c[..., None, :] * d).sum((-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(de > 0, 1 - (n - 1) * do / de, np.nan)


@dataclass(frozen=True)
class PairAlpha:
    """Alpha of two raters over the items both rated, exactly (shown beside the pooled alphas)."""

    a: str
    b: str
    exact: Fraction | None
    items: int  # items both rated


def _pair_table(x: ScoredInput, a: str, b: str, items: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' table of paired values (codes into ``x.values``) and the items behind each pair."""
    va, vb = x.column(a), x.column(b)
    both = ~np.isnan(va) & ~np.isnan(vb) & (True if items is None else items)
    vals = np.asarray(x.values)
    return np.column_stack([np.searchsorted(vals, va[both]), np.searchsorted(vals, vb[both])]), np.flatnonzero(both)


def pair_alpha(x: ScoredInput, a: str, b: str, level: Level) -> PairAlpha:
    codes, where = _pair_table(x, a, b)
    c = len(x.values)
    table = np.bincount(codes[:, 0] * c + codes[:, 1], minlength=c * c).reshape(c, c)
    return PairAlpha(a, b, table_alpha(x.values, table, level), len(where))


#: The delete-one-item jackknife of a pooled alpha builds at most this many cells at once.
_LOO_CELLS = 8_000_000
#: Above this many distinct scores the jackknife (items x scores^2 cells) is not computed.
LOO_MAX_VALUES = 100


@dataclass(frozen=True)
class PooledAlpha:
    """Alpha over pairs of raters pooled: every listed pair's two scores on an item they both scored
    is one unit of two values (a rater pair exchangeable with another contributes alike), exactly
    through the panel path; and left out one item at a time (the jackknife's)."""

    exact: Fraction | None
    table: np.ndarray = field(repr=False)  # values x values counts, pooled
    items: np.ndarray = field(repr=False)  # the items contributing a pair
    loo: np.ndarray = field(repr=False)  # per contributing item: alpha without it (NaN: undefined)

    @property
    def pairs(self) -> int:
        return int(self.table.sum())


def pooled_alpha(x: ScoredInput, raters: Sequence[tuple[str, str]], level: Level,
                 items: np.ndarray | None = None) -> PooledAlpha:
    """Alpha of the listed rater pairs pooled, over ``items`` (a mask; None: every item)."""
    c = len(x.values)
    got = [_pair_table(x, a, b, items) for a, b in raters]
    codes = np.concatenate([g[0] for g in got]) if got else np.zeros((0, 2), dtype=np.int64)
    where = np.concatenate([g[1] for g in got]) if got else np.zeros(0, dtype=np.int64)
    cell = codes[:, 0] * c + codes[:, 1]
    table = np.bincount(cell, minlength=c * c).reshape(c, c)
    exact = table_alpha(x.values, table, level)
    contributing, slot = np.unique(where, return_inverse=True)
    loo = np.full(len(contributing), np.nan)
    if exact is not None and len(contributing) > 1 and c <= LOO_MAX_VALUES and level != "ratio":
        loo = leave_one_out(table, slot.ravel(), cell, np.asarray(x.values), level)
    return PooledAlpha(exact, table, contributing, loo)


def contributions(slot: np.ndarray, cell: np.ndarray, items: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct contributions of ``items`` items to a table of counts, from each pair's item
    (``slot``) and table cell (``cell``): (an item holding each distinct contribution, each item's
    contribution as an index into those). Items whose pairs fall in the same cells leave the same
    table when left out, so the jackknife measures each contribution once: on a scale of a few values,
    a few dozen for 100,000 items. Where items' numbers of pairs differ so much that a row per item as
    wide as the widest would dwarf the pairs, every item is its own."""
    per = np.bincount(slot, minlength=items)
    width = int(per.max(initial=0))
    if items * width > 2 * len(cell) + 1_000_000:
        every = np.arange(items, dtype=np.int64)
        return every, every
    order = np.argsort(slot.astype(np.int64) * (int(cell.max(initial=0)) + 1) + cell, kind="stable")  # by item, then cell
    padded = np.full((items, width), -1, dtype=np.int64)  # each item's cells ascending, padded with -1
    starts = np.cumsum(per) - per
    padded[slot[order], np.arange(len(order)) - np.repeat(starts, per)] = cell[order]
    return unique_rows(padded)


def unique_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D array of codes (whole numbers from -1 up, -1: none): (a row index
    holding each distinct row, each row's index into those), as numpy's ``unique(axis=0)`` finds
    them. Where a row fits in one 64-bit integer (few columns, few codes), by that integer: a 1-D
    unique, not a row-wise one.

    >>> first, at = unique_rows(np.array([[0, 2], [-1, 1], [0, 2]]))
    >>> sorted(first.tolist()), bool(at[0] == at[2] != at[1])
    ([0, 1], True)
    """
    base = int(codes.max(initial=-1)) + 2
    width = codes.shape[1]
    if width * math.log2(max(base, 2)) < 62:
        key = ((codes + 1) * base ** np.arange(width, dtype=np.int64)).sum(axis=1)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.ravel()


def leave_one_out(table: np.ndarray, slot: np.ndarray, cell: np.ndarray, values: np.ndarray,
                  level: Level) -> np.ndarray:
    """Alpha of the pooled ``table`` (C x C counts) without each item, in floating point: the item's
    pairs (its ``slot``, their flat ``cell`` in the table) subtracted from the table's counts, not a
    table refitted from the other items; one alpha per distinct contribution (:func:`contributions`)."""
    c = len(values)
    items = int(slot.max(initial=-1)) + 1
    first, at = contributions(slot, cell, items)
    pattern = np.full(items, -1, dtype=np.int64)
    pattern[first] = np.arange(len(first))
    held = pattern[slot]  # each pair's contribution, where its item is the one measured for it
    mine = held >= 0
    held, cells = held[mine], cell[mine]
    out = np.empty(len(first))
    block = max(1, _LOO_CELLS // (c * c))
    for start in range(0, len(first), block):
        stop = min(start + block, len(first))
        tables = np.broadcast_to(table.astype(float), (stop - start, c, c)).copy()
        now = (held >= start) & (held < stop)
        np.add.at(tables.reshape(stop - start, c * c), (held[now] - start, cells[now]), -1.0)
        out[start:stop] = _alpha_from_tables(tables, values, level)
    return out[at]


# --- intervals ------------------------------------------------------------------------------------

def jackknife(full: float, loo: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """The delete-one jackknife's 95% interval (t quantile, n - 1 df) and standard error from the
    statistic computed without each item; (None, None, None) when any is undefined or n < 3."""
    n = len(loo)
    if n < 3 or not np.isfinite(full) or not np.all(np.isfinite(loo)):
        return None, None, None
    se = math.sqrt((n - 1) / n * float(((loo - loo.mean()) ** 2).sum()))
    t = t_quantile(0.975, n - 1)
    return full - t * se, full + t * se, se


def _sums_jackknife(stat: Callable[[np.ndarray], np.ndarray], rows: np.ndarray
                    ) -> tuple[float, float | None, float | None, float | None]:
    """A statistic of item sums (``stat`` maps (..., p) sums to (...) values), at full sample and
    its jackknife interval: each item's row of ``rows`` (n x p) left out in turn."""
    total = rows.sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        full = float(stat(total))
        loo = stat(total[None, :] - rows)
    return (full, *jackknife(full, loo))


def jack_measure(name: str, title: str, exact: Fraction | float | None, kind: str,
                  stat: Callable[[np.ndarray], np.ndarray], rows: np.ndarray, definition: str,
                  fraction: str = "") -> Measure:
    if exact is None or len(rows) == 0:
        return Measure(name, title, None, "", kind=kind, definition=definition,
                       unavailable="undefined: no variation or no items to measure it on")
    full, low, high, se = _sums_jackknife(stat, rows)
    method = JACKKNIFE.format(n=len(rows), df=len(rows) - 1) if low is not None else ""
    return Measure(name, title, exact, fraction, low, high, method, definition, kind, se=se, cases=len(rows))


