"""The self-contained HTML report: the report's content as real HTML (headings, tables of gates
with value, threshold and result) with the dashboard's figures, plotly.js inlined once, every user
string escaped. Opening it makes no network request (no CDN, no web font, no MathJax); it reads on
a laptop screen and prints on A4 or Letter (the charts are never wider than the printable width).

Landmarks: ``<header>`` (title and verdict), ``<main>`` (sections labelled by their headings),
``<footer>``; headings go h1, h2, h3 without skips; text meets WCAG AA contrast.
"""


from __future__ import annotations
import html
from fractions import Fraction
from typing import TYPE_CHECKING, cast
from agreebound.core.escape import plural, printable
from agreebound.core.thresholds import THRESHOLD_WORDS
from agreebound.render.report import optional_thresholds_words, unpairable_text
from agreebound.core.gate import SEVERITY, Gate
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, in_raters_words, level_phrase, rater_word, raters_word
from agreebound.core.limits import DETAIL_DIMENSIONS, LISTED_CATEGORIES
from agreebound.core.json_types import JSONObject
from agreebound.panel.decision import gates_from_report
from agreebound.render.gates import RATE_LABELS
from agreebound.render import figures
from agreebound.render.html_parts import meaning_of, chart_caption, chart, data_name, decimal_text, fit, inputs_section, html_list, names_html, html_page, pct, result_html, html_section, slug, escaped, html_table, verdict_html

if TYPE_CHECKING:
    from agreebound.judge.decision import CalibrationDecision
    from agreebound.render.view import View


# --- panel -------------------------------------------------------------------------------------


def _panel_gates(d: JSONObject, p: JSONObject, gates: tuple[Gate, ...]) -> str:
    """``gates``: the dimension's gates as decided (detectors, alpha, spread)."""
    from agreebound.render.scored import alpha_certainty, plan_text

    result = {g.name: {True: "pass", False: "FAIL", None: "not checked"}[g.passed] for g in gates}
    a, s = d["alpha"], d["spread"]
    floor, cap = p["alpha_floor_permil"], p["ratio_cap_permil"]
    if a["defined"]:
        iv = a["interval"]
        interval = "" if iv.get("low") is None else \
            f'<br><span class="small">95% interval [{iv["low"]:.3f}, {iv["high"]:.3f}]' + \
            ("" if iv.get("method") == "units" else " (pairs, KALPHA: narrower than 95% when units have 3+ ratings)") + \
            "</span>"
        alpha = (f'{decimal_text(a["exact"])} <span class="small">= {escaped(a["exact"], 60)}, {a["permil"]} permil</span>'
                 f"{interval}")
        # how sure: "fragile" where the interval holds the floor, and what would decide it
        if a.get("fragile"):
            alpha += f'<br><strong>fragile</strong>: <span class="small">{escaped(alpha_certainty(a, floor), 600)}</span>'
        if plan := plan_text({**(a.get("plan") or {}), "sentence": ""} if a.get("plan") else None, "alpha"):
            alpha += f'<br><span class="small">{escaped(plan, 400)}</span>'

    else:
        alpha = "undefined"
    if s["state"] == "bounded":
        spread = f'{decimal_text(s["exact"], 2)}x <span class="small">= {escaped(s["exact"], 60)}, {s["permil"]} permil</span>'
        if s.get("bracket95"):
            lo, hi = s["bracket95"]
            spread += f'<br><span class="small">95% bracket [{lo:.2f}x, {"unbounded" if hi is None else f"{hi:.2f}x"}]</span>'
    else:
        spread = escaped(s["state"], 40)
    noun = rater_word(d)
    rows = [
        [f"independent {noun}s", str(d["ndet"]), "at least 2", result_html(result["detectors"])],
        [f"alpha ({escaped(a['level'], 20)})", alpha, f"at least {floor / 1000:.3f} ({floor} permil)",
         result_html(result["alpha"])],
        [f"{noun} spread (max / min rate)", spread, f"at most {cap / 1000:.2f}x ({cap} permil)",
         result_html(result["spread"])],
    ]
    for g in gates[3:]:  # the optional gates the thresholds turned on (OPTIONAL_PANEL_GATES)
        words = THRESHOLD_WORDS.get(g.threshold_field, (g.threshold_field, str))[0]
        value = f"{int(g.exact):,}" if g.exact is not None else escaped(g.state, 40)
        rows.append([escaped(g.name.replace("_", " "), 40), value,
                     f"{'at least' if g.kind == 'min' else 'at most'} {int(g.threshold):,} ({escaped(words, 60)})",
                     result_html(result[g.name])])
    return html_table(f"Gates for {escaped(d['dimension'], 60)}", ["gate", "value", "threshold", "result"], rows,
                  [25, 34, 25, 16], small=True)


def _study_html(i: int, section: JSONObject) -> str:
    from agreebound.render.study import study_html

    return study_html(i, section)


