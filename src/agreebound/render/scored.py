"""A graded or pass/fail judge's report (agreebound.scored.audit) as data: the "scored" section of
the JSON report (schema: schemas/report.schema.json), which the Markdown, HTML, CLI and history read.

Exact values are fraction strings beside their floats (6 decimals); every gate is stored as its
decision gave it (agreebound.scored.decide.decide_scored), so history reads the gates back without
comparing anything (:func:`gates_from_section`).
"""

from __future__ import annotations

from dataclasses import asdict
from fractions import Fraction
from typing import TYPE_CHECKING, Mapping, Sequence

from agreebound.core.gate import NOT_EVALUABLE, Gate
from agreebound.core.planner import Plan
from agreebound.core.thresholds import CITATIONS
from agreebound.core.escape import md_code, md_text, plural, printable
from agreebound.core.json_types import JSONObject

# The judge and scored domains load where a judge's section is made, not with this module: a panel's
# report imports it for exact/rounded and the shared words, and a CI call on a panel never pays for
# them (issue 57).
if TYPE_CHECKING:
    from agreebound.judge.bias import Measure
    from agreebound.scored.one_judge import JudgeAgreement
    from agreebound.scored.decide import ScoredDecision
    from agreebound.scored.audit import ScoredMeasurement
    from agreebound.scored.confidence import Calibration
    from agreebound.scored.describe import JudgeScores, MeanScore
    from agreebound.scored.recalibrate import Recalibrated


def exact(x: Fraction | float | int | None) -> str | None:
    """An exact value as a report stores it: a fraction string ("3/5", "2"), or for a measure that
    takes a square root (a float) the float's repr to 12 decimals; None stays None."""
    if x is None:
        return None
    if isinstance(x, float):
        return repr(round(x, 12))
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def rounded(x: float | None) -> float | None:
    """A float as a report stores it: 6 decimals, so the same inputs give the same bytes."""
    return None if x is None else round(float(x), 6)


def measure_dict(m: Measure | None) -> JSONObject | None:
    """A measure as stored: its own ``to_dict`` (exact as a fraction string, or a float's repr)."""
    if m is None:
        return None
    d = m.to_dict()
    d["exact"] = exact(m.exact)
    d["value_text"] = m.value_text()
    d["interval_text"] = m.interval_text()
    d["items"] = m.cases
    return d


def gate_dict(g: Gate) -> JSONObject:
    from agreebound.scored.items import GATE_TITLES

    return {"name": g.name, "title": GATE_TITLES[g.name], "kind": g.kind, "exact": exact(g.exact),
            "value": rounded(g.value), "threshold": exact(g.threshold), "threshold_value": rounded(float(g.threshold)),
            "threshold_field": g.threshold_field, "threshold_source": g.threshold_source,
            "passed": g.passed, "evaluable": g.passed is not None, "state": g.state,
            "unavailable": g.detail or None, "fragile": g.fragile,
            "interval95": None if g.low is None else [rounded(g.low), rounded(g.high)],
            "interval_method": g.interval_method or None, "margin_words": g.margin_words,
            "plan": None if g.plan is None else g.plan.to_dict()}


def gates_from_section(judge: JSONObject) -> tuple[Gate, ...]:
    """A stored judge's gates as its decision gave them (history reads them back; nothing is compared)."""
    out = []
    for g in judge["gates"]:
        iv = g.get("interval95")
        out.append(Gate(g["name"], g["kind"], None if g["exact"] is None else Fraction(g["exact"]),
                        Fraction(g["threshold"]), g["passed"], g["passed"],
                        state=g["state"] if g["passed"] is not None else NOT_EVALUABLE,
                        low=None if iv is None else iv[0], high=None if iv is None else iv[1],
                        interval_method=g.get("interval_method") or "", fragile=bool(g.get("fragile")),
                        threshold_field=g["threshold_field"], threshold_source=g["threshold_source"],
                        detail=g.get("unavailable") or "", plan=Plan.from_dict(g.get("plan"))))
    return tuple(out)


