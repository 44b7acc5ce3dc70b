"""The dashboard's history: uploads recorded as runs, runs restored from ``?run=``, the store's
state in words. The store (agreebound.app.store) is shared by the server's sessions; a store that
cannot be used is a message on screen, never a crash, and never the loss of what is loaded.
The History page's tables and actions (listings, comparisons, sharing, pruning) are
ui.history_tables.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Literal, TypeAlias, TypeVar, cast

import streamlit as st

from agreebound.core.errors import InputError, memory_message
from agreebound.core.escape import printable
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, ReadInput, Source, recipe_digest
from agreebound.app.result import Report
from agreebound.app.pipeline import panel_result
from agreebound.app.judge_runs import judge_result, measure_scored_recipe, scored_result
from agreebound.app.access import may_change
from agreebound.app.store import (
    Run,
    Store,
    StoreError,
    configured_url,
    describe,
    kind_of,
    shared,
)
from agreebound.ui import auth
from agreebound.core.thresholds import DEFAULT, ThresholdSet, threshold_set_from_dict
from agreebound.ui.data import MEASURE_CALLS, Loaded, Upload
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.panel.categories import Level
    from agreebound.panel.measure import PanelMeasurement
    from agreebound.scored.audit import ScoredMeasurement

#: What a loaded source measured to (the caches' values): a panel's measurements per dimension, a
#: pairwise judge's bundle, or a graded judge's measurement.
Measured: TypeAlias = "dict[str, PanelMeasurement] | JudgeBundle | ScoredMeasurement"
_R = TypeVar("_R", bound="PanelRecipe | JudgeRecipe")

#: Judge source kinds: the files' slots after the first, by role.
JUDGE_SLOTS = {"log": {"references": 1, "contract": 2, "mapping": 3}, "tables": {"references": 1, "observations": 2},
               "bundle": {}, "scored": {"references": 1}, "single-pairs": {"references": 1, "contract": 2}}
#: Each slot's role as the dashboard stores it; a graded judge's log is stored under "bundle", as the
#: command line stores it (``agreebound calibrate graded.csv --record``), so both record the same run.
JUDGE_ROLES = {"log": ("log", "references", "contract", "mapping"), "tables": ("contract", "references", "observations"),
               "bundle": ("bundle",), "scored": ("bundle", "references"),
               "single-pairs": ("bundle", "references", "contract")}
#: The session's kinds of loaded data -> the store's kind of run: a graded or pass/fail judge (the
#: session's "scored" slot, ui.scored) is a judge run whose report's kind is "scored".
STORE_KINDS = {"panel": "panel", "judge": "judge", "scored": "judge"}


def store() -> Store | None:
    """The shared store, or None: recording off, or the database unusable (the reason is kept in
    ``session.store_error`` and shown by :func:`status`)."""
    if configured_url() is None:
        return None
    try:
        found = shared()
    except StoreError as e:
        session.set_store_error(auth.store_error(str(e)))
        return None
    session.set_store_error(None)
    return found.as_viewer(auth.viewer())  # every listing, id and read as this visitor may see it


def where() -> str:
    """Where runs are recorded, as this visitor may be told: the location for an admin, else the
    kind of store (no path, host or database user)."""
    url = configured_url()
    if url is None:
        return "off"
    if auth.viewer().admin:
        return describe(url)
    return "a " + kind_of(url)


def recording() -> bool:
    return session.recording_on and configured_url() is not None


def status() -> str:
    """One line for the sidebar: where runs are recorded, or why not."""
    if configured_url() is None:
        return "Recording is off (AGREEBOUND_DB=off)."
    if store() is None and session.store_error:
        return f"History unavailable: {session.store_error}"
    if not session.recording_on:
        return f"Uploads are not recorded (switched off); history: {where()}"
    return f"Uploads are recorded in {where()}"


def files_of(loaded: Loaded[PanelRecipe | JudgeRecipe]) -> list[Source]:
    """The loaded files, in the order a run stores them: ratings then rates; a judge's by its slots."""
    r = loaded.recipe
    found = [*r.ratings, r.rates] if isinstance(r, PanelRecipe) else list(judge_files(r))
    return [f for f in found if f is not None]


def _fresh(loaded: Loaded[PanelRecipe | JudgeRecipe]) -> bool:
    """Loaded with a file the user uploaded (not a bundled sample, not a restored run)."""
    return any(isinstance(f, Upload) and f.origin == "upload" for f in files_of(loaded))


# --- recording ------------------------------------------------------------------------------------


