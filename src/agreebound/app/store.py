"""Runs and content-addressed blobs in a real database: the only SQL in agreebound.

A *run* is one measurement as the dashboard or the CLI made it: its input bytes (each stored once
as a blob named by its SHA-256, however often it is uploaded), the recipe that reads them (mapping,
level, positive category, judge source), the thresholds in force, and the report ``analysis`` and
``report`` returned, serialised as JSON (exact fractions as text beside permil/bps). The store only
serialises; it never measures or decides.

The database is chosen by a URL: ``--db`` or ``AGREEBOUND_DB`` (``off`` switches recording off),
else a SQLite file in the per-user data folder (:func:`default_url`). SQLite runs in WAL mode with
a busy timeout, and each run is written in one transaction, so concurrent writers wait instead of
failing and a killed writer leaves the last committed state. PostgreSQL is the team option, through
the same SQLAlchemy Core code. The schema is versioned: :data:`MIGRATIONS` are applied at open, in
order, each once, recorded in ``agreebound_migrations``.

A file that is not an agreebound database (not SQLite, another application's tables, a newer
schema, damaged) is a :class:`StoreError` naming it, and is never written to; so is a path that is
not a regular file (a device such as /dev/null, a named pipe: refused by ``stat``, never opened). A
PostgreSQL server is given :data:`TIMEOUT_ENV` seconds to answer (default 5). What is stored is
bounded and UTF-8: a label or a name of at most ``MAX_NAME_CHARS`` characters and no NUL; a file
name's bytes that are not UTF-8 are stored as ``\\xNN`` escapes (agreebound.core.escape.utf8_safe).

Why one module of this size (the house splits modules over 600 lines): the schema, the records and
the :class:`Store` are the one place SQL is written, and every query carries its access rule (owner,
team, sharing) beside it; split apart, a reader would have to hold several files to check that no
query forgets the viewer. Its sections (schema, records, where, the store, SQLite, errors in words,
one store per process) are its seams.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import secrets
import sqlite3
import stat
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence, TypeVar, TypeVarTuple, Unpack, cast, overload

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, RowMapping

from agreebound.version import __version__
from agreebound.app.access import (
    KEY_SEPARATOR,
    LOCAL,
    MAX_USER_CHARS,
    Viewer,
    may_change,
    may_see,
    share_problem,
)
from agreebound.core.errors import missing_extra
from agreebound.core.escape import excerpt, printable
from agreebound.core.limits import MAX_INPUT_BYTES, MAX_NAME_CHARS
from agreebound.core.escape import LONE_SURROGATE, utf8_safe, utf8_safe_tree
from agreebound.core.json_types import JSONObject, JSONValue

log = logging.getLogger("agreebound.app.store")

#: The columns a select of runs returns, kept through what narrows or extends it.
_Columns = TypeVarTuple("_Columns")
_T = TypeVar("_T")

ENV = "AGREEBOUND_DB"
OFF = ("off", "none", "0", "false", "no")
APP = "agreebound"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 30
#: A run id: 32 lowercase hex digits (128 random bits; runs recorded with 12 get 32 in schema 3). A
#: link names a run by its whole id; the CLI also takes a unique prefix of 4 or more of the user's
#: own runs.
RUN_ID = re.compile(r"^[0-9a-f]{32}$")
RUN_PREFIX = re.compile(r"^[0-9a-f]{4,32}$")
RUN_ID_HEX = 32
#: The bytes of all inputs of one run (the dashboard's upload limit per file, a run has at most a
#: handful of files).
MAX_RUN_BYTES = 4 * MAX_INPUT_BYTES
#: Runs one listing returns at most (``history --limit``; the History page asks for 5,000).
MAX_LISTED_RUNS = 1_000_000
#: Seconds a PostgreSQL server has to answer a connection (a server that accepts and never
#: answers fails within them), from $AGREEBOUND_DB_TIMEOUT: whole seconds, 2 (libpq's least) to 600.
TIMEOUT_ENV = "AGREEBOUND_DB_TIMEOUT"
DEFAULT_TIMEOUT_S = 5
TIMEOUT_RANGE_S = (2, 600)
#: What an operation that failed left undone, said after the reason (Store.open's ``purpose``).
OUTCOMES = {"record": "nothing was recorded", "read": "the history cannot be read", "delete": "nothing was deleted",
            "share": "its sharing is unchanged"}
#: What the audit trail records: a run recorded, opened (through a link or the History page),
#: shared, deleted by its owner or an admin, deleted by retention (``prune``), a link to a run
#: the viewer cannot open, a run's 12-digit id replaced by a 32-digit one (schema 3), the runs an
#: earlier version stored under an address or a subject form claimed by the account that signed in
#: with it (``claim``, schema 4), and how many openings and refusals were left out (``unrecorded``).
AUDIT_ACTIONS = ("record", "open", "share", "delete", "prune", "refused", "reid", "claim", "unrecorded")
#: What a viewer does as often as they click: opening runs and following links to runs they
#: cannot open. Together they are recorded up to :data:`MAX_LOOKS_PER_HOUR` per user in any hour;
#: past it, one "unrecorded" event per user and hour counts what was left out, by action.
LOOKS = ("open", "refused")
MAX_LOOKS_PER_HOUR = 100
#: The newest audit events one listing returns at most.
MAX_AUDIT_ROWS = 100_000


class StoreError(Exception):
    """The database cannot be used or cannot take this write: one line saying which database and
    why. Nothing was changed by the operation that raised it."""


# --- schema --------------------------------------------------------------------------------------

meta = sa.MetaData()
T_META = sa.Table("agreebound_meta", meta,
                  sa.Column("key", sa.String(64), primary_key=True),
                  sa.Column("value", sa.Text, nullable=False))
T_MIGRATIONS = sa.Table("agreebound_migrations", meta,
                        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
                        sa.Column("description", sa.Text, nullable=False),
                        sa.Column("applied_utc", sa.String(40), nullable=False))
T_BLOBS = sa.Table("agreebound_blobs", meta,
                   sa.Column("sha256", sa.String(64), primary_key=True),  # of the bytes as uploaded
                   sa.Column("size", sa.BigInteger, nullable=False),  # bytes as uploaded
                   sa.Column("data", sa.LargeBinary, nullable=False),
                   sa.Column("created_utc", sa.String(40), nullable=False),
                   sa.Column("encoding", sa.String(16), nullable=False, server_default="raw"))  # "raw" | "zstd"
T_RUNS = sa.Table("agreebound_runs", meta,
                  sa.Column("id", sa.String(32), primary_key=True),
                  sa.Column("created_utc", sa.String(40), nullable=False, index=True),
                  sa.Column("kind", sa.String(16), nullable=False),  # "panel" | "judge"
                  sa.Column("data_name", sa.Text, nullable=False, index=True),
                  sa.Column("judge", sa.Text),
                  sa.Column("contract_id", sa.Text),
                  sa.Column("verdict", sa.String(32), nullable=False),
                  sa.Column("label", sa.Text),
                  sa.Column("origin", sa.String(16), nullable=False),  # "cli" | "dashboard"
                  sa.Column("tool_version", sa.String(40), nullable=False),
                  sa.Column("thresholds_source", sa.Text, nullable=False),
                  sa.Column("thresholds_json", sa.Text, nullable=False),
                  sa.Column("recipe_json", sa.Text, nullable=False),
                  sa.Column("report_json", sa.Text, nullable=False),
                  # who recorded it (access.LOCAL without sign-in), their team then, how far it is shared
                  sa.Column("owner", sa.String(320), nullable=False, server_default=LOCAL, index=True),
                  sa.Column("team", sa.String(320)),
                  sa.Column("share", sa.String(8), nullable=False, server_default="private"))
T_INPUTS = sa.Table("agreebound_run_inputs", meta,
                    sa.Column("run_id", sa.String(32), sa.ForeignKey("agreebound_runs.id", ondelete="CASCADE"),
                              primary_key=True),
                    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("role", sa.String(32), nullable=False),
                    sa.Column("name", sa.Text, nullable=False),
                    sa.Column("sha256", sa.String(64), sa.ForeignKey("agreebound_blobs.sha256"), nullable=False,
                              index=True),
                    sa.Column("size", sa.BigInteger, nullable=False))
#: Who did what to which run, and when; a deleted run's row here is its tombstone (no foreign key:
#: the trail outlives the run). ``detail``: JSON (the run's data name, kind, verdict, owner, ...).
T_AUDIT = sa.Table("agreebound_audit", meta,
                   sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
                   sa.Column("at_utc", sa.String(40), nullable=False, index=True),
                   sa.Column("actor", sa.String(320), nullable=False),
                   sa.Column("action", sa.String(16), nullable=False),
                   sa.Column("run_id", sa.String(32), nullable=False, index=True),
                   sa.Column("detail", sa.Text, nullable=False))
#: Each signed-in account (access.identity_key) and how pages name it: its verified address when
#: it last signed in (else its ``sub:`` form). A run's owner is the key; this is only for showing it.
T_IDENTITIES = sa.Table("agreebound_identities", meta,
                        sa.Column("key", sa.String(320), primary_key=True),
                        sa.Column("shown", sa.String(320), nullable=False),
                        sa.Column("seen_utc", sa.String(40), nullable=False))
#: An owner name an earlier version stored runs under (a verified address, a ``sub:`` form), and
#: the account that claimed it: the first to sign in whose verified address is exactly that name as
#: the provider gives it (or whose ``sub:`` form it is; access.legacy_names), or the account an
#: operator gave it to (Store.reassign, ``agreebound claim``). Claimed once: an account whose address
#: is the same only after case-folding or trimming gets none of it, whichever signs in first.
T_CLAIMS = sa.Table("agreebound_owner_claims", meta,
                    sa.Column("legacy", sa.String(320), primary_key=True),
                    sa.Column("key", sa.String(320), nullable=False, index=True),
                    sa.Column("at_utc", sa.String(40), nullable=False))


def _migration_1(conn: Connection) -> None:
    """The first schema, as it was (frozen here: later columns arrive by later migrations)."""
    v1 = sa.MetaData()
    sa.Table("agreebound_blobs", v1,
             sa.Column("sha256", sa.String(64), primary_key=True),
             sa.Column("size", sa.BigInteger, nullable=False),
             sa.Column("data", sa.LargeBinary, nullable=False),
             sa.Column("created_utc", sa.String(40), nullable=False))
    sa.Table("agreebound_runs", v1, *[sa.Column(c.name, sa.String(12) if c.name == "id" else c.type,
                                                primary_key=c.primary_key, nullable=c.nullable, index=c.index)
                                      for c in T_RUNS.c if c.name not in ("owner", "team", "share")])
    sa.Table("agreebound_run_inputs", v1,
             sa.Column("run_id", sa.String(12), sa.ForeignKey("agreebound_runs.id", ondelete="CASCADE"),
                       primary_key=True),
             sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
             sa.Column("role", sa.String(32), nullable=False),
             sa.Column("name", sa.Text, nullable=False),
             sa.Column("sha256", sa.String(64), sa.ForeignKey("agreebound_blobs.sha256"), nullable=False, index=True),
             sa.Column("size", sa.BigInteger, nullable=False))
    v1.create_all(conn, tables=[v1.tables[n] for n in ("agreebound_blobs", "agreebound_runs", "agreebound_run_inputs")])


def _migration_2(conn: Connection) -> None:
    """Blobs compressed by agreebound (zstd) when that pays: a CSV stores at a fifth of its size and
    writes faster; PostgreSQL's own compression of the column is switched off (pglz is slower, and
    only costs time on bytes already compressed)."""
    conn.execute(sa.text("ALTER TABLE agreebound_blobs ADD COLUMN encoding VARCHAR(16) NOT NULL DEFAULT 'raw'"))
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("ALTER TABLE agreebound_blobs ALTER COLUMN data SET STORAGE EXTERNAL"))


def _migration_3(conn: Connection) -> None:
    """Runs belong to someone: owner, team and sharing (runs recorded before are the single user's,
    ``local``, and private); run ids of 128 bits (the column widens; old ids stay valid); the
    audit trail."""
    conn.execute(sa.text(f"ALTER TABLE agreebound_runs ADD COLUMN owner VARCHAR(320) NOT NULL DEFAULT '{LOCAL}'"))
    conn.execute(sa.text("ALTER TABLE agreebound_runs ADD COLUMN team VARCHAR(320)"))
    conn.execute(sa.text("ALTER TABLE agreebound_runs ADD COLUMN share VARCHAR(8) NOT NULL DEFAULT 'private'"))
    conn.execute(sa.text("CREATE INDEX ix_agreebound_runs_owner ON agreebound_runs (owner)"))
    if conn.dialect.name == "postgresql":  # SQLite does not enforce a VARCHAR's length
        conn.execute(sa.text("ALTER TABLE agreebound_runs ALTER COLUMN id TYPE VARCHAR(32)"))
        conn.execute(sa.text("ALTER TABLE agreebound_run_inputs ALTER COLUMN run_id TYPE VARCHAR(32)"))
    T_AUDIT.create(conn)
    _new_ids(conn)


def _new_ids(conn: Connection) -> None:
    """Each run recorded with a 12-digit id (48 random bits: guessable) gets a 32-digit one; the
    audit trail keeps the old id beside the new ("reid"), so an admin can find a run an old link
    named. Links with the old id no longer open it."""
    columns = [c["name"] for c in sa.inspect(conn).get_columns("agreebound_runs") if c["name"] != "id"]
    names = ", ".join(columns)
    old_ids = [r[0] for r in conn.execute(sa.text("SELECT id FROM agreebound_runs")) if len(str(r[0])) != RUN_ID_HEX]
    for old in old_ids:
        new = secrets.token_hex(RUN_ID_HEX // 2)
        conn.execute(sa.text(f"INSERT INTO agreebound_runs (id, {names}) SELECT :new, {names} FROM agreebound_runs "
                             "WHERE id = :old"), {"new": new, "old": old})
        conn.execute(sa.text("UPDATE agreebound_run_inputs SET run_id = :new WHERE run_id = :old"), {"new": new, "old": old})
        conn.execute(sa.text("DELETE FROM agreebound_runs WHERE id = :old"), {"old": old})
        conn.execute(T_AUDIT.insert().values(at_utc=now_utc(), actor="migration", action="reid", run_id=new,
                                             detail=_dumps({"old_id": old})))


def _migration_4(conn: Connection) -> None:
    """Owners are accounts (issuer and subject), not addresses: the table of accounts (how each is
    shown) and the table of claims. Runs stored under an address or a ``sub:`` form stay as they are
    until the account with that address or subject signs in and claims them (Store.sign_in): no run
    is lost, and none is given to an account that merely shares an address after case-folding."""
    v4 = sa.MetaData()  # frozen here, as released
    sa.Table("agreebound_identities", v4,
             sa.Column("key", sa.String(320), primary_key=True),
             sa.Column("shown", sa.String(320), nullable=False),
             sa.Column("seen_utc", sa.String(40), nullable=False))
    sa.Table("agreebound_owner_claims", v4,
             sa.Column("legacy", sa.String(320), primary_key=True),
             sa.Column("key", sa.String(320), nullable=False, index=True),
             sa.Column("at_utc", sa.String(40), nullable=False))
    v4.create_all(conn)


#: (version, what it does, how). Append only: a released migration never changes.
MIGRATIONS: tuple[tuple[int, str, Callable[[Connection], None]], ...] = (
    (1, "runs, their inputs, and content-addressed blobs", _migration_1),
    (2, "blobs compressed when that pays (column encoding: raw, zstd)", _migration_2),
    (3, "runs have an owner, a team and a sharing; 128-bit run ids; the audit trail", _migration_3),
    (4, "owners are accounts (issuer and subject); accounts and their claims of earlier owners", _migration_4),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]


# --- records -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Input:
    """One input file of a run: its role ("ratings", "rates", "mapping", "bundle", "references", ...)."""

    role: str
    name: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Run:
    id: str
    created_utc: str
    kind: str
    data_name: str
    judge: str | None
    contract_id: str | None
    verdict: str
    label: str | None
    origin: str
    tool_version: str
    thresholds_source: str
    thresholds: JSONObject
    recipe: JSONObject
    report: JSONObject = field(repr=False)
    inputs: tuple[Input, ...] = ()
    owner: str = LOCAL
    team: str | None = None
    share: str = "private"
    #: How pages name the owner (their verified address when they last signed in); None: as ``owner``.
    owner_shown: str | None = None

    @property
    def owner_name(self) -> str:
        """The owner as a page names them: the address, never the account's key."""
        return self.owner_shown or self.owner

    def summary(self) -> JSONObject:
        """The run as one row of a listing (no report)."""
        return {"id": self.id, "created_utc": self.created_utc, "kind": self.kind, "data_name": self.data_name,
                "judge": self.judge, "contract_id": self.contract_id, "verdict": self.verdict, "label": self.label,
                "origin": self.origin, "tool_version": self.tool_version, "thresholds_source": self.thresholds_source,
                "owner": self.owner, "owner_shown": self.owner_name, "team": self.team, "share": self.share,
                "inputs": [{"role": i.role, "name": i.name, "sha256": i.sha256, "size": i.size} for i in self.inputs]}

    def tombstone(self) -> JSONObject:
        """What the audit trail keeps of the run once it is deleted."""
        return {"data_name": self.data_name, "kind": self.kind, "verdict": self.verdict, "label": self.label,
                "owner": self.owner, "owner_shown": self.owner_name, "share": self.share,
                "created_utc": self.created_utc,
                "bytes": sum(i.size for i in self.inputs)}


