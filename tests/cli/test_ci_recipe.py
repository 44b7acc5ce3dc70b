"""The CI recipe (issue 51): the GitHub Action (action.yml, composite) and its script run as a runner
runs them, the pre-commit hooks as pre-commit calls them; each fails the job by the audit's exit
code, writes the JUnit report, and treats user input as data."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def test_the_action_is_composite_and_hands_inputs_over_as_data():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"command", "files", "args", "strict", "report", "allow", "package"}
    assert set(ACTION["outputs"]) == {"verdict", "exit-code", "report"}
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step["run"], step["run"]  # expressions go through env, never into the script
    gate = ACTION["runs"]["steps"][1]
    assert gate["run"] == 'bash "$GITHUB_ACTION_PATH/ci/gate.sh"'
    assert gate["env"]["INPUT_FILES"] == "${{ inputs.files }}"


def _gate(tmp_path: Path, **inputs: str) -> tuple[int, str, dict[str, str], str]:
    """ci/gate.sh as the runner calls it: the step's env (inputs), GITHUB_* files, the tools on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env.update({"GITHUB_ACTION_PATH": str(ROOT), "GITHUB_OUTPUT": str(tmp_path / "output"),
                "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    for step_env in ACTION["runs"]["steps"][1]["env"]:
        name = step_env.removeprefix("INPUT_").lower()
        env[step_env] = inputs.get(name, ACTION["inputs"][name].get("default", ""))
    proc = subprocess.run(["bash", str(ROOT / "ci" / "gate.sh")], cwd=tmp_path, env=env, capture_output=True,
                          timeout=300)
    outputs = dict(line.split("=", 1) for line in (tmp_path / "output").read_text().splitlines()) \
        if (tmp_path / "output").exists() else {}
    return proc.returncode, proc.stdout.decode() + proc.stderr.decode(), outputs, \
        (tmp_path / "summary").read_text() if (tmp_path / "summary").exists() else ""


def test_a_passing_panel_passes_and_strict_mode_fails_its_fragile_alpha(tmp_path):
    k2011 = str(S / "krippendorff_2011.csv")
    (tmp_path / "a").mkdir()
    code, log, out, summary = _gate(tmp_path / "a", command="panel", files=k2011, args="--level interval")
    assert code == 0 and out == {"verdict": "ENFORCE", "exit-code": "0", "report": "agreebound-gates.xml"}, log
    assert summary.startswith("### agreebound panel: ENFORCE (exit 0)\n")
    (tmp_path / "b").mkdir()
    code, log, out, _ = _gate(tmp_path / "b", command="panel", files=k2011, args="--level interval", strict="true")
    assert code == 1 and out["verdict"] == "REPORT_ONLY", log
    junit = ET.parse(tmp_path / "b" / "agreebound-gates.xml").getroot()
    assert junit.get("failures") == "1"


def test_allow_lets_a_verdict_through_but_never_bad_input(tmp_path):
    (tmp_path / "a").mkdir()
    code, log, out, _ = _gate(tmp_path / "a", command="calibrate", files=str(S / "judge_failing.json"), allow="1")
    assert code == 0 and out["verdict"] == "FAIL_CALIBRATION" and out["exit-code"] == "1", log
    assert "exit 1 (FAIL_CALIBRATION) is allowed by the input 'allow'" in log
    (tmp_path / "b").mkdir()
    code, log, out, _ = _gate(tmp_path / "b", command="panel", files="missing.csv", allow="1,2,3,4")
    assert code == 3 and out["exit-code"] == "3", log


def test_a_file_name_is_data_never_a_command(tmp_path):
    (tmp_path / "a").mkdir()
    code, log, out, _ = _gate(tmp_path / "a", command="panel", files="'x$(touch pwned).csv' `touch pwned2`")
    assert code == 3, log
    assert not (tmp_path / "a" / "pwned").exists() and not (tmp_path / "a" / "pwned2").exists()
    assert "x$(touch pwned).csv" in log
    (tmp_path / "b").mkdir()
    code, log, _, _ = _gate(tmp_path / "b", command="rm -rf", files="x.csv")
    assert code == 3 and "command must be panel or calibrate" in log


@pytest.mark.parametrize("hook,argv,code", [
    ("agreebound-panel", [str(S / "detector_panel.csv")], 1),
    ("agreebound-panel", [str(S / "krippendorff_2011.csv"), "--level", "interval"], 0),
    ("agreebound-panel", [str(S / "krippendorff_2011.csv"), "--level", "interval", "--strict"], 1),
    ("agreebound-calibrate", [str(S / "judge_failing.json")], 1),
])
def test_the_pre_commit_hooks_fail_the_commit_by_the_exit_code(tmp_path, hook, argv, code):
    h = next(h for h in HOOKS if h["id"] == hook)
    assert h["language"] == "python" and h["pass_filenames"] is False
    entry = h["entry"].split()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(entry + argv, cwd=tmp_path, env=env, capture_output=True, timeout=300)
    assert proc.returncode == code, proc.stderr.decode()[-500:]


def test_the_readme_gives_the_recipe_and_names_strict_mode():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Gate a CI job\n", 1)[1].split("\n## ", 1)[0]
    assert "uses: " in section and "strict: true" in section and "--strict" in section
    assert "--report gates.xml" in section and "agreebound-panel" in section
    assert re.search(r"exit (code )?3", section)


def test_a_report_left_by_an_earlier_run_never_speaks_for_this_one(tmp_path):
    """A passing run, then a run whose input is missing, in the same folder: the second says exit 3
    and no verdict, and its report output is empty (the old file is removed before the run)."""
    code, _, out, _ = _gate(tmp_path, command="panel", files=str(S / "krippendorff_2011.csv"), args="--level interval")
    assert (code, out["verdict"]) == (0, "ENFORCE")
    (tmp_path / "output").unlink()
    (tmp_path / "summary").unlink()
    code, log, out, summary = _gate(tmp_path, command="panel", files="missing.csv")
    assert (code, out) == (3, {"verdict": "bad input", "exit-code": "3", "report": ""}), log
    assert summary.startswith("### agreebound panel: bad input (exit 3)")
    assert not (tmp_path / "agreebound-gates.xml").exists()


def test_inputs_that_no_shell_could_split_are_bad_input_said_once(tmp_path):
    code, log, _, _ = _gate(tmp_path, command="panel", files=str(S / "detector_panel.csv"), args="--preset 'unclosed")
    assert code == 3
    assert log.strip() == ("agreebound action: the inputs files and args are not quoted as a shell would read them "
                           "(No closing quotation)")
    assert "Traceback" not in log