def calibration_dict(c: Calibration | None) -> JSONObject | None:
    if c is None:
        return None
    return {"items": c.n, "split": c.split, "unit": c.unit, "left_out": c.left_out, "ece": rounded(c.ece),
            "brier": rounded(c.brier), "decomposed_by": c.decomposed_by, "within_bins": rounded(c.within),
            "decomposition": c.decomposition(),
            "brier_interval95": None if c.brier_interval is None else [rounded(v) for v in c.brier_interval],
            "reliability": rounded(c.reliability), "resolution": rounded(c.resolution), "uncertainty": rounded(c.uncertainty),
            "bins": [{"mean_p": rounded(b.mean_p), "frequency": rounded(b.frequency), "count": b.count,
                      "interval95": [rounded(b.low), rounded(b.high)]} for b in c.bins],
            "isotonic": {"fitted_on": c.n - c.held_out, "held_out": c.held_out,
                         "ece_before": rounded(c.ece_before), "ece_after": rounded(c.ece_after),
                         "brier_before": rounded(c.brier_before), "brier_after": rounded(c.brier_after),
                         "map": [[rounded(p), rounded(v)] for p, v in zip(*c.isotonic_map)], "applied": False},
            "sentence": c.sentence}


def judge_dict(a: JudgeAgreement, d: ScoredDecision) -> JSONObject:
    decision, gates, reason = d.per_judge[a.judge]
    values, counts = a.table
    return {"judge": a.judge, "decision": decision, "decision_reason": reason, "items": a.items, "pairs": a.pairs,
            "gates": [gate_dict(g) for g in gates],
            "alpha": {"judge_humans": measure_dict(a.judge_alpha), "humans": measure_dict(a.human_alpha),
                      "difference": measure_dict(a.difference),
                      "pairs": [{"a": p.a, "b": p.b, "items": p.items, "exact": exact(p.exact),
                                 "value": None if p.exact is None else rounded(float(p.exact))} for p in a.alphas]},
            "measures": [measure_dict(m) for m in a.measures],
            "confidence": calibration_dict(a.confidence),
            "table": {"values": [rounded(v) for v in values], "counts": [list(r) for r in counts],
                      "rows": "judge", "columns": "human"}}


def mean_dict(m: MeanScore, binary: bool = False) -> JSONObject:
    """A mean score as stored: exact (a fraction string), its float, its 95% interval and how it was drawn."""
    from agreebound.scored.describe import mean_text

    return {"items": m.items, "exact": exact(m.exact), "value": rounded(m.value),
            "interval95": None if m.low is None else [rounded(m.low), rounded(m.high)],
            "interval_method": m.method, "text": mean_text(m, binary)}


def scores_dict(j: JudgeScores) -> JSONObject:
    """One judge described by its own scores (agreebound.scored.describe): human labels not needed."""
    return {"judge": j.judge, "scores": j.scores, "binary": j.binary, "binned": j.binned,
            "distribution": [{"low": rounded(b.low), "high": rounded(b.high), "count": b.count} for b in j.buckets],
            "mean": mean_dict(j.mean, j.binary),
            "models": [{"model": name, **mean_dict(mm, j.binary)} for name, mm in j.models],
            "no_model": j.no_model, "sentence": j.sentence}


def scored_section(m: ScoredMeasurement, d: ScoredDecision) -> JSONObject:
    x = m.input
    panel = None
    if m.panel is not None:
        panel = {"alpha": exact(m.panel.alpha), "alpha_value": None if m.panel.alpha is None else rounded(float(m.panel.alpha)),
                 "without": {j: exact(v) for j, v in m.panel.without.items()},
                 "drop": m.panel.drop, "why": m.panel.why}
    return {"file": x.file, "shape": m.shape, "judge_kind": m.kind, "kind_words": m.kind_words,
            "level": {"in_force": m.level, "chosen_by": m.level_chosen_by},
            "identity": dict(sorted(m.identity.items())), "notes": list(m.notes),
            "labels": {str(k): v for k, v in sorted(m.labels.items())},
            "items": len(x.items), "judges": list(x.judges), "humans": list(x.humans),
            "scale": list(x.values),
            "decision": d.decision, "decided_for": d.judge or "every judge",
            "thresholds": asdict(d.thresholds), "threshold_source": d.source,
            "citations": {k: CITATIONS[k] for k in asdict(d.thresholds) if k in CITATIONS},
            "audits": [judge_dict(a, d) for a in m.agreements], "panel": panel,
            "described_only": m.described_only, "judge_scores": [scores_dict(j) for j in m.scores]}


# --- words every renderer shares (plain text: each renderer escapes user text its own way) ------------


