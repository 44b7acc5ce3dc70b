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
  preference`` (1, 2, or 1.5 for a tie; weighted annotators give fractions; 0, AlpacaEval 1.0's code
  for two identical outputs, is a tie; null, no preference, is left out and counted). Lengths are the
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

This module recognises the shape (:func:`agreebound.io.registry.judge_log_shape`), reads a log
through a mapping, and joins the human references; each harness's reader is in
:mod:`agreebound.io.judge_log_harnesses`, what they share in :mod:`agreebound.io.judge_log_records`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Hashable

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.json_toml import read_json, read_toml
from agreebound.io.judge_log_harnesses import (alpacaeval_preference, read_alpacaeval, read_arena_hard, read_judgecal,
                                               read_judgekit_pairwise, read_mt_bench, read_observations)
from agreebound.io.judge_log_records import (OBSERVATION_COLUMNS, JudgeLog, ObservationRow, judge_name, read_records,
                                             slug, winner_of)
from agreebound.io.records import csv_records
from agreebound.io.registry import judge_log_shape
from agreebound.core.limits import MAX_ROWS

if TYPE_CHECKING:
    from agreebound.core.thresholds import CalibrationThresholds
    from agreebound.io.score_values import ScoredLog
    from agreebound.judge.contract import JudgeCalibrationContract


@dataclass(frozen=True)
class LogMapping:
    """How another harness's judgment records become observation records: which of its fields
    is which observation field, and how its values read (``{"order": {"1": "ab", "2": "ba"}}``).
    A mapping file is JSON or TOML: ``{"judge_log": {"fields": {...}, "values": {...}, "judge": "..."}}``."""

    fields: dict[str, str]
    values: dict[str, dict[str, JSONValue]] = field(default_factory=dict)
    judge: str | None = None  # the judge's name, when the records do not carry one

    def __post_init__(self) -> None:
        unknown = [f for f in list(self.fields) + list(self.values) if f not in OBSERVATION_COLUMNS]
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not an observation field; they are {', '.join(OBSERVATION_COLUMNS)}")
        for need in ("case_id", "selected_candidate"):
            if need not in self.fields:
                raise ValueError(f"the mapping must name the field that holds {need}")

    def apply(self, record: JSONObject) -> JSONObject:
        out: JSONObject = {}
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
        body: JSONObject = {"fields": self.fields}
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
    records, lines = read_records(name, data)
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
        log = read_observations(name, [mapping.apply(r) for r in records], lines, judge)
        renamed = sorted({r["_key"] for r in (mapping.apply(x) for x in records[:1000])} - set(log.case_keys.values()))
        note: tuple[str, ...] = (f"read through a mapping: {', '.join(f'{t} <- {s}' for t, s in mapping.fields.items())}",)
        if renamed:
            note += (f"case ids made canonical identifiers (e.g. {excerpt(renamed[0])} -> "
                     f"{log.case_keys.get(renamed[0])}); references join by either",)
        return replace(log, notes=note + log.notes)
    shape = judge_log_shape(records[0])
    readers = {"mt-bench judgments": read_mt_bench, "alpacaeval annotations": read_alpacaeval,
               "observations": read_observations, "arena-hard judgments": read_arena_hard,
               "judgekit pairwise": read_judgekit_pairwise, "judgecal judgments": read_judgecal}
    if shape in readers:
        log = readers[shape](name, records, lines, judge)
        return replace(log, notes=log.notes + model_ids_said(log))
    if shape == "mt-bench human judgments":
        raise InputError(name, None, None, "these are human judgments (references): give them as the references "
                         "of a judge log")
    raise InputError(name, None, None, "not a judge log this version recognises (MT-Bench judgments, AlpacaEval "
                     f"annotations); its first record has {', '.join(map(str, list(records[0])[:12]))}")


