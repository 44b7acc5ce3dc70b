"""How ``agreebound serve`` starts the dashboard, and whether that is safe: the one place the
server's settings are chosen (bind address, sign-in, upload limit, XSRF and CORS protection, static
serving off, telemetry off). ``serve --check`` prints them and refuses an unsafe combination.

Sign-in is Streamlit's own (``st.login``, OpenID Connect through Authlib). It is on when an
``[auth]`` section is configured: from the environment (:data:`OIDC_ENV`, what a container is
given; written here to a private secrets file passed to Streamlit), or in a ``secrets.toml`` that
Streamlit reads itself (``.streamlit/secrets.toml`` beside the app, or in the home folder).
Without it the dashboard is single-user: it binds to this machine only unless told otherwise.
"""

from __future__ import annotations

import os
import stat
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agreebound.app.access import Settings, SettingError, settings
from agreebound.core.limits import UPLOAD_MB

LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
#: The sign-in provider from the environment: [auth] key -> variable.
OIDC_ENV = {"server_metadata_url": "AGREEBOUND_OIDC_METADATA_URL", "client_id": "AGREEBOUND_OIDC_CLIENT_ID",
            "client_secret": "AGREEBOUND_OIDC_CLIENT_SECRET", "redirect_uri": "AGREEBOUND_OIDC_REDIRECT_URI",
            "cookie_secret": "AGREEBOUND_COOKIE_SECRET"}
UPLOAD_ENV = "AGREEBOUND_UPLOAD_MB"
#: Set by ``serve`` for the server it starts when sign-in is on: a page then refuses to show anything
#: if the sign-in settings cannot be read (fail closed), instead of falling back to single-user mode.
REQUIRE_SIGNIN_ENV = "AGREEBOUND_REQUIRE_SIGNIN"
#: What the server's environment loses once the sign-in settings are written to its secrets file.
SECRET_ENV = ("AGREEBOUND_OIDC_CLIENT_SECRET", "AGREEBOUND_COOKIE_SECRET")
#: The shortest cookie secret taken as safe (it signs the sign-in cookie): 32 characters.
MIN_COOKIE_SECRET = 32
#: What every start sets, whatever the config files say: cross-site request forgery protection on,
#: cross-origin access refused (Streamlit's CORS *protection* on), no static file serving, no
#: usage statistics, no browser opened.
FIXED = {"server.enableXsrfProtection": "true", "server.enableCORS": "true", "server.enableStaticServing": "false",
         "browser.gatherUsageStats": "false", "server.headless": "true",
         # a server's CPU goes to its users (bench/bench_load.py): no source watching, no full GC per rerun
         "server.fileWatcherType": "none", "runner.postScriptGC": "false"}


class ServeError(ValueError):
    """The configuration cannot start a server (bad input: exit 3)."""


@dataclass
class Plan:
    """A server start: what it binds to, how visitors sign in, and what is unsafe about it."""

    host: str
    port: int
    signin: str | None  # where the sign-in configuration comes from; None: single-user mode
    provider: str | None  # the provider's metadata URL (no secret)
    upload_mb: int
    access: Settings
    auth_toml: str | None = None  # [auth] built from the environment, written to a private file at start
    unsafe: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def public(self) -> bool:
        return not loopback_host(self.host)

    def options(self, secrets_file: Path | None = None) -> list[str]:
        """Streamlit's command-line options for this plan."""
        opts = {"server.address": self.host, "server.port": str(self.port), "server.maxUploadSize": str(self.upload_mb),
                **FIXED}
        argv = [f"--{k}={v}" for k, v in opts.items()]
        if secrets_file is not None:
            argv.append(f"--secrets.files={secrets_file}")
        return argv


