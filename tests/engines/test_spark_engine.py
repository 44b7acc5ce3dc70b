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

from agreebound.panel import counts as C
from agreebound.cli.main import main
from agreebound.engines.common import LongColumns
from agreebound.engines.duckdb_engine import panel_counts as duck_counts
from agreebound.io.ratings import import_ratings

ROOT = Path(__file__).resolve().parents[2]
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


def test_spark_reads_each_dimension_s_values_on_its_own(spark, tmp_path):
    """ "01" (a label) in one dimension leaves another dimension's "1" and "1.0" one number, as in memory."""
    from agreebound.engines.spark_engine import panel_counts
    from tests.engines.test_duckdb_engine import NUMBERS_BESIDE_LABELS

    f = tmp_path / "glob.csv"
    write(f, NUMBERS_BESIDE_LABELS)
    sp = panel_counts([str(f)], LongColumns(dimension="dimension"), spark=spark)
    panels = import_ratings(f.name, f.read_bytes()).panels
    assert (sp["q"].kind, sp["q"].categories, sp["s"].kind) == ("number", (1, 2), "label")
    for d, p in panels.items():
        assert sp[d].equals(C.from_coded(p.coded, list(p.raters), d)), d


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


def test_spark_compares_names_as_the_reader_does(spark, tmp_path):
    """Trailing spaces, a zero-width space, decomposed accents: one name in memory, on DuckDB and
    on Spark."""
    from agreebound.engines.spark_engine import panel_counts

    rows = [("tox", "u1", "a", "1"), ("tox ", "u1", "b", "2"), ("tox", "u2", "a", "1"), ("tox", "u2\u200b", "b", "1"),
            ("tox", "u3", "Ren\u00e9", "2"), ("tox", "u3", "Rene\u0301", "2"), ("tox", "u3", "b", "2"),
            ("tox", " u4", "a", "1"), ("tox", "u4", "b", "2"), ("spam", "u1", "a", "1"), ("spam", "u1", "b", "1")]
    f = tmp_path / "names.csv"
    write(f, rows)
    cols = LongColumns(dimension="dimension")
    with pytest.raises(Exception) as twice:  # René and Rene + combining accent are one rater: u3 twice
        import_ratings(f.name, f.read_bytes())
    assert "again" in str(twice.value)
    for engine in (lambda: panel_counts([str(f)], cols, spark=spark), lambda: duck_counts([str(f)], cols)):
        with pytest.raises(Exception) as e:
            engine()
        assert "again" in str(e.value)
    write(f, [r for r in rows if r[2] != "Rene\u0301"])
    sp, dk = panel_counts([str(f)], cols, spark=spark), duck_counts([str(f)], cols)
    panels = import_ratings(f.name, f.read_bytes()).panels
    assert set(sp) == set(dk) == set(panels) == {"tox", "spam"}
    for d in panels:
        assert sp[d].equals(dk[d])
        assert sp[d].n_units == len(panels[d].units) and set(sp[d].raters) == set(panels[d].raters) == set(dk[d].raters)


def test_spark_trims_a_name_s_last_line_break_as_the_reader_does(spark, tmp_path):
    """A name ending in a line break is that name trimmed (Java's ``$`` alone took it for plain):
    Parquet here, as Spark's CSV reader splits a quoted field's line break into two rows."""
    import csv

    from agreebound.engines.spark_engine import panel_counts

    f, g = tmp_path / "r.csv", tmp_path / "r.parquet"
    rows = [("u1", "a", "1"), ("u1", "b", "2"), ("u2", "a\n", "1"), ("u2", "b", "1"), ("u3\n", "a", "2"), ("u3", "b", "2")]
    with f.open("w", newline="") as out:
        csv.writer(out).writerows([("unit", "rater", "value"), *rows])
    pq.write_table(pa.table({k: [r[j] for r in rows] for j, k in enumerate(("unit", "rater", "value"))}), g)
    panel = import_ratings(f.name, f.read_bytes()).panels["all"]
    sp = panel_counts([str(g)], LongColumns(), spark=spark)["all"]
    assert set(sp.raters) == set(panel.raters) == {"a", "b"}
    assert sp.n_units == len(panel.units) == 3 and sp.equals(duck_counts([str(g)], LongColumns())["all"])


