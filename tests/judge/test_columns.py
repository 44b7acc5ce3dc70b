"""A judge bundle's records held as columns (agreebound.judge.columns) are audited as their frame is:
the same measurement, the same rows per case, the same decision and the same refusal (message, row,
field) for every bad cell. The columns path is what ``calibrate`` takes for a bundle, without pandas
(tests/cli/test_startup.py); the frames path is the one the differential tests hold to the record
path and the seed (tests/judge/test_calibration.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreebound.judge.columns as columns
from agreebound.app.synthetic import JudgeBehaviour, judge_frames
from agreebound.judge.columns import as_frame, columns_of, count_rows, duplicated, factorize
from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS
from agreebound.judge.decide import decide
from agreebound.judge.frames import FrameError, measure_frames
from tests.judge.test_calibration import _mutations, mutated


def _records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as a bundle's JSON records hold them (lists, Python values)."""
    out = []
    for r in frame.to_dict("records"):
        out.append({k: list(v) if isinstance(v, tuple) else (v.item() if isinstance(v, np.generic) else v)
                    for k, v in r.items()})
    return out


def _as_columns(refs: pd.DataFrame, obs: pd.DataFrame) -> tuple[dict, dict]:
    return columns_of(_records(refs), REFERENCE_FIELDS), columns_of(_records(obs), OBSERVATION_FIELDS)


def _outcome(con, refs, obs, header):
    try:
        return measure_frames(con, refs, obs, **header)
    except FrameError as e:
        return (str(e), e.frame, e.row, e.field)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(2, 4), st.integers(0, 2**32 - 1), st.floats(0, 1), st.floats(0, 0.5),
       st.floats(0, 1), st.floats(0, 1))
def test_columns_measure_as_their_frame(n, reps, seed, acc, pos, verb, selfp):
    b = JudgeBehaviour(accuracy=acc, position_bias=pos, noise=0.05, verbosity_bias=verb, self_preference=selfp,
                       self_share=0.4, tie_share=0.2, unadjudicated=0.05, single_reviewer=0.05)
    con, refs, obs, header = judge_frames(n, reps, b, seed=seed)
    by_frame = measure_frames(con, refs, obs, **header)
    by_columns = measure_frames(con, *_as_columns(refs, obs), **header)
    assert by_columns == by_frame
    assert by_columns.counts == by_frame.counts
    pd.testing.assert_frame_equal(by_columns.cases, by_frame.cases)
    assert decide(by_columns) == decide(by_frame)


@pytest.mark.parametrize("frame, row, column, value", _mutations())
def test_a_bad_cell_in_columns_is_refused_as_in_its_frame(frame, row, column, value):
    con, refs, obs, header = mutated(frame, row, column, value)
    expected = _outcome(con, refs, obs, header)
    assert isinstance(expected, tuple), "the mutation must make the input invalid"
    assert _outcome(con, *_as_columns(refs, obs), header) == expected


def test_columns_keep_each_values_json_type():
    c = columns_of([{"n": 1, "b": True, "t": "x", "m": 1, "reviewer_ids": ["r:a", "r:b"]},
                    {"n": 2, "b": False, "t": "y", "m": "2", "reviewer_ids": ["r:c"]}], ("n", "b", "t", "m", "reviewer_ids"))
    assert [c[k].dtype.kind for k in ("n", "b", "t", "m", "reviewer_ids")] == ["i", "b", "O", "O", "O"]
    assert c["m"].tolist() == [1, "2"]  # mixed types stay as given, for the contract's checks to refuse
    assert c["reviewer_ids"].tolist() == [("r:a", "r:b"), ("r:c",)]  # one tuple per record, never a 2-D array
    assert columns_of([{"n": 2**63}], ("n",))["n"].dtype == object  # past int64: kept exactly
    frame = as_frame(c)
    assert list(frame.columns) == ["n", "b", "t", "m", "reviewer_ids"]
    assert [str(frame[k].dtype) for k in ("n", "b", "t")] == ["int64", "bool", "object"]


