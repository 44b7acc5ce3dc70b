"""Data where it lives (issue 51): ``s3://`` objects and patterns through the standard AWS_*
variables against a real S3-compatible server (moto in server mode on 127.0.0.1, started here),
``http(s)://`` URLs against a local HTTP server, and ``-`` (standard input). Each gives the report
the local file gives: ``panel`` and ``calibrate``, in memory and out of core (DuckDB reads a copy
of the objects). A URL that cannot be read says what happened (exit 3, one line naming the URL),
never "No such file or directory", never a traceback, and never waits forever."""

from __future__ import annotations

import csv
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3
import pytest

from tests.support.cli import process

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
BUCKET = "ratings"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the S3 server stopped (exit {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the S3 server did not start")


def _moto(extra: dict[str, str] | None = None):
    """A moto S3 server on 127.0.0.1 at a free port: (its endpoint, its process)."""
    port = _free_port()
    env = {**os.environ, **(extra or {})}
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _wait_for(port, proc)
    return f"http://127.0.0.1:{port}", proc


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """The S3 server with the bucket of samples (and what the tests add): (endpoint, client, local folder)."""
    endpoint, proc = _moto()
    try:
        client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                              aws_secret_access_key="testing", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        local = tmp_path_factory.mktemp("local")
        for f in SAMPLES.glob("*.*"):
            shutil.copy(f, local / f.name)
        shutil.copytree(SAMPLES / "judge_logs", local / "judge_logs")
        _long_parts(local)
        _long_parquet(local)
        for f in local.rglob("*"):
            if f.is_file():
                client.upload_file(str(f), BUCKET, f.relative_to(local).as_posix())
        yield endpoint, client, local
    finally:
        _stop(proc)


def _long_rows() -> list[tuple[str, str, str]]:
    with open(SAMPLES / "krippendorff_2011.csv", newline="") as f:
        rows = list(csv.reader(f))
    return [(r[0], rows[0][j + 1], v) for r in rows[1:] for j, v in enumerate(r[1:]) if v != "NA"]


def _long_parts(folder: Path) -> None:
    """Krippendorff (2011)'s table as long CSV parts (a pattern's files) and one long CSV."""
    (folder / "parts").mkdir()
    rows = _long_rows()
    for i, part in enumerate((rows[:20], rows[20:])):
        with open(folder / "parts" / f"part-{i}.csv", "w", newline="") as f:
            csv.writer(f).writerows([("unit", "rater", "value"), *part])
    with open(folder / "long.csv", "w", newline="") as f:
        csv.writer(f).writerows([("unit", "rater", "value"), *rows])


def _long_parquet(folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _long_rows()
    pq.write_table(pa.table({"unit": [r[0] for r in rows], "rater": [r[1] for r in rows],
                             "value": [int(r[2]) for r in rows]}), folder / "long.parquet")


def _env(endpoint: str, tmp: Path, **more: str) -> dict[str, str]:
    """The standard AWS variables for the test server, and nothing of the machine's own AWS setup."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1",
               AWS_ENDPOINT_URL=endpoint, AWS_EC2_METADATA_DISABLED="true",
               AWS_CONFIG_FILE=str(tmp / "no-aws-config"), AWS_SHARED_CREDENTIALS_FILE=str(tmp / "no-aws-credentials"),
               TMPDIR=str(tmp))
    env.update(more)
    return env


def _cli(args, env=None, stdin: bytes | None = None, cwd=None) -> tuple[int, str, str]:
    proc = process(*args, timeout=180, env=env, stdin=stdin, cwd=cwd, text=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _on_s3(args: list[str], local: Path) -> list[str]:
    """The arguments with each input file (or pattern) named by its object's URL."""
    out = []
    for a in args:
        is_input = not a.startswith("-") and (any((local / p).exists() for p in [a]) or "*" in a)
        out.append(f"s3://{BUCKET}/{a}" if is_input else a)
    return out


PANELS = [
    ["panel", "krippendorff_2011.csv", "--json"],  # a wide CSV, in memory
    ["panel", "long.parquet", "--json"],  # long Parquet, in memory
    ["panel", "parts/part-*.csv", "--json"],  # a pattern: DuckDB, on copies of the objects
    ["panel", "long.csv", "--engine", "duckdb", "--json"],
    ["panel", "detector_panel.csv", "--rates", "detector_rates.csv", "--json"],
]
CALIBRATIONS = [
    ["calibrate", "judge_failing.json", "--json"],  # a bundle
    ["calibrate", "judge_failing_contract.json", "--references", "judge_failing_references.csv",
     "--observations", "judge_failing_observations.csv", "--json"],  # the tabular trio, in memory
    ["calibrate", "judge_failing_contract.json", "--references", "judge_failing_references.csv",
     "--observations", "judge_failing_observations.csv", "--engine", "duckdb", "--json"],  # out of core
    ["calibrate", "judge_failing_contract.json", "--references", "judge_failing_references.csv",
     "--observations", "judge_failing_observations*.csv", "--json"],  # a pattern: DuckDB
    ["calibrate", "judge_logs/mt_bench_gpt-4_pair.jsonl", "--references", "judge_logs/mt_bench_human_judgments.jsonl",
     "--json"],  # a judge log
]


@pytest.mark.parametrize("args", PANELS + CALIBRATIONS, ids=lambda a: " ".join(a[1:]))
def test_s3_objects_give_the_local_files_report(s3, tmp_path, args):
    """Byte for byte: a report names its inputs by their file names, and an object's name is its
    key's last part, so no field differs; the verdict's exit code is the same."""
    endpoint, _, local = s3
    here = _cli(args, _env(endpoint, tmp_path), cwd=local)
    remote_args = _on_s3(args, local)
    assert any(a.startswith("s3://") for a in remote_args)
    there = _cli(remote_args, _env(endpoint, tmp_path), cwd=tmp_path)
    assert here[0] in (0, 1, 2) and here[2] == "", here[2]
    assert there == here
    assert not list(tmp_path.glob("agreebound-s3-*"))  # DuckDB's copies are gone


def test_a_pattern_lists_the_objects_it_matched(s3, tmp_path):
    endpoint, _, _ = s3
    code, out, err = _cli(["panel", f"s3://{BUCKET}/parts/part-*.csv", "--json"], _env(endpoint, tmp_path))
    assert err == "" and code in (0, 1, 2)
    assert [i["file"] for i in json.loads(out)["inputs"]] == ["part-0.csv", "part-1.csv"]


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "No such file" not in err and "Traceback" not in err
    return err[:-1]


def test_what_cannot_be_read_on_s3_is_said(s3, tmp_path):
    endpoint, _, _ = s3
    env = _env(endpoint, tmp_path)
    cases = {
        f"s3://{BUCKET}/missing.csv": f"s3://{BUCKET}/missing.csv: no object 'missing.csv' in bucket '{BUCKET}' at "
                                      f"the S3 endpoint {endpoint}",
        "s3://no-such-bucket/r.csv": f"s3://no-such-bucket/r.csv: no bucket 'no-such-bucket' at the S3 endpoint {endpoint}",
        f"s3://{BUCKET}/parts/*.tsv": f"s3://{BUCKET}/parts/*.tsv: no object matches this pattern",
        "s3://no-such-bucket/*.csv": f"s3://no-such-bucket/*.csv: no bucket 'no-such-bucket' at the S3 endpoint {endpoint}",
    }
    for url, said in cases.items():
        assert _cli(["panel", url], env)[:2] == (3, ""), url
        assert _one_line(_cli(["panel", url], env)[2]) == said
    code, out, err = _cli(["calibrate", f"s3://{BUCKET}/missing.json"], env)
    assert (code, out, _one_line(err)) == (3, "", f"s3://{BUCKET}/missing.json: no object 'missing.json' in bucket "
                                                  f"'{BUCKET}' at the S3 endpoint {endpoint}")


def test_an_unreachable_endpoint_is_said_as_such(tmp_path):
    closed = f"http://127.0.0.1:{_free_port()}"
    code, out, err = _cli(["panel", f"s3://{BUCKET}/long.csv"], _env(closed, tmp_path))
    assert (code, out) == (3, "")
    assert _one_line(err).startswith(f"s3://{BUCKET}/long.csv: cannot reach the S3 endpoint {closed} (")


def test_refused_credentials_are_said_as_such(tmp_path):
    """A server that checks credentials (moto with its authentication on) refuses unknown keys."""
    endpoint, proc = _moto({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        for url in (f"s3://{BUCKET}/long.csv", f"s3://{BUCKET}/parts/*.csv"):
            code, out, err = _cli(["panel", url], _env(endpoint, tmp_path))
            assert (code, out, _one_line(err)) == (3, "", f"{url}: access refused by the S3 endpoint {endpoint}: "
                                                          "check the credentials (AWS_ACCESS_KEY_ID, "
                                                          "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and their "
                                                          "rights on the bucket")
    finally:
        _stop(proc)


def test_an_object_over_the_size_limit_is_refused_before_it_is_read(s3, tmp_path, monkeypatch):
    from agreebound.core.errors import InputError
    from agreebound.io import remote, tables

    endpoint, _, _ = s3
    for k, v in _env(endpoint, tmp_path).items():
        if k.startswith("AWS_"):
            monkeypatch.setenv(k, v)
    monkeypatch.setattr(tables, "MAX_INPUT_BYTES", 100)
    monkeypatch.setattr(remote, "_s3_copy", lambda *a, **k: pytest.fail("the object was read"))
    with pytest.raises(InputError) as e:
        remote.read_s3(f"s3://{BUCKET}/krippendorff_2011.csv")
    assert str(e.value) == "krippendorff_2011.csv: the file is 0.2 kB; the limit is 0.1 kB"


@pytest.fixture
def silent_server():
    """A server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join(5)
    for c in held:
        c.close()
    server.close()


def test_a_server_that_never_answers_is_given_up_on(silent_server, tmp_path):
    endpoint = f"http://127.0.0.1:{silent_server}"
    for url, env in ((f"s3://{BUCKET}/long.csv", _env(endpoint, tmp_path, AGREEBOUND_NETWORK_TIMEOUT="2")),
                     (f"{endpoint}/long.csv", _env(endpoint, tmp_path, AGREEBOUND_NETWORK_TIMEOUT="2"))):
        started = time.monotonic()
        code, out, err = _cli(["panel", url], env)
        assert time.monotonic() - started < 60
        assert (code, out) == (3, "")
        assert "no answer within 2 s" in _one_line(err) and err.startswith(f"{url}: cannot reach ")


# --- http(s) and standard input -----------------------------------------------------------------


@pytest.fixture(scope="module")
def http_samples():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SAMPLES)))
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_http_url_gives_the_local_files_report(http_samples):
    for args in (["panel", "krippendorff_2011.csv", "--json"], ["calibrate", "judge_failing.json", "--json"]):
        here = _cli([args[0], str(SAMPLES / args[1]), *args[2:]])
        there = _cli([args[0], f"{http_samples}/{args[1]}", *args[2:]])
        assert here[0] in (0, 1, 2) and there == here


def test_an_http_url_that_cannot_be_read_says_why(http_samples):
    code, out, err = _cli(["panel", f"{http_samples}/missing.csv"])
    assert (code, out, _one_line(err)) == (3, "", f"{http_samples}/missing.csv: cannot read it: the server answered "
                                                  "HTTP 404 File not found")
    port = _free_port()
    code, out, err = _cli(["panel", f"http://127.0.0.1:{port}/long.csv"])
    assert (code, out, _one_line(err)) == (3, "", f"http://127.0.0.1:{port}/long.csv: cannot reach 127.0.0.1:{port} "
                                                  "(Connection refused)")
    code, out, err = _cli(["panel", "gs://bucket/long.csv"])
    assert (code, out) == (3, "") and _one_line(err).startswith("gs://bucket/long.csv: cannot read gs:// URLs; ")


@pytest.mark.parametrize("args", (["panel", "krippendorff_2011.csv", "--json"],
                                  ["calibrate", "judge_failing.json", "--json"]))
def test_standard_input_gives_the_local_files_report_named_stdin(args):
    """Only the input's name differs: inputs[0].file is "stdin"."""
    path = SAMPLES / args[1]
    code, out, err = _cli([args[0], str(path), *args[2:]])
    code2, out2, err2 = _cli([args[0], "-", *args[2:]], stdin=path.read_bytes())
    assert (code2, err2) == (code, "") and code in (0, 1, 2)
    here, there = json.loads(out), json.loads(out2)
    assert [i["file"] for i in there["inputs"]] == ["stdin"]
    there["inputs"][0]["file"] = path.name
    assert there == here


def test_standard_input_out_of_core_is_refused_naming_it():
    code, out, err = _cli(["panel", "-", "--engine", "duckdb"], stdin=(SAMPLES / "krippendorff_2011.csv").read_bytes())
    assert (code, out, _one_line(err)) == (3, "", "stdin: the duckdb engine reads files; standard input is read in "
                                                  "memory (--engine numpy)")


# --- hostile keys, stalled transfers, changed objects --------------------------------------------


def _aws(monkeypatch, endpoint: str, tmp: Path) -> None:
    """The test server's AWS variables in this process (for calls made here, not through the CLI)."""
    for k in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(k)
    for k, v in _env(endpoint, tmp).items():
        if k.startswith("AWS_"):
            monkeypatch.setenv(k, v)


ESCAPING_KEY = "..%2F..%2Fescaped_by_s3%2Fpwned.csv"  # its last part, unquoted, is ../../escaped_by_s3/pwned.csv


@pytest.fixture(scope="module")
def hostile_bucket(s3):
    """A bucket whose only object's key, read as a path once %2F is unquoted, climbs out of a folder."""
    endpoint, client, local = s3
    client.create_bucket(Bucket="hostile")
    client.upload_file(str(local / "long.csv"), "hostile", ESCAPING_KEY)
    return "hostile"


def test_an_object_key_cannot_place_its_copy_outside_the_temporary_folder(s3, hostile_bucket, tmp_path):
    """DuckDB reads copies of the objects: each copy is named by its number, so a key that unquotes
    to ../../x writes nothing outside the temporary folder; the report names the object as before."""
    endpoint, _, local = s3
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    code, out, err = _cli(["panel", f"s3://{hostile_bucket}/*.csv", "--engine", "duckdb", "--json"],
                          _env(endpoint, deep))
    assert (code, err) == (_cli(["panel", str(local / "long.csv"), "--engine", "duckdb"])[0], ""), err
    assert not list(tmp_path.rglob("pwned.csv")) and not list(tmp_path.rglob("escaped_by_s3"))
    assert not os.path.exists("/tmp/escaped_by_s3/pwned.csv")
    assert [i["file"] for i in json.loads(out)["inputs"]] == ["pwned.csv"]
    assert not list(deep.glob("agreebound-s3-*"))


def test_copies_are_numbered_inside_the_folder(s3, hostile_bucket, tmp_path, monkeypatch):
    from agreebound.io import remote

    endpoint, _, _ = s3
    _aws(monkeypatch, endpoint, tmp_path)
    folder = tmp_path / "copies"
    folder.mkdir()
    urls = [f"s3://{hostile_bucket}/{ESCAPING_KEY}", f"s3://{BUCKET}/long.parquet", f"s3://{BUCKET}/parts/part-1.csv"]
    got = remote.stage(urls, str(folder), first=7)
    assert got == [str(folder.resolve() / n) for n in ("7.csv", "8.parquet", "9.csv")]
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["7.csv", "8.parquet", "9.csv"]


def test_a_message_about_a_copy_names_the_objects_url(s3, tmp_path):
    endpoint, client, local = s3
    client.put_object(Bucket=BUCKET, Key="ragged/a.csv", Body=b"unit,rater,value\n1,a,1\n1,b,2,5\n2,a,1\n2,b,1\n")
    client.put_object(Bucket=BUCKET, Key="ragged/b.csv", Body=(local / "parts" / "part-0.csv").read_bytes())
    code, out, err = _cli(["panel", f"s3://{BUCKET}/ragged/*.csv", "--engine", "duckdb"], _env(endpoint, tmp_path))
    assert (code, out, _one_line(err)) == (3, "", f"s3://{BUCKET}/ragged/a.csv, row 3: row has 4 cells; the header "
                                                  "has 3")


@pytest.mark.parametrize("url", [f"s3://b/{ESCAPING_KEY}", "s3://b/%2E%2E", "s3://b/..", "s3://b/a/%2e%2e%2f",
                                 "s3://b/x%00y%0Az%1B.csv", "s3://b/..%5C..%5Cwin.csv", "https://h/%2F%2F",
                                 "https://h/a..b...csv", "s3://b/%C2%85next.csv"])
def test_a_url_s_name_is_one_plain_part(url):
    from agreebound.io.remote import url_name

    name = url_name(url)
    assert name and "/" not in name and "\\" not in name and ".." not in name and name not in (".", "..")
    assert not any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name), name


def test_any_url_s_name_is_one_plain_part():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from agreebound.io.remote import url_name

    parts = st.lists(st.sampled_from(list("ab./\\%2F5CE0.\x00\n\x85") + ["%2F", "%2E", "%00", "%5C"]),
                     max_size=30).map("".join)

    @settings(max_examples=500, deadline=None)
    @given(st.sampled_from(["s3://bkt/", "https://host/dir/", "http://h/"]), parts)
    def check(prefix: str, tail: str) -> None:
        name = url_name(prefix + tail)
        assert name and "/" not in name and "\\" not in name and ".." not in name, (tail, name)
        assert not any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name), (tail, name)

    check()


def _ours() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "agreebound-remote" and t.is_alive()]


def _none_of_ours_within(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _ours()


@pytest.fixture
def trickling_server():
    """An HTTP server that sends a body a kilobyte every 50 ms (each read returns, so no socket
    times out, but a megabyte takes 50 s): (its URL, an event set when its client went away)."""
    gone = threading.Event()

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(100 << 20))
            self.end_headers()
            try:
                for _ in range(1200):  # a minute at most
                    self.wfile.write(b"x" * 1024)
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                gone.set()

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/slow.csv", gone
    server.shutdown()
    server.server_close()


def test_a_timed_out_download_stops_reading(trickling_server, monkeypatch):
    """After the timeout is said, no thread goes on downloading: the connection is shut."""
    from agreebound.core.errors import InputError
    from agreebound.io import remote

    url, gone = trickling_server
    monkeypatch.setenv("AGREEBOUND_NETWORK_TIMEOUT", "1")
    assert _none_of_ours_within(5)
    started = time.monotonic()
    with pytest.raises(InputError) as e:
        remote.read_http(url)
    assert str(e.value) == f"{url}: cannot reach it: no answer within 1 s (AGREEBOUND_NETWORK_TIMEOUT sets the wait)"
    assert time.monotonic() - started < 10
    assert _none_of_ours_within(1.0), _ours()
    assert gone.wait(5)  # the server saw its client go


def test_a_timed_out_s3_copy_stops_reading(monkeypatch):
    """An object's stream that stalls past the timeout, then flows again: the copy reads no further
    chunk once the timeout is said (its thread ends at the next read's return)."""
    from agreebound.core.errors import InputError
    from agreebound.io import remote

    reads = []

    class Stream:
        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            pass

        def read(self, n: int) -> bytes:
            reads.append(time.monotonic())
            if len(reads) == 2:
                time.sleep(1.6)  # past the 1 s timeout
            elif len(reads) > 400:  # the test's own end (a loop that never stops would go on for ever)
                return b""
            else:
                time.sleep(0.01)
            return b"x" * 10

    class Fs:
        def open_input_stream(self, path: str) -> Stream:
            return Stream()

    class Info:
        path = "bkt/key.csv"

    monkeypatch.setenv("AGREEBOUND_NETWORK_TIMEOUT", "1")
    with pytest.raises(InputError, match="no data within 1 s"):
        remote._s3_copy("s3://bkt/key.csv", Fs(), Info(), lambda block: None, None)
    said = time.monotonic()
    assert _none_of_ours_within(2.0), _ours()
    assert len([t for t in reads if t > said]) <= 1


@pytest.fixture
def changing_http():
    """An HTTP server whose one body the test changes; it counts the GETs."""
    state = {"body": b"unit,rater,value\n1,a,1\n1,b,1\n2,a,2\n2,b,2\n", "gets": 0}

    class Body(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state["gets"] += 1
            self.send_response(200)
            self.send_header("Content-Length", str(len(state["body"])))
            self.end_headers()
            self.wfile.write(state["body"])

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Body)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/ratings.csv", state
    server.shutdown()
    server.server_close()


def test_an_http_source_s_digest_is_its_bytes_read_once(changing_http):
    from agreebound.app.recipes import Source

    url, state = changing_http
    first = Source.at(url)
    before = first.digest
    assert first.read() == ("ratings.csv", state["body"]) and state["gets"] == 1  # read once, kept
    assert Source.at(url).digest == before
    state["body"] = state["body"].replace(b"2\n", b"1\n")
    assert Source.at(url).digest != before


def test_an_s3_source_s_digest_changes_with_its_object(s3, tmp_path, monkeypatch):
    """Keyed by the object's size, ETag and time (one HEAD, no download): a changed object under
    the same key, even of the same size, is a new digest; a pattern's digest follows its objects'
    sizes and times."""
    from agreebound.io import remote
    from agreebound.app.recipes import Source

    endpoint, client, _ = s3
    _aws(monkeypatch, endpoint, tmp_path)
    url, pattern = f"s3://{BUCKET}/changing/r.csv", f"s3://{BUCKET}/changing/*.csv"
    client.put_object(Bucket=BUCKET, Key="changing/r.csv", Body=b"unit,rater,value\n1,a,1\n1,b,2\n")
    monkeypatch.setattr(remote, "_s3_copy", lambda *a, **k: pytest.fail("the object was read"))
    one, many = Source.at(url).digest, Source.at(pattern).digest
    assert Source.at(url).digest == one and Source.at(pattern).digest == many
    client.put_object(Bucket=BUCKET, Key="changing/r.csv", Body=b"unit,rater,value\n1,a,2\n1,b,1\n")  # same size
    two = Source.at(url).digest
    assert two != one
    client.put_object(Bucket=BUCKET, Key="changing/r.csv", Body=b"unit,rater,value\n1,a,1\n")
    assert Source.at(url).digest not in (one, two)
    assert Source.at(pattern).digest != many  # a listing holds sizes and times (no ETag): another size
    assert Source.at(f"s3://{BUCKET}/changing/missing.csv").digest == Source.at(f"s3://{BUCKET}/changing/missing.csv").digest
