"""Graded and pass/fail judges audited against human labels: the judge is a rater beside the humans.

A pairwise judge picks a candidate (agreebound.judge.calibration); a graded judge gives a score on a
scale (MT-Bench's 1-10, a rubric's 1-5) and a pass/fail judge a verdict (inspect_ai's C/I,
promptfoo's llm-rubric). Both are audited here against human labels on the same items, with the
panel's own machinery: Krippendorff's alpha through the panel path (agreebound.panel.alpha, exact),
weighted kappa through agreebound.panel.coefficients, and a gate the peers do not have:

* **admissibility**: the judge agrees with the humans not worse than the humans agree with each
  other, by more than the margin: alpha(judge-human pairs) >= alpha(human-human pairs) -
  margin, each alpha over the items both rated (a mean of pairwise alphas on both sides, so a judge
  exchangeable with the humans has the same expected value as they: the alternative-annotator idea of
  Calderon, Reichart and Dror, 2025, in alpha);
* **agreement floor**: alpha(judge-human pairs) >= the floor (the panel's 0.6 by default).

Every measure carries a 95% interval that treats each item as one cluster: for a share of
judge-human pairs (exact agreement, accuracy, sensitivity, ...) the house's case-clustered Wilson
interval (agreebound.core.intervals.rate_interval, its design effect measured over the items); for
every other measure the delete-one-item jackknife with a t quantile (n - 1 degrees of freedom) over
the statistic's item sums, whose full-sample value equals the exact one. The admissibility
difference's interval covers 95% of simulated audits of a judge exchangeable with three humans
(tests/test_judge_scores.py).

The agreement measures beside the gates compare the judge with each human on the items both scored
(pooled over the pairs: a judge exchangeable with the humans agrees with a human as a human does;
a consensus of several humans would flatter it). The length effect and self-preference hold the
humans' mean score of the item fixed. A judge's stated confidence (a probability of pass) is scored
against the humans' majority verdict, one forecast per item (agreebound.scored.confidence).

Engines: an out-of-core engine returns every two raters' table of paired scores
(:class:`ScoredCounts`, agreebound.engines.scored_sql); the in-memory audit builds the same tables,
and alpha is read from them through the panel path in both (:func:`table_alpha`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from agreebound.panel.alpha import alpha
from agreebound.panel.categories import Categories, encode
from agreebound.panel.coefficients import coefficients, t_quantile, weight_matrix
from agreebound.scored.confidence import Calibration, calibration
from agreebound.panel.counts import PanelCounts, from_rows, pairs_of_rows
from agreebound.core.errors import InputError
from agreebound.core.gate import NOT_EVALUABLE, Gate, evaluate, worst
from agreebound.core.planner import plan_se
from agreebound.judge.bias import Measure
from agreebound.core.limits import (MAX_JUDGES, MAX_SCORE_MAGNITUDE, MAX_SCORE_VALUES, MIN_SCORE_MAGNITUDE, SCORE_RANGE,
                               within_magnitude)
from agreebound.judge.counts import RateStats
from agreebound.core.thresholds import ScoredThresholds
from agreebound.core.intervals import Z95, rate_interval

KINDS = ("graded", "binary")
PASS, FAIL, INCOMPLETE = "PASS_CALIBRATION", "FAIL_CALIBRATION", "INCOMPLETE"
#: The gates of a graded or pass/fail judge: (name, threshold field, kind).
SCORED_GATES: tuple[tuple[str, str, str], ...] = (
    ("admissibility", "admissibility_margin_permil", "min"),
    ("judge_alpha", "judge_alpha_floor_permil", "min"),
)
GATE_TITLES = {"admissibility": "agreement with humans, against the humans' own (alpha difference)",
               "judge_alpha": "agreement with humans (alpha of the judge-human pairs)"}
JACKKNIFE = ("delete-one-item jackknife over {n:,} items (each item one cluster), t quantile with {df:,} "
             "degrees of freedom")


# --- the input: items x raters ------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredInput:
    """Scores as items x raters (judges first, then humans; NaN missing), and per item the model
    whose answer was judged, its length, and each judge's stated confidence."""

    file: str
    items: tuple[str, ...]
    judges: tuple[str, ...]
    humans: tuple[str, ...]
    matrix: np.ndarray = field(repr=False)  # items x (judges + humans), float, NaN missing
    model: np.ndarray = field(repr=False)  # per item: str ("" unknown)
    length: np.ndarray = field(repr=False)  # per item: float (NaN unknown)
    confidence: np.ndarray = field(repr=False)  # items x judges: float (NaN none)
    notes: tuple[str, ...] = ()
    #: the scale's values when the log declares them (MT-Bench's 1..10), else None: the scores seen
    scale: tuple[float, ...] | None = None

    @property
    def raters(self) -> tuple[str, ...]:
        return self.judges + self.humans

    @cached_property
    def rater_at(self) -> dict[str, int]:
        """Each rater's column (looked up once: a search of the raters per lookup is quadratic in them)."""
        return {r: i for i, r in enumerate(self.raters)}

    def column(self, rater: str) -> np.ndarray:
        return self.matrix[:, self.rater_at[rater]]

    @cached_property
    def human_mean(self) -> np.ndarray:
        """Each item's mean human score, NaN where no human scored it (:func:`reference`)."""
        h = self.matrix[:, len(self.judges):]
        counts = (~np.isnan(h)).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, np.nansum(h, axis=1) / np.maximum(counts, 1), np.nan)

    @cached_property
    def two_humans(self) -> np.ndarray:
        """The items two or more humans scored (the admissibility gate's items)."""
        return (~np.isnan(self.matrix[:, len(self.judges):])).sum(1) >= 2

    @cached_property
    def values(self) -> tuple[float, ...]:
        v = self.matrix[~np.isnan(self.matrix)]
        return tuple(float(x) for x in np.unique(v))

    @property
    def kind(self) -> str:
        """"binary" when every score is 0 or 1 (pass/fail), else "graded"; a declared scale decides
        (a 1-10 judge that gave only 1s is still graded)."""
        return "binary" if set(self.scale or self.values) <= {0.0, 1.0} else "graded"

    @property
    def step(self) -> float:
        """One step of the scale: the smallest gap between its values (declared, else seen); 1 without two."""
        return scale_step(self.scale or self.values)


def scale_step(values: Sequence[float]) -> float:
    """The smallest gap between consecutive scale values (0.5 for C/P/I read as 0, 0.5, 1); 1 when
    there are fewer than two values."""
    v = sorted(set(values))
    return float(min(b - a for a, b in zip(v, v[1:]))) if len(v) > 1 else 1.0


