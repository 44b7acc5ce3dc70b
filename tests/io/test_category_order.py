"""A labelled ordinal scale read in the order the user gives (issue 54, item 6): ``--order``, the
mapping's ``order`` and the library's ``encode(order=...)`` give the ``krippendorff`` package's
ordinal alpha with the same ``value_domain``; labels the order lacks are a located error;
``--recode`` and the mapping's ``recode`` rename and merge labels, counted in the notes; labels
that look ordered get the ordinal level suggested with the order they seem to have."""

from __future__ import annotations

import json
from fractions import Fraction

import krippendorff
import numpy as np
import pytest

from agreebound.io.mapping import Mapping
from agreebound.io.ratings import import_ratings, parse_mapping
from agreebound.panel.alpha import alpha
from agreebound.panel.categories import encode
from agreebound.panel.counts import from_coded
from agreebound.panel.levels import admissible_levels, default_level, inferred_order, suggest_level
from tests.support.cli import run

ORDER = ["1st grade", "2nd grade", "3rd grade", "4th Grade"]  # the R irr package's `vision` grades


def vision_like(seed: int = 7, units: int = 80, raters: int = 5) -> list[list[str | None]]:
    """Raters grading items on vision's labelled scale, mostly within a grade of each other, some cells missing."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(units):
        truth = int(rng.integers(0, 4))
        rows.append([None if rng.random() < 0.15 else ORDER[min(3, max(0, truth + int(rng.integers(-1, 2))))]
                     for _ in range(raters)])
    return rows


MATRIX = vision_like()


def csv_of(rows: list[list[str | None]]) -> bytes:
    lines = ["item," + ",".join(f"r{j + 1}" for j in range(len(rows[0])))]
    lines += [f"u{i}," + ",".join("" if v is None else v for v in row) for i, row in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


def package_alpha(rows: list[list[object]], order: list[object], level: str = "ordinal") -> float:
    """The krippendorff package's alpha of units x raters ``rows`` (None missing) in ``order``."""
    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=object).T
    if isinstance(order[0], str):
        data = data.astype(str)  # the package reads text with NaN as "nan", a missing value
    else:
        data = data.astype(float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=order))


EXPECTED = package_alpha(MATRIX, ORDER)


@pytest.fixture
def vision(tmp_path):
    path = tmp_path / "vision.csv"
    path.write_bytes(csv_of(MATRIX))
    return path


def dimension(out: str) -> dict:
    (d,) = json.loads(out)["panel"]["dimensions"]
    return d


WORDS = ["poor", "fair", "good", "excellent"]  # the same grades in words: their text order is another one


@pytest.mark.parametrize("order", [ORDER, ["2nd grade", "1st grade", "3rd grade", "4th Grade"]])
def test_the_order_given_is_the_one_read(capsys, tmp_path, order):
    """Whatever the order, the package's alpha in that order: the ranks are the order's, not the text's
    (vision's own labels sort as text in their order; words do not; a swapped order is another alpha)."""
    words = [[None if v is None else WORDS[ORDER.index(v)] for v in row] for row in MATRIX]
    word_order = [WORDS[ORDER.index(v)] for v in order]
    assert sorted(word_order) != word_order
    path = tmp_path / "words.csv"
    path.write_bytes(csv_of(words))
    code, out, _ = run(capsys, "panel", path, "--order", ",".join(word_order), "--json")
    expected = package_alpha(words, word_order)
    assert abs(float(Fraction(dimension(out)["alpha"]["exact"])) - expected) < 1e-12
    assert (abs(expected - EXPECTED) < 1e-12) == (order == ORDER)


def test_library_encode_in_order_is_the_packages_ordinal_alpha():
    a = alpha(from_coded(encode(np.array(MATRIX, dtype=object), order=ORDER)), "ordinal")
    assert abs(float(a.value) - EXPECTED) < 1e-12
    # numbers in an order of the user's too (the package's value_domain of numbers)
    numbers = [[None if v is None else ORDER.index(v) + 1 for v in row] for row in MATRIX]
    assert abs(float(alpha(from_coded(encode(numbers, order=[1, 2, 3, 4])), "ordinal").value) - EXPECTED) < 1e-12
    with pytest.raises(ValueError, match=r"1 value not in the order given: '4th Grade'"):
        encode(np.array(MATRIX, dtype=object), order=ORDER[:3])
    with pytest.raises(ValueError, match="interval alpha needs numeric values"):
        alpha(from_coded(encode(np.array(MATRIX, dtype=object), order=ORDER)), "interval")


