"""Report file names: the data's name, the domain and the UTC time, so two reports never share a
name by default and a folder of them sorts by data, then domain, then time.

>>> from datetime import datetime, timezone
>>> when = datetime(2026, 11, 30, 9, 12, 45, tzinfo=timezone.utc)
>>> report_filename("detector_panel", "panel", "html", when)
'detector_panel-panel-20261130T0912Z.html'
>>> report_filename("judge_failing", "judge", ".json", when)
'judge_failing-judge-20261130T0912Z.json'

Anything outside ``[A-Za-z0-9._-]`` becomes ``_`` (accents are dropped first, so a name stays
readable); leading dots and dashes go (no hidden file, nothing a shell reads as an option); the
name is cut to 60 characters; an empty name becomes ``data``:

>>> report_filename("données 2026/11 <b>", "panel", "md", when)
'donnees_2026_11_b-panel-20261130T0912Z.md'
>>> report_filename("../..", "judge", "html", when)
'data-judge-20261130T0912Z.html'
>>> len(report_filename("x" * 500, "panel", "html", when).split("-")[0])
60

A time with a zone is converted to UTC; a naive one is taken as UTC already:

>>> from datetime import timedelta
>>> report_filename("r", "panel", "html", datetime(2026, 11, 30, 10, 12, tzinfo=timezone(timedelta(hours=1))))
'r-panel-20261130T0912Z.html'
>>> report_filename("r", "panel", "html", datetime(2026, 11, 30, 9, 12))
'r-panel-20261130T0912Z.html'
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timezone

DOMAINS = ("panel", "judge")
NAME_CHARS = 60
_OUTSIDE = re.compile(r"[^A-Za-z0-9._-]+")
_EXT = re.compile(r"[A-Za-z0-9]{1,16}")


def report_filename(data_name: str, domain: str, ext: str, when: datetime | None = None) -> str:
    """``{data}-{domain}-{YYYYmmddTHHMMZ}.{ext}``.

    ``data_name``: the data's name without its extension (the ratings file's stem, or the judge's
    first file's stem); ``domain``: ``panel`` or ``judge``; ``ext``: ``html``, ``json``, ``md``...
    (with or without its dot); ``when``: the time to name (default: now), written in UTC to the
    minute.
    """
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
    ext = ext[1:] if ext.startswith(".") else ext
    if not _EXT.fullmatch(ext):
        raise ValueError(f"ext must be letters and digits, like 'html', got {ext!r}")
    ascii_name = unicodedata.normalize("NFKD", str(data_name)).encode("ascii", "ignore").decode("ascii")
    name = _OUTSIDE.sub("_", ascii_name).lstrip(".-_")[:NAME_CHARS].rstrip("._-") or "data"
    when = datetime.now(timezone.utc) if when is None else when
    when = when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)
    return f"{name}-{domain}-{when:%Y%m%dT%H%MZ}.{ext}"
