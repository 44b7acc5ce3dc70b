"""A graded or pass/fail judge's scores: :class:`ScoredLog`, what a written score is
(:func:`score_value`), and how the rows a harness's reader gathers (:class:`Gathered`) become one
log (:func:`finish_log`). The readers: :mod:`agreebound.io.scored_logs`.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import TypedDict

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.json_types import JSONValue
from agreebound.core.limits import (MAX_ROWS, MAX_SCORE_MAGNITUDE, MIN_SCORE_MAGNITUDE, SCORE_RANGE,
                                    within_magnitude)

SCORE_COLUMNS = ("item", "rater", "role", "score", "model", "length", "confidence", "line")


@dataclass(frozen=True)
class ScoredLog:
    """A graded/binary judge log as one long table of scores, and what ties it to its judge."""

    file: str  # the user's file name
    shape: str  # "inspect_ai", "promptfoo", "mt-bench single", "judgekit", "scores table"
    scores: pd.DataFrame  # SCORE_COLUMNS, one row per (item, rater) score
    scale: tuple[float, ...] | None  # the scale's allowed values when the tool fixes them, else None
    labels: dict[float, str]  # how scores were written, for display (1.0 -> "C", 0.0 -> "I")
    judges: tuple[str, ...]  # judge rater names, in first-seen order
    identity: dict[str, str]  # grader, rubric digest, tool: what ties the result to the judge
    notes: tuple[str, ...]  # what was read and what was left out, counted


# --- values ------------------------------------------------------------------------------------

#: Verdict words as numbers, and how each is shown (inspect's C/I/P; pass/fail; yes/no; true/false).
_WORDS = {"c": (1.0, "C"), "i": (0.0, "I"), "p": (0.5, "P"), "pass": (1.0, "pass"), "fail": (0.0, "fail"),
          "yes": (1.0, "yes"), "no": (0.0, "no"), "true": (1.0, "true"), "false": (0.0, "false"),
          "y": (1.0, "Y"), "n": (0.0, "N"), "correct": (1.0, "C"), "incorrect": (0.0, "I"),
          "partial": (0.5, "P")}


class ScoreRangeError(ValueError):
    """A number that cannot be a score: beyond MAX_SCORE_MAGNITUDE (or infinite), or not 0 and
    smaller than MIN_SCORE_MAGNITUDE; its text is what was expected."""


def _in_range(f: float) -> tuple[float, None]:
    if not score_size(f):
        raise ScoreRangeError(SCORE_RANGE)
    return f, None


def score_size(f: float) -> bool:
    """A score's size within the one rule (agreebound.core.limits.within_magnitude; NaN: False)."""
    return bool(within_magnitude(f, MIN_SCORE_MAGNITUDE))


def number_of(v: object) -> float | None:
    """A JSON number as a float: None for a boolean, text, NaN, an infinity or an integer too large
    for a float (``float(10**400)`` raises; so does ``math.isfinite`` of it)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def score_value(v: object) -> tuple[float, str | None] | None:
    """A written score as a number and its display label; None when the value is missing or NaN
    (not scored: each reader says whether a NaN may stand for a missing score); ValueError when it
    is not a score, ScoreRangeError when it is a number of a size no score has (:func:`score_size`).

    >>> score_value("C"), score_value("P"), score_value(True), score_value(7), score_value(" 8.5 ")
    ((1.0, 'C'), (0.5, 'P'), (1.0, 'true'), (7.0, None), (8.5, None))
    >>> score_value(float("nan")) is None, score_value("") is None
    (True, True)
    >>> score_value(1e308)
    Traceback (most recent call last):
    ...
    agreebound.io.score_values.ScoreRangeError: a score from -10^15 to 10^15, 0 or at least 10^-15 in size
    """
    if v is None:
        return None
    if isinstance(v, bool):
        return (1.0, "true") if v else (0.0, "false")
    if isinstance(v, (int, float)):
        if isinstance(v, int) and abs(v) > MAX_SCORE_MAGNITUDE:  # before float(): 10**400 overflows it
            raise ScoreRangeError(SCORE_RANGE)
        f = float(v)
        if math.isnan(f):
            return None
        return _in_range(f)
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return None
        if s.lower() in _WORDS:
            return _WORDS[s.lower()]
        try:
            f = float(s)
        except ValueError:
            raise ValueError("not a score") from None
        if math.isnan(f):
            raise ValueError("not a finite score")
        return _in_range(f)
    raise ValueError("not a score")


class Counted:
    """An answer's whitespace tokens, counted when an archive's sample was read: what is kept of
    the answer instead of its text (:func:`_kept`)."""

    __slots__ = ("n",)

    def __init__(self, text: str) -> None:
        self.n = len(text.split())


def tokens_of(text: object) -> float:
    """An answer's length in whitespace tokens, NaN when there is no text."""
    if isinstance(text, Counted):
        return float(text.n)
    return float(len(text.split())) if isinstance(text, str) else math.nan


