"""The cost of the bias measures (issue 24) on DuckDB at 1e7 observations: the counts query with
the new aggregates (judge_sql.judge_counts: the seed's five rates, the six beside them, McNemar's
pairs, the mix and the verdict cells) against the seed's counts query (pinned below, its SQL as it
was before them) on the same validated tables in the same process, interleaved, medians; then
measure_bias's own time (it reads only the counts).

The audit is bench_judge_scale's (written by DuckDB itself, Parquet). Both queries run inside one
real out-of-core audit (judge_duckdb.judge_measurement), once its input is validated.

Run: make bench (or .venv/bin/python -m bench.bench_judge_bias [observations] [repeats]).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_judge_scale import write  # noqa: E402

from agreebound.engines import judge_sql  # noqa: E402
from agreebound.engines.judge_duckdb import judge_measurement  # noqa: E402
from agreebound.judge.bias import measure_bias  # noqa: E402
from agreebound.judge.counts import RATE_NAMES  # noqa: E402

#: The new aggregates may cost at most this many times the seed's counts query (their per-case facts
#: double table k's columns, and the verdict cells are one more GROUP BY).
RATIO_LIMIT = 3.0
#: measure_bias reads only the counts: a small share of the query that makes them.
BIAS_LIMIT = 0.05


def rate(y: str, m: str) -> str:
    """The seed's six sums of one rate (judge_sql's, pinned)."""
    big = "DECIMAL(38,0)"
    return (f"CAST(coalesce(sum({y}), 0) AS {big}), CAST(coalesce(sum({m}), 0) AS {big}), "
            f"count(*) FILTER (WHERE {m} > 0), CAST(coalesce(sum({y} * {y}), 0) AS {big}), "
            f"CAST(coalesce(sum({y} * {m}), 0) AS {big}), CAST(coalesce(sum({m} * {m}), 0) AS {big})")


def seed_counts(e, c) -> list[tuple[int, ...]]:
    """The seed's counts query before the bias measures: table k of its facts, one aggregate row,
    the reviewer, id and pattern queries; its five rates' sums."""
    judge = c.judge_generator.replace("'", "''")

    def distinct(o: str) -> str:
        return f"CAST(a{o} > 0 AS INT) + CAST(b{o} > 0 AS INT) + CAST(t{o} > 0 AS INT)"

    def verdict(o: str) -> str:
        return f"CASE WHEN d{o} = 1 THEN (CASE WHEN a{o} > 0 THEN 0 WHEN b{o} > 0 THEN 1 ELSE 2 END) ELSE -1 END"

    def majority(o: str) -> str:
        top = f"greatest(a{o}, b{o}, t{o})"
        return (f"CASE WHEN CAST(a{o} = {top} AS INT) + CAST(b{o} = {top} AS INT) + CAST(t{o} = {top} AS INT) = 1 "
                f"THEN (CASE WHEN a{o} = {top} THEN 0 WHEN b{o} = {top} THEN 1 ELSE 2 END) ELSE -1 END")

    e.table("k", f"""
        WITH d AS (
            SELECT r.case_id, r.pref, r.nrev, r.adj, p.aab, p.bab, p.tab, p.aba, p.bba, p.tba, p.ta, p.tb, p.ag, p.bg,
                   {distinct('ab')} AS dab, {distinct('ba')} AS dba
            FROM r JOIN p ON r.case_id = p.case_id),
        x AS (
            SELECT *, {verdict('ab')} AS vab, {verdict('ba')} AS vba, {majority('ab')} AS mab, {majority('ba')} AS mba,
                   aab + bab + tab + aba + bba + tba AS nobs,
                   CASE pref WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE tab + tba END AS agree,
                   CASE WHEN pref = 0 AND ta < tb THEN 1 WHEN pref = 1 AND tb < ta THEN 0 ELSE -1 END AS verb,
                   CASE WHEN ag = '{judge}' AND ag <> bg THEN 0 WHEN bg = '{judge}' AND ag <> bg THEN 1
                        ELSE -1 END AS selfc
            FROM d)
        SELECT case_id, pref, nrev, adj, dab, dba, mab, mba, nobs, agree,
               CAST(vab >= 0 AND vba >= 0 AS BIGINT) AS fopp, CAST(vab >= 0 AND vba >= 0 AND vab <> vba AS BIGINT) AS flipped,
               CAST(CAST(dab > 1 AS INT) + CAST(dba > 1 AS INT) AS BIGINT) AS unst,
               CASE WHEN verb >= 0 THEN nobs ELSE 0 END AS vopp,
               CASE verb WHEN 0 THEN aab + aba WHEN 1 THEN bab + bba ELSE 0 END AS verr,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2 THEN nobs ELSE 0 END AS sopp,
               CASE WHEN selfc >= 0 AND pref <> selfc AND pref <> 2
                    THEN (CASE selfc WHEN 0 THEN aab + aba ELSE bab + bba END) ELSE 0 END AS serr
        FROM x""")
    big, two = "DECIMAL(38,0)", "CAST(2 AS BIGINT)"
    rates = ", ".join(rate(y, m) for y, m in (("agree", "nobs"), ("flipped", "fopp"), ("unst", two),
                                                         ("verr", "vopp"), ("serr", "sopp")))
    row = e.run(f"""
        SELECT count(*), {rates}, count(*) FILTER (WHERE NOT adj),
               CAST(coalesce(sum(agree) FILTER (WHERE pref <> 2), 0) AS {big}),
               CAST(coalesce(sum(nobs) FILTER (WHERE pref <> 2), 0) AS {big}),
               count(*) FILTER (WHERE (dab > 1 OR dba > 1) AND mab >= 0 AND mba >= 0 AND mab <> mba)
        FROM k""")[0]
    cap = 101
    e.run(f"SELECT least(nrev, {cap}) AS m, count(*) FROM k GROUP BY least(nrev, {cap})")
    e.run(e.dialect.smallest_ids(f"least(nrev, {cap})", f"nrev < {cap}", 1000))
    e.run("SELECT case_id FROM k WHERE NOT adj ORDER BY case_id LIMIT 1000")
    e.run("SELECT pref, mab, mba, count(*) FROM k GROUP BY pref, mab, mba")
    return [tuple(int(v) for v in row[1 + 6 * i: 7 + 6 * i]) for i in range(len(RATE_NAMES))]


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(args[0])) if args else 10**7
    repeats = int(args[1]) if len(args) > 1 else 5
    if n > 10**7:
        raise SystemExit("this bench runs up to 1e7 observations")
    times: dict[str, list[float]] = {"seed": [], "new": [], "bias": []}
    found: dict[str, object] = {}
    measured = judge_sql.judge_counts

    def timed(e, c, n_obs):  # inside the audit, once its input is validated: both queries, interleaved
        for _ in range(repeats):
            t0 = time.perf_counter()
            found["seed"] = seed_counts(e, c)
            times["seed"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            counts = measured(e, c, n_obs)
            times["new"].append(time.perf_counter() - t0)
        for _ in range(repeats):
            t0 = time.perf_counter()
            found["bias"] = measure_bias(counts, {})
            times["bias"].append(time.perf_counter() - t0)
        found["counts"] = counts
        return counts

    with tempfile.TemporaryDirectory() as tmp:
        c, r, o = write(Path(tmp), n)
        t0 = time.perf_counter()
        judge_measurement(c.name, c.read_bytes(), [str(r)], [str(o)])  # the whole audit, as it runs
        audit = time.perf_counter() - t0
        judge_sql.judge_counts = timed
        try:
            judge_measurement(c.name, c.read_bytes(), [str(r)], [str(o)])
        finally:
            judge_sql.judge_counts = measured
    counts, bias = found["counts"], found["bias"]
    seed, new, own = (statistics.median(times[k]) for k in ("seed", "new", "bias"))
    same = found["seed"] == [counts.rates[name].astuple() for name in RATE_NAMES]
    print(f"{n:,} observations ({counts.n_cases:,} cases, {len(counts.verdicts)} verdict cells) on DuckDB, "
          f"medians of {repeats} interleaved runs")
    print(f"  the whole audit (validation, counts, rates, one run):  {audit:8.3f} s")
    print(f"  counts query, the seed's:                              {seed:8.3f} s")
    print(f"  counts query, with the bias counts:                    {new:8.3f} s  ({new / seed:.2f}x the seed's; "
          f"+{(new - seed) / audit:.0%} of the audit)")
    print(f"  measure_bias from the counts:                          {own * 1e3:8.1f} ms ({own / new:.3f}x the counts "
          "query; its exact binomial test is linear in the decisive verdicts)")
    print(f"  verbosity net {bias['verbosity_net'].points()}; first slot {bias['first_slot'].points()}")
    checks = [("the seed's five rates are unchanged by the new aggregates", same),
              (f"the new aggregates cost {new / seed:.2f}x the seed's counts query (limit {RATIO_LIMIT}x)",
               new / seed < RATIO_LIMIT),
              (f"measure_bias takes {own / new:.3f}x the counts query (limit {BIAS_LIMIT})", own < new * BIAS_LIMIT)]
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}: {text}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
