"""The judge as the Judge and Overview pages show it: the decision banner, each gate's rate and
margin in words and numbers, the diagnostics, the counts, the table of gates, the judge against
the human reference, the cases' filters. Every number the pages show of a judge is formatted here;
the gates arrive decided (nothing here compares a number with a threshold)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

import pandas as pd
import streamlit as st

from agreebound.app.judge_input import JudgeBundle
from agreebound.judge.decision import CalibrationDecision, seed_view, unavailable
from agreebound.render.figure_style import fraction_text
from agreebound.render.gates import NET_LABELS, RATE_LABELS, cases_counted
from agreebound.ui.blocks import md, safe_frame
from agreebound.ui.loading import judge_key
from agreebound.ui.provenance import sample_badge
from agreebound.ui.state import session


DECISION_TEXT = {"PASS_CALIBRATION": "PASS_CALIBRATION", "FAIL_CALIBRATION": "FAIL_CALIBRATION",
                 "INCOMPLETE": "INCOMPLETE: a partial audit, never a pass"}


def decision_banner(d: CalibrationDecision, prefix: str = "") -> None:
    """A warning for INCOMPLETE (a partial audit, or no contract: then the reason), never a pass's
    or a fail's colour."""
    sample_badge("judge")
    text = (prefix + " " if prefix else "") + (DECISION_TEXT[d.decision] if d.contract_given
                                               else f"INCOMPLETE: {d.reason} (not decided, never a pass)")
    {"PASS_CALIBRATION": st.success, "INCOMPLETE": st.warning}.get(d.decision, st.error)(text)


NOUNS = {"human_agreement": "agreements", "position_flip": "flips", "repeat_variance": "unstable orders",
         "verbosity_bias": "verbosity errors", "self_preference": "self-preferring picks"}


def margin_text(g: Any) -> str:
    """"2 more flips fail the gate" / "15 fewer flips would pass": a judge gate's margin in cases
    (``g``: an agreebound.core.gate.Gate, its cases to decide as decided)."""
    state_, k = g.cases_to_decide or ("not evaluable", 0)
    noun = NOUNS[g.name]
    if state_ == "not evaluable":
        return "no opportunities"
    if g.kind == "max":
        return f"{k} more {noun} fail the gate" if state_ == "fail" else f"{k} fewer {noun} would pass"
    return f"{k} fewer {noun} fail the gate" if state_ == "fail" else f"{k} more {noun} would pass"


def _interval(iv: Any, scale: float = 100, digits: int = 1) -> str:
    if iv is None or iv.low is None or iv.high is None:  # no interval (kappa's, on too few cases)
        return ""
    return f" [{iv.low * scale:.{digits}f}, {iv.high * scale:.{digits}f}]"


def _agreement_text(rate: Any) -> str:
    """"174/256 = 68.0% [59.7, 75.3]" (an agreebound.judge.agreement.AgreementRate)."""
    if rate.value is None:
        return f"{rate.numerator}/{rate.denominator}: no pairs"
    return f"{rate.numerator}/{rate.denominator} = {float(rate.value):.1%}{_interval(rate.interval)}"


def judge_diagnostics_text(diag: Any, m: Any, ha: Any, agreement: Any = None) -> str:
    """Markdown. A partial audit's diagnostics count only the cases with a human reference;
    ``ha``: the judge-human alpha (agreebound.app.judge_input.JudgeBundle.judge_human_alpha);
    ``agreement``: the judge against individual human votes (JudgeBundle.human_agreement), or None."""
    (a, n), (a_nt, n_nt) = diag.agreement_with_ties, diag.agreement_without_ties
    share = f" = {a_nt / n_nt:.2%}" if n_nt else ""
    flips = (f"- position flips: {diag.stable_flips} with both orders stable (the gated rate), {diag.noisy_flips} "
             "more where repetition noise left the orders' majorities different")
    if "position_flip" in m.unavailable:
        flips = "- position flips: not evaluable, " + md(m.unavailable["position_flip"])
    if "human_agreement" in m.unavailable:
        return "- human agreement: not evaluable, " + md(m.unavailable["human_agreement"]) + "\n" + flips
    lines = [(f"- human agreement with ties {a}/{n} (each judgment against the human reference, the plurality of "
              f"the votes); where the reference is not a tie {a_nt}/{n_nt}{share} (the audit's \"without ties\", "
              "not Zheng et al.'s)")]
    kappa = getattr(diag, "kappa", None)
    if kappa is not None:
        value = "undefined" if kappa.value is None else f"{kappa.value:.3f}{_interval(kappa, 1, 3)}"
        lines.append(f"- Cohen's kappa (reference vs the judge's vote per case): {value} over {kappa.cases} cases")
    if agreement is not None:
        r = agreement.rates
        lines.append(f"- Zheng et al. 2023, every judge-human vote pair: with ties {_agreement_text(r['judge_human_with_ties'])}; "
                     f"without ties (pairs where either side is a tie left out) "
                     f"{_agreement_text(r['judge_human_without_ties'])}")
        lines.append(f"- human-human ceiling (every pair of two votes): with ties "
                     f"{_agreement_text(r['human_human_with_ties'])}; without ties "
                     f"{_agreement_text(r['human_human_without_ties'])}")
        lines += [f"- {md(x, 600)}" for x in agreement.sentences()]
    lines.append(f"- chance-corrected: alpha(human, judge majority per order) = {fraction_text(ha.value)} "
                 f"({ha.pairable} pairable values)")
    return "\n".join(lines) + "\n" + flips


