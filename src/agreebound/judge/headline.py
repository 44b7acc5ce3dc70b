"""The corrected headline: the judge's win rate for each model pair, corrected for the judge's errors
by the cases that carry a human reference (prediction-powered inference, Angelopoulos et al. 2023,
with the power tuning of PPI++, Angelopoulos, Duchi and Zrnic 2023), beside the judge-only and the
human-only estimates, over the audit's verdict cells (:attr:`agreebound.judge.counts.JudgeCounts.verdicts`).

Per pair (first, second), in name order, each case gives the judge's score for the first model,
Yhat = w / 2m (the share of its m verdicts for the first model, ties half), and on a labelled case
the humans' Y = y / 2 (1: they preferred the first model, 1/2: a tie, 0: the second). With n
labelled and N unlabelled cases:

* **judge only**: the mean of Yhat over all n + N cases, with the CLT interval of that mean;
* **human only**: the mean of Y over the n labelled cases, with the CLT interval (ppi-python's
  ``classical_mean_ci``: the population standard deviation over sqrt n);
* **prediction-powered** (ppi-python's ``ppi_mean_ci`` with ``lam=None``): lam = cov(Y, Yhat) /
  ((1 + n/N) var(Yhat over all n + N cases)), the covariance over the labelled cases (population),
  the variance with n + N - 1 (sample), clipped to [0, 1]; the estimate
  lam mean(Yhat unlabelled) + mean(Y - lam Yhat labelled), its variance
  lam^2 var(Yhat unlabelled) / N + var(Y - lam Yhat) / n (population variances), a normal interval.
  Where the judge's scores do not vary at all ppi-python's lam is 0/0 (it returns NaN); here lam is
  then 0, the judge carries no information, and the estimate is the human-only one;
* **the gain**: the labelled cases the corrected interval is worth, n var(human) / var(PPI), less n:
  the human labels the judge's verdicts are worth.

Every sum is exact (the cells are integers; a score is a fraction), every moment and lam an exact
:class:`~fractions.Fraction`; floating point starts at the square root. Equality with ppi-python
to 1e-9 is tested (tests/judge/test_headline.py), as is the interval's coverage by simulation.

Six labelled cases (the judge right on five: Y = Yhat = 1 three times, 0 twice; Yhat = 1 where
Y = 0 once) and six unlabelled (Yhat = 1 five times): lam = (1/6) / ((1 + 6/6) 9/44) = 11/27, the
estimate 1/2 + 11/27 (5/6 - 2/3) = 46/81 against the judge's 3/4:

>>> cells = {("m1", "m2", True, 2, 4, 2): 3, ("m1", "m2", True, 2, 0, 0): 2, ("m1", "m2", True, 2, 4, 0): 1,
...          ("m1", "m2", False, 2, 4, -1): 5, ("m1", "m2", False, 2, 0, -1): 1}
>>> p = pair_headline("m1", "m2", cells.items())
>>> p.judge.exact, p.human.exact, p.labelled, p.unlabelled, p.lam == 11 / 27, p.ppi.value == 46 / 81
(Fraction(3, 4), Fraction(1, 2), 6, 6, True, True)
>>> p.ppi.points(), round(p.gain_labels, 3)  # 6 (1/24) / (2285/78732) - 6: PPI's variance, the humans' 1/24
('56.8% [23.4, 90.2]', 2.614)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from agreebound.judge.counts import JudgeCounts
from agreebound.core.intervals import Z95
from agreebound.core.json_types import JSONObject

#: Below one human label's worth the judge's verdicts add nothing worth saying (a description of
#: the data, not a gate).
LEAST_GAIN_LABELS = 1
METHOD = ("prediction-powered inference (Angelopoulos et al. 2023) with the power-tuned lambda of PPI++ "
          "(as ppi-python's ppi_mean_ci), normal 95% intervals")
Cell = tuple[str, str, bool, int, int, int]


def _r6(x: float | None) -> float | None:
    return None if x is None else round(float(x), 6)


@dataclass(frozen=True)
class Estimate:
    """A win rate and its 95% interval (low, high None: fewer than 2 cases, or values that never
    vary: no interval, rather than a 95% interval of width 0)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    #: the exact estimate (a fraction of the sums), where it is a short one (not the PPI estimate)
    exact: Fraction | None = None

    def points(self) -> str:
        """"64.8% [58.5, 71.2]", or "64.8%" without an interval."""
        if self.value is None:
            return "not defined"
        text = f"{self.value * 100:.1f}%"
        if self.low is not None and self.high is not None:
            text += f" [{self.low * 100:.1f}, {self.high * 100:.1f}]"
        return text

    def to_dict(self) -> JSONObject:
        """As a report stores it: floats to 6 decimals (the same bytes on every platform)."""
        return {"value": _r6(self.value), "interval95": None if self.low is None else [_r6(self.low), _r6(self.high)],
                "exact": None if self.exact is None else str(self.exact)}


