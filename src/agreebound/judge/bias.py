"""Bias or disagreement? The measures beside the seed's five gates that tell a judge's bias from its
general disagreement with the humans, each written once over the audit's counts
(agreebound.judge.counts), so every engine (in memory, DuckDB, Spark) gives the same exact answer.

* **Position direction.** The first-slot rate: the share of decisive verdicts (a or b) that pick
  the candidate shown first (null 0.5), with the exact binomial test; McNemar's exact test on the
  cases stable in both orders that pick the first-shown candidate both times against those that
  pick the second-shown both times (the flips that have a direction); the flip rate with ties
  counted (the seed's) and among decisive pairs only (judgekit's and judgecal's with one judgment
  per order).
* **Verbosity net of disagreement.** The seed's rate (the judge picks the longer candidate when the
  humans preferred the shorter) minus its mirror (the judge picks the shorter when the humans
  preferred the longer): what a judge that only disagrees scores on both alike cancels. Beside it,
  the length preference: P(judge picks longer) - P(humans pick longer) over the decisive (human
  reference not a tie) cases of unequal lengths, judgemetry's definition when the judge never ties
  (it drops the judge's ties; here a tie is not a pick of the longer).
* **Self-preference net of strength** (agreebound.judge.self_preference): the judge's share of
  verdicts for its own candidate beyond what the humans' preferences, scaled as the judge scales
  them on every model pair, predict; a judge with no self-preference reads 0 whatever the
  candidates' strength. Beside it the seed's rate, the control (the judge picks the human-rejected
  candidate on cases with no candidate of its own) and their difference, judgecal's own-pick excess,
  which also measures strength; with a note when the two sets of cases differ much in how often the
  rejected candidate is the longer one.

Intervals (95%) respect the cases: a share uses the judge rates' case-clustered Wilson interval
(agreebound.core.intervals.rate_interval); a difference of two rates over disjoint sets of cases the
cluster-robust (ratio-estimator) variance of each, summed, with a normal interval; judgemetry's
difference, paired within each case, the cluster-robust variance of its per-case differences.
Coverage is checked by simulation (tests/judge/test_bias_coverage.py).

>>> from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT
>>> from agreebound.judge.measure import measure
>>> b = measure_bias(measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT).counts, judge="judge-v1")
>>> b["first_slot"].fraction, b["verbosity_net"].fraction, b["self_error_excess"].fraction
('6/12', '0/12 - 0/0', '0/4 - 0/8')
>>> b["self_preference_net"].fraction, b["self_preference_net"].method  # one own case: no interval
('0 - 0', "no interval: fewer than 10 cases on the judge's own pairs (1 case on the judge's 1 own pair, 3 on 1 other)")
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping, Sequence, overload

import numpy as np

from agreebound.judge.counts import JudgeCounts, RateStats
from agreebound.judge.self_preference import LEAST_OWN_CASES, LEAST_SPREAD, RESAMPLES, fit_self_preference
from agreebound.core.gate import Gate
from agreebound.core.intervals import Z95, Wilson, rate_interval
from agreebound.core.student_t import t_cdf, t_quantile
from agreebound.core.json_types import JSONObject

#: Which seed gate each measure belongs to: a partial audit that cannot evaluate the gate (its
#: source lacks orders, lengths or generators) cannot measure the measure either.
GATE_OF = {
    "first_slot": "position_flip", "mcnemar": "position_flip", "flip_with_ties": "position_flip",
    "flip_decisive": "position_flip", "flip_pairs": "position_flip",
    "verbosity_bias": "verbosity_bias", "verbosity_mirror": "verbosity_bias", "verbosity_net": "verbosity_bias",
    "length_excess": "verbosity_bias",
    "self_preference": "self_preference", "self_control": "self_preference", "self_preference_net": "self_preference",
    "self_error_excess": "self_preference",
}
#: The net measure behind each seed gate, what the excess is attributable to, the gate in words, and
#: what the net measure takes out of the raw rate.
NET_OF = {"verbosity_bias": ("verbosity_net", "length", "verbosity", "general disagreement"),
          "self_preference": ("self_preference_net", "self-preference", "self-preference",
                              "the candidates' strength and general disagreement")}
#: The mix note: the two self-preference case sets differ by more than this share (of 1) in how often
#: the human-rejected candidate is the longer one (a description of the data, not a gate).
MIX_NOTE_SHARE = Fraction(1, 5)
#: Above this many decisive verdicts the exact binomial tail is summed in floating point in log space
#: (still exact in form; below, in rational arithmetic).
EXACT_RATIONAL_MAX = 2_000


@dataclass(frozen=True)
class Measure:
    """One measure beside the gates: its exact value, the fraction it is, its 95% interval and a sentence."""

    name: str
    title: str
    #: None: not measured (see ``unavailable``); a float where the measure takes a square root
    #: (a ratio of standard deviations, a correlation)
    exact: Fraction | float | None
    fraction: str  # "118/182", or a difference "21/45 - 9/58"
    low: float | None = None
    high: float | None = None
    method: str = ""  # the interval's method, in words
    definition: str = ""  # what it counts, and whose definition it is
    #: "share" (0..1) or "difference" (-1..1), in percent; and for the graded and pass/fail judges'
    #: measures (agreebound.scored.audit): "coefficient" (alpha, kappa, a correlation: -1..1, shown
    #: as a number), "scale" (a difference in the scale's own points), "ratio" (a multiple)
    kind: str = "share"
    p_value: float | None = None
    test: str = ""  # the test behind p_value, in words
    unavailable: str = ""  # why it is not measured
    sentence: str = ""
    #: for a gate's plan (agreebound.core.planner.plan_difference): the standard error the interval implies
    #: (its width / 2 x 1.96), the design effect against independent observations, the cases behind it
    se: float | None = None
    design_effect: float | None = None
    cases: int = 0

    @property
    def value(self) -> float | None:
        return None if self.exact is None else float(self.exact)

    @property
    def includes_zero(self) -> bool | None:
        """The interval holds 0 (a difference indistinguishable from none); None without an interval."""
        if self.low is None or self.high is None:
            return None
        return self.low <= 0 <= self.high

    def _number(self, x: float) -> str:
        """One number in the measure's own scale (percent for shares and differences)."""
        if self.kind == "coefficient":
            return f"{x:.3f}"
        if self.kind == "scale":
            return f"{x:+.2f}"
        if self.kind == "ratio":
            return f"{x:.2f}"
        return f"{x * 100:.1f}"

    def value_text(self) -> str:
        """"31.1 points" (a difference), "55.7%" (a share), "0.734" (a coefficient), "+0.42 scale
        points", "0.81x" (a ratio), or "not measured"."""
        if self.exact is None:
            return "not measured"
        unit = {"difference": " points", "share": "%", "scale": " scale points", "ratio": "x"}.get(self.kind, "")
        return self._number(float(self.exact)) + unit

    def interval_text(self) -> str:
        """"[20.3, 41.0]" in the value's own scale; "" without an interval."""
        if self.low is None or self.high is None:
            return ""
        return f"[{self._number(self.low)}, {self._number(self.high)}]"

    def points(self) -> str:
        """"2.1 points [-4.0, 8.3]" (a difference) or "64.8% [58.5, 71.2]" (a share)."""
        return " ".join(x for x in (self.value_text(), "" if self.exact is None else self.interval_text()) if x)

    def to_dict(self) -> JSONObject:
        """As a report stores it: floats to 6 decimals (p-values to 6 significant figures), so the
        same inputs give the same bytes whatever the platform's last bits of lgamma or sqrt."""
        def r6(x: float | None) -> float | None:
            return None if x is None else round(float(x), 6)

        return {"name": self.name, "title": self.title, "kind": self.kind,
                "exact": None if self.exact is None else str(self.exact),
                "value": r6(self.value), "fraction": self.fraction,
                "interval95": None if self.low is None else [r6(self.low), r6(self.high)],
                "interval_method": self.method, "definition": self.definition,
                "p_value": None if self.p_value is None else float(f"{self.p_value:.6g}"), "test": self.test,
                "unavailable": self.unavailable or None, "sentence": self.sentence}


