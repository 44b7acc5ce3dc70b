"""The dashboard's history: uploads recorded as runs, runs restored from ``?run=``, the store's
state in words. The store (agreebound.app.store) is shared by the server's sessions; a store that
cannot be used is a message on screen, never a crash, and never the loss of what is loaded.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import streamlit as st

from agreebound.core.errors import InputError, memory_message
from agreebound.core.escape import md_text, printable
from agreebound.app.pipeline import (
    JudgeRecipe,
    PanelRecipe,
    Report,
    Source,
    judge_result,
    measure_scored_recipe,
    panel_result,
    recipe_digest,
    scored_result,
)
from agreebound.app.access import SHARES, may_change
from agreebound.app.store import (
    RUN_ID,
    Run,
    Store,
    StoreError,
    amount,
    configured_url,
    describe,
    kind_of,
    shared,
    skipped_sentence,
)
from agreebound.ui import auth
from agreebound.core.thresholds import DEFAULT, ThresholdSet, threshold_set_from_dict
from agreebound.ui.data import MEASURE_CALLS, Loaded, Upload

S = st.session_state
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
#: The session's slot of each kind (what a run reopens into).
SLOTS = {"panel": "panel_source", "judge": "judge_source", "scored": "scored_source"}


def store() -> Store | None:
    """The shared store, or None: recording off, or the database unusable (the reason is kept in
    ``S.store_error`` and shown by :func:`status`)."""
    if configured_url() is None:
        return None
    try:
        found = shared()
    except StoreError as e:
        S.store_error = auth.store_error(str(e))
        return None
    S.store_error = None
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
    return bool(S.get("record_runs", True)) and configured_url() is not None


def status() -> str:
    """One line for the sidebar: where runs are recorded, or why not."""
    if configured_url() is None:
        return "Recording is off (AGREEBOUND_DB=off)."
    if store() is None and S.get("store_error"):
        return f"History unavailable: {S.store_error}"
    if not S.get("record_runs", True):
        return f"Uploads are not recorded (switched off); history: {where()}"
    return f"Uploads are recorded in {where()}"


def files_of(loaded: Loaded) -> list[Source]:
    """The loaded files, in the order a run stores them: ratings then rates; a judge's by its slots."""
    r = loaded.recipe
    found = [*r.ratings, r.rates] if isinstance(r, PanelRecipe) else list(judge_files(r))
    return [f for f in found if f is not None]


def _fresh(loaded: Loaded) -> bool:
    """Loaded with a file the user uploaded (not a bundled sample, not a restored run)."""
    return any(isinstance(f, Upload) and f.origin == "upload" for f in files_of(loaded))


# --- recording ------------------------------------------------------------------------------------


def after_adopt(kind: str, loaded: Loaded, measured: Any) -> Loaded:
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


def report_of(kind: str, loaded: Loaded, measured: Any, t: ThresholdSet) -> Report:
    """What is loaded as the pipeline reports it, from the measurement already cached: the report
    dict and the recipe a run stores (a graded judge's: pipeline.scored_result, as the command
    line's ``calibrate --record`` builds it)."""
    inputs = [(role, f.name, f.data) for role, f in zip(roles_of(loaded), files_of(loaded))]
    if isinstance(loaded.recipe, PanelRecipe):
        from agreebound.ui.data import imported_of

        recipe = panel_recipe(loaded)
        return panel_result(recipe, measured, t, inputs, imported_of(recipe))
    if loaded.recipe.source == "scored":
        return scored_result(loaded.recipe, measured, t, inputs)
    return judge_result(loaded.recipe, measured, t, inputs)


def roles_of(loaded: Loaded) -> list[str]:
    """Each loaded file's role as a run stores it (:func:`files_of`'s order)."""
    r = loaded.recipe
    if isinstance(r, PanelRecipe):
        return ["ratings"] * len(r.ratings) + ["rates"]
    roles = JUDGE_ROLES.get(r.source, ("bundle",))
    return [roles[i] if i < len(roles) else f"file{i}" for i, f in enumerate(judge_files(r)) if f is not None]


