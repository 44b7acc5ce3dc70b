"""Agreement with the humans as Zheng et al. (2023) count it (agreebound.judge.agreement): a
hand-worked vote set read through the whole pipeline, FastChat's own definition
(``fastchat/llm_judge/compute_agreement.py``, re-implemented below from its source) against ours on
randomized vote sets, and Cohen's kappa against scikit-learn's, value by value.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreebound.app.pipeline import parse_judge_log
from agreebound.core.student_t import t_quantile
from agreebound.judge.agreement import (
    cohen_kappa,
    human_agreement,
    judge_votes,
    kappa_from_patterns,
    kappa_of,
    labels_index,
)
from agreebound.judge.counts import LABELS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data" / "judge_logs"


def to_jsonl(records: list[dict]) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


# --- FastChat's definition, as compute_agreement.py writes it -------------------------------------


def fastchat_judge_name(judge: object) -> str | None:
    """get_judge_name: a list ["gpt-4", "pair..."] is the GPT-4 pair judge; "expert..." is "human";
    "author..." is its own group (not "human")."""
    if isinstance(judge, list) and judge[0] == "gpt-4" and judge[1].startswith("pair"):
        return "gpt4-pair"
    assert isinstance(judge, str)
    if judge.startswith("expert"):
        return "human"
    if judge.startswith("author"):
        return "author"
    return None


def fastchat_votes(raw_votes: list[list[dict]]) -> list[dict]:
    """get_mt_bench_votes_data: per turn, key (question, sorted models) -> judge -> votes facing the
    sorted pair (a vote for model_a of a reversed record becomes model_b)."""
    revert = {"model_a": "model_b", "model_b": "model_a"}
    data: list[dict] = [{}, {}]
    for judge_votes_ in raw_votes:
        for vote in judge_votes_:
            if vote["model_a"] < vote["model_b"]:
                key, winner = (vote["question_id"], vote["model_a"], vote["model_b"]), vote["winner"]
            else:
                key, winner = (vote["question_id"], vote["model_b"], vote["model_a"]), revert.get(vote["winner"], vote["winner"])
            data[vote["turn"] - 1].setdefault(key, {}).setdefault(fastchat_judge_name(vote["judge"]), []).append(winner)
    return data


def fastchat_agreement(data: dict, judge1: str, ban: list[str]) -> tuple[int, int]:
    """get_mt_bench_agreement for ("gpt4-pair", "human") and ("human", "human")."""
    def convert(v: str) -> str:
        return "tie" if "tie" in v else v

    def equal(v1: str, v2: str) -> bool:
        return ("tie" in v1 and "tie" in v2) or v1 == v2

    agree = total = 0
    for votes in data.values():
        if judge1 == "gpt4-pair":
            if judge1 not in votes or "human" not in votes:
                continue
            assert len(votes[judge1]) == 1
            if convert(votes[judge1][0]) in ban:
                continue
            for v in votes["human"]:
                if convert(v) in ban:
                    continue
                total += 1
                agree += equal(votes[judge1][0], v)
        else:
            if "human" not in votes:
                continue
            hs = votes["human"]
            for i in range(len(hs) - 1):
                for j in range(i + 1, len(hs)):
                    if convert(hs[i]) in ban or convert(hs[j]) in ban:
                        continue
                    total += 1
                    agree += equal(hs[i], hs[j])
    return agree, total


def fastchat_table(humans: list[dict], gpt4: list[dict]) -> dict[str, tuple[int, int]]:
    """The four figures of Table 2's kind, summed over both turns (our cases are per turn)."""
    data = fastchat_votes([humans, gpt4])
    out = {}
    for name, judge1, ban in (("judge_human_with_ties", "gpt4-pair", []), ("judge_human_without_ties", "gpt4-pair", ["tie"]),
                              ("human_human_with_ties", "human", []), ("human_human_without_ties", "human", ["tie"])):
        per_turn = [fastchat_agreement(data[t], judge1, ban) for t in (0, 1)]
        out[name] = (sum(a for a, _ in per_turn), sum(n for _, n in per_turn))
    return out


# --- FastChat-shaped files: a judge log and human votes -------------------------------------------


def pair_log(gpt4: list[dict]) -> bytes:
    """The GPT-4 pair votes (HF ``gpt4_pair``: one combined winner per key) as FastChat's
    ``model_judgment/gpt-4_pair.jsonl`` (two games a record): a consistent winner is both games', "tie
    (inconsistent)" is game 1 for model_1 and game 2 for model_2, another tie both games' tie."""
    records = []
    for v in gpt4:
        g = {"model_a": ("model_1", "model_1"), "model_b": ("model_2", "model_2"),
             "tie (inconsistent)": ("model_1", "model_2")}.get(v["winner"], ("tie", "tie"))
        records.append({"question_id": v["question_id"], "model_1": v["model_a"], "model_2": v["model_b"],
                        "g1_winner": g[0], "g2_winner": g[1], "turn": v["turn"],
                        "judge": ["gpt-4", "pair-v2" if v["turn"] == 1 else "pair-v2-multi-turn"]})
    return to_jsonl(records)


