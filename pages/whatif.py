"""What-if thresholds: sliders edit threshold data; verdicts are re-decided, never re-measured.

The sliders and the verdict strip live in one fragment: a slider move reruns only the fragment
(decide, on cached measurements), and the strip stays in view beside the sliders.
"""

import streamlit as st

from agreebound.render.gates import panel_gates
from agreebound.core.gate import SEVERITY
from agreebound.ui import bias, scored, shell, state, widgets
from agreebound.render import figures

shell.enter(__file__)

S = st.session_state
st.title("What-if thresholds")
st.caption("Move a threshold and every verdict is decided again from the cached measurements. "
           "The link in the address bar carries these thresholds "
           f"({widgets.GLOSSARY_LINK.format('permil, bps, strict, specification (seed)')}).")

# The strip follows the page as it scrolls (static CSS: no user text).
# The strip's wrapper sticks inside its column, which is as tall as the sliders beside it.
st.html("<style>[data-testid='stLayoutWrapper']:has(> .st-key-whatif_strip)"
        "{position:sticky !important;top:3.5rem;z-index:2;align-self:flex-start;}</style>")
# Phones: the columns stack, so the full strip would scroll away above the sliders; it gives way to
# a brief strip of what changed, sticky over the page. Opaque: it inherits the app's own background
# down the chain of its ancestors (each paints the colour already behind it), whatever the theme.
st.html("<style>@media (max-width:640px){"
        "[data-testid='stLayoutWrapper']:has(> .st-key-whatif_strip){display:none !important;}"
        "[data-testid='stApp'] *:has(.st-key-whatif_brief_narrowview){background-color:inherit;}"
        "[data-testid='stLayoutWrapper']:has(> .st-key-whatif_brief_narrowview){position:sticky !important;"
        "top:3.5rem;z-index:3;}}</style>")


def _strip_panel(decisions) -> list[dict]:
    rows = []
    for dim, (m, d) in decisions.items():
        base = widgets.decided_under_defaults(m)
        now_g, base_g = panel_gates(dim, m, d), panel_gates(dim, m, base)
        flipped = [g for g, b in zip(now_g, base_g) if g.passed != b.passed]
        rows.append({"dim": dim, "m": m, "now": d, "base": base, "gates": now_g, "flipped": flipped})
    return rows


def plan_line(g) -> str:
    """A fragile gate's plan under its line: how many more cases (units) would decide it."""
    return f"  \n*fragile: {widgets.md(g.plan_sentence, 300)}*" if g.plan_sentence else ""


def strip(rows, bundle, jd, bound) -> None:
    with st.container(border=True, key="whatif_strip"):
        st.markdown("**Verdicts under these thresholds**")
        if len(rows) > widgets.DETAIL_DIMENSIONS:  # the strip stays short: the worst first, the table lists all
            changed = sum(r["now"].verdict != r["base"].verdict for r in rows)
            st.markdown(f"{len(rows):,} dimensions, {changed:,} changed from the defaults; the "
                        f"{widgets.DETAIL_DIMENSIONS} with the worst verdicts:")
            rows = sorted(rows, key=lambda r: (r["now"].verdict == r["base"].verdict, SEVERITY[r["now"].verdict.value]))
            rows = rows[:widgets.DETAIL_DIMENSIONS]
        for r in rows:
            verdict = r["now"].verdict.value
            changed = r["now"].verdict != r["base"].verdict
            m = r["m"]
            head = f"**{widgets.md(r['dim'], 60)}**: {verdict} at {m.level}"
            if widgets.depends_on_level(m, r["now"].thresholds):
                head += " (*depends on the level*)"
            head += f" (was {r['base'].verdict.value} under the defaults)" if changed else " (same as the defaults)"
            lines = [head]
            for g in r["gates"][1:]:
                lines.append(f"{widgets.md(g.margin, 160)}: {g.status}" + plan_line(g))
            for g in r["flipped"]:
                lines.append(f"flipped: the {g.label} gate now {g.status}")
            st.markdown("  \n".join(lines))
        gates_now = widgets.judge_gate_list(bundle, jd)
        gates_bound = widgets.judge_gate_list(bundle, bound)
        changed = jd.decision != bound.decision
        own = "the bound contract" if bound.contract_given else "the illustrative limits (no contract)"
        lines = [f"**judge**: {jd.decision}" + (f" (was {bound.decision} under {own})" if changed
                                                else f" (same as under {own})")]
        for g, b in zip(gates_now, gates_bound):
            line = f"{widgets.md(g.margin, 160)}: {g.status}"
            if g.passed != b.passed:
                line += f" (flipped from {b.status})"
            lines.append(line + plan_line(g))
        # the net measures the contract does not gate on (information), and the verdict's reading
        lines += bias.strip_lines(bundle, jd)
        st.markdown("  \n".join(lines))
        if graded := scored.strip_lines():  # a graded or pass/fail judge held: its decision and gates
            st.markdown("  \n".join(graded))


