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
from typing import TYPE_CHECKING, Mapping, Sequence
import numpy as np
from agreebound.version import __version__
from agreebound.panel.measure import PanelMeasurement, level_note
from agreebound.panel.levels import in_raters_words, panel_noun
from agreebound.core.gate import SEVERITY, Gate
from agreebound.core.gate import worst as most_severe
from agreebound.render.scored import (  # noqa: F401 - plan_text and exact re-exported
    calibration_dict,
    confidence_lines,
    exact,
    plan_text,
    rounded,
    scored_markdown,
    scored_section,
)
from agreebound.core.limits import LISTED_CATEGORIES
from agreebound.panel.seed import AB_UNDEFINED
from agreebound.panel.decision import PanelDecision
from agreebound.core.escape import LONE_SURROGATE, utf8_safe_tree
from agreebound.core.thresholds import OPTIONAL_PANEL_FIELDS, THRESHOLD_WORDS, ThresholdSet
from agreebound.core.json_types import JSONObject


#: The report schema's ``$id`` and every report's ``$schema``: versioned with the schema (v1), not
#: with the package; ``agreebound schema`` prints the schema the package ships (schemas/ in a checkout).
SCHEMA_ID = "urn:agreebound:schema:report:v1"
#: A verdict's exit code is its severity read downwards (agreebound.core.gate.SEVERITY, the one table):
#: 0 licenses action, 1 does not (INCOMPLETE, a partial judge audit, is never a pass), 2 is refused.
EXIT_CODES = {verdict: 2 - severity for verdict, severity in SEVERITY.items()}

# The judge and scored domains are imported by the functions that report a judge: a panel's report
# (a CI call on a small panel file) never loads them, nor the pandas they import (issue 57).
if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.io.ratings import Imported
    from agreebound.judge.agreement import AgreementRate, HumanAgreement, Kappa
    from agreebound.judge.decision import CalibrationDecision
    from agreebound.judge.slices import SliceDecision
    from agreebound.scored.decide import ScoredDecision
    from agreebound.scored.audit import ScoredMeasurement
    from agreebound.panel.coefficients import Coefficient
    from agreebound.panel.measure import PanelCoefficients
    from agreebound.panel.study import AnnotationStudy


def plan_dict(g: Gate) -> JSONObject | None:
    """A gate's plan as stored (agreebound.core.planner.Plan.to_dict); None when it has none."""
    return None if g.plan is None else g.plan.to_dict()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _thresholds(t: ThresholdSet) -> JSONObject:
    return {"source": t.source, "panel": t.panel.to_dict(),
            "calibration": None if t.calibration is None else t.calibration.to_dict()}


def rows_read(imported: Imported) -> JSONObject:
    """The data rows a rating file gave: how many, what a row is, and the first and last; and, read
    one row per rating, how many of them gave no rating (``unrated``: an empty value or a
    missing-value code; absent when none did). Every dimension's ratings count, whichever the
    report shows."""
    span = imported.row_span
    out: JSONObject = {"count": imported.rows_read, "label": imported.row_label, "sources": imported.source_rows,
                       "first": span[0] if span else None, "last": span[1] if span else None}
    if imported.mapping.layout == "long":
        unrated = imported.rows_read - sum(len(p.records) for p in imported.panels.values())
        if unrated > 0:
            out["unrated"] = unrated
    return out


def rows_read_text(rows: JSONObject) -> str:
    """``100 rows read (rows 2-101)``, or ``41 rows read from 12 tasks (tasks 1-12)`` where a
    source row gives several, and the rows that gave no rating: said wherever a file's reading is."""
    label = rows["label"]
    n, sources = rows["count"], rows.get("sources", rows["count"])
    text = f"{n:,} {label}{'' if n == 1 else 's'} read" if sources == n else \
        f"{n:,} rows read from {sources:,} {label}{'' if sources == 1 else 's'}"
    if rows.get("first") is not None:
        text += f" ({label}s {rows['first']}-{rows['last']})" if rows["last"] != rows["first"] else f" ({label} {rows['first']})"
    if unrated := rows.get("unrated", 0):
        text += (f"; {unrated:,} of them {'has' if unrated == 1 else 'have'} no value (an empty cell or a "
                 "missing-value code) and gave no rating")
    return text


