"""How a table becomes ratings, as data: the dashboard's preview edits it, the user downloads it,
and the CLI reads the same file the same way with ``--mapping``.

>>> m = Mapping(layout="long", unit=("item_id",), rater="annotator", value="label")
>>> Mapping.from_json(m.to_json()) == m
True
>>> Mapping.from_dict({"layout": "sideways"})
Traceback (most recent call last):
...
agreebound.core.errors.FieldError: layout must be one of wide, long, transposed; got 'sideways'
"""

from __future__ import annotations

import codecs
import json
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from agreebound.core.errors import FieldError
from agreebound.core.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    from agreebound.panel.categories import Level

LAYOUTS = ("wide", "long", "transposed")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
UNIT_JOIN = " | "


@dataclass(frozen=True)
class Mapping:
    """Which column plays which role. Column names are the file's header names (trimmed).

    * wide: one row per unit; ``unit`` names the id column(s) (several are joined with " | ";
      none: the units are the rows, named by their row number); ``raters`` the rating columns
      (None: every column that is neither an id nor ignored).
    * long: one row per rating; ``unit`` (one or more columns), ``rater``, ``value`` and
      optionally ``dimension`` (one panel per dimension). Other columns are ignored.
    * transposed: one row per rater (the orientation of K-Alpha and the ``krippendorff``
      package); ``rater`` names the column holding the rater names (None: the raters are the
      rows), every other column is a unit.
    """

    layout: str
    unit: tuple[str, ...] = ()
    rater: str | None = None
    value: str | None = None
    dimension: str | None = None
    raters: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    #: Human raters (not independent detectors). None: names starting with "human", unless every
    #: rater's does (then every rater counts as independent).
    humans: tuple[str, ...] | None = None
    level: Level | None = None  # None: the suggested level
    positive: str | None = None  # the category counted as a detector's positive, as written
    missing: tuple[str, ...] = ()  # extra spellings of a missing value, e.g. "-99"
    header: bool = True  # False: the first row is data (columns are named "column 1", ...)
    sheet: str | None = None  # Excel: the sheet (None: the first)
    delimiter: str | None = None  # CSV: None = sniffed
    encoding: str | None = None  # text: None = sniffed
    skip: int | None = None  # CSV: lines above the header (a title, comments); None = detected
    decimal: str = "."  # "," for a decimal comma (1,5), as European spreadsheets write

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise FieldError(f"layout must be one of {', '.join(LAYOUTS)}; got {self.layout!r}", "layout")
        if self.level is not None and self.level not in LEVELS:
            raise FieldError(f"level must be one of {', '.join(LEVELS)}; got {self.level!r}", "level")
        for name in ("unit", "ignore", "missing"):
            _strings(name, getattr(self, name))
        for name in ("raters", "humans"):
            if getattr(self, name) is not None:
                _strings(name, getattr(self, name))
        for name in ("rater", "value", "dimension", "positive", "sheet", "delimiter", "encoding"):
            v = getattr(self, name)
            if v is not None and type(v) is not str:
                raise FieldError(f"{name} must be text or null; got {v!r}", name)
        if self.encoding:
            _text_encoding(self.encoding)
        if type(self.header) is not bool:
            raise FieldError(f"header must be true or false; got {self.header!r}", "header")
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise FieldError(f"delimiter must be one character; got {self.delimiter!r}", "delimiter")
        if self.skip is not None and (type(self.skip) is not int or not 0 <= self.skip <= 1000):
            raise FieldError(f"skip must be a number of lines from 0 to 1000, or null; got {self.skip!r}", "skip")
        if self.decimal not in (".", ","):
            raise FieldError(f"decimal must be '.' or ','; got {self.decimal!r}", "decimal")
        if self.layout == "long" and not (self.unit and self.rater and self.value):
            raise ValueError("a long mapping needs unit, rater and value columns")
        roles = [("rater", self.rater), ("value", self.value), ("dimension", self.dimension)] + \
            [("unit", u) for u in self.unit]
        if self.layout == "long":
            seen: dict[str, str] = {}
            for role, col in roles:
                if col is None:
                    continue
                if col in seen:
                    raise ValueError(f"column {col!r} cannot be both the {seen[col]} and the {role}")
                seen[col] = role
        if self.raters is not None:
            both = [r for r in self.raters if r in self.unit or r in self.ignore]
            if both:
                raise ValueError(f"column {both[0]!r} cannot be both a rater and "
                                 f"{'a unit id' if both[0] in self.unit else 'ignored'}")

    def to_dict(self) -> JSONObject:
        out = asdict(self)
        for k, v in out.items():
            if isinstance(v, tuple):
                out[k] = list(v)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: JSONValue) -> "Mapping":
        if not isinstance(data, dict):
            raise ValueError("a mapping is an object with layout, unit, rater, value, ...")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise FieldError(f"unknown key {unknown[0]!r}; a mapping has {', '.join(sorted(known))}", unknown[0])
        if "layout" not in data:
            raise FieldError("missing key 'layout' (wide, long or transposed)", "layout")
        values = {}
        for k, v in data.items():
            if k in ("unit", "ignore", "missing", "raters", "humans") and isinstance(v, list):
                v = tuple(v)
            elif k == "unit" and isinstance(v, str):
                v = (v,)
            values[k] = v
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> "Mapping":
        return cls.from_dict(json.loads(text))

    def with_(self, **changes: Any) -> "Mapping":
        return replace(self, **changes)


def _text_encoding(name: str) -> None:
    """A codec that decodes a file's bytes to text (utf-8, cp1252, utf-16, ...); not rot13 (text
    to text), zlib or uu_codec (bytes to bytes), which no file can be read with.

    >>> _text_encoding("rot13")
    Traceback (most recent call last):
    ...
    agreebound.core.errors.FieldError: encoding must be a text encoding such as utf-8 or cp1252; got 'rot13', which is not one
    """
    expected = "encoding must be a text encoding such as utf-8 or cp1252"
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise FieldError(f"{expected}; got {name!r}, which Python does not know", "encoding") from None
    if not getattr(info, "_is_text_encoding", True) or info.name in NOT_FILE_ENCODINGS:
        raise FieldError(f"{expected}; got {name!r}, which is not one", "encoding")


#: Text encodings in name only: "undefined" refuses every byte; idna and punycode encode domain names.
NOT_FILE_ENCODINGS = {"undefined", "idna", "punycode"}


def _strings(name: str, value: object) -> None:
    if not isinstance(value, tuple) or any(type(v) is not str for v in value):
        raise FieldError(f"{name} must be a list of column names (text); got {value!r}", name)
