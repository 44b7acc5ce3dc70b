"""Our bias measures (agreebound.judge.bias, ``CalibrationMeasurement.bias``) against the judge-audit
peers that define the same quantity: judgekit 0.2.1, judgecal 0.1.0 and judgemetry 0.1.0, fed the
same audit through their documented APIs (judgekit's ``run_audit`` on ``PairwiseVerdict`` records,
judgecal's ``PositionProbe``/``SelfPreferenceProbe.analyze`` on ``Judgment`` records, judgemetry's
metric functions on ``JudgedPair`` records; all pure, no model, no network). `make test` installs
them (see the Makefile).

What each peer defines, read from its source, and how it meets ours:

* **First-slot rate.** judgekit ``position preference``, judgecal ``first_pick_rate``, judgemetry
  ``slot1_preference``: decisive verdicts that pick the presented-first candidate over decisive
  verdicts, every verdict pooled. Ours (``first_slot``) is the same: equal on every audit.
* **Flip among decisive pairs.** judgekit ``swap flip rate`` (a verdict of each order matched by
  item and repetition index, both decisive, winners differ), judgecal ``flip_rate_decisive`` (the
  first judgment of each order, both decisive). Ours (``flip_decisive``): cases whose every
  repetition agrees within each order (the seed's flip opportunity), decisive in both, winners
  differ. With one judgment per order (a FastChat log) the three are equal, and so are judgecal's
  Wilson interval and ours. With repeated judgments they differ only by the cases ours leaves out:
  fed the stable cases alone, the peers give ours exactly.
* **McNemar.** judgecal ``positional_mcnemar``: b = decisive pairs picking the presented-first
  candidate in both orders, c = the presented-second in both; estimate b/(b+c) with a Wilson
  interval, equal to our ``mcnemar``; its p-value is mid-p, ours exact: they differ by exactly the
  binomial point mass at min(b, c), and its ``mcnemar_test(b, c, "exact")`` is ours.
* **Flip with ties.** judgemetry ``flip_rate`` (any change of winner, a tie counting): our
  ``flip_with_ties`` (the seed's), on the same cases.
* **Length preference.** judgemetry ``verbosity_bias`` and judgekit ``verbosity bias (pairwise)``:
  P(judge picks longer) - P(humans pick longer) on candidates of unequal lengths, as our
  ``length_excess``, but both leave the judge's ties out (ours counts a tie as not picking the
  longer), and judgemetry's judge side also counts the cases whose human reference is a tie (ours
  and judgekit's leave them out). Without ties the three are equal; with ties each differs from ours
  by exactly the hand-counted ties (the formulas below). judgemetry measures length in characters:
  it is given answers as long as our token counts.
* **Self-preference net of disagreement.** judgecal ``self_error_pick_excess``: P(picks its own
  candidate | the humans preferred the other) - P(picks the human-rejected candidate | no
  candidate of its own), our ``self_error_excess`` (the own-pick excess), except that judgecal counts decisive verdicts
  only: the numerators are ours, the denominators ours less the judge's ties.

* **Self-preference, raw difference.** judgemetry ``self_preference``: P(judge picks its own) -
  P(humans pick it) over the cases with one candidate of its own, our self-preference net of
  strength's raw difference (its value with the slope taken as 1), equal where neither side ties
  (judgemetry counts a tie as not picking its own, ours as half).

Left out, with the reason: judgekit's ``self-preference`` (graded scores only); judgecal's verbosity probe (a
constructed contrast against padded copies of an answer, and a logistic regression on the length
ratio: neither is a rate over the audit's verdicts). The peers' intervals are percentile
bootstraps (judgecal's flip and McNemar intervals apart, which are Wilson and compared); ours are
case-clustered Wilson or cluster-robust normal intervals: not compared.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom

from agreebound.app.pipeline import parse_judge_bundle, parse_judge_log
from agreebound.app.synthetic import JudgeBehaviour, judge_frames
from tests.support.fastchat_log import fastchat_log, games, to_jsonl

from judgecal import stats as jc_stats  # `make test` installs the peers (see the Makefile)
from judgecal.core import Judgment
from judgecal.probes import PositionProbe, ProbeConfig, SelfPreferenceProbe
from judgekit import PairwiseVerdict, run_audit
from judgemetry import metrics as jm
from judgemetry.records import JudgedPair, PairRecord, Verdict

ROOT = Path(__file__).resolve().parents[2]
TOL = 1e-12


@dataclass(frozen=True)
class Audit:
    """An audit's observations as records (case_id, order, repetition, selected_candidate, tokens,
    generators), its human references by case (None without), and our measurement of it."""

    name: str
    observations: list[dict[str, Any]]
    preferred: dict[str, str | None]
    judge: str
    measurement: Any

    def only(self, cases: set[str]) -> "Audit":
        return Audit(self.name, [o for o in self.observations if o["case_id"] in cases], self.preferred, self.judge,
                     self.measurement)


def bundle_audit(name: str, data: bytes) -> Audit:
    d = json.loads(data)
    refs = {r["case_id"]: r["preferred_candidate"] for r in d["snapshot"]["references"]}
    return Audit(name, d["snapshot"]["observations"], refs, d["contract"]["judge_generator"],
                 parse_judge_bundle(name, data).measurement)


def randomized(seed: int, ties: bool) -> Audit:
    """300 cases judged twice in each order by a judge with planted position, length and self
    preferences; without ties: no human ties and the judge's ties replaced by a candidate."""
    behaviour = JudgeBehaviour(accuracy=0.7, position_bias=0.15, noise=0.1, verbosity_bias=0.3, self_preference=0.4,
                               self_share=0.3, tie_share=0.1 if ties else 0.0)
    contract, refs, obs, header = judge_frames(300, 2, behaviour, seed)
    if not ties:
        rng = np.random.default_rng(seed)
        tie = obs["selected_candidate"] == "tie"
        obs.loc[tie, "selected_candidate"] = rng.choice(["a", "b"], size=int(tie.sum()))
    bundle = {"contract": contract.to_dict(), "snapshot": {**header, "references": refs.to_dict("records"),
                                                           "observations": obs.to_dict("records")}}
    return bundle_audit(f"random-{seed}-{'ties' if ties else 'no-ties'}.json", json.dumps(bundle).encode())


