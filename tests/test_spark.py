"""Spark in local mode gives DuckDB's and the in-memory reader's counts: numbers and labels, many
categories (the join path), a file split into Parquet parts, and the CLI's exact verdicts.
Needs pyspark and Java 17, which `make test` installs: their absence fails, it is not skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agreebound import counts as C
from agreebound.cli import main
from agreebound.engines.common import LongColumns
from agreebound.engines.duckdb_engine import panel_counts as duck_counts
from agreebound.formats import import_ratings

ROOT = Path(__file__).resolve().parents[1]
S = ROOT / "sample_data"


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.fail("--engine spark needs Java 17 (`make test` installs Debian's openjdk-17-jre-headless)", pytrace=False)
    try:
        from agreebound.engines.spark_engine import session
    except ImportError as e:
        pytest.fail(f"pyspark is missing ({e}); `make test` installs it", pytrace=False)
    s = session("local[2]")
    yield s
    s.stop()


def rows_of(seed: int, values: list[str], units: int = 50) -> list[tuple[str, str, str, str]]:
    rng = np.random.default_rng(seed)
    rows = [(d, f"u{u}", f"model-{r}", values[int(rng.integers(0, len(values)))])
            for d in ("toxicity", "spam") for u in range(units) for r in range(4) if rng.random() < 0.85]
    return [rows[i] for i in rng.permutation(len(rows))]


def write(path: Path, rows) -> None:
    path.write_text("dimension,unit,rater,value\n" + "".join(",".join(r) + "\n" for r in rows))


@pytest.mark.parametrize("values", [["1", "2", "3.5", "7", "1.0", "NA", ""], ["spam", "ham", "eggs", "n/a"],
                                    [str(i) for i in range(30)]], ids=["numbers", "labels", "many"])
def test_spark_counts_are_duckdbs_and_the_readers(spark, tmp_path, values):
    from agreebound.engines.spark_engine import panel_counts

    f = tmp_path / "ratings.csv"
    write(f, rows_of(len(values), values))
    cols = LongColumns(dimension="dimension")
    sp, dk = panel_counts([str(f)], cols, spark=spark), duck_counts([str(f)], cols)
    panels = import_ratings(f.name, f.read_bytes()).panels
    assert set(sp) == set(dk) == set(panels)
    for d, p in panels.items():
        mine = C.from_coded(p.coded, list(p.raters), d)
        assert sp[d].equals(dk[d]) and sp[d].equals(mine), d


def test_spark_reads_parquet_parts_as_the_whole(spark, tmp_path):
    from agreebound.engines.spark_engine import panel_counts

    rows = rows_of(3, ["0", "1", "2"], units=80)
    write(tmp_path / "whole.csv", rows)
    parts = tmp_path / "parts"
    parts.mkdir()
    for i in range(3):
        chunk = rows[i::3]
        pq.write_table(pa.table({k: [r[j] for r in chunk] for j, k in enumerate(("dimension", "unit", "rater", "value"))}),
                       parts / f"part-{i}.parquet")
    cols = LongColumns(dimension="dimension")
    whole = duck_counts([str(tmp_path / "whole.csv")], cols)
    split = panel_counts([str(parts / "*.parquet")], cols, spark=spark)
    assert all(split[d].equals(whole[d]) for d in whole)


def test_cli_engine_spark_gives_the_in_memory_verdicts(spark, capsys):
    assert main(["panel", str(S / "detector_panel.csv"), "--engine", "spark", "--json"]) == 1
    sp = json.loads(capsys.readouterr().out)
    assert main(["panel", str(S / "detector_panel.csv"), "--json"]) == 1
    mem = json.loads(capsys.readouterr().out)
    pick = lambda r: sorted((d["dimension"], d["verdict"], d["alpha"]["exact"], d["spread"]["exact"],  # noqa: E731
                             d["alpha"]["interval"]["low"]) for d in r["panel"]["dimensions"])
    assert pick(sp) == pick(mem)
