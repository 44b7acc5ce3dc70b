"""What a run is asked to do: its inputs (:class:`Source`), the typed recipes (:class:`PanelRecipe`,
:class:`JudgeRecipe`) and the engine each chooses. Data, no work: agreebound.app.pipeline runs them.
"""

from __future__ import annotations
import hashlib
import json
import os
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import (TYPE_CHECKING, Callable, Final, Literal, Sequence, TypeAlias,
                    TypedDict, TypeVar, cast)
from agreebound.core.errors import InputError
from agreebound.core.json_types import JSONObject
from agreebound.core.limits import MAX_INPUT_BYTES
if TYPE_CHECKING:

    from agreebound.core.thresholds import ThresholdSet
    from agreebound.judge.ranking import RankingGate
    from agreebound.panel.categories import Level




ENGINES = ("auto", "numpy", "duckdb", "spark")
OUT_OF_CORE = ("duckdb", "spark")
#: (engine, files) -> None: called once the out-of-core engine is chosen (files None), then with
#: its input files before any is read (the CLI checks its flags and its --report path there).
Check = Callable[[str, "Sequence[str] | None"], None]
#: An input a run read, as a Report lists it: (role, name, its bytes, or for a file an engine read
#: out of core its SHA-256 or where it lies).
ReadInput: TypeAlias = "tuple[str, str, bytes | str]"
#: What a recipe's thresholds are: a set, a thresholds file, or None (the defaults).
GivenThresholds: TypeAlias = "ThresholdSet | Source | None"
T = TypeVar("T")


class _Unset:
    """A positive category not given (the CLI without --positive): "auto" in memory; out of core,
    the mapping's positive first."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


class RecipeError(Exception):
    """A recipe this version cannot run as asked (an engine without a feature, a missing engine):
    a usage problem, said in the user's words; the CLI prefixes its command."""


# --- sources ----------------------------------------------------------------------------------


def read_file(path: str) -> tuple[str, bytes]:
    """A regular file's name and bytes; the size is checked with stat before reading, and
    devices, pipes and folders are refused without opening them. ``-`` is standard input, a URL
    (``s3://``, ``https://``) is read by agreebound.io.remote, and a Hugging Face dataset's
    ``save_to_disk`` folder by agreebound.io.arrow_datasets: each within the same size limit."""
    from agreebound.engines.common import regular_file
    from agreebound.io.remote import is_remote, is_stdin, read_remote
    from agreebound.io.tables import check_size

    if is_stdin(path) or is_remote(path):
        return read_remote(path)
    if os.path.isdir(path):
        from agreebound.io.arrow_datasets import is_saved_dataset, read_saved_dataset

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