CASE_FILTERS = {
    "all cases": lambda c: c,
    "flipped (position)": lambda c: c[c["flipped"]],
    "unstable repetitions": lambda c: c[c["unstable_ab"] | c["unstable_ba"]],
    "verbosity errors": lambda c: c[c["verbosity_errors"] > 0],
    "self-preference errors": lambda c: c[c["self_errors"] > 0],
}


def filter_cases(cases: Any, choice: str) -> Any:
    return CASE_FILTERS[choice](cases)


def rate_text(d: CalibrationDecision, name: str) -> str:
    """A judge gate's measured rate as decided in ``d``: its raw counts, percent and basis points."""
    if (why := unavailable(d.gate(name))) is not None:
        return "not evaluable: " + why
    rate = d.rate(name)
    if not rate.evaluable:
        return "not evaluable (no opportunities)"
    return f"{rate.numerator}/{rate.denominator} = {float(cast(Fraction, rate.value)) * 100:.2f}% ({rate.bps} bps)"


def net_text(g: Any, interval: bool = True) -> str:
    """An opt-in net gate's measured difference, in points with its interval (``g``: as decided).
    Plain text: a caller that renders Markdown escapes it."""
    if g.exact is None:
        return "not evaluable: " + (g.detail or "not measured")
    text = f"{float(g.exact) * 100:.1f} points"
    if interval and g.low is not None and g.high is not None:
        text += f" [{g.low * 100:.1f}, {g.high * 100:.1f}]"
    return text


def _data_repetitions(bundle: JudgeBundle) -> tuple[int, int] | None:
    """Judgments per case and order in the data: (fewest, most); None when the data does not
    record the order. Cached with the loaded judge (a big table is grouped once, not per rerun)."""
    return _repetitions_of(judge_key(session.judge_source), bundle.observations)


@st.cache_data(max_entries=8, show_spinner=False)
def _repetitions_of(key: tuple[str, ...], _obs: pd.DataFrame) -> tuple[int, int] | None:
    if not len(_obs) or "order" not in _obs:
        return None
    if _obs["order"].isna().any():
        return None
    per = _obs.groupby(["case_id", "order"], sort=False).size()
    return int(per.min()), int(per.max())


def judge_counts(bundle: JudgeBundle) -> str:
    """The Judge page's counts, said once and said alike: cases, observations, and the repetitions
    per order, the data's beside the contract's when they differ."""
    m = bundle.measurement
    want = bundle.contract.repetitions_per_order
    contract = "the contract" if m.contract_given else "the drafted contract (no contract given)"
    text = f"{m.n_cases:,} cases, {m.n_observations:,} observations"
    have = _data_repetitions(bundle)
    if have is None and not len(bundle.observations):  # an out-of-core audit: complete, as validated
        have = (want, want)
    if have is None:
        return text + (f"; the data does not record in which order each judgment was shown, {contract} declares "
                       f"{want} repetitions per order")
    low, high = have
    reps = f"{low}" if low == high else f"{low} to {high}"
    if have == (want, want):
        return text + f": 2 orders x {want} repetitions per case, as {contract} declares"
    return text + f"; the data has {reps} repetition{'' if high == 1 else 's'} per order, {contract} declares {want}"


def judge_confusion_table(cases: Any) -> None:
    """The judge against the human reference: each case and order's majority verdict."""
    from agreebound.panel.coefficients import judge_confusion

    rows, cols, m, kappa = judge_confusion(cases)
    frame = pd.DataFrame(m, columns=[f"judge: {c}" for c in cols])
    frame.insert(0, "human preferred", rows)
    st.markdown("**The judge against the human reference** (each case, each order: the judge's majority verdict); "
                f"Cohen's kappa {'undefined' if kappa is None else f'{float(kappa):.3f}'} where the judge has a "
                "majority")
    st.dataframe(safe_frame(frame), hide_index=True)


