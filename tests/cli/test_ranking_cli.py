"""``calibrate --ranking`` and ``--beats MODEL:BASELINE:MARGIN``: the ranking of the candidates' models
in the report (JSON valid against the schema, text lines), its gate decided with its words, and
the calibration's decision and exit code unchanged by the gate, passing or failing: the gate is
about the models the judge compared, not about the judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from agreebound.judge.ranking import battles_of, rank
from tests.support.cli import run, run_json
from tests.support.fastchat_log import fastchat_log, human_judgments, to_jsonl

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


@pytest.fixture
def labelled_log(tmp_path):
    """A FastChat pairwise log of 160 cases over 6 models, with human judgments on the first 100."""
    records = fastchat_log(seed=7)
    log, humans = tmp_path / "gpt-4_pair.jsonl", tmp_path / "human_judgments.jsonl"
    log.write_bytes(to_jsonl(records))
    humans.write_bytes(human_judgments(records))
    return log, humans


def test_no_ranking_unless_asked(capsys):
    code, report, _ = run_json(capsys, "calibrate", S / "judge_failing.json")
    assert code == 1 and "ranking" not in report["calibration"]
    _, out, _ = run(capsys, "calibrate", S / "judge_failing.json")
    assert "ranking of the candidates' models" not in out


def test_the_ranking_in_the_json_report_is_the_library_s_and_reproducible(capsys, labelled_log):
    log, humans = labelled_log
    code, report, err = run_json(capsys, "calibrate", log, "--references", humans, "--ranking")
    assert err == "" and code == 1  # no contract: INCOMPLETE, as without --ranking
    block = report["calibration"]["ranking"]
    from agreebound.app.pipeline import parse_judge_log

    bundle = parse_judge_log(log.name, log.read_bytes(), (humans.name, humans.read_bytes()))
    r = rank(battles_of(bundle.observations))
    assert [m["model"] for m in block["models"]] == list(r.models)
    assert [m["rating"] for m in block["models"]] == [round(x, 6) for x in r.ratings]
    assert block["models"][0] == {"rank": 1, "model": "llama-13b", "rating": 1059.022599,
                                  "interval95": [995.868569, 1124.269396], "tie_group": 1}
    assert (block["draws"], block["seed"], block["resampled"], block["battles"]) == (1000, 0, "case", 316)
    assert block["groups"] == 2 and block["models"][-1]["model"] == "alpaca-13b"
    assert block["gate"] is None
    ppi = block["ppi"]
    assert (ppi["anchor"], ppi["labelled"], ppi["unlabelled"], ppi["order_changed"]) == ("alpaca-13b", 99, 60, True)
    assert ppi["largest_move"] == pytest.approx(183.7, abs=0.05)
    again = run_json(capsys, "calibrate", log, "--references", humans, "--ranking")[1]
    assert again["calibration"]["ranking"] == block  # a fixed seed: the same report


def test_the_ranking_in_the_text_report(capsys, labelled_log):
    log, humans = labelled_log
    _, out, _ = run(capsys, "calibrate", log, "--references", humans, "--beats", "gpt-4:claude-v1:10")
    lines = out.splitlines()
    start = lines.index("ranking of the candidates' models from the judge's verdicts (beside the decision, never "
                        "part of it):")
    assert lines[start + 1:start + 3] == ["  1. llama-13b: 1059.0 [995.9, 1124.3] (group 1)",
                                          "  2. gpt-4: 1035.0 [981.4, 1098.7] (group 1)"]
    assert lines[start + 6] == "  6. alpaca-13b: 881.5 [803.4, 942.5] (group 2)"
    assert lines[start + 7].startswith("  6 models in 2 groups not separable from each other (rule: adjacent models "
                                       "share a group unless the bootstrap 95% interval")
    assert "1,000 draws, seed 0, numpy default_rng; 316 judgments" in lines[start + 8]
    assert lines[start + 9] == (
        "  gate (passes, fragile): gpt-4 beats claude-v1 by at least 10 points: passes: gpt-4 leads claude-v1 by "
        "+30.4 points [-69.5, +136.9] (a win probability of 54.4%). Fragile: the difference's 95% interval holds the "
        "margin of 10.0 points, so another sample could reach the other result.")
    assert lines[start + 10].startswith("  corrected by the human labels (prediction-powered; alpaca-13b at 1000")
    assert "    llama-13b: 993.8 [839.5, 1148.1]; judge alone 1177.5" in lines
    assert any(x.startswith("  With the humans' labels on 99 of 159 cases (lambda 0.17), the ratings move by at most "
                            "183.7 points (llama-13b: 1177.5 by the judge alone, 993.8 corrected)") for x in lines)


@pytest.mark.parametrize("beats, status, passed", [
    ("candidate-a:candidate-b:0", "fails", False),    # a trails b by 19.5 points
    ("judge-v1:candidate-a:100", "passes", True),     # its own candidate leads by 121.6
    ("judge-v1:candidate-a:60%", "passes", True),     # 100 points: a win probability of 64.0%
    ("judge-v1:candidate-a:1000", "fails", False),
])
def test_a_ranking_gate_never_changes_the_decision_or_the_exit_code(capsys, beats, status, passed):
    plain_code, plain, _ = run_json(capsys, "calibrate", S / "judge_failing.json")
    code, report, err = run_json(capsys, "calibrate", S / "judge_failing.json", "--beats", beats)
    assert err == "" and code == plain_code == 1
    gate = report["calibration"]["ranking"].pop("gate")
    assert gate["status"].split(",")[0] == status and gate["passed"] is passed
    del report["calibration"]["ranking"]
    assert report == plain  # nothing else moved: the decision, the gates, the verdict
    # text: the decision line is the same, the gate's words follow the ranking
    _, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--beats", beats)
    assert out.splitlines()[0] == "decision: FAIL_CALIBRATION (against the bound contract, " \
        f"{plain['calibration']['decided_against']['content_id']})"
    assert any(x.startswith(f"  gate ({status}") for x in out.splitlines())


def test_a_passing_judge_with_a_gate_that_cannot_be_decided_still_exits_0(capsys):
    code, report, _ = run_json(capsys, "calibrate", S / "judge_illustrative.json", "--beats", "candidate-a:candidate-b:0")
    assert code == 0 and report["calibration"]["decision"] == "PASS_CALIBRATION"
    block = report["calibration"]["ranking"]
    assert block["unavailable"] == ("No ranking: candidate-a, candidate-b won every comparison with judge-v1 (no "
                                    "finite ratings).")
    assert block["gate"]["passed"] is None and block["gate"]["status"] == "not decided"


def test_strict_mode_decides_the_gate_on_its_bound(capsys):
    code, report, _ = run_json(capsys, "calibrate", S / "judge_failing.json", "--beats", "judge-v1:candidate-a:100",
                            "--strict")
    gate = report["calibration"]["ranking"]["gate"]
    assert gate["strict"] is True and gate["passed"] is False and gate["why"].startswith("fails in strict mode")
    assert code == 1


@pytest.mark.parametrize("beats, message", [
    ("gpt-4:claude-v1", "give MODEL:BASELINE:MARGIN"),
    ("gpt-4::10", "give MODEL:BASELINE:MARGIN"),
    ("gpt-4:claude-v1:ten", "give MODEL:BASELINE:MARGIN"),
    ("gpt-4:claude-v1:1001", "margin must be a whole number between 0 and 1000 (elo)"),
    ("gpt-4:claude-v1:45%", "margin must be a whole number between 500 and 999 (win_permil)"),
    ("gpt-4:claude-v1:60.25%", "a win probability to a tenth of a percent at most"),
    ("gpt-4:gpt-4:10", "the model and the baseline must differ"),
    ("gpt-4:claude-v1:inf%", "give MODEL:BASELINE:MARGIN"),
])
def test_a_bad_gate_is_a_usage_error_before_any_work(capsys, beats, message):
    code, out, err = run(capsys, "calibrate", S / "judge_failing.json", "--beats", beats)
    assert code == 3 and out == "" and message in err


def test_a_colon_in_a_model_name():
    from agreebound.cli.commands import ranking_gate

    g = ranking_gate(r"llama3\:8b:gpt-4\:0613:25")
    assert (g.model, g.baseline, g.margin, g.unit) == ("llama3:8b", "gpt-4:0613", 25, "elo")


def test_ranking_is_for_a_pairwise_judge(capsys):
    code, out, err = run(capsys, "calibrate", S / "graded_judge.csv", "--ranking")
    assert code == 3 and out == ""
    assert "--ranking and --beats rank the models a pairwise judge compared" in err


def test_out_of_core_ranks_from_the_engines_kinds_of_case(capsys):
    """DuckDB counts the battles' kinds of case; the ranking's points equal the in-memory ranking's
    (the one fit), its intervals come from the same case bootstrap drawn as counts of each kind, and
    the gate is decided as in memory."""
    pytest.importorskip("duckdb")
    trio = [S / "judge_failing_contract.json", "--references", S / "judge_failing_references.csv", "--observations",
            S / "judge_failing_observations.csv", "--beats", "judge-v1:candidate-a:100"]
    code, report, _ = run_json(capsys, "calibrate", *trio, "--engine", "duckdb")
    assert code == 1
    block = report["calibration"]["ranking"]
    in_memory = run_json(capsys, "calibrate", *trio)[1]["calibration"]["ranking"]
    assert [m["model"] for m in block["models"]] == [m["model"] for m in in_memory["models"]]
    assert [m["rating"] for m in block["models"]] == pytest.approx([m["rating"] for m in in_memory["models"]],
                                                                   abs=1e-6)
    assert block["gate"]["passed"] is True and in_memory["gate"]["passed"] is True
