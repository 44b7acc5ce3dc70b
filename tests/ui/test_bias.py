"""Issue 24 on the dashboard: the Judge page's "Bias or disagreement?" and corrected headline, the
verdict read as bias or general disagreement, how many more cases would decide a fragile gate
(Overview, What-if), the net measures as information unless the contract gates on them."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from agreebound.io.judge_inputs import bundle_json
from agreebound.app.synthetic import PlantedDesign, PlantedJudge, planted_frames
from tests.support.apptest import app, open_whatif, said, shown, table_with, upload

ROOT = Path(__file__).resolve().parents[2]
PROMISE = "(80% probability that its 95% interval then lies on one side of the threshold)"


@lru_cache(maxsize=None)
def noisy_bundle(net_limit_bps: int | None = None, names: tuple[str, str] | None = None) -> bytes:
    """A judge with no length (or any) preference that disagrees with the humans on 30% of the
    cases, under a contract with a 5% verbosity limit (synthetic.validation_contract): 400 cases x
    2 orders x 2 repetitions, planted in exact proportions. ``net_limit_bps``: the contract also
    gates on the verbosity net of disagreement; ``names``: the two candidate models' names."""
    contract, refs, obs, header = planted_frames(PlantedJudge("noisy", disagreement=0.3),
                                                 PlantedDesign(n_cases=400, repetitions=2))
    if net_limit_bps is not None:
        contract = replace(contract, maximum_verbosity_net_bps=net_limit_bps)
        header = {**header, "contract_content_id": contract.content_id}
    if names is not None:
        rename = {"candidate-a": names[0], "candidate-b": names[1]}
        obs = obs.assign(candidate_a_generator=obs["candidate_a_generator"].replace(rename),
                         candidate_b_generator=obs["candidate_b_generator"].replace(rename))
    return bundle_json(contract, header, refs, obs).encode()


def upload_judge(at: AppTest, data: bytes, name: str = "noisy.json") -> AppTest:
    return upload(at, "bundle_upload", name, data, "application/json")


def test_the_judge_page_tells_bias_from_disagreement_on_the_failing_sample():
    at = app("pages/judge.py")
    assert "Bias or disagreement?" in [h.value for h in at.header]
    assert [s.value for s in at.subheader][:3] == ["Position", "Verbosity", "Self-preference"]
    text = said(at)
    # the three groups' sentences, with their numbers
    assert ("The judge picks the first-shown candidate in 55.7% [53.5, 57.9] of its decisive verdicts: a preference "
            "for the first slot (score test p < 0.0001, the test this interval inverts).") in text
    assert ("The excess attributable to length is 31.1 points [20.3, 41.0]: a length bias beyond general "
            "disagreement.") in text
    assert ("The excess attributable to self-preference is 16.4 points [1.3, 31.8]: a self-preference bias beyond "
            "the candidates' strength and general disagreement. It assumes the judge scales the humans' preference "
            "for its own candidate as it scales theirs on the other pairs (slope taken as 1: the model pairs' human "
            "preferences do not differ beyond their noise); the raw difference, P(judge picks own) - P(humans pick "
            "own), is +16.4 points.") in text
    # each measure: value, exact fraction, interval, test, definition
    verbosity = table_with(at, "measure", "Verbosity (the seed's)")
    assert list(verbosity.loc["Verbosity (the seed's)", ["measured", "exact", "95% interval"]]) == [
        "46.6%", "333/714", "[38.4, 55.1]"]
    assert list(verbosity.loc["Mirror error", ["measured", "exact"]]) == ["15.5%", "96/618"]
    assert list(verbosity.loc["Verbosity net of disagreement", ["measured", "exact", "95% interval"]]) == [
        "31.1 points", "333/714 - 96/618", "[20.3, 41.0]"]
    assert verbosity.loc["Mirror error", "what it counts"] == ("the judge picks the shorter candidate when the humans "
                                                               "preferred the longer")
    position = table_with(at, "measure", "First-slot rate")
    assert list(position.loc["First-slot rate", ["measured", "exact", "test"]]) == ["55.7%", "728/1307", "p < 0.0001"]
    assert position.loc["Directed flips favouring the first slot", "exact"] == "26/26"
    selfish = table_with(at, "measure", "Self-preference (the seed's)")
    assert list(selfish.loc["Control: picks the rejected candidate", ["measured", "exact"]]) == ["28.8%", "289/1002"]
    # the verdict's reading, next to the verdict
    (reading,) = [shown(i.value) for i in at.info if "Bias or disagreement?" in i.value]
    assert ("Fails the contract's verbosity limit; the excess attributable to length is 31.1 points [20.3, 41.0]: a "
            "length bias beyond general disagreement.") in reading
    assert "26 of the 26 decisive flips favour the first slot, 0 the second" in reading
    assert "They are not gates unless the contract says so" in text


