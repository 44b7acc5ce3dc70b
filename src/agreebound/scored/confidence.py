"""A judge's stated confidence against what happened: expected calibration error, the Brier score
and its decomposition, a reliability diagram, and an isotonic recalibration map fitted on half the
items and evaluated on the other half. Shown, never applied: the judge's verdicts are audited as
the judge gave them.

Formulas (judgekit 0.2.1's, which the tests compare with on random data):

* bins: the items sorted by stated probability (a stable sort), split into ``BINS`` contiguous
  groups of equal size (numpy's ``array_split``: sizes differ by at most one; fewer bins than items
  never);
* ECE = sum over bins of (bin size / n) |mean stated probability - observed frequency|;
* Brier = mean (p - y)^2; its decomposition (Murphy, 1973) groups by distinct stated value, where
  it is exact: Brier = reliability - resolution + uncertainty, with reliability = sum_v (n_v/n)
  (v - ybar_v)^2, resolution = sum_v (n_v/n)(ybar_v - ybar)^2, uncertainty = ybar (1 - ybar);
* isotonic recalibration: pool-adjacent-violators (non-decreasing, ties in p pooled first) fitted on
  the items of the first half (items in the order given, every other item: the 1st, 3rd, ...), and
  applied to the second half by step interpolation (a probability below the first fitted value takes
  it, above the last the last); ECE and Brier on the second half before and after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from agreebound.core.student_t import t_quantile
from agreebound.core.intervals import Z95, rate_interval

BINS = 10


@dataclass(frozen=True)
class ReliabilityBin:
    mean_p: float
    frequency: float
    count: int
    low: float  # Wilson 95% interval of the frequency
    high: float


@dataclass(frozen=True)
class Calibration:
    """A judge's stated probabilities of "pass" (or of the candidate it prefers) against outcomes."""

    n: int
    ece: float
    brier: float
    brier_interval: tuple[float, float] | None  # 95%, t over items (one forecast per item)
    reliability: float
    resolution: float
    uncertainty: float
    bins: tuple[ReliabilityBin, ...]
    #: the isotonic map fitted on the first half: (stated probability breakpoints, calibrated values)
    isotonic_map: tuple[tuple[float, ...], tuple[float, ...]] = field(repr=False)
    held_out: int  # items in the second half
    ece_before: float  # on the second half, as stated
    ece_after: float  # on the second half, recalibrated
    brier_before: float
    brier_after: float
    #: what the decomposition grouped by: "stated value" (exact: Brier = reliability - resolution +
    #: uncertainty) or "equal-mass bins" (when most stated values are distinct, where grouping by value
    #: says nothing: reliability would be the Brier score itself), with the within-bin remainder
    decomposed_by: str = "stated value"
    within: float = 0.0  # Brier - (reliability - resolution + uncertainty): 0 by stated value
    split: int = 0  # items left out: the humans split evenly, no verdict to score the forecast against
    unit: str = "items"  # what one forecast is about: "items" (a graded judge's), "cases" (a pairwise one's)
    left_out: str = "the humans split evenly"  # why the ``split`` ones have no outcome

    def decomposition(self) -> str:
        """"reliability 0.012 - resolution 0.180 + uncertainty 0.250" (by stated value), or with the
        within-bin remainder and what it grouped by (over the bins)."""
        head = (f"reliability {self.reliability:.3f} - resolution {self.resolution:.3f} + uncertainty "
                f"{self.uncertainty:.3f}")
        if self.decomposed_by == "stated value":
            return head
        return f"{head} + within-bin {self.within:+.3f} (grouped by the equal-mass bins: most stated values are distinct)"

    @property
    def sentence(self) -> str:
        left = f" ({self.split:,} {self.unit} {self.left_out} left out)" if self.split else ""
        return (f"stated confidence vs the humans' verdict over {self.n:,} {self.unit}{left}: ECE {self.ece:.3f} ({len(self.bins)} "
                f"equal-mass bins), Brier {self.brier:.3f} = {self.decomposition()}; an isotonic map fitted on half the {self.unit} "
                f"moves the other half's ECE from {self.ece_before:.3f} to {self.ece_after:.3f} (shown, not applied)")


