"""Graded and binary judge logs as evaluation harnesses write them, read into one long table of
scores: one row per (judged answer, rater), judges and humans alike.

Where the pairwise readers (:mod:`agreebound.io.judge_logs`) read a judge choosing between two
answers, these read a judge scoring one answer: a 1-10 rating, a pass/fail, a C/I grade. Shapes
are recognised by their fields (no mapping needed):

* **inspect_ai** evaluation logs (``inspect eval ... --log-format json``, or the default ``.eval``
  zip archive): ``eval`` (task, model, ``model_roles``, scorers), ``samples[]`` with ``id``,
  ``epoch``, ``output`` and ``scores`` ``{scorer: {value, answer, explanation, metadata}}``.
  ``model_graded_qa``/``model_graded_fact`` grade C, I (and P with ``partial_credit``): 1, 0, 0.5.
  An unscored sample (value NaN: the grader's reply held no grade) is left out and counted.
  Item: ``<sample id>/<epoch>`` (each epoch is a new answer). Grader: the model that wrote the
  grading message (``metadata.grading``), else the ``grader`` model role, else the model under test.
* **promptfoo** results (``promptfoo eval -o results.json``, results version 3/4):
  ``results.results[]`` with ``gradingResult.componentResults[]``; the model-graded assertions
  (``llm-rubric``, ``model-graded-closedqa``, ``g-eval``, ``factuality``...) are read: their
  ``score`` (a closed-QA verdict is 1 or 0), the assertion's ``provider`` as the grader. A grader
  reply promptfoo could not parse (``metadata.graderError``) is left out and counted.
  Item: ``<testIdx>/<promptIdx>/<provider id>``.
* **FastChat MT-Bench single-answer grading** (``model_judgment/gpt-4_single.jsonl``):
  ``question_id, model, judge`` ([judge model, template name]), ``user_prompt, judgment, score,
  turn``; score -1 (no ``[[rating]]`` found) is left out and counted. Item:
  ``<question_id>/<model>/<turn>``; scale 1..10.
* **judgekit** verdicts (JSON Lines): ``kind`` graded (``score`` on ``scale_min..scale_max``) or
  binary (``label``, ``confidence`` in the emitted label); ``judge_id: "human"`` rows are human
  scores. Item: ``item_id``. Pairwise verdicts belong to the pairwise reader.
* **scores table**: CSV or JSON Lines with exactly the :data:`SCORE_COLUMNS` names (``item, rater,
  role, score`` required), so any harness's scores can be brought.

judgecal writes pairwise judgments only (``verdict`` first/second/tie): they are read by the
pairwise reader, and this module says so.

How human labels join a log (:func:`join_human_labels`): an ``item`` column naming the log's items
as above, or the parts the item is built from: inspect_ai ``id``/``sample_id`` [+ ``epoch``];
promptfoo ``id``/``test``/``testIdx`` [+ ``prompt``/``promptIdx``] [+ ``provider``/``model``];
MT-Bench ``question_id`` + ``model`` [+ ``turn``]; judgekit ``item_id``/``id``. A trailing part may
be left out when the log has only one item that fits.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.io.archive import open_archive
from agreebound.io.json_toml import DuplicateKey, json_depth, no_duplicates
from agreebound.io.readers import json_line_records, judge_log_shape
from agreebound.io.sniff import sniff
from agreebound.io.tables import decode_text, read_csv, transcode
from agreebound.core.limits import (MAX_ARCHIVE_JSON_MEMBER_BYTES, MAX_NAME_CHARS, MAX_NESTING, MAX_ROWS,
                               MAX_SCORE_MAGNITUDE, MIN_SCORE_MAGNITUDE, SCORE_RANGE,
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


def number_of(v: Any) -> float | None:
    """A JSON number as a float: None for a boolean, text, NaN, an infinity or an integer too large
    for a float (``float(10**400)`` raises; so does ``math.isfinite`` of it)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def score_value(v: Any) -> tuple[float, str | None] | None:
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
    agreebound.io.scored_logs.ScoreRangeError: a score from -10^15 to 10^15, 0 or at least 10^-15 in size
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


