"""Engines give one answer: DuckDB's counts of long ratings equal the in-memory reader's, in any row
order and any split into files (CSV or Parquet), so every exact fraction and verdict is the same."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from agreebound.panel import counts as C
from agreebound.panel.alpha import alpha
from agreebound.panel.measure import measure_counts, measure_panels
from agreebound.cli.main import main
from tests.support.cli import run
from agreebound.engines import duckdb_engine, numpy_engine
from agreebound.engines.duckdb_engine import LongColumns, panel_counts
from agreebound.core.errors import InputError
from agreebound.io.ratings import import_ratings
from agreebound.panel.categories import LEVELS

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


def long_rows(seed: int, labels: bool, units: int = 40, raters: int = 5) -> list[tuple[str, str, str, str]]:
    rng = np.random.default_rng(seed)
    values = ["spam", "ham", "eggs", "", "NA"] if labels else ["1", "2", "3.5", "7", "10", "1.0", "NA", ""]
    rows = []
    for d in ("toxicity", "spam"):
        for u in range(units):
            for r in range(raters):
                if rng.random() < 0.85:
                    rows.append((d, f"u{u:03d}", f"model-{r}", values[int(rng.integers(0, len(values)))]))
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def write_csv(path: Path, rows) -> None:
    path.write_text("dimension,unit,rater,value\n" + "".join(",".join(r) + "\n" for r in rows))


@pytest.mark.parametrize("route", ["one-scan", "histogram-as-one-number", "histogram-as-columns"])
@pytest.mark.parametrize("seed", range(12))
def test_duckdb_counts_equal_the_readers(tmp_path, seed, route, monkeypatch):
    """DuckDB counts plain data in one scan (each unit's histogram of texts as one number); the
    general path groups unit histograms as one number where it fits, else as k columns: the same
    counts as the in-memory reader's on every route, unit patterns included."""
    made, scanned = [], []
    real, one = duckdb_engine._packed_patterns, duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_packed_patterns",
                        lambda *a: made.append(route == "histogram-as-one-number" and real(*a)) or made[-1])
    monkeypatch.setattr(duckdb_engine, "_one_scan",
                        lambda *a: scanned.append(one(*a) if route == "one-scan" else None) or scanned[-1])
    labels = seed % 3 == 0
    rows = long_rows(seed, labels)
    f = tmp_path / "ratings.csv"
    write_csv(f, rows)
    imported = import_ratings(f.name, f.read_bytes())
    got = panel_counts([str(f)], LongColumns(dimension="dimension"))
    # the route asked for: one scan, or one pattern table made as asked
    assert (scanned[0] is not None, made) == ((True, []) if route == "one-scan" else
                                              (False, [route == "histogram-as-one-number"]))
    assert set(got) == set(imported.panels)
    for dim, panel in imported.panels.items():
        mine = numpy_engine.panel_counts(panel)  # the in-memory engine: the same counts
        assert got[dim].equals(mine), dim
        for level in (("nominal",) if labels else LEVELS):
            a, b = alpha(mine, level), alpha(got[dim], level)
            assert (a.value, a.seed_permil, a.pairs, a.observed_disagreement, a.coincidence_scaled) == \
                (b.value, b.seed_permil, b.pairs, b.observed_disagreement, b.coincidence_scaled)


#: One dimension's texts are numbers ("1" and "1.0" one value); another's hold "01", a label (a
#: leading zero), which makes all of its texts labels. Each dimension is read on its own.
NUMBERS_BESIDE_LABELS = [("q", "u1", "a", "1"), ("q", "u1", "b", "1.0"), ("q", "u2", "a", "2"), ("q", "u2", "b", "2"),
                         ("q", "u3", "a", "1"), ("q", "u3", "b", "1"), ("s", "u1", "a", "01"), ("s", "u1", "b", "1"),
                         ("s", "u2", "a", "2"), ("s", "u2", "b", "2.0")]


