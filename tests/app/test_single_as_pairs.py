"""MT-Bench single-answer grading audited against pairwise human votes: each pair of models the
humans compared on a question and turn is a case; the judge chose the model it scored higher."""

from __future__ import annotations

import json
from pathlib import Path

from agreebound.cli.main import main
from agreebound.app.recipes import JudgeRecipe, Source, judge_source
from agreebound.app.pipeline import run

HUMANS = Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs" / "mt_bench_human_judgments.jsonl"


def _single_log(tmp_path: Path) -> tuple[Path, dict]:
    """gpt-4's single grades (FastChat's record shape) for every model and question the humans voted on."""
    votes = [json.loads(x) for x in HUMANS.read_text().splitlines() if x.strip()]
    models = sorted({m for v in votes for m in (v["model_a"], v["model_b"])})
    rank = {m: i for i, m in enumerate(models)}
    lines, scores = [], {}
    for q in sorted({v["question_id"] for v in votes}):
        for turn in (1, 2):
            for m in models:
                score = 3 + (rank[m] * 7 + q + turn) % 7  # a fixed, uneven grading
                scores[(q, turn, m)] = score
                lines.append(json.dumps({"question_id": q, "model": m, "judge": ["gpt-4", "single-v1"],
                                         "user_prompt": "", "judgment": f"Rating: [[{score}]]", "score": score,
                                         "turn": turn, "tstamp": 0.0}))
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, scores


def test_single_grades_against_pairwise_votes_are_a_pairwise_audit(tmp_path, capsys):
    path, scores = _single_log(tmp_path)
    recipe = JudgeRecipe(Source.at(str(path)), references=Source.at(str(HUMANS)))
    assert judge_source(recipe, path.name, path.read_bytes()) == "single-pairs"
    report = run(recipe)
    assert report.kind == "judge"
    m = report.bundle.measurement
    votes = [json.loads(x) for x in HUMANS.read_text().splitlines() if x.strip()]
    # the human agreement the seed counts: per case, the plurality vote against the judge's implied choice
    cases: dict[tuple, list[str]] = {}
    first: dict[tuple, tuple[str, str]] = {}
    for v in votes:
        key = (v["question_id"], v.get("turn", 1), frozenset((v["model_a"], v["model_b"])))
        first.setdefault(key, (v["model_a"], v["model_b"]))
        winner = {"model_a": v["model_a"], "model_b": v["model_b"]}.get(v["winner"], "tie")
        cases.setdefault(key, []).append(winner)
    agree = 0
    for key, ws in cases.items():
        a, b = first[key]
        q, turn = key[0], key[1]
        sa, sb = scores[(q, turn, a)], scores[(q, turn, b)]
        judge = a if sa > sb else b if sb > sa else "tie"
        top = max(ws.count(w) for w in set(ws))
        leaders = [w for w in set(ws) if ws.count(w) == top]
        agree += (leaders[0] if len(leaders) == 1 else "tie") == judge
    assert (m.human_agreement.numerator, m.human_agreement.denominator) == (agree, len(cases))
    assert any("single-answer grades by gpt-4 read as pairs" in n for n in m.notes)
    assert "position_flip" in m.unavailable  # single grading shows one answer at a time: no order
    code = main(["calibrate", str(path), "--references", str(HUMANS)])
    out = capsys.readouterr().out
    assert code == 1 and "human_agreement" in out


def test_single_grades_alone_stay_a_graded_audit(tmp_path):
    path, _ = _single_log(tmp_path)
    assert run(JudgeRecipe(Source.at(str(path)))).kind == "scored"
