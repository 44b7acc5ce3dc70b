"""inspect_ai ``.eval`` archives that inflate far past their size (issue 50): every member is bounded
while it inflates, whatever its header says, so each bomb ends in exit 3 with one located line,
under 400 MB and within seconds, in the CLI and through the dashboard's judge upload, with what was
loaded before kept. The files are made at test time (tests/data/make_hostile_files.py:
eval_bomb_cases, about 2 MB in all): nothing large is committed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from tests.data import make_hostile_files  # noqa: E402
from tests.support.peak import run_cli_forked as run_cli  # noqa: E402

PEAK_MIB = 400
SECONDS = 10


@pytest.fixture(scope="module")
def eval_bombs(tmp_path_factory):
    return make_hostile_files.eval_bomb_cases(tmp_path_factory.mktemp("eval_bombs"))


def _inflated(path: Path, member: str, limit: int) -> int:
    """Bytes the member really inflates to, counted up to ``limit`` (the bombs are what they claim),
    read here without agreebound's reader: zipfile for deflate, pyarrow's codec for Zstandard."""
    import struct

    import pyarrow as pa

    data = path.read_bytes()
    zf = zipfile.ZipFile(io.BytesIO(data))
    info = zf.getinfo(member)
    if info.compress_type == 8:
        stream = zf.open(info)
        stream._left = 10**12  # let it run past the declared size, to count the truth
    else:
        at = info.header_offset
        start = at + 30 + sum(struct.unpack("<HH", data[at + 26:at + 30]))
        stream = pa.CompressedInputStream(pa.BufferReader(data[start:start + info.compress_size]), "zstd")
    n = 0
    while n < limit and (chunk := stream.read(2**20)):
        n += len(chunk)
    return n


@pytest.fixture(scope="module")
def eval_wide(tmp_path_factory):
    return make_hostile_files.eval_wide_cases(tmp_path_factory.mktemp("eval_wide"))


def test_the_eval_bombs_are_small_files_that_inflate_past_a_gigabyte(eval_bombs):
    assert len(eval_bombs) == 4
    for case in eval_bombs:
        assert case["path"].stat().st_size < 2 * 10**6, case["what"]
        assert _inflated(case["path"], case["member"], 10**9 + 1) > 10**9, case["what"]
    small = next(c for c in eval_bombs if "declares 2 KB" in c["what"])
    assert zipfile.ZipFile(small["path"]).getinfo("header.json").file_size == 2005


@pytest.mark.parametrize("index", range(4))
def test_each_eval_bomb_is_one_located_line_within_bounds_in_the_cli(eval_bombs, index):
    case = eval_bombs[index]
    started = time.monotonic()
    code, out, err, peak = run_cli(["calibrate", str(case["path"])], timeout=120)
    seconds = time.monotonic() - started
    lines = err.decode().splitlines()
    assert code == 3, (case["what"], code, err[-400:])
    assert out == b""
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{case['path'].name}, member '{case['member']}': the .eval archive's JSON member "
                               "unpacks to "), lines[0]
    assert peak < PEAK_MIB, (case["what"], peak)
    assert seconds < SECONDS, (case["what"], seconds)


def test_the_messages_say_the_limit_or_the_lie(eval_bombs):
    said = {}
    for case in eval_bombs:
        _, _, err, _ = run_cli(["calibrate", str(case["path"])], timeout=120)
        said[case["path"].name] = err.decode().strip()
    assert said == {
        "deflate_header_1_9gb.eval": "deflate_header_1_9gb.eval, member 'header.json': the .eval archive's JSON "
                                     "member unpacks to 1,900 MB; the limit is 64 MB",
        "zstd_header_3gb_declared_small.eval": "zstd_header_3gb_declared_small.eval, member 'header.json': the .eval "
                                               "archive's JSON member unpacks to more than its entry declares (a "
                                               "damaged or crafted archive)",
        "zstd_header_1_9gb.eval": "zstd_header_1_9gb.eval, member 'header.json': the .eval archive's JSON member "
                                  "unpacks to 1,896 MB; the limit is 64 MB",
        "zstd_sample_1_9gb.eval": "zstd_sample_1_9gb.eval, member 'samples/q1_epoch_1.json': the .eval archive's "
                                  "JSON member unpacks to 1,896 MB; the limit is 64 MB",
    }


def test_a_member_is_stopped_by_what_comes_out_not_by_its_header(tmp_path):
    """A Zstandard member declaring 1 MiB that holds 10 MiB: refused once a byte more than the
    declared size has come out, with at most one 64 KiB read past it."""
    from agreebound.core.errors import InputError
    from agreebound.io.archive import CHUNK, open_archive

    data = make_hostile_files._zip_of([("m.json", 93, make_hostile_files._zstd_spaces(b"", 16), 2**20)])
    archive = open_archive("x.zip", data, "archive")
    stream = archive.open(archive.infos()[0], "part", 2 * 2**20)
    with pytest.raises(InputError, match=r"^x.zip, member 'm.json': the archive's part unpacks to more than its "
                                         r"entry declares \(a damaged or crafted archive\)$"):
        while stream.read(CHUNK):
            pass
    assert 2**20 < stream.got <= 2**20 + 1
    assert archive.unpacked == 2**20  # the archive's total counts only what was handed on


_APP = textwrap.dedent("""
    import json, re, sys, time
    from pathlib import Path
    from streamlit.testing.v1 import AppTest
    root, files = Path(sys.argv[1]), sys.argv[2:]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/judge.py").run()
    before = at.session_state["judge_source"].label
    def hwm():
        with open("/proc/self/status") as s:
            return next(int(line.split()[1]) for line in s if line.startswith("VmHWM:")) / 1024
    start = hwm()
    out = []
    for f in files:
        started = time.monotonic()
        at.file_uploader(key="bundle_upload").set_value((Path(f).name, Path(f).read_bytes(), "application/zip")).run()
        errors = [re.sub(r"\\\\(.)", r"\\1", e.value) for e in at.error]  # as a reader sees the Markdown
        out.append({"file": Path(f).name, "errors": errors, "exception": [str(e.value) for e in at.exception],
                    "kept": at.session_state["judge_source"].label == before,
                    "seconds": time.monotonic() - started})
    print(json.dumps({"results": out, "peak": hwm(), "start": hwm() and start}))
