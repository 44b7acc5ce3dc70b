"""The wheel is the product (issue 51): build the wheel and the sdist, install the wheel (not
editable) into a new virtual environment, and from an empty folder: the dashboard serves every page
on its samples in Chromium, the README's command-line and library examples run as written,
``python -m agreebound`` answers, mypy accepts code using the public API, and a missing optional
part is exit 3 naming its extra. Nothing here reads the checkout: the installed package must find
every file it needs itself."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import zipfile
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.dashboard import free_port, settle, wait_healthy


ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
README = (ROOT / "README.md").read_text(encoding="utf-8")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@dataclass(frozen=True)
class Installed:
    bin: Path
    home: Path  # an empty folder: the user's working folder, nothing of the checkout in it
    wheel: Path
    sdist: Path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("AGREEBOUND_")}
        return {**env, "PATH": f"{self.bin}{os.pathsep}{env.get('PATH', '')}", "HOME": str(self.home),
                "XDG_DATA_HOME": str(self.home / ".data"), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}

    def sh(self, command: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], cwd=self.home, env=self.env(), capture_output=True,
                              timeout=timeout)


def _run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, capture_output=True, **kw)
    assert proc.returncode == 0, (argv, proc.stdout.decode()[-2000:], proc.stderr.decode()[-3000:])
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("installed")
    dist = tmp / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(ROOT)], timeout=900)
    wheel, = dist.glob("agreebound-*.whl")
    sdist, = dist.glob("agreebound-*.tar.gz")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel), "mypy>=1.10"], timeout=1500)
    home = tmp / "empty"
    home.mkdir()
    return Installed(venv / "bin", home, wheel, sdist)


def test_the_wheel_and_the_sdist_carry_the_dashboard_its_files_and_the_licence(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    site = "agreebound/site/"
    for want in ("app.py", ".streamlit/config.toml", "docs/formats.md", "schemas/report.schema.json", "LICENSE",
                 "sample_data/detector_panel.csv", "sample_data/judge_failing.json",
                 "sample_data/judge_logs/mt_bench_gpt-4_pair.jsonl", "sample_data/imports/k2011.xlsx"):
        assert site + want in names, want
    assert {n for n in names if n.startswith(site + "pages/")} == {
        site + f"pages/{p}.py" for p in ("overview", "panel", "judge", "whatif", "history", "help")}
    assert "agreebound/py.typed" in names
    meta = zipfile.ZipFile(installed.wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    with tarfile.open(installed.sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    for want in ("LICENSE", "src/agreebound/site/app.py", "src/agreebound/site/pages/panel.py",
                 "src/agreebound/site/sample_data/detector_panel.csv", "src/agreebound/py.typed"):
        assert want in members and members[want].isfile(), want  # files, not links into a checkout


def test_python_m_agreebound_and_the_script_say_the_version(installed):
    for command in ("python -m agreebound --version", "agreebound --version"):
        proc = installed.sh(command)
        assert (proc.returncode, proc.stdout.decode().strip()) == (0, "agreebound 0.1.0"), command


def _block_after(heading: str, lang: str, index: int = 0) -> str:
    section = README.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)[index]


#: What each of the README's install examples exits with (a verdict's code, or 0).
INSTALL_EXAMPLES = {
    "agreebound samples": 0,
    "agreebound panel sample_data/detector_panel.csv": 1,  # REPORT_ONLY somewhere
    "agreebound calibrate sample_data/judge_failing.json --report judge.md": 1,  # FAIL_CALIBRATION
    "agreebound panel sample_data/krippendorff_2011.csv --level interval --json": 0,  # ENFORCE
    "agreebound schema > report.schema.json": 0,
    "python -m agreebound --version": 0,
}


def test_the_readmes_command_line_examples_run_as_written_from_an_empty_folder(installed):
    lines = [line.split("#")[0].strip() for line in _block_after("## Install", "sh", 1).splitlines()]
    lines = [line for line in lines if line and line != "agreebound serve"]
    assert lines == list(INSTALL_EXAMPLES)
    for line in lines:
        proc = installed.sh(line)
        assert proc.returncode == INSTALL_EXAMPLES[line], (line, proc.stderr.decode()[-800:])
        assert b"Traceback" not in proc.stderr, line
    assert (installed.home / "judge.md").read_text().startswith("# ")
    import json

    schema = json.loads((installed.home / "report.schema.json").read_text())
    assert schema["$id"] == "urn:agreebound:schema:report:v1"
    # the Command line section's examples that name the samples run too, with the codes it says
    section = _block_after("## Command line and reports", "sh")
    for line in section.splitlines():
        command = line.split("  #")[0].strip()
        if "sample_data/" in command or command in ("agreebound validate", "agreebound example"):
            proc = installed.sh(command)
            said = re.search(r"# exit (\d)", line)
            assert proc.returncode == (int(said.group(1)) if said else proc.returncode) and proc.returncode in (0, 1, 2), (
                command, proc.returncode, proc.stderr.decode()[-500:])


def test_the_readmes_library_examples_run(installed):
    installed.sh("agreebound samples")
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", README.split("\n## Library\n", 1)[1].split("\n## ", 1)[0],
                                        re.S)):
        script = installed.home / f"library_{i}.py"
        script.write_text(code)
        proc = installed.sh(f"python {shlex.quote(script.name)}", timeout=600)
        assert proc.returncode == 0, (i, proc.stderr.decode()[-2000:])
        if i == 0:
            out = proc.stdout.decode().splitlines()
            assert out[0] == "56/81 0.691358024691358 691"
            assert out[1] == "REPORT_ONLY 1 {'violence': 'REPORT_ONLY', 'insult': 'REPORT_ONLY', 'sexual': 'ENFORCE'}"
            assert out[2] == "951/1120"  # the same as `agreebound panel ... --level interval`
            assert out[3] == "FAIL_CALIBRATION 1"
            assert out[4].startswith("empty.csv: ")


SNIPPET = '''
from fractions import Fraction
import agreebound
from agreebound import InputError, Report

a = agreebound.krippendorff_alpha(reliability_data=[[1, 2, 3], [1, 2, 2]], level_of_measurement="ordinal")
value: Fraction | None = a.value
report: Report = agreebound.audit_panel("sample_data/detector_panel.csv", level="nominal")
code: int = report.exit_code
verdict: str = report.verdict
err: type[Exception] = InputError
'''


def test_mypy_accepts_code_using_the_public_api_and_catches_a_wrong_level(installed):
    (installed.home / "uses.py").write_text(SNIPPET)
    proc = installed.sh("python -m mypy --no-incremental uses.py", timeout=600)
    assert proc.returncode == 0, proc.stdout.decode()[-2000:]
    assert "Success: no issues found in 1 source file" in proc.stdout.decode()
    (installed.home / "wrong.py").write_text('import agreebound\nagreebound.krippendorff_alpha([[1]], level="nominall")\n')
    proc = installed.sh("python -m mypy --no-incremental wrong.py", timeout=600)
    assert proc.returncode == 1 and 'Argument "level" to "krippendorff_alpha" has incompatible type' in \
        proc.stdout.decode(), proc.stdout.decode()


def test_a_missing_optional_part_is_exit_3_naming_its_extra(installed):
    installed.sh("agreebound samples")
    proc = installed.sh("agreebound panel sample_data/detector_panel.csv --engine spark")
    assert (proc.returncode, proc.stderr.decode()) == (3, "agreebound: the Spark engine (--engine spark) needs the "
                                                          "optional part 'spark', which is not installed: pip install "
                                                          "'agreebound[spark]'\n")
    proc = installed.sh("agreebound panel sample_data/detector_panel.csv --record --db "
                        "postgresql://someone@127.0.0.1:9/runs")
    assert proc.returncode == 3, proc.stderr.decode()
    assert proc.stderr.decode().rstrip().endswith("needs the optional part 'postgres', which is not installed: pip "
                                                  "install 'agreebound[postgres]'"), proc.stderr.decode()


@pytest.fixture(scope="module")
def served(installed):
    port = free_port()
    proc = subprocess.Popen(["agreebound", "serve", "--port", str(port)], cwd=installed.home, env=installed.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc, 120)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.parametrize("path, title, verdict", [
    ("", "Is this verdict reliable enough to act on?", "FAIL_CALIBRATION"),
    ("panel", "Panel reliability", "REPORT_ONLY"),
    ("judge", "Judge calibration", "FAIL_CALIBRATION"),
    ("whatif", "What-if thresholds", "REPORT_ONLY"),
    ("history", "History", None),
    ("help", "Formats & help", None),
])
def test_agreebound_serve_from_an_empty_folder_shows_every_page_with_the_sample_verdicts(page: Page, served, path,
                                                                                          title, verdict):
    page.goto(f"{served}/{path}")
    settle(page)
    expect(page.locator("h1").first).to_have_text(title)
    assert page.locator("[data-testid='stException']").count() == 0
    # red boxes are verdicts (FAIL_CALIBRATION, REFUSE_SINGLE) or errors: no error may show
    errors = [t for t in page.locator("[data-testid='stAlertContentError']").all_inner_texts()
              if not t.strip().startswith(("FAIL_CALIBRATION", "REFUSE_SINGLE"))]
    assert not errors, errors
    if verdict:
        expect(page.locator("[data-testid='stMain']")).to_contain_text(verdict)
    if path == "help":  # the format reference, read from the installed package
        expect(page.locator("[data-testid='stMain']")).to_contain_text("From your tool to Agreebound")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"installed-{path or 'overview'}.png"), full_page=True)
