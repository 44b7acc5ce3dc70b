"""Memory bombs uploaded in a real browser: each is one located message, the data loaded before
stays, and the server goes on serving another session (issue 21). The files are made at test
time (tests/data/make_hostile_files.py: bomb_cases), once per run (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.dashboard import settle, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e


def test_bombs_are_refused_and_the_server_keeps_serving(page: Page, app_url: str, browser, bomb_cases):
    cases = {c["path"].name: c for c in bomb_cases[1]}  # made once per run (tests/conftest.py)
    page.goto(f"{app_url}/panel")
    settle(page)
    for name in ("one_row_60m_cells.xlsx", "normal_head_then_keys.jsonl", "padded_1_9gb.xlsx", "billion_laughs.xlsx"):
        upload(page, cases[name]["path"])
        words = page.get_by_text(cases[name]["words"]).first
        measure = page.get_by_role("button", name="Measure with this mapping")
        # waited for, not read at once: on a busy machine the upload's rerun may start after settle
        # returned, and neither the refusal nor the preview's button is drawn yet
        expect(words.or_(measure).first).to_be_visible(timeout=60_000)
        if measure.count():  # the preview's first 10,000 lines were ordinary: the whole file is refused
            measure.click()
            settle(page)
        expect(words).to_be_visible(timeout=60_000)
        assert page.locator("[data-testid='stException']").count() == 0
        page.screenshot(path=str(ARTIFACTS / f"panel-bomb-{name.split('.')[0]}.png"), full_page=True)
        cancel = page.get_by_role("button", name="Cancel (keep the data loaded before)")
        if cancel.count():
            cancel.click()
            settle(page)
        expect(page.get_by_text("Loaded: Detector panel").first).to_be_visible()  # nothing lost
    other = browser.new_page()  # another session on the same server, after the bombs
    other.goto(app_url)
    settle(other)
    expect(other.locator("h1").first).to_have_text("Is this verdict reliable enough to act on?")
    assert other.locator("[data-testid='stException']").count() == 0
    other.close()
