"""Every gate behind a verdict, as a reader sees it: the view of one :class:`agreebound.core.gate.Gate`
that ``decide`` returned, in display units, with its words. Nothing here compares a value with a
threshold: whether it passed, whether the value alone passes (strict mode), whether the interval
straddles the threshold ("fragile") and the margin all arrive from the decided gate.

Display units are the same everywhere: alpha as a number in [-1, 1], the spread as a multiple
("3.9x"), the judge's rates in percent. Permil and basis points stay secondary labels.

>>> from fractions import Fraction
>>> from agreebound.core.gate import evaluate
>>> decided = evaluate("alpha", "min", Fraction(236, 1000), Fraction(3, 5), low=0.18, high=0.29)
>>> g = GateView("panel", "violence", "alpha", "alpha", "min", "", 0.236, 0.18, 0.29, 0.6, False, decided=decided)
>>> g.margin
'alpha 0.236, needs 0.600: 0.364 short'
>>> g.flip_at
0.236
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from agreebound.core.thresholds import THRESHOLD_WORDS
from agreebound.panel.measure import PanelMeasurement
from agreebound.judge.decision import CalibrationDecision, seed_view, unavailable, with_intervals
from agreebound.core.gate import MEASURED, NOT_MEASURED, Gate
from agreebound.core.intervals import RateInterval
from agreebound.panel.levels import in_raters_words, level_phrase, panel_noun
from agreebound.panel.decision import PanelDecision

#: The judge's five gates as a reader names them (figures, pages and reports use these).
RATE_LABELS = {"human_agreement": "Human agreement", "position_flip": "Position flip",
               "repeat_variance": "Repeat variance", "verbosity_bias": "Verbosity bias",
               "self_preference": "Self-preference"}
#: The gates a contract may opt in to (version 2): the bias net of general disagreement, in points.
NET_LABELS = {"verbosity_net": "Verbosity net of disagreement",
              "self_preference_net": "Self-preference net of strength"}

#: Which cases each judge rate counts, and why the others are left out: a rate's case count is the
#: audit's cases it has an opportunity on, so adjacent gates give different counts (issue 54, item 9).
CASES_COUNTED = {
    "human_agreement": ("with a human reference", "no human reference"),
    "position_flip": ("with one verdict in each order (each order's repetitions agree)",
                      "an order missing or its repetitions split"),
    "repeat_variance": ("with a judged order (each order's repetitions compared)", "no judgment"),
    "verbosity_bias": ("where the humans preferred the shorter candidate",
                       "the humans preferred the longer or tied, or the lengths are equal or unknown"),
    "self_preference": ("where the humans preferred the candidate that is not the judge's own",
                        "no candidate of the judge's own, or the humans preferred it or tied"),
}


def cases_counted(name: str, cases: int, total: int) -> str:
    """Which of the audit's cases a judge rate counts, in words.

    >>> cases_counted("position_flip", 73, 75)
    "73 of 75: those with one verdict in each order (each order's repetitions agree); 2 left out: an order missing or its repetitions split"
    >>> cases_counted("human_agreement", 75, 75)
    'all 75: those with a human reference'
    """
    counted, left = CASES_COUNTED[name]
    if cases >= total:
        return f"all {total:,}: those {counted}"
    return f"{cases:,} of {total:,}: those {counted}; {total - cases:,} left out: {left}"


#: Fewer cases than this and a judge rate's interval is reported as "too few cases" besides.
MIN_CASES = 30


@dataclass(frozen=True)
class GateView:
    """One decided gate (``decided``) in display units, with the words every screen shows."""

    domain: str  # "panel" or "judge"
    subject: str  # the dimension's name, or the judge's
    name: str  # "alpha", "spread", "detectors", or a judge rate's name
    label: str  # "alpha", "spread", "Human agreement", ...
    kind: str  # "min": value must reach the threshold; "max": must not exceed it
    unit: str  # "" (alpha, detectors), "x" (spread), "%" (judge rates), "pt" (a difference in points: a net gate)
    value: float | None  # in display units; None when there is no number (see ``state``)
    low: float | None  # the 95% interval in display units (None: none)
    high: float | None  # None with ``low`` set: unbounded above
    threshold: float
    passed: bool | None  # as decided; None when not checked, or not decided (no contract)
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
    #: the gate as ``decide`` returned it: the source of every result this view shows
    decided: Gate | None = field(default=None, repr=False)
    #: what a panel's raters are called ("detector" or "rater": agreebound.panel.levels.rater_noun)
    rater_word: str = "detector"

    # --- words -------------------------------------------------------------------------------

    def fmt(self, x: float | None) -> str:
        if x is None:
            return "unbounded" if self.unit == "x" else "undefined"
        if self.unit == "x":
            return f"{x:.2f}x" if x < 10 else f"{x:,.1f}x"
        if self.unit == "%":
            return f"{x:.1f}%" if abs(x) >= 1 or x == 0 else f"{x:.2f}%"
        if self.unit == "pt":
            return f"{x:.1f} points"
        if self.unit == "n":  # a whole number (an optional panel gate's units)
            return f"{x:,.0f}"
        if self.name == "detectors":
            return f"{x:.0f}"
        return f"{x:.3f}"

    @property
    def margin(self) -> str:
        """"alpha 0.236, needs 0.600: 0.364 short", "spread 3.90x, cap 2.00x: 1.90x over"."""
        what = self.label if self.domain == "panel" else self.label.lower()
        if self.state:
            return f"{what} {self.state}" + (f" ({self.detail})" if self.detail and self.state != "not measured" else "")
        assert self.value is not None and self.decided is not None
        need = "needs" if self.kind == "min" else "cap" if self.unit == "x" else "limit"
        if self.illustrative:
            need = self.threshold_word  # "illustrative limit" / "illustrative minimum"
        head = f"{what} {self.fmt(self.value)}, {need} {self.fmt(self.threshold)}"
        if self.name == "detectors":
            label = self.label.removesuffix("s") if self.value == 1 else self.label  # "1 independent rater"
            return f"{self.fmt(self.value)} {label}, needs {self.fmt(self.threshold)}"
        if self.passed is False and self.decided.value_passed:  # strict mode: the value passes, its bound does not
            side = "lower" if self.kind == "min" else "upper"
            bound = self.low if self.kind == "min" else self.high
            if bound is None:
                return f"{head}: passes, but its 95% {side} bound is unbounded (strict)"
            scale = 100 if self.unit in ("%", "pt") else 1
            return (f"{head}: passes, but its 95% {side} bound {self.fmt(bound)} is "
                    f"{self.decided.gap_text((bound - self.threshold) / scale)} "
                    f"{'short' if self.kind == 'min' else 'over'} (strict)")
        return f"{head}: {self.decided.margin_words}"

    @property
    def flip_at(self) -> float | None:
        """The threshold at which this gate's verdict flips, in display units: the decided gate's
        ``flips_at`` (the measured value, or strict mode's bound; None when there is none)."""
        flip = None if self.decided is None else self.decided.flips_at
        return None if flip is None else float(flip) * (100 if self.unit in ("%", "pt") else 1)

    @property
    def fragile(self) -> str | None:
        """The interval's bounds when they lie on both sides of the threshold (as decided): the
        verdict could go either way with another sample of the same size."""
        if self.decided is None or not self.decided.fragile or self.illustrative:  # no contract: no verdict to flip
            return None
        return (f"its 95% interval {self.fmt(self.low)} to {self.fmt(self.high)} includes the "
                f"{self.threshold_word} {self.fmt(self.threshold)}")

    @property
    def plan_sentence(self) -> str:
        """How many more cases (units) would decide a fragile gate, in words (the decided gate's
        plan, agreebound.core.planner.Plan); "" when the gate is not fragile or has no plan."""
        if self.fragile is None or self.decided is None or self.decided.plan is None:
            return ""
        return self.decided.plan.sentence

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


def _float(x: Fraction | float | None, scale: int = 1) -> float | None:
    return None if x is None else float(x) * scale


def view(decided: Gate, domain: str, subject: str, label: str, **words: Any) -> GateView:
    """The view of a decided gate in display units (rates in percent). ``words``: the view's own
    fields (detail, secondary, interval_method, cases, observations, notes, illustrative, passed), and
    ``unit`` where the display unit is not the decided gate's (a net gate's points)."""
    scale = 100 if decided.unit == "%" else 1
    passed = words.pop("passed", decided.passed)
    strict = words.pop("strict", decided.strict)
    unit = words.pop("unit", decided.unit)
    return GateView(domain, subject, decided.name, label, decided.kind, unit,
                    _float(decided.exact, scale), _float(decided.low, scale), _float(decided.high, scale),
                    float(decided.threshold * scale), passed,
                    state=None if decided.state == MEASURED else decided.state, strict=strict,
                    decided=decided, **words)


# --- panel -----------------------------------------------------------------------------------


def panel_gates(dimension: str, m: PanelMeasurement, d: PanelDecision) -> list[GateView]:
    """The panel's gates as ``d`` decided them (the seed's three, then any optional one) (agreebound.panel.decide.decide_panel: with their intervals)."""
    th = d.thresholds
    noun = panel_noun(m)
    det, alpha, spread = (d.gate(n) for n in ("detectors", "alpha", "spread"))
    out = [view(det, "panel", dimension, f"independent {noun}s", strict=th.strict, rater_word=noun,
                detail=", ".join(m.detectors[:6]) + (" ..." if len(m.detectors) > 6 else ""))]
    label = f"alpha ({m.level})"
    if alpha.exact is None:
        out.append(view(alpha, "panel", dimension, label, detail=alpha.detail, rater_word=noun,
                        secondary=f"floor {th.alpha_floor_permil} permil"))
    else:
        out.append(view(alpha, "panel", dimension, label, interval_method=alpha.interval_method, rater_word=noun,
                        detail=f"{m.n_units:,} units, {m.level} level",
                        secondary=f"{m.alpha.permil} permil, floor {th.alpha_floor_permil} permil"))
    if spread.exact is None:  # not measured (no detector rates) or unbounded
        detail = m.rates_source.removeprefix("none: ") if spread.state == NOT_MEASURED else spread.detail
        out.append(view(spread, "panel", dimension, "spread", detail=in_raters_words(detail, noun), rater_word=noun,
                        secondary=f"cap {th.ratio_cap_permil} permil"))
    else:
        counts = ", ".join(f"{r.positives}/{r.total}" for r in m.rates[:6])
        out.append(view(spread, "panel", dimension, "spread", rater_word=noun,
                        interval_method=in_raters_words(spread.interval_method, noun), detail=f"{noun} rates {counts}",
                        secondary=f"{round(spread.exact * 1000)} permil, cap {th.ratio_cap_permil} permil"))
    # the gates the thresholds turned on (OPTIONAL_PANEL_GATES): each a whole number against its field
    for g in d.gates[3:]:
        words = THRESHOLD_WORDS.get(g.threshold_field, (g.threshold_field, str))[0]
        out.append(view(g, "panel", dimension, g.name.replace("_", " "), detail=g.detail, rater_word=noun,
                        secondary=f"{words} {int(g.threshold):,}"))
    return out


def panel_sentence(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> str:
    """"Panel: 1 of 3 dimensions may be enforced." (with what holds the others back)."""
    n = len(decisions)
    ok = sum(d.verdict.value == "ENFORCE" for _, d in decisions.values())
    refused = sum(d.verdict.value == "REFUSE_SINGLE" for _, d in decisions.values())
    unmeasured = sum(not m.rates for m, _ in decisions.values())
    noun = "dimension" if n == 1 else "dimensions"
    raters = "detectors" if any(panel_noun(m) == "detector" for m, _ in decisions.values()) else "raters"
    if n == 1:
        (dim, (m, d)), = decisions.items()
        head = "Panel: may be enforced" if ok else (f"Panel: refused, fewer than two independent {raters}"
                                                   if refused else "Panel: report only, do not enforce")
    else:
        head = f"Panel: {ok} of {n} {noun} may be enforced"
        if refused:
            head += f"; {refused} refused (fewer than two independent {raters})"
    levels = sorted({(m.level, m.level_origin[0]) for m, _ in decisions.values()})
    if refused < n:  # a structural refusal holds at every level
        head += f" {level_phrase(*levels[0])}" if len(levels) == 1 else \
            f" (levels: {', '.join(sorted({lv for lv, _ in levels}))})"
    if unmeasured:
        head += ("; spread not checked" if unmeasured == n else f"; spread not checked on {unmeasured}")
    depends = sum(d.depends_on_level for _, d in decisions.values())
    if depends:
        head += ("; the verdict depends on the level" if n == 1 else
                 f"; {depends} verdict{'s depend' if depends > 1 else ' depends'} on the level")
    return head + "."


# --- judge -----------------------------------------------------------------------------------


def judge_gates(subject: str, d: CalibrationDecision, intervals: dict[str, RateInterval] | None = None) -> list[GateView]:
    """The judge's five gates as ``d`` decided them, then the net gates its contract opted in to
    (:func:`net_gate_view`). ``intervals``: per rate name an object with
    ``low``/``high`` (fractions of 1), ``method``, ``cases`` and ``observations``
    (agreebound.judge.intervals.judge_rate_intervals); a decision made without them gets them, and
    whether each gate is fragile, from agreebound.judge.decision.with_intervals."""
    out = []
    # No contract: each gate is measured against illustrative limits and not decided (passed None).
    illustrative = not d.contract_given
    for g, rate in zip(with_intervals(d.gates[:len(d.rates)], intervals), d.rates, strict=True):
        label = RATE_LABELS[g.name]
        sec = f"{'illustrative ' if illustrative else ''}limit {seed_view(g).threshold_bps:,} bps"
        if (why := unavailable(g)) is not None:
            out.append(view(g, "judge", subject, label, detail=why, secondary=sec,
                            illustrative=illustrative, strict=False))
            continue
        if not rate.evaluable:
            out.append(view(g, "judge", subject, label, passed=None if illustrative else g.passed,
                            detail="no opportunities" + ("" if illustrative else " (" + (
                                "passes, as in the seed" if g.passed else "fails: a minimum above 0 is not met") + ")"),
                            secondary=sec, illustrative=illustrative, strict=False))
            continue
        iv = (intervals or {}).get(g.name)
        notes = []
        cases = getattr(iv, "cases", None) or None  # 0: the source gave no per-case counts (unknown)
        if cases is not None and cases < MIN_CASES:
            notes.append(f"too few cases: {cases} (fewer than {MIN_CASES})")
        out.append(view(g, "judge", subject, label, passed=None if illustrative else g.passed,
                        detail=f"{rate.numerator:,}/{rate.denominator:,} observations",
                        interval_method=g.interval_method, secondary=f"{rate.bps:,} bps, {sec}", cases=cases,
                        observations=getattr(iv, "observations", rate.denominator), notes=tuple(notes),
                        illustrative=illustrative))
    return out + [net_gate_view(subject, g, illustrative) for g in d.gates[len(d.rates):]]


def net_gate_view(subject: str, g: Gate, illustrative: bool = False) -> GateView:
    """An opt-in gate on a bias net of general disagreement (a difference of two rates, in points;
    agreebound.judge.bias), as ``decide`` returned it."""
    bps = int(g.threshold * 10_000)  # a judge threshold is whole basis points
    sec = f"a contract gate (version 2), {'illustrative ' if illustrative else ''}limit {bps:,} bps"
    if g.exact is None:
        return view(g, "judge", subject, NET_LABELS[g.name], unit="pt", detail=g.detail, secondary=sec,
                    passed=None if illustrative else g.passed, illustrative=illustrative, strict=False)
    return view(g, "judge", subject, NET_LABELS[g.name], unit="pt", interval_method=g.interval_method,
                secondary=sec, passed=None if illustrative else g.passed, illustrative=illustrative)


def judge_sentence(d: CalibrationDecision) -> str:
    """"Judge: fails 4 of 5 gates." / "Judge: passes all 5 gates." / partial audits."""
    n = len(d.gates)
    evaluable = [g for g in d.gates if unavailable(g) is None]
    failed = [g for g in evaluable if not g.passed]
    refs = f"; {len(d.reference_issues)} reference issue{'s' if len(d.reference_issues) != 1 else ''}" \
        if d.reference_issues else ""
    unevaluable = n - len(evaluable)
    if not d.contract_given:  # measured, never decided: the limits are not a contract
        measurable = sum(g.exact is not None for g in d.gates)  # neither unavailable nor without opportunities
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
