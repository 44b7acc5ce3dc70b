"""The ranking of a pairwise judge's models as the reports and the Judge page give it: made here once
(agreebound.judge.ranking does the arithmetic), so a command line report, a dashboard download and
the page show the same numbers.

* **The ranking**: Bradley-Terry ratings from the judge's verdicts with the bootstrap's
  :data:`~agreebound.judge.ranking.DRAWS` draws and its fixed seed (the same data give the same
  intervals in every report). The command line computes it only when asked (``--ranking``, or a
  gate with ``--beats``): 1,000 draws cost about 0.3 s on the MT-Bench sample log and 0.5 to 1 s
  on 20,000 judgments, more than a default run should pay for a section nobody asked for.
* **The gate** (:class:`~agreebound.judge.ranking.RankingGate`, threshold data: "model X beats the
  baseline Y by at least a margin"), decided by ``decide_gate``. It is information beside the
  calibration: it never changes the judge's decision nor the exit code (the judge can be sound
  and the model weaker, or the reverse). Strict mode (``--strict``, a thresholds file's
  ``strict``) makes it decide on the interval's bound too.
* **The prediction-powered ratings** when the references hold human labels for some cases: the
  judge's verdicts rectified by the humans' (ppi_ratings), anchored at the first model in name
  order (an anchor the correction cannot move, unlike the judge-only top), beside the judge-only
  ratings shifted to the same anchor, with a sentence on how far the humans move them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agreebound.core.json_types import JSONObject
from agreebound.judge.ranking import (NoRatings, PPIRatings, Ranking, RankingDecision, RankingGate, battles_of,
                                      decide_gate, no_ranking_dict, ppi_ratings, rank, ranking_dict)

if TYPE_CHECKING:
    import pandas as pd
    from agreebound.app.judge_input import JudgeBundle
    from agreebound.core.thresholds import ThresholdSet


def ranking_of(bundle: JudgeBundle) -> Ranking | str:
    """The bundle's ranking, or why there is none (a sentence)."""
    if "candidate_a_generator" not in bundle.observations.columns:
        return "No ranking: the judgments do not name the two candidates' generators (models)."
    b = battles_of(bundle.observations)
    if b.empty:
        return "No ranking: the judgments do not name the two candidates' generators (models)."
    if b[["model_a", "model_b"]].stack().nunique() < 2:
        return "No ranking: every judgment compares the same model with itself."
    try:
        return rank(b)
    except NoRatings as e:
        return f"No ranking: {e}."


def human_labels(bundle: JudgeBundle) -> dict[str, str]:
    """Each case's human reference (a, b or tie, in candidate terms) from the bundle's references."""
    refs = getattr(bundle, "references", None)  # a bundle read out of core, or a stand-in, may have none
    if refs is None or refs.empty or "preferred_candidate" not in refs.columns:
        return {}
    return {str(c): str(p) for c, p in zip(refs["case_id"], refs["preferred_candidate"]) if p in ("a", "b", "tie")}


def ppi_of(bundle: JudgeBundle, ranking: Ranking | str) -> PPIRatings | str | None:
    """The prediction-powered ratings anchored at the first model in name order, why there are none
    though human labels exist (a sentence), or None without human labels (nothing to say)."""
    human = human_labels(bundle)
    if not human or isinstance(ranking, str):
        return None
    anchor = min(ranking.models)
    battles = battles_of(bundle.observations)
    if set(battles["case_id"]) <= set(human):
        return ("No prediction-powered ranking: every case has a human label, so the judge's verdicts have "
                "nothing to add (rank the humans' own verdicts instead).")
    try:
        return ppi_ratings(battles, human, anchor)
    except ValueError as e:  # numpy's LinAlgError is a ValueError too
        return f"No prediction-powered ranking: {e}."


def gate_in_force(gate: RankingGate, t: ThresholdSet | None) -> RankingGate:
    """The gate in strict mode when the thresholds in force are strict."""
    strict = t is not None and t.calibration is not None and t.calibration.strict
    return replace(gate, strict=True) if strict and not gate.strict else gate


def decide_ranking_gate(ranking: Ranking | str, gate: RankingGate) -> RankingDecision:
    """The gate decided on the ranking; not decided (passed None) when there is no ranking."""
    if isinstance(ranking, str):
        why = "no ranking: " + ranking.removeprefix("No ranking: ")
        return RankingDecision(gate, None, None, None, None, None, why)
    return decide_gate(ranking, gate)


def ranking_block(bundle: JudgeBundle, gate: RankingGate | None = None, ranking: Ranking | str | None = None,
                  ppi: PPIRatings | str | None = None, t: ThresholdSet | None = None) -> JSONObject:
    """The report's ``calibration.ranking``: the ranking (computed unless given: the page passes the
    one it drew), its gate decided, the prediction-powered ratings (computed unless given) beside it."""
    r = ranking_of(bundle) if ranking is None else ranking
    decision = None if gate is None else decide_ranking_gate(r, gate_in_force(gate, t))
    if isinstance(r, str):
        return no_ranking_dict(r, decision)
    p = ppi_of(bundle, r) if ppi is None else ppi
    return ranking_dict(r, decision, p if isinstance(p, PPIRatings) else None, p if isinstance(p, str) else None)


def counted_ranking_block(kinds: "pd.DataFrame | None", gate: RankingGate | None, t: ThresholdSet | None) -> JSONObject:
    """The report's ``calibration.ranking`` for an audit counted out of core: the ranking from the
    engine's kinds of case (agreebound.judge.ranking.rank_kinds), its gate decided; no
    prediction-powered ratings (they need each case's human label beside the judge's verdicts)."""
    from agreebound.judge.ranking import rank_kinds

    if kinds is None or kinds.empty:
        r: Ranking | str = "No ranking: the judgments do not name the two candidates' generators (models)."
    else:
        try:
            r = rank_kinds(kinds)
        except NoRatings as e:
            r = f"No ranking: {e}."
    decision = None if gate is None else decide_ranking_gate(r, gate_in_force(gate, t))
    if isinstance(r, str):
        return no_ranking_dict(r, decision)
    return ranking_dict(r, decision, None, "not computed out of core: the correction needs each case's human label "
                        "beside the judge's verdicts in memory")

