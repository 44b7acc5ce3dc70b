"""The deployment recipe (Dockerfile, .dockerignore, compose.yaml, deploy/env.example), checked
without Docker: images cannot be pulled here, so what a container would do is reproduced on this
machine.

- The recipe files are parsed and held to the code: every variable compose gives the dashboard is
  one agreebound reads; the password and every sign-in variable are required (``${VAR:?...}``);
  the defaults are agreebound's own; the Dockerfile's base, user, health check and command.
- The Dockerfile's CMD runs as the image would run it: from a folder laid out like the image's
  /app by the Dockerfile's own COPY lines, importing the package from that folder's src/ (what the
  image's editable install does), as an unprivileged user with a home of its own (the image's
  USER), with the environment of the Dockerfile's ENV lines and of compose after filling in test
  values: a fresh database on the tests' PostgreSQL server (tests/pg_server.py) and a real OpenID
  Connect provider (tests/app/oidc.py). A visitor signs in through it in chromium.

The only change to the CMD is ``--port N`` appended (argparse keeps the last one), so that a free
port is used instead of 8501; the health check's URL is given the same port.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from agreebound import access, limits, serve, store

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = ROOT / "compose.yaml"
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
VENV_BIN = Path(sys.executable).parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

SERVE_CMD = ["agreebound", "serve", "--host", "0.0.0.0", "--port", "8501", "--auth"]
IMAGE_PORT = "8501"
IMAGE_HOME = "/home/agreebound"
IMAGE_WORKDIR = "/app"
#: Who runs the command when the tests run as root: nobody/nogroup, like the image's uid 10001 an
#: unprivileged user that owns nothing but the home and temporary folder made for it here.
RUN_UID = RUN_GID = 65534
REQUIRED = ("POSTGRES_PASSWORD", *serve.OIDC_ENV.values())
START_S = 60
EVIL_ORIGIN = "http://evil.example"


# --- reading the recipe --------------------------------------------------------------------------


def instructions(text: str) -> list[tuple[str, str]]:
    """A Dockerfile's instructions as (KEYWORD, arguments): comment lines dropped, lines ending in a
    backslash joined with the next (comments inside such a run are dropped too, as Docker does)."""
    out, buf = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not buf):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, rest = buf.partition(" ")
        out.append((keyword.upper(), rest.strip()))
        buf = ""
    return out


def dockerfile() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE.read_text(encoding="utf-8"))


def the(keyword: str) -> list[str]:
    return [args for k, args in dockerfile() if k == keyword]


def exec_form(args: str) -> list[str]:
    """A JSON-array (exec form) argument list; the shell form is refused (it would run under sh)."""
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), args
    return value


def healthcheck_cmd() -> list[str]:
    (args,) = the("HEALTHCHECK")
    _, found, cmd = args.partition("CMD ")
    assert found, f"HEALTHCHECK without CMD: {args}"
    return exec_form(cmd)


def image_env() -> dict[str, str]:
    """Every ENV instruction's KEY=VALUE pairs, in order."""
    env: dict[str, str] = {}
    for args in the("ENV"):
        for word in shlex.split(args):
            key, sep, value = word.partition("=")
            assert sep, f"ENV {args}: use KEY=VALUE"
            env[key] = value
    return env


def copies() -> list[tuple[list[str], str]]:
    """Each COPY's (sources, destination); flags such as --chown are left out."""
    out = []
    for args in the("COPY"):
        words = exec_form(args) if args.startswith("[") else shlex.split(args)
        words = [w for w in words if not w.startswith("--")]
        out.append((words[:-1], words[-1]))
    return out


def ignore_patterns() -> list[str]:
    lines = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    return [s for s in (line.strip() for line in lines) if s and not s.startswith("#")]


def ignored(rel: str, patterns: list[str]) -> bool:
    """The build context leaves ``rel`` out: a pattern matches it or one of its parent folders
    (Docker's rule; ``**/`` matches any depth; fnmatch's ``*`` also crosses ``/``, which can only
    make this stricter)."""
    parts = Path(rel).parts
    for n in range(1, len(parts) + 1):
        path = "/".join(parts[:n])
        for p in patterns:
            tails = ["/".join(parts[i:n]) for i in range(n)] if p.startswith("**/") else [path]
            if any(fnmatch.fnmatchcase(t, p.removeprefix("**/")) for t in tails):
                return True
    return False


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


