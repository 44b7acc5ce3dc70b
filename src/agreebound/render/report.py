"""Reports: the same verdicts as the dashboard, as JSON (schema: schemas/report.schema.json) and
Markdown. Every number is exact (a fraction string) beside its permil/bps integer; every input is
named with its SHA-256; the thresholds carry their source. The same inputs give byte-identical
JSON: no clocks, sorted keys, seeded resampling.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from agreebound.version import __version__
from agreebound.panel.measure import PanelMeasurement, decide_panel, level_note, level_verdicts
from agreebound.judge.calibration import CalibrationDecision, decide, seed_view, unavailable
from agreebound.judge.bias import verdict_notes
from agreebound.core.escape import md_code, md_text
from agreebound.core.gate import SEVERITY, Gate
from agreebound.core.gate import worst as most_severe
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, level_phrase
from agreebound.scored.audit import ScoredMeasurement, decide_scored
# plan_text lives beside the scored Markdown (which cannot import this module); said here as always
from agreebound.render.scored import (  # noqa: F401 - plan_text and exact re-exported
    calibration_dict,
    confidence_lines,
    exact,
    plan_text,
    rounded,
    scored_markdown,
    scored_section,
)
from agreebound.core.limits import DETAIL_DIMENSIONS, LISTED_CATEGORIES
from agreebound.panel.seed import AB_UNDEFINED
from agreebound.panel.decide import PanelDecision
from agreebound.core.escape import LONE_SURROGATE, utf8_safe_tree
from agreebound.core.thresholds import ThresholdSet

#: The report schema's ``$id`` and every report's ``$schema``: versioned with the schema (v1), not
#: with the package; ``agreebound schema`` prints the schema the package ships (schemas/ in a checkout).
SCHEMA_ID = "urn:agreebound:schema:report:v1"
#: A verdict's exit code is its severity read downwards (agreebound.core.gate.SEVERITY, the one table):
#: 0 licenses action, 1 does not (INCOMPLETE, a partial judge audit, is never a pass), 2 is refused.
EXIT_CODES = {verdict: 2 - severity for verdict, severity in SEVERITY.items()}

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle


def plan_dict(g: Gate) -> dict[str, Any] | None:
    """A gate's plan as stored (agreebound.core.planner.Plan.to_dict); None when it has none."""
    return None if g.plan is None else g.plan.to_dict()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _thresholds(t: ThresholdSet) -> dict[str, Any]:
    return {"source": t.source, "panel": asdict(t.panel),
            "calibration": None if t.calibration is None else t.calibration.to_dict()}


def rows_read(imported: Any) -> dict[str, Any]:
    """The data rows a rating file gave: how many, what a row is, and the first and last."""
    span = imported.row_span
    return {"count": imported.rows_read, "label": imported.row_label, "sources": imported.source_rows,
            "first": span[0] if span else None, "last": span[1] if span else None}


def rows_read_text(rows: dict[str, Any]) -> str:
    """``100 rows read (rows 2-101)``, or ``41 rows read from 12 tasks (tasks 1-12)`` where a
    source row gives several: said wherever a file's reading is."""
    label = rows["label"]
    n, sources = rows["count"], rows.get("sources", rows["count"])
    text = f"{n:,} {label}{'' if n == 1 else 's'} read" if sources == n else \
        f"{n:,} rows read from {sources:,} {label}{'' if sources == 1 else 's'}"
    if rows.get("first") is not None:
        text += f" ({label}s {rows['first']}-{rows['last']})" if rows["last"] != rows["first"] else f" ({label} {rows['first']})"
    return text


def _base(kind: str, inputs: Sequence[tuple[str, bytes | str]], t: ThresholdSet) -> dict[str, Any]:
    return {
        "$schema": SCHEMA_ID,
        "tool": {"name": "agreebound", "version": __version__},
        "kind": kind,
        "inputs": [{"file": name, "sha256": data if isinstance(data, str) else sha256(data)} for name, data in inputs],
        "thresholds": _thresholds(t),
    }


