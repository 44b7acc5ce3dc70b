"""Mergeable sufficient statistics of a judge audit: what every engine returns (the SQL engines by
aggregating, the in-memory one from its per-case facts, :func:`from_facts`), and all that
:func:`agreebound.calibration.measure_counts` reads to measure the rates.

A judge audit's decision, its case-aware intervals and its diagnostics need only integers summed
over cases, never the observations themselves:

* per rate, its numerator and denominator, and over the cases that contribute to it (m_i > 0,
  y_i of m_i) the number of such cases k and the sums of y_i^2, y_i m_i and m_i^2: the cluster-robust
  variance's spread sum (N y_i - Y m_i)^2 expands to N^2 Syy - 2 N Y Sym + Y^2 Smm, exactly;
* the reference facts the contract checks: how many cases have each number of reviewers, how many
  are not adjudicated, and the first ids of each (sorted; ``ISSUE_IDS`` listed, the rest counted;
  which are issues depends on a threshold, so the judge's decide lists them:
  agreebound.calibration.reference_issues);
* the diagnostics: agreement on cases whose human reference is not a tie, the noisy flips, and the
  (human, majority "ab", majority "ba") patterns behind the judge-human alpha.

Counts of disjoint sets of cases **merge** by adding (and by keeping the first ids), so parts of a
snapshot read anywhere give the counts of the whole; :func:`from_cases` gives the same counts from
the in-memory measurement's per-case frame.

>>> from agreebound.calibration import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT, measure
>>> c = from_cases(measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT).cases)  # the seed's example
>>> c.n_cases, c.n_observations, c.rates["human_agreement"].numerator, c.reviewers, c.unadjudicated
(4, 16, 16, {2: 4}, 0)
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

#: How many case ids each reference issue lists (the rest are counted).
ISSUE_IDS = 1000
#: Reviewer counts at or above this are one bucket: minimum_reviewers is at most 100.
REVIEWER_CAP = 101
RATE_NAMES = ("human_agreement", "position_flip", "repeat_variance", "verbosity_bias", "self_preference")
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


def _first(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(heapq.nsmallest(ISSUE_IDS, {*a, *b}))


def _add(a: Mapping[Any, int], b: Mapping[Any, int]) -> dict[Any, int]:
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
        {name: a.rates[name] + b.rates[name] for name in RATE_NAMES},
        _add(a.reviewers, b.reviewers), {r: v for r, v in ids.items() if v},
        a.unadjudicated + b.unadjudicated, _first(a.unadjudicated_ids, b.unadjudicated_ids),
        (a.agreement_without_ties[0] + b.agreement_without_ties[0],
         a.agreement_without_ties[1] + b.agreement_without_ties[1]),
        a.noisy_flips + b.noisy_flips, _add(a.patterns, b.patterns),
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
         "verbosity_errors", "self_opportunities", "self_errors")


def _smallest(ids: np.ndarray) -> tuple[str, ...]:
    return tuple(heapq.nsmallest(ISSUE_IDS, ids.tolist()))


def from_facts(facts: Mapping[str, Any], only: np.ndarray | None = None) -> JudgeCounts:
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
    rates = {
        "human_agreement": rate_stats(col("agreements"), col("observations")),
        "position_flip": rate_stats(col("flipped"), col("flip_opportunity")),
        "repeat_variance": rate_stats(col("unstable_ab") + col("unstable_ba"), two),
        "verbosity_bias": rate_stats(col("verbosity_errors"), col("verbosity_opportunities")),
        "self_preference": rate_stats(col("self_errors"), col("self_opportunities")),
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
    return JudgeCounts(
        len(ids), int(col("observations").sum()), rates,
        {int(r): int(per_count[r]) for r in present}, reviewer_ids,
        int(unadj.sum()), _smallest(ids[unadj]),
        (int(col("agreements")[no_tie].sum()), int(col("observations")[no_tie].sum())),
        int(noisy.sum()), patterns,
    )


def from_cases(cases: Any) -> JudgeCounts:
    """The counts of a full audit's per-case frame (CalibrationMeasurement.cases)."""
    code = {label: i for i, label in enumerate(LABELS)}

    def codes(name: str) -> np.ndarray:
        return np.array([code.get(v, -1) if isinstance(v, str) else -1 for v in cases[name].astype(object)],
                        dtype=np.int64)

    labelled = ("preferred", "majority_ab", "majority_ba")
    return from_facts({name: codes(name) if name in labelled else cases[name].to_numpy() for name in FACTS})


def human_alpha_counts(counts: JudgeCounts) -> Any:
    """The judge-human alpha's panel counts (nominal): each case a unit of the human reference and
    the judge's majority in each order, from the pattern counts."""
    from agreebound.counts import from_rows

    units: dict[int, int] = {}
    pairs: dict[tuple[int, int, int], int] = {}
    totals = [0, 0, 0]
    raters: dict[tuple[str, int], int] = {}
    for pattern, n in counts.patterns.items():
        for rater, v in zip(("human", "judge ab", "judge ba"), pattern):
            if v >= 0:
                raters[(rater, v)] = raters.get((rater, v), 0) + n
        values = [v for v in pattern if v >= 0]
        m = len(values)
        units[m] = units.get(m, 0) + n
        hist = np.bincount(values, minlength=3) if values else np.zeros(3, dtype=np.int64)
        for c in range(3):
            totals[c] += int(hist[c]) * n
            for k in range(3):
                p = int(hist[c]) * int(hist[k]) - (int(hist[c]) if c == k else 0)
                if p and m > 1:
                    pairs[(m, c, k)] = pairs.get((m, c, k), 0) + p * n
    return from_rows("judge-human", "label", LABELS, units, [(m, c, k, n) for (m, c, k), n in pairs.items()],
                     totals, [(r, c, n) for (r, c), n in raters.items()])
