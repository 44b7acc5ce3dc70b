"""Bring your own data: real-shaped exports read to the published exact alpha, sniffing, the
suggested mapping and its reasons, roles, levels, and the mapping as data on the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from agreebound.panel.measure import measure_panels
from agreebound.panel.levels import suggest_level, suggest_positive
from agreebound.cli.main import main
from agreebound.core.errors import InputError
from agreebound.io.ratings import import_ratings, parse_mapping
from agreebound.io.detect import near_duplicates
from agreebound.io.mapping import Mapping
from agreebound.io.preview import preview
from agreebound.io.sniff import sniff, text_encoding
from agreebound.panel.alpha import krippendorff_alpha

ROOT = Path(__file__).resolve().parents[2]
IMPORTS = ROOT / "sample_data" / "imports"
NOMINAL, INTERVAL = Fraction(113, 152), Fraction(951, 1120)  # Krippendorff (2011), section C


def alpha(panel, level):
    return krippendorff_alpha(panel.ratings(level), level).value


# --- one published data set, every shape: the same exact fractions ---------------------------------

SHAPES = {
    "r_write_csv.csv": ("wide", ("column 1",)),
    "r_write_csv_no_row_names.csv": ("wide", ()),
    "r_write_csv_with_unit.csv": ("wide", ("unit",)),
    "pandas_named_index.csv": ("wide", ("Units",)),
    "pandas_multiindex.csv": ("wide", ("doc_id", "sentence_id")),
    "excel_semicolon.csv": ("wide", ("Einheit",)),
    "excel_unicode_text.tsv": ("wide", ("unit",)),
    "k2011.xlsx": ("wide", ("Unit",)),
    "long_natural_headers.csv": ("long", ("item_id",)),
    "raters_by_units.csv": ("transposed", ()),
    "numpy_savetxt_raters_by_units.csv": ("transposed", ()),
    "r_write_csv_transposed.csv": ("transposed", ()),
    "pingouin_long.csv": ("long", ("Wine",)),
    "generic.jsonl": ("long", ("item",)),
    "label_studio.json": ("long", ("unit",)),
    "prodigy.jsonl": ("long", ("unit",)),
}


def test_every_shape_is_a_sample():
    on_disk = {p.name for p in IMPORTS.iterdir() if p.suffix != ".py"}
    assert on_disk == set(SHAPES)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_export_reads_to_the_published_alpha_with_the_defaults(name):
    r = import_ratings(name, (IMPORTS / name).read_bytes())
    layout, unit = SHAPES[name]
    assert (r.mapping.layout, r.mapping.unit) == (layout, unit), r.reasons
    (p,) = r.panels.values()
    assert len(p.units) == 12 and len(p.raters) == 4 and p.n_ratings == 41
    assert alpha(p, "nominal") == NOMINAL
    assert alpha(p, "interval") == INTERVAL
    assert alpha(p, "ordinal") == Fraction(108577, 133160) and alpha(p, "ratio") == Fraction(18222619, 22852465)


def test_what_was_read_differently_is_said():
    semi = import_ratings("e.csv", (IMPORTS / "excel_semicolon.csv").read_bytes())
    assert semi.notices == ("not UTF-8: read as Windows-1252 (what Excel on Windows writes); save as UTF-8 to be sure",
                            "semicolon-separated")
    tsv = import_ratings("e.tsv", (IMPORTS / "excel_unicode_text.tsv").read_bytes())
    assert tsv.notices[0] == "read as UTF-16 text (it has a UTF-16 byte-order mark)"
    r = import_ratings("r.csv", (IMPORTS / "r_write_csv.csv").read_bytes())
    assert r.reasons == ("one row per unit (wide): 4 rater columns",
                         "the unnamed first column (R row names or a pandas index) name the units")
    ls = import_ratings("l.json", (IMPORTS / "label_studio.json").read_bytes())
    assert ls.notices[0].startswith("read as a Label Studio export: 41 results")


# --- sniffing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("data, delimiter", [
    (b"unit,a,b\nu1,1,2\n", ","), (b"unit;a;b\nu1;1;2\n", ";"), (b"unit\ta\tb\nu1\t1\t2\n", "\t"),
    (b"unit|a|b\nu1|1|2\n", "|"), (b'unit,"a;b",c\nu1,1,2\n', ","),
])
def test_delimiter_sniffing(data, delimiter):
    assert sniff("x.csv", data).delimiter == delimiter


def test_encodings_are_read_with_a_notice():
    text = "unit,caf\u00e9\nu1,1\n"
    assert text_encoding(text.encode()) == ("utf-8", None)
    assert text_encoding(b"\xef\xbb\xbf" + text.encode())[0] == "utf-8-sig"
    assert text_encoding(text.encode("utf-16"))[0] == "utf-16"
    assert text_encoding(text.encode("utf-16-le"))[0] == "utf-16-le"
    assert text_encoding(text.encode("utf-16-be"))[0] == "utf-16-be"
    assert text_encoding(text.encode("cp1252"))[0] == "cp1252"
    assert text_encoding(b"unit,\x81\x8d\n")[0] == "latin-1"  # bytes cp1252 leaves undefined


# --- the suggested mapping ------------------------------------------------------------------------


@pytest.mark.parametrize("data, layout, unit, rater, value", [
    (b"item_id,annotator,label,comment\ni1,a,x,c\ni1,b,y,c\n", "long", ("item_id",), "annotator", "label"),
    (b"Wine,Judge,Scores\nw1,j1,5\nw1,j2,6\nw2,j1,3\nw2,j2,3\n", "long", ("Wine",), "Judge", "Scores"),
    (b"subject,coder,rating,question\ns1,c1,1,q1\ns1,c2,2,q1\n", "long", ("subject",), "coder", "rating"),
    (b"unit,rater,valeu\nu1,a,1\nu1,b,2\n", "long", ("unit",), "rater", "valeu"),
    (b"UNIT ID,Rater,Value\nu1,a,1\nu1,b,2\n", "long", ("UNIT ID",), "Rater", "Value"),
    (b"coder,u1,u2,u3\nA,1,2,3\nB,1,2,2\n", "transposed", (), "coder", None),
])
def test_suggested_layouts(data, layout, unit, rater, value):
    m = import_ratings("x.csv", data).mapping
    assert (m.layout, m.unit, m.rater, m.value) == (layout, unit, rater, value)


def test_a_typo_is_read_and_said():
    r = import_ratings("t.csv", b"unit,rater,valeu\nu1,a,1\nu1,b,2\n")
    assert "column 'valeu' read as the value column (it is close to 'value'); change it if that is wrong" in r.reasons


def test_a_rater_column_without_a_value_column_is_not_read_as_wide():
    with pytest.raises(InputError, match="look like one row per rating"):
        import_ratings("x.csv", b"unit,rater\nu1,a\nu2,b\n")


def test_columns_that_are_not_raters_are_ignored_in_a_wide_file():
    r = import_ratings("w.csv", b"unit,text,det-a,det-b,notes\nu1,some words,1,0,ok\nu2,more words,0,0,ok\n")
    assert r.mapping.ignore == ("text", "notes") and r.panels["all"].raters == ("det-a", "det-b")
    assert "not raters, ignored: 'text', 'notes'" in r.reasons


def test_the_dimension_column_splits_a_long_file():
    r = import_ratings("d.csv", b"item,annotator,label,task\ni1,a,1,tox\ni1,b,1,tox\ni1,a,0,spam\ni1,b,1,spam\n")
    assert r.mapping.dimension == "task" and list(r.panels) == ["tox", "spam"]


# --- roles -------------------------------------------------------------------------------------------


def test_human_only_study_counts_every_coder_as_independent():
    p = import_ratings("h.csv", b"unit,human_1,human_2\nu1,1,1\nu2,0,1\n").panels["all"]
    assert p.humans == () and p.detectors == ("human_1", "human_2")


def test_roles_from_the_mapping_and_the_command_line(tmp_path, capsys):
    data = b"unit,det-a,det-b,alice\nu1,1,1,1\nu2,0,1,0\nu3,0,0,0\n"
    assert import_ratings("x.csv", data).panels["all"].detectors == ("det-a", "det-b", "alice")
    m = Mapping("wide", ("unit",), humans=("alice",))
    assert import_ratings("x.csv", data, m).panels["all"].detectors == ("det-a", "det-b")
    f = tmp_path / "x.csv"
    f.write_bytes(data)
    assert main(["panel", str(f), "--humans", "alice"]) == 0  # alpha 3/5: exactly the floor
    assert "detectors=2" in capsys.readouterr().out
    assert main(["panel", str(f), "--detectors", "det-a"]) == 2  # one independent detector: refused
    capsys.readouterr()
    assert main(["panel", str(f), "--humans", "bob"]) == 3
    assert "'bob' is not a rater; the raters are 'alice', 'det-a', 'det-b'" in capsys.readouterr().err


# --- levels, positives, categories -------------------------------------------------------------------


@pytest.mark.parametrize("data, level", [
    (b"unit,a,b\nu1,yes,no\nu2,no,no\n", "nominal"),
    (b"unit,a,b\nu1,0,1\nu2,1,1\n", "nominal"),
    (b"unit,a,b\nu1,1,2\nu2,3,4\nu3,5,5\n", "ordinal"),
    (b"unit,a,b\nu1,1.5,2.25\nu2,3,4\nu3,5,5\n", "interval"),
    (b"unit,a,b\n" + b"".join(b"u%d,%d,%d\n" % (i, i, i + 1) for i in range(20)), "interval"),
])
def test_level_suggestions(data, level):
    p = import_ratings("x.csv", data).panels["all"]
    assert suggest_level(p)[0] == level


def test_every_admissible_level_is_measured_so_the_choice_is_visible():
    p = import_ratings("k.csv", (ROOT / "sample_data" / "krippendorff_2011.csv").read_bytes()).panels
    m = measure_panels(p, "auto")["all"]  # nobody chose: the specification's nominal, ordinal suggested beside it
    assert (m.level, m.level_origin[0], m.level_suggestion[0]) == ("nominal", "default", "ordinal")
    assert m.alpha_at_levels == {
        "nominal": NOMINAL, "ordinal": Fraction(108577, 133160), "interval": INTERVAL,
        "ratio": Fraction(18222619, 22852465)}


def test_two_label_data_suggests_a_positive_and_leaves_the_spread_not_measured():
    ms = measure_panels(import_ratings("x.csv", b"unit,a,b\nu1,toxic,clean\nu2,clean,clean\nu3,toxic,toxic\n").panels)
    m = ms["all"]
    assert m.positive_suggestion == "toxic" and m.rates == () and not m.spread_measured
    assert suggest_positive(import_ratings("x.csv", b"unit,a,b\nu1,p,q\nu2,q,q\nu3,q,q\n").panels["all"]) == "p"


def test_near_duplicates_are_flagged():
    flags = near_duplicates(["toxic", "toxc", "clean", "Yes", "yes", "1", "01", " 1"], [50, 1, 40, 3, 30, 20, 2, 1])
    pairs = {(a, b) for a, b, _ in flags}
    assert {("toxc", "toxic"), ("Yes", "yes"), ("01", "1"), (" 1", "1")} <= pairs


def test_extra_missing_spellings():
    data = b"unit,a,b\nu1,1,-99\nu2,2,2\nu3,1,1\n"
    with_code = import_ratings("m.csv", data).panels["all"]
    assert with_code.n_ratings == 6
    p = import_ratings("m.csv", data, missing=["-99"]).panels["all"]
    assert p.n_ratings == 5 and -99 not in p.categories.values


# --- the mapping as data ---------------------------------------------------------------------------


def test_mapping_files_json_and_toml():
    m = parse_mapping("m.json", b'{"layout": "long", "unit": "item", "rater": "who", "value": "score"}')
    assert m == Mapping("long", ("item",), "who", "score")
    t = parse_mapping("m.toml", b'layout = "wide"\nunit = ["doc", "sentence"]\nhumans = ["alice"]\n')
    assert t.unit == ("doc", "sentence") and t.humans == ("alice",)
    with pytest.raises(InputError, match="unknown key 'colour'"):
        parse_mapping("m.json", b'{"layout": "wide", "colour": 1}')
    with pytest.raises(InputError, match="a long mapping needs unit, rater and value"):
        parse_mapping("m.json", b'{"layout": "long", "unit": "item"}')


def test_inspect_writes_the_mapping_the_panel_command_reads(tmp_path, capsys):
    src = IMPORTS / "long_natural_headers.csv"
    out = tmp_path / "mapping.json"
    assert main(["inspect", str(src), "--mapping-out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "layout: long" in text and "ignored: comment, created_at" in text
    assert json.loads(out.read_text())["unit"] == ["item_id"]
    edited = json.loads(out.read_text()) | {"level": "interval"}
    out.write_text(json.dumps(edited))
    assert main(["panel", str(src), "--mapping", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["panel"]["dimensions"][0]["alpha"]["exact"] == "951/1120"
    assert report["read"]["mapping"]["level"] == "interval"


def test_a_mapping_that_names_a_missing_column_says_which():
    with pytest.raises(InputError) as e:
        import_ratings("x.csv", b"unit,a,b\nu1,1,1\n", Mapping("long", ("unit",), "who", "score"))
    assert "the mapping names 'who' as the rater column, but the file's columns are 'unit', 'a', 'b'" in str(e.value)


def test_the_preview_reads_only_the_head_and_describes_the_file():
    rows = b"".join(b"u%d,%d,%d\n" % (i, i % 3, (i + 1) % 3) for i in range(25_000))
    pv = preview("big.csv", b"unit,a,b\n" + rows)
    assert pv.head_only and pv.rows_read == 10_000
    assert pv.rows[0] == ("u0", "0", "1") and pv.columns == ("unit", "a", "b")
    (d,) = pv.dimensions
    assert d.level == suggest_level(import_ratings("b.csv", b"unit,a,b\n" + rows).panels["all"])
    pv = preview("m.csv", (IMPORTS / "r_write_csv.csv").read_bytes())
    assert pv.missing_found == {"NA": 7}


@pytest.mark.parametrize("text, column", [
    ("unit,alice,alice,bob\nu0,0,1,2\nu1,1,0,2\nu2,2,1,0\n", "alice"),  # wide: a rater's column twice
    ("unit,rater,value,value\n" + "".join(f"u{i},{r},{i % 2},1\n" for i in range(4) for r in ("a", "b")), "value"),
    ("unit,rater,label,label\n" + "".join(f"u{i},{r},spam,ham\n" for i in range(4) for r in ("a", "b", "c")), "label"),
])
def test_a_duplicated_column_name_is_named_not_read_as_header_levels_over_the_first_data_rows(text, column):
    # the repeated name looked like a pandas column MultiIndex: the first data rows became the header
    # ('2 header lines ... read as one header'), their ratings lost and the rest read under wrong names
    with pytest.raises(InputError) as e:
        import_ratings("dup.csv", text.encode())
    assert str(e.value) == f"dup.csv, row 1, column '{column}': duplicate column header; every column needs its own name"


# --- Label Studio's CSV and JSON-MIN exports: the control's column is the value ----------------------


def _label_studio_min_records() -> list[dict]:
    """Krippendorff's (2011) data as Label Studio's CSV and JSON-MIN exports write it: a record per
    annotation, the control named after what it asks ('quality'), annotation_id beside it."""
    rows = (ROOT / "sample_data" / "krippendorff_2011.csv").read_text().splitlines()
    raters = rows[0].split(",")[1:]
    out: list[dict] = []
    for task, line in enumerate(rows[1:], start=1):
        for who, v in zip(raters, line.split(",")[1:]):
            if v != "NA":
                out.append({"text": f"post {task}", "id": task, "quality": v, "annotator": f"{who}@example.org",
                            "annotation_id": 100 + len(out), "created_at": "2024-03-01T10:00:00.000000Z",
                            "updated_at": "2024-03-01T10:00:00.000000Z", "lead_time": 4.5})
    return out


@pytest.mark.parametrize("name", ["project-3-at-2024-03-01.csv", "project-3-at-2024-03-01-min.json"])
def test_a_label_studio_csv_or_json_min_export_reads_its_control_not_the_annotation_ids(name):
    # annotation_id is close to 'annotation' and was read as the value: ids, unique per rating, gave
    # interval alpha 0.9999 and ENFORCE; the ratings are in the control's column ('quality')
    records = _label_studio_min_records()
    if name.endswith(".csv"):
        head = list(records[0])
        data = "\n".join([",".join(head)] + [",".join(str(r[k]) for k in head) for r in records]) + "\n"
    else:
        data = json.dumps(records)
    r = import_ratings(name, data.encode())
    assert (r.mapping.layout, r.mapping.unit, r.mapping.rater, r.mapping.value) == ("long", ("id",), "annotator",
                                                                                   "quality")
    assert "column 'quality' read as the value column (the only column that is not the unit, the rater, an id, " \
           "text or a time); change it if that is wrong" in r.reasons
    (p,) = r.panels.values()
    assert (len(p.units), len(p.raters), p.n_ratings) == (12, 4, 41)
    assert alpha(p, "nominal") == NOMINAL and alpha(p, "interval") == INTERVAL


def test_an_id_column_is_never_a_misspelt_value_and_the_candidates_are_named():
    with pytest.raises(InputError, match=r"no value column was found \(it may be one of 'sentiment', 'topic'\)"):
        import_ratings("ls.csv", b"id,annotator,sentiment,topic,annotation_id\n1,a,x,y,1\n1,b,x,z,2\n2,a,y,y,3\n")


# --- a sheet's notes under its table -------------------------------------------------------------------


def _k2011_rows() -> list[list[str]]:
    lines = (ROOT / "sample_data" / "krippendorff_2011.csv").read_text().splitlines()
    return [line.replace("NA", "").split(",") for line in lines]


def test_notes_under_a_csv_table_are_skipped_and_named_not_read_as_units():
    # Excel's save as CSV (cp1252, semicolons, CRLF) of a sheet with a title, the table, an empty
    # row and two notes: the notes were two more units without ratings ("2 of 14 units have fewer
    # than two ratings")
    rows = _k2011_rows()
    text = "Coding reliability – pilot;;;;\r\n" + "".join(";".join(r) + "\r\n" for r in rows) + \
        ";;;;\r\nNotes: coder C joined in week 2;;;;\r\nSource: Krippendorff (2011);;;;\r\n"
    r = import_ratings("pilot.csv", text.encode("cp1252"))
    assert "2 lines under the table are notes, not data: skipped (row 16: 'Notes: coder C joined in week 2', " \
           "row 17: 'Source: Krippendorff (2011)')" in r.notices
    (p,) = r.panels.values()
    assert (len(p.units), p.n_ratings) == (12, 41) and alpha(p, "nominal") == NOMINAL


def test_notes_under_an_excel_table_are_skipped_and_named():
    import io

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    header, *rows = _k2011_rows()
    sheet.append(header)
    for row in rows:
        sheet.append([row[0]] + [int(v) if v else None for v in row[1:]])
    sheet.append([])
    sheet.append(["Source: Krippendorff (2011), section C"])
    buf = io.BytesIO()
    book.save(buf)
    r = import_ratings("pilot.xlsx", buf.getvalue())
    assert "1 line under the table is a note, not data: skipped (row 15: 'Source: Krippendorff (2011), section C')" \
        in r.notices
    (p,) = r.panels.values()
    assert (len(p.units), p.n_ratings) == (12, 41) and alpha(p, "interval") == INTERVAL


def test_a_unit_without_ratings_right_under_the_table_stays_a_unit():
    r = import_ratings("u.csv", b"unit,a,b\nu1,1,1\nu2,2,2\nu3,1,2\nu4,,\n")
    assert not any("under the table" in n for n in r.notices)
    assert len(r.panels["all"].units) == 4
