"""Writes tests/data/hostile/: files made to break the tool, and manifest.json saying how each is
run through the CLI and which exit codes are acceptable (python tests/data/make_hostile_files.py).

Every file must end in a verdict (0, 1, 2) or a located input error (3): never a traceback, never
4, never more than one short line on stderr, within bounded memory. Cases that need the machine
(devices, pipes, sparse files, undecodable names, report paths) are made at test time by
:func:`runtime_cases` into a temporary folder.
"""

from __future__ import annotations

import io
import json
import os
import random
import struct
import zlib
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
OUT = HERE / "hostile"
SAMPLES = HERE.parents[1] / "sample_data"

VERDICT = [0, 1, 2]
BAD = [3]
CASES: list[dict[str, Any]] = []


def case(name: str, data: bytes, argv: list[str] | None = None, codes: list[int] = BAD, stderr: str | None = None,
         category: str = "") -> None:
    """``argv``: the CLI arguments with "{f}" for this file and "{sample:NAME}" for a sample."""
    CASES.append({"file": name, "data": data, "argv": argv or ["panel", "{f}"], "codes": codes, "stderr": stderr,
                  "category": category})


def csv_bytes(rows: list[list[str]]) -> bytes:
    return ("\n".join(",".join(r) for r in rows) + "\n").encode()


def wide(values: list[list[Any]], raters: list[str] | None = None) -> bytes:
    raters = raters or [f"det-{i}" for i in range(len(values[0]))]
    rows = [["unit", *raters]] + [[f"u{i}", *map(str, r)] for i, r in enumerate(values)]
    return csv_bytes(rows)


def bundle(mutate: Callable[[dict], Any]) -> bytes:
    obj = json.loads((SAMPLES / "judge_illustrative.json").read_text())
    mutate(obj)
    return json.dumps(obj).encode()


def parquet(table_fn: Callable[[], Any]) -> bytes:
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(table_fn(), buf)
    return buf.getvalue()