def record(kind: str, loaded: Loaded, measured: Any, label: str | None = None) -> Run | None:
    """Record what is loaded under the thresholds in force (``kind``: the session's, :data:`STORE_KINDS`);
    errors are kept for the page to show (``S.record_error_<kind>``). The same bytes read the same
    way under the same thresholds are the run recorded before, not a copy."""
    s = store()
    if s is None:
        return None
    t: ThresholdSet = S.thresholds
    if kind == "panel" and not isinstance(loaded.recipe.ratings[0], Upload):
        S["record_error_panel"] = ("Not recorded: data opened from the data folder stays in its folder (it can be any "
                                   "size) and is not copied into the history.")
        return None
    if refusal := _not_to_copy(s, loaded.run):
        S[f"record_error_{kind}"] = refusal
        return None
    try:
        report = report_of(kind, loaded, measured, t)
        inputs = list(report.inputs)
        digests = [f.digest for f in files_of(loaded)]
        stored_as = STORE_KINDS[kind]
        same = None if label else s.same_run(stored_as, inputs[0][1], digests, report.recipe, t.to_dict())
        if same is not None:  # the same bytes read the same way under the same thresholds: that run
            S[f"record_error_{kind}"] = None
            return same
        run = s.record(stored_as, inputs, report.report, report.recipe, t.to_dict(), t.source, label=label,
                       origin="dashboard", digests=digests, quota_bytes=_quota())
    except StoreError as e:
        S[f"record_error_{kind}"] = (f"Not recorded: {auth.shown(str(e))}. What you loaded stays loaded in this "
                                     "session, but a reload will not bring it back.")
        return None
    S[f"record_error_{kind}"] = None
    S[f"{kind}_run"] = run.id
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


def _quota() -> int | None:
    """The per-user quota in bytes (the deployment's settings, auth.deployment)."""
    return auth.deployment().quota_bytes


def usage_line(s: Store) -> str:
    """"You store 12.3 MB of your 1,000 MB" (or with no limit)."""
    try:
        used = s.usage()
    except StoreError as e:
        return auth.shown(str(e))
    quota = _quota()
    return f"Your runs store {amount(used)} of files" + (f", of your {amount(quota)}." if quota else " (no limit).")


# --- the graded judge's slot -----------------------------------------------------------------------
# Here rather than in ui.scored (which draws it): widgets.open_run reopens a graded judge's run into
# this slot, and widgets cannot import ui.scored (ui.scored draws with widgets).


@st.cache_resource(max_entries=8, show_spinner="Measuring the judge against the humans...")
def scored_measurement(key: str, _recipe: JudgeRecipe, _measure: Callable[[JudgeRecipe], Any]) -> Any:
    """Read and measure (raises InputError); ``key``: the recipe's digest (``_measure``, the
    pipeline's measure_scored_recipe, is not part of it). Immutable: shared."""
    MEASURE_CALLS["scored"] += 1
    return _measure(_recipe)


def scored_measured(recipe: JudgeRecipe, measure: Callable[[JudgeRecipe], Any] = measure_scored_recipe) -> Any:
    """A graded judge measured as ``recipe`` says (a ScoredMeasurement), once per files and level:
    the judge decided for is a decision, not a measurement, so it is left out of the key."""
    recipe = replace(recipe, judge=None)
    return scored_measurement(recipe_digest(recipe), recipe, measure)


