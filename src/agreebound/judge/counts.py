"""Mergeable sufficient statistics of a judge audit: what every engine returns (the SQL engines by
aggregating, the in-memory one from its per-case facts, :func:`from_facts`), and all that
:func:`agreebound.judge.measure.measure_counts` reads to measure the rates.

A judge audit's decision, its case-aware intervals and its diagnostics need only integers summed
over cases, never the observations themselves:

* per rate, its numerator and denominator, and over the cases that contribute to it (m_i > 0,
  y_i of m_i) the number of such cases k and the sums of y_i^2, y_i m_i and m_i^2: the cluster-robust
  variance's spread sum (N y_i - Y m_i)^2 expands to N^2 Syy - 2 N Y Sym + Y^2 Smm, exactly;
* the reference facts the contract checks: how many cases have each number of reviewers, how many
  are not adjudicated, and the first ids of each (sorted; ``ISSUE_IDS`` listed, the rest counted;
  which are issues depends on a threshold, so the judge's decide lists them:
  agreebound.judge.decide.reference_issues);
* the diagnostics: agreement on cases whose human reference is not a tie, the noisy flips, and the
  (human, majority "ab", majority "ba") patterns behind the judge-human alpha.

Counts of disjoint sets of cases **merge** by adding (and by keeping the first ids), so parts of a
snapshot read anywhere give the counts of the whole; :func:`from_cases` gives the same counts from
the in-memory measurement's per-case frame.

>>> from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT
>>> from agreebound.judge.measure import measure
>>> c = from_cases(measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT).cases)  # the seed's example
>>> c.n_cases, c.n_observations, c.rates["human_agreement"].numerator, c.reviewers, c.unadjudicated
(4, 16, 16, {2: 4}, 0)
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, TypeVar

import numpy as np
import numpy.typing as npt

from agreebound.judge.columns import count_rows

if TYPE_CHECKING:
    import pandas as pd

#: How many case ids each reference issue lists (the rest are counted).
ISSUE_IDS = 1000
#: Reviewer counts at or above this are one bucket: minimum_reviewers is at most 100.
REVIEWER_CAP = 101
RATE_NAMES = ("human_agreement", "position_flip", "repeat_variance", "verbosity_bias", "self_preference")
#: The rates beside the seed's five that tell bias from disagreement (agreebound.judge.bias reads them):
#:
#: * ``first_slot``: decisive verdicts (a or b) that pick the first-shown candidate ("a" in order ab,
#:   "b" in ba), over decisive verdicts;
#: * ``flip_decisive``: cases whose both orders are stable and decisive and name different candidates,
#:   over such cases (the flip rate among decisive pairs; the seed's counts ties);
#: * ``verbosity_mirror``: the seed's verbosity error mirrored: the judge picks the shorter candidate
#:   when the humans preferred the longer one, over the verdicts on such cases;
#: * ``judge_longer``: verdicts that pick the longer candidate, over the verdicts on cases of unequal
#:   lengths whose human reference is not a tie;
#: * ``length_excess``: on the same cases, sum over cases of (judge's longer picks - the verdicts a
#:   human pick of the longer would give), a signed numerator: P(judge picks longer) - P(humans pick
#:   longer), weighted by verdicts;
#: * ``self_control``: the judge picks the human-rejected candidate on cases with no candidate of its
#:   own whose human reference is not a tie;
#: * ``flip_pairs``: the position flip per pair of repetitions, as peers pair judgments: every
#:   decisive verdict of order ab with every decisive verdict of order ba of the same case (r x r
#:   pairs with r repetitions each; with one judgment per order, the one pair), the pairs whose
#:   verdicts name different candidates over such pairs. Unlike ``flip_decisive`` it keeps the
#:   cases whose repetitions disagree, so a noisy judge never reads clean on position.
EXTRA_RATE_NAMES = ("first_slot", "flip_decisive", "verbosity_mirror", "judge_longer", "length_excess",
                    "self_control", "flip_pairs")
ALL_RATE_NAMES = RATE_NAMES + EXTRA_RATE_NAMES
LABELS = ("a", "b", "tie")


@dataclass(frozen=True)
class RateStats:
    """One rate's numerator/denominator and its per-case sums (cases with m_i > 0)."""

    numerator: int
    denominator: int
    k: int
    syy: int
    sym: int
    smm: int

    def __add__(self, other: "RateStats") -> "RateStats":
        return RateStats(*(a + b for a, b in zip(self.astuple(), other.astuple())))

    def astuple(self) -> tuple[int, int, int, int, int, int]:
        return (self.numerator, self.denominator, self.k, self.syy, self.sym, self.smm)

    def spread(self) -> int:
        """N^2 sum_i (y_i - theta m_i)^2 with theta = Y / N, exactly: the cluster-robust variance's
        sum of squared residuals, expanded over the case sums (N^2 Syy - 2 N Y Sym + Y^2 Smm); the
        one place it is written (agreebound.panel.intervals's design effect, agreebound.judge.bias's
        variances).

        >>> RateStats(3, 8, k=2, syy=5, sym=12, smm=32).spread()  # cases 2/4 and 1/4: 64 * (0.25 + 0.25)
        32
        """
        n, y = self.denominator, self.numerator
        return n * n * self.syy - 2 * n * y * self.sym + y * y * self.smm


