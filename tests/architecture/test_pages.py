"""The pages are layout only: app.py and pages/*.py import the ui, the renderers and the view-model
modules (the gate's words, the pipeline's recipes), nothing below them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PAGE_IMPORTS = ("agreebound.ui", "agreebound.render", "agreebound.core.gate", "agreebound.app.pipeline",
                "agreebound.app.recipes")  # the pipeline and its recipes (the types a page hands it)


def test_pages_import_only_the_ui_the_renderers_and_the_view_model():
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                if name.split(".")[0] == "agreebound":
                    assert name.startswith(PAGE_IMPORTS), f"{path.name}:{node.lineno} imports {name}"
