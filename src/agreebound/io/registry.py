"""Every input format, once: what it is called, its file endings, how its bytes are recognised,
which reader reads it, which engines can, and which inputs it serves.

:data:`FORMATS` is the one list. Its order is the order of detection: a rating file is read by
the first file format whose recogniser accepts its bytes (:func:`agreebound.io.readers.read_source`
walks it), and a JSON or JSON Lines file by the first record shape, in this order, that its first
records have (a pairwise judge log's shape is refused as ratings, naming the shape). What lists
formats is made from it: the CLI's help (:func:`format_list`) and the table in README.md and
docs/formats.md (:func:`markdown_table`; a test holds the two to it); a dashboard uploader's
endings and label are :func:`upload_types` and :func:`upload_label`.

>>> [f.name for f in FORMATS if not f.within and RATINGS in f.inputs]
['arrow', 'parquet', 'xlsx', 'json', 'jsonl', 'csv']
>>> detect("x.csv", b"unit,a,b\\nu1,1,2\\n").name
'csv'
>>> judge_log_shape({"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "tie", "g2_winner": "tie"})
'mt-bench judgments'
>>> upload_types(THRESHOLDS)
['json', 'toml']
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.sniff import Peek, is_parquet, is_xlsx

if TYPE_CHECKING:
    from agreebound.io.dataset_shapes import Shape

# --- what a format serves, and who reads it --------------------------------------------------------

RATINGS = "ratings"
DETECTOR_RATES = "detector rates"
JUDGE_BUNDLE = "judge bundle"
JUDGE_TABLES = "judge tables"  # the tabular trio: contract JSON, references and observations
JUDGE_LOG = "pairwise judge log"
HUMAN_VOTES = "human votes"  # the references of a pairwise judge log
SCORES = "graded or pass/fail scores"
HUMAN_LABELS = "human labels"  # the references of a graded or pass/fail judge's log
THRESHOLDS = "thresholds"
MAPPING = "mapping"
INPUTS = (RATINGS, DETECTOR_RATES, JUDGE_BUNDLE, JUDGE_TABLES, JUDGE_LOG, HUMAN_VOTES, SCORES, HUMAN_LABELS,
          THRESHOLDS, MAPPING)

ENGINES = ("numpy", "duckdb", "spark")
IN_MEMORY = ("numpy",)


@dataclass(frozen=True)
class Format:
    """One input format.

    ``recognise`` answers from a :class:`~agreebound.io.sniff.Peek` (the file's head bytes, what
    sniffing says of them, its first records); None: the format is never detected, the option or
    uploader it is given to says what it is. ``within``: a record shape's file formats (its
    recogniser reads their first records); () for a file format, recognised from its bytes.
    ``needs``: the fields a pairwise judge log's first record has (:func:`judge_log_shape`).
    ``reader``: the dotted name of the function that reads it (:meth:`load`)."""

    name: str  # what reports and messages call it (a Source's format, a log's shape)
    title: str  # what the help, the uploaders and the table call it
    endings: tuple[str, ...]  # lower case, with the dot
    inputs: tuple[str, ...]  # of INPUTS
    engines: tuple[str, ...]  # of ENGINES
    reader: str
    description: str  # one line
    recognise: Callable[[Peek], bool] | None = None
    within: tuple[str, ...] = ()
    needs: frozenset[str] = frozenset()

    def load(self) -> Callable[..., Any]:
        """The reader, imported when first asked for."""
        return _load(self.reader)

    @property
    def found_by(self) -> str:
        if self.recognise is None:
            return "the option it is given to"
        if not self.within:
            return "its bytes"
        return "its first records (" + ", ".join(_TITLE_OF.get(w, w) for w in self.within) + ")"


_LOADED: dict[str, Callable[..., Any]] = {}


def _load(dotted: str) -> Callable[..., Any]:
    if dotted not in _LOADED:
        module, _, attr = dotted.rpartition(".")
        _LOADED[dotted] = getattr(importlib.import_module(module), attr)
    return _LOADED[dotted]


# --- recognisers -----------------------------------------------------------------------------------


def _arrow(p: Peek) -> bool:
    from agreebound.io.arrow_datasets import is_arrow

    return is_arrow(p.data)


def _parquet(p: Peek) -> bool:
    return is_parquet(p.data)


def _xlsx(p: Peek) -> bool:
    return is_xlsx(p.name, p.data)


def _json(p: Peek) -> bool:
    return p.sniffed.format == "json"


def _jsonl(p: Peek) -> bool:
    return p.sniffed.format == "jsonl"


def _csv(p: Peek) -> bool:
    return p.sniffed.format == "csv"


def _label_studio(p: Peek) -> bool:
    return p.sniffed.format == "json" and any(isinstance(t, dict) and ("annotations" in t or "predictions" in t)
                                              for t, _ in p.records)


def _prodigy(p: Peek) -> bool:
    first = p.first
    return isinstance(first, dict) and any(k in first for k in ("_input_hash", "_task_hash")) and "answer" in first


def dataset_shape(p: Peek) -> Shape | None:
    """The data set shape (:class:`agreebound.io.dataset_shapes.Shape`) of a file's first records,
    or None (the first record is not an object, or no shape fits)."""
    from agreebound.io.dataset_shapes import records_shape

    if not isinstance(p.first, dict):
        return None
    return records_shape([r for r, _ in p.records if isinstance(r, dict)])


def _shape_kind(kind: str) -> Callable[[Peek], bool]:
    def recognise(p: Peek) -> bool:
        shape = dataset_shape(p)
        return shape is not None and shape.kind == kind

    return recognise


def _fields(needs: frozenset[str]) -> Callable[[Peek], bool]:
    def recognise(p: Peek) -> bool:
        return isinstance(p.first, dict) and needs <= set(p.first)

    return recognise


def _scored(shape: str) -> Callable[[Peek], bool]:
    def recognise(p: Peek) -> bool:
        return scored_log_shape(p.first) == shape

    return recognise


def _inspect_ai(p: Peek) -> bool:
    return (p.data[:4] == b"PK\x03\x04" and p.name.lower().endswith(".eval")) or scored_log_shape(p.first) == "inspect_ai"


def scores_header(data: bytes) -> bool:
    """A CSV whose header names ``item, rater, role, score`` (a scores table)."""
    try:
        header = data[:65536].lstrip().split(b"\n", 1)[0].decode("utf-8-sig").strip().lower()
    except UnicodeDecodeError:
        return False
    return {"item", "rater", "role", "score"} <= {c.strip().strip('"') for c in header.split(",")}


def _scores_table(p: Peek) -> bool:
    return scored_log_shape(p.first) == "scores table" or (_csv(p) and scores_header(p.data))


def _pairwise(name: str, title: str, endings: tuple[str, ...], needs: set[str], reader: str, description: str,
              inputs: tuple[str, ...] = (JUDGE_LOG,)) -> Format:
    """A pairwise judge log's shape: recognised by the fields its first record has."""
    fields = frozenset(needs)
    return Format(name, title, endings, inputs, IN_MEMORY, reader, description, _fields(fields), ("json", "jsonl"),
                  fields)


