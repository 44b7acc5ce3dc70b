"""Judge calibration: an LLM judge's pairwise verdicts audited against human references.

The contract is the seed ``judge_calibration_audit``: its record names and field order, every
validation rule, the content id (bit for bit), the five rates in half-up basis points and its
decision are reproduced by :func:`audit_calibration`.  On top of that:

* :func:`measure` returns each rate's exact numerator and denominator and per-case facts;
  :func:`decide` is the only place they meet :class:`CalibrationThresholds`, comparing exact
  fractions, and says where the seed's rounded integers would have decided otherwise.
* :func:`audit_frames` / :func:`measure_frames` take pandas frames and validate vectorized, with
  the same results and the same error conditions (and messages) as the record path.
* Every engine (records and frames in memory, DuckDB, Spark) returns the audit's counts
  (agreebound.judge.counts); :func:`measure_counts` is the one place the rates are measured from
  them. Each snapshot rule's message is written once, beside the records (``*_fault``,
  ``duplicate_*``, :func:`completeness_message`): the frames path and the SQL engines only find the
  first offending row.

Every validation error is a ``ValueError`` whose message starts with the seed's text and then
names the offending record, e.g. ``observation.repetition must be exact int (observation
case_id='case-x', order='ab', repetition=2.0)``.

The audit runs no model and validates no provider: a passing result is not evidence that a judge
is unbiased, human-equivalent, or stable on another task distribution.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from functools import cached_property
from typing import Any, Iterator, Literal, Sequence

import numpy as np
import pandas as pd

from agreebound.judge.contract import (
    BPS,
    CANDIDATES,
    HumanReference,
    ID_PATTERN,
    ILLUSTRATIVE_CONTRACT,
    ILLUSTRATIVE_SNAPSHOT,
    JudgeCalibrationContract,
    JudgeCalibrationSnapshot,
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
    check_binding,
    completeness_message,
    duplicate_observation,
    duplicate_reference,
    field_of,
    header_fault,
    observation_fault,
    rate_bps,
)
from agreebound.core.gate import NOT_EVALUABLE, Gate, cases_to_flip, evaluate, meets, straddles
from agreebound.core.planner import Plan, plan_difference, plan_rate
from agreebound.judge.headline import Headline, corrected_headline
from agreebound.judge.bias import GATE_OF, BiasMeasures, measure_bias
from agreebound.judge.counts import ISSUE_IDS, JudgeCounts, from_facts
from agreebound.core.thresholds import NET_GATES, RATE_GATES, CalibrationThresholds
from agreebound.judge.intervals import JudgeDiagnostics, judge_diagnostics
from agreebound.core.intervals import Wilson

Decision = Literal["PASS_CALIBRATION", "FAIL_CALIBRATION", "INCOMPLETE"]
PASS: Decision = "PASS_CALIBRATION"
FAIL: Decision = "FAIL_CALIBRATION"
#: A partial audit (a log that lacks what some gate needs): never a pass.
INCOMPLETE: Decision = "INCOMPLETE"

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
    #: The audit's counts (agreebound.judge.counts) that every rate, interval and diagnostic is read
    #: from, whichever engine summed them. Out of core they stand in for the rows per case
    #: (``cases`` is then empty, and the counts list the first reference issues).
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
    def rows(self) -> pd.DataFrame | None:
        """The rows per case when the engine kept them (in memory); None out of core."""
        return self.cases if len(self.cases) else None

    @property
    def bound(self) -> bool:
        """The snapshot names this contract's content; a source without a contract is bound to none."""
        return self.contract_given and self.contract_content_id == self.contract.content_id

    @cached_property
    def diagnostics(self) -> JudgeDiagnostics:
        """The audit's diagnostics and case-clustered intervals (uncertainty.judge_diagnostics; they
        compute an alpha): once per measurement, whoever reads them first (a page, a report)."""
        return judge_diagnostics(self)

    @cached_property
    def bias(self) -> BiasMeasures:
        """Bias or disagreement? The measures beside the five gates (agreebound.judge.bias), from the
        counts: once per measurement."""
        return measure_bias(self.counts, self.unavailable)

    @cached_property
    def headline(self) -> Headline:
        """The corrected headline (agreebound.judge.headline): each model pair's win rate by the judge alone,
        corrected by the cases with a human reference (prediction-powered), and by the humans alone."""
        return corrected_headline(self.counts)

    def rate_stats(self) -> dict[str, Any]:
        """Each rate's per-case sums (judge_counts.RateStats, from the counts), for the case-aware
        intervals; empty for a measurement without counts (the intervals then say so)."""
        return dict(self.counts.rates) if self.counts is not None else {}