def build() -> None:  # noqa: C901 - a catalogue, one case after another
    rng = random.Random(20261130)
    big_int = "9" * 5000
    mib = "x" * 2**20

    # --- CSV structure ---------------------------------------------------------------------
    cat = "csv structure"
    case("empty.csv", b"", category=cat)
    case("spaces_only.csv", b"   \n \n\t\n", category=cat)
    case("bom_only.csv", b"\xef\xbb\xbf", category=cat)
    case("header_only.csv", b"unit,a,b\n", category=cat)
    case("commas_only.csv", b",,,,\n,,,,\n", category=cat)
    case("ragged_long.csv", b"unit,a,b\nu1,1,1\nu2,1,1,1\n", category=cat)
    case("ragged_short.csv", b"unit,a,b\nu1,1\n", category=cat)
    case("unterminated_quote.csv", b'unit,a,b\nu1,"1,1\nu2,0,0\n', category=cat)
    case("quote_in_header.csv", b'unit,"a,b\nu1,1,1\n', category=cat)
    case("nul_byte.csv", b"unit,a,b\nu1,1\x00,1\n", category=cat)
    case("png.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), category=cat)
    case("utf16le.csv", "unit,a,b\nu1,1,1\n".encode("utf-16-le"), codes=VERDICT, category=cat)
    case("utf16_bom.csv", "unit,a,b\nu1,1,1\n".encode("utf-16"), codes=VERDICT, category=cat)
    case("latin1.csv", "unit,a,b\nu1,caf\u00e9,1\n".encode("latin-1"), codes=VERDICT, category=cat)
    case("bad_utf8_header.csv", b"unit,\xff\xfe,b\nu1,1,1\n", codes=VERDICT, category=cat)
    case("cr_only_lines.csv", b"unit,a,b\ru1,1,1\ru2,0,1\r", codes=VERDICT + BAD, category=cat)
    case("too_many_columns.csv", ("unit," + ",".join(f"r{i}" for i in range(100_001)) + "\n").encode(), category=cat)
    case("duplicate_header.csv", b"unit,a,a\nu1,1,1\n", category=cat)
    case("duplicate_header_zero_width.csv", "unit,bob,bob\u200b\nu1,1,1\n".encode(), category=cat)
    case("empty_header_name.csv", b"unit,,b\nu1,1,1\n", codes=VERDICT, category=cat)
    case("newline_in_header.csv", b'unit,"a\nb",c\nu1,1,1\n', category=cat)
    case("ansi_header.csv", b"unit,\x1b[31mred\x1b[0m,b\nu1,1,1\n", category=cat, stderr="\\x1b[31mred")
    case("osc_header.csv", b"unit,\x1b]0;pwned\x07,b\nu1,1,1\n", category=cat, stderr="\\x1b]0;pwned\\x07")
    case("bidi_rater.csv", "unit,a\u202egnp.exe,b\nu1,1,1\n".encode(), codes=VERDICT, category=cat)
    case("control_in_unit.csv", b"unit,a,b\nu\x071,1,1\n", category=cat)
    case("duplicate_unit.csv", b"unit,a,b\nu1,1,1\nu1,0,0\n", category=cat)
    case("no_unit_column.csv", b"item,a,b\nu1,1,1\n", codes=VERDICT, category=cat)
    case("single_column.csv", b"unit\nu1\nu2\n", category=cat)
    case("semicolons.csv", b"unit;a;b\nu1;1;1\n", codes=VERDICT + BAD, category=cat)
    case("unit_name_1mib.csv", ("unit,a,b\n" + mib + ",1,1\n").encode(), category=cat)
    case("header_1mib.csv", ("unit," + mib + ",b\nu1,1,1\n").encode(), category=cat)
    case("many_blank_lines.csv", b"unit,a,b\n" + b"\n" * 100_000 + b"u1,1,1\nu2,0,0\n", codes=VERDICT, category=cat)
    case("all_missing.csv", b"unit,a,b\nu1,NA,\nu2,,NaN\n", codes=VERDICT, category=cat)
    case("long_dup_rating.csv", b"unit,rater,value\nu1,a,1\nu1,a,0\n", category=cat)
    case("long_empty_unit.csv", b"unit,rater,value\n,a,1\nu1,b,0\n", category=cat)
    case("long_extra_column.csv", b"unit,rater,value,note\nu1,a,1,x\n", codes=VERDICT, category=cat)
    case("long_missing_value_column.csv", b"unit,rater\nu1,a\n", category=cat)

    # --- values ----------------------------------------------------------------------------
    cat = "values"
    case("int_5000_digits.csv", f"unit,a,b\nu1,{big_int},1\nu2,1,1\n".encode(), category=cat)
    case("int_5000_digits_interval.csv", f"unit,a,b\nu1,{big_int},1\nu2,1,2\n".encode(),
         ["panel", "{f}", "--level", "interval"], category=cat)
    case("decimal_5000_digits.csv", f"unit,a,b\nu1,0.{big_int},1\nu2,1,1\n".encode(), category=cat)
    case("int_20_digits.csv", b"unit,a,b\nu1,12345678901234567890,1\nu2,1,1\n", category=cat)
    case("negative_5000_digits.csv", f"unit,a,b\nu1,-{big_int},1\n".encode(), category=cat)
    case("exponent_cells.csv", b"unit,a,b\nu1,1e309,1\nu2,1e-400,2\nu3,1,1\n", category=cat)  # 1e309: not finite
    case("exponent_cells_interval.csv", b"unit,a,b\nu1,1e309,1\nu2,1,2\n", ["panel", "{f}", "--level", "interval"],
         category=cat)
    case("inf_cells_interval.csv", b"unit,a,b\nu1,inf,1\nu2,-inf,2\nu3,1,1\n", ["panel", "{f}", "--level", "interval"],
         category=cat)
    case("nan_cells.csv", b"unit,a,b\nu1,nan,1\nu2,NaN,2\nu3,1,1\nu4,2,2\n", ["panel", "{f}", "--level", "interval"],
         codes=VERDICT, category=cat)
    case("label_1mib_interval.csv", ("unit,a,b\nu1," + mib + ",1\nu2,1,2\n").encode(),
         ["panel", "{f}", "--level", "interval"], category=cat)
    case("label_1mib_nominal.csv", ("unit,a,b\nu1," + mib + ",1\nu2,1,2\n").encode(), category=cat)
    case("labels_at_interval.csv", b"unit,a,b\nu1,yes,no\nu2,no,no\n", ["panel", "{f}", "--level", "interval"],
         category=cat)
    case("labels_at_ratio.csv", b"unit,a,b\nu1,yes,no\nu2,no,no\n", ["panel", "{f}", "--level", "ratio"], category=cat)
    case("negative_at_ratio.csv", b"unit,a,b\nu1,1,2\nu2,-3,2\nu3,4,4\n", ["panel", "{f}", "--level", "ratio"],
         category=cat, stderr="row 3, column 'a'")
    vals = [[rng.randint(0, 150), rng.randint(0, 150)] for _ in range(200)]
    case("ratio_150_values.csv", wide(vals), ["panel", "{f}", "--level", "ratio"], category=cat)
    labels = [[f"lab{rng.randint(0, 499)}", f"lab{rng.randint(0, 499)}"] for _ in range(250)]
    case("labels_500_in_250_rows.csv", wide(labels), codes=VERDICT, category=cat)
    case("labels_500_in_250_rows_positive.csv", wide(labels), ["panel", "{f}", "--positive", "lab7"],
         codes=VERDICT + BAD, category=cat)
    decs = [[f"{rng.randint(0, 10**6) / 1000}", f"{rng.randint(0, 10**6) / 1000}"] for _ in range(2000)]
    case("decimals_2000_distinct_interval.csv", wide(decs), ["panel", "{f}", "--level", "interval"], codes=VERDICT,
         category=cat)
    case("decimals_2000_distinct_ordinal.csv", wide(decs), ["panel", "{f}", "--level", "ordinal"], codes=VERDICT,
         category=cat)
    case("decimals_2000_distinct_nominal.csv", wide(decs), codes=VERDICT, category=cat)
    case("control_in_label.csv", b"unit,a,b\nu1,ye\x1bs,no\nu2,no,no\n", category=cat)
    case("tab_in_label.csv", b"unit,a,b\nu1,ye\ts,no\nu2,no,no\n", category=cat)
    case("mixed_labels_positive_1.csv", b"unit,a,b\nu1,1,1\nu2,x,1\nu3,1,0\nu4,0,0\n", ["panel", "{f}", "--positive", "1"],
         codes=VERDICT, category=cat)
    case("positive_not_a_category.csv", b"unit,a,b\nu1,1,1\nu2,0,1\n", ["panel", "{f}", "--positive", "7"], category=cat)
    case("positive_control_chars.csv", b"unit,a,b\nu1,1,1\nu2,0,1\n", ["panel", "{f}", "--positive", "\x1b[2J"],
         category=cat)
    case("booleans_as_text.csv", b"unit,a,b\nu1,true,false\nu2,false,false\n", codes=VERDICT, category=cat)

    # --- names that are markup: valid data, must be shown as text ----------------------------
    cat = "markup names"
    case("markdown_names.csv", wide([[1, 0], [0, 0], [1, 1]], ["[click](http://evil.example/x)", "![i](http://evil.example/i.png)"]),
         codes=VERDICT, category=cat)
    case("html_names.csv", wide([[1, 0], [0, 0], [1, 1]], ["<a href=http://evil.example>x</a>", "<img src=x onerror=alert(1)>"]),
         codes=VERDICT, category=cat)
    case("formula_labels.csv", b"unit,a,b\nu1,=HYPERLINK(\"http://evil.example\"),+1\nu2,@SUM(A1),-x\n", codes=VERDICT,
         category=cat)
    case("long_markup_dimension.csv",
         b"dimension,unit,rater,value\n:red[boom] $x$ :material/home:,u1,a,1\n:red[boom] $x$ :material/home:,u1,b,0\n",
         codes=VERDICT, category=cat)
    case("emoji_names.csv", wide([[1, 0], [0, 0]], ["\U0001f600", "\u00e9\u0301"]), codes=VERDICT, category=cat)

    # --- scale --------------------------------------------------------------------------------
    cat = "scale"
    many_raters = [[rng.randint(0, 1) for _ in range(10_000)] for _ in range(100)]
    case("raters_10000_units_100.csv", wide(many_raters), codes=VERDICT, category=cat)
    rows = ["dimension,unit,rater,value"] + [f"d{d},u{u},r{r},{rng.randint(0, 1)}" for d in range(3000) for u in range(2)
                                             for r in range(2)]
    case("dimensions_3000.csv", ("\n".join(rows) + "\n").encode(), codes=VERDICT, category=cat)
    rows = ["unit,rater,value"] + [f"u{i},w{rng.randint(0, 20000)},{rng.randint(0, 1)}" for i in range(30000)]
    case("sparse_long_20000_raters.csv", ("\n".join(rows) + "\n").encode(), codes=VERDICT + BAD, category=cat)

    # --- Parquet --------------------------------------------------------------------------------
    cat = "parquet"
    import pyarrow as pa

    good = lambda: pa.table({"unit": ["u1", "u1", "u2", "u2"], "rater": ["a", "b", "a", "b"], "value": [1.0, 0.0, 1.0, 1.0]})  # noqa: E731
    good_bytes = parquet(good)
    case("garbage.parquet", b"PAR1 not parquet at all PAR1", category=cat)
    case("truncated.parquet", good_bytes[: len(good_bytes) // 2] + b"PAR1", category=cat)
    case("magic_only.parquet", b"PAR1PAR1", category=cat)
    case("inf.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1"], "rater": ["a", "b"], "value": [float("inf"), 1.0]})),
         category=cat)
    case("neg_inf.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1"], "rater": ["a", "b"], "value": [float("-inf"), 1.0]})),
         category=cat)
    case("nan_values.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1", "u2", "u2"], "rater": ["a", "b", "a", "b"],
                                                         "value": [float("nan"), 1.0, 0.0, 0.0]})), codes=VERDICT, category=cat)
    case("list_column.parquet", parquet(lambda: pa.table({"unit": ["u1"], "rater": ["a"], "value": [[1, 2]]})), category=cat)
    case("struct_column.parquet", parquet(lambda: pa.table({"unit": ["u1"], "rater": ["a"], "value": [{"x": 1}]})), category=cat)
    case("bool_column.parquet", parquet(lambda: pa.table({"unit": ["u1"], "rater": ["a"], "value": [True]})),
         codes=VERDICT, category=cat)
    case("timestamp_column.parquet", parquet(lambda: pa.table({"unit": ["u1"], "rater": ["a"],
                                                               "value": pa.array([0], pa.timestamp("s"))})),
         codes=VERDICT, category=cat)  # dates read as ISO text (labels), as a CSV would hold them
    case("binary_column.parquet", parquet(lambda: pa.table({"unit": ["u1"], "rater": ["a"], "value": pa.array([b"\x00"], pa.binary())})),
         category=cat)
    case("int_too_many_digits.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1"], "rater": ["a", "b"],
                                                                  "value": [2**62, 1]})), category=cat)
    case("null_unit.parquet", parquet(lambda: pa.table({"unit": [None, "u1"], "rater": ["a", "b"], "value": [1, 0]})), category=cat)
    case("zero_rows.parquet", parquet(lambda: pa.table({"unit": pa.array([], pa.string()), "rater": pa.array([], pa.string()),
                                                        "value": pa.array([], pa.int64())})), category=cat)
    case("dictionary_strings.parquet", parquet(lambda: pa.table({"unit": pa.array(["u1", "u1", "u2", "u2"]).dictionary_encode(),
                                                                 "rater": ["a", "b", "a", "b"], "value": ["x", "y", "x", "x"]})),
         codes=VERDICT, category=cat)
    case("decimal_type.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1", "u2", "u2"], "rater": ["a", "b", "a", "b"],
                                                           "value": pa.array([__import__("decimal").Decimal(x) for x in ("1.25", "2.50", "3", "3")], pa.decimal128(10, 2))})),
         codes=VERDICT, category=cat)
    case("string_1mib.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1"], "rater": ["a", "b"], "value": [mib, "y"]})),
         category=cat)
    case("control_rater.parquet", parquet(lambda: pa.table({"unit": ["u1", "u1"], "rater": ["\x1b[2Ja", "b"], "value": [1, 0]})),
         category=cat)

    def bomb() -> Any:
        return pa.table({"unit": pa.array(["u"] * 20_000_000).dictionary_encode(),
                         "rater": pa.array(["r"] * 20_000_000).dictionary_encode(),
                         "value": pa.array([1] * 20_000_000, pa.int8())})
    case("decompression_bomb_20m_rows.parquet", parquet(bomb), category=cat)

    # --- detector rates ---------------------------------------------------------------------------
    cat = "rates"
    ratings = "{sample:detector_panel.csv}"
    for name, body in [
        ("rates_total_10e400.csv", f"detector,positives,total\ndetector-lexicon,1,1{'0' * 400}\n"),
        ("rates_positives_5000_digits.csv", f"detector,positives,total\ndetector-lexicon,{big_int},1{'0' * 5000}\n"),
        ("rates_negative.csv", "detector,positives,total\ndetector-lexicon,-1,10\n"),
        ("rates_decimal.csv", "detector,positives,total\ndetector-lexicon,1.5,10\n"),
        ("rates_zero_total.csv", "detector,positives,total\ndetector-lexicon,0,0\n"),
        ("rates_exceed.csv", "detector,positives,total\ndetector-lexicon,11,10\n"),
        ("rates_empty_cells.csv", "detector,positives,total\ndetector-lexicon,,\n"),
        ("rates_bool.csv", "detector,positives,total\ndetector-lexicon,true,10\n"),
        ("rates_duplicate.csv", "detector,positives,total\nd,1,10\nd,2,10\n"),
        ("rates_missing_column.csv", "detector,positives\nd,1\n"),
        ("rates_extra_column.csv", "detector,positives,total,x\nd,1,10,1\n"),
        ("rates_wrong_dimension.csv", "detector,positives,total,dimension\nd,1,10,gore\n"),
        ("rates_control_name.csv", "detector,positives,total\n\x1b[31md,1,10\n"),
        ("rates_1mib_name.csv", f"detector,positives,total\n{mib},1,10\n"),
        ("rates_binary.csv", "detector,positives\x00,total\n"),
    ]:
        case(name, body.encode(), ["panel", ratings, "--rates", "{f}"], category=cat)
    case("rates_huge_but_legal.csv",
         b"detector,positives,total\ndetector-lexicon,1,999999999999999999\ndetector-classifier,5,999999999999999999\n"
         b"detector-llm,3,999999999999999999\n", ["panel", ratings, "--rates", "{f}"], codes=VERDICT, category=cat)

    # --- thresholds -------------------------------------------------------------------------------
    cat = "thresholds"
    th = [
        ("th_nested_10000.toml", ("x = " + "[" * 10_000 + "]" * 10_000 + "\n").encode()),
        ("th_nested_inline_10000.toml", ("x = " + "{a=" * 10_000 + "1" + "}" * 10_000 + "\n").encode()),
        ("th_nested_10000.json", ("[" * 10_000 + "]" * 10_000).encode()),
        ("th_nested_objects_10000.json", ('{"a":' * 10_000 + "1" + "}" * 10_000).encode()),
        ("th_nested_50.json", ('{"panel": ' + "[" * 50 + "]" * 50 + "}").encode()),
        ("th_big_int.toml", f"[panel]\nalpha_floor_permil = {big_int}\n".encode()),
        ("th_big_int.json", f'{{"panel": {{"alpha_floor_permil": {big_int}}}}}'.encode()),
        ("th_floor_negative.toml", b"[panel]\nalpha_floor_permil = -1000\n"),
        ("th_floor_1001.toml", b"[panel]\nalpha_floor_permil = 1001\n"),
        ("th_cap_999.toml", b"[panel]\nratio_cap_permil = 999\n"),
        ("th_cap_zero.json", b'{"panel": {"ratio_cap_permil": 0}}'),
        ("th_cap_huge.toml", b"[panel]\nratio_cap_permil = 1000000000000000000000000000000\n"),
        ("th_floor_float.toml", b"[panel]\nalpha_floor_permil = 600.0\n"),
        ("th_floor_bool.json", b'{"panel": {"alpha_floor_permil": true}}'),
        ("th_floor_string.toml", b'[panel]\nalpha_floor_permil = "600"\n'),
        ("th_strict_string.toml", b'[panel]\nstrict = "yes"\n'),
        ("th_duplicate_key.json", b'{"panel": {"alpha_floor_permil": 900, "alpha_floor_permil": 100}}'),
        ("th_duplicate_key.toml", b"[panel]\nalpha_floor_permil = 900\nalpha_floor_permil = 100\n"),
        ("th_unknown_key.toml", b"[panel]\nalpha = 1\n"),
        ("th_unknown_table.toml", b"[panels]\nalpha_floor_permil = 1\n"),
        ("th_nan.json", b'{"panel": {"alpha_floor_permil": NaN}}'),
        ("th_top_array.json", b"[1, 2, 3]"),
        ("th_top_string.json", b'"panel"'),
        ("th_empty.toml", b""),
        ("th_binary.toml", b"\x00\x01\x02"),
        ("th_reviewers_0.toml", b"[calibration]\nminimum_reviewers = 0\nminimum_human_agreement_bps = 9000\n"
                                b"maximum_position_flip_bps = 500\nmaximum_repeat_variance_bps = 500\n"
                                b"maximum_verbosity_bias_bps = 500\nmaximum_self_preference_bps = 500\n"),
        ("th_reviewers_101.toml", b"[calibration]\nminimum_reviewers = 101\nminimum_human_agreement_bps = 9000\n"
                                  b"maximum_position_flip_bps = 500\nmaximum_repeat_variance_bps = 500\n"
                                  b"maximum_verbosity_bias_bps = 500\nmaximum_self_preference_bps = 500\n"),
        ("th_bps_10001.toml", b"[calibration]\nminimum_reviewers = 2\nminimum_human_agreement_bps = 10001\n"
                              b"maximum_position_flip_bps = 500\nmaximum_repeat_variance_bps = 500\n"
                              b"maximum_verbosity_bias_bps = 500\nmaximum_self_preference_bps = 500\n"),
        ("th_bps_negative.toml", b"[calibration]\nminimum_reviewers = 2\nminimum_human_agreement_bps = 9000\n"
                                 b"maximum_position_flip_bps = -1\nmaximum_repeat_variance_bps = 500\n"
                                 b"maximum_verbosity_bias_bps = 500\nmaximum_self_preference_bps = 500\n"),
        ("th_calibration_partial.toml", b"[calibration]\nminimum_reviewers = 2\n"),
        ("th_preset_bad.toml", b"[presets.x]\npanel = { alpha_floor_permil = -5 }\n"),
        ("th_preset_not_table.toml", b"presets = 5\n"),
        ("th_preset_nested.toml", ("[presets.x]\npanel = " + "{a=" * 200 + "1" + "}" * 200 + "\n").encode()),
    ]
    for name, body in th:
        case(name, body, ["panel", "{sample:detector_panel.csv}", "--thresholds", "{f}"], category=cat)
    legal = [
        ("th_reviewers_20.toml", b"[calibration]\nminimum_reviewers = 20\nminimum_human_agreement_bps = 9000\n"
                                 b"maximum_position_flip_bps = 500\nmaximum_repeat_variance_bps = 500\n"
                                 b"maximum_verbosity_bias_bps = 500\nmaximum_self_preference_bps = 500\n"),
        ("th_cap_8000.toml", b"[panel]\nratio_cap_permil = 8000\n"),
        ("th_floor_zero.toml", b"[panel]\nalpha_floor_permil = 0\n"),
    ]
    for name, body in legal:
        case(name, body, ["calibrate", "{sample:judge_failing.json}", "--thresholds", "{f}"], codes=VERDICT, category=cat)

    # --- judge bundles --------------------------------------------------------------------------
    cat = "judge bundle"
    judge = ["calibrate", "{f}"]

    def set_ref(field: str, value: Any) -> Callable[[dict], None]:
        return lambda o: o["snapshot"]["references"][0].__setitem__(field, value)

    def set_obs(field: str, value: Any) -> Callable[[dict], None]:
        return lambda o: o["snapshot"]["observations"][0].__setitem__(field, value)

    def set_contract(field: str, value: Any) -> Callable[[dict], None]:
        return lambda o: o["contract"].__setitem__(field, value)

    mutations: list[tuple[str, Callable[[dict], Any]]] = [
        ("judge_reviewer_nested_list.json", set_ref("reviewer_ids", [["reviewer:a"], "reviewer:b"])),
        ("judge_reviewer_nested_deep.json", set_ref("reviewer_ids", [[[["reviewer:a"]]]])),
        ("judge_reviewer_dict.json", set_ref("reviewer_ids", [{"id": "reviewer:a"}])),
        ("judge_reviewer_null.json", set_ref("reviewer_ids", None)),
        ("judge_reviewer_string.json", set_ref("reviewer_ids", "reviewer:a")),
        ("judge_reviewer_number.json", set_ref("reviewer_ids", [1, 2])),
        ("judge_reviewer_empty.json", set_ref("reviewer_ids", [])),
        ("judge_case_id_list.json", set_ref("case_id", ["case-accuracy"])),
        ("judge_case_id_1mib.json", set_ref("case_id", mib)),
        ("judge_case_id_control.json", set_ref("case_id", "case-\x1b[31m")),
        ("judge_preferred_dict.json", set_ref("preferred_candidate", {"a": 1})),
        ("judge_adjudicated_string.json", set_ref("adjudicated", "true")),
        ("judge_repetition_huge.json", set_obs("repetition", 10**30)),
        ("judge_repetition_float.json", set_obs("repetition", 1.0)),
        ("judge_repetition_list.json", set_obs("repetition", [1])),
        ("judge_tokens_negative.json", set_obs("candidate_a_tokens", -5)),
        ("judge_tokens_huge.json", set_obs("candidate_a_tokens", 10**40)),
        ("judge_selected_null.json", set_obs("selected_candidate", None)),
        ("judge_order_nested.json", set_obs("order", [["ab"]])),
        ("judge_generator_dict.json", set_obs("judge_generator", {})),
        ("judge_observations_not_list.json", lambda o: o["snapshot"].__setitem__("observations", {"a": 1})),
        ("judge_observations_list_of_lists.json", lambda o: o["snapshot"].__setitem__("observations", [[1, 2]])),
        ("judge_references_empty.json", lambda o: o["snapshot"].__setitem__("references", [])),
        ("judge_observation_extra_field.json", set_obs("extra", 1)),
        ("judge_contract_null.json", lambda o: o.__setitem__("contract", None)),
        ("judge_contract_list.json", lambda o: o.__setitem__("contract", [1])),
        ("judge_contract_reviewers_0.json", set_contract("minimum_reviewers", 0)),
        ("judge_contract_bps_string.json", set_contract("maximum_position_flip_bps", "500")),
        ("judge_contract_repetitions_huge.json", set_contract("repetitions_per_order", 10**20)),
        ("judge_snapshot_null.json", lambda o: o.__setitem__("snapshot", None)),
        ("judge_unbound.json", set_contract("maximum_position_flip_bps", 100)),
        ("judge_scope_other.json", lambda o: o["snapshot"].__setitem__("scope", "other-scope")),
        ("judge_rubric_digest_upper.json", lambda o: o["snapshot"].__setitem__("rubric_digest", "A" * 64)),
    ]
    for name, mutate in mutations:
        case(name, bundle(mutate), judge, category=cat)
    raw = (SAMPLES / "judge_illustrative.json").read_text()
    case("judge_duplicate_contract_key.json", raw.replace('"minimum_cases": 4,', '"minimum_cases": 4, "minimum_cases": 1,', 1).encode(),
         judge, category=cat)
    case("judge_nested_10000.json", ('{"contract": ' + "[" * 10_000 + "]" * 10_000 + "}").encode(), judge, category=cat)
    case("judge_big_int.json", raw.replace('"repetition": 1', f'"repetition": {big_int}', 1).encode(), judge, category=cat)
    case("judge_nan.json", raw.replace('"repetition": 1', '"repetition": NaN', 1).encode(), judge, category=cat)
    case("judge_infinity.json", raw.replace('"repetition": 1', '"repetition": -Infinity', 1).encode(), judge, category=cat)
    case("judge_float_exponent.json", raw.replace('"repetition": 1', '"repetition": 1e400', 1).encode(), judge, category=cat)
    case("judge_top_list.json", b"[]", judge, category=cat)
    case("judge_empty_object.json", b"{}", judge, category=cat)
    case("judge_truncated.json", raw[: len(raw) // 2].encode(), judge, category=cat)
    case("judge_utf16.json", raw.encode("utf-16"), judge, codes=VERDICT, category=cat)  # read as the same text
    case("judge_lone_surrogate.json", raw.replace('"case-accuracy"', '"case-\\udc80"', 1).encode(), judge, category=cat)

    # --- judge tables ---------------------------------------------------------------------------
    cat = "judge tables"
    refs = (SAMPLES / "judge_failing_references.csv").read_text().splitlines()
    obs = (SAMPLES / "judge_failing_observations.csv").read_text().splitlines()
    tables = ["calibrate", "{sample:judge_failing_contract.json}", "--references", "{f}", "--observations",
              "{sample:judge_failing_observations.csv}"]
    tables_obs = ["calibrate", "{sample:judge_failing_contract.json}", "--references",
                  "{sample:judge_failing_references.csv}", "--observations", "{f}"]

    def edit(lines: list[str], at: int, fn: Callable[[str], str]) -> bytes:
        out = list(lines)
        out[at] = fn(out[at])
        return ("\n".join(out) + "\n").encode()

    case("refs_reviewers_empty.csv", edit(refs, 3, lambda s: s.replace(s.split(",")[2], "")), tables, category=cat)
    case("refs_control.csv", edit(refs, 3, lambda s: "\x1b[31m" + s), tables, category=cat)
    case("refs_ragged.csv", edit(refs, 3, lambda s: s + ",x"), tables, category=cat)
    case("refs_1mib_cell.csv", edit(refs, 3, lambda s: mib + s), tables, category=cat)
    case("obs_repetition_5000_digits.csv", edit(obs, 3, lambda s: s.replace(",1,", f",{big_int},", 1) if ",1," in s
                                               else s.replace(",3,", f",{big_int},", 1)), tables_obs, category=cat)
    case("obs_tokens_decimal.csv", edit(obs, 3, lambda s: ",".join(c if i != 4 else "1.5" for i, c in enumerate(s.split(",")))),
         tables_obs, category=cat)
    case("obs_header_only.csv", (obs[0] + "\n").encode(), tables_obs, category=cat)
    case("obs_nul.csv", edit(obs, 3, lambda s: s + "\x00"), tables_obs, category=cat)


def runtime_cases(tmp: Path) -> list[dict[str, Any]]:
    """Cases that need the machine: devices, pipes, sparse files, odd names, report paths."""
    s = SAMPLES / "detector_panel.csv"
    out: list[dict[str, Any]] = []
    sparse = tmp / "sparse_8gib.csv"
    with open(sparse, "wb") as f:
        f.truncate(8 * 2**30)
    out.append({"argv": ["panel", str(sparse)], "codes": BAD, "what": "sparse 8 GiB file"})
    folder = tmp / "a_folder.csv"
    folder.mkdir(exist_ok=True)
    out.append({"argv": ["panel", str(folder)], "codes": BAD, "what": "a folder"})
    fifo = tmp / "pipe.csv"
    if not fifo.exists():
        os.mkfifo(fifo)
    out.append({"argv": ["panel", str(fifo)], "codes": BAD, "what": "a named pipe"})
    for dev in ("/dev/zero", "/dev/null", "/dev/urandom"):
        out.append({"argv": ["panel", dev], "codes": BAD, "what": dev})
    link = tmp / "zero_link.csv"
    if not link.exists():
        link.symlink_to("/dev/zero")
    out.append({"argv": ["panel", str(link)], "codes": BAD, "what": "a symlink to /dev/zero"})
    out.append({"argv": ["panel", str(tmp / "missing.csv")], "codes": BAD, "what": "a missing file"})
    odd = os.fsencode(tmp) + b"/\xff\xfe-undecodable.csv"
    with open(odd, "wb") as f:
        f.write(b"unit,a,b\nu1,1,2\nu2,1,x,9\n")
    out.append({"argv": ["panel", os.fsdecode(odd)], "codes": BAD, "what": "an undecodable file name"})
    nl = tmp / "new\nline\x1b[31m.csv"
    nl.write_bytes(b"unit,a,b\nu1,1,2,3\n")
    out.append({"argv": ["panel", str(nl)], "codes": BAD, "what": "a file name with a newline and an escape"})
    out.append({"argv": ["panel", str(s), "--report", str(tmp / "no" / "such" / "dir" / "r.json")], "codes": BAD,
                "what": "--report into a missing folder"})
    out.append({"argv": ["panel", str(s), "--report", str(folder)], "codes": BAD, "what": "--report onto a folder"})
    copy = tmp / "copy_of_panel.csv"
    copy.write_bytes(s.read_bytes())
    out.append({"argv": ["panel", str(copy), "--report", str(copy)], "codes": BAD, "what": "--report onto the input",
                "unchanged": str(copy)})
    alias = tmp / "alias.json"
    if not alias.exists():
        alias.symlink_to(copy)
    out.append({"argv": ["panel", str(copy), "--report", str(alias)], "codes": BAD,
                "what": "--report onto a link to the input", "unchanged": str(copy)})
    rates = tmp / "rates_copy.csv"
    rates.write_bytes((SAMPLES / "detector_rates.csv").read_bytes())
    out.append({"argv": ["panel", str(copy), "--rates", str(rates), "--report", str(tmp / "." / rates.name.replace(".csv", ".json"))],
                "codes": VERDICT, "what": "--report beside an input (legal)"})
    rates_md = tmp / "rates.md"
    rates_md.write_bytes(b"detector,positives,total\ndetector-lexicon,1,10\n")
    out.append({"argv": ["panel", str(copy), "--rates", str(rates_md), "--report", str(rates_md)], "codes": BAD,
                "what": "--report onto the rates file", "unchanged": str(rates_md)})
    out.append({"argv": ["panel", str(s), "--report", str(tmp / "r.pdf")], "codes": BAD, "what": "--report .pdf"})
    out.append({"argv": ["panel", str(s), "--bogus"], "codes": BAD, "what": "an unknown flag"})
    out.append({"argv": ["panel"], "codes": BAD, "what": "a missing argument"})
    out.append({"argv": ["panel", str(s), "--level", "cardinal"], "codes": BAD, "what": "a bad --level"})
    out.append({"argv": [], "codes": BAD, "what": "no command"})
    out.append({"argv": ["frobnicate"], "codes": BAD, "what": "an unknown command"})
    out.append({"argv": ["panel", str(s), "--dimension", "\x1b[2Jgore"], "codes": BAD, "what": "an escape in --dimension"})
    return out


SHEET_NS = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'


def _workbook_with_sheet(path: Path, write_sheet: Callable[[Any], None]) -> None:
    """A real workbook (openpyxl's parts) whose first sheet's XML is streamed in by ``write_sheet``:
    a bomb is written a chunk at a time, never held whole."""
    import zipfile

    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.append(["x"])
    buf = io.BytesIO()
    wb.save(buf)
    src = zipfile.ZipFile(buf)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in src.infolist():
            if info.filename == "xl/worksheets/sheet1.xml":
                member = zipfile.ZipInfo(info.filename)
                member.compress_type = zipfile.ZIP_DEFLATED
                with z.open(member, "w", force_zip64=True) as out:
                    write_sheet(out)
            else:
                z.writestr(info.filename, src.read(info.filename))


def _ratings_rows(units: int, raters: int) -> bytes:
    cells = [f'<c r="{chr(65 + j)}1" t="inlineStr"><is><t>{"unit" if j == 0 else f"rater{j}"}</t></is></c>'
             for j in range(raters + 1)]
    body = ['<row r="1">' + "".join(cells) + "</row>"]
    for i in range(2, units + 2):
        row = [f'<c r="A{i}" t="inlineStr"><is><t>u{i - 1}</t></is></c>']
        row += [f'<c r="{chr(65 + j)}{i}"><v>{(i * j) % 4 if (i + j) % 5 else i % 4}</v></c>' for j in range(1, raters + 1)]
        body.append(f'<row r="{i}">' + "".join(row) + "</row>")
    return "".join(body).encode()


def bomb_cases(tmp: Path) -> list[dict[str, Any]]:
    """Memory bombs made at test time (nothing large is committed): each must end in exit 3 with
    one line, within 1 GiB and 30 s, in the CLI and through the dashboard's upload."""
    out: list[dict[str, Any]] = []

    def add(name: str, data: bytes | None, words: str, what: str) -> None:
        path = tmp / name
        if data is not None:
            path.write_bytes(data)
        out.append({"path": path, "words": words, "what": what})

    add("new_key_every_line.jsonl", "".join(f'{{"k{i}":1}}\n' for i in range(30_000)).encode(),
        "distinct fields", "30,000 JSON lines, each with a new key")
    add("new_key_every_record.json", ("[" + ",".join(f'{{"k{i}":1}}' for i in range(30_000)) + "]").encode(),
        "distinct fields", "a JSON array of 30,000 records, each with a new key")
    normal = "".join(f'{{"unit":"u{i // 4}","rater":"r{i % 4}","value":{(i * 7) % 5}}}\n' for i in range(10_000))
    keys = "".join(f'{{"unit":"u{i}","k{i}":"{"x" * 40}"}}\n' for i in range(22_000))
    add("normal_head_then_keys.jsonl", (normal + keys).encode(), "distinct fields",
        "10,000 ordinary lines (the preview's), then a new key on every line (1.6 MB)")
    add("pandas_columns_keys.json", json.dumps({f"r{i}": {f"u{i}": 1} for i in range(25_000)}).encode(),
        "distinct fields", "pandas orient='columns' with 25,000 columns of one unit each")

    def one_row(f: Any) -> None:  # 60 million cells in one row: 2 MB packed, 0.9 GB unpacked
        f.write(SHEET_NS + b"<sheetData><row r=\"1\">")
        block = b"<c><v>1</v></c>" * 100_000
        for _ in range(600):
            f.write(block)
        f.write(b"</row></sheetData></worksheet>")

    _workbook_with_sheet(tmp / "one_row_60m_cells.xlsx", one_row)
    add("one_row_60m_cells.xlsx", None, "more cells in one row than a sheet holds",
        "one row of 60 million cells (2 MB, 0.9 GB unpacked)")

    def padded(f: Any) -> None:  # ratings, then 1.9 GB of spaces between two elements
        f.write(SHEET_NS + b"<sheetData>" + _ratings_rows(10, 3))
        block = b" " * 2**24
        for _ in range(113):
            f.write(block)
        f.write(b"</sheetData></worksheet>")

    _workbook_with_sheet(tmp / "padded_1_9gb.xlsx", padded)
    add("padded_1_9gb.xlsx", None, "unpacks to", "a 2 MB workbook padded with 1.9 GB of spaces")
    for name, xml, words in (
        ("malformed_sheet.xlsx", SHEET_NS + b"<sheetData><row><c><v>1</v></c>", "not well-formed XML"),
        ("billion_laughs.xlsx", b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
         + b"".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode() for i in range(9))
         + b"]>" + SHEET_NS + b'<sheetData><row><c t="inlineStr"><is><t>&j;</t></is></c></row></sheetData></worksheet>',
         "document type"),
        ("external_entity.xlsx", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
         + SHEET_NS + b'<sheetData><row><c t="inlineStr"><is><t>&e;</t></is></c></row></sheetData></worksheet>',
         "document type"),
    ):
        _workbook_with_sheet(tmp / name, lambda f, xml=xml: f.write(xml))
        add(name, None, words, name.replace("_", " ").removesuffix(".xlsx") + " sheet XML")
    return out


def _zip_of(members: list[tuple[Any, ...]]) -> bytes:
    """A zip archive written by hand: (name, method, compressed bytes, declared unpacked size), so a
    test can declare any size and use Zstandard (method 93, inspect_ai's), which zipfile cannot write.
    A compressed member's CRC is left 0: a bounded reader stops long before it could check one."""
    out, central = bytearray(), bytearray()
    for name, method, data, size, *given in members:  # given: the unpacked bytes' CRC
        raw = name.encode()
        at = len(out)
        crc = given[0] if given else zlib.crc32(data) if method == 0 else 0
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, method, 0, 0x21, crc, len(data), size, len(raw), 0)
        out += raw + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, method, 0, 0x21, crc, len(data), size,
                               len(raw), 0, 0, 0, 0, 0, at)
        central += raw
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + eocd)