def seed_path_text(m: PanelMeasurement, d: PanelDecision) -> str:
    """What the specification's integer formula computed, in words (always a nominal alpha)."""
    alpha = "undefined" if d.seed_alpha_permil == AB_UNDEFINED else f"{d.seed_alpha_permil} permil"
    level = "" if m.level == "nominal" else f", a nominal alpha where this panel is read at the {m.level} level"
    return f"alpha {alpha} on this matrix{level}"


def category_flags(m: PanelMeasurement) -> list[str]:
    """Labels that look like misspellings of others (toxc / toxic, Yes / yes, 01 / 1), in words."""
    if m.kind != "label" or m.alpha.n_categories > 400:
        return []
    from agreebound.io.detect import near_duplicates
    from agreebound.panel.ratings import category_texts

    texts = category_texts(m.alpha.category_set)
    counts = [int(c) for c in m.category_counts]
    return [f"{rare!r} ({counts[texts.index(rare)]}) may be {common!r}: {why}"
            for rare, common, why in near_duplicates(texts, counts)]


def level_section(m: PanelMeasurement, d: PanelDecision) -> dict[str, Any]:
    """The level in force, who chose it and why, the suggestion, alpha and the verdict at every
    compared level, and whether the verdict depends on the level."""
    verdicts = level_verdicts(m, d.thresholds)
    return {"in_force": m.level, "chosen_by": m.level_origin[0], "chosen_reason": m.level_origin[1],
            "suggested": m.level_suggestion[0], "reason": m.level_suggestion[1],
            "alpha_at_levels": {k: exact(v) for k, v in m.alpha_at_levels.items()},
            "verdict_at_levels": {k: v.value for k, v in verdicts.items()},
            "depends_on_level": len(set(verdicts.values())) > 1,
            "note": level_note(m, verdicts)}


def panel_dimension(m: PanelMeasurement, d: PanelDecision) -> dict[str, Any]:
    b = m.alpha_boot
    spread_state = "not measured" if not m.rates else ("unbounded" if d.spread is None else "bounded")
    listed = m.category_table(LISTED_CATEGORIES)
    return {
        "dimension": m.dimension,
        "verdict": d.verdict.value,
        "seed_verdict": d.seed_verdict.value,
        "seed_disagrees": d.seed_disagrees,
        "seed_path": seed_path_text(m, d),
        "kind": m.kind,
        "categories": {"total": m.alpha.n_categories,
                       "listed": [{"category": c, "count": n} for c, n in listed],
                       "flags": category_flags(m)},
        "notices": list(m.notices),
        "level": level_section(m, d),
        "positive_suggestion": None if m.positive_suggestion is None else str(m.positive_suggestion),
        "ndet": m.ndet,
        "detectors": list(m.detectors),
        "humans": list(m.humans),
        "units": m.n_units,
        "ratings": m.n_ratings,
        "alpha": {
            "level": m.level,
            "defined": m.alpha.value is not None,
            "exact": exact(m.alpha.value),
            "permil": m.alpha.permil,
            "seed_permil": d.seed_alpha_permil,
            "observed_disagreement": exact(m.alpha.observed_disagreement),
            "expected_disagreement": exact(m.alpha.expected_disagreement),
            "pairable": m.alpha.pairable,
            "interval": {
                "method": b.method, "draws": b.draws, "seed": b.seed, "level": b.level,
                "low": rounded(b.low), "high": rounded(b.high), "q_below_floor": rounded(b.q_below(d.thresholds.alpha_floor)),
                "note": b.note,
            },
            "plan": plan_dict(d.gate("alpha")),  # how many units would decide it (agreebound.core.planner.Plan)
        },
        "rates_source": m.rates_source,
        "rates": [{"detector": r.detector, "positives": r.positives, "total": r.total, "exact": exact(r.rate),
                   "wilson95": [rounded(w.low), rounded(w.high)]} for r, w in zip(m.rates, m.wilson)],
        "spread": {
            "state": spread_state,
            "exact": exact(d.spread) if m.rates else None,
            "permil": d.seed_ratio_permil,
            "low": exact(d.rates_span[0]), "high": exact(d.rates_span[1]),
            "bracket95": [rounded(m.spread_bracket[0]), rounded(m.spread_bracket[1])] if m.rates else None,
        },
        "reasons": [{"check": r.check, "value": exact(r.value), "threshold": exact(r.threshold),
                     "margin": exact(r.margin), "message": r.message} for r in d.reasons],
    }


