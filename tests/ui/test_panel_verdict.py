"""The Panel page says a verdict once (issue 54, items 3-5): one box per dimension holding the
verdict with its plain words, the level, why and how sure; what the specification's integer formula
or another level would say is a detail under it; permil, q and exact fractions sit behind "Exact
values"; a study of raters reads "raters" and a detector panel "detectors"."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1.element_tree import Block, Expander

from tests.support.apptest import app, ok, shown, tables
from tests.support.panels import goniometer

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
K2011 = "Krippendorff (2011) reliability data"
SINGLE = "Single detector (refused structurally)"
EXACT = "Exact values"
ALERTS = ("success", "warning", "error", "info")
TEXT = ("markdown", "caption", *ALERTS)


def _walk(node, inside_exact: bool = False):
    """(element type, text, inside an "Exact values" expander) of every element under ``node``."""
    for child in getattr(node, "children", {}).values():
        if isinstance(child, Expander):
            yield "expander", child.label, inside_exact
            yield from _walk(child, inside_exact or child.label.startswith(EXACT))
        elif isinstance(child, Block):
            yield from _walk(child, inside_exact)
        elif child.type in TEXT or child.type == "alert":
            yield getattr(child, "type", ""), shown(child.value), inside_exact
        elif child.type == "metric":
            yield "metric", f"{child.label} {child.value}", inside_exact


def _main(at) -> list[tuple[str, str, bool]]:
    return list(_walk(at.main))


def _boxes(at) -> list[str]:
    return [shown(e.value) for kind in ALERTS for e in getattr(at.main, kind)]


def _sample(label: str):
    at = app("pages/panel.py")
    return ok(at.selectbox(key="panel_sample").set_value(label).run())


def test_a_study_of_raters_reads_raters_and_a_detector_panel_detectors():
    at = _sample(K2011)
    said = "\n".join(t for _, t, _ in _main(at)) + "\n" + "\n".join(
        " ".join(map(str, t.columns)) for t in tables(at))
    assert "independent raters 4" in said and "rater spread not measured" in said
    assert "4 raters: observer-a, observer-b, observer-c, observer-d." in said
    assert "detector" not in said.lower(), [line for line in said.splitlines() if "detector" in line.lower()]
    assert "human raters" not in said
    # the detector panel sample and the single detector keep the seed's words
    at = app("pages/panel.py")
    said = "\n".join(t for _, t, _ in _main(at))
    assert "independent detectors 3" in said and "detector spread 3.90x" in said
    assert "the highest detector's rate over the lowest" in said
    at = _sample(SINGLE)
    (box,) = _boxes(at)
    assert box.startswith("all: REFUSE_SINGLE at the nominal level (the default): fewer than two independent detectors.")


def test_one_box_per_dimension_with_why_and_how_sure():
    at = app("pages/panel.py")  # the detector panel: violence open
    (box,) = _boxes(at)
    assert box == ("violence: REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce."
                   "  \n**Why**: alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over."
                   "  \n**How sure**: alpha's 95% interval, 0.179 to 0.295, lies on one side of the floor 0.600")
    at = _sample(K2011)  # fragile: said in the same box, not in a box of its own
    (box,) = _boxes(at)
    assert box.startswith("all: ENFORCE at the nominal level (the default): reliable enough to act on.  \n**Why**: "
                          "4 independent raters, needs 2; alpha (nominal) 0.743, needs 0.600: 0.143 to spare; "
                          "spread not measured (it does not block).")
    assert "**How sure**: fragile: alpha's 95% interval 0.415 to 1.000 includes the floor 0.600, so another sample" in box
    # the spread not measured: one quiet line, without the seed's permil
    spread = [t for kind, t, _ in _main(at) if t.startswith("Spread not measured")]
    assert [kind for kind, t, _ in _main(at) if t.startswith("Spread not measured")] == ["caption"]
    assert spread == ["Spread not measured: there are no rater rates, so this gate does not block. To measure it, "
                      "choose a positive category or upload a rates CSV."]


def test_the_specifications_formula_and_other_levels_are_details_under_the_verdict():
    at = app("pages/panel.py")
    at.file_uploader(key="ratings_upload").set_value(("gonio.csv", goniometer(), "text/csv")).run()
    ok(at.button(key="pv_measure").click().run())
    ok(at.selectbox(key="level_widget").set_value("interval").run())
    (box,) = _boxes(at)
    assert box.startswith("all: ENFORCE at the interval level (chosen): reliable enough to act on.")
    assert "specification" not in box and "REPORT_ONLY" not in box and "permil" not in box
    details = [t for kind, t, exact in _main(at) if kind == "caption" and t.startswith("Detail")]
    assert details == [
        "Detail, other levels: at the nominal level alpha is 0.289, so it would be REPORT_ONLY (report only). The "
        "verdict above is the interval level's; the level table below shows every level.",
        "Detail, the specification's integer formula: it would decide REPORT_ONLY (report only) here (it rounds alpha "
        "to whole thousandths and counts units with one rating). Agreebound decides on the exact values; both sets of "
        "numbers are under Exact values."]
    seed = [t for _, t, exact in _main(at) if "integer alpha on this matrix is 289 permil" in t]
    assert len(seed) == 1 and "It would decide REPORT_ONLY (report only)" in seed[0]
    assert [exact for _, t, exact in _main(at) if t == seed[0]] == [True]  # only behind Exact values


def test_permil_q_and_fractions_only_behind_exact_values():
    for at in (app("pages/panel.py"), _sample(K2011), _sample(SINGLE)):
        outside = [t for kind, t, exact in _main(at) if not exact and kind != "expander"]
        inside = [t for kind, t, exact in _main(at) if exact]
        assert not [t for t in outside if "permil" in t or "q = P" in t or re.search(r"\b\d+/\d{2,}\b", t)], outside
        assert any("permil" in t for t in inside) and any("q = P(alpha < floor)" in t for t in inside)
    levels = tables(at)[0]
    assert "exact" not in levels.columns and list(levels["verdict"])[0] == "REFUSE_SINGLE (refused)"
