"""agreebound.panel: published values, seed parity, peer cross-checks, properties, scale."""

from __future__ import annotations

import dataclasses
import math
import random
from fractions import Fraction

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreebound.panel.alpha import krippendorff_alpha
from agreebound.panel.seed import AB_RATIO_UNBOUNDED, AB_UNDEFINED, DEFAULT_CITATIONS, Verdict, seed_alpha_permil
from agreebound.core.thresholds import PanelThresholds
from agreebound.panel.decide import decide
from agreebound.panel.seed import seed_enforce
from agreebound.panel.spread import rate_span, ratio_permil
from agreebound.panel.categories import LEVELS
from tests.support.panels import K2011

N = None
# Krippendorff (2011) "Computing Krippendorff's alpha-reliability", section C: 4 observers, 12 units,
# missing values.  Rows = units, columns = observers A..D.


# --- published values, as exact fractions ---------------------------------------------------


@pytest.mark.parametrize(
    "level, exact, published",
    [
        ("nominal", Fraction(113, 152), "0.743"),
        ("ordinal", Fraction(108577, 133160), "0.815"),
        ("interval", Fraction(951, 1120), "0.849"),
        ("ratio", Fraction(18222619, 22852465), "0.797"),
    ],
)
def test_krippendorff_2011_reliability_data(level, exact, published):
    r = krippendorff_alpha(K2011, level)
    assert r.value == exact
    assert f"{float(r.value):.3f}" == published
    assert r.pairable == 40  # unit 12 has one value and drops out; the published n is 40
    assert r.units == 11
    assert r.permil == int(published[2:])


def test_krippendorff_2011_nominal_coincidences():
    r = krippendorff_alpha(K2011, "nominal")
    assert r.categories == (1, 2, 3, 4, 5)
    # The published coincidence matrix (section C), rows/cols values 1..5.
    expected = (
        (7, Fraction(4, 3), Fraction(1, 3), Fraction(1, 3), 0),
        (Fraction(4, 3), 10, Fraction(4, 3), Fraction(1, 3), 0),
        (Fraction(1, 3), Fraction(4, 3), 8, Fraction(1, 3), 0),
        (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3), 4, 0),
        (0, 0, 0, 0, 3),
    )
    assert r.coincidence == tuple(tuple(Fraction(x) for x in row) for row in expected)
    assert r.marginals == (9, 13, 10, 5, 3)


def test_krippendorff_2011_binary_two_coders():
    # Section A: two coders, ten units, binary data: alpha = 0.095.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    r = krippendorff_alpha(list(zip(a, b)))
    assert r.value == Fraction(2, 21)
    assert round(float(r.value), 3) == 0.095


def test_krippendorff_2011_nominal_labels_two_coders():
    # Section B: two observers, nominal labels a..e, twelve units: alpha = 0.692.
    a = "a a b b d c c c e d d a".split()
    b = "b a b b b c c c e d d d".split()
    r = krippendorff_alpha(list(zip(a, b)))
    assert r.value == Fraction(155, 224)
    assert round(float(r.value), 3) == 0.692
    assert r.categories == ("a", "b", "c", "d", "e")


def test_negative_alpha_is_reported_not_clamped():
    r = krippendorff_alpha([[0, 1], [1, 0]])
    assert r.value == Fraction(-1, 2)
    assert r.permil == -500
    # floor, never rounded up: -0.5005 -> -501
    assert krippendorff_alpha([[0, 1], [1, 0], [0, 0], [1, 1], [0, 1]]).permil == math.floor(
        1000 * krippendorff_alpha([[0, 1], [1, 0], [0, 0], [1, 1], [0, 1]]).value
    )


def test_undefined_states():
    assert krippendorff_alpha([[1, 1], [1, 1]]).value is None  # no variation
    assert krippendorff_alpha([[1, N], [N, 2]]).value is None  # no pairable values
    assert krippendorff_alpha([[N, N]]).value is None
    r = krippendorff_alpha([[1, 1], [1, 1]])
    assert r.permil is None and r.seed_permil == AB_UNDEFINED and not r.defined