def measure_counts(contract: JudgeCalibrationContract, header: tuple[str, str, str], counts: JudgeCounts, *,
                   cases: pd.DataFrame | None = None, unavailable: dict[str, str] | None = None,
                   notes: tuple[str, ...] = ()) -> CalibrationMeasurement:
    """The measurement of an audit's counts (agreebound.judge.counts), whichever engine summed them:
    each rate is its numerator over its denominator (:class:`Rate`; its basis points half-up, as the
    seed rounds), with its per-case sums for the case-aware intervals.

    ``cases``: the rows per case when the engine keeps them (in memory): the decision then lists
    every reference issue from them. Without them (out of core) the counts list the first
    ``ISSUE_IDS`` and the decision's notes say how many there are (:func:`reference_issues`: which
    references are issues depends on ``minimum_reviewers``, a threshold, so only ``decide`` says).
    ``unavailable``: a partial audit's rates this source cannot measure (name -> why, in words);
    their counts are what the source holds, and :func:`decide` does not evaluate them.

    The seed's illustrative example (``agreebound example``), one rate at a time:

    >>> m = measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)
    >>> m.human_agreement, m.human_agreement.bps  # every judgment agrees with the humans
    (Rate(name='human_agreement', numerator=16, denominator=16), 10000)
    >>> m.position_flip, m.position_flip.bps  # no case changes its verdict with the order
    (Rate(name='position_flip', numerator=0, denominator=4), 0)
    >>> m.repeat_variance, m.repeat_variance.bps  # no order's repetitions disagree
    (Rate(name='repeat_variance', numerator=0, denominator=8), 0)
    >>> m.verbosity_bias, m.verbosity_bias.bps  # the shorter answer preferred (3 cases), never the longer picked
    (Rate(name='verbosity_bias', numerator=0, denominator=12), 0)
    >>> m.self_preference, m.self_preference.bps  # the judge's own answer not preferred (1 case), never picked
    (Rate(name='self_preference', numerator=0, denominator=4), 0)
    >>> m.rate_stats()["human_agreement"]  # 4 cases of 4 judgments: the intervals' per-case sums
    RateStats(numerator=16, denominator=16, k=4, syy=64, sym=64, smm=64)
    """
    rates = [Rate(name, counts.rates[name].numerator, counts.rates[name].denominator) for name, _, _ in RATE_GATES]
    return CalibrationMeasurement(contract, header[0], header[1], header[2], counts.n_cases, counts.n_observations,
                                  *rates, cases if cases is not None else _no_cases(), dict(unavailable or {}), notes,
                                  counts)


def _no_cases() -> pd.DataFrame:
    """An out-of-core measurement's rows per case: none (the counts stand in for them)."""
    return pd.DataFrame({name: pd.Series(dtype=object) for name in (
        "case_id", "preferred", "reviewers", "adjudicated", "observations", "agreements")})


@dataclass(frozen=True)
class _Arrays:
    """Validated input as columns: the one form the metric code reads."""

    case_ids: Sequence[str]  # a list, or an object array
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
    # per case: the generators' names ("" when the source does not say) and whether the case has a
    # human reference (a partial audit's log may hold cases without one)
    a_generator: np.ndarray | None = None
    b_generator: np.ndarray | None = None
    has_reference: np.ndarray | None = None


def _measure_arrays(contract: JudgeCalibrationContract, header: tuple[str, str, str], x: _Arrays) -> CalibrationMeasurement:
    """The in-memory engine: the facts of each case, their counts, and the measurement of those."""
    facts = _case_facts(x)
    return measure_counts(contract, header, from_facts(facts), cases=_cases_frame(facts))


def _case_facts(x: _Arrays) -> dict[str, Any]:
    """Each case's facts (judge_counts.FACTS, and the verdicts and self-candidate the per-case view
    shows): labels as indices into CANDIDATES, -1 for none."""
    n_cases = len(x.case_ids)
    sel = x.obs_selected
    agree_obs = sel == x.preferred[x.obs_case]

    # Repeat variance: a (case, order) group is unstable when its repetitions disagree.
    group = x.obs_case * 2 + x.obs_order
    counts = np.bincount(group * 3 + sel, minlength=n_cases * 6).reshape(n_cases * 2, 3)
    distinct = (counts > 0).sum(axis=1)
    unstable = (distinct > 1).reshape(n_cases, 2)
    # no verdict for an order without observations (only a partial audit's log can lack one)
    verdict = np.where((distinct > 1) | (distinct == 0), -1, counts.argmax(axis=1)).reshape(n_cases, 2)
    # The per-order majority (None when the top count is shared): used by the diagnostics.
    top = counts.max(axis=1)
    majority = np.where((counts == top[:, None]).sum(axis=1) == 1, counts.argmax(axis=1), -1).reshape(n_cases, 2)

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
    verb_err = (sel == verb_case[x.obs_case]) & (verb_case[x.obs_case] >= 0)
    self_err = self_opp_case[x.obs_case] & (sel == self_cand[x.obs_case])
    return {
        "case_id": x.case_ids, "preferred": x.preferred, "reviewers": x.reviewers, "adjudicated": x.adjudicated,
        "observations": obs_per_case,
        "agreements": np.bincount(x.obs_case, weights=agree_obs, minlength=n_cases).astype(np.int64),
        "verdict_ab": verdict[:, 0], "verdict_ba": verdict[:, 1],
        "majority_ab": majority[:, 0], "majority_ba": majority[:, 1],
        "unstable_ab": unstable[:, 0], "unstable_ba": unstable[:, 1],
        "flip_opportunity": flip_opp, "flipped": flipped,
        "verbosity_opportunities": np.where(verb_case >= 0, obs_per_case, 0),
        "verbosity_errors": np.bincount(x.obs_case, weights=verb_err, minlength=n_cases).astype(np.int64),
        "self_candidate": self_cand,
        "self_opportunities": np.where(self_opp_case, obs_per_case, 0),
        "self_errors": np.bincount(x.obs_case, weights=self_err, minlength=n_cases).astype(np.int64),
        **_bias_facts(x, counts.reshape(n_cases, 2, 3), verdict, obs_per_case, self_cand),
    }


