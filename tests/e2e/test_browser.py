"""The dashboard in headless chromium: every page, an upload, a slider, a download, screenshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.support.dashboard import open_section, settle, slider, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"

pytestmark = pytest.mark.e2e


def alerts(page: Page) -> list[str]:
    """Each alert's headline: a verdict box's first line (its Why and How sure follow, issue 54)."""
    return [t.strip().split("\n")[0].removesuffix(".")
            for t in page.locator("[data-testid='stAlertContainer']").all_inner_texts()]


@pytest.mark.parametrize("path, title", [
    ("", "Is this verdict reliable enough to act on?"),
    ("panel", "Panel reliability"),
    ("judge", "Judge calibration"),
    ("whatif", "What-if thresholds"),
    ("help", "Formats & help"),
    ("history", "History"),
])
def test_every_page_opens_on_the_samples(page: Page, app_url: str, path: str, title: str):
    page.goto(f"{app_url}/{path}")
    settle(page)
    expect(page.locator("h1").first).to_have_text(title)
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(ARTIFACTS / f"page-{path or 'overview'}.png"), full_page=True)


def test_overview_verdicts_and_sidebar(page: Page, app_url: str):
    page.goto(app_url)
    settle(page)
    texts = alerts(page)
    assert texts.count("REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce") == 2
    assert texts.count("ENFORCE at the nominal level (the default): reliable enough to act on") == 1
    assert "FAIL_CALIBRATION" in texts
    sidebar = page.locator("[data-testid='stSidebar']")
    expect(sidebar).to_contain_text("alpha floor 0.600 (600 permil)")


def ratings_uploader(page: Page):
    """The ratings uploader by its label (never "the first uploader": the page may still be drawing)."""
    expect(page.locator("h1").first).to_have_text("Panel reliability")
    uploader = page.locator("[data-testid='stFileUploader']").filter(has_text="Ratings: ")
    expect(uploader).to_have_count(1)
    return uploader


def measure(page: Page) -> None:
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)


def choose(page: Page, label: str, option: str) -> None:
    page.locator("[data-testid='stSelectbox']").filter(has_text=label).first.click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def test_slider_changes_the_verdict_and_downloads(page: Page, app_url: str):
    page.goto(f"{app_url}/whatif")
    settle(page)
    floor = slider(page, "Alpha floor (permil)")
    floor.focus()
    floor.press("End")  # alpha floor to 1000 permil: nothing enforces
    settle(page)
    expect(page.locator(".st-key-edited_thresholds")).to_contain_text("alpha floor 1.000 (default 0.600)")
    assert "alpha_floor_permil" in page.url  # the link carries the thresholds
    open_section(page, "Downloads under these thresholds")  # drawn when opened: built under the thresholds in force
    with page.expect_download() as info:
        page.get_by_role("button", name="Download thresholds (JSON)").click()
    saved = ARTIFACTS / "downloaded-thresholds.json"
    info.value.save_as(saved)
    assert json.loads(saved.read_text())["panel"] == {"alpha_floor_permil": 1000, "ratio_cap_permil": 2000, "strict": False}
    page.screenshot(path=str(ARTIFACTS / "whatif-edited.png"), full_page=True)
    page.get_by_role("link", name="Overview").click()
    settle(page)
    texts = alerts(page)
    assert texts.count("ENFORCE at the nominal level (the default): reliable enough to act on") == 0
    assert texts.count("REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce") == 3
    page.locator(".st-key-edited_thresholds").get_by_role("button", name="Reset to defaults").click()  # the banner's
    settle(page)
    assert alerts(page).count("ENFORCE at the nominal level (the default): reliable enough to act on") == 1
    expect(page.locator(".st-key-edited_thresholds")).to_have_count(0)


def test_link_reproduces_the_view(page: Page, app_url: str):
    th = json.dumps({"panel": {"alpha_floor_permil": 400, "ratio_cap_permil": 4000}}, separators=(",", ":"))
    page.goto(f"{app_url}/?th={th}")
    settle(page)
    texts = alerts(page)
    assert texts.count("ENFORCE at the nominal level (the default): reliable enough to act on") == 2  # insult and sexual pass the looser gate
    expect(page.locator("[data-testid='stSidebar']")).to_contain_text("alpha floor 0.400 (400 permil)")
    expect(page.locator(".st-key-edited_thresholds")).to_contain_text("alpha floor 0.400 (default 0.600)")


def test_report_downloads_from_the_panel_page(page: Page, app_url: str):
    page.goto(f"{app_url}/panel")
    settle(page)
    with page.expect_download() as info:
        page.get_by_role("button", name="Panel report (JSON)").click()
    saved = ARTIFACTS / "downloaded-panel-report.json"
    info.value.save_as(saved)
    report = json.loads(saved.read_text())
    assert [d["verdict"] for d in report["panel"]["dimensions"]] == ["REPORT_ONLY", "REPORT_ONLY", "ENFORCE"]
    assert report["inputs"][0]["file"] == "detector_panel.csv"
    insult = report["panel"]["dimensions"][1]["coefficients"]  # the other coefficients ride along, not deciding
    assert insult["decides"] is False and insult["table"][0]["exact"] == "377/450"
    assert insult["explanation"][0].startswith("Raters agree on 84% of the pairs they rated together")


def test_crafted_link_and_markup_names_fetch_nothing_and_link_nowhere(context: BrowserContext, app_url: str):
    """User text is data: a hand-made ?th= and names full of Markdown and HTML render as text. In a
    context of its own (not the shared tab), since it counts every request the browser makes."""
    from urllib.parse import quote, urlparse

    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    evil = ("![p](http://evil.example/pixel.png) [go](http://evil.example/x) <img src=http://evil.example/i.png> "
            "<a href=http://evil.example>a</a> www.evil.example :material/home: :red[boom]")
    page.goto(f"{app_url}/?th=" + quote(json.dumps({"panel": {"alpha_floor_permil": evil}})))
    settle(page)
    assert any("The link's thresholds were ignored" in t for t in alerts(page))
    page.goto(f"{app_url}/panel?th=" + quote('{"panel": {"alpha": 1, "' + evil + '": 2}}'))
    settle(page)
    ratings_uploader(page)
    for name in ("html_names.csv", "markdown_names.csv"):
        upload(page, ROOT / "tests" / "data" / "hostile" / name)
        assert page.locator("a[href*='evil'], img[src*='evil']").count() == 0  # the preview shows them as text
        measure(page)
        assert page.locator("a[href*='evil'], img[src*='evil']").count() == 0
    caption = page.locator("[data-testid='stCaptionContainer']").filter(has_text="Loaded:").first.inner_text()
    assert "[click](http://evil.example/x)" in caption.replace("\u2060", "")  # shown as the text it is
    page.screenshot(path=str(ARTIFACTS / "hostile-names.png"), full_page=True)
    outside = {urlparse(u).hostname for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")}
    assert outside <= {"127.0.0.1"}, outside
    assert page.locator("[data-testid='stException']").count() == 0


def test_judge_log_partial_audit_and_contract_editor(page: Page, app_url: str):
    page.goto(f"{app_url}/judge")
    settle(page)
    choose(page, "Or pick a sample", "MT-Bench judgments by gpt-4, with human votes (a partial audit)")
    expect(page.get_by_text("A partial audit: this source lacks what some gates need")).to_be_visible()
    expect(page.get_by_text("Verbosity bias: not evaluable, the source has no candidate lengths")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "judge-partial-audit.png"), full_page=True)
    page.get_by_text("Contract editor: write a contract, see its content id, download it").click()
    settle(page)
    before = page.locator("[data-testid='stCode']").last.inner_text()
    box = page.get_by_label("position flip max (bps)")
    box.fill("1200")
    box.press("Enter")
    settle(page)
    after = page.locator("[data-testid='stCode']").last.inner_text()
    assert before.startswith("judge-calibration@sha256:") and after.startswith("judge-calibration@sha256:")
    assert after != before
    page.screenshot(path=str(ARTIFACTS / "judge-contract-editor.png"), full_page=True)
    assert page.locator("[data-testid='stException']").count() == 0
