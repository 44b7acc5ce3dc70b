"""Building blocks the pages share: loading (keeping what is loaded on failure), verdict
banners, reason lists, the sidebar and the threshold editors."""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pandas as pd
import pyarrow as pa
import streamlit as st

from agreebound.panel.measure import PanelMeasurement, decide_panel, level_note, level_verdicts
from agreebound.panel.measure import depends_on_level  # noqa: F401 - re-exported for the pages (layout only)
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, level_phrase, rater_noun
from agreebound.panel.levels import level_question as data_level_question
from agreebound.judge.calibration import (
    RATE_GATES,
    CalibrationDecision,
    CalibrationThresholds,
    decide,
    seed_view,
    unavailable,
)
from agreebound.judge.contract import JudgeCalibrationContract
from agreebound.core.errors import InputError, memory_message
from agreebound.app.judge_input import JudgeBundle
from agreebound.panel.seed import AB_RATIO_UNBOUNDED, AB_UNDEFINED, Verdict
from agreebound.panel.decide import PanelDecision
from agreebound.panel.categories import LEVELS
from agreebound.core.escape import csv_cell, md_text, printable
from agreebound.core.gate import SEVERITY
from agreebound.core.limits import LISTED_CATEGORIES
# How much a page draws (re-exported for the pages, which import nothing below ui and render):
from agreebound.core.limits import COINCIDENCE_MAX_CATEGORIES, DETAIL_DIMENSIONS, DIAGNOSTIC_RATERS  # noqa: F401
from agreebound.core.thresholds import NET_GATES, RANGES, SLIDER_SPAN
from agreebound.app.pipeline import JudgeRecipe, PanelRecipe, Source, recipe_digest
from agreebound.panel.intervals import INTERVAL_METHODS
from agreebound.ui import auth, runs, state
from agreebound.ui.data import (
    JUDGE_SAMPLES,
    PANEL_SAMPLES,
    Loaded,
    Upload,
    data_digest,
    measured_judge,
    measured_panel,
)
from agreebound.render.figures import RATE_LABELS, exact_text, fraction_text
from agreebound.render.gates import NET_LABELS, GateView

S = st.session_state
log = logging.getLogger("agreebound.ui")

VERDICT_TEXT = {
    Verdict.ENFORCE: "ENFORCE: reliable enough to act on",
    Verdict.REPORT_ONLY: "REPORT_ONLY: measure and publish, do not auto-enforce",
    Verdict.REFUSE_SINGLE: "REFUSE_SINGLE: fewer than two independent detectors",
}


def md(text: Any, limit: int | None = 200) -> str:
    """User text inside Markdown (st.markdown, st.error, tab labels...): shown as the text it is."""
    return md_text(text, limit)


def open_tab(names: list[Any], limit: int, key: str) -> tuple[Any, int]:
    """A tab for each of ``names`` that tracks which one is open (a click on another reruns): the
    open tab's container and its index. Only it is drawn; the hidden tabs stay empty, so a page
    does not make the browser (and the server) draw what nobody looks at."""
    tabs = st.tabs(_tab_labels(names, limit), key=key, on_change="rerun")
    i = next((i for i, t in enumerate(tabs) if t.open), 0)
    return tabs[i], i


def _tab_labels(names: list[Any], limit: int) -> list[str]:
    """Tab labels for ``names`` (Markdown: escaped, shortened to ``limit``), each one distinct. A
    tab that tracks its state is known by its label: two names that shorten alike would give two
    tabs one label, and a click on the second would open the first. A repeat gets " (2)", " (3)"."""
    labels: list[str] = []
    for name in names:
        label, n = md(name, limit), 1
        while label in labels:
            n += 1
            label = f"{md(name, limit)} ({n})"
        labels.append(label)
    return labels


def _as_tab_left(key: str, default: Any, allowed: Container[Any]) -> None:
    """Before widget ``key`` of a tab drawn only while open (:func:`open_tab`) is drawn: the value
    it had when its tab was left (state.tab_views), else ``default``. Streamlit forgets a widget
    that a run did not draw; the caller records the value drawn there."""
    views = state.tab_views()
    if S.get(key) not in allowed:
        S[key] = views[key] if views.get(key) in allowed else default


def section_when_open(label: str, key: str, draw: Callable[[], None]) -> None:
    """An expander whose content is computed and drawn only while it is open (a click reruns).
    Left open in a tab, it is open again when that tab is."""
    _as_tab_left(key, False, (True, False))
    with st.expander(label, key=key, on_change="rerun") as shown:
        state.tab_views()[key] = shown.open
        if shown.open:
            draw()


