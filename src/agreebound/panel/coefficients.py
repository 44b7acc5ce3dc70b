"""The agreement figures reviewers expect beside alpha, and why they differ from it.

Alpha decides (the seed's verdict does not change); these coefficients are shown beside it, each
as an exact fraction with an analytic 95% interval:

* **percent agreement** p_a: the share of agreeing rater pairs within units (weighted: pairs
  credited by the weight of their two categories);
* **Cohen's kappa** (two raters) and **Conger's kappa** (its generalisation to fixed raters):
  chance from each rater's own marginals;
* **Scott's pi** (two raters) and **Fleiss' kappa** (its generalisation): chance from the pooled
  marginals;
* **Gwet's AC1** (AC2 weighted): chance from the propensity to disagree on hard units;
* **Brennan-Prediger**: chance 1/q (Randolph's free-marginal kappa).

Definitions, missing data and variances follow Gwet's *Handbook of Inter-Rater Reliability*
(4th ed.) as its irrCAC packages implement them:

* a unit counts in p_a when two or more raters rated it (r_i >= 2); every unit with a rating
  counts in the pooled marginals pi_k = (1/n) sum_i r_ik / r_i;
* Cohen's and Conger's chance agreement uses each rater's marginals over all the units that rater
  rated (not only the units both rated), p_gk = n_gk / n_g;
* weights: identity; linear 1 - |x_k - x_l| / (x_max - x_min); quadratic 1 - (x_k - x_l)^2 /
  (x_max - x_min)^2, x the category's value when the categories are numbers, else its rank
  (Krippendorff's ordinal metric is another thing: it weighs by the marginals between categories);
* variances: Gwet's linearisation, conditional on the raters (irrCAC's ``se``), the interval
  t(n - 1) with its upper end capped at 1. Percent agreement has Brennan-Prediger's variance with
  chance 0.

The pairwise detail is plain Cohen's kappa on the units both raters rated (statsmodels'
``cohens_kappa`` on their confusion matrix), and per-category **specific agreement**: of the rater
pairs in which one rater chose the category, the share in which the other did too.
"""


from __future__ import annotations
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Sequence, SupportsFloat, cast
import numpy as np
from agreebound.panel.categories import Coded, Level, Number, Value
from agreebound.panel.decide import alpha_gate_at
from agreebound.core.student_t import t_quantile
if TYPE_CHECKING:
    import pandas as pd




WEIGHTS = ("identity", "linear", "quadratic")
Z_LEVEL = 0.95


# --- the counts every coefficient reads ------------------------------------------------------------

@dataclass(frozen=True)
class Counts:
    """Per unit (with a rating) its ratings per category, and per rater its ratings per category."""

    units: np.ndarray  # n x q, int64
    raters: np.ndarray  # r x q, int64 (raters with at least one rating)
    rater_names: tuple[str, ...]
    values: tuple[Value, ...]  # the categories, sorted
    numeric: bool
    unit_index: np.ndarray  # per row of ``units``: the unit's index in the panel

    @property
    def q(self) -> int:
        return len(self.values)


def counts_of(coded: Coded, rater_names: Sequence[str]) -> Counts:
    """The counts of a coded panel (agreebound.panel.categories.Coded)."""
    q = len(coded.categories)
    unit = np.asarray(coded.unit, dtype=np.int64)
    rater = np.asarray(coded.rater, dtype=np.int64)
    code = np.asarray(coded.code, dtype=np.int64)
    present, u = np.unique(unit, return_inverse=True)
    units = np.bincount(u * q + code, minlength=len(present) * q).reshape(len(present), q) if q else \
        np.zeros((len(present), 0), dtype=np.int64)
    per = np.bincount(rater * q + code, minlength=coded.n_raters * q).reshape(coded.n_raters, q) if q else \
        np.zeros((coded.n_raters, 0), dtype=np.int64)
    keep = per.sum(axis=1) > 0
    names = tuple(n for n, k in zip(rater_names, keep) if k)
    return Counts(units.astype(np.int64), per[keep].astype(np.int64), names, tuple(coded.categories.values),
                  bool(coded.categories.numeric), present)


