"""JSON given to 'calibrate' that is neither a bundle nor a judge log is said as what it is: an empty
list, or records (an object) with fields no reader knows. Each was "expected a JSON object with
exactly contract and snapshot", which sent the owner of an empty or unknown log looking for a bundle."""

from __future__ import annotations

import pytest

from agreebound.cli.main import main

UNKNOWN = ("neither a judge bundle (\"contract\" and \"snapshot\") nor a judge log Agreebound knows (MT-Bench, "
           "AlpacaEval, arena-hard, inspect_ai, promptfoo, judgekit, judgecal, our observations, or one read through "
           "--mapping); see docs/formats.md")


@pytest.mark.parametrize("name, text, said", [
    ("log.json", "[]", "log.json: an empty list: no judgments to read (a judge log holds a record per judgment; a "
                       "bundle is a JSON object with \"contract\" and \"snapshot\")"),
    ("log.json", '[{"q": 1, "verdict": "A"}]', f"log.json: a JSON list of records with fields q, verdict: {UNKNOWN}"),
    ("log.jsonl", '{"q": 1, "verdict": "A"}\n', f"log.jsonl: a JSON object with fields q, verdict: {UNKNOWN}"),
    ("b.json", '{"contract": {}}', 'b.json: expected a JSON object with exactly "contract" and "snapshot"'),
])
def test_json_that_is_neither_a_bundle_nor_a_known_log_is_said_as_what_it_is(tmp_path, capsys, name, text, said):
    path = tmp_path / name
    path.write_text(text)
    assert main(["calibrate", str(path)]) == 3
    assert capsys.readouterr().err == said + "\n"
