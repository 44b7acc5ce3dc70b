"""The Judge page with what evaluation harnesses write: logs, partial audits, references added
later, a log of another shape with its mapping, "bind to this contract", the contract editor; and
the template downloads on the Formats & help page."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agreebound.io import templates
from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT
from agreebound.ui import data
from tests.support import apptest
from tests.support.apptest import shown

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
LOGS = S / "judge_logs"


def judge_page() -> AppTest:
    return apptest.app("pages/judge.py")


def upload(at: AppTest, key: str, path: Path, name: str | None = None, payload: bytes | None = None) -> None:
    apptest.upload(at, key, name or path.name, payload if payload is not None else path.read_bytes(), "application/json")


def rates(at: AppTest) -> dict[str, tuple[str, str]]:
    """The gate table (a text table: its cells and headers are Markdown, escaped) as a user reads it."""
    table = next(t.value.rename(columns=shown).map(shown) for t in at.table if "rate" in map(shown, t.value.columns))
    return {r["rate"]: (r["measured"], r["gate"]) for _, r in table.iterrows()}


NO_CONTRACT = "INCOMPLETE: no contract: measured against illustrative limits (not decided, never a pass)"


def test_a_log_alone_is_not_decided_then_its_human_votes_and_its_contract_make_it_a_partial_audit_that_fails():
    """Without a contract nothing is decided (issue 22: no contract, no verdict); the measured gates
    are shown against illustrative limits, and the contract, once given, decides."""
    at = judge_page()
    upload(at, "bundle_upload", LOGS / "alpaca_eval_annotations.json")
    assert [w.value for w in at.warning] == [NO_CONTRACT]
    assert rates(at)["Position flip"] == ("not evaluable: the source does not say in which order the candidates were "
                                          "shown (only a log that records each judgment's order supplies it: this "
                                          "source never can)", "not evaluable")
    assert any("No contract was given" in i.value for i in at.info)
    upload(at, "bundle_upload", LOGS / "mt_bench_gpt-4_pair.jsonl")
    assert [w.value for w in at.warning] == [NO_CONTRACT]
    assert [e.value for e in at.error] == []  # position flip 48/142 is far outside the limit: still not a FAIL
    r = rates(at)
    assert r["Position flip"] == ("48/142 = 33.80% (3380 bps)", "outside the illustrative limit")
    assert r["Human agreement"][1] == "not evaluable"
    upload(at, "log_references_upload", LOGS / "mt_bench_human_judgments.jsonl")
    r = rates(at)
    assert r["Human agreement"] == ("188/254 = 74.02% (7402 bps)", "outside the illustrative limit")
    assert r["Verbosity bias"][0].startswith("not evaluable: the source has no candidate lengths (the answers' texts "
                                             "supply them")
    caption = next(shown(c.value) for c in at.caption if c.value.startswith("Loaded:"))
    assert caption.startswith("Loaded: upload: mt_bench_gpt-4_pair.jsonl (+ mt_bench_human_judgments.jsonl): 144 cases")
    assert "- human agreement with ties 188/254" in " ".join(m.value for m in at.markdown)
    # the contract, given: decided against it (position flip alone fails it)
    contract = replace(ILLUSTRATIVE_CONTRACT, scope="mt-bench-pairs", judge_generator="gpt-4", minimum_cases=1)
    header = {"scope": contract.scope, "contract_content_id": contract.content_id, "rubric_digest": "0" * 64}
    upload(at, "log_contract_upload", LOGS / "x", "contract.json", templates.contract_json(contract, header).encode())
    assert [e.value for e in at.error] == ["FAIL_CALIBRATION"] and [w.value for w in at.warning] == []
    assert rates(at)["Position flip"] == ("48/142 = 33.80% (3380 bps)", "FAIL")
    assert "the **bound** contract: `judge-calibration@sha256:" in " ".join(m.value for m in at.markdown)


def test_a_log_of_another_shape_waits_for_its_mapping_then_gets_the_seeds_audit():
    at = judge_page()
    upload(at, "bundle_upload", LOGS / "other_harness.jsonl")
    assert shown(at.error[0].value).startswith("other_harness.jsonl: JSON Lines that are not a shape this version knows")
    upload(at, "log_mapping_upload", LOGS / "other_harness.mapping.json")
    assert not at.session_state["judge_unmapped"]
    upload(at, "log_references_upload", S / "judge_failing_references.csv")
    upload(at, "log_contract_upload", S / "judge_failing_contract.json")
    r = rates(at)  # exactly the failing sample's bundle
    assert r["Human agreement"] == ("926/1440 = 64.31% (6431 bps)", "FAIL")
    assert r["Self-preference"] == ("95/168 = 56.55% (5655 bps)", "FAIL")
    assert "the **bound** contract: `judge-calibration@sha256:60428a8c" in " ".join(m.value for m in at.markdown)


def test_an_unbound_snapshot_names_the_expected_id_and_can_be_bound_as_a_draft():
    bundle = json.loads(templates.bundle())
    stale = replace(ILLUSTRATIVE_CONTRACT, maximum_position_flip_bps=400).content_id
    bundle["snapshot"]["contract_content_id"] = stale
    at = judge_page()
    upload(at, "bundle_upload", LOGS / "x", "stale.json", json.dumps(bundle).encode())
    error = shown(at.error[0].value)
    assert "snapshot is not bound to this contract content" in error
    assert ILLUSTRATIVE_CONTRACT.content_id.split(":")[1] in error and "this contract's content id" in error
    at.button(key="bind_contract").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == ["PASS_CALIBRATION"]
    assert any(stale.split(":")[1] in w.value and "Bound as a draft" in w.value for w in at.warning)
    assert at.session_state["judge_source"].recipe.rebind is True
    assert widgets_report(at)["calibration"]["snapshot"]["rebound_from"] == stale


def widgets_report(at: AppTest) -> dict:
    from agreebound.render.report import calibration_report
    from agreebound.judge.decide import decide

    src = at.session_state["judge_source"]
    assert src.recipe.rebind and src.recipe.judge is None
    b = data.measured_judge(src.recipe)
    f = src.recipe.first
    return calibration_report(b, decide(b.measurement, at.session_state["thresholds"].calibration), at.session_state["thresholds"], [(f.name, f.digest)])


def test_contract_editor_computes_the_content_id_live():
    at = judge_page()
    loaded = at.session_state["ce_loaded"]
    assert at.code[-1].value == loaded  # starts as the loaded contract
    at.number_input(key="ce_maximum_position_flip_bps").set_value(1200).run()
    contract = data.measured_judge(at.session_state["judge_source"].recipe).contract
    expected = replace(contract, maximum_position_flip_bps=1200).content_id
    assert expected != loaded and at.code[-1].value == expected
    at.text_input(key="ce_scope").set_value("Not An Id").run()
    assert "Not a valid contract yet: contract.scope must be a canonical identifier" in [shown(e.value) for e in at.error]
    at.button(key="ce_reset").click().run()
    assert at.code[-1].value == loaded


def test_help_page_offers_every_template():
    at = apptest.app("pages/help.py")
    assert not at.exception
    keys = {e.key for e in at.get("download_button")}
    assert keys == {f"template_{t.key}" for t in templates.TEMPLATES}


def test_each_gate_says_which_of_the_audits_cases_it_counts_and_why_the_others_are_left_out():
    """Issue 54, item 9: adjacent gate rows give different case counts (128, 142, 14 of 144 on
    MT-Bench's sample); each row says which cases it counts and why the rest are left out."""
    at = judge_page()
    upload(at, "bundle_upload", LOGS / "mt_bench_gpt-4_pair.jsonl")
    upload(at, "log_references_upload", LOGS / "mt_bench_human_judgments.jsonl")
    table = next(t.value.rename(columns=shown).map(shown) for t in at.table if "rate" in map(shown, t.value.columns))
    which = dict(zip(table["rate"], table["which cases"]))
    assert which["Human agreement"] == "128 of 144: those with a human reference; 16 left out: no human reference"
    assert which["Position flip"] == ("142 of 144: those with one verdict in each order (each order's repetitions "
                                      "agree); 2 left out: an order missing or its repetitions split")
    assert which["Self-preference"].startswith("14 of 144: those where the humans preferred the candidate that is "
                                               "not the judge's own; 130 left out")
    assert which["Verbosity bias"] == ""  # not evaluable here: no candidate lengths
