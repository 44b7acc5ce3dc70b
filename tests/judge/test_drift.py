"""Drift between two judge runs split with anchor items (agreebound.judge.drift), its readers
(agreebound.io.drift_logs) and `agreebound drift`.

Simulations (fixed seeds): a judge shift planted on a graded judge (+0.3 on the score scale) and on
a pairwise judge (+8 points of one model's win rate) is recovered, its 95% interval covering the
planted shift in about 95% of 400 pairs of runs; a change planted in the systems alone is not
blamed on the judge. Coverage is asserted within 3 Monte-Carlo standard errors of 0.95
(sqrt(0.95 * 0.05 / 400) = 0.011): [0.917, 0.983].
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from agreebound.cli.main import main
from agreebound.io.drift_logs import anchor_items, read_anchor_list, read_drift_run
from agreebound.core.contrast import quantile, ratio_contrast
from agreebound.judge.agreement import difference
from agreebound.core.intervals import Z95
from agreebound.judge.drift import (ALL_SYSTEMS, CHANGED, DECLARED, INCONCLUSIVE, NO_ANCHORS, SCORE, UNCHANGED,
                                    WIN_RATE, DriftThresholds, decide_drift, measure_drift)

REPS = 400
MC_SE = math.sqrt(0.95 * 0.05 / REPS)
COVERAGE = (0.95 - 3 * MC_SE, 0.95 + 3 * MC_SE)


def covers(c, x) -> bool:
    return c.low is not None and c.low <= x <= c.high


# --- (a), (b): graded simulations ----------------------------------------------------------------


def graded_runs(rng: np.random.Generator, judge_shift: float, system_gain: float, items: int = 60,
                anchors: int = 30, systems: tuple[str, ...] = ("s1", "s2", "s3"), reps: int = 2
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two runs of a graded judge: items 0..anchors-1 keep every system's answer (same digest), the
    rest get new answers that score ``system_gain`` higher on average. The judge's shift is
    ``judge_shift`` on average, varying by item (sd 0.3): the item is the cluster that matters."""
    q = rng.normal(0, 1, items)  # item difficulty
    base = {s: rng.normal(0, 0.5, items) for s in systems}  # the first answer's quality
    new = {s: rng.normal(system_gain, 0.5, items) for s in systems}  # the new answer's
    lean = judge_shift + rng.normal(0, 0.3, items)  # the after-judge's shift on each item
    rows_a, rows_b = [], []
    for i in range(items):
        for s in systems:
            same = i < anchors
            for _ in range(reps):
                rows_a.append((f"i{i}", s, f"{s}-{i}-v1", q[i] + base[s][i] + rng.normal(0, 0.5)))
                quality = base[s][i] if same else new[s][i]
                rows_b.append((f"i{i}", s, f"{s}-{i}-v1" if same else f"{s}-{i}-v2",
                               q[i] + quality + lean[i] + rng.normal(0, 0.5)))
    cols = ["item", "system", "digest", "outcome"]
    return pd.DataFrame(rows_a, columns=cols), pd.DataFrame(rows_b, columns=cols)


def test_a_planted_judge_shift_is_attributed_to_the_judge():
    """+0.3 on the anchors; the systems' new answers +0.2 on the other half of the items, so the
    systems' change over all items is +0.1. Measured (seed 55): the pooled headline's judge interval
    covers +0.3 in 0.943 of 400 pairs of runs, the systems' interval covers +0.1 in 0.955."""
    rng = np.random.default_rng(55)
    judge_hits = systems_hits = changed = 0
    for _ in range(REPS):
        a, b = graded_runs(rng, 0.3, 0.2)
        d = measure_drift(a, b, SCORE)
        h = d.headlines[0]
        assert h.system == ALL_SYSTEMS and h.anchor_items == 30 and h.items == 60
        assert h.systems.exact == h.total.exact - h.judge.exact  # the split is exact
        judge_hits += covers(h.judge, 0.3)
        systems_hits += covers(h.systems, 0.1)
        changed += decide_drift(d).state == CHANGED
    judge_cov, systems_cov = judge_hits / REPS, systems_hits / REPS
    print(f"judge shift coverage {judge_cov:.3f} +- {MC_SE:.3f}; systems' change coverage {systems_cov:.3f}; "
          f"'the judge changed' {changed / REPS:.3f}")
    assert COVERAGE[0] <= judge_cov <= COVERAGE[1]
    assert COVERAGE[0] <= systems_cov <= COVERAGE[1]
    # power: +0.3 against a tolerance of 0.05 with 30 anchor items (the shift's standard error about 0.076,
    # so its lower bound clears 0.05 with probability about 0.89): measured 0.887
    assert changed / REPS >= 0.85


