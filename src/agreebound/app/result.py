"""What a run produced (:class:`Report`: its view, the thresholds in force, the inputs read, the recipe
as a run stores it), and the choices every run makes the same way: the thresholds in force, the
level, the recipe as stored.
"""

from __future__ import annotations
from dataclasses import dataclass, replace
from typing import (TYPE_CHECKING, Literal, Mapping)
from agreebound.core.errors import InputError
from agreebound.core.escape import normalise_name, printable
from agreebound.core.json_types import JSONObject
from agreebound.core.limits import LISTED_CATEGORIES
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, ReadInput, Source, T
if TYPE_CHECKING:

    from agreebound.app.judge_input import JudgeBundle
    from agreebound.core.thresholds import ThresholdSet
    from agreebound.io.ratings import Imported
    from agreebound.judge.contract import JudgeCalibrationContract
    from agreebound.panel.categories import Level
    from agreebound.panel.measure import PanelMeasurement
    from agreebound.render.view import Decided, View
    from agreebound.scored.audit import ScoredMeasurement



# --- the result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """What a run produced: its view (agreebound.render.view.View: the decisions made once and the
    report dict every renderer reads), the thresholds in force, the inputs read (role, name, bytes or
    a digest for files not held) and the recipe as a run stores it."""

    kind: str
    view: View
    thresholds: ThresholdSet
    inputs: tuple[ReadInput, ...]
    recipe: JSONObject
    imported: Imported | None = None

    @property
    def report(self) -> JSONObject:
        """The JSON report (the view's serialisation)."""
        return self.view.report

    @property
    def measurements(self) -> Mapping[str, PanelMeasurement]:
        """A panel's measurements per dimension ({} for a judge)."""
        return self.view.measurements

    @property
    def bundle(self) -> JudgeBundle | ScoredMeasurement | None:
        """A judge's bundle (pairwise) or measurement (graded); None for a panel."""
        return self.view.bundle

    @property
    def verdict(self) -> str:
        """The verdict the exit code reports: a panel's worst dimension's, or the judge's decision."""
        return self.view.verdict

    @property
    def exit_code(self) -> int:
        """The command line's exit code for this verdict (0, 1 or 2; see the README)."""
        return self.view.exit_code

    def to_json(self) -> str:
        """The JSON report, as ``--json`` prints it (schema: ``agreebound schema``)."""
        return self.view.to_json()

    @property
    def decisions(self) -> Decided | None:
        """The panel's decision per dimension, or the judge's decision: as decided once, for the view."""
        return self.view.decided

    def junit(self) -> str:
        """The gates as a JUnit XML report (``--report gates.xml``): one test case per gate."""
        return self.view.junit()

    def html(self) -> str:
        return self.view.html()


def level_read(measured: Mapping[str, PanelMeasurement]) -> str:
    """The level(s) the panel was read at, as a run records them ("ordinal"; never "auto")."""
    return ", ".join(sorted({m.level for m in measured.values()}))


def thresholds_of(recipe: PanelRecipe | JudgeRecipe, inputs: list[ReadInput] | None = None) -> ThresholdSet:
    """The thresholds in force: the recipe's set, or its file's (read once, joining ``inputs``),
    then its preset."""
    from agreebound.core.thresholds import DEFAULT, PRESETS, ThresholdSet

    presets, t = dict(PRESETS), DEFAULT
    if isinstance(recipe.thresholds, ThresholdSet):
        t = recipe.thresholds
    elif isinstance(recipe.thresholds, Source):
        from agreebound.io.threshold_files import parse_thresholds

        name, data = recipe.thresholds.read()
        tf = parse_thresholds(name, data)
        presets, t = tf.presets, tf.thresholds
        if inputs is not None:
            inputs.append(("thresholds", name, data))
    if recipe.preset:
        if recipe.preset not in presets:
            where = recipe.thresholds.given if isinstance(recipe.thresholds, Source) else "--preset"
            raise InputError(where, None, None, f"no preset {printable(recipe.preset, 60)!r}; available: "
                             f"{', '.join(sorted(presets))}")
        t = presets[recipe.preset]
    if recipe.strict:
        t = replace(t, panel=replace(t.panel, strict=True), scored=replace(t.scored, strict=True),
                    calibration=None if t.calibration is None else replace(t.calibration, strict=True))
    return t


def strict_contract(recipe: JudgeRecipe, t: ThresholdSet, contract: JudgeCalibrationContract) -> ThresholdSet:
    """``--strict`` on the contract's own thresholds: the same fields (the decision stays against
    the bound contract, not a draft), decided on their bounds."""
    if not recipe.strict or t.calibration is not None:
        return t
    from agreebound.core.thresholds import CalibrationThresholds

    return replace(t, calibration=CalibrationThresholds.from_contract(contract, strict=True))


def stored_recipe(recipe: PanelRecipe | JudgeRecipe, measured: Mapping[str, PanelMeasurement] | None = None) -> JSONObject:
    """The recipe as a run stores it; a panel's with the level(s) it was read at."""
    out = recipe.to_dict()
    if isinstance(recipe, PanelRecipe) and measured is not None:
        out["level_read"] = level_read(measured)
    return out


def one_dimension(found: dict[str, T], dimension: str, file: str, has: str) -> dict[str, T]:
    """Only ``dimension`` of ``found`` (by its normalised name), or an InputError listing them."""
    want = normalise_name(dimension)
    if want not in found:
        shown = ", ".join(printable(d, 40) for d in list(found)[:LISTED_CATEGORIES])
        raise InputError(file, None, "dimension", f"no dimension {printable(dimension, 60)!r}; {has} {shown}")
    return {want: found[want]}


def level_choice(level: Level | Literal["auto"], chosen_by: str | None, mapping_level: Level | None
                 ) -> tuple[Level | Literal["auto"], str]:
    """The level and who chose it: the recipe's (the user's), else the mapping file's, else nobody
    ("auto": the default rule, levels.default_level)."""
    if chosen_by is not None:
        return level, chosen_by
    if level != "auto":
        return level, "user"
    if mapping_level:
        return mapping_level, "mapping"
    return "auto", "user"