def test_cli_order_gives_the_packages_ordinal_alpha_in_the_json_report(capsys, vision):
    code, out, err = run(capsys, "panel", vision, "--order", ",".join(ORDER), "--level", "ordinal", "--json")
    assert code in (0, 1, 2), err
    d = dimension(out)
    assert d["level"]["in_force"] == "ordinal" and d["level"]["chosen_by"] == "user"
    assert abs(float(Fraction(d["alpha"]["exact"])) - EXPECTED) < 1e-12
    assert d["kind"] == "label"
    assert ("categories in the order given, lowest first: '1st grade' < '2nd grade' < '3rd grade' < '4th Grade'; "
            "the ordinal level reads their ranks") in d["notices"]
    assert json.loads(out)["read"]["mapping"]["order"] == ORDER
    # an order given and no level: ordinal is the default, said as such
    code, out, _ = run(capsys, "panel", vision, "--order", json.dumps(ORDER), "--json")
    d = dimension(out)
    assert (d["level"]["in_force"], d["level"]["chosen_by"]) == ("ordinal", "default")
    assert d["level"]["chosen_reason"] == "the categories' order was given: the ordinal level reads their ranks"
    assert abs(float(Fraction(d["alpha"]["exact"])) - EXPECTED) < 1e-12
    assert set(d["level"]["alpha_at_levels"]) == {"nominal", "ordinal"}


def test_mapping_order_gives_the_packages_ordinal_alpha(capsys, tmp_path, vision):
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({"layout": "wide", "unit": ["item"], "order": ORDER, "level": "ordinal"}))
    code, out, err = run(capsys, "panel", vision, "--mapping", mapping, "--json")
    d = dimension(out)
    assert (d["level"]["in_force"], d["level"]["chosen_by"]) == ("ordinal", "mapping")
    assert abs(float(Fraction(d["alpha"]["exact"])) - EXPECTED) < 1e-12
    # the library's panel audit through the same mapping
    from agreebound.api import audit_panel

    report = audit_panel(vision, mapping=mapping).report
    (d,) = report["panel"]["dimensions"]
    assert abs(float(Fraction(d["alpha"]["exact"])) - EXPECTED) < 1e-12
    # --order replaces the mapping's order (here: reversed, which reverses no ordinal alpha)
    code, out, _ = run(capsys, "panel", vision, "--mapping", mapping, "--order", ",".join(ORDER[::-1]), "--json")
    assert abs(float(Fraction(dimension(out)["alpha"]["exact"])) - EXPECTED) < 1e-12
    assert json.loads(out)["read"]["mapping"]["order"] == ORDER[::-1]


def test_a_mapping_orders_each_dimension_and_round_trips():
    rows = ["unit,rater,value,dimension"]
    for i, row in enumerate(MATRIX):
        for j, v in enumerate(row):
            if v is not None:
                rows.append(f"u{i},r{j},{v},grade")
                rows.append(f"u{i},r{j},{'yes' if ORDER.index(v) > 1 else 'no'},flag")
    data = ("\n".join(rows) + "\n").encode()
    m = Mapping.from_dict({"layout": "long", "unit": "unit", "rater": "rater", "value": "value",
                           "dimension": "dimension", "order": {"grade": ORDER}})
    assert Mapping.from_json(m.to_json()) == m and m.to_dict()["order"] == {"grade": ORDER}
    panels = import_ratings("long.csv", data, m).panels
    assert panels["grade"].categories.ordered and not panels["flag"].categories.ordered
    grade = panels["grade"]
    assert abs(float(alpha(from_coded(grade.ratings("ordinal")), "ordinal").value) - EXPECTED) < 1e-12
    with pytest.raises(Exception, match="the order given names dimension 'grades'; the file's dimensions are"):
        import_ratings("long.csv", data, m.with_(order=(("grades", tuple(ORDER)),)))
    # a mapping without order or recode writes neither (mappings written before are unchanged)
    assert "order" not in Mapping("wide").to_dict() and "recode" not in Mapping("wide").to_dict()


