"""Krippendorff's alpha as measured: :class:`AlphaResult`, exact, with the seed's permil beside it."""

from __future__ import annotations
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Callable
from agreebound.panel.categories import Categories, Level, Value
from agreebound.panel.seed import AB_PERMIL, AB_UNDEFINED


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

    level: Level
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
    coincidence_source: Callable[[], tuple[list[list[int]], int]] | None = field(default=None, repr=False, compare=False)

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
    def categories(self) -> tuple[Value, ...]:
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