def fastchat_audit() -> Audit:
    """tests/support/fastchat_log.py's log: one judgment per order, no human references, no lengths."""
    records = fastchat_log()
    obs = [{"case_id": g.case, "order": order, "repetition": 1, "selected_candidate": sel, "candidate_a_tokens": None,
            "candidate_b_tokens": None, "candidate_a_generator": g.model_1, "candidate_b_generator": g.model_2}
           for g in games(records) for order, sel in (("ab", g.ab), ("ba", g.ba)) if sel is not None]
    m = parse_judge_log("gpt-4_pair.jsonl", to_jsonl(records)).measurement
    return Audit("fastchat", obs, {g.case: None for g in games(records)}, "gpt-4", m)


@pytest.fixture(scope="module", autouse=True)
def fewer_resamples():
    """The peers' bootstrap intervals are not compared (their point estimates are): fewer resamples."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jm, "BOOTSTRAP_N", 200)
        yield


@pytest.fixture(scope="module")
def audits() -> dict[str, Audit]:
    failing = ROOT / "sample_data" / "judge_failing.json"
    return {"judge_failing": bundle_audit(failing.name, failing.read_bytes()), "random_ties": randomized(7, True),
            "random_no_ties": randomized(8, False), "fastchat": fastchat_audit()}


# --- the peers, fed an audit -------------------------------------------------------------------


def judgekit_probes(a: Audit) -> dict[str, Any]:
    judge = [PairwiseVerdict(item_id=o["case_id"], sample_index=o["repetition"] - 1, choice=o["selected_candidate"],
                             swapped=o["order"] == "ba", a_len=o["candidate_a_tokens"], b_len=o["candidate_b_tokens"],
                             a_model=o["candidate_a_generator"], b_model=o["candidate_b_generator"])
             for o in a.observations]
    human = [PairwiseVerdict(item_id=c, judge_id="human", choice=p) for c, p in a.preferred.items() if p is not None]
    return {p.name: p for p in run_audit(judge, human, seed=0).probes}


def presented(label: str | None, order: str) -> str | None:
    """A candidate label in judgecal's presented coordinates: "a" is shown first in order ab."""
    if label is None or label == "tie":
        return label
    return "first" if (label == "a") == (order == "ab") else "second"