@pytest.mark.parametrize("route", ["one-scan", "histogram-as-one-number", "histogram-as-columns"])
def test_each_dimension_reads_its_values_on_its_own_as_in_memory(tmp_path, route, monkeypatch):
    """A review found DuckDB reading the texts of all dimensions at once: "01" in dimension s made
    q's "1" and "1.0" two labels (alpha 6/11, REPORT_ONLY) where the in-memory reader reads q's
    values as the numbers 1 and 2 (alpha 1, ENFORCE). Every route now counts each dimension's
    categories as in memory."""
    real, one = duckdb_engine._packed_patterns, duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_packed_patterns",
                        lambda *a: route == "histogram-as-one-number" and real(*a))
    monkeypatch.setattr(duckdb_engine, "_one_scan", lambda *a: one(*a) if route == "one-scan" else None)
    f = tmp_path / "glob.csv"
    write_csv(f, NUMBERS_BESIDE_LABELS)
    got = panel_counts([str(f)], LongColumns(dimension="dimension"))
    panels = import_ratings(f.name, f.read_bytes()).panels
    assert (got["q"].kind, got["q"].categories, got["s"].kind, got["s"].categories) == \
        ("number", (1, 2), "label", ("01", "1", "2", "2.0"))
    for d, panel in panels.items():
        assert got[d].equals(numpy_engine.panel_counts(panel)), d
    assert alpha(got["q"], "nominal").value == 1


@pytest.mark.parametrize("route", ["one-scan", "general"])
def test_a_dimension_with_no_value_reads_as_in_memory(tmp_path, route, monkeypatch):
    """A dimension whose every value is missing, beside one of labels: numbers with no category,
    as the in-memory reader reads it (it took the other dimension's label kind)."""
    one = duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_one_scan", lambda *a: one(*a) if route == "one-scan" else None)
    f = tmp_path / "empty.csv"
    write_csv(f, [("q", "u1", "a", "NA"), ("q", "u1", "b", "NA"), ("s", "u1", "a", "x"), ("s", "u1", "b", "y")])
    got = panel_counts([str(f)], LongColumns(dimension="dimension"))
    for d, panel in import_ratings(f.name, f.read_bytes()).panels.items():
        assert got[d].equals(numpy_engine.panel_counts(panel)), d
    assert (got["q"].kind, got["q"].categories, got["s"].kind) == ("number", (), "label")


@pytest.mark.parametrize("route", ["one-scan", "general"])
def test_a_bad_value_names_the_same_unit_and_rater_every_run(tmp_path, route, monkeypatch):
    """A value that cannot be read is said with a unit and a rater holding it: the first of each by
    name (with two threads the first found changed from run to run), a unit of two columns shown
    with its parts joined by " | " as in memory (it was shown with a raw U+001F)."""
    one = duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_one_scan", lambda *a: one(*a) if route == "one-scan" else None)
    bad = "1" * 25
    f = tmp_path / "parts.csv"
    f.write_text("unit,part,rater,value\n" + "".join(f"u{u},p{p},{r},{bad if (u, r) in ((3, 'c'), (2, 'b')) else u % 2}\n"
                                                     for u in range(1, 5) for p in (1, 2) for r in "abc"))
    messages = set()
    for _ in range(3):
        with pytest.raises(InputError) as e:
            panel_counts([str(f)], LongColumns(unit=("unit", "part")), threads=2)
        messages.add(str(e.value))
    [said] = messages
    assert "(unit 'u2 | p1', rater 'b')" in said and "\x1f" not in said, said


