"""The seed's record path, restated for the calibration benchmark's peer (judge_calibration_audit.py:
records validated one by one in __post_init__, the snapshot's uniqueness checks, and the audit's
rebuild of every record before its loop). Our own record classes are not the peer: they take 1.41x
as long to build, which flattered the frames path.

Restated here in plain code with the seed's checks and order; tests/support/seed_oracle.py has its loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ID = re.compile(r"^[a-z][a-z0-9._:-]{2,95}$")
CONTENT_ID = re.compile(r"judge-calibration@sha256:[0-9a-f]{64}")
DIGEST = re.compile(r"^[0-9a-f]{64}$")


def _text(name: str, v: Any, maximum: int = 512) -> str:
    if type(v) is not str or not v.strip():
        raise ValueError(f"{name} must be non-empty exact str")
    if v != v.strip():
        raise ValueError(f"{name} must not have surrounding whitespace")
    if len(v) > maximum or any(ord(ch) < 32 for ch in v):
        raise ValueError(f"{name} is outside the bounded text contract")
    return v


def _id(name: str, v: Any) -> str:
    if not ID.fullmatch(_text(name, v, 96)):
        raise ValueError(f"{name} must be a canonical identifier")
    return v


def _int(name: str, v: Any, lo: int, hi: int) -> int:
    if type(v) is not int:
        raise ValueError(f"{name} must be exact int")
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be between {lo} and {hi}")
    return v


def _choice(name: str, v: Any) -> str:
    if _text(name, v, 8) not in ("a", "b", "tie"):
        raise ValueError(f"{name} must be a, b, or tie")
    return v


@dataclass(frozen=True)
class SeedReference:
    case_id: str
    preferred_candidate: str
    reviewer_ids: tuple[str, ...]
    adjudicated: bool

    def __post_init__(self) -> None:
        _id("reference.case_id", self.case_id)
        _choice("reference.preferred_candidate", self.preferred_candidate)
        reviewers = tuple(self.reviewer_ids)
        object.__setattr__(self, "reviewer_ids", reviewers)
        if not reviewers:
            raise ValueError("reference.reviewer_ids must not be empty")
        for r in reviewers:
            _id("reference.reviewer_id", r)
        if len(reviewers) != len(set(reviewers)):
            raise ValueError("reference.reviewer_ids must be unique")
        if tuple(sorted(reviewers)) != reviewers:
            raise ValueError("reference.reviewer_ids must be sorted")
        if type(self.adjudicated) is not bool:
            raise ValueError("reference.adjudicated must be exact bool")


@dataclass(frozen=True)
class SeedObservation:
    case_id: str
    order: str
    repetition: int
    selected_candidate: str
    candidate_a_tokens: int
    candidate_b_tokens: int
    candidate_a_generator: str
    candidate_b_generator: str
    judge_generator: str

    def __post_init__(self) -> None:
        _id("observation.case_id", self.case_id)
        if _text("observation.order", self.order, 2) not in ("ab", "ba"):
            raise ValueError("observation.order must be ab or ba")
        _int("observation.repetition", self.repetition, 1, 100)
        _choice("observation.selected_candidate", self.selected_candidate)
        _int("observation.candidate_a_tokens", self.candidate_a_tokens, 1, 1_000_000)
        _int("observation.candidate_b_tokens", self.candidate_b_tokens, 1, 1_000_000)
        _id("observation.candidate_a_generator", self.candidate_a_generator)
        _id("observation.candidate_b_generator", self.candidate_b_generator)
        _id("observation.judge_generator", self.judge_generator)


@dataclass(frozen=True)
class SeedSnapshot:
    scope: str
    contract_content_id: str
    rubric_digest: str
    references: tuple[SeedReference, ...]
    observations: tuple[SeedObservation, ...]

    def __post_init__(self) -> None:
        _id("snapshot.scope", self.scope)
        if not CONTENT_ID.fullmatch(_text("snapshot.contract_content_id", self.contract_content_id, 96)):
            raise ValueError("snapshot.contract_content_id must be a judge calibration digest")
        if not DIGEST.fullmatch(_text("snapshot.rubric_digest", self.rubric_digest, 64)):
            raise ValueError("snapshot.rubric_digest must be lowercase SHA-256")
        refs, obs = tuple(self.references), tuple(self.observations)
        object.__setattr__(self, "references", refs)
        object.__setattr__(self, "observations", obs)
        if not refs or any(type(x) is not SeedReference for x in refs):
            raise ValueError("references must contain exact HumanReference records")
        if not obs or any(type(x) is not SeedObservation for x in obs):
            raise ValueError("observations must contain exact JudgeObservation records")
        ids = [x.case_id for x in refs]
        if len(ids) != len(set(ids)):
            raise ValueError("reference case IDs must be unique")
        keys = [(x.case_id, x.order, x.repetition) for x in obs]
        if len(keys) != len(set(keys)):
            raise ValueError("observation keys must be unique")


def build(refs: Any, obs: Any, header: dict[str, str]) -> SeedSnapshot:
    """The records from the benchmark's frames, as a caller of the seed would build them."""
    ref_cols = [refs[n].tolist() for n in ("case_id", "preferred_candidate", "reviewer_ids", "adjudicated")]
    obs_cols = [obs[n].tolist() for n in ("case_id", "order", "repetition", "selected_candidate", "candidate_a_tokens",
                                          "candidate_b_tokens", "candidate_a_generator", "candidate_b_generator",
                                          "judge_generator")]
    return SeedSnapshot(header["scope"], header["contract_content_id"], header["rubric_digest"],
                        tuple(SeedReference(*r) for r in zip(*ref_cols)),
                        tuple(SeedObservation(*r) for r in zip(*obs_cols)))


def rebuild(s: SeedSnapshot) -> SeedSnapshot:
    """What the seed's audit does first: every record constructed (and validated) again."""
    return SeedSnapshot(s.scope, s.contract_content_id, s.rubric_digest,
                        tuple(SeedReference(r.case_id, r.preferred_candidate, r.reviewer_ids, r.adjudicated)
                              for r in s.references),
                        tuple(SeedObservation(o.case_id, o.order, o.repetition, o.selected_candidate,
                                              o.candidate_a_tokens, o.candidate_b_tokens, o.candidate_a_generator,
                                              o.candidate_b_generator, o.judge_generator) for o in s.observations))
