"""The run store (agreebound.app.store) against real SQLite files and a real PostgreSQL server.

Each test that makes sense on both backends takes ``db_url`` (tests/conftest.py): a fresh SQLite
file, and a fresh database on the session's throwaway PostgreSQL server (tests/support/pg_server.py).
Writers that must run concurrently or be killed are separate processes running a small script.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

import agreebound.app.store as store_mod
from agreebound import __version__
from agreebound.core.limits import MAX_INPUT_BYTES
from agreebound.app.store import Store, StoreError, configured_url, describe

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_data"
PROC_TIMEOUT_S = 120


# --- helpers ---------------------------------------------------------------------------------------


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha(path: Path) -> str:
    return sha(path.read_bytes())


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def sqlite_path(url: str) -> Path:
    return Path(sa.make_url(url).database)


def panel_report_of(name: str, data: bytes) -> dict:
    from agreebound.panel.measure import measure_panels
    from agreebound.io.ratings import import_ratings
    from agreebound.render.report import panel_report
    from agreebound.app.pipeline import decide_panels
    from agreebound.core.thresholds import DEFAULT

    imp = import_ratings(name, data)
    return panel_report(measure_panels(imp.panels, "auto"), decide_panels(measure_panels(imp.panels, "auto"), DEFAULT), DEFAULT, [(name, data)], imp)


AGREE_CSV = ("\n".join(["unit,a,b,c"] + [f"u{i},{i % 3},{i % 3},{i % 3}" for i in range(60)]) + "\n").encode()


@pytest.fixture(scope="module")
def reports():
    """Real reports: the detector panel (REPORT_ONLY), a panel in full agreement (ENFORCE) and the
    illustrative judge bundle (PASS_CALIBRATION, judge judge-v1)."""
    from agreebound.app.pipeline import parse_judge_bundle
    from agreebound.render.report import calibration_report
    from agreebound.judge.decide import decide
    from agreebound.core.thresholds import DEFAULT

    detector = (SAMPLES / "detector_panel.csv").read_bytes()
    judge = (SAMPLES / "judge_illustrative.json").read_bytes()
    bundle = parse_judge_bundle("judge_illustrative.json", judge)
    return SimpleNamespace(
        detector=("detector_panel.csv", detector, panel_report_of("detector_panel.csv", detector)),
        agree=("agree.csv", AGREE_CSV, panel_report_of("agree.csv", AGREE_CSV)),
        judge=("judge_illustrative.json", judge,
               calibration_report(bundle, decide(bundle.measurement, DEFAULT.calibration), DEFAULT, [("judge_illustrative.json", judge)])),
    )


def record_panel(store: Store, name: str, data: bytes, report: dict, **kw) -> store_mod.Run:
    return store.record("panel", [("ratings", name, data)], report, {"level": "auto"}, report["thresholds"],
                        "default", **kw)


def counted(store: Store) -> dict[str, int]:
    """Runs, blobs and the blobs' bytes as uploaded (counts() also reports the bytes as stored)."""
    c = store.counts()
    return {k: c[k] for k in ("runs", "blobs", "blob_bytes")}


def record_small(store: Store, data: bytes, name: str = "x.csv", **kw) -> store_mod.Run:
    """A run with a minimal report (the store only serialises it)."""
    return store.record("panel", [("ratings", name, data)], {"kind": "panel", "panel": {"verdict": "ENFORCE"}},
                        {}, {}, "default", **kw)


def sql_rows(url: str, query: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(query))]
    finally:
        engine.dispose()


def sql_exec(url: str, statement: str) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(statement))
    finally:
        engine.dispose()


def consistency(url: str) -> dict[str, int]:
    """Orphans of every kind: inputs without their run, inputs without their blob, blobs no run uses."""
    return {
        "inputs_without_run": sql_rows(url, "SELECT count(*) FROM agreebound_run_inputs i LEFT JOIN agreebound_runs r "
                                            "ON r.id = i.run_id WHERE r.id IS NULL")[0][0],
        "inputs_without_blob": sql_rows(url, "SELECT count(*) FROM agreebound_run_inputs i LEFT JOIN agreebound_blobs b "
                                             "ON b.sha256 = i.sha256 WHERE b.sha256 IS NULL")[0][0],
        "blobs_without_input": sql_rows(url, "SELECT count(*) FROM agreebound_blobs b WHERE NOT EXISTS (SELECT 1 FROM "
                                             "agreebound_run_inputs i WHERE i.sha256 = b.sha256)")[0][0],
        "runs_without_input": sql_rows(url, "SELECT count(*) FROM agreebound_runs r WHERE NOT EXISTS (SELECT 1 FROM "
                                            "agreebound_run_inputs i WHERE i.run_id = r.id)")[0][0],
    }


NO_ORPHANS = {"inputs_without_run": 0, "inputs_without_blob": 0, "blobs_without_input": 0, "runs_without_input": 0}


def sqlite_integrity(path: Path) -> tuple[list, list]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchall(), conn.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        conn.close()


