"""The container, built and run: the Dockerfile's image with podman, and compose.yaml with podman-compose.

No registry image can be pulled here, so the base is made on this machine: a Debian bookworm root
(`mmdebstrap --variant=apt --include=python3,python3-venv,ca-certificates bookworm`) imported with
`podman import` and given to the Dockerfile as ``--build-arg BASE=...``. pip inside the build has none
of this machine's index settings, so the wheels of agreebound's dependencies are gathered here first
(`pip wheel -c deploy/constraints.txt` of what pyproject.toml names, the [postgres] extra and the
build's setuptools included: the wheelhouse; mmdebstrap runs meanwhile), mounted into the build
(`podman build -v WHEELHOUSE:/wheelhouse:ro`) and installed with ``--build-arg PIP_ARGS="--no-index
--find-links /wheelhouse"``. Everything else is the default build: the wheel built from the source in
the Dockerfile's first stage, installed (not editable) with the [postgres] extra and the constraints.

Podman runs here as DESIGN.md section 7 says: the runc runtime, the cgroupfs cgroup manager, host
networking, no default ulimits; these and a storage of its own (removed afterwards) are in the
containers.conf and storage.conf this module writes, which podman-compose's podman calls read too.
With host networking a container reaches the tests' PostgreSQL server and OpenID Connect provider on
127.0.0.1, and listens on the host's ports itself: the serve command gets ``--port N`` (a free
port) appended (argparse keeps the last), and the health check's URL the same port.

Skipped, with the reason, only where podman cannot run at all; under CI (CI=true) that is a failure,
since `make test` installs podman, runc and mmdebstrap (`make podman`).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from agreebound.app import serve
from agreebound.app import store

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "deploy" / "constraints.txt"
COMPOSE = ROOT / "compose.yaml"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
VENV_BIN = Path(sys.executable).parent

SERVE_CMD = ["agreebound", "serve", "--host", "0.0.0.0", "--port", "8501", "--auth"]
BASE_TAG = "localhost/agreebound-test-base:bookworm"
IMAGE_TAG = "localhost/agreebound-test:latest"
WHEELHOUSE_IN_BUILD = "/wheelhouse"
PIP_ARGS = f"--no-index --find-links {WHEELHOUSE_IN_BUILD}"
UID = 10001
START_S = 90
EVIL_ORIGIN = "http://evil.example"
#: What the base needs (mmdebstrap's Debian packages): Python with its venv module, and the CA bundle
#: pip would use against an index.
BASE_PACKAGES = "python3,python3-venv,ca-certificates"
NEEDED = ("podman", "runc", "mmdebstrap")


def _unavailable(reason: str) -> None:
    """Skip here; fail under CI, where `make test` has installed podman and what it needs."""
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{reason} (CI=true: `make test` installs them through `make podman`)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def canonical(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    """``name==version`` lines (pip freeze's, or deploy/constraints.txt's) by canonical name."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "==" in line:
            name, _, version = line.partition("==")
            out[canonical(name)] = version.strip()
    return out


# --- podman, configured for this machine ---------------------------------------------------------


