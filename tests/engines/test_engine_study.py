"""``panel --study`` and ``--relabel`` out of core: DuckDB returns each dimension's (unit, rater,
value) counts, units and raters in the order of their first row, and the one annotation study gives
the in-memory study field for field and the same relabel file byte for byte (Spark's one test is in
test_spark_engine.py); a study over the limit is refused before anything is fetched."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agreebound.core.errors import InputError
from agreebound.engines.common import LongColumns
from agreebound.engines.duckdb_engine import rating_triples
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
PANEL = ROOT / "sample_data" / "detector_panel.csv"


def studied(capsys, tmp_path: Path, *argv: object) -> tuple[dict[str, object], dict[str, object], bytes]:
    """(each dimension's JSON study, each dimension's verdict, the --relabel CSV) of ``panel argv --study``."""
    queue = tmp_path / f"queue-{len(list(tmp_path.iterdir()))}.csv"
    code, out, err = run(capsys, "panel", *argv, "--study", "--relabel", queue, "--json")
    assert code in (0, 1, 2), err
    dims = json.loads(out)["panel"]["dimensions"]
    return {d["dimension"]: d["study"] for d in dims}, {d["dimension"]: d["verdict"] for d in dims}, queue.read_bytes()


def test_the_sample_panel_s_study_out_of_core_is_the_in_memory_one(capsys, tmp_path):
    memory, verdicts, queue = studied(capsys, tmp_path, PANEL, "--engine", "numpy")
    duck, duck_verdicts, duck_queue = studied(capsys, tmp_path, PANEL, "--engine", "duckdb")
    assert duck == memory and duck_verdicts == verdicts
    assert duck_queue == queue  # the dimensions in the file's order, each queue ranked alike
    v = duck["violence"]  # the raters in the order of their first row (not by name), as in memory
    assert [r["rater"] for r in v["raters"]] == ["detector-lexicon", "detector-classifier", "detector-llm", "human"]
    assert v["units"] == 600 and v["queue"][0]["unit"] == "item-0135" and v["queue"][0]["alpha_impact"] == \
        "1100480168/1607881625427"
    assert queue.decode().splitlines()[1].startswith("violence,1,item-0135,0,")
    # a detector alone against the people, out of core as in memory (the sample's human is "human")
    memory, _, queue = studied(capsys, tmp_path, PANEL, "--engine", "numpy", "--relabel-rule", "judge-alone")
    duck, _, duck_queue = studied(capsys, tmp_path, PANEL, "--engine", "duckdb", "--relabel-rule", "judge-alone")
    assert duck == memory and duck_queue == queue
    assert "where the 1 human says" in duck["violence"]["queue"][0]["why"]


def hard_rows(seed: int) -> list[tuple[str, str, str, str]]:
    """Two dimensions in shuffled rows: one of labels with a missing spelling, one of numbers
    ("1" and "1.0" one number); unit and rater names the reader normalises (surrounding spaces, a
    decomposed accent); a unit whose every value is missing; a rater who rates one dimension only."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 60)
    rows = []
    for d, texts in (("tone", ["calm", "tense", "angry"]), ("grade", ["1", "2", "3"])):
        for u in range(60):
            for r, skill in (("ann", 0.9), ("bo", 0.7), ("caf\u00e9", 0.5), ("spam", 0.0)):
                if d == "grade" and r == "spam" or rng.random() < 0.1:
                    continue
                said = int(truth[u]) if rng.random() < skill else int(rng.integers(0, 3))
                text = texts[said]
                if d == "grade" and text == "1" and rng.random() < 0.5:
                    text = "1.0"
                if d == "tone" and rng.random() < 0.05:
                    text = "NA"
                name = f"item-{u:02d}" if u % 7 else f"  item-{u:02d} "
                rater = unicodedata.normalize("NFD", r) if u % 2 else r
                rows.append((d, name, rater, text))
        rows.append((d, "item-all-missing", "ann", "NA"))
    return [rows[i] for i in rng.permutation(len(rows))]