def after_adopt(kind: str, loaded: Loaded[_R], measured: Measured) -> Loaded[_R]:
    """Called once a new source parsed and measured (``kind``: "panel", "judge", or "scored" for a
    graded or pass/fail judge): an upload is recorded at once (its run id joins the URL); a sample
    or a restored run is not. Returns what the session then holds."""
    if not _fresh(loaded):
        return loaded  # a sample (no run), or a restored run (its id stays)
    loaded = replace(loaded, run=None)  # derived from a run, but with a new upload: not that run any more
    if not recording():
        return loaded
    run = record(kind, loaded, measured)
    return loaded if run is None else replace(loaded, run=run.id)


def report_of(kind: str, loaded: Loaded[PanelRecipe | JudgeRecipe], measured: Measured, t: ThresholdSet) -> Report:
    """What is loaded as the pipeline reports it, from the measurement already cached: the report
    dict and the recipe a run stores (a graded judge's: pipeline.scored_result, as the command
    line's ``calibrate --record`` builds it)."""
    # what a page loaded holds its bytes (a data folder's files are never reported from here)
    inputs = [cast(ReadInput, (role, f.name, f.data)) for role, f in zip(roles_of(loaded), files_of(loaded))]
    if isinstance(loaded.recipe, PanelRecipe):
        from agreebound.ui.data import imported_of

        recipe = panel_recipe(cast("Loaded[PanelRecipe]", loaded))
        return panel_result(recipe, cast("dict[str, PanelMeasurement]", measured), t, inputs, imported_of(recipe))
    if loaded.recipe.source == "scored":
        return scored_result(loaded.recipe, cast("ScoredMeasurement", measured), t, inputs)
    return judge_result(loaded.recipe, cast("JudgeBundle", measured), t, inputs)


def roles_of(loaded: Loaded[PanelRecipe | JudgeRecipe]) -> list[str]:
    """Each loaded file's role as a run stores it (:func:`files_of`'s order)."""
    r = loaded.recipe
    if isinstance(r, PanelRecipe):
        return ["ratings"] * len(r.ratings) + ["rates"]
    roles = JUDGE_ROLES.get(r.source, ("bundle",))
    return [roles[i] if i < len(roles) else f"file{i}" for i, f in enumerate(judge_files(r)) if f is not None]


def record(kind: str, loaded: Loaded[PanelRecipe | JudgeRecipe], measured: Measured, label: str | None = None
           ) -> Run | None:
    """Record what is loaded under the thresholds in force (``kind``: the session's, :data:`STORE_KINDS`);
    errors are kept for the page to show (``session.record_error(kind)``). The same bytes read the same
    way under the same thresholds are the run recorded before, not a copy."""
    s = store()
    if s is None:
        return None
    t = session.thresholds
    if kind == "panel" and not isinstance(cast(PanelRecipe, loaded.recipe).ratings[0], Upload):
        session.set_record_error("panel", "Not recorded: data opened from the data folder stays in its folder (it can "
                                          "be any size) and is not copied into the history.")
        return None
    if refusal := _not_to_copy(s, loaded.run):
        session.set_record_error(kind, refusal)
        return None
    try:
        report = report_of(kind, loaded, measured, t)
        inputs = list(report.inputs)
        digests = [f.digest for f in files_of(loaded)]
        stored_as = STORE_KINDS[kind]
        same = None if label else s.same_run(stored_as, inputs[0][1], digests, report.recipe, t.to_dict())
        if same is not None:  # the same bytes read the same way under the same thresholds: that run
            session.set_record_error(kind, None)
            return same
        run = s.record(stored_as, cast("list[tuple[str, str, bytes]]", inputs), report.report, report.recipe, t.to_dict(), t.source, label=label,
                       origin="dashboard", digests=digests, quota_bytes=quota())
    except StoreError as e:
        session.set_record_error(kind, f"Not recorded: {auth.shown(str(e))}. What you loaded stays loaded in this "
                                       "session, but a reload will not bring it back.")
        return None
    session.set_record_error(kind, None)
    session.set_run(kind, run.id)
    return run


def _not_to_copy(s: Store, run_id: str | None) -> str | None:
    """Why the visitor may not record the session's data as a run of their own, or None: they may.
    Data opened from someone else's run they may only look at (shared with them) is theirs to look
    at, not to copy; so is data from a run that cannot be checked now (unshared or deleted since it
    was opened, or the store failing): the check fails closed."""
    if not run_id:
        return None
    try:
        source = s.get(run_id, prefix=False)
    except StoreError as e:
        return (f"Not recorded: this data was opened from run {run_id}, which cannot be checked now "
                f"({auth.shown(str(e))}); data opened from a run is recorded again only while its owner can be "
                "checked. Upload the file to record it anew.")
    if may_change(auth.viewer(), source.owner):
        return None
    return (f"Not recorded: this is {source.owner_name}'s run {source.id}, shared with you; only its owner (or an admin) "
            "records new runs of its data, so that unsharing it unshares every copy. Upload a file of your own to "
            "record it as yours.")


