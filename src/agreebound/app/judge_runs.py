"""A judge's run: the judge input read (a log, the tabular trio, a bundle), audited in memory or out of
core (DuckDB, Spark), decided once, and its view made.
"""

from __future__ import annotations
from contextlib import nullcontext
from dataclasses import replace
from typing import (TYPE_CHECKING, ContextManager, Mapping, Sequence)
from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject
from agreebound.app.result import Report, strict_contract, thresholds_of
from agreebound.app.local_files import files_read, local_files
from agreebound.app.recipes import Check, JudgeRecipe, OUT_OF_CORE, ReadInput, RecipeError, judge_engine, judge_source
if TYPE_CHECKING:

    from agreebound.app.judge_input import JudgeBundle
    from agreebound.core.thresholds import CalibrationThresholds, ScoredThresholds, ThresholdSet
    from agreebound.judge.contract import JudgeInput
    from agreebound.scored.audit import ScoredMeasurement
    from agreebound.scored.recalibrate import Recalibrated, Recalibration
    from agreebound.judge.slices import SliceDecision
    from agreebound.judge.counts import JudgeCounts
    from agreebound.judge.measure import CalibrationMeasurement



# --- judges -----------------------------------------------------------------------------------


def read_judge(recipe: JudgeRecipe, source: str, name: str, data: bytes, inputs: list[ReadInput],
               thresholds: CalibrationThresholds | None = None) -> JudgeInput:
    """The judge input as read (io, unmeasured): a log, the tabular trio in memory, or a bundle.
    ``thresholds``: a log without a contract is drafted under them (else the defaults)."""
    from agreebound.io.judge_inputs import read_judge_bundle, read_judge_log, read_judge_tables

    if source == "log":
        found = [(role, s.read()) for role, s in (("references", recipe.references), ("contract", recipe.contract),
                                                  ("mapping", recipe.mapping)) if s is not None]
        inputs += [(role, n, b) for role, (n, b) in found]
        given = dict(found)
        return read_judge_log(name, data, given.get("references"), given.get("contract"), recipe.judge,
                              thresholds, given.get("mapping"))
    if source == "single-pairs":
        from agreebound.io.judge_inputs import read_single_as_pairs

        assert recipe.references is not None
        found = [(role, s.read()) for role, s in (("references", recipe.references), ("contract", recipe.contract))
                 if s is not None]
        inputs += [(role, n, b) for role, (n, b) in found]
        given = dict(found)
        return read_single_as_pairs(name, data, given["references"], given.get("contract"), recipe.judge, thresholds)
    if source == "tables":
        if recipe.references is None or recipe.observations is None:
            raise InputError(name, None, None, "the tabular form needs --references and --observations")
        rname, rdata = recipe.references.read()
        oname, odata = recipe.observations.read()
        inputs += [("references", rname, rdata), ("observations", oname, odata)]
        return read_judge_tables(name, data, rname, rdata, oname, odata)
    return read_judge_bundle(name, data, rebind=recipe.rebind)


def measure_judge_recipe(recipe: JudgeRecipe, thresholds: CalibrationThresholds | None = None) -> JudgeBundle:
    """Read and audit a judge in memory: the JudgeBundle (what the dashboard caches)."""
    from agreebound.app.judge_input import measure_judge

    name, data = recipe.first.read()
    return measure_judge(read_judge(recipe, judge_source(recipe, name, data), name, data, [], thresholds))


def run_judge(recipe: JudgeRecipe, check: Check | None) -> Report:
    from agreebound.app.judge_input import measure_judge

    name, data = recipe.first.read()
    inputs: list[ReadInput] = [("bundle", name, data)]
    t = thresholds_of(recipe, inputs)
    source = judge_source(recipe, name, data)
    if source == "scored":
        if recipe.engine in OUT_OF_CORE:
            raise RecipeError(f"--engine {recipe.engine} reads the pairwise tabular form; a graded or pass/fail "
                              "judge's log is read in memory")
        measured = measure_scored_recipe(recipe, inputs)
        recalibrations = (decide_recalibrations(recalibrate_recipe(recipe, measured), t.scored, t.source)
                          if recipe.recalibrate else None)
        return scored_result(replace(recipe, source=source), measured, t, inputs, recalibrations)
    trio = source == "tables" and recipe.references is not None and recipe.observations is not None
    if recipe.engine in OUT_OF_CORE and not trio:
        raise RecipeError(f"--engine {recipe.engine} reads the tabular form (a contract JSON with --references and "
                          "--observations files); a bundle or a judge log is read in memory")
    if trio:
        engine = judge_engine(recipe)
        if engine in OUT_OF_CORE:
            return _judge_out_of_core(recipe, engine, name, data, t, inputs, check)
    bundle = measure_judge(read_judge(recipe, source, name, data, inputs, t.calibration))
    return judge_result(replace(recipe, source=source), bundle, strict_contract(recipe, t, bundle.measurement.contract),
                        inputs)


