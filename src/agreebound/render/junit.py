"""The verdict as a JUnit XML report (``--report gates.xml``), which CI systems show as tests.

One test suite per dimension (a panel) or judge, one test case per gate, named by the gate alone so
a CI system follows each gate from run to run:

- a gate that fails is a ``<failure>`` whose message is the margin ("alpha 0.431, needs 0.600:
  0.169 short");
- a gate that could not be evaluated (undefined, not measured, no opportunities, no contract) is
  ``<skipped>`` with why: never a pass;
- a *fragile* gate (its 95% interval includes the threshold: another sample of the same size could
  decide it the other way) passes or fails as decided, and says so in its output and in a
  ``fragile`` property, with how many more units or cases would decide it. Strict mode
  (``strict = true`` in the thresholds file) decides on the interval's bound, so a fragile gate
  fails there.

Nothing here compares a value with a threshold: every result is the decided gate's
(:mod:`agreebound.render.gates`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Sequence, cast

from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject
from agreebound.render.gates import GateView

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.judge.decision import CalibrationDecision
    from agreebound.render.view import View

#: At most this many characters of user text (a dimension's, a judge's name) in a name.
NAME_CHARS = 120


#: What XML 1.0 cannot hold (control characters but tab and line breaks, lone surrogates, U+FFFE
#: and U+FFFF): shown as their escapes.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _text(x: object, limit: int = 2000) -> str:
    """User text as XML can hold it: line by line, control and invisible characters shown escaped
    (:func:`agreebound.core.escape.printable`), then anything XML 1.0 still cannot hold, each line cut
    to ``limit``."""
    lines = (printable(line, limit) for line in str(x).split("\n"))
    return "\n".join(_NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", line) for line in lines)


def _case(suite: ET.Element, classname: str, g: GateView) -> tuple[int, int]:
    case = ET.SubElement(suite, "testcase", classname=classname, name=_text(g.label, NAME_CHARS), time="0")
    props = ET.SubElement(case, "properties")
    for name, value in (("status", g.status), ("fragile", "true" if g.fragile else "false"),
                        ("threshold", g.fmt(g.threshold)), ("value", "" if g.state else g.fmt(g.value)),
                        ("strict", "true" if g.strict else "false")):
        ET.SubElement(props, "property", name=name, value=_text(value, 200))
    lines = [g.margin]
    if g.low is not None:
        lines.append(f"95% interval: {g.fmt(g.low)} to {g.fmt(g.high)}"
                     + (f" ({g.interval_method})" if g.interval_method else ""))
    if g.fragile:
        lines.append(f"FRAGILE: {g.fragile}" + (f"; {g.plan_sentence}" if g.plan_sentence else "")
                     + ("" if g.strict else "; strict mode (strict = true in the thresholds) would fail it"
                        if g.passed else ""))
    if g.detail:
        lines.append(g.detail)
    lines.extend(g.notes)
    failures = skipped = 0
    if g.passed is False:
        ET.SubElement(case, "failure", message=_text(g.margin, 400), type="gate failed").text = _text("\n".join(lines))
        failures = 1
    elif g.passed is None:
        ET.SubElement(case, "skipped", message=_text(f"not evaluable: {g.margin}", 400))
        skipped = 1
    ET.SubElement(case, "system-out").text = _text("\n".join(lines))
    return failures, skipped


def junit_xml(title: str, suites: Sequence[tuple[str, str, Sequence[GateView]]]) -> str:
    """``suites``: (subject, its verdict in words, its gates). ``title``: the run ("agreebound panel
    detector_panel.csv")."""
    root = ET.Element("testsuites", name=_text(title, 300))
    totals = [0, 0, 0]
    for subject, verdict, gates in suites:
        suite = ET.SubElement(root, "testsuite", name=_text(f"{subject}: {verdict}", 300))
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="verdict", value=_text(verdict, 300))
        fragile = [g.label for g in gates if g.fragile]
        ET.SubElement(props, "property", name="fragile gates", value=_text(", ".join(fragile) or "none", 300))
        failures = skipped = 0
        for g in gates:
            f, s = _case(suite, f"agreebound.{g.domain}.{_text(subject, NAME_CHARS)}", g)
            failures, skipped = failures + f, skipped + s
        suite.set("tests", str(len(gates)))
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("errors", "0")
        totals = [totals[0] + len(gates), totals[1] + failures, totals[2] + skipped]
    root.set("tests", str(totals[0]))
    root.set("failures", str(totals[1]))
    root.set("skipped", str(totals[2]))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def panel_junit(view: View) -> str:
    """A panel's gates per dimension, as the view's decisions hold them (a stored view: as its
    report stored them)."""
    from agreebound.panel.levels import level_phrase
    from agreebound.render.gates import panel_gates

    report = view.report
    words = {d["dimension"]: f"{d['verdict']} {level_phrase(d['level']['in_force'], d['level']['chosen_by'])}"
             for d in report["panel"]["dimensions"]}
    suites = [(name, words.get(name, d.verdict.value), panel_gates(name, m, d))
              for name, (m, d) in view.panel_decisions().items()]
    return junit_xml(f"agreebound panel {_inputs(report)}", suites)


def calibration_junit(view: View) -> str:
    """A pairwise judge's gates as the view's decision holds them, with their case-aware intervals."""
    from agreebound.render.gates import judge_gates
    from agreebound.judge.intervals import judge_rate_intervals

    d = cast("CalibrationDecision", view.decided)  # a live calibration view's
    bundle = cast("JudgeBundle", view.bundle)
    gates = judge_gates("judge", d, judge_rate_intervals(bundle.measurement))
    c = view.report["calibration"]
    return junit_xml(f"agreebound calibrate {_inputs(view.report)}", [("judge", c["decision"], gates)])


def scored_junit(report: JSONObject) -> str:
    """A graded or pass/fail judge's gates per judge, as the report holds them decided."""
    from agreebound.render.gates import view
    from agreebound.render.scored import gates_from_section
    from agreebound.scored.items import GATE_TITLES

    suites = []
    for a in report["scored"]["audits"]:
        gates = [view(g, "judge", a["judge"], GATE_TITLES[g.name]) for g in gates_from_section(a)]
        suites.append((a["judge"], a["decision"], gates))
    return junit_xml(f"agreebound calibrate {_inputs(report)}", suites)


def _inputs(report: JSONObject) -> str:
    return " ".join(str(i.get("file", "")) for i in report.get("inputs", [])[:3])
