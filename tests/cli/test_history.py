"""Runs on the command line: --record, history, compare (exit 1 on a regression), delete; the same
results on SQLite and on a real PostgreSQL server (the ``db_url`` fixture gives both)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.cli import recorded_id, run
from agreebound.app.history import compare
from agreebound.app.store import Store

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"




def test_record_history_compare_delete(db_url, capsys):
    code, out, _ = run(capsys, "panel", S / "detector_panel.csv", "--record", "--label", "week 47", "--db", db_url)
    assert code == 1  # the verdict's exit code is unchanged by recording
    first = recorded_id(out)
    code, out, _ = run(capsys, "panel", S / "detector_panel.csv", "--thresholds", S / "thresholds.toml",
                       "--preset", "exploratory", "--record", "--db", db_url)
    second = recorded_id(out)
    code, out, _ = run(capsys, "history", "--db", db_url)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith(second) and lines[2].startswith(first)  # newest first
    assert "(week 47)" in lines[2] and "detector_panel.csv" in lines[2] and "REPORT_ONLY" in lines[2]

    # default -> exploratory: insult's spread gate passes under the wider cap: better, exit 0
    code, out, _ = run(capsys, "compare", first, second, "--db", db_url)
    assert code == 0, out
    assert "Improved: insult REPORT_ONLY -> ENFORCE." in out
    assert "thresholds changed (" in out and "data changed" not in out
    assert "insult spread: 3.10x -> 3.10x  FLIPPED, now passes: threshold 2.00x -> " in out
    # the other way round is a regression: exit 1, and the reason names the thresholds
    code, out, _ = run(capsys, "compare", second[:6], first[:6], "--db", db_url)
    assert code == 1
    assert "Regression: insult ENFORCE -> REPORT_ONLY." in out
    assert "now fails: threshold " in out and "(thresholds changed)" in out
    # the same data: alpha did not move, and says so
    assert "violence: alpha unchanged at 0.236 (the same data)." in out

    code, out, _ = run(capsys, "compare", first, second, "--json", "--db", db_url)
    c = json.loads(out)
    assert c["regression"] is False
    flipped = [g for g in c["gates"] if g["flipped"]]
    # floor 0.600 -> 0.400 and cap 2.00x -> 4.00x: violence's spread (3.90x) and both of insult's gates
    assert [(g["scope"], g["gate"]) for g in flipped] == [("violence", "spread"), ("insult", "alpha"),
                                                          ("insult", "spread")]
    assert flipped[2]["before"]["value"] == "31/10" and flipped[2]["before"]["passed"] is False
    assert flipped[2]["after"]["passed"] is True and flipped[2]["after"]["threshold"] == "4"
    assert "thresholds changed (alpha floor 0.600 -> 0.400; spread cap 2.00x -> 4.00x)" in c["causes"]

    code, out, _ = run(capsys, "history", "--json", "--db", db_url)
    listed = json.loads(out)["runs"]
    assert [r["id"] for r in listed] == [second, first]
    data = (S / "detector_panel.csv").read_bytes()
    assert listed[1]["inputs"] == [{"role": "ratings", "name": "detector_panel.csv",
                                    "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}]
    # one blob for the ratings however often recorded, plus the thresholds file
    with Store.open(db_url) as store:
        assert store.counts()["blobs"] == 2
        report = store.get(first).report
    assert report["panel"]["dimensions"][0]["alpha"]["exact"] == "520132/2203311"

    code, out, _ = run(capsys, "delete", first, "--db", db_url)
    assert code == 0 and out.startswith(f"deleted run {first} (0 stored inputs")  # the ratings are still used
    code, out, _ = run(capsys, "delete", second, "--db", db_url)
    assert out.startswith(f"deleted run {second} (2 stored inputs")
    code, out, _ = run(capsys, "history", "--db", db_url)
    assert out.startswith("no runs in ")


def test_data_change_flips_alpha_and_says_data(db_url, capsys, tmp_path):
    """Ratings edited so that the sexual dimension's detectors disagree: its alpha falls below the
    floor, the verdict gets worse, and the reason names the data."""
    text = (S / "detector_panel.csv").read_text().splitlines()
    header = text[0].split(",")
    col = header.index("detector-llm") if "detector-llm" in header else None
    changed = tmp_path / "detector_panel.csv"
    if col is None:  # long layout: flip every detector-llm rating of sexual
        rows = [text[0]]
        for line in text[1:]:
            cells = line.split(",")
            if "detector-llm" in cells and "sexual" in cells:
                cells[-1] = "1" if cells[-1] == "0" else "0"
            rows.append(",".join(cells))
    else:
        rows = text
    changed.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, "panel", S / "detector_panel.csv", "--dimension", "sexual", "--record", "--db", db_url)
    assert code == 0
    before = recorded_id(out)
    code, out, _ = run(capsys, "panel", changed, "--dimension", "sexual", "--record", "--db", db_url)
    after = recorded_id(out)
    assert code == 1
    code, out, _ = run(capsys, "compare", before, after, "--db", db_url)
    assert code == 1
    assert "Regression: sexual ENFORCE -> REPORT_ONLY." in out
    assert "data changed (ratings)" in out
    assert "sexual alpha: 0.779 -> " in out and "now fails: alpha 0.779 -> " in out and "(the data changed)" in out
    assert "more than the intervals allow" in out


def test_judge_runs_compare_contract_and_data(db_url, capsys):
    code, out, _ = run(capsys, "calibrate", S / "judge_illustrative.json", "--record", "--db", db_url)
    assert code == 0
    a = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--record", "--db", db_url)
    assert code == 1
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--db", db_url)
    assert code == 1
    assert ("Regression: the judge changed (rubric digest: 4ca924495d49 -> b5a13f4b7db4): its verdicts are another "
            "instrument's; judge PASS_CALIBRATION -> FAIL_CALIBRATION.") in out  # two bundles, two rubrics
    assert "data changed (bundle)" in out and "contract changed (" in out
    assert "judge Position flip: 0.0% -> 11.2%  FLIPPED, now fails: Position flip 0.0% -> 11.2% (the data changed)" in out
    with Store.open(db_url) as store:
        run_b = store.get(b)
    assert run_b.judge and run_b.contract_id.startswith("judge-calibration@sha256:")
    code, out, _ = run(capsys, "history", "--kind", "judge", "--verdict", "FAIL_CALIBRATION", "--json", "--db", db_url)
    assert [r["id"] for r in json.loads(out)["runs"]] == [b]
    # a panel run and a judge run cannot be compared: bad input, exit 3
    code, out, _ = run(capsys, "panel", S / "krippendorff_2011.csv", "--record", "--db", db_url)
    p = recorded_id(out)
    code, out, err = run(capsys, "compare", p, b, "--db", db_url)
    assert code == 3 and "compare runs of one kind" in err


@pytest.mark.parametrize("argv, message", [
    (["compare", "zzzz", "abcd"], "'zzzz' is not a run id"),
    (["compare", "abcd", "abce"], "no run abcd that you can open in "),
    (["delete", "0123456789ab"], "no run 0123456789ab that you can open in "),
])
def test_unknown_runs_are_bad_input(tmp_path, capsys, argv, message):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code, out, err = run(capsys, *argv, "--db", db)
    assert code == 3 and out == ""
    assert message in err and "Traceback" not in err


def test_recording_into_a_foreign_file_gives_no_verdict(tmp_path, capsys):
    foreign = tmp_path / "notes.db"
    foreign.write_bytes(b"these are my notes, not a database\n" * 10)
    before = hashlib.sha256(foreign.read_bytes()).hexdigest()
    code, out, err = run(capsys, "panel", S / "detector_panel.csv", "--record", "--db", foreign)
    assert code == 3  # never a verdict's 0/1/2 when the run could not be recorded
    assert "not an agreebound database (not a SQLite file); it was left untouched" in err
    assert "overall:" not in out
    assert hashlib.sha256(foreign.read_bytes()).hexdigest() == before


def test_recording_is_off(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AGREEBOUND_DB", "off")
    code, out, err = run(capsys, "panel", S / "detector_panel.csv", "--record")
    assert code == 3 and "recording is switched off (AGREEBOUND_DB=off)" in err
    code, out, err = run(capsys, "panel", S / "detector_panel.csv")  # without --record nothing changes
    assert code == 1 and "overall: REPORT_ONLY" in out


def test_json_output_stays_the_report(db_url, capsys):
    code, out, err = run(capsys, "panel", S / "krippendorff_2011.csv", "--json", "--record", "--db", db_url)
    report = json.loads(out)  # stdout is the report alone; the run id goes to stderr
    assert "run" not in report and err.startswith("run ") and " recorded in " in err
    with Store.open(db_url) as store:
        stored = store.get(err.split()[1])
    assert stored.report == report  # exact fractions as text, round-tripped unchanged


def test_compare_is_pure_over_stored_runs(tmp_path, capsys):
    """The comparison reads stored reports only: deleting the data's file after recording changes
    nothing."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = tmp_path / "k.csv"
    data.write_bytes((S / "krippendorff_2011.csv").read_bytes())
    _, out, _ = run(capsys, "panel", data, "--level", "nominal", "--record", "--db", db)
    a = recorded_id(out)
    _, out, _ = run(capsys, "panel", data, "--level", "interval", "--record", "--db", db)
    b = recorded_id(out)
    data.unlink()
    with Store.open(db) as store:
        c = compare(store.get(a), store.get(b))
    assert any(cause.startswith("reading changed (level: nominal -> interval") for cause in c.causes)
    assert not c.regression


