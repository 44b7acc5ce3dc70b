"""Graded and pass/fail judges audited against human labels: the judge is a rater beside the humans.

A pairwise judge picks a candidate (agreebound.judge.measure); a graded judge gives a score on a
scale (MT-Bench's 1-10, a rubric's 1-5) and a pass/fail judge a verdict (inspect_ai's C/I,
promptfoo's llm-rubric). Both are audited here against human labels on the same items, with the
panel's own machinery: Krippendorff's alpha through the panel path (agreebound.panel.alpha, exact),
weighted kappa through agreebound.panel.coefficients, and a gate the peers do not have:

* **admissibility**: the judge agrees with the humans not worse than the humans agree with each
  other, by more than the margin: alpha(judge-human pairs) >= alpha(human-human pairs) -
  margin, each alpha over the items both rated (a mean of pairwise alphas on both sides, so a judge
  exchangeable with the humans has the same expected value as they: the alternative-annotator idea of
  Calderon, Reichart and Dror, 2025, in alpha);
* **agreement floor**: alpha(judge-human pairs) >= the floor (the panel's 0.6 by default).

Every measure carries a 95% interval that treats each item as one cluster: for a share of
judge-human pairs (exact agreement, accuracy, sensitivity, ...) the house's case-clustered Wilson
interval (agreebound.core.intervals.rate_interval, its design effect measured over the items); for
every other measure the delete-one-item jackknife with a t quantile (n - 1 degrees of freedom) over
the statistic's item sums, whose full-sample value equals the exact one. The admissibility
difference's interval covers 95% of simulated audits of a judge exchangeable with three humans
(tests/scored/test_audit.py).

The agreement measures beside the gates compare the judge with each human on the items both scored
(pooled over the pairs: a judge exchangeable with the humans agrees with a human as a human does;
a consensus of several humans would flatter it). The length effect and self-preference hold the
humans' mean score of the item fixed. A judge's stated confidence (a probability of pass) is scored
against the humans' majority verdict, one forecast per item (agreebound.scored.confidence).

Engines: an out-of-core engine returns every two raters' table of paired scores
(:class:`ScoredCounts`, agreebound.engines.scored_sql); the in-memory audit builds the same tables,
and alpha is read from them through the panel path in both (:func:`table_alpha`).
"""


from __future__ import annotations
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Sequence
import numpy as np
import pandas as pd
from agreebound.panel.categories import Level
from agreebound.scored.describe import JudgeScores, describe
from agreebound.scored.items import ScoredInput, scale_step, scored_input
from agreebound.scored.judges import JudgePanel, judge_panel
from agreebound.scored.one_judge import JudgeAgreement, agreement, human_side
from agreebound.scored.pairwise import exact_value, table_alpha


# --- the measurement ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredMeasurement:
    """A graded or pass/fail judge log measured: one agreement per judge, the panel of judges."""

    input: ScoredInput
    kind: str
    level: Level
    level_chosen_by: str  # "data" (the kind's default) or "user"
    agreements: tuple[JudgeAgreement, ...]
    panel: JudgePanel | None
    #: what ties the result to the judge and rubric (grader model, rubric digest, tool), as io read it
    identity: dict[str, str] = field(default_factory=dict)
    shape: str = "scores table"  # the log's shape, as io recognised it
    read_notes: tuple[str, ...] = ()  # what io read and left out, counted
    labels: dict[float, str] = field(default_factory=dict)  # how scores were written (1.0 -> "C")
    #: each judge described by its own scores (agreebound.scored.describe), human labels or not
    scores: tuple[JudgeScores, ...] = ()

    @property
    def described_only(self) -> bool:
        """No human labels were given: the judges are described, and nothing about agreement is decided."""
        return not self.input.humans

    @property
    def notes(self) -> tuple[str, ...]:
        return self.read_notes + self.input.notes

    @cached_property
    def _by_judge(self) -> dict[str, JudgeAgreement]:
        return {a.judge: a for a in self.agreements}

    def agreement(self, judge: str) -> JudgeAgreement:
        """The judge's audit (a lookup: pages ask for every judge's in turn)."""
        return self._by_judge[judge]

    @property
    def kind_words(self) -> str:
        """The judge's kind and why, in words."""
        if self.kind == "binary":
            return "pass/fail judge: every score is 0 or 1 (pass = 1)"
        scale = self.input.scale or self.input.values
        seen = "" if not self.input.scale or set(self.input.values) == set(scale) else \
            f" ({len(self.input.values)} of them used)"
        return (f"graded judge: scores on a scale of {len(scale)} values from {scale[0]:g} to {scale[-1]:g}"
                f"{' (as the log declares it)' if self.input.scale else ''}{seen}")


