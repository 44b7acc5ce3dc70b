"""A graded or pass/fail judge in the dashboard's history (issue 25, "history and compare"): an upload
is recorded as a judge run whose report's kind is "scored", once per distinct bytes, reading and
thresholds, with the roles the command line stores ("bundle" for the log, "references" for the human
labels); History's "Open this run" and a ``?run=`` link reopen it in the graded judge's view with its
thresholds; a pairwise run still reopens in the pairwise view; two graded runs compare per judge."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from agreebound.cli.main import main
from agreebound.app.store import Store
from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.ui import history_tables, runs
from tests.support import apptest
from tests.support.apptest import param

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
GRADED_SAMPLE = "Graded judge log: 2 judges and 3 humans score 120 answers 1-5 (synthetic)"
#: The graded judges' thresholds with a margin of 0.100: the noisy judge (0.099 short of the humans'
#: alpha) is admissible under them, and fails at the default 0.050.
LENIENT = json.dumps({"panel": {"alpha_floor_permil": 600, "ratio_cap_permil": 2000},
                      "scored": {"admissibility_margin_permil": 100, "judge_alpha_floor_permil": 600}})
#: What the Judge page says of the noisy judge (tests/ui/test_scored.py: its alpha with the
#: humans 0.698 over 150 items, theirs with each other 0.797).
AGREES = "agrees with the humans 0.698 vs their 0.797 with each other"


@lru_cache(maxsize=None)
def noisy(humans_apart: bool = False) -> tuple[bytes, bytes | None]:
    """One judge 1.6 times as noisy as the 3 humans over 150 items (the log of tests/ui/test_scored.py): the
    scores table, or (``humans_apart``) the judge's scores and the humans' labels as two files."""
    frame = scored_frame([ScoredJudge("noisy-judge", noise=0.8)], 150, 3, seed=3).drop(columns=["line"])
    if not humans_apart:
        return frame.to_csv(index=False).encode(), None
    judge, humans = frame[frame.role == "judge"], frame[frame.role == "human"]
    return judge.to_csv(index=False).encode(), humans[["item", "rater", "score"]].to_csv(index=False).encode()


def app(page: str | None = "pages/judge.py", **query: object) -> AppTest:
    """The dashboard, on the Judge page unless told (tests.support.apptest.app)."""
    return apptest.app(page, **query)


def upload(at: AppTest, name: str, payload: bytes, key: str = "bundle_upload") -> AppTest:
    return apptest.upload(at, key, name, payload)


def shown(markdown: str) -> str:
    """The text a user sees, bold marks removed too."""
    return apptest.shown(markdown, bold=False)


def said(at: AppTest) -> str:
    return apptest.said(at, bold=False)


def banners(at: AppTest) -> list[str]:
    return [shown(e.value) for e in [*at.success, *at.error]]


def stored_runs(db: str) -> list:
    with Store.open(db) as s:
        return s.runs()


def open_from_history(at: AppTest, run_id: str) -> AppTest:
    at.switch_page("pages/history.py").run()
    at.selectbox(key="history_pick").set_value(run_id).run()
    at.button(key="history_open").click().run()
    assert not at.exception, at.exception
    return at


def judge_view(at: AppTest) -> tuple[list[str], str]:
    """The Judge page's decision banners and the judge's own line ("FAIL: agrees with ...")."""
    line = next(shown(m.value) for m in at.markdown if AGREES in shown(m.value))
    return banners(at), line


def test_a_graded_upload_is_recorded_once_as_the_command_line_records_it(db, tmp_path, capsys):
    log, _ = noisy()
    at = upload(app(), "graded.csv", log)
    [run] = stored_runs(db)
    assert (run.kind, run.report["kind"], run.verdict, run.origin, run.judge) == (
        "judge", "scored", "FAIL_CALIBRATION", "dashboard", "noisy-judge")
    assert run.recipe == {"source": "scored", "judge": None, "rebind": False}
    assert [(i.role, i.name, i.sha256) for i in run.inputs] == [("bundle", "graded.csv", hashlib.sha256(log).hexdigest())]
    assert at.session_state["scored_source"].run == run.id and param(at, "run") == [run.id]
    assert f"This data is run {run.id} in the history" in said(at)

    # the same bytes, read the same way, under the same thresholds: that run, not a copy
    again = upload(app(), "graded.csv", log)
    assert again.session_state["scored_source"].run == run.id and len(stored_runs(db)) == 1

    # another reading (the interval level) is another run
    again.selectbox(key="scored_level_pick").set_value("interval").run()
    assert not again.exception, again.exception
    newest = stored_runs(db)[0]
    assert len(stored_runs(db)) == 2 and newest.recipe == {"source": "scored", "judge": None, "rebind": False,
                                                           "level": "interval"}
    assert again.session_state["scored_source"].run == newest.id and param(again, "run") == [newest.id]

    # the command line records the same file as the same run: roles, recipe, thresholds and report
    path = tmp_path / "graded.csv"
    path.write_bytes(log)
    assert main(["calibrate", str(path), "--record", "--db", db]) == 1
    capsys.readouterr()
    cli = stored_runs(db)[0]
    assert cli.origin == "cli"
    assert ([(i.role, i.name, i.sha256) for i in cli.inputs], cli.recipe, cli.thresholds, cli.report) == (
        [(i.role, i.name, i.sha256) for i in run.inputs], run.recipe, run.thresholds, run.report)


def test_the_human_labels_are_stored_under_references_and_a_sample_is_not_recorded(db):
    scores, humans = noisy(humans_apart=True)
    at = upload(app(), "judge_scores.csv", scores)
    assert "No human labels: nothing about agreement is measured or decided" in said(at)
    upload(at, "humans.csv", humans, key="log_references_upload")
    newest = stored_runs(db)[0]
    assert [(i.role, i.name) for i in newest.inputs] == [("bundle", "judge_scores.csv"), ("references", "humans.csv")]
    assert newest.verdict == "FAIL_CALIBRATION" and len(stored_runs(db)) == 2  # without the labels, then with them
    again = open_from_history(app(), newest.id)
    held = again.session_state["scored_source"].recipe
    assert (held.first.name, held.references.name, held.references.data) == ("judge_scores.csv", "humans.csv", humans)
    assert judge_view(again)[1].startswith("FAIL: " + AGREES)

    sample = app()
    sample.selectbox(key="judge_sample").set_value(GRADED_SAMPLE).run()
    assert sample.session_state["scored_source"].run is None and len(stored_runs(db)) == 2


def test_open_this_run_shows_the_same_decision_and_alpha_in_a_fresh_session(db):
    log, _ = noisy()
    first = upload(app(), "graded.csv", log)
    before = judge_view(first)
    assert before == (["FAIL_CALIBRATION"], f"FAIL: {AGREES}; 150 items with its score and a human's, 450 "
                                            "judge-human pairs.")
    [run] = stored_runs(db)

    history = app("pages/history.py")
    table = history.dataframe[0].value
    assert list(table.loc[table["run"] == run.id, ["kind", "judge", "level", "verdict"]].iloc[0]) == [
        "judge (graded)", "noisy-judge", "from the data", "FAIL_CALIBRATION"]
    opened = open_from_history(history, run.id)
    assert opened.session_state["scored_source"].run == run.id
    assert opened.session_state["judge_source"].run is None  # the pairwise judge's slot keeps its sample
    assert judge_view(opened) == before
    assert "Cases" not in [h.value for h in opened.header]  # the graded view, not the pairwise one
    assert param(opened, "run") == [run.id]

    link = app(run=run.id)  # "a reload": the link's run, nothing uploaded
    assert link.session_state["scored_source"].run == run.id and judge_view(link) == before
    assert [r.id for r in stored_runs(db)] == [run.id]  # opening records nothing new


def test_a_run_reopens_with_the_thresholds_it_was_decided_under(db):
    log, _ = noisy()
    at = upload(app(th=LENIENT), "graded.csv", log)
    assert banners(at) == ["PASS_CALIBRATION"]
    [run] = stored_runs(db)
    assert run.thresholds["scored"] == {"admissibility_margin_permil": 100, "judge_alpha_floor_permil": 600}

    opened = open_from_history(app(), run.id)  # a fresh session, under the defaults
    t = opened.session_state["thresholds"]
    assert (t.scored.admissibility_margin_permil, t.source) == (100, f"run {run.id}")
    assert judge_view(opened) == (["PASS_CALIBRATION"], f"PASS: {AGREES}; 150 items with its score and a human's, "
                                                        "450 judge-human pairs.")
    assert "graded judge admissibility margin 0.100 (default 0.050)" in said(opened)  # the edited-thresholds banner
    assert json.loads(param(opened, "th")[0])["scored"]["admissibility_margin_permil"] == 100


def test_a_pairwise_run_still_reopens_in_the_pairwise_view(db, capsys):
    main(["calibrate", str(S / "judge_illustrative.json"), "--record", "--label", "pilot", "--db", db])
    capsys.readouterr()
    log, _ = noisy()
    at = upload(app(), "graded.csv", log)
    graded = at.session_state["scored_source"].run
    pairwise = next(r.id for r in stored_runs(db) if r.id != graded)

    opened = open_from_history(at, pairwise)
    assert opened.session_state["judge_source"].run == pairwise
    assert opened.session_state["judge_source"].recipe.first.name == "judge_illustrative.json"
    assert opened.session_state["scored_source"].run == graded  # held beside, one click away
    assert "Cases" in [h.value for h in opened.header]
    assert [shown(b.label) for b in opened.button if b.key == "scored_show"] == [
        "Show the graded judge loaded before: upload: graded.csv"]
    # the link carries both; the judge shown (the pairwise one, opened last) goes last
    assert param(opened, "run") == [graded, pairwise]
    link = app(run=[graded, pairwise])
    assert (link.session_state["scored_source"].run, link.session_state["judge_source"].run) == (graded, pairwise)
    assert "Cases" in [h.value for h in link.header]


def test_two_graded_runs_compare_per_judge_on_the_history_page(db):
    log, _ = noisy()
    upload(app(), "graded.csv", log)
    upload(app(th=LENIENT), "graded.csv", log)
    after, before = stored_runs(db)
    assert (before.verdict, after.verdict) == ("FAIL_CALIBRATION", "PASS_CALIBRATION")
    history = app("pages/history.py")
    assert (history.selectbox(key="compare_a").value, history.selectbox(key="compare_b").value) == (before.id, after.id)
    assert [shown(s.value) for s in history.success] == [
        "Improved: noisy-judge FAIL_CALIBRATION -> PASS_CALIBRATION. Between the runs: thresholds changed "
        "(admissibility margin 0.050 -> 0.100)."]
    table = next(t.value for t in history.table if "judge" in t.value.columns).rename(columns=shown).map(shown)
    rows = table.set_index("gate")
    assert list(rows["judge"]) == ["noisy-judge", "noisy-judge"]
    assert rows.loc["admissibility", "result"] == "fails -> passes"
    assert rows.loc["admissibility", "threshold"] == "-0.050 -> -0.100"
    assert rows.loc["admissibility", "why it flipped"] == "now passes: threshold -0.050 -> -0.100 (thresholds changed)"
    assert rows.loc["judge alpha", "result"] == "passes" and rows.loc["judge alpha", "why it flipped"] == ""
    assert rows.loc["judge alpha", "after [95% interval]"] == "0.698 [0.625, 0.771]"


def test_a_graded_run_and_a_pairwise_one_are_not_paired_by_default(db, capsys):
    main(["calibrate", str(S / "judge_illustrative.json"), "--record", "--db", db])
    capsys.readouterr()
    log, _ = noisy()
    upload(app(), "graded.csv", log)
    upload(app(th=LENIENT), "graded.csv", log)
    shown_runs = stored_runs(db)
    graded = [r.id for r in shown_runs if runs.is_scored_run(r)]
    assert history_tables.compare_defaults(shown_runs, None) == (graded[0], graded[1])


@pytest.mark.parametrize("source, stored_files, expected", [
    # the command line: the log under "bundle", a thresholds file beside it, the labels under "references"
    ("scored", [("bundle", "g.csv", b"1"), ("thresholds", "t.toml", b"2"), ("references", "h.csv", b"3")],
     ("g.csv", "h.csv")),
    ("scored", [("bundle", "g.csv", b"1")], ("g.csv", None)),
    ("single-pairs", [("bundle", "s.jsonl", b"1"), ("references", "h.jsonl", b"2"), ("contract", "c.json", b"3")],
     ("s.jsonl", "h.jsonl", "c.json")),
])
def test_a_graded_run_replays_its_files_in_their_slots(source, stored_files, expected):
    recipe = runs.judge_replay(SimpleNamespace(recipe={"source": source, "judge": "j", "rebind": False,
                                                       "level": "interval"}), stored_files)
    assert tuple(f.name if f else None for f in runs.judge_files(recipe)) == expected
    assert (recipe.source, recipe.judge) == (source, "j")
    assert recipe.level == ("interval" if source == "scored" else None)
    roles = runs.JUDGE_ROLES[source]
    assert [r for r, f in zip(roles, runs.judge_files(recipe)) if f is not None] == [
        r for r, _, _ in stored_files if r != "thresholds"]


def test_the_history_table_names_a_graded_run():
    run = SimpleNamespace(kind="judge", recipe={"source": "scored", "judge": None, "rebind": False, "level": "nominal"},
                          report=None, created_utc="2026-01-02T03:04:05Z", verdict="PASS_CALIBRATION", data_name="g.csv",
                          label=None, judge="a, b", contract_id=None, thresholds_source="default", origin="cli", id="ab12",
                          owner="https://id.red.example|8f2c", owner_name="alice@red.example", share="team")
    frame = history_tables.runs_frame([run])
    assert isinstance(frame, pd.DataFrame)
    assert frame.iloc[0][["kind", "level", "judge", "owner", "shared with"]].tolist() == [
        "judge (graded)", "nominal", "a, b", "alice@red.example", "its owner's team"]  # the address, not the key


def test_nothing_is_recorded_with_recording_off_and_record_this_view_keeps_the_judge_decided_for(db):
    log, _ = noisy()
    off = app()
    off.toggle(key="record_runs").set_value(False).run()
    upload(off, "graded.csv", log)
    assert off.session_state["scored_source"].run is None and stored_runs(db) == [] and param(off, "run") == []

    graded = app()
    graded.selectbox(key="judge_sample").set_value(GRADED_SAMPLE).run()
    graded.selectbox(key="scored_for_pick").set_value("judge-model").run()
    graded.text_input(key="record_label_scored").input("judge-model alone").run()
    graded.button(key="record_scored").click().run()
    assert not graded.exception, graded.exception
    [run] = stored_runs(db)
    assert f"Recorded run {run.id}." in said(graded)
    assert (run.label, run.verdict, run.judge, run.report["kind"]) == (
        "judge-model alone", "PASS_CALIBRATION", "judge-model", "scored")
    assert run.recipe == {"source": "scored", "judge": "judge-model", "rebind": False}
    assert [(i.role, i.name) for i in run.inputs] == [("bundle", "graded_judge.csv")]
    # reopened, it is decided for that judge again
    opened = open_from_history(app(), run.id)
    assert opened.session_state["scored_for"] == "judge-model"
    assert banners(opened) == ["PASS_CALIBRATION for judge-model"]


def test_filtering_to_the_graded_data_compares_its_two_runs(db, capsys):
    log, _ = noisy()
    upload(app(), "graded.csv", log)
    upload(app(th=LENIENT), "graded.csv", log)
    main(["calibrate", str(S / "judge_illustrative.json"), "--record", "--db", db])  # the newest: a pairwise run
    capsys.readouterr()
    after, before = [r for r in stored_runs(db) if runs.is_scored_run(r)]
    history = app("pages/history.py")
    history.selectbox(key="history_name").set_value("graded.csv").run()
    assert not history.exception, history.exception
    # the pickers left on runs the filter hides take the defaults again: the two graded runs
    assert (history.selectbox(key="compare_a").value, history.selectbox(key="compare_b").value) == (before.id, after.id)
    assert [shown(s.value) for s in history.success][0].startswith(
        "Improved: noisy-judge FAIL_CALIBRATION -> PASS_CALIBRATION.")


def test_deleting_the_graded_run_keeps_the_judge_loaded_and_drops_it_from_the_link(db):
    log, _ = noisy()
    at = upload(app(), "graded.csv", log)
    [run] = stored_runs(db)
    at.switch_page("pages/history.py").run()
    at.selectbox(key="history_pick").set_value(run.id).run()
    at.button(key="history_delete").click().run()
    assert not at.exception, at.exception
    assert f"Deleted run {run.id} (1 stored file no other run used)." in said(at)
    assert stored_runs(db) == [] and param(at, "run") == []
    held = at.session_state["scored_source"]
    assert (held.run, held.recipe.first.name, held.recipe.first.data) == (None, "graded.csv", log)