class _Counted:
    """An answer's whitespace tokens, counted when an archive's sample was read: what is kept of
    the answer instead of its text (:func:`_kept`)."""

    __slots__ = ("n",)

    def __init__(self, text: str) -> None:
        self.n = len(text.split())


def _tokens(text: Any) -> float:
    """An answer's length in whitespace tokens, NaN when there is no text."""
    if isinstance(text, _Counted):
        return float(text.n)
    return float(len(text.split())) if isinstance(text, str) else math.nan


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:12]


def _lines_text(lines: list[int], limit: int = 8) -> str:
    shown = ", ".join(str(x) for x in lines[:limit])
    return shown + (f" and {len(lines) - limit:,} more" if len(lines) > limit else "")


def _row(item: str, rater: str, role: str, score: float, model: str = "", length: float = math.nan,
         confidence: float = math.nan, line: int = 0) -> dict[str, Any]:
    return {"item": item, "rater": rater, "role": role, "score": score, "model": model, "length": length,
            "confidence": confidence, "line": line}


@dataclass
class _Gathered:
    """What a shape reader found: the score rows, and what it left out (for the notes)."""

    rows: list[dict[str, Any]]
    labels: dict[float, str]
    identity: dict[str, str]
    notes: list[str]
    left_out: list[tuple[str, list[int]]]  # (why, record numbers or lines)
    unit: str = "line"  # what the row numbers count: "line" (JSON Lines) or "record"/"sample"


def _finish(name: str, shape: str, got: _Gathered, judge: str | None, scale: tuple[float, ...] | None) -> ScoredLog:
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
            notes.append(f"{len(at):,} {what} left out ({got.unit}s {_lines_text(at)})")
    used = set(frame["score"])
    labels = {k: v for k, v in got.labels.items() if k in used}
    return ScoredLog(name, shape, frame, scale, labels, judges, got.identity, tuple(notes))


# --- reading the bytes ---------------------------------------------------------------------------


def _nan_only(token: str) -> float:
    """inspect_ai writes an unscored sample's value as NaN (Python's JSON extension): only NaN passes."""
    if token == "NaN":
        return math.nan
    raise ValueError(f"invalid JSON: {token} is not a number JSON allows")


