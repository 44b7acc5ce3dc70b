"""Pairwise audits of candidates that differ in strength (an MT-Bench-like arena), for the
self-preference net of strength (agreebound.judge.self_preference): each case pairs two of the
models at random; the better answer is the first model's with probability logistic(strength
difference); the humans and the judge each agree with the better answer with their own
probability (the judge more often: it separates the models more sharply than noisy humans), tie
with their own probability, and the judge, when one candidate is its own, switches a verdict
against it to its own with probability ``self_preference``.

:func:`arena_cells` gives the audit's verdict cells (agreebound.judge.counts.verdict_cells), what
the measure reads; :func:`arena_frames` the same audit as the seed's references and observations,
for the pipeline end to end.
"""

from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha256

import numpy as np
import pandas as pd

from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract
from agreebound.judge.counts import verdict_cells

#: Six models ordered as MT-Bench's humans rank them, with strengths on the logistic scale.
MODELS = ("gpt-4", "claude-v1", "gpt-3.5-turbo", "vicuna-13b", "alpaca-13b", "llama-13b")
STRENGTH = (2.0, 1.3, 1.1, 0.5, -0.6, -1.2)


@dataclass(frozen=True)
class Arena:
    models: tuple[str, ...] = MODELS
    strength: tuple[float, ...] = STRENGTH
    human_error: float = 0.25
    judge_error: float = 0.12
    human_tie: float = 0.2
    judge_tie: float = 0.1
    repetitions: int = 1
    #: the model whose candidates the judge favours (None: no self-preference) and by how much
    favoured: str | None = None
    self_preference: float = 0.0


def _draw(rng: np.random.Generator, n: int, a: Arena) -> dict[str, np.ndarray]:
    k = len(a.models)
    s = np.asarray(a.strength)
    i = rng.integers(0, k, n)
    j = (i + rng.integers(1, k, n)) % k
    first_better = rng.random(n) < 1 / (1 + np.exp(-(s[i] - s[j])))
    human = np.where(rng.random(n) < a.human_tie, 2, np.where(first_better == (rng.random(n) >= a.human_error), 0, 1))
    names = np.array(a.models, dtype=object)
    own_a = names[i] == a.favoured
    own_b = names[j] == a.favoured
    verdicts = []  # per verdict: 0 a, 1 b, 2 tie (the first model is candidate a)
    for _ in range(2 * a.repetitions):
        pick_a = first_better == (rng.random(n) >= a.judge_error)
        tie = rng.random(n) < a.judge_tie
        switch = rng.random(n) < a.self_preference
        pick_a = np.where(own_a & ~pick_a & switch, True, np.where(own_b & pick_a & switch, False, pick_a))
        tie &= ~(switch & (own_a | own_b))
        verdicts.append(np.where(tie, 2, np.where(pick_a, 0, 1)))
    return {"a_gen": names[i], "b_gen": names[j], "human": human, "verdicts": np.stack(verdicts, axis=1)}


def arena_cells(rng: np.random.Generator, n: int, a: Arena = Arena()) -> dict:
    """The verdict cells of an audit of ``n`` cases, every case with a human reference."""
    d = _draw(rng, n, a)
    v = d["verdicts"]
    return verdict_cells(d["a_gen"], d["b_gen"], np.ones(n, dtype=bool), d["human"], (v == 0).sum(axis=1),
                         (v == 1).sum(axis=1), (v == 2).sum(axis=1))


def arena_frames(rng: np.random.Generator, n: int, a: Arena, judge: str
                 ) -> tuple[JudgeCalibrationContract, pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """(contract, references, observations, header) of an audit judged by ``judge`` (its name:
    the placebo relabels the same verdicts as each model's in turn). The verdicts of order ab are
    drawn with the first model shown first; order ba shows the same pair swapped, its verdicts
    given in the slots of the observation (a stays the first model)."""
    d = _draw(rng, n, a)
    r = a.repetitions
    contract = JudgeCalibrationContract(
        version="judge-calibration-v1", scope="arena", judge_generator=judge, repetitions_per_order=max(r, 2),
        minimum_cases=1, minimum_reviewers=1, minimum_human_agreement_bps=5000, maximum_position_flip_bps=5000,
        maximum_repeat_variance_bps=5000, maximum_verbosity_bias_bps=5000, maximum_self_preference_bps=5000)
    reps = max(r, 2)
    cand = np.array(["a", "b", "tie"], dtype=object)
    ids = np.array([f"case-{x:05d}" for x in range(n)], dtype=object)
    refs = pd.DataFrame({"case_id": ids, "preferred_candidate": cand[d["human"]], "reviewer_ids": [("reviewer:h",)] * n,
                         "adjudicated": np.ones(n, dtype=bool)}, columns=list(REFERENCE_FIELDS))
    rows = []
    v = d["verdicts"]
    for c in range(n):
        for o, order in enumerate(("ab", "ba")):
            for rep in range(reps):
                sel = v[c, (o * r + rep % r) % v.shape[1]]
                rows.append((ids[c], order, rep + 1, cand[sel], 100, 100, d["a_gen"][c], d["b_gen"][c], judge))
    obs = pd.DataFrame(rows, columns=list(OBSERVATION_FIELDS))
    obs["repetition"] = obs["repetition"].astype(np.int64)
    header = {"scope": "arena", "contract_content_id": contract.content_id,
              "rubric_digest": sha256(b"arena").hexdigest()}
    return contract, refs, obs, header