def adopt_scored(source: Loaded, measure: Callable[[JudgeRecipe], Any] = measure_scored_recipe) -> str | None:
    """Hold ``source`` in the graded judge's slot (``S.scored_source``, shown on the Judge page) if
    it reads and measures; otherwise keep what is held. Returns the error. An upload is then
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
    S.scored_source = source  # adopted before recording: a failure there keeps it loaded
    S.scored_over = S.get("judge_source")  # the graded judge is the one the Judge page shows
    if S.get("scored_for") not in m.input.judges:
        S.scored_for = None
        S.pop("scored_for_pick", None)
    S.scored_source = after_adopt("scored", source, m)
    return None


def scored_replay(recipe: JudgeRecipe, label: str, run_id: str) -> str | None:
    """A stored graded judge's run (:func:`judge_replay`) held in the graded judge's slot: its log
    and human labels, its level, the judge it was decided for. On an error what was held is kept."""
    def held(f: Source | None) -> Upload | None:
        return None if f is None or f.data is None else Upload.of(f.name, f.data, origin="run")

    first = held(recipe.first)
    if first is None:
        return f"run {run_id} has no log stored"
    old = S.get("scored_for")
    S.scored_for = recipe.judge  # kept by adopt_scored when the log has that judge
    error = adopt_scored(Loaded(label, replace(recipe, first=first, references=held(recipe.references), judge=None),
                                run_id))
    if error:
        S.scored_for = old
        return error
    S.pop("scored_for_pick", None)  # the pickers are drawn again from the run's reading
    S.pop("scored_level_pick", None)
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
    if t.panel == DEFAULT.panel and t.calibration is None and t.scored == DEFAULT.scored:
        return DEFAULT
    return t


def opened_thresholds(t: ThresholdSet, run: Run) -> ThresholdSet:
    """The thresholds in force once ``run`` is opened: ``t`` with the run's own part replaced (a
    panel's, a pairwise judge's calibration, a graded judge's), so a panel run and a judge run
    opened from one link keep both; the defaults when nothing differs from them."""
    mine = run_thresholds(run)
    part = {"panel": {"panel": mine.panel}, "judge": {"calibration": mine.calibration},
            "scored": {"scored": mine.scored}}[slot_of(run)]
    merged = replace(t, **part)
    edited = merged.panel != DEFAULT.panel or merged.calibration is not None or merged.scored != DEFAULT.scored
    return replace(merged, source=f"run {run.id}") if edited else DEFAULT


#: The panel's reading as the link carries it beside a run: level, interval method, positive category.
READING_PARAMS = ("level", "interval", "positive")


def url_reading() -> dict[str, str]:
    """The panel's reading for the link, when a panel run is loaded and it differs from the run's."""
    if not S.panel_source.run:
        return {}
    return {"level": str(S.level), "interval": str(S.get("interval", "units")),
            "positive": "auto" if S.positive == "auto" else str(S.positive)}


def url_runs() -> list[str]:
    """The run ids the URL should carry: the loaded panel's, pairwise judge's and graded judge's,
    when they are runs. The judge shown on the Judge page goes last: a link opens its runs in
    order, and the judge opened last is the one shown."""
    graded = S.get("scored_source")
    judges = [S.judge_source.run, graded.run if graded is not None else None]
    if graded is not None and S.get("scored_over") is not S.get("judge_source"):
        judges.reverse()  # a pairwise judge loaded after the graded one: it is the one shown
    return [r for r in (S.panel_source.run, *judges) if r]


# --- the History page's tables ------------------------------------------------------------------


def _say_skipped(skipped: list[str]) -> None:
    """Runs left out of a listing because their stored JSON is damaged: named on the page, where
    the listing is (the rest of the history stays usable)."""
    if skipped:
        whose = "its" if len(skipped) == 1 else "their"
        st.warning(md_text(f"{skipped_sentence(skipped)} ({whose} stored data is damaged; the other runs are shown).",
                           400))


def all_runs(s: Store, limit: int = 5000) -> tuple[list[Run], str | None]:
    """Every run's summary (no reports: a listing of thousands stays cheap), or the error. A run
    that cannot be read is skipped, and said on the page."""
    skipped: list[str] = []
    try:
        found = s.runs(limit=limit, reports=False, skipped=skipped)
    except StoreError as e:
        return [], auth.shown(str(e))
    _say_skipped(skipped)
    S.history_skipped = skipped  # said once: the timelines below name only the runs not said here
    return found, None


def filtered(s: Store, name: str | None, kind: str | None, judge: str | None, contract: str | None,
             verdict: str | None, since: str | None, until: str | None) -> tuple[list[Run], str | None]:
    """The runs under the page's filters (a run skipped here was said already by :func:`all_runs`)."""
    try:
        return s.runs(name=name, kind=kind, judge=judge, contract=contract, verdict=verdict, since=since, until=until,
                      reports=False, skipped=[]), None
    except StoreError as e:
        return [], auth.shown(str(e))


def with_reports(s: Store, name: str, kind: str, limit: int = 200, **filters: Any) -> tuple[list[Run], str | None]:
    """The newest ``limit`` runs of one data set with their reports (what a timeline draws), under
    the page's other filters; a run whose report cannot be read is skipped, and said."""
    skipped: list[str] = []
    try:
        found = s.runs(name=name, kind=kind, limit=limit, skipped=skipped, **filters)
    except StoreError as e:
        return [], auth.shown(str(e))
    said = set(S.get("history_skipped") or ())
    _say_skipped([i for i in skipped if i not in said])
    return found, None


def full(s: Store, run_id: str) -> tuple[Run | None, str | None]:
    try:
        return s.get(run_id, prefix=False), None
    except StoreError as e:
        return None, auth.shown(str(e))


def timeline_of(of_data: list[Run]) -> Any:
    """The timeline of one data set's runs (history.timeline), for the History page's chart."""
    from agreebound.app.history import timeline

    return timeline(of_data)


def compared(s: Store, before: str, after: str) -> tuple[Any, str | None]:
    """Run ``before`` against run ``after`` (history.compare), or why they cannot be compared (a
    run that cannot be read, a panel run against a judge run)."""
    from agreebound.app.history import CompareError, compare

    (run_a, error_a), (run_b, error_b) = full(s, before), full(s, after)
    try:
        if error_a or error_b:
            raise CompareError(error_a or error_b or "")
        return compare(run_a, run_b), None
    except CompareError as e:
        return None, str(e)