@pytest.mark.parametrize("n", [7, columns.PANDAS_FROM + 3])
def test_the_primitives_equal_pandas_below_and_above_the_switch(n):
    """Below PANDAS_FROM a dict counts; from it, pandas' hash table: the same results either way."""
    rng = np.random.default_rng(n)
    text = np.array([f"c{v}" for v in rng.integers(0, 5, n)], dtype=object)
    codes, uniques = factorize(text)
    want_codes, want_uniques = pd.factorize(text)
    assert codes.tolist() == want_codes.tolist() and uniques == list(want_uniques)
    keys = rng.integers(0, 4, n)
    assert duplicated(keys).tolist() == pd.Series(keys).duplicated().tolist()
    cols = {"first": text, "flag": keys % 2 == 0, "m": keys}
    want = pd.DataFrame(cols).groupby(list(cols), sort=True).size()
    got = count_rows(cols)
    assert list(got) == [tuple(k) for k in want.index] and list(got.values()) == want.tolist()


def test_the_tabular_trios_csvs_read_as_columns_measure_as_their_frames():
    """The trio's CSVs are read as columns (io.records.csv_columns) and measured as the frames
    ``csv_records`` makes of the same bytes, down to the rows per case."""
    from pathlib import Path

    from agreebound.io.judge_inputs import judge_tables_contract
    from agreebound.io.records import csv_columns, csv_records

    samples = Path(__file__).resolve().parents[2] / "sample_data"
    con, header = judge_tables_contract("c.json", (samples / "judge_failing_contract.json").read_bytes())
    head = dict(zip(("scope", "contract_content_id", "rubric_digest"), header))
    given = [(f, (samples / f"judge_failing_{f}.csv").read_bytes(), fields)
             for f, fields in (("references", REFERENCE_FIELDS), ("observations", OBSERVATION_FIELDS))]
    as_columns = [csv_columns(f, data, fields)[0] for f, data, fields in given]
    as_frames = [csv_records(f, data, fields)[0] for f, data, fields in given]
    by_columns, by_frames = measure_frames(con, *as_columns, **head), measure_frames(con, *as_frames, **head)
    assert by_columns == by_frames and by_columns.human_agreement.numerator == 926
    pd.testing.assert_frame_equal(by_columns.cases, by_frames.cases)
    for c, f in zip(as_columns, as_frames):
        pd.testing.assert_frame_equal(as_frame(c), f)


def test_a_log_without_references_shows_no_preference_per_case():
    """A log audited without human references: its rows per case prefer nothing, as pandas' text
    column with missing values (the frame the partial audit always made), not a column of None."""
    from pathlib import Path

    from agreebound.app.pipeline import parse_judge_log

    log = Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    cases = parse_judge_log(log.name, log.read_bytes()).measurement.cases
    assert len(cases) and cases["preferred"].isna().all()
    assert str(cases["preferred"].dtype) == "str" and all(v != v for v in cases["preferred"].tolist())  # NaN


def test_columns_are_one_length_and_fixed_width_text_reads_as_text():
    con, refs, obs, header = judge_frames(4, 2, JudgeBehaviour(), seed=2)
    r, o = _as_columns(refs, obs)
    fixed = {k: (v.astype(str) if v.dtype == object and all(type(x) is str for x in v) else v) for k, v in o.items()}
    assert any(v.dtype.kind == "U" for v in fixed.values())
    assert measure_frames(con, r, fixed, **header) == measure_frames(con, refs, obs, **header)
    with pytest.raises(ValueError, match="observations columns must be one-dimensional arrays of one length"):
        measure_frames(con, r, {**o, "repetition": o["repetition"][:-1]}, **header)


@pytest.mark.parametrize("n", [5, columns.PANDAS_FROM + 1])
def test_count_rows_of_one_column_keys_each_row_by_a_tuple(n):
    got = count_rows({"x": np.array(["ab", "cd"] * (n // 2) + ["ab"] * (n % 2), dtype=object)})
    assert list(got) == [("ab",), ("cd",)] and sum(got.values()) == n


def test_the_fingerprints_distinct_values_are_each_columns_own_text():
    from agreebound.render.report import _distinct

    assert _distinct(pd.DataFrame({"t": np.array([0.1, 0.7, 0.1], dtype=np.float32)}), "t") == ["0.1", "0.7"]
    assert _distinct({"t": np.array(["b", None, "a", ""], dtype=object)}, "t") == ["a", "b"]
    assert _distinct(None, "t") == [] and _distinct(pd.DataFrame({"u": [1]}), "t") == []