class Missing(Exception):
    """A ``${VAR:?message}`` whose variable is unset or empty: compose stops with the message."""


_VAR = re.compile(r"\$(?:(\$)|\{(\w+)(?:(:?[-?])([^}]*))?\}|(\w+))")


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Compose's variable substitution: $$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
    ${VAR:?message} and ${VAR?message} (the colon forms also treat an empty value as unset)."""

    def one(m: re.Match) -> str:
        if m.group(1):
            return "$"
        name, op, arg = m.group(2) or m.group(5), m.group(3), m.group(4)
        value = env.get(name)
        if op is None:
            return value or ""
        unset = value is None or (op.startswith(":") and value == "")
        if op.endswith("-"):
            return arg if unset else value
        if unset:
            raise Missing(f"{name}: {arg}")
        return value

    return _VAR.sub(one, text)


def dashboard_env(values: Mapping[str, str]) -> dict[str, str]:
    """The dashboard's environment as compose would give it with ``values`` in .env."""
    env = compose()["services"]["dashboard"]["environment"]
    assert isinstance(env, dict), "environment: a mapping, VAR: value"
    return {k: interpolate(str(v), values) for k, v in env.items()}


def strings(value: object) -> Iterator[str]:
    """Every string in a parsed YAML document (its comments are gone)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def variables_read() -> set[str]:
    """Every environment variable agreebound reads, from the code's own constants."""
    names = {*serve.OIDC_ENV.values(), serve.UPLOAD_ENV, store.ENV, store.TIMEOUT_ENV}
    return names | {getattr(access, n) for n in dir(access) if n.endswith("_ENV")}


def env_example() -> list[tuple[str, str, list[str]]]:
    """deploy/env.example as (name, value, the comment lines just above it)."""
    out, comments = [], []
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            comments.append(line)
        elif "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip(), comments))
        else:  # a blank line ends a comment block
            comments = []
    return out


# --- the recipe, read ----------------------------------------------------------------------------


