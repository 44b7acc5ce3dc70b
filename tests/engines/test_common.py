"""The new doors hold (issue 21): every engine reads exactly the files the report lists (a file named
like a pattern is that file alone; a pattern is expanded once, in Python), a pipe is refused rather
than waited on, Spark's bad input is one line on stderr as with every engine, a mapping's encoding is
a text encoding, and the dashboard's data folder reads only what it listed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.cli import process, run
from agreebound.engines.common import input_files
from agreebound.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
NOT_REGULAR = "not a regular file (a device, a pipe or a socket); give a file"


def cli(*argv: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The CLI in its own process: what a user's terminal shows (the JVM's output included), and a
    timeout, so that a reader waiting on a pipe fails the test instead of hanging it."""
    env = {k: v for k, v in os.environ.items() if k not in ("AGREEBOUND_TRACE", "PYSPARK_GATEWAY_PORT",
                                                           "PYSPARK_GATEWAY_SECRET")}
    return process(*argv, cwd=cwd, env=env, timeout=timeout)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def spark():
    """One local session for the module's in-process Spark runs (the CLI's session() reuses it)."""
    if shutil.which("java") is None:
        pytest.fail("--engine spark needs Java 17 (`make test` installs Debian's openjdk-17-jre-headless)",
                    pytrace=False)
    from agreebound.engines.spark_engine import session

    s = session("local[2]")
    yield s
    s.stop()


# --- 1. a file named like a pattern is that file, for every engine --------------------------------

@pytest.fixture
def starred(tmp_path):
    """``a*.csv``: one rater only (REFUSE_SINGLE alone); ``a_secret.csv`` beside it, which the name
    read as a pattern would also match: a second rater agreeing on the same units."""
    (tmp_path / "a*.csv").write_text("unit,rater,value\n" + "".join(f"u{i},a,{i % 2}\n" for i in range(1, 5)))
    (tmp_path / "a_secret.csv").write_text("unit,rater,value\n" + "".join(f"u{i},b,{i % 2}\n" for i in range(1, 5)))
    return tmp_path / "a*.csv"


def one_file_verdict(report: dict, f: Path) -> None:
    assert report["inputs"] == [{"file": "a*.csv", "sha256": sha256(f)}]
    dims = report["panel"]["dimensions"]
    assert [(d["verdict"], d["units"], d["ratings"]) for d in dims] == [("REFUSE_SINGLE", 4, 4)]


@pytest.mark.parametrize("engine", [None, "numpy", "duckdb"])
def test_a_starred_name_is_read_alone(capsys, starred, engine):
    code, out, err = run(capsys, "panel", str(starred), "--json", *(["--engine", engine] if engine else []))
    assert (code, err) == (2, "")
    one_file_verdict(json.loads(out), starred)


def test_a_starred_name_is_read_alone_by_spark(starred):
    """In a process of its own: Spark's answer, and nothing else on stderr."""
    proc = cli("panel", str(starred), "--engine", "spark", "--json", timeout=300)
    assert (proc.returncode, proc.stderr) == (2, "")
    one_file_verdict(json.loads(proc.stdout), starred)


def test_a_pattern_is_expanded_once_and_listed(capsys, tmp_path):
    """A path that does not exist and holds * is a pattern: the files it matches are the ones read
    and listed, in order."""
    for name, rater in (("w-1.csv", "a"), ("w-2.csv", "b")):
        (tmp_path / name).write_text("unit,rater,value\n" + "".join(f"u{i},{rater},{i % 2}\n" for i in range(1, 5)))
    code, out, err = run(capsys, "panel", str(tmp_path / "w-*.csv"), "--engine", "duckdb", "--json")
    report = json.loads(out)
    assert (code, err) == (0, "")
    assert report["inputs"] == [{"file": n, "sha256": sha256(tmp_path / n)} for n in ("w-1.csv", "w-2.csv")]
    assert [(d["verdict"], d["ratings"]) for d in report["panel"]["dimensions"]] == [("ENFORCE", 8)]
    assert input_files([str(tmp_path / "w-*.csv")]) == [str(tmp_path / "w-1.csv"), str(tmp_path / "w-2.csv")]


