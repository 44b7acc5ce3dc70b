"""Control charts over a series of measured values: EWMA and CUSUM against a baseline the caller
pins, never one estimated from the series the chart judges (a drift in the first half of a series
would otherwise move the baseline with it and hide itself).

Each value comes with its own standard error (read off its 95% interval). A value is standardised
against the baseline by the noise of that value, ``z = (x - baseline) / s``, where ``s`` is the
value's own standard error, or the in-control standard deviation the baseline states when it
states one (explicit numbers: between-run variation the intervals do not see). EWMA and CUSUM run on
``z``. A value without a usable standard error is not charted: the statistics carry over it.

What each setting promises (Gaussian noise of the stated size, independent between values):

- EWMA (``lam``, ``width`` L): each value's statistic ``E_t = lam z_t + (1 - lam) E_{t-1}``
  (``E_0 = 0``) is compared with ``+/- L sd(E_t)``, where ``sd(E_t)`` is its exact standard
  deviation at ``t``, including the baseline's own error when the baseline is a pinned value
  (its error is shared by every comparison). So every charted value is in alarm with probability
  ``2 (1 - Phi(L))`` exactly while the series is in control: 0.27% at the default L = 3.
- CUSUM (``k``, ``h``): ``S+_t = max(0, S+_{t-1} + z_t - k)`` and ``S-_t = max(0, S-_{t-1} - z_t
  - k)``, in alarm while either exceeds ``h`` (no restart: an alarm lasts while the evidence
  does). Its promise is the in-control average run length ARL0, the mean number of values before
  the first false alarm, computed from the integral equation of Page's CUSUM (Gauss-Legendre,
  two sides combined as ``1/ARL = 1/ARL+ + 1/ARL-``): 465 at the default k = 0.5, h = 5. It
  assumes an exact baseline; a pinned value's own error shifts every z alike
  (:func:`arl` at that shift says what it does to ARL0).

Every value's band is its control limits on the value's own scale, ``baseline -/+ s * limit``;
the statistic on that scale (EWMA: the smoothed value) leaves the band exactly when the value is in
alarm. Each value also carries the range of values that would have kept it in control.

>>> s = ControlSettings("cusum")
>>> round(s.arl0(), 1)
465.4
>>> [p.state for p in chart([Point(1.0, 1.0), Point(4.0, 1.0), Point(9.0, 1.0)], Baseline(0.0), s)]
['in control', 'in control', 'alarm high']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Mapping, Sequence

import numpy as np

from agreebound.core.intervals import Z95  # se = (high - low) / (2 * Z95)

_NORMAL = NormalDist()

METHODS = ("ewma", "cusum")
#: The defaults, cited once (Montgomery, Introduction to Statistical Quality Control, 6th ed.,
#: sections 9.1 and 9.2): EWMA with lambda 0.2 and L 3 (the usual choice for shifts of about one
#: standard deviation); the tabular CUSUM with k 0.5 (tuned to a shift of one standard deviation)
#: and h 5 (ARL0 465).
EWMA_LAMBDA_DEFAULT = 0.2
EWMA_WIDTH_DEFAULT = 3.0
CUSUM_K_DEFAULT = 0.5
CUSUM_H_DEFAULT = 5.0

IN_CONTROL, ALARM_HIGH, ALARM_LOW = "in control", "alarm high", "alarm low"
NO_VALUE, NO_NOISE = "no value", "no interval"  # not charted: no number, or no standard error to scale it by


def se_from_interval(low: float | None, high: float | None, z: float = Z95) -> float | None:
    """A standard error read off a two-sided interval at ``z`` (95%: 1.96); None when a bound is
    missing or the interval has no width (nothing to scale a difference by).

    >>> round(se_from_interval(0.5, 0.7), 6)
    0.051021
    >>> se_from_interval(0.5, None), se_from_interval(0.5, 0.5)
    (None, None)
    """
    if low is None or high is None:
        return None
    se = (float(high) - float(low)) / (2 * z)
    return se if math.isfinite(se) and se > 0 else None


@dataclass(frozen=True)
class Baseline:
    """What the series is charted against: ``mean``; ``se`` its own standard error (a pinned
    value's, from its interval; 0 for explicit numbers, taken as exact); ``sd`` the in-control
    standard deviation of one value (explicit numbers; None: each value's own standard error)."""

    mean: float
    se: float = 0.0
    sd: float | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(self.mean):
            raise ValueError(f"a baseline's mean must be a finite number, got {self.mean!r}")
        if not (math.isfinite(self.se) and self.se >= 0):
            raise ValueError(f"a baseline's standard error must be 0 or more, got {self.se!r}")
        if self.sd is not None and not (math.isfinite(self.sd) and self.sd > 0):
            raise ValueError(f"a baseline's sd must be a positive number, got {self.sd!r}")

    @classmethod
    def pinned(cls, value: float, low: float | None, high: float | None) -> Baseline | None:
        """A pinned value with its 95% interval; None without an interval (its error is unknown)."""
        se = se_from_interval(low, high)
        return None if se is None else cls(float(value), se)


@dataclass(frozen=True)
class Point:
    """One value of the series and its own standard error (None: unknown); value None: not measured."""

    value: float | None
    se: float | None


@dataclass(frozen=True)
class ControlSettings:
    """Threshold data of a control chart: the method and its parameters (see the module's text)."""

    method: str = "ewma"
    lam: float = EWMA_LAMBDA_DEFAULT
    width: float = EWMA_WIDTH_DEFAULT
    k: float = CUSUM_K_DEFAULT
    h: float = CUSUM_H_DEFAULT

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be ewma or cusum, not {self.method!r}")
        for name, value, lo, hi, open_lo in (("lambda", self.lam, 0.0, 1.0, True), ("L", self.width, 0.0, 10.0, True),
                                             ("k", self.k, 0.0, 5.0, False), ("h", self.h, 0.0, 100.0, True)):
            if not (isinstance(value, (int, float)) and math.isfinite(value)
                    and (lo < value if open_lo else lo <= value) and value <= hi):
                raise ValueError(f"{name} must be a number {'above' if open_lo else 'from'} {lo:g} "
                                 f"{'up to' if name != 'lambda' else 'to'} {hi:g}, got {value!r}")

    @classmethod
    def for_false_alarms(cls, method: str, rate: float, lam: float = EWMA_LAMBDA_DEFAULT,
                         k: float = CUSUM_K_DEFAULT) -> ControlSettings:
        """The chart whose false alarms come at ``rate`` while in control: for EWMA the share of
        in-control values in alarm (L = Phi^-1(1 - rate/2)); for CUSUM one false alarm per 1/rate
        values on average (h solved from ARL0 = 1/rate).

        >>> round(ControlSettings.for_false_alarms("ewma", 0.01).width, 4)
        2.5758
        >>> round(ControlSettings.for_false_alarms("cusum", 1 / 200).arl0(), 3)
        200.0
        """
        if not (isinstance(rate, (int, float)) and 0 < rate < 0.5):
            raise ValueError(f"a false-alarm rate must be above 0 and below 0.5, got {rate!r}")
        if method == "ewma":
            return cls("ewma", lam=lam, width=_NORMAL.inv_cdf(1 - rate / 2))
        if method != "cusum":
            raise ValueError(f"method must be ewma or cusum, not {method!r}")
        target, lo, hi = 1 / rate, 0.0, 1.0
        while two_sided_arl(k, hi, 0.0) < target:  # ARL0 grows with h: bracket it, then bisect
            lo, hi = hi, hi * 2
            if hi > 64:
                raise ValueError(f"no h up to 64 gives an ARL0 of {target:,.0f} with k {k:g}")
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if two_sided_arl(k, mid, 0.0) < target else (lo, mid)
        return cls("cusum", k=k, h=(lo + hi) / 2)

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> ControlSettings:
        """From threshold data: ``method``; ``lambda`` and ``L`` (EWMA) or ``k`` and ``h`` (CUSUM); or
        ``false_alarm_rate`` (with ``lambda`` or ``k``) from which L or h is derived. A ValueError
        names the field.

        >>> ControlSettings.from_data({"method": "ewma", "lambda": 0.1, "L": 2.7})
        ControlSettings(method='ewma', lam=0.1, width=2.7, k=0.5, h=5.0)
        """
        known = {"method", "lambda", "L", "k", "h", "false_alarm_rate"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown control field {unknown[0]!r} (known: {', '.join(sorted(known))})")
        method = data.get("method", "ewma")
        if method not in METHODS:
            raise ValueError(f"method must be ewma or cusum, not {method!r}")

        def number(key: str, default: float) -> float:
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{key} must be a number, got {value!r}")
            return float(value)

        lam, k = number("lambda", EWMA_LAMBDA_DEFAULT), number("k", CUSUM_K_DEFAULT)
        if "false_alarm_rate" in data:
            if ("L" if method == "ewma" else "h") in data:
                raise ValueError("give false_alarm_rate or " + ("L" if method == "ewma" else "h") + ", not both")
            return cls.for_false_alarms(str(method), number("false_alarm_rate", 0.0), lam=lam, k=k)
        return cls(str(method), lam=lam, width=number("L", EWMA_WIDTH_DEFAULT), k=k, h=number("h", CUSUM_H_DEFAULT))

    def per_value_false_alarm(self) -> float | None:
        """EWMA: the probability that an in-control value is in alarm (the same at every value); None for CUSUM."""
        return 2 * (1 - _NORMAL.cdf(self.width)) if self.method == "ewma" else None

    def arl0(self) -> float | None:
        """CUSUM: the in-control average run length (values before the first false alarm, exact
        baseline); None for EWMA."""
        return two_sided_arl(self.k, self.h, 0.0) if self.method == "cusum" else None

    def arl(self, shift: float) -> float | None:
        """CUSUM: the average run length when every z is shifted by ``shift`` (a step of ``shift``
        standard errors, or a baseline that far off); None for EWMA."""
        return two_sided_arl(self.k, self.h, shift) if self.method == "cusum" else None

    def words(self) -> str:
        """The setting and what it promises, in one sentence."""
        if self.method == "ewma":
            return (f"EWMA (lambda {self.lam:g}, L {self.width:.3g}): while in control, each charted number is in "
                    f"alarm by chance at {(self.per_value_false_alarm() or 0):.2%} of runs")
        return (f"CUSUM (k {self.k:g}, h {self.h:.3g}): while in control, each charted number's false alarm comes "
                f"after {self.arl0() or 0:,.0f} runs on average")

    def per_run_words(self, numbers: int) -> str:
        """What the per-number promise means for a run that charts ``numbers`` numbers (a run is in
        alarm when any is): at most the union of their chances (independent numbers reach it).

        >>> ControlSettings().per_run_words(6)
        'a run charts 6 numbers, so up to 1.61% of in-control runs have some alarm by chance'
        """
        if numbers <= 1:
            return ""
        if self.method == "ewma":
            p = self.per_value_false_alarm() or 0.0
            return (f"a run charts {numbers} numbers, so up to {1 - (1 - p) ** numbers:.2%} of in-control runs have "
                    "some alarm by chance")
        arl = self.arl0() or 0.0
        return (f"a run charts {numbers} numbers, so some false alarm comes after about {arl / numbers:,.0f} runs "
                "on average (fewer when the numbers move together)")

    def to_dict(self) -> dict[str, float | str | None]:
        out: dict[str, float | str | None] = {"method": self.method}
        if self.method == "ewma":
            out.update({"lambda": self.lam, "L": self.width, "false_alarm_per_run": self.per_value_false_alarm()})
        else:
            out.update({"k": self.k, "h": self.h, "arl0": self.arl0()})
        return out


def one_sided_arl(k: float, h: float, shift: float, nodes: int = 64) -> float:
    """The average run length of the upper CUSUM ``S_t = max(0, S_{t-1} + z_t - k)``, from 0, until
    ``S_t > h``, for ``z ~ N(shift, 1)``: the integral equation
    ``L(u) = 1 + L(0) Phi(k - u - shift) + int_0^h L(y) phi(y + k - u - shift) dy``
    solved at Gauss-Legendre nodes (Nystrom), L(0) as an unknown of its own.

    >>> round(one_sided_arl(0.5, 5.0, 0.0), 1), round(one_sided_arl(0.5, 4.0, 1.0), 2)
    (930.9, 8.38)
    """
    x, w = np.polynomial.legendre.leggauss(nodes)
    y, w = (x + 1) * h / 2, w * h / 2
    u = np.concatenate(([0.0], y))
    cdf = np.array([_NORMAL.cdf(k - ui - shift) for ui in u])
    diff = y[None, :] + k - u[:, None] - shift
    pdf = np.exp(-diff * diff / 2) / math.sqrt(2 * math.pi)
    a = np.eye(nodes + 1)
    a[:, 0] -= cdf
    a[:, 1:] -= pdf * w[None, :]
    return float(np.linalg.solve(a, np.ones(nodes + 1))[0])


def two_sided_arl(k: float, h: float, shift: float) -> float:
    """Both sides at once: ``1/ARL = 1/ARL+ + 1/ARL-`` (the lower side is the upper one at -shift)."""
    return 1 / (1 / one_sided_arl(k, h, shift) + 1 / one_sided_arl(k, h, -shift))


@dataclass(frozen=True)
class ChartPoint:
    """One value charted: its standardised difference ``z``; the statistics that alarm high and low
    (EWMA: ``E_t`` and ``-E_t``; CUSUM: ``S+`` and ``S-``) against ``limit`` (EWMA: ``L sd(E_t)``,
    CUSUM: ``h``), all in standard errors of this value (``scale``); the range of values that would
    have kept it in control given the chart's memory (``keep_low`` to ``keep_high``; empty, low above
    high, when no value could end an alarm); and its state.

    On the value's own scale (:attr:`lower`, :attr:`upper`, :attr:`level_high`, :attr:`level_low`):
    the control limits are ``center -/+ scale * limit`` and the statistic ``center + scale * high``
    (and ``center - scale * low``): a value is in alarm exactly when its statistic leaves its limits."""

    value: float | None
    z: float | None
    high: float
    low: float
    limit: float | None
    scale: float | None  # the standard error z was scaled by (None: not charted)
    center: float  # the baseline
    keep_low: float | None
    keep_high: float | None
    state: str

    @property
    def alarm(self) -> bool:
        return self.state in (ALARM_HIGH, ALARM_LOW)

    def _at(self, sign: float, x: float | None) -> float | None:
        return None if self.scale is None or x is None else self.center + sign * self.scale * x

    @property
    def lower(self) -> float | None:
        return self._at(-1, self.limit)

    @property
    def upper(self) -> float | None:
        return self._at(1, self.limit)

    @property
    def level_high(self) -> float | None:
        """The statistic that alarms high, on the value's scale (EWMA: the smoothed value)."""
        return self._at(1, self.high)

    @property
    def level_low(self) -> float | None:
        """The statistic that alarms low, on the value's scale (EWMA: the smoothed value again)."""
        return self._at(-1, self.low)


def chart(points: Sequence[Point], baseline: Baseline, settings: ControlSettings) -> tuple[ChartPoint, ...]:
    """The series charted against ``baseline``, oldest first (see the module's text).

    EWMA by hand, lambda 0.5, L 2, baseline 0 exact, se 1: z = 1 gives E = 0.5 and
    sd(E) = sqrt(0.25) = 0.5, so the limit is 1.0 and the band [-2, 2]; z = 3 then gives
    E = 1.75 against sd sqrt(0.25 * 0.25 + 0.25) = 0.559, limit 1.118: in alarm.

    >>> s = ControlSettings("ewma", lam=0.5, width=2.0)
    >>> p = chart([Point(1, 1), Point(3, 1)], Baseline(0.0), s)[0]
    >>> p.high, p.limit, p.lower, p.upper, p.keep_low, p.keep_high, p.state
    (0.5, 1.0, -1.0, 1.0, -2.0, 2.0, 'in control')
    >>> p = chart([Point(1, 1), Point(3, 1)], Baseline(0.0), s)[1]
    >>> round(p.high, 3), round(p.limit, 3), p.state
    (1.75, 1.118, 'alarm high')
    """
    out = []
    lam, one = settings.lam, 1 - settings.lam
    e = 0.0  # the EWMA of z
    var_own, weight_on_baseline = 0.0, 0.0  # sum of w^2; sum of w / s (the baseline's share of E_t)
    up, down = 0.0, 0.0  # CUSUM's two sides
    for p in points:
        s = baseline.sd if baseline.sd is not None else p.se
        if p.value is None or not math.isfinite(p.value):
            out.append(_carried(settings, baseline, p.value, e, up, down, NO_VALUE))
            continue
        if s is None or not (math.isfinite(s) and s > 0):
            out.append(_carried(settings, baseline, p.value, e, up, down, NO_NOISE))
            continue
        z = (float(p.value) - baseline.mean) / s
        if settings.method == "ewma":
            var_own = one * one * var_own + lam * lam
            weight_on_baseline = one * weight_on_baseline + lam / s
            limit = settings.width * math.sqrt(var_own + (baseline.se * weight_on_baseline) ** 2)
            # the values that keep this E_t within +/- limit, given E_{t-1}
            keep_high = baseline.mean + s * (limit - one * e) / lam
            keep_low = baseline.mean + s * (-limit - one * e) / lam
            e = lam * z + one * e
            high, low = e, -e
        else:
            limit = settings.h
            keep_high = baseline.mean + s * (settings.h + settings.k - up)
            keep_low = baseline.mean - s * (settings.h + settings.k - down)
            up = max(0.0, up + z - settings.k)
            down = max(0.0, down - z - settings.k)
            high, low = up, down
        state = ALARM_HIGH if high > limit else ALARM_LOW if low > limit else IN_CONTROL
        out.append(ChartPoint(float(p.value), z, high, low, limit, s, baseline.mean, keep_low, keep_high, state))
    return tuple(out)


def _carried(settings: ControlSettings, baseline: Baseline, value: float | None, e: float, up: float, down: float,
             state: str) -> ChartPoint:
    """A value not charted: the statistics carry over it unchanged."""
    high, low = (e, -e) if settings.method == "ewma" else (up, down)
    return ChartPoint(value, None, high, low, None, None, baseline.mean, None, None, state)