def alpha_certainty(alpha: JSONObject, floor_permil: int) -> str:
    """How sure a panel's alpha is, for every text a person or a CI log reads: its 95% interval, and
    "fragile" where the interval holds the floor, with what would decide it.

    >>> a = {"defined": True, "exact": "113/152", "interval": {"low": 0.414625, "high": 1.0, "method": "units"},
    ...      "fragile": True, "plan": {"sentence": "about 78 more units would decide it, if alpha holds"}}
    >>> alpha_certainty(a, 600)
    'alpha 0.743, 95% interval [0.415, 1.000]: fragile, the interval holds the floor 0.600 (another sample of the same size could reach the other verdict); about 78 more units would decide it, if alpha holds'
    """
    if not alpha["defined"]:
        return "alpha undefined: no interval"
    value = f"alpha {float(Fraction(alpha['exact'])):.3f}"
    iv = alpha.get("interval") or {}
    if iv.get("low") is None:
        return f"{value}: no 95% interval ({iv.get('note') or 'not drawn'})"
    head = f"{value}, 95% interval [{iv['low']:.3f}, {iv['high']:.3f}]"
    floor = f"the floor {floor_permil / 1000:.3f}"
    if not alpha.get("fragile"):  # as decided: the interval lies on the verdict's side of the floor
        return f"{head}: the whole interval lies on one side of {floor} (not fragile)"
    plan = (alpha.get("plan") or {}).get("sentence") or ""
    return (f"{head}: fragile, the interval holds {floor} (another sample of the same size could reach the other "
            f"verdict)" + (f"; {plan}" if plan else ""))


def plan_text(plan: JSONObject | None, scale: str = "share") -> str | None:
    """A stored plan in words: what the audit can detect at its size, and for a fragile gate how many
    more cases (units) would decide it. ``scale``: "share" (a judge rate or net measure, in points)
    or "alpha" (a number). None without a plan. (Here, not in render.report, so that this module's
    Markdown can say it without importing render.report, which imports this module.)

    >>> plan_text({"mdd": 0.06, "design_effect": 5.25, "size": 240, "more": None, "decidable": True,
    ...            "unit": "cases", "sentence": "", "method": ""})
    'detects a true value 6.0 points from the threshold at 240 cases (80% power; design effect 5.25)'
    """
    if not plan:
        return None
    unit = plan["unit"][:-1] if plan["size"] == 1 and plan["unit"].endswith("s") else plan["unit"]
    if plan.get("mdd") is None:
        head = f"no difference a true value can have is detectable at {plan['size']:,} {unit}"
    else:
        gap = f"{plan['mdd'] * 100:.1f} points" if scale == "share" else f"{plan['mdd']:.3f}"
        deff = "" if plan.get("design_effect") is None else f"; design effect {plan['design_effect']:.3g}"
        at = (f"{plan['size']:,} {unit}" if plan.get("audit_cases") is None
              else f"its {plan['size']:,} eligible {unit} of the audit's {plan['audit_cases']:,}")
        head = f"detects a true value {gap} from the threshold at {at} (80% power{deff})"
    return head + (f"; {plan['sentence']}" if plan.get("sentence") else "")


def level_words(section: JSONObject) -> str:
    """"ordinal, the default for a graded scale" or "interval, chosen by the user"."""
    lv = section["level"]
    if lv["chosen_by"] == "user":
        return f"{lv['in_force']}, chosen by the user"
    scale = "pass/fail verdict" if section["judge_kind"] == "binary" else "graded scale"
    return f"{lv['in_force']}, the default for a {scale}"


def decided_for_words(section: JSONObject) -> str:
    """Whose decision it is (plain text; a judge's name is user text: the caller escapes it whole)."""
    if section["decided_for"] == "every judge":
        many = len(section["judges"]) > 1
        return "every judge (the worst judge's decision decides)" if many else "every judge (the log's one judge)"
    return f"the judge {section['decided_for']}"


#: After the decision when the log has no human labels (plain text).
DESCRIBED_ONLY = ("no human labels were given, so nothing about agreement is decided; the judge's own scores are "
                  "described")


def decision_words(section: JSONObject) -> str:
    """"INCOMPLETE for every judge (the log's one judge)", and without human labels why nothing is
    decided (plain text; a judge's name is user text: the caller escapes it whole)."""
    head = f"{section['decision']} for {decided_for_words(section)}"
    return f"{head}: {DESCRIBED_ONLY}" if section.get("described_only") else head


