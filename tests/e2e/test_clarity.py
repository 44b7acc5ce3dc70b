"""What a stakeholder sees in chromium: the edited-thresholds banner (phone too), the overview's
sentences and bullet charts, the what-if strip in view after a slider move, axe-core on every page
in light and dark, and threshold markers that stay visible in dark mode."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from agreebound.render.figure_style import contrast
from tests.support.dashboard import open_charts, open_page, open_tab, settle, slider

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
PAGES = ["", "panel", "judge", "whatif", "help", "history"]
LINK = "th=" + json.dumps({"panel": {"alpha_floor_permil": 150, "ratio_cap_permil": 4600}}, separators=(",", ":"))

pytestmark = pytest.mark.e2e


def in_view(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    vp = page.viewport_size
    return box is not None and box["y"] < vp["height"] and box["y"] + box["height"] > 0


def test_a_shared_link_with_edited_thresholds_shows_the_banner_on_every_page(page: Page, app_url: str):
    for path in PAGES:
        open_page(page, f"{app_url}/{path}?{LINK}", 1440, 900)
        banner = page.locator(".st-key-edited_thresholds")
        expect(banner).to_contain_text("alpha floor 0.150 (default 0.600)")
        expect(banner).to_contain_text("spread cap 4.60x (default 2.00x)")
        for width, height in ((1440, 900), (390, 844)):  # the same page on a phone's screen
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(300)  # the layout follows the width
            assert in_view(page, ".st-key-edited_thresholds"), (path, width)  # on the first screen, phones too
            if path == "":
                page.screenshot(path=str(ARTIFACTS / f"banner-{width}.png"))


def test_the_phone_first_screen_shows_the_overall_verdicts(page: Page, app_url: str):
    open_page(page, app_url, 390, 844)
    headline = page.locator(".st-key-headline")
    expect(headline).to_contain_text("Panel (sample data): 1 of 3 dimensions may be enforced at the nominal level (the default).")
    expect(headline).to_contain_text("Judge (sample data): fails 4 of 5 gates.")
    box = headline.bounding_box()
    assert box["y"] + box["height"] <= 844
    page.screenshot(path=str(ARTIFACTS / "overview-phone.png"))


def test_overview_sentences_and_a_bullet_chart_per_gate(page: Page, app_url: str):
    open_page(page, app_url, 1440, 900)
    expect(page.get_by_text("Why: alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over.")).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(0)  # a click away: no charting on the first view
    open_charts(page, "dimension_0")
    open_charts(page, "judge_gates")
    charts = page.locator(".st-key-dimension_0 .js-plotly-plot")
    expect(charts).to_have_count(2)
    assert "floor 0.600" in charts.first.text_content()
    expect(page.locator(".st-key-judge_gates .js-plotly-plot")).to_have_count(5)
    assert "limit 5.0%" in page.locator(".st-key-judge_gates .js-plotly-plot").nth(1).text_content()
    page.screenshot(path=str(ARTIFACTS / "overview-1440.png"), full_page=True)


def test_the_what_if_strip_updates_in_view_after_a_slider_move(page: Page, app_url: str):
    open_page(page, f"{app_url}/whatif", 1440, 900)
    strip = page.locator(".st-key-whatif_strip")
    expect(strip).to_contain_text("sexual: ENFORCE at nominal (same as the defaults)", timeout=20_000)
    floor = slider(page, "Alpha floor (permil)")
    floor.focus()
    floor.press("End")  # alpha floor 1000 permil
    settle(page)
    expect(strip).to_contain_text("sexual: REPORT_ONLY at nominal (was ENFORCE under the defaults)", timeout=20_000)
    expect(strip).to_contain_text("alpha (nominal) 0.779, needs 1.000: 0.221 short: fails", timeout=20_000)
    expect(strip).to_contain_text("flipped: the alpha (nominal) gate now fails", timeout=20_000)
    assert in_view(page, ".st-key-whatif_strip")
    # the judge's last slider, in its tab, is further down: the strip follows (sticky) and shows the judge gate's flip
    open_tab(page, "Judge contract")
    expect(strip).to_contain_text("flipped: the alpha (nominal) gate now fails")  # the panel's edit holds
    last = slider(page, "Self-preference maximum (bps)")
    last.scroll_into_view_if_needed()
    last.focus()
    last.press("End")  # self-preference limit 100%
    settle(page)
    expect(strip).to_contain_text("self-preference 56.5%, limit 100.0%: 43.5 points to spare: passes (flipped from fails)", timeout=20_000)
    assert in_view(page, ".st-key-whatif_strip")
    page.screenshot(path=str(ARTIFACTS / "whatif-strip.png"))


def to_dark(page: Page) -> None:
    """The browser turns to dark, as a user's system setting would, and the page reruns: Streamlit
    re-themes its own elements at once, but the charts' colours are the server's choice, read from
    the browser's theme at each run (the same page as opened in dark: test_dark_mode_... below)."""
    page.evaluate("""() => { const app = document.querySelector("[data-testid='stApp']"); window.__reran = false;
        new MutationObserver(() => { window.__reran = true; })  // the page was idle: any change is a run
            .observe(app, {attributeFilter: ["data-test-script-state"]}); }""")
    page.emulate_media(color_scheme="dark")
    # the rerun sends the theme the page shows: press the key only once the page has turned dark
    # (pressed earlier, the run may read the old theme: one CI run drew light markers here)
    page.wait_for_function("""() => { const [r, g, b] = getComputedStyle(document.querySelector(
        "[data-testid='stApp']")).backgroundColor.match(/\\d+/g).map(Number); return r + g + b < 150; }""",
                           timeout=30_000)
    page.locator("body").press("r")  # Streamlit's rerun key
    page.wait_for_function("() => window.__reran", timeout=30_000)  # the rerun began (not only the key pressed)
    settle(page)


