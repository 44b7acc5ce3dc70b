"""The seed's own integer formulas for a panel (``nx_agreebound``, rung W-AGB-1): the oracle.

A panel that cannot agree cannot license enforcement, and fewer than two independent detectors is
refused structurally, whatever the scores. Here are the seed's constants and sentinels, its
verdicts, its permil alpha (``seed_alpha_permil``, rounded as the seed rounds) and its
``ab_enforce`` (``seed_enforce``), reproduced bit for bit. Alpha itself is measured in one place,
agreebound.panel.alpha; the spread in agreebound.panel.spread; the decision in
agreebound.panel.decide. Pure: no I/O, no streamlit, no plotly.

>>> seed_alpha_permil([[1, 1], [2, 2], [1, 2]], 3)   # alpha 4/9, rounded up as the seed rounds
445
>>> seed_enforce(1, 1000, 1000, 600, 2000) == AB_REFUSE_SINGLE
True
"""


from __future__ import annotations
import enum
from typing import Sequence
import numpy as np
from agreebound.panel.categories import Categories, Coded, Ratings, as_matrix
from agreebound.core.limits import DENSE_MAX_CATEGORIES
from agreebound.core.thresholds import ALPHA_FLOOR_DEFAULT, CITATIONS, PERMIL, RATIO_CAP_DEFAULT



# --- the seed's constants, named as the seed names them --------------------------------------
# Sentinels lie outside every legal permil range so no caller can mistake one for a score.
AB_UNDEFINED = -1_000_000  # alpha undefined: fewer than 2 raters, no units, or zero variation
AB_RATIO_UNBOUNDED = -1  # one detector fired and another never did: the ratio is infinite
AB_ENFORCE = 0
AB_REPORT_ONLY = 1
AB_REFUSE_SINGLE = 2
AB_PERMIL = PERMIL
AB_ALPHA_FLOOR_DEFAULT = ALPHA_FLOOR_DEFAULT
AB_RATIO_CAP_DEFAULT = RATIO_CAP_DEFAULT

#: Where each default comes from (the seed's own citations), stated once in agreebound.core.thresholds.
DEFAULT_CITATIONS = {k: CITATIONS[k] for k in ("alpha_floor_permil", "ratio_cap_permil")}


class Verdict(str, enum.Enum):
    """The enforcement verdict; the value is the name the seed gives it."""

    ENFORCE = "ENFORCE"
    REPORT_ONLY = "REPORT_ONLY"
    REFUSE_SINGLE = "REFUSE_SINGLE"

    @property
    def seed_code(self) -> int:
        return {"ENFORCE": AB_ENFORCE, "REPORT_ONLY": AB_REPORT_ONLY, "REFUSE_SINGLE": AB_REFUSE_SINGLE}[
            self.value
        ]

    @classmethod
    def from_seed_code(cls, code: int) -> "Verdict":
        return {AB_ENFORCE: cls.ENFORCE, AB_REPORT_ONLY: cls.REPORT_ONLY, AB_REFUSE_SINGLE: cls.REFUSE_SINGLE}[code]



def dense_fits(cells: int, ratings: int) -> bool:
    """Whether a count per cell (one bincount) is cheap beside the ratings: at most 2 per rating
    and a million more; beyond, counts come from sorting the ratings."""
    return cells <= 2 * ratings + 1_000_000


def per_unit_counts(c: Coded) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unit, code, count) of every (unit, value) present, sorted by unit then value; and the
    index where each unit's entries start. One bincount (or one sort) over the ratings."""
    k = max(len(c.categories), 1)
    n = c.n_ratings
    key = c.unit.astype(np.int64)
    key *= k
    key += c.code
    if dense_fits(c.n_units * k, n):
        counts = np.bincount(key, minlength=c.n_units * k)
        del key
        keys = np.flatnonzero(counts)
        cnt = counts[keys].astype(np.int64)
        del counts
    else:
        keys, cnt = np.unique(key, return_counts=True)
        del key
    small = np.int32 if c.n_units < 2**31 and k < 2**31 else np.int64
    unit = (keys // k).astype(small)
    code = (keys % k).astype(small)
    del keys
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]]) if len(unit) else np.zeros(0, dtype=np.int64)
    return unit, code, cnt, starts


def per_unit_matrix(c: Coded) -> np.ndarray | None:
    """Every unit's histogram as one column of a values x units count matrix (one bincount over the
    ratings; value-major, so that a unit's size or totals are a few passes over contiguous rows),
    or None where that matrix would be much larger than the ratings, or taller than
    ``DENSE_MAX_CATEGORIES`` (then :func:`per_unit_counts`)."""
    k = len(c.categories)
    if not 0 < k <= DENSE_MAX_CATEGORIES or not dense_fits(c.n_units * k, c.n_ratings):
        return None
    code = np.asarray(c.code)
    key = code * c.n_units if code.dtype == np.int64 else code.astype(np.int64) * c.n_units  # one new array
    key += c.unit
    return np.bincount(key, minlength=c.n_units * k).reshape(k, c.n_units)


def unit_sums(matrix: np.ndarray, square: bool = False) -> np.ndarray:
    """Each unit's ratings (sum of squared counts) from a values x units count matrix."""
    if square:  # one pass, no squared matrix held (exact: counts below 2**31)
        return np.einsum("ij,ij->j", matrix, matrix)
    out = np.zeros(matrix.shape[1], dtype=np.int64)
    for row in matrix:
        out += row
    return out


#: Units per block of :func:`matrix_sums`: a block of a few values' counts stays in the CPU's cache
#: while it is summed three ways.
_SUM_BLOCK = 1 << 15


