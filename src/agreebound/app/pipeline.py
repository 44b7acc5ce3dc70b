"""One pipeline: a typed recipe -> :func:`run` -> :class:`Report`.

The CLI, the dashboard and the store share it: the CLI builds a recipe from its flags, the
dashboard from its session, the store keeps a recipe's :meth:`to_dict` beside each run (the same
keys runs have always stored, so every recorded run still opens), and reopening a run reads the
recipe back with :meth:`from_dict`. The engine (numpy in memory, DuckDB or Spark out of core) is
chosen here and only here (:func:`panel_engine`, :func:`judge_engine`).

Files are read through :class:`Source`: bytes already in hand (an upload), or a path read here,
at the step that needs it, so a bad file is reported at the same step whoever runs the recipe.
"""


from __future__ import annotations
from dataclasses import replace
from typing import (TYPE_CHECKING, Mapping, Sequence)
from agreebound.core.errors import InputError
from agreebound.app.judge_runs import measure_judge_recipe, run_judge
from agreebound.app.recipes import Check, JudgeRecipe, OUT_OF_CORE, PanelRecipe, ReadInput, RecipeError, Source, UNSET, panel_engine
from agreebound.app.local_files import engine_files, display_name, files_read
from agreebound.app.result import Report, level_choice, one_dimension, stored_recipe, thresholds_of
if TYPE_CHECKING:
    from fractions import Fraction

    from agreebound.app.judge_input import JudgeBundle
    from agreebound.core.thresholds import CalibrationThresholds, ThresholdSet
    from agreebound.io.mapping import Mapping as ColumnMapping
    from agreebound.io.ratings import Imported
    from agreebound.panel.categories import Level
    from agreebound.panel.counts import PanelCounts
    from agreebound.panel.decision import PanelDecision
    from agreebound.panel.measure import PanelCoefficients, PanelMeasurement
    from agreebound.panel.study import AnnotationStudy
    from agreebound.app.engine_study import EngineRatings






def run(recipe: PanelRecipe | JudgeRecipe, check: Check | None = None) -> Report:
    """Read, measure and decide what the recipe says, on the engine it chooses."""
    if isinstance(recipe, PanelRecipe):
        engine = panel_engine(recipe)
        if engine in OUT_OF_CORE:
            if check is not None:
                check(engine, None)
            return _panel_out_of_core(recipe, engine, check)
        return _panel_in_memory(recipe)
    return run_judge(recipe, check)


# --- panels -----------------------------------------------------------------------------------


def import_panel(recipe: PanelRecipe, inputs: list[ReadInput]) -> Imported:
    """The ratings read through the recipe's mapping (or the suggested one) and its roles."""
    from agreebound.io.panels import assign_roles
    from agreebound.io.ratings import import_ratings, parse_mapping
    from agreebound.io.mapping import Mapping

    name, data = recipe.ratings[0].read()
    inputs.append(("ratings", name, data))
    mapping = None
    if isinstance(recipe.mapping, Source):
        mname, mdata = recipe.mapping.read()
        mapping = parse_mapping(mname, mdata)
        inputs.append(("mapping", mname, mdata))
    elif recipe.mapping:
        mapping = Mapping.from_json(recipe.mapping)
    imported = import_ratings(name, data, mapping, sheet=recipe.sheet,
                              missing=list(recipe.missing) if recipe.missing else None)
    assign_roles(imported.panels, None if recipe.humans is None else list(recipe.humans),
                 None if recipe.detectors is None else list(recipe.detectors))
    return imported


def _measure_read(recipe: PanelRecipe, imported: Imported, inputs: list[ReadInput]) -> dict[str, PanelMeasurement]:
    """Panels already read, measured in memory: the recipe's dimension (or every one), its rates
    file (read here, joining ``inputs``), level, positive category and interval."""
    from agreebound.panel.measure import measure_panels
    from agreebound.engines.numpy_engine import panel_counts
    from agreebound.io.detector_rates import parse_detector_rates

    panels = imported.panels
    if recipe.dimension is not None:
        panels = one_dimension(panels, recipe.dimension, recipe.ratings[0].name, "the file has")
    rates = rates_name = None
    if recipe.rates is not None:
        rates_name, rdata = recipe.rates.read()
        rates = parse_detector_rates(rates_name, rdata)
        inputs.append(("rates", rates_name, rdata))
    level, chosen_by = level_choice(recipe.level, recipe.chosen_by, imported.mapping.level)
    positive = "auto" if recipe.positive is UNSET else recipe.positive
    return measure_panels(panels, level, positive, rates, rates_name, recipe.interval, chosen_by=chosen_by,
                          count=panel_counts)