# --- the formats, in the order they are recognised -------------------------------------------------

_READERS = "agreebound.io.readers."
_PAIRWISE = "agreebound.io.judge_log_harnesses."
_GRADED = "agreebound.io.scored_harnesses."

FORMATS: tuple[Format, ...] = (
    # file formats: the first whose recogniser accepts the bytes reads a rating file
    Format("arrow", "Arrow (Hugging Face datasets)", (".arrow",), (RATINGS,), IN_MEMORY, _READERS + "read_arrow_source",
           "an Arrow IPC file or stream (a dataset's shard); a save_to_disk folder is read as one", _arrow),
    Format("parquet", "Parquet", (".parquet", ".pq"), (RATINGS,), ENGINES, _READERS + "read_parquet_source",
           "a Parquet file: a wide or long table, or list columns of raters and labels", _parquet),
    Format("xlsx", "Excel .xlsx", (".xlsx",), (RATINGS,), IN_MEMORY, _READERS + "read_xlsx_source",
           "a workbook: the first sheet that holds a table, or the sheet named", _xlsx),
    Format("json", "JSON records", (".json",), (RATINGS,), IN_MEMORY, _READERS + "read_json_source",
           "a JSON list of flat records, or a pandas to_json() shape", _json),
    Format("jsonl", "JSON Lines", (".jsonl", ".ndjson"), (RATINGS,), IN_MEMORY, _READERS + "read_json_source",
           "one flat JSON object a line", _jsonl),
    Format("csv", "CSV/TSV", (".csv", ".tsv", ".txt"), (RATINGS,), ENGINES, _READERS + "read_csv_source",
           "delimited text, its delimiter and encoding sniffed: wide, long or raters x units", _csv),
    # record shapes, in JSON or JSON Lines: the first whose recogniser accepts the first records
    Format("label-studio", "Label Studio export", (".json",), (RATINGS,), IN_MEMORY,
           _READERS + "label_studio_source", "Label Studio's JSON export: task = unit, annotator = rater, "
           "control = dimension", _label_studio, ("json",)),
    _pairwise("observations", "observation records JSONL", (".jsonl",),
              {"case_id", "order", "repetition", "selected_candidate"}, _PAIRWISE + "read_observations",
              "the seed's observation fields, one judgment a line"),
    _pairwise("mt-bench judgments", "MT-Bench judgments JSONL", (".jsonl",),
              {"g1_winner", "g2_winner", "model_1", "model_2"}, _PAIRWISE + "read_mt_bench",
              "FastChat's pairwise judgments (model_judgment/*_pair.jsonl): two games a record"),
    _pairwise("mt-bench human judgments", "MT-Bench human judgments JSONL", (".jsonl",),
              {"winner", "model_a", "model_b"}, "agreebound.io.judge_logs.read_references",
              "FastChat's human votes: the references of a pairwise judge log", (HUMAN_VOTES,)),
    _pairwise("alpacaeval annotations", "AlpacaEval annotations JSON", (".json",),
              {"preference", "output_1", "output_2"}, _PAIRWISE + "read_alpacaeval",
              "AlpacaEval's annotations.json: preference 1, 2 or 1.5 (a tie; 0, AlpacaEval's old code for "
              "identical outputs, too)"),
    _pairwise("arena-hard judgments", "arena-hard judgments JSONL", (".jsonl",), {"games", "model", "judge"},
              _PAIRWISE + "read_arena_hard", "arena-hard-auto's judgments: two games against the baseline"),
    _pairwise("judgekit pairwise", "judgekit pairwise verdicts JSONL", (".jsonl",), {"kind", "item_id", "choice"},
              _PAIRWISE + "read_judgekit_pairwise", "judgekit's pairwise verdicts (swapped is order ba)"),
    _pairwise("judgecal judgments", "judgecal judgments JSONL", (".jsonl",), {"custom_id", "verdict", "meta"},
              _PAIRWISE + "read_judgecal", "judgecal ingest's judgments: the position and stability probes"),
    Format("prodigy", "Prodigy export", (".jsonl",), (RATINGS,), IN_MEMORY, _READERS + "prodigy_source",
           "Prodigy's JSONL: input hash = unit, annotator = rater, accept/reject = value", _prodigy,
           ("json", "jsonl")),
    Format("argilla", "Argilla v2 export (nested)", (".json", ".jsonl"), (RATINGS,), IN_MEMORY,
           _READERS + "shaped_source", "Argilla's records.to_json: submitted responses, a question a dimension",
           _shape_kind("argilla"), ("json", "jsonl")),
    Format("argilla-flat", "Argilla v2 export (flattened)", (".jsonl", ".json", ".parquet", ".arrow"), (RATINGS,),
           IN_MEMORY, _READERS + "shaped_source", "Argilla's to_datasets() / Hub export: `<question>.responses` "
           "list columns", _shape_kind("argilla-flat"), ("json", "jsonl", "parquet", "arrow")),
    Format("dataset-lists", "Hugging Face rows with lists of raters and labels", (".jsonl", ".json", ".parquet",
           ".arrow"), (RATINGS,), IN_MEMORY, _READERS + "shaped_source",
           "a list of raters beside a list of their labels in each row", _shape_kind("lists"),
           ("json", "jsonl", "parquet", "arrow")),
    # graded or pass/fail judges' logs (agreebound.io.scored_logs reads them; never ratings)
    Format("inspect_ai", "inspect_ai log (JSON or .eval)", (".json", ".eval"), (SCORES,), IN_MEMORY,
           _GRADED + "read_inspect", "inspect_ai's evaluation log: model-graded scores C = 1, P = 0.5, I = 0",
           _inspect_ai, ("json",)),
    Format("promptfoo", "promptfoo results JSON", (".json",), (SCORES,), IN_MEMORY, _GRADED + "read_promptfoo",
           "promptfoo eval -o results.json: the model-graded assertions' scores", _scored("promptfoo"), ("json",)),
    Format("mt-bench single", "MT-Bench single-answer grading JSONL", (".jsonl",), (SCORES,), IN_MEMORY,
           _GRADED + "read_mt_bench_single", "FastChat's single-answer grading (gpt-4_single.jsonl): scores 1-10",
           _scored("mt-bench single"), ("json", "jsonl")),
    Format("judgekit", "judgekit graded or binary verdicts JSONL", (".jsonl",), (SCORES,), IN_MEMORY,
           _GRADED + "read_judgekit", "judgekit's graded (a scale) and binary (pass/fail) verdicts",
           _scored("judgekit"), ("json", "jsonl")),
    Format("scores table", "scores table (item,rater,role,score)", (".csv", ".jsonl", ".json", ".parquet"), (SCORES,),
           ENGINES, "agreebound.io.scored_tables.scores_table", "any harness's scores, one row per (item, rater)",
           _scores_table, ("csv", "jsonl", "json")),
    # inputs an option names (never detected)
    Format("judge bundle", "judge bundle JSON", (".json",), (JUDGE_BUNDLE,), IN_MEMORY,
           "agreebound.io.judge_inputs.read_judge_bundle", "a contract and a snapshot of references and "
           "observations, in one JSON object"),
    Format("judge tables", "tabular trio", (".json", ".csv", ".parquet"), (JUDGE_TABLES,), ENGINES,
           "agreebound.io.judge_inputs.read_judge_tables", "a contract JSON, a references CSV and an observations "
           "CSV (or Parquet files)"),
    Format("detector rates", "detector rates CSV", (".csv",), (DETECTOR_RATES,), IN_MEMORY,
           "agreebound.io.detector_rates.parse_detector_rates", "detector,positives,total[,dimension]"),
    Format("human labels", "human labels", (".csv", ".jsonl", ".ndjson", ".json"), (HUMAN_LABELS,), IN_MEMORY,
           "agreebound.io.scored_tables.join_human_labels", "human scores or verdicts for a graded or pass/fail "
           "judge's log, joined by item"),
    Format("thresholds", "thresholds file", (".json", ".toml"), (THRESHOLDS,), IN_MEMORY,
           "agreebound.io.threshold_files.parse_thresholds", "panel and calibration limits, and named presets"),
    Format("mapping", "mapping file", (".json", ".toml"), (MAPPING,), IN_MEMORY,
           "agreebound.io.ratings.parse_mapping", "which column of a rating file is which (agreebound inspect "
           "writes one)"),
    Format("judge-log mapping", "judge-log mapping", (".json", ".toml"), (MAPPING,), IN_MEMORY,
           "agreebound.io.judge_logs.parse_log_mapping", "which field of another harness's judge log is which "
           "observation field"),
)