def _bias_facts(x: _Arrays, votes: np.ndarray, verdict: np.ndarray, obs_per_case: np.ndarray,
                self_cand: np.ndarray) -> dict[str, Any]:
    """Each case's facts beside the seed's (judge_counts.EXTRA_RATE_NAMES and what follows it):
    ``votes[case, order, label]`` counts the verdicts, ``verdict[case, order]`` the stable verdict
    of each order (-1: none)."""
    n_cases = len(obs_per_case)
    pref = x.preferred

    def per_case(mask: np.ndarray) -> np.ndarray:
        return np.bincount(x.obs_case, weights=mask, minlength=n_cases).astype(np.int64)

    sel = x.obs_selected
    # Position: the first-shown candidate is "a" in order ab (0) and "b" in ba (1).
    decisive_obs = sel != 2
    first_pick = decisive_obs & (sel == x.obs_order)
    stable = (verdict >= 0).all(axis=1)
    first_both = stable & (verdict[:, 0] == 0) & (verdict[:, 1] == 1)
    second_both = stable & (verdict[:, 0] == 1) & (verdict[:, 1] == 0)
    decisive_pair = stable & (verdict != 2).all(axis=1)
    # Length: the longer candidate (-1 when the lengths are equal) and the human-rejected one.
    longer = np.where(x.a_tokens > x.b_tokens, 0, np.where(x.b_tokens > x.a_tokens, 1, -1))
    rejected = np.where(pref == 0, 1, np.where(pref == 1, 0, -1))
    decided = pref != 2
    mirror = decided & (longer >= 0) & (pref == longer)  # humans preferred the longer: error = shorter
    unequal = decided & (longer >= 0)
    picks_longer = sel == longer[x.obs_case]
    # Self-preference's control: no candidate is the judge's own, and the humans decided.
    control = ~x.a_is_judge & ~x.b_is_judge & decided
    picks_rejected = sel == rejected[x.obs_case]
    has_ref = np.ones(n_cases, dtype=bool) if x.has_reference is None else np.asarray(x.has_reference, dtype=bool)
    unnamed = np.full(n_cases, "", dtype=object)
    ab, ba = votes[:, 0, :], votes[:, 1, :]
    return {
        "decisive": per_case(decisive_obs), "first_picks": per_case(first_pick),
        "decisive_pair": decisive_pair, "first_both": first_both, "second_both": second_both,
        "mirror_opportunities": np.where(mirror, obs_per_case, 0),
        "mirror_errors": np.where(mirror, per_case(sel == rejected[x.obs_case]), 0),
        "length_observations": np.where(unequal, obs_per_case, 0),
        "longer_picks": np.where(unequal, per_case(picks_longer), 0),
        "human_longer": unequal & (pref == longer),
        "control_opportunities": np.where(control, obs_per_case, 0),
        "control_errors": np.where(control, per_case(picks_rejected), 0),
        "rejected_longer": decided & (longer >= 0) & (rejected == longer),
        "has_reference": has_ref,
        "a_generator": unnamed if x.a_generator is None else x.a_generator,
        "b_generator": unnamed if x.b_generator is None else x.b_generator,
        "a_votes": ab[:, 0] + ba[:, 0], "b_votes": ab[:, 1] + ba[:, 1], "tie_votes": ab[:, 2] + ba[:, 2],
    }


#: The per-case facts that hold a label (an index into CANDIDATES, -1: none).
_LABELLED = ("preferred", "verdict_ab", "verdict_ba", "majority_ab", "majority_ba", "self_candidate")


def _cases_frame(facts: dict[str, Any]) -> pd.DataFrame:
    """The rows per case (CalibrationMeasurement.cases): the facts, labels as "a", "b", "tie" or None."""
    labels = np.array([*CANDIDATES, None], dtype=object)  # index -1 picks None
    return pd.DataFrame({name: labels[v] if name in _LABELLED else v for name, v in facts.items()})


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


def measure(contract: object, snapshot: object) -> CalibrationMeasurement:
    """Validate as the seed does, then measure every rate exactly (record path)."""
    return _measure_records(_rebuild_contract(contract), _rebuild_snapshot(snapshot))


def _measure_records(c: JudgeCalibrationContract, s: JudgeCalibrationSnapshot) -> CalibrationMeasurement:
    index = {ref.case_id: i for i, ref in enumerate(s.references)}
    check_binding(c, s.scope, s.contract_content_id, len(index))
    metadata: dict[str, tuple[int, int, str, str]] = {}
    present: dict[tuple[str, str], set[int]] = {}
    for ob in s.observations:
        current = (ob.candidate_a_tokens, ob.candidate_b_tokens, ob.candidate_a_generator, ob.candidate_b_generator)
        has_reference = ob.case_id in index
        first = metadata.setdefault(ob.case_id, current) if has_reference else current
        if not has_reference or ob.judge_generator != c.judge_generator or first != current:
            fault = observation_fault(c, (ob.case_id, ob.order, ob.repetition), has_reference, ob.judge_generator,
                                      current, first)
            if fault:
                raise ValueError(fault[1])
        present.setdefault((ob.case_id, ob.order), set()).add(ob.repetition)
    expected = set(range(1, c.repetitions_per_order + 1))
    for case_id in index:
        for order in ORDERS:
            got = present.get((case_id, order), set())
            if got != expected:
                raise ValueError(completeness_message(case_id, order, got, c.repetitions_per_order))
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
        a_generator=np.array([m[2] for m in meta], dtype=object),
        b_generator=np.array([m[3] for m in meta], dtype=object),
    )
    return _measure_arrays(c, (s.scope, s.contract_content_id, s.rubric_digest), x)


# --- deciding --------------------------------------------------------------------------------


#: How the illustrative limits are named wherever they appear: they are an example, not a contract.
ILLUSTRATIVE_LIMITS = "illustrative limits (the seed's example), not a contract"
#: The reason a source without a contract is not decided (with the seed's illustrative limits).
NO_CONTRACT_REASON = "no contract: measured against illustrative limits"
#: ... and with thresholds the user set (a preset, a file, an edit) but still no contract.
NO_CONTRACT_THRESHOLDS_REASON = "no contract: measured against the thresholds in force, not a contract"


