"""Writes sample_data/imports/: one published data set in the shapes people's tools write them.

The data is Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four
observers A..D, twelve units, missing values; published alpha nominal 0.743 (113/152), ordinal
0.815, interval 0.849 (951/1120), ratio 0.797. Every file here must read to exactly those values
(tests/io/test_importers.py). Run: python sample_data/imports/make_imports.py
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
N = None
K2011 = [
    [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, 3, N, N],
]
OBSERVERS = ["A", "B", "C", "D"]
UNITS = [f"unit-{i + 1:02d}" for i in range(12)]


def r_cell(v: object) -> str:
    return "NA" if v is None else str(v)


def files() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    # R: write.csv(df) -- quoted names, row names in an unnamed first column, NA for missing
    lines = ['"","A","B","C","D"'] + [f'"{i + 1}",' + ",".join(r_cell(v) for v in row) for i, row in enumerate(K2011)]
    out["r_write_csv.csv"] = ("\n".join(lines) + "\n").encode()
    # R: write.csv(df, row.names = FALSE) -- no unit column at all: the rows are the units
    lines = ['"A","B","C","D"'] + [",".join(r_cell(v) for v in row) for row in K2011]
    out["r_write_csv_no_row_names.csv"] = ("\n".join(lines) + "\n").encode()
    # R: a data frame with a unit column, written with row names (the unnamed column is ignored)
    lines = ['"","unit","A","B","C","D"'] + [f'"{i + 1}","{u}",' + ",".join(r_cell(v) for v in row)
                                             for i, (u, row) in enumerate(zip(UNITS, K2011))]
    out["r_write_csv_with_unit.csv"] = ("\n".join(lines) + "\n").encode()
    # R: write.csv(t(m)) -- raters x units, R's default column names V1..V12, rater names as row names
    lines = ['"",' + ",".join(f'"V{j + 1}"' for j in range(12))] + [
        f'"{o}",' + ",".join(r_cell(row[j]) for row in K2011) for j, o in enumerate(OBSERVERS)]
    out["r_write_csv_transposed.csv"] = ("\n".join(lines) + "\n").encode()
    # pingouin's long layout (its wine-tasting example): Wine, Judge, Scores -- no header is a synonym of unit
    lines = ["Wine,Judge,Scores"] + [f"{i + 1},{o},{v}" for i, row in enumerate(K2011) for o, v in zip(OBSERVERS, row)
                                     if v is not None]
    out["pingouin_long.csv"] = ("\n".join(lines) + "\n").encode()
    # pandas: df.to_csv() with an index named "Units"; NaN written empty, floats as 1.0
    lines = ["Units,A,B,C,D"] + [u + "," + ",".join("" if v is None else f"{float(v)}" for v in row)
                                 for u, row in zip(UNITS, K2011)]
    out["pandas_named_index.csv"] = ("\n".join(lines) + "\n").encode()
    # pandas: a two-level index (document, sentence) written as two leading columns
    lines = ["doc_id,sentence_id,A,B,C,D"] + [f"doc-{i // 4},{i % 4}," + ",".join("" if v is None else str(v) for v in row)
                                            for i, row in enumerate(K2011)]
    out["pandas_multiindex.csv"] = ("\n".join(lines) + "\n").encode()
    # Excel (German locale, "CSV (semicolon-separated)"): Windows-1252, semicolons, a BOM-less file
    lines = ["Einheit;Pr\u00fcfer A;Pr\u00fcfer B;Pr\u00fcfer C;Pr\u00fcfer D"] + [
        f"{u};" + ";".join("" if v is None else str(v) for v in row) for u, row in zip(UNITS, K2011)]
    out["excel_semicolon.csv"] = ("\r\n".join(lines) + "\r\n").encode("cp1252")
    # A long file with natural headers, and columns that are not ratings
    lines = ["item_id,annotator,label,comment,created_at"]
    for u, row in zip(UNITS, K2011):
        for o, v in zip(OBSERVERS, row):
            if v is not None:
                lines.append(f"{u},{o},{v},\"looked at it, decided\",2026-11-0{1 + len(lines) % 9}")
    out["long_natural_headers.csv"] = ("\n".join(lines) + "\n").encode()
    # Raters x units: one row per observer (K-Alpha, the krippendorff package)
    lines = ["coder," + ",".join(UNITS)] + [o + "," + ",".join("" if row[j] is None else str(row[j]) for row in K2011)
                                            for j, o in enumerate(OBSERVERS)]
    out["raters_by_units.csv"] = ("\n".join(lines) + "\n").encode()
    # The krippendorff package's reliability_data saved with numpy.savetxt: no header, nan
    lines = [",".join("nan" if row[j] is None else f"{float(row[j])}" for row in K2011) for j in range(4)]
    out["numpy_savetxt_raters_by_units.csv"] = ("\n".join(lines) + "\n").encode()
    # Tab-separated, UTF-16 (Excel's "Unicode text")
    lines = ["unit\tA\tB\tC\tD"] + [u + "\t" + "\t".join("" if v is None else str(v) for v in row)
                                    for u, row in zip(UNITS, K2011)]
    out["excel_unicode_text.tsv"] = ("\r\n".join(lines) + "\r\n").encode("utf-16")
    # JSON Lines of {item, coder, rating}
    recs = [{"item": u, "coder": o, "rating": v} for u, row in zip(UNITS, K2011) for o, v in zip(OBSERVERS, row)
            if v is not None]
    out["generic.jsonl"] = ("\n".join(json.dumps(r) for r in recs) + "\n").encode()
    # Label Studio JSON export: one task per unit, one annotation per observer, a "rating" choice
    tasks = []
    for t, (u, row) in enumerate(zip(UNITS, K2011), start=1):
        anns = []
        for a, (o, v) in enumerate(zip(OBSERVERS, row), start=1):
            if v is None:
                continue
            anns.append({"id": t * 10 + a, "completed_by": {"id": a, "email": f"{o.lower()}@example.org"},
                         "result": [{"id": f"r{t}{a}", "from_name": "severity", "to_name": "text", "type": "choices",
                                     "value": {"choices": [str(v)]}}],
                         "was_cancelled": False, "created_at": "2026-11-01T10:00:00Z"})
        tasks.append({"id": t, "data": {"text": f"Text of {u}"}, "annotations": anns, "predictions": []})
    out["label_studio.json"] = json.dumps(tasks, indent=1).encode()
    # Prodigy JSONL (choice interface): one line per (task, annotator session)
    lines = []
    for t, (u, row) in enumerate(zip(UNITS, K2011)):
        for o, v in zip(OBSERVERS, row):
            if v is None:
                continue
            lines.append(json.dumps({"text": f"Text of {u}", "options": [{"id": str(k), "text": str(k)} for k in range(1, 6)],
                                     "_input_hash": 1000 + t, "_task_hash": 2000 + t, "accept": [str(v)],
                                     "answer": "accept", "_session_id": f"severity-{o}", "_annotator_id": f"severity-{o}"}))
    out["prodigy.jsonl"] = ("\n".join(lines) + "\n").encode()
    return out


def xlsx() -> bytes:
    import io

    import openpyxl

    wb = openpyxl.Workbook()
    notes = wb.active
    notes.title = "Notes"
    notes["A1"] = "Krippendorff (2011), section C; ratings are on the next sheet"
    ws = wb.create_sheet("Ratings")
    ws.append(["Unit", "A", "B", "C", "D"])
    for u, row in zip(UNITS, K2011):
        ws.append([u, *row])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def main() -> None:
    for name, data in files().items():
        (HERE / name).write_bytes(data)
    (HERE / "k2011.xlsx").write_bytes(xlsx())
    print(f"wrote {len(files()) + 1} files to {HERE}")


if __name__ == "__main__":
    main()