def now_utc() -> str:
    return utc_ago()


def utc_ago(**delta: float) -> str:
    """The UTC time ``delta`` ago (timedelta's keywords; none: now) as runs and events store it."""
    from datetime import timedelta

    return (datetime.now(timezone.utc) - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --- where -------------------------------------------------------------------------------------


def data_dir() -> Path:
    """The per-user data folder: $XDG_DATA_HOME/agreebound (default ~/.local/share/agreebound)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "agreebound"


def default_url() -> str:
    return f"sqlite:///{data_dir() / 'runs.db'}"


def configured_url(given: str | None = None) -> str | None:
    """The database URL in force: ``given`` (--db), else $AGREEBOUND_DB, else the default file.
    None when recording is switched off (``off``). A bare path means a SQLite file."""
    url = given if given is not None else os.environ.get(ENV)
    if url is None or not url.strip():
        return default_url()
    url = url.strip()
    if url.lower() in OFF:
        return None
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().resolve()}"
    return url


def kind_of(url: str) -> str:
    """A store by its kind, as anyone may be told it: no path, host or user."""
    return "PostgreSQL store" if url.startswith("postgres") else "local SQLite file"


def describe(url: str) -> str:
    """The URL as it may be shown: a password is never printed."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - shown in an error message, never parsed further
        return printable(url, 120)


# --- the store ---------------------------------------------------------------------------------


class Store:
    """One database. Open with :meth:`open`; every method raises only :class:`StoreError`."""

    def __init__(self, engine: Engine, url: str, purpose: str = "record", timeout: int | None = None):
        self.engine, self.url = engine, url
        self.where = describe(url)
        self.sqlite = engine.dialect.name == "sqlite"
        self.path = Path(engine.url.database) if self.sqlite and engine.url.database else None
        self.purpose, self.timeout = purpose, timeout
        #: Who is asking (access.Viewer); None: the operator (the CLI, tests), who sees every run.
        self.viewer: Viewer | None = None

    def as_viewer(self, viewer: Viewer | None) -> "Store":
        """This store (the same connections) as ``viewer`` sees it: listings, ids and reads are
        limited to the runs they may see (access.may_see); deleting and sharing to their own."""
        import copy

        view = copy.copy(self)
        view.viewer = viewer
        return view

    @property
    def user(self) -> str:
        """Who records, opens and deletes here (access.LOCAL for the operator)."""
        return self.viewer.user if self.viewer is not None else LOCAL

    @property
    def named(self) -> str:
        """The store by its kind, as a page may name it to anyone: no path, host or user."""
        return kind_of(self.url)

    @property
    def shown(self) -> str:
        """Where the store is, for whoever may see it: the location for the operator and admins,
        else its kind (:attr:`named`)."""
        return self.where if self.viewer is None or self.viewer.admin else self.named

    @property
    def here(self) -> str:
        """Where a run was looked for, in a message: the store for the operator and admins; "here"
        for anyone else (the same words whether the run does not exist or is not theirs)."""
        return f"in {self.shown}" if self.shown == self.where else "here"

    def _visible(self, q: sa.Select[Unpack[_Columns]]) -> sa.Select[Unpack[_Columns]]:
        """``q`` limited to the runs the viewer may see (the same rule as access.may_see)."""
        v = self.viewer
        if v is None or v.admin:
            return q
        seen = [T_RUNS.c.owner == v.user, T_RUNS.c.share == "all"]
        if v.team is not None:
            seen.append(sa.and_(T_RUNS.c.share == "team", T_RUNS.c.team == v.team))
        return q.where(sa.or_(*seen))

    # -- opening --

    @classmethod
    def open(cls, url: str | None = None, purpose: str = "record") -> "Store":
        """The database at ``url`` (see :func:`configured_url`), created or migrated. ``purpose``
        ("record", "read" or "delete") says what a failure to open it leaves undone."""
        if purpose not in OUTCOMES:
            raise ValueError(f"purpose {purpose!r}")
        url = configured_url(url)
        if url is None:
            raise StoreError("recording is switched off (AGREEBOUND_DB=off)")
        try:
            parsed = sa.make_url(url)
        except Exception:  # noqa: BLE001
            raise StoreError(f"{describe(url)}: not a database URL (expected sqlite:///path/file.db or "
                             "postgresql://user@host/db)") from None
        backend = parsed.get_backend_name()
        timeout = None
        if backend == "sqlite":
            engine = _sqlite_engine(parsed)
        elif backend in ("postgresql", "postgres"):
            if LONE_SURROGATE.search(url):
                raise StoreError(f"{describe(url)}: the database URL holds bytes that are not UTF-8; give it in UTF-8")
            if parsed.drivername in ("postgresql", "postgres"):
                parsed = parsed.set(drivername="postgresql+psycopg")
            timeout = connect_timeout()
            try:
                engine = sa.create_engine(parsed, pool_pre_ping=True, connect_args={"connect_timeout": timeout})
            except ModuleNotFoundError as e:  # the [postgres] extra is not installed: the user's to add
                if (extra := missing_extra(e)) is None:
                    raise
                raise StoreError(f"{describe(url)}: {extra}") from None
        else:
            raise StoreError(f"{describe(url)}: unsupported database {printable(backend, 30)!r}; "
                             "agreebound stores runs in SQLite or PostgreSQL")
        store = cls(engine, url, purpose, timeout)
        try:
            with store._guard("opening", OUTCOMES[purpose]):
                store._prepare()
        except BaseException:
            engine.dispose()
            raise
        return store

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _prepare(self) -> None:
        """Refuse what is not ours; create or migrate what is (each migration once, under a lock)."""
        names = set(sa.inspect(self.engine).get_table_names())
        if names and "agreebound_meta" not in names:
            shown = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
            raise StoreError(f"{self.shown}: this database holds another application's tables ({printable(shown, 120)}) "
                             "and no agreebound runs; it was left untouched. Give --db or AGREEBOUND_DB another file")
        if names:
            version = self._version_readonly()
            if version == SCHEMA_VERSION:
                return
        if self.sqlite:  # ours (or empty): WAL, so readers never wait for a writer (kept in the file)
            with self.engine.connect() as conn:
                conn.commit()
                dbapi = conn.connection.dbapi_connection
                assert dbapi is not None  # a connection checked out of the pool holds its DB-API connection
                dbapi.execute("PRAGMA journal_mode = WAL")
        with self._write() as conn:
            T_META.create(conn, checkfirst=True)
            T_MIGRATIONS.create(conn, checkfirst=True)
            rows = dict(conn.execute(sa.select(T_META.c.key, T_META.c.value)).all())
            if rows and rows.get("app") != APP:
                raise StoreError(f"{self.shown}: its agreebound_meta table does not name agreebound; left untouched")
            if not rows:
                conn.execute(T_META.insert(), [{"key": "app", "value": APP}, {"key": "schema_version", "value": "0"}])
            current = int(rows.get("schema_version", "0"))
            self._check_not_newer(current)
            for version, description, apply in MIGRATIONS:
                if version <= current:
                    continue
                apply(conn)
                conn.execute(T_MIGRATIONS.insert().values(version=version, description=description,
                                                          applied_utc=now_utc()))
                conn.execute(T_META.update().where(T_META.c.key == "schema_version").values(value=str(version)))

    def _version_readonly(self) -> int:
        with self.engine.connect() as conn:
            rows = dict(conn.execute(sa.select(T_META.c.key, T_META.c.value)).all())
        if rows.get("app") != APP:
            raise StoreError(f"{self.shown}: its agreebound_meta table does not name agreebound; left untouched")
        try:
            version = int(rows.get("schema_version", "0"))
        except ValueError:
            raise StoreError(f"{self.shown}: its schema version {printable(rows.get('schema_version'), 20)!r} is not "
                             "a number; left untouched") from None
        self._check_not_newer(version)
        return version

    def _check_not_newer(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.shown}: written by a newer agreebound (schema {version}; this is {__version__} "
                             f"with schema {SCHEMA_VERSION}); upgrade agreebound to read it. It was left untouched")

    # -- transactions and errors --

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One write transaction; on SQLite it takes the write lock at once (BEGIN IMMEDIATE), so two
        writers queue on the busy timeout instead of deadlocking on a lock upgrade."""
        with self.engine.connect() as conn:
            conn = conn.execution_options(agreebound_write=True)
            with conn.begin():
                if not self.sqlite:  # writers take turns on PostgreSQL too: a record never races a delete
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(7405221)"))
                yield conn

    @contextmanager
    def _guard(self, doing: str, outcome: str = OUTCOMES["read"]) -> Iterator[None]:
        """Any database error in the block as one StoreError: what was being done, what went wrong
        and what that left undone (``outcome``). sqlite3's own errors too: the WAL pragma runs on
        the driver's connection."""
        try:
            yield
        except StoreError:
            raise
        except (sa.exc.SQLAlchemyError, sqlite3.Error, OSError) as e:
            said = explain(e, outcome, path=self.path, timeout=self.timeout)
            if self.shown != self.where:  # not an admin: the driver's words may name hosts, ports, folders
                ref = secrets.token_hex(4)
                log.warning("%s: %s failed (reference %s): %s", self.where, doing, ref, said)
                said = f"{outcome} (the server's log has the reason, reference {ref})"
            raise StoreError(f"{self.shown}: {doing} failed: {said}") from None

    # -- writing --

    def record(self, kind: str, inputs: Sequence[tuple[str, str, bytes]], report: JSONObject,
               recipe: JSONObject, thresholds: JSONObject, thresholds_source: str,
               label: str | None = None, origin: str = "cli", data_name: str | None = None,
               digests: Sequence[str] | None = None, share: str = "private",
               quota_bytes: int | None = None) -> Run:
        """Record one run as the viewer's (:attr:`user`, their team), shared ``share``:
        ``inputs`` are (role, file name, bytes), the first being the data; ``digests`` their
        SHA-256 when the caller has them already (else computed). Blobs already stored are not sent
        again. ``quota_bytes``: the most the owner's runs may store (their distinct files' bytes);
        a run past it is refused. Returns the run as stored."""
        if kind not in ("panel", "judge"):
            raise ValueError(f"kind {kind!r}")
        if share_problem(share):
            raise StoreError(f"{share_problem(share)}. The run was not recorded")
        if not inputs:
            raise ValueError("a run has at least one input")
        total = sum(len(b) for _, _, b in inputs)
        for role, name, data in inputs:
            if len(data) > MAX_INPUT_BYTES:
                raise StoreError(f"{self.shown}: {printable(name, 80)} is {len(data):,} bytes; stored inputs are limited "
                                 f"to {MAX_INPUT_BYTES:,} bytes, as uploads are. The run was not recorded")
        if total > MAX_RUN_BYTES:
            raise StoreError(f"{self.shown}: the run's inputs are {total:,} bytes; a run is limited to "
                             f"{MAX_RUN_BYTES:,}. The run was not recorded")
        if label:
            why = label_problem(label)
            if why:
                raise StoreError(f"{self.shown}: the label {why}. The run was not recorded")
        # a file name's bytes that are not UTF-8 are stored escaped: a name never stops a recording
        inputs = [(role, utf8_safe(name), data) for role, name, data in inputs]
        data_name = utf8_safe(data_name) if data_name else None
        for name in [n for _, n, _ in inputs] + ([data_name] if data_name else []):
            why = name_problem(name)
            if why:
                raise StoreError(f"{self.shown}: the input name {excerpt(name, 60)} {why}. The run was not "
                                 "recorded")
        import hashlib

        if digests is None or len(digests) != len(inputs):
            digests = [hashlib.sha256(data).hexdigest() for _, _, data in inputs]
        from agreebound.render.report import verdict_of

        verdict = verdict_of(report)
        judge, contract_id = _judge_columns(kind, report)
        created = now_utc()
        row = {"created_utc": created, "kind": kind, "data_name": data_name or inputs[0][1], "judge": judge,
               "contract_id": contract_id, "verdict": verdict, "label": label or None, "origin": origin,
               "tool_version": __version__, "thresholds_source": thresholds_source,
               "thresholds_json": _dumps(thresholds), "recipe_json": _dumps(recipe), "report_json": _dumps(report),
               "owner": self.user, "team": self.viewer.team if self.viewer is not None else None, "share": share}
        with self._guard("recording the run", OUTCOMES["record"]):
            with self._write() as conn:
                if quota_bytes is not None:
                    size = sum(len(cast(str, row[c]).encode("utf-8")) for c in JSON_COLUMNS)  # texts: _dumps's
                    self._check_quota(conn, dict(zip(digests, (len(d) for _, _, d in inputs))), size, quota_bytes)
                for (role, name, data), digest in zip(inputs, digests):
                    have = conn.execute(sa.select(T_BLOBS.c.size).where(T_BLOBS.c.sha256 == digest)).first()
                    if have is None:
                        encoding, stored = pack(data)
                        # another writer may store the same new bytes between the look and the
                        # insert (PostgreSQL does not serialise them as SQLite's write lock does)
                        conn.execute(_insert_new(conn, T_BLOBS).values(sha256=digest, size=len(data), data=stored,
                                                                        encoding=encoding, created_utc=created))
                for _ in range(8):
                    run_id = secrets.token_hex(RUN_ID_HEX // 2)
                    if conn.execute(sa.select(T_RUNS.c.id).where(T_RUNS.c.id == run_id)).first() is None:
                        break
                conn.execute(T_RUNS.insert().values(id=run_id, **row))
                rows = [{"run_id": run_id, "position": i, "role": role, "name": name, "sha256": digest, "size": len(data)}
                        for i, ((role, name, data), digest) in enumerate(zip(inputs, digests))]
                conn.execute(T_INPUTS.insert(), rows)
                run = _run({"id": run_id, **row, "owner_shown": self.viewer.name if self.viewer else None}, rows)
                self._audit(conn, "record", run_id, {**run.tombstone(), "origin": origin}, at=created)
        return run

    def _check_quota(self, conn: Connection, sizes: dict[str, int], stored: int, quota: int) -> None:
        """Refuse a run that would take the owner past ``quota`` bytes: its new files (files the
        owner's runs hold already cost nothing more) and its own stored report, recipe and
        thresholds (``stored``: each run stores its own)."""
        held = self._owner_blobs(conn, self.user)
        used = sum(held.values()) + self._owner_json(conn, self.user)
        new = sum(size for digest, size in sizes.items() if digest not in held) + stored
        if used + new > quota:
            raise StoreError(f"this run's files ({amount(new)}) would take your stored files past your quota: you store "
                             f"{amount(used)} of {amount(quota)}. Delete runs you no longer need on the History page (or "
                             "`agreebound delete`), or ask an admin to raise AGREEBOUND_QUOTA_MB. The run was not "
                             "recorded")

    @staticmethod
    def _owner_blobs(conn: Connection, owner: str) -> dict[str, int]:
        """The distinct files the owner's runs hold: SHA-256 -> bytes as uploaded."""
        q = (sa.select(T_INPUTS.c.sha256, sa.func.max(T_INPUTS.c.size))
             .join(T_RUNS, T_RUNS.c.id == T_INPUTS.c.run_id).where(T_RUNS.c.owner == owner)
             .group_by(T_INPUTS.c.sha256))
        return {sha: int(size) for sha, size in conn.execute(q)}

    @staticmethod
    def _owner_json(conn: Connection, owner: str) -> int:
        """Bytes of the owner's runs' own stored JSON (reports, recipes, thresholds)."""
        total = sum(sa.func.coalesce(sa.func.length(T_RUNS.c[c]), 0) for c in JSON_COLUMNS)
        return int(conn.execute(sa.select(sa.func.coalesce(sa.func.sum(total), 0)).where(T_RUNS.c.owner == owner))
                   .scalar_one())

    def usage(self) -> int:
        """Bytes the viewer's runs hold against their quota: their distinct files and each run's
        stored report, recipe and thresholds."""
        with self._guard("counting your stored files"):
            with self.engine.connect() as conn:
                return sum(self._owner_blobs(conn, self.user).values()) + self._owner_json(conn, self.user)

    def _audit(self, conn: Connection, action: str, run_id: str, detail: JSONObject, at: str | None = None) -> None:
        conn.execute(T_AUDIT.insert().values(at_utc=at or now_utc(), actor=_actor(self.user), action=action,
                                             run_id=run_id[:32], detail=_dumps(self._by(detail))))

    def _by(self, detail: JSONObject) -> JSONObject:
        """An event's detail with how the actor was named when they acted (their verified address),
        when that is not their key."""
        if self.viewer is not None and self.viewer.name != self.viewer.user:
            return {**detail, "actor_shown": self.viewer.name}
        return detail

    def note(self, action: str, run_id: str, **detail: object) -> None:
        """Add an event to the audit trail ("open": a run opened through a link or the History page;
        "refused": a link to a run the viewer cannot open)."""
        if action not in AUDIT_ACTIONS:
            raise ValueError(f"action {action!r}")
        with self._guard("writing the audit trail", "the event was not recorded"):
            with self._write() as conn:
                if action in LOOKS and self._looks_last_hour(conn) >= MAX_LOOKS_PER_HOUR:
                    self._left_out(conn, action)  # clicking through runs, or trying ids: counted, not a flood
                    return
                self._audit(conn, action, run_id, detail)

    def _looks_last_hour(self, conn: Connection) -> int:
        """The viewer's openings and refusals recorded in the last hour."""
        q = (sa.select(sa.func.count()).select_from(T_AUDIT).where(T_AUDIT.c.actor == _actor(self.user))
             .where(T_AUDIT.c.action.in_(LOOKS)).where(T_AUDIT.c.at_utc >= utc_ago(hours=1)))
        return int(conn.execute(q).scalar_one())

    def _left_out(self, conn: Connection, action: str) -> None:
        """Count an event past the bound in the viewer's "unrecorded" event of the last hour (one is
        added when there is none): how many of each action, and when the last was."""
        row = conn.execute(sa.select(T_AUDIT.c.seq, T_AUDIT.c.detail).where(T_AUDIT.c.actor == _actor(self.user))
                           .where(T_AUDIT.c.action == "unrecorded").where(T_AUDIT.c.at_utc >= utc_ago(hours=1))
                           .order_by(T_AUDIT.c.seq.desc()).limit(1)).first()
        try:
            counts = json.loads(row[1]) if row is not None else {}
        except ValueError:
            counts = {}
        counts = {k: int(counts.get(k) or 0) for k in LOOKS if isinstance(counts, dict)}
        counts[action] = counts.get(action, 0) + 1
        detail = {**counts, "last_utc": now_utc(), "bound": f"{MAX_LOOKS_PER_HOUR} openings and refusals an hour"}
        if row is None:
            self._audit(conn, "unrecorded", "", detail)
        else:
            conn.execute(T_AUDIT.update().where(T_AUDIT.c.seq == row[0]).values(detail=_dumps(self._by(detail))))

    def sign_in(self) -> list[tuple[str, int]]:
        """The viewer (a signed-in account) as the store remembers it: how pages name it (its
        verified address), and the owner names earlier versions stored its runs under (its ``sub:``
        form, its address when the provider gives it exactly as they stored it;
        access.Viewer.legacy) claimed for it, its runs re-keyed to it, when no other account claimed
        them first; each such claim is said in the audit trail. Returns (name claimed, runs
        re-keyed) for each claim this sign-in made or renewed."""
        v = self.viewer
        if v is None or not v.signed_in or not v.user:
            return []
        done = []
        with self._guard("remembering who signed in", "your earlier runs were not looked for"):
            with self._write() as conn:
                key, shown, now = _actor(v.user), _actor(v.name), now_utc()
                known = conn.execute(sa.select(T_IDENTITIES.c.shown).where(T_IDENTITIES.c.key == key)).first()
                if known is None:
                    conn.execute(T_IDENTITIES.insert().values(key=key, shown=shown, seen_utc=now))
                elif known[0] != shown:
                    conn.execute(T_IDENTITIES.update().where(T_IDENTITIES.c.key == key).values(shown=shown, seen_utc=now))
                for legacy in v.legacy:
                    legacy = _actor(legacy)
                    if legacy in (key, LOCAL, ""):
                        continue
                    holder = conn.execute(sa.select(T_CLAIMS.c.key).where(T_CLAIMS.c.legacy == legacy)).first()
                    if holder is None:
                        conn.execute(_insert_new(conn, T_CLAIMS).values(legacy=legacy, key=key, at_utc=now))
                        holder = conn.execute(sa.select(T_CLAIMS.c.key).where(T_CLAIMS.c.legacy == legacy)).first()
                    if holder is None or holder[0] != key:
                        continue  # another account claimed this name first: its runs stay that account's
                    moved = conn.execute(T_RUNS.update().where(T_RUNS.c.owner == legacy).values(owner=key)).rowcount
                    if moved:
                        conn.execute(T_AUDIT.insert().values(at_utc=now, actor=key, action="claim", run_id="",
                                                             detail=_dumps({"from": legacy, "runs": moved,
                                                                            "shown": shown})))
                        done.append((legacy, int(moved)))
        return done

    def owned_by(self, name: str) -> int:
        """How many runs are stored under the owner name ``name`` (admins and the operator only):
        the server's log says so when an account signs in whose address earlier versions stored
        its runs under, but not exactly (access.legacy_names)."""
        if self.viewer is not None and not self.viewer.admin:
            raise StoreError("owners' runs are counted for admins only")
        with self._guard("counting an owner's runs"):
            with self.engine.connect() as conn:
                return int(conn.execute(sa.select(sa.func.count()).select_from(T_RUNS)
                                        .where(T_RUNS.c.owner == _actor(name))).scalar_one())

    def reassign(self, legacy: str, to: str) -> tuple[str, str, int, str | None]:
        """Give the runs an earlier version stored under the owner name ``legacy`` (an address as
        it stored it: trimmed, in lower case; a ``sub:`` form; a terminal's name) to the account
        ``to``: its key (``<issuer>|<subject>``), or the address it is shown as, exactly, when one
        account that signed in here is shown so. The operator's (or an admin's) decision, for the
        runs no sign-in claims by itself (an account whose provider's address has capitals or
        spaces, access.legacy_names); the name's claim is this account's from now on, whoever held
        it, and the move is said in the audit trail. Returns (key, how it is shown, runs moved, the
        account that held the claim before or None)."""
        outcome = "no run was moved"
        if self.viewer is not None and not self.viewer.admin:
            raise StoreError(f"runs are given to another account by admins only; {outcome}")
        legacy = _actor(legacy)
        if not legacy or KEY_SEPARATOR in legacy:
            what = "is an account's key" if legacy else "(nothing) is no name"
            raise StoreError(f"{printable(legacy, 80)!r} {what}: give an owner name an earlier version stored runs "
                             f"under (an address in lower case, a sub: form, a terminal's name); {outcome}")
        with self._guard("giving runs to an account", outcome):
            with self._write() as conn:
                key, shown = self._account(conn, to, outcome)
                n = int(conn.execute(sa.select(sa.func.count()).select_from(T_RUNS)
                                     .where(T_RUNS.c.owner == legacy)).scalar_one())
                if n == 0:
                    raise StoreError(f"no run {self.here} is owned by {printable(legacy, 80)!r} (names as earlier "
                                     f"versions stored them: `agreebound history` lists each run's owner); {outcome}")
                before = conn.execute(sa.select(T_CLAIMS.c.key).where(T_CLAIMS.c.legacy == legacy)).scalar()
                now = now_utc()
                conn.execute(_insert_new(conn, T_CLAIMS).values(legacy=legacy, key=key, at_utc=now))
                conn.execute(T_CLAIMS.update().where(T_CLAIMS.c.legacy == legacy).values(key=key, at_utc=now))
                moved = conn.execute(T_RUNS.update().where(T_RUNS.c.owner == legacy).values(owner=key)).rowcount
                self._audit(conn, "claim", "", {"from": legacy, "runs": int(moved), "to": key, "shown": shown,
                                                "claimed_before_by": before}, at=now)
        return key, shown, int(moved), before

    def _account(self, conn: Connection, to: str, outcome: str) -> tuple[str, str]:
        """(key, shown) of the account that signed in here named by ``to``: its key, or the one
        account shown exactly as ``to``. Never an account shown merely alike (other case, spaces):
        those are named, with their keys, for the operator to choose."""
        to = _actor(to)
        column = T_IDENTITIES.c.key if KEY_SEPARATOR in to else T_IDENTITIES.c.shown
        found = conn.execute(sa.select(T_IDENTITIES.c.key, T_IDENTITIES.c.shown).where(column == to)
                             .order_by(T_IDENTITIES.c.key).limit(10)).all()
        if len(found) == 1:
            return str(found[0][0]), str(found[0][1])
        if found:
            keys = ", ".join(printable(k, 120) for k, _ in found)
            raise StoreError(f"{len(found)} accounts that signed in here are shown as {printable(to, 80)!r} ({keys}); "
                             f"give one account's key; {outcome}")
        folded = sa.func.lower(sa.func.trim(T_IDENTITIES.c.shown))
        alike = conn.execute(sa.select(T_IDENTITIES.c.key, T_IDENTITIES.c.shown)
                             .where(folded == to.strip().lower()).order_by(T_IDENTITIES.c.key).limit(10)).all()
        said = "; accounts shown alike: " + ", ".join(f"{printable(s, 80)!r} ({printable(k, 120)})"
                                                    for k, s in alike) if alike else ""
        raise StoreError(f"no account that signed in here has the key or is shown exactly as {printable(to, 80)!r} "
                         f"(an account is known here once it has signed in){said}; {outcome}")

    def trail(self, limit: int = 500, run_id: str | None = None) -> list[JSONObject]:
        """The newest audit events (admins and the operator only), newest first."""
        if self.viewer is not None and not self.viewer.admin:
            raise StoreError("the audit trail is shown to admins only")
        limit = max(1, min(int(limit), MAX_AUDIT_ROWS))
        q = sa.select(T_AUDIT).order_by(T_AUDIT.c.seq.desc()).limit(limit)
        if run_id is not None:
            q = q.where(T_AUDIT.c.run_id == run_id)
        with self._guard("reading the audit trail"):
            with self.engine.connect() as conn:
                rows = conn.execute(q).mappings().all()
        out = []
        for r in rows:
            try:
                detail = json.loads(r["detail"])
            except ValueError:
                detail = {}
            detail = detail if isinstance(detail, dict) else {}
            out.append({"at_utc": r["at_utc"], "actor": r["actor"], "action": r["action"], "run_id": r["run_id"],
                        "actor_shown": str(detail.get("actor_shown") or r["actor"]), "detail": detail})
        return out

    def same_run(self, kind: str, data_name: str, digests: Sequence[str], recipe: JSONObject,
                 thresholds: JSONObject) -> Run | None:
        """The newest run of these very bytes (in order) read through the same recipe under the same
        thresholds, if one was recorded: uploading it again opens it rather than adding a copy."""
        want_recipe = json.loads(json.dumps(recipe, sort_keys=True))
        want_thresholds = json.loads(json.dumps(thresholds, sort_keys=True))
        for run in self.runs(name=data_name, kind=kind, limit=200, reports=False, skipped=[], owner=self.user):
            if ([i.sha256 for i in run.inputs] == list(digests) and run.recipe == want_recipe
                    and run.thresholds == want_thresholds):
                return run
        return None

    def delete(self, run_id: str, action: str = "delete") -> int:
        """Delete a run (its owner's or an admin's to delete), and the blobs no other run uses; the
        audit trail keeps its tombstone (``action``: "delete", or "prune" for retention). Returns
        the number of blobs deleted."""
        run = self.get(run_id)
        if self.viewer is not None and not may_change(self.viewer, run.owner):
            raise StoreError(f"run {run.id} is not yours to delete (only its owner or an admin may); nothing was "
                             "deleted")
        run_id = run.id
        with self._guard("deleting the run", OUTCOMES["delete"]):
            with self._write() as conn:
                shas = [r[0] for r in conn.execute(sa.select(T_INPUTS.c.sha256).where(T_INPUTS.c.run_id == run_id))]
                conn.execute(T_INPUTS.delete().where(T_INPUTS.c.run_id == run_id))
                conn.execute(T_RUNS.delete().where(T_RUNS.c.id == run_id))
                gone = 0
                for sha in set(shas):
                    used = conn.execute(sa.select(T_INPUTS.c.run_id).where(T_INPUTS.c.sha256 == sha).limit(1)).first()
                    if used is None:
                        gone += conn.execute(T_BLOBS.delete().where(T_BLOBS.c.sha256 == sha)).rowcount
                self._audit(conn, action, run_id, run.tombstone())
        return gone

    def share(self, run_id: str, share: str) -> Run:
        """Share a run (its owner's or an admin's to share) with ``share`` (access.SHARES); said in
        the audit trail. Returns the run as now stored."""
        if share_problem(share):
            raise StoreError(f"{share_problem(share)}; {OUTCOMES['share']}")
        run = self.get(run_id)
        if self.viewer is not None and not may_change(self.viewer, run.owner):
            raise StoreError(f"run {run.id} is not yours to share (only its owner or an admin may); "
                             f"{OUTCOMES['share']}")
        if run.share != share:
            with self._guard("sharing the run", OUTCOMES["share"]):
                with self._write() as conn:
                    conn.execute(T_RUNS.update().where(T_RUNS.c.id == run.id).values(share=share))
                    self._audit(conn, "share", run.id, {"from": run.share, "to": share, "owner": run.owner,
                                                        "data_name": run.data_name})
        return replace(run, share=share)

    def older_than(self, days: int) -> list[Run]:
        """The runs recorded more than ``days`` days ago (oldest first), that the viewer may delete."""
        cutoff = utc_ago(days=days)
        found = self.runs(until=cutoff, reports=False, skipped=[])
        mine = [r for r in found if self.viewer is None or may_change(self.viewer, r.owner)]
        return [r for r in reversed(mine) if r.created_utc < cutoff]

    def prune(self, days: int) -> tuple[list[Run], int]:
        """Retention: delete the runs older than ``days`` days (each leaves a "prune" tombstone in
        the audit trail). Returns the runs deleted and the stored files freed."""
        old = self.older_than(days)
        freed = sum(self.delete(r.id, action="prune") for r in old)
        return old, freed

    # -- reading --

    def resolve(self, text: str, prefix: bool = True) -> str:
        """A run id the viewer may see, from its whole id or (``prefix``: the CLI's convenience) a
        unique prefix of at least 4 hex digits of one of the viewer's own runs. An id that is
        unknown and one the viewer may not see get the same answer: it reveals nothing."""
        given = str(text).strip().lower()
        pattern = RUN_PREFIX if prefix else RUN_ID
        if not pattern.match(given):
            expected = "32 hex digits, or a unique prefix of 4 or more of one of your runs" if prefix else "32 hex digits"
            raise StoreError(f"{printable(text, 40)!r} is not a run id ({expected})")
        missing = f"no run {given} that you can open {self.here}"
        with self._guard("finding the run"):
            with self.engine.connect() as conn:
                if RUN_ID.match(given):
                    found = conn.execute(self._visible(sa.select(T_RUNS.c.id).where(T_RUNS.c.id == given))).first()
                    if found is not None:
                        return str(found[0])
                    if not prefix:
                        raise StoreError(missing)
                ids = [r[0] for r in conn.execute(sa.select(T_RUNS.c.id).where(T_RUNS.c.id.like(given + "%"))
                                                  .where(T_RUNS.c.owner == self.user).limit(2))]
        if not ids:
            raise StoreError(missing)
        if len(ids) > 1:
            raise StoreError(f"{given} is the start of more than one of your runs; give more digits")
        return ids[0]

    def get(self, run_id: str, prefix: bool = True) -> Run:
        """The run (with its report) the viewer may see (:meth:`resolve`)."""
        run_id = self.resolve(run_id, prefix)
        with self._guard("reading the run"):
            with self.engine.connect() as conn:
                row = conn.execute(_with_owner_shown(sa.select(T_RUNS)).where(T_RUNS.c.id == run_id)).mappings().first()
                inputs = conn.execute(sa.select(T_INPUTS).where(T_INPUTS.c.run_id == run_id)
                                      .order_by(T_INPUTS.c.position)).mappings().all()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.shown}")
        return _run(row, inputs, self.shown)

    def blob(self, sha256: str) -> bytes:
        """A stored file's bytes by its SHA-256: the operator's and admins' (others read the files
        of a run they may see, through :meth:`inputs`)."""
        if self.viewer is not None and not self.viewer.admin:
            raise StoreError("stored files are read through a run you can open")
        return self._blob(sha256)

    def _blob(self, sha256: str) -> bytes:
        """The bytes as uploaded (unpacked; :meth:`inputs` also checks them against the digest)."""
        with self._guard("reading a stored input"):
            with self.engine.connect() as conn:
                row = conn.execute(sa.select(T_BLOBS.c.data, T_BLOBS.c.encoding, T_BLOBS.c.size)
                                   .where(T_BLOBS.c.sha256 == sha256)).first()
        if row is None:
            raise StoreError(f"{self.shown}: the stored input {sha256[:12]} is missing")
        try:
            return unpack(bytes(row[0]), row[1], int(row[2]))
        except ValueError as e:
            raise StoreError(f"{self.shown}: the stored input {sha256[:12]} cannot be read ({e}; the database is "
                             "damaged)") from None

    def inputs(self, run: Run) -> list[tuple[str, str, bytes]]:
        """(role, name, bytes) of each input, checked against its SHA-256."""
        import hashlib

        out = []
        if self.viewer is not None and not may_see(self.viewer, run.owner, run.team, run.share):
            raise StoreError(f"no run {run.id} that you can open {self.here}")
        for i in run.inputs:
            data = self._blob(i.sha256)
            if hashlib.sha256(data).hexdigest() != i.sha256:
                raise StoreError(f"{self.shown}: the stored input {printable(i.name, 60)} does not match its SHA-256 "
                                 "(the database is damaged)")
            out.append((i.role, i.name, data))
        return out

    def runs(self, name: str | None = None, kind: str | None = None, judge: str | None = None,
             contract: str | None = None, verdict: str | None = None, since: str | None = None,
             until: str | None = None, limit: int | None = None, reports: bool = True,
             skipped: list[str] | None = None, owner: str | None = None) -> list[Run]:
        """Runs, newest first, filtered (each filter exact; dates compare as ISO text, ``until``
        inclusive of its whole day when it is a date). ``reports=False``: summaries only (the
        report is left out: a listing of thousands of runs stays cheap). ``limit``: 1 to
        :data:`MAX_LISTED_RUNS` (None: every run). A name is matched as it was stored (a file
        name's bytes that are not UTF-8 as escapes), so the same name finds its runs; a filter
        holding a NUL matches nothing (nothing stored holds one).

        A run whose stored JSON is damaged is a StoreError; with ``skipped`` (a list), it is left
        out of the listing and its id appended there instead, so one damaged run does not hide
        the others. Only the runs the viewer may see are listed (``owner``: only that user's)."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or not 1 <= limit <= MAX_LISTED_RUNS):
            raise StoreError(f"a listing of runs holds 1 to {MAX_LISTED_RUNS:,} runs, not {printable(limit, 30)}")
        if any("\x00" in str(f) for f in (name, kind, judge, contract, verdict, since, until) if f is not None):
            return []
        q = self._visible(_with_owner_shown(sa.select(*[c for c in T_RUNS.c if reports or c.name != "report_json"])))
        for col, want in ((T_RUNS.c.data_name, name), (T_RUNS.c.kind, kind), (T_RUNS.c.judge, judge),
                          (T_RUNS.c.contract_id, contract), (T_RUNS.c.verdict, verdict), (T_RUNS.c.owner, owner)):
            if want is not None:
                q = q.where(col == utf8_safe(str(want)))
        if since:
            q = q.where(T_RUNS.c.created_utc >= utf8_safe(since))
        if until:
            q = q.where(T_RUNS.c.created_utc <= utf8_safe(until + "T99" if len(until) == 10 else until))
        q = q.order_by(T_RUNS.c.created_utc.desc(), T_RUNS.c.id)
        if limit is not None:
            q = q.limit(limit)
        with self._guard("listing runs"):
            with self.engine.connect() as conn:
                rows = conn.execute(q).mappings().all()
                ids = [r["id"] for r in rows]
                inputs: dict[str, list[RowMapping]] = {i: [] for i in ids}
                for chunk in range(0, len(ids), 500):
                    part = ids[chunk:chunk + 500]
                    for r in conn.execute(sa.select(T_INPUTS).where(T_INPUTS.c.run_id.in_(part))
                                          .order_by(T_INPUTS.c.run_id, T_INPUTS.c.position)).mappings():
                        inputs[r["run_id"]].append(r)
        if skipped is None:
            return [_run(r, inputs[r["id"]], self.shown) for r in rows]
        out = []
        for r in rows:
            try:
                out.append(_run(r, inputs[r["id"]], self.shown))
            except StoreError:
                skipped.append(str(r["id"]))
        return out

    def counts(self) -> dict[str, int]:
        """Runs and blobs stored; the blobs' bytes as uploaded, and as stored (compressed): the
        operator's and admins' figures."""
        if self.viewer is not None and not self.viewer.admin:
            raise StoreError("the store's totals are shown to admins only")
        with self._guard("counting"):
            with self.engine.connect() as conn:
                runs = conn.execute(sa.select(sa.func.count()).select_from(T_RUNS)).scalar_one()
                blobs, size, stored = conn.execute(sa.select(
                    sa.func.count(), sa.func.coalesce(sa.func.sum(T_BLOBS.c.size), 0),
                    sa.func.coalesce(sa.func.sum(sa.func.length(T_BLOBS.c.data)), 0)).select_from(T_BLOBS)).one()
        return {"runs": int(runs), "blobs": int(blobs), "blob_bytes": int(size), "stored_bytes": int(stored)}


#: Compress a blob when a sample of it shrinks below this share (CSV, JSON: about 0.2; Parquet
#: and .xlsx are compressed already and are stored as they are). zstd through pyarrow (already a
#: dependency): about 400 MB/s here, against 140 MB/s for zlib at level 1 and a better ratio.
PACK_SAMPLE = 1 << 16
PACK_WORTH = 0.8


def pack(data: bytes) -> tuple[str, bytes]:
    """("zstd", compressed) when compression pays on a sample, else ("raw", data)."""
    import pyarrow as pa

    if len(data) < 512:
        return "raw", data
    sample = data[:PACK_SAMPLE]
    if len(pa.compress(sample, codec="zstd", asbytes=True)) > PACK_WORTH * len(sample):
        return "raw", data
    return "zstd", pa.compress(data, codec="zstd", asbytes=True)


def unpack(stored: bytes, encoding: str, size: int) -> bytes:
    """The original bytes, exactly ``size`` of them (a damaged row is an error, never more bytes
    than were recorded)."""
    if encoding == "raw":
        out = stored
    elif encoding == "zstd":
        import pyarrow as pa

        if size < 0 or size > MAX_INPUT_BYTES:
            raise ValueError(f"a recorded size of {size:,} bytes is not possible")
        try:
            out = pa.decompress(stored, decompressed_size=size, codec="zstd", asbytes=True)
        except (OSError, ValueError, pa.ArrowException) as e:
            raise ValueError(f"not zstd data ({printable(e, 80)})") from None
    else:
        raise ValueError(f"unknown encoding {printable(encoding, 20)!r}")
    if len(out) != size:
        raise ValueError(f"{len(out):,} bytes where {size:,} were recorded")
    return out


def _insert_new(conn: Connection, table: sa.Table) -> sa.Insert:
    """INSERT that does nothing when the primary key is there already (both dialects say it so)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing()


def _judge_columns(kind: str, report: JSONObject) -> tuple[str | None, str | None]:
    """(judge, contract id) a run's listing shows: a graded or pass/fail judge's audited judge(s)
    and no contract; a pairwise judge's generator and the contract its snapshot is bound to (a
    draft of edited thresholds has its own id)."""
    if report.get("kind") == "scored":
        sc = report["scored"]
        return _text_column(sc["decided_for"] if sc.get("decided_for") != "every judge" else ", ".join(sc["judges"])), None
    if kind != "judge":
        return None, None
    cal = report.get("calibration", {})
    contract_id = (cal.get("contract") or {}).get("content_id") or (cal.get("decided_against") or {}).get("content_id")
    return _text_column((cal.get("contract") or {}).get("judge_generator")), _text_column(contract_id)


#: A run's own stored JSON, counted against its owner's quota with its files.
JSON_COLUMNS = ("report_json", "recipe_json", "thresholds_json")


def amount(n: int) -> str:
    """Stored bytes in words: "600 bytes", "1.2 MB"."""
    return f"{n:,} bytes" if n < 10**6 else f"{n / 10**6:,.1f} MB"


def _dumps(obj: object) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if LONE_SURROGATE.search(text):  # a file name that is not UTF-8, or a JSON input's lone \\ud800
        text = json.dumps(utf8_safe_tree(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text


def _actor(user: str) -> str:
    """An identity as a text column holds it (UTF-8, no NUL, at most MAX_USER_CHARS)."""
    return _text_column(str(user))[:MAX_USER_CHARS]


def _with_owner_shown(q: sa.Select[Unpack[_Columns]]) -> sa.Select[Unpack[_Columns], str | None]:
    """``q`` (a select of runs) with ``owner_shown``: how pages name each run's owner."""
    return (q.add_columns(T_IDENTITIES.c.shown.label("owner_shown"))
            .select_from(T_RUNS.outerjoin(T_IDENTITIES, T_IDENTITIES.c.key == T_RUNS.c.owner)))


@overload
def _text_column(text: str) -> str: ...
@overload
def _text_column(text: _T) -> _T: ...


def _text_column(text: object) -> object:
    """Text read from an input (a judge's name) as a text column holds it: UTF-8, no NUL (escaped)."""
    return utf8_safe(text).replace("\x00", "\\x00") if isinstance(text, str) else text


def label_problem(label: str) -> str | None:
    """Why ``label`` cannot be stored, in words ("holds a NUL character ..."); None: it can."""
    if "\x00" in label:
        return "holds a NUL character (\\x00), which the history database cannot store"
    if LONE_SURROGATE.search(label):
        return f"holds bytes that are not UTF-8 ({printable(utf8_safe(label), 60)})"
    if len(label) > MAX_NAME_CHARS:
        return f"is {len(label):,} characters long; a label is at most {MAX_NAME_CHARS:,}"
    return None


def name_problem(name: str) -> str | None:
    """Why an input's (escaped) name cannot be stored; None: it can."""
    if "\x00" in name:
        return "holds a NUL character (\\x00), which the history database cannot store"
    if len(name) > MAX_NAME_CHARS:
        return f"is {len(name):,} characters long; a name is at most {MAX_NAME_CHARS:,}"
    return None


def skipped_sentence(ids: Sequence[str]) -> str:
    """"1 run could not be read and was skipped: <id>" (up to 10 ids, then how many more)."""
    shown = ", ".join(printable(i, 40) for i in ids[:10]) + (f", and {len(ids) - 10:,} more" if len(ids) > 10 else "")
    if len(ids) == 1:
        return f"1 run could not be read and was skipped: {shown}"
    return f"{len(ids):,} runs could not be read and were skipped: {shown}"


def _run(row: RowMapping | Mapping[str, JSONValue], inputs: Sequence[RowMapping | Mapping[str, JSONValue]],
         where: str = "") -> Run:
    try:
        return _run_of(row, inputs)
    except (ValueError, TypeError, KeyError) as e:  # json.JSONDecodeError is a ValueError
        raise StoreError(f"{where + ': ' if where else ''}run {printable(row['id'], 40)} cannot be read: its stored "
                         f"data is damaged ({printable(e, 80)})") from None


def _run_of(row: RowMapping | Mapping[str, JSONValue], inputs: Sequence[RowMapping | Mapping[str, JSONValue]]) -> Run:
    def obj(column: str) -> JSONObject:
        value = json.loads(row[column])
        if not isinstance(value, dict):
            raise ValueError(f"{column} is not a JSON object")
        return value

    texts = ("id", "created_utc", "kind", "data_name", "verdict")  # SQLite keeps whatever type was written
    odd = next((c for c in texts if not isinstance(row[c], str)), None)
    if odd is None:
        odd = next((c for c in ("judge", "contract_id", "label", "origin") if not isinstance(row[c], (str, type(None)))), None)
    if odd is not None:
        raise TypeError(f"{odd} is not text")
    return Run(row["id"], row["created_utc"], row["kind"], row["data_name"], row["judge"], row["contract_id"],
               row["verdict"], row["label"], row["origin"], row["tool_version"], row["thresholds_source"],
               obj("thresholds_json"), obj("recipe_json"), obj("report_json") if "report_json" in row else {},
               tuple(Input(i["role"], i["name"], i["sha256"], int(i["size"])) for i in inputs),
               str(row.get("owner") or LOCAL), row.get("team"), str(row.get("share") or "private"),
               row.get("owner_shown"))


# --- SQLite --------------------------------------------------------------------------------------


def _sqlite_engine(url: sa.URL) -> Engine:
    """A SQLite file (never :memory:: runs must outlive the process). The file is checked before
    SQLite touches it: a file that is not SQLite is refused, not 'repaired'."""
    db = url.database
    if not db or db == ":memory:" or db.startswith("file:"):
        raise StoreError(f"{describe(str(url))}: give a file (sqlite:///path/runs.db); runs must outlive the process")
    if url.query:
        options = printable(", ".join(sorted(url.query)), 60)
        raise StoreError(f"{describe(str(url))}: SQLite URL options ({options}) are not supported; give the file alone "
                         "(sqlite:///path/runs.db). Nothing was opened")
    path = Path(db).expanduser()
    try:
        st = os.stat(path)  # stat, never open: a named pipe would block the open for ever
    except FileNotFoundError:
        st = None  # created below
    except OSError as e:
        raise StoreError(f"{printable(str(path), 120)}: cannot reach the database ({e.strerror})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise StoreError(f"{printable(str(path), 120)}: this is a folder; give a database file inside it")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise StoreError(f"{printable(str(path), 120)}: not a database file (a device, a named pipe or a socket); it "
                         "was left untouched. Give --db or AGREEBOUND_DB a file")
    if st is not None:
        try:
            with open(path, "rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as e:
            raise StoreError(f"{printable(str(path), 120)}: cannot read the database ({e.strerror})") from None
        if head and head != SQLITE_MAGIC[: len(head)] or 0 < len(head) < len(SQLITE_MAGIC):
            raise StoreError(f"{printable(str(path), 120)}: not an agreebound database (not a SQLite file); it was left "
                             "untouched. Give --db or AGREEBOUND_DB another file")
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"{printable(str(path.parent), 120)}: cannot create the folder for the database "
                             f"({e.strerror})") from None
    engine = sa.create_engine(url.set(database=str(path)),
                              connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi: sqlite3.Connection, _record: object) -> None:
        dbapi.isolation_level = None  # transactions are begun below, explicitly
        # text that is not UTF-8 (written by another tool) reads with its bytes escaped, never as a
        # decoding error that would hide every run of the listing
        dbapi.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
        cur = dbapi.cursor()
        cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute("PRAGMA synchronous = NORMAL")  # with WAL: consistent after any crash
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("agreebound_write") else "BEGIN")

    return engine


# --- errors in words ------------------------------------------------------------------------------


#: Free bytes below which a SQLite I/O error on the database's disk is taken for a full disk
#: (SQLite says "disk I/O error" when it cannot grow its -shm file, 32 KiB at first).
NEARLY_FULL_BYTES = 1 << 20


def explain(e: BaseException, outcome: str = OUTCOMES["record"], path: Path | None = None,
            timeout: int | None = None) -> str:
    """A database error as one line a user can act on; ``outcome``: what the failure left undone;
    ``path``: a SQLite database's file (its folder and disk are looked at to say what happened);
    ``timeout``: the PostgreSQL connect timeout in force."""
    orig = getattr(e, "orig", None) or e
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    low = text.lower()
    code = getattr(orig, "sqlstate", None) or getattr(getattr(orig, "diag", None), "sqlstate", None)
    name = str(getattr(orig, "sqlite_errorname", "") or "")
    full = f"the disk is full; {outcome}. Free space, or point AGREEBOUND_DB at another disk"
    if isinstance(orig, OSError) and orig.errno == errno.ENOSPC or "disk is full" in low or code == "53100" \
            or "no space left" in low or name == "SQLITE_FULL":
        return full
    if path is not None and (name.startswith("SQLITE_IOERR") or "disk i/o error" in low) and _nearly_full(path):
        return full
    if "file is not a database" in low or "malformed" in low or "not a database" in low:
        return "the file is not a usable SQLite database (damaged or foreign); it was left untouched"
    if "database is locked" in low or "database is busy" in low:
        return f"another writer held the database for {BUSY_TIMEOUT_S} s; try again"
    if path is not None and (name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM"))
                             or "readonly" in low or "read-only" in low or "unable to open" in low):
        folder = path.parent
        if not os.access(folder, os.W_OK):
            if _size(path) in (None, 0):
                return (f"its folder {printable(str(folder), 120)} is read-only here, so the database cannot be "
                        f"created in it; {outcome}")
            return (f"its folder {printable(str(folder), 120)} is read-only here, and SQLite writes beside the "
                    f"database (its -wal and -shm files) even to read it; {outcome}")
        if path.exists() and not os.access(path, os.W_OK):
            return f"the database file is read-only here (permissions); {outcome}"
        if path.exists() and not os.access(path, os.R_OK):
            return f"the database file cannot be read here (permissions); {outcome}"
    if "readonly" in low or "read-only" in low or "permission denied" in low:
        return f"the database is read-only here (permissions); {outcome}"
    if "unable to open" in low:
        return f"cannot open the database file (missing folder or permissions); {outcome}"
    if timeout is not None and "timeout expired" in low:  # psycopg: "connection timeout expired"
        return (f"cannot connect: the server did not answer within {timeout} s (set {TIMEOUT_ENV} to wait longer); "
                f"{outcome}")
    if isinstance(e, sa.exc.OperationalError) and ("connect" in low or "connection" in low or "server" in low):
        return f"cannot connect ({printable(text, 160)})"
    return printable(text, 200)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _nearly_full(path: Path) -> bool:
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < NEARLY_FULL_BYTES


def connect_timeout() -> int:
    """$AGREEBOUND_DB_TIMEOUT as whole seconds (default :data:`DEFAULT_TIMEOUT_S`)."""
    given = os.environ.get(TIMEOUT_ENV, "").strip()
    if not given:
        return DEFAULT_TIMEOUT_S
    low, high = TIMEOUT_RANGE_S
    try:
        seconds = int(given)
    except ValueError:
        seconds = None
    if seconds is None or not low <= seconds <= high:
        raise StoreError(f"{TIMEOUT_ENV}={printable(given, 30)!r} is not a number of seconds from {low} to {high} "
                         f"(default {DEFAULT_TIMEOUT_S})")
    return seconds


# --- one store per process for the dashboard ------------------------------------------------------

_LOCK = threading.Lock()
_OPEN: dict[str, Store] = {}
_FAILED: dict[str, tuple[float, StoreError]] = {}
#: A database that could not be opened is tried again after this many seconds, not on every rerun
#: (an unreachable server would otherwise cost each page its connect timeout).
RETRY_S = 30.0


def shared(url: str | None = None) -> Store:
    """The process's store for ``url`` (opened once; the dashboard's sessions share it)."""
    import time

    key = configured_url(url) or ""
    with _LOCK:
        if key in _OPEN:
            return _OPEN[key]
        failed = _FAILED.get(key)
        if failed is not None and time.monotonic() - failed[0] < RETRY_S:
            raise failed[1]
        try:
            _OPEN[key] = Store.open(url)
        except StoreError as e:
            _FAILED[key] = (time.monotonic(), e)
            raise
        _FAILED.pop(key, None)
        return _OPEN[key]


def forget_shared() -> None:
    with _LOCK:
        for s in _OPEN.values():
            s.close()
        _OPEN.clear()
        _FAILED.clear()
