"""A graded judge's scores put on the humans' scale: a monotone (isotonic) map from the judge's score
to the humans' mean score of the item, cross-fitted so that its error is measured out of sample, and
the mapped judge audited as the raw one is.

* **the map**: pool-adjacent-violators (agreebound.scored.confidence's :func:`isotonic_fit`, the one
  implementation) from the judge's score to each item's humans' mean, over the items with the judge's
  score and at least one human's; a score between breakpoints takes the value of the largest
  breakpoint at or below it, below the first the first's (:func:`isotonic_apply`).
* **cross-fitting**: the items are shuffled with a fixed seed and split into ``folds`` groups of
  nearly equal size; each item's mapped score comes from the map fitted on the other groups, so no
  item's own human scores shape its mapped score. Items with the judge's score and no human's take the
  full-data map's value (they enter no error and no agreement pair).
* **the error**, out of sample, before (the raw scores) and after (the cross-fitted mapped scores),
  against each item's humans' mean: the mean absolute error, and the calibration error of each fold
  as a held-out set, averaged over the folds by size: CE_k = sum over the judge's raw score values v
  of (n_kv / n_k) |mean predicted - mean humans' mean| over fold k's items the judge scored v (one
  group per raw score: the map is a function of it, so the same groups serve before and after).
  Over the whole sample at once the cross-fitted CE would be no measure: with a fold's map the
  other folds' mean, its residuals cancel within a raw score over the folds (exactly, when the folds
  are of equal size and no score is pooled), and CE would be near 0 whatever the map's error on new
  items. A fold's CE carries its own noise, as a split's held-out ECE does: it is the CE on held-out
  sets of n / folds items (smaller sets, larger CE; compare before and after at the same size).
  Intervals from the folds' spread: value +- t(0.975, folds - 1) SD(the folds' values) /
  sqrt(folds), for before, after and the change (after - before, fold by fold): 95% for the MAE
  (measured coverage 95%), a rough range for the CE (measured coverage 89%: not called 95%). They are intervals
  of the expected error on new items of a map fitted on this many items (tests/scored/
  test_recalibrate.py measures their coverage); a percentile bootstrap over items with the
  predictions held fixed covered the MAE's only 83% of the time, the CE's 57%, and is not used.
* **the audit**: the mapped judge is measured by :func:`agreebound.scored.audit.measure_scored` on the
  same scores table with the judge's scores replaced, and decided by
  :func:`agreebound.scored.decide.decide_scored` (:func:`decide_recalibration`). Mapped scores are
  continuous; by default (``rounded=True``) they are rounded to the nearest value of the scale
  (a tie to the lower) and both judges are audited at the log's default level (ordinal), so the
  "before" audit is exactly the audit a team already sees and the "after" one is a judge that writes
  scores on the same scale; ``rounded=False`` audits both at the interval level, the mapped scores
  unrounded.
* **the export**: the full-data map as breakpoints (:meth:`Recalibration.to_json`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import math

import numpy as np
import pandas as pd

from agreebound.core.student_t import t_quantile
from agreebound.core.thresholds import ScoredThresholds
from agreebound.panel.categories import Level
from agreebound.scored.audit import ScoredMeasurement, measure_scored
from agreebound.scored.confidence import isotonic_apply, isotonic_fit
from agreebound.scored.decide import ScoredDecision, decide_scored
from agreebound.scored.items import scored_input

FOLDS = 5
SEED = 0


# --- the cross-fitted map, as numbers --------------------------------------------------------------

def fold_of(n: int, folds: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """Each of ``n`` items' fold (0 .. folds - 1): a shuffle with ``seed``, split into ``folds``
    groups whose sizes differ by at most one.

    >>> fold_of(7, 3, 0).tolist()
    [2, 2, 0, 0, 0, 1, 1]
    """
    out = np.empty(n, dtype=np.int64)
    for k, part in enumerate(np.array_split(np.random.default_rng(seed).permutation(n), folds)):
        out[part] = k
    return out


def cross_fitted(score: np.ndarray, target: np.ndarray, folds: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """Each item's score mapped by the isotonic map fitted on the other folds' items (``score`` and
    ``target`` one per item, no NaN).

    Items 0, 1 and 4 are fold 1, items 2, 3 and 5 fold 0: fold 1's items take the map of items
    2, 3, 5 (score 2 -> 2.5, 3 -> 5; a score 1, below the first breakpoint, takes 2.5), fold 0's
    the map of items 0, 1, 4 (1 -> 1.5, 3 -> 4; a score 2 takes the value at 1):

    >>> fold_of(6, 2, 0).tolist()
    [1, 1, 0, 0, 1, 0]
    >>> cross_fitted(np.array([1., 1, 2, 2, 3, 3]), np.array([1., 2, 2, 3, 4, 5]), folds=2).tolist()
    [2.5, 2.5, 1.5, 1.5, 5.0, 4.0]
    """
    score, target = np.asarray(score, dtype=float), np.asarray(target, dtype=float)
    fold = fold_of(score.size, folds, seed)
    out = np.empty(score.size)
    for k in range(folds):
        held = fold == k
        values, fitted = isotonic_fit(score[~held], target[~held])
        out[held] = isotonic_apply(values, fitted, score[held])
    return out


def calibration_error(pred: np.ndarray, target: np.ndarray, group: np.ndarray) -> float:
    """sum over groups of (n_g / n) |mean pred - mean target| = sum_g |sum_g (pred - target)| / n
    (groups (fold, score): the folds' CEs averaged by size).

    >>> calibration_error(np.array([2., 4, 3]), np.array([1., 3, 3]), np.array([0, 0, 1]))
    0.6666666666666666
    """
    r = np.asarray(pred, dtype=float) - np.asarray(target, dtype=float)
    return float(np.abs(np.bincount(group, weights=r)).sum() / r.size)


@dataclass(frozen=True)
class Error:
    """One error measure before and after the map, out of sample, with intervals from the folds'
    spread (the change paired: after - before within each fold); what they are worth:
    :attr:`Recalibration.interval_method`."""

    name: str
    before: float
    after: float
    before_interval: tuple[float, float]
    after_interval: tuple[float, float]
    change_interval: tuple[float, float]

    @property
    def change(self) -> float:
        return self.after - self.before


def _errors(raw: np.ndarray, mapped: np.ndarray, target: np.ndarray, score: np.ndarray, fold: np.ndarray,
            folds: int) -> tuple[Error, Error]:
    """MAE and CE of the raw and the mapped scores against the target, each fold a held-out set; the
    value over all items (the folds' weighted by size), the interval from the folds' spread."""
    t = t_quantile(0.975, folds - 1)
    group = fold * (int(score.max()) + 1) + score

    def per_fold(pred: np.ndarray, ce: bool) -> np.ndarray:
        return np.array([calibration_error(pred[k], target[k], score[k]) if ce else float(np.abs(pred[k] - target[k]).mean())
                         for k in (fold == f for f in range(folds))])

    def interval(value: float, each: np.ndarray) -> tuple[float, float]:
        half = t * float(each.std(ddof=1)) / math.sqrt(folds)
        return value - half, value + half

    out = []
    for name, ce in (("mean absolute error", False), ("calibration error", True)):
        b, a = ((calibration_error(p, target, group) if ce else float(np.abs(p - target).mean())) for p in (raw, mapped))
        fb, fa = per_fold(raw, ce), per_fold(mapped, ce)
        out.append(Error(name, b, a, interval(b, fb), interval(a, fa), interval(a - b, fa - fb)))
    return out[0], out[1]


# --- the recalibration of one judge of a scores table ---------------------------------------------

@dataclass(frozen=True)
class Recalibration:
    """One graded judge mapped to the humans' mean: the full-data map, the out-of-sample errors before
    and after, and the raw and the mapped judge measured by the audit."""

    judge: str
    items: int  # items with the judge's score and at least one human's: the map's and the errors'
    folds: int
    seed: int
    breakpoints: tuple[tuple[float, float], ...]  # the full-data map: (judge score, mapped value)
    mae: Error
    ce: Error
    rounded: bool  # the mapped scores were rounded to the scale for the audit
    scale: tuple[float, ...]
    before: ScoredMeasurement = field(repr=False)  # the raw judge, audited
    after: ScoredMeasurement = field(repr=False)  # the cross-fitted mapped judge, audited
    mapped: dict[str, float] = field(repr=False)  # item -> the mapped score the audit read

    @property
    def interval_method(self) -> str:
        """How the intervals are made and what they are worth: the MAE's is a 95% interval (it covered
        the error on fresh items 95% of the time over 200 simulated logs); the calibration error's,
        made the same way, covered it only 89% of the time, so it is said as a rough range, not 95%."""
        return (f"the spread of the {self.folds} folds' errors (each fold a held-out set), t quantile with "
                f"{self.folds - 1} degrees of freedom: 95% for the mean absolute error (measured coverage 95% "
                "over 200 simulated logs); for the calibration error a rough range only (measured coverage 89%)")

    def map(self, scores: np.ndarray | list[float]) -> np.ndarray:
        """The full-data map at new scores (a team's pipeline's)."""
        v, f = (np.array(c) for c in zip(*self.breakpoints))
        return isotonic_apply(v, f, np.asarray(scores, dtype=float))

    def to_json(self) -> dict[str, Any]:
        """The full-data map, JSON-ready: breakpoints (score -> mapped value) and how to read them."""
        return {"judge": self.judge,
                "breakpoints": [{"score": s, "mapped": m} for s, m in self.breakpoints],
                "rule": ("step: a score takes the mapped value of the largest breakpoint at or below it; a score "
                         "below the first breakpoint takes the first's"),
                "target": "the humans' mean score of the item",
                "items": self.items,
                "out_of_sample": {e.name: {"before": e.before, "after": e.after} for e in (self.mae, self.ce)},
                "folds": self.folds, "seed": self.seed}

    @property
    def sentence(self) -> str:
        how = (f"rounded to the scale, {self.before.level} level" if self.rounded
               else f"unrounded, {self.before.level} level")
        return (f"{self.judge} mapped to the humans' mean by an isotonic map cross-fitted over {self.folds} folds of "
                f"{self.items:,} items: mean absolute error {self.mae.before:.3f} -> {self.mae.after:.3f}, "
                f"calibration error {self.ce.before:.3f} -> {self.ce.after:.3f} (out of sample); the mapped scores "
                f"audited {how}")


def recalibrate(frame: pd.DataFrame, judge: str | None = None, *, folds: int = FOLDS, seed: int = SEED,
                rounded: bool = True, file: str = "", scale: tuple[float, ...] | None = None,
                level: Level | None = None) -> Recalibration:
    """Map ``judge``'s scores (the only judge when None) in io's scores table to the humans' mean,
    cross-fitted over ``folds`` folds of items (shuffled with ``seed``), and audit the raw and the
    mapped judge (see the module's notes). ``scale``: the scale's values, as
    :func:`~agreebound.scored.audit.measure_scored` takes them (else the values seen); ``level``: the
    level both audits read (the one the user chose for the judge's own audit; default: the log's)."""
    x = scored_input(frame, file)
    if judge is None:
        if len(x.judges) != 1:
            raise ValueError(f"name the judge to recalibrate; judges: {', '.join(x.judges)}")
        judge = x.judges[0]
    if judge not in x.judges:
        raise ValueError(f"no judge {judge!r} in the log; judges: {', '.join(x.judges)}")
    if x.kind != "graded":
        raise ValueError("recalibration maps a graded judge's scores; a pass/fail judge's verdicts have no scale")
    s, h = x.column(judge), x.human_mean
    use = ~np.isnan(s) & ~np.isnan(h)
    n = int(use.sum())
    if n < 2 * folds:
        raise ValueError(f"{n} items with the judge's and a human's score: cross-fitting over {folds} folds needs "
                         f"at least {2 * folds}")
    values, fitted = isotonic_fit(s[use], h[use])
    mapped = np.where(np.isnan(s), np.nan, isotonic_apply(values, fitted, np.nan_to_num(s)))
    mapped[use] = cross_fitted(s[use], h[use], folds, seed)
    score = np.unique(s[use], return_inverse=True)[1]
    mae, ce = _errors(s[use], mapped[use], h[use], score, fold_of(n, folds, seed), folds)
    grid = tuple(float(v) for v in (scale or x.scale or x.values))
    shown = _to_scale(mapped, np.array(grid)) if rounded else mapped
    by_item = {item: float(v) for item, v in zip(x.items, shown) if not np.isnan(v)}
    audit_level: Level | None = level if level is not None else (None if rounded else "interval")
    raw = _one_judge(frame, judge)
    before = measure_scored(raw, file, audit_level, scale=scale)
    swapped = raw.copy()
    swapped["score"] = pd.to_numeric(swapped["score"], errors="coerce").astype(float)
    mine = (swapped["role"].astype(str) == "judge").to_numpy()
    swapped.loc[mine, "score"] = swapped.loc[mine, "item"].astype(str).map(by_item).to_numpy()
    after = measure_scored(swapped, file, audit_level, scale=scale)
    return Recalibration(judge, n, folds, seed, tuple(zip(map(float, values), map(float, fitted))), mae, ce, rounded,
                         grid, before, after, by_item)


def _to_scale(v: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Each value rounded to the nearest scale value, a tie to the lower (NaN stays NaN).

    >>> _to_scale(np.array([1.2, 2.5, 4.9, np.nan]), np.array([1., 2, 3, 4, 5])).tolist()[:3]
    [1.0, 2.0, 5.0]
    """
    out = grid[np.argmin(np.abs(np.nan_to_num(v)[:, None] - grid[None, :]), axis=1)]
    return np.where(np.isnan(v), np.nan, out)


def _one_judge(frame: pd.DataFrame, judge: str) -> pd.DataFrame:
    """The scores table with the humans' rows and ``judge``'s only (the audit of one judge)."""
    role, rater = frame["role"].astype(str), frame["rater"].astype(str)
    return frame[(role == "human") | ((role == "judge") & (rater == judge))].reset_index(drop=True)


#: A recalibrated judge with its raw and its mapped audit decided: (recalibration, before, after).
Recalibrated = tuple[Recalibration, ScoredDecision, ScoredDecision]


def decide_recalibration(r: Recalibration, thresholds: ScoredThresholds | None = None,
                         source: str = "default") -> tuple[ScoredDecision, ScoredDecision]:
    """The raw and the mapped judge decided under the same thresholds: (before, after)."""
    return (decide_scored(r.before, thresholds, source, r.judge), decide_scored(r.after, thresholds, source, r.judge))