def _positive_text(positive: object) -> str | None:
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
    level: Level | Literal["auto"] = "auto"
    chosen_by: str | None = None
    humans: tuple[str, ...] | None = None
    detectors: tuple[str, ...] | None = None
    dimension: str | None = None
    engine: str = "auto"
    master: str = "local[2]"
    interval: str = "units"
    positive: object = "auto"  # a category, "auto", None, or UNSET (not given)
    rates: Source | None = None
    sheet: str | None = None
    missing: tuple[str, ...] | None = None
    coefficients: bool = False
    #: ``--study``: the annotation study beside each dimension (agreebound.panel.study), its queue by ``study_rule``.
    study: bool = False
    study_rule: str = "uncertain-first"
    thresholds: GivenThresholds = None
    preset: str | None = None
    #: How messages and the measurement name the data (the dashboard's data folder: the data set's
    #: name in the folder, never a server path); None: the first file's name.
    display: str | None = None
    #: Strict mode (``--strict``): every gate decides on its 95% interval's bound too, so a fragile
    #: gate fails; the thresholds' values are unchanged.
    strict: bool = False

    def to_dict(self) -> JSONObject:
        """The stored form (the keys runs have always stored: mapping, level, positive, dimension,
        interval)."""
        mapping = self.mapping if isinstance(self.mapping, str) or self.mapping is None else None
        return {"mapping": mapping, "level": self.level, "positive": _positive_text(self.positive),
                "dimension": self.dimension, "interval": self.interval}

    @classmethod
    def from_dict(cls, stored: JSONObject, ratings: Sequence[Source], rates: Source | None = None,
                  thresholds: GivenThresholds = None) -> "PanelRecipe":
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
    thresholds: GivenThresholds = None
    preset: str | None = None
    #: a graded judge's level of measurement (source "scored"); None: the kind's default, said so
    level: Level | None = None
    #: Strict mode (``--strict``), as for a panel: on the contract's own thresholds too
    strict: bool = False
    #: The report ranks the candidates' models (``--ranking``; agreebound.app.rankings)
    ranking: bool = False
    #: A ranking gate (``--beats MODEL:BASELINE:MARGIN``): information beside the decision, never part of it
    beats: RankingGate | None = None
    #: A graded judge's scores mapped to the humans' scale (``--recalibrate``; agreebound.scored.recalibrate)
    recalibrate: bool = False

    def to_dict(self) -> JSONObject:
        """The stored form: source, judge, rebind (a graded judge's level when one was chosen; the
        ranking and its gate when asked for)."""
        out: JSONObject = {"source": self.source, "judge": self.judge, "rebind": bool(self.rebind)}
        if self.level:
            out["level"] = self.level
        if self.ranking or self.beats is not None:
            out["ranking"] = True
        if self.beats is not None:
            b = self.beats
            out["beats"] = {"model": b.model, "baseline": b.baseline, "margin": b.margin, "unit": b.unit}
        if self.recalibrate:
            out["recalibrate"] = True
        return out

    @classmethod
    def from_dict(cls, stored: JSONObject, files: Sequence[Source | None], thresholds: GivenThresholds = None
                  ) -> "JudgeRecipe":
        """A stored run's recipe over its stored files, in the source's slot order (bundle; contract,
        references, observations; log, references, contract, mapping)."""
        source = stored.get("source", "bundle")
        slots = list(files) + [None] * 4
        first = cast(Source, slots[0])  # a stored judge run holds its first file
        given = _Stored(judge=stored.get("judge"), rebind=bool(stored.get("rebind")), thresholds=thresholds,
                        ranking=bool(stored.get("ranking")), beats=_stored_gate(stored.get("beats")))
        if source == "tables":
            return cls(first, source, references=slots[1], observations=slots[2], **given)
        if source in ("log", "single-pairs"):
            return cls(first, source, references=slots[1], contract=slots[2], mapping=slots[3], **given)
        if source == "scored":
            return cls(first, source, references=slots[1], level=stored.get("level"),
                       recalibrate=bool(stored.get("recalibrate")), **given)
        return cls(first, source, **given)


class _Stored(TypedDict):
    """What every stored judge recipe gives back beside its files (:meth:`JudgeRecipe.from_dict`)."""

    judge: str | None
    rebind: bool
    thresholds: GivenThresholds
    ranking: bool
    beats: RankingGate | None


def _stored_gate(stored: object) -> RankingGate | None:
    """A stored ranking gate (None: none stored, or one this version cannot read)."""
    from agreebound.judge.ranking import RankingGate

    if not isinstance(stored, dict):
        return None
    try:
        return RankingGate(str(stored["model"]), str(stored["baseline"]), stored["margin"], str(stored["unit"]))
    except (KeyError, ValueError):
        return None


def recipe_digest(recipe: PanelRecipe | JudgeRecipe) -> str:
    """A stable digest of everything a recipe's measurement depends on: each file by its
    :attr:`Source.digest` (never its bytes), every other field by its value. The dashboard keys
    its caches on it (with the recipe itself passed unhashed)."""
    def part(value: object) -> object:
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
    from agreebound.io.log_kinds import is_judge_log, is_scored_log

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


