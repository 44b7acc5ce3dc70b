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
from agreebound.core.escape import normalise_name
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
    #: The categories' order, lowest first, as (dimension, labels) pairs; dimension None: every
    #: dimension without its own. Written ``"order": [...]`` (every dimension) or
    #: ``"order": {"<dimension>": [...]}``. Ordered labels are read at the ordinal level by rank.
    order: tuple[tuple[str | None, tuple[str, ...]], ...] = ()
    #: Labels renamed or merged before anything else reads them, as (from, to) pairs: written
    #: ``"recode": {"1st grade": "1", "First": "1"}``. A label recoded to a number is that number.
    recode: tuple[tuple[str, str], ...] = ()

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
        _check_order(self.order)
        _check_recode(self.recode)
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
        del out["order"], out["recode"]  # written only when given, as the file writes them
        if self.order:
            out["order"] = order_json(self.order)
        if self.recode:
            out["recode"] = {a: b for a, b in self.recode}
        return out

    def order_for(self, dimension: str) -> tuple[str, ...] | None:
        """The order of ``dimension``'s categories: its own, else the one for every dimension, else None."""
        mine = dict(self.order)
        return mine.get(dimension, mine.get(None))

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
            elif k == "order":
                v = parse_order(v)
            elif k == "recode":
                v = parse_recode(v)
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


# --- the categories' order and recoding -----------------------------------------------------------

#: Labels an order or a recode may hold (each one is a category: far fewer in any real scale).
MAX_ORDERED = 1000


def order_json(order: tuple[tuple[str | None, tuple[str, ...]], ...]) -> JSONValue:
    """An order as a mapping file writes it: a list (every dimension) or an object by dimension."""
    if len(order) == 1 and order[0][0] is None:
        return list(order[0][1])
    return {str(d): list(labels) for d, labels in order}


def parse_order(value: object, field: str = "order") -> tuple[tuple[str | None, tuple[str, ...]], ...]:
    """A mapping's (or ``--order``'s) order: a list of labels, lowest first, for every dimension;
    an object of such lists by dimension; or (``--order``) text: a JSON list or object, else labels
    separated by commas (a label with a comma needs the JSON list).

    >>> parse_order("1st grade, 2nd grade,3rd grade")
    ((None, ('1st grade', '2nd grade', '3rd grade')),)
    >>> parse_order('["low, very", "low"]')
    ((None, ('low, very', 'low')),)
    >>> parse_order({"grade": ["a", "b"]})
    (('grade', ('a', 'b')),)
    """
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("[", "{")):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as e:
                raise FieldError(f"{field}: not a JSON list or object ({e.msg} at character {e.pos})", field) from None
        else:
            # every part is kept: an empty one ("low,,mid") is refused, not dropped
            value = [t.strip() for t in text.split(",")] if text else []
    if isinstance(value, dict):
        out: list[tuple[str | None, tuple[str, ...]]] = []
        for dim, labels in value.items():
            if type(dim) is not str or not dim.strip():
                raise FieldError(f"{field}: a dimension's name is text; got {dim!r}", field)
            out.append((dim, _labels(field, labels)))
        return tuple(out)
    return ((None, _labels(field, value)),)


def parse_recode(value: object, field: str = "recode") -> tuple[tuple[str, str], ...]:
    """A mapping's (or ``--recode``'s) recoding: an object ``{"from": "to", ...}``; or (``--recode``)
    text: a JSON object, else ``from=to`` pairs separated by commas.

    >>> parse_recode("1st grade=1, First=1")
    (('1st grade', '1'), ('First', '1'))
    """
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:  # its pairs as written, so a label given twice is refused below, not kept last
                value = json.loads(text, object_pairs_hook=lambda kv: tuple(tuple(p) for p in kv))
            except json.JSONDecodeError as e:
                raise FieldError(f"{field}: not a JSON object ({e.msg} at character {e.pos})", field) from None
        else:
            pairs: list[tuple[str, str]] = []
            for part in (t.strip() for t in text.split(",")):
                if not part:
                    continue
                if "=" not in part:
                    raise FieldError(f"{field}: {part[:40]!r} is not from=to (a label with a comma or '=' needs "
                                     "a JSON object)", field)
                a, b = part.split("=", 1)
                pairs.append((a.strip(), b.strip()))
            value = tuple(pairs)
    if isinstance(value, dict):
        value = tuple(value.items())
    if not (isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value)):
        raise FieldError(f"{field} must be an object {{\"from\": \"to\", ...}}; got {value!r:.60}", field)
    out = tuple((a, b) for a, b in value)
    _check_recode(out, field)
    return tuple((normalise_name(a), normalise_name(b)) for a, b in out)


def _labels(field: str, value: object) -> tuple[str, ...]:
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list) or any(type(v) is not str for v in value):
        raise FieldError(f"{field} must be a list of labels (text), lowest first; got {value!r:.80}", field)
    labels = tuple(normalise_name(v) for v in value)  # as the data's values are compared
    _check_labels(field, labels)
    return labels


def _check_labels(field: str, labels: tuple[str, ...]) -> None:
    if len(labels) < 2:
        raise FieldError(f"{field}: an order needs at least two labels; got {len(labels)}", field)
    if len(labels) > MAX_ORDERED:
        raise FieldError(f"{field}: {len(labels):,} labels; an order has at most {MAX_ORDERED:,}", field)
    if any(not v for v in labels):
        raise FieldError(f"{field}: an empty label (two commas in a row, or one at an end?)", field)
    seen: set[str] = set()
    for v in labels:
        if v in seen:
            raise FieldError(f"{field}: {v[:40]!r} is given twice; each category once", field)
        seen.add(v)


def _check_order(order: object) -> None:
    if not isinstance(order, tuple) or any(
            not (isinstance(p, tuple) and len(p) == 2 and (p[0] is None or type(p[0]) is str)
                 and isinstance(p[1], tuple) and all(type(v) is str for v in p[1])) for p in order):
        raise FieldError(f"order must be a list of labels, or an object of lists by dimension; got {order!r:.80}",
                         "order")
    dims = [d for d, _ in order]
    if len(set(dims)) != len(dims):
        raise FieldError("order: a dimension is given two orders", "order")
    for _, labels in order:
        _check_labels("order", labels)


def _check_recode(recode: object, field: str = "recode") -> None:
    if not isinstance(recode, tuple) or any(
            not (isinstance(p, tuple) and len(p) == 2 and type(p[0]) is str and type(p[1]) is str) for p in recode):
        raise FieldError(f"{field} must be an object of labels to labels (text); got {recode!r:.80}", field)
    if len(recode) > MAX_ORDERED:
        raise FieldError(f"{field}: {len(recode):,} labels; at most {MAX_ORDERED:,}", field)
    for a, b in recode:
        if not a.strip() or not b.strip():
            raise FieldError(f"{field}: {a[:40]!r} -> {b[:40]!r}: labels are not empty (to leave a value out, "
                             "name it in missing)", field)
    seen: set[str] = set()
    for a, _ in recode:
        if a.strip() in seen:
            raise FieldError(f"{field}: {a.strip()[:40]!r} is recoded twice; each label once", field)
        seen.add(a.strip())