def panel_report(measurements: dict[str, PanelMeasurement], thresholds: ThresholdSet,
                 inputs: Sequence[tuple[str, bytes | str]], imported: Any = None,
                 coefficients: dict[str, Any] | None = None) -> dict[str, Any]:
    """``imported`` (agreebound.io.formats.Imported): how the file was read, recorded beside the verdicts.
    ``coefficients``: dimension -> analysis.PanelCoefficients, reported beside alpha (not deciding)."""
    out = _base("panel", inputs, thresholds)
    if imported is not None:
        out["read"] = {"format": imported.format, "mapping": imported.mapping.to_dict(),
                       "reasons": list(imported.reasons), "rows": rows_read(imported)}
    dims = [panel_dimension(m, decide_panel(m, thresholds.panel, thresholds.source)) for m in measurements.values()]
    for dim, m in zip(dims, measurements.values()):
        if coefficients and m.dimension in coefficients:
            dim["coefficients"] = coefficients_section(coefficients[m.dimension])
    out["panel"] = {"dimensions": dims, "verdict": worst([d["verdict"] for d in dims]),
                    "depends_on_level": any(d["level"]["depends_on_level"] for d in dims)}
    return out


def coefficients_section(pc: Any) -> dict[str, Any]:
    """The coefficients beside alpha (analysis.PanelCoefficients) for the JSON report."""
    co = pc.coefficients
    if co is None:  # too many categories: said in the explanation
        return {"level": pc.level, "decides": False, "table": [], "pairs": [], "categories": [],
                "explanation": list(pc.explanation)}

    def one(c: Any) -> dict[str, Any]:
        return {"key": c.key, "name": c.name, "weights": c.weights, "exact": exact(c.value),
                "value": None if c.value is None else rounded(float(c.value)),
                "percent_agreement": exact(c.pa), "chance_agreement": exact(c.pe),
                "units": c.units, "pairable_units": c.pairable,
                "se": None if c.se is None else rounded(c.se),
                "interval95": None if c.low is None else [rounded(c.low), rounded(c.high)], "note": c.note}

    return {
        "level": pc.level,
        "decides": False,
        "table": [one(c) for c in co.table],
        "pairs": [{"a": p.a, "b": p.b, "shared_units": p.shared, "agreement": exact(p.agreement),
                   "cohen_kappa": exact(p.kappa), "confusion": p.confusion.tolist()} for p in co.pairs],
        "categories": [{"category": t, "share": exact(s), "specific_agreement": exact(a)}
                       for t, s, a in zip(pc.texts, co.shares, co.specific)],
        "explanation": list(pc.explanation),
    }


#: Pairs of raters listed in the Markdown and HTML reports (the JSON has every pair).
LISTED_PAIRS = 45


