"""The one name for JSON read or written as data: a report, a stored recipe or run, a file's parsed
JSON, threshold data as a file holds it.

Its values are whatever JSON holds (null, a boolean, a number, text, a list, an object), read by key
where the schema (``agreebound schema``) or the format says what they are, so the value type is
``Any``: spelled here, once, and nowhere else for JSON.
"""

from __future__ import annotations

from typing import Any, TypeAlias

#: Any JSON value as :func:`json.loads` returns it (None, bool, int, float, str, list, dict).
JSONValue: TypeAlias = Any
#: A JSON object: text keys, JSON values (a report, a stored recipe, a parsed file's object).
JSONObject: TypeAlias = "dict[str, JSONValue]"
