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

import hashlib
import json
import os
import tempfile
import threading
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from agreebound.core.errors import InputError
from agreebound.core.escape import normalise_name, printable
from agreebound.core.limits import LISTED_CATEGORIES, MAX_INPUT_BYTES

ENGINES = ("auto", "numpy", "duckdb", "spark")
OUT_OF_CORE = ("duckdb", "spark")
#: (engine, files) -> None: called once the out-of-core engine is chosen (files None), then with
#: its input files before any is read (the CLI checks its flags and its --report path there).
Check = Callable[[str, "Sequence[str] | None"], None]


class _Unset:
    """A positive category not given (the CLI without --positive): "auto" in memory; out of core,
    the mapping's positive first."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


class RecipeError(Exception):
    """A recipe this version cannot run as asked (an engine without a feature, a missing engine):
    a usage problem, said in the user's words; the CLI prefixes its command."""


# --- sources ----------------------------------------------------------------------------------


def read_file(path: str) -> tuple[str, bytes]:
    """A regular file's name and bytes; the size is checked with stat before reading, and
    devices, pipes and folders are refused without opening them. ``-`` is standard input, a URL
    (``s3://``, ``https://``) is read by agreebound.io.remote, and a Hugging Face dataset's
    ``save_to_disk`` folder by agreebound.io.dataset_shapes: each within the same size limit."""
    from agreebound.engines.common import regular_file
    from agreebound.io.remote import is_remote, is_stdin, read_remote
    from agreebound.io.tables import check_size

    if is_stdin(path) or is_remote(path):
        return read_remote(path)
    if os.path.isdir(path):
        from agreebound.io.dataset_shapes import is_saved_dataset, read_saved_dataset

        if is_saved_dataset(path):
            return read_saved_dataset(path)
    name = Path(path).name or path
    st = regular_file(path, folder_hint="give a file")
    check_size(name, st.st_size)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise InputError(path, None, None, f"cannot read the file ({e.strerror})") from None
    check_size(name, len(data))
    return name, data


@dataclass(frozen=True)
class Source:
    """An input: its bytes (an upload, a stored run's blob) or a path read when needed."""

    name: str
    data: bytes | None = None
    path: str | None = None

    @classmethod
    def at(cls, path: str) -> "Source":
        from agreebound.io.remote import is_remote, is_stdin, url_name

        return cls(url_name(path) if is_stdin(path) or is_remote(path) else Path(path).name or path, None, path)

    def read(self) -> tuple[str, bytes]:
        if self.data is not None:
            return self.name, self.data
        assert self.path is not None
        kept = self.__dict__.get("_fetched")
        if kept is not None:
            return kept
        read = read_file(self.path)
        if _fetched_once(self.path):  # read once: a second read could get other bytes than the digest's
            self.__dict__["_fetched"] = read
        return read

    @property
    def given(self) -> str:
        """How the user named it: the path as given, else the name."""
        return self.path or self.name

    @cached_property
    def digest(self) -> str:
        """What a cache is keyed on, computed once per Source: the SHA-256 of its bytes; for a file
        read later by its path, of the path, size and modification time (the bytes are not read
        here, so a data set of any size is keyed at once); for an ``s3://`` object, of its URL,
        size, ETag and last-modified time (one HEAD request; a pattern: its listing); for an
        http(s) URL and standard input, of their bytes (read here once, and kept for the read).
        A URL that cannot be looked up is keyed by itself: reading it says what is wrong."""
        from agreebound.io import remote

        if self.data is not None:
            return hashlib.sha256(self.data).hexdigest()
        assert self.path is not None
        if _fetched_once(self.path):
            try:
                return hashlib.sha256(self.read()[1]).hexdigest()
            except InputError:
                return hashlib.sha256(f"{self.path}\n".encode()).hexdigest()
        if remote.is_remote(self.path):
            try:
                said = remote.stamp(self.path) if remote.scheme(self.path) == "s3" else ""
            except InputError:  # e.g. a cluster's storage, read by Spark with its own credentials
                said = ""
            return hashlib.sha256(f"{self.path}\0{said}\n".encode()).hexdigest()
        try:
            st = os.stat(self.path)
            stamp = f"{self.path}\0{st.st_size}\0{st.st_mtime_ns}\n"
        except OSError:  # a pattern, or a file gone: keyed by its name; reading it says what is wrong
            stamp = f"{self.path}\n"
        return hashlib.sha256(stamp.encode()).hexdigest()


def _fetched_once(path: str) -> bool:
    """Standard input and http(s) URLs: read whole, once, and kept by their Source."""
    from agreebound.io import remote

    return remote.is_stdin(path) or (remote.is_remote(path) and remote.scheme(path) in ("http", "https"))


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _positive_text(positive: Any) -> Any:
    """The positive category as a run stores it: "auto", None, or the category as text."""
    if positive is UNSET or positive == "auto":
        return "auto"
    return None if positive is None else str(positive)