def brief(rows, bundle, jd, bound) -> None:
    """Phones only (CSS): the strip collapsed to the verdicts and gates that changed from the
    defaults, a few lines that stay in view above the sliders without covering them."""
    lines = []
    for r in rows:
        changed = r["now"].verdict != r["base"].verdict
        if changed or r["flipped"]:
            lines.append(f"**{widgets.md(r['dim'], 40)}**: {r['now'].verdict.value}"
                         + (f" (was {r['base'].verdict.value})" if changed else " (unchanged)")
                         + "".join(f"; {g.label} now {g.status}" for g in r["flipped"]))
    flipped = [g for g, b in zip(widgets.judge_gate_list(bundle, jd), widgets.judge_gate_list(bundle, bound))
               if g.passed != b.passed]
    if jd.decision != bound.decision or flipped:
        lines.append(f"**judge**: {jd.decision}" + (f" (was {bound.decision})" if jd.decision != bound.decision
                                                     else " (unchanged)")
                     + "".join(f"; {g.label.lower()} now {g.status}" for g in flipped))
    lines += scored.brief_lines()
    with st.container(border=True, key="whatif_brief_narrowview"):
        if lines:
            rest = lines[4:]
            st.markdown("**Changed from the defaults**  \n" + "  \n".join(lines[:4])
                        + (f"  \nand {len(rest):,} more: the table below lists every verdict" if rest else ""))
        else:
            shown = "" if len(rows) > widgets.DETAIL_DIMENSIONS else (
                ": " + ", ".join(f"{widgets.md(r['dim'], 40)} {r['now'].verdict.value}" for r in rows)
                + f"; judge {jd.decision}")
            st.markdown(f"**Verdicts as under the defaults**{shown}")