def model_ids_said(log: JudgeLog) -> tuple[str, ...]:
    """The candidates' model names as the log gives them, against the identifiers the audit counts
    them under (the specification's ``^[a-z][a-z0-9._:-]{2,95}$``): names that became one identifier
    (two models counted as one) said first; else names changed on the way, said once.

    >>> log = JudgeLog("x.jsonl", "judgekit pairwise", pd.DataFrame({"case_id": ["i-1", "i-2"],
    ...     "candidate_a_generator": ["gpt-4", "gpt-4"], "candidate_b_generator": ["m-red-red", "claude"]}), (), (),
    ...     candidates={"i-1": ("GPT-4", ":red[red]"), "i-2": ("gpt 4", "claude")})
    >>> model_ids_said(log)[0]
    "2 model names became the identifier 'gpt-4' and are counted as one model: 'GPT-4', 'gpt 4'; if they are different models, give them names that differ in more than case, spaces or punctuation"
    """
    obs = log.observations
    if not log.candidates or not len(obs) or "candidate_a_generator" not in obs.columns:
        return ()
    first = obs.drop_duplicates("case_id").set_index("case_id")
    named: dict[str, set[str]] = {}
    for case, raw in log.candidates.items():
        if case not in first.index:
            continue
        for side, given in zip("ab", raw):
            ident = first.at[case, f"candidate_{side}_generator"]
            if isinstance(ident, str):
                named.setdefault(ident, set()).add(given)
    merged = {i: sorted(ns) for i, ns in sorted(named.items()) if len(ns) > 1}
    if merged:
        (ident, names), more = next(iter(merged.items())), len(merged) - 1
        return (f"{len(names)} model names became the identifier {ident!r} and are counted as one model: "
                + ", ".join(excerpt(n, 60) for n in names[:4]) + (" and more" if len(names) > 4 else "")
                + (f" (and {more} more such identifier{'s' if more > 1 else ''})" if more else "")
                + "; if they are different models, give them names that differ in more than case, spaces or "
                "punctuation",)
    changed = sorted((n, i) for i, ns in named.items() for n in ns if n != i)
    if not changed:
        return ()
    (given, ident), more = changed[0], len(changed) - 1
    return (f"model names made identifiers (lower case; letters, digits and . _ : - only): {excerpt(given, 60)} "
            f"-> {ident!r}" + (f" and {more:,} more" if more else ""),)


def judges_in(name: str, data: bytes) -> tuple[str, ...]:
    """The judges a log holds, most judgments first (the Judge page's picker)."""
    records, _ = read_records(name, data)
    if not records:
        return ()
    shape = judge_log_shape(records[0])
    key = None if shape is None else {"mt-bench judgments": lambda r: judge_name(r.get("judge")),
           "alpacaeval annotations": lambda r: str(r.get("annotator", "annotator")),
           "observations": lambda r: str(r.get("judge_generator", "judge")),
           "arena-hard judgments": lambda r: str(r.get("judge")),
           "judgekit pairwise": lambda r: str(r.get("judge_id", "judge")),
           "judgecal judgments": lambda r: "judge"}.get(shape)
    if key is None:
        return ()
    return tuple(j for j, _ in Counter(key(r) for r in records).most_common()
                 if not (shape == "judgekit pairwise" and j == "human"))


#: The key of a references frame's ``attrs`` that holds its individual votes (:class:`HumanVotes`),
#: when the references were read from one line per vote (MT-Bench, AlpacaEval).
HUMAN_VOTES = "agreebound.human_votes"


@dataclass(frozen=True, eq=False)
class HumanVotes:
    """The individual human votes behind a references frame, one row per vote line as read:
    ``case_id``, ``reviewer`` (as in ``reviewer_ids``) and ``vote`` ("a", "b" or "tie", facing the
    case's candidates). Carried on the references frame's ``attrs`` (:data:`HUMAN_VOTES`), so the
    frame stays the seed's four fields; immutable and compared by identity, so pandas can copy
    ``attrs`` cheaply (a deep copy is this object) and compare them without asking a frame's truth."""

    frame: pd.DataFrame

    def __deepcopy__(self, memo: dict[int, object]) -> HumanVotes:
        return self


def human_votes_of(references: pd.DataFrame | None) -> pd.DataFrame | None:
    """The individual votes a references frame was read from (case_id, reviewer, vote), or None
    when its source held no individual votes (the seed's CSV, reference records)."""
    held = None if references is None else references.attrs.get(HUMAN_VOTES)
    return held.frame if isinstance(held, HumanVotes) else None


