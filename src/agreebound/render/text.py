"""The command line's text reports: each verdict as a person or a CI log reads it, printed from the
view's JSON serialisation (agreebound.render.view.View.report). User text is shown through
``printable``: data, never a terminal escape.
"""

from __future__ import annotations

from fractions import Fraction
from agreebound.core.escape import plural, printable
from agreebound.core.json_types import JSONObject


def print_panel(report: JSONObject) -> None:
    from agreebound.panel.levels import in_raters_words, level_phrase, rater_word
    from agreebound.render.report import rows_read_text, unpairable_text
    from agreebound.render.scored import alpha_certainty, plan_text

    read = report.get("read")
    if read:
        m = read["mapping"]
        roles = {"wide": f"one row per unit; units {', '.join(m['unit']) or 'are the rows'}",
                 "long": f"one row per rating; unit {' + '.join(m['unit'])}, rater {m['rater']}, value {m['value']}"
                         + (f", dimension {m['dimension']}" if m["dimension"] else ""),
                 "transposed": f"one row per rater ({m['rater'] or 'rows'}), one column per unit"}[m["layout"]]
        rows = f", {rows_read_text(read['rows'])}" if read.get("rows") else ""
        print(f"read: {read['format']}{rows}, {roles}")
    notices = dict.fromkeys(n for d in report["panel"]["dimensions"] for n in d.get("notices", []))
    for n in notices:
        print(f"note: {printable(n)}")
    for d in report["panel"]["dimensions"]:
        a = d["alpha"]
        alpha = f"{a['exact']} ({a['permil']} permil)" if a["defined"] else "undefined"
        spread = d["spread"]["exact"] if d["spread"]["state"] == "bounded" else d["spread"]["state"]
        lv = d["level"]
        noun = rater_word(d)
        print(f"{printable(d['dimension'], 80)}: {d['verdict']} {level_phrase(lv['in_force'], lv['chosen_by'])}"
              f"{'  (depends on the level)' if lv['depends_on_level'] else ''}  alpha={alpha}  spread={spread}  "
              f"{noun}s={d['ndet']}")
        for r in d["reasons"]:
            print(f"  - {printable(in_raters_words(r['message'], noun))}")
        if left_out := unpairable_text(d["units"], a.get("pairable_units")):
            print(f"  units: {left_out}")
        if a["interval"]["note"]:  # how alpha's interval was drawn, or why it is not the units bootstrap
            print(f"  interval: {printable(a['interval']['note'])}")
        # how sure: the interval of the gating number, "fragile" where it holds the floor, what would decide it
        print(f"  {alpha_certainty(a, report['thresholds']['panel']['alpha_floor_permil'])}")
        if a.get("plan") and (plan := plan_text({**a["plan"], "sentence": ""}, "alpha")):
            print(f"  alpha: {plan}")
        if d["seed_disagrees"]:
            print(f"  - the specification's integer formula ({printable(d['seed_path'])}) would decide "
                  f"{d['seed_verdict']}")
        if lv["note"]:
            print(f"  - depends on the level: {printable(lv['note'])}")
        others = ", ".join(f"{k} {'undefined' if v is None else v}" for k, v in lv["alpha_at_levels"].items() if k != a["level"])
        print(f"  level {a['level']}: {printable(lv['chosen_reason'])}" + (f"; alpha at other levels: {others}" if others else ""))
        if lv["suggested"] != a["level"]:
            print(f"  suggested level {lv['suggested']}: {printable(lv['reason'])} (--level {lv['suggested']})")
        if d["spread"]["state"] == "not measured" and d.get("positive_suggestion") is not None:
            print(f"  spread not checked: no {noun} rates; try --positive {printable(d['positive_suggestion'], 40)}")
        if d["kind"] == "label":
            cats = d["categories"]
            shown = ", ".join(f"{printable(c['category'], 40)} ({c['count']})" for c in cats["listed"])
            more = f", and {cats['total'] - len(cats['listed'])} more" if cats["total"] > len(cats["listed"]) else ""
            print(f"  categories ({cats['total']}): {shown}{more}")
            for f in cats.get("flags", []):
                print(f"  check: {printable(f)}")
        if d.get("coefficients"):
            print_coefficients(d["coefficients"])
        if d.get("study"):
            from agreebound.render.study import study_text

            print("\n".join(study_text(d["study"])))
    print(f"overall: {report['panel']['verdict']}")