def test_input_forms_agree():
    arr = np.array(K2011, dtype=float)
    df = pd.DataFrame(K2011, columns=list("ABCD"))
    exact = krippendorff_alpha(K2011, "interval").value
    assert krippendorff_alpha(arr, "interval").value == exact
    assert krippendorff_alpha(df, "interval").value == exact


def test_bad_input_messages():
    with pytest.raises(ValueError, match="2-D"):
        krippendorff_alpha(np.zeros(3))
    with pytest.raises(ValueError, match="different lengths"):
        krippendorff_alpha([[1, 2], [1]])
    with pytest.raises(ValueError, match="numeric"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], "interval")
    with pytest.raises(ValueError, match="level must be one of"):
        krippendorff_alpha([[1, 2]], "cardinal")
    with pytest.raises(ValueError, match="non-negative"):
        krippendorff_alpha([[-1, 2], [2, 2]], "ratio")


# --- seed parity: literal restatements of the seed's integer formulas -----------------------


def literal_ab_alpha_permil(ratings, nunits, nraters, ncat):
    """nx_agreebound.ab_alpha_permil, line by line (flat ratings, i64 semantics)."""
    if nraters < 2 or nunits <= 0 or ncat <= 0:
        return -1000000
    marg = [0] * ncat
    dpairs = 0
    for u in range(nunits):
        cnt = [0] * ncat
        for r in range(nraters):
            v = ratings[u * nraters + r]
            if v >= 0 and v < ncat:
                cnt[v] += 1
                marg[v] += 1
        tot = sum(cnt)
        dpairs += tot * tot - sum(c * c for c in cnt)
    n = sum(marg)
    sq = sum(c * c for c in marg)
    if n < 2:
        return -1000000
    epairs = n * n - sq
    if epairs <= 0:
        return -1000000
    num, den = 1000 * dpairs * (n - 1), (nraters - 1) * epairs
    return 1000 - num // den  # both >= 0: the seed's truncation is floor here


def literal_ab_ratio_permil(rates):
    if len(rates) <= 0:
        return 1000
    lo, hi = min(rates), max(rates)
    if hi == 0:
        return 1000
    if lo <= 0:
        return -1
    return (1000 * hi) // lo


def literal_ab_enforce(ndet, alpha_permil, ratio_permil_, alpha_floor, ratio_cap):
    if ndet < 2:
        return 2
    if alpha_permil == -1000000:
        return 1
    if alpha_permil < alpha_floor:
        return 1
    if ratio_permil_ == -1:
        return 1
    if ratio_permil_ > ratio_cap:
        return 1
    return 0


def random_panel(rng, nunits, nraters, ncat, lo=-1, hi=None):
    hi = ncat if hi is None else hi
    return [[rng.randint(lo, hi) for _ in range(nraters)] for _ in range(nunits)]


def test_seed_alpha_permil_parity_randomized():
    rng = random.Random(20261129)
    for _ in range(400):
        nunits, nraters, ncat = rng.randint(0, 12), rng.randint(0, 5), rng.randint(0, 5)
        panel = random_panel(rng, nunits, nraters, ncat, lo=-2, hi=ncat + 1)  # out-of-range ids too
        flat = [v for row in panel for v in row]
        got = seed_alpha_permil(np.array(panel, dtype=np.int64).reshape(nunits, nraters), ncat)
        assert got == literal_ab_alpha_permil(flat, nunits, nraters, ncat), (panel, ncat)