def digest_of(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:12]


def lines_text(lines: list[int], limit: int = 8) -> str:
    shown = ", ".join(str(x) for x in lines[:limit])
    return shown + (f" and {len(lines) - limit:,} more" if len(lines) > limit else "")


def score_row(item: str, rater: str, role: str, score: float, model: str = "", length: float = math.nan,
              confidence: float = math.nan, line: int = 0) -> ScoreRow:
    return {"item": item, "rater": rater, "role": role, "score": score, "model": model, "length": length,
            "confidence": confidence, "line": line}


class ScoreRow(TypedDict):
    """One score as a reader gathers it (:data:`SCORE_COLUMNS`)."""

    item: str
    rater: str
    role: str  # "judge" or "human"
    score: float
    model: str
    length: float  # the answer's whitespace tokens; NaN: not known
    confidence: float  # NaN: none stated
    line: int


@dataclass
class Gathered:
    """What a shape reader found: the score rows, and what it left out (for the notes)."""

    rows: list[ScoreRow]
    labels: dict[float, str]
    identity: dict[str, str]
    notes: list[str]
    left_out: list[tuple[str, list[int]]]  # (why, record numbers or lines)
    unit: str = "line"  # what the row numbers count: "line" (JSON Lines) or "record"/"sample"


def finish_log(name: str, shape: str, got: Gathered, judge: str | None, scale: tuple[float, ...] | None) -> ScoredLog:
    """The shape's rows as a ScoredLog: one score per (item, rater), the chosen judge, counted notes."""
    if len(got.rows) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(got.rows):,} scores; the limit is {MAX_ROWS:,}")
    frame = pd.DataFrame(got.rows, columns=list(SCORE_COLUMNS))
    judges = tuple(dict.fromkeys(frame.loc[frame["role"] == "judge", "rater"]))
    if judge is not None:
        if judge not in judges:
            raise InputError(name, None, "judge", f"no judge {excerpt(judge)}; the log has "
                             f"{', '.join(judges) or 'no judge'}")
        frame = frame[(frame["role"] != "judge") | (frame["rater"] == judge)]
        judges = (judge,)
    repeated = frame.duplicated(["item", "rater"], keep="first")
    if repeated.any():
        got.left_out.append(("repeated scores of one item by one rater (the first is kept)",
                             frame.loc[repeated, "line"].astype(int).tolist()))
        frame = frame[~repeated.to_numpy()]
    frame = frame.reset_index(drop=True)
    if frame.empty:
        why = "; ".join(f"{len(at):,} {what}" for what, at in got.left_out)
        raise InputError(name, None, None, "no usable score in the file" + (f" ({why})" if why else ""))
    frame["score"] = frame["score"].astype(float)
    frame["length"] = frame["length"].astype(float)
    frame["confidence"] = frame["confidence"].astype(float)
    frame["line"] = frame["line"].astype(int)
    n_items, n_raters = frame["item"].nunique(), frame["rater"].nunique()
    notes = [f"{len(frame):,} scores read ({n_items:,} item{'s' * (n_items != 1)}, {n_raters:,} "
             f"rater{'s' * (n_raters != 1)})"]
    notes += got.notes
    for what, at in got.left_out:
        if at:
            notes.append(f"{len(at):,} {what} left out ({got.unit}s {lines_text(at)})")
    used = set(frame["score"])
    labels = {k: v for k, v in got.labels.items() if k in used}
    return ScoredLog(name, shape, frame, scale, labels, judges, got.identity, tuple(notes))


def is_nan(v: object) -> bool:
    return isinstance(v, float) and math.isnan(v)


def optional_number(name: str, line: int, field_: str, v: JSONValue, label: str, strict: bool = True) -> float:
    """An optional number (an answer's length, a confidence): NaN when absent; a value that is not a
    finite number is refused, located (``strict`` False: read as absent, as judgekit's optional
    fields are), and so is one beyond MAX_SCORE_MAGNITUDE."""
    if v is None or v == "":
        return math.nan
    try:
        f = float(v) if not isinstance(v, bool) else math.nan
    except (TypeError, ValueError, OverflowError):
        f = math.nan
    if math.isnan(f) or math.isinf(f):
        if not strict and (not isinstance(v, (int, float)) or isinstance(v, bool)):
            return math.nan
        raise InputError(name, line, field_, f"expected a number, got {excerpt(v)}", row_label=label)
    if not abs(f) <= MAX_SCORE_MAGNITUDE:
        raise InputError(name, line, field_, f"expected a number from -10^15 to 10^15, got {excerpt(v)}",
                         row_label=label)
    return f