def judge_scores_of(section: JSONObject, judge: str) -> JSONObject | None:
    """The judge's description (agreebound.scored.describe) in a stored section; None in an older report."""
    return next((j for j in section.get("judge_scores", []) if j["judge"] == judge), None)


def judge_counts(audit: JSONObject, section: JSONObject) -> str:
    """"6 items, 6 judge-human pairs"; without human labels the scores read ("7 scores read, no
    human labels"), never "0 items"."""
    if section.get("described_only"):
        j = judge_scores_of(section, audit["judge"])
        n = 0 if j is None else j["scores"]
        return f"{n:,} score{'' if n == 1 else 's'} read, no human labels"
    return f"{plural(audit['items'], 'item')}, {plural(audit['pairs'], 'judge-human pair')}"


def bucket_label(b: JSONObject, binned: bool, labels: dict[str, str]) -> str:
    """A scale value as read ("7", "1 (C)"), or a bin ("[2.5, 3)", the last one closed)."""
    if not binned:
        return value_label(b["low"], labels)
    return f"[{b['low']:g}, {b['high']:g})"


def distribution_rows(j: JSONObject, labels: dict[str, str]) -> list[list[str]]:
    """The judge's scores over the scale: score (or bin), count, share of its scores."""
    rows = [[bucket_label(b, j["binned"], labels), f"{b['count']:,}", f"{100 * b['count'] / j['scores']:.1f}%"]
            for b in j["distribution"]]
    if j["binned"] and rows:
        rows[-1][0] = rows[-1][0][:-1] + "]"
    return rows


def model_rows(j: JSONObject) -> list[list[str]]:
    """Each model's mean judge score: model, items, mean, 95% interval (highest mean first)."""
    return [[m["model"], f"{m['items']:,}", _mean_value(m, j["binary"]), _mean_interval(m, j["binary"])]
            for m in j["models"]]


def _mean_value(m: JSONObject, binary: bool) -> str:
    return f"{m['value'] * 100:.1f}%" if binary else f"{m['value']:.2f}"


def _mean_interval(m: JSONObject, binary: bool) -> str:
    iv = m.get("interval95")
    if not iv:
        return "-"
    return f"[{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if binary else f"[{iv[0]:.2f}, {iv[1]:.2f}]"


def scores_caption(j: JSONObject) -> str:
    """How the means' intervals were drawn, and the scores on items without a model (plain text)."""
    what = "pass rate" if j["binary"] else "mean judge score"
    method = ("Wilson's, one verdict per item" if j["binary"] else
              "Student's t over the items (n - 1 degrees of freedom), each item one cluster")
    out = f"Each model's {what} over its items; 95% intervals: {method}"
    if any("cut to the scale" in m["interval_method"] for m in [j["mean"], *j["models"]]):
        out += " (cut to the scale's ends where it passes them)"
    if j["no_model"]:
        out += f"; {j['no_model']:,} score{'' if j['no_model'] == 1 else 's'} on items the log names no model for"
    return out + "."


def scores_text(section: JSONObject) -> list[str]:
    """The judges' own scores for the command line, user text made printable (agreebound.core.escape)."""
    if not section.get("judge_scores"):
        return []
    out = ["the judge's own scores (no human labels needed):"]
    for j in section["judge_scores"]:
        out.append(f"  {printable(j['judge'], 80)}: {printable(j['sentence'], 200)}")
        dist = ", ".join(f"{printable(v, 40)}: {n}" for v, n, _ in distribution_rows(j, section["labels"]))
        out.append(f"    count per {'bin' if j['binned'] else 'score'}: {dist}")
        for model, items, mean, interval in model_rows(j):
            out.append(f"    {printable(model, 80)}: {mean}" + ("" if interval == "-" else f" {interval}")
                       + f" over {items} item{'' if items == '1' else 's'}")
        out.append(f"    {printable(scores_caption(j), 400)}")
    return out


def gate_value(g: JSONObject) -> str:
    """A gate's measured value on alpha's scale, or "not measured"."""
    return "not measured" if g["value"] is None else f"{g['value']:.3f}"


def gate_interval(g: JSONObject) -> str:
    iv = g.get("interval95")
    return "-" if not iv else f"[{iv[0]:.3f}, {iv[1]:.3f}]"


