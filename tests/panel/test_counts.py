"""Mergeable counts (agreebound.panel.counts): alpha from counts is alpha from the ratings, exactly, at
every level; counts of a split panel merge to the counts of the whole, in any order and grouping."""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreebound.panel import counts as C
from agreebound.panel.alpha import alpha, krippendorff_alpha
from agreebound.panel.categories import LEVELS, encode
from tests.support.alpha_reference import definition  # Krippendorff's alpha from its definition, not from agreebound

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers x 12 units.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def counts_of(matrix) -> C.PanelCounts:
    coded = encode(matrix)
    return C.from_coded(coded, [f"r{j}" for j in range(coded.n_raters)])


def same(a, b) -> bool:
    return (a.value, a.observed_disagreement, a.expected_disagreement, a.pairable, a.units, a.pairs, a.seed_permil) == \
        (b.value, b.observed_disagreement, b.expected_disagreement, b.pairable, b.units, b.pairs, b.seed_permil)


def test_published_values_from_counts():
    units_by_rows = np.array(K2011, dtype=object).T  # units as rows
    c = counts_of(units_by_rows)
    assert alpha(c, "nominal").value == Fraction(113, 152)  # 0.743
    assert alpha(c, "interval").value == Fraction(951, 1120)  # 0.849
    assert round(float(alpha(c, "ordinal").value), 3) == 0.815
    assert round(float(alpha(c, "ratio").value), 3) == 0.797
    assert c.units_by_m == {1: 1, 2: 1, 3: 2, 4: 8} and c.n_ratings == 41
    assert dict(c.rater_counts["r1"]) == {0: 2, 1: 4, 2: 3, 3: 1, 4: 1} and c.categories == (1, 2, 3, 4, 5)


matrices = st.integers(1, 4).flatmap(lambda k: st.lists(
    st.lists(st.one_of(st.none(), st.sampled_from([1, 2, 3.5, 7, 10][:k + 1])), min_size=1, max_size=5),
    min_size=1, max_size=25).map(lambda rows: [r + [None] * (5 - len(r)) for r in rows]))
label_matrices = st.lists(st.lists(st.one_of(st.none(), st.sampled_from(["spam", "ham", "eggs"])), min_size=4,
                                   max_size=4), min_size=1, max_size=25)


def held_to_the_definition(c: C.PanelCounts, rows: list[list], level: str) -> None:
    """Alpha of the counts, and all it reports, is Krippendorff's definition (tests/support/alpha_reference.py)."""
    got, want = alpha(c, level), definition(rows, level)
    assert (got.value, got.observed_disagreement, got.expected_disagreement) == \
        (want.value, want.observed, want.expected), level
    assert (got.pairable, got.units, got.pairs, got.seed_permil) == \
        (want.pairable, want.units, want.pairs, want.seed_permil), level
    assert got.coincidence == (want.coincidence if want.units else None), level  # none without pairable units
    if want.mean_square is not None:
        assert got.distance_moments[0] == float(want.observed)
        assert np.isclose(got.distance_moments[1], want.mean_square, rtol=1e-12), level


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_alpha_from_counts_is_alpha_by_its_definition(rows):
    c = counts_of(np.array(rows, dtype=object))
    for level in LEVELS:
        held_to_the_definition(c, rows, level)


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_units_held_as_a_count_matrix_or_as_entries_measure_the_same(rows):
    """Up to DENSE_MAX_CATEGORIES values the numpy engine holds the units' histograms as a values x
    units matrix; above, as sorted entries: the same counts, rows and alpha either way."""
    coded = encode(np.array(rows, dtype=object))
    held = C.from_coded(coded)
    with mock.patch("agreebound.panel.seed.DENSE_MAX_CATEGORIES", 0):
        listed = C.from_coded(coded)
    assert (held.patterns.matrix() is not None) == (len(coded.categories) > 0)  # no value: no matrix
    assert listed.patterns.matrix() is None
    assert held.equals(listed) and held.patterns.equals(listed.patterns)
    assert held.units_by_m == listed.units_by_m and held.patterns.n_units == listed.patterns.n_units
    for a, b in zip(held.patterns.rows()[:3], listed.patterns.rows()[:3]):
        assert a.tolist() == b.tolist()
    for level in LEVELS:
        assert same(alpha(held, level), alpha(listed, level)), level


@settings(max_examples=100, deadline=None)
@given(label_matrices)
def test_labels_from_counts(rows):
    coded = encode(np.array(rows, dtype=object))
    held_to_the_definition(C.from_coded(coded, ["a", "b", "c", "d"]), rows, "nominal")