def _coefficients_html(i: int, section: JSONObject) -> str:
    """The coefficients beside alpha: what explains the gap, the table, pairs and categories."""
    from agreebound.render.report import coefficient_rows

    from agreebound.render.report import LISTED_PAIRS

    rows = [[escaped(r[0], 60)] + [escaped(x, 60) for x in r[1:]] for r in coefficient_rows(section)]
    out = [f'<h3 id="dim-{i}-coefficients">Other coefficients (beside alpha; they do not decide)</h3>',
           html_list(escaped(t, 1000) for t in section["explanation"])]
    if not section["table"]:
        return "\n".join(out)
    out += [
           html_table("Agreement coefficients, exact, with Gwet's 95% intervals",
                  ["coefficient", "value", "exact", "95% interval", "agreement", "chance"], rows,
                  [23, 9, 21, 19, 15, 13], numeric=(1, 4, 5), small=True)]
    if section["pairs"]:
        pairs = [[f"{escaped(p['a'], 40)} / {escaped(p['b'], 40)}", f"{p['shared_units']:,}", decimal_text(p["agreement"]),
                  decimal_text(p["cohen_kappa"])] for p in section["pairs"][:LISTED_PAIRS]]
        out.append(html_table("Each pair of raters, on the units both rated",
                          ["pair", "units", "agreement", "Cohen's kappa"], pairs, [44, 12, 20, 24],
                          numeric=(1, 2, 3), small=True))
        if len(section["pairs"]) > LISTED_PAIRS:
            out.append(f'<p class="note">The first {LISTED_PAIRS} of {len(section["pairs"]):,} pairs are listed '
                       "(every pair is in the JSON report).</p>")
    cats = [[escaped(c["category"], 40), f"{float(Fraction(c['share'])):.1%}", decimal_text(c["specific_agreement"])]
            for c in section["categories"][:LISTED_CATEGORIES]]
    out.append(html_table("Per category: its share of the values, and how often a second rater agrees on it",
                      ["category", "share", "specific agreement"], cats, [50, 25, 25], numeric=(1, 2), small=True))
    if len(section["categories"]) > LISTED_CATEGORIES:
        out.append(f'<p class="note">The first {LISTED_CATEGORIES} of {len(section["categories"]):,} categories are '
                   "listed (every category is in the JSON report).</p>")
    return "\n".join(out)


def _panel_dimension(i: int, d: JSONObject, p: JSONObject, charts: list[str], gates: tuple[Gate, ...]) -> str:
    noun = rater_word(d)
    items = [escaped(in_raters_words(r["message"], noun), 400) for r in d["reasons"]] or ["every check passed"]
    if d["spread"]["state"] == "not measured":
        items.append(f"spread not checked: no {noun} rates (choose a positive category or give a rates file)"
                     + ("" if d.get("positive_suggestion") is None
                        else f"; try the positive category {escaped(d['positive_suggestion'], 40)}"))
    if d["seed_disagrees"]:
        items.append(f"the specification's integer formula ({escaped(d['seed_path'], 300)}) would decide "
                     f"{html.escape(d['seed_verdict'])}")
    items += [f"note: {escaped(n, 400)}" for n in d.get("notices", [])]
    lv = d["level"]
    others = ", ".join(f"{escaped(k, 20)} {decimal_text(v)}" for k, v in lv["alpha_at_levels"].items() if k != d["alpha"]["level"])
    why = escaped(lv["chosen_reason"], 300) + ("" if lv["suggested"] == lv["in_force"] else
                                         f"; suggested {escaped(lv['suggested'], 20)}: {escaped(lv['reason'], 300)}")
    facts = [f"level of measurement {escaped(lv['in_force'], 20)}, {escaped(LEVEL_ORIGIN_WORDS[lv['chosen_by']], 20)} ({why})"
             + (f"; alpha at the other levels: {others}" if others else ""),
             f"{d['units']:,} units, {d['ratings']:,} ratings; " + (
                 f"detectors: {names_html(d['detectors'])}; people: {names_html(d['humans'])}" if noun == "detector"
                 else f"raters: {names_html(d['detectors'] + d['humans'])}")]
    if left_out := unpairable_text(d["units"], d["alpha"].get("pairable_units")):
        facts.append(left_out)  # counts and the rule's words: no user text
    if d.get("rates_source"):
        facts.append(f"{noun} rates: {escaped(d['rates_source'], 120)}")
    if d.get("kind") == "label":
        cats = d["categories"]
        more = f", and {cats['total'] - len(cats['listed']):,} more" if cats["total"] > len(cats["listed"]) else ""
        facts.append(f"categories ({cats['total']:,}): "
                     + ", ".join(f"{escaped(c['category'], 40)} ({c['count']:,})" for c in cats["listed"]) + more)
        facts += [f"check: {escaped(f, 300)}" for f in cats.get("flags", [])]
    depends = f"<p><strong>Depends on the level</strong>: {escaped(lv['note'], 400)}.</p>\n" if lv["note"] else ""
    body = (f"<p>{verdict_html(d['verdict'])} {escaped(level_phrase(lv['in_force'], lv['chosen_by']), 80)}: "
            f"{html.escape(meaning_of(d['verdict'], noun))}</p>\n{depends}"
            f"{_panel_gates(d, p, gates)}\n<h3 id=\"dim-{i}-why\">Why</h3>\n{html_list(items)}\n"
            f"<h3 id=\"dim-{i}-facts\">What was measured</h3>\n{html_list(facts)}\n" + "\n".join(charts)
            + (_coefficients_html(i, d["coefficients"]) if d.get("coefficients") else "")
            + (_study_html(i, d["study"]) if d.get("study") else ""))
    return html_section(f"dim-{i}", f"Dimension {escaped(d['dimension'], 60)}: {html.escape(d['verdict'])} at "
                    f"{escaped(lv['in_force'], 20)}", body)


