"""Follow a judge by slice: any column of the data (a prompt template, a turn, a category, a column
the user added) splits every judge gate.

Measuring (:func:`measure_slices`, the expensive part) re-runs the audit's own measure on each slice's
cases: :func:`agreebound.judge.partial.measure_partial`, which counts exactly what the full audit counts
when nothing is missing, over the cases whose slice column holds that value. No rate is computed here.

Deciding (:func:`decide_slices`, cheap: all a threshold move reruns) runs the judge's ``decide`` on
each slice with intervals widened for the number of slices, and controls the multiplicity of
"this slice fails the gate" claims:

* per gate, the family is the slices with enough cases for a verdict (``k`` of them);
* each slice's one-sided p-value is the exact binomial test of "the slice's true rate is on the
  passing side of the limit" at the rate's effective number of observations (its case-clustered
  design effect): the beta tail the Clopper-Pearson interval below inverts (a normal score test
  confirmed 11.8% of slices sitting on the limit at 12 cases, for a promised 5%);
* the p-values are adjusted by Holm's step-down (the default: family-wise error at ``alpha``), or
  by Benjamini-Hochberg (false discovery rate at ``alpha``) when asked;
* each slice's interval is the simultaneous one: Clopper-Pearson (exact binomial) at the effective n
  (the effective counts phat n_eff of n_eff) with z for ``alpha / k`` two-sided (Bonferroni), so the
  ``k`` intervals of a gate cover their true rates together with probability at least ``1 - alpha``.
  Not Wilson's, the audit's 95% interval: at the extreme level of a Bonferroni interval (98.75% for 4
  slices) and a few dozen cases, Wilson's covers less than its level (0.968 for a 2% rate over 60
  cases) and the family fell short (0.929 jointly over 4 slices of 60 cases at rates 2, 5, 10 and 20%);
  Clopper-Pearson's covers at least its level at every rate for whole counts (0.980 jointly there:
  tests/judge/test_slices.py measures every setting). A clustered rate's design effect is estimated
  from its cases, which costs coverage with few of them: 0.956 jointly for 6 slices of 30 cases of 4
  correlated observations, about 0.95 at 15 cases a slice. The other candidate, Wilson's with a
  continuity correction, was wider on average in 7 of 8 binomial settings measured and fell below its
  level at some rates (0.970 for a nominal 98.75% over 30 cases);
* a slice whose simultaneous interval lies wholly beyond the limit has a one-sided p below
  ``alpha / (2k)``, which Holm always rejects, for a maximum of at most 50% or a minimum of at least
  50% (checked for whole counts of 10 to 120, 150, 200, 300 and 500 cases, 1, 2, 4, 6 and 10 slices,
  limits on a 1% grid): Holm's decisions are consistent with the intervals (Holm can confirm more:
  it is one-sided and steps down).

A slice fails a gate as the audit's decide says (its exact rate against the limit); the failure is
*confirmed* when its adjusted p is at most ``alpha``. Too few cases for a gate (fewer than
:data:`MIN_SLICE_CASES` contributing to it) gives no verdict, and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Literal, Mapping, Sequence

from agreebound.core.gate import Gate
from agreebound.core.intervals import RateInterval, simultaneous_z
from agreebound.core.json_types import JSONObject
from agreebound.core.student_t import regularized_beta
from agreebound.core.thresholds import RATE_GATES, CalibrationThresholds
from agreebound.judge.decide import decide
from agreebound.judge.decision import CalibrationDecision
from agreebound.judge.intervals import judge_rate_intervals
from agreebound.judge.counts import JudgeCounts
from agreebound.judge.measure import CalibrationMeasurement, measure_counts

if TYPE_CHECKING:
    import pandas as pd

#: Fewer cases than this contributing to a gate in a slice: no verdict for that slice and gate.
MIN_SLICE_CASES = 10
#: More distinct values than this and a column is no slice (an id, a free-text field).
MAX_SLICE_VALUES = 50
#: The family's error rate: the simultaneous intervals' 1 - ALPHA, Holm's (or BH's) level.
ALPHA = Fraction(1, 20)
#: How a missing value is shown as a slice.
NO_VALUE = "(none)"

Method = Literal["holm", "bh"]
METHODS: dict[str, str] = {
    "holm": "Holm's step-down on the one-sided p-values (family-wise error rate)",
    "bh": "Benjamini-Hochberg on the one-sided p-values (false discovery rate)",
}

#: A cell's status, the only decision words of the slices: decided by :func:`decide_slices`.
FAIL = "FAIL"  # fails the gate, and the adjusted p confirms it
OVER = "fails, not confirmed"  # fails the gate as measured; the adjusted p does not confirm it
PASS = "pass"
FEW = "too few cases"
NOT_EVALUABLE = "not evaluable"


class SliceRefused(ValueError):
    """A column that cannot split the cases: the message says why."""


@dataclass(frozen=True)
class Slice:
    """One value of the slice column and the audit measured on its cases alone."""

    value: str
    n_cases: int
    measurement: CalibrationMeasurement


@dataclass(frozen=True)
class SliceAudit:
    """Every slice of one column, measured (the expensive part)."""

    column: str
    slices: tuple[Slice, ...]
    #: the whole audit's cases (every slice's cases together)
    n_cases: int


def slice_options(slices: "pd.DataFrame | None") -> dict[str, str | None]:
    """The slice columns a data set has (``slices``: ``case_id`` and one column per slice column, one
    row per observation) -> None when the column can split the cases, else why not, in words.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"case_id": ["c1", "c1", "c2", "c3"], "template": ["t1", "t1", "t2", "t1"],
    ...                       "rater": ["x", "y", "x", "x"], "all": ["same"] * 4})
    >>> slice_options(frame)
    {'template': None, 'rater': 'varies within a case (case c1 has 2 values): a slice takes whole cases', 'all': 'one value for every case: nothing to split'}
    """
    out: dict[str, str | None] = {}
    if slices is None:
        return out
    for column in slices.columns:
        if column == "case_id":
            continue
        try:
            case_values(slices, str(column))
            out[str(column)] = None
        except SliceRefused as e:
            out[str(column)] = str(e)
    return out


def case_values(slices: "pd.DataFrame", column: str) -> "pd.Series":
    """Each case's value of ``column`` as text (a missing value is :data:`NO_VALUE`), indexed by case
    id; :class:`SliceRefused` when the column varies within a case or does not split the cases."""
    import pandas as pd

    if column not in slices.columns:
        raise SliceRefused(f"no column {column!r}")
    labels = slices[column].map(_label)
    per_case = pd.DataFrame({"case_id": slices["case_id"].to_numpy(), "v": labels.to_numpy()})
    distinct = per_case.groupby("case_id", sort=False)["v"].nunique()
    if (distinct > 1).any():
        case = distinct.index[(distinct > 1).to_numpy()][0]
        raise SliceRefused(varies_text(str(case), int(distinct.max())))
    values = per_case.drop_duplicates("case_id").set_index("case_id")["v"]
    why = too_few_or_many(values.nunique())
    if why:
        raise SliceRefused(why)
    return values


def varies_text(case: str, n: int) -> str:
    """Why a column that varies within a case is no slice: a case where it does, the most values a case holds."""
    return f"varies within a case (case {case} has {n} values): a slice takes whole cases"


def too_few_or_many(n: int) -> str | None:
    """Why a column whose cases hold ``n`` distinct values is no slice (None: it is one); the rule the
    out-of-core engines apply to the values they count (agreebound.engines.judge_sql).

    >>> too_few_or_many(1), too_few_or_many(2)
    ('one value for every case: nothing to split', None)
    """
    if n < 2:
        return "one value for every case: nothing to split"
    if n > MAX_SLICE_VALUES:
        return f"{n:,} values (more than {MAX_SLICE_VALUES}): an identifier or free text, not a slice"
    return None


def _label(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return NO_VALUE
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _order(values: Sequence[str]) -> list[str]:
    """Numbers in numeric order (turn 2 before turn 10), then text; the missing value last."""
    def key(v: str) -> tuple[int, float, str]:
        if v == NO_VALUE:
            return (2, 0.0, v)
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)
    return sorted(values, key=key)


def measure_slices(measurement: CalibrationMeasurement, observations: "pd.DataFrame",
                   references: "pd.DataFrame | None", slices: "pd.DataFrame", column: str) -> SliceAudit:
    """The audit measured on each slice's cases: the observations and references of the cases whose
    ``column`` holds one value, measured by :func:`agreebound.judge.partial.measure_partial` (the
    full audit's counts when nothing is missing), with what the whole audit cannot evaluate left
    unevaluated in every slice (:func:`slice_audit`).

    ``observations``: the audit's (observation fields); ``references``: its human references (or
    None); ``slices``: ``case_id`` and the slice columns, one row per observation."""
    import pandas as pd

    from agreebound.judge.partial import measure_partial

    values = case_values(slices, column)
    header = (measurement.scope, measurement.contract_content_id, measurement.rubric_digest)
    refs = references if references is not None and len(references) else None
    measured = {}
    for value in pd.unique(values):
        ids = set(values.index[(values == value).to_numpy()])
        obs = observations[observations["case_id"].isin(ids).to_numpy()].reset_index(drop=True)
        ref = None if refs is None else refs[refs["case_id"].isin(ids).to_numpy()].reset_index(drop=True)
        measured[str(value)] = measure_partial(measurement.contract, obs, ref, (), header)
    return slice_audit(measurement, column, measured)


def measure_slice_counts(measurement: CalibrationMeasurement, column: str,
                         counts: Mapping[str, JudgeCounts]) -> SliceAudit:
    """The audit measured on each slice's cases from each slice's counts (agreebound.judge.counts), as
    an out-of-core engine sums them per value of ``column`` (agreebound.engines.judge_sql): each
    measured by :func:`agreebound.judge.measure.measure_counts`, the measure of every audit, then
    made a slice as in memory (:func:`slice_audit`)."""
    header = (measurement.scope, measurement.contract_content_id, measurement.rubric_digest)
    return slice_audit(measurement, column, {value: measure_counts(measurement.contract, header, c)
                                             for value, c in counts.items()})


def slice_audit(measurement: CalibrationMeasurement, column: str,
                measured: Mapping[str, CalibrationMeasurement]) -> SliceAudit:
    """The slices of ``column`` from each value's measurement, whichever path measured it: in the
    slices' order, with what the whole audit cannot evaluate left unevaluated in every slice, no
    notes, and the whole audit's contract origin. No rate is computed here."""
    out = []
    for value in _order(list(measured)):
        m = replace(measured[value], unavailable=dict(measurement.unavailable), notes=(),
                    contract_given=measurement.contract_given)
        out.append(Slice(value, m.n_cases, m))
    return SliceAudit(column, tuple(out), sum(s.n_cases for s in out))


