"""The HTML reports opened in headless chromium: axe-core finds no serious or critical violation,
the page requests nothing from the network, every chart label is whole (inside its figure), and a
printed A4 page holds every chart's full width. Screenshots (1440x900 and 794 px wide, A4 portrait
at 96 dpi) and the PDFs go to artifacts/."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

from agreebound.cli.main import main

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # `pip install -e '.[test]'` installs it; CI must not skip
    if os.environ.get("CI"):
        raise
    Axe = None

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
ARTIFACTS = ROOT / "artifacts"
pytestmark = pytest.mark.e2e

#: A4 portrait at 96 dpi is 794 px wide; less the report's 12 mm print margins, 703 px.
A4_PX, PRINT_MARGIN_PX = 794, round(12 / 25.4 * 96)
CASES = {
    "panel": (["panel", S / "detector_panel.csv", "--rates", S / "detector_rates.csv"], 6),
    "k2011": (["panel", S / "krippendorff_2011.csv"], 1),
    "judge": (["calibrate", S / "judge_failing.json"], 1),
    "judge-log": (["calibrate", S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl",
                   "--references", S / "judge_logs" / "mt_bench_human_judgments.jsonl"], 1),
    # long and hostile detector names: cut (with their length said), slanted, never clipped
    "names": (["panel", "{tmp}/<b>names **bold**.csv"], 2),
}
NAMES = ["<script>alert(1)</script>", "**x** detector with a very long name that goes on and on and on, past sixty",
         "det_c", "| --- |"]


def hostile_ratings(path: Path) -> None:
    rows = ["unit," + ",".join(f'"{n}"' for n in NAMES)]
    rows += [f"u{u}," + ",".join(str((u // (k + 1) + k) % 3 == 0 and 1 or 0) for k in range(len(NAMES)))
             for u in range(90)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")

#: Every SVG text of every chart that reaches outside its figure (cut by the figure's edge).
CLIPPED = """() => {
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((plot, i) => {
    const box = plot.querySelector('.main-svg').getBoundingClientRect();
    plot.querySelectorAll('text').forEach((t) => {
      const r = t.getBoundingClientRect();
      if (!t.textContent.trim() || r.width === 0) { return; }
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push(`chart ${i}: "${t.textContent}" [${Math.round(r.left)}, ${Math.round(r.right)}] outside `
                 + `[${Math.round(box.left)}, ${Math.round(box.right)}]`);
      }
    });
  });
  return out;
}"""


def settle(page: Page, charts: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}",
                           timeout=30_000)
    page.wait_for_timeout(600)  # responsive charts re-lay out after the first paint


@pytest.fixture
def page(context: BrowserContext) -> Page:
    """A context of its own (not the process's shared tab): the test counts every request the report makes."""
    return context.new_page()


@pytest.mark.skipif(Axe is None, reason="axe-playwright-python is not installed (pip install -e '.[test]')")
@pytest.mark.parametrize("name", list(CASES))
def test_report_is_accessible_offline_whole_and_printable(page: Page, tmp_path, name):
    argv, charts = CASES[name]
    path = tmp_path / f"{name}.html"
    if name == "names":
        argv = [str(a).replace("{tmp}", str(tmp_path)) for a in argv]
        hostile_ratings(Path(argv[1]))
    assert main([str(a) for a in argv] + ["--report", str(path)]) in (0, 1)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    ARTIFACTS.mkdir(exist_ok=True)

    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(path.as_uri())
    settle(page, charts)
    assert page.locator(".js-plotly-plot").count() == charts
    found = Axe().run(page).response["violations"]
    serious = [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:5]]}"
               for v in found if v["impact"] in ("serious", "critical")]
    assert serious == []
    assert page.evaluate(CLIPPED) == []
    page.screenshot(path=str(ARTIFACTS / f"report-{name}-1440.png"), full_page=True)

    page.set_viewport_size({"width": A4_PX, "height": 1123})
    page.wait_for_timeout(800)
    assert page.evaluate(CLIPPED) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= A4_PX  # no sideways scrolling
    page.screenshot(path=str(ARTIFACTS / f"report-{name}-794.png"), full_page=True)

    # Printed on A4: the page box is 794 px less the margins; every chart lies inside it.
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_PX - 2 * PRINT_MARGIN_PX, "height": 1000})
    page.wait_for_timeout(300)
    width = A4_PX - 2 * PRINT_MARGIN_PX
    rights = page.evaluate("[...document.querySelectorAll('.js-plotly-plot .main-svg')]"
                           ".map((s) => s.getBoundingClientRect().right)")
    assert rights and max(rights) <= width + 1, (rights, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    pdf = page.pdf(path=str(ARTIFACTS / f"report-{name}.pdf"), format="A4")
    assert pdf.startswith(b"%PDF") and re.search(rb"/MediaBox \[0 0 59[56]\.?\d* 84[12]\.?\d*\]", pdf)
    page.emulate_media(media="screen")

    assert [u for u in requests if u.startswith(("http:", "https:", "ws:", "wss:"))] == []
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
    assert errors == []
