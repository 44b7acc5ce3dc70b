"""What every pairwise judge log reader shares: the :class:`JudgeLog` a log becomes, its records
(JSON Lines, or a JSON list) with their line numbers, canonical ids (:func:`slug`), the judge a
record names and the one audited, a winner's spelling, and the candidates' lengths recovered
from FastChat's judge prompts.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Hashable, NotRequired, TypedDict

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.json_toml import read_json
from agreebound.io.readers import json_line_records
from agreebound.io.sniff import sniff
from agreebound.io.tables import transcode
from agreebound.core.json_types import JSONObject

OBSERVATION_COLUMNS = ("case_id", "order", "repetition", "selected_candidate", "candidate_a_tokens",
                       "candidate_b_tokens", "candidate_a_generator", "candidate_b_generator", "judge_generator")
_ID = re.compile(r"[^a-z0-9._:-]+")


def slug(text: object, prefix: str = "x") -> str:
    """A canonical identifier (the seed's ``^[a-z][a-z0-9._:-]{2,95}$``) for any name."""
    s = _ID.sub("-", str(text).lower()).strip("-") or "x"
    if not s[0].isalpha():
        s = f"{prefix}-{s}"
    if len(s) > 95:
        s = s[:80] + "-" + hashlib.sha256(str(text).encode()).hexdigest()[:12]
    return s if len(s) >= 3 else (s + "---")[:3]


class ObservationRow(TypedDict):
    """One judgment as a harness's reader makes it: a row of :attr:`JudgeLog.observations`."""

    case_id: str
    order: str | None  # "ab", "ba"; None when the log does not say
    repetition: int
    selected_candidate: str  # "a", "b" or "tie"
    candidate_a_tokens: float | None  # whitespace tokens (a whole number; a score table's may be a float)
    candidate_b_tokens: float | None
    candidate_a_generator: str | None
    candidate_b_generator: str | None
    judge_generator: str
    key: Hashable  # what joins the case to its references
    line: int
    #: AlpacaEval: the annotator's stated probability that the second output is the better
    stated: NotRequired[float]


@dataclass(frozen=True)
class JudgeLog:
    file: str
    shape: str
    observations: pd.DataFrame  # OBSERVATION_COLUMNS + "key" (what joins a case to its references)
    judges: tuple[str, ...]
    lacks: tuple[str, ...]  # of agreebound.judge.partial.LACKS
    notes: tuple[str, ...] = ()
    case_keys: dict[Hashable, str] = field(default_factory=dict)  # join key -> case id
    candidates: dict[str, tuple[str, str]] = field(default_factory=dict)  # case id -> (a model, b model)


def _json_lines(name: str, text: str) -> tuple[list[JSONObject], list[int]]:
    """Every record of a JSON Lines log and its line number."""
    records: list[JSONObject] = []
    lines: list[int] = []
    for obj, i in json_line_records(name, text):
        records.append(obj)
        lines.append(i)
    if not records:
        raise InputError(name, None, None, "the file has no JSON records")
    return records, lines


def read_records(name: str, data: bytes) -> tuple[list[JSONObject], list[int]]:
    sn = sniff(name, data)
    utf8 = transcode(name, data, sn.encoding)
    if sn.format == "json":
        obj = read_json(name, utf8)
        if not isinstance(obj, list) or not all(isinstance(r, dict) for r in obj):
            raise InputError(name, None, None, "expected a list of JSON objects (one judgment each)")
        return obj, list(range(1, len(obj) + 1))
    if sn.format == "jsonl":
        records, lines = _json_lines(name, utf8.decode("utf-8-sig"))
        return records, lines
    raise InputError(name, None, None, "expected a JSON Lines or JSON file of judgments")


def judge_name(v: object) -> str:
    if isinstance(v, list) and v:
        return str(v[0])  # FastChat writes [model, prompt template]
    return str(v)


def winner_of(v: object, name: str, line: int) -> str | None:
    if v in ("model_1", "model_a"):
        return "a"
    if v in ("model_2", "model_b"):
        return "b"
    if isinstance(v, str) and v.startswith("tie"):
        return "tie"
    if v == "error":
        return None
    raise InputError(name, line, "winner", f"expected model_1, model_2, tie or error, got {excerpt(v)}", row_label="line")


def pick_judge(name: str, found: Counter[str], judge: str | None) -> str:
    if judge is not None:
        if judge not in found:
            raise InputError(name, None, "judge", f"no judge {excerpt(judge)}; the log has {', '.join(sorted(found))}")
        return judge
    if len(found) > 1:
        raise InputError(name, None, "judge", f"the log holds {len(found)} judges ({', '.join(sorted(found))}); "
                         "audit one at a time (--judge NAME, or pick it on the Judge page)")
    return next(iter(found))


#: How a recovered candidate length is measured, said in the log's notes and the report.
LENGTH_MEASURE = "candidate lengths: whitespace tokens of each answer, recovered from the judge prompt"


def between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return None if j < 0 else text[i + len(start):j]


def _turn_answer(conversation: str, who: str, turn: object) -> str | None:
    """The assistant's answer to the judged turn in a FastChat multi-turn block ("### User:" /
    "### Assistant A:" sections): answer number ``turn`` (1-based), else the last one."""
    parts = re.split(rf"^### Assistant {who}:[ \t]*\n", conversation, flags=re.M)[1:]
    if not parts:
        return None
    answers = [re.split(r"^### User:[ \t]*$", p, maxsplit=1, flags=re.M)[0] for p in parts]
    k = turn if isinstance(turn, int) and not isinstance(turn, bool) and 1 <= turn <= len(answers) else len(answers)
    return answers[k - 1]


def prompt_answers(prompt: object, turn: object = 1) -> tuple[str, str] | None:
    """Assistant A's and B's answers in a FastChat pairwise judge prompt (pair-v2, pair-math-v1 and
    their multi-turn forms), or None when the prompt does not hold both."""
    if not isinstance(prompt, str):
        return None
    out = []
    for who in "AB":
        answer = between(prompt, f"[The Start of Assistant {who}'s Answer]", f"[The End of Assistant {who}'s Answer]")
        if answer is None:
            block = between(prompt, f"<|The Start of Assistant {who}'s Conversation with User|>",
                            f"<|The End of Assistant {who}'s Conversation with User|>")
            answer = None if block is None else _turn_answer(block, who, turn)
        if answer is None:
            return None
        out.append(answer)
    return out[0], out[1]


def answer_tokens(text: str) -> int:
    """An answer's length: whitespace tokens (``len(text.split())``), at least 1 (the seed's floor)."""
    return max(1, min(len(text.split()), 1_000_000))


def record_lengths(r: JSONObject) -> tuple[tuple[int, int] | None, bool]:
    """(model_1's tokens, model_2's tokens) from a pair judgment's prompts, and whether its two
    games' prompts disagree. Game 1 shows model_1 as assistant A; game 2 swaps them (A = model_2)."""
    turn = r.get("turn", 1)
    g1 = prompt_answers(r.get("g1_user_prompt"), turn)
    g2 = prompt_answers(r.get("g2_user_prompt"), turn)
    one = None if g1 is None else (answer_tokens(g1[0]), answer_tokens(g1[1]))
    two = None if g2 is None else (answer_tokens(g2[1]), answer_tokens(g2[0]))  # swapped back: (model_1, model_2)
    return (one or two), (one is not None and two is not None and one != two)


def positive_int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 10**6 else None
