"""Every gate behind a verdict, as a reader sees it: the measured value with its 95% interval, the
threshold, whether it passed (as ``decide`` said: nothing here compares a value with a threshold
to reach a verdict), the margin in words, the state when there is no number, and whether the
interval straddles the threshold ("fragile").

Display units are the same everywhere: alpha as a number in [-1, 1], the spread as a multiple
("3.9x"), the judge's rates in percent. Permil and basis points stay secondary labels.

>>> g = Gate("panel", "violence", "alpha", "alpha", "min", "", 0.236, 0.18, 0.29, 0.6, False)
>>> g.margin
'alpha 0.236, needs 0.600: 0.364 short'
>>> g.flip_at
0.236
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from agreebound.analysis import PanelMeasurement, depends_on_level, level_phrase, rater_noun
from agreebound.calibration import CalibrationDecision
from agreebound.panel import PanelDecision

#: The judge's five gates as a reader names them (figures, pages and reports use these).
RATE_LABELS = {"human_agreement": "Human agreement", "position_flip": "Position flip",
               "repeat_variance": "Repeat variance", "verbosity_bias": "Verbosity bias",
               "self_preference": "Self-preference"}

#: Fewer cases than this and a judge rate's interval is reported as "too few cases" besides.
MIN_CASES = 30


@dataclass(frozen=True)
class Gate:
    domain: str  # "panel" or "judge"
    subject: str  # the dimension's name, or the judge's
    name: str  # "alpha", "spread", "detectors", or a judge rate's name
    label: str  # "alpha", "spread", "Human agreement", ...
    kind: str  # "min": value must reach the threshold; "max": must not exceed it
    unit: str  # "" (alpha, detectors), "x" (spread), "%" (judge rates)
    value: float | None  # in display units; None when there is no number (see ``state``)
    low: float | None  # the 95% interval in display units (None: none)
    high: float | None  # None with ``low`` set: unbounded above
    threshold: float
    passed: bool | None  # as decided; None when the gate is not evaluated (spread not measured)
    state: str | None = None  # "undefined", "unbounded", "not measured", "not evaluable", ...
    detail: str = ""  # the state's reason, or the counts behind the value ("12/240 observations")
    interval_method: str = ""
    secondary: str = ""  # the same numbers in the seed's units ("236 permil", "4,210 bps")
    cases: int | None = None  # judge: cases (the unit resampled) beside the observations
    observations: int | None = None
    notes: tuple[str, ...] = field(default=())
    strict: bool = False  # strict mode: the verdict turns on the interval's bound, not the value
    #: judge without a contract: measured against illustrative limits (the seed's example), not decided
    #: (``passed`` is None: never a verdict's colour)
    illustrative: bool = False

    # --- words -------------------------------------------------------------------------------

    def fmt(self, x: float | None) -> str:
        if x is None:
            return "unbounded" if self.unit == "x" else "undefined"
        if self.unit == "x":
            return f"{x:.2f}x" if x < 10 else f"{x:,.1f}x"
        if self.unit == "%":
            return f"{x:.1f}%" if abs(x) >= 1 or x == 0 else f"{x:.2f}%"
        if self.name == "detectors":
            return f"{x:.0f}"
        return f"{x:.3f}"

    @property
    def margin(self) -> str:
        """"alpha 0.236, needs 0.600: 0.364 short", "spread 3.90x, cap 2.00x: 1.90x over"."""
        what = self.label if self.domain == "panel" else self.label.lower()
        if self.state:
            return f"{what} {self.state}" + (f" ({self.detail})" if self.detail and self.state != "not measured" else "")
        assert self.value is not None
        need = "needs" if self.kind == "min" else "cap" if self.unit == "x" else "limit"
        if self.illustrative:
            need = self.threshold_word  # "illustrative limit" / "illustrative minimum"
        head = f"{what} {self.fmt(self.value)}, {need} {self.fmt(self.threshold)}"
        if self.name == "detectors":
            return f"{self.fmt(self.value)} {self.label}, needs {self.fmt(self.threshold)}"
        gap = abs(self.value - self.threshold)
        gap_text = self.fmt(gap) if self.unit != "%" else f"{gap:.1f} points"
        value_passes = self.value >= self.threshold if self.kind == "min" else self.value <= self.threshold
        if self.passed is False and value_passes:  # strict mode: the value passes, its bound does not
            side = "lower" if self.kind == "min" else "upper"
            bound = self.low if self.kind == "min" else self.high
            if bound is None:
                return f"{head}: passes, but its 95% {side} bound is unbounded (strict)"
            bgap = abs(bound - self.threshold)
            btext = self.fmt(bgap) if self.unit != "%" else f"{bgap:.1f} points"
            return (f"{head}: passes, but its 95% {side} bound {self.fmt(bound)} is {btext} "
                    f"{'short' if self.kind == 'min' else 'over'} (strict)")
        if self.passed if self.passed is not None else value_passes:  # not decided: the value's side
            return f"{head}: {gap_text} to spare" if gap else f"{head}: exactly at the threshold"
        return f"{head}: {gap_text} {'short' if self.kind == 'min' else 'over'}"

    @property
    def flip_at(self) -> float | None:
        """The threshold at which this gate's verdict flips: the measured value itself, or in
        strict mode the interval's bound that must pass (lower for a minimum, upper for a maximum;
        None when that bound is unbounded)."""
        if self.strict and self.low is not None and self.value is not None:
            return self.low if self.kind == "min" else self.high
        return self.value

    @property
    def fragile(self) -> str | None:
        """The interval's bounds when they lie on both sides of the threshold: the verdict could
        go either way with another sample of the same size."""
        if self.low is None or self.value is None or self.illustrative:  # no contract: no verdict to flip
            return None
        t = self.threshold
        high = float("inf") if self.high is None else self.high
        straddles = self.low < t <= high if self.kind == "min" else self.low <= t < high
        if straddles:
            return (f"its 95% interval {self.fmt(self.low)} to {self.fmt(self.high)} includes the "
                    f"{self.threshold_word} {self.fmt(t)}")
        return None

    @property
    def threshold_word(self) -> str:
        """What this gate's threshold is called: floor (alpha), cap (spread), limit, minimum."""
        if self.name == "alpha":
            return "floor"
        if self.unit == "x":
            return "cap"
        word = "limit" if self.kind == "max" else "minimum"
        return f"illustrative {word}" if self.illustrative else word

    @property
    def status(self) -> str:
        """One word for a cell: passes / fails / the state."""
        if self.passed is None:
            if self.illustrative and not self.state:
                return "not decided (no contract)"
            return self.state or "not checked"
        return "passes" if self.passed else "fails"


