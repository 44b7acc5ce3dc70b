"""A graded judge's log at its edges (issue 50): many judges in one scores table, scores of
+-1e308, NaN and text. Each case is a file the test writes; the CLI runs as a subprocess, so what a
user sees is asserted whole: the one located message on stderr (no numpy warning, no source path)
and the exit code."""

from __future__ import annotations

import json
import math
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreebound.panel.alpha import krippendorff_alpha
from agreebound.core.errors import InputError
from agreebound.io.scored_logs import read_scored_log
from agreebound.io.scored_tables import join_human_labels, scores_table
from agreebound.core.limits import MAX_JUDGES
from agreebound.scored.items import ScoredInput, scored_input
from agreebound.scored.judges import judge_panel
from tests.support.cli import process

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "judge_logs"
RANGE = "a score from -10^15 to 10^15, 0 or at least 10^-15 in size"


def _cli(*argv: str) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = process("calibrate", *argv, cwd=ROOT, timeout=None)
    return done, time.perf_counter() - start


def _judges_table(path: Path, judges: int) -> Path:
    """``judges`` judges scoring one item, and one human: the issue's 20,000-judge table (329 KB)."""
    rows = ["item,rater,role,score"] + [f"i1,j{k},judge,{k % 5 + 1}" for k in range(judges)] + ["i1,h1,human,3"]
    path.write_text("\n".join(rows) + "\n")
    return path


def _table(path: Path, cell: str, other: str | None = None) -> Path:
    """A judge and two humans on 12 items; row 6 (item i1, human h1) holds ``cell``; row 12 (item
    i3, human h1) ``other`` when given."""
    rows = ["item,rater,role,score"]
    for i in range(12):
        rows += [f"i{i},judge-a,judge,{i % 5 + 1}", f"i{i},h1,human,{i % 5 + 1}", f"i{i},h2,human,{(i + 1) % 5 + 1}"]
    rows[5] = f"i1,h1,human,{cell}"
    if other is not None:
        rows[11] = f"i3,h1,human,{other}"
    path.write_text("\n".join(rows) + "\n")
    return path


# --- many judges ----------------------------------------------------------------------------------


def test_twenty_thousand_judges_are_refused_before_the_work_with_their_count(tmp_path):
    # before: still running after 180 s (quadratic); now refused in about half a second
    done, seconds = _cli(str(_judges_table(tmp_path / "judges.csv", 20_000)))
    assert seconds < 30, seconds
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == ("judges.csv, column 'rater': 20,000 judges (raters with the role judge); one audit compares "
                           "at most 1,000 judges, each measured against the humans: audit the log in parts of at most "
                           "1,000 judges\n")


def test_the_most_judges_an_audit_takes_are_audited_in_seconds(tmp_path):
    # 1,000 judges: 2.8 s here (the panel's leave-one-judge-out alphas were quadratic: 3.3 s before)
    assert MAX_JUDGES == 1_000
    done, seconds = _cli(str(_judges_table(tmp_path / "judges.csv", MAX_JUDGES)), "--json")
    assert seconds < 30, seconds
    assert done.returncode == 1 and done.stderr == ""  # one item: every judge is INCOMPLETE
    s = json.loads(done.stdout)["scored"]
    assert len(s["judges"]) == 1_000 and len(s["audits"]) == 1_000 and len(s["panel"]["without"]) == 1_000


def test_the_judge_panel_is_linear_in_the_judges():
    # 5,000 judges on one item: leaving each judge out re-read every judge's scores (about 40 s); now
    # each judge's alpha without it costs its own items (about 2 s)
    # (built directly: an audit refuses more than MAX_JUDGES judges before measuring any)
    k = 5_000
    x = ScoredInput("t", ("i1",), tuple(f"j{j}" for j in range(k)), (), np.arange(k, dtype=float)[None, :] % 5 + 1,
                    np.array([""], dtype=object), np.array([np.nan]), np.full((1, k), np.nan))
    start = time.perf_counter()
    panel = judge_panel(x, "ordinal", ())
    assert time.perf_counter() - start < 20
    assert len(panel.without) == 5_000 and panel.alpha is not None


def _panel_by_matrix(x, level):
    """The panel of judges as it was measured before: alpha of the judges' columns through the panel
    path, and again without each judge's column."""
    k = len(x.judges)
    m = x.matrix[:, :k]

    def alpha_of(cols):
        rows = [[None if np.isnan(v) else (int(v) if float(v).is_integer() else float(v)) for v in row]
                for row in m[:, cols]]
        return krippendorff_alpha(rows, level).value

    return alpha_of(list(range(k))), {x.judges[i]: alpha_of([c for c in range(k) if c != i]) for i in range(k)}


