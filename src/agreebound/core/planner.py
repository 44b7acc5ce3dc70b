"""How many more cases (or units) would decide a gate: the plan beside every fragile gate.

A gate is decided when its 95% interval lies on one side of its threshold; a plan is for an 80%
probability of that. Pure arithmetic on an estimate, its threshold and its standard error: no
domain words, so the panel and the judge plan alike.
"""

from __future__ import annotations
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from statistics import NormalDist
from typing import Callable

from agreebound.core.json_types import JSONObject


# --- planning: how many cases would decide a gate ----------------------------------------------

#: A gate is decided when its 95% interval (two-sided) lies on one side of its threshold; a plan
#: is for an 80% probability of that (80% power), the usual planning convention.
PLAN_CONFIDENCE = 0.95
PLAN_POWER = 0.8
Z_INTERVAL = NormalDist().inv_cdf(1 - (1 - PLAN_CONFIDENCE) / 2)  # 1.959963984540054
Z_POWER = NormalDist().inv_cdf(PLAN_POWER)  # 0.8416212335729143
_NORMAL = NormalDist()
#: A fragile gate whose estimate equals its threshold: no size puts the interval on one side.
ON_THRESHOLD = "cannot be decided by more cases: the estimate sits on the threshold"


def on_threshold(unit_word: str) -> str:
    """"cannot be decided by more cases (units): the estimate sits on the threshold"."""
    return ON_THRESHOLD.replace("cases", unit_word if unit_word in ("units", "observations", "items") else "cases")
_PROMISE = "80% probability that its 95% interval then lies on one side of the threshold"


@dataclass(frozen=True)
class Plan:
    """How many cases (or units) would decide a gate, and what the audit can detect at its size.

    ``mdd``: the minimum detectable difference, in the value's own scale: how far from the
    threshold a true value must lie for an audit of this size and design effect to put its 95%
    interval on one side of the threshold with 80% probability. ``size``: the cases (units) now.
    ``more``: for a fragile gate, about how many more cases (units), the observed value and design
    effect held, put the interval on the observed side with 80% probability; None when the gate is
    not fragile or cannot be decided. ``decidable``: False when the estimate sits on the threshold.
    ``unit_word``: "cases", "observations" or "units". ``sentence``: "" when the gate is not fragile.
    ``method``: how it was computed, approximations named.
    """

    mdd: float | None
    design_effect: float | None
    size: int
    more: int | None
    decidable: bool
    unit_word: str
    sentence: str
    method: str
    #: a gate over a subset of the audit's cases: the audit's cases (``size`` is the eligible ones);
    #: ``more`` then counts the cases a user adds, each eligible with the estimated share
    audit_cases: int | None = None

    def to_dict(self) -> JSONObject:
        """As a JSON report stores it: ``unit`` for ``unit_word``, floats to 6 decimals."""
        out: JSONObject = {"mdd": _round6(self.mdd), "design_effect": _round6(self.design_effect), "size": self.size,
                           "more": self.more, "decidable": self.decidable, "unit": self.unit_word,
                           "sentence": self.sentence, "method": self.method}
        if self.audit_cases is not None:
            out["audit_cases"] = self.audit_cases
        return out

    @classmethod
    def from_dict(cls, d: JSONObject | None) -> Plan | None:
        """A stored plan (:meth:`to_dict`) read back; None for none."""
        if not d:
            return None
        total = d.get("audit_cases")
        return cls(d.get("mdd"), d.get("design_effect"), int(d["size"]), d.get("more"), bool(d["decidable"]),
                   d.get("unit") or "", d.get("sentence") or "", d.get("method") or "",
                   None if total is None else int(total))


def _round6(x: float | None) -> float | None:
    return None if x is None else round(float(x), 6)


def about(n: int) -> str:
    """A count in a sentence: exact below 100, else two significant figures rounded up (a plan is
    never undersold).

    >>> about(7), about(183), about(1_201)
    ('7', '190', '1,300')
    """
    if n < 100:
        return f"{n:,}"
    step = 10 ** (len(str(n)) - 2)
    return f"{-(-n // step) * step:,}"


def plan_sentence(more: int, unit_word: str, holds: str, eligible: str = "") -> str:
    """"about 190 more cases would decide it, if the rate holds (80% probability that ...)";
    ``eligible``: a gate over a subset of the cases says how many are eligible, after the count."""
    unit = unit_word[:-1] if more == 1 and unit_word.endswith("s") else unit_word
    return f"about {about(more)} more {unit}{f' ({eligible})' if eligible else ''} would decide it, if {holds} holds " \
           f"({_PROMISE})"