def judgecal_judgments(a: Audit, probe: str) -> list[Judgment]:
    out = []
    for o in sorted(a.observations, key=lambda o: o["repetition"]):  # judgecal pairs each order's first judgment
        ab = o["order"] == "ab"
        first, second = ("a", "b") if ab else ("b", "a")
        meta = {"probe": probe, "condition": "orig" if ab else "swap", "item_id": o["case_id"],
                "repeat": o["repetition"] - 1, "first_is_a": ab, "first_len": o[f"candidate_{first}_tokens"],
                "second_len": o[f"candidate_{second}_tokens"], "first_author": o[f"candidate_{first}_generator"],
                "second_author": o[f"candidate_{second}_generator"], "first_latent_q": None, "second_latent_q": None,
                "label_first": presented(a.preferred[o["case_id"]], o["order"])}
        out.append(Judgment(f"{o['case_id']}-{o['order']}-{o['repetition']}",
                            presented(o["selected_candidate"], o["order"]), None, meta))
    return out


def judgecal_estimates(a: Audit, probe: Any) -> dict[str, Any]:
    result = probe.analyze(judgecal_judgments(a, probe.name), ProbeConfig(judge_author=a.judge, n_boot=200))
    return {e.name: e for e in result.estimates}


def judgemetry_pairs(a: Audit) -> list[JudgedPair]:
    """One judged pair per case and repetition (judgemetry's record holds one judgment per order); a
    judgment the harness could not parse is judgemetry's refusal."""
    winner = {"a": "A", "b": "B", "tie": "tie", None: "tie"}
    by: dict[tuple[str, int], dict[str, dict[str, Any]]] = defaultdict(dict)
    for o in a.observations:
        by[(o["case_id"], o["repetition"])][o["order"]] = o

    def verdict(o: dict[str, Any] | None) -> Verdict:
        return Verdict("tie", 0.5, "", refused=True) if o is None else Verdict(winner[o["selected_candidate"]], 0.5, "")

    pairs = []
    for (case, rep), orders in by.items():
        o = orders.get("ab") or orders["ba"]
        record = PairRecord(f"{case}-{rep}", "", "x" * (o["candidate_a_tokens"] or 1), "y" * (o["candidate_b_tokens"] or 1),
                            o["candidate_a_generator"], o["candidate_b_generator"], winner[a.preferred[case]])
        pairs.append(JudgedPair(record, verdict(orders.get("ab")), verdict(orders.get("ba")), "simulated:j"))
    return pairs


def stable_cases(a: Audit) -> set[str]:
    """Cases judged in both orders whose repetitions agree within each order."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for o in a.observations:
        seen[(o["case_id"], o["order"])].add(o["selected_candidate"])
    return {c for (c, order), v in seen.items() if order == "ab" and len(v) == 1 and len(seen.get((c, "ba"), ())) == 1}


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


# --- position ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["judge_failing", "random_ties", "random_no_ties", "fastchat"])
def test_first_slot_rate_is_every_peers(audits, name):
    a = audits[name]
    ours = a.measurement.bias["first_slot"]
    kit = judgekit_probes(a)["position preference"]
    cal = judgecal_estimates(a, PositionProbe())["first_pick_rate"]
    metry = jm.slot1_preference(judgemetry_pairs(a))
    den = a.measurement.counts.rates["first_slot"].denominator
    assert kit.value == cal.estimate == metry.value == float(ours.exact)
    assert kit.n == cal.n == den
    # as each prints it: judgekit "55.7%", judgecal "0.557", judgemetry "55.7%"
    assert kit.detail.startswith(f"chose the presented-first candidate in {pct(kit.value)} of {den} decisive verdicts")
    assert pct(kit.value) == pct(metry.value) == ours.points().split(" [")[0]
    assert f"{cal.estimate:.3f}" == f"{float(ours.exact):.3f}"
    if name == "judge_failing":
        assert ours.fraction == "728/1307" and kit.detail == (
            "chose the presented-first candidate in 55.7% of 1307 decisive verdicts across 218 items (133 ties excluded)")


def position_checks(a: Audit, reps: int) -> None:
    """Flip among decisive pairs (judgekit, judgecal), McNemar (judgecal) and the flip with ties
    (judgemetry) on an audit whose every case is stable: ours exactly, with judgecal's Wilson intervals."""
    b = a.measurement.bias
    flip, mc, ties = b["flip_decisive"], b["mcnemar"], b["flip_with_ties"]
    kit = judgekit_probes(a)["swap flip rate"]
    cal = judgecal_estimates(a, PositionProbe())
    metry = jm.flip_rate(judgemetry_pairs(a))
    n_flip = a.measurement.counts.rates["flip_decisive"].denominator
    assert kit.value == cal["flip_rate_decisive"].estimate == float(flip.exact)
    assert (kit.n, cal["flip_rate_decisive"].n) == (reps * n_flip, n_flip)  # judgekit pairs every repetition
    assert (cal["flip_rate_decisive"].ci_low, cal["flip_rate_decisive"].ci_high) == (
        pytest.approx(flip.low, abs=TOL), pytest.approx(flip.high, abs=TOL))
    pm = cal["positional_mcnemar"]
    fb, sb = a.measurement.counts.first_both, a.measurement.counts.second_both
    assert (pm.detail["b"], pm.detail["c"], pm.estimate) == (fb, sb, float(mc.exact))
    assert (pm.ci_low, pm.ci_high) == (pytest.approx(mc.low, abs=TOL), pytest.approx(mc.high, abs=TOL))
    mass = 0.0 if fb == sb else float(binom.pmf(min(fb, sb), fb + sb, 0.5))
    assert pm.p_value == pytest.approx(min(1.0, mc.p_value) - mass, rel=1e-9)  # mid-p: ours less the point mass
    assert jc_stats.mcnemar_test(fb, sb, method="exact").p_value == pytest.approx(mc.p_value, rel=1e-9)
    assert (metry.value, metry.n) == (float(ties.exact), reps * a.measurement.counts.rates["position_flip"].denominator)
    assert pct(kit.value) == flip.points().split(" [")[0] and pct(metry.value) == ties.points().split(" [")[0]