def gate_threshold(g: JSONObject) -> str:
    """">= -0.050" with the threshold's own field in permil (what a thresholds file sets)."""
    permil = round(abs(g["threshold_value"]) * 1000)
    return f">= {g['threshold_value']:.3f} ({g['threshold_field']} {permil})"


def gate_result(g: JSONObject) -> str:
    """"pass (0.056 to spare)", "FAIL (0.054 short)" or "not evaluable: <why>"; never a colour alone."""
    if not g["evaluable"]:
        return f"not evaluable: {g.get('unavailable') or 'no value'}"
    word = "pass" if g["passed"] else "FAIL"
    return f"{word} ({g['margin_words']})" if g.get("margin_words") else word


def gate_notes(g: JSONObject) -> list[str]:
    """What a gate's result rests on: fragile, and the plan (how many items would decide it)."""
    out = []
    if g.get("fragile"):
        out.append("fragile: the 95% interval holds values on both sides of the threshold")
    plan = g.get("plan")
    if g["evaluable"] and plan:  # a graded judge's plan counts its items
        out.append(str(plan_text(plan, "alpha")))
    return out


def alpha_rows(audit: JSONObject) -> list[list[str]]:
    """The gates' alphas: what, value, 95% interval, over what (each pair's alpha in ``pair_rows``)."""
    a = audit["alpha"]
    rows = []
    for key in ("judge_humans", "humans", "difference"):
        m = a.get(key)
        if m is None:
            what = {"humans": "humans vs humans: alpha", "difference": "judge's alpha minus the humans' alpha"}
            rows.append([what[key], "not measured", "-", "needs two or more humans on shared items"])
            continue
        rows.append([m["title"], m["value_text"], m["interval_text"] or "-", m.get("unavailable") or m["fraction"]])
    return rows


def pair_rows(audit: JSONObject) -> list[list[str]]:
    """Each pair of raters (judge-human first, then human-human): a, b, items both rated, alpha."""
    return [[p["a"], p["b"], f"{p['items']:,}", "undefined" if p["value"] is None else f"{p['value']:.3f}"]
            for p in audit["alpha"]["pairs"]]


def measure_rows(audit: JSONObject) -> list[list[str]]:
    """The measures beside the gates: title, value, 95% interval, exact (a fraction), method, definition
    or why not measured."""
    return [[m["title"], m["value_text"], m["interval_text"] or "-", m["fraction"] or "-",
             m["interval_method"] or "-", m.get("unavailable") or m["definition"]] for m in audit["measures"]]


def confidence_lines(c: JSONObject) -> list[str]:
    """Stated confidence against the humans: ECE, Brier and its decomposition, the isotonic map's
    before/after on the held-out half (shown, not applied)."""
    iso = c["isotonic"]
    brier_iv = c.get("brier_interval95")
    unit = c.get("unit", "items")
    left = f"; {c['split']:,} {unit} {c.get('left_out', 'the humans split evenly')} left out" if c.get("split") else ""
    lines = [f"ECE {c['ece']:.3f} over {c['items']:,} {unit}, against the humans' verdict ({len(c['bins'])} "
             f"equal-mass bins{left})",
             f"Brier {c['brier']:.3f}" + (f" [{brier_iv[0]:.3f}, {brier_iv[1]:.3f}]" if brier_iv else "")
             + f" = {c['decomposition']}",
             f"isotonic recalibration fitted on {iso['fitted_on']:,} {unit} and evaluated on the other {iso['held_out']:,}: "
             f"ECE {iso['ece_before']:.3f} -> {iso['ece_after']:.3f}, Brier {iso['brier_before']:.3f} -> "
             f"{iso['brier_after']:.3f} (shown, not applied: the verdicts are audited as the judge gave them)"]
    return lines


def bin_rows(c: JSONObject) -> list[list[str]]:
    """The reliability diagram's bins: mean stated probability, observed frequency, its Wilson 95%
    interval, size."""
    return [[f"{b['mean_p']:.3f}", f"{b['frequency']:.3f}", f"[{b['interval95'][0]:.3f}, {b['interval95'][1]:.3f}]",
             f"{b['count']:,}"] for b in c["bins"]]


def value_label(v: float, labels: dict[str, str]) -> str:
    """A scale value as read ("3"), with how the log wrote it ("1 (C)")."""
    text = f"{v:g}"
    written = labels.get(str(float(v)))
    return f"{text} ({written})" if written else text


