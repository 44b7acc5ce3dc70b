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
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from agreebound.alpha import alpha
from agreebound.analysis import PanelMeasurement
from agreebound.engines.numpy_engine import panel_counts
from agreebound.io.formats import (
    InputError,
    Imported,
    ThresholdFile,
    import_ratings,
    parse_thresholds,
)
from agreebound.io.mapping import Mapping
from agreebound.io.templates import TEMPLATES, Template
from agreebound.judge_input import JudgeBundle
from agreebound.limits import DIAGNOSTIC_RATERS
from agreebound.ratings import RatingPanel
from agreebound.uncertainty import (
    JudgeDiagnostics,
    alpha_without_each_rater,
    detector_vs_human,
    judge_diagnostics,
    unit_disagreement,
)

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_data"
MEASURE_CALLS: Counter[str] = Counter()


@dataclass(frozen=True)
class Upload:
    """A file's name, bytes and digest: what caches are keyed on."""

    name: str
    data: bytes
    digest: str
    #: "upload" (recorded as a run once it parses), "sample" (bundled) or "run" (restored from one)
    origin: str = field(default="upload", compare=False)

    @classmethod
    def of(cls, name: str, data: bytes, origin: str = "upload") -> "Upload":
        return cls(name, data, hashlib.sha256(data).hexdigest(), origin)

    @classmethod
    def sample(cls, filename: str) -> "Upload":
        return cls.of(filename, (SAMPLES / filename).read_bytes(), origin="sample")


PANEL_SAMPLES = {
    "Detector panel: violence, insult, sexual (600 items)": ("detector_panel.csv", None),
    "Single detector (refused structurally)": ("single_detector.csv", None),
    "Krippendorff (2011) reliability data": ("krippendorff_2011.csv", None),
}
#: label -> (kind, files...): a bundle, or a judge log then its references (or None).
JUDGE_SAMPLES = {
    "Support judge, 240 cases x 2 orders x 3 repetitions": ("bundle", "judge_failing.json"),
    "The seed's illustrative snapshot, 4 cases": ("bundle", "judge_illustrative.json"),
    "MT-Bench judgments by gpt-4, with human votes (a partial audit)":
        ("log", "judge_logs/mt_bench_gpt-4_pair.jsonl", "judge_logs/mt_bench_human_judgments.jsonl"),
    "AlpacaEval annotations, no references (incomplete)": ("log", "judge_logs/alpaca_eval_annotations.json", None),
}


@st.cache_resource(max_entries=8, show_spinner="Measuring the panel...")
def panel_measurements(name: str, digest: str, _data: bytes, level: str, positive: Any,
                       rates_name: str | None, rates_digest: str | None, _rates: bytes | None,
                       interval: str = "units", mapping: str | None = None) -> dict[str, PanelMeasurement]:
    """Parse (through ``mapping``, a Mapping's JSON, or the suggested one) and measure every
    dimension (raises InputError). Immutable results: shared, not copied."""
    MEASURE_CALLS["panel"] += 1
    from agreebound.pipeline import PanelRecipe, Source, measure_panel_recipe

    panels = parsed_panels(name, digest, _data, mapping)
    rates = Source(rates_name, _rates) if rates_name and _rates is not None else None
    recipe = PanelRecipe((Source(name, _data),), mapping, level, "user", interval=interval, positive=positive,
                         rates=rates)
    return measure_panel_recipe(recipe, panels)


@st.cache_resource(max_entries=8, show_spinner="Reading the ratings...")
def imported(name: str, digest: str, _data: bytes, mapping: str | None = None) -> Imported:
    return import_ratings(name, _data, Mapping.from_json(mapping) if mapping else None)


def parsed_panels(name: str, digest: str, _data: bytes, mapping: str | None = None) -> dict[str, RatingPanel]:
    return imported(name, digest, _data, mapping).panels