@dataclass(frozen=True)
class CalibrationDecision:
    decision: Decision
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
    #: The five gates as decided, in RATE_GATES order (agreebound.core.gate): the decision's only
    #: per-gate result. The seed's view of one is :func:`seed_view`.
    gates: tuple[Gate, ...] = ()
    #: The measured rates the gates were decided on, in the same order: their raw counts, which a
    #: gate's exact (reduced) fraction does not keep, and the seed's basis points. Not a result.
    rates: tuple[Rate, ...] = ()
    #: Reference issues beyond those listed (an out-of-core audit lists the first ISSUE_IDS).
    unlisted_issues: int = 0

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)

    def rate(self, name: str) -> Rate:
        return next(r for r in self.rates if r.name == name)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the decision adds to the measurement's notes: how many reference issues there are
        when only the first are listed (decided here: they depend on ``minimum_reviewers``)."""
        if not self.unlisted_issues:
            return ()
        shown = len(self.reference_issues)
        return (f"{shown + self.unlisted_issues:,} reference issues; the first {shown:,} (in the contract's "
                "order) are listed",)

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


def unavailable(g: Gate) -> str | None:
    """Why this source cannot evaluate a judge gate (a partial audit), in words; None when it can.
    Such a gate is not checked (``passed`` None): it neither passes nor fails."""
    return g.detail if g.passed is None else None


@dataclass(frozen=True)
class SeedView:
    """A judge gate as the seed reads it: its threshold in basis points, and whether the seed's
    comparison of rounded half-up basis points passes (a gate this source cannot evaluate does not)."""

    threshold_bps: int
    passed: bool


def seed_view(g: Gate) -> SeedView:
    """The seed's view of a decided judge gate, the one place it is derived (a gate without a value
    is the seed's 0 bps; half-up rounding of a fraction does not depend on its reduction).

    >>> from agreebound.core.gate import evaluate
    >>> seed_view(evaluate("human_agreement", "min", Fraction(17999, 20000), Fraction(9000, BPS)))
    SeedView(threshold_bps=9000, passed=True)
    """
    threshold_bps = int(g.threshold * BPS)  # a judge threshold is whole basis points
    if g.passed is None:
        return SeedView(threshold_bps, False)
    bps = 0 if g.exact is None else rate_bps(g.exact.numerator, g.exact.denominator)
    return SeedView(threshold_bps, meets(bps, g.kind, threshold_bps))


def reference_issues(counts: JudgeCounts, minimum_reviewers: int,
                     cases: pd.DataFrame | None = None) -> tuple[tuple[str, ...], int]:
    """The references that fail the contract, as it names and sorts them (every "adjudication:<case>"
    before every "reviewers:<case>"), and how many more there are than are listed: the one listing,
    for :func:`decide`. ``cases``: the rows per case when the engine kept them (in memory): every
    issue is listed from their ids. Without them the counts' first ``ISSUE_IDS`` ids of each kind
    hold the first ``ISSUE_IDS`` issues in that order, and the rest are counted.

    >>> m = measure(ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT)  # 4 cases of 2 reviewers, adjudicated
    >>> reference_issues(m.counts, 2)
    ((), 0)
    >>> issues = reference_issues(m.counts, 3)  # a third reviewer required: every reference falls short
    >>> issues[0][:2], issues[1], issues == reference_issues(m.counts, 3, m.cases)
    (('reviewers:case-accuracy', 'reviewers:case-refusal'), 0, True)
    """
    n_low = sum(n for r, n in counts.reviewers.items() if r < minimum_reviewers)
    if cases is None:
        low = sorted(i for r, ids in counts.reviewer_ids.items() if r < minimum_reviewers for i in ids)[:ISSUE_IDS]
        unadjudicated, limit = counts.unadjudicated_ids, ISSUE_IDS
    else:
        if "has_reference" in cases:  # a partial audit: only the cases that have a reference
            cases = cases[cases["has_reference"].to_numpy(dtype=bool)]
        ids = cases["case_id"].astype(object)
        low = ids[cases["reviewers"].to_numpy() < minimum_reviewers].tolist()
        unadjudicated, limit = ids[~cases["adjudicated"].to_numpy(dtype=bool)].tolist(), None
    listed = sorted(["adjudication:" + i for i in unadjudicated] + ["reviewers:" + i for i in low])[:limit]
    return tuple(listed), counts.unadjudicated + n_low - len(listed)


def decide(measurement: CalibrationMeasurement, thresholds: CalibrationThresholds | None = None, *,
           intervals: dict[str, Any] | None = None) -> CalibrationDecision:
    """The calibration decision: the only place rates meet thresholds (exact fractions).

    ``thresholds`` defaults to the contract's own; edited thresholds make a draft contract with
    its own content id, named in the decision. A measurement without a contract the user gave
    (``contract_given`` False) is measured against its limits but never decided: INCOMPLETE, with
    the reason (:data:`NO_CONTRACT_REASON`). ``intervals``: the case-aware 95% intervals
    (uncertainty.judge_rate_intervals) when the caller has them; otherwise the measurement's own
    (its cached diagnostics). Each gate carries its interval, whether it is fragile, and its plan
    (agreebound.core.planner.Plan: the minimum detectable difference, how many more cases would decide it).
    """
    th = thresholds if thresholds is not None else measurement.contract.thresholds
    if not isinstance(th, CalibrationThresholds):
        raise ValueError("thresholds must be CalibrationThresholds")
    if intervals is None and any(r.denominator for r in measurement.rates):
        # the case-aware intervals, cached with the measurement's diagnostics: each gate's interval,
        # whether it is fragile, its plan (how many cases would decide it), strict mode's bound
        intervals = measurement.diagnostics.intervals
    origin = "given"
    if not measurement.contract_given:  # no contract: the gates are measured, nothing is decided
        illustrative = th.contract_fields() == ILLUSTRATIVE_CONTRACT.thresholds.contract_fields()
        origin = "illustrative" if illustrative else "thresholds"
    elif th.contract_fields() != measurement.contract.thresholds.contract_fields():
        origin = "draft"
    source = {"given": "contract"}.get(origin, origin)
    gates = tuple(_rate_gate(measurement, th, name, field_name, kind, intervals, source)
                  for name, field_name, kind in RATE_GATES)
    # the opt-in gates on the bias net of disagreement (a version 2 contract's, or edited thresholds')
    net = tuple(_net_gate(measurement, th, name, field_name, kind, source)
                for name, field_name, kind in NET_GATES if getattr(th, field_name) is not None)
    issues, unlisted = reference_issues(measurement.counts, th.minimum_reviewers, measurement.rows)
    decision, seed_decision, reason = _decision(gates, net, bool(issues))
    if origin in ("illustrative", "thresholds"):
        decision = seed_decision = INCOMPLETE
        reason = NO_CONTRACT_REASON if origin == "illustrative" else NO_CONTRACT_THRESHOLDS_REASON
    return CalibrationDecision(
        decision=decision,
        reference_issues=issues,
        thresholds=th,
        decided_against=measurement.contract.with_thresholds(th),
        bound_content_id=measurement.contract.content_id,
        seed_decision=seed_decision,
        contract_origin="given" if origin == "draft" else origin,
        reason=reason,
        gates=gates + net,
        rates=measurement.rates,
        unlisted_issues=unlisted,
    )


def _decision(gates: tuple[Gate, ...], net: tuple[Gate, ...], issues: bool) -> tuple[Decision, Decision, str | None]:
    """The decision from the decided gates: the seed's five (and its own view of them, rounded) and
    the net gates a contract opted in to (not the seed's: decided exactly in both). A gate that
    cannot be evaluated (passed None) is never a pass: the decision is then INCOMPLETE, unless a gate
    that could be evaluated failed (FAIL), with the reason."""
    checked = gates + net
    failed = issues or any(g.passed is False for g in checked)
    seed_failed = issues or any(g.passed is not None and not seed_view(g).passed for g in gates) or any(
        g.passed is False for g in net)
    unknown = [g for g in checked if g.passed is None]
    if not unknown:
        return (FAIL if failed else PASS), (FAIL if seed_failed else PASS), None
    if failed:
        return FAIL, FAIL, None
    seed_unknown = [g for g in gates if g.passed is None]
    reason = (f"a partial audit: {len(seed_unknown)} of {len(gates)} gates cannot be evaluated from this source"
              if seed_unknown else "")
    net_unknown = [g for g in net if g.passed is None]
    if net_unknown:
        said = "; ".join(f"{g.name}: {g.detail}" for g in net_unknown)
        reason = (reason + "; and " if reason else "") + (
            f"the contract gates on {len(net_unknown)} measure{'' if len(net_unknown) == 1 else 's'} net of "
            f"disagreement this audit cannot measure ({said})")
    return INCOMPLETE, INCOMPLETE, reason


def _rate_gate(measurement: CalibrationMeasurement, th: CalibrationThresholds, name: str, field_name: str,
               kind: str, intervals: dict[str, Any] | None, source: str) -> Gate:
    """One rate against its threshold, exactly (and in strict mode its case-aware bound)."""
    rate: Rate = getattr(measurement, name)
    t = getattr(th, field_name)
    limit = Fraction(t, BPS)
    flip = cases_to_flip(rate.numerator, rate.denominator, t, kind)
    common = dict(unit="%", threshold_field=field_name, threshold_source=source, strict=th.strict,
                  cases_to_decide=flip)
    if name in measurement.unavailable:  # a partial audit: this source cannot evaluate the gate
        return Gate(name, kind, None, limit, None, state=NOT_EVALUABLE, detail=measurement.unavailable[name],
                    **common)  # type: ignore[arg-type]
    if not rate.denominator:  # no opportunity: as the seed, a minimum above 0 is not met, a maximum is
        passed = meets(0, kind, t)
        return Gate(name, kind, None, limit, passed, passed, state=NOT_EVALUABLE, detail="no opportunities",
                    **common)  # type: ignore[arg-type]
    iv = (intervals or {}).get(name)
    bound_passed = None
    if th.strict:
        # the case-aware interval (observations of one case are not independent); the
        # observation-level Wilson only if the rate has no per-case counts
        w = iv or Wilson(rate.numerator, rate.denominator)
        bound_passed = w.low_at_least(limit) if kind == "min" else w.high_at_most(limit)
    g = evaluate(name, kind, rate.value, limit, low=None if iv is None else iv.low,
                 high=None if iv is None else iv.high, interval_method="" if iv is None else iv.method,
                 bound_passed=bound_passed, **common)  # type: ignore[arg-type]
    if iv is None:
        return g
    # how many cases would decide it: at the interval's own design effect (agreebound.core.planner.plan_rate)
    return replace(g, plan=plan_rate(rate.value, limit, observations=iv.observations, cases=iv.cases,
                                     design_effect=iv.deff, fragile=g.fragile))


def _net_gate(measurement: CalibrationMeasurement, th: CalibrationThresholds, name: str, field_name: str,
              kind: str, source: str) -> Gate:
    """An opt-in gate on a bias measure net of disagreement (agreebound.judge.bias): its exact value
    (a difference, possibly negative) against the contract's maximum; in strict mode its interval's
    upper bound too. A source that cannot measure it leaves it unchecked; no opportunities pass it,
    as the seed passes a maximum with nothing to count."""
    m = measurement.bias[name]
    limit = Fraction(getattr(th, field_name), BPS)
    common = dict(unit="%", threshold_field=field_name, threshold_source=source, strict=th.strict)
    if m.exact is None:
        raw = GATE_OF[name]
        if raw not in measurement.unavailable and measurement.counts.rates[raw].denominator == 0:
            # nothing for the raw rate to count: as the seed passes a maximum with no opportunity
            return Gate(name, kind, None, limit, True, True, state=NOT_EVALUABLE, detail=m.unavailable,
                        **common)  # type: ignore[arg-type]
        # the source lacks what it needs, or the comparison set is empty: not checked, never a pass
        return Gate(name, kind, None, limit, None, state=NOT_EVALUABLE, detail=m.unavailable,
                    **common)  # type: ignore[arg-type]
    g = evaluate(name, kind, m.exact, limit, low=m.low, high=m.high, interval_method=m.method,
                 **common)  # type: ignore[arg-type]
    if m.se is None:  # no interval: nothing to plan from
        return g
    return replace(g, plan=plan_difference(m.exact, limit, variance=m.se * m.se,
                                           srs_variance=m.se * m.se / m.design_effect if m.design_effect else None,
                                           cases=m.cases, fragile=g.fragile))


def with_intervals(gates: Sequence[Gate], intervals: dict[str, Any] | None) -> tuple[Gate, ...]:
    """The gates with the case-aware 95% intervals (uncertainty.judge_rate_intervals) a decision
    made without them lacks, and whether each is fragile; a gate that has its interval, or has no
    value, is kept as decided. For screens that hold the intervals apart from the decision."""
    out = []
    for g in gates:
        iv = (intervals or {}).get(g.name)
        if iv is None or g.exact is None or g.low is not None or g.threshold is None:
            out.append(g)
            continue
        out.append(replace(g, low=iv.low, high=iv.high, interval_method=iv.method,
                           fragile=straddles(iv.low, iv.high, g.kind, g.threshold)))
    return tuple(out)


def gates_from_report(rates: Sequence[dict[str, Any]]) -> tuple[Gate, ...]:
    """The judge's gates from a stored JSON report's ``calibration.rates``, for reports that do not
    carry them: as decided and stored (``passed``), a gate that could not be evaluated is not
    checked (None). The one place a stored judge report is read back as gates."""
    out = []
    for r in rates:
        evaluable = bool(r.get("evaluable")) and not r.get("unavailable")
        t = None if r.get("threshold_bps") is None else Fraction(r["threshold_bps"], BPS)
        value = Fraction(r["exact"]) if evaluable and r.get("exact") is not None else None
        iv = r.get("interval95") or [None, None]
        flip = r.get("cases_to_flip")
        common = dict(unit="%", threshold_field={"min": "minimum_", "max": "maximum_"}[r["kind"]] + r["name"] + "_bps",
                      threshold_source="stored", cases_to_decide=None if not flip else (flip["direction"], flip["cases"]),
                      interval_method=r.get("interval_method") or "")
        if value is None or t is None:
            out.append(Gate(r["name"], r["kind"], value, t, bool(r["passed"]) if evaluable else None,  # type: ignore[arg-type]
                            state="measured" if evaluable else NOT_EVALUABLE, low=iv[0], high=iv[1],
                            detail=r.get("unavailable") or ("" if evaluable else "no opportunities"), **common))
            continue
        g = evaluate(r["name"], r["kind"], value, t, low=iv[0], high=iv[1], bound_passed=r.get("bound_passed"),
                     strict=r.get("bound_passed") is not None, **common)  # type: ignore[arg-type]
        out.append(replace(g, passed=bool(r["passed"])))
    # the plan as stored (reports written before plans have none)
    return tuple(replace(g, plan=Plan.from_dict(r.get("plan"))) for g, r in zip(out, rates))


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
        # the distinct values as Python str in one conversion (not one arrow scalar at a time)
        return _Factor(np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object).tolist())
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


def valid_reviewers(items: tuple[Any, ...]) -> bool:
    """A reference's reviewers: canonical ids in strictly increasing order, at least one (the rule
    the engines' SQL restates; tests/test_judge_engine.py holds DuckDB's to it)."""
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
            table = np.fromiter((valid_reviewers(u) for u in uniques), dtype=bool, count=len(uniques))
            out[hashable] = table[codes]
    for i in np.flatnonzero(~kinds):
        v = values[i]
        if isinstance(v, (list, np.ndarray)):
            out[i] = valid_reviewers(tuple(_py(v)))
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
            raise FrameError(str(error), what, int(i), field_of(error)) from None


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
    list per row.  Text is validated once per distinct value, not once per row. Each check finds
    the first offending row at once; its message is the record path's (the snapshot's rules).
    """
    c = _rebuild_contract(contract)
    refs = _require_columns(references, REFERENCE_FIELDS, "references")
    obs = _require_columns(observations, OBSERVATION_FIELDS, "observations")
    f = _check_records(refs, obs)
    fault = header_fault(scope, contract_content_id, rubric_digest)
    if fault:
        raise FrameError(fault[1], "snapshot", None, fault[0])
    if len(refs) == 0:
        raise FrameError(NO_REFERENCES, "references")
    if len(obs) == 0:
        raise FrameError(NO_OBSERVATIONS, "observations")
    _check_keys(f)
    fault = binding_fault(c, scope, contract_content_id, len(refs))
    if fault:
        raise FrameError(fault[1], "snapshot", None, fault[0])
    obs_case, first = _check_observations(c, f)
    _check_complete(c, f, obs_case)
    return _measure_arrays(c, (scope, contract_content_id, rubric_digest), _frame_arrays(c, f, obs_case, first))  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Frames:
    """The frames with their text columns factored and the observations' keys read (validated)."""

    refs: pd.DataFrame
    obs: pd.DataFrame
    rf: dict[str, _Factor]
    of: dict[str, _Factor]
    order: np.ndarray  # per observation: 0 ab, 1 ba
    repetition: np.ndarray
    a_tokens: np.ndarray
    b_tokens: np.ndarray

    def describe(self, i: int) -> tuple[str, str, int]:
        """Observation i's key as the record holds it."""
        return self.of["case_id"].uniques[self.of["case_id"].codes[i]], ORDERS[self.order[i]], int(self.repetition[i])