def test_b_a_planted_system_change_is_not_blamed_on_the_judge():
    """The same judge in both runs; the systems' new answers +0.5 on half the items. Measured
    (seed 56): the judge's interval covers 0 in 0.950 of 400 pairs; 'the judge changed' (on any of
    the four headlines) 0.018; the systems' interval covers +0.25 in 0.970."""
    rng = np.random.default_rng(56)
    zero_hits = systems_hits = changed = 0
    for _ in range(REPS):
        a, b = graded_runs(rng, 0.0, 0.5)
        d = measure_drift(a, b, SCORE)
        h = d.headlines[0]
        zero_hits += covers(h.judge, 0.0)
        systems_hits += covers(h.systems, 0.25)
        changed += decide_drift(d).state == CHANGED
    print(f"judge shift covers 0: {zero_hits / REPS:.3f} +- {MC_SE:.3f}; 'the judge changed' {changed / REPS:.3f}; "
          f"systems' change coverage {systems_hits / REPS:.3f}")
    assert COVERAGE[0] <= zero_hits / REPS <= COVERAGE[1]
    assert COVERAGE[0] <= systems_hits / REPS <= COVERAGE[1]
    assert changed / REPS <= 0.05


# --- (a), (b): pairwise simulations --------------------------------------------------------------


