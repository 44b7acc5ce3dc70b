"""The store's schema versions and its compressed blobs: a database written by schema 1 is migrated
in place when opened (its runs kept, byte for byte), and blobs are compressed only when that pays,
always read back exactly; on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import re

import pytest
import sqlalchemy as sa

from agreebound.app import store as st
from agreebound.app.access import Viewer
from agreebound.app.store import SCHEMA_VERSION, Store, StoreError, pack, unpack

CSV = b"unit,rater,value\n" + b"".join(f"u{i},r{i % 7},{i % 3}\n".encode() for i in range(5000))
REPORT = {"kind": "panel", "panel": {"verdict": "ENFORCE", "dimensions": []}}


def schema_one(url: str, blob: bytes) -> str:
    """A database exactly as schema 1 left it, with one run whose input is ``blob``."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        st.T_META.create(conn)
        st.T_MIGRATIONS.create(conn)
        st._migration_1(conn)
        conn.execute(st.T_META.insert(), [{"key": "app", "value": "agreebound"}, {"key": "schema_version", "value": "1"}])
        conn.execute(st.T_MIGRATIONS.insert().values(version=1, description="v1", applied_utc="2026-11-01T00:00:00Z"))
        digest = hashlib.sha256(blob).hexdigest()
        conn.execute(sa.text("INSERT INTO agreebound_blobs (sha256, size, data, created_utc) VALUES (:s, :n, :d, :t)"),
                     {"s": digest, "n": len(blob), "d": blob, "t": "2026-11-01T00:00:00Z"})
        conn.execute(st.T_RUNS.insert().values(
            id="0123456789ab", created_utc="2026-11-01T00:00:00.000000Z", kind="panel", data_name="old.csv",
            verdict="ENFORCE", origin="cli", tool_version="0.1.0", thresholds_source="default", thresholds_json="{}",
            recipe_json="{}", report_json='{"kind": "panel", "panel": {"verdict": "ENFORCE", "dimensions": []}}'))
        conn.execute(st.T_INPUTS.insert().values(run_id="0123456789ab", position=0, role="ratings", name="old.csv",
                                                 sha256=digest, size=len(blob)))
    engine.dispose()
    return digest


def test_schema_one_is_migrated_in_place_and_keeps_its_runs(db_url):
    digest = schema_one(db_url, CSV)
    with Store.open(db_url) as s:
        with s.engine.connect() as conn:
            versions = [r[0] for r in conn.execute(sa.text("SELECT version FROM agreebound_migrations ORDER BY version"))]
            meta = dict(conn.execute(sa.text("SELECT key, value FROM agreebound_meta")).all())
        assert versions == list(range(1, SCHEMA_VERSION + 1)) and meta["schema_version"] == str(SCHEMA_VERSION)
        (old,) = s.runs(name="old.csv")
        assert re.fullmatch(r"[0-9a-f]{32}", old.id) and old.owner == "local" and old.share == "private"
        assert s.trail(run_id=old.id)[0]["detail"] == {"old_id": "0123456789ab"}  # a guessable id replaced, noted
        with pytest.raises(StoreError, match="no run 0123456789ab that you can open"):
            s.get("0123456789ab")
        assert s.inputs(old) == [("ratings", "old.csv", CSV)]  # stored raw by schema 1, read as raw
        new = s.record("panel", [("ratings", "new.csv", CSV + b"u9999,r1,1\n")], REPORT, {}, {}, "default")
        assert s.inputs(new)[0][2] == CSV + b"u9999,r1,1\n"
        with s.engine.connect() as conn:
            enc = dict(conn.execute(sa.text("SELECT sha256, encoding FROM agreebound_blobs")).all())
        assert enc[digest] == "raw" and enc[new.inputs[0].sha256] == "zstd"
    with Store.open(db_url) as s:  # opening again applies nothing
        with s.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM agreebound_migrations")).scalar_one() == SCHEMA_VERSION


def test_blobs_are_compressed_only_when_that_pays(db_url):
    noise = os.urandom(300_000)  # a Parquet or .xlsx file is like this: compressed already
    with Store.open(db_url) as s:
        a = s.record("panel", [("ratings", "r.csv", CSV)], REPORT, {}, {}, "default")
        b = s.record("panel", [("ratings", "n.parquet", noise)], REPORT, {}, {}, "default")
        counts = s.counts()
        assert s.inputs(a)[0][2] == CSV and s.inputs(b)[0][2] == noise
    assert counts["blob_bytes"] == len(CSV) + len(noise)
    assert len(noise) < counts["stored_bytes"] < len(noise) + len(CSV) // 4  # CSV at under a quarter, noise as is


