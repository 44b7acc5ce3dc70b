"""Which kind of judge log a file is, from its first bytes: a pairwise judge's log
(:func:`is_judge_log`), a graded or pass/fail judge's (:func:`is_scored_log`), and the refusal of
either where ratings are expected. The shapes are in :data:`agreebound.io.registry.FORMATS`; these
answer for a whole file the way the readers will read it.
"""

from __future__ import annotations

import json

from agreebound.core.errors import InputError
from agreebound.io.json_toml import read_json
from agreebound.io.sniff import utf16_as_utf8
from agreebound.io.registry import judge_log_shape, scored_log_shape, scores_header


def is_judge_log(name: str, data: bytes) -> bool:
    """A judge log (JSON Lines, or an AlpacaEval list) rather than a bundle or a contract."""
    data = utf16_as_utf8(data) or data
    head = data[:65536].lstrip()
    try:
        if head.startswith(b"["):
            obj = read_json(name, data)
            return isinstance(obj, list) and bool(obj) and isinstance(obj[0], dict) and judge_log_shape(obj[0]) is not None
        first = head.split(b"\n", 1)[0]
        obj = json.loads(first)
        return isinstance(obj, dict) and judge_log_shape(obj) is not None
    except (ValueError, UnicodeDecodeError, RecursionError, InputError):
        return False  # not a log: the bundle reader says what is wrong with it


def scored_log_kind(name: str, data: bytes) -> str | None:
    """A harness's graded or pass/fail judge log (JSON: inspect_ai, promptfoo, MT-Bench single,
    judgekit), its shape by its fields; None for anything else (a scores table CSV is also a
    rating file a panel may read: not refused)."""
    data = utf16_as_utf8(data) or data
    head = data[:65536].lstrip()
    if data[:4] == b"PK\x03\x04":
        return "inspect_ai" if name.lower().endswith(".eval") else None
    if head[:1] != b"{":
        return None
    return scored_shape(name, data)


def refuse_judge_log(name: str, data: bytes) -> None:
    """Ratings are not a judge log: a graded or pass/fail judge's log says so before it is read as ratings."""
    kind = scored_log_kind(name, data)
    if kind is not None:
        raise InputError(name, None, None, f"this is an LLM-judge log ({kind}), not ratings: audit it with "
                         "'agreebound calibrate' (human labels: --references) or on the Judge calibration page")


def is_scored_log(name: str, data: bytes) -> bool:
    """A graded or pass/fail judge's log (agreebound.io.scored_logs: inspect_ai, promptfoo, MT-Bench
    single-answer grading, judgekit/judgecal JSONL, a scores table) rather than a pairwise one."""
    if data[:4] == b"PK\x03\x04":  # a zip: inspect_ai's .eval archive
        return name.lower().endswith(".eval")
    data = utf16_as_utf8(data) or data
    head = data[:65536].lstrip()
    if head.startswith((b"{", b"[")):  # one JSON document (a JSON array of score records too), or JSON Lines
        return scored_shape(name, data) is not None
    return scores_header(head)


def scored_shape(name: str, data: bytes) -> str | None:
    """The shape of a JSON or JSON Lines judge log that io.scored_logs reads, by its first record's
    fields (the whole object for one JSON document); None when it is not one."""
    data = utf16_as_utf8(data) or data
    head = data[:65536].lstrip()
    try:
        try:  # JSON Lines: its first record
            obj = json.loads(head.split(b"\n", 1)[0])
        except ValueError:  # one JSON document (inspect_ai's log, with its NaN scores; promptfoo's results)
            obj = json.loads(data.decode("utf-8-sig"), parse_constant=lambda _: None)
        if isinstance(obj, list):  # a JSON array of records: its first record says the shape
            obj = next((r for r in obj if isinstance(r, dict)), None) if obj else None
        return scored_log_shape(obj) if isinstance(obj, dict) else None
    except (ValueError, UnicodeDecodeError, RecursionError, InputError):
        return None  # not a scored log: the other readers say what is wrong with it