@dataclass(frozen=True)
class PairHeadline:
    """One model pair's headline: the first model's win rate over the second (ties count half)."""

    first: str
    second: str
    labelled: int
    unlabelled: int
    judge: Estimate
    #: None: not defined (no unlabelled case, or fewer than 2 labelled ones)
    ppi: Estimate | None
    #: None: no labelled case
    human: Estimate | None
    #: the human labels the judge's verdicts are worth (None: no PPI, or no spread to compare)
    gain_labels: float | None
    sentence: str
    #: PPI++'s power-tuning parameter (0: the human-only estimate; 1: plain PPI)
    lam: float | None = None
    #: the judge-only estimate minus the corrected headline (PPI, or human-only when every case is
    #: labelled), in percentage points
    judge_off_points: float | None = None

    def to_dict(self) -> JSONObject:
        return {"first": self.first, "second": self.second, "labelled": self.labelled,
                "unlabelled": self.unlabelled, "judge": self.judge.to_dict(),
                "ppi": None if self.ppi is None else self.ppi.to_dict(),
                "human": None if self.human is None else self.human.to_dict(),
                "lambda": _r6(self.lam), "gain_labels": _r6(self.gain_labels),
                "judge_off_points": _r6(self.judge_off_points),
                "sentence": self.sentence}


@dataclass(frozen=True)
class Headline:
    """Every model pair's corrected headline, in name order, and a note on what they are."""

    pairs: tuple[PairHeadline, ...]
    note: str
    method: str = METHOD

    def to_dict(self) -> JSONObject:
        return {"pairs": [p.to_dict() for p in self.pairs], "note": self.note, "method": self.method}


@dataclass(frozen=True)
class PairSums:
    """Exact sums of one pair's cells: labelled (n; Y, Yhat) and unlabelled (N; Yhat)."""

    n: int = 0
    sy: Fraction = Fraction(0)
    syy: Fraction = Fraction(0)
    sh: Fraction = Fraction(0)
    shh: Fraction = Fraction(0)
    syh: Fraction = Fraction(0)
    big_n: int = 0
    su: Fraction = Fraction(0)
    suu: Fraction = Fraction(0)


def pair_sums(cells: Iterable[tuple[Cell, int]]) -> PairSums:
    """The exact sums of one pair's cells (a cell with y = -1 is unlabelled, whatever its flag)."""
    n = big_n = 0
    sy = syy = sh = shh = syh = su = suu = Fraction(0)
    for (_, _, labelled, m, w, y), k in cells:
        h = Fraction(w, 2 * m)
        if labelled and y >= 0:
            yy = Fraction(y, 2)
            n += k
            sy, syy, sh, shh, syh = sy + k * yy, syy + k * yy * yy, sh + k * h, shh + k * h * h, syh + k * yy * h
        else:
            big_n += k
            su, suu = su + k * h, suu + k * h * h
    return PairSums(n, sy, syy, sh, shh, syh, big_n, su, suu)


def _mean_estimate(total: Fraction, squares: Fraction, count: int) -> Estimate:
    """The mean of count values and its CLT interval (population variance over count)."""
    mean = total / count
    variance = (squares / count - mean * mean) / count
    if count < 2 or variance == 0:  # one case, or values that never vary: a CLT interval would be a point
        return Estimate(float(mean), exact=mean)
    half = Z95 * math.sqrt(float(variance))
    return Estimate(float(mean), float(mean) - half, float(mean) + half, mean)


def power_tuned(s: PairSums) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """PPI++'s (lam, estimate, its variance, the human-only variance) from the exact sums, as
    ppi-python's ppi_mean_ci computes them with lam=None (n >= 2 labelled, N >= 1 unlabelled)."""
    n, big_n = s.n, s.big_n
    my, mh, mu = s.sy / n, s.sh / n, s.su / big_n
    var_y, var_h, var_u = s.syy / n - my * my, s.shh / n - mh * mh, s.suu / big_n - mu * mu
    cov = s.syh / n - my * mh
    total = n + big_n
    spread = (s.shh + s.suu - (s.sh + s.su) ** 2 / total) / (total - 1)  # sample variance of every Yhat
    lam = Fraction(0) if spread == 0 else min(Fraction(1), max(Fraction(0), cov / ((1 + Fraction(n, big_n)) * spread)))
    estimate = lam * mu + my - lam * mh
    variance = lam * lam * var_u / big_n + (var_y - 2 * lam * cov + lam * lam * var_h) / n
    return lam, estimate, variance, var_y / n


