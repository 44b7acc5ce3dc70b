"""Reopening a stored run replays its recipe (pipeline.PanelRecipe / JudgeRecipe.from_dict over the
stored files, ui.runs). (That the pages are layout only: tests/architecture/test_pages.py.)"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from agreebound.cli.main import main
from agreebound.app.recipes import JudgeRecipe, PanelRecipe, Source
from agreebound.app.pipeline import run
from agreebound.app.store import Store
from agreebound.ui import history_tables, runs

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


def stored(db: str) -> tuple[object, list[tuple[str, str, bytes]]]:
    with Store.open(db) as s:
        newest = s.runs()[0]
        return newest, s.inputs(newest)


def test_a_panel_run_replays_its_recipe_and_measures_the_same(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    main(["panel", str(S / "detector_panel.csv"), "--rates", str(S / "detector_rates.csv"), "--level", "ordinal",
          "--interval", "pairs", "--record", "--db", db])
    capsys.readouterr()
    recorded, files = stored(db)
    recipe = runs.panel_replay(recorded, files)
    assert isinstance(recipe, PanelRecipe)
    assert (recipe.level, recipe.interval, recipe.ratings[0].name, recipe.rates.name) == \
        ("ordinal", "pairs", "detector_panel.csv", "detector_rates.csv")
    again = run(recipe)
    # the same report, but for how the file was read: replayed through the mapping it was read with
    assert {k: v for k, v in again.report.items() if k != "read"} == \
        {k: v for k, v in recorded.report.items() if k != "read"}
    first = run(PanelRecipe((Source.at(str(S / "detector_panel.csv")),), level="ordinal", interval="pairs",
                            rates=Source.at(str(S / "detector_rates.csv"))))
    assert {d: (m.alpha.value, [(r.detector, r.positives, r.total) for r in m.rates])
            for d, m in again.measurements.items()} == \
        {d: (m.alpha.value, [(r.detector, r.positives, r.total) for r in m.rates])
         for d, m in first.measurements.items()}


def test_a_panel_run_without_ratings_has_no_recipe():
    assert runs.panel_replay(SimpleNamespace(recipe={}), [("rates", "r.csv", b"detector,rate\n")]) is None


def test_a_run_recorded_before_the_interval_choice_replays_with_pairs():
    recipe = runs.panel_replay(SimpleNamespace(recipe={"level": None}), [("ratings", "a.csv", b"x")])
    assert (recipe.level, recipe.interval, recipe.positive, recipe.mapping) == ("auto", "pairs", "auto", None)


@pytest.mark.parametrize("source, stored_files, expected", [
    # the command line stores the source's own file under "bundle", a thresholds file beside it
    ("log", [("bundle", "log.jsonl", b"1"), ("thresholds", "t.toml", b"2"), ("references", "refs.jsonl", b"3")],
     ("log.jsonl", "refs.jsonl", None, None)),
    # the dashboard stores each file under its own role
    ("log", [("log", "log.jsonl", b"1"), ("mapping", "m.json", b"4")], ("log.jsonl", None, None, "m.json")),
    ("tables", [("contract", "c.json", b"1"), ("references", "r.csv", b"2"), ("observations", "o.csv", b"3")],
     ("c.json", "r.csv", "o.csv")),
    ("bundle", [("bundle", "b.json", b"1")], ("b.json",)),
])
def test_a_judge_run_replays_its_files_in_their_slots(source, stored_files, expected):
    recorded = SimpleNamespace(recipe={"source": source, "judge": "gpt-4", "rebind": 1})
    recipe = runs.judge_replay(recorded, stored_files)
    assert isinstance(recipe, JudgeRecipe)
    assert (recipe.source, recipe.judge, recipe.rebind) == (source, "gpt-4", True)
    assert tuple(f.name if f else None for f in runs.judge_files(recipe)) == expected


def test_a_judge_run_replays_to_the_same_audit(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    main(["calibrate", str(S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"), "--references",
          str(S / "judge_logs" / "mt_bench_human_judgments.jsonl"), "--record", "--db", db])
    capsys.readouterr()
    recorded, files = stored(db)
    again = run(runs.judge_replay(recorded, files))
    assert again.report == recorded.report


def test_two_runs_of_different_kinds_are_not_compared_and_say_why(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    main(["calibrate", str(S / "judge_illustrative.json"), "--record", "--db", db])
    main(["panel", str(S / "krippendorff_2011.csv"), "--record", "--db", db])
    main(["panel", str(S / "krippendorff_2011.csv"), "--level", "interval", "--record", "--db", db])
    capsys.readouterr()
    with Store.open(db) as s:
        after, before, judge = s.runs()
        c, why = history_tables.compared(s, before.id, after.id)
        assert why is None and "level: auto -> interval" in c.headline()
        c, why = history_tables.compared(s, judge.id, after.id)
        assert c is None and why == f"run {judge.id} is a judge run and run {after.id} a panel run; compare runs of " \
            "one kind"
        c, why = history_tables.compared(s, "0123456789ab", after.id)
        assert c is None and "'0123456789ab' is not a run id (32 hex digits)" in why
        c, why = history_tables.compared(s, "0" * 32, after.id)
        assert c is None and f"no run {'0' * 32} that you can open in" in why
        assert history_tables.timeline_of([after, before]) is not None