def test_one_scan_counts_only_what_its_head_proves_and_else_gives_way(tmp_path, monkeypatch):
    """The one-scan route reads the raters' names and the value texts from the head of the data
    (here its first 8 rows). A text found only after it, or a name the reader would normalise, send
    the data to the general path; raters it did not name are told apart by a pass of their own,
    which also finds a rater who rated a unit twice. Every route gives the in-memory reader's
    counts, or its error."""
    monkeypatch.setattr(duckdb_engine, "HEAD_ROWS", 8)
    taken = []
    one = duckdb_engine._one_scan

    def recorded(*a):
        got = one(*a)
        taken.append(got is not None)
        return got
    monkeypatch.setattr(duckdb_engine, "_one_scan", recorded)
    head = [("q", f"u{u}", r, str((u + i) % 3)) for u in range(4) for i, r in enumerate("ab")]  # 8 rows: a, b; 0-2
    cases = {"plain": ([("q", "u9", "a", "1"), ("q", "u9", "b", "2")], True),
             "late_text": ([("q", "u9", "a", "1"), ("q", "u9", "b", "7")], False),
             "one_new_rater": ([("q", "u9", "a", "1"), ("q", "u9", "z", "2")], True),
             "two_new_raters": ([("q", "u9", "y", "1"), ("q", "u9", "z", "2")], True),
             "accented": ([("q", "caf\u00e9", "b", "1")], False),
             "new_rater_twice": ([("q", "u9", "z", "1"), ("q", "u9", "z", "2")], None)}
    for name, (tail, fast) in cases.items():
        rows = ([("q", "caf\u00e9", "a", "0")] if name == "accented" else []) + head + tail
        f = tmp_path / f"{name}.csv"
        write_csv(f, rows)
        taken.clear()
        if fast is None:  # the in-memory reader's error, from the one-scan route's own pass
            with pytest.raises(InputError) as duck:
                panel_counts([str(f)], LongColumns(dimension="dimension"))
            with pytest.raises(InputError) as memory:
                import_ratings(f.name, f.read_bytes())
            assert taken == [] and "rater 'z' rated unit 'u9' again" in str(duck.value), str(duck.value)
            assert "rater 'z' rated unit 'u9' again" in str(memory.value), str(memory.value)
            continue
        got = panel_counts([str(f)], LongColumns(dimension="dimension"))
        assert taken == [fast], name
        panel = import_ratings(f.name, f.read_bytes()).panels["q"]
        assert got["q"].equals(numpy_engine.panel_counts(panel)), name


def test_a_unit_whose_histogram_digit_carried_is_counted_by_the_general_path(tmp_path, monkeypatch):
    """With 16 texts a unit's histogram is held in base 10: a unit with 12 ratings of one text by
    raters the head did not name carries a digit (the digits' sum falls below its ratings), so the
    general path counts it; the counts are the in-memory reader's."""
    monkeypatch.setattr(duckdb_engine, "HEAD_ROWS", 32)
    taken = []
    one = duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_one_scan", lambda *a: taken.append(one(*a)) or taken[-1])
    head = [("q", f"u{t}", r, str(t)) for t in range(16) for r in "ab"]  # 32 rows: raters a, b; 16 texts
    f = tmp_path / "carry.csv"
    write_csv(f, head + [("q", "u99", f"new{i}", "3") for i in range(12)])
    got = panel_counts([str(f)], LongColumns(dimension="dimension"))
    assert taken == [None]
    assert got["q"].equals(numpy_engine.panel_counts(import_ratings(f.name, f.read_bytes()).panels["q"]))
    assert got["q"].units_by_m[12] == 1


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_split_file_gives_the_answer_of_the_whole(tmp_path, fmt):
    rows = long_rows(7, False, units=120)
    whole = tmp_path / "whole.csv"
    write_csv(whole, rows)
    parts = tmp_path / "parts"
    parts.mkdir()
    cuts = [0, 13, 200, 201, 600, len(rows)]
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        chunk = rows[a:b]
        if fmt == "csv":
            write_csv(parts / f"part-{i}.csv", chunk)
        else:
            table = pa.table({k: [r[j] for r in chunk] for j, k in enumerate(("dimension", "unit", "rater", "value"))})
            pq.write_table(table, parts / f"part-{i}.parquet")
    one = panel_counts([str(whole)], LongColumns(dimension="dimension"))
    many = panel_counts([str(parts / f"*.{fmt}")], LongColumns(dimension="dimension"))
    assert set(one) == set(many)
    for d in one:
        assert many[d].equals(one[d])