@st.cache_resource(max_entries=16, show_spinner="Diagnosing the panel...")
def panel_diagnostics(name: str, digest: str, _data: bytes, level: str, dimension: str,
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
def panel_coefficients(name: str, digest: str, _data: bytes, level: str, dimension: str,
                       mapping: str | None = None) -> Any:
    """The coefficients beside alpha (analysis.panel_coefficients), once per data, level, dimension."""
    from agreebound.analysis import panel_coefficients as compute

    MEASURE_CALLS["coefficients"] += 1
    loo = panel_diagnostics(name, digest, _data, level, dimension, mapping).without_rater  # computed once, cached
    return compute(parsed_panels(name, digest, _data, mapping)[dimension], level, without=loo)


def _cell(v: Any) -> Any:
    return "" if v is None else str(v)


@dataclass(frozen=True)
class PanelDiagnostics:
    without_rater: dict[str, Any]
    top_units: pd.DataFrame
    versus_human: dict[str, Any]
    capped: bool = False  # more raters than DIAGNOSTIC_RATERS: per-rater diagnostics not computed


@st.cache_resource(max_entries=8, show_spinner="Auditing the judge...")
def judge_bundle(names: tuple[str, ...], digests: tuple[str, ...], _datas: tuple[bytes, ...], kind: str = "auto",
                 judge: str | None = None, rebind: bool = False) -> JudgeBundle:
    """``kind``: "bundle" (one JSON), "tables" (contract, references, observations), "log" (a judge
    log, then optional references, contract and log mapping; "" names an absent one) or "auto"
    (one file: a log or a bundle by its content)."""
    MEASURE_CALLS["judge"] += 1
    from agreebound.pipeline import JudgeRecipe, Source, measure_judge_recipe

    files = [Source(n, d) if n else None for n, d in zip(names, _datas)]
    if kind == "auto":
        kind = "auto" if len(names) == 1 else "tables"  # one file: a log or a bundle by its content
    if kind == "log":
        recipe = JudgeRecipe.from_dict({"source": "log", "judge": judge}, files)
    elif kind == "tables":
        recipe = JudgeRecipe.from_dict({"source": "tables"}, files)
    else:
        recipe = JudgeRecipe(files[0], kind, judge=judge, rebind=rebind)
    return measure_judge_recipe(recipe)


@st.cache_resource(max_entries=8)
def judge_diagnostics_for(digests: tuple[str, ...], _measurement: Any) -> JudgeDiagnostics:
    """Judge diagnostics (they compute an alpha): once per input, never on a slider."""
    MEASURE_CALLS["judge_diagnostics"] += 1
    return judge_diagnostics(_measurement)


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


@dataclass(frozen=True)
class FolderData:
    """Long ratings in the data folder: one file, or every file of a subfolder ("dir/*.parquet").
    ``digest`` covers each file's path, size and modification time (the bytes are not read here)."""

    name: str
    digest: str
    files: tuple[str, ...]
    origin: str = "folder"


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


def folder_data(label: str, files: tuple[str, ...]) -> FolderData:
    h = hashlib.sha256()
    for f in files:
        st_ = os.stat(f)
        h.update(f"{f}\0{st_.st_size}\0{st_.st_mtime_ns}\n".encode())
    return FolderData(label, h.hexdigest(), files)


@st.cache_resource(max_entries=4, show_spinner=False)
def folder_measurements(name: str, digest: str, files: tuple[str, ...], level: str, positive: Any,
                        interval: str = "units") -> dict[str, PanelMeasurement]:
    """Counts by DuckDB (out of core), measured from the counts; keyed by the files' digest."""
    from agreebound.analysis import measure_counts
    from agreebound.engines.common import detect_columns
    from agreebound.pipeline import engine_counts

    MEASURE_CALLS["panel"] += 1
    _as_listed(files)  # right before reading: a file swapped since the listing is refused, not followed
    try:
        m = detect_columns(files[0])
        counts = engine_counts("duckdb", files, m, m.missing, display=name)
    except InputError as e:  # the browser sees the data set's name in the folder, never a server path
        raise InputError(name, e.row, e.column, e.reason.replace(str(data_folder()), "").replace(files[0], name)) \
            from None
    return {d: measure_counts(c, name, level, positive, interval=interval) for d, c in counts.items()}


@st.cache_resource(max_entries=16, show_spinner="Diagnosing with DuckDB: one pass per rater...")
def folder_diagnostics(name: str, digest: str, files: tuple[str, ...], level: str, dimension: str) -> PanelDiagnostics:
    """Leave-one-rater-out and the most disagreeing units of folder data, out of core."""
    from agreebound.engines.common import LongColumns, detect_columns
    from agreebound.engines.duckdb_engine import rater_diagnostics

    MEASURE_CALLS["diagnostics"] += 1
    _as_listed(files)
    m = detect_columns(files[0])
    cols = LongColumns(tuple(m.unit), m.rater, m.value, m.dimension)
    without, units = rater_diagnostics(list(files), cols, dimension, level, missing=m.missing,
                                       max_raters=DIAGNOSTIC_RATERS, delimiter=m.delimiter)
    top = pd.DataFrame({"unit": [u.replace("\x1f", " | ") for u, _ in units], "disagreement": [x for _, x in units]})
    return PanelDiagnostics(without, top, {}, len(without) == 0 and bool(units))


def bundle_unbound(name: str, data: bytes) -> bool:
    """The bundle's snapshot names another content of its contract (typed: UnboundSnapshot), so
    the page offers to bind it to this contract as a draft. Asked only after the bundle was refused."""
    from agreebound.judge_input import UnboundSnapshot
    from agreebound.pipeline import JudgeRecipe, Source, measure_judge_recipe

    try:
        measure_judge_recipe(JudgeRecipe(Source(name, data), "bundle"))
    except UnboundSnapshot:
        return True
    except Exception:  # noqa: BLE001 - refused for another reason: the error shown says which
        return False
    return False


def judge_log(name: str, data: bytes) -> bool:
    """A judge log (JSON Lines, or an AlpacaEval list) rather than a bundle or a contract."""
    from agreebound.io.formats import is_judge_log

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