# --- recipes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelRecipe:
    """How to read and measure a rating panel, and the thresholds to decide it under.

    ``mapping``: a mapping file (a Source), a Mapping's JSON (the dashboard, a stored run), or
    None for the suggested reading. ``chosen_by``: who chose ``level``; None lets the recipe say
    (the flag when not "auto", else the mapping's level, else the default rule). ``thresholds``: a
    thresholds file (a Source), a ThresholdSet, or None for the defaults; ``preset`` picks one of
    its presets (or a built-in one)."""

    ratings: tuple[Source, ...]
    mapping: Source | str | None = None
    level: str = "auto"
    chosen_by: str | None = None
    humans: tuple[str, ...] | None = None
    detectors: tuple[str, ...] | None = None
    dimension: str | None = None
    engine: str = "auto"
    master: str = "local[2]"
    interval: str = "units"
    positive: Any = "auto"
    rates: Source | None = None
    sheet: str | None = None
    missing: tuple[str, ...] | None = None
    coefficients: bool = False
    thresholds: Any = None
    preset: str | None = None
    #: How messages and the measurement name the data (the dashboard's data folder: the data set's
    #: name in the folder, never a server path); None: the first file's name.
    display: str | None = None
    #: Strict mode (``--strict``): every gate decides on its 95% interval's bound too, so a fragile
    #: gate fails; the thresholds' values are unchanged.
    strict: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stored form (the keys runs have always stored: mapping, level, positive, dimension,
        interval)."""
        mapping = self.mapping if isinstance(self.mapping, str) or self.mapping is None else None
        return {"mapping": mapping, "level": self.level, "positive": _positive_text(self.positive),
                "dimension": self.dimension, "interval": self.interval}

    @classmethod
    def from_dict(cls, stored: dict[str, Any], ratings: Sequence[Source], rates: Source | None = None,
                  thresholds: Any = None) -> "PanelRecipe":
        """A stored run's recipe over its stored inputs. Runs recorded before the interval choice
        used KALPHA's bootstrap over pairs, the only one then; before the level choice, "auto"."""
        return cls(tuple(ratings), stored.get("mapping"), stored.get("level") or "auto", "user",
                   dimension=stored.get("dimension"), interval=stored.get("interval") or "pairs",
                   positive=stored.get("positive", "auto"), rates=rates, thresholds=thresholds)


