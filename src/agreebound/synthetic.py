"""Deterministic synthetic data: the sample files, the benchmarks and the randomized tests.

Nothing here is evidence about any real judge or detector; it builds inputs with known,
tunable behaviour so that every number the tools report can be checked against its cause.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from hashlib import sha256

import numpy as np
import pandas as pd

from agreebound.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract


@dataclass(frozen=True)
class JudgeBehaviour:
    """Probabilities (per case or per observation) of each failure the audit measures."""

    accuracy: float = 0.95  # a stable order's verdict equals the human preference
    position_bias: float = 0.0  # per case: the judge picks whatever is shown first in one order
    noise: float = 0.0  # per observation: a repetition disagrees with its order's verdict
    verbosity_bias: float = 0.0  # per case with a shorter preferred answer: picks the longer one
    self_preference: float = 0.0  # per case with a self-candidate: picks its own
    self_share: float = 0.2  # share of cases where one candidate is the judge's own
    tie_share: float = 0.1  # share of human ties
    unadjudicated: float = 0.0  # share of references not adjudicated
    single_reviewer: float = 0.0  # share of references with one reviewer


def judge_frames(
    n_cases: int,
    repetitions: int = 2,
    behaviour: JudgeBehaviour = JudgeBehaviour(),
    seed: int = 0,
    contract: JudgeCalibrationContract | None = None,
    rubric: bytes = b"synthetic-rubric-v1",
) -> tuple[JudgeCalibrationContract, pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """(contract, references, observations, header) for ``n_cases`` x 2 orders x ``repetitions``."""
    rng = np.random.default_rng(seed)
    judge = "judge-v1"
    if contract is None:
        contract = JudgeCalibrationContract(
            version="judge-calibration-v1", scope="synthetic-comparison", judge_generator=judge,
            repetitions_per_order=repetitions, minimum_cases=min(n_cases, 100_000), minimum_reviewers=2,
            minimum_human_agreement_bps=8000, maximum_position_flip_bps=1000, maximum_repeat_variance_bps=1500,
            maximum_verbosity_bias_bps=1500, maximum_self_preference_bps=1500,
        )
    else:
        contract = replace(contract, repetitions_per_order=repetitions)
        judge = contract.judge_generator
    b = behaviour
    case_ids = np.array([f"case-{i:07d}" for i in range(n_cases)], dtype=object)
    preferred = rng.choice(np.array([0, 1, 2]), size=n_cases, p=[(1 - b.tie_share) / 2, (1 - b.tie_share) / 2, b.tie_share])
    a_tok = rng.integers(40, 400, size=n_cases)
    b_tok = rng.integers(40, 400, size=n_cases)
    has_self = rng.random(n_cases) < b.self_share
    self_side = rng.integers(0, 2, size=n_cases)  # 0: a is the judge's own, 1: b
    a_gen = np.where(has_self & (self_side == 0), judge, "candidate-a").astype(object)
    b_gen = np.where(has_self & (self_side == 1), judge, "candidate-b").astype(object)

    # The judge's underlying preference per case, then per-order verdicts, then repetitions.
    correct = rng.random(n_cases) < b.accuracy
    wrong_pick = (preferred + rng.integers(1, 3, size=n_cases)) % 3
    base = np.where(correct, preferred, wrong_pick)
    longer = np.where(a_tok > b_tok, 0, 1)
    shorter_preferred = ((preferred == 0) & (a_tok < b_tok)) | ((preferred == 1) & (b_tok < a_tok))
    base = np.where(shorter_preferred & (rng.random(n_cases) < b.verbosity_bias), longer, base)
    base = np.where(has_self & (preferred != self_side) & (rng.random(n_cases) < b.self_preference), self_side, base)
    positional = rng.random(n_cases) < b.position_bias
    # In order "ba" candidate b is shown first: a position-biased judge picks b there, a in "ab".
    verdict_ab = np.where(positional, 0, base)
    verdict_ba = np.where(positional, 1, base)

    n_obs = n_cases * 2 * repetitions
    obs_case = np.repeat(np.arange(n_cases), 2 * repetitions)
    order = np.tile(np.repeat(np.array([0, 1]), repetitions), n_cases)
    rep = np.tile(np.arange(1, repetitions + 1), 2 * n_cases)
    sel = np.where(order == 0, verdict_ab[obs_case], verdict_ba[obs_case])
    noisy = rng.random(n_obs) < b.noise
    sel = np.where(noisy, (sel + rng.integers(1, 3, size=n_obs)) % 3, sel)

    cand = np.array(["a", "b", "tie"], dtype=object)
    reviewers_two = ("reviewer:domain", "reviewer:quality")
    single = rng.random(n_cases) < b.single_reviewer
    references = pd.DataFrame({
        "case_id": case_ids,
        "preferred_candidate": cand[preferred],
        "reviewer_ids": [("reviewer:domain",) if s else reviewers_two for s in single],
        "adjudicated": rng.random(n_cases) >= b.unadjudicated,
    }, columns=list(REFERENCE_FIELDS))
    observations = pd.DataFrame({
        "case_id": case_ids[obs_case],
        "order": np.array(["ab", "ba"], dtype=object)[order],
        "repetition": rep.astype(np.int64),
        "selected_candidate": cand[sel],
        "candidate_a_tokens": a_tok[obs_case].astype(np.int64),
        "candidate_b_tokens": b_tok[obs_case].astype(np.int64),
        "candidate_a_generator": a_gen[obs_case],
        "candidate_b_generator": b_gen[obs_case],
        "judge_generator": np.full(n_obs, judge, dtype=object),
    }, columns=list(OBSERVATION_FIELDS))
    header = {
        "scope": contract.scope,
        "contract_content_id": contract.content_id,
        "rubric_digest": sha256(rubric).hexdigest(),
    }
    return contract, references, observations, header


def binary_panel(
    n_items: int,
    detector_positives: dict[str, int],
    target_alpha: float,
    seed: int = 0,
    human: str | None = "human",
    human_coverage: float = 0.9,
    prevalence: float | None = None,
) -> pd.DataFrame:
    """A wide 0/1 panel whose detectors flag exactly ``detector_positives`` items each and whose
    Krippendorff alpha (all raters, nominal) is as close to ``target_alpha`` as bisection gets.

    Each rater copies a shared latent truth with probability ``a`` and otherwise guesses at its
    own base rate; ``a`` is tuned by bisection, then each detector's count is made exact by
    flipping the fewest of its guessed labels.
    """
    from agreebound.alpha import krippendorff_alpha

    names = list(detector_positives)
    counts = np.array([detector_positives[d] for d in names])
    p = prevalence if prevalence is not None else float(counts.mean()) / n_items

    def build(a: float) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        truth = rng.random(n_items) < p
        cols = {}
        for name, k in zip(names, counts):
            copy = rng.random(n_items) < a
            base = (k / n_items - a * p) / (1 - a) if a < 1 else 0.0
            guess = rng.random(n_items) < min(max(base, 0.0), 1.0)
            col = np.where(copy, truth, guess).astype(np.int64)
            diff = int(col.sum()) - int(k)
            free = np.flatnonzero(~copy & (col == (1 if diff > 0 else 0)))
            if len(free) < abs(diff):
                free = np.flatnonzero(col == (1 if diff > 0 else 0))
            flip = rng.choice(free, size=abs(diff), replace=False)
            col[flip] = 1 - col[flip]
            cols[name] = col
        frame = pd.DataFrame(cols, dtype="Int64")
        if human is not None:
            copy = rng.random(n_items) < min(1.0, a + (1 - a) * 0.5)
            h = np.where(copy, truth, rng.random(n_items) < p).astype(np.int64)
            hcol = pd.array(h, dtype="Int64")
            hcol[rng.random(n_items) >= human_coverage] = pd.NA
            frame[human] = hcol
        frame.insert(0, "unit", [f"item-{i:04d}" for i in range(n_items)])
        return frame

    def alpha_of(frame: pd.DataFrame) -> float:
        values = frame.drop(columns="unit").astype("float64").to_numpy()
        r = krippendorff_alpha(values)
        return float(r.value) if r.value is not None else -1.0

    lo, hi = 0.0, 0.99
    best = build(0.5)
    for _ in range(40):
        mid = (lo + hi) / 2
        best = build(mid)
        if alpha_of(best) < target_alpha:
            lo = mid
        else:
            hi = mid
    return best