def show_error(slot: str, suffix: str) -> None:
    """The remembered error of ``slot`` (an InputError's line: user text, so escaped)."""
    message = state.error(slot)
    if message:
        st.error(md(message, 400) + " " + suffix)


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A table that a user can download as CSV (st.dataframe's toolbar): text cells and column
    names that a spreadsheet would run as formulas get a leading apostrophe (OWASP)."""
    out = frame.copy()
    for col in out.columns:
        dtype = out[col].dtype
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            out[col] = out[col].map(csv_cell).astype(object)
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


#: Rows a table draws as text (every cell whole); a longer table is a scrollable grid.
TABLE_ROWS = 100


#: A table as the pages build it: a frame, or its rows as dicts (no frame to build on each rerun).
Table = pd.DataFrame | list[dict[str, Any]]


def raw_columns(table: Table) -> tuple[list[Any], list[list[Any]]]:
    """A table's column names and its cells, by column (rows as dicts: keys in first-seen order).
    A frame's text column holds a None as a missing value (NaN): it is a None again, an empty cell."""
    if isinstance(table, pd.DataFrame):
        def cells(col: pd.Series) -> list[Any]:
            if pd.api.types.is_string_dtype(col.dtype) and col.isna().any():
                return [None if v is None or v != v else v for v in col.tolist()]
            return col.tolist()
        return list(table.columns), [cells(table.iloc[:, i]) for i in range(table.shape[1])]
    names = list(dict.fromkeys(k for row in table for k in row))
    return names, [[row.get(k) for row in table] for k in names]


def md_table(names: list[Any], columns: list[list[Any]], limit: int = 200) -> pa.Table:
    """The table st.table draws, from :func:`raw_columns`: every header and cell escaped as Markdown
    (st.table renders each as Markdown, so a name or a ">= 9000" shows as the text it is: a leading
    ">" would be a quotation), as an Arrow table of strings, which st.table sends as it is (a frame
    would be converted on every rerun). ``limit``: the characters a cell shows (a longer one is cut,
    its length said)."""
    return pa.Table.from_arrays([pa.array(["" if v is None else md(v, limit) for v in c], type=pa.string())
                                 for c in columns], names=[md(c, 80) for c in names])


def _grid(table: Table) -> None:
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch")


def text_table(table: Table, width: str = "stretch", limit: int = 200) -> None:
    """A short table whose cells wrap and are shown whole (st.dataframe draws a canvas grid that
    cuts a long cell at its column's edge). Long tables stay a grid that scrolls."""
    if len(table) > TABLE_ROWS:
        _grid(table)
    else:
        _short_table(*raw_columns(table), width, limit)


def _short_table(names: list[Any], columns: list[list[Any]], width: str, limit: int) -> None:
    st.table(md_table(names, columns, limit), hide_index=True, width=width)


def responsive_table(table: Table, key: str, limit: int = 200) -> None:
    """Wide screens: the table, its cells wrapped and whole. Phones: one stacked block per row,
    every column shown (columns this many would not fit). CSS in the frame (ui.shell) shows one or
    the other. A long table is one scrollable grid on every screen."""
    if len(table) > TABLE_ROWS:
        st.caption(f"{len(table):,} rows: a grid that scrolls; drag a column's edge to widen it.")
        _grid(table)
        return
    names, columns = raw_columns(table)
    with st.container(key=f"{key}_wideview"):
        _short_table(names, columns, "stretch", limit)
    heads = [md(c, 60) for c in names[1:]]
    with st.container(key=f"{key}_narrowview"):
        for first, *rest in zip(*columns):
            st.markdown(f"**{md(first, 80)}**  \n" + "  \n".join(f"{h}: {md(v, limit)}" for h, v in zip(heads, rest)
                                                                if v is not None and v != ""))


# --- loading ---------------------------------------------------------------------------------


def _measure_panel_source(loaded: Loaded, level: str, positive: Any) -> dict[str, PanelMeasurement]:
    """The loaded panel measured through the pipeline under the reading in force (cached by its
    recipe's digest; the pipeline chooses the engine)."""
    return measured_panel(runs.panel_recipe(loaded, level, positive))


def panels() -> dict[str, PanelMeasurement]:
    """The loaded panel, measured at the chosen level; a level (or positive category) the data
    cannot take falls back to the suggested level with the reason shown."""
    try:
        return _measure_panel_source(S.panel_source, S.level, S.positive)
    except InputError as e:
        S.level, S.positive = "auto", "auto"
        for key in ("level_widget", "positive_widget"):
            S.pop(key, None)
        state.remember_fallback(str(e), _reading())
        return _measure_panel_source(S.panel_source, "auto", "auto")


def _reading() -> tuple[str, Any, Any]:
    """The loaded panel's reading: its data (by digest), the level and the positive category."""
    return recipe_digest(S.panel_source.recipe), S.level, S.positive


def show_level_fallback() -> None:
    """Why the verdicts are not at the level (or positive category) the user chose: said for as
    long as the reading in force is the one the page fell back to (the same data, level, category)."""
    said = state.fallback()
    if said is not None and said[0] == _reading():
        st.error(md(said[1], 400) + " (shown at the suggested level instead)")


def judge() -> JudgeBundle:
    return measured_judge(S.judge_source.recipe)


def judge_key(loaded: Loaded) -> tuple[str, ...]:
    """What a judge measurement depends on (the diagnostics' cache key): its recipe's digest."""
    return (recipe_digest(loaded.recipe),)


def rows_read(loaded: Loaded) -> str:
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
    f = S.get(key)
    return None if f is None else Upload.of(f.name, f.getvalue())


def _shown_name(loaded: Loaded) -> str:
    """The loaded data's name in a message: the first file's (a data folder's: its name there)."""
    r = loaded.recipe
    return (r.display or r.ratings[0].name) if isinstance(r, PanelRecipe) else r.first.name


def try_panel_source(loaded: Loaded) -> str | None:
    """Adopt ``loaded`` if it parses and measures; otherwise keep what is loaded. Returns the error."""
    try:
        measured = _measure_panel_source(loaded, S.level, S.positive)
    except InputError as e:
        return str(e)
    except MemoryError:
        return memory_message(_shown_name(loaded))
    except Exception as e:  # noqa: BLE001 - never a traceback on screen; the message names the file
        return auth.shown(f"{_shown_name(loaded)}: could not be read ({type(e).__name__}: {e})")
    S.panel_source = loaded  # adopted before recording: a failure there keeps it loaded
    state.forget_tab_views()
    S.panel_source = runs.after_adopt("panel", loaded, measured)
    return None


def try_judge_source(loaded: Loaded) -> str | None:
    try:
        measured = measured_judge(loaded.recipe)
    except InputError as e:
        return str(e)
    except MemoryError:
        return memory_message(_shown_name(loaded))
    except Exception as e:  # noqa: BLE001
        return auth.shown(f"{_shown_name(loaded)}: could not be read ({type(e).__name__}: {e})")
    S.judge_source = loaded  # adopted before recording: a failure there keeps it loaded
    S.judge_source = runs.after_adopt("judge", loaded, measured)
    return None


def worst_first(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> list[str]:
    return sorted(decisions, key=lambda k: SEVERITY[decisions[k][1].verdict.value])


def dimension_table(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> pd.DataFrame:
    """One row per dimension: the verdict and the numbers behind it (for many dimensions)."""
    return pd.DataFrame([{"dimension": dim, "verdict": d.verdict.value,
                          "alpha": None if m.alpha.value is None else round(float(m.alpha.value), 4),
                          "spread": "not measured" if not m.rates else ("unbounded" if d.spread is None
                                                                        else f"{float(d.spread):.2f}x"),
                          "detectors": m.ndet, "units": m.n_units}
                         for dim, (m, d) in decisions.items()])


def panel_decisions() -> dict[str, tuple[PanelMeasurement, PanelDecision]]:
    t = state.thresholds()
    return {dim: (m, once("panel", m, lambda m: decide_panel(m, t.panel, t.source), (t.panel, t.source)))
            for dim, m in panels().items()}


#: Values computed once per object and key: (what, id, key) -> ((the object,), its value). The object is
#: held, so its id is not reused while the entry stands; the objects are the cached measurements every
#: session shares, or one rerun's decision; the keys are frozen thresholds. Values are immutable.
_ONCE: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}


def _memo(table: dict, limit: int, key: tuple[Any, ...], held: tuple[Any, ...], compute: Any) -> Any:
    """``compute()`` once per ``key``; the objects keyed by identity are ``held`` beside the value,
    so a hit is only taken while they are the same objects (an id is never reused meanwhile)."""
    try:
        hit = table.get(key)
    except TypeError:  # a key that cannot be hashed: computed every time
        return compute()
    if hit is not None and all(x is y for x, y in zip(hit[0], held)):
        return hit[1]
    value = compute()
    if len(table) >= limit:
        table.clear()
    table[key] = (held, value)
    return value


def once(what: str, obj: Any, compute: Any, key: Any = ()) -> Any:
    """``compute(obj)``, once per object and ``key`` (what else it depends on): a slider move, in any
    session, reuses what that slider does not move."""
    return _memo(_ONCE, 1024, (what, id(obj), key), (obj,), lambda: compute(obj))


#: Figures built once per inputs: (builder, inputs) -> (the inputs held by identity, the figure). Building a
#: plotly figure (its validation) was about two thirds of a Panel or Overview rerun's CPU, redone on every
#: rerun for the same measurement. Figures are never changed after building (st.plotly_chart copies one
#: before it serialises it), so sessions share them. Bounded: figures are larger than decisions.
_FIGURES: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}


def _by_value(arg: Any) -> bool:
    """A gate (rebuilt on every rerun, small and frozen) or a plain value is keyed by value; anything
    else (measurements and decisions: the cached objects sessions share) by identity, held."""
    return isinstance(arg, (GateView, tuple, str, int, Fraction))


def figure(build: Any, *args: Any, **kw: Any) -> Any:
    """``build(*args, **kw)``, a figure from agreebound.render.figures, built once per inputs: a
    rerun (another session's too) whose inputs did not change reuses the figure it drew."""
    parts = tuple(("value", type(a), a) if _by_value(a) else ("id", id(a)) for a in args)
    held = tuple(a for a in args if not _by_value(a))
    return _memo(_FIGURES, 256, (build, parts, tuple(sorted(kw.items()))), held, lambda: build(*args, **kw))


def decided_under_defaults(m: PanelMeasurement) -> PanelDecision:
    """The panel decided under the default thresholds: what What-if compares the edited ones with."""
    return once("defaults", m, lambda m: decide_panel(m, runs.DEFAULT.panel))


def decided_as_bound(bundle: JudgeBundle) -> CalibrationDecision:
    """The judge decided against its bound contract (the illustrative limits when it has none)."""
    return once("bound", bundle, lambda b: decide(b.measurement, None))


def judge_decision() -> tuple[JudgeBundle, CalibrationDecision]:
    """The judge decided with the case-aware intervals of its cached diagnostics, so each gate
    carries its interval and whether it is fragile (a slider move only re-decides)."""
    from agreebound.ui.data import judge_diagnostics_for

    b = judge()
    intervals = judge_diagnostics_for(judge_key(S.judge_source), b.measurement).intervals
    cal = state.thresholds().calibration
    return b, once("judge", b, lambda b: decide(b.measurement, cal, intervals=intervals), cal)


# --- display ---------------------------------------------------------------------------------


def verdict_banner(m: PanelMeasurement, d: PanelDecision, prefix: str = "") -> None:
    """``prefix`` is user text (a dimension name): escaped. The verdict names its level (and who
    chose it); an ENFORCE whose spread was never measured says so; a verdict that another
    admissible level would change says so in the same box, with alpha at each."""
    verdict = d.verdict
    sample_badge("panel")
    code, _, meaning = VERDICT_TEXT[verdict].partition(": ")
    meaning = meaning.replace("detectors", f"{rater_noun(m.raters)}s")  # a human study has raters
    text = (md(prefix, 80) + ": " if prefix else "") + f"{code} {level_phrase(m.level, m.level_origin[0])}: {meaning}"
    if not m.rates and verdict is not Verdict.REFUSE_SINGLE:
        text += " (spread not checked: no detector rates)"
    note = level_note(m, level_verdicts(m, d.thresholds))
    if note:
        text += f"  \n**Depends on the level**: {md(note, 400)}."
    {Verdict.ENFORCE: st.success, Verdict.REPORT_ONLY: st.warning, Verdict.REFUSE_SINGLE: st.error}[verdict](text)


DECISION_TEXT = {"PASS_CALIBRATION": "PASS_CALIBRATION", "FAIL_CALIBRATION": "FAIL_CALIBRATION",
                 "INCOMPLETE": "INCOMPLETE: a partial audit, never a pass"}


def decision_banner(d: CalibrationDecision, prefix: str = "") -> None:
    """A warning for INCOMPLETE (a partial audit, or no contract: then the reason), never a pass's
    or a fail's colour."""
    sample_badge("judge")
    text = (prefix + " " if prefix else "") + (DECISION_TEXT[d.decision] if d.contract_given
                                               else f"INCOMPLETE: {d.reason} (not decided, never a pass)")
    {"PASS_CALIBRATION": st.success, "INCOMPLETE": st.warning}.get(d.decision, st.error)(text)


def panel_reasons(d: PanelDecision, m: PanelMeasurement) -> None:
    if not d.reasons:
        spread = "spread within the cap" if m.rates else "spread not measured (no detector rates)"
        st.markdown(f"Every check passed: at least two independent {rater_noun(m.raters)}s, alpha at or above the floor, "
                    f"{spread}.")
    for r in d.reasons:
        st.markdown(f"- **{r.check.replace('_', ' ')}**: {r.message}")
    if d.seed_disagrees:
        seed_alpha = "undefined" if d.seed_alpha_permil == AB_UNDEFINED else f"{d.seed_alpha_permil} permil"
        spread = "unbounded" if d.seed_ratio_permil == AB_RATIO_UNBOUNDED else f"{d.seed_ratio_permil} permil"
        st.info(f"[The specification's integer formula](/help#the-specification) decides {d.seed_verdict.value} here: "
                f"its nominal integer alpha on this matrix is {seed_alpha} (it counts the values of units with one "
                f"rating and rounds up), its spread is {spread}. Agreebound decides {d.verdict.value} on the exact "
                "values.")


def alpha_text(m: PanelMeasurement) -> str:
    a = m.alpha
    if a.value is None:
        return "undefined (no pairable values or no variation)"
    return f"{fraction_text(a.value)} = {exact_text(a.value)} ({a.permil} permil)"


def alpha_ci_text(m: PanelMeasurement, d: PanelDecision) -> str:
    b = m.alpha_boot
    if not b.defined:
        return f"no interval ({b.note})" if b.note and m.alpha.value is not None else "no interval (alpha undefined)"
    q = b.q_below(d.thresholds.alpha_floor)
    how = (f"pairs bootstrap (KALPHA), {b.draws:,} draws of {b.pairs:,} pairs: narrower than 95% when units have "
           "3+ ratings" if b.method == "pairs" else f"units bootstrap, {b.draws:,} draws")
    note = f"; {b.note}" if b.note else ""
    return (f"95% interval [{b.low:.4f}, {b.high:.4f}] ({how}, seed {b.seed}{note}); "
            f"q = P(alpha < floor) = {q:.3f}")


def spread_ci_text(m: PanelMeasurement) -> str:
    if not m.rates:
        return "no interval (no rates)"
    low, high = m.spread_bracket
    return f"95% bracket [{low:.3f}x, {'unbounded' if high is None else f'{high:.3f}x'}] from the Wilson intervals"


NOUNS = {"human_agreement": "agreements", "position_flip": "flips", "repeat_variance": "unstable orders",
         "verbosity_bias": "verbosity errors", "self_preference": "self-preferring picks"}


def margin_text(g: Any) -> str:
    """"2 more flips fail the gate" / "15 fewer flips would pass": a judge gate's margin in cases
    (``g``: an agreebound.core.gate.Gate, its cases to decide as decided)."""
    state_, k = g.cases_to_decide or ("not evaluable", 0)
    noun = NOUNS[g.name]
    if state_ == "not evaluable":
        return "no opportunities"
    if g.kind == "max":
        return f"{k} more {noun} fail the gate" if state_ == "fail" else f"{k} fewer {noun} would pass"
    return f"{k} fewer {noun} fail the gate" if state_ == "fail" else f"{k} more {noun} would pass"


def judge_diagnostics_text(diag: Any, m: Any, ha: Any) -> str:
    """Markdown. A partial audit's diagnostics count only the cases with a human reference;
    ``ha``: the judge-human alpha (agreebound.app.judge_input.JudgeBundle.judge_human_alpha)."""
    (a, n), (a_nt, n_nt) = diag.agreement_with_ties, diag.agreement_without_ties
    share = f" = {a_nt / n_nt:.2%}" if n_nt else ""
    flips = (f"- position flips: {diag.stable_flips} with both orders stable (the gated rate), {diag.noisy_flips} "
             "more where repetition noise left the orders' majorities different")
    if "position_flip" in m.unavailable:
        flips = "- position flips: not evaluable, " + md(m.unavailable["position_flip"])
    if "human_agreement" in m.unavailable:
        return "- human agreement: not evaluable, " + md(m.unavailable["human_agreement"]) + "\n" + flips
    return (f"- human agreement with ties {a}/{n}, without tie references {a_nt}/{n_nt}{share}\n"
            f"- chance-corrected: alpha(human, judge majority per order) = {fraction_text(ha.value)} "
            f"({ha.pairable} pairable values)\n" + flips)


CASE_FILTERS = {
    "all cases": lambda c: c,
    "flipped (position)": lambda c: c[c["flipped"]],
    "unstable repetitions": lambda c: c[c["unstable_ab"] | c["unstable_ba"]],
    "verbosity errors": lambda c: c[c["verbosity_errors"] > 0],
    "self-preference errors": lambda c: c[c["self_errors"] > 0],
}


def filter_cases(cases: Any, choice: str) -> Any:
    return CASE_FILTERS[choice](cases)


def spread_text(d: PanelDecision, m: PanelMeasurement) -> str:
    """Markdown; the rates' source can name a user's category, so it is escaped."""
    if not m.rates:
        return "not measured (" + md(m.rates_source.removeprefix("none: ")) + ")"
    if d.spread is None:
        return "unbounded (a detector found nothing where another found something)"
    return f"{float(d.spread):.3f}x = {exact_text(d.spread)}"


def rate_text(d: CalibrationDecision, name: str) -> str:
    """A judge gate's measured rate as decided in ``d``: its raw counts, percent and basis points."""
    if (why := unavailable(d.gate(name))) is not None:
        return "not evaluable: " + why
    rate = d.rate(name)
    if not rate.evaluable:
        return "not evaluable (no opportunities)"
    return f"{rate.numerator}/{rate.denominator} = {float(rate.value) * 100:.2f}% ({rate.bps} bps)"


# --- sidebar ---------------------------------------------------------------------------------


def threshold_banner() -> None:
    """On every page, phones too: the thresholds that differ from the defaults (or the bound
    contract), each beside its default, with a reset. Nothing when all are the defaults."""
    from agreebound.core.thresholds import edits

    # Always the same slot, banner or not: when the banner comes and goes, the page updates the
    # elements below it instead of rebuilding them (a slider move's strip arrives sooner).
    slot = st.container(key="threshold_slot")
    t = state.thresholds()
    contract = judge().contract
    changed = edits(t, CalibrationThresholds.from_contract(contract)) + state.scored_edits(t)
    if not changed:
        return
    source = {"link": "a shared link", "draft": "edits on the What-if page"}.get(t.source, md(t.source, 80))
    with slot, st.container(key="edited_thresholds"):
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.warning(f"**Decided under edited thresholds** (from {source}): " + "; ".join(changed) + ".")
        right.button("Reset to defaults", on_click=state.reset_defaults, key="banner_reset")


def is_sample(kind: str) -> bool:
    """The data behind this domain's verdicts is a bundled sample (synthetic or published), not
    the user's: every verdict drawn from it says so."""
    loaded = S.get("panel_source" if kind == "panel" else "judge_source")
    files = [] if loaded is None else runs.files_of(loaded)[:1] if kind == "panel" else runs.files_of(loaded)
    return any(getattr(f, "origin", "") == "sample" for f in files)


SAMPLE_WORDS = "Sample data"


def sample_said(kind: str, sentence: str) -> str:
    """"Panel: ..." -> "Panel (sample data): ..." when the verdict is a sample's."""
    head = "Panel:" if kind == "panel" else "Judge:"
    return sentence.replace(head, f"{head[:-1]} (sample data):", 1) if is_sample(kind) else sentence


def sample_badge(kind: str) -> None:
    """A badge before a verdict drawn from a bundled sample."""
    if is_sample(kind):
        st.badge(SAMPLE_WORDS, color="gray", help="A bundled sample, not your data: upload yours on the "
                 + ("Panel reliability" if kind == "panel" else "Judge calibration") + " page.")


def data_line(kind: str) -> str:
    """Which data a verdict is about: the source's name and a digest excerpt (Markdown, escaped)."""
    loaded = S.panel_source if kind == "panel" else S.judge_source
    names = ", ".join(f"{md(name, 60)} (sha256 {digest[:12]}…)" for name, digest in shown_files(loaded))
    sample = " (sample data, not yours)" if is_sample(kind) else ""
    return f"Data: **{md(loaded.label, 120)}**{sample}: {names}"


def shown_files(loaded: Loaded) -> list[tuple[str, str]]:
    """The loaded files by name and digest, as a page and a report name them (a data set of the data
    folder: its name there and its files' digest together)."""
    r = loaded.recipe
    if isinstance(r, PanelRecipe) and r.display is not None:
        return [(r.display, data_digest(r))]
    return [(f.name, f.digest) for f in runs.files_of(loaded)]


def _judge_limits_words(t: Any) -> str:
    """What the judge is measured against: "the bound contract" only for a contract the user gave
    (a judge log without one is measured against illustrative limits and not decided)."""
    loaded = S.get("judge_source")
    given = loaded is None or loaded.recipe.source != "log" or loaded.recipe.contract is not None
    if not given:
        return "illustrative limits (no contract)" if t.calibration is None else "the thresholds in force (no contract)"
    return "the bound contract" if t.calibration is None else "a draft contract"


def sidebar(live: bool = False) -> None:
    """``live``: the page edits the thresholds in a fragment, which shows the values in force
    itself (the sidebar is not redrawn on a fragment's rerun)."""
    with st.sidebar:
        st.markdown("**Thresholds**")
        names = list(state.presets())
        st.selectbox("Preset", names, index=None, placeholder="choose a preset...", key="preset_pick",
                     on_change=state.apply_preset, args=("preset_pick",),
                     help=f"Presets: built-in, plus those in {md(state.S.preset_file, 80)}")
        t = state.thresholds()
        if live:
            st.caption("Edited on this page: the banner and the verdict strip show the values in force.")
        else:
            st.caption(f"In force: {md(t.source)}")
            st.markdown(f"- alpha floor **{t.panel.alpha_floor_permil / 1000:.3f}** ({t.panel.alpha_floor_permil} permil)\n"
                        f"- spread cap **{t.panel.ratio_cap_permil / 1000:.2f}x** ({t.panel.ratio_cap_permil} permil)\n"
                        f"- judge: **{_judge_limits_words(t)}**"
                        + ("\n- strict (interval bounds): **panel**" if t.panel.strict else "")
                        + ("\n- strict (interval bounds): **judge**" if t.calibration and t.calibration.strict else "")
                        + (f"\n- graded judge: {_scored_words(t, '**')}" if S.get("scored_source") is not None else ""))
        st.button("Reset to defaults", on_click=state.reset_defaults, key="sidebar_reset")
        st.markdown("**Loaded**")
        st.caption(f"Panel: {md(S.panel_source.label)}")
        st.caption(f"Judge: {md(S.judge_source.label)}")
        if S.get("scored_source") is not None:  # a graded or pass/fail judge, held beside (ui.scored)
            st.caption(f"Graded judge: {md(S.scored_source.label)}")
        st.markdown("**History**")
        if runs.where() != "off":
            st.toggle("Record uploads", value=True, key="record_runs",
                      help="Each upload that parses is recorded as a run: its bytes (stored once), mapping, "
                           "thresholds and verdicts. A reload or a ?run= link restores it.")
        st.caption(md(runs.status(), 300))
        auth.sidebar_lines()


# --- editors ---------------------------------------------------------------------------------


def threshold_pair(label: str, field: str, value: int, step: int, on_change: Any,
                   args: tuple[Any, ...], help_text: str) -> None:
    """A slider and a number input bound to one canonical threshold. The number input takes the
    threshold's whole legal range (agreebound.core.thresholds.RANGES); the slider's track is the
    useful part of it, widened to reach any legal value in force (a link with a cap of 8000)."""
    legal = RANGES[field]
    track_lo, track_hi = SLIDER_SPAN.get(field, (legal.lo, legal.hi))
    track_lo, track_hi = min(track_lo, value), max(track_hi, value)
    for prefix in ("slider_", "number_"):
        if prefix + field not in S:
            S[prefix + field] = value
    if not track_lo <= S["slider_" + field] <= track_hi:
        S["slider_" + field] = value
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    with left:
        st.slider(label, track_lo, track_hi, step=step, key="slider_" + field, on_change=on_change,
                  args=(field, "slider_" + field, *args), help=help_text)
    with right:
        st.number_input(label, legal.lo, legal.hi, step=1, key="number_" + field, on_change=on_change,
                        args=(field, "number_" + field, *args), label_visibility="hidden")


def _more(items: Any, shown: int) -> str:
    return f" and {len(items) - shown:,} more" if len(items) > shown else ""


def panel_editors(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]] | None = None) -> None:
    """``decisions``: show where each dimension's measured value sits, under its slider."""
    threshold_pair("Alpha floor (permil)", "alpha_floor_permil", state.panel_value("alpha_floor_permil"),
                   1, state.edit_panel, (),
                   "Permil: thousandths (600 permil = 0.600). ENFORCE needs alpha >= floor / 1000 (exactly). "
                   "The specification's (seed's) default 600 = Krippendorff's 0.6.")
    if decisions:
        st.caption("measured alpha: " + ", ".join(
            f"{md(dim, 30)} " + ("undefined" if m.alpha.value is None else
                                 f"{float(m.alpha.value):.3f} ({m.alpha.permil} permil)")
            for dim, (m, _) in list(decisions.items())[:12]) + _more(decisions, 12))
    threshold_pair("Spread cap (permil)", "ratio_cap_permil", state.panel_value("ratio_cap_permil"),
                   10, state.edit_panel, (),
                   "ENFORCE needs max/min detector rate <= cap / 1000 (permil: thousandths). The specification's "
                   "(seed's) default 2000 = 2.0x.")
    if decisions:
        st.caption("measured spread: " + ", ".join(
            f"{md(dim, 30)} " + ("not measured" if not m.rates else "unbounded" if d.spread is None else
                                 f"{float(d.spread):.2f}x ({round(d.spread * 1000)} permil)")
            for dim, (m, d) in list(decisions.items())[:12]) + _more(decisions, 12))


