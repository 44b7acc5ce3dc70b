"""The seams are typed: mypy (its settings in pyproject.toml, [tool.mypy]) finds no error in
src/agreebound, no module is left out of its check, and ``Any`` stays rare.

``Any`` is counted in the code, not in the text: every ``ast.Name`` ``Any`` and every attribute
``typing.Any``, in expressions and annotations, and inside string annotations (a quoted annotation,
a quoted ``TypeAlias``, the type given to ``cast``) parsed as code. Import lines hold no such node
(``from typing import Any`` is an ``ast.alias``), nor do comments and docstrings. An alias whose
definition holds ``Any`` (agreebound.core.json_types.JSONValue, for JSON read or written as data)
counts once, where it is defined. The bound holds for the whole tree.
"""

from __future__ import annotations

import ast
import collections
import sys
import tomllib
from pathlib import Path

import pytest
from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "agreebound"
#: The wheel's copies of the dashboard's scripts and data (links), not the package's modules.
NOT_MODULES = SRC / "site"
#: At most this many uses of ``Any`` in the whole of src/agreebound.
MAX_ANY = 250


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _module(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_any(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    return (isinstance(node, ast.Attribute) and node.attr == "Any" and isinstance(node.value, ast.Name)
            and node.value.id == "typing")


def _quoted_types(tree: ast.AST) -> list[str]:
    """The string annotations: a quoted annotation, a quoted TypeAlias's value, cast's quoted type."""
    out: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            out += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None]
            out.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            out.append(node.annotation)
            if (isinstance(node.annotation, ast.Name) and node.annotation.id == "TypeAlias"
                    or isinstance(node.annotation, ast.Attribute) and node.annotation.attr == "TypeAlias"):
                out.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "cast" and node.args:
            out.append(node.args[0])
    return [x.value for x in out if isinstance(x, ast.Constant) and isinstance(x.value, str)]


def any_uses(source: str) -> int:
    """The uses of ``Any`` in ``source`` (see the module's docstring)."""
    tree = ast.parse(source)
    n = sum(_is_any(node) for node in ast.walk(tree))
    for text in _quoted_types(tree):
        try:
            n += any_uses(text)
        except SyntaxError:  # not a type after all
            pass
    return n


def any_by_module() -> dict[str, int]:
    return {_module(p): any_uses(p.read_text(encoding="utf-8"))
            for p in sorted(SRC.rglob("*.py")) if NOT_MODULES not in p.parents}


def test_the_any_counter_counts_code_not_text():
    planted = '''
from typing import Any, cast
import typing
"""Any docstring that says Any is not counted."""
# nor is a comment: Any
Alias: typing.TypeAlias = "dict[str, Any]"
def f(a: Any, *rest: "list[Any]", **kw: int) -> typing.Any:
    x: dict[str, Any] = {}
    return cast("Any", x)
'''
    # the alias's quoted dict[str, Any], Any (a), list[Any] (quoted), typing.Any (the return),
    # dict[str, Any] (x), cast's "Any"; not the import, the docstring or the comment
    assert any_uses(planted) == 6
    assert any_uses("from typing import Any\n") == 0
    assert any_uses("Shape: TypeAlias = 'tuple[Any, ...]'\n") == 1
    # an alias holding Any counts once, where it is defined; its uses are other names
    assert any_uses("JSONValue: TypeAlias = Any\nJSONObject: TypeAlias = 'dict[str, JSONValue]'\n"
                    "def f(x: JSONObject) -> JSONValue: ...\n") == 1


def by_package(counts: dict[str, int]) -> dict[str, int]:
    """Uses of ``Any`` per package of agreebound (a top-level module counts as its own)."""
    out: collections.Counter[str] = collections.Counter()
    for m, n in counts.items():
        out[m.split(".")[1] if m.count(".") else m] += n
    return dict(sorted(out.items()))


def test_any_stays_rare():
    counts = any_by_module()
    total = sum(counts.values())
    print(f"Any: {total} in src/agreebound (bound {MAX_ANY}); by package: {by_package(counts)}", file=sys.stderr)
    worst = sorted(counts.items(), key=lambda kv: -kv[1])[:10]
    assert total <= MAX_ANY, f"{total} uses of Any in src/agreebound (at most {MAX_ANY}); most: {worst}"


def test_no_module_is_left_out_of_the_check():
    """No override turns mypy's errors off (``ignore_errors``), and every module under src/agreebound
    but the wheel's copies of the dashboard (site/) is among the files it checks."""
    config = _mypy_config()
    silenced = [block["module"] for block in config.get("overrides", []) if block.get("ignore_errors")]
    assert silenced == [], f"modules whose errors mypy is told to ignore: {silenced}"
    assert config["files"] == ["src/agreebound"] and config["exclude"] == ["^src/agreebound/site/"]


@pytest.fixture(scope="module")
def mypy_cache() -> Path:
    """mypy's own incremental cache in the checkout (git-ignored): a fresh clone checks every module
    (about 40 s here), a second run only what changed (a few seconds), with the same result."""
    return ROOT / ".mypy_cache"


def _mypy(cache: Path, *args: str) -> tuple[str, int]:
    stdout, stderr, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
                                           "--no-error-summary", *args])
    return stdout + stderr, status


def test_mypy_finds_no_error(mypy_cache: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ROOT)  # the config's files and mypy_path are relative to the project
    out, status = _mypy(mypy_cache)
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 0 and not errors, f"mypy found {len(errors)} error(s):\n" + out


def test_mypy_would_catch_a_wrong_level(mypy_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The check can fail: a level that is not one (a typo) is an error where a Level is taken."""
    monkeypatch.chdir(ROOT)
    planted = tmp_path / "planted_level.py"
    planted.write_text("from agreebound.panel.alpha import krippendorff_alpha\n"
                       "krippendorff_alpha([[1, 1], [2, 2]], 'ordinl')\n", encoding="utf-8")
    out, status = _mypy(mypy_cache, str(planted))
    assert status == 1 and "planted_level.py:2: error:" in out and "[arg-type]" in out, out