@dataclass(frozen=True)
class JudgeRecipe:
    """How to read and audit a judge, and the thresholds to decide it under.

    ``source``: "bundle" (one JSON), "tables" (the contract JSON, references and observations),
    "log" (a judge log with optional references, contract and log mapping) or "auto" (by the
    first file's content and the files given)."""

    first: Source
    source: str = "auto"
    references: Source | None = None
    observations: Source | None = None
    contract: Source | None = None
    mapping: Source | None = None
    judge: str | None = None
    rebind: bool = False
    engine: str = "auto"
    master: str = "local[2]"
    thresholds: Any = None
    preset: str | None = None
    #: a graded judge's level of measurement (source "scored"); None: the kind's default, said so
    level: str | None = None
    #: Strict mode (``--strict``), as for a panel: on the contract's own thresholds too
    strict: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stored form: source, judge, rebind (and a graded judge's level when one was chosen)."""
        out = {"source": self.source, "judge": self.judge, "rebind": bool(self.rebind)}
        if self.level:
            out["level"] = self.level
        return out

    @classmethod
    def from_dict(cls, stored: dict[str, Any], files: Sequence[Source | None], thresholds: Any = None) -> "JudgeRecipe":
        """A stored run's recipe over its stored files, in the source's slot order (bundle; contract,
        references, observations; log, references, contract, mapping)."""
        source = stored.get("source", "bundle")
        slots = list(files) + [None] * 4
        given = {"judge": stored.get("judge"), "rebind": bool(stored.get("rebind")), "thresholds": thresholds}
        if source == "tables":
            return cls(slots[0], source, references=slots[1], observations=slots[2], **given)
        if source in ("log", "single-pairs"):
            return cls(slots[0], source, references=slots[1], contract=slots[2], mapping=slots[3], **given)
        if source == "scored":
            return cls(slots[0], source, references=slots[1], level=stored.get("level"), **given)
        return cls(slots[0], source, **given)


def recipe_digest(recipe: PanelRecipe | JudgeRecipe) -> str:
    """A stable digest of everything a recipe's measurement depends on: each file by its
    :attr:`Source.digest` (never its bytes), every other field by its value. The dashboard keys
    its caches on it (with the recipe itself passed unhashed)."""
    def part(value: Any) -> Any:
        if isinstance(value, Source):
            return ["source", value.name, value.digest]
        if isinstance(value, tuple):
            return [part(v) for v in value]
        if value is None or isinstance(value, (str, bool, int)):
            return value
        if hasattr(value, "to_json"):  # a ThresholdSet
            return ["json", value.to_json()]
        return ["repr", type(value).__name__, repr(value)]  # a category (3, 2.5), UNSET

    body = [type(recipe).__name__] + [[f.name, part(getattr(recipe, f.name))] for f in fields(recipe)]
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


# --- the engine choice -------------------------------------------------------------------------


def _size(path: str) -> int | None:
    """A local file's size, or an ``s3://`` object's (asked of the server); None when unknown."""
    from agreebound.io.remote import is_remote, remote_size

    if is_remote(path):
        return remote_size(path)
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _large_long_file(path: str) -> bool:
    if Path(path).suffix.lower() not in (".csv", ".tsv", ".parquet", ".pq"):
        return False
    size = _size(path)
    return size is not None and size > MAX_INPUT_BYTES


def _pattern(path: str) -> bool:
    from agreebound.io.remote import is_pattern, is_remote

    if is_remote(path):  # an s3:// key's pattern (an https URL's ? is its query)
        return is_pattern(path)
    return any(ch in path for ch in "*?[") and not os.path.isfile(path)


def panel_engine(recipe: PanelRecipe) -> str:
    """numpy (in memory), or duckdb/spark (out of core). auto: duckdb for several files, a pattern
    or a long file over 200 MB; else numpy."""
    if recipe.engine != "auto":
        return recipe.engine
    first = recipe.ratings[0]
    if len(recipe.ratings) > 1:
        return "duckdb"
    if first.path is not None and (_pattern(first.path) or _large_long_file(first.path)):
        return "duckdb"
    return "numpy"


def judge_source(recipe: JudgeRecipe, name: str, data: bytes) -> str:
    """The judge source's kind: a log (by its content, or read through a log mapping), the
    tabular trio (references or observations given), else a bundle."""
    if recipe.source != "auto":
        return recipe.source
    from agreebound.io.formats import is_judge_log, is_scored_log

    if recipe.mapping is not None or is_judge_log(name, data):
        return "log"
    if is_scored_log(name, data):
        from agreebound.io.judge_logs import is_pairwise_human_votes

        if recipe.references is not None and is_pairwise_human_votes(*recipe.references.read()):
            return "single-pairs"  # single-answer grades against pairwise human votes: a pairwise audit
        return "scored"  # a graded or pass/fail judge (agreebound.scored.audit)
    return "tables" if recipe.references is not None or recipe.observations is not None else "bundle"


def judge_engine(recipe: JudgeRecipe) -> str:
    """The tabular trio's engine. auto: duckdb when a file is a pattern, Parquet or over 200 MB."""
    if recipe.engine != "auto":
        return recipe.engine
    for src in (recipe.references, recipe.observations):
        path = src.path if src is not None else None
        if path is None:
            continue
        if _pattern(path) or Path(path).suffix.lower() in (".parquet", ".pq"):
            return "duckdb"
        size = _size(path)
        if size is not None and size > MAX_INPUT_BYTES:
            return "duckdb"
    return "numpy"


# --- the result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """What a run produced: the measurements (a panel's per dimension, or the judge's bundle), the
    thresholds in force, the report dict every renderer reads, the inputs read (role, name, bytes
    or a digest for files not held) and the recipe as a run stores it."""

    kind: str
    report: dict[str, Any]
    thresholds: Any
    inputs: tuple[tuple[str, str, Any], ...]
    recipe: dict[str, Any]
    measurements: dict[str, Any] = field(default_factory=dict)
    bundle: Any = None
    imported: Any = None

    @property
    def verdict(self) -> str:
        """The verdict the exit code reports: a panel's worst dimension's, or the judge's decision."""
        from agreebound.render.report import verdict_of

        return verdict_of(self.report)

    @property
    def exit_code(self) -> int:
        """The command line's exit code for this verdict (0, 1 or 2; see the README)."""
        from agreebound.render.report import EXIT_CODES

        return EXIT_CODES[self.verdict]

    def to_json(self) -> str:
        """The JSON report, as ``--json`` prints it (schema: ``agreebound schema``)."""
        from agreebound.render.report import to_json

        return to_json(self.report)

    @property
    def decisions(self) -> Any:
        """The panel's decision per dimension, or the judge's decision (cheap: decide only)."""
        if self.kind == "scored":
            from agreebound.scored.audit import decide_scored

            return decide_scored(self.bundle, self.thresholds.scored, self.thresholds.source,
                                 self.recipe.get("judge"))
        if self.kind == "judge":
            from agreebound.judge.calibration import decide

            return decide(self.bundle.measurement, self.thresholds.calibration)
        from agreebound.panel.measure import decide_panel

        return {d: decide_panel(m, self.thresholds.panel) for d, m in self.measurements.items()}

    def junit(self) -> str:
        """The gates as a JUnit XML report (``--report gates.xml``): one test case per gate."""
        from agreebound.render.junit import calibration_junit, panel_junit, scored_junit

        if self.kind == "scored":
            return scored_junit(self.report)
        if self.kind == "judge":
            return calibration_junit(self.bundle, self.thresholds, self.report)
        return panel_junit(self.measurements, self.thresholds, self.report)

    def html(self) -> str:
        from agreebound.render.html import calibration_html, panel_html, scored_html

        if self.kind == "scored":
            return scored_html(self.report)
        if self.kind == "judge":
            return calibration_html(self.bundle, self.thresholds, self.report)
        return panel_html(self.measurements, self.thresholds, self.report)


def level_read(measured: dict[str, Any]) -> str:
    """The level(s) the panel was read at, as a run records them ("ordinal"; never "auto")."""
    return ", ".join(sorted({m.level for m in measured.values()}))


def thresholds_of(recipe: PanelRecipe | JudgeRecipe, inputs: list[tuple[str, str, Any]] | None = None) -> Any:
    """The thresholds in force: the recipe's set, or its file's (read once, joining ``inputs``),
    then its preset."""
    from agreebound.core.thresholds import DEFAULT, PRESETS, ThresholdSet

    presets, t = dict(PRESETS), DEFAULT
    if isinstance(recipe.thresholds, ThresholdSet):
        t = recipe.thresholds
    elif isinstance(recipe.thresholds, Source):
        from agreebound.io.formats import parse_thresholds

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


def _strict_contract(recipe: JudgeRecipe, t: Any, contract: Any) -> Any:
    """``--strict`` on the contract's own thresholds: the same fields (the decision stays against
    the bound contract, not a draft), decided on their bounds."""
    if not recipe.strict or t.calibration is not None:
        return t
    from agreebound.core.thresholds import CalibrationThresholds

    return replace(t, calibration=CalibrationThresholds.from_contract(contract, strict=True))


def run(recipe: PanelRecipe | JudgeRecipe, check: Check | None = None) -> Report:
    """Read, measure and decide what the recipe says, on the engine it chooses."""
    if isinstance(recipe, PanelRecipe):
        engine = panel_engine(recipe)
        if engine in OUT_OF_CORE:
            if check is not None:
                check(engine, None)
            return _panel_out_of_core(recipe, engine, check)
        return _panel_in_memory(recipe)
    return _judge(recipe, check)


def stored_recipe(recipe: PanelRecipe | JudgeRecipe, measured: dict[str, Any] | None = None) -> dict[str, Any]:
    """The recipe as a run stores it; a panel's with the level(s) it was read at."""
    out = recipe.to_dict()
    if isinstance(recipe, PanelRecipe) and measured is not None:
        out["level_read"] = level_read(measured)
    return out


def one_dimension(found: dict[str, Any], dimension: str, file: str, has: str) -> dict[str, Any]:
    """Only ``dimension`` of ``found`` (by its normalised name), or an InputError listing them."""
    want = normalise_name(dimension)
    if want not in found:
        shown = ", ".join(printable(d, 40) for d in list(found)[:LISTED_CATEGORIES])
        raise InputError(file, None, "dimension", f"no dimension {printable(dimension, 60)!r}; {has} {shown}")
    return {want: found[want]}


def level_choice(level: str, chosen_by: str | None, mapping_level: str | None) -> tuple[str, str]:
    """The level and who chose it: the recipe's (the user's), else the mapping file's, else nobody
    ("auto": the default rule, levels.default_level)."""
    if chosen_by is not None:
        return level, chosen_by
    if level != "auto":
        return level, "user"
    if mapping_level:
        return mapping_level, "mapping"
    return "auto", "user"


# --- panels -----------------------------------------------------------------------------------


def import_panel(recipe: PanelRecipe, inputs: list[tuple[str, str, Any]]) -> Any:
    """The ratings read through the recipe's mapping (or the suggested one) and its roles."""
    from agreebound.io.formats import assign_roles, import_ratings, parse_mapping
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


def _measure_read(recipe: PanelRecipe, imported: Any, inputs: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """Panels already read, measured in memory: the recipe's dimension (or every one), its rates
    file (read here, joining ``inputs``), level, positive category and interval."""
    from agreebound.panel.measure import measure_panels
    from agreebound.engines.numpy_engine import panel_counts
    from agreebound.io.formats import parse_detector_rates

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
    inputs: list[tuple[str, str, Any]] = []
    imported = import_panel(recipe, inputs)
    t = thresholds_of(recipe, inputs)
    measurements = _measure_read(recipe, imported, inputs)
    coefficients = None
    if recipe.coefficients:
        from agreebound.panel.measure import panel_coefficients

        coefficients = {d: panel_coefficients(imported.panels[d], m.level, t.panel.alpha_floor_permil)
                        for d, m in measurements.items()}
    level, _ = level_choice(recipe.level, recipe.chosen_by, imported.mapping.level)
    positive = "auto" if recipe.positive is UNSET else recipe.positive
    replay = replace(recipe, mapping=_mapping_in_force(recipe, imported).to_json(), level=level, positive=positive)
    return panel_result(replay, measurements, t, inputs, imported, coefficients)


def panel_result(recipe: PanelRecipe, measurements: dict[str, Any], t: Any, inputs: Sequence[tuple[str, str, Any]],
                 imported: Any = None, coefficients: dict[str, Any] | None = None) -> Report:
    """The Report of a panel measured in memory (by :func:`run`, or by the dashboard from its cached
    measurement: what it records as a run), ``recipe`` stored as a run stores it."""
    from agreebound.render.report import panel_report

    report = panel_report(measurements, t, [(n, b) for _, n, b in inputs], imported, coefficients)
    return Report("panel", report, t, tuple(inputs), stored_recipe(recipe, measurements), measurements,
                  imported=imported)


def _mapping_in_force(recipe: PanelRecipe, imported: Any) -> Any:
    """The mapping that read the file, with the roles the recipe gave written into it."""
    if recipe.humans is None and recipe.detectors is None:
        return imported.mapping
    return replace(imported.mapping,
                   humans=tuple(dict.fromkeys(h for p in imported.panels.values() for h in p.humans)))


def long_columns(recipe: PanelRecipe, engine: str, files: Sequence[str], remote: bool) -> Any:
    """The mapping of long ratings read out of core: the recipe's mapping file, else (files on a
    cluster's storage) the default names, else the reader's own reading of the first file's head."""
    from agreebound.io.mapping import Mapping

    if isinstance(recipe.mapping, Source):
        from agreebound.io.formats import parse_mapping

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
                                          (f"encoding {m.encoding}", (m.encoding or "utf-8").lower().replace("_", "-")
                                           not in ("utf-8", "utf-8-sig", "ascii")))
                   if bad]
    if unsupported:
        where = recipe.mapping.given if isinstance(recipe.mapping, Source) else files[0]
        raise InputError(where, None, None, f"the {recipe.engine} engine reads UTF-8 long ratings with a header; not "
                         f"{', '.join(unsupported)}: use --engine numpy (files up to 200 MB)")
    return m


