"""The HTML report without a browser: rendered HTML (not Markdown), escaped names, landmarks and
heading order, nothing fetched from the network; and the report file names."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agreebound.panel.measure import measure_panels
from agreebound.cli.main import main
from agreebound.io.ratings import parse_ratings
from agreebound.app.pipeline import decide_panels
from agreebound.render.names import report_filename
from agreebound.core.thresholds import DEFAULT
from agreebound.render.view import panel_view

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
WHEN = datetime(2026, 11, 30, 9, 12, 59, tzinfo=timezone.utc)

CASES = {
    "panel": ["panel", S / "detector_panel.csv", "--rates", S / "detector_rates.csv"],
    "k2011": ["panel", S / "krippendorff_2011.csv"],
    "judge": ["calibrate", S / "judge_failing.json"],
    "judge-log": ["calibrate", S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl",
                  "--references", S / "judge_logs" / "mt_bench_human_judgments.jsonl"],
}


class Page(HTMLParser):
    """Every tag with its attributes, the headings in order, the text outside scripts."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.headings: list[tuple[int, str]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            if tag == "script":
                self.scripts.append("")
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append((int(tag[1]), ""))

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in is None:
            self.text.append(data)
            if self.headings and not self.headings[-1][1]:
                self.headings[-1] = (self.headings[-1][0], data.strip())


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    out = {}
    folder = tmp_path_factory.mktemp("reports")
    for name, argv in CASES.items():
        path = folder / f"{name}.html"
        assert main([str(a) for a in argv] + ["--report", str(path)]) in (0, 1)
        out[name] = path.read_text(encoding="utf-8")
    return out


def hostile_page() -> str:
    data = ("unit,<script>alert(1)</script>,**x**,| --- |,[l](http://evil.example)\n"
            + "".join(f"u{i},{i % 2},{i % 2},{(i // 2) % 2},{i % 3 % 2}\n" for i in range(40))).encode()
    name = "<b>names</b> **bold**.csv"
    ms = measure_panels(parse_ratings(name, data), positive="1")
    return panel_view(ms, decide_panels(ms, DEFAULT), DEFAULT, [(name, data)]).html()


@pytest.mark.parametrize("name", list(CASES))
def test_summary_is_html_not_markdown(pages, name):
    page = pages[name]
    doc = Page(page)
    text = "".join(doc.text)
    assert "<pre" not in page
    for marker in ("| ---", "|---", "**", "## ", "](", "`"):
        assert marker not in text, marker
    assert page.count("<table") >= 2 and "<th scope=\"col\">threshold</th>" in page
    assert "<th scope=\"col\">result</th>" in page
    if name in ("panel", "k2011"):
        assert "at least 0.600 (600 permil)" in text and "Every dimension" in text
    elif name == "judge-log":  # no contract: measured against illustrative limits, not decided (no FAIL)
        assert "at least 90.00% (9,000 bps)" in text and "outside the limit" in text and "FAIL" not in text
        assert "INCOMPLETE: no contract: measured against illustrative limits" in text
    else:
        assert "at least 90.00% (9,000 bps)" in text and "FAIL" in text


@pytest.mark.parametrize("name", list(CASES))
def test_landmarks_title_language_and_heading_order(pages, name):
    page = pages[name]
    doc = Page(page)
    tags = [t for t, _ in doc.tags]
    assert tags.count("main") == 1 and tags.count("header") == 1 and tags.count("footer") == 1
    assert dict(doc.tags[tags.index("html")][1]).get("lang") == "en"
    assert re.search(r"<title>Agreebound (panel|judge calibration) report: [^<]+</title>", page)
    levels = [level for level, _ in doc.headings]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:])), levels  # no skipped level
    ids = {a.get("id") for _, a in doc.tags if a.get("id")}
    labelled = [a["aria-labelledby"] for t, a in doc.tags if t in ("section", "figure") and a.get("aria-labelledby")]
    assert labelled and all(x in ids for x in labelled)
    assert all(a.get("aria-labelledby") for t, a in doc.tags if t == "section")


@pytest.mark.parametrize("name", list(CASES))
def test_nothing_is_fetched_plotly_inlined_once_mathjax_off(pages, name):
    page = pages[name]
    doc = Page(page)
    for tag, attrs in doc.tags:
        for attr in ("src", "href", "xlink:href", "srcset", "action", "data", "poster"):
            value = (attrs.get(attr) or "").strip().lower()
            assert not value.startswith(("http:", "https:", "//")), (tag, attr, value)
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        if tag == "script":
            assert "src" not in attrs
    assert "@import" not in page and not re.search(r"url\(\s*['\"]?(https?:)?//", page)
    assert sum(len(s) > 500_000 for s in doc.scripts) == 1  # plotly.js, once
    assert "mathjax" not in " ".join(a.get("src") or "" for _, a in doc.tags).lower()


