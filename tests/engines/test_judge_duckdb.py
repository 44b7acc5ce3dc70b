"""The judge audit out of core (DuckDB) against the in-memory tabular form: the same counts, rates,
intervals, decisions and diagnostics, and for bad input the same message naming the same file, row
and column."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreebound.judge.decide import decide, reference_issues
from agreebound.engines.judge_duckdb import judge_measurement
from agreebound.core.errors import InputError
from agreebound.app.pipeline import parse_judge_tables
from agreebound.judge.counts import from_cases, merge
from agreebound.app.synthetic import JudgeBehaviour, judge_frames
from agreebound.judge.intervals import judge_diagnostics
from tests.support.cli import run as _cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


def _csv(frame: pd.DataFrame) -> str:
    f = frame.copy()
    if "reviewer_ids" in f:
        f["reviewer_ids"] = [";".join(v) for v in f["reviewer_ids"]]
    if "adjudicated" in f:
        f["adjudicated"] = np.where(f["adjudicated"].astype(bool), "true", "false")
    return f.to_csv(index=False)


def write_trio(tmp: Path, contract, refs: pd.DataFrame, obs: pd.DataFrame, header: dict, parts: int = 1,
               parquet: bool = False) -> tuple[Path, list[Path], list[Path]]:
    c = tmp / "contract.json"
    c.write_text(json.dumps({"contract": asdict(contract), "snapshot": header}))
    out = []
    for role, frame in (("references", refs), ("observations", obs)):
        files = []
        for i, chunk in enumerate(np.array_split(np.arange(len(frame)), parts)):
            part = frame.iloc[chunk]
            if parquet:
                p = tmp / f"{role}-{i}.parquet"
                q = part.copy()
                if "reviewer_ids" in q:
                    q["reviewer_ids"] = [list(v) for v in q["reviewer_ids"]]
                q.to_parquet(p, index=False)
            else:
                p = tmp / f"{role}-{i}.csv"
                p.write_text(_csv(part))
            files.append(p)
        out.append(files)
    return c, out[0], out[1]


def in_memory(c: Path, refs: Path, obs: Path):
    return parse_judge_tables(c.name, c.read_bytes(), refs.name, refs.read_bytes(), obs.name, obs.read_bytes())


def out_of_core(c: Path, refs: list[Path], obs: list[Path]):
    return judge_measurement(c.name, c.read_bytes(), [str(p) for p in refs], [str(p) for p in obs])[2]


BEHAVIOURS = [
    JudgeBehaviour(),
    JudgeBehaviour(accuracy=0.6, noise=0.2, position_bias=0.2, verbosity_bias=0.5, self_preference=0.5,
                   self_share=0.5, tie_share=0.3, unadjudicated=0.1, single_reviewer=0.2),
    JudgeBehaviour(accuracy=0.95, noise=0.01, tie_share=0.0, self_share=0.0),
    JudgeBehaviour(accuracy=0.3, noise=0.5, position_bias=0.5, tie_share=0.5, single_reviewer=0.5),
]


def same(a, b) -> None:
    """Everything the product shows about a judge audit, from either measurement."""
    assert a.rates == b.rates and (a.n_cases, a.n_observations) == (b.n_cases, b.n_observations)
    strict = replace(a.contract.thresholds, strict=True)
    for th in (None, strict, replace(a.contract.thresholds, minimum_reviewers=3)):
        assert decide(a, th) == decide(b, th)
    assert judge_diagnostics(a) == judge_diagnostics(b)


@pytest.mark.parametrize("seed", range(12))
def test_randomized_snapshots_give_the_in_memory_audit(tmp_path, seed):
    rng = np.random.default_rng(seed)
    contract, refs, obs, header = judge_frames(int(rng.integers(20, 300)), int(rng.integers(2, 5)),
                                               BEHAVIOURS[seed % len(BEHAVIOURS)], seed=seed)
    obs = obs.sample(frac=1, random_state=seed).reset_index(drop=True)  # a case's rows anywhere
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected = in_memory(c, r, o).measurement
    got = out_of_core(c, [r], [o])
    same(expected, got)
    assert got.counts == from_cases(expected.cases)
    parts = tmp_path / "parts"
    parts.mkdir()
    c2, rs, os_ = write_trio(parts, contract, refs, obs, header, parts=3, parquet=seed % 2 == 0)
    same(expected, out_of_core(c2, rs, os_))


@pytest.mark.parametrize("bits, packed", [(3, True), (2, False)], ids=["packed", "too-many-to-pack"])
def test_the_counts_per_case_are_packed_only_where_they_fit(tmp_path, monkeypatch, bits, packed):
    """Table p sums a case's counts as bit fields of one number; where a case holds 2^FIELD_BITS
    observations or more (a field could overflow into the next), they are counted one by one. Both
    give the in-memory audit (here 3 repetitions: 6 observations a case, fields of 3 bits or 2)."""
    from agreebound.engines import judge_duckdb, judge_sql

    monkeypatch.setattr(judge_sql, "FIELD_BITS", bits)
    made = []
    real = judge_duckdb._Engine.table
    monkeypatch.setattr(judge_duckdb._Engine, "table", lambda self, name, sql: made.append(name) or real(self, name, sql))
    contract, refs, obs, header = judge_frames(80, 3, BEHAVIOURS[1], seed=5)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs.sample(frac=1, random_state=5), header)
    expected = in_memory(c, r, o).measurement
    got = out_of_core(c, [r], [o])
    same(expected, got)
    assert got.counts == expected.counts
    assert made.count("pk") == (1 if packed else 2)


def crowded_case(o: pd.DataFrame, copies: int = 600) -> pd.DataFrame:
    """The observations with one of them, an order-ba pick of b, written ``copies`` times more: a
    case far past what its counts can hold packed (a field of 9 bits; the top one at bit 54)."""
    row = o[(o["order"] == "ba") & (o["selected_candidate"] == "b")].iloc[[0]]
    return pd.concat([o, pd.concat([row] * copies)], ignore_index=True)


def test_a_case_too_large_to_pack_is_said_as_in_memory(tmp_path):
    """A case observed 600 times more (an export appended to itself, a constant case id) overflowed
    the packed sum (an engine error, no row named); it is counted one by one and said as in memory."""
    contract, r, o, header = _text_frames()
    expected, got = _both(tmp_path, contract, r, crowded_case(o), header)
    assert got == expected and f"row {len(o) + 2}" in got, got


def test_many_generator_names_are_grouped_as_texts(tmp_path, monkeypatch):
    """Up to MAX_CODED_NAMES names, table p holds each generator's place in their sorted list; with
    more it holds the texts: the same audit either way (every bias count included)."""
    from agreebound.engines import judge_sql

    contract, refs, obs, header, gens, _ = named_frames(120, 2, 1)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected = in_memory(c, r, o).measurement
    held = []
    real = judge_sql.Names.__init__
    monkeypatch.setattr(judge_sql.Names, "__init__", lambda self, d, names: held.append(list(names)) or real(self, d, names))
    for most in (64, 3):  # the pool's 4 names: places, then texts
        monkeypatch.setattr(judge_sql, "MAX_CODED_NAMES", most)
        got = out_of_core(c, [r], [o])
        same(expected, got)
        assert got.counts == expected.counts and got.bias == expected.bias
    assert held == [sorted({*gens.ravel(), contract.judge_generator}), []]


def test_a_name_after_the_head_has_the_names_grouped_as_texts(tmp_path, monkeypatch):
    """Names are read from the head of the observations; a name found after it (here a head of 3
    rows, one name in it) sends the grouping back to the texts: the same audit, table p made twice."""
    from agreebound.engines import judge_duckdb, judge_sql

    contract, refs, obs, header, gens, _ = named_frames(100, 2, 2)
    obs = obs.sort_values("candidate_a_generator", kind="stable").reset_index(drop=True)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected = in_memory(c, r, o).measurement
    made = []
    real = judge_duckdb._Engine.table
    monkeypatch.setattr(judge_duckdb._Engine, "table", lambda self, name, sql: made.append(name) or real(self, name, sql))
    monkeypatch.setattr(judge_sql, "HEAD_ROWS", 3)
    got = out_of_core(c, [r], [o])
    same(expected, got)
    assert got.counts == expected.counts and got.bias == expected.bias
    assert made.count("pk") == 2


def test_a_reference_twice_for_a_case_never_observed_is_found(tmp_path):
    """The references' ids are counted only when the join says one may be there twice: a case id
    twice among cases with no observation shows as an incomplete case, and is said as a duplicate,
    as in memory."""
    contract, r, o, header = _text_frames()
    extra = r.iloc[[0, 0]].assign(case_id="case-9999998")
    expected, got = _both(tmp_path, contract, pd.concat([r, extra], ignore_index=True), o, header)
    assert got == expected and "case-9999998" in got and f"row {len(r) + 3}" in got


def test_a_reference_never_observed_is_incomplete_as_in_memory(tmp_path):
    """Only the observed cases are joined to their references: a reference that no case joined is
    counted as incomplete (the references less those joined) and said as in memory, here the last."""
    contract, r, o, header = _text_frames()
    extra = r.iloc[[len(r) - 1]].assign(case_id="case-9999998")
    expected, got = _both(tmp_path, contract, pd.concat([r, extra], ignore_index=True), o, header)
    assert got == expected and "case-9999998" in got


def test_the_sample_trio_and_its_published_rates(tmp_path):
    c, r, o = (SAMPLES / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv"))
    m = out_of_core(c, [r], [o])
    assert [(x.numerator, x.denominator) for x in m.rates] == [(926, 1440), (26, 233), (7, 480), (333, 714), (95, 168)]
    assert decide(m).decision == "FAIL_CALIBRATION"
    same(in_memory(c, r, o).measurement, m)
    # the bias measures' published counts (issue 24): mirror, control, first slot, McNemar's pairs
    assert [(m.counts.rates[n].numerator, m.counts.rates[n].denominator) for n in
            ("verbosity_mirror", "self_control", "first_slot")] == [(96, 618), (289, 1002), (728, 1307)]
    assert (m.counts.first_both, m.counts.second_both) == (26, 0)
    assert m.bias["verbosity_net"].points() == "31.1 points [20.3, 41.0]"
    assert m.bias == in_memory(c, r, o).measurement.bias


def test_counts_merge_over_disjoint_cases():
    contract, refs, obs, header = judge_frames(200, 3, BEHAVIOURS[1], seed=5)
    from agreebound.judge.frames import measure_frames

    m = measure_frames(contract, refs, obs, **header)
    whole = from_cases(m.cases)
    a, b, c = (from_cases(m.cases.iloc[s]) for s in (slice(0, 70), slice(70, 150), slice(150, None)))
    assert merge(merge(a, b), c) == whole == merge(a, merge(b, c)) == merge(c, merge(b, a))
    assert whole.unadjudicated == int((~refs["adjudicated"]).sum()) > 0
    assert reference_issues(whole, 2) == (decide(m).reference_issues, 0) == reference_issues(whole, 2, m.cases)


def named_frames(n_cases: int, repetitions: int, seed: int):
    """A synthetic audit whose cases name several generators (the judge's own among them, and some
    cases whose two candidates share one), human ties, and lengths often equal."""
    contract, refs, obs, header = judge_frames(n_cases, repetitions, BEHAVIOURS[seed % 2 + 1], seed=seed)
    rng = np.random.default_rng(1000 + seed)
    pool = np.array([contract.judge_generator, "model-x", "model-y", "zeta-7b"], dtype=object)
    gens = pool[rng.integers(0, len(pool), size=(n_cases, 2))]
    tokens = rng.integers(40, 44, size=(n_cases, 2))  # a quarter of the cases have equal lengths
    case = pd.Series(np.arange(n_cases), index=refs["case_id"])[obs["case_id"]].to_numpy()
    obs = obs.assign(candidate_a_generator=gens[case, 0], candidate_b_generator=gens[case, 1],
                     candidate_a_tokens=tokens[case, 0], candidate_b_tokens=tokens[case, 1])
    return contract, refs, obs.sample(frac=1, random_state=seed).reset_index(drop=True), header, gens, tokens


NEW_FIELDS = ("first_both", "second_both", "self_rejected_longer", "control_rejected_longer", "verdicts")


@pytest.mark.parametrize("seed", range(4))
def test_bias_counts_and_measures_are_the_in_memory_ones(tmp_path, seed):
    """The counts beside the seed's (EXTRA_RATE_NAMES, McNemar's pairs, the mix, the verdict cells)
    and every bias measure from them: DuckDB's equal the in-memory engine's, field by field."""
    from agreebound.judge.bias import measure_bias
    from agreebound.judge.counts import EXTRA_RATE_NAMES

    contract, refs, obs, header, gens, tokens = named_frames(150 + 40 * seed, 2 + seed % 2, seed)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected, got = in_memory(c, r, o).measurement, out_of_core(c, [r], [o])
    for name in EXTRA_RATE_NAMES:
        assert got.counts.rates[name] == expected.counts.rates[name], name
    for name in NEW_FIELDS:
        assert getattr(got.counts, name) == getattr(expected.counts, name), name
    assert got.counts == expected.counts == from_cases(expected.cases)
    assert got.bias == expected.bias == measure_bias(expected.counts, {}, judge=contract.judge_generator)
    assert got.bias.to_dict() == expected.bias.to_dict()
    # the data has what the measures tell apart: every case whose generators differ has one cell
    # count, the equal-length and human-tie cases none in the length rates, the judge's own cases
    distinct = gens[:, 0] != gens[:, 1]
    assert sum(got.counts.verdicts.values()) == int(distinct.sum()) < len(gens)
    assert {(f, s) for f, s, *_ in got.counts.verdicts} <= {tuple(sorted(p)) for p in gens[distinct].tolist()}
    assert all(lab for _, _, lab, *_ in got.counts.verdicts)
    decided = (refs["preferred_candidate"] != "tie").to_numpy()
    unequal = decided & (tokens[:, 0] != tokens[:, 1])
    per_case = 2 * (2 + seed % 2)  # observations: two orders x the repetitions
    assert got.counts.rates["judge_longer"].denominator == per_case * int(unequal.sum()) > 0
    assert got.counts.rates["self_preference"].denominator > 0 and got.counts.rates["self_control"].denominator > 0
    assert got.counts.rates["length_excess"].syy > 0


def test_every_engine_measures_its_counts_in_one_place():
    """The in-memory engine's counts are the SQL engines' (from_facts over its per-case facts), and
    measure_counts gives the same rates and interval sums from them with or without the rows."""
    from agreebound.judge.measure import measure_counts
    from agreebound.judge.frames import measure_frames
    from agreebound.judge.counts import from_facts

    contract, refs, obs, header = judge_frames(300, 3, BEHAVIOURS[2], seed=11)
    m = measure_frames(contract, refs, obs, **header)
    counts = from_cases(m.cases)
    assert m.counts == counts and m.rate_stats() == dict(counts.rates)  # in memory too: every engine's counts
    out_of_core = measure_counts(contract, tuple(header.values()), counts)
    assert out_of_core.rates == m.rates and out_of_core.rate_stats() == m.rate_stats()
    assert out_of_core.counts == counts and len(out_of_core.cases) == 0
    assert (out_of_core.n_cases, out_of_core.n_observations) == (m.n_cases, m.n_observations)
    some = (np.arange(len(m.cases)) % 3 == 0)
    facts = {**{name: m.cases[name].to_numpy() for name in m.cases}, **{
        name: np.array([-1 if v is None else "abt".index(v[0]) for v in m.cases[name]])
        for name in ("preferred", "majority_ab", "majority_ba")}}
    assert from_facts(facts, only=some) == from_cases(m.cases[some]) != counts


def test_rate_sums_are_exact_past_int64():
    from agreebound.judge.counts import rate_stats

    big = 3 * 10**9  # its squares summed pass 2**63
    y, m = np.array([big, 1, big - 1, 0]), np.array([big, 2, big, 0])
    py_y, py_m = [big, 1, big - 1], [big, 2, big]
    assert rate_stats(y, m).astuple() == (sum(py_y), sum(py_m), 3, sum(v * v for v in py_y),
                                          sum(a * b for a, b in zip(py_y, py_m)), sum(v * v for v in py_m))


# --- bad input: the same message, file, row and column as in memory ---------------------------------

def _mutations():
    """(name, role, row, field, value) edits, and whole-frame edits."""
    return [
        ("adjudicated not a bool", "references", 17, "adjudicated", "yes"),
        ("empty adjudicated", "references", 3, "adjudicated", ""),
        ("repetition as a decimal", "observations", 211, "repetition", "2.0"),
        ("tokens as text", "observations", 95, "candidate_b_tokens", "many"),
        ("tokens with too many digits", "observations", 40, "candidate_a_tokens", "1" * 25),
        ("repetition out of range", "observations", 150, "repetition", "0"),
        ("tokens out of range", "observations", 7, "candidate_a_tokens", "2000000"),
        ("bad case id", "references", 9, "case_id", "Case 9"),
        ("case id with a space", "observations", 60, "case_id", " case-0000010"),
        ("bad order", "observations", 33, "order", "AB"),
        ("bad choice", "observations", 34, "selected_candidate", "c"),
        ("preferred not a candidate", "references", 12, "preferred_candidate", "both"),
        ("reviewers unsorted", "references", 20, "reviewer_ids", "reviewer:quality;reviewer:domain"),
        ("reviewers repeated", "references", 21, "reviewer_ids", "reviewer:domain;reviewer:domain"),
        ("no reviewers", "references", 22, "reviewer_ids", ""),
        ("bad generator", "observations", 80, "candidate_a_generator", "GPT 4"),
        ("duplicate reference", "references", 30, "case_id", "case-0000004"),
        ("duplicate key", "observations", 101, "repetition", "1"),
        ("no reference", "observations", 120, "case_id", "case-9999999"),
        ("another judge", "observations", 130, "judge_generator", "judge-v2"),
        ("metadata changes", "observations", 141, "candidate_b_tokens", "7"),
        ("generator changes", "observations", 142, "candidate_b_generator", "candidate-z"),
        ("repetition beyond the contract", "observations", 155, "repetition", "9"),
    ]


def _text_frames(seed: int = 3):
    contract, refs, obs, header = judge_frames(60, 2, BEHAVIOURS[1], seed=seed)
    r = pd.read_csv(pd.io.common.StringIO(_csv(refs)), dtype=str, keep_default_na=False)
    o = pd.read_csv(pd.io.common.StringIO(_csv(obs)), dtype=str, keep_default_na=False)
    return contract, r, o, header


def _both(tmp: Path, contract, r: pd.DataFrame, o: pd.DataFrame, header: dict) -> tuple[str, str]:
    c = tmp / "contract.json"
    c.write_text(json.dumps({"contract": asdict(contract), "snapshot": header}))
    rp, op = tmp / "references.csv", tmp / "observations.csv"
    rp.write_text(r.to_csv(index=False))
    op.write_text(o.to_csv(index=False))
    messages = []
    for run in (lambda: in_memory(c, rp, op), lambda: out_of_core(c, [rp], [op])):
        with pytest.raises(InputError) as e:
            run()
        messages.append(str(e.value))
    return messages[0], messages[1]


@pytest.mark.parametrize("name,role,row,field,value", _mutations(), ids=[m[0] for m in _mutations()])
def test_bad_rows_are_reported_as_in_memory(tmp_path, name, role, row, field, value):
    contract, r, o, header = _text_frames()
    frame = r if role == "references" else o
    frame.loc[row, field] = value
    expected, got = _both(tmp_path, contract, r, o, header)
    assert got == expected
    assert f"row {row + 2}" in got or "repetition" in got  # the data row under the header, or a case's set


@pytest.mark.parametrize("head", [100_000, 3], ids=["names-in-the-head", "names-after-the-head"])
@pytest.mark.parametrize("edits", [
    {(141, "candidate_b_tokens"): "7", (141, "candidate_b_generator"): "candidate-new"},
    {(141, "candidate_b_tokens"): "7", (142, "candidate_a_generator"): "GPT 4"},
    {(141, "candidate_a_tokens"): "4194304", (142, "judge_generator"): "judge-new"},  # 2^22: past 63 bits if packed
    {(143, "candidate_a_tokens"): "9", (141, "judge_generator"): "judge-new"},
], ids=["new-name-and-length", "bad-name-after-length", "length-out-of-range-and-judge", "judge-and-length"])
def test_a_case_whose_names_and_lengths_both_change_is_said_as_in_memory(tmp_path, monkeypatch, head, edits):
    """Where the names are places, a case's lengths and names are one number: a case where several
    change, a name the head did not hold among them, gives the in-memory message and row."""
    from agreebound.engines import judge_sql

    monkeypatch.setattr(judge_sql, "HEAD_ROWS", head)
    contract, r, o, header = _text_frames()
    for (row, field), value in edits.items():
        o.loc[row, field] = value
    expected, got = _both(tmp_path, contract, r, o, header)
    assert got == expected


@pytest.mark.parametrize("last", [64, 100])
def test_a_case_observed_at_many_repetitions_is_incomplete_as_in_memory(tmp_path, last):
    """Repetitions 1..last in both orders of one case: every row valid, none twice, the case not
    what the contract asks. All four masks' bits summed reach 2 x last (an overflow of DuckDB's
    TINYINT bit counts once, an engine error): the in-memory completeness message."""
    contract, r, o, header = _text_frames()
    first = o[o["case_id"] == o.loc[0, "case_id"]]
    more = [first[first["order"] == od].iloc[[0]].assign(repetition=str(rep))
            for od in ("ab", "ba") for rep in range(3, last + 1)]
    expected, got = _both(tmp_path, contract, r, pd.concat([o, *more], ignore_index=True), header)
    assert got == expected and "repetition" in got and o.loc[0, "case_id"] in got


def test_the_first_of_several_bad_rows_in_file_order(tmp_path):
    contract, r, o, header = _text_frames()
    o.loc[200, "order"] = "xx"
    o.loc[50, "selected_candidate"] = "nope"
    o.loc[10, "judge_generator"] = "judge-v9"  # a later check: the record errors come first
    expected, got = _both(tmp_path, contract, r, o, header)
    assert got == expected and "row 52" in got and "selected_candidate" in got


@pytest.mark.parametrize("edit", ["scope", "content", "minimum", "missing", "empty"])
def test_snapshot_and_completeness_errors_as_in_memory(tmp_path, edit):
    contract, r, o, header = _text_frames()
    if edit == "scope":
        header = {**header, "scope": "another-scope"}
    elif edit == "content":
        header = {**header, "contract_content_id": "judge-calibration@sha256:" + "0" * 64}
    elif edit == "minimum":
        contract = replace(contract, minimum_cases=61)
        header = {**header, "contract_content_id": contract.content_id}
    elif edit == "missing":
        o = o.drop(index=[77]).reset_index(drop=True)
    else:
        o = o.iloc[:0]
    expected, got = _both(tmp_path, contract, r, o, header)
    assert got == expected


def test_a_bad_row_in_a_later_part_names_that_file_and_its_row(tmp_path):
    contract, refs, obs, header = judge_frames(60, 2, BEHAVIOURS[0], seed=1)
    c, rs, os_ = write_trio(tmp_path, contract, refs, obs, header, parts=3)
    lines = os_[2].read_text().splitlines()
    cells = lines[5].split(",")
    cells[3] = "maybe"
    lines[5] = ",".join(cells)
    os_[2].write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as e:
        out_of_core(c, rs, os_)
    assert str(e.value).startswith("observations-2.csv, row 6, column 'selected_candidate': "
                                   "observation.selected_candidate must be a, b, or tie")


def test_a_parquet_part_with_a_bad_row(tmp_path):
    contract, refs, obs, header = judge_frames(40, 2, BEHAVIOURS[0], seed=2)
    obs.loc[100, "candidate_a_tokens"] = 0
    c, rs, os_ = write_trio(tmp_path, contract, refs, obs, header, parts=2, parquet=True)
    with pytest.raises(InputError) as e:
        out_of_core(c, rs, os_)
    assert str(e.value).startswith("observations-1.parquet, row 21, column 'candidate_a_tokens': "
                                   "observation.candidate_a_tokens must be between 1 and 1000000")


def test_wrong_columns_are_named(tmp_path):
    contract, r, o, header = _text_frames()
    o = o.rename(columns={"order": "position"})
    c = tmp_path / "contract.json"
    c.write_text(json.dumps({"contract": asdict(contract), "snapshot": header}))
    rp, op = tmp_path / "references.csv", tmp_path / "observations.csv"
    rp.write_text(r.to_csv(index=False))
    op.write_text(o.to_csv(index=False))
    with pytest.raises(InputError) as e:
        out_of_core(c, [rp], [op])
    assert str(e.value).startswith("observations.csv, row 1, column 'order': missing column")


def test_an_extra_observations_column_is_a_slice_column_for_both_engines(tmp_path, capsys):
    """A column beside the observation fields is the user's slice column (agreebound.judge.slices):
    the in-memory reader keeps it beside the audit, DuckDB counts the observation fields alone; the
    same report either way, and the same as without the column. A references CSV still refuses one."""
    c, r, o = (SAMPLES / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv"))
    frame = pd.read_csv(o, dtype=str, keep_default_na=False)
    sliced = tmp_path / "observations.csv"
    sliced.write_text(frame.assign(template=["pair-v2" if i % 3 else "pair-math-v1" for i in range(len(frame))])
                      .to_csv(index=False))
    outs = []
    for obs in (o, sliced):
        for engine in ("numpy", "duckdb"):
            code, out, _ = _cli(capsys, "calibrate", c, "--references", r, "--observations", obs, "--json",
                                "--engine", engine)
            report = json.loads(out)
            report.pop("inputs", None)  # the file names and digests differ
            # so does the fingerprint: the data's digest, and the judge and templates it reads from the
            # frames (none out of core)
            report["calibration"].pop("fingerprint")
            outs.append((code, report))
    assert all(x == outs[0] for x in outs[1:])
    refs = tmp_path / "references.csv"
    refs.write_text(pd.read_csv(r, dtype=str, keep_default_na=False).assign(extra="x").to_csv(index=False))
    code, _, err = _cli(capsys, "calibrate", c, "--references", refs, "--observations", o, "--engine", "duckdb")
    assert code == 3 and "column 'extra': unexpected column" in err


# --- the command line ---------------------------------------------------------------------------



def test_cli_duckdb_report_equals_the_in_memory_report(tmp_path, capsys):
    c, r, o = (SAMPLES / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv"))
    base = ["calibrate", c, "--references", r, "--observations", o, "--json"]
    code_n, out_n, _ = _cli(capsys, *base, "--engine", "numpy")
    code_d, out_d, _ = _cli(capsys, *base, "--engine", "duckdb")
    assert (code_n, code_d) == (1, 1)
    assert json.loads(out_d) == json.loads(out_n)  # inputs, rates, intervals, diagnostics, decision


def test_cli_reads_parts_by_pattern_and_says_bad_rows(tmp_path, capsys):
    contract, refs, obs, header = judge_frames(80, 2, BEHAVIOURS[2], seed=4)
    c, rs, os_ = write_trio(tmp_path, contract, refs, obs, header, parts=4, parquet=True)
    code, out, err = _cli(capsys, "calibrate", c, "--references", tmp_path / "references-*.parquet",
                          "--observations", tmp_path / "observations-*.parquet", "--json")
    report = json.loads(out)
    from agreebound.judge.frames import measure_frames

    expected = decide(measure_frames(contract, refs, obs, **header))
    assert code == (0 if expected.decision == "PASS_CALIBRATION" else 1)
    assert report["calibration"]["decision"] == expected.decision
    assert [f["file"] for f in report["inputs"]][1:] == [p.name for p in [*rs, *os_]]
    obs.loc[5, "order"] = "sideways"
    write_trio(tmp_path, contract, refs, obs, header, parts=4, parquet=True)
    code, out, err = _cli(capsys, "calibrate", c, "--references", tmp_path / "references-*.parquet",
                          "--observations", tmp_path / "observations-*.parquet")
    assert code == 3 and out == ""
    assert ("observations-0.parquet, row 6, column 'order': observation.order is outside the bounded text contract "
            "(observation case_id='case-0000001', order='sideways', repetition=2)") in err


# --- a review's cases: which file, in which order, and rows of empty cells -------------------------

def _trio_files(tmp_path: Path, refs_text: str, obs_text: str):
    c = tmp_path / "contract.json"
    c.write_bytes((SAMPLES / "judge_failing_contract.json").read_bytes())
    r, o = tmp_path / "refs.csv", tmp_path / "obs.csv"
    r.write_bytes(refs_text.encode("utf-8") if isinstance(refs_text, str) else refs_text)
    o.write_bytes(obs_text.encode("utf-8") if isinstance(obs_text, str) else obs_text)
    return c, r, o


def _both_messages(c, r, o):
    out = []
    for run in (lambda: in_memory(c, r, o), lambda: out_of_core(c, [r], [o])):
        try:
            run()
            out.append(None)
        except InputError as err:
            out.append(str(err))
    return out


def test_review_cases_match_the_in_memory_messages(tmp_path):
    refs = (SAMPLES / "judge_failing_references.csv").read_text()
    obs = (SAMPLES / "judge_failing_observations.csv").read_text()
    ref_lines, obs_lines = refs.splitlines(keepends=True), obs.splitlines(keepends=True)
    cases = {
        # a short row in the references: that file and row, not the observations
        "short references row": ("".join(ref_lines[:28] + ["case-x,a,reviewer:domain\n"] + ref_lines[28:]), obs),
        # a long row in the observations: that file
        "long observations row": (refs, "".join(obs_lines[:40] + [obs_lines[40].rstrip("\n") + ",extra\n"]
                                                + obs_lines[41:])),
        # the references' cells come before the observations' header
        "order": ("".join(ref_lines[:3] + [ref_lines[3].replace(",true", ",True")] + ref_lines[4:]),
                  obs.replace("judge_generator", "Judge_generator", 1)),
        # a header in another case, and a header only
        "header case": (refs.replace("adjudicated", "Adjudicated", 1), obs),
        "header only": (ref_lines[0], obs),
    }
    for name, (r_text, o_text) in cases.items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        expected, got = _both_messages(*_trio_files(folder, r_text, o_text))
        assert expected is not None and got == expected, name
    # bytes that are not UTF-8: the in-memory reader sniffs the encoding; out of core, the row is named
    folder = tmp_path / "latin"
    folder.mkdir()
    latin = "".join(obs_lines[:9]).encode() + obs_lines[9].replace("judge-v1", "judg\u00e9-v1").encode("latin-1") + \
        "".join(obs_lines[10:]).encode()
    _, got = _both_messages(*_trio_files(folder, refs, latin))
    assert got.startswith("obs.csv, row 10: not UTF-8 (byte 0xe9)")


def test_rows_of_empty_cells_are_not_rows(tmp_path):
    refs = (SAMPLES / "judge_failing_references.csv").read_text().splitlines(keepends=True)
    # cells of spaces and tabs are empty too: the out-of-core test reads a cell's first character first
    r_text = "".join(refs[:6] + [",,,\n", " , ,,\n", "\t,  \t, ,\n"] + refs[6:])
    c, r, o = _trio_files(tmp_path, r_text, (SAMPLES / "judge_failing_observations.csv").read_text())
    expected = in_memory(c, r, o).measurement
    same(expected, out_of_core(c, [r], [o]))


def test_more_than_a_thousand_issues_list_the_first_thousand_in_order(tmp_path):
    contract, refs, obs, header = judge_frames(1500, 2, JudgeBehaviour(unadjudicated=0.6, single_reviewer=0.7), seed=3)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    expected = decide(in_memory(c, r, o).measurement).reference_issues
    m = out_of_core(c, [r], [o])
    got = decide(m).reference_issues
    assert len(expected) > 1000 and got == expected[:1000]
    # how many issues there are is the decision's to say (it depends on minimum_reviewers), not the measurement's
    assert m.notes == ()
    assert decide(m).notes == (f"{len(expected):,} reference issues; the first 1,000 (in the contract's order) "
                               "are listed",)
    # a slider that lowers minimum_reviewers re-decides the listing and its note, never a stale one
    fewer = replace(m.contract.thresholds, minimum_reviewers=1)
    only_adjudication = decide(in_memory(c, r, o).measurement, fewer).reference_issues
    assert all(i.startswith("adjudication:") for i in only_adjudication) and 0 < len(only_adjudication) < 1000
    assert decide(m, fewer).reference_issues == only_adjudication and decide(m, fewer).notes == ()
    # ... and one that raises it lists more than the measurement's contract would have
    more = decide(m, replace(m.contract.thresholds, minimum_reviewers=5))
    assert more.unlisted_issues > decide(m).unlisted_issues and more.notes[0].startswith(
        f"{len(more.reference_issues) + more.unlisted_issues:,} reference issues; the first 1,000")
    assert decide(in_memory(c, r, o).measurement, fewer).notes == ()  # in memory every issue is listed


def _diagnostics_of_rows(cases: pd.DataFrame) -> dict:
    """The judge diagnostics computed straight from the rows per case (the oracle that
    judge_diagnostics, which reads only the counts, must agree with): agreement, with and without
    tie references, and the judge-human alpha over the cases that have a reference; the flips over
    every case."""
    from agreebound.panel.alpha import krippendorff_alpha

    def labels(frame: pd.DataFrame, name: str) -> np.ndarray:
        return frame[name].astype(object).where(frame[name].notna(), None).to_numpy()

    refd = cases[cases["has_reference"].to_numpy(dtype=bool)] if "has_reference" in cases else cases
    no_tie = (refd["preferred"] != "tie").to_numpy()
    obs, agree = refd["observations"].to_numpy(), refd["agreements"].to_numpy()
    rows = np.column_stack([labels(refd, "preferred"), labels(refd, "majority_ab"), labels(refd, "majority_ba")])
    ab, ba = labels(cases, "majority_ab"), labels(cases, "majority_ba")
    differ = np.array([a is not None and b is not None and a != b for a, b in zip(ab, ba)], dtype=bool)
    return {"agreement_with_ties": (int(agree.sum()), int(obs.sum())),
            "agreement_without_ties": (int(agree[no_tie].sum()), int(obs[no_tie].sum())),
            "judge_human_alpha": krippendorff_alpha(rows.astype(object).reshape(-1, 3), "nominal"),
            "stable_flips": int(cases["flipped"].sum()),
            "noisy_flips": int(((cases["unstable_ab"] | cases["unstable_ba"]).to_numpy() & differ).sum())}


def _diagnostics_of_counts(m) -> dict:
    from agreebound.app.judge_input import judge_human_alpha

    d = judge_diagnostics(m)
    out = {name: getattr(d, name) for name in ("agreement_with_ties", "agreement_without_ties", "stable_flips",
                                               "noisy_flips")}
    return {**out, "judge_human_alpha": judge_human_alpha(m.counts)}


@pytest.mark.parametrize("seed", range(len(BEHAVIOURS)))
def test_the_diagnostics_from_counts_are_those_of_the_rows(seed):
    """In memory too, judge_diagnostics reads the counts only; they say what the rows per case say."""
    from agreebound.judge.frames import measure_frames

    contract, refs, obs, header = judge_frames(150 + 50 * seed, 2 + seed % 2, BEHAVIOURS[seed], seed=seed)
    m = measure_frames(contract, refs, obs, **header)
    assert _diagnostics_of_counts(m) == _diagnostics_of_rows(m.cases)


def test_a_partial_audits_diagnostics_from_counts_are_those_of_the_rows():
    from agreebound.app.pipeline import parse_judge_log

    log = SAMPLES / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    human = SAMPLES / "judge_logs" / "mt_bench_human_judgments.jsonl"
    for m in (parse_judge_log(log.name, log.read_bytes(), (human.name, human.read_bytes())).measurement,
              parse_judge_log(log.name, log.read_bytes()).measurement):
        assert m.partial and "has_reference" in m.cases
        assert _diagnostics_of_counts(m) == _diagnostics_of_rows(m.cases)


def test_duckdb_reviewers_rule_is_the_in_memory_one_on_any_text():
    """The reviewers' cell is matched whole (ids joined by ';'), not id by id: on 100,000 texts of
    ids, near-ids and separators (and a missing cell), DuckDB passes exactly the cells the in-memory
    path passes: the cell as it holds it (judge_sql.typed), then its record rule (calibration.valid_reviewers)."""
    import random
    import duckdb

    from agreebound.judge.frames import valid_reviewers
    from agreebound.engines.judge_duckdb import DuckDialect
    from agreebound.engines.judge_sql import typed

    rng = random.Random(5)
    pieces = ["abc", "abd", "x1.y", "rev:q", "ab", "Abc", "abc ", "", "a" * 96, "b" * 97, "abc\n", "é12"]
    texts = [None, "", ";", ";;", "abc;", ";abc", "abc;;abd"] + [
        ";".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(50_000)] + [
        "".join(rng.choice("abz09._:-;A \n") for _ in range(rng.randint(0, 12))) for _ in range(50_000)]

    def python(text: str | None) -> bool:  # the cell as the in-memory form holds it, then the record rule
        return text is not None and valid_reviewers(typed(["reviewer_ids"], {"reviewer_ids": text})[0])

    frame = pd.DataFrame({"x": texts})  # noqa: F841 - read by DuckDB by name
    got = [r[0] for r in duckdb.connect().execute(f"SELECT {DuckDialect.reviewers_ok('x')} FROM frame").fetchall()]
    want = [python(t) for t in texts]
    assert sum(want) > 5_000 and len(texts) - sum(want) > 5_000  # both kinds are many
    assert got == want


# --- slices and the ranking out of core -----------------------------------------------------------


def sliced_trio(tmp: Path, seed: int = 3, cases: int = 300):
    """A trio whose observations carry slice columns: ``template`` (one value per case, some cases'
    cell empty), ``rater`` (varies within a case: no slice) and ``turn`` (one value: no slice)."""
    contract, refs, obs, header = judge_frames(cases, 2, BEHAVIOURS[1], seed=seed)
    rng = np.random.default_rng(seed)
    template = {c: ["pair-v1", "pair-math-v1", "pair-v2", ""][int(rng.integers(0, 4))] for c in refs["case_id"]}
    obs = obs.assign(template=obs["case_id"].map(template), rater=[f"r{i % 2}" for i in range(len(obs))], turn="1")
    return write_trio(tmp, contract, refs, obs.sample(frac=1, random_state=seed).reset_index(drop=True), header)


def test_slices_out_of_core_are_the_in_memory_slices(tmp_path, capsys):
    """The report's calibration.slices from DuckDB's per-slice counts is the in-memory one, to the last
    digit: every slice's exact rates, simultaneous intervals, p-values, statuses and sentences (the
    same counts measured by the same measure, decided by the same decide)."""
    c, [r], [o] = sliced_trio(tmp_path)
    reports = []
    for engine in ("numpy", "duckdb"):
        code, out, _ = _cli(capsys, "calibrate", c, "--references", r, "--observations", o, "--json", "--engine", engine)
        reports.append((code, json.loads(out)["calibration"]["slices"]))
    (code, memory), (code_ooc, counted) = reports
    assert code == code_ooc == 1 and counted == memory
    [sliced] = counted  # rater varies within a case and turn holds one value: neither is a slice
    assert sliced["column"] == "template" and [s["value"] for s in sliced["slices"]] == [
        "", "pair-math-v1", "pair-v1", "pair-v2"]
    assert sum(s["cases"] for s in sliced["slices"]) == 300 and sliced["failing"]
    tested = [g for s in sliced["slices"] for g in s["gates"] if g["p_value"] is not None]
    assert len(tested) == sum(sliced["family"].values()) >= 15 and all(g["interval"] is not None for g in tested)


@pytest.mark.parametrize("seed", range(3))
def test_each_slices_counts_are_the_in_memory_slices_counts(tmp_path, seed):
    """Per slice, DuckDB's counts are those the in-memory slice measures (measure_partial on the
    slice's frames), and the refused columns are refused for the same reason; from one CSV file or
    three Parquet parts."""
    from agreebound.engines.judge_duckdb import judge_audit
    from agreebound.judge.slices import measure_slice_counts, measure_slices, slice_options, varies_text

    c, [r], [o] = sliced_trio(tmp_path, seed=seed, cases=int(np.random.default_rng(seed).integers(60, 200)))
    bundle = in_memory(c, r, o)
    _, _, got = judge_audit(c.name, c.read_bytes(), [str(r)], [str(o)], slices=True)
    options = slice_options(bundle.slices)
    # the same reasons; a column that varies within a case names, out of core, the least such case id
    # (in memory the first in the file: the file has its rows shuffled)
    per_case = bundle.slices.groupby("case_id")["rater"].nunique()
    assert got.refused == {"rater": varies_text(min(per_case.index[per_case > 1]), 2), "turn": options["turn"]}
    assert options["rater"] is not None and options["rater"].startswith("varies within a case")
    assert list(got.slices) == ["template"] and options["template"] is None
    memory = measure_slices(bundle.measurement, bundle.observations, bundle.references, bundle.slices, "template")
    counted = measure_slice_counts(got.measurement, "template", got.slices["template"])
    assert [s.value for s in counted.slices] == [s.value for s in memory.slices] and counted.n_cases == memory.n_cases
    for a, b in zip(memory.slices, counted.slices):
        assert a.measurement.counts == b.measurement.counts and a.measurement.rates == b.measurement.rates
    # the same in three Parquet parts (the empty cells are empty texts there too)
    (tmp_path / "parts").mkdir()
    contract, refs, obs, header = judge_frames(10, 2, BEHAVIOURS[1], seed=seed)  # the contract and header only
    frames = pd.read_csv(o, dtype=str, keep_default_na=False), pd.read_csv(r, dtype=str, keep_default_na=False)
    parts_obs = frames[0].astype({f: int for f in ("repetition", "candidate_a_tokens", "candidate_b_tokens")})
    parts_refs = frames[1].assign(reviewer_ids=[tuple(v.split(";")) for v in frames[1]["reviewer_ids"]],
                                  adjudicated=frames[1]["adjudicated"] == "true")
    c2, rs, os_ = write_trio(tmp_path / "parts", bundle.measurement.contract, parts_refs, parts_obs,
                             json.loads(c.read_text())["snapshot"], parts=3, parquet=True)
    _, _, parts = judge_audit(c2.name, c2.read_bytes(), [str(p) for p in rs], [str(p) for p in os_], slices=True)
    assert parts.slices == got.slices and parts.refused == got.refused


def test_the_ranking_out_of_core_is_the_in_memory_ranking(tmp_path):
    """The ranking from DuckDB's kinds of case (the battles' counts per kind of case, one row per kind)
    is the in-memory one from the frames' kinds: the same table, so the same ratings, intervals and
    groups, draw for draw; the point ratings are also rank()'s from the judgments one by one (1e-9),
    and the intervals of the per-kind draws and the per-case draws, the same law, agree to Monte-Carlo
    error (measured here: at most 2.7 points apart over 2,000 draws each, on intervals 78 to 87 wide)."""
    from agreebound.engines.judge_duckdb import judge_audit
    from agreebound.judge.ranking import battles_of, case_kinds, fit_ratings, battle_counts, kinds_frame, rank, rank_kinds

    contract, refs, obs, header, _, _ = named_frames(400, 2, seed=11)
    c, [r], [o] = write_trio(tmp_path, contract, refs, obs, header)
    bundle = in_memory(c, r, o)
    _, _, got = judge_audit(c.name, c.read_bytes(), [str(r)], [str(o)], kinds=True)
    assert got.kinds is not None
    memory_kinds, counted_kinds = case_kinds(battles_of(bundle.observations)), kinds_frame(got.kinds)
    pd.testing.assert_frame_equal(memory_kinds, counted_kinds)
    assert len(counted_kinds) < 60 and counted_kinds["cases"].sum() <= 400  # far fewer rows than cases
    a, b = rank_kinds(memory_kinds, draws=300), rank_kinds(counted_kinds, draws=300)
    assert (a.models, a.ratings, a.lower, a.upper, a.groups) == (b.models, b.ratings, b.lower, b.upper, b.groups)
    assert len(a.models) >= 3 and b.battles == len(battles_of(bundle.observations))
    one_by_one = rank(battles_of(bundle.observations), draws=2000)
    assert one_by_one.models == b.models
    assert max(abs(x - y) for x, y in zip(one_by_one.ratings, b.ratings)) < 1e-9
    counted_fit = fit_ratings(battle_counts(counted_kinds))
    assert max(abs(counted_fit[m] - x) for m, x in zip(b.models, b.ratings)) < 1e-9
    wide = rank_kinds(counted_kinds, draws=2000)
    gaps = [abs(x - y) for x, y in zip(one_by_one.lower + one_by_one.upper, wide.lower + wide.upper)]
    assert max(gaps) < 8, gaps


def test_a_record_the_csv_module_cannot_read_is_named_by_its_row(tmp_path):
    """The out-of-core engine's fallback reader names the record it could not read (it said only
    "malformed CSV" before): here a cell over the csv module's field limit, lowered for the test."""
    import csv

    from agreebound.engines.judge_sql import first_unreadable

    f = tmp_path / "obs.csv"
    f.write_text("case_id,order\nc1,ab\nc2," + "x" * 500 + "\nc3,ba\n", encoding="utf-8")
    limit = csv.field_size_limit(100)
    try:
        err = first_unreadable([str(f)], ["obs.csv"], ",")
    finally:
        csv.field_size_limit(limit)
    assert err is not None and str(err) == "obs.csv, row 3: malformed CSV (field larger than field limit (100))"
