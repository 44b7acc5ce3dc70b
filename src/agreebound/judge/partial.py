"""Partial audits: judge logs that lack what some gates need; each missing gate says why."""

from __future__ import annotations
from dataclasses import replace
from typing import Sequence
import numpy as np
import pandas as pd
from agreebound.judge.contract import (
    JudgeCalibrationContract,
)
from agreebound.judge.counts import from_facts
from agreebound.judge.measure import CalibrationMeasurement, CaseArrays, LABEL_CODE, case_facts, case_columns, measure_counts


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
EVERY_CASE = ("position_flip", "repeat_variance", "first_slot", "flip_decisive", "flip_pairs")
#: Each need, missing, in words: what is missing and what supplies it; when only another log could
#: supply it (not a second file), it says this source never can. "repetitions" is said with the
#: contract's repetitions (:func:`lack_text`).
LACKS = {
    "references": "the source has no human references (give them as a second file)",
    # human references were given, and none of them is for a case of the log
    "references_unjoined": "the human references given are for none of the log's cases (they join by case id, by "
                           "question, turn and model pair, or by instruction and generator pair: check they are this "
                           "log's)",
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
    given = "references_unjoined" in lacks  # the references were given: say they joined nothing
    missing = [lack_text("references_unjoined" if need == "references" and given else need, contract)
               for need in GATE_NEEDS[name] if need in lacks]
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
    lacking = set(lacks) | ({"references"} if references is None or len(references) == 0 else set())
    x, has_ref = _log_arrays(contract, observations, references)
    facts = case_facts(x)
    everyone, referenced = from_facts(facts), from_facts(facts, only=has_ref)
    # the gates that need no human reference, and the flips behind them, count every case
    counts = replace(referenced, n_cases=everyone.n_cases, n_observations=everyone.n_observations,
                     rates={**referenced.rates, **{n: everyone.rates[n] for n in EVERY_CASE}},
                     noisy_flips=everyone.noisy_flips, first_both=everyone.first_both,
                     second_both=everyone.second_both, verdicts=everyone.verdicts,
                     first_lean=everyone.first_lean, second_lean=everyone.second_lean)
    unavailable = {name: advice for name in GATE_NEEDS if (advice := gate_advice(name, lacking, contract))}
    n = len(has_ref)
    notes = []
    if has_ref.any() and not has_ref.all():
        notes.append(f"{int((~has_ref).sum()):,} of {n:,} cases have no human reference: they count in position "
                     "flip and repeat variance only")
    rows = case_columns(facts)
    rows["has_reference"] = has_ref  # its preferred is read only where it has one (the frame shows None)
    return measure_counts(contract, header, counts, rows=rows, unavailable=unavailable, notes=tuple(notes))


def _log_arrays(contract: JudgeCalibrationContract, obs: pd.DataFrame,
                references: pd.DataFrame | None) -> tuple[CaseArrays, np.ndarray]:
    """A judge log's observations (and references, if any) as the columns the measurement reads,
    and which cases have a reference. A case's candidates are its first observation's; a case
    without a reference is read as a tie (it counts in no gate that needs a reference)."""
    case_ids = list(pd.unique(obs["case_id"]))
    index = {c: i for i, c in enumerate(case_ids)}
    obs_case = obs["case_id"].map(index).to_numpy(dtype=np.int64)
    n = len(case_ids)
    first = np.full(n, -1, dtype=np.int64)
    first[obs_case[::-1]] = np.arange(len(obs))[::-1]

    def per_case(column: str, default: str | bool | int) -> np.ndarray:
        if column not in obs or obs[column].isna().all():
            return np.full(n, default, dtype=type(default) if not isinstance(default, str) else object)
        return obs[column].to_numpy()[first]

    a_gen, b_gen = per_case("candidate_a_generator", ""), per_case("candidate_b_generator", "")
    if references is not None and len(references):
        ref = references.set_index("case_id")
        pref = np.array([LABEL_CODE.get(ref["preferred_candidate"].get(c), 2) if c in ref.index else 2 for c in case_ids])
        has_ref = np.array([c in ref.index for c in case_ids])
        reviewers = np.array([len(ref["reviewer_ids"][c]) if c in ref.index else 0 for c in case_ids], dtype=np.int64)
        adjudicated = np.array([bool(ref["adjudicated"][c]) if c in ref.index else False for c in case_ids])
    else:
        pref, has_ref = np.full(n, 2), np.zeros(n, dtype=bool)
        reviewers, adjudicated = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    judge = contract.judge_generator
    return CaseArrays(case_ids, pref, reviewers, adjudicated, obs_case,
                   obs["order"].map({"ab": 0, "ba": 1}).fillna(0).to_numpy(dtype=np.int64),
                   obs["selected_candidate"].map(LABEL_CODE).to_numpy(dtype=np.int64),
                   np.asarray(per_case("candidate_a_tokens", 0), dtype=np.int64),
                   np.asarray(per_case("candidate_b_tokens", 0), dtype=np.int64),
                   np.array([g == judge for g in a_gen], dtype=bool), np.array([g == judge for g in b_gen], dtype=bool),
                   np.array([a == b for a, b in zip(a_gen, b_gen)], dtype=bool),
                   np.asarray(a_gen, dtype=object), np.asarray(b_gen, dtype=object), has_ref), has_ref