def confidence_notes(x: ScoredInput) -> tuple[str, ...]:
    """What became of the judges' stated confidences, said: a graded judge's are not used; a pass/fail
    judge's are scored over the items that state one."""
    stated = ~np.isnan(x.confidence)
    if not stated.any():
        return ()
    if x.kind == "graded":
        return (f"{int(stated.sum()):,} stated confidences were not used: a graded judge's confidence has no single "
                "pass/fail outcome to be scored against",)
    out = []
    for i, judge in enumerate(x.judges):
        scored = ~np.isnan(x.column(judge))
        k, n = int((stated[:, i] & scored).sum()), int(scored.sum())
        if 0 < k < n:
            out.append(f"{judge} states a confidence on {k:,} of its {n:,} items: its calibration is over those")
    return tuple(out)


def default_level(kind: str) -> Level:
    """A pass/fail verdict is nominal; a score on a scale is ordinal (its steps need not be equal)."""
    return "nominal" if kind == "binary" else "ordinal"


def measure_scored(frame: pd.DataFrame, file: str = "", level: Level | None = None, *,
                   identity: dict[str, str] | None = None, shape: str = "scores table",
                   notes: Sequence[str] = (), labels: dict[float, str] | None = None,
                   scale: Sequence[float] | None = None) -> ScoredMeasurement:
    """Measure a graded or pass/fail judge log (io's scores table) against its human labels.
    ``level``: None for the kind's default (:func:`default_level`), said as chosen from the data;
    nominal, ordinal or interval (a score's zero is not a ratio scale's). ``scale``: the values the
    log declares (decides the kind and the scale's step), else those seen."""
    if level not in (None, "nominal", "ordinal", "interval"):
        raise ValueError(f"a judge's level is nominal, ordinal or interval, not {level!r}")
    x = scored_input(frame, file)
    if scale:
        x = replace(x, scale=tuple(float(v) for v in scale))
    x = replace(x, notes=x.notes + confidence_notes(x))
    kind = x.kind
    chosen = "user" if level else "data"
    level = level or default_level(kind)
    humans = human_side(x, level)
    agreements = tuple(agreement(x, j, level, humans) for j in x.judges)
    return ScoredMeasurement(x, kind, level, chosen, agreements, judge_panel(x, level, agreements),
                             dict(identity or {}), shape, tuple(notes), dict(labels or {}), describe(x))


# --- the counts an out-of-core engine returns -------------------------------------------------------