def engine_counts(engine: str, files: Sequence[str], m: Any, missing: Sequence[str], master: str = "local[2]",
                  display: str | None = None) -> dict[str, Any]:
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

    kwargs = {"display": display} if display is not None else {}  # DuckDB names the data so in messages
    return panel_counts(list(files), columns, missing=missing, delimiter=m.delimiter, **kwargs)


def _files_read(files: Sequence[str], remote: bool) -> list[tuple[str, str]]:
    """Files read by an engine as the report names them: each with its SHA-256, or (a cluster's
    storage) named, not read here."""
    if remote:
        return [(f, "not read by agreebound (" + f.split("://")[0] + " storage)") for f in files]
    return [(_shown(f), sha256_file(f)) for f in files]


def _measure_counted(recipe: PanelRecipe, engine: str, files: Sequence[str], m: Any) -> dict[str, Any]:
    """Each dimension (or the recipe's one) counted by DuckDB or Spark through the mapping ``m``,
    then measured from its counts exactly as in memory."""
    from agreebound.panel.measure import measure_counts

    missing = tuple(dict.fromkeys([*(m.missing or ()), *(recipe.missing or ())]))
    counts = engine_counts(engine, files, m, missing, recipe.master, display=recipe.display)
    if recipe.dimension is not None:
        counts = one_dimension(counts, recipe.dimension, files[0], "the files have")
    name = recipe.display or _shown(files[0]) + (f" (and {len(files) - 1} more file{'s' if len(files) > 2 else ''})"
                                                    if len(files) > 1 else "")
    level, chosen_by = level_choice(recipe.level, recipe.chosen_by, m.level)
    positive: Any = recipe.positive if recipe.positive is not UNSET else (m.positive or "auto")
    humans = list(recipe.humans) if recipe.humans is not None else (list(m.humans) if m.humans is not None else None)
    if recipe.detectors is not None:
        every = {r for c in counts.values() for r in c.raters}
        humans = sorted(every - set(recipe.detectors))
    return {d: measure_counts(c, name, level, positive, humans, recipe.interval, chosen_by=chosen_by)
            for d, c in counts.items()}