@dataclass(frozen=True)
class BiasMeasures:
    """The three groups of measures (position, verbosity, self-preference), in the order shown."""

    position: tuple[Measure, ...]
    verbosity: tuple[Measure, ...]
    self_preference: tuple[Measure, ...]
    #: the self-preference sets' mix, when it differs much (else None)
    mix_note: str | None = None
    by_name: dict[str, Measure] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.by_name.update({m.name: m for m in (*self.position, *self.verbosity, *self.self_preference)})

    def __getitem__(self, name: str) -> Measure:
        return self.by_name[name]

    @property
    def groups(self) -> tuple[tuple[str, tuple[Measure, ...]], ...]:
        return (("Position", self.position), ("Verbosity", self.verbosity), ("Self-preference", self.self_preference))

    def to_dict(self) -> JSONObject:
        return {"position": [m.to_dict() for m in self.position],
                "verbosity": [m.to_dict() for m in self.verbosity],
                "self_preference": [m.to_dict() for m in self.self_preference],
                "mix_note": self.mix_note}


# --- arithmetic --------------------------------------------------------------------------------


def clustered_variance(s: RateStats) -> Fraction | None:
    """The cluster-robust (ratio-estimator) variance of sum y_i / sum m_i over its k cases:
    k/(k-1) * sum (y_i - theta m_i)^2 / (sum m_i)^2, from the per-case sums exactly (y_i may be
    signed); None with fewer than 2 cases.

    >>> clustered_variance(RateStats(3, 8, k=2, syy=5, sym=12, smm=32))  # cases 2/4 and 1/4
    Fraction(1, 64)
    """
    if s.k < 2 or s.denominator == 0:
        return None
    return Fraction(s.k * s.spread(), (s.k - 1) * s.denominator ** 4)


