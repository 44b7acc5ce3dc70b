"""Agreement with the humans as Zheng et al. (2023) count it, beside the audit's own, with Cohen's
kappa and the human-human ceiling: pure functions over per-case labels and per-vote counts.

Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena" (NeurIPS 2023), Table 2,
counted by FastChat's ``fastchat/llm_judge/compute_agreement.py`` (read for this module):

* a vote is keyed by (question, model pair in sorted order, turn): one of our cases; each vote is
  turned to face the sorted pair, so agreement does not depend on which model was shown as A;
* the GPT-4 pair judge has **one vote per key** (``assert len(votes[judge1]) == 1``): its verdict
  when both presentation orders agree, "tie (inconsistent)" when they do not (FastChat's
  ``load_pairwise_model_judgments``: ``g1_winner == g2_winner`` else "inconsistent");
* **with ties**: every (judge vote, human vote) pair on a key counts; two votes agree when they are
  equal or both are ties (``equalvote``: any label containing "tie" is a tie, "tie (bothbad)" too);
* **without ties**: a pair is left out when *either* side is a tie (``ban=["tie"]`` applied to the
  judge's vote and to the human's);
* **human-human**: every pair of two different votes (i < j) on a key, with and without ties alike;
* "human" is the expert votes (judge ids ``expert_*``); the authors' (``author_*``) are a third
  group that Table 2 leaves out. This module counts whatever votes it is given: who votes is the
  caller's choice (the reproduction test keeps the experts'; a report counts every voter).

The audit's own "agreement without ties" (:attr:`agreebound.judge.counts.JudgeCounts.agreement_without_ties`)
is another number: every judgment (each order, each repetition) against the plurality of the human
votes, over the cases whose plurality is not a tie (a judge's tie there counts as a disagreement).
This module names it ``reference_not_tie``.

The judge's one vote per case (:func:`judge_votes`), from the majority of each presentation order
(-1 where an order has no single majority or no judgment): the orders' common choice; a tie when
they differ (FastChat's "inconsistent") or when neither names one. An order without a majority
does not contradict the other: a log read in one order (or with a failed game left out) keeps the
judgment it has. With one judgment per order this is FastChat's rule exactly.

Intervals treat the **case** as the unit that was sampled (its votes and pairs are not independent):
each agreement rate is a ratio of per-case sums, y_i agreeing of m_i pairs, with the audit's
cluster-robust interval (:func:`agreebound.core.intervals.rate_interval`: Wilson at the effective
number of pairs); the difference between the judge-human and the human-human rate is linearised
over the same cases, kappa's variance is the delete-one-case jackknife's, both with Student's t
at (cases - 1) degrees of freedom.

A hand-worked case set: case 1 (judge a; humans a, a, b), case 2 (judge tie; humans tie, b),
case 3 (judge b; humans b). Judge-human with ties: 2 + 1 + 1 agree of 3 + 2 + 1 = 4/6; without
ties: 2 of 3 (case 1) + none (case 2: the judge's tie) + 1 of 1 = 3/4. Human-human with ties: case 1
has 3 pairs, 1 agreeing (a, a); case 2 has 1 pair, disagreeing: 1/4; without ties 1/3 (case 2's pair
holds a tie):

>>> from fractions import Fraction
>>> judge = np.array([0, 2, 1])
>>> humans = np.array([[2, 1, 0], [0, 1, 1], [0, 1, 0]])  # per case: votes for a, b, tie
>>> [Fraction(int(y.sum()), int(m.sum())) for y, m in (judge_human_sums(judge, humans, ties=True),
...                                                    judge_human_sums(judge, humans, ties=False),
...                                                    human_human_sums(humans, ties=True),
...                                                    human_human_sums(humans, ties=False))]
[Fraction(2, 3), Fraction(3, 4), Fraction(1, 4), Fraction(1, 3)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from agreebound.core.intervals import Z95, RateInterval, rate_interval
from agreebound.core.contrast import quantile, ratio_contrast
from agreebound.judge.counts import LABELS, RateStats, rate_stats

TIE = LABELS.index("tie")

#: What each named rate counts, in words (the reports quote them).
DEFINITIONS = {
    "judge_human_with_ties": "every pair of the judge's vote on a case and one human vote on it; a tie agrees "
                             "with a tie (Zheng et al. 2023, Table 2, with ties)",
    "judge_human_without_ties": "the same pairs, leaving out every pair in which either side is a tie (Zheng et al. "
                                "2023, Table 2, without ties)",
    "human_human_with_ties": "every pair of two different human votes on the same case; a tie agrees with a tie "
                             "(the human-human ceiling, with ties)",
    "human_human_without_ties": "the same pairs, leaving out every pair in which either vote is a tie (the "
                                "human-human ceiling, without ties)",
    "reference_not_tie": "every judgment (each order, each repetition) against the plurality of the human votes, "
                         "over the cases whose plurality is not a tie; a judge's tie there disagrees (the audit's "
                         "'agreement without ties', not the paper's)",
}
#: The judge's one vote per case, in words.
JUDGE_VOTE = ("the judge's vote on a case: its choice when the two presentation orders' majorities agree, a tie "
              "when they differ (Zheng et al.'s 'inconsistent'); an order without a single majority is left out")
KAPPA_DEFINITION = ("Cohen's kappa between the human reference (the plurality of the votes) and the judge's vote "
                    "on each case, over the labels a, b, tie; 95% interval: the delete-one-case jackknife, Student's t")
PAPER_RATES = ("judge_human_with_ties", "judge_human_without_ties", "human_human_with_ties", "human_human_without_ties")


def judge_votes(majority_ab: np.ndarray, majority_ba: np.ndarray) -> np.ndarray:
    """The judge's one vote per case from each order's majority (indices into LABELS, -1: none).

    >>> judge_votes(np.array([0, 0, 1, -1, -1]), np.array([0, 1, -1, 1, -1])).tolist()
    [0, 2, 1, 1, 2]
    """
    ab, ba = np.asarray(majority_ab, dtype=np.int64), np.asarray(majority_ba, dtype=np.int64)
    both = (ab >= 0) & (ba >= 0)
    one = np.where(ab >= 0, ab, np.where(ba >= 0, ba, TIE))
    return np.where(both, np.where(ab == ba, ab, TIE), one)


def vote_counts(case_index: np.ndarray, labels: np.ndarray, n_cases: int) -> np.ndarray:
    """Each case's votes for a, b and tie: an (n_cases, 3) integer array.

    >>> vote_counts(np.array([0, 0, 1]), np.array([0, 2, 2]), 2).tolist()
    [[1, 0, 1], [0, 0, 1]]
    """
    case_index, labels = np.asarray(case_index, dtype=np.int64), np.asarray(labels, dtype=np.int64)
    flat = np.bincount(case_index * 3 + labels, minlength=n_cases * 3)
    return flat.reshape(n_cases, 3).astype(np.int64)


def _pairs(n: np.ndarray) -> np.ndarray:
    return n * (n - 1) // 2


def judge_human_sums(judge: np.ndarray, humans: np.ndarray, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per case: the (judge vote, human vote) pairs that agree, and the pairs counted. ``judge``: the
    judge's vote per case (index into LABELS); ``humans``: the votes per case for a, b, tie."""
    judge, humans = np.asarray(judge, dtype=np.int64), np.asarray(humans, dtype=np.int64)
    agree = humans[np.arange(len(judge)), judge] if len(judge) else np.zeros(0, dtype=np.int64)
    if ties:
        return agree, humans.sum(axis=1)
    decisive = judge != TIE
    return np.where(decisive, agree, 0), np.where(decisive, humans[:, 0] + humans[:, 1], 0)


