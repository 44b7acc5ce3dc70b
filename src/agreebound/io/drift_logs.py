"""Two judge runs read for drift (:mod:`agreebound.judge.drift`): each log as per-item rows (item,
system, candidate digest, outcome), through the readers the project already has, with the
candidate text's digest taken from the log's own records.

* A **pairwise** log (every shape :func:`agreebound.io.judge_logs.read_judge_log` reads): each
  judgment gives two rows, one per model, its share of the game (1 won, 1/2 tie, 0 lost); the item
  is the case (question, turn, model pair). The digest is the case's two answers: MT-Bench's
  judge prompts hold them (``g1_user_prompt``, else ``g2_user_prompt`` swapped back), AlpacaEval's
  ``output_1``/``output_2``; other shapes carry none.
* A **graded or pass/fail** log (every shape :func:`agreebound.io.scored_logs.read_scored_log`
  reads): the judge's scores, the system is the item's ``model``. The digest: MT-Bench single
  grading's graded answer (or the multi-turn conversation) in ``user_prompt``; a scores table's
  ``digest`` column as written, or the digest of its ``output``/``answer``/``response``/
  ``completion``/``text`` column.

Without candidate text, anchors are declared: :func:`read_anchor_list` (one item id a line); on a
pairwise MT-Bench log an id may also name a question (every case of it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction

import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt
from agreebound.core.json_types import JSONObject
from agreebound.io.judge_log_records import between, prompt_answers, read_records
from agreebound.io.judge_logs import read_judge_log
from agreebound.io.registry import judge_log_shape
from agreebound.io.scored_documents import read_document
from agreebound.io.scored_logs import read_scored_log
from agreebound.io.sniff import sniff
from agreebound.io.tables import read_csv, transcode
from agreebound.judge.drift import COLUMNS, SCORE, WIN_RATE

#: A scores table's columns that hold the judged answer's text (the first present is read), and its digest.
TEXT_COLUMNS = ("output", "answer", "response", "completion", "text")
DIGEST_COLUMN = "digest"
#: A pairwise game's share for the model named first (a), by the judge's choice.
SHARES = {"a": Fraction(1), "tie": Fraction(1, 2), "b": Fraction(0)}
UNNAMED = "(no system named)"
MAX_ANCHORS = 1_000_000


@dataclass(frozen=True)
class DriftRun:
    """One run as drift reads it: the rows (:data:`agreebound.judge.drift.COLUMNS`), its scale,
    what the log is, whether it carried candidate text, and per item the question it belongs to
    (a declared anchor may name the question)."""

    file: str
    shape: str
    scale: str
    frame: pd.DataFrame
    with_text: int  # rows whose candidate text was read
    questions: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def digest(*texts: str) -> str:
    """The candidate text's digest: sha256 of the texts (several: joined with a separator no text holds).

    >>> digest("a") == digest("a"), digest("a", "b") == digest("ab")
    (True, False)
    """
    return hashlib.sha256("\x00".join(texts).encode("utf-8", "surrogatepass")).hexdigest()


def _pairwise_text(r: JSONObject) -> str | None:
    """The digest of a pairwise judgment's two answers (model_1's, model_2's), or None without them."""
    turn = r.get("turn", 1)
    one = prompt_answers(r.get("g1_user_prompt"), turn)
    if one is None:
        two = prompt_answers(r.get("g2_user_prompt"), turn)
        one = None if two is None else (two[1], two[0])  # game 2 shows model_2 as A
    if one is None and isinstance(r.get("output_1"), str) and isinstance(r.get("output_2"), str):
        one = (str(r["output_1"]), str(r["output_2"]))
    return None if one is None else digest(*one)


def _graded_text(r: JSONObject) -> str | None:
    """The digest of a graded judgment's answer: MT-Bench single grading's prompt, or a table's column."""
    if isinstance(r.get(DIGEST_COLUMN), str) and r[DIGEST_COLUMN]:
        return str(r[DIGEST_COLUMN])
    for c in TEXT_COLUMNS:
        v = r.get(c)
        if isinstance(v, str):
            return digest(v)
    prompt = r.get("user_prompt")
    if isinstance(prompt, str):
        answer = between(prompt, "[The Start of Assistant's Answer]", "[The End of Assistant's Answer]")
        if answer is None:
            answer = between(prompt, "<|The Start of Assistant A's Conversation with User|>",
                             "<|The End of Assistant A's Conversation with User|>")
        return None if answer is None else digest(answer)
    return None


def _csv_records(name: str, data: bytes) -> dict[int, JSONObject]:
    """A CSV's records by their row number in the file (as the scores table's reader numbers them)."""
    sn = sniff(name, data)
    table = read_csv(name, transcode(name, data, sn.encoding), "a CSV with a header row", sn.delimiter or ",")
    columns = {c.name.strip(): c.values() for c in table.columns}
    wanted = [c for c in (DIGEST_COLUMN, *TEXT_COLUMNS) if c in columns]
    if not wanted:
        return {}
    return {table.row_of(i): {c: columns[c][i] for c in wanted} for i in range(table.n_rows)}


