"""The What-if page's verdict strip: every verdict decided under the thresholds in force beside the
defaults', each gate's margin and what flipped; on phones a brief of what changed (CSS shows one
or the other). The rows are decided once per rerun of the page's fragment."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.core.gate import SEVERITY
from agreebound.core.limits import DETAIL_DIMENSIONS
from agreebound.judge.decision import CalibrationDecision
from agreebound.render.gates import panel_gates
from agreebound.ui import bias, scored
from agreebound.ui.blocks import md
from agreebound.ui.gates import judge_gate_list
from agreebound.ui.loading import decided_under_defaults


def strip_rows(decisions: dict[str, Any]) -> list[dict[str, Any]]:
    """Each dimension decided now and under the defaults, its gates and the ones that flipped: the
    strip, the brief and the page's table share these (computed once per rerun)."""
    rows = []
    for dim, (m, d) in decisions.items():
        base = decided_under_defaults(m)
        now_g, base_g = panel_gates(dim, m, d), panel_gates(dim, m, base)
        flipped = [g for g, b in zip(now_g, base_g) if g.passed != b.passed]
        rows.append({"dim": dim, "m": m, "now": d, "base": base, "gates": now_g, "flipped": flipped})
    return rows


def plan_line(g: Any) -> str:
    """A fragile gate's plan under its line: how many more cases (units) would decide it."""
    return f"  \n*fragile: {md(g.plan_sentence, 300)}*" if g.plan_sentence else ""


def strip(rows: list[dict[str, Any]], bundle: JudgeBundle, jd: CalibrationDecision,
          bound: CalibrationDecision) -> None:
    """The verdicts under the thresholds in force beside the defaults', every gate's margin, what flipped."""
    with st.container(border=True, key="whatif_strip"):
        st.markdown("**Verdicts under these thresholds**")
        if len(rows) > DETAIL_DIMENSIONS:  # the strip stays short: the worst first, the table lists all
            changed = sum(r["now"].verdict != r["base"].verdict for r in rows)
            st.markdown(f"{len(rows):,} dimensions, {changed:,} changed from the defaults; the "
                        f"{DETAIL_DIMENSIONS} with the worst verdicts:")
            rows = sorted(rows, key=lambda r: (r["now"].verdict == r["base"].verdict, SEVERITY[r["now"].verdict.value]))
            rows = rows[:DETAIL_DIMENSIONS]
        for r in rows:
            verdict = r["now"].verdict.value
            changed = r["now"].verdict != r["base"].verdict
            m = r["m"]
            head = f"**{md(r['dim'], 60)}**: {verdict} at {m.level}"
            if r["now"].depends_on_level:
                head += " (*depends on the level*)"
            head += f" (was {r['base'].verdict.value} under the defaults)" if changed else " (same as the defaults)"
            lines = [head]
            for g in r["gates"][1:]:
                lines.append(f"{md(g.margin, 160)}: {g.status}" + plan_line(g))
            for g in r["flipped"]:
                lines.append(f"flipped: the {g.label} gate now {g.status}")
            st.markdown("  \n".join(lines))
        gates_now = judge_gate_list(bundle, jd)
        gates_bound = judge_gate_list(bundle, bound)
        changed = jd.decision != bound.decision
        own = "the bound contract" if bound.contract_given else "the illustrative limits (no contract)"
        lines = [f"**judge**: {jd.decision}" + (f" (was {bound.decision} under {own})" if changed
                                                else f" (same as under {own})")]
        for g, b in zip(gates_now, gates_bound):
            line = f"{md(g.margin, 160)}: {g.status}"
            if g.passed != b.passed:
                line += f" (flipped from {b.status})"
            lines.append(line + plan_line(g))
        # the net measures the contract does not gate on (information), and the verdict's reading
        lines += bias.strip_lines(bundle, jd)
        st.markdown("  \n".join(lines))
        if graded := scored.strip_lines():  # a graded or pass/fail judge held: its decision and gates
            st.markdown("  \n".join(graded))


def brief(rows: list[dict[str, Any]], bundle: JudgeBundle, jd: CalibrationDecision,
          bound: CalibrationDecision) -> None:
    """Phones only (CSS): the strip collapsed to the verdicts and gates that changed from the
    defaults, a few lines that stay in view above the sliders without covering them."""
    lines = []
    for r in rows:
        changed = r["now"].verdict != r["base"].verdict
        if changed or r["flipped"]:
            lines.append(f"**{md(r['dim'], 40)}**: {r['now'].verdict.value}"
                         + (f" (was {r['base'].verdict.value})" if changed else " (unchanged)")
                         + "".join(f"; {g.label} now {g.status}" for g in r["flipped"]))
    flipped = [g for g, b in zip(judge_gate_list(bundle, jd), judge_gate_list(bundle, bound))
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
            shown = "" if len(rows) > DETAIL_DIMENSIONS else (
                ": " + ", ".join(f"{md(r['dim'], 40)} {r['now'].verdict.value}" for r in rows)
                + f"; judge {jd.decision}")
            st.markdown(f"**Verdicts as under the defaults**{shown}")