@contextmanager
def _local_files(paths: Sequence[str], engine: str) -> Iterator[tuple[list[str], bool]]:
    """The files an out-of-core engine reads (patterns expanded) and whether they are remote (a
    cluster's storage, read by Spark itself). DuckDB reads local files here (its S3 extension cannot
    be installed everywhere): ``s3://`` objects (patterns expanded from the bucket's listing) are
    copied to a temporary folder first, removed afterwards, and a message naming a copy names its URL."""
    from agreebound.engines.common import input_files
    from agreebound.io import remote as rm

    if engine == "spark" and any("://" in p for p in paths):
        yield list(paths), True
        return
    if not any(rm.is_remote(p) or rm.is_stdin(p) for p in paths):
        yield input_files(paths), False
        return
    for p in paths:
        if rm.is_stdin(p):
            raise InputError(rm.STDIN, None, None, f"the {engine} engine reads files; standard input is read in "
                             "memory (--engine numpy)")
        rm.check_scheme(p)
        if rm.is_remote(p) and rm.scheme(p) != "s3":
            raise InputError(p, None, None, f"the {engine} engine reads local files and s3:// objects; an "
                             f"{rm.scheme(p)} URL is read in memory (--engine numpy)")
    urls = [u for p in paths for u in (rm.expand(p) if rm.is_remote(p) and rm.is_pattern(p) else [p])]
    with tempfile.TemporaryDirectory(prefix="agreebound-s3-") as tmp:
        objects = [u for u in urls if rm.is_remote(u)]
        copies = dict(zip(objects, rm.stage(objects, tmp, _numbers(len(objects)))))
        given = {c: u for u, c in copies.items()}
        _COPIES.update(given)
        try:
            yield input_files([copies.get(u, u) for u in urls]), False
        except InputError as e:
            raise _named_as_given(e, given) from None
        finally:
            for c in given:
                _COPIES.pop(c, None)