@pytest.mark.parametrize("name", ["x{1,2}.csv", "b\\c.csv", "q[1].csv"])
def test_duckdb_reads_other_pattern_characters_literally(tmp_path, name):
    from agreebound.engines.common import LongColumns
    from agreebound.engines.duckdb_engine import panel_counts

    (tmp_path / name).write_text("unit,rater,value\nu1,a,1\nu2,a,2\n")
    for decoy in ("x1.csv", "x2.csv", "q1.csv", "bc.csv"):
        (tmp_path / decoy).write_text("unit,rater,value\nu1,z,1\nu2,z,2\n")
    counts = panel_counts([str(tmp_path / name)], LongColumns())
    assert list(counts["all"].raters) == ["a"]


def test_duckdb_does_not_read_a_leading_tilde_as_home(tmp_path, monkeypatch):
    """DuckDB reads ~/x.csv as the home folder's; a folder named ~ here is that folder."""
    from agreebound.engines.common import LongColumns
    from agreebound.engines.duckdb_engine import panel_counts

    home = tmp_path / "home"
    home.mkdir()
    (home / "r.csv").write_text("unit,rater,value\nu1,z,1\nu2,z,2\n")
    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "r.csv").write_text("unit,rater,value\nu1,a,1\nu2,a,2\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    assert list(panel_counts(["~/r.csv"], LongColumns())["all"].raters) == ["a"]


def test_spark_reads_exactly_the_listed_files_or_refuses(spark, tmp_path):
    """A starred or bracketed name, a percent sign: read as that file alone. A name Spark would
    skip silently (_x.csv, .x.csv) or cannot read (a colon) is refused, naming it."""
    from agreebound.engines.common import LongColumns
    from agreebound.engines.spark_engine import panel_counts

    for name in ("a*.csv", "q[1].csv", "x{1,2}.csv", "%41.csv"):
        (tmp_path / name).write_text("unit,rater,value\nu1,a,1\nu2,a,2\n")
    for decoy in ("a_secret.csv", "q1.csv", "x1.csv", "A.csv"):
        (tmp_path / decoy).write_text("unit,rater,value\nu1,z,1\nu2,z,2\n")
    for name in ("a*.csv", "q[1].csv", "x{1,2}.csv", "%41.csv"):
        assert list(panel_counts([str(tmp_path / name)], LongColumns(), spark=spark)["all"].raters) == ["a"], name
    for name, why in (("_x.csv", "Spark skips a file whose name starts with _ or ."),
                      (".x.csv", "Spark skips a file whose name starts with _ or ."),
                      ("c:d.csv", "Spark cannot read a file whose name holds a colon")):
        (tmp_path / name).write_text("unit,rater,value\nu1,b,1\nu2,b,2\n")
        with pytest.raises(InputError) as e:
            panel_counts([str(tmp_path / "a_secret.csv"), str(tmp_path / name)], LongColumns(), spark=spark)
        assert e.value.file == str(tmp_path / name) and why in e.value.reason


def test_spark_says_a_file_it_cannot_read_in_one_line(spark, tmp_path):
    """A corrupt Parquet footer is the input's fault (exit 3, one line), not an internal error."""
    from agreebound.engines.common import LongColumns
    from agreebound.engines.spark_engine import panel_counts

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"\x00" * 300 + b"PAR1")
    with pytest.raises(InputError) as e:
        panel_counts([str(bad)], LongColumns(), spark=spark)
    assert e.value.file == str(bad) and "\n" not in str(e.value)
    assert e.value.reason.startswith("Spark could not read it: [FAILED_READ_FILE.")


