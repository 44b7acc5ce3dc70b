"""History in the dashboard (AppTest): an upload is recorded as it parses; a new session with the
link's ?run= restores the same data, mapping, level and thresholds without uploading again; the
History page lists runs, draws the timeline, compares two runs and names why a gate flipped; a
broken database is a message, never a crash, and never the loss of what is loaded."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agreebound.app import store as store_module
from agreebound.cli.main import main
from agreebound.app.store import Store
from tests.support import apptest
from tests.support.apptest import ok, param, plain, text, upload

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


def app(query: dict[str, object] | None = None, page: str | None = None) -> AppTest:
    """The dashboard with ``query`` (tests.support.apptest.app), on ``page``."""
    return apptest.app(page, query)


def said(elements) -> str:
    return plain(" ".join(e.value for e in elements))


def upload_k2011_interval(at: AppTest) -> None:
    """Krippendorff (2011) under another name, read at the interval level through the preview."""
    upload(at, "ratings_upload", "reliability.csv", (S / "krippendorff_2011.csv").read_bytes())
    level = next(s for s in at.selectbox if s.label.startswith("Level"))
    ok(level.set_value("interval").run())
    ok(next(b for b in at.button if b.label == "Measure with this mapping").click().run())


def test_upload_is_recorded_and_a_new_session_restores_it(db):
    at = app(page="pages/panel.py")
    upload_k2011_interval(at)
    run_id = at.session_state["panel_source"].run
    assert param(at, "run") == [run_id]
    with Store.open(db) as s:
        run = s.get(run_id)
    assert run.origin == "dashboard" and run.data_name == "reliability.csv" and run.recipe["level"] == "interval"
    data = (S / "krippendorff_2011.csv").read_bytes()
    assert run.inputs[0].sha256 == hashlib.sha256(data).hexdigest()
    alpha = run.report["panel"]["dimensions"][0]["alpha"]
    assert alpha["level"] == "interval" and alpha["permil"] == 849  # Krippendorff (2011): interval 0.849

    # "a reload": a fresh session with the same URL, nothing uploaded
    again = app({"run": run_id, "th": param(at, "th")[0]}, page="pages/panel.py")
    src = again.session_state["panel_source"]
    assert src.recipe.ratings[0].name == "reliability.csv" and src.recipe.ratings[0].data == data
    assert again.session_state["level"] == "interval"
    assert src.run == run_id and param(again, "run") == [run_id]
    first, second = text(at), text(again)
    assert "0.849" in second  # the same verdict numbers, at the same level
    for line in first.splitlines():
        if "alpha" in line and ("ENFORCE" in line or "REPORT_ONLY" in line):
            assert line in second
    with Store.open(db) as s:
        assert s.counts()["runs"] == 1  # restoring records nothing new


def test_run_link_restores_its_thresholds_and_a_bad_link_keeps_the_samples(db, capsys):
    assert main(["panel", str(S / "detector_panel.csv"), "--thresholds", str(S / "thresholds.toml"), "--preset",
                 "exploratory", "--record", "--db", db]) == 1
    run_id = capsys.readouterr().out.strip().splitlines()[-1].split()[1]
    at = app({"run": run_id})
    t = at.session_state["thresholds"]
    assert (t.panel.alpha_floor_permil, t.panel.ratio_cap_permil) == (400, 4000)
    assert "insult: ENFORCE" in text(at)
    assert "Decided under edited thresholds" in said(at.warning)

    bad = app({"run": "0123456789ab"})
    assert ("The link's run '0123456789ab' could not be opened: '0123456789ab' is not a run id (32 hex digits)"
            in said(bad.warning))
    assert bad.session_state["panel_source"].recipe.ratings[0].name == "detector_panel.csv"  # the sample stays


def test_history_timeline_of_three_runs_and_a_compare_that_names_the_reason(db, capsys):
    for extra in ([], ["--preset", "exploratory"], ["--preset", "release-gate"]):
        argv = ["panel", str(S / "detector_panel.csv"), "--thresholds", str(S / "thresholds.toml"), *extra,
                "--record", "--label", extra[-1] if extra else "defaults", "--db", db]
        main(argv)
    capsys.readouterr()
    at = app(page="pages/history.py")
    assert [h.value for h in at.subheader][:3] == ["3 of 3 runs", "Runs over time", "Compare two runs"]
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    fig = json.loads(charts[0].proto.spec)
    # alpha is drawn per level read ("violence (nominal)"), the spread per dimension: 3 x 2 lines, 3 runs each
    names = ("violence", "insult", "sexual", "violence (nominal)", "insult (nominal)", "sexual (nominal)")
    alpha_traces = [t for t in fig["data"] if t.get("name") in names]
    assert len(alpha_traces) == 6 and all(len(t["x"]) == 3 for t in alpha_traces)
    thresholds = [t for t in fig["data"] if t.get("name") == "threshold"]
    assert sorted(thresholds[0]["y"]) == [0.4, 0.6, 0.7]  # the floor in force at each run
    # Before: the second newest (exploratory: floor 0.400, cap 4.00x); after: the newest
    # (release-gate: floor 0.700, cap 1.50x). insult (alpha 0.431) passed 0.400 and fails 0.700.
    headline = said(at.error)
    assert headline.startswith("Regression: insult ENFORCE -> REPORT_ONLY.")
    assert "thresholds changed (alpha floor 0.400 -> 0.700; spread cap 4.00x -> 1.50x)" in headline
    rows = text(at)
    assert "now fails: threshold 0.400 -> 0.700 (thresholds changed)" in rows
    assert "insult: alpha unchanged at 0.431 (the same data)." in rows


def test_history_timeline_of_one_run_is_a_day_around_it_not_milliseconds(db, capsys):
    main(["panel", str(S / "krippendorff_2011.csv"), "--record", "--db", db])
    capsys.readouterr()
    with Store.open(db) as s:
        (run,) = s.runs()
    at = app(page="pages/history.py")
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    layout = json.loads(charts[0].proto.spec)["layout"]
    day, clock = run.created_utc[:10], run.created_utc[11:19]
    axes = [v for k, v in layout.items() if k.startswith("xaxis")]
    assert len(axes) == 2  # alpha's panel and the spread's, one shared time axis
    for x in axes:
        assert x["ticktext"] == [f"{day} {clock}"]  # the run's date and time, the one tick
        low, high = (datetime.fromisoformat(t) for t in x["range"])
        assert high - low == timedelta(days=1)

def test_open_and_delete_from_history(db, capsys):
    main(["calibrate", str(S / "judge_illustrative.json"), "--record", "--label", "pilot", "--db", db])
    main(["panel", str(S / "krippendorff_2011.csv"), "--record", "--db", db])
    capsys.readouterr()
    at = app(page="pages/history.py")
    with Store.open(db) as s:
        judge_run = next(r for r in s.runs() if r.kind == "judge")
    at.selectbox(key="history_pick").set_value(judge_run.id).run()
    at.button(key="history_open").click().run()
    assert not at.exception
    assert at.session_state["judge_source"].run == judge_run.id
    assert at.session_state["judge_source"].recipe.first.name == "judge_illustrative.json"

    at = app(page="pages/history.py")
    at.selectbox(key="history_pick").set_value(judge_run.id).run()
    at.button(key="history_delete").click().run()
    assert f"Deleted run {judge_run.id} (1 stored file no other run used)." in said(at.info)
    with Store.open(db) as s:
        assert [r.kind for r in s.runs()] == ["panel"] and s.counts()["blobs"] == 1


def test_a_foreign_database_is_a_message_and_the_dashboard_works(tmp_path, monkeypatch):
    foreign = tmp_path / "other.db"
    foreign.write_bytes(b"\x00garbage" * 100)
    digest = hashlib.sha256(foreign.read_bytes()).hexdigest()
    monkeypatch.setenv("AGREEBOUND_DB", str(foreign))
    store_module.forget_shared()
    try:
        at = app(page="pages/panel.py")
        upload_k2011_interval(at)  # measured and shown, though it cannot be recorded
        assert at.session_state["panel_source"].label == "upload: reliability.csv"
        assert at.session_state["panel_source"].run is None
        sidebar = said(at.sidebar.caption)
        assert "History unavailable:" in sidebar and "not an agreebound database" in sidebar
        at.switch_page("pages/history.py").run()
        assert not at.exception
        assert "No history here" in said(at.info)
    finally:
        store_module.forget_shared()
    assert hashlib.sha256(foreign.read_bytes()).hexdigest() == digest  # never overwritten


def test_record_this_view_with_a_label(db):
    at = app(page="pages/judge.py")
    at.text_input(key="record_label_judge").input("after the prompt fix").run()
    at.button(key="record_judge").click().run()
    assert not at.exception
    with Store.open(db) as s:
        runs = s.runs()
    assert [(r.kind, r.label, r.origin, r.verdict) for r in runs] == [
        ("judge", "after the prompt fix", "dashboard", "FAIL_CALIBRATION")]
    assert runs[0].recipe == {"source": "bundle", "judge": None, "rebind": False}


def test_data_from_a_run_that_cannot_be_checked_is_not_recorded_again(db, capsys):
    """Recording fails closed: data opened from a run that can no longer be checked (deleted here;
    on a team's server, also unshared since it was opened) is not copied into a new run."""
    assert main(["panel", str(S / "detector_panel.csv"), "--record", "--db", db]) in (0, 1, 2)
    run_id = last_run(capsys)
    at = app({"run": run_id}, page="pages/panel.py")
    with Store.open(db) as s:
        s.delete(run_id)
    at.button(key="record_panel").click().run()
    assert not at.exception
    assert (f"Not recorded: this data was opened from run {run_id}, which cannot be checked now (no run {run_id} "
            "that you can open") in said(at.warning)
    assert "Upload the file to record it anew." in said(at.warning)
    with Store.open(db) as s:
        assert s.runs() == []


def last_run(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1].split()[1]


def test_a_run_opens_with_its_positive_category_interval_and_dimension(db, capsys):
    # positive 3 recorded from the command line: REPORT_ONLY (spread 2.20x over the cap)
    assert main(["panel", str(S / "krippendorff_2011.csv"), "--positive", "3", "--record", "--db", db]) == 1
    at = app({"run": last_run(capsys)}, page="pages/panel.py")
    assert at.session_state["positive"] == 3  # the value the picker offers, not the text "3"
    at.run()  # a second rerun keeps it (the picker does not fall back to auto)
    assert at.session_state["positive"] == 3
    assert "all: REPORT_ONLY" in said(at.success) + said(at.error) + said(at.warning) + text(at)

    # --dimension sexual: the run opens on that dimension alone
    assert main(["panel", str(S / "detector_panel.csv"), "--dimension", "sexual", "--record", "--db", db]) == 0
    at = app({"run": last_run(capsys)}, page="pages/overview.py")
    assert at.session_state["panel_source"].recipe.dimension == "sexual"
    assert "**Panel: may be enforced at the nominal level (the default).**" in text(at)  # one dimension, as recorded (ENFORCE)
    dims = [plain(h.value) for h in at.subheader]
    assert "sexual" in dims and "violence" not in dims and "insult" not in dims


def test_a_run_opens_with_the_interval_it_was_recorded_with(db, capsys):
    assert main(["panel", str(S / "detector_panel.csv"), "--interval", "pairs", "--record", "--db", db]) == 1
    run_id = last_run(capsys)
    assert app({"run": run_id}, page="pages/panel.py").session_state["interval"] == "pairs"
    # a run recorded before the pairs interval had its name carries "krippendorff": it opens with pairs
    with Store.open(db) as s:
        run = s.get(run_id)
        old = s.record("panel", s.inputs(run), run.report, {**run.recipe, "interval": "krippendorff"}, run.thresholds,
                       run.thresholds_source)
    assert app({"run": old.id}, page="pages/panel.py").session_state["interval"] == "pairs"


def test_a_panel_run_and_a_judge_run_in_one_link_keep_their_own_thresholds(db, capsys):
    main(["panel", str(S / "detector_panel.csv"), "--thresholds", str(S / "thresholds.toml"), "--preset", "exploratory",
          "--record", "--db", db])
    panel_run = last_run(capsys)
    main(["calibrate", str(S / "judge_failing.json"), "--record", "--db", db])
    judge_run = last_run(capsys)
    at = app({"run": [panel_run, judge_run]})
    t = at.session_state["thresholds"]
    assert (t.panel.alpha_floor_permil, t.panel.ratio_cap_permil) == (400, 4000) and t.calibration is None
    assert at.session_state["judge_source"].run == judge_run
    assert "insult: ENFORCE" in text(at)


def test_the_reading_changed_after_recording_survives_a_reload(db):
    at = app(page="pages/panel.py")
    upload_k2011_interval(at)
    run_id = at.session_state["panel_source"].run
    at.radio(key="interval_widget").set_value("pairs").run()  # recorded with the default, units
    assert param(at, "interval") == ["pairs"] and param(at, "level") == ["interval"]
    again = app({"run": run_id, "th": param(at, "th")[0], "level": "interval", "interval": "pairs"},
                page="pages/panel.py")
    assert again.session_state["interval"] == "pairs" and again.session_state["level"] == "interval"
    # a link made before the pairs interval had its name: "krippendorff" is pairs
    old = app({"run": run_id, "level": "interval", "interval": "krippendorff"}, page="pages/panel.py")
    assert old.session_state["interval"] == "pairs" and param(old, "interval") == ["pairs"]
    bad = app({"run": run_id, "level": "fancy"}, page="pages/panel.py")
    assert "The link's reading was ignored: level must be auto or one of" in said(bad.warning)


def test_a_database_failing_mid_session_is_said_on_the_history_page(db, capsys, monkeypatch):
    main(["panel", str(S / "krippendorff_2011.csv"), "--record", "--db", db])
    capsys.readouterr()

    def broken(self, *a, **k):
        raise store_module.StoreError(f"{self.where}: listing runs failed: cannot connect (server closed the connection)")

    monkeypatch.setattr(Store, "runs", broken)
    at = app(page="pages/history.py")
    assert "History unavailable:" in said(at.error) and "server closed the connection" in said(at.error)
    assert "No runs yet" not in said(at.info)


def audit_table(at: AppTest):
    (found,) = [d.value for d in at.dataframe if "did" in d.value.columns]
    return found


def test_the_single_user_is_the_admin_here_retention_asks_first_and_the_trail_shows_it(db, monkeypatch, capsys):
    """On this machine without sign-in the one user is the admin: the store's location, retention
    (with the count first, then a confirmation) and the audit trail are on the History page."""
    Store.open(db).close()  # created and migrated first: the runs below are dated in 2020
    times = iter(["2020-01-01T00:00:00.000000Z", "2020-01-02T00:00:00.000000Z"])
    monkeypatch.setattr(store_module, "now_utc", lambda: next(times))
    for name in ("detector_panel.csv", "krippendorff_2011.csv"):
        assert main(["panel", str(S / name), "--record", "--db", db]) in (0, 1)
    monkeypatch.undo()
    monkeypatch.setenv("AGREEBOUND_DB", db)
    at = app(page="pages/history.py")
    assert "Single-user mode: no sign-in; every run here is yours." in said(at.caption)
    assert f"Runs are recorded in {db}." in said(at.caption)
    assert "2 runs recorded more than 365 days ago would be deleted." in said(at.caption)
    trail = audit_table(at)
    assert list(trail["did"]) == ["record", "record"] and list(trail["who"]) == ["local", "local"]
    at.button(key="prune_now").click().run()
    assert "Deleted 2 runs recorded more than 365 days ago (2 stored files freed); the audit trail keeps their " \
           "tombstones." in said(at.info)
    trail = audit_table(at)
    assert list(trail["did"])[:2] == ["prune", "prune"]
    assert set(trail["what"][:2]) == {"detector_panel.csv · REPORT_ONLY", "krippendorff_2011.csv · ENFORCE"}
    with Store.open(db) as s:
        assert s.counts()["runs"] == 0


def test_two_judge_logs_compared_show_the_drift_split_under_a_tolerance_slider(db, capsys, tmp_path, monkeypatch):
    """Issue 55: the History page splits two judge logs' change on their anchor items (the same
    candidate text in both runs); the tolerance is threshold data: its slider edits the thresholds
    in force (so the link carries it), and a link's [drift] table sets it. The logs are read and
    measured once: a slider move only decides again."""
    from agreebound.ui import history_drift
    from tests.judge.test_drift import scores_csv

    measured: list[str] = []
    real = history_drift.measure_anchor_drift
    monkeypatch.setattr(history_drift, "measure_anchor_drift",
                        lambda a, b, *inputs: measured.append(b.id) or real(a, b, *inputs))

    before = scores_csv(tmp_path / "before.csv", 0, set())
    lenient = scores_csv(tmp_path / "after.csv", 1, {10, 11})  # the judge's shift: exactly +1 on 10 anchors
    assert main(["calibrate", before, "--record", "--db", db]) in (0, 1, 2)
    assert main(["calibrate", lenient, "--record", "--db", db]) in (0, 1, 2)
    capsys.readouterr()
    at = app(page="pages/history.py")  # compared by default: the newest run against the one before it
    assert ("Judge drift: the judge changed: its shift on the anchor items lies beyond the tolerance (+-0.050), so "
            "part of the change between the runs is the judge's, not the systems'." in said(at.error))
    assert "the judge's shift +1.000 [+1.000, +1.000] over 10 anchor items" in text(at)
    assert at.slider(key="slider_judge_shift_tolerance_permil").value == 50

    ok(at.number_input(key="number_judge_shift_tolerance_permil").set_value(1000).run())
    assert at.session_state["thresholds"].drift.judge_shift_tolerance_permil == 1000
    assert ("Judge drift: no judge change shown: the judge's shift on the anchor items lies within the tolerance "
            "(+-1.000)." in said(at.success))
    assert json.loads(param(at, "th")[0])["drift"] == {"judge_shift_tolerance_permil": 1000}
    assert "judge shift tolerance 1.000 (100 points of a win rate) (default 0.050 (5 points of a win rate))" in \
        said(at.warning)  # the banner of edited thresholds names it
    ok(at.slider(key="slider_judge_shift_tolerance_permil").set_value(120).run())
    assert "lies beyond the tolerance (+-0.120)" in said(at.error)
    assert len(measured) == 1  # two slider moves and a number: decided again, never measured again

    shared = app({"th": json.dumps({"drift": {"judge_shift_tolerance_permil": 1000}})}, page="pages/history.py")
    assert "lies within the tolerance (+-1.000)" in said(shared.success)
    assert shared.slider(key="slider_judge_shift_tolerance_permil").value == 1000  # the track widened to reach it
    assert len(measured) == 1  # another session, the same stored logs: the measurement is shared


def test_two_judge_logs_without_anchor_items_say_so(db, capsys, tmp_path):
    def log(name: str, rewritten: bool) -> str:
        lines = ["item,rater,role,score,model,output"]
        lines += [f"item-{i},judge,judge,{3 + i % 4},**sys** <b>x</b>,answer {i}{' v2' if rewritten else ''}"
                  for i in range(12)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        return str(tmp_path / name)

    assert main(["calibrate", log("before.csv", False), "--record", "--db", db]) in (0, 1, 2)
    assert main(["calibrate", log("after.csv", True), "--record", "--db", db]) in (0, 1, 2)
    capsys.readouterr()
    at = app(page="pages/history.py")
    assert said(at.warning).startswith("No anchor items: no item has the same candidate text in both runs, so the "
                                       "change cannot be split")
    assert "Judge drift: no anchors: items with the same candidate text in both runs are needed" in said(at.warning)
    assert "- **sys** <b>x</b>: mean score 4.500 -> 4.500, change +0.000" in text(at)
    raw = "\n".join(m.value for m in at.markdown)
    assert "**sys**" not in raw and "<b>" not in raw  # user text escaped, never markup
    assert not [s for s in at.slider if s.key == "slider_judge_shift_tolerance_permil"]  # nothing to tolerate