def human_human_sums(humans: np.ndarray, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per case: the pairs of two different human votes that agree, and the pairs counted."""
    h = np.asarray(humans, dtype=np.int64).reshape(-1, 3)
    if ties:
        return _pairs(h).sum(axis=1), _pairs(h.sum(axis=1))
    return _pairs(h[:, 0]) + _pairs(h[:, 1]), _pairs(h[:, 0] + h[:, 1])


# --- the rates and their intervals --------------------------------------------------------------


@dataclass(frozen=True)
class AgreementRate:
    """A named agreement rate: its per-case sums and its case-clustered 95% interval (None when
    nothing was counted)."""

    name: str
    stats: RateStats
    interval: RateInterval | None

    @property
    def numerator(self) -> int:
        return self.stats.numerator

    @property
    def denominator(self) -> int:
        return self.stats.denominator

    @property
    def value(self) -> Fraction | None:
        return None if self.denominator == 0 else Fraction(self.numerator, self.denominator)

    @property
    def definition(self) -> str:
        return DEFINITIONS[self.name]


def agreement_rate(name: str, y: np.ndarray, m: np.ndarray, z: float = Z95) -> AgreementRate:
    """A rate from its per-case sums (y_i of m_i), with the audit's cluster-robust interval."""
    stats = rate_stats(np.asarray(y), np.asarray(m))
    interval = None if stats.denominator == 0 else rate_interval(name, stats.numerator, stats.denominator, stats, z)
    return AgreementRate(name, stats, interval)


@dataclass(frozen=True)
class Difference:
    """One rate minus another over the same cases, with a 95% interval that resamples cases."""

    name: str
    exact: Fraction | None
    low: float | None
    high: float | None
    cases: int

    @property
    def value(self) -> float | None:
        return None if self.exact is None else float(self.exact)


def difference(name: str, first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray],
               z: float = Z95) -> Difference:
    """p1 - p2 for two ratio estimators p = sum y_i / sum m_i over the same cases, with the
    linearised cluster-robust variance of :func:`ratio_contrast` (coefficients +1 and -1): with
    e_i = (y1_i - p1 m1_i) / N1 - (y2_i - p2 m2_i) / N2 over the k cases that count in either,
    v = k / (k - 1) * sum e_i^2 and the interval d +- t sqrt(v), t Student's quantile at k - 1
    degrees of freedom (a few cases make the variance itself uncertain; at 40 cases t = 2.02 against
    z = 1.96); no interval for fewer than two cases.

    Two cases: 2 of 2 and 1 of 2 against 1 of 1 and 0 of 1: p1 = 3/4, p2 = 1/2, d = 1/4;
    e = (0.5/4 - 0.5/2, -0.5/4 + 0.5/2) = (-1/8, 1/8), v = 2 * 2/64 = 1/16, half = t(1 df) * 1/4
    = 12.706 / 4, the interval within [-1, 1] (a difference of two shares):

    >>> d = difference("x", (np.array([2, 1]), np.array([2, 2])), (np.array([1, 0]), np.array([1, 1])))
    >>> d.exact, round(d.low, 3), round(d.high, 3)
    (Fraction(1, 4), -1.0, 1.0)
    """
    y1, m1 = (np.asarray(v, dtype=np.int64) for v in first)
    y2, m2 = (np.asarray(v, dtype=np.int64) for v in second)
    c = ratio_contrast(((1, y1, m1), (-1, y2, m2)), z)
    if c.exact is None:
        return Difference(name, None, None, None, 0)
    if c.low is None or c.high is None:
        return Difference(name, c.exact, None, None, c.clusters)
    return Difference(name, c.exact, max(-1.0, c.low), min(1.0, c.high), c.clusters)  # a difference of shares