def _num(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def coefficient_rows(section: dict[str, Any]) -> list[list[str]]:
    """name, value, exact, 95% interval, agreement, chance: one row per coefficient."""
    rows = []
    for c in section["table"]:
        iv = c["interval95"]
        rows.append([c["name"], _num(c["value"]), c["exact"] or ("undefined: " + c["note"] if c["note"] else "undefined"),
                     "-" if iv is None else f"[{iv[0]:.3f}, {iv[1]:.3f}]",
                     _num(None if c["percent_agreement"] is None else float(Fraction(c["percent_agreement"]))),
                     "n/a" if c["key"] == "percent_agreement" else
                     _num(None if c["chance_agreement"] is None else float(Fraction(c["chance_agreement"])))])
    return rows


def coefficients_markdown(section: dict[str, Any]) -> list[str]:
    lines = ["### Other coefficients (beside alpha; they do not decide)", ""]
    if section["explanation"]:
        lines += [f"- {md_text(t, 1000)}" for t in section["explanation"]] + [""]
    lines += ["| coefficient | value | exact | 95% interval | agreement | chance |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in coefficient_rows(section)]
    if not section["table"]:
        return lines
    if section["pairs"]:
        lines += ["", "| pair | units both rated | agreement | Cohen's kappa |", "|---|---|---|---|"]
        for p in section["pairs"][:LISTED_PAIRS]:
            ag = None if p["agreement"] is None else float(Fraction(p["agreement"]))
            ka = None if p["cohen_kappa"] is None else float(Fraction(p["cohen_kappa"]))
            lines.append(f"| {_md_cell(p['a'])} / {_md_cell(p['b'])} | {p['shared_units']} | {_num(ag)} | {_num(ka)} |")
        if len(section["pairs"]) > LISTED_PAIRS:
            lines += ["", f"The first {LISTED_PAIRS} of {len(section['pairs']):,} pairs are listed (every pair is in the "
                          "JSON report)."]
    lines += ["", "| category | share of values | specific agreement |", "|---|---|---|"]
    for c in section["categories"]:
        sa = None if c["specific_agreement"] is None else float(Fraction(c["specific_agreement"]))
        lines.append(f"| {_md_cell(c['category'])} | {float(Fraction(c['share'])):.1%} | {_num(sa)} |")
    return lines


def worst(verdicts: Sequence[str]) -> str:
    """The panel file's overall verdict: any refusal, else any report-only, else enforce."""
    return most_severe(verdicts, "ENFORCE")


def calibration_section(bundle: JudgeBundle, d: CalibrationDecision) -> dict[str, Any]:
    m = bundle.measurement
    diag = m.diagnostics
    rates = []
    for g, rate in zip(d.gates[:len(d.rates)], d.rates, strict=True):
        w = diag.wilson[g.name]
        iv = diag.intervals.get(g.name)
        state, k = g.cases_to_decide or ("not evaluable", 0)
        seed = seed_view(g)
        rates.append({
            "name": g.name, "kind": g.kind, "numerator": rate.numerator, "denominator": rate.denominator,
            "evaluable": rate.evaluable, "exact": exact(rate.value), "bps": rate.bps,
            # a gate this source cannot evaluate is not checked: it has not passed
            "threshold_bps": seed.threshold_bps, "passed": g.passed is True, "seed_passed": seed.passed,
            "bound_passed": g.bound_passed,
            "unavailable": unavailable(g),
            "wilson95": [rounded(w.low), rounded(w.high)] if rate.evaluable else None,
            # case-aware: each case's observations as one cluster (uncertainty.judge_rate_intervals)
            "interval95": None if iv is None else [rounded(iv.low), rounded(iv.high)],
            "interval_method": None if iv is None else iv.method,
            "cases": None if iv is None else iv.cases,
            "observations": rate.denominator,
            "design_effect": None if iv is None else rounded(iv.deff),
            "effective_n": None if iv is None else rounded(iv.n_eff),
            "cases_to_flip": {"direction": state, "cases": k},
            "plan": plan_dict(g),  # how many cases would decide it (agreebound.core.planner.Plan)
        })
    out = {
        "contract": {**bundle.contract.to_dict(), "content_id": bundle.contract.content_id},
        "snapshot": {"scope": bundle.scope, "contract_content_id": bundle.contract_content_id,
                     "rubric_digest": bundle.rubric_digest,
                     "bound": m.bound,
                     # "bind to this contract": the content id the snapshot named before (a draft binding)
                     "rebound_from": bundle.rebound_from},
        "cases": m.n_cases,
        "observations": m.n_observations,
        "decision": d.decision,
        "seed_decision": d.seed_decision,
        "seed_disagrees": d.seed_disagrees,
        "decided_against": {"kind": d.contract_kind, "content_id": d.decided_against.content_id},
        "rates": rates,
        "partial": m.partial,
        "notes": list(m.notes + d.notes),
        # the user's contract, or none: then the gates are measured against a draft from the log and
        # nothing is decided (contract_origin "illustrative": the seed's example limits)
        "contract_source": "given" if d.contract_given else d.limits_text,
        "contract_origin": d.contract_origin,
        "decision_reason": d.reason,
        "reference_issues": list(d.reference_issues),
        "diagnostics": {
            "agreement_with_ties": list(diag.agreement_with_ties),
            "agreement_without_ties": list(diag.agreement_without_ties),
            "judge_human_alpha": exact(bundle.judge_human_alpha.value),
            "stable_flips": diag.stable_flips,
            "noisy_flips": diag.noisy_flips,
        },
        # bias or disagreement? the measures beside the gates (agreebound.judge.bias), and each failing
        # raw gate read against them
        "bias": {**m.bias.to_dict(), "verdict_notes": list(verdict_notes(d.gates, m.bias, d.contract_origin))},
        # the gates a contract opted in to (version 2): on the bias net of disagreement
        "net_gates": [_net_gate(g) for g in d.gates[len(d.rates):]],
        # each model pair's win rate: the judge's, corrected by the human labels (PPI), the humans'
        "headline": m.headline.to_dict(),
    }
    stated = getattr(bundle, "confidence", None)  # a bundle built by hand (tests, peers) may not carry one
    if stated is not None:  # a judge that states a probability (absent otherwise: reports unchanged)
        out["confidence"] = calibration_dict(stated)
    return out


def _net_gate(g: Gate) -> dict[str, Any]:
    """An opt-in net gate as stored: the keys of a rate's entry that it has (it is a difference, not a rate)."""
    evaluable = g.exact is not None
    return {"name": g.name, "kind": g.kind, "evaluable": evaluable, "exact": exact(g.exact), "value": rounded(g.value),
            "threshold_bps": int(g.threshold * 10_000), "passed": g.passed is True, "bound_passed": g.bound_passed,
            "unavailable": unavailable(g), "interval95": None if g.low is None else [rounded(g.low), rounded(g.high)],
            "interval_method": g.interval_method or None, "cases_to_flip": None, "plan": plan_dict(g)}


def calibration_report(bundle: JudgeBundle, thresholds: ThresholdSet,
                       inputs: Sequence[tuple[str, bytes | str]]) -> dict[str, Any]:
    out = _base("calibration", inputs, thresholds)
    out["calibration"] = calibration_section(bundle, decide(bundle.measurement, thresholds.calibration))
    return out


def scored_report(m: ScoredMeasurement, thresholds: ThresholdSet,
                  inputs: Sequence[tuple[str, bytes | str]], judge: str | None = None) -> dict[str, Any]:
    """A graded or pass/fail judge's whole report, decided under ``thresholds.scored`` (for ``judge``,
    or every judge of the log); agreebound.render.scored holds its section."""
    out = _base("scored", inputs, thresholds)
    out["thresholds"]["scored"] = asdict(thresholds.scored)
    out["scored"] = scored_section(m, decide_scored(m, thresholds.scored, thresholds.source, judge))
    return out


def to_json(report: dict[str, Any], ascii_only: bool = False) -> str:
    """Deterministic JSON. ``ascii_only`` for a terminal: every non-ASCII character (and so every
    bidi or invisible one) as a \\u escape. A file name with bytes that are not UTF-8 is written
    with each such byte as the text ``\\xNN``, in the file and on the terminal alike (as the
    history stores it; agreebound.render.names.utf8_safe)."""
    if ascii_only:
        text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False)
        if not _SURROGATE_ESCAPE.search(text):  # no surrogate at all: the usual case, one pass
            return text + "\n"
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    if LONE_SURROGATE.search(text):
        report = utf8_safe_tree(report)
        text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    if ascii_only:
        text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False)
    return text + "\n"


