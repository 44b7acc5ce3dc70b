"""The relabel queue (agreebound.panel.relabel): planted hard units first, alpha impacts equal to a
full recomputation, exports with the documented keys."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from agreebound.panel.alpha import krippendorff_alpha
from agreebound.panel.relabel import (RULES, argilla_records, label_studio_config, label_studio_tasks, queue_csv,
                                      read_queue_csv, relabel_queue)

SMALL = [["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["a", "b", None], ["c", "c", "b"], ["c", "c", "c"],
         [None, "a", "a"]]


def _planted(seed: int = 7):
    """40 units, 5 raters who agree with the truth 90% of the time; units 3, 11 and 27 planted
    hard: the raters split 2-2-1 between labels."""
    rng = np.random.default_rng(seed)
    labels = ["x", "y", "z"]
    truth = rng.integers(0, 3, size=40)
    rows = []
    for t in truth:
        row = [labels[t] if rng.random() < 0.9 else labels[(t + 1) % 3] for _ in range(5)]
        rows.append(row)
    rows[3] = ["x", "y", "x", "y", "z"]
    rows[11] = ["y", "z", "y", "z", "x"]
    rows[27] = ["z", "x", "x", "z", "y"]
    return rows


def test_planted_hard_units_come_first():
    rows = _planted()
    q = relabel_queue(rows, units=[f"u{i}" for i in range(len(rows))])
    assert q.rule == "uncertain-first" and q.rule_text.startswith("uncertain-first: lowest of (consensus probability, plurality share)")
    first = {r.unit for r in q.rows[:3]}
    assert first == {"u3", "u11", "u27"}
    hard = [r for r in q.rows if r.unit in first]
    assert all(r.split == Fraction(2, 5) for r in hard)
    assert all(r.split >= Fraction(3, 5) for r in q.rows[3:])  # natural 3-2 splits come next
    assert [r.rank for r in q.rows] == list(range(1, 41))


def test_gate_first_orders_by_move_toward_the_floor():
    q = relabel_queue(SMALL, rule="gate-first")
    now = q.alpha
    assert now is not None and now < q.floor  # fails 0.600: toward the floor is up
    gains = [r.alpha_impact for r in q.rows]
    assert all(g is not None for g in gains)
    assert gains == sorted(gains, reverse=True)
    with pytest.raises(ValueError, match="rule must be one of"):
        relabel_queue(SMALL, rule="loudest")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_impact_equals_a_full_recomputation(level):
    ratings = [[1, 1, 1], [1, 2, 1], [2, 2, 2], [1, 3, None], [3, 3, 2], [3, 3, 3], [None, 1, 1], [4, 2, 4]]
    q = relabel_queue(ratings, level=level)
    assert q.alpha == krippendorff_alpha(ratings, level).value
    assert len(q.rows) == len(ratings)
    for r in q.rows:
        u = int(r.unit) - 1
        without = [row for i, row in enumerate(ratings) if i != u]
        assert r.alpha_if_removed == krippendorff_alpha(without, level).value
        extra = [row + [r.consensus if i == u else None] for i, row in enumerate(ratings)]
        assert r.alpha_if_consensus_added == krippendorff_alpha(extra, level).value
        after = r.alpha_if_removed if r.impact_action == "removed" else r.alpha_if_consensus_added
        assert r.alpha_impact == after - q.alpha


def test_small_panel_numbers_and_words():
    q = relabel_queue([["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["a", "b", None]])
    assert q.alpha == Fraction(1, 3)
    top = q.rows[0]
    assert (top.unit, top.consensus, top.split) == ("4", "a", Fraction(1, 2))
    assert (top.alpha_if_removed, top.alpha_if_consensus_added, top.alpha_impact) == \
        (Fraction(3, 5), Fraction(13, 35), Fraction(4, 15))
    assert top.why.endswith("removing it moves alpha from 0.333 to 0.600, across the floor 0.600 (alpha now fails)")


def test_unrated_units_are_left_out_and_a_passing_gate_reads_down():
    rows = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"], ["a", "b"], [None, None]]
    q = relabel_queue(rows)
    assert q.alpha is not None and q.alpha >= q.floor
    assert [r.unit for r in q.rows][0] == "5" and "6" not in {r.unit for r in q.rows}
    # a passing gate: a unanimous unit's removal moves alpha down, toward the floor
    unanimous = next(r for r in q.rows if r.unit == "1")
    assert unanimous.alpha_impact is not None and unanimous.alpha_impact < 0


def test_csv_round_trips():
    q = relabel_queue(SMALL)
    back = read_queue_csv(queue_csv(q))
    assert back == list(q.rows)


def test_label_studio_tasks_have_the_documented_keys():
    q = relabel_queue(SMALL)
    tasks = json.loads(label_studio_tasks(q, {"2": {"text": "the second item"}}))
    assert isinstance(tasks, list) and len(tasks) == len(q.rows)
    for t, r in zip(tasks, q.rows):
        assert set(t) == {"data", "predictions"}
        assert t["data"]["unit"] == r.unit and t["data"]["relabel_rank"] == r.rank
        (pred,) = t["predictions"]
        assert set(pred) == {"model_version", "score", "result"}
        assert pred["score"] == r.probability
        (res,) = pred["result"]
        assert res == {"from_name": "label", "to_name": "text", "type": "choices",
                       "value": {"choices": [r.consensus]}}
    assert next(t for t in tasks if t["data"]["unit"] == "2")["data"]["text"] == "the second item"
    bare = json.loads(label_studio_tasks(q, predictions=False))
    assert all(set(t) == {"data"} for t in bare)
    config = label_studio_config(["a", "b", 'c"<'])
    assert '<Choices name="label" toName="text" choice="single">' in config
    assert '<Text name="text" value="$text"/>' in config and "<Choice value='c\"&lt;'/>" in config


def test_argilla_records_have_the_documented_keys():
    q = relabel_queue(SMALL)
    records = json.loads(argilla_records(q))
    assert len(records) == len(q.rows)
    for rec, r in zip(records, q.rows):
        assert set(rec) == {"id", "fields", "metadata", "suggestions"}
        assert rec["id"] == r.unit and rec["fields"] == {"text": r.unit}
        assert rec["metadata"]["ranking_rule"] == "uncertain-first"
        assert rec["suggestions"] == [{"question_name": "label", "value": r.consensus, "score": r.probability,
                                       "agent": "agreebound-dawid-skene"}]
        assert 0 <= rec["suggestions"][0]["score"] <= 1
    assert set(RULES) == {"uncertain-first", "gate-first", "judge-alone"}


def test_a_label_a_spreadsheet_would_run_is_written_as_text_and_read_back():
    rows = [["=SUM(A1)", "=SUM(A1)", "b"], ["b", "b", "b"], ["=SUM(A1)", "b", "=SUM(A1)"], ["b", "b", "=SUM(A1)"]]
    q = relabel_queue(rows)
    text = queue_csv(q)
    assert ",=SUM" not in text and "'=SUM(A1)" in text  # no cell starts with '='
    assert read_queue_csv(text) == list(q.rows)


def test_the_judge_alone_against_agreeing_humans_comes_first():
    """Columns: a judge, then three humans. Unit 3: the humans all say 'b', the judge 'a' (the judge
    alone); unit 2: the humans split, so it is uncertain but not the judge alone; unit 1: all agree."""
    rows = [["a", "a", "a", "a"], ["a", "a", "b", "a"], ["a", "b", "b", "b"], ["b", "b", "b", "b"]]
    raters = ["judge", "h1", "h2", "h3"]
    q = relabel_queue(rows, raters, rule="judge-alone", judges=["judge"])
    assert [r.unit for r in q.rows] == ["3", "2", "1", "4"]
    assert q.rows[0].why == ("the model gives 'b' probability 1.000; 3 of 4 ratings agree with the plurality; judge says "
                             "'a' where the 3 humans say 'b'; removing it moves alpha from 0.531 to 0.686, across the "
                             "floor 0.600 (alpha now fails)")
    assert "judge says" not in q.rows[1].why  # unit 2: the humans do not agree among themselves
    # uncertain-first puts unit 2 first (its split ties unit 3's; its consensus is less probable)
    assert [r.unit for r in relabel_queue(rows, raters).rows] == ["2", "3", "1", "4"]
    with pytest.raises(ValueError, match="judges' names"):
        relabel_queue(rows, raters, rule="judge-alone")