def pairwise_runs(rng: np.random.Generator, favour: float, questions: int = 40, anchor_share: float = 0.6
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two runs of a pairwise judge over 3 models (every pair on every question, two orders each):
    model x's chance to win a case is uniform on [0.2, 0.6], a tie 0.1. The after-judge moves
    ``favour`` of the probability from x's loss to x's win (x's win rate rises by ``favour`` on
    average; y's and z's fall by half as much); a share of the cases keep their answers (anchors),
    the others get new answers that do not change the odds."""
    rows_a, rows_b = [], []
    for q in range(questions):
        for m1, m2 in (("x", "y"), ("x", "z"), ("y", "z")):
            case = f"q{q}-{m1}-vs-{m2}"
            same = rng.random() < anchor_share
            p = rng.uniform(0.2, 0.6)
            for rows, shift, text in ((rows_a, 0.0, "v1"), (rows_b, favour, "v1" if same else "v2")):
                up = shift if m1 == "x" else 0.0
                for _ in range(2):  # two presentation orders
                    u = rng.random()
                    share = 1.0 if u < p + up else 0.5 if u < p + up + 0.1 else 0.0
                    rows.append((case, m1, f"{case}-{text}", share))
                    rows.append((case, m2, f"{case}-{text}", 1.0 - share))
    cols = ["item", "system", "digest", "outcome"]
    return pd.DataFrame(rows_a, columns=cols), pd.DataFrame(rows_b, columns=cols)


def test_a_pairwise_planted_win_rate_shift_is_attributed_to_the_judge():
    """+8 points for x from the judge alone (y and z lose 4 each). The three win rates' intervals are
    simultaneous (Bonferroni, each at 1 - 0.05/3): they cover all three planted shifts together in
    about 95% or more of the pairs of runs, each one in about 98.3%. Measured (seed 57): together
    0.960, x alone 0.985."""
    rng = np.random.default_rng(57)
    together = hits_x = 0
    planted = {"x": 0.08, "y": -0.04, "z": -0.04}
    for _ in range(REPS):
        a, b = pairwise_runs(rng, 0.08)
        d = measure_drift(a, b, WIN_RATE)
        by = {h.system: h for h in d.headlines}
        assert sorted(by) == ["x", "y", "z"]  # a win rate per system, no pooled headline (it is always 1/2)
        assert by["x"].coverage == "95% simultaneous over 3 systems (each 98.33%)"
        together += all(covers(by[s].judge, v) for s, v in planted.items())
        hits_x += covers(by["x"].judge, 0.08)
    one_se = math.sqrt(0.9833 * 0.0167 / REPS)
    print(f"simultaneous coverage {together / REPS:.3f} +- {MC_SE:.3f}; x alone {hits_x / REPS:.3f} +- {one_se:.3f}")
    assert COVERAGE[0] <= together / REPS <= 0.995
    assert 0.9833 - 3 * one_se <= hits_x / REPS <= 1


def test_b_pairwise_same_judge_is_not_called_changed():
    """No judge change: the three intervals cover 0 together in about 95% or more of 400 pairs (seed 58:
    0.968); 'the judge changed' (any model's interval beyond 5 points) fires at most 5% of the time
    (measured 0.005)."""
    rng = np.random.default_rng(58)
    hits = changed = 0
    for _ in range(REPS):
        a, b = pairwise_runs(rng, 0.0)
        d = measure_drift(a, b, WIN_RATE)
        hits += all(covers(h.judge, 0.0) for h in d.headlines)
        changed += decide_drift(d).state == CHANGED
    print(f"the judge shifts cover 0 together: {hits / REPS:.3f} +- {MC_SE:.3f}; 'the judge changed' "
          f"{changed / REPS:.3f}")
    assert COVERAGE[0] <= hits / REPS <= 0.995
    assert changed / REPS <= 0.05


# --- (c) exact cases by hand --------------------------------------------------------------------


def frame(rows):
    return pd.DataFrame(rows, columns=["item", "system", "digest", "outcome"])


def test_an_exact_split_with_repetitions_and_two_systems():
    """Items 1 and 2 keep their answers (anchors), item 3's answer of s changes.
    Before: 1/s 3, 3 (two repetitions); 1/t 2; 2/s 4; 3/s 1.  After: 1/s 4, 4; 1/t 2; 2/s 5; 3/s 5.
    All systems: total 20/5 - 13/5 = 7/5; judge on items 1, 2: 15/4 - 12/4 = 3/4; systems 7/5 - 3/4 =
    13/20. System s: total 18/4 - 11/4 = 7/4, judge 13/3 - 10/3 = 1, systems 3/4; t: 0, 0, 0.
    The judge's interval (all systems), two clusters: e_1 = (10 - 15/4 * 3)/4 - (8 - 3 * 3)/4 = -5/16 + 1/4
    = -1/16, e_2 = (5 - 15/4)/4 - (4 - 3)/4 = 1/16, v = 2 * 2/256 = 1/64, half = t(1) / 8."""
    before = frame([("1", "s", "a", 3), ("1", "s", "a", 3), ("1", "t", "b", 2), ("2", "s", "c", 4),
                    ("3", "s", "d", 1)])
    after = frame([("1", "s", "a", 4), ("1", "s", "a", 4), ("1", "t", "b", 2), ("2", "s", "c", 5),
                   ("3", "s", "e", 5)])
    d = measure_drift(before, after, SCORE)
    assert [h.system for h in d.headlines] == [ALL_SYSTEMS, "s", "t"]
    every, s, t = d.headlines
    assert (every.total.exact, every.judge.exact, every.systems.exact) == (Fraction(7, 5), Fraction(3, 4),
                                                                          Fraction(13, 20))
    assert (every.before, every.after, every.anchor_items, every.anchor_units) == (Fraction(13, 5), 4, 2, 3)
    assert (s.total.exact, s.judge.exact, s.systems.exact) == (Fraction(7, 4), 1, Fraction(3, 4))
    assert (t.total.exact, t.judge.exact, t.systems.exact, t.items) == (0, 0, 0, 1)
    half = quantile(Z95, 1) / 8
    assert every.judge.low == pytest.approx(0.75 - half, abs=1e-12)
    assert every.judge.high == pytest.approx(0.75 + half, abs=1e-12)
    assert every.judge.clusters == 2 and every.total.clusters == 3
    # the total's interval [1.4 -+ t(2) * ...] holds 0: no share is given
    assert every.share is None and "not distinguishable from zero" in every.share_note
    decision = decide_drift(d)
    # all systems: [-0.84, 2.34] reaches both sides of the tolerance; s: both anchor items moved by exactly 1, a
    # zero-width interval at +1; t: a single anchor item, no interval
    assert decision.states == (INCONCLUSIVE, CHANGED, INCONCLUSIVE) and decision.exit_code == 1


def test_the_share_is_given_when_the_total_excludes_zero():
    """Five items, all anchors but item 5 (a new answer): before 1, 2, 3, 4, 5; after 2, 3, 4, 5, 7.
    Total 21/5 - 15/5 = 6/5, its interval 6/5 -+ t(4) sqrt(5/4 * 0.8/25) = 1.2 -+ 2.776 * 0.2 (excludes 0);
    the judge (14 - 10)/4 = 1: the judge's share 5/6."""
    before = frame([(str(i), "s", f"d{i}", i) for i in (1, 2, 3, 4, 5)])
    after = frame([("1", "s", "d1", 2), ("2", "s", "d2", 3), ("3", "s", "d3", 4), ("4", "s", "d4", 5),
                   ("5", "s", "new", 7)])
    h = measure_drift(before, after, SCORE).headlines[0]
    assert (h.total.exact, h.judge.exact, h.share) == (Fraction(6, 5), 1, Fraction(5, 6))
    assert h.total.low == pytest.approx(1.2 - quantile(Z95, 4) * 0.2, abs=1e-12)
    # every anchor moved by exactly 1: a zero-width interval at +1, beyond a tolerance of 0.05
    assert (h.judge.low, h.judge.high) == (1.0, 1.0)
    decision = decide_drift(measure_drift(before, after, SCORE))
    assert decision.state == CHANGED and decision.exit_code == 1
    text = "\n".join(decision.sentences())
    assert "83% of the change is the judge's" in text
    assert "Few anchors: fewer than 10 anchor items" in text
    # the tolerance decides: a judge allowed to move 1 (its interval [1, 1] lies within [-1, 1]) is not called changed
    relaxed = decide_drift(measure_drift(before, after, SCORE), DriftThresholds.from_tolerance(Fraction(1)))
    assert relaxed.state == UNCHANGED and relaxed.exit_code == 0


def test_ratio_contrast_keeps_difference_exact():
    """difference (agreement) is ratio_contrast with coefficients +1, -1: the same bits."""
    y1, m1, y2, m2 = np.array([3, 1, 4]), np.array([4, 2, 5]), np.array([1, 1, 2]), np.array([3, 2, 4])
    d = difference("x", (y1, m1), (y2, m2))
    c = ratio_contrast(((1, y1, m1), (-1, y2, m2)))
    assert (d.exact, d.low, d.high, d.cases) == (c.exact, c.low, c.high, c.clusters)
    assert d.exact == Fraction(8, 11) - Fraction(4, 9)


def test_no_anchors_is_a_state():
    before = frame([("1", "s", "a", 1), ("2", "s", "b", 2)])
    after = frame([("1", "s", "a2", 3), ("2", "s", "b2", 3)])
    decision = decide_drift(measure_drift(before, after, SCORE))
    assert decision.state == NO_ANCHORS and decision.exit_code == 0
    assert decision.sentences()[0] == ("Judge drift: no anchors: items with the same candidate text in both runs are "
                                       "needed (or a declared list of anchor items, --anchors); the change cannot be "
                                       "split.")
    # runs without any text: said, and declared anchors then split the change
    blind_a, blind_b = before.assign(digest=None), after.assign(digest=None)
    d = measure_drift(blind_a, blind_b, SCORE)
    assert d.anchor_items == 0 and any("no candidate text" in n for n in d.notes)
    declared = measure_drift(blind_a, blind_b, SCORE, declared=["1", "9"])
    assert declared.anchor_source == DECLARED and declared.headlines[0].judge.exact == 2
    assert any("1 of the 2 declared anchor items are not in both runs" in n for n in declared.notes)


# --- readers --------------------------------------------------------------------------------------


def mt_bench_record(q: int, m1: str, m2: str, g1: str, g2: str, answer_1: str, answer_2: str) -> str:
    prompt = (f"[User Question]\nQuestion {q}\n\n[The Start of Assistant A's Answer]\n{answer_1}\n"
              f"[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n{answer_2}\n"
              "[The End of Assistant B's Answer]")
    return json.dumps({"question_id": q, "model_1": m1, "model_2": m2, "g1_winner": g1, "g2_winner": g2,
                       "judge": ["gpt-4", "pair-v2"], "g1_user_prompt": prompt, "turn": 1})


def test_mt_bench_pairwise_anchors_from_the_judge_prompts():
    """Question 1's answers are the same in both runs (an anchor), question 2's answer of m2 changed.
    gpt-4's win rate: before (1 + 1 + 1/2 + 0)/4 = 5/8, after (1 + 1 + 1 + 1)/4 = 1; on the anchor
    1 -> 1 (the judge did not move there), so the whole change (3/8) is the systems'."""
    before = "\n".join([mt_bench_record(1, "gpt-4", "claude-v1", "model_1", "model_1", "A1", "B1"),
                        mt_bench_record(2, "gpt-4", "claude-v1", "tie", "model_2", "A2", "B2")]).encode()
    after = "\n".join([mt_bench_record(1, "gpt-4", "claude-v1", "model_1", "model_1", "A1", "B1"),
                       mt_bench_record(2, "gpt-4", "claude-v1", "model_1", "model_1", "A2", "B2 changed")]).encode()
    a, b = read_drift_run("a.jsonl", before), read_drift_run("b.jsonl", after)
    assert a.scale == WIN_RATE and a.with_text == 8
    d = measure_drift(a.frame, b.frame, WIN_RATE)
    m1 = {h.system: h for h in d.headlines}["gpt-4"]
    assert (m1.before, m1.after, m1.total.exact, m1.judge.exact, m1.systems.exact, m1.anchor_items) == \
        (Fraction(5, 8), 1, Fraction(3, 8), 0, Fraction(3, 8), 1)
    # a question id names its cases in a declared list
    assert anchor_items(("2",), a, b) == ("q2-t1-gpt-4-vs-claude-v1",)


def test_the_sample_logs_read():
    """The bundled pairwise sample carries no answers (its prompts are cut): anchors must be declared."""
    pair = read_drift_run("p.jsonl", open("sample_data/judge_logs/mt_bench_gpt-4_pair.jsonl", "rb").read())
    assert (pair.scale, pair.with_text, len(pair.frame)) == (WIN_RATE, 0, 572)
    graded = read_drift_run("g.csv", open("sample_data/graded_judge.csv", "rb").read(), judge="judge-model")
    assert (graded.scale, len(graded.frame), graded.frame["outcome"].iloc[0]) == (SCORE, 120, 5)
    assert read_anchor_list("a.txt", b"item\n# frozen set\nitem-0001\n\nitem-0002  # two\nitem-0001\n") == \
        ("item-0001", "item-0002")


# --- (d) the command ------------------------------------------------------------------------------


def scores_csv(path, shift: int, changed: set[int]) -> str:
    lines = ["item,rater,role,score,model,output"]
    for i in range(12):
        text = f"answer {i}" + (" v2" if i in changed else "")
        lines.append(f"item-{i},judge,judge,{min(10, 3 + i % 4 + shift)},sys,{text}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_cli_exit_codes(tmp_path, capsys):
    before = scores_csv(tmp_path / "before.csv", 0, set())
    same = scores_csv(tmp_path / "same.csv", 0, {10, 11})
    lenient = scores_csv(tmp_path / "lenient.csv", 1, {10, 11})
    assert main(["drift", before, same]) == 0
    out = capsys.readouterr().out
    assert "Judge drift: no judge change shown: the judge's shift on the anchor items lies within the tolerance " \
           "(+-0.050)." in out
    assert main(["drift", before, lenient]) == 1
    out = capsys.readouterr().out
    assert "Judge drift: the judge changed" in out
    assert "the judge's shift +1.000 [+1.000, +1.000] over 10 anchor items" in out
    assert main(["drift", before, lenient, "--tolerance", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["state"], report["tolerance_exact"], report["anchor_items"]) == (UNCHANGED, "1", 10)
    assert report["headlines"][0]["judge_shift"]["exact"] == "1"
    anchors = tmp_path / "anchors.txt"
    anchors.write_text("item-0\nitem-1\n")
    assert main(["drift", before, lenient, "--anchors", str(anchors), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["anchor_source"], report["anchor_items"]) == (DECLARED, 2)
    # bad input: exit 3 with one line
    assert main(["drift", before, str(tmp_path / "missing.csv")]) == 3
    assert main(["drift", before, lenient, "--tolerance", "-1"]) == 3
    assert "--tolerance: expected a number of at least 0" in capsys.readouterr().err
    (tmp_path / "bad.csv").write_text("item,rater,role,score\nitem-0,judge,robot,3\n")
    assert main(["drift", before, str(tmp_path / "bad.csv")]) == 3
    err = capsys.readouterr().err
    assert "bad.csv" in err and "role" in err
    pair = "sample_data/judge_logs/mt_bench_gpt-4_pair.jsonl"
    assert main(["drift", before, pair]) == 3
    assert "compare runs of one kind" in capsys.readouterr().err


def test_cli_tolerance_from_a_thresholds_file_and_the_flag_over_it(tmp_path, capsys):
    """``--thresholds FILE``'s [drift] table sets the tolerance (permil of the headline's scale);
    ``--tolerance`` overrides it, exactly (0.9995 is finer than a permil and decides as given)."""
    before = scores_csv(tmp_path / "before.csv", 0, set())
    lenient = scores_csv(tmp_path / "lenient.csv", 1, {10, 11})  # the judge's shift: exactly +1 on 10 anchors

    def toml(name: str, permil: object) -> str:
        path = tmp_path / name
        path.write_text(f"[panel]\nalpha_floor_permil = 600\n\n[drift]\njudge_shift_tolerance_permil = {permil}\n")
        return str(path)

    allowed, strict = toml("allowed.toml", 1000), toml("strict.toml", 999)
    assert main(["drift", before, lenient, "--thresholds", allowed, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["state"], report["tolerance_exact"]) == (UNCHANGED, "1")
    assert main(["drift", before, lenient, "--thresholds", strict]) == 1
    assert "lies beyond the tolerance (+-0.999)" in capsys.readouterr().out
    assert main(["drift", before, lenient, "--thresholds", allowed, "--tolerance", "0.9995", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["state"], report["tolerance_exact"]) == (CHANGED, "1999/2000")
    assert main(["drift", before, lenient, "--thresholds", strict, "--tolerance", "1/1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tolerance_exact"] == "1"
    # bad input: exit 3, one line naming the file, the line and the key
    assert main(["drift", before, lenient, "--thresholds", toml("bad.toml", 100_001)]) == 3
    err = capsys.readouterr().err
    assert "bad.toml, line 5, column 'drift.judge_shift_tolerance_permil'" in err and "got 100001" in err
    assert main(["drift", before, lenient, "--thresholds", str(tmp_path / "none.toml")]) == 3
    assert "none.toml" in capsys.readouterr().err
    for given in ("100.5", "1e5", "-0.1"):
        assert main(["drift", before, lenient, "--tolerance", given]) == 3
        assert "--tolerance: expected a number of at least 0 and at most 100, got " + given in capsys.readouterr().err