def _plan(estimate: Fraction | float, threshold: Fraction, fragile: bool, size: int, needed: float | None,
          unit_word: str, holds: str, mdd: float | None, design_effect: float | None, method: str) -> Plan:
    """The plan from the size that would decide it (``needed``, in ``unit_word``; None when the
    estimate sits on the threshold)."""
    if not fragile:
        return Plan(mdd, design_effect, size, None, True, unit_word, "", method)
    if estimate == threshold or needed is None:
        return Plan(mdd, design_effect, size, None, False, unit_word, on_threshold(unit_word), method)
    # fragile: the interval straddles the threshold, so more are needed (at least one)
    more = max(math.ceil(needed) - size, 1)
    return Plan(mdd, design_effect, size, more, True, unit_word, plan_sentence(more, unit_word, holds), method)


#: Above this many added cases the count of eligible ones among them is taken as normal (its
#: beta-binomial mean and variance, 41-point Gauss-Hermite); at or below, its exact distribution.
EXACT_ADDED_MAX = 2_000


def _eligible_weights(added: int, eligible: int, total: int) -> list[tuple[float, float]]:
    """(new eligible cases, probability) among ``added`` new cases when ``eligible`` of ``total``
    cases now are eligible: beta-binomial, the eligible share's uncertainty a Beta(eligible + 1/2,
    total - eligible + 1/2) (Jeffreys) about its estimate."""
    a, b = eligible + 0.5, total - eligible + 0.5
    if added <= EXACT_ADDED_MAX:
        base = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) - math.lgamma(added + a + b) + math.lgamma(added + 1)
        out = []
        for x in range(added + 1):
            lp = (base + math.lgamma(x + a) + math.lgamma(added - x + b) - math.lgamma(x + 1)
                  - math.lgamma(added - x + 1))
            out.append((float(x), math.exp(lp)))
        return out
    import numpy as np

    mu = a / (a + b)
    var = added * mu * (1 - mu) * (a + b + added) / (a + b + 1)
    nodes, weights = np.polynomial.hermite_e.hermegauss(41)
    weights = weights / weights.sum()
    return [(max(0.0, added * mu + float(z) * math.sqrt(var)), float(w)) for z, w in zip(nodes, weights)]


def _added_cases(power: Callable[[float], float], eligible: int, total: int, needed_eligible: float) -> int:
    """The fewest added cases (of which each is eligible with the estimated share, its uncertainty
    kept) whose expected probability of deciding the gate, ``power`` of the eligible cases then, is
    at least :data:`PLAN_POWER`."""
    def expected(added: int) -> float:
        return sum(w * power(eligible + x) for x, w in _eligible_weights(added, eligible, total))

    hi = max(1, math.ceil((needed_eligible - eligible) * total / max(eligible, 1)))
    while expected(hi) < PLAN_POWER:
        hi *= 2
        if hi > 10**9:
            return hi
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if expected(mid) >= PLAN_POWER:
            hi = mid
        else:
            lo = mid
    return hi


def _subset_plan(plan: Plan, cases: int, total: int, power: Callable[[float], float], needed: float | None,
                 holds: str) -> Plan:
    """A plan over a subset of the audit's cases (``cases`` of ``total`` are eligible), restated in
    the cases a user adds: the eligible share estimated, with its uncertainty."""
    share = f"{cases:,} of the audit's {total:,} cases are eligible"
    method = (plan.method + f"; counted in the cases a user adds, {share}: each added case eligible with that share, its "
              "uncertainty a Jeffreys Beta, the probability of deciding averaged over the eligible cases added "
              "(beta-binomial)")
    if plan.more is None or needed is None:
        return replace(plan, audit_cases=total, method=method)
    more = max(_added_cases(power, cases, total, needed), 1)
    return replace(plan, audit_cases=total, more=more, sentence=plan_sentence(more, plan.unit_word, holds, f"only {share}"),
                   method=method)