def scored_input(frame: pd.DataFrame, file: str = "") -> ScoredInput:
    """The long scores table (io's SCORE_COLUMNS: item, rater, role, score, model, length,
    confidence, line) as items x raters. Two scores of one rater on one item are a located error."""
    for col in ("item", "rater", "role", "score"):
        if col not in frame:
            raise InputError(file, None, col, "a scores table needs the columns item, rater, role and score")
    f = frame.reset_index(drop=True)
    line = f["line"].to_numpy() if "line" in f else np.arange(1, len(f) + 1)
    dup = f.duplicated(["item", "rater"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise InputError(file, int(line[i]), "item", f"a second score of rater {f['rater'][i]!s:.60} on item "
                         f"{f['item'][i]!s:.60}: one score per rater and item")
    score = pd.to_numeric(f["score"], errors="coerce").to_numpy(dtype=float)
    if np.isnan(score).any():
        i = int(np.flatnonzero(np.isnan(score))[0])
        raise InputError(file, int(line[i]), "score", "expected a number (a score, or 1/0 for pass/fail)")
    _check_magnitude(file, line, "score", score, SCORE_RANGE, smallest=MIN_SCORE_MAGNITUDE)
    check_scale(file, len(np.unique(score)))
    role = f["role"].astype(str).to_numpy()
    judges = tuple(dict.fromkeys(f["rater"].astype(str)[role == "judge"]))
    if not judges:
        raise InputError(file, None, "role", "no judge scores (role 'judge')")
    check_judges(file, len(judges))
    humans = tuple(dict.fromkeys(f["rater"].astype(str)[role == "human"]))
    if "length" in f:
        ln = pd.to_numeric(f["length"], errors="coerce").to_numpy(dtype=float)
        _check_magnitude(file, line, "length", ln[~np.isnan(ln)], "an answer length from -10^15 to 10^15",
                         np.flatnonzero(~np.isnan(ln)))
    items = tuple(dict.fromkeys(f["item"].astype(str)))
    ii = pd.Index(items).get_indexer(f["item"].astype(str))
    raters = judges + humans
    ri = pd.Index(raters).get_indexer(f["rater"].astype(str))
    keep = ri >= 0  # a role other than judge/human: not a rater here
    matrix = np.full((len(items), len(raters)), np.nan)
    matrix[ii[keep], ri[keep]] = score[keep]
    model, length, conf = _per_item(f, ii, ri, len(items), len(judges))
    notes = () if keep.all() else (f"{int((~keep).sum()):,} scores with a role other than judge or human left out",)
    return ScoredInput(file, items, judges, humans, matrix, model, length, conf, notes)


def _check_magnitude(file: str, line: np.ndarray, column: str, values: np.ndarray, expected: str,
                     at: np.ndarray | None = None, smallest: float = 0.0) -> None:
    """Every value finite, within MAX_SCORE_MAGNITUDE and 0 or at least ``smallest`` in size, else the
    first that is not, located (``at``: the values' positions in the table, when they are a part of
    its rows)."""
    bad = ~within_magnitude(values, smallest)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(line[i if at is None else at[i]])
        raise InputError(file, row, column, f"expected {expected}, got {float(values[i])!r}")


def check_judges(file: str, judges: int) -> None:
    """At most MAX_JUDGES judges in one audit, checked before any judge is measured."""
    if judges > MAX_JUDGES:
        raise InputError(file, None, "rater", f"{judges:,} judges (raters with the role judge); one audit compares at "
                         f"most {MAX_JUDGES:,} judges, each measured against the humans: audit the log in parts of "
                         f"at most {MAX_JUDGES:,} judges")


def check_scale(file: str, distinct: int) -> None:
    """A judge's scores on a scale of at most MAX_SCORE_VALUES values, before any table is built."""
    if distinct > MAX_SCORE_VALUES:
        raise InputError(file, None, "score", f"{distinct:,} distinct scores; a graded judge's scale has at most "
                         f"{MAX_SCORE_VALUES} values (round continuous scores to a scale, or audit them as ratings "
                         "at the interval level on the Panel page)")


def _per_item(f: pd.DataFrame, ii: np.ndarray, ri: np.ndarray, n: int, n_judges: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each item's model and length (the first given), each judge's confidence on it."""
    model = np.full(n, "", dtype=object)
    length = np.full(n, np.nan)
    conf = np.full((n, n_judges), np.nan)
    if "model" in f:
        m = f["model"].fillna("").astype(str).to_numpy()
        given = m != ""
        model[ii[given][::-1]] = m[given][::-1]  # the first given wins
    if "length" in f:
        ln = pd.to_numeric(f["length"], errors="coerce").to_numpy(dtype=float)
        given = ~np.isnan(ln)
        length[ii[given][::-1]] = ln[given][::-1]
    if "confidence" in f:
        c = pd.to_numeric(f["confidence"], errors="coerce").to_numpy(dtype=float)
        j = (ri >= 0) & (ri < n_judges) & ~np.isnan(c)
        conf[ii[j], ri[j]] = c[j]
    return model, length, conf


# --- pairwise alpha, exact and by item sums -----------------------------------------------------

def exact_value(v: float) -> int | Fraction:
    """A score as an exact number: an integer, or the decimal its float prints as (0.1 is 1/10), as a
    file holds it and as the panel path reads floats."""
    return int(v) if float(v).is_integer() else Fraction(repr(float(v)))


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def table_counts(values: Sequence[float], table: np.ndarray, a: str = "a", b: str = "b") -> PanelCounts:
    """The panel counts of two raters over the items both rated, from their table of paired values
    (``table[i, j]``: items where ``a`` gave ``values[i]`` and ``b`` gave ``values[j]``): each item a
    unit of two ratings. Alpha (agreebound.panel.alpha, the one implementation) reads them."""
    t = np.asarray(table, dtype=np.int64)
    rows = []
    for i, j in zip(*np.nonzero(t)):
        n = int(t[i, j])
        rows += [(2, i, i, 2 * n)] if i == j else [(2, i, j, n), (2, j, i, n)]
    totals = t.sum(1) + t.sum(0)
    raters = [(a, i, int(v)) for i, v in enumerate(t.sum(1)) if v] + [(b, j, int(v)) for j, v in enumerate(t.sum(0)) if v]
    return from_rows("scores", "number", [exact_value(v) for v in values], {2: int(t.sum())}, rows, totals, raters)


def table_alpha(values: Sequence[float], table: np.ndarray, level: str) -> Fraction | None:
    """Alpha of two raters from their table of paired values, exactly, through the panel path."""
    if not np.asarray(table).sum():
        return None
    return alpha(table_counts(values, table), level).value


def _alpha_from_tables(m: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Alpha of two raters from their C x C tables of paired values (..., C, C), in floating point:
    1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck with o = M + M^T (Krippendorff's coincidences of
    two-rater items). NaN where undefined."""
    n_c = m.sum(-1) + m.sum(-2)
    n = n_c.sum(-1)
    if level == "nominal":
        d = 1.0 - np.eye(len(values))
        d = np.broadcast_to(d, m.shape)
    elif level == "interval":
        d = np.broadcast_to((values[:, None] - values[None, :]) ** 2, m.shape)
    else:  # ordinal: (sum of n_g from c to k - (n_c + n_k) / 2)^2
        cum = np.cumsum(n_c, axis=-1)
        lo = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        hi = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        span = np.take(cum, hi, axis=-1) - np.take(cum, lo, axis=-1) + np.take(n_c, lo, axis=-1)
        d = (span - (n_c[..., :, None] + n_c[..., None, :]) / 2) ** 2
    do = ((m + np.swapaxes(m, -1, -2)) * d).sum((-1, -2))
    de = (n_c[..., :, None] * n_c[..., None, :] * d).sum((-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(de > 0, 1 - (n - 1) * do / de, np.nan)


@dataclass(frozen=True)
class PairAlpha:
    """Alpha of two raters over the items both rated, exactly (shown beside the pooled alphas)."""

    a: str
    b: str
    exact: Fraction | None
    items: int  # items both rated


def _pair_table(x: ScoredInput, a: str, b: str, items: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' table of paired values (codes into ``x.values``) and the items behind each pair."""
    va, vb = x.column(a), x.column(b)
    both = ~np.isnan(va) & ~np.isnan(vb) & (True if items is None else items)
    vals = np.asarray(x.values)
    return np.column_stack([np.searchsorted(vals, va[both]), np.searchsorted(vals, vb[both])]), np.flatnonzero(both)


def pair_alpha(x: ScoredInput, a: str, b: str, level: str) -> PairAlpha:
    codes, where = _pair_table(x, a, b)
    c = len(x.values)
    table = np.bincount(codes[:, 0] * c + codes[:, 1], minlength=c * c).reshape(c, c)
    return PairAlpha(a, b, table_alpha(x.values, table, level), len(where))


#: The delete-one-item jackknife of a pooled alpha builds at most this many cells at once.
_LOO_CELLS = 8_000_000
#: Above this many distinct scores the jackknife (items x scores^2 cells) is not computed.
LOO_MAX_VALUES = 100


@dataclass(frozen=True)
class PooledAlpha:
    """Alpha over pairs of raters pooled: every listed pair's two scores on an item they both scored
    is one unit of two values (a rater pair exchangeable with another contributes alike), exactly
    through the panel path; and left out one item at a time (the jackknife's)."""

    exact: Fraction | None
    table: np.ndarray = field(repr=False)  # values x values counts, pooled
    items: np.ndarray = field(repr=False)  # the items contributing a pair
    loo: np.ndarray = field(repr=False)  # per contributing item: alpha without it (NaN: undefined)

    @property
    def pairs(self) -> int:
        return int(self.table.sum())


def pooled_alpha(x: ScoredInput, raters: Sequence[tuple[str, str]], level: str,
                 items: np.ndarray | None = None) -> PooledAlpha:
    """Alpha of the listed rater pairs pooled, over ``items`` (a mask; None: every item)."""
    c = len(x.values)
    got = [_pair_table(x, a, b, items) for a, b in raters]
    codes = np.concatenate([g[0] for g in got]) if got else np.zeros((0, 2), dtype=np.int64)
    where = np.concatenate([g[1] for g in got]) if got else np.zeros(0, dtype=np.int64)
    cell = codes[:, 0] * c + codes[:, 1]
    table = np.bincount(cell, minlength=c * c).reshape(c, c)
    exact = table_alpha(x.values, table, level)
    contributing, slot = np.unique(where, return_inverse=True)
    loo = np.full(len(contributing), np.nan)
    if exact is not None and len(contributing) > 1 and c <= LOO_MAX_VALUES and level != "ratio":
        vals = np.asarray(x.values)
        block = max(1, _LOO_CELLS // (c * c))
        for start in range(0, len(contributing), block):
            stop = min(start + block, len(contributing))
            tables = np.broadcast_to(table.astype(float), (stop - start, c, c)).copy()
            mine = (slot >= start) & (slot < stop)
            np.add.at(tables, (slot[mine] - start, codes[mine, 0], codes[mine, 1]), -1.0)
            loo[start:stop] = _alpha_from_tables(tables, vals, level)
    return PooledAlpha(exact, table, contributing, loo)


# --- intervals ------------------------------------------------------------------------------------

def jackknife(full: float, loo: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """The delete-one jackknife's 95% interval (t quantile, n - 1 df) and standard error from the
    statistic computed without each item; (None, None, None) when any is undefined or n < 3."""
    n = len(loo)
    if n < 3 or not np.isfinite(full) or not np.all(np.isfinite(loo)):
        return None, None, None
    se = math.sqrt((n - 1) / n * float(((loo - loo.mean()) ** 2).sum()))
    t = t_quantile(0.975, n - 1)
    return full - t * se, full + t * se, se


def _sums_jackknife(stat: Callable[[np.ndarray], np.ndarray], rows: np.ndarray
                    ) -> tuple[float, float | None, float | None, float | None]:
    """A statistic of item sums (``stat`` maps (..., p) sums to (...) values), at full sample and
    its jackknife interval: each item's row of ``rows`` (n x p) left out in turn."""
    total = rows.sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        full = float(stat(total))
        loo = stat(total[None, :] - rows)
    return (full, *jackknife(full, loo))


def _jack_measure(name: str, title: str, exact: Fraction | float | None, kind: str,
                  stat: Callable[[np.ndarray], np.ndarray], rows: np.ndarray, definition: str,
                  fraction: str = "") -> Measure:
    if exact is None or len(rows) == 0:
        return Measure(name, title, None, "", kind=kind, definition=definition,
                       unavailable="undefined: no variation or no items to measure it on")
    full, low, high, se = _sums_jackknife(stat, rows)
    method = JACKKNIFE.format(n=len(rows), df=len(rows) - 1) if low is not None else ""
    return Measure(name, title, exact, fraction, low, high, method, definition, kind, se=se, cases=len(rows))


# --- one judge against the humans ------------------------------------------------------------------

#: Fewer items than this behind a gate's alpha: no interval, and the gate is not evaluable.
MIN_ITEMS = 10
NO_HUMANS = "no human labels on the judge's items: add them (--references, or the human labels upload)"
#: The measures beside the gates, by kind: (name, title, kind), in the order shown.
GRADED_MEASURES = (("exact_agreement", "exact agreement with a human", "share"),
                   ("within_one", "agreement within one step of the scale", "share"),
                   ("weighted_kappa", "Cohen's kappa (quadratic weights) with the humans", "coefficient"),
                   ("leniency", "leniency (judge minus human, mean)", "scale"),
                   ("central_tendency", "spread of judge scores over the humans' (SD ratio)", "ratio"),
                   ("length_effect", "judge's excess over the humans vs answer length (correlation)", "coefficient"),
                   ("self_preference_scored", "self-preference (own answers minus others')", "scale"))
BINARY_MEASURES = (("accuracy", "accuracy (judge = human)", "share"),
                   ("kappa", "Cohen's kappa with the humans", "coefficient"),
                   ("sensitivity", "sensitivity (passes what a human passes)", "share"),
                   ("specificity", "specificity (fails what a human fails)", "share"),
                   ("yes_lean", "yes-lean (judge pass rate minus human pass rate)", "difference"),
                   ("self_preference_scored", "self-preference (own answers minus others')", "difference"))
TITLES = {name: title for name, title, _ in GRADED_MEASURES + BINARY_MEASURES}

def reference(x: ScoredInput) -> np.ndarray:
    """Each item's human consensus: the mean of its human scores; NaN where no human scored it. The
    control in the length effect and the baseline of self-preference (a mean, so it carries no
    rounding: a median of two would be their minimum, and every judge would look lenient)."""
    return x.human_mean


@dataclass(frozen=True)
class Pairs:
    """The judge's score beside each human's on the items both scored: the unit of the agreement
    measures (an exchangeable judge agrees with a human as a human does), each item one cluster."""

    item: np.ndarray  # item index (into the input's items) of each pair
    judge: np.ndarray  # the judge's score
    human: np.ndarray  # the human's score
    n_items: int

    @classmethod
    def of(cls, x: ScoredInput, judge: str) -> "Pairs":
        j = x.column(judge)
        h = x.matrix[:, len(x.judges):]
        mask = ~np.isnan(j)[:, None] & ~np.isnan(h)
        item, col = np.nonzero(mask)
        return cls(item, j[item], h[item, col], len(np.unique(item)))

    def per_item(self, values: np.ndarray) -> np.ndarray:
        """Sums over each item's pairs (items without pairs dropped): one row per cluster."""
        idx, inverse = np.unique(self.item, return_inverse=True)
        return np.bincount(inverse, weights=values, minlength=len(idx))

    def rows(self, cols: Sequence[np.ndarray]) -> np.ndarray:
        return np.column_stack([self.per_item(np.asarray(c, dtype=float)) for c in cols])


def clustered_share(name: str, title: str, hit: np.ndarray, pairs: Pairs, definition: str,
                    among: np.ndarray | None = None) -> Measure:
    """A share of pairs (``among``: of those pairs only), with the house's case-clustered Wilson
    interval (agreebound.core.intervals.rate_interval: each item one case, its design effect measured)."""
    among = np.ones(len(hit), dtype=bool) if among is None else among
    y = pairs.per_item((hit & among).astype(float)).astype(np.int64)
    m = pairs.per_item(among.astype(float)).astype(np.int64)
    y, m = y[m > 0], m[m > 0]
    s, n = int(y.sum()), int(m.sum())
    if n == 0:
        return Measure(name, title, None, "", definition=definition, unavailable="no pairs to measure it on")
    stats = RateStats(s, n, len(m), int((y * y).sum()), int((y * m).sum()), int((m * m).sum()))
    ri = rate_interval(name, s, n, stats, Z95)
    return Measure(name, title, Fraction(s, n), f"{s:,}/{n:,}", ri.low, ri.high, ri.method.replace("case", "item"),
                   definition, "share", cases=len(m), se=(ri.high - ri.low) / (2 * Z95), design_effect=ri.deff)


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge's audit against the humans: the gates' alphas and the measures beside them."""

    judge: str
    kind: str
    level: str
    items: int  # items with the judge's score and at least one human's
    pairs: int  # (item, human) pairs behind the agreement measures
    judge_alpha: Measure  # alpha of the judge-human pairs, pooled
    human_alpha: Measure | None  # alpha of the human-human pairs, pooled (None: fewer than two humans)
    difference: Measure | None  # judge_alpha - human_alpha, for the admissibility gate
    alphas: tuple[PairAlpha, ...]  # judge-human pairs, then human-human pairs
    measures: tuple[Measure, ...]  # beside the gates, by kind
    confidence: Calibration | None = None
    #: judge score x human score counts over the pairs (rows: the judge's, columns: the human's)
    table: tuple[tuple[float, ...], tuple[tuple[int, ...], ...]] = ((), ())

    def measure(self, name: str) -> Measure | None:
        return next((m for m in self.measures if m.name == name), None)


def _pooled_measure(name: str, title: str, p: PooledAlpha, definition: str, none: str) -> Measure:
    """A pooled alpha as a measure, with its jackknife over the items contributing a pair."""
    if not p.pairs:
        return Measure(name, title, None, "", kind="coefficient", definition=definition, unavailable=none)
    if p.exact is None:
        return Measure(name, title, None, "", kind="coefficient", definition=definition,
                       unavailable="undefined: the pairs' scores do not vary")
    n = len(p.items)
    low, high, se = jackknife(float(p.exact), p.loo) if n >= MIN_ITEMS else (None, None, None)
    method = JACKKNIFE.format(n=n, df=n - 1) if low is not None else _no_interval(n, p)
    return Measure(name, title, p.exact, f"{p.pairs:,} pairs over {n:,} items", low, high, method, definition,
                   "coefficient", se=se, cases=n)


def _no_interval(n: int, p: PooledAlpha) -> str:
    if n < MIN_ITEMS:
        return f"no interval: {n} item{'' if n == 1 else 's'}, fewer than {MIN_ITEMS}"
    if len(p.table) > LOO_MAX_VALUES:
        return f"no interval: more than {LOO_MAX_VALUES} distinct scores"
    return "no interval: alpha is undefined without some item"


def _difference(jh: PooledAlpha, hh: PooledAlpha) -> Measure:
    """The judge's pooled alpha with the humans minus the humans' with each other, on the items two or
    more humans scored; its jackknife leaves each such item out of both."""
    title = "judge's alpha minus the humans' alpha"
    definition = ("alpha of the judge-human pairs minus alpha of the human-human pairs, each pair's two scores on an "
                  "item one unit, over the items two or more humans scored: negative when the judge agrees with the "
                  "humans less than they agree with each other")
    if jh.exact is None or hh.exact is None:
        why = ("no item has two or more humans' scores" if not hh.pairs else
               "undefined: the pairs' scores do not vary" if hh.exact is None or jh.pairs else NO_HUMANS)
        return Measure("alpha_difference", title, None, "", kind="coefficient", definition=definition, unavailable=why)
    exact = jh.exact - hh.exact
    items = np.union1d(jh.items, hh.items)
    loo_j = np.full(len(items), float(jh.exact))
    loo_j[np.searchsorted(items, jh.items)] = jh.loo
    loo_h = np.full(len(items), float(hh.exact))
    loo_h[np.searchsorted(items, hh.items)] = hh.loo
    n = len(items)
    low, high, se = jackknife(float(exact), loo_j - loo_h) if n >= MIN_ITEMS else (None, None, None)
    method = JACKKNIFE.format(n=n, df=n - 1) if low is not None else _no_interval(n, hh)
    return Measure("alpha_difference", title, exact, f"{float(jh.exact):.3f} - {float(hh.exact):.3f} over {n:,} items",
                   low, high, method, definition, "coefficient", se=se, cases=n)


@dataclass(frozen=True)
class HumanSide:
    """What every judge of a log is held against, measured once for all of them: the humans' pooled
    alpha over the items two or more humans scored, and each two humans' alpha."""

    pooled: PooledAlpha | None  # None: fewer than two humans
    measure: Measure | None
    alphas: tuple[PairAlpha, ...]


def human_side(x: ScoredInput, level: str) -> HumanSide:
    hpairs = [(a, b) for i, a in enumerate(x.humans) for b in x.humans[i + 1:]]
    if not hpairs:
        return HumanSide(None, None, ())
    hh = pooled_alpha(x, hpairs, level, x.two_humans)
    ha = _pooled_measure("human_alpha", "humans vs humans: alpha", hh,
                         "alpha of the human-human pairs: two humans' scores on an item one unit of two values",
                         "no item has two or more humans' scores")
    return HumanSide(hh, ha, tuple(pair_alpha(x, a, b, level) for a, b in hpairs))


def agreement(x: ScoredInput, judge: str, level: str, humans: HumanSide | None = None) -> JudgeAgreement:
    """One judge against the humans: the gates' alphas (with their jackknife intervals) and, by
    kind, the measures beside them. ``humans``: the humans' side measured once for every judge of
    the log (:func:`human_side`), else measured here."""
    humans = humans or human_side(x, level)
    jpairs = [(judge, h) for h in x.humans]
    ja = _pooled_measure("judge_alpha", "judge vs humans: alpha", pooled_alpha(x, jpairs, level),
                         "alpha of the judge-human pairs: each human's score and the judge's on an item they both "
                         "scored is one unit of two values", NO_HUMANS)
    ha, diff = humans.measure, None
    if humans.pooled is not None:
        diff = _difference(pooled_alpha(x, jpairs, level, x.two_humans), humans.pooled)
    alphas = tuple(pair_alpha(x, a, b, level) for a, b in jpairs) + humans.alphas
    pairs = Pairs.of(x, judge)
    if len(pairs.item):
        measures = (graded_measures if x.kind == "graded" else binary_measures)(x, judge, pairs, level)
    else:  # nothing to compare the judge with: every measure says so
        measures = tuple(Measure(name, title, None, "", kind=kind, unavailable=NO_HUMANS)
                         for name, title, kind in (GRADED_MEASURES if x.kind == "graded" else BINARY_MEASURES))
    conf = stated_confidence(x, judge) if x.kind == "binary" else None
    values = np.asarray(x.values)
    c = len(values)
    cells = np.bincount(np.searchsorted(values, pairs.judge) * c + np.searchsorted(values, pairs.human),
                        minlength=c * c).reshape(c, c)
    table = (tuple(map(float, values)), tuple(tuple(int(v) for v in row) for row in cells))
    return JudgeAgreement(judge, x.kind, level, pairs.n_items, len(pairs.item), ja, ha, diff, alphas, measures,
                          conf, table)


def stated_confidence(x: ScoredInput, judge: str) -> Calibration | None:
    """The judge's stated probability of pass against the humans' verdict, one forecast per item
    (the humans' majority; an item the humans split evenly has no verdict and is left out, counted).
    None when the judge states no confidence on two or more such items."""
    p = x.confidence[:, x.rater_at[judge]]
    ref = reference(x)
    verdict = ~np.isnan(p) & ~np.isnan(ref) & ~np.isnan(x.column(judge))
    split = verdict & (ref == 0.5)
    usable = verdict & ~split
    if usable.sum() < 2:
        return None
    return calibration(p[usable], (ref[usable] > 0.5).astype(float), split=int(split.sum()))


def _kappa(pairs: Pairs, level: str, weights: str) -> Fraction | None:
    """Cohen's kappa (weighted) of the judge and the humans over the pairs, through the coefficients
    module (two raters: its Cohen kappa), each pair a row."""
    if not len(pairs.item):
        return None
    coded = encode([[_num(a), _num(b)] for a, b in zip(pairs.judge, pairs.human)])
    c = coefficients(coded, ["judge", "human"], level).get("cohen_kappa", weights)
    return None if c is None else c.value


def _kappa_measure(name: str, title: str, pairs: Pairs, level: str, weights: str, definition: str) -> Measure:
    """Kappa over the pairs, exact through the coefficients module; its jackknife over items from each
    item's sums (its pairs, their weighted agreement, the judge's and the humans' values' counts: 2 x
    values + 2 columns, never values^2), weighted as the coefficients module weighs the values used."""
    j, r = pairs.judge, pairs.human
    values = np.unique(np.concatenate([j, r]))
    c = len(values)
    w = np.array(weight_matrix(weights, [_num(v) for v in values], True), dtype=float)
    ij, ir = np.searchsorted(values, j), np.searchsorted(values, r)
    rows = pairs.rows([np.ones(len(j)), w[ij, ir]] + [ij == k for k in range(c)] + [ir == k for k in range(c)])

    def stat(s: np.ndarray) -> np.ndarray:
        n = s[..., 0]
        po = s[..., 1] / n
        pe = np.einsum("...c,ck,...k->...", s[..., 2:2 + c], w, s[..., 2 + c:]) / n ** 2
        return (po - pe) / (1 - pe)

    return _jack_measure(name, title, _kappa(pairs, level, weights), "coefficient", stat, rows, definition)


def graded_measures(x: ScoredInput, judge: str, pairs: Pairs, level: str) -> tuple[Measure, ...]:
    """Over the (item, human) pairs: exact and within-one agreement, quadratic-weighted kappa,
    leniency, central tendency; over items: the score-length partial correlation (the humans' mean
    held) and self-preference."""
    j, h = pairs.judge, pairs.human
    weights = "quadratic" if level != "nominal" else "identity"
    d = [Fraction(_num(a)) - Fraction(_num(b)) for a, b in zip(j, h)]
    leniency = sum(d, Fraction(0)) / len(d) if d else None
    ref = reference(x)
    jcol = x.column(judge)
    items = ~np.isnan(jcol) & ~np.isnan(ref)
    return (
        clustered_share("exact_agreement", TITLES["exact_agreement"], j == h, pairs,
                        "pairs of the judge's and a human's score on the same item that are equal"),
        clustered_share("within_one", TITLES["within_one"], np.abs(j - h) <= x.step, pairs,
                        f"pairs of the judge's and a human's score on the same item at most one step of the scale "
                        f"({x.step:g}) apart"),
        _kappa_measure("weighted_kappa", TITLES["weighted_kappa"].replace("quadratic", weights), pairs, level, weights,
                       f"judge vs each human over the pairs, {weights} weights (agreebound.panel.coefficients' Cohen kappa)"),
        _jack_measure("leniency", TITLES["leniency"], leniency, "scale",
                      lambda s: s[..., 0] / s[..., 1], pairs.rows([j - h, np.ones(len(j))]),
                      "the mean over the pairs of the judge's score minus the human's: positive = the judge is lenient"),
        _central_tendency(pairs),
        _length_effect(x, jcol[items], ref[items], items),
        _self_preference(x, judge, items, "scale"),
    )


def _central_tendency(pairs: Pairs) -> Measure:
    """The standard deviation of the judge's scores over that of the humans' (over the pairs)."""
    j, h = pairs.judge, pairs.human

    def stat(s: np.ndarray) -> np.ndarray:
        n = s[..., 0]
        vj = s[..., 3] / n - (s[..., 1] / n) ** 2
        vh = s[..., 4] / n - (s[..., 2] / n) ** 2
        return np.sqrt(np.maximum(vj, 0) / vh)

    # the moments about the humans' mean (a variance is the same about any point): raw squares of
    # scores far from zero (10^12 + 1, 10^12 + 2, ...) would cancel to noise in s2/n - (s/n)^2
    o = float(h.mean()) if len(h) else 0.0
    jc, hc = j - o, h - o
    rows = pairs.rows([np.ones(len(j)), jc, hc, jc * jc, hc * hc])
    exact = float(np.std(j) / np.std(h)) if len(j) > 1 and np.std(h) > 0 else None
    return _jack_measure("central_tendency", TITLES["central_tendency"], exact, "ratio",
                         stat, rows, "the standard deviation of the judge's scores over that of the humans' scores, "
                         "over the pairs: below 1 = the judge avoids the ends of the scale")


def _length_effect(x: ScoredInput, j: np.ndarray, r: np.ndarray, both: np.ndarray) -> Measure:
    """The correlation of the judge's excess over the humans' mean with the answer's length."""
    title = TITLES["length_effect"]
    definition = ("r(judge - humans' mean, length) over the items: positive = longer answers get more from the judge "
                  "than from the humans. Not the partial correlation r(judge, length | humans' mean): the humans' mean "
                  "measures quality with error, so where longer answers are better that one flags an unbiased judge")
    ln = x.length[both]
    ok = ~np.isnan(ln)
    if ok.sum() < 4:
        return Measure("length_effect", title, None, "", kind="coefficient", definition=definition,
                       unavailable="the log has no answer lengths" if not ok.any() else "fewer than 4 items with lengths")
    d, b = (j - r)[ok], ln[ok]
    rows = np.column_stack([np.ones(len(d)), d, b, d * d, b * b, d * b])

    def stat(s: np.ndarray) -> np.ndarray:
        n = s[..., 0]
        md, mb = s[..., 1] / n, s[..., 2] / n
        return (s[..., 5] / n - md * mb) / np.sqrt((s[..., 3] / n - md ** 2) * (s[..., 4] / n - mb ** 2))

    with np.errstate(divide="ignore", invalid="ignore"):
        full = float(stat(rows.sum(0)))
    return _jack_measure("length_effect", title, full if np.isfinite(full) else None, "coefficient", stat, rows,
                         definition)


def is_self(model: str, judge: str) -> bool:
    """The judged answer is the judge's own model's: the same name, ignoring case, punctuation and a
    provider prefix ("openai/gpt-4o" is "gpt-4o")."""
    def norm(s: str) -> str:
        return "".join(ch for ch in s.lower().rsplit("/", 1)[-1] if ch.isalnum())
    return bool(model) and norm(model) == norm(judge)


def _exact_differences(x: ScoredInput, judge: str, items: np.ndarray) -> list[Fraction]:
    """Judge score minus the humans' mean on each item, exactly."""
    hs = x.matrix[:, len(x.judges):]
    j = x.column(judge)
    out = []
    for i in np.flatnonzero(items):
        row = [Fraction(_num(v)) for v in hs[i] if not np.isnan(v)]
        out.append(Fraction(_num(j[i])) - sum(row, Fraction(0)) / len(row))
    return out


def _self_preference(x: ScoredInput, judge: str, items: np.ndarray, kind: str) -> Measure:
    """The mean of judge minus the humans' mean on the judge's own model's answers, minus the same
    on the others'."""
    title = TITLES["self_preference_scored"]
    definition = ("the mean of judge minus the humans' mean on the judge's own model's answers, minus the same on "
                  "the other models' answers. A judge that compresses the scale (SD ratio below 1) shows one too when "
                  "its own model's answers are better or worse than the others': read it beside the SD ratio")
    own = np.array([is_self(m, judge) for m in x.model[items]], dtype=bool)
    if not own.any() or own.all():
        why = ("no answer of the judge's own model in the log" if not own.any()
               else "every answer is the judge's own model's")
        return Measure("self_preference_scored", title, None, "", kind=kind, definition=definition, unavailable=why)
    d = _exact_differences(x, judge, items)
    mine = [v for v, o in zip(d, own) if o]
    other = [v for v, o in zip(d, own) if not o]
    exact = sum(mine, Fraction(0)) / len(mine) - sum(other, Fraction(0)) / len(other)
    df = np.array([float(v) for v in d])
    rows = np.column_stack([own, own * df, ~own, ~own * df]).astype(float)
    return _jack_measure("self_preference_scored", title, exact, kind,
                         lambda s: s[..., 1] / s[..., 0] - s[..., 3] / s[..., 2], rows, definition,
                         f"{len(mine):,} own vs {len(other):,} other answers")


def binary_measures(x: ScoredInput, judge: str, pairs: Pairs, level: str) -> tuple[Measure, ...]:
    """Over the (item, human) pairs, a human's pass the positive: accuracy, Cohen's kappa, sensitivity,
    specificity and the yes-lean; over items: self-preference against the humans' mean."""
    jp, hp = pairs.judge == 1, pairs.human == 1
    n = len(jp)
    lean = Fraction(int(jp.sum()) - int(hp.sum()), n) if n else None
    ref = reference(x)
    jcol = x.column(judge)
    items = ~np.isnan(jcol) & ~np.isnan(ref)
    return (
        clustered_share("accuracy", TITLES["accuracy"], jp == hp, pairs,
                        "pairs of the judge's and a human's verdict on the same item that are equal"),
        _kappa_measure("kappa", TITLES["kappa"], pairs, "nominal", "identity",
                       "judge vs each human over the pairs (agreebound.panel.coefficients' Cohen kappa)"),
        clustered_share("sensitivity", TITLES["sensitivity"], jp, pairs,
                        "of the pairs where the human passes the item, the share where the judge passes it", among=hp),
        clustered_share("specificity", TITLES["specificity"], ~jp, pairs,
                        "of the pairs where the human fails the item, the share where the judge fails it", among=~hp),
        _jack_measure("yes_lean", TITLES["yes_lean"], lean, "difference",
                      lambda s: (s[..., 0] - s[..., 1]) / s[..., 2], pairs.rows([jp, hp, np.ones(n)]),
                      "the judge's pass rate minus the humans' over the same pairs: positive = the judge says yes "
                      "more often", f"{int(jp.sum()):,}/{n:,} - {int(hp.sum()):,}/{n:,}"),
        _self_preference(x, judge, items, "difference"),
    )


# --- several judges: a panel of judges ---------------------------------------------------------------

@dataclass(frozen=True)
class JudgePanel:
    """Several judges over the same items: alpha among them (the panel path), alpha without each,
    and which judge to drop."""

    alpha: Fraction | None
    without: dict[str, Fraction | None]
    drop: str | None
    why: str


def judge_panel(x: ScoredInput, level: str, agreements: Sequence[JudgeAgreement]) -> JudgePanel | None:
    if len(x.judges) < 2:
        return None
    full, without = _judge_panel_alphas(x, level)
    drop, why = _drop(full, without, agreements)
    return JudgePanel(full, without, drop, why)


def _judge_panel_alphas(x: ScoredInput, level: str) -> tuple[Fraction | None, dict[str, Fraction | None]]:
    """Alpha among the judges, and without each judge (three judges or more), through the panel path
    (agreebound.panel.alpha) from pair counts. Leaving one judge out changes only the items it scored, so
    each judge's counts are the panel's less its items' pairs plus the same items' pairs without its
    score: every judge's alpha costs its own items, not the whole log again (the whole log once per
    judge was quadratic in the judges)."""
    k = len(x.judges)
    m = x.matrix[:, :k]
    item, judge = np.nonzero(~np.isnan(m))  # by item, then judge
    score = m[item, judge]
    vals = np.unique(score)
    c = max(len(vals), 1)
    code = np.searchsorted(vals, score).astype(np.int64)
    # each item's histogram of the judges' scores: entries (item, value, count), by item then value
    keys, at, cnt = np.unique(item * c + code, return_inverse=True, return_counts=True)
    e_item, e_code = keys // c, keys % c
    starts = np.flatnonzero(np.r_[True, e_item[1:] != e_item[:-1]]) if len(keys) else np.zeros(0, dtype=np.int64)
    lens = np.diff(np.r_[starts, len(keys)])
    size = np.add.reduceat(cnt, starts) if len(keys) else np.zeros(0, dtype=np.int64)
    unit_of_entry = np.repeat(np.arange(len(starts)), lens)
    cats = Categories(floats=vals)
    totals = np.bincount(code, minlength=c)
    pairs = pairs_of_rows(e_code, cnt, starts, None, c)
    by_m = np.bincount(size) if len(size) else np.zeros(0, dtype=np.int64)

    ranked = sorted(x.judges)

    def alpha_of(pairs_m: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]], units_by_m: np.ndarray,
                 tot: np.ndarray, raters: list[str]) -> Fraction | None:
        counts = PanelCounts("judges", "number", cats, {int(s): int(units_by_m[s]) for s in np.flatnonzero(units_by_m)
                                                       if s}, pairs_m, tot, {}, raters=raters)
        return alpha(counts, level).value

    full = alpha_of(pairs, by_m, totals, ranked)
    if k <= 2:
        return full, {}
    without: dict[str, Fraction | None] = {}
    # the judge's cells by judge (stable: by item within a judge), and the entry each cell is in
    order = np.argsort(judge, kind="stable")
    bounds = np.searchsorted(judge[order], np.arange(k + 1))
    for i, name in enumerate(x.judges):
        mine = order[bounds[i]:bounds[i + 1]]  # the judge's cells
        units = unit_of_entry[at[mine]]  # the items it scored, as histogram rows
        rows = _ranges_of(starts[units], lens[units])  # those items' entries
        owner = np.repeat(np.arange(len(units)), lens[units])
        less = cnt[rows] - (rows == np.repeat(at[mine], lens[units]))  # its score taken out
        keep = less > 0
        before = pairs_of_rows(e_code[rows], cnt[rows], np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
                               if len(owner) else np.zeros(0, dtype=np.int64), None, c)
        o2 = owner[keep]
        after = pairs_of_rows(e_code[rows][keep], less[keep], np.flatnonzero(np.r_[True, o2[1:] != o2[:-1]])
                              if len(o2) else np.zeros(0, dtype=np.int64), None, c)
        units_m = by_m.copy()
        np.subtract.at(units_m, size[units], 1)
        np.add.at(units_m, size[units] - 1, 1)
        r = bisect_left(ranked, name)
        without[name] = alpha_of(_pairs_sum(pairs, before, after, c), units_m,
                                 totals - np.bincount(code[mine], minlength=c), ranked[:r] + ranked[r + 1:])
    return full, without


def _ranges_of(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The indices starts[j] .. starts[j] + lens[j] - 1 of every j, concatenated."""
    if not len(lens):
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lens)
    return np.arange(ends[-1], dtype=np.int64) - np.repeat(ends - lens, lens) + np.repeat(starts, lens)


def _pairs_sum(full: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]],
               less: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]],
               more: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]], c: int
               ) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Pair counts (m -> (c, k, count), sorted by (c, k), counts > 0): ``full - less + more``. Exact
    in int64: a size's pair count is at most the square of the ratings (MAX_ROWS squared < 2^63)."""
    out = dict(full)
    for m in set(less) | set(more):
        parts = [(p, sign) for p, sign in ((full.get(m), 1), (less.get(m), -1), (more.get(m), 1)) if p is not None]
        key = np.concatenate([p[0] * c + p[1] for p, _ in parts])
        w = np.concatenate([np.asarray(p[2], dtype=np.int64) * sign for p, sign in parts])
        uniq, inv = np.unique(key, return_inverse=True)
        total = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(total, inv, w)
        keep = total > 0
        if keep.any():
            out[m] = (uniq[keep] // c, uniq[keep] % c, total[keep])
        else:
            out.pop(m, None)
    return out


def _drop(full: Fraction | None, without: dict[str, Fraction | None], agreements: Sequence[JudgeAgreement]
          ) -> tuple[str | None, str]:
    """The judge to drop: with human labels, the one that agrees with them least when its interval
    lies below the best judge's alpha (none when they overlap: no judge stands out); without human
    labels, the one whose removal raises the judges' alpha most (none when no removal raises it)."""
    rated = [a for a in agreements if a.judge_alpha.exact is not None]
    if len(rated) >= 2:
        worst_a = min(rated, key=lambda a: a.judge_alpha.exact)
        best = max(rated, key=lambda a: a.judge_alpha.exact)
        w, b = worst_a.judge_alpha, best.judge_alpha
        if w.high is not None and w.high < float(b.exact):  # clearly below the best, not by chance
            return worst_a.judge, (f"it agrees with the humans least: alpha {w.value_text()} {w.interval_text()}, "
                                   f"below {best.judge}'s {b.value_text()}")
        return None, ("no judge stands out: the lowest alpha with the humans "
                      f"({worst_a.judge}, {w.value_text()} {w.interval_text()}) reaches the best's "
                      f"({best.judge}, {b.value_text()})")
    gains = [(v - full, j) for j, v in without.items() if v is not None and full is not None]
    if gains and max(gains)[0] > 0:
        gain, judge = max(gains)
        return judge, f"leaving it out raises the judges' alpha by {float(gain):.3f}"
    return None, "no judge's removal raises the judges' alpha"


# --- the measurement ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredMeasurement:
    """A graded or pass/fail judge log measured: one agreement per judge, the panel of judges."""

    input: ScoredInput
    kind: str
    level: str
    level_chosen_by: str  # "data" (the kind's default) or "user"
    agreements: tuple[JudgeAgreement, ...]
    panel: JudgePanel | None
    #: what ties the result to the judge and rubric (grader model, rubric digest, tool), as io read it
    identity: dict[str, str] = field(default_factory=dict)
    shape: str = "scores table"  # the log's shape, as io recognised it
    read_notes: tuple[str, ...] = ()  # what io read and left out, counted
    labels: dict[float, str] = field(default_factory=dict)  # how scores were written (1.0 -> "C")

    @property
    def notes(self) -> tuple[str, ...]:
        return self.read_notes + self.input.notes

    @cached_property
    def _by_judge(self) -> dict[str, JudgeAgreement]:
        return {a.judge: a for a in self.agreements}

    def agreement(self, judge: str) -> JudgeAgreement:
        """The judge's audit (a lookup: pages ask for every judge's in turn)."""
        return self._by_judge[judge]

    @property
    def kind_words(self) -> str:
        """The judge's kind and why, in words."""
        if self.kind == "binary":
            return "pass/fail judge: every score is 0 or 1 (pass = 1)"
        scale = self.input.scale or self.input.values
        seen = "" if not self.input.scale or set(self.input.values) == set(scale) else \
            f" ({len(self.input.values)} of them used)"
        return (f"graded judge: scores on a scale of {len(scale)} values from {scale[0]:g} to {scale[-1]:g}"
                f"{' (as the log declares it)' if self.input.scale else ''}{seen}")


def confidence_notes(x: ScoredInput) -> tuple[str, ...]:
    """What became of the judges' stated confidences, said: a graded judge's are not used; a pass/fail
    judge's are scored over the items that state one."""
    stated = ~np.isnan(x.confidence)
    if not stated.any():
        return ()
    if x.kind == "graded":
        return (f"{int(stated.sum()):,} stated confidences were not used: a graded judge's confidence has no single "
                "pass/fail outcome to be scored against",)
    out = []
    for i, judge in enumerate(x.judges):
        scored = ~np.isnan(x.column(judge))
        k, n = int((stated[:, i] & scored).sum()), int(scored.sum())
        if 0 < k < n:
            out.append(f"{judge} states a confidence on {k:,} of its {n:,} items: its calibration is over those")
    return tuple(out)


def default_level(kind: str) -> str:
    """A pass/fail verdict is nominal; a score on a scale is ordinal (its steps need not be equal)."""
    return "nominal" if kind == "binary" else "ordinal"


def measure_scored(frame: pd.DataFrame, file: str = "", level: str | None = None, *,
                   identity: dict[str, str] | None = None, shape: str = "scores table",
                   notes: Sequence[str] = (), labels: dict[float, str] | None = None,
                   scale: Sequence[float] | None = None) -> ScoredMeasurement:
    """Measure a graded or pass/fail judge log (io's scores table) against its human labels.
    ``level``: None for the kind's default (:func:`default_level`), said as chosen from the data;
    nominal, ordinal or interval (a score's zero is not a ratio scale's). ``scale``: the values the
    log declares (decides the kind and the scale's step), else those seen."""
    if level not in (None, "nominal", "ordinal", "interval"):
        raise ValueError(f"a judge's level is nominal, ordinal or interval, not {level!r}")
    x = scored_input(frame, file)
    if scale:
        x = replace(x, scale=tuple(float(v) for v in scale))
    x = replace(x, notes=x.notes + confidence_notes(x))
    kind = x.kind
    chosen = "user" if level else "data"
    level = level or default_level(kind)
    humans = human_side(x, level)
    agreements = tuple(agreement(x, j, level, humans) for j in x.judges)
    return ScoredMeasurement(x, kind, level, chosen, agreements, judge_panel(x, level, agreements),
                             dict(identity or {}), shape, tuple(notes), dict(labels or {}))


# --- the counts an out-of-core engine returns -------------------------------------------------------

@dataclass(frozen=True)
class ScoredCounts:
    """Every two raters' table of paired scores over the items both scored, and the same over the
    items two or more humans scored, and each rater's role: what an engine
    (agreebound.engines.scored_sql) returns, mergeable by adding tables."""

    roles: dict[str, str]  # rater -> "judge" | "human"
    items: dict[str, int]  # rater -> items it scored
    values: tuple[float, ...]  # the scores that occur in a pair, ascending
    tables: dict[tuple[str, str], np.ndarray] = field(repr=False)  # (a, b), a < b: values x values counts
    tables2: dict[tuple[str, str], np.ndarray] = field(repr=False)  # the same, items two or more humans scored

    @classmethod
    def of(cls, roles: dict[str, str], items: dict[str, int], pairs: Sequence[tuple[str, str, float, float, int]],
           pairs2: Sequence[tuple[str, str, float, float, int]]) -> "ScoredCounts":
        """From rows (rater a, rater b, a's score, b's score, items), a < b: over every item, and
        over the items two or more humans scored."""
        values = tuple(sorted({v for _, _, x, y, _ in pairs for v in (x, y)}))
        at = {v: i for i, v in enumerate(values)}

        def tables(rows: Sequence[tuple[str, str, float, float, int]]) -> dict[tuple[str, str], np.ndarray]:
            out: dict[tuple[str, str], np.ndarray] = {}
            for a, b, x, y, n in rows:
                t = out.setdefault((a, b), np.zeros((len(values), len(values)), dtype=np.int64))
                t[at[x], at[y]] += n
            return out

        return cls(dict(roles), dict(items), values, tables(pairs), tables(pairs2))

    @classmethod
    def of_input(cls, x: ScoredInput) -> "ScoredCounts":
        """The same counts from scores in memory."""
        roles = {r: ("judge" if r in x.judges else "human") for r in x.raters}
        items = {r: int((~np.isnan(x.column(r))).sum()) for r in x.raters}
        two = (~np.isnan(x.matrix[:, len(x.judges):])).sum(1) >= 2

        def rows(mask: np.ndarray) -> list[tuple[str, str, float, float, int]]:
            out = []
            for a in x.raters:
                for b in x.raters:
                    if a < b:
                        both = ~np.isnan(x.column(a)) & ~np.isnan(x.column(b)) & mask
                        found = pd.DataFrame({"x": x.column(a)[both], "y": x.column(b)[both]}).value_counts()
                        out += [(a, b, float(u), float(v), int(n)) for (u, v), n in found.items()]
            return out

        return cls.of(roles, items, rows(np.ones(len(x.items), dtype=bool)), rows(two))

    def table(self, a: str, b: str, two: bool = False) -> np.ndarray:
        """Rows: a's score; columns: b's (zeros when they share no item); ``two``: over the items two
        or more humans scored."""
        tables = self.tables2 if two else self.tables
        if (a, b) in tables:
            return tables[(a, b)]
        if (b, a) in tables:
            return tables[(b, a)].T
        return np.zeros((len(self.values), len(self.values)), dtype=np.int64)

    def pooled(self, pairs: Sequence[tuple[str, str]], two: bool = False) -> np.ndarray:
        """The listed rater pairs' tables added: the pooled pairs of :func:`pooled_alpha`."""
        return sum((self.table(a, b, two) for a, b in pairs),
                   np.zeros((len(self.values), len(self.values)), dtype=np.int64))

    @property
    def judges(self) -> tuple[str, ...]:
        return tuple(sorted(r for r, role in self.roles.items() if role == "judge"))

    @property
    def humans(self) -> tuple[str, ...]:
        return tuple(sorted(r for r, role in self.roles.items() if role == "human"))


@dataclass(frozen=True)
class CountedAudit:
    """One judge's counts-based measures, exact (no intervals: those need each item's scores)."""

    judge: str
    level: str
    judge_alpha: Fraction | None
    human_alpha: Fraction | None
    difference: Fraction | None
    exact_agreement: Fraction | None
    within_one: Fraction | None
    leniency: Fraction | None
    pairs: int


def measure_counts(c: ScoredCounts, level: str | None = None) -> dict[str, CountedAudit]:
    """Each judge's counts-based measures from an engine's counts, through the in-memory audit's own
    definitions (pooled pairs; alpha from the pooled table through the panel path)."""
    kind = "binary" if set(c.values) <= {0.0, 1.0} else "graded"
    level = level or default_level(kind)
    v = np.array(c.values)
    hpairs = [(a, b) for i, a in enumerate(c.humans) for b in c.humans[i + 1:]]
    hh = table_alpha(v, c.pooled(hpairs, True), level) if hpairs else None
    out = {}
    for j in c.judges:
        jpairs = [(j, h) for h in c.humans]
        pooled = c.pooled(jpairs)
        n = int(pooled.sum())
        ja = table_alpha(v, pooled, level) if n else None
        jh2 = table_alpha(v, c.pooled(jpairs, True), level) if hpairs else None
        gap = v[:, None] - v[None, :]
        exact = Fraction(int(np.trace(pooled)), n) if n else None
        within = Fraction(int(pooled[np.abs(gap) <= scale_step(c.values)].sum()), n) if n else None
        d = sum((Fraction(int(pooled[i, k])) * (exact_value(v[i]) - exact_value(v[k]))
                 for i, k in zip(*np.nonzero(pooled))), Fraction(0))
        diff = None if jh2 is None or hh is None else jh2 - hh
        out[j] = CountedAudit(j, level, ja, hh, diff, exact, within, d / n if n else None, n)
    return out


# --- deciding ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredDecision:
    """Each judge's gates and decision, and the run's (the worst judge's)."""

    decision: str
    thresholds: ScoredThresholds
    source: str
    per_judge: dict[str, tuple[str, tuple[Gate, ...], str | None]]  # judge -> (decision, gates, reason)
    judge: str | None = None  # the judge the decision is about; None: every judge (the worst decides)

    def gates(self, judge: str) -> tuple[Gate, ...]:
        return self.per_judge[judge][1]


def decide_scored(m: ScoredMeasurement, thresholds: ScoredThresholds | None = None,
                  source: str = "default", judge: str | None = None) -> ScoredDecision:
    """The only place a graded or pass/fail judge's measures meet thresholds: for each judge,
    admissibility (its alpha with the humans minus theirs with each other, against minus the margin)
    and the floor on its alpha with the humans; a gate without a number is not a pass (INCOMPLETE).
    The decision is ``judge``'s, or with several judges and none named the worst of theirs (every
    judge of the panel must be admissible)."""
    th = thresholds or ScoredThresholds()
    if judge is not None and judge not in m.input.judges:
        raise ValueError(f"no judge {judge!r} in the log; judges: {', '.join(m.input.judges)}")
    per: dict[str, tuple[str, tuple[Gate, ...], str | None]] = {}
    for a in m.agreements:
        gates = (_gate(a.difference, "admissibility", -th.admissibility_margin, "admissibility_margin_permil",
                       source, "needs two or more humans on shared items", th.strict),
                 _gate(a.judge_alpha, "judge_alpha", th.judge_alpha_floor, "judge_alpha_floor_permil", source,
                       "needs human labels on the judge's items", th.strict))
        per[a.judge] = _judge_decision(gates)
    decision = per[judge][0] if judge is not None else worst(d for d, _, _ in per.values())
    return ScoredDecision(decision, th, source, per, judge)


def _gate(measure: Measure | None, name: str, threshold: Fraction, field_name: str, source: str,
          need: str, strict: bool = False) -> Gate:
    """One gate: not evaluable without a value or without an interval (too few items to say, or
    alpha undefined without some item: never a pass); decided on the value, and in strict mode on
    the interval's lower bound too (the non-inferiority reading of the admissibility margin)."""
    if measure is None or measure.exact is None or measure.low is None:
        detail = need if measure is None else (measure.unavailable or measure.method or need)
        return Gate(name, "min", None if measure is None else measure.exact, threshold, None, state=NOT_EVALUABLE,
                    threshold_field=field_name, threshold_source=source, detail=detail)
    g = evaluate(name, "min", Fraction(measure.exact), threshold, low=measure.low, high=measure.high,
                 interval_method=measure.method, threshold_field=field_name, threshold_source=source, strict=strict)
    if measure.se is None:
        return g
    plan = plan_se(Fraction(measure.exact), threshold, se=measure.se, size=measure.cases, fragile=g.fragile,
                   unit_word="items", holds="the difference" if name == "admissibility" else "alpha",
                   how="the delete-one-item jackknife")
    return replace(g, plan=plan)


def _judge_decision(gates: tuple[Gate, ...]) -> tuple[str, tuple[Gate, ...], str | None]:
    if any(g.passed is False for g in gates):
        return FAIL, gates, None
    unknown = [g for g in gates if g.passed is None]
    if unknown:
        return INCOMPLETE, gates, "; ".join(f"{g.name}: {g.detail}" for g in unknown)
    return PASS, gates, None