def strict_toggle(kind: str, contract: JudgeCalibrationContract) -> None:
    key = f"check_{kind}_strict"
    t = state.thresholds()
    current = t.panel.strict if kind == "panel" else (t.calibration.strict if t.calibration else False)
    if key not in S:
        S[key] = current
    st.checkbox("Strict: also gate on the 95% interval bound", key=key, on_change=state.edit_strict,
                args=(kind, key, contract),
                help=("alpha's bootstrap lower bound must reach the floor and the spread's upper bound stay "
                      "within the cap" if kind == "panel" else
                      "each rate's Wilson bound must pass its threshold (not part of the contract)"))


def calibration_editors(contract: JudgeCalibrationContract, decision: CalibrationDecision | None = None) -> None:
    """``decision``: show each gate's measured rate under its slider."""
    threshold_pair("Minimum reviewers per reference", "minimum_reviewers",
                   state.calibration_value("minimum_reviewers", contract), 1,
                   state.edit_calibration, (contract,), "References with fewer reviewers fail the audit.")
    for name, field, kind in RATE_GATES:
        threshold_pair(f"{RATE_LABELS[name]} {'minimum' if kind == 'min' else 'maximum'} (bps)", field,
                       state.calibration_value(field, contract), 50,
                       state.edit_calibration, (contract,),
                       f"{'At least' if kind == 'min' else 'At most'} this many basis points (1/100 of a percent).")
        if decision is not None:
            st.caption("measured: " + rate_text(decision, name))
    for name, field, _ in NET_GATES:  # the contract's opt-in gates (version 2) only when it sets them
        if (value := state.calibration_value(field, contract)) is None:
            continue
        threshold_pair(f"{NET_LABELS[name]} maximum (bps)", field, value, 50, state.edit_calibration, (contract,),
                       "At most this many basis points (1/100 of a point): the bias net of general disagreement, "
                       "a gate of this contract (version 2).")
        if decision is not None:
            st.caption("measured: " + md(net_text(decision.gate(name)), 300))