def test_axe_finds_nothing_serious_on_any_page_in_light_or_dark(page: Page, app_url: str):
    found = {}
    for path in PAGES + [f"?{LINK}"]:
        open_page(page, f"{app_url}/{path}", 1440, 900, "light")
        for scheme in ("light", "dark"):
            if scheme == "dark":
                to_dark(page)
                assert contrast(background(page), "#0e1117") < 1.3, path  # the dark theme is on
            page.wait_for_timeout(800)  # charts drawn
            results = Axe().run(page).response
            found[(scheme, path or "overview")] = [(v["id"], v["impact"], len(v["nodes"])) for v in results["violations"]
                                                   if v["impact"] in ("serious", "critical")]
        assert page.title() != "Agreebound"  # each page its own tab title
    assert len(found) == 2 * len(PAGES + [LINK])
    assert found == {k: [] for k in found}


def _rgb(css: str) -> str:
    nums = [int(float(x)) for x in re.findall(r"[\d.]+", css)[:3]]
    return "#" + "".join(f"{n:02x}" for n in nums)


def background(page: Page) -> str:
    """The app's background colour as #rrggbb."""
    return _rgb(page.locator("[data-testid='stApp']").evaluate("e => getComputedStyle(e).backgroundColor"))


def marker_strokes(page: Page) -> list[str]:
    """The stroke colours of the first bullet chart's shapes (its threshold line among them)."""
    page.wait_for_timeout(800)
    return page.locator(".st-key-dimension_0 .js-plotly-plot").first.locator(
        ".shapelayer path, .layer-above path").evaluate_all(
        "els => els.map(e => getComputedStyle(e).stroke).filter(s => s && s !== 'none')")


def test_dark_mode_threshold_markers_are_visible(page: Page, app_url: str):
    open_page(page, app_url, 1440, 900, "dark")
    open_charts(page, "dimension_0")
    dark = background(page)
    assert contrast(dark, "#0e1117") < 1.3  # the dark theme is on
    # the threshold line of the first bullet chart: a shape whose stroke is the marker colour
    strokes = marker_strokes(page)
    colours = {_rgb(s) for s in strokes if s.startswith("rgb")}
    assert colours, strokes
    assert max(contrast(c, dark) for c in colours) >= 3.0, (colours, dark)
    page.screenshot(path=str(ARTIFACTS / "overview-dark.png"))
    # a page opened in light and turned dark (the axe test's dark pages) draws the same charts
    open_page(page, app_url, 1440, 900, "light")
    open_charts(page, "dimension_0")
    assert marker_strokes(page) != strokes
    to_dark(page)
    assert marker_strokes(page) == strokes


def test_on_a_phone_wide_tables_stack_instead_of_cutting_columns(page: Page, app_url: str):
    open_page(page, f"{app_url}/judge", 390, 844)
    expect(page.locator(".st-key-gates_table_wideview")).to_be_hidden()
    stacked = page.locator(".st-key-gates_table_narrowview")
    expect(stacked).to_be_visible()
    expect(stacked).to_contain_text("margin: 15 fewer flips would pass")  # the last column, whole
    box = stacked.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    open_page(page, f"{app_url}/judge", 1440, 900)
    expect(page.locator(".st-key-gates_table_narrowview")).to_be_hidden()
    expect(page.locator(".st-key-gates_table_wideview")).to_be_visible()
