"""The Markdown report: the view's JSON serialisation as a reader reads it; user text escaped."""

from __future__ import annotations
from typing import Sequence
from agreebound.core.escape import md_code, md_text
from agreebound.core.gate import SEVERITY
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, in_raters_words, level_phrase, rater_word, raters_word
from agreebound.render.scored import (alpha_certainty, confidence_lines, fingerprint_text, plan_text, scored_markdown,
                                      slice_lines)
from agreebound.core.limits import DETAIL_DIMENSIONS
from agreebound.core.json_types import JSONObject
from fractions import Fraction

from agreebound.render.report import (LISTED_PAIRS, unpairable_text, coefficient_rows, num, optional_thresholds_words,
                                      rows_read_text)



# --- Markdown --------------------------------------------------------------------------------


def md_cell(x: object) -> str:
    """A table cell: user text escaped (no link, HTML or pipe can form), on one line."""
    return md_text(x)


def flip_words(flip: JSONObject, given: bool) -> str:
    """"7 to pass" against a contract; against limits that are not one, where nothing is decided,
    "7 to be within the limit"."""
    if given:
        return f"{flip['cases']:,} to {flip['direction']}"
    side = "within" if flip["direction"] == "pass" else "outside"
    return f"{flip['cases']:,} to be {side} the limit"


def mark_sample(report: JSONObject) -> JSONObject:
    """A report about a bundled sample says so (``"sample": true``; the Markdown and HTML headings)."""
    return {**report, "sample": True}


def to_markdown(report: JSONObject) -> str:
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


def _panel_markdown(report: JSONObject) -> list[str]:
    """The panel's verdict, a table row per dimension, then the details of the worst dimensions."""
    p = report["thresholds"]["panel"]
    dims = report["panel"]["dimensions"]
    depends = " *Depends on the level* (see below)." if report["panel"].get("depends_on_level") else ""
    lines = [f"**Overall: {report['panel']['verdict']}** (alpha floor {p['alpha_floor_permil']} permil, "
             f"spread cap {p['ratio_cap_permil']} permil{optional_thresholds_words(p)}{', strict' if p['strict'] else ''})."
             f"{depends}", "",
             f"| dimension | verdict | level | alpha (exact) | alpha permil | 95% interval | spread | {raters_word(dims)} |",
             "|---|---|---|---|---|---|---|---|"]
    for d in dims:
        a, s_ = d["alpha"], d["spread"]
        interval = f"[{a['interval']['low']}, {a['interval']['high']}]" if a["defined"] else "undefined"
        if a.get("fragile"):  # the interval holds the floor: the verdict could go either way
            interval += " **fragile**"
        if a["defined"] and a["interval"]["method"] != "units":  # KALPHA's pairs: said where it is read
            interval += " (pairs, KALPHA: narrower than 95% when units have 3+ ratings)"
        spread = s_["exact"] if s_["state"] == "bounded" else s_["state"]
        lv = d["level"]
        level = f"{lv['in_force']} ({LEVEL_ORIGIN_WORDS[lv['chosen_by']]})" + \
            ("; *depends on the level*" if lv["depends_on_level"] else "")
        lines.append(f"| {md_cell(d['dimension'])} | {d['verdict']} | {level} | {a['exact'] or 'undefined'} | "
                     f"{a['permil'] if a['defined'] else 'undefined'} | {interval} | {spread} | {d['ndet']} |")
    detailed = _worst_first(dims)[:DETAIL_DIMENSIONS]
    if len(dims) > len(detailed):
        lines += ["", f"Details follow for the {len(detailed)} dimensions with the worst verdicts; the table above "
                      f"lists all {len(dims)}."]
    for d in detailed:
        lines += _dimension_markdown(d, p["alpha_floor_permil"])
    return lines


