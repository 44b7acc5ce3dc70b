"""Each harness's graded or pass/fail judge log -> the score rows it holds (a
:class:`~agreebound.io.score_values.Gathered`): inspect_ai, promptfoo, FastChat MT-Bench
single-answer grading, judgekit. :mod:`agreebound.io.scored_logs` recognises the shape (its
docstring says what each reads) and calls the reader here.
"""

from __future__ import annotations

import math
from collections import Counter


from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.score_values import (Counted, Gathered, ScoreRangeError, digest_of, is_nan, number_of,
                                        optional_number, score_row, score_size, score_value, tokens_of)
from agreebound.io.scored_documents import grading_model
from agreebound.core.limits import MAX_ROWS, SCORE_RANGE
from agreebound.core.json_types import JSONObject, JSONValue

# --- inspect_ai ----------------------------------------------------------------------------------


def _inspect_grader(ev: JSONObject, scorer: str) -> str:
    """A scorer's grader when its scores do not say: the grader role's model for a model-graded
    scorer (inspect falls back to the model under test when the role is unbound), else its name."""
    roles = ev["model_roles"] if isinstance(ev.get("model_roles"), dict) else {}
    if not scorer.startswith("model_graded"):
        return scorer
    role = roles.get("grader")
    if isinstance(role, dict) and role.get("model"):
        return str(role["model"])
    return str(ev.get("model", scorer))


def _inspect_identity(ev: JSONObject, graders: dict[str, str]) -> dict[str, str]:
    scorers = ev["scorers"] if isinstance(ev.get("scorers"), list) else []
    options = [{"name": s.get("name"), "options": s.get("options")} for s in scorers if isinstance(s, dict)]
    version = (ev.get("packages") or {}).get("inspect_ai", "") if isinstance(ev.get("packages"), dict) else ""
    out = {"grader": ", ".join(dict.fromkeys(graders.values())), "scorer": ", ".join(graders),
           "task": str(ev.get("task", "")), "model": str(ev.get("model", "")),
           "tool": f"inspect_ai {version}".strip()}
    if options:  # a custom template or instructions are in the scorer's options; else inspect's defaults
        out["rubric"] = digest_of(options)
    return out


def read_inspect(name: str, log: JSONObject) -> Gathered:
    """Every sample's scores: one row per sample, epoch and scorer."""
    ev = log["eval"] if isinstance(log.get("eval"), dict) else {}
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(name, None, "samples", "the log holds no samples (was it written with --no-log-samples?)")
    if len(samples) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(samples):,} samples; the limit is {MAX_ROWS:,}")
    got = Gathered([], {}, {}, [], [("unscored judgments (no grade in the grader's reply)", []),
                                     ("samples without scores (an error, or not scored)", [])], unit="sample")
    graders: dict[str, str] = {}
    model = str(ev.get("model", ""))
    for at, s in enumerate(samples, start=1):
        if not isinstance(s, dict) or "id" not in s:
            raise InputError(name, at, "id", "expected a sample object with an id", row_label="sample")
        scores = s.get("scores")
        if not isinstance(scores, dict) or not scores:
            got.left_out[1][1].append(at)
            continue
        item = f"{s['id']}/{s.get('epoch', 1)}"
        for scorer, sc in scores.items():
            if not isinstance(sc, dict) or "value" not in sc:
                raise InputError(name, at, f"scores.{scorer}", "expected a score object with a value", row_label="sample")
            try:
                value = score_value(sc["value"])
            except ScoreRangeError as e:
                raise InputError(name, at, f"scores.{scorer}.value", f"expected {e}, got {excerpt(sc['value'])}",
                                 row_label="sample") from None
            except ValueError:
                raise InputError(name, at, f"scores.{scorer}.value", "expected a grade (C, I, P), a number or a "
                                 f"boolean, got {excerpt(sc['value'])}", row_label="sample") from None
            grader = grading_model(sc) or _inspect_grader(ev, scorer)
            graders.setdefault(scorer, grader)
            if value is None:
                _unscored(name, got, at, scorer, sc)
                continue
            if value[1] is not None:
                got.labels[value[0]] = value[1]
            answer = sc.get("answer") if isinstance(sc.get("answer"), (str, Counted)) \
                else (s.get("output") or {}).get("completion")
            got.rows.append(score_row(item, scorer, "judge", value[0], model, tokens_of(answer), line=at))
    rater = _rater_names(graders)
    for r in got.rows:
        r["rater"] = rater[r["rater"]]
    got.identity = _inspect_identity(ev, graders)
    got.notes.append(f"read as an inspect_ai log of task {ev.get('task', '?')}: items are sample id/epoch; "
                     "C = 1, I = 0, P = 0.5; lengths are the graded answers' whitespace tokens")
    return got