#: The local copies of s3:// objects the engines are reading now, each with its URL: the copies are
#: named by number (agreebound.io.remote.stage), a report names each as its object and a message by
#: its URL. Numbers are never reused in a process, so a message naming a copy by its file name alone
#: (``3.csv``) is said with the right URL even when two sets of copies are open (a judge's references
#: and observations).
_COPIES: dict[str, str] = {}
_COPY_NUMBERS = [0]
_COPY_LOCK = threading.Lock()


def _numbers(n: int) -> int:
    """The first of ``n`` copy numbers no other copy in this process has had."""
    with _COPY_LOCK:
        first = _COPY_NUMBERS[0]
        _COPY_NUMBERS[0] += n
    return first


def _shown(path: str) -> str:
    """How a report names a file an engine read: a copy of an object by the object's name."""
    from agreebound.io.remote import url_name

    url = _COPIES.get(path)
    return url_name(url) if url is not None else Path(path).name


def _named_as_given(e: InputError, given: dict[str, str]) -> InputError:
    """The same error with each local copy's path replaced by the URL it was copied from (and a
    file named by a copy's file name alone, as the engines name a file at its row)."""
    def said(text: str) -> str:
        for local in sorted(given, key=len, reverse=True):
            text = text.replace(local, given[local])
        return text

    by_name = {Path(local).name: url for local, url in given.items()}
    file = by_name.get(e.file) or said(e.file)
    return InputError(file, e.row, e.column, said(e.reason), e.row_label, e.column_label)


def _engine_files(recipe: PanelRecipe, engine: str) -> Any:
    """The files an out-of-core engine reads for the recipe's ratings (:func:`_local_files`)."""
    return _local_files([s.given for s in recipe.ratings], engine)


def _panel_out_of_core(recipe: PanelRecipe, engine: str, check: Check | None) -> Report:
    """Long ratings out of core: the engine returns each dimension's counts; the verdict is decided
    from them exactly as in memory."""
    from agreebound.render.report import panel_report

    with _engine_files(recipe, engine) as (files, remote):
        m = long_columns(recipe, engine, files, remote)
        if check is not None:
            check(engine, files)
        t = thresholds_of(recipe, None)
        measurements = _measure_counted(recipe, engine, files, m)
        inputs = _files_read(files, remote)
    report = panel_report(measurements, t, inputs)
    return Report("panel", report, t, tuple(("ratings", n, d) for n, d in inputs), {}, measurements)


# --- judges -----------------------------------------------------------------------------------


