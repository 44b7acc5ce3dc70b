"""Who may see, open, share and delete a run: the one place the rules live.

A *viewer* is who is asking: the signed-in identity on a shared dashboard (OpenID Connect through
Streamlit's ``st.login``), ``local`` in single-user mode, or the operator at a terminal. A run
records its owner, the owner's team at the time, and how far it is shared:

- ``private``: its owner (and admins) only; every run starts private;
- ``team``: also everyone whose team is the owner's;
- ``all``: everyone signed in to this server.

Deleting and sharing are the owner's (and an admin's). The store asks :func:`may_see` and
:func:`may_change`; the dashboard and the CLI never decide this themselves.

The deployment's settings (admins, the team claim, the per-user quota, retention) come from the
environment, read by :func:`settings`; each has a stated default.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: How far a run is shared, narrowest first.
SHARES = ("private", "team", "all")
SHARE_WORDS = {"private": "only its owner", "team": "its owner's team", "all": "everyone signed in"}
#: The owner of runs recorded without sign-in (single-user mode, and runs recorded before owners existed).
LOCAL = "local"

ADMINS_ENV = "AGREEBOUND_ADMINS"
TEAM_CLAIM_ENV = "AGREEBOUND_TEAM_CLAIM"
QUOTA_ENV = "AGREEBOUND_QUOTA_MB"
RETENTION_ENV = "AGREEBOUND_RETENTION_DAYS"
ALLOWED_ENV = "AGREEBOUND_ALLOWED"
USER_ENV = "AGREEBOUND_USER"
TEAM_ENV = "AGREEBOUND_TEAM"
DEFAULT_TEAM_CLAIM = "team"
#: Stored bytes per user, in MB (10**6 bytes): five uploads at the 200 MB limit. 0 means no limit.
DEFAULT_QUOTA_MB = 1000
MAX_QUOTA_MB = 10**7
MAX_RETENTION_DAYS = 36_500
#: The longest identity stored (an e-mail address is at most 254 characters).
MAX_USER_CHARS = 320
#: E-mail domains shared by strangers: never a team (everyone at gmail.com is not one team).
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "yahoo.com", "ymail.com",
    "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com", "pm.me", "gmx.com", "gmx.de",
    "gmx.net", "web.de", "mail.com", "yandex.ru", "yandex.com", "qq.com", "163.com", "126.com", "zoho.com",
    "fastmail.com", "hey.com", "tutanota.com"})


class SettingError(ValueError):
    """A deployment setting in the environment is not usable: names the variable and what it takes."""


@dataclass(frozen=True)
class Viewer:
    """Who is asking. ``team``: the team their runs are shared with (None: no team);
    ``admin``: sees and may delete every run, the audit trail and where the store is;
    ``signed_in``: identified by a sign-in provider (else single-user mode or a terminal)."""

    user: str
    team: str | None = None
    admin: bool = False
    signed_in: bool = False


def may_see(viewer: Viewer, owner: str, team: str | None, share: str) -> bool:
    """``viewer`` may list, open, compare and read the data of a run of ``owner`` shared ``share``."""
    if viewer.admin or viewer.user == owner or share == "all":
        return True
    return share == "team" and team is not None and team == viewer.team


def may_change(viewer: Viewer, owner: str) -> bool:
    """``viewer`` may delete or re-share a run of ``owner``."""
    return viewer.admin or viewer.user == owner


def share_problem(share: str) -> str | None:
    if share not in SHARES:
        return f"sharing is one of {', '.join(SHARES)}, not {str(share)[:20]!r}"
    return None


@dataclass(frozen=True)
class Settings:
    """The deployment's access settings (see the module's docstring)."""

    admins: frozenset[str] = frozenset()
    #: Who may sign in: e-mail addresses and ``@domain``s (empty: whoever the provider signs in).
    allowed: frozenset[str] = frozenset()
    team_claim: str = DEFAULT_TEAM_CLAIM
    quota_mb: int = DEFAULT_QUOTA_MB
    retention_days: int | None = None

    @property
    def quota_bytes(self) -> int | None:
        return None if self.quota_mb == 0 else self.quota_mb * 10**6

    def describe(self) -> list[tuple[str, str]]:
        """(setting, value in words) for ``serve --check`` and the admins' view."""
        return [("admins", ", ".join(sorted(self.admins)) or "none (no one sees others' private runs)"),
                ("admitted", ", ".join(sorted(self.allowed)) if self.allowed
                 else "whoever the sign-in provider signs in (AGREEBOUND_ALLOWED unset)"),
                ("team", f"the sign-in claim {self.team_claim!r}, else the e-mail address's domain"),
                ("quota", "no limit" if self.quota_mb == 0 else f"{self.quota_mb:,} MB of stored files per user"),
                ("retention", "runs are kept until deleted" if self.retention_days is None
                 else f"runs older than {self.retention_days:,} days are deleted by `agreebound prune`")]


