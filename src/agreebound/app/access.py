"""Who may see, open, share and delete a run: the one place the rules live.

A *viewer* is who is asking: the signed-in identity on a shared dashboard (OpenID Connect through
Streamlit's ``st.login``), ``local`` in single-user mode, or the operator at a terminal. A signed-in
identity is the provider's account, its issuer and subject (:func:`identity_key`), never an e-mail
address: two accounts whose addresses differ only in case or spaces are two people. The verified
address is what is shown, and what the admins' and the allowed lists name, compared as the provider
gives it with only its domain's letters in lower case (:func:`listed_form`: a domain is
case-insensitive, a local part is not, RFC 5321 2.4). A run records its owner (that key), the
owner's team at the time, and how far it is shared:

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
import re
from dataclasses import dataclass
from typing import Mapping

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
TEAM_DOMAINS_ENV = "AGREEBOUND_TEAM_DOMAINS"
DEFAULT_TEAM_CLAIM = "team"
#: Stored bytes per user, in MB (10**6 bytes): five uploads at the 200 MB limit. 0 means no limit.
DEFAULT_QUOTA_MB = 1000
MAX_QUOTA_MB = 10**7
MAX_RETENTION_DAYS = 36_500
#: The longest identity stored (an e-mail address is at most 254 characters).
MAX_USER_CHARS = 320
#: Between an identity's issuer and subject in its key (neither an issuer URL nor "local" holds it
#: next to a subject, so no key is an address, the single user or a terminal's name by accident).
KEY_SEPARATOR = "|"
#: A domain as AGREEBOUND_TEAM_DOMAINS lists it: letters, digits, hyphens, dots, at least one dot.
DOMAIN = re.compile(r"^(?=.{3,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$")
#: Mail domains shared by strangers, refused in AGREEBOUND_TEAM_DOMAINS (a slip, not a team). This
#: list is no test of who is a stranger: a domain is a team only when the deployment names it.
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "yahoo.com", "ymail.com",
    "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com", "pm.me", "gmx.com", "gmx.de",
    "gmx.net", "web.de", "mail.com", "yandex.ru", "yandex.com", "qq.com", "163.com", "126.com", "zoho.com",
    "fastmail.com", "hey.com", "tutanota.com"})


class SettingError(ValueError):
    """A deployment setting in the environment is not usable: names the variable and what it takes."""


@dataclass(frozen=True)
class Viewer:
    """Who is asking. ``user``: the identity runs are owned by (a signed-in account's
    :func:`identity_key`, ``local``, or a terminal's ``$AGREEBOUND_USER``); ``team``: the team their
    runs are shared with (None: no team); ``admin``: sees and may delete every run, the audit trail
    and where the store is; ``signed_in``: identified by a sign-in provider (else single-user mode
    or a terminal); ``email``: the address the provider verified (None: none); ``shown``: how
    pages name them (the verified address, else ``sub:<subject>@<issuer host>``; empty: ``user``);
    ``legacy``: the owner names earlier versions stored this account's runs under, which it may
    claim once (agreebound.app.store.Store.sign_in): its subject form, and its verified address only
    when the provider gives it exactly as they stored it (:func:`legacy_names`)."""

    user: str
    team: str | None = None
    admin: bool = False
    signed_in: bool = False
    email: str | None = None
    shown: str = ""
    legacy: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The viewer as a page names them: the verified address, never the key."""
        return self.shown or self.user


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
    #: Mail domains that are teams (a verified address there without a team claim is in the team
    #: named by its domain); empty: teams come from the claim only.
    team_domains: frozenset[str] = frozenset()

    @property
    def quota_bytes(self) -> int | None:
        return None if self.quota_mb == 0 else self.quota_mb * 10**6

    def describe(self) -> list[tuple[str, str]]:
        """(setting, value in words) for ``serve --check`` and the admins' view."""
        return [("admins", ", ".join(sorted(self.admins)) or "none (no one sees others' private runs)"),
                ("admitted", ", ".join(sorted(self.allowed)) if self.allowed
                 else "whoever the sign-in provider signs in (AGREEBOUND_ALLOWED unset)"),
                ("team", f"the sign-in claim {self.team_claim!r} of a verified address"
                 + (f", else the address's domain for {', '.join(sorted(self.team_domains))}" if self.team_domains
                    else "; a mail domain is no team (AGREEBOUND_TEAM_DOMAINS unset)")),
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


#: ASCII capitals to lower case, nothing else: DNS names are case-insensitive in ASCII only
#: (RFC 4343); str.lower would also map e.g. the Kelvin sign to "k".
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def listed_form(address: str) -> str:
    """An address (or ``@domain``) as the admins' and allowed lists compare it: its domain (after
    the last ``@``) in lower case, the rest exactly as given. A local part is case-sensitive (RFC
    5321 2.4) and nothing is trimmed: ``ALICE@RED.EXAMPLE `` is not ``alice@red.example``.

    >>> listed_form("Alice@Red.Example")
    'Alice@red.example'
    >>> listed_form("ALICE@RED.EXAMPLE ") == "alice@red.example"
    False
    """
    local, at, domain = address.rpartition("@")
    return f"{local}{at}{domain.translate(_ASCII_LOWER)}" if at else address


def _names(name: str) -> frozenset[str]:
    """A comma-separated list (spaces around an entry are the list's, not the entry's): addresses
    and ``@domain``s in their :func:`listed_form`; a ``sub:`` name kept as given (a subject is
    case-sensitive)."""
    found = (a.strip() for a in os.environ.get(name, "").split(","))
    return frozenset(a if a.startswith("sub:") else listed_form(a) for a in found if a)


def _team_domains() -> frozenset[str]:
    found = set()
    for given in os.environ.get(TEAM_DOMAINS_ENV, "").split(","):
        domain = given.strip().translate(_ASCII_LOWER).removeprefix("@")
        if not domain:
            continue
        if not DOMAIN.match(domain):
            raise SettingError(f"{TEAM_DOMAINS_ENV}: {given.strip()[:60]!r} is not a mail domain (expected names such "
                               "as red.example, comma-separated)")
        if domain in PUBLIC_MAIL_DOMAINS:
            raise SettingError(f"{TEAM_DOMAINS_ENV}: {domain} is a public mail domain; its users are strangers to "
                               "each other, not a team")
        found.add(domain)
    return frozenset(found)


def settings() -> Settings:
    """The settings in force, from the environment; a bad value is a :class:`SettingError`."""
    claim = os.environ.get(TEAM_CLAIM_ENV, "").strip() or DEFAULT_TEAM_CLAIM
    quota = _whole(QUOTA_ENV, 0, MAX_QUOTA_MB)
    return Settings(_names(ADMINS_ENV), _names(ALLOWED_ENV), claim, DEFAULT_QUOTA_MB if quota is None else quota,
                    _whole(RETENTION_ENV, 1, MAX_RETENTION_DAYS), _team_domains())


def verified_email(claims: Mapping[str, object]) -> str | None:
    """The e-mail address the provider vouches for (``email_verified`` true), exactly as it gives
    it (not trimmed, not case-folded), else None: an address a user could set themselves never
    identifies them, and one longer than :data:`MAX_USER_CHARS` is no address."""
    email = str(claims.get("email") or "")
    verified = claims.get("email_verified")
    if "@" not in email or len(email) > MAX_USER_CHARS or not (verified is True or str(verified).lower() == "true"):
        return None
    return email


def earlier_owner(address: str) -> str:
    """The owner name versions before schema 4 stored for a verified ``address`` (and a
    terminal's ``$AGREEBOUND_USER``): trimmed, in lower case, cut at :data:`MAX_USER_CHARS`."""
    return address.strip().lower()[:MAX_USER_CHARS]


def legacy_names(subject_form: str, email: str | None) -> tuple[str, ...]:
    """The owner names of earlier versions an account may claim at sign-in: its ``sub:`` form
    (a subject is the provider's, exact), and its verified address only when the provider gives
    it exactly as they stored it (:func:`earlier_owner` changes nothing). Earlier versions
    trimmed and lower-cased addresses, so ``alice@red.example`` may have been stored for
    ``Alice@red.example`` or ``ALICE@RED.EXAMPLE `` as well: an address that is not already in
    that form claims nothing, in whichever order the accounts sign in (an operator gives such runs
    to their account: ``agreebound claim``).

    >>> legacy_names("sub:1@id.example", "alice@red.example")
    ('sub:1@id.example', 'alice@red.example')
    >>> legacy_names("sub:2@id.example", "ALICE@RED.EXAMPLE ")
    ('sub:2@id.example',)
    """
    if email is None or earlier_owner(email) != email:
        return (subject_form,)
    return (subject_form, email)


def identity_key(issuer: str, subject: str) -> str:
    """The owner key of a provider's account: ``<issuer>|<subject>`` as the ID token gives them
    (both compared exactly: a subject is case-sensitive); one longer than :data:`MAX_USER_CHARS`
    is ``<issuer, cut>|sha256:<digest of both>``, still one key per account.

    >>> identity_key("https://id.example", "248289761001")
    'https://id.example|248289761001'
    >>> len(identity_key("https://id.example", "x" * 400)) <= MAX_USER_CHARS
    True
    """
    key = f"{issuer}{KEY_SEPARATOR}{subject}"
    if len(key) <= MAX_USER_CHARS:
        return key
    import hashlib

    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{issuer[:MAX_USER_CHARS - 80]}{KEY_SEPARATOR}sha256:{digest}"


def signed_in_viewer(claims: Mapping[str, object], given: Settings) -> Viewer:
    """The viewer a sign-in provider's claims identify: the account (issuer and subject; no
    subject: no one, never admitted), shown as its verified address, else as
    ``sub:<subject>@<issuer host>``. A verified address has a team: the configured claim (its
    first value when it is a list), else its domain when ``AGREEBOUND_TEAM_DOMAINS`` names it; an
    unverified one has none, whatever the claims say. An admin when the verified address (in its
    :func:`listed_form`), or the ``sub:`` form, is listed in ``AGREEBOUND_ADMINS``."""
    from urllib.parse import urlparse

    issuer = str(claims.get("iss") or "")
    subject = str(claims.get("sub") or "")
    email = verified_email(claims)
    host = urlparse(issuer).hostname or "provider"
    subject_form = f"sub:{subject[:200]}@{host}"[:MAX_USER_CHARS]
    if not subject:
        return Viewer("", None, signed_in=True, shown=email or "(an account without a subject)")
    team = None
    if email is not None:
        team = claims.get(given.team_claim)
        if isinstance(team, (list, tuple)):
            team = team[0] if team else None
        domain = listed_form(email).rsplit("@", 1)[1]
        if not team and domain in given.team_domains:
            team = domain
    admin = (email is not None and listed_form(email) in given.admins) or subject_form in given.admins
    return Viewer(identity_key(issuer, subject), str(team)[:MAX_USER_CHARS] if team else None, admin=admin,
                  signed_in=True, email=email, shown=email or subject_form,
                  legacy=legacy_names(subject_form, email))


def admitted(viewer: Viewer, given: Settings) -> bool:
    """``viewer`` may use this dashboard: an account with a subject, and no allow-list or their
    verified address or its ``@domain`` is on it (each in its :func:`listed_form`)."""
    if not viewer.user:
        return False
    if not given.allowed:
        return True
    if viewer.email is None:
        return viewer.signed_in and viewer.shown.startswith("sub:") and viewer.shown in given.allowed
    listed = listed_form(viewer.email)
    return listed in given.allowed or ("@" + listed.rsplit("@", 1)[-1]) in given.allowed


def terminal_viewer() -> Viewer:
    """The CLI's viewer: ``$AGREEBOUND_USER`` (default ``local``) of team ``$AGREEBOUND_TEAM``.
    Whoever runs the CLI holds the database's own credentials, so it may see every run; it records
    runs as that user, and run-id prefixes match only that user's own runs."""
    user = earlier_owner(os.environ.get(USER_ENV, "")) or LOCAL
    team = os.environ.get(TEAM_ENV, "").strip()[:MAX_USER_CHARS] or None
    return Viewer(user, team, admin=True, signed_in=False)