def test_a_label_not_in_the_order_is_located_and_named(capsys, tmp_path, vision):
    code, out, err = run(capsys, "panel", vision, "--order", "1st grade,2nd grade,4th Grade")
    assert code == 3 and out == ""
    first = next((i, j) for i, row in enumerate(MATRIX) for j, v in enumerate(row) if v == "3rd grade")
    assert err.strip() == (f"vision.csv, row {first[0] + 2}, column 'r{first[1] + 1}': 1 label not in the order "
                           "given: '3rd grade' (the first at this cell); the order has '1st grade' < '2nd grade' < "
                           "'4th Grade'. Add it to the order, or recode it to a label in it (--recode, the mapping's "
                           "\"recode\")")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"layout": "wide", "order": ["a", "a"]}))
    code, _, err = run(capsys, "panel", vision, "--mapping", bad)
    assert code == 3 and "column 'order': order: 'a' is given twice; each category once" in err
    code, _, err = run(capsys, "panel", vision, "--recode", "1st grade")
    assert code == 3 and err.strip().startswith("--recode: '1st grade' is not from=to")
    code, _, err = run(capsys, "panel", vision, "--order", "1st grade")
    assert code == 3 and err.strip() == "--order: an order needs at least two labels; got 1"  # named once


def test_recode_merges_and_renames_and_says_so(capsys, tmp_path):
    rows = [[{"1st grade": "First"}.get(v, v) if i % 3 == 0 else v for v in row] for i, row in enumerate(MATRIX)]
    path = tmp_path / "vision_first.csv"
    path.write_bytes(csv_of(rows))
    renamed = sum(v == "First" for row in rows for v in row)
    assert renamed
    code, out, err = run(capsys, "panel", path, "--recode", "First=1st grade, Zeroth=0th grade",
                         "--order", ",".join(ORDER), "--json")
    d = dimension(out)
    assert abs(float(Fraction(d["alpha"]["exact"])) - EXPECTED) < 1e-12  # merged: the data before the rename
    assert f"recoded {renamed} cells: 'First' -> '1st grade' ({renamed}); not in the data: 'Zeroth'" in d["notices"]
    assert json.loads(out)["read"]["mapping"]["recode"] == {"First": "1st grade", "Zeroth": "0th grade"}
    # recoded to numbers, the labels are numbers: interval alpha is the package's on the grades 1-4
    numbers = ",".join(f"{g}={i + 1}" for i, g in enumerate(ORDER)) + ",First=1"
    code, out, _ = run(capsys, "panel", path, "--recode", numbers, "--level", "interval", "--json")
    d = dimension(out)
    assert d["kind"] == "integer"
    as_numbers = [[None if v is None else ORDER.index(v) + 1 for v in row] for row in MATRIX]
    assert abs(float(Fraction(d["alpha"]["exact"])) - package_alpha(as_numbers, [1, 2, 3, 4], "interval")) < 1e-12
    # the mapping's recode, the same
    m = parse_mapping("m.json", json.dumps({"layout": "wide", "unit": "item", "recode": {"First": "1st grade"},
                                            "order": ORDER}).encode())
    (panel,) = import_ratings(path.name, path.read_bytes(), m).panels.values()
    assert panel.categories.values == tuple(ORDER)


def test_a_label_recoded_twice_is_refused_not_kept_last(capsys, vision):
    # the comma form and a JSON object kept the last pair silently: 'First' -> '2nd grade' and no word of it
    for recode in ("First=1st grade,First=2nd grade", '{"First": "1st grade", "First": "2nd grade"}'):
        code, out, err = run(capsys, "panel", vision, "--recode", recode)
        assert (code, out) == (3, "")
        assert err.strip() == "--recode: 'First' is recoded twice; each label once"
    from agreebound.io.mapping import parse_recode

    assert parse_recode('{"a": "b", "c": "d"}') == (("a", "b"), ("c", "d"))  # pairs as written
    assert parse_recode("") == ()