def _dimension_markdown(d: JSONObject, floor_permil: int) -> list[str]:
    """One dimension's section: its verdict's reasons, how sure alpha is, the level and why, notes,
    categories, coefficients."""
    lv = d["level"]
    lines = ["", f"## {md_cell(d['dimension'])}: {d['verdict']} {level_phrase(lv['in_force'], lv['chosen_by'])}", ""]
    if lv["note"]:
        lines += [f"*Depends on the level*: {lv['note']}.", ""]  # levels, verdicts, numbers: no user text
    noun = rater_word(d)
    lines += [f"- {md_cell(in_raters_words(r['message'], noun))}" for r in d["reasons"]] or ["- every check passed"]
    if left_out := unpairable_text(d["units"], d["alpha"].get("pairable_units")):
        lines.append(f"- units: {left_out}")  # counts and the rule's words: no user text
    # the rule's words and numbers (no user text), written as the sibling bullets are: unescaped
    lines.append(f"- **How sure**: {alpha_certainty(d['alpha'], floor_permil)}")
    plan = d["alpha"].get("plan")
    if plan and (alpha_plan := plan_text({**plan, "sentence": ""}, "alpha")):
        lines.append(f"- alpha: {alpha_plan}")
    lines.append(f"- level {lv['in_force']}: {lv['chosen_reason']}" +  # the rule's words: no user text
                 (f"; suggested {lv['suggested']}: {lv['reason']}" if lv["suggested"] != lv["in_force"] else ""))
    if d["spread"]["state"] == "not measured":
        lines.append(f"- spread not checked: no {noun} rates (choose a positive category or give a rates file)")
    if d["seed_disagrees"]:
        lines.append(f"- the specification's integer formula ({md_cell(d['seed_path'])}) would decide "
                     f"{d['seed_verdict']}")
    for n in d.get("notices", []):
        lines.append(f"- note: {md_cell(n)}")
    if d.get("kind") == "label":
        cats = d["categories"]
        lines.append(f"- categories ({cats['total']}): " +
                     ", ".join(f"{md_cell(c['category'])} ({c['count']})" for c in cats["listed"]))
    if d.get("coefficients"):
        lines += [""] + coefficients_markdown(d["coefficients"])
    if d.get("study"):
        lines += [""] + study_markdown(d["study"])
    return lines


def _calibration_markdown(c: JSONObject) -> list[str]:
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
    if c.get("fingerprint"):
        lines += [f"Fingerprint: {md_text(fingerprint_text(c['fingerprint']), 600)}.", ""]
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
    lines += _agreement_markdown(c.get("diagnostics"))
    lines += _bias_markdown(c.get("bias"), c.get("net_gates", []))
    if c.get("slices"):
        lines += ["", "### By slice", ""] + [("  - " if x.startswith("  ") else "- ") + md_text(x.strip(), 800)
                                            for x in slice_lines(c["slices"])]
    lines += _headline_markdown(c.get("headline"))
    if c.get("ranking"):  # asked for (--ranking, --beats) or a dashboard download: agreebound.app.rankings
        from agreebound.render.rankings import ranking_lines

        lines += ["", "## Ranking of the candidates' models", "",
                  "From the judge's verdicts; beside the decision, never part of it.", ""]
        lines += [("  - " if x.startswith("  ") else "- ") + md_text(x.strip(), 800) for x in ranking_lines(c["ranking"])]
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        lines += ["", "## Stated confidence against the humans", ""]
        lines += [f"- {md_text(x)}" for x in confidence_lines(c["confidence"])]
    if c["seed_disagrees"]:
        lines.append(f"Seed rounding would have said {c['seed_decision']}.")
    return lines


#: The agreement figures' names as the reports show them (agreebound.judge.agreement.DEFINITIONS says what each counts).
AGREEMENT_TITLES = {
    "judge_human_with_ties": "Judge-human agreement with ties (Zheng et al. 2023: every pair of the judge's vote and "
                             "a human vote)",
    "judge_human_without_ties": "Judge-human agreement without ties (Zheng et al. 2023: pairs where either side is a "
                                "tie left out)",
    "human_human_with_ties": "Human-human agreement with ties (the ceiling: every pair of two human votes)",
    "human_human_without_ties": "Human-human agreement without ties (the ceiling: pairs holding a tie left out)",
    "reference_not_tie": "Agreement where the human reference is not a tie (the audit's \"without ties\": each "
                         "judgment against the plurality)",
}


def _rate_text(num: int, den: int) -> str:
    return f"{num:,}/{den:,}" + (f" = {num / den * 100:.1f}%" if den else "")


