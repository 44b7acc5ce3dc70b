"""Drift between two judge runs, split with anchor items: how much of a headline's change is the
judge's and how much the systems'.

Two runs of a judge over items, each row one judgment: (item, system, candidate digest, outcome).
The outcome is a score for a graded or pass/fail judge (the headline: a system's mean score), or
for a pairwise judge the system's share of the game (1 won, 1/2 tie, 0 lost; the headline: its win
rate, ties counted half). A pairwise game gives two rows, one per model, sharing the case's digest
(both answers): a verdict depends on both.

* **Anchors** are the (item, system) units present in both runs whose candidate text is the same
  (the same digest), or the items of a declared list: the system's answer did not change there,
  so whatever moved on them is the judge.
* Only units present in both runs count (an item added or dropped is neither the judge nor a
  system changing). Each headline is a ratio estimator over them, sum y / sum m by item, so items
  with several rows (several systems, two orders, repetitions) weigh by their rows, as the
  headline does.
* **The judge's shift** = after - before over the anchors; **the total** = after - before over
  every unit in both runs; **the systems' change** = total - judge's shift, exactly. That split
  assumes the judge moved on the other items as it did on the anchors (the anchors stand for
  them).
* 95% intervals: clustered by item (the unit sampled; an item's rows are not independent), the
  delta method of :func:`agreebound.core.contrast.ratio_contrast` (the project's one linearised
  ratio variance), Student's t at (items - 1) degrees of freedom. With several systems, each
  system's intervals are simultaneous (Bonferroni: each at 1 - 0.05/k for k systems), so that
  "the judge changed" for some system is not found by chance more often than one headline's would
  be; the pooled headline of a graded log (all systems) keeps its plain 95%. The systems' change is the
  four-term contrast after - before - (anchors after - anchors before) over the same items: its
  interval carries the judge's shift's uncertainty too (no bootstrap).
* **The judge's share** of the change: judge's shift / total, said only when the total's interval
  excludes 0 (otherwise the change is not distinguishable from zero and a share means nothing).

:func:`decide_drift` is the one place the judge's shift meets the tolerance
(:class:`agreebound.core.thresholds.DriftThresholds`, threshold data: a file's or link's ``[drift]``
table, a slider, ``--tolerance``): "the judge changed" when its interval lies beyond +-tolerance,
"no judge change shown" when it lies within, "inconclusive" otherwise; the words only read it.

Two items, one system, one anchor (item 1, same text) whose score went 3 -> 4, and item 2 whose
answer changed, 2 -> 4: total (4 + 4)/2 - (3 + 2)/2 = 3/2, the judge's shift 1, the systems' 1/2:

>>> before = pd.DataFrame({"item": ["1", "2"], "system": "s", "digest": ["x", "y"], "outcome": [3, 2]})
>>> after = pd.DataFrame({"item": ["1", "2"], "system": "s", "digest": ["x", "z"], "outcome": [4, 4]})
>>> h = measure_drift(before, after, SCORE).headlines[0]
>>> h.total.exact, h.judge.exact, h.systems.exact, h.anchor_items
(Fraction(3, 2), Fraction(1, 1), Fraction(1, 2), 1)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd


from agreebound.core.intervals import simultaneous_z
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.core.contrast import Contrast, ratio_contrast
from agreebound.core.thresholds import DriftThresholds

ITEM, SYSTEM, DIGEST, OUTCOME = "item", "system", "digest", "outcome"
COLUMNS = (ITEM, SYSTEM, DIGEST, OUTCOME)

#: The headline's scale: a graded or pass/fail judge's mean score, or a pairwise judge's win rate.
SCORE, WIN_RATE = "score", "win rate"
SCALES = (SCORE, WIN_RATE)
#: The headline over every system of a graded log (several systems).
ALL_SYSTEMS = "all systems"

#: How anchors were found.
BY_TEXT, DECLARED = "same candidate text", "declared list"

#: Fewer anchor items than this: the report says the judge's shift is loosely estimated (structural,
#: not a threshold: it decides nothing).
FEW_ANCHORS = 10

#: The default tolerance of the judge's shift: 0.05 on the outcome's scale (a score; a win rate's
#: share: 5 points), threshold data of agreebound.core.thresholds (DriftThresholds, a ThresholdSet's
#: ``drift`` table). A judge whose shift on the anchors stays within it is not called changed.
DRIFT_TOLERANCE_DEFAULT = DriftThresholds().tolerance

#: The decision's states.
CHANGED, UNCHANGED, INCONCLUSIVE, NO_ANCHORS = ("the judge changed", "no judge change shown", "inconclusive",
                                               "no anchors")
#: Exit codes: 1 when the judge changed beyond the tolerance, 0 otherwise.
EXIT_CODES = {CHANGED: 1, UNCHANGED: 0, INCONCLUSIVE: 0, NO_ANCHORS: 0}

METHOD = ("95% intervals clustered by item: the delta method over the items' sums (linearised ratio estimators), "
          "Student's t at (items - 1) degrees of freedom; the systems' change is after - before - (the anchors' after "
          "- before) over the same items, by the same method")


# --- measure -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headline:
    """One headline's change between the runs, split: ``system`` a system's name (or ALL_SYSTEMS).
    ``before``/``after`` its value over the units in both runs; ``share`` the judge's shift / the
    total, None when the total's interval does not exclude 0 (``share_note`` says why)."""

    system: str
    items: int  # items with a unit in both runs
    anchor_items: int
    anchor_units: int
    before: Fraction | None
    after: Fraction | None
    total: Contrast
    judge: Contrast
    systems: Contrast
    share: Fraction | None
    share_note: str
    coverage: str = "95%"  # the intervals' coverage, in words


