"""A real, throwaway PostgreSQL server for the tests (the store's team backend).

:func:`start` runs Debian's ``initdb`` into a temporary folder, starts ``postgres`` on a free port
of 127.0.0.1 (no fsync: the data is thrown away), creates a database and returns a
:class:`PgServer`, whose :attr:`~PgServer.url` the store opens; :meth:`PgServer.stop` stops it
(immediate shutdown) and removes the folder. PostgreSQL refuses to run as root, so under root the
server's programs run as the ``postgres`` system user (``runuser``), owning the folder.

Missing binaries are :class:`PostgresMissing`: ``make test`` installs PostgreSQL, so its absence is
a broken set-up that the fixture reports as a failure, never a skip.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

#: Where Debian installs each major version's server programs.
PG_GLOB = "/usr/lib/postgresql/*/bin"
USER = "agreebound"
RUN_AS = "postgres"
TIMEOUT_S = 60


class PostgresMissing(RuntimeError):
    """No PostgreSQL server programs here (a set-up bug: ``make test`` installs them)."""


class PostgresFailed(RuntimeError):
    """The programs are there but the server did not start (the message carries its log)."""


def find_bindir() -> Path:
    """The newest installed major version's bin folder (with initdb, pg_ctl and postgres)."""
    found = []
    for d in glob.glob(PG_GLOB):
        m = re.search(r"/postgresql/(\d+(?:\.\d+)?)/bin$", d)
        if m and all(os.access(os.path.join(d, p), os.X_OK) for p in ("initdb", "pg_ctl", "postgres")):
            found.append((float(m.group(1)), Path(d)))
    if not found:
        raise PostgresMissing(
            f"no PostgreSQL server programs in {PG_GLOB} (initdb, pg_ctl, postgres): the store's PostgreSQL tests "
            "need them. Install them with `apt-get install postgresql` (make test does this)")
    return max(found)[1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user() -> list[str]:
    """The command prefix that runs a server program as a user PostgreSQL accepts."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(RUN_AS)
    except KeyError:
        raise PostgresMissing(f"running as root and there is no {RUN_AS!r} system user to run PostgreSQL as "
                              "(installing the postgresql package creates it)") from None
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return [runuser, "-u", RUN_AS, "--"]


@dataclass
class PgServer:
    bindir: Path
    root: Path
    port: int
    dbname: str
    prefix: list[str]

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def sockdir(self) -> Path:
        return self.root / "sock"

    @property
    def logfile(self) -> Path:
        return self.root / "server.log"

    def url_for(self, dbname: str) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{dbname}"

    @property
    def url(self) -> str:
        return self.url_for(self.dbname)

    def connect(self, dbname: str = "postgres"):
        """An autocommit psycopg connection (for CREATE/DROP DATABASE)."""
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname=dbname, autocommit=True,
                               connect_timeout=10)

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its name."""
        name = name or f"t_{uuid.uuid4().hex[:16]}"
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
            raise ValueError(f"database name {name!r}")
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def log(self) -> str:
        try:
            return self.logfile.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        try:
            if (self.datadir / "postmaster.pid").exists():
                _run(self.prefix + [str(self.bindir / "pg_ctl"), "stop", "-D", str(self.datadir), "-m", "immediate",
                                    "-w", "-t", "30"], check=False)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "PgServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _run(cmd: list[str], check: bool = True, cwd: str = "/") -> subprocess.CompletedProcess:
    # cwd "/": the postgres user may not be able to enter the caller's working folder.
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=TIMEOUT_S, cwd=cwd)
    if check and p.returncode != 0:
        raise PostgresFailed(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-4000:]}")
    return p


def start(attempts: int = 3) -> PgServer:
    """initdb + start + one database. The port is chosen free just before the start; another
    process may take it in between, so a failed start is retried on a new port."""
    bindir = find_bindir()
    prefix = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="agreebound-pg-", dir="/tmp"))
    server = PgServer(bindir, root, 0, "agreebound", prefix)
    try:
        if prefix:  # the server user must own its folder (and be able to reach it: /tmp is world-searchable)
            os.chmod(root, 0o700)
            ent = pwd.getpwnam(RUN_AS)
            os.chown(root, ent.pw_uid, ent.pw_gid)
        sock = server.sockdir
        _run(prefix + ["mkdir", "-m", "0700", str(sock)])
        _run(prefix + [str(bindir / "initdb"), "-D", str(server.datadir), "-A", "trust", "-U", USER, "--no-sync",
                       "-E", "UTF8", "--locale=C", "--no-instructions"])
        last = ""
        for _ in range(attempts):
            server.port = free_port()
            opts = (f"-p {server.port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
                    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
            p = _run(prefix + [str(bindir / "pg_ctl"), "start", "-w", "-t", "30", "-D", str(server.datadir),
                               "-l", str(server.logfile), "-o", opts], check=False)
            if p.returncode == 0:
                break
            last = f"{p.stdout[-2000:]}\n{server.log()}"
            time.sleep(0.2)
        else:
            raise PostgresFailed(f"PostgreSQL did not start in {root}:\n{last}")
        server.create_database(server.dbname)
        return server
    except BaseException:
        server.stop()
        raise


if __name__ == "__main__":  # a manual check: python tests/support/pg_server.py
    t0 = time.perf_counter()
    with start() as s:
        with s.connect(s.dbname) as c:
            print(s.url, c.execute("select version()").fetchone()[0], f"{time.perf_counter() - t0:.2f} s")