def _check_records(refs: pd.DataFrame, obs: pd.DataFrame) -> _Frames:
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
        return obs[name].to_numpy().astype(np.int64)

    return _Frames(refs, obs, rf, of, of["order"].mapped({"ab": 0, "ba": 1}), ints("repetition"),
                   ints("candidate_a_tokens"), ints("candidate_b_tokens"))


def _check_keys(f: _Frames) -> None:
    """No two references of one case, no two observations of one (case, order, repetition)."""
    ref_codes = f.rf["case_id"].codes  # all valid now: distinct codes <=> distinct case ids
    dup = pd.Series(ref_codes).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError(duplicate_reference(f.rf["case_id"].uniques[ref_codes[i]]), "references", i, "case_id")
    key = (f.of["case_id"].codes * 2 + f.order) * MAX_REPETITION + (f.repetition - 1)  # repetition is 1..MAX here
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise FrameError(duplicate_observation(*f.describe(i)), "observations", i, "repetition")


def _check_observations(c: JudgeCalibrationContract, f: _Frames) -> tuple[np.ndarray, np.ndarray]:
    """Each observation, in order, has a reference, is of the contract's judge and carries its
    case's first metadata. Returns each observation's case (index into the references) and each
    case's first observation."""
    of, obs = f.of, f.obs
    ref_of_unique = pd.Index(f.rf["case_id"].uniques).get_indexer(of["case_id"].uniques)
    obs_case = np.append(ref_of_unique, -1)[of["case_id"].codes]
    no_ref = obs_case < 0
    other_judge = ~of["judge_generator"].ok(c.judge_generator.__eq__)
    metadata = (f.a_tokens, f.b_tokens, of["candidate_a_generator"].codes, of["candidate_b_generator"].codes)
    safe_case = np.where(no_ref, 0, obs_case)
    first = np.full(len(f.refs), -1, dtype=np.int64)
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
            return tuple(_py(obs[name].iloc[row]) for name in METADATA_FIELDS)

        fault = observation_fault(c, f.describe(i), not no_ref[i], _py(obs["judge_generator"].iloc[i]), values(i),
                                  values(j))
        assert fault is not None  # a mask says this row breaks a rule, the rule says which
        raise FrameError(fault[1], "observations", i, fault[0])
    return obs_case.astype(np.int64), first