def test_measured_from_counts_as_in_memory():
    data = (S / "detector_panel.csv").read_bytes()
    imported = import_ratings("detector_panel.csv", data)
    memory = measure_panels(imported.panels, "auto")
    counted = {d: measure_counts(c, "detector_panel.csv")
               for d, c in panel_counts([str(S / "detector_panel.csv")], LongColumns(dimension="dimension")).items()}
    for d, m in memory.items():
        c = counted[d]
        assert (c.alpha.value, c.alpha.seed_permil, c.level, c.n_ratings) == (m.alpha.value, m.alpha.seed_permil,
                                                                               m.level, m.n_ratings)
        assert (c.alpha_boot.low, c.alpha_boot.high) == (m.alpha_boot.low, m.alpha_boot.high)
        assert sorted((r.detector, r.positives, r.total) for r in c.rates) == \
            sorted((r.detector, r.positives, r.total) for r in m.rates)
        assert c.spread_bracket == m.spread_bracket and c.alpha_at_levels == m.alpha_at_levels


def test_cli_glob_gives_the_in_memory_verdicts(tmp_path, capsys):
    rows = list(csv_rows(S / "detector_panel.csv"))
    for i in range(4):
        write_csv(tmp_path / f"week-{i}.csv", rows[i::4])  # every 4th rating: units spread over all files
    code, out, err = run(capsys, "panel", str(tmp_path / "week-*.csv"), "--json")
    glob_report = json.loads(out)
    code_mem, out_mem, _ = run(capsys, "panel", str(S / "detector_panel.csv"), "--json")
    mem = json.loads(out_mem)
    assert code == code_mem == 1
    pick = lambda r: sorted((d["dimension"], d["verdict"], d["alpha"]["exact"], d["spread"]["exact"],  # noqa: E731
                             json.dumps(d["alpha"]["interval"], sort_keys=True)) for d in r["panel"]["dimensions"])
    assert pick(glob_report) == pick(mem)
    assert [i["file"] for i in glob_report["inputs"]] == [f"week-{i}.csv" for i in range(4)]
    # the same through --engine duckdb on the one file
    code, out, _ = run(capsys, "panel", str(S / "detector_panel.csv"), "--engine", "duckdb", "--json")
    assert pick(json.loads(out)) == pick(mem)


def csv_rows(path: Path):
    for line in path.read_text().splitlines()[1:]:
        yield tuple(line.split(","))


