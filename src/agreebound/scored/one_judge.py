"""One judge against the humans: its alpha with them beside theirs with each other, and the measures
beside the gates (leniency, exact and within-one agreement, QWK, the SD ratio, accuracy, kappa).
"""

from __future__ import annotations
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Sequence
import numpy as np
from agreebound.core.escape import plural
from agreebound.panel.categories import Categories, Coded, Level, float_value
from agreebound.panel.coefficients import conger, counts_of, weight_matrix
from agreebound.scored.confidence import Calibration, calibration
from agreebound.scored.correlation import RANK_MEASURES, rank_measures
from agreebound.judge.bias import Measure
from agreebound.judge.counts import RateStats
from agreebound.core.intervals import Z95, rate_interval
from agreebound.scored.items import JACKKNIFE, ScoredInput
from agreebound.scored.pairwise import (LOO_MAX_VALUES, PairAlpha, PooledAlpha, jack_measure, plain_number, jackknife,
                                        pair_alpha, pooled_alpha, unique_rows)


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
                   ("self_preference_scored", "self-preference (own answers minus others')", "scale"),
                   *((name, title if over == "items" else f"{title} ({over})", "coefficient") for name, title, over in RANK_MEASURES))
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
        item, col = np.nonzero(mask)  # by item: each item's pairs are contiguous
        return cls(item, j[item], h[item, col], int(np.count_nonzero(mask.any(axis=1))))

    @cached_property
    def cluster(self) -> np.ndarray:
        """Each pair's cluster: its item's rank among the items with a pair (found once, not per sum)."""
        new = np.r_[True, self.item[1:] != self.item[:-1]] if len(self.item) else np.zeros(0, dtype=bool)
        return np.cumsum(new) - 1

    def per_item(self, values: np.ndarray) -> np.ndarray:
        """Sums over each item's pairs (items without pairs dropped): one row per cluster."""
        return np.bincount(self.cluster, weights=values, minlength=self.n_items)

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
    level: Level
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
    return Measure(name, title, p.exact, f"{plural(p.pairs, 'pair')} over {plural(n, 'item')}", low, high, method, definition,
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
    return Measure("alpha_difference", title, exact, f"{float(jh.exact):.3f} - {float(hh.exact):.3f} over {plural(n, 'item')}",
                   low, high, method, definition, "coefficient", se=se, cases=n)


@dataclass(frozen=True)
class HumanSide:
    """What every judge of a log is held against, measured once for all of them: the humans' pooled
    alpha over the items two or more humans scored, and each two humans' alpha."""

    pooled: PooledAlpha | None  # None: fewer than two humans
    measure: Measure | None
    alphas: tuple[PairAlpha, ...]


def human_side(x: ScoredInput, level: Level) -> HumanSide:
    hpairs = [(a, b) for i, a in enumerate(x.humans) for b in x.humans[i + 1:]]
    if not hpairs:
        return HumanSide(None, None, ())
    hh = pooled_alpha(x, hpairs, level, x.two_humans)
    ha = _pooled_measure("human_alpha", "humans vs humans: alpha", hh,
                         "alpha of the human-human pairs: two humans' scores on an item one unit of two values",
                         "no item has two or more humans' scores")
    return HumanSide(hh, ha, tuple(pair_alpha(x, a, b, level) for a, b in hpairs))


def agreement(x: ScoredInput, judge: str, level: Level, humans: HumanSide | None = None) -> JudgeAgreement:
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


def _kappa(pairs: Pairs, level: Level, weights: str) -> Fraction | None:
    """Cohen's kappa (weighted) of the judge and the humans over the pairs, through the coefficients
    module (two raters: its Cohen kappa), each pair a row."""
    if not len(pairs.item):
        return None
    c = conger(counts_of(pairs_coded(pairs), ["judge", "human"]), weights)
    return c.value


def pairs_coded(pairs: Pairs) -> Coded:
    """The pairs as a two-rater panel, a pair a unit (the judge rater 0, the human rater 1), coded as
    agreebound.panel.categories.encode codes the rows [[plain_number(judge), plain_number(human)], ...]:
    the values the pairs use, ascending, as exact numbers (an integer, else the decimal the float prints
    as), built from the few distinct values instead of a Python list per pair."""
    values = np.unique(np.concatenate([pairs.judge, pairs.human]))
    n = len(pairs.item)
    code = np.empty(2 * n, dtype=np.int64)
    code[0::2], code[1::2] = np.searchsorted(values, pairs.judge), np.searchsorted(values, pairs.human)
    exact = [plain_number(v) for v in values.tolist()]
    cats = Categories(exact=[v if isinstance(v, int) else float_value(v) for v in exact])
    return Coded(np.repeat(np.arange(n, dtype=np.int64), 2), np.tile(np.arange(2, dtype=np.int64), n), code, n, 2, cats)


def _kappa_measure(name: str, title: str, pairs: Pairs, level: Level, weights: str, definition: str) -> Measure:
    """Kappa over the pairs, exact through the coefficients module; its jackknife over items from each
    item's sums (its pairs, their weighted agreement, the judge's and the humans' values' counts: 2 x
    values + 2 columns, never values^2), weighted as the coefficients module weighs the values used."""
    j, r = pairs.judge, pairs.human
    values = np.unique(np.concatenate([j, r]))
    c = len(values)
    w = np.array(weight_matrix(weights, [plain_number(v) for v in values], True), dtype=float)
    ij, ir = np.searchsorted(values, j), np.searchsorted(values, r)
    rows = pairs.rows([np.ones(len(j)), w[ij, ir]] + [ij == k for k in range(c)] + [ir == k for k in range(c)])

    def stat(s: np.ndarray) -> np.ndarray:
        n = s[..., 0]
        po = s[..., 1] / n
        pe = np.einsum("...c,ck,...k->...", s[..., 2:2 + c], w, s[..., 2 + c:]) / n ** 2
        return (po - pe) / (1 - pe)

    return jack_measure(name, title, _kappa(pairs, level, weights), "coefficient", stat, rows, definition)


def graded_measures(x: ScoredInput, judge: str, pairs: Pairs, level: Level) -> tuple[Measure, ...]:
    """Over the (item, human) pairs: exact and within-one agreement, quadratic-weighted kappa,
    leniency, central tendency; over items: the score-length partial correlation (the humans' mean
    held) and self-preference; Spearman's and Kendall's correlations with the humans' mean, over
    items and over models (agreebound.scored.correlation)."""
    j, h = pairs.judge, pairs.human
    weights = "quadratic" if level != "nominal" else "identity"
    leniency = _mean_difference(j, h) if len(j) else None
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
        jack_measure("leniency", TITLES["leniency"], leniency, "scale",
                      lambda s: s[..., 0] / s[..., 1], pairs.rows([j - h, np.ones(len(j))]),
                      "the mean over the pairs of the judge's score minus the human's: positive = the judge is lenient"),
        _central_tendency(pairs),
        _length_effect(x, jcol[items], ref[items], items),
        _self_preference(x, judge, items, "scale"),
        *rank_measures(jcol, ref, x.model, MIN_ITEMS),
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
    return jack_measure("central_tendency", TITLES["central_tendency"], exact, "ratio",
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
    return jack_measure("length_effect", title, full if np.isfinite(full) else None, "coefficient", stat, rows,
                         definition)


def is_self(model: str, judge: str) -> bool:
    """The judged answer is the judge's own model's: the same name, ignoring case, punctuation and a
    provider prefix ("openai/gpt-4o" is "gpt-4o")."""
    def norm(s: str) -> str:
        return "".join(ch for ch in s.lower().rsplit("/", 1)[-1] if ch.isalnum())
    return bool(model) and norm(model) == norm(judge)


def _mean_difference(j: np.ndarray, h: np.ndarray) -> Fraction:
    """The mean of j - h over the pairs, exactly (each score the Fraction of its plain number): from
    each side's count of every distinct score, a Fraction per score rather than per pair."""
    def total(v: np.ndarray) -> Fraction:
        found, counts = np.unique(v, return_counts=True)
        return sum((Fraction(plain_number(a)) * c for a, c in zip(found.tolist(), counts.tolist())), Fraction(0))

    return (total(j) - total(h)) / len(j)


def _exact_differences(x: ScoredInput, judge: str, items: np.ndarray) -> tuple[list[Fraction], np.ndarray]:
    """Judge score minus the humans' mean on the ``items``, exactly: (the distinct differences, each
    item's index into them). An item's difference depends only on its row of scores, so each distinct
    row (a handful on a scale) is computed once, as a list of Fractions, and shared by its items."""
    rows = np.column_stack([x.column(judge)[items], x.matrix[items][:, len(x.judges):]])
    if not len(rows):
        return [], np.zeros(0, dtype=np.int64)
    values = np.asarray(x.values)
    codes = np.where(np.isnan(rows), -1, np.searchsorted(values, rows))  # -1: no score
    first, inverse = unique_rows(codes)
    exact = [Fraction(plain_number(v)) for v in values.tolist()]
    out = []
    for r in codes[first].tolist():
        humans = [exact[c] for c in r[1:] if c >= 0]
        out.append(exact[r[0]] - sum(humans, Fraction(0)) / len(humans))
    return out, inverse.ravel()


def _self_preference(x: ScoredInput, judge: str, items: np.ndarray, kind: str) -> Measure:
    """The mean of judge minus the humans' mean on the judge's own model's answers, minus the same
    on the others'."""
    title = TITLES["self_preference_scored"]
    definition = ("the mean of judge minus the humans' mean on the judge's own model's answers, minus the same on "
                  "the other models' answers. A judge that compresses the scale (SD ratio below 1) shows one too when "
                  "its own model's answers are better or worse than the others': read it beside the SD ratio")
    names, which = x.models
    own = np.array([is_self(m, judge) for m in names], dtype=bool)[which[items]]  # a test per model, not per item
    if not own.any() or own.all():
        why = ("no answer of the judge's own model in the log" if not own.any()
               else "every answer is the judge's own model's")
        return Measure("self_preference_scored", title, None, "", kind=kind, definition=definition, unavailable=why)
    distinct, at = _exact_differences(x, judge, items)
    n_own = np.bincount(at[own], minlength=len(distinct)).tolist()
    n_other = np.bincount(at[~own], minlength=len(distinct)).tolist()
    mine, other = int(own.sum()), int((~own).sum())
    exact = (sum((v * k for v, k in zip(distinct, n_own) if k), Fraction(0)) / mine
             - sum((v * k for v, k in zip(distinct, n_other) if k), Fraction(0)) / other)
    df = np.array([float(v) for v in distinct])[at]
    rows = np.column_stack([own, own * df, ~own, ~own * df]).astype(float)
    return jack_measure("self_preference_scored", title, exact, kind,
                         lambda s: s[..., 1] / s[..., 0] - s[..., 3] / s[..., 2], rows, definition,
                         f"{mine:,} own vs {other:,} other answers")


def binary_measures(x: ScoredInput, judge: str, pairs: Pairs, level: Level) -> tuple[Measure, ...]:
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
        jack_measure("yes_lean", TITLES["yes_lean"], lean, "difference",
                      lambda s: (s[..., 0] - s[..., 1]) / s[..., 2], pairs.rows([jp, hp, np.ones(n)]),
                      "the judge's pass rate minus the humans' over the same pairs: positive = the judge says yes "
                      "more often", f"{int(jp.sum()):,}/{n:,} - {int(hp.sum()):,}/{n:,}"),
        _self_preference(x, judge, items, "difference"),
    )