# --- panel -----------------------------------------------------------------------------------


def panel_gates(dimension: str, m: PanelMeasurement, d: PanelDecision) -> list[Gate]:
    failed = {r.check for r in d.reasons}
    th = d.thresholds
    gates = [Gate("panel", dimension, "detectors", f"independent {rater_noun(m.raters)}s", "min", "", float(m.ndet), None, None,
                  2.0, "single_detector" not in failed, detail=", ".join(m.detectors[:6]) +
                  (" ..." if len(m.detectors) > 6 else ""))]
    floor = float(th.alpha_floor)
    a = m.alpha
    if a.value is None:
        gates.append(Gate("panel", dimension, "alpha", f"alpha ({m.level})", "min", "", None, None, None, floor, False,
                          state="undefined", detail="no pairable values or no variation",
                          secondary=f"floor {th.alpha_floor_permil} permil"))
    else:
        b = m.alpha_boot
        how = ((f"pairs bootstrap (KALPHA), {b.draws:,} draws: narrower than 95% when units have 3+ ratings"
                if b.method == "pairs" else f"units bootstrap, {b.draws:,} draws") if b.defined else "")
        gates.append(Gate("panel", dimension, "alpha", f"alpha ({m.level})", "min", "", float(a.value),
                          b.low if b.defined else None, b.high if b.defined else None, floor,
                          not ({"alpha_below_floor", "alpha_lower_bound_below_floor", "alpha_interval_missing"} & failed),
                          interval_method=how, detail=f"{m.n_units:,} units, {m.level} level",
                          secondary=f"{a.permil} permil, floor {th.alpha_floor_permil} permil"))
    cap = float(th.ratio_cap)
    spread_failed = bool({"ratio_above_cap", "ratio_unbounded", "spread_upper_above_cap",
                          "spread_upper_unbounded", "spread_interval_missing"} & failed)
    if not m.rates:
        gates.append(Gate("panel", dimension, "spread", "spread", "max", "x", None, None, None, cap, None,
                          state="not measured", detail=m.rates_source.removeprefix("none: "),
                          secondary=f"cap {th.ratio_cap_permil} permil"))
    else:
        low, high = m.spread_bracket
        counts = ", ".join(f"{r.positives}/{r.total}" for r in m.rates[:6])
        if d.spread is None:
            gates.append(Gate("panel", dimension, "spread", "spread", "max", "x", None, low, high, cap, False,
                              state="unbounded", detail="a detector found nothing where another found something",
                              secondary=f"cap {th.ratio_cap_permil} permil"))
        else:
            gates.append(Gate("panel", dimension, "spread", "spread", "max", "x", float(d.spread), low, high, cap,
                              not spread_failed, interval_method="bracket from the detectors' Wilson intervals",
                              detail=f"detector rates {counts}",
                              secondary=f"{round(d.spread * 1000)} permil, cap {th.ratio_cap_permil} permil"))
    return [replace(g, strict=th.strict) for g in gates]