def test_the_judge_panel_leaves_each_judge_out_exactly_as_the_panel_path_does():
    rng = np.random.default_rng(50)
    checked = 0
    for _ in range(60):
        k, items = int(rng.integers(3, 7)), int(rng.integers(1, 12))
        values = rng.choice([0.0, 0.5, 1.0, 2.0, 3.25, 7.0, 10.0], size=int(rng.integers(1, 5)), replace=False)
        rows = [(f"i{i}", f"j{j}", "judge", float(rng.choice(values))) for i in range(items) for j in range(k)
                if rng.random() < 0.7]
        rows += [(f"i{i}", "h", "human", float(rng.choice(values))) for i in range(items)]
        x = scored_input(pd.DataFrame(rows, columns=["item", "rater", "role", "score"]), "t")
        if len(x.judges) < 3:
            continue
        for level in ("nominal", "ordinal", "interval"):
            panel = judge_panel(x, level, ())
            assert (panel.alpha, panel.without) == _panel_by_matrix(x, level)
            checked += 1
    assert checked > 100


# --- extreme scores -------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["1e308", "-1e308", "5e-324"])
def test_a_score_beyond_ten_to_the_fifteen_is_refused_located(tmp_path, cell):
    # before: exit 1 with an SD ratio, and three numpy RuntimeWarnings on stderr naming source paths;
    # 5e-324: exit 4 at the interval level (alpha's common denominator beyond a float)
    done, _ = _cli(str(_table(tmp_path / "scores.csv", cell)), "--level", "interval")
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == f"scores.csv, row 6, column 'score': expected {RANGE}, got '{cell}'\n"


def test_scores_at_ten_to_the_fifteen_are_audited_without_a_word_on_stderr(tmp_path):
    done, _ = _cli(str(_table(tmp_path / "scores.csv", "1e15", "-1e15")), "--level", "interval")
    assert done.returncode in (0, 1, 2) and done.stderr == ""
    ratio = next(line for line in done.stdout.splitlines() if "(SD ratio)" in line)
    assert "inf" not in ratio and "nan" not in ratio


def test_scores_far_from_zero_keep_their_spread_interval(tmp_path):
    # 10^12 + 1, + 2, + 3: the SD ratio's jackknife took raw squares, which cancelled to noise (no interval)
    rng = np.random.default_rng(3)
    rows = ["item,rater,role,score"] + [f"i{i},{r},{role},{10**12 + int(rng.integers(1, 4))}" for i in range(30)
                                        for r, role in (("j1", "judge"), ("h1", "human"), ("h2", "human"))]
    (tmp_path / "far.csv").write_text("\n".join(rows) + "\n")
    done, _ = _cli(str(tmp_path / "far.csv"))
    assert done.stderr == ""
    ratio = next(line for line in done.stdout.splitlines() if "(SD ratio)" in line)
    low, high = (float(v) for v in ratio.split("[")[1].rstrip("]").split(","))
    value = float(ratio.split(": ")[1].split("x")[0])
    assert 0 < low < value < high < 2


def test_a_scores_tables_nan_and_text_scores_are_refused_located(tmp_path):
    for cell in ("NaN", "high"):
        done, _ = _cli(str(_table(tmp_path / "scores.csv", cell)))
        assert done.returncode == 3 and done.stdout == ""
        assert done.stderr == ("scores.csv, row 6, column 'score': expected a number or a verdict (pass/fail, yes/no, "
                               f"true/false, C/I/P), got '{cell}'\n")


def test_a_nan_in_a_json_scores_table_is_not_a_missing_score():
    # before: left out as a row without a score
    records = [{"item": "i1", "rater": "j", "role": "judge", "score": 1}, {"item": "i1", "rater": "h", "role": "human",
                                                                         "score": float("nan")}]
    with pytest.raises(InputError) as e:
        scores_table("scores.json", json.dumps(records).encode())
    assert str(e.value) == ("scores.json, record 2, column 'score': expected a number or a verdict (pass/fail, yes/no, "
                            "true/false, C/I/P), got NaN (a missing score is an empty cell or null)")


def test_an_answer_length_beyond_ten_to_the_fifteen_is_refused_located():
    data = b"item,rater,role,score,length\ni1,j,judge,1,1e308\ni1,h,human,2,5\n"
    with pytest.raises(InputError) as e:
        scores_table("scores.csv", data)
    assert str(e.value) == "scores.csv, row 2, column 'length': expected a number from -10^15 to 10^15, got '1e308'"