def panel_html(view: View) -> str:
    """The summary table lists every dimension; details and charts follow for at most
    DETAIL_DIMENSIONS dimensions (the worst verdicts first), as in the Markdown report. A stored
    view (no measurements) has no charts: its gates are read back from the report."""
    report = view.report
    p = report["thresholds"]["panel"]
    dims = report["panel"]["dimensions"]
    decided = list(view.panel_decisions().values())
    by_name = {m.dimension: (m, d) for m, d in decided}
    pairs = list(zip(dims, decided)) if len(decided) == len(dims) else [(d, by_name.get(d["dimension"])) for d in dims]
    detailed = sorted(range(len(pairs)), key=lambda k: SEVERITY.get(pairs[k][0]["verdict"], 0))[:DETAIL_DIMENSIONS]
    data = data_name(report)
    rows = []
    for d in dims:
        a, s = d["alpha"], d["spread"]
        iv = a["interval"]
        interval = f"[{iv['low']:.3f}, {iv['high']:.3f}]" if a["defined"] and iv.get("low") is not None else "none"
        spread = f"{decimal_text(s['exact'], 2)}x" if s["state"] == "bounded" else escaped(s["state"], 40)
        lv = d["level"]
        level = escaped(lv["in_force"], 20) + (" (depends on the level)" if lv["depends_on_level"] else "")
        rows.append([escaped(d["dimension"], 60), verdict_html(d["verdict"]), level,
                     decimal_text(a["exact"]) if a["defined"] else "undefined", interval, spread, str(d["ndet"])])
    strict = ", strict: gates on the 95% bounds" if p.get("strict") else ""
    summary = (f"<p>Overall {verdict_html(report['panel']['verdict'])} over {len(dims):,} dimension"
               f"{'s' if len(dims) != 1 else ''}: alpha floor {p['alpha_floor_permil'] / 1000:.3f} "
               f"({p['alpha_floor_permil']} permil), spread cap {p['ratio_cap_permil'] / 1000:.2f}x "
               f"({p['ratio_cap_permil']} permil){escaped(optional_thresholds_words(p), 200)}{strict}.</p>\n"
               + html_table("Every dimension", ["dimension", "verdict", "level", "alpha", "95% interval", "spread",
                                            raters_word(dims)], rows, [15, 22, 12, 9, 17, 12, 13], numeric=(3, 6)))
    if len(dims) > len(detailed):
        summary += (f"<p class=\"note\">Details follow for the {len(detailed)} dimensions with the worst verdicts; "
                    f"the table above lists all {len(dims):,}.</p>")
    sections = [html_section("summary", "Summary", summary)]
    n = 0
    for i, k in enumerate(detailed):
        d, md = pairs[k]
        charts = []
        if md is not None:
            m, dec = md
            name = escaped(d["dimension"], 60)
            if m.alpha.value is not None:
                fig = fit(figures.alpha_bullet(m, dec))
                charts.append(chart(fig, n, f"{name}: alpha against the floor", chart_caption(
                    fig, "The diamond is alpha, the vertical line the floor, the grey bar alpha's 95% interval, the "
                         "shaded zone the values at or above the floor."), slug(data, d["dimension"], "alpha")))
                n += 1
            if m.rates:
                longest = max(len(printable(r.detector, 60)) for r in m.rates)
                # a long name is drawn slanted below the axis: the figure grows by about its height
                fig = fit(figures.rates_interval(m, dec), int(3.4 * min(longest, 90)) if longest > 12 else 0)
                charts.append(chart(fig, n, f"{name}: {rater_word(d)} rates with Wilson 95% intervals", chart_caption(
                    fig, f"Each {rater_word(d)}'s positive rate with its Wilson 95% interval; the band is where every rate "
                         "would have to lie for the spread to stay under the cap."), slug(data, d["dimension"], "rates")))
                n += 1
        # the decided gates; a dimension without its measurement here is read back from the report
        gates = md[1].gates if md is not None else gates_from_report(d, p)
        sections.append(_panel_dimension(i, d, p, charts, gates))
    read = report.get("read")
    extra = ""
    if read:
        from agreebound.render.report import rows_read_text

        said = f", {escaped(rows_read_text(read['rows']), 240)}" if read.get("rows") else ""
        extra = (f"<p>Read as {escaped(read['format'], 40)}, {escaped(read['mapping'].get('layout'), 20)} layout{said}.</p>"
                 + html_list(escaped(r, 300) for r in read.get("reasons", [])))
    sections.append(inputs_section(report, extra))
    return html_page("Agreebound panel report", data, report["panel"]["verdict"], sections, n,
                     meaning_of(report["panel"]["verdict"], raters_word(dims).split()[-1].removesuffix("s")))