def _checked(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    if p.shape != y.shape or p.size == 0:
        raise ValueError("one stated probability per outcome, and at least one")
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("stated probabilities must lie in [0, 1]")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("outcomes must be 0 or 1")
    return p, y


def reliability_bins(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> tuple[ReliabilityBin, ...]:
    """The reliability diagram's points: equal-mass bins of the items sorted by stated probability."""
    p, y = _checked(p, y)
    order = np.argsort(p, kind="stable")
    out = []
    for idx in np.array_split(order, min(bins, p.size)):
        k = int(idx.size)
        hits = int(y[idx].sum())
        w = rate_interval("bin", hits, k, None, Z95)  # the house's Wilson interval, one outcome per item
        out.append(ReliabilityBin(float(p[idx].mean()), hits / k, k, w.low, w.high))
    return tuple(out)


def ece(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error over equal-mass bins."""
    b = reliability_bins(p, y, bins)
    n = sum(x.count for x in b)
    return float(sum(x.count / n * abs(x.frequency - x.mean_p) for x in b))


def brier(p: np.ndarray, y: np.ndarray) -> float:
    p, y = _checked(p, y)
    return float(((p - y) ** 2).mean())


def murphy(p: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(reliability, resolution, uncertainty), grouped by distinct stated value (exact)."""
    p, y = _checked(p, y)
    base = float(y.mean())
    values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    freq = np.bincount(inverse, weights=y) / counts
    w = counts / p.size
    return float((w * (values - freq) ** 2).sum()), float((w * (freq - base) ** 2).sum()), base * (1 - base)


def murphy_binned(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> tuple[float, float, float, float]:
    """(reliability, resolution, uncertainty, within-bin remainder) over the equal-mass bins: the
    decomposition for stated probabilities that are mostly distinct (Stephenson et al., 2008: the
    remainder holds the within-bin variance and covariance terms)."""
    b = reliability_bins(p, y, bins)
    n = sum(x.count for x in b)
    base = float(np.mean(y))
    rel = sum(x.count / n * (x.mean_p - x.frequency) ** 2 for x in b)
    res = sum(x.count / n * (x.frequency - base) ** 2 for x in b)
    unc = base * (1 - base)
    return float(rel), float(res), unc, brier(p, y) - (rel - res + unc)


def isotonic_fit(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pool-adjacent-violators: the non-decreasing step function of p closest to y in squared error.
    Returns the distinct stated values and the fitted value at each."""
    values, inverse = np.unique(p, return_inverse=True)
    sums = np.bincount(inverse, weights=y)
    weights = np.bincount(inverse).astype(float)
    blocks: list[list[float]] = []  # [sum, weight, first index, last index]
    for i in range(len(values)):
        blocks.append([sums[i], weights[i], i, i])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, w, _, last = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += w
            blocks[-1][3] = last
    fitted = np.empty(len(values))
    for s, w, first, last in blocks:
        fitted[int(first):int(last) + 1] = s / w
    return values, fitted


def isotonic_apply(values: np.ndarray, fitted: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The fitted map at new probabilities: the value at the largest breakpoint at or below each
    (the first breakpoint's value below them all)."""
    i = np.searchsorted(values, p, side="right") - 1
    return fitted[np.clip(i, 0, len(values) - 1)]


def calibration(p: np.ndarray, y: np.ndarray, bins: int = BINS, split: int = 0, unit: str = "items",
                left_out: str = "the humans split evenly") -> Calibration:
    """Everything above for one judge's stated probabilities ``p`` and the outcomes ``y`` (0/1), one
    per item (the halves are items: no item is in both). ``split``: items left out before, said."""
    p, y = _checked(p, y)
    n = p.size
    b = brier(p, y)
    sq = (p - y) ** 2
    interval = None
    if n > 2:
        half = t_quantile(0.975, n - 1) * float(sq.std(ddof=1)) / math.sqrt(n)
        interval = (max(0.0, b - half), min(1.0, b + half))
    by_value = len(np.unique(p)) <= n / 2
    rel, res, unc, within = (*murphy(p, y), 0.0) if by_value else murphy_binned(p, y, bins)
    first = np.arange(n) % 2 == 0
    values, fitted = isotonic_fit(p[first], y[first])
    held_p, held_y = p[~first], y[~first]
    if held_p.size:
        after = isotonic_apply(values, fitted, held_p)
        before_ece, after_ece = ece(held_p, held_y, bins), ece(after, held_y, bins)
        before_b, after_b = brier(held_p, held_y), brier(after, held_y)
    else:
        before_ece = after_ece = before_b = after_b = math.nan
    return Calibration(n, ece(p, y, bins), b, interval, rel, res, unc, reliability_bins(p, y, bins),
                       (tuple(map(float, values)), tuple(map(float, fitted))), int(held_p.size),
                       before_ece, after_ece, before_b, after_b, "stated value" if by_value else "equal-mass bins",
                       within, split, unit, left_out)
