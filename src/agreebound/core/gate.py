"""One gate of a decision, as ``decide`` returned it: the typed per-gate result every renderer,
the What-if strip, the sweep, the reports and history's compare read.

This module is the bottom of the decide layer: it imports nothing from agreebound. The panel's
``decide`` (agreebound.panel) and the judge's (agreebound.judge.decide) build :class:`Gate`
values with the comparisons below; nothing outside them compares a number with a threshold.
A gate compares exact values (fractions), so rounding never decides a result by itself.

>>> g = evaluate("alpha", "min", Fraction(3, 5), Fraction(3, 5))
>>> g.passed, g.state, g.margin, g.margin_words
(True, 'measured', Fraction(0, 1), 'exactly at the threshold')
>>> evaluate("spread", "max", Fraction(39, 10), Fraction(2), unit="x").margin_words
'1.90x over'
"""


from __future__ import annotations
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, TypeAlias, TypedDict
from agreebound.core.planner import Plan

#: A measured value, a bound or a threshold: an exact Fraction, or a float (an interval's bound; an
#: int is one too). Python compares the two exactly.
Number: TypeAlias = "Fraction | float"


#: A gate's state: its value was measured, or why there is no number to compare.
MEASURED = "measured"
UNDEFINED = "undefined"  # alpha with no pairable values or no variation
UNBOUNDED = "unbounded"  # a spread where one detector found nothing and another something
NOT_EVALUABLE = "not evaluable"  # a judge rate with no opportunities, or a source that lacks it
NOT_MEASURED = "not measured"  # not checked: nothing was measured (a panel without detector rates)

#: The one table of verdict severity, for the panel's verdicts and the judge's decisions alike:
#: 2 licenses action, 1 does not (INCOMPLETE is never a pass), 0 is refused outright. Exit codes
#: (2 - severity), "worse" in history's compare and "worst first" in every list read it.
SEVERITY: dict[str, int] = {"ENFORCE": 2, "REPORT_ONLY": 1, "REFUSE_SINGLE": 0,
                            "PASS_CALIBRATION": 2, "INCOMPLETE": 1, "FAIL_CALIBRATION": 1}


def worst(verdicts: Iterable[str], empty: str = "ENFORCE") -> str:
    """The most severe verdict (the first of equals); ``empty`` when there is none.

    >>> worst(["ENFORCE", "REPORT_ONLY", "REFUSE_SINGLE"]), worst([])
    ('REFUSE_SINGLE', 'ENFORCE')
    """
    return min(verdicts, key=SEVERITY.__getitem__, default=empty)


class GateLabels(TypedDict):
    """What a decider says alike of the gates it builds (``Gate(..., **common)``, ``evaluate(...,
    **common)``): the unit, and the threshold's field and source."""

    unit: str
    threshold_field: str
    threshold_source: str


class StrictGateLabels(GateLabels):
    """:class:`GateLabels` and strict mode."""

    strict: bool


def meets(value: Number, kind: str, threshold: Number) -> bool:
    """The one comparison of a value with a threshold: a "min" gate passes at or above it, a
    "max" gate at or below it. Exact for fractions and floats alike (Python compares them exactly).

    >>> meets(Fraction(3, 5), "min", Fraction(3, 5)), meets(0.6, "min", Fraction(3, 5))
    (True, False)
    """
    if kind == "min":
        return value >= threshold
    if kind == "max":
        return value <= threshold
    raise ValueError(f"a gate's kind is min or max, not {kind!r}")


def straddles(low: Number, high: Number | None, kind: str, threshold: Number) -> bool:
    """The interval [low, high] (``high`` None: unbounded above) holds values on both sides of
    the threshold: another sample of the same size could reach the other result ("fragile")."""
    if kind == "min":  # low fails, high passes: low < threshold <= high
        return not meets(low, "min", threshold) and (high is None or meets(high, "min", threshold))
    # low passes, high fails: low <= threshold < high
    return meets(low, "max", threshold) and (high is None or not meets(high, "max", threshold))


def cases_to_flip(numerator: int, denominator: int, threshold_bps: int, kind: str) -> tuple[str, int]:
    """How many cases move the exact gate of a judge rate: ("fail", k) = k more errors (or k fewer
    agreements) fail a passing gate; ("pass", k) = k fewer errors (more agreements) pass a failing
    one; ("not evaluable", 0) without opportunities.

    >>> cases_to_flip(5, 100, 500, "max"), cases_to_flip(6, 100, 500, "max")
    (('fail', 1), ('pass', 1))
    """
    if denominator == 0:
        return ("not evaluable", 0)
    limit = Fraction(threshold_bps * denominator, 10_000)
    if kind == "max":
        allowed = math.floor(limit)  # most errors that still pass
        return ("fail", allowed - numerator + 1) if numerator <= allowed else ("pass", numerator - allowed)
    needed = math.ceil(limit)  # fewest agreements that pass
    return ("fail", numerator - needed + 1) if numerator >= needed else ("pass", needed - numerator)



