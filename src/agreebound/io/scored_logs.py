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

This module recognises the shape (by :func:`agreebound.io.registry.scored_log_shape`) and calls its
reader: the harnesses' in :mod:`agreebound.io.scored_harnesses`, scores tables and human labels in
:mod:`agreebound.io.scored_tables`; a log's document in :mod:`agreebound.io.scored_documents`; the
scores themselves in :mod:`agreebound.io.score_values`.

How human labels join a log (:func:`join_human_labels`): an ``item`` column naming the log's items
as above, or the parts the item is built from: inspect_ai ``id``/``sample_id`` [+ ``epoch``];
promptfoo ``id``/``test``/``testIdx`` [+ ``prompt``/``promptIdx``] [+ ``provider``/``model``];
MT-Bench ``question_id`` + ``model`` [+ ``turn``]; judgekit ``item_id``/``id``. A trailing part may
be left out when the log has only one item that fits.
"""

from __future__ import annotations


from agreebound.core.errors import InputError
from agreebound.io.registry import judge_log_shape, scored_log_shape
from agreebound.io.score_values import Gathered, ScoredLog, finish_log
from agreebound.io.scored_documents import read_document
from agreebound.io.scored_harnesses import read_inspect, read_judgekit, read_mt_bench_single, read_promptfoo
from agreebound.io.scored_tables import join_human_labels, scores_table, table_rows
from agreebound.io.sniff import sniff, utf16_as_utf8


def read_scored_log(name: str, data: bytes, judge: str | None = None) -> ScoredLog:
    """A graded/binary judge log, its shape recognised by its fields (see the module); a CSV is
    read as a scores table."""
    if data[:4] != b"PK\x03\x04" and sniff(name, data).format == "csv":
        log = scores_table(name, data)
        if judge is None:
            return log
        return finish_log(name, log.shape, Gathered(log.scores.to_dict("records"), dict(log.labels),
                                                    dict(log.identity), [], []), judge, None)
    obj, records, lines = read_document(name, data)
    first = obj if obj is not None else records[0]
    shape = scored_log_shape(first)
    if shape == "inspect_ai":
        return finish_log(name, shape, read_inspect(name, first), judge, None)
    if shape == "promptfoo":
        return finish_log(name, shape, read_promptfoo(name, first), judge, None)
    if obj is not None:
        raise InputError(name, None, None, "a JSON object that is neither an inspect_ai log (eval, samples) nor "
                         f"promptfoo results (results.results); it has {', '.join(map(str, list(obj)[:12]))}")
    pairwise = judge_log_shape(first)
    if shape == "judgecal" or pairwise is not None:
        raise InputError(name, None, None, f"this is a pairwise judge log ({pairwise or 'judgecal judgments'}): "
                         "audit it as a pairwise judge log ('agreebound calibrate' or the Judge calibration page)")
    if shape == "mt-bench single":
        got = read_mt_bench_single(name, records, lines)
        scale = tuple(float(x) for x in range(1, 11))
        return finish_log(name, shape, got, judge, scale if all(r["score"] in scale for r in got.rows) else None)
    if shape == "judgekit":
        return finish_log(name, shape, read_judgekit(name, records, lines), judge, None)
    if shape == "scores table":  # JSON Lines (by line) or a JSON array of records (by record)
        label = "record" if data.lstrip()[:1] == b"[" else "line"
        return finish_log(name, shape, table_rows(name, records, lines, label), judge, None)
    raise InputError(name, None, None, "not a graded judge log this version recognises (inspect_ai, promptfoo, "
                     "MT-Bench single grading, judgekit, a scores table); its first record has "
                     f"{', '.join(map(str, list(first)[:12]))}")


def read_scored(name: str, data: bytes, humans: tuple[str, bytes] | None = None, judge: str | None = None) -> ScoredLog:
    """A graded or pass/fail judge's log, with human labels joined from a second file if given
    (agreebound.io.score_values.ScoredLog). Read only: judge_scores measures it."""
    head = (utf16_as_utf8(data) or data)[:65536].lstrip()  # a UTF-16 log's first character, not its BOM
    log = read_scored_log(name, data, judge) if head[:1] in (b"{", b"[", b"P") else scores_table(name, data)
    return join_human_labels(log, humans[0], humans[1]) if humans is not None else log
