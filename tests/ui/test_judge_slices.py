"""The Judge page's "By slice" section (agreebound.ui.judge_slices), drawn alone through AppTest:
the sample MT-Bench log's four templates, a failing slice marked, the method said; a data set
without a slice column says how to add one."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.support.apptest import said, shown, tables

ROOT = Path(__file__).resolve().parents[2]


def _script(kind: str, root_dir: str) -> None:
    from pathlib import Path

    from agreebound.app.pipeline import parse_judge_log, parse_judge_tables
    from agreebound.ui import judge_slices, state

    state.init()
    root = Path(root_dir)
    logs = root / "sample_data" / "judge_logs"
    if kind == "log":
        log, human = logs / "mt_bench_gpt-4_pair.jsonl", logs / "mt_bench_human_judgments.jsonl"
        bundle = parse_judge_log(log.name, log.read_bytes(), (human.name, human.read_bytes()))
    else:
        s = root / "sample_data"
        files = [s / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv")]
        bundle = parse_judge_tables(*[x for f in files for x in (f.name, f.read_bytes())])
    judge_slices.section(bundle)


def _run(kind: str) -> AppTest:
    at = AppTest.from_function(_script, args=(kind, str(ROOT)), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_sample_log_splits_by_template_and_says_the_method():
    at = _run("log")
    assert at.selectbox(key="slice_pick").options == ["template", "turn", "category"]
    assert at.selectbox(key="slice_pick").value == "template"
    text = said(at)
    assert "No contract: every slice is measured against illustrative limits" in text
    assert "Holm's step-down on the one-sided p-values" in text and "Bonferroni" in text
    cells = tables(at)[0].set_index("template")
    assert list(cells.index) == ["pair-math-v1", "pair-math-v1-multi-turn", "pair-v2", "pair-v2-multi-turn"]
    assert list(cells.columns) == ["cases", "Human agreement", "Position flip", "Repeat variance", "Verbosity bias",
                                   "Self-preference"]
    assert cells.loc["pair-v2", "cases"] == "60"
    assert cells.loc["pair-v2", "Verbosity bias"].startswith("not evaluable: the source has no candidate lengths")
    # position flip is far over the illustrative limit in every large slice: each confirmed, marked; without a
    # contract nothing is decided, so it is outside the limit, never a FAIL
    assert cells.loc["pair-v2", "Position flip"].startswith("OUTSIDE the limit: ")
    assert "template = pair-v2 is outside the illustrative limit on position flip: " in text
    assert " fails position flip" not in text
    at.selectbox(key="slice_pick").set_value("category").run()
    assert not at.exception
    assert list(tables(at)[0]["category"]) == ["reasoning", "roleplay", "writing"]


def test_a_data_set_without_slice_columns_says_how_to_add_one():
    at = _run("tables")
    assert "No slice column found: add one as a column beside the observation fields" in said(at)
    assert not at.selectbox


def test_the_what_if_page_says_which_slices_change_status_under_the_edited_thresholds():
    """Issue 55: the What-if page sweeps the slices too. MT-Bench's sample log (no contract: the
    illustrative limits) loaded on the Judge page; a position-flip maximum of 45% on the What-if page
    takes every template's flip rate (at most 41.7%) inside the limit, and the page names each."""
    from tests.support import apptest

    logs = ROOT / "sample_data" / "judge_logs"
    at = apptest.app("pages/judge.py")
    for key, name in (("bundle_upload", "mt_bench_gpt-4_pair.jsonl"), ("log_references_upload",
                                                                        "mt_bench_human_judgments.jsonl")):
        apptest.upload(at, key, name, (logs / name).read_bytes(), "application/json")
    at.switch_page("pages/whatif.py").run()
    assert not at.exception, at.exception
    assert any("no slice of the judge's data changes status" in c.value for c in at.caption)
    apptest.open_whatif(at, "Judge contract").slider(key="slider_maximum_position_flip_bps").set_value(4500).run()
    assert not at.exception, at.exception
    flipped = next(t.value for t in at.table if "slice" in list(t.value.columns))
    rows = {(shown(r["slice"]), r["gate"]): (r["own thresholds"], r["edited"]) for _, r in flipped.iterrows()}
    # no contract: a limit's side, never a FAIL
    assert rows[("template = pair-math-v1", "Position flip")] == ("outside the limit", "within the limit")
    assert rows[("template = pair-v2", "Position flip")] == ("outside the limit", "within the limit")
    assert len(rows) == 9  # 4 templates, 2 turns, 3 categories
    assert all(gate == "Position flip" for _, gate in rows)