def agreement_rows(diag: JSONObject | None) -> list[list[str]]:
    """The judge against the humans, one row per figure (plain text; a caller escapes): name, value,
    95% interval, cases, what it counts. Rows for a stored report's diagnostics as they are: the
    per-vote figures and kappa only when the report has them."""
    if not diag:
        return []
    aw, an = diag.get("agreement_with_ties") or [0, 0], diag.get("agreement_without_ties") or [0, 0]
    if not aw[1] and not diag.get("cohen_kappa") and not diag.get("human_votes"):
        return []
    said = diag.get("definitions") or {}
    votes = diag.get("human_votes") or {}
    by_name = {r["name"]: r for r in votes.get("rates", [])}
    rows = [["Agreement with the human reference, ties included (the gate: each judgment against the plurality)",
             _rate_text(*aw), "see the gate", "-", said.get("agreement_with_ties", "")]]
    for name in ("judge_human_with_ties", "judge_human_without_ties", "human_human_with_ties",
                 "human_human_without_ties"):
        if name in by_name:
            r = by_name[name]
            iv = r.get("interval95")
            rows.append([AGREEMENT_TITLES[name], _rate_text(r["numerator"], r["denominator"]),
                         "-" if not iv else f"[{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]", f"{r['cases']:,}", r["definition"]])
    nt = by_name.get("reference_not_tie")
    iv = (nt or {}).get("interval95")
    rows.append([AGREEMENT_TITLES["reference_not_tie"], _rate_text(*an),
                 "-" if not iv else f"[{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]", f"{nt['cases']:,}" if nt else "-",
                 said.get("agreement_without_ties", "")])
    k = diag.get("cohen_kappa")
    if k:
        kiv = k.get("interval95")
        rows.append(["Cohen's kappa (the human reference against the judge's vote per case)",
                     "undefined" if k["value"] is None else f"{k['value']:.3f} = {k['exact']}",
                     "-" if not kiv else f"[{kiv[0]:.3f}, {kiv[1]:.3f}]", f"{k['cases']:,}", k["definition"]])
    return rows


def agreement_said(diag: JSONObject | None) -> list[str]:
    """The sentences beside the agreement rows (plain text): the judge against the human-human ceiling
    with each difference's interval, the judge's vote per case, or why there is no ceiling."""
    if not diag or not agreement_rows(diag):
        return []
    votes = diag.get("human_votes")
    if not votes:
        return [("No human-human ceiling: the references hold no individual votes (give the human votes one line "
                 "per vote, as MT-Bench's human judgments or AlpacaEval's annotations are).")]
    return list(votes.get("sentences", [])) + [
        (f"{votes['votes']:,} human votes by {votes['voters']:,} people on {votes['cases']:,} cases; "
         f"{votes['judge_vote']}."),
        "Intervals are 95%, clustered by case: the votes and pairs of one case are not independent."]


