"""agreebound history --alarms: a panel followed week by week, charted against the run pinned with
--baseline (EWMA or CUSUM); exit 1 when the newest run is in alarm, 0 while it is in control or when
no baseline is pinned (no band is then drawn, none estimated); bad ids and misuse exit 3."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import recorded_id, run
from tests.support.panels import agreeing

ROOT = Path(__file__).resolve().parents[2]

#: Four steady weeks (each rater copies the truth 85% of the time), then two that drift (50%, 45%).
STEADY, DRIFT = [0.85] * 4, [0.5, 0.45]


def record_weeks(capsys, db: str, tmp_path: Path, agreements: list[float], first: int = 1) -> list[str]:
    ids = []
    for week, a in enumerate(agreements, start=first):
        folder = tmp_path / f"week{week}"
        folder.mkdir()
        (folder / "ratings.csv").write_bytes(agreeing(a, seed=week))
        code, out, _ = run(capsys, "panel", folder / "ratings.csv", "--record", "--label", f"week {week}", "--db", db)
        ids.append(recorded_id(out))
    return ids


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'runs.db'}"


def test_in_control_while_steady_then_an_alarm_once_the_panel_drifts(db, tmp_path, capsys):
    weeks = record_weeks(capsys, db, tmp_path, STEADY)
    code, out, _ = run(capsys, "history", "--alarms", "--baseline", weeks[0][:8], "--db", db)
    assert code == 0, out
    assert "0 of 3 runs after it are in alarm. The newest run is in control." in out
    weeks += record_weeks(capsys, db, tmp_path, DRIFT, first=5)

    code, out, _ = run(capsys, "history", "--alarms", "--baseline", weeks[0][:8], "--db", db)
    assert code == 1, out
    rows = {line.split()[0]: line for line in out.splitlines() if line[:32] in weeks}
    assert [re.split(r"\s{2,}", rows[w])[3] for w in weeks] == ["baseline", "in control", "in control", "in control",
                                                               "alarm", "alarm"]
    assert ("Baseline: run " + weeks[0][:12]) in out
    assert "EWMA (lambda 0.2, L 3): while in control, each charted number is in alarm by chance at 0.27% of runs; " \
           "a run charts 2 numbers, so up to 0.54% of in-control runs have some alarm by chance. 2 of 5 runs after " \
           "it are in alarm. The newest run is in alarm." in out
    # --limit and --verdict choose what is listed; the chart still runs over every run from the baseline
    code, limited, _ = run(capsys, "history", "--alarms", "--baseline", weeks[0][:8], "--limit", "2", "--db", db)
    assert code == 1 and "2 of 5 runs after it are in alarm." in limited
    assert [line.split()[0] for line in limited.splitlines() if line[:32] in weeks] == [weeks[5], weeks[4]]
    assert (f"  toxicity (nominal) alpha of run {weeks[4][:12]} (" in out
            and ", week 5) is 0.251: the smoothed value 0.635 is below the lower control limit 0.683 (baseline 0.767)."
            in out)
    assert "note: EWMA's limits include the baseline run's own error" in out

    code, out, _ = run(capsys, "history", "--alarms", "--baseline", weeks[0], "--control", "cusum", "--db", db)
    assert code == 1
    assert ", week 5) is 0.251: the shortfall below the baseline, accumulated, is 13.4 standard errors, past h = 5 " \
           "(baseline 0.767)." in out
    assert "note: toxicity (nominal) alpha: CUSUM takes the baseline as exact; the baseline run's own error is 0.86 " \
           "standard errors of a run, and a baseline that far off brings a false alarm after 13 runs on average" in out

    # pinned on the newest run, nothing is charted after it: exit 0
    code, out, _ = run(capsys, "history", "--alarms", "--baseline", weeks[-1], "--db", db)
    assert code == 0 and "0 of 0 runs after it are in alarm." in out


def test_json_carries_the_alarm_state_on_each_run(db, tmp_path, capsys):
    weeks = record_weeks(capsys, db, tmp_path, STEADY + DRIFT)
    code, out, _ = run(capsys, "history", "--alarms", "--baseline", weeks[0], "--json", "--db", db)
    assert code == 1
    doc = json.loads(out)
    by_id = {r["id"]: r for r in doc["runs"]}
    assert [by_id[w]["control"]["state"] for w in weeks] == ["baseline", "in control", "in control", "in control",
                                                             "alarm", "alarm"]
    (alarm,) = by_id[weeks[4]]["control"]["alarms"]
    assert (alarm["scope"], alarm["gate"], alarm["side"]) == ("toxicity (nominal)", "alpha", "low")
    assert alarm["value"] == pytest.approx(0.250547, abs=1e-6) and alarm["baseline"] == pytest.approx(0.766977, abs=1e-6)
    assert alarm["statistic"] > alarm["limit"]  # the low side's statistic is past its limit
    assert alarm["band"][0] == pytest.approx(0.683, abs=5e-4) and alarm["sentence"].endswith("(baseline 0.767).")
    control = doc["control"]
    assert control["baseline_run"] == weeks[0] and control["newest_in_alarm"] is True
    assert control["settings"] == {"method": "ewma", "lambda": 0.2, "L": 3.0,
                                   "false_alarm_per_run": pytest.approx(0.0026998, abs=1e-7)}
    alpha = next(g for g in control["gates"] if g["gate"] == "alpha")
    assert [r["run"] for r in alpha["runs"]] == weeks[1:] and [r["state"] for r in alpha["runs"]][-2:] == [
        "alarm low", "alarm low"]
    assert alpha["baseline"]["se"] == pytest.approx(0.036289, abs=1e-6)  # (high - low) / (2 x 1.96) of week 1


def test_no_baseline_no_band(db, tmp_path, capsys):
    record_weeks(capsys, db, tmp_path, STEADY[:2] + DRIFT)
    code, out, _ = run(capsys, "history", "--alarms", "--db", db)
    assert code == 0
    assert out.count("no baseline") == 4
    assert ("No baseline is pinned, so no control band is drawn: a band estimated from the runs it judges would move "
            "with a drift and hide it. Pin a run as the baseline.") in out
    code, out, _ = run(capsys, "history", "--alarms", "--json", "--db", db)
    doc = json.loads(out)
    assert doc["control"]["baseline_run"] is None and doc["control"]["gates"] == []
    assert {r["control"]["state"] for r in doc["runs"]} == {"no baseline"}


def test_bad_ids_and_misuse_exit_3(db, tmp_path, capsys):
    weeks = record_weeks(capsys, db, tmp_path, STEADY[:2])
    code, out, err = run(capsys, "calibrate", ROOT / "sample_data" / "judge_failing.json", "--record", "--db", db)
    judge = recorded_id(out)
    for argv, said in (
        (["--alarms", "--baseline", "zzzz"], "agreebound history --baseline: 'zzzz' is not a run id"),
        (["--alarms", "--baseline", "0000"], "agreebound history --baseline: no run 0000 that you can open"),
        (["--alarms", "--baseline", judge, "--name", "ratings.csv", "--kind", "panel"],
         f"is not of the baseline run's kind (a judge run, {judge}): pin a run of the kind charted"),
        (["--baseline", weeks[0]], "agreebound history: --baseline charts runs against a baseline; give it with "
                                   "--alarms"),
        (["--alarms", "--baseline", weeks[0], "--false-alarm-rate", "0.7"],
         "--false-alarm-rate: a false-alarm rate must be above 0 and below 0.5, got 0.7"),
    ):
        code, out, err = run(capsys, "history", *argv, "--db", db)
        assert code == 3, (argv, out, err)
        assert said in err, err


def test_help_states_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "history", "--help")
    out = capsys.readouterr().out
    assert "1  with --alarms: the newest run listed is in alarm on at least one gating number" in out
    assert "without --baseline no band is drawn" in out