def write_csv(path: Path, rows) -> None:
    path.write_text("dimension,unit,rater,value\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("seed", [1, 2])
def test_shuffled_rows_names_to_normalise_and_two_kinds_of_values_study_as_in_memory(capsys, tmp_path, seed):
    rows = hard_rows(seed)
    whole = tmp_path / "whole.csv"
    write_csv(whole, rows)
    memory, verdicts, queue = studied(capsys, tmp_path, whole, "--engine", "numpy")
    assert set(memory) == {"tone", "grade"} and memory["tone"]["units"] == 61  # the unit with no value counts
    assert [r["rater"] for r in memory["grade"]["raters"]] == [r for r in dict.fromkeys(
        unicodedata.normalize("NFC", r[2]) for r in rows if r[0] == "grade")]
    duck, duck_verdicts, duck_queue = studied(capsys, tmp_path, whole, "--engine", "duckdb")
    assert duck == memory and duck_verdicts == verdicts and duck_queue == queue
    # the same rows in two files (a pattern): the first rows of the first file come first
    (tmp_path / "parts").mkdir()
    write_csv(tmp_path / "parts" / "a.csv", rows[: len(rows) // 3])
    write_csv(tmp_path / "parts" / "b.csv", rows[len(rows) // 3:])
    parts, _, parts_queue = studied(capsys, tmp_path, tmp_path / "parts" / "*.csv", "--engine", "duckdb")
    assert parts == memory and parts_queue == queue
    # and as Parquet, in row groups
    table = pa.table({k: [r[i] for r in rows] for i, k in enumerate(("dimension", "unit", "rater", "value"))})
    pq.write_table(table, tmp_path / "whole.parquet", row_group_size=97)
    pmemory, _, pqueue = studied(capsys, tmp_path, tmp_path / "whole.parquet", "--engine", "numpy")
    pduck, _, pduck_queue = studied(capsys, tmp_path, tmp_path / "whole.parquet", "--engine", "duckdb")
    assert pduck == pmemory and pduck_queue == pqueue


def test_one_dimension_asked_for_is_the_one_studied(capsys, tmp_path):
    memory, _, queue = studied(capsys, tmp_path, PANEL, "--engine", "numpy", "--dimension", "insult")
    duck, _, duck_queue = studied(capsys, tmp_path, PANEL, "--engine", "duckdb", "--dimension", "insult")
    assert list(duck) == ["insult"] and duck == memory and duck_queue == queue


def test_the_triples_are_the_ratings_counted_and_a_study_over_the_limit_is_refused(tmp_path):
    f = tmp_path / "r.csv"
    write_csv(f, [("q", "u2", "b", "x"), ("q", "u1", "a", "y"), ("q", "u2", "a", "x"), ("q", "u3", "c", "NA"),
                  ("s", "u1", "a", "1.0"), ("s", "u1", "b", "1")])
    coding, found = rating_triples([str(f)], LongColumns(dimension="dimension"))
    assert list(found) == ["q", "s"] and coding.values == ("1", "1.0", "x", "y")
    q = found["q"]
    assert (q.units, q.raters) == (("u2", "u1", "u3"), ("b", "a", "c"))  # the order of their first row
    assert list(zip(q.unit.tolist(), q.rater.tolist(), q.code.tolist(), q.count.tolist())) == \
        [(0, 0, 2, 1), (0, 1, 2, 1), (1, 1, 3, 1)]  # u3's only value is missing: no triple
    with pytest.raises(InputError) as e:
        rating_triples([str(f)], LongColumns(dimension="dimension"), limit=4)
    assert str(e.value).endswith("5 ratings: the annotation study holds every rating's unit, rater and code in "
                                 "memory and takes at most 4; choose one dimension (--dimension) or a sample of the "
                                 "units, or leave out --study")