@dataclass(frozen=True)
class Drift:
    """Every headline's split, how anchors were found, and what was counted or left out."""

    scale: str
    anchor_source: str  # BY_TEXT or DECLARED
    headlines: tuple[Headline, ...]
    items_before: int
    items_after: int
    common_items: int
    anchor_items: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Unit:
    y: Fraction
    m: int
    digest: str | None  # None: no text known, or the rows disagree


def _units(frame: pd.DataFrame) -> tuple[dict[tuple[str, str], _Unit], int]:
    """Per (item, system): the sum and count of its outcomes and its one digest; and how many units'
    rows carry different digests (never anchors)."""
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"a drift frame needs the columns {', '.join(COLUMNS)}; missing {', '.join(missing)}")
    sums: dict[tuple[str, str], list[Fraction]] = {}
    digests: dict[tuple[str, str], set[str | None]] = {}
    for item, system, digest, outcome in zip(frame[ITEM], frame[SYSTEM], frame[DIGEST], frame[OUTCOME]):
        key = (str(item), str(system))
        sums.setdefault(key, []).append(Fraction(outcome))
        digests.setdefault(key, set()).add(None if digest is None or pd.isna(digest) else str(digest))
    mixed = sum(1 for d in digests.values() if len(d) > 1)
    return {k: _Unit(sum(v, Fraction(0)), len(v), next(iter(digests[k])) if len(digests[k]) == 1 else None)
            for k, v in sums.items()}, mixed


def _sums(units: dict[tuple[str, str], _Unit], keys: Iterable[tuple[str, str]], items: list[str]
          ) -> tuple[np.ndarray, np.ndarray]:
    """Per item (aligned with ``items``): the outcomes' sum (exact, an object array) and count over ``keys``."""
    at = {item: i for i, item in enumerate(items)}
    y = np.array([Fraction(0)] * len(items), dtype=object)
    m = np.zeros(len(items), dtype=np.int64)
    for key in keys:
        u = units[key]
        y[at[key[0]]] += u.y
        m[at[key[0]]] += u.m
    return y, m


