"""Cached measuring: keyed by the input's SHA-256, never by an UploadedFile or a big frame.

Parsing and measuring (alpha, the calibration audit) happen here and only here; a threshold
slider reruns ``decide`` on the cached measurement.  ``MEASURE_CALLS`` counts real computations
so tests can prove that a slider never re-measures.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from fractions import Fraction
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from agreebound.panel.alpha import alpha
from agreebound.panel.measure import PanelMeasurement
from agreebound.panel.counts import from_panel as panel_counts
from agreebound.io.ratings import Imported, import_ratings
from agreebound.io.threshold_files import ThresholdFile, parse_thresholds
from agreebound.core.errors import InputError
from agreebound.io.mapping import Mapping
from agreebound.io.templates import TEMPLATES, Template
from agreebound.app.judge_input import JudgeBundle
from agreebound.core.limits import DIAGNOSTIC_RATERS
from agreebound.app.resources import doc_text, samples
from agreebound.app.recipes import OUT_OF_CORE, JudgeRecipe, PanelRecipe, Source, panel_engine, recipe_digest
from agreebound.app.judge_runs import measure_judge_recipe
from agreebound.app.pipeline import measure_panel_recipe, rater_diagnostics
from agreebound.panel.ratings import RatingPanel
from agreebound.judge.intervals import JudgeDiagnostics
from agreebound.panel.diagnostics import alpha_without_each_rater, detector_vs_human, unit_disagreement

if TYPE_CHECKING:
    from agreebound.judge.measure import CalibrationMeasurement
    from agreebound.panel.categories import Level
    from agreebound.panel.measure import PanelCoefficients
    from agreebound.app.engine_study import EngineRatings
    from agreebound.panel.categories import Coded
    from agreebound.panel.rater_model import RaterModel
    from agreebound.panel.study import AnnotationStudy

SAMPLES = samples()


def help_text() -> str:
    """The Help page's format reference (docs/formats.md), read from the installed package."""
    return doc_text("formats.md")
MEASURE_CALLS: Counter[str] = Counter()


@dataclass(frozen=True)
class Upload(Source):
    """A file the session holds: a pipeline Source with its bytes, its digest (what caches are
    keyed on) and where it came from."""

    data: bytes  # an upload's bytes are always in hand
    #: "upload" (recorded as a run once it parses), "sample" (bundled) or "run" (restored from one)
    origin: str = field(default="upload", compare=False)

    @classmethod
    def of(cls, name: str, data: bytes, origin: str = "upload") -> "Upload":
        upload = cls(name, data, origin=origin)
        upload.digest  # hashed once, here, not on a later rerun  # noqa: B018
        return upload

    @classmethod
    def sample(cls, filename: str) -> "Upload":
        return cls.of(filename, (SAMPLES / filename).read_bytes(), origin="sample")


#: What a Loaded holds: a panel's recipe, or a judge's (pairwise or graded).
_R = TypeVar("_R", bound="PanelRecipe | JudgeRecipe", covariant=True)


@dataclass(frozen=True)
class Loaded(Generic[_R]):
    """What a page has loaded: the typed recipe it is read by (its files, mapping, dimension; the
    judge's source, judge and binding), how the page names it, and the run it was recorded as or
    restored from. The panel's level, positive category and interval are the session's widgets,
    laid over the recipe when it is measured (ui.runs.panel_recipe)."""

    label: str
    recipe: _R
    run: str | None = None


def data_digest(recipe: PanelRecipe) -> str:
    """The ratings' digest alone (one file's; several files' together): what per-dimension
    diagnostics are keyed on, and what a page shows of the data."""
    if len(recipe.ratings) == 1:
        return recipe.ratings[0].digest
    return hashlib.sha256("".join(s.digest for s in recipe.ratings).encode()).hexdigest()


