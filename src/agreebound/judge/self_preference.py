"""Self-preference net of the candidates' strength: does the judge favour its own candidate more
than the humans' preferences, scaled as the judge scales them on every pair, predict?

The seed's self-preference rate (the judge picks its own candidate when the humans preferred the
other) and any control built from human-rejected candidates measure model strength as well as
self-preference: where the humans reject a strong model it is mostly their noise, and a judge that
tracks quality "errs" there. A judge that tracks quality also separates the candidates more
sharply than noisy humans do. So the measure compares, per model pair P over the cases with a human
reference, the judge's share of verdicts for the pair's first model J_P (ties half) with the
humans' share H_P (ties half), as differences from an even split, e_P = J_P - 1/2 and
d_P = H_P - 1/2, and fits by least squares weighted by the pair's cases

    e_P = slope x d_P + net x [P holds the judge's own candidate]      (own pairs oriented own-first)

``slope`` is how the judge scales the humans' preferences (1: as strongly as they do; above 1: it
separates the candidates more sharply), measured on every pair; ``net`` is the judge's extra share
for its own candidate beyond that, in points of its verdicts on its own pairs. Its assumption: the
judge scales the humans' preference for its own candidate as it scales theirs on the other pairs.
The pairs' shares are means over their cases, so their spread holds the cases' own noise besides
the pairs' true differences; the slope is the errors-in-variables (method-of-moments) estimator,
which takes that noise out (:func:`_fit`), kept within [0, :data:`MAX_SLOPE`]. When nothing of the
humans' preferences is left to scale (the spread, less its noise, is not positive) the slope is
taken as 1: the net is then P(judge picks own) - P(humans pick own) on the same cases, judgemetry's
difference of win rates. Under a judge whose errors do not depend on which candidate is whose (it
agrees with the better candidate with one probability, the humans with another) the pair shares
are exactly linear in each other, so a judge with no self-preference reads 0 whatever the
candidates' strength (tests/judge/test_self_preference.py: the placebo of relabelling a judge as
each candidate in turn, and a planted self-preference).

The 95% interval is the wider of the cluster bootstrap's percentile interval (cases resampled with
replacement, the slope refitted in each; 2,000 resamples, the seed fixed by the cells so the same
audit gives the same interval) and the jackknife's normal interval (:func:`_bootstrap`); its
coverage is checked by simulation in the same test module. With fewer than
:data:`LEAST_OWN_CASES` cases on the judge's own pairs there is no interval.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import numpy as np

from agreebound.core.intervals import Z95

#: Below this spread of the pairs' human preferences (in cases: sum n (d - mean)^2 less its noise,
#: d in [-1/2, 1/2]) the sentence says the slope is loosely measured (its standard error can pass
#: 1/4: a verdict share's variance is at most 1/4).
LEAST_SPREAD = 4
RESAMPLES = 2_000
#: The slope is kept within [0, MAX_SLOPE]: a judge that separates the candidates more than four
#: times as sharply as the humans is beyond what this fit describes.
MAX_SLOPE = 4
#: Fewer cases than this on the judge's own pairs and the net has no interval (too few cases).
LEAST_OWN_CASES = 10
Cell = tuple[str, str, bool, int, int, int]


@dataclass(frozen=True)
class SelfPreferenceFit:
    """The fit over an audit's pairs: ``net`` and ``slope`` exact (fractions of the cells), the
    interval of ``net`` from the cluster bootstrap, and what it rests on."""

    net: Fraction
    slope: Fraction
    slope_measured: bool  # False: nothing of the humans' preferences is left to scale; slope taken as 1
    spread: float  # the spread of the pairs' human preferences, less its noise (see LEAST_SPREAD)
    low: float | None
    high: float | None
    own_cases: int
    own_pairs: int
    other_cases: int
    other_pairs: int
    #: on the judge's own pairs: its share of verdicts for its own candidate, the humans' share
    judge_share: Fraction
    human_share: Fraction

    @property
    def raw_difference(self) -> Fraction:
        """judgemetry's difference on the same cases: P(judge picks own) - P(humans pick own)."""
        return self.judge_share - self.human_share

    @property
    def fraction(self) -> str:
        """"57/80 - 1/2 - 1.32 x (41/80 - 1/2)" (the slope measured) or "57/80 - 41/80"."""
        if not self.slope_measured:
            return f"{self.judge_share} - {self.human_share}"
        return f"{self.judge_share} - 1/2 - {float(self.slope):.2f} x ({self.human_share} - 1/2)"


