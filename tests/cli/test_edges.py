"""Edges a stranger found by trying: each a wrong answer, a crash or a leak before it was fixed."""

from __future__ import annotations

import io
import subprocess
import sys
import unicodedata
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agreebound.panel.measure import measure_panels
from agreebound.cli.main import main
from agreebound.core.errors import InputError
from agreebound.io.detector_rates import parse_detector_rates
from agreebound.io.ratings import import_ratings, parse_ratings
from agreebound.panel.alpha import krippendorff_alpha
from agreebound.panel.intervals import bootstrap_alpha

ROOT = Path(__file__).resolve().parents[2]


def alpha(data: bytes, level: str = "nominal", name: str = "x.csv"):
    p = parse_ratings(name, data)["all"]
    return krippendorff_alpha(p.ratings(level), level).value


def test_a_value_with_spaces_is_the_value():
    spaced = alpha(b"unit,a,b\nu1,1, 1\nu2,2, 2\nu3,1, 1\n")
    assert spaced == alpha(b"unit,a,b\nu1,1,1\nu2,2,2\nu3,1,1\n") == 1
    p = import_ratings("s.csv", b"unit,a,b\nu1,1, 1\nu2,2, 2\nu3,1, 1\n").panels["all"]
    assert p.kind == "integer" and "3 cells had surrounding spaces or invisible characters (removed; ' 1' is the " \
        "number 1)" in p.notices


def test_labels_compare_after_unicode_normalisation():
    nfc, nfd = unicodedata.normalize("NFC", "caf\u00e9"), unicodedata.normalize("NFD", "caf\u00e9")
    data = f"unit,r1,r2\nu1,{nfc},{nfd}\nu2,th\u00e9,th\u00e9\nu3,{nfc},{nfd}\nu4,th\u00e9,th\u00e9\n".encode()
    assert alpha(data) == 1


@pytest.mark.parametrize("cell, value", [
    ("1." + "0" * 39, 1),  # long, but one significant digit: the number 1
    ("0." + "0" * 45 + "1", Fraction(1, 10**46)),
    ("1" + "0" * 38, 10**38),  # a whole number far beyond 2**53, exact
])
def test_long_numbers_are_numbers_held_exactly(cell, value):
    p = parse_ratings("n.csv", f"unit,a,b\nu1,{cell},2\nu2,3,3\n".encode())["all"]
    assert p.kind != "label" and value in p.categories.values


@pytest.mark.parametrize("cell", ["9" * 5000, "1" + "0" * 400, "0." + "0" * 400 + "1", "1.23456789012345678"])
def test_numbers_beyond_exact_reach_are_refused_not_made_labels(cell):
    with pytest.raises(InputError) as e:
        parse_ratings("n.csv", f"unit,a,b\nu1,{cell},2\nu2,3,3\n".encode())
    assert (e.value.row, e.value.column) == (2, "a")
    assert "significant digits" in e.value.reason or "beyond the range" in e.value.reason


def test_parquet_float32_reads_as_the_decimal_written():
    buf = io.BytesIO()
    pq.write_table(pa.table({"unit": ["u1", "u1", "u2", "u2"], "rater": ["a", "b", "a", "b"],
                             "value": pa.array([0.1, 0.2, 0.3, 0.3], pa.float32())}), buf)
    p = parse_ratings("f.parquet", buf.getvalue())["all"]
    assert p.categories.values == (Fraction(1, 10), Fraction(1, 5), Fraction(3, 10))


def test_values_beyond_float_range_give_alpha_and_say_there_is_no_interval():
    a = krippendorff_alpha([[1e300, 1e-300], [2, 2], [5, 1e300]], "interval")
    assert a.value is not None
    assert bootstrap_alpha(a).note == "no interval: the values are too large to resample in floating point"
    buf = io.BytesIO()
    pq.write_table(pa.table({"unit": ["u1", "u1", "u2", "u2", "u3", "u3"], "rater": ["a", "b"] * 3,
                             "value": [1e300, 1e-300, 2.0, 2.0, 1e300, 5.0]}), buf)
    path = ROOT / "artifacts" / "extreme.parquet"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(buf.getvalue())
    done = subprocess.run([sys.executable, "-m", "agreebound.cli.main", "panel", str(path), "--level", "interval"],
                          capture_output=True, text=True)
    assert done.returncode in (0, 1) and done.stderr == ""