# --- deciding --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceCell:
    """One slice and one gate as decided: the gate (its simultaneous interval), the cases behind
    it, the one-sided p-value of "this slice fails" and its adjusted value, and the status."""

    value: str
    gate: Gate
    cases: int  # cases contributing to the gate's rate in this slice
    status: str  # FAIL, OVER, PASS, FEW or NOT_EVALUABLE
    p_value: float | None = None
    adjusted_p: float | None = None

    @property
    def failing(self) -> bool:
        return self.status == FAIL


@dataclass(frozen=True)
class SliceDecision:
    column: str
    method: Method
    alpha: Fraction
    min_cases: int
    #: every slice's decision by the audit's decide (its gates carry the simultaneous intervals)
    decisions: dict[str, CalibrationDecision]
    #: (slice value, gate name) -> the cell, for every slice and each of the five gates
    cells: dict[tuple[str, str], SliceCell]
    #: gate name -> k: the slices with a verdict, the family the p-values are adjusted over
    family: dict[str, int]
    values: tuple[str, ...]
    n_cases: dict[str, int]

    @property
    def gates(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in RATE_GATES)

    def cell(self, value: str, gate: str) -> SliceCell:
        return self.cells[(value, gate)]

    @property
    def failing(self) -> tuple[SliceCell, ...]:
        """The confirmed failures, slice by slice in gate order."""
        return tuple(c for v in self.values for g in self.gates if (c := self.cells[(v, g)]).failing)

    @property
    def method_text(self) -> str:
        """What is used, in words (said wherever the slices are shown)."""
        pct = float(self.alpha) * 100
        return (f"multiplicity: {METHODS[self.method]} at {pct:g}% per gate over the slices with at least "
                f"{self.min_cases} cases for it; intervals: simultaneous {100 - pct:g}% (Bonferroni: "
                f"Clopper-Pearson, exact binomial, at the effective n, two-sided at {pct:g}%/k for k slices); "
                "p-values: one-sided exact binomial test of the slice failing the limit at the same effective n "
                "(case-clustered)")


