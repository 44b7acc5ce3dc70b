"""Panel reliability: exact Krippendorff alpha, detector spread and the enforcement verdict.

The contract is the seed ``nx_agreebound`` (rung W-AGB-1): a panel that cannot agree cannot
license enforcement, and fewer than two independent detectors is refused structurally, whatever
the scores.  Everything here is pure: no I/O, no streamlit, no plotly.

Alpha itself is measured in one place, agreebound.alpha, over an engine's counts; here are the
ratings' coding (:class:`Categories`, :class:`Coded`), alpha's result type (:class:`AlphaResult`)
and the seed's own integer formulas (``seed_alpha_permil``: the specification's oracle).

>>> seed_alpha_permil([[1, 1], [2, 2], [1, 2]], 3)   # alpha 4/9, rounded up as the seed rounds
445
>>> ratio_permil([10, 39])
3900
>>> decide(1, Fraction(1), [5, 5]).verdict
<Verdict.REFUSE_SINGLE: 'REFUSE_SINGLE'>
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from numbers import Rational
from typing import Any, Iterable, Sequence

import numpy as np

from agreebound.categories import Categories, Coded, as_matrix
from agreebound.gate import MEASURED, NOT_MEASURED, UNBOUNDED, UNDEFINED, Gate, Plan, evaluate, meets, plan_alpha
from agreebound.limits import DENSE_MAX_CATEGORIES
from agreebound.thresholds import ALPHA_FLOOR_DEFAULT, CITATIONS, PERMIL, RATIO_CAP_DEFAULT, PanelThresholds

__all__ = [
    "AB_UNDEFINED",
    "AB_RATIO_UNBOUNDED",
    "AB_ENFORCE",
    "AB_REPORT_ONLY",
    "AB_REFUSE_SINGLE",
    "AB_ALPHA_FLOOR_DEFAULT",
    "AB_RATIO_CAP_DEFAULT",
    "AB_PERMIL",
    
    "AlphaResult",
    
    
    "PanelThresholds",
    "PanelDecision",
    "Reason",
    "Verdict",
    "decide",
    
    "rate_span",
    "ratio_permil",
    "seed_alpha_permil",
    "seed_enforce",
    "seed_permil_from_totals",
]

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

#: Where each default comes from (the seed's own citations), stated once in agreebound.thresholds.
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


# --- alpha -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha, exact.

    ``value`` is ``None`` when alpha is undefined (no pairable values, or no variation).
    ``seed_permil`` is the seed's ``ab_alpha_permil`` applied to the same matrix (its nominal
    integer formula, every column a rater). The coincidence matrix is kept (scaled to integers,
    ``coincidence_scaled / coincidence_scale``) when there are at most
    ``COINCIDENCE_MAX_CATEGORIES`` distinct values; above, it is None.
    """

    level: str
    value: Fraction | None
    observed_disagreement: Fraction | None
    expected_disagreement: Fraction | None
    pairable: int  # n: values in units with at least two ratings
    units: int  # units with at least two ratings
    category_set: Categories = field(repr=False, compare=False)
    seed_permil: int = AB_UNDEFINED
    pairs: int = 0  # M = sum over pairable units of m(m-1)/2: the pairs a bootstrap draws
    #: (mean, mean square) of the pair distance d2 over the coincidences: the bootstrap's moments.
    distance_moments: tuple[float, float] | None = field(default=None, repr=False, compare=False)
    #: Builds the coincidence matrix when first asked for (None when k is large).
    coincidence_source: Any = field(default=None, repr=False, compare=False)

    @cached_property
    def _coincidence(self) -> tuple[tuple[tuple[int, ...], ...] | None, int]:
        if self.coincidence_source is None:
            return None, 1
        big, scale = self.coincidence_source()
        return tuple(tuple(row) for row in big), scale

    @property
    def coincidence_scaled(self) -> tuple[tuple[int, ...], ...] | None:
        """O_ck = L o_ck, integers (None above COINCIDENCE_MAX_CATEGORIES distinct values)."""
        return self._coincidence[0]

    @property
    def coincidence_scale(self) -> int:
        return self._coincidence[1]

    @property
    def defined(self) -> bool:
        return self.value is not None

    @property
    def categories(self) -> tuple[Any, ...]:
        return self.category_set.values

    @property
    def n_categories(self) -> int:
        return len(self.category_set)

    @property
    def permil(self) -> int | None:
        """floor(1000 x alpha): never rounded up, so it can never flatter a panel."""
        if self.value is None:
            return None
        return math.floor(self.value * AB_PERMIL)

    @property
    def coincidence(self) -> tuple[tuple[Fraction, ...], ...] | None:
        if self.coincidence_scaled is None:
            return None
        s = self.coincidence_scale
        return tuple(tuple(Fraction(x, s) for x in row) for row in self.coincidence_scaled)

    @property
    def marginals(self) -> tuple[Fraction, ...] | None:
        if self.coincidence_scaled is None:
            return None
        s = self.coincidence_scale
        return tuple(Fraction(sum(row), s) for row in self.coincidence_scaled)


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
    key = c.code.astype(np.int64) * c.n_units
    key += c.unit
    return np.bincount(key, minlength=c.n_units * k).reshape(k, c.n_units)