def weight_matrix(kind: str, values: Sequence[Value], numeric: bool) -> list[list[Fraction]]:
    """irrCAC's weights, exactly: identity, linear, quadratic (on values if numeric, else ranks)."""
    q = len(values)
    if kind == "identity" or q < 2:
        return [[Fraction(int(i == j)) for j in range(q)] for i in range(q)]
    x = [Fraction(v) for v in cast("Sequence[Number]", values)] if numeric else [Fraction(i + 1) for i in range(q)]
    span = max(x) - min(x)
    if kind == "linear":
        return [[1 - abs(a - b) / span for b in x] for a in x]
    if kind == "quadratic":
        return [[1 - ((a - b) / span) ** 2 for b in x] for a in x]
    raise ValueError(f"unknown weights {kind!r}; expected one of {', '.join(WEIGHTS)}")


def _integer_weights(w: list[list[Fraction]]) -> tuple[np.ndarray, int]:
    """W = W_int / D with integers."""
    d = 1
    for row in w:
        for v in row:
            d = d * v.denominator // math.gcd(d, v.denominator)
    ints = [[int(v * d) for v in row] for row in w]
    big = max((abs(v) for row in ints for v in row), default=0) >= 2**31
    return np.array(ints, dtype=object if big else np.int64), d


@dataclass(frozen=True)
class Coefficient:
    key: str  # percent_agreement, cohen_kappa, conger_kappa, scott_pi, fleiss_kappa, gwet_ac, brennan_prediger
    name: str  # as reviewers know it ("Gwet's AC2" when weighted)
    weights: str
    value: Fraction | None  # None: undefined (no pairable unit, or chance agreement 1)
    pa: Fraction | None
    pe: Fraction | None
    units: int  # units with a rating (n)
    pairable: int  # units with two or more ratings
    se: float | None
    low: float | None
    high: float | None
    note: str = ""


@dataclass(frozen=True)
class _Common:
    n: int
    n2: int
    ri: np.ndarray  # ratings per unit
    pa: Fraction | None
    pi: list[Fraction]  # pooled marginals
    sum_q: np.ndarray  # per unit: sum_k r_ik (r*_ik - 1), as floats
    w: list[list[Fraction]]
    wf: np.ndarray  # float weights


def _common(c: Counts, w: list[list[Fraction]]) -> _Common:
    units = c.units
    n, q = units.shape
    ri = units.sum(axis=1)
    wint, d = _integer_weights(w)
    if wint.dtype == object or int(ri.max(initial=0)) ** 2 * q * d >= 2**62:
        u = units.astype(object)
        star = u.dot(wint.astype(object))  # r*_ik * D
        numer = (u * star).sum(axis=1) - d * ri.astype(object)
    else:
        star = units @ wint.T
        numer = (units * star).sum(axis=1) - d * ri
    two = ri >= 2
    n2 = int(two.sum())
    pa = None
    if n2:
        total = Fraction(0)
        for r in np.unique(ri[two]):
            s = int(sum(int(v) for v in numer[ri == r])) if numer.dtype == object else int(numer[ri == r].sum())
            total += Fraction(s, int(r) * (int(r) - 1))
        pa = total / (n2 * d)
    pi = []
    for k in range(q):
        share = Fraction(0)
        for r in np.unique(ri):
            share += Fraction(int(units[ri == r, k].sum()), int(r))
        pi.append(share / n if n else Fraction(0))
    wf = np.array([[float(v) for v in row] for row in w], dtype=float)
    sum_q = np.array([float(Fraction(int(v), d)) for v in numer], dtype=float) if numer.dtype == object \
        else numer.astype(float) / d
    return _Common(n, n2, ri, pa, pi, sum_q, w, wf)


def _interval(value: Fraction | None, terms: np.ndarray | None, n: int) -> tuple[float | None, float | None, float | None]:
    """(se, low, high): Gwet's variance from per-unit terms; t(n - 1) interval, high capped at 1."""
    if value is None or terms is None or n < 2:
        return None, None, None
    v = float(value)
    var = float(((terms - v) ** 2).sum()) / (n * (n - 1))
    se = math.sqrt(var)
    if se == 0.0:
        se = 1e-15  # as irrCAC: an interval of width ~0
    t = t_quantile(0.5 + Z_LEVEL / 2, n - 1)
    return se, v - t * se, min(1.0, v + t * se)


