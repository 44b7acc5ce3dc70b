"""The judge shift tolerance is threshold data: a ThresholdSet's ``drift`` table, read from files and
links, in its legal range, in words, written only when it differs from the default, listed among
the edits; the command line's finer tolerance stays exact and is never written as data."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from agreebound.core.errors import InputError
from agreebound.core.thresholds import (CITATIONS, DEFAULT, RANGES, THRESHOLD_WORDS, DriftThresholds, Range,
                                         ThresholdError, ThresholdSet, edits, threshold_set_from_dict)
from agreebound.io.threshold_files import parse_threshold_link, parse_thresholds
from agreebound.judge import drift


def test_the_default_is_the_drift_module_s_and_cited():
    assert DriftThresholds() == DriftThresholds(50) and DriftThresholds().tolerance == Fraction(1, 20)
    assert drift.DRIFT_TOLERANCE_DEFAULT == Fraction(1, 20) and drift.DriftThresholds is DriftThresholds
    assert RANGES["judge_shift_tolerance_permil"] == Range(0, 100_000, "permil")
    assert CITATIONS["judge_shift_tolerance_permil"].startswith("50 permil = 0.05 on the outcome's scale")
    assert THRESHOLD_WORDS["judge_shift_tolerance_permil"][1](80) == "0.080 (8 points of a win rate)"


def test_a_toml_file_and_a_link_carry_the_drift_table():
    tf = parse_thresholds("t.toml", b"[panel]\nalpha_floor_permil = 700\n\n[drift]\njudge_shift_tolerance_permil = 80\n")
    assert tf.thresholds.drift == DriftThresholds(80) and tf.thresholds.drift.tolerance == Fraction(2, 25)
    assert tf.thresholds.panel.alpha_floor_permil == 700
    js = parse_thresholds("t.json", b'{"drift": {"judge_shift_tolerance_permil": 0}}')
    assert js.thresholds.drift.tolerance == 0
    link = parse_threshold_link(json.dumps(tf.thresholds.to_dict()))
    assert link.drift == DriftThresholds(80) and link.source == "link"
    assert link.to_dict() == {"panel": {"alpha_floor_permil": 700, "ratio_cap_permil": 2000, "strict": False},
                              "drift": {"judge_shift_tolerance_permil": 80}}
    preset = parse_thresholds("t.toml", b"[presets.loose.drift]\njudge_shift_tolerance_permil = 150\n")
    assert preset.presets["loose"].drift.judge_shift_tolerance_permil == 150 and preset.thresholds == \
        ThresholdSet(source="file:t.toml")


def test_the_default_is_not_written_and_a_file_without_it_reads_the_same():
    assert "drift" not in DEFAULT.to_dict() and not DEFAULT.edited
    assert "drift" not in threshold_set_from_dict({"drift": {"judge_shift_tolerance_permil": 50}}, "x").to_dict()
    assert threshold_set_from_dict({}, "x").drift == DriftThresholds()
    assert ThresholdSet(drift=DriftThresholds(51)).edited


@pytest.mark.parametrize("text, key, line, reason", [
    (b"[drift]\njudge_shift_tolerance_permil = 100001\n", "drift.judge_shift_tolerance_permil", 2,
     "judge_shift_tolerance_permil must be between 0 and 100000 (permil), got 100001"),
    (b"[drift]\n\njudge_shift_tolerance_permil = 0.05\n", "drift.judge_shift_tolerance_permil", 3,
     "judge_shift_tolerance_permil must be a whole number (permil), got 0.05"),
    (b"[drift]\njudge_shift_tolerance_permil = -1\n", "drift.judge_shift_tolerance_permil", 2,
     "judge_shift_tolerance_permil must be between 0 and 100000 (permil), got -1"),
    (b"[drift]\ntolerance = 50\n", "drift.tolerance", 2, "unknown key; expected judge_shift_tolerance_permil"),
    (b"[drift]\nexact_tolerance = 50\n", "drift.exact_tolerance", 2,
     "unknown key; expected judge_shift_tolerance_permil"),
    (b"drift = 50\n", "drift", 1, "drift must be a table/object, got int"),
])
def test_a_bad_value_names_its_key_and_line(text, key, line, reason):
    with pytest.raises(InputError) as e:
        parse_thresholds("t.toml", text)
    assert (e.value.column, e.value.row, e.value.reason) == (key, line, reason)


def test_a_bad_link_names_its_key():
    with pytest.raises(InputError) as e:
        parse_threshold_link('{"drift": {"judge_shift_tolerance_permil": true}}')
    assert (e.value.column, e.value.reason) == (
        "drift.judge_shift_tolerance_permil", "judge_shift_tolerance_permil must be a whole number (permil), got True")
    with pytest.raises(ThresholdError) as t:
        threshold_set_from_dict({"drifts": {}}, "link")
    assert t.value.key == "drifts" and str(t.value) == ("unknown key; expected 'panel', 'calibration', 'scored' and/or "
                                                       "'drift'")


def test_edits_list_the_tolerance_beside_its_default():
    assert edits(ThresholdSet(drift=DriftThresholds(120)), None) == [
        "judge shift tolerance 0.120 (12 points of a win rate) (default 0.050 (5 points of a win rate))"]
    assert edits(ThresholdSet(drift=DriftThresholds(50)), None) == []


def test_a_tolerance_finer_than_a_permil_stays_exact_and_is_no_data():
    fine = DriftThresholds.from_tolerance(Fraction(1, 80))  # 12.5 permil
    assert (fine.judge_shift_tolerance_permil, fine.exact_tolerance, fine.tolerance) == (12, Fraction(1, 80),
                                                                                        Fraction(1, 80))
    assert DriftThresholds.from_tolerance(Fraction(3, 100)) == DriftThresholds(30)  # whole permil: plain data
    assert DriftThresholds.from_tolerance(Fraction(100)) == DriftThresholds(100_000)
    with pytest.raises(ValueError, match="finer than a permil: not data"):
        fine.to_dict()
    with pytest.raises(ValueError, match="whole permil"):
        ThresholdSet(drift=fine)
    with pytest.raises(ValueError, match="between 0 and 100000 .permil., got 100001"):
        DriftThresholds.from_tolerance(Fraction(1_000_001, 10_000))  # just above 100
    with pytest.raises(ValueError, match="between 0 and 100000 .permil., got -1"):
        DriftThresholds.from_tolerance(Fraction(-1, 10_000))
    with pytest.raises(ValueError, match="floor of the exact tolerance"):
        DriftThresholds(13, Fraction(1, 80))
    with pytest.raises(ValueError, match="finer than a permil"):
        DriftThresholds(20, Fraction(1, 50))  # a whole permil is the plain field's
