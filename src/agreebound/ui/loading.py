"""What is loaded, measured and decided: the panel at the reading in force (falling back to the
suggested level when the data cannot take the one chosen), the judge with its case-aware
intervals, a new source adopted only if it parses and measures (what was loaded is kept on a
failure), and the decisions each rerun reuses (ui.memo)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, recipe_digest
from agreebound.core.errors import InputError, memory_message
from agreebound.core.thresholds import DEFAULT
from agreebound.judge.decide import decide
from agreebound.judge.decision import CalibrationDecision
from agreebound.panel.decision import PanelDecision
from agreebound.panel.decide import decide_panel
from agreebound.panel.measure import PanelMeasurement
from agreebound.ui import auth, memo, runs, state
from agreebound.ui.blocks import md
from agreebound.ui.data import Loaded, Upload, measured_judge, measured_panel
from agreebound.ui.state import session

if TYPE_CHECKING:
    from agreebound.panel.categories import Level

#: A panel's reading: its level, positive category and interval method (None: the one in force).
Reading = tuple["Level | Literal['auto']", Any, "str | None"]


def _measure_panel_source(loaded: Loaded[PanelRecipe], level: Level | Literal["auto"], positive: Any,
                          interval: str | None = None) -> dict[str, PanelMeasurement]:
    """The loaded panel measured through the pipeline under the reading in force (cached by its
    recipe's digest; the pipeline chooses the engine)."""
    return measured_panel(runs.panel_recipe(loaded, level, positive, interval))


def panels() -> dict[str, PanelMeasurement]:
    """The loaded panel, measured at the chosen level; a level (or positive category) the data
    cannot take falls back to the suggested level with the reason shown."""
    try:
        return _measure_panel_source(session.panel_source, session.level, session.positive)
    except InputError as e:
        session.set_reading("auto", "auto")
        session.remember_fallback(str(e), _reading())
        return _measure_panel_source(session.panel_source, "auto", "auto")


def adopt_reading(level: Level | Literal["auto"], positive: Any, interval: str) -> str | None:
    """Put the reading a link carries in force, measured as :func:`panels` measures (a level or
    category the data cannot take falls back there, and says so). Returns the error, the reading
    in force then unchanged."""
    loaded = session.panel_source
    try:
        _measure_panel_source(loaded, level, positive, interval)
    except InputError as e:
        try:
            _measure_panel_source(loaded, "auto", "auto", interval)
        except Exception as e2:  # noqa: BLE001
            return str(e2)
        session.set_reading("auto", "auto", interval)
        session.remember_fallback(str(e), _reading())
        return None
    except Exception as e:  # noqa: BLE001
        return str(e)
    session.set_reading(level, positive, interval)
    return None


def _reading() -> tuple[str, Any, Any]:
    """The loaded panel's reading: its data (by digest), the level and the positive category."""
    return recipe_digest(session.panel_source.recipe), session.level, session.positive


def show_level_fallback() -> None:
    """Why the verdicts are not at the level (or positive category) the user chose: said for as
    long as the reading in force is the one the page fell back to (the same data, level, category)."""
    said = session.fallback
    if said is not None and said[0] == _reading():
        st.error(md(said[1], 400) + " (shown at the suggested level and positive category instead)")


def judge() -> JudgeBundle:
    return measured_judge(session.judge_source.recipe)


def judge_key(loaded: Loaded[JudgeRecipe]) -> tuple[str, ...]:
    """What a judge measurement depends on (the diagnostics' cache key): its recipe's digest."""
    return (recipe_digest(loaded.recipe),)


def rows_read(loaded: Loaded[PanelRecipe]) -> str:
    """``100 rows read (rows 2-101)`` for an uploaded rating file ('' for a data folder)."""
    if not isinstance(loaded.recipe.ratings[0], Upload):
        return ""
    from agreebound.render.report import rows_read, rows_read_text
    from agreebound.ui.data import imported_of

    try:
        return rows_read_text(rows_read(imported_of(loaded.recipe)))
    except InputError:
        return ""


def uploaded(key: str) -> Upload | None:
    """The file now in uploader ``key`` (called from its on_change), keyed by its digest."""
    f = session.widget(key)
    return None if f is None else Upload.of(f.name, f.getvalue())


def _shown_name(loaded: Loaded[PanelRecipe | JudgeRecipe]) -> str:
    """The loaded data's name in a message: the first file's (a data folder's: its name there)."""
    r = loaded.recipe
    return (r.display or r.ratings[0].name) if isinstance(r, PanelRecipe) else r.first.name


def try_panel_source(loaded: Loaded[PanelRecipe], reading: Reading | None = None) -> str | None:
    """Adopt ``loaded`` if it parses and measures; otherwise keep what is loaded. Returns the error.
    ``reading``: the level, positive category and interval to read it at (an interval of None: the
    one in force), in force once it is adopted (new data starts from its own suggestions); None:
    the reading in force."""
    level, positive, interval = reading if reading is not None else (session.level, session.positive, None)
    try:
        measured = _measure_panel_source(loaded, level, positive, interval)
    except InputError as e:
        return str(e)
    except MemoryError:
        return memory_message(_shown_name(loaded))
    except Exception as e:  # noqa: BLE001 - never a traceback on screen; the message names the file
        return auth.shown(f"{_shown_name(loaded)}: could not be read ({type(e).__name__}: {e})")
    if reading is not None:
        session.set_reading(level, positive, interval)
    session.set_loaded("panel", loaded)  # adopted before recording: a failure there keeps it loaded
    session.forget_tab_views()
    session.set_loaded("panel", runs.after_adopt("panel", loaded, measured))
    return None


def try_judge_source(loaded: Loaded[JudgeRecipe]) -> str | None:
    try:
        measured = measured_judge(loaded.recipe)
    except InputError as e:
        return str(e)
    except MemoryError:
        return memory_message(_shown_name(loaded))
    except Exception as e:  # noqa: BLE001
        return auth.shown(f"{_shown_name(loaded)}: could not be read ({type(e).__name__}: {e})")
    session.set_loaded("judge", loaded)  # adopted before recording: a failure there keeps it loaded
    session.set_loaded("judge", runs.after_adopt("judge", loaded, measured))
    return None


def panel_decisions() -> dict[str, tuple[PanelMeasurement, PanelDecision]]:
    t = state.thresholds()
    return {dim: (m, memo.once("panel", m, lambda m: decide_panel(m, t.panel, t.source), (t.panel, t.source)))
            for dim, m in panels().items()}


def decided_under_defaults(m: PanelMeasurement) -> PanelDecision:
    """The panel decided under the default thresholds: what What-if compares the edited ones with."""
    return memo.once("defaults", m, lambda m: decide_panel(m, DEFAULT.panel))


def decided_as_bound(bundle: JudgeBundle) -> CalibrationDecision:
    """The judge decided against its bound contract (the illustrative limits when it has none)."""
    return memo.once("bound", bundle, lambda b: decide(b.measurement, None))


def judge_decision() -> tuple[JudgeBundle, CalibrationDecision]:
    """The judge decided with the case-aware intervals of its cached diagnostics, so each gate
    carries its interval and whether it is fragile (a slider move only re-decides)."""
    from agreebound.ui.data import judge_diagnostics_for

    b = judge()
    intervals = judge_diagnostics_for(judge_key(session.judge_source), b.measurement).intervals
    cal = state.thresholds().calibration
    return b, memo.once("judge", b, lambda b: decide(b.measurement, cal, intervals=intervals), cal)
