"""Every template the Formats & help page offers is read by its own parser to a known result."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from agreebound.io import templates as T
from agreebound.panel.measure import measure_panels
from agreebound.judge.decide import decide
from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT
from agreebound.io.detector_rates import parse_detector_rates
from agreebound.io.ratings import import_ratings, parse_mapping
from agreebound.io.threshold_files import parse_thresholds
from agreebound.app.pipeline import parse_judge_bundle, parse_judge_log, parse_judge_tables
from agreebound.io.judge_logs import parse_log_mapping
from agreebound.panel.alpha import krippendorff_alpha

NOMINAL, INTERVAL = Fraction(113, 152), Fraction(951, 1120)  # Krippendorff (2011), published


def b(key: str) -> bytes:
    return T.BY_KEY[key].build().encode()


def test_every_input_has_a_template_with_a_unique_file_name():
    assert len({t.file_name for t in T.TEMPLATES}) == len(T.TEMPLATES) == 15
    assert {t.key for t in T.TEMPLATES} >= {"ratings_wide", "ratings_long", "rates", "thresholds_toml", "contract",
                                             "references", "observations", "mapping_wide", "log_mapping"}


@pytest.mark.parametrize("key, mapping", [("ratings_wide", "mapping_wide"), ("ratings_long", "mapping_long"),
                                          ("ratings_transposed", "mapping_transposed")])
def test_rating_templates_read_to_the_published_alpha_with_and_without_their_mapping(key, mapping):
    name = T.BY_KEY[key].file_name
    for m in (None, parse_mapping("m.json", b(mapping))):
        r = import_ratings(name, b(key), m)
        (panel,) = r.panels.values()
        assert len(panel.units) == 12 and panel.n_ratings == 41
        # (a long file lists raters in order of first appearance: item-01 has no detector-b)
        assert panel.humans == ("human-lead",) and sorted(panel.detectors) == ["detector-a", "detector-b", "detector-c"]
        assert krippendorff_alpha(panel.ratings("nominal"), "nominal").value == NOMINAL
        assert krippendorff_alpha(panel.ratings("interval"), "interval").value == INTERVAL
    assert parse_mapping("m.json", b(mapping)).level == "ordinal"


def test_rates_template_counts_severity_3_or_more_and_serves_the_ratings_template():
    rates = parse_detector_rates("rates.csv", b("rates"))
    # K2011 columns B, C, D: 1 2 3 3 2 2 4 1 2 5 . 3 / . 3 3 3 2 3 4 2 2 5 1 . / 1 2 3 3 2 4 4 1 2 5 1 .
    assert {(r.detector, r.positives, r.total) for r in rates["severity"]} == {
        ("detector-a", 5, 11), ("detector-b", 6, 10), ("detector-c", 5, 11)}
    m = measure_panels(import_ratings("r.csv", b("ratings_long")).panels, "ordinal", "auto", rates, "rates.csv")
    assert m["severity"].rates_source == "file: rates.csv" and len(m["severity"].rates) == 3


def test_thresholds_templates_are_the_defaults():
    for key in ("thresholds_toml", "thresholds_json"):
        tf = parse_thresholds(T.BY_KEY[key].file_name, b(key))
        assert tf.thresholds.panel.alpha_floor_permil == 600 and tf.thresholds.panel.ratio_cap_permil == 2000
    assert "exploratory" in parse_thresholds("t.toml", b("thresholds_toml")).presets


def test_judge_templates_give_the_illustrative_audit_every_way():
    bundle = parse_judge_bundle("b.json", b("bundle"))
    trio = parse_judge_tables("c.json", b("contract"), "r.csv", b("references"), "o.csv", b("observations"))
    log = parse_judge_log("l.jsonl", b("observations_jsonl"), ("r.csv", b("references")), ("c.json", b("contract")))
    assert bundle.measurement == trio.measurement == log.measurement
    assert bundle.contract == ILLUSTRATIVE_CONTRACT and bundle.measurement.bound
    assert decide(bundle.measurement).decision == "PASS_CALIBRATION"
    assert json.loads(b("contract"))["snapshot"]["contract_content_id"] == ILLUSTRATIVE_CONTRACT.content_id


def test_log_mapping_template_is_a_valid_mapping():
    m = parse_log_mapping("m.json", b("log_mapping"))
    assert m.fields["case_id"] == "qid" and m.values["order"] == {"A": "ab", "B": "ba"}