def human(q: int, a: str, b: str, winner: str, judge: str, turn: int = 1) -> dict:
    return {"question_id": q, "model_a": a, "model_b": b, "winner": winner, "judge": judge, "turn": turn}


def gpt4(q: int, a: str, b: str, winner: str, turn: int = 1) -> dict:
    return {"question_id": q, "model_a": a, "model_b": b, "winner": winner, "judge": ["gpt-4", "pair-v2"], "turn": turn}


def audited(humans: list[dict], gpt4_votes: list[dict]):
    return parse_judge_log("gpt-4_pair.jsonl", pair_log(gpt4_votes), ("human_judgments.jsonl", to_jsonl(humans)))


# --- a vote set worked by hand ---------------------------------------------------------------------

#: Four cases of models A and B. The judge: case 1 A in both orders (a); case 2 A then B (inconsistent:
#: a tie); case 3 B then a tie (inconsistent: a tie); case 4 a tie in both orders. The humans (some saw
#: the pair reversed: model_a is B): case 1 A, A, B, tie (bothbad); case 2 tie, B; case 3 B; case 4
#: tie, tie (bothbad), A.
HAND_HUMANS = [human(1, "A", "B", "model_a", "expert_0"), human(1, "B", "A", "model_b", "expert_1"),
               human(1, "A", "B", "model_b", "expert_2"), human(1, "B", "A", "tie (bothbad)", "author_0"),
               human(2, "A", "B", "tie", "expert_0"), human(2, "B", "A", "model_a", "expert_1"),
               human(3, "A", "B", "model_b", "expert_0"),
               human(4, "A", "B", "tie", "expert_0"), human(4, "B", "A", "tie (bothbad)", "expert_1"),
               human(4, "B", "A", "model_b", "expert_2")]
HAND_LOG = to_jsonl([
    {"question_id": 1, "model_1": "A", "model_2": "B", "g1_winner": "model_1", "g2_winner": "model_1", "turn": 1,
     "judge": ["gpt-4", "pair-v2"]},
    {"question_id": 2, "model_1": "A", "model_2": "B", "g1_winner": "model_1", "g2_winner": "model_2", "turn": 1,
     "judge": ["gpt-4", "pair-v2"]},
    {"question_id": 3, "model_1": "A", "model_2": "B", "g1_winner": "model_2", "g2_winner": "tie", "turn": 1,
     "judge": ["gpt-4", "pair-v2"]},
    {"question_id": 4, "model_1": "A", "model_2": "B", "g1_winner": "tie", "g2_winner": "tie", "turn": 1,
     "judge": ["gpt-4", "pair-v2"]}])


@pytest.fixture(scope="module")
def hand():
    return parse_judge_log("gpt-4_pair.jsonl", HAND_LOG, ("human_judgments.jsonl", to_jsonl(HAND_HUMANS)))


def test_a_vote_set_worked_by_hand(hand):
    """Votes per case (a, b, tie) 2/1/1, 0/1/1, 0/1/0, 1/0/2; the judge's votes a, tie, tie, tie.

    * judge-human with ties: 2 of 4 + 1 of 2 (its tie, a tie) + 0 of 1 + 2 of 3 = 5/10;
    * without ties: case 1 only (the judge's ties drop cases 2 to 4): the non-tie votes a, a, b: 2/3;
    * human-human with ties: 6 pairs (one a-a) + 1 (tie-b) + 0 + 3 (one tie-tie) = 2/10;
    * without ties: case 1's three non-tie votes (a, a, b): 1 of 3 pairs; no other case has two: 1/3;
    * the references (plurality): a, tie (b and tie shared), b, tie; the audit's agreement where
      the reference is not a tie: case 1's two judgments a, a and case 3's b, tie: 3/4."""
    h = hand.human_agreement
    got = {name: (r.numerator, r.denominator) for name, r in h.rates.items()}
    assert got == {"judge_human_with_ties": (5, 10), "judge_human_without_ties": (2, 3),
                   "human_human_with_ties": (2, 10), "human_human_without_ties": (1, 3),
                   "reference_not_tie": (3, 4)}
    assert (h.votes, h.voters, h.cases) == (10, 4, 4)
    assert h.differences["with_ties"].exact == Fraction(1, 2) - Fraction(1, 5)
    assert h.differences["without_ties"].exact == Fraction(2, 3) - Fraction(1, 3)
    d = hand.measurement.diagnostics
    assert d.agreement_without_ties == (3, 4) == d.agreement_where_reference_not_tie  # the audit's, unchanged
    refs = hand.references.set_index("case_id")["preferred_candidate"].tolist()
    assert refs == ["a", "tie", "b", "tie"]