def test_ratio_permil_parity_randomized():
    rng = random.Random(7)
    for _ in range(2000):
        rates = [rng.choice([0, 0, rng.randint(0, 50)]) for _ in range(rng.randint(0, 5))]
        assert ratio_permil(rates) == literal_ab_ratio_permil(rates), rates
    assert ratio_permil([10, 39]) == 3900
    assert ratio_permil([Fraction(1, 3), Fraction(1, 2)]) == 1500
    assert ratio_permil([0, 0, 0]) == 1000 and ratio_permil([]) == 1000
    assert ratio_permil([0, 1]) == AB_RATIO_UNBOUNDED


def test_seed_check_order_parity_randomized():
    rng = random.Random(11)
    for _ in range(5000):
        args = (
            rng.randint(-1, 4),
            rng.choice([AB_UNDEFINED, rng.randint(-1000, 1000)]),
            rng.choice([AB_RATIO_UNBOUNDED, rng.randint(1000, 5000)]),
            rng.randint(0, 1000),
            rng.randint(1000, 5000),
        )
        assert seed_enforce(*args) == literal_ab_enforce(*args), args


def test_decide_matches_seed_path_on_random_panels():
    rng = random.Random(3)
    disagreements = 0
    for _ in range(300):
        nunits, nraters = rng.randint(2, 15), rng.randint(1, 4)
        panel = random_panel(rng, nunits, nraters, 3, lo=0, hi=2)
        rates = [rng.randint(0, 9) for _ in range(nraters)]
        th = PanelThresholds(rng.randint(0, 1000), rng.randint(1000, 4000))
        a = krippendorff_alpha(panel)
        d = decide(nraters, a, rates, th)
        seed_a = seed_alpha_permil(panel, 3)
        assert d.seed_alpha_permil == seed_a  # complete panel: the seed integer equals ceil(1000 alpha)
        seed_v = literal_ab_enforce(nraters, seed_a, literal_ab_ratio_permil(rates), th.alpha_floor_permil, th.ratio_cap_permil)
        assert d.seed_verdict.seed_code == seed_v
        if d.verdict.seed_code != seed_v:
            disagreements += 1
            # Only the seed's upward rounding of alpha can make it more lenient than the exact gate.
            assert d.verdict is Verdict.REPORT_ONLY and seed_v == 0
            assert a.value < th.alpha_floor <= Fraction(seed_a, 1000)
    assert disagreements < 300


def test_complete_panels_equal_the_seed_rational_formula():
    rng = random.Random(5)
    for _ in range(300):
        nunits, nraters, ncat = rng.randint(1, 20), rng.randint(2, 6), rng.randint(1, 6)
        panel = random_panel(rng, nunits, nraters, ncat, lo=0, hi=ncat - 1)
        marg = [0] * ncat
        d = 0
        for row in panel:
            cnt = [row.count(c) for c in range(ncat)]
            d += sum(cnt) ** 2 - sum(c * c for c in cnt)
            marg = [x + y for x, y in zip(marg, cnt)]
        n = sum(marg)
        e = n * n - sum(c * c for c in marg)
        got = krippendorff_alpha(panel).value
        if e == 0:
            assert got is None
        else:
            assert got == 1 - Fraction(d * (n - 1), (nraters - 1) * e)


# --- the decision ---------------------------------------------------------------------------


def test_refuse_single_is_checked_first_whatever_the_scores():
    d = decide(1, Fraction(1), [5, 5])
    assert d.verdict is Verdict.REFUSE_SINGLE
    assert [r.check for r in d.reasons] == ["single_detector"]
    d = decide(0, None, [0, 9])
    assert d.verdict is Verdict.REFUSE_SINGLE
    assert [r.check for r in d.reasons] == ["single_detector", "alpha_undefined", "ratio_unbounded"]