def _per_unit(cm: _Common, pe: Fraction) -> np.ndarray:
    den = cm.ri * (cm.ri - 1)
    den = den - (den == 0)
    pa_i = cm.sum_q / den
    pe_f = float(pe)
    return (cm.n / cm.n2) * (pa_i - pe_f * (cm.ri >= 2)) / (1 - pe_f)


def _coefficient(key: str, name: str, weights: str, cm: _Common, pe: Fraction | None,
                 terms: np.ndarray | Callable[[Fraction], np.ndarray | None] | None) -> Coefficient:
    if cm.pa is None or pe is None or pe == 1:
        why = ("no unit has two ratings" if cm.pa is None else
               "one category only: there is no chance agreement to correct for" if pe is None else
               "chance agreement is 1: nothing to correct for")
        return Coefficient(key, name, weights, None, cm.pa, pe, cm.n, cm.n2, None, None, None, why)
    value = (cm.pa - pe) / (1 - pe)
    se, low, high = _interval(value, terms(value) if callable(terms) else terms, cm.n)
    return Coefficient(key, name, weights, value, cm.pa, pe, cm.n, cm.n2, se, low, high)


def percent_agreement(c: Counts, weights: str = "identity", cm: "_Common | None" = None) -> Coefficient:
    """The share of agreeing pairs within units (Gwet 2014 publishes 0.81818 for his four raters).

    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import GWET_2014_FOUR_RATERS as G
    >>> c = counts_of(encode(G), ["r1", "r2", "r3", "r4"])
    >>> percent_agreement(c).value
    Fraction(9, 11)
    """
    cm = cm or _common(c, weight_matrix(weights, c.values, c.numeric))
    name = "percent agreement" if weights == "identity" else f"percent agreement ({weights} weights)"
    if cm.pa is None:
        return Coefficient("percent_agreement", name, weights, None, None, Fraction(0), cm.n, 0, None, None, None,
                           "no unit has two ratings")
    terms = _per_unit(cm, Fraction(0))
    se, low, high = _interval(cm.pa, terms, cm.n)
    return Coefficient("percent_agreement", name, weights, cm.pa, cm.pa, Fraction(0), cm.n, cm.n2, se, low, high)


def fleiss(c: Counts, weights: str = "identity", cm: "_Common | None" = None) -> Coefficient:
    """Fleiss' kappa (Scott's pi for two raters): chance from the pooled marginals.

    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import GWET_2014_FOUR_RATERS as G
    >>> c = counts_of(encode(G), ["r1", "r2", "r3", "r4"])
    >>> round(float(fleiss(c).value), 5)
    0.76117
    """
    cm = cm or _common(c, weight_matrix(weights, c.values, c.numeric))
    q = c.q
    pe = sum((cm.w[k][l] * cm.pi[k] * cm.pi[l] for k in range(q) for l in range(q)), Fraction(0))
    two = len(c.rater_names) == 2
    key, name = ("scott_pi", "Scott's pi") if two else ("fleiss_kappa", "Fleiss' kappa")

    def terms(value: Fraction) -> np.ndarray:
        pi = np.array([float(p) for p in cm.pi])
        piw = (cm.wf @ pi + cm.wf.T @ pi) / 2
        pe_i = (c.units @ piw) / cm.ri
        pe_f = float(pe)
        return _per_unit(cm, pe) - 2 * (1 - float(value)) * (pe_i - pe_f) / (1 - pe_f)

    return _coefficient(key, _weighted(name, weights), weights, cm, pe, terms)