def print_coefficients(section: JSONObject) -> None:
    from agreebound.render.report import coefficient_rows

    print("  other coefficients (beside alpha; they do not decide):")
    rows = [["coefficient", "value", "95% interval", "agreement", "chance", "exact"]] + \
        [[r[0], r[1], r[3], r[4], r[5], r[2]] for r in coefficient_rows(section)]
    widths = [max(len(printable(r[i], 60)) for r in rows) for i in range(5)]
    for r in rows:
        print("    " + "  ".join(printable(c, 60).ljust(w) for c, w in zip(r, widths)) + "  " + printable(r[5], 80))
    for p in section["pairs"][:45]:
        kappa = "undefined" if p["cohen_kappa"] is None else f"{float(Fraction(p['cohen_kappa'])):.3f}"
        print(f"    pair {printable(p['a'], 40)} / {printable(p['b'], 40)}: Cohen's kappa {kappa} on "
              f"{p['shared_units']} units both rated")
    for t in section["explanation"]:
        print(f"  why: {printable(t)}")


def print_scored(report: JSONObject) -> None:
    """A graded or pass/fail judge: the decision and for whom, what was read, each judge's gates and
    measures, the panel of judges."""
    from agreebound.render.scored import decision_words, level_words, panel_alpha, panel_rows, scores_text

    s = report["scored"]
    print(f"decision: {printable(decision_words(s), 400)}")
    print(f"judge: {s['kind_words']}; level {level_words(s)}" + ("" if s["level"]["chosen_by"] == "user" else
                                                                 " (--level to choose another)"))
    print(f"read: {printable(s['shape'], 80)} {printable(s['file'], 120)}, {plural(s['items'], 'item')}; judges: "
          f"{', '.join(printable(j, 60) for j in s['judges'])}; humans: "
          f"{', '.join(printable(h, 60) for h in s['humans']) or 'none'}")
    if s["identity"]:
        print("identity: " + "; ".join(f"{printable(k, 40)} {printable(v, 200)}" for k, v in s["identity"].items()))
    for n in s["notes"]:
        print(f"note: {printable(n, 600)}")
    for line in scores_text(s):
        print(line)
    for a in s["audits"]:
        print_scored_judge(a, s)
    if s["panel"]:
        p = s["panel"]
        print(f"panel of judges: alpha among the judges {panel_alpha(p)}")
        for j, v in panel_rows(p):
            print(f"  without {printable(j, 60)}: {v}")
        print(f"  drop: {printable(p['drop'], 60) if p['drop'] else 'none'}: {p['why']}")
    if s.get("recalibration") is not None:
        from agreebound.render.scored import recalibration_text

        print("recalibration (the judge's scores mapped to the humans' scale; beside the decision, not part of it):")
        for line in recalibration_text(s["recalibration"]):
            print(f"  {line}")
    print(f"thresholds ({printable(s['threshold_source'], 120)}): "
          + ", ".join(f"{k} {v}" for k, v in s["thresholds"].items()))
    print(f"overall: {s['decision']}")