def _deflated_spaces(prefix: bytes, mib: int) -> bytes:
    """``prefix`` then ``mib`` MiB of spaces, raw deflate: one compressed MiB block repeated (each
    block ends in a full flush, so the same bytes inflate to the same MiB); about 1 KB per MiB."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(b" " * 2**20) + c.flush(zlib.Z_FULL_FLUSH)
    return head + block * mib + c.flush()


def _zstd_spaces(prefix: bytes, mib: int) -> bytes:
    """``prefix`` then ``mib`` MiB of spaces as concatenated Zstandard frames (a valid stream)."""
    import pyarrow as pa

    frame = pa.compress(b" " * 2**24, codec="zstd", asbytes=True)
    return pa.compress(prefix, codec="zstd", asbytes=True) + frame * (mib // 16)


EVAL_HEAD = b'{"version": 2, "status": "success", "eval": {"task": "bomb", "model": "m"}, "pad": "'


def eval_bomb_cases(tmp: Path) -> list[dict[str, Any]]:
    """inspect_ai ``.eval`` archives that inflate far past their size (made at test time): each must
    end in exit 3 with one located line, under 400 MB and within seconds, in the CLI and through the
    dashboard's judge upload. The member limit (64 MB) is what stops each, whatever its header says."""
    out: list[dict[str, Any]] = []

    def add(name: str, members: list[tuple[str, int, bytes, int]], what: str) -> None:
        path = tmp / name
        path.write_bytes(_zip_of(members))
        out.append({"path": path, "member": members[-1][0], "what": what})

    mib = 2**20
    add("deflate_header_1_9gb.eval", [("header.json", 8, _deflated_spaces(EVAL_HEAD, 1812), 1812 * mib + len(EVAL_HEAD))],
        "a 1.9 MB archive whose header.json (deflate) inflates to 1.9 GB, declared")
    add("zstd_header_3gb_declared_small.eval", [("header.json", 93, _zstd_spaces(EVAL_HEAD, 2848), 2005)],
        "a Zstandard header.json that inflates to 3 GB but declares 2 KB")
    add("zstd_header_1_9gb.eval", [("header.json", 93, _zstd_spaces(EVAL_HEAD, 1808), 1808 * mib + len(EVAL_HEAD))],
        "a Zstandard header.json that inflates to 1.9 GB, declared")
    header = json.dumps({"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}).encode()
    sample = b'{"id": "q1", "epoch": 1, "scores": {"s": {"value": "C"}}, "pad": "'
    add("zstd_sample_1_9gb.eval", [("header.json", 0, header, len(header)),
                                   ("samples/q1_epoch_1.json", 93, _zstd_spaces(sample, 1808), 1808 * mib + len(sample))],
        "a readable header, then a Zstandard sample that inflates to 1.9 GB")
    return out


def _stored_members(count: int, name: str = "samples/{i}_epoch_1.json") -> bytes:
    """A zip of ``count`` empty stored members, written in one pass (no zipfile: fast at 150,000)."""
    local, central, at = [], [], 0
    crc = zlib.crc32(b"")
    for i in range(count):
        raw = name.format(i=i).encode()
        head = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, crc, 0, 0, len(raw), 0) + raw
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0x21, crc, 0, 0, len(raw),
                                   0, 0, 0, 0, 0, at) + raw)
        local.append(head)
        at += len(head)
    body, directory = b"".join(local), b"".join(central)
    entries = min(count, 0xFFFF)
    return body + directory + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(directory), len(body), 0)


