"""The one view model: a decision as every renderer reads it.

A :class:`View` is made once, where ``decide`` ran (agreebound.app.pipeline for a run, the
dashboard for its cached measurement), from the measurements and the decisions made of them. Its
``report`` is the JSON serialisation (schemas/report.schema.json); text, Markdown, HTML, JUnit, the
figures and the dashboard read the view, and none of them decides again (the import-linter contract
``render-never-decides``). A stored run reads back into a view (:meth:`View.stored`): its gates are
read from the report as the decisions stored them, so history's compare reads what a live view reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence, Union

from agreebound.core.gate import Gate
from agreebound.core.thresholds import ThresholdSet
from agreebound.core.json_types import JSONObject
from agreebound.panel.decision import gates_from_report as panel_gates_from_report
from agreebound.render.report import EXIT_CODES, calibration_report, panel_report, scored_report, to_json, verdict_of
from agreebound.render.markdown import to_markdown
from agreebound.render.scored import gates_from_section

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.io.ratings import Imported
    from agreebound.judge.decision import CalibrationDecision
    from agreebound.judge.slices import SliceDecision
    from agreebound.panel.decision import PanelDecision
    from agreebound.panel.measure import PanelCoefficients, PanelMeasurement
    from agreebound.panel.study import AnnotationStudy
    from agreebound.scored.decide import ScoredDecision
    from agreebound.scored.audit import ScoredMeasurement
    from agreebound.scored.recalibrate import Recalibrated

#: What a view holds decided: a panel's decision per dimension, or a judge's decision.
Decided = Union[Mapping[str, "PanelDecision"], "CalibrationDecision", "ScoredDecision"]


@dataclass(frozen=True)
class View:
    """A decision as every renderer reads it: ``report`` (the JSON, schema-checked), and, for a live
    run, the decisions with the measurements they were made of (the figures draw from them). A
    stored run's view has the report only: ``decided`` is None and :meth:`gates` reads the report."""

    report: JSONObject
    decided: Decided | None = None
    #: a panel's measurements per dimension (live panel views)
    measurements: Mapping[str, PanelMeasurement] = field(default_factory=dict)
    #: a pairwise judge's bundle or a graded judge's measurement (live judge views)
    bundle: JudgeBundle | ScoredMeasurement | None = None
    #: a panel's annotation studies per dimension (live panel views asked for one: --study)
    studies: Mapping[str, AnnotationStudy] = field(default_factory=dict)
    #: a graded judge's recalibrations per judge (live views asked for one: --recalibrate), or why not
    recalibrations: Mapping[str, Recalibrated | str] = field(default_factory=dict)

    @classmethod
    def stored(cls, report: JSONObject) -> View:
        """A stored run's view: its report read back, nothing measured or decided again."""
        return cls(report)

    @property
    def kind(self) -> str:
        """"panel", "calibration" (a pairwise judge) or "scored" (a graded or pass/fail judge)."""
        return str(self.report["kind"])

    @property
    def live(self) -> bool:
        return self.decided is not None

    @property
    def verdict(self) -> str:
        """A panel's worst dimension's verdict, or the judge's decision."""
        return verdict_of(self.report)

    @property
    def exit_code(self) -> int:
        """The command line's exit code for this verdict (0, 1 or 2; see the README)."""
        return EXIT_CODES[self.verdict]

    def to_json(self, ascii_only: bool = False) -> str:
        return to_json(self.report, ascii_only)

    def markdown(self) -> str:
        return to_markdown(self.report)

    def html(self) -> str:
        """The HTML report. A graded judge's reads the report alone; a panel's and a pairwise judge's
        draw their charts from the live decisions, so a stored view cannot give one."""
        from agreebound.render.html import calibration_html, panel_html, scored_html

        if self.kind == "scored":
            return scored_html(self.report)
        self._live_for("an HTML report")
        return calibration_html(self) if self.kind == "calibration" else panel_html(self)

    def junit(self) -> str:
        """The JUnit report, one test case per gate as decided (a stored view: none to give)."""
        from agreebound.render.junit import calibration_junit, panel_junit, scored_junit

        if self.kind == "scored":
            return scored_junit(self.report)
        self._live_for("a JUnit report")
        return calibration_junit(self) if self.kind == "calibration" else panel_junit(self)

    def _live_for(self, what: str) -> None:
        if not self.live:
            raise ValueError(f"{what} is drawn from the run's decisions; a stored view holds its report only "
                             "(JSON, Markdown and its gates)")

    def panel_decisions(self) -> dict[str, tuple[PanelMeasurement, PanelDecision]]:
        """A live panel view's (measurement, decision) per dimension; {} for a stored one."""
        if self.kind != "panel" or not isinstance(self.decided, Mapping):
            return {}
        return {name: (m, self.decided[name]) for name, m in self.measurements.items()}

    def gates(self) -> list[tuple[str, Gate]]:
        """Every gate with its scope (a dimension's name, or "judge", or a graded judge's name), in
        the report's order: alpha and the spread of each dimension, or the judge's rates then the net
        gates its contract opted in to, or each graded judge's gates. Read from the report (as its
        decisions stored them), so a live view and the same run stored read alike."""
        r = self.report
        if self.kind == "scored":
            return [(a["judge"], g) for a in r["scored"]["audits"] for g in gates_from_section(a)]
        if self.kind == "panel":
            th = r["thresholds"]["panel"]
            return [(d["dimension"], g) for d in r["panel"]["dimensions"]
                    for g in panel_gates_from_report(d, th) if g.name != "detectors"]
        from agreebound.judge.decision import gates_from_report as judge_gates_from_report  # a judge's view only

        c = r["calibration"]
        return [("judge", g) for g in judge_gates_from_report(c["rates"] + c.get("net_gates", []))]


def panel_view(measurements: Mapping[str, PanelMeasurement], decisions: Mapping[str, PanelDecision],
               thresholds: ThresholdSet, inputs: Sequence[tuple[str, bytes | str]], imported: Imported | None = None,
               coefficients: Mapping[str, PanelCoefficients] | None = None,
               studies: Mapping[str, AnnotationStudy] | None = None) -> View:
    """A panel's view from its measurements and the decisions made of them (per dimension)."""
    report = panel_report(measurements, decisions, thresholds, inputs, imported, coefficients, studies)
    return View(report, dict(decisions), dict(measurements), studies=dict(studies or {}))


def calibration_view(bundle: JudgeBundle, decision: CalibrationDecision, thresholds: ThresholdSet,
                     inputs: Sequence[tuple[str, bytes | str]], slices: Sequence[SliceDecision] = (),
                     ranking: JSONObject | None = None) -> View:
    """A pairwise judge's view from its bundle and the decision made of it (and of its slices, and
    the ranking of its models when one was made: agreebound.app.rankings)."""
    return View(calibration_report(bundle, decision, thresholds, inputs, slices, ranking), decision, bundle=bundle)


def scored_view(measurement: ScoredMeasurement, decision: ScoredDecision, thresholds: ThresholdSet,
                inputs: Sequence[tuple[str, bytes | str]],
                recalibrations: Mapping[str, Recalibrated | str] | None = None) -> View:
    """A graded or pass/fail judge's view from its measurement and the decision made of it (and the
    judges' recalibrations when asked for: agreebound.scored.recalibrate)."""
    report = scored_report(measurement, decision, thresholds, inputs)
    if recalibrations is not None:
        from agreebound.render.scored import recalibration_section

        report["scored"]["recalibration"] = recalibration_section(recalibrations, thresholds.source)
    return View(report, decision, bundle=measurement, recalibrations=dict(recalibrations or {}))