# --- judge -------------------------------------------------------------------------------------


def _rate_label(name: str) -> str:
    return RATE_LABELS.get(name) or name.replace("_", " ").capitalize()


def _judge_rows(c: JSONObject) -> list[list[str]]:
    rows = []
    given = c.get("contract_origin", "given") == "given"
    for r in c["rates"]:
        op = "at least" if r["kind"] == "min" else "at most"
        threshold = f"{op} {r['threshold_bps'] / 100:.2f}% ({r['threshold_bps']:,} bps)"
        why = ""
        if r.get("unavailable"):
            measured, state = "none", "not evaluable"
            why = f'<br><span class="small">{escaped(r["unavailable"], 300)}</span>'
        elif not r["evaluable"]:
            measured, state = "none", "not evaluable (no opportunities)"
        else:
            measured = (f"{r['bps'] / 100:.2f}% <span class=\"small\">= {r['numerator']:,}/{r['denominator']:,}, "
                        f"{r['bps']:,} bps</span>")
            state = "pass" if r["passed"] else "FAIL"
            if not given:  # against a limit that is not a contract: words, never a verdict's colour
                state = "within the limit" if r["passed"] else "outside the limit"
        iv, w = r.get("interval95"), r.get("wilson95")
        if r.get("unavailable") or not (iv or w):
            interval = "none"
        elif iv:  # case-aware: a case's observations are one cluster
            interval = f"[{pct(iv[0], 2)}, {pct(iv[1], 2)}]"
            said = [f"{r['cases']:,} cases" if r.get("cases") is not None else "",
                    f"{r['observations']:,} observations" if r.get("observations") is not None else "",
                    f"design effect {r['design_effect']:.3g}" if r.get("design_effect") is not None else ""]
            if any(said):
                interval += f'<br><span class="small">{", ".join(x for x in said if x)}</span>'
        else:
            interval = f"[{pct(w[0], 2)}, {pct(w[1], 2)}]"
        if r.get("fragile"):  # the interval holds the threshold: another sample could reach the other result
            interval += '<br><strong>fragile</strong>: <span class="small">the interval holds the threshold</span>'
        if r.get("bound_passed") is not None:
            interval += f'<br><span class="small">bound gate: {"pass" if r["bound_passed"] else "FAIL"}</span>'
        from agreebound.render.markdown import flip_words
        from agreebound.render.scored import plan_text

        flip = r.get("cases_to_flip") or {}
        flip_text = "" if not flip or flip.get("direction") == "not evaluable" or not r["evaluable"] \
            or r.get("unavailable") else f'<br><span class="small">{escaped(flip_words(flip, given), 60)} (cases)</span>'
        plan = plan_text(r.get("plan")) if r["evaluable"] and not r.get("unavailable") else None
        plan_html = f'<br><span class="small">{escaped(plan, 400)}</span>' if plan else ""
        rows.append([html.escape(_rate_label(r["name"])), measured, interval, threshold,
                     result_html(state) + why + flip_text + plan_html])
    return rows


def _bias_html(bias: JSONObject, net_gates: list[JSONObject]) -> str:
    """The measures beside the gates that tell bias from general disagreement, and the verdict's reading."""
    from agreebound.render.markdown import bias_measures, bias_said, measure_interval, measure_value

    rows = []
    for m in bias_measures(bias):
        interval = measure_interval(m) or "none"
        if m.get("interval95") and m.get("interval_method"):
            interval += f'<br><span class="small">{escaped(m["interval_method"], 200)}</span>'
        test = "" if m.get("p_value") is None else f'<br><span class="small">p = {m["p_value"]:.2g}</span>'
        rows.append([escaped(m["title"], 80), f"{measure_value(m)}<br><span class=\"small\">= {escaped(m['fraction'], 80)}"
                     f"</span>{test}", interval, escaped(m.get("unavailable") or m["definition"], 300)])
    body = html_table("Measures beside the gates (not gates unless the contract gates on them)",
                  ["measure", "measured", "95% interval", "what it counts"], rows, [22, 22, 26, 30], small=True)
    said = bias_said(bias)
    body += html_list(escaped(x, 400) for x in said) if said else ""
    notes = list(bias.get("verdict_notes", [])) + [
        f"Contract gate {g['name']} (at most {g['threshold_bps'] / 100:g} points): "
        + ("not evaluable" if not g["evaluable"] else "pass" if g["passed"] else "FAIL") for g in net_gates]
    if notes:
        body += "<h3>What the verdict rests on</h3>" + html_list(escaped(x, 400) for x in notes)
    return body


