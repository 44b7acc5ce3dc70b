"""Writes sample_data/judge_logs/: judge logs in the shapes evaluation harnesses write.

* mt_bench_gpt-4_pair.jsonl: FastChat's MT-Bench pairwise judgments (model_judgment/gpt-4_pair.jsonl):
  24 questions x 2 turns, three model pairs, one judgment per game; game 1 shows model_1 first. As
  FastChat's gen_judgment.py does, the reasoning questions (101-104; math and coding too) are judged with
  the reference-guided template pair-math-v1 and the others with pair-v2 (turn 2: their multi-turn forms),
  so the log holds several prompt templates as FastChat's real log does.
* mt_bench_human_judgments.jsonl: FastChat's human judgments (one line per expert vote) for
  most of those cases.
* alpaca_eval_annotations.json: AlpacaEval's annotations.json: a judge's preference (1, 2, 1.5,
  or a weighted fraction) between two generators' outputs.
* other_harness.jsonl + other_harness.mapping.json: a harness of a shape no reader knows (its own
  field names and values), read through a mapping file: the failing sample's observations, so
  with the sample's references and contract it gives exactly the seed's audit.

Deterministic (seeded), so tests/io/test_judge_logs.py can recompute every rate by hand.
Run: python sample_data/judge_logs/make_judge_logs.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAIRS = [("vicuna-13b-v1.3", "gpt-3.5-turbo"), ("llama-13b", "vicuna-13b-v1.3"), ("gpt-4", "claude-v1")]
#: FastChat's question.jsonl: 10 questions per category from 81; these three are judged with the
#: reference-guided template (fastchat/llm_judge/common.py NEED_REF_CATS).
CATEGORIES = ("writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities")
NEED_REF_CATS = ("math", "reasoning", "coding")


def template(q: int, turn: int) -> str:
    """The judge prompt FastChat's gen_judgment.py uses for question q's turn."""
    base = "pair-math-v1" if CATEGORIES[(q - 81) // 10] in NEED_REF_CATS else "pair-v2"
    return base if turn == 1 else base + "-multi-turn"


def mt_bench() -> tuple[list[dict], list[dict]]:
    rng = random.Random(81)
    judgments, humans = [], []
    for q in range(81, 105):
        for turn in (1, 2):
            for m1, m2 in PAIRS:
                truth = rng.choice(["model_1", "model_2", "model_2", "tie"])
                g1 = truth if rng.random() < 0.8 else rng.choice(["model_1", "model_2", "tie"])
                g2 = truth if rng.random() < 0.7 else "model_1"  # a pull toward the model shown second
                if rng.random() < 0.03:
                    g2 = "error"
                judgments.append({
                    "question_id": q, "model_1": m1, "model_2": m2, "g1_winner": g1, "g2_winner": g2,
                    "judge": ["gpt-4", template(q, turn)],
                    "g1_user_prompt": f"[User Question]\nQuestion {q}...", "g1_judgment": f"... [[{'A' if g1 == 'model_1' else 'B' if g1 == 'model_2' else 'C'}]]",
                    "g2_user_prompt": f"[User Question]\nQuestion {q}...", "g2_judgment": "... [[A]]",
                    "turn": turn, "tstamp": 1687221890.0 + q * 10 + turn})
                if rng.random() < 0.85:
                    for expert in rng.sample(["expert_0", "expert_1", "expert_2", "author_3", "author_4"], rng.randint(1, 3)):
                        vote = truth if rng.random() < 0.85 else rng.choice(["model_1", "model_2", "tie"])
                        flip = rng.random() < 0.5  # humans saw the pair in either order: model_a is either model
                        a, b = (m2, m1) if flip else (m1, m2)
                        winner = {"model_1": "model_b" if flip else "model_a",
                                  "model_2": "model_a" if flip else "model_b"}.get(vote, rng.choice(["tie", "tie (bothbad)"]))
                        humans.append({"question_id": q, "model_a": a, "model_b": b, "winner": winner,
                                       "judge": expert, "turn": turn, "conversation_a": [], "conversation_b": []})
    return judgments, humans


def alpaca_eval() -> list[dict]:
    rng = random.Random(7)
    out = []
    for i in range(60):
        instruction = f"Write a short note about topic {i}."
        long_one = "A considerably longer answer with more words in it. " * rng.randint(2, 6)
        short_one = "A short answer."
        out1, out2 = (long_one, short_one) if i % 2 else (short_one, long_one)
        pref = rng.choice([1, 2, 2, 1.5, 1.73, 1.21])
        for annotator in ("weighted_alpaca_eval_gpt4_turbo",):
            out.append({"instruction": instruction, "output_1": out1, "output_2": out2, "generator_1": "gpt4_1106_preview",
                        "generator_2": "my-model-v2", "annotator": annotator, "preference": pref,
                        "time_per_example": 0.52, "price_per_example": 0.00113, "raw_completion": {"logprobs": None}})
    return out


OTHER_MAPPING = {"judge_log": {
    "fields": {"case_id": "qid", "order": "shown_first", "repetition": "sample", "selected_candidate": "choice",
               "candidate_a_tokens": "len_a", "candidate_b_tokens": "len_b", "candidate_a_generator": "gen_a",
               "candidate_b_generator": "gen_b", "judge_generator": "model"},
    "values": {"order": {"A": "ab", "B": "ba"}, "selected_candidate": {"first": "a", "second": "b", "same": "tie"}}}}


def other_harness() -> list[dict]:
    import csv

    with open(HERE.parent / "judge_failing_observations.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return [{"qid": r["case_id"], "shown_first": {"ab": "A", "ba": "B"}[r["order"]], "sample": int(r["repetition"]),
             "choice": {"a": "first", "b": "second", "tie": "same"}[r["selected_candidate"]],
             "len_a": int(r["candidate_a_tokens"]), "len_b": int(r["candidate_b_tokens"]), "gen_a": r["candidate_a_generator"],
             "gen_b": r["candidate_b_generator"], "model": r["judge_generator"]} for r in rows]


def main() -> None:
    judgments, humans = mt_bench()
    (HERE / "mt_bench_gpt-4_pair.jsonl").write_text("".join(json.dumps(j) + "\n" for j in judgments))
    (HERE / "mt_bench_human_judgments.jsonl").write_text("".join(json.dumps(h) + "\n" for h in humans))
    (HERE / "alpaca_eval_annotations.json").write_text(json.dumps(alpaca_eval(), indent=2))
    (HERE / "other_harness.jsonl").write_text("".join(json.dumps(r) + "\n" for r in other_harness()))
    (HERE / "other_harness.mapping.json").write_text(json.dumps(OTHER_MAPPING, indent=2) + "\n")
    print(f"wrote {len(judgments)} judgments, {len(humans)} human votes, 60 annotations to {HERE}")


if __name__ == "__main__":
    main()