def print_scored_judge(a: JSONObject, s: JSONObject) -> None:
    """One judge of a scored report: its gates with their plans, alphas, measures and confidence."""
    from agreebound.render.scored import (alpha_rows, confidence_lines, gate_interval, gate_notes, gate_result,
                                          gate_threshold, gate_value, judge_counts, measure_rows, pair_rows)

    print(f"judge {printable(a['judge'], 80)}: {a['decision']} ({judge_counts(a, s)})")
    if a["decision_reason"]:
        print(f"  not decided, this is not a pass: {a['decision_reason']}")
    for g in a["gates"]:
        interval = "" if g["value"] is None else f" {gate_interval(g)}"
        print(f"  {g['name']}: {gate_value(g)}{interval} ({gate_threshold(g)}): {gate_result(g)}")
        for n in gate_notes(g):
            print(f"    {n}")
    for title, value, interval, over in alpha_rows(a):
        print(f"  {title}: {value}" + ("" if interval == "-" else f" {interval}")
              + (f" ({printable(over, 300)})" if value == "not measured" else ""))
    for x, y, items, value in pair_rows(a):
        print(f"    {printable(x, 60)} ~ {printable(y, 60)}: {value} over {items} item{'' if items == '1' else 's'}")
    print("  measures beside the gates (they do not decide):")
    for title, value, interval, fraction, _method, why in measure_rows(a):
        if value == "not measured":
            print(f"    {title}: not measured: {why}")
            continue
        print(f"    {title}: {value}" + ("" if interval == "-" else f" {interval}")
              + ("" if fraction == "-" else f" = {printable(fraction, 300)}"))
    if a["confidence"]:
        print("  stated confidence against the humans:")
        for line in confidence_lines(a["confidence"]):
            print(f"    {line}")


def print_calibration(report: JSONObject) -> None:
    from agreebound.render.scored import fingerprint_text, plan_text, slice_lines

    c = report["calibration"]
    given = c.get("contract_origin", "given") == "given"
    if given:
        print(f"decision: {c['decision']} (against the {c['decided_against']['kind']} contract, "
              f"{c['decided_against']['content_id']})")
    else:  # no contract: measured against the draft's limits, never decided
        print(f"decision: {c['decision']} ({c['decision_reason']})")
        print(f"measured against {printable(c['contract_source'])} ({c['decided_against']['content_id']}, drafted "
              "from the log); give the contract (--contract CONTRACT.json) for a decision")
    if fp := c.get("fingerprint"):
        print(f"fingerprint: {printable(fingerprint_text(fp), 600)}")
    for n in c.get("notes", []):
        print(f"note: {printable(n)}")
    for r in c["rates"]:
        op = ">=" if r["kind"] == "min" else "<="
        if r.get("unavailable"):
            print(f"  {r['name']}: not evaluable: {printable(r['unavailable'])}")
            continue
        gate = "not evaluable (no opportunities)" if not r["evaluable"] else ("pass" if r["passed"] else "FAIL")
        if not given and r["evaluable"]:  # a comparison with an example limit, not a gate's verdict
            gate = "within the limit" if r["passed"] else "outside the limit"
        print(f"  {r['name']}: {r['numerator']}/{r['denominator']} = {r['bps']} bps ({op} {r['threshold_bps']}"
              f"{'' if given else ' illustrative' if c['contract_origin'] == 'illustrative' else ' in force'}): {gate}")
        if r.get("interval95"):  # case-aware: each case's observations counted as one cluster
            low, high = r["interval95"]
            cases = f"{r['cases']} case{'' if r['cases'] == 1 else 's'}"
            print(f"    95% interval [{low:.2%}, {high:.2%}] ({cases}, {r['observations']} observations; "
                  f"design effect {r['design_effect']:.3g})" + (": fragile, it holds the threshold" if r.get("fragile")
                                                               else ""))
        if plan := plan_text(r.get("plan")):
            print(f"    {plan}")
    for g in c.get("net_gates", []):  # the gates a contract opted in to: the bias net of disagreement
        state = "not evaluable" if not g["evaluable"] else ("pass" if g["passed"] else "FAIL")
        value = "-" if g.get("value") is None else f"{g['value'] * 100:.1f} points"
        iv = g.get("interval95")
        value += f" [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if iv else ""
        print(f"  {g['name']}: {value} (<= {g['threshold_bps'] / 100:g} points): {state}")
        if plan := plan_text(g.get("plan")):
            print(f"    {plan}")
    if c["reference_issues"]:
        print(f"  reference issues: {len(c['reference_issues'])}")
    print_agreement(c.get("diagnostics"))
    print_bias(c.get("bias"))
    if c.get("slices"):
        print("slices (every gate split by a column of the data):")
        for line in slice_lines(c["slices"]):
            print(f"  {printable(line, 800)}")
    print_headline(c.get("headline"))
    if c.get("ranking"):  # asked for (--ranking, --beats) or a dashboard download: agreebound.app.rankings
        from agreebound.render.rankings import ranking_lines

        print("ranking of the candidates' models from the judge's verdicts (beside the decision, never part of it):")
        for line in ranking_lines(c["ranking"]):
            print(f"  {printable(line, 800)}")
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        from agreebound.render.scored import confidence_lines

        print("stated confidence against the humans:")
        for line in confidence_lines(c["confidence"]):
            print(f"  {printable(line)}")
    if not given:
        measurable = sum(r["evaluable"] and not r.get("unavailable") for r in c["rates"])
        print(f"  INCOMPLETE: {c['decision_reason']}: not decided, this is not a pass ({measurable} of "
              f"{len(c['rates'])} gates measurable)")
    elif c["decision"] == "INCOMPLETE":
        some = any(not r.get("unavailable") for r in c["rates"])
        print("  INCOMPLETE: " + ("every gate that could be evaluated passed, but some could not" if some
                                  else "no gate could be evaluated from this source") + ": this is not a pass")