def _agreement_html(diag: JSONObject) -> str:
    """The judge against the humans: each agreement figure by its name, kappa, the human-human ceiling."""
    from agreebound.render.markdown import agreement_rows, agreement_said

    rows = agreement_rows(diag)
    if not rows:
        return ""
    body = html_table("The judge against the humans", ["measure", "value", "95% interval", "cases", "what it counts"],
                      [[escaped(x, 400) for x in row] for row in rows], [28, 14, 14, 8, 36], numeric=(1, 2, 3),
                      small=True)
    return body + html_list(escaped(x, 600) for x in agreement_said(diag))


def _headline_html(headline: JSONObject) -> str:
    """Each model pair's win rate: the judge's alone, corrected by the human labels, the humans'."""
    from agreebound.render.markdown import headline_rows

    body = f"<p>{escaped(headline['note'], 800)}</p>"
    rows = headline_rows(headline)
    if rows:
        body += html_table("Win rate of the first model of each pair", ["model pair", "judge only", "corrected",
                                                                    "human only", "labelled / unlabelled",
                                                                    "judge off by"],
                       [[escaped(x, 200) for x in row] for row in rows], [24, 15, 17, 15, 14, 15], small=True)
        body += html_list(escaped(p["sentence"], 600) for p in headline["pairs"])
    return body + f'<p class="note">Method: {escaped(headline["method"], 400)}.</p>'


