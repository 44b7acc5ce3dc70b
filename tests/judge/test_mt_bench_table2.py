"""Zheng et al. (2023), "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", Table 2, MT-Bench,
turn 1, reproduced from the public data set ``lmsys/mt_bench_human_judgments`` (CC BY 4.0):

=================  ============================  ============================
                   with ties (S1, #votes)        without ties (S2, #votes)
=================  ============================  ============================
GPT-4 pair - human 66% (1343)                    85% (859)
human - human      63% (721)                     81% (479)
=================  ============================  ============================

(to one decimal: 66.0%, 84.6%, 63.0%, 81.0%). "Human" is the expert votes (judge ids ``expert_*``),
as FastChat's compute_agreement.py counts them; the authors' votes are left out.

The data cannot be downloaded here: point ``AGREEBOUND_MT_BENCH_HUMAN`` at the data set's files (a
folder holding them, or the two paths joined by ``os.pathsep``): the ``human`` split and the
``gpt4_pair`` split, each as Parquet (``data/human-*.parquet``, ``data/gpt4_pair-*.parquet``) or JSON
(``human_judgments.json``, ``gpt4_pair_judgments.json``: a JSON list or JSON Lines). Without them the
reproduction is skipped, saying which data is missing; the loader is tested on files written here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreebound.app.pipeline import parse_judge_log
from agreebound.judge.agreement import human_agreement
from tests.judge.test_agreement import (
    fastchat_agreement,
    fastchat_votes,
    pair_log,
    random_votes,
    to_jsonl,
)

ENV = "AGREEBOUND_MT_BENCH_HUMAN"
#: Table 2's turn-1 figures: (agreements, votes) as the paper's percentages and vote counts imply them.
TABLE_2 = {"judge_human_with_ties": (66.0, 1343), "judge_human_without_ties": (84.6, 859),
           "human_human_with_ties": (63.0, 721), "human_human_without_ties": (81.0, 479)}
FIELDS = ("question_id", "model_a", "model_b", "winner", "judge", "turn")


def read_votes(path: Path) -> list[dict]:
    """One split's votes (question_id, model_a, model_b, winner, judge, turn) from Parquet or JSON."""
    if path.suffix in (".parquet", ".pq"):
        frame = pd.read_parquet(path, columns=list(FIELDS))
        records = frame.to_dict("records")
    else:
        text = path.read_text(encoding="utf-8")
        try:
            loaded = json.loads(text)
            records = loaded if isinstance(loaded, list) else [loaded]
        except json.JSONDecodeError:  # JSON Lines (datasets' to_json)
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    out = []
    for r in records:
        judge = r["judge"]
        judge = list(judge) if isinstance(judge, (list, tuple, np.ndarray)) else str(judge)
        out.append({"question_id": int(r["question_id"]), "model_a": str(r["model_a"]), "model_b": str(r["model_b"]),
                    "winner": str(r["winner"]), "judge": judge, "turn": int(r["turn"])})
    return out


def find_files(setting: str) -> tuple[Path | None, Path | None]:
    """The human split's file and the gpt4_pair split's, by their names, in the folders or files named."""
    paths: list[Path] = []
    for part in setting.split(os.pathsep):
        p = Path(part).expanduser()
        paths += sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p]
    data = [p for p in paths if p.suffix in (".parquet", ".pq", ".json", ".jsonl")]
    gpt4 = next((p for p in data if "gpt4_pair" in p.name or "gpt4-pair" in p.name), None)
    human = next((p for p in data if "human" in p.name and p != gpt4), None)
    return human, gpt4


@pytest.fixture(scope="module")
def table2_votes() -> tuple[list[dict], list[dict]]:
    setting = os.environ.get(ENV)
    if not setting:
        pytest.skip(f"{ENV} is not set: the public data set lmsys/mt_bench_human_judgments (its human and "
                    "gpt4_pair splits, Parquet or JSON) is needed to reproduce Zheng et al. 2023, Table 2, and "
                    "cannot be downloaded here")
    human, gpt4 = find_files(setting)
    missing = [name for name, p in (("human", human), ("gpt4_pair", gpt4)) if p is None]
    if missing:
        pytest.skip(f"{ENV}={setting!r} holds no file of the {' and '.join(missing)} split of "
                    "lmsys/mt_bench_human_judgments (Parquet or JSON)")
    assert human is not None and gpt4 is not None
    return read_votes(human), read_votes(gpt4)


def is_expert(vote: dict) -> bool:
    return isinstance(vote["judge"], str) and vote["judge"].startswith("expert")


def gpt4_votes_of(votes: list[dict]) -> list[dict]:
    """The GPT-4 pair judge's votes: FastChat's ["gpt-4", "pair..."] judges (JSON), or, where the
    split stores the judge as text (Parquet), every vote of the gpt4_pair split."""
    return [v for v in votes if not isinstance(v["judge"], list) or (v["judge"][0] == "gpt-4"
                                                                     and v["judge"][1].startswith("pair"))]


