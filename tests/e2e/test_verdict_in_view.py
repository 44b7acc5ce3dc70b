"""After an action that changes it, the verdict is in view (issue 54, item 1): the Panel page keeps
its scroll position across a rerun, so after "Measure" the headline sat 1,224 px above the viewport.
At 1440 px and on a 390 px phone: Measure, then a level switch, each brings the headline into view;
a rerun that changes no verdict (a section opened) leaves the view where the user put it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.dashboard import open_page, settle, upload
from tests.support.panels import long_0_9

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e

#: The headline's top and bottom against the viewport (the app scrolls inside its own container),
#: and the bottom of the app's fixed header, which covers what lies under it.
IN_VIEW = """() => {
  const el = document.querySelector('.st-key-panel_headline');
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const bar = document.querySelector('[data-testid="stHeader"]');
  return {top: r.top, bottom: r.bottom, height: window.innerHeight, bar: bar ? bar.getBoundingClientRect().bottom : 0};
}"""


def in_view(page: Page) -> bool:
    for _ in range(20):  # the scroll runs once the component's frame has loaded
        box = page.evaluate(IN_VIEW)
        if box and box["top"] >= box["bar"] - 1 and box["top"] < box["height"] * 0.5:  # not under the header
            return True
        page.wait_for_timeout(150)
    return False


@pytest.mark.parametrize("width, height", [pytest.param(1440, 900, id="1440"), pytest.param(390, 844, id="390")])
def test_measure_and_a_level_switch_bring_the_verdict_into_view(page: Page, app_url: str, tmp_path, width, height):
    path = tmp_path / "long_0_9.csv"
    path.write_bytes(long_0_9())
    open_page(page, f"{app_url}/panel", width, height)
    upload(page, path)
    measure = page.get_by_role("button", name="Measure with this mapping")
    measure.scroll_into_view_if_needed()
    assert not in_view(page) or width > 1000  # the preview's button sits below the fold on a phone
    measure.click()
    settle(page)
    expect(page.locator("[data-testid='stAlertContainer']").filter(has_text="all: REPORT_ONLY").first).to_be_attached()
    assert in_view(page), page.evaluate(IN_VIEW)
    page.screenshot(path=str(ARTIFACTS / f"panel-verdict-in-view-after-measure-{width}.png"))
    switch = page.get_by_role("button", name="These look like a 0-9 rating scale. Read as ordinal?")
    switch.scroll_into_view_if_needed()
    switch.click()
    settle(page)
    expect(page.locator("[data-testid='stAlertContainer']").filter(has_text="all: ENFORCE").first).to_be_attached()
    assert in_view(page), page.evaluate(IN_VIEW)
    # a rerun that changes no verdict leaves the view alone
    exact = page.get_by_text("Exact numbers").first
    exact.scroll_into_view_if_needed()
    exact.click()
    settle(page)
    page.wait_for_timeout(800)
    assert not in_view(page)
