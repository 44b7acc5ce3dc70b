"""A judge audit's inputs, as the seed names them: the contract (content-addressed), the human
references and the judge's observations, the snapshot that binds them, and each validation rule's
message, written once. The readers (agreebound.io) build these; calibration measures and decides
over them. The seed's illustrative example is here too, as data.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from hashlib import sha256
from typing import TYPE_CHECKING, Iterator, Literal, Protocol, get_args


from agreebound.core.errors import FieldError
from agreebound.core.thresholds import NET_FIELDS, NET_GATES, RANGES, RATE_GATES, CalibrationThresholds
from agreebound.core.json_types import JSONObject
from agreebound.judge.columns import Frame

if TYPE_CHECKING:
    import pandas as pd

Candidate = Literal["a", "b", "tie"]
Order = Literal["ab", "ba"]

ID_PATTERN = re.compile(r"^[a-z][a-z0-9._:-]{2,95}$")
DIGEST_PATTERN = re.compile(r"^[0-9a-f]{64}$")
CONTENT_ID_PATTERN = re.compile(r"judge-calibration@sha256:[0-9a-f]{64}")
CONTENT_ID_PREFIX = "judge-calibration@sha256:"
CANDIDATES: tuple[Candidate, ...] = get_args(Candidate)
#: An observation's legal repetitions and candidate lengths (the seed's ranges), 1..these.
MAX_REPETITION = 100
MAX_TOKENS = 1_000_000
ORDERS: tuple[Order, ...] = get_args(Order)
BPS = 10_000

# --- scalar validators (the seed's rules and messages) ---------------------------------------


# Each validator's ``name`` is "record.field" (the seed's words in its message); the FieldError it
# raises carries the field, or ``listed`` when given (a list's item names the list).


def _refused(name: str, rule: str, listed: str | None = None) -> FieldError:
    return FieldError(f"{name} {rule}", listed or name.partition(".")[2])


def _exact_text(name: str, value: object, *, maximum: int = 512, listed: str | None = None) -> str:
    if type(value) is not str or not value.strip():
        raise _refused(name, "must be non-empty exact str", listed)
    if value != value.strip():
        raise _refused(name, "must not have surrounding whitespace", listed)
    if len(value) > maximum or any(ord(ch) < 32 for ch in value):
        raise _refused(name, "is outside the bounded text contract", listed)
    return value


def _canonical_id(name: str, value: object, listed: str | None = None) -> str:
    text = _exact_text(name, value, maximum=96, listed=listed)
    if not ID_PATTERN.fullmatch(text):
        raise _refused(name, "must be a canonical identifier", listed)
    return text


def _exact_bool(name: str, value: object) -> bool:
    if type(value) is not bool:
        raise _refused(name, "must be exact bool")
    return value


def _exact_int(name: str, value: object, *, minimum: int, maximum: int) -> int:
    if type(value) is not int:
        raise _refused(name, "must be exact int")
    if not minimum <= value <= maximum:
        raise _refused(name, f"must be between {minimum} and {maximum}")
    return value


def _choice(name: str, value: object) -> str:
    text = _exact_text(name, value, maximum=8)
    if text not in CANDIDATES:
        raise _refused(name, "must be a, b, or tie")
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
        raise FieldError(f"{error} ({where})", field_of(error)) from None


def _describe_reference(case_id: object) -> str:
    return f"reference case_id={case_id!r}"


def describe_observation(case_id: object, order: object, repetition: object) -> str:
    return f"observation case_id={case_id!r}, order={order!r}, repetition={repetition!r}"


def field_of(error: Exception) -> str | None:
    """The record field a refused value names (a :class:`FieldError`'s field), else None."""
    return error.field if isinstance(error, FieldError) else None


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
                raise _refused("reference.reviewer_ids", "must be iterable") from None
            object.__setattr__(self, "reviewer_ids", reviewers)
            if not reviewers:
                raise _refused("reference.reviewer_ids", "must not be empty")
            for reviewer in reviewers:
                _canonical_id("reference.reviewer_id", reviewer, listed="reviewer_ids")
            if len(set(reviewers)) != len(reviewers):
                raise _refused("reference.reviewer_ids", "must be unique")
            if tuple(sorted(reviewers)) != reviewers:
                raise _refused("reference.reviewer_ids", "must be sorted")
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
        with _naming(describe_observation(self.case_id, self.order, self.repetition)):
            _canonical_id("observation.case_id", self.case_id)
            if _exact_text("observation.order", self.order, maximum=2) not in ORDERS:
                raise _refused("observation.order", "must be ab or ba")
            _exact_int("observation.repetition", self.repetition, minimum=1, maximum=MAX_REPETITION)
            _choice("observation.selected_candidate", self.selected_candidate)
            _exact_int("observation.candidate_a_tokens", self.candidate_a_tokens, minimum=1, maximum=MAX_TOKENS)
            _exact_int("observation.candidate_b_tokens", self.candidate_b_tokens, minimum=1, maximum=MAX_TOKENS)
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
    #: Optional (contract version 2): gate on the bias net of general disagreement
    #: (thresholds.NET_GATES). A contract without them is the seed's: same fields, same content id.
    maximum_verbosity_net_bps: int | None = None
    maximum_self_preference_net_bps: int | None = None

    def __post_init__(self) -> None:
        _canonical_id("contract.version", self.version)
        _canonical_id("contract.scope", self.scope)
        _canonical_id("contract.judge_generator", self.judge_generator)
        _exact_int("contract.repetitions_per_order", self.repetitions_per_order, minimum=2, maximum=20)
        _exact_int("contract.minimum_cases", self.minimum_cases, minimum=1, maximum=100_000)
        # The seed's ranges, which are the thresholds' legal ranges (agreebound.core.thresholds.RANGES).
        r = RANGES["minimum_reviewers"]
        _exact_int("contract.minimum_reviewers", self.minimum_reviewers, minimum=r.lo, maximum=r.hi)
        for _, name, _ in RATE_GATES:
            _exact_int(f"contract.{name}", getattr(self, name), minimum=RANGES[name].lo, maximum=RANGES[name].hi)
        for _, name, _ in NET_GATES:
            if getattr(self, name) is not None:
                _exact_int(f"contract.{name}", getattr(self, name), minimum=RANGES[name].lo, maximum=RANGES[name].hi)

    def to_dict(self) -> JSONObject:
        """The contract's fields as data: an opt-in gate only when it is set, so a contract without
        them reads (and hashes) exactly as the seed's."""
        return {k: v for k, v in asdict(self).items() if not (k in NET_FIELDS and v is None)}

    @property
    def net_gated(self) -> bool:
        """The contract opts in to gating on a bias measure net of disagreement (version 2)."""
        return any(getattr(self, name) is not None for name in NET_FIELDS)

    @property
    def content_id(self) -> str:
        return CONTENT_ID_PREFIX + stable_digest(self.to_dict())

    @property
    def thresholds(self) -> "CalibrationThresholds":
        return CalibrationThresholds.from_contract(self)

    def with_thresholds(self, thresholds: "CalibrationThresholds") -> "JudgeCalibrationContract":
        """The draft this contract becomes under edited thresholds (its own content id)."""
        # contract_fields names only this contract's threshold fields (ints, or None for an unset opt-in gate)
        return replace(self, **thresholds.contract_fields())  # type: ignore[arg-type]


@dataclass(frozen=True)
class JudgeCalibrationSnapshot:
    scope: str
    contract_content_id: str
    rubric_digest: str
    references: tuple[HumanReference, ...]
    observations: tuple[JudgeObservation, ...]

    def __post_init__(self) -> None:
        validate_snapshot_header(self.scope, self.contract_content_id, self.rubric_digest)
        try:
            references = tuple(self.references)
            observations = tuple(self.observations)
        except TypeError:
            raise ValueError("snapshot collections must be iterable") from None
        object.__setattr__(self, "references", references)
        object.__setattr__(self, "observations", observations)
        if not references or any(type(item) is not HumanReference for item in references):
            raise ValueError(NO_REFERENCES)
        if not observations or any(type(item) is not JudgeObservation for item in observations):
            raise ValueError(NO_OBSERVATIONS)
        seen: set[str] = set()
        for item in references:
            if item.case_id in seen:
                raise ValueError(duplicate_reference(item.case_id))
            seen.add(item.case_id)
        keys: set[tuple[str, str, int]] = set()
        for observation in observations:
            key = (observation.case_id, observation.order, observation.repetition)
            if key in keys:
                raise ValueError(duplicate_observation(*key))
            keys.add(key)


# --- the snapshot's rules: each message is written here once; the frames path and the SQL engines
# only locate the first offending row and say it with these ---------------------------------------

#: A snapshot without references (or observations), or with records of another type.
NO_REFERENCES = "references must contain exact HumanReference records"
NO_OBSERVATIONS = "observations must contain exact JudgeObservation records"
#: The candidates' metadata an observation carries, which must not change within its case.
METADATA_FIELDS = ("candidate_a_tokens", "candidate_b_tokens", "candidate_a_generator", "candidate_b_generator")


def validate_snapshot_header(scope: object, content_id: object, digest: object) -> None:
    _canonical_id("snapshot.scope", scope)
    text = _exact_text("snapshot.contract_content_id", content_id, maximum=96)
    if not CONTENT_ID_PATTERN.fullmatch(text):
        raise ValueError("snapshot.contract_content_id must be a judge calibration digest")
    text = _exact_text("snapshot.rubric_digest", digest, maximum=64)
    if not DIGEST_PATTERN.fullmatch(text):
        raise ValueError("snapshot.rubric_digest must be lowercase SHA-256")


def header_fault(scope: object, content_id: object, digest: object) -> tuple[str, str] | None:
    """The snapshot header's first broken rule as (field, message), e.g. ("rubric_digest", ...); None: valid."""
    try:
        validate_snapshot_header(scope, content_id, digest)
    except ValueError as error:
        return str(error).split(" ")[0].removeprefix("snapshot."), str(error)
    return None


def binding_fault(contract: JudgeCalibrationContract, scope: object, content_id: object,
                  n_cases: int) -> tuple[str | None, str] | None:
    """Whether the snapshot belongs to this contract, as (field, message): its scope, its content id
    and enough cases (field None: the snapshot as a whole). None: it does."""
    if scope != contract.scope:
        return "scope", f"snapshot belongs to another scope (snapshot {scope!r}, contract {contract.scope!r})"
    if content_id != contract.content_id:
        return "contract_content_id", (f"snapshot is not bound to this contract content (snapshot {content_id}; "
                                       f"expected {contract.content_id}, this contract's content id)")
    if n_cases < contract.minimum_cases:
        return None, f"snapshot has fewer cases than the calibration contract ({n_cases} < {contract.minimum_cases})"
    return None


def check_binding(contract: JudgeCalibrationContract, scope: object, content_id: object, n_cases: int) -> None:
    fault = binding_fault(contract, scope, content_id, n_cases)
    if fault:
        raise ValueError(fault[1])


def duplicate_reference(case_id: object) -> str:
    """The message for a reference whose case id an earlier reference has (field case_id)."""
    return f"reference case IDs must be unique (duplicate case_id={case_id!r})"


def duplicate_observation(case_id: object, order: object, repetition: object) -> str:
    """The message for an observation whose key an earlier observation has (field repetition)."""
    return f"observation keys must be unique (duplicate {describe_observation(case_id, order, repetition)})"


def observation_fault(contract: JudgeCalibrationContract, key: tuple[object, object, object], has_reference: bool,
                      judge_generator: object, metadata: tuple[object, ...], first: tuple[object, ...]
                      ) -> tuple[str, str] | None:
    """An observation's place in the snapshot, as (field, message): it has a human reference, it is
    the contract's judge's, and its candidates' ``metadata`` (:data:`METADATA_FIELDS`) is its case's
    ``first`` observation's. ``key``: (case_id, order, repetition). None: it fits.

    >>> observation_fault(ILLUSTRATIVE_CONTRACT, ("case-x", "ab", 1), True, "judge-v1", (80, 160, "a", "b"),
    ...                   (80, 150, "a", "b"))
    ('candidate_b_tokens', "candidate metadata changes across observations (observation case_id='case-x', order='ab', repetition=1)")
    """
    where = describe_observation(*key)
    if not has_reference:
        return "case_id", f"observation has no human reference ({where})"
    if judge_generator != contract.judge_generator:
        return "judge_generator", (f"observation uses another judge generator ({where}: {judge_generator!r}, "
                                   f"contract {contract.judge_generator!r})")
    for name, value, expected in zip(METADATA_FIELDS, metadata, first):
        if value != expected:
            return name, f"candidate metadata changes across observations ({where})"
    return None



def completeness_message(case_id: str, order: str, got: set[int], repetitions: int) -> str:
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


def snapshot_frames(snapshot: JudgeCalibrationSnapshot) -> tuple["pd.DataFrame", "pd.DataFrame"]:
    """The frames the frames path takes, from a record snapshot."""
    import pandas as pd

    refs = pd.DataFrame([asdict(r) for r in snapshot.references], columns=list(REFERENCE_FIELDS))
    refs["reviewer_ids"] = [tuple(r.reviewer_ids) for r in snapshot.references]
    obs = pd.DataFrame([asdict(o) for o in snapshot.observations], columns=list(OBSERVATION_FIELDS))
    return refs, obs


# --- the seed's illustrative example ---------------------------------------------------------


def _illustrative_observations(case_id: str, preferred: Candidate, a_tokens: int, b_tokens: int,
                               a_generator: str, b_generator: str) -> tuple[JudgeObservation, ...]:
    return tuple(
        JudgeObservation(case_id, order, rep, preferred, a_tokens, b_tokens, a_generator, b_generator, "judge-v1")
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


class ReadLog(Protocol):
    """What the audit reads of a judge log as read (agreebound.io's JudgeLog): its observations."""

    @property
    def observations(self) -> "pd.DataFrame": ...

    @property
    def shape(self) -> str: ...  # the harness whose log it is, as io recognised it ("mt-bench judgments")


@dataclass(frozen=True)
class JudgeInput:
    """A judge set as read, before any measuring: the contract, the snapshot header (scope,
    contract content id, rubric digest), the reference and observation frames, and where each
    frame's rows are (file names, row labels, row locators) so a refused record is named where it
    was read."""

    file: str
    contract: JudgeCalibrationContract
    header: tuple[object, object, object]  # (scope, content id, rubric digest) as read
    references: Frame | None  # a log's frame, or columns (a bundle's, the trio's: agreebound.judge.columns)
    observations: Frame
    #: frame ("references", "observations", "snapshot") -> the file its rows were read from
    files: dict[str, str] = field(default_factory=dict)
    #: frame -> what a row is called in messages ("reference"); "row" when absent
    row_labels: dict[str, str] = field(default_factory=dict)
    #: frame -> the file's row number of a frame's 0-based row; i + 1 when absent
    locate: dict[str, Callable[[int], int]] = field(default_factory=dict)
    #: the content id the snapshot named, when it was bound to this contract anyway (rebind)
    rebound_from: str | None = None
    #: a judge log: the log as read (its observations feed the partial audit), else None
    log: ReadLog | None = None
    lacks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    contract_given: bool = True
    complete: bool = True
    #: the slice columns beside the observations (``case_id`` and one column each, one row per
    #: observation): a log's template, turn, category, a CSV's extra columns; None when there are none
    slices: "pd.DataFrame | None" = None

    @property
    def unbound(self) -> bool:
        """A well-formed snapshot of this contract's scope that names another content id."""
        scope, content_id, digest = self.header
        return (scope == self.contract.scope and isinstance(content_id, str) and isinstance(digest, str)
                and content_id != self.contract.content_id and bool(CONTENT_ID_PATTERN.fullmatch(content_id))
                and bool(DIGEST_PATTERN.fullmatch(digest)))