def unit_sums(matrix: np.ndarray, square: bool = False) -> np.ndarray:
    """Each unit's ratings (sum of squared counts) from a values x units count matrix."""
    out = np.zeros(matrix.shape[1], dtype=np.int64)
    for row in matrix:
        out += row * row if square else row
    return out


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
    raters or values, or no variation. agreebound.alpha gives every engine's counts this seed
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


def seed_alpha_permil(ratings: Any, ncat: int) -> int:
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

    Bit for bit with the seed on every list of non-negative rates. Negative rates are refused
    here on purpose (a ValueError), where the seed would return a number: a detector rate is a
    count or a share, and a negative one is bad input, not a spread.

    >>> ratio_permil([0, 0]), ratio_permil([0, 4]), ratio_permil([2, 3])
    (1000, -1, 1500)
    """
    s = spread(rates)
    if s is None:
        return AB_RATIO_UNBOUNDED
    return math.floor(s * AB_PERMIL)


# --- the decision --------------------------------------------------------------


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

    #: Where ``seed_alpha_permil`` comes from: "matrix" (the seed's nominal integer formula applied
    #: to the rating matrix itself) or "value" (the seed's rounding of a given alpha value).
    seed_alpha_source: str = "value"

    @property
    def seed_disagrees(self) -> bool:
        """True whenever the seed's own path would reach another verdict: its nominal integer alpha
        on the same matrix (which ignores missing cells differently and rounds up), its integer
        spread and its check order, under the same thresholds."""
        return self.seed_verdict is not self.verdict

    @property
    def spread_measured(self) -> bool:
        """False when there were no detector rates: the spread gate then passes as the seed's
        empty panel does (1000 permil), and says "not measured"."""
        return bool(self.rates_measured)

    rates_measured: int = 0
    #: The three gates as decided, in order: "detectors", "alpha", "spread" (agreebound.gate).
    gates: tuple[Gate, ...] = ()

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)


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


#: Why a gate has no number, in the words every screen shows.
ALPHA_UNDEFINED_DETAIL = "no pairable values or no variation"
SPREAD_UNBOUNDED_DETAIL = "a detector found nothing where another found something"
#: The reasons' checks that fail each gate: what a stored report's reasons say about its gates.
GATE_CHECKS: dict[str, tuple[str, ...]] = {
    "detectors": ("single_detector",),
    "alpha": ("alpha_undefined", "alpha_below_floor", "alpha_interval_missing", "alpha_lower_bound_below_floor"),
    "spread": ("ratio_unbounded", "ratio_above_cap", "spread_interval_missing", "spread_upper_unbounded",
               "spread_upper_above_cap"),
}


def decide(
    ndet: int,
    alpha: AlphaResult | Fraction | int | None,
    rates: Sequence[Any],
    thresholds: PanelThresholds = PanelThresholds(),
    *,
    alpha_low: float | None = None,
    spread_high: float | None | str = "unknown",
    alpha_high: float | None = None,
    alpha_method: str = "",
    spread_low: float | None = None,
    source: str | None = None,
    alpha_se: float | None = None,
    alpha_units: int = 0,
) -> PanelDecision:
    """The enforcement verdict: the only place panel numbers meet thresholds.

    Order is the seed's: ``ndet < 2`` refuses first, whatever the scores; then alpha (undefined
    or below the floor), then the spread (unbounded or above the cap) -> REPORT_ONLY.  Gates
    compare exact values; every failed check is listed, the structural refusal first.

    Strict mode (``thresholds.strict``) adds the interval gates: ``alpha_low`` (the 95% lower
    bound of alpha) must reach the floor and ``spread_high`` (the upper end of the spread's
    bracket; None = unbounded) must stay within the cap. A missing interval fails strict mode.
    ``alpha_high``, ``alpha_method`` and ``spread_low`` complete the intervals the gates carry
    (for "fragile"); ``source`` is where the thresholds came from (default: "default" when they
    are the defaults, else "given"). ``alpha_se``: the standard error of alpha's bootstrap draws at
    ``alpha_units`` pairable units, from which alpha's gate plans how many units would decide it
    (agreebound.gate.plan_alpha; no plan without them).

    >>> decide(3, Fraction(5994, 10000), [1, 1]).verdict            # seed would say 600 >= 600
    <Verdict.REPORT_ONLY: 'REPORT_ONLY'>
    >>> decide(3, Fraction(5994, 10000), [1, 1]).seed_disagrees
    True
    >>> decide(3, Fraction(3, 5), [1, 1]).gate("alpha").passed       # at the floor exactly: passes
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
    if source is None:
        source = "default" if thresholds == PanelThresholds() else "given"
    gates = (_detectors_gate(ndet),
             _alpha_gate(value, thresholds, (alpha_low, alpha_high, alpha_method), source, (alpha_se, alpha_units)),
             _spread_gate(s, bool(checked), thresholds, (spread_low, spread_high), source))
    reasons = _reasons(gates, thresholds.strict, spread_high)
    if ndet < 2:
        verdict = Verdict.REFUSE_SINGLE
    elif reasons:
        verdict = Verdict.REPORT_ONLY
    else:
        verdict = Verdict.ENFORCE
    if isinstance(alpha, AlphaResult):
        seed_a, seed_source = alpha.seed_permil, "matrix"
    else:
        seed_a = AB_UNDEFINED if value is None else AB_PERMIL - math.floor(AB_PERMIL * (1 - value))
        seed_source = "value"
    seed_r = ratio_permil(checked)
    seed_v = Verdict.from_seed_code(
        seed_enforce(ndet, seed_a, seed_r, thresholds.alpha_floor_permil, thresholds.ratio_cap_permil)
    )
    lohi = rate_span(checked)
    return PanelDecision(verdict, tuple(reasons), ndet, value, s, lohi, thresholds, seed_a, seed_r, seed_v,
                         seed_source, len(checked), gates)


