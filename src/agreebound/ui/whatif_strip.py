"""The What-if page's verdict strip: what changed from the defaults first, each changed line marked
(a sign and the words "changed" or "flipped", never colour alone), then one line counting what did
not change, with the list in an expander; on phones a brief of what changed (CSS shows one or the
other). Every verdict here is the one ``decide`` returned (this module compares verdicts and gate
results with each other, never a number with a threshold). The rows are decided once per rerun of
the page's fragment; nothing here measures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.core.gate import SEVERITY
from agreebound.core.limits import DETAIL_DIMENSIONS
from agreebound.judge.decision import CalibrationDecision
from agreebound.render.gates import panel_gates
from agreebound.ui import bias, memo, scored
from agreebound.ui.blocks import md
from agreebound.ui.gates import judge_gate_list
from agreebound.ui.loading import decided_under_defaults

#: The sign of a line that changed from the defaults (always beside words: "changed", "flipped"),
#: in orange where the strip draws it (colour beside the sign and the words, never alone).
MARK = "⇄"
SIGN = f":orange[**{MARK}**]"
#: The strip's container, its expanders of further changes and of unchanged lines (CSS classes st-key-...).
STRIP_KEY, MORE_KEY, UNCHANGED_KEY = "whatif_strip", "whatif_more_changed", "whatif_unchanged"
#: The changed verdicts the strip shows in full; more go into an expander (the strip stays short).
SHOWN_CHANGED = 3
#: The page's section of every verdict as a table (drawn when opened), as the strip points to it.
TABLES = "Verdicts as tables"
LISTED = f'"{TABLES}" below lists'


def strip_rows(decisions: dict[str, Any]) -> list[dict[str, Any]]:
    """Each dimension decided now and under the defaults, its gates and the ones that flipped: the
    strip, the brief and the page's table share these (computed once per rerun)."""
    rows = []
    for dim, (m, d) in decisions.items():
        base = decided_under_defaults(m)  # decided once per measurement (ui.memo), as are its gates
        now_g = panel_gates(dim, m, d)
        base_g = memo.once("default gates", base, _gates_of(dim, m), dim)
        flipped = [g for g, b in zip(now_g, base_g) if g.passed != b.passed]
        rows.append({"dim": dim, "m": m, "now": d, "base": base, "gates": now_g, "base_gates": base_g,
                     "flipped": flipped})
    return rows


def _gates_of(dim: str, m: Any) -> Any:
    """The gates of ``dim`` (measured as ``m``) as a decision of it decided them."""
    return lambda d: panel_gates(dim, m, d)


def plan_line(g: Any) -> str:
    """A fragile gate's plan under its line: how many more cases (units) would decide it."""
    return f"  \n*fragile: {md(g.plan_sentence, 300)}*" if g.plan_sentence else ""


@dataclass(frozen=True)
class GateLine:
    """A gate under the thresholds in force beside the same gate under the defaults."""

    label: str  # Markdown, lower case: "alpha (nominal)", "self-preference"
    text: str  # Markdown: "<margin>: <status>"
    status: str  # now: "passes", "fails", ...
    was: str  # under the defaults
    flipped: bool
    plan: str = ""  # Markdown: a fragile gate's plan, on a line of its own (plan_line)


@dataclass(frozen=True)
class Item:
    """A verdict of the strip (a panel dimension, the judge, the graded judge) and its gates."""

    name: str  # Markdown, bold
    head: str  # Markdown: the verdict line, beside the defaults'
    now: str
    was: str
    gates: tuple[GateLine, ...]
    info: tuple[str, ...] = ()  # Markdown: information beside the verdict (not gates)
    flip_words: str = "flipped: the {label} gate now {status}"  # a flipped gate in the change line
    dimension: bool = False  # a panel dimension (a panel may have hundreds: the strip lists the first)

    @property
    def changed(self) -> bool:
        return self.now != self.was

    @property
    def flipped(self) -> tuple[GateLine, ...]:
        return tuple(g for g in self.gates if g.flipped)

    @property
    def moved(self) -> bool:
        """The verdict changed or a gate flipped: shown first, marked."""
        return self.changed or bool(self.flipped)

    @property
    def lines(self) -> int:
        """The verdicts this item counts: its own and each gate's."""
        return 1 + len(self.gates)

    @property
    def moved_lines(self) -> int:
        return int(self.changed) + len(self.flipped)