def test_duckdb_errors_name_the_file_and_column(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text("item,who,label\nu1,a,1\n")
    code, out, err = run(capsys, "panel", str(f), "--engine", "duckdb")
    assert code == 3 and "r.csv" in err and "no rater column" in err and "mapping" in err  # the reader's own words
    code, out, err = run(capsys, "panel", str(tmp_path / "nothing-*.csv"))
    assert code == 3 and "no file matches this pattern" in err
    g = tmp_path / "digits.csv"
    g.write_text("unit,rater,value\nu1,a,1\nu1,b,0.12345678901234567890\n")
    code, out, err = run(capsys, "panel", str(g), "--engine", "duckdb")
    assert code == 3 and "more than 15 significant digits" in err and "unit 'u1', rater 'b'" in err
    with pytest.raises(InputError, match="mix of CSV and Parquet"):
        pq.write_table(pa.table({"unit": ["u"], "rater": ["a"], "value": ["1"]}), tmp_path / "x.parquet")
        panel_counts([str(g), str(tmp_path / "x.parquet")])


def test_published_k2011_through_duckdb(tmp_path, capsys):
    m = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    rows = [(f"u{u}", f"obs{r}", str(m[r][u])) for r in range(4) for u in range(12) if m[r][u] is not None]
    pacsv.write_csv(pa.table({"unit": [r[0] for r in rows], "rater": [r[1] for r in rows],
                              "value": [r[2] for r in rows]}), tmp_path / "k.csv")
    for level, exact in (("nominal", "113/152"), ("interval", "951/1120")):
        code, out, _ = run(capsys, "panel", str(tmp_path / "k.csv"), "--engine", "duckdb", "--level", level, "--json")
        assert json.loads(out)["panel"]["dimensions"][0]["alpha"]["exact"] == exact


def test_many_categories_take_the_join_path(tmp_path):
    """Above PIVOT_MAX_CATEGORIES distinct values the pair counts come from a self-join: same counts."""
    from agreebound.engines import duckdb_engine

    rng = np.random.default_rng(5)
    rows = [("all", f"u{u}", f"r{r}", str(int(rng.integers(0, 40)))) for u in range(60) for r in range(4)
            if rng.random() < 0.9]
    f = tmp_path / "wide-range.csv"
    write_csv(f, rows)
    got = panel_counts([str(f)], LongColumns(dimension="dimension"))["all"]
    assert len(got.categories) > duckdb_engine.PIVOT_MAX_CATEGORIES
    panel = import_ratings(f.name, f.read_bytes()).panels["all"]
    assert got.equals(C.from_coded(panel.coded, list(panel.raters), "all"))


@pytest.mark.parametrize("level, values", [("nominal", ["a", "b", "c"]), ("interval", ["1", "2", "3.5", "7"]),
                                           ("ordinal", ["1", "2", "3", "4", "5"]), ("ratio", ["0", "1", "2", "5"])])
def test_rater_diagnostics_out_of_core_equal_the_in_memory_ones(tmp_path, level, values):
    from agreebound.engines.duckdb_engine import rater_diagnostics
    from agreebound.panel.diagnostics import alpha_without_each_rater, unit_disagreement

    rng = np.random.default_rng(len(values))
    rows = [("all", f"u{u:02d}", f"r{r}", values[int(rng.integers(0, len(values)))])
            for u in range(40) for r in range(4) if rng.random() < 0.85]
    f = tmp_path / "r.csv"
    write_csv(f, rows)
    panel = import_ratings(f.name, f.read_bytes()).panels["all"]
    coded = panel.ratings(level)
    without, top = rater_diagnostics([str(f)], LongColumns(dimension="dimension"), "all", level)
    assert without == alpha_without_each_rater(coded, panel.raters, level)
    from agreebound.panel.alpha import krippendorff_alpha

    per_unit = unit_disagreement(coded, level, krippendorff_alpha(coded, level))
    expected = sorted((round(float(x), 9) for x in per_unit if x > 0), reverse=True)[:10]
    assert [round(x, 9) for _, x in top] == expected
    by_name = dict(zip(panel.units, per_unit))
    assert all(abs(by_name[u] - x) < 1e-9 for u, x in top)



@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("batch", [1, 3, 1000])
def test_most_disagreeing_keeps_every_histogram_that_can_be_among_the_top(level, batch):
    """The SQL engines' disagreeing units: distinct histograms in batches, measured by alpha's one
    unit_disagreement; what is kept holds the top units, ties at the cut included, in any batching."""
    from agreebound.panel.alpha import unit_disagreement
    from agreebound.panel.categories import encode
    from agreebound.engines.common import most_disagreeing

    rng = np.random.default_rng(11)
    matrix = rng.integers(0, 4, (200, 4)).astype(object)
    matrix[rng.random(matrix.shape) < 0.2] = None
    whole = C.from_coded(encode(matrix), list("abcd"))
    per_unit = unit_disagreement(whole, level)
    code, cnt, starts, _ = whole.patterns.rows()
    hist = np.zeros((len(starts), 4), dtype=np.int64)
    hist[np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(code)])), code] = cnt
    distinct, units = np.unique(hist, axis=0, return_counts=True)
    rows = np.column_stack([distinct, units])[rng.permutation(len(distinct))].tolist()
    got = most_disagreeing((rows[i:i + batch] for i in range(0, len(rows), batch)), whole, level, 10)
    x_of = {tuple(h): x for h, x in zip(hist.tolist(), per_unit.tolist())}
    assert all(x_of[h] == x for h, x in got) and [x for _, x in got] == sorted((x for _, x in got), reverse=True)
    top = sorted((x for x in per_unit if x > 0), reverse=True)[:10]
    kept = {h for h, _ in got}
    assert sorted((x for h, x in x_of.items() for _ in range(int((hist == h).all(axis=1).sum())) if h in kept),
                  reverse=True)[:10] == top
    assert all(x_of[h] < top[-1] for h in x_of if h not in kept)  # nothing left out could tie into the top