def test_a_human_label_beyond_ten_to_the_fifteen_is_refused_located():
    log = read_scored_log("log.json", (LOGS / "inspect_ai_model_graded_qa.json").read_bytes())
    with pytest.raises(InputError) as e:
        join_human_labels(log, "humans.csv", b"id,epoch,annotator,score\nq1,1,ann,1\nq3,1,ann,-1e308\n")
    assert str(e.value) == f"humans.csv, row 3, column 'score': expected {RANGE}, got '-1e308'"


def test_an_mt_bench_score_too_large_for_a_float_is_located_not_a_crash():
    lines = (LOGS / "mt_bench_gpt-4_single.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"score": ', '"score": 1' + "0" * 400 + ", \"was\": ", 1)
    with pytest.raises(InputError) as e:  # before: OverflowError (exit 4)
        read_scored_log("mt.jsonl", ("\n".join(lines) + "\n").encode())
    assert str(e.value).startswith("mt.jsonl, line 2, column 'score': expected a rating from 1 to 10 (or -1), "
                                   "got '1000")


def test_a_judgekit_scale_of_1e308_is_refused_located():
    record = {"kind": "graded", "item_id": "a", "judge_id": "j", "score": 1e308, "scale_min": 1, "scale_max": 1e308}
    with pytest.raises(InputError) as e:
        read_scored_log("jk.jsonl", (json.dumps(record) + "\n").encode())
    assert str(e.value) == f"jk.jsonl, line 1, column 'score': expected {RANGE}, got '1e+308'"


@pytest.mark.parametrize("cell, shown", [("1e308", "1e+308"), ("nan", "nan"), ("-inf", "-inf"), ("1e-300", "1e-300")])
def test_the_out_of_core_engine_refuses_the_same_scores(tmp_path, cell, shown):
    from agreebound.engines.scored_sql import duckdb_counts

    path = tmp_path / "s.csv"
    path.write_text(f"item,rater,role,score\ni1,j,judge,1\ni1,h,human,1\ni2,j,judge,{cell}\ni2,h,human,2\n")
    with pytest.raises(InputError) as e:
        duckdb_counts([str(path)])
    assert str(e.value) == f"s.csv, column 'score': expected {RANGE}, got {shown} (rater j, item i2)"


def test_the_out_of_core_engine_refuses_too_many_judges_before_pairing_them(tmp_path):
    from agreebound.engines.scored_sql import duckdb_counts

    with pytest.raises(InputError) as e:
        duckdb_counts([str(_judges_table(tmp_path / "judges.csv", MAX_JUDGES + 1))])
    assert str(e.value).startswith("judges.csv, column 'rater': 1,001 judges (raters with the role judge); one audit")


# --- promptfoo: a component's score is never replaced by its pass flag ------------------------------------


def _promptfoo(path: Path, score) -> Path:
    doc = json.loads((LOGS / "promptfoo_llm_rubric.json").read_text())
    component = doc["results"]["results"][1]["gradingResult"]["componentResults"][0]  # llm-rubric, pass false
    if score is None:
        del component["score"]
    else:
        component["score"] = score
    path.write_text(json.dumps(doc))  # a NaN is written as promptfoo's JSON never holds it: NaN
    return path


@pytest.mark.parametrize("score, shown", [(float("nan"), "NaN"), ("high", "'high'")])
def test_a_promptfoo_score_that_is_nan_or_text_is_refused_located(tmp_path, score, shown):
    # before: read as the assertion's pass flag (0), without a word
    done, _ = _cli(str(_promptfoo(tmp_path / "results.json", score)))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == ("results.json, record 2, column 'gradingResult.componentResults[0].score': expected a "
                           f"number, got {shown} (the assertion's pass flag is read only where it has no score)\n")


def test_a_promptfoo_score_of_1e308_is_refused_located(tmp_path):
    done, _ = _cli(str(_promptfoo(tmp_path / "results.json", 1e308)))
    assert done.returncode == 3
    assert done.stderr == ("results.json, record 2, column 'gradingResult.componentResults[0].score': expected "
                           f"{RANGE}, got '1e+308'\n")


def test_a_promptfoo_component_without_a_score_still_reads_its_pass_flag(tmp_path):
    log = read_scored_log("r.json", _promptfoo(tmp_path / "r.json", None).read_bytes())
    rubric = "file://grader.js (llm-rubric)"
    got = {(i, r): s for i, r, s in zip(log.scores["item"], log.scores["rater"], log.scores["score"])}
    assert got[("1/0/echo", rubric)] == 0.0  # its pass is false