def _gate_line(g: Any, b: Any, judge: str = "") -> GateLine:
    """``judge``: the graded judge's name (Markdown), before its gates' labels and margins."""
    prefix = f"{judge}: " if judge else ""
    return GateLine((f"{judge} " if judge else "") + md(g.label.lower(), 80), f"{prefix}{md(g.margin, 160)}: {g.status}",
                    g.status, b.status, g.passed != b.passed, plan_line(g))


def panel_item(r: dict[str, Any]) -> Item:
    m, now, base = r["m"], r["now"], r["base"]
    name = f"**{md(r['dim'], 60)}**"
    head = f"{name}: {now.verdict.value} at {m.level}"
    if now.depends_on_level:
        head += " (*depends on the level*)"
    changed = now.verdict != base.verdict
    head += f" (was {base.verdict.value} under the defaults)" if changed else " (same as the defaults)"
    gates = tuple(_gate_line(g, b) for g, b in zip(r["gates"][1:], r["base_gates"][1:]))
    return Item(name, head, now.verdict.value, base.verdict.value, gates, dimension=True)


def judge_item(bundle: JudgeBundle, jd: CalibrationDecision, bound: CalibrationDecision) -> Item:
    own = "the bound contract" if bound.contract_given else "the illustrative limits (no contract)"
    changed = jd.decision != bound.decision
    head = "**judge**: " + jd.decision + (f" (was {bound.decision} under {own})" if changed else f" (same as under {own})")
    gates = tuple(_gate_line(g, b) for g, b in zip(judge_gate_list(bundle, jd), judge_gate_list(bundle, bound)))
    # the net measures the contract does not gate on (information), and the verdict's reading
    return Item("**judge**", head, jd.decision, bound.decision, gates, tuple(bias.strip_lines(bundle, jd)))


def graded_item() -> Item | None:
    """The graded or pass/fail judge held, if any: its decision beside the defaults' and each
    judge's gates (its first judges, as the graded judge's other lists)."""
    if scored.loaded() is None:
        return None
    m, d = scored.decision()
    base = scored.decided_under_defaults(m)
    head = f"**graded judge** ({md(scored.kind_short(m), 60)}): {d.decision}" + (
        f" (was {base.decision} under the defaults)" if d.decision != base.decision else " (same as under the defaults)")
    gates = []
    for j in m.input.judges[:DETAIL_DIMENSIONS]:
        a = m.agreement(j)
        for g, b in zip(scored.gate_views(j, d, a), scored.gate_views(j, base, a)):
            gates.append(_gate_line(g, b, judge=md(j, 40)))
    return Item("**graded judge**", head, d.decision, base.decision, tuple(gates),
                flip_words="flipped: {label} now {status}")


def strip_items(rows: list[dict[str, Any]], bundle: JudgeBundle, jd: CalibrationDecision,
                bound: CalibrationDecision) -> list[Item]:
    """Every verdict the strip shows, in the page's order (the panel's dimensions, the judge, the
    graded judge)."""
    items = [panel_item(r) for r in rows] + [judge_item(bundle, jd, bound)]
    if (graded := graded_item()) is not None:
        items.append(graded)
    return items


def changed_block(item: Item) -> str:
    """Markdown: a changed item's verdict line, the marked line of what changed ("changed: A ->
    B", the gates that flipped), and each flipped gate's margin, marked."""
    what = [f"changed: {item.was} → {item.now}"] if item.changed else []
    what += [item.flip_words.format(label=g.label, status=g.status) for g in item.flipped]
    lines = [item.head, f"{SIGN} **" + "; ".join(what) + "**"]
    lines += [f"{SIGN} {g.text} (flipped from {g.was}){g.plan}" for g in item.flipped]
    return "  \n".join(lines)