class Proc:
    """A python script as a child process, its stdout lines collected by a thread (so a killed
    process's last lines are still counted)."""

    def __init__(self, script: str, *args: str, cwd: Path):
        self.p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], cwd=cwd,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.started = time.monotonic()
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.err = ""
        self._out = threading.Thread(target=self._read, daemon=True)
        self._out.start()
        self._errt = threading.Thread(target=self._read_err, daemon=True)
        self._errt.start()

    def _read(self) -> None:
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))

    def _read_err(self) -> None:
        self.err = self.p.stderr.read()

    def next_line(self, timeout: float = PROC_TIMEOUT_S) -> str:
        """The next line printed; an AssertionError (with the child's stderr) at once if the child
        exited without printing it, or after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=0.05)
                break
            except queue.Empty:
                if self.p.poll() is not None and not self._out.is_alive() and self.lines.empty():
                    self._errt.join(10)
                    raise AssertionError(f"the child exited ({self.p.returncode}) instead of printing; "
                                         f"stderr: {self.err[-2000:]}") from None
                if time.monotonic() > deadline:
                    self.kill()
                    self._errt.join(10)
                    raise AssertionError(f"no output from the child in {timeout} s; stderr: {self.err[-2000:]}")
        self.seen.append(line)
        return line

    def send(self, text: str) -> None:
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def kill(self) -> None:
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=PROC_TIMEOUT_S)

    def finish(self, timeout: float = PROC_TIMEOUT_S) -> int:
        """Wait for the exit; then every line it printed is in ``seen``."""
        try:
            rc = self.p.wait(timeout=max(0.1, timeout - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"child still running after {timeout} s; stderr: {self.err[-2000:]}") from None
        self._out.join(10)
        self._errt.join(10)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return rc


# --- recording and reading ---------------------------------------------------------------------------


def test_record_then_get_round_trips(db_url, reports):
    name, data, report = reports.detector
    mapping = b'{"unit": "unit", "rater": "rater"}'
    with Store.open(db_url) as store:
        run = store.record("panel", [("ratings", name, data), ("mapping", "map.json", mapping)], report,
                           {"level": "auto", "mapping": "map.json"}, report["thresholds"], "default",
                           label="first try", origin="dashboard")
        assert store_mod.RUN_ID.match(run.id)
        got = store.get(run.id)
        assert got == run
        assert got.verdict == "REPORT_ONLY" == report["panel"]["verdict"]
        assert got.kind == "panel" and got.data_name == name and got.label == "first try"
        assert got.origin == "dashboard" and got.tool_version == __version__
        assert got.judge is None and got.contract_id is None
        assert got.report == report and got.recipe == {"level": "auto", "mapping": "map.json"}
        assert got.thresholds == report["thresholds"] and got.thresholds_source == "default"
        assert [(i.role, i.name, i.sha256, i.size) for i in got.inputs] == [
            ("ratings", name, sha(data), len(data)), ("mapping", "map.json", sha(mapping), len(mapping))]
        assert store.inputs(got) == [("ratings", name, data), ("mapping", "map.json", mapping)]
        assert store.blob(sha(data)) == data
        assert got.created_utc.endswith("Z") and got.created_utc[:4].isdigit()
        # a fresh connection (a new Store) reads the same run
    with Store.open(db_url) as again:
        assert again.get(run.id) == run
        assert again.inputs(run)[0][2] == data


def test_judge_run_records_judge_and_contract(db_url, reports):
    name, data, report = reports.judge
    with Store.open(db_url) as store:
        run = store.record("judge", [("bundle", name, data)], report, {"judge_source": "bundle"}, report["thresholds"],
                           "default", data_name="illustrative")
    assert run.verdict == "PASS_CALIBRATION" == report["calibration"]["decision"]
    assert run.judge == "judge-v1"
    assert run.contract_id == report["calibration"]["decided_against"]["content_id"]
    assert run.contract_id.startswith("judge-calibration@sha256:")
    assert run.data_name == "illustrative"  # data_name given wins over the file name
    assert run.report == report


def test_unicode_and_odd_names_round_trip(db_url):
    name = "données \u202e\u00e9t\u00e9 \U0001F600.csv"
    with Store.open(db_url) as store:
        run = record_small(store, b"\x00\xff binary\r\n", name=name, label="l\u00e4bel \"quoted\" 'x'")
        got = store.get(run.id)
    assert got.data_name == name and got.inputs[0].name == name and got.label == "l\u00e4bel \"quoted\" 'x'"


def test_same_bytes_are_stored_once_and_deleted_with_their_last_run(db_url, reports):
    name, data, report = reports.detector
    with Store.open(db_url) as store:
        a = record_panel(store, name, data, report)
        b = record_panel(store, "renamed.csv", data, report)
        assert a.id != b.id
        assert a.inputs[0].sha256 == b.inputs[0].sha256 == sha(data)
        assert counted(store) == {"runs": 2, "blobs": 1, "blob_bytes": len(data)}
        assert store.delete(a.id) == 0  # b still uses the blob
        assert counted(store) == {"runs": 1, "blobs": 1, "blob_bytes": len(data)}
        assert store.inputs(store.get(b.id))[0][2] == data
        with pytest.raises(StoreError, match=f"no run {a.id}"):
            store.get(a.id)
        assert store.delete(b.id[:6]) == 1  # by prefix; its blob goes with it
        assert counted(store) == {"runs": 0, "blobs": 0, "blob_bytes": 0}
        with pytest.raises(StoreError, match="is missing"):
            store.blob(sha(data))
    assert consistency(db_url) == NO_ORPHANS


def test_delete_keeps_blobs_shared_with_other_runs_and_removes_the_rest(db_url):
    shared, own_a, own_b = b"shared thresholds", b"data of a", b"data of b"
    with Store.open(db_url) as store:
        a = store.record("panel", [("ratings", "a", own_a), ("thresholds", "t", shared)],
                         {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "file")
        b = store.record("panel", [("ratings", "b", own_b), ("thresholds", "t", shared)],
                         {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "file")
        assert store.counts()["blobs"] == 3
        assert store.delete(a.id) == 1  # own_a only
        assert counted(store) == {"runs": 1, "blobs": 2, "blob_bytes": len(shared) + len(own_b)}
        assert [d for _, _, d in store.inputs(store.get(b.id))] == [own_b, shared]
    assert consistency(db_url) == NO_ORPHANS


def test_the_same_file_twice_in_one_run(db_url):
    with Store.open(db_url) as store:
        run = store.record("panel", [("ratings", "a.csv", b"same"), ("references", "b.csv", b"same")],
                           {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "default")
        assert counted(store) == {"runs": 1, "blobs": 1, "blob_bytes": 4}
        assert [i.name for i in run.inputs] == ["a.csv", "b.csv"]
        assert store.delete(run.id) == 1
        assert store.counts()["blobs"] == 0


def test_record_rejects_bad_arguments_before_touching_the_database(db_url):
    with Store.open(db_url) as store:
        with pytest.raises(ValueError):
            store.record("other", [("ratings", "a", b"x")], {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "d")
        with pytest.raises(ValueError):
            store.record("panel", [], {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "d")
        assert counted(store) == {"runs": 0, "blobs": 0, "blob_bytes": 0}


# --- listing, filters, ids ----------------------------------------------------------------------------


def test_runs_filters_and_newest_first(db_url, reports, monkeypatch):
    times = iter(["2024-01-01T10:00:00.000000Z", "2024-06-15T23:59:59.999999Z", "2024-06-16T00:00:00.000000Z",
                  "2025-02-01T08:30:00.000000Z"])
    dname, ddata, drep = reports.detector
    aname, adata, arep = reports.agree
    jname, jdata, jrep = reports.judge
    with Store.open(db_url) as store:
        monkeypatch.setattr(store_mod, "now_utc", lambda: next(times))  # after the migration's own timestamp
        r1 = record_panel(store, dname, ddata, drep)                                  # 2024-01-01 REPORT_ONLY
        r2 = record_panel(store, aname, adata, arep)                                  # 2024-06-15 ENFORCE
        r3 = store.record("judge", [("bundle", jname, jdata)], jrep, {}, {}, "d")     # 2024-06-16 PASS_CALIBRATION
        r4 = record_panel(store, dname, ddata, drep, label="again")                  # 2025-02-01 REPORT_ONLY

        def ids(**kw):
            return [r.id for r in store.runs(**kw)]

        assert ids() == [r4.id, r3.id, r2.id, r1.id]
        assert ids(limit=2) == [r4.id, r3.id]
        assert ids(name=dname) == [r4.id, r1.id]
        assert ids(name="detector_panel") == []  # exact, not a substring
        assert ids(kind="panel") == [r4.id, r2.id, r1.id]
        assert ids(kind="judge") == [r3.id]
        assert ids(verdict="ENFORCE") == [r2.id]
        assert ids(verdict="REPORT_ONLY") == [r4.id, r1.id]
        assert ids(judge="judge-v1") == [r3.id]
        assert ids(judge="judge-v2") == []
        assert ids(contract=r3.contract_id) == [r3.id]
        assert ids(contract="judge-calibration@sha256:0") == []
        assert ids(since="2024-06-15") == [r4.id, r3.id, r2.id]
        assert ids(since="2024-06-16") == [r4.id, r3.id]
        assert ids(until="2024-06-15") == [r2.id, r1.id]  # a date: its whole day
        assert ids(until="2024-06-15T12:00:00") == [r1.id]  # a time: up to it
        assert ids(since="2024-02-01", until="2024-12-31") == [r3.id, r2.id]
        assert ids(since="2024-06-15", kind="panel", verdict="ENFORCE") == [r2.id]
        assert ids(since="2026-01-01") == []
        listed = store.runs(name=dname)
        assert [r.inputs for r in listed] == [r4.inputs, r1.inputs]
        assert listed[0].label == "again" and listed[0].report == drep
        assert listed[0].summary()["inputs"] == [{"role": "ratings", "name": dname, "sha256": sha(ddata),
                                                  "size": len(ddata)}]


def test_resolve_prefixes_and_bad_ids(db_url, monkeypatch):
    # ids chosen here so prefixes collide; a colliding draw is drawn again
    a_id, b_id, c_id = "abcd" + "0" * 27 + "1", "abcd" + "0" * 27 + "2", "abce" + "0" * 27 + "3"
    draws = iter([a_id, b_id, a_id, c_id])
    monkeypatch.setattr(store_mod, "secrets", SimpleNamespace(token_hex=lambda n: next(draws)))
    with Store.open(db_url) as store:
        a = record_small(store, b"a")
        b = record_small(store, b"b")
        c = record_small(store, b"c")
        assert (a.id, b.id, c.id) == (a_id, b_id, c_id)
        assert store.resolve(a_id) == a.id
        assert store.resolve(b_id.upper()) == b.id  # case and spaces do not matter
        assert store.resolve(f"  {b_id} ") == b.id
        assert store.resolve("abce") == c.id
        assert store.get("abce").id == c.id
        # an ambiguous prefix says so without naming any run
        with pytest.raises(StoreError) as e:
            store.resolve("abcd")
        assert str(e.value) == "abcd is the start of more than one of your runs; give more digits"
        with pytest.raises(StoreError, match=r"^no run ffff that you can open in "):
            store.resolve("ffff")
        with pytest.raises(StoreError, match=r"^no run abcd0{27}9 that you can open in "):
            store.get("abcd" + "0" * 27 + "9")
        # a link takes whole ids only: a prefix is not a run id there
        with pytest.raises(StoreError, match=r"is not a run id \(32 hex digits\)"):
            store.get("abce", prefix=False)
        assert store.get(c_id, prefix=False).id == c_id
        for bad in ("abc", "xyz!", "abcd%", "abcd_", "a" * 33, "", "ab cd", "'; DROP TABLE x; --"):
            with pytest.raises(StoreError, match="is not a run id"):
                store.resolve(bad)
        with pytest.raises(StoreError, match="is not a run id"):
            store.delete("abcd%")
        with pytest.raises(StoreError, match="more than one of your runs"):
            store.delete("abcd")
        assert store.counts()["runs"] == 3


def test_garbage_id_is_shown_escaped_on_one_line(db_url):
    with Store.open(db_url) as store:
        with pytest.raises(StoreError) as e:
            store.get("\x1b[31mred\nline")
    assert "\n" not in str(e.value) and "\x1b" not in str(e.value)


# --- schema and migrations ----------------------------------------------------------------------------


def test_fresh_database_gets_every_migration_once_and_reopening_applies_nothing(db_url):
    Store.open(db_url).close()
    migrations = sql_rows(db_url, "SELECT version, description, applied_utc FROM agreebound_migrations "
                                  "ORDER BY version")
    assert [(v, d) for v, d, _ in migrations] == [(v, d) for v, d, _ in store_mod.MIGRATIONS]
    assert migrations[0][:2] == (1, "runs, their inputs, and content-addressed blobs")
    assert [v for v, _, _ in store_mod.MIGRATIONS] == list(range(1, store_mod.SCHEMA_VERSION + 1))
    assert dict(sql_rows(db_url, "SELECT key, value FROM agreebound_meta")) == {
        "app": "agreebound", "schema_version": str(store_mod.SCHEMA_VERSION)}
    tables = set(sa.inspect(sa.create_engine(db_url)).get_table_names())
    assert {"agreebound_meta", "agreebound_migrations", "agreebound_blobs", "agreebound_runs",
            "agreebound_run_inputs"} <= tables
    for _ in range(2):
        with Store.open(db_url) as store:
            record_small(store, b"x")
    assert sql_rows(db_url, "SELECT version, description, applied_utc FROM agreebound_migrations "
                            "ORDER BY version") == migrations
    assert sql_rows(db_url, "SELECT count(*) FROM agreebound_runs") == [(2,)]


def test_sqlite_database_is_in_wal_mode(tmp_path):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    Store.open(url).close()
    conn = sqlite3.connect(tmp_path / "runs.db")
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


def test_an_older_schema_is_migrated(db_url):
    """A database at schema 0 (meta written, no tables yet) gets every migration on open."""
    sql_exec(db_url, "CREATE TABLE agreebound_meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)")
    sql_exec(db_url, "INSERT INTO agreebound_meta VALUES ('app', 'agreebound'), ('schema_version', '0')")
    with Store.open(db_url) as store:
        run = record_small(store, b"after migrating")
        assert store.get(run.id).id == run.id
    assert [r[0] for r in sql_rows(db_url, "SELECT version FROM agreebound_migrations ORDER BY version")] == \
        [v for v, _, _ in store_mod.MIGRATIONS]
    assert dict(sql_rows(db_url, "SELECT key, value FROM agreebound_meta"))["schema_version"] == \
        str(store_mod.SCHEMA_VERSION)


def test_a_schema_1_database_is_migrated_keeping_its_runs(db_url, monkeypatch):
    """A database written at schema 1 (by migration 1 alone, its run written as schema 1 wrote it)
    is brought to the current schema on open, and its run reads back byte for byte."""
    with monkeypatch.context() as m:
        m.setattr(store_mod, "MIGRATIONS", store_mod.MIGRATIONS[:1])
        m.setattr(store_mod, "SCHEMA_VERSION", 1)
        Store.open(db_url).close()
    assert dict(sql_rows(db_url, "SELECT key, value FROM agreebound_meta"))["schema_version"] == "1"
    data = b"unit,rater,value\n" + b"u1,a,1\nu1,b,2\n" * 500
    report = {"kind": "panel", "panel": {"verdict": "ENFORCE"}}
    engine = sa.create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO agreebound_blobs (sha256, size, data, created_utc) "
                                 "VALUES (:s, :n, :d, :t)"),
                         {"s": sha(data), "n": len(data), "d": data, "t": "2024-01-01T00:00:00.000000Z"})
            conn.execute(sa.text(
                "INSERT INTO agreebound_runs (id, created_utc, kind, data_name, judge, contract_id, verdict, label, "
                "origin, tool_version, thresholds_source, thresholds_json, recipe_json, report_json) VALUES "
                "('0123456789ab', '2024-01-01T00:00:00.000000Z', 'panel', 'old.csv', NULL, NULL, 'ENFORCE', NULL, "
                "'cli', '0.0.9', 'default', '{}', '{}', :r)"), {"r": json.dumps(report)})
            conn.execute(sa.text("INSERT INTO agreebound_run_inputs (run_id, position, role, name, sha256, size) "
                                 "VALUES ('0123456789ab', 0, 'ratings', 'old.csv', :s, :n)"),
                         {"s": sha(data), "n": len(data)})
    finally:
        engine.dispose()
    with Store.open(db_url) as store:
        (listed,) = store.runs(name="old.csv")  # its 12-digit id was replaced by a 32-digit one
        run = store.get(listed.id[:6])
        assert run.report == report and run.tool_version == "0.0.9" and len(run.id) == 32
        assert store.inputs(run) == [("ratings", "old.csv", data)]
        assert counted(store) == {"runs": 1, "blobs": 1, "blob_bytes": len(data)}
        new = record_small(store, data, name="new.csv")  # the same bytes: found, not stored again
        assert store.counts()["blobs"] == 1 and store.inputs(new)[0][2] == data
    assert [r[0] for r in sql_rows(db_url, "SELECT version FROM agreebound_migrations ORDER BY version")] == \
        [v for v, _, _ in store_mod.MIGRATIONS]
    assert dict(sql_rows(db_url, "SELECT key, value FROM agreebound_meta"))["schema_version"] == \
        str(store_mod.SCHEMA_VERSION)


def test_newer_schema_is_refused_and_left_untouched(db_url):
    with Store.open(db_url) as store:
        record_small(store, b"kept")
    sql_exec(db_url, "UPDATE agreebound_meta SET value = '99' WHERE key = 'schema_version'")
    if is_sqlite(db_url):
        before = file_sha(sqlite_path(db_url))
    migrations = sql_rows(db_url, "SELECT version, applied_utc FROM agreebound_migrations")
    for _ in range(2):
        with pytest.raises(StoreError) as e:
            Store.open(db_url)
        text = str(e.value)
        assert "newer agreebound" in text and "schema 99" in text and "left untouched" in text and "\n" not in text
        assert describe(db_url) in text
    if is_sqlite(db_url):
        assert file_sha(sqlite_path(db_url)) == before
    assert dict(sql_rows(db_url, "SELECT key, value FROM agreebound_meta"))["schema_version"] == "99"
    assert sql_rows(db_url, "SELECT version, applied_utc FROM agreebound_migrations") == migrations
    assert sql_rows(db_url, "SELECT count(*) FROM agreebound_runs") == [(1,)]


@pytest.mark.parametrize("value, message", [("seven", "is not a number"), ("2x", "is not a number")])
def test_unreadable_schema_version_is_refused(db_url, value, message):
    Store.open(db_url).close()
    sql_exec(db_url, f"UPDATE agreebound_meta SET value = '{value}' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match=message):
        Store.open(db_url)


def test_meta_table_of_another_app_is_refused(db_url):
    sql_exec(db_url, "CREATE TABLE agreebound_meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)")
    sql_exec(db_url, "INSERT INTO agreebound_meta VALUES ('app', 'someone-else'), ('schema_version', '1')")
    with pytest.raises(StoreError, match="does not name agreebound"):
        Store.open(db_url)
    assert sql_rows(db_url, "SELECT value FROM agreebound_meta WHERE key = 'app'") == [("someone-else",)]


def test_another_applications_tables_are_refused(db_url):
    sql_exec(db_url, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    sql_exec(db_url, "INSERT INTO users VALUES (1, 'ada')")
    with pytest.raises(StoreError) as e:
        Store.open(db_url)
    assert "another application's tables (users)" in str(e.value) and "left untouched" in str(e.value)
    assert set(sa.inspect(sa.create_engine(db_url)).get_table_names()) == {"users"}


# --- blobs as stored (compression) and damaged blob rows -------------------------------------------------


def test_compressible_inputs_are_stored_smaller_and_read_back_exactly(db_url):
    text = ("unit,rater,value\n" + "".join(f"item-{i:05d},rater-{i % 7},{i % 5}\n" for i in range(20_000))).encode()
    noise = random.Random(11).randbytes(300_000)
    with Store.open(db_url) as store:
        a = record_small(store, text, name="text.csv")
        b = record_small(store, noise, name="noise.bin")
        c = record_small(store, b"tiny", name="tiny.csv")
        counts = store.counts()
        assert counts["blob_bytes"] == len(text) + len(noise) + 4
        assert counts["stored_bytes"] < len(text) // 2 + len(noise) + 4  # the CSV shrank
        assert counts["stored_bytes"] >= len(noise)  # random bytes cannot
        for run, data in ((a, text), (b, noise), (c, b"tiny")):
            assert store.inputs(store.get(run.id))[0][2] == data
            assert store.blob(sha(data)) == data
    encodings = dict(sql_rows(db_url, "SELECT sha256, encoding FROM agreebound_blobs"))
    assert encodings == {sha(text): "zstd", sha(noise): "raw", sha(b"tiny"): "raw"}


def _damage(url: str, digest: str, **values) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(store_mod.T_BLOBS.update().where(store_mod.T_BLOBS.c.sha256 == digest).values(**values))
    finally:
        engine.dispose()


DAMAGE = {
    # name: (which blob, how the row is changed from the original (data, encoding, size))
    "zstd truncated": ("text", lambda d, e, n: {"data": d[: len(d) // 2]}),
    "zstd byte flipped": ("text", lambda d, e, n: {"data": d[:40] + bytes([d[40] ^ 0xFF]) + d[41:]}),
    "zstd garbage": ("text", lambda d, e, n: {"data": random.Random(4).randbytes(len(d))}),
    "zstd empty": ("text", lambda d, e, n: {"data": b""}),
    "zstd size huge": ("text", lambda d, e, n: {"size": 10**12}),
    "zstd size off by one": ("text", lambda d, e, n: {"size": n + 1}),
    "raw read as zstd": ("noise", lambda d, e, n: {"encoding": "zstd"}),
    "zstd read as raw": ("text", lambda d, e, n: {"encoding": "raw"}),
    "unknown encoding": ("text", lambda d, e, n: {"encoding": "lz4"}),
    "raw byte flipped": ("noise", lambda d, e, n: {"data": bytes([d[0] ^ 1]) + d[1:]}),
    "raw shorter than recorded": ("noise", lambda d, e, n: {"data": d[:-1]}),
}


def test_damaged_blob_rows_are_store_errors(db_url):
    """A blob row changed behind the store's back (truncated, flipped, wrong encoding or size) is a
    StoreError saying the database is damaged; never another exception, never wrong bytes."""
    blobs = {"text": ("unit,rater,value\n" + "u,a,1\nu,b,2\n" * 20_000).encode(),
             "noise": random.Random(12).randbytes(50_000)}
    with Store.open(db_url) as store:
        runs = {k: record_small(store, v, name=f"{k}.bin") for k, v in blobs.items()}
        original = {k: sql_rows(db_url, f"SELECT data, encoding, size FROM agreebound_blobs "
                                        f"WHERE sha256 = '{sha(v)}'")[0] for k, v in blobs.items()}
        assert original["text"][1] == "zstd" and original["noise"][1] == "raw"
        failures = {}
        for name, (which, change) in DAMAGE.items():
            d, e, n = original[which]
            _damage(db_url, sha(blobs[which]), **change(bytes(d), e, n))
            try:
                store.inputs(runs[which])
                failures[name] = "no error"
            except StoreError as err:
                if "damaged" not in str(err) or "\n" in str(err):
                    failures[name] = str(err)
            except Exception as err:  # noqa: BLE001 - the point of the test
                failures[name] = f"{type(err).__name__}: {err}"
            _damage(db_url, sha(blobs[which]), data=bytes(d), encoding=e, size=n)
            assert store.inputs(runs[which])[0][2] == blobs[which]  # restored
        assert failures == {}


def test_negative_recorded_size_is_a_store_error(db_url):
    data = ("unit,rater,value\n" + "u,a,1\nu,b,2\n" * 20_000).encode()
    with Store.open(db_url) as store:
        run = record_small(store, data)
        assert sql_rows(db_url, "SELECT encoding FROM agreebound_blobs") == [("zstd",)]
        _damage(db_url, sha(data), size=-1)
        with pytest.raises(StoreError, match="damaged"):
            store.inputs(run)


# --- hostile SQLite files -----------------------------------------------------------------------------


def _real_db_bytes(tmp_path: Path) -> bytes:
    path = tmp_path / "real" / "runs.db"
    with Store.open(f"sqlite:///{path}") as store:
        record_small(store, b"unit,rater,value\n" + b"u,r,1\n" * 2000)
    return path.read_bytes()


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users VALUES (1, 'ada')")
    conn.commit()
    conn.close()


HOSTILE = {
    "random bytes": lambda p, tmp: p.write_bytes(random.Random(7).randbytes(50_000)),
    "text file": lambda p, tmp: p.write_text("unit,rater,value\nu1,a,1\nu1,b,2\n"),
    "one byte": lambda p, tmp: p.write_bytes(b"S"),
    "magic only": lambda p, tmp: p.write_bytes(b"SQLite format 3\x00"),
    "magic then garbage": lambda p, tmp: p.write_bytes(b"SQLite format 3\x00" + random.Random(3).randbytes(8000)),
    "truncated agreebound db": lambda p, tmp: p.write_bytes(_real_db_bytes(tmp)[:1000]),
    "truncated to one page": lambda p, tmp: p.write_bytes(_real_db_bytes(tmp)[:4096]),
    "another application": lambda p, tmp: _foreign_sqlite(p),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_file_is_refused_naming_it_and_left_untouched(tmp_path, kind):
    path = tmp_path / "db" / "runs.db"
    path.parent.mkdir()
    HOSTILE[kind](path, tmp_path)
    before, listing = file_sha(path), sorted(os.listdir(path.parent))
    for _ in range(2):  # and again: the first refusal changed nothing
        with pytest.raises(StoreError) as e:
            Store.open(f"sqlite:///{path}")
        text = str(e.value)
        assert str(path) in text, text
        assert "\n" not in text
        assert "untouched" in text, text
    assert file_sha(path) == before
    assert sorted(os.listdir(path.parent)) == listing  # no -wal/-shm/-journal left behind either


def test_folder_path_is_refused(tmp_path):
    folder = tmp_path / "iamafolder"
    folder.mkdir()
    with pytest.raises(StoreError) as e:
        Store.open(f"sqlite:///{folder}")
    assert str(folder) in str(e.value) and "folder" in str(e.value)
    assert os.listdir(folder) == []
    with pytest.raises(StoreError, match="folder"):
        Store.open(str(folder))  # a bare path too


def test_zero_length_file_becomes_a_new_database(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with Store.open(f"sqlite:///{path}") as store:
        run = record_small(store, b"first")
        assert store.get(run.id).inputs[0].sha256 == sha(b"first")
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"


def test_missing_folders_are_created(tmp_path):
    path = tmp_path / "a" / "b" / "runs.db"
    with Store.open(f"sqlite:///{path}") as store:
        record_small(store, b"x")
    assert path.is_file()


def test_unreadable_parent_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError) as e:
        Store.open(f"sqlite:///{blocker / 'sub' / 'runs.db'}")
    assert str(blocker) in str(e.value)
    assert blocker.read_text() == "not a folder"


def test_corrupted_pages_after_the_header_are_store_errors(tmp_path):
    """Page 1 (the header and the schema) intact, every later page garbage: opening or reading is a
    StoreError, never another exception."""
    src = tmp_path / "real.db"
    with Store.open(f"sqlite:///{src}") as store:
        run = record_small(store, random.Random(1).randbytes(30_000))
    conn = sqlite3.connect(src)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(src.read_bytes())
    assert len(data) > 4 * page
    for seed in range(5):
        bad = tmp_path / f"bad{seed}.db"
        body = bytearray(data)
        body[page:] = random.Random(seed).randbytes(len(data) - page)
        bad.write_bytes(bytes(body))
        before = file_sha(bad)
        try:
            with Store.open(f"sqlite:///{bad}") as store:
                for call in (store.counts, store.runs, lambda: store.get(run.id), lambda: store.inputs(run)):
                    with pytest.raises(StoreError):
                        call()
        except StoreError as e:
            assert str(bad) in str(e) and "\n" not in str(e)
        assert file_sha(bad) == before


def test_corrupted_blob_bytes_are_caught_by_their_sha256(tmp_path):
    path = tmp_path / "runs.db"
    payload = b"MARKER" + random.Random(2).randbytes(20_000)
    with Store.open(f"sqlite:///{path}") as store:
        run = record_small(store, payload)
    data = bytearray(path.read_bytes())
    at = data.find(b"MARKER")
    assert at > 0
    data[at:at + 6] = b"marker"  # the page's structure is intact: only the stored bytes differ
    path.write_bytes(bytes(data))
    with Store.open(f"sqlite:///{path}") as store:
        assert store.get(run.id).id == run.id
        with pytest.raises(StoreError, match="does not match its SHA-256"):
            store.inputs(run)


def test_corrupted_report_json_is_a_store_error(tmp_path):
    """(Found by this test: json.JSONDecodeError escaped from get() and runs().)"""
    path = tmp_path / "runs.db"
    report = {"kind": "panel", "panel": {"verdict": "ENFORCE"}, "note": "JSONMARK" * 20}
    with Store.open(f"sqlite:///{path}") as store:
        run = store.record("panel", [("ratings", "a.csv", b"abc")], report, {}, {}, "default")
    data = bytearray(path.read_bytes())
    at = data.find(b'{"kind":"panel","note":"JSONMARK')
    assert at > 0
    data[at] = ord("#")  # same length: SQLite reads the row, its report is no longer JSON
    path.write_bytes(bytes(data))
    with Store.open(f"sqlite:///{path}") as store:
        with pytest.raises(StoreError, match="damaged"):
            store.get(run.id)
        with pytest.raises(StoreError, match="damaged"):
            store.runs()


# --- concurrency ----------------------------------------------------------------------------------------

WRITER = """
    import json, sys
    from agreebound.app.store import Store
    url, who, n, report_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    report = json.load(open(report_file))
    print("ready", flush=True)
    assert sys.stdin.readline().strip() == "go"
    with Store.open(url) as store:
        for i in range(n):
            data = f"unit,rater,value\\n{who}-{i},a,1\\n{who}-{i},b,1\\n".encode() * 50
            run = store.record("panel", [("ratings", f"{who}-{i}.csv", data)], report, {"i": i}, {}, "default",
                               label=who)
            print("committed", run.id, flush=True)
