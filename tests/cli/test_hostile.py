"""Hostile input through the real command line: a verdict or one located line, never a crash.

Every file of tests/data/hostile (made by tests/data/make_hostile_files.py, listed with its
arguments and acceptable exit codes in manifest.json) and every case that needs the machine
(devices, pipes, sparse files, odd names, report paths) runs as its own process. Each must end
with an acceptable exit code (never 4, never a traceback), at most one short stderr line, no raw
control or bidi characters on either stream, inputs untouched, and a bounded peak memory (each
process's own VmHWM; a safety bound, not a benchmark: bench/bench_cardinality.py measures).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"
SAMPLES = ROOT / "sample_data"

from tests.data import make_hostile_files  # noqa: E402
from tests.support.peak import run_cli, run_cli_forked  # noqa: E402

PEAK_BOUND_MIB = 1024
RAW_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _argv(case: dict) -> list[str]:
    out = []
    for a in case["argv"]:
        if a == "{f}":
            out.append(str(HOSTILE / case["file"]))
        elif a.startswith("{sample:"):
            out.append(str(SAMPLES / a[len("{sample:"):-1]))
        else:
            out.append(a)
    return out


def _problems(r: dict) -> list[str]:
    err = r["err"].decode("utf-8", "replace")
    out = r["out"].decode("utf-8", "replace")
    found = []
    if r["code"] not in r["codes"]:
        found.append(f"exit {r['code']}, expected one of {r['codes']}")
    if "Traceback" in err or "Traceback" in out:
        found.append("a traceback")
    if r["code"] == 3 and (err.count("\n") != 1 or len(err) > 420):
        found.append(f"stderr is not one short line: {err[:200]!r}")
    if r["code"] in (0, 1, 2) and err:
        found.append(f"stderr on a verdict: {err[:200]!r}")
    if RAW_UNSAFE.search(err) or RAW_UNSAFE.search(out):
        found.append("a raw control or bidi character reached the terminal")
    if r.get("stderr") and r["stderr"] not in err:
        found.append(f"stderr does not say {r['stderr']!r}: {err[:200]!r}")
    if not r["intact"]:
        found.append("an input was overwritten")
    return found


def _runner(case: dict) -> dict:
    unchanged = case.get("unchanged")
    before = Path(unchanged).read_bytes() if unchanged else None
    code, out, err, peak = run_cli_forked(case["argv"], cwd=ROOT)
    return {**case, "code": code, "out": out, "err": err, "peak": peak,
            "intact": before is None or Path(unchanged).read_bytes() == before}


def test_the_corpus_is_generated_and_large():
    manifest = json.loads((HOSTILE / "manifest.json").read_text())
    assert len(manifest) >= 150
    assert {c["file"] for c in manifest} == {p.name for p in HOSTILE.iterdir() if p.name != "manifest.json"}
    categories = {c["category"] for c in manifest}
    assert {"csv structure", "values", "markup names", "scale", "parquet", "rates", "thresholds", "judge bundle",
            "judge tables"} <= categories


@pytest.mark.slow
def test_every_hostile_file_ends_in_a_verdict_or_one_located_line(tmp_path):
    manifest = json.loads((HOSTILE / "manifest.json").read_text())
    cases = [dict(c, argv=_argv(c), what=c["file"]) for c in manifest] + make_hostile_files.runtime_cases(tmp_path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_runner, cases))
    failures = []
    for r in results:
        problems = _problems(r)
        if r["peak"] > PEAK_BOUND_MIB:
            problems.append(f"peak memory {r['peak']:.0f} MiB > {PEAK_BOUND_MIB} MiB")
        if problems:
            failures.append(f"{r['what']}: " + "; ".join(problems))
    assert not failures, "\n".join(failures)
    assert len(results) >= 200
    codes = {r["code"] for r in results}
    assert codes <= {0, 1, 2, 3} and {1, 3} <= codes


@pytest.mark.parametrize("argv", [
    ["panel", "sample_data/detector_panel.csv", "--json"],
    ["calibrate", "sample_data/judge_illustrative.json"],
    ["panel", "sample_data/detector_panel.csv", "--level", "cardinal"],
    ["panel", "tests/data/hostile/no_such_file.csv"],
])
def test_a_forked_run_says_what_a_new_process_says(argv):
    """The corpus runs each case forked from a process with the CLI's imports loaded: that child
    must exit, print and refuse exactly as `python -m agreebound.cli.main` started afresh does."""
    fresh, forked = run_cli(argv, cwd=ROOT), run_cli_forked(argv, cwd=ROOT)
    assert forked[:3] == fresh[:3]
    assert fresh[0] in (0, 1, 3) and (fresh[1] or fresh[2])
    assert 0 < forked[3] < PEAK_BOUND_MIB


def test_no_crash_exit_code_is_ever_a_verdict(tmp_path):
    """A crash inside a command exits 4 with one line that says so, never 1 (REPORT_ONLY)."""
    script = ("import sys, agreebound.panel.measure as a\n"
              "def boom(*args, **kw): raise RuntimeError('injected')\n"
              "a.measure_panels = boom\n"
              "from agreebound.cli.main import main\n"
              f"sys.exit(main(['panel', {str(SAMPLES / 'detector_panel.csv')!r}]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 4
    assert done.stderr.startswith("agreebound: internal error (RuntimeError: injected). This is a bug in agreebound, "
                                  "not a verdict")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    traced = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "AGREEBOUND_TRACE": "1"})
    assert traced.returncode == 4 and "Traceback" in traced.stderr


@pytest.mark.parametrize("argv, code", [
    (["panel", "sample_data/krippendorff_2011.csv", "--level", "interval"], 0),
    (["panel", "sample_data/detector_panel.csv"], 1),
    (["panel", "sample_data/single_detector.csv"], 2),
    (["panel", "sample_data/detector_panel.csv", "--level", "cardinal"], 3),
    (["panel", "sample_data/detector_panel.csv", "--no-such-flag"], 3),
    (["calibrate", "sample_data/judge_illustrative.json"], 0),
    (["calibrate", "sample_data/judge_failing.json"], 1),
])
def test_each_exit_code_means_one_thing(argv, code):
    done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", *argv], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == code
    if code == 3:
        assert done.stderr.count("\n") == 1 and "usage: agreebound panel" in done.stderr


def test_report_written_beside_the_inputs_is_complete_and_never_half_written(tmp_path):
    target = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(SAMPLES / "detector_panel.csv"),
                           "--report", str(target)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and json.loads(target.read_text())["panel"]["verdict"] == "REPORT_ONLY"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left behind


def test_broken_pipe_keeps_the_verdict(tmp_path):
    """`agreebound ... --json | head -1`: the reader leaving is not a crash and not a new verdict."""
    cmd = (f"{sys.executable} -m agreebound.cli.main panel {SAMPLES / 'detector_panel.csv'} --json | head -c 10 >/dev/null;"
           " echo ${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "1" and "Traceback" not in done.stderr
