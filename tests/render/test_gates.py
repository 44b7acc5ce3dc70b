"""The gate model's words: margins, strict mode, fragile intervals, the judge's sentence."""

from __future__ import annotations

from fractions import Fraction

from agreebound.core.gate import evaluate
from agreebound.render.gates import GateView, view


def gate(**kw) -> GateView:
    """A view of a gate decided from these numbers (display units; rates in percent): the view's
    words come from the decided gate, and the decided result is the one each case names."""
    base = dict(domain="panel", subject="d", name="alpha", label="alpha", kind="min", unit="", value=0.65,
                low=0.55, high=0.72, threshold=0.6, passed=True)
    kw = {**base, **kw}
    scale = 100 if kw["unit"] == "%" else 1

    def exact(x):
        return None if x is None else Fraction(x) / scale

    decided = evaluate(kw["name"], kw["kind"], exact(kw["value"]), exact(kw["threshold"]), unit=kw["unit"],
                       low=None if kw["low"] is None else kw["low"] / scale,
                       high=None if kw["high"] is None else kw["high"] / scale,
                       strict=kw.get("strict", False), state=kw.get("state"))
    assert decided.passed == kw["passed"]
    return view(decided, kw["domain"], kw["subject"], kw["label"])


def test_margins_say_short_over_or_to_spare_from_the_decided_result():
    assert gate().margin == "alpha 0.650, needs 0.600: 0.050 to spare"
    assert gate(value=0.236, passed=False).margin == "alpha 0.236, needs 0.600: 0.364 short"
    spread = gate(name="spread", label="spread", kind="max", unit="x", value=3.9, low=2.53, high=6.01, threshold=2.0,
                  passed=False)
    assert spread.margin == "spread 3.90x, cap 2.00x: 1.90x over"
    rate = gate(domain="judge", name="position_flip", label="Position flip", kind="max", unit="%", value=11.16,
                low=7.7, high=15.9, threshold=5.0, passed=False)
    assert rate.margin == "position flip 11.2%, limit 5.0%: 6.2 points over"


def test_strict_mode_names_the_failing_bound_not_a_passing_value():
    g = gate(passed=False, strict=True)  # 0.650 meets 0.600, its lower bound 0.550 does not
    assert g.margin == "alpha 0.650, needs 0.600: passes, but its 95% lower bound 0.550 is 0.050 short (strict)"
    assert g.flip_at == 0.55
    s = gate(name="spread", label="spread", kind="max", unit="x", value=1.0, low=1.0, high=None, threshold=2.0,
             passed=False, strict=True)
    assert s.margin == "spread 1.00x, cap 2.00x: passes, but its 95% upper bound is unbounded (strict)"
    assert s.flip_at is None


def test_fragile_when_the_interval_includes_the_threshold():
    assert gate(low=0.55).fragile == "its 95% interval 0.550 to 0.720 includes the floor 0.600"
    assert gate(low=0.61).fragile is None
    cap = gate(name="spread", label="spread", kind="max", unit="x", value=1.8, low=1.2, high=None, threshold=2.0)
    assert cap.fragile == "its 95% interval 1.20x to unbounded includes the cap 2.00x"
    assert gate(value=None, state="undefined", passed=False).fragile is None