PANEL_SAMPLES = {
    "Detector panel: violence, insult, sexual (600 items)": ("detector_panel.csv", None),
    "Single detector (refused structurally)": ("single_detector.csv", None),
    "Krippendorff (2011) reliability data": ("krippendorff_2011.csv", None),
}
#: label -> (kind, files...): a bundle, or a judge log then its references (or None); "scored": a graded
#: or pass/fail judge's scores then its human labels (or None), opened by ui.scored.
JUDGE_SAMPLES: dict[str, tuple[str, str] | tuple[str, str, str | None]] = {
    "Support judge, 240 cases x 2 orders x 3 repetitions": ("bundle", "judge_failing.json"),
    "The seed's illustrative snapshot, 4 cases": ("bundle", "judge_illustrative.json"),
    "MT-Bench judgments by gpt-4, with human votes (a partial audit)":
        ("log", "judge_logs/mt_bench_gpt-4_pair.jsonl", "judge_logs/mt_bench_human_judgments.jsonl"),
    "AlpacaEval annotations, no references (incomplete)": ("log", "judge_logs/alpaca_eval_annotations.json", None),
    # a graded or pass/fail judge's scores, the humans' beside them (opened by ui.scored)
    "Graded judge log: 2 judges and 3 humans score 120 answers 1-5 (synthetic)": ("scored", "graded_judge.csv", None),
    "Pass/fail judge with stated confidence: 300 answers, 3 humans (synthetic)": ("scored", "passfail_judge.csv", None),
}


def measured_panel(recipe: PanelRecipe) -> dict[str, PanelMeasurement]:
    """The panel measured as ``recipe`` says, once per recipe (keyed by its digest): in memory,
    or out of core when :func:`agreebound.app.recipes.panel_engine` says so (the data folder)."""
    if panel_engine(recipe) in OUT_OF_CORE:
        return folder_measurements(recipe_digest(recipe), recipe)
    return panel_measurements(recipe_digest(recipe), recipe)


@st.cache_resource(max_entries=8, show_spinner="Measuring the panel...")
def panel_measurements(key: str, _recipe: PanelRecipe) -> dict[str, PanelMeasurement]:
    """Parse (through the recipe's mapping, a Mapping's JSON, or the suggested one) and measure
    (raises InputError); ``key``: the recipe's digest. Immutable results: shared, not copied."""
    MEASURE_CALLS["panel"] += 1
    return measure_panel_recipe(_recipe, imported_of(_recipe))


def imported_of(recipe: PanelRecipe) -> Imported:
    """The recipe's ratings (bytes in hand) as read through its mapping, cached by their digest."""
    r = recipe.ratings[0]
    assert r.data is not None and (recipe.mapping is None or isinstance(recipe.mapping, str))
    return imported(r.name, r.digest, r.data, recipe.mapping)


@st.cache_resource(max_entries=8, show_spinner="Reading the ratings...")
def imported(name: str, digest: str, _data: bytes, mapping: str | None = None) -> Imported:
    return import_ratings(name, _data, Mapping.from_json(mapping) if mapping else None)


def parsed_panels(name: str, digest: str, _data: bytes, mapping: str | None = None) -> dict[str, RatingPanel]:
    return imported(name, digest, _data, mapping).panels


@st.cache_resource(max_entries=16, show_spinner="Diagnosing the panel...")
def panel_diagnostics(name: str, digest: str, _data: bytes, level: Level, dimension: str,
                      mapping: str | None = None) -> PanelDiagnostics:
    """Leave-one-rater-out alpha, the most disagreeing units, detectors against the human."""
    MEASURE_CALLS["diagnostics"] += 1
    panel = parsed_panels(name, digest, _data, mapping)[dimension]
    coded = panel.ratings(level)
    result = alpha(panel_counts(panel), level)
    per_unit = unit_disagreement(coded, level, result)
    top = np.argsort(-per_unit, kind="stable")[:10]
    top = top[per_unit[top] > 0]
    rows = pd.DataFrame({"unit": [panel.units[i] for i in top], "disagreement": per_unit[top]})
    shown = panel.raters[:DIAGNOSTIC_RATERS]
    matrix = panel.matrix(top)
    for j, rater in enumerate(shown):
        rows[rater] = [_cell(v) for v in matrix[:, j]]
    return PanelDiagnostics(alpha_without_each_rater(coded, panel.raters, level), rows,
                            detector_vs_human(coded, panel.raters, panel.humans, level),
                            len(panel.raters) > DIAGNOSTIC_RATERS)


@st.cache_resource(max_entries=16, show_spinner="Computing the other coefficients...")
def panel_coefficients(name: str, digest: str, _data: bytes, level: Level, dimension: str,
                       mapping: str | None = None) -> PanelCoefficients:
    """The coefficients beside alpha (agreebound.panel.measure.panel_coefficients), once per data, level, dimension."""
    from agreebound.panel.measure import panel_coefficients as compute

    MEASURE_CALLS["coefficients"] += 1
    loo = panel_diagnostics(name, digest, _data, level, dimension, mapping).without_rater  # computed once, cached
    return compute(parsed_panels(name, digest, _data, mapping)[dimension], level, without=loo)