def test_charts_have_headings_and_the_toolbar_stays_offline(pages):
    page = pages["panel"]
    assert page.count('class="plotly-graph-div"') == 6
    assert page.count('<figure class="chart"') == 6
    assert '"displaylogo": false' in page and '"toImageButtonOptions"' in page
    assert '"filename": "detector_panel-violence-alpha"' in page
    assert pages["judge"].count('class="plotly-graph-div"') == 1


def test_user_names_are_escaped_never_markup():
    page = hostile_page()
    doc = Page(page)
    text = "".join(doc.text)
    assert "<script>alert(1)" not in page  # not as a tag, not even inside plotly's JSON
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" in text  # shown as the text it is
    assert "**x**" in text and "<strong>x</strong>" not in page and "<em>x</em>" not in page
    assert "<b>names</b>" not in page and "&lt;b&gt;names&lt;/b&gt; **bold**.csv" in page
    assert '<a href="http://evil.example"' not in page and "<a " not in page.split("<main>")[1].split("<script")[0]
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert "<" not in title and "&lt;b&gt;" in title


def test_long_names_are_cut_with_their_length_said():
    data = ("unit," + "d" * 300 + ",e\n" + "".join(f"u{i},{i % 2},{(i // 2) % 2}\n" for i in range(20))).encode()
    ms = measure_panels(parse_ratings("long.csv", data), positive="1")
    page = panel_view(ms, decide_panels(ms, DEFAULT), DEFAULT, [("long.csv", data)]).html()
    assert "d" * 61 not in page.split("<script")[0]
    assert "d" * 60 + "... (300 characters)" in page


# --- file names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args, expected", [
    (("detector_panel", "panel", "html"), "detector_panel-panel-20261130T0912Z.html"),
    (("judge_failing", "judge", ".md"), "judge_failing-judge-20261130T0912Z.md"),
    (("mt_bench_gpt-4_pair", "judge", "json"), "mt_bench_gpt-4_pair-judge-20261130T0912Z.json"),
    (("my ratings (final)", "panel", "html"), "my_ratings_final-panel-20261130T0912Z.html"),
    (("Ünïcödé", "panel", "html"), "Unicode-panel-20261130T0912Z.html"),
    (("<script>", "panel", "html"), "script-panel-20261130T0912Z.html"),
    (("../../etc/passwd", "panel", "html"), "etc_passwd-panel-20261130T0912Z.html"),
    (("-rf", "panel", "html"), "rf-panel-20261130T0912Z.html"),
    (("", "judge", "html"), "data-judge-20261130T0912Z.html"),
    (("\u202e\u200b", "judge", "html"), "data-judge-20261130T0912Z.html"),
])
def test_report_filename(args, expected):
    assert report_filename(*args, when=WHEN) == expected
    assert re.fullmatch(r"[A-Za-z0-9._-]+", expected)


def test_report_filename_cuts_to_60_and_writes_utc():
    name = report_filename("a" * 100, "panel", "html", WHEN)
    assert name == "a" * 60 + "-panel-20261130T0912Z.html"
    east = WHEN.astimezone(timezone(timedelta(hours=5, minutes=30)))
    assert report_filename("x", "judge", "html", east) == "x-judge-20261130T0912Z.html"
    now = report_filename("x", "panel", "html")
    stamp = datetime.strptime(now.split("-")[2], "%Y%m%dT%H%MZ.html").replace(tzinfo=timezone.utc)
    assert abs(datetime.now(timezone.utc) - stamp) < timedelta(minutes=2)
    with pytest.raises(ValueError):
        report_filename("x", "other", "html", WHEN)
    with pytest.raises(ValueError):
        report_filename("x", "panel", "../html", WHEN)


def test_cli_names_the_report_in_a_folder_given_with_its_slash(tmp_path, capsys):
    code = main(["panel", str(S / "detector_panel.csv"), "--report", str(tmp_path) + "/"])
    err = capsys.readouterr().err
    written = list(tmp_path.iterdir())
    assert code == 1 and len(written) == 1
    assert re.fullmatch(r"detector_panel-panel-\d{8}T\d{4}Z\.html", written[0].name)
    assert written[0].name in err
    assert "<h2 id=\"summary\">Summary</h2>" in written[0].read_text(encoding="utf-8")
    judge = tmp_path / "judge"
    judge.mkdir()
    assert main(["calibrate", str(S / "judge_failing.json"), "--report", f"{judge}/"]) == 1
    assert re.fullmatch(r"judge_failing-judge-\d{8}T\d{4}Z\.html", next(judge.iterdir()).name)


def test_cli_still_refuses_a_folder_without_its_slash(tmp_path, capsys):
    assert main(["panel", str(S / "detector_panel.csv"), "--report", str(tmp_path)]) == 3
    assert "end the folder with / for a generated name" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert main(["panel", str(S / "detector_panel.csv"), "--report", str(tmp_path / "missing") + "/"]) == 3
    assert "does not exist" in capsys.readouterr().err
