"""agreebound.panel.alpha: the one alpha. Every kernel (the numpy engine's per-unit histograms, canonical
unit patterns held by many units, pair counts) gives the same exact fraction, and the fraction is
Krippendorff's, by a reference written straight from the definition (coincidences as Fractions)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreebound.panel import counts as C
from agreebound.panel.alpha import alpha, alpha_without_each_rater, krippendorff_alpha
from agreebound.core.limits import RATIO_MAX_CATEGORIES
from agreebound.panel.categories import encode
from tests.support.alpha_reference import reference  # Krippendorff's definition, shared with tests/panel/test_counts.py


def kernels(coded) -> dict[str, C.PanelCounts]:
    """The same counts three ways: per-unit histograms (numpy engine), canonical patterns (what an
    out-of-core engine counts), pair counts only (an out-of-core engine above MAX_PATTERNS)."""
    raters = [f"r{j}" for j in range(coded.n_raters)]
    mine = C.from_coded(coded, raters)
    p = mine.patterns
    canonical = C.UnitPatterns(p.codes, p.counts, p.units)
    common = (mine.dimension, mine.kind, mine.categories, mine.units_by_m)
    return {
        "per unit": mine,
        "patterns": C.PanelCounts(*common, None, mine.category_totals, mine.rater_counts, canonical),
        "pairs": C.PanelCounts(*common, dict(mine.pairs), mine.category_totals, mine.rater_counts, None, True),
    }


def facts(r) -> tuple:
    return (r.value, r.observed_disagreement, r.expected_disagreement, r.pairable, r.units, r.pairs, r.seed_permil,
            r.coincidence_scaled, r.coincidence_scale)


def levels_for(rows: list[list]) -> list[str]:
    values = {v for r in rows for v in r if v is not None}
    out = ["nominal", "ordinal", "interval"]
    if len(values) <= RATIO_MAX_CATEGORIES and all(v >= 0 for v in values):
        out.append("ratio")
    return out


SMALL = st.sampled_from([0, 1, 2, 3, 5, Fraction(1, 2)])
HIGH = st.integers(0, 100_000).map(lambda i: i / 1000)  # read as the decimals they print as


@st.composite
def panels(draw) -> tuple[list[list], bool]:
    n_units, n_raters = draw(st.integers(1, 25)), draw(st.integers(1, 6))
    high = draw(st.booleans())
    cell = st.one_of(st.none(), HIGH if high else SMALL)
    rows = draw(st.lists(st.lists(cell, min_size=n_raters, max_size=n_raters), min_size=n_units, max_size=n_units))
    return rows, high


def as_matrix(rows: list[list], high: bool) -> np.ndarray:
    if high:  # float64 with NaN: the Categories(floats=...) path, as files give decimals
        return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, r in enumerate(rows):
        out[i, :] = r
    return out


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(panels())
def test_every_kernel_gives_the_same_exact_fraction_as_the_definition(drawn):
    rows, high = drawn
    coded = encode(as_matrix(rows, high))
    for level in levels_for(rows):
        got = {name: alpha(c, level) for name, c in kernels(coded).items()}
        first = facts(got["per unit"])
        assert all(facts(r) == first for r in got.values()), level
        assert got["per unit"].value == reference(rows, level), level


def test_kernels_agree_on_a_large_high_cardinality_panel_and_many_equal_units():
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 50_000, 3000)
    data = (truth[:, None] + rng.integers(-30, 30, (3000, 5))) / 100
    data[rng.random(data.shape) < 0.2] = np.nan
    repeated = np.tile(np.array([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, np.nan]]), (2500, 1))  # 4 patterns
    for matrix, levels in ((data, ("nominal", "ordinal", "interval")), (repeated, ("nominal", "ordinal", "interval", "ratio"))):
        coded = encode(matrix)
        for level in levels:
            got = [facts(alpha(c, level)) for c in kernels(coded).values()]
            assert got[0] == got[1] == got[2], level
            assert got[0][0] is not None


def test_kernels_agree_beyond_int64():
    big = 10**15
    rows = [[big, big + 7, None], [3, big, 2 * big], [big, big, big - 1], [0, 1, None]]
    coded = encode(as_matrix(rows, False))
    for level in ("interval", "ordinal", "nominal"):
        got = [facts(alpha(c, level)) for c in kernels(coded).values()]
        assert got[0] == got[1] == got[2]
        assert got[0][0] == reference(rows, level)


def test_krippendorff_2011_published_values():
    k2011 = [[1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
             [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, 3, None, None]]
    for level, published in (("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)):
        assert round(float(krippendorff_alpha(k2011, level).value), 3) == published
        assert krippendorff_alpha(k2011, level).value == reference(k2011, level)


def test_leave_one_rater_out_is_one_function_over_counts():
    rows = [[1, 1, 2], [2, 2, 2], [1, 2, 1], [3, 3, 3]]
    coded = encode(rows)
    names = ["a", "b", "c"]

    def without(name: str) -> C.PanelCounts:
        j = names.index(name)
        return C.from_coded(encode([r[:j] + r[j + 1:] for r in rows]), [n for n in names if n != name])

    got = alpha_without_each_rater(names, without, "nominal", 50)
    assert got == {n: reference([r[:j] + r[j + 1:] for r in rows], "nominal") for j, n in enumerate(names)}
    assert alpha_without_each_rater(names, without, "nominal", 2) == {}  # above the cap: none
    assert alpha_without_each_rater(names[:2], without, "nominal", 50) == {"a": None, "b": None}
    from agreebound.panel.diagnostics import alpha_without_each_rater as in_memory

    assert in_memory(coded, names, "nominal") == got


def test_ratio_is_refused_above_its_category_cap():
    with pytest.raises(ValueError, match="ratio alpha is computed exactly"):
        krippendorff_alpha([[i, i + 1] for i in range(0, 200, 2)], "ratio")


@settings(max_examples=100, deadline=None)
@given(panels())
def test_unit_disagreement_adds_up_to_the_observed_disagreement_at_every_level(drawn):
    """alpha.unit_disagreement (what ranks the units that disagree most) reads the same distances as
    alpha: over the units it adds up to n D_o, and the rows an SQL engine would fetch give the same."""
    from agreebound.panel.alpha import unit_disagreement

    rows, high = drawn
    coded = encode(as_matrix(rows, high))
    counts = kernels(coded)["per unit"]
    for level in levels_for(rows):
        result = alpha(counts, level)
        if result.value is None:
            continue
        per_unit = unit_disagreement(counts, level)
        assert len(per_unit) == result.units
        assert np.isclose(per_unit.sum(), float(result.observed_disagreement * result.pairable), rtol=1e-9), level
        code, cnt, starts, _ = counts.patterns.rows()
        assert np.array_equal(unit_disagreement(kernels(coded)["pairs"], level, (code, cnt, starts)), per_unit), level