def test_the_ratio_error_quotes_the_cell_it_names():
    with pytest.raises(InputError) as e:
        parse_ratings("r.csv", b"unit,a,b\nu1,-1,1\nu2,2,2\nu3,-5,3\n")["all"].ratings("ratio")
    assert (e.value.row, e.value.column) == (2, "a") and "this cell holds -1" in e.value.reason


def test_a_header_longer_than_any_window_is_read_whole():
    names = [f"rater-{i:05d}-" + "x" * 380 for i in range(12_000)]  # about 4.8 MB of header
    data = ("unit," + ",".join(names) + "\nu1," + ",".join("1" for _ in names) + "\n"
            + "u2," + ",".join("0" for _ in names) + "\n").encode()
    assert len(data) > 4 * 2**20
    assert len(parse_ratings("h.csv", data)["all"].raters) == 12_000


def test_rows_in_a_file_with_cr_line_ends():
    with pytest.raises(InputError) as e:
        parse_ratings("cr.csv", b"unit,a,b\ru1,1,1\ru2,\x00,1\r")
    assert e.value.row == 3


def test_a_valid_rates_file_never_looks_for_rows(monkeypatch):
    from agreebound.io import tables

    def no(*_a):  # finding a row is a pass over the file: it must happen only for an error
        raise AssertionError("row_of called for a valid file")

    monkeypatch.setattr(tables.Table, "row_of", no)
    body = "".join(f"det-{i},{i % 7},{10 + i}\n" for i in range(16_000))
    rates = parse_detector_rates("r.csv", ("detector,positives,total\n" + body).encode())
    assert len(rates["all"]) == 16_000


def test_tag_characters_cannot_make_one_detector_look_like_two():
    with pytest.raises(InputError, match="duplicate column header"):
        parse_ratings("t.csv", "unit,gpt,gpt\U000e0067\nu1,1,1\nu2,0,0\n".encode())


def test_downloadable_tables_neutralise_formulas_in_pandas_string_columns():
    from agreebound.ui.blocks import safe_frame

    frame = pd.DataFrame({"category": pd.array(['=HYPERLINK("http://x","y")', "ok"], dtype="string"), "count": [3, 1]})
    out = safe_frame(frame)
    assert list(out["category"]) == ['\'=HYPERLINK("http://x","y")', "ok"]


def test_the_spread_text_escapes_a_users_category():
    from agreebound.panel.decide import decide_panel
    from agreebound.core.thresholds import PanelThresholds
    from agreebound.ui.panel_view import spread_text

    from agreebound.io.mapping import Mapping

    data = b"unit,alice,bob\nu1,[pwn](https://evil.example),x\nu2,x,x\n"
    panels = parse_ratings("p.csv", data, Mapping("wide", ("unit",), humans=("alice", "bob")))  # no detectors
    m = measure_panels(panels, positive="[pwn](https://evil.example)")["all"]
    text = spread_text(decide_panel(m, PanelThresholds()), m)
    assert "](https" not in text and "\\[pwn\\]" in text


def test_a_huge_typed_positive_is_refused_at_once(capsys):
    code = main(["panel", str(ROOT / "sample_data" / "krippendorff_2011.csv"), "--positive", "1e" + "3" * 500])
    assert code == 3 and "characters long; categories have at most 200" in capsys.readouterr().err


def test_an_unwritable_stdout_is_not_a_verdict_and_not_called_a_bug():
    done = subprocess.run(f"{sys.executable} -m agreebound.cli.main panel {ROOT / 'sample_data' / 'detector_panel.csv'} "
                          "> /dev/full", shell=True, capture_output=True, text=True)
    assert done.returncode == 4
    assert done.stderr.startswith("agreebound: could not write the output (No space left on device); no verdict")
