"""The level in a real browser (issue 22): a 0-9 export reads nominal and says ordinal would
decide otherwise, one click reads it as ordinal; a goniometer export reads interval by the rule
and says nominal would decide otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.panels import goniometer, long_0_9
from tests.support.dashboard import settle, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"

pytestmark = pytest.mark.e2e


def upload_and_measure(page: Page, path: Path) -> None:
    upload(page, path)
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)


def test_the_level_is_named_and_a_verdict_that_depends_on_it_says_so(page: Page, app_url: str, tmp_path):
    path = tmp_path / "long_0_9.csv"
    path.write_bytes(long_0_9())
    page.goto(f"{app_url}/panel")
    settle(page)
    upload_and_measure(page, path)
    banner = page.locator("[data-testid='stAlertContainer']").filter(has_text="all: REPORT_ONLY")
    expect(banner).to_contain_text("REPORT_ONLY at the nominal level (the default): measure and publish")
    # what another level would say: a detail under the one verdict (issue 54, item 3)
    detail = page.get_by_text("Detail, other levels:").first
    expect(detail).to_contain_text("at the ordinal level alpha is 0.938, so it would be ENFORCE")
    expect(detail).to_contain_text("at the interval level alpha is 0.947, so it would be ENFORCE")
    expect(page.locator("[data-testid='stMetric']").first).to_contain_text("alpha (nominal level)")
    page.screenshot(path=str(ARTIFACTS / "panel-level-nominal-default.png"), full_page=True)
    page.get_by_role("button", name="These look like a 0-9 rating scale. Read as ordinal?").click()
    settle(page)
    expect(page.locator("[data-testid='stAlertContainer']").filter(has_text="all: ENFORCE")).to_contain_text(
        "ENFORCE at the ordinal level (chosen): reliable enough to act on")
    page.screenshot(path=str(ARTIFACTS / "panel-level-ordinal-chosen.png"), full_page=True)

    gonio = tmp_path / "goniometer.csv"
    gonio.write_bytes(goniometer())
    upload_and_measure(page, gonio)
    banner = page.locator("[data-testid='stAlertContainer']").filter(has_text="all: ENFORCE")
    expect(banner).to_contain_text("ENFORCE at the interval level (the default)")
    expect(page.get_by_text("Detail, other levels:").first).to_contain_text("at the nominal level alpha is")
    expect(page.get_by_text("31 distinct whole numbers, more than 20").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "panel-level-goniometer.png"), full_page=True)
    assert page.locator("[data-testid='stException']").count() == 0