"""


def test_three_writer_processes_and_a_reader_at_once(db_url, reports, tmp_path):
    """Three processes open the fresh database at the same moment (each migrating it or finding it
    migrated) and record 15 runs each, while this process lists runs in a loop."""
    n, writers = 15, 3
    report = reports.detector[2]
    report_file = tmp_path / "report.json"
    report_file.write_text(json.dumps(report))
    t0 = time.monotonic()
    procs = [Proc(WRITER, db_url, f"w{k}", str(n), str(report_file), cwd=tmp_path) for k in range(writers)]
    try:
        for p in procs:
            assert p.next_line() == "ready", p.err
        for p in procs:
            p.send("go")
        listings, seen_counts = 0, []
        store = None
        while any(p.p.poll() is None for p in procs):
            if time.monotonic() - t0 > PROC_TIMEOUT_S:
                break
            if store is None:
                store = Store.open(db_url)  # opened meanwhile, the writers may be migrating
            listed = store.runs()
            listings += 1
            seen_counts.append(len(listed))
            # a run is visible with all its inputs or not at all
            assert all(len(r.inputs) == 1 and r.inputs[0].name == r.data_name for r in listed)
            assert all(r.report == report for r in listed[:3])
        codes = [p.finish() for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert codes == [0] * writers, [p.err[-2000:] for p in procs]
    assert seen_counts == sorted(seen_counts)  # committed runs never disappear
    elapsed = time.monotonic() - t0
    assert elapsed < 60, elapsed
    store = store or Store.open(db_url)
    try:
        runs = store.runs()
        assert len(runs) == n * writers == store.counts()["runs"] == store.counts()["blobs"]
        printed = sorted(line.split()[1] for p in procs for line in p.seen if line.startswith("committed"))
        assert printed == sorted(r.id for r in runs)
        for k in range(writers):
            assert sorted(r.recipe["i"] for r in runs if r.label == f"w{k}") == list(range(n))
        for r in runs:
            got = store.get(r.id)
            (role, name, data), = store.inputs(got)
            assert sha(data) == got.inputs[0].sha256 and name == got.data_name and got.report == report
    finally:
        store.close()
    assert consistency(db_url) == NO_ORPHANS
    assert [r[0] for r in sql_rows(db_url, "SELECT version FROM agreebound_migrations ORDER BY version")] == \
        [v for v, _, _ in store_mod.MIGRATIONS]  # the three concurrent first opens migrated once
    if is_sqlite(db_url):
        assert sqlite_integrity(sqlite_path(db_url)) == ([("ok",)], [])


def test_two_writers_storing_the_same_new_bytes_at_once(db_url):
    """Content addressing under concurrency: both writers look for the blob before either inserts it
    (held at that point by a barrier), as happens when two people upload the same file at once.
    (Found by this test: on PostgreSQL the second INSERT of the blob failed on its primary key and
    the run was lost.)"""
    url = db_url
    a, b = Store.open(url), Store.open(url)
    barrier = threading.Barrier(2, timeout=1.5)
    for st in (a, b):
        @sa.event.listens_for(st.engine, "after_cursor_execute")
        def _hold(conn, cursor, statement, params, context, executemany):
            if statement.lstrip().upper().startswith("SELECT") and "FROM agreebound_blobs" in statement:
                try:  # on SQLite the second writer waits for the lock instead; the barrier then breaks
                    barrier.wait()
                except threading.BrokenBarrierError:
                    pass

    data = b"unit,rater,value\nu,a,1\nu,b,1\n"
    results: dict[str, object] = {}

    def write(key: str, st: Store) -> None:
        try:
            results[key] = record_small(st, data, name=f"{key}.csv").id
        except Exception as e:  # noqa: BLE001 - recorded and asserted below
            results[key] = e

    threads = [threading.Thread(target=write, args=(k, st)) for k, st in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        errors = {k: v for k, v in results.items() if isinstance(v, Exception)}
        assert errors == {} and len(results) == 2
        assert counted(a) == {"runs": 2, "blobs": 1, "blob_bytes": len(data)}
    finally:
        a.close()
        b.close()


def test_recording_bytes_while_their_last_run_is_deleted(db_url, request):
    """One writer records bytes already stored (it finds the blob and will not send it again) while
    another deletes the only run that used them: the new run must keep its input."""
    data = b"unit,rater,value\nu,a,1\nu,b,2\n"
    writer, deleter = Store.open(db_url), Store.open(db_url)
    old = record_small(writer, data, name="old.csv")
    looked, deleted = threading.Event(), threading.Event()

    @sa.event.listens_for(writer.engine, "after_cursor_execute")
    def _hold(conn, cursor, statement, params, context, executemany):
        if statement.lstrip().upper().startswith("SELECT") and "FROM agreebound_blobs" in statement:
            looked.set()
            deleted.wait(1.5)  # on SQLite the delete waits for this writer's lock instead

    results: dict[str, object] = {}

    def record() -> None:
        try:
            results["record"] = record_small(writer, data, name="new.csv")
        except Exception as e:  # noqa: BLE001 - asserted below
            results["record"] = e

    def delete() -> None:
        looked.wait(30)
        try:
            results["delete"] = deleter.delete(old.id)
        except Exception as e:  # noqa: BLE001 - asserted below
            results["delete"] = e
        deleted.set()

    threads = [threading.Thread(target=record), threading.Thread(target=delete)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert not [f"{k}: {v}" for k, v in results.items() if isinstance(v, Exception)]
        new = results["record"]
        assert results["delete"] == 0  # the blob is the new run's now
        assert [r.id for r in deleter.runs()] == [new.id]
        assert deleter.inputs(new) == [("ratings", "new.csv", data)]
    finally:
        writer.close()
        deleter.close()
    assert consistency(db_url) == NO_ORPHANS


# --- a writer killed at any moment ---------------------------------------------------------------------

KILLED_WRITER = """
    import os, sys
    import agreebound.render.report  # imported before "ready", so the kill delays fall in the writing
    from agreebound.app.store import Store
    url, size = sys.argv[1], int(sys.argv[2])
    report = {"kind": "panel", "panel": {"verdict": "ENFORCE"}, "pad": "x" * 5000}
    with Store.open(url) as store:
        print("ready", flush=True)
        i = 0
        while True:
            data = os.urandom(size)
            store.record("panel", [("ratings", f"big-{i}.bin", data), ("mapping", "m.json", b"{}")], report,
                         {"i": i}, {}, "default")
            i += 1
            print("committed", i, flush=True)
