"""The categories' order on the Panel page, as a browser draws it (issue 54, item 6), at 1440 px and
on a 390 px phone: `vision`'s grades ("1st grade".."4th Grade") are offered at the ordinal level in
the order they seem to have; read so, alpha is the krippendorff package's with that value_domain;
an order edited in the box is applied and gives the package's alpha in that order."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.io.test_category_order import EXPECTED, MATRIX, ORDER, csv_of, package_alpha
from tests.support.dashboard import open_page, settle, upload

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width, height", [pytest.param(1440, 900, id="1440"), pytest.param(390, 844, id="390")])
def test_an_ordered_scale_of_labels_is_read_in_the_order_given(page: Page, app_url: str, tmp_path, width: int,
                                                               height: int):
    path = tmp_path / "vision.csv"
    path.write_bytes(csv_of(MATRIX))
    open_page(page, f"{app_url}/panel", width, height)
    upload(page, path)
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)
    alpha = page.locator("[data-testid='stMetric']").first
    expect(alpha).to_contain_text("alpha (nominal level)")
    box = page.get_by_role("textbox", name="Order, lowest first (a category a line)")
    expect(box).to_have_value("\n".join(ORDER))
    page.get_by_role("button", name="These labels look ordered. Read as ordinal in the order shown below?").click()
    settle(page)
    expect(alpha).to_contain_text("alpha (ordinal level)")
    expect(alpha).to_contain_text(f"{EXPECTED:.3f}")
    expect(page.locator("[data-testid='stAlertContainer']").first).to_contain_text("at the ordinal level (chosen)")
    page.screenshot(path=str(ARTIFACTS / f"panel-order-ordinal-{width}.png"))
    swapped = ["2nd grade", "1st grade", "3rd grade", "4th Grade"]
    box = page.get_by_role("textbox", name="Order, lowest first (a category a line)")
    box.fill("\n".join(swapped))
    page.get_by_role("button", name="Apply the order and recoding").click()
    settle(page)
    expect(page.locator("[data-testid='stMetric']").first).to_contain_text(f"{package_alpha(MATRIX, swapped):.3f}")
    assert f"{package_alpha(MATRIX, swapped):.3f}" != f"{EXPECTED:.3f}"
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