def quota() -> int | None:
    """The per-user quota in bytes (the deployment's settings, auth.deployment)."""
    return auth.deployment().quota_bytes


# --- the graded judge's slot -----------------------------------------------------------------------
# Here rather than in ui.scored (which draws it): run_links.open_run reopens a graded judge's run
# into this slot, and the components cannot import ui.scored (ui.scored draws with them).


@st.cache_resource(max_entries=8, show_spinner="Measuring the judge against the humans...")
def scored_measurement(key: str, _recipe: JudgeRecipe, _measure: Callable[[JudgeRecipe], ScoredMeasurement]
                       ) -> ScoredMeasurement:
    """Read and measure (raises InputError); ``key``: the recipe's digest (``_measure``, the
    pipeline's measure_scored_recipe, is not part of it). Immutable: shared."""
    MEASURE_CALLS["scored"] += 1
    return _measure(_recipe)


def scored_measured(recipe: JudgeRecipe, measure: Callable[[JudgeRecipe], ScoredMeasurement] = measure_scored_recipe
                    ) -> ScoredMeasurement:
    """A graded judge measured as ``recipe`` says (a ScoredMeasurement), once per files and level:
    the judge decided for is a decision, not a measurement, so it is left out of the key."""
    recipe = replace(recipe, judge=None)
    return scored_measurement(recipe_digest(recipe), recipe, measure)


#: adopt_scored's judge decided for, when none is given: the one chosen before (if the log has it).
KEEP = object()


def adopt_scored(source: Loaded[JudgeRecipe], measure: Callable[[JudgeRecipe], ScoredMeasurement] = measure_scored_recipe,
                 decided_for: Any = KEEP) -> str | None:
    """Hold ``source`` in the graded judge's slot (``session.scored_source``, shown on the Judge page)
    if it reads and measures; otherwise keep what is held. Returns the error. ``decided_for``: the
    judge the decision is about, kept when the log has it (else every judge). An upload is then
    recorded (:func:`after_adopt`, kind "scored"); a sample or a restored run is not."""
    name = source.recipe.first.name
    try:
        m = scored_measured(source.recipe, measure)
    except InputError as e:
        return str(e)
    except MemoryError:
        return memory_message(name)
    except Exception as e:  # noqa: BLE001 - never a traceback on screen; the message names the file
        return auth.shown(f"{printable(name, 120)}: could not be read ({type(e).__name__}: {e})")
    session.hold_scored(source)  # adopted before recording (a failure there keeps it); the one the Judge page shows
    judge = session.scored_for if decided_for is KEEP else decided_for
    if judge in m.input.judges:
        session.set_scored_for(judge)
    else:
        session.set_scored_for(None, forget_pick=True)
    session.set_loaded("scored", after_adopt("scored", source, m))
    return None


def scored_replay(recipe: JudgeRecipe, label: str, run_id: str) -> str | None:
    """A stored graded judge's run (:func:`judge_replay`) held in the graded judge's slot: its log
    and human labels, its level, the judge it was decided for. On an error what was held is kept."""
    def held(f: Source | None) -> Upload | None:
        return None if f is None or f.data is None else Upload.of(f.name, f.data, origin="run")

    first = held(recipe.first)
    if first is None:
        return f"run {run_id} has no log stored"
    error = adopt_scored(Loaded(label, replace(recipe, first=first, references=held(recipe.references), judge=None),
                                run_id), decided_for=recipe.judge)  # kept when the log has that judge
    if error:
        return error
    session.forget(K.SCORED_FOR_PICK, K.SCORED_LEVEL_PICK)  # the pickers are drawn again from the run's reading
    return None


# --- restoring ------------------------------------------------------------------------------------


def positive_of(recipe: PanelRecipe, text: Any) -> Any:
    """The category a run recorded as text ("3", "toxic"), as the value the panel holds (3): the
    picker offers values, and a text it does not offer would fall back to "auto"."""
    if text in ("auto", None) or not isinstance(recipe.ratings[0], Upload):
        return text
    from agreebound.panel.measure import resolve_positive
    from agreebound.ui.data import imported_of

    try:
        panels = imported_of(recipe).panels
        return resolve_positive(next(iter(panels.values())), text)
    except Exception:  # noqa: BLE001 - unreadable here: the measurement says why when it runs
        return text


def panel_replay(run: Run, files: list[tuple[str, str, bytes]]) -> PanelRecipe | None:
    """A stored panel run's recipe over its stored ratings (and rates): reopening replays it.
    None when the run has no ratings stored."""
    by_role = {role: Source(name, data) for role, name, data in files}
    if "ratings" not in by_role:
        return None
    return PanelRecipe.from_dict(run.recipe, [by_role["ratings"]], by_role.get("rates"))