def gwet(c: Counts, weights: str = "identity", cm: "_Common | None" = None) -> Coefficient:
    """Gwet's AC1 (identity weights) or AC2.

    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import GWET_2014_FOUR_RATERS as G
    >>> c = counts_of(encode(G), ["r1", "r2", "r3", "r4"])
    >>> round(float(gwet(c).value), 5)
    0.77544
    """
    cm = cm or _common(c, weight_matrix(weights, c.values, c.numeric))
    q = c.q
    if q < 2:
        return _coefficient("gwet_ac", "Gwet's AC1", weights, cm, None, None)
    tw = sum((v for row in cm.w for v in row), Fraction(0))
    pe = tw * sum((p * (1 - p) for p in cm.pi), Fraction(0)) / (q * (q - 1))
    name = "Gwet's AC1" if weights == "identity" else f"Gwet's AC2 ({weights} weights)"

    def terms(value: Fraction) -> np.ndarray:
        pi = np.array([float(p) for p in cm.pi])
        pe_i = float(tw) / (q * (q - 1)) * (c.units @ (1 - pi)) / cm.ri
        pe_f = float(pe)
        return _per_unit(cm, pe) - 2 * (1 - float(value)) * (pe_i - pe_f) / (1 - pe_f)

    return _coefficient("gwet_ac", name, weights, cm, pe, terms)


def brennan_prediger(c: Counts, weights: str = "identity", cm: "_Common | None" = None) -> Coefficient:
    """Brennan-Prediger: chance agreement sum(w) / q^2 (1/q unweighted).

    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import GWET_2014_FOUR_RATERS as G
    >>> c = counts_of(encode(G), ["r1", "r2", "r3", "r4"])
    >>> round(float(brennan_prediger(c).value), 5)
    0.77273
    """
    cm = cm or _common(c, weight_matrix(weights, c.values, c.numeric))
    q = c.q
    if q < 2:
        return _coefficient("brennan_prediger", "Brennan-Prediger", weights, cm, None, None)
    pe = sum((v for row in cm.w for v in row), Fraction(0)) / (q * q)
    return _coefficient("brennan_prediger", _weighted("Brennan-Prediger", weights), weights, cm, pe,
                        lambda value: _per_unit(cm, pe))


def conger(c: Counts, weights: str = "identity", ratings: np.ndarray | None = None, cm: "_Common | None" = None) -> Coefficient:
    """Conger's kappa (Cohen's kappa for two raters): chance from each rater's own marginals.
    ``ratings``: the units x raters codes (-1 missing), for the variance's per-rater terms.

    >>> from agreebound.panel.categories import encode
    >>> from agreebound.panel.published import GWET_2014_FOUR_RATERS as G
    >>> c = counts_of(encode(G), ["r1", "r2", "r3", "r4"])
    >>> round(float(conger(c).value), 5)
    0.76282
    """
    cm = cm or _common(c, weight_matrix(weights, c.values, c.numeric))
    w = cm.w
    q, r = c.q, len(c.rater_names)
    two = r == 2
    key, name = ("cohen_kappa", "Cohen's kappa") if two else ("conger_kappa", "Conger's kappa")
    if r < 2:
        return _coefficient(key, name, weights, cm, None, None)
    ng = [int(v) for v in c.raters.sum(axis=1)]
    p = [[Fraction(int(c.raters[g, k]), ng[g]) for k in range(q)] for g in range(r)]
    mean = [sum((p[g][k] for g in range(r)), Fraction(0)) / r for k in range(q)]
    pe = Fraction(0)
    for k in range(q):
        for l in range(q):
            s2 = (sum((p[g][k] * p[g][l] for g in range(r)), Fraction(0)) - r * mean[k] * mean[l]) / (r - 1)
            pe += w[k][l] * (mean[k] * mean[l] - s2 / r)

    def terms(value: Fraction) -> np.ndarray | None:
        if ratings is None:
            return None
        x = np.asarray(ratings)  # n x r codes, -1 missing, rows as c.units
        n = x.shape[0]
        pg = np.array([[float(v) for v in row] for row in p])  # r x q
        ngv = np.array(ng, dtype=float)
        eps = (x >= 0).astype(float)
        lam = np.zeros((n, r))
        missing = eps - ngv[None, :] / n
        safe = np.where(x >= 0, x, 0)
        for k in range(q):
            # sum over l of w_kl (delta_igl - (eps_ig - n_g / n) p_gl): the weight of the rating given,
            # then the marginal term for every category at once
            wk = np.where(x >= 0, cm.wf[k][safe], 0.0)
            lk = (wk - missing * (pg @ cm.wf[k])[None, :]) * (n / ngv[None, :])
            lam += lk * (r * pg[:, k].mean() - pg[None, :, k])
        pe_i = lam.sum(axis=1) / (r * (r - 1))
        pe_f = float(pe)
        return _per_unit(cm, pe) - 2 * (1 - float(value)) * (pe_i - pe_f) / (1 - pe_f)

    return _coefficient(key, _weighted(name, weights), weights, cm, pe, terms)