@dataclass(frozen=True)
class JudgeCounts:
    n_cases: int
    n_observations: int
    rates: Mapping[str, RateStats]
    #: reviewers per case (capped at REVIEWER_CAP) -> number of cases
    reviewers: Mapping[int, int]
    #: reviewers per case (below the cap) -> the first ISSUE_IDS case ids, sorted
    reviewer_ids: Mapping[int, tuple[str, ...]] = field(repr=False)
    unadjudicated: int
    unadjudicated_ids: tuple[str, ...] = field(repr=False)
    #: agreements / observations over the cases whose human reference is not a tie
    agreement_without_ties: tuple[int, int]
    noisy_flips: int
    #: (human, majority ab, majority ba) as indices into LABELS (-1: none) -> number of cases
    patterns: Mapping[tuple[int, int, int], int]
    #: cases whose both orders are stable and pick the first-shown candidate in each ("a" then "b"),
    #: and the second-shown in each ("b" then "a"): McNemar's discordant pairs
    first_both: int = 0
    second_both: int = 0
    #: the cases behind ``self_preference`` (the judge's own candidate rejected) and ``self_control``
    #: (no candidate of its own) whose human-rejected candidate is the longer one: the two sets' mix
    self_rejected_longer: int = 0
    control_rejected_longer: int = 0
    #: the judge's and the humans' verdicts per case, for the corrected headline
    #: (agreebound.judge.headline): (first model, second model, labelled, verdicts m, judge's score w,
    #: human y) -> cases, where the models are the case's two generators in sorted order, w is
    #: 2 x the judge's verdicts for the first model + its ties (its score w / 2m in [0, 1]), and y is
    #: 2 (the humans preferred the first model), 1 (a tie) or 0 (-1: no human reference)
    verdicts: Mapping[tuple[str, str, bool, int, int, int], int] = field(default_factory=dict, repr=False)
    #: cases whose decisive verdicts pick the first-shown candidate more often than the second-shown,
    #: and less often: the first-slot rate's sign test over cases (verdicts of one case are not
    #: independent; cases are)
    first_lean: int = 0
    second_lean: int = 0


