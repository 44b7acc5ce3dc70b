"""A graded log without human labels describes its judge (agreebound.scored.describe): the scores read,
their count per scale value, each model's mean judge score with its 95% interval (MT-Bench's
headline), in the JSON, the text, the Markdown and the HTML; the verdict says that no human labels
were given and nothing about agreement is decided (INCOMPLETE, exit 1, as before); names stay text."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss

from agreebound.app.pipeline import run
from agreebound.app.recipes import JudgeRecipe, Source
from agreebound.render.html import scored_html
from agreebound.render.markdown import to_markdown
from agreebound.scored.audit import measure_scored
from agreebound.scored.describe import describe
from agreebound.scored.items import scored_input
from tests.support.cli import run as cli

ROOT = Path(__file__).resolve().parents[2]
MT_BENCH = ROOT / "tests" / "data" / "judge_logs" / "mt_bench_gpt-4_single.jsonl"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())


@pytest.fixture(scope="module")
def report() -> dict:
    return run(JudgeRecipe(Source.at(str(MT_BENCH)))).report


def raw_scores() -> pd.DataFrame:
    """The file's judgments as pandas reads them, FastChat's unparsed ones (score -1) left out."""
    raw = pd.read_json(MT_BENCH, lines=True)
    assert len(raw) == 8  # the file holds 8 judgments: 7 scores and one FastChat could not parse
    return raw[raw["score"] != -1]


def t_interval(v: pd.Series) -> tuple[float, float]:
    """Student's t 95% interval of a mean (scipy), cut to the 1-10 scale."""
    half = ss.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return max(v.mean() - half, 1.0), min(v.mean() + half, 10.0)


def test_the_json_describes_the_judge_mt_bench_s_headline(report):
    s = report["scored"]
    jsonschema.validate(report, SCHEMA)
    assert s["described_only"] is True and s["decision"] == "INCOMPLETE" and s["humans"] == []
    (j,) = s["judge_scores"]
    scores = raw_scores()
    assert j["judge"] == "gpt-4" and j["scores"] == len(scores) == 7
    # the count per value of MT-Bench's declared 1-10 scale, the values never given counted 0
    counts = scores["score"].value_counts()
    assert [(b["low"], b["count"]) for b in j["distribution"]] == [(v, int(counts.get(v, 0))) for v in range(1, 11)]
    assert j["binned"] is False
    # each model's mean judge score, independently from pandas, highest first; its interval scipy's t
    means = scores.groupby("model")["score"].mean().sort_values(ascending=False)
    assert [m["model"] for m in j["models"]] == list(means.index) == ["vicuna-13b", "alpaca-13b"]
    for m in j["models"]:
        mine = scores[scores["model"] == m["model"]]["score"]
        assert m["value"] == means[m["model"]] and m["items"] == len(mine)
        assert m["interval95"] == pytest.approx(t_interval(mine), abs=1e-6)
    assert (j["models"][0]["exact"], j["models"][1]["exact"]) == ("9", "9/2")  # 27/3 and 18/4
    assert [m["text"] for m in j["models"]] == ["9.00 [6.52, 10.00]", "4.50 [1.00, 8.29]"]
    assert j["mean"]["exact"] == "45/7" and j["mean"]["text"] == "6.43 [3.66, 9.20]"
    assert j["sentence"] == "7 scores, mean 6.43 [3.66, 9.20]"


def test_the_text_says_what_a_user_needs_and_never_0_items(capsys):
    code, out, _ = cli(capsys, "calibrate", str(MT_BENCH))
    assert code == 1  # INCOMPLETE: a non-verdict, as a judge log without a contract is
    assert out.splitlines()[0] == ("decision: INCOMPLETE for every judge (the log's one judge): no human labels were "
                                   "given, so nothing about agreement is decided; the judge's own scores are described")
    for line in ("the judge's own scores (no human labels needed):",
                 "  gpt-4: 7 scores, mean 6.43 [3.66, 9.20]",
                 "    count per score: 1: 0, 2: 1, 3: 1, 4: 0, 5: 0, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1",
                 "    vicuna-13b: 9.00 [6.52, 10.00] over 3 items",
                 "    alpaca-13b: 4.50 [1.00, 8.29] over 4 items",
                 "judge gpt-4: INCOMPLETE (7 scores read, no human labels)",
                 "overall: INCOMPLETE"):
        assert line in out.splitlines(), line
    assert "(0 items" not in out