def _weighted(name: str, weights: str) -> str:
    return name if weights == "identity" else f"{name} ({weights} weights)"


def ratings_matrix(coded: Coded, c: Counts) -> np.ndarray:
    """Units (rows of ``c.units``) x raters (those of ``c``) codes, -1 where missing."""
    keep = np.flatnonzero(np.bincount(np.asarray(coded.rater), minlength=coded.n_raters) > 0)
    x = np.full((len(c.unit_index), len(keep)), -1, dtype=np.int64)
    unit, rater, code = np.asarray(coded.unit), np.asarray(coded.rater), np.asarray(coded.code)
    x[np.searchsorted(c.unit_index, unit), np.searchsorted(keep, rater)] = code  # both sorted
    return x


# --- everything for a panel ---------------------------------------------------------------------

@dataclass(frozen=True)
class PairDetail:
    a: str
    b: str
    shared: int  # units both rated
    agreement: Fraction | None
    kappa: Fraction | None  # Cohen's kappa on the shared units
    confusion: np.ndarray = field(repr=False)  # q x q: rows a's category, columns b's


@dataclass(frozen=True)
class Coefficients:
    values: tuple[Value, ...]
    raters: tuple[str, ...]
    table: tuple[Coefficient, ...]  # every coefficient x weights
    pairs: tuple[PairDetail, ...]
    specific: tuple[Fraction | None, ...]  # per category: specific agreement
    shares: tuple[Fraction, ...]  # per category: share of all ratings
    rater_shares: np.ndarray = field(repr=False)  # r x q: each rater's share of its ratings per category
    rater_totals: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, dtype=np.int64))

    def get(self, key: str, weights: str = "identity") -> Coefficient | None:
        return next((c for c in self.table if c.key == key and c.weights == weights), None)


def weights_for(level: Level) -> tuple[str, ...]:
    """Nominal data: unweighted only; ordered data also linear and quadratic weights."""
    return ("identity",) if level == "nominal" else WEIGHTS


def coefficients(coded: Coded, rater_names: Sequence[str], level: Level = "nominal") -> Coefficients:
    c = counts_of(coded, rater_names)
    x = ratings_matrix(coded, c)
    table: list[Coefficient] = []
    for weights in weights_for(level):
        cm = _common(c, weight_matrix(weights, c.values, c.numeric))  # once per weights
        table += [percent_agreement(c, weights, cm), conger(c, weights, x, cm), fleiss(c, weights, cm),
                  gwet(c, weights, cm), brennan_prediger(c, weights, cm)]
    return Coefficients(c.values, c.rater_names, tuple(table), tuple(pairwise(x, c)), specific_agreement(c),
                        _shares(c), _rater_shares(c), c.raters.sum(axis=1))


#: Pairwise detail for at most this many raters (1,225 pairs).
PAIR_RATERS = 50
#: Coefficients for at most this many categories: kappa-type statistics are for categories, and
#: their weights and chance terms grow with the square of their number.
MAX_CATEGORIES = 50


def pairwise(x: np.ndarray, c: Counts) -> list[PairDetail]:
    q, names = c.q, c.rater_names
    if len(names) > PAIR_RATERS:
        return []
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            both = (x[:, i] >= 0) & (x[:, j] >= 0)
            m = np.bincount(x[both, i] * q + x[both, j], minlength=q * q).reshape(q, q) if q else np.zeros((0, 0), int)
            out.append(PairDetail(names[i], names[j], int(both.sum()), *_cohen(m), m))
    return out


def _cohen(m: np.ndarray) -> tuple[Fraction | None, Fraction | None]:
    n = int(m.sum())
    if n == 0:
        return None, None
    po = Fraction(int(np.trace(m)), n)
    rows, cols = m.sum(axis=1), m.sum(axis=0)
    pe = Fraction(int(sum(int(a) * int(b) for a, b in zip(rows, cols))), n * n)
    return po, (None if pe == 1 else (po - pe) / (1 - pe))