def test_flips_and_mcnemar_on_a_log_with_one_judgment_per_order(audits):
    a = audits["fastchat"]
    both = {g.case for g in games(fastchat_log()) if g.ab is not None and g.ba is not None}
    assert stable_cases(a) == both and len(both) == 157  # of 160 records, one lost both games, two lost one
    position_checks(a, reps=1)
    b = a.measurement.bias
    assert (b["flip_decisive"].fraction, b["mcnemar"].fraction, b["flip_with_ties"].fraction) == ("24/113", "21/24",
                                                                                                   "54/157")


@pytest.mark.parametrize("name, reps", [("judge_failing", 3), ("random_ties", 2), ("random_no_ties", 2)])
def test_flips_and_mcnemar_on_repeated_judgments_are_the_peers_on_the_stable_cases(audits, name, reps):
    a = audits[name]
    stable = stable_cases(a)
    assert len(stable) == a.measurement.counts.rates["position_flip"].denominator  # ours counts these cases only
    assert len(stable) < len({o["case_id"] for o in a.observations})
    position_checks(a.only(stable), reps)
    if name == "judge_failing":
        b = a.measurement.bias
        assert (b["flip_decisive"].fraction, b["mcnemar"].fraction, b["flip_with_ties"].fraction) == (
            "26/211", "26/26", "26/233")
        # over every case judgecal pairs each order's first judgment, unstable or not: other counts
        assert judgecal_estimates(a, PositionProbe())["positional_mcnemar"].detail["b"] == 27


# --- length and self-preference ------------------------------------------------------------------


@dataclass(frozen=True)
class Ties:
    """Hand counts of the judge's ties behind the peers' denominators: on cases of unequal lengths
    whose human reference is decisive (all, and those where the humans preferred the longer); the
    verdicts, longer picks and ties on unequal-length cases whose reference is a tie; the ties on
    the self-preference cases and on the control cases."""

    length: int
    length_human_longer: int
    human_tie_verdicts: int
    human_tie_longer: int
    human_tie_ties: int
    self_cases: int
    control: int


def tie_counts(a: Audit) -> Ties:
    n = defaultdict(int)
    for o in a.observations:
        pref, sel = a.preferred[o["case_id"]], o["selected_candidate"]
        at, bt = o["candidate_a_tokens"], o["candidate_b_tokens"]
        longer = "a" if at > bt else "b" if bt > at else None
        tie = sel == "tie"
        if longer is not None and pref in ("a", "b"):
            n["length"] += tie
            n["length_human_longer"] += tie and pref == longer
        if longer is not None and pref == "tie":
            n["human_tie_verdicts"] += 1
            n["human_tie_longer"] += sel == longer
            n["human_tie_ties"] += tie
        own = [c for c in ("a", "b") if o[f"candidate_{c}_generator"] == a.judge]
        if len(own) == 1 and pref in ("a", "b") and pref != own[0]:
            n["self_cases"] += tie
        if not own and pref in ("a", "b"):
            n["control"] += tie
    return Ties(**{f: n[f] for f in Ties.__dataclass_fields__})