def judge_missing_lines(d: CalibrationDecision) -> list[str]:
    """A partial audit's gates that this source cannot evaluate, each with what would supply it."""
    return [f"**{RATE_LABELS[g.name]}**: not evaluable, {md(why, 600)}"
            for g in d.gates if (why := unavailable(g)) is not None]


def judge_gate_rows(d: CalibrationDecision, diag: Any, n_cases: int) -> list[dict[str, str]]:
    """The Judge page's table of gates: each rate, its intervals, its threshold and its side of it,
    as the decision says (no comparison here), and which of the audit's ``n_cases`` it counts; then
    the net gates the contract opted in to."""
    return _rate_rows(d, diag, n_cases) + [_net_row(d, g) for g in d.gates[len(d.rates):]]


def _net_row(d: CalibrationDecision, g: Any) -> dict[str, str]:
    """An opt-in gate on a bias net of disagreement, as a row of the gates' table."""
    interval = f"[{g.low * 100:.1f}, {g.high * 100:.1f}] points" if g.low is not None and g.high is not None else ""
    return {"rate": NET_LABELS[g.name] + " (contract gate)", "measured": net_text(g, interval=False),
            "95% interval (cases)": interval, "cases / observations": "", "which cases": "",
            "Wilson 95% (observations)": "",
            "threshold (bps)": f"<= {int(g.threshold * 10_000)}",
            "gate": "not evaluable" if g.exact is None else ("pass" if g.passed else "FAIL") if d.contract_given
            else ("within" if g.passed else "outside") + " the limit in force",
            "margin": "" if g.exact is None or not d.contract_given else g.margin_words or ""}


def _rate_rows(d: CalibrationDecision, diag: Any, n_cases: int) -> list[dict[str, str]]:
    return [{"rate": RATE_LABELS[g.name], "measured": rate_text(d, g.name),
             "95% interval (cases)": f"[{diag.intervals[g.name].low:.2%}, {diag.intervals[g.name].high:.2%}]"
             if g.name in diag.intervals else "",
             "cases / observations": f"{diag.intervals[g.name].cases:,} / {diag.intervals[g.name].observations:,}"
             if g.name in diag.intervals else "",
             "which cases": cases_counted(g.name, diag.intervals[g.name].cases, n_cases)
             if g.name in diag.intervals and diag.intervals[g.name].cases else "",
             # exact is None: unavailable from this source, or no opportunities
             "Wilson 95% (observations)": f"[{diag.wilson[g.name].low:.2%}, {diag.wilson[g.name].high:.2%}]"
             if g.exact is not None else "",
             "threshold (bps)": f"{'>=' if g.kind == 'min' else '<='} {seed_view(g).threshold_bps}",
             "gate": "not evaluable" + ("" if unavailable(g) is not None or not d.contract_given else " (passes)")
             if g.exact is None
             else ("pass" if g.passed else "FAIL") if d.contract_given  # no contract: a limit's side, never a verdict
             else ("within" if g.passed else "outside") + (" the illustrative limit" if d.contract_origin == "illustrative"
                                                           else " the limit in force"),
             "margin": "" if unavailable(g) is not None or not d.contract_given else margin_text(g)}
            for g in d.gates[:len(d.rates)]]


# --- the pages' numbers, formatted -------------------------------------------------------------


def fragile_sentence(gates: list[Any], bundle: JudgeBundle) -> str:
    """The Overview's headline addition when a judge gate is fragile ('' when none is)."""
    fragile = [g for g in gates if g.fragile]
    return (f" Fragile: the 95% intervals of {len(fragile)} of {len(gates)} gates include their thresholds"
            f" ({bundle.measurement.n_cases:,} cases)." if fragile else "")


def reference_issues_line(d: CalibrationDecision) -> str:
    return f"Reference issues: {len(d.reference_issues):,} (see the Judge calibration page)."


def cases_shown(cases: Any, n_cases: int) -> str:
    return f"{len(cases):,} of {n_cases:,} cases"


def exact_rows(bundle: JudgeBundle, d: CalibrationDecision) -> list[dict[str, str]]:
    """The Overview's "Exact values" of the judge: each rate's fraction and basis points, then a
    contract's opt-in net gates."""
    rows = []
    for g, rate in zip(d.gates, d.rates):  # the five rates; then a contract's opt-in net gates
        rows.append({"what": f"judge: {g.name}", "exact": "not evaluable" if g.exact is None
                     else f"{rate.numerator}/{rate.denominator}",
                     "seed units": "" if g.passed is None else f"{rate.bps} bps"})  # None: unavailable here
    for g in d.gates[len(d.rates):]:
        rows.append({"what": f"judge: {g.name}", "exact": "not evaluable" if g.exact is None
                     else bundle.measurement.bias[g.name].fraction, "seed units": ""})
    return rows