def test_kappa_worked_by_hand(hand):
    """(reference, judge's vote): (a, a), (tie, tie), (b, tie), (tie, tie). p_o = 3/4; the reference's
    marginals a 1, b 1, tie 2, the judge's a 1, b 0, tie 3: p_e = (1 + 0 + 6)/16 = 7/16, kappa =
    (12/16 - 7/16) / (9/16) = 5/9, as scikit-learn's."""
    k = hand.measurement.diagnostics.kappa
    assert k.exact == Fraction(5, 9) and k.cases == 4
    assert k.confusion == ((1, 0, 0), (0, 0, 1), (0, 0, 2))
    assert float(k.exact) == pytest.approx(cohen_kappa_score(["a", "tie", "b", "tie"], ["a", "tie", "tie", "tie"]),
                                           abs=1e-15)


def test_the_sentence_compares_the_judge_with_the_ceiling(hand):
    with_ties, without = hand.human_agreement.sentences()
    assert with_ties.startswith("With ties, the judge agrees with the humans ")
    assert "50.0% [" in with_ties and "vs 20.0% [" in with_ties and "difference +30.0 points [" in with_ties
    assert "(4 cases)" in with_ties
    assert without.startswith("Without ties, ") and "difference +33.3 points" in without


def test_the_judges_vote_is_fastchats_rule():
    """Both orders agree: that choice; they differ: a tie; an order without a single majority (-1)
    leaves the other's choice; neither: a tie."""
    ab = np.array([0, 1, 2, 0, 0, -1, 1, -1])
    ba = np.array([0, 1, 2, 1, 2, 1, -1, -1])
    assert [LABELS[v] for v in judge_votes(ab, ba)] == ["a", "b", "tie", "tie", "tie", "b", "b", "tie"]


def test_nothing_to_count_is_undefined_not_zero():
    h = human_agreement(np.array([2, 2]), np.array([[0, 0, 1], [1, 0, 0]]), voters=1)
    assert h.rates["judge_human_without_ties"].value is None and h.rates["judge_human_without_ties"].interval is None
    assert h.rates["human_human_with_ties"].value is None  # one vote per case: no pair
    assert h.differences["without_ties"].value is None
    assert h.sentences()[1] == "Without ties: no pair of votes to compare for the judge."


# --- FastChat against ours on randomized vote sets -------------------------------------------------


def random_votes(seed: int) -> tuple[list[dict], list[dict]]:
    """MT-Bench-shaped human and GPT-4 pair votes: every key (question, model pair, turn) has one GPT-4
    vote (as the public gpt4_pair split has), and zero to five human votes by experts and authors
    (sometimes one expert twice), each record facing its pair either way round."""
    rng = random.Random(seed)
    models = ["alpaca-13b", "claude-v1", "gpt-4", "llama-13b"][: rng.randint(2, 4)]
    humans, gpt4_votes = [], []
    for q in range(81, 81 + rng.randint(3, 12)):
        for turn in (1, 2):
            for i, m1 in enumerate(models):
                for m2 in models[i + 1:]:
                    a, b = (m1, m2) if rng.random() < 0.5 else (m2, m1)
                    gpt4_votes.append(gpt4(q, a, b, rng.choice(["model_a", "model_b", "model_b", "tie",
                                                               "tie (inconsistent)"]), turn))
                    voters = [rng.choice(["expert_0", "expert_1", "expert_2", "expert_3", "author_0", "author_1"])
                              for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))]
                    for voter in voters:
                        a, b = (m1, m2) if rng.random() < 0.5 else (m2, m1)
                        humans.append(human(q, a, b, rng.choice(["model_a", "model_a", "model_b", "tie",
                                                                 "tie (bothbad)"]), voter, turn))
    return humans, gpt4_votes


@pytest.mark.parametrize("seed", range(12))
def test_fastchats_definition_and_ours_agree_value_by_value(seed):
    """FastChat counts the expert votes as "human" (authors are its third group): our pipeline is
    given the experts' votes and must give FastChat's (agreements, pairs) for each figure."""
    humans, gpt4_votes = random_votes(seed)
    expected = fastchat_table(humans, gpt4_votes)  # FastChat reads the authors' votes and leaves them out
    experts = [h for h in humans if h["judge"].startswith("expert")]
    if not experts:
        pytest.skip("this seed drew no expert vote")
    b = audited(experts, gpt4_votes)
    got = {name: (r.numerator, r.denominator) for name, r in b.human_agreement.rates.items()
           if name != "reference_not_tie"}
    assert got == expected
    assert b.human_agreement.votes == len(experts)