def calibration_html(view: View) -> str:
    """A pairwise judge's report: the decision, every gate with its chart, the bias measures."""
    d, report = cast("CalibrationDecision", view.decided), view.report  # a live calibration view's
    c = report["calibration"]
    data = data_name(report)
    if c.get("contract_origin", "given") == "given":
        against = (f"against the {escaped(c['decided_against']['kind'], 20)} contract "
                   f"<code>{escaped(c['decided_against']['content_id'], 120)}</code>")
    else:  # no contract: measured against a draft from the log, never decided
        against = (f"({escaped(c['decision_reason'], 120)}): measured against {escaped(c['contract_source'], 120)}, drafted "
                   f"from the log as <code>{escaped(c['decided_against']['content_id'], 120)}</code>; give the contract "
                   "for a decision")
    summary = (f"<p>{verdict_html(c['decision'])} {against}.</p>\n"
               f"<p>{c['cases']:,} cases, {c['observations']:,} observations; scope "
               f"<code>{escaped(c['snapshot']['scope'], 120)}</code>.</p>\n"
               + html_table("Every gate of the contract" if c.get("contract_origin", "given") == "given" else
                        f"Every gate, against {escaped(c['contract_source'], 120)}",
                        ["gate", "measured", "95% interval", "threshold", "result"],
                        _judge_rows(c), [17, 20, 23, 18, 22], small=True))
    if any(r.get("interval95") for r in c["rates"]):
        summary += ("<p class=\"note\">95% intervals are Wilson intervals at the effective number of observations: "
                    "the observations of one case (two orders x repetitions) are not independent, so their count is "
                    "divided by the measured design effect of the cases.</p>")
    if c.get("contract_origin", "given") != "given":
        summary += f"<p>INCOMPLETE: {escaped(c['decision_reason'], 200)}: not decided, this is not a pass.</p>"
    elif c["decision"] == "INCOMPLETE":
        some = any(not r.get("unavailable") for r in c["rates"])
        summary += ("<p>INCOMPLETE: " + ("every gate that could be evaluated passed, but some could not" if some
                                          else "no gate could be evaluated from this source") + ": this is not a pass.</p>")
    if c.get("seed_disagrees"):
        summary += f"<p>Seed rounding would have said {html.escape(c['seed_decision'])}.</p>"
    notes = [escaped(n, 400) for n in c.get("notes", [])]
    issues = c.get("reference_issues", [])
    more = ""
    if issues:
        shown = html_list(f"<code>{escaped(x, 120)}</code>" for x in issues[:LISTED_CATEGORIES])
        rest = f"<p>and {len(issues) - LISTED_CATEGORIES:,} more.</p>" if len(issues) > LISTED_CATEGORIES else ""
        more = f"<details><summary>Reference issues: {len(issues):,}</summary>{shown}{rest}</details>"
    else:
        more = "<p>Reference issues: 0.</p>"
    diag = c.get("diagnostics") or {}
    facts = []
    if diag:
        aw, an = diag.get("agreement_with_ties"), diag.get("agreement_without_ties")
        if aw:
            facts.append(f"agreement with the human reference, ties included: {aw[0]:,}/{aw[1]:,}")
        if an:
            facts.append(f"agreement where the human reference is not a tie (the audit's \"without ties\", not "
                         f"Zheng et al.'s): {an[0]:,}/{an[1]:,}")
        if diag.get("judge_human_alpha") is not None:
            facts.append(f"judge-human alpha: {decimal_text(diag['judge_human_alpha'])}")
        facts.append(f"position flips: {diag.get('stable_flips', 0):,} stable, {diag.get('noisy_flips', 0):,} noisy")
    details = (("<h3 id=\"notes-title\">Notes</h3>" + html_list(notes) if notes else "")
               + "<h3 id=\"refs-title\">References</h3>" + more
               + ("<h3 id=\"diag-title\">Diagnostics</h3>" + html_list(facts) if facts else ""))
    fig = fit(figures.calibration_rates(d))
    summary += chart(fig, 0, "Judge rates against the contract's thresholds", chart_caption(
        fig, "Each rate as a bar (in percent), the vertical mark its threshold; the table above gives the numbers."),
        slug(data, "judge", "rates"))
    sections = [html_section("summary", "Summary", summary)]
    if agreement := _agreement_html(diag):
        sections.append(html_section("agreement", "Agreement with the humans", agreement))
    if c.get("bias"):
        sections.append(html_section("bias", "Bias or disagreement?", _bias_html(c["bias"], c.get("net_gates", []))))
    if c.get("headline"):
        sections.append(html_section("headline", "The corrected headline", _headline_html(c["headline"])))
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        fig = fit(figures.reliability_figure(c["confidence"]))
        body = _scored_confidence(c["confidence"]) + chart(fig, 1, "Reliability diagram", chart_caption(
            fig, "Each bin's mean stated probability against the observed frequency, with Wilson 95% intervals."),
            slug(data, "judge", "reliability"))
        sections.append(html_section("confidence", "Stated confidence against the humans", body))
    sections.append(html_section("details", "Notes and references", details))
    snap = c["snapshot"]
    extra = html_table("The contract and the snapshot", ["field", "value"], widths=[25, 75], small=True, rows=[
        ["contract", f"<code>{escaped(c['contract'].get('content_id'), 120)}</code>"],
        ["contract version", escaped(c["contract"].get("version"), 80)],
        ["snapshot names", f"<code>{escaped(snap.get('contract_content_id'), 120)}</code>"],
        ["rubric digest", f"<code>{escaped(snap.get('rubric_digest'), 80)}</code>"],
    ] + ([["rebound from", f"<code>{escaped(snap['rebound_from'], 120)}</code>"]] if snap.get("rebound_from") else []))
    sections.append(inputs_section(report, extra))
    return html_page("Agreebound judge calibration report", data, c["decision"], sections, 1)


# --- graded and pass/fail judges --------------------------------------------------------------


def _scored_summary(s: JSONObject) -> str:
    """The decision and for whom, the judge's kind and level, what was read, every judge's decision."""
    from agreebound.render.scored import decided_for_words, level_words

    whom = html.escape(decided_for_words(s)) if s["decided_for"] == "every judge" else \
        f"the judge <code>{escaped(s['decided_for'], 120)}</code>"
    from agreebound.render.scored import DESCRIBED_ONLY

    rows = [[escaped(a["judge"], 80), verdict_html(a["decision"]), f"{a['items']:,}", f"{a['pairs']:,}",
             escaped(a["decision_reason"] or "-", 300)] for a in s["audits"]]
    tail = f": {html.escape(DESCRIBED_ONLY)}" if s.get("described_only") else ""
    body = (f"<p>{verdict_html(s['decision'])} for {whom}{tail}.</p>\n"
            f"<p>{escaped(s['kind_words'], 200)}. Level: {escaped(level_words(s), 120)} (alpha and weighted kappa at this "
            "level).</p>\n"
            f"<p>Read as {escaped(s['shape'], 80)}: <code>{escaped(s['file'], 120)}</code>, {plural(s['items'], 'item')}; judges: "
            f"{names_html(s['judges'])}; humans: {names_html(s['humans'])}.</p>\n"
            + html_table("Every judge's decision", ["judge", "decision", "items", "pairs", "why not decided"],
                     rows, [24, 24, 12, 12, 28], numeric=(2, 3), small=True))
    if s["decision"] == "INCOMPLETE":
        body += "<p>INCOMPLETE: some gate could not be evaluated: this is not a pass.</p>"
    return body