def test_judge_threshold_edits_are_named_against_the_contract_s_own(db_url, capsys):
    """A preset's judge thresholds make a draft contract; the comparison names each edited value
    against the bound contract's own, and does not call it a contract change."""
    code, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--record", "--db", db_url)
    a = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--thresholds", S / "thresholds.toml",
                       "--preset", "release-gate", "--record", "--db", db_url)
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--db", db_url)
    assert code == 0
    assert ("No verdict changed. Between the runs: thresholds changed (position flip maximum 5% -> 3%; repeat variance "
            "maximum 5% -> 3%; verbosity bias maximum 5% -> 3%; self-preference maximum 5% -> 3%).") in out
    assert "contract changed" not in out and "data changed" not in out
    with Store.open(db_url) as store:
        assert store.get(a).contract_id == store.get(b).contract_id  # the bound contract, not the draft


def test_a_gate_no_longer_checked_is_a_regression(db_url, capsys):
    """Spread measured (2.20x, fails) in one run and not measured in the next: the verdict improves
    to ENFORCE, but a gate was dropped, and CI must hear of it."""
    code, out, _ = run(capsys, "panel", S / "krippendorff_2011.csv", "--positive", "3", "--record", "--db", db_url)
    a = recorded_id(out)
    code, out, _ = run(capsys, "panel", S / "krippendorff_2011.csv", "--record", "--db", db_url)
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--db", db_url)
    assert code == 1
    assert ("Regression: all spread no longer checked (was 2.20x, fails; now not measured). Between the runs: "
            "reading changed (positive: 3 -> auto).") in out
    assert "all spread: 2.20x -> not measured  NO LONGER CHECKED" in out
    assert "all: REPORT_ONLY -> ENFORCE (better)" in out