def pair_headline(first: str, second: str, cells: Iterable[tuple[Cell, int]]) -> PairHeadline:
    """One pair's judge-only, human-only and prediction-powered win rates of ``first`` over ``second``."""
    s = pair_sums(cells)
    judge = _mean_estimate(s.sh + s.su, s.shh + s.suu, s.n + s.big_n)
    human = _mean_estimate(s.sy, s.syy, s.n) if s.n else None
    ppi = gain = lam = None
    if s.n >= 2 and s.big_n:
        lam_x, est, var_ppi, var_human = power_tuned(s)
        half = Z95 * math.sqrt(float(var_ppi))
        ppi = Estimate(float(est)) if var_ppi == 0 else Estimate(float(est), float(est) - half, float(est) + half)
        lam = float(lam_x)
        gain = None if var_ppi == 0 else float(s.n * var_human / var_ppi - s.n)
    headline = ppi if ppi is not None else human if not s.big_n else None
    off = None
    if headline is not None:
        assert judge.value is not None and headline.value is not None  # cases on both sides: estimated
        off = (judge.value - headline.value) * 100
    sentence = _sentence(first, second, s, judge, ppi, human, gain, off)
    return PairHeadline(first, second, s.n, s.big_n, judge, ppi, human, gain, sentence, lam, off)


def _cases(k: int) -> str:
    return f"{k:,} case" + ("" if k == 1 else "s")


def _gain_words(gain: float | None, s: PairSums) -> str:
    if gain is None:
        return ("the gain cannot be sized: the humans agree on every labelled case" if s.syy * s.n == s.sy * s.sy
                else "the gain cannot be sized: the corrected estimate has no spread")
    if gain < LEAST_GAIN_LABELS:
        return "the judge's verdicts add nothing here: correlation too low"
    labels = round(gain)
    return f"the judge's verdicts are worth about {labels:,} more human label{'' if labels == 1 else 's'} here"


def _sentence(first: str, second: str, s: PairSums, judge: Estimate, ppi: Estimate | None, human: Estimate | None,
              gain: float | None, off: float | None) -> str:
    """The pair's headline in plain words (user text: the renderers escape it)."""
    head = (f"{first} vs {second}: the judge alone gives {first} a win rate of {judge.points()} over "
            f"{_cases(s.n + s.big_n)} (ties count half)")
    if s.n == 0:
        return head + "; no case has a human reference, so the judge's estimate cannot be corrected."
    assert human is not None  # a case with a human reference: the humans' estimate
    human_words = f"the humans alone give {human.points()} over {_cases(s.n)}"
    if s.n < 2:
        return (head + f"; only {_cases(s.n)} has a human reference (fewer than 2): no corrected estimate "
                f"and no human interval ({human_words}).")
    if not s.big_n:
        return (head + f"; every case has a human reference, so the human-only estimate, {human.points()}, is the "
                f"headline (prediction-powered inference needs cases without one); the judge-only estimate is "
                f"off by {off:+.1f} points.")
    assert ppi is not None  # two or more labelled cases and some unlabelled: corrected
    return (head + f"; corrected with the {_cases(s.n)} that have a human reference (prediction-powered), "
            f"{ppi.points()}; {human_words}. The judge-only estimate is off by {off:+.1f} points; "
            f"{_gain_words(gain, s)}.")


def corrected_headline(counts: JudgeCounts | None) -> Headline:
    """Every model pair's corrected headline from the audit's verdict cells, in name order (no pair
    for a measurement without counts)."""
    by_pair: dict[tuple[str, str], list[tuple[Cell, int]]] = {}
    for cell, k in ({} if counts is None else counts.verdicts).items():
        by_pair.setdefault((cell[0], cell[1]), []).append((cell, k))
    pairs = tuple(pair_headline(f, s, cells) for (f, s), cells in sorted(by_pair.items()))
    return Headline(pairs, _note(pairs))


def _note(pairs: tuple[PairHeadline, ...]) -> str:
    if not pairs:
        return "No case compares two models' answers: there is no win rate to correct."
    labelled = sum(p.labelled for p in pairs)
    unlabelled = sum(p.unlabelled for p in pairs)
    what = ("Win rates of the first model of each pair (in name order) over the second, ties counting half: "
            "the judge's alone, corrected by the cases with a human reference, and the humans' alone.")
    if not labelled:
        return what + " No case has a human reference: the judge's estimates cannot be corrected."
    if not unlabelled:
        return what + (" Every case has a human reference: the human-only estimates are the headline "
                       "(prediction-powered inference corrects the judge on cases without one).")
    return what + (f" {labelled:,} cases have a human reference and {unlabelled:,} do not: the judge's verdicts "
                   "on the labelled cases measure its errors, which correct it on the others. The correction "
                   "holds when the labelled cases are a random sample of all the cases; if the humans labelled "
                   "chosen cases (the hard ones, one model's), it is biased by that choice.")
