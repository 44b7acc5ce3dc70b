"""The HTML report opened in headless chromium: it renders its charts and requests nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from agreebound.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("argv, charts", [
    (["panel", str(ROOT / "sample_data" / "detector_panel.csv")], 6),
    (["calibrate", str(ROOT / "sample_data" / "judge_failing.json")], 1),
])
def test_html_report_makes_no_network_request(page: Page, tmp_path, argv, charts):
    path = tmp_path / "report.html"
    main([*argv, "--report", str(path)])
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    page.wait_for_timeout(1000)
    assert page.locator(".js-plotly-plot").count() == charts
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"report-{argv[0]}.png"), full_page=True)