def test_pack_and_unpack():
    enc, packed = pack(CSV)
    assert enc == "zstd" and len(packed) < len(CSV) / 4 and unpack(packed, enc, len(CSV)) == CSV
    assert pack(b"tiny") == ("raw", b"tiny")
    for wrong in (100, len(CSV) + 10):  # a recorded size that does not match the bytes
        with pytest.raises(ValueError, match="not zstd data|were recorded"):
            unpack(packed, enc, wrong)
    with pytest.raises(ValueError, match="not zstd data"):
        unpack(b"\x00" * 64, "zstd", len(CSV))
    with pytest.raises(ValueError, match="unknown encoding 'gzip'"):
        unpack(packed, "gzip", len(CSV))


def test_a_damaged_blob_is_a_store_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    with Store.open(url) as s:
        run = s.record("panel", [("ratings", "r.csv", CSV)], REPORT, {}, {}, "default")
        with s.engine.begin() as conn:
            conn.execute(sa.text("UPDATE agreebound_blobs SET data = :d"), {"d": b"\x28\xb5\x2f\xfd" + b"\x00" * 40})
        with pytest.raises(StoreError, match=r"the stored input [0-9a-f]{12} cannot be read \(not zstd data"):
            s.inputs(run)
        with s.engine.begin() as conn:
            conn.execute(sa.text("UPDATE agreebound_blobs SET data = :d, encoding = 'raw'"), {"d": CSV[:-1] + b"X"})
        with pytest.raises(StoreError, match="does not match its SHA-256"):
            s.inputs(run)


def schema_three(url: str, owners: list[str]) -> list[str]:
    """A database exactly as schema 3 left it: one private run of each owner in ``owners`` (an
    earlier version stored a signed-in owner as the verified address, or as ``sub:<subject>@<host>``
    without one). Returns their ids."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    ids = []
    with engine.begin() as conn:
        st.T_META.create(conn)
        st.T_MIGRATIONS.create(conn)
        for version, description, apply in st.MIGRATIONS[:3]:
            apply(conn)
            conn.execute(st.T_MIGRATIONS.insert().values(version=version, description=description,
                                                         applied_utc="2026-11-01T00:00:00Z"))
        conn.execute(st.T_META.insert(), [{"key": "app", "value": "agreebound"}, {"key": "schema_version", "value": "3"}])
        for i, owner in enumerate(owners):
            ids.append(f"{i:032x}")
            conn.execute(st.T_RUNS.insert().values(
                id=ids[-1], created_utc=f"2026-11-01T00:00:0{i}.000000Z", kind="panel", data_name=f"old{i}.csv",
                verdict="ENFORCE", origin="dashboard", tool_version="0.1.0", thresholds_source="default",
                thresholds_json="{}", recipe_json="{}", report_json=json.dumps(REPORT), owner=owner, team="red",
                share="private"))
    engine.dispose()
    return ids


def account(sub: str, email: str, verified: bool = True) -> Viewer:
    """A signed-in account at https://id.example, as the dashboard sees it."""
    from agreebound.app.access import Settings, signed_in_viewer

    return signed_in_viewer({"iss": "https://id.example", "sub": sub, "email": email, "email_verified": verified,
                             "team": "red"}, Settings())