def eval_wide_cases(tmp: Path) -> list[dict[str, Any]]:
    """.eval archives that stay within each member's limit but not within what a reader may hold:
    many members, a directory its end record understates, and many honest 60 MB samples."""
    out: list[dict[str, Any]] = []
    header = json.dumps({"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}).encode()
    many = _stored_members(150_000)
    (tmp / "150k_members.eval").write_bytes(many)
    out.append({"path": tmp / "150k_members.eval", "words": "holds 150,000 members; the limit is 100,000",
                "what": "150,000 empty members (a 20 MB archive whose directory alone took 1.5 GB at 2,000,000)"})
    lying = bytearray(many)
    lying[-14:-10] = struct.pack("<HH", 10, 10)  # the end record says 10 members
    (tmp / "understated_directory.eval").write_bytes(bytes(lying))
    out.append({"path": tmp / "understated_directory.eval", "words": "directory is",
                "what": "the same, its end record claiming 10 members"})
    mib = 2**20
    spaces = b" " * mib
    members: list[tuple[Any, ...]] = [("header.json", 0, header, len(header))]
    for i in range(31):  # each sample 60 MiB of explanation: within the 64 MB member limit
        head = json.dumps({"id": f"q{i}", "epoch": 1})[:-1].encode() + b', "scores": {"s": {"value": "C", "explanation": "'
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
        block = c.compress(spaces) + c.flush(zlib.Z_FULL_FLUSH)
        data = first + block * 60 + c.compress(b'"}}}') + c.flush()
        crc = zlib.crc32(head)
        for _ in range(60):
            crc = zlib.crc32(spaces, crc)
        members.append((f"samples/q{i}_epoch_1.json", 8, data, len(head) + 60 * mib + 4, zlib.crc32(b'"}}}', crc)))
    (tmp / "31_samples_of_60mb.eval").write_bytes(_zip_of(members))
    out.append({"path": tmp / "31_samples_of_60mb.eval", "words": None,
                "what": "31 samples of 60 MB each (1.9 GB in all, honest headers): read, never all held"})
    return out


def stale_dimension_workbook(path: Path) -> None:
    """100 units x 4 raters (400 ratings) whose <dimension> still says A1:E3, as a tool that
    rewrote the sheet without updating it leaves it: openpyxl's read-only mode reads 2 units."""
    _workbook_with_sheet(path, lambda f: f.write(SHEET_NS + b'<dimension ref="A1:E3"/><sheetData>'
                                                 + _ratings_rows(100, 4) + b"</sheetData></worksheet>"))


def main() -> None:
    build()
    OUT.mkdir(exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    manifest = []
    for c in CASES:
        (OUT / c["file"]).write_bytes(c["data"])
        manifest.append({k: v for k, v in c.items() if k != "data"})
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(len(c["data"]) for c in CASES)
    print(f"wrote {len(CASES)} files ({size / 2**20:.1f} MiB) to {OUT}")


if __name__ == "__main__":
    main()