@pytest.mark.parametrize("unit", [("item",), ("item", "part")], ids=["one unit column", "two"])
def test_spark_compares_unit_names_as_duckdb_when_only_they_are_respelled(spark, tmp_path, unit):
    """Plain raters and dimension, respelled units only ("u1 ", a zero-width space): the first
    pass notices them from the units alone, and the counts are DuckDB's."""
    from agreebound.engines.spark_engine import panel_counts

    rows = [("u1", "a", "1"), ("u1 ", "b", "2"), ("u2", "a", "1"), ("u2\u200b", "b", "1"), ("u3", "a", "2"),
            ("u3", "b", "2")]
    f = tmp_path / "r.csv"
    f.write_text("item,part,rater,value\n" + "".join(f"{u},{'p' if len(unit) > 1 else ''},{r},{v}\n"
                                                     for u, r, v in rows))
    cols = LongColumns(unit=unit)
    sp, dk = panel_counts([str(f)], cols, spark=spark)["all"], duck_counts([str(f)], cols)["all"]
    assert sp.equals(dk) and sp.n_units == 3 and sp.n_ratings == 6


@pytest.mark.parametrize("raters", [63, 64], ids=["one-pass mask", "above the mask: own pass"])
def test_spark_finds_a_rater_twice_in_every_case_duckdb_does(spark, tmp_path, raters):
    """Up to 63 raters, a rater rating a unit twice is found in the pass that counts the histograms;
    above, in a pass of its own. Either way: said before a bad value, found among missing cells too,
    and a unit whose ratings are all missing counts nowhere, as on DuckDB."""
    from agreebound.engines.spark_engine import panel_counts

    cols = LongColumns(dimension="dimension")
    rows = [("tox", f"u{u}", f"r{r:02d}", str((u * r) % 3)) for u in range(4) for r in range(raters)]
    rows += [("tox", "u9", "r00", "NA"), ("tox", "u9", "r01", ""), ("spam", "u1", "r00", "1"), ("spam", "u1", "r01", "2")]
    f = tmp_path / "r.csv"
    write(f, rows)
    sp, dk = panel_counts([str(f)], cols, spark=spark), duck_counts([str(f)], cols)
    assert set(sp) == {"tox", "spam"} and all(sp[d].equals(dk[d]) for d in dk)
    assert sp["tox"].n_units == 4 and len(sp["tox"].raters) == raters  # u9 (missing cells only) is no unit
    twice = "rater 'r01' rated unit 'u9' again; each rater rates a unit once"
    for extra in ([("tox", "u9", "r01", "NA")],  # twice among missing cells only
                  [("tox", "u2", "r01", "2"), ("spam", "u1", "r02", "1" * 40)]):  # twice, and a bad value
        write(f, rows + extra)
        with pytest.raises(Exception) as e:
            panel_counts([str(f)], cols, spark=spark)
        assert str(e.value).endswith(twice.replace("u9", extra[0][1])), str(e.value)


@pytest.mark.parametrize("level, values", [("nominal", ["a", "b", "c"]), ("interval", ["1", "2", "3.5", "7"])])
def test_spark_rater_diagnostics_are_duckdbs(spark, tmp_path, level, values):
    from agreebound.engines.duckdb_engine import rater_diagnostics as duck
    from agreebound.engines.spark_engine import rater_diagnostics

    rng = np.random.default_rng(len(values))
    rows = [("all", f"u{u:02d}", f"r{r}", values[int(rng.integers(0, len(values)))])
            for u in range(40) for r in range(4) if rng.random() < 0.85]
    f = tmp_path / "r.csv"
    write(f, rows)
    cols = LongColumns(dimension="dimension")
    s_without, s_top = rater_diagnostics([str(f)], cols, "all", level, spark=spark)
    d_without, d_top = duck([str(f)], cols, "all", level)
    assert s_without == d_without and len(s_without) == 4 and all(v is not None for v in s_without.values())
    assert [u for u, _ in s_top] == [u for u, _ in d_top] and len(s_top) == 10
    assert all(abs(a - b) < 1e-12 for (_, a), (_, b) in zip(s_top, d_top))


