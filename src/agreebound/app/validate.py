"""Checking the instrument: judges whose defects are planted (agreebound.app.synthetic.PlantedJudge),
each audited through the pipeline like any judge bundle, and every bias measure
(agreebound.judge.bias) read against the value the generator planted (synthetic.implants).

It holds when every measure's 95% interval covers its planted value, every bias flag is raised
exactly where a bias was planted (a flag: the interval excludes the measure's null: 50% for the
first slot and McNemar's share, 0 for a net measure), and each judge's verdict reads as planted
(the clean judge passes; the noisy judge fails the 5% verbosity limit and the verdict calls it
general disagreement; each biased judge's failure is called its bias).

The behaviours are planted in exact proportions within each stratum of cases
(``planted_frames(exact=True)``), so the sample holds the planted values up to rounding: a miss
is the instrument's fault, not chance, at every seed. How often the intervals cover under
independent draws, where misses are chance, is counted in tests/judge/test_bias_coverage.py.

>>> v = validate(seed=0)
>>> v.holds, len(v.rows), sum(r.flag_raised is True for r in v.rows)
(True, 78, 5)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence, cast

from agreebound.app.synthetic import PlantedDesign, PlantedJudge, ScoredJudge, implants, planted_frames, scored_frame
from agreebound.core.json_types import JSONObject

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.app.result import Report
    from agreebound.judge.decision import CalibrationDecision
    from agreebound.judge.measure import CalibrationMeasurement
    from agreebound.scored.decide import ScoredDecision
    from agreebound.scored.audit import ScoredMeasurement

#: The planted judges, in the order shown: one defect each beside a base rate of general
#: disagreement (the clean judge's is low enough to pass the contract).
JUDGES = (
    PlantedJudge("clean", disagreement=0.04),
    PlantedJudge("first-slot", disagreement=0.1, first_slot=0.2, second_slot=0.04),
    PlantedJudge("length", disagreement=0.1, length=0.3),
    PlantedJudge("self-preference", disagreement=0.1, self_preference=0.4),
    PlantedJudge("noisy", disagreement=0.3),
    PlantedJudge("unstable", disagreement=0.1, instability=0.3),
)
#: The measures read against their planted values: judge_bias's, and the seed's repeat variance
#: (the unstable judge's defect) with its case-aware interval.
MEASURES = ("first_slot", "mcnemar", "flip_with_ties", "flip_decisive", "repeat_variance", "verbosity_bias",
            "verbosity_mirror", "verbosity_net", "length_excess", "self_preference", "self_control",
            "self_error_excess", "self_preference_net")
#: The bias flags: a measure whose 95% interval excludes its null flags a bias.
NULLS = {"first_slot": Fraction(1, 2), "mcnemar": Fraction(1, 2), "verbosity_net": Fraction(0),
         "length_excess": Fraction(0), "self_preference_net": Fraction(0)}
DIFFERENCES = ("verbosity_net", "length_excess", "self_error_excess", "self_preference_net")
#: Each judge's verdict as planted: (gate, whether it passes, what the verdict's note says of it);
#: the clean judge passes every gate (gate None) and has no note.
VERDICTS = {
    "clean": (None, True, ""),
    "first-slot": ("position_flip", False, "a slot preference, not only inconsistency"),
    "length": ("verbosity_bias", False, "a length bias beyond general disagreement"),
    "self-preference": ("self_preference", False,
                        "a self-preference bias beyond the candidates' strength and general disagreement"),
    "noisy": ("verbosity_bias", False, "the failure is mostly general disagreement"),
    "unstable": ("repeat_variance", False, ""),
}


#: Graded and pass/fail judges planted beside three human raters (agreebound.scored.audit): (judge,
#: scale, the decision planted, the measure whose 95% interval must exclude 0, or None). A judge
#: with the humans' own noise is exchangeable with them: admissible; a noisier one is not (the
#: humans' noise: 0.5 scale points on 1-5, the pass/fail judges' own on 0/1). A judge
#: with a planted bias must be flagged on its measure. (The clean judges' measures are not required
#: to include 0: at 95% one in twenty would not, by chance.)
SCORED_JUDGES: tuple[tuple[ScoredJudge, tuple[int, int], str, str | None], ...] = (
    (ScoredJudge("graded-exchangeable", noise=0.5), (1, 5), "PASS_CALIBRATION", None),
    (ScoredJudge("graded-noisy", noise=1.2), (1, 5), "FAIL_CALIBRATION", None),
    (ScoredJudge("graded-lenient", noise=0.5, leniency=0.6), (1, 5), "", "leniency"),
    (ScoredJudge("graded-long", noise=0.5, length_bias=0.5), (1, 5), "", "length_effect"),
    (ScoredJudge("graded-self", noise=0.5, self_bias=0.8), (1, 5), "", "self_preference_scored"),
    (ScoredJudge("binary-exchangeable", noise=0.3), (0, 1), "PASS_CALIBRATION", None),
    (ScoredJudge("binary-yes", noise=0.3, leniency=0.4), (0, 1), "", "yes_lean"),
)
SCORED_ITEMS = 600


@dataclass(frozen=True)
class Row:
    """One measure of one planted judge: its planted and measured values, and whether they agree."""

    judge: str
    measure: str
    implant: Fraction | None  # None: no opportunities planted
    estimate: Fraction | float | None  # None: not measured (a float: a measure with a square root)
    low: float | None
    high: float | None
    recovered: bool  # the interval covers the planted value (or neither is defined)
    flag_expected: bool | None  # None: not a bias flag
    flag_raised: bool | None

    @property
    def holds(self) -> bool:
        return self.recovered and self.flag_expected == self.flag_raised

    def to_dict(self) -> JSONObject:
        return {"judge": self.judge, "measure": self.measure,
                "implant": None if self.implant is None else str(self.implant),
                "implant_value": None if self.implant is None else float(self.implant),
                "estimate": None if self.estimate is None else str(self.estimate),
                "estimate_value": None if self.estimate is None else float(self.estimate),
                "interval95": None if self.low is None else [self.low, self.high], "recovered": self.recovered,
                "flag_expected": self.flag_expected, "flag_raised": self.flag_raised, "holds": self.holds}


@dataclass(frozen=True)
class Check:
    """One judge's verdict against the verdict planted."""

    judge: str
    expected: str
    found: str
    holds: bool

    def to_dict(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class Validation:
    seed: int
    design: PlantedDesign
    judges: tuple[PlantedJudge, ...]
    rows: tuple[Row, ...]
    checks: tuple[Check, ...]
    #: the graded and pass/fail judges' checks (:data:`SCORED_JUDGES`)
    scored: tuple[Check, ...] = ()

    @property
    def holds(self) -> bool:
        return all(r.holds for r in self.rows) and all(c.holds for c in self.checks + self.scored)

    @property
    def failures(self) -> tuple[str, ...]:
        """What does not hold, in words: the judge and the measure (or its verdict)."""
        out = [f"{r.judge} judge, {r.measure}: " + (
            f"planted {_value(r.measure, r.implant)} outside {_interval(r)}" if not r.recovered
            else f"bias flag {_yes(r.flag_raised)}, planted {_yes(r.flag_expected)}") for r in self.rows if not r.holds]
        out += [f"{c.judge} judge, verdict: expected {c.expected}; found {c.found}" for c in self.checks if not c.holds]
        out += [f"{c.judge} judge: expected {c.expected}; found {c.found}" for c in self.scored if not c.holds]
        return tuple(out)

    def to_dict(self) -> JSONObject:
        return {"seed": self.seed, "design": asdict(self.design), "judges": [asdict(j) for j in self.judges],
                "nulls": {k: str(v) for k, v in NULLS.items()}, "rows": [r.to_dict() for r in self.rows],
                "checks": [c.to_dict() for c in self.checks], "scored": [c.to_dict() for c in self.scored],
                "holds": self.holds, "failures": list(self.failures)}


# --- running -----------------------------------------------------------------------------------


def audit(judge: PlantedJudge, design: PlantedDesign, seed: Sequence[int]) -> Report:
    """A planted judge's bundle written as JSON and audited by the pipeline (read, measure, decide,
    report), as ``agreebound calibrate`` audits a file: the pipeline's Report."""
    from agreebound.io.judge_inputs import bundle_json
    from agreebound.app.recipes import JudgeRecipe, Source
    from agreebound.app.pipeline import run

    contract, refs, obs, header = planted_frames(judge, design, seed)
    data = bundle_json(contract, header, refs, obs).encode()
    return run(JudgeRecipe(Source(f"planted-{judge.name}.json", data), "bundle"))


def _inside(value: Fraction, low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and low <= value <= high


def rows_of(judge: PlantedJudge, design: PlantedDesign, measurement: CalibrationMeasurement) -> tuple[Row, ...]:
    """Each measure of a measured planted judge against its planted value."""
    planted = implants(judge, design)
    out = []
    for name in MEASURES:
        estimate: Fraction | float | None
        if name == "repeat_variance":
            rate, iv = measurement.repeat_variance, measurement.diagnostics.intervals.get(name)
            estimate = rate.value
            low, high = (None, None) if iv is None else (iv.low, iv.high)
        else:
            m = measurement.bias[name]
            estimate, low, high = m.exact, m.low, m.high
        implant = planted[name]
        recovered = estimate is None if implant is None else _inside(implant, low, high)
        null = NULLS.get(name)
        expected = raised = None
        if null is not None:
            expected = implant is not None and implant != null
            raised = low is not None and not _inside(null, low, high)
        out.append(Row(judge.name, name, implant, estimate, low, high, recovered, expected, raised))
    return tuple(out)


def check_of(judge: PlantedJudge, report: Report) -> Check:
    """The judge's verdict against the one planted (:data:`VERDICTS`): the decision, or the planted
    gate and the verdict's note on it (judge_bias's reading, as the report's verdict notes give it)."""
    from agreebound.judge.bias import attribution, position_attribution

    gate, passes, note = VERDICTS[judge.name]
    decision = cast("CalibrationDecision", report.decisions)  # a pairwise judge's run
    if gate is None:
        return Check(judge.name, "PASS_CALIBRATION", decision.decision, decision.decision == "PASS_CALIBRATION")
    g, bias = decision.gate(gate), cast("JudgeBundle", report.bundle).measurement.bias
    said = attribution(g, bias) or position_attribution(g, bias) or ""
    said = said[:1].upper() + said[1:] + "." if said else ""  # as agreebound.judge.bias.verdict_notes words it
    expected = f"{gate} {'passes' if passes else 'fails'}" + (f", the verdict says {note!r}" if note else "")
    found = f"{gate} {'passes' if g.passed else 'fails'}" + (f": {said!r}" if said else "")
    return Check(judge.name, expected, found, g.passed is passes and note in said)


def scored_check(judge: ScoredJudge, scale: tuple[int, int], decision: str, measure: str | None,
                 seed: int) -> Check:
    """A planted graded or pass/fail judge written as a scores table and audited by the pipeline, as
    ``agreebound calibrate`` audits a file: its decision, or its planted bias flagged."""
    from agreebound.app.recipes import JudgeRecipe, Source
    from agreebound.app.pipeline import run

    frame = scored_frame([judge], SCORED_ITEMS, humans=3, human_noise=judge.noise if scale == (0, 1) else 0.5,
                         scale=scale, seed=seed, models=(judge.name, "model-b"))
    data = frame.drop(columns=["line"]).to_csv(index=False).encode()
    report = run(JudgeRecipe(Source(f"planted-{judge.name}.csv", data)))
    if measure is None:
        d = cast("ScoredDecision", report.decisions).per_judge[judge.name]  # a graded judge's run
        gates = ", ".join(f"{g.name} {'passes' if g.passed else 'fails'}" for g in d[1])
        return Check(judge.name, decision, f"{d[0]} ({gates})", d[0] == decision)
    m = cast("ScoredMeasurement", report.bundle).agreement(judge.name).measure(measure)
    assert m is not None  # the planted judge's measure is one the audit measures
    flagged = m.low is not None and not (m.low <= 0 <= cast(float, m.high))  # an interval has both ends
    return Check(judge.name, f"{measure} flagged (its 95% interval excludes 0)",
                 f"{measure} {m.value_text()} {m.interval_text()}", flagged)


def validate(seed: int = 0, design: PlantedDesign = PlantedDesign(),
             judges: Sequence[PlantedJudge] = JUDGES,
             scored: Sequence[tuple[ScoredJudge, tuple[int, int], str, str | None]] = SCORED_JUDGES) -> Validation:
    """Every planted judge audited (judge i from the seed (seed, i)) and read against its plants."""
    rows: list[Row] = []
    checks = []
    for i, judge in enumerate(judges):
        report = audit(judge, design, (seed, i))
        rows += rows_of(judge, design, cast("JudgeBundle", report.bundle).measurement)
        checks.append(check_of(judge, report))
    graded = tuple(scored_check(*plant, seed=seed * 1000 + i) for i, plant in enumerate(scored))
    return Validation(seed, design, tuple(judges), tuple(rows), tuple(checks), graded)


# --- the table ---------------------------------------------------------------------------------


def _value(measure: str, v: Fraction | float | None) -> str:
    if v is None:
        return "-"
    return f"{float(v) * 100:+.1f} pts" if measure in DIFFERENCES else f"{float(v) * 100:.1f}%"


def _interval(r: Row) -> str:
    if r.low is None or r.high is None:
        return "-"
    return f"[{r.low * 100:.1f}, {r.high * 100:.1f}]"


def _yes(flag: bool | None) -> str:
    return "-" if flag is None else "yes" if flag else "no"


def table(v: Validation) -> str:
    """The validation as text: one line per judge and measure, the verdict checks, and the result."""
    d = v.design
    lines = [f"agreebound validate: {len(v.judges)} judges with planted defects, each audited by the pipeline "
             f"({d.n_cases} cases x 2 orders x {d.repetitions} repetitions; seed {v.seed})",
             "bias flag: the 95% interval excludes the null (50% for first_slot and mcnemar, 0 for a net measure)",
             ""]
    head = ("judge", "measure", "planted", "measured", "95% interval", "recovered", "flag planted", "flag raised", "")
    body = [(r.judge, r.measure, _value(r.measure, r.implant), _value(r.measure, r.estimate), _interval(r),
             "yes" if r.recovered else "NO", _yes(r.flag_expected), _yes(r.flag_raised), "" if r.holds else "MISS")
            for r in v.rows]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip() for x in (head, *body)]
    lines += ["", "verdicts:"]
    lines += [f"  {c.judge}: expected {c.expected}; found {c.found}{'' if c.holds else '  MISS'}" for c in v.checks]
    if v.scored:
        lines += ["", f"graded and pass/fail judges ({SCORED_ITEMS} items, 3 human raters each):"]
        lines += [f"  {c.judge}: expected {c.expected}; found {c.found}{'' if c.holds else '  MISS'}" for c in v.scored]
    lines.append("")
    if v.holds:
        lines.append(f"validate: holds: {len(v.rows)} measures recovered their planted values, every bias flag "
                     f"as planted (clean and noisy judges: none), {len(v.checks)} verdicts as planted"
                     + (f"; {len(v.scored)} graded and pass/fail judges as planted" if v.scored else ""))
    else:
        total = len(v.rows) + len(v.checks) + len(v.scored)
        lines.append(f"validate: FAILS: {len(v.failures)} of {total} checks do not hold:")
        lines += [f"  - {f}" for f in v.failures]
    return "\n".join(lines) + "\n"
