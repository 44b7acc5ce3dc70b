"""agreebound.app.rankings: the ranking made once for the reports and the page; the prediction-powered
ranking's anchor and why there is none; the gate in strict mode under strict thresholds; the recipe
storing the ranking and its gate."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pandas as pd

from agreebound.app.rankings import gate_in_force, human_labels, ppi_of, ranking_block, ranking_of
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.core.thresholds import DEFAULT, CalibrationThresholds
from agreebound.judge.ranking import RankingGate


def _bundle(labels: dict[str, str]) -> SimpleNamespace:
    """Three models over 12 cases, two judgments each; human labels for the cases in ``labels``."""
    pairs = [("m1", "m2"), ("m2", "m3"), ("m1", "m3")] * 4
    picks = ["a", "a", "b", "tie", "a", "b", "b", "a", "a", "a", "tie", "b"]
    obs = pd.DataFrame({"case_id": [f"c{i}" for i in range(12) for _ in (1, 2)],
                        "selected_candidate": [p for p in picks for _ in (1, 2)],
                        "candidate_a_generator": [a for a, _ in pairs for _ in (1, 2)],
                        "candidate_b_generator": [b for _, b in pairs for _ in (1, 2)]})
    refs = pd.DataFrame({"case_id": list(labels), "preferred_candidate": list(labels.values())})
    return SimpleNamespace(observations=obs, references=refs)


def test_the_ppi_anchor_is_the_first_model_in_name_order():
    b = _bundle({f"c{i}": p for i, p in enumerate(["a", "b", "a", "tie", "a", "b"])})
    p = ppi_of(b, ranking_of(b))
    assert not isinstance(p, str) and p is not None
    assert p.anchor == "m1" and (p.labelled, p.unlabelled) == (6, 6)
    assert dict(zip(p.models, p.ratings))["m1"] == 1000.0


def test_why_there_is_no_ppi_ranking():
    assert ppi_of(_bundle({}), ranking_of(_bundle({}))) is None  # no human labels: nothing to say
    every = _bundle({f"c{i}": "a" for i in range(12)})
    assert ppi_of(every, ranking_of(every)) == (
        "No prediction-powered ranking: every case has a human label, so the judge's verdicts have nothing to add "
        "(rank the humans' own verdicts instead).")
    one = _bundle({"c0": "a"})
    assert ppi_of(one, ranking_of(one)) == ("No prediction-powered ranking: prediction-powered ratings need 2 "
                                            "labelled cases and 1 unlabelled.")
    assert human_labels(SimpleNamespace(observations=None)) == {}


def test_no_ranking_from_an_audit_counted_out_of_core():
    empty = SimpleNamespace(observations=pd.DataFrame(), references=pd.DataFrame())
    assert ranking_of(empty) == "No ranking: the judgments do not name the two candidates' generators (models)."
    block = ranking_block(empty, RankingGate("m1", "m2", 10))
    assert block["gate"]["passed"] is None
    assert block["gate"]["why"] == "no ranking: the judgments do not name the two candidates' generators (models)."


def test_strict_thresholds_make_the_gate_strict():
    gate = RankingGate("m1", "m2", 10)
    limits = CalibrationThresholds(2, 8000, 500, 500, 500, 500, strict=True)
    strict = replace(DEFAULT, calibration=limits)
    assert gate_in_force(gate, strict).strict is True
    assert gate_in_force(gate, DEFAULT) is gate and gate_in_force(gate, None) is gate  # the contract's own: as given
    assert gate_in_force(gate, replace(DEFAULT, calibration=replace(limits, strict=False))) is gate


def test_the_recipe_stores_the_ranking_and_its_gate():
    gate = RankingGate("gpt-4", "llama-13b", 600, "win_permil")
    r = JudgeRecipe(Source("log.jsonl", b"x"), "log", beats=gate)
    stored = r.to_dict()
    assert stored == {"source": "log", "judge": None, "rebind": False, "ranking": True,
                      "beats": {"model": "gpt-4", "baseline": "llama-13b", "margin": 600, "unit": "win_permil"}}
    back = JudgeRecipe.from_dict(stored, [Source("log.jsonl", b"x")])
    assert back.beats == gate and back.ranking is True
    plain = JudgeRecipe(Source("log.jsonl", b"x"), "log")
    assert plain.to_dict() == {"source": "log", "judge": None, "rebind": False}  # as runs have always stored it
    assert JudgeRecipe.from_dict({"source": "log", "beats": {"model": "x"}}, [Source("a", b"x")]).beats is None
