"""A graded or pass/fail judge's counts from DuckDB and Spark (agreebound.engines.scored_sql) give the
in-memory audit's exact values: the gates' alphas, exact and within-one agreement, leniency."""

from __future__ import annotations

import pytest

from agreebound.engines.scored_sql import duckdb_counts
from agreebound.core.errors import InputError
from agreebound.scored.audit import ScoredCounts, measure_counts, measure_scored
from agreebound.scored.items import scored_input
from agreebound.app.synthetic import ScoredJudge, scored_frame

FIELDS = ("judge_alpha", "human_alpha", "difference", "exact_agreement", "within_one", "leniency")


def _memory(frame, level=None):
    m = measure_scored(frame, "m.csv", level)
    out = {}
    for a in m.agreements:
        out[a.judge] = {"judge_alpha": a.judge_alpha.exact, "human_alpha": a.human_alpha and a.human_alpha.exact,
                        "difference": a.difference and a.difference.exact}
        if m.kind == "graded":
            out[a.judge].update({k: a.measure(k).exact for k in ("exact_agreement", "within_one", "leniency")})
    return out


def _cases():
    yield "graded", scored_frame([ScoredJudge("judge-a", noise=0.7), ScoredJudge("judge-b", noise=1.1, leniency=0.4)],
                                 150, humans=3, seed=31), None
    sparse = scored_frame([ScoredJudge("judge-a", noise=0.6)], 120, humans=4, scale=(1, 10), seed=32)
    yield "sparse-interval", sparse.sample(frac=0.8, random_state=3), "interval"
    yield "binary", scored_frame([ScoredJudge("judge-a", noise=0.3)], 200, humans=2, scale=(0, 1), seed=33), None


@pytest.mark.parametrize("name,frame,level", list(_cases()), ids=[c[0] for c in _cases()])
def test_duckdb_counts_equal_the_in_memory_audit(tmp_path, name, frame, level):
    path = tmp_path / f"{name}.csv"
    frame.drop(columns=["line"]).to_csv(path, index=False)
    counted = duckdb_counts([str(path)], level)
    memory = _memory(frame, level)
    assert set(counted) == set(memory)
    for judge, want in memory.items():
        got = counted[judge]
        for k, v in want.items():
            assert getattr(got, k) == v, (judge, k)
    # and the counts themselves: DuckDB's tables are the in-memory ones
    mem = ScoredCounts.of_input(scored_input(frame))
    assert measure_counts(mem, level) == counted


def test_parquet_reads_the_same(tmp_path):
    frame = scored_frame([ScoredJudge("judge-a", noise=0.7)], 100, humans=2, seed=34).drop(columns=["line"])
    frame.to_csv(tmp_path / "s.csv", index=False)
    frame.to_parquet(tmp_path / "s.parquet")
    assert duckdb_counts([str(tmp_path / "s.parquet")]) == duckdb_counts([str(tmp_path / "s.csv")])


@pytest.mark.parametrize("row,column,message", [
    ("i1,judge-a,judge,3\ni1,judge-a,judge,4\n", "item", "a second score of rater judge-a on item i1"),
    ("i1,judge-a,judge,great\n", "score", "expected a number"),
    ("i1,judge-a,critic,3\n", "role", "has the role 'critic': expected judge or human"),
])
def test_bad_tables_are_named(tmp_path, row, column, message):
    path = tmp_path / "bad.csv"
    path.write_text("item,rater,role,score\ni0,h,human,2\n" + row)
    with pytest.raises(InputError, match=message) as e:
        duckdb_counts([str(path)])
    assert (e.value.file, e.value.column) == ("bad.csv", column)


def test_spark_counts_equal_duckdbs(tmp_path):
    pytest.importorskip("pyspark")
    from agreebound.engines.scored_sql import spark_counts
    from agreebound.engines.spark_engine import session

    frame = scored_frame([ScoredJudge("judge-a", noise=0.7), ScoredJudge("judge-b", noise=1.0)], 120, humans=3,
                         seed=35).drop(columns=["line"])
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    assert spark_counts([str(path)], spark=session("local[2]")) == duckdb_counts([str(path)])