def panel_alpha(panel: JSONObject) -> str:
    """The judges' alpha among themselves: "0.614 (= 1576063373/2567210400)" or "undefined"."""
    if panel["alpha_value"] is None:
        return "undefined"
    return f"{panel['alpha_value']:.3f} (= {panel['alpha']})"


def panel_rows(panel: JSONObject) -> list[list[str]]:
    """Each judge left out in turn (three judges or more): the judge, the others' alpha."""
    return [[j, "undefined" if v is None else f"{float(Fraction(v)):.3f}"] for j, v in panel["without"].items()]


# --- Markdown -------------------------------------------------------------------------------------------


def _row(cells: Sequence[str], user: Sequence[int] = ()) -> str:
    """A table row: the cells at ``user`` positions hold user text (names, files), escaped whole; the
    others are numbers and the tool's own words, where only a pipe could break the table."""
    return "| " + " | ".join(md_text(c, 400) if i in user and c != "-" else c.replace("|", "\\|")
                             for i, c in enumerate(cells)) + " |"


def _decided_for(s: JSONObject) -> str:
    return decided_for_words(s) if s["decided_for"] == "every judge" else f"the judge {md_code(s['decided_for'], 120)}"


def scored_markdown(report: JSONObject) -> list[str]:
    """A graded or pass/fail judge's report as Markdown lines: the decision and for whom, what was
    read, the thresholds, each judge's gates and measures, the panel of judges."""
    s = report["scored"]
    tail = f": {DESCRIBED_ONLY}" if s.get("described_only") else ""
    lines = [f"**Decision: {s['decision']}** for {_decided_for(s)}{tail}.", "",
             f"Judge: {s['kind_words']}. Level: {level_words(s)} (alpha and weighted kappa at this level).",
             "", f"Read as {md_text(s['shape'])}: {md_code(s['file'])}, {plural(s['items'], 'item')}; judges: "
             + ", ".join(md_text(j, 80) for j in s["judges"]) + "; humans: "
             + (", ".join(md_text(h, 80) for h in s["humans"]) or "none") + ".", ""]
    if s["identity"]:
        lines += ["Identity:", ""] + [f"- {md_text(k, 60)}: {md_code(v, 300)}" for k, v in s["identity"].items()] + [""]
    if s["labels"]:
        lines += ["Scores as written: " + ", ".join(md_text(value_label(float(k), s["labels"]), 80)
                                                     for k in s["labels"]) + ".", ""]
    if s["notes"]:
        lines += ["Notes:", ""] + [f"- {md_text(n, 600)}" for n in s["notes"]] + [""]
    lines += [f"Thresholds ({md_text(s['threshold_source'])}):", ""]
    lines += [f"- {k} = {v}: {s['citations'][k]}" for k, v in s["thresholds"].items() if k in s["citations"]]
    if s["thresholds"].get("strict"):
        lines.append("- strict: a gate passes only when its 95% interval's lower bound passes too")
    lines += _scores_markdown(s)
    for a in s["audits"]:
        lines += _judge_markdown(a, s)
    if s["panel"]:
        p = s["panel"]
        lines += ["", "## The panel of judges", "", f"Alpha among the judges: {panel_alpha(p)}."]
        if p["without"]:
            lines += ["", "| judge left out | alpha of the others |", "|---|---|"] + [_row(r, (0,)) for r in panel_rows(p)]
        drop = f"drop {md_code(p['drop'], 120)}: {p['why']}" if p["drop"] else f"drop none: {p['why']}"
        lines += ["", f"Which judge to drop: {drop}."]
    if s.get("recalibration") is not None:
        lines += ["", "## The judge's scores on the humans' scale (beside the decision, not part of it)", ""]
        lines += [f"- {md_text(t.strip(), 1000)}" for t in recalibration_text(s["recalibration"])]
    return lines


def _scores_markdown(s: JSONObject) -> list[str]:
    """Each judge's own scores: the count, the spread over the scale, each model's mean."""
    if not s.get("judge_scores"):
        return []
    lines = ["", "## The judge's own scores (no human labels needed)"]
    for j in s["judge_scores"]:
        lines += ["", f"### {md_code(j['judge'], 120)}: {j['sentence']}", "",
                  f"| {'bin' if j['binned'] else 'score'} | count | share |", "|---|---|---|"]
        lines += [_row(r, (0,)) for r in distribution_rows(j, s["labels"])]
        if j["models"]:
            what = "pass rate" if j["binary"] else "mean judge score"
            lines += ["", f"| model | items | {what} | 95% interval |", "|---|---|---|---|"]
            lines += [_row(r, (0,)) for r in model_rows(j)]
        lines += ["", scores_caption(j)]
    return lines


