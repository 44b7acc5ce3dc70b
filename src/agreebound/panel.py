"""Panel reliability: exact Krippendorff alpha, detector spread and the enforcement verdict.

The contract is the seed ``nx_agreebound`` (rung W-AGB-1): a panel that cannot agree cannot
license enforcement, and fewer than two independent detectors is refused structurally, whatever
the scores.  Everything here is pure: no I/O, no streamlit, no plotly.

Alpha follows Krippendorff's definitions (coincidence matrix; only pairable values count):

    alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

computed with integers and ``fractions.Fraction`` only.  Counting is done in numpy; every final
product is a Python int, so nothing overflows at any size.

>>> r = krippendorff_alpha([[1, 1], [2, 2], [1, 2]])
>>> r.value, r.permil
(Fraction(4, 9), 444)
>>> ratio_permil([10, 39])
3900
>>> decide(1, Fraction(1), [5, 5]).verdict
<Verdict.REFUSE_SINGLE: 'REFUSE_SINGLE'>
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Rational, Real
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "AB_UNDEFINED",
    "AB_RATIO_UNBOUNDED",
    "AB_ENFORCE",
    "AB_REPORT_ONLY",
    "AB_REFUSE_SINGLE",
    "AB_ALPHA_FLOOR_DEFAULT",
    "AB_RATIO_CAP_DEFAULT",
    "AB_PERMIL",
    "LEVELS",
    "AlphaResult",
    "PanelThresholds",
    "PanelDecision",
    "Reason",
    "Verdict",
    "decide",
    "krippendorff_alpha",
    "rate_span",
    "ratio_permil",
    "seed_alpha_permil",
    "seed_enforce",
]

# --- the seed's constants, named as the seed names them --------------------------------------
# Sentinels lie outside every legal permil range so no caller can mistake one for a score.
AB_UNDEFINED = -1_000_000  # alpha undefined: fewer than 2 raters, no units, or zero variation
AB_RATIO_UNBOUNDED = -1  # one detector fired and another never did: the ratio is infinite
AB_ENFORCE = 0
AB_REPORT_ONLY = 1
AB_REFUSE_SINGLE = 2
AB_PERMIL = 1000
AB_ALPHA_FLOOR_DEFAULT = 600
AB_RATIO_CAP_DEFAULT = 2000

#: Where each default comes from (the seed's own citations), stated once.
DEFAULT_CITATIONS = {
    "alpha_floor_permil": (
        "600 permil = Krippendorff's 'substantial' 0.6 bar, the same bar the seed's ruler "
        "measures itself against (LLM-vs-human alpha collapses to 0.24 violence / 0.43 insult)."
    ),
    "ratio_cap_permil": (
        "2000 permil = 2.0x. The ruler's detectors disagree 1.45x (sexual) to 3.9x (violence) on "
        "the same corpus; a panel wider than 2x reports two phenomena, not one noisy measurement."
    ),
}

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Float64 matmul of integer matrices is exact while every partial sum stays below 2**53.
_FLOAT_EXACT = 2**53
# Units per counting block: bounds the dense units x categories block to ~ 16M cells.
_BLOCK_CELLS = 16_000_000


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


# --- alpha -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha, exact.

    ``value`` is ``None`` when alpha is undefined (no pairable values, or no variation).  The
    coincidence matrix is kept scaled to integers (``coincidence_scaled / coincidence_scale``) so
    the result stays cheap to build at any size; :attr:`coincidence` gives the Fractions.
    """

    level: str
    value: Fraction | None
    observed_disagreement: Fraction | None
    expected_disagreement: Fraction | None
    pairable: int  # n: values in units with at least two ratings
    units: int  # units with at least two ratings
    categories: tuple[Any, ...]
    coincidence_scaled: tuple[tuple[int, ...], ...] = field(repr=False)
    coincidence_scale: int = field(repr=False)

    @property
    def defined(self) -> bool:
        return self.value is not None

    @property
    def permil(self) -> int | None:
        """floor(1000 x alpha): never rounded up, so it can never flatter a panel."""
        if self.value is None:
            return None
        return math.floor(self.value * AB_PERMIL)

    @property
    def seed_permil(self) -> int:
        """What the seed's integer formula reports for this alpha: 1000 - floor(1000 (1 - alpha)).

        That is ceil(1000 x alpha), i.e. rounded *up*; AB_UNDEFINED when undefined.  On a complete
        equal-raters panel it equals :func:`seed_alpha_permil` bit for bit.
        """
        if self.value is None:
            return AB_UNDEFINED
        return AB_PERMIL - math.floor(AB_PERMIL * (1 - self.value))

    @property
    def coincidence(self) -> tuple[tuple[Fraction, ...], ...]:
        s = self.coincidence_scale
        return tuple(tuple(Fraction(x, s) for x in row) for row in self.coincidence_scaled)

    @property
    def marginals(self) -> tuple[Fraction, ...]:
        s = self.coincidence_scale
        return tuple(Fraction(sum(row), s) for row in self.coincidence_scaled)