#: A surrogate as ensure_ascii writes it: half of a pair (a character beyond U+FFFF), or alone.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def verdict_of(report: dict[str, Any]) -> str:
    if report["kind"] == "scored":
        return report["scored"]["decision"]
    return report["panel"]["verdict"] if report["kind"] == "panel" else report["calibration"]["decision"]


# --- Markdown --------------------------------------------------------------------------------


def _md_cell(x: Any) -> str:
    """A table cell: user text escaped (no link, HTML or pipe can form), on one line."""
    return md_text(x)


def flip_words(flip: dict[str, Any], given: bool) -> str:
    """"7 to pass" against a contract; against limits that are not one, where nothing is decided,
    "7 to be within the limit"."""
    if given:
        return f"{flip['cases']:,} to {flip['direction']}"
    side = "within" if flip["direction"] == "pass" else "outside"
    return f"{flip['cases']:,} to be {side} the limit"


def mark_sample(report: dict[str, Any]) -> dict[str, Any]:
    """A report about a bundled sample says so (``"sample": true``; the Markdown and HTML headings)."""
    return {**report, "sample": True}


def to_markdown(report: dict[str, Any]) -> str:
    lines = [f"# Agreebound {report['kind']} report" + (" (sample data)" if report.get("sample") else ""), "",
             f"Tool: agreebound {report['tool']['version']}. Thresholds: {md_text(report['thresholds']['source'])}.", "",
             "Inputs:", ""]
    lines += [f"- {md_code(i['file'])} sha256 `{i['sha256']}`" for i in report["inputs"]]
    lines.append("")
    read = report.get("read")
    if read and read.get("rows"):
        lines += [f"Read as {md_text(read['format'])}: {rows_read_text(read['rows'])}.", ""]
    if report["kind"] == "panel":
        lines += _panel_markdown(report)
    elif report["kind"] == "scored":
        lines += scored_markdown(report)
    else:
        lines += _calibration_markdown(report["calibration"])
    return "\n".join(lines) + "\n"


