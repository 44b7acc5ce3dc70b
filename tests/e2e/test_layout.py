"""Said plainly, on every screen (issue 22, section 4): at 1440 px and on a 390 px phone, every cell
of the Judge page's gate table, the What-if verdict tables and the Panel page's level and detector
tables is shown whole, and so is each checkbox label of the Panel page's mapping preview; the
judge rates chart keeps a usable plot; on a phone the What-if strip stays in view (collapsed to
what changed) while a slider moves, the Panel verdict comes before the uploaders, and the overview
keeps the judge gates in their order.

st.dataframe draws a canvas grid that cuts a long cell at its column's edge, and nothing in the DOM
says so: these tables are st.table (DOM cells that wrap), and on a phone the wide ones stack one
block per row (blocks.responsive_table). A cell is whole when it does not overflow (scrollWidth
<= clientWidth, +1 px for rounding) and its table does not scroll sideways either.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.dashboard import open_charts, open_page, open_section, open_tab, settle, slider, upload

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
VIEWPORTS = [pytest.param(1440, 900, id="1440"), pytest.param(390, 844, id="390")]
PHONE = 640  # the CSS breakpoint below which wide tables stack (ui.shell)

pytestmark = pytest.mark.e2e

# Every visible text table (st.table) and every visible stacked row (a phone's view of a wide
# table): the cells that overflow, the tables that scroll sideways, text past the screen's edge.
CLIPPED = """() => {
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const text = e => e.innerText.replace(/\\s+/g, ' ').trim().slice(0, 80);
  const out = {tables: [], cells: 0, clipped: [], scrolling: [], offscreen: []};
  for (const t of document.querySelectorAll("[data-testid='stTable']")) {
    if (!shown(t)) continue;
    out.tables.push([...t.querySelectorAll('th')].map(text).join(' | '));
    for (const c of t.querySelectorAll('th, td')) {
      out.cells += 1;
      if (c.scrollWidth > c.clientWidth + 1) out.clipped.push(text(c));
    }
    for (const box of [t, ...t.querySelectorAll('div, table')]) {
      if (box.scrollWidth > box.clientWidth + 1) out.scrolling.push(text(t));
    }
  }
  for (const block of document.querySelectorAll("[class*='_narrowview']")) {
    if (!shown(block)) continue;
    for (const p of block.querySelectorAll('p')) {
      out.cells += 1;
      if (p.scrollWidth > p.clientWidth + 1) out.clipped.push(text(p));
      if (p.getBoundingClientRect().right > window.innerWidth + 1) out.offscreen.push(text(p));
    }
  }
  return out;
}"""


def whole(page: Page) -> dict:
    found = page.evaluate(CLIPPED)
    assert found["clipped"] == [] and found["scrolling"] == [] and found["offscreen"] == [], found
    return found


def wide_or_stacked(page: Page, key: str, width: int) -> None:
    """The table of ``key`` as a table of whole cells on a wide screen, stacked rows on a phone."""
    wide, narrow = page.locator(f".st-key-{key}_wideview"), page.locator(f".st-key-{key}_narrowview")
    if width > PHONE:
        expect(wide.locator("[data-testid='stTable']")).to_be_visible()
        expect(narrow).to_be_hidden()
    else:
        expect(narrow).to_be_visible()
        expect(wide).to_be_hidden()


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_judge_gate_table_shows_every_cell_whole(page: Page, app_url: str, width: int, height: int):
    open_page(page, f"{app_url}/judge", width, height)
    wide_or_stacked(page, "gates_table", width)
    table = page.locator(f".st-key-gates_table_{'wideview' if width > PHONE else 'narrowview'}")
    for words in ("margin", "15 fewer flips would pass", "gate", "FAIL", "cases / observations", "240 / 1,440"):
        expect(table).to_contain_text(words)
    found = whole(page)
    assert found["cells"] >= (6 * 8 if width > PHONE else 5), found  # a header and 5 rows of 8; or 5 blocks
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"layout-judge-gates-{width}.png"))


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_what_if_verdict_tables_show_every_cell_whole(page: Page, app_url: str, width: int, height: int):
    open_page(page, f"{app_url}/whatif", width, height)
    expect(page.locator(".st-key-verdict_table_wideview")).to_have_count(0)  # a section drawn when opened
    open_section(page, "Verdicts as tables")
    wide_or_stacked(page, "verdict_table", width)
    wide_or_stacked(page, "judge_verdict_table", width)
    table = page.locator(f".st-key-verdict_table_{'wideview' if width > PHONE else 'narrowview'}")
    expect(table).to_contain_text("alpha (nominal) 0.236, needs 0.600: 0.364 short; spread 3.90x, cap 2.00x: 1.90x over")
    expect(page.locator(f".st-key-judge_verdict_table_{'wideview' if width > PHONE else 'narrowview'}")
           ).to_contain_text("FAIL_CALIBRATION")
    whole(page)
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"layout-whatif-table-{width}.png"))


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_panel_level_and_detector_tables_show_every_cell_whole(page: Page, app_url: str, width: int,
                                                                     height: int):
    """The bundled "Detector panel" sample: 0/1 ratings, so every level is admissible (a level table)
    and the positive category 1 gives each detector a rate (a detector table)."""
    open_page(page, f"{app_url}/panel", width, height)
    tables = page.locator("[data-testid='stTable']")
    levels = tables.filter(has_text="not compared (ratio needs a true zero)").first  # the first tab's
    detectors = tables.filter(has_text="Wilson 95%").first
    expect(levels).to_be_visible()
    expect(detectors).to_be_visible()
    expect(levels).to_contain_text("nominal (in force)")
    expect(detectors).to_contain_text("detector-classifier")
    found = whole(page)
    assert len(found["tables"]) == 2, found
    detectors.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"layout-panel-tables-{width}.png"))


# Every visible checkbox: its label's text and whether the text is cut (a checkbox's label does not
# wrap: a long one ends in an ellipsis).
CHECKBOXES = """() => [...document.querySelectorAll("[data-testid='stCheckbox']")]
  .filter(c => c.getClientRects().length > 0)
  .map(c => [c.innerText.trim(), [...c.querySelectorAll("[data-testid='stMarkdownContainer'], [data-testid='stMarkdownContainer'] *")]
    .some(e => e.scrollWidth > e.clientWidth + 1)])"""


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_previews_checkbox_labels_are_whole(page: Page, app_url: str, width: int, height: int):
    """The mapping preview's third column is a fifth of its width at 1440 px: a label longer than
    that was cut ("The first row names the ...")."""
    open_page(page, f"{app_url}/panel", width, height)
    upload(page, ROOT / "sample_data" / "krippendorff_2011.csv")
    header = page.locator(".st-key-pv_header [data-testid='stCheckbox']")
    expect(header).to_be_visible()
    header.scroll_into_view_if_needed()
    shown = dict(page.evaluate(CHECKBOXES))
    assert header.inner_text().strip() in shown and "Decimal comma (1,5)" in shown, shown
    assert [label for label, cut in shown.items() if cut] == [], shown
    page.screenshot(path=str(ARTIFACTS / f"layout-panel-preview-{width}.png"))


@pytest.mark.parametrize("width, height, least", [(1440, 900, 400), (390, 844, 280)])
def test_the_judge_rates_chart_keeps_a_usable_plot_width(page: Page, app_url: str, width: int, height: int,
                                                         least: int):
    open_page(page, f"{app_url}/judge", width, height)
    chart = page.locator(".js-plotly-plot").first
    expect(chart).to_contain_text("Judge rates against the contract's thresholds")
    chart.scroll_into_view_if_needed()
    plot = chart.locator(".nsewdrag").first.bounding_box()["width"]  # the plotting area, axes excluded
    figure = chart.bounding_box()["width"]
    assert plot >= least and plot >= 0.8 * figure, (plot, figure)
    chart.screenshot(path=str(ARTIFACTS / f"layout-judge-rates-{width}.png"))


def _clear(brief: dict, control: dict) -> bool:
    """The slider lies below the sticky strip, on screen: it is not covered."""
    return control["y"] >= brief["y"] + brief["height"] and control["y"] + control["height"] <= 844


def test_on_a_phone_the_what_if_strip_stays_in_view_collapsed_to_what_changed(page: Page, app_url: str):
    open_page(page, f"{app_url}/whatif", 390, 844)
    brief = page.locator(".st-key-whatif_brief_narrowview")
    expect(page.locator(".st-key-whatif_strip")).to_be_hidden()  # the full strip would scroll away above
    expect(brief).to_contain_text("Verdicts as under the defaults")
    floor = slider(page, "Alpha floor (permil)")
    floor.scroll_into_view_if_needed()
    floor.focus()
    floor.press("End")  # alpha floor 1000 permil: sexual no longer enforces
    settle(page)
    expect(brief).to_contain_text("sexual: REPORT_ONLY (was ENFORCE); alpha (nominal) now fails", timeout=20_000)
    expect(brief).not_to_contain_text("violence")  # only what changed
    floor.scroll_into_view_if_needed()
    assert _clear(brief.bounding_box(), floor.bounding_box())
    open_tab(page, "Judge contract")  # the judge's sliders: a tab of their own
    last = slider(page, "Self-preference maximum (bps)")  # far down: the strip follows (sticky)
    last.scroll_into_view_if_needed()
    last.focus()
    last.press("End")
    settle(page)
    expect(brief).to_contain_text("judge: FAIL_CALIBRATION (unchanged); self-preference now passes", timeout=20_000)
    box = brief.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= 844 / 3, box  # in view, and a third of the screen at most
    assert _clear(box, last.bounding_box())
    sticky, app = brief.evaluate("e => [getComputedStyle(e.parentElement).backgroundColor, "
                                 "getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor]")
    assert sticky == app  # opaque, in the app's own colour: the sliders pass under it unseen
    page.screenshot(path=str(ARTIFACTS / "layout-whatif-phone-strip.png"))


def test_on_a_phone_the_panel_verdict_comes_before_the_uploaders(page: Page, app_url: str):
    open_page(page, f"{app_url}/panel", 390, 844)
    headline = page.locator(".st-key-panel_headline")
    expect(headline).to_contain_text("Panel (sample data): 1 of 3 dimensions may be enforced")
    expect(headline).to_contain_text("violence: REPORT_ONLY (report only) · insult: REPORT_ONLY (report only) · sexual: "
                                     "ENFORCE (may be enforced)")
    uploader = page.locator("[data-testid='stFileUploader']").filter(has_text="Ratings: ")
    box = headline.bounding_box()
    assert box["y"] + box["height"] <= min(844, uploader.bounding_box()["y"])  # first screen, above the uploader
    page.screenshot(path=str(ARTIFACTS / "layout-panel-phone-first-screen.png"))


def test_on_a_phone_the_overview_keeps_the_judge_gates_in_order_and_names_no_hidden_sidebar(page: Page,
                                                                                            app_url: str):
    open_page(page, app_url, 390, 844)
    gates = page.locator(".st-key-judge_gates strong").filter(
        has_text=re.compile("^(Human agreement|Position flip|Repeat variance|Verbosity bias|Self-preference)$"))
    expect(gates).to_have_count(5)
    tops = [(gates.nth(i).bounding_box()["y"], gates.nth(i).inner_text()) for i in range(5)]
    assert [name for _, name in sorted(tops)] == ["Human agreement", "Position flip", "Repeat variance",
                                                  "Verbosity bias", "Self-preference"], tops
    main = page.locator("[data-testid='stMain']").inner_text()
    assert "sidebar" not in main.lower()  # a phone hides it: the thresholds are said inline
    expect(page.locator(".st-key-headline")).to_contain_text("alpha floor 0.600, spread cap 2.00x")


def test_gates_that_cannot_be_evaluated_are_a_line_of_text(page: Page, app_url: str):
    open_page(page, f"{app_url}/judge", 1440, 900)
    page.locator("[data-testid='stSelectbox']").filter(has_text="Or pick a sample").first.click()
    page.get_by_role("option", name="MT-Bench judgments by gpt-4, with human votes (a partial audit)", exact=True).click()
    settle(page)
    page.get_by_role("link", name="Overview").click()
    settle(page)
    box = page.locator(".st-key-judge_gates")
    expect(box).to_contain_text("Repeat variance not checked: repeat variance not evaluable")
    open_charts(page, "judge_gates")
    expect(box.locator(".js-plotly-plot")).to_have_count(3)  # 5 gates, 2 not evaluable: no empty charts


def test_on_a_phone_the_help_page_is_as_wide_as_the_screen(page: Page, app_url: str):
    """Issue 54, item 8: long inline code (commands, file names) wraps on a 390 px phone instead of
    widening the Help page past the screen (it was 599 px)."""
    open_page(page, f"{app_url}/help", 390, 844)
    expect(page.get_by_text("Input formats").first).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(ARTIFACTS / "help-phone-390.png"))


#: Each cell of the HTML report's summary table that spills over its neighbour: a cell's content
#: (the verdict badge) reaching past the cell's right edge.
SPILLS = """() => [...document.querySelectorAll('table tbody td')].filter(td => {
  const cell = td.getBoundingClientRect();
  return [...td.children].some(c => c.getBoundingClientRect().right > cell.right + 1);
}).map(td => td.innerText)"""


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_html_reports_verdict_badges_stay_in_their_cells(page: Page, tmp_path, width: int, height: int):
    """Issue 54, item 8: the REPORT_ONLY badge overlapped "nominal" in the HTML report's summary; on a
    phone the table now scrolls sideways rather than overlapping its columns."""
    from agreebound.cli.main import main

    report = tmp_path / "panel.html"
    assert main(["panel", str(ROOT / "sample_data" / "detector_panel.csv"), "--report", str(report)]) == 1
    page.set_viewport_size({"width": width, "height": height})
    page.goto(report.as_uri())
    assert page.evaluate(SPILLS) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(ARTIFACTS / f"html-report-summary-{width}.png"))


#: Each shown text (a caption, a paragraph, a heading) that a table's toolbar lies over: on a touch
#: screen Streamlit shows the toolbar always (opacity 1), 44 px above its table. A collapsed
#: expander's table (no box) and a toolbar drawn transparent are not over anything.
TOOLBAR_OVER_TEXT = """() => { const out = [];
  const texts = [...document.querySelectorAll(
    "[data-testid='stCaptionContainer'], [data-testid='stMarkdownContainer'] p, h1, h2, h3")];
  for (const t of document.querySelectorAll("[data-testid='stElementToolbar']")) {
    const r = t.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(t).opacity === '0' || t.closest('details:not([open])')) continue;
    for (const e of texts) {
      const q = e.getBoundingClientRect();
      if (q.width && r.left < q.right && r.right > q.left && r.top < q.bottom && r.bottom > q.top)
        out.push(e.innerText.slice(0, 80));
    }
  }
  return out; }"""


def test_on_a_touch_phone_no_table_toolbar_covers_a_caption(browser, app_url: str):
    """Issue 54, item 8: on a 390 px touch phone the Judge page's tables keep their toolbars off the
    captions above them ("240 of 240 cases", the confusion table's caption were covered)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{app_url}/judge")
        settle(page)
        expect(page.get_by_text("240 of 240 cases")).to_be_visible()
        assert page.evaluate("() => matchMedia('(hover:none)').matches")
        assert page.locator("[data-testid='stElementToolbar']").count() >= 2
        assert page.evaluate(TOOLBAR_OVER_TEXT) == []
        page.get_by_text("240 of 240 cases").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "judge-cases-toolbar-phone-390.png"))
    finally:
        context.close()