def judge_result(recipe: JudgeRecipe, bundle: JudgeBundle, t: ThresholdSet, inputs: Sequence[ReadInput],
                 ranking: JSONObject | None = None) -> Report:
    """The Report of a judge audited in memory (by :func:`run`, or by the dashboard from its cached
    bundle: what it records as a run), ``recipe`` stored as a run stores it. The ranking of the
    candidates' models when the recipe asks for it (``ranking``: the block already made, as the
    dashboard gives the page's)."""
    from agreebound.judge.decide import decide
    from agreebound.render.view import calibration_view

    if ranking is None and (recipe.ranking or recipe.beats is not None):
        from agreebound.app.rankings import ranking_block

        ranking = ranking_block(bundle, recipe.beats, t=t)
    view = calibration_view(bundle, decide(bundle.measurement, t.calibration), t, [(n, b) for _, n, b in inputs],
                            slices=slice_decisions(bundle, t), ranking=ranking)
    return Report("judge", view, t, tuple(inputs), recipe.to_dict())


def slice_decisions(bundle: JudgeBundle, t: ThresholdSet) -> tuple["SliceDecision", ...]:
    """Every gate split by each slice column the data has (a log's template, turn, category; a
    table's extra columns), decided with Holm's control (agreebound.judge.slices); none for an
    audit without slice columns (counted out of core: :func:`counted_slice_decisions`)."""
    if bundle.slices is None or bundle.measurement.rows is None:
        return ()
    from agreebound.judge.slices import SliceRefused, decide_slices, measure_slices, slice_options

    out = []
    for column, why in slice_options(bundle.slices).items():
        if why is not None:
            continue
        try:
            audit = measure_slices(bundle.measurement, bundle.observations, bundle.references, bundle.slices, column)
        except SliceRefused:
            continue
        out.append(decide_slices(audit, t.calibration, method="holm"))
    return tuple(out)


def measure_scored_recipe(recipe: JudgeRecipe, inputs: list[ReadInput] | None = None) -> ScoredMeasurement:
    """Read a graded or pass/fail judge's log (with human labels from ``recipe.references``) and
    measure it: the ScoredMeasurement (what the dashboard caches). ``inputs``: the files read are
    added to it (the log first, as "bundle")."""
    from agreebound.io.scored_logs import read_scored
    from agreebound.scored.audit import measure_scored

    name, data = recipe.first.read()
    humans = recipe.references.read() if recipe.references is not None else None
    if inputs is not None and humans is not None:
        inputs.append(("references", *humans))
    log = read_scored(name, data, humans)
    try:
        return measure_scored(log.scores, log.file, recipe.level, identity=log.identity, shape=log.shape,
                              notes=log.notes, labels=log.labels, scale=log.scale)
    except ValueError as e:  # a level the scores cannot have (a ratio level with a zero, ...)
        raise InputError(name, None, None, str(e)) from None


def recalibrate_recipe(recipe: JudgeRecipe, measurement: ScoredMeasurement) -> dict[str, Recalibration | str]:
    """Each graded judge of the log (or the one ``recipe.judge`` names) mapped to the humans' mean
    (agreebound.scored.recalibrate); a judge that cannot be mapped gets the reason instead (a
    pass/fail judge, too few items with a human's score, no human labels). What the dashboard caches."""
    from agreebound.io.scored_logs import read_scored
    from agreebound.scored.recalibrate import recalibrate

    out: dict[str, Recalibration | str] = {}
    judges = [recipe.judge] if recipe.judge else list(measurement.input.judges)
    if not measurement.input.humans:
        return {j: "no human labels: the map goes from the judge's scores to the humans' mean" for j in judges}
    name, data = recipe.first.read()
    humans = recipe.references.read() if recipe.references is not None else None
    log = read_scored(name, data, humans)
    for judge in judges:
        try:
            out[judge] = recalibrate(log.scores, judge, file=log.file, scale=log.scale, level=recipe.level)
        except ValueError as e:
            out[judge] = str(e)
    return out


