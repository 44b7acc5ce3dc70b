"""A relabel queue: which units to send back to annotators first, and exports to labelling tools.

Each rated unit gets three numbers:

* **probability**: the Dawid-Skene consensus label's posterior probability
  (:func:`agreebound.panel.rater_model.dawid_skene`);
* **split**: the share of the unit's ratings that give its plurality label (1 = unanimous);
* **alpha impact**: how far resolving the unit moves the panel's alpha toward (or across) the floor.
  Two resolutions are measured, both exactly, by changing the panel's counts and calling the one
  alpha (:func:`agreebound.panel.alpha.alpha`) on them, never a second formula: the unit
  **removed** (its ordered pairs subtracted from the pair counts of its size, its ratings from
  the category totals) and **one more rating agreeing with the consensus** (the unit's pairs moved
  from size m to size m + 1 with the extra rating). "Toward the floor": up when alpha is below the
  floor (a failing gate the unit could rescue), down when it passes (a passing gate the unit
  could sink). The impact is the resolution that moves alpha further that way. Units with the
  same ratings histogram (and consensus) have the same impact, so alpha is computed once per
  distinct histogram.

Ranking rules (named in every row, :data:`RULES`):

* ``uncertain-first`` (default): lowest certainty first, the certainty being the lower of the
  probability and the split (Dawid-Skene's posterior saturates near 1 with a few accurate raters,
  even for a unit they split 3-2 on, so the split bounds it), then lowest probability, then
  largest move toward the floor, then unit order;
* ``gate-first``: largest move toward the floor first, then probability, then split;
* ``judge-alone`` (a table of judges and humans: ``judges`` names the judges' columns): the units
  where the humans who rated it all give one label and a judge gives another first (the judge
  alone against the humans: the judge's error, or the humans' blind spot), then as
  ``uncertain-first``.

Units nobody rated have no consensus and are left out.

Exports (pure: they return text; writing a file is the caller's):

* CSV (:func:`queue_csv`, read back by :func:`read_queue_csv`): exact fractions as ``p/q``,
  probabilities as Python's shortest round-tripping float text;
* a Label Studio task import (:func:`label_studio_tasks`) following the "Basic Label Studio JSON
  format" and the pre-annotation schema documented for Label Studio 1.x (1.13 docs): a list of
  tasks ``{"data": {...}, "predictions": [{"model_version", "score", "result": [{"from_name",
  "to_name", "type": "choices", "value": {"choices": [label]}}]}]}``
  (https://labelstud.io/guide/task_format.html, https://labelstud.io/guide/predictions.html);
  :func:`label_studio_config` gives a matching labelling config (Text + single Choices) (checked
  with label-studio-sdk 2.1.2's ``LabelInterface`` over that config, no server: the sample panel's
  600 tasks and 600 predictions validate, and a prediction naming a label outside the config does
  not);
* an Argilla import (:func:`argilla_records`) following Argilla 2.x's documented ``rg.Record``
  (``id``, ``fields``, ``metadata``, ``suggestions``) and ``rg.Suggestion`` (``question_name``,
  ``value``, ``score``, ``agent``)
  (https://docs.argilla.io/latest/reference/argilla/records/records/,
  https://docs.argilla.io/latest/reference/argilla/records/suggestions/): each record's
  suggestions are keyword arguments of ``rg.Suggestion``, so
  ``rg.Record(**{**r, "suggestions": [rg.Suggestion(**s) for s in r["suggestions"]]})`` loads it
  (checked with argilla 2.8.0 in a scratch environment, no server: the sample panel's 600 records
  load, and each record's ``api_model()``, what the client sends, carries the suggestion, its
  score and agent).

>>> q = relabel_queue([["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["a", "b", None]])
>>> [(r.unit, r.consensus, str(r.split)) for r in q.rows]
[('4', 'a', '1/2'), ('2', 'a', '2/3'), ('3', 'b', '1'), ('1', 'a', '1')]
>>> q.alpha, q.rows[0].alpha_if_removed, q.rows[0].impact_action    # alpha 1/3 fails 0.600; without unit 4: 3/5
(Fraction(1, 3), Fraction(3, 5), 'removed')
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from agreebound.core.escape import printable
from agreebound.core.thresholds import ALPHA_FLOOR_DEFAULT
from agreebound.panel.alpha import alpha, check_level
from agreebound.panel.categories import Coded, Level, Ratings, Value, encode
from agreebound.panel.counts import PanelCounts, from_coded
from agreebound.panel.decide import alpha_gate_at
from agreebound.panel.rater_model import RaterModel, dawid_skene

__all__ = ["RULES", "QueueRow", "RelabelQueue", "argilla_records", "label_studio_config", "label_studio_tasks",
           "queue_csv", "read_queue_csv", "relabel_queue"]

RULES = {
    "uncertain-first": "lowest of (consensus probability, plurality share) first, then lowest consensus "
                       "probability, then largest move of alpha toward the floor",
    "gate-first": "largest move of alpha toward the floor first, then lowest consensus probability, then lowest "
                  "plurality share",
    "judge-alone": "units where judges or detectors disagree with the people, who agree among themselves, first; "
                   "then as uncertain-first",
}

#: The agent / model version the exports name for the consensus pre-annotation.
MODEL_VERSION = "agreebound-dawid-skene"

CSV_COLUMNS = ("rank", "unit", "consensus", "probability", "split", "ratings", "alpha", "alpha_if_removed",
               "alpha_if_consensus_added", "alpha_impact", "impact_action", "floor", "why", "rule")


@dataclass(frozen=True)
class QueueRow:
    """One unit of the queue. ``alpha_impact``: the change of alpha (exact) by ``impact_action``
    ("removed" or "consensus added"), the resolution moving alpha further toward the floor; None
    when alpha is undefined before or after."""

    rank: int
    unit: str
    consensus: Value
    probability: float
    split: Fraction
    ratings: int
    alpha_if_removed: Fraction | None
    alpha_if_consensus_added: Fraction | None
    alpha_impact: Fraction | None
    impact_action: str | None
    why: str


@dataclass(frozen=True)
class RelabelQueue:
    rows: tuple[QueueRow, ...]
    rule: str
    level: Level
    alpha: Fraction | None
    floor: Fraction

    @property
    def rule_text(self) -> str:
        return f"{self.rule}: {RULES[self.rule]}"


# --- alpha with one unit changed, through the counts ------------------------------------------------


def _unit_pairs(h: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ordered pairs within one unit of histogram ``h``: n_c n_k - [c == k] n_c."""
    present = np.flatnonzero(h)
    grid_c, grid_k = np.meshgrid(present, present, indexing="ij")
    ci, ki = grid_c.ravel(), grid_k.ravel()
    w = h[ci] * h[ki] - np.where(ci == ki, h[ci], 0)
    return ci.astype(np.int64), ki.astype(np.int64), w.astype(np.int64)