def test_decide_reasons_carry_exact_values_and_margins():
    d = decide(3, Fraction(43, 100), [10, 31])
    assert d.verdict is Verdict.REPORT_ONLY
    alpha_reason, ratio_reason = d.reasons
    assert (alpha_reason.check, alpha_reason.value, alpha_reason.threshold, alpha_reason.margin) == (
        "alpha_below_floor", Fraction(43, 100), Fraction(3, 5), Fraction(-17, 100))
    assert (ratio_reason.check, ratio_reason.value, ratio_reason.threshold, ratio_reason.margin) == (
        "ratio_above_cap", Fraction(31, 10), Fraction(2), Fraction(11, 10))
    assert "below the floor" in alpha_reason.message and "above the cap" in ratio_reason.message
    assert d.spread == Fraction(31, 10) and d.rates_span == (10, 31)


def test_exact_gate_beats_seed_rounding():
    d = decide(3, Fraction(5994, 10000), [1, 1])
    assert d.verdict is Verdict.REPORT_ONLY
    assert d.seed_alpha_permil == 600 and d.seed_verdict is Verdict.ENFORCE and d.seed_disagrees
    ok = decide(3, Fraction(6, 10), [1, 1])
    assert ok.verdict is Verdict.ENFORCE and not ok.seed_disagrees and ok.reasons == ()
    # hi x 1000 <= cap x lo, exactly at the cap passes; a hair above fails.
    assert decide(2, Fraction(1), [1000, 2000]).verdict is Verdict.ENFORCE
    assert decide(2, Fraction(1), [1000, 2001]).verdict is Verdict.REPORT_ONLY
    assert decide(2, Fraction(1), [Fraction(1, 3), Fraction(2, 3)]).verdict is Verdict.ENFORCE


def test_spread_states():
    assert decide(2, Fraction(1), [0, 0]).verdict is Verdict.ENFORCE  # agreement at zero
    d = decide(2, Fraction(1), [0, 3])
    assert d.spread is None and d.seed_ratio_permil == AB_RATIO_UNBOUNDED
    assert d.reasons[0].check == "ratio_unbounded"


def test_rates_validation():
    with pytest.raises(ValueError, match="negative"):
        rate_span([3, -1])
    with pytest.raises(ValueError, match="int or a Fraction"):
        ratio_permil([0.5, 1])
    with pytest.raises(ValueError, match="int or a Fraction"):
        rate_span([True, 1])
    assert rate_span([3, 9, 5]) == (3, 9)
    assert rate_span([Fraction(1, 2), Fraction(3, 4)]) == (Fraction(1, 2), Fraction(3, 4))


def test_thresholds_are_validated_data():
    t = PanelThresholds()
    assert (t.alpha_floor_permil, t.ratio_cap_permil) == (600, 2000)
    assert t.alpha_floor == Fraction(3, 5) and t.ratio_cap == 2
    assert set(DEFAULT_CITATIONS) == {"alpha_floor_permil", "ratio_cap_permil"}
    with pytest.raises(ValueError, match="whole number"):
        PanelThresholds(alpha_floor_permil=0.6)
    with pytest.raises(ValueError, match="whole number"):
        PanelThresholds(alpha_floor_permil=True)
    with pytest.raises(ValueError, match="between 1000"):
        PanelThresholds(ratio_cap_permil=999)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.alpha_floor_permil = 1  # frozen


# --- cross-check against the krippendorff package -------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_cross_check_krippendorff_package(level):
    rng = np.random.default_rng(42)
    checked = 0
    for _ in range(40):
        units, raters = int(rng.integers(3, 40)), int(rng.integers(2, 6))
        data = rng.integers(1, 7, size=(units, raters)).astype(float)
        data[rng.random(data.shape) < 0.25] = np.nan
        ours = krippendorff_alpha(data, level)
        if ours.value is None:
            continue
        theirs = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
        assert float(ours.value) == pytest.approx(theirs, abs=1e-9)
        checked += 1
    assert checked >= 30


# --- properties -----------------------------------------------------------------------------

cells = st.one_of(st.none(), st.integers(0, 3))
panels = st.integers(1, 4).flatmap(
    lambda r: st.lists(st.lists(cells, min_size=r, max_size=r), min_size=1, max_size=12)
)


