"""A graded or pass/fail judge described by its own scores, human labels or not: how many it gave, how
they spread over the scale, and each model's mean score with a 95% interval (MT-Bench's own
headline: a model's mean single-answer grade). Without human labels this is all a log can say:
nothing about agreement is measured or decided, but the judge is not "0 items".

Each item here is one judged answer of one model (io reads MT-Bench's question/model/turn as an
item), so a model's items are its own and the interval of its mean is Student's t over them (n - 1
degrees of freedom; each item one cluster), or for a pass/fail judge the Wilson interval of its pass
rate (one verdict per item).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from agreebound.core.intervals import Z95, rate_interval
from agreebound.core.student_t import t_quantile
from agreebound.scored.items import ScoredInput
from agreebound.scored.pairwise import exact_value

#: A scale of at most this many values is counted a value at a time; a longer one in BINS equal bins.
MAX_LISTED = 20
BINS = 10


@dataclass(frozen=True)
class MeanScore:
    """A mean score over items with its 95% interval (None: fewer than two items, or no spread)."""

    items: int
    exact: Fraction
    low: float | None
    high: float | None
    method: str

    @property
    def value(self) -> float:
        return float(self.exact)


@dataclass(frozen=True)
class Bucket:
    """Scores from ``low`` to ``high`` (one value when they are equal; a bin includes its upper end
    only when it is the last)."""

    low: float
    high: float
    count: int


@dataclass(frozen=True)
class JudgeScores:
    """One judge described: the scores it gave, their spread over the scale, its mean overall and per model."""

    judge: str
    scores: int
    buckets: tuple[Bucket, ...]
    binned: bool  # True: equal-width bins (a long or continuous scale); False: a count per scale value
    mean: MeanScore
    models: tuple[tuple[str, MeanScore], ...]  # by mean score, highest first (then by name)
    no_model: int  # scores on items the log names no model for
    binary: bool = False  # a pass/fail judge: a mean is its pass rate

    @property
    def sentence(self) -> str:
        """"160 scores, mean 6.42 [6.10, 6.74]" (plain text)."""
        what = "pass rate" if self.binary else "mean"
        return f"{self.scores:,} score{'' if self.scores == 1 else 's'}, {what} {mean_text(self.mean, self.binary)}"


def mean_text(m: MeanScore, binary: bool = False) -> str:
    """"6.42 [6.10, 6.74]" (a pass rate: "55.0% [45.2, 64.4]"); without an interval the value alone."""
    if m.low is None or m.high is None:
        return f"{m.value * 100:.1f}%" if binary else f"{m.value:.2f}"
    if binary:
        return f"{m.value * 100:.1f}% [{m.low * 100:.1f}, {m.high * 100:.1f}]"
    return f"{m.value:.2f} [{m.low:.2f}, {m.high:.2f}]"


def mean_score(values: np.ndarray, binary: bool = False, bounds: tuple[float, float] | None = None) -> MeanScore:
    """The exact mean of ``values`` (one score per item) and its 95% interval: Student's t with n - 1
    degrees of freedom, cut to the scale's ``bounds`` where it passes them (a mean cannot); a
    pass/fail judge's: Wilson's, one verdict per item."""
    n = len(values)
    found, counts = np.unique(values, return_counts=True)
    exact = sum((Fraction(exact_value(v)) * int(c) for v, c in zip(found, counts)), Fraction(0)) / n
    if binary:
        ri = rate_interval("pass_rate", int(values.sum()), n, None, Z95)
        return MeanScore(n, exact, ri.low, ri.high, "Wilson interval, one verdict per item")
    if n < 2:
        return MeanScore(n, exact, None, None, "no interval: one item")
    sd = float(np.std(values, ddof=1))
    if sd == 0:  # every item the same score: nothing to estimate the spread from
        return MeanScore(n, exact, None, None, f"no interval: all {n:,} items have the same score")
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    low, high = float(exact) - half, float(exact) + half
    method = f"Student's t over {n:,} items ({n - 1:,} degrees of freedom), each item one cluster"
    if bounds is not None and (low < bounds[0] or high > bounds[1]):
        low, high = max(low, bounds[0]), min(high, bounds[1])
        method += ", cut to the scale's ends"
    return MeanScore(n, exact, low, high, method)


def buckets(scores: np.ndarray, scale: tuple[float, ...]) -> tuple[tuple[Bucket, ...], bool]:
    """A count per scale value (declared values the judge never gave counted 0), or for a scale of
    more than MAX_LISTED values BINS equal-width bins from the lowest score to the highest."""
    if len(scale) <= MAX_LISTED:
        found, counts = np.unique(scores, return_counts=True)
        at = dict(zip(found.tolist(), counts.tolist()))
        return tuple(Bucket(v, v, int(at.get(v, 0))) for v in sorted(set(scale) | set(at))), False
    lo, hi = float(scores.min()), float(scores.max())
    if lo == hi:
        return (Bucket(lo, hi, len(scores)),), True
    edges = np.linspace(lo, hi, BINS + 1)
    counts, _ = np.histogram(scores, bins=edges)
    return tuple(Bucket(float(a), float(b), int(c)) for a, b, c in zip(edges[:-1], edges[1:], counts)), True


def describe(x: ScoredInput) -> tuple[JudgeScores, ...]:
    """Every judge of the log described by its own scores."""
    binary = x.kind == "binary"
    scale = tuple(x.scale or x.values)
    bounds = (min(scale), max(scale))
    out = []
    for judge in x.judges:
        col = x.column(judge)
        scored = ~np.isnan(col)
        s = col[scored]
        if not len(s):
            continue
        model = np.asarray(x.model, dtype=object)[scored].astype(str)
        per = [(name, mean_score(s[model == name], binary, bounds)) for name in sorted(set(model) - {""})]
        per.sort(key=lambda p: -p[1].exact)  # stable: equal means keep the names' order
        shown, binned = buckets(s, scale)
        out.append(JudgeScores(judge, len(s), shown, binned, mean_score(s, binary, bounds), tuple(per),
                               int((model == "").sum()), binary))
    return tuple(out)