def _panel_in_memory(recipe: PanelRecipe) -> Report:
    inputs: list[ReadInput] = []
    imported = import_panel(recipe, inputs)
    t = thresholds_of(recipe, inputs)
    measurements = _measure_read(recipe, imported, inputs)
    coefficients = None
    if recipe.coefficients:
        from agreebound.panel.measure import panel_coefficients

        coefficients = {d: panel_coefficients(imported.panels[d], m.level, t.panel.alpha_floor_permil)
                        for d, m in measurements.items()}
    studies = None
    if recipe.study:
        from agreebound.app.engine_study import study_of

        studies = {d: study_of(recipe, m, imported.panels[d].ratings(m.level), imported.panels[d].raters,
                               imported.panels[d].units, t.panel.alpha_floor_permil)
                   for d, m in measurements.items()}
    level, _ = level_choice(recipe.level, recipe.chosen_by, imported.mapping.level)
    positive = "auto" if recipe.positive is UNSET else recipe.positive
    replay = replace(recipe, mapping=_mapping_in_force(recipe, imported).to_json(), level=level, positive=positive)
    return panel_result(replay, measurements, t, inputs, imported, coefficients, studies)


def panel_result(recipe: PanelRecipe, measurements: Mapping[str, PanelMeasurement], t: ThresholdSet,
                 inputs: Sequence[ReadInput], imported: Imported | None = None,
                 coefficients: Mapping[str, PanelCoefficients] | None = None,
                 studies: Mapping[str, AnnotationStudy] | None = None) -> Report:
    """The Report of a panel measured in memory (by :func:`run`, or by the dashboard from its cached
    measurement: what it records as a run), ``recipe`` stored as a run stores it."""
    from agreebound.render.view import panel_view

    view = panel_view(measurements, decide_panels(measurements, t), t, [(n, b) for _, n, b in inputs], imported,
                      coefficients, studies)
    return Report("panel", view, t, tuple(inputs), stored_recipe(recipe, measurements), imported=imported)


def decide_panels(measurements: Mapping[str, PanelMeasurement], t: ThresholdSet) -> dict[str, PanelDecision]:
    """Each dimension decided once, under the thresholds in force (and named by their source)."""
    from agreebound.panel.decide import decide_panel

    return {name: decide_panel(m, t.panel, t.source) for name, m in measurements.items()}


def _mapping_in_force(recipe: PanelRecipe, imported: Imported) -> ColumnMapping:
    """The mapping that read the file, with the roles the recipe gave written into it."""
    if recipe.humans is None and recipe.detectors is None:
        return imported.mapping
    return replace(imported.mapping,
                   humans=tuple(dict.fromkeys(h for p in imported.panels.values() for h in p.humans)))


def long_columns(recipe: PanelRecipe, engine: str, files: Sequence[str], remote: bool) -> ColumnMapping:
    """The mapping of long ratings read out of core: the recipe's mapping file, else (files on a
    cluster's storage) the default names, else the reader's own reading of the first file's head."""
    from agreebound.io.mapping import Mapping

    if isinstance(recipe.mapping, Source):
        from agreebound.io.ratings import parse_mapping

        m = parse_mapping(*recipe.mapping.read())
        if m.layout != "long":
            raise InputError(recipe.mapping.given, None, "layout", f"the {recipe.engine} engine reads long ratings (a "
                             f"row per rating); this mapping is {m.layout}")
    elif isinstance(recipe.mapping, str):
        m = Mapping.from_json(recipe.mapping)
    elif remote:
        m = Mapping("long", ("unit",), "rater", "value", "dimension")  # remote files: name them with a mapping
    else:
        from agreebound.engines.common import detect_columns

        m = detect_columns(files[0])
    unsupported = [what for what, bad in (("header = false", not m.header), ("a decimal comma", m.decimal != "."),
                                          ("lines above the header", bool(m.skip)),
                                          # an order or recoding of labels is applied in memory only: never
                                          # ignored silently out of core
                                          ("a categories' order", bool(m.order)),
                                          ("recoded labels", bool(m.recode)),
                                          (f"encoding {m.encoding}", (m.encoding or "utf-8").lower().replace("_", "-")
                                           not in ("utf-8", "utf-8-sig", "ascii")))
                   if bad]
    if unsupported:
        where = recipe.mapping.given if isinstance(recipe.mapping, Source) else files[0]
        raise InputError(where, None, None, f"the {recipe.engine} engine reads UTF-8 long ratings with a header; not "
                         f"{', '.join(unsupported)}: use --engine numpy (files up to 200 MB)")
    return m