# --- inspect_ai: NaN is "no grade in the grader's reply" only where the log says so ----------------------


def _inspect(path: Path, edit) -> Path:
    doc = json.loads((LOGS / "inspect_ai_model_graded_qa.json").read_text())
    edit(doc["samples"][4]["scores"]["model_graded_qa"])  # sample 5: NaN, reason grader_failed
    path.write_text(json.dumps(doc))
    return path


def test_an_inspect_nan_without_a_reason_is_refused_located(tmp_path):
    # before: counted as "no grade in the grader's reply"
    def bare(score):
        del score["reason"], score["explanation"]

    done, _ = _cli(str(_inspect(tmp_path / "log.json", bare)))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == ("log.json, sample 5, column 'scores.model_graded_qa.value': expected a grade (C, I, P), a "
                           "number or a boolean, got NaN with no reason recorded (inspect records why a judgment is "
                           "unscored, e.g. reason grader_failed)\n")


def test_an_inspect_nan_with_another_reason_is_counted_under_that_reason(tmp_path):
    def scorer_failed(score):
        score["reason"], score["explanation"] = "scoring_failed", "the scorer raised"

    log = read_scored_log("log.json", _inspect(tmp_path / "log.json", scorer_failed).read_bytes())
    assert "1 unscored judgments (no grade in the grader's reply) left out (samples 10)" in log.notes
    assert "1 unscored judgments (reason 'scoring_failed' in the log) left out (samples 5)" in log.notes


def test_an_inspect_grader_failure_is_still_no_grade_in_the_graders_reply():
    log = read_scored_log("log.json", (LOGS / "inspect_ai_model_graded_qa.json").read_bytes())
    assert "2 unscored judgments (no grade in the grader's reply) left out (samples 5, 10)" in log.notes
    assert not any(math.isnan(v) for v in log.scores["score"])


def test_an_inspect_score_of_minus_1e308_is_refused_located(tmp_path):
    def huge(score):
        score["value"] = -1e308

    done, _ = _cli(str(_inspect(tmp_path / "log.json", huge)))
    assert done.returncode == 3
    assert done.stderr == (f"log.json, sample 5, column 'scores.model_graded_qa.value': expected {RANGE}, "
                           "got '-1e+308'\n")


def test_the_reader_and_the_audit_hold_one_bound():
    """One home for the bound (agreebound.core.limits): the reader, the audit and the SQL engines use it."""
    from agreebound.core import limits
    from agreebound.engines import scored_sql
    from agreebound.io import score_values
    from agreebound.scored import items

    assert limits.MAX_SCORE_MAGNITUDE == 10**15 < 2**53
    for module in (score_values, scored_sql):
        assert module.MAX_SCORE_MAGNITUDE is limits.MAX_SCORE_MAGNITUDE
    for module in (items, score_values, scored_sql):  # the audit's items check the bound through limits
        assert module.SCORE_RANGE is limits.SCORE_RANGE
    assert items.within_magnitude is limits.within_magnitude


def test_a_scores_table_as_a_json_array_is_read_as_one_and_its_nan_is_located(tmp_path):
    """A JSON array of score records went to the pairwise reader ('expected a JSON object with exactly
    contract and snapshot', or an unlocated 'NaN is not a number JSON allows')."""
    rows = [{"item": f"i{k}", "rater": r, "role": role, "score": (k + (r == "h")) % 5 + 1}
            for k in range(12) for r, role in (("j", "judge"), ("h", "human"))]
    good = tmp_path / "scores.json"
    good.write_text(json.dumps(rows))
    done, _ = _cli(str(good), "--json")
    assert done.returncode == 1 and done.stderr == ""
    scored = json.loads(done.stdout)["scored"]
    assert (scored["shape"], scored["judges"], scored["humans"], scored["items"]) == ("scores table", ["j"], ["h"], 12)
    bad = tmp_path / "nan.json"
    bad.write_text(json.dumps(rows[:3])[:-1] + ', {"item": "i9", "rater": "h", "role": "human", "score": NaN}]')
    done, _ = _cli(str(bad))
    assert (done.returncode, done.stderr) == (3, "nan.json, record 4, column 'score': expected a number or a verdict "
                                                 "(pass/fail, yes/no, true/false, C/I/P), got NaN (a missing score is "
                                                 "an empty cell or null)\n")