def _panel_markdown(report: dict[str, Any]) -> list[str]:
    """The panel's verdict, a table row per dimension, then the details of the worst dimensions."""
    p = report["thresholds"]["panel"]
    dims = report["panel"]["dimensions"]
    depends = " *Depends on the level* (see below)." if report["panel"].get("depends_on_level") else ""
    lines = [f"**Overall: {report['panel']['verdict']}** (alpha floor {p['alpha_floor_permil']} permil, "
             f"spread cap {p['ratio_cap_permil']} permil{', strict' if p['strict'] else ''}).{depends}", "",
             "| dimension | verdict | level | alpha (exact) | alpha permil | 95% interval | spread | detectors |",
             "|---|---|---|---|---|---|---|---|"]
    for d in dims:
        a, s_ = d["alpha"], d["spread"]
        interval = f"[{a['interval']['low']}, {a['interval']['high']}]" if a["defined"] else "undefined"
        if a["defined"] and a["interval"]["method"] != "units":  # KALPHA's pairs: said where it is read
            interval += " (pairs, KALPHA: narrower than 95% when units have 3+ ratings)"
        spread = s_["exact"] if s_["state"] == "bounded" else s_["state"]
        lv = d["level"]
        level = f"{lv['in_force']} ({LEVEL_ORIGIN_WORDS[lv['chosen_by']]})" + \
            ("; *depends on the level*" if lv["depends_on_level"] else "")
        lines.append(f"| {_md_cell(d['dimension'])} | {d['verdict']} | {level} | {a['exact'] or 'undefined'} | "
                     f"{a['permil'] if a['defined'] else 'undefined'} | {interval} | {spread} | {d['ndet']} |")
    detailed = _worst_first(dims)[:DETAIL_DIMENSIONS]
    if len(dims) > len(detailed):
        lines += ["", f"Details follow for the {len(detailed)} dimensions with the worst verdicts; the table above "
                      f"lists all {len(dims)}."]
    for d in detailed:
        lines += _dimension_markdown(d)
    return lines


def _dimension_markdown(d: dict[str, Any]) -> list[str]:
    """One dimension's section: its verdict's reasons, the level and why, notes, categories, coefficients."""
    lv = d["level"]
    lines = ["", f"## {_md_cell(d['dimension'])}: {d['verdict']} {level_phrase(lv['in_force'], lv['chosen_by'])}", ""]
    if lv["note"]:
        lines += [f"*Depends on the level*: {lv['note']}.", ""]  # levels, verdicts, numbers: no user text
    lines += [f"- {_md_cell(r['message'])}" for r in d["reasons"]] or ["- every check passed"]
    if alpha_plan := plan_text(d["alpha"].get("plan"), "alpha"):
        lines.append(f"- alpha: {md_text(alpha_plan, 600)}")
    lines.append(f"- level {lv['in_force']}: {lv['chosen_reason']}" +  # the rule's words: no user text
                 (f"; suggested {lv['suggested']}: {lv['reason']}" if lv["suggested"] != lv["in_force"] else ""))
    if d["spread"]["state"] == "not measured":
        lines.append("- spread not checked: no detector rates (choose a positive category or give a rates file)")
    if d["seed_disagrees"]:
        lines.append(f"- the specification's integer formula ({_md_cell(d['seed_path'])}) would decide "
                     f"{d['seed_verdict']}")
    for n in d.get("notices", []):
        lines.append(f"- note: {_md_cell(n)}")
    if d.get("kind") == "label":
        cats = d["categories"]
        lines.append(f"- categories ({cats['total']}): " +
                     ", ".join(f"{_md_cell(c['category'])} ({c['count']})" for c in cats["listed"]))
    if d.get("coefficients"):
        lines += [""] + coefficients_markdown(d["coefficients"])
    return lines


