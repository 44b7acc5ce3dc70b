"""Where Spark's time goes: the panel counts of 1e7 long ratings (the data of bench_engines.py, CSV
and Parquet) on Spark local[2], with Spark's UI on for this run only, and the UI's own figures read
back from its REST API (on 127.0.0.1): per job its wall time and the line of ours that ran it, per
stage the executors' run and CPU time, rows read, shuffle written and read, and GC. Beside them: the
session's start (the JVM's launch) and the driver's time between jobs.

Issue 27 asks Spark local[2] at 1e7 to be within 3x of DuckDB "or an explanation of where the time
goes with the Spark UI's figures": bench_engines.py gives the ratio and Spark's own floor; this
gives the figures. It prints no PASS/FAIL.

Run: make bench (or .venv/bin/python -m bench.bench_spark_stages [ratings]).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path

from bench.bench_engines import write  # noqa: E402

from agreebound.engines import spark_engine  # noqa: E402
from agreebound.engines.common import LongColumns  # noqa: E402


def session_with_ui():
    """A local[2] session as the engine's, but with the UI (its REST API) on, on a free port."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]").appName("agreebound-stages")
    for key, value in {**spark_engine.SETTINGS, "spark.ui.enabled": "true", "spark.ui.port": "0"}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def api(spark, what: str):
    url = f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{spark.sparkContext.applicationId}/{what}"
    with urllib.request.urlopen(url, timeout=60) as r:  # noqa: S310 - the local UI of this process
        return json.load(r)


def when(text: str) -> datetime:
    return datetime.strptime(text.replace("GMT", ""), "%Y-%m-%dT%H:%M:%S.%f")


def report(spark, path: Path, start: float) -> None:
    t0 = time.perf_counter()
    seen = {j["jobId"] for j in api(spark, "jobs")}
    spark_engine.panel_counts([str(path)], LongColumns(), spark=spark)
    wall = time.perf_counter() - t0
    jobs = sorted((j for j in api(spark, "jobs") if j["jobId"] not in seen), key=lambda j: j["jobId"])
    stages = {s["stageId"]: s for s in api(spark, "stages") if s["status"] == "COMPLETE"}
    in_jobs = sum((when(j["completionTime"]) - when(j["submissionTime"])).total_seconds() for j in jobs)
    print(f"\n{path.name}: panel_counts {wall:.2f} s wall; {len(jobs)} jobs {in_jobs:.2f} s; "
          f"the driver between them {wall - in_jobs:.2f} s (session start before it: {start:.2f} s)")
    print(f"{'job':>4} {'wall s':>7} {'stage':>5} {'run s':>7} {'cpu s':>7} {'rows in':>10} {'shuffle w MiB':>13} "
          f"{'shuffle r MiB':>13} {'gc s':>5}  called at")
    for j in jobs:
        took = (when(j["completionTime"]) - when(j["submissionTime"])).total_seconds()
        where = j["name"].split(" at ")[-1].split("/")[-1]
        ran = [stages[i] for i in sorted(j["stageIds"]) if i in stages]
        if took < 0.2 and all(s["executorRunTime"] < 200 for s in ran):
            continue  # the small jobs are summed above
        for n, s in enumerate(ran):
            print(f"{j['jobId'] if n == 0 else '':>4} {f'{took:.2f}' if n == 0 else '':>7} {s['stageId']:>5} "
                  f"{s['executorRunTime'] / 1000:7.2f} {s['executorCpuTime'] / 1e9:7.2f} {s['inputRecords']:>10,} "
                  f"{s['shuffleWriteBytes'] / 2**20:13.1f} {s['shuffleReadBytes'] / 2**20:13.1f} "
                  f"{s['jvmGcTime'] / 1000:5.2f}  {where if n == 0 else ''}")


def main() -> int:
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, pq_path = Path(tmp) / f"long_{n}.csv", Path(tmp) / f"long_{n}.parquet"
        write(csv_path, pq_path, n)
        t0 = time.perf_counter()
        spark = session_with_ui()
        start = time.perf_counter() - t0
        print(f"Spark local[2], {n:,} ratings, 8 raters, 5 values; jobs under 0.2 s are left out of the table")
        for path in (pq_path, csv_path):
            report(spark, path, start)
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
