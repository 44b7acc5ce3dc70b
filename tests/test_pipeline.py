"""The one pipeline: typed recipes, their stored form, run(recipe) -> Report, io that does not measure."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agreebound.contract import ILLUSTRATIVE_CONTRACT
from agreebound.io import templates
from agreebound.io.formats import read_judge_bundle
from agreebound.contract import JudgeInput
from agreebound.judge_input import JudgeBundle, UnboundSnapshot, measure_judge
from agreebound.pipeline import JudgeRecipe, PanelRecipe, Report, Source, panel_engine, run

SAMPLES = Path(__file__).resolve().parents[1] / "sample_data"


def test_io_reads_a_bundle_without_measuring_it():
    judge = read_judge_bundle("b.json", templates.bundle().encode())
    assert isinstance(judge, JudgeInput) and not hasattr(judge, "measurement")
    assert isinstance(measure_judge(judge), JudgeBundle)


def test_an_unbound_snapshot_is_a_typed_error():
    bundle = json.loads(templates.bundle())
    bundle["snapshot"]["contract_content_id"] = replace(ILLUSTRATIVE_CONTRACT, maximum_position_flip_bps=400).content_id
    with pytest.raises(UnboundSnapshot, match="not bound to this contract content"):
        run(JudgeRecipe(Source("stale.json", json.dumps(bundle).encode())))


def test_a_panel_recipe_stores_the_keys_runs_have_always_stored():
    stored = {"mapping": None, "level": "ordinal", "positive": "1", "dimension": None, "interval": "units"}
    recipe = PanelRecipe.from_dict(stored, [Source("r.csv", b"")])
    assert recipe.to_dict() == stored
    old = PanelRecipe.from_dict({"mapping": None}, [Source("r.csv", b"")])  # recorded before level and interval
    assert (old.level, old.interval, old.positive) == ("auto", "pairs", "auto")


def test_a_judge_recipe_round_trips_and_keeps_slot_order():
    files = [Source("log.jsonl", b""), Source("refs.jsonl", b""), None, Source("map.json", b"")]
    recipe = JudgeRecipe.from_dict({"source": "log", "judge": "gpt-4", "rebind": False}, files)
    assert recipe.references is files[1] and recipe.contract is None and recipe.mapping is files[3]
    assert recipe.to_dict() == {"source": "log", "judge": "gpt-4", "rebind": False}


def test_run_gives_a_typed_report_and_the_engine_is_chosen_in_one_place():
    recipe = PanelRecipe((Source.at(str(SAMPLES / "detector_panel.csv")),))
    assert panel_engine(recipe) == "numpy"
    assert panel_engine(replace(recipe, ratings=recipe.ratings * 2)) == "duckdb"
    result = run(recipe)
    assert isinstance(result, Report) and result.kind == "panel"
    assert set(result.measurements) == set(result.decisions)
    assert result.recipe["level_read"] and result.inputs[0][0] == "ratings"