@dataclass(frozen=True)
class ScoredCounts:
    """Every two raters' table of paired scores over the items both scored, and the same over the
    items two or more humans scored, and each rater's role: what an engine
    (agreebound.engines.scored_sql) returns, mergeable by adding tables."""

    roles: dict[str, str]  # rater -> "judge" | "human"
    items: dict[str, int]  # rater -> items it scored
    values: tuple[float, ...]  # the scores that occur in a pair, ascending
    tables: dict[tuple[str, str], np.ndarray] = field(repr=False)  # (a, b), a < b: values x values counts
    tables2: dict[tuple[str, str], np.ndarray] = field(repr=False)  # the same, items two or more humans scored

    @classmethod
    def of(cls, roles: dict[str, str], items: dict[str, int], pairs: Sequence[tuple[str, str, float, float, int]],
           pairs2: Sequence[tuple[str, str, float, float, int]]) -> "ScoredCounts":
        """From rows (rater a, rater b, a's score, b's score, items), a < b: over every item, and
        over the items two or more humans scored."""
        values = tuple(sorted({v for _, _, x, y, _ in pairs for v in (x, y)}))
        at = {v: i for i, v in enumerate(values)}

        def tables(rows: Sequence[tuple[str, str, float, float, int]]) -> dict[tuple[str, str], np.ndarray]:
            out: dict[tuple[str, str], np.ndarray] = {}
            for a, b, x, y, n in rows:
                t = out.setdefault((a, b), np.zeros((len(values), len(values)), dtype=np.int64))
                t[at[x], at[y]] += n
            return out

        return cls(dict(roles), dict(items), values, tables(pairs), tables(pairs2))

    @classmethod
    def of_input(cls, x: ScoredInput) -> "ScoredCounts":
        """The same counts from scores in memory."""
        roles = {r: ("judge" if r in x.judges else "human") for r in x.raters}
        items = {r: int((~np.isnan(x.column(r))).sum()) for r in x.raters}
        two = (~np.isnan(x.matrix[:, len(x.judges):])).sum(1) >= 2

        def rows(mask: np.ndarray) -> list[tuple[str, str, float, float, int]]:
            out = []
            for a in x.raters:
                for b in x.raters:
                    if a < b:
                        both = ~np.isnan(x.column(a)) & ~np.isnan(x.column(b)) & mask
                        found = pd.DataFrame({"x": x.column(a)[both], "y": x.column(b)[both]}).value_counts()
                        out += [(a, b, float(u), float(v), int(n)) for (u, v), n in found.items()]
            return out

        return cls.of(roles, items, rows(np.ones(len(x.items), dtype=bool)), rows(two))

    def table(self, a: str, b: str, two: bool = False) -> np.ndarray:
        """Rows: a's score; columns: b's (zeros when they share no item); ``two``: over the items two
        or more humans scored."""
        tables = self.tables2 if two else self.tables
        if (a, b) in tables:
            return tables[(a, b)]
        if (b, a) in tables:
            return tables[(b, a)].T
        return np.zeros((len(self.values), len(self.values)), dtype=np.int64)

    def pooled(self, pairs: Sequence[tuple[str, str]], two: bool = False) -> np.ndarray:
        """The listed rater pairs' tables added: the pooled pairs of :func:`pooled_alpha`."""
        return sum((self.table(a, b, two) for a, b in pairs),
                   np.zeros((len(self.values), len(self.values)), dtype=np.int64))

    @property
    def judges(self) -> tuple[str, ...]:
        return tuple(sorted(r for r, role in self.roles.items() if role == "judge"))

    @property
    def humans(self) -> tuple[str, ...]:
        return tuple(sorted(r for r, role in self.roles.items() if role == "human"))


@dataclass(frozen=True)
class CountedAudit:
    """One judge's counts-based measures, exact (no intervals: those need each item's scores)."""

    judge: str
    level: Level
    judge_alpha: Fraction | None
    human_alpha: Fraction | None
    difference: Fraction | None
    exact_agreement: Fraction | None
    within_one: Fraction | None
    leniency: Fraction | None
    pairs: int


def measure_counts(c: ScoredCounts, level: Level | None = None) -> dict[str, CountedAudit]:
    """Each judge's counts-based measures from an engine's counts, through the in-memory audit's own
    definitions (pooled pairs; alpha from the pooled table through the panel path)."""
    kind = "binary" if set(c.values) <= {0.0, 1.0} else "graded"
    level = level or default_level(kind)
    v = np.array(c.values)
    hpairs = [(a, b) for i, a in enumerate(c.humans) for b in c.humans[i + 1:]]
    hh = table_alpha(v, c.pooled(hpairs, True), level) if hpairs else None
    out = {}
    for j in c.judges:
        jpairs = [(j, h) for h in c.humans]
        pooled = c.pooled(jpairs)
        n = int(pooled.sum())
        ja = table_alpha(v, pooled, level) if n else None
        jh2 = table_alpha(v, c.pooled(jpairs, True), level) if hpairs else None
        gap = v[:, None] - v[None, :]
        exact = Fraction(int(np.trace(pooled)), n) if n else None
        within = Fraction(int(pooled[np.abs(gap) <= scale_step(c.values)].sum()), n) if n else None
        d = sum((Fraction(int(pooled[i, k])) * (exact_value(v[i]) - exact_value(v[k]))
                 for i, k in zip(*np.nonzero(pooled))), Fraction(0))
        diff = None if jh2 is None or hh is None else jh2 - hh
        out[j] = CountedAudit(j, level, ja, hh, diff, exact, within, d / n if n else None, n)
    return out