def test_compose_names_the_database_and_the_dashboard():
    c = compose()
    assert set(c["services"]) == {"db", "dashboard"}
    db, dash = c["services"]["db"], c["services"]["dashboard"]
    assert db["image"] == "postgres:16"
    (volume,) = db["volumes"]
    name, _, target = volume.partition(":")
    assert target == "/var/lib/postgresql/data" and name in c["volumes"], volume  # a named volume
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert db["environment"]["POSTGRES_USER"] == db["environment"]["POSTGRES_DB"] == "agreebound"
    assert "ports" not in db, "the database is reached by the dashboard only, on compose's network"
    assert dash["build"] == "."
    assert dash["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert dash["ports"] == [f"{IMAGE_PORT}:{IMAGE_PORT}"]
    assert db["restart"] == dash["restart"] == "unless-stopped"


def test_compose_sets_only_what_agreebound_reads_and_requires_sign_in():
    raw = compose()["services"]["dashboard"]["environment"]
    assert set(raw) <= variables_read(), set(raw) - variables_read()
    for name in serve.OIDC_ENV.values():
        assert re.fullmatch(r"\$\{" + name + r":\?[^}]+\}", raw[name]), f"{name} must be required: {raw[name]}"
    assert set(serve.OIDC_ENV.values()) | {store.ENV} <= set(raw)
    given = {name: "x" for name in REQUIRED}
    for name in REQUIRED:  # each one missing or empty stops compose, with a message naming it
        for absent in ({k: v for k, v in given.items() if k != name}, {**given, name: ""}):
            with pytest.raises(Missing, match=rf"^{name}: set {name}"):
                dashboard_env(absent)
            if name == "POSTGRES_PASSWORD":
                with pytest.raises(Missing):
                    interpolate(compose()["services"]["db"]["environment"][name], absent)


def test_compose_defaults_are_agreebounds_own():
    env = dashboard_env({name: "pw0" for name in REQUIRED})
    assert env[store.ENV] == "postgresql://agreebound:pw0@db:5432/agreebound"
    assert env[serve.UPLOAD_ENV] == str(limits.UPLOAD_MB)
    assert env[access.QUOTA_ENV] == str(access.DEFAULT_QUOTA_MB)
    assert env[access.TEAM_CLAIM_ENV] == access.DEFAULT_TEAM_CLAIM
    assert env[store.TIMEOUT_ENV] == str(store.DEFAULT_TIMEOUT_S)
    assert env[access.RETENTION_ENV] == env[access.ADMINS_ENV] == ""  # keep every run; no admins


def test_env_example_lists_every_variable_with_a_comment_and_no_secret():
    listed = env_example()
    names = [name for name, _, _ in listed]
    used = {m for text in strings(compose()) for m in re.findall(r"\$\{(\w+)", text)}
    assert sorted(names) == sorted(used), set(names) ^ used
    for name, _, comments in listed:
        assert comments, f"{name} has no comment above it"
    values = {name: value for name, value, _ in listed}
    assert all(values[name] == "" for name in REQUIRED), "the example holds no password or secret"
    # Copying the example unchanged gives compose's own defaults.
    assert dashboard_env({**values, **{n: "x" for n in REQUIRED}}) == dashboard_env({n: "x" for n in REQUIRED})


def test_dockerfile_recipe():
    steps = dockerfile()
    keywords = [k for k, _ in steps]
    (base,) = the("FROM")
    assert re.fullmatch(r"python:3\.(\d+)-slim", base), base
    assert keywords.count("USER") == 1 and keywords.count("CMD") == 1
    (user,) = the("USER")
    assert user not in ("root", "0") and not user.startswith(("root:", "0:")), user
    assert keywords.index("USER") > max(i for i, k in enumerate(keywords) if k == "RUN"), "USER after the last RUN"
    assert keywords.index("USER") < keywords.index("CMD")
    assert any("--uid 10001" in args and user in args for args in the("RUN")), "a fixed uid for the user"
    assert the("WORKDIR") == [IMAGE_WORKDIR] and the("EXPOSE") == [IMAGE_PORT]
    env = image_env()
    assert env["XDG_DATA_HOME"].startswith(IMAGE_HOME + "/") and env["PYTHONUNBUFFERED"] == "1"
    assert f"http://127.0.0.1:{IMAGE_PORT}/_stcore/health" in " ".join(healthcheck_cmd())
    assert healthcheck_cmd()[0] == "python", "slim has no curl: the health check is Python's urllib"
    assert exec_form(the("CMD")[0]) == SERVE_CMD


def test_every_copied_file_exists_and_is_in_the_build_context():
    patterns = ignore_patterns()
    assert not any(p.startswith("!") for p in patterns), "exceptions (!) are not modelled here"
    for must in (".venv", "artifacts", "tests", ".git", "**/__pycache__", ".env", "**/secrets.toml"):
        assert must in patterns, f".dockerignore must leave out {must}"
    copied = [src for sources, _ in copies() for src in sources]
    for src in ("pyproject.toml", "README.md", "src/", "app.py", "pages/", ".streamlit/config.toml",
                "sample_data/", "docs/"):
        assert src in copied, f"the Dockerfile does not copy {src}"
    for src in copied:
        path = ROOT / src
        assert path.exists(), f"COPY {src}: no such file in the repository"
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        kept = [p for p in files if not ignored(str(p.relative_to(ROOT)), patterns)]
        assert kept, f"COPY {src}: .dockerignore leaves all of it out of the build context"
        assert not ignored(src.rstrip("/"), patterns), f"COPY {src}: .dockerignore leaves it out"


# --- the image's start command, run here ---------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _others_can_run(program: Path) -> bool:
    """Another user (not the owner, not in the group) can execute ``program``: it and every folder
    above it are executable by others."""
    path = program.resolve()
    return all(p.stat().st_mode & stat.S_IXOTH for p in (path, *path.parents))


def _python_for_others() -> tuple[Path, list[str]] | None:
    """An interpreter the unprivileged user can start, and the folders it must import from. This
    venv's own first, when reachable; else the system's Python of the same version, given the
    venv's site-packages (here the venv's interpreter lives under /root, which is closed to others)."""
    if _others_can_run(Path(sys.executable)):
        return Path(sys.executable), []
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")
    if system is None or not _others_can_run(Path(system)):
        return None
    site = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_relative_to(sys.prefix)]
    return Path(system), site