def _first(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(heapq.nsmallest(ISSUE_IDS, {*a, *b}))


#: What a count is kept by: a reviewer count, a pattern of labels, a pair's verdicts (sortable keys).
_Key = TypeVar("_Key", int, tuple[int, int, int], tuple[str, str, bool, int, int, int])


def _add(a: Mapping[_Key, int], b: Mapping[_Key, int]) -> dict[_Key, int]:
    out = dict(a)
    for key, n in b.items():
        out[key] = out.get(key, 0) + n
    return {k: v for k, v in sorted(out.items()) if v}


def merge(a: JudgeCounts, b: JudgeCounts) -> JudgeCounts:
    """The counts of both (disjoint sets of cases): associative and commutative."""
    ids = {r: _first(a.reviewer_ids.get(r, ()), b.reviewer_ids.get(r, ()))
           for r in sorted({*a.reviewer_ids, *b.reviewer_ids})}
    return JudgeCounts(
        a.n_cases + b.n_cases, a.n_observations + b.n_observations,
        {name: a.rates[name] + b.rates[name] for name in ALL_RATE_NAMES},
        _add(a.reviewers, b.reviewers), {r: v for r, v in ids.items() if v},
        a.unadjudicated + b.unadjudicated, _first(a.unadjudicated_ids, b.unadjudicated_ids),
        (a.agreement_without_ties[0] + b.agreement_without_ties[0],
         a.agreement_without_ties[1] + b.agreement_without_ties[1]),
        a.noisy_flips + b.noisy_flips, _add(a.patterns, b.patterns),
        a.first_both + b.first_both, a.second_both + b.second_both,
        a.self_rejected_longer + b.self_rejected_longer, a.control_rejected_longer + b.control_rejected_longer,
        _add(a.verdicts, b.verdicts), a.first_lean + b.first_lean, a.second_lean + b.second_lean,
    )


def rate_stats(y: np.ndarray, m: np.ndarray) -> RateStats:
    """A rate's sums over the cases that contribute to it (m > 0): y of m each.

    >>> rate_stats(np.array([2, 0, 1]), np.array([4, 0, 4]))  # two cases of 4 observations, 3 of 8 in all
    RateStats(numerator=3, denominator=8, k=2, syy=5, sym=12, smm=32)
    """
    keep = np.asarray(m) > 0
    y, m = np.asarray(y, dtype=np.int64)[keep], np.asarray(m, dtype=np.int64)[keep]
    if len(m) == 0:
        return RateStats(0, 0, 0, 0, 0, 0)
    ys, ms = int(y.sum()), int(m.sum())
    if max(int(y.max()), int(m.max())) * (ys + ms) < 2**63:  # every product and sum fits in int64
        return RateStats(ys, ms, len(m), int((y * y).sum()), int((y * m).sum()), int((m * m).sum()))
    yl, ml = y.tolist(), m.tolist()  # Python integers: exact at any size
    return RateStats(ys, ms, len(ml), sum(v * v for v in yl), sum(a * b for a, b in zip(yl, ml)), sum(v * v for v in ml))


#: The per-case facts the counts are summed from: the columns of CalibrationMeasurement.cases, with
#: the labels (preferred, majority_ab, majority_ba) as indices into LABELS (-1: none).
FACTS = ("case_id", "preferred", "reviewers", "adjudicated", "observations", "agreements", "majority_ab",
         "majority_ba", "unstable_ab", "unstable_ba", "flip_opportunity", "flipped", "verbosity_opportunities",
         "verbosity_errors", "self_opportunities", "self_errors",
         # beside the seed's (EXTRA_RATE_NAMES, the McNemar pairs, the mix, the verdicts)
         "decisive", "first_picks", "decisive_pair", "first_both", "second_both", "mirror_opportunities",
         "mirror_errors", "length_observations", "longer_picks", "human_longer", "control_opportunities",
         "control_errors", "rejected_longer", "has_reference", "a_generator", "b_generator", "a_votes", "b_votes",
         "tie_votes", "pair_flips", "pair_decisive")
#: The facts that name a generator (strings; "" when the source does not say).
NAMED = ("a_generator", "b_generator")


def _smallest(ids: np.ndarray) -> tuple[str, ...]:
    return tuple(heapq.nsmallest(ISSUE_IDS, ids.tolist()))


def from_facts(facts: Mapping[str, npt.ArrayLike], only: np.ndarray | None = None) -> JudgeCounts:
    """The counts of an audit's per-case facts (:data:`FACTS`; ``only``: a mask of the cases to
    count): what the in-memory engine returns, the same counts as the SQL engines' aggregation of
    the same cases."""
    def col(name: str) -> np.ndarray:
        v = np.asarray(facts[name]).astype(np.int64)
        return v if only is None else v[only]

    def flags(name: str) -> np.ndarray:
        v = np.asarray(facts[name], dtype=bool)
        return v if only is None else v[only]

    two = np.full(len(col("observations")), 2, dtype=np.int64)
    human_longer = col("human_longer") * col("length_observations")
    rates = {
        "human_agreement": rate_stats(col("agreements"), col("observations")),
        "position_flip": rate_stats(col("flipped"), col("flip_opportunity")),
        "repeat_variance": rate_stats(col("unstable_ab") + col("unstable_ba"), two),
        "verbosity_bias": rate_stats(col("verbosity_errors"), col("verbosity_opportunities")),
        "self_preference": rate_stats(col("self_errors"), col("self_opportunities")),
        "first_slot": rate_stats(col("first_picks"), col("decisive")),
        "flip_decisive": rate_stats(col("first_both") + col("second_both"), col("decisive_pair")),
        "verbosity_mirror": rate_stats(col("mirror_errors"), col("mirror_opportunities")),
        "judge_longer": rate_stats(col("longer_picks"), col("length_observations")),
        "length_excess": rate_stats(col("longer_picks") - human_longer, col("length_observations")),
        "self_control": rate_stats(col("control_errors"), col("control_opportunities")),
        "flip_pairs": rate_stats(col("pair_flips"), col("pair_decisive")),
    }
    ids = np.asarray(facts["case_id"], dtype=object)
    ids = ids if only is None else ids[only]
    reviewers = np.minimum(col("reviewers"), REVIEWER_CAP)
    per_count = np.bincount(reviewers, minlength=REVIEWER_CAP + 1) if len(reviewers) else np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(per_count)
    reviewer_ids = {int(r): _smallest(ids[reviewers == r]) for r in present if r < REVIEWER_CAP}
    unadj = ~flags("adjudicated")
    human, ab, ba = col("preferred"), col("majority_ab"), col("majority_ba")
    no_tie = human != LABELS.index("tie")
    unstable = flags("unstable_ab") | flags("unstable_ba")
    noisy = unstable & (ab >= 0) & (ba >= 0) & (ab != ba)
    # each (human, ab, ba) in -1..2 as one base-4 digit each: ascending keys are the patterns in order
    key = np.bincount((human + 1) * 16 + (ab + 1) * 4 + (ba + 1), minlength=64) if len(human) else np.zeros(64, int)
    patterns = {(k // 16 - 1, k // 4 % 4 - 1, k % 4 - 1): int(key[k]) for k in np.flatnonzero(key).tolist()}
    rejected_longer = flags("rejected_longer")
    names = {n: (lambda v: v if only is None else v[only])(np.asarray(facts[n], dtype=object)) for n in NAMED}
    return JudgeCounts(
        len(ids), int(col("observations").sum()), rates,
        {int(r): int(per_count[r]) for r in present}, reviewer_ids,
        int(unadj.sum()), _smallest(ids[unadj]),
        (int(col("agreements")[no_tie].sum()), int(col("observations")[no_tie].sum())),
        int(noisy.sum()), patterns,
        int(col("first_both").sum()), int(col("second_both").sum()),
        int((rejected_longer & (col("self_opportunities") > 0)).sum()),
        int((rejected_longer & (col("control_opportunities") > 0)).sum()),
        verdict_cells(names["a_generator"], names["b_generator"], flags("has_reference"), human,
                      col("a_votes"), col("b_votes"), col("tie_votes")),
        int((2 * col("first_picks") > col("decisive")).sum()), int((2 * col("first_picks") < col("decisive")).sum()),
    )


#: The name of each candidate when the source names no generators: the headline is then per slot.
UNNAMED = ("candidate a", "candidate b")


def verdict_cells(a_gen: np.ndarray, b_gen: np.ndarray, labelled: np.ndarray, human: np.ndarray,
                  a_votes: np.ndarray, b_votes: np.ndarray, ties: np.ndarray) -> dict[tuple[str, str, bool, int, int, int], int]:
    """The judge's and the humans' verdicts per case as counted cells (:attr:`JudgeCounts.verdicts`):
    each case's two models in sorted order, the judge's score for the first (2 x its verdicts for it
    + its ties, of 2m) and the humans' (2, 1 or 0; -1 without a reference). A case whose candidates
    share a generator compares no pair and is not counted; a source that names no generators counts
    every case under :data:`UNNAMED`.

    >>> verdict_cells(np.array(["m2"]), np.array(["m1"]), np.array([True]), np.array([1]), np.array([1]),
    ...               np.array([2]), np.array([1]))  # m1 is candidate b: 2 of 4 verdicts and 1 tie; humans chose b
    {('m1', 'm2', True, 4, 5, 2): 1}
    """
    a = np.array(["" if v is None else str(v) for v in a_gen], dtype=object)
    b = np.array(["" if v is None else str(v) for v in b_gen], dtype=object)
    unnamed = (a == "") & (b == "")
    a[unnamed], b[unnamed] = UNNAMED
    m = np.asarray(a_votes + b_votes + ties, dtype=np.int64)
    keep = (a != b) & (m > 0)
    first_is_a = a <= b
    w = 2 * np.where(first_is_a, a_votes, b_votes) + ties
    first_won = np.where(first_is_a, human == 0, human == 1)
    y = np.where(~np.asarray(labelled, dtype=bool), -1, np.where(human == 2, 1, np.where(first_won, 2, 0)))
    cells = count_rows({"first": np.where(first_is_a, a, b)[keep], "second": np.where(first_is_a, b, a)[keep],
                        "labelled": np.asarray(labelled, dtype=bool)[keep], "m": m[keep], "w": w[keep], "y": y[keep]})
    return {(str(f), str(s), bool(lab), int(mm), int(ww), int(yy)): n for (f, s, lab, mm, ww, yy), n in cells.items()}


def from_cases(cases: "pd.DataFrame") -> JudgeCounts:
    """The counts of a full audit's per-case frame (CalibrationMeasurement.cases)."""
    code = {label: i for i, label in enumerate(LABELS)}

    def codes(name: str) -> np.ndarray:
        return np.array([code.get(v, -1) if isinstance(v, str) else -1 for v in cases[name].astype(object)],
                        dtype=np.int64)

    labelled = ("preferred", "majority_ab", "majority_ba")
    return from_facts({name: codes(name) if name in labelled else cases[name].to_numpy() for name in FACTS})
