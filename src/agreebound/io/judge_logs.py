"""LLM-judge logs as evaluation harnesses write them, read into the seed's observation fields.

Shapes recognised by their fields (no mapping needed):

* FastChat MT-Bench pairwise judgments (``model_judgment/*_pair.jsonl``): ``question_id, model_1,
  model_2, g1_winner, g2_winner, judge, turn``. Game 1 shows model_1 first (order ab), game 2
  shows model_2 first (order ba); both winners are already named by model. ``error`` is a
  judgment that could not be parsed (left out, and said). When the judge prompts hold both answers
  (``g1_user_prompt``/``g2_user_prompt`` written from FastChat's pair templates: "[The Start of
  Assistant A's Answer]" ... or, multi-turn, "<|The Start of Assistant A's Conversation with
  User|>" ... "### Assistant A:"), the candidates' lengths are recovered from them: whitespace
  tokens (``len(text.split())``) of each answer (multi-turn: of the answer to the judged turn).
* FastChat MT-Bench human judgments (references): ``question_id, model_a, model_b, winner, judge,
  turn``, one line per human vote.
* AlpacaEval annotations: ``instruction, output_1, output_2, generator_1, generator_2,
  preference`` (1, 2, or 1.5 for a tie; weighted annotators give fractions). Lengths are the
  outputs' lengths in characters. The presentation order is not recorded.
* arena-hard judgments (``data/<bench>/model_judgment/<judge>/<model>.jsonl``, lmarena/arena-hard-auto
  gen_judgment.py): ``question_id`` (v0.1) or ``uid`` (v2), ``model``, ``judge``, [``baseline``],
  ``games`` = [game 1, game 2]. Game 1 shows the baseline as assistant A (order ab), game 2 shows the
  model as A (order ba); ``score`` "A>>B"/"A>B" select the answer shown as A, "B>A"/"B>>A" the one
  shown as B, "A=B" is a tie, and null (or any other label) is a judgment the harness could not
  parse (left out, counted). The strength (>> against >) is collapsed, and counted in the notes.
  Candidate a is the baseline, b the model. v0.1 records do not name the baseline model.
* judgekit pairwise verdicts: ``kind: "pairwise", item_id, choice`` (a/b/tie in canonical space),
  ``swapped`` (order ba), ``sample_index``, ``a_len, b_len`` (the log's own unit), ``a_model,
  b_model``, ``judge_id``; ``judge_id: "human"`` verdicts are references, not the judge's.
* judgecal judgments (``judgecal ingest`` output): ``custom_id, verdict`` (first/second/tie/
  invalid, in presented order), ``meta`` (probe, condition, item_id, repeat, first_is_a, first_len,
  second_len, first_author, second_author). One execution fanned out to several probes is one
  judgment (by ``custom_id``); the position and stability probes' judgments (default template,
  original answers) are read; the verbosity probe's padded answers and the template probe's
  paraphrased prompts are other cases and other judges, left out and counted. The judge model is
  not in the file: name it with ``judge``.

Every other shape takes a mapping from its fields to the observation fields.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.json_toml import read_json, read_toml
from agreebound.io.readers import json_line_records, judge_log_shape
from agreebound.io.records import csv_records
from agreebound.io.sniff import sniff
from agreebound.io.tables import transcode
from agreebound.core.limits import MAX_ROWS

OBSERVATION_COLUMNS = ("case_id", "order", "repetition", "selected_candidate", "candidate_a_tokens",
                       "candidate_b_tokens", "candidate_a_generator", "candidate_b_generator", "judge_generator")
_ID = re.compile(r"[^a-z0-9._:-]+")


def slug(text: Any, prefix: str = "x") -> str:
    """A canonical identifier (the seed's ``^[a-z][a-z0-9._:-]{2,95}$``) for any name."""
    s = _ID.sub("-", str(text).lower()).strip("-") or "x"
    if not s[0].isalpha():
        s = f"{prefix}-{s}"
    if len(s) > 95:
        s = s[:80] + "-" + hashlib.sha256(str(text).encode()).hexdigest()[:12]
    return s if len(s) >= 3 else (s + "---")[:3]


@dataclass(frozen=True)
class JudgeLog:
    file: str
    shape: str
    observations: pd.DataFrame  # OBSERVATION_COLUMNS + "key" (what joins a case to its references)
    judges: tuple[str, ...]
    lacks: tuple[str, ...]  # of agreebound.judge.calibration.LACKS
    notes: tuple[str, ...] = ()
    case_keys: dict[Any, str] = field(default_factory=dict)  # join key -> case id
    candidates: dict[str, tuple[str, str]] = field(default_factory=dict)  # case id -> (a model, b model)


def _json_lines(name: str, text: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Every record of a JSON Lines log and its line number."""
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    for obj, i in json_line_records(name, text):
        records.append(obj)
        lines.append(i)
    if not records:
        raise InputError(name, None, None, "the file has no JSON records")
    return records, lines


def _records(name: str, data: bytes) -> tuple[list[dict[str, Any]], list[int]]:
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


def _judge_name(v: Any) -> str:
    if isinstance(v, list) and v:
        return str(v[0])  # FastChat writes [model, prompt template]
    return str(v)


def _winner(v: Any, name: str, line: int) -> str | None:
    if v in ("model_1", "model_a"):
        return "a"
    if v in ("model_2", "model_b"):
        return "b"
    if isinstance(v, str) and v.startswith("tie"):
        return "tie"
    if v == "error":
        return None
    raise InputError(name, line, "winner", f"expected model_1, model_2, tie or error, got {excerpt(v)}", row_label="line")


@dataclass(frozen=True)
class LogMapping:
    """How another harness's judgment records become observation records: which of its fields
    is which observation field, and how its values read (``{"order": {"1": "ab", "2": "ba"}}``).
    A mapping file is JSON or TOML: ``{"judge_log": {"fields": {...}, "values": {...}, "judge": "..."}}``."""

    fields: dict[str, str]
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    judge: str | None = None  # the judge's name, when the records do not carry one

    def __post_init__(self) -> None:
        unknown = [f for f in list(self.fields) + list(self.values) if f not in OBSERVATION_COLUMNS]
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not an observation field; they are {', '.join(OBSERVATION_COLUMNS)}")
        for need in ("case_id", "selected_candidate"):
            if need not in self.fields:
                raise ValueError(f"the mapping must name the field that holds {need}")

    def apply(self, record: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for target, source in self.fields.items():
            if source in record:
                v = record[source]
                table = self.values.get(target)
                if table is not None and str(v) in table:
                    v = table[str(v)]
                out[target] = v
        if self.judge is not None and "judge_generator" not in out:
            out["judge_generator"] = self.judge
        raw = out.get("case_id")
        if raw is not None:
            text = str(raw)
            out["_key"] = text
            out["case_id"] = text if _CANONICAL.fullmatch(text) else slug(text, "case")
        return out

    def to_json(self) -> str:
        body: dict[str, Any] = {"fields": self.fields}
        if self.values:
            body["values"] = self.values
        if self.judge is not None:
            body["judge"] = self.judge
        return json.dumps({"judge_log": body}, indent=2) + "\n"


_CANONICAL = re.compile(r"^[a-z][a-z0-9._:-]{2,95}$")


def parse_log_mapping(name: str, data: bytes) -> LogMapping:
    """A judge-log mapping file (JSON, or TOML by its name)."""
    if name.lower().endswith(".toml"):
        obj = read_toml(name, data)
    else:
        obj = read_json(name, data)
    if not isinstance(obj, dict) or set(obj) != {"judge_log"} or not isinstance(obj["judge_log"], dict):
        raise InputError(name, None, None, 'expected {"judge_log": {"fields": {observation field: your field}, '
                         '"values": {...}}}')
    body = obj["judge_log"]
    extra = [k for k in body if k not in ("fields", "values", "judge")]
    if extra:
        raise InputError(name, None, f"judge_log.{extra[0]}", "unknown key; expected fields, values, judge")
    fields_ = body.get("fields")
    if not isinstance(fields_, dict) or not all(isinstance(v, str) for v in fields_.values()):
        raise InputError(name, None, "judge_log.fields", "expected an object: observation field -> the log's field name")
    values = body.get("values", {})
    if not isinstance(values, dict) or not all(isinstance(t, dict) for t in values.values()):
        raise InputError(name, None, "judge_log.values", "expected an object: observation field -> {your value: ours}")
    judge = body.get("judge")
    if judge is not None and not isinstance(judge, str):
        raise InputError(name, None, "judge_log.judge", "expected the judge's name as text")
    try:
        return LogMapping(dict(fields_), {k: {str(a): b for a, b in t.items()} for k, t in values.items()}, judge)
    except ValueError as e:
        raise InputError(name, None, "judge_log.fields", str(e)) from None


def read_judge_log(name: str, data: bytes, judge: str | None = None, mapping: LogMapping | None = None) -> JudgeLog:
    records, lines = _records(name, data)
    if not records:
        raise InputError(name, None, None, "the file has no judgments")
    if len(records) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(records):,} judgments; the limit is {MAX_ROWS:,}")
    if mapping is not None:
        present = set().union(*(r.keys() for r in records))
        absent = [src for src in mapping.fields.values() if src not in present]
        if absent:
            raise InputError(name, lines[0], absent[0], "the mapping names this field, but no record has it; the "
                             f"records have {', '.join(map(str, sorted(present, key=str)[:20]))}", row_label="line")
        log = _observations(name, [mapping.apply(r) for r in records], lines, judge)
        renamed = sorted({r["_key"] for r in (mapping.apply(x) for x in records[:1000])} - set(log.case_keys.values()))
        note = (f"read through a mapping: {', '.join(f'{t} <- {s}' for t, s in mapping.fields.items())}",)
        if renamed:
            note += (f"case ids made canonical identifiers (e.g. {excerpt(renamed[0])} -> "
                     f"{log.case_keys.get(renamed[0])}); references join by either",)
        return replace(log, notes=note + log.notes)
    shape = judge_log_shape(records[0])
    if shape == "mt-bench judgments":
        return _mt_bench(name, records, lines, judge)
    if shape == "alpacaeval annotations":
        return _alpacaeval(name, records, lines, judge)
    if shape == "observations":
        return _observations(name, records, lines, judge)
    if shape == "arena-hard judgments":
        return _arena_hard(name, records, lines, judge)
    if shape == "judgekit pairwise":
        return _judgekit_pairwise(name, records, lines, judge)
    if shape == "judgecal judgments":
        return _judgecal(name, records, lines, judge)
    if shape == "mt-bench human judgments":
        raise InputError(name, None, None, "these are human judgments (references): give them as the references "
                         "of a judge log")
    raise InputError(name, None, None, "not a judge log this version recognises (MT-Bench judgments, AlpacaEval "
                     f"annotations); its first record has {', '.join(map(str, list(records[0])[:12]))}")


def judges_in(name: str, data: bytes) -> tuple[str, ...]:
    """The judges a log holds, most judgments first (the Judge page's picker)."""
    records, _ = _records(name, data)
    if not records:
        return ()
    shape = judge_log_shape(records[0])
    key = {"mt-bench judgments": lambda r: _judge_name(r.get("judge")),
           "alpacaeval annotations": lambda r: str(r.get("annotator", "annotator")),
           "observations": lambda r: str(r.get("judge_generator", "judge")),
           "arena-hard judgments": lambda r: str(r.get("judge")),
           "judgekit pairwise": lambda r: str(r.get("judge_id", "judge")),
           "judgecal judgments": lambda r: "judge"}.get(shape)
    if key is None:
        return ()
    return tuple(j for j, _ in Counter(key(r) for r in records).most_common()
                 if not (shape == "judgekit pairwise" and j == "human"))


def _pick_judge(name: str, found: Counter, judge: str | None) -> str:
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


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return None if j < 0 else text[i + len(start):j]


def _turn_answer(conversation: str, who: str, turn: Any) -> str | None:
    """The assistant's answer to the judged turn in a FastChat multi-turn block ("### User:" /
    "### Assistant A:" sections): answer number ``turn`` (1-based), else the last one."""
    parts = re.split(rf"^### Assistant {who}:[ \t]*\n", conversation, flags=re.M)[1:]
    if not parts:
        return None
    answers = [re.split(r"^### User:[ \t]*$", p, maxsplit=1, flags=re.M)[0] for p in parts]
    k = turn if isinstance(turn, int) and not isinstance(turn, bool) and 1 <= turn <= len(answers) else len(answers)
    return answers[k - 1]


def prompt_answers(prompt: Any, turn: Any = 1) -> tuple[str, str] | None:
    """Assistant A's and B's answers in a FastChat pairwise judge prompt (pair-v2, pair-math-v1 and
    their multi-turn forms), or None when the prompt does not hold both."""
    if not isinstance(prompt, str):
        return None
    out = []
    for who in "AB":
        answer = _between(prompt, f"[The Start of Assistant {who}'s Answer]", f"[The End of Assistant {who}'s Answer]")
        if answer is None:
            block = _between(prompt, f"<|The Start of Assistant {who}'s Conversation with User|>",
                             f"<|The End of Assistant {who}'s Conversation with User|>")
            answer = None if block is None else _turn_answer(block, who, turn)
        if answer is None:
            return None
        out.append(answer)
    return out[0], out[1]


def answer_tokens(text: str) -> int:
    """An answer's length: whitespace tokens (``len(text.split())``), at least 1 (the seed's floor)."""
    return max(1, min(len(text.split()), 1_000_000))


def _record_lengths(r: dict[str, Any]) -> tuple[tuple[int, int] | None, bool]:
    """(model_1's tokens, model_2's tokens) from a pair judgment's prompts, and whether its two
    games' prompts disagree. Game 1 shows model_1 as assistant A; game 2 swaps them (A = model_2)."""
    turn = r.get("turn", 1)
    g1 = prompt_answers(r.get("g1_user_prompt"), turn)
    g2 = prompt_answers(r.get("g2_user_prompt"), turn)
    one = None if g1 is None else (answer_tokens(g1[0]), answer_tokens(g1[1]))
    two = None if g2 is None else (answer_tokens(g2[1]), answer_tokens(g2[0]))  # swapped back: (model_1, model_2)
    return (one or two), (one is not None and two is not None and one != two)


def _mt_bench(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(_judge_name(r.get("judge")) for r in records)
    chosen = _pick_judge(name, found, judge)
    rows: list[dict[str, Any]] = []
    keys: dict[Any, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    reps: Counter = Counter()
    errors = 0
    lengths: dict[str, tuple[int, int]] = {}  # case -> (model_1's tokens, model_2's), from the judge prompts
    disagree = 0
    for r, line in zip(records, lines):
        if _judge_name(r.get("judge")) != chosen:
            continue
        for f in ("question_id", "model_1", "model_2", "g1_winner", "g2_winner"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an MT-Bench judgment", row_label="line")
        m1, m2, turn = str(r["model_1"]), str(r["model_2"]), r.get("turn", 1)
        case = slug(f"q{r['question_id']}-t{turn}-{m1}-vs-{m2}", "q")
        key = (str(r["question_id"]), str(turn), frozenset((m1, m2)))
        if keys.setdefault(key, case) != case:
            raise InputError(name, line, "model_1", f"question {r['question_id']} turn {turn} compares {m1} and {m2} "
                             "again in the other order; one pair per question and turn", row_label="line")
        candidates[case] = (m1, m2)
        found_lengths, differ = _record_lengths(r)
        disagree += differ
        if found_lengths is not None:
            lengths.setdefault(case, found_lengths)  # a case's lengths are its first judgment's
        for order, field_ in (("ab", "g1_winner"), ("ba", "g2_winner")):
            sel = _winner(r[field_], name, line)
            if sel is None:
                errors += 1
                continue
            reps[(case, order)] += 1
            rows.append({"case_id": case, "order": order, "repetition": reps[(case, order)], "selected_candidate": sel,
                         "candidate_a_tokens": None, "candidate_b_tokens": None, "candidate_a_generator": slug(m1, "m"),
                         "candidate_b_generator": slug(m2, "m"), "judge_generator": slug(chosen, "m"), "key": key,
                         "line": line})
    if not rows:
        raise InputError(name, None, None, f"no usable judgments by {excerpt(chosen)}")
    judged = {row["case_id"] for row in rows}
    with_lengths = judged & set(lengths)
    lacks = []
    if with_lengths == judged:  # every case's lengths, or none: a verbosity rate over some cases only would mislead
        for row in rows:
            row["candidate_a_tokens"], row["candidate_b_tokens"] = lengths[row["case_id"]]
    else:
        lacks.append("lengths")
    if max(reps.values()) < 2:
        lacks.append("repetitions")
    notes = [f"read as MT-Bench pairwise judgments by {chosen}: {len(candidates):,} cases (question, turn, model "
             "pair); game 1 is order ab, game 2 order ba"]
    if with_lengths == judged:
        notes.append(f"{LENGTH_MEASURE} (game 1's prompt: assistant A is model_1; for a multi-turn judgment, the "
                     "answer to the judged turn)")
        if disagree:
            notes.append(f"{disagree:,} judgments' two prompts give different lengths: game 1's are used")
    elif with_lengths:
        notes.append(f"the judge prompts hold both answers for {len(with_lengths):,} of {len(judged):,} cases: "
                     "candidate lengths need every case's, so none are used")
    if errors:
        notes.append(f"{errors:,} judgments the harness could not parse ('error') were left out")
    return JudgeLog(name, "mt-bench judgments", pd.DataFrame(rows), tuple(sorted(found)), tuple(lacks), tuple(notes),
                    keys, candidates)


def _alpacaeval(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(str(r.get("annotator", "annotator")) for r in records)
    chosen = _pick_judge(name, found, judge)
    rows: list[dict[str, Any]] = []
    keys: dict[Any, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    reps: Counter = Counter()
    rounded = 0
    for r, line in zip(records, lines):
        if str(r.get("annotator", "annotator")) != chosen:
            continue
        for f in ("instruction", "output_1", "output_2", "preference"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an AlpacaEval annotation", row_label="line")
        pref = r["preference"]
        if isinstance(pref, bool) or not isinstance(pref, (int, float)) or not 1 <= pref <= 2:
            if pref is None:
                continue
            raise InputError(name, line, "preference", f"expected a number from 1 to 2, got {excerpt(pref)}",
                             row_label="line")
        sel = "a" if pref < 1.5 else "b" if pref > 1.5 else "tie"
        rounded += pref not in (1, 1.5, 2)
        g1, g2 = str(r.get("generator_1", "output_1")), str(r.get("generator_2", "output_2"))
        digest = hashlib.sha256(json.dumps([r["instruction"], g1, g2]).encode()).hexdigest()[:16]
        case = f"alpaca-{digest}"
        key = (str(r["instruction"]), frozenset((g1, g2)))
        keys.setdefault(key, case)
        candidates[case] = (g1, g2)
        reps[case] += 1
        rows.append({"case_id": case, "order": None, "repetition": reps[case], "selected_candidate": sel,
                     "candidate_a_tokens": max(1, min(len(str(r["output_1"])), 10**6)),
                     "candidate_b_tokens": max(1, min(len(str(r["output_2"])), 10**6)),
                     "candidate_a_generator": slug(g1, "m"), "candidate_b_generator": slug(g2, "m"),
                     "judge_generator": slug(chosen, "m"), "key": key, "line": line,
                     # the annotator's stated probability that output_2 is the better (a weighted
                     # annotator's preference - 1): its confidence, scored against the humans
                     "stated": float(pref) - 1.0})
    if not rows:
        raise InputError(name, None, None, f"no usable annotations by {excerpt(chosen)}")
    lacks = ["orders", "repetitions"]
    notes = [f"read as AlpacaEval annotations by {chosen}: {len(candidates):,} cases (instruction, generator pair); "
             "lengths are the outputs' lengths in characters"]
    if rounded:
        notes.append(f"{rounded:,} fractional preferences were read as the nearer candidate (1.5 is a tie)")
    return JudgeLog(name, "alpacaeval annotations", pd.DataFrame(rows), tuple(sorted(found)), tuple(lacks),
                    tuple(notes), keys, candidates)


#: arena-hard's verdict labels: which answer, as shown, the judge chose, and whether strongly.
ARENA_VERDICTS = {"A>>B": ("A", True), "A>B": ("A", False), "A=B": ("tie", False), "B>A": ("B", False),
                  "B>>A": ("B", True)}


def _arena_answers(game: dict[str, Any]) -> tuple[int, int] | None:
    """Assistant A's and B's answers' whitespace tokens in an arena-hard judge prompt (v0.1:
    ``user_prompt``; v2: the user message of ``prompt``)."""
    prompt = game.get("user_prompt")
    if prompt is None and isinstance(game.get("prompt"), list):
        prompt = next((m.get("content") for m in game["prompt"] if isinstance(m, dict) and m.get("role") == "user"), None)
    if not isinstance(prompt, str):
        return None
    found = [_between(prompt, f"<|The Start of Assistant {w}'s Answer|>", f"<|The End of Assistant {w}'s Answer|>")
             for w in "AB"]
    if found[0] is None or found[1] is None:
        return None
    return answer_tokens(found[0]), answer_tokens(found[1])


def _arena_game(name: str, line: int, game: Any, order: str, counts: Counter) -> str | None:
    """A game's canonical selection (a = the baseline), or None when it was not judged or parsed."""
    if game is not None and not isinstance(game, dict):
        raise InputError(name, line, "games", f"expected a game object or null, got {excerpt(game)}", row_label="line")
    score = game.get("score") if isinstance(game, dict) else None
    if score is not None and not isinstance(score, str):
        raise InputError(name, line, "games.score", f"expected a verdict label like A>B, got {excerpt(score)}",
                         row_label="line")
    verdict = ARENA_VERDICTS.get(score.strip()) if isinstance(score, str) else None
    if verdict is None:
        counts["unparsed"] += 1
        return None
    counts["strong" if verdict[1] else ("weak" if verdict[0] != "tie" else "tie")] += 1
    if verdict[0] == "tie":
        return "tie"
    shown_first = verdict[0] == "A"
    return "a" if shown_first == (order == "ab") else "b"


def _arena_hard(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(str(r.get("judge")) for r in records)
    chosen = _pick_judge(name, found, judge)
    rows: list[dict[str, Any]] = []
    keys: dict[Any, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    lengths: dict[str, tuple[int, int]] = {}
    counts: Counter = Counter()
    for r, line in zip(records, lines):
        if str(r.get("judge")) != chosen:
            continue
        qid = r.get("question_id", r.get("uid"))
        if qid is None or "model" not in r or not isinstance(r.get("games"), list):
            raise InputError(name, line, "question_id" if qid is None else "games" if "model" in r else "model",
                             "missing field of an arena-hard judgment", row_label="line")
        model, baseline = str(r["model"]), str(r.get("baseline") or "baseline")
        case = slug(f"q{qid}-{model}-vs-{baseline}", "q")
        if case in candidates:
            raise InputError(name, line, "question_id", f"question {excerpt(qid)} is judged twice for {excerpt(model)}",
                             row_label="line")
        keys[(str(qid), model)] = case
        candidates[case] = (baseline, model)
        for game, order in zip(r["games"][:2], ("ab", "ba")):
            sel = _arena_game(name, line, game, order, counts)
            shown = _arena_answers(game) if isinstance(game, dict) else None
            if shown is not None and case not in lengths:
                lengths[case] = shown if order == "ab" else (shown[1], shown[0])
            if sel is not None:
                rows.append({"case_id": case, "order": order, "repetition": 1, "selected_candidate": sel,
                             "candidate_a_tokens": None, "candidate_b_tokens": None,
                             "candidate_a_generator": slug(baseline, "m"), "candidate_b_generator": slug(model, "m"),
                             "judge_generator": slug(chosen, "m"), "key": (str(qid), model), "line": line})
    return _arena_log(name, rows, found, keys, candidates, lengths, counts, chosen)


def _arena_log(name: str, rows: list[dict[str, Any]], found: Counter, keys: dict[Any, str],
               candidates: dict[str, tuple[str, str]], lengths: dict[str, tuple[int, int]], counts: Counter,
               chosen: str) -> JudgeLog:
    if not rows:
        raise InputError(name, None, None, f"no usable judgments by {excerpt(chosen)}")
    judged = {row["case_id"] for row in rows}
    lacks = ["repetitions"]
    if judged <= set(lengths):
        for row in rows:
            row["candidate_a_tokens"], row["candidate_b_tokens"] = lengths[row["case_id"]]
    else:
        lacks.append("lengths")
    notes = [f"read as arena-hard judgments by {chosen}: {len(candidates):,} cases (question, model against the "
             "baseline); game 1 (baseline shown first) is order ab, game 2 order ba",
             f"verdict strength collapsed: {counts['strong']:,} strong (A>>B, B>>A) and {counts['weak']:,} weak "
             f"(A>B, B>A) verdicts are each one choice; {counts['tie']:,} ties (A=B)"]
    if "lengths" not in lacks:
        notes.append(f"{LENGTH_MEASURE} (game 1's prompt: assistant A is the baseline)")
    if any(c[0] == "baseline" for c in candidates.values()):
        notes.append("the records do not name the baseline model (arena-hard-v0.1 sets it in its config, "
                     "gpt-4-0314 by default): it is called 'baseline'")
    if counts["unparsed"]:
        notes.append(f"{counts['unparsed']:,} games without a verdict label (null or unparsable) were left out")
    return JudgeLog(name, "arena-hard judgments", pd.DataFrame(rows), tuple(sorted(found)), tuple(lacks),
                    tuple(notes), keys, candidates)


def _positive_int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 10**6 else None


def _judgekit_pairwise(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    pairwise = [(r, line) for r, line in zip(records, lines) if r.get("kind") == "pairwise"]
    found = Counter(str(r.get("judge_id", "judge")) for r, _ in pairwise if str(r.get("judge_id", "judge")) != "human")
    if not found:
        raise InputError(name, None, "judge_id", "only human verdicts: give them as the references of a judge log")
    chosen = _pick_judge(name, found, judge)
    rows: list[dict[str, Any]] = []
    reps: Counter = Counter()
    keys: dict[Any, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    for r, line in pairwise:
        if str(r.get("judge_id", "judge")) != chosen:
            continue
        if "item_id" not in r:
            raise InputError(name, line, "item_id", "missing field of a judgekit verdict", row_label="line")
        if r.get("choice") not in ("a", "b", "tie"):
            raise InputError(name, line, "choice", f"expected a, b or tie, got {excerpt(r.get('choice'))}",
                             row_label="line")
        if not isinstance(r.get("swapped", False), bool):
            raise InputError(name, line, "swapped", f"expected true or false, got {excerpt(r['swapped'])}",
                             row_label="line")
        case = slug(f"item-{r['item_id']}", "i")
        keys[str(r["item_id"])] = case
        a, b = r.get("a_model"), r.get("b_model")
        candidates[case] = (str(a or "a"), str(b or "b"))
        order = "ba" if r.get("swapped") else "ab"
        reps[(case, order)] += 1
        rows.append({"case_id": case, "order": order, "repetition": reps[(case, order)], "selected_candidate":
                     r["choice"], "candidate_a_tokens": _positive_int(r.get("a_len")),
                     "candidate_b_tokens": _positive_int(r.get("b_len")),
                     "candidate_a_generator": slug(a, "m") if a else None,
                     "candidate_b_generator": slug(b, "m") if b else None, "judge_generator": slug(chosen, "m"),
                     "key": str(r["item_id"]), "line": line})
    humans = sum(1 for r, _ in pairwise if str(r.get("judge_id")) == "human")
    return _judgekit_log(name, rows, reps, keys, candidates, found, chosen, humans, len(records) - len(pairwise))


def _judgekit_log(name: str, rows: list[dict[str, Any]], reps: Counter, keys: dict[Any, str],
                  candidates: dict[str, tuple[str, str]], found: Counter, chosen: str, humans: int,
                  others: int) -> JudgeLog:
    frame = pd.DataFrame(rows)
    lacks = [] if max(reps.values()) >= 2 else ["repetitions"]
    if frame[["candidate_a_tokens", "candidate_b_tokens"]].isna().any().any():
        lacks.append("lengths")
    notes = [f"read as judgekit pairwise verdicts by {chosen}: {len(candidates):,} cases (item_id); swapped is "
             "order ba; lengths are a_len and b_len in the log's own unit"]
    if humans:
        notes.append(f"{humans:,} human verdicts (judge_id human) are references and were not read as the judge's")
    if others:
        notes.append(f"{others:,} graded or binary verdicts were not read (read them as a graded log)")
    return JudgeLog(name, "judgekit pairwise", frame, tuple(sorted(found)), tuple(lacks), tuple(notes), keys,
                    candidates)


#: judgecal's probes whose judgments share the default template and the original answers.
JUDGECAL_READ = {("position", "orig"), ("position", "swap"), ("stability", "rep"), ("self_preference", "orig"),
                 ("self_preference", "swap")}


def _judgecal_record(name: str, r: dict[str, Any], line: int) -> dict[str, Any]:
    meta = r.get("meta")
    if not isinstance(meta, dict) or any(k not in meta for k in ("probe", "condition", "item_id", "first_is_a")):
        raise InputError(name, line, "meta", "expected judgecal's meta (probe, condition, item_id, first_is_a)",
                         row_label="line")
    if r.get("verdict") not in ("first", "second", "tie", "invalid"):
        raise InputError(name, line, "verdict", f"expected first, second, tie or invalid, got "
                         f"{excerpt(r.get('verdict'))}", row_label="line")
    if not isinstance(meta["first_is_a"], bool):
        raise InputError(name, line, "meta.first_is_a", f"expected true or false, got {excerpt(meta['first_is_a'])}",
                         row_label="line")
    return meta


def _judgecal(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    chosen = judge or "judge"
    rows: list[dict[str, Any]] = []
    reps: Counter = Counter()
    seen: set[Any] = set()
    candidates: dict[str, tuple[str, str]] = {}
    invalid, other = 0, Counter()
    for r, line in zip(records, lines):
        meta = _judgecal_record(name, r, line)
        if (meta["probe"], meta["condition"]) not in JUDGECAL_READ:
            other[str(meta["probe"])] += 1
            continue
        if r.get("custom_id") in seen:  # one execution fanned out to several probes' usages
            continue
        seen.add(r.get("custom_id"))
        if r["verdict"] == "invalid":
            invalid += 1
            continue
        a_first = meta["first_is_a"]
        step = 1 if a_first else -1
        a, b = (meta.get("first_author"), meta.get("second_author"))[::step]
        lens = tuple(_positive_int(v) for v in (meta.get("first_len"), meta.get("second_len"))[::step])
        case = slug(f"item-{meta['item_id']}", "i")
        candidates[case] = (str(a or "a"), str(b or "b"))
        order = "ab" if a_first else "ba"
        reps[(case, order)] += 1
        sel = "tie" if r["verdict"] == "tie" else ("a" if (r["verdict"] == "first") == a_first else "b")
        rows.append({"case_id": case, "order": order, "repetition": reps[(case, order)], "selected_candidate": sel,
                     "candidate_a_tokens": lens[0], "candidate_b_tokens": lens[1],
                     "candidate_a_generator": slug(a, "m") if a else None,
                     "candidate_b_generator": slug(b, "m") if b else None, "judge_generator": slug(chosen, "m"),
                     "key": str(meta["item_id"]), "line": line})
    if not rows:
        raise InputError(name, None, None, "no usable position or stability judgments")
    return _judgecal_log(name, rows, reps, candidates, chosen, invalid, other, judge is None)


def _judgecal_log(name: str, rows: list[dict[str, Any]], reps: Counter, candidates: dict[str, tuple[str, str]],
                  chosen: str, invalid: int, other: Counter, unnamed: bool) -> JudgeLog:
    frame = pd.DataFrame(rows)
    lacks = [] if max(reps.values()) >= 2 else ["repetitions"]
    if frame[["candidate_a_tokens", "candidate_b_tokens"]].isna().any().any():
        lacks.append("lengths")
    notes = [f"read as judgecal judgments: {len(candidates):,} cases (item_id) from the position and stability "
             "probes; first_is_a gives the order; lengths are first_len and second_len in characters; one "
             "execution shared by several probes is one judgment"]
    if unnamed:
        notes.append("judgecal's judgments do not name the judge model: it is called 'judge' (name it with --judge)")
    if invalid:
        notes.append(f"{invalid:,} judgments judgecal could not parse (invalid) were left out")
    if other:
        notes.append(f"{sum(other.values()):,} judgments of other probes ({', '.join(sorted(other))}: padded answers "
                     "or paraphrased templates, other cases or judges) were left out")
    keys = dict(zip(frame["key"], frame["case_id"]))
    return JudgeLog(name, "judgecal judgments", frame, (chosen,), tuple(lacks), tuple(notes), keys, candidates)


_SELECTED = {"a": "a", "model_a": "a", "model_1": "a", "b": "b", "model_b": "b", "model_2": "b", "tie": "tie",
             "draw": "tie", "equal": "tie"}


def _observations(name: str, records: list[dict[str, Any]], lines: list[int], judge: str | None) -> JudgeLog:
    """JSON Lines whose records carry the seed's observation fields (a harness that writes them,
    or any log after renaming): whatever fields are present are used as they are."""
    found = Counter(str(r.get("judge_generator", "judge")) for r in records)
    chosen = _pick_judge(name, found, judge)
    rows = []
    present = set().union(*(r.keys() for r in records))
    for r, line in zip(records, lines):
        if str(r.get("judge_generator", "judge")) != chosen:
            continue
        sel = _SELECTED.get(str(r.get("selected_candidate", "")).strip().lower())
        if sel is None:
            raise InputError(name, line, "selected_candidate", f"expected a, b or tie, got "
                             f"{excerpt(r.get('selected_candidate'))}", row_label="line")
        order = r.get("order")
        if order not in ("ab", "ba", None):
            raise InputError(name, line, "order", f"expected ab or ba, got {excerpt(order)}", row_label="line")
        rows.append({"case_id": r.get("case_id"), "order": order, "repetition": r.get("repetition", 1),
                     "selected_candidate": sel, "candidate_a_tokens": r.get("candidate_a_tokens"),
                     "candidate_b_tokens": r.get("candidate_b_tokens"),
                     "candidate_a_generator": r.get("candidate_a_generator"),
                     "candidate_b_generator": r.get("candidate_b_generator"), "judge_generator": chosen,
                     "key": r.get("_key", r.get("case_id")), "line": line})
    frame = pd.DataFrame(rows)
    lacks = []
    if "order" not in present or frame["order"].isna().any():
        lacks.append("orders")
    if frame.groupby(["case_id", "order"], dropna=False).size().max() < 2:
        lacks.append("repetitions")
    if not {"candidate_a_tokens", "candidate_b_tokens"} <= present or frame[["candidate_a_tokens",
                                                                               "candidate_b_tokens"]].isna().any().any():
        lacks.append("lengths")
    keys = {c: c for c in frame["case_id"]}
    keys.update(zip(frame["key"], frame["case_id"]))  # a mapped log's own ids join too
    return JudgeLog(name, "observations", frame, tuple(sorted(found)), tuple(lacks),
                    (f"read as observation records by {chosen}: {frame['case_id'].nunique():,} cases",), keys, {})


def read_references(name: str, data: bytes, log: JudgeLog) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Human votes for the log's cases, joined by question/turn/model pair (MT-Bench) or by
    instruction/generator pair (AlpacaEval): preferred = the plurality vote (a/b tie: "tie"),
    reviewers = the voters, adjudicated = the votes were unanimous."""
    if name.lower().endswith(".csv"):  # the seed's references CSV, joined by case id
        from agreebound.judge.contract import REFERENCE_FIELDS

        frame, _ = csv_records(name, data, REFERENCE_FIELDS)
        frame["case_id"] = frame["case_id"].map(lambda c: log.case_keys.get(c, c))
        known = frame["case_id"].isin(set(log.case_keys.values()))
        notes = (f"{int(known.sum()):,} references joined by case id",)
        if not known.all():
            notes += (f"{int((~known).sum()):,} references are for cases the log does not have",)
        return frame[known.to_numpy()].reset_index(drop=True), notes
    records, lines = _records(name, data)
    if records and {"case_id", "preferred_candidate", "reviewer_ids", "adjudicated"} <= set(records[0]):
        frame = pd.DataFrame([{k: (tuple(r[k]) if k == "reviewer_ids" and isinstance(r[k], list) else r[k])
                               for k in ("case_id", "preferred_candidate", "reviewer_ids", "adjudicated")}
                              for r in records])
        frame["case_id"] = frame["case_id"].map(lambda c: log.case_keys.get(str(c), c))
        known = frame["case_id"].isin(set(log.case_keys.values()))
        return frame[known.to_numpy()].reset_index(drop=True), (f"{int(known.sum()):,} references joined by case id",)
    votes: dict[str, list[tuple[str, str]]] = {}
    unmatched = 0
    for r, line in zip(records, lines):
        if {"winner", "model_a", "model_b", "question_id"} <= set(r):
            key = (str(r["question_id"]), str(r.get("turn", 1)), frozenset((str(r["model_a"]), str(r["model_b"]))))
            winner = _winner(r["winner"], name, line)
            chosen_model = {"a": str(r["model_a"]), "b": str(r["model_b"])}.get(winner or "")
            voter = str(r.get("judge", f"voter-{line}"))
        elif {"instruction", "preference"} <= set(r):
            key = (str(r["instruction"]), frozenset((str(r.get("generator_1", "output_1")),
                                                     str(r.get("generator_2", "output_2")))))
            pref = r["preference"]
            winner = "a" if pref < 1.5 else "b" if pref > 1.5 else "tie"
            chosen_model = {"a": str(r.get("generator_1", "output_1")), "b": str(r.get("generator_2", "output_2"))}.get(winner)
            voter = str(r.get("annotator", f"voter-{line}"))
        else:
            raise InputError(name, line, None, "expected a human judgment (question_id, model_a, model_b, winner) or "
                             "an AlpacaEval-shaped annotation (instruction, preference)", row_label="line")
        case = log.case_keys.get(key)
        if case is None:
            unmatched += 1
            continue
        a_model, b_model = log.candidates[case]
        vote = "tie" if winner in ("tie", None) else ("a" if chosen_model == a_model else "b")
        votes.setdefault(case, []).append((slug(voter, "r"), vote))
    rows = []
    for case, vs in votes.items():
        count = Counter(v for _, v in vs)
        top = max(count.values())
        leaders = [v for v, c in count.items() if c == top]
        preferred = leaders[0] if len(leaders) == 1 else "tie"
        reviewers = tuple(sorted({r for r, _ in vs}))
        rows.append({"case_id": case, "preferred_candidate": preferred, "reviewer_ids": reviewers,
                     "adjudicated": len(count) == 1})
    notes = [f"{len(rows):,} cases have human votes ({sum(len(v) for v in votes.values()):,} votes); preferred is the "
             "plurality vote, adjudicated means the votes were unanimous"]
    if unmatched:
        notes.append(f"{unmatched:,} human votes are for cases the log does not have")
    return pd.DataFrame(rows, columns=["case_id", "preferred_candidate", "reviewer_ids", "adjudicated"]), tuple(notes)


def seed_frames(log: JudgeLog) -> pd.DataFrame:
    """The log's observations in the seed's observation fields (for the full audit)."""
    return log.observations[list(OBSERVATION_COLUMNS)].copy()


def lacks_of(log: JudgeLog, references: pd.DataFrame | None) -> list[str]:
    out = list(log.lacks)
    if references is None or len(references) == 0:
        out.append("references")
    gens = log.observations[["candidate_a_generator", "candidate_b_generator"]]
    if gens.isna().any().any():
        out.append("generators")
    return out


def draft_contract(log: JudgeLog, thresholds: Any = None) -> Any:
    """A contract for a log that came without one: illustrative limits (the seed's example), not a
    contract (or the thresholds in force), scope and judge from the log. A draft to measure against:
    the measurement says no contract was given (``contract_given``), so nothing is decided."""
    from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, JudgeCalibrationContract

    reps = int(log.observations.groupby(["case_id", "order"], dropna=False)["repetition"].max().max())
    base = {f: getattr(ILLUSTRATIVE_CONTRACT, f) for f in ("minimum_reviewers", "minimum_human_agreement_bps",
                                                           "maximum_position_flip_bps", "maximum_repeat_variance_bps",
                                                           "maximum_verbosity_bias_bps", "maximum_self_preference_bps")}
    if thresholds is not None:
        base.update(thresholds.contract_fields())
    return JudgeCalibrationContract(version="log-audit-draft", scope=slug(log.file, "s"),
                                    judge_generator=str(log.observations["judge_generator"].iloc[0]),
                                    repetitions_per_order=min(max(reps, 2), 20), minimum_cases=1, **base)



def is_pairwise_human_votes(name: str, data: bytes) -> bool:
    """MT-Bench's human judgments (question_id, model_a, model_b, winner): pairwise votes, the
    references a single-answer grading log is audited against as pairs (:func:`single_as_pairs`)."""
    try:
        records, _ = _records(name, data)
    except InputError:
        return False
    return bool(records) and {"question_id", "model_a", "model_b", "winner"} <= set(records[0])


def single_as_pairs(log: Any, name: str, data: bytes) -> JudgeLog:
    """A single-answer grading log (MT-Bench ``gpt-4_single.jsonl``, read by io.scored_logs) audited
    against pairwise human votes: each pair of models the humans compared on a question and turn is
    a case, and the judge's choice is the model it scored higher (equal scores: a tie), as MT-Bench's
    paper compares single-answer grading with human pairwise votes. One judgment per case, in no
    presentation order (single grading shows one answer at a time)."""
    scores = log.scores[log.scores["role"] == "judge"]
    judge = log.judges[0]
    scores = scores[scores["rater"] == judge]
    by_key: dict[tuple[str, str, str], tuple[float, float]] = {}
    for item, model, score, length in zip(scores["item"], scores["model"], scores["score"], scores["length"]):
        head, turn = str(item).rsplit("/", 1)
        question = head[: len(head) - len(str(model)) - 1]
        by_key[(question, turn, str(model))] = (float(score), float(length))
    records, lines = _records(name, data)
    rows: list[dict[str, Any]] = []
    keys: dict[Any, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    unscored = 0
    for r, line in zip(records, lines):
        for f in ("question_id", "model_a", "model_b"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an MT-Bench human judgment", row_label="line")
        q, turn, a, b = str(r["question_id"]), str(r.get("turn", 1)), str(r["model_a"]), str(r["model_b"])
        key = (q, turn, frozenset((a, b)))
        if key in keys:
            continue
        sa, sb = by_key.get((q, turn, a)), by_key.get((q, turn, b))
        if sa is None or sb is None:
            unscored += 1
            continue
        case = slug(f"q{q}-t{turn}-{a}-vs-{b}", "q")
        keys[key], candidates[case] = case, (a, b)
        sel = "a" if sa[0] > sb[0] else "b" if sb[0] > sa[0] else "tie"
        rows.append({"case_id": case, "order": None, "repetition": 1, "selected_candidate": sel,
                     "candidate_a_tokens": sa[1], "candidate_b_tokens": sb[1], "candidate_a_generator": slug(a, "m"),
                     "candidate_b_generator": slug(b, "m"), "judge_generator": slug(judge, "m"), "key": key,
                     "line": line})
    if not rows:
        raise InputError(name, None, None, f"no human vote compares two models that {excerpt(judge)} scored on the "
                         "same question and turn")
    frame = pd.DataFrame(rows)
    lacks = ["orders", "repetitions"]
    if frame[["candidate_a_tokens", "candidate_b_tokens"]].isna().any().any():
        lacks.append("lengths")
        frame["candidate_a_tokens"] = frame["candidate_b_tokens"] = None
    else:
        frame[["candidate_a_tokens", "candidate_b_tokens"]] = frame[["candidate_a_tokens", "candidate_b_tokens"]].astype(int)
    notes = list(log.notes) + [
        f"single-answer grades by {judge} read as pairs: {len(rows):,} cases (question, turn, model pair the humans "
        "compared); the judge's choice is the model it scored higher, equal scores a tie; one judgment per case, "
        "shown one answer at a time (no order)"]
    if unscored:
        notes.append(f"{unscored:,} human votes compare a model the judge did not score on that question and turn: "
                     "left out")
    return JudgeLog(log.file, "mt-bench single as pairs", frame, (judge,), tuple(lacks), tuple(notes), keys,
                    candidates)
