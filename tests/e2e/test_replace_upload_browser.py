"""A file put into the Panel page's ratings uploader in place of the measured one is read, however
long its upload takes. Replacing a file first removes the old one: the browser asks for a rerun
at once, while the new file is still on its way. That rerun drew the page without the "verdict into
view" frame the Measure run had drawn above the uploaders, so the uploaders moved up one place;
the browser then drew the uploader afresh and the file on its way was dropped without a word
(seen with a 20 MB CSV: about one upload in two vanished, the page still showing the old data).
Here the new file's bytes are held back until the removal's rerun is over, so it happens every time."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.dashboard import open_page, settle, track, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e

GOOD = ROOT / "sample_data" / "krippendorff_2011.csv"


def test_a_file_replacing_the_measured_one_is_previewed(page: Page, app_url: str, tmp_path):
    open_page(page, f"{app_url}/panel")
    upload(page, GOOD)
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)
    expect(page.get_by_text("Loaded: upload: krippendorff_2011.csv").first).to_be_visible()

    second = tmp_path / "second.csv"
    second.write_text("unit,rater,value\n" + "".join(f"u{u},r{r},{(u + r) % 3}\n" for u in range(20) for r in range(3)))
    held = []  # the new file's bytes (PUT), held until the removal's rerun has been drawn
    page.route("**/_stcore/upload_file/**",
               lambda route: held.append(route) if route.request.method == "PUT" else route.continue_())
    track(page)
    before = page.evaluate("() => window.__agreeboundRuns.asked")
    uploader = page.locator("[data-testid='stFileUploader']").filter(has_text="Ratings: ")
    uploader.locator("input[type='file']").set_input_files(str(second))
    page.wait_for_function("(asked) => window.__agreeboundRuns.asked > asked", arg=before)  # the removal's rerun
    settle(page)
    for _ in range(100):  # its upload asked for before the rerun; the browser sends it a moment later
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    held[0].continue_()
    settle(page)
    page.unroute("**/_stcore/upload_file/**")
    expect(page.get_by_role("heading", name="Preview: how second.csv will be read")).to_be_visible(timeout=20_000)
    expect(uploader).to_contain_text("second.csv")
    page.screenshot(path=str(ARTIFACTS / "panel-replaced-upload.png"), full_page=True)