# --- the judge audit on Spark ----------------------------------------------------------------------

@pytest.mark.parametrize("seed, parquet", [(0, False), (1, True)])
def test_spark_judge_audit_is_the_in_memory_one(spark, tmp_path, seed, parquet):
    from dataclasses import replace

    from agreebound.judge.decide import decide
    from agreebound.judge.frames import measure_frames
    from agreebound.engines.judge_spark import judge_measurement
    from agreebound.judge.counts import from_cases
    from agreebound.app.synthetic import judge_frames
    from agreebound.judge.intervals import judge_diagnostics
    from tests.engines.test_judge_duckdb import BEHAVIOURS, write_trio

    contract, refs, obs, header = judge_frames(120, 3, BEHAVIOURS[1], seed=seed)
    obs = obs.sample(frac=1, random_state=seed).reset_index(drop=True)
    c, rs, os_ = write_trio(tmp_path, contract, refs, obs, header, parts=1 if not parquet else 3, parquet=parquet)
    m = judge_measurement(c.name, c.read_bytes(), [str(p) for p in rs], [str(p) for p in os_], spark=spark)[2]
    expected = measure_frames(contract, refs, obs, **header)
    assert m.rates == expected.rates and m.counts == from_cases(expected.cases)
    strict = replace(contract.thresholds, strict=True)
    assert decide(m) == decide(expected) and decide(m, strict) == decide(expected, strict)
    assert judge_diagnostics(m) == judge_diagnostics(expected)


def test_spark_bias_counts_and_measures_are_the_in_memory_ones(spark, tmp_path):
    """Named generators (the judge's own, some cases sharing one), ties and equal lengths: Spark's
    counts beside the seed's and every bias measure equal the in-memory engine's and DuckDB's."""
    from agreebound.engines.judge_spark import judge_measurement
    from agreebound.judge.counts import EXTRA_RATE_NAMES
    from tests.engines.test_judge_duckdb import NEW_FIELDS, in_memory, named_frames, out_of_core, write_trio

    contract, refs, obs, header, gens, _ = named_frames(120, 2, 3)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected = in_memory(c, r, o).measurement
    m = judge_measurement(c.name, c.read_bytes(), [str(r)], [str(o)], spark=spark)[2]
    for name in EXTRA_RATE_NAMES:
        assert m.counts.rates[name] == expected.counts.rates[name], name
    for name in NEW_FIELDS:
        assert getattr(m.counts, name) == getattr(expected.counts, name), name
    assert m.counts == expected.counts == out_of_core(c, [r], [o]).counts
    assert sum(m.counts.verdicts.values()) == int((gens[:, 0] != gens[:, 1]).sum()) < len(gens)
    assert m.bias == expected.bias and m.bias.to_dict() == expected.bias.to_dict()