def plan_rate(estimate: Fraction | float, threshold: Fraction, *, observations: int, cases: int, design_effect: float,
              fragile: bool, total_cases: int | None = None) -> Plan:
    """A judge rate's plan, for its interval: Wilson at the effective number of observations
    n_eff = observations / design effect (agreebound.core.intervals.rate_interval), which excludes
    the threshold t exactly when n_eff (p - t)^2 >= z^2 t (1 - t). The rate p varies with standard
    deviation sqrt(p (1 - p) / n_eff), so the interval lies on p's side of t with 80% probability
    from n_eff = ((1.96 sqrt(t (1 - t)) + 0.84 sqrt(p (1 - p))) / (p - t))^2 (normal
    approximation, the rate and the design effect held). Cases grow with the observations per case
    held; the MDD is the distance |p - t| that the current n_eff detects with 80% probability.
    ``cases`` 0 (no per-case counts): the plan counts observations.

    300 observations over 50 cases (6 a case), design effect 2, so n_eff = 150; p = 3/50 against a
    maximum of 1/10: MDD 0.0741 (:func:`rate_mdd`); n_eff = ((0.5880 + 0.1999) / 0.04)^2 = 388.0,
    i.e. 775.9 observations, 129.3 cases: 80 more.

    >>> p = plan_rate(Fraction(3, 50), Fraction(1, 10), observations=300, cases=50, design_effect=2.0, fragile=True)
    >>> round(p.mdd, 4), p.size, p.more
    (0.0741, 50, 80)
    >>> p.sentence
    'about 80 more cases would decide it, if the rate holds (80% probability that its 95% interval then lies on one side of the threshold)'
    """
    p, t = float(estimate), float(threshold)
    per_case = observations / cases if cases else 1.0
    size, unit_word = (cases, "cases") if cases else (observations, "observations")
    n_eff = observations / design_effect
    spread = Z_INTERVAL * math.sqrt(t * (1 - t)) + Z_POWER * math.sqrt(p * (1 - p))
    needed = None if estimate == threshold else (spread / (p - t)) ** 2 * design_effect / per_case
    method = (f"normal approximation to the Wilson interval at effective n (observations / design effect "
              f"{design_effect:.3g}, held; {per_case:.3g} observations per {unit_word[:-1]}): n_eff = ((1.96 "
              "sqrt(t(1-t)) + 0.84 sqrt(p(1-p))) / (p - t))^2, p the observed rate, t the threshold; two-sided 95%, "
              "80% power; the MDD is the distance d from t at which a true rate t - d or t + d (the variance at that "
              "true rate) is detected with 80% probability at the current n_eff, the larger of the two sides that a "
              "rate in [0, 1] can reach")
    plan = _plan(estimate, threshold, fragile, size, needed, unit_word, "the rate", rate_mdd(t, n_eff),
                 design_effect, method)
    if not cases or total_cases is None or total_cases <= cases:
        return plan

    def power(eligible: float) -> float:
        n = eligible * per_case / design_effect
        sd = max(math.sqrt(p * (1 - p)), 1e-9)
        return _NORMAL.cdf((abs(p - t) * math.sqrt(n) - Z_INTERVAL * math.sqrt(t * (1 - t))) / sd)

    return _subset_plan(plan, cases, total_cases, power, needed, "the rate")


def rate_mdd(t: float, n_eff: float) -> float | None:
    """The minimum detectable difference of a rate against threshold t at effective size n_eff:
    the distance d with d sqrt(n_eff) = 1.96 sqrt(t (1 - t)) + 0.84 sqrt(q (1 - q)) at the true rate
    q = t - d and q = t + d (fixed point; the variance at the alternative, not at the observed rate,
    which vanishes at 0 or 1), the larger of the sides a rate in [0, 1] can reach; None when neither
    can.

    >>> round(rate_mdd(0.9, 4.0), 3)  # 16 of 16 agree over 4 cases against 90%: only below is reachable
    0.5
    """
    out = []
    for side in (-1, 1):
        d = (Z_INTERVAL + Z_POWER) * 0.5 / math.sqrt(n_eff)
        for _ in range(60):
            q = min(1.0, max(0.0, t + side * d))
            d = (Z_INTERVAL * math.sqrt(t * (1 - t)) + Z_POWER * math.sqrt(q * (1 - q))) / math.sqrt(n_eff)
        if 0.0 <= t + side * d <= 1.0:
            out.append(d)
    return max(out) if out else None


def plan_difference(estimate: Fraction | float, threshold: Fraction, *, variance: float, srs_variance: float | None,
                    cases: int, fragile: bool, total_cases: int | None = None) -> Plan:
    """A difference's plan (a net measure: two rates over disjoint case sets), for its normal
    interval d +/- 1.96 SE: SE = sqrt(``variance``) (cluster-robust) now, scaled by
    sqrt(cases now / cases) as both sets grow together; the interval lies on d's side of t with 80%
    probability from cases = cases now * variance * (1.96 + 0.84)^2 / (d - t)^2, and the MDD is
    (1.96 + 0.84) SE. The design effect is ``variance`` over ``srs_variance`` (the variance were
    the observations independent).

    SE 0.05 over 300 cases, d = 0.08 against a maximum of 0.05: MDD = 2.8016 * 0.05 = 0.1401;
    300 * 0.0025 * 7.849 / 0.0009 = 6,540.7 cases: 6,241 more.

    >>> p = plan_difference(Fraction(2, 25), Fraction(1, 20), variance=0.0025, srs_variance=0.001, cases=300,
    ...                     fragile=True)
    >>> round(p.mdd, 4), p.design_effect, p.more, p.sentence[:50]
    (0.1401, 2.5, 6241, 'about 6,300 more cases would decide it, if the dif')
    """
    se = math.sqrt(variance)
    d, t = float(estimate), float(threshold)
    needed = None if estimate == threshold else cases * variance * (Z_INTERVAL + Z_POWER) ** 2 / (d - t) ** 2
    method = (f"normal interval d +/- 1.96 SE, SE = {se:.4g} (cluster-robust) at {cases:,} cases scaled by "
              "sqrt(cases now / cases), both case sets growing together, the difference held: cases = cases now * "
              "SE^2 * (1.96 + 0.84)^2 / (d - t)^2; two-sided 95%, 80% power; the MDD is (1.96 + 0.84) SE")
    plan = _plan(estimate, threshold, fragile, cases, needed, "cases", "the difference",
                 (Z_INTERVAL + Z_POWER) * se, variance / srs_variance if srs_variance else None, method)
    if not cases or total_cases is None or total_cases <= cases:
        return plan

    def power(eligible: float) -> float:
        return _NORMAL.cdf(abs(d - t) / (se * math.sqrt(cases / max(eligible, 1e-9))) - Z_INTERVAL)

    return _subset_plan(plan, cases, total_cases, power, needed, "the difference")