""")


def test_each_eval_bomb_through_the_dashboard_upload_keeps_what_was_loaded(eval_bombs):
    proc = subprocess.run([sys.executable, "-c", _APP, str(ROOT), *(str(c["path"]) for c in eval_bombs)],
                          capture_output=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    got = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    for case, r in zip(eval_bombs, got["results"]):
        assert not r["exception"], (case["what"], r["exception"])
        assert any(e.startswith(f"{case['path'].name}, member '{case['member']}': the .eval archive's JSON member "
                                "unpacks to ") for e in r["errors"]), (case["what"], r["errors"])
        assert r["kept"], case["what"]
        assert r["seconds"] < SECONDS, (case["what"], r["seconds"])
    # what the four bombs added to the dashboard's peak (Streamlit and the page were loaded before)
    assert got["peak"] - got["start"] < PEAK_MIB, got


@pytest.mark.parametrize("index", [0, 1])
def test_many_members_are_refused_from_the_end_record_before_the_directory_is_parsed(eval_wide, index, tmp_path):
    """150,000 empty members (a 19 MB archive; 2,000,000 took 1.5 GB in zipfile's directory), and the
    same archive whose end record says 10: counted from the directory's entries, refused at once."""
    case = eval_wide[index]
    code, out, err, peak = run_cli(["calibrate", str(case["path"])], timeout=120)
    assert (code, out) == (3, b"")
    assert err.decode() == f"{case['path'].name}: the .eval archive holds 150,000 members; the limit is 100,000\n"
    assert peak < PEAK_MIB, peak
    # a workbook goes through the format sniffer first: the same check, before zipfile parses it
    workbook = tmp_path / "members.xlsx"
    workbook.write_bytes(case["path"].read_bytes())
    code, _, err, peak = run_cli(["panel", str(workbook)], timeout=120)
    assert (code, err.decode()) == (3, "members.xlsx: the zip archive holds 150,000 members; the limit is 100,000\n")
    assert peak < PEAK_MIB, peak


@pytest.mark.slow  # 1.9 GB inflated and parsed
def test_many_honest_60_mb_samples_are_read_without_holding_them(eval_wide):
    """31 samples of 60 MB each (1.9 GB unpacked, within every member's limit): before, every
    sample's scores were kept whole (2.2 GB peak); now only what the audit reads is kept."""
    case = eval_wide[2]
    started = time.monotonic()
    code, out, err, peak = run_cli(["calibrate", str(case["path"]), "--json"], timeout=300)
    seconds = time.monotonic() - started
    assert code == 1 and err == b"", err[-400:]  # read: INCOMPLETE (no human labels), a verdict
    scored = json.loads(out)["scored"]
    assert (scored["shape"], scored["items"]) == ("inspect_ai", 31)
    assert peak < PEAK_MIB, peak
    assert seconds < 30, seconds