def engine_counts(engine: str, files: Sequence[str], m: ColumnMapping, missing: Sequence[str], master: str = "local[2]",
                  display: str | None = None) -> dict[str, PanelCounts]:
    """Each dimension's counts from DuckDB or Spark, through the mapping ``m`` of long ratings."""
    from agreebound.engines.common import LongColumns

    columns = LongColumns(tuple(m.unit) or ("unit",), m.rater or "rater", m.value or "value", m.dimension)
    if engine == "spark":
        try:
            from agreebound.engines import spark_engine
        except ImportError:
            raise RecipeError("--engine spark needs pyspark (pip install 'agreebound[spark]') and Java 17") from None
        return spark_engine.panel_counts(list(files), columns, missing=missing, master=master)
    from agreebound.engines.duckdb_engine import panel_counts

    # DuckDB names the data so in messages (None: by its files)
    return panel_counts(list(files), columns, missing=missing, delimiter=m.delimiter, display=display)


def _measure_counted(recipe: PanelRecipe, engine: str, files: Sequence[str], m: ColumnMapping
                     ) -> dict[str, PanelMeasurement]:
    """Each dimension (or the recipe's one) counted by DuckDB or Spark through the mapping ``m``,
    then measured from its counts exactly as in memory."""
    from agreebound.panel.measure import measure_counts

    missing = tuple(dict.fromkeys([*(m.missing or ()), *(recipe.missing or ())]))
    counts = engine_counts(engine, files, m, missing, recipe.master, display=recipe.display)
    if recipe.dimension is not None:
        counts = one_dimension(counts, recipe.dimension, files[0], "the files have")
    name = recipe.display or display_name(files[0]) + (f" (and {len(files) - 1} more file{'s' if len(files) > 2 else ''})"
                                                    if len(files) > 1 else "")
    level, chosen_by = level_choice(recipe.level, recipe.chosen_by, m.level)
    positive: object = recipe.positive if recipe.positive is not UNSET else (m.positive or "auto")
    humans = list(recipe.humans) if recipe.humans is not None else (list(m.humans) if m.humans is not None else None)
    if recipe.detectors is not None:
        every = {r for c in counts.values() for r in c.raters}
        humans = sorted(every - set(recipe.detectors))
    return {d: measure_counts(c, name, level, positive, humans, recipe.interval, chosen_by=chosen_by)
            for d, c in counts.items()}


def _panel_out_of_core(recipe: PanelRecipe, engine: str, check: Check | None) -> Report:
    """Long ratings out of core: the engine returns each dimension's counts; the verdict is decided
    from them exactly as in memory. With ``recipe.study`` the engine also returns the ratings as
    (unit, rater, value) counts, studied as in memory (agreebound.app.engine_study)."""
    with engine_files(recipe, engine) as (files, remote):
        m = long_columns(recipe, engine, files, remote)
        if check is not None:
            check(engine, files)
        t = thresholds_of(recipe, None)
        measurements = _measure_counted(recipe, engine, files, m)
        studies = None
        if recipe.study:  # the engine's (unit, rater, value) counts, studied as in memory
            from agreebound.app.engine_study import engine_studies

            studies = engine_studies(recipe, engine, files, m, measurements, t.panel.alpha_floor_permil)
        inputs = files_read(files, remote)
    from agreebound.render.view import panel_view

    view = panel_view(measurements, decide_panels(measurements, t), t, inputs, studies=studies)
    return Report("panel", view, t, tuple(("ratings", n, d) for n, d in inputs), {})