def _pairwise(name: str, data: bytes, judge: str | None) -> DriftRun:
    log = read_judge_log(name, data, judge)
    records, lines = read_records(name, data)
    by_line = dict(zip(lines, records))
    obs = log.observations
    rows: list[tuple[str, str, str | None, Fraction]] = []
    texts = 0
    for case, sel, gen_a, gen_b, line in zip(obs["case_id"], obs["selected_candidate"], obs["candidate_a_generator"],
                                             obs["candidate_b_generator"], obs["line"]):
        r = by_line.get(int(line)) if line == line else None
        d = None if r is None else _pairwise_text(r)
        texts += d is not None
        share = SHARES[str(sel)]
        rows.append((str(case), str(gen_a or "candidate a"), d, share))
        rows.append((str(case), str(gen_b or "candidate b"), d, 1 - share))
    questions = {case: str(key[0]) for key, case in log.case_keys.items()
                 if isinstance(key, tuple) and key and log.shape == "mt-bench judgments"}
    notes = (f"{name}: read as {log.shape}, {obs['case_id'].nunique():,} cases, {len(obs):,} judgments; each judgment "
             "gives each model its share of the game (1 won, 1/2 tie, 0 lost)", *(f"{name}: {n}" for n in log.notes))
    return DriftRun(name, log.shape, WIN_RATE, pd.DataFrame(rows, columns=list(COLUMNS)), 2 * texts, questions,
                    notes)


def _graded(name: str, data: bytes, judge: str | None) -> DriftRun:
    log = read_scored_log(name, data, judge)
    scores = log.scores[log.scores["role"] == "judge"]
    if len(log.judges) > 1:
        raise InputError(name, None, "judge", f"the log holds {len(log.judges)} judges ({', '.join(log.judges)}); "
                         "compare one at a time (--judge NAME)")
    if scores.empty:
        raise InputError(name, None, None, "the log holds no judge's scores (only human labels)")
    if data[:4] != b"PK\x03\x04" and sniff(name, data).format == "csv":
        by_line = _csv_records(name, data)
    else:
        _, records, lines = read_document(name, data)
        by_line = dict(zip(lines, records))
    rows: list[tuple[str, str, str | None, Fraction]] = []
    texts = 0
    for item, model, score, line in zip(scores["item"], scores["model"], scores["score"], scores["line"]):
        r = by_line.get(int(line)) if line == line and line else None
        d = None if r is None else _graded_text(r)
        texts += d is not None
        rows.append((str(item), str(model) or UNNAMED, d, Fraction(repr(float(score)))))
    notes = (f"{name}: read as {log.shape}, {len(rows):,} scores by {', '.join(log.judges)} (an item is one judged "
             "answer)", *(f"{name}: {n}" for n in log.notes))
    return DriftRun(name, log.shape, SCORE, pd.DataFrame(rows, columns=list(COLUMNS)), texts, {}, notes)


def read_drift_run(name: str, data: bytes, judge: str | None = None) -> DriftRun:
    """A judge log as drift reads it: pairwise when its first record is a pairwise judge log's,
    else graded or pass/fail (a CSV: a scores table)."""
    if data[:4] != b"PK\x03\x04" and sniff(name, data).format in ("json", "jsonl"):
        _, records, _ = read_document(name, data)
        if records and judge_log_shape(records[0]) is not None:
            return _pairwise(name, data, judge)
    return _graded(name, data, judge)


def read_anchor_list(name: str, data: bytes) -> tuple[str, ...]:
    """Declared anchor items: one item id a line (blank lines and ``#`` comments skipped; a first
    line ``item`` or ``item_id`` is a header)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(name, None, None, f"an anchor list is UTF-8 text, one item id a line ({e.reason})") from None
    ids: list[str] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip().strip('"')
        if not line or (not ids and line.lower() in ("item", "item_id", "id")):
            continue
        if len(ids) >= MAX_ANCHORS:
            raise InputError(name, n, None, f"more than {MAX_ANCHORS:,} anchor items")
        ids.append(line)
    if not ids:
        raise InputError(name, None, None, "the anchor list names no item (one item id a line)")
    return tuple(dict.fromkeys(ids))


def anchor_items(ids: tuple[str, ...], *runs: DriftRun) -> tuple[str, ...]:
    """The declared ids as the runs' item ids: an id naming a question of a pairwise MT-Bench log
    (and no item) stands for each of its cases.

    >>> run = DriftRun("x", "mt-bench judgments", "win rate", pd.DataFrame(), 0, {"q81-a-vs-b": "81"})
    >>> anchor_items(("81", "q90-a-vs-b", "item-7"), run)
    ('q81-a-vs-b', 'q90-a-vs-b', 'item-7')
    """
    cases: dict[str, list[str]] = {}
    for run in runs:
        for item, question in run.questions.items():
            cases.setdefault(question, []).append(item)
    items = {i for run in runs for i in run.questions}
    out: dict[str, None] = {}
    for i in ids:
        for x in (cases[i] if i in cases and i not in items else [i]):
            out.setdefault(x)
    return tuple(out)


def check_same_kind(before: DriftRun, after: DriftRun) -> None:
    if before.scale != after.scale:
        raise InputError(after.file, None, None, f"this run is a {after.shape} log ({after.scale}) but the run before "
                         f"({excerpt(before.file)}) is a {before.shape} log ({before.scale}): compare runs of one kind")