@settings(max_examples=100, deadline=None)
@given(matrices, st.data())
def test_parts_merge_to_the_whole_in_any_order(rows, data):
    m = np.array(rows, dtype=object)
    whole = counts_of(m)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(rows)), max_size=3)))
    bounds = [0, *cuts, len(rows)]
    parts = [counts_of(m[a:b]) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    order = data.draw(st.permutations(parts))
    merged = C.merge_all(order)
    assert merged.equals(whole)
    if len(parts) >= 3:  # associative: (a + b) + c == a + (b + c)
        a, b, c = parts[:3]
        assert C.merge(C.merge(a, b), c).equals(C.merge(a, C.merge(b, c)))
    for level in LEVELS:
        assert same(alpha(merged, level), krippendorff_alpha(encode(m), level))


def test_rates_from_counts_for_any_positive():
    c = counts_of(np.array([[0, 1, 1], [0, 0, 1], [1, 1, None]], dtype=object))
    assert c.rates(1) == [("r0", 1, 3), ("r1", 2, 3), ("r2", 2, 2)]
    assert c.rates(0) == [("r0", 2, 3), ("r1", 1, 3), ("r2", 0, 2)]
    assert c.rates("absent") == [("r0", 0, 3), ("r1", 0, 3), ("r2", 0, 2)]


def test_parts_of_different_kinds_do_not_merge():
    with pytest.raises(ValueError, match="one part holds numbers and another labels"):
        C.merge(counts_of(np.array([[1, 2]], dtype=object)), counts_of(np.array([["a", "b"]], dtype=object)))


def test_engine_rows_with_duplicate_spellings_merge_by_value():
    """An engine groups by text: "1" and "1.0" are one category once read as numbers."""
    c = C.from_rows("all", "number", [1, Fraction(2), 1], {2: 2}, [(2, 0, 1, 1), (2, 1, 0, 1), (2, 2, 1, 1),
                                                                     (2, 1, 2, 1)], [1, 2, 1],
                    [("a", 0, 1), ("a", 2, 1), ("b", 1, 2)])
    assert c.categories == (1, 2) and c.category_totals == (2, 2)
    assert dict(c.rater_counts["a"]) == {0: 2}
    assert alpha(c, "nominal").value == krippendorff_alpha(encode(np.array([[1, 2], [1, 2]], dtype=object))).value


def coded_by_reading(rows):
    """The coding's definition, not agreebound's: every present rating (unit, rater, value) in
    reading order; the categories are the distinct values, sorted, each shown as first read."""
    present = [(i, j, v) for i, row in enumerate(rows) for j, v in enumerate(row) if v == v]  # NaN is missing
    firsts = list(dict.fromkeys(v for _, _, v in present))  # 0.0 == -0.0: the first one read is kept
    cats = sorted(firsts)
    return [i for i, _, _ in present], [j for _, j, _ in present], [cats.index(v) for _, _, v in present], cats


whole_or_not = st.one_of(st.integers(-3, 3).map(float), st.sampled_from(
    [float("nan"), -0.0, 0.0, 0.5, 65534.0, 65535.0, 65536.0, 2.0**53, -(2.0**53) + 1, 1e30, float("inf")]))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(lambda r: st.lists(st.lists(whole_or_not, min_size=r, max_size=r), max_size=12)),
       st.sampled_from([np.float64, np.float32]))
def test_float_ratings_code_as_their_sorted_distinct_values(rows, dtype):
    """Whole numbers spanning fewer than 2**16 values are coded by one bincount, anything else by
    hashing: either way each rating's code is its value's rank, and 0.0 and -0.0 are one category
    shown as the first one read."""
    matrix = np.array(rows, dtype=dtype).reshape(len(rows), -1) if rows else np.zeros((0, 2), dtype=dtype)
    rows = matrix.tolist()
    unit, rater, code, cats = coded_by_reading(rows)
    coded = encode(matrix)
    assert (coded.unit.tolist(), coded.rater.tolist(), coded.code.tolist()) == (unit, rater, code)
    shown = coded.categories.floats
    assert shown.tolist() == cats and [np.signbit(x) for x in shown] == [np.signbit(x) for x in cats]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(lambda r: st.lists(st.lists(st.one_of(
    st.integers(-3, 3), st.sampled_from([65533, 65535, 2**62, -(2**62)])), min_size=r, max_size=r), max_size=12)))
def test_integer_ratings_code_as_their_sorted_distinct_values(rows):
    matrix = np.array(rows, dtype=np.int64).reshape(len(rows), -1) if rows else np.zeros((0, 2), dtype=np.int64)
    unit, rater, code, cats = coded_by_reading(matrix.tolist())
    coded = encode(matrix)
    assert (coded.unit.tolist(), coded.rater.tolist(), coded.code.tolist()) == (unit, rater, code)
    assert list(coded.categories.values) == cats


def test_the_first_zero_read_names_the_category():
    assert str(encode(np.array([[-0.0, 0.0], [1.0, np.nan]])).categories.floats[0]) == "-0.0"
    assert str(encode(np.array([[0.0, -0.0], [1.0, np.nan]])).categories.floats[0]) == "0.0"
    assert encode(np.array([[2.5, 2.0]])).code.tolist() == [1, 0]  # not whole: 2.5 is not read as 2


@settings(max_examples=150, deadline=None)
@given(matrices)
def test_a_float_matrix_coded_in_memory_measures_as_its_cells(rows):
    """A float matrix with missing cells is coded by its present cells (Coded.of_cells): each rating's
    unit and rater are its cell's quotient and remainder; alpha read from the count matrix's sums
    (before the matrix itself is read, its unpairable units still in it) is the definition's, and the
    counts equal those of the same ratings coded as Python objects."""
    floats = np.array([[np.nan if v is None else float(v) for v in r] for r in rows])
    coded = encode(floats)
    cells = np.flatnonzero(~np.isnan(floats.ravel()))
    if len(cells) < floats.size:  # every cell rated: units and raters by repetition
        assert coded.unit.tolist() == (cells // 5).tolist() and coded.rater.tolist() == (cells % 5).tolist()
    fresh = C.from_coded(coded, [f"r{j}" for j in range(5)])
    for level in LEVELS:
        held_to_the_definition(fresh, rows, level)
    assert fresh.equals(counts_of(np.array(rows, dtype=object)))