@dataclass
class Podman:
    """podman with this module's containers.conf and storage (``env``), and the times measured."""

    home: Path
    env: dict[str, str]
    times: dict[str, float] = field(default_factory=dict)

    def __call__(self, *args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(["podman", *args], env=self.env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        if check and done.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)[:300]} exited {done.returncode}:\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def timed(self, what: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
        t0 = time.perf_counter()
        done = self(*args, timeout=timeout)
        self.times[what] = time.perf_counter() - t0
        return done

    def inspect(self, kind: str, name: str) -> dict:
        return json.loads(self(kind, "inspect", name).stdout)[0]


def _conf(home: Path) -> dict[str, str]:
    """containers.conf and storage.conf under ``home``; the environment that points podman at them."""
    (home / "containers.conf").write_text(
        "[containers]\n"
        "# the sandbox refuses podman's default ulimits\n"
        "default_ulimits = []\n"
        'netns = "host"\n'
        "[engine]\n"
        '# crun is refused by the sandbox; no systemd here\n'
        'runtime = "runc"\n'
        'cgroup_manager = "cgroupfs"\n'
        'events_logger = "file"\n'
        f'events_logfile_path = "{home}/events.log"\n'
        f'tmp_dir = "{home}/libpod"\n')
    (home / "storage.conf").write_text(
        f'[storage]\ndriver = "overlay"\ngraphroot = "{home}/storage"\nrunroot = "{home}/run"\n')
    return {"PATH": f"{VENV_BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8",
            "CONTAINERS_CONF": str(home / "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(home / "storage.conf")}


def _unmount_under(path: Path) -> None:
    """Whatever the storage left mounted under ``path`` (a container killed mid-way)."""
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for target in sorted((m for m in mounts if m.startswith(str(path) + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", target], capture_output=True)


@pytest.fixture(scope="module")
def podman() -> Iterator[Podman]:
    missing = [p for p in NEEDED if shutil.which(p, path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
               is None]
    if missing:
        _unavailable(f"the container test needs {', '.join(missing)} (Debian packages; `make podman` installs them)")
    if os.geteuid() != 0:
        _unavailable("the container test runs podman as root (rootless podman needs subordinate ids set up here)")
    home = Path(tempfile.mkdtemp(prefix="agreebound-podman-"))
    p = Podman(home, _conf(home))
    try:
        info = p("info", "--format", "json", check=False, timeout=120)
        if info.returncode != 0:
            _unavailable(f"podman cannot run here: {(info.stderr or info.stdout).strip()[-500:]}")
        yield p
    finally:
        p("rm", "--all", "--force", "--time", "0", check=False, timeout=120)
        p("rmi", "--all", "--force", check=False, timeout=300)
        _unmount_under(home)
        shutil.rmtree(home, ignore_errors=True)
        if p.times:
            print("\ncontainer test times: " + ", ".join(f"{k} {v:.1f} s" for k, v in p.times.items()))


@dataclass
class Debootstrap:
    """mmdebstrap making the base's root in the background, while the wheelhouse is gathered."""

    proc: subprocess.Popen
    tar: Path
    log: Path
    started: float


@pytest.fixture(scope="module")
def debootstrap(podman: Podman) -> Iterator[Debootstrap]:
    tar, log = podman.home / "base.tar", podman.home / "mmdebstrap.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(["mmdebstrap", "--quiet", "--variant=apt", f"--include={BASE_PACKAGES}", "bookworm",
                                 str(tar)], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield Debootstrap(proc, tar, log, time.perf_counter())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def wheelhouse(podman: Podman, debootstrap: Debootstrap) -> Path:
    """Wheels of every dependency the wheel names, with the [postgres] extra, at the pinned versions,
    and setuptools for the wheel stage's build (pyproject.toml's build-system), gathered with this
    machine's pip settings. agreebound's own wheel is built in the image's first stage."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [*project["project"]["dependencies"], *project["project"]["optional-dependencies"]["postgres"],
              *project["build-system"]["requires"]]
    found = podman.home / "wheelhouse"
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(found),
                           "--constraint", str(CONSTRAINTS), *wanted],
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    podman.times["wheelhouse"] = time.perf_counter() - t0
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return found


@pytest.fixture(scope="module")
def base_image(podman: Podman, debootstrap: Debootstrap, wheelhouse: Path) -> str:
    """The Debian bookworm root the image is built on, in place of python:3.11-slim."""
    code = debootstrap.proc.wait(timeout=900)
    podman.times["base (mmdebstrap, beside the wheelhouse)"] = time.perf_counter() - debootstrap.started
    assert code == 0, f"mmdebstrap exited {code}:\n{debootstrap.log.read_text(errors='replace')[-4000:]}"
    podman.timed("base (podman import)", "import", str(debootstrap.tar), BASE_TAG)
    debootstrap.tar.unlink()
    return BASE_TAG


def _build_args(base: str, wheels: Path) -> list[str]:
    """What the test adds to the default build: its base, its wheelhouse, Docker's image format (podman
    keeps a HEALTHCHECK only there) and no pulling."""
    return ["--format", "docker", "--pull=never", "--volume", f"{wheels}:{WHEELHOUSE_IN_BUILD}:ro",
            "--build-arg", f"BASE={base}", "--build-arg", f"PIP_ARGS={PIP_ARGS}"]


@dataclass(frozen=True)
class Image:
    tag: str
    config: dict  # the image's own config: User, Env, Cmd, WorkingDir, Healthcheck
    site: str  # agreebound/site inside the image: the dashboard as the wheel installed it
    freeze: str  # `pip freeze` in the image


def _describe(podman: Podman, tag: str) -> Image:
    probe = ("import json, os, agreebound.app.resources as r, agreebound; d = os.path.dirname(agreebound.__file__); "
             "print(json.dumps({'site': str(r.app_script().parent), 'package': d, 'uid': os.getuid(), "
             "'writable': [p for p in (d, os.path.dirname(d), '/opt/agreebound/bin') if os.access(p, os.W_OK)], "
             "'home': os.access(os.environ['HOME'], os.W_OK)}))")
    seen = json.loads(podman("run", "--rm", tag, "python", "-c", probe).stdout)
    assert seen["uid"] == UID, seen
    assert seen["writable"] == [] and seen["home"], f"the code must be read-only to the server's user: {seen}"
    assert seen["package"].startswith("/opt/agreebound/lib/python3") and seen["package"].endswith(
        "/site-packages/agreebound"), seen
    freeze = podman("run", "--rm", tag, "python", "-m", "pip", "freeze").stdout
    found = podman.inspect("image", tag)
    # podman's inspect puts the HEALTHCHECK beside the config (kept only in Docker's image format)
    return Image(tag, {**found["Config"], "Healthcheck": found.get("Healthcheck")}, seen["site"], freeze)


@pytest.fixture(scope="module")
def image(podman: Podman, base_image: str, wheelhouse: Path) -> Image:
    podman.timed("image build", "build", *_build_args(base_image, wheelhouse), "--tag", IMAGE_TAG, str(ROOT))
    return _describe(podman, IMAGE_TAG)


# --- a sign-in provider and a running server -----------------------------------------------------


def _oidc():
    """tests/support/oidc.py, the mock OpenID Connect provider."""
    from tests.support import oidc

    return oidc


@pytest.fixture(scope="module")
def idp():
    with _oidc().provider() as running:
        running.add_user("alice", email="alice@a.example", name="Alice A", team="red", email_verified=True)
        yield running


def _healthcheck(image: Image, port: int) -> list[str]:
    """The image's HEALTHCHECK command (exec form, "CMD" dropped) asking ``port`` instead of 8501."""
    test = image.config["Healthcheck"]["Test"]
    assert test[0] == "CMD", test
    return [arg.replace("127.0.0.1:8501/", f"127.0.0.1:{port}/") for arg in test[1:]]


def _wait_healthy(podman: Podman, name: str, url: str) -> None:
    deadline = time.monotonic() + START_S
    last_state = time.monotonic()
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200 and r.read() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() - last_state > 2:
            last_state = time.monotonic()
            if podman("inspect", "--format", "{{.State.Running}}", name).stdout.strip() != "true":
                break
        time.sleep(0.3)
    logs = podman("logs", name, check=False)
    raise AssertionError(f"{name} not healthy within {START_S} s:\n{logs.stdout[-3000:]}\n{logs.stderr[-3000:]}")


@dataclass
class Server:
    name: str
    url: str
    port: int
    env: dict[str, str]
    dbname: str


def _server_env(idp_metadata_url: str, port: int, db_url: str) -> dict[str, str]:
    return {store.ENV: db_url, "AGREEBOUND_OIDC_METADATA_URL": idp_metadata_url,
            "AGREEBOUND_OIDC_CLIENT_ID": "agreebound-container-test",
            "AGREEBOUND_OIDC_CLIENT_SECRET": "container-test-client-secret",
            "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
            "AGREEBOUND_COOKIE_SECRET": secrets.token_hex(32), "AGREEBOUND_ADMINS": "alice@a.example",
            "AGREEBOUND_ALLOWED": "@a.example", "AGREEBOUND_UPLOAD_MB": "50", "AGREEBOUND_RETENTION_DAYS": "30"}


def _pg_url(pg_server, dbname: str, password: str | None = None) -> str:
    """The database as a container on the host's network reaches it (compose's URL form)."""
    auth = f"agreebound:{password}" if password else "agreebound"
    return f"postgresql://{auth}@127.0.0.1:{pg_server.port}/{dbname}"


@pytest.fixture(scope="module")
def server(podman: Podman, image: Image, idp, pg_server) -> Iterator[Server]:
    """The image's own command (``--port N`` appended) in a container with compose's security options,
    a fresh database on the tests' PostgreSQL server and the tests' provider. A static/ folder with a
    probe file is put beside the installed app.py before the start: it must not be served."""
    port = _free_port()
    dbname = pg_server.create_database()
    env = _server_env(idp.metadata_url, port, _pg_url(pg_server, dbname))
    name = f"agreebound-test-{port}"
    health = json.dumps(_healthcheck(image, port))
    args = ["create", "--name", name, "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
            "--health-cmd", health, "--health-interval", "disable"]
    for k, v in env.items():
        args += ["--env", f"{k}={v}"]
    podman(*args, image.tag, *image.config["Cmd"], "--port", str(port))
    static = podman.home / "static"
    static.mkdir()
    (static / "probe.txt").write_text("PROBE-STATIC\n")
    podman("cp", str(static), f"{name}:{image.site}/static")
    t0 = time.perf_counter()
    podman("start", name)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(podman, name, url)
        podman.times["server start to healthy"] = time.perf_counter() - t0
        yield Server(name, url, port, env, dbname)
    finally:
        podman("rm", "--force", "--time", "5", name, check=False)
        try:
            pg_server.drop_database(dbname)
        except Exception:  # noqa: BLE001 - the session's server is thrown away at the end anyway
            pass


# --- the image ----------------------------------------------------------------------------------


def test_the_image_installs_the_wheel_at_the_pinned_versions(image: Image):
    """Not editable: agreebound is the wheel built in the Dockerfile's first stage, and every other
    distribution is at the version deploy/constraints.txt pins, none missing, none more."""
    lines = image.freeze.splitlines()
    assert not [line for line in lines if line.startswith("-e")], image.freeze
    (own,) = [line for line in lines if canonical(line.split()[0].split("==")[0]) == "agreebound"]
    assert re.fullmatch(r"agreebound @ file:///tmp/wheels/agreebound-[^/]+-py3-none-any\.whl", own), own
    installed = {k: v for k, v in pins(image.freeze).items() if k != "agreebound"}
    pinned = pins(CONSTRAINTS.read_text(encoding="utf-8"))
    assert installed == pinned, {"not pinned": sorted(installed.keys() - pinned.keys()),
                                 "pinned, not installed": sorted(pinned.keys() - installed.keys()),
                                 "other version": sorted(k for k in installed.keys() & pinned.keys()
                                                         if installed[k] != pinned[k])}
    assert {"psycopg", "psycopg-binary", "streamlit"} <= installed.keys()  # the [postgres] extra's driver too


def test_the_image_runs_as_its_user_with_its_command_and_health_check(image: Image):
    config = image.config
    assert config["User"] == "agreebound"
    assert config["Cmd"] == SERVE_CMD
    assert config["Healthcheck"]["Test"][:2] == ["CMD", "python"]
    assert "http://127.0.0.1:8501/_stcore/health" in " ".join(config["Healthcheck"]["Test"])
    env = dict(item.split("=", 1) for item in config["Env"])
    assert env["PATH"].startswith("/opt/agreebound/bin:") and env["HOME"] == "/home/agreebound"
    assert image.site.endswith("/site-packages/agreebound/site"), image.site


def test_without_sign_in_settings_the_image_refuses_to_start(podman: Podman, image: Image):
    done = podman("run", "--rm", image.tag, check=False, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--auth needs a sign-in provider: set AGREEBOUND_OIDC_METADATA_URL" in done.stderr


# --- the image, running --------------------------------------------------------------------------


def test_the_server_answers_its_health_check(podman: Podman, server: Server, image: Image):
    with urllib.request.urlopen(server.url + "/_stcore/health", timeout=5) as r:
        assert (r.status, r.read()) == (200, b"ok")
    checked = podman("healthcheck", "run", server.name, check=False, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert podman("exec", server.name, *_healthcheck(image, server.port), check=False).returncode == 0
    missed = podman("exec", server.name, *_healthcheck(image, _free_port()), check=False)
    assert missed.returncode != 0, "the health check must fail when nothing answers"


def test_the_server_is_the_installed_dashboard_with_the_protections(podman: Podman, server: Server, image: Image):
    """PID 1 is Streamlit (serve replaced itself: a stop signal reaches it) running the installed
    package's app.py, with the fixed protections; the sign-in file is the server user's alone."""
    argv = podman("exec", server.name, "cat", "/proc/1/cmdline").stdout.rstrip("\0").split("\0")
    assert argv[1:4] == ["-m", "streamlit", "run"] and argv[4] == f"{image.site}/app.py", argv
    options = dict(a.removeprefix("--").split("=", 1) for a in argv[5:])
    assert options == {**serve.FIXED, "server.address": "0.0.0.0", "server.port": str(server.port),
                       "server.maxUploadSize": "50", "secrets.files": options["secrets.files"]}
    secrets_file = options["secrets.files"]
    assert secrets_file.startswith("/tmp/"), secrets_file
    mode, uid = podman("exec", server.name, "stat", "-c", "%a %u", secrets_file).stdout.split()
    assert (mode, uid) == ("600", str(UID))
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


def test_the_server_reaches_postgresql(podman: Podman, server: Server, pg_server):
    """At its start the server opened the store (retention applied, the schema created in the fresh
    database); `serve --check` inside names it; a run recorded from inside lands in it."""
    logs = podman("logs", server.name)
    assert "agreebound serve: retention: deleted 0 run(s) older than 30 days" in logs.stdout + logs.stderr
    check = podman("exec", server.name, "agreebound", "serve", "--check", "--host", "0.0.0.0", "--auth", check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    lines = check.stdout.splitlines()
    assert f"store: postgresql://agreebound@127.0.0.1:{pg_server.port}/{server.dbname}" in lines, lines
    assert any(line.startswith("sign-in: on, provider ") for line in lines) and lines[-1] == "safe to serve"
    recorded = podman("exec", server.name, "sh", "-c", "agreebound samples >/dev/null && agreebound panel "
                      "sample_data/detector_panel.csv --record --label from-the-container >/dev/null", check=False)
    assert recorded.returncode in (0, 1, 2), recorded.stdout + recorded.stderr  # a verdict, not an error
    with pg_server.connect(server.dbname) as conn:
        rows = conn.execute("select label, origin, kind from agreebound_runs").fetchall()
        migrated = [r[0] for r in conn.execute("select version from agreebound_migrations order by version")]
    assert rows == [("from-the-container", "cli", "panel")]
    assert migrated == [v for v, _, _ in store.MIGRATIONS], "a fresh database gets every migration, once"


def test_an_image_refuses_a_store_written_by_a_newer_agreebound(podman: Podman, image: Image, pg_server):
    """The README's upgrade section: an older image meeting a newer store leaves it untouched and
    says so (here: a store whose schema version is one past this image's)."""
    dbname = pg_server.create_database()
    try:
        url = _pg_url(pg_server, dbname)
        with store.Store.open(pg_server.url_for(dbname)):
            pass
        newer = store.SCHEMA_VERSION + 1
        with pg_server.connect(dbname) as conn:
            conn.execute("update agreebound_meta set value = %s where key = 'schema_version'", (str(newer),))
        done = podman("run", "--rm", "--env", f"{store.ENV}={url}", image.tag, "agreebound", "history", check=False)
        assert done.returncode == 3, done.stdout + done.stderr
        assert f"written by a newer agreebound (schema {newer};" in done.stderr and "left untouched" in done.stderr
        with pg_server.connect(dbname) as conn:
            assert conn.execute("select value from agreebound_meta where key = 'schema_version'").fetchone() == (
                str(newer),)
    finally:
        pg_server.drop_database(dbname)


def test_a_visitor_signs_in_and_the_pages_draw(server: Server, playwright):
    """Sign-in through the provider, the first page (the bundled samples) and the help page (the
    format reference), all read from the installed wheel."""
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


# --- compose.yaml, with podman-compose -----------------------------------------------------------


def _compose(podman: Podman, *args: str, timeout: float = 900, check: bool = True) -> subprocess.CompletedProcess:
    exe = shutil.which("podman-compose", path=podman.env["PATH"])
    assert exe, "podman-compose is in the test extras (pip install -e '.[test]')"
    done = subprocess.run([exe, *args], env=podman.env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=ROOT)
    if check and done.returncode != 0:
        raise AssertionError(f"podman-compose {' '.join(args)[:300]} exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def _dotenv(values: dict[str, str]) -> str:
    return "".join(f"{k}={v}\n" for k, v in values.items())


def test_compose_up_builds_and_starts_the_dashboard(podman: Podman, image: Image, base_image: str, wheelhouse: Path,
                                                    idp, pg_server):
    """compose.yaml through podman-compose, with a .env like deploy/env.example's: a missing sign-in
    value stops it with compose's own message; `up -d --build` builds the dashboard from compose's
    build context (a second build, without the cache: its `pip freeze` equals the first's) and starts
    it with compose's environment, user and security options; README step 5 (`exec dashboard
    agreebound serve --check`) says it is safe to serve.

    What differs from a team's host, in an override file beside compose.yaml: the base and the
    wheelhouse (build arguments), host networking with the serve command's port moved to a free one,
    and the `db` service replaced by the tests' PostgreSQL server, since postgres:16 cannot be pulled
    here: compose's AGREEBOUND_DB (checked first, as compose computes it) is pointed at it, and
    `up --no-deps` leaves `db` out."""
    work = podman.home / "compose"
    work.mkdir()
    port = _free_port()
    values = {"POSTGRES_PASSWORD": "composetest0123456789", "AGREEBOUND_OIDC_METADATA_URL": idp.metadata_url,
              "AGREEBOUND_OIDC_CLIENT_ID": "agreebound-compose-test",
              "AGREEBOUND_OIDC_CLIENT_SECRET": "compose-test-client-secret",
              "AGREEBOUND_OIDC_REDIRECT_URI": f"http://127.0.0.1:{port}/oauth2callback",
              "AGREEBOUND_COOKIE_SECRET": secrets.token_hex(32), "AGREEBOUND_ALLOWED": "@a.example",
              "AGREEBOUND_RETENTION_DAYS": "30"}
    project = f"agreebound-test-{port}"
    files = ["--in-pod", "false", "--project-name", project, "--file", str(COMPOSE)]

    # A required value left empty: compose stops, naming it, and creates nothing.
    (work / "incomplete.env").write_text(_dotenv({**values, "AGREEBOUND_OIDC_CLIENT_ID": ""}))
    stopped = _compose(podman, *files, "--env-file", str(work / "incomplete.env"), "config", check=False)
    assert stopped.returncode != 0 and "set AGREEBOUND_OIDC_CLIENT_ID in .env" in stopped.stderr, stopped.stderr[-2000:]

    env_file = work / "test.env"
    env_file.write_text(_dotenv(values))
    config = yaml.safe_load(_compose(podman, *files, "--env-file", str(env_file), "config").stdout)
    environment = config["services"]["dashboard"]["environment"]
    assert environment[store.ENV] == f"postgresql://agreebound:{values['POSTGRES_PASSWORD']}@db:5432/agreebound"

    dbname = pg_server.create_database()
    override = {"services": {"dashboard": {
        "build": {"args": {"BASE": base_image, "PIP_ARGS": PIP_ARGS}},
        "network_mode": "host",
        "command": [*config["services"]["dashboard"].get("command", image.config["Cmd"]), "--port", str(port)],
        "environment": {store.ENV: _pg_url(pg_server, dbname, values["POSTGRES_PASSWORD"])}}}}
    (work / "override.yaml").write_text(yaml.safe_dump(override))
    up = [*files, "--file", str(work / "override.yaml"), "--env-file", str(env_file)]
    # base and wheelhouse from the override's build args; the mount and the format here; no cache
    build_args = " ".join(["--format", "docker", "--pull=never", "--volume", f"{wheelhouse}:{WHEELHOUSE_IN_BUILD}:ro",
                           "--no-cache"])
    name = f"{project}_dashboard_1"
    try:
        t0 = time.perf_counter()
        _compose(podman, *up, "--podman-build-args", build_args, "up", "--detach", "--build", "--no-deps", "dashboard")
        podman.times["compose up --build (no cache)"] = time.perf_counter() - t0
        _wait_healthy(podman, name, f"http://127.0.0.1:{port}")

        check = _compose(podman, *up, "exec", "-T", "dashboard", "agreebound", "serve", "--check", "--host", "0.0.0.0",
                         "--auth", check=False)
        assert check.returncode == 0, check.stdout + check.stderr
        lines = check.stdout.splitlines()
        assert f"store: postgresql://agreebound:***@127.0.0.1:{pg_server.port}/{dbname}" in lines, lines
        assert any(line.startswith(f"sign-in: on, provider {idp.metadata_url}") for line in lines), lines
        assert lines[-1] == "safe to serve", lines
        logs = podman("logs", name)
        assert "agreebound serve: retention: deleted 0 run(s) older than 30 days" in logs.stdout + logs.stderr

        running = podman.inspect("container", name)
        host = running["HostConfig"]
        assert running["Config"]["User"] == "agreebound"
        assert running["State"]["Pid"] and podman("exec", name, "id", "-u").stdout.strip() == str(UID)
        assert running["EffectiveCaps"] in (None, []), running["EffectiveCaps"]  # cap_drop: [ALL]
        assert any("no-new-privileges" in opt for opt in host["SecurityOpt"]), host["SecurityOpt"]
        assert host["RestartPolicy"]["Name"] == "unless-stopped"

        built = _describe(podman, f"{project}_dashboard")
        assert built.freeze == image.freeze, "two builds of the same source resolved different versions"
    finally:
        _compose(podman, *up, "down", "--timeout", "5", check=False, timeout=300)
        try:
            pg_server.drop_database(dbname)
        except Exception:  # noqa: BLE001
            pass