def test_the_pure_functions_give_fastchats_figures_too():
    """The same comparison without the readers: FastChat's keys as our cases, its sorted-pair
    orientation as our candidates."""
    humans, gpt4_votes = random_votes(99)
    expected = fastchat_table(humans, gpt4_votes)
    data = fastchat_votes([humans, gpt4_votes])
    label = {"model_a": 0, "model_b": 1}
    judge, counts = [], []
    for turn in (0, 1):
        for votes in data[turn].values():
            judge.append(label.get(votes["gpt4-pair"][0], 2))
            row = [0, 0, 0]
            for v in votes.get("human", []):
                row[label.get(v, 2)] += 1
            counts.append(row)
    h = human_agreement(np.array(judge), np.array(counts), voters=4)
    assert {name: (r.numerator, r.denominator) for name, r in h.rates.items()} == expected


# --- Cohen's kappa against scikit-learn ------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_kappa_equals_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    ref = rng.choice(3, n, p=rng.dirichlet(np.ones(3)))
    judge = np.where(rng.random(n) < rng.random(), ref, rng.choice(3, n))
    confusion = np.zeros((3, 3), dtype=np.int64)
    np.add.at(confusion, (ref, judge), 1)
    ours = kappa_of(confusion)
    if ours is None:  # one label only on both sides: scikit-learn returns nan
        assert len(set(ref.tolist()) | set(judge.tolist())) == 1
        return
    assert float(ours) == pytest.approx(cohen_kappa_score(ref, judge, labels=[0, 1, 2]), abs=1e-12)


def test_the_reports_kappa_equals_scikit_learns_on_a_log():
    """On the sample MT-Bench log: the diagnostics' kappa (from the counts' patterns, every engine's)
    equals scikit-learn's over the cases' references and the judge's votes read from the cases."""
    b = parse_judge_log("mt_bench_gpt-4_pair.jsonl", (SAMPLES / "mt_bench_gpt-4_pair.jsonl").read_bytes(),
                        ("h.jsonl", (SAMPLES / "mt_bench_human_judgments.jsonl").read_bytes()))
    cases = b.measurement.cases
    cases = cases[cases["preferred"].notna()]
    votes = judge_votes(labels_index(cases["majority_ab"].tolist()), labels_index(cases["majority_ba"].tolist()))
    expected = cohen_kappa_score(cases["preferred"].tolist(), [LABELS[v] for v in votes], labels=list(LABELS))
    k = b.measurement.diagnostics.kappa
    assert float(k.exact) == pytest.approx(expected, abs=1e-12)
    assert k == kappa_from_patterns(b.measurement.counts.patterns)
    assert k.low < float(k.exact) < k.high


def test_kappa_interval_is_the_jackknife():
    """Leave-one-case-out by hand on the 10 cases of Cohen's example: cells (a,a) 3, (a,b) 1, (b,a) 1,
    (b,b) 5; Student's t at 9 degrees of freedom."""
    c = np.array([[3, 1, 0], [1, 5, 0], [0, 0, 0]])
    k = cohen_kappa(c)
    leave = []
    for cell, n in (((0, 0), 3), ((0, 1), 1), ((1, 0), 1), ((1, 1), 5)):
        d = c.copy()
        d[cell] -= 1
        leave += [float(kappa_of(d))] * n
    mean = sum(leave) / 10
    half = t_quantile(0.975, 9) * (9 / 10 * sum((v - mean) ** 2 for v in leave)) ** 0.5  # t(0.975, 9 df)
    assert k.exact == Fraction(7, 12)
    assert (k.low, k.high) == pytest.approx((7 / 12 - half, 1.0), abs=1e-12)  # 1.157 clipped to kappa's range


def test_as_often_is_said_only_within_five_points_and_differences_stay_within_one():
    """Two cases are no evidence of equal agreement: the difference's interval is clipped to
    [-100, +100] points and the sentence says no difference is shown, not "as often as"."""
    from agreebound.judge.agreement import human_agreement

    a = human_agreement(np.array([0, 1]), np.array([[1, 1, 0], [0, 1, 0]]), voters=2)
    d = a.differences["with_ties"]
    assert (d.low, d.high) == (-1.0, 1.0)
    (with_ties, _) = a.sentences()
    assert with_ties.startswith("With ties, no difference is shown, but the interval is too wide to say the judge "
                                "agrees with the humans as often as they agree with each other")
    assert "[-100.0, +100.0]" in with_ties


def test_the_judge_page_text_survives_a_kappa_without_an_interval():
    """Kappa on too few cases has no interval (low and high None): the page's text says the value alone."""
    from types import SimpleNamespace

    from agreebound.ui.judge_view import _interval

    assert _interval(SimpleNamespace(low=None, high=None), 1, 3) == ""
    assert _interval(SimpleNamespace(low=0.1, high=0.2), 1, 3) == " [0.100, 0.200]"