@overload
def normal_interval(estimate: Fraction, variance: Fraction, z: float = Z95) -> tuple[float, float]: ...
@overload
def normal_interval(estimate: Fraction, variance: Fraction | None, z: float = Z95) -> tuple[float | None, float | None]: ...


def normal_interval(estimate: Fraction, variance: Fraction | None, z: float = Z95) -> tuple[float | None, float | None]:
    if variance is None:
        return None, None
    half = z * math.sqrt(float(variance))
    return float(estimate) - half, float(estimate) + half


def binomial_two_sided(k: int, n: int) -> float:
    """The exact two-sided binomial test of k successes in n at p = 1/2: 2 P(X <= min(k, n - k)),
    at most 1.

    >>> binomial_two_sided(16, 18), binomial_two_sided(3, 6)  # 2 * 172 / 2^18; a perfect split
    (0.001312255859375, 1.0)
    """
    if n == 0:
        return 1.0
    low = min(k, n - k)
    if 2 * low == n:
        return 1.0
    if n <= EXACT_RATIONAL_MAX:
        tail = sum(math.comb(n, i) for i in range(low + 1))
        return float(min(Fraction(1), Fraction(2 * tail, 2 ** n)))
    # the tail P(X <= low) summed downward from low: the terms fall off at least as fast as a normal
    # of sd sqrt(n)/2 below the mode, so 40 sd (and all terms when fewer) hold every one that counts
    width = min(low, int(20 * math.sqrt(n)) + 1_000)
    i = np.arange(low, low - width, -1, dtype=np.float64)  # low, low - 1, ...; ratio pmf(i-1)/pmf(i)
    top = math.lgamma(n + 1) - math.lgamma(low + 1) - math.lgamma(n - low + 1) - n * math.log(2)
    logs = top + np.concatenate([[0.0], np.cumsum(np.log(i / (n - i + 1)))])
    return float(min(1.0, 2 * math.exp(top) * np.exp(logs - top).sum()))