def _check_complete(c: JudgeCalibrationContract, f: _Frames, obs_case: np.ndarray) -> None:
    """Every (case, order) holds exactly the repetitions 1..R (keys are unique already)."""
    reps, n_refs = c.repetitions_per_order, len(f.refs)
    group = obs_case * 2 + f.order
    good = np.bincount(group[f.repetition <= reps], minlength=2 * n_refs)
    total = np.bincount(group, minlength=2 * n_refs)
    incomplete = (good != reps) | (total != reps)
    if incomplete.any():
        g = int(np.flatnonzero(incomplete)[0])
        cid = f.rf["case_id"].uniques[f.rf["case_id"].codes[g // 2]]
        raise FrameError(completeness_message(cid, ORDERS[g % 2], set(f.repetition[group == g].tolist()), reps),
                         "observations", None, "repetition")


def _frame_arrays(c: JudgeCalibrationContract, f: _Frames, obs_case: np.ndarray, first: np.ndarray) -> _Arrays:
    """The validated frames as the columns the measurement reads."""
    rf, of, refs = f.rf, f.of, f.refs
    judge = c.judge_generator
    a_gen, b_gen = of["candidate_a_generator"], of["candidate_b_generator"]
    a_judge = np.append(a_gen.ok(judge.__eq__), False)
    b_judge = np.append(b_gen.ok(judge.__eq__), False)
    a_names = np.asarray(a_gen.uniques, dtype=object)[a_gen.codes[first]]
    b_names = np.asarray(b_gen.uniques, dtype=object)[b_gen.codes[first]]
    return _Arrays(
        case_ids=np.asarray(rf["case_id"].uniques, dtype=object)[rf["case_id"].codes],
        preferred=rf["preferred_candidate"].mapped(_CODE),
        reviewers=refs["reviewer_ids"].map(len).to_numpy().astype(np.int64),
        adjudicated=refs["adjudicated"].to_numpy().astype(bool),
        obs_case=obs_case,
        obs_order=f.order,
        obs_selected=of["selected_candidate"].mapped(_CODE),
        a_tokens=f.a_tokens[first],
        b_tokens=f.b_tokens[first],
        a_is_judge=a_judge[first],
        b_is_judge=b_judge[first],
        same_generator=a_names == b_names,
        a_generator=a_names,
        b_generator=b_names,
    )


def audit_frames(contract: object, references: pd.DataFrame, observations: pd.DataFrame, *,
                 scope: object, contract_content_id: object, rubric_digest: object) -> CalibrationReport:
    """:func:`audit_calibration` on frames: identical results and identical error conditions."""
    m = measure_frames(contract, references, observations, scope=scope,
                       contract_content_id=contract_content_id, rubric_digest=rubric_digest)
    snap = FrameSnapshot(m.scope, m.contract_content_id, m.rubric_digest,
                         _require_columns(references, REFERENCE_FIELDS, "references"),
                         _require_columns(observations, OBSERVATION_FIELDS, "observations"))
    return _seed_report(m, snap)


# --- partial audits (judge logs that lack what some gates need) --------------------------------

#: What each gate needs besides the judge's verdicts.
GATE_NEEDS = {
    "human_agreement": ("references",),
    "position_flip": ("orders",),
    "repeat_variance": ("orders", "repetitions"),
    "verbosity_bias": ("references", "lengths"),
    "self_preference": ("references", "generators"),
}
#: The rates a partial audit counts over every case (they need no human reference).
EVERY_CASE = ("position_flip", "repeat_variance", "first_slot", "flip_decisive")
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
    without a reference count only in the gates that need no reference. Measured as every audit
    is (:func:`measure_counts`), over counts that take each gate's cases: those with a reference
    for the gates (and reference facts) that need one, every case for the others.
    """
    lacks = set(lacks) | ({"references"} if references is None or len(references) == 0 else set())
    x, has_ref = _log_arrays(contract, observations, references)
    facts = _case_facts(x)
    everyone, referenced = from_facts(facts), from_facts(facts, only=has_ref)
    # the gates that need no human reference, and the flips behind them, count every case
    counts = replace(referenced, n_cases=everyone.n_cases, n_observations=everyone.n_observations,
                     rates={**referenced.rates, **{n: everyone.rates[n] for n in EVERY_CASE}},
                     noisy_flips=everyone.noisy_flips, first_both=everyone.first_both,
                     second_both=everyone.second_both, verdicts=everyone.verdicts,
                     first_lean=everyone.first_lean, second_lean=everyone.second_lean)
    unavailable = {name: advice for name in GATE_NEEDS if (advice := gate_advice(name, lacks, contract))}
    n = len(has_ref)
    notes = []
    if has_ref.any() and not has_ref.all():
        notes.append(f"{int((~has_ref).sum()):,} of {n:,} cases have no human reference: they count in position "
                     "flip and repeat variance only")
    cases = _cases_frame(facts)
    cases["has_reference"] = has_ref
    cases.loc[~has_ref, "preferred"] = None
    return measure_counts(contract, header, counts, cases=cases, unavailable=unavailable, notes=tuple(notes))


def _log_arrays(contract: JudgeCalibrationContract, obs: pd.DataFrame,
                references: pd.DataFrame | None) -> tuple[_Arrays, np.ndarray]:
    """A judge log's observations (and references, if any) as the columns the measurement reads,
    and which cases have a reference. A case's candidates are its first observation's; a case
    without a reference is read as a tie (it counts in no gate that needs a reference)."""
    case_ids = list(pd.unique(obs["case_id"]))
    index = {c: i for i, c in enumerate(case_ids)}
    obs_case = obs["case_id"].map(index).to_numpy(dtype=np.int64)
    n = len(case_ids)
    first = np.full(n, -1, dtype=np.int64)
    first[obs_case[::-1]] = np.arange(len(obs))[::-1]

    def per_case(column: str, default: Any) -> np.ndarray:
        if column not in obs or obs[column].isna().all():
            return np.full(n, default, dtype=type(default) if not isinstance(default, str) else object)
        return obs[column].to_numpy()[first]

    a_gen, b_gen = per_case("candidate_a_generator", ""), per_case("candidate_b_generator", "")
    if references is not None and len(references):
        ref = references.set_index("case_id")
        pref = np.array([_CODE.get(ref["preferred_candidate"].get(c), 2) if c in ref.index else 2 for c in case_ids])
        has_ref = np.array([c in ref.index for c in case_ids])
        reviewers = np.array([len(ref["reviewer_ids"][c]) if c in ref.index else 0 for c in case_ids], dtype=np.int64)
        adjudicated = np.array([bool(ref["adjudicated"][c]) if c in ref.index else False for c in case_ids])
    else:
        pref, has_ref = np.full(n, 2), np.zeros(n, dtype=bool)
        reviewers, adjudicated = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    judge = contract.judge_generator
    return _Arrays(case_ids, pref, reviewers, adjudicated, obs_case,
                   obs["order"].map({"ab": 0, "ba": 1}).fillna(0).to_numpy(dtype=np.int64),
                   obs["selected_candidate"].map(_CODE).to_numpy(dtype=np.int64),
                   np.asarray(per_case("candidate_a_tokens", 0), dtype=np.int64),
                   np.asarray(per_case("candidate_b_tokens", 0), dtype=np.int64),
                   np.array([g == judge for g in a_gen], dtype=bool), np.array([g == judge for g in b_gen], dtype=bool),
                   np.array([a == b for a, b in zip(a_gen, b_gen)], dtype=bool),
                   np.asarray(a_gen, dtype=object), np.asarray(b_gen, dtype=object), has_ref), has_ref


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