def _whole(name: str, low: int, high: int) -> int | None:
    given = os.environ.get(name, "").strip()
    if not given:
        return None
    try:
        value = int(given)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise SettingError(f"{name}={given[:30]!r} is not a whole number from {low:,} to {high:,}")
    return value


def settings() -> Settings:
    """The settings in force, from the environment; a bad value is a :class:`SettingError`."""
    admins = frozenset(a.strip().lower() for a in os.environ.get(ADMINS_ENV, "").split(",") if a.strip())
    allowed = frozenset(a.strip().lower() for a in os.environ.get(ALLOWED_ENV, "").split(",") if a.strip())
    claim = os.environ.get(TEAM_CLAIM_ENV, "").strip() or DEFAULT_TEAM_CLAIM
    quota = _whole(QUOTA_ENV, 0, MAX_QUOTA_MB)
    return Settings(admins, allowed, claim, DEFAULT_QUOTA_MB if quota is None else quota,
                    _whole(RETENTION_ENV, 1, MAX_RETENTION_DAYS))


def verified_email(claims: dict) -> str | None:
    """The e-mail address the provider vouches for (``email_verified`` true), else None: an address
    a user could set themselves never identifies them."""
    email = str(claims.get("email") or "").strip().lower()
    verified = claims.get("email_verified")
    if "@" not in email or not (verified is True or str(verified).lower() == "true"):
        return None
    return email[:MAX_USER_CHARS]


def signed_in_viewer(claims: dict, given: Settings) -> Viewer:
    """The viewer a sign-in provider's claims identify: the verified e-mail address, else
    ``sub:<subject>@<issuer host>`` (never ``local``, the single user); the team from the
    configured claim (its first value when it is a list), else the verified address's domain
    unless it is a public mail domain; an admin when the verified address is listed in
    ``AGREEBOUND_ADMINS`` (or the subject form is)."""
    from urllib.parse import urlparse

    email = verified_email(claims)
    issuer = urlparse(str(claims.get("iss") or "")).hostname or "provider"
    user = email or f"sub:{str(claims.get('sub', ''))[:200]}@{issuer}"[:MAX_USER_CHARS]
    team = claims.get(given.team_claim)
    if isinstance(team, (list, tuple)):
        team = team[0] if team else None
    if team is None and email is not None and email.rsplit("@", 1)[1] not in PUBLIC_MAIL_DOMAINS:
        team = email.rsplit("@", 1)[1]
    return Viewer(user, str(team)[:MAX_USER_CHARS] if team else None, admin=user in given.admins, signed_in=True)


def admitted(viewer: Viewer, given: Settings) -> bool:
    """``viewer`` may use this dashboard: no allow-list, or their address or its ``@domain`` is on it."""
    if not given.allowed:
        return True
    if viewer.user in given.allowed:
        return True
    return not viewer.user.startswith("sub:") and ("@" + viewer.user.rsplit("@", 1)[-1]) in given.allowed


def terminal_viewer() -> Viewer:
    """The CLI's viewer: ``$AGREEBOUND_USER`` (default ``local``) of team ``$AGREEBOUND_TEAM``.
    Whoever runs the CLI holds the database's own credentials, so it may see every run; it records
    runs as that user, and run-id prefixes match only that user's own runs."""
    user = os.environ.get(USER_ENV, "").strip().lower()[:MAX_USER_CHARS] or LOCAL
    team = os.environ.get(TEAM_ENV, "").strip()[:MAX_USER_CHARS] or None
    return Viewer(user, team, admin=True, signed_in=False)