def decide_recalibrations(recalibrations: Mapping[str, Recalibration | str], thresholds: ScoredThresholds | None,
                          source: str) -> dict[str, Recalibrated | str]:
    """The raw and the mapped judge of each recalibration decided under ``thresholds`` (from
    ``source``): the command line's, and the dashboard's on every slider move (the maps cached)."""
    from agreebound.scored.recalibrate import decide_recalibration

    return {j: r if isinstance(r, str) else (r, *decide_recalibration(r, thresholds, source))
            for j, r in recalibrations.items()}


def scored_result(recipe: JudgeRecipe, measurement: ScoredMeasurement, t: ThresholdSet,
                  inputs: Sequence[ReadInput], recalibrations: Mapping[str, Recalibrated | str] | None = None
                  ) -> Report:
    """The Report of a graded or pass/fail judge (by :func:`run`, or by the dashboard from its cached
    measurement), ``recipe`` stored as a run stores it."""
    if recipe.judge is not None and recipe.judge not in measurement.input.judges:
        raise InputError(recipe.first.given, None, None, f"no judge {printable(recipe.judge, 60)!r} in the log; "
                         f"judges: {', '.join(printable(j, 60) for j in measurement.input.judges)}")
    from agreebound.render.view import scored_view
    from agreebound.scored.decide import decide_scored

    decision = decide_scored(measurement, t.scored, t.source, recipe.judge)
    view = scored_view(measurement, decision, t, [(n, b) for _, n, b in inputs], recalibrations)
    return Report("scored", view, t, tuple(inputs), recipe.to_dict())


def _judge_out_of_core(recipe: JudgeRecipe, engine: str, name: str, data: bytes, t: ThresholdSet,
                       inputs: list[ReadInput], check: Check | None) -> Report:
    """The tabular trio out of core: DuckDB or Spark returns the audit's counts; the decision,
    intervals and report are the in-memory ones."""
    import pandas as pd

    from agreebound.app.judge_input import JudgeBundle
    from agreebound.judge.decide import decide
    from agreebound.render.view import calibration_view

    if check is not None:
        check(engine, None)
    assert recipe.references is not None and recipe.observations is not None
    paths = (recipe.references.given, recipe.observations.given)
    on_cluster = engine == "spark" and any("://" in p for p in paths)  # Spark reads both where they are

    def files(path: str) -> ContextManager[tuple[list[str], bool]]:
        return nullcontext(([path], True)) if on_cluster else local_files([path], engine)

    ranked = bool(recipe.ranking or recipe.beats is not None)
    with files(paths[0]) as (refs, remote), files(paths[1]) as (obs, _):
        if check is not None:
            check(engine, [recipe.first.given, *refs, *obs])
        if engine == "spark":
            try:
                from agreebound.engines.judge_spark import judge_audit as spark_judge
            except ImportError:
                raise RecipeError("--engine spark needs pyspark (pip install 'agreebound[spark]') and Java 17") from None
            contract, header, counted = spark_judge(name, data, refs, obs, master=recipe.master, slices=True,
                                                    kinds=ranked)
        else:
            from agreebound.engines.judge_duckdb import judge_audit

            contract, header, counted = judge_audit(name, data, refs, obs, slices=True, kinds=ranked)
        engine_read = files_read([*refs, *obs], remote)
    m = counted.measurement
    empty = pd.DataFrame()  # out of core: no frames, only the measurement's counts
    bundle = JudgeBundle(name, contract, header[0], header[1], header[2], empty, empty, m)
    t = strict_contract(recipe, t, m.contract)
    read = [(n, b) for _, n, b in inputs] + engine_read
    ranking = None
    if ranked:  # from the engine's kinds of case: the same fit and the same case bootstrap, no row per case
        from agreebound.app.rankings import counted_ranking_block

        from agreebound.judge.ranking import KIND_COLUMNS

        kinds = None if counted.kinds is None else pd.DataFrame(counted.kinds, columns=list(KIND_COLUMNS))
        ranking = counted_ranking_block(kinds, recipe.beats, t)
    view = calibration_view(bundle, decide(m, t.calibration), t, read,
                            slices=counted_slice_decisions(m, counted.slices, t), ranking=ranking)
    return Report("judge", view, t, tuple(inputs), replace(recipe, source="tables").to_dict())


def counted_slice_decisions(m: CalibrationMeasurement, counts: Mapping[str, Mapping[str, JudgeCounts]],
                            t: ThresholdSet) -> tuple["SliceDecision", ...]:
    """:func:`slice_decisions` for an audit counted out of core: each slice column's per-value counts
    (the engine's, in the file's column order) measured as every audit is and decided alike."""
    from agreebound.judge.slices import decide_slices, measure_slice_counts

    return tuple(decide_slices(measure_slice_counts(m, column, by_value), t.calibration, method="holm")
                 for column, by_value in counts.items())