def _share(name: str, title: str, s: RateStats, definition: str, *, clustered: bool = True) -> Measure:
    if s.denominator == 0:
        return Measure(name, title, None, "0/0", definition=definition, unavailable="no opportunities")
    if clustered:
        iv = rate_interval(name, s.numerator, s.denominator, s, Z95)
        low, high, method = iv.low, iv.high, iv.method
    else:
        w = Wilson(s.numerator, s.denominator)
        low, high, method = w.low, w.high, f"Wilson over {s.denominator:,} independent cases"
    return Measure(name, title, Fraction(s.numerator, s.denominator), f"{s.numerator}/{s.denominator}",
                   low, high, method, definition)


def _difference(name: str, title: str, a: RateStats, b: RateStats, definition: str) -> Measure:
    """a's rate minus b's, over disjoint sets of cases: MOVER (Newcombe 1998, method 10; Zou and
    Donner 2008) from each rate's case-clustered Wilson interval, so a rate of 0 or 1, or a set of one
    case, keeps an honest width (its Wilson interval at the worst-case design effect), and the
    difference stays within [-1, 1]."""
    frac = f"{a.numerator}/{a.denominator} - {b.numerator}/{b.denominator}"
    if a.denominator == 0 or b.denominator == 0:
        which = "the rate" if a.denominator == 0 else "the comparison rate"
        return Measure(name, title, None, frac, definition=definition, kind="difference",
                       unavailable=f"no opportunities for {which}")
    pa, pb = Fraction(a.numerator, a.denominator), Fraction(b.numerator, b.denominator)
    ia, ib = (rate_interval(name, s.numerator, s.denominator, s, Z95) for s in (a, b))
    est = pa - pb
    low = max(-1.0, float(est) - math.hypot(float(pa) - ia.low, ib.high - float(pb)))
    high = min(1.0, float(est) + math.hypot(ia.high - float(pa), float(pb) - ib.low))
    se = (high - low) / (2 * Z95)
    srs = float(pa * (1 - pa) / a.denominator + pb * (1 - pb) / b.denominator)
    method = (f"MOVER (Newcombe's method 10) from each rate's case-clustered Wilson interval ({a.k:,} and "
              f"{b.k:,} cases)")
    return Measure(name, title, est, frac, low, high, method, definition, "difference", se=se,
                   design_effect=se * se / srs if srs else None, cases=a.k + b.k)


def _paired(name: str, title: str, d: RateStats, judge: RateStats, definition: str) -> Measure:
    """sum d_i / sum m_i, the per-case differences' ratio estimator, with a normal interval from
    their cluster-robust variance, within [-1, 1]. When the per-case differences do not vary (every
    case the same: nothing to measure the spread on) the variance is the largest a difference in
    [-1, 1] with this mean can have over these cases, (1 - d^2) / k, not 0."""
    if d.denominator == 0:
        return Measure(name, title, None, "0/0", definition=definition, kind="difference",
                       unavailable="no decisive cases of unequal lengths")
    est = Fraction(d.numerator, d.denominator)
    human = judge.numerator - d.numerator
    var = clustered_variance(d)
    method = f"normal, cluster-robust variance of the per-case differences ({d.k:,} cases)"
    if var is None or var == 0:
        var = (1 - est * est) / d.k
        method = (f"normal with the largest variance a difference of this mean can have over {d.k:,} case"
                  f"{'' if d.k == 1 else 's'} (the per-case differences do not vary: nothing to measure it on)")
    low, high = normal_interval(est, var)
    return Measure(name, title, est, f"{judge.numerator}/{d.denominator} - {human}/{d.denominator}",
                   max(-1.0, low), min(1.0, high), method, definition, "difference",
                   se=math.sqrt(float(var)), cases=d.k)


# --- the measures ------------------------------------------------------------------------------