# --- the same reading as functions (tests, benchmarks, samples) ---------------------------------


def parse_judge_bundle(name: str, data: bytes, rebind: bool = False) -> JudgeBundle:
    """A judge bundle read and audited (io.judge_inputs.read_judge_bundle, then measure_judge)."""
    return measure_judge_recipe(JudgeRecipe(Source(name, data), "bundle", rebind=rebind))


def parse_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> JudgeBundle:
    """The tabular trio read and audited in memory."""
    return measure_judge_recipe(JudgeRecipe(Source(contract_name, contract_data), "tables",
                                            references=Source(references_name, references_data),
                                            observations=Source(observations_name, observations_data)))


def parse_judge_log(name: str, data: bytes, references: tuple[str, bytes] | None = None,
                    contract: tuple[str, bytes] | None = None, judge: str | None = None,
                    thresholds: CalibrationThresholds | None = None, mapping: tuple[str, bytes] | None = None
                    ) -> JudgeBundle:
    """A judge log (with its references, contract and log mapping if given) read and audited."""
    def src(x: tuple[str, bytes] | None) -> Source | None:
        return Source(*x) if x is not None else None

    recipe = JudgeRecipe(Source(name, data), "log", references=src(references), contract=src(contract),
                         mapping=src(mapping), judge=judge)
    return measure_judge_recipe(recipe, thresholds)


def measure_panel_recipe(recipe: PanelRecipe, imported: Imported | None = None) -> dict[str, PanelMeasurement]:
    """The panel measured as :func:`run` measures it (every dimension, or the recipe's one; its
    roles, rates, level, positive category and interval), on the engine :func:`panel_engine`
    chooses; no thresholds (deciding is separate and cheap). ``imported``: the ratings already
    read in memory through the recipe's mapping (the dashboard caches the reading by the bytes'
    digest); read here when None or when the recipe names roles (they are written into what is read)."""
    engine = panel_engine(recipe)
    if engine in OUT_OF_CORE:
        with engine_files(recipe, engine) as (files, remote):
            return _measure_counted(recipe, engine, files, long_columns(recipe, engine, files, remote))
    if imported is None or recipe.humans is not None or recipe.detectors is not None:
        imported = import_panel(recipe, [])
    return _measure_read(recipe, imported, [])


def ratings_out_of_core(recipe: PanelRecipe, dimension: str) -> EngineRatings:
    """One dimension's ratings of long data out of core, coded as in memory (the engine
    :func:`panel_engine` chooses returns their unit, rater, value counts; agreebound.app.engine_study):
    what the dashboard's data folder studies on request."""
    from agreebound.app.engine_study import engine_ratings

    engine = panel_engine(recipe)
    with engine_files(recipe, engine) as (files, remote):
        m = long_columns(recipe, engine, files, remote)
        return engine_ratings(recipe, engine, files, m, [dimension])[dimension]


def rater_diagnostics(recipe: PanelRecipe, dimension: str, level: Level, max_raters: int
                      ) -> tuple[dict[str, Fraction | None], list[tuple[str, float]]]:
    """Leave-one-rater-out alpha and the most disagreeing units of long ratings out of core
    (DuckDB, one pass per rater), on the engine :func:`panel_engine` chooses."""
    engine = panel_engine(recipe)
    if engine != "duckdb":
        raise RecipeError(f"per-rater diagnostics out of core run on DuckDB, not {engine}")
    from agreebound.engines.common import LongColumns
    from agreebound.engines.duckdb_engine import rater_diagnostics as duckdb_diagnostics

    with engine_files(recipe, engine) as (files, _):
        m = long_columns(recipe, engine, files, False)
        cols = LongColumns(tuple(m.unit) or ("unit",), m.rater or "rater", m.value or "value", m.dimension)
        return duckdb_diagnostics(list(files), cols, dimension, level, missing=m.missing or (),
                                  max_raters=max_raters, delimiter=m.delimiter)