def _agreement_markdown(diag: JSONObject | None) -> list[str]:
    rows = agreement_rows(diag)
    if not rows:
        return []
    lines = ["", "### Agreement with the humans", "",
             "| measure | value | 95% interval | cases | what it counts |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(md_text(x, 400) for x in row) + " |" for row in rows]
    lines += [""] + [f"- {md_text(x, 600)}" for x in agreement_said(diag)]
    return lines


#: The groups of a stored report's bias measures, in the order shown.
BIAS_GROUPS = ("position", "verbosity", "self_preference")


def bias_measures(bias: JSONObject) -> list[JSONObject]:
    """A stored report's bias measures (``calibration.bias``), every group in order."""
    return [m for group in BIAS_GROUPS for m in bias.get(group, [])]


def measure_value(m: JSONObject) -> str:
    """A stored measure's value: "55.7%" (a share), "31.1 points" (a difference), "not measured"."""
    if m.get("value") is None:
        return "not measured"
    return f"{m['value'] * 100:.1f}{' points' if m['kind'] == 'difference' else '%'}"


def measure_interval(m: JSONObject) -> str | None:
    """"[20.3, 41.0]" in the measure's own scale; None without an interval."""
    iv = m.get("interval95")
    return None if not iv else f"[{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]"


def bias_said(bias: JSONObject) -> list[str]:
    """The measures' sentences and the mix note, in order (plain text: the caller escapes)."""
    return [m["sentence"] for m in bias_measures(bias) if m.get("sentence")] + (
        [bias["mix_note"]] if bias.get("mix_note") else [])


def _bias_markdown(bias: JSONObject | None, net_gates: Sequence[JSONObject]) -> list[str]:
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


def headline_rows(headline: JSONObject | None) -> list[list[str]]:
    """The corrected headline's table rows (model names are user text: the caller escapes them):
    pair, judge only, corrected, human only, labelled / unlabelled, judge off by."""
    def est(e: JSONObject | None) -> str:
        if not e or e.get("value") is None:
            return "-"
        iv = e.get("interval95")
        return f"{e['value'] * 100:.1f}%" + (f" [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if iv else "")

    return [[f"{p['first']} vs {p['second']}", est(p["judge"]), est(p["ppi"]), est(p["human"]),
             f"{p['labelled']:,} / {p['unlabelled']:,}",
             "-" if p.get("judge_off_points") is None else f"{p['judge_off_points']:+.1f} points"]
            for p in (headline or {}).get("pairs", [])]


def _headline_markdown(headline: JSONObject | None) -> list[str]:
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


def _rate_row(r: JSONObject, given: bool) -> str:
    """A judge rate's row; against limits that are not a contract, "within/outside the limit", not pass/FAIL."""
    evaluable = r["evaluable"] and not r.get("unavailable")
    gate = "not evaluable" if not evaluable else ("pass" if r["passed"] else "FAIL")
    if not given and evaluable:  # against an example limit: no verdict
        gate = "within the limit" if r["passed"] else "outside the limit"
    op = ">=" if r["kind"] == "min" else "<="
    flip = r["cases_to_flip"]
    iv = r.get("interval95")
    interval = "-" if not iv else (f"[{iv[0]:.2%}, {iv[1]:.2%}] ({r['cases']} case"
                                   f"{'' if r['cases'] == 1 else 's'}, {r['observations']} observations)"
                                   + (" **fragile**" if r.get("fragile") else ""))
    deff = "-" if r.get("design_effect") is None else f"{r['design_effect']:.3g}"
    return (f"| {r['name']} | {r['numerator']}/{r['denominator']} | {r['bps']} | {op} {r['threshold_bps']} | "
            f"{gate} | {interval} | {deff} | "
            f"{'-' if not evaluable else flip_words(flip, given)} |")


def _worst_first(dims: list[JSONObject]) -> list[JSONObject]:
    return sorted(dims, key=lambda d: SEVERITY[d["verdict"]])


def coefficients_markdown(section: JSONObject) -> list[str]:
    lines = ["### Other coefficients (beside alpha; they do not decide)", ""]
    if section["explanation"]:
        lines += [f"- {md_text(t, 1000)}" for t in section["explanation"]] + [""]
    lines += ["| coefficient | value | exact | 95% interval | agreement | chance |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(md_cell(x) for x in row) + " |" for row in coefficient_rows(section)]
    if not section["table"]:
        return lines
    if section["pairs"]:
        lines += ["", "| pair | units both rated | agreement | Cohen's kappa |", "|---|---|---|---|"]
        for p in section["pairs"][:LISTED_PAIRS]:
            ag = None if p["agreement"] is None else float(Fraction(p["agreement"]))
            ka = None if p["cohen_kappa"] is None else float(Fraction(p["cohen_kappa"]))
            lines.append(f"| {md_cell(p['a'])} / {md_cell(p['b'])} | {p['shared_units']} | {num(ag)} | {num(ka)} |")
        if len(section["pairs"]) > LISTED_PAIRS:
            lines += ["", f"The first {LISTED_PAIRS} of {len(section['pairs']):,} pairs are listed (every pair is in the "
                          "JSON report)."]
    lines += ["", "| category | share of values | specific agreement |", "|---|---|---|"]
    for c in section["categories"]:
        sa = None if c["specific_agreement"] is None else float(Fraction(c["specific_agreement"]))
        lines.append(f"| {md_cell(c['category'])} | {float(Fraction(c['share'])):.1%} | {num(sa)} |")
    return lines


def study_markdown(section: JSONObject) -> list[str]:
    """The annotation study (agreebound.render.study's section) as Markdown."""
    from agreebound.render.study import QUEUE_HEADER, RATER_HEADER, queue_rows, rater_rows, rates_text, units

    lines = ["### Annotation study (beside the verdict; it does not decide)", ""]
    lines += [f"- {md_text(t, 1000)}" for t in section["summary"]] + [""]
    if section["skipped"]:
        return lines
    lines += ["| " + " | ".join(RATER_HEADER) + " |", "|" + "---|" * len(RATER_HEADER)]
    lines += ["| " + " | ".join(md_cell(x) for x in row) + " |" for row in rater_rows(section)]
    t = section["marginal"]
    # the method's words and the rule's are ours (no user text): written as they are
    lines += ["", f"Marginal homogeneity: {rates_text(t)}.", "",
              f"Relabel queue ({units(section['queue_length'])}; {section['rule']}), the first "
              f"{len(section['queue'])}:", "",
              "| " + " | ".join(QUEUE_HEADER) + " |", "|" + "---|" * len(QUEUE_HEADER)]
    lines += ["| " + " | ".join(md_text(x, 800) for x in row) + " |" for row in queue_rows(section)]
    lines += ["", f"How: {section['method']}"]
    return lines