def unchanged_block(item: Item) -> str:
    """Markdown: what did not change of an item (all of an unchanged one; the other gates of one
    that changed), and its information lines."""
    if not item.moved:
        lines = [item.head] + [g.text + g.plan for g in item.gates]
    else:
        same = [g.text + g.plan for g in item.gates if not g.flipped]
        lines = [f"{item.name} (changed, above), its other gates:"] + same if same else []
    return "  \n".join(lines + list(item.info))


def order(items: list[Item]) -> list[Item]:
    """What changed first: changed verdicts before gates that flipped alone, the worst verdict first."""
    return sorted((i for i in items if i.moved), key=lambda i: (not i.changed, SEVERITY.get(i.now, 1)))


def counts(items: list[Item]) -> tuple[int, int]:
    """(lines changed, lines unchanged): verdicts and gates."""
    moved = sum(i.moved_lines for i in items)
    return moved, sum(i.lines for i in items) - moved


def strip(items: list[Item]) -> None:
    """The verdicts under the thresholds in force beside the defaults': what changed first, marked;
    what did not, one line (an expander with the list)."""
    moved = order(items)
    n_moved, n_same = counts(items)
    with st.container(border=True, key=STRIP_KEY):
        if moved:
            st.markdown(f"**Verdicts under these thresholds**: {SIGN} {n_moved:,} changed from the defaults "
                        "(verdicts and gates)")
            for item in moved[:SHOWN_CHANGED]:
                st.markdown(changed_block(item))
            if more := moved[SHOWN_CHANGED:]:  # one line more, whatever the count (marked: they changed)
                with st.expander(f"{MARK} {len(more):,} more changed from the defaults", key=MORE_KEY):
                    for item in more[:DETAIL_DIMENSIONS]:
                        st.markdown(changed_block(item))
                    if len(more) > DETAIL_DIMENSIONS:
                        st.markdown(f"and {len(more) - DETAIL_DIMENSIONS:,} more: {LISTED} every verdict")
        else:
            st.markdown("**Verdicts under these thresholds**: as under the defaults")
        # One line, whatever the count; its key keeps it open or closed across slider moves.
        with st.expander(f"{n_same:,} verdicts and gates unchanged from the defaults", key=UNCHANGED_KEY):
            dims = [b for b in (unchanged_block(i) for i in items if i.dimension) if b]
            for b in dims[:DETAIL_DIMENSIONS]:  # the panel's first dimensions, then the judges
                st.markdown(b)
            if len(dims) > DETAIL_DIMENSIONS:
                st.markdown(f"and {len(dims) - DETAIL_DIMENSIONS:,} more dimensions: {LISTED} every verdict")
            for b in (unchanged_block(i) for i in items if not i.dimension):
                if b:
                    st.markdown(b)


def brief(items: list[Item]) -> None:
    """Phones only (CSS): the strip collapsed to the verdicts and gates that changed from the
    defaults, marked, and the count of the rest: a few lines that stay in view above the sliders
    without covering them."""
    lines = []
    for i in order(items):
        lines.append(f"{SIGN} {i.name}: {i.now}" + (f" (was {i.was})" if i.changed else " (unchanged)")
                     + "".join(f"; {g.label} now {g.status}" for g in i.flipped))
    n_same = counts(items)[1]
    with st.container(border=True, key="whatif_brief_narrowview"):
        if lines:
            rest = lines[4:]
            st.markdown(f"**Changed from the defaults** ({n_same:,} verdicts and gates unchanged)  \n"
                        + "  \n".join(lines[:4])
                        + (f"  \nand {len(rest):,} more: {LISTED} every verdict" if rest else ""))
        else:
            st.markdown(f"**Verdicts as under the defaults** ({n_same:,} verdicts and gates): "
                        f"{LISTED} them")
