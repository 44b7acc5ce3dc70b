"""The frames path: references and observations as pandas frames or as columns (agreebound.judge.columns:
a bundle's JSON records or the trio's CSVs, read without pandas), validated vectorized with the same
results and the same error conditions (and messages) as the record path.
"""

from __future__ import annotations
from dataclasses import dataclass
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, cast
import numpy as np
from agreebound.judge.columns import Frame, duplicated, factorize, field_names, n_rows, values as column_values
from agreebound.judge.contract import (
    CANDIDATES,
    HumanReference,
    ID_PATTERN,
    JudgeCalibrationContract,
    JudgeObservation,
    MAX_REPETITION,
    MAX_TOKENS,
    METADATA_FIELDS,
    NO_OBSERVATIONS,
    NO_REFERENCES,
    OBSERVATION_FIELDS,
    ORDERS,
    REFERENCE_FIELDS,
    binding_fault,
    completeness_message,
    duplicate_observation,
    duplicate_reference,
    field_of,
    header_fault,
    observation_fault,
)
from agreebound.judge.measure import CalibrationMeasurement, CaseArrays, LABEL_CODE, measure_arrays, rebuild_contract
from agreebound.judge.seed_report import CalibrationReport, seed_report

if TYPE_CHECKING:
    import pandas as pd


# --- frames path -----------------------------------------------------------------------------


class FrameError(ValueError):
    """A frames-path error: the record path's message, plus where (frame, 0-based row, field)."""

    def __init__(self, message: str, frame: str | None = None, row: int | None = None, field: str | None = None):
        super().__init__(message)
        self.frame, self.row, self.field = frame, row, field


class FrameSnapshot:
    """A snapshot held as frames; records are built only if someone asks for them."""

    def __init__(self, scope: str, contract_content_id: str, rubric_digest: str,
                 references: Frame, observations: Frame) -> None:
        self.scope, self.contract_content_id, self.rubric_digest = scope, contract_content_id, rubric_digest
        self.reference_frame, self.observation_frame = references, observations

    @property
    def references(self) -> tuple[HumanReference, ...]:
        return tuple(HumanReference(*r) for r in _rows(self.reference_frame, REFERENCE_FIELDS))

    @property
    def observations(self) -> tuple[JudgeObservation, ...]:
        return tuple(JudgeObservation(*r) for r in _rows(self.observation_frame, OBSERVATION_FIELDS))