def test_judge_gate_lost_without_references_and_fail_to_incomplete_is_no_improvement(db_url, capsys):
    log, refs = S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl", S / "judge_logs" / "mt_bench_human_judgments.jsonl"
    code, out, _ = run(capsys, "calibrate", log, "--references", refs, "--record", "--db", db_url)
    a = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", log, "--record", "--db", db_url)
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--json", "--db", db_url)
    c = json.loads(out)
    assert code == 1 and c["regression"] is True
    lost = [g["gate"] for g in c["gates"] if g["lost"]]
    assert lost == ["human_agreement", "self_preference"]  # both need the human references
    assert c["headline"].startswith("Regression: judge Human agreement no longer checked (was 74.")
    assert "data changed (references)" in c["causes"][0]


def test_verdict_ranks_follow_exit_codes():
    from agreebound.core.gate import SEVERITY as RANK  # the one table of verdict severity (history reads it)
    from agreebound.render.report import EXIT_CODES

    for a in RANK:
        for b in RANK:
            if EXIT_CODES[a] < EXIT_CODES[b]:
                assert RANK[a] > RANK[b], (a, b)
            if EXIT_CODES[a] == EXIT_CODES[b]:
                assert RANK[a] == RANK[b], (a, b)


@pytest.mark.parametrize("argv, message", [
    (["panel", str(S / "krippendorff_2011.csv"), "--label", "x"], "--label names a recorded run; add --record"),
    (["history", "--since", "yesterday"], "--since 'yesterday' is not a UTC date"),
])
def test_history_usage_errors(tmp_path, capsys, argv, message):
    code, out, err = run(capsys, *argv, "--db", f"sqlite:///{tmp_path / 'runs.db'}")
    assert code == 3 and message in err and out == ""