# --- Cohen's kappa ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa of two labellings of the same cases (the human reference, the judge's vote),
    its jackknife 95% interval, and the confusion it was read from (rows: the reference)."""

    exact: Fraction | None
    low: float | None
    high: float | None
    cases: int
    confusion: tuple[tuple[int, ...], ...]

    @property
    def value(self) -> float | None:
        return None if self.exact is None else float(self.exact)

    @property
    def definition(self) -> str:
        return KAPPA_DEFINITION


def kappa_of(confusion: np.ndarray) -> Fraction | None:
    """Cohen's kappa, exactly: (p_o - p_e) / (1 - p_e); None when p_e = 1 (one label only) or no cases.

    Cohen (1960): 3 a/a, 1 a/b, 1 b/a, 5 b/b gives p_o = 8/10, p_e = (4 * 4 + 6 * 6) / 100 = 13/25,
    kappa = (20/25 - 13/25) / (12/25) = 7/12:

    >>> kappa_of(np.array([[3, 1, 0], [1, 5, 0], [0, 0, 0]]))
    Fraction(7, 12)
    """
    c = np.asarray(confusion, dtype=object)
    n = int(c.sum())
    if n == 0:
        return None
    agree = sum(int(c[i, i]) for i in range(c.shape[0]))
    rows, cols = [int(x) for x in c.sum(axis=1)], [int(x) for x in c.sum(axis=0)]
    expected = sum(r * k for r, k in zip(rows, cols))  # n^2 p_e
    if expected == n * n:
        return None
    return Fraction(n * agree - expected, n * n - expected)


def cohen_kappa(confusion: np.ndarray, z: float = Z95) -> Kappa:
    """Kappa with the delete-one-case jackknife's interval (clipped to [-1, 1]): leaving out one case
    of cell (r, c) gives kappa_(rc); with kbar their mean over the n cases,
    v = (n - 1) / n * sum n_rc (kappa_(rc) - kbar)^2 and the interval kappa +- t sqrt(v), t Student's
    quantile at n - 1 degrees of freedom. No interval when a case left out leaves kappa undefined,
    or for fewer than three cases."""
    c = np.asarray(confusion, dtype=np.int64)
    n = int(c.sum())
    k = kappa_of(c)
    frozen = tuple(tuple(int(x) for x in row) for row in c)
    if k is None or n < 3:
        return Kappa(k, None, None, n, frozen)
    leave: list[tuple[int, float]] = []
    for (r, col), count in np.ndenumerate(c):
        if count == 0:
            continue
        c[r, col] -= 1
        kk = kappa_of(c)
        c[r, col] += 1
        if kk is None:
            return Kappa(k, None, None, n, frozen)
        leave.append((int(count), float(kk)))
    mean = sum(w * v for w, v in leave) / n
    var = (n - 1) / n * sum(w * (v - mean) ** 2 for w, v in leave)
    half = quantile(z, n - 1) * math.sqrt(var)
    return Kappa(k, max(-1.0, float(k) - half), min(1.0, float(k) + half), n, frozen)


def kappa_from_patterns(patterns: Mapping[tuple[int, int, int], int], z: float = Z95) -> Kappa:
    """Kappa of the human reference and the judge's vote (:func:`judge_votes`) from an audit's
    (human, majority ab, majority ba) pattern counts (agreebound.judge.counts.JudgeCounts.patterns):
    every engine's counts give the same kappa. Cases without a reference (human -1) are left out."""
    confusion = np.zeros((3, 3), dtype=np.int64)
    for (human, ab, ba), n in patterns.items():
        if human >= 0:
            confusion[human, int(judge_votes(np.array([ab]), np.array([ba]))[0])] += n
    return cohen_kappa(confusion, z)