def test_the_corrected_headline_is_a_table_per_model_pair():
    at = app("pages/judge.py")
    assert "The corrected headline" in [h.value for h in at.header]
    pairs = table_with(at, "model pair", "candidate-a vs candidate-b")
    assert list(pairs.loc["candidate-a vs candidate-b"]) == [
        "48.6% [42.1, 55.0]", "none: every case is labelled", "51.4% [44.4, 58.4]", "180 / 0", "-2.8 points"]
    assert pairs.loc["candidate-a vs judge-v1", "judge-only estimate off by"] == "-30.0 points"
    assert "Every case has a human reference: the human-only estimates are the headline" in said(at)


def test_the_headline_corrects_a_partial_log_with_its_gain():
    at = app("pages/judge.py")
    at.selectbox(key="judge_sample").set_value("MT-Bench judgments by gpt-4, with human votes (a partial audit)").run()
    assert not at.exception, at.exception
    pairs = table_with(at, "model pair", "claude-v1 vs gpt-4")
    assert list(pairs.loc["claude-v1 vs gpt-4"]) == [
        "43.8% [34.0, 53.5]", "51.3% [39.8, 62.7]", "51.2% [39.3, 63.0]", "43 / 5", "-7.5 points"]
    text = said(at)
    assert "the judge's verdicts are worth about 3 more human labels here" in text
    # a group this source cannot measure says why, once
    assert "Not measured: the source has no candidate lengths" in text


def test_a_noisy_but_unbiased_judge_fails_verbosity_and_the_page_says_it_is_disagreement():
    at = upload_judge(app("pages/judge.py"), noisy_bundle())
    gates = table_with(at, "rate", "Human agreement")
    assert list(gates.loc["Verbosity bias", ["measured", "gate"]]) == ["196/648 = 30.25% (3025 bps)", "FAIL"]
    verbosity = table_with(at, "measure", "Verbosity (the seed's)")
    assert list(verbosity.loc["Verbosity net of disagreement", ["measured", "exact", "95% interval"]]) == [
        "0.0 points", "196/648 - 196/648", "[-9.9, 9.9]"]  # the interval holds 0
    (reading,) = [shown(i.value) for i in at.info if "Bias or disagreement?" in i.value]
    assert ("Fails the contract's verbosity limit; the excess attributable to length is 0.0 points [-9.9, 9.9]: "
            "the failure is mostly general disagreement.") in reading
    assert ("The excess attributable to length is 0.0 points [-9.9, 9.9]: indistinguishable from none; what the "
            "raw rate counts is mostly general disagreement.") in said(at)
    at.switch_page("pages/overview.py").run()
    assert "the failure is mostly general disagreement" in said(at)


def test_the_overview_says_how_many_more_cases_would_decide_a_fragile_gate():
    at = app("pages/judge.py")
    at.selectbox(key="judge_sample").set_value("The seed's illustrative snapshot, 4 cases").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    captions = [shown(c.value) for c in at.caption]
    assert f"Fragile: about 31 more cases would decide it, if the rate holds {PROMISE}." in captions
    assert f"Fragile: about 69 more cases would decide it, if the rate holds {PROMISE}." in captions
    # a panel gate: the units that would decide alpha (sexual's 0.779 against a 0.800 floor)
    at = app(th=json.dumps({"panel": {"alpha_floor_permil": 800, "ratio_cap_permil": 2000}}))
    plans = [c for c in (shown(c.value) for c in at.caption) if c.startswith("Fragile: about ")]
    assert plans == [f"Fragile: about 5,600 more units would decide it, if alpha holds {PROMISE}."]


