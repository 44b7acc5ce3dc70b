"""The What-if strip (issue 54, item 7): what changed from the defaults first, each changed line
marked with a sign and words; what did not, one line (an expander with the list). The phone's
brief says the same in a few lines. Through AppTest, on the bundled samples."""

from __future__ import annotations

import random

from tests.support.apptest import app, ok, open_whatif, plain, tables, upload

MARK = "⇄"


def block(node, key: str):
    """The keyed container ``key`` (st.container(key=...)) under ``node``."""
    for child in getattr(node, "children", {}).values():
        if str(getattr(getattr(child, "proto", None), "id", "")).endswith("-" + key):
            return child
        if (found := block(child, key)) is not None:
            return found
    return None


def lines(node) -> list[str]:
    """The strip's elements in order: each Markdown as shown, an expander as ``[expander] label``."""
    out = []
    for child in node.children.values():
        kind = type(child).__name__
        if kind == "Markdown":
            out.append(plain(child.value).replace("  \n", "\n"))  # a line break: one line each
        elif kind == "Expander":
            out.append(f"[expander] {child.label}")
    return out


def unchanged(node) -> str:
    """What the strip's expander lists."""
    (expander,) = [c for c in node.children.values() if type(c).__name__ == "Expander"]
    return "\n".join(plain(m.value).replace("  \n", "\n") for m in expander.children.values())


def test_a_flip_comes_first_marked_and_the_rest_collapses_to_one_line():
    at = app("pages/whatif.py")
    strip = block(at.main, "whatif_strip")
    assert lines(strip) == ["**Verdicts under these thresholds**: as under the defaults",
                            "[expander] 15 verdicts and gates unchanged from the defaults"]
    assert "**sexual**: ENFORCE at nominal (same as the defaults)" in unchanged(strip)

    at.slider(key="slider_alpha_floor_permil").set_value(800).run()  # sexual's alpha 0.779 < 0.800
    assert not at.exception
    strip = block(at.main, "whatif_strip")
    shown = lines(strip)
    assert shown[0] == f"**Verdicts under these thresholds**: :orange[**{MARK}**] 2 changed from the defaults (verdicts and gates)"
    flipped = shown[1].split("\n")
    assert flipped[0] == "**sexual**: REPORT_ONLY at nominal (was ENFORCE under the defaults)"
    assert flipped[1] == (f":orange[**{MARK}**] **changed: ENFORCE → REPORT_ONLY; flipped: the alpha (nominal) gate now "
                          "fails**")
    assert flipped[2].startswith(f":orange[**{MARK}**] alpha (nominal) 0.779, needs 0.800: 0.021 short: fails "
                                 "(flipped from passes)")
    assert shown[2:] == ["[expander] 13 verdicts and gates unchanged from the defaults"]  # one line, whatever the count
    rest = unchanged(strip)
    assert "**violence**: REPORT_ONLY at nominal (same as the defaults)" in rest
    assert "**sexual** (changed, above), its other gates:\nspread 1.45x, cap 2.00x: 0.55x to spare: passes" in rest
    assert "**judge**: FAIL_CALIBRATION (same as under the bound contract)" in rest
    assert MARK not in rest  # nothing unchanged is marked

    brief = lines(block(at.main, "whatif_brief_narrowview"))
    assert brief == [("**Changed from the defaults** (13 verdicts and gates unchanged)\n"
                      f":orange[**{MARK}**] **sexual**: REPORT_ONLY (was ENFORCE); alpha (nominal) now fails")]


def test_changed_verdicts_come_before_gates_that_flipped_alone():
    at = open_whatif(app("pages/whatif.py"), "Judge contract")  # the judge's sliders: a tab of their own
    at.slider(key="slider_maximum_self_preference_bps").set_value(6000).run()  # the judge's 56.5% now passes
    open_whatif(at, "Panel")
    assert "slider_maximum_self_preference_bps" not in {s.key for s in at.slider}  # only the open tab is drawn
    at.slider(key="slider_alpha_floor_permil").set_value(800).run()
    assert not at.exception
    shown = lines(block(at.main, "whatif_strip"))
    assert [s.split("\n")[0] for s in shown] == [
        f"**Verdicts under these thresholds**: :orange[**{MARK}**] 3 changed from the defaults (verdicts and gates)",
        "**sexual**: REPORT_ONLY at nominal (was ENFORCE under the defaults)",  # a verdict changed: first
        "**judge**: FAIL_CALIBRATION (same as under the bound contract)",  # a gate flipped, the verdict did not
        "[expander] 12 verdicts and gates unchanged from the defaults"]
    judge = shown[2].split("\n")
    assert judge[1] == f":orange[**{MARK}**] **flipped: the self-preference gate now passes**"
    assert judge[2] == (f":orange[**{MARK}**] self-preference 56.5%, limit 60.0%: 3.5 points to spare: passes "
                        "(flipped from fails)")
    brief = lines(block(at.main, "whatif_brief_narrowview"))[0].split("\n")
    assert brief[1:] == [f":orange[**{MARK}**] **sexual**: REPORT_ONLY (was ENFORCE); alpha (nominal) now fails",
                         f":orange[**{MARK}**] **judge**: FAIL_CALIBRATION (unchanged); self-preference now passes"]
    at.button(key="sidebar_reset").click().run()
    assert lines(block(at.main, "whatif_strip"))[0] == "**Verdicts under these thresholds**: as under the defaults"


