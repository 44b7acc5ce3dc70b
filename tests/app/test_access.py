"""Runs that belong to someone: who may list, open, compare, share and delete a run, the audit
trail and its tombstones, the per-user quota and retention (agreebound.app.access, agreebound.app.store).
Each rule is checked on SQLite and PostgreSQL, through the store as the dashboard uses it."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
import sqlalchemy as sa

from agreebound.app import access
from agreebound.app import store as store_mod
from agreebound.app.access import Viewer, may_change, may_see, settings, signed_in_viewer
from agreebound.app.store import Store, StoreError

pytestmark = pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)

ALICE = Viewer("alice@red.example", "red", signed_in=True)
ALAN = Viewer("alan@red.example", "red", signed_in=True)
BOB = Viewer("bob@blue.example", "blue", signed_in=True)
ADMIN = Viewer("root@blue.example", "blue", admin=True, signed_in=True)


def record(s: Store, data: bytes, name: str = "x.csv", **kw) -> store_mod.Run:
    return s.record("panel", [("ratings", name, data)], {"kind": "panel", "panel": {"verdict": "ENFORCE"}}, {}, {},
                    "default", **kw)


def test_a_private_run_is_invisible_to_another_user_by_listing_id_or_prefix(db_url):
    with Store.open(db_url) as base:
        alice, bob = base.as_viewer(ALICE), base.as_viewer(BOB)
        run = record(alice, b"alice's ratings\n", "secret.csv")
        assert run.owner == "alice@red.example" and run.team == "red" and run.share == "private"
        assert re.fullmatch(r"[0-9a-f]{32}", run.id)  # 128 random bits
        assert [r.id for r in alice.runs()] == [run.id]
        assert bob.runs() == [] and bob.runs(name="secret.csv") == []
        # unknown and invisible ids get the same answer, naming the store only by its kind
        for attempt in (run.id, "f" * 32):
            with pytest.raises(StoreError) as e:
                bob.get(attempt, prefix=False)
            assert str(e.value) == f"no run {attempt} that you can open here"
        with pytest.raises(StoreError, match="that you can open"):
            bob.get(run.id[:6])  # a prefix matches only the asker's own runs
        with pytest.raises(StoreError, match="that you can open"):
            bob.delete(run.id)
        with pytest.raises(StoreError, match="that you can open"):
            bob.share(run.id, "all")
        assert alice.get(run.id[:6]).id == run.id
        assert base.counts()["runs"] == 1  # nothing was deleted
        # the operator (CLI) and an admin see it
        assert base.get(run.id).id == run.id and base.as_viewer(ADMIN).get(run.id, prefix=False).owner == ALICE.user


def test_sharing_with_the_team_and_with_everyone(db_url):
    with Store.open(db_url) as base:
        alice, alan, bob = base.as_viewer(ALICE), base.as_viewer(ALAN), base.as_viewer(BOB)
        run = record(alice, b"1,2\n")
        assert alice.share(run.id, "team").share == "team"
        assert [r.id for r in alan.runs()] == [run.id] and alan.get(run.id, prefix=False).share == "team"
        assert bob.runs() == []
        with pytest.raises(StoreError, match="not yours to share"):
            alan.share(run.id, "all")  # seeing is not owning
        with pytest.raises(StoreError, match="not yours to delete"):
            alan.delete(run.id)
        alice.share(run.id, "all")
        assert [r.id for r in bob.runs()] == [run.id]
        assert bob.inputs(bob.get(run.id, prefix=False)) == [("ratings", "x.csv", b"1,2\n")]
        # a team-less viewer sees "all" runs but never "team" ones
        loner = base.as_viewer(Viewer("solo", None, signed_in=True))
        assert [r.id for r in loner.runs()] == [run.id]
        alice.share(run.id, "team")
        assert loner.runs() == [] and bob.runs() == []
        with pytest.raises(StoreError, match="sharing is one of private, team, all"):
            alice.share(run.id, "world")


def test_the_same_upload_by_another_user_is_their_own_run(db_url):
    with Store.open(db_url) as base:
        alice, bob = base.as_viewer(ALICE), base.as_viewer(BOB)
        run = record(alice, b"same bytes\n", share="all")
        assert bob.same_run("panel", "x.csv", [run.inputs[0].sha256], {}, {}) is None
        assert alice.same_run("panel", "x.csv", [run.inputs[0].sha256], {}, {}).id == run.id
        mine = record(bob, b"same bytes\n")
        assert mine.owner == BOB.user and mine.id != run.id
        assert base.counts()["blobs"] == 1  # the bytes are stored once


def test_the_audit_trail_records_who_did_what_and_keeps_tombstones(db_url):
    with Store.open(db_url) as base:
        alice, admin = base.as_viewer(ALICE), base.as_viewer(ADMIN)
        run = record(alice, b"a,b\n", "gone.csv", label="before the meeting")
        alice.share(run.id, "team")
        base.as_viewer(BOB).note("refused", run.id, how="link")
        alice.note("open", run.id, how="link")
        assert alice.delete(run.id) == 1
        with pytest.raises(StoreError, match="admins only"):
            alice.trail()
        events = admin.trail()
        assert [(e["action"], e["actor"]) for e in events] == [
            ("delete", ALICE.user), ("open", ALICE.user), ("refused", BOB.user), ("share", ALICE.user),
            ("record", ALICE.user)]
        assert all(e["run_id"] == run.id for e in events)
        tomb = events[0]["detail"]
        assert tomb["data_name"] == "gone.csv" and tomb["verdict"] == "ENFORCE" and tomb["owner"] == ALICE.user
        assert tomb["label"] == "before the meeting" and tomb["bytes"] == 4
        assert events[3]["detail"]["from"] == "private" and events[3]["detail"]["to"] == "team"
        assert base.counts()["runs"] == 0 and base.trail(run_id=run.id)[0]["action"] == "delete"


def test_the_quota_counts_each_users_distinct_files_and_each_runs_report(db_url):
    json_bytes = len('{"kind":"panel","panel":{"verdict":"ENFORCE"}}') + len("{}") + len("{}")  # report, recipe, thresholds
    with Store.open(db_url) as base:
        alice, bob = base.as_viewer(ALICE), base.as_viewer(BOB)
        record(alice, b"x" * 600, "a.csv", quota_bytes=1000)
        record(alice, b"x" * 600, "a-again.csv", quota_bytes=1000)  # the same file again costs only its report
        assert alice.usage() == 600 + 2 * json_bytes
        with pytest.raises(StoreError) as e:
            record(alice, b"y" * 300, "b.csv", quota_bytes=1000)
        assert str(e.value) == (f"this run's files ({300 + json_bytes} bytes) would take your stored files past your "
                                f"quota: you store {600 + 2 * json_bytes} bytes of 1,000 bytes. Delete runs you no "
                                "longer need on the History page (or `agreebound delete`), or ask an admin to raise "
                                "AGREEBOUND_QUOTA_MB. The run was not recorded")
        # a run of the same file under another label still stores its own report: it is counted
        for i in range(6):
            record(alice, b"x" * 600, "a.csv", label=f"view {i}", quota_bytes=1000)
        with pytest.raises(StoreError, match="past your quota"):
            record(alice, b"x" * 600, "a.csv", label="one more", quota_bytes=1000)
        assert base.counts()["runs"] == 8
        record(bob, b"y" * 500, "b.csv", quota_bytes=1000)  # Bob's quota is his own
        assert bob.usage() == 500 + json_bytes
        with pytest.raises(StoreError, match="admins only"):
            bob.counts()
        with pytest.raises(StoreError, match="through a run you can open"):
            bob.blob(alice.runs()[0].inputs[0].sha256)


def test_openings_and_refusals_share_one_bound_and_what_is_left_out_is_counted(db_url):
    bound = store_mod.MAX_LOOKS_PER_HOUR
    assert bound == 100
    with Store.open(db_url) as base:
        bob, alice = base.as_viewer(BOB), base.as_viewer(ALICE)
        run = record(alice, b"1,2\n", share="all")
        for i in range(bound - 10):  # opening runs, as fast as one clicks (60 in 15.5 s was seen)
            bob.note("open", run.id, how="history")
        for i in range(10 + 25):  # then trying ids
            bob.note("refused", f"{i:032x}", how="link")
        for _ in range(5):
            bob.note("open", run.id, how="link")
        alice.note("open", run.id, how="link")  # the bound is each user's own
        alice.share(run.id, "team")  # and only openings and refusals are bounded
        events = base.trail(limit=1000)
        bobs = [e for e in events if e["actor"] == BOB.user]
        assert [e["action"] for e in bobs].count("open") == bound - 10
        assert [e["action"] for e in bobs].count("refused") == 10
        (left_out,) = [e for e in bobs if e["action"] == "unrecorded"]  # one event counts them all
        assert left_out["detail"]["open"] == 5 and left_out["detail"]["refused"] == 25
        assert left_out["detail"]["bound"] == "100 openings and refusals an hour" and left_out["run_id"] == ""
        assert len(bobs) == bound + 1
        assert [(e["actor"], e["action"]) for e in events[:2]] == [(ALICE.user, "share"), (ALICE.user, "open")]


def test_retention_deletes_old_runs_and_leaves_tombstones(db_url, monkeypatch):
    times = iter(["2020-01-01T00:00:00.000000Z", "2020-01-02T00:00:00.000000Z"])
    with Store.open(db_url) as base:
        monkeypatch.setattr(store_mod, "now_utc", lambda: next(times))
        old1, old2 = record(base, b"1\n", "old.csv"), record(base.as_viewer(ALICE), b"2\n", "old2.csv")
        monkeypatch.undo()
        new = record(base, b"3\n", "new.csv")
        assert [r.id for r in base.as_viewer(ALICE).older_than(30)] == [old2.id]  # only what she may delete
        gone, freed = base.prune(30)
        assert [r.id for r in gone] == [old1.id, old2.id] and freed == 2
        assert [r.id for r in base.runs()] == [new.id]
        assert [(e["action"], e["run_id"]) for e in base.trail()[:2]] == [("prune", old2.id), ("prune", old1.id)]


def test_runs_recorded_before_owners_existed_are_the_single_users(db_url):
    with Store.open(db_url) as base:
        run = record(base, b"legacy\n")
        assert run.owner == access.LOCAL and run.share == "private"
        assert base.as_viewer(BOB).runs() == []
        with base.engine.connect() as conn:
            cols = {c["name"] for c in sa.inspect(conn).get_columns("agreebound_runs")}
        assert {"owner", "team", "share"} <= cols


def test_rules_and_settings(db_url, monkeypatch):
    assert may_see(BOB, ALICE.user, "red", "all") and not may_see(BOB, ALICE.user, "red", "team")
    assert may_see(ALAN, ALICE.user, "red", "team") and not may_see(ALAN, ALICE.user, "red", "private")
    assert may_see(ADMIN, ALICE.user, "red", "private") and may_change(ADMIN, ALICE.user)
    assert not may_change(ALAN, ALICE.user)
    monkeypatch.setenv(access.ADMINS_ENV, " Root@Blue.example , x@y.z")
    monkeypatch.setenv(access.QUOTA_ENV, "0")
    given = settings()
    # a listed address keeps its local part as given; only its domain is case-insensitive
    assert given.quota_bytes is None and given.admins == {"Root@blue.example", "x@y.z"}
    v = signed_in_viewer({"iss": ISSUER, "sub": "1", "email": "Root@blue.example"}, given)
    # an unverified address identifies no one, makes no admin and places no one in a team
    assert v == Viewer(f"{ISSUER}|1", None, admin=False, signed_in=True, email=None, shown="sub:1@id.example",
                       legacy=("sub:1@id.example",))
    v = signed_in_viewer({"iss": ISSUER, "sub": "1", "email": "Root@BLUE.Example", "email_verified": True}, given)
    assert (v.user, v.name, v.email, v.team, v.admin) == (f"{ISSUER}|1", "Root@BLUE.Example", "Root@BLUE.Example",
                                                          None, True)
    # another local part's case, or spaces, is another address: no admin
    for other in ("ROOT@blue.example", "root@blue.example", "Root@blue.example ", " Root@blue.example"):
        v = signed_in_viewer({"iss": ISSUER, "sub": "1", "email": other, "email_verified": True}, given)
        assert v.name == other and not v.admin, other
    assert signed_in_viewer({"iss": ISSUER, "sub": "2", "email": "a@b.c", "email_verified": True,
                             "team": ["red", "x"]}, given).team == "red"
    assert signed_in_viewer({"sub": "3", "iss": "https://id.example/realms/x"}, given).name == "sub:3@id.example"
    # a claimed "local" is not the single user; no subject is no one
    local = signed_in_viewer({"iss": ISSUER, "sub": "4", "email": "local", "email_verified": True}, given)
    assert local.user == f"{ISSUER}|4" and local.name == "sub:4@id.example"
    nobody = signed_in_viewer({"iss": ISSUER, "email": "x@red.example", "email_verified": True}, given)
    assert nobody.user == "" and not access.admitted(nobody, given)
    monkeypatch.setenv(access.ALLOWED_ENV, "ann@x.example, @Red.example")
    allowed = settings()
    assert access.admitted(signed_in(allowed, "9", "Alan@RED.example"), allowed)  # a listed @domain, any case
    assert not access.admitted(signed_in(allowed, "9", "Alan@Red.example "), allowed)  # "red.example " is no domain
    assert access.admitted(signed_in(allowed, "8", "ann@x.example"), allowed)
    assert access.admitted(signed_in(allowed, "8", "ann@X.Example"), allowed)
    for other in ("Ann@x.example", "ANN@X.EXAMPLE", "ann@x.example ", " ann@x.example"):
        assert not access.admitted(signed_in(allowed, "8", other), allowed), other
    assert not access.admitted(signed_in(allowed, "7", "bob@x.example"), allowed)
    assert not access.admitted(signed_in(allowed, "6", "alan@red.example", verified=False), allowed)
    monkeypatch.setenv(access.QUOTA_ENV, "lots")
    with pytest.raises(access.SettingError, match="AGREEBOUND_QUOTA_MB='lots' is not a whole number from 0 to"):
        settings()
    monkeypatch.delenv(access.QUOTA_ENV)
    assert settings().quota_bytes == 1000 * 10**6
    json.dumps(settings().describe())


ISSUER = "https://id.example"


def signed_in(given: access.Settings, sub: str, email: str, verified: bool = True, **claims) -> Viewer:
    return signed_in_viewer({"iss": ISSUER, "sub": sub, "email": email, "email_verified": verified, **claims}, given)


def test_an_identity_is_the_providers_account_not_its_address(db_url, monkeypatch):
    """Issue 50: a second account whose verified address was 'ALICE@RED.EXAMPLE ' was taken for
    alice@red.example and saw her private run. It is another owner, shown as its own address, and
    neither the admins' list nor the allowed list names it when they name Alice's address."""
    monkeypatch.setenv(access.ADMINS_ENV, "alice@red.example")
    monkeypatch.setenv(access.ALLOWED_ENV, "alice@red.example")
    given = settings()
    alice = signed_in(given, "248289761001", "alice@red.example", team="red")
    twin = signed_in(given, "990000000002", "ALICE@RED.EXAMPLE ", team="red")
    capital = signed_in(given, "990000000003", "Alice@red.example", team="red")  # another local part's case
    assert alice.admin and access.admitted(alice, given)
    for other in (twin, capital):
        assert not other.admin and not access.admitted(other, given)
        assert other.name != alice.name and other.legacy == (f"sub:{other.user.split('|')[1]}@id.example",)
    assert (alice.name, twin.name, capital.name) == ("alice@red.example", "ALICE@RED.EXAMPLE ", "Alice@red.example")
    # a listed @domain admits them (its domain is theirs, but for the twin's space) and makes no admin
    monkeypatch.setenv(access.ALLOWED_ENV, "@red.example")
    domain = settings()
    assert access.admitted(capital, domain) and not access.admitted(twin, domain)
    assert not signed_in(domain, "990000000003", "Alice@red.example").admin
    assert alice.user == f"{ISSUER}|248289761001" != twin.user == f"{ISSUER}|990000000002"
    assert not may_see(twin, alice.user, "red", "private")
    assert not may_change(twin, alice.user)
    with Store.open(db_url) as base:
        mine = record(base.as_viewer(replace(alice, admin=False)), b"alice's\n", "secret.csv")
        assert mine.owner == alice.user and mine.owner_name == "alice@red.example"
        other = base.as_viewer(twin)
        assert other.runs() == [] and other.runs(name="secret.csv") == []
        with pytest.raises(StoreError, match="that you can open"):
            other.get(mine.id, prefix=False)
        with pytest.raises(StoreError, match="that you can open"):
            other.get(mine.id[:6])
        # listings name the owner by address, never by key
        base.as_viewer(alice).sign_in()
        (listed,) = base.runs()
        assert listed.owner == alice.user and listed.owner_name == "alice@red.example"
        assert base.get(mine.id).summary()["owner_shown"] == "alice@red.example"
        assert base.trail()[0]["actor"] == alice.user and base.trail()[0]["actor_shown"] == "alice@red.example"
    # a key stays one per account and bounded, however long the subject
    assert len(access.identity_key(ISSUER, "s" * 400)) <= access.MAX_USER_CHARS
    assert access.identity_key(ISSUER, "s" * 400) != access.identity_key(ISSUER, "s" * 401)


def test_a_team_is_a_claim_or_a_named_domain_never_any_mail_domain(db_url, monkeypatch):
    """Issue 50: p1@yahoo.co.uk shared a run with its owner's team and p2@yahoo.co.uk, a stranger,
    opened it."""
    given = settings()
    p1, p2 = signed_in(given, "p1", "p1@yahoo.co.uk"), signed_in(given, "p2", "p2@yahoo.co.uk")
    assert p1.team is None and p2.team is None  # a mail domain is no team unless the deployment names it
    with Store.open(db_url) as base:
        run = record(base.as_viewer(p1), b"p1's\n")
        base.as_viewer(p1).share(run.id, "team")
        assert base.as_viewer(p2).runs() == []
        with pytest.raises(StoreError, match="that you can open"):
            base.as_viewer(p2).get(run.id, prefix=False)
    # a claim places a verified address in a team; an unverified one in none, whatever it claims
    assert signed_in(given, "a", "a@red.example", team="red").team == "red"
    assert signed_in(given, "m", "a@red.example", verified=False, team="red").team is None
    assert signed_in(given, "n", "a@red.example", verified=False).team is None
    # a domain is a team when the deployment names it (and a claim still comes first)
    monkeypatch.setenv(access.TEAM_DOMAINS_ENV, " @Red.example, blue.example")
    named = settings()
    assert named.team_domains == {"red.example", "blue.example"}
    assert signed_in(named, "a", "alan@red.example").team == "red.example"
    assert signed_in(named, "A", "Alan@RED.Example").team == "red.example"  # a domain's case is no other domain
    assert signed_in(named, "s", "alan@red.example ").team is None  # "red.example " is no domain
    assert signed_in(named, "b", "bo@red.example", team="ops").team == "ops"
    assert signed_in(named, "c", "carl@red.example", verified=False).team is None
    assert signed_in(named, "p1", "p1@yahoo.co.uk").team is None
    assert ("team", "the sign-in claim 'team' of a verified address, else the address's domain for blue.example, "
            "red.example") in named.describe()
    assert ("team", "the sign-in claim 'team' of a verified address; a mail domain is no team "
            "(AGREEBOUND_TEAM_DOMAINS unset)") in given.describe()
    for bad, said in (("gmail.com", "AGREEBOUND_TEAM_DOMAINS: gmail.com is a public mail domain"),
                      ("red example", "AGREEBOUND_TEAM_DOMAINS: 'red example' is not a mail domain")):
        monkeypatch.setenv(access.TEAM_DOMAINS_ENV, bad)
        with pytest.raises(access.SettingError, match=said):
            settings()


def test_compare_by_id_refuses_another_users_private_run(db_url, monkeypatch):
    from agreebound.ui import history_tables, runs

    monkeypatch.setattr(runs.auth, "viewer", lambda: BOB)  # the page's visitor (messages as Bob reads them)
    with Store.open(db_url) as base:
        alice, bob = base.as_viewer(ALICE), base.as_viewer(BOB)
        private = record(alice, b"alice\n")
        mine = record(bob, b"bob\n")
        c, why = history_tables.compared(bob, private.id, mine.id)
        assert c is None and why == f"no run {private.id} that you can open here"
        run, why = history_tables.full(bob, private.id)
        assert run is None and why == f"no run {private.id} that you can open here"


def test_duckdb_messages_name_the_users_file_never_a_temporary_path(db_url, tmp_path):
    from agreebound.engines.duckdb_engine import duckdb_said

    spill = tmp_path / "agreebound-duckdb-x"
    upload = tmp_path / "upload-7f3a" / "data.csv"
    said = duckdb_said(Exception(f'Invalid Input Error: Error when sniffing file "{upload}": spilled to '
                                 f"{spill}/duckdb_temp_storage-0.tmp"), "ratings.csv", [str(upload)], str(spill))
    assert said == ('DuckDB could not read it: Invalid Input Error: Error when sniffing file "ratings.csv": spilled '
                    "to (a temporary file)")
    assert str(tmp_path) not in said
