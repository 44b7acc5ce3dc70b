"""Each report says one thing of each gate (issue 53, section 5): the JSON and the text agree on what
is evaluable; references given that join nothing are not "missing"; the length preference says
when disagreement alone moves it; one human never reads as a verdict it is not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agreebound.app.synthetic import PlantedDesign, PlantedJudge, planted_frames
from agreebound.judge.decision import gates_from_report
from agreebound.judge.frames import measure_frames
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "judge_logs"
S = ROOT / "sample_data"


def test_a_gate_the_log_cannot_evaluate_is_not_evaluable_in_the_json_as_in_the_text(capsys):
    """arena-hard's log has one judgment per order: repeat variance counts 0 of 8 groups, but the
    drafted contract asks for 2 repetitions, so the gate is not evaluable; the JSON said
    ``evaluable: true`` beside the text's "not evaluable"."""
    log = LOGS / "arena_hard_v0.1_gpt-4-0613.jsonl"
    code, out, _ = run(capsys, "calibrate", log, "--json")
    rates = {r["name"]: r for r in json.loads(out)["calibration"]["rates"]}
    rv = rates["repeat_variance"]
    assert (rv["numerator"], rv["denominator"]) == (0, 8)
    assert rv["evaluable"] is False and rv["unavailable"].startswith("this log has one judgment per order")
    assert gates_from_report([rv])[0].passed is None  # read back: not checked
    _, text, _ = run(capsys, "calibrate", log)
    assert "  repeat_variance: not evaluable: this log has one judgment per order" in text
    # every rate: the JSON's evaluable is exactly the text's "not evaluable" absent
    for name, r in rates.items():
        said = next(line for line in text.splitlines() if line.startswith(f"  {name}: "))
        assert r["evaluable"] == ("not evaluable" not in said), (name, said)


def test_references_that_join_nothing_are_not_called_missing(capsys):
    """The seed's references CSV for another audit given with judgekit's pairwise log: none joins,
    and the message says so instead of asking for the file the user gave."""
    code, out, err = run(capsys, "calibrate", LOGS / "judgekit_pairwise.jsonl", "--references",
                         S / "judge_failing_references.csv")
    assert code == 1, err
    assert "give them as a second file" not in out
    assert ("human_agreement: not evaluable: the human references given are for none of the log's cases (they join "
            "by case id, by question, turn and model pair, or by instruction and generator pair: check they are this "
            "log's)") in out
    assert "240 references are for cases the log does not have" in out
    _, alone, _ = run(capsys, "calibrate", LOGS / "judgekit_pairwise.jsonl")  # none given: ask for them
    assert "human_agreement: not evaluable: the source has no human references (give them as a second file)" in alone


@pytest.fixture(scope="module")
def longer_audits():
    """A length-unbiased judge with 30% general disagreement, humans preferring the longer answer in
    70% of the decisive cases: 200 audits of 200 cases."""
    out = []
    for i in range(200):
        c, r, o, h = planted_frames(PlantedJudge("noisy", disagreement=0.3), PlantedDesign(n_cases=200, human_longer=0.7),
                                    (70, i), exact=False)
        out.append(measure_frames(c, r, o, scope=h["scope"], contract_content_id=h["contract_content_id"],
                                  rubric_digest=h["rubric_digest"]).bias)
    return out


def test_the_length_preference_says_when_disagreement_alone_moves_it(longer_audits):
    """Whenever its interval excludes 0 (the measure "flags" this unbiased judge: when written, in
    159 of 200 audits), the sentence says the humans' share and that the measure is not net of
    disagreement here; the verbosity net of disagreement stays indistinguishable from none in 194."""
    flagged = 0
    for b in longer_audits:
        m = b["length_excess"]
        if not m.low <= 0 <= m.high:
            flagged += 1
            assert "It is not net of disagreement here; the verbosity net of disagreement is." in m.sentence, m.sentence
            assert "a judge that only disagrees with them, picking the other answer at random, picks the longer less " \
                   "often than they do" in m.sentence
    assert flagged > 100
    assert sum(b["verbosity_net"].includes_zero for b in longer_audits) >= 180


def test_an_even_split_of_the_humans_adds_no_caveat():
    c, r, o, h = planted_frames(PlantedJudge("noisy", disagreement=0.3), PlantedDesign(n_cases=400, human_longer=0.5), 1)
    m = measure_frames(c, r, o, scope=h["scope"], contract_content_id=h["contract_content_id"],
                       rubric_digest=h["rubric_digest"]).bias["length_excess"]
    assert m.sentence.startswith("The judge picks the longer answer ") and "not net of disagreement" not in m.sentence


def _scored(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    return path


def test_one_human_is_never_a_pass_and_fail_only_when_a_gate_it_can_evaluate_fails(capsys, tmp_path):
    """With one human the admissibility gate is not evaluable: the verdict is INCOMPLETE when the floor
    passes, FAIL_CALIBRATION when it fails (the README says both)."""
    rng = np.random.default_rng(1)
    humans = rng.integers(1, 6, 40)

    def graded(noise: int) -> tuple[Path, Path]:
        judge = np.clip(humans + rng.integers(-noise, noise + 1, 40), 1, 5)
        base = {"sample_index": 0, "meta": {}, "kind": "graded", "scale_min": 1.0, "scale_max": 5.0}
        j = _scored(tmp_path / f"judge{noise}.jsonl", [{**base, "item_id": f"g{i}", "judge_id": "gpt-4o",
                                                        "score": float(s)} for i, s in enumerate(judge)])
        h = _scored(tmp_path / f"human{noise}.jsonl", [{**base, "item_id": f"g{i}", "judge_id": "human",
                                                        "score": float(s)} for i, s in enumerate(humans)])
        return j, h

    close = graded(0)  # the judge gives the human's scores: the floor passes
    code, out, _ = run(capsys, "calibrate", close[0], "--references", close[1])
    assert "judge gpt-4o: INCOMPLETE" in out and code == 1
    assert "admissibility: not measured" in out and "needs two or more humans on shared items" in out
    far = graded(4)  # a judge that guesses: the floor fails
    code, out, _ = run(capsys, "calibrate", far[0], "--references", far[1])
    assert "judge gpt-4o: FAIL_CALIBRATION" in out and code == 1
    readme = (ROOT / "README.md").read_text()
    assert "that gate is not evaluable and the verdict is never a pass: INCOMPLETE" in " ".join(readme.split())


def test_a_contract_drafted_from_a_log_asks_for_the_repetitions_the_log_has(capsys, tmp_path):
    """judgekit's pairwise log judged 3 times in each order: the draft asks for 3 repetitions and the
    repeat variance is evaluated (not 'the contract requires 2')."""
    rows = [{"item_id": f"p{i}", "judge_id": "gpt-4o", "sample_index": s, "meta": {}, "kind": "pairwise",
             "choice": "ab"[(i + s) % 2 if i % 3 == 0 else i % 2], "swapped": swapped, "a_len": 100 + i, "b_len": 90}
            for i in range(12) for swapped in (False, True) for s in range(3)]
    log = _scored(tmp_path / "three.jsonl", rows)
    code, out, _ = run(capsys, "calibrate", log, "--json")
    report = json.loads(out)
    assert report["calibration"]["contract"]["repetitions_per_order"] == 3
    rv = next(r for r in report["calibration"]["rates"] if r["name"] == "repeat_variance")
    assert rv["evaluable"] is True and rv["denominator"] == 24 and not rv["unavailable"]