def _rows(cells: Mapping[Cell, int], judge: str) -> list[tuple[str, str, Fraction, Fraction, int]]:
    """The labelled cells as (first, second, e, d, count), e and d oriented to the judge's own
    candidate on its own pairs (to the pair's first model on the others)."""
    out = []
    for (first, second, labelled, m, w, y), n in cells.items():
        if labelled and y >= 0 and m > 0:
            sign = -1 if second == judge else 1
            out.append((first, second, sign * (Fraction(w, 2 * m) - Fraction(1, 2)),
                        sign * (Fraction(y, 2) - Fraction(1, 2)), n))
    return out


def _fit(n: np.ndarray, se: np.ndarray, sd: np.ndarray, sdd: np.ndarray, sed: np.ndarray,
         own: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(net, slope, spread, judge's own share - 1/2, humans' own share - 1/2) from each pair's
    sums over its cases: n, sum e, sum d, sum d^2, sum e d. Written once for the exact estimate
    (object arrays of Fractions, one pair per element) and the bootstrap (float arrays of shape
    (resamples, pairs)).

    The slope is the method-of-moments (errors-in-variables) estimator: each pair's shares are
    means over its cases, so their spread holds the cases' own noise as well as the pairs' true
    differences, which would flatten a plain least-squares slope and leave some of the
    candidates' strength in the net (Fuller 1987, ch. 1). The noise is taken out of both sums:
    each pair's within-pair variance of d and covariance of e and d over its cases (pooled over
    the pairs where a pair has a single case)."""
    zero = n * 0
    has = n > 0
    safe = np.where(has, n, 1)
    e_bar, d_bar = np.where(has, se / safe, zero), np.where(has, sd / safe, zero)
    rest_dd, rest_ed = np.where(has, sdd - sd * d_bar, zero), np.where(has, sed - se * d_bar, zero)
    dof = np.where(has, n - 1, zero)
    total_dof = dof.sum(axis=-1)[..., None]
    pool_dd = np.where(total_dof > 0, rest_dd.sum(axis=-1)[..., None] / np.where(total_dof > 0, total_dof, 1), 0)
    pool_ed = np.where(total_dof > 0, rest_ed.sum(axis=-1)[..., None] / np.where(total_dof > 0, total_dof, 1), 0)
    many = n > 1
    w_dd = np.where(many, rest_dd / np.where(many, dof, 1), np.where(has, pool_dd, zero))
    w_ed = np.where(many, rest_ed / np.where(many, dof, 1), np.where(has, pool_ed, zero))
    own_n = (n * own).sum(axis=-1)
    own_e = (se * own).sum(axis=-1) / own_n
    own_d = (sd * own).sum(axis=-1) / own_n
    dc = np.where(own, d_bar - own_d[..., None], d_bar)
    ec = np.where(own, e_bar - own_e[..., None], e_bar)
    # the noise each sum holds: sum of W over the pairs, less the own pairs' mean's share
    noise_dd = w_dd.sum(axis=-1) - (n * w_dd * own).sum(axis=-1) / own_n
    noise_ed = w_ed.sum(axis=-1) - (n * w_ed * own).sum(axis=-1) / own_n
    spread = (n * dc * dc).sum(axis=-1) - noise_dd
    cross = (n * dc * ec).sum(axis=-1) - noise_ed
    use = spread > 0
    slope = np.where(use, cross / np.where(use, spread, 1), 1 + zero.sum(axis=-1))
    slope = np.clip(slope, 0, MAX_SLOPE) if slope.dtype != object else np.array(
        [min(max(v, Fraction(0)), Fraction(MAX_SLOPE)) for v in np.atleast_1d(slope)], dtype=object).reshape(np.shape(slope))
    return own_e - slope * own_d, slope, spread, own_e, own_d


def fit_self_preference(cells: Mapping[Cell, int], judge: str | None) -> SelfPreferenceFit | str:
    """The fit over the verdict cells (agreebound.judge.counts.JudgeCounts.verdicts), or why it
    cannot be made (a sentence).

    Three pairs, the judge "j" against "x" and "y", two cases each: the humans split every pair
    evenly (nothing to scale: slope 1); the judge splits x/y and j/y evenly but gives j
    all 4 verdicts on j/x: its share for its own candidate is 3/4 of its own pairs' verdicts against
    the humans' 1/2, net 1/4.

    >>> cells = {("x", "y", True, 2, 2, 2): 1, ("x", "y", True, 2, 2, 0): 1, ("j", "x", True, 2, 4, 2): 1,
    ...          ("j", "x", True, 2, 4, 0): 1, ("j", "y", True, 2, 2, 1): 2}
    >>> f = fit_self_preference(cells, "j")
    >>> f.net, f.slope, f.slope_measured, f.own_cases, f.other_cases, f.fraction
    (Fraction(1, 4), Fraction(1, 1), False, 4, 2, '3/4 - 1/2')
    """
    if not judge:
        return "the contract names no judge"
    rows = _rows(cells, judge)
    if not rows:
        return "no case with a human reference names both candidates' generators"
    pairs = sorted({(f, s) for f, s, *_ in rows})
    index = {p: i for i, p in enumerate(pairs)}
    own = np.array([judge in p for p in pairs])
    if not own.any():
        return f"no case with a human reference has a candidate of the judge's own ({judge})"
    sums = np.array([[Fraction(0)] * 5 for _ in pairs], dtype=object)
    for f, s, e, d, c in rows:
        sums[index[(f, s)]] += np.array([c, c * e, c * d, c * d * d, c * e * d], dtype=object)
    n, se, sd, sdd, sed = (col[None, :] for col in sums.T)
    exact = _fit(n, se, sd, sdd, sed, own[None, :])  # one "resample": the audit
    net, slope, spread, own_e, own_d = (v[0] for v in exact)
    measured = bool(spread > 0)
    own_cases = sum(c for f, s, *_, c in rows if judge in (f, s))
    if own_cases < LEAST_OWN_CASES:
        low, high = None, None
    else:
        low, high = _bootstrap(rows, index, own, judge, net)
    return SelfPreferenceFit(net, slope, measured, float(spread), low, high, own_cases, int(own.sum()),
                             sum(c for *_, c in rows) - own_cases, int((~own).sum()),
                             own_e + Fraction(1, 2), own_d + Fraction(1, 2))


def _bootstrap(rows: list[tuple[str, str, Fraction, Fraction, int]], index: Mapping[tuple[str, str], int],
               own: np.ndarray, judge: str, net: Fraction) -> tuple[float, float]:
    """The wider of two 95% intervals of ``net`` over resamples of the cases: the percentile
    interval of :data:`RESAMPLES` cluster-bootstrap resamples (every case equally likely, with
    replacement: multinomial counts over the cells) and the normal interval from the jackknife's
    variance (each case left out in turn: one case fewer in each cell). Each alone falls short of
    95% somewhere (the bootstrap with many pairs of few cases, the jackknife with few pairs, where
    the slope's clipping is not smooth); together they hold it (the coverage test)."""
    count = np.array([c for *_, c in rows], dtype=np.int64)
    e = np.array([float(r[2]) for r in rows])
    d = np.array([float(r[3]) for r in rows])
    key = repr(sorted((f, s, str(e_), str(d_), c) for f, s, e_, d_, c in rows)).encode() + judge.encode()
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key).digest()[:8], "little"))
    boot = rng.multinomial(int(count.sum()), count / count.sum(), size=RESAMPLES).astype(float)
    jack = np.tile(count.astype(float), (len(count), 1)) - np.eye(len(count))
    onehot = np.zeros((len(rows), len(index)))
    onehot[np.arange(len(rows)), [index[(f, s)] for f, s, *_ in rows]] = 1.0

    def nets(counts: np.ndarray) -> np.ndarray:
        n = counts @ onehot
        with np.errstate(invalid="ignore", divide="ignore"):
            return _fit(n, (counts * e) @ onehot, (counts * d) @ onehot, (counts * d * d) @ onehot,
                        (counts * e * d) @ onehot, np.broadcast_to(own, n.shape))[0]

    b = nets(boot)
    b = b[np.isfinite(b)]
    j = nets(jack)
    total = count.sum()
    if len(b) < RESAMPLES // 2 or not np.isfinite(j).all():
        return -1.0, 1.0
    mean = (count * j).sum() / total
    half = Z95 * math.sqrt((total - 1) / total * float((count * (j - mean) ** 2).sum()))
    lo, hi = np.quantile(b, [0.025, 0.975])
    return max(-1.0, min(float(lo), float(net) - half)), min(1.0, max(float(hi), float(net) + half))
