"""The streamed .xlsx reader (agreebound.io.xlsx) against openpyxl, and its limits.

openpyxl (read-only, data_only, dimensions reset: the documented remedy for a stale
``<dimension>``) is the reference for what every cell reads as; the streamed reader must give the
same rows on every workbook of the exports corpus and on odd ones written here, and refuse what
openpyxl would have spent gigabytes on.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

import pytest

from agreebound.core.errors import InputError  # noqa: E402
from agreebound.io.readers import read_source  # noqa: E402
from agreebound.io.xlsx import iter_rows, open_workbook  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def openpyxl_rows(data: bytes, sheet: str) -> list[tuple[int, tuple]]:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    ws = wb[sheet]
    ws.reset_dimensions()
    out = []
    for r, values in enumerate(ws.iter_rows(values_only=True), start=1):
        values = tuple(values)
        while values and values[-1] is None:
            values = values[:-1]
        if values:
            out.append((r, values))
    wb.close()
    return out


def streamed_rows(data: bytes, sheet: str) -> list[tuple[int, tuple]]:
    return list(iter_rows(open_workbook("book.xlsx", data), sheet))


def _corpus(folder: Path) -> list[Path]:
    from tests.support import exports

    exports.generate(folder)
    return sorted(folder.glob("*.xlsx")) + sorted((ROOT / "sample_data").rglob("*.xlsx"))


def _odd_workbook() -> bytes:
    """Dates, times, durations, booleans, errors, rich and inline text, formulas, 1900 epoch."""
    import openpyxl
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "odd"
    ws.append(["unit", "a", "b", "when", "span", "flag"])
    ws.append(["u1", 1, 2.5, dt.datetime(2024, 2, 29, 13, 45), dt.timedelta(hours=30), True])
    ws.append(["u2", "=1+1", -0.0, dt.date(1999, 12, 31), dt.time(7, 5), False])
    ws.append(["u3", CellRichText(["ri", TextBlock(InlineFont(b=True), "ch")]), 1e300, None, None, "#N/A"])
    ws.cell(row=9, column=9, value="far")
    ws["D4"].number_format = "yyyy-mm-dd"
    wb.create_sheet("second").append(["x", "y"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_every_corpus_workbook_reads_as_openpyxl_reads_it(tmp_path):
    books = _corpus(tmp_path)
    assert len(books) >= 20, [b.name for b in books]
    compared = 0
    for path in books:
        data = path.read_bytes()
        for sheet in open_workbook(path.name, data).sheets:
            assert streamed_rows(data, sheet) == openpyxl_rows(data, sheet), (path.name, sheet)
            compared += 1
    assert compared >= len(books)


def test_odd_cells_read_as_openpyxl_reads_them():
    data = _odd_workbook()
    rows = streamed_rows(data, "odd")
    assert rows == openpyxl_rows(data, "odd")
    assert rows[1] == (2, ("u1", 1, 2.5, dt.datetime(2024, 2, 29, 13, 45), dt.timedelta(hours=30), True))
    assert rows[3][1][1] == "rich"
    assert rows[-1] == (9, (None,) * 8 + ("far",))


def _with_sheet(data: bytes, sheet_xml: bytes, part: str = "xl/worksheets/sheet1.xml") -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, sheet_xml if info.filename == part else src.read(info.filename))
    return out.getvalue()


NS = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'


def _ratings_sheet(rows: int, dimension: str) -> bytes:
    body = [b'<row r="1"><c r="A1" t="inlineStr"><is><t>unit</t></is></c><c r="B1" t="inlineStr"><is><t>r1</t></is></c>'
            b'<c r="C1" t="inlineStr"><is><t>r2</t></is></c><c r="D1" t="inlineStr"><is><t>r3</t></is></c></row>']
    for i in range(2, rows + 2):
        body.append(f'<row r="{i}"><c r="A{i}" t="inlineStr"><is><t>u{i}</t></is></c><c r="B{i}"><v>{i % 3}</v></c>'
                    f'<c r="C{i}"><v>{i % 3}</v></c><c r="D{i}"><v>{(i // 7) % 3}</v></c></row>'.encode())
    return NS + f'<dimension ref="{dimension}"/><sheetData>'.encode() + b"".join(body) + b"</sheetData></worksheet>"


def stale_dimension_workbook() -> bytes:
    """100 units x 4 raters... as 100 rows of unit + 3 raters and a <dimension> that says A1:D3."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.append(["x"])
    buf = io.BytesIO()
    wb.save(buf)
    return _with_sheet(buf.getvalue(), _ratings_sheet(100, "A1:D3"))


