"""``--report gates.xml``: the verdict as JUnit XML that CI systems show as tests (issue 51): one
test case per gate, a failed gate a failure, a gate that cannot be evaluated skipped with why, a
fragile gate said (and failed under strict mode); the exit code is the verdict's either way."""

from __future__ import annotations

import subprocess

import pytest
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.support.cli import process

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_data"


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return process(*argv, timeout=300, cwd=cwd, text=False)


def _cases(path: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(path).getroot()
    return {(suite.get("name").split(":")[0], case.get("name")): case
            for suite in root.iter("testsuite") for case in suite.iter("testcase")}


def test_a_panel_report_has_a_case_per_gate_and_its_failures(tmp_path):
    proc = _cli("panel", str(S / "detector_panel.csv"), "--report", "gates.xml", cwd=tmp_path)
    assert proc.returncode == 1  # REPORT_ONLY: the verdict's code, whatever the report's format
    root = ET.parse(tmp_path / "gates.xml").getroot()
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("skipped")) == ("testsuites", "9", "4", "0")
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "violence: REPORT_ONLY at the nominal level (the default)",
        "insult: REPORT_ONLY at the nominal level (the default)",
        "sexual: ENFORCE at the nominal level (the default)"]
    cases = _cases(tmp_path / "gates.xml")
    assert sorted({name for _, name in cases}) == ["alpha (nominal)", "independent detectors", "spread"]
    failure = cases[("violence", "alpha (nominal)")].find("failure")
    assert failure.get("message") == "alpha (nominal) 0.236, needs 0.600: 0.364 short"
    assert "95% interval: 0.179 to 0.295 (units bootstrap, 2,000 draws)" in failure.text
    assert cases[("sexual", "spread")].find("failure") is None


def test_a_fragile_gate_is_said_and_a_gate_not_measured_is_skipped(tmp_path):
    proc = _cli("panel", str(S / "krippendorff_2011.csv"), "--level", "interval", "--report", "k.xml", cwd=tmp_path)
    assert proc.returncode == 0  # ENFORCE, on 11 units
    cases = _cases(tmp_path / "k.xml")
    alpha = cases[("all", "alpha (interval)")]
    props = {p.get("name"): p.get("value") for p in alpha.find("properties")}
    assert (props["status"], props["fragile"], props["value"], props["threshold"]) == ("passes", "true", "0.849", "0.600")
    out = alpha.find("system-out").text
    assert "FRAGILE: its 95% interval " in out and "includes the floor 0.600" in out
    assert "strict mode (strict = true in the thresholds) would fail it" in out
    spread = cases[("all", "spread")]
    assert spread.find("skipped").get("message").startswith("not evaluable: spread not measured")


def test_strict_mode_fails_the_fragile_gate(tmp_path):
    (tmp_path / "strict.toml").write_text("[panel]\nalpha_floor_permil = 600\nratio_cap_permil = 2000\nstrict = true\n")
    proc = _cli("panel", str(S / "krippendorff_2011.csv"), "--level", "interval", "--thresholds", "strict.toml",
                "--report", "k.xml", cwd=tmp_path)
    assert proc.returncode == 1
    failure = _cases(tmp_path / "k.xml")[("all", "alpha (interval)")].find("failure")
    assert failure is not None and "(strict)" in failure.get("message")


def test_a_judge_report_has_its_five_gates(tmp_path):
    proc = _cli("calibrate", str(S / "judge_failing.json"), "--report", "judge.xml", cwd=tmp_path)
    assert proc.returncode == 1
    root = ET.parse(tmp_path / "judge.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("5", "4")
    cases = _cases(tmp_path / "judge.xml")
    assert [name for _, name in cases] == ["Human agreement", "Position flip", "Repeat variance", "Verbosity bias",
                                           "Self-preference"]
    assert cases[("judge", "Position flip")].find("failure").get("message") == \
        "position flip 11.2%, limit 5.0%: 6.2 points over"


@pytest.mark.parametrize("name,shown", [
    ('x"><script>&amp;]]>', 'x"><script>&amp;]]>'),  # markup: escaped, read back as written
    ("c\ufffed", "c\\ufffed"),  # U+FFFE: XML 1.0 cannot hold it, shown as its escape
    ("bell\u0007", "bell\\x07"),
])
def test_user_text_is_data_in_the_xml(tmp_path, name, shown):
    """Dimension names (user text) go into the XML escaped; the file always parses."""
    (tmp_path / "r.csv").write_text("unit,dimension,rater,value\n" + "".join(
        f"u{i},{name if i % 2 else 'plain'},r{j},{(i + j * (i % 3 == 0)) % 2}\n" for i in range(20) for j in range(3)),
        encoding="utf-8")
    proc = _cli("panel", "r.csv", "--report", "r.xml", cwd=tmp_path)
    if proc.returncode == 3:  # a name the reader refuses (a control character) never reaches a report
        assert b"control character" in proc.stderr and not (tmp_path / "r.xml").exists()
        return
    root = ET.parse(tmp_path / "r.xml").getroot()  # well-formed whatever the name
    names = [s.get("name") for s in root.iter("testsuite")]
    assert any(n.startswith(f"{shown}: ") for n in names), names


def test_strict_mode_on_a_judge_keeps_its_bound_contract(tmp_path):
    import json

    proc = _cli("calibrate", str(S / "judge_failing.json"), "--strict", "--json", cwd=tmp_path)
    report = json.loads(proc.stdout)
    c = report["calibration"]
    assert (proc.returncode, c["decision"], c["contract_origin"], c["decided_against"]["kind"]) == \
        (1, "FAIL_CALIBRATION", "given", "bound")
    assert report["thresholds"]["calibration"]["strict"] is True
    assert all(r["bound_passed"] is not None for r in c["rates"] if r["evaluable"])
