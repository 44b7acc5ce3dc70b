"""The beta quantile without scipy (agreebound.core.student_t.beta_quantile), the Clopper-Pearson
bounds of agreebound.core.intervals.rate_interval rest on it: scipy's values are the peer."""

from __future__ import annotations

from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from scipy.stats import beta

from agreebound.core.intervals import ClopperPearsonInterval, rate_interval
from agreebound.core.student_t import beta_quantile
from agreebound.judge.counts import RateStats


def test_beta_quantile_agrees_with_scipy_on_whole_and_fractional_counts():
    """2,000 seeded draws: counts of 1 to 7,500 observations, whole or fractional (an effective n),
    tails from 1e-6 to 0.5; the largest relative difference from scipy's beta.ppf is below 1e-11."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(1000):
        n = float(rng.choice([5, 10, 30, 60, 200, 1000, 5000])) * rng.uniform(0.5, 1.5)
        x = rng.uniform(0, n) if rng.random() < 0.5 else float(int(rng.uniform(0, n)))
        q = float(rng.choice([1e-6, 0.004, 0.00625, 0.0125, 0.025, 0.5]))
        for a, b, tail in ((x + 1, n - x, 1 - q), (max(x, 0.05), n - x + 1, q)):
            mine, theirs = beta_quantile(tail, a, b), float(beta.ppf(tail, a, b))
            worst = max(worst, abs(mine - theirs) / theirs)
    assert worst < 1e-11, worst


def test_beta_quantile_refuses_what_has_no_quantile():
    with pytest.raises(ValueError, match="needs 0 < q < 1 and a, b > 0"):
        beta_quantile(1.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="needs 0 < q < 1 and a, b > 0"):
        beta_quantile(0.5, 0.0, 2.0)


def test_clopper_pearson_at_an_effective_n_and_its_helpers():
    """12 of 40 observations in 10 cases of 4, all of a case's alike: design effect 4 (capped), n_eff
    10, effective count 3: the Clopper-Pearson 95% interval for 3 of 10, 0.0667 to 0.6525 (scipy's);
    the helpers agree with the float bounds, and the words name the method."""
    stats = RateStats(12, 40, k=10, syy=48, sym=48, smm=160)
    iv = rate_interval("human_agreement", 12, 40, stats, NormalDist().inv_cdf(0.975), kind="clopper-pearson")
    assert isinstance(iv, ClopperPearsonInterval) and iv.n_eff_exact == 10 and iv.deff == 4.0
    assert iv.low == pytest.approx(beta.ppf(0.025, 3, 8), rel=1e-11)
    assert iv.high == pytest.approx(beta.ppf(0.975, 4, 7), rel=1e-11)
    assert (round(iv.low, 4), round(iv.high, 4)) == (0.0667, 0.6525)
    assert iv.method == ("Clopper-Pearson with effective n (design effect 4 over 10 cases; measured 4.44, capped at 4, "
                         "perfectly correlated cases)")
    high, low = Fraction(iv.high), Fraction(iv.low)
    assert iv.high_at_most(high) and not iv.high_at_most(high - Fraction(1, 10**20))
    assert iv.low_at_least(low) and not iv.low_at_least(low + Fraction(1, 10**20))
    # Wilson's words and bounds are unchanged by the option (the audit's intervals)
    wilson = rate_interval("human_agreement", 12, 40, stats, NormalDist().inv_cdf(0.975))
    assert type(wilson).__name__ == "RateInterval" and wilson.method.startswith("Wilson with effective n (design effect 4 over 10 cases")
    assert (round(wilson.low, 4), round(wilson.high, 4)) == (0.1078, 0.6032)
