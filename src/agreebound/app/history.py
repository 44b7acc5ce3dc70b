"""Runs over time, and two runs compared: pure functions over stored runs (agreebound.app.store.Run).

Everything here reads the reports the runs stored (exact fractions as text, the reasons each
decision gave); nothing is measured again and no threshold is compared here: the gates are read
back from each stored report into its view (agreebound.render.view.View.stored), as the decisions
stored them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from agreebound.core.gate import SEVERITY, Gate
from agreebound.render.gates import RATE_LABELS
from agreebound.render.view import View
from agreebound.core.thresholds import OPTIONAL_PANEL_FIELDS, THRESHOLD_WORDS, DriftThresholds
from agreebound.core.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    from agreebound.app.store import Run
    from agreebound.judge.drift import Drift, DriftDecision

Z95 = 1.959963984540054


def label(name: str) -> str:
    """A gate's name as history shows it."""
    if name in ("alpha", "spread", "admissibility"):
        return name
    return RATE_LABELS.get(name, name.replace("_", " "))


def unit(g: Gate) -> str:
    """"alpha" | "x" | "%": how history shows a gate's numbers (agreebound.app.history.show)."""
    return g.unit or "alpha"


def gates(run: Run) -> list[tuple[str, Gate]]:
    """Every gate of a run with its scope (a dimension's name, or "judge"), in the report's order:
    alpha and the spread of each dimension, or the judge's rates: the run's view read back from its
    stored report (agreebound.render.view.View.stored), as every renderer reads it."""
    return View.stored(run.report).gates()


def is_scored(run: Run) -> bool:
    """A graded or pass/fail judge's run (its report's kind "scored"; recorded as a judge run)."""
    return (run.report or {}).get("kind") == "scored"


def levels_read(run: Run) -> dict[str, str]:
    """dimension -> the level its alpha was read at, from a panel run's report (the level in
    force, never "auto"); {} for a judge run."""
    if run.kind != "panel" or not run.report:
        return {}
    out = {}
    for d in run.report.get("panel", {}).get("dimensions", []):
        level = (d.get("level") or {}).get("in_force") or d.get("alpha", {}).get("level")
        if level:
            out[d["dimension"]] = level
    return out


def show(value: Fraction | float | None, unit: str, state: str = "measured") -> str:
    if value is None:
        return state
    v = float(value)
    if unit == "%":
        return f"{v:.1%}"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "n":
        return f"{v:,.0f}"
    return f"{v:.3f}"


# --- timeline ----------------------------------------------------------------------------------


def scoped_gates(run: Run) -> list[tuple[str, Gate]]:
    """:func:`gates` with alpha's scope naming the level it was read at ("violence (nominal)"): alpha
    at another level is another quantity, its own line on a timeline and its own control band."""
    levels = levels_read(run)
    return [(f"{where} ({levels[where]})" if g.name == "alpha" and where in levels else where, g)
            for where, g in gates(run)]


def timeline(runs: Sequence[Run]) -> list[JSONObject]:
    """One row per (run, gate), oldest first: what a chart of runs over time draws."""
    rows = []
    for run in sorted(runs, key=lambda r: (r.created_utc, r.id)):
        for scope, g in scoped_gates(run):
            rows.append({"run": run.id, "time": run.created_utc, "data_name": run.data_name, "label": run.label or "",
                         "verdict": run.verdict, "scope": scope, "gate": g.name, "gate_label": label(g.name),
                         "value": None if g.value is None else float(g.value), "low": g.low, "high": g.high,
                         "threshold": None if g.threshold is None else float(g.threshold),
                         "passed": g.passed, "state": g.state, "unit": unit(g)})
    return rows


# --- comparison --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GateChange:
    scope: str
    name: str
    label: str
    unit: str
    before: Gate | None
    after: Gate | None
    flipped: bool  # passed before and failed after, or the reverse
    why: str  # for a flipped gate: what moved (the value, the threshold, or both)
    #: checked before (passed or failed), not any more (not measured, not evaluable, or absent): a
    #: gate quietly dropped is a regression for CI, whatever the verdict does
    lost: bool = False


@dataclass(frozen=True)
class VerdictChange:
    scope: str  # a dimension, "panel" (the file's overall verdict) or "judge"
    before: str | None  # None: not in that run
    after: str | None
    direction: str  # "worse", "better", "same"