def test_markdown_and_html_show_the_same(report):
    md = to_markdown(report)
    assert ("**Decision: INCOMPLETE** for every judge (the log's one judge): no human labels were given, so nothing "
            "about agreement is decided; the judge's own scores are described.") in md
    assert "### `gpt-4`: 7 scores, mean 6.43 [3.66, 9.20]" in md
    assert "| 2 | 1 | 14.3% |" in md and "| 4 | 0 | 0.0% |" in md
    assert "| vicuna\\-13b | 3 | 9.00 | [6.52, 10.00] |" in md
    assert "| alpaca\\-13b | 4 | 4.50 | [1.00, 8.29] |" in md
    assert "7 scores read, no human labels." in md
    page = scored_html(report)
    assert "<h2 id=\"judge-scores\">The judge's own scores (no human labels needed)</h2>" in page
    assert "<td class=\"num\">9.00</td><td>[6.52, 10.00]</td>" in page
    assert "no human labels were given, so nothing about agreement is decided" in page


def test_a_log_with_humans_describes_its_judge_too():
    frame = pd.read_csv(ROOT / "tests" / "data" / "scored_reports" / "graded3.csv")
    m = measure_scored(frame, "graded3.csv")
    assert not m.described_only
    (j,) = m.scores
    judge = frame[frame["role"] == "judge"]
    assert j.scores == len(judge) == 100
    assert [(b.low, b.count) for b in j.buckets] == sorted(judge["score"].value_counts().items())
    for name, mean in j.models:
        assert mean.value == pytest.approx(judge[judge["model"] == name]["score"].mean(), abs=1e-15)


def test_a_long_scale_is_binned_and_a_pass_fail_judge_has_pass_rates():
    rng = np.random.default_rng(0)
    continuous = pd.DataFrame({"item": [f"i{i}" for i in range(200)], "rater": "j", "role": "judge",
                               "score": rng.uniform(0, 100, 200).round(1), "model": "m"})
    (j,) = describe(scored_input(continuous))
    assert j.binned and len(j.buckets) == 10 and sum(b.count for b in j.buckets) == 200
    assert (j.buckets[0].low, j.buckets[-1].high) == (continuous["score"].min(), continuous["score"].max())
    verdicts = pd.DataFrame({"item": [f"i{i}" for i in range(40)], "rater": "j", "role": "judge",
                             "score": [1.0] * 30 + [0.0] * 10, "model": ["a"] * 20 + ["b"] * 20})
    m = measure_scored(verdicts, "pf.csv")
    (j,) = m.scores
    assert j.binary and [(b.low, b.count) for b in j.buckets] == [(0.0, 10), (1.0, 30)]
    (a, ma), (b, mb) = j.models
    assert (a, ma.exact, b, mb.exact) == ("a", 1, "b", pytest.approx(0.5))
    assert ma.method == "Wilson interval, one verdict per item" and ma.high == 1.0 and ma.low < 1.0
    assert j.sentence.startswith("40 scores, pass rate 75.0% [")


def test_names_are_data_in_every_report(tmp_path, capsys):
    """A model named with Markdown, HTML and a terminal escape is shown as the text it is."""
    hostile = "<b>x</b>|*y*\x1b[31m"
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(4)], "rater": "judge", "role": "judge",
                          "score": [1.0, 2.0, 3.0, 4.0], "model": [hostile, hostile, "ok", "ok"]})
    path = tmp_path / "hostile.csv"
    frame.to_csv(path, index=False)
    report = run(JudgeRecipe(Source.at(str(path)))).report
    md = to_markdown(report)
    assert "<b>" not in md and "\\<b\\>x\\<\\/b\\>\\|\\*y\\*" in md
    page = scored_html(report)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;|*y*" in page
    code, out, _ = cli(capsys, "calibrate", str(path))
    assert code == 1 and "\x1b" not in out and "<b>x</b>|*y*\\x1b[31m: 1.50 [" in out


def test_a_mean_whose_items_all_agree_has_no_interval_and_says_why():
    import numpy as np

    from agreebound.scored.describe import mean_score

    m = mean_score(np.full(50, 7.0))
    assert (m.exact, m.low, m.high) == (7, None, None)
    assert m.method == "no interval: all 50 items have the same score"
