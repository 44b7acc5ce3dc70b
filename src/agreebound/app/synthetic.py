"""Deterministic synthetic data: the sample files, the benchmarks, the randomized tests, and the
judges with planted defects that ``agreebound validate`` audits (:class:`PlantedJudge`, :func:`implants`).

Nothing here is evidence about any real judge or detector; it builds inputs with known,
tunable behaviour so that every number the tools report can be checked against its cause.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from hashlib import sha256
from typing import Sequence

import numpy as np
import pandas as pd

from agreebound.judge.contract import OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract


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


# --- planted judges: known defects, known true values ------------------------------------------


@dataclass(frozen=True)
class PlantedJudge:
    """A judge with planted defects (each a probability), for checking the bias measures
    (agreebound.judge.bias) against their known true values (:func:`implants`).

    On a case whose human reference is decisive (preferred P, rejected R), a judge that is not
    position-bound picks R, layered in this order: its own candidate when it is R (``self_preference``),
    else the longer candidate when it is R (``length``), else R by ``disagreement`` alone;
    otherwise P, never a tie. On a human tie it picks a or b (either) with probability
    ``disagreement``, else tie. A ``first_slot`` share of cases picks whatever is shown first in
    each order, a ``second_slot`` share whatever is shown second. An ``instability`` share of
    (case, order) groups has its last repetition changed: to the other candidate after a or b, to a
    or b (either) after a tie.
    """

    name: str = "clean"
    disagreement: float = 0.04
    first_slot: float = 0.0
    second_slot: float = 0.0
    length: float = 0.0
    self_preference: float = 0.0
    instability: float = 0.0


@dataclass(frozen=True)
class PlantedDesign:
    """The audit's shape: cases x 2 orders x ``repetitions``; the share of human ties, of cases
    with equal lengths, of cases where one candidate is the judge's own, and of decisive cases of
    unequal lengths where the humans preferred the longer candidate."""

    n_cases: int = 800
    repetitions: int = 3
    tie_share: float = 0.1
    equal_length_share: float = 0.1
    self_share: float = 0.3
    human_longer: float = 0.5


def _planted(rng: np.random.Generator, cells: np.ndarray, p: float, exact: bool) -> np.ndarray:
    """Which units (``cells`` >= 0: eligible, by stratum) carry a behaviour of probability ``p``:
    independent draws, or (``exact``) floor(p n + U) units of each stratum of n, chosen at random,
    so that the sample holds the behaviour in its planted proportion (within one unit a stratum)."""
    eligible = cells >= 0
    if not exact:
        return eligible & (rng.random(len(cells)) < p)
    out = np.zeros(len(cells), dtype=bool)
    for c in np.unique(cells[eligible]):
        members = np.flatnonzero(cells == c)
        k = int(np.floor(p * len(members) + rng.random()))
        out[rng.choice(members, size=min(k, len(members)), replace=False)] = True
    return out


def _planted_cases(rng: np.random.Generator, d: PlantedDesign, exact: bool) -> dict[str, np.ndarray]:
    """Each case's roles: human tie, the rejected candidate's length class (0: longer, 1: shorter,
    2: equal) and ownership class (0: R is the judge's own, 1: P is, 2: neither), and which slot
    (a or b) holds P; every draw stratified by the ones before it."""
    n = d.n_cases
    tie = _planted(rng, np.zeros(n, dtype=np.int64), d.tie_share, exact)
    equal = _planted(rng, tie.astype(np.int64), d.equal_length_share, exact)
    own = _planted(rng, tie * 2 + equal, d.self_share, exact)
    # unequal lengths: the humans preferred the longer (R is the shorter) in a human_longer share
    r_shorter = _planted(rng, np.where(equal, -1, tie * 2 + own), d.human_longer, exact)
    length_class = np.where(equal, 2, np.where(r_shorter, 1, 0))
    r_own = _planted(rng, np.where(own, tie * 3 + length_class, -1), 0.5, exact)
    own_class = np.where(own, np.where(r_own, 0, 1), 2)
    cell = (tie * 3 + length_class) * 3 + own_class  # 18 strata
    p_is_a = _planted(rng, cell, 0.5, exact)
    return {"tie": tie, "length_class": length_class, "own_class": own_class, "cell": cell, "p_is_a": p_is_a}


def _planted_verdicts(rng: np.random.Generator, j: PlantedJudge, c: dict[str, np.ndarray],
                      exact: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each case's verdict in order ab and in order ba (0 a, 1 b, 2 tie), and its kind for the
    repetitions' strata (0 first slot, 1 second slot, 2 R, 3 P, 4 tie)."""
    cell, tie = c["cell"], c["tie"]
    first = _planted(rng, cell, j.first_slot, exact)
    rest = 1 - j.first_slot
    second = _planted(rng, np.where(first, -1, cell), j.second_slot / rest if rest else 0.0, exact)
    free = ~first & ~second & ~tie
    own_r = _planted(rng, np.where(free & (c["own_class"] == 0), cell, -1), j.self_preference, exact)
    longer_r = _planted(rng, np.where(free & ~own_r & (c["length_class"] == 0), cell, -1), j.length, exact)
    other_r = _planted(rng, np.where(free & ~own_r & ~longer_r, cell, -1), j.disagreement, exact)
    picks_r = own_r | longer_r | other_r
    tie_decided = _planted(rng, np.where(~first & ~second & tie, cell, -1), j.disagreement, exact)
    tie_r = _planted(rng, np.where(tie_decided, cell, -1), 0.5, exact)  # on a tie, "R" is just the other slot
    p_code = np.where(c["p_is_a"], 0, 1)
    base = np.where(tie & ~tie_decided, 2, np.where(picks_r | tie_r, 1 - p_code, p_code))
    ab = np.where(first, 0, np.where(second, 1, base))
    ba = np.where(first, 1, np.where(second, 0, base))
    kind = np.where(first, 0, np.where(second, 1, np.where(base == 2, 4, np.where(base == p_code, 3, 2))))
    return ab, ba, kind


def planted_frames(judge: PlantedJudge, design: PlantedDesign = PlantedDesign(), seed: int | Sequence[int] = 0, *,
                   exact: bool = True, contract: JudgeCalibrationContract | None = None,
                   ) -> tuple[JudgeCalibrationContract, pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """(contract, references, observations, header) of a planted judge's audit.

    ``exact`` (the default): every behaviour and every share of the design is planted in its exact
    proportion within each stratum (:func:`_planted`), so the sample holds the true values of
    :func:`implants` up to rounding and a measure that misses one is the instrument's fault, not
    chance. ``exact=False``: independent draws, whose sampling error the 95% intervals must cover
    (tests/judge/test_bias_coverage.py counts how often they do)."""
    rng = np.random.default_rng(seed)
    d, r = design, design.repetitions
    contract = replace(contract or validation_contract(design), repetitions_per_order=r)
    c = _planted_cases(rng, d, exact)
    ab, ba, kind = _planted_verdicts(rng, judge, c, exact)
    n = d.n_cases
    verdict = np.stack([ab, ba], axis=1).reshape(-1)  # group g = case * 2 + order
    gcell = np.repeat((c["cell"] * 5 + kind) * 2, 2) + np.tile(np.array([0, 1]), n)
    unstable = _planted(rng, gcell, judge.instability, exact)
    to_b = _planted(rng, np.where(unstable & (verdict == 2), gcell, -1), 0.5, exact)
    changed = np.where(verdict == 2, np.where(to_b, 1, 0), 1 - verdict)
    sel = np.repeat(verdict, r).reshape(2 * n, r)
    sel[:, -1] = np.where(unstable, changed, verdict)

    shorter = rng.integers(40, 400, size=n)
    longer = np.where(c["length_class"] == 2, shorter, shorter + rng.integers(10, 400, size=n))
    r_len = np.where(c["length_class"] == 1, shorter, longer)
    p_len = np.where(c["length_class"] == 1, longer, shorter)
    a_tok, b_tok = np.where(c["p_is_a"], p_len, r_len), np.where(c["p_is_a"], r_len, p_len)
    own_slot = np.where(c["own_class"] == 2, -1, np.where((c["own_class"] == 1) == c["p_is_a"], 0, 1))
    name = contract.judge_generator
    a_gen = np.where(own_slot == 0, name, "candidate-a").astype(object)
    b_gen = np.where(own_slot == 1, name, "candidate-b").astype(object)
    preferred = np.where(c["tie"], 2, np.where(c["p_is_a"], 0, 1))
    return _planted_tables(contract, (a_tok, b_tok, a_gen, b_gen, preferred), sel, r, judge.name)


def _planted_tables(contract: JudgeCalibrationContract, per_case: tuple[np.ndarray, ...], sel: np.ndarray, r: int,
                    label: str) -> tuple[JudgeCalibrationContract, pd.DataFrame, pd.DataFrame, dict[str, str]]:
    a_tok, b_tok, a_gen, b_gen, preferred = per_case
    n = len(preferred)
    case_ids = np.array([f"case-{i:05d}" for i in range(n)], dtype=object)
    obs_case = np.repeat(np.arange(n), 2 * r)
    cand = np.array(["a", "b", "tie"], dtype=object)
    references = pd.DataFrame({
        "case_id": case_ids, "preferred_candidate": cand[preferred],
        "reviewer_ids": [("reviewer:domain", "reviewer:quality")] * n, "adjudicated": np.ones(n, dtype=bool),
    }, columns=list(REFERENCE_FIELDS))
    observations = pd.DataFrame({
        "case_id": case_ids[obs_case],
        "order": np.array(["ab", "ba"], dtype=object)[np.tile(np.repeat(np.array([0, 1]), r), n)],
        "repetition": np.tile(np.arange(1, r + 1), 2 * n).astype(np.int64),
        "selected_candidate": cand[sel.reshape(-1)],
        "candidate_a_tokens": a_tok[obs_case].astype(np.int64),
        "candidate_b_tokens": b_tok[obs_case].astype(np.int64),
        "candidate_a_generator": a_gen[obs_case], "candidate_b_generator": b_gen[obs_case],
        "judge_generator": np.full(len(obs_case), contract.judge_generator, dtype=object),
    }, columns=list(OBSERVATION_FIELDS))
    header = {"scope": contract.scope, "contract_content_id": contract.content_id,
              "rubric_digest": sha256(f"planted-judge:{label}".encode()).hexdigest()}
    return contract, references, observations, header


def validation_contract(design: PlantedDesign = PlantedDesign()) -> JudgeCalibrationContract:
    """The contract the planted judges are audited under: a 5% verbosity limit, so a judge with no
    length preference but 30% general disagreement fails the seed's verbosity gate."""
    return JudgeCalibrationContract(
        version="judge-calibration-v1", scope="planted-judges", judge_generator="judge-planted",
        repetitions_per_order=design.repetitions, minimum_cases=min(design.n_cases, 100_000), minimum_reviewers=2,
        minimum_human_agreement_bps=8000, maximum_position_flip_bps=1000, maximum_repeat_variance_bps=1500,
        maximum_verbosity_bias_bps=500, maximum_self_preference_bps=1500)


def implants(judge: PlantedJudge, design: PlantedDesign = PlantedDesign()) -> dict[str, Fraction | None]:
    """The true value of each bias measure (agreebound.judge.bias) for a planted judge, in closed
    form: each rate's expected numerator over its expected denominator (what its ratio estimator
    converges to), exact in the parameters as decimals. None: the measure has no opportunities.

    A case that is not position-bound picks R with probability pi = 1 - (1 - sigma [R own])
    (1 - lambda [R longer]) (1 - e); its repetitions pick R at g(pi) = pi + (u / r)(1 - 2 pi) (an
    unstable group's changed repetition moves one pick to the other side); a position-bound case
    picks each candidate in half its verdicts. So a rate of picking R over a set of decisive cases
    is Q/2 + (1 - Q) g(mean pi) with Q the position-bound share, and the nets are
    (1 - Q)(1 - 2u/r)(mean pi - mean pi') over their two sets.

    >>> v = implants(PlantedJudge("noisy", disagreement=0.3))
    >>> v["verbosity_bias"], v["verbosity_net"], v["first_slot"], v["mcnemar"]
    (Fraction(3, 10), Fraction(0, 1), Fraction(1, 2), None)
    >>> implants(PlantedJudge("length", disagreement=0.1, length=0.3))["verbosity_net"]  # 1 - 0.7 * 0.9 - 0.1
    Fraction(27, 100)
    """
    f = {k: Fraction(str(getattr(judge, k))) for k in ("disagreement", "first_slot", "second_slot", "length",
                                                     "self_preference", "instability")}
    e, q1, q2, lam, sig, u = f.values()
    t, z, s, h = (Fraction(str(getattr(design, k))) for k in ("tie_share", "equal_length_share", "self_share",
                                                              "human_longer"))
    r, q = design.repetitions, q1 + q2

    def pi(own: int, longer: int) -> Fraction:
        return 1 - (1 - sig * own) * (1 - lam * longer) * (1 - e)

    def rate(mean_pi: Fraction) -> Fraction:
        return q / 2 + (1 - q) * (mean_pi + u / r * (1 - 2 * mean_pi))

    p_longer = (1 - z) * (1 - h)  # a decisive case's rejected candidate is the longer
    v_long = rate(s / 2 * pi(1, 1) + (1 - s / 2) * pi(0, 1))  # the humans preferred the shorter
    v_short = rate(s / 2 * pi(1, 0) + (1 - s / 2) * pi(0, 0))  # ... the longer
    own = rate(p_longer * pi(1, 1) + (1 - p_longer) * pi(1, 0))
    control = rate(p_longer * pi(0, 1) + (1 - p_longer) * pi(0, 0))
    decisive_base = (1 - t) + t * e  # a case not position-bound gives a or b (not tie)
    first = q1 * (2 * r - 2 * u) + q2 * 2 * u + (1 - q) * (decisive_base * r + (1 - decisive_base) * u)
    decisive = q * 2 * r + (1 - q) * (2 * decisive_base * r + 2 * (1 - decisive_base) * u)
    stable_pairs = q + (1 - q) * decisive_base
    lengths = z < 1 and t < 1
    selfish = s > 0 and t < 1
    return {
        "first_slot": first / decisive if decisive else None,
        "mcnemar": q1 / q if q else None,
        "flip_with_ties": q if u < 1 else None,
        "flip_decisive": q / stable_pairs if stable_pairs and u < 1 else None,
        "repeat_variance": u,
        "verbosity_bias": v_long if lengths and h < 1 else None,
        "verbosity_mirror": v_short if lengths and h > 0 else None,
        "verbosity_net": v_long - v_short if lengths and 0 < h < 1 else None,
        "length_excess": (1 - h) * v_long + h * (1 - v_short) - h if lengths else None,
        "self_preference": own if selfish else None,
        "self_control": control if s < 1 and t < 1 else None,
        "self_error_excess": own - control if selfish and s < 1 else None,
        # the net of strength: these candidates do not differ in strength (the humans prefer each
        # in half the cases), so the slope is 1 and the net is P(judge picks own) - P(humans pick
        # own) over the own cases: half of them have the judge's own candidate rejected (it picks
        # it at ``own``), half preferred (it keeps it at 1 - ``control``); human ties give 0
        "self_preference_net": (1 - t) * (own - control) / 2 if selfish and s < 1 else None,
    }


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
    from agreebound.panel.alpha import krippendorff_alpha

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


# --- graded and pass/fail judges beside human raters (agreebound.scored.audit) -----------------------

@dataclass(frozen=True)
class ScoredJudge:
    """A graded (or, with ``scale`` (0, 1), pass/fail) judge planted beside human raters.

    Each item has a true quality; every rater (human or judge) reports it plus independent noise
    (``noise``: the standard deviation, in scale points; humans use ``human_noise``), rounded and
    clipped to the scale. ``leniency`` shifts the judge's scores, ``length_bias`` adds this many
    points per standard deviation of answer length, ``self_bias`` adds this many points on its own
    model's answers. A judge with the humans' noise and no bias is exchangeable with them."""

    name: str = "judge-model"
    noise: float = 0.5
    leniency: float = 0.0
    length_bias: float = 0.0
    self_bias: float = 0.0
    #: a stated probability of "pass": the judge's latent score through a logistic with this slope
    #: (0: no confidence column); ``overconfidence`` > 1 sharpens it past what is calibrated
    confidence_slope: float = 0.0
    overconfidence: float = 1.0


def scored_frame(judges: Sequence[ScoredJudge], n_items: int = 200, humans: int = 3, human_noise: float = 0.5,
                 scale: tuple[int, int] = (1, 5), seed: int = 0, models: Sequence[str] = ("judge-model", "model-b",
                                                                                            "model-c")) -> pd.DataFrame:
    """A scores table (io's SCORE_COLUMNS) with the planted judges and ``humans`` human raters."""
    rng = np.random.default_rng(seed)
    lo, hi = scale
    # a pass/fail scale: qualities spread well past the pass line, so few items are coin flips
    mid, spread = (lo + hi) / 2, 1.0 if hi - lo == 1 else max((hi - lo) / 4, 0.5)
    truth = rng.normal(mid, spread, n_items)
    length = rng.lognormal(5, 0.5, n_items).round()
    z_len = (length - length.mean()) / length.std()
    model = np.array(models, dtype=object)[rng.integers(0, len(models), n_items)]
    rows: list[tuple[object, ...]] = []
    for h in range(humans):
        s = np.clip(np.rint(truth + rng.normal(0, human_noise, n_items)), lo, hi)
        rows += [(f"item-{i:04d}", f"human-{h + 1}", "human", float(s[i]), model[i], length[i], np.nan, 0)
                 for i in range(n_items)]
    for j in judges:
        latent = (truth + j.leniency + j.length_bias * z_len + j.self_bias * (model == j.name)
                  + rng.normal(0, j.noise, n_items))
        s = np.clip(np.rint(latent), lo, hi)
        conf = np.full(n_items, np.nan)
        if j.confidence_slope:
            calibrated = 1 / (1 + np.exp(-j.confidence_slope * (truth - mid)))
            logit = np.log(calibrated / (1 - calibrated)) * j.overconfidence
            conf = np.round(1 / (1 + np.exp(-logit)), 4)
        rows += [(f"item-{i:04d}", j.name, "judge", float(s[i]), model[i], length[i], conf[i], 0)
                 for i in range(n_items)]
    f = pd.DataFrame(rows, columns=["item", "rater", "role", "score", "model", "length", "confidence", "line"])
    f["line"] = np.arange(1, len(f) + 1)
    return f