# --- every figure of a log with per-vote human labels --------------------------------------------


@dataclass(frozen=True)
class HumanAgreement:
    """A pairwise judge against individual human votes: the paper's two agreement rates, the
    human-human ceiling (both definitions), the audit's reference-not-tie rate, and the
    differences judge-human minus human-human."""

    votes: int
    voters: int
    cases: int
    rates: Mapping[str, AgreementRate]
    differences: Mapping[str, Difference]

    def sentences(self) -> list[str]:
        """"The judge agrees with the humans as often as they agree with each other: 66.0% [..] vs
        63.0% [..], difference +3.0 points [..]", with and without ties (plain text)."""
        out = []
        for ties in ("with_ties", "without_ties"):
            judge, human = self.rates[f"judge_human_{ties}"], self.rates[f"human_human_{ties}"]
            d = self.differences[ties]
            words = ties.replace("_", " ")
            if judge.value is None or human.value is None or d.value is None:
                what = "the judge" if judge.value is None else "two humans"
                out.append(f"{words.capitalize()}: no pair of votes to compare for {what}.")
                continue
            if d.low is None or d.high is None:
                verdict = "the difference has no interval (fewer than two cases)"
            elif d.low > 0:
                verdict = "the judge agrees with the humans more often than they agree with each other"
            elif d.high < 0:
                verdict = "the judge agrees with the humans less often than they agree with each other"
            elif d.low >= -AS_OFTEN and d.high <= AS_OFTEN:
                verdict = (f"the judge agrees with the humans as often as they agree with each other (the difference's "
                           f"interval lies within {AS_OFTEN * 100:.0f} points of none)")
            else:
                verdict = ("no difference is shown, but the interval is too wide to say the judge agrees with the humans "
                           "as often as they agree with each other")
            spread = "" if d.low is None or d.high is None else f" [{d.low * 100:+.1f}, {d.high * 100:+.1f}]"
            out.append(f"{words.capitalize()}, {verdict}: {_pct(judge)} vs {_pct(human)}, difference "
                       f"{d.value * 100:+.1f} points{spread} ({d.cases:,} cases).")
        return out