def _as_matrix(ratings: Any) -> np.ndarray:
    if isinstance(ratings, pd.DataFrame):
        arr = ratings.to_numpy()
    elif isinstance(ratings, np.ndarray):
        arr = ratings
    else:
        try:
            rows = [list(r) for r in ratings]
        except TypeError as error:
            raise ValueError("ratings must be 2-D: rows are units, columns are raters") from error
        widths = {len(r) for r in rows}
        if len(widths) > 1:
            raise ValueError(f"ratings rows have different lengths {sorted(widths)}: every unit needs one cell per rater")
        arr = np.empty((len(rows), widths.pop() if widths else 0), dtype=object)
        for i, r in enumerate(rows):
            arr[i, :] = r
    if arr.ndim != 2:
        raise ValueError(f"ratings must be 2-D (units x raters), got {arr.ndim}-D")
    return arr


def _encode(arr: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Flat category codes (-1 = missing) and the sorted category labels."""
    flat = arr.ravel()
    if flat.dtype.kind in "iub":
        if flat.dtype.kind == "b":
            raise ValueError("ratings must not be booleans: use 0/1 or labels")
        uniques, codes = np.unique(flat, return_inverse=True)
        return codes.astype(np.int64, copy=False), [int(u) for u in uniques]
    codes, uniques = pd.factorize(flat, use_na_sentinel=True)
    labels = list(uniques)
    order: list[int]
    try:
        order = sorted(range(len(labels)), key=lambda i: labels[i])
    except TypeError:
        order = sorted(range(len(labels)), key=lambda i: (type(labels[i]).__name__, repr(labels[i])))
    if order != list(range(len(labels))):
        remap = np.empty(len(labels) + 1, dtype=np.int64)
        remap[np.asarray(order, dtype=np.int64)] = np.arange(len(labels), dtype=np.int64)
        remap[-1] = -1  # code -1 indexes the last slot: stays missing
        codes = remap[codes]
        labels = [labels[i] for i in order]
    labels = [_plain(v) for v in labels]
    if flat.dtype.kind == "f" and all(float(v).is_integer() and abs(v) < 2**53 for v in labels):
        labels = [int(v) for v in labels]  # whole numbers stored as floats (NaN = missing) read as ints
    return np.asarray(codes, dtype=np.int64), labels


def _plain(v: Any) -> Any:
    """numpy scalars -> Python scalars; integral floats stay floats (labels keep their type)."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _exact_number(v: Any, level: str) -> Fraction:
    if isinstance(v, bool) or not isinstance(v, Real):
        raise ValueError(f"{level} alpha needs numeric values; got {v!r}")
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"{level} alpha needs finite values; got {v!r}")
    return Fraction(v)