def plan_alpha(estimate: Fraction | float, threshold: Fraction, *, se: float, units: int, fragile: bool,
               bootstrap: str = "units bootstrap") -> Plan:
    """Alpha's plan from its bootstrap: the standard error (the standard deviation of the
    bootstrap's draws at ``units`` pairable units) scaled by sqrt(units now / units), and the
    interval taken as alpha +/- 1.96 SE (an approximation: the bootstrap's interval is a
    percentile one). The interval lies on alpha's side of the floor with 80% probability from
    units = units now * SE^2 * (1.96 + 0.84)^2 / (alpha - floor)^2, alpha held and new units like
    these; the MDD is (1.96 + 0.84) SE.

    SE 0.05 at 40 units, alpha 0.65 against a floor of 0.6: MDD 0.1401; 40 * 0.0025 * 7.849 / 0.0025
    = 313.96 units, so 314: 274 more.

    >>> p = plan_alpha(Fraction(13, 20), Fraction(3, 5), se=0.05, units=40, fragile=True)
    >>> round(p.mdd, 4), p.more, p.unit_word, p.design_effect
    (0.1401, 274, 'units', None)
    """
    a, t = float(estimate), float(threshold)
    needed = None if estimate == threshold else units * se * se * (Z_INTERVAL + Z_POWER) ** 2 / (a - t) ** 2
    method = (f"normal approximation from alpha's bootstrap ({bootstrap or 'units bootstrap'}): its standard error "
              f"(the standard deviation of its draws, {se:.4g} at {units:,} pairable units) scaled by "
              "sqrt(units now / units), the interval taken as "
              "alpha +/- 1.96 SE, alpha held and new units like these: units = units now * SE^2 * (1.96 + 0.84)^2 / "
              "(alpha - floor)^2; two-sided 95%, 80% power; the MDD is (1.96 + 0.84) SE")
    return _plan(estimate, threshold, fragile, units, needed, "units", "alpha", (Z_INTERVAL + Z_POWER) * se, None,
                 method)


def plan_se(estimate: Fraction | float, threshold: Fraction, *, se: float, size: int, fragile: bool, unit_word: str,
            holds: str, how: str) -> Plan:
    """A plan from a standard error at ``size`` (items, cases) that shrinks as sqrt(size now / size),
    the interval taken as estimate +/- 1.96 SE: size = size now * SE^2 * (1.96 + 0.84)^2 /
    (estimate - threshold)^2, the estimate held; the MDD is (1.96 + 0.84) SE. ``how``: where the
    standard error comes from, in words (a graded judge's jackknife over items).

    >>> p = plan_se(Fraction(-1, 50), Fraction(-1, 20), se=0.02, size=100, fragile=True, unit_word="items",
    ...             holds="the difference", how="a jackknife")
    >>> p.more, p.unit_word, p.sentence.split(",")[0]
    (249, 'items', 'about 250 more items would decide it')
    """
    a, t = float(estimate), float(threshold)
    needed = None if estimate == threshold else size * se * se * (Z_INTERVAL + Z_POWER) ** 2 / (a - t) ** 2
    method = (f"normal approximation from the standard error of {how} ({se:.4g} at {size:,} {unit_word}) scaled by "
              f"sqrt({unit_word} now / {unit_word}), {holds} held and new {unit_word} like these: {unit_word} = "
              f"{unit_word} now * SE^2 * (1.96 + 0.84)^2 / (estimate - threshold)^2; two-sided 95%, 80% power; the "
              "MDD is (1.96 + 0.84) SE")
    return _plan(estimate, threshold, fragile, size, needed, unit_word, holds, (Z_INTERVAL + Z_POWER) * se, None,
                 method)