"""

# (commits to wait for after "ready", then seconds before SIGKILL); None: from the process start
KILLS = [(None, 0.35), (0, 0.05), (1, 0.12), (2, 0.3), (0, 0.5), (1, 0.0), (None, 0.9)]


def _check_after_kill(url: str) -> int:
    if is_sqlite(url):
        path = sqlite_path(url)
        if path.exists():
            assert sqlite_integrity(path) == ([("ok",)], [])
    with Store.open(url) as store:
        runs = store.runs()
        for r in runs:
            assert [i.role for i in r.inputs] == ["ratings", "mapping"]
            for (role, name, data), i in zip(store.inputs(r), r.inputs):
                assert sha(data) == i.sha256 and len(data) == i.size
        counts = store.counts()
        assert counts["runs"] == len(runs)
        assert counts["blobs"] == len(runs) + (1 if runs else 0)  # each its own big blob, "{}" shared
    assert consistency(url) == NO_ORPHANS
    return len(runs)


def test_killed_writer_leaves_the_last_committed_state(db_url, tmp_path):
    size = 20_000_000
    total = 0
    t0 = time.monotonic()
    for after, delay in KILLS:
        p = Proc(KILLED_WRITER, db_url, str(size), cwd=tmp_path)
        try:
            if after is not None:
                assert p.next_line() == "ready", p.err
                for k in range(after):
                    assert p.next_line() == f"committed {k + 1}", p.err
            time.sleep(delay)
        finally:
            p.kill()
        p.finish()
        assert p.p.returncode == -signal.SIGKILL, p.err
        printed = sum(1 for line in p.seen if line.startswith("committed"))
        now = _check_after_kill(db_url)
        assert now - total in (printed, printed + 1), (after, delay, printed, now, total)
        total = now
    assert total >= 3  # the kills did land between commits, not only before the first one
    assert time.monotonic() - t0 < 90


# --- full disk and size limits ------------------------------------------------------------------------


def test_full_disk_is_a_store_error_and_the_database_stays_whole(tmp_path):
    path = tmp_path / "runs.db"
    url = f"sqlite:///{path}"
    store = Store.open(url)
    kept = [record_small(store, f"run {i}".encode()).id for i in range(3)]
    conn = sqlite3.connect(path)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    store.engine.dispose()

    @sa.event.listens_for(store.engine, "connect")
    def _small_disk(dbapi, _record):
        dbapi.execute(f"PRAGMA max_page_count = {pages + 3}")

    with pytest.raises(StoreError) as e:
        record_small(store, random.Random(5).randbytes(200_000))
    text = str(e.value)
    assert "disk is full" in text and str(path) in text and "\n" not in text
    assert counted(store) == {"runs": 3, "blobs": 3, "blob_bytes": sum(len(f"run {i}") for i in range(3))}
    small = record_small(store, b"fits")  # the store still works within the space left
    store.close()
    with Store.open(url) as again:  # and opens normally without the limit
        assert sorted(r.id for r in again.runs()) == sorted(kept + [small.id])
        record_small(again, random.Random(6).randbytes(200_000))
        assert again.counts()["runs"] == 5
    assert sqlite_integrity(path) == ([("ok",)], [])
    assert consistency(url) == NO_ORPHANS


def test_input_over_the_upload_limit_is_refused(db_url):
    with Store.open(db_url) as store:
        record_small(store, b"before")
        huge = bytes(MAX_INPUT_BYTES + 1)  # calloc'd zero pages: cheap, and refused before hashing
        with pytest.raises(StoreError) as e:
            record_small(store, huge, name="huge.csv")
        del huge
        text = str(e.value)
        assert "huge.csv" in text and f"{MAX_INPUT_BYTES + 1:,} bytes" in text and "not recorded" in text
        assert counted(store) == {"runs": 1, "blobs": 1, "blob_bytes": len(b"before")}


def test_input_limits_count_exact_bytes(db_url, monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_INPUT_BYTES", 100)
    monkeypatch.setattr(store_mod, "MAX_RUN_BYTES", 250)
    with Store.open(db_url) as store:
        record_small(store, bytes(100))  # at the limit: stored
        with pytest.raises(StoreError, match="limited to 100 bytes"):
            record_small(store, bytes(101))
        with pytest.raises(StoreError, match="a run is limited to 250"):
            store.record("panel", [("ratings", "a", b"a" * 100), ("x", "b", b"b" * 100), ("y", "c", b"c" * 51)],
                         {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {}, "default")
        assert counted(store) == {"runs": 1, "blobs": 1, "blob_bytes": 100}


# --- where the database is ------------------------------------------------------------------------------


def test_configured_url(tmp_path, monkeypatch):
    monkeypatch.delenv("AGREEBOUND_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert configured_url() == f"sqlite:///{tmp_path / 'xdg' / 'agreebound' / 'runs.db'}"
    assert configured_url("  ") == configured_url()
    for off in ("off", "OFF", " none ", "0", "false", "no"):
        assert configured_url(off) is None
    monkeypatch.chdir(tmp_path)
    assert configured_url("rel/runs.db") == f"sqlite:///{tmp_path / 'rel' / 'runs.db'}"
    assert configured_url(str(tmp_path / "abs.db")) == f"sqlite:///{tmp_path / 'abs.db'}"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert configured_url("~/x.db") == f"sqlite:///{tmp_path / 'home' / 'x.db'}"
    assert configured_url("postgresql://u@h/db") == "postgresql://u@h/db"
    monkeypatch.setenv("AGREEBOUND_DB", "off")
    assert configured_url() is None
    assert configured_url("given.db") == f"sqlite:///{tmp_path / 'given.db'}"  # --db wins over the environment
    monkeypatch.setenv("AGREEBOUND_DB", str(tmp_path / "env.db"))
    assert configured_url() == f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.delenv("AGREEBOUND_DB")
    assert configured_url() == f"sqlite:///{tmp_path / 'home' / '.local' / 'share' / 'agreebound' / 'runs.db'}"


def test_default_database_is_created_in_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("AGREEBOUND_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with Store.open() as store:
        record_small(store, b"x")
        assert str(tmp_path / "xdg" / "agreebound" / "runs.db") in store.where
    assert (tmp_path / "xdg" / "agreebound" / "runs.db").is_file()


def test_describe_hides_the_password():
    shown = describe("postgresql://u:secret@h/db")
    assert "secret" not in shown and shown == "postgresql://u:***@h/db"
    assert describe("postgresql+psycopg://u@h:5432/db") == "postgresql+psycopg://u@h:5432/db"
    assert "\x1b" not in describe("not a url \x1b[31m")


def test_connection_errors_never_show_the_password():
    with pytest.raises(StoreError) as e:
        Store.open("postgresql://alice:s3cr3t-pw@127.0.0.1:1/db")  # nothing listens on port 1
    text = str(e.value)
    assert "s3cr3t-pw" not in text and "alice:***@127.0.0.1:1/db" in text and "\n" not in text
    assert "cannot connect" in text


@pytest.mark.parametrize("url, message", [
    ("off", "switched off"),
    ("mysql://u@h/db", "unsupported database"),
    ("sqlite://", "give a file"),
    ("sqlite:///:memory:", "give a file"),
    ("postgresql://u@h:notaport/db", "not a database URL"),
])
def test_unusable_urls(url, message):
    with pytest.raises(StoreError, match=message):
        Store.open(url)


def test_pg_url_fixture_is_a_live_server(pg_url):
    with Store.open(pg_url) as store:
        run = record_small(store, b"on the session database")
        assert store.get(run.id).data_name == "x.csv"
        assert store.delete(run.id) == 1
    assert pg_url.startswith("postgresql+psycopg://agreebound@127.0.0.1:")