def _headline(system: str, a: dict[tuple[str, str], _Unit], b: dict[tuple[str, str], _Unit],
              common: list[tuple[str, str]], anchors: set[tuple[str, str]], family: int = 1) -> Headline:
    """One headline's split; ``family``: how many systems' intervals are simultaneous (Bonferroni)."""
    z = simultaneous_z(family)  # Z95 for one system
    coverage = "95%" if family == 1 else f"95% simultaneous over {family} systems (each {100 - 5 / family:.2f}%)"
    items = sorted({i for i, _ in common})
    anchored = [k for k in common if k in anchors]
    ya, ma = _sums(a, common, items)
    yb, mb = _sums(b, common, items)
    yaa, maa = _sums(a, anchored, items)
    yba, mba = _sums(b, anchored, items)
    on = (maa > 0) | (mba > 0)
    total = ratio_contrast(((1, yb, mb), (-1, ya, ma)), z)
    judge = ratio_contrast(((1, yba[on], mba[on]), (-1, yaa[on], maa[on])), z)
    systems = ratio_contrast(((1, yb, mb), (-1, ya, ma), (-1, yba, mba), (1, yaa, maa)), z)
    before = None if not ma.sum() else sum(ya.tolist(), Fraction(0)) / int(ma.sum())
    after = None if not mb.sum() else sum(yb.tolist(), Fraction(0)) / int(mb.sum())
    share: Fraction | None = None
    if judge.exact is None:
        note = "no anchors: the change cannot be split"
    elif total.exact is None or total.low is None or total.high is None:
        note = "the change has no interval (fewer than two items)"
    elif total.low > 0 or total.high < 0:
        share, note = judge.exact / total.exact, ""
    else:
        note = "the change is not distinguishable from zero: no share is given"
    return Headline(system, len(items), int(on.sum()), len(anchored), before, after, total, judge, systems, share,
                    note, coverage)


def measure_drift(before: pd.DataFrame, after: pd.DataFrame, scale: str,
                  declared: Collection[str] | None = None) -> Drift:
    """Split each headline's change between two runs (frames with :data:`COLUMNS`) into the judge's
    shift and the systems' change. ``declared``: anchor item ids (every system on them); None:
    anchors are the units whose digest is the same in both runs."""
    if scale not in SCALES:
        raise ValueError(f"a drift scale is one of {', '.join(SCALES)}, not {scale!r}")
    a, mixed_a = _units(before)
    b, mixed_b = _units(after)
    common = sorted(set(a) & set(b))
    notes: list[str] = []
    if declared is not None:
        wanted = {str(x) for x in declared}
        anchors = {k for k in common if k[0] in wanted}
        found = {k[0] for k in anchors}
        if absent := wanted - found:
            notes.append(f"{len(absent):,} of the {len(wanted):,} declared anchor items are not in both runs: left out "
                         f"(e.g. {', '.join(sorted(absent)[:3])})")
        differ = {k[0] for k in anchors if a[k].digest is not None and b[k].digest is not None
                  and a[k].digest != b[k].digest}
        if differ:
            notes.append(f"{len(differ):,} declared anchor items have different candidate text in the two runs: "
                         "used as declared, though the system's answer changed there")
        source = DECLARED
    else:
        anchors = {k for k in common if a[k].digest is not None and a[k].digest == b[k].digest}
        source = BY_TEXT
        if not any(a[k].digest is not None and b[k].digest is not None for k in common):
            notes.append("the runs carry no candidate text to compare: declare the anchor items (--anchors)")
    if mixed_a or mixed_b:
        notes.append(f"{mixed_a + mixed_b:,} (item, system) units hold rows with different candidate texts within one "
                     "run: never anchors")
    systems = sorted({s for _, s in common})
    pooled = [_headline(ALL_SYSTEMS, a, b, common, anchors)] if scale == SCORE and len(systems) > 1 else []
    headlines = tuple(pooled + [_headline(s, a, b, [k for k in common if k[1] == s], anchors, len(systems))
                                for s in systems])
    items_a, items_b = {i for i, _ in a}, {i for i, _ in b}
    if dropped := len(items_a ^ items_b):
        notes.append(f"{dropped:,} items are in one run only: left out (neither the judge nor a system changing)")
    return Drift(scale, source, headlines, len(items_a), len(items_b), len({i for i, _ in common}),
                 len({i for i, _ in anchors}), tuple(notes))