def claims(url: str) -> dict[str, str]:
    """The claims table: owner name of an earlier version -> the account holding it."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as conn:
        found = dict(conn.execute(sa.select(st.T_CLAIMS.c.legacy, st.T_CLAIMS.c.key)).all())
    engine.dispose()
    return found


def test_runs_owned_by_an_address_go_to_the_first_account_that_signs_in_with_it(db_url):
    """Schema 4: owners are accounts (issuer and subject). A run an earlier version stored under an
    address is claimed by the account that signs in with that verified address first; an account
    whose address is the same after case-folding and trimming, but whose subject differs, gets
    none of it, then or later. An unverified account claims what was stored under its subject."""
    alice, twin = account("248289761001", "alice@red.example"), account("990000000002", "ALICE@RED.EXAMPLE ")
    mallory = account("mallory", "root@ops.example", verified=False)
    a1, a2, m1, l1 = schema_three(db_url, ["alice@red.example", "alice@red.example", "sub:mallory@id.example",
                                           "local"])
    with Store.open(db_url) as s:
        with s.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT max(version) FROM agreebound_migrations")).scalar_one() == 4
        assert {r.id: r.owner for r in s.runs()}[a1] == "alice@red.example"  # kept as it was until claimed
        assert s.as_viewer(alice).sign_in() == [("alice@red.example", 2)]
        assert s.as_viewer(twin).sign_in() == []
        assert s.as_viewer(mallory).sign_in() == [("sub:mallory@id.example", 1)]
        owners = {r.id: r.owner for r in s.runs()}
        assert owners == {a1: alice.user, a2: alice.user, m1: mallory.user, l1: "local"}  # no run lost
        assert sorted(r.id for r in s.as_viewer(alice).runs()) == [a1, a2]
        assert s.as_viewer(twin).runs() == []
        assert [r.owner_name for r in s.as_viewer(alice).runs()] == ["alice@red.example"] * 2
        claim = s.trail(limit=10)[1]
        assert (claim["action"], claim["actor"], claim["detail"]["from"], claim["detail"]["runs"]) == (
            "claim", alice.user, "alice@red.example", 2)
        # a run recorded later under the address (a terminal's AGREEBOUND_USER) is hers at her next sign-in
        late = s.as_viewer(Viewer("alice@red.example", "red")).record(
            "panel", [("ratings", "late.csv", CSV)], REPORT, {}, {}, "default")
        assert s.as_viewer(twin).sign_in() == [] and s.as_viewer(twin).runs() == []
        assert s.as_viewer(alice).sign_in() == [("alice@red.example", 1)]
        assert s.as_viewer(alice).get(late.id, prefix=False).owner == alice.user


def test_a_case_twin_that_signs_in_first_claims_nothing(db_url):
    """The review of issue 50: earlier versions stored 'alice@red.example' for Alice and for an
    account whose address is 'ALICE@RED.EXAMPLE ' alike, so the first of them to sign in after the
    upgrade took her runs. Only an account whose provider gives the address exactly as it was
    stored claims them: the twins, first or not, get nothing and leave no claim behind."""
    alice = account("248289761001", "alice@red.example")
    twin, capital = account("990000000002", "ALICE@RED.EXAMPLE "), account("990000000003", "Alice@red.example")
    a1, a2, l1 = schema_three(db_url, ["alice@red.example", "alice@red.example", "local"])
    with Store.open(db_url) as s:
        for other in (twin, capital):
            assert s.as_viewer(other).sign_in() == [] and s.as_viewer(other).runs() == []
            with pytest.raises(StoreError, match="that you can open"):
                s.as_viewer(other).get(a1, prefix=False)
        assert {r.id: r.owner for r in s.runs()} == {a1: "alice@red.example", a2: "alice@red.example", l1: "local"}
        assert "alice@red.example" not in claims(db_url)  # each claimed only its own sub: form
        assert s.as_viewer(alice).sign_in() == [("alice@red.example", 2)]
        assert sorted(r.id for r in s.as_viewer(alice).runs()) == [a1, a2]
        for other in (twin, capital):  # and later: still nothing
            assert s.as_viewer(other).sign_in() == [] and s.as_viewer(other).runs() == []
        assert claims(db_url)["alice@red.example"] == alice.user
        assert [e["actor"] for e in s.trail(limit=100) if e["action"] == "claim"] == [alice.user]


def test_the_operator_gives_runs_no_sign_in_may_claim_to_the_right_account(db_url):
    """Erin's provider gives her address as 'Erin@Red.Example'; earlier versions stored her runs as
    'erin@red.example', as they would have for a twin. No sign-in claims them; the operator gives
    them to her account by its key or by the address it is shown as, exactly (never an account
    shown merely alike), and the move is in the audit trail. A claim an earlier build gave the
    wrong account is overridden the same way."""
    erin, twin = account("e1", "Erin@Red.Example"), account("e2", "ERIN@red.example")
    bob = account("b1", "bob@blue.example")
    e1, e2, b1 = schema_three(db_url, ["erin@red.example", "erin@red.example", "bob@blue.example"])
    with Store.open(db_url) as s:
        with s.engine.begin() as conn:  # as if a build that folded addresses had given Bob's name to the twin
            conn.execute(st.T_CLAIMS.insert().values(legacy="bob@blue.example", key=twin.user, at_utc="2026-12-07"))
        for who in (erin, twin, bob):
            assert s.as_viewer(who).sign_in() == []
        assert s.owned_by("erin@red.example") == 2 and s.owned_by("bob@blue.example") == 1
        with pytest.raises(StoreError, match="admins only"):
            s.as_viewer(erin).owned_by("erin@red.example")
        alike = re.escape("accounts shown alike: 'Erin@Red.Example' (https://id.example|e1), 'ERIN@red.example' "
                          "(https://id.example|e2); no run was moved")
        with pytest.raises(StoreError, match="shown exactly as 'erin@red.example' .*" + alike):
            s.reassign("erin@red.example", "erin@red.example")
        with pytest.raises(StoreError, match="admins only"):
            s.as_viewer(erin).reassign("erin@red.example", erin.user)
        with pytest.raises(StoreError, match="is an account's key"):
            s.reassign(twin.user, erin.user)
        with pytest.raises(StoreError, match="no account that signed in here has the key"):
            s.reassign("erin@red.example", "https://id.example|nobody")
        assert s.reassign("erin@red.example", "Erin@Red.Example") == (erin.user, "Erin@Red.Example", 2, None)
        assert sorted(r.id for r in s.as_viewer(erin).runs()) == [e1, e2] and s.as_viewer(twin).runs() == []
        event = s.trail(limit=1)[0]
        assert (event["action"], event["actor"], event["detail"]["from"], event["detail"]["to"],
                event["detail"]["runs"]) == ("claim", "local", "erin@red.example", erin.user, 2)
        with pytest.raises(StoreError, match="no run in .* is owned by 'erin@red.example'"):
            s.reassign("erin@red.example", erin.user)  # nothing left under the name
        assert s.reassign("bob@blue.example", bob.user) == (bob.user, "bob@blue.example", 1, twin.user)
        assert [r.id for r in s.as_viewer(bob).runs()] == [b1]
        assert s.as_viewer(twin).sign_in() == [] and s.as_viewer(twin).runs() == []
        assert claims(db_url)["erin@red.example"] == erin.user and claims(db_url)["bob@blue.example"] == bob.user


def test_agreebound_claim_from_a_terminal(tmp_path):
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    erin = account("e1", "Erin@Red.Example")
    (e1,) = schema_three(url, ["erin@red.example"])
    with Store.open(url) as s:
        assert s.as_viewer(erin).sign_in() == []

    def claim(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "agreebound.cli.main", "claim", *args, "--db", url],
                              capture_output=True, text=True, timeout=120)

    out = claim("--from", "erin@red.example", "--to", "erin@red.example")
    assert out.returncode == 3 and "accounts shown alike: 'Erin@Red.Example' (https://id.example|e1)" in out.stderr
    out = claim("--from", "erin@red.example", "--to", "Erin@Red.Example")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "gave 1 run recorded as erin@red.example to 'Erin@Red.Example' (https://id.example|e1)\n"
    with Store.open(url) as s:
        assert [r.id for r in s.as_viewer(erin).runs()] == [e1]


def test_the_servers_log_names_runs_a_sign_in_may_not_claim(tmp_path, monkeypatch, caplog):
    """Erin signs in on the dashboard: nothing of 'erin@red.example' is hers, and the page says
    nothing of another name's runs; the server's log tells the operator the command that gives
    them to her. Alice, whose address is exactly the stored name, claims hers and is not named."""
    import logging

    from agreebound.ui import auth

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    erin, alice = account("e1", "Erin@Red.Example"), account("a1", "alice@red.example")
    schema_three(url, ["erin@red.example", "alice@red.example"])
    monkeypatch.setenv(st.ENV, url)
    monkeypatch.setattr(auth, "_REMEMBERED", {})
    st.forget_shared()
    try:
        with caplog.at_level(logging.INFO, logger="agreebound.ui"):
            auth._remember(erin)
            auth._remember(alice)
    finally:
        st.forget_shared()
    said = [r.getMessage() for r in caplog.records if r.name == "agreebound.ui"]
    assert said == [
        "https://id.example|e1 (shown as 'Erin@Red.Example') signed in: 1 run(s) an earlier version recorded as "
        "erin@red.example stay unclaimed, as its provider's address is not exactly that name (another account's may "
        "be alike but for case or spaces). If they are this account's, give them to it: agreebound claim --from "
        "erin@red.example --to 'https://id.example|e1'",
        "https://id.example|a1 claimed 1 run(s) recorded as alice@red.example"]