@settings(max_examples=150, deadline=None)
@given(panels, st.randoms(use_true_random=False), st.sampled_from(LEVELS))
def test_invariant_under_unit_and_rater_permutation(panel, rnd, level):
    base = krippendorff_alpha(panel, level).value
    rows = [list(r) for r in panel]
    rnd.shuffle(rows)
    perm = list(range(len(rows[0])))
    rnd.shuffle(perm)
    shuffled = [[r[i] for i in perm] for r in rows]
    assert krippendorff_alpha(shuffled, level).value == base


@settings(max_examples=150, deadline=None)
@given(panels, st.permutations(["w", "x", "y", "z"]))
def test_nominal_invariant_under_label_renaming(panel, names):
    relabeled = [[None if v is None else names[v] for v in r] for r in panel]
    assert krippendorff_alpha(relabeled).value == krippendorff_alpha(panel).value


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=15), st.integers(2, 5), st.sampled_from(LEVELS))
def test_perfect_agreement_with_variation_is_one(labels, raters, level):
    panel = [[v] * raters for v in labels]
    r = krippendorff_alpha(panel, level)
    if len(set(labels)) > 1:
        assert r.value == 1
    else:
        assert r.value is None  # no variation: undefined, never a fabricated 1


@settings(max_examples=150, deadline=None)
@given(panels, st.integers(0, 3), st.sampled_from(LEVELS))
def test_a_unit_with_one_rating_changes_nothing(panel, value, level):
    width = len(panel[0])
    lone = [None] * width
    lone[0] = value
    a, b = krippendorff_alpha(panel, level), krippendorff_alpha(panel + [lone], level)
    assert (a.value, a.pairable) == (b.value, b.pairable)


# --- scale ----------------------------------------------------------------------------------


def test_ten_million_ratings_exact_against_python_int_reference():
    rng = np.random.default_rng(2026)
    units, raters = 1_000_000, 10
    truth = rng.integers(0, 5, size=units)
    data = np.where(rng.random((units, raters)) < 0.7, truth[:, None], rng.integers(0, 5, size=(units, raters)))
    data = data.astype(np.float64)
    data[rng.random((units, raters)) < 0.1] = np.nan
    ours = krippendorff_alpha(data)

    # Reference: per-unit count vectors, grouped, then Python ints and Fractions only.
    counts = np.stack([(data == c).sum(axis=1) for c in range(5)], axis=1)
    patterns, mult = np.unique(counts, axis=0, return_counts=True)
    o = [[Fraction(0)] * 5 for _ in range(5)]
    for pat, k in zip(patterns.tolist(), mult.tolist()):
        m = sum(pat)
        if m < 2:
            continue
        for c in range(5):
            for d in range(5):
                pairs = pat[c] * pat[d] - (pat[c] if c == d else 0)
                o[c][d] += Fraction(k * pairs, m - 1)
    nc = [sum(row) for row in o]
    n = sum(nc)
    do = sum(o[c][d] for c in range(5) for d in range(5) if c != d)
    de = sum(nc[c] * nc[d] for c in range(5) for d in range(5) if c != d)
    expected = 1 - (n - 1) * do / de
    assert ours.value == expected
    assert ours.pairable == n


# --- high cardinality: no k x k structure, same exact fractions ------------------------------


