"""The individual human votes behind a judge log's references (agreebound.io.judge_logs.read_references):
kept beside the seed's reference records (which do not change), carried to the judge bundle, and
reported: Zheng et al.'s per-vote agreement with and without ties, the human-human ceiling, Cohen's
kappa, each by its name with its interval, in the JSON, text, Markdown and HTML reports.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from agreebound.app.pipeline import parse_judge_log
from agreebound.core.escape import md_text
from agreebound.io.judge_log_records import slug
from agreebound.io.judge_logs import (
    HUMAN_VOTES,
    HumanVotes,
    human_votes_of,
    read_judge_log,
    read_references,
)
from tests.support.cli import run

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_data"
LOG, HUMANS = SAMPLES / "judge_logs" / "mt_bench_gpt-4_pair.jsonl", SAMPLES / "judge_logs" / "mt_bench_human_judgments.jsonl"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())


@pytest.fixture(scope="module")
def read():
    log = read_judge_log(LOG.name, LOG.read_bytes())
    refs, notes = read_references(HUMANS.name, HUMANS.read_bytes(), log)
    return log, refs, notes


def test_every_vote_is_kept_beside_the_references(read):
    """One row per vote line (256), facing the case's candidates; the references are the votes'
    plurality, their voters and unanimity, recomputed here from the file itself."""
    log, refs, notes = read
    votes = human_votes_of(refs)
    assert list(refs.columns) == ["case_id", "preferred_candidate", "reviewer_ids", "adjudicated"]
    assert list(votes.columns) == ["case_id", "reviewer", "vote"] and len(votes) == 256
    assert notes[0].startswith("128 cases have human votes (256 votes)")
    expected: dict[str, list[tuple[str, str]]] = {}
    for line in HUMANS.read_text().splitlines():
        r = json.loads(line)
        key = (str(r["question_id"]), str(r["turn"]), frozenset((r["model_a"], r["model_b"])))
        case = log.case_keys[key]
        chosen = {"model_a": r["model_a"], "model_b": r["model_b"]}.get(r["winner"])
        vote = "tie" if chosen is None else "a" if chosen == log.candidates[case][0] else "b"
        expected.setdefault(case, []).append((slug(r["judge"], "r"), vote))
    assert sorted(map(tuple, votes[["case_id", "reviewer", "vote"]].to_numpy().tolist())) == sorted(
        (c, r, v) for c, vs in expected.items() for r, v in vs)
    for case, preferred, reviewers, adjudicated in refs.itertuples(index=False):
        count = Counter(v for _, v in expected[case])
        top = [v for v, n in count.items() if n == max(count.values())]
        assert preferred == (top[0] if len(top) == 1 else "tie")
        assert reviewers == tuple(sorted({r for r, _ in expected[case]}))
        assert adjudicated == (len(count) == 1)


def test_the_votes_ride_on_attrs_without_troubling_pandas(read):
    """pandas copies ``attrs`` on every derived frame and compares them on concat and merge: the
    holder is itself when deep-copied and compared by identity, so neither copies nor asks a frame's truth."""
    _, refs, _ = read
    held = refs.attrs[HUMAN_VOTES]
    assert isinstance(held, HumanVotes) and copy.deepcopy(held) is held
    assert refs[refs["adjudicated"]].attrs[HUMAN_VOTES] is held
    pd.concat([refs, refs.copy()])
    refs.merge(refs, on="case_id")
    assert human_votes_of(refs.iloc[:0]) is human_votes_of(refs)


def test_the_seeds_csv_references_hold_no_votes():
    refs = (SAMPLES / "judge_failing_references.csv").read_bytes()
    log = read_judge_log(LOG.name, LOG.read_bytes())
    frame, _ = read_references("references.csv", refs, log)
    assert human_votes_of(frame) is None and human_votes_of(None) is None


@pytest.fixture(scope="module")
def bundle():
    return parse_judge_log(LOG.name, LOG.read_bytes(), (HUMANS.name, HUMANS.read_bytes()))


def test_the_bundle_carries_the_votes_and_the_audit_is_unchanged(bundle):
    """The votes reach the bundle; the audit's numbers are those it had (tests/io/test_judge_logs.py)."""
    assert len(bundle.human_votes) == 256
    d = bundle.measurement.diagnostics
    assert d.agreement_with_ties == (188, 254) and d.agreement_without_ties == (142, 176)
    h = bundle.human_agreement
    assert (h.votes, h.voters, h.cases) == (256, 5, 128)
    assert (h.rates["reference_not_tie"].numerator, h.rates["reference_not_tie"].denominator) == (142, 176)
    alone = parse_judge_log(LOG.name, LOG.read_bytes())
    assert alone.human_votes is None and alone.human_agreement is None and alone.measurement.diagnostics.kappa is None