def many_dimensions(count: int = 15, units: int = 40) -> bytes:
    """A long panel of ``count`` 0/1 dimensions, three raters agreeing 95% of the time: each
    dimension's alpha between 0.6 and 0.8, so each enforces under the defaults and none under 0.950."""
    rng = random.Random(5)
    rows = ["dimension,unit,rater,value"]
    for d in range(count):
        for u in range(units):
            truth = rng.randrange(2)
            rows += [f"dim{d:02d},u{u},r{r},{truth if rng.random() < 0.95 else 1 - truth}" for r in range(3)]
    return ("\n".join(rows) + "\n").encode()


def test_with_many_flips_the_strip_shows_three_and_folds_the_rest():
    at = app("pages/panel.py")
    upload(at, "ratings_upload", "many.csv", many_dimensions())
    ok(at.button(key="pv_measure").click().run())
    ok(at.switch_page("pages/whatif.py").run())
    ok(at.slider(key="slider_alpha_floor_permil").set_value(950).run())
    strip = block(at.main, "whatif_strip")
    shown = lines(strip)
    assert shown[0] == f"**Verdicts under these thresholds**: :orange[**{MARK}**] 30 changed from the defaults (verdicts and gates)"
    assert len(shown) == 6 and all("(was ENFORCE under the defaults)" in s for s in shown[1:4])  # three in full
    assert shown[4:] == [f"[expander] {MARK} 12 more changed from the defaults",  # one line each, whatever the count
                         "[expander] 21 verdicts and gates unchanged from the defaults"]
    brief = lines(block(at.main, "whatif_brief_narrowview"))[0].split("\n")
    assert brief[0] == "**Changed from the defaults** (21 verdicts and gates unchanged)"
    assert len(brief) == 6 and brief[-1] == 'and 11 more: "Verdicts as tables" below lists every verdict'


def test_the_page_opens_with_the_strip_and_one_group_of_sliders_and_draws_the_rest_when_opened():
    """Issue 57: ten people opening What-if at once waited on what none of them looked at first. The
    page opens with the strip (every verdict) and the panel's sliders; the judge's sliders are a tab
    away; the tables, the sweep, the downloads and the thresholds file are sections drawn when opened."""
    at = ok(app("pages/whatif.py"))
    assert [t.label for t in at.tabs] == ["Panel", "Judge contract"]  # no graded judge loaded: no third tab
    assert [s.key for s in at.slider] == ["slider_alpha_floor_permil", "slider_ratio_cap_permil"]
    assert [e.label for e in at.expander] == [
        "15 verdicts and gates unchanged from the defaults",  # the strip's
        "Verdicts as tables: edited thresholds beside the defaults",
        "Threshold sweep: how far one gate is from flipping",
        "Downloads under these thresholds: thresholds, draft contract, reports",
        "Load thresholds from a file (JSON/TOML, with presets)"]
    assert not at.table and not at.get("download_button") and not at.get("file_uploader")
    assert [s.key for s in at.selectbox] == ["preset_pick"]  # the sidebar's; no sweep picker yet
    strip = lines(block(at.main, "whatif_strip"))
    assert strip[0] == "**Verdicts under these thresholds**: as under the defaults"

    open_whatif(at, "Judge contract", "tables", "sweep", "downloads", "load")
    assert [s.key for s in at.slider] == [
        "slider_minimum_reviewers", "slider_minimum_human_agreement_bps", "slider_maximum_position_flip_bps",
        "slider_maximum_repeat_variance_bps", "slider_maximum_verbosity_bias_bps", "slider_maximum_self_preference_bps"]
    assert [list(t["edited"]) for t in tables(at)] == [["REPORT_ONLY", "REPORT_ONLY", "ENFORCE"], ["FAIL_CALIBRATION"]]
    assert sorted(s.key for s in at.selectbox) == ["preset_pick", "sweep_gate"]
    assert {b.key for b in at.get("download_button")} == {
        "dl_thresholds", "dl_contract", "dl_panel_json", "dl_panel_md", "dl_panel_html", "dl_judge_json",
        "dl_judge_md", "dl_judge_html"}
    assert [u.key for u in at.get("file_uploader")] == ["thresholds_upload"]
    assert [b.key for b in at.button if b.key == "reset_contract"] == ["reset_contract"]  # in the judge's tab
