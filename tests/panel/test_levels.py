"""The level in force is chosen, or the specification's: nominal by default, interval where
nominal cannot mean anything; it is named beside every verdict, and a verdict another admissible
level would change says so (issue 22, section 1)."""

from __future__ import annotations

import json


from agreebound.panel.measure import measure_panel
from agreebound.panel.decide import decide_panel, level_verdicts
from agreebound.panel.levels import NOMINAL_MAX_VALUES, default_level
from agreebound.io.ratings import import_ratings
from agreebound.io.mapping import Mapping
from agreebound.core.thresholds import PanelThresholds
from agreebound.panel.seed import Verdict
from tests.support.cli import process
from tests.support.panels import goniometer, long_0_9


def cli(tmp_path, name: str, data: bytes, *flags: str) -> tuple[int, str, dict]:
    path = tmp_path / name
    path.write_bytes(data)
    text = process("panel", path, *flags, text=False)
    js = process("panel", path, *flags, "--json", text=False)
    return text.returncode, text.stdout.decode(), json.loads(js.stdout)


def panel_of(data: bytes, name: str = "x.csv"):
    return next(iter(import_ratings(name, data).panels.values()))


def test_default_rule():
    assert default_level(panel_of(b"unit,a,b\nu1,yes,no\nu2,no,no\nu3,yes,yes\n"))[0] == "nominal"
    assert default_level(panel_of(long_0_9()))[0] == "nominal"
    assert default_level(panel_of(b"unit,a,b\nu1,1.5,2\nu2,2,2.5\nu3,3,3\n")) == (
        "interval", "numbers with decimals: nominal would make every distinct number a category of its own, so the "
                    "default is interval")
    twenty = "".join(f"u{i},{i},{i}\n" for i in range(NOMINAL_MAX_VALUES)).encode()
    assert default_level(panel_of(b"unit,a,b\n" + twenty))[0] == "nominal"
    more = "".join(f"u{i},{i},{i}\n" for i in range(NOMINAL_MAX_VALUES + 1)).encode()
    assert default_level(panel_of(b"unit,a,b\n" + more)) == (
        "interval", "21 distinct whole numbers, more than 20: nominal would make each a category of its own, so the "
                    "default is interval")


def test_a_0_9_export_reads_nominal_and_says_ordinal_would_decide_otherwise(tmp_path):
    code, text, report = cli(tmp_path, "long_0_9.csv", long_0_9())
    d = report["panel"]["dimensions"][0]
    lv = d["level"]
    assert (lv["in_force"], lv["chosen_by"], lv["suggested"]) == ("nominal", "default", "ordinal")
    assert d["alpha"]["exact"] == "4639/12850" and d["verdict"] == "REPORT_ONLY"
    assert lv["verdict_at_levels"] == {"nominal": "REPORT_ONLY", "ordinal": "ENFORCE", "interval": "ENFORCE"}
    assert lv["depends_on_level"] is True and report["panel"]["depends_on_level"] is True
    assert lv["note"] == ("REPORT_ONLY at nominal; ENFORCE at ordinal and interval "
                          "(alpha 0.361 at nominal, 0.938 at ordinal, 0.947 at interval)")
    lines = text.splitlines()
    assert lines[1].startswith("all: REPORT_ONLY at the nominal level (the default)  (depends on the level)  "
                               "alpha=4639/12850 (361 permil)")
    assert "  - depends on the level: REPORT_ONLY at nominal; ENFORCE at ordinal and interval (alpha 0.361 at " \
           "nominal, 0.938 at ordinal, 0.947 at interval)" in lines
    assert any(line.startswith("  suggested level ordinal: 10 ordered whole numbers") and
               line.endswith("(--level ordinal)") for line in lines)
    assert code == 1


def test_the_goniometer_export_reads_interval_by_the_rule_and_says_nominal_would_decide_otherwise(tmp_path):
    code, text, report = cli(tmp_path, "goniometer.csv", goniometer())
    d = report["panel"]["dimensions"][0]
    lv = d["level"]
    assert (lv["in_force"], lv["chosen_by"]) == ("interval", "default")
    assert lv["chosen_reason"].startswith("31 distinct whole numbers, more than 20")
    assert d["verdict"] == "ENFORCE" and lv["verdict_at_levels"]["nominal"] == "REPORT_ONLY"
    assert lv["note"].startswith("ENFORCE at interval and ordinal; REPORT_ONLY at nominal (alpha 0.993 at interval")
    assert text.splitlines()[1].startswith("all: ENFORCE at the interval level (the default)  (depends on the level)")
    assert code == 0