BY_NAME = {f.name: f for f in FORMATS}
_TITLE_OF = {"json": "JSON", "jsonl": "JSON Lines", "csv": "CSV", "parquet": "Parquet", "arrow": "Arrow"}


# --- detection -------------------------------------------------------------------------------------


def file_formats(input_: str = RATINGS) -> tuple[Format, ...]:
    """The file formats that serve ``input_``, in the order their recognisers are asked."""
    return tuple(f for f in FORMATS if not f.within and f.recognise is not None and input_ in f.inputs)


def rating_shapes(container: str) -> tuple[Format, ...]:
    """The record shapes a rating file in ``container`` (json, jsonl) is asked about, in order: the
    rating shapes, and the pairwise judge logs' (refused as ratings, named)."""
    return tuple(f for f in FORMATS if container in f.within and (RATINGS in f.inputs or f.needs))


def detect(name: str, data: bytes, input_: str = RATINGS) -> Format:
    """The file format of ``data`` among those serving ``input_``: the first whose recogniser accepts
    it (CSV/TSV, the last, accepts any text)."""
    peek = Peek(name, data)
    found = next((f for f in file_formats(input_) if f.recognise is not None and f.recognise(peek)), None)
    if found is None:
        raise ValueError(f"no file format serving {input_} recognises {name}")
    return found