def read_judge(recipe: JudgeRecipe, source: str, name: str, data: bytes, inputs: list[tuple[str, str, Any]],
               thresholds: Any = None) -> Any:
    """The judge input as read (io, unmeasured): a log, the tabular trio in memory, or a bundle.
    ``thresholds``: a log without a contract is drafted under them (else the defaults)."""
    from agreebound.io.formats import read_judge_bundle, read_judge_log, read_judge_tables

    if source == "log":
        found = [(role, s.read()) for role, s in (("references", recipe.references), ("contract", recipe.contract),
                                                  ("mapping", recipe.mapping)) if s is not None]
        inputs += [(role, n, b) for role, (n, b) in found]
        given = dict(found)
        return read_judge_log(name, data, given.get("references"), given.get("contract"), recipe.judge,
                              thresholds, given.get("mapping"))
    if source == "single-pairs":
        from agreebound.io.formats import read_single_as_pairs

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


def measure_judge_recipe(recipe: JudgeRecipe, thresholds: Any = None) -> Any:
    """Read and audit a judge in memory: the JudgeBundle (what the dashboard caches)."""
    from agreebound.app.judge_input import measure_judge

    name, data = recipe.first.read()
    return measure_judge(read_judge(recipe, judge_source(recipe, name, data), name, data, [], thresholds))


def _judge(recipe: JudgeRecipe, check: Check | None) -> Report:
    from agreebound.app.judge_input import measure_judge

    name, data = recipe.first.read()
    inputs: list[tuple[str, str, Any]] = [("bundle", name, data)]
    t = thresholds_of(recipe, inputs)
    source = judge_source(recipe, name, data)
    if source == "scored":
        if recipe.engine in OUT_OF_CORE:
            raise RecipeError(f"--engine {recipe.engine} reads the pairwise tabular form; a graded or pass/fail "
                              "judge's log is read in memory")
        return scored_result(replace(recipe, source=source), measure_scored_recipe(recipe, inputs), t, inputs)
    trio = source == "tables" and recipe.references is not None and recipe.observations is not None
    if recipe.engine in OUT_OF_CORE and not trio:
        raise RecipeError(f"--engine {recipe.engine} reads the tabular form (a contract JSON with --references and "
                          "--observations files); a bundle or a judge log is read in memory")
    if trio:
        engine = judge_engine(recipe)
        if engine in OUT_OF_CORE:
            return _judge_out_of_core(recipe, engine, name, data, t, inputs, check)
    bundle = measure_judge(read_judge(recipe, source, name, data, inputs, t.calibration))
    return judge_result(replace(recipe, source=source), bundle, _strict_contract(recipe, t, bundle.measurement.contract),
                        inputs)


def judge_result(recipe: JudgeRecipe, bundle: Any, t: Any, inputs: Sequence[tuple[str, str, Any]]) -> Report:
    """The Report of a judge audited in memory (by :func:`run`, or by the dashboard from its cached
    bundle: what it records as a run), ``recipe`` stored as a run stores it."""
    from agreebound.render.report import calibration_report

    report = calibration_report(bundle, t, [(n, b) for _, n, b in inputs])
    return Report("judge", report, t, tuple(inputs), recipe.to_dict(), bundle=bundle)


def measure_scored_recipe(recipe: JudgeRecipe, inputs: list[tuple[str, str, Any]] | None = None) -> Any:
    """Read a graded or pass/fail judge's log (with human labels from ``recipe.references``) and
    measure it: the ScoredMeasurement (what the dashboard caches). ``inputs``: the files read are
    added to it (the log first, as "bundle")."""
    from agreebound.io.formats import read_scored
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


def scored_result(recipe: JudgeRecipe, measurement: Any, t: Any, inputs: Sequence[tuple[str, str, Any]]) -> Report:
    """The Report of a graded or pass/fail judge (by :func:`run`, or by the dashboard from its cached
    measurement), ``recipe`` stored as a run stores it."""
    from agreebound.render.report import scored_report

    if recipe.judge is not None and recipe.judge not in measurement.input.judges:
        raise InputError(recipe.first.given, None, None, f"no judge {printable(recipe.judge, 60)!r} in the log; "
                         f"judges: {', '.join(printable(j, 60) for j in measurement.input.judges)}")
    report = scored_report(measurement, t, [(n, b) for _, n, b in inputs], recipe.judge)
    return Report("scored", report, t, tuple(inputs), recipe.to_dict(), bundle=measurement)