def _position(c: JudgeCounts) -> tuple[Measure, ...]:
    r = c.rates
    first = _first_slot(r["first_slot"])
    fb, sb = c.first_both, c.second_both
    mc = _share("mcnemar", "Directed flips favouring the first slot", RateStats(fb, fb + sb, fb + sb, fb, fb, fb + sb),
                "cases stable in both orders that pick the first-shown candidate both times, over those plus the "
                "cases that pick the second-shown both times (McNemar's discordant pairs)", clustered=False)
    if mc.exact is not None:
        p = binomial_two_sided(fb, fb + sb)
        mc = replace(mc, p_value=p, test=f"McNemar's exact test ({fb} first-both vs {sb} second-both), two-sided",
                    sentence=f"{fb} of the {fb + sb} decisive flips favour the first slot, {sb} the second "
                             f"(McNemar exact {p_words(p)}).")
    ties = _share("flip_with_ties", "Position flip, ties counted (the seed's)", r["position_flip"],
                  "cases stable in both orders whose verdicts differ (a tie against a or b counts), over cases "
                  "stable in both orders", clustered=False)
    dec = _share("flip_decisive", "Position flip among decisive pairs", r["flip_decisive"],
                 "cases stable and decisive in both orders that name different candidates, over such cases "
                 "(judgekit's and judgecal's with one judgment per order; only the cases whose repetitions agree: "
                 "a noisy judge's unstable cases are left out)", clustered=False)
    pairs = _share("flip_pairs", "Position flip per repetition pair", r["flip_pairs"],
                   "every decisive verdict of order ab paired with every decisive verdict of order ba of the same "
                   "case: the pairs that name different candidates, over such pairs (judgecal's and judgekit's "
                   "pairing of judgments, averaged over every pairing of the repetitions; with one judgment per "
                   "order, the same as among decisive pairs); unstable cases count")
    return first, mc, ties, dec, pairs


#: The first-slot rate's design effect is measured, not floored at 1: a case's two presentation
#: orders are negatively correlated by design (a judge that picks the same answer in both orders
#: picks the first-shown slot once in each pair), so its verdicts are worth more than independent
#: ones. Floored at 1/4 (never more than four verdicts' worth a verdict), so a judge whose every
#: case splits its verdicts evenly keeps an interval.
FIRST_SLOT_LEAST_DEFF = Fraction(1, 4)


def _first_slot(s: RateStats) -> Measure:
    """The first-slot rate with its case-clustered Wilson interval and the test that interval
    inverts: the score test of 1/2 at the same effective n, t^2 = 4 n_eff (p - 1/2)^2 referred to
    Student's t with (cases - 1) degrees of freedom, the interval's own quantile (a small-sample
    correction for a variance estimated from few cases), so the interval holds 50% exactly when
    the test's p is at least 0.05."""
    name, title = "first_slot", "First-slot rate"
    definition = ("decisive verdicts (a or b) that pick the candidate shown first, over decisive verdicts; 0.5 without "
                  "a slot preference")
    if s.denominator == 0:
        return Measure(name, title, None, "0/0", definition=definition, unavailable="no opportunities")
    df = max(s.k - 1, 1)
    q = t_quantile(0.975, df)
    iv = rate_interval(name, s.numerator, s.denominator, s, q, least_design_effect=FIRST_SLOT_LEAST_DEFF)
    est = Fraction(s.numerator, s.denominator)
    t = math.sqrt(float(4 * iv.n_eff_exact * (est - Fraction(1, 2)) ** 2))
    p = min(1.0, 2 * (1 - t_cdf(t, df)))
    method = iv.method.replace("Wilson with", f"Wilson (Student's t quantile, {df:,} degrees of freedom) with", 1)
    m = Measure(name, title, est, f"{s.numerator}/{s.denominator}", iv.low, iv.high, method, definition, p_value=p,
                test=f"score test of 50% at the interval's effective n ({float(iv.n_eff_exact):,.1f} verdicts' worth) "
                     f"against Student's t with {df:,} degrees of freedom: the test the interval inverts, two-sided")
    return replace(m, sentence=_first_sentence(m, p))


