"""agreebound.io.registry: the one list of formats. What is made from it (the tables in README.md and
docs/formats.md, the CLI's help, the uploaders' endings) says every format, and the detection it
drives reads the project's real sample files as they were read before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agreebound.cli.parser import build_parser
from agreebound.core.errors import InputError
from agreebound.io import registry
from agreebound.io.readers import read_source
from agreebound.io.registry import (ENGINES, FORMATS, INPUTS, RATINGS, SCORES, THRESHOLDS, detect, format_list,
                                    identify, judge_log_shape, markdown_table, rating_shapes, table_in, upload_label,
                                    upload_types, with_table)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_data"
LOGS = ROOT / "tests" / "data" / "judge_logs"
REGENERATE = ("regenerate it: .venv/bin/python -c \"from pathlib import Path; from agreebound.io.registry import "
              "with_table; [p.write_text(with_table(p.read_text())) for p in map(Path, ('README.md', "
              "'docs/formats.md'))]\"")


# --- the registry itself ------------------------------------------------------------------------


def test_every_format_is_whole_and_its_reader_is_there():
    names = [f.name for f in FORMATS]
    assert len(names) == len(set(names))
    file_formats = {f.name for f in FORMATS if not f.within}
    for f in FORMATS:
        assert f.title and f.description and "|" not in f.title + f.description, f.name
        assert f.endings and all(e.startswith(".") and e == e.lower() for e in f.endings), f.name
        assert f.inputs and set(f.inputs) <= set(INPUTS), f.name
        assert f.engines and set(f.engines) <= set(ENGINES) and f.engines[0] == "numpy", f.name
        assert set(f.within) <= file_formats, f.name
        assert callable(f.load()), f.reader


def test_the_rating_file_formats_are_walked_in_todays_order_and_csv_takes_the_rest():
    walked = [f.name for f in registry.file_formats(RATINGS)]
    assert walked == ["arrow", "parquet", "xlsx", "json", "jsonl", "csv"]
    assert detect("x.bin", b"\x00\x01 not text at all, no delimiter").name == "csv"


def test_record_shapes_are_asked_in_order_and_a_pairwise_log_comes_before_prodigy():
    assert [f.name for f in rating_shapes("json")] == [
        "label-studio", "observations", "mt-bench judgments", "mt-bench human judgments", "alpacaeval annotations",
        "arena-hard judgments", "judgekit pairwise", "judgecal judgments", "prodigy", "argilla", "argilla-flat",
        "dataset-lists"]
    assert "label-studio" not in [f.name for f in rating_shapes("jsonl")]
    both = {"case_id": "c", "order": "ab", "repetition": 1, "selected_candidate": "a", "g1_winner": "x",
            "g2_winner": "y", "model_1": "m", "model_2": "n"}
    assert judge_log_shape(both) == "observations"  # the first shape in the registry's order
    assert judge_log_shape({"winner": "tie", "model_a": "a", "model_b": "b"}) == "mt-bench human judgments"
    assert judge_log_shape({"unit": 1}) is None


# --- what is made from it -----------------------------------------------------------------------


@pytest.mark.parametrize("document", ["README.md", "docs/formats.md"])
def test_the_documents_hold_the_generated_table(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    assert table_in(text) == markdown_table(), f"{document}'s formats table is not the registry's; " + REGENERATE
    assert with_table(text) == text


def test_the_table_has_a_row_per_format_in_order():
    rows = markdown_table().splitlines()
    assert rows[0] == "| format | name | endings | found by | read as | engines | what it is |"
    assert len(rows) == 2 + len(FORMATS)
    assert rows[2] == ("| Arrow (Hugging Face datasets) | `arrow` | `.arrow` | its bytes | ratings | numpy | an Arrow IPC "
                       "file or stream (a dataset's shard); a save_to_disk folder is read as one |")
    assert rows[7].startswith("| CSV/TSV | `csv` | `.csv`, `.tsv`, `.txt` | its bytes | ratings | numpy, duckdb, spark |")
    assert "| `prodigy` | `.jsonl` | its first records (JSON, JSON Lines) | ratings |" in rows[16]
    assert rows[-1].startswith("| judge-log mapping | `judge-log mapping` | `.json`, `.toml` | the option it is given to |")


def test_the_cli_help_names_every_format():
    parser = build_parser()
    said = " ".join(" ".join(parser.commands[c].format_help().split()) for c in ("panel", "calibrate"))
    missing = [f.title for f in FORMATS if f.title not in said]
    assert missing == []
    assert "ratings: Arrow (Hugging Face datasets), Parquet, Excel .xlsx, JSON records, JSON Lines, CSV/TSV, Label " \
           "Studio export, Prodigy export, Argilla v2 export (nested), Argilla v2 export (flattened) or Hugging Face " \
           "rows with lists of raters and labels; with --engine duckdb" in said


def test_the_uploaders_endings_and_labels():
    assert upload_types(RATINGS) == ["arrow", "parquet", "pq", "xlsx", "json", "jsonl", "ndjson", "csv", "tsv", "txt"]
    assert upload_types(THRESHOLDS) == ["json", "toml"]
    assert upload_types(SCORES) == ["json", "eval", "jsonl", "csv", "parquet"]
    assert upload_label("Thresholds", THRESHOLDS) == "Thresholds: thresholds file (.json, .toml)"
    assert format_list(SCORES) == ("inspect_ai log (JSON or .eval), promptfoo results JSON, MT-Bench single-answer "
                                   "grading JSONL, judgekit graded or binary verdicts JSONL or scores table "
                                   "(item,rater,role,score)")


# --- detection on the project's own files -------------------------------------------------------

#: (file, its file format, the most specific format it has, what read_source makes of it as ratings)
SEEN = [
    (SAMPLES / "detector_panel.csv", "csv", "csv", "csv"),
    (SAMPLES / "imports" / "excel_semicolon.csv", "csv", "csv", "csv"),
    (SAMPLES / "imports" / "k2011.xlsx", "xlsx", "xlsx", "xlsx"),
    (SAMPLES / "imports" / "label_studio.json", "json", "label-studio", "label-studio"),
    (SAMPLES / "imports" / "prodigy.jsonl", "jsonl", "prodigy", "prodigy"),
    (SAMPLES / "imports" / "generic.jsonl", "jsonl", "jsonl", "jsonl"),
    (SAMPLES / "graded_judge.csv", "csv", "scores table", "csv"),  # a scores table is also a rating table
    (SAMPLES / "judge_logs" / "mt_bench_gpt-4_pair.jsonl", "jsonl", "mt-bench judgments", None),
    (SAMPLES / "judge_logs" / "alpaca_eval_annotations.json", "json", "alpacaeval annotations", None),
    (SAMPLES / "judge_logs" / "mt_bench_human_judgments.jsonl", "jsonl", "mt-bench human judgments", None),
    (LOGS / "arena_hard_v0.1_gpt-4-0613.jsonl", "jsonl", "arena-hard judgments", None),
    (LOGS / "judgekit_pairwise.jsonl", "jsonl", "judgekit pairwise", None),
    (LOGS / "judgecal_judgments.jsonl", "jsonl", "judgecal judgments", None),
    (LOGS / "judgekit_graded.jsonl", "jsonl", "judgekit", "jsonl"),
    (LOGS / "mt_bench_gpt-4_single.jsonl", "jsonl", "mt-bench single", "jsonl"),
    (LOGS / "inspect_ai_model_graded_qa.json", "json", "inspect_ai", "error"),
    (LOGS / "inspect_ai_model_graded_qa.eval", "csv", "inspect_ai", "error"),
    (LOGS / "promptfoo_llm_rubric.json", "json", "promptfoo", "error"),
    (ROOT / "tests" / "data" / "bad" / "garbage.parquet", "parquet", "parquet", "error"),
]


@pytest.mark.parametrize("path, container, most, as_ratings", SEEN, ids=[p.name for p, *_ in SEEN])
def test_real_files_are_recognised(path, container, most, as_ratings):
    data = path.read_bytes()
    assert detect(path.name, data).name == container
    assert identify(path.name, data).name == most
    if as_ratings is None:  # a pairwise judge log given as ratings: refused, its shape named
        with pytest.raises(InputError) as e:
            read_source(path.name, data)
        assert str(e.value) == (f"{path.name}: this is an LLM-judge log ({most}), not ratings: audit it with "
                                "'agreebound calibrate' or on the Judge calibration page")
    elif as_ratings == "error":
        with pytest.raises(InputError):
            read_source(path.name, data)
    else:
        assert read_source(path.name, data).format == as_ratings


def test_an_arrow_file_of_lists_is_read_through_its_shape(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc as ipc

    table = pa.table({"id": [1, 2], "annotators": [["a", "b"], ["a", "b"]], "labels": [["x", "y"], ["x", "x"]]})
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    data = sink.getvalue().to_pybytes()
    assert detect("d.arrow", data).name == "arrow"
    source = read_source("d.arrow", data)
    assert source.format == "dataset-lists" and source.table.n_rows == 4