@dataclass(frozen=True)
class AlphaShift:
    """Whether alpha moved by more than the two runs' 95% intervals allow: the difference against
    1.96 x sqrt(se_a^2 + se_b^2), each standard error read off its interval (half-width / 1.96)."""

    scope: str
    before: Fraction
    after: Fraction
    allowed: float | None  # None: an interval is missing
    beyond: bool | None
    same_data: bool
    reread: bool = False  # the same bytes read another way (level, mapping): no sampling involved

    @property
    def difference(self) -> Fraction:
        return self.after - self.before

    def sentence(self) -> str:
        d = float(self.difference)
        if self.same_data and self.difference == 0:
            return f"{self.scope}: alpha unchanged at {float(self.after):.3f} (the same data)."
        if self.reread:
            return (f"{self.scope}: alpha moved {d:+.3f} because the same data was read another way (see 'reading "
                    "changed'); no sampling is involved, so the intervals do not apply.")
        if self.allowed is None:
            return f"{self.scope}: alpha moved {d:+.3f}; no interval to judge it against."
        if self.beyond:
            return (f"{self.scope}: alpha moved {d:+.3f}, more than the intervals allow (+/-{self.allowed:.3f}): "
                    "a real change, not resampling noise.")
        return (f"{self.scope}: alpha moved {d:+.3f}, within what the intervals allow (+/-{self.allowed:.3f}): "
                "the runs do not show a real change.")


@dataclass(frozen=True)
class Comparison:
    a: Run
    b: Run
    causes: tuple[str, ...]  # what differs between the runs, in words
    verdicts: tuple[VerdictChange, ...]
    gates: tuple[GateChange, ...]
    alpha_shifts: tuple[AlphaShift, ...] = field(default=())
    #: a judge run's bias measures beside the gates, before and after (not gates: they decide nothing
    #: unless the contract gates on them, and then they are in ``gates`` too)
    measures: tuple[MeasureChange, ...] = field(default=())
    #: the fields of the judge's fingerprint that differ ("judge model: gpt-4 -> gpt-4o"): another
    #: instrument, whose verdicts are not comparable with the first one's
    judge_changes: tuple[str, ...] = field(default=())

    @property
    def regression(self) -> bool:
        """A verdict got worse, a dimension decided before is missing, a gate checked before is no
        longer checked, or the judge changed: CI fails on it."""
        return any(v.direction == "worse" for v in self.verdicts) or any(g.lost for g in self.gates) \
            or bool(self.judge_changes)

    @property
    def flipped(self) -> tuple[GateChange, ...]:
        return tuple(g for g in self.gates if g.flipped)

    def headline(self) -> str:
        worse = [v for v in self.verdicts if v.direction == "worse"]
        better = [v for v in self.verdicts if v.direction == "better"]
        lost = [g for g in self.gates if g.lost]
        if worse or lost or self.judge_changes:
            parts = ([f"the judge changed ({'; '.join(self.judge_changes)}): its verdicts are another instrument's"]
                     if self.judge_changes else []) + [_verdict_words(v) for v in worse] + [
                f"{g.scope} {g.label} no longer checked (was {show(g.before.value, g.unit, g.before.state)}, "
                f"{'passes' if g.before.passed else 'fails'}; now {g.after.state if g.after else 'absent'})"
                for g in lost if g.before is not None]
            head = "Regression: " + "; ".join(parts) + "."
        elif better:
            head = "Improved: " + "; ".join(_verdict_words(v) for v in better) + "."
        else:
            head = "No verdict changed."
        because = "; ".join(self.causes) if self.causes else "nothing differs between the runs but the time"
        return f"{head} Between the runs: {because}."

    def to_dict(self) -> JSONObject:
        def gate(g: Gate | None) -> JSONObject | None:
            if g is None:
                return None
            return {"value": None if g.exact is None else _exact(g.exact), "state": g.state,
                    "interval95": [g.low, g.high], "threshold": None if g.threshold is None else _exact(g.threshold),
                    "passed": g.passed}

        return {
            "a": _run_dict(self.a), "b": _run_dict(self.b), "regression": self.regression,
            "headline": self.headline(), "causes": list(self.causes),
            "verdicts": [{"scope": v.scope, "before": v.before, "after": v.after, "direction": v.direction}
                         for v in self.verdicts],
            "gates": [{"scope": g.scope, "gate": g.name, "before": gate(g.before), "after": gate(g.after),
                       "flipped": g.flipped, "lost": g.lost, "why": g.why} for g in self.gates],
            "alpha_shifts": [{"scope": s.scope, "before": _exact(s.before), "after": _exact(s.after),
                              "difference": _exact(s.difference), "allowed": s.allowed, "beyond": s.beyond,
                              "sentence": s.sentence()} for s in self.alpha_shifts],
            "measures": [{"name": m.name, "title": m.title, "before": m.before, "after": m.after,
                          "sentence": m.sentence()} for m in self.measures],
            "judge_changes": list(self.judge_changes),
        }