@dataclass(frozen=True)
class Gate:
    """One gate of one decision.

    ``passed`` is the result as decided (strict mode included); ``value_passed`` the measured
    value alone against the threshold; ``bound_passed`` strict mode's interval bound (None when
    not in strict mode or when no bound was compared). ``passed`` is None when the gate was not
    checked (nothing measured, or a source that cannot evaluate it): it does not block.
    """

    name: str  # "detectors", "alpha", "spread", or a judge rate's name ("position_flip", ...)
    kind: str  # "min": the value must reach the threshold; "max": it must not exceed it
    exact: Fraction | None  # the measured value exactly; None when there is no number (see state)
    threshold: Fraction
    passed: bool | None
    value_passed: bool | None = None
    bound_passed: bool | None = None
    state: str = MEASURED
    unit: str = ""  # "" a number (alpha, a count), "x" a multiple (the spread), "%" a share in percent
    low: float | None = None  # the 95% interval in the value's own scale (a share of 1 for rates)
    high: float | None = None  # None with ``low`` set: unbounded above
    interval_method: str = ""
    fragile: bool = False  # the interval holds values on both sides of the threshold
    threshold_field: str = ""  # the threshold's field ("alpha_floor_permil", "maximum_position_flip_bps", ...)
    threshold_source: str = "default"  # "default", "preset:<name>", "file:<name>", "link", "contract", "draft", ...
    strict: bool = False  # strict mode: the result turns on the interval's bound too
    #: a judge rate: how many cases move the exact gate, ("fail" | "pass" | "not evaluable", k)
    cases_to_decide: tuple[str, int] | None = None
    detail: str = ""  # why there is no number, when there is none
    #: how many cases (units) would decide it: :class:`Plan`; None without a value or an interval to plan from
    plan: Plan | None = None

    @property
    def value(self) -> float | None:
        return None if self.exact is None else float(self.exact)

    @property
    def flips_at(self) -> Fraction | float | None:
        """The threshold at which this gate's verdict changes, as decided: a "min" gate passes for
        thresholds up to it, a "max" gate for thresholds from it up. The measured value; in strict
        mode with an interval, the tighter of the value and the bound that must pass too (the lower
        for a minimum, the upper for a maximum). None without a value, or when strict mode's upper
        bound is unbounded (no threshold passes it).

        >>> evaluate("alpha", "min", Fraction(13, 20), Fraction(3, 5), low=0.55, high=0.72, strict=True).flips_at
        0.55
        """
        if self.exact is None:
            return None
        if not self.strict or self.low is None:
            return self.exact
        low: Number = self.low  # a float beside the exact Fraction: the tighter of the two, as it is
        if self.kind == "min":
            return min(low, self.exact)
        high: Number | None = self.high
        return None if high is None else max(high, self.exact)

    @property
    def margin(self) -> Fraction | None:
        """How far the value lies on the passing side of the threshold (negative: failing)."""
        if self.exact is None:
            return None
        return self.exact - self.threshold if self.kind == "min" else self.threshold - self.exact

    def gap_text(self, gap: Number) -> str:
        """A distance in the gate's unit: "0.364", "1.90x", "6.2 points", "12" (a whole number: unit "n")."""
        if self.unit == "%":
            return f"{abs(float(gap)) * 100:.1f} points"
        x = abs(float(gap))
        if self.unit == "x":
            return f"{x:.2f}x" if x < 10 else f"{x:,.1f}x"
        return f"{x:,.0f}" if self.name == "detectors" or self.unit == "n" else f"{x:.3f}"

    @property
    def margin_words(self) -> str | None:
        """"0.364 short", "1.90x over", "6.2 points to spare", "exactly at the threshold"."""
        m = self.margin
        if m is None:
            return None
        if m == 0:
            return "exactly at the threshold"
        if self.value_passed:
            return f"{self.gap_text(m)} to spare"
        return f"{self.gap_text(m)} {'short' if self.kind == 'min' else 'over'}"


def evaluate(name: str, kind: str, value: Number | None, threshold: Fraction, *, unit: str = "",
             low: float | None = None, high: float | None = None, interval_method: str = "",
             strict: bool = False, state: str | None = None, detail: str = "", threshold_field: str = "",
             threshold_source: str = "default", bound_passed: bool | None = None,
             cases_to_decide: tuple[str, int] | None = None) -> Gate:
    """A measured gate decided on its value, and in strict mode on its interval's bound too (the
    lower bound of a "min" gate, the upper of a "max" gate; a missing bound fails strict mode).
    ``bound_passed``: a bound the caller compared exactly itself (the judge's case-aware Wilson
    bound); otherwise the bound is read from ``low``/``high``. A gate without a value (``value``
    None) fails, with ``state`` saying why (undefined by default)."""
    threshold = Fraction(threshold)
    if value is None:
        return Gate(name, kind, None, threshold, False, None, None, state or UNDEFINED, unit, low, high,
                    interval_method, False, threshold_field, threshold_source, strict, cases_to_decide, detail)
    value = Fraction(value)
    value_passed = meets(value, kind, threshold)
    if strict and bound_passed is None:
        if kind == "min":
            bound_passed = low is not None and meets(low, "min", threshold)
        else:
            bound_passed = low is not None and high is not None and meets(high, "max", threshold)
    passed = value_passed and (bound_passed is not False if strict else True)
    fragile = low is not None and straddles(low, high, kind, threshold)
    return Gate(name, kind, value, threshold, passed, value_passed, bound_passed if strict else None,
                state or MEASURED, unit, low, high, interval_method, fragile, threshold_field, threshold_source,
                strict, cases_to_decide, detail)