def _auth_from_file(roots: list[Path]) -> tuple[str | None, str | None, str | None]:
    """(where, metadata URL, cookie secret) of an [auth] section in a secrets.toml Streamlit reads
    (the metadata URLs of all its providers, comma-separated, when it names several)."""
    for folder in roots:
        path = folder / ".streamlit" / "secrets.toml"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise ServeError(f"{path}: cannot be read as TOML ({e})") from None
        auth = data.get("auth")
        if isinstance(auth, dict) and auth:
            urls = [str(auth["server_metadata_url"])] if auth.get("server_metadata_url") else []
            urls += [str(v["server_metadata_url"]) for v in auth.values()  # [auth.<provider>] sections
                     if isinstance(v, dict) and v.get("server_metadata_url")]
            return str(path), ", ".join(urls) or None, auth.get("cookie_secret")
    return None, None, None


def _auth_from_env() -> str | None:
    """The [auth] section the environment gives (all of :data:`OIDC_ENV`), or None (none of it)."""
    given = {key: os.environ.get(var, "").strip() for key, var in OIDC_ENV.items()}
    if not any(given.values()):
        return None
    missing = [OIDC_ENV[k] for k, v in given.items() if not v]
    if missing:
        raise ServeError(f"sign-in is half configured: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                         "not set (a provider needs all of " + ", ".join(OIDC_ENV.values()) + ")")
    if not given["redirect_uri"].endswith("/oauth2callback"):
        raise ServeError(f"{OIDC_ENV['redirect_uri']} must end with /oauth2callback (the dashboard's own address "
                         "followed by /oauth2callback)")
    return "[auth]\n" + "".join(f"{k} = {_toml_string(v)}\n" for k, v in given.items())


def _loopback_url(url: str) -> bool:
    from urllib.parse import urlparse

    try:
        host = urlparse(url).hostname or ""
    except ValueError:  # a malformed address is no loopback
        return False
    return loopback_host(host)


def loopback_host(host: str) -> bool:
    """``host`` names this machine only: localhost, or an address in 127.0.0.0/8 or ::1."""
    import ipaddress

    if host.strip("[]").lower() in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def plain_http_provider(url: str) -> bool:
    """The sign-in provider at ``url`` (its discovery document) is reached over plain http on
    another host: whoever is on the way can change its keys and sign in as anyone."""
    return url.strip().lower().startswith("http://") and not _loopback_url(url.strip())


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _upload_mb() -> int:
    given = os.environ.get(UPLOAD_ENV, "").strip()
    if not given:
        return UPLOAD_MB
    if not given.isdigit() or not 1 <= int(given) <= UPLOAD_MB:
        raise ServeError(f"{UPLOAD_ENV}={given[:30]!r} is not a whole number of MB from 1 to {UPLOAD_MB}")
    return int(given)


def plan(host: str | None, port: int | None, want_auth: bool, roots: list[Path]) -> Plan:
    """The start ``serve`` would make (``roots``: the folders whose .streamlit/secrets.toml Streamlit
    reads). Raises ServeError for a configuration that cannot start."""
    host = (host or DEFAULT_HOST).strip()
    port = DEFAULT_PORT if port is None else port
    if not 1 <= port <= 65535:
        raise ServeError(f"--port {port} is not a port (1 to 65535)")
    try:
        access = settings()
    except SettingError as e:
        raise ServeError(str(e)) from None
    auth_toml = _auth_from_env()
    # where the sign-in is configured (None: nowhere), its provider's metadata URL, its cookie secret
    signin: str | None
    provider: str | None
    cookie: str | None
    if auth_toml is not None:
        signin, provider = "the environment (" + ", ".join(OIDC_ENV.values()) + ")", os.environ[OIDC_ENV["server_metadata_url"]]
        cookie = os.environ[OIDC_ENV["cookie_secret"]]
    else:
        signin, provider, cookie = _auth_from_file(roots)
    if want_auth and signin is None:
        raise ServeError("--auth needs a sign-in provider: set " + ", ".join(OIDC_ENV.values()) +
                         " (or an [auth] section in .streamlit/secrets.toml); see the README, Deploy for a team")
    p = Plan(host, port, signin, provider, _upload_mb(), access, auth_toml)
    if p.public and signin is None:
        p.unsafe.append(f"listening on {host} (reachable from other machines) with no sign-in: anyone who reaches it "
                        "opens, shares and deletes every run. Configure sign-in (--auth), or bind to 127.0.0.1")
    redirect = os.environ.get(OIDC_ENV["redirect_uri"], "") if auth_toml is not None else ""
    if p.public and redirect.startswith("http://") and not _loopback_url(redirect):
        p.unsafe.append(f"the redirect URI {redirect} is plain http on a public address: the sign-in cookie would "
                        "travel unencrypted. Serve it over https (a reverse proxy terminating TLS; README)")
    if signin is not None and len(set(str(cookie or ""))) < 10 <= len(str(cookie or "")):
        p.unsafe.append("the cookie secret repeats a few characters; it signs the sign-in cookie and must be random "
                        "(python -c 'import secrets; print(secrets.token_hex(32))')")
    for url in [u.strip() for u in str(provider or "").split(",")] if signin is not None else []:
        if plain_http_provider(url):
            p.unsafe.append(f"the sign-in provider {url} is reached over plain http on another host: whoever is on the "
                            "way can change its keys and sign in as anyone. Give its https:// address")
    if signin is not None and not access.allowed and p.public:
        quota = "no limit" if access.quota_mb == 0 else f"a quota of {access.quota_mb:,} MB"
        p.unsafe.append(f"open sign-up on a public address: AGREEBOUND_ALLOWED is unset, so anyone the sign-in provider "
                        f"signs in is admitted, and each new account gets {quota} of its own: the quota bounds each "
                        "identity, not the server's disk. List the addresses or @domains to admit in AGREEBOUND_ALLOWED")
    elif signin is not None and not access.allowed:
        p.notes.append("anyone the sign-in provider signs in is admitted (AGREEBOUND_ALLOWED lists addresses or "
                       "@domains to admit); with a public provider such as Google that is anyone with an account")
    if signin is not None and len(str(cookie or "")) < MIN_COOKIE_SECRET:
        p.unsafe.append(f"the cookie secret is {len(str(cookie or ''))} characters; it signs the sign-in cookie and "
                        f"needs at least {MIN_COOKIE_SECRET} random ones (python -c 'import secrets; "
                        "print(secrets.token_hex(32))')")
    if signin is not None and not access.admins:
        p.notes.append("no admins (AGREEBOUND_ADMINS): no one sees the audit trail or deletes others' runs")
    return p


def check_lines(p: Plan, store_line: str) -> list[str]:
    """What is configured, one setting a line (``serve --check``)."""
    lines = [
        f"bind address: {p.host}:{p.port} ({'reachable from other machines' if p.public else 'this machine only'})",
        "sign-in: " + (f"on, provider {p.provider or 'from secrets.toml'}, configured in {p.signin}" if p.signin
                       else "off: single-user mode"),
        f"store: {store_line}",
        f"upload limit: {p.upload_mb} MB per file",
        *[f"{name}: {value}" for name, value in p.access.describe()],
        "XSRF protection: on; cross-origin access: refused (CORS protection on); static file serving: off; "
        "usage statistics: off",
    ]
    lines += [f"note: {n}" for n in p.notes]
    lines += [f"UNSAFE: {u}" for u in p.unsafe]
    return lines


def secrets_file(p: Plan) -> Path | None:
    """The [auth] section from the environment written where only this user can read it: a
    folder of this user's, mode 0700, per port, in the temporary folder (rewritten at each start,
    so restarts leave no trail of copies); None when sign-in is configured in a secrets.toml
    Streamlit reads itself, or is off."""
    if p.auth_toml is None:
        return None
    folder = Path(tempfile.gettempdir()) / f"agreebound-{os.getuid()}-{p.port}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise ServeError(f"{folder} exists and is not a private folder of this user; remove it") from None
    path = folder / "secrets.toml"
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(p.auth_toml)
    return path