def unpairable_text(units: int, pairable_units: int | None) -> str:
    """The units that do not enter alpha, said beside a dimension's verdict (nothing left out
    silently): "1 of 12 units has fewer than two ratings and does not enter alpha ...", or "" when
    every unit enters (or a report written before the count was kept).

    >>> unpairable_text(12, 11)
    '1 of 12 units has fewer than two ratings and does not enter alpha (alpha compares the ratings within a unit)'
    >>> unpairable_text(12, 12), unpairable_text(12, None)
    ('', '')
    """
    if pairable_units is None or pairable_units >= units:
        return ""
    n = units - pairable_units
    return (f"{n:,} of {units:,} units {'has' if n == 1 else 'have'} fewer than two ratings and "
            f"{'does' if n == 1 else 'do'} not enter alpha (alpha compares the ratings within a unit)")


def _base(kind: str, inputs: Sequence[tuple[str, bytes | str]], t: ThresholdSet) -> JSONObject:
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


def level_section(m: PanelMeasurement, d: PanelDecision) -> JSONObject:
    """The level in force, who chose it and why, the suggestion, alpha and the verdict at every
    compared level (as decide_panel decided them), and whether the verdict depends on the level."""
    verdicts = d.at_levels
    return {"in_force": m.level, "chosen_by": m.level_origin[0], "chosen_reason": m.level_origin[1],
            "suggested": m.level_suggestion[0], "reason": m.level_suggestion[1],
            "alpha_at_levels": {k: exact(v) for k, v in m.alpha_at_levels.items()},
            "verdict_at_levels": {k: v.value for k, v in verdicts.items()},
            "depends_on_level": len(set(verdicts.values())) > 1,
            "note": level_note(m, verdicts)}


def panel_dimension(m: PanelMeasurement, d: PanelDecision) -> JSONObject:
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
        # what its raters are called on every surface (agreebound.panel.levels.rater_noun): "rater" or "detector"
        "rater_word": panel_noun(m),
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
            # units with two ratings or more: the others do not enter alpha (said beside the verdict)
            "pairable_units": m.alpha.units,
            "interval": {
                "method": b.method, "draws": b.draws, "seed": b.seed, "level": b.level,
                "low": rounded(b.low), "high": rounded(b.high), "q_below_floor": rounded(b.q_below(d.thresholds.alpha_floor)),
                "note": b.note,
            },
            # the interval holds the floor, as decided: another sample could reach the other verdict
            "fragile": d.gate("alpha").fragile,
            "plan": plan_dict(d.gate("alpha")),  # how many units would decide it (agreebound.core.planner.Plan)
        },
        # "none: ..." is the rule's sentence, said of the panel's raters; a file's name stays as given
        "rates_source": in_raters_words(m.rates_source, panel_noun(m)) if m.rates_source.startswith("none:")
        else m.rates_source,
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
        **optional_gates(d),
    }


def optional_thresholds_words(panel_thresholds: JSONObject) -> str:
    """", minimum units 20": each optional panel threshold in force (OPTIONAL_PANEL_GATES), as a
    summary line names it; "" when none is on, so a report under the seed's rule reads as before."""
    said = [f", {THRESHOLD_WORDS[f][0]} {THRESHOLD_WORDS[f][1](panel_thresholds[f])}"
            for f in OPTIONAL_PANEL_FIELDS if panel_thresholds.get(f) is not None]
    return "".join(said)


def optional_gates(d: PanelDecision) -> JSONObject:
    """The gates beyond the seed's three that the thresholds turned on (OPTIONAL_PANEL_GATES), as
    decided; {} when none is on, so a report under the seed's rule is unchanged."""
    extra = d.gates[3:]
    if not extra:
        return {}
    return {"optional_gates": [{"name": g.name, "kind": g.kind, "threshold_field": g.threshold_field,
                                "exact": exact(g.exact), "threshold": exact(g.threshold),
                                "passed": g.passed is True, "state": g.state} for g in extra]}