def identify(name: str, data: bytes) -> Format:
    """The most specific format ``data`` has: the first record shape (rating, judge log, graded log)
    its first records fit, else its file format. What a file is, for help and tests; the readers
    ask the same recognisers in their own order."""
    peek = Peek(name, data)
    for fmt in FORMATS:
        if fmt.within and fmt.recognise is not None and fmt.recognise(peek):
            return fmt
    return next(f for f in FORMATS if not f.within and f.recognise is not None and f.recognise(peek))


def judge_log_shape(record: JSONObject) -> str | None:
    """The pairwise judge log shape a first record has, by its fields (:attr:`Format.needs`, in
    the order of :data:`FORMATS`); None when it has none."""
    keys = set(record)
    return next((f.name for f in FORMATS if f.needs and f.needs <= keys), None)


def scored_log_shape(record: JSONValue) -> str | None:
    """The graded/binary shape a log's first record (or its whole object) has, by its fields.
    "judgecal" is pairwise: named here so that the graded reader can refuse it."""
    if not isinstance(record, dict):
        return None
    keys = set(record)
    if {"eval", "samples"} <= keys or ({"eval", "version"} <= keys and isinstance(record.get("eval"), dict)):
        return "inspect_ai"
    results = record.get("results")
    if isinstance(results, dict) and isinstance(results.get("results"), list):
        return "promptfoo"
    if {"question_id", "model", "judge", "score"} <= keys and "games" not in keys:
        return "mt-bench single"
    if {"kind", "item_id"} <= keys and record.get("kind") in ("graded", "binary", "pairwise"):
        return "judgekit"
    if {"custom_id", "verdict", "meta"} <= keys:
        return "judgecal"
    if {"item", "rater", "role", "score"} <= keys:
        return "scores table"
    return None