def net_text(g: Any, interval: bool = True) -> str:
    """An opt-in net gate's measured difference, in points with its interval (``g``: as decided).
    Plain text: a caller that renders Markdown escapes it."""
    if g.exact is None:
        return "not evaluable: " + (g.detail or "not measured")
    text = f"{float(g.exact) * 100:.1f} points"
    if interval and g.low is not None and g.high is not None:
        text += f" [{g.low * 100:.1f}, {g.high * 100:.1f}]"
    return text


def level_picker(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> None:
    """auto (nobody's choice: the default level for each dimension's values, levels.default_level)
    or one level for all; the suggested level is offered beside the verdict (level_table)."""
    defaults = sorted({m.level for m, _ in decisions.values() if m.level_origin[0] == "default"})
    auto = f"auto: {defaults[0]} (the default)" if len(defaults) == 1 else "auto: the default per dimension"
    if "level_widget" not in S or S.level_widget not in LEVEL_OPTIONS:
        S.level_widget = S.level if S.level in LEVEL_OPTIONS else "auto"
    st.selectbox("Level of measurement", LEVEL_OPTIONS, key="level_widget", on_change=_copy,
                 args=("level_widget", "level"), format_func=lambda v: auto if v == "auto" else v,
                 help="nominal: categories; ordinal: ranks; interval: differences; ratio: proportions. auto: "
                      "nominal (the specification's level), or interval for numbers with decimals or more than 20 "
                      "distinct whole numbers. Each dimension shows alpha and the verdict at every level its values "
                      "admit.")


LEVEL_OPTIONS = ("auto",) + LEVELS


def positive_picker(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> None:
    """Which category counts as a detector's positive, for rates derived from the matrix (the
    most frequent categories are offered: a panel may have thousands)."""
    found: dict[Any, int] = {}
    offered = set()
    for m, _ in decisions.values():
        order = m.category_counts.argsort()[::-1][:LISTED_CATEGORIES]
        values = m.alpha.category_set.first(int(order.max()) + 1) if len(order) else ()
        for i in order:
            found[values[i]] = found.get(values[i], 0) + int(m.category_counts[i])
        if m.positive_suggestion is not None:
            offered.add(m.positive_suggestion)
    cats = sorted(found, key=lambda c: (str(type(c)), c))
    options = ["auto"] + cats
    if S.positive not in options:
        S.positive = "auto"
    if "positive_widget" not in S or S.positive_widget not in options:
        S.positive_widget = S.positive
    st.selectbox("Positive category (detector rates)", options, key="positive_widget", on_change=_copy,
                 args=("positive_widget", "positive"),
                 format_func=lambda v: f"{printable(v, 60)} (suggested)" if v in offered and v != "auto"
                 else printable(v, 60),
                 help="auto: 1 for a 0/1 panel, none otherwise (the spread is then not measured). "
                      "An uploaded rates file takes precedence.")


def _short_exact(x: Any) -> str:
    text = exact_text(x)
    return text if len(text) <= 48 else f"{len(str(x.denominator)):,}-digit denominator (see Exact numbers)"


def level_table(m: PanelMeasurement, d: PanelDecision, key: str) -> None:
    """The level in force, who chose it and why; the suggested level as a one-click switch; alpha
    and the verdict at every admissible level: the level is never silent."""
    suggested, why = m.level_suggestion
    origin, chosen_why = m.level_origin
    # the rule's own sentences (numbers, no user text): not escaped, so they read as written
    st.markdown(f"Level in force: **{m.level}** ({LEVEL_ORIGIN_WORDS[origin]}: {chosen_why}).")
    if suggested != m.level:
        st.button(f"{level_question(m)} Read as {suggested}?", key=f"level_switch_{key}", on_click=switch_level,
                  args=(suggested,), help=f"Suggested: {why}. The level is yours to choose; the verdict names it.")
    if len(m.alpha_at_levels) > 1:
        verdicts = level_verdicts(m, d.thresholds)
        rows = [{"level": lv + (" (in force)" if lv == m.level else ""),
                 "alpha": "undefined" if a is None else f"{float(a):.4f}",
                 "exact": "undefined" if a is None else _short_exact(a),
                 "verdict": verdicts[lv].value if lv in verdicts else "not compared (ratio needs a true zero)"}
                for lv, a in m.alpha_at_levels.items()]
        text_table(pd.DataFrame(rows), width="content")  # four short columns: whole on a phone too


def level_question(m: PanelMeasurement) -> str:
    """The one-click switch's question for a measured panel (levels.level_question)."""
    n = m.alpha.n_categories if m.kind == "integer" and m.alpha.n_categories <= 20 else 0
    return data_level_question(m.level_suggestion[0], m.kind, m.alpha.category_set.first(n) if n else ())


def switch_level(level: str) -> None:
    """The one-click switch: the level becomes the user's choice (the picker follows)."""
    S.level = level
    S.pop("level_widget", None)


INTERVALS = {"units": "units (cluster bootstrap): a 95% interval",
             "pairs": "pairs (KALPHA): narrower than 95% when units have 3+ ratings"}


def interval_picker() -> None:
    if "interval_widget" not in S:
        S.interval_widget = S.get("interval", "units")
    st.radio("Alpha interval", list(INTERVALS), format_func=INTERVALS.get, key="interval_widget", horizontal=True,
             on_change=_copy, args=("interval_widget", "interval"),
             help="The interval strict mode, q and 'fragile' read. Units (the default) resamples whole units, so a "
                  "unit's ratings stay together: a 95% interval. Pairs is KALPHA's bootstrap: it resamples pairs "
                  "from the coincidence matrix with D_e fixed, as if the m(m-1)/2 pairs of a unit were independent; "
                  "with 3 or more ratings per unit it covers the true alpha less often than 95%.")


def _copy(src: str, dst: str) -> None:
    S[dst] = S[src]


def sample_picker(kind: str) -> None:
    options = list(PANEL_SAMPLES if kind == "panel" else JUDGE_SAMPLES)
    st.selectbox("Or pick a sample", options, index=None, placeholder="choose a sample...", key=f"{kind}_sample",
                 on_change=load_sample, args=(kind,))


def load_sample(kind: str) -> None:
    """on_change of a sample picker: the sample chosen loaded (what was loaded kept on an error)."""
    label = S[f"{kind}_sample"]
    if label is None:
        return
    if kind == "panel":
        filename, _ = PANEL_SAMPLES[label]
        old = (S.level, S.positive)
        S.level, S.positive = "auto", "auto"  # new data starts from its own suggestions
        error = try_panel_source(Loaded(label, PanelRecipe((Upload.sample(filename),))))
        if error:
            S.level, S.positive = old
        else:
            for key in ("level_widget", "positive_widget"):
                S.pop(key, None)
        state.remember_error("panel", error)
    else:
        source, first, *rest = JUDGE_SAMPLES[label]
        references = Upload.sample(rest[0]) if rest and rest[0] else None  # a log's human references
        recipe = JudgeRecipe(Upload.sample(first), source, references=references)
        state.remember_error("judge", try_judge_source(Loaded(label, recipe)))


# --- the data folder ---------------------------------------------------------------------------


def ask_folder_diagnostics(asked: tuple[str, str, str]) -> None:
    """on_click: compute the per-rater diagnostics of folder data (digest, level, dimension)."""
    S.folder_diagnostics = S.get("folder_diagnostics", set()) | {asked}


def _folder_go() -> None:
    S.folder_go = True


def folder_picker() -> None:
    """Long ratings of any size from the server's data folder, measured out of core with DuckDB.
    Only what the folder holds is offered; the browser never sends a path."""
    import os
    import time

    from agreebound.ui.data import data_folder, folder_data, folder_entries

    entries = folder_entries()
    if not entries:
        return
    with st.expander("Open a large data set from the server's data folder (DuckDB, any size)"):
        st.caption(f"Long ratings (columns unit, rater, value, and optionally dimension) in CSV or Parquet, in the folder "
                   f"{md(data_folder().name, 60)} on the server (set by AGREEBOUND_DATA_DIR); a subfolder of parts is "
                   "one data set. Measured out of core: the sliders then only decide, as for uploads.")
        pick = st.selectbox("Data set", list(entries), index=None, key="folder_pick",
                            placeholder="choose a file, or a folder of parts...")
        st.button("Measure with DuckDB", key="folder_measure", on_click=_folder_go)
        if S.pop("folder_go", False) and pick in entries:
            files = entries[pick]
            size = sum(os.path.getsize(f) for f in files)
            with st.status(f"Measuring {md(pick, 80)} with DuckDB: {len(files):,} file{'s' if len(files) != 1 else ''}, "
                           f"{size / 2**20:,.1f} MiB...", expanded=False) as status:
                t0 = time.perf_counter()
                old = (S.level, S.positive)
                S.level, S.positive = "auto", "auto"  # new data starts from its own suggestions
                error = try_panel_source(Loaded(f"data folder: {pick}", folder_data(pick, files)))
                if error:
                    S.level, S.positive = old
                    status.update(label=f"Could not measure {md(pick, 80)}", state="error")
                    state.remember_error("panel", error)
                else:
                    status.update(label=f"Measured {md(pick, 80)} in {time.perf_counter() - t0:.1f} s", state="complete")
                    state.remember_error("panel", None)
                    for key in ("level_widget", "positive_widget"):
                        S.pop(key, None)
                    S.folder_message = f"Measured {pick} with DuckDB in {time.perf_counter() - t0:.1f} s."
                    st.rerun()
        if S.get("folder_message"):
            st.caption(md(S.folder_message, 200))


# --- history ---------------------------------------------------------------------------------


def record_controls(kind: str) -> None:
    """The loaded data's run (its id is in the URL), a failed recording said, and "Record this
    view": the data under the thresholds in force, with an optional label."""
    loaded = S.panel_source if kind == "panel" else S.judge_source
    if S.get(f"record_error_{kind}"):
        st.warning(md(S[f"record_error_{kind}"], 500))
    if runs.store() is None:
        return
    with st.expander("History: record this view as a run", expanded=False):
        if loaded.run:
            st.caption(f"This data is run {md(loaded.run)} in the history (the link carries its id, never the data).")
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.text_input("Label (optional)", key=f"record_label_{kind}", max_chars=200,
                        placeholder="e.g. week 48, after retraining")
        right.button("Record this view", key=f"record_{kind}", on_click=record_view, args=(kind,))
        if S.get("record_message"):
            st.success(md(S.record_message))
            S.record_message = None


# --- runs: opening one (from History or a link), recording this view ---------------------------


def open_run(run_id: str, with_thresholds: bool = True, how: str = "history") -> str | None:
    """Load a run's stored inputs into the session the way it read them; thresholds too unless
    the link carries its own. ``run_id``: the whole id (a link never opens a run by a prefix);
    ``how``: "link" or "history", said in the audit trail with the opening (or the refusal).
    Returns an error text (and keeps what was loaded) or None."""
    s = runs.store()
    if s is None:
        return S.get("store_error") or "recording is off: there is no history to open runs from"
    try:
        run = s.get(run_id, prefix=False)
        files = s.inputs(run)
    except runs.StoreError as e:
        if runs.RUN_ID.match(str(run_id).strip().lower()):
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
    S[f"{runs.slot_of(run)}_run"] = run.id
    if with_thresholds:  # the run's own part only: a panel run and a judge run in one link keep both
        S.thresholds = runs.opened_thresholds(S.thresholds, run)
        state.clear_widgets()
    return None


def _note(s: Any, action: str, run_id: str, how: str, **detail: Any) -> None:
    """An opening (or a refused link) in the audit trail; a trail that cannot be written does not
    stop the run from opening (the failure goes to the server log)."""
    try:
        s.note(action, run_id, how=how, **detail)
    except runs.StoreError:
        log.warning("the audit trail could not record %s of run %s", action, run_id)


def _as_upload(source: Source | None) -> Upload | None:
    """A stored input as the session holds it (its digest keys the caches)."""
    return None if source is None or source.data is None else Upload.of(source.name, source.data, origin="run")


def replay_panel(recipe: PanelRecipe, label: str, run_id: str) -> str | None:
    """The session reads the panel as ``recipe`` says (its mapping, dimension, level, interval and
    positive category) and measures it through the pipeline as any loaded panel is
    (ui.data.panel_measurements). On an error the reading and what was loaded are kept."""
    dimension = recipe.dimension
    held = replace(recipe, ratings=(_as_upload(recipe.ratings[0]),), rates=_as_upload(recipe.rates))
    loaded = Loaded(label + (f" (dimension {dimension})" if dimension else ""), held, run_id)
    old = (S.level, S.positive, S.get("interval", "units"))
    S.level = recipe.level
    # the interval the run was recorded with: "krippendorff" (runs recorded before) is "pairs"
    S.interval = INTERVAL_METHODS.get(recipe.interval, "units") if isinstance(recipe.interval, str) else "units"
    S.positive = runs.positive_of(held, recipe.positive)
    error = try_panel_source(loaded)
    if error:
        S.level, S.positive, S.interval = old
        return error
    for key in ("level_widget", "positive_widget", "interval_widget"):
        S.pop(key, None)
    return None


def replay_judge(recipe: JudgeRecipe, label: str, run_id: str) -> str | None:
    """The session holds the judge's files in the recipe's slots and audits them through the
    pipeline as any loaded judge is (ui.data.judge_bundle). On an error what was loaded is kept."""
    held = replace(recipe, first=_as_upload(recipe.first), references=_as_upload(recipe.references),
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
    if S.panel_source.run and any(k in st.query_params for k in runs.READING_PARAMS):
        error = _reading_from_url()
        if error:
            errors.append(f"The link's reading was ignored: {error}")
    if errors:
        S.url_error = " ".join(errors)


def _reading_from_url() -> str | None:
    from agreebound.panel.categories import LEVELS

    level = st.query_params.get("level", S.level)
    given = st.query_params.get("interval", S.get("interval", "units"))
    positive = st.query_params.get("positive", "auto" if S.positive == "auto" else str(S.positive))
    if level not in ("auto", *LEVELS):
        return f"level must be auto or one of {', '.join(LEVELS)}"
    if given not in INTERVAL_METHODS:  # "krippendorff", in links made before, is "pairs"
        return "interval must be units or pairs"
    interval = INTERVAL_METHODS[given]
    if len(positive) > 200:
        return "the positive category is too long"
    old = (S.level, S.interval, S.positive)
    S.level, S.interval = level, interval
    S.positive = runs.positive_of(S.panel_source.recipe, positive)
    try:
        panels()  # a level or category the data cannot take falls back there, and says so
    except Exception as e:  # noqa: BLE001
        S.level, S.interval, S.positive = old
        return str(e)
    return None


def record_view(kind: str) -> None:
    """on_click of "Record this view": what is loaded, under the thresholds in force."""
    measured = panels() if kind == "panel" else judge()
    loaded = S.panel_source if kind == "panel" else S.judge_source
    run = runs.record(kind, loaded, measured, label=(S.get(f"record_label_{kind}") or "").strip() or None)
    if run is not None:
        S.record_message = f"Recorded run {run.id}."


# --- reports ---------------------------------------------------------------------------------


def report_coefficients(loaded: Loaded, ms: dict[str, Any], t: Any) -> dict[str, Any] | None:
    """The coefficients beside alpha for a report, explained against the floor in force (uploads and
    samples; a data set from the data folder is measured out of core and has none)."""
    from dataclasses import replace

    from agreebound.ui.data import panel_coefficients

    ratings, mapping = loaded.recipe.ratings[0], loaded.recipe.mapping
    if ratings.data is None:
        return None
    out = {}
    for dim, m in ms.items():
        pc = panel_coefficients(ratings.name, ratings.digest, ratings.data, m.level, dim, mapping)
        out[dim] = replace(pc, explanation=pc.explained(t.panel.alpha_floor_permil))
    return out


def report_downloads(kind: str) -> None:
    """JSON / Markdown / self-contained HTML reports of what is loaded, under the thresholds in
    force; built only when a button is pressed."""
    from agreebound.render.report import calibration_report, mark_sample, panel_report, to_json, to_markdown
    from agreebound.render.html import calibration_html, panel_html

    t = state.thresholds()
    if kind == "panel":
        loaded = S.panel_source
        inputs = shown_files(loaded)
        ms = panels()

        def build() -> dict[str, Any]:
            report = panel_report(ms, t, inputs, coefficients=report_coefficients(loaded, ms, t))
            return mark_sample(report) if is_sample("panel") else report

        def html_() -> str:
            return panel_html(ms, t, build())
    else:
        files = shown_files(S.judge_source)
        bundle = judge()

        def build() -> dict[str, Any]:
            report = calibration_report(bundle, t, files)
            return mark_sample(report) if is_sample("judge") else report

        def html_() -> str:
            return calibration_html(bundle, t, build())

    from datetime import datetime, timezone
    from pathlib import Path

    from agreebound.render.names import report_filename

    label = "panel" if kind == "panel" else "judge"
    stem = Path(shown_files(S.panel_source)[0][0] if kind == "panel" else files[0][0]).stem
    when = datetime.now(timezone.utc)  # the data's name, the domain and the UTC time, as the CLI names them

    def name(ext: str) -> str:
        return report_filename(stem, label, ext, when)

    c1, c2, c3 = st.columns(3)
    c1.download_button(f"{label.capitalize()} report (JSON)", lambda: to_json(build()), file_name=name("json"),
                       mime="application/json", key=f"dl_{label}_json", on_click="ignore")
    c2.download_button(f"{label.capitalize()} report (Markdown)", lambda: to_markdown(build()),
                       file_name=name("md"), mime="text/markdown", key=f"dl_{label}_md", on_click="ignore")
    c3.download_button(f"{label.capitalize()} report (HTML)", html_, file_name=name("html"),
                       mime="text/html", key=f"dl_{label}_html", on_click="ignore")


# --- gates (the overview and the what-if strip) -----------------------------------------------


PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

#: Markdown: terms explained on the Help page's glossary (it opens in a new tab: what is loaded stays).
GLOSSARY_LINK = "terms: [{}](/help#glossary)"


def in_rows(items: list[Any], per_row: int) -> list[list[Any]]:
    """Items cut into rows of ``per_row`` (a row of columns each): stacked on a phone, they keep
    their order, where one set of columns would stack column by column (1, 3, 5, 2, 4)."""
    return [items[i:i + per_row] for i in range(0, len(items), per_row)]


def thresholds_words() -> str:
    """The thresholds in force in one line, for places a phone shows (the sidebar is hidden there)."""
    t = state.thresholds()
    return (f"alpha floor {t.panel.alpha_floor_permil / 1000:.3f}, spread cap {t.panel.ratio_cap_permil / 1000:.2f}x, "
            f"judge: {_judge_limits_words(t)}" + (", strict: panel" if t.panel.strict else "")
            + (", strict: judge" if t.calibration and t.calibration.strict else "")
            + (f", graded judge: {_scored_words(t)}" if S.get("scored_source") is not None else ""))


def _scored_words(t: Any, bold: str = "") -> str:
    """A graded judge's thresholds in force (ThresholdSet.scored), in display units."""
    from agreebound.core.thresholds import THRESHOLD_WORDS

    margin, floor = t.scored.admissibility_margin_permil, t.scored.judge_alpha_floor_permil
    return (f"margin {bold}{THRESHOLD_WORDS['admissibility_margin_permil'][1](margin)}{bold}, "
            f"floor {bold}{THRESHOLD_WORDS['judge_alpha_floor_permil'][1](floor)}{bold}")


def _data_repetitions(bundle: JudgeBundle) -> tuple[int, int] | None:
    """Judgments per case and order in the data: (fewest, most); None when the data does not
    record the order. Cached with the loaded judge (a big table is grouped once, not per rerun)."""
    return _repetitions_of(judge_key(S.judge_source), bundle.observations)


@st.cache_data(max_entries=8, show_spinner=False)
def _repetitions_of(key: tuple[str, ...], _obs: pd.DataFrame) -> tuple[int, int] | None:
    if not len(_obs) or "order" not in _obs:
        return None
    if _obs["order"].isna().any():
        return None
    per = _obs.groupby(["case_id", "order"], sort=False).size()
    return int(per.min()), int(per.max())


def judge_counts(bundle: JudgeBundle) -> str:
    """The Judge page's counts, said once and said alike: cases, observations, and the repetitions
    per order, the data's beside the contract's when they differ."""
    m = bundle.measurement
    want = bundle.contract.repetitions_per_order
    contract = "the contract" if m.contract_given else "the drafted contract (no contract given)"
    text = f"{m.n_cases:,} cases, {m.n_observations:,} observations"
    have = _data_repetitions(bundle)
    if have is None and not len(bundle.observations):  # an out-of-core audit: complete, as validated
        have = (want, want)
    if have is None:
        return text + (f"; the data does not record in which order each judgment was shown, {contract} declares "
                       f"{want} repetitions per order")
    low, high = have
    reps = f"{low}" if low == high else f"{low} to {high}"
    if have == (want, want):
        return text + f": 2 orders x {want} repetitions per case, as {contract} declares"
    return text + f"; the data has {reps} repetition{'' if high == 1 else 's'} per order, {contract} declares {want}"


def dark() -> bool:
    """The theme the browser shows (charts pick theme-aware colours)."""
    try:
        return st.context.theme.type == "dark"
    except Exception:  # noqa: BLE001 - outside a browser session (AppTest): light
        return False


def judge_gate_list(bundle: JudgeBundle, d: CalibrationDecision) -> list[Any]:
    """The judge's gates; the case-aware intervals come from the cached diagnostics of the loaded
    judge (a slider move only re-decides)."""
    from agreebound.render.gates import judge_gates
    from agreebound.ui.data import judge_diagnostics_for

    intervals = judge_diagnostics_for(judge_key(S.judge_source), bundle.measurement).intervals
    return once("judge gates", d, lambda d: judge_gates("judge", d, intervals))


def gate_words(g: Any) -> str:
    """Markdown: the gate's status and margin, the numbers' secondary units, the interval."""
    status = {True: "passes", False: "fails", None: "not checked"}[g.passed]
    if g.illustrative and not g.state:  # a judge without a contract: measured, not decided
        status = g.status
    text = f"**{md(g.label)}** {status}: {md(g.margin, 300)}"
    if g.secondary:
        text += f" ({md(g.secondary, 120)})"
    if g.low is not None:
        text += f". 95% interval {g.fmt(g.low)} to {g.fmt(g.high)}"
        if g.interval_method:
            text += f" ({md(g.interval_method, 160)})"
    if g.cases is not None:
        text += f"; {g.cases:,} cases, {g.observations:,} observations"
    for n in g.notes:
        text += f"; {md(n, 120)}"
    return text + "."


def gate_block(g: Any, key: str, chart: bool = True) -> None:
    """The gate in words, then its bullet chart; a gate with no number (not evaluable, undefined,
    not measured) is its line of words only: a chart would hold nothing but the threshold."""
    st.markdown(gate_words(g))
    if g.plan_sentence:  # fragile: how many more cases (units) would decide it
        st.caption(f"Fragile: {md(g.plan_sentence, 300)}.")
    if chart and g.name != "detectors" and g.value is not None:
        from agreebound.render import figures

        st.plotly_chart(figure(figures.gate_bullet, g, dark=dark()), width="stretch", key=key, config=PLOT_CONFIG)


def fragile_note(gates: list[Any], plans: bool = False) -> None:
    """The verdict could go either way: an interval includes its threshold (shown whether or not
    strict mode gates on it). ``plans``: with how many more cases would decide each (a page that
    does not say it under each gate)."""
    reasons = [f"{md(g.label)}: {g.fragile}" + (f" ({md(g.plan_sentence, 300)})" if plans and g.plan_sentence else "")
               for g in gates if g.fragile]
    if reasons:
        strict = any(g.strict for g in gates)
        st.warning("**Fragile**: " + "; ".join(reasons) + ". Another sample of the same size could reach the "
                   "other verdict." + (" Strict mode is on: these bounds decide." if strict else
                                       " Strict mode (What-if page) gates on these bounds.")
                   + f" ({GLOSSARY_LINK.format('fragile, strict')})")


def why_text(gates: list[Any]) -> str:
    """The failing gates' margins in one Markdown line (empty when nothing fails)."""
    failing = [md(g.margin, 200) for g in gates if g.passed is False]
    return "; ".join(failing)


def coefficients_section(pc: Any, m: Any, d: Any, dim: str) -> None:
    """The Panel page's "Other coefficients": why they differ from alpha (in words, from the data),
    the coefficients with their intervals, each pair of raters, one pair's confusion matrix and the
    categories raters fight over. They do not decide: the verdict above is alpha's and the spread's."""
    from agreebound.render import figures

    co = pc.coefficients
    st.caption("Reviewers from ReCal, irrCAC or R's irr ask for these. They are shown beside alpha and do not "
               "decide: the verdict above is alpha's and the spread's, as the contract defines.")
    for sentence in pc.explained(d.thresholds.alpha_floor_permil):
        st.markdown("- " + md(sentence, 1000))
    if co is None:
        return
    from agreebound.render.report import coefficient_rows, coefficients_section

    rows = coefficient_rows(coefficients_section(pc))  # the reports' rows: one wording everywhere
    frame = pd.DataFrame(rows, columns=["coefficient", "value", "exact", "95% interval", "agreement", "chance"])
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch")
    st.caption("Intervals: Gwet's variance, conditional on these raters, t with n - 1 degrees of freedom, as irrCAC "
               "computes them. Weighted rows use the categories' values (or ranks for labels).")
    if not co.pairs and len(co.raters) > 2:
        from agreebound.panel.coefficients import PAIR_RATERS

        st.caption(f"Each pair of raters is shown for at most {PAIR_RATERS} raters; this panel has {len(co.raters):,}.")
    if co.pairs:
        left, right = st.columns(2)
        with left:
            st.plotly_chart(figure(figures.pair_heatmap, co, dark=dark()), width="stretch", key=f"pairs_{dim}",
                            config=PLOT_CONFIG)
        with right:
            labels = [f"{printable(p.a, 40)} / {printable(p.b, 40)}" for p in co.pairs]
            humans = set(m.humans)
            first = next((i for i, p in enumerate(co.pairs) if (p.a in humans) != (p.b in humans)), 0)
            _as_tab_left(f"pair_pick_{dim}", first, range(len(labels)))
            pick = st.selectbox("Confusion matrix of the pair (a detector against a person first)", range(len(labels)),
                                format_func=lambda i: labels[i], key=f"pair_pick_{dim}")
            state.tab_views()[f"pair_pick_{dim}"] = pick
            st.plotly_chart(figure(figures.confusion_heatmap, co.pairs[pick], tuple(pc.texts), dark=dark()), width="stretch",
                            key=f"confusion_{dim}", config=PLOT_CONFIG)
    cats = [{"category": t, "share of values": f"{float(s):.1%}",
             "specific agreement": "" if a is None else f"{float(a):.3f}"}
            for t, s, a in zip(pc.texts, co.shares, co.specific)]
    st.markdown("**Per category**: its share of the values, and when one rater chooses it, how often a second "
                "rater of the same unit does too")
    st.dataframe(safe_frame(pd.DataFrame(cats)), hide_index=True, height=min(320, 40 + 35 * len(cats)))


def judge_confusion_table(cases: Any) -> None:
    """The judge against the human reference: each case and order's majority verdict."""
    from agreebound.panel.coefficients import judge_confusion

    rows, cols, m, kappa = judge_confusion(cases)
    frame = pd.DataFrame(m, columns=[f"judge: {c}" for c in cols])
    frame.insert(0, "human preferred", rows)
    st.markdown("**The judge against the human reference** (each case, each order: the judge's majority verdict); "
                f"Cohen's kappa {'undefined' if kappa is None else f'{float(kappa):.3f}'} where the judge has a "
                "majority")
    st.dataframe(safe_frame(frame), hide_index=True)


def judge_missing_lines(d: CalibrationDecision) -> list[str]:
    """A partial audit's gates that this source cannot evaluate, each with what would supply it."""
    return [f"**{RATE_LABELS[g.name]}**: not evaluable, {md(why, 600)}"
            for g in d.gates if (why := unavailable(g)) is not None]


def judge_gate_rows(d: CalibrationDecision, diag: Any) -> list[dict[str, str]]:
    """The Judge page's table of gates: each rate, its intervals, its threshold and its side of it,
    as the decision says (no comparison here); then the net gates the contract opted in to."""
    return _rate_rows(d, diag) + [_net_row(d, g) for g in d.gates[len(d.rates):]]


def _net_row(d: CalibrationDecision, g: Any) -> dict[str, str]:
    """An opt-in gate on a bias net of disagreement, as a row of the gates' table."""
    interval = f"[{g.low * 100:.1f}, {g.high * 100:.1f}] points" if g.low is not None and g.high is not None else ""
    return {"rate": NET_LABELS[g.name] + " (contract gate)", "measured": net_text(g, interval=False),
            "95% interval (cases)": interval, "cases / observations": "", "Wilson 95% (observations)": "",
            "threshold (bps)": f"<= {int(g.threshold * 10_000)}",
            "gate": "not evaluable" if g.exact is None else ("pass" if g.passed else "FAIL") if d.contract_given
            else ("within" if g.passed else "outside") + " the limit in force",
            "margin": "" if g.exact is None or not d.contract_given else g.margin_words or ""}


def _rate_rows(d: CalibrationDecision, diag: Any) -> list[dict[str, str]]:
    return [{"rate": RATE_LABELS[g.name], "measured": rate_text(d, g.name),
             "95% interval (cases)": f"[{diag.intervals[g.name].low:.2%}, {diag.intervals[g.name].high:.2%}]"
             if g.name in diag.intervals else "",
             "cases / observations": f"{diag.intervals[g.name].cases:,} / {diag.intervals[g.name].observations:,}"
             if g.name in diag.intervals else "",
             # exact is None: unavailable from this source, or no opportunities
             "Wilson 95% (observations)": f"[{diag.wilson[g.name].low:.2%}, {diag.wilson[g.name].high:.2%}]"
             if g.exact is not None else "",
             "threshold (bps)": f"{'>=' if g.kind == 'min' else '<='} {seed_view(g).threshold_bps}",
             "gate": "not evaluable" + ("" if unavailable(g) is not None or not d.contract_given else " (passes)")
             if g.exact is None
             else ("pass" if g.passed else "FAIL") if d.contract_given  # no contract: a limit's side, never a verdict
             else ("within" if g.passed else "outside") + (" the illustrative limit" if d.contract_origin == "illustrative"
                                                           else " the limit in force"),
             "margin": "" if unavailable(g) is not None or not d.contract_given else margin_text(g)}
            for g in d.gates[:len(d.rates)]]