def _json_allowing_nan(name: str, data: bytes) -> Any:
    """A JSON document read strictly (every key once, depth within the limit) except that NaN is
    read as a missing score: inspect_ai's logs hold it for every unscored sample."""
    text = decode_text(name, data, "a JSON document")
    if json_depth(data) > MAX_NESTING:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
    try:
        return json.loads(text, parse_constant=_nan_only, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except DuplicateKey as e:
        raise InputError(name, None, e.key, "duplicate key in one object; every key once") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:
        raise InputError(name, None, None, str(e)) from None


#: What the reader keeps of an inspect_ai archive's sample, as soon as it is parsed: its id and
#: epoch, and of each score what :func:`_inspect` reads (the value, the recorded reason, the start of
#: the explanation, the grading model, the answer's token count). Messages, events, attachments and
#: the texts themselves are dropped, so what is held stays small however large each sample is
#: (31 samples of 60 MB each once held 2.2 GB).
_TEXT_KEPT = 200


def _text(v: Any) -> Any:
    return v[:_TEXT_KEPT] if isinstance(v, str) else v


def _score_kept(sc: Any) -> Any:
    if not isinstance(sc, dict):
        return sc
    kept: dict[str, Any] = {k: _text(sc[k]) for k in ("value", "reason", "explanation") if k in sc}
    if isinstance(sc.get("answer"), str):
        kept["answer"] = _Counted(sc["answer"])
    model = _grading_model(sc)
    if model is not None:
        kept["metadata"] = {"grading": [{"role": "assistant", "model": _text(model)}]}
    return kept


def _kept(name: str, sample: Any) -> Any:
    if not isinstance(sample, dict):
        return sample
    if isinstance(sample.get("id"), str) and len(sample["id"]) > MAX_NAME_CHARS:
        raise InputError(name, None, "id", f"a sample id of {len(sample['id']):,} characters; the limit is "
                         f"{MAX_NAME_CHARS:,}")
    kept = {k: sample[k] for k in ("id", "epoch") if k in sample}
    scores = sample.get("scores")
    if "scores" in sample:
        kept["scores"] = {k: _score_kept(sc) for k, sc in scores.items()} if isinstance(scores, dict) else scores
    output = sample.get("output")
    if isinstance(output, dict) and isinstance(output.get("completion"), str):
        kept["output"] = {"completion": _Counted(output["completion"])}
    return kept


def _inspect_archive(name: str, data: bytes) -> dict[str, Any]:
    """An inspect_ai ``.eval`` archive (a zip: header.json, samples/<id>_epoch_<n>.json) as the same
    object a ``--log-format json`` log holds: the header's fields and ``samples``. Every member is
    inflated through :mod:`agreebound.io.archive`, bounded while it inflates."""
    archive = open_archive(name, data, ".eval archive")
    infos = archive.infos()
    by_name = {i.filename: i for i in infos}
    first = by_name.get("header.json") or by_name.get("_journal/start.json")
    if first is None:
        raise InputError(name, None, None, "a zip archive without header.json: not an inspect_ai .eval log")

    def member(info: Any) -> Any:
        text = archive.read(info, "JSON member", MAX_ARCHIVE_JSON_MEMBER_BYTES)
        return _json_allowing_nan(f"{name}:{info.filename}", text)

    obj = member(first)
    if not isinstance(obj, dict):
        raise InputError(name, None, first.filename, "expected a JSON object")
    samples = [i for i in infos if i.filename.startswith("samples/") and i.filename.endswith(".json")]
    if len(samples) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(samples):,} samples; the limit is {MAX_ROWS:,}")
    obj = dict(obj)
    obj.pop("samples", None)
    obj["samples"] = [_kept(f"{name}:{i.filename}", member(i)) for i in samples]
    return obj


def _document(name: str, data: bytes) -> tuple[Any, list[dict[str, Any]], list[int]]:
    """The file as one JSON document (inspect_ai, promptfoo), or as records and their lines."""
    if data[:4] == b"PK\x03\x04":
        return _inspect_archive(name, data), [], []
    sn = sniff(name, data)
    utf8 = transcode(name, data, sn.encoding)
    if sn.format == "json":
        obj = _json_allowing_nan(name, utf8)
        if isinstance(obj, list):
            if not all(isinstance(r, dict) for r in obj):
                raise InputError(name, None, None, "expected a list of JSON objects")
            return None, obj, list(range(1, len(obj) + 1))
        return obj, [], []
    if sn.format == "jsonl":
        records, lines = [], []
        for obj, i in json_line_records(name, utf8.decode("utf-8-sig")):
            records.append(obj)
            lines.append(i)
        if not records:
            raise InputError(name, None, None, "the file has no JSON records")
        return None, records, lines
    raise InputError(name, None, None, "expected a judge log: JSON (inspect_ai, promptfoo), an inspect_ai .eval "
                     "archive, or JSON Lines (MT-Bench single grading, judgekit)")


def scored_log_shape(record: dict[str, Any]) -> str | None:
    """The graded/binary shape a log's first record (or its whole object) has, by its fields."""
    if not isinstance(record, dict):
        return None
    keys = set(record)
    if {"eval", "samples"} <= keys or ({"eval", "version"} <= keys and isinstance(record.get("eval"), dict)):
        return "inspect_ai"
    results = record.get("results")
    if isinstance(results, dict) and isinstance(results.get("results"), list):
        return "promptfoo"
    if {"question_id", "model", "judge", "score"} <= keys and "games" not in keys:
        return "mt-bench single"
    if {"kind", "item_id"} <= keys and record.get("kind") in ("graded", "binary", "pairwise"):
        return "judgekit"
    if {"custom_id", "verdict", "meta"} <= keys:
        return "judgecal"
    if {"item", "rater", "role", "score"} <= keys:
        return "scores table"
    return None


