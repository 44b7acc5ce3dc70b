"""A FastChat MT-Bench pairwise judgment log of our own (``model_judgment/gpt-4_pair.jsonl``'s
shape), generated from a seed with a planted first-slot preference, and a reading of it that
shares nothing with agreebound's reader: what tests/judge/test_fastchat_position.py counts by hand and
tests/judge/test_peers.py feeds to the peers.

Each record compares two models on one question and turn in two games: game 1 shows model_1
first, game 2 shows model_2 first; ``g1_winner``/``g2_winner`` name the winner by model
("model_1", "model_2", "tie", or "error" for a judgment FastChat could not parse). The judge has
an underlying verdict per record; in each game, with probability ``p_first``, it picks whichever
answer is shown first instead (else, now and then, a verdict at random). Like the real log, a few judgments are errors (one record loses
both games, others one).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

MODELS = ("gpt-4", "claude-v1", "gpt-3.5-turbo", "vicuna-13b-v1.3", "alpaca-13b", "llama-13b")
#: the judge's verdict text per game: assistant A is model_1 in game 1 and model_2 in game 2
VERDICT_TEXT = ({"model_1": "[[A]]", "model_2": "[[B]]", "tie": "[[C]]", "error": "$ERROR$"},
                {"model_1": "[[B]]", "model_2": "[[A]]", "tie": "[[C]]", "error": "$ERROR$"})


def fastchat_log(seed: int = 24, questions: range = range(81, 161), p_first: float = 0.2, p_noise: float = 0.2,
                 p_tie: float = 0.25, errors: tuple[int, ...] = (5, 40, 41, 90)) -> list[dict]:
    """The records of a FastChat pairwise log: one per question and turn (two turns), with
    ``p_first`` the planted per-game first-slot preference and ``p_noise`` the chance that a game's
    verdict is drawn at random instead. ``errors``: the judgments (numbered record * 2 + game)
    written as "error"; 40 and 41 are both games of record 20."""
    rng = random.Random(seed)
    records = []
    for q in questions:
        for turn in (1, 2):
            m1, m2 = rng.sample(MODELS, 2)
            w = rng.choices(("model_1", "model_2", "tie"), weights=(1 - p_tie, 1 - p_tie, 2 * p_tie))[0]
            # the first-shown answer is model_1's in game 1 and model_2's in game 2
            g = [first if rng.random() < p_first else
                 rng.choice(("model_1", "model_2", "tie")) if rng.random() < p_noise else w
                 for first in ("model_1", "model_2")]
            for game in (0, 1):
                if len(records) * 2 + game in errors:
                    g[game] = "error"
            template = "pair-v2" if turn == 1 else "pair-v2-multi-turn"
            records.append({
                "question_id": q, "model_1": m1, "model_2": m2, "g1_winner": g[0], "g2_winner": g[1],
                "judge": ["gpt-4", template], "g1_user_prompt": f"[User Question]\nQuestion {q}...",
                "g1_judgment": f"... {VERDICT_TEXT[0][g[0]]}", "g2_user_prompt": f"[User Question]\nQuestion {q}...",
                "g2_judgment": f"... {VERDICT_TEXT[1][g[1]]}",
                "turn": turn, "tstamp": 1687222700.0 + len(records),
            })
    return records


def to_jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


@dataclass(frozen=True)
class Game:
    """One record's judgments in candidate terms: candidate a is model_1, b is model_2; a verdict
    is "a", "b", "tie" or None (an error)."""

    case: str
    ab: str | None  # game 1: a (model_1) shown first
    ba: str | None  # game 2: b (model_2) shown first
    model_1: str
    model_2: str


def games(records: list[dict]) -> list[Game]:
    to = {"model_1": "a", "model_2": "b", "tie": "tie", "error": None}
    return [Game(f"q{r['question_id']}-t{r['turn']}", to[r["g1_winner"]], to[r["g2_winner"]], r["model_1"],
                 r["model_2"]) for r in records]


def human_judgments(records: list[dict], labelled: int = 100, agree: float = 0.7, seed: int = 3) -> bytes:
    """MT-Bench human judgments (``mt_bench_human_judgments``' shape) for the first ``labelled``
    records: the judge's game-1 verdict with probability ``agree``, else one at random."""
    rng = random.Random(seed)
    out = []
    for r in records[:labelled]:
        w = r["g1_winner"] if r["g1_winner"] != "error" and rng.random() < agree else \
            rng.choice(("model_1", "model_2", "tie"))
        out.append({"question_id": r["question_id"], "model_a": r["model_1"], "model_b": r["model_2"],
                    "winner": {"model_1": "model_a", "model_2": "model_b", "tie": "tie"}[w], "judge": "expert_1",
                    "turn": r["turn"], "conversation_a": [], "conversation_b": []})
    return "".join(json.dumps(h) + "\n" for h in out).encode()
