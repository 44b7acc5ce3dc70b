"""The one pipeline: typed recipes, their stored form, run(recipe) -> Report, io that does not measure."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT
from agreebound.io import templates
from agreebound.io.judge_inputs import read_judge_bundle
from agreebound.judge.contract import JudgeInput
from agreebound.app.judge_input import JudgeBundle, UnboundSnapshot, measure_judge
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, Source, panel_engine
from agreebound.app.result import Report
from agreebound.app.pipeline import run

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


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


# --- one measuring step for every caller (the dashboard included) --------------------------------


def _panel(**changes) -> PanelRecipe:
    data = (SAMPLES / "detector_panel.csv").read_bytes()
    return replace(PanelRecipe((Source("detector_panel.csv", data),), chosen_by="user"), **changes)


def test_a_recipe_digest_is_stable_and_follows_every_field_but_never_reads_bytes_twice():
    from agreebound.app.recipes import recipe_digest

    recipe = _panel()
    assert recipe_digest(recipe) == recipe_digest(_panel())  # the same bytes and fields: the same key
    for changed in (_panel(level="ordinal"), _panel(dimension="insult"), _panel(positive=1), _panel(interval="pairs"),
                    _panel(engine="duckdb"), _panel(humans=("human",)),
                    replace(recipe, ratings=(Source("detector_panel.csv", b"other"),))):
        assert recipe_digest(changed) != recipe_digest(recipe)
    assert recipe.ratings[0].digest == recipe.ratings[0].digest  # hashed once (cached on the Source)
    judge = JudgeRecipe(Source("b.json", b"{}"), "bundle")
    assert recipe_digest(judge) != recipe_digest(replace(judge, rebind=True))


def test_measuring_a_recipe_honours_its_dimension_roles_and_engine():
    from agreebound.core.errors import InputError
    from agreebound.app.pipeline import measure_panel_recipe

    every = measure_panel_recipe(_panel())
    assert sorted(every) == ["insult", "sexual", "violence"]
    only = measure_panel_recipe(_panel(dimension="insult"))
    assert list(only) == ["insult"] and only["insult"].alpha.value == every["insult"].alpha.value
    with pytest.raises(InputError, match="no dimension 'tone'"):
        measure_panel_recipe(_panel(dimension="tone"))
    humans = measure_panel_recipe(_panel(humans=("human", "detector-llm")))
    assert set(humans["insult"].humans) == {"human", "detector-llm"} and humans["insult"].ndet == 2
    path = Source.at(str(SAMPLES / "detector_panel.csv"))
    duck = measure_panel_recipe(PanelRecipe((path,), chosen_by="user", engine="duckdb", display="panel"))
    assert {d: m.alpha.value for d, m in duck.items()} == {d: m.alpha.value for d, m in every.items()}


def test_the_report_built_from_a_cached_measurement_is_the_report_run_builds():
    from agreebound.io.ratings import import_ratings
    from agreebound.app.pipeline import measure_panel_recipe, panel_result
    from agreebound.app.result import thresholds_of

    recipe = _panel(level="nominal")
    ran = run(recipe)
    name, data = recipe.ratings[0].read()
    imported = import_ratings(name, data, None)
    built = panel_result(recipe, measure_panel_recipe(recipe, imported), thresholds_of(recipe), [("ratings", name, data)],
                         imported)
    assert built.report == ran.report
    assert built.recipe == {**recipe.to_dict(), "level_read": "nominal"}


def test_per_rater_diagnostics_out_of_core_run_on_duckdb_only():
    from agreebound.app.recipes import RecipeError
    from agreebound.app.pipeline import rater_diagnostics

    path = Source.at(str(SAMPLES / "detector_panel.csv"))
    without, units = rater_diagnostics(PanelRecipe((path,), engine="duckdb"), "insult", "nominal", 50)
    assert set(without) == {"detector-lexicon", "detector-classifier", "detector-llm", "human"} and units
    with pytest.raises(RecipeError, match="DuckDB"):
        rater_diagnostics(PanelRecipe((path,)), "insult", "nominal", 50)


def test_a_refused_field_is_carried_by_the_error_not_read_from_its_text():
    from agreebound.judge.contract import HumanReference, JudgeObservation, field_of
    from agreebound.core.errors import FieldError, InputError
    from agreebound.io.ratings import parse_mapping
    from agreebound.io.mapping import Mapping

    with pytest.raises(FieldError) as e:
        HumanReference("case-1", "a", ("r-2", "r-1"), False)
    assert field_of(e.value) == "reviewer_ids" and str(e.value).startswith("reference.reviewer_ids must be sorted")
    with pytest.raises(FieldError) as e:
        HumanReference("case-1", "a", ("Not An Id",), False)
    assert e.value.field == "reviewer_ids" and str(e.value).startswith("reference.reviewer_id must be")
    with pytest.raises(FieldError) as e:
        JudgeObservation("case-1", "xy", 1, "a", 1, 1, "gen-a", "gen-b", "judge-x")
    assert e.value.field == "order" and str(e.value).startswith("observation.order must be ab or ba")
    assert field_of(ValueError("observation.order must be ab or ba")) is None  # a message is not parsed
    for given, key in (({"layout": "long", "colour": 1}, "colour"), ({"unit": ["u"]}, "layout"),
                       ({"layout": "wide", "skip": -1}, "skip"), ({"layout": "wide", "encoding": "rot13"}, "encoding")):
        with pytest.raises(FieldError) as e:
            Mapping.from_dict(given)
        assert e.value.field == key
        with pytest.raises(InputError) as ie:
            parse_mapping("m.json", json.dumps(given).encode())
        assert ie.value.column == key and ie.value.reason == str(e.value)
    with pytest.raises(InputError) as ie:
        parse_mapping("m.json", b'{"layout": "long", "unit": ["u"]}')
    assert ie.value.column is None and "a long mapping needs" in ie.value.reason
