"""The Dawid-Skene rater model: crowd-kit's values on planted data and on Krippendorff's 2011
sample, and planted raters (a spammer, a lenient rater, a rater swapping two classes) found."""

from __future__ import annotations

import numpy as np
import pytest

from agreebound.panel.categories import encode
from agreebound.panel.rater_model import RaterCounts, dawid_skene, fit, rater_counts

LABELS = ("neg", "neu", "pos")
RATERS = ("good-1", "good-2", "good-3", "spammer", "lenient", "confused")


def planted(seed: int, n_units: int, present: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """(truth codes, units x raters object matrix of labels, None missing): three good raters
    (right 80%, else uniform over the other two), a spammer (uniform), a lenient rater (right on
    "pos" 95%; otherwise says "pos" half the time, else right), a confused rater (swaps "neg" and
    "neu" 80% of the time, right on "pos" 80%); each cell present with probability ``present``."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, size=n_units, p=[0.4, 0.3, 0.3])
    good = np.full((3, 3), 0.1) + np.eye(3) * 0.7
    spam = np.full((3, 3), 1 / 3)
    lenient = np.array([[0.5, 0.0, 0.5], [0.0, 0.5, 0.5], [0.025, 0.025, 0.95]])
    confused = np.array([[0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]])
    out = np.full((n_units, len(RATERS)), None, dtype=object)
    for j, conf in enumerate([good, good, good, spam, lenient, confused]):
        for u in range(n_units):
            said = rng.choice(3, p=conf[truth[u]])
            if rng.random() < present:
                out[u, j] = LABELS[said]
    return truth, out


# crowd-kit 1.4.1 (scikit-learn 1.8.0, pandas, numpy 2.4) in a scratch venv: DawidSkene(n_iter=100, tol=1e-5) on the
# long table (task "u00".., worker, label) of planted(1, 30), and of sample_data/krippendorff_2011.csv (NA missing);
# its errors_ read as confusion[worker][true][said] (labels sorted; 0 where the worker never said it), priors_, the
# max of probas_ per task, labels_, printed to 12 significant digits by a script like:
#   ds = DawidSkene(n_iter=100, tol=1e-5).fit(df); e = ds.errors_.loc[w]; e.loc[said, true]
# planted: 17 EM rounds, loss_history_[-1] = -1.6181059250389545; Krippendorff: 7 rounds, -1.727618204529543.
PEER_PLANTED_LABELS = ['neu', 'pos', 'neg', 'neu', 'neg', 'neu', 'pos', 'neu', 'neu', 'pos', 'pos', 'neu', 'neg', 'pos', 'neg', 'neu', 'neg', 'neu', 'neg', 'neg', 'pos', 'pos', 'neu', 'pos', 'pos', 'pos', 'neu', 'neg', 'neg', 'pos']
PEER_PLANTED_PRIOR = [0.296022626603, 0.336587806911, 0.367389566486]
PEER_PLANTED_CONFUSION = [[[0.563764060657, 0.436235939328, 1.46398848028e-11], [0.0999999999985, 0.899999999992, 9.99999999991e-12], [0.112998651527, 0.19865810803, 0.688343240443]], [[0.999931144485, 1.13411366186e-11, 6.88555040278e-05], [9.99999999981e-12, 0.99999999998, 9.99999999981e-12], [0.116193854527, 9.8207307791e-12, 0.883806145463]], [[0.502254181721, 0.250820509143, 0.246925309137], [0.246985718148, 0.617464295369, 0.135549986483], [0.202535385594, 0.101511001462, 0.695953612943]], [[0.242421708955, 0.126595706834, 0.630982584211], [0.999999999972, 1.40892017081e-11, 1.40892017081e-11], [0.453309562008, 0.363573382394, 0.183117055598]], [[0.507485933162, 1.26871483291e-11, 0.492514066825], [1.40892017083e-11, 0.704460085413, 0.295539914573], [9.07410226832e-12, 9.07410226832e-12, 0.999999999982]], [[1.13411366185e-11, 0.999999999977, 1.13411366185e-11], [0.666666666667, 0.111111111112, 0.222222222221], [1.22211416105e-11, 0.388942919463, 0.611057080525]]]
PEER_PLANTED_PROB = [1.0, 1.0, 0.999999999999, 0.999999999992, 1.0, 1.0, 1.0, 1.0, 1.0, 0.999645022085, 1.0, 1.0, 0.998686926846, 1.0, 1.0, 1.0, 0.959107427283, 1.0, 0.892728378075, 0.98680352869, 1.0, 0.999747847373, 1.0, 0.839145364187, 1.0, 0.999999999991, 0.999999999999, 1.0, 0.979524978167, 1.0]
PEER_KRIPPENDORFF_LABELS = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 3]
PEER_KRIPPENDORFF_PRIOR = [0.250000000004, 0.250000000003, 0.249999999987, 0.166666666669, 0.0833333333361]
PEER_KRIPPENDORFF_CONFUSION = [[[0.99999999985, 4.99999999925e-11, 4.99999999925e-11, 4.99999999925e-11, 0.0], [3.333333333e-11, 0.9999999999, 3.333333333e-11, 3.333333333e-11, 0.0], [4.99999999925e-11, 4.99999999925e-11, 0.99999999985, 4.99999999925e-11, 0.0], [0.49999999995, 4.9999999995e-11, 4.9999999995e-11, 0.49999999995, 0.0], [0.25, 0.25, 0.25, 0.25, 0.0]], [[0.9999999998, 4.999999999e-11, 4.999999999e-11, 4.999999999e-11, 4.999999999e-11], [3.33333333289e-11, 0.999999999867, 3.33333333289e-11, 3.33333333289e-11, 3.33333333289e-11], [3.33333333306e-11, 3.33333333306e-11, 0.999999999867, 3.33333333306e-11, 3.33333333306e-11], [4.99999999925e-11, 0.499999999925, 4.99999999925e-11, 0.499999999925, 4.99999999925e-11], [9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 0.9999999996]], [[0.499999999925, 0.499999999925, 4.99999999925e-11, 4.99999999925e-11, 4.99999999925e-11], [3.333333333e-11, 0.6666666666, 0.3333333333, 3.333333333e-11, 3.333333333e-11], [4.999999999e-11, 4.999999999e-11, 0.9999999998, 4.999999999e-11, 4.999999999e-11], [4.99999999925e-11, 4.99999999925e-11, 0.499999999925, 0.499999999925, 4.99999999925e-11], [9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 0.9999999996]], [[0.999999999867, 3.33333333289e-11, 3.33333333289e-11, 3.33333333289e-11, 3.33333333289e-11], [3.33333333289e-11, 0.999999999867, 3.33333333289e-11, 3.33333333289e-11, 3.33333333289e-11], [4.999999999e-11, 4.999999999e-11, 0.9999999998, 4.999999999e-11, 4.999999999e-11], [4.999999999e-11, 4.999999999e-11, 4.999999999e-11, 0.9999999998, 4.999999999e-11], [9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 9.999999996e-11, 0.9999999996]]]
PEER_KRIPPENDORFF_PROB = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.99999999985]

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _krippendorff() -> tuple[np.ndarray, tuple[str, ...]]:
    import pandas as pd

    k = pd.read_csv(ROOT / "sample_data" / "krippendorff_2011.csv")
    return k.drop(columns="unit").to_numpy(dtype=float), tuple(k.columns[1:])


def _majority(matrix: np.ndarray, labels: tuple) -> list:
    """Majority vote, ties to the first label in order (as crowd-kit's MajorityVote breaks them)."""
    out = []
    for row in matrix:
        votes = [sum(1 for v in row if v == lab) for lab in labels]
        out.append(labels[int(np.argmax(votes))])
    return out


def test_matches_crowd_kit_on_planted_data():
    _, matrix = planted(1, 30)
    m = dawid_skene(matrix, RATERS)
    assert m.labels() == PEER_PLANTED_LABELS
    assert (m.iterations, m.converged) == (17, True)
    assert m.elbo == pytest.approx(-1.6181059250389545, abs=1e-12)
    # printed to 12 significant digits; the two agree to 5e-13 here
    assert np.abs(m.confusion - np.array(PEER_PLANTED_CONFUSION)).max() < 1e-11
    assert np.abs(m.prior - np.array(PEER_PLANTED_PRIOR)).max() < 1e-11
    assert np.abs(m.label_probability - np.array(PEER_PLANTED_PROB)).max() < 1e-11


def test_matches_crowd_kit_on_krippendorffs_2011_sample():
    matrix, names = _krippendorff()
    m = dawid_skene(matrix, names)
    assert m.labels() == PEER_KRIPPENDORFF_LABELS == [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 3]
    assert (m.iterations, m.converged) == (7, True)
    assert m.elbo == pytest.approx(-1.727618204529543, abs=1e-12)
    assert np.abs(m.confusion - np.array(PEER_KRIPPENDORFF_CONFUSION)).max() < 1e-11
    assert np.abs(m.prior - np.array(PEER_KRIPPENDORFF_PRIOR)).max() < 1e-11
    assert np.abs(m.label_probability - np.array(PEER_KRIPPENDORFF_PROB)).max() < 1e-11
    # unit-06 (1, 2, 3, 4): majority vote's tie goes to 1, the model trusts observer-d's 4
    assert _majority(matrix, (1.0, 2.0, 3.0, 4.0, 5.0))[5] == 1.0 and m.labels()[5] == 4
    # every observer's agreement interval lies above 0; with about 10 ratings over 5 labels the
    # cross-fitted decoding has halves of 5 units, and observer-b's and observer-c's skill intervals
    # reach 0 (observer-b's from [0.000, 1.000] with its rater-named resamples: that few ratings say little)
    assert all(s.agreement_low is not None and s.agreement_low > 0 for s in m.skills)
    assert m.chance_raters() == ["observer-b", "observer-c"] and m.confused_raters() == []
    assert [round(s.skill, 3) for s in m.skills] == [0.848, 0.199, 0.25, 1.0]


#: planted(seed, 200), seeds 0..7: units the consensus gets right, and majority vote (ties to the first label).
DS_RIGHT = [188, 190, 187, 183, 184, 188, 184, 184]
MV_RIGHT = [175, 177, 170, 163, 162, 162, 169, 162]


def test_planted_raters_found_and_truth_recovered_better_than_majority_vote():
    for seed in range(8):
        truth, matrix = planted(seed, 200)
        m = dawid_skene(matrix, RATERS)
        right = sum(a == LABELS[t] for a, t in zip(m.labels(), truth))
        mv_right = sum(a == LABELS[t] for a, t in zip(_majority(matrix, LABELS), truth))
        assert (right, mv_right) == (DS_RIGHT[seed], MV_RIGHT[seed]), seed
        assert right > mv_right
        # skill measures information: the spammer is at chance, the swapper informative but confused
        assert m.chance_raters() == ["spammer"], seed
        assert m.confused_raters() == ["confused"], seed
        swap = m.skills[RATERS.index("confused")]
        assert swap.skill is not None and swap.agreement is not None and swap.low is not None
        assert swap.skill > 0.5 and abs(swap.agreement) < 0.11 and swap.low > 0.35, (seed, swap)
        for good in ("good-1", "good-2", "good-3", "lenient"):
            g = m.skills[RATERS.index(good)]  # labels that mean what they say: skill about = agreement
            assert g.skill is not None and g.agreement is not None and abs(g.skill - g.agreement) < 0.08, (seed, g)
    # mean accuracy over the 8 seeds: 0.9300 for the model, 0.8375 for majority vote
    assert sum(DS_RIGHT) / 1600 == 0.93 and sum(MV_RIGHT) / 1600 == 0.8375

    truth, matrix = planted(0, 200)
    m = dawid_skene(matrix, RATERS)
    spam = m.skills[RATERS.index("spammer")]
    assert spam.indistinguishable_from_chance and spam.low is not None and spam.high is not None
    assert spam.low < 0 < spam.high and m.chance_raters()[0] == "spammer"
    neg, neu, pos = 0, 1, 2
    lenient = m.confusion[RATERS.index("lenient")]  # planted: neg->pos 0.5, neu->pos 0.5, pos->pos 0.95
    assert lenient[neg, pos] > 0.3 and lenient[neu, pos] > 0.3 and lenient[pos, pos] > 0.9
    assert lenient[neg, neu] < 0.01 and lenient[neu, neg] < 0.01
    confused = m.confusion[RATERS.index("confused")]  # planted: neg<->neu 0.8, pos->pos 0.8
    assert confused[neg, neu] > 0.7 and confused[neu, neg] > 0.7 and confused[pos, pos] > 0.7
    good = m.confusion[RATERS.index("good-1")]
    assert min(good[k, k] for k in range(3)) > 0.7


def test_a_spammers_interval_includes_zero_about_95_percent_of_the_time():
    """The 95% interval of a uniform spammer's agreement (true value 0: its labels are independent
    of everything) covers 0 in 96 of 100 planted panels of 100 units (bootstrap 500; rater-named streams). Tolerance: the
    count must lie in 90..99 (the 95% binomial range for 100 draws at 0.95 is 91..99). Its skill's
    interval (decoded afresh in each resample) is conservative at chance: it covered 0 in all 100."""
    skills = [dawid_skene(planted(1000 + s, 100)[1], RATERS, bootstrap=500).skills[3] for s in range(100)]
    covered = sum(s.agreement_low is not None and s.agreement_high is not None
                  and s.agreement_low <= 0 <= s.agreement_high for s in skills)
    assert covered == COVERED and 90 <= covered <= 99
    assert sum(s.indistinguishable_from_chance for s in skills) == SKILL_COVERED
    # about 0: the mean of 100 skills has a standard error of about 0.0085 (SD 0.085 over 400 panels)
    assert abs(float(np.mean([s.skill for s in skills]))) < 0.03


SKILL_COVERED = 100
COVERED = 96


def test_deterministic_and_unrated_units():
    matrix = planted(3, 40)[1]
    matrix[5, :] = None
    a, b = dawid_skene(matrix, RATERS), dawid_skene(matrix, RATERS)
    assert np.array_equal(a.confusion, b.confusion) and a.skills == b.skills
    assert a.labels()[5] is None and np.isnan(a.label_probability[5]) and a.label[5] == -1
    assert np.isnan(a.posterior[5]).all() and not np.isnan(np.delete(a.posterior, 5, axis=0)).any()


def test_counts_feed_the_model_as_the_ratings_do():
    """Per-(unit, rater, label) counts (an engine's GROUP BY) fit as the matrix does; a repeated
    rating is a count of 2, as two rows of the long table are to crowd-kit."""
    matrix = planted(2, 50)[1]
    counts = rater_counts(encode(matrix), RATERS)
    assert np.array_equal(fit(counts).confusion, dawid_skene(matrix, RATERS).confusion)
    doubled = RaterCounts(counts.unit, counts.rater, counts.label, counts.count * 2, counts.n_units,
                          counts.raters, counts.labels)
    assert fit(doubled).labels() == fit(counts).labels()
    with pytest.raises(ValueError, match="at least 1"):
        RaterCounts(counts.unit, counts.rater, counts.label, counts.count * 0, counts.n_units, counts.raters,
                    counts.labels)


def test_a_lenient_rater_of_a_rare_class_is_informative_not_at_chance():
    """A rare class (10% 'pos'), a lenient rater who says 'pos' on every true 'pos' and on 20% of the
    'neg's: fewer than half its 'pos' are right (10 / 28 = 36%), yet its labels tell a lot. Decoded
    as "the true label most probable given what it said" every label would read 'neg' and its skill
    would be 0 (named at chance); decoded as "the true label most likely to make it say it", its
    skill equals its agreement and its interval is far above 0."""
    rng = np.random.default_rng(5)
    n = 400
    truth = np.where(rng.random(n) < 0.1, "pos", "neg")
    good = [np.where(rng.random(n) < 0.95, truth, np.where(truth == "pos", "neg", "pos")) for _ in range(3)]
    lenient = np.where(truth == "pos", "pos", np.where(rng.random(n) < 0.2, "pos", "neg"))
    matrix = np.column_stack(good + [lenient]).astype(object)
    m = dawid_skene(matrix, ["a", "b", "c", "lenient"], bootstrap=300)
    s = m.skills[3]
    right = float(np.mean(truth[lenient == "pos"] == "pos"))
    assert right < 0.5
    assert m.chance_raters() == [] and m.confused_raters() == []
    assert s.skill is not None and s.agreement is not None and s.low is not None
    assert abs(s.skill - s.agreement) < 0.02 and s.low > 0.2, s


def test_identical_raters_are_perfect_and_column_order_does_not_matter():
    """Three raters who agree on every unit: each skill 1 with the interval [1, 1] (a true label with no
    real mass in half the units is never decoded to); the same panel with its columns reversed gives
    each rater the same skill and interval (its resamples come from its name)."""
    rows = [["a"] * 3, ["b"] * 3, ["a"] * 3, ["c"] * 3, ["b"] * 3, ["a"] * 3]
    m = dawid_skene(rows, ["r1", "r2", "r3"])
    assert [(s.skill, s.low, s.high) for s in m.skills] == [(1.0, 1.0, 1.0)] * 3
    assert m.chance_raters() == []
    matrix, names = _krippendorff()
    forward = {s.rater: (round(s.skill, 12), round(s.low, 12), round(s.high, 12))
               for s in dawid_skene(matrix, names).skills}
    backward = {s.rater: (round(s.skill, 12), round(s.low, 12), round(s.high, 12))
                for s in dawid_skene(matrix[:, ::-1], names[::-1]).skills}
    assert forward == backward