def both(capsys, path: Path, *extra: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit code, stdout) in memory and with DuckDB."""
    mem = (main([str(path), *extra][:0] + ["panel", str(path), "--engine", "numpy", "--json", *extra]),
           capsys.readouterr().out)
    duck = (main(["panel", str(path), "--engine", "duckdb", "--json", *extra]), capsys.readouterr().out)
    return mem, duck


def verdicts(out: str):
    r = json.loads(out)
    return sorted((d["dimension"], d["alpha"]["exact"], d["verdict"], d["units"]) for d in r["panel"]["dimensions"])


BASE = [("q1", "u1", "a", "1"), ("q1", "u1", "b", "2"), ("q1", "u2", "a", "1"), ("q1", "u2", "b", "1"),
        ("q1", "u3", "a", "2"), ("q1", "u3", "b", "2"), ("q1", "u4", "a", "1"), ("q1", "u4", "c", "1"),
        ("q2", "u1", "a", "1"), ("q2", "u1", "b", "1"), ("q2", "u2", "a", "2"), ("q2", "u2", "b", "1")]


def test_the_readers_rules_hold_out_of_core(tmp_path, capsys):
    """Cases a review found: names normalised as in memory, header synonyms (a 'question' column is
    the dimension), an empty file, a rater rating a unit twice, empty names: the same answers."""
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("dimension,unit,rater,value\n" + "".join(
        f"{d}{' ' if i % 2 else ''},{u}{chr(0x200b) if i % 3 == 0 else ''}, {r},{v}\n" for i, (d, u, r, v) in enumerate(BASE)))
    (m_code, m_out), (d_code, d_out) = both(capsys, spaced)
    assert m_code == d_code and verdicts(m_out) == verdicts(d_out)
    synonyms = tmp_path / "synonyms.csv"
    synonyms.write_text("question,item_id,annotator,label\n" + "".join(",".join(r) + "\n" for r in BASE))
    (m_code, m_out), (d_code, d_out) = both(capsys, synonyms)
    assert m_code == d_code and verdicts(m_out) == verdicts(d_out) and len(verdicts(d_out)) == 2
    for name, text, why in (
            ("empty.csv", "unit,rater,value\n", "no data rows"),
            ("twice.csv", "unit,rater,value\nu1,a,1\nu1,b,2\nu1,a,2\nu2,a,1\nu2,b,1\n", "rated unit 'u1' again"),
            ("norater.csv", "unit,rater,value\nu1,a,1\nu1,,2\nu2,a,1\nu2,b,1\n", "empty rater name"),
            ("nounit.csv", "unit,rater,value\nu1,a,1\n,b,2\nu2,a,1\nu2,b,1\n", "empty unit name")):
        f = tmp_path / name
        f.write_text(text)
        code, out, err = run(capsys, "panel", str(f), "--engine", "duckdb")
        assert code == 3 and why in err and out == "", (name, err)
        assert main(["panel", str(f), "--engine", "numpy"]) == 3  # refused in memory too
        capsys.readouterr()


def test_a_histogram_that_would_carry_a_digit_is_grouped_as_columns(tmp_path, monkeypatch):
    """The one-number grouping holds each count below (raters + 1). Units that merge under a name the
    repeat check read apart (a unit column holding U+001F, which joins the unit's columns) can count
    a value more often: the digits would carry, so the columns group them, as before."""
    f = tmp_path / "joined.csv"
    f.write_text("a,b,rater,value\nx\x1fy,z,r1,1\nx,y,r1,1\nx\x1fy,z,r2,2\nx,y,r2,1\n")
    made = []
    real = duckdb_engine._packed_patterns
    monkeypatch.setattr(duckdb_engine, "_packed_patterns", lambda *a: made.append(real(*a)) or made[-1])
    got = panel_counts([str(f)], LongColumns(unit=("a", "b")))["all"]
    assert made == [False]  # carried: given up
    assert got.units_by_m == {4: 1} and sum(got.category_totals) == 4  # sizes add up to the ratings


def test_a_rater_rating_a_unit_twice_is_found_by_every_route(tmp_path, capsys, monkeypatch):
    """DuckDB first gives each rater a bit of a mask per unit (up to 64 raters); more raters, a
    flagged unit or names it cannot match send it to grouping by (unit, rater). Each route finds the
    rater who rated a unit twice, as in memory, and a unit name in two dimensions is no repeat."""
    proved = []  # what the bits proved, per file read by DuckDB (the exact grouping ran after each False)
    real, one = duckdb_engine._each_rater_once, duckdb_engine._one_scan
    monkeypatch.setattr(duckdb_engine, "_each_rater_once", lambda *a: proved.append(real(*a)) or proved[-1])
    monkeypatch.setattr(duckdb_engine, "_one_scan", lambda *a: proved.append(one(*a)) or proved[-1])

    def ratings(raters: int, twice: str | None = None, prefix: str = "r") -> str:
        rows = [f"u{u},{prefix}{r},{(u + r) % 3}" for u in range(12) for r in range(raters)]
        return "unit,rater,value\n" + "\n".join(rows + ([f"u7,{prefix}{twice},1"] if twice else [])) + "\n"
    for name, text, why in (("few.csv", ratings(8, "3"), "rater 'r3' rated unit 'u7' again"),
                            ("many.csv", ratings(70, "65"), "rater 'r65' rated unit 'u7' again"),
                            ("spaced.csv", ratings(4, "2", " r"), "rater 'r2' rated unit 'u7' again")):
        f = tmp_path / name
        f.write_text(text)
        code, out, err = run(capsys, "panel", str(f), "--engine", "duckdb")
        assert code == 3 and why in err and out == "", (name, err)
        assert main(["panel", str(f), "--engine", "numpy"]) == 3 and "again" in capsys.readouterr().err
    for raters in (8, 70):  # no repeat: the same unit and rater names in two dimensions
        f = tmp_path / f"dims{raters}.csv"
        f.write_text("dimension,unit,rater,value\n" + "".join(
            f"{d},u{u},r{r},{(u * r + len(d)) % 3}\n" for d in ("tone", "fact") for u in range(12) for r in range(raters)))
        (m_code, m_out), (d_code, d_out) = both(capsys, f)
        assert m_code == d_code in (0, 1) and verdicts(m_out) == verdicts(d_out) and len(verdicts(d_out)) == 2
    # the route each file took: a repeat is found by the one-scan route's own pass (its bits, then
    # the exact grouping); a rater's name to trim or over 63 raters send the data to the general
    # path (None), whose bits of up to 64 raters, and no repeat, end the check early; with no
    # repeat, 8 plain raters are counted in one scan
    routes = [x if isinstance(x, bool) else "one scan" if x is not None else None for x in proved]
    assert routes == [False, None, False, None, False, "one scan", None, False]


@pytest.mark.parametrize("rater", ["b", "caf\u00e9"], ids=["one-scan", "general"])
def test_columns_named_like_the_engine_s_own_names_are_read_as_mapped(tmp_path, rater):
    """A file whose rater column is called u and whose unit column is called r (the names DuckDB's
    queries give their own columns) is read as mapped, on both routes (a name to normalise, after
    the head, takes the general path)."""
    f = tmp_path / "named.csv"
    f.write_text("r,u,v\n" + "".join(f"i{i},a,{i % 2}\ni{i},{rater if i > 2 else 'b'},{i % 3 % 2}\n" for i in range(6)))
    got = panel_counts([str(f)], LongColumns(unit=("r",), rater="u", value="v"))["all"]
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(f.read_text().replace("r,u,v", "unit,rater,value", 1))
    assert got.equals(numpy_engine.panel_counts(import_ratings(renamed.name, renamed.read_bytes()).panels["all"]))
    assert sorted(got.raters) == sorted({"a", rater, "b"})


def test_a_mapping_s_missing_spellings_and_humans_hold_out_of_core(tmp_path, capsys):
    f = tmp_path / "m.csv"
    f.write_text("unit,rater,value\n" + "".join(f"u{i},{r},{v}\n" for i, row in enumerate(
        [("1", "1", "-99"), ("2", "2", "1"), ("1", "2", "2"), ("3", "3", "-99")]) for r, v in zip("abc", row)))
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({"layout": "long", "unit": ["unit"], "rater": "rater", "value": "value",
                                   "missing": ["-99"], "humans": ["a", "b"]}))
    (m_code, m_out), (d_code, d_out) = both(capsys, f, "--mapping", str(mapping))
    assert m_code == d_code == 2  # one detector left: refused, in both
    assert verdicts(m_out) == verdicts(d_out)


def test_a_file_named_like_a_pattern_is_that_file(tmp_path, capsys):
    f = tmp_path / "lit[1].csv"
    f.write_text("unit,rater,value\n" + "".join(f"{u},{r},{v}\n" for _, u, r, v in BASE[:8]))
    (tmp_path / "lit1.csv").write_text("unit,rater,value\nu1,a,1\nu1,b,1\n")  # what the pattern would match
    (m_code, m_out), (d_code, d_out) = both(capsys, f)
    assert m_code == d_code and verdicts(m_out) == verdicts(d_out)
    assert verdicts(d_out)[0][3] == 4


def test_the_units_interval_comes_from_the_counts_unit_patterns_as_in_memory(tmp_path):
    """Many values (the join path, more than PIVOT_MAX_CATEGORIES) at the interval level: DuckDB's
    counts carry the unit patterns, and the default interval is the in-memory one, draw for draw."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 36, 150)
    f = tmp_path / "ratings.csv"
    f.write_text("unit,rater,value\n" + "".join(f"u{u},r{r},{truth[u] + int(rng.integers(0, 5))}\n"
                                                for u in range(150) for r in range(4) if rng.random() < 0.9))
    memory = measure_panels(import_ratings(f.name, f.read_bytes()).panels, "interval")["all"].alpha_boot
    counted = measure_counts(panel_counts([str(f)])["all"], f.name, "interval").alpha_boot
    assert memory.method == counted.method == "units" and memory.note == counted.note == ""
    assert np.array_equal(memory.samples, counted.samples)


def test_counts_with_too_many_unit_patterns_give_the_pairs_interval_and_say_so(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "MAX_PATTERNS", 3)
    f = tmp_path / "ratings.csv"
    write_csv(f, long_rows(1, False))
    for dim, c in panel_counts([str(f)], LongColumns(dimension="dimension")).items():
        assert c.too_many_patterns and c.patterns is None
        assert C.merge(c, c).too_many_patterns  # no merge brings them back
        b = measure_counts(c, f.name, "nominal").alpha_boot
        assert b.method == "pairs" and b.defined
        assert b.note.startswith("not the units bootstrap: more than 3 distinct unit patterns")
        assert "narrower than 95% when units have 3+ ratings" in b.note