def _rows(frame: Frame, names: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """Rows as Python values (numpy scalars become Python ints/bools, as a record holds them)."""
    columns = [frame[n].tolist() for n in names]
    return zip(*columns)


def _require_columns(frame: object, names: Sequence[str], what: str) -> Frame:
    pandas = sys.modules.get("pandas")  # a caller's frame is pandas' (then loaded); a reader's columns need none
    is_frame = pandas is not None and isinstance(frame, pandas.DataFrame)
    if not is_frame and not (isinstance(frame, dict) and all(isinstance(v, np.ndarray) for v in frame.values())):
        raise ValueError(f"{what} must be a pandas DataFrame")  # or columns: only readers make those
    if not is_frame:  # columns: one dimension, one length; fixed-width text held as Python str
        lengths = {v.shape for v in cast("dict[str, np.ndarray]", frame).values()}
        if any(len(s) != 1 for s in lengths) or len(lengths) > 1:
            raise ValueError(f"{what} columns must be one-dimensional arrays of one length")
        frame = {k: v.astype(object) if v.dtype.kind in "US" else v for k, v in cast("dict[str, np.ndarray]", frame).items()}
    have = field_names(cast(Frame, frame))
    missing = [n for n in names if n not in have]
    extra = [c for c in have if c not in names]
    if missing or extra:
        raise ValueError(f"{what} columns must be exactly {list(names)}; missing {missing}, unexpected {extra}")
    return cast("pd.DataFrame", frame).reset_index(drop=True) if is_frame else cast(Frame, frame)


@dataclass(frozen=True)
class _Factor:
    """A text column as codes into its distinct exact-str values (-1: missing or not a str)."""

    codes: np.ndarray
    uniques: list[str]

    def ok(self, valid: Callable[[str], object]) -> np.ndarray:
        """Rows whose value satisfies ``valid`` (checked once per distinct value)."""
        table = np.fromiter((bool(valid(u)) for u in self.uniques), dtype=bool, count=len(self.uniques))
        return np.append(table, False)[self.codes]  # code -1 picks the appended False

    def mapped(self, mapping: dict[str, int]) -> np.ndarray:
        table = np.array([mapping.get(u, -1) for u in self.uniques] + [-1], dtype=np.int64)
        return table[self.codes]


def _factor(s: "pd.Series | np.ndarray") -> _Factor:
    if not isinstance(s, np.ndarray):
        import pandas as pd  # a pandas column: pandas is loaded

        if pd.api.types.is_string_dtype(s.dtype) and not pd.api.types.is_object_dtype(s.dtype):
            codes, distinct = pd.factorize(s, use_na_sentinel=True)
            # the distinct values as Python str in one conversion (not one arrow scalar at a time)
            return _Factor(np.asarray(codes, dtype=np.int64), np.asarray(distinct, dtype=object).tolist())
    codes = np.full(len(s), -1, dtype=np.int64)
    if s.dtype != object:
        return _Factor(codes, [])
    values = column_values(s)
    is_str = np.fromiter((type(v) is str for v in values), dtype=bool, count=len(values))
    uniques: list[str] = []
    if is_str.any():
        c, uniques = factorize(values[is_str])
        codes[is_str] = c
    return _Factor(codes, uniques)


def _ok_int(s: "pd.Series | np.ndarray", lo: int, hi: int) -> np.ndarray:
    if isinstance(s, np.ndarray):
        if s.dtype.kind in "iu":
            return (s >= lo) & (s <= hi)
    else:
        import pandas as pd  # a pandas column: pandas is loaded

        if pd.api.types.is_integer_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            if s.isna().any():  # nullable Int64 with <NA>
                return (s.notna() & s.between(lo, hi)).to_numpy(dtype=bool)
            v = s.to_numpy()
            return (v >= lo) & (v <= hi)
    if s.dtype == object:
        return np.fromiter((type(v) is int and lo <= v <= hi for v in column_values(s)), dtype=bool, count=len(s))
    return np.zeros(len(s), dtype=bool)


def _ok_bool(s: "pd.Series | np.ndarray") -> np.ndarray:
    if isinstance(s, np.ndarray):
        if s.dtype == bool:
            return np.ones(len(s), dtype=bool)
    else:
        import pandas as pd  # a pandas column: pandas is loaded

        if pd.api.types.is_bool_dtype(s.dtype) and not s.isna().any():
            return np.ones(len(s), dtype=bool)
    if s.dtype == object:
        return np.fromiter((type(v) is bool for v in column_values(s)), dtype=bool, count=len(s))
    return np.zeros(len(s), dtype=bool)


def valid_reviewers(items: tuple[Any, ...]) -> bool:
    """A reference's reviewers: canonical ids in strictly increasing order, at least one (the rule
    the engines' SQL restates; tests/engines/test_judge_duckdb.py holds DuckDB's to it)."""
    return bool(items) and all(type(r) is str and ID_PATTERN.fullmatch(r) for r in items) and all(
        a < b for a, b in zip(items, items[1:]))


def _ok_reviewers(s: "pd.Series | np.ndarray") -> np.ndarray:
    """Rows whose reviewer_ids is a tuple/list of strictly increasing canonical ids."""
    values = column_values(s)
    kinds = np.fromiter((type(v) is tuple for v in values), dtype=bool, count=len(values))
    out = np.zeros(len(values), dtype=bool)
    if kinds.any():  # tuples of strings hash: validate each distinct tuple once
        hashable = np.fromiter((kinds[i] and all(type(r) is str for r in values[i]) for i in range(len(values))),
                               dtype=bool, count=len(values))
        if hashable.any():
            codes, uniques = factorize(values[hashable])
            table = np.fromiter((valid_reviewers(u) for u in uniques), dtype=bool, count=len(uniques))
            out[hashable] = table[codes]
    for i in np.flatnonzero(~kinds):
        v = values[i]
        if isinstance(v, (list, np.ndarray)):
            out[i] = valid_reviewers(tuple(_py(v)))
    return out


def _first_failure(frame: Frame, masks: list[np.ndarray], names: Sequence[str],
                   build: Callable[..., object]) -> None:
    """Raise the record path's exact error for the first row any fast mask doubts."""
    ok = np.logical_and.reduce(masks) if masks else np.ones(n_rows(frame), dtype=bool)
    doubtful = np.flatnonzero(~ok)
    if len(doubtful) == 0:
        return
    columns = {n: _cells(frame, n) for n in names}
    what = "references" if build is HumanReference else "observations"
    for i in doubtful:
        try:
            build(*(_py(columns[n][i]) for n in names))  # raises the record path's message, or passes
        except ValueError as error:
            raise FrameError(str(error), what, int(i), field_of(error)) from None


def _cells(frame: Frame, name: str) -> Any:
    """A column's cells as the frame holds them (a pandas column's ``array``: its missing values
    stay ``pd.NA``)."""
    column = frame[name]
    return column if isinstance(column, np.ndarray) else column.array


def _py(v: object) -> Any:
    if isinstance(v, np.ndarray):
        return tuple(_py(x) for x in v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    pandas = sys.modules.get("pandas")  # pd.NA exists only where pandas made the frame
    if pandas is not None and v is pandas.NA:
        return None
    return v


def _is_id(u: str) -> bool:
    return ID_PATTERN.fullmatch(u) is not None


def measure_frames(contract: object, references: Frame, observations: Frame, *,
                   scope: object, contract_content_id: object, rubric_digest: object) -> CalibrationMeasurement:
    """:func:`measure` for frames: the same results and the same error conditions, vectorized.

    A frame's cell is read as the record would hold it: an int64 column holds ints, a bool
    column bools, an object column whatever objects it holds; ``reviewer_ids`` is a tuple or
    list per row.  Text is validated once per distinct value, not once per row. Each check finds
    the first offending row at once; its message is the record path's (the snapshot's rules).
    """
    c = rebuild_contract(contract)
    refs = _require_columns(references, REFERENCE_FIELDS, "references")
    obs = _require_columns(observations, OBSERVATION_FIELDS, "observations")
    f = _check_records(refs, obs)
    fault: tuple[str | None, str] | None = header_fault(scope, contract_content_id, rubric_digest)
    if fault:
        raise FrameError(fault[1], "snapshot", None, fault[0])
    if n_rows(refs) == 0:
        raise FrameError(NO_REFERENCES, "references")
    if n_rows(obs) == 0:
        raise FrameError(NO_OBSERVATIONS, "observations")
    _check_keys(f)
    fault = binding_fault(c, scope, contract_content_id, n_rows(refs))
    if fault:
        raise FrameError(fault[1], "snapshot", None, fault[0])
    obs_case, first = _check_observations(c, f)
    _check_complete(c, f, obs_case)
    header = cast("tuple[str, str, str]", (scope, contract_content_id, rubric_digest))  # header_fault: text, each
    return measure_arrays(c, header, _frame_arrays(c, f, obs_case, first))


@dataclass(frozen=True)
class _Frames:
    """The frames with their text columns factored and the observations' keys read (validated)."""

    refs: Frame
    obs: Frame
    rf: dict[str, _Factor]
    of: dict[str, _Factor]
    order: np.ndarray  # per observation: 0 ab, 1 ba
    repetition: np.ndarray
    a_tokens: np.ndarray
    b_tokens: np.ndarray

    def describe(self, i: int) -> tuple[str, str, int]:
        """Observation i's key as the record holds it."""
        return self.of["case_id"].uniques[self.of["case_id"].codes[i]], ORDERS[self.order[i]], int(self.repetition[i])


def _check_records(refs: Frame, obs: Frame) -> _Frames:
    """Every record's own rules (references, then observations): fast masks, then the record
    path's message for the first row a mask doubts."""
    rf = {n: _factor(refs[n]) for n in ("case_id", "preferred_candidate")}
    of = {n: _factor(obs[n]) for n in ("case_id", "order", "selected_candidate", "candidate_a_generator",
                                       "candidate_b_generator", "judge_generator")}
    in_candidates = CANDIDATES.__contains__
    _first_failure(refs, [
        rf["case_id"].ok(_is_id), rf["preferred_candidate"].ok(in_candidates),
        _ok_reviewers(refs["reviewer_ids"]), _ok_bool(refs["adjudicated"]),
    ], REFERENCE_FIELDS, HumanReference)
    _first_failure(obs, [
        of["case_id"].ok(_is_id), of["order"].ok(ORDERS.__contains__), _ok_int(obs["repetition"], 1, MAX_REPETITION),
        of["selected_candidate"].ok(in_candidates),
        _ok_int(obs["candidate_a_tokens"], 1, MAX_TOKENS), _ok_int(obs["candidate_b_tokens"], 1, MAX_TOKENS),
        of["candidate_a_generator"].ok(_is_id), of["candidate_b_generator"].ok(_is_id),
        of["judge_generator"].ok(_is_id),
    ], OBSERVATION_FIELDS, JudgeObservation)
    def ints(name: str) -> np.ndarray:
        return column_values(obs[name]).astype(np.int64)

    return _Frames(refs, obs, rf, of, of["order"].mapped({"ab": 0, "ba": 1}), ints("repetition"),
                   ints("candidate_a_tokens"), ints("candidate_b_tokens"))


def _check_keys(f: _Frames) -> None:
    """No two references of one case, no two observations of one (case, order, repetition)."""
    ref_codes = f.rf["case_id"].codes  # all valid now: distinct codes <=> distinct case ids
    dup = duplicated(ref_codes)
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError(duplicate_reference(f.rf["case_id"].uniques[ref_codes[i]]), "references", i, "case_id")
    key = (f.of["case_id"].codes * 2 + f.order) * MAX_REPETITION + (f.repetition - 1)  # repetition is 1..MAX here
    dup = duplicated(key)
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError(duplicate_observation(*f.describe(i)), "observations", i, "repetition")


def _check_observations(c: JudgeCalibrationContract, f: _Frames) -> tuple[np.ndarray, np.ndarray]:
    """Each observation, in order, has a reference, is of the contract's judge and carries its
    case's first metadata. Returns each observation's case (index into the references) and each
    case's first observation."""
    of, obs = f.of, f.obs
    at_reference = {u: i for i, u in enumerate(f.rf["case_id"].uniques)}
    ref_of_unique = np.fromiter((at_reference.get(u, -1) for u in of["case_id"].uniques), dtype=np.int64,
                                count=len(of["case_id"].uniques))
    obs_case = np.append(ref_of_unique, -1)[of["case_id"].codes]
    no_ref = obs_case < 0
    other_judge = ~of["judge_generator"].ok(c.judge_generator.__eq__)
    metadata = (f.a_tokens, f.b_tokens, of["candidate_a_generator"].codes, of["candidate_b_generator"].codes)
    safe_case = np.where(no_ref, 0, obs_case)
    first = np.full(n_rows(f.refs), -1, dtype=np.int64)
    valid_rows = np.flatnonzero(~no_ref & ~other_judge)
    first[safe_case[valid_rows][::-1]] = valid_rows[::-1]  # reversed assignment keeps the earliest row
    at = first[safe_case]
    at_safe = np.where(at >= 0, at, 0)
    changed = (at >= 0) & np.logical_or.reduce([v != v[at_safe] for v in metadata])
    bad = no_ref | other_judge | changed
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        j = int(at_safe[i]) if at[i] >= 0 else i

        def values(row: int) -> tuple[Any, ...]:
            return tuple(_py(_cells(obs, name)[row]) for name in METADATA_FIELDS)

        fault = observation_fault(c, f.describe(i), not no_ref[i], _py(_cells(obs, "judge_generator")[i]), values(i),
                                  values(j))
        assert fault is not None  # a mask says this row breaks a rule, the rule says which
        raise FrameError(fault[1], "observations", i, fault[0])
    return obs_case.astype(np.int64), first


def _check_complete(c: JudgeCalibrationContract, f: _Frames, obs_case: np.ndarray) -> None:
    """Every (case, order) holds exactly the repetitions 1..R (keys are unique already)."""
    reps, n_refs = c.repetitions_per_order, n_rows(f.refs)
    group = obs_case * 2 + f.order
    good = np.bincount(group[f.repetition <= reps], minlength=2 * n_refs)
    total = np.bincount(group, minlength=2 * n_refs)
    incomplete = (good != reps) | (total != reps)
    if incomplete.any():
        g = int(np.flatnonzero(incomplete)[0])
        cid = f.rf["case_id"].uniques[f.rf["case_id"].codes[g // 2]]
        raise FrameError(completeness_message(cid, ORDERS[g % 2], set(f.repetition[group == g].tolist()), reps),
                         "observations", None, "repetition")


def _frame_arrays(c: JudgeCalibrationContract, f: _Frames, obs_case: np.ndarray, first: np.ndarray) -> CaseArrays:
    """The validated frames as the columns the measurement reads."""
    rf, of, refs = f.rf, f.of, f.refs
    judge = c.judge_generator
    a_gen, b_gen = of["candidate_a_generator"], of["candidate_b_generator"]
    a_judge = np.append(a_gen.ok(judge.__eq__), False)
    b_judge = np.append(b_gen.ok(judge.__eq__), False)
    a_names = np.asarray(a_gen.uniques, dtype=object)[a_gen.codes[first]]
    b_names = np.asarray(b_gen.uniques, dtype=object)[b_gen.codes[first]]
    return CaseArrays(
        case_ids=np.asarray(rf["case_id"].uniques, dtype=object)[rf["case_id"].codes],
        preferred=rf["preferred_candidate"].mapped(LABEL_CODE),
        reviewers=np.fromiter(map(len, column_values(refs["reviewer_ids"])), dtype=np.int64, count=n_rows(refs)),
        adjudicated=column_values(refs["adjudicated"]).astype(bool),
        obs_case=obs_case,
        obs_order=f.order,
        obs_selected=of["selected_candidate"].mapped(LABEL_CODE),
        a_tokens=f.a_tokens[first],
        b_tokens=f.b_tokens[first],
        a_is_judge=a_judge[first],
        b_is_judge=b_judge[first],
        same_generator=a_names == b_names,
        a_generator=a_names,
        b_generator=b_names,
    )


def audit_frames(contract: object, references: Frame, observations: Frame, *,
                 scope: object, contract_content_id: object, rubric_digest: object) -> CalibrationReport:
    """:func:`audit_calibration` on frames: identical results and identical error conditions."""
    m = measure_frames(contract, references, observations, scope=scope,
                       contract_content_id=contract_content_id, rubric_digest=rubric_digest)
    snap = FrameSnapshot(m.scope, m.contract_content_id, m.rubric_digest,
                         _require_columns(references, REFERENCE_FIELDS, "references"),
                         _require_columns(observations, OBSERVATION_FIELDS, "observations"))
    return seed_report(m, snap)


