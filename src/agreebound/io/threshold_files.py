"""A thresholds file (JSON or TOML: ``panel`` / ``calibration`` tables and named ``presets``) or a
link's ``th=`` parameter -> thresholds, every value in its legal range, or an error naming the key
and its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agreebound.core.errors import InputError
from agreebound.io.json_toml import read_json, read_toml
from agreebound.io.tables import decode_text
from agreebound.core.thresholds import PRESETS, ThresholdError, ThresholdSet, threshold_set_from_dict


@dataclass(frozen=True)
class ThresholdFile:
    file: str
    thresholds: ThresholdSet
    presets: dict[str, ThresholdSet]


def _threshold_error(name: str, text: str, e: ThresholdError, is_toml: bool) -> InputError:
    line = None
    if e.key:
        leaf = e.key.split(".")[-1]
        m = re.search(rf"^[ \t]*\"?{re.escape(leaf)}\"?[ \t]*[=:]", text, re.M) if is_toml else None
        if m is None:
            m = re.search(rf"[{{,\s]\"?{re.escape(leaf)}\"?\s*[=:]", text)
        if m is not None:
            line = text.count("\n", 0, m.start()) + 1 + (1 if text[m.start()] == "\n" else 0)
    return InputError(name, line, e.key, str(e), row_label="line")


def parse_thresholds(name: str, data: bytes) -> ThresholdFile:
    """JSON or TOML: ``panel`` / ``calibration`` tables and optional named ``presets``; every value
    in its legal range (agreebound.core.thresholds.RANGES), or an error naming the key and its line."""
    text = decode_text(name, data, "a thresholds file (JSON or TOML)")
    lower = name.lower()
    is_toml = lower.endswith(".toml") or (not lower.endswith(".json") and not text.lstrip().startswith(("{", "[")))
    obj = read_toml(name, data) if is_toml else read_json(name, data)
    if not isinstance(obj, dict):
        raise InputError(name, None, None, "expected a table with panel, calibration and/or presets")
    presets_raw = obj.get("presets", {})
    base = {k: v for k, v in obj.items() if k != "presets"}
    try:
        main = threshold_set_from_dict(base, f"file:{name}")
    except ThresholdError as e:
        raise _threshold_error(name, text, e, is_toml) from None
    if not isinstance(presets_raw, dict):
        raise InputError(name, None, "presets", "expected a table of named presets")
    presets = dict(PRESETS)
    for pname, pdata in presets_raw.items():
        if pname in PRESETS:  # a run would name the built-in preset while deciding on the file's values
            at = text.find(pname)
            raise InputError(name, text.count("\n", 0, at) + 1 if at >= 0 else None, f"presets.{pname}",
                             f"{pname!r} is a built-in preset's name; give the file's preset its own name",
                             row_label="line")
        try:
            presets[pname] = threshold_set_from_dict(pdata, f"preset:{pname}", prefix=f"presets.{pname}.")
        except ThresholdError as e:
            raise _threshold_error(name, text, e, is_toml) from None
    return ThresholdFile(name, main, presets)


def parse_threshold_link(text: str) -> ThresholdSet:
    """Thresholds from a link's ``th=`` parameter (JSON), validated like a file; raises InputError."""
    from agreebound.core.limits import MAX_URL_PARAM_CHARS

    if len(text) > MAX_URL_PARAM_CHARS:
        raise InputError("link", None, "th", f"the parameter is {len(text):,} characters; the limit is {MAX_URL_PARAM_CHARS:,}")
    obj = read_json("link", text.encode("utf-8", "replace"))
    try:
        return threshold_set_from_dict(obj, "link")
    except ThresholdError as e:
        raise InputError("link", None, e.key, str(e)) from None
