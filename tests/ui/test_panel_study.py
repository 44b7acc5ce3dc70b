"""The Panel page's annotation study (issue 56): opened, it names each rater's skill with its interval
(the reports' rows), says whether the raters use the categories at the same rates, lists the relabel
queue with the why, and offers the queue as CSV, Label Studio and Argilla files; the rule picker
re-ranks it; the sentence beside a low alpha says what the rates explain. The verdict is unchanged."""

from __future__ import annotations

import csv
import io
import json

from agreebound.ui import data
from tests.support.apptest import app, ok, open_panel, shown


def _downloads(at):
    return {b.proto.label: b for b in at.get("download_button")}


def test_the_study_section_says_whom_to_trust_and_what_to_relabel():
    at = open_panel(app("pages/panel.py"), "violence", "study")
    body = " ".join(shown(m.value) for m in at.markdown)
    assert "- Every rater's skill is above chance (its 95% interval excludes 0)." in body
    assert "detector-llm says '1' on 26% of the units it rated" in body
    raters = next(t.value for t in at.dataframe if "the model says" in t.value.columns)
    assert list(raters["rater"]) == ["detector-lexicon", "detector-classifier", "detector-llm", "human"]
    assert list(raters["skill"]) == ["0.334", "0.295", "0.230", "0.387"]
    assert list(raters["the model says"]) == ["informative"] * 4
    queue = next(t.value for t in at.dataframe if "why" in t.value.columns)
    assert len(queue) == 50 and queue["unit"].iloc[0] == "item-0135" and queue["split"].iloc[0] == "1/2"
    assert queue["why"].iloc[0].startswith("the model gives '0' probability 0.612; 2 of 4 ratings agree")
    radio = at.radio(key="study_rule_violence")
    assert radio.options == ["least certain consensus first", "largest move of alpha toward the floor first",
                             "a detector alone against agreeing people first"]
    assert "**Relabel queue**: 600 units, least certain consensus first" in " ".join(m.value for m in at.markdown)
    assert ("Why item-0135 is first: the model gives '0' probability 0.612; 2 of 4 ratings agree with the plurality; "
            "detector-classifier says '1', detector-llm says '1' where the 1 human says '0'; removing it moves alpha "
            "from 0.236 to 0.237, toward the floor 0.600 (alpha now fails).") in body
    captions = " ".join(c.value for c in at.caption)
    assert "Do the raters use the categories at the same rates? Bhapkar's test" in captions
    # beside the verdict: the rates explain the low alpha (0.236 under the floor 0.600)
    assert any(c.value.startswith("The raters use the categories at different rates") for c in at.caption)
    assert not at.exception


def test_the_rule_re_ranks_and_the_downloads_hold_the_whole_queue():
    at = open_panel(app("pages/panel.py"), "violence", "study")
    calls = data.MEASURE_CALLS["study"]
    at.radio(key="study_rule_violence").set_value("gate-first")
    ok(at.run())
    assert data.MEASURE_CALLS["study"] == calls + 1
    queue = next(t.value for t in at.dataframe if "why" in t.value.columns)
    moves = [float(x) for x in queue["alpha's move"]]
    assert moves == sorted(moves, reverse=True)  # largest move toward the floor first (alpha fails: up)
    assert "largest move of alpha toward the floor first" in " ".join(m.value for m in at.markdown)
    labels = set(_downloads(at))
    assert {"Relabel queue (CSV)", "Label Studio tasks (JSON)", "Label Studio config (XML)",
            "Argilla records (JSON)"} <= labels


def test_the_study_content_of_the_downloads():
    """The download buttons' payloads: read through the same functions the buttons call."""
    from agreebound.panel.relabel import argilla_records, label_studio_tasks, queue_csv

    at = open_panel(app("pages/panel.py"), "violence", "study")
    src = at.session_state["panel_source"].recipe.ratings[0]
    measured = data.measured_panel(at.session_state["panel_source"].recipe)["violence"]
    study = data.panel_study(src.name, src.digest, src.data, "nominal", "violence", 600, "uncertain-first", None,
                             measured)
    rows = list(csv.DictReader(io.StringIO(queue_csv(study.queue))))
    assert len(rows) == 600 and rows[0]["unit"] == "item-0135"
    assert len(json.loads(label_studio_tasks(study.queue))) == 600
    assert len(json.loads(argilla_records(study.queue))) == 600
    assert not at.exception


def test_no_rates_sentence_from_two_units():
    """Under a low alpha the rates' sentence follows the study's rule: two units rated by every rater
    are no evidence of different rates (Bhapkar's statistic is infinite on them), so nothing is said."""
    from agreebound.panel.categories import encode
    from agreebound.panel.study import rates_sentence

    few = encode([["a", "b", "a"], ["a", "b", "a"]])
    assert rates_sentence(few, ["r1", "r2", "r3"], alpha_is_low=True) is None
    many = encode([["yes", "yes"]] * 30 + [["yes", "no"]] * 25 + [["no", "no"]] * 45)
    assert rates_sentence(many, ["Ann", "Bo"], alpha_is_low=True).startswith(
        "The raters use the categories at different rates (Stuart-Maxwell test: ")


def test_another_rule_or_floor_ranks_again_without_refitting_the_model(monkeypatch):
    """The rater model depends on the ratings alone: a rule picked or a floor moved on What-if ranks
    the queue again (the study's cheap part) and never fits Dawid-Skene again."""
    from agreebound.panel import study

    at = open_panel(app("pages/panel.py"), "violence", "study")
    fits = []
    original = study.dawid_skene
    monkeypatch.setattr(study, "dawid_skene", lambda *a, **k: fits.append(1) or original(*a, **k))
    at.radio(key="study_rule_violence").set_value("gate-first")
    ok(at.run())
    at.switch_page("pages/whatif.py").run()
    at.slider(key="slider_alpha_floor_permil").set_value(300).run()
    at.switch_page("pages/panel.py").run()
    open_panel(at, "violence", "study")
    assert fits == [] and not at.exception
    queue = next(t.value for t in at.dataframe if "why" in t.value.columns)
    assert "toward the floor 0.300" in queue["why"].iloc[0]  # ranked again against the moved floor
