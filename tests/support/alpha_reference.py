"""Krippendorff's alpha straight from its definition, a test oracle shared by tests/panel/test_alpha.py and
tests/panel/test_counts.py: coincidences as Fractions, o_ck = sum_u (pairs c-k in u) / (m_u - 1), and the
seed's integer permil from its own formula. Plain loops, no numpy, nothing from agreebound: what the
product computes is held against this, never against itself."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

AB_UNDEFINED = -1_000_000


@dataclass(frozen=True)
class Definition:
    value: Fraction | None
    observed: Fraction | None  # D_o (None where alpha is undefined)
    expected: Fraction | None  # D_e
    pairable: int  # n: values in units of two or more
    units: int  # pairable units
    pairs: int  # sum over pairable units of m (m - 1) / 2
    coincidence: tuple[tuple[Fraction, ...], ...]  # o_ck over every category, sorted
    mean_square: float | None  # sum_ck o_ck d2_ck^2 / n: the bootstrap's second moment
    seed_permil: int


def _value(v: Any) -> Any:
    if isinstance(v, str):
        return v
    return Fraction(repr(v)) if isinstance(v, float) else Fraction(v)


def definition(rows: list[list], level: str) -> Definition:
    """Everything alpha reports of a units x raters matrix (None missing), from the definition."""
    every = [[_value(v) for v in r if v is not None] for r in rows]
    units = [u for u in every if len(u) >= 2]
    values = sorted({v for u in every for v in u})  # every category (alpha's coincidences list them all)
    o = {(c, k): Fraction(0) for c in values for k in values}
    for u in units:
        for i, a in enumerate(u):
            for j, b in enumerate(u):
                if i != j:
                    o[a, b] += Fraction(1, len(u) - 1)
    n_c = {c: sum(o[c, k] for k in values) for c in values}
    n = sum(n_c.values())
    coincidence = tuple(tuple(o[c, k] for k in values) for c in values)
    shape = (int(n), len(units), sum(len(u) * (len(u) - 1) // 2 for u in units), coincidence)
    seed = _seed_permil(every, len(rows[0]) if rows else 0)
    if n < 2:
        return Definition(None, None, None, *shape, None, seed)
    rank = {}
    before = Fraction(0)
    for c in values:
        rank[c] = before + n_c[c] / 2
        before += n_c[c]

    def d2(c: Any, k: Any) -> Fraction:
        if level == "nominal":
            return Fraction(c != k)
        if level == "ordinal":
            return (rank[c] - rank[k]) ** 2
        if level == "interval":
            return (c - k) ** 2
        return ((c - k) / (c + k)) ** 2 if c + k else Fraction(0)

    d_o = sum(o[c, k] * d2(c, k) for c in values for k in values) / n
    d_e = sum(n_c[c] * n_c[k] * d2(c, k) for c in values for k in values) / (n * (n - 1))
    if d_e == 0:
        return Definition(None, None, None, *shape, None, seed)
    mean_square = float(sum(o[c, k] * d2(c, k) ** 2 for c in values for k in values) / n)
    return Definition(1 - d_o / d_e, d_o, d_e, *shape, mean_square, seed)


def _seed_permil(units: list[list], raters: int) -> int:
    """The seed's ab_alpha_permil: D ordered pairs of different values within units, every value in
    the marginals (singleton units too), 1000 - (1000 D (n - 1)) // ((m - 1) E)."""
    totals: dict[Any, int] = {}
    different = 0
    for u in units:
        for v in u:
            totals[v] = totals.get(v, 0) + 1
        different += sum(1 for i, a in enumerate(u) for j, b in enumerate(u) if i != j and a != b)
    n = sum(totals.values())
    if raters < 2 or n < 2:
        return AB_UNDEFINED
    e = n * n - sum(t * t for t in totals.values())
    if e <= 0:
        return AB_UNDEFINED
    return 1000 - (1000 * different * (n - 1)) // ((raters - 1) * e)


def reference(rows: list[list], level: str) -> Fraction | None:
    """Krippendorff's alpha from its definition (None where undefined)."""
    return definition(rows, level).value