def specific_agreement(c: Counts) -> tuple[Fraction | None, ...]:
    """Per category: of the ordered rater pairs within a unit in which the first chose it, the
    share in which the second did too: sum r_ik (r_ik - 1) / sum r_ik (r_i - 1)."""
    u = c.units
    ri = u.sum(axis=1)
    out = []
    for k in range(c.q):
        num = int((u[:, k] * (u[:, k] - 1)).sum())
        den = int((u[:, k] * (ri - 1)).sum())
        out.append(Fraction(num, den) if den else None)
    return tuple(out)


def _shares(c: Counts) -> tuple[Fraction, ...]:
    total = int(c.units.sum())
    return tuple(Fraction(int(v), total) if total else Fraction(0) for v in c.units.sum(axis=0))


def _rater_shares(c: Counts) -> np.ndarray:
    per = c.raters.astype(float)
    return per / np.maximum(per.sum(axis=1, keepdims=True), 1)


# --- why percent agreement is high and alpha low ---------------------------------------------------

#: Percent agreement at least this, and alpha this far below it: the gap is explained.
HIGH_AGREEMENT = Fraction(4, 5)
GAP = Fraction(1, 4)
#: One category holding at least this share of the values: prevalence.
PREVALENT = Fraction(4, 5)
#: A rater using a category at least this many times as often as another: bias.
BIAS_RATIO = 2.0
#: Leaving one rater out raising alpha at least this much: that rater is named.
DRAG = Fraction(1, 10)


def _q(text: object) -> str:
    """User text (a category, a rater) quoted in a sentence, on one line, cut if long."""
    from agreebound.core.escape import printable

    return repr(printable(text, 60))


def _pct(x: SupportsFloat) -> str:
    return f"{float(x):.0%}"


def _f3(x: SupportsFloat) -> str:
    return f"{float(x):.3f}"


def explain(co: Coefficients, alpha: Fraction | None, texts: Sequence[str],
            without: dict[str, Fraction | None] | None = None, floor: Fraction | None = None) -> list[str]:
    """Sentences computed from the data: when percent agreement is high and alpha low, why
    (prevalence, bias), and which rater drags alpha down and which category the raters fight over.
    ``texts``: each category as written; ``floor``: alpha's floor, to say where leaving out lands."""
    out: list[str] = []
    pa = co.get("percent_agreement")
    pooled = co.get("fleiss_kappa") or co.get("scott_pi")
    ac1 = co.get("gwet_ac")
    gap = (pa is not None and pa.value is not None and alpha is not None
           and pa.value >= HIGH_AGREEMENT and pa.value - alpha >= GAP)
    if gap:
        assert pa is not None and pa.value is not None and alpha is not None
        out.append(f"Raters agree on {_pct(pa.value)} of the pairs they rated together, yet alpha is {_f3(alpha)}: "
                   "alpha counts only the agreement beyond what chance would give with these marginals.")
    if len(co.shares) == 1:
        return [f"Every value is {_q(texts[0])}: with one category there is no variation, so alpha and the "
                "chance-corrected coefficients are undefined, and agreement is 100% by construction."]
    top = max(range(len(co.shares)), key=lambda k: co.shares[k]) if co.shares else None
    if top is not None and co.shares[top] >= PREVALENT:
        chance = f" Chance alone would agree {_pct(pooled.pe)} of the time" if pooled and pooled.pe is not None else ""
        resist = (f"; Gwet's AC1, which counts chance only on hard-to-rate units, is {_f3(ac1.value)}"
                  if ac1 and ac1.value is not None else "")
        out.append(f"Prevalence: one category ({_q(texts[top])}) holds {_pct(co.shares[top])} of the values.{chance}"
                   f"{resist}. The few units rated otherwise decide alpha.")
    bias = _bias(co)
    if bias is not None:
        k, a, b, ratio = bias
        sa, sb = co.rater_shares[a, k], co.rater_shares[b, k]
        kappa = co.get("cohen_kappa") or co.get("conger_kappa")
        diff = (f" Chance from each rater's own marginals (Cohen/Conger's kappa {_f3(kappa.value)}) differs from "
                f"chance from the pooled ones (Scott/Fleiss {_f3(pooled.value)})."
                if kappa and pooled and kappa.value is not None and pooled.value is not None
                and abs(kappa.value - pooled.value) >= Fraction(1, 20) else "")
        often = f"{ratio:.1f}x as often as {_q(co.raters[b])}" if math.isfinite(ratio) else \
            f"while {_q(co.raters[b])} never does"
        out.append(f"Bias: {_q(co.raters[a])} uses {_q(texts[k])} {often} ({_pct(sa)} of their ratings against "
                   f"{_pct(sb)}).{diff}")
    if without and alpha is not None:
        gains = {r: v - alpha for r, v in without.items() if v is not None}
        if gains:
            r = max(gains, key=lambda x: gains[x])
            if gains[r] >= DRAG:
                v = without[r]
                assert v is not None
                # the alpha gate as decide would decide it (panel.alpha_gate_at): the floor is threshold data
                crosses = (f", above the {_f3(floor)} floor" if floor is not None
                           and not alpha_gate_at(alpha, floor).passed and alpha_gate_at(v, floor).passed else "")
                out.append(f"One rater drags alpha down: leaving out {_q(r)} raises it from {_f3(alpha)} to "
                           f"{_f3(v)}{crosses}.")
    # categories that hold at least 5% of the values (for continuous scores a rare value says nothing)
    fights = [(s, k) for k, s in enumerate(co.specific) if s is not None and co.shares[k] >= Fraction(1, 20)]
    if len(fights) >= 2:
        s, k = min(fights)
        best, kb = max(fights)
        if best - s >= Fraction(1, 5):
            out.append(f"Raters fight over {_q(texts[k])}: when one rater chooses it, another does {_pct(s)} of the "
                       f"time (against {_pct(best)} for {_q(texts[kb])}).")
    return out


