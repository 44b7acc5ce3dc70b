"""Rating files as tools export them (pandas, R, Excel, numpy, Parquet, JSON, Qualtrics, ...):
Krippendorff's (2011) data in 160-odd real shapes, written by the tools themselves where they are
at hand (pandas, openpyxl, pyarrow) and byte for byte as R and others write them where not.
``generate(folder)`` writes them and returns the manifest: each file's expected reading (kind
"num": the published alpha at every level; "lab": a label panel's exact nominal alpha; "dim": two
dimensions) and the one change a user makes (``args``: CLI flags such as --missing -99).
tests/io/test_exports.py reads every one through the import layer."""
import csv, io
from fractions import Fraction
from pathlib import Path
import numpy as np
import pandas as pd

OUT = Path(".")
N = None
K2011 = [[1,1,N,1],[2,2,3,2],[3,3,3,3],[3,3,3,3],[2,2,2,2],[1,2,3,4],[4,4,4,4],[1,1,2,1],[2,2,2,2],[N,5,5,5],[N,N,1,1],[N,3,N,N]]
OBS = ["A","B","C","D"]
UNITS = [f"unit-{i+1:02d}" for i in range(12)]

# ---- independent exact alpha (coincidence matrix) ----
def alpha(matrix, level="nominal"):
    from collections import Counter
    o = Counter(); n = 0
    for row in matrix:
        vals = [v for v in row if v is not None]
        m = len(vals)
        if m < 2: continue
        for i, a in enumerate(vals):
            for j, b in enumerate(vals):
                if i != j: o[(a, b)] += Fraction(1, m - 1)
        n += m
    cats = sorted({a for a, _ in o})
    nc = {c: sum(o[(c, k)] for k in cats) for c in cats}
    def d(a, b):
        if level == "nominal": return 0 if a == b else 1
        if level == "interval": return (a - b) ** 2
    Do = sum(o[(a, b)] * d(a, b) for a in cats for b in cats)
    De = sum(nc[a] * nc[b] * d(a, b) for a in cats for b in cats) / (n - 1)
    return 1 - Do / De
assert alpha(K2011) == Fraction(113, 152) and alpha(K2011, "interval") == Fraction(951, 1120)

manifest = []
def add(name, data, args=(), kind="num", expected=None, desc="", fix=None):
    p = OUT / name
    if isinstance(data, (bytes, bytearray)): p.write_bytes(data)
    manifest.append(dict(name=name, file=str(p), args=list(args), kind=kind,
                         expected=str(expected) if expected is not None else None, desc=desc, fix=fix))

def wide(units=UNITS, cols=OBS, dtype="float"):
    df = pd.DataFrame(K2011, columns=cols, dtype=float)
    df.index = units
    if dtype == "Int64": df = df.astype("Int64")
    return df

def tocsv(df, **kw):
    return df.to_csv(**kw).encode(kw.pop("encoding", "utf-8")) if False else df.to_csv(**kw)

def w(name, text, enc="utf-8", **m):
    add(name, text.encode(enc) if isinstance(text, str) else text, **m)



