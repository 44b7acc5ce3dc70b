"""The Panel page's order and recode control (issue 54, item 6): labels that look ordered are offered
at the ordinal level in their order, the order can be edited and applied, a label the order lacks
keeps the data with the reason said, and recoding merges labels; alpha is the ``krippendorff``
package's in the order in force."""

from __future__ import annotations

import re
from fractions import Fraction

from tests.io.test_category_order import EXPECTED, MATRIX, ORDER, csv_of, package_alpha
from tests.support.apptest import app, ok, texts, upload


def measured_alpha(at) -> Fraction:
    """The exact alpha the page states: "alpha = **0.6321 = p/q (632 permil)** ... (level)"."""
    body = " ".join(m.value for m in at.markdown)
    return Fraction(re.search(r"alpha = \*\*[-0-9.]+ = (-?\d+/\d+)", body).group(1))


def order_box(at):
    (box,) = [t for t in at.text_area if t.key.startswith("order_text_all_")]
    return box


def recode_box(at):
    (box,) = [t for t in at.text_area if t.key.startswith("recode_text_all_")]
    return box


def test_order_control_reads_labels_in_the_order_given():
    at = app("pages/panel.py")
    upload(at, "ratings_upload", "vision.csv", csv_of(MATRIX))
    ok(at.button(key="pv_measure").click().run())
    # labels that look ordered: nominal in force, ordinal offered in their order (shown in the box)
    assert "alpha (nominal level)" in [m.label for m in at.metric]
    assert order_box(at).value == "\n".join(ORDER)
    switch = at.button(key="level_switch_all")
    assert switch.label == "These labels look ordered. Read as ordinal in the order shown below?"
    ok(switch.click().run())
    assert not at.error, texts(at.error)
    assert "alpha (ordinal level)" in [m.label for m in at.metric]
    assert abs(float(measured_alpha(at)) - EXPECTED) < 1e-12
    assert any("categories in the order given, lowest first" in c for c in texts(at.caption))
    # another order, edited in the box: the package's alpha in that order
    swapped = ["2nd grade", "1st grade", "3rd grade", "4th Grade"]
    order_box(at).set_value("\n".join(swapped))
    ok(at.button(key="order_apply_all").click().run())
    assert abs(float(measured_alpha(at)) - package_alpha(MATRIX, swapped)) < 1e-12
    # a label the order lacks: the data read before is kept, the reason named
    order_box(at).set_value("\n".join(ORDER[:3]))
    ok(at.button(key="order_apply_all").click().run())
    (error,) = texts(at.error)
    assert "1 label not in the order given: '4th Grade'" in error and "(the data loaded before is still shown)" in error
    assert abs(float(measured_alpha(at)) - package_alpha(MATRIX, swapped)) < 1e-12
    # recoding merges: 4th Grade as 3rd grade, the order without it
    order_box(at).set_value("\n".join(ORDER[:3]))
    recode_box(at).set_value("4th Grade = 3rd grade")
    ok(at.button(key="order_apply_all").click().run())
    assert not at.error, texts(at.error)
    merged = [[None if v is None else ("3rd grade" if v == "4th Grade" else v) for v in row] for row in MATRIX]
    assert abs(float(measured_alpha(at)) - package_alpha(merged, ORDER[:3])) < 1e-12
    assert any("recoded" in c and "4th Grade" in c for c in texts(at.caption))
    # a label recoded twice is refused and named (not the last line kept), the data read before kept
    recode_box(at).set_value("4th Grade = 3rd grade\n4th Grade = 2nd grade")
    ok(at.button(key="order_apply_all").click().run())
    (error,) = texts(at.error)
    assert "'4th Grade' is recoded twice; each label once" in error and "(the data loaded before is still shown)" in error
    assert abs(float(measured_alpha(at)) - package_alpha(merged, ORDER[:3])) < 1e-12


def test_unordered_labels_offer_no_switch_but_the_control():
    at = app("pages/panel.py")
    upload(at, "ratings_upload", "pets.csv", b"unit,a,b,c\nu1,cat,cat,dog\nu2,dog,dog,dog\nu3,bird,cat,bird\n")
    ok(at.button(key="pv_measure").click().run())
    assert not [b for b in at.button if b.key == "level_switch_all"]
    assert order_box(at).value == "bird\ncat\ndog"  # the categories as sorted, for the user to order


def test_the_preview_offers_the_labels_order_before_measuring():
    at = app("pages/panel.py")
    upload(at, "ratings_upload", "vision.csv", csv_of(MATRIX))
    switch = at.button(key="pv_level_switch")
    assert switch.label == "These labels look ordered. Read as ordinal in their order?"
    ok(switch.click().run())
    assert at.session_state["pending"]["mapping"].order == ((None, tuple(ORDER)),)
    ok(at.button(key="pv_measure").click().run())
    assert "alpha (ordinal level)" in [m.label for m in at.metric]
    assert abs(float(measured_alpha(at)) - EXPECTED) < 1e-12