def test_what_if_reads_the_net_measures_as_information_and_updates_the_reading():
    at = app("pages/whatif.py")
    strip = said(at)
    assert ("verbosity net of disagreement 31.1 points [20.3, 41.0]: information, not a gate unless the contract says "
            "so") in strip
    assert ("*bias or disagreement?* Fails the contract's verbosity limit; the excess attributable to length is 31.1 "
            "points [20.3, 41.0]: a length bias beyond general disagreement.") in strip
    open_whatif(at, "Judge contract").slider(key="slider_maximum_verbosity_bias_bps").set_value(5000).run()  # 46.6% <= 50%
    assert not at.exception, at.exception
    strip = said(at)
    assert "Fails the contract's verbosity limit" not in strip
    assert "Fails the contract's self-preference limit" in strip


def test_a_contract_that_gates_on_the_net_measure_shows_it_with_the_other_gates():
    at = upload_judge(app("pages/judge.py"), noisy_bundle(net_limit_bps=500))
    gates = table_with(at, "rate", "Human agreement")
    assert list(gates.loc["Verbosity net of disagreement (contract gate)", ["measured", "gate", "margin"]]) == [
        "0.0 points", "pass", "5.0 points to spare"]
    assert "The contract in force gates on verbosity net of disagreement" in said(at)
    at.switch_page("pages/overview.py").run()
    text = said(at)
    assert ("**Verbosity net of disagreement** passes: verbosity net of disagreement 0.0 points, limit 5.0 points: "
            "5.0 points to spare (a contract gate (version 2), limit 500 bps). 95% interval -9.9 points to 9.9 points") in text
    assert ("Fragile: about 2,900 more cases (only 324 of the audit's 400 cases are eligible) would decide it, if the "
            "difference holds") in text
    at.switch_page("pages/whatif.py").run()
    strip = said(at)
    assert "verbosity net of disagreement 0.0 points, limit 5.0 points: 5.0 points to spare: passes" in strip
    assert "self-preference net of strength 1.7 points [-10.4, 15.3]: information, not a gate" in strip
    assert "verbosity net of disagreement 0.0 points [" not in strip  # a gate here, not information
    open_whatif(at, "Judge contract").slider(key="slider_maximum_verbosity_net_bps").set_value(0).run()  # exactly 0: passes
    assert not at.exception, at.exception
    assert "verbosity net of disagreement 0.0 points, limit 0.0 points: exactly at the threshold: passes" in said(at)


def test_model_names_with_markup_are_shown_as_text(monkeypatch):
    """Names reach the headline as the readers give them: canonical identifiers, which may still hold
    Markdown (an emoji code, underscores); and the page escapes whatever names it is given."""
    at = upload_judge(app("pages/judge.py"), noisy_bundle(names=("m-__bold__-n", "m-:rocket:")), "names.json")
    pairs = table_with(at, "model pair", "m-:rocket: vs m-__bold__-n")
    assert pairs.loc["m-:rocket: vs m-__bold__-n", "cases labelled / unlabelled"] == "280 / 0"
    assert "m-:rocket: vs m-__bold__-n: the judge alone gives m-:rocket: a win rate of" in said(at)
    raw = "\n".join(m.value for m in at.markdown)
    assert ":rocket:" not in raw and "__bold__" not in raw  # escaped wherever Markdown renders them

    from agreebound.judge import measure as calibration
    from agreebound.judge.headline import Headline, pair_headline

    cells = {("**x**", "<b>y</b>", True, 2, 4, 2): 3, ("**x**", "<b>y</b>", True, 2, 0, 0): 2,
             ("**x**", "<b>y</b>", True, 2, 4, 0): 1, ("**x**", "<b>y</b>", False, 2, 4, -1): 5,
             ("**x**", "<b>y</b>", False, 2, 0, -1): 1}  # agreebound.judge.headline's example
    pair = pair_headline("**x**", "<b>y</b>", cells.items())
    monkeypatch.setattr(calibration, "corrected_headline", lambda counts: Headline((pair,), "Any names."))
    st.cache_resource.clear()  # the sample's measurement, its headline computed, was cached above
    at = app("pages/judge.py")
    pairs = table_with(at, "model pair", "**x** vs <b>y</b>")
    assert list(pairs.loc["**x** vs <b>y</b>"]) == ["75.0% [50.5, 99.5]", "56.8% [23.4, 90.2]", "50.0% [10.0, 90.0]",
                                                      "6 / 6", "+18.2 points"]
    assert ("**x** vs <b>y</b>: the judge alone gives **x** a win rate of 75.0% [50.5, 99.5] over 12 cases" in said(at))
    raw = "\n".join(m.value for m in at.markdown)
    assert "**x**" not in raw and "<b>" not in raw
