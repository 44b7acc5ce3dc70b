"""The Judge page's annotation section for a graded judge (issue 56): opened, each judge's scores mapped
onto the humans' scale with the error before and after and both decisions, the map to download, and a
rater model of the judges and the humans; a slider decides the mapped judge again without refitting."""

from __future__ import annotations

from tests.support import apptest
from tests.ui.test_scored import GRADED, app, pick_sample, said


def _open(at):
    at.session_state["scored_recal"] = True
    return apptest.ok(at.run())


def test_the_graded_sample_mapped_and_its_raters_modelled():
    at = _open(pick_sample(app(), GRADED))
    text = said(at)
    assert "judge-model: raw scores PASS_CALIBRATION, mapped scores PASS_CALIBRATION (under the thresholds in force)" in text
    assert "judge-b: raw scores FAIL_CALIBRATION, mapped scores FAIL_CALIBRATION (under the thresholds in force)" in text
    errors = [t.value for t in at.dataframe if "error (out of sample)" in t.value.columns]
    assert len(errors) == 2
    first = errors[0].set_index("error (out of sample)")
    assert (first.loc["mean absolute error", "before"], first.loc["mean absolute error", "after"]) == ("0.497", "0.473")
    assert first.loc["calibration error", "interval of the change"].endswith("(rough range, not 95%)")
    maps = [t.value for t in at.dataframe if "on the humans' scale" in t.value.columns]
    assert list(maps[0]["judge's score"]) == ["1", "2", "3", "4", "5"]
    assert list(maps[0]["on the humans' scale"]) == ["1.400", "2.414", "3.088", "3.852", "4.303"]
    buttons = {b.proto.label: b for b in at.get("download_button")}
    assert "The map of judge-model (JSON)" in buttons
    raters = next(t.value for t in at.dataframe if "the model says" in t.value.columns)
    assert list(raters["rater"])[:2] == ["judge-model", "judge-b"] and len(raters) == 5
    assert "judge-b says" in text and "where the 3 humans say" in text  # the first item: a judge alone
    assert not at.exception


def test_a_slider_decides_the_mapped_judge_again_without_refitting():
    from agreebound.scored import recalibrate as rc

    at = _open(pick_sample(app(), GRADED))
    calls = {"n": 0}
    original = rc.recalibrate

    def counted(*a, **k):
        calls["n"] += 1
        return original(*a, **k)

    rc.recalibrate = counted
    try:
        apptest.open_whatif(at.switch_page("pages/whatif.py"), "Graded judge")
        at.slider(key="slider_admissibility_margin_permil").set_value(300).run()
        at.slider(key="slider_judge_alpha_floor_permil").set_value(500).run()
        at.switch_page("pages/judge.py").run()
        at = _open(at)
    finally:
        rc.recalibrate = original
    assert calls["n"] == 0  # the maps are cached; only the decision is made again
    # judge-b's raw audit (admissibility -0.231, alpha 0.545) passes a margin of 0.300 and a floor of 0.500
    assert "judge-b: raw scores PASS_CALIBRATION" in said(at)