def _judge_markdown(a: JSONObject, s: JSONObject) -> list[str]:
    """One judge: its decision, gates, alphas, measures, score table and stated confidence."""
    counted = (f"{judge_counts(a, s)}." if s.get("described_only") else
               f"{plural(a['items'], 'item')} with the judge's score and a human's; {plural(a['pairs'], 'judge-human pair')}.")
    lines = ["", f"## Judge {md_code(a['judge'], 120)}: {a['decision']}", "", counted]
    if a["decision_reason"]:
        lines += ["", f"Not decided, this is not a pass: {a['decision_reason']}."]
    lines += ["", "| gate | value | 95% interval | threshold | result |", "|---|---|---|---|---|"]
    lines += [_row([g["title"], gate_value(g), gate_interval(g), gate_threshold(g), gate_result(g)])
              for g in a["gates"]]
    notes = [f"- {g['name']}: {n}" for g in a["gates"] for n in gate_notes(g)]
    lines += ([""] + notes) if notes else []
    lines += ["", "### Alpha: the judge against the humans, the humans against each other", "",
              "| alpha | value | 95% interval | over |", "|---|---|---|---|"]
    lines += [_row(r, (3,)) for r in alpha_rows(a)]
    lines += ["", "| rater | rater | items both rated | alpha |", "|---|---|---|---|"]
    lines += [_row(r, (0, 1)) for r in pair_rows(a)]
    lines += ["", "### Measures beside the gates (they do not decide)", "",
              "| measure | value | 95% interval | exact | method | definition |", "|---|---|---|---|---|---|"]
    lines += [_row(r, (3,)) for r in measure_rows(a)]
    lines += _table_markdown(a["table"], s["labels"])
    if a["confidence"]:
        c = a["confidence"]
        lines += ["", "### Stated confidence against the humans", ""] + [f"- {x}" for x in confidence_lines(c)]
        lines += ["", "| mean stated probability | observed frequency | 95% interval (Wilson) | pairs |",
                  "|---|---|---|---|"] + [_row(r) for r in bin_rows(c)]
    return lines


#: The judge x human score table is written out in Markdown for scales of at most this many values.
TABLE_VALUES = 12


def _table_markdown(table: JSONObject, labels: dict[str, str]) -> list[str]:
    values = table["values"]
    if not values or len(values) > TABLE_VALUES:
        return []
    head = [md_text(value_label(v, labels), 40) for v in values]
    lines = ["", "### Judge score (rows) against human score (columns), judge-human pairs", "",
             "| judge \\\\ human | " + " | ".join(head) + " |", "|---" * (len(values) + 1) + "|"]
    lines += [f"| {h} | " + " | ".join(f"**{n:,}**" if i == j else f"{n:,}" for j, n in enumerate(row)) + " |"
              for i, (h, row) in enumerate(zip(head, table["counts"]))]
    return lines


def fingerprint_text(fp: JSONObject | None) -> str:
    """A run's judge fingerprint in one line of plain text (a caller escapes): what a later run is
    compared against ("judge gpt-4; template pair-v2; ...; data sha256 0123456789ab").

    >>> fingerprint_text({"judge_model": "gpt-4", "prompt_template": "pair-v2", "rubric_digest": None,
    ...     "scale": "pairwise: a, b or tie", "sampling": {"temperature": "0"}, "harness": "mt-bench judgments",
    ...     "harness_version": None, "contract_content_id": None, "data_digest": "ab" * 32})
    'judge gpt-4; template pair-v2; rubric not given; scale pairwise: a, b or tie; sampling temperature 0; harness mt-bench judgments; data sha256 abababababab'
    """
    if not fp:
        return ""
    sampling = "; ".join(f"{k} {v}" for k, v in (fp.get("sampling") or {}).items())
    parts = [f"judge {fp.get('judge_model') or 'not named'}",
             f"template {fp.get('prompt_template') or 'not named'}",
             f"rubric {str(fp['rubric_digest'])[:12] if fp.get('rubric_digest') else 'not given'}",
             f"scale {fp.get('scale')}", f"sampling {sampling}" if sampling else "",
             f"harness {fp.get('harness')}" + (f" {fp['harness_version']}" if fp.get("harness_version") else ""),
             f"data sha256 {str(fp.get('data_digest'))[:12]}"]
    return "; ".join(p for p in parts if p)


