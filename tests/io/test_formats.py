"""agreebound.io's ratings, rates and thresholds readers: every malformed file named by row, column and reason; round trips; fuzzing."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreebound.panel.measure import measure_panel
from agreebound.panel.decide import decide_panel
from agreebound.judge.seed_report import audit_calibration
from agreebound.judge.decide import decide
from agreebound.judge.contract import ILLUSTRATIVE_SNAPSHOT, ILLUSTRATIVE_CONTRACT
from agreebound.io.detector_rates import parse_detector_rates
from agreebound.io.ratings import parse_ratings
from agreebound.io.threshold_files import parse_thresholds
from agreebound.core.errors import InputError
from agreebound.app.pipeline import parse_judge_bundle, parse_judge_tables
from agreebound.panel.alpha import krippendorff_alpha
from agreebound.core.thresholds import PanelThresholds
from agreebound.engines import numpy_engine
from agreebound.panel.ratings import DetectorRate

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad"
SAMPLES = ROOT / "sample_data"


def parse_any(name: str, data: bytes):
    """Route a bad file to the parser its name says it is for."""
    if name.startswith("rates_"):
        return parse_detector_rates(name, data)
    if name.startswith("bundle_"):
        return parse_judge_bundle(name, data)
    contract = ("judge_failing_contract.json", (SAMPLES / "judge_failing_contract.json").read_bytes())
    refs = ("judge_failing_references.csv", (SAMPLES / "judge_failing_references.csv").read_bytes())
    obs = ("judge_failing_observations.csv", (SAMPLES / "judge_failing_observations.csv").read_bytes())
    if name.startswith("observations_"):
        return parse_judge_tables(*contract, *refs, name, data)
    if name.startswith("references_"):
        return parse_judge_tables(*contract, name, data, *obs)
    if name.startswith("thresholds_"):
        return parse_thresholds(name, data)
    panels = parse_ratings(name, data)
    if name == "long_labels_interval.csv":
        return [p.ratings("interval") for p in panels.values()]
    return panels


BAD_FILES = [
    ('binary.csv', 3, None,
     'binary.csv, row 3: binary data (a NUL byte), not a text file; expected a rating table: wide (one row per unit, a column per rater), long (unit, rater, value), or raters x units'),
    ('blank_lines.csv', None, None,
     'blank_lines.csv: the file is empty; expected a rating table: wide (one row per unit, a column per rater), long (unit, rater, value), or raters x units'),
    ('bundle_bool_repetition.json', 6, 'repetition',
     "bundle_bool_repetition.json, observation 6, column 'repetition': observation.repetition must be exact int (observation case_id='case-refusal', order='ab', repetition=True)"),
    ('bundle_contract_extra.json', None, 'contract.owner',
     "bundle_contract_extra.json, column 'contract.owner': unknown field; the contract has version, scope, judge_generator, repetitions_per_order, minimum_cases, minimum_reviewers, minimum_human_agreement_bps, maximum_position_flip_bps, maximum_repeat_variance_bps, maximum_verbosity_bias_bps, maximum_self_preference_bps (and optionally maximum_verbosity_net_bps, maximum_self_preference_net_bps)"),
    ('bundle_contract_repetitions.json', None, 'contract.repetitions_per_order',
     "bundle_contract_repetitions.json, column 'contract.repetitions_per_order': contract.repetitions_per_order must be between 2 and 20"),
    ('bundle_float_tokens.json', 3, 'candidate_a_tokens',
     "bundle_float_tokens.json, observation 3, column 'candidate_a_tokens': observation.candidate_a_tokens must be exact int (observation case_id='case-accuracy', order='ba', repetition=1)"),
    ('bundle_metadata_changes.json', 7, 'candidate_b_tokens',
     "bundle_metadata_changes.json, observation 7, column 'candidate_b_tokens': candidate metadata changes across observations (observation case_id='case-refusal', order='ba', repetition=1)"),
    ('bundle_missing_field.json', 8, 'judge_generator',
     "bundle_missing_field.json, observation 8, column 'judge_generator': missing field"),
    ('bundle_missing_repetition.json', None, 'repetition',
     "bundle_missing_repetition.json, column 'repetition': each case requires every declared order and repetition (case_id='case-self', order='ab': missing repetition(s) [2]; the contract declares 1..2)"),
    ('bundle_missing_snapshot.json', None, None,
     'bundle_missing_snapshot.json: expected a JSON object with exactly "contract" and "snapshot"'),
    ('bundle_nan.json', None, None,
     'bundle_nan.json: invalid JSON: NaN is not a number JSON allows'),
    ('bundle_syntax.json', 4, None,
     'bundle_syntax.json, line 4: invalid JSON (Expecting property name enclosed in double quotes, character 1)'),
    ('bundle_unbound.json', None, 'snapshot.contract_content_id',
     "bundle_unbound.json, column 'snapshot.contract_content_id': snapshot is not bound to this contract content (snapshot judge-calibration@sha256:27575a4cb05907995935c4ba3c8e7e96c9614d1504a90442d48060067f7ce2f1; expected judge-calibration@sha256:8c27a3f313dc488c9f09495933f7b2a9c1d8944351bbd518fc5488223e409ce0, this contract's content id)"),
    ('bundle_unsorted_reviewers.json', 2, 'reviewer_ids',
     "bundle_unsorted_reviewers.json, reference 2, column 'reviewer_ids': reference.reviewer_ids must be sorted (reference case_id='case-refusal')"),
    ('duplicate_header.csv', 1, 'rater-a',
     "duplicate_header.csv, row 1, column 'rater-a': duplicate column header; every column needs its own name"),
    ('duplicate_unit.csv', 4, 'unit',
     "duplicate_unit.csv, row 4, column 'unit': unit 'u1' appears again (first at row 2); one row per unit"),
    ('empty.csv', None, None,
     'empty.csv: the file is empty; expected a rating table: wide (one row per unit, a column per rater), long (unit, rater, value), or raters x units'),
    ('empty_unit.csv', 3, 'unit',
     "empty_unit.csv, row 3, column 'unit': expected a name, the cell is empty"),
    ('garbage.parquet', None, None,
     "garbage.parquet: not a readable Parquet file (ArrowInvalid: 'Parquet file size is 36 bytes, smaller than the size reported by footer's (544499061bytes)')"),
    ('header_only.csv', None, None,
     'header_only.csv: the file has a header but no data rows; expected a rating table: wide (one row per unit, a column per rater), long (unit, rater, value), or raters x units'),
    ('long_duplicate.csv', 4, 'rater',
     "long_duplicate.csv, row 4, column 'rater': rater 'det-a' rated unit 'u1' again (first at row 2); each (dimension, unit, rater) once"),
    ('long_empty_rater.csv', 3, 'rater',
     "long_empty_rater.csv, row 3, column 'rater': expected a name, the cell is empty"),
    ('long_labels_interval.csv', 3, 'value',
     "long_labels_interval.csv, row 3, column 'value': interval alpha needs numeric values; this panel has labels (first: this cell). Use the nominal level, or number the categories"),
    ('no_raters.csv', 1, None,
     "no_raters.csv, row 1: no rater columns: a wide rating CSV with the header unit,<rater>,<rater>,..."),
    ('observations_decimal_repetition.csv', 4, 'repetition',
     "observations_decimal_repetition.csv, row 4, column 'repetition': expected a whole number like 3, got '3.0'"),
    ('observations_generator_space.csv', 4, 'judge_generator',
     "observations_generator_space.csv, row 4, column 'judge_generator': observation.judge_generator must not have surrounding whitespace (observation case_id='case-0000000', order='ab', repetition=3)"),
    ('ragged_long_row.csv', 3, None,
     'ragged_long_row.csv, row 3: row has 4 cells; the header has 3'),
    ('ragged_short_row.csv', 3, None,
     'ragged_short_row.csv, row 3: row has 2 cells; the header has 3'),
    ('rates_decimal.csv', 2, 'positives',
     "rates_decimal.csv, row 2, column 'positives': expected a whole number like 3, got '1.0'"),
    ('rates_duplicate.csv', 4, 'detector',
     "rates_duplicate.csv, row 4, column 'detector': detector 'det-a' appears again for dimension 'insult' (first at row 2)"),
    ('rates_exceed.csv', 2, 'positives',
     "rates_exceed.csv, row 2, column 'positives': positives (11) exceed total (10)"),
    ('rates_missing_column.csv', 1, 'total',
     "rates_missing_column.csv, row 1, column 'total': missing column; expected columns detector, positives, total (optional: dimension)"),
    ('rates_negative.csv', 2, 'positives',
     "rates_negative.csv, row 2, column 'positives': expected a whole number >= 0, got -1"),
    ('rates_space.csv', 2, 'positives',
     "rates_space.csv, row 2, column 'positives': expected a whole number like 3, got ' 3'"),
    ('rates_true.csv', 3, 'total',
     "rates_true.csv, row 3, column 'total': expected a whole number like 3, got 'true'"),
    ('rates_zero_total.csv', 2, 'total',
     "rates_zero_total.csv, row 2, column 'total': expected a whole number >= 1, got 0"),
    ('references_adjudicated_yes.csv', 6, 'adjudicated',
     "references_adjudicated_yes.csv, row 6, column 'adjudicated': expected true or false, got 'yes'"),
    ('thresholds_cap.toml', 2, 'panel.ratio_cap_permil',
     "thresholds_cap.toml, line 2, column 'panel.ratio_cap_permil': ratio_cap_permil must be between 1000 and 1000000 (permil), got 900"),
    ('thresholds_float.json', 1, 'panel.alpha_floor_permil',
     "thresholds_float.json, line 1, column 'panel.alpha_floor_permil': alpha_floor_permil must be a whole number (permil), got 0.6"),
    ('thresholds_syntax.toml', 2, None,
     'thresholds_syntax.toml, line 2: invalid TOML (Invalid value (at line 2, column 22))'),
    ('thresholds_unknown.toml', 2, 'panel.alpha',
     "thresholds_unknown.toml, line 2, column 'panel.alpha': unknown key; expected alpha_floor_permil, ratio_cap_permil, "
     "strict, minimum_units"),
    ('unterminated_quote.csv', 2, None,
     'unterminated_quote.csv, row 2: a quoted cell is never closed (its opening quote is on this row); close the quote or remove it'),
]


def test_at_least_thirty_bad_files_all_covered():
    on_disk = sorted(p.name for p in BAD.iterdir())
    assert len(on_disk) >= 30
    assert on_disk == sorted(name for name, *_ in BAD_FILES)


@pytest.mark.parametrize("name, row, column, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file(name, row, column, message):
    with pytest.raises(InputError) as e:
        parse_any(name, (BAD / name).read_bytes())
    assert (e.value.file, e.value.row, e.value.column) == (name, row, column)
    assert str(e.value) == message
    assert "\n" not in str(e.value)


def test_size_limit(monkeypatch):
    from agreebound.io import tables

    monkeypatch.setattr(tables, "MAX_INPUT_BYTES", 1000)
    with pytest.raises(InputError) as e:
        parse_ratings("big.csv", b"unit,a,b\n" + b"u,1,2\n" * 400)
    assert str(e.value) == "big.csv: the file is 2.4 kB; the limit is 1.0 kB"
    assert e.value.row is None


def test_lenient_where_the_meaning_is_plain_and_the_change_is_said():
    # blank lines are skipped (and rows are still counted as the file shows them)
    p = parse_ratings("b.csv", b"unit,a,b\nu1,1,2\n\nu2,1,1\nu3,1,x\n")["all"]
    assert p.units == ("u1", "u2", "u3")
    with pytest.raises(InputError) as e:
        p.ratings("interval")
    assert (e.value.row, e.value.column) == (5, "b")
    # names: surrounding spaces and zero-width characters go, and the panel says so
    p = parse_ratings("n.csv", "unit, rater-a,rater-b\u200b\nu1 ,1,2\n".encode())["all"]
    assert p.raters == ("rater-a", "rater-b") and p.units == ("u1",)
    assert p.notices == ("2 column headers normalised (surrounding spaces or invisible characters removed)",
                         "1 unit name normalised (surrounding spaces or invisible characters removed)")
    # names that become one after normalising are one rater, and a repeat is an error
    with pytest.raises(InputError) as e:
        parse_ratings("z.csv", "unit,bob,bob\u200b\nu1,1,2\n".encode())
    assert "duplicate column header (the same name as column 2, 'bob'" in str(e.value)
    # a stray quote is read as pyarrow, pandas and R read it: a label, listed with the others
    assert parse_ratings("q.csv", b'unit,a,b\nu1,"1"x,2\n')["all"].categories.values == ("1x", "2")


def test_trailing_blank_lines_and_quoted_cells():
    fast = parse_ratings("t.csv", b"unit,a,b\nu1,1,1\nu2,0,1\n\n\n")["all"]
    slow = parse_ratings("q.csv", b'unit,a,b\r\n"u1",1,1\r\n"u2","0",1\r\n\r\n')["all"]
    assert fast.units == slow.units == ("u1", "u2")
    assert np.array_equal(fast.matrix(), slow.matrix())


def test_bom_is_fine():
    panels = parse_ratings("bom.csv", b"\xef\xbb\xbfunit,a,b\nu1,1,1\nu2,0,1\n")
    assert panels["all"].raters == ("a", "b")


# --- round trips: file -> parse -> core equals the in-memory path ------------------------------


def test_krippendorff_2011_file_round_trip():
    panel = parse_ratings("krippendorff_2011.csv", (SAMPLES / "krippendorff_2011.csv").read_bytes())["all"]
    assert panel.kind == "integer" and panel.units[0] == "unit-01" and len(panel.raters) == 4
    from tests.support.panels import K2011

    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert krippendorff_alpha(panel.ratings(level), level).value == krippendorff_alpha(K2011, level).value
    assert krippendorff_alpha(panel.ratings()).value == Fraction(113, 152)


def test_sample_panel_verdicts_and_rates():
    panels = parse_ratings("detector_panel.csv", (SAMPLES / "detector_panel.csv").read_bytes())
    assert list(panels) == ["violence", "insult", "sexual"]
    verdicts, spreads, alphas = {}, {}, {}
    for dim, p in panels.items():
        assert len(p.units) == 600 and p.detectors == ("detector-lexicon", "detector-classifier", "detector-llm")
        assert p.humans == ("human",)
        m = measure_panel(p)
        d = decide_panel(m, PanelThresholds())
        verdicts[dim], spreads[dim], alphas[dim] = d.verdict.value, d.spread, round(float(m.alpha.value), 2)
    assert verdicts == {"violence": "REPORT_ONLY", "insult": "REPORT_ONLY", "sexual": "ENFORCE"}
    assert spreads == {"violence": Fraction(39, 10), "insult": Fraction(31, 10), "sexual": Fraction(29, 20)}
    assert alphas["violence"] == pytest.approx(0.24, abs=0.01) and alphas["insult"] == pytest.approx(0.43, abs=0.01)
    assert alphas["sexual"] >= 0.7
    # the rates file says the same as the matrix
    rates = parse_detector_rates("detector_rates.csv", (SAMPLES / "detector_rates.csv").read_bytes())
    for dim, p in panels.items():
        counted = numpy_engine.panel_counts(p).rates(1, p.detectors)  # the one place rates are counted
        assert rates[dim] == tuple(DetectorRate(*r) for r in counted)


def test_single_detector_sample_is_refused():
    p = parse_ratings("single_detector.csv", (SAMPLES / "single_detector.csv").read_bytes())["all"]
    m = measure_panel(p)
    d = decide_panel(m, PanelThresholds())
    assert m.alpha.value > Fraction(9, 10)  # a flattering score...
    assert d.verdict.value == "REFUSE_SINGLE"  # ...refused structurally


def test_wide_long_parquet_agree():
    wide = b"unit,r1,r2,r3\nu1,1,1,2\nu2,2,2,2\nu3,1,NA,1\nu4,3,3,NaN\nu5,,2,3\n"
    rows = []
    for line in wide.decode().splitlines()[1:]:
        unit, *vals = line.split(",")
        rows += [(unit, f"r{i + 1}", v) for i, v in enumerate(vals) if v not in ("", "NA", "NaN")]
    long_csv = "unit,rater,value\n" + "".join(f"{u},{r},{v}\n" for u, r, v in rows)
    frame = pd.DataFrame(rows, columns=["unit", "rater", "value"]).astype({"value": "int64"})
    buf = io.BytesIO()
    frame.to_parquet(buf)
    a = parse_ratings("w.csv", wide)["all"]
    b = parse_ratings("l.csv", long_csv.encode())["all"]
    c = parse_ratings("l.parquet", buf.getvalue())["all"]
    for level in ("nominal", "interval"):
        values = {krippendorff_alpha(x.ratings(level), level).value for x in (a, b, c)}
        assert len(values) == 1
    assert b.raters == c.raters == ("r1", "r2", "r3")


def test_label_and_decimal_panels():
    labels = parse_ratings("l.csv", b"unit,a,b\nu1,yes,yes\nu2,no,yes\nu3,no,no\n")["all"]
    assert labels.kind == "label" and krippendorff_alpha(labels.ratings()).categories == ("no", "yes")
    dec = parse_ratings("d.csv", b"unit,a,b\nu1,1.5,1.5\nu2,2,2.25\nu3,3,3\n")["all"]
    assert dec.kind == "decimal"
    assert dec.matrix()[1, 1] == Fraction(9, 4)
    assert krippendorff_alpha(dec.ratings("interval"), "interval").value == krippendorff_alpha(
        [[Fraction(3, 2)] * 2, [2, Fraction(9, 4)], [3, 3]], "interval").value


def test_judge_bundle_round_trip_equals_records():
    bundle = parse_judge_bundle("judge_illustrative.json", (SAMPLES / "judge_illustrative.json").read_bytes())
    seed = audit_calibration(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)
    assert bundle.measurement == seed.measurement
    assert bundle.contract.content_id == ILLUSTRATIVE_CONTRACT.content_id
    assert decide(bundle.measurement).decision == "PASS_CALIBRATION"


def test_judge_tables_equal_the_bundle():
    bundle = parse_judge_bundle("judge_failing.json", (SAMPLES / "judge_failing.json").read_bytes())
    tables = parse_any("observations_ok.csv", (SAMPLES / "judge_failing_observations.csv").read_bytes())
    assert tables.measurement == bundle.measurement
    d = decide(bundle.measurement)
    assert d.decision == "FAIL_CALIBRATION"
    assert {g.name for g in d.gates if not g.passed} >= {"position_flip", "verbosity_bias", "self_preference"}
    assert bundle.measurement.n_cases >= 200 and bundle.contract.repetitions_per_order == 3


def test_thresholds_file():
    t = parse_thresholds("thresholds.toml", (SAMPLES / "thresholds.toml").read_bytes())
    assert (t.thresholds.panel.alpha_floor_permil, t.thresholds.panel.ratio_cap_permil) == (600, 2000)
    assert t.presets["exploratory"].panel.alpha_floor_permil == 400
    assert t.presets["release-gate"].calibration.maximum_position_flip_bps == 300
    assert t.presets["krippendorff-reliable"].panel.alpha_floor_permil == 800  # built-ins always offered
    j = parse_thresholds("t.json", t.thresholds.to_json().encode())
    assert j.thresholds.panel == t.thresholds.panel


# --- fuzzing: any bytes give a value or an InputError, never another exception ----------------

def _tables(name, data):
    return parse_any("observations_fuzz.csv", data)


PARSERS = [parse_ratings, parse_detector_rates, parse_judge_bundle, parse_thresholds, _tables]
seeds = [(SAMPLES / n).read_bytes()[:400] for n in ("krippendorff_2011.csv", "detector_rates.csv",
                                                    "judge_illustrative.json", "thresholds.toml",
                                                    "judge_failing_observations.csv")]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(5)), st.binary(max_size=300))
def test_fuzz_random_bytes(which, data):
    try:
        PARSERS[which]("fuzz", data)
    except InputError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(5)), st.integers(0, 399), st.binary(min_size=1, max_size=4), st.booleans())
def test_fuzz_mutated_samples(which, at, patch, insert):
    base = seeds[which]
    at = min(at, len(base))
    data = base[:at] + patch + base[at + (0 if insert else len(patch)):]
    try:
        PARSERS[which]("fuzz", data)
    except InputError:
        pass


def test_rates_file_matched_to_dimensions_in_one_place():
    from agreebound.panel.measure import measure_panels

    panels = parse_ratings("detector_panel.csv", (SAMPLES / "detector_panel.csv").read_bytes())
    rates = parse_detector_rates("detector_rates.csv", (SAMPLES / "detector_rates.csv").read_bytes())
    ms = measure_panels(panels, rates=rates, rates_file="detector_rates.csv")
    assert ms["insult"].rates == rates["insult"] and ms["insult"].rates_source == "file: detector_rates.csv"
    partial = {k: v for k, v in rates.items() if k != "sexual"}
    with pytest.raises(InputError) as e:
        measure_panels(panels, rates=partial, rates_file="detector_rates.csv")
    assert str(e.value) == ("detector_rates.csv, column 'dimension': no rates for dimension 'sexual'; "
                            "the rates file has insult, violence")
    one = parse_detector_rates("r.csv", b"detector,positives,total\ndetector-lexicon,1,10\ndetector-llm,3,10\n"
                                        b"detector-classifier,2,10\n")
    served = measure_panels(panels, rates=one, rates_file="r.csv")
    assert all(m.rates == one["all"] for m in served.values())
    # the spread is over the panel's own detectors: a rate missing, or one for a stranger, is an error
    two = parse_detector_rates("r.csv", b"detector,positives,total\ndetector-lexicon,1,10\ndetector-llm,3,10\n")
    with pytest.raises(InputError, match="no rate for 'detector-classifier' \\(dimension 'violence'\\)"):
        measure_panels(panels, rates=two, rates_file="r.csv")
    foo = parse_detector_rates("r.csv", b"detector,positives,total\nfoo,1,10\nbar,3,10\n")
    with pytest.raises(InputError, match="rates for 'bar', 'foo', which are not a detector in the ratings"):
        measure_panels(panels, rates=foo, rates_file="r.csv")


def test_a_file_preset_may_not_take_a_built_in_preset_name():
    # else --preset seed-defaults decided on the file's floor while the report said preset:seed-defaults
    toml = b"[panel]\nalpha_floor_permil = 600\n[presets.seed-defaults]\npanel = { alpha_floor_permil = 100 }\n"
    with pytest.raises(InputError) as e:
        parse_thresholds("t.toml", toml)
    assert str(e.value) == ("t.toml, line 3, column 'presets.seed-defaults': 'seed-defaults' is a built-in preset's name; "
                            "give the file's preset its own name")
    js = b'{"presets": {"krippendorff-reliable": {"panel": {"alpha_floor_permil": 100}}}}'
    with pytest.raises(InputError) as e:
        parse_thresholds("t.json", js)
    assert (e.value.row, e.value.column) == (1, "presets.krippendorff-reliable")