@st.fragment
def editors_and_strip() -> None:
    decisions = widgets.panel_decisions()
    bundle, jd = widgets.judge_decision()
    contract = bundle.contract
    bound = widgets.decided_as_bound(bundle)
    widgets.threshold_banner()  # here, not in the frame: a slider move reruns only this fragment
    rows = _strip_panel(decisions)  # once per rerun: the strip and the table share it
    brief(rows, bundle, jd, bound)
    left, right = st.columns([2, 3])
    with left:
        strip(rows, bundle, jd, bound)
    with right:
        st.header("Panel")
        widgets.panel_editors(decisions)
        widgets.strict_toggle("panel", contract)
        st.header("Judge contract")
        widgets.calibration_editors(contract, jd)
        widgets.strict_toggle("judge", contract)
        if scored.loaded() is not None:  # the graded judge's two thresholds (ThresholdSet.scored)
            st.header("Graded judge")
            scored.editors()

    st.header("Verdicts: edited thresholds beside the defaults")
    table = []
    for r in rows:
        table.append({"panel dimension": r["dim"], "defaults (0.600 / 2.00x)": r["base"].verdict.value,
                     "edited": r["now"].verdict.value, "changed": "yes" if r["base"].verdict != r["now"].verdict else "",
                     "gate flipped": ", ".join(g.label for g in r["flipped"]),
                     "measured against the threshold in force": "; ".join(g.margin for g in r["gates"][1:])})
    widgets.responsive_table(table, "verdict_table")
    own = "bound contract" if bound.contract_given else "illustrative limits (no contract)"
    widgets.responsive_table([{
        "judge": "decision", own: bound.decision, "edited": jd.decision,
        "changed": "yes" if bound.decision != jd.decision else ""}], "judge_verdict_table")
    st.markdown(f"{own[0].upper() + own[1:]}: `{contract.content_id}`")
    st.markdown(f"Edited ({jd.contract_kind}): `{jd.decided_against.content_id}`")
    if graded_rows := scored.verdict_rows():
        widgets.responsive_table(graded_rows, "scored_verdict_table")

    st.header("Threshold sweep")
    gates = {f"{dim}: {g.label}": g for dim, (m, d) in decisions.items() for g in panel_gates(dim, m, d)[1:]}
    gates.update({f"judge: {g.label}": g for g in widgets.judge_gate_list(bundle, jd)})
    gates.update(scored.sweep_gates())
    # No chart until a gate is picked: redrawing a chart on every slider move would delay the strip.
    pick = st.selectbox("Gate", list(gates), key="sweep_gate", index=None, placeholder="choose a gate to sweep...",
                        format_func=lambda k: widgets.printable(k, 80),
                        help="The verdict of one gate as its threshold moves over its range: how far it is from flipping.")
    if pick is not None:
        g = gates[pick]
        st.plotly_chart(widgets.figure(figures.threshold_sweep, g, dark=widgets.dark()), width="stretch", key="sweep_chart",
                        config=widgets.PLOT_CONFIG)
        st.caption(f"{widgets.md(pick, 80)}: " + ("the gate has no measured value (" + (g.state or "") + ")"
                   if g.value is None else f"measured {g.fmt(g.value)}; the verdict flips when the threshold "
                   f"crosses {g.fmt(g.flip_at) if g.flip_at is not None else 'it'}. In force: {g.fmt(g.threshold)}."))

    # Downloads live in the fragment: built from the thresholds in force after its last rerun.
    d1, d2 = st.columns(2)
    d1.download_button("Download thresholds (JSON)", state.thresholds_json(), file_name="agreebound-thresholds.json",
                       mime="application/json", key="dl_thresholds")
    d2.download_button("Download the draft contract (JSON)", state.draft_contract_json(contract),
                       file_name="agreebound-draft-contract.json", mime="application/json", key="dl_contract")
    st.header("Reports under these thresholds")
    widgets.report_downloads("panel")
    widgets.report_downloads("judge")
    state.sync_url()  # a fragment rerun does not reach the app's end, where the URL is synced


def level_switches() -> None:
    """The suggested level, one click away, where it differs from the level in force (a level
    changes alpha, so it is a measurement, outside the sliders' fragment)."""
    offered: dict[str, object] = {}
    for m, _ in widgets.panel_decisions().values():
        if m.level_suggestion[0] != m.level:
            offered.setdefault(m.level_suggestion[0], m)
    for level, m in offered.items():
        st.button(f"{widgets.level_question(m)} Read as {level}?", key=f"whatif_level_{level}",
                  on_click=widgets.switch_level, args=(level,), help=f"Suggested: {m.level_suggestion[1]}")


level_switches()
editors_and_strip()

b1, b2, b3 = st.columns(3)
b1.button("Reset to defaults", on_click=state.reset_defaults, key="reset_defaults")
b2.button("Reset judge thresholds to the contract's own", on_click=state.reset_to_contract, key="reset_contract")


def on_threshold_file() -> None:
    if (u := widgets.uploaded("thresholds_upload")) is not None:
        state.remember_error("thresholds", state.load_preset_file(u))


with b3:
    st.file_uploader("Thresholds file (JSON/TOML, with presets)", type=["json", "toml"], key="thresholds_upload",
                     on_change=on_threshold_file)
widgets.show_error("thresholds", "(the thresholds in force are unchanged)")