@dataclass
class Image:
    """A folder laid out like the image: app/ (the image's /app, made by its COPY lines, owned by
    whoever runs the tests and only readable to the server's user), home/ and tmp/ (owned by the
    server's user), bin/ (``agreebound`` and ``python`` as the image's PATH finds them)."""

    base: Path
    prefix: list[str]  # runs a command as the server's user
    uid: int
    env: dict[str, str]  # the image's environment (ENV lines, PATH, PYTHONPATH), paths mapped here

    @property
    def app(self) -> Path:
        return self.base / "app"

    def run(self, argv: list[str], env: Mapping[str, str], **kw) -> subprocess.CompletedProcess:
        return subprocess.run(self.prefix + argv, cwd=self.app, env={**self.env, **env}, capture_output=True,
                              text=True, timeout=START_S, **kw)


def _copy_like_the_dockerfile(app: Path) -> None:
    patterns = ignore_patterns()
    for sources, dest in copies():
        for src in sources:
            source, target = ROOT / src, app / dest
            if dest.endswith("/") and source.is_file():
                target = target / source.name
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True, ignore=lambda d, names: [
                    n for n in names if ignored(str((Path(d) / n).relative_to(ROOT)), patterns)])
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


def _launchers(bin_dir: Path, python: Path) -> None:
    """``agreebound`` (what pip's console script does) and ``python`` for the image's PATH."""
    script = bin_dir / "agreebound"
    script.write_text(f"#!{python}\nimport sys\nfrom agreebound.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    (bin_dir / "python").symlink_to(python)


@pytest.fixture(scope="module")
def image() -> Iterator[Image]:
    root = os.geteuid() == 0
    found = _python_for_others() if root else (Path(sys.executable), [])
    if found is None:
        pytest.skip("running as root, and no Python interpreter here can be started by an unprivileged user")
    python, site = found
    base = Path(tempfile.mkdtemp(prefix="agreebound-image-"))
    try:
        base.chmod(0o755)
        for d in ("app", "home", "tmp", "bin"):
            (base / d).mkdir(mode=0o755 if d in ("app", "bin") else 0o700)
        _copy_like_the_dockerfile(base / "app")
        _launchers(base / "bin", python)
        uid = RUN_UID if root else os.geteuid()
        if root:
            for d in ("home", "tmp"):
                os.chown(base / d, RUN_UID, RUN_GID)
        mapped = {k: v.replace(IMAGE_HOME, str(base / "home")).replace(IMAGE_WORKDIR, str(base / "app"))
                  for k, v in image_env().items()}
        env = {"PATH": f"{base / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": str(base / "tmp"), **mapped,
               "PYTHONPATH": os.pathsep.join([str(base / "app" / "src"), *site])}
        prefix = [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={RUN_UID}", f"--regid={RUN_GID}",
                  "--clear-groups"] if root else []
        if root and not all(_others_can_run(Path(p)) for p in site):
            # The tests' venv lies under a folder closed to others (CI's fresh clone is in `mktemp -d`,
            # mode 0700), which the image's /usr/local does not. The server's user may then read and
            # search (never write) what it imports: it still runs as uid 65534 and writes only its
            # own home and tmp.
            prefix += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
        yield Image(base, prefix, uid, env)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _oidc():
    """tests/app/oidc.py, the mock OpenID Connect provider (tests/app is not a package)."""
    if "oidc" in sys.modules:
        return sys.modules["oidc"]
    spec = importlib.util.spec_from_file_location("oidc", ROOT / "tests" / "app" / "oidc.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["oidc"] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Server:
    url: str
    port: int
    proc: subprocess.Popen
    log: Path
    env: dict[str, str]  # compose's environment with the test values
    dbname: str

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _compose_env(idp_metadata_url: str, port: int, pg, dbname: str) -> dict[str, str]:
    """compose's dashboard environment with test values in .env, and the database URL pointed from
    compose's ``db`` service at a fresh database on the tests' PostgreSQL server."""
    values = {"POSTGRES_PASSWORD": "deploytest0123456789", "AGREEBOUND_OIDC_METADATA_URL": idp_metadata_url,
              "AGREEBOUND_OIDC_CLIENT_ID": "agreebound-deploy-test",
              "AGREEBOUND_OIDC_CLIENT_SECRET": "deploy-test-client-secret",
              "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
              "AGREEBOUND_COOKIE_SECRET": secrets.token_hex(32), "AGREEBOUND_ADMINS": "alice@a.example",
              "AGREEBOUND_UPLOAD_MB": "50", "AGREEBOUND_RETENTION_DAYS": "30"}
    env = dashboard_env(values)
    url = sa.make_url(env[store.ENV])
    assert (url.host, url.port, url.database) == ("db", 5432, "agreebound"), env[store.ENV]
    env[store.ENV] = url.set(host="127.0.0.1", port=pg.port, database=dbname).render_as_string(hide_password=False)
    return env


def _stop(proc: subprocess.Popen) -> None:
    """End the command's whole process group (agreebound serve and the Streamlit it started)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _wait_healthy(proc: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200 and r.read() == b"ok":
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-4000:]
    raise AssertionError(f"not healthy within {START_S} s (exit {proc.poll()}):\n{tail}")


@pytest.fixture(scope="module")
def idp():
    with _oidc().provider() as running:
        running.add_user("alice", email="alice@a.example", name="Alice A", team="red")
        yield running


@pytest.fixture(scope="module")
def server(image: Image, idp, pg_server) -> Iterator[Server]:
    """The Dockerfile's CMD (with --port N appended), started as the image's user in the image's
    layout, with compose's environment; its process group is ended afterwards."""
    port = _free_port()
    dbname = pg_server.create_database()
    env = _compose_env(idp.metadata_url, port, pg_server, dbname)
    (image.app / "static").mkdir()  # a static/ folder beside app.py: must not be served
    (image.app / "static" / "probe.txt").write_text("PROBE-STATIC\n")
    log = image.base / "server.log"
    cmd = exec_form(the("CMD")[0]) + ["--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(image.prefix + cmd, cwd=image.app, env={**image.env, **env}, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url, log)
        yield Server(url, port, proc, log, env, dbname)
    finally:
        _stop(proc)
        try:
            pg_server.drop_database(dbname)
        except Exception:  # noqa: BLE001 - the session's server is thrown away at the end anyway
            pass


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").decode().split("\0")


def _streamlit_argv(server: Server) -> list[str]:
    """The running server's command line. ``serve`` replaces itself with Streamlit (exec), so the
    process compose starts, the one ``docker stop`` signals, is Streamlit itself."""
    argv = _cmdline(server.proc.pid)
    assert argv[1:3] == ["-m", "streamlit"], f"the started process is not Streamlit: {argv}"
    return argv


def test_the_start_command_becomes_healthy(server: Server, image: Image):
    with urllib.request.urlopen(server.url + "/_stcore/health", timeout=5) as r:
        assert (r.status, r.read()) == (200, b"ok")
    check = [arg.replace(f":{IMAGE_PORT}/", f":{server.port}/") for arg in healthcheck_cmd()]
    assert check != healthcheck_cmd()
    done = image.run(check, {})
    assert done.returncode == 0, done.stderr
    missed = image.run([arg.replace(f":{server.port}/", f":{_free_port()}/") for arg in check], {})
    assert missed.returncode != 0, "the health check must fail when nothing answers"


def test_the_start_command_sets_the_protections(server: Server, image: Image):
    argv = _streamlit_argv(server)
    # the dashboard is found through the package (agreebound.resources): agreebound/site/app.py
    assert argv[1:4] == ["-m", "streamlit", "run"] and argv[4].endswith("/agreebound/site/app.py")
    options = dict(a.removeprefix("--").split("=", 1) for a in argv[5:])
    assert options == {**serve.FIXED, "server.address": "0.0.0.0", "server.port": str(server.port),
                       "server.maxUploadSize": "50", "secrets.files": options["secrets.files"]}
    secrets_file = Path(options["secrets.files"])
    assert secrets_file.is_relative_to(image.base / "tmp")
    info = secrets_file.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_uid) == (0o600, image.uid)
    assert server.env["AGREEBOUND_OIDC_CLIENT_SECRET"] in secrets_file.read_text()
    # XSRF protection: an upload without the token is refused.
    upload = urllib.request.Request(server.url + "/_stcore/upload_file/s/f", data=b"x", method="PUT")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(upload, timeout=5)
    assert refused.value.code == 403
    # Cross-origin access refused: another site's preflight is not allowed its origin.
    preflight = urllib.request.Request(server.url + "/_stcore/upload_file/s/f", method="OPTIONS", headers={
        "Origin": EVIL_ORIGIN, "Access-Control-Request-Method": "PUT"})
    with urllib.request.urlopen(preflight, timeout=5) as r:
        assert r.headers.get("access-control-allow-origin") not in ("*", EVIL_ORIGIN)
    # No static serving: the planted file is not what comes back (Streamlit answers with its page).
    with urllib.request.urlopen(server.url + "/app/static/probe.txt", timeout=5) as r:
        assert b"PROBE-STATIC" not in r.read()


def test_the_start_command_opens_the_database(server: Server, pg_server):
    """AGREEBOUND_RETENTION_DAYS is applied at start: the store at compose's URL was opened (its
    schema created in the fresh database) and pruned."""
    assert "agreebound serve: retention: deleted 0 run(s) older than 30 days" in server.output()
    with pg_server.connect(server.dbname) as conn:
        tables = {r[0] for r in conn.execute("select tablename from pg_tables where schemaname = 'public'")}
    assert {"agreebound_runs", "agreebound_migrations"} <= tables


def test_check_with_the_same_environment_is_safe(server: Server, image: Image, pg_server):
    done = image.run(["agreebound", "serve", "--check", "--host", "0.0.0.0", "--auth"], server.env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("sign-in: on, provider " + server.env["AGREEBOUND_OIDC_METADATA_URL"]) for line in lines)
    assert f"store: postgresql://agreebound:***@127.0.0.1:{pg_server.port}/{server.dbname}" in lines
    assert "upload limit: 50 MB per file" in lines and lines[-1] == "safe to serve"
    assert not any(line.startswith("UNSAFE") for line in lines)


def test_without_a_sign_in_provider_the_command_refuses(server: Server, image: Image):
    env = {k: v for k, v in server.env.items() if k not in serve.OIDC_ENV.values()}
    done = image.run(exec_form(the("CMD")[0]) + ["--port", str(_free_port())], env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--auth needs a sign-in provider: set AGREEBOUND_OIDC_METADATA_URL" in done.stderr


def test_a_visitor_signs_in_and_the_pages_draw(server: Server, playwright):
    """The whole path: compose's sign-in variables -> serve's secrets file -> st.login against the
    provider -> the dashboard's first page (the bundled samples) and the help page (docs/), read
    from the image's layout."""
    oidc = _oidc()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
    try:
        page = browser.new_context().new_page()
        page.goto(server.url)
        oidc.sign_in(page, server.url, "alice")
        for path in ("", "/help"):
            if path:
                page.goto(server.url + path)
                page.wait_for_selector(oidc.IDLE, timeout=60_000)
            assert page.locator("[data-testid='stException']").count() == 0, path
            alerts = page.locator("[data-testid='stAlertContainer']").all_inner_texts()
            assert not [a for a in alerts if "went wrong" in a], (path, alerts)
        assert page.get_by_role("heading", name="Input formats").count() == 1
    finally:
        browser.close()