#: "As often as" is said when the difference's 95% interval lies within this many points of none
#: (an equivalence margin; a wider interval that holds 0 shows no difference, and no equivalence).
AS_OFTEN = 0.05


def _pct(rate: AgreementRate) -> str:
    iv = rate.interval
    text = f"{float(rate.value or 0) * 100:.1f}%"
    return text if iv is None else f"{text} [{iv.low * 100:.1f}, {iv.high * 100:.1f}]"


def human_agreement(judge: np.ndarray, humans: np.ndarray, voters: int,
                    reference_not_tie: tuple[np.ndarray, np.ndarray] | None = None, z: float = Z95) -> HumanAgreement:
    """Every figure of :class:`HumanAgreement` over the cases with at least one human vote:
    ``judge`` the judge's vote per case, ``humans`` the votes per case for a, b, tie (rows aligned),
    ``voters`` how many different people voted, ``reference_not_tie`` the audit's per-case agreements
    and judgments over the cases whose reference is not a tie (zeros elsewhere), if known."""
    judge, humans = np.asarray(judge, dtype=np.int64), np.asarray(humans, dtype=np.int64).reshape(-1, 3)
    voted = humans.sum(axis=1) > 0
    judge, humans = judge[voted], humans[voted]
    sums = {"judge_human_with_ties": judge_human_sums(judge, humans, True),
            "judge_human_without_ties": judge_human_sums(judge, humans, False),
            "human_human_with_ties": human_human_sums(humans, True),
            "human_human_without_ties": human_human_sums(humans, False)}
    rates = {name: agreement_rate(name, y, m, z) for name, (y, m) in sums.items()}
    if reference_not_tie is not None:
        y, m = (np.asarray(v, dtype=np.int64)[voted] for v in reference_not_tie)
        rates["reference_not_tie"] = agreement_rate("reference_not_tie", y, m, z)
    diffs = {ties: difference(ties, sums[f"judge_human_{ties}"], sums[f"human_human_{ties}"], z)
             for ties in ("with_ties", "without_ties")}
    return HumanAgreement(int(humans.sum()), voters, int(voted.sum()), rates, diffs)


def labels_index(labels: Sequence[object]) -> np.ndarray:
    """"a", "b", "tie" (anything else: -1) as indices into LABELS."""
    code = {label: i for i, label in enumerate(LABELS)}
    return np.array([code.get(str(x), -1) if x is not None else -1 for x in labels], dtype=np.int64)