def check(figures: dict[str, tuple[int, int]]) -> None:
    got = {name: (round(100 * a / n, 1), n) for name, (a, n) in figures.items()}
    print("Table 2, turn 1:", {name: f"{a}/{n}" for name, (a, n) in figures.items()})
    assert got == TABLE_2


def test_fastchats_own_definition_gives_table_2(table2_votes):
    """compute_agreement.py's counting (re-implemented in tests/judge/test_agreement.py) on turn 1."""
    humans, gpt4 = table2_votes
    gpt4 = [{**v, "judge": ["gpt-4", "pair-v2"]} for v in gpt4_votes_of(gpt4)]  # its name for the pair judge
    turn1 = fastchat_votes([humans, gpt4])[0]
    check({"judge_human_with_ties": fastchat_agreement(turn1, "gpt4-pair", []),
           "judge_human_without_ties": fastchat_agreement(turn1, "gpt4-pair", ["tie"]),
           "human_human_with_ties": fastchat_agreement(turn1, "human", []),
           "human_human_without_ties": fastchat_agreement(turn1, "human", ["tie"])})


def test_our_functions_give_table_2(table2_votes):
    """agreebound.judge.agreement over turn 1's keys: the judge's vote and the experts' votes per key."""
    humans, gpt4 = table2_votes
    label = {"model_a": 0, "model_b": 1}

    def key(v: dict) -> tuple:
        return (v["question_id"], *sorted((v["model_a"], v["model_b"])))

    def facing(v: dict) -> int:  # the vote facing the sorted pair
        lab = 2 if "tie" in v["winner"] else label[v["winner"]]
        return lab if lab == 2 or v["model_a"] < v["model_b"] else 1 - lab

    judge = {key(v): facing(v) for v in gpt4_votes_of(gpt4) if v["turn"] == 1}
    counts = {k: [0, 0, 0] for k in judge}
    for v in humans:
        if v["turn"] == 1 and is_expert(v) and key(v) in counts:
            counts[key(v)][facing(v)] += 1
    keys = sorted(judge)
    h = human_agreement(np.array([judge[k] for k in keys]), np.array([counts[k] for k in keys]),
                        voters=len({v["judge"] for v in humans if is_expert(v)}))
    check({name: (r.numerator, r.denominator) for name, r in h.rates.items()})
    for s in h.sentences():
        print(s)


def test_the_pipeline_gives_table_2(table2_votes):
    """The whole path: the GPT-4 pair votes as FastChat's model_judgment log, the experts' turn-1 votes
    as its references (agreebound.io.judge_logs.read_references), the audit's human_agreement."""
    humans, gpt4 = table2_votes
    log = pair_log([v for v in gpt4_votes_of(gpt4) if v["turn"] == 1])
    experts = [v for v in humans if v["turn"] == 1 and is_expert(v)]
    b = parse_judge_log("gpt-4_pair.jsonl", log, ("human_judgments.jsonl", to_jsonl(experts)))
    h = b.human_agreement
    check({name: (r.numerator, r.denominator) for name, r in h.rates.items() if name != "reference_not_tie"})
    nt = h.rates["reference_not_tie"]
    print(f"the audit's agreement where the reference is not a tie: {nt.numerator}/{nt.denominator}; kappa "
          f"{b.measurement.diagnostics.kappa}")
    for s in h.sentences():
        print(s)


def test_the_loader_reads_both_formats(tmp_path):
    """The data set's shapes, written here: Parquet with the judge as text, JSON with the judge as a
    list, JSON Lines; every form reads to the same votes."""
    humans, gpt4 = random_votes(3)
    (tmp_path / "data").mkdir()
    pd.DataFrame(humans).to_parquet(tmp_path / "data" / "human-00000-of-00001.parquet")
    pd.DataFrame([{**v, "judge": "gpt-4"} for v in gpt4]).to_parquet(tmp_path / "data" / "gpt4_pair-00000-of-00001.parquet")
    (tmp_path / "human_judgments.json").write_text(json.dumps(humans))
    (tmp_path / "gpt4_pair_judgments.jsonl").write_bytes(to_jsonl(gpt4))
    human, pair = find_files(str(tmp_path / "data"))
    assert (human.name, pair.name) == ("human-00000-of-00001.parquet", "gpt4_pair-00000-of-00001.parquet")
    assert read_votes(human) == humans == read_votes(tmp_path / "human_judgments.json")
    assert gpt4_votes_of(read_votes(pair)) == [{**v, "judge": "gpt-4"} for v in gpt4]
    assert gpt4_votes_of(read_votes(tmp_path / "gpt4_pair_judgments.jsonl")) == gpt4
    both = os.pathsep.join(str(tmp_path / n) for n in ("human_judgments.json", "gpt4_pair_judgments.jsonl"))
    assert [p.name for p in find_files(both)] == ["human_judgments.json", "gpt4_pair_judgments.jsonl"]
