"""The team commands from a terminal: --record --share, `share`, `prune`, `audit`, prefixes of the
user's own runs only, and `serve --check` (exit 1 on an unsafe combination, 3 when it cannot start)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import process

from agreebound.app.access import Viewer
from agreebound.app.store import Store

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "sample_data" / "detector_panel.csv"
COOKIE = "5f0e8c2d9a7b41e3c6d8f0a2b4c6e8d0" * 2
#: A complete sign-in configuration through an https provider.
SIGNIN = {"AGREEBOUND_OIDC_METADATA_URL": "https://id.example/.well-known/openid-configuration",
          "AGREEBOUND_OIDC_CLIENT_ID": "c", "AGREEBOUND_OIDC_CLIENT_SECRET": "topsecret",
          "AGREEBOUND_OIDC_REDIRECT_URI": "https://review.example/oauth2callback", "AGREEBOUND_COOKIE_SECRET": COOKIE}


def cli(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    import os

    full = {**os.environ, "AGREEBOUND_DB": "off", **(env or {})}
    for name in ("AGREEBOUND_OIDC_METADATA_URL", "AGREEBOUND_OIDC_CLIENT_ID", "AGREEBOUND_OIDC_CLIENT_SECRET",
                 "AGREEBOUND_OIDC_REDIRECT_URI", "AGREEBOUND_COOKIE_SECRET"):
        if name not in (env or {}):
            full.pop(name, None)
    return process(*args, cwd=ROOT, env=full, timeout=120, **kw)


def test_record_share_prune_and_audit_from_a_terminal(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    alice = {"AGREEBOUND_USER": "Alice@Red.example", "AGREEBOUND_TEAM": "red"}
    out = cli("panel", str(DATA), "--record", "--share", "team", "--db", db, env=alice)
    assert out.returncode == 1, out.stderr  # REPORT_ONLY
    said = re.search(r"run ([0-9a-f]{32}) recorded in (\S+) as alice@red\.example's, shared with its owner's team",
                     out.stdout + out.stderr)
    assert said, out.stdout + out.stderr
    run_id = said.group(1)
    with Store.open(db) as s:
        assert [r.id for r in s.as_viewer(Viewer("alan@red.example", "red", signed_in=True)).runs()] == [run_id]
        assert s.as_viewer(Viewer("bob@blue.example", "blue", signed_in=True)).runs() == []
    # a prefix names only the user's own runs
    bob = {"AGREEBOUND_USER": "bob@blue.example"}
    out = cli("share", run_id[:6], "all", "--db", db, env=bob)
    assert out.returncode == 3 and f"no run {run_id[:6]} that you can open in" in out.stderr
    out = cli("share", run_id[:6], "all", "--db", db, env=alice)
    assert out.returncode == 0
    assert out.stdout == f"run {run_id} (detector_panel.csv, alice@red.example's) is shared with everyone signed in\n"
    out = cli("history", "--db", db, env=bob)
    assert re.search(rf"^{run_id}  .*  alice@red\.example  all      detector_panel\.csv$", out.stdout, re.M), out.stdout
    out = cli("audit", "--db", db, "--json", env=bob)
    assert out.returncode == 0
    import json

    events = json.loads(out.stdout)
    assert [(e["action"], e["actor"]) for e in events] == [("share", "alice@red.example"),
                                                           ("record", "alice@red.example")]
    assert events[0]["detail"]["from"] == "team" and events[0]["detail"]["to"] == "all"
    out = cli("prune", "--days", "1", "--dry-run", "--db", db)
    assert out.returncode == 0 and out.stdout == "would delete 0 runs recorded more than 1 days ago\n"
    out = cli("prune", "--db", db)
    assert out.returncode == 3 and "give --days N (1 to 36,500), or set AGREEBOUND_RETENTION_DAYS" in out.stderr
    out = cli("panel", str(DATA), "--share", "all")
    assert out.returncode == 3 and "--share says who sees a recorded run; add --record" in out.stderr


def test_the_quota_refuses_a_recording_with_exit_3(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    lines = DATA.read_text().splitlines()
    big = tmp_path / "big.csv"  # 1.2 MB: the sample's ratings under five names of dimension
    big.write_text("\n".join([lines[0], *[f"{d}{i}{line[line.index(','):]}" for i in range(5)
                                          for line in lines[1:] for d in [line.split(',')[0]]]]) + "\n")
    out = cli("panel", str(DATA), "--record", "--db", db, env={"AGREEBOUND_QUOTA_MB": "1"})
    assert out.returncode == 1, out.stderr  # 238 kB fits in 1 MB
    with Store.open(db) as s:
        used = s.usage()  # the file's 238,111 bytes and its run's stored report
    assert 238_111 < used < 300_000
    out = cli("panel", str(big), "--record", "--db", db, env={"AGREEBOUND_QUOTA_MB": "1"})
    assert out.returncode == 3
    assert re.search(r"agreebound: this run's files \(1\.\d MB\) would take your stored files past your quota: "
                     rf"you store {used:,} bytes of 1\.0 MB\.", out.stderr), out.stderr
    with Store.open(db) as s:
        assert s.counts()["runs"] == 1
    out = cli("panel", str(DATA), "--record", "--label", "again", "--db", db, env={"AGREEBOUND_QUOTA_MB": "lots"})
    assert out.returncode == 3 and "AGREEBOUND_QUOTA_MB='lots' is not a whole number from 0 to" in out.stderr


@pytest.mark.parametrize(("args", "env", "code", "said"), [
    ([], {}, 0, ["bind address: 127.0.0.1:8501 (this machine only)", "sign-in: off: single-user mode",
                 "safe to serve"]),
    (["--host", "0.0.0.0"], {}, 1, ["UNSAFE: listening on 0.0.0.0 (reachable from other machines) with no sign-in",
                                    "unsafe: do not serve this way"]),
    (["--auth"], {}, 3, ["--auth needs a sign-in provider: set AGREEBOUND_OIDC_METADATA_URL"]),
    (["--host", "0.0.0.0", "--auth"], {"AGREEBOUND_OIDC_METADATA_URL": "https://id.example/.well-known/openid-configuration"},
     3, ["sign-in is half configured: AGREEBOUND_OIDC_CLIENT_ID, AGREEBOUND_OIDC_CLIENT_SECRET, "
         "AGREEBOUND_OIDC_REDIRECT_URI, AGREEBOUND_COOKIE_SECRET are not set"]),
    (["--host", "0.0.0.0", "--auth"], {"AGREEBOUND_OIDC_METADATA_URL": "https://id.example/.well-known/openid-configuration",
                                       "AGREEBOUND_OIDC_CLIENT_ID": "c", "AGREEBOUND_OIDC_CLIENT_SECRET": "topsecret",
                                       "AGREEBOUND_OIDC_REDIRECT_URI": "https://review.example/oauth2callback",
                                       "AGREEBOUND_COOKIE_SECRET": "short"},
     1, ["sign-in: on, provider https://id.example/.well-known/openid-configuration",
         "UNSAFE: the cookie secret is 5 characters"]),
    (["--host", "0.0.0.0", "--auth"], {**SIGNIN, "AGREEBOUND_UPLOAD_MB": "50", "AGREEBOUND_ADMINS": "ops@review.example",
                                       "AGREEBOUND_ALLOWED": "@review.example"},
     0, ["bind address: 0.0.0.0:8501 (reachable from other machines)", "upload limit: 50 MB per file",
         "admins: ops@review.example", "admitted: @review.example", "quota: 1,000 MB of stored files per user",
         "team: the sign-in claim 'team' of a verified address; a mail domain is no team (AGREEBOUND_TEAM_DOMAINS unset)",
         "XSRF protection: on; cross-origin access: refused (CORS protection on); static file serving: off",
         "safe to serve"]),
    (["--host", "0.0.0.0", "--auth"], {**SIGNIN, "AGREEBOUND_OIDC_REDIRECT_URI": "http://review.example/oauth2callback",
                                       "AGREEBOUND_COOKIE_SECRET": "a" * 40},
     1, ["UNSAFE: the redirect URI http://review.example/oauth2callback is plain http on a public address",
         "UNSAFE: the cookie secret repeats a few characters"]),
    # issue 50: open sign-up on a public address is unsafe, not a note (each new account is a new quota)
    (["--host", "0.0.0.0", "--auth"], {**SIGNIN, "AGREEBOUND_ADMINS": "ops@review.example"},
     1, ["UNSAFE: open sign-up on a public address: AGREEBOUND_ALLOWED is unset, so anyone the sign-in provider signs "
         "in is admitted, and each new account gets a quota of 1,000 MB of its own: the quota bounds each identity, "
         "not the server's disk. List the addresses or @domains to admit in AGREEBOUND_ALLOWED",
         "unsafe: do not serve this way"]),
    (["--host", "0.0.0.0", "--auth"], {**SIGNIN, "AGREEBOUND_QUOTA_MB": "0"},
     1, ["each new account gets no limit of its own"]),
    # on this machine only (a reverse proxy in front), open sign-up stays a note
    (["--auth"], SIGNIN, 0, ["note: anyone the sign-in provider signs in is admitted (AGREEBOUND_ALLOWED", "safe to serve"]),
    # issue 50: a provider reached over plain http on another host is unsafe, wherever the dashboard binds
    (["--auth"], {**SIGNIN, "AGREEBOUND_OIDC_METADATA_URL": "http://id.example/.well-known/openid-configuration"},
     1, ["UNSAFE: the sign-in provider http://id.example/.well-known/openid-configuration is reached over plain http "
         "on another host: whoever is on the way can change its keys and sign in as anyone. Give its https:// address",
         "unsafe: do not serve this way"]),
    (["--auth"], {**SIGNIN, "AGREEBOUND_OIDC_METADATA_URL": "HTTP://10.0.0.5:8080/.well-known/openid-configuration"},
     1, ["UNSAFE: the sign-in provider HTTP://10.0.0.5:8080/.well-known/openid-configuration is reached over plain"]),
    # a provider on this machine (a test's, a sidecar's) may speak plain http
    (["--auth"], {**SIGNIN, "AGREEBOUND_OIDC_METADATA_URL": "http://127.0.0.2:5000/.well-known/openid-configuration"},
     0, ["sign-in: on, provider http://127.0.0.2:5000/.well-known/openid-configuration", "safe to serve"]),
])
def test_serve_check(args, env, code, said):
    out = cli("serve", "--check", *args, env=env)
    assert out.returncode == code, out.stdout + out.stderr
    for line in said:
        assert line in out.stdout + out.stderr, out.stdout + out.stderr
    assert "topsecret" not in out.stdout + out.stderr and COOKIE not in out.stdout


def test_a_plain_http_provider_in_secrets_toml_is_unsafe_too(tmp_path, monkeypatch):
    """The check reads every provider of an [auth] section Streamlit reads itself ([auth.<name>]
    sections included), not only the one from the environment."""
    from agreebound.app import serve

    for name in serve.OIDC_ENV.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGREEBOUND_ALLOWED", "@review.example")
    (tmp_path / ".streamlit").mkdir()
    secrets_toml = tmp_path / ".streamlit" / "secrets.toml"
    secrets_toml.write_text(f'[auth]\nredirect_uri = "https://review.example/oauth2callback"\ncookie_secret = "{COOKIE}"\n'
                            '[auth.okta]\nclient_id = "c"\nclient_secret = "s"\n'
                            'server_metadata_url = "http://okta.example/.well-known/openid-configuration"\n')
    p = serve.plan("0.0.0.0", None, True, [tmp_path])
    assert p.unsafe == ["the sign-in provider http://okta.example/.well-known/openid-configuration is reached over "
                        "plain http on another host: whoever is on the way can change its keys and sign in as anyone. "
                        "Give its https:// address"]
    secrets_toml.write_text(secrets_toml.read_text().replace("http://okta", "https://okta"))
    assert serve.plan("0.0.0.0", None, True, [tmp_path]).unsafe == []
    assert serve.loopback_host("127.0.0.2") and serve.loopback_host("[::1]") and not serve.loopback_host("10.0.0.5")