def panel_report(measurements: Mapping[str, PanelMeasurement], decisions: Mapping[str, PanelDecision],
                 thresholds: ThresholdSet, inputs: Sequence[tuple[str, bytes | str]], imported: Imported | None = None,
                 coefficients: Mapping[str, PanelCoefficients] | None = None,
                 studies: Mapping[str, AnnotationStudy] | None = None) -> JSONObject:
    """The JSON report of a panel from its measurements and the decisions made of them
    (agreebound.panel.decide.decide_panel, per dimension). ``imported`` (agreebound.io.ratings.Imported):
    how the file was read, recorded beside the verdicts. ``coefficients``: dimension ->
    PanelCoefficients, reported beside alpha (not deciding)."""
    out = _base("panel", inputs, thresholds)
    if imported is not None:
        out["read"] = {"format": imported.format, "mapping": imported.mapping.to_dict(),
                       "reasons": list(imported.reasons), "rows": rows_read(imported)}
    dims = [panel_dimension(m, decisions[name]) for name, m in measurements.items()]
    for dim, m in zip(dims, measurements.values()):
        if coefficients and m.dimension in coefficients:
            dim["coefficients"] = coefficients_section(coefficients[m.dimension])
        if studies and m.dimension in studies:
            from agreebound.render.study import study_section

            dim["study"] = study_section(studies[m.dimension])
    out["panel"] = {"dimensions": dims, "verdict": worst([d["verdict"] for d in dims]),
                    "depends_on_level": any(d["level"]["depends_on_level"] for d in dims)}
    return out


def coefficients_section(pc: PanelCoefficients) -> JSONObject:
    """The coefficients beside alpha (analysis.PanelCoefficients) for the JSON report."""
    co = pc.coefficients
    if co is None:  # too many categories: said in the explanation
        return {"level": pc.level, "decides": False, "table": [], "pairs": [], "categories": [],
                "explanation": list(pc.explanation)}

    def one(c: Coefficient) -> JSONObject:
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


