"""io reads and never measures: its modules import no measuring, deciding or rendering code, form
no circle among themselves, and the domain types they build (agreebound.panel.ratings) and the rules
about the data (agreebound.panel.levels) live below them, in the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agreebound.core.errors import InputError
from agreebound.io.json_toml import DuplicateKey, no_duplicates, read_json, read_toml
from agreebound.io.records import csv_records
from agreebound.io.values import classify_values, whole_number

SRC = Path(__file__).resolve().parents[2] / "src" / "agreebound"
#: What io may never import: the measuring, deciding and rendering layers and everything above them.
ABOVE_IO = ("agreebound.panel.measure", "agreebound.panel.intervals", "agreebound.panel.coefficients", "agreebound.panel.counts",
            "agreebound.judge.counts", "agreebound.render", "agreebound.engines", "agreebound.ui",
            "agreebound.cli.main", "agreebound.app.store", "agreebound.app.history", "agreebound.app.pipeline")


def _imports(path: Path) -> set[str]:
    """Every agreebound module a file imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agreebound"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("agreebound")}
    return found


@pytest.mark.parametrize("path", sorted((SRC / "io").glob("*.py")), ids=lambda p: p.stem)
def test_io_imports_nothing_that_measures_decides_or_renders(path):
    assert not {m for m in _imports(path) if m.startswith(ABOVE_IO)}


@pytest.mark.parametrize("core", ["ratings", "levels"])
def test_the_domain_types_and_the_level_rules_sit_below_io(core):
    assert not {m for m in _imports(SRC / "panel" / f"{core}.py") if m.startswith(("agreebound.io",) + ABOVE_IO)}


def test_the_io_modules_form_no_circle():
    edges = {p.stem: {m.split(".")[2] for m in _imports(p) if m.startswith("agreebound.io.")} - {p.stem}
             for p in (SRC / "io").glob("*.py")}
    done: set[str] = set()

    def visit(m: str, path: tuple[str, ...]) -> None:
        assert m not in path, " -> ".join(path + (m,))
        if m in done:
            return
        for n in edges.get(m, ()):
            visit(n, path + (m,))
        done.add(m)

    for m in sorted(edges):
        visit(m, ())


def test_json_is_read_strictly_with_the_line_of_a_repeated_key():
    with pytest.raises(InputError) as e:
        read_json("t.json", b'{\n "a": 1,\n "a": 2\n}')
    assert (e.value.row, e.value.column) == (3, "a")
    with pytest.raises(DuplicateKey):
        no_duplicates([("k", 1), ("k", 2)])
    with pytest.raises(InputError, match="NaN is not a number JSON allows"):
        read_json("t.json", b'{"a": NaN}')
    assert read_toml("t.toml", b"[panel]\nalpha_floor_permil = 800\n") == {"panel": {"alpha_floor_permil": 800}}


def test_values_are_classified_exactly_and_whole_numbers_checked():
    kinds, bad = classify_values(["1", "2.5", "NA", "yes", None])
    assert bad is None
    assert kinds.missing.tolist() == [False, False, True, False, True]
    assert kinds.number.tolist() == [True, True, False, False, False]
    assert kinds.decimal.tolist() == [False, True, False, False, False]
    _, bad = classify_values(["1.23456789012345678"])  # more digits than a float holds
    assert bad is not None and "significant digits" in bad[1]
    assert whole_number("r.csv", 2, "total", "12", minimum=1) == 12
    with pytest.raises(InputError, match="expected a whole number >= 1, got 0"):
        whole_number("r.csv", 2, "total", "0", minimum=1)


def test_the_seeds_record_csv_is_typed_and_located():
    fields = ("case_id", "repetition", "adjudicated", "reviewer_ids")
    frame, table = csv_records("r.csv", b"case_id,repetition,adjudicated,reviewer_ids\nc1,2,true,a;b\n", fields)
    assert frame.to_dict("records") == [{"case_id": "c1", "repetition": 2, "adjudicated": True,
                                         "reviewer_ids": ("a", "b")}]
    with pytest.raises(InputError) as e:
        csv_records("r.csv", b"case_id,repetition,adjudicated,reviewer_ids\nc1,2,maybe,a\n", fields)
    assert (e.value.row, e.value.column) == (2, "adjudicated")
