"""The command line starts on the standard library: ``--help`` (the top level's and every command's)
parses and prints without importing the numeric or the dashboard stack, so a CI call that only asks
for usage pays an interpreter's start, not pandas' (issue 57; bench/bench_cli_startup.py times it).

Read from ``-X importtime``, which lists every module a process imports, in a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agreebound.cli.parser import build_parser

#: Never imported by a --help: the numeric stack, the readers' and the engines' libraries, the
#: dashboard's, the store's and the schema checker's.
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "plotly", "streamlit", "duckdb", "sqlalchemy", "jsonschema",
         "openpyxl", "pyspark")
COMMANDS = tuple(build_parser().commands)
SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


def imported(*argv: str) -> tuple[int, str, set[str]]:
    """(exit code, stdout, the top-level names of every module imported) of ``python -m agreebound *argv``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agreebound", *argv], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)
    names = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return done.returncode, done.stdout, names


def test_every_command_is_checked():
    assert len(COMMANDS) == 16 and {"panel", "calibrate", "inspect", "history", "drift", "serve"} <= set(COMMANDS)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], *([c, "--help"] for c in COMMANDS)],
                         ids=lambda a: " ".join(a))
def test_help_imports_no_heavy_library(argv):
    code, out, names = imported(*argv)
    assert code == 0
    assert out.startswith("usage: agreebound" if argv[0] != "--version" else "agreebound ")
    assert "agreebound" in names and "argparse" in names  # the reading works: it saw the CLI's own imports
    assert sorted(names & set(HEAVY)) == []


def test_the_reading_sees_a_heavy_import():
    """The check can fail: a verdict imports numpy (its arithmetic needs it), and the reading says so."""
    code, _, names = imported("panel", str(SAMPLES / "krippendorff_2011.csv"))
    assert code == 0 and "numpy" in names


@pytest.mark.parametrize("sample", ["krippendorff_2011.csv", "detector_panel.csv"])
def test_a_small_panel_verdict_imports_neither_pandas_nor_pyarrow(sample):
    """A CI call on a small plain CSV reads it with the standard library and reports on numpy alone:
    pandas and pyarrow (0.17 CPU-s to import, the bulk of such a call) never load, nor the judge's
    and the graded judge's modules (issue 57)."""
    code, out, names = imported("panel", str(SAMPLES / sample))
    assert code in (0, 1) and "overall: " in out
    assert "numpy" in names
    assert sorted(names & {"pandas", "pyarrow", "scipy", "plotly", "duckdb"}) == []
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agreebound", "panel", str(SAMPLES / sample)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert sorted(m for m in modules if m.startswith(("agreebound.judge", "agreebound.scored"))) == []


TRIO = ["judge_failing_contract.json", "--references", "judge_failing_references.csv", "--observations",
        "judge_failing_observations.csv"]


@pytest.mark.parametrize("given", [["judge_illustrative.json"], ["judge_failing.json"], TRIO], ids=lambda g: g[0])
def test_a_judge_bundles_or_trios_verdict_imports_neither_pandas_nor_pyarrow(given):
    """A CI call on the project's own judge formats (a bundle's JSON records, the tabular trio's CSVs)
    reads them as columns and measures them on numpy alone (agreebound.judge.columns): pandas and
    pyarrow never load (issue 57). Their decision and numbers are the frames path's
    (tests/judge/test_columns.py)."""
    code, out, names = imported("calibrate", *(g if g.startswith("--") else str(SAMPLES / g) for g in given))
    assert code in (0, 1) and out.startswith("decision: ")
    assert "numpy" in names and "agreebound" in names
    assert sorted(names & {"pandas", "pyarrow", "scipy", "plotly", "duckdb"}) == []


def test_a_judge_log_still_imports_pandas():
    """The check can fail: a harness's log is read into pandas frames (its readers join, group and
    reshape), and the reading says so."""
    code, _, names = imported("calibrate", str(SAMPLES / "judge_logs" / "alpaca_eval_annotations.json"))
    assert code in (0, 1) and "pandas" in names