# --- decide --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriftDecision:
    """The decision on a drift measurement: each headline's state and the run's (the worst:
    changed, then inconclusive, then no judge change shown; no anchors when no headline has any)."""

    drift: Drift
    thresholds: DriftThresholds
    state: str
    states: tuple[str, ...]  # per headline, aligned with drift.headlines
    reasons: tuple[str, ...] = field(default=())

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.state]

    def sentences(self) -> list[str]:
        """The report as a user reads it (plain text): the decision, then each headline."""
        return drift_sentences(self)

    def to_json(self) -> JSONObject:
        return drift_json(self)


def decide_drift(drift: Drift, thresholds: DriftThresholds | None = None) -> DriftDecision:
    """The one comparison of the judge's shift with the tolerance t: per headline, "the judge
    changed" when its 95% interval lies beyond +-t (low > t or high < -t), "no judge change shown"
    when it lies within [-t, t], "inconclusive" otherwise (no interval: fewer than two anchor items),
    "no anchors" without any.

    >>> c = lambda lo, hi: Contrast(Fraction(lo + hi) / 2, lo, hi, 20)
    >>> h = lambda lo, hi: Headline("s", 20, 20, 20, None, None, c(0, 1), c(lo, hi), c(0, 1), None, "")
    >>> d = Drift(SCORE, BY_TEXT, (h(0.06, 0.2), h(-0.04, 0.045), h(0.01, 0.09)), 20, 20, 20, 20)
    >>> r = decide_drift(d)
    >>> r.states, r.state, r.exit_code
    (('the judge changed', 'no judge change shown', 'inconclusive'), 'the judge changed', 1)
    """
    tolerance = (thresholds or DriftThresholds()).tolerance
    states = []
    for h in drift.headlines:
        j = h.judge
        if j.exact is None:
            states.append(NO_ANCHORS)
        elif j.low is None or j.high is None:
            states.append(INCONCLUSIVE)
        elif j.low > tolerance or j.high < -tolerance:
            states.append(CHANGED)
        elif j.low >= -tolerance and j.high <= tolerance:
            states.append(UNCHANGED)
        else:
            states.append(INCONCLUSIVE)
    reasons = []
    if CHANGED in states:
        state = CHANGED
    elif not states or all(s == NO_ANCHORS for s in states):
        state = NO_ANCHORS
    elif INCONCLUSIVE in states or NO_ANCHORS in states:
        state = INCONCLUSIVE
        if NO_ANCHORS in states:
            reasons.append("some headlines have no anchor items")
    else:
        state = UNCHANGED
    return DriftDecision(drift, thresholds or DriftThresholds(), state, tuple(states), tuple(reasons))


# --- words ---------------------------------------------------------------------------------------


def _amount(drift: Drift, x: float, signed: bool = True) -> str:
    """A change on the headline's scale: "+0.300" (a score) or "+8.0 points" (a win rate)."""
    if drift.scale == WIN_RATE:
        return f"{x * 100:+.1f} points" if signed else f"{x * 100:.1f} points"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _level(drift: Drift, x: Fraction | None) -> str:
    if x is None:
        return "-"
    return f"{float(x) * 100:.1f}%" if drift.scale == WIN_RATE else f"{float(x):.3f}"


def _change(drift: Drift, c: Contrast) -> str:
    if c.value is None:
        return "-"
    if c.low is None or c.high is None:
        return f"{_amount(drift, c.value)} (no interval: fewer than two items)"
    if drift.scale == WIN_RATE:
        return f"{c.value * 100:+.1f} points [{c.low * 100:+.1f}, {c.high * 100:+.1f}]"
    return f"{c.value:+.3f} [{c.low:+.3f}, {c.high:+.3f}]"