def _unscored(name: str, got: Gathered, at: int, scorer: str, sc: JSONObject) -> None:
    """An inspect_ai score without a value (NaN, null): left out and counted by the reason the log
    records for it: "no grade in the grader's reply" only where the grader failed (inspect's reason
    ``grader_failed``, or its explanation "Grade not found in model output"); another recorded
    reason is counted under its own name. Without a reason a missing value is not a judgment the
    reader can explain: refused, located."""
    reason = sc.get("reason")
    explanation = sc.get("explanation")
    if reason == "grader_failed" or (isinstance(explanation, str) and explanation.startswith("Grade not found")):
        got.left_out[0][1].append(at)
        return
    if isinstance(reason, str) and reason.strip():
        why = f"unscored judgments (reason {excerpt(reason, 40)} in the log)"
        bucket = next((b for w, b in got.left_out if w == why), None)
        if bucket is None:
            bucket = []
            got.left_out.append((why, bucket))
        bucket.append(at)
        return
    shown = "NaN" if isinstance(sc["value"], float) else excerpt(sc["value"])
    raise InputError(name, at, f"scores.{scorer}.value", f"expected a grade (C, I, P), a number or a boolean, got "
                     f"{shown} with no reason recorded (inspect records why a judgment is unscored, e.g. reason "
                     "grader_failed)", row_label="sample")


def _rater_names(graders: dict[str, str]) -> dict[str, str]:
    """A rubric's (scorer's, assertion type's) rater name: its grader's id, or "grader (rubric)"
    when one log grades with several rubrics (two rubrics are two judges, even with one model)."""
    if len(graders) <= 1:
        return dict(graders)
    return {rubric: f"{grader} ({rubric})" for rubric, grader in graders.items()}


# --- promptfoo -----------------------------------------------------------------------------------

#: promptfoo's assertions graded by a model (the others are deterministic checks, not judges).
MODEL_GRADED = ("llm-rubric", "model-graded-closedqa", "model-graded-factuality", "factuality", "g-eval",
                "answer-relevance", "context-faithfulness", "context-recall", "context-relevance",
                "conversation-relevance", "search-rubric", "pi")


def _provider_id(p: JSONValue) -> str | None:
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        return str(p.get("id") or p.get("label") or "") or None
    return None


def _default_grader(config: JSONValue, test: JSONValue) -> str:
    """promptfoo's grader when an assertion names none: the test's, then defaultTest's options."""
    for holder in (test, config.get("defaultTest") if isinstance(config, dict) else None):
        options = holder.get("options") if isinstance(holder, dict) else None
        if isinstance(options, dict):
            found = _provider_id(options.get("provider"))
            if found:
                return found
    return "promptfoo default grader"


def read_promptfoo(name: str, doc: JSONObject) -> Gathered:
    """Every result's model-graded assertions: one row per result and assertion type."""
    results = doc["results"]["results"]
    config = doc["config"] if isinstance(doc.get("config"), dict) else {}
    got = Gathered([], {1.0: "pass", 0.0: "fail"}, {}, [], [("grader replies promptfoo could not parse", []),
                                                           ("results without a grading result", [])], unit="record")
    graders: dict[str, str] = {}
    rubrics: list[JSONValue] = []
    other: Counter[str] = Counter()
    for at, r in enumerate(results, start=1):
        if not isinstance(r, dict):
            raise InputError(name, at, None, "expected a result object", row_label="record")
        grading = r.get("gradingResult")
        if not isinstance(grading, dict):
            got.left_out[1][1].append(at)
            continue
        provider = _provider_id(r.get("provider")) or "?"
        item = f"{r.get('testIdx', at - 1)}/{r.get('promptIdx', 0)}/{provider}"
        response = r["response"] if isinstance(r.get("response"), dict) else {}
        output = response.get("output")
        length = tokens_of(output if isinstance(output, str) else None)
        for k, c in enumerate(grading.get("componentResults") or [], start=1):
            assertion: JSONValue = c.get("assertion") if isinstance(c, dict) else None
            kind = str(assertion.get("type")) if isinstance(assertion, dict) else ""
            if kind not in MODEL_GRADED:
                other[kind or "unnamed"] += 1
                continue
            if (c.get("metadata") or {}).get("graderError"):
                got.left_out[0][1].append(at)
                continue
            field_ = f"gradingResult.componentResults[{k - 1}]"
            value = _promptfoo_score(name, at, field_, c)
            graders.setdefault(kind, _provider_id(assertion.get("provider")) or _default_grader(config, r.get("testCase")))
            if assertion.get("value") not in rubrics:
                rubrics.append(assertion.get("value"))
            got.rows.append(score_row(item, kind, "judge", value, provider, length, line=at))
    rater = _rater_names(graders)
    for row in got.rows:
        row["rater"] = rater[row["rater"]]
    version = (doc.get("metadata") or {}).get("promptfooVersion", "") if isinstance(doc.get("metadata"), dict) else ""
    got.identity = {"grader": ", ".join(dict.fromkeys(graders.values())), "assertions": ", ".join(graders),
                    "rubric": digest_of(rubrics), "tool": f"promptfoo {version}".strip(),
                    "results_version": str(doc["results"].get("version", ""))}
    got.notes.append("read as promptfoo results: items are testIdx/promptIdx/provider; a model-graded assertion's "
                     "score (pass without a score: 1, fail: 0); lengths are the outputs' whitespace tokens")
    if other:
        got.notes.append(f"{sum(other.values()):,} assertions that no model graded ({', '.join(sorted(other))}) "
                         "are not judgments and were not read")
    return got