def _scored_gates(a: JSONObject) -> str:
    """One judge's two gates: value, 95% interval, threshold, result in words, fragile and plan."""
    from agreebound.render.scored import gate_interval, gate_notes, gate_result, gate_threshold, gate_value

    rows = []
    for g in a["gates"]:
        word = "pass" if g["passed"] else "FAIL" if g["evaluable"] else "not evaluable"
        said = gate_result(g)
        extra = said[len(word):].lstrip(": ")
        notes = "".join(f'<br><span class="small">{escaped(n, 500)}</span>' for n in ([extra] if extra else [])
                        + gate_notes(g))
        rows.append([escaped(g["title"], 120), gate_value(g), gate_interval(g), escaped(gate_threshold(g), 80),
                     result_html(word) + notes])
    return html_table("The gates (each judge must pass both)", ["gate", "measured", "95% interval", "threshold", "result"],
                  rows, [26, 12, 18, 20, 24], small=True)


def _scored_alpha(a: JSONObject) -> str:
    from agreebound.render.scored import alpha_rows, pair_rows

    body = html_table("The judge against the humans, the humans against each other (alphas of pooled pairs)",
                  ["alpha", "value", "95% interval", "over"], [[escaped(c, 400) for c in r] for r in alpha_rows(a)],
                  [26, 12, 18, 44], small=True)
    return body + html_table("Each pair of raters", ["rater", "rater", "items both rated", "alpha"],
                         [[escaped(c, 80) for c in r] for r in pair_rows(a)], [32, 32, 18, 18], numeric=(2, 3), small=True)


def _scored_measures(a: JSONObject) -> str:
    from agreebound.render.scored import measure_rows

    rows = [[escaped(r[0], 120), escaped(r[1], 40) + (f'<br><span class="small">= {escaped(r[3], 80)}</span>' if r[3] != "-" else ""),
             escaped(r[2], 40) + (f'<br><span class="small">{escaped(r[4], 200)}</span>' if r[4] != "-" else ""), escaped(r[5], 400)]
            for r in measure_rows(a)]
    return html_table("Measures beside the gates (they do not decide)", ["measure", "measured", "95% interval",
                                                                      "what it counts"], rows, [24, 18, 26, 32],
                  small=True)


def _scored_confidence(c: JSONObject) -> str:
    from agreebound.render.scored import bin_rows, confidence_lines

    return (html_list(escaped(x, 600) for x in confidence_lines(c))
            + html_table("The reliability diagram's bins", ["stated (mean)", "observed",
                                                        "95% interval (Wilson)", escaped(c.get("unit", "items"), 10)],
                     [[escaped(x, 40) for x in r] for r in bin_rows(c)], [25, 25, 30, 20], numeric=(1, 3), small=True))


def _scored_scores(s: JSONObject) -> str:
    """Each judge's own scores: the count, the spread over the scale, each model's mean (human labels
    not needed; agreebound.scored.describe)."""
    from agreebound.render.scored import distribution_rows, model_rows, scores_caption

    body = ""
    for j in s["judge_scores"]:
        name = escaped(j["judge"], 60)
        body += (f"<h3><code>{name}</code>: {html.escape(j['sentence'])}</h3>"
                 + html_table(f"{name}: its scores over the scale", ["bin" if j["binned"] else "score", "count", "share"],
                              [[escaped(c, 60) for c in r] for r in distribution_rows(j, s["labels"])], [40, 30, 30],
                              numeric=(1, 2), small=True))
        if j["models"]:
            what = "pass rate" if j["binary"] else "mean judge score"
            body += html_table(f"{name}: each model's {what}", ["model", "items", what, "95% interval"],
                               [[escaped(c, 120) for c in r] for r in model_rows(j)], [40, 14, 20, 26],
                               numeric=(1, 2), small=True)
        body += f'<p class="small">{html.escape(scores_caption(j))}</p>'
    return body


def _scored_judge(k: int, a: JSONObject, data: str, first_chart: int, s: JSONObject | None = None) -> tuple[str, int]:
    """One judge's section and how many charts it drew (numbered from ``first_chart``)."""
    from agreebound.render.scored import judge_counts

    name = escaped(a["judge"], 60)
    n = first_chart
    body = f"<p>{plural(a['items'], 'item')} with the judge's score and a human's; {plural(a['pairs'], 'judge-human pair')}.</p>\n"
    if s is not None and s.get("described_only"):
        body = f"<p>{html.escape(judge_counts(a, s))}.</p>\n"
    if a["decision_reason"]:
        body += f"<p>Not decided, this is not a pass: {escaped(a['decision_reason'], 400)}.</p>\n"
    body += _scored_gates(a) + "<h3>Alpha</h3>" + _scored_alpha(a) + "<h3>Measures beside the gates</h3>" \
        + _scored_measures(a)
    if a["table"]["values"]:
        fig = fit(figures.score_heatmap(a["table"], a["judge"]))
        body += chart(fig, n, f"{name}: its scores against the humans'", chart_caption(
            fig, "Judge score (rows) against human score (columns); agreement on the outlined diagonal."),
            slug(data, a["judge"], "scores"))
        n += 1
    if a["confidence"]:
        body += "<h3>Stated confidence against the humans</h3>" + _scored_confidence(a["confidence"])
        fig = fit(figures.reliability_figure(a["confidence"]))
        body += chart(fig, n, f"{name}: reliability diagram", chart_caption(
            fig, "Each bin's mean stated probability against the observed frequency, with Wilson 95% intervals."),
            slug(data, a["judge"], "reliability"))
        n += 1
    return html_section(f"judge-{k}", f"Judge {name}: {html.escape(a['decision'])}", body), n - first_chart


