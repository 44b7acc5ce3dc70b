"""Writes the judgekit, judgecal and arena-hard files of tests/data/judge_logs/ with the tools' own
writers (python tests/data/judge_logs/make_scored_logs.py, in the project's .venv, where judgekit
0.2.1 and judgecal 0.1.0 are installed). How the other files were made: make_scored_logs.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def judgekit_files() -> None:
    """judgekit's synthetic judges, written by judgekit.io.dump_verdicts (one verdict a line)."""
    from judgekit.io import dump_verdicts
    from judgekit.synthetic import (binary_judge, binary_world, graded_items, graded_judge, human_graded,
                                    pair_items, pairwise_judge)

    items = graded_items(6, seed=0)
    dump_verdicts(graded_judge(items, judge_id="gpt-4o", n_samples=2), HERE / "judgekit_graded.jsonl")
    dump_verdicts(human_graded(items), HERE / "judgekit_graded_human.jsonl")
    probabilities, _ = binary_world(5, seed=0)
    dump_verdicts(binary_judge(probabilities, judge_id="gpt-4o", temperature=0.5), HERE / "judgekit_binary.jsonl")
    dump_verdicts(pairwise_judge(pair_items(3, seed=0, n_identical=1), judge_id="gpt-4o", n_samples=2),
                  HERE / "judgekit_pairwise.jsonl")


def judgecal_file(work: Path) -> None:
    """judgecal's batch workflow run offline: ``judgecal plan`` writes the manifest and sidecar, the
    deterministic mock judge answers every manifest line as a batch backend would (OpenAI batch
    output lines), and ``judgecal ingest`` writes the judgments JSONL."""
    from judgecal.cli import _write_items
    from judgecal.fixtures import MockJudgeConfig, SyntheticConfig, generate_items
    from judgecal.fixtures.mock_judge import MockJudge
    from judgecal.probes import ProbeConfig, plan_suite

    work.mkdir(parents=True, exist_ok=True)
    items = generate_items(SyntheticConfig(n_items=3, seed=7))
    _write_items(items, work / "items.jsonl")
    probes = "position,stability,verbosity"
    cli = str(Path(sys.executable).with_name("judgecal"))
    subprocess.run([cli, "plan", "--items", str(work / "items.jsonl"), "--probes", probes, "--model", "mock-judge",
                    "-o", str(work / "run")], check=True)
    judge = MockJudge(MockJudgeConfig(seed=7, beta_position=0.8, invalid_rate=0.15))
    raw = {r.custom_id: judge.judge(r) for r in plan_suite(items, probes.split(","), ProbeConfig())}
    with (work / "run" / "results.jsonl").open("w") as out:
        for line in (work / "run" / "manifest.jsonl").read_text().splitlines():
            cid = json.loads(line)["custom_id"]
            body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": raw[cid]}}]}
            out.write(json.dumps({"id": f"batch-{cid}", "custom_id": cid, "response": {"status_code": 200,
                                                                                      "body": body}}) + "\n")
    subprocess.run([cli, "ingest", "--sidecar", str(work / "run" / "manifest.meta.jsonl"), "--results",
                    str(work / "run" / "results.jsonl"), "-o", str(HERE / "judgecal_judgments.jsonl")], check=True)


def _arena_prompt(question: str, a: str, b: str) -> str:
    # arena-hard-v0.1's prompt_template (config/judge_config.yaml at 4ce0f00)
    return (f"<|User Prompt|>\n{question}\n\n<|The Start of Assistant A's Answer|>\n{a}\n<|The End of Assistant A's "
            f"Answer|>\n\n<|The Start of Assistant B's Answer|>\n{b}\n<|The End of Assistant B's Answer|>")


def arena_hard_file() -> None:
    """arena-hard-v0.1 judgments as gen_judgment.py (lmarena/arena-hard-auto at 4ce0f00) writes them:
    one line per question, game 1 with the baseline as assistant A, game 2 swapped; the judge's API
    call replaced by fixed replies (the score is the last [[...]] label, None when there is none)."""
    baseline = {"q1": "Paris is the capital of France.", "q2": "Use a list comprehension.",
                "q3": "Water boils at 100 C at sea level.", "q4": "Try turning it off and on again."}
    answer = {"q1": "The capital of France is Paris, on the Seine.", "q2": "A for loop works; so does map().",
              "q3": "100 degrees Celsius.", "q4": "Restart it."}
    verdicts = {"q1": ("B>>A", "A>B"), "q2": ("A>B", "B>A"), "q3": ("A=B", "A=B"), "q4": ("B>A", None)}
    with (HERE / "arena_hard_v0.1_gpt-4-0613.jsonl").open("w", encoding="utf-8") as f:
        for qid, (g1, g2) in verdicts.items():
            games = []
            for score, (a, b) in ((g1, (baseline[qid], answer[qid])), (g2, (answer[qid], baseline[qid]))):
                judgment = f"\nMy final verdict is: [[{score}]]" if score else "\nI cannot decide."
                games.append({"user_prompt": _arena_prompt(f"Question {qid}?", a, b), "judgment": judgment,
                              "score": score})
            output = {"question_id": qid, "model": "gpt-4-0613", "judge": "gpt-4-1106-preview", "games": games}
            f.write(json.dumps(output, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    judgekit_files()
    judgecal_file(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/judgecal_run"))
    arena_hard_file()