def generate(folder: Path) -> list[dict]:
    global OUT
    OUT = Path(folder)
    OUT.mkdir(parents=True, exist_ok=True)
    manifest.clear()
    # ===== pandas wide CSV =====
    df = wide(units=list(range(12)))
    w("pd_default_index.csv", df.to_csv(), desc="pandas to_csv() default RangeIndex (unnamed, 0..11), floats 1.0, NaN empty")
    w("pd_index_false.csv", wide().to_csv(index=False), desc="pandas to_csv(index=False): no unit column")
    d = wide(); d.index.name = "unit"
    w("pd_named_index_unit.csv", d.to_csv(), desc="pandas named index 'unit'")
    d = wide(); d.index.name = "Units"
    w("pd_named_index_Units.csv", d.to_csv(), desc="pandas named index 'Units'")
    d = wide(); d.index = pd.MultiIndex.from_tuples([(f"doc-{i//4}", i % 4) for i in range(12)], names=["doc_id", "sentence_id"])
    w("pd_multiindex2.csv", d.to_csv(), desc="pandas MultiIndex 2 levels doc_id,sentence_id")
    d = wide(); d.index = pd.MultiIndex.from_tuples([("corpusX", f"doc{i//6}", i % 6) for i in range(12)], names=["corpus", "doc", "sent"])
    w("pd_multiindex3.csv", d.to_csv(), desc="pandas MultiIndex 3 levels corpus,doc,sent (corpus constant)")
    d = wide(); d.index = pd.MultiIndex.from_tuples([(f"doc-{i//4}", i % 4) for i in range(12)])
    w("pd_multiindex2_unnamed.csv", d.to_csv(), desc="pandas MultiIndex 2 levels unnamed (header ',,A,B,C,D')")
    d = wide(); d.columns = pd.MultiIndex.from_tuples([("rating", o) for o in OBS]); d.index.name = "unit"
    w("pd_columns_multiindex_named.csv", d.to_csv(), desc="pandas columns MultiIndex ('rating',obs) + named index: 3 header rows")
    d = wide(); d.columns = pd.MultiIndex.from_tuples([("rating", o) for o in OBS])
    w("pd_columns_multiindex.csv", d.to_csv(), desc="pandas columns MultiIndex, unnamed index: 2 header rows")
    w("pd_columns_multiindex_noindex.csv", d.to_csv(index=False), desc="pandas columns MultiIndex, index=False: 2 header rows")
    d = wide(); d.index.name = "unit"
    w("pd_float6.csv", d.to_csv(float_format="%.6f"), desc="float_format %.6f -> 1.000000")
    w("pd_float_g.csv", d.to_csv(float_format="%g"), desc="float_format %g -> 1")
    w("pd_int64_nullable.csv", wide(dtype="Int64").rename_axis("unit").to_csv(), desc="nullable Int64 -> ints, empty missing")
    for rep, tag in [("NA", "NA"), ("NaN", "NaN"), ("null", "null"), ("nan", "nan"), ("#N/A", "hashNA"), ("None", "None"), ("N/A", "NslashA"), (".", "dot")]:
        w(f"pd_na_{tag}.csv", wide(dtype="Int64").rename_axis("unit").to_csv(na_rep=rep), desc=f"na_rep={rep!r}")
    w("pd_na_dash.csv", wide(dtype="Int64").rename_axis("unit").to_csv(na_rep="-"), desc="na_rep='-' (needs --missing -)", fix=["--missing", "-"])
    w("pd_na_space.csv", wide(dtype="Int64").rename_axis("unit").to_csv(na_rep=" "), desc="na_rep=' ' (a space)")
    for sep, tag in [(";", "semicolon"), ("\t", "tab"), ("|", "pipe")]:
        w(f"pd_sep_{tag}.csv", wide(dtype="Int64").rename_axis("unit").to_csv(sep=sep), desc=f"sep={sep!r}")
    w("pd_quote_all.csv", wide(dtype="Int64").rename_axis("unit").to_csv(quoting=csv.QUOTE_ALL), desc="QUOTE_ALL ints")
    w("pd_quote_all_float.csv", wide().rename_axis("unit").to_csv(quoting=csv.QUOTE_ALL), desc="QUOTE_ALL floats")
    w("pd_quote_nonnumeric.csv", wide().rename_axis("unit").to_csv(quoting=csv.QUOTE_NONNUMERIC), desc="QUOTE_NONNUMERIC floats (missing \"\")")
    umlaut = ["J\u00fcrgen M\u00fcller", "Zo\u00eb Stra\u00dfe", "Ren\u00e9e", "\u00c5sa \u00d6berg"]
    d = wide(cols=umlaut, dtype="Int64").rename_axis("Einheit")
    w("pd_utf8sig.csv", d.to_csv(encoding="utf-8-sig"), enc="utf-8-sig", desc="utf-8-sig, umlaut rater names")
    w("pd_utf16.csv", d.to_csv(), enc="utf-16", desc="utf-16 (BOM), comma, umlaut rater names")
    w("pd_utf16_tab.txt", d.to_csv(sep="\t", lineterminator="\r\n"), enc="utf-16", desc="utf-16 tab CRLF (Excel Unicode text), .txt extension")
    w("pd_cp1252.csv", d.to_csv(sep=";", lineterminator="\r\n"), enc="cp1252", desc="cp1252 ; CRLF umlauts")
    w("pd_crlf.csv", wide(dtype="Int64").rename_axis("unit").to_csv(lineterminator="\r\n"), desc="CRLF")
    w("pd_decimal_comma.csv", wide().rename_axis("unit").to_csv(sep=";", decimal=","), desc="sep=';' decimal=',' floats (1,0)")
    d = wide(dtype="Int64").rename_axis("unit"); d.columns = ["Observer A", "Observer B", "Observer C", "Observer D"]
    w("pd_rater_spaces.csv", d.to_csv(), desc="rater names with spaces")
    d = wide(units=list(range(1, 13)), cols=["1", "2", "3", "4"], dtype="Int64").rename_axis("unit")
    w("pd_numeric_rater_names.csv", d.to_csv(), desc="rater ids are numbers 1..4, units 1..12")
    d = wide(units=list(range(1, 13)), cols=["101", "102", "205", "311"], dtype="Int64")
    w("pd_numeric_rater_names_noindex.csv", d.to_csv(index=False), desc="rater ids 101,102,205,311; index=False")
    d = wide(units=list(range(1, 13)), dtype="Int64").rename_axis("id")
    w("pd_int_units.csv", d.to_csv(), desc="units named by integers 1..12, index 'id'")
    d = wide(dtype="Int64").rename_axis("unit"); d.columns = ["coder_1", "coder_2", "coder_3", "coder_4"]
    w("pd_coder_cols.csv", d.to_csv(), desc="columns coder_1..coder_4")
    d = wide(dtype="Int64").rename_axis("unit"); d.columns = ["rater1", "rater2", "rater3", "rater4"]
    w("pd_rater_cols.csv", d.to_csv(), desc="columns rater1..rater4")
    d = wide(dtype="Int64").rename_axis("unit"); d.columns = ["Rater", "Coder", "Judge", "Annotator"]
    w("pd_rater_cols_synonyms.csv", d.to_csv(), desc="rater columns literally named Rater,Coder,Judge,Annotator")
    d = wide(dtype="Int64").reset_index().rename(columns={"index": "unit"})
    d.insert(1, "text", [f"This is sentence number {i}, with a comma" for i in range(12)])
    d["created_at"] = pd.date_range("2024-01-01", periods=12).astype(str)
    w("pd_text_timestamp_cols.csv", d.to_csv(index=False), desc="wide with text and created_at columns")
    d = wide(dtype="Int64").reset_index().rename(columns={"index": "unit"})
    d = d[["A", "B", "C", "D", "unit"]]
    w("pd_unit_last.csv", d.to_csv(index=False), desc="wide with unit column last")
    d = wide(dtype="Int64").rename_axis("unit")
    w("pd_spaces_values.csv", d.to_csv(sep=";").replace(";", "; "), desc="'; ' separator (values with leading spaces)")

    # Excel-ish CSV quirks
    base = wide(dtype="Int64").rename_axis("unit").to_csv(lineterminator="\r\n")
    w("excel_trailing_commas.csv", "".join(l + ",,,\r\n" for l in base.split("\r\n") if l), desc="Excel trailing empty columns ',,,'")
    w("excel_trailing_rows.csv", base + ",,,,\r\n,,,,\r\n,,,,\r\n", desc="Excel trailing empty rows ',,,,'")
    w("excel_trailing_both.csv", "".join(l + ",,\r\n" for l in base.split("\r\n") if l) + ",,,,,,\r\n,,,,,,\r\n", desc="trailing cols and rows")
    w("excel_sep_hint.csv", "sep=;\r\n" + wide(dtype="Int64").rename_axis("unit").to_csv(sep=";", lineterminator="\r\n"), desc="Excel 'sep=;' first line")
    w("excel_csv_utf8_bom.csv", base, enc="utf-8-sig", desc="Excel CSV UTF-8 (BOM, CRLF)")
    w("gsheets.csv", base, desc="Google Sheets download (no BOM, CRLF)")
    w("gsheets_noeol.csv", base.rstrip("\r\n"), desc="CRLF, no newline at EOF")
    w("csv_title_row.csv", "Inter-rater study 2024,,,,\r\n" + base, desc="title row above header (CSV)")
    w("csv_blank_then_header.csv", "\r\n" + base, desc="blank first line then header")
    w("pd_lf_quoted_header.csv", base.replace("unit,A,B,C,D", '"unit","A","B","C","D"'), desc="quoted header only")

    # ===== R conventions =====
    def r(v): return "NA" if v is None else str(v)
    lines = ['"","A","B","C","D"'] + [f'"{i+1}",' + ",".join(r(v) for v in row) for i, row in enumerate(K2011)]
    w("r_write_csv.csv", "\n".join(lines) + "\n", desc='R write.csv(df): "" first header, row names')
    lines = ['"","unit","A","B","C","D"'] + [f'"{i+1}","{u}",' + ",".join(r(v) for v in row) for i, (u, row) in enumerate(zip(UNITS, K2011))]
    w("r_write_csv_unitcol.csv", "\n".join(lines) + "\n", desc="R write.csv with a unit column + row names")
    lines = ["A\tB\tC\tD"] + [f"{u}\t" + "\t".join(r(v) for v in row) for u, row in zip(UNITS, K2011)]
    w("r_write_table_tab_rownames.tsv", "\n".join(lines) + "\n", desc="R write.table(sep='\\t', quote=FALSE): header one field short")
    lines = ['"A" "B" "C" "D"'] + [f'"{u}" ' + " ".join(r(v) for v in row) for u, row in zip(UNITS, K2011)]
    w("r_write_table_default.txt", "\n".join(lines) + "\n", desc="R write.table(df) default: space-separated, header one short")
    lines = ["unit\tA\tB\tC\tD"] + [f"{u}\t" + "\t".join(r(v) for v in row) for u, row in zip(UNITS, K2011)]
    w("r_write_table_tab_norownames.tsv", "\n".join(lines) + "\n", desc="R write.table(sep='\\t',quote=FALSE,row.names=FALSE)")
    lines = ['"";"A";"B";"C";"D"'] + [f'"{u}";' + ";".join(r(v) for v in row) for u, row in zip(UNITS, K2011)]
    w("r_write_csv2.csv", "\n".join(lines) + "\n", desc="R write.csv2: ';' sep, row names")
    labs = {1: "very low", 2: "low", 3: "medium", 4: "high", 5: "very high"}
    lines = ['"","unit","A","B","C","D"'] + [f'"{i+1}","{u}",' + ",".join("NA" if v is None else f'"{labs[v]}"' for v in row) for i, (u, row) in enumerate(zip(UNITS, K2011))]
    w("r_factor_labels.csv", "\n".join(lines) + "\n", kind="lab", expected=Fraction(113, 152), desc="R write.csv factor labels quoted, NA")
    lines = ['"",' + ",".join(f'"V{j+1}"' for j in range(12))] + [f'"{o}",' + ",".join(r(row[j]) for row in K2011) for j, o in enumerate(OBS)]
    w("r_write_csv_t.csv", "\n".join(lines) + "\n", desc="R write.csv(t(m)) raters x units")
    lines = ['"unit","rater","value"'] + [f'"{u}","{o}",{v}' for u, row in zip(UNITS, K2011) for o, v in zip(OBS, row) if v is not None]
    w("r_long.csv", "\n".join(lines) + "\n", desc="R long row.names=FALSE")
    lines = ['"","unit","rater","value"'] + [f'"{k+1}",' + s for k, s in enumerate(f'"{u}","{o}",{r(v)}' for u, row in zip(UNITS, K2011) for o, v in zip(OBS, row))]
    w("r_long_rownames_na.csv", "\n".join(lines) + "\n", desc="R long with row names and NA rows kept")

    # ===== Stata / SPSS =====
    def cellm(v, m): return m if v is None else str(v)
    lines = ["id,A,B,C,D"] + [f"{i+1}," + ",".join(cellm(v, "-99") for v in row) for i, row in enumerate(K2011)]
    w("stata_minus99.csv", "\n".join(lines) + "\n", args=["--missing", "-99"], desc="-99 missing, --missing -99")
    w("stata_minus99_nomissingflag.csv", "\n".join(lines) + "\n", desc="-99 missing WITHOUT --missing (expect wrong alpha or warning)", fix=["--missing", "-99"])
    lines = ["id,A,B,C,D"] + [f"{i+1}," + ",".join(cellm(v, "999") for v in row) for i, row in enumerate(K2011)]
    w("spss_999.csv", "\n".join(lines) + "\n", args=["--missing", "999"], desc="999 missing, --missing 999")
    lines = ["id,A,B,C,D"] + [f"{i+1}," + ",".join(cellm(v, ".") for v in row) for i, row in enumerate(K2011)]
    w("stata_dot.csv", "\n".join(lines) + "\n", desc="Stata '.' missing")
    lines = ["id\tA\tB\tC\tD"] + [f"{i+1}\t" + "\t".join(cellm(v, "") for v in row) for i, row in enumerate(K2011)]
    w("spss_tab.dat", "\n".join(lines) + "\n", desc="SPSS tab .dat")

    # ===== labels =====
    lab = [[None if v is None else labs[v] for v in row] for row in K2011]
    d = pd.DataFrame(lab, columns=OBS, index=pd.Index(UNITS, name="unit"))
    w("lab_wide.csv", d.to_csv(), kind="lab", expected=Fraction(113, 152), desc="wide labels very low..very high")
    yn = [[None if v is None else ("yes" if v >= 3 else "no") for v in row] for row in K2011]
    yn_exp = alpha(yn)
    d = pd.DataFrame(yn, columns=OBS, index=pd.Index(UNITS, name="unit"))
    w("lab_yesno.csv", d.to_csv(), kind="lab", expected=yn_exp, desc="wide yes/no")
    tf = [[None if v is None else (v >= 3) for v in row] for row in K2011]
    d = pd.DataFrame(tf, columns=OBS, index=pd.Index(UNITS, name="unit"), dtype=object)
    w("lab_truefalse.csv", d.to_csv(), kind="lab", expected=yn_exp, desc="wide True/False (pandas bool object)")
    binm = [[None if v is None else int(v >= 3) for v in row] for row in K2011]
    d = pd.DataFrame(binm, columns=OBS, index=pd.Index(UNITS, name="unit"), dtype=float)
    w("bin_float.csv", d.to_csv(), kind="lab", expected=yn_exp, desc="wide 0.0/1.0 floats")

    # ===== long formats =====
    def long_df(u="unit", r_="rater", v="value", dropna=True, units=UNITS, vals=None):
        rows = []
        for uu, row in zip(units, vals or K2011):
            for o, x in zip(OBS, row):
                if x is None and dropna: continue
                rows.append({u: uu, r_: o, v: x})
        return pd.DataFrame(rows)
    for (u, r_, v) in [("subject", "coder", "code"), ("item", "annotator", "label"), ("id", "worker", "answer"),
                       ("Wine", "Judge", "Scores"), ("Subject", "Rater", "Rating"), ("doc_id", "annotator_id", "label"),
                       ("question_id", "model", "score"), ("segment_id", "user_id", "annotation"), ("Item", "Coder", "Category")]:
        ld = long_df(u, r_, v)
        ld[v] = ld[v].astype("Int64")
        w(f"long_{u}_{r_}_{v}.csv", ld.to_csv(index=False), desc=f"long {u},{r_},{v}")
    ld = long_df("subject", "coder", "code"); ld["code"] = ld["code"].astype("Int64")
    w("long_default_index.csv", ld.to_csv(), desc="long with pandas default index column")
    ld = long_df("item", "annotator", "label", dropna=False)
    w("long_dropna_false_float.csv", ld.to_csv(index=False), desc="long with NaN rows kept, floats 1.0")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype(int)
    ld["timestamp"] = pd.date_range("2024-03-01 09:00", periods=len(ld), freq="7min").astype(str)
    ld["text"] = ["Some text, with \"quotes\" and, commas" for _ in range(len(ld))]
    ld["lead_time"] = np.round(np.linspace(3.5, 40.1, len(ld)), 2)
    w("long_extra_cols.csv", ld.to_csv(index=False), desc="long with timestamp,text,lead_time extra columns")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype(int)
    ld2 = long_df("item", "annotator", "label", vals=lab)
    ld["dimension"] = "quality"; ld2["dimension"] = "tone"
    dd = pd.concat([ld, ld2.astype({"label": object})])[["dimension", "item", "annotator", "label"]]
    w("long_dimension.csv", dd.to_csv(index=False), kind="dim", desc="long with dimension column: quality (numbers) + tone (labels)")
    ld = long_df("unit", "rater", "value", units=list(range(1, 13))); ld["value"] = ld["value"].astype(int)
    w("long_int_units.csv", ld[["rater", "unit", "value"]].to_csv(index=False), desc="long rater,unit,value order; int units")
    ld = long_df("item", "annotator", "label", vals=lab)
    w("long_labels.csv", ld.to_csv(index=False), kind="lab", expected=Fraction(113, 152), desc="long string labels")
    ld = long_df("item_id", "annotator", "label"); ld["label"] = ld["label"].astype(int); ld["annotator"] = ld["annotator"].map(lambda o: f"{o.lower()}@example.com")
    w("long_email_raters.csv", ld.to_csv(index=False), desc="long with e-mail raters")

    # ===== transposed =====
    t = pd.DataFrame([[row[j] for row in K2011] for j in range(4)], index=pd.Index(OBS, name="rater"), columns=UNITS, dtype="Int64")
    w("tr_header.csv", t.to_csv(), desc="raters x units with header 'rater,unit-01..'")
    t2 = pd.DataFrame(K2011, columns=OBS, dtype=float).T
    w("tr_pandas_T.csv", t2.to_csv(), desc="pandas df.T.to_csv(): header ',0,1,..,11', floats")
    w("tr_noheader.csv", t.to_csv(header=False, index=False), desc="raters x units no header, no names (ints)")
    w("tr_noheader_names.csv", t.to_csv(header=False), desc="raters x units no header, rater names in first column")
    rel = np.array([[np.nan if row[j] is None else row[j] for row in K2011] for j in range(4)], dtype=float)
    bio = io.StringIO(); np.savetxt(bio, rel, delimiter=","); w("np_savetxt_default.csv", bio.getvalue(), desc="np.savetxt default fmt %.18e")
    bio = io.StringIO(); np.savetxt(bio, rel, delimiter=",", fmt="%g"); w("np_savetxt_g.csv", bio.getvalue(), desc="np.savetxt fmt %g")
    bio = io.StringIO(); np.savetxt(bio, rel, delimiter="\t", fmt="%.1f"); w("np_savetxt_tab.tsv", bio.getvalue(), desc="np.savetxt tab %.1f")
    bio = io.StringIO(); np.savetxt(bio, rel, delimiter=" ", fmt="%.1f"); w("np_savetxt_space.txt", bio.getvalue(), desc="np.savetxt default delimiter ' ' %.1f")
    rel_ks = np.array([[np.nan if row[j] is None else row[j] for row in K2011] for j in range(4)], dtype=float)
    bio = io.StringIO(); np.savetxt(bio, rel_ks.T, delimiter=",", fmt="%g"); w("np_savetxt_units_by_raters.csv", bio.getvalue(), desc="np.savetxt units x raters (12 rows x 4), no header")

    # ===== Excel =====
    import openpyxl
    def xl(name, writer, **m):
        p = OUT / name; writer(p); add(name, None, **m)
    wd = wide(dtype="Int64").rename_axis("unit")
    xl("xl_index.xlsx", lambda p: wide(units=list(range(12))).to_excel(p), desc="to_excel default (unnamed RangeIndex 0..11, floats)")
    xl("xl_noindex.xlsx", lambda p: wide().to_excel(p, index=False), desc="to_excel index=False")
    xl("xl_named_index.xlsx", lambda p: wd.to_excel(p), desc="to_excel named index 'unit', Int64")
    def multi(p):
        with pd.ExcelWriter(p) as xw:
            pd.DataFrame({"info": ["Study X", "exported 2024"]}).to_excel(xw, sheet_name="README", index=False)
            wd.to_excel(xw, sheet_name="ratings")
    xl("xl_multisheet.xlsx", multi, args=["--sheet", "ratings"], desc="two sheets, data on 'ratings', --sheet ratings")
    xl("xl_multisheet_noflag.xlsx", multi, desc="two sheets, data on 2nd, no --sheet", fix=["--sheet", "ratings"])
    def title(p):
        with pd.ExcelWriter(p) as xw:
            wd.to_excel(xw, sheet_name="Sheet1", startrow=2)
            xw.sheets["Sheet1"]["A1"] = "Inter-rater reliability study (Krippendorff 2011)"
    xl("xl_title_row.xlsx", title, desc="title in A1, blank row, header at row 3")
    def mcols(p):
        d = wide(dtype="Int64").rename_axis("unit"); d.columns = pd.MultiIndex.from_tuples([("ratings", o) for o in OBS]); d.to_excel(p)
    xl("xl_columns_multiindex.xlsx", mcols, desc="to_excel with column MultiIndex (merged header cells)")
    def na_str(p):
        d = wide(dtype="Int64").rename_axis("unit").astype(object).where(wide(dtype="Int64").rename_axis("unit").notna(), "#N/A"); d.to_excel(p)
    xl("xl_na_string.xlsx", na_str, desc="xlsx with '#N/A' text cells")
    def manual(p):
        wb = openpyxl.Workbook(); ws = wb.active; ws.title = "Data"
        ws.append(["Unit", "Coder A", "Coder B", "Coder C", "Coder D", None, None])
        for u, row in zip(UNITS, K2011): ws.append([u] + [None if v is None else float(v) for v in row])
        ws["H1"] = None; ws.cell(row=20, column=1).value = None
        ws.column_dimensions["A"].width = 20; ws.freeze_panes = "B2"
        ws.cell(row=16, column=1).value = ""  # empty string cell after data
        wb.save(p)
    xl("xl_openpyxl_floats.xlsx", manual, desc="openpyxl manual, float cells, stray empty-string cell below")
    def xlab(p):
        pd.DataFrame(lab, columns=OBS, index=pd.Index(UNITS, name="unit")).to_excel(p)
    xl("xl_labels.xlsx", xlab, kind="lab", expected=Fraction(113, 152), desc="xlsx labels")
    def xlong(p):
        ld = long_df("subject", "coder", "code"); ld["code"] = ld["code"].astype(int); ld.to_excel(p, index=False)
    xl("xl_long.xlsx", xlong, desc="xlsx long subject,coder,code")
    def xtr(p): t.to_excel(p)
    xl("xl_transposed.xlsx", xtr, desc="xlsx raters x units")
    def xdates(p):
        d = wd.reset_index(); d.insert(1, "date", pd.date_range("2024-01-01", periods=12)); d.to_excel(p, index=False)
    xl("xl_date_col.xlsx", xdates, desc="xlsx with a datetime 'date' column")
    def xfmt(p):
        with pd.ExcelWriter(p) as xw:
            wd.to_excel(xw, sheet_name="S")
            ws = xw.sheets["S"]; ws.cell(row=ws.max_row + 3, column=1).value = None
            for c in range(1, 10):
                ws.cell(row=30, column=c).number_format = "0.00"  # formatted but empty cells extend the dimension
    xl("xl_formatted_empty.xlsx", xfmt, desc="xlsx with formatted empty cells far below (sheet dimension extends)")

    # ===== Parquet =====
    def pq(name, frame, **m):
        p = OUT / name; frame.to_parquet(p); add(name, None, **m)
    pq("pq_float_nan_rangeindex.parquet", wide().reset_index(drop=True), desc="parquet float NaN, RangeIndex (no unit col)")
    pq("pq_float_nan_named.parquet", wide().rename_axis("unit"), desc="parquet float NaN, named index 'unit' (stored as column)")
    pq("pq_float_nan_unnamed_strindex.parquet", wide(), desc="parquet float, unnamed string index -> __index_level_0__")
    pq("pq_int64_nullable.parquet", wide(dtype="Int64").rename_axis("unit"), desc="parquet nullable Int64")
    pq("pq_category.parquet", wide(dtype="Int64").rename_axis("unit").astype("category"), desc="parquet category dtype (int categories)")
    pq("pq_category_str.parquet", pd.DataFrame(lab, columns=OBS, index=pd.Index(UNITS, name="unit")).astype("category"), kind="lab", expected=Fraction(113, 152), desc="parquet category dtype string labels")
    pq("pq_string.parquet", pd.DataFrame(lab, columns=OBS, index=pd.Index(UNITS, name="unit")).astype("string"), kind="lab", expected=Fraction(113, 152), desc="parquet string dtype labels with <NA>")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype("int64")
    pq("pq_long_int.parquet", ld, desc="parquet long int64")
    ld = long_df("item", "annotator", "label", dropna=False)
    pq("pq_long_float_nan.parquet", ld, desc="parquet long float with NaN rows")
    ld = long_df("item", "annotator", "label", units=list(range(1, 13))); ld["label"] = ld["label"].astype("int32")
    pq("pq_long_int_units.parquet", ld, desc="parquet long int units int32 labels")
    d = wide(dtype="Int64"); d.index = pd.MultiIndex.from_tuples([(f"doc-{i//4}", i % 4) for i in range(12)], names=["doc_id", "sentence_id"])
    pq("pq_multiindex.parquet", d, desc="parquet MultiIndex doc_id,sentence_id")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype("int64"); ld["ts"] = pd.date_range("2024-01-01", periods=len(ld), freq="h")
    pq("pq_long_timestamp.parquet", ld, desc="parquet long with timestamp column")

    # ===== JSON =====
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype(int)
    w("json_records_lines.jsonl", ld.to_json(orient="records", lines=True), desc="to_json(records, lines=True) long")
    w("json_records_array.json", ld.to_json(orient="records"), desc="to_json(records) JSON array long")
    ld = long_df("item", "annotator", "label", dropna=False)
    w("json_records_lines_float_null.jsonl", ld.to_json(orient="records", lines=True), desc="jsonl long floats 1.0 with null rows")
    w("json_wide_records_lines.jsonl", wide().rename_axis("unit").reset_index().to_json(orient="records", lines=True), desc="jsonl wide records (unit,A..D) floats null")
    w("json_records_lines_labels.jsonl", long_df("item", "annotator", "label", vals=lab).to_json(orient="records", lines=True), kind="lab", expected=Fraction(113, 152), desc="jsonl long labels")
    w("json_records_lines.json", long_df("item", "annotator", "label").astype({"label": int}).to_json(orient="records", lines=True), desc="jsonl content in a .json file")


    # ===================== batch 2 =====================
    d = wide(dtype="Int64"); d.index = pd.MultiIndex.from_tuples([(f"batch{i//6}", f"doc{i//3}", i % 3) for i in range(12)], names=["batch", "doc", "sent"])
    w("b2_multiindex3_varied.csv", d.to_csv(), desc="MultiIndex 3 levels batch,doc,sent (none constant)")
    src_csv = wide(units=list(range(12))).to_csv()
    rr = pd.read_csv(io.StringIO(src_csv))
    w("b2_reread_unnamed0.csv", rr.to_csv(index=False), desc="read_csv then to_csv(index=False): 'Unnamed: 0' column")
    w("b2_reread_double_index.csv", rr.to_csv(), desc="read_csv then to_csv(): ',Unnamed: 0,A,B,C,D'")
    xl("b2_xl_reread_unnamed0.xlsx", lambda p: rr.to_excel(p), desc="read_csv then to_excel(): index + 'Unnamed: 0'")
    ld = long_df("subject", "coder", "code"); ld["code"] = ld["code"].astype(int)
    lt = ld.to_csv(index=False, lineterminator="\r\n")
    w("b2_long_trailing_rows.csv", lt + ",,\r\n,,\r\n", desc="long with Excel trailing ',,' rows")
    w("b2_long_trailing_cols.csv", "".join(l + ",,\r\n" for l in lt.split("\r\n") if l), desc="long with trailing ',,' columns")
    w("b2_long_noheader.csv", ld.to_csv(index=False, header=False), desc="long without header (R write.table col.names=FALSE)")
    ld = long_df("subject", "coder", "code", units=list(range(1, 13))); ld["code"] = ld["code"].astype(int); ld["coder"] = ld["coder"].map({"A": 1, "B": 2, "C": 3, "D": 4})
    w("b2_long_all_int.csv", ld.to_csv(index=False), desc="long subject,coder,code all integers (coder ids 1..4)")
    ld = long_df("unit", "rater", "value"); ld["value"] = ld["value"].astype(int)
    w("b2_long_header_spaces.csv", ld.to_csv(index=False).replace("unit,rater,value", "Unit , Rater , Value "), desc="long header with spaces around names")
    wd2 = wide().rename_axis("unit")
    w("b2_json_orient_columns.json", wd2.to_json(), desc="df.to_json() default orient='columns' (wide dict of dicts)")
    w("b2_json_orient_index.json", wd2.to_json(orient="index"), desc="df.to_json(orient='index')")
    w("b2_json_wide_array.json", wd2.reset_index().to_json(orient="records"), desc="wide records JSON array")
    w("b2_json_orient_split.json", wd2.to_json(orient="split"), desc="df.to_json(orient='split')")
    def xtext(p):
        d = wide(dtype="Int64").rename_axis("unit").astype(object); d = d.where(d.notna(), None).map(lambda v: None if v is None else str(v)); d.to_excel(p)
    xl("b2_xl_numbers_as_text.xlsx", xtext, desc="xlsx numbers stored as text cells")
    xl("b2_xl_offset_col.xlsx", lambda p: wide(dtype="Int64").rename_axis("unit").to_excel(p, startcol=1), desc="xlsx data starting at column B")
    xl("b2_xl_offset_row.xlsx", lambda p: wide(dtype="Int64").rename_axis("unit").to_excel(p, startrow=1), desc="xlsx data starting at row 2 (blank row 1)")
    w("b2_sep_comma_hint.csv", "sep=,\r\n" + base, desc="Excel 'sep=,' first line")
    w("b2_quoted_NA.csv", wide(dtype="Int64").rename_axis("unit").to_csv(quoting=csv.QUOTE_ALL, na_rep="NA"), desc='QUOTE_ALL with "NA" quoted')
    w("b2_utf16le_nobom.tsv", wide(dtype="Int64").rename_axis("unit").to_csv(sep="\t"), enc="utf-16-le", desc="UTF-16-LE without BOM, tab")
    w("b2_comment_line.csv", "# exported 2024-05-01 by annotation-tool v2\n" + wide(dtype="Int64").rename_axis("unit").to_csv(), desc="'#' comment line before header")
    w("b2_excel_leading_empty_row.csv", ",,,,\r\n" + base, desc="Excel empty row ',,,,' before header")
    w("b2_excel_trailing_tabs.txt", "".join(l + "\t\t\r\n" for l in wide(dtype="Int64").rename_axis("unit").to_csv(sep="\t", lineterminator="\r\n").split("\r\n") if l), enc="cp1252", desc="Excel Text (tab) cp1252 with trailing tabs")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype(int)
    w("b2_pivot_no_values.csv", ld.pivot(index="item", columns="annotator").to_csv(), desc="long.pivot(index, columns) without values= -> 3 header rows")
    w("b2_unstack.csv", ld.set_index(["item", "annotator"]).unstack().to_csv(), desc="set_index([item,annotator]).unstack() -> 3 header rows")
    w("b2_pivot_values.csv", ld.pivot(index="item", columns="annotator", values="label").to_csv(), desc="pivot with values= (one header row)")
    xl("b2_xl_pivot_no_values.xlsx", lambda p: ld.pivot(index="item", columns="annotator").to_excel(p), desc="pivot without values= to_excel")
    yb = pd.DataFrame([[None if v is None else bool(v >= 3) for v in row] for row in K2011], columns=OBS, index=pd.Index(UNITS, name="unit"), dtype="boolean")
    pq("b2_pq_boolean.parquet", yb, kind="lab", expected=yn_exp, desc="parquet nullable boolean")
    w("b2_bool_csv.csv", yb.to_csv(), kind="lab", expected=yn_exp, desc="CSV True/False from nullable boolean (<NA> -> empty)")
    ld = long_df("item", "annotator", "label"); ld["label"] = ld["label"].astype(int); ld2 = long_df("item", "annotator", "label", vals=lab)
    ld["aspect"] = "quality"; ld2["aspect"] = "tone"
    dd = pd.concat([ld, ld2.astype({"label": object})]); dd["aspect"] = dd["aspect"].astype("category"); dd["label"] = dd["label"].astype(str)
    pq("b2_pq_long_dim_category.parquet", dd, kind="dim", desc="parquet long with category 'aspect' dimension, labels as str")
    lines = ['"ResponseId","A","B","C","D"', '"Response ID","Rater A score","Rater B score","Rater C score","Rater D score"', '"{""ImportId"":""_recordId""}","{""ImportId"":""QID1""}","{""ImportId"":""QID2""}","{""ImportId"":""QID3""}","{""ImportId"":""QID4""}"']
    lines += [f'"R_{u}",' + ",".join("" if v is None else str(v) for v in row) for u, row in zip(UNITS, K2011)]
    w("b2_qualtrics_3header.csv", "\n".join(lines) + "\n", desc="Qualtrics-style 3 header rows")
    lines = ["Coder A,Coder B,Coder C,Coder D"] + [",".join("" if v is None else str(v) for v in row) for row in K2011]
    w("b2_no_unit_named_raters.csv", "\n".join(lines) + "\n", desc="wide, no unit column, rater names only (SPSS/Excel)")
    w("b2_float_format_2.csv", wide().rename_axis("unit").to_csv(float_format="%.2f"), desc="float_format %.2f -> 1.00")
    rr2 = wide().rename_axis("unit"); rr2 = rr2 + 0.0
    w("b2_float_noisy.csv", (rr2 * 0.1 * 10).to_csv(), desc="floats after *0.1*10 arithmetic (3.0000000000000004)")
    xl("b2_xl_index_false_long_dropna_false.xlsx", lambda p: long_df("item", "annotator", "label", dropna=False).to_excel(p, index=False), desc="xlsx long with empty value cells")

    return list(manifest)
