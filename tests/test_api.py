"""``import agreebound``: the names a notebook needs (issue 51), each equal to what the command line
and the krippendorff package give."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

import agreebound

ROOT = Path(__file__).resolve().parents[1]
S = ROOT / "sample_data"


def test_every_public_name_resolves_and_import_stays_light():
    for name in agreebound.__all__:
        assert getattr(agreebound, name) is not None, name
    proc = subprocess.run([sys.executable, "-c", "import sys, agreebound; print(sorted(m for m in sys.modules if m in "
                           "('pandas', 'pyarrow', 'streamlit', 'agreebound.app.pipeline')))"], capture_output=True, text=True)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_reliability_data_is_raters_by_units_as_the_krippendorff_package_reads_it(level):
    rng = np.random.default_rng(7)
    for _ in range(20):
        raters, units = int(rng.integers(2, 6)), int(rng.integers(3, 30))
        data = rng.integers(1, 6, size=(raters, units)).astype(float)
        data[rng.random(data.shape) < 0.2] = np.nan
        if (np.sum(~np.isnan(data), axis=0) >= 2).sum() < 2 or len(np.unique(data[~np.isnan(data)])) < 2:
            continue
        ours = agreebound.krippendorff_alpha(reliability_data=data, level_of_measurement=level).value
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert ours is not None and abs(float(ours) - theirs) < 1e-9, (level, data)
        # the same matrix turned units x raters, by the ratings= reading
        assert agreebound.krippendorff_alpha(data.T, level=level).value == ours


def test_a_frame_reads_as_units_by_raters_and_both_level_names_must_agree():
    frame = pd.DataFrame({"a": ["x", "y", "x", None], "b": ["x", "y", "y", "z"], "c": ["x", None, "y", "z"]})
    result = agreebound.krippendorff_alpha(frame)
    assert result.value == agreebound.krippendorff_alpha(frame.to_numpy(dtype=object)).value
    assert result.level == "nominal"
    with pytest.raises(TypeError, match="disagree"):
        agreebound.krippendorff_alpha(frame, level="nominal", level_of_measurement="ordinal")
    with pytest.raises(TypeError, match="not both or neither"):
        agreebound.krippendorff_alpha()


def test_audit_panel_from_a_file_and_a_frame_equals_the_command_line():
    cli = json.loads(subprocess.run([sys.executable, "-m", "agreebound", "panel", str(S / "krippendorff_2011.csv"),
                                     "--level", "interval", "--json"], capture_output=True, text=True).stdout)
    from_file = agreebound.audit_panel(S / "krippendorff_2011.csv", level="interval")
    from_frame = agreebound.audit_panel(pd.read_csv(S / "krippendorff_2011.csv"), level="interval")
    for report in (from_file, from_frame):
        assert report.report["panel"]["dimensions"][0]["alpha"]["exact"] == \
            cli["panel"]["dimensions"][0]["alpha"]["exact"] == "951/1120"
        assert (report.verdict, report.exit_code) == ("ENFORCE", 0)
    assert json.loads(from_file.to_json()) == cli


def test_audit_judge_and_the_errors():
    judge = agreebound.audit_judge(S / "judge_failing.json")
    assert (judge.verdict, judge.exit_code, agreebound.verdicts(judge)) == \
        ("FAIL_CALIBRATION", 1, {"judge": "FAIL_CALIBRATION"})
    graded = agreebound.audit_judge(pd.read_csv(S / "graded_judge.csv"))
    assert graded.kind == "scored"
    with pytest.raises(agreebound.InputError, match=r"^bad\.csv: "):
        agreebound.audit_panel(b"unit,rater\n", name="bad.csv")
