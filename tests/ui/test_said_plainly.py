"""Said plainly, on every screen (issue 22, section 4): samples are called samples, a run shows
the level it was read at and the same upload opens the same run, the timeline draws a line per
level."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest  # noqa: F401  (the type the helpers return)

from agreebound.app.history import timeline
from agreebound.app.store import Store

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
from tests.support.apptest import app, plain, text


def test_samples_are_called_samples_on_the_overview_and_beside_each_verdict(db):
    at = app()
    body = text(at)
    assert "Panel (sample data): 1 of 3 dimensions may be enforced at the nominal level (the default)." in body
    assert "Judge (sample data): " in body
    assert "Sample data: the panel and the judge verdicts below are about bundled samples, not your data." in \
        plain(" ".join(c.value for c in at.caption))
    assert "(sample data, not yours)" in plain(" ".join(c.value for c in at.caption))
    # a link that could not be opened falls back to the samples, and says they are samples
    broken = app(query={"run": "000000000000"})
    assert "Panel (sample data):" in text(broken)


def test_an_upload_is_not_a_sample(db):
    at = app("pages/panel.py")
    at.file_uploader(key="ratings_upload").set_value(("mine.csv", (S / "krippendorff_2011.csv").read_bytes(),
                                                     "text/csv")).run()
    at.button(key="pv_measure").click().run()
    assert not at.exception
    assert "(sample data" not in plain(" ".join(c.value for c in at.caption))
    at.switch_page("pages/overview.py").run()
    assert "Panel: may be enforced at the nominal level (the default)" in text(at)


def test_the_same_upload_read_the_same_way_opens_its_run_and_runs_show_the_level_read(db):
    data = (S / "krippendorff_2011.csv").read_bytes()
    at = app("pages/panel.py")
    for name in ("k.csv", "k.csv"):
        at.file_uploader(key="ratings_upload").set_value((name, data, "text/csv")).run()
        at.button(key="pv_measure").click().run()
        assert not at.exception
    first = at.session_state["panel_source"].run
    with Store.open(db) as s:
        runs = s.runs()
    assert [r.id for r in runs] == [first]  # the second upload opened the first run
    assert runs[0].recipe["level_read"] == "nominal"
    at.button(key="level_switch_all").click().run()  # read as ordinal: another reading, another run
    at.file_uploader(key="ratings_upload").set_value(("k.csv", data + b"\n", "text/csv")).run()
    at.selectbox(key="pv_level").set_value("ordinal").run()
    at.button(key="pv_measure").click().run()
    with Store.open(db) as s:
        runs = s.runs()
    assert [r.recipe["level_read"] for r in runs] == ["ordinal", "nominal"]
    at.switch_page("pages/history.py").run()
    table = at.dataframe[0].value
    assert list(table["level"]) == ["ordinal", "nominal"]
    rows = timeline(runs)
    assert sorted({r["scope"] for r in rows if r["gate"] == "alpha"}) == ["all (nominal)", "all (ordinal)"]


def test_a_human_study_is_told_in_raters(db):
    at = app("pages/panel.py")
    data = b"unit,human_ann,human_bob\nu1,1,2\nu2,2,2\nu3,1,1\n"
    at.file_uploader(key="ratings_upload").set_value(("study.csv", data, "text/csv")).run()
    at.button(key="pv_measure").click().run()
    assert not at.exception
    assert at.metric[2].label == "independent raters"
    assert "detectors" not in " ".join(e.value for alerts in (at.warning, at.success, at.error) for e in alerts)


# 8 rows, one rating each; u2/b is empty and u3/a is "NA" (tests/render/test_unrated_rows.py: the reports)
UNRATED = b"unit,rater,value\nu1,a,1\nu1,b,1\nu2,a,2\nu2,b,\nu3,a,NA\nu3,b,3\nu4,a,1\nu4,b,2\n"
UNRATED_SAID = ("8 rows read (rows 2-9); 2 of them have no value (an empty cell or a missing-value code) and "
                "gave no rating")


def test_rows_without_a_value_are_said_under_the_panel_verdict(db):
    at = app("pages/panel.py")
    at.file_uploader(key="ratings_upload").set_value(("m.csv", UNRATED, "text/csv")).run()
    at.button(key="pv_measure").click().run()
    assert not at.exception
    assert UNRATED_SAID in plain(" ".join(c.value for c in at.caption))