def matrix_sums(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each unit's ratings, each unit's sum of squared counts, each value's ratings) of a values x
    units count matrix, reading it once: a block of units at a time, summed while it is in cache.

    >>> [a.tolist() for a in matrix_sums(np.array([[2, 0, 1], [1, 3, 1]]))]
    [[3, 3, 2], [5, 9, 2], [3, 5]]
    """
    k, n = matrix.shape
    sizes, squares = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    totals = np.zeros(k, dtype=np.int64)
    for b0 in range(0, n, _SUM_BLOCK):
        block = matrix[:, b0:b0 + _SUM_BLOCK]
        np.einsum("ij->j", block, out=sizes[b0:b0 + _SUM_BLOCK])
        np.einsum("ij,ij->j", block, block, out=squares[b0:b0 + _SUM_BLOCK])
        totals += np.einsum("ij->i", block)
    return sizes, squares, totals


def exact_sum(a: np.ndarray) -> int:
    """The exact sum of an int64 (or object) array as a Python int (no int64 overflow)."""
    if a.dtype == object:
        return int(sum(a.tolist()))
    if len(a) == 0:
        return 0
    if max(-int(a.min()), int(a.max())) < 2**63 // a.size:  # no partial sum can overflow
        return int(a.sum())
    hi, lo = a >> 31, a & (2**31 - 1)  # floor division and remainder by 2**31: |hi| < 2**32, 0 <= lo < 2**31
    return int(hi.sum()) * 2**31 + int(lo.sum())


def seed_permil_from_totals(different_pairs: int, totals: Sequence[int] | np.ndarray, n_raters: int) -> int:
    """The seed's ab_alpha_permil from counts: ``different_pairs`` D (ordered pairs of different
    values within units), every rating's category ``totals`` (singleton units too: the seed's
    marginals count every value) and the raters m: ``1000 - (1000 D (n-1)) // ((m-1) E)`` with
    E = n^2 - sum_c n_c^2, i.e. alpha rounded *up* to permil; AB_UNDEFINED for fewer than two
    raters or values, or no variation. agreebound.panel.alpha gives every engine's counts this seed
    value; :func:`seed_alpha_permil` is the same formula on the seed's own matrix.

    >>> seed_permil_from_totals(2, [3, 3], 2)      # [[1, 1], [2, 2], [1, 2]]: alpha 4/9
    445
    """
    t = np.asarray(totals, dtype=np.int64) if not isinstance(totals, np.ndarray) else totals
    n = exact_sum(t)
    if n_raters < 2 or n < 2:
        return AB_UNDEFINED
    # t * t stays exact in int64 below 2**31 ratings a category (exact_sum then adds it exactly)
    squares = t * t if t.dtype != object and int(t.max(initial=0)) < 2**31 else t.astype(object) * t
    epairs = n * n - exact_sum(squares)
    if epairs <= 0:
        return AB_UNDEFINED
    return AB_PERMIL - (AB_PERMIL * different_pairs * (n - 1)) // ((n_raters - 1) * epairs)


def seed_alpha_permil(ratings: Ratings, ncat: int) -> int:
    """The seed's ``ab_alpha_permil``, bit for bit: an equal-raters panel of category ids.

    Ids outside [0, ncat) (and None/NaN) are skipped, yet their unit still counts; the result is
    ``1000 - (1000 D (n-1)) // ((m-1) E)``, i.e. alpha rounded *up* to permil, or AB_UNDEFINED.

    >>> seed_alpha_permil([[0, 0], [1, 1], [0, 1]], 2)
    445
    """
    arr = as_matrix(ratings)
    nunits, nraters = arr.shape
    if nraters < 2 or nunits <= 0 or ncat <= 0:
        return AB_UNDEFINED
    # The seed's ids are integers; anything that is not an integral number is "outside".
    if arr.dtype.kind in "iu":
        ids = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        ok = np.isfinite(arr) & (np.floor(arr) == arr) & (np.abs(arr) < 2**62)
        ids = np.where(ok, np.nan_to_num(arr), -1).astype(np.int64)
    else:
        ids = np.full(arr.shape, -1, dtype=np.int64)
        for idx, v in np.ndenumerate(arr):
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                ids[idx] = int(v) if -(2**62) < int(v) < 2**62 else -1
    ids = np.where((ids >= 0) & (ids < ncat), ids, -1).ravel()
    present = np.flatnonzero(ids >= 0)
    coded = Coded(present // nraters, present % nraters, ids[present], nunits, nraters,
                  Categories(exact=list(range(ncat))))
    unit, code, cnt, starts = per_unit_counts(coded)
    m_u = np.add.reduceat(cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    sumsq = np.add.reduceat(cnt * cnt, starts) if len(cnt) else np.zeros(0, dtype=np.int64)
    n_all_c = np.bincount(code, weights=cnt, minlength=ncat).astype(np.int64)
    return seed_permil_from_totals(exact_sum(m_u * m_u - sumsq), n_all_c, nraters)


def seed_enforce(ndet: int, alpha_permil: int, ratio_permil_: int, alpha_floor: int, ratio_cap: int) -> int:
    """The seed's ``ab_enforce`` on its integers, in its order (structural refusal first)."""
    if ndet < 2:
        return AB_REFUSE_SINGLE
    if alpha_permil == AB_UNDEFINED:
        return AB_REPORT_ONLY
    if alpha_permil < alpha_floor:
        return AB_REPORT_ONLY
    if ratio_permil_ == AB_RATIO_UNBOUNDED:
        return AB_REPORT_ONLY
    if ratio_permil_ > ratio_cap:
        return AB_REPORT_ONLY
    return AB_ENFORCE
