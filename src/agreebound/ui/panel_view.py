"""The panel as the Panel and Overview pages show it: the verdict banner and its reasons, alpha
and the spread in words and numbers (with their intervals), the level table and its one-click
switch, the detectors' rates, the diagnostics and the other coefficients. The pages lay these out;
every number they show is formatted here."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import pandas as pd
import streamlit as st

from agreebound.core.gate import SEVERITY
# How much a page draws (re-exported for the pages, which import nothing below ui and render):
from agreebound.core.limits import COINCIDENCE_MAX_CATEGORIES, DETAIL_DIMENSIONS, DIAGNOSTIC_RATERS  # noqa: F401
from agreebound.core.escape import printable
from agreebound.panel.decision import PanelDecision
from agreebound.panel.levels import LEVEL_ORIGIN_WORDS, in_raters_words, panel_noun
from agreebound.panel.levels import level_question as data_level_question
from agreebound.panel.measure import PanelMeasurement
from agreebound.panel.seed import AB_RATIO_UNBOUNDED, AB_UNDEFINED
from agreebound.render.figure_style import exact_text, fraction_text
from agreebound.render.report import unpairable_text
from agreebound.ui import memo
from agreebound.ui.blocks import as_tab_left, md, more, safe_frame, text_table
from agreebound.ui.data import Loaded
from agreebound.ui.gates import PLOT_CONFIG, dark
from agreebound.ui.state import K, session

if TYPE_CHECKING:
    from agreebound.app.recipes import PanelRecipe

#: Each verdict's plain words ("{noun}": the panel's raters, "rater" or "detector": levels.rater_noun).
VERDICT_WORDS = {"ENFORCE": "reliable enough to act on", "REPORT_ONLY": "measure and publish, do not auto-enforce",
                 "REFUSE_SINGLE": "fewer than two independent {noun}s"}
#: The same in two words, beside a token in a line or a cell.
SHORT_WORDS = {"ENFORCE": "may be enforced", "REPORT_ONLY": "report only", "REFUSE_SINGLE": "refused"}


def verdict_words(verdict: str, noun: str = "detector") -> str:
    """A verdict's plain words, said of the panel's raters.

    >>> verdict_words("REFUSE_SINGLE", "rater")
    'fewer than two independent raters'
    """
    return VERDICT_WORDS[verdict].format(noun=noun)


def token_with_words(verdict: str) -> str:
    """The seed's token with its plain words beside it.

    >>> token_with_words("REPORT_ONLY")
    'REPORT_ONLY (report only)'
    """
    return f"{verdict} ({SHORT_WORDS[verdict]})"


def verdicts_line(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> str:
    """Markdown: each dimension's verdict with its plain words, for the line under the headline."""
    return " · ".join(f"{md(dim, 40)}: {token_with_words(d.verdict.value)}" for dim, (_, d) in decisions.items())


def raters_column(measurements: list[PanelMeasurement]) -> str:
    """A table's column of independent raters: "raters", "detectors", or "independent raters" for a mix."""
    nouns = {panel_noun(m) for m in measurements}
    return f"{nouns.pop()}s" if len(nouns) == 1 else "independent raters"