#: The measures beside the judge's gates that history's compare follows (agreebound.judge.bias).
FOLLOWED_MEASURES = ("first_slot", "mcnemar", "verbosity_net", "length_excess", "self_preference_net")


@dataclass(frozen=True)
class MeasureChange:
    """A judge measure beside the gates (bias or disagreement?) before and after, as stored."""

    name: str
    title: str
    before: JSONObject | None
    after: JSONObject | None

    @staticmethod
    def _said(m: JSONObject | None) -> str:
        if m is None:
            return "absent"
        if m.get("value") is None:
            return "not measured"
        scale_unit = " points" if m.get("kind") == "difference" else "%"
        text = f"{m['value'] * 100:.1f}{scale_unit}"
        iv = m.get("interval95")
        return text + (f" [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if iv else "")

    def sentence(self) -> str:
        return f"{self.title}: {self._said(self.before)} -> {self._said(self.after)}"


def _measures(a: Run, b: Run) -> tuple[MeasureChange, ...]:
    """The followed bias measures of two judge runs (reports without them: none)."""
    def stored(run: Run) -> dict[str, JSONObject]:
        bias = ((run.report or {}).get("calibration") or {}).get("bias") or {}
        return {m["name"]: m for group in ("position", "verbosity", "self_preference") for m in bias.get(group, [])}

    sa, sb = stored(a), stored(b)
    return tuple(MeasureChange(n, (sa.get(n) or sb.get(n) or {}).get("title", n), sa.get(n), sb.get(n))
                 for n in FOLLOWED_MEASURES if n in sa or n in sb)


class CompareError(ValueError):
    """Two runs that cannot be compared (a panel run and a judge run)."""


def compare(a: Run, b: Run) -> Comparison:
    """Run ``a`` (before) against run ``b`` (after)."""
    if a.kind != b.kind:
        raise CompareError(f"run {a.id} is a {a.kind} run and run {b.id} a {b.kind} run; compare runs of one kind")
    if is_scored(a) != is_scored(b):
        graded = a if is_scored(a) else b
        raise CompareError(f"run {graded.id} audits a graded or pass/fail judge and run {(b if graded is a else a).id} "
                           "a pairwise one; compare runs of one kind")
    causes = _causes(a, b)
    verdicts = _verdicts(a, b)
    ga = {(scope, g.name): g for scope, g in gates(a)}
    gb = {(scope, g.name): g for scope, g in gates(b)}
    keys = list(ga) + [k for k in gb if k not in ga]
    changes = []
    for k in keys:
        before, after = ga.get(k), gb.get(k)
        any_gate = before or after
        assert any_gate is not None
        flipped = before is not None and after is not None and before.passed is not None \
            and after.passed is not None and before.passed != after.passed
        # (a gate whose whole dimension is gone is said by the verdict change: "absent")
        lost = before is not None and before.passed is not None and after is not None and after.passed is None
        changes.append(GateChange(k[0], k[1], label(k[1]), unit(any_gate), before, after, flipped,
                                  _why(before, after, causes) if flipped else "", lost))
    shifts = []
    same_data = _data(a) == _data(b)
    for k in keys:
        before, after = ga.get(k), gb.get(k)
        if k[1] != "alpha" or before is None or after is None or before.exact is None or after.exact is None:
            continue
        allowed = None
        bl, bh, al, ah = before.low, before.high, after.low, after.high
        if bl is not None and bh is not None and al is not None and ah is not None:
            se_a = (bh - bl) / (2 * Z95)
            se_b = (ah - al) / (2 * Z95)
            allowed = Z95 * math.hypot(se_a, se_b)
        beyond = None if allowed is None else abs(float(after.exact - before.exact)) > allowed
        shifts.append(AlphaShift(k[0], before.exact, after.exact, allowed, beyond, same_data,
                                 same_data and any(c.startswith("reading changed") for c in causes)))
    measures = _measures(a, b) if a.kind == "judge" and not is_scored(a) else ()
    return Comparison(a, b, tuple(causes), tuple(verdicts), tuple(changes), tuple(shifts), measures,
                      judge_changes(a, b))


#: A fingerprint's judge fields as compare names them.
FINGERPRINT_WORDS = {"judge_model": "judge model", "prompt_template": "prompt template",
                     "rubric_digest": "rubric digest", "scale": "scale", "sampling": "sampling settings",
                     "harness": "harness", "harness_version": "harness version"}


def fingerprint(run: Run) -> JSONObject | None:
    """A judge run's fingerprint as its report stored it (None: a panel run, or a run recorded
    before fingerprints were)."""
    report = run.report or {}
    section = report.get("calibration") or report.get("scored") or {}
    fp = section.get("fingerprint") if isinstance(section, dict) else None
    return fp if isinstance(fp, dict) else None


def judge_changes(a: Run, b: Run) -> tuple[str, ...]:
    """The judge fields of two runs' fingerprints that differ, in words; a field one run's source
    does not hold (None) is not a change. Runs without fingerprints: none said."""
    fa, fb = fingerprint(a), fingerprint(b)
    if fa is None or fb is None:
        return ()
    cut = {"rubric_digest": 12}  # a digest is named by its first characters

    def changed(k: str) -> bool:
        x, y = fa.get(k), fb.get(k)
        if x is None or y is None or x == y:
            return False
        if k == "prompt_template":  # the templates the data holds: fewer questions hold fewer templates
            tx, ty = set(str(x).split(", ")), set(str(y).split(", "))
            return not (tx <= ty or ty <= tx)
        return True

    return tuple(f"{words}: {_short(str(fa[k])[:cut.get(k)])} -> {_short(str(fb[k])[:cut.get(k)])}"
                 for k, words in FINGERPRINT_WORDS.items() if changed(k))


def _data(run: Run) -> tuple[tuple[str, str], ...]:
    return tuple((i.role, i.sha256) for i in run.inputs if i.role not in ("mapping", "thresholds"))


def _causes(a: Run, b: Run) -> list[str]:
    out = []
    da, db = _data(a), _data(b)
    if da != db:
        roles = sorted({r for r, _ in set(da) ^ set(db)})
        out.append(f"data changed ({', '.join(roles)})")
    ea, eb = effective_thresholds(a), effective_thresholds(b)
    changed = [_threshold_change(k, ea.get(k), eb.get(k)) for k in sorted(set(ea) | set(eb), key=list({**ea, **eb}).index)
               if ea.get(k) != eb.get(k)]
    if changed:
        out.append("thresholds changed (" + "; ".join(changed) + ")")
    ca, cb = bound_contract(a), bound_contract(b)
    if ca != cb:
        out.append(f"contract changed ({_short(ca)} -> {_short(cb)})")
    ra, rb = _reading(a.recipe), _reading(b.recipe)
    read = [k for k in sorted(set(ra) | set(rb)) if ra.get(k) != rb.get(k)]
    if read:
        out.append("reading changed (" + ", ".join(_reading_change(k, ra.get(k), rb.get(k)) for k in read) + ")")
    if a.tool_version != b.tool_version:
        out.append(f"agreebound version changed ({a.tool_version} -> {b.tool_version})")
    if a.kind == "judge" and b.kind == "judge":
        missing = [r.id[:12] for r in (a, b) if fingerprint(r) is None]
        if missing:
            out.append(f"the judge's fingerprint is not recorded for run {' and '.join(missing)} (recorded before "
                       "fingerprints were): a changed judge cannot be seen")
    return out


def _reading(recipe: JSONObject) -> JSONObject:
    """A run's recipe as compared: the alpha interval by its current name ("krippendorff", as runs
    recorded before name it, is "pairs")."""
    from agreebound.panel.intervals import INTERVAL_METHODS

    out = dict(recipe)
    if isinstance(out.get("interval"), str):
        out["interval"] = INTERVAL_METHODS.get(out["interval"], out["interval"])
    return out


def effective_thresholds(run: Run) -> JSONObject:
    """The thresholds that decided the run, whatever their source: the panel's; for a judge, the
    edited ones, else the bound contract's own (so an edit that repeats the contract is no change)."""
    th = run.report.get("thresholds") or run.thresholds
    if run.kind == "panel":
        return dict(th.get("panel") or {})
    if is_scored(run):
        return dict(th.get("scored") or {})
    edited = th.get("calibration")
    contract = (run.report.get("calibration") or {}).get("contract") or {}
    from agreebound.core.thresholds import CALIBRATION_FIELDS

    out = {k: (edited or contract).get(k) for k in CALIBRATION_FIELDS}
    out["strict"] = bool(edited and edited.get("strict"))
    return out


def bound_contract(run: Run) -> str | None:
    """The content id of the contract the judge's snapshot is bound to (not a draft's)."""
    cal = run.report.get("calibration") or {}
    return (cal.get("contract") or {}).get("content_id") or run.contract_id


def _threshold_change(key: str, before: JSONValue, after: JSONValue) -> str:
    if key == "strict":
        return f"strict mode {'on' if after else 'off'}"
    word, fmt = THRESHOLD_WORDS.get(key, (key.replace("_", " "), str))
    # an optional panel gate absent is off; a judge threshold absent is the contract's own
    own = "off" if key in OPTIONAL_PANEL_FIELDS else "the contract's own"
    return f"{word} {fmt(before) if before is not None else own} -> {fmt(after) if after is not None else own}"


def _reading_change(key: str, a: object, b: object) -> str:
    """One part of a recipe that differs, said on one line. A mapping is stored as indented JSON
    text: its fields that differ are named, each as compact JSON (the whole text, cut at 60
    characters, showed its line breaks and hid the field that changed)."""
    da, db = _json_object(a), _json_object(b)
    if da is None or db is None:
        return f"{key}: {_short(a)} -> {_short(b)}"
    fields = [f for f in dict.fromkeys([*da, *db]) if da.get(f) != db.get(f)]
    return ", ".join(f"{key} {f}: {_short(_compact(da.get(f)))} -> {_short(_compact(db.get(f)))}" for f in fields)


def _json_object(x: object) -> dict[str, object] | None:
    if not isinstance(x, str):
        return None
    try:
        value = json.loads(x)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _compact(x: object) -> object:
    return None if x is None else json.dumps(x, separators=(",", ":"), ensure_ascii=False)


def _short(x: object) -> str:
    s = "none" if x is None else str(x)
    if "@sha256:" in s:
        s = s.split("@sha256:")[0] + "@" + s.split("@sha256:")[1][:12]
    return s if len(s) <= 60 else s[:57] + "..."


def _verdicts(a: Run, b: Run) -> list[VerdictChange]:
    def per_scope(run: Run) -> dict[str, str]:
        if run.kind == "panel":
            return {d["dimension"]: d["verdict"] for d in run.report["panel"]["dimensions"]}
        if is_scored(run):
            return {a["judge"]: a["decision"] for a in run.report["scored"]["audits"]}
        return {"judge": run.verdict}

    va, vb = per_scope(a), per_scope(b)
    out = []
    for scope in list(va) + [s for s in vb if s not in va]:
        before, after = va.get(scope), vb.get(scope)
        if before is None:
            direction = "better" if SEVERITY.get(after or "", 0) == 2 else "same"
        elif after is None:
            direction = "worse"  # decided before, not any more: a gate CI relied on is gone
        else:
            direction = ("worse" if SEVERITY[after] < SEVERITY[before] else
                         "better" if SEVERITY[after] > SEVERITY[before] else "same")
        out.append(VerdictChange(scope, before, after, direction))
    return out


def _why(before: Gate | None, after: Gate | None, causes: Sequence[str]) -> str:
    assert before is not None and after is not None
    shown = unit(before)
    moved_value = before.exact != after.exact or before.state != after.state
    moved_threshold = before.threshold != after.threshold
    parts = []
    if moved_value:
        what = "the data changed" if any(c.startswith("data changed") for c in causes) else \
            ("the reading changed" if any(c.startswith("reading changed") for c in causes) else "")
        parts.append(f"{label(before.name)} {show(before.exact, shown, before.state)} -> "
                     f"{show(after.exact, shown, after.state)}"
                     + (f" ({what})" if what else ""))
    if moved_threshold:
        src = "the contract changed" if any(c.startswith("contract changed") for c in causes) else "thresholds changed"
        parts.append(f"threshold {show(before.threshold, shown)} -> {show(after.threshold, shown)} ({src})")
    if not parts:
        parts.append("strict mode changed" if any("strict" in c for c in causes) else "the decision rule changed")
    state = "now passes" if after.passed else "now fails"
    return f"{state}: " + "; ".join(parts)


def _verdict_words(v: VerdictChange) -> str:
    return f"{v.scope} {v.before or 'absent'} -> {v.after or 'absent'}"


def _exact(x: Fraction) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _run_dict(run: Run) -> JSONObject:
    return {"id": run.id, "created_utc": run.created_utc, "data_name": run.data_name, "verdict": run.verdict,
            "label": run.label}


def anchor_drift_refusal(a: Run, b: Run) -> str | None:
    """None when two runs can be split on their anchor items (two judge logs); "" when they are not
    two judge runs (nothing to say); else why not, in words. Reads nothing but the runs' recipes."""
    if a.kind != "judge" or b.kind != "judge":
        return ""
    if a.recipe.get("source") not in ("log", "scored") or b.recipe.get("source") not in ("log", "scored"):
        return "no anchor drift: both runs must be judge logs (a bundle holds no candidate text)"
    return None


def measure_anchor_drift(a: Run, b: Run, inputs_a: Sequence[tuple[str, str, bytes]],
                         inputs_b: Sequence[tuple[str, str, bytes]]) -> tuple[Drift | None, str]:
    """Two judge runs' logs read again from their stored inputs (``store.inputs(run)``) and split into
    the judge's shift on the anchor items (same candidate text in both) and the systems' change
    (agreebound.judge.drift.measure_drift): (the measurement, "") or (None, why there is none).
    The expensive half; deciding it under a tolerance is :func:`anchor_drift`'s, and cheap."""
    from agreebound.core.errors import InputError
    from agreebound.io.drift_logs import check_same_kind, read_drift_run
    from agreebound.judge.drift import measure_drift

    refusal = anchor_drift_refusal(a, b)
    if refusal is not None:
        return None, refusal
    logs = [next(((name, data) for role, name, data in inputs if role == "bundle"), None) for inputs in (inputs_a, inputs_b)]
    if logs[0] is None or logs[1] is None:
        return None, "no anchor drift: a run's log is not stored"
    try:
        before = read_drift_run(*logs[0], judge=a.recipe.get("judge"))
        after = read_drift_run(*logs[1], judge=b.recipe.get("judge"))
        check_same_kind(before, after)
    except (InputError, ValueError) as e:
        return None, f"no anchor drift: {e}"
    return measure_drift(before.frame, after.frame, before.scale, None), ""


def anchor_drift(a: Run, b: Run, inputs_a: Sequence[tuple[str, str, bytes]], inputs_b: Sequence[tuple[str, str, bytes]],
                 tolerance: Fraction | None = None, win_rate_points: bool = True,
                 thresholds: DriftThresholds | None = None) -> tuple[DriftDecision | None, str]:
    """:func:`measure_anchor_drift`, decided (agreebound.judge.drift.decide_drift): (the decision,
    "") or (None, why there is none). ``tolerance`` as a user gives it (points for a win rate when
    ``win_rate_points``), exactly, over ``thresholds`` (threshold data: a file's or a link's drift
    table), over the default."""
    from agreebound.judge.drift import WIN_RATE, decide_drift

    measured, why = measure_anchor_drift(a, b, inputs_a, inputs_b)
    if measured is None:
        return None, why
    if tolerance is not None:
        scaled = tolerance / 100 if win_rate_points and measured.scale == WIN_RATE else tolerance
        thresholds = DriftThresholds.from_tolerance(scaled)
    return decide_drift(measured, thresholds), ""