@pytest.mark.parametrize("name", ["judge_failing", "random_ties", "random_no_ties"])
def test_length_preference_differs_from_judgekits_and_judgemetrys_by_the_ties_exactly(audits, name):
    a = audits[name]
    ours = a.measurement.bias["length_excess"]
    r = a.measurement.counts.rates
    num, n, longer = r["length_excess"].numerator, r["length_excess"].denominator, r["judge_longer"].numerator
    human = longer - num  # the verdicts a human pick of the longer would give
    assert ours.exact == Fraction(num, n)
    t = tie_counts(a)
    kit = judgekit_probes(a)["verbosity bias (pairwise)"]
    metry = jm.verbosity_bias(judgemetry_pairs(a))
    # judgekit: the judge's ties out of both sides, so the humans' side loses the ties where they chose the longer
    assert kit.n == n - t.length
    assert kit.value == pytest.approx(float(Fraction(num + t.length_human_longer, n - t.length)), abs=TOL)
    # judgemetry: the judge's side over every unequal-length case, its ties out; the humans' over the decisive ones
    judge_side = Fraction(longer + t.human_tie_longer, n + t.human_tie_verdicts - t.length - t.human_tie_ties)
    assert metry.value == pytest.approx(float(judge_side - Fraction(human, n)), abs=TOL)
    if name == "random_no_ties":
        assert t == Ties(0, 0, 0, 0, 0, 0, 0)
        assert kit.value == pytest.approx(float(ours.exact), abs=TOL) and metry.value == pytest.approx(kit.value, abs=TOL)
        printed = ours.points().split(" points")[0]  # ours "16.0 points", judgekit "+16.0%", judgemetry "+16.0" pts
        assert f"{kit.value:+.1%}" == f"{float(printed):+.1f}%" and f"{100 * metry.value:+.1f}" == f"{float(printed):+.1f}"
    if name == "judge_failing":
        assert (ours.fraction, t.length, t.length_human_longer) == ("831/1332 - 618/1332", 55, 24)
        assert kit.detail == "picks the longer candidate +18.6% more often than the human reference on 1277 unequal-length pairs"


@pytest.mark.parametrize("name", ["judge_failing", "random_ties", "random_no_ties"])
def test_self_error_excess_is_judgecals_less_the_judges_ties(audits, name):
    a = audits[name]
    b = a.measurement.bias
    own, control = a.measurement.counts.rates["self_preference"], a.measurement.counts.rates["self_control"]
    t = tie_counts(a)
    cal = judgecal_estimates(a, SelfPreferenceProbe())["self_error_pick_excess"]
    d = cal.detail
    assert (d["n_self_error"], d["n_control"]) == (own.denominator - t.self_cases, control.denominator - t.control)
    assert d["self_error_pick_rate"] == own.numerator / d["n_self_error"]
    assert d["control_error_pick_rate"] == pytest.approx(control.numerator / d["n_control"], abs=TOL)
    assert cal.estimate == pytest.approx(d["self_error_pick_rate"] - d["control_error_pick_rate"], abs=TOL)
    if name == "random_no_ties":
        assert (t.self_cases, t.control) == (0, 0)
        assert cal.estimate == pytest.approx(float(b["self_error_excess"].exact), abs=TOL)
        assert f"{100 * cal.estimate:+.1f}" == f"{float(b['self_error_excess'].points().split(' points')[0]):+.1f}"
    if name == "judge_failing":
        assert (b["self_preference"].fraction, b["self_control"].fraction) == ("95/168", "289/1002")
        assert (d["n_self_error"], d["n_control"]) == (162, 953)


def test_self_preference_raw_difference_is_judgemetrys_without_ties(audits):
    """judgemetry's self_preference, P(judge picks own) - P(humans pick own), is the raw difference
    our net of strength starts from (agreebound.judge.self_preference), where neither side ties."""
    from agreebound.judge.self_preference import fit_self_preference

    a = audits["random_no_ties"]
    fit = fit_self_preference(a.measurement.counts.verdicts, a.judge)
    metry = jm.self_preference(judgemetry_pairs(a), a.judge)
    assert not isinstance(fit, str) and metry is not None
    assert metry.value == pytest.approx(float(fit.raw_difference), abs=TOL)
    assert metry.n == 2 * fit.own_cases  # judgemetry holds one record per case and repetition (2 here)