def test_who_chose_the_level_is_recorded(tmp_path):
    _, text, report = cli(tmp_path, "long.csv", long_0_9(), "--level", "ordinal")
    lv = report["panel"]["dimensions"][0]["level"]
    assert (lv["in_force"], lv["chosen_by"], lv["chosen_reason"]) == ("ordinal", "user", "chosen by the user")
    assert text.splitlines()[1].startswith("all: ENFORCE at the ordinal level (chosen)  (depends on the level)")
    mapping = tmp_path / "m.json"
    mapping.write_text(Mapping("long", ("subject",), "coder", "score", level="interval").to_json())
    _, _, report = cli(tmp_path, "long.csv", long_0_9(), "--mapping", str(mapping))
    lv = report["panel"]["dimensions"][0]["level"]
    assert (lv["in_force"], lv["chosen_by"]) == ("interval", "mapping")


def test_labels_never_depend_on_the_level_and_strict_mode_alone_does_not_either():
    p = panel_of(b"unit,a,b,c\nu1,yes,no,yes\nu2,no,no,no\nu3,yes,yes,yes\nu4,no,no,yes\n")
    m = measure_panel(p, "auto")
    assert m.level_origin[0] == "default" and list(level_verdicts(m, PanelThresholds())) == ["nominal"]
    m = measure_panel(panel_of(long_0_9()), "ordinal")
    strict = PanelThresholds(strict=True)
    assert level_verdicts(m, strict)["ordinal"] is Verdict.ENFORCE  # by the point gates, as at the other levels
    assert decide_panel(m, strict).depends_on_level and decide_panel(m, PanelThresholds(alpha_floor_permil=300)).depends_on_level is False


def test_usage_shows_optional_arguments_as_optional_and_unknown_json_lines_say_so(tmp_path, capsys):
    from agreebound.cli.main import main

    assert main(["panel"]) == 3
    assert capsys.readouterr().err == ("agreebound panel: the following arguments are required: file (usage: "
                                       "agreebound panel [options] file [FILE ...]; see agreebound panel --help)\n")
    log = tmp_path / "unknown.jsonl"
    log.write_text('{"x": 1, "y": "a", "z": true}\n{"x": 2, "y": "b", "z": false}\n')
    assert main(["calibrate", str(log)]) == 3
    assert capsys.readouterr().err == (
        "unknown.jsonl: JSON Lines with fields x, y, z: not a shape Agreebound knows (a judge log from MT-Bench, "
        "AlpacaEval or our observations, or one read through --mapping); see docs/formats.md\n")


def test_a_human_study_says_raters_not_detectors(tmp_path, capsys):
    from agreebound.panel.levels import rater_noun
    from agreebound.cli.main import main
    from agreebound.render.gates import panel_gates
    from agreebound.panel.decide import decide_panel

    data = b"unit,human_ann,human_bob,human_cy\nu1,1,1,1\nu2,2,2,1\nu3,3,3,3\nu4,1,2,1\nu5,2,2,2\n"
    path = tmp_path / "study.csv"
    path.write_bytes(data)
    assert main(["panel", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("spread=not measured  raters=3")
    m = measure_panel(panel_of(data, "study.csv"), "auto")
    assert rater_noun(m.raters) == "rater"
    gate = panel_gates("all", m, decide_panel(m, PanelThresholds()))[0]
    assert gate.label == "independent raters" and gate.margin == "3 independent raters, needs 2"
    assert rater_noun(measure_panel(panel_of(long_0_9()), "auto").raters) == "rater"  # coders are raters
    assert rater_noun(["detector-a", "detector-b"]) == rater_noun(["coder1", "toxicity_classifier"]) == "detector"
    assert rater_noun(["coder1", "coder2"], rates_given=True) == "detector"  # a detector rates file was given