def reference_alpha(panel, level):
    """Krippendorff's definitions in Fractions over every pair of values: the slow reference."""
    units = [[Fraction(v) for v in row if v is not None] for row in panel]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    n_c = {v: sum(u.count(v) for u in units) for v in values}
    n = sum(n_c.values())
    if level == "ordinal":
        before, pos = 0, {}
        for v in values:
            pos[v] = before + Fraction(n_c[v], 2)
            before += n_c[v]
        dist = lambda a, b: (pos[a] - pos[b]) ** 2  # noqa: E731
    else:
        dist = lambda a, b: (a - b) ** 2  # noqa: E731
    obs = sum(Fraction(sum(dist(a, b) for i, a in enumerate(u) for j, b in enumerate(u) if i != j), len(u) - 1)
              for u in units)
    exp = sum(n_c[a] * n_c[b] * dist(a, b) for a in values for b in values)
    return None if exp == 0 else 1 - (n - 1) * obs / exp


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_many_distinct_values_take_the_moment_path_and_stay_exact(level):
    rng = random.Random(9)
    for _ in range(6):
        panel = [[None if rng.random() < 0.2 else rng.choice([Fraction(rng.randint(-999, 999), 100)] + [None])
                  for _ in range(rng.randint(2, 5))] for _ in range(60)]
        width = max(len(r) for r in panel)
        panel = [r + [None] * (width - len(r)) for r in panel]
        r = krippendorff_alpha(panel, level)
        assert r.n_categories > 64 and r.coincidence is None  # no k x k matrix was built
        if level == "nominal":
            flat = [v for row in panel for v in row if v is not None]
            labels = {v: f"v{i}" for i, v in enumerate(sorted(set(flat)))}
            ref = krippendorff_alpha([[None if v is None else labels[v] for v in row] for row in panel]).value
        else:
            ref = reference_alpha(panel, level)
        assert r.value == ref


def test_high_cardinality_is_linear_not_quadratic():
    """500 labels in 250 rows once asked for 7.7 GB: the bootstrap drew draws x k^2 counts."""
    rng = np.random.default_rng(0)
    labels = np.array([f"label-{i}" for i in rng.integers(0, 500, size=500)], dtype=object).reshape(250, 2)
    r = krippendorff_alpha(labels)
    assert r.n_categories > 64 and r.coincidence is None and r.value is not None


def test_ratio_level_has_a_stated_limit():
    panel = [[i, i + 1] for i in range(0, 200, 2)]
    with pytest.raises(ValueError, match="ratio alpha is computed exactly for at most 64 distinct values"):
        krippendorff_alpha(panel, "ratio")


def test_floats_are_read_as_the_decimals_they_print_as():
    assert krippendorff_alpha([[0.1, 0.2], [0.3, 0.3], [0.1, 0.1]], "interval").value == \
        krippendorff_alpha([[Fraction(1, 10), Fraction(2, 10)], [Fraction(3, 10)] * 2, [Fraction(1, 10)] * 2], "interval").value


# --- seed fidelity: the seed's own formula on the same matrix --------------------------------


def test_seed_path_on_a_matrix_with_missing_cells_is_reported_and_flagged():
    # exact alpha is undefined (no unit has two ratings): REPORT_ONLY. The seed's formula counts
    # every value in its marginals and finds no disagreeing pair: 1000 permil, ENFORCE.
    a = krippendorff_alpha([[None, 0], [None, 1]])
    assert a.value is None and a.seed_permil == 1000
    d = decide(2, a, [10, 10])
    assert d.verdict is Verdict.REPORT_ONLY and d.seed_verdict is Verdict.ENFORCE and d.seed_disagrees
    assert d.seed_alpha_permil == 1000 and d.seed_alpha_source == "matrix"


def test_seed_permil_is_the_seed_formula_on_the_matrix():
    rng = random.Random(12)
    for _ in range(300):
        nunits, nraters, ncat = rng.randint(1, 12), rng.randint(2, 5), rng.randint(1, 5)
        panel = [[rng.choice([None] + list(range(ncat))) for _ in range(nraters)] for _ in range(nunits)]
        a = krippendorff_alpha(panel)
        present = sorted({v for row in panel for v in row if v is not None})
        ids = [[-1 if v is None else present.index(v) for v in row] for row in panel]
        flat = [v for row in ids for v in row]
        assert a.seed_permil == literal_ab_alpha_permil(flat, nunits, nraters, len(present)), panel
