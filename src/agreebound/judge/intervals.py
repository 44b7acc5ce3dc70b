"""A judge audit's rate intervals (Wilson at the effective number of observations: the
observations of one case are not independent; Clopper-Pearson at the same effective n for the
slices' simultaneous intervals) and the judge's diagnostics.
"""

from __future__ import annotations
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from agreebound.core.intervals import Z95, IntervalKind, RateInterval, Wilson, rate_interval
from agreebound.judge.agreement import Kappa, kappa_from_patterns

if TYPE_CHECKING:
    from agreebound.judge.measure import CalibrationMeasurement


def judge_rate_intervals(measurement: CalibrationMeasurement, z: float = Z95, *,
                         kind: IntervalKind = "wilson") -> dict[str, RateInterval]:
    """95% intervals for a judge's rates that count each case's observations as one cluster
    (``kind="clopper-pearson"``: Clopper-Pearson's interval instead of Wilson's, at the same
    effective n and z, agreebound.core.intervals.rate_interval; the slices' simultaneous intervals).

    For a rate p = sum y_i / sum m_i over the k cases that contribute to it (y_i, m_i: the case's
    numerator and denominator counts, summed in ``measurement.rate_stats()``):

    * v_c = k/(k-1) * sum (y_i - p m_i)^2 / (sum m_i)^2, the cluster-robust (ratio-estimator)
      variance; v_srs = p (1-p) / sum m_i, the variance if the observations were independent;
    * deff = v_c / v_srs, floored at 1 (never narrower than the observation-level Wilson) and
      capped at deff_max = sum m_i^2 / sum m_i, the design effect when every case's observations
      are identical (the k/(k-1) factor can push the estimate past it); n_eff = sum m_i / deff,
      which is k at the cap when the cases are of equal size;
    * when p is 0 or 1 (v_srs = 0: nothing to measure) or k = 1, the worst case deff = deff_max:
      one observation's worth per case (n_eff = k for equal case sizes, fewer otherwise);
    * a rate whose cases contribute one observation each (position flip) has deff_max = 1: it is
      the observation-level Wilson over cases;
    * Wilson score interval at phat = p and n = n_eff (z = ``Z95``).

    deff and n_eff are exact fractions (integer arithmetic), so the bound comparisons are exact.
    One entry per evaluable rate: rates with no opportunity or listed in ``unavailable`` are left
    out. A rate whose per-case counts cannot be derived keeps the observation-level Wilson
    (deff 1) and says so in ``method``.

    Two rates worked by hand. 81 of 263 cases, one observation each: deff_max = 263/263 = 1, so the
    interval is Newcombe's (1998, Table I) Wilson for 81/263, 0.2553 to 0.3662. 3 of 10 cases whose
    4 observations each all say yes (12 of 40): syy = sym = 3 * 4 * 4 = 48, smm = 10 * 16 = 160,
    deff_max = 160/40 = 4; measured 10/9 * (40^2 * 48 - 2 * 40 * 12 * 48 + 12^2 * 160) / (40 * 12 * 28)
    = 40/9 = 4.44, capped at 4: n_eff = 10, the Wilson interval for 3/10, 0.1078 to 0.6032:

    >>> from types import SimpleNamespace
    >>> from agreebound.judge.counts import RateStats
    >>> stats = {"position_flip": RateStats(81, 263, k=263, syy=81, sym=81, smm=263),
    ...          "human_agreement": RateStats(12, 40, k=10, syy=48, sym=48, smm=160)}
    >>> rates = [SimpleNamespace(name=name, numerator=r.numerator, denominator=r.denominator)
    ...          for name, r in stats.items()]
    >>> audit = SimpleNamespace(rates=rates, rate_stats=lambda: stats)
    >>> for r in judge_rate_intervals(audit).values():
    ...     print(r.name, r.deff, r.n_eff, round(r.low, 4), round(r.high, 4))
    position_flip 1.0 263.0 0.2553 0.3662
    human_agreement 4.0 10.0 0.1078 0.6032
    """
    getter = getattr(measurement, "rate_stats", None)
    stats = getter() if callable(getter) else {}
    unavailable = getattr(measurement, "unavailable", {}) or {}
    return {r.name: rate_interval(r.name, r.numerator, r.denominator, stats.get(r.name), z, kind=kind)
            for r in measurement.rates if r.denominator > 0 and r.name not in unavailable}


# --- judge diagnostics ------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeDiagnostics:
    #: judgments agreeing with the human reference (the plurality of the votes), ties included: the gate
    agreement_with_ties: tuple[int, int]
    #: judgments agreeing with the human reference over the cases whose reference is not a tie (a judge's tie
    #: there disagrees): "agreement where the reference is not a tie", not Zheng et al.'s "without ties" (which
    #: leaves out every vote pair in which either side is a tie: agreebound.judge.agreement)
    agreement_without_ties: tuple[int, int]
    stable_flips: int  # both orders stable and different (the seed's flips)
    noisy_flips: int  # at least one order unstable, and the orders' majorities differ
    wilson: dict[str, Wilson]  # over observations, as if independent (for comparison)
    #: the case-aware intervals (judge_rate_intervals): what strict mode gates on
    intervals: dict[str, RateInterval] = field(default_factory=dict)
    #: Cohen's kappa of the human reference and the judge's vote per case (agreebound.judge.agreement), from
    #: the counts' patterns (every engine's); None when no case has a reference
    kappa: Kappa | None = None

    @property
    def agreement_where_reference_not_tie(self) -> tuple[int, int]:
        """``agreement_without_ties`` by what it counts."""
        return self.agreement_without_ties


def judge_diagnostics(m: CalibrationMeasurement) -> JudgeDiagnostics:
    """Diagnostics from a CalibrationMeasurement's counts (agreebound.judge.counts: every engine's,
    in memory too). In a partial audit, agreement with the humans counts only the cases that have a
    human reference (the counts' reference facts are theirs). The judge-human alpha is the
    application's (agreebound.app.judge_input.judge_human_alpha): the judge domain measures no alpha."""
    counts = m.counts
    agree = counts.rates["human_agreement"]
    return JudgeDiagnostics(
        agreement_with_ties=(agree.numerator, agree.denominator),
        agreement_without_ties=counts.agreement_without_ties,
        stable_flips=counts.rates["position_flip"].numerator,
        noisy_flips=counts.noisy_flips,
        wilson={r.name: Wilson(r.numerator, r.denominator) for r in m.rates},
        intervals=judge_rate_intervals(m),
        kappa=None if not any(h >= 0 for h, _, _ in counts.patterns) else kappa_from_patterns(counts.patterns),
    )
