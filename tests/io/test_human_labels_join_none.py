"""Human labels none of which is for an item of the graded judge's log are refused, naming the file,
the first row and both sides' ids: they were left out one by one and the report then said "no human
labels were given", which is not what happened. A file whose ids differ only in case (G0 for g0)
is said to, since ids are matched exactly. Some unmatched rows among matched ones are still counted
and said (tests/io/test_scored_logs.py)."""

from __future__ import annotations

import json
from pathlib import Path

from agreebound.cli.main import main

LOGS = Path(__file__).resolve().parents[1] / "data" / "judge_logs"
LOG = LOGS / "judgekit_graded.jsonl"


def _humans(tmp_path: Path, rename) -> Path:
    records = [json.loads(line) for line in (LOGS / "judgekit_graded_human.jsonl").read_text().splitlines() if line]
    out = tmp_path / "humans.jsonl"
    out.write_text("".join(json.dumps(dict(r, item_id=rename(r["item_id"]))) + "\n" for r in records))
    return out


def test_human_labels_whose_ids_differ_only_in_case_are_refused_and_said_so(tmp_path, capsys):
    assert main(["calibrate", str(LOG), "--references", str(_humans(tmp_path, str.upper))]) == 3
    assert capsys.readouterr().err == (
        "humans.jsonl, line 1: none of the 6 human rows is for an item of the log: this one is for 'G0', the log's "
        "items are e.g. 'g0', 'g1', 'g2'; ids are matched exactly, and the file's differ from the log's only in "
        "upper/lower case (e.g. 'G0' and 'g0')\n")


def test_human_labels_for_another_log_are_refused(tmp_path, capsys):
    assert main(["calibrate", str(LOG), "--references", str(_humans(tmp_path, lambda i: f"other-{i}"))]) == 3
    assert capsys.readouterr().err == (
        "humans.jsonl, line 1: none of the 6 human rows is for an item of the log: this one is for 'other-g0', the "
        "log's items are e.g. 'g0', 'g1', 'g2'\n")


def test_the_same_labels_with_the_logs_ids_are_joined(tmp_path, capsys):
    assert main(["calibrate", str(LOG), "--references", str(_humans(tmp_path, lambda i: i))]) in (0, 1)
    assert "6 human scores joined from humans.jsonl (6 items, 1 raters)" in capsys.readouterr().out