def num(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def coefficient_rows(section: JSONObject) -> list[list[str]]:
    """name, value, exact, 95% interval, agreement, chance: one row per coefficient."""
    rows = []
    for c in section["table"]:
        iv = c["interval95"]
        rows.append([c["name"], num(c["value"]), c["exact"] or ("undefined: " + c["note"] if c["note"] else "undefined"),
                     "-" if iv is None else f"[{iv[0]:.3f}, {iv[1]:.3f}]",
                     num(None if c["percent_agreement"] is None else float(Fraction(c["percent_agreement"]))),
                     "n/a" if c["key"] == "percent_agreement" else
                     num(None if c["chance_agreement"] is None else float(Fraction(c["chance_agreement"])))])
    return rows


def worst(verdicts: Sequence[str]) -> str:
    """The panel file's overall verdict: any refusal, else any report-only, else enforce."""
    return most_severe(verdicts, "ENFORCE")


def calibration_section(bundle: JudgeBundle, d: CalibrationDecision) -> JSONObject:
    from agreebound.judge.bias import verdict_notes
    from agreebound.judge.decision import seed_view, unavailable

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
            # a gate this source cannot evaluate (a partial audit's) is not evaluable, whatever it counted
            "evaluable": rate.evaluable and unavailable(g) is None, "exact": exact(rate.value), "bps": rate.bps,
            # a gate this source cannot evaluate is not checked: it has not passed
            "threshold_bps": seed.threshold_bps, "passed": g.passed is True, "seed_passed": seed.passed,
            "fragile": g.fragile,  # the interval holds the threshold, as decided
            "bound_passed": g.bound_passed,
            "unavailable": unavailable(g),
            "wilson95": [rounded(w.low), rounded(w.high)] if rate.evaluable else None,
            # case-aware: each case's observations as one cluster (agreebound.judge.intervals.judge_rate_intervals)
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
            # what the two agreement pairs above count (the second is not Zheng et al.'s "without ties")
            "definitions": agreement_definitions(),
            "cohen_kappa": kappa_dict(getattr(diag, "kappa", None)),
            # a log with one line per human vote: the paper's per-vote agreement and the human-human ceiling
            "human_votes": human_votes_dict(getattr(bundle, "human_agreement", None)),
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


def agreement_definitions() -> dict[str, str]:
    """What the diagnostics' agreement pairs count (agreebound.judge.intervals.JudgeDiagnostics)."""
    from agreebound.judge.agreement import DEFINITIONS

    return {
        "agreement_with_ties": "judgments (each order, each repetition) agreeing with the human reference (the "
                               "plurality of the votes), ties included: the human_agreement gate's count",
        "agreement_without_ties": DEFINITIONS["reference_not_tie"],
    }


def kappa_dict(k: Kappa | None) -> JSONObject | None:
    """Cohen's kappa as stored (agreebound.judge.agreement.Kappa); None when no case has a reference."""
    if k is None:
        return None
    from agreebound.judge.counts import LABELS

    return {"exact": exact(k.exact), "value": rounded(k.value),
            "interval95": None if k.low is None else [rounded(k.low), rounded(k.high)], "cases": k.cases,
            "confusion": [list(row) for row in k.confusion], "labels": list(LABELS), "definition": k.definition}


def agreement_rate_dict(r: AgreementRate) -> JSONObject:
    iv = r.interval
    return {"name": r.name, "definition": r.definition, "numerator": r.numerator, "denominator": r.denominator,
            "exact": exact(r.value), "value": rounded(None if r.value is None else float(r.value)),
            "interval95": None if iv is None else [rounded(iv.low), rounded(iv.high)],
            "interval_method": None if iv is None else iv.method, "cases": r.stats.k}


def human_votes_dict(h: HumanAgreement | None) -> JSONObject | None:
    """The judge against individual human votes (agreebound.judge.agreement.HumanAgreement) as stored;
    None when the references held no individual votes."""
    if h is None:
        return None
    from agreebound.judge.agreement import JUDGE_VOTE

    return {"votes": h.votes, "voters": h.voters, "cases": h.cases, "judge_vote": JUDGE_VOTE,
            "rates": [agreement_rate_dict(r) for r in h.rates.values()],
            "differences": [{"name": d.name, "exact": exact(d.exact), "value": rounded(d.value),
                             "interval95": None if d.low is None else [rounded(d.low), rounded(d.high)],
                             "cases": d.cases} for d in h.differences.values()],
            "sentences": h.sentences()}


def _net_gate(g: Gate) -> JSONObject:
    """An opt-in net gate as stored: the keys of a rate's entry that it has (it is a difference, not a rate)."""
    from agreebound.judge.decision import unavailable

    evaluable = g.exact is not None
    return {"name": g.name, "kind": g.kind, "evaluable": evaluable, "exact": exact(g.exact), "value": rounded(g.value),
            "threshold_bps": int(g.threshold * 10_000), "passed": g.passed is True, "bound_passed": g.bound_passed,
            "unavailable": unavailable(g), "interval95": None if g.low is None else [rounded(g.low), rounded(g.high)],
            "interval_method": g.interval_method or None, "cases_to_flip": None, "plan": plan_dict(g)}


#: The judge's sampling settings, when a log's observations hold them (a column each).
SAMPLING_FIELDS = ("temperature", "top_p", "max_tokens", "seed")


def data_digest(inputs: Sequence[tuple[str, bytes | str]]) -> str:
    """One sha256 over the inputs' contents (their sha256s, sorted: the file names do not count)."""
    digests = sorted(d if isinstance(d, str) else sha256(d) for _, d in inputs)
    return sha256("\n".join(digests).encode())


def _distinct(frame: object, column: str) -> list[str]:
    """A column's distinct non-empty values as text, sorted; none without the column. ``frame``: a
    pandas frame or columns (agreebound.judge.columns); missing values (None, NaN, pd.NA) left out."""
    if frame is None or column not in (frame if isinstance(frame, dict) else getattr(frame, "columns", ())):
        return []
    values = frame[column]  # type: ignore[index]
    if not isinstance(values, np.ndarray):  # a pandas column: its own text of each value
        return sorted(v for v in set(values.dropna().astype(str)) if v)
    return sorted({str(v) for v in values.tolist() if v is not None and v == v} - {""})


def judge_fingerprint(bundle: JudgeBundle, inputs: Sequence[tuple[str, bytes | str]]) -> JSONObject:
    """What identifies the pairwise judge of a run: its model(s), prompt template(s), the rubric's
    digest, the scale, the sampling settings and the harness where the log holds them, the
    contract's content id and the data's digest. A field the source does not hold is None."""
    from agreebound.judge.columns import field_names

    obs = bundle.observation_records
    sampling = {f: ", ".join(v) for f in SAMPLING_FIELDS if (v := _distinct(bundle.slices, f))}
    # counted out of core there are no frames: every observation's judge is the contract's (validated)
    judges = _distinct(obs, "judge_generator") if field_names(obs) else [bundle.contract.judge_generator]
    return {"judge_model": ", ".join(judges) or None,
            "prompt_template": ", ".join(_distinct(bundle.slices, "template")) or None,
            # a log without a contract has no rubric: its header's digest is the log's own
            "rubric_digest": bundle.rubric_digest if bundle.measurement.contract_given else None,
            "scale": "pairwise: a, b or tie",
            "sampling": sampling or None, "harness": bundle.harness or "agreebound records", "harness_version": None,
            "contract_content_id": bundle.contract_content_id, "data_digest": data_digest(inputs)}


def scored_fingerprint(m: ScoredMeasurement, inputs: Sequence[tuple[str, bytes | str]]) -> JSONObject:
    """A graded or pass/fail judge's fingerprint, from what io read of its identity (grader model,
    rubric digest, tool) and the scale."""
    ident = m.identity
    sampling = {f: ident[f] for f in SAMPLING_FIELDS if ident.get(f)}
    return {"judge_model": ident.get("grader") or ", ".join(m.input.judges) or None,
            "prompt_template": ident.get("template") or ident.get("prompt") or None,
            "rubric_digest": ident.get("rubric_digest") or ident.get("rubric") or None,
            "scale": f"{m.kind}, {m.level} level", "sampling": sampling or None,
            "harness": ident.get("tool") or m.shape, "harness_version": None,  # the tool's name holds its version
            "contract_content_id": None, "data_digest": data_digest(inputs)}


def calibration_report(bundle: JudgeBundle, decision: CalibrationDecision, thresholds: ThresholdSet,
                       inputs: Sequence[tuple[str, bytes | str]], slices: Sequence[SliceDecision] = (),
                       ranking: JSONObject | None = None) -> JSONObject:
    """The JSON report of a pairwise judge from its bundle and the decision made of it
    (agreebound.judge.decide.decide), and of each slice column (agreebound.judge.slices, decided
    there: the report holds what they decided), and the ranking of the candidates' models with its
    gate as agreebound.app.rankings made and decided it (absent when none was asked for)."""
    from agreebound.judge.slices import slices_dict

    out = _base("calibration", inputs, thresholds)
    out["calibration"] = calibration_section(bundle, decision)
    out["calibration"]["fingerprint"] = judge_fingerprint(bundle, inputs)
    out["calibration"]["slices"] = [slices_dict(d) for d in slices]
    if ranking is not None:
        out["calibration"]["ranking"] = ranking
    return out


def scored_report(m: ScoredMeasurement, decision: ScoredDecision, thresholds: ThresholdSet,
                  inputs: Sequence[tuple[str, bytes | str]]) -> JSONObject:
    """A graded or pass/fail judge's whole report from the decision made under ``thresholds.scored``
    (agreebound.scored.decide.decide_scored: for one judge, or every judge of the log);
    agreebound.render.scored holds its section."""
    out = _base("scored", inputs, thresholds)
    out["thresholds"]["scored"] = asdict(thresholds.scored)
    out["scored"] = scored_section(m, decision)
    out["scored"]["fingerprint"] = scored_fingerprint(m, inputs)
    return out


def to_json(report: JSONObject, ascii_only: bool = False) -> str:
    """Deterministic JSON. ``ascii_only`` for a terminal: every non-ASCII character (and so every
    bidi or invisible one) as a \\u escape. A file name with bytes that are not UTF-8 is written
    with each such byte as the text ``\\xNN``, in the file and on the terminal alike (as the
    history stores it; agreebound.core.escape.utf8_safe)."""
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


def verdict_of(report: JSONObject) -> str:
    if report["kind"] == "scored":
        return report["scored"]["decision"]
    return report["panel"]["verdict"] if report["kind"] == "panel" else report["calibration"]["decision"]