def panel_sentence(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> str:
    """"Panel: 1 of 3 dimensions may be enforced." (with what holds the others back)."""
    n = len(decisions)
    ok = sum(d.verdict.value == "ENFORCE" for _, d in decisions.values())
    refused = sum(d.verdict.value == "REFUSE_SINGLE" for _, d in decisions.values())
    unmeasured = sum(not m.rates for m, _ in decisions.values())
    noun = "dimension" if n == 1 else "dimensions"
    if n == 1:
        (dim, (m, d)), = decisions.items()
        head = "Panel: may be enforced" if ok else ("Panel: refused, fewer than two independent detectors"
                                                   if refused else "Panel: report only, do not enforce")
    else:
        head = f"Panel: {ok} of {n} {noun} may be enforced"
        if refused:
            head += f"; {refused} refused (fewer than two independent detectors)"
    levels = sorted({(m.level, m.level_origin[0]) for m, _ in decisions.values()})
    if refused < n:  # a structural refusal holds at every level
        head += f" {level_phrase(*levels[0])}" if len(levels) == 1 else \
            f" (levels: {', '.join(sorted({lv for lv, _ in levels}))})"
    if unmeasured:
        head += ("; spread not checked" if unmeasured == n else f"; spread not checked on {unmeasured}")
    depends = sum(depends_on_level(m, d.thresholds) for m, d in decisions.values())
    if depends:
        head += ("; the verdict depends on the level" if n == 1 else
                 f"; {depends} verdict{'s depend' if depends > 1 else ' depends'} on the level")
    return head + "."


# --- judge -----------------------------------------------------------------------------------


def judge_gates(subject: str, d: CalibrationDecision, intervals: dict[str, Any] | None = None) -> list[Gate]:
    """``intervals``: per rate name an object with ``low``/``high`` (fractions of 1), ``method``,
    ``cases`` and ``observations`` (agreebound.uncertainty.judge_rate_intervals)."""
    out = []
    # No contract: each gate is measured against illustrative limits and not decided (passed None).
    illustrative = not d.contract_given
    for c in d.checks:
        label = RATE_LABELS[c.name]
        t = c.threshold_bps / 100
        sec = f"{'illustrative ' if illustrative else ''}limit {c.threshold_bps:,} bps"
        if c.unavailable:
            out.append(Gate("judge", subject, c.name, label, c.kind, "%", None, None, None, t, None,
                            state="not evaluable", detail=c.unavailable, secondary=sec, illustrative=illustrative))
            continue
        if not c.rate.evaluable:
            out.append(Gate("judge", subject, c.name, label, c.kind, "%", None, None, None, t,
                            None if illustrative else c.passed,
                            state="not evaluable", detail="no opportunities" + ("" if illustrative else " (" + (
                                "passes, as in the seed" if c.passed else "fails: a minimum above 0 is not met") + ")"),
                            secondary=sec, illustrative=illustrative))
            continue
        iv = (intervals or {}).get(c.name)
        value = float(c.rate.value) * 100
        notes = []
        cases = getattr(iv, "cases", None) or None  # 0: the source gave no per-case counts (unknown)
        if cases is not None and cases < MIN_CASES:
            notes.append(f"too few cases: {cases} (fewer than {MIN_CASES})")
        out.append(Gate("judge", subject, c.name, label, c.kind, "%", value,
                        None if iv is None else iv.low * 100, None if iv is None else iv.high * 100, t,
                        None if illustrative else c.passed,
                        detail=f"{c.rate.numerator:,}/{c.rate.denominator:,} observations",
                        interval_method="" if iv is None else iv.method,
                        secondary=f"{c.rate.bps:,} bps, {sec}", cases=cases,
                        observations=getattr(iv, "observations", c.rate.denominator), notes=tuple(notes),
                        strict=d.thresholds.strict, illustrative=illustrative))
    return out


def judge_sentence(d: CalibrationDecision) -> str:
    """"Judge: fails 4 of 5 gates." / "Judge: passes all 5 gates." / partial audits."""
    n = len(d.checks)
    evaluable = [c for c in d.checks if not c.unavailable]
    failed = [c for c in evaluable if not c.passed]
    refs = f"; {len(d.reference_issues)} reference issue{'s' if len(d.reference_issues) != 1 else ''}" \
        if d.reference_issues else ""
    unevaluable = n - len(evaluable)
    if not d.contract_given:  # measured, never decided: the limits are not a contract
        measurable = sum(not c.unavailable and c.rate.evaluable for c in d.checks)
        return f"Judge: not decided (no contract); {measurable} of {n} gates measurable, against {d.limits_text}."
    if d.decision == "INCOMPLETE":
        return (f"Judge: incomplete, {unevaluable} of {n} gates cannot be evaluated from this source; "
                f"the {len(evaluable)} that can pass{refs}.")
    if unevaluable and not failed:
        return (f"Judge: fails on references; the {len(evaluable)} gates this source can evaluate pass, "
                f"{unevaluable} cannot be evaluated{refs}.")
    if unevaluable:
        return f"Judge: fails {len(failed)} of the {len(evaluable)} gates this source can evaluate{refs}."
    if not failed:
        return f"Judge: passes all {n} gates{refs}." if not d.reference_issues else \
            f"Judge: fails on references, all {n} gates pass{refs}."
    return f"Judge: fails {len(failed)} of {len(evaluable)} gates{refs}."