def _detectors_gate(ndet: int) -> Gate:
    # structural, not a threshold: fewer than two detectors is refused whatever the thresholds say
    return evaluate("detectors", "min", Fraction(ndet), Fraction(2), threshold_source="structural")


def _alpha_gate(value: Fraction | None, th: PanelThresholds, interval: tuple[Any, Any, str], source: str,
                se_units: tuple[float | None, int] = (None, 0)) -> Gate:
    low, high, method = interval
    se, units = se_units
    if value is None:
        return evaluate("alpha", "min", None, th.alpha_floor, state=UNDEFINED, detail=ALPHA_UNDEFINED_DETAIL,
                        threshold_field="alpha_floor_permil", threshold_source=source, strict=th.strict)
    # strict mode: the 95% lower bound must reach the floor; no interval fails it
    bound = None if not th.strict else low is not None and meets(Fraction(low), "min", th.alpha_floor)
    g = evaluate("alpha", "min", value, th.alpha_floor, low=low, high=high if low is not None else None,
                 interval_method=method, strict=th.strict, bound_passed=bound,
                 threshold_field="alpha_floor_permil", threshold_source=source)
    if se is None or not units:
        return g
    # how many units would decide it: the bootstrap's standard error scaled by the units (gate.plan_alpha)
    return replace(g, plan=plan_alpha(value, th.alpha_floor, se=se, units=units, fragile=g.fragile,
                                      bootstrap=method))


