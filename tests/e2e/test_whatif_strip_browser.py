"""The What-if strip after a flip, as a browser draws it (issue 54, item 7): on a desktop the strip
beside the sliders, on a phone the brief above them; either shows the flipped line first with its
sign and words, and the unchanged lines as one count (the desktop's in a closed expander)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS
from tests.support.dashboard import open_page, settle, slider

MARK = "⇄"


@pytest.mark.parametrize("width, height", [(1440, 900), (390, 844)])
def test_a_flipped_verdict_comes_first_marked_and_the_rest_is_one_line(page: Page, app_url: str, width: int,
                                                                       height: int):
    open_page(page, f"{app_url}/whatif", width, height)
    floor = slider(page, "Alpha floor (permil)")
    floor.scroll_into_view_if_needed()
    floor.focus()
    for _ in range(2):  # 600 -> 800 permil, as a user presses it: sexual's alpha 0.779 no longer enforces
        floor.press("PageUp")
        settle(page)
    expect(floor).to_have_value("800")
    if width > 640:
        strip = page.locator(".st-key-whatif_strip")
        expect(page.locator(".st-key-whatif_brief_narrowview")).to_be_hidden()
        lines = strip.locator("[data-testid='stMarkdown']")
        expect(lines.nth(0)).to_have_text(f"Verdicts under these thresholds: {MARK} 2 changed from the defaults "
                                          "(verdicts and gates)")
        first = lines.nth(1)  # the flipped dimension, first, its change in words beside the sign
        expect(first).to_contain_text("sexual: REPORT_ONLY at nominal (was ENFORCE under the defaults)")
        expect(first).to_contain_text(f"{MARK} changed: ENFORCE → REPORT_ONLY; flipped: the alpha (nominal) gate now fails")
        expect(first).to_contain_text(f"{MARK} alpha (nominal) 0.779, needs 0.800: 0.021 short: fails (flipped from passes)")
        summary = strip.locator(".st-key-whatif_unchanged summary")
        expect(summary).to_contain_text("13 verdicts and gates unchanged from the defaults")  # after its icon
        expect(strip.get_by_text("violence: REPORT_ONLY at nominal (same as the defaults)")).to_be_hidden()  # collapsed
        box = strip.bounding_box()
        assert box is not None and box["height"] <= height / 2, box  # short: half the screen at most
    else:
        brief = page.locator(".st-key-whatif_brief_narrowview")
        expect(page.locator(".st-key-whatif_strip")).to_be_hidden()
        expect(brief).to_contain_text(f"{MARK} sexual: REPORT_ONLY (was ENFORCE); alpha (nominal) now fails")
        assert brief.inner_text().splitlines() == [  # the count of the rest, then the flipped line, marked
            "Changed from the defaults (13 verdicts and gates unchanged)",
            f"{MARK} sexual: REPORT_ONLY (was ENFORCE); alpha (nominal) now fails"]
        box = brief.bounding_box()
        assert box is not None and box["height"] <= height / 3, box
    page.screenshot(path=str(ARTIFACTS / f"whatif-strip-flip-{width}.png"))