def _shift(pairs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]], m: int, h: np.ndarray, sign: int, k: int
           ) -> None:
    """Add (sign 1) or subtract (sign -1) a unit of histogram ``h`` (size m) to the pair counts."""
    if m < 2:
        return
    uc, uk, uw = _unit_pairs(h)
    old = pairs.get(m, (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)))
    key = np.r_[old[0].astype(np.int64) * k + old[1], uc * k + uk]
    w = np.r_[np.asarray(old[2], dtype=object), sign * uw.astype(object)]
    keys, inverse = np.unique(key, return_inverse=True)
    sums = np.zeros(len(keys), dtype=object)
    np.add.at(sums, inverse.ravel(), w)
    keep = sums > 0
    if not keep.any():
        pairs.pop(m, None)
        return
    keys = keys[keep]
    pairs[m] = ((keys // k).astype(np.int64), (keys % k).astype(np.int64), sums[keep].astype(np.int64))


def _changed(base: PanelCounts, remove: np.ndarray, add: np.ndarray | None) -> PanelCounts:
    """The counts with a unit of histogram ``remove`` taken out and, if given, one of histogram
    ``add`` put in (its pairs, its size's unit count, its category totals)."""
    k = len(base.category_set)
    pairs = dict(base.pairs)
    units = dict(base.units_by_m)
    totals = base.category_totals_array().astype(object) - remove.astype(object)
    m = int(remove.sum())
    _shift(pairs, m, remove, -1, k)
    units[m] = units.get(m, 0) - 1
    if add is not None:
        m2 = int(add.sum())
        _shift(pairs, m2, add, 1, k)
        units[m2] = units.get(m2, 0) + 1
        totals = totals + add.astype(object)
    units = {s: n for s, n in units.items() if n}
    return PanelCounts(base.dimension, base.kind, base.category_set, units, pairs,
                       np.array([int(t) for t in totals], dtype=np.int64), {}, raters=base.raters)


def alpha_if_removed(base: PanelCounts, histogram: np.ndarray, level: Level = "nominal") -> Fraction | None:
    """Alpha of ``base`` without one unit of ``histogram`` (ratings per category code)."""
    return alpha(_changed(base, np.asarray(histogram, dtype=np.int64), None), level).value


def alpha_if_added(base: PanelCounts, histogram: np.ndarray, code: int, level: Level = "nominal") -> Fraction | None:
    """Alpha of ``base`` with one more rating of category ``code`` in a unit of ``histogram``."""
    h = np.asarray(histogram, dtype=np.int64)
    more = h.copy()
    more[code] += 1
    return alpha(_changed(base, h, more), level).value


# --- the queue ------------------------------------------------------------------------------------


def _fmt(x: Fraction | None) -> str:
    return "undefined" if x is None else f"{float(x):.3f}"


def _toward(now: Fraction | None, after: Fraction | None, passes: bool) -> Fraction | None:
    """How far ``after`` moves alpha toward the floor from ``now`` (negative: away)."""
    if now is None or after is None:
        return None
    return now - after if passes else after - now


def relabel_queue(ratings: Coded | Ratings, raters: Sequence[str] | None = None, units: Sequence[str] | None = None,
                  *, level: Level = "nominal", floor_permil: int = ALPHA_FLOOR_DEFAULT, rule: str = "uncertain-first",
                  model: RaterModel | None = None, judges: Sequence[str] = ()) -> RelabelQueue:
    """The rated units ranked for relabelling by ``rule`` (:data:`RULES`). ``ratings``: units x
    raters (None/NaN missing) or coded; ``units``: their names (default "1", "2", ...);
    ``model``: a fitted Dawid-Skene model of the same ratings (default: fitted here, without
    the skills' bootstrap); ``judges``: the raters that are judges (the rest humans), which the
    ``judge-alone`` rule reads."""
    check_level(level)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    if rule == "judge-alone" and not (judges and len(set(judges)) < len(raters or ())):
        raise ValueError("the judge-alone rule needs the judges' names (judges=...) and at least one human rater")
    coded = encode(ratings)
    names = [str(u) for u in units] if units is not None else [str(i + 1) for i in range(coded.n_units)]
    if len(names) != coded.n_units:
        raise ValueError(f"{len(names)} unit names for {coded.n_units} units")
    if model is None:
        model = dawid_skene(coded, raters, bootstrap=0)
    base = from_coded(coded, raters)
    floor = Fraction(floor_permil, 1000)
    now = alpha(base, level).value
    passes = bool(now is not None and alpha_gate_at(now, floor).passed)
    k = len(coded.categories)
    hist = np.zeros((coded.n_units, k), dtype=np.int64)
    np.add.at(hist, (coded.unit, coded.code), 1)
    cache_removed: dict[bytes, Fraction | None] = {}
    cache_added: dict[tuple[bytes, int], Fraction | None] = {}
    values = coded.categories.values
    alone = _judge_alone(coded, raters, judges)
    entries = []
    for u in range(coded.n_units):
        h = hist[u]
        n = int(h.sum())
        code = int(model.label[u])
        if n == 0 or code < 0:
            continue
        key = h.tobytes()
        if key not in cache_removed:
            cache_removed[key] = alpha_if_removed(base, h, level)
        # the model's labels are the same categories, coded in the same order (rater_counts reads coded)
        if (key, code) not in cache_added:
            cache_added[(key, code)] = alpha_if_added(base, h, code, level)
        removed, added = cache_removed[key], cache_added[(key, code)]
        options = [(t, a, after) for a, after in (("removed", removed), ("consensus added", added))
                   if (t := _toward(now, after, passes)) is not None]
        gain, action, after = max(options, key=lambda o: o[0]) if options else (None, None, None)
        impact = None if after is None or now is None else after - now
        split = Fraction(int(h.max()), n)
        prob = float(model.label_probability[u])
        entries.append((u, values[code], prob, split, n, removed, added, impact, action, gain, after))

    def key_of(e: tuple[Any, ...]) -> tuple[Any, ...]:
        u, _, prob, split, _, _, _, _, _, gain, _ = e
        g = -gain if gain is not None else math.inf
        p = round(prob, 12)
        if rule == "gate-first":
            return (g, p, split, u)
        uncertain = (min(p, round(float(split), 12)), p, g, u)
        return (u not in alone,) + uncertain if rule == "judge-alone" else uncertain

    rows = []
    side = "passes" if passes else "fails"
    for rank, e in enumerate(sorted(entries, key=key_of), start=1):
        u, label, prob, split, n, removed, added, impact, action, gain, after = e
        why = (f"the model gives {printable(label)!r} probability {prob:.3f}; "
               f"{split.numerator * n // split.denominator} of {n} ratings agree with the plurality")
        h = hist[u]
        if h[int(model.label[u])] < h.max():  # the model's label is not what most raters said
            top = ", ".join(repr(printable(values[c])) for c in np.flatnonzero(h == h.max()))
            why += (f" (the ratings say {top}; the model outweighs them, weighing each rater by its confusion "
                    "rows)")
        if u in alone:
            why += f"; {alone[u]}"
        if impact is None or action is None or after is None:
            why += "; alpha's change is undefined"
        else:
            crosses = now is not None and alpha_gate_at(after, floor).passed != passes
            how = "across" if crosses else ("toward" if gain is not None and gain > 0 else "away from")
            what = "removing it" if action == "removed" else "one more rating agreeing with the consensus"
            if after == now:
                why += f"; neither removing it nor one more rating moves alpha ({_fmt(now)}; alpha now {side})"
            else:
                why += (f"; {what} moves alpha from {_fmt(now)} to {_fmt(after)}, {how} the floor {_fmt(floor)} "
                        f"(alpha now {side})")
        rows.append(QueueRow(rank, names[u], label, prob, split, n, removed, added, impact, action, why))
    return RelabelQueue(tuple(rows), rule, level, now, floor)


def _judge_alone(coded: Coded, raters: Sequence[str] | None, judges: Sequence[str]) -> dict[int, str]:
    """Units where every human who rated it gives one label and a judge gives another: unit -> the
    words ("judge X says 'a' where the 3 humans say 'b'")."""
    if not judges or raters is None:
        return {}
    names = list(raters)
    is_judge = np.array([r in set(judges) for r in names], dtype=bool)
    values = coded.categories.values
    # each unit's ratings, by unit (sparse: never a units x raters matrix)
    unit, rater, code = np.asarray(coded.unit), np.asarray(coded.rater), np.asarray(coded.code)
    order = np.argsort(unit, kind="stable")
    starts = np.searchsorted(unit[order], np.arange(coded.n_units + 1))
    out: dict[int, str] = {}
    for u in range(coded.n_units):
        at = order[starts[u]:starts[u + 1]]
        by_judge = is_judge[rater[at]]
        humans = code[at][~by_judge]
        if len(humans) == 0 or (humans != humans[0]).any():
            continue
        against = [(int(rater[i]), int(code[i])) for i in at[by_judge] if code[i] != humans[0]]
        if against:
            said = ", ".join(f"{printable(names[j], 60)} says {printable(values[k])!r}" for j, k in sorted(against))
            n = len(humans)
            out[u] = f"{said} where the {n} human{'s' if n != 1 else ''} say{'' if n != 1 else 's'} " \
                     f"{printable(values[humans[0]])!r}"
    return out


# --- exports --------------------------------------------------------------------------------------


def _frac(x: Fraction | None) -> str:
    return "" if x is None else str(x)


def _unfrac(s: str) -> Fraction | None:
    return None if s == "" else Fraction(s)


#: A cell a spreadsheet would read as a formula starts with one of these (OWASP's CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: object) -> str:
    """User text (a unit's name, a label) as a CSV cell a spreadsheet shows and never evaluates: a
    leading quote before a formula's first character (read back off by :func:`read_queue_csv`).

    >>> _cell("=HYPERLINK(1)"), _cell("'quoted"), _cell("plain")
    ("'=HYPERLINK(1)", "''quoted", 'plain')
    """
    s = str(text)
    return "'" + s if s.startswith(FORMULA_STARTS) or s.startswith("'") else s


def _uncell(s: str) -> str:
    return s[1:] if s.startswith("'") and (s[1:].startswith(FORMULA_STARTS) or s[1:].startswith("'")) else s


def queue_csv(queue: RelabelQueue, dimension: str | None = None, header: bool = True) -> str:
    """The queue as CSV text (one header row, then a row per unit, in rank order); user text is
    guarded against a spreadsheet reading it as a formula (:func:`_cell`). ``dimension``: a first
    column naming it (several dimensions' queues in one file: the later ones without ``header``)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    lead = [] if dimension is None else [_cell(dimension)]
    if header:
        w.writerow((["dimension"] if dimension is not None else []) + list(CSV_COLUMNS))
    for r in queue.rows:
        w.writerow(lead + [r.rank, _cell(r.unit), _cell(r.consensus), repr(r.probability), str(r.split), r.ratings,
                    _frac(queue.alpha), _frac(r.alpha_if_removed), _frac(r.alpha_if_consensus_added),
                    _frac(r.alpha_impact), r.impact_action or "", str(queue.floor), _cell(r.why), queue.rule])
    return out.getvalue()


def read_queue_csv(text: str) -> list[QueueRow]:
    """The rows of :func:`queue_csv` text (the consensus label comes back as its text)."""
    rows = []
    for d in csv.DictReader(io.StringIO(text)):
        rows.append(QueueRow(int(d["rank"]), _uncell(d["unit"]), _uncell(d["consensus"]), float(d["probability"]),
                             Fraction(d["split"]), int(d["ratings"]), _unfrac(d["alpha_if_removed"]),
                             _unfrac(d["alpha_if_consensus_added"]), _unfrac(d["alpha_impact"]),
                             d["impact_action"] or None, _uncell(d["why"])))
    return rows


def _queue_data(queue: RelabelQueue, r: QueueRow) -> dict[str, Any]:
    return {"relabel_rank": r.rank, "consensus_probability": r.probability, "plurality_share": float(r.split),
            "alpha_impact": None if r.alpha_impact is None else float(r.alpha_impact), "why": r.why,
            "ranking_rule": queue.rule}


def label_studio_tasks(queue: RelabelQueue, content: Mapping[str, Mapping[str, Any]] | None = None, *,
                       from_name: str = "label", to_name: str = "text", predictions: bool = True) -> str:
    """A Label Studio import (JSON text): one task per queued unit, in rank order. ``data`` holds
    ``unit``, the queue's numbers and ``content[unit]`` (e.g. ``{"text": ...}``; without it the
    unit's name stands under ``to_name`` so the config's ``$text`` resolves); ``predictions``:
    the consensus as a pre-annotation (``model_version``, ``score`` = its probability, one
    ``choices`` result from ``from_name`` to ``to_name``)."""
    tasks = []
    for r in queue.rows:
        data: dict[str, Any] = {to_name: r.unit, "unit": r.unit, **_queue_data(queue, r)}
        data.update((content or {}).get(r.unit, {}))
        task: dict[str, Any] = {"data": data}
        if predictions:
            task["predictions"] = [{
                "model_version": MODEL_VERSION, "score": r.probability,
                "result": [{"from_name": from_name, "to_name": to_name, "type": "choices",
                            "value": {"choices": [str(r.consensus)]}}],
            }]
        tasks.append(task)
    return json.dumps(tasks, ensure_ascii=False, indent=1)


def label_studio_config(labels: Sequence[Value], *, from_name: str = "label", to_name: str = "text") -> str:
    """A labelling config the tasks fit: the unit's text and one single choice among ``labels``."""
    choices = "".join(f"\n    <Choice value={quoteattr(str(v))}/>" for v in labels)
    return (f"<View>\n  <Text name={quoteattr(to_name)} value={quoteattr('$' + to_name)}/>\n"
            f"  <Choices name={quoteattr(from_name)} toName={quoteattr(to_name)} choice=\"single\">{choices}\n"
            f"  </Choices>\n</View>\n")


def argilla_records(queue: RelabelQueue, content: Mapping[str, Mapping[str, Any]] | None = None, *,
                    field: str = "text", question: str = "label") -> str:
    """An Argilla 2.x import (JSON text): one record per queued unit, in rank order: ``id`` the
    unit, ``fields`` ``content[unit]`` (default: the unit's name under ``field``), ``metadata``
    the queue's numbers, and one suggestion for ``question``: the consensus with its probability
    as ``score`` and the model as ``agent``."""
    records = []
    for r in queue.rows:
        fields = dict((content or {}).get(r.unit, {field: r.unit}))
        records.append({
            "id": r.unit,
            "fields": fields,
            "metadata": _queue_data(queue, r),
            "suggestions": [{"question_name": question, "value": str(r.consensus), "score": r.probability,
                             "agent": MODEL_VERSION}],
        })
    return json.dumps(records, ensure_ascii=False, indent=1)