def slice_lines(slices: list[JSONObject] | None) -> list[str]:
    """Each slice column's outcome in plain text (a caller escapes): which slices fail which gates,
    or that none does, with the multiplicity control named."""
    out = []
    for s in slices or []:
        values = ", ".join(f"{v['value']} ({v['cases']:,} cases)" for v in s["slices"])
        out.append(f"by {s['column']}: {values}; {s['method_text']}")
        cells = [g for v in s["slices"] for g in v.get("gates", [])]
        if cells and all(g["status"] == NOT_EVALUABLE for g in cells):  # the log cannot measure any gate at all
            out.append(f"  no gate is measurable on this log (each is not evaluable, above), in any slice of "
                       f"{s['column']}: nothing is decided by slice")
        elif not any(s.get("family", {}).values()):  # no slice has enough cases for any gate's verdict
            out.append(f"  no slice of {s['column']} has the {s['min_cases']} cases a verdict needs on any gate: "
                       "nothing is decided by slice")
        else:
            out += [f"  {x}" for x in s["sentences"]] or [f"  no slice of {s['column']} is a confirmed failure of "
                                                          "a gate it has a verdict on"]
    return out



# --- a graded judge mapped to the humans' scale (calibrate --recalibrate) ------------------------------


def recalibration_section(recalibrations: Mapping[str, Recalibrated | str], source: str) -> list[JSONObject]:
    """Each judge's recalibration (agreebound.scored.recalibrate) for the JSON report: the map, the
    out-of-sample errors before and after with their intervals, and the raw and the mapped judge's
    decisions (already made: agreebound.scored.recalibrate.decide_recalibration); or why not."""
    out: list[JSONObject] = []
    for judge, r in recalibrations.items():
        if isinstance(r, str):
            out.append({"judge": judge, "mapped": False, "why_not": r})
            continue
        rec, before, after = r

        def decided(d: ScoredDecision) -> JSONObject:
            decision, gates, reason = d.per_judge[judge]
            return {"decision": decision, "decision_reason": reason, "gates": [gate_dict(g) for g in gates]}

        out.append({
            "judge": judge, "mapped": True, "why_not": None, "items": rec.items, "folds": rec.folds, "seed": rec.seed,
            "rounded": rec.rounded, "map": rec.to_json(), "sentence": rec.sentence,
            "interval_method": rec.interval_method,
            "errors": [{"name": e.name, "before": rounded(e.before), "after": rounded(e.after),
                        "change": rounded(e.change),
                        "before_interval": [rounded(x) for x in e.before_interval],
                        "after_interval": [rounded(x) for x in e.after_interval],
                        "change_interval": [rounded(x) for x in e.change_interval],
                        "interval_is_95": e.name == "mean absolute error"} for e in (rec.mae, rec.ce)],
            "before": decided(before), "after": decided(after),
            "threshold_source": source})
    return out


def recalibration_text(section: list[JSONObject]) -> list[str]:
    """The lines every text reader gets (CLI, Markdown list items): per judge, the map's effect and
    what the mapped judge would be decided."""
    lines = []
    for r in section:
        if not r["mapped"]:
            lines.append(f"{printable(r['judge'], 60)}: not recalibrated: {printable(r['why_not'], 300)}")
            continue
        lines.append(printable(r["sentence"], 600))
        for e in r["errors"]:
            iv = e["change_interval"]
            what = "95% interval" if e["interval_is_95"] else "rough range (not a 95% interval)"
            lines.append(f"  {e['name']}: {e['before']:.3f} -> {e['after']:.3f}, change {e['change']:+.3f} "
                         f"({what} {iv[0]:+.3f} to {iv[1]:+.3f})")
        b, a = r["before"], r["after"]
        lines.append(f"  decision: raw scores {b['decision']}; mapped scores {a['decision']}"
                     + ("" if a["decision_reason"] is None else f" ({printable(a['decision_reason'], 300)})"))
        lines.append("  the map (score -> mapped): " + ", ".join(f"{p['score']:g} -> {p['mapped']:.3f}"
                                                                  for p in r["map"]["breakpoints"]))
    return lines
