"""The detectors' rate spread: max/min of their rates, exact, with the seed's permil formula and
its "unbounded" sentinel (one detector found nothing where another found something).

>>> ratio_permil([10, 39])
3900
"""

from __future__ import annotations
import math
from fractions import Fraction
from numbers import Rational
from typing import Iterable
from agreebound.panel.seed import AB_PERMIL, AB_RATIO_UNBOUNDED


# --- detector spread --------------------------------------------------------------------------


def checked_rates(rates: Iterable[object]) -> list[Fraction]:
    out = []
    for i, r in enumerate(rates):
        if isinstance(r, bool) or not isinstance(r, Rational):
            raise ValueError(f"rate #{i + 1} must be an int or a Fraction, got {r!r}")
        if r < 0:
            raise ValueError(f"rate #{i + 1} is negative ({r}): a detector rate is a count or share, >= 0")
        out.append(Fraction(r))
    return out


def rate_span(rates: Iterable[int | Fraction]) -> tuple[Fraction | int, Fraction | int]:
    """(lo, hi): the interval a single detector's rate must be reported as; (0, 0) when empty.

    >>> rate_span([3, 9, 5])
    (3, 9)
    """
    checked = checked_rates(rates)
    if not checked:
        return (0, 0)
    lo, hi = min(checked), max(checked)
    return (_simplify(lo), _simplify(hi))


def _simplify(x: Fraction) -> Fraction | int:
    return int(x) if x.denominator == 1 else x


def spread(rates: Iterable[int | Fraction]) -> Fraction | None:
    """hi / lo exactly; 1 for an empty or all-zero panel; None when unbounded (some zero)."""
    checked = checked_rates(rates)
    if not checked:
        return Fraction(1)
    lo, hi = min(checked), max(checked)
    if hi == 0:
        return Fraction(1)
    if lo == 0:
        return None
    return hi / lo


def ratio_permil(rates: Iterable[int | Fraction]) -> int:
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