def short_contract(cid: str | None) -> str:
    if not cid:
        return ""
    name, _, digest = cid.partition("@sha256:")
    return f"{name}@{digest[:12]}" if digest else cid


def panel_recipe(loaded: Loaded, level: str | None = None, positive: Any = None) -> PanelRecipe:
    """The loaded panel's recipe under the reading in force: the level (chosen by the user, or
    "auto"), positive category and interval of the session's widgets, unless given."""
    return replace(loaded.recipe, level=S.level if level is None else level, chosen_by="user",
                   positive=S.positive if positive is None else positive, interval=S.get("interval", "units"))


def run_level(r: Run) -> str:
    """The level a run was read at: recorded with it, or (runs recorded before) the level chosen; a
    graded judge's: the level chosen, else its kind's default ("from the data")."""
    if is_scored_run(r):
        return str(r.recipe.get("level") or "from the data")
    if r.kind != "panel":
        return ""
    read = r.recipe.get("level_read")
    if read:
        return str(read)
    chosen = r.recipe.get("level")
    return str(chosen) if chosen and chosen != "auto" else "not recorded (the default of its day)"


#: A run's kind in the History table: a graded or pass/fail judge's is a judge run, said so.
KIND_WORDS = {"panel": "panel", "judge": "judge", "scored": "judge (graded)"}


def runs_frame(rows: list[Run]) -> "Any":
    import pandas as pd

    return pd.DataFrame({
        "recorded (UTC)": [r.created_utc[:19].replace("T", " ") for r in rows],
        "verdict": [r.verdict for r in rows],
        "level": [run_level(r) for r in rows],
        "data": [r.data_name for r in rows],
        "label": [r.label or "" for r in rows],
        "kind": [KIND_WORDS[slot_of(r)] for r in rows],
        "judge": [r.judge or "" for r in rows],
        "contract": [short_contract(r.contract_id) for r in rows],
        "thresholds": [r.thresholds_source for r in rows],
        "from": [r.origin for r in rows],
        "owner": [r.owner_name for r in rows],
        "shared with": [auth.share_words(r.share) for r in rows],
        "run": [r.id for r in rows],
    })


def choice(r: Run) -> str:
    """A run as one line in a picker (user text: shown by Streamlit as plain text)."""
    label = f" ({r.label})" if r.label else ""
    return f"{r.created_utc[:19].replace('T', ' ')} · {r.data_name}{label} · {r.verdict} · {r.id}"


def compare_defaults(shown: list[Run], data_name: str | None) -> tuple[str, str]:
    """(after, before) for the compare pickers: the newest run of the data on the timeline, and the
    run of the same data and kind before it (else the next run of that kind, else the next run). A
    graded judge's run is of another kind than a pairwise judge's: they are not compared."""
    of_data = [r for r in shown if r.data_name == data_name] or shown
    after = of_data[0]
    kind = slot_of(after)
    for pool in ([r for r in of_data if slot_of(r) == kind], [r for r in shown if slot_of(r) == kind], shown):
        rest = [r for r in pool if r.id != after.id]
        if rest:
            return after.id, rest[0].id
    return after.id, after.id


def compare_frame(c: Any) -> "Any":
    """Two runs' gates side by side (history.compare): each gate's value, interval, threshold and
    result before and after, and why it flipped. A graded judge's gates are per judge: the first
    column names the judge, where a panel's names the dimension."""
    import pandas as pd

    from agreebound.app.history import show

    def value(g: Any) -> str:
        if g is None:
            return "absent"
        text = show(g.value, g.unit, g.state)
        if g.value is not None and g.low is not None and g.high is not None:
            scale = 100 if g.unit == "%" else 1
            fmt = "{:.1f}%" if g.unit == "%" else ("{:.2f}x" if g.unit == "x" else "{:.3f}")
            text += f" [{fmt.format(g.low * scale)}, {fmt.format(g.high * scale)}]"
        return text

    def threshold(gc: Any) -> str:
        b, a = gc.before, gc.after
        tb = show(b.threshold, gc.unit) if b is not None and b.threshold is not None else "none"
        ta = show(a.threshold, gc.unit) if a is not None and a.threshold is not None else "none"
        return tb if tb == ta else f"{tb} -> {ta}"

    def result(g: Any) -> str:
        if g is None:
            return "absent"
        return {True: "passes", False: "fails", None: g.state}[g.passed]

    return pd.DataFrame({
        ("judge" if is_scored_run(c.a) else "dimension"): [g.scope for g in c.gates],
        "gate": [g.label for g in c.gates],
        "before [95% interval]": [value(g.before) for g in c.gates],
        "after [95% interval]": [value(g.after) for g in c.gates],
        "threshold": [threshold(g) for g in c.gates],
        "result": [f"{result(g.before)} -> {result(g.after)}" if g.flipped or g.lost else result(g.after)
                   for g in c.gates],
        "why it flipped": [g.why for g in c.gates],
    })