def _report(capsys, *extra: str) -> tuple[int, str]:
    code, out, _ = run(capsys, "calibrate", LOG, "--references", HUMANS, *extra)
    return code, out


def test_the_json_report_names_every_figure(capsys):
    code, out = _report(capsys, "--json")
    assert code == 1  # no contract: INCOMPLETE, measured and not decided
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    diag = report["calibration"]["diagnostics"]
    assert diag["agreement_without_ties"] == [142, 176]  # kept, and said what it counts
    assert "not the paper's" in diag["definitions"]["agreement_without_ties"]
    assert diag["cohen_kappa"]["cases"] == 128 and diag["cohen_kappa"]["exact"] == "1585/2737"
    votes = diag["human_votes"]
    rates = {r["name"]: r for r in votes["rates"]}
    assert [rates[n]["exact"] for n in ("judge_human_with_ties", "judge_human_without_ties", "human_human_with_ties",
                                        "human_human_without_ties")] == ["87/128", "117/125", "139/171", "105/116"]
    assert all(r["interval95"][0] < float(r["value"]) < r["interval95"][1] for r in rates.values())
    assert [d["name"] for d in votes["differences"]] == ["with_ties", "without_ties"]
    assert votes["sentences"][0].startswith("With ties, the judge agrees with the humans less often than they agree "
                                            "with each other: 68.0% [")


def test_a_report_without_votes_says_there_is_no_ceiling(capsys):
    trio = [SAMPLES / f"judge_failing_{x}" for x in ("contract.json", "references.csv", "observations.csv")]
    code, out, _ = run(capsys, "calibrate", trio[0], "--references", trio[1], "--observations", trio[2], "--json")
    assert code == 1  # the failing sample
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    diag = report["calibration"]["diagnostics"]
    assert diag["human_votes"] is None and diag["cohen_kappa"]["cases"] > 0
    code, out, _ = run(capsys, "calibrate", trio[0], "--references", trio[1], "--observations", trio[2])
    assert "  No human-human ceiling: the references hold no individual votes" in out


def test_the_text_report_names_both_definitions(capsys):
    _, out = _report(capsys)
    lines = out.splitlines()
    start = lines.index("agreement with the humans:")
    block = "\n".join(lines[start:start + 12])
    assert "Judge-human agreement with ties (Zheng et al. 2023: every pair of the judge's vote and a human vote): " \
           "174/256 = 68.0% [" in block
    assert "Judge-human agreement without ties (Zheng et al. 2023: pairs where either side is a tie left out): " \
           "117/125 = 93.6% [" in block
    assert "Human-human agreement with ties (the ceiling: every pair of two human votes): 139/171 = 81.3% [" in block
    assert ("Agreement where the human reference is not a tie (the audit's \"without ties\": each judgment against "
            "the plurality): 142/176 = 80.7% [") in block
    assert "Cohen's kappa (the human reference against the judge's vote per case): 0.579 = 1585/2737 [" in block
    assert "difference -13.3 points [" in block


def test_the_markdown_and_html_reports_show_them(capsys, tmp_path):
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    run(capsys, "calibrate", LOG, "--references", HUMANS, "--report", md)
    run(capsys, "calibrate", LOG, "--references", HUMANS, "--report", html)
    text = md.read_text()
    assert "### Agreement with the humans" in text
    assert (f"| {md_text('Judge-human agreement without ties (Zheng et al. 2023: pairs where either side is a tie left out)')}"
            f" | {md_text('117/125 = 93.6%')} | {md_text('[85.6, 97.3]')} | 64 |") in text
    # +3.1 points [-3.7, +9.9]: no difference shown, but too wide an interval to say "as often"
    assert "- " + md_text("Without ties, no difference is shown, but the interval is too wide to say the judge agrees "
                          "with the humans as often as they agree with each other: 93.6% [") in text
    page = html.read_text()
    assert '<h2 id="agreement">Agreement with the humans</h2>' in page
    assert "Human-human agreement without ties (the ceiling: pairs holding a tie left out)" in page
    assert "agreement where the human reference is not a tie (the audit's \"without ties\", not Zheng et al.'s): 142/176" in page
