"""JSON and TOML documents, read strictly: every key once, no NaN or Infinity, nesting within
:data:`agreebound.core.limits.MAX_NESTING`, and each refusal one :class:`InputError` with its line.

Shared by every io reader of JSON (ratings, mappings, thresholds, judge bundles and logs), so a
document is refused for the same reasons, in the same words, wherever it is read.
"""

from __future__ import annotations

import json
import re
import tomllib

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.tables import decode_text
from agreebound.core.limits import MAX_NESTING


class DuplicateKey(ValueError):
    """A key repeated in one JSON object (json.loads would keep the last silently)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def no_duplicates(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    """json's ``object_pairs_hook``: an object, or :class:`DuplicateKey` at a repeated key."""
    out: JSONObject = {}
    for k, v in pairs:
        if k in out:
            raise DuplicateKey(k)
        out[k] = v
    return out


def no_constant(token: str) -> JSONValue:
    """json's ``parse_constant``: NaN and Infinity are Python's extension, not JSON."""
    raise ValueError(f"invalid JSON: {token} is not a number JSON allows")


def _line_of(text: str, needle: str, occurrence: int = 1) -> int | None:
    at = -1
    for _ in range(occurrence):
        at = text.find(needle, at + 1)
        if at < 0:
            return None
    return text.count("\n", 0, at) + 1


_ALL_BUT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_STEP = np.zeros(256, dtype=np.int8)
_STEP[[91, 123]], _STEP[[93, 125]] = 1, -1


def json_depth(data: bytes | bytearray) -> int:
    """The deepest nesting of [ and { outside strings, from the bytes and without parsing: escaped
    backslashes and quotes are removed, every byte but quotes and brackets is dropped (C speed),
    and the rest is one cumulative sum.

    >>> json_depth(b'{"a": [1, {"b": "[[[\\\\\\""}]}')
    3
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    a = np.frombuffer(data.translate(None, _ALL_BUT_STRUCTURE), dtype=np.uint8)
    step = _STEP[a]
    step[(np.cumsum(a == 34, dtype=np.int32) & 1).astype(bool)] = 0  # inside a string
    return int(np.cumsum(step, dtype=np.int32).max(initial=0))


def read_json(name: str, data: bytes) -> JSONValue:
    """A whole JSON document, strictly (see the module), or an InputError with its line."""
    text = decode_text(name, data, "a JSON object")
    if json_depth(data if isinstance(data, bytes) else bytes(data)) > MAX_NESTING:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
    try:
        obj = json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except DuplicateKey as e:
        line = _line_of(text, json.dumps(e.key), 2)
        raise InputError(name, line, e.key, "duplicate key in one object; every key once (a repeated key would "
                         "silently replace the first)", row_label="line") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:  # e.g. an integer past Python's 4,300-digit limit
        if "digits" in str(e):
            raise InputError(name, None, None, "a number with more than 4,300 digits") from None
        if "is not a number JSON allows" in str(e):  # NaN read before the end: is the rest JSON at all?
            _say_broken_first(name, text)
        raise InputError(name, None, None, str(e)) from None
    return obj


def _say_broken_first(name: str, text: str) -> None:
    """A document holding NaN (an inspect_ai log does) that is not JSON for another reason too, e.g.
    cut off: that reason, located, rather than the NaN before it (the parse stops at the first)."""
    try:
        json.loads(text, parse_constant=lambda _: None)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except (ValueError, RecursionError):
        return


def _check_depth(name: str, obj: JSONValue) -> None:
    """Iteratively: no container nested deeper than MAX_NESTING."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))


def read_toml(name: str, data: bytes) -> JSONObject:
    """A whole TOML document, nested within the limit, or an InputError with its line."""
    text = decode_text(name, data, "a thresholds file (JSON or TOML)")
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise InputError(name, int(m.group(1)) if m else None, None, f"invalid TOML ({e})", row_label="line") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:  # an integer past Python's 4,300-digit limit
        if "digits" in str(e):
            raise InputError(name, None, None, "a number with more than 4,300 digits; thresholds are small whole "
                             "numbers") from None
        raise InputError(name, None, None, f"invalid TOML ({excerpt(str(e), 120)})") from None
    _check_depth(name, obj)
    return obj
