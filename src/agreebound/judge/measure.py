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
from dataclasses import dataclass, field, fields
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Literal, Mapping, Sequence
import numpy as np
from agreebound.judge.columns import Columns, n_rows
from agreebound.judge.contract import (
    CANDIDATES,
    HumanReference,
    JudgeCalibrationContract,
    JudgeCalibrationSnapshot,
    JudgeObservation,
    OBSERVATION_FIELDS,
    ORDERS,
    REFERENCE_FIELDS,
    check_binding,
    completeness_message,
    observation_fault,
    rate_bps,
)
from agreebound.judge.headline import Headline, corrected_headline
from agreebound.judge.bias import BiasMeasures, measure_bias
from agreebound.judge.counts import JudgeCounts, RateStats, from_facts
from agreebound.core.thresholds import RATE_GATES
from agreebound.judge.intervals import JudgeDiagnostics, judge_diagnostics

if TYPE_CHECKING:
    import pandas as pd



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
    #: self_candidate, self_opportunities, self_errors; as columns (agreebound.judge.columns), None
    #: out of core. :attr:`cases` is the same rows as a pandas frame.
    case_rows: Columns | None = field(repr=False, compare=False)
    #: A partial audit: rate name -> why it cannot be computed from this source, in words
    #: ("the file has no candidate lengths"). Empty for the seed's full audit.
    unavailable: dict[str, str] = field(default_factory=dict, compare=False)
    #: A partial audit's notes on coverage ("12 cases have no human reference").
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: The audit's counts (agreebound.judge.counts) that every rate, interval and diagnostic is read
    #: from, whichever engine summed them. Out of core they stand in for the rows per case
    #: (``cases`` is then empty, and the counts list the first reference issues). Every measurement
    #: has them (:func:`measure_counts` names them).
    counts: JudgeCounts = field(compare=False, repr=False, kw_only=True)
    #: False when the user gave no contract (a judge log alone): the contract is drafted from the
    #: log with the seed's illustrative limits, and :func:`decide` measures but never decides.
    contract_given: bool = field(default=True, compare=False)

    @property
    def rates(self) -> tuple[Rate, ...]:
        return tuple(getattr(self, name) for name, _, _ in RATE_GATES)

    @property
    def partial(self) -> bool:
        return bool(self.unavailable)

    @cached_property
    def cases(self) -> "pd.DataFrame":
        """The rows per case as a pandas frame (imports pandas; its text columns pandas' str); empty
        out of core. A partial audit's case without a human reference prefers nothing (None)."""
        if self.case_rows is None:
            return _no_cases()
        import pandas as pd

        frame = pd.DataFrame(self.case_rows)
        if "has_reference" in frame:
            frame.loc[~frame["has_reference"].to_numpy(dtype=bool), "preferred"] = None
        return frame

    @property
    def rows(self) -> Columns | None:
        """The rows per case as columns (a dict by field: its length is the number of fields, the
        cases' is ``n_rows``) when the engine kept them (in memory); None out of core. In a partial
        audit, ``preferred`` is read where ``has_reference`` is true."""
        return self.case_rows if self.case_rows is not None and n_rows(self.case_rows) else None

    @property
    def bound(self) -> bool:
        """The snapshot names this contract's content; a source without a contract is bound to none."""
        return self.contract_given and self.contract_content_id == self.contract.content_id

    @cached_property
    def diagnostics(self) -> JudgeDiagnostics:
        """The audit's diagnostics and case-clustered intervals (agreebound.judge.intervals.judge_diagnostics; they
        compute an alpha): once per measurement, whoever reads them first (a page, a report)."""
        return judge_diagnostics(self)

    @cached_property
    def bias(self) -> BiasMeasures:
        """Bias or disagreement? The measures beside the five gates (agreebound.judge.bias), from the
        counts: once per measurement."""
        return measure_bias(self.counts, self.unavailable, judge=self.contract.judge_generator)

    @cached_property
    def headline(self) -> Headline:
        """The corrected headline (agreebound.judge.headline): each model pair's win rate by the judge alone,
        corrected by the cases with a human reference (prediction-powered), and by the humans alone."""
        return corrected_headline(self.counts)

    def rate_stats(self) -> dict[str, RateStats]:
        """Each rate's per-case sums (agreebound.judge.counts.RateStats, from the counts), for the case-aware
        intervals; empty for a measurement without counts (the intervals then say so)."""
        return dict(self.counts.rates) if self.counts is not None else {}


def measure_counts(contract: JudgeCalibrationContract, header: tuple[str, str, str], counts: JudgeCounts, *,
                   rows: Columns | None = None, unavailable: dict[str, str] | None = None,
                   notes: tuple[str, ...] = ()) -> CalibrationMeasurement:
    """The measurement of an audit's counts (agreebound.judge.counts), whichever engine summed them:
    each rate is its numerator over its denominator (:class:`Rate`; its basis points half-up, as the
    seed rounds), with its per-case sums for the case-aware intervals.

    ``rows``: the rows per case when the engine keeps them (in memory; :func:`case_columns`): the decision then lists
    every reference issue from them. Without them (out of core) the counts list the first
    ``ISSUE_IDS`` and the decision's notes say how many there are (:func:`reference_issues`: which
    references are issues depends on ``minimum_reviewers``, a threshold, so only ``decide`` says).
    ``unavailable``: a partial audit's rates this source cannot measure (name -> why, in words);
    their counts are what the source holds, and :func:`decide` does not evaluate them.

    The seed's illustrative example (``agreebound example``), one rate at a time:

    >>> from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT
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
    agreement, flip, repeat, verbosity, self_pref = (Rate(name, counts.rates[name].numerator,
                                                          counts.rates[name].denominator) for name, _, _ in RATE_GATES)
    return CalibrationMeasurement(contract, header[0], header[1], header[2], counts.n_cases, counts.n_observations,
                                  agreement, flip, repeat, verbosity, self_pref,
                                  rows, dict(unavailable or {}), notes,
                                  counts=counts)


def _no_cases() -> "pd.DataFrame":
    """An out-of-core measurement's rows per case: none (the counts stand in for them)."""
    import pandas as pd

    return pd.DataFrame({name: pd.Series(dtype=object) for name in (
        "case_id", "preferred", "reviewers", "adjudicated", "observations", "agreements")})


