"""Runs opened from History or a link (``?run=<id>``): a run's stored inputs loaded the way it read
them (its mapping, level, interval, positive category, the judge it was decided for), with its
thresholds unless the link carries its own; the audit trail notes each opening. What was loaded
stays loaded when a run cannot be opened. And the link itself, kept in step with the view
(:func:`sync_url`)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, cast

import streamlit as st

from agreebound.app.recipes import JudgeRecipe, PanelRecipe, Source
from agreebound.app.store import RUN_ID, Store, StoreError
from agreebound.panel.intervals import INTERVAL_METHODS
from agreebound.ui import auth, runs
from agreebound.ui.data import Loaded, Upload
from agreebound.ui.loading import adopt_reading, try_judge_source, try_panel_source
from agreebound.ui.state import session

if TYPE_CHECKING:
    from agreebound.panel.categories import Level

log = logging.getLogger("agreebound.ui")


def open_run(run_id: str, with_thresholds: bool = True, how: str = "history") -> str | None:
    """Load a run's stored inputs into the session the way it read them; thresholds too unless
    the link carries its own. ``run_id``: the whole id (a link never opens a run by a prefix);
    ``how``: "link" or "history", said in the audit trail with the opening (or the refusal).
    Returns an error text (and keeps what was loaded) or None."""
    s = runs.store()
    if s is None:
        return session.store_error or "recording is off: there is no history to open runs from"
    try:
        run = s.get(run_id, prefix=False)
        files = s.inputs(run)
    except StoreError as e:
        if RUN_ID.match(str(run_id).strip().lower()):
            _note(s, "refused", str(run_id).strip().lower(), how)
        return auth.shown(str(e))
    _note(s, "open", run.id, how, owner=run.owner, data_name=run.data_name,
          as_admin=auth.viewer().user != run.owner and auth.viewer().admin)
    label = f"run {run.id}: {run.data_name}" + (f" ({run.label})" if run.label else "")
    if run.kind == "panel":
        recipe = runs.panel_replay(run, files)
        if recipe is None:
            return f"run {run.id} has no ratings stored"
        error = replay_panel(recipe, label, run.id)
    elif runs.is_scored_run(run):  # a graded or pass/fail judge: its own slot (ui.scored), not the pairwise one
        error = runs.scored_replay(runs.judge_replay(run, files), label, run.id)
    else:
        error = replay_judge(runs.judge_replay(run, files), label, run.id)
    if error:
        return error
    session.set_run(runs.slot_of(run), run.id)
    if with_thresholds:  # the run's own part only: a panel run and a judge run in one link keep both
        session.set_thresholds(runs.opened_thresholds(session.thresholds, run), redraw=True)
    return None


def _note(s: Store, action: str, run_id: str, how: str, **detail: object) -> None:
    """An opening (or a refused link) in the audit trail; a trail that cannot be written does not
    stop the run from opening (the failure goes to the server log)."""
    try:
        s.note(action, run_id, how=how, **detail)
    except StoreError:
        log.warning("the audit trail could not record %s of run %s", action, run_id)


def _as_upload(source: Source | None) -> Upload | None:
    """A stored input as the session holds it (its digest keys the caches)."""
    return None if source is None or source.data is None else Upload.of(source.name, source.data, origin="run")


def replay_panel(recipe: PanelRecipe, label: str, run_id: str) -> str | None:
    """The session reads the panel as ``recipe`` says (its mapping, dimension, level, interval and
    positive category) and measures it through the pipeline as any loaded panel is
    (ui.data.panel_measurements). On an error the reading and what was loaded are kept."""
    dimension = recipe.dimension
    # a stored run's files hold their bytes
    held = replace(recipe, ratings=(cast(Upload, _as_upload(recipe.ratings[0])),), rates=_as_upload(recipe.rates))
    loaded = Loaded(label + (f" (dimension {dimension})" if dimension else ""), held, run_id)
    # the interval the run was recorded with: "krippendorff" (runs recorded before) is "pairs"
    interval = INTERVAL_METHODS.get(recipe.interval, "units") if isinstance(recipe.interval, str) else "units"
    return try_panel_source(loaded, (recipe.level, runs.positive_of(held, recipe.positive), interval))


def replay_judge(recipe: JudgeRecipe, label: str, run_id: str) -> str | None:
    """The session holds the judge's files in the recipe's slots and audits them through the
    pipeline as any loaded judge is (ui.data.judge_bundle). On an error what was loaded is kept."""
    held = replace(recipe, first=cast(Upload, _as_upload(recipe.first)), references=_as_upload(recipe.references),
                   observations=_as_upload(recipe.observations), contract=_as_upload(recipe.contract),
                   mapping=_as_upload(recipe.mapping))
    return try_judge_source(Loaded(label, held, run_id))


def open_link_runs() -> None:
    """``?run=<id>`` (repeated for a panel, a judge and a graded judge's run): restore each, then the
    reading the link carries (level, interval, positive: changed since the run was recorded); a bad
    one is said and the rest kept."""
    ids = [x for x in st.query_params.get_all("run") if x][:3]
    errors = []
    for run_id in ids:
        error = open_run(run_id, with_thresholds="th" not in st.query_params, how="link")
        if error:
            ask = (" If someone sent you this link, ask them to share the run with you (History page, Who sees this "
                   "run)." if "that you can open" in error else "")
            errors.append(f"The link's run {run_id[:20]!r} could not be opened: {error}.{ask}")
    if session.panel_source.run and any(k in st.query_params for k in runs.READING_PARAMS):
        error = _reading_from_url()
        if error:
            errors.append(f"The link's reading was ignored: {error}")
    if errors:
        session.set_url_error(" ".join(errors))


def _reading_from_url() -> str | None:
    from agreebound.panel.categories import LEVELS

    level = st.query_params.get("level", session.level)
    given = st.query_params.get("interval", session.interval)
    positive = st.query_params.get("positive", "auto" if session.positive == "auto" else str(session.positive))
    if level not in ("auto", *LEVELS):
        return f"level must be auto or one of {', '.join(LEVELS)}"
    if given not in INTERVAL_METHODS:  # "krippendorff", in links made before, is "pairs"
        return "interval must be units or pairs"
    interval = INTERVAL_METHODS[given]
    if len(positive) > 200:
        return "the positive category is too long"
    # a level or category the data cannot take falls back there, and says so
    return adopt_reading(cast("Level | Literal['auto']", level),  # one of them: checked above
                         runs.positive_of(session.panel_source.recipe, positive), interval)


def sync_url() -> None:
    """The loaded runs, the panel's reading beside a panel run, and the thresholds travel in the URL
    (as validated JSON), so a link reproduces the view."""
    ids = runs.url_runs()
    if st.query_params.get_all("run") != ids:
        if ids:
            st.query_params["run"] = ids
        elif "run" in st.query_params:
            del st.query_params["run"]
    reading = runs.url_reading()  # beside a panel run: the level, interval and positive in force
    for key in runs.READING_PARAMS:
        if key in reading:
            if st.query_params.get(key) != reading[key]:
                st.query_params[key] = reading[key]
        elif key in st.query_params:
            del st.query_params[key]
    t = session.thresholds
    if not t.edited and not ids:
        if "th" in st.query_params:
            del st.query_params["th"]
        return
    encoded = json.dumps(t.to_dict(), separators=(",", ":"), sort_keys=True)
    if st.query_params.get("th") != encoded:
        st.query_params["th"] = encoded
