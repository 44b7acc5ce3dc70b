"""User text is data: terminal, Markdown, HTML and spreadsheet escaping, and the reports that use it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agreebound.panel.measure import measure_panels
from agreebound.core.escape import csv_cell, excerpt, html_text, md_code, md_text, normalise_name, printable
from agreebound.io.ratings import parse_ratings
from agreebound.render.report import panel_report
from agreebound.render.markdown import to_markdown
from agreebound.app.pipeline import decide_panels
from agreebound.core.thresholds import DEFAULT

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"


def test_printable_escapes_terminal_controls_bidi_and_undecodable_bytes():
    assert printable("a\x1b[31mred\x1b]0;title\x07") == "a\\x1b[31mred\\x1b]0;title\\x07"
    assert printable("one\ntwo\r\tthree") == "one\\ntwo\\r\\tthree"
    assert printable("\u202egnp.exe") == "\\u202egnp.exe" and printable("a\u200bb") == "a\\u200bb"
    assert printable("\udcff\udcfe.csv") == "\\udcff\\udcfe.csv"  # a file name that is not UTF-8
    assert printable("x" * 50, 10) == "xxxxxxxxxx... (50 characters)"


def test_excerpt_is_short_and_quoted():
    assert excerpt("x" * 2**20) == "'" + "x" * 40 + "...' (1,048,576 characters)"
    assert excerpt("ok") == "'ok'"


@pytest.mark.parametrize("text", [
    "[click](http://evil.example)", "![img](http://evil.example/i.png)", "<a href=x>y</a>", "**bold** _em_",
    "`code`", ":red[boom] :material/home:", "$x^2$", "www.evil.example", "me@evil.example", "# heading",
    "| pipe |", "1. list", "> quote", "~~strike~~",
])
def test_md_text_leaves_no_markdown_to_interpret(text):
    escaped = md_text(text)
    # every ASCII punctuation character is escaped, and no scheme or @ is left joinable into a link
    unescaped_punct = re.sub(r"\\[!-/:-@\[-`{-~]", "", escaped)
    assert not re.search(r"[!-/:-@\[-`{-~]", unescaped_punct.replace("\u2060", ""))
    assert not re.search(r"(?i)(https?|www|@)\\?[:.@]?(?!\u2060)\\[:./]", escaped.replace("\u2060", "\u2060"))
    # and what a reader sees is the text itself
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped).replace("\u2060", "") == text


def test_md_code_cannot_be_broken_out_of():
    assert md_code("plain") == "`plain`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("``x``") == "``` ``x`` ```"


def test_html_text_and_csv_cells():
    assert html_text("<a href='x'>y</a>") == "&lt;a href=&#x27;x&#x27;&gt;y&lt;/a&gt;"
    for formula in ("=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx", "=HYPERLINK(\"http://x\")"):
        assert csv_cell(formula) == "'" + formula
    assert csv_cell("-0.25") == "-0.25" and csv_cell("+3") == "+3" and csv_cell(-1) == -1 and csv_cell("ok") == "ok"
    # an exact negative fraction (a coefficient's exact value in a table) is a number, shown without
    # an apostrophe; with anything after it, it is text that could be a formula
    assert csv_cell("-146/6289") == "-146/6289"
    assert csv_cell("-146/6289*A1") == "'-146/6289*A1" and csv_cell("-1/0x1") == "'-1/0x1"


def test_names_are_normalised_one_way():
    assert normalise_name("  bob\u200b ") == "bob"
    assert normalise_name("cafe\u0301") == "caf\u00e9"
    assert normalise_name("\u202ebob") == "bob"


def test_markdown_report_of_hostile_names_renders_them_as_text():
    for name in ("markdown_names.csv", "html_names.csv", "long_markup_dimension.csv"):
        panels = parse_ratings(name, (HOSTILE / name).read_bytes())
        md = to_markdown(panel_report(measure_panels(panels), decide_panels(measure_panels(panels), DEFAULT), DEFAULT, [(name, b"x")]))
        assert "](http" not in md and "<a " not in md and "<img" not in md and ":red[" not in md
        assert not re.search(r"(?<!\\)\[", md.split("| dimension |")[0])  # no unescaped link text up top


def test_html_report_escapes_names_in_charts_and_text():
    from agreebound.render.view import panel_view

    panels = parse_ratings("html_names.csv", (HOSTILE / "html_names.csv").read_bytes())
    ms = measure_panels(panels, positive="1")
    page = panel_view(ms, decide_panels(ms, DEFAULT), DEFAULT, [("html_names.csv", b"x")]).html()
    assert "<a href=http://evil.example>" not in page and "<img src=x onerror" not in page
    assert "&lt;a href=http:" in page  # shown, as text (plotly then writes its "/" as \\u002f)


def test_a_dashboard_table_is_the_same_escaped_text_from_rows_or_from_a_frame():
    """st.table renders every cell and header as Markdown: whether a page hands the rows or a frame,
    the Arrow table sent holds each as escaped text, cut at the limit, None as an empty cell."""
    import pandas as pd

    from agreebound.ui.blocks import md_table, raw_columns

    rows = [{"*name*": ">= 9000", "n": 3, "note": None}, {"*name*": "<b>x</b>", "n": 4, "note": "y" * 30}]
    from_rows = md_table(*raw_columns(rows), limit=10)
    assert from_rows.equals(md_table(*raw_columns(pd.DataFrame(rows)), limit=10))
    assert from_rows.column_names == [md_text("*name*", 80), "n", "note"]
    assert from_rows.to_pydict() == {md_text("*name*", 80): [md_text(">= 9000", 10), md_text("<b>x</b>", 10)],
                                     "n": ["3", "4"], "note": ["", md_text("y" * 30, 10)]}
    assert from_rows.column(0).to_pylist()[0].startswith("\\>")  # not a quotation