def _scored_panel(p: JSONObject) -> str:
    from agreebound.render.scored import panel_alpha, panel_rows

    body = f"<p>Alpha among the judges: {escaped(panel_alpha(p), 120)}.</p>"
    if p["without"]:
        body += html_table("Each judge left out in turn", ["judge left out", "alpha of the others"],
                       [[escaped(j, 80), v] for j, v in panel_rows(p)], [60, 40], numeric=(1,), small=True)
    drop = f"<code>{escaped(p['drop'], 120)}</code>" if p["drop"] else "none"
    return body + f"<p>Which judge to drop: {drop}: {escaped(p['why'], 300)}.</p>"


def _scored_details(s: JSONObject) -> str:
    """Identity, how scores were written, notes, and the thresholds with their source and citations."""
    from agreebound.render.scored import value_label

    body = ""
    if s["identity"]:
        body += html_table("What ties the result to the judge and rubric", ["field", "value"],
                       [[escaped(k, 60), f"<code>{escaped(v, 300)}</code>"] for k, v in s["identity"].items()], [25, 75],
                       small=True)
    if s["labels"]:
        body += "<p>Scores as written: " + ", ".join(escaped(value_label(float(k), s["labels"]), 80)
                                                     for k in s["labels"]) + ".</p>"
    if s["notes"]:
        body += "<h3>Notes</h3>" + html_list(escaped(n, 600) for n in s["notes"])
    rows = [[escaped(k, 60), f"{v:,}", escaped(s["citations"][k], 800)] for k, v in s["thresholds"].items() if k in s["citations"]]
    if s["thresholds"].get("strict"):
        rows.append(["strict", "on", "a gate passes only when its 95% interval's lower bound passes too"])
    body += (f"<h3>Thresholds</h3><p>Source: {escaped(s['threshold_source'], 120)}.</p>"
             + html_table("Thresholds in force, with their citations", ["threshold", "permil", "why this value"],
                      rows, [28, 12, 60], numeric=(1,), small=True))
    return body


def scored_html(report: JSONObject) -> str:
    """A graded or pass/fail judge's report (kind "scored") as a self-contained page: the same sections
    as its Markdown (agreebound.render.scored.scored_markdown), with each judge's score table and
    reliability diagram drawn."""
    s = report["scored"]
    data = data_name(report)
    sections = [html_section("summary", "Summary", _scored_summary(s))]
    if s.get("judge_scores"):
        sections.append(html_section("judge-scores", "The judge's own scores (no human labels needed)",
                                     _scored_scores(s)))
    charts = 0
    for k, a in enumerate(s["audits"]):
        section, drawn = _scored_judge(k, a, data, charts, s)
        sections.append(section)
        charts += drawn
    if s["panel"]:
        sections.append(html_section("panel", "The panel of judges", _scored_panel(s["panel"])))
    if s.get("recalibration") is not None:
        from agreebound.render.scored import recalibration_text

        sections.append(html_section("recalibration", "The judge's scores on the humans' scale (beside the decision)",
                                     html_list(escaped(t.strip(), 1000) for t in recalibration_text(s["recalibration"]))))
    sections.append(html_section("details", "Identity, notes and thresholds", _scored_details(s)))
    sections.append(inputs_section(report))
    kind = "pass/fail" if s["judge_kind"] == "binary" else "graded"
    return html_page(f"Agreebound {kind} judge report", data, s["decision"], sections, charts, SCORED_MEANING[s["decision"]])


#: A graded or pass/fail judge's decision in words (no contract: the gates are against the humans).
SCORED_MEANING = {
    "PASS_CALIBRATION": "every judge decided agrees with the humans about as well as they agree with each other, "
                        "and above the floor",
    "FAIL_CALIBRATION": "a judge agrees with the humans less than they agree with each other (beyond the margin), "
                        "or below the floor",
    "INCOMPLETE": "not decided: a gate could not be evaluated (it needs two or more humans on shared items, or "
                  "human labels on the judge's items); this is not a pass"}