def one_sided_p(kind: str, value: Fraction, limit: Fraction, n_eff: Fraction) -> float:
    """The one-sided p-value against "the slice's true rate is on the passing side of the limit"
    (small: the slice fails): the exact binomial test at the limit with ``n_eff`` effective
    observations and x = value * n_eff of them counted, the same beta tail the Clopper-Pearson
    interval inverts (so a confirmed failure and an interval clear of the limit agree):
    p = P(X >= x) = I_limit(x, n - x + 1) for a maximum, p = P(X <= x) = 1 - I_limit(x + 1, n - x)
    for a minimum, X ~ Binomial(n, limit) extended to fractional counts through the incomplete beta.
    A limit of 0 or 1 leaves no sampling variation at the limit: p is 0 when the value is on the
    failing side, 1 otherwise. (A normal score test here confirmed 11.8% of slices whose true rate
    sat on the limit at 12 cases, for a promised 5%.)

    2 flips in 12 cases against a 5% limit: P(X >= 2 | 12, 0.05) = 1 - 0.95^12 - 12 x 0.05 x 0.95^11;
    80 of 100 agreeing against an 85% minimum: P(X <= 80 | 100, 0.85).

    >>> round(one_sided_p("max", Fraction(2, 12), Fraction(1, 20), Fraction(12)), 4)
    0.1184
    >>> round(one_sided_p("min", Fraction(80, 100), Fraction(85, 100), Fraction(100)), 4)
    0.1065
    """
    sign = 1 if kind == "max" else -1
    if limit in (0, 1):
        return 0.0 if sign * (value - limit) > 0 else 1.0
    n, x, p0 = float(n_eff), float(value * n_eff), float(limit)
    if kind == "max":
        return 1.0 if x <= 0 else regularized_beta(x, n - x + 1, p0)
    return 1.0 if x >= n else 1.0 - regularized_beta(x + 1, n - x, p0)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979): the i-th smallest times (k - i + 1), made
    monotone and capped at 1; a hypothesis is rejected at level a when its adjusted p <= a.

    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    out = [0.0] * k
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p_values[i]))
        out[i] = running
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (1995): the i-th smallest times k / i, made monotone from
    the largest down and capped at 1.

    >>> [round(p, 4) for p in benjamini_hochberg([0.01, 0.04, 0.03, 0.005])]
    [0.02, 0.04, 0.04, 0.02]
    """
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i], reverse=True)
    out = [0.0] * k
    running = 1.0
    for j, i in enumerate(order):
        rank = k - j
        running = min(running, min(1.0, p_values[i] * k / rank))
        out[i] = running
    return out


def decide_slices(audit: SliceAudit, thresholds: CalibrationThresholds | None = None, *, method: Method = "holm",
                  alpha: Fraction = ALPHA, min_cases: int = MIN_SLICE_CASES) -> SliceDecision:
    """Every slice decided by the audit's ``decide`` (agreebound.judge.decide) with simultaneous
    intervals, and each failure confirmed or not by the adjusted p-values: the one place the slices'
    words are decided (the page and the report draw them)."""
    if method not in METHODS:
        raise ValueError(f"method is one of {', '.join(METHODS)}, not {method!r}")
    names = [name for name, _, _ in RATE_GATES]
    stats = {s.value: s.measurement.rate_stats() for s in audit.slices}

    def contributing(s: Slice, name: str) -> int:
        st = stats[s.value].get(name)
        return 0 if st is None else st.k

    def verdict_possible(s: Slice, name: str) -> bool:
        rate = getattr(s.measurement, name)
        return name not in s.measurement.unavailable and rate.denominator > 0 and contributing(s, name) >= min_cases

    family = {name: sum(verdict_possible(s, name) for s in audit.slices) for name in names}
    decisions: dict[str, CalibrationDecision] = {}
    simultaneous: dict[str, dict[str, RateInterval]] = {}
    for s in audit.slices:
        by_z: dict[float, dict[str, RateInterval]] = {}
        intervals: dict[str, RateInterval] = {}
        for name in names:
            z = simultaneous_z(family[name], alpha)
            if z not in by_z:
                by_z[z] = judge_rate_intervals(s.measurement, z, kind="clopper-pearson")
            if name in by_z[z]:
                intervals[name] = by_z[z][name]
        decisions[s.value] = decide(s.measurement, thresholds, intervals=intervals)
        simultaneous[s.value] = intervals
    cells: dict[tuple[str, str], SliceCell] = {}
    for name in names:
        tested: list[tuple[str, float]] = []
        for s in audit.slices:
            g = decisions[s.value].gate(name)
            k = contributing(s, name)
            if name in s.measurement.unavailable:
                cells[(s.value, name)] = SliceCell(s.value, g, k, NOT_EVALUABLE)
            elif not verdict_possible(s, name):
                cells[(s.value, name)] = SliceCell(s.value, g, k, FEW)
            else:
                # a gate with a verdict has opportunities: a value, and its interval's effective n
                p = one_sided_p(g.kind, Fraction(g.exact or 0), g.threshold, simultaneous[s.value][name].n_eff_exact)
                tested.append((s.value, p))
                cells[(s.value, name)] = SliceCell(s.value, g, k, PASS if g.passed else OVER, p)
        adjusted = (holm if method == "holm" else benjamini_hochberg)([p for _, p in tested])
        for (value, p), adj in zip(tested, adjusted):
            c = cells[(value, name)]
            confirmed = c.status == OVER and adj <= float(alpha)
            cells[(value, name)] = replace(c, adjusted_p=adj, status=FAIL if confirmed else c.status)
    return SliceDecision(audit.column, method, alpha, min_cases, decisions, cells, family,
                         tuple(s.value for s in audit.slices), {s.value: s.n_cases for s in audit.slices})


# --- words and JSON ----------------------------------------------------------------------------


def _pct(x: float | Fraction | None) -> str:
    return "-" if x is None else f"{float(x) * 100:.1f}"


def p_text(p: float | None) -> str:
    """A p-value as shown: "= 0.003", "< 0.001" (or "-" for none)."""
    if p is None:
        return "-"
    return f"= {p:.3f}" if p >= 0.0005 else "< 0.001"


def cell_text(c: SliceCell, method: Method = "holm") -> str:
    """A cell in words: its rate and simultaneous interval (percent), the limit, the adjusted p."""
    g = c.gate
    if c.status == NOT_EVALUABLE:
        return f"not evaluable: {g.detail}" if g.detail else "not evaluable"
    if c.status == FEW:
        return f"too few cases: {c.cases} contribute (a verdict needs {MIN_SLICE_CASES}); no verdict"
    which = "Holm" if method == "holm" else "BH"
    interval = "" if g.low is None else f" [{_pct(g.low)}, {_pct(g.high)}]"
    return f"{_pct(g.exact)}%{interval}, limit {_pct(g.threshold)}%; {which}-adjusted p {p_text(c.adjusted_p)}"


def failure_sentences(d: SliceDecision) -> tuple[str, ...]:
    """Which slices fail which gates, one sentence each ("pair-math-v1 fails position flip: 18.0%
    [11.2, 27.5], limit 5.0%; Holm-adjusted p = 0.003")."""
    def verb(value: str) -> str:  # without a contract nothing is decided: a limit's side, never a failure
        dv = d.decisions[value]
        if dv.contract_given:
            return "fails"
        return "is outside the " + ("illustrative" if dv.contract_origin == "illustrative" else "in-force") + " limit on"

    return tuple(f"{d.column} = {c.value} {verb(c.value)} {c.gate.name.replace('_', ' ')}: {cell_text(c, d.method)}"
                 for c in d.failing)


def slices_dict(d: SliceDecision) -> JSONObject:
    """The slices as the judge report's JSON holds them: the column, the method used, each slice's
    cases and each gate's cell (exact rate as a fraction, the simultaneous interval, the limit, the
    p-values and the status), and the confirmed failures in words."""
    def cell(c: SliceCell) -> JSONObject:
        g = c.gate
        return {"gate": g.name, "kind": g.kind, "status": c.status, "cases": c.cases,
                "exact": None if g.exact is None else str(g.exact),
                "value": None if g.exact is None else float(g.exact),
                "interval": None if g.low is None else [g.low, g.high],
                "threshold": str(g.threshold), "passed": g.passed,
                "p_value": c.p_value, "adjusted_p": c.adjusted_p, "detail": g.detail}

    return {"column": d.column, "method": d.method, "alpha": str(d.alpha), "min_cases": d.min_cases,
            "method_text": d.method_text, "family": dict(d.family),
            "slices": [{"value": v, "cases": d.n_cases[v], "decision": d.decisions[v].decision,
                        "gates": [cell(d.cell(v, g)) for g in d.gates]} for v in d.values],
            "failing": [{"value": c.value, "gate": c.gate.name} for c in d.failing],
            "sentences": list(failure_sentences(d))}


