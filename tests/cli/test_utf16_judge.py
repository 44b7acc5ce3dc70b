"""A judge's files saved as UTF-16 (Windows' "Unicode", PowerShell 5's `>`) are read as the same
text, as the panel reads its ratings: the decision and every number equal the UTF-8 file's, and the
report's input digest stays the digest of the bytes given. Before, a UTF-16 bundle, log or scores
table was "not JSON, and not a judge log ...", and the tabular trio's CSVs were refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_json

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


def _utf16(tmp_path: Path, src: Path, encoding: str) -> Path:
    out = tmp_path / src.name
    out.write_bytes(src.read_text(encoding="utf-8").encode(encoding))  # utf-16: with a byte-order mark
    return out


BYTES_NAMED = ("inputs", "data_digest", "rubric_digest", "content_id", "contract_content_id")


def _scrub(o: object) -> object:
    """The report without what names the bytes given: the inputs' and the data's digests (they
    differ, and the inputs' are checked against the files), and a log's drafted contract, whose
    rubric digest is the log's bytes' digest."""
    if isinstance(o, dict):
        return {k: _scrub(v) for k, v in o.items() if k not in BYTES_NAMED}
    if isinstance(o, list):
        return [_scrub(v) for v in o]
    return o


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
@pytest.mark.parametrize("given", [
    ["judge_illustrative.json"],
    ["judge_failing_contract.json", "--references", "judge_failing_references.csv",
     "--observations", "judge_failing_observations.csv"],
    ["judge_logs/alpaca_eval_annotations.json"],
    ["graded_judge.csv"],
])
def test_a_utf16_judge_file_decides_as_its_utf8_original(tmp_path, capsys, encoding, given):
    utf8_args = [str(S / g) if not g.startswith("--") else g for g in given]
    d16 = tmp_path / "utf16"
    d16.mkdir()
    utf16_args = [str(_utf16(d16, S / g, encoding)) if not g.startswith("--") else g for g in given]
    code8, r8, _ = run_json(capsys, "calibrate", *utf8_args)
    code16, r16, err = run_json(capsys, "calibrate", *utf16_args)
    assert code8 in (0, 1, 2) and (code16, err) == (code8, "")
    assert [i["sha256"] for i in r16["inputs"]] == [
        __import__("hashlib").sha256(Path(p).read_bytes()).hexdigest() for p in utf16_args if not p.startswith("--")]
    assert _scrub(r16) == _scrub(r8)


LOGS = ROOT / "tests" / "data" / "judge_logs"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
@pytest.mark.parametrize("log", ["inspect_ai_model_graded_qa.json", "promptfoo_llm_rubric.json",
                                 "mt_bench_gpt-4_single.jsonl", "judgekit_graded.jsonl"])
def test_a_utf16_graded_judges_log_decides_as_its_utf8_original(tmp_path, capsys, encoding, log):
    """A graded judge's harness log (not only its scores table) saved as UTF-16: it was read as a
    scores table and refused ("missing column 'item'", "expected records")."""
    code8, r8, _ = run_json(capsys, "calibrate", str(LOGS / log))
    code16, r16, err = run_json(capsys, "calibrate", str(_utf16(tmp_path, LOGS / log, encoding)))
    assert code8 == 1 and (code16, err) == (code8, "")
    assert _scrub(r16) == _scrub(r8)