def alpha_gate_at(value: Fraction, floor: Fraction) -> Gate:
    """Alpha's gate on a value alone against ``floor`` (no interval, no strict mode): decide's own
    comparison, for a reader asking where another alpha would land (coefficients.explain: leaving
    a rater out)."""
    return evaluate("alpha", "min", value, floor, threshold_field="alpha_floor_permil", threshold_source="given")


def _spread_gate(s: Fraction | None, measured: bool, th: PanelThresholds, bracket: tuple[Any, Any],
                 source: str) -> Gate:
    low, high = bracket
    known = high != "unknown"
    low, high = (low, high) if known else (None, None)
    common = dict(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=th.strict)
    if not measured:  # no detector rates: passes as the seed's empty panel does, and is not checked
        return Gate("spread", "max", None, th.ratio_cap, None, state=NOT_MEASURED, **common)  # type: ignore[arg-type]
    if s is None:
        return evaluate("spread", "max", None, th.ratio_cap, low=low, high=high, state=UNBOUNDED,
                        detail=SPREAD_UNBOUNDED_DETAIL, **common)  # type: ignore[arg-type]
    # strict mode: the bracket's upper end must stay within the cap; unbounded or missing fails
    bound = None if not th.strict else known and high is not None and meets(Fraction(high), "max", th.ratio_cap)
    return evaluate("spread", "max", s, th.ratio_cap, low=low, high=high,
                    interval_method="bracket from the detectors' Wilson intervals", bound_passed=bound,
                    **common)  # type: ignore[arg-type]


def _reasons(gates: tuple[Gate, Gate, Gate], strict: bool, spread_high: Any) -> list[Reason]:
    """The failed checks, in the seed's order, from the gates (the structural refusal first)."""
    det, alpha, sp = gates
    out: list[Reason] = []
    if not det.passed:
        ndet = int(det.exact or 0)
        out.append(Reason("single_detector", ndet, 2, ndet - 2,
                          f"{ndet} independent detector(s): fewer than two is a coin flip and is refused "
                          "structurally, whatever the scores"))
    floor, value = alpha.threshold, alpha.exact
    if value is None:
        out.append(Reason("alpha_undefined", None, floor, None,
                          "alpha is undefined (no pairable values or no variation): it cannot license action"))
    elif not alpha.value_passed:
        out.append(Reason("alpha_below_floor", value, floor, value - floor,
                          f"alpha {_fmt(value)} is below the floor {_fmt(floor)} by {_fmt(floor - value)}"))
    cap, s = sp.threshold, sp.exact
    if sp.state == UNBOUNDED:
        out.append(Reason("ratio_unbounded", None, cap, None,
                          "detector spread is unbounded: one detector found nothing where another found something"))
    elif sp.value_passed is False:
        assert s is not None
        out.append(Reason("ratio_above_cap", s, cap, s - cap,
                          f"detector spread {_fmt(s)}x is above the cap {_fmt(cap)}x by {_fmt(s - cap)}x"))
    if strict:
        out.extend(_strict_reasons(alpha, sp, spread_high))
    return out