def test_a_stale_dimension_does_not_truncate_the_sheet():
    data = stale_dimension_workbook()
    source = read_source("stale.xlsx", data)
    assert source.table.n_rows == 100
    assert len(source.table.columns) == 4
    assert source.table.row_of(99) == 101
    # what openpyxl does without the remedy: the rows the stale dimension names
    import openpyxl

    ws = openpyxl.load_workbook(io.BytesIO(data), read_only=True).active
    assert len(list(ws.iter_rows(values_only=True))) == 3


@pytest.mark.parametrize("xml, words", [
    (NS + b"<sheetData><row><c><v>1</v></c>", "not well-formed XML"),
    (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>' + NS
     + b"<sheetData><row><c t=\"inlineStr\"><is><t>&lol2;</t></is></c></row></sheetData></worksheet>", "document type"),
    (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' + NS
     + b"<sheetData><row><c t=\"inlineStr\"><is><t>&xxe;</t></is></c></row></sheetData></worksheet>", "document type"),
    (NS + b'<sheetData><row><c r="XFE1"><v>1</v></c></row></sheetData></worksheet>', "past the last column"),
    (NS + b'<sheetData><row r="1048577"><c><v>1</v></c></row></sheetData></worksheet>', "past Excel's last row"),
    (NS + b'<sheetData><row><c t="s"><v>7</v></c></row></sheetData></worksheet>', "which that type cannot hold"),
    (NS + b'<sheetData><row><c><v>' + b"9" * 40_000 + b'</v></c></row></sheetData></worksheet>', "32,767 characters"),
])
def test_bad_sheet_xml_is_a_located_input_error(xml, words):
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.append(["x"])
    buf = io.BytesIO()
    wb.save(buf)
    with pytest.raises(InputError) as e:
        read_source("bad.xlsx", _with_sheet(buf.getvalue(), xml))
    assert words in str(e.value)
    assert str(e.value).startswith("bad.xlsx")


def test_a_conditional_format_reusing_a_number_format_id_does_not_turn_ratings_into_dates():
    """<dxfs> may hold a numFmt with a cell format's id (openpyxl writes what it is given): only
    <numFmts> says how cells are shown. Read as dates, the ratings flipped the verdict."""
    import openpyxl
    from openpyxl.formatting.rule import Rule
    from openpyxl.styles.differential import DifferentialStyle
    from openpyxl.styles.numbers import NumberFormat

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["unit", "r1", "r2"])
    for i in range(2, 22):
        ws.append([f"u{i}", i % 3 + 1, i % 3 + 1])
        ws.cell(i, 2).number_format = "0.0"
    dxf = DifferentialStyle(numFmt=NumberFormat(numFmtId=164, formatCode="d-mmm"))
    ws.conditional_formatting.add("B2:B21", Rule(type="cellIs", operator="greaterThan", formula=["2"], dxf=dxf))
    buf = io.BytesIO()
    wb.save(buf)
    data = buf.getvalue()
    assert streamed_rows(data, "Sheet") == openpyxl_rows(data, "Sheet")
    assert streamed_rows(data, "Sheet")[1] == (2, ("u2", 3, 3))


@pytest.mark.parametrize("xml, rows", [
    (NS + '<sheetData><row r="²"><c s="²"><v>1</v></c></row></sheetData></worksheet>'.encode(), [(1, (1,))]),
    (NS + b'<sheetData><row r="' + b"9" * 5000 + b'"><c><v>1</v></c></row></sheetData></worksheet>', [(1, (1,))]),
])
def test_numbers_ooxml_never_writes_are_not_numbers(xml, rows):
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.append(["x"])
    buf = io.BytesIO()
    wb.save(buf)
    assert streamed_rows(_with_sheet(buf.getvalue(), xml), "Sheet") == rows


def test_an_unknown_xml_encoding_and_a_text_bomb_are_input_errors():
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.append(["x"])
    buf = io.BytesIO()
    wb.save(buf)
    base = buf.getvalue()
    with pytest.raises(InputError) as e:
        read_source("enc.xlsx", _with_sheet(base, b'<?xml version="1.0" encoding="x-bogus"?>' + NS +
                                            b"<sheetData/></worksheet>"))
    assert str(e.value) == "enc.xlsx: the workbook's sheet 'Sheet' cannot be read ('unknown encoding: x-bogus')"
    cell = b'<c t="inlineStr"><is><t>' + b"x" * 32_000 + b"</t></is></c>"
    bomb = NS + b"<sheetData>" + b"".join(b"<row>" + cell + b"</row>" for _ in range(3_200)) + b"</sheetData></worksheet>"
    with pytest.raises(InputError) as e:
        read_source("text.xlsx", _with_sheet(base, bomb))
    assert str(e.value) == ("text.xlsx: the workbook holds more than 100,000,000 characters of text; the limit is "
                            "100,000,000")
