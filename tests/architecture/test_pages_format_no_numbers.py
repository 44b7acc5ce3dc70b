"""The pages lay out; the ui components (and agreebound.render) format. No page formats a number
itself (an f-string's format spec such as ``:.3f``, ``:.2%`` or ``:,``; ``round()``; ``format()``),
and no ui module grows past 600 lines. The check is also run on a planted violation."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
UI = ROOT / "src" / "agreebound" / "ui"
MAX_LINES = 600


def number_formatting(source: str, name: str) -> list[str]:
    """name:line of each number formatted in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            found.append(f"{name}:{node.value.lineno}: a format spec")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("round", "format"):
            found.append(f"{name}:{node.lineno}: {node.func.id}()")
    return found


def test_pages_do_not_format_numbers():
    found = [f for p in PAGES for f in number_formatting(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())]
    assert not found, "format numbers in a ui component or agreebound.render, not in a page: " + "; ".join(found)


def test_the_check_finds_a_planted_number():
    planted = 'x = 1\nst.caption(f"{len(rows):,} rows, alpha {a:.3f}, {share:.2%}")\nround(a, 2)\nf"{name!r}"\n'
    assert sorted(number_formatting(planted, "p.py")) == ["p.py:2: a format spec"] * 3 + ["p.py:3: round()"]


def test_no_ui_module_is_over_600_lines():
    long = {p.relative_to(ROOT).as_posix(): n for p in sorted(UI.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long