@st.cache_resource(max_entries=8, show_spinner="Fitting the rater model...")
def panel_study(name: str, digest: str, _data: bytes, level: Level, dimension: str, floor_permil: int, rule: str,
                mapping: str | None, _m: PanelMeasurement) -> AnnotationStudy:
    """The annotation study (agreebound.panel.study) of one dimension, once per data, level, floor and
    rule; the rater model, the expensive part, once per data and level (:func:`study_model`): a
    moved floor or another rule ranks the queue again, never refits the model."""
    from agreebound.app.engine_study import study_of
    from agreebound.app.recipes import PanelRecipe as Recipe

    MEASURE_CALLS["study"] += 1
    panel = parsed_panels(name, digest, _data, mapping)[dimension]
    coded = panel.ratings(level)
    model = study_model(f"{digest}|{mapping}|{level}|{dimension}", coded, panel.raters)
    return study_of(Recipe((), study_rule=rule), _m, coded, panel.raters, panel.units, floor_permil, model)


@st.cache_resource(max_entries=8, show_spinner="Fitting the rater model...")
def study_model(key: str, _coded: Coded, _raters: tuple[str, ...]) -> RaterModel | None:
    """The rater model of a study's ratings (agreebound.panel.study.rater_model), once per ``key``
    (the data, its reading, level and dimension); None when the study would be skipped."""
    from agreebound.panel.study import MAX_CATEGORIES, rater_model

    k = len(_coded.categories.values)
    if len(_raters) < 2 or len(_coded.code) == 0 or not 2 <= k <= MAX_CATEGORIES:
        return None
    return rater_model(_coded, _raters)


@st.cache_resource(max_entries=16, show_spinner=False)
def rates_sentence(name: str, digest: str, _data: bytes, level: Level, dimension: str,
                   mapping: str | None = None) -> str | None:
    """The sentence said beside an alpha below its floor when the raters' category rates explain it
    (agreebound.panel.marginal_homogeneity), or None; panels of at most STUDY_RATINGS ratings."""
    from agreebound.panel.study import MAX_CATEGORIES, rates_sentence as sentence

    panel = parsed_panels(name, digest, _data, mapping)[dimension]
    coded = panel.ratings(level)
    if len(coded.code) > STUDY_RATINGS or len(coded.categories.values) > MAX_CATEGORIES:
        return None
    return sentence(coded, panel.raters, alpha_is_low=True)


#: Above this many ratings the sentence beside alpha (marginal homogeneity) is left to the study's section.
STUDY_RATINGS = 500_000


def _cell(v: object) -> str:
    return "" if v is None else str(v)


@dataclass(frozen=True)
class PanelDiagnostics:
    without_rater: dict[str, Fraction | None]
    top_units: pd.DataFrame
    versus_human: dict[str, Fraction | None]
    capped: bool = False  # more raters than DIAGNOSTIC_RATERS: per-rater diagnostics not computed


def measured_judge(recipe: JudgeRecipe) -> JudgeBundle:
    """The judge read and audited as ``recipe`` says, once per recipe (keyed by its digest)."""
    return judge_bundle(recipe_digest(recipe), recipe)


@st.cache_resource(max_entries=8, show_spinner="Auditing the judge...")
def judge_bundle(key: str, _recipe: JudgeRecipe) -> JudgeBundle:
    """The judge audited through the pipeline; ``key``: the recipe's digest (its files' digests,
    source, judge and binding)."""
    MEASURE_CALLS["judge"] += 1
    return measure_judge_recipe(_recipe)


@st.cache_resource(max_entries=8)
def judge_diagnostics_for(digests: tuple[str, ...], _measurement: CalibrationMeasurement) -> JudgeDiagnostics:
    """Judge diagnostics (they compute an alpha): once per input, never on a slider."""
    MEASURE_CALLS["judge_diagnostics"] += 1
    return _measurement.diagnostics


def templates() -> tuple[Template, ...]:
    """One template of every input (io.templates), for the help page's downloads."""
    return tuple(TEMPLATES)


@st.cache_resource(max_entries=8)
def threshold_file(name: str, digest: str, _data: bytes) -> ThresholdFile:
    return parse_thresholds(name, _data)


# --- a data set from the server's data folder (measured out of core) ------------------------------

DATA_ENV = "AGREEBOUND_DATA_DIR"
FOLDER_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


