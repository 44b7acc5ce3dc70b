"""History in a real browser: an upload survives a reload and opens in a fresh browser from its
?run= link with the same verdicts; the History page draws three runs over time, a click on a point
opens its run, and Compare shows a flipped gate with its reason."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.dashboard import free_port, settle, upload, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e


def verdicts(page: Page) -> list[str]:
    """The verdicts a reader sees on the Panel page, in order: the line of every dimension's at the
    top, then the verdict banner of the open dimension's tab."""
    top = page.locator(".st-key-panel_headline").inner_text().splitlines()
    alerts = [t.strip() for t in page.locator("[data-testid='stAlertContainer']").all_inner_texts()]
    return ([t.strip() for t in top if " · " in t]
            + [t for t in alerts if re.search(r"(ENFORCE|REPORT_ONLY|REFUSE_SINGLE)( at the \w+ level \([^)]*\))?: ", t)])


def run_ids(url: str) -> list[str]:
    return parse_qs(urlparse(url).query).get("run", [])


def test_upload_survives_a_reload_and_opens_from_its_link(page: Page, browser: Browser, app_url: str, tmp_path):
    name = f"weekly-{secrets.token_hex(3)}.csv"
    path = tmp_path / name
    path.write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
    page.goto(f"{app_url}/panel")
    settle(page)
    upload(page, path)
    page.get_by_role("button", name="Measure with this mapping").click()
    settle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    expect(sidebar).to_contain_text(f"Panel: upload: {name}")
    page.wait_for_function("() => location.search.includes('run=')", timeout=20_000)
    ids = run_ids(page.url)
    assert len(ids) == 1 and re.fullmatch(r"[0-9a-f]{32}", ids[0])
    before = verdicts(page)
    assert before == ["violence: REPORT_ONLY (report only) · insult: REPORT_ONLY (report only) · sexual: ENFORCE (may be "
                      "enforced)",
                      "violence: REPORT_ONLY at the nominal level (the default): measure and publish, do not auto-enforce."
                      "\nWhy: alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over."
                      "\nHow sure: alpha's 95% interval, 0.179 to 0.295, lies on one side of the floor 0.600"]

    page.reload()
    settle(page)
    expect(sidebar).to_contain_text(f"Panel: run {ids[0]}: {name}")
    assert verdicts(page) == before
    page.screenshot(path=str(ARTIFACTS / "history-reloaded.png"), full_page=True)

    fresh = browser.new_context(viewport={"width": 1400, "height": 2200})
    other = fresh.new_page()
    other.goto(f"{app_url}/panel?run={ids[0]}")
    settle(other)
    expect(other.locator("[data-testid='stSidebar']")).to_contain_text(f"Panel: run {ids[0]}: {name}")
    assert verdicts(other) == before
    other.get_by_role("tab", name="sexual").click()  # another dimension's tab: drawn when opened
    expect(other.get_by_text("sexual: ENFORCE at the nominal level (the default): reliable enough to act on")).to_be_visible()
    settle(other)
    after = verdicts(other)
    assert after[0] == before[0]
    assert after[1].startswith("sexual: ENFORCE at the nominal level (the default): reliable enough to act on.\nWhy: ")
    fresh.close()


def test_history_timeline_click_and_compare(page: Page, app_url: str, tmp_path):
    """Three CLI runs of one data set under three threshold sets; the page filters to it."""
    name = f"gate-{secrets.token_hex(3)}.csv"
    data = tmp_path / name
    data.write_bytes((ROOT / "sample_data" / "detector_panel.csv").read_bytes())
    thresholds = ROOT / "sample_data" / "thresholds.toml"
    ids = []
    for preset in ("seed-defaults", "exploratory", "release-gate"):
        out = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(data), "--thresholds", str(thresholds),
                              "--preset", preset, "--record", "--label", preset], capture_output=True, text=True,
                             cwd=ROOT, timeout=120)
        assert out.returncode == 1, out.stderr
        ids.append(out.stdout.strip().splitlines()[-1].split()[1])

    page.goto(f"{app_url}/history")
    settle(page)
    page.locator("[data-testid='stSelectbox']").filter(has=page.get_by_text("Data", exact=True)) \
        .locator("input").fill(name)
    page.keyboard.press("Enter")
    settle(page)
    expect(page.get_by_role("heading", name="3 of")).to_be_visible()
    chart = page.locator("[data-testid='stPlotlyChart']").first
    expect(chart).to_be_visible()
    # 3 dimensions x 2 gates x 3 runs = 18 points, and the threshold's mark at each run in both gates: 6
    expect(chart.locator("g.trace.scatter g.points path.point")).to_have_count(24, timeout=20_000)
    headline = page.locator("[data-testid='stAlertContainer']").filter(has_text="Regression")
    # (Streamlit's Markdown draws "->" as an arrow)
    expect(headline).to_contain_text("Regression: insult ENFORCE → REPORT_ONLY.")
    expect(headline).to_contain_text("thresholds changed (alpha floor 0.400 → 0.700; spread cap 4.00x → 1.50x)")
    expect(page.locator("body")).to_contain_text("now fails: threshold 0.400 → 0.700 (thresholds changed)")
    page.screenshot(path=str(ARTIFACTS / "history-page.png"), full_page=True)

    # a click on a point opens that run on its page
    chart.locator("g.trace.scatter g.points path.point").first.click(force=True)
    settle(page)
    expect(page.locator("h1").first).to_have_text("Panel reliability", timeout=20_000)
    opened = run_ids(page.url)
    assert len(opened) == 1 and opened[0] in ids


def test_a_deep_link_keeps_its_parameters_as_a_servers_first_request(browser: Browser, tmp_path, capsys):
    """The first request a server sees for a page runs it outside the frame, which switches to
    itself: the link's ?run= and ?th= must survive that switch."""
    import json
    import os

    from agreebound.cli.main import main

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(["panel", str(ROOT / "sample_data" / "krippendorff_2011.csv"), "--record", "--db", db]) == 0
    run_id = capsys.readouterr().out.strip().splitlines()[-1].split()[1]
    port = free_port()
    env = {**os.environ, "AGREEBOUND_DB": db, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                             "true", "--server.port", str(port), "--server.address", "127.0.0.1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc)
        th = json.dumps({"panel": {"alpha_floor_permil": 150, "ratio_cap_permil": 2000}})
        context = browser.new_context(viewport={"width": 1400, "height": 1600})
        page = context.new_page()
        page.goto(f"{url}/whatif?run={run_id}&th={th}")  # the server's first request
        settle(page)
        expect(page.locator("[data-testid='stSidebar']")).to_contain_text(f"run {run_id}: krippendorff_2011.csv")
        assert run_ids(page.url) == [run_id]
        expect(page.locator(".st-key-whatif_strip")).to_contain_text("0.150", timeout=20_000)
        context.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
