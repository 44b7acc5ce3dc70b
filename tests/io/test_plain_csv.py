"""A small plain CSV is read without pyarrow (agreebound.io.tables._plain_csv, issue 57): every
report and every message is the one pyarrow's reader gives. Each file here runs through the command
line twice, once as it is and once with the plain reader switched off, and the outcomes (exit code,
stdout, stderr, the JSON report) must be the same bytes."""

from __future__ import annotations

import contextlib
import io
import random

import numpy as np
import pytest

from agreebound.cli.main import main
from agreebound.io import tables
from agreebound.io.tables import read_csv


def outcome(path: str, *extra: str) -> tuple[int, str, str, str]:
    out, err, report = io.StringIO(), io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["panel", path, *extra])
    with contextlib.redirect_stdout(report), contextlib.redirect_stderr(io.StringIO()):
        main(["panel", path, *extra, "--json"])
    return code, out.getvalue(), err.getvalue(), report.getvalue()


def both(path: str, *extra: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    plain = outcome(path, *extra)
    with monkeypatch.context() as m:
        m.setattr(tables, "PLAIN_CSV_BYTES", -1)  # every file to pyarrow
        arrow = outcome(path, *extra)
    return plain, arrow


#: Files that are plain (read without pyarrow) and the edges pyarrow's reader has: blank lines, CRLF,
#: a row of empty cells, spaces around names and values, missing spellings, a nested cell, a
#: repeated unit, a header only, an empty header cell, numbers that are too long.
EDGES = {
    "crlf_blank_lines.csv": "unit,a,b\r\n\r\nu1,1,2\r\nu2,2,2\r\n\r\nu3,1,1\r\n",
    "empty_rows.csv": "unit,a,b\n,,\nu1,1,2\n,,\nu2,2,2\nu3,3,3\n",
    "spaces.csv": "unit, a ,b\n u1 , 1,2 \nu2,2,2\nu3,NA , \n u4,3,3\n",
    "missing_tokens.csv": "unit,a,b,c\nu1,NA,n/a,1\nu2,.,2,2\nu3,null,None,3\nu4,1,1,1\n",
    "labels.csv": "unit;a;b\nu1;low;mid\nu2;high;high\nu3;mid;mid\nu4;low;n/a?\n",
    "nested.csv": "unit;a;b\nu1;[1, 2];1\nu2;2;2\n",
    "nested_name.csv": "unit;a;b\n{\"x\": 1};1;1\nu2;2;2\n".replace('"', ""),
    "repeat_unit.csv": "unit,a,b\nu1,1,1\nu2,2,2\nu1,1,2\n",
    "header_only.csv": "unit,a,b\n",
    "empty_header_cell.csv": "unit,,b\nu1,1,1\nu2,2,2\n",
    "empty_unit.csv": "unit,a,b\nu1,1,1\n,2,2\n",
    "long_number.csv": "unit,a,b\nu1,1.0000000000000001,1\nu2,2,2\n",
    "scientific.csv": "unit,a,b\nu1,1e3,1000\nu2,2.5E-02,0.025\nu3,1,1\n",
    "decimals.csv": "unit,a,b\nu1,0.25,0.5\nu2,1.0,1\nu3,-0.75,-0.75\n",
    "tabs.csv": "unit\ta\tb\nu1\t1\t2\nu2\t2\t2\nu3\t3\t3\n",
    "one_rater.csv": "unit,a\nu1,1\nu2,2\n",
    "uneven.csv": "unit,a,b\nu1,1\nu2,2,2\n",
    "quoted.csv": 'unit,a,b\nu1,"1",2\nu2,2,2\n',
    "long.csv": "unit,rater,value\nu1,a,1\nu1,b,1\nu2,a,2\nu2,b,3\nu3,a,1\nu3,b,1\n",
    "long_dimensions.csv": "dimension,unit,rater,value\nx,u1,a,1\nx,u1,b,1\nx,u2,a,2\nx,u2,b,2\n"
                           "y,u1,a,low\ny,u1,b,high\ny,u2,a,low\ny,u2,b,low\n",
    "long_repeat.csv": "unit,rater,value\nu1,a,1\nu1,a,2\nu2,a,2\nu2,b,3\n",
    "no_trailing_newline.csv": "unit,a,b\nu1,1,2\nu2,2,2",
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edges_read_alike(name, tmp_path, monkeypatch):
    path = tmp_path / name
    path.write_bytes(EDGES[name].encode())
    plain, arrow = both(str(path), monkeypatch=monkeypatch)
    assert plain == arrow


def test_the_edges_are_plain_where_they_should_be():
    """The comparison above is between two readers: the plain files are read without pyarrow (their
    values a list), the quoted one by pyarrow (an uneven or a header-only file is an error either way)."""
    for name, text in EDGES.items():
        if name in {"uneven.csv", "header_only.csv"}:
            continue
        delimiter = "\t" if name == "tabs.csv" else ";" if ";" in text.split("\n")[0] else ","
        table = read_csv(name, text.encode(), "x", delimiter=delimiter)
        plain = all(isinstance(c.dictionary, list) for c in table.columns)
        assert plain == (name != "quoted.csv"), name


def test_random_panels_read_alike(tmp_path, monkeypatch):
    """Random wide panels (fixed seed): values, missing cells and names of every kind plain text holds."""
    rng = random.Random(57)
    kinds = [["0", "1"], ["1", "2", "3", "4", "5"], ["low", "mid", "high", " mid", "NA"], ["0.25", "0.5", "1.0", "-2"],
             ["a b", "a  b", "x,y"]]
    for i in range(25):
        values = rng.choice(kinds)
        delimiter = ";" if any("," in v for v in values) else rng.choice([",", ";", "|"])
        raters = [f"r{j}" if rng.random() < 0.7 else f"human {j}" for j in range(rng.randint(2, 5))]
        lines = [delimiter.join(["unit", *raters])]
        for u in range(rng.randint(2, 30)):
            cells = [rng.choice(values) if rng.random() < 0.85 else "" for _ in raters]
            lines.append(delimiter.join([f"u{u}", *cells]))
        end = rng.choice(["\n", "\r\n"])
        path = tmp_path / f"panel_{i}.csv"
        path.write_bytes((end.join(lines) + end).encode())
        extra = rng.choice([(), ("--level", "ordinal"), ("--level", "interval"), ("--coefficients",)])
        if values is kinds[2] or values is kinds[4]:  # labels: a level beyond nominal would stop at the first one
            extra = rng.choice([(), ("--coefficients",)])
        plain, arrow = both(str(path), *extra, monkeypatch=monkeypatch)
        assert plain == arrow, (path.read_text(), extra)


def test_plain_reader_codes_and_values():
    """The plain reader's table: first-seen order, the header's cell gone, blank lines and a row of
    empty cells skipped (the empty row's record index kept out)."""
    table = read_csv("t.csv", b"unit,a\r\n\r\nu2,x\r\n,\r\nu1,unit\r\nu2,x\r\n", "x")
    unit, a = table.columns
    assert (unit.name, unit.uniques, unit.codes.tolist()) == ("unit", ["u2", "u1"], [0, 1, 0])
    assert (a.name, a.uniques, a.codes.tolist()) == ("a", ["x", "unit"], [0, 1, 0])
    assert table.n_rows == 3 and np.asarray(table.record_index).tolist() == [0, 2, 3]
    assert [table.row_of(i) for i in range(3)] == [3, 5, 6]


def test_a_row_longer_than_the_readers_block_is_read_not_called_malformed():
    # pyarrow reads 4 MiB blocks: a record over two block boundaries was 'malformed CSV (straddling object straddles two
    # block boundaries (try to increase block size?))', no row, no column
    from agreebound.core.errors import InputError
    from agreebound.io.ratings import import_ratings

    good = "".join(f"u{i},{r},{(i + j) % 2}\n" for i in range(20) for j, r in enumerate(("alice", "bob")))
    data = ("unit,rater,value\nu99,alice," + "1" * 9_000_000 + "\n" + good).encode()
    with pytest.raises(InputError) as e:
        import_ratings("long.csv", data)
    assert (e.value.row, e.value.column) == (2, "value")
    assert str(e.value).startswith("long.csv, row 2, column 'value': the number '111")
    assert "(9,000,000 characters)" in str(e.value)