def open_from_table() -> None:
    """on_click of Open: the selected run is opened on the next run of the page."""
    S.open_run = S.get("history_pick")


def chart_opener(key: str) -> Any:
    """on_select of a timeline chart: a clicked point opens its run (customdata[0])."""

    def opener() -> None:
        sel = S.get(key)
        try:
            S.open_run = sel["selection"]["points"][0]["customdata"][0]
        except (KeyError, IndexError, TypeError):
            pass

    return opener


def mine(r: Run) -> bool:
    """The visitor may delete and share ``r`` (its owner, or an admin)."""
    return may_change(auth.viewer(), r.owner)


def share(run_id: str) -> None:
    """on_change of a run's sharing control (``S.share_pick``)."""
    s, to = store(), S.get("share_pick")
    if s is None or to not in SHARES:
        return
    try:
        run = s.share(run_id, to)
    except StoreError as e:
        S.history_message = ("error", auth.shown(str(e)))
        return
    S.history_message = ("info", f"Run {run.id} is now private: only its owner (and admins) see it." if run.share == "private"
                         else f"Run {run.id} is shared with {auth.share_words(run.share)}.")


def prune(days: int) -> None:
    """An admin's retention on request: delete the runs older than ``days`` days."""
    s = store()
    if s is None:
        return
    try:
        gone, freed = s.prune(days)
    except StoreError as e:
        S.history_message = ("error", auth.shown(str(e)))
        return
    S.history_message = ("info", f"Deleted {len(gone):,} run{'' if len(gone) == 1 else 's'} recorded more than "
                                 f"{days:,} days ago ({freed:,} stored file{'' if freed == 1 else 's'} freed); the audit "
                                 "trail keeps their tombstones.")


def prune_preview(s: Store, days: int) -> str:
    """How many runs (of every user) retention would delete now."""
    try:
        n = len(s.older_than(days))
    except StoreError as e:
        return auth.shown(str(e))
    return f"{n:,} run{'' if n == 1 else 's'} recorded more than {days:,} days ago would be deleted."


def audit_trail(s: Store, limit: int = 500) -> tuple[list[dict[str, Any]], str | None]:
    try:
        return s.trail(limit=limit), None
    except StoreError as e:
        return [], auth.shown(str(e))


def audit_frame(events: list[dict[str, Any]]) -> Any:
    """The audit trail as a table (admins): when, who, what, which run, and the run as it was."""
    import pandas as pd

    def what(e: dict[str, Any]) -> str:
        d = e["detail"]
        if e["action"] == "share":
            return f"{auth.share_words(str(d.get('from')))} -> {auth.share_words(str(d.get('to')))}"
        if e["action"] == "reid":
            return f"was run {d.get('old_id')}"
        how = {"link": "through a link", "history": "from the History page"}.get(str(d.get("how")), d.get("how"))
        return " · ".join(str(x) for x in (d.get("data_name"), d.get("verdict"), how,
                                           "as an admin" if d.get("as_admin") else None) if x)

    return pd.DataFrame({"when (UTC)": [e["at_utc"][:19].replace("T", " ") for e in events],
                         "who": [e.get("actor_shown", e["actor"]) for e in events], "did": [e["action"] for e in events],
                         "run": [e["run_id"] for e in events], "what": [what(e) for e in events],
                         "owner": [str(e["detail"].get("owner", "")) for e in events]})


def delete(run_id: str) -> None:
    s = store()
    if s is None:
        return
    try:
        gone = s.delete(run_id)
    except StoreError as e:
        S.history_message = ("error", auth.shown(str(e)))
        return
    S.history_message = ("info", f"Deleted run {run_id} ({gone} stored file{'' if gone == 1 else 's'} no other run "
                                 "used).")
    for slot in SLOTS.values():
        held = S.get(slot)
        if held is not None and held.run == run_id:
            S[slot] = replace(held, run=None)  # the data stays loaded; the link no longer names a deleted run