def read_scored_log(name: str, data: bytes, judge: str | None = None) -> ScoredLog:
    """A graded/binary judge log, its shape recognised by its fields (see the module); a CSV is
    read as a scores table."""
    if data[:4] != b"PK\x03\x04" and sniff(name, data).format == "csv":
        log = scores_table(name, data)
        if judge is None:
            return log
        return _finish(name, log.shape, _Gathered(log.scores.to_dict("records"), dict(log.labels), dict(log.identity),
                                                  [], []), judge, None)
    obj, records, lines = _document(name, data)
    first = obj if obj is not None else records[0]
    shape = scored_log_shape(first)
    if shape == "inspect_ai":
        return _finish(name, shape, _inspect(name, first), judge, None)
    if shape == "promptfoo":
        return _finish(name, shape, _promptfoo(name, first), judge, None)
    if obj is not None:
        raise InputError(name, None, None, "a JSON object that is neither an inspect_ai log (eval, samples) nor "
                         f"promptfoo results (results.results); it has {', '.join(map(str, list(obj)[:12]))}")
    pairwise = judge_log_shape(first)
    if shape == "judgecal" or pairwise is not None:
        raise InputError(name, None, None, f"this is a pairwise judge log ({pairwise or 'judgecal judgments'}): "
                         "audit it as a pairwise judge log ('agreebound calibrate' or the Judge calibration page)")
    if shape == "mt-bench single":
        got = _mt_bench_single(name, records, lines)
        scale = tuple(float(x) for x in range(1, 11))
        return _finish(name, shape, got, judge, scale if all(r["score"] in scale for r in got.rows) else None)
    if shape == "judgekit":
        return _finish(name, shape, _judgekit(name, records, lines), judge, None)
    if shape == "scores table":  # JSON Lines (by line) or a JSON array of records (by record)
        label = "record" if data.lstrip()[:1] == b"[" else "line"
        return _finish(name, shape, _table_rows(name, records, lines, label), judge, None)
    raise InputError(name, None, None, "not a graded judge log this version recognises (inspect_ai, promptfoo, "
                     "MT-Bench single grading, judgekit, a scores table); its first record has "
                     f"{', '.join(map(str, list(first)[:12]))}")


# --- inspect_ai ----------------------------------------------------------------------------------


def _grading_model(score: dict[str, Any]) -> str | None:
    """The model that wrote a model-graded score's grading reply (``metadata.grading[-1].model``)."""
    meta = score.get("metadata")
    grading = meta.get("grading") if isinstance(meta, dict) else None
    if isinstance(grading, list):
        for message in reversed(grading):
            if isinstance(message, dict) and message.get("role") == "assistant" and message.get("model"):
                return str(message["model"])
    return None


def _inspect_grader(ev: dict[str, Any], scorer: str) -> str:
    """A scorer's grader when its scores do not say: the grader role's model for a model-graded
    scorer (inspect falls back to the model under test when the role is unbound), else its name."""
    roles = ev.get("model_roles") if isinstance(ev.get("model_roles"), dict) else {}
    if not scorer.startswith("model_graded"):
        return scorer
    role = roles.get("grader")
    if isinstance(role, dict) and role.get("model"):
        return str(role["model"])
    return str(ev.get("model", scorer))


def _inspect_identity(ev: dict[str, Any], graders: dict[str, str]) -> dict[str, str]:
    scorers = ev.get("scorers") if isinstance(ev.get("scorers"), list) else []
    options = [{"name": s.get("name"), "options": s.get("options")} for s in scorers if isinstance(s, dict)]
    version = (ev.get("packages") or {}).get("inspect_ai", "") if isinstance(ev.get("packages"), dict) else ""
    out = {"grader": ", ".join(dict.fromkeys(graders.values())), "scorer": ", ".join(graders),
           "task": str(ev.get("task", "")), "model": str(ev.get("model", "")),
           "tool": f"inspect_ai {version}".strip()}
    if options:  # a custom template or instructions are in the scorer's options; else inspect's defaults
        out["rubric"] = _digest(options)
    return out