def test_labels_that_look_ordered_suggest_ordinal_with_their_order(capsys, vision):
    (panel,) = import_ratings("vision.csv", csv_of(MATRIX)).panels.values()
    assert not panel.categories.ordered
    level, why = suggest_level(panel)
    assert level == "ordinal" and "look ordered" in why and "grade" not in why  # the rule's words, no user text
    assert default_level(panel)[0] == "nominal" and admissible_levels(panel) == ("nominal",)  # nothing applied
    assert ("the labels look ordered: '1st grade' < '2nd grade' < '3rd grade' < '4th Grade'; to read them at the "
            "ordinal level in this order, give it (--order '1st grade,2nd grade,3rd grade,4th Grade', or the "
            "mapping's \"order\")") in panel.notices
    code, out, err = run(capsys, "panel", vision, "--level", "ordinal")
    assert code == 3 and "They look ordered ('1st grade' < '2nd grade' < '3rd grade' < '4th Grade'): give that " \
                          "order with --order '1st grade,2nd grade,3rd grade,4th Grade'" in err


@pytest.mark.parametrize("labels, expected", [
    (["grade 3", "grade 1", "grade 2"], ["grade 1", "grade 2", "grade 3"]),
    (["2 - fair", "1 - poor", "3 - good"], ["1 - poor", "2 - fair", "3 - good"]),
    (["Third", "first", "Second"], ["first", "Second", "Third"]),
    (["Agree", "Strongly disagree", "Neither agree nor disagree", "Disagree", "Strongly agree"],
     ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"]),
    (["often", "never", "sometimes"], ["never", "sometimes", "often"]),
    (["high", "very low", "medium", "low", "very high"], ["very low", "low", "medium", "high", "very high"]),
    (["toxic", "safe", "unsure"], None),  # no numbers, no scale
    (["yes", "no"], None),  # two labels: every level gives one alpha
    (["1st grade", "1st grade (repeat)", "2nd grade"], None),  # one rank twice
    (["neutral", "neither", "agree"], None),  # two words on one rung
    (["item 1 of 3", "item 2 of 3", "item 3 of 3"], None),  # two numbers each
])
def test_inferred_order(labels, expected):
    assert inferred_order(labels) == (None if expected is None else tuple(expected))


def test_unordered_labels_keep_their_suggestion():
    data = b"unit,a,b,c\nu1,cat,cat,dog\nu2,dog,dog,dog\nu3,bird,cat,bird\n"
    (panel,) = import_ratings("pets.csv", data).panels.values()
    assert suggest_level(panel) == ("nominal", "the values are labels (categories with no order)")
    assert not any("look ordered" in n for n in panel.notices)
    (numbers,) = import_ratings("n.csv", b"unit,a,b\nu1,1,2\nu2,3,3\nu3,2,2\n").panels.values()
    assert suggest_level(numbers)[0] == "ordinal" and numbers.notices == ()


def test_out_of_core_refuses_an_order_it_cannot_apply(capsys, tmp_path):
    """DuckDB reads long ratings out of core and applies no order nor recoding: a mapping carrying
    them is refused with the reason (exit 3), never read as if they were not there."""
    long = tmp_path / "long.csv"
    long.write_text("unit,rater,value\n" + "".join(f"u{i},r{j},{['low', 'high'][(i + j) % 2]}\n"
                                                   for i in range(20) for j in range(3)))
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({"layout": "long", "unit": ["unit"], "rater": "rater", "value": "value",
                                   "order": ["low", "high"]}))
    code, out, err = run(capsys, "panel", long, "--mapping", mapping, "--engine", "duckdb")
    assert code == 3
    assert "the duckdb engine reads UTF-8 long ratings with a header; not a categories' order" in err


def test_an_empty_label_in_a_comma_list_is_refused_not_dropped(capsys, vision):
    # "a,,b" read as two labels before: the empty one was dropped without a word
    for given in (f"{ORDER[0]},,{','.join(ORDER[1:])}", ",".join(ORDER) + ",", " ," + ",".join(ORDER)):
        code, out, err = run(capsys, "panel", vision, "--order", given)
        assert (code, out) == (3, "")
        assert err.strip() == "--order: an empty label (two commas in a row, or one at an end?)"
    code, _, err = run(capsys, "panel", vision, "--order", " , ".join(ORDER))  # spaces around a label are trimmed
    assert code in (0, 1, 2) and err == ""