def _judge_out_of_core(recipe: JudgeRecipe, engine: str, name: str, data: bytes, t: Any,
                       inputs: list[tuple[str, str, Any]], check: Check | None) -> Report:
    """The tabular trio out of core: DuckDB or Spark returns the audit's counts; the decision,
    intervals and report are the in-memory ones."""
    import pandas as pd

    from agreebound.app.judge_input import JudgeBundle
    from agreebound.render.report import calibration_report

    if check is not None:
        check(engine, None)
    assert recipe.references is not None and recipe.observations is not None
    paths = (recipe.references.given, recipe.observations.given)
    on_cluster = engine == "spark" and any("://" in p for p in paths)  # Spark reads both where they are

    def files(path: str) -> Any:
        return nullcontext(([path], True)) if on_cluster else _local_files([path], engine)

    with files(paths[0]) as (refs, remote), files(paths[1]) as (obs, _):
        if check is not None:
            check(engine, [recipe.first.given, *refs, *obs])
        if engine == "spark":
            try:
                from agreebound.engines.judge_spark import judge_measurement as spark_judge
            except ImportError:
                raise RecipeError("--engine spark needs pyspark (pip install 'agreebound[spark]') and Java 17") from None
            contract, header, m = spark_judge(name, data, refs, obs, master=recipe.master)
        else:
            from agreebound.engines.judge_duckdb import judge_measurement

            contract, header, m = judge_measurement(name, data, refs, obs)
        files_read = _files_read([*refs, *obs], remote)
    empty = pd.DataFrame()  # out of core: no frames, only the measurement's counts
    bundle = JudgeBundle(name, contract, header[0], header[1], header[2], empty, empty, m)
    t = _strict_contract(recipe, t, m.contract)
    read = [(n, b) for _, n, b in inputs] + files_read
    report = calibration_report(bundle, t, read)
    return Report("judge", report, t, tuple(inputs), replace(recipe, source="tables").to_dict(), bundle=bundle)


# --- the same reading as functions (tests, benchmarks, samples) ---------------------------------


def parse_judge_bundle(name: str, data: bytes, rebind: bool = False) -> Any:
    """A judge bundle read and audited (io.formats.read_judge_bundle, then measure_judge)."""
    return measure_judge_recipe(JudgeRecipe(Source(name, data), "bundle", rebind=rebind))


def parse_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> Any:
    """The tabular trio read and audited in memory."""
    return measure_judge_recipe(JudgeRecipe(Source(contract_name, contract_data), "tables",
                                            references=Source(references_name, references_data),
                                            observations=Source(observations_name, observations_data)))


def parse_judge_log(name: str, data: bytes, references: tuple[str, bytes] | None = None,
                    contract: tuple[str, bytes] | None = None, judge: str | None = None,
                    thresholds: Any = None, mapping: tuple[str, bytes] | None = None) -> Any:
    """A judge log (with its references, contract and log mapping if given) read and audited."""
    def src(x: tuple[str, bytes] | None) -> Source | None:
        return Source(*x) if x is not None else None

    recipe = JudgeRecipe(Source(name, data), "log", references=src(references), contract=src(contract),
                         mapping=src(mapping), judge=judge)
    return measure_judge_recipe(recipe, thresholds)


def measure_panel_recipe(recipe: PanelRecipe, imported: Any = None) -> dict[str, Any]:
    """The panel measured as :func:`run` measures it (every dimension, or the recipe's one; its
    roles, rates, level, positive category and interval), on the engine :func:`panel_engine`
    chooses; no thresholds (deciding is separate and cheap). ``imported``: the ratings already
    read in memory through the recipe's mapping (the dashboard caches the reading by the bytes'
    digest); read here when None or when the recipe names roles (they are written into what is read)."""
    engine = panel_engine(recipe)
    if engine in OUT_OF_CORE:
        with _engine_files(recipe, engine) as (files, remote):
            return _measure_counted(recipe, engine, files, long_columns(recipe, engine, files, remote))
    if imported is None or recipe.humans is not None or recipe.detectors is not None:
        imported = import_panel(recipe, [])
    return _measure_read(recipe, imported, [])


def rater_diagnostics(recipe: PanelRecipe, dimension: str, level: str, max_raters: int) -> tuple[dict[str, Any], Any]:
    """Leave-one-rater-out alpha and the most disagreeing units of long ratings out of core
    (DuckDB, one pass per rater), on the engine :func:`panel_engine` chooses."""
    engine = panel_engine(recipe)
    if engine != "duckdb":
        raise RecipeError(f"per-rater diagnostics out of core run on DuckDB, not {engine}")
    from agreebound.engines.common import LongColumns
    from agreebound.engines.duckdb_engine import rater_diagnostics as duckdb_diagnostics

    with _engine_files(recipe, engine) as (files, _):
        m = long_columns(recipe, engine, files, False)
        cols = LongColumns(tuple(m.unit) or ("unit",), m.rater or "rater", m.value or "value", m.dimension)
        return duckdb_diagnostics(list(files), cols, dimension, level, missing=m.missing or (),
                                  max_raters=max_raters, delimiter=m.delimiter)
