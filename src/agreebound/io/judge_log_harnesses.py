"""Each harness's pairwise judge log -> a :class:`~agreebound.io.judge_log_records.JudgeLog`:
FastChat MT-Bench judgments, AlpacaEval annotations, arena-hard judgments, judgekit pairwise
verdicts, judgecal judgments and observation records. :mod:`agreebound.io.judge_logs` recognises
the shape (its docstring says what each reads) and calls the reader here.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Hashable

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.io.judge_log_records import (LENGTH_MEASURE, NEED_REF_CATEGORIES, OBSERVATION_COLUMNS,
                                             READER_COLUMNS, JudgeLog, ObservationRow,
                                             answer_tokens, between, judge_name, mt_bench_category, pick_judge,
                                             positive_int, record_lengths, slug, template_of, templates_note,
                                             winner_of)


def read_mt_bench(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(judge_name(r.get("judge")) for r in records)
    chosen = pick_judge(name, found, judge)
    rows: list[ObservationRow] = []
    keys: dict[Hashable, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    reps: Counter[tuple[str, str]] = Counter()
    errors = 0
    lengths: dict[str, tuple[int, int]] = {}  # case -> (model_1's tokens, model_2's), from the judge prompts
    disagree = 0
    templates: dict[str, set[str]] = {}  # template -> its cases
    from_ids: list[ObservationRow] = []  # the rows whose category their question id gives
    for r, line in zip(records, lines):
        if judge_name(r.get("judge")) != chosen:
            continue
        for f in ("question_id", "model_1", "model_2", "g1_winner", "g2_winner"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an MT-Bench judgment", row_label="line")
        m1, m2, turn = str(r["model_1"]), str(r["model_2"]), r.get("turn", 1)
        template = template_of(r.get("judge"))
        case = slug(f"q{r['question_id']}-t{turn}-{m1}-vs-{m2}", "q")
        key = (str(r["question_id"]), str(turn), frozenset((m1, m2)))
        if keys.setdefault(key, case) != case:
            raise InputError(name, line, "model_1", f"question {r['question_id']} turn {turn} compares {m1} and {m2} "
                             "again in the other order; one pair per question and turn", row_label="line")
        candidates[case] = (m1, m2)
        templates.setdefault(template, set()).add(case)
        found_lengths, differ = record_lengths(r)
        disagree += differ
        if found_lengths is not None:
            lengths.setdefault(case, found_lengths)  # a case's lengths are its first judgment's
        for order, field_ in (("ab", "g1_winner"), ("ba", "g2_winner")):
            sel = winner_of(r[field_], name, line)
            if sel is None:
                errors += 1
                continue
            reps[(case, order)] += 1
            rows.append({"case_id": case, "order": order, "repetition": reps[(case, order)], "selected_candidate": sel,
                         "candidate_a_tokens": None, "candidate_b_tokens": None, "candidate_a_generator": slug(m1, "m"),
                         "candidate_b_generator": slug(m2, "m"), "judge_generator": slug(chosen, "m"), "key": key,
                         "line": line, "template": template, "turn": turn})
            own = r.get("category")
            if isinstance(own, str) and own:  # the record's own category
                rows[-1]["category"] = own
            elif (by_id := mt_bench_category(r["question_id"])) is not None:  # the question id's, checked below
                rows[-1]["category"] = by_id
                from_ids.append(rows[-1])
    if not rows:
        raise InputError(name, None, None, f"no usable judgments by {excerpt(chosen)}")
    category_notes = _mt_bench_categories(from_ids)
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
    said = templates_note({t: c & judged for t, c in templates.items() if c & judged})
    if said:
        notes.append(said)
    notes.extend(category_notes)
    return JudgeLog(name, "mt-bench judgments", pd.DataFrame(rows), tuple(sorted(found)), tuple(lacks), tuple(notes),
                    keys, candidates)


def _mt_bench_categories(by_id: list[ObservationRow]) -> list[str]:
    """Keep the categories the question ids give (``by_id``: those rows) only where FastChat's
    templates agree with them (pair-math-v1 judges exactly the math, reasoning and coding questions):
    a log of other questions numbered 81 to 160 gets no category. Said in the notes either way."""
    if not by_id:
        return []

    def fastchat_agrees(row: ObservationRow) -> bool:
        template = row.get("template", "")
        if not template.startswith(("pair-v2", "pair-math-v1")):
            return True  # a template FastChat does not name: nothing to check against
        return template.startswith("pair-math-v1") == (row.get("category") in NEED_REF_CATEGORIES)
    if all(fastchat_agrees(row) for row in by_id):
        return ["category from the question id (MT-Bench's questions 81-160: writing, roleplay, reasoning, math, "
                "coding, extraction, stem, humanities, 10 each)"]
    for row in by_id:
        del row["category"]
    return ["no category: the question ids are MT-Bench's (81-160) but the judge's templates do not match their "
            "categories (pair-math-v1 judges math, reasoning and coding), so these are other questions"]


def _text(r: JSONObject, f: str) -> str | None:
    """A record's slice field (a category, AlpacaEval's dataset) when it holds text."""
    v = r.get(f)
    return v if isinstance(v, str) and v else None


def alpacaeval_preference(name: str, line: int, pref: JSONValue) -> tuple[str, float] | None:
    """An AlpacaEval preference -> (the candidate it picks: a, b or tie; the preference, 1 to 2);
    None for null (no preference given). 1 / 2 pick output_1 / output_2, 1.5 is a draw and a weighted
    annotator's fraction picks the nearer; 0 is AlpacaEval 1.0's code for two identical outputs, a
    draw (its metrics replace 0 by 1.5).

    >>> [alpacaeval_preference("a.json", 2, p) for p in (1.8, 1, 0, None)]
    [('b', 1.8), ('a', 1.0), ('tie', 1.5), None]
    """
    if pref is None:
        return None
    if isinstance(pref, bool) or not isinstance(pref, (int, float)) or not (1 <= pref <= 2 or pref == 0):
        raise InputError(name, line, "preference", "expected a number from 1 to 2 (or 0, AlpacaEval's old code for "
                         f"a draw), got {excerpt(pref)}", row_label="line")
    value = 1.5 if pref == 0 else float(pref)
    return ("a" if value < 1.5 else "b" if value > 1.5 else "tie"), value


def read_alpacaeval(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(str(r.get("annotator", "annotator")) for r in records)
    chosen = pick_judge(name, found, judge)
    rows: list[ObservationRow] = []
    keys: dict[Hashable, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    reps: Counter[str] = Counter()
    rounded = unjudged = legacy_draws = 0
    for r, line in zip(records, lines):
        if str(r.get("annotator", "annotator")) != chosen:
            continue
        for f in ("instruction", "output_1", "output_2", "preference"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an AlpacaEval annotation", row_label="line")
        read = alpacaeval_preference(name, line, r["preference"])
        if read is None:  # no preference given (AlpacaEval's win rate leaves it out too): counted below
            unjudged += 1
            continue
        sel, pref = read
        legacy_draws += r["preference"] == 0
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
        if (dataset := _text(r, "dataset")) is not None:  # AlpacaEval's source dataset of the instruction
            rows[-1]["dataset"] = dataset
        if (category := _text(r, "category")) is not None:
            rows[-1]["category"] = category
    if not rows:
        raise InputError(name, None, None, f"no usable annotations by {excerpt(chosen)}")
    lacks = ["orders", "repetitions"]
    notes = [f"read as AlpacaEval annotations by {chosen}: {len(candidates):,} cases (instruction, generator pair); "
             "lengths are the outputs' lengths in characters"]
    if rounded:
        notes.append(f"{rounded:,} fractional preferences were read as the nearer candidate (1.5 is a tie)")
    if legacy_draws:
        notes.append(f"{legacy_draws:,} preferences of 0 (AlpacaEval's old code for two identical outputs) were read "
                     "as ties")
    if unjudged:
        notes.append(f"{unjudged:,} annotations without a preference (null) were left out")
    return JudgeLog(name, "alpacaeval annotations", pd.DataFrame(rows), tuple(sorted(found)), tuple(lacks),
                    tuple(notes), keys, candidates)


#: arena-hard's verdict labels: which answer, as shown, the judge chose, and whether strongly.
ARENA_VERDICTS = {"A>>B": ("A", True), "A>B": ("A", False), "A=B": ("tie", False), "B>A": ("B", False),
                  "B>>A": ("B", True)}


def _arena_answers(game: JSONObject) -> tuple[int, int] | None:
    """Assistant A's and B's answers' whitespace tokens in an arena-hard judge prompt (v0.1:
    ``user_prompt``; v2: the user message of ``prompt``)."""
    prompt = game.get("user_prompt")
    if prompt is None and isinstance(game.get("prompt"), list):
        prompt = next((m.get("content") for m in game["prompt"] if isinstance(m, dict) and m.get("role") == "user"), None)
    if not isinstance(prompt, str):
        return None
    found = [between(prompt, f"<|The Start of Assistant {w}'s Answer|>", f"<|The End of Assistant {w}'s Answer|>")
             for w in "AB"]
    if found[0] is None or found[1] is None:
        return None
    return answer_tokens(found[0]), answer_tokens(found[1])


def _arena_game(name: str, line: int, game: JSONValue, order: str, counts: Counter[str]) -> str | None:
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


def read_arena_hard(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    found = Counter(str(r.get("judge")) for r in records)
    chosen = pick_judge(name, found, judge)
    rows: list[ObservationRow] = []
    keys: dict[Hashable, str] = {}
    candidates: dict[str, tuple[str, str]] = {}
    lengths: dict[str, tuple[int, int]] = {}
    counts: Counter[str] = Counter()
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
                if (category := _text(r, "category")) is not None:
                    rows[-1]["category"] = category
    return _arena_log(name, rows, found, keys, candidates, lengths, counts, chosen)


def _arena_log(name: str, rows: list[ObservationRow], found: Counter[str], keys: dict[Hashable, str],
               candidates: dict[str, tuple[str, str]], lengths: dict[str, tuple[int, int]], counts: Counter[str],
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


def read_judgekit_pairwise(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    pairwise = [(r, line) for r, line in zip(records, lines) if r.get("kind") == "pairwise"]
    found = Counter(str(r.get("judge_id", "judge")) for r, _ in pairwise if str(r.get("judge_id", "judge")) != "human")
    if not found:
        raise InputError(name, None, "judge_id", "only human verdicts: give them as the references of a judge log")
    chosen = pick_judge(name, found, judge)
    rows: list[ObservationRow] = []
    reps: Counter[tuple[str, str]] = Counter()
    keys: dict[Hashable, str] = {}
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
                     r["choice"], "candidate_a_tokens": positive_int(r.get("a_len")),
                     "candidate_b_tokens": positive_int(r.get("b_len")),
                     "candidate_a_generator": slug(a, "m") if a else None,
                     "candidate_b_generator": slug(b, "m") if b else None, "judge_generator": slug(chosen, "m"),
                     "key": str(r["item_id"]), "line": line})
    humans = sum(1 for r, _ in pairwise if str(r.get("judge_id")) == "human")
    return _judgekit_log(name, rows, reps, keys, candidates, found, chosen, humans, len(records) - len(pairwise))


def _judgekit_log(name: str, rows: list[ObservationRow], reps: Counter[tuple[str, str]], keys: dict[Hashable, str],
                  candidates: dict[str, tuple[str, str]], found: Counter[str], chosen: str, humans: int,
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


def _judgecal_record(name: str, r: JSONObject, line: int) -> JSONObject:
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


def read_judgecal(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    chosen = judge or "judge"
    rows: list[ObservationRow] = []
    reps: Counter[tuple[str, str]] = Counter()
    seen: set[JSONValue] = set()  # the executions (custom_id) read
    candidates: dict[str, tuple[str, str]] = {}
    invalid, other = 0, Counter[str]()
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
        lens = tuple(positive_int(v) for v in (meta.get("first_len"), meta.get("second_len"))[::step])
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


def _judgecal_log(name: str, rows: list[ObservationRow], reps: Counter[tuple[str, str]], candidates: dict[str, tuple[str, str]],
                  chosen: str, invalid: int, other: Counter[str], unnamed: bool) -> JudgeLog:
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


def read_observations(name: str, records: list[JSONObject], lines: list[int], judge: str | None) -> JudgeLog:
    """JSON Lines whose records carry the seed's observation fields (a harness that writes them,
    or any log after renaming): whatever fields are present are used as they are."""
    found = Counter(str(r.get("judge_generator", "judge")) for r in records)
    chosen = pick_judge(name, found, judge)
    rows: list[JSONObject] = []  # the records' own fields, as read
    present = set().union(*(r.keys() for r in records))
    # any other field is the user's slice column (a prompt variant, a category), kept when its values
    # are plain (text, numbers, true/false)
    others = [f for f in dict.fromkeys(k for r in records for k in r) if f not in OBSERVATION_COLUMNS
              and f not in READER_COLUMNS and f != "_key"]
    nested = [f for f in others if any(isinstance(r.get(f), (dict, list)) for r in records)]
    extras = [f for f in others if f not in nested]
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
                     "key": r.get("_key", r.get("case_id")), "line": line, **{f: r.get(f) for f in extras}})
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
    notes = [f"read as observation records by {chosen}: {frame['case_id'].nunique():,} cases"]
    if extras:
        notes.append(f"slice column{'s' if len(extras) > 1 else ''} (fields beside the observation fields): "
                     + ", ".join(excerpt(f) for f in extras))
    if nested:
        notes.append(f"field{'s' if len(nested) > 1 else ''} {', '.join(excerpt(f) for f in nested)} "
                     f"hold{'' if len(nested) > 1 else 's'} nested values: not slice columns")
    if "template" in extras:
        said = templates_note({str(t): set(c) for t, c in frame.groupby(frame["template"].fillna("").astype(str))["case_id"]})
        if said:
            notes.append(said)
    return JudgeLog(name, "observations", frame, tuple(sorted(found)), tuple(lacks), tuple(notes), keys, {})