def test_a_jvm_error_that_is_not_about_reading_stays_internal():
    from agreebound.engines.spark_engine import spark_error

    class Java:
        def __init__(self, condition: str) -> None:
            self.condition = condition

        def getErrorClass(self) -> str:  # noqa: N802 - the JVM's name
            return self.condition

        def getMessage(self) -> str:  # noqa: N802
            return f"[{self.condition}] what happened\n\tat org.apache.spark..."

    class JVMError(Exception):
        def __init__(self, condition: str) -> None:
            self.java_exception = Java(condition)

    assert spark_error(JVMError("FAILED_READ_FILE.NO_HINT")) == "[FAILED_READ_FILE.NO_HINT] what happened"
    with pytest.raises(JVMError):
        spark_error(JVMError("INTERNAL_ERROR"))


def judge_trio(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The sample audit with its references named ``references*.csv``, and beside it a file the
    name read as a pattern would add (the same references again: duplicate ids, if it were read)."""
    c, o = tmp_path / "contract.json", tmp_path / "observations.csv"
    shutil.copy(S / "judge_failing_contract.json", c)
    shutil.copy(S / "judge_failing_observations.csv", o)
    r = tmp_path / "references*.csv"
    shutil.copy(S / "judge_failing_references.csv", r)
    shutil.copy(S / "judge_failing_references.csv", tmp_path / "references_copy.csv")
    return c, r, o


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_calibrate_reads_a_starred_name_alone(request, capsys, tmp_path, engine):
    if engine == "spark":
        request.getfixturevalue("spark")
    c, r, o = judge_trio(tmp_path)
    base = ["calibrate", str(c), "--references", str(r), "--observations", str(o), "--json"]
    code, out, err = run(capsys, *base, "--engine", "numpy")
    assert (code, err) == (1, "")
    in_memory = json.loads(out)
    assert [i["file"] for i in in_memory["inputs"]] == ["contract.json", "references*.csv", "observations.csv"]
    code, out, err = run(capsys, *base, "--engine", engine)
    assert (code, err) == (1, "")
    assert json.loads(out) == in_memory


# --- 2. a pipe is refused, never waited on --------------------------------------------------------

def test_a_pipe_is_refused_by_duckdb(tmp_path):
    os.mkfifo(tmp_path / "ratings.csv")
    proc = cli("panel", str(tmp_path / "ratings.csv"), "--engine", "duckdb", timeout=60)
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == f"{tmp_path / 'ratings.csv'}: {NOT_REGULAR}\n"


def test_a_pipe_matched_by_a_pattern_is_refused(tmp_path):
    (tmp_path / "a.csv").write_text("unit,rater,value\nu1,a,1\nu1,b,1\n")
    os.mkfifo(tmp_path / "b.csv")
    proc = cli("panel", str(tmp_path / "*.csv"), timeout=60)  # a pattern: out of core, by default
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == f"{tmp_path / 'b.csv'}: {NOT_REGULAR}\n"
    with pytest.raises(InputError) as e:  # stat, never open: this returns at once
        input_files([str(tmp_path / "*.csv")])
    assert str(e.value) == f"{tmp_path / 'b.csv'}: {NOT_REGULAR}"


def test_a_pipe_with_a_pattern_s_name_is_that_pipe(tmp_path):
    """A pipe named p*.csv exists as written: it is that pipe (refused), not a pattern matching the
    file beside it."""
    os.mkfifo(tmp_path / "p*.csv")
    (tmp_path / "p1.csv").write_text("unit,rater,value\nu1,a,1\nu1,b,1\n")
    with pytest.raises(InputError) as e:
        input_files([str(tmp_path / "p*.csv")])
    assert str(e.value) == f"{tmp_path / 'p*.csv'}: {NOT_REGULAR}"


def test_a_pipe_is_refused_by_calibrate_out_of_core(tmp_path):
    c, r, o = judge_trio(tmp_path)
    o.unlink()
    os.mkfifo(o)
    proc = cli("calibrate", str(c), "--references", str(r), "--observations", str(o), "--engine", "duckdb", timeout=60)
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == f"{o}: {NOT_REGULAR}\n"


def test_spark_refuses_a_pipe_before_reading(tmp_path):
    """Refused before any session is needed (``spark`` is never touched)."""
    from agreebound.engines.common import LongColumns
    from agreebound.engines.spark_engine import panel_counts

    os.mkfifo(tmp_path / "r.csv")
    with pytest.raises(InputError) as e:
        panel_counts([str(tmp_path / "r.csv")], LongColumns(), spark=object())
    assert str(e.value) == f"{tmp_path / 'r.csv'}: {NOT_REGULAR}"


# --- 3. Spark's bad input is one line ---------------------------------------------------------------

def test_spark_bad_input_is_one_line_on_stderr(tmp_path):
    (tmp_path / "twice.csv").write_text("unit,rater,value\nu1,a,1\nu1,b,2\nu1,a,2\nu2,a,1\nu2,b,1\n")
    proc = cli("panel", "twice.csv", "--engine", "spark", cwd=tmp_path, timeout=300)
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr.splitlines() == [
        "twice.csv, column 'rater': rater 'a' rated unit 'u1' again; each rater rates a unit once"]


# --- 4. a mapping's encoding is a text encoding -------------------------------------------------

@pytest.mark.parametrize("encoding, why", [
    ("rot13", "which is not one"), ("uu_codec", "which is not one"), ("zlib", "which is not one"),
    ("no-such-codec", "which Python does not know")])
@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_mapping_s_encoding_must_be_a_text_encoding(capsys, tmp_path, encoding, why, engine):
    f = tmp_path / "r.csv"
    f.write_text("unit,rater,value\nu1,a,1\nu1,b,2\nu2,a,1\nu2,b,1\n")
    m = tmp_path / "mapping.json"
    m.write_text(json.dumps({"layout": "long", "unit": ["unit"], "rater": "rater", "value": "value",
                             "encoding": encoding}))
    code, out, err = run(capsys, "panel", str(f), "--mapping", str(m), "--engine", engine)
    assert (code, out) == (3, "")
    assert err == (f"mapping.json, column 'encoding': encoding must be a text encoding such as utf-8 or cp1252; "
                   f"got {encoding!r}, {why}\n")


def test_a_text_encoding_in_a_mapping_still_reads(capsys, tmp_path):
    f = tmp_path / "r.csv"
    f.write_bytes("unit,rater,value\nu1,Ren\u00e9,1\nu1,b,2\nu2,Ren\u00e9,1\nu2,b,1\n".encode("cp1252"))
    m = tmp_path / "mapping.json"
    m.write_text(json.dumps({"layout": "long", "unit": ["unit"], "rater": "rater", "value": "value",
                             "encoding": "cp1252"}))
    code, out, err = run(capsys, "panel", str(f), "--mapping", str(m), "--json")
    assert (code, err) == (1, "")
    dim = json.loads(out)["panel"]["dimensions"][0]
    assert (dim["verdict"], dim["ratings"], dim["detectors"]) == ("REPORT_ONLY", 4, ["Ren\u00e9", "b"])


# --- 5. the data folder reads what it listed --------------------------------------------------------

@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A data folder (as tests/ui/test_data_folder.py builds it): a file and a subfolder of parts;
    beside the folder, outside it, data that must never be read."""
    root = tmp_path / "data"
    parts = root / "weekly"
    parts.mkdir(parents=True)
    rows = [line.split(",") for line in (S / "detector_panel.csv").read_text().splitlines()[1:]]
    for i in range(3):
        chunk = rows[i::3]
        columns = ("dimension", "unit", "rater", "value")
        pq.write_table(pa.table({k: [r[j] for r in chunk] for j, k in enumerate(columns)}), parts / f"part-{i}.parquet")
    (root / "ratings.csv").write_bytes((S / "detector_panel.csv").read_bytes())
    outside = tmp_path / "outside"
    shutil.copytree(parts, outside)
    (outside / "secret.csv").write_text("unit,rater,value\nu1,a,1\nu1,b,1\n")
    monkeypatch.setenv("AGREEBOUND_DATA_DIR", str(root))
    monkeypatch.setenv("AGREEBOUND_DB", "off")
    return root


@pytest.fixture
def engine_calls(monkeypatch):
    """Every path handed to DuckDB or to the column detection, by the data folder's functions."""
    from agreebound.engines import common, duckdb_engine

    seen: list[str] = []
    for module, name in ((duckdb_engine, "panel_counts"), (duckdb_engine, "rater_diagnostics"),
                         (common, "detect_columns")):
        real = getattr(module, name)

        def spy(paths, *a, _real=real, **k):
            seen.extend([paths] if isinstance(paths, str) else list(paths))
            return _real(paths, *a, **k)

        monkeypatch.setattr(module, name, spy)
    return seen


SWAPPED = "not read: {}; only regular files inside the data folder are read, choose the data set again"


def test_a_listed_file_swapped_for_a_link_is_not_read(folder, engine_calls):
    from agreebound.ui import data

    entries = data.folder_entries()
    assert sorted(entries) == ["ratings.csv", "weekly/*.parquet"]
    picked = data.folder_data("ratings.csv", entries["ratings.csv"])
    f = Path(picked.ratings[0].given)
    f.unlink()
    f.symlink_to(folder.parent / "outside" / "secret.csv")  # swapped after the listing
    for measure in (lambda: data.measured_panel(picked),
                    lambda: data.folder_diagnostics(data.data_digest(picked), picked, "nominal", "sexual")):
        with pytest.raises(InputError) as e:
            measure()
        assert str(e.value) == "ratings.csv: " + SWAPPED.format(
            "it was replaced by a symbolic link after the data folder was listed")
    assert engine_calls == []  # nothing was handed to an engine: the outside file was never read


def test_a_listed_folder_swapped_for_a_link_is_not_read(folder, engine_calls):
    from agreebound.ui import data

    files = data.folder_entries()["weekly/*.parquet"]
    picked = data.folder_data("weekly/*.parquet", files)
    shutil.rmtree(folder / "weekly")
    (folder / "weekly").symlink_to(folder.parent / "outside", target_is_directory=True)
    with pytest.raises(InputError) as e:
        data.measured_panel(picked)
    assert str(e.value) == "weekly/part-0.parquet: " + SWAPPED.format(
        "a folder on its path was replaced by a symbolic link after the data folder was listed")
    assert engine_calls == []


def test_a_listed_file_swapped_for_a_pipe_is_not_opened(folder, engine_calls):
    import signal

    from agreebound.ui import data

    def hung(*_):  # a regression would block on the pipe forever: fail instead
        raise AssertionError("the pipe was opened and waited on")

    signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)

    picked = data.folder_data("ratings.csv", data.folder_entries()["ratings.csv"])
    f = Path(picked.ratings[0].given)
    f.unlink()
    os.mkfifo(f)
    with pytest.raises(InputError) as e:
        data.measured_panel(picked)
    assert str(e.value) == "ratings.csv: " + SWAPPED.format(
        "it is no longer a regular file (a folder, a pipe or a device was put in its place)")
    assert engine_calls == []
    assert "ratings.csv" not in data.folder_entries()  # nor offered again (listing never opens a pipe)
    signal.alarm(0)


def test_an_untouched_listing_is_measured(folder, engine_calls):
    from agreebound.ui import data

    picked = data.folder_data("weekly/*.parquet", data.folder_entries()["weekly/*.parquet"])
    measured = data.measured_panel(picked)
    assert sorted(measured) == ["insult", "sexual", "violence"]
    assert sorted(Path(p).name for p in engine_calls) == ["part-0.parquet", "part-0.parquet", "part-1.parquet",
                                                          "part-2.parquet"]  # the columns from the first, then all


def test_duckdbs_message_names_each_input_once_as_the_user_named_it():
    """Each path in DuckDB's message becomes the user's name for the inputs, in one pass: a name
    put in ("0.csv (and 1 more)" holds "0.csv") is never replaced again."""
    from agreebound.engines.duckdb_engine import duckdb_said

    said = duckdb_said(Exception("Error reading 0.csv and /x/1.csv at line 3"), "0.csv (and 1 more)",
                       ["0.csv", "/x/1.csv"], "/tmp/agreebound-none")
    assert said == "DuckDB could not read it: Error reading 0.csv (and 1 more) and 0.csv (and 1 more) at line 3"