def _bias(co: Coefficients) -> tuple[int, int, int, float] | None:
    """(category, rater a, rater b, ratio): the largest ratio of two raters' shares of a category,
    among categories used at least 5% of the time by the rater using it more, where the difference
    is beyond chance (two-proportion z >= 1.96)."""
    shares = co.rater_shares
    co_totals = co.rater_totals
    if shares.shape[0] < 2:
        return None
    best = None
    for k in range(shares.shape[1]):
        col = shares[:, k]
        a, b = int(col.argmax()), int(col.argmin())
        if col[a] < 0.05:
            continue
        ratio = float("inf") if col[b] == 0 else col[a] / col[b]
        na, nb = int(co_totals[a]), int(co_totals[b])
        pooled = (col[a] * na + col[b] * nb) / (na + nb)
        se = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb)) if 0 < pooled < 1 else 0.0
        beyond_chance = se > 0 and (col[a] - col[b]) / se >= 1.96  # two-proportion z
        if ratio >= BIAS_RATIO and beyond_chance and (best is None or ratio > best[3]):
            best = (k, a, b, ratio)
    return best


def judge_confusion(cases: pd.DataFrame) -> tuple[list[str], list[str], np.ndarray, Fraction | None]:
    """The judge against the human reference: per case and order, the human's preferred candidate
    (rows: a, b, tie) against the judge's majority in that order (columns: a, b, tie, no majority),
    with Cohen's kappa over the pairs where the judge has a majority. ``cases``: a calibration
    measurement's per-case frame (cases without a reference are left out)."""
    rows, cols = ["a", "b", "tie"], ["a", "b", "tie", "no majority"]
    m = np.zeros((3, 4), dtype=np.int64)
    if "has_reference" in cases:
        cases = cases[cases["has_reference"].to_numpy(dtype=bool)]
    human = [rows.index(h) if h in rows else -1 for h in cases["preferred"].astype(object)]
    for column in ("majority_ab", "majority_ba"):
        for h, j in zip(human, cases[column].astype(object)):
            if h >= 0:
                m[h, cols.index(j) if j in rows else 3] += 1
    return rows, cols, m, _cohen(m[:, :3])[1]