def judge_replay(run: Run, files: list[tuple[str, str, bytes]]) -> JudgeRecipe:
    """A stored judge run's recipe over its stored files. The first file is the source's own
    (stored under "bundle" by the command line, under its own role by the dashboard); the others
    go to their slots by role; a thresholds file is not an input of the audit."""
    source = run.recipe.get("source", "bundle")
    data_files = [(role, name, data) for role, name, data in files if role != "thresholds"]
    slots: list[Source | None] = [None] * len(JUDGE_ROLES.get(source, ("bundle",)))
    slots[0] = Source(data_files[0][1], data_files[0][2])
    for role, name, data in data_files[1:]:
        where_ = JUDGE_SLOTS.get(source, {}).get(role)
        if where_ is not None:
            slots[where_] = Source(name, data)
    return JudgeRecipe.from_dict(run.recipe, slots)


def judge_files(recipe: JudgeRecipe) -> tuple[Source | None, ...]:
    """The recipe's files in the dashboard's slot order (:data:`JUDGE_ROLES`)."""
    if recipe.source == "tables":
        return recipe.first, recipe.references, recipe.observations
    if recipe.source == "log":
        return recipe.first, recipe.references, recipe.contract, recipe.mapping
    if recipe.source == "scored":
        return recipe.first, recipe.references
    if recipe.source == "single-pairs":
        return recipe.first, recipe.references, recipe.contract
    return (recipe.first,)


def is_scored_run(run: Run) -> bool:
    """A graded or pass/fail judge's run (a judge run read as "scored"): it reopens into the graded
    judge's slot (ui.scored), not the pairwise judge's."""
    return run.kind == "judge" and ((run.recipe or {}).get("source") == "scored"
                                    or (run.report or {}).get("kind") == "scored")


def slot_of(run: Run) -> str:
    """The session's kind a run reopens as: "panel", "judge" (pairwise) or "scored" (graded)."""
    return "scored" if is_scored_run(run) else run.kind


def run_thresholds(run: Run) -> ThresholdSet:
    """The thresholds the run was decided under (the defaults, when they were)."""
    try:
        t = threshold_set_from_dict(run.thresholds, f"run {run.id}")
    except Exception:  # noqa: BLE001 - a run from another version: its numbers are still shown
        return DEFAULT
    return t if t.edited else DEFAULT


def opened_thresholds(t: ThresholdSet, run: Run) -> ThresholdSet:
    """The thresholds in force once ``run`` is opened: ``t`` with the run's own part replaced (a
    panel's, a pairwise judge's calibration, a graded judge's), so a panel run and a judge run
    opened from one link keep both; the defaults when nothing differs from them."""
    mine = run_thresholds(run)
    slot = slot_of(run)  # "panel", "judge" or "scored"
    merged = (replace(t, panel=mine.panel) if slot == "panel" else
              replace(t, calibration=mine.calibration) if slot == "judge" else replace(t, scored=mine.scored))
    return replace(merged, source=f"run {run.id}") if merged.edited else DEFAULT


#: The panel's reading as the link carries it beside a run: level, interval method, positive category.
READING_PARAMS = ("level", "interval", "positive")


def url_reading() -> dict[str, str]:
    """The panel's reading for the link, when a panel run is loaded and it differs from the run's."""
    if not session.panel_source.run:
        return {}
    return {"level": str(session.level), "interval": str(session.interval),
            "positive": "auto" if session.positive == "auto" else str(session.positive)}


def url_runs() -> list[str]:
    """The run ids the URL should carry: the loaded panel's, pairwise judge's and graded judge's,
    when they are runs. The judge shown on the Judge page goes last: a link opens its runs in
    order, and the judge opened last is the one shown."""
    graded = session.scored_source
    judges = [session.judge_source.run, graded.run if graded is not None else None]
    if graded is not None and session.scored_over is not session.loaded("judge"):
        judges.reverse()  # a pairwise judge loaded after the graded one: it is the one shown
    return [r for r in (session.panel_source.run, *judges) if r]


def panel_recipe(loaded: Loaded[PanelRecipe], level: Level | Literal["auto"] | None = None, positive: Any = None,
                 interval: str | None = None) -> PanelRecipe:
    """The loaded panel's recipe under the reading in force: the level (chosen by the user, or
    "auto"), positive category and interval of the session's widgets, unless given."""
    return replace(loaded.recipe, level=session.level if level is None else level, chosen_by="user",
                   positive=session.positive if positive is None else positive,
                   interval=session.interval if interval is None else interval)