@dataclass(frozen=True)
class CaseArrays:
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


def measure_arrays(contract: JudgeCalibrationContract, header: tuple[str, str, str], x: CaseArrays) -> CalibrationMeasurement:
    """The in-memory engine: the facts of each case, their counts, and the measurement of those."""
    facts = case_facts(x)
    return measure_counts(contract, header, from_facts(facts), rows=case_columns(facts))


def case_facts(x: CaseArrays) -> dict[str, np.ndarray]:
    """Each case's facts (agreebound.judge.counts.FACTS, and the verdicts and self-candidate the per-case view
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


def _bias_facts(x: CaseArrays, votes: np.ndarray, verdict: np.ndarray, obs_per_case: np.ndarray,
                self_cand: np.ndarray) -> dict[str, np.ndarray]:
    """Each case's facts beside the seed's (agreebound.judge.counts.EXTRA_RATE_NAMES and what follows it):
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
        # every decisive verdict of order ab paired with every decisive verdict of order ba
        "pair_flips": ab[:, 0] * ba[:, 1] + ab[:, 1] * ba[:, 0],
        "pair_decisive": (ab[:, 0] + ab[:, 1]) * (ba[:, 0] + ba[:, 1]),
    }


#: The per-case facts that hold a label (an index into CANDIDATES, -1: none).
_LABELLED = ("preferred", "verdict_ab", "verdict_ba", "majority_ab", "majority_ba", "self_candidate")


def case_columns(facts: Mapping[str, np.ndarray]) -> Columns:
    """The rows per case (CalibrationMeasurement.case_rows): the facts, labels as "a", "b", "tie" or None."""
    labels = np.array([*CANDIDATES, None], dtype=object)  # index -1 picks None
    return {name: labels[v] if name in _LABELLED else v for name, v in facts.items()}


LABEL_CODE = {"a": 0, "b": 1, "tie": 2}


def rebuild_contract(value: object) -> JudgeCalibrationContract:
    if type(value) is not JudgeCalibrationContract:
        raise ValueError("contract must be exact JudgeCalibrationContract")
    try:
        return JudgeCalibrationContract(*(getattr(value, f.name) for f in fields(JudgeCalibrationContract)))
    except (AttributeError, TypeError):
        raise ValueError("contract failed reconstruction") from None


def rebuild_snapshot(value: object) -> JudgeCalibrationSnapshot:
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
        for seen in value.observations:
            if type(seen) is not JudgeObservation:
                raise ValueError("observations must contain exact JudgeObservation records")
            obs.append(JudgeObservation(*(getattr(seen, n) for n in OBSERVATION_FIELDS)))
        return JudgeCalibrationSnapshot(value.scope, value.contract_content_id, value.rubric_digest, tuple(refs), tuple(obs))
    except (AttributeError, TypeError):
        raise ValueError("snapshot failed reconstruction") from None


def measure(contract: object, snapshot: object) -> CalibrationMeasurement:
    """Validate as the seed does, then measure every rate exactly (record path)."""
    return measure_records(rebuild_contract(contract), rebuild_snapshot(snapshot))


def measure_records(c: JudgeCalibrationContract, s: JudgeCalibrationSnapshot) -> CalibrationMeasurement:
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
    x = CaseArrays(
        case_ids=[ref.case_id for ref in s.references],
        preferred=np.array([LABEL_CODE[ref.preferred_candidate] for ref in s.references], dtype=np.int64),
        reviewers=np.array([len(ref.reviewer_ids) for ref in s.references], dtype=np.int64),
        adjudicated=np.array([ref.adjudicated for ref in s.references], dtype=bool),
        obs_case=np.array([index[ob.case_id] for ob in s.observations], dtype=np.int64),
        obs_order=np.array([ob.order == "ba" for ob in s.observations], dtype=np.int64),
        obs_selected=np.array([LABEL_CODE[ob.selected_candidate] for ob in s.observations], dtype=np.int64),
        a_tokens=np.array([m[0] for m in meta], dtype=np.int64),
        b_tokens=np.array([m[1] for m in meta], dtype=np.int64),
        a_is_judge=np.array([m[2] == c.judge_generator for m in meta], dtype=bool),
        b_is_judge=np.array([m[3] == c.judge_generator for m in meta], dtype=bool),
        same_generator=np.array([m[2] == m[3] for m in meta], dtype=bool),
        a_generator=np.array([m[2] for m in meta], dtype=object),
        b_generator=np.array([m[3] for m in meta], dtype=object),
    )
    return measure_arrays(c, (s.scope, s.contract_content_id, s.rubric_digest), x)