def read_references(name: str, data: bytes, log: JudgeLog) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Human votes for the log's cases, joined by question/turn/model pair (MT-Bench) or by
    instruction/generator pair (AlpacaEval): preferred = the plurality vote (a/b tie: "tie"),
    reviewers = the voters, adjudicated = the votes were unanimous. The individual votes ride along
    on the frame's ``attrs`` (:func:`human_votes_of`): the human-human ceiling and Zheng et al.'s
    per-vote agreement count them (agreebound.judge.agreement)."""
    if name.lower().endswith(".csv"):  # the seed's references CSV, joined by case id
        from agreebound.judge.contract import REFERENCE_FIELDS

        frame, _ = csv_records(name, data, REFERENCE_FIELDS)
        frame["case_id"] = frame["case_id"].map(lambda c: log.case_keys.get(c, c))
        known = frame["case_id"].isin(set(log.case_keys.values()))
        notes: tuple[str, ...] = (f"{int(known.sum()):,} references joined by case id",)
        if not known.all():
            notes += (f"{int((~known).sum()):,} references are for cases the log does not have",)
        return frame[known.to_numpy()].reset_index(drop=True), notes
    records, lines = read_records(name, data)
    if records and {"case_id", "preferred_candidate", "reviewer_ids", "adjudicated"} <= set(records[0]):
        frame = pd.DataFrame([{k: (tuple(r[k]) if k == "reviewer_ids" and isinstance(r[k], list) else r[k])
                               for k in ("case_id", "preferred_candidate", "reviewer_ids", "adjudicated")}
                              for r in records])
        frame["case_id"] = frame["case_id"].map(lambda c: log.case_keys.get(str(c), c))
        known = frame["case_id"].isin(set(log.case_keys.values()))
        return frame[known.to_numpy()].reset_index(drop=True), (f"{int(known.sum()):,} references joined by case id",)
    votes: dict[str, list[tuple[str, str]]] = {}
    unmatched = unvoted = 0
    for r, line in zip(records, lines):
        if {"winner", "model_a", "model_b", "question_id"} <= set(r):
            key: Hashable = (str(r["question_id"]), str(r.get("turn", 1)),
                             frozenset((str(r["model_a"]), str(r["model_b"]))))
            winner = winner_of(r["winner"], name, line)
            chosen_model = {"a": str(r["model_a"]), "b": str(r["model_b"])}.get(winner or "")
            voter = str(r.get("judge", f"voter-{line}"))
        elif {"instruction", "preference"} <= set(r):
            key = (str(r["instruction"]), frozenset((str(r.get("generator_1", "output_1")),
                                                     str(r.get("generator_2", "output_2")))))
            read = alpacaeval_preference(name, line, r["preference"])
            if read is None:  # no preference given: no vote
                unvoted += 1
                continue
            winner = read[0]
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
    said = [f"{len(rows):,} cases have human votes ({sum(len(v) for v in votes.values()):,} votes); preferred is the "
            "plurality vote, adjudicated means the votes were unanimous"]
    if unmatched:
        said.append(f"{unmatched:,} human votes are for cases the log does not have")
    if unvoted:
        said.append(f"{unvoted:,} human annotations without a preference (null) were left out")
    frame = pd.DataFrame(rows, columns=["case_id", "preferred_candidate", "reviewer_ids", "adjudicated"])
    frame.attrs[HUMAN_VOTES] = HumanVotes(pd.DataFrame(
        [(case, reviewer, vote) for case, vs in votes.items() for reviewer, vote in vs],
        columns=["case_id", "reviewer", "vote"]))
    return frame, tuple(said)


def seed_frames(log: JudgeLog) -> pd.DataFrame:
    """The log's observations in the seed's observation fields (for the full audit)."""
    return log.observations[list(OBSERVATION_COLUMNS)].copy()


def lacks_of(log: JudgeLog, references: pd.DataFrame | None) -> list[str]:
    out = list(log.lacks)
    if references is None or len(references) == 0:
        out.append("references")
        if references is not None:  # given, but none joined a case of the log
            out.append("references_unjoined")
    gens = log.observations[["candidate_a_generator", "candidate_b_generator"]]
    if gens.isna().any().any():
        out.append("generators")
    return out


def draft_contract(log: JudgeLog, thresholds: CalibrationThresholds | None = None) -> JudgeCalibrationContract:
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
        records, _ = read_records(name, data)
    except InputError:
        return False
    return bool(records) and {"question_id", "model_a", "model_b", "winner"} <= set(records[0])


def single_as_pairs(log: ScoredLog, name: str, data: bytes) -> JudgeLog:
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
    records, lines = read_records(name, data)
    rows: list[ObservationRow] = []
    keys: dict[Hashable, str] = {}
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