def _calibration_markdown(c: dict[str, Any]) -> list[str]:
    """The judge's decision and what it was decided against, a table row per rate, what the source
    lacks, and how the intervals are made."""
    given = c.get("contract_origin", "given") == "given"
    if given:
        lines = [f"**Decision: {c['decision']}** against the {c['decided_against']['kind']} contract "
                 f"`{c['decided_against']['content_id']}`", ""]
    else:  # no contract: measured, not decided
        lines = [f"**Decision: {c['decision']}** ({md_text(c['decision_reason'])}): measured against "
                 f"{md_text(c['contract_source'])}, drafted from the log as `{c['decided_against']['content_id']}`; "
                 "give the contract for a decision.", ""]
    lines += [f"{c['cases']} cases, {c['observations']} observations; scope {md_code(c['snapshot']['scope'])}.", "",
              "| rate | measured | bps | threshold | gate | 95% interval (cases, observations) | design effect "
              "| cases to flip |", "|---|---|---|---|---|---|---|---|"]
    lines += [_rate_row(r, given) for r in c["rates"]]
    plans = [f"- {r['name']}: {md_text(t, 600)}" for r in c["rates"] + c.get("net_gates", [])
             if (t := plan_text(r.get("plan")))]
    if plans:
        lines += ["", "How many cases would decide each gate:", ""] + plans
    missing = [f"- {r['name']}: not evaluable: {md_text(r['unavailable'], 1000)}" for r in c["rates"] if r.get("unavailable")]
    if missing:
        lines += ["", "What this source lacks, per gate, and what supplies it:", ""] + missing
    lines += ["", "95% intervals are Wilson intervals at the effective number of observations: the observations "
                  "of one case (two orders x repetitions) are not independent, so their count is divided by the "
                  "measured design effect of the cases."]
    lines += ["", f"Reference issues: {len(c['reference_issues'])}."]
    lines += _bias_markdown(c.get("bias"), c.get("net_gates", []))
    lines += _headline_markdown(c.get("headline"))
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        lines += ["", "## Stated confidence against the humans", ""]
        lines += [f"- {md_text(x)}" for x in confidence_lines(c["confidence"])]
    if c["seed_disagrees"]:
        lines.append(f"Seed rounding would have said {c['seed_decision']}.")
    return lines


#: The groups of a stored report's bias measures, in the order shown.
BIAS_GROUPS = ("position", "verbosity", "self_preference")