def _state_words(decision: DriftDecision, state: str) -> str:
    tol = "+-" + _amount(decision.drift, float(decision.thresholds.tolerance), signed=False)
    if state == CHANGED:
        return (f"the judge changed: its shift on the anchor items lies beyond the tolerance ({tol}), so part of the "
                "change between the runs is the judge's, not the systems'")
    if state == UNCHANGED:
        return f"no judge change shown: the judge's shift on the anchor items lies within the tolerance ({tol})"
    if state == INCONCLUSIVE:
        return (f"inconclusive: the judge's shift cannot be told apart from the tolerance ({tol}) with these anchor "
                "items; more anchor items would settle it")
    return ("no anchors: items with the same candidate text in both runs are needed (or a declared list of anchor "
            "items, --anchors); the change cannot be split")


def drift_sentences(decision: DriftDecision) -> list[str]:
    d = decision.drift
    out = [f"Judge drift: {_state_words(decision, decision.state)}."]
    out += [f"({r}.)" for r in decision.reasons]
    how = "items whose candidate text is the same in both runs" if d.anchor_source == BY_TEXT else \
        "the declared anchor items"
    out.append(f"Anchors: {d.anchor_items:,} of {d.common_items:,} items in both runs ({how}); {d.items_before:,} "
               f"items before, {d.items_after:,} after.")
    few = [h for h in d.headlines if 0 < h.anchor_items < FEW_ANCHORS]
    if few:
        which = "" if len(d.headlines) == 1 else " for " + ", ".join(f"{h.system} ({h.anchor_items:,})" for h in few)
        out.append(f"Few anchors{which}: fewer than {FEW_ANCHORS} anchor items, so the judge's shift is loosely "
                   "estimated there (add anchor items).")
    name = "win rate" if d.scale == WIN_RATE else "mean score"
    for h, state in zip(d.headlines, decision.states):
        line = (f"- {h.system}: {name} {_level(d, h.before)} -> {_level(d, h.after)}, change {_change(d, h.total)} "
                f"over {h.items:,} items")
        if h.judge.exact is None:
            out.append(f"{line}; no anchor items: the change cannot be split.")
            continue
        line += (f"; the judge's shift {_change(d, h.judge)} over {h.anchor_items:,} anchor items; the systems' change "
                 f"{_change(d, h.systems)}")
        share = f"{float(h.share) * 100:.0f}% of the change is the judge's" if h.share is not None else h.share_note
        if h.share is not None and h.share > 1:
            share += " (the systems' change has the other sign)"
        out.append(f"{line}; {share}. {state[0].upper()}{state[1:]}" +
                   ("." if h.coverage == "95%" else f" (intervals {h.coverage})."))
    out.append(f"({METHOD}.)")
    out += [f"Note: {n}." for n in d.notes]
    return out


def _contrast_json(c: Contrast) -> JSONObject:
    return {"value": c.value, "exact": None if c.exact is None else str(c.exact), "low": c.low, "high": c.high,
            "items": c.clusters}


def drift_json(decision: DriftDecision) -> JSONObject:
    d = decision.drift
    headlines: list[JSONValue] = []
    for h, state in zip(d.headlines, decision.states):
        headlines.append({
            "system": h.system, "items": h.items, "anchor_items": h.anchor_items, "anchor_units": h.anchor_units,
            "few_anchors": 0 < h.anchor_items < FEW_ANCHORS,
            "before": None if h.before is None else float(h.before), "after": None if h.after is None else float(h.after),
            "total_change": _contrast_json(h.total), "judge_shift": _contrast_json(h.judge),
            "systems_change": _contrast_json(h.systems),
            "judge_share": None if h.share is None else float(h.share), "share_note": h.share_note, "state": state,
            "coverage": h.coverage})
    return {"kind": "judge drift", "scale": d.scale, "anchor_source": d.anchor_source,
            "tolerance": float(decision.thresholds.tolerance), "tolerance_exact": str(decision.thresholds.tolerance),
            "state": decision.state, "words": _state_words(decision, decision.state), "exit_code": decision.exit_code,
            "reasons": list(decision.reasons), "items_before": d.items_before, "items_after": d.items_after,
            "common_items": d.common_items, "anchor_items": d.anchor_items,
            "few_anchors": [h.system for h in d.headlines if 0 < h.anchor_items < FEW_ANCHORS],
            "headlines": headlines, "method": METHOD, "notes": list(d.notes)}
