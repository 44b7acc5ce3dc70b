"""What-if thresholds: sliders edit threshold data; verdicts are re-decided, never re-measured.

The sliders and the verdict strip live in one fragment: a slider move reruns only the fragment
(decide, on cached measurements), and the strip stays in view beside the sliders. The strip shows
every verdict; the sliders come a group at a time (a tab each: panel, judge contract, graded
judge), and the tables, the sweep, the downloads and a thresholds file are sections drawn only
while open: the page opens with what answers its question, not with everything it can show.
"""

import streamlit as st

from agreebound.render.gates import panel_gates
from agreebound.ui import (gates, loading, memo, panel_view, reports, run_links, scored, shell, sidebar, state,
                           judge_slices, threshold_editors, whatif_strip)
from agreebound.render import gate_figures
from agreebound.ui.blocks import md, printable, responsive_table, section_when_open, show_error
from agreebound.ui.state import K, session

shell.enter(__file__)

st.title("What-if thresholds")
st.caption("Move a threshold and every verdict is decided again from the cached measurements. "
           "The link in the address bar carries these thresholds "
           f"({gates.GLOSSARY_LINK.format('permil, bps, strict, specification (seed)')}).")

# The strip follows the page as it scrolls (static CSS: no user text).
# The strip's wrapper sticks inside its column, which is as tall as the sliders beside it.
st.html("<style>[data-testid='stLayoutWrapper']:has(> .st-key-whatif_strip)"
        "{position:sticky !important;top:3.5rem;z-index:2;align-self:flex-start;}"
        # the unchanged lines, opened, scroll inside the strip: it stays within the screen beside the sliders
        ".st-key-whatif_unchanged [data-testid='stExpanderDetails']{max-height:45vh;overflow-y:auto;}"
        # Phones: the columns stack, so the full strip would scroll away above the sliders; it gives way to
        # a brief strip of what changed, sticky over the page. Opaque: it inherits the app's own background
        # down the chain of its ancestors (each paints the colour already behind it), whatever the theme.
        "@media (max-width:640px){"
        "[data-testid='stLayoutWrapper']:has(> .st-key-whatif_strip){display:none !important;}"
        "[data-testid='stApp'] *:has(.st-key-whatif_brief_narrowview){background-color:inherit;}"
        "[data-testid='stLayoutWrapper']:has(> .st-key-whatif_brief_narrowview){position:sticky !important;"
        "top:3.5rem;z-index:3;}}</style>")


#: The threshold groups the editors' tabs show, one drawn at a time (the strip beside them shows every verdict).
GROUPS = ("Panel", "Judge contract", "Graded judge")


def threshold_groups(decisions: dict, contract, jd) -> None:
    """The editors of one group of thresholds, in a tab each: only the open tab is drawn, so a page
    opens with the panel's few sliders rather than every slider of every verdict. The open tab stays
    open while the page is shown (a slider move, a section opened); the page opens on the panel's."""
    tabs = st.tabs(list(GROUPS[:3 if scored.loaded() is not None else 2]), key=K.WHATIF_GROUP, on_change="rerun")
    i = next((i for i, t in enumerate(tabs) if t.open), 0)
    with tabs[i]:
        if i == 0:
            threshold_editors.panel_editors(decisions)
            threshold_editors.strict_toggle("panel", contract)
        elif i == 1:
            threshold_editors.calibration_editors(contract, jd)
            threshold_editors.strict_toggle("judge", contract)
            st.button("Reset judge thresholds to the contract's own", on_click=state.reset_to_contract,
                      key=K.RESET_CONTRACT)
        else:  # the graded judge's two thresholds (ThresholdSet.scored)
            scored.editors()


def verdict_tables(rows: list, bundle, jd, bound) -> None:
    """Every verdict under the edited thresholds beside the defaults', with the margins in force."""
    contract = bundle.contract
    table = []
    for r in rows:
        table.append({"panel dimension": r["dim"], "defaults (0.600 / 2.00x)": r["base"].verdict.value,
                     "edited": r["now"].verdict.value, "changed": "yes" if r["base"].verdict != r["now"].verdict else "",
                     "gate flipped": ", ".join(g.label for g in r["flipped"]),
                     "measured against the threshold in force": "; ".join(g.margin for g in r["gates"][1:])})
    responsive_table(table, "verdict_table")
    own = "bound contract" if bound.contract_given else "illustrative limits (no contract)"
    responsive_table([{
        "judge": "decision", own: bound.decision, "edited": jd.decision,
        "changed": "yes" if bound.decision != jd.decision else ""}], "judge_verdict_table")
    st.markdown(f"{own[0].upper() + own[1:]}: `{contract.content_id}`")
    st.markdown(f"Edited ({jd.contract_kind}): `{jd.decided_against.content_id}`")
    if graded_rows := scored.verdict_rows():
        responsive_table(graded_rows, "scored_verdict_table")


