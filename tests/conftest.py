import atexit
import fcntl
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# tests/ is a package (tests/support holds the helpers tests and benchmarks share: `from tests.support.cli
# import run`); pytest's default (prepend) import mode puts the repository's root, tests/' parent, on sys.path.

# No test writes the user's history: every run recorded by the dashboard, the CLI (subprocesses
# inherit this) or a test goes to one throwaway database per test session, unless a test names its own.
_SESSION_DB = Path(tempfile.mkdtemp(prefix="agreebound-test-db-")) / "runs.db"
os.environ["AGREEBOUND_DB"] = f"sqlite:///{_SESSION_DB}"
atexit.register(shutil.rmtree, _SESSION_DB.parent, ignore_errors=True)  # each test process's own, gone with it

# Spark's JVMs here (a session per module, a CLI process per door test) run tiny jobs: the top JIT
# tier's compiler threads and the parallel collector cost more CPU than they save. C1 only and the
# serial collector: 16-17 CPU-seconds per JVM start instead of 24-26, and the Spark files 194
# instead of 246 (measured side by side on 2 cores). Tests only: `make bench` and users keep Java's
# defaults. The JVM's notice that it read this goes to its own stderr, which the CLI discards.
os.environ.setdefault("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

# CI runs the property tests with fixed seeds, so a run is reproducible; locally they explore.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


UI = Path(__file__).parent / "ui"


def _weight(item: pytest.Item) -> int:
    """0: drives a browser (the longest files: a server, Chromium, several pages each); 1: a long
    run (marked slow) or Spark's JVM; 2: the dashboard's pages through AppTest (tests/ui: each test
    runs the app's scripts; tests/ui/test_pages.py is the longest file of make test-fast); 3: the rest."""
    if item.get_closest_marker("e2e"):
        return 0
    if item.get_closest_marker("slow") or "spark" in item.nodeid.lower():
        return 1
    return 2 if UI in item.path.parents else 3


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The heaviest test files first, so that `make test`'s two processes (a file at a time each,
    `--dist loadfile --no-loadscope-reorder`) never end with one running a long browser file alone:
    a file's weight is its heaviest test's, files keep their collected order within a weight."""
    heaviest: dict[Path, int] = {}
    for item in items:
        heaviest[item.path] = min(heaviest.get(item.path, 3), _weight(item))
    items.sort(key=lambda item: heaviest[item.path])  # stable: file order kept within a weight


@pytest.fixture(scope="session")
def bomb_cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """The memory bombs (tests/data/make_hostile_files.py: bomb_cases) in one folder for the whole
    test run: `make test`'s processes share it, the first to ask makes the files (about 13
    CPU-seconds: two workbooks unpack to 2.8 GB) while the other waits on a lock. Returns the
    folder and the cases (path, the words a refusal says, what the file is). Read-only to tests."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # pytest-xdist: each process has its own folder inside the run's
        root = root.parent
    folder, listing = root / "bombs", root / "bombs" / "cases.json"
    with open(root / "bombs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not listing.exists():  # written last: a process that died half-way leaves no listing
            from tests.data import make_hostile_files

            folder.mkdir(exist_ok=True)
            made = make_hostile_files.bomb_cases(folder)
            draft = listing.with_suffix(".tmp")
            draft.write_text(json.dumps([{**case, "path": case["path"].name} for case in made]))
            draft.replace(listing)  # whole or not at all
        cases = json.loads(listing.read_text())
    return folder, [{**case, "path": folder / case["path"]} for case in cases]


# --- databases for the run store (agreebound.app.store) ----------------------------------------------


@pytest.fixture(scope="session")
def pg_server():
    """One throwaway PostgreSQL server for the session (tests/support/pg_server.py). Missing PostgreSQL is
    a failure, not a skip: `make test` installs it."""
    from tests.support import pg_server as pg

    try:
        server = pg.start()
    except (pg.PostgresMissing, pg.PostgresFailed) as e:
        pytest.fail(f"PostgreSQL for the store tests: {e}", pytrace=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_url(pg_server):
    """postgresql+psycopg://agreebound@127.0.0.1:PORT/agreebound on the session's server."""
    return pg_server.url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database for each test: a SQLite file in tmp_path, or a new database on the
    session's PostgreSQL server (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runs.db'}"
        return
    server = request.getfixturevalue("pg_server")
    name = server.create_database()
    yield server.url_for(name)
    try:
        server.drop_database(name)
    except Exception:  # noqa: BLE001 - the server is thrown away at the end of the session anyway
        pass