def test_command_line_writers_at_once(db_url):
    """Four `agreebound panel --record` processes started together (as parallel CI jobs would be):
    four runs, each complete, every process with its verdict's exit code."""
    import subprocess
    import sys

    procs = [subprocess.Popen([sys.executable, "-m", "agreebound.cli.main", "panel", str(S / "detector_panel.csv"),
                               "--record", "--label", f"job {i}", "--db", db_url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(4)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [1, 1, 1, 1], [e for _, e in outs]
    ids = {o.strip().splitlines()[-1].split()[1] for o, _ in outs}
    with Store.open(db_url) as store:
        runs = store.runs()
        assert {r.id for r in runs} == ids and len(ids) == 4
        assert sorted(r.label for r in runs) == ["job 0", "job 1", "job 2", "job 3"]
        assert store.counts()["blobs"] == 1  # the same ratings, stored once by whichever job came first
        assert all(store.inputs(r)[0][2] == (S / "detector_panel.csv").read_bytes() for r in runs)


def test_a_full_disk_on_postgresql_reads_as_one(monkeypatch):
    """PostgreSQL reports a full disk as SQLSTATE 53100 (disk_full); said as the SQLite case is."""
    from agreebound.app.store import explain

    class DiskFull(Exception):
        sqlstate = "53100"

        def __str__(self) -> str:
            return 'could not extend file "base/16384/16390": No space left on device'

    class Wrapped(Exception):
        orig = DiskFull()

    assert explain(Wrapped()).startswith("the disk is full; nothing was recorded")


def test_a_run_recorded_again_with_another_judge_name_is_a_changed_judge(db_url, capsys, tmp_path):
    """Issue 55: each judge run carries its fingerprint (model, template, rubric, scale, harness,
    contract, data digest); compare names the fields that changed and exits 1 when the judge did,
    even where every verdict is the same."""
    log = S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    refs = S / "judge_logs" / "mt_bench_human_judgments.jsonl"
    code, out, _ = run(capsys, "calibrate", log, "--references", refs, "--record", "--db", db_url)
    first = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", log, "--references", refs, "--record", "--db", db_url)
    again = recorded_id(out)
    renamed = tmp_path / "mt_bench_gpt-4-0613_pair.jsonl"
    renamed.write_text(log.read_text().replace('"judge": ["gpt-4", ', '"judge": ["gpt-4-0613", '))
    code, out, _ = run(capsys, "calibrate", renamed, "--references", refs, "--record", "--db", db_url)
    other = recorded_id(out)
    with Store.open(db_url) as store:
        fp = store.get(first).report["calibration"]["fingerprint"]
    assert fp["judge_model"] == "gpt-4" and fp["harness"] == "mt-bench judgments"
    assert fp["scale"] == "pairwise: a, b or tie" and len(fp["data_digest"]) == 64
    code, out, _ = run(capsys, "compare", first, again, "--db", db_url)
    assert code == 0 and "No verdict changed." in out and "judge changed" not in out
    code, out, _ = run(capsys, "compare", first, other, "--db", db_url)
    assert code == 1, out
    assert ("Regression: the judge changed (judge model: gpt-4 -> gpt-4-0613): its verdicts are another "
            "instrument's; judge Self-preference no longer checked") in out  # gpt-4's answers are no longer its own
    code, out, _ = run(capsys, "compare", first, other, "--json", "--db", db_url)
    said = json.loads(out)
    assert said["judge_changes"] == ["judge model: gpt-4 -> gpt-4-0613"] and said["regression"] is True
    assert [v["direction"] for v in said["verdicts"]] == ["same"]  # the verdicts alone would not say it


def test_compare_splits_two_judge_logs_on_their_anchor_items(db_url, capsys, tmp_path):
    """Issue 55: two recorded judge logs are read again from the store; the judge's shift on the
    items whose candidate text is the same in both runs (anchors) exits 1 when it lies beyond the
    tolerance (--tolerance, on the headline's scale), even when no verdict moved."""
    from tests.judge.test_drift import scores_csv

    before = scores_csv(tmp_path / "before.csv", 0, set())
    lenient = scores_csv(tmp_path / "after.csv", 1, {10, 11})  # one point more lenient, two answers rewritten
    code, out, _ = run(capsys, "calibrate", before, "--record", "--db", db_url)
    a = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", lenient, "--record", "--db", db_url)
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--db", db_url)
    assert code == 1, out
    assert ("Regression: the judge's shift on the anchor items lies beyond the tolerance (below); no verdict "
            "changed.") in out
    assert ("Judge drift: the judge changed: its shift on the anchor items lies beyond the tolerance (+-0.050)"
            in out)
    assert "the judge's shift +1.000 [+1.000, +1.000] over 10 anchor items" in out
    code, out, _ = run(capsys, "compare", a, b, "--tolerance", "2", "--json", "--db", db_url)
    said = json.loads(out)
    assert code == 0 and said["drift"]["state"] == "no judge change shown" and said["regression"] is False
    code, out, err = run(capsys, "compare", a, b, "--tolerance", "x", "--db", db_url)
    assert code == 3 and "--tolerance: expected a number" in err
    # a bundle holds no candidate text: said, never guessed
    code, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--record", "--db", db_url)
    c = recorded_id(out)
    code, out, _ = run(capsys, "compare", c, c, "--db", db_url)
    assert "no anchor drift: both runs must be judge logs (a bundle holds no candidate text)" in out


def test_compare_takes_the_tolerance_from_a_thresholds_file(db_url, capsys, tmp_path):
    """``compare --thresholds FILE``: the file's [drift] table is the judge's tolerance; --tolerance
    overrides it; a bad file is bad input (exit 3) naming its key."""
    from tests.judge.test_drift import scores_csv

    before = scores_csv(tmp_path / "before.csv", 0, set())
    lenient = scores_csv(tmp_path / "after.csv", 1, {10, 11})  # the judge's shift: exactly +1 on 10 anchors
    a = recorded_id(run(capsys, "calibrate", before, "--record", "--db", db_url)[1])
    b = recorded_id(run(capsys, "calibrate", lenient, "--record", "--db", db_url)[1])
    allowed, strict, bad = tmp_path / "allowed.toml", tmp_path / "strict.json", tmp_path / "bad.toml"
    allowed.write_text("[drift]\njudge_shift_tolerance_permil = 1000\n")
    strict.write_text('{"drift": {"judge_shift_tolerance_permil": 999}}')
    bad.write_text("[drift]\njudge_shift_tolerance_permil = 0.5\n")
    code, out, _ = run(capsys, "compare", a, b, "--thresholds", allowed, "--json", "--db", db_url)
    said = json.loads(out)
    assert code == 0 and said["drift"]["state"] == "no judge change shown" and said["drift"]["tolerance_exact"] == "1"
    code, out, _ = run(capsys, "compare", a, b, "--thresholds", strict, "--db", db_url)
    assert code == 1 and "the judge changed: its shift on the anchor items lies beyond the tolerance (+-0.999)" in out
    code, out, _ = run(capsys, "compare", a, b, "--thresholds", strict, "--tolerance", "1", "--json", "--db", db_url)
    assert code == 0 and json.loads(out)["drift"]["tolerance_exact"] == "1"
    code, out, _ = run(capsys, "compare", a, b, "--thresholds", allowed, "--tolerance", "0.9995", "--json",
                       "--db", db_url)
    said = json.loads(out)
    assert code == 1 and said["drift"]["tolerance_exact"] == "1999/2000" and said["regression"] is True
    code, _, err = run(capsys, "compare", a, b, "--thresholds", bad, "--db", db_url)
    assert code == 3 and "bad.toml, line 2, column 'drift.judge_shift_tolerance_permil'" in err
    assert "must be a whole number (permil), got 0.5" in err
    code, _, err = run(capsys, "compare", a, b, "--tolerance", "101", "--db", db_url)
    assert code == 3 and "--tolerance: expected a number of at least 0 and at most 100, got 101" in err


def test_fewer_questions_hold_fewer_templates_and_that_is_not_another_judge(db_url, capsys, tmp_path):
    """The fingerprint's templates are those the data holds: the same log cut to questions 81-100
    (general questions: pair-v2 templates only) is a data change, not a changed judge."""
    log = S / "judge_logs" / "mt_bench_gpt-4_pair.jsonl"
    cut = tmp_path / "mt_bench_81_100.jsonl"
    cut.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                           if 81 <= json.loads(line)["question_id"] <= 100))
    code, out, _ = run(capsys, "calibrate", log, "--record", "--db", db_url)
    a = recorded_id(out)
    code, out, _ = run(capsys, "calibrate", cut, "--record", "--db", db_url)
    b = recorded_id(out)
    code, out, _ = run(capsys, "compare", a, b, "--json", "--db", db_url)
    said = json.loads(out)
    assert said["judge_changes"] == [] and "data changed (bundle)" in said["causes"]


def test_a_run_recorded_before_fingerprints_is_said(db_url, capsys):
    code, out, _ = run(capsys, "calibrate", S / "judge_failing.json", "--record", "--db", db_url)
    a = recorded_id(out)
    with Store.open(db_url) as store:
        old = store.get(a)
    from dataclasses import replace

    report = json.loads(json.dumps(old.report))
    del report["calibration"]["fingerprint"]
    c = compare(replace(old, report=report), old)
    assert c.judge_changes == ()
    assert any(x.startswith(f"the judge's fingerprint is not recorded for run {a[:12]} (recorded before "
                            "fingerprints were)") for x in c.causes)


def test_a_changed_mapping_is_said_on_one_line(tmp_path, capsys):
    """Two readings of one file through mappings that differ: the cause names the mapping's field
    that changed, as compact JSON on one line (the stored text is indented JSON: the History page
    showed its first 57 characters, each line break as a literal \\n, and never the change)."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = S / "krippendorff_2011.csv"
    _, out, _ = run(capsys, "panel", data, "--record", "--db", db)
    a = recorded_id(out)
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({"layout": "wide", "unit": ["unit"], "missing": ["NA", "-"]}, indent=2))
    _, out, _ = run(capsys, "panel", data, "--mapping", mapping, "--record", "--db", db)
    b = recorded_id(out)
    with Store.open(db) as store:
        c = compare(store.get(a), store.get(b))
    [cause] = [cause for cause in c.causes if cause.startswith("reading changed")]
    assert cause == 'reading changed (mapping missing: [] -> ["NA","-"])'  # the field that changed, not the text
