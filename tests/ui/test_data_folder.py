"""A large data set from the server's data folder: only what the folder holds is offered (long
ratings; no hidden files, no links out of it), it is measured out of core with DuckDB to the same
verdicts as in memory, and a threshold move afterwards only decides."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from agreebound.ui import data
from tests.support import apptest
from tests.support.apptest import open_panel

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    rows = [line.split(",") for line in (S / "detector_panel.csv").read_text().splitlines()[1:]]
    parts = tmp_path / "weekly"
    parts.mkdir()
    for i in range(3):
        chunk = rows[i::3]
        pq.write_table(pa.table({k: [r[j] for r in chunk] for j, k in enumerate(("dimension", "unit", "rater", "value"))}),
                       parts / f"part-{i}.parquet")
    pq.write_table(pa.table({"unit": ["x"], "rater": ["y"], "value": ["1"]}), parts / ".secret.parquet")
    (tmp_path / "wide.csv").write_text("unit,a,b\nu1,1,2\n")  # not long: not offered
    (tmp_path / ".hidden.csv").write_text("unit,rater,value\nu,a,1\n")
    outside = tmp_path.parent / "outside.csv"
    outside.write_text("unit,rater,value\nu,a,1\n")
    os.symlink(outside, tmp_path / "link.csv")  # leads out of the folder: not offered
    (tmp_path / "ratings.csv").write_bytes((S / "detector_panel.csv").read_bytes())
    monkeypatch.setenv("AGREEBOUND_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AGREEBOUND_DB", "off")
    return tmp_path


DIMENSIONS = ("violence", "insult", "sexual")


def verdicts(at: AppTest) -> tuple[list[str], str]:
    """The Panel page's line of every dimension's verdict (sorted: DuckDB lists the dimensions in
    another order), and the open tab's verdict banner."""
    line = next(m.value for m in at.markdown if " · " in m.value)
    return sorted(line.split(" · ")), " ".join(a.value for a in [*at.success, *at.warning, *at.error] if "at the nominal level" in a.value)


def test_only_long_files_inside_the_folder_are_offered(folder):
    assert sorted(data.folder_entries()) == ["ratings.csv", "weekly/*.parquet"]
    assert [Path(f).name for f in data.folder_entries()["weekly/*.parquet"]] == [f"part-{i}.parquet" for i in range(3)]


def test_parts_measured_with_duckdb_give_the_in_memory_verdicts(folder):
    at = apptest.app("pages/panel.py")
    memory = {dim: verdicts(open_panel(at, dim)) for dim in DIMENSIONS}  # each tab's banner, opened
    at.selectbox(key="folder_pick").set_value("weekly/*.parquet").run()
    at.button(key="folder_measure").click().run()
    assert not at.exception
    assert at.session_state["panel_source"].label == "data folder: weekly/*.parquet"
    counted = {dim: verdicts(open_panel(at, dim)) for dim in DIMENSIONS}
    assert counted == memory and "sexual: ENFORCE at the nominal level" in counted["sexual"][1]
    assert counted["violence"][0] == ["insult: REPORT_ONLY (report only)", "sexual: ENFORCE (may be enforced)",
                                      "violence: REPORT_ONLY (report only)"]
    calls = dict(data.MEASURE_CALLS)
    at.switch_page("pages/whatif.py").run()
    at.slider(key="slider_alpha_floor_permil").set_value(400).run()
    assert dict(data.MEASURE_CALLS) == calls  # a slider only decides
    assert not at.exception


def test_per_rater_diagnostics_of_folder_data_on_request(folder):
    at = apptest.app("pages/panel.py")
    memory_tables = [t.value for t in open_panel(at, "sexual", "diagnostics").dataframe]
    at.selectbox(key="folder_pick").set_value("ratings.csv").run()
    at.button(key="folder_measure").click().run()
    calls = data.MEASURE_CALLS["diagnostics"]
    open_panel(at, "sexual", "diagnostics")  # the folder's dimensions come in another order: its own tabs
    at.button(key="folder_diag_sexual").click().run()
    assert not at.exception
    assert data.MEASURE_CALLS["diagnostics"] == calls + 1  # one dimension, when asked
    loo = [t.value for t in at.dataframe if list(t.value.columns) == ["without", "alpha"]]
    assert len(loo) == 1
    # the in-memory page showed the same leave-one-out alphas for sexual (raters in another order)
    mem = [t for t in memory_tables if list(t.columns) == ["without", "alpha"]]
    assert any(sorted(zip(m["without"], m["alpha"])) == sorted(zip(loo[0]["without"], loo[0]["alpha"])) for m in mem)


def test_the_annotation_study_of_folder_data_on_request_equals_the_in_memory_one(folder):
    """The sample panel opened from the data folder (read with DuckDB): on request, DuckDB returns the
    unit, rater, value counts and the page shows the study the uploaded sample shows."""
    at = apptest.app("pages/panel.py")
    open_panel(at, "violence", "study")
    memory = [t.value for t in at.dataframe if "the model says" in t.value.columns]
    at.selectbox(key="folder_pick").set_value("ratings.csv").run()
    at.button(key="folder_measure").click().run()
    calls = data.MEASURE_CALLS["study"]
    open_panel(at, "violence", "study")
    assert not any("the model says" in t.value.columns for t in at.dataframe)  # not before it is asked for
    at.button(key="study_go_violence").click().run()
    assert not at.exception and data.MEASURE_CALLS["study"] == calls + 1
    counted = [t.value for t in at.dataframe if "the model says" in t.value.columns]
    assert len(counted) == len(memory) == 1 and counted[0].equals(memory[0])
    assert list(counted[0]["skill"]) == ["0.334", "0.295", "0.230", "0.387"]
