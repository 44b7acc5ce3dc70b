"""What every pairwise judge log reader shares: the :class:`JudgeLog` a log becomes, its records
(JSON Lines, or a JSON list) with their line numbers, canonical ids (:func:`slug`), the judge a
record names and the one audited, a winner's spelling, and the candidates' lengths recovered
from FastChat's judge prompts.
"""

from __future__ import annotations

import hashlib
import json
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
    #: Slice columns (:data:`SLICE_COLUMNS`), when the log gives them: the judge's prompt template
    #: (FastChat's ``judge[1]``, "" when absent), the judged turn, the question's category
    template: NotRequired[str]
    turn: NotRequired[object]
    category: NotRequired[str]
    dataset: NotRequired[str]  # AlpacaEval: the dataset an instruction comes from


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


def _element_lines(text: str, count: int) -> list[int]:
    r"""The line each of a JSON array's ``count`` elements starts on (the text is valid JSON, read
    already): a message about a record of a pretty-printed array (AlpacaEval's annotations.json
    spans a record over a dozen lines) names the line a user finds it on, not its number.

    >>> _element_lines('[\n  {"a": 1,\n   "b": [2,\n 3]},\n  {"a": 4}\n]', 2)
    [2, 5]
    """
    decoder = json.JSONDecoder()
    lines: list[int] = []
    at, line = text.index("[") + 1, 1
    line += text.count("\n", 0, at)
    for _ in range(count):
        start = at
        while text[start] in " \t\n\r,":
            start += 1
        line += text.count("\n", at, start)
        lines.append(line)
        _, at = decoder.raw_decode(text, start)
        line += text.count("\n", start, at)
    return lines


def read_records(name: str, data: bytes) -> tuple[list[JSONObject], list[int]]:
    """A log's records and the line each starts on (JSON Lines: its line; a JSON array: the line
    its element starts on)."""
    sn = sniff(name, data)
    utf8 = transcode(name, data, sn.encoding)
    if sn.format == "json":
        obj = read_json(name, utf8)
        if not isinstance(obj, list) or not all(isinstance(r, dict) for r in obj):
            raise InputError(name, None, None, "expected a list of JSON objects (one judgment each)")
        return obj, _element_lines(utf8.decode("utf-8-sig"), len(obj))
    if sn.format == "jsonl":
        records, lines = _json_lines(name, utf8.decode("utf-8-sig"))
        return records, lines
    raise InputError(name, None, None, "expected a JSON Lines or JSON file of judgments")


#: The columns of :attr:`JudgeLog.observations` a reader adds for itself (not observation fields, not
#: slices): the join key, the line read, AlpacaEval's stated probability.
READER_COLUMNS = ("key", "line", "stated")
#: The slice columns the harness readers keep when a log gives them; any other column beside the
#: observation fields (a user's own, in agreebound's observation records or CSV) is a slice column too.
SLICE_COLUMNS = ("template", "turn", "category", "dataset")


def slice_columns(observations: pd.DataFrame) -> list[str]:
    """The slice columns of a log's observations: every column that is neither an observation field
    nor a reader's own (:data:`READER_COLUMNS`), in the frame's order.

    >>> slice_columns(pd.DataFrame(columns=[*OBSERVATION_COLUMNS, "key", "line", "template", "turn"]))
    ['template', 'turn']
    """
    return [str(c) for c in observations.columns if c not in OBSERVATION_COLUMNS and c not in READER_COLUMNS]


#: MT-Bench's questions by id (FastChat fastchat/llm_judge/data/mt_bench/question.jsonl, 80 questions
#: in this order, 10 per category): the category a question id gives.
MT_BENCH_CATEGORIES = ((81, "writing"), (91, "roleplay"), (101, "reasoning"), (111, "math"), (121, "coding"),
                       (131, "extraction"), (141, "stem"), (151, "humanities"))
#: FastChat judges these categories with the reference-guided template (pair-math-v1 and its
#: multi-turn form: fastchat/llm_judge/common.py NEED_REF_CATS), every other with pair-v2.
NEED_REF_CATEGORIES = frozenset({"math", "reasoning", "coding"})


def mt_bench_category(question_id: object) -> str | None:
    """The MT-Bench category of a question id (81 to 160), None for any other id.

    >>> mt_bench_category(81), mt_bench_category("111"), mt_bench_category(160), mt_bench_category(161)
    ('writing', 'math', 'humanities', None)
    """
    try:
        q = int(str(question_id))
    except ValueError:
        return None
    if not 81 <= q <= 160:
        return None
    return next(name for start, name in reversed(MT_BENCH_CATEGORIES) if q >= start)


def template_of(v: object) -> str:
    """The prompt template a FastChat judge field names (``[model, template]``), "" when it names none.

    >>> template_of(["gpt-4", "pair-math-v1"]), template_of("gpt-4")
    ('pair-math-v1', '')
    """
    return str(v[1]) if isinstance(v, list) and len(v) > 1 else ""


def templates_note(cases: dict[str, set[str]]) -> str | None:
    """The note a log judged with several prompt templates gets (template -> its cases), so two
    templates are said, never silently read as one judge; None for one template (or none named).

    >>> templates_note({"pair-v2": {"q1", "q2"}, "pair-math-v1": {"q3"}})
    '2 prompt templates: pair-v2 (2 cases), pair-math-v1 (1 case); split by template to audit each'
    """
    if len(cases) < 2:
        return None
    listed = sorted(cases.items(), key=lambda tc: (-len(tc[1]), tc[0]))
    said = ", ".join(f"{t or '(none named)'} ({len(c):,} case{'' if len(c) == 1 else 's'})" for t, c in listed)
    return f"{len(cases)} prompt templates: {said}; split by template to audit each"


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
