"""The deployment recipe (Dockerfile, .dockerignore, compose.yaml, deploy/env.example,
deploy/constraints.txt), read and held to the code, in a few seconds and without a container
runtime:

- every variable compose gives the dashboard is one agreebound reads; the password and every
  sign-in variable are required (``${VAR:?...}``); the defaults are agreebound's own; the example
  .env lists every variable with a comment and no secret;
- the Dockerfile's base is pinned by digest and can be replaced (``--build-arg BASE``); the image
  installs the wheel (not editable) with the [postgres] extra and the constraints; its user, health
  check and command; every file it copies exists and is in the build context, the dashboard's
  links among them;
- deploy/constraints.txt pins every dependency the wheel names, at a version that satisfies it.

tests/app/test_container.py builds the image and runs it (and compose.yaml) with podman.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from agreebound.app import access
from agreebound.core import limits
from agreebound.app import serve
from agreebound.app import store

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = ROOT / "compose.yaml"
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
CONSTRAINTS = ROOT / "deploy" / "constraints.txt"

SERVE_CMD = ["agreebound", "serve", "--host", "0.0.0.0", "--port", "8501", "--auth"]
IMAGE_PORT = "8501"
IMAGE_HOME = "/home/agreebound"
VENV = "/opt/agreebound"
REQUIRED = ("POSTGRES_PASSWORD", *serve.OIDC_ENV.values())


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


def final_stage() -> list[tuple[str, str]]:
    """The instructions of the image itself: those after the last FROM."""
    steps = dockerfile()
    last = max(i for i, (k, _) in enumerate(steps) if k == "FROM")
    return steps[last:]


def the(keyword: str, steps: list[tuple[str, str]] | None = None) -> list[str]:
    return [args for k, args in (final_stage() if steps is None else steps) if k == keyword]


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
    """Every ENV instruction's KEY=VALUE pairs of the image's stage, in order."""
    env: dict[str, str] = {}
    for args in the("ENV"):
        for word in shlex.split(args):
            key, sep, value = word.partition("=")
            assert sep, f"ENV {args}: use KEY=VALUE"
            env[key] = value
    return env


def copies() -> list[tuple[list[str], str]]:
    """Each COPY from the build context (not from another stage): (sources, destination)."""
    out = []
    for args in the("COPY", dockerfile()):
        words = exec_form(args) if args.startswith("[") else shlex.split(args)
        if any(w.startswith("--from") for w in words):
            continue
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


def test_compose_passes_every_setting_of_a_deployment():
    """A variable compose does not pass is one a team sets in .env to no effect. Left out: the
    terminal's own (who runs a command: AGREEBOUND_USER, AGREEBOUND_TEAM) and serve's note to the
    server it starts."""
    raw = compose()["services"]["dashboard"]["environment"]
    own = {access.USER_ENV, access.TEAM_ENV, serve.REQUIRE_SIGNIN_ENV}
    assert variables_read() - own <= set(raw), variables_read() - own - set(raw)


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
    # The base: python:3.11-slim pinned by digest by default, replaceable with --build-arg BASE=...
    args = {a.split("=", 1)[0]: a.split("=", 1)[1].strip('"') for k, a in steps if k == "ARG" and "=" in a}
    assert re.fullmatch(r"python:3\.11-slim@sha256:[0-9a-f]{64}", args["BASE"]), args["BASE"]
    assert steps[0][0] == "ARG", "BASE is declared before the first FROM, so FROM can use it"
    assert [a.split()[0] for a in the("FROM", steps)] == ["${BASE}", "${BASE}"]
    assert args["PIP_ARGS"] == "", "the default build installs from PyPI, as users' builds do"
    pips = [a for a in the("RUN", steps) if "pip " in a]
    assert pips and all("${PIP_ARGS}" in a for a in pips), "every pip command takes PIP_ARGS (the test's wheelhouse)"
    # The image: the wheel, not editable, with the [postgres] extra and the constraints, in a venv.
    keywords = [k for k, _ in final_stage()]
    (install,) = [a for a in the("RUN") if " install " in a]
    assert "-e " not in install and "--editable" not in install, install
    assert f"python3 -m venv {VENV}" in install and ".whl" in install and "[postgres]" in install
    assert re.search(r"--constraint /\S+constraints\.txt", install), install
    assert (["deploy/constraints.txt"], "/opt/agreebound-constraints.txt") in copies()
    assert keywords.count("USER") == 1 and keywords.count("CMD") == 1
    (user,) = the("USER")
    assert user not in ("root", "0") and not user.startswith(("root:", "0:")), user
    assert keywords.index("USER") > max(i for i, k in enumerate(keywords) if k == "RUN"), "USER after the last RUN"
    assert keywords.index("USER") < keywords.index("CMD")
    assert any("--uid 10001" in args and user in args for args in the("RUN")), "a fixed uid for the user"
    assert the("WORKDIR") == [IMAGE_HOME] and the("EXPOSE") == [IMAGE_PORT]
    env = image_env()
    assert env["XDG_DATA_HOME"].startswith(IMAGE_HOME + "/") and env["PYTHONUNBUFFERED"] == "1"
    assert env["PATH"].startswith(f"{VENV}/bin:"), "the venv's agreebound and python come first"
    assert f"http://127.0.0.1:{IMAGE_PORT}/_stcore/health" in " ".join(healthcheck_cmd())
    assert healthcheck_cmd()[0] == "python", "slim has no curl: the health check is Python's urllib"
    assert exec_form(the("CMD")[0]) == SERVE_CMD


def test_every_copied_file_exists_and_is_in_the_build_context():
    patterns = ignore_patterns()
    assert not any(p.startswith("!") for p in patterns), "exceptions (!) are not modelled here"
    for must in (".venv", "artifacts", "tests", ".git", "**/__pycache__", ".env", "**/secrets.toml", "dist", "build"):
        assert must in patterns, f".dockerignore must leave out {must}"
    copied = [src for sources, _ in copies() for src in sources]
    for src in ("pyproject.toml", "README.md", "LICENSE", "src/", "app.py", "pages/", ".streamlit/config.toml",
                "sample_data/", "docs/", "schemas/", "deploy/constraints.txt"):
        assert src in copied, f"the Dockerfile does not copy {src}"
    for src in copied:
        path = ROOT / src
        assert path.exists(), f"COPY {src}: no such file in the repository"
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        kept = [p for p in files if not ignored(str(p.relative_to(ROOT)), patterns)]
        assert kept, f"COPY {src}: .dockerignore leaves all of it out of the build context"
        assert not ignored(src.rstrip("/"), patterns), f"COPY {src}: .dockerignore leaves it out"


def test_the_wheel_stage_has_what_the_dashboard_links_to():
    """src/agreebound/site links to the top-level app.py, pages/, docs/... (pyproject.toml's
    package-data): the wheel stage copies each target to the same place beside src/, or the wheel
    would be built without the dashboard."""
    copied = {src.rstrip("/") for sources, _ in copies() for src in sources}
    links = [p for p in (ROOT / "src" / "agreebound" / "site").rglob("*") if p.is_symlink()]
    assert links, "agreebound/site holds links to the dashboard's files"
    for link in links:
        target = link.resolve().relative_to(ROOT)
        assert any(target == Path(c) or Path(c) in target.parents for c in copied), f"{link} -> {target}: not copied"


def test_constraints_pin_every_dependency_the_wheel_names():
    """deploy/constraints.txt (deploy/lock.py writes it) pins the wheel's dependencies and the
    [postgres] extra's, each exactly and at a version its requirement allows; the image's own
    `pip freeze` is compared with it whole in tests/app/test_container.py."""
    lines = [line for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    pinned = {}
    for line in lines:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!-]+", line), f"not name==version: {line}"
        name, _, version = line.partition("==")
        pinned[re.sub(r"[-_.]+", "-", name).lower()] = version
    assert "agreebound" not in pinned, "the wheel itself is built from the source, never pinned"
    assert "deploy/lock.py" in CONSTRAINTS.read_text(encoding="utf-8"), "the file says how it is regenerated"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for spec in [*project["dependencies"], *project["optional-dependencies"]["postgres"]]:
        req = Requirement(spec)
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        assert name in pinned, f"{spec} is not pinned in {CONSTRAINTS.name}"
        assert req.specifier.contains(pinned[name], prereleases=True), f"{spec}: pinned {pinned[name]}"
    assert {"psycopg", "psycopg-binary"} <= pinned.keys(), "psycopg[binary]: its binary wheel too"
