"""Judge calibration: an LLM judge's pairwise verdicts audited against human references.

The contract is the seed ``judge_calibration_audit``: its record names and field order, every
validation rule, the content id (bit for bit), the five rates in half-up basis points and its
decision are reproduced by :func:`audit_calibration`.  On top of that:

* :func:`measure` returns each rate's exact numerator and denominator and per-case facts;
  :func:`decide` is the only place they meet :class:`CalibrationThresholds`, comparing exact
  fractions, and says where the seed's rounded integers would have decided otherwise.
* :func:`audit_frames` / :func:`measure_frames` take pandas frames and validate vectorized, with
  the same results and the same error conditions (and messages) as the record path.

Every validation error is a ``ValueError`` whose message starts with the seed's text and then
names the offending record, e.g. ``observation.repetition must be exact int (observation
case_id='case-x', order='ab', repetition=2.0)``.

The audit runs no model and validates no provider: a passing result is not evidence that a judge
is unbiased, human-equivalent, or stable on another task distribution.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import asdict, dataclass, field, fields, replace
from fractions import Fraction
from hashlib import sha256
from typing import Any, Iterator, Literal, Sequence

import numpy as np
import pandas as pd

from agreebound.thresholds import RANGES, RATE_GATES, CalibrationThresholds
from agreebound.uncertainty import Wilson, judge_rate_intervals

Candidate = Literal["a", "b", "tie"]
Order = Literal["ab", "ba"]
Decision = Literal["PASS_CALIBRATION", "FAIL_CALIBRATION", "INCOMPLETE"]
PASS: Decision = "PASS_CALIBRATION"
FAIL: Decision = "FAIL_CALIBRATION"
#: A partial audit (a log that lacks what some gate needs): never a pass.
INCOMPLETE: Decision = "INCOMPLETE"

ID_PATTERN = re.compile(r"^[a-z][a-z0-9._:-]{2,95}$")
DIGEST_PATTERN = re.compile(r"^[0-9a-f]{64}$")
CONTENT_ID_PATTERN = re.compile(r"judge-calibration@sha256:[0-9a-f]{64}")
CONTENT_ID_PREFIX = "judge-calibration@sha256:"
CANDIDATES: tuple[str, ...] = ("a", "b", "tie")
ORDERS: tuple[str, ...] = ("ab", "ba")
BPS = 10_000

# --- scalar validators (the seed's rules and messages) ---------------------------------------


def _exact_text(name: str, value: object, *, maximum: int = 512) -> str:
    if type(value) is not str or not value.strip():
        raise ValueError(f"{name} must be non-empty exact str")
    if value != value.strip():
        raise ValueError(f"{name} must not have surrounding whitespace")
    if len(value) > maximum or any(ord(ch) < 32 for ch in value):
        raise ValueError(f"{name} is outside the bounded text contract")
    return value


def _canonical_id(name: str, value: object) -> str:
    text = _exact_text(name, value, maximum=96)
    if not ID_PATTERN.fullmatch(text):
        raise ValueError(f"{name} must be a canonical identifier")
    return text


def _exact_bool(name: str, value: object) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{name} must be exact bool")
    return value


def _exact_int(name: str, value: object, *, minimum: int, maximum: int) -> int:
    if type(value) is not int:
        raise ValueError(f"{name} must be exact int")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}")
    return value


def _choice(name: str, value: object) -> str:
    text = _exact_text(name, value, maximum=8)
    if text not in CANDIDATES:
        raise ValueError(f"{name} must be a, b, or tie")
    return text


def stable_digest(value: object) -> str:
    """SHA-256 of canonical JSON (sorted keys, no spaces, ASCII): the seed's content hash."""
    encoded = json.dumps(value, allow_nan=False, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return sha256(encoded.encode("utf-8")).hexdigest()


def rate_bps(numerator: int, denominator: int) -> int:
    """The seed's half-up basis points; 0 when there is no opportunity."""
    if denominator == 0:
        return 0
    return (numerator * BPS + denominator // 2) // denominator


@contextlib.contextmanager
def _naming(where: str) -> Iterator[None]:
    """Append the offending record to a seed message, keeping the seed's text as the prefix."""
    try:
        yield
    except ValueError as error:
        raise ValueError(f"{error} ({where})") from None


def _describe_reference(case_id: object) -> str:
    return f"reference case_id={case_id!r}"


def _describe_observation(case_id: object, order: object, repetition: object) -> str:
    return f"observation case_id={case_id!r}, order={order!r}, repetition={repetition!r}"


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HumanReference:
    case_id: str
    preferred_candidate: Candidate
    reviewer_ids: tuple[str, ...]
    adjudicated: bool

    def __post_init__(self) -> None:
        with _naming(_describe_reference(self.case_id)):
            _canonical_id("reference.case_id", self.case_id)
            _choice("reference.preferred_candidate", self.preferred_candidate)
            try:
                reviewers = tuple(self.reviewer_ids)
            except TypeError:
                raise ValueError("reference.reviewer_ids must be iterable") from None
            object.__setattr__(self, "reviewer_ids", reviewers)
            if not reviewers:
                raise ValueError("reference.reviewer_ids must not be empty")
            for reviewer in reviewers:
                _canonical_id("reference.reviewer_id", reviewer)
            if len(set(reviewers)) != len(reviewers):
                raise ValueError("reference.reviewer_ids must be unique")
            if tuple(sorted(reviewers)) != reviewers:
                raise ValueError("reference.reviewer_ids must be sorted")
            _exact_bool("reference.adjudicated", self.adjudicated)


@dataclass(frozen=True)
class JudgeObservation:
    case_id: str
    order: Order
    repetition: int
    selected_candidate: Candidate
    candidate_a_tokens: int
    candidate_b_tokens: int
    candidate_a_generator: str
    candidate_b_generator: str
    judge_generator: str

    def __post_init__(self) -> None:
        with _naming(_describe_observation(self.case_id, self.order, self.repetition)):
            _canonical_id("observation.case_id", self.case_id)
            if _exact_text("observation.order", self.order, maximum=2) not in ORDERS:
                raise ValueError("observation.order must be ab or ba")
            _exact_int("observation.repetition", self.repetition, minimum=1, maximum=100)
            _choice("observation.selected_candidate", self.selected_candidate)
            _exact_int("observation.candidate_a_tokens", self.candidate_a_tokens, minimum=1, maximum=1_000_000)
            _exact_int("observation.candidate_b_tokens", self.candidate_b_tokens, minimum=1, maximum=1_000_000)
            _canonical_id("observation.candidate_a_generator", self.candidate_a_generator)
            _canonical_id("observation.candidate_b_generator", self.candidate_b_generator)
            _canonical_id("observation.judge_generator", self.judge_generator)


REFERENCE_FIELDS = tuple(f.name for f in fields(HumanReference))
OBSERVATION_FIELDS = tuple(f.name for f in fields(JudgeObservation))


@dataclass(frozen=True)
class JudgeCalibrationContract:
    version: str
    scope: str
    judge_generator: str
    repetitions_per_order: int
    minimum_cases: int
    minimum_reviewers: int
    minimum_human_agreement_bps: int
    maximum_position_flip_bps: int
    maximum_repeat_variance_bps: int
    maximum_verbosity_bias_bps: int
    maximum_self_preference_bps: int

    def __post_init__(self) -> None:
        _canonical_id("contract.version", self.version)
        _canonical_id("contract.scope", self.scope)
        _canonical_id("contract.judge_generator", self.judge_generator)
        _exact_int("contract.repetitions_per_order", self.repetitions_per_order, minimum=2, maximum=20)
        _exact_int("contract.minimum_cases", self.minimum_cases, minimum=1, maximum=100_000)
        # The seed's ranges, which are the thresholds' legal ranges (agreebound.thresholds.RANGES).
        r = RANGES["minimum_reviewers"]
        _exact_int("contract.minimum_reviewers", self.minimum_reviewers, minimum=r.lo, maximum=r.hi)
        for _, name, _ in RATE_GATES:
            _exact_int(f"contract.{name}", getattr(self, name), minimum=RANGES[name].lo, maximum=RANGES[name].hi)

    @property
    def content_id(self) -> str:
        return CONTENT_ID_PREFIX + stable_digest(asdict(self))

    @property
    def thresholds(self) -> "CalibrationThresholds":
        return CalibrationThresholds.from_contract(self)

    def with_thresholds(self, thresholds: "CalibrationThresholds") -> "JudgeCalibrationContract":
        """The draft this contract becomes under edited thresholds (its own content id)."""
        return replace(self, **thresholds.contract_fields())


@dataclass(frozen=True)
class JudgeCalibrationSnapshot:
    scope: str
    contract_content_id: str
    rubric_digest: str
    references: tuple[HumanReference, ...]
    observations: tuple[JudgeObservation, ...]

    def __post_init__(self) -> None:
        _validate_snapshot_header(self.scope, self.contract_content_id, self.rubric_digest)
        try:
            references = tuple(self.references)
            observations = tuple(self.observations)
        except TypeError:
            raise ValueError("snapshot collections must be iterable") from None
        object.__setattr__(self, "references", references)
        object.__setattr__(self, "observations", observations)
        if not references or any(type(item) is not HumanReference for item in references):
            raise ValueError("references must contain exact HumanReference records")
        if not observations or any(type(item) is not JudgeObservation for item in observations):
            raise ValueError("observations must contain exact JudgeObservation records")
        seen: set[str] = set()
        for item in references:
            if item.case_id in seen:
                raise ValueError(f"reference case IDs must be unique (duplicate case_id={item.case_id!r})")
            seen.add(item.case_id)
        keys: set[tuple[str, str, int]] = set()
        for item in observations:
            key = (item.case_id, item.order, item.repetition)
            if key in keys:
                raise ValueError(f"observation keys must be unique (duplicate {_describe_observation(*key)})")
            keys.add(key)


def _validate_snapshot_header(scope: object, content_id: object, digest: object) -> None:
    _canonical_id("snapshot.scope", scope)
    text = _exact_text("snapshot.contract_content_id", content_id, maximum=96)
    if not CONTENT_ID_PATTERN.fullmatch(text):
        raise ValueError("snapshot.contract_content_id must be a judge calibration digest")
    text = _exact_text("snapshot.rubric_digest", digest, maximum=64)
    if not DIGEST_PATTERN.fullmatch(text):
        raise ValueError("snapshot.rubric_digest must be lowercase SHA-256")


# --- measurement -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """An exact rate: numerator / denominator; not evaluable when there is no opportunity."""

    name: str
    numerator: int
    denominator: int

    @property
    def evaluable(self) -> bool:
        return self.denominator > 0

    @property
    def value(self) -> Fraction | None:
        return Fraction(self.numerator, self.denominator) if self.denominator else None

    @property
    def bps(self) -> int:
        """The seed-compatible half-up basis points (0 when not evaluable)."""
        return rate_bps(self.numerator, self.denominator)


@dataclass(frozen=True)
class CalibrationMeasurement:
    """Everything :func:`decide` needs, computed once per input (the expensive part)."""

    contract: JudgeCalibrationContract
    scope: str
    contract_content_id: str
    rubric_digest: str
    n_cases: int
    n_observations: int
    human_agreement: Rate
    position_flip: Rate
    repeat_variance: Rate
    verbosity_bias: Rate
    self_preference: Rate
    #: One row per case, in reference order: case_id, preferred, reviewers, adjudicated,
    #: observations, agreements, verdict_ab / verdict_ba (None when unstable), majority_ab /
    #: majority_ba (None when tied), unstable_ab,
    #: unstable_ba, flip_opportunity, flipped, verbosity_opportunities, verbosity_errors,
    #: self_candidate, self_opportunities, self_errors.
    cases: pd.DataFrame = field(repr=False, compare=False)
    #: A partial audit: rate name -> why it cannot be computed from this source, in words
    #: ("the file has no candidate lengths"). Empty for the seed's full audit.
    unavailable: dict[str, str] = field(default_factory=dict, compare=False)
    #: A partial audit's notes on coverage ("12 cases have no human reference").
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: An out-of-core engine's measurement: the per-case sums (agreebound.judge_counts) instead of
    #: one row per case (``cases`` is then empty).
    counts: Any = field(default=None, compare=False, repr=False)
    #: False when the user gave no contract (a judge log alone): the contract is drafted from the
    #: log with the seed's illustrative limits, and :func:`decide` measures but never decides.
    contract_given: bool = field(default=True, compare=False)

    @property
    def rates(self) -> tuple[Rate, ...]:
        return tuple(getattr(self, name) for name, _, _ in RATE_GATES)

    @property
    def partial(self) -> bool:
        return bool(self.unavailable)

    @property
    def bound(self) -> bool:
        """The snapshot names this contract's content; a source without a contract is bound to none."""
        return self.contract_given and self.contract_content_id == self.contract.content_id

    def case_counts(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each rate split by case: name -> (y, m), int64 arrays over the cases that contribute
        observations to the rate (m > 0), y the case's share of the numerator, m of the denominator.

        Read from ``cases`` (no number is recomputed): human agreement = agreements / observations,
        position flip = flipped / flip opportunity (at most one per case), repeat variance =
        unstable orders / 2, verbosity and self-preference = errors / opportunities. In a partial
        audit the gates that need a reference count only the cases that have one, as the rates do.
        A rate is left out when its per-case counts do not add up to its numerator and denominator
        (a source whose per-case facts do not carry it); callers then fall back to observations.
        """
        c = self.cases
        ref = c["has_reference"].to_numpy(dtype=bool) if "has_reference" in c else np.ones(len(c), dtype=bool)
        every = np.ones(len(c), dtype=bool)

        def col(name: str) -> np.ndarray:
            return c[name].to_numpy().astype(np.int64)

        try:
            columns = {
                "human_agreement": (col("agreements"), col("observations"), ref),
                "position_flip": (col("flipped"), col("flip_opportunity"), every),
                "repeat_variance": (col("unstable_ab") + col("unstable_ba"), np.full(len(c), 2, dtype=np.int64), every),
                "verbosity_bias": (col("verbosity_errors"), col("verbosity_opportunities"), ref),
                "self_preference": (col("self_errors"), col("self_opportunities"), ref),
            }
        except (KeyError, TypeError, ValueError):
            return {}
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for rate in self.rates:
            y, m, keep = columns[rate.name]
            keep = keep & (m > 0)
            y, m = y[keep], m[keep]
            if int(y.sum()) == rate.numerator and int(m.sum()) == rate.denominator and bool((y <= m).all()):
                out[rate.name] = (y, m)
        return out

    def rate_stats(self) -> dict[str, Any]:
        """Each rate's per-case sums (judge_counts.RateStats), for the case-aware intervals."""
        if self.counts is not None:
            return dict(self.counts.rates)
        from agreebound.judge_counts import rate_stats

        return {name: rate_stats(y, m) for name, (y, m) in self.case_counts().items()}


@dataclass(frozen=True)
class _Arrays:
    """Validated input as columns: the one form the metric code reads."""

    case_ids: list[str]
    preferred: np.ndarray  # per case: 0 a, 1 b, 2 tie
    reviewers: np.ndarray  # per case: reviewer count
    adjudicated: np.ndarray  # per case: bool
    obs_case: np.ndarray  # per observation: index into cases
    obs_order: np.ndarray  # 0 ab, 1 ba
    obs_selected: np.ndarray  # 0 a, 1 b, 2 tie
    # per case (stable across observations, validated): tokens and generator relations
    a_tokens: np.ndarray
    b_tokens: np.ndarray
    a_is_judge: np.ndarray
    b_is_judge: np.ndarray
    same_generator: np.ndarray


def _measure_arrays(contract: JudgeCalibrationContract, header: tuple[str, str, str], x: _Arrays) -> CalibrationMeasurement:
    n_cases, n_obs = len(x.case_ids), len(x.obs_case)
    sel = x.obs_selected
    pref_obs = x.preferred[x.obs_case]
    agree_obs = sel == pref_obs

    # Repeat variance: a (case, order) group is unstable when its repetitions disagree.
    group = x.obs_case * 2 + x.obs_order
    counts = np.bincount(group * 3 + sel, minlength=n_cases * 6).reshape(n_cases * 2, 3)
    distinct = (counts > 0).sum(axis=1)
    unstable = distinct > 1
    # no verdict for an order without observations (only a partial audit's log can lack one)
    verdict = np.where(unstable | (distinct == 0), -1, counts.argmax(axis=1)).reshape(n_cases, 2)
    # The per-order majority (None when the top count is shared): used by the diagnostics.
    top = counts.max(axis=1)
    majority = np.where((counts == top[:, None]).sum(axis=1) == 1, counts.argmax(axis=1), -1).reshape(n_cases, 2)
    unstable2 = unstable.reshape(n_cases, 2)

    # Position flip: among cases whose both orders are stable.
    flip_opp = (verdict >= 0).all(axis=1)
    flipped = flip_opp & (verdict[:, 0] != verdict[:, 1])

    # Verbosity: the human preferred the shorter candidate; the judge picked the longer one.
    verb_case = np.full(n_cases, -1)  # the "longer" candidate code to count as an error
    verb_case[(x.preferred == 0) & (x.a_tokens < x.b_tokens)] = 1
    verb_case[(x.preferred == 1) & (x.b_tokens < x.a_tokens)] = 0
    # Self-preference: one candidate is the judge's own, the other is not, and humans preferred
    # the other one (not a tie); the judge picked its own.
    self_cand = np.full(n_cases, -1)
    self_cand[x.a_is_judge & ~x.same_generator] = 0
    self_cand[(self_cand < 0) & x.b_is_judge & ~x.same_generator] = 1
    self_opp_case = (self_cand >= 0) & (x.preferred != self_cand) & (x.preferred != 2)

    obs_per_case = np.bincount(x.obs_case, minlength=n_cases)
    verb_opp_case = np.where(verb_case >= 0, obs_per_case, 0)
    verb_err_case = np.bincount(x.obs_case, weights=(sel == verb_case[x.obs_case]) & (verb_case[x.obs_case] >= 0),
                                minlength=n_cases).astype(np.int64)
    self_opp_obs = self_opp_case[x.obs_case]
    self_opp_n = np.where(self_opp_case, obs_per_case, 0)
    self_err_case = np.bincount(x.obs_case, weights=self_opp_obs & (sel == self_cand[x.obs_case]),
                                minlength=n_cases).astype(np.int64)
    agree_case = np.bincount(x.obs_case, weights=agree_obs, minlength=n_cases).astype(np.int64)

    labels = np.array(["a", "b", "tie", None], dtype=object)
    cases = pd.DataFrame(
        {
            "case_id": x.case_ids,
            "preferred": labels[x.preferred],
            "reviewers": x.reviewers,
            "adjudicated": x.adjudicated,
            "observations": obs_per_case,
            "agreements": agree_case,
            "verdict_ab": labels[verdict[:, 0]],
            "verdict_ba": labels[verdict[:, 1]],
            "majority_ab": labels[majority[:, 0]],
            "majority_ba": labels[majority[:, 1]],
            "unstable_ab": unstable2[:, 0],
            "unstable_ba": unstable2[:, 1],
            "flip_opportunity": flip_opp,
            "flipped": flipped,
            "verbosity_opportunities": verb_opp_case,
            "verbosity_errors": verb_err_case,
            "self_candidate": labels[self_cand],
            "self_opportunities": self_opp_n,
            "self_errors": self_err_case,
        }
    )
    return CalibrationMeasurement(
        contract=contract,
        scope=header[0],
        contract_content_id=header[1],
        rubric_digest=header[2],
        n_cases=n_cases,
        n_observations=n_obs,
        human_agreement=Rate("human_agreement", int(agree_obs.sum()), n_obs),
        position_flip=Rate("position_flip", int(flipped.sum()), int(flip_opp.sum())),
        repeat_variance=Rate("repeat_variance", int(unstable.sum()), 2 * n_cases),
        verbosity_bias=Rate("verbosity_bias", int(verb_err_case.sum()), int(verb_opp_case.sum())),
        self_preference=Rate("self_preference", int(self_err_case.sum()), int(self_opp_n.sum())),
        cases=cases,
    )


_CODE = {"a": 0, "b": 1, "tie": 2}


def _rebuild_contract(value: object) -> JudgeCalibrationContract:
    if type(value) is not JudgeCalibrationContract:
        raise ValueError("contract must be exact JudgeCalibrationContract")
    try:
        return JudgeCalibrationContract(*(getattr(value, f.name) for f in fields(JudgeCalibrationContract)))
    except (AttributeError, TypeError):
        raise ValueError("contract failed reconstruction") from None


def _rebuild_snapshot(value: object) -> JudgeCalibrationSnapshot:
    """Re-validate every record: a frozen dataclass can still be mutated behind our back."""
    if type(value) is not JudgeCalibrationSnapshot:
        raise ValueError("snapshot must be exact JudgeCalibrationSnapshot")
    try:
        refs = []
        for item in value.references:
            if type(item) is not HumanReference:
                raise ValueError("references must contain exact HumanReference records")
            refs.append(HumanReference(*(getattr(item, n) for n in REFERENCE_FIELDS)))
        obs = []
        for item in value.observations:
            if type(item) is not JudgeObservation:
                raise ValueError("observations must contain exact JudgeObservation records")
            obs.append(JudgeObservation(*(getattr(item, n) for n in OBSERVATION_FIELDS)))
        return JudgeCalibrationSnapshot(value.scope, value.contract_content_id, value.rubric_digest, tuple(refs), tuple(obs))
    except (AttributeError, TypeError):
        raise ValueError("snapshot failed reconstruction") from None


def _check_binding(contract: JudgeCalibrationContract, scope: str, content_id: str, n_cases: int) -> None:
    if scope != contract.scope:
        raise ValueError(f"snapshot belongs to another scope (snapshot {scope!r}, contract {contract.scope!r})")
    if content_id != contract.content_id:
        raise ValueError(f"snapshot is not bound to this contract content (snapshot {content_id}; expected "
                         f"{contract.content_id}, this contract's content id)")
    if n_cases < contract.minimum_cases:
        raise ValueError(
            f"snapshot has fewer cases than the calibration contract ({n_cases} < {contract.minimum_cases})"
        )


def measure(contract: object, snapshot: object) -> CalibrationMeasurement:
    """Validate as the seed does, then measure every rate exactly (record path)."""
    return _measure_records(_rebuild_contract(contract), _rebuild_snapshot(snapshot))


def _measure_records(c: JudgeCalibrationContract, s: JudgeCalibrationSnapshot) -> CalibrationMeasurement:
    index = {ref.case_id: i for i, ref in enumerate(s.references)}
    _check_binding(c, s.scope, s.contract_content_id, len(index))
    metadata: dict[str, tuple[int, int, str, str]] = {}
    present: dict[tuple[str, str], set[int]] = {}
    for ob in s.observations:
        where = _describe_observation(ob.case_id, ob.order, ob.repetition)
        if ob.case_id not in index:
            raise ValueError(f"observation has no human reference ({where})")
        if ob.judge_generator != c.judge_generator:
            raise ValueError(f"observation uses another judge generator ({where}: {ob.judge_generator!r}, contract {c.judge_generator!r})")
        current = (ob.candidate_a_tokens, ob.candidate_b_tokens, ob.candidate_a_generator, ob.candidate_b_generator)
        if metadata.setdefault(ob.case_id, current) != current:
            raise ValueError(f"candidate metadata changes across observations ({where})")
        present.setdefault((ob.case_id, ob.order), set()).add(ob.repetition)
    expected = set(range(1, c.repetitions_per_order + 1))
    for case_id in index:
        for order in ORDERS:
            got = present.get((case_id, order), set())
            if got != expected:
                raise ValueError(_completeness_message(case_id, order, got, c.repetitions_per_order))
    meta = [metadata[ref.case_id] for ref in s.references]
    x = _Arrays(
        case_ids=[ref.case_id for ref in s.references],
        preferred=np.array([_CODE[ref.preferred_candidate] for ref in s.references], dtype=np.int64),
        reviewers=np.array([len(ref.reviewer_ids) for ref in s.references], dtype=np.int64),
        adjudicated=np.array([ref.adjudicated for ref in s.references], dtype=bool),
        obs_case=np.array([index[ob.case_id] for ob in s.observations], dtype=np.int64),
        obs_order=np.array([ob.order == "ba" for ob in s.observations], dtype=np.int64),
        obs_selected=np.array([_CODE[ob.selected_candidate] for ob in s.observations], dtype=np.int64),
        a_tokens=np.array([m[0] for m in meta], dtype=np.int64),
        b_tokens=np.array([m[1] for m in meta], dtype=np.int64),
        a_is_judge=np.array([m[2] == c.judge_generator for m in meta], dtype=bool),
        b_is_judge=np.array([m[3] == c.judge_generator for m in meta], dtype=bool),
        same_generator=np.array([m[2] == m[3] for m in meta], dtype=bool),
    )
    return _measure_arrays(c, (s.scope, s.contract_content_id, s.rubric_digest), x)


def _completeness_message(case_id: str, order: str, got: set[int], repetitions: int) -> str:
    want = set(range(1, repetitions + 1))
    missing = sorted(want - got)
    extra = sorted(got - want)
    detail = []
    if missing:
        detail.append(f"missing repetition(s) {missing}")
    if extra:
        detail.append(f"undeclared repetition(s) {extra}")
    return (f"each case requires every declared order and repetition (case_id={case_id!r}, order={order!r}: "
            f"{'; '.join(detail)}; the contract declares 1..{repetitions})")


# --- deciding --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RateCheck:
    name: str
    rate: Rate
    kind: str  # "min" or "max"
    threshold_bps: int
    passed: bool  # exact comparison (and, in strict mode, the 95% bound); no opportunity passes, as in the seed
    seed_passed: bool  # the seed's comparison of rounded bps
    #: strict mode's bound gate (the case-aware Wilson bound, uncertainty.judge_rate_intervals);
    #: None when not in strict mode
    bound_passed: bool | None = None
    unavailable: str | None = None  # a partial audit: why this gate cannot be evaluated

    @property
    def threshold(self) -> Fraction:
        return Fraction(self.threshold_bps, BPS)

    @property
    def margin(self) -> Fraction | None:
        """How far the rate lies on the passing side of the threshold (negative = failing)."""
        v = self.rate.value
        if v is None:
            return None
        return v - self.threshold if self.kind == "min" else self.threshold - v


#: How the illustrative limits are named wherever they appear: they are an example, not a contract.
ILLUSTRATIVE_LIMITS = "illustrative limits (the seed's example), not a contract"
#: The reason a source without a contract is not decided (with the seed's illustrative limits).
NO_CONTRACT_REASON = "no contract: measured against illustrative limits"
#: ... and with thresholds the user set (a preset, a file, an edit) but still no contract.
NO_CONTRACT_THRESHOLDS_REASON = "no contract: measured against the thresholds in force, not a contract"


@dataclass(frozen=True)
class CalibrationDecision:
    decision: Decision
    checks: tuple[RateCheck, ...]
    reference_issues: tuple[str, ...]
    thresholds: CalibrationThresholds
    decided_against: JudgeCalibrationContract  # the bound contract, or a draft of it
    bound_content_id: str  # the contract the measurement was bound to
    seed_decision: Decision  # what the seed's rounded bps decide under the same thresholds
    #: Where the contract came from: "given" (by the user: a bundle, the trio, --contract), or no
    #: contract at all and the gates measured against "illustrative" limits (the seed's example)
    #: or the "thresholds" in force (a preset, a file, an edit). Without a contract nothing is decided.
    contract_origin: str = "given"
    #: Why the decision is INCOMPLETE, in words (None otherwise).
    reason: str | None = None

    @property
    def contract_given(self) -> bool:
        return self.contract_origin == "given"

    @property
    def against_bound(self) -> bool:
        return self.decided_against.content_id == self.bound_content_id

    @property
    def contract_kind(self) -> str:
        """"bound" or "draft" (edited thresholds) for a contract the user gave; "illustrative" or
        "thresholds" when there is no contract (nothing is bound, nothing is decided)."""
        if not self.contract_given:
            return self.contract_origin
        return "bound" if self.against_bound else "draft"

    @property
    def limits_text(self) -> str:
        """What the gates were measured against, in words."""
        if self.contract_origin == "illustrative":
            return ILLUSTRATIVE_LIMITS
        if self.contract_origin == "thresholds":
            return "the thresholds in force, not a contract (none was given)"
        return f"the {self.contract_kind} contract"

    @property
    def seed_disagrees(self) -> bool:
        return self.seed_decision != self.decision

    @property
    def failed_checks(self) -> tuple[RateCheck, ...]:
        return tuple(c for c in self.checks if not c.passed)


def _reference_issues(cases: pd.DataFrame, minimum_reviewers: int) -> tuple[str, ...]:
    if "has_reference" in cases:  # a partial audit: only the cases that have a reference
        cases = cases[cases["has_reference"].to_numpy(dtype=bool)]
    ids = cases["case_id"].astype(object)
    issues = ["reviewers:" + i for i in ids[cases["reviewers"].to_numpy() < minimum_reviewers]]
    issues += ["adjudication:" + i for i in ids[~cases["adjudicated"].to_numpy(dtype=bool)]]
    return tuple(sorted(issues))


def decide(measurement: CalibrationMeasurement, thresholds: CalibrationThresholds | None = None) -> CalibrationDecision:
    """The calibration decision: the only place rates meet thresholds (exact fractions).

    ``thresholds`` defaults to the contract's own; edited thresholds make a draft contract with
    its own content id, named in the decision. A measurement without a contract the user gave
    (``contract_given`` False) is measured against its limits but never decided: INCOMPLETE, with
    the reason (:data:`NO_CONTRACT_REASON`).
    """
    th = thresholds if thresholds is not None else measurement.contract.thresholds
    if not isinstance(th, CalibrationThresholds):
        raise ValueError("thresholds must be CalibrationThresholds")
    checks = []
    intervals: dict[str, Any] | None = None  # strict mode's bounds, computed on first use
    for name, field_name, kind in RATE_GATES:
        rate: Rate = getattr(measurement, name)
        t = getattr(th, field_name)
        if name in measurement.unavailable:
            checks.append(RateCheck(name, rate, kind, t, False, False, None, measurement.unavailable[name]))
            continue
        if kind == "min":
            passed = rate.numerator * BPS >= t * rate.denominator if rate.denominator else 0 >= t
            seed_passed = rate.bps >= t
        else:
            passed = rate.numerator * BPS <= t * rate.denominator
            seed_passed = rate.bps <= t
        bound_passed = None
        if th.strict and rate.denominator:
            # the case-aware interval (observations of one case are not independent); the
            # observation-level Wilson only if the rate has no per-case counts
            if intervals is None:
                intervals = judge_rate_intervals(measurement)
            w = intervals.get(name) or Wilson(rate.numerator, rate.denominator)
            limit = Fraction(t, BPS)
            bound_passed = w.low_at_least(limit) if kind == "min" else w.high_at_most(limit)
            passed = passed and bound_passed
        checks.append(RateCheck(name, rate, kind, t, passed, seed_passed, bound_passed))
    if measurement.counts is not None:
        issues = measurement.counts.issues(th.minimum_reviewers)[0]
    else:
        issues = _reference_issues(measurement.cases, th.minimum_reviewers)
    decision: Decision = PASS if not issues and all(c.passed for c in checks) else FAIL
    seed_decision: Decision = PASS if not issues and all(c.seed_passed for c in checks) else FAIL
    reason = None
    if measurement.partial:  # some gate cannot be evaluated: never a pass, and not a fail of the judge
        available_failed = any(not c.passed for c in checks if c.unavailable is None) or bool(issues)
        decision = seed_decision = FAIL if available_failed else INCOMPLETE
        if decision == INCOMPLETE:
            reason = (f"a partial audit: {sum(c.unavailable is not None for c in checks)} of {len(checks)} gates "
                      "cannot be evaluated from this source")
    origin = "given"
    if not measurement.contract_given:  # no contract: the gates are measured, nothing is decided
        illustrative = th.contract_fields() == ILLUSTRATIVE_CONTRACT.thresholds.contract_fields()
        origin = "illustrative" if illustrative else "thresholds"
        decision = seed_decision = INCOMPLETE
        reason = NO_CONTRACT_REASON if illustrative else NO_CONTRACT_THRESHOLDS_REASON
    return CalibrationDecision(
        decision=decision,
        checks=tuple(checks),
        reference_issues=issues,
        thresholds=th,
        decided_against=measurement.contract.with_thresholds(th),
        bound_content_id=measurement.contract.content_id,
        seed_decision=seed_decision,
        contract_origin=origin,
        reason=reason,
    )


# --- the seed's report -----------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationReport:
    contract: JudgeCalibrationContract
    snapshot: Any  # JudgeCalibrationSnapshot, or a FrameSnapshot from the frames path
    decision: Decision
    human_agreement_bps: int
    position_flip_bps: int
    repeat_variance_bps: int
    verbosity_bias_bps: int
    self_preference_bps: int
    reference_issues: tuple[str, ...]
    measurement: CalibrationMeasurement | None = field(default=None, repr=False, compare=False)


def _seed_report(measurement: CalibrationMeasurement, snapshot: Any) -> CalibrationReport:
    d = decide(measurement)
    return CalibrationReport(
        measurement.contract,
        snapshot,
        d.seed_decision,  # the seed decides on rounded bps; decide() also reports the exact gate
        *(r.bps for r in measurement.rates),
        d.reference_issues,
        measurement,
    )


def audit_calibration(contract: object, snapshot: object) -> CalibrationReport:
    """The seed's audit: the same five bps, sorted reference issues and decision on every input."""
    c = _rebuild_contract(contract)
    s = _rebuild_snapshot(snapshot)
    return _seed_report(_measure_records(c, s), s)


# --- frames path -----------------------------------------------------------------------------


class FrameError(ValueError):
    """A frames-path error: the record path's message, plus where (frame, 0-based row, field)."""

    def __init__(self, message: str, frame: str | None = None, row: int | None = None, field: str | None = None):
        super().__init__(message)
        self.frame, self.row, self.field = frame, row, field


_FIELD_IN_MESSAGE = re.compile(r"^(?:reference|observation)\.(\w+)")


def _field_of(message: str, default: str | None = None) -> str | None:
    m = _FIELD_IN_MESSAGE.match(message)
    if not m:
        return default
    return "reviewer_ids" if m.group(1) == "reviewer_id" else m.group(1)


class FrameSnapshot:
    """A snapshot held as frames; records are built only if someone asks for them."""

    def __init__(self, scope: str, contract_content_id: str, rubric_digest: str,
                 references: pd.DataFrame, observations: pd.DataFrame) -> None:
        self.scope, self.contract_content_id, self.rubric_digest = scope, contract_content_id, rubric_digest
        self.reference_frame, self.observation_frame = references, observations

    @property
    def references(self) -> tuple[HumanReference, ...]:
        return tuple(HumanReference(*r) for r in _rows(self.reference_frame, REFERENCE_FIELDS))

    @property
    def observations(self) -> tuple[JudgeObservation, ...]:
        return tuple(JudgeObservation(*r) for r in _rows(self.observation_frame, OBSERVATION_FIELDS))


def _rows(frame: pd.DataFrame, names: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """Rows as Python values (numpy scalars become Python ints/bools, as a record holds them)."""
    columns = [frame[n].tolist() for n in names]
    return zip(*columns)


def _require_columns(frame: object, names: Sequence[str], what: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame")
    missing = [n for n in names if n not in frame.columns]
    extra = [str(c) for c in frame.columns if c not in names]
    if missing or extra:
        raise ValueError(f"{what} columns must be exactly {list(names)}; missing {missing}, unexpected {extra}")
    return frame.reset_index(drop=True)


@dataclass(frozen=True)
class _Factor:
    """A text column as codes into its distinct exact-str values (-1: missing or not a str)."""

    codes: np.ndarray
    uniques: list[str]

    def ok(self, valid: Any) -> np.ndarray:
        """Rows whose value satisfies ``valid`` (checked once per distinct value)."""
        table = np.fromiter((bool(valid(u)) for u in self.uniques), dtype=bool, count=len(self.uniques))
        return np.append(table, False)[self.codes]  # code -1 picks the appended False

    def mapped(self, mapping: dict[str, int]) -> np.ndarray:
        table = np.array([mapping.get(u, -1) for u in self.uniques] + [-1], dtype=np.int64)
        return table[self.codes]


def _factor(s: pd.Series) -> _Factor:
    if pd.api.types.is_string_dtype(s.dtype) and not pd.api.types.is_object_dtype(s.dtype):
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
        return _Factor(np.asarray(codes, dtype=np.int64), [str(u) for u in uniques])
    codes = np.full(len(s), -1, dtype=np.int64)
    if not pd.api.types.is_object_dtype(s.dtype):
        return _Factor(codes, [])
    values = s.to_numpy()
    is_str = np.fromiter((type(v) is str for v in values), dtype=bool, count=len(values))
    uniques: list[str] = []
    if is_str.any():
        c, u = pd.factorize(values[is_str], use_na_sentinel=True)
        codes[is_str] = c
        uniques = list(u)
    return _Factor(codes, uniques)


def _ok_int(s: pd.Series, lo: int, hi: int) -> np.ndarray:
    if pd.api.types.is_integer_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        if s.isna().any():  # nullable Int64 with <NA>
            return (s.notna() & s.between(lo, hi)).to_numpy(dtype=bool)
        v = s.to_numpy()
        return (v >= lo) & (v <= hi)
    if pd.api.types.is_object_dtype(s.dtype):
        return np.fromiter((type(v) is int and lo <= v <= hi for v in s.array), dtype=bool, count=len(s))
    return np.zeros(len(s), dtype=bool)


def _ok_bool(s: pd.Series) -> np.ndarray:
    if pd.api.types.is_bool_dtype(s.dtype) and not s.isna().any():
        return np.ones(len(s), dtype=bool)
    if pd.api.types.is_object_dtype(s.dtype):
        return np.fromiter((type(v) is bool for v in s.array), dtype=bool, count=len(s))
    return np.zeros(len(s), dtype=bool)


def _valid_reviewers(items: tuple[Any, ...]) -> bool:
    return bool(items) and all(type(r) is str and ID_PATTERN.fullmatch(r) for r in items) and all(
        a < b for a, b in zip(items, items[1:]))


def _ok_reviewers(s: pd.Series) -> np.ndarray:
    """Rows whose reviewer_ids is a tuple/list of strictly increasing canonical ids."""
    values = s.to_numpy()
    kinds = np.fromiter((type(v) is tuple for v in values), dtype=bool, count=len(values))
    out = np.zeros(len(values), dtype=bool)
    if kinds.any():  # tuples of strings hash: validate each distinct tuple once
        hashable = np.fromiter((kinds[i] and all(type(r) is str for r in values[i]) for i in range(len(values))),
                               dtype=bool, count=len(values))
        if hashable.any():
            codes, uniques = pd.factorize(values[hashable])
            table = np.fromiter((_valid_reviewers(u) for u in uniques), dtype=bool, count=len(uniques))
            out[hashable] = table[codes]
    for i in np.flatnonzero(~kinds):
        v = values[i]
        if isinstance(v, (list, np.ndarray)):
            out[i] = _valid_reviewers(tuple(_py(v)))
    return out


def _first_failure(frame: pd.DataFrame, masks: list[np.ndarray], names: Sequence[str], build: Any) -> None:
    """Raise the record path's exact error for the first row any fast mask doubts."""
    ok = np.logical_and.reduce(masks) if masks else np.ones(len(frame), dtype=bool)
    doubtful = np.flatnonzero(~ok)
    if len(doubtful) == 0:
        return
    columns = {n: frame[n].array for n in names}
    what = "references" if build is HumanReference else "observations"
    for i in doubtful:
        try:
            build(*(_py(columns[n][i]) for n in names))  # raises the record path's message, or passes
        except ValueError as error:
            raise FrameError(str(error), what, int(i), _field_of(str(error))) from None


def _py(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return tuple(_py(x) for x in v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if v is pd.NA:
        return None
    return v


def _is_id(u: str) -> bool:
    return ID_PATTERN.fullmatch(u) is not None


def measure_frames(contract: object, references: pd.DataFrame, observations: pd.DataFrame, *,
                   scope: object, contract_content_id: object, rubric_digest: object) -> CalibrationMeasurement:
    """:func:`measure` for frames: the same results and the same error conditions, vectorized.

    A frame's cell is read as the record would hold it: an int64 column holds ints, a bool
    column bools, an object column whatever objects it holds; ``reviewer_ids`` is a tuple or
    list per row.  Text is validated once per distinct value, not once per row.
    """
    c = _rebuild_contract(contract)
    refs = _require_columns(references, REFERENCE_FIELDS, "references")
    obs = _require_columns(observations, OBSERVATION_FIELDS, "observations")
    rf = {n: _factor(refs[n]) for n in ("case_id", "preferred_candidate")}
    of = {n: _factor(obs[n]) for n in ("case_id", "order", "selected_candidate", "candidate_a_generator",
                                       "candidate_b_generator", "judge_generator")}
    in_candidates = CANDIDATES.__contains__
    _first_failure(refs, [
        rf["case_id"].ok(_is_id), rf["preferred_candidate"].ok(in_candidates),
        _ok_reviewers(refs["reviewer_ids"]), _ok_bool(refs["adjudicated"]),
    ], REFERENCE_FIELDS, HumanReference)
    _first_failure(obs, [
        of["case_id"].ok(_is_id), of["order"].ok(ORDERS.__contains__), _ok_int(obs["repetition"], 1, 100),
        of["selected_candidate"].ok(in_candidates),
        _ok_int(obs["candidate_a_tokens"], 1, 1_000_000), _ok_int(obs["candidate_b_tokens"], 1, 1_000_000),
        of["candidate_a_generator"].ok(_is_id), of["candidate_b_generator"].ok(_is_id),
        of["judge_generator"].ok(_is_id),
    ], OBSERVATION_FIELDS, JudgeObservation)

    try:
        _validate_snapshot_header(scope, contract_content_id, rubric_digest)
    except ValueError as error:
        raise FrameError(str(error), "snapshot", None, str(error).split(" ")[0].removeprefix("snapshot.")) from None
    if len(refs) == 0:
        raise FrameError("references must contain exact HumanReference records", "references")
    if len(obs) == 0:
        raise FrameError("observations must contain exact JudgeObservation records", "observations")
    ref_codes = rf["case_id"].codes  # all valid now: distinct codes <=> distinct case ids
    dup = pd.Series(ref_codes).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError(f"reference case IDs must be unique (duplicate case_id={rf['case_id'].uniques[ref_codes[i]]!r})",
                         "references", i, "case_id")
    o_case_code = of["case_id"].codes
    o_order = of["order"].mapped({"ab": 0, "ba": 1})
    o_rep = obs["repetition"].to_numpy().astype(np.int64)
    key = o_case_code * 200 + o_order * 100 + (o_rep - 1)  # repetition is 1..100 here
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError("observation keys must be unique (duplicate "
                         f"{_describe_observation(of['case_id'].uniques[o_case_code[i]], ORDERS[o_order[i]], int(o_rep[i]))})",
                         "observations", i, "repetition")

    try:
        _check_binding(c, scope, contract_content_id, len(refs))  # type: ignore[arg-type]
    except ValueError as error:
        text = str(error)
        field = "scope" if "scope" in text else "contract_content_id" if "bound" in text else None
        raise FrameError(text, "snapshot", None, field) from None

    # Per observation, in order: has a reference, the contract's judge, the case's first metadata.
    n_refs = len(refs)
    ref_of_unique = pd.Index(rf["case_id"].uniques).get_indexer(of["case_id"].uniques)
    obs_case = np.append(ref_of_unique, -1)[o_case_code]
    no_ref = obs_case < 0
    other_judge = ~of["judge_generator"].ok(c.judge_generator.__eq__)
    a_tok = obs["candidate_a_tokens"].to_numpy().astype(np.int64)
    b_tok = obs["candidate_b_tokens"].to_numpy().astype(np.int64)
    a_gen, b_gen = of["candidate_a_generator"].codes, of["candidate_b_generator"].codes
    safe_case = np.where(no_ref, 0, obs_case)
    first = np.full(n_refs, -1, dtype=np.int64)
    valid_rows = np.flatnonzero(~no_ref & ~other_judge)
    first[safe_case[valid_rows][::-1]] = valid_rows[::-1]  # reversed assignment keeps the earliest row
    f = first[safe_case]
    f_ok = f >= 0
    f_safe = np.where(f_ok, f, 0)
    changed = f_ok & ((a_tok != a_tok[f_safe]) | (b_tok != b_tok[f_safe])
                      | (a_gen != a_gen[f_safe]) | (b_gen != b_gen[f_safe]))
    bad = no_ref | other_judge | changed
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = _describe_observation(of["case_id"].uniques[o_case_code[i]], ORDERS[o_order[i]], int(o_rep[i]))
        if no_ref[i]:
            raise FrameError(f"observation has no human reference ({where})", "observations", i, "case_id")
        if other_judge[i]:
            raise FrameError(f"observation uses another judge generator ({where}: "
                             f"{obs['judge_generator'].iloc[i]!r}, contract {c.judge_generator!r})",
                             "observations", i, "judge_generator")
        j = int(f_safe[i])
        changed_field = next(n for n, v in (("candidate_a_tokens", a_tok), ("candidate_b_tokens", b_tok),
                                             ("candidate_a_generator", a_gen), ("candidate_b_generator", b_gen))
                             if v[i] != v[j])
        raise FrameError(f"candidate metadata changes across observations ({where})", "observations", i, changed_field)

    # Every (case, order) holds exactly the repetitions 1..R (keys are unique already).
    reps = c.repetitions_per_order
    group = obs_case * 2 + o_order
    good = np.bincount(group[o_rep <= reps], minlength=2 * n_refs)
    total = np.bincount(group, minlength=2 * n_refs)
    incomplete = (good != reps) | (total != reps)
    if incomplete.any():
        g = int(np.flatnonzero(incomplete)[0])
        cid = rf["case_id"].uniques[ref_codes[g // 2]]
        raise FrameError(_completeness_message(cid, ORDERS[g % 2], set(o_rep[group == g].tolist()), reps),
                         "observations", None, "repetition")

    judge = c.judge_generator
    a_first, b_first = a_gen[first], b_gen[first]
    a_judge = np.append(of["candidate_a_generator"].ok(judge.__eq__), False)
    b_judge = np.append(of["candidate_b_generator"].ok(judge.__eq__), False)
    a_names = np.asarray(of["candidate_a_generator"].uniques, dtype=object)[a_first]
    b_names = np.asarray(of["candidate_b_generator"].uniques, dtype=object)[b_first]
    x = _Arrays(
        case_ids=[rf["case_id"].uniques[k] for k in ref_codes],
        preferred=rf["preferred_candidate"].mapped(_CODE),
        reviewers=refs["reviewer_ids"].map(len).to_numpy().astype(np.int64),
        adjudicated=refs["adjudicated"].to_numpy().astype(bool),
        obs_case=obs_case.astype(np.int64),
        obs_order=o_order,
        obs_selected=of["selected_candidate"].mapped(_CODE),
        a_tokens=a_tok[first],
        b_tokens=b_tok[first],
        a_is_judge=a_judge[first],
        b_is_judge=b_judge[first],
        same_generator=a_names == b_names,
    )
    return _measure_arrays(c, (scope, contract_content_id, rubric_digest), x)  # type: ignore[arg-type]


def audit_frames(contract: object, references: pd.DataFrame, observations: pd.DataFrame, *,
                 scope: object, contract_content_id: object, rubric_digest: object) -> CalibrationReport:
    """:func:`audit_calibration` on frames: identical results and identical error conditions."""
    m = measure_frames(contract, references, observations, scope=scope,
                       contract_content_id=contract_content_id, rubric_digest=rubric_digest)
    snap = FrameSnapshot(m.scope, m.contract_content_id, m.rubric_digest,
                         _require_columns(references, REFERENCE_FIELDS, "references"),
                         _require_columns(observations, OBSERVATION_FIELDS, "observations"))
    return _seed_report(m, snap)


def snapshot_frames(snapshot: JudgeCalibrationSnapshot) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The frames the frames path takes, from a record snapshot."""
    refs = pd.DataFrame([asdict(r) for r in snapshot.references], columns=list(REFERENCE_FIELDS))
    refs["reviewer_ids"] = [tuple(r.reviewer_ids) for r in snapshot.references]
    obs = pd.DataFrame([asdict(o) for o in snapshot.observations], columns=list(OBSERVATION_FIELDS))
    return refs, obs


# --- partial audits (judge logs that lack what some gates need) --------------------------------

#: What each gate needs besides the judge's verdicts.
GATE_NEEDS = {
    "human_agreement": ("references",),
    "position_flip": ("orders",),
    "repeat_variance": ("orders", "repetitions"),
    "verbosity_bias": ("references", "lengths"),
    "self_preference": ("references", "generators"),
}
#: Each need, missing, in words: what is missing and what supplies it; when only another log could
#: supply it (not a second file), it says this source never can. "repetitions" is said with the
#: contract's repetitions (:func:`lack_text`).
LACKS = {
    "references": "the source has no human references (give them as a second file)",
    "orders": "the source does not say in which order the candidates were shown (only a log that records each "
              "judgment's order supplies it: this source never can)",
    "repetitions": "this log has one judgment per order; the contract requires {repetitions} repetitions: "
                   "repeat variance cannot be evaluated (only a log that repeats each judgment supplies it)",
    "lengths": "the source has no candidate lengths (the answers' texts supply them, e.g. FastChat judge prompts "
               "that hold both answers, or candidate_a_tokens and candidate_b_tokens: this source has neither)",
    "generators": "the source does not name the candidates' generators (candidate_a_generator and "
                  "candidate_b_generator supply them: this source has neither)",
}


def lack_text(need: str, contract: JudgeCalibrationContract) -> str:
    return LACKS[need].format(repetitions=contract.repetitions_per_order)


def gate_advice(name: str, lacks: Sequence[str] | set[str], contract: JudgeCalibrationContract) -> str | None:
    """Why gate ``name`` cannot be evaluated: every need it lacks and what supplies each (None: it can)."""
    missing = [lack_text(need, contract) for need in GATE_NEEDS[name] if need in lacks]
    return "; and ".join(missing) if missing else None


def measure_partial(contract: JudgeCalibrationContract, observations: pd.DataFrame, references: pd.DataFrame | None,
                    lacks: Sequence[str], header: tuple[str, str, str]) -> CalibrationMeasurement:
    """The rates a judge log can support, with the seed's definitions, and why the others cannot.

    ``observations``: case_id, order ("ab"/"ba", or None when unknown), repetition,
    selected_candidate, candidate_a/b_tokens (or None), candidate_a/b_generator (or None).
    ``references``: case_id, preferred_candidate, reviewer_ids, adjudicated (or None). Cases
    without a reference count only in the gates that need no reference.
    """
    lacks = set(lacks) | ({"references"} if references is None or len(references) == 0 else set())
    obs = observations
    case_ids = list(pd.unique(obs["case_id"]))
    index = {c: i for i, c in enumerate(case_ids)}
    obs_case = obs["case_id"].map(index).to_numpy(dtype=np.int64)
    order = obs["order"].map({"ab": 0, "ba": 1}).fillna(0).to_numpy(dtype=np.int64)
    selected = obs["selected_candidate"].map(_CODE).to_numpy(dtype=np.int64)
    n = len(case_ids)
    first = np.full(n, -1, dtype=np.int64)
    first[obs_case[::-1]] = np.arange(len(obs))[::-1]

    def per_case(column: str, default: Any) -> np.ndarray:
        if column not in obs or obs[column].isna().all():
            return np.full(n, default, dtype=type(default) if not isinstance(default, str) else object)
        return obs[column].to_numpy()[first]

    a_tok, b_tok = per_case("candidate_a_tokens", 0), per_case("candidate_b_tokens", 0)
    a_gen, b_gen = per_case("candidate_a_generator", ""), per_case("candidate_b_generator", "")
    judge = contract.judge_generator
    if references is not None and len(references):
        ref = references.set_index("case_id")
        pref = np.array([_CODE.get(ref["preferred_candidate"].get(c), 2) if c in ref.index else 2 for c in case_ids])
        has_ref = np.array([c in ref.index for c in case_ids])
        reviewers = np.array([len(ref["reviewer_ids"][c]) if c in ref.index else 0 for c in case_ids], dtype=np.int64)
        adjudicated = np.array([bool(ref["adjudicated"][c]) if c in ref.index else False for c in case_ids])
    else:
        pref, has_ref = np.full(n, 2), np.zeros(n, dtype=bool)
        reviewers, adjudicated = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)

    def arrays(cases: np.ndarray) -> _Arrays:
        keep = np.isin(obs_case, np.flatnonzero(cases))
        remap = np.cumsum(cases) - 1
        return _Arrays([case_ids[i] for i in np.flatnonzero(cases)], pref[cases], reviewers[cases],
                       adjudicated[cases], remap[obs_case[keep]], order[keep], selected[keep],
                       np.asarray(a_tok[cases], dtype=np.int64), np.asarray(b_tok[cases], dtype=np.int64),
                       np.array([g == judge for g in a_gen[cases]], dtype=bool),
                       np.array([g == judge for g in b_gen[cases]], dtype=bool),
                       np.array([a == b for a, b in zip(a_gen[cases], b_gen[cases])], dtype=bool))

    everyone = _measure_arrays(contract, header, arrays(np.ones(n, dtype=bool)))
    referenced = _measure_arrays(contract, header, arrays(has_ref)) if has_ref.any() else None
    unavailable: dict[str, str] = {}
    for name in GATE_NEEDS:
        advice = gate_advice(name, lacks, contract)
        if advice:
            unavailable[name] = advice
    rates = {name: getattr(everyone, name) for name in ("position_flip", "repeat_variance")}
    for name in ("human_agreement", "verbosity_bias", "self_preference"):
        rates[name] = getattr(referenced, name) if referenced is not None else Rate(name, 0, 0)
    notes = []
    if referenced is not None and not has_ref.all():
        notes.append(f"{int((~has_ref).sum()):,} of {n:,} cases have no human reference: they count in position "
                     "flip and repeat variance only")
    cases = everyone.cases.copy()
    cases["has_reference"] = has_ref
    cases.loc[~has_ref, "preferred"] = None
    return CalibrationMeasurement(contract, *header, n, len(obs), rates["human_agreement"], rates["position_flip"],
                                  rates["repeat_variance"], rates["verbosity_bias"], rates["self_preference"], cases,
                                  unavailable, tuple(notes))


# --- the seed's illustrative example ---------------------------------------------------------


def _illustrative_observations(case_id: str, preferred: str, a_tokens: int, b_tokens: int,
                               a_generator: str, b_generator: str) -> tuple[JudgeObservation, ...]:
    return tuple(
        JudgeObservation(case_id, order, rep, preferred, a_tokens, b_tokens, a_generator, b_generator, "judge-v1")  # type: ignore[arg-type]
        for order in ORDERS
        for rep in (1, 2)
    )


ILLUSTRATIVE_CONTRACT = JudgeCalibrationContract(
    version="judge-calibration-v1",
    scope="support-answer-comparison",
    judge_generator="judge-v1",
    repetitions_per_order=2,
    minimum_cases=4,
    minimum_reviewers=2,
    minimum_human_agreement_bps=9000,
    maximum_position_flip_bps=500,
    maximum_repeat_variance_bps=500,
    maximum_verbosity_bias_bps=500,
    maximum_self_preference_bps=500,
)

ILLUSTRATIVE_REFERENCES = (
    HumanReference("case-accuracy", "a", ("reviewer:domain", "reviewer:quality"), True),
    HumanReference("case-refusal", "b", ("reviewer:policy", "reviewer:quality"), True),
    HumanReference("case-self", "a", ("reviewer:domain", "reviewer:quality"), True),
    HumanReference("case-tie", "tie", ("reviewer:domain", "reviewer:quality"), True),
)

ILLUSTRATIVE_OBSERVATIONS = (
    *_illustrative_observations("case-accuracy", "a", 80, 160, "candidate-a", "candidate-b"),
    *_illustrative_observations("case-refusal", "b", 150, 70, "candidate-a", "candidate-b"),
    *_illustrative_observations("case-self", "a", 90, 110, "candidate-a", "judge-v1"),
    *_illustrative_observations("case-tie", "tie", 100, 100, "candidate-a", "candidate-b"),
)

ILLUSTRATIVE_SNAPSHOT = JudgeCalibrationSnapshot(
    scope="support-answer-comparison",
    contract_content_id=ILLUSTRATIVE_CONTRACT.content_id,
    rubric_digest=sha256(b"illustrative-support-rubric-v1").hexdigest(),
    references=ILLUSTRATIVE_REFERENCES,
    observations=ILLUSTRATIVE_OBSERVATIONS,
)


def format_example() -> str:
    """The seed's eight illustrative lines, exactly."""
    report = audit_calibration(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)
    return "\n".join((
        "example=illustrative_only",
        f"calibration_id={report.contract.content_id}",
        f"cases={len(report.snapshot.references)};observations={len(report.snapshot.observations)}",
        f"human_agreement_bps={report.human_agreement_bps}",
        f"position_flip_bps={report.position_flip_bps};repeat_variance_bps={report.repeat_variance_bps}",
        f"verbosity_bias_bps={report.verbosity_bias_bps};self_preference_bps={report.self_preference_bps}",
        f"decision={report.decision}",
        "claim=LOCAL_DECLARED_LABEL_AUDIT_NOT_JUDGE_VALIDATION",
    ))


def main() -> None:
    print(format_example())


if __name__ == "__main__":
    main()
