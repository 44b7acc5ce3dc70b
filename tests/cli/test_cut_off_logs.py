"""A judge log cut off part-way (a copy that stopped, a download that did not finish) is refused
at the line where the JSON breaks, also when it holds NaN before the cut, as inspect_ai's logs do
for an unscored sample: that was "invalid JSON: NaN is not a number JSON allows", with no line, about
a value the log may hold."""

from __future__ import annotations

from pathlib import Path

from agreebound.cli.main import main

LOG = Path(__file__).resolve().parents[1] / "data" / "judge_logs" / "inspect_ai_model_graded_qa.json"


def test_an_inspect_log_cut_off_after_its_nan_is_refused_where_it_breaks(tmp_path, capsys):
    text = LOG.read_text(encoding="utf-8")
    cut = text.index('"explanation": "Grade not found') + len('"explanation": "Grade')  # inside a string
    assert text.index("NaN") < cut  # the unscored sample's value comes first
    log = tmp_path / "eval.json"
    log.write_text(text[:cut], encoding="utf-8")
    assert main(["calibrate", str(log)]) == 3
    assert capsys.readouterr().err == "eval.json, line 2149: invalid JSON (Unterminated string starting at, character 26)\n"


def test_a_whole_inspect_log_with_nan_is_still_read(capsys):
    assert main(["calibrate", str(LOG)]) == 1  # no human labels: described, not decided
    assert "unscored" in capsys.readouterr().out