def data_folder() -> Path:
    """The folder the dashboard may open data sets from: $AGREEBOUND_DATA_DIR, else sample_data/.
    Only what is listed inside it can be chosen; the browser never sends a path."""
    return Path(os.environ.get(DATA_ENV) or SAMPLES).resolve()


def folder_entries(limit: int = 500) -> dict[str, tuple[str, ...]]:
    """What the data folder offers: each CSV/Parquet file (two levels deep), and each subfolder's
    files of one kind as a pattern. Hidden files and links leading outside the folder are left out."""
    root = data_folder()
    out: dict[str, tuple[str, ...]] = {}
    if not root.is_dir():
        return out
    for depth in ("*", "*/*"):
        for p in sorted(root.glob(depth)):
            if len(out) >= limit:
                return out
            rel = p.relative_to(root)
            if any(part.startswith(".") for part in rel.parts):
                continue
            real = p.resolve()
            if not real.is_relative_to(root):
                continue
            in_parts = p.parent != root and len([f for f in p.parent.glob(f"*{p.suffix}")
                                                 if not f.name.startswith(".")]) > 1
            if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES and not in_parts and _long(real):
                out[str(rel)] = (str(real),)  # (a subfolder's parts are offered together, below)
            elif p.is_dir():
                for suffix in (".parquet", ".pq", ".csv", ".tsv"):
                    files = tuple(str(f.resolve()) for f in sorted(p.glob(f"*{suffix}"))
                                  if f.is_file() and not f.name.startswith(".") and f.resolve().is_relative_to(root))
                    if len(files) > 1 and _long(Path(files[0])):
                        out[f"{rel}/*{suffix}"] = files
    return out


LONG_COLUMNS = {"unit", "rater", "value"}