def print_agreement(diag: JSONObject | None) -> None:
    """The judge against the humans: the audit's agreement, Zheng et al.'s per-vote agreement and the
    human-human ceiling (when the references hold individual votes), Cohen's kappa, each by its name."""
    from agreebound.render.markdown import agreement_rows, agreement_said

    rows = agreement_rows(diag)
    if not rows:
        return
    print("agreement with the humans:")
    for name, value, interval, cases, _ in rows:
        where = "" if interval in ("-", "see the gate") else f" {interval}"
        over = "" if cases == "-" else f" ({cases} cases)"
        print(f"  {printable(name, 200)}: {value}{where}{over}")
    for line in agreement_said(diag):
        print(f"  {printable(line, 800)}")


def print_bias(bias: JSONObject | None) -> None:
    """Bias or disagreement? Each measure beside the gates with its exact fraction and interval, and
    each failing raw gate read against them."""
    from agreebound.render.markdown import bias_measures, measure_interval, measure_value

    if not bias:
        return
    print("bias or disagreement? (measures beside the gates; not gates unless the contract says so)")
    for m in bias_measures(bias):
        if m.get("value") is None:
            print(f"  {m['title']}: not measured: {printable(m.get('unavailable') or '', 300)}")
            continue
        interval = measure_interval(m)
        test = "" if m.get("p_value") is None else f"; p = {m['p_value']:.2g}"
        print(f"  {m['title']}: {measure_value(m)} = {m['fraction']}" + (f" {interval}" if interval else "") + test)
    if bias.get("mix_note"):
        print(f"  note: {printable(bias['mix_note'], 400)}")
    for n in bias.get("verdict_notes", []):
        print(f"  {printable(n, 400)}")


def print_headline(headline: JSONObject | None) -> None:
    """The corrected headline: each model pair's win rate, the judge's and corrected by the labels."""
    if not headline or not headline.get("pairs"):
        return
    print("corrected headline (win rate of the first model of each pair; judge only, prediction-powered, human only):")
    for p in headline["pairs"]:
        print(f"  {printable(p['sentence'], 800)}")
    print(f"  note: {printable(headline['note'], 800)}")
