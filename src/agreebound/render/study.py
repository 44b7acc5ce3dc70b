"""An annotation study (agreebound.panel.study) as every reader gets it: the JSON report's section
(:func:`study_section`), and from that section alone the command line's lines, the Markdown and
the HTML. The dashboard reads the same section for its sentences and tables.

The JSON lists each rater's skill and agreement with intervals and its confusion rows, the
marginal-homogeneity test, the sentences, and the first :data:`LISTED_QUEUE` units of the relabel
queue (the whole queue, with every rated unit's consensus label, is the export:
``agreebound panel --relabel FILE``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject
from agreebound.render.scored import exact, rounded

if TYPE_CHECKING:
    from agreebound.panel.study import AnnotationStudy

#: Units of the relabel queue the reports list (the export has them all).
LISTED_QUEUE = 20


def study_section(s: AnnotationStudy, listed: int = LISTED_QUEUE) -> JSONObject:
    """The study of one dimension for the JSON report (``decides`` is always false)."""
    out: JSONObject = {"decides": False, "method": s.method, "skipped": s.skipped, "units": s.units,
                       "summary": s.summary()}
    if s.skipped or s.model is None or s.queue is None or s.marginal is None:
        return {**out, "labels": [], "raters": [], "marginal": None, "explanation": None, "queue": [],
                "queue_length": 0, "rule": None, "consensus_probability_below_90": 0}
    m, q, t = s.model, s.queue, s.marginal
    raters = []
    for j, sk in enumerate(m.skills):
        raters.append({
            "rater": sk.rater, "ratings": sk.n_ratings,
            "skill": rounded(sk.skill), "skill_interval95": None if sk.low is None else [rounded(sk.low), rounded(sk.high)],
            "agreement": rounded(sk.agreement),
            "agreement_interval95": None if sk.agreement_low is None else [rounded(sk.agreement_low),
                                                                            rounded(sk.agreement_high)],
            "chance": sk.skill is not None and sk.indistinguishable_from_chance, "confused": sk.confused,
            "confusion": [[rounded(float(v)) for v in row] for row in m.confusion[j]],
        })
    return {**out,
            "labels": [str(v) for v in m.labels_],
            "raters": raters,
            "marginal": {"method": t.method, "statistic": exact(t.statistic), "df": t.df,
                         "p_value": rounded(t.p_value), "units": t.units},
            "explanation": s.explanation,
            "rule": q.rule_text,
            "queue_length": len(q.rows),
            "consensus_probability_below_90": sum(1 for _, _, p in s.consensus if p < 0.9),
            "queue": [{"rank": r.rank, "unit": r.unit, "consensus": str(r.consensus), "probability": rounded(r.probability),
                       "split": exact(r.split), "ratings": r.ratings, "alpha_impact": exact(r.alpha_impact),
                       "impact_action": r.impact_action, "why": r.why} for r in q.rows[:listed]]}


def _num(x: float | None) -> str:
    """Three decimals; a value that rounds to zero is 0.000, never -0.000."""
    if x is None:
        return "undefined"
    text = f"{x:.3f}"
    return "0.000" if text == "-0.000" else text


def _interval(iv: list[float] | None) -> str:
    return "-" if iv is None else f"[{_num(iv[0])}, {_num(iv[1])}]"


def rater_rows(section: JSONObject) -> list[list[str]]:
    """rater, ratings, skill, its 95% interval, agreement, its interval, what the model says of it."""
    out = []
    for r in section["raters"]:
        said = ("no variation (one label only)" if r["skill"] is None else "at chance" if r["chance"]
                else "confused" if r["confused"] else "informative")
        out.append([r["rater"], f"{r['ratings']:,}", _num(r["skill"]), _interval(r["skill_interval95"]),
                    _num(r["agreement"]), _interval(r["agreement_interval95"]), said])
    return out


def queue_rows(section: JSONObject) -> list[list[str]]:
    """rank, unit, consensus, probability, split, alpha's move, why."""
    return [[str(r["rank"]), r["unit"], r["consensus"], f"{r['probability']:.3f}", r["split"],
             "undefined" if r["alpha_impact"] is None else f"{float(Fraction(r['alpha_impact'])):+.4f}", r["why"]]
            for r in section["queue"]]


RATER_HEADER = ["rater", "ratings", "skill", "skill 95% interval", "agreement", "agreement 95% interval", "the model says"]
QUEUE_HEADER = ["rank", "unit", "consensus", "probability", "split", "alpha's move", "why"]


def study_text(section: JSONObject) -> list[str]:
    """The command line's lines (indented under the dimension)."""
    lines = ["  annotation study (beside the verdict; it does not decide):"]
    lines += [f"    {printable(t, 600)}" for t in section["summary"]]
    if section["skipped"]:
        return lines
    rows = [RATER_HEADER[:-1] + ["model says"]] + rater_rows(section)
    widths = [max(len(printable(r[i], 40)) for r in rows) for i in range(len(rows[0]))]
    lines += ["    " + "  ".join(printable(c, 40).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    t = section["marginal"]
    lines.append(f"    rates: {rates_text(t)}")
    lines.append(f"    relabel queue: {units(section['queue_length'])}, {section['rule']}; first "
                 f"{min(len(section['queue']), 10)}:")
    for r in queue_rows(section)[:10]:
        lines.append(f"      {r[0]}. {printable(r[1], 60)} -> {printable(r[2], 40)} (p {r[3]}, split {r[4]}, alpha "
                     f"{r[5]}): {printable(r[6], 400)}")
    return lines


def units(n: int) -> str:
    return f"{n:,} unit{'' if n == 1 else 's'}"


def rates_text(t: JSONObject) -> str:
    """The rates' test in words: its method, and its statistic only when there was one to test."""
    if t["df"] == 0:
        return str(t["method"])
    return f"{t['method']}: statistic {stat_text(t)} on {t['df']} df, {p_text(t)}"


def stat_text(t: JSONObject) -> str:
    return "infinite" if t["statistic"] is None else f"{float(Fraction(t['statistic'])):.3f}"


def p_text(t: JSONObject) -> str:
    """"p < 0.001" or "p = 0.042"."""
    return "p < 0.001" if t["p_value"] < 0.001 else f"p = {t['p_value']:.3f}"


def study_html(i: int, section: JSONObject) -> str:
    from agreebound.render.html_parts import escaped, html_list, html_table

    out = [f'<h3 id="dim-{i}-study">Annotation study (beside the verdict; it does not decide)</h3>',
           html_list(escaped(t, 1000) for t in section["summary"])]
    if section["skipped"]:
        return "\n".join(out)
    out.append(html_table("Each rater: skill (how much its labels tell) and agreement (kappa of its labels as said)",
                          RATER_HEADER, [[escaped(x, 60) for x in r] for r in rater_rows(section)],
                          [20, 10, 10, 16, 10, 16, 18], numeric=(1, 2, 4), small=True))
    t = section["marginal"]
    out.append(f"<p>Marginal homogeneity: {escaped(rates_text(t), 600)}.</p>")
    out.append(html_table(f"Relabel queue: the first {len(section['queue'])} of {units(section['queue_length'])} "
                          f"({escaped(section['rule'], 300)})", QUEUE_HEADER,
                          [[escaped(x, 300) for x in r] for r in queue_rows(section)], [6, 12, 12, 10, 8, 10, 42],
                          numeric=(0, 3, 5), small=True))
    out.append(f'<p class="note">How: {escaped(section["method"], 1200)}</p>')
    return "\n".join(out)
