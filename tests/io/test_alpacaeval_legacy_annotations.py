"""AlpacaEval 1.0 annotations as AlpacaEval writes them (tests/data/alpaca_eval_1/README.md): a
preference of 0 is AlpacaEval's old code for two identical outputs, a draw (its metrics replace 0
with 1.5), and a null preference is an annotation the annotator did not give, which AlpacaEval's
win rate leaves out. The published leaderboard's counts for phi-2 are reproduced exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agreebound.cli.main import main
from agreebound.core.errors import InputError
from agreebound.io.judge_logs import read_judge_log, read_references

PHI2 = Path(__file__).parents[1] / "data" / "alpaca_eval_1" / "phi-2_alpaca_eval_gpt4.json"


def test_legacy_zero_is_a_draw_and_null_is_left_out_as_the_leaderboard_counts():
    log = read_judge_log(PHI2.name, PHI2.read_bytes())
    picks = log.observations["selected_candidate"].value_counts().to_dict()
    # alpaca_eval_gpt4_leaderboard.csv, phi-2: n_wins 234, n_wins_base 543, n_draws 22, n_total 799
    assert picks == {"a": 543, "b": 234, "tie": 22}
    assert len(log.observations) == 799
    ties = log.observations[log.observations["selected_candidate"] == "tie"]
    assert set(ties["stated"]) == {0.5}  # a draw states no preference, not "output_1 for certain"
    assert ("22 preferences of 0 (AlpacaEval's old code for two identical outputs) were read as ties"
            in log.notes)
    assert "6 annotations without a preference (null) were left out" in log.notes


def test_the_cli_reads_a_legacy_log_and_gives_the_leaderboards_win_rate(capsys):
    assert main(["calibrate", str(PHI2)]) == 1  # no references, no contract: not decided, not refused
    out = capsys.readouterr().out
    # the leaderboard's win_rate 30.663329161451813 = (234 + 22 / 2) / 799
    assert "the judge alone gives phi-2 a win rate of 30.7% " in out and "over 799 cases (ties count half)" in out
    assert "6 annotations without a preference (null) were left out" in out



def human_annotations(preferences: list[object]) -> bytes:
    """Human annotations in AlpacaEval's shape for the fixture's first cases, one annotator each,
    one a line (JSON Lines)."""
    judge = json.loads(PHI2.read_text())
    return "\n".join(json.dumps(dict(r, annotator=f"human_{i % 3}", preference=p))
                     for i, (r, p) in enumerate(zip(judge, preferences))).encode()


def test_human_annotations_in_alpacaevals_shape_read_its_codes_as_the_log_does():
    # record 1 (instruction 0): null, no vote; record 2: 0, a draw; record 3: 2, output_2 (phi-2)
    log = read_judge_log(PHI2.name, PHI2.read_bytes())
    refs, notes = read_references("humans.jsonl", human_annotations([None, 0, 2]), log)
    assert refs["preferred_candidate"].tolist() == ["tie", "b"]
    assert "1 human annotations without a preference (null) were left out" in notes
    assert notes[0].startswith("2 cases have human votes (2 votes)")


def test_a_human_annotation_whose_preference_is_not_a_number_is_refused_where_it_is():
    log = read_judge_log(PHI2.name, PHI2.read_bytes())
    with pytest.raises(InputError) as e:
        read_references("humans.jsonl", human_annotations([1, "2"]), log)
    assert str(e.value) == ("humans.jsonl, line 2, column 'preference': expected a number from 1 to 2 (or 0, "
                            "AlpacaEval's old code for a draw), got '2'")


def test_a_bad_record_of_a_pretty_printed_array_is_located_by_the_line_it_starts_on():
    records = [{"instruction": f"i{k}", "output_1": "x", "output_2": "y", "generator_1": "m1",
                "generator_2": "m2", "annotator": "gpt4", "preference": 1} for k in range(4)]
    records[2]["preference"] = 7  # the third record
    text = json.dumps(records, indent=2)  # as AlpacaEval (pandas) writes it: a record over 11 lines
    with pytest.raises(InputError) as e:
        read_judge_log("annotations.json", text.encode())
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if line == "  {"]  # each record's "{"
    assert starts[2] == 20
    assert str(e.value) == ("annotations.json, line 20, column 'preference': expected a number from 1 to 2 (or 0, "
                            "AlpacaEval's old code for a draw), got '7'")


def test_slices_of_a_log_that_measures_no_gate_say_so_not_that_slices_are_too_small(capsys):
    """AlpacaEval's annotations without references measure no gate; its dataset slices hold 80 to 252
    cases each, so "no slice has the 10 cases a verdict needs" was not why nothing was decided."""
    main(["calibrate", str(PHI2)])
    out = capsys.readouterr().out
    assert ("  no gate is measurable on this log (each is not evaluable, above), in any slice of dataset: nothing "
            "is decided by slice") in out
    assert "cases a verdict needs on any gate" not in out