def _inspect(name: str, log: dict[str, Any]) -> _Gathered:
    """Every sample's scores: one row per sample, epoch and scorer."""
    ev = log.get("eval") if isinstance(log.get("eval"), dict) else {}
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(name, None, "samples", "the log holds no samples (was it written with --no-log-samples?)")
    if len(samples) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(samples):,} samples; the limit is {MAX_ROWS:,}")
    got = _Gathered([], {}, {}, [], [("unscored judgments (no grade in the grader's reply)", []),
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
            grader = _grading_model(sc) or _inspect_grader(ev, scorer)
            graders.setdefault(scorer, grader)
            if value is None:
                _unscored(name, got, at, scorer, sc)
                continue
            if value[1] is not None:
                got.labels[value[0]] = value[1]
            answer = sc.get("answer") if isinstance(sc.get("answer"), (str, _Counted)) \
                else (s.get("output") or {}).get("completion")
            got.rows.append(_row(item, scorer, "judge", value[0], model, _tokens(answer), line=at))
    rater = _rater_names(graders)
    for r in got.rows:
        r["rater"] = rater[r["rater"]]
    got.identity = _inspect_identity(ev, graders)
    got.notes.append(f"read as an inspect_ai log of task {ev.get('task', '?')}: items are sample id/epoch; "
                     "C = 1, I = 0, P = 0.5; lengths are the graded answers' whitespace tokens")
    return got


def _unscored(name: str, got: _Gathered, at: int, scorer: str, sc: dict[str, Any]) -> None:
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


def _provider_id(p: Any) -> str | None:
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        return str(p.get("id") or p.get("label") or "") or None
    return None


def _default_grader(config: Any, test: Any) -> str:
    """promptfoo's grader when an assertion names none: the test's, then defaultTest's options."""
    for holder in (test, config.get("defaultTest") if isinstance(config, dict) else None):
        options = holder.get("options") if isinstance(holder, dict) else None
        if isinstance(options, dict):
            found = _provider_id(options.get("provider"))
            if found:
                return found
    return "promptfoo default grader"


def _promptfoo(name: str, doc: dict[str, Any]) -> _Gathered:
    """Every result's model-graded assertions: one row per result and assertion type."""
    results = doc["results"]["results"]
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    got = _Gathered([], {1.0: "pass", 0.0: "fail"}, {}, [], [("grader replies promptfoo could not parse", []),
                                                            ("results without a grading result", [])], unit="record")
    graders: dict[str, str] = {}
    rubrics: list[Any] = []
    other: Counter = Counter()
    for at, r in enumerate(results, start=1):
        if not isinstance(r, dict):
            raise InputError(name, at, None, "expected a result object", row_label="record")
        grading = r.get("gradingResult")
        if not isinstance(grading, dict):
            got.left_out[1][1].append(at)
            continue
        provider = _provider_id(r.get("provider")) or "?"
        item = f"{r.get('testIdx', at - 1)}/{r.get('promptIdx', 0)}/{provider}"
        response = r.get("response") if isinstance(r.get("response"), dict) else {}
        output = response.get("output")
        length = _tokens(output if isinstance(output, str) else None)
        for k, c in enumerate(grading.get("componentResults") or [], start=1):
            assertion = c.get("assertion") if isinstance(c, dict) else None
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
            got.rows.append(_row(item, kind, "judge", value, provider, length, line=at))
    rater = _rater_names(graders)
    for row in got.rows:
        row["rater"] = rater[row["rater"]]
    version = (doc.get("metadata") or {}).get("promptfooVersion", "") if isinstance(doc.get("metadata"), dict) else ""
    got.identity = {"grader": ", ".join(dict.fromkeys(graders.values())), "assertions": ", ".join(graders),
                    "rubric": _digest(rubrics), "tool": f"promptfoo {version}".strip(),
                    "results_version": str(doc["results"].get("version", ""))}
    got.notes.append("read as promptfoo results: items are testIdx/promptIdx/provider; a model-graded assertion's "
                     "score (pass without a score: 1, fail: 0); lengths are the outputs' whitespace tokens")
    if other:
        got.notes.append(f"{sum(other.values()):,} assertions that no model graded ({', '.join(sorted(other))}) "
                         "are not judgments and were not read")
    return got


def _promptfoo_score(name: str, at: int, field_: str, c: dict[str, Any]) -> float:
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
    if f is not None or (isinstance(score, (int, float)) and not isinstance(score, bool) and not _is_nan(score)):
        raise InputError(name, at, f"{field_}.score", f"expected {SCORE_RANGE}, got {excerpt(score)}",
                         row_label="record")
    if not isinstance(c.get("pass"), bool):
        raise InputError(name, at, f"{field_}.score", f"expected a number or a pass, got {excerpt(score)}",
                         row_label="record")
    shown = "NaN" if _is_nan(score) else excerpt(score)
    raise InputError(name, at, f"{field_}.score", f"expected a number, got {shown} (the assertion's pass flag is "
                     "read only where it has no score)", row_label="record")


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


# --- FastChat MT-Bench single-answer grading -------------------------------------------------------


def _single_answer(prompt: Any, turn: Any) -> str | None:
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


def _mt_bench_single(name: str, records: list[dict[str, Any]], lines: list[int]) -> _Gathered:
    got = _Gathered([], {}, {}, [], [("judgments FastChat could not parse (score -1)", []),
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
        length = _tokens(_single_answer(r.get("user_prompt"), turn))
        got.rows.append(_row(item, grader, "judge", float(score), str(r["model"]), length, line=line))
    graders = list(dict.fromkeys(r["rater"] for r in got.rows))
    got.identity = {"grader": ", ".join(graders), "template": ", ".join(templates),
                    "tool": "FastChat llm_judge (single-answer grading)"}
    got.notes.append("read as FastChat MT-Bench single-answer grading: items are question_id/model/turn, scores "
                     "1-10; lengths are the graded answers' whitespace tokens, recovered from the judge prompts")
    return got


# --- judgekit ------------------------------------------------------------------------------------


def _judgekit_value(name: str, r: dict[str, Any], line: int) -> tuple[float, float]:
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


def _judgekit(name: str, records: list[dict[str, Any]], lines: list[int]) -> _Gathered:
    got = _Gathered([], {}, {}, [], [("pairwise verdicts (read them as a pairwise judge log)", [])])
    scales: Counter = Counter()
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
        length = _optional_number(name, line, "candidate_len", r.get("candidate_len"), "line", strict=False)
        got.rows.append(_row(str(r["item_id"]), rater, "human" if rater == "human" else "judge", score,
                             str(r.get("candidate_model") or ""), length, p_pass, line))
    judges = list(dict.fromkeys(r["rater"] for r in got.rows if r["role"] == "judge"))
    got.identity = {"grader": ", ".join(judges), "tool": "judgekit verdicts"}
    got.notes.append("read as judgekit verdicts: items are item_id; binary pass = 1, fail = 0, confidence read as "
                     "the probability of pass; lengths are judgekit's candidate_len, in the log's own unit")
    if scales:
        got.notes.append("graded scales: " + ", ".join(f"{lo:g}..{hi:g} ({n:,} scores)" for (lo, hi), n in scales.items()))
    return got


# --- scores tables and human labels ------------------------------------------------------------------


def _table_records(name: str, data: bytes) -> tuple[list[dict[str, Any]], list[int], str]:
    """A CSV or JSON Lines file's records (every CSV cell as text) and their line numbers."""
    sn = sniff(name, data)
    if sn.format in ("json", "jsonl"):
        _, records, lines = _document(name, data)
        if not records:
            raise InputError(name, None, None, "expected records (JSON Lines or a JSON list), one score each")
        return records, lines, "line" if sn.format == "jsonl" else "record"
    if sn.format != "csv":
        raise InputError(name, None, None, "expected a CSV or JSON Lines file")
    table = read_csv(name, transcode(name, data, sn.encoding), "a CSV with a header row", sn.delimiter or ",")
    if table.n_rows > MAX_ROWS:
        raise InputError(name, None, None, f"{table.n_rows:,} rows; the limit is {MAX_ROWS:,}")
    columns = {c.name.strip(): c.values() for c in table.columns}
    records = [{k: (v[i] if v[i] != "" else None) for k, v in columns.items()} for i in range(table.n_rows)]
    return records, _csv_rows(table, data), "row"


def _csv_rows(table: Any, data: bytes) -> list[int]:
    """Each data row's row number in the file, in one pass: consecutive from the first when no record
    spans lines and no line is blank (the usual file); otherwise each found as the reader finds it
    (a scan per row: only for files with quoted line breaks or blank lines)."""
    if not table.n_rows:
        return []
    body = data.replace(b"\r\n", b"\n")
    if b'"' not in data and b"\n\n" not in body.strip(b"\n"):
        first = table.row_of(0)
        return list(range(first, first + table.n_rows))
    return [table.row_of(i) for i in range(table.n_rows)]


def _optional_number(name: str, line: int, field_: str, v: Any, label: str, strict: bool = True) -> float:
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


def _table_rows(name: str, records: list[dict[str, Any]], lines: list[int], label: str = "line") -> _Gathered:
    """A long table of scores with the SCORE_COLUMNS names."""
    got = _Gathered([], {}, {"tool": "scores table"}, [], [("rows without a score", [])], unit=label)
    for r, line in zip(records, lines):
        for f in ("item", "rater", "role", "score"):
            if f not in r:
                raise InputError(name, line, f, f"missing column; a scores table has {', '.join(SCORE_COLUMNS[:4])}",
                                 row_label=label)
        role = str(r["role"]).strip().lower()
        if role not in ("judge", "human"):
            raise InputError(name, line, "role", f"expected judge or human, got {excerpt(r['role'])}", row_label=label)
        value = _label_value(name, line, "score", r["score"], label)
        if value is None:
            got.left_out[0][1].append(line)
            continue
        if value[1] is not None:
            got.labels[value[0]] = value[1]
        conf = _optional_number(name, line, "confidence", r.get("confidence"), label)
        if not math.isnan(conf) and not 0 <= conf <= 1:
            raise InputError(name, line, "confidence", f"expected a probability from 0 to 1, got {excerpt(conf)}",
                             row_label=label)
        got.rows.append(_row(_key(r["item"]), str(r["rater"]), role, value[0], str(r.get("model") or ""),
                             _optional_number(name, line, "length", r.get("length"), label), conf, line))
    got.identity["grader"] = ", ".join(dict.fromkeys(r["rater"] for r in got.rows if r["role"] == "judge"))
    return got


def _label_value(name: str, line: int, field_: str, v: Any, label: str) -> tuple[float, str | None] | None:
    """A scores table's or human label file's score; None for an empty cell (or null): a missing score.
    NaN is not a missing score there (no tool writes a table's gap as NaN): refused, located."""
    if _is_nan(v):
        raise InputError(name, line, field_, "expected a number or a verdict (pass/fail, yes/no, true/false, C/I/P), "
                         "got NaN (a missing score is an empty cell or null)", row_label=label)
    try:
        return score_value(v)
    except ScoreRangeError as e:
        raise InputError(name, line, field_, f"expected {e}, got {excerpt(v)}", row_label=label) from None
    except ValueError:
        raise InputError(name, line, field_, "expected a number or a verdict (pass/fail, yes/no, true/false, C/I/P), "
                         f"got {excerpt(v)}", row_label=label) from None


def scores_table(name: str, data: bytes) -> ScoredLog:
    """A plain long table of scores (CSV or JSON Lines) with the :data:`SCORE_COLUMNS` names:
    ``item, rater, role, score`` required, ``model, length, confidence, line`` optional."""
    records, lines, label = _table_records(name, data)
    return _finish(name, "scores table", _table_rows(name, records, lines, label), None, None)


#: Per shape, the parts an item id is built from ("/"-joined), each with the columns that may hold it.
JOIN_PARTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "inspect_ai": (("id", "sample_id"), ("epoch",)),
    "promptfoo": (("id", "test", "testIdx", "test_index"), ("prompt", "promptIdx", "prompt_index"),
                  ("provider", "model")),
    "mt-bench single": (("question_id", "id"), ("model",), ("turn",)),
    "judgekit": (("item_id", "id"),),
    "scores table": (),
}
_RATER = ("rater", "human", "annotator", "judge_id")
_VALUE = ("score", "label", "value")


def _key(v: Any) -> str:
    """An id as text, the same whether it came as 81, 81.0 or "81"."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip() if isinstance(v, str) else str(v)


def _human_item(name: str, log: ScoredLog, r: dict[str, Any], line: int, label: str, items: list[str]) -> str:
    """The log's item a human row names: its ``item``, or the shape's parts (a left-out trailing
    part is fine when one item fits); the text it named when nothing fits (counted as unmatched)."""
    if r.get("item") is not None:
        return _key(r["item"])
    parts: list[str] = []
    for names in JOIN_PARTS.get(log.shape, ()):
        found = next((r[n] for n in names if r.get(n) is not None), None)
        if found is None:
            break
        parts.append(_key(found))
    if not parts:
        cols = ["item"] + [n[0] for n in JOIN_PARTS.get(log.shape, ())[:1]]
        raise InputError(name, line, " or ".join(cols), "no column names the item", row_label=label)
    key = "/".join(parts)
    if len(parts) == len(JOIN_PARTS[log.shape]) or key in items:
        return key
    fits = [i for i in items if i.startswith(key + "/")]
    if len(fits) > 1:
        raise InputError(name, line, None, f"{excerpt(key)} fits {len(fits):,} items of the log (e.g. "
                         f"{excerpt(fits[0])}, {excerpt(fits[1])}); add the column that tells them apart",
                         row_label=label)
    return fits[0] if fits else key


def join_human_labels(log: ScoredLog, name: str, data: bytes) -> ScoredLog:
    """Human scores from a CSV or JSON Lines file added to the log as role "human" rows, joined by
    item (see :data:`JOIN_PARTS`); rows for items the log does not have are counted in the notes."""
    records, lines, label = _table_records(name, data)
    items = list(dict.fromkeys(log.scores["item"]))
    known = set(items)
    rows, unmatched, blank = [], [], []
    labels = dict(log.labels)
    for r, line in zip(records, lines):
        field_ = next((f for f in _VALUE if f in r), None)
        if field_ is None:
            raise InputError(name, line, "score", "expected a column score, label or value", row_label=label)
        item = _human_item(name, log, r, line, label, items)
        value = _label_value(name, line, field_, r[field_], label)
        if value is None:
            blank.append(line)
            continue
        if item not in known:
            unmatched.append(line)
            continue
        if value[1] is not None:
            labels.setdefault(value[0], value[1])
        rater = next((str(r[f]) for f in _RATER if r.get(f) is not None), "human")
        rows.append(_row(item, rater, "human", value[0], "", math.nan, math.nan, line))
    humans = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    repeated = humans.duplicated(["item", "rater"], keep="first")
    humans = humans[~repeated.to_numpy()]
    notes = [f"{len(humans):,} human scores joined from {name} ({humans['item'].nunique():,} items, "
             f"{humans['rater'].nunique():,} raters)"]
    for what, at in (("human rows for items the log does not have", unmatched), ("human rows without a score", blank),
                     ("repeated human scores of one item by one rater (the first is kept)",
                      [int(x) for x in pd.DataFrame(rows, columns=list(SCORE_COLUMNS)).loc[repeated.to_numpy(), "line"]])):
        if at:
            notes.append(f"{len(at):,} {what} left out ({label}s {_lines_text(at)})")
    scores = pd.concat([log.scores, humans.astype(log.scores.dtypes.to_dict())], ignore_index=True)
    if len(scores) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(scores):,} scores; the limit is {MAX_ROWS:,}")
    return replace(log, scores=scores, labels=labels, notes=log.notes + tuple(notes))