def bias_measures(bias: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored report's bias measures (``calibration.bias``), every group in order."""
    return [m for group in BIAS_GROUPS for m in bias.get(group, [])]


def measure_value(m: dict[str, Any]) -> str:
    """A stored measure's value: "55.7%" (a share), "31.1 points" (a difference), "not measured"."""
    if m.get("value") is None:
        return "not measured"
    return f"{m['value'] * 100:.1f}{' points' if m['kind'] == 'difference' else '%'}"


def measure_interval(m: dict[str, Any]) -> str | None:
    """"[20.3, 41.0]" in the measure's own scale; None without an interval."""
    iv = m.get("interval95")
    return None if not iv else f"[{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]"


def bias_said(bias: dict[str, Any]) -> list[str]:
    """The measures' sentences and the mix note, in order (plain text: the caller escapes)."""
    return [m["sentence"] for m in bias_measures(bias) if m.get("sentence")] + (
        [bias["mix_note"]] if bias.get("mix_note") else [])


def _bias_markdown(bias: dict[str, Any] | None, net_gates: Sequence[dict[str, Any]]) -> list[str]:
    """Bias or disagreement? The measures beside the gates, each with its fraction and interval."""
    if not bias:
        return []
    lines = ["", "### Bias or disagreement?", "",
             "Measures beside the gates (not gates unless the contract gates on them):", "",
             "| measure | value | exact | 95% interval | test | definition |", "|---|---|---|---|---|---|"]
    for m in bias_measures(bias):
        test = "-" if m.get("p_value") is None else f"p = {m['p_value']:.2g} ({md_text(m['test'], 200)})"
        lines.append(f"| {md_text(m['title'])} | {measure_value(m)} | {md_text(m['fraction'])} | "
                     f"{measure_interval(m) or '-'} | {test} | {md_text(m.get('unavailable') or m['definition'], 300)} |")
    lines += [""] + [f"- {md_text(x, 400)}" for x in bias_said(bias)]
    lines += [f"- {md_text(n, 400)}" for n in bias.get("verdict_notes", [])]
    for g in net_gates:
        state = "not evaluable" if not g["evaluable"] else ("pass" if g["passed"] else "FAIL")
        iv = g.get("interval95")
        lines.append(f"- Contract gate {g['name']} (<= {g['threshold_bps'] / 100:g} points): {state}"
                     + (f", 95% interval [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}] points" if iv else ""))
    return lines


def headline_rows(headline: dict[str, Any] | None) -> list[list[str]]:
    """The corrected headline's table rows (model names are user text: the caller escapes them):
    pair, judge only, corrected, human only, labelled / unlabelled, judge off by."""
    def est(e: dict[str, Any] | None) -> str:
        if not e or e.get("value") is None:
            return "-"
        iv = e.get("interval95")
        return f"{e['value'] * 100:.1f}%" + (f" [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if iv else "")

    return [[f"{p['first']} vs {p['second']}", est(p["judge"]), est(p["ppi"]), est(p["human"]),
             f"{p['labelled']:,} / {p['unlabelled']:,}",
             "-" if p.get("judge_off_points") is None else f"{p['judge_off_points']:+.1f} points"]
            for p in (headline or {}).get("pairs", [])]


def _headline_markdown(headline: dict[str, Any] | None) -> list[str]:
    """The corrected headline: each pair's win rate, the judge's and corrected, and the note."""
    if not headline:
        return []
    lines = ["", "### The corrected headline", "", md_text(headline["note"], 800)]
    rows = headline_rows(headline)
    if rows:
        lines += ["", "| model pair | judge only | corrected (prediction-powered) | human only | labelled / unlabelled "
                  "| judge off by |", "|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(md_text(x, 200) for x in row) + " |" for row in rows]
        lines += [""] + [f"- {md_text(p['sentence'], 600)}" for p in headline["pairs"]]
    lines += ["", f"Method: {md_text(headline['method'], 400)}."]
    return lines


def _rate_row(r: dict[str, Any], given: bool) -> str:
    """A judge rate's row; against limits that are not a contract, "within/outside the limit", not pass/FAIL."""
    evaluable = r["evaluable"] and not r.get("unavailable")
    gate = "not evaluable" if not evaluable else ("pass" if r["passed"] else "FAIL")
    if not given and evaluable:  # against an example limit: no verdict
        gate = "within the limit" if r["passed"] else "outside the limit"
    op = ">=" if r["kind"] == "min" else "<="
    flip = r["cases_to_flip"]
    iv = r.get("interval95")
    interval = "-" if not iv else (f"[{iv[0]:.2%}, {iv[1]:.2%}] ({r['cases']} case"
                                   f"{'' if r['cases'] == 1 else 's'}, {r['observations']} observations)")
    deff = "-" if r.get("design_effect") is None else f"{r['design_effect']:.3g}"
    return (f"| {r['name']} | {r['numerator']}/{r['denominator']} | {r['bps']} | {op} {r['threshold_bps']} | "
            f"{gate} | {interval} | {deff} | "
            f"{'-' if not evaluable else flip_words(flip, given)} |")


def _worst_first(dims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(dims, key=lambda d: SEVERITY[d["verdict"]])