def _promptfoo_score(name: str, at: int, field_: str, c: JSONObject) -> float:
    """A model-graded component's score; only where it has none (absent or null) its pass flag (1 or
    0). A score that is there but not a number (text, NaN, an infinity) or beyond MAX_SCORE_MAGNITUDE
    is refused, located: the pass flag never stands in for a score the grader wrote."""
    score = c.get("score")
    if score is None:
        if isinstance(c.get("pass"), bool):
            return 1.0 if c["pass"] else 0.0
        raise InputError(name, at, f"{field_}.score", f"expected a number or a pass, got {excerpt(score)}",
                         row_label="record")
    f = number_of(score)
    if f is not None and score_size(f):
        return f
    if f is not None or (isinstance(score, (int, float)) and not isinstance(score, bool) and not is_nan(score)):
        raise InputError(name, at, f"{field_}.score", f"expected {SCORE_RANGE}, got {excerpt(score)}",
                         row_label="record")
    if not isinstance(c.get("pass"), bool):
        raise InputError(name, at, f"{field_}.score", f"expected a number or a pass, got {excerpt(score)}",
                         row_label="record")
    shown = "NaN" if is_nan(score) else excerpt(score)
    raise InputError(name, at, f"{field_}.score", f"expected a number, got {shown} (the assertion's pass flag is "
                     "read only where it has no score)", row_label="record")


# --- FastChat MT-Bench single-answer grading -------------------------------------------------------


def _single_answer(prompt: object, turn: object) -> str | None:
    """The graded answer in a FastChat single-grading prompt (single-v1, single-math-v1: between
    "[The Start of Assistant's Answer]" and its end; multi-turn: assistant A's answer to ``turn``)."""
    if not isinstance(prompt, str):
        return None
    start, end = "[The Start of Assistant's Answer]\n", "\n[The End of Assistant's Answer]"
    i = prompt.rfind(start)
    if i >= 0:
        j = prompt.find(end, i)
        return prompt[i + len(start):j] if j >= 0 else None
    block_at = prompt.find("<|The Start of Assistant A's Conversation with User|>")
    if block_at < 0:
        return None
    block = prompt[block_at:prompt.find("<|The End of Assistant A's Conversation with User|>", block_at)]
    answers = [part.split("\n\n### User:", 1)[0].strip("\n") for part in block.split("### Assistant A:\n")[1:]]
    if not answers:
        return None
    k = turn if isinstance(turn, int) and 1 <= turn <= len(answers) else len(answers)
    return answers[k - 1]