def worst_first(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> list[str]:
    return sorted(decisions, key=lambda k: SEVERITY[decisions[k][1].verdict.value])


def dimension_table(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> pd.DataFrame:
    """One row per dimension: the verdict and the numbers behind it (for many dimensions)."""
    raters = raters_column([m for m, _ in decisions.values()])
    return pd.DataFrame([{"dimension": dim, "verdict": d.verdict.value,
                          "alpha": None if m.alpha.value is None else round(float(m.alpha.value), 4),
                          "spread": "not measured" if not m.rates else ("unbounded" if d.spread is None
                                                                        else f"{float(d.spread):.2f}x"),
                          raters: m.ndet, "units": m.n_units}
                         for dim, (m, d) in decisions.items()])


def seed_text(m: PanelMeasurement, d: PanelDecision) -> str:
    """Markdown, for "Exact values": what the specification's integer formula computes on this
    matrix (the seed's permil integers) and the verdict it would reach."""
    seed_alpha = "undefined" if d.seed_alpha_permil == AB_UNDEFINED else f"{d.seed_alpha_permil} permil"
    spread = "unbounded" if d.seed_ratio_permil == AB_RATIO_UNBOUNDED else f"{d.seed_ratio_permil} permil"
    empty = " (it counts an empty panel's spread as 1000 permil)" if not m.rates else ""
    said = (f"[The specification's integer formula](/help#the-specification): its nominal integer alpha on this "
            f"matrix is {seed_alpha} (it counts the values of units with one rating and rounds up), its spread is "
            f"{spread}{empty}. ")
    if d.seed_disagrees:
        return said + (f"It would decide {token_with_words(d.seed_verdict.value)}; Agreebound decides "
                       f"{token_with_words(d.verdict.value)} on the exact values.")
    return said + f"It reaches the same verdict, {token_with_words(d.seed_verdict.value)}."


def alpha_text(m: PanelMeasurement) -> str:
    a = m.alpha
    if a.value is None:
        return "undefined (no pairable values or no variation)"
    return f"{fraction_text(a.value)} = {exact_text(a.value)} ({a.permil} permil)"


def alpha_ci_text(m: PanelMeasurement, d: PanelDecision) -> str:
    b = m.alpha_boot
    if not b.defined:
        return f"no interval ({b.note})" if b.note and m.alpha.value is not None else "no interval (alpha undefined)"
    q = b.q_below(d.thresholds.alpha_floor)
    how = (f"pairs bootstrap (KALPHA), {b.draws:,} draws of {b.pairs:,} pairs: narrower than 95% when units have "
           "3+ ratings" if b.method == "pairs" else f"units bootstrap, {b.draws:,} draws")
    note = f"; {b.note}" if b.note else ""
    return (f"95% interval [{b.low:.4f}, {b.high:.4f}] ({how}, seed {b.seed}{note}); "
            f"q = P(alpha < floor) = {q:.3f}")


def spread_ci_text(m: PanelMeasurement) -> str:
    if not m.rates:
        return "no interval (no rates)"
    low, high = m.spread_bracket
    return f"95% bracket [{low:.3f}x, {'unbounded' if high is None else f'{high:.3f}x'}] from the Wilson intervals"


def spread_text(d: PanelDecision, m: PanelMeasurement) -> str:
    """Markdown; the rates' source can name a user's category, so it is escaped."""
    if not m.rates:
        return "not measured (" + md(in_raters_words(m.rates_source.removeprefix("none: "), panel_noun(m))) + ")"
    if d.spread is None:
        return "unbounded (a detector found nothing where another found something)"
    return f"{float(d.spread):.3f}x = {exact_text(d.spread)}"


def level_table(m: PanelMeasurement, d: PanelDecision, key: str) -> None:
    """The level in force, who chose it and why; the suggested level as a one-click switch; alpha
    and the verdict at every admissible level: the level is never silent."""
    suggested, why = m.level_suggestion
    origin, chosen_why = m.level_origin
    # the rule's own sentences (numbers, no user text): not escaped, so they read as written
    st.markdown(f"Level in force: **{m.level}** ({LEVEL_ORIGIN_WORDS[origin]}: {chosen_why}).")
    if suggested != m.level and suggested == "ordinal" and m.kind == "label" and not m.alpha.category_set.ordered:
        from agreebound.ui import panel_order  # labels that look ordered: read in that order (the notes show it)

        st.button(f"{level_question(m)} Read as ordinal in the order shown below?", key=K.LEVEL_SWITCH.format(key),
                  on_click=panel_order.apply_inferred, args=(m.dimension, panel_order.order_shown(m)),
                  help=f"Suggested: {why}. The order box below holds the order; edit it there if it is wrong.")
    elif suggested != m.level:
        st.button(f"{level_question(m)} Read as {suggested}?", key=K.LEVEL_SWITCH.format(key), on_click=session.switch_level,
                  args=(suggested,), help=f"Suggested: {why}. The level is yours to choose; the verdict names it.")
    if len(m.alpha_at_levels) > 1:
        verdicts = d.at_levels
        rows = [{"level": lv + (" (in force)" if lv == m.level else ""),
                 "alpha": "undefined" if a is None else f"{float(a):.4f}",
                 "verdict": token_with_words(verdicts[lv].value) if lv in verdicts
                 else "not compared (ratio needs a true zero)"}
                for lv, a in m.alpha_at_levels.items()]
        text_table(pd.DataFrame(rows), width="content")  # four short columns: whole on a phone too


def level_question(m: PanelMeasurement) -> str:
    """The one-click switch's question for a measured panel (levels.level_question)."""
    n = m.alpha.n_categories if m.kind == "integer" and m.alpha.n_categories <= 20 else 0
    return data_level_question(m.level_suggestion[0], m.kind, m.alpha.category_set.first(n) if n else ())


def coefficients_section(pc: Any, m: Any, d: Any, dim: str) -> None:
    """The Panel page's "Other coefficients": why they differ from alpha (in words, from the data),
    the coefficients with their intervals, each pair of raters, one pair's confusion matrix and the
    categories raters fight over. They do not decide: the verdict above is alpha's and the spread's."""
    from agreebound.render import figures

    co = pc.coefficients
    st.caption("Reviewers from ReCal, irrCAC or R's irr ask for these. They are shown beside alpha and do not "
               "decide: the verdict above is alpha's and the spread's, as the contract defines.")
    for sentence in pc.explained(d.thresholds.alpha_floor_permil):
        st.markdown("- " + md(sentence, 1000))
    if co is None:
        return
    from agreebound.render.report import coefficient_rows, coefficients_section

    rows = coefficient_rows(coefficients_section(pc))  # the reports' rows: one wording everywhere
    frame = pd.DataFrame(rows, columns=["coefficient", "value", "exact", "95% interval", "agreement", "chance"])
    st.dataframe(safe_frame(frame), hide_index=True, width="stretch")
    st.caption("Intervals: Gwet's variance, conditional on these raters, t with n - 1 degrees of freedom, as irrCAC "
               "computes them. Weighted rows use the categories' values (or ranks for labels).")
    if not co.pairs and len(co.raters) > 2:
        from agreebound.panel.coefficients import PAIR_RATERS

        st.caption(f"Each pair of raters is shown for at most {PAIR_RATERS} raters; this panel has {len(co.raters):,}.")
    if co.pairs:
        left, right = st.columns(2)
        with left:
            st.plotly_chart(memo.figure(figures.pair_heatmap, co, dark=dark()), width="stretch", key=K.PAIRS_CHART.format(dim),
                            config=PLOT_CONFIG)
        with right:
            labels = [f"{printable(p.a, 40)} / {printable(p.b, 40)}" for p in co.pairs]
            humans = set(m.humans)
            first = next((i for i, p in enumerate(co.pairs) if (p.a in humans) != (p.b in humans)), 0)
            as_tab_left(K.PAIR_PICK.format(dim), first, range(len(labels)))
            pick = st.selectbox("Confusion matrix of the pair" + (" (a detector against a person first)" if humans else ""),
                                range(len(labels)),
                                format_func=lambda i: labels[i], key=K.PAIR_PICK.format(dim))
            session.remember_tab_view(K.PAIR_PICK.format(dim), pick)
            st.plotly_chart(memo.figure(figures.confusion_heatmap, co.pairs[pick], tuple(pc.texts), dark=dark()),
                            width="stretch", key=K.CONFUSION_CHART.format(dim), config=PLOT_CONFIG)
    cats = [{"category": t, "share of values": f"{float(s):.1%}",
             "specific agreement": "" if a is None else f"{float(a):.3f}"}
            for t, s, a in zip(pc.texts, co.shares, co.specific)]
    st.markdown("**Per category**: its share of the values, and when one rater chooses it, how often a second "
                "rater of the same unit does too")
    st.dataframe(safe_frame(pd.DataFrame(cats)), hide_index=True, height=min(320, 40 + 35 * len(cats)))


# --- the pages' numbers, formatted -------------------------------------------------------------


def loaded_caption(m: PanelMeasurement, loaded: Loaded[PanelRecipe], read: str) -> str:
    """What is loaded (Markdown): the file and the rows read, its units and raters, the rates' source."""
    shown = ", ".join(md(r, 60) for r in m.raters[:12]) + more(m.raters, 12)
    noun = panel_noun(m)
    people = f"; human raters: {', '.join(md(h, 60) for h in m.humans[:12]) or 'none'}" if noun == "detector" else ""
    rates = f" Rates: {md(m.rates_source)}." if m.rates else ""  # none: the spread's own line says so
    return (f"Loaded: {md(loaded.label)}{' (' + md(read) + ')' if read else ''}. "
            f"{m.n_units:,} units; {len(m.raters):,} raters: {shown}{people}.{rates}"
            + (f" {left_out[0].upper()}{left_out[1:]}." if (left_out := unpairable_text(m.n_units, m.alpha.units)) else ""))


def dimension_pick_label(decisions: dict[str, Any]) -> str:
    return f"Dimension ({len(decisions):,}, worst verdicts first)"


def many_dimensions_line(decisions: dict[str, Any]) -> str:
    """The Overview's line above the table of many dimensions."""
    return (f"{len(decisions):,} dimensions; the {DETAIL_DIMENSIONS} with the worst verdicts are shown below, the "
            "table lists all.")


def alpha_metric(m: PanelMeasurement) -> str:
    """alpha as the headline metric shows it (three decimals)."""
    return "undefined" if m.alpha.value is None else f"{float(m.alpha.value):.3f}"


def spread_metric(m: PanelMeasurement, d: PanelDecision) -> str:
    """The spread as the headline metric shows it (two decimals and an x)."""
    return "unbounded" if (m.rates and d.spread is None) else (
        "not measured" if not m.rates else f"{float(cast(Fraction, d.spread)):.2f}x")  # bounded here


def coincidence_note(m: PanelMeasurement) -> str:
    """Why the coincidence matrix is not drawn: too many distinct values."""
    return (f"The coincidence matrix is drawn for at most {COINCIDENCE_MAX_CATEGORIES} distinct "
            f"values; this dimension has {m.alpha.n_categories:,}.")


def rate_rows(m: PanelMeasurement) -> pd.DataFrame:
    """Each detector's (rater's) positives, rate and Wilson interval (percent, two decimals)."""
    return pd.DataFrame([{panel_noun(m): r.detector, "positives / rated": f"{r.positives}/{r.total}",
                          "rate": f"{float(r.rate):.2%}",
                          "Wilson 95%": f"[{w.low:.2%}, {w.high:.2%}]"}
                         for r, w in zip(m.rates, m.wilson)])


def exact_numbers(m: PanelMeasurement, d: PanelDecision) -> str:
    """The Panel page's "Exact numbers": alpha and its disagreements as fractions, the seed's integers."""
    return (f"alpha      = {exact_text(m.alpha.value)}\n"
            f"D_o        = {exact_text(m.alpha.observed_disagreement)}\n"
            f"D_e        = {exact_text(m.alpha.expected_disagreement)}\n"
            f"seed alpha = {d.seed_alpha_permil} permil (the seed's nominal integer formula on this matrix)\n"
            f"seed ratio = {d.seed_ratio_permil} permil\n"
            f"rates      = " + ", ".join(f"{r.detector} {r.positives}/{r.total}" for r in m.rates))


def exact_rows(decisions: dict[str, tuple[PanelMeasurement, PanelDecision]]) -> list[dict[str, str]]:
    """The Overview's "Exact values" of the panel: alpha and the spread, exact and in the seed's units."""
    rows = []
    for dim, (m, d) in decisions.items():
        rows.append({"what": f"{dim}: alpha", "exact": exact_text(m.alpha.value),
                     "seed units": "undefined" if m.alpha.permil is None else f"{m.alpha.permil} permil"})
        rows.append({"what": f"{dim}: spread", "exact": "not measured" if not m.rates else
                     ("unbounded" if d.spread is None else exact_text(d.spread)),
                     "seed units": f"{d.seed_ratio_permil} permil" if m.rates else ""})
    return rows


def diagnostics_section(dim: str, m: PanelMeasurement) -> None:
    """Which rater, which units (drawn when its expander is opened): in memory at once; a data
    folder's with DuckDB, on request."""
    from agreebound.render import figure_style
    from agreebound.ui.data import data_digest, folder_diagnostics, panel_diagnostics

    recipe = session.panel_source.recipe
    src = recipe.ratings[0]
    diag = None
    if src.data is None:  # opened from the data folder: DuckDB, one pass per rater, on request
        asked = (data_digest(recipe), m.level, dim)
        if asked in session.folder_diagnostics:
            diag = folder_diagnostics(asked[0], recipe, m.level, dim)
        else:
            st.button("Compute with DuckDB (one pass over the data per rater)", key=K.FOLDER_DIAGNOSE.format(dim),
                      on_click=session.ask_folder_diagnostics, args=(asked,))
    else:
        # a loaded panel's mapping is a Mapping's JSON, or none (ui.data.imported_of)
        diag = panel_diagnostics(src.name, src.digest, src.data, m.level, dim, cast("str | None", recipe.mapping))
    if diag is None:
        return
    if diag.capped:
        st.caption(f"Per-rater diagnostics run one alpha per rater and are shown for at most "
                   f"{DIAGNOSTIC_RATERS} raters; this panel has {len(m.raters):,}.")
    else:
        st.markdown("**Alpha with each rater removed** (a rater whose removal raises alpha most is the outlier)")
        st.dataframe(safe_frame(pd.DataFrame([{"without": r, "alpha": figure_style.fraction_text(v)}
                                              for r, v in diag.without_rater.items()])), hide_index=True)
    if diag.versus_human:
        st.markdown("**Each detector against the human column** (alpha of the pair)")
        st.dataframe(safe_frame(pd.DataFrame([{"detector": r, "alpha vs human": figure_style.fraction_text(v)}
                                              for r, v in diag.versus_human.items()])), hide_index=True)
    st.markdown("**Units contributing most disagreement**")
    st.dataframe(safe_frame(diag.top_units), hide_index=True, width="stretch")