def _pair_counts(codes: np.ndarray, n_units: int, n_raters: int, n_cat: int) -> tuple[dict[int, np.ndarray], int, int]:
    """For each pairable-values-per-unit m >= 2: S_m = sum_u (c_u c_u^T - diag(c_u)), as ints.

    Returns ({m: S_m as an object array of Python ints}, pairable values n, pairable units).
    """
    per_m: dict[int, np.ndarray] = {}
    pairable = 0
    units = 0
    block = max(1, _BLOCK_CELLS // max(1, n_cat))
    codes2 = codes.reshape(n_units, n_raters)
    for start in range(0, n_units, block):
        chunk = codes2[start : start + block]
        nu = chunk.shape[0]
        valid = chunk >= 0
        flat_idx = (np.arange(nu, dtype=np.int64)[:, None] * n_cat + chunk)[valid]
        counts = np.bincount(flat_idx, minlength=nu * n_cat).reshape(nu, n_cat)
        m_u = counts.sum(axis=1)
        for m in np.unique(m_u):
            m = int(m)
            if m < 2:
                continue
            block_counts = counts[m_u == m]
            k = block_counts.shape[0]
            units += k
            pairable += k * m
            # Every entry of C^T C is at most k*m*m: exact in float64 BLAS while below 2**53.
            if k * m * m < _FLOAT_EXACT:
                f = block_counts.astype(np.float64)
                prod = (f.T @ f).astype(np.int64).astype(object)
            else:
                o = block_counts.astype(object)
                prod = o.T.dot(o)
            prod[np.diag_indices(n_cat)] -= block_counts.sum(axis=0).astype(object)
            if m in per_m:
                per_m[m] = per_m[m] + prod
            else:
                per_m[m] = prod
    return per_m, pairable, units


def _distances(level: str, values: list[Any], marg_scaled: list[int]) -> tuple[list[list[Any]], Any]:
    """Squared distances d2 up to a positive constant, and that constant (true d2 = d / scale).

    The constant cancels in alpha; it is kept so the reported D_o and D_e are exact.
    """
    k = len(values)
    if level == "nominal":
        return [[0 if i == j else 1 for j in range(k)] for i in range(k)], 1
    if level == "ordinal":
        # Krippendorff: (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 ; with scaled marginals N_g = L n_g,
        # (2 sum N_g - N_c - N_k)^2 = 4 L^2 x that.  The scale factor is returned by the caller.
        cum = [0]
        for x in marg_scaled:
            cum.append(cum[-1] + x)
        d = [[0] * k for _ in range(k)]
        for i in range(k):
            for j in range(i + 1, k):
                s = 2 * (cum[j + 1] - cum[i]) - marg_scaled[i] - marg_scaled[j]
                d[i][j] = d[j][i] = s * s
        return d, None  # scale filled in by the caller (needs L)
    nums = [_exact_number(v, level) for v in values]
    if level == "interval":
        return [[(a - b) ** 2 for b in nums] for a in nums], 1
    if level == "ratio":
        if any(a < 0 for a in nums):
            raise ValueError("ratio alpha needs non-negative values")
        return [[((a - b) / (a + b)) ** 2 if a + b else Fraction(0) for b in nums] for a in nums], 1
    raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")


def krippendorff_alpha(ratings: Any, level: str = "nominal") -> AlphaResult:
    """Krippendorff's alpha of ``ratings`` (rows = units, columns = raters; None/NaN missing).

    >>> krippendorff_alpha([[0, 0], [1, 1]]).value
    Fraction(1, 1)
    >>> krippendorff_alpha([[0, 0], [0, 0]]).value is None   # no variation: undefined
    True
    >>> krippendorff_alpha([[0, 1], [1, 0]]).permil           # worse than chance stays negative
    -500
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    arr = _as_matrix(ratings)
    n_units, n_raters = arr.shape
    codes, labels = _encode(arr)
    k = len(labels)
    if level != "nominal":
        for v in labels:
            _exact_number(v, level)
    per_m, n, units = _pair_counts(codes, n_units, n_raters, max(k, 1)) if k else ({}, 0, 0)

    # One common denominator L = lcm(m - 1): o_ck = O_ck / L with O integer.
    scale = 1
    for m in per_m:
        scale = math.lcm(scale, m - 1)
    big = [[0] * k for _ in range(k)]
    for m, s in per_m.items():
        w = scale // (m - 1)
        rows = s.tolist()
        for i in range(k):
            bi, ri = big[i], rows[i]
            for j in range(k):
                bi[j] += w * ri[j]
    marg = [sum(row) for row in big]  # N_c = L n_c
    coincidence = tuple(tuple(row) for row in big)

    def undefined() -> AlphaResult:
        return AlphaResult(level, None, None, None, n, units, tuple(labels), coincidence, scale)

    if n < 2:
        return undefined()
    d, d_scale = _distances(level, labels, marg)
    if d_scale is None:
        d_scale = 4 * scale * scale
    obs = sum(big[i][j] * d[i][j] for i in range(k) for j in range(k) if d[i][j])  # L x sum o d
    exp = sum(marg[i] * marg[j] * d[i][j] for i in range(k) for j in range(k) if d[i][j])  # L^2 x sum n n d
    if exp == 0:
        return undefined()
    # D_o = sum o d2 / n ; D_e = sum n_c n_k d2 / (n (n - 1)); true d2 = d / d_scale.
    d_o = Fraction(obs) / (scale * d_scale * n)
    d_e = Fraction(exp) / (scale * scale * d_scale * n * (n - 1))
    value = 1 - d_o / d_e
    return AlphaResult(level, value, d_o, d_e, n, units, tuple(labels), coincidence, scale)


def seed_alpha_permil(ratings: Any, ncat: int) -> int:
    """The seed's ``ab_alpha_permil``, bit for bit: an equal-raters panel of category ids.

    Ids outside [0, ncat) (and None/NaN) are skipped, yet their unit still counts; the result is
    ``1000 - (1000 D (n-1)) // ((m-1) E)``, i.e. alpha rounded *up* to permil, or AB_UNDEFINED.

    >>> seed_alpha_permil([[0, 0], [1, 1], [0, 1]], 2)
    445
    """
    arr = _as_matrix(ratings)
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
    ids = np.where((ids >= 0) & (ids < ncat), ids, -1)
    valid = ids >= 0
    flat = (np.arange(nunits, dtype=np.int64)[:, None] * ncat + ids)[valid]
    counts = np.bincount(flat, minlength=nunits * ncat).reshape(nunits, ncat).astype(object)
    tot = counts.sum(axis=1)
    dpairs = int((tot * tot - (counts * counts).sum(axis=1)).sum())
    marg = counts.sum(axis=0)
    n = int(marg.sum())
    if n < 2:
        return AB_UNDEFINED
    epairs = n * n - int((marg * marg).sum())
    if epairs <= 0:
        return AB_UNDEFINED
    return AB_PERMIL - (AB_PERMIL * dpairs * (n - 1)) // ((nraters - 1) * epairs)


# --- detector spread --------------------------------------------------------------------------


def _checked_rates(rates: Iterable[Any]) -> list[Fraction]:
    out = []
    for i, r in enumerate(rates):
        if isinstance(r, bool) or not isinstance(r, Rational):
            raise ValueError(f"rate #{i + 1} must be an int or a Fraction, got {r!r}")
        if r < 0:
            raise ValueError(f"rate #{i + 1} is negative ({r}): a detector rate is a count or share, >= 0")
        out.append(Fraction(r))
    return out


def rate_span(rates: Iterable[Any]) -> tuple[Fraction | int, Fraction | int]:
    """(lo, hi): the interval a single detector's rate must be reported as; (0, 0) when empty.

    >>> rate_span([3, 9, 5])
    (3, 9)
    """
    checked = _checked_rates(rates)
    if not checked:
        return (0, 0)
    lo, hi = min(checked), max(checked)
    return (_simplify(lo), _simplify(hi))


def _simplify(x: Fraction) -> Fraction | int:
    return int(x) if x.denominator == 1 else x


def spread(rates: Iterable[Any]) -> Fraction | None:
    """hi / lo exactly; 1 for an empty or all-zero panel; None when unbounded (some zero)."""
    checked = _checked_rates(rates)
    if not checked:
        return Fraction(1)
    lo, hi = min(checked), max(checked)
    if hi == 0:
        return Fraction(1)
    if lo == 0:
        return None
    return hi / lo


def ratio_permil(rates: Iterable[Any]) -> int:
    """The seed's ``ab_ratio_permil``: floor(1000 hi / lo); 1000 all-zero; AB_RATIO_UNBOUNDED.

    >>> ratio_permil([0, 0]), ratio_permil([0, 4]), ratio_permil([2, 3])
    (1000, -1, 1500)
    """
    s = spread(rates)
    if s is None:
        return AB_RATIO_UNBOUNDED
    return math.floor(s * AB_PERMIL)


# --- thresholds and the decision --------------------------------------------------------------


def _exact_int(name: str, value: Any, lo: int, hi: int) -> int:
    if type(value) is not int:
        raise ValueError(f"{name} must be a whole number (int), got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")
    return value


@dataclass(frozen=True)
class PanelThresholds:
    """Threshold *data* for :func:`decide`. Defaults and citations: :data:`DEFAULT_CITATIONS`."""

    alpha_floor_permil: int = AB_ALPHA_FLOOR_DEFAULT
    ratio_cap_permil: int = AB_RATIO_CAP_DEFAULT
    #: Strict mode: also gate on the 95% interval's bound (alpha's lower bound >= floor, the
    #: spread's upper bound <= cap). Off by default: the seed gates on the point.
    strict: bool = False

    def __post_init__(self) -> None:
        _exact_int("alpha_floor_permil", self.alpha_floor_permil, -1000, 1000)
        _exact_int("ratio_cap_permil", self.ratio_cap_permil, 1000, 1_000_000)
        if type(self.strict) is not bool:
            raise ValueError(f"strict must be true or false, got {self.strict!r}")

    @property
    def alpha_floor(self) -> Fraction:
        return Fraction(self.alpha_floor_permil, AB_PERMIL)

    @property
    def ratio_cap(self) -> Fraction:
        return Fraction(self.ratio_cap_permil, AB_PERMIL)


@dataclass(frozen=True)
class Reason:
    """One failed check: what was measured, against what, and by how much."""

    check: str  # "single_detector" | "alpha_undefined" | "alpha_below_floor" | "ratio_unbounded" | "ratio_above_cap"
    value: Fraction | int | None
    threshold: Fraction | int
    margin: Fraction | int | None  # value - threshold (how far on the wrong side); None when value is None
    message: str


@dataclass(frozen=True)
class PanelDecision:
    verdict: Verdict
    reasons: tuple[Reason, ...]
    ndet: int
    alpha: Fraction | None
    spread: Fraction | None  # None = unbounded
    rates_span: tuple[Fraction | int, Fraction | int]
    thresholds: PanelThresholds
    seed_alpha_permil: int
    seed_ratio_permil: int
    seed_verdict: Verdict

    @property
    def seed_disagrees(self) -> bool:
        """True when the seed's rounded integers would have reached another verdict."""
        return self.seed_verdict is not self.verdict


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


def _fmt(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4f} ({x})"


def decide(
    ndet: int,
    alpha: AlphaResult | Fraction | int | None,
    rates: Sequence[Any],
    thresholds: PanelThresholds = PanelThresholds(),
    *,
    alpha_low: float | None = None,
    spread_high: float | None | str = "unknown",
) -> PanelDecision:
    """The enforcement verdict: the only place panel numbers meet thresholds.

    Order is the seed's: ``ndet < 2`` refuses first, whatever the scores; then alpha (undefined
    or below the floor), then the spread (unbounded or above the cap) -> REPORT_ONLY.  Gates
    compare exact values; every failed check is listed, the structural refusal first.

    Strict mode (``thresholds.strict``) adds the interval gates: ``alpha_low`` (the 95% lower
    bound of alpha) must reach the floor and ``spread_high`` (the upper end of the spread's
    bracket; None = unbounded) must stay within the cap. A missing interval fails strict mode.

    >>> decide(3, Fraction(5994, 10000), [1, 1]).verdict            # seed would say 600 >= 600
    <Verdict.REPORT_ONLY: 'REPORT_ONLY'>
    >>> decide(3, Fraction(5994, 10000), [1, 1]).seed_disagrees
    True
    """
    if type(ndet) is not int and not isinstance(ndet, np.integer):
        raise ValueError(f"ndet must be an int, got {ndet!r}")
    ndet = int(ndet)
    if not isinstance(thresholds, PanelThresholds):
        raise ValueError("thresholds must be a PanelThresholds")
    if isinstance(alpha, AlphaResult):
        value = alpha.value
    elif alpha is None:
        value = None
    elif isinstance(alpha, Rational) and not isinstance(alpha, bool):
        value = Fraction(alpha)
    else:
        raise ValueError(f"alpha must be an AlphaResult, a Fraction or None, got {alpha!r}")
    checked = _checked_rates(rates)
    s = spread(checked)
    reasons: list[Reason] = []
    if ndet < 2:
        reasons.append(
            Reason("single_detector", ndet, 2, ndet - 2,
                   f"{ndet} independent detector(s): fewer than two is a coin flip and is refused "
                   "structurally, whatever the scores")
        )
    floor = thresholds.alpha_floor
    if value is None:
        reasons.append(Reason("alpha_undefined", None, floor, None,
                              "alpha is undefined (no pairable values or no variation): it cannot license action"))
    elif value < floor:
        reasons.append(Reason("alpha_below_floor", value, floor, value - floor,
                              f"alpha {_fmt(value)} is below the floor {_fmt(floor)} by {_fmt(floor - value)}"))
    cap = thresholds.ratio_cap
    if s is None:
        reasons.append(Reason("ratio_unbounded", None, cap, None,
                              "detector spread is unbounded: one detector found nothing where another found something"))
    elif s > cap:
        reasons.append(Reason("ratio_above_cap", s, cap, s - cap,
                              f"detector spread {_fmt(s)}x is above the cap {_fmt(cap)}x by {_fmt(s - cap)}x"))
    if thresholds.strict:
        reasons.extend(_strict_reasons(value, alpha_low, checked, spread_high, floor, cap))
    if ndet < 2:
        verdict = Verdict.REFUSE_SINGLE
    elif reasons:
        verdict = Verdict.REPORT_ONLY
    else:
        verdict = Verdict.ENFORCE
    seed_a = AB_UNDEFINED if value is None else AB_PERMIL - math.floor(AB_PERMIL * (1 - value))
    seed_r = ratio_permil(checked)
    seed_v = Verdict.from_seed_code(
        seed_enforce(ndet, seed_a, seed_r, thresholds.alpha_floor_permil, thresholds.ratio_cap_permil)
    )
    lohi = rate_span(checked)
    return PanelDecision(verdict, tuple(reasons), ndet, value, s, lohi, thresholds, seed_a, seed_r, seed_v)


def _strict_reasons(value: Fraction | None, alpha_low: float | None, rates: list[Fraction],
                    spread_high: float | None | str, floor: Fraction, cap: Fraction) -> list[Reason]:
    out = []
    if value is not None:
        if alpha_low is None:
            out.append(Reason("alpha_interval_missing", None, floor, None,
                              "strict mode gates on alpha's 95% lower bound, and none was computed"))
        elif Fraction(alpha_low) < floor:
            low = Fraction(alpha_low)
            out.append(Reason("alpha_lower_bound_below_floor", low, floor, low - floor,
                              f"strict mode: alpha's 95% lower bound {float(low):.4f} is below the floor "
                              f"{_fmt(floor)}"))
    if rates and spread(rates) is not None:
        if spread_high == "unknown":
            out.append(Reason("spread_interval_missing", None, cap, None,
                              "strict mode gates on the spread's upper bound, and none was computed"))
        elif spread_high is None:
            out.append(Reason("spread_upper_unbounded", None, cap, None,
                              "strict mode: the spread's upper bound is unbounded (a detector's rate could be 0)"))
        elif Fraction(spread_high) > cap:
            high = Fraction(spread_high)
            out.append(Reason("spread_upper_above_cap", high, cap, high - cap,
                              f"strict mode: the spread's 95% upper bound {float(high):.3f}x is above the cap {_fmt(cap)}x"))
    return out