def _verbosity(c: JudgeCounts) -> tuple[Measure, ...]:
    r = c.rates
    seed = _share("verbosity_bias", "Verbosity (the seed's)", r["verbosity_bias"],
                  "the judge picks the longer candidate when the humans preferred the shorter")
    mirror = _share("verbosity_mirror", "Mirror error", r["verbosity_mirror"],
                    "the judge picks the shorter candidate when the humans preferred the longer")
    net = _difference("verbosity_net", "Verbosity net of disagreement", r["verbosity_bias"], r["verbosity_mirror"],
                      "the seed's rate minus the mirror error: what general disagreement adds to both cancels")
    excess = _paired("length_excess", "Length preference", r["length_excess"], r["judge_longer"],
                     "P(judge picks longer) - P(humans pick longer) over the cases of unequal lengths whose human "
                     "reference is not a tie, weighted by verdicts; a judge's tie counts as not picking the longer "
                     "(judgemetry's and judgekit's definition when the judge never ties: they drop its ties)")
    return (seed, mirror, replace(net, sentence=_net_sentence(net, "length", "general disagreement")),
            replace(excess, sentence=_excess_sentence(excess, r["judge_longer"], r["length_excess"])))


#: The humans' share of longer picks further than this from 1/2 and the length preference says
#: that general disagreement alone moves it (a description of the data, not a gate).
HUMAN_LONGER_NOTE = Fraction(1, 20)


def _excess_sentence(m: Measure, judge_longer: RateStats, excess: RateStats) -> str:
    """The length preference in words, and, where the humans preferred the longer (or the shorter)
    answer in most of its cases, that a judge that only disagrees with them moves it: P(judge picks
    longer) - P(humans pick longer) is net of disagreement only when the humans split evenly."""
    if m.exact is None or not excess.denominator:
        return ""
    more = "more" if m.exact >= 0 else "less"
    head = f"The judge picks the longer answer {abs(float(m.exact)) * 100:.1f} points {more} often than the humans " \
           f"{m.interval_text()}".rstrip() + "."
    human = Fraction(judge_longer.numerator - excess.numerator, excess.denominator)
    if abs(human - Fraction(1, 2)) <= HUMAN_LONGER_NOTE:
        return head
    side, toward = ("longer", "below") if human > Fraction(1, 2) else ("shorter", "above")
    return (head + f" The humans preferred the longer answer in {float(human):.0%} of these cases: a judge that only "
            f"disagrees with them, picking the other answer at random, picks the {side} less often than they do, which "
            f"moves this measure {toward} 0 with no length preference at all. It is not net of disagreement here; the "
            "verbosity net of disagreement is.")


def _self(c: JudgeCounts, judge: str | None) -> tuple[tuple[Measure, ...], str | None]:
    r = c.rates
    seed = _share("self_preference", "Self-preference (the seed's)", r["self_preference"],
                  "the judge picks its own candidate when the humans preferred the other")
    control = _share("self_control", "Control: picks the rejected candidate", r["self_control"],
                     "the judge picks the human-rejected candidate on cases with no candidate of its own")
    excess = _difference("self_error_excess", "Own-pick excess on human-rejected cases", r["self_preference"],
                         r["self_control"], "the seed's rate minus the control rate (judgecal's "
                         "self_error_pick_excess): it also measures the candidates' strength, since where the "
                         "humans reject a strong candidate it is mostly their noise")
    note = None
    k_self, k_control = r["self_preference"].k, r["self_control"].k
    if k_self and k_control:
        a, b = Fraction(c.self_rejected_longer, k_self), Fraction(c.control_rejected_longer, k_control)
        if abs(a - b) > MIX_NOTE_SHARE:
            note = (f"The two sets of cases differ in their mix: the judge's own (rejected) candidate is the longer "
                    f"one in {float(a):.0%} of its {k_self:,} cases, the rejected candidate in {float(b):.0%} of the "
                    f"{k_control:,} control cases; part of the own-pick excess may be length, not self-preference.")
    return (seed, control, excess, _self_net(c, judge)), note