def read_mt_bench_single(name: str, records: list[JSONObject], lines: list[int]) -> Gathered:
    got = Gathered([], {}, {}, [], [("judgments FastChat could not parse (score -1)", []),
                                    ("scores outside FastChat's 1..10 scale", [])])
    templates: dict[str, None] = {}
    for r, line in zip(records, lines):
        for f in ("question_id", "model", "judge", "score"):
            if f not in r:
                raise InputError(name, line, f, "missing field of an MT-Bench single grading", row_label="line")
        judge = r["judge"]
        grader = str(judge[0]) if isinstance(judge, list) and judge else str(judge)
        if isinstance(judge, list) and len(judge) > 1:
            templates.setdefault(str(judge[1]))
        score = r["score"]
        if number_of(score) is None:
            raise InputError(name, line, "score", f"expected a rating from 1 to 10 (or -1), got {excerpt(score)}",
                             row_label="line")
        if score == -1:
            got.left_out[0][1].append(line)
            continue
        if not 1 <= score <= 10:
            got.left_out[1][1].append(line)
            continue
        turn = r.get("turn", 1)
        item = f"{r['question_id']}/{r['model']}/{turn}"
        length = tokens_of(_single_answer(r.get("user_prompt"), turn))
        got.rows.append(score_row(item, grader, "judge", float(score), str(r["model"]), length, line=line))
    graders = list(dict.fromkeys(r["rater"] for r in got.rows))
    got.identity = {"grader": ", ".join(graders), "template": ", ".join(templates),
                    "tool": "FastChat llm_judge (single-answer grading)"}
    got.notes.append("read as FastChat MT-Bench single-answer grading: items are question_id/model/turn, scores "
                     "1-10; lengths are the graded answers' whitespace tokens, recovered from the judge prompts")
    return got


# --- judgekit ------------------------------------------------------------------------------------


def _judgekit_value(name: str, r: JSONObject, line: int) -> tuple[float, float]:
    """A judgekit verdict's score and probability of "pass" (binary with a confidence), checked as
    judgekit's own schema checks them."""
    def bad(field_: str, what: str) -> InputError:
        return InputError(name, line, field_, f"{what}, got {excerpt(r.get(field_))}", row_label="line")

    def number(field_: str, default: float | None = None) -> float:
        f = number_of(r.get(field_, default))
        if f is None:
            raise bad(field_, "expected a number")
        if not score_size(f):
            raise bad(field_, f"expected {SCORE_RANGE}")
        return f

    if r["kind"] == "graded":
        score, low, high = number("score"), number("scale_min", 1.0), number("scale_max", 5.0)
        if not low <= score <= high:
            raise bad("score", f"expected a score on the scale {low:g}..{high:g}")
        return score, math.nan
    if not isinstance(r.get("label"), bool):
        raise bad("label", "expected true or false")
    conf = r.get("confidence")
    if conf is None:
        return (1.0 if r["label"] else 0.0), math.nan
    c = number("confidence")
    if not 0.0 <= c <= 1.0:
        raise bad("confidence", "expected a probability from 0 to 1")
    return (1.0 if r["label"] else 0.0), (c if r["label"] else 1.0 - c)


def read_judgekit(name: str, records: list[JSONObject], lines: list[int]) -> Gathered:
    got = Gathered([], {}, {}, [], [("pairwise verdicts (read them as a pairwise judge log)", [])])
    scales: Counter[tuple[JSONValue, JSONValue]] = Counter()
    for r, line in zip(records, lines):
        kind = r.get("kind")
        if kind == "pairwise":
            got.left_out[0][1].append(line)
            continue
        if kind not in ("graded", "binary"):
            raise InputError(name, line, "kind", f"expected graded, binary or pairwise, got {excerpt(kind)}",
                             row_label="line")
        if "item_id" not in r:
            raise InputError(name, line, "item_id", "missing field of a judgekit verdict", row_label="line")
        score, p_pass = _judgekit_value(name, r, line)
        if kind == "graded":
            scales[(r.get("scale_min", 1.0), r.get("scale_max", 5.0))] += 1
        else:
            got.labels.update({1.0: "pass", 0.0: "fail"})
        rater = str(r.get("judge_id", "judge"))
        length = optional_number(name, line, "candidate_len", r.get("candidate_len"), "line", strict=False)
        got.rows.append(score_row(str(r["item_id"]), rater, "human" if rater == "human" else "judge", score,
                                  str(r.get("candidate_model") or ""), length, p_pass, line))
    judges = list(dict.fromkeys(r["rater"] for r in got.rows if r["role"] == "judge"))
    got.identity = {"grader": ", ".join(judges), "tool": "judgekit verdicts"}
    got.notes.append("read as judgekit verdicts: items are item_id; binary pass = 1, fail = 0, confidence read as "
                     "the probability of pass; lengths are judgekit's candidate_len, in the log's own unit")
    if scales:
        got.notes.append("graded scales: " + ", ".join(f"{lo:g}..{hi:g} ({n:,} scores)" for (lo, hi), n in scales.items()))
    return got