@pytest.mark.parametrize("role, row, field, value", [
    ("observations", None, None, None),                        # a case too large to pack
    ("observations", 95, "candidate_b_tokens", "many"),        # a cell that does not parse
    ("references", 12, "preferred_candidate", "both"),         # a record rule
    ("observations", 101, "repetition", "1"),                  # a duplicate key
    ("observations", 141, "candidate_b_tokens", "7"),          # metadata changes
    ("observations", 155, "repetition", "9"),                  # incomplete
], ids=["crowded", "parse", "record", "duplicate", "metadata", "incomplete"])
def test_spark_judge_reports_bad_rows_as_in_memory(spark, tmp_path, role, row, field, value):
    from agreebound.engines.judge_spark import judge_measurement
    from agreebound.core.errors import InputError
    from tests.engines.test_judge_duckdb import _text_frames, crowded_case, in_memory

    contract, r, o, header = _text_frames()
    if row is None:
        o = crowded_case(o)
    else:
        (r if role == "references" else o).loc[row, field] = value
    c = tmp_path / "contract.json"
    c.write_text(json.dumps({"contract": __import__("dataclasses").asdict(contract), "snapshot": header}))
    rp, op = tmp_path / "references.csv", tmp_path / "observations.csv"
    rp.write_text(r.to_csv(index=False))
    op.write_text(o.to_csv(index=False))
    with pytest.raises(InputError) as expected:
        in_memory(c, rp, op)
    with pytest.raises(InputError) as got:
        judge_measurement(c.name, c.read_bytes(), [str(rp)], [str(op)], spark=spark)
    assert str(got.value) == str(expected.value)


def test_cli_calibrate_engine_spark(spark, capsys):
    c, r, o = (S / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv"))
    base = ["calibrate", str(c), "--references", str(r), "--observations", str(o), "--json"]
    assert main([*base, "--engine", "numpy"]) == 1
    in_memory = json.loads(capsys.readouterr().out)
    assert main([*base, "--engine", "spark", "--master", "local[2]"]) == 1
    assert json.loads(capsys.readouterr().out) == in_memory


def test_spark_slices_and_kinds_of_case_are_duckdbs(spark, tmp_path):
    """Spark counts each slice and the battles' kinds of case as DuckDB does (the same SQL), so the
    report's slices and the ranking out of core are the in-memory ones on Spark too
    (tests/engines/test_judge_duckdb.py: DuckDB's against the in-memory path)."""
    from agreebound.engines.judge_duckdb import judge_audit as duck_audit
    from agreebound.engines.judge_spark import judge_audit
    from agreebound.judge.ranking import kinds_frame
    from tests.engines.test_judge_duckdb import sliced_trio

    c, [r], [o] = sliced_trio(tmp_path, seed=5, cases=120)
    args = (c.name, c.read_bytes(), [str(r)], [str(o)])
    got = judge_audit(*args, spark=spark, slices=True, kinds=True)[2]
    expected = duck_audit(*args, slices=True, kinds=True)[2]
    assert list(got.slices) == ["template"] and got.slices == expected.slices
    assert got.refused == expected.refused and set(got.refused) == {"rater", "turn"}
    assert got.kinds is not None and expected.kinds is not None
    assert kinds_frame(got.kinds).equals(kinds_frame(expected.kinds))


def test_cli_study_and_relabel_on_spark_are_the_in_memory_ones(spark, capsys, tmp_path):
    """panel --study --relabel --engine spark: the sample panel's study, field for field, and its
    relabel file, byte for byte, as in memory (and so as DuckDB's: tests/engines/test_engine_study.py);
    then shuffled rows with names to normalise, in two files read as a pattern (the first file's
    rows first, each file's rows in order)."""
    from tests.engines.test_engine_study import hard_rows, studied, write_csv

    memory, verdicts, queue = studied(capsys, tmp_path, S / "detector_panel.csv", "--engine", "numpy")
    sp, sp_verdicts, sp_queue = studied(capsys, tmp_path, S / "detector_panel.csv", "--engine", "spark")
    assert sp == memory and sp_verdicts == verdicts and sp_queue == queue
    rows = hard_rows(1)
    write_csv(tmp_path / "whole.csv", rows)
    (tmp_path / "parts").mkdir()
    write_csv(tmp_path / "parts" / "a.csv", rows[: len(rows) // 3])
    write_csv(tmp_path / "parts" / "b.csv", rows[len(rows) // 3:])
    memory, _, queue = studied(capsys, tmp_path, tmp_path / "whole.csv", "--engine", "numpy")
    sp, _, sp_queue = studied(capsys, tmp_path, tmp_path / "parts" / "*.csv", "--engine", "spark")
    assert sp == memory and sp_queue == queue