def _self_net(c: JudgeCounts, judge: str | None) -> Measure:
    """The self-preference net of the candidates' strength (agreebound.judge.self_preference)."""
    name, title = "self_preference_net", "Self-preference net of strength"
    definition = ("the judge's share of verdicts for its own candidate, on its own pairs with a human reference, "
                  "less the humans' share scaled as the judge scales the humans' preferences on every pair "
                  "(least squares over the model pairs, weighted by cases; ties half); a judge with no "
                  "self-preference reads 0 whatever the candidates' strength")
    fit = fit_self_preference(c.verdicts, judge)
    if isinstance(fit, str):
        return Measure(name, title, None, "", definition=definition, kind="difference", unavailable=fit)
    pairs = fit.own_pairs + fit.other_pairs
    scale = ("slope taken as 1: the model pairs' human preferences do not differ beyond their noise"
             if not fit.slope_measured else
             f"slope {float(fit.slope):.2f} from {pairs:,} model pair{'' if pairs == 1 else 's'}"
             + ("" if fit.spread >= LEAST_SPREAD else ", loosely measured: the pairs' human preferences differ little"))
    over = (f"{fit.own_cases:,} case{'' if fit.own_cases == 1 else 's'} on the judge's {fit.own_pairs:,} own "
            f"pair{'' if fit.own_pairs == 1 else 's'}, {fit.other_cases:,} on {fit.other_pairs:,} "
            f"other{'' if fit.other_pairs == 1 else 's'}")
    if fit.low is None or fit.high is None:
        m = Measure(name, title, fit.net, fit.fraction, None, None,
                    f"no interval: fewer than {LEAST_OWN_CASES} cases on the judge's own pairs ({over})", definition,
                    "difference", cases=fit.own_cases + fit.other_cases)
    else:
        method = (f"the wider of the cluster bootstrap's percentile interval over cases ({RESAMPLES:,} resamples, the "
                  f"slope refitted in each) and the jackknife's normal interval; {over}")
        m = Measure(name, title, fit.net, fit.fraction, fit.low, fit.high, method, definition,
                    "difference", cases=fit.own_cases + fit.other_cases, se=(fit.high - fit.low) / (2 * Z95))
    assumption = ("It assumes the judge scales the humans' preference for its own candidate as it scales theirs on "
                  f"the other pairs ({scale}); the raw difference, P(judge picks own) - P(humans pick own), is "
                  f"{float(fit.raw_difference) * 100:+.1f} points.")
    return replace(m, sentence=_net_sentence(m, "self-preference", NET_OF["self_preference"][3], assumption))


def measure_bias(counts: JudgeCounts, unavailable: Mapping[str, str] | None = None, *,
                 judge: str | None = None) -> BiasMeasures:
    """Every measure beside the gates from an audit's counts; a measure whose seed gate this source
    cannot evaluate (``unavailable``: gate -> why, a partial audit's) is not measured, and says why.
    ``judge``: the judge's generator (the contract's), whose candidates are its own."""
    unavailable = unavailable or {}
    (self_measures, note) = _self(counts, judge)

    def guard(ms: Sequence[Measure]) -> tuple[Measure, ...]:
        return tuple(replace(m, exact=None, low=None, high=None, p_value=None, sentence="",
                            unavailable=unavailable[GATE_OF[m.name]]) if GATE_OF[m.name] in unavailable else m
                     for m in ms)

    return BiasMeasures(guard(_position(counts)), guard(_verbosity(counts)), guard(self_measures),
                        None if "self_preference" in unavailable else note)


# --- sentences ---------------------------------------------------------------------------------


def p_words(p: float) -> str:
    """"p = 0.0013", "p < 0.0001"."""
    return f"p = {p:.2g}" if p >= 1e-4 else "p < 0.0001"


