"""A list or an object in a cell is never a category, a rater or a unit (issue 50): an annotation
tool's nested export, the same flattened, and a dataset's list columns were read as labels (alpha
-130 and -229 permil, or REFUSE_SINGLE) with no warning. The shapes that are known are now read
(Argilla's exports and a dataset's annotators/labels lists: tests/io/test_dataset_shapes.py); any
other list or object in a used column is refused at its first record, naming the field, exit 3; a
nested field the mapping does not use never stops a file; labels that merely look bracketed stay
labels."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import process

CATS = ("pos", "neg", "neu")
USERS = ("u1", "u2", "u3")


def _labels(i: int) -> list[str]:
    return [CATS[(i + j * (i % 2)) % 3] for j in range(3)]


def _votes_objects(i: int) -> dict:
    """A tool's record whose votes are an object per rater (no known export: never read as labels)."""
    return {"id": f"r{i}", "text": f"t{i}", "votes": {u: v for u, v in zip(USERS, _labels(i))}}


def _long_with_list_values(i: int) -> dict:
    """One row per rating whose value is a list (a multi-label answer): not one category."""
    return {"unit": f"r{i // 3}", "rater": USERS[i % 3], "value": _labels(i)[:2]}


def _list_in_a_wide_column(i: int) -> dict:
    return {"id": f"r{i}", "u1": _labels(i)[0], "u2": _labels(i)[1:]}


def _cli(path) -> tuple[int, str, str]:
    proc = process("panel", path, text=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


TAIL = ("a cell holds one label, never a list or an object. An export that nests its annotations (per-question "
        "responses, lists of annotators and labels) needs one row per unit, rater and label")


@pytest.mark.parametrize("name,make,array,said", [
    ("votes.json", _votes_objects, True,
     "votes.json, record 1, column 'votes': an object in a cell ('{\"u1\": \"pos\", \"u2\": \"pos\", \"u3\": \"pos\"}'): "),
    ("multi_label.jsonl", _long_with_list_values, False,
     "multi_label.jsonl, line 1, column 'value': a list in a cell ('[\"pos\", \"pos\"]'): "),
    ("wide_list.jsonl", _list_in_a_wide_column, False,
     "wide_list.jsonl, line 1, column 'u2': a list in a cell ('[\"pos\", \"pos\"]'): "),
])
def test_unknown_nested_shapes_are_refused_at_their_first_record_naming_the_field(tmp_path, name, make, array, said):
    records = [make(i) for i in range(30)]
    path = tmp_path / name
    path.write_text(json.dumps(records) if array else "".join(json.dumps(r) + "\n" for r in records))
    code, out, err = _cli(path)
    assert (code, out, err) == (3, "", said + TAIL + "\n")


def test_a_list_column_as_pandas_writes_it_to_csv_is_refused_at_its_row(tmp_path):
    path = tmp_path / "lists.csv"
    path.write_text("unit,rater,label\na,r1,pos\na,r2,pos\nb,r1,neg\nb,r2,\"['neg', 'pos']\"\n")
    code, _, err = _cli(path)
    assert code == 3
    assert err.startswith("lists.csv, row 5, column 'label': a list in a cell ('['neg', 'pos']'): a cell holds one")


def test_an_ignored_nested_field_does_not_stop_a_file_and_bracketed_labels_stay_labels(tmp_path):
    rows = []
    for u in range(12):
        for r in ("r1", "r2"):
            label = ("[redacted]", "{x}", "ok")[(u + (r == "r2") * (u % 4 == 0)) % 3]
            rows.append({"unit": f"u{u}", "rater": r, "value": label, "meta": {"source": "s", "tags": [1, 2]}})
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = _cli(path)
    assert err == "" and code in (0, 1, 2), err
    assert "note: ignored columns: 'meta'" in out
    assert "categories (3): " in out and "[redacted] (" in out and "{x} (" in out
