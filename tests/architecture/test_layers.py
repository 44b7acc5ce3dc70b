"""The house's rules, as code: data flows one way, no circle, no private name crosses a module.

The layers themselves are import-linter contracts in pyproject.toml ([tool.importlinter]); this file
runs them in `make test` and adds what import-linter does not check: circles between modules inside
a layer, and private names (`_x`) imported or reached across modules.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "agreebound"
SHELL = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> list[tuple[str, Path]]:
    found = [(_module_name(p), p) for p in sorted(SRC.rglob("*.py"))]
    return found + [(f"<{p.relative_to(ROOT)}>", p) for p in SHELL]


def test_the_layer_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph("agreebound", cache_dir=None, exclude_type_checking_imports=True)  # as the contracts read it
    edges = {m: {x for x in graph.find_modules_directly_imported_by(m) if x.startswith("agreebound.") and x != m}
             for m in graph.modules if m.startswith("agreebound")}
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _private_crossings(name: str, tree: ast.AST) -> list[str]:
    """`from agreebound.x import _y` and `x._y` on an imported agreebound module, from another module."""
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agreebound") \
                and node.level == 0 and node.module != name:
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    found.append(f"{name}:{node.lineno} imports {node.module}.{a.name}")
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("agreebound") and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{name}:{node.lineno} reaches {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_crosses_a_module():
    crossings = []
    for name, path in _sources():
        crossings += _private_crossings(name, ast.parse(path.read_text(encoding="utf-8")))
    assert crossings == []


@pytest.mark.parametrize("code, expected", [
    ("from agreebound.panel import _exact_sum", 1),
    ("from agreebound.io import formats\nformats._json('a', b'')", 1),
    ("from agreebound.panel import exact_sum, __version__", 0),
])
def test_the_private_check_sees_a_crossing(code, expected):
    assert len(_private_crossings("agreebound.panel.counts", ast.parse(code))) == expected


def test_only_ui_and_render_import_streamlit_or_plotly():
    for name, path in _sources():
        if name.startswith(("agreebound.ui", "<")):
            continue
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
        assert "streamlit" not in imported, name
        if not name.startswith("agreebound.render"):
            assert "plotly" not in imported, name


def test_every_module_has_a_layer():
    """A module missing from the layers would escape the contract: every top-level module and
    package of agreebound is named in one."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "domains")["layers"]
    named = {name.strip() for layer in layers for name in layer.replace("|", ":").split(":")}
    tops = {f"agreebound.{p.stem}" for p in SRC.glob("*.py") if p.stem != "__init__"}
    tops |= {f"agreebound.{p.parent.name}" for p in SRC.glob("*/__init__.py")}
    assert sorted(tops - named) == []