def downloads(contract) -> None:
    """The thresholds in force, the draft contract they make and the reports decided under them."""
    d1, d2 = st.columns(2)
    d1.download_button("Download thresholds (JSON)", state.thresholds_json(), file_name="agreebound-thresholds.json",
                       mime="application/json", key=K.DL_THRESHOLDS)
    d2.download_button("Download the draft contract (JSON)", state.draft_contract_json(contract),
                       file_name="agreebound-draft-contract.json", mime="application/json", key=K.DL_CONTRACT)
    st.markdown("**Reports under these thresholds**")
    reports.report_downloads("panel")
    reports.report_downloads("judge")


def sweep(decisions: dict, bundle, jd) -> None:
    """The verdict of one gate as its threshold moves over its range."""
    swept = {f"{dim}: {g.label}": g for dim, (m, d) in decisions.items() for g in panel_gates(dim, m, d)[1:]}
    swept.update({f"judge: {g.label}": g for g in gates.judge_gate_list(bundle, jd)})
    swept.update(scored.sweep_gates())
    # No chart until a gate is picked: redrawing a chart on every slider move would delay the strip.
    pick = st.selectbox("Gate", list(swept), key=K.SWEEP_GATE, index=None, placeholder="choose a gate to sweep...",
                        format_func=lambda k: printable(k, 80),
                        help="The verdict of one gate as its threshold moves over its range: how far it is from flipping.")
    if pick is not None:
        g = swept[pick]
        st.plotly_chart(memo.figure(gate_figures.threshold_sweep, g, dark=gates.dark()), width="stretch", key=K.SWEEP_CHART,
                        config=gates.PLOT_CONFIG)
        st.caption(f"{md(pick, 80)}: " + ("the gate has no measured value (" + (g.state or "") + ")"
                   if g.value is None else f"measured {g.fmt(g.value)}; the verdict flips when the threshold "
                   f"crosses {g.fmt(g.flip_at) if g.flip_at is not None else 'it'}. In force: {g.fmt(g.threshold)}."))


@st.fragment
def editors_and_strip() -> None:
    decisions = loading.panel_decisions()
    bundle, jd = loading.judge_decision()
    contract = bundle.contract
    bound = loading.decided_as_bound(bundle)
    sidebar.threshold_banner()  # here, not in the frame: a slider move reruns only this fragment
    rows = whatif_strip.strip_rows(decisions)  # once per rerun: the strip, the brief and the table share it
    items = whatif_strip.strip_items(rows, bundle, jd, bound)
    whatif_strip.brief(items)
    left, right = st.columns([2, 3])
    with left:
        whatif_strip.strip(items)
    with right:
        threshold_groups(decisions, contract, jd)

    # The same verdicts as tables, drawn only while open: the strip beside the sliders says them first.
    section_when_open(f"{whatif_strip.TABLES}: edited thresholds beside the defaults", K.WHATIF_TABLES,
                      lambda: verdict_tables(rows, bundle, jd, bound))
    if bundle.slices is not None:  # the judge's slices (template, turn, category): which change status here
        flipped = judge_slices.whatif_rows(bundle)
        if flipped:
            st.markdown(f"**Judge slices whose status changes under these thresholds ({len(flipped)}):**")
            responsive_table(flipped, "slices_whatif_table")
        else:
            st.caption("Judge slices: no slice of the judge's data changes status under these thresholds "
                       "(Holm's control; the Judge page's By slice shows them all).")

    section_when_open("Threshold sweep: how far one gate is from flipping", K.SWEEP,
                      lambda: sweep(decisions, bundle, jd))

    # Downloads live in the fragment: built from the thresholds in force after its last rerun.
    section_when_open("Downloads under these thresholds: thresholds, draft contract, reports", K.WHATIF_DOWNLOADS,
                      lambda: downloads(contract))
    run_links.sync_url()  # a fragment rerun does not reach the app's end, where the URL is synced


def level_switches() -> None:
    """The suggested level, one click away, where it differs from the level in force (a level
    changes alpha, so it is a measurement, outside the sliders' fragment)."""
    offered: dict[str, object] = {}
    for m, _ in loading.panel_decisions().values():
        if m.level_suggestion[0] != m.level:
            offered.setdefault(m.level_suggestion[0], m)
    for level, m in offered.items():
        st.button(f"{panel_view.level_question(m)} Read as {level}?", key=K.WHATIF_LEVEL.format(level),
                  on_click=session.switch_level, args=(level,), help=f"Suggested: {m.level_suggestion[1]}")


level_switches()
editors_and_strip()


def on_threshold_file() -> None:
    if (u := loading.uploaded(K.THRESHOLDS_UPLOAD)) is not None:
        state.remember_error("thresholds", state.load_preset_file(u))


# Outside the fragment: a file's presets reach the sidebar's picker too (a whole-page rerun).
section_when_open("Load thresholds from a file (JSON/TOML, with presets)", K.WHATIF_LOAD, lambda: st.file_uploader(
    "Thresholds file (JSON/TOML, with presets)", type=["json", "toml"], key=K.THRESHOLDS_UPLOAD,
    on_change=on_threshold_file))
show_error("thresholds", "(the thresholds in force are unchanged)")