def _first_sentence(m: Measure, p: float) -> str:
    assert m.exact is not None  # measured: the caller checked
    side = "first" if m.exact > Fraction(1, 2) else "second"
    test = f"score test {p_words(p)}, the test this interval inverts"
    if m.low is not None and m.high is not None and not m.low <= 0.5 <= m.high:
        return (f"The judge picks the first-shown candidate in {m.points()} of its decisive verdicts: a preference "
                f"for the {side} slot ({test}).")
    return (f"The judge picks the first-shown candidate in {m.points()} of its decisive verdicts: the interval "
            f"holds 50%, so no slot preference is shown ({test}).")


def _net_sentence(net: Measure, cause: str, baseline: str, assumption: str = "") -> str:
    """``baseline``: what the net measure takes out of the raw rate ("general disagreement");
    ``assumption``: what the measure assumes, a sentence of its own after the reading."""
    if net.exact is None:
        return ""
    head = f"The excess attributable to {cause} is {net.points()}"
    if net.includes_zero is None:
        reading = head + " (too few cases for an interval)."
    elif net.includes_zero:
        reading = head + f": indistinguishable from none; what the raw rate counts is mostly {baseline}."
    elif net.low is not None and net.low > 0:
        reading = head + f": a {cause} bias beyond {baseline}."
    else:
        reading = head + f": below none (the judge leans against {cause})."
    return reading + (f" {assumption}" if assumption else "")


def _fails(words: str, origin: str) -> str:
    """How a failing raw gate is said: a contract fails it; without one (``origin`` "illustrative"
    or "thresholds") nothing is decided, and the value is outside a limit that is not a contract's."""
    if origin == "given":
        return f"fails the contract's {words} limit"
    limit = "illustrative" if origin == "illustrative" else "in-force"
    return f"is outside the {limit} {words} limit (no contract: nothing is decided)"


def attribution(gate: Gate, bias: BiasMeasures, origin: str = "given") -> str | None:
    """A failing raw seed gate read against its net measure, for the verdict: "fails the contract's
    verbosity limit; the excess attributable to length is 2.1 points [-4.0, 8.3]: the failure is
    mostly general disagreement". None when the gate did not fail or has no net measure."""
    if gate.name not in NET_OF or gate.passed is not False:
        return None
    net_name, cause, words, baseline = NET_OF[gate.name]
    net = bias[net_name]
    if net.exact is None or net.includes_zero is None:
        return None
    head = f"{_fails(words, origin)}; the excess attributable to {cause} is {net.points()}"
    if net.includes_zero:
        return head + f": the failure is mostly {baseline}"
    if net.low is not None and net.low > 0:
        return head + f": a {cause} bias beyond {baseline}"
    return head + f": the judge leans the other way; the failure is {baseline}"


def position_attribution(gate: Gate, bias: BiasMeasures, origin: str = "given") -> str | None:
    """A failing position-flip gate read against the flips' direction."""
    if gate.name != "position_flip" or gate.passed is not False:
        return None
    mc = bias["mcnemar"]
    if mc.exact is None or mc.p_value is None:
        return None
    head = f"{_fails('position-flip', origin)}; {mc.sentence[:-1]}"
    if mc.p_value < 0.05:  # the reading follows the test the sentence cites
        return head + ": a slot preference, not only inconsistency"
    return head + ": the flips have no clear direction (inconsistency more than a slot preference)"


def verdict_notes(gates: Sequence[Gate], bias: BiasMeasures, origin: str = "given") -> tuple[str, ...]:
    """Each failing raw gate's reading against its bias measure, for the decision's sentence.
    ``origin``: the decision's contract_origin ("given"; without a contract "illustrative" or
    "thresholds": then nothing failed a contract, and the notes say the value is outside a limit)."""
    out = []
    for g in gates:
        text = attribution(g, bias, origin) or position_attribution(g, bias, origin)
        if text:
            out.append(text[0].upper() + text[1:] + ".")
    return tuple(out)
