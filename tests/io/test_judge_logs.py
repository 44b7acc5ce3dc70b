"""Judge logs from evaluation harnesses: MT-Bench judgments and human votes, AlpacaEval annotations,
seed-shaped observation records; partial audits that say what is missing, and the seed's full audit
when nothing is."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from agreebound.judge.decide import decide
from agreebound.cli.main import main
from agreebound.core.errors import InputError
from agreebound.app.pipeline import parse_judge_log, parse_judge_tables
from agreebound.io.judge_logs import read_judge_log

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "sample_data" / "judge_logs"
S = ROOT / "sample_data"
MT = LOGS / "mt_bench_gpt-4_pair.jsonl"
HUMAN = LOGS / "mt_bench_human_judgments.jsonl"
ALPACA = LOGS / "alpaca_eval_annotations.json"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_mt_bench_position_flip_is_recomputed_from_the_raw_games():
    records = lines(MT)
    both = [r for r in records if "error" not in (r["g1_winner"], r["g2_winner"])]
    flips = sum(r["g1_winner"] != r["g2_winner"] for r in both)
    b = parse_judge_log(MT.name, MT.read_bytes())
    rate = b.measurement.position_flip
    assert (rate.numerator, rate.denominator) == (flips, len(both)) == (48, 142)
    refs = "the source has no human references (give them as a second file)"
    lengths = ("the source has no candidate lengths (the answers' texts supply them, e.g. FastChat judge prompts "
               "that hold both answers, or candidate_a_tokens and candidate_b_tokens: this source has neither)")
    assert b.measurement.unavailable == {  # every missing need per gate, and what supplies it
        "human_agreement": refs,
        "repeat_variance": "this log has one judgment per order; the contract requires 2 repetitions: repeat variance "
                           "cannot be evaluated (only a log that repeats each judgment supplies it)",
        "verbosity_bias": f"{refs}; and {lengths}",
        "self_preference": refs,
    }
    # no contract was given: measured against illustrative limits, not decided (position flip alone
    # lies far outside them, which is not a FAIL_CALIBRATION: see tests/judge/test_no_contract.py)
    d = decide(b.measurement)
    assert (d.decision, d.reason) == ("INCOMPLETE", "no contract: measured against illustrative limits")


def test_mt_bench_human_votes_join_by_question_turn_and_model_pair_whatever_the_order():
    records = lines(MT)
    votes: dict[tuple, list[str]] = {}
    for h in lines(HUMAN):
        winner = {"model_a": h["model_a"], "model_b": h["model_b"]}.get(h["winner"], "tie")
        votes.setdefault((h["question_id"], h["turn"], frozenset((h["model_a"], h["model_b"]))), []).append(winner)
    agree = total = 0
    for r in records:
        vs = votes.get((r["question_id"], r["turn"], frozenset((r["model_1"], r["model_2"]))))
        if not vs:
            continue
        count = Counter(vs)
        top = max(count.values())
        leaders = [v for v, c in count.items() if c == top]
        human = leaders[0] if len(leaders) == 1 else "tie"
        for g in (r["g1_winner"], r["g2_winner"]):
            if g == "error":
                continue
            judge = {"model_1": r["model_1"], "model_2": r["model_2"]}.get(g, "tie")
            agree += judge == human
            total += 1
    b = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes()))
    rate = b.measurement.human_agreement
    assert (rate.numerator, rate.denominator) == (agree, total)
    assert "16 of 144 cases have no human reference: they count in position flip and repeat variance only" in b.measurement.notes


def test_alpacaeval_without_references_is_incomplete_never_a_pass(capsys):
    b = parse_judge_log(ALPACA.name, ALPACA.read_bytes())
    assert decide(b.measurement).decision == "INCOMPLETE"
    assert set(b.measurement.unavailable) == {"human_agreement", "position_flip", "repeat_variance", "verbosity_bias",
                                              "self_preference"}
    assert main(["calibrate", str(ALPACA)]) == 1
    out = capsys.readouterr().out
    assert "position_flip: not evaluable: the source does not say in which order the candidates were shown" in out
    # no contract either: not decided, whatever the gates (tests/judge/test_no_contract.py)
    assert ("INCOMPLETE: no contract: measured against illustrative limits: not decided, this is not a pass "
            "(0 of 5 gates measurable)") in out


def test_alpacaeval_with_its_own_shape_of_human_annotations():
    humans = [dict(a, annotator=f"human_{i % 3}", preference=2 if a["output_2"] == "A short answer." else 1)
              for i, a in enumerate(json.loads(ALPACA.read_text()))]
    b = parse_judge_log(ALPACA.name, ALPACA.read_bytes(), ("human.json", json.dumps(humans).encode()))
    m = b.measurement
    assert "human_agreement" not in m.unavailable and "verbosity_bias" not in m.unavailable
    # humans always prefer the short answer here; the judge's picks decide both rates
    judge = json.loads(ALPACA.read_text())
    picks = ["a" if a["preference"] < 1.5 else "b" if a["preference"] > 1.5 else "tie" for a in judge]
    short = ["b" if a["output_2"] == "A short answer." else "a" for a in judge]
    assert (m.human_agreement.numerator, m.human_agreement.denominator) == (sum(p == s for p, s in zip(picks, short)), 60)
    assert (m.verbosity_bias.numerator, m.verbosity_bias.denominator) == (
        sum(p != s and p != "tie" for p, s in zip(picks, short)), 60)


def test_observation_records_with_everything_get_the_seeds_full_audit():
    obs = pd.read_csv(S / "judge_failing_observations.csv")
    refs = pd.read_csv(S / "judge_failing_references.csv")
    log = "".join(json.dumps({k: (int(v) if isinstance(v, int) or str(v).isdigit() else v) for k, v in r.items()}) + "\n"
                  for r in obs.to_dict("records"))
    ref = "".join(json.dumps({"case_id": r["case_id"], "preferred_candidate": r["preferred_candidate"],
                              "reviewer_ids": r["reviewer_ids"].split(";"), "adjudicated": bool(r["adjudicated"])}) + "\n"
                  for r in refs.to_dict("records"))
    contract = (S / "judge_failing_contract.json").read_bytes()
    full = parse_judge_log("obs.jsonl", log.encode(), ("refs.jsonl", ref.encode()), ("contract.json", contract))
    trio = parse_judge_tables("c.json", contract, "r.csv", (S / "judge_failing_references.csv").read_bytes(),
                              "o.csv", (S / "judge_failing_observations.csv").read_bytes())
    assert not full.measurement.partial and full.measurement == trio.measurement
    # without the references, the same records give a partial audit of what needs none
    part = parse_judge_log("obs.jsonl", log.encode())
    assert part.measurement.partial and part.measurement.position_flip == trio.measurement.position_flip
    assert part.measurement.repeat_variance == trio.measurement.repeat_variance


def test_a_log_with_several_judges_asks_which():
    records = lines(MT)
    mixed = records + [dict(records[0], judge=["claude-v1", "pair-v2"])]
    data = "".join(json.dumps(r) + "\n" for r in mixed).encode()
    with pytest.raises(InputError, match="the log holds 2 judges \\(claude-v1, gpt-4\\); audit one at a time"):
        parse_judge_log("two.jsonl", data)
    assert parse_judge_log("two.jsonl", data, judge="claude-v1").measurement.n_cases == 1
    from agreebound.io.judge_logs import judges_in

    assert judges_in("two.jsonl", data) == ("gpt-4", "claude-v1")  # the picker's order: most judgments first


# --- other shapes, through a mapping file -----------------------------------------------------------

OTHER = LOGS / "other_harness.jsonl"
OTHER_MAP = LOGS / "other_harness.mapping.json"


def trio():
    contract = (S / "judge_failing_contract.json").read_bytes()
    return parse_judge_tables("c.json", contract, "r.csv", (S / "judge_failing_references.csv").read_bytes(),
                              "o.csv", (S / "judge_failing_observations.csv").read_bytes())


def test_a_log_of_another_shape_through_its_mapping_gets_the_seeds_full_audit(capsys):
    full = parse_judge_log(OTHER.name, OTHER.read_bytes(), ("r.csv", (S / "judge_failing_references.csv").read_bytes()),
                           ("c.json", (S / "judge_failing_contract.json").read_bytes()),
                           mapping=(OTHER_MAP.name, OTHER_MAP.read_bytes()))
    assert not full.measurement.partial and full.measurement == trio().measurement
    assert full.measurement.notes[0].startswith("read through a mapping: case_id <- qid, order <- shown_first")
    code = main(["calibrate", str(OTHER), "--mapping", str(OTHER_MAP), "--references",
                 str(S / "judge_failing_references.csv"), "--contract", str(S / "judge_failing_contract.json"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["calibration"]["decision"] == "FAIL_CALIBRATION"
    assert report["calibration"]["contract_origin"] == "given"
    assert [(r["numerator"], r["denominator"]) for r in report["calibration"]["rates"]] == \
        [(926, 1440), (26, 233), (7, 480), (333, 714), (95, 168)]


def test_mapped_case_ids_are_made_canonical_and_references_join_by_the_logs_own_ids():
    records = [{"id": 81 + i // 4, "pos": 1 + (i // 2) % 2, "pick": "A" if i % 3 else "B", "rep": 1 + i % 2}
               for i in range(8)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    mapping = json.dumps({"judge_log": {"fields": {"case_id": "id", "order": "pos", "selected_candidate": "pick",
                                                   "repetition": "rep"},
                                        "values": {"order": {"1": "ab", "2": "ba"}, "selected_candidate": {"A": "a", "B": "b"}},
                                        "judge": "my-judge"}}).encode()
    b = parse_judge_log("x.jsonl", data, mapping=("m.json", mapping))
    cases = b.measurement.cases
    assert list(cases["case_id"]) == ["case-81", "case-82"]
    assert "case ids made canonical identifiers (e.g. '81' -> case-81); references join by either" in b.measurement.notes
    assert b.contract.judge_generator == "my-judge"
    # repetitions 1,2 per (case, order): 81 ab B,A and ba A,B; 82 ab A,A and ba B,A: 3 of 4 orders unstable
    assert (b.measurement.repeat_variance.numerator, b.measurement.repeat_variance.denominator) == (3, 4)


@pytest.mark.parametrize("mapping, message", [
    ({"judge_log": {"fields": {"case_id": "qid", "selected_candidate": "nope"}}},
     "other_harness.jsonl, line 1, column 'nope': the mapping names this field, but no record has it; the records have "),
    ({"judge_log": {"fields": {"case": "qid", "selected_candidate": "choice"}}},
     "m.json, column 'judge_log.fields': 'case' is not an observation field; they are case_id, order, "),
    ({"judge_log": {"fields": {"order": "shown_first", "selected_candidate": "choice"}}},
     "m.json, column 'judge_log.fields': the mapping must name the field that holds case_id"),
    ({"judge_log": {"fields": {"case_id": "qid", "selected_candidate": "choice"}}},
     "other_harness.jsonl, line 1, column 'selected_candidate': expected a, b or tie, got 'first'"),
    ({"fields": {}}, "m.json: expected {\"judge_log\": {\"fields\""),
])
def test_a_bad_log_mapping_names_the_field(mapping, message):
    with pytest.raises(InputError) as e:
        parse_judge_log(OTHER.name, OTHER.read_bytes(), mapping=("m.json", json.dumps(mapping).encode()))
    assert str(e.value).startswith(message), str(e.value)


def test_partial_diagnostics_count_only_cases_with_a_reference():
    from agreebound.judge.intervals import judge_diagnostics

    b = parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes()))
    d = judge_diagnostics(b.measurement)
    rate = b.measurement.human_agreement
    assert d.agreement_with_ties == (rate.numerator, rate.denominator) == (188, 254)
    unreferenced = parse_judge_log(MT.name, MT.read_bytes())
    alone = judge_diagnostics(unreferenced.measurement)
    assert alone.agreement_with_ties == (0, 0) and unreferenced.judge_human_alpha.value is None
    assert alone.stable_flips == 48


def test_a_judge_log_given_as_ratings_says_where_it_belongs():
    from agreebound.io.ratings import parse_ratings

    with pytest.raises(InputError, match="this is an LLM-judge log \\(mt-bench judgments\\), not ratings"):
        parse_ratings(MT.name, MT.read_bytes())


def test_alpacaeval_weighted_preferences_are_scored_as_stated_confidence(capsys, tmp_path):
    """A weighted annotator's preference (1..2) is its stated probability that output_2 is the better:
    scored against the humans' preference, one forecast per case, with judgekit's ECE and Brier; the
    JSON, Markdown and the CLI say it, and the isotonic map is shown, not applied."""
    jk = pytest.importorskip("judgekit.calibration")
    judge = json.loads(ALPACA.read_text())
    humans = [dict(a, annotator=f"human_{i % 3}", preference=2 if a["output_2"] == "A short answer." else 1)
              for i, a in enumerate(judge)]
    b = parse_judge_log(ALPACA.name, ALPACA.read_bytes(), ("human.json", json.dumps(humans).encode()))
    c = b.confidence
    # one forecast per case, in case order (equal-mass bins of tied probabilities depend on the order)
    import hashlib

    def case(a: dict) -> str:
        return hashlib.sha256(json.dumps([a["instruction"], a["generator_1"], a["generator_2"]]).encode()).hexdigest()
    ordered = sorted(judge, key=case)
    assert len({case(a) for a in judge}) == 60
    p = [a["preference"] - 1 for a in ordered]
    y = [1.0 if a["output_2"] == "A short answer." else 0.0 for a in ordered]
    assert c is not None and (c.n, c.unit, c.split) == (60, "cases", 0)
    assert c.ece == pytest.approx(jk.ece_equal_mass(p, y), abs=1e-12)
    assert c.brier == pytest.approx(jk.brier(p, y), abs=1e-15)
    refs = tmp_path / "human.json"
    refs.write_text(json.dumps(humans))
    assert main(["calibrate", str(ALPACA), "--references", str(refs), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["calibration"]["confidence"]["items"] == 60
    assert report["calibration"]["confidence"]["isotonic"]["applied"] is False
    main(["calibrate", str(ALPACA), "--references", str(refs)])
    out = capsys.readouterr().out
    assert f"  ECE {c.ece:.3f} over 60 cases, against the humans' verdict (10 equal-mass bins)" in out
    # a judge that states no probability (MT-Bench) has no confidence section
    assert parse_judge_log(MT.name, MT.read_bytes(), (HUMAN.name, HUMAN.read_bytes())).confidence is None


def _renamed_mt_bench(first: dict[str, str], second: dict[str, str] | None = None) -> bytes:
    """The bundled MT-Bench log with models' names replaced where they are model_1 (``first``) and
    where they are model_2 (``second``, else the same)."""
    second = first if second is None else second
    out = []
    for line in (LOGS / "mt_bench_gpt-4_pair.jsonl").read_text().splitlines():
        r = json.loads(line)
        r["model_1"], r["model_2"] = first.get(r["model_1"], r["model_1"]), second.get(r["model_2"], r["model_2"])
        out.append(json.dumps(r))
    return ("\n".join(out) + "\n").encode()


def test_two_model_names_made_one_identifier_are_said_to_be_counted_as_one():
    # 'Vicuna 13B v1.3' (as model_1) and 'vicuna-13b-v1.3' (as model_2) both become vicuna-13b-v1.3:
    # one model in the counts, and the log says so
    log = read_judge_log("mt.jsonl", _renamed_mt_bench({"vicuna-13b-v1.3": "Vicuna 13B v1.3"}, {}))
    (note,) = [n for n in log.notes if "identifier" in n]
    assert note == ("2 model names became the identifier 'vicuna-13b-v1.3' and are counted as one model: "
                    "'Vicuna 13B v1.3', 'vicuna-13b-v1.3'; if they are different models, give them names that differ in more than case, "
                    "spaces or punctuation")


def test_model_names_changed_into_identifiers_are_said_once():
    log = read_judge_log("mt.jsonl", _renamed_mt_bench({"llama-13b": ":red[red] <b>x</b>"}))
    (note,) = [n for n in log.notes if "identifier" in n]
    assert note == ("model names made identifiers (lower case; letters, digits and . _ : - only): "
                    "':red[red] <b>x</b>' -> 'm-:red-red-b-x-b'")
    generators = set(log.observations["candidate_a_generator"]) | set(log.observations["candidate_b_generator"])
    assert "m-:red-red-b-x-b" in generators and "llama-13b" not in generators
    # the bundled log's names are identifiers already: nothing to say
    plain = read_judge_log("mt.jsonl", (LOGS / "mt_bench_gpt-4_pair.jsonl").read_bytes())
    assert not [n for n in plain.notes if "identifier" in n]