def _strict_reasons(alpha: Gate, sp: Gate, spread_high: Any) -> list[Reason]:
    """``spread_high``: as given to decide ("unknown": none was computed; None: unbounded)."""
    out = []
    floor, cap = alpha.threshold, sp.threshold
    if alpha.exact is not None:
        if alpha.low is None:
            out.append(Reason("alpha_interval_missing", None, floor, None,
                              "strict mode gates on alpha's 95% lower bound, and none was computed"))
        elif not alpha.bound_passed:
            low = Fraction(alpha.low)
            out.append(Reason("alpha_lower_bound_below_floor", low, floor, low - floor,
                              f"strict mode: alpha's 95% lower bound {float(low):.4f} is below the floor "
                              f"{_fmt(floor)}"))
    if sp.state == MEASURED:
        if spread_high == "unknown":
            out.append(Reason("spread_interval_missing", None, cap, None,
                              "strict mode gates on the spread's upper bound, and none was computed"))
        elif spread_high is None:
            out.append(Reason("spread_upper_unbounded", None, cap, None,
                              "strict mode: the spread's upper bound is unbounded (a detector's rate could be 0)"))
        elif not sp.bound_passed:
            high = Fraction(sp.high)
            out.append(Reason("spread_upper_above_cap", high, cap, high - cap,
                              f"strict mode: the spread's 95% upper bound {float(high):.3f}x is above the cap {_fmt(cap)}x"))
    return out


# --- gates of a stored report ----------------------------------------------------------------


def gates_from_report(dimension: dict[str, Any], thresholds: dict[str, Any]) -> tuple[Gate, ...]:
    """The three gates of one dimension of a stored JSON report (``report["panel"]["dimensions"]``
    under ``report["thresholds"]["panel"]``), for reports that do not carry them: each gate
    passed when its decision gave no reason against it (:data:`GATE_CHECKS`). The one place a
    report's reasons are read back as gates."""
    checks = {r["check"] for r in dimension.get("reasons", ())}
    floor = Fraction(thresholds["alpha_floor_permil"], PERMIL)
    cap = Fraction(thresholds["ratio_cap_permil"], PERMIL)
    strict = bool(thresholds.get("strict"))
    source = "stored"
    ndet = int(dimension.get("ndet", 2 if "single_detector" not in checks else 1))
    det = replace(evaluate("detectors", "min", Fraction(ndet), Fraction(2), threshold_source="structural"),
                  passed="single_detector" not in checks)
    a = dimension["alpha"]
    iv = a.get("interval") or {}
    alpha_value = Fraction(a["exact"]) if a.get("defined") and a.get("exact") is not None else None
    alpha = evaluate("alpha", "min", alpha_value, floor, low=iv.get("low"),
                     high=iv.get("high") if iv.get("low") is not None else None,
                     state=None if alpha_value is not None else UNDEFINED,
                     detail="" if alpha_value is not None else ALPHA_UNDEFINED_DETAIL,
                     threshold_field="alpha_floor_permil", threshold_source=source, strict=strict)
    alpha = replace(alpha, passed=not checks & set(GATE_CHECKS["alpha"]), plan=Plan.from_dict(a.get("plan")))
    s = dimension["spread"]
    bracket = s.get("bracket95") or [None, None]
    common = dict(unit="x", threshold_field="ratio_cap_permil", threshold_source=source, strict=strict)
    if s["state"] == "not measured":
        sp = Gate("spread", "max", None, cap, None, state=NOT_MEASURED, **common)  # type: ignore[arg-type]
    else:
        bounded = s["state"] == "bounded"
        sp = evaluate("spread", "max", Fraction(s["exact"]) if bounded else None, cap, low=bracket[0],
                      high=bracket[1], state=None if bounded else s["state"],
                      detail="" if bounded else SPREAD_UNBOUNDED_DETAIL, **common)  # type: ignore[arg-type]
        sp = replace(sp, passed=not checks & set(GATE_CHECKS["spread"]))
    return (det, alpha, sp)