# --- what lists formats ----------------------------------------------------------------------------


def serving(*inputs: str) -> tuple[Format, ...]:
    """The formats that serve any of ``inputs``, in :data:`FORMATS` order."""
    return tuple(f for f in FORMATS if set(inputs) & set(f.inputs))


def format_list(*inputs: str) -> str:
    """The formats serving ``inputs``, by title, as the help says them: "a, b or c".

    >>> format_list(THRESHOLDS, DETECTOR_RATES)
    'detector rates CSV or thresholds file'
    """
    titles = list(dict.fromkeys(f.title for f in serving(*inputs)))
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " or " + titles[-1]


def short_list(*inputs: str) -> str:
    """The formats serving ``inputs`` as an uploader's label says them: each title without its
    parenthesis, its "export" or its "with ..." tail, once.

    >>> short_list(DETECTOR_RATES)
    'detector rates CSV'
    """
    def short(title: str) -> str:
        return title.split(" (")[0].split(" with ")[0].removesuffix(" export")
    return ", ".join(dict.fromkeys(short(f.title) for f in serving(*inputs)))


def upload_types(*inputs: str) -> list[str]:
    """The file endings an uploader for ``inputs`` accepts, without the dot (Streamlit's ``type=``)."""
    return list(dict.fromkeys(e.lstrip(".") for f in serving(*inputs) for e in f.endings))


def upload_label(lead: str, *inputs: str) -> str:
    """An uploader's label: ``lead``, then the formats it takes.

    >>> upload_label("Thresholds", THRESHOLDS)
    'Thresholds: thresholds file (.json, .toml)'
    """
    endings = ", ".join(dict.fromkeys(e for f in serving(*inputs) for e in f.endings))
    return f"{lead}: {format_list(*inputs)} ({endings})"


def markdown_table() -> str:
    """The table of every format, as README.md and docs/formats.md hold it between their
    ``<!-- formats:begin -->`` and ``<!-- formats:end -->`` markers."""
    rows = ["| format | name | endings | found by | read as | engines | what it is |", "|---|---|---|---|---|---|---|"]
    for f in FORMATS:
        rows.append(f"| {f.title} | `{f.name}` | {', '.join(f'`{e}`' for e in f.endings)} | {f.found_by} | "
                    f"{', '.join(f.inputs)} | {', '.join(f.engines)} | {f.description} |")
    return "\n".join(rows) + "\n"


MARKERS = ("<!-- formats:begin -->", "<!-- formats:end -->")


def table_in(text: str) -> str | None:
    """The text between a document's format markers (None when it has none)."""
    begin, end = text.find(MARKERS[0]), text.find(MARKERS[1])
    if begin < 0 or end < begin:
        return None
    return text[begin + len(MARKERS[0]):end].strip("\n") + "\n"


def with_table(text: str) -> str:
    """``text`` with the table between its format markers replaced by :func:`markdown_table` (how
    README.md and docs/formats.md are brought up to date after a format is added)."""
    begin, end = text.find(MARKERS[0]), text.find(MARKERS[1])
    if begin < 0 or end < begin:
        raise ValueError(f"no {MARKERS[0]} ... {MARKERS[1]} in the text")
    return text[:begin + len(MARKERS[0])] + "\n\n" + markdown_table() + "\n" + text[end:]