def _long(path: Path) -> bool:
    """A long ratings file: its header (or Parquet schema) names unit, rater and value. Opened
    without following a link and without waiting (a pipe put in its place is not read), and read
    only if what was opened is a regular file."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return False
            if path.suffix.lower() in (".parquet", ".pq"):
                import pyarrow.parquet as pq

                names = set(pq.read_schema(f).names)
            else:
                head = f.readline(4096).decode("utf-8", "replace").strip().lstrip("\ufeff")
                sep = "\t" if path.suffix.lower() == ".tsv" else ","
                names = {c.strip().strip('"') for c in head.split(sep)}
    except Exception:  # noqa: BLE001 - unreadable: not offered
        return False
    return LONG_COLUMNS <= names


def _as_listed(files: tuple[str, ...]) -> None:
    """Each file checked again right before the engine reads it by its path: a file may have been
    swapped for a link (to a file outside the folder), a pipe or a folder since the folder was
    listed. What is read is what was listed: the same path, not a link, a regular file, its real
    path (no link on the way) inside the data folder. Else an InputError naming the file as the
    folder shows it (never the server's path)."""
    import stat

    root = data_folder()
    for f in files:
        shown = os.path.relpath(f, root) if Path(f).is_relative_to(root) else Path(f).name
        try:
            st_ = os.lstat(f)
        except OSError as e:
            raise InputError(shown, None, None, f"cannot read the file ({e.strerror}); it was there when the data "
                             "folder was listed: choose the data set again") from None
        if stat.S_ISLNK(st_.st_mode):
            why = "it was replaced by a symbolic link after the data folder was listed"
        elif not stat.S_ISREG(st_.st_mode):
            why = "it is no longer a regular file (a folder, a pipe or a device was put in its place)"
        elif os.path.realpath(f) != f:
            why = "a folder on its path was replaced by a symbolic link after the data folder was listed"
        elif not Path(f).is_relative_to(root):
            why = "it is not inside the data folder"
        else:
            continue
        raise InputError(shown, None, None, f"not read: {why}; only regular files inside the data folder are read, "
                         "choose the data set again")


def folder_data(label: str, files: tuple[str, ...]) -> PanelRecipe:
    """A data set of the data folder as a recipe: its files read by path, out of core by DuckDB
    (the folder's promise, whatever their size), named by ``label`` (never a server path)."""
    return PanelRecipe(tuple(Source.at(f) for f in files), engine="duckdb", display=label)


def _folder_files(recipe: PanelRecipe) -> tuple[str, ...]:
    return tuple(s.given for s in recipe.ratings)


def _in_folder_words(e: InputError, recipe: PanelRecipe) -> InputError:
    """The error as the browser may see it: the data set's name in the folder, never a server path."""
    name, first = recipe.display or recipe.ratings[0].name, recipe.ratings[0].given
    return InputError(name, e.row, e.column, e.reason.replace(str(data_folder()), "").replace(first, name))


@st.cache_resource(max_entries=4, show_spinner=False)
def folder_measurements(key: str, _recipe: PanelRecipe) -> dict[str, PanelMeasurement]:
    """Counts by DuckDB (out of core), measured from the counts; ``key``: the recipe's digest (its
    files by path, size and modification time)."""
    MEASURE_CALLS["panel"] += 1
    _as_listed(_folder_files(_recipe))  # right before reading: a file swapped since the listing is refused
    try:
        return measure_panel_recipe(_recipe)
    except InputError as e:
        raise _in_folder_words(e, _recipe) from None


@st.cache_resource(max_entries=16, show_spinner="Diagnosing with DuckDB: one pass per rater...")
def folder_diagnostics(key: str, _recipe: PanelRecipe, level: Level, dimension: str) -> PanelDiagnostics:
    """Leave-one-rater-out and the most disagreeing units of folder data, out of core; ``key``:
    the data's digest (:func:`data_digest`)."""
    MEASURE_CALLS["diagnostics"] += 1
    _as_listed(_folder_files(_recipe))
    try:
        without, units = rater_diagnostics(_recipe, dimension, level, DIAGNOSTIC_RATERS)
    except InputError as e:
        raise _in_folder_words(e, _recipe) from None
    top = pd.DataFrame({"unit": [u.replace("\x1f", " | ") for u, _ in units], "disagreement": [x for _, x in units]})
    return PanelDiagnostics(without, top, {}, len(without) == 0 and bool(units))


@st.cache_resource(max_entries=8, show_spinner="Fitting the rater model over the counts DuckDB returns...")
def folder_study(key: str, _recipe: PanelRecipe, level: Level, dimension: str, floor_permil: int, rule: str,
                 _m: PanelMeasurement) -> AnnotationStudy:
    """The annotation study of one dimension of folder data: its ratings out of core, once per data
    (:func:`folder_ratings`), the rater model once (:func:`study_model`), the queue per floor and rule."""
    from dataclasses import replace

    from agreebound.app.engine_study import study_of

    MEASURE_CALLS["study"] += 1
    coded, units, raters = folder_ratings(key, _recipe, dimension)
    model = study_model(f"{key}|{level}|{dimension}", coded, raters)
    return study_of(replace(_recipe, study_rule=rule), _m, coded, raters, units, floor_permil, model)


@st.cache_resource(max_entries=4, show_spinner="Reading the ratings' counts with DuckDB...")
def folder_ratings(key: str, _recipe: PanelRecipe, dimension: str) -> EngineRatings:
    """One dimension's ratings of folder data, out of core (agreebound.app.pipeline.ratings_out_of_core);
    ``key``: the data's digest."""
    from agreebound.app.pipeline import ratings_out_of_core

    _as_listed(_folder_files(_recipe))
    try:
        return ratings_out_of_core(_recipe, dimension)
    except InputError as e:
        raise _in_folder_words(e, _recipe) from None


def bundle_unbound(name: str, data: bytes) -> bool:
    """The bundle's snapshot names another content of its contract (typed: UnboundSnapshot), so
    the page offers to bind it to this contract as a draft. Asked only after the bundle was refused."""
    from agreebound.app.judge_input import UnboundSnapshot

    try:
        measure_judge_recipe(JudgeRecipe(Source(name, data), "bundle"))
    except UnboundSnapshot:
        return True
    except Exception:  # noqa: BLE001 - refused for another reason: the error shown says which
        return False
    return False


def judge_log(name: str, data: bytes) -> bool:
    """A judge log (JSON Lines, or an AlpacaEval list) rather than a bundle or a contract."""
    from agreebound.io.log_kinds import is_judge_log

    return is_judge_log(name, data)


def judges_in_log(name: str, data: bytes) -> tuple[str, ...]:
    """The judges a log holds, most judgments first; () when it cannot be read."""
    from agreebound.io.judge_logs import judges_in

    try:
        return tuple(judges_in(name, data))
    except Exception:  # noqa: BLE001 - the reader says what is wrong when it reads the log
        return ()


def json_lines(name: str, data: bytes) -> bool:
    """JSON Lines, by sniffing (False when it is not, or cannot be sniffed)."""
    from agreebound.io.sniff import sniff

    try:
        return sniff(name, data).format == "jsonl"
    except Exception:  # noqa: BLE001 - not JSON Lines; the bundle reader says what it is not
        return False
