"""An annotation study beside a panel's verdict: whom to trust, what each unit's label should be,
what to send back for relabelling, and whether the raters use the categories at the same rates.

One object (:class:`AnnotationStudy`) that every surface reads (the command line's text and JSON,
the Markdown and HTML reports, the dashboard's section), made by :func:`annotation_study` from one
dimension's ratings:

* the rater model (agreebound.panel.rater_model: Dawid-Skene over the (unit, rater, label)
  counts): each rater's skill and agreement with intervals, raters indistinguishable from chance
  and raters informative but confused named, a consensus label per unit with its probability;
* the relabel queue (agreebound.panel.relabel), ranked by the rule asked for, each unit's exact
  move of alpha toward the floor;
* marginal homogeneity (agreebound.panel.marginal_homogeneity: Stuart-Maxwell for two raters,
  Bhapkar's test for more) and the sentence said beside alpha when the raters' category rates
  explain an alpha below the floor.

These are diagnostics: nothing here changes a verdict, and the verdict never reads them.

The rater model treats the categories as nominal (a confusion matrix per rater), whatever the
level alpha is read at; a panel with more than :data:`MAX_CATEGORIES` distinct values (continuous
scores) gets no study, and says why. The skills' bootstrap takes :data:`BOOTSTRAP` resamples up to
:data:`FULL_BOOTSTRAP_RATINGS` ratings and :data:`LARGE_BOOTSTRAP` above (said in
:attr:`AnnotationStudy.method`): its cost grows with the ratings times the resamples.

>>> from agreebound.panel.categories import encode
>>> rows = [["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"], ["b", "a", "b"], ["a", "a", "a"]]
>>> s = annotation_study(encode(rows), ("ann", "bo", "cy"), [f"u{i}" for i in range(1, 6)], "nominal", 600)
>>> [(u, label, round(p, 3)) for u, label, p in s.consensus[:2]], [r.unit for r in s.queue.rows[:2]]
([('u1', 'a', 1.0), ('u2', 'b', 1.0)], ['u1', 'u4'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from agreebound.core.escape import printable
from agreebound.panel.categories import Coded, Level
from agreebound.panel.decide import alpha_gate_at
from agreebound.panel.marginal_homogeneity import (MarginalTest, RaterRate, explain_low_alpha, marginal_homogeneity,
                                                   rater_rates, stuart_maxwell, paired_table)
from agreebound.panel.rater_model import RaterModel, dawid_skene
from agreebound.panel.relabel import RULES, RelabelQueue, relabel_queue

__all__ = ["AnnotationStudy", "BOOTSTRAP", "MAX_CATEGORIES", "annotation_study"]

#: Fewer units rated by every rater (by both, for two raters) and the rates are not tested.
MIN_RATES_UNITS = 10
#: Above this many distinct values the rater model (a confusion matrix per rater) is not fitted.
MAX_CATEGORIES = 20
BOOTSTRAP = 1000
LARGE_BOOTSTRAP = 200
FULL_BOOTSTRAP_RATINGS = 20_000


@dataclass(frozen=True)
class AnnotationStudy:
    """One dimension's study. ``model``, ``queue`` and ``marginal`` are None when ``skipped`` says
    why (too many categories, fewer than two raters)."""

    dimension: str
    level: Level
    units: int
    raters: tuple[str, ...]
    model: RaterModel | None
    queue: RelabelQueue | None
    marginal: MarginalTest | None
    rates: tuple[RaterRate, ...]
    explanation: str | None  # the rates explain a low alpha (explain_low_alpha), or None
    consensus: tuple[tuple[str, object, float], ...]  # (unit, consensus label, its probability), rated units
    bootstrap: int
    skipped: str | None = None

    @property
    def method(self) -> str:
        """The choices the study rests on, in words (a report names them)."""
        if self.skipped:
            return self.skipped
        m = self.model
        assert m is not None and self.queue is not None and self.marginal is not None
        fit = "converged" if m.converged else f"stopped after {m.iterations} rounds without converging"
        return (f"Dawid-Skene over the categories as nominal labels (EM from majority vote, {fit} in {m.iterations} "
                f"rounds); skill = Cohen's kappa of each rater's labels decoded through the other half's joint "
                f"table, agreement = kappa of its labels as said, each with a percentile bootstrap interval over "
                f"units ({self.bootstrap} resamples); relabel queue ranked {self.queue.rule_text}; "
                f"{self.marginal.method}")

    @property
    def chance_raters(self) -> list[str]:
        return self.model.chance_raters() if self.model is not None else []

    @property
    def confused_raters(self) -> list[str]:
        return self.model.confused_raters() if self.model is not None else []

    def summary(self) -> list[str]:
        """The sentences a reader needs first: who is at chance, who is confused, the rates' sentence."""
        if self.skipped:
            return [self.skipped]
        out = []
        names = lambda xs: ", ".join(printable(x, 60) for x in xs)  # noqa: E731
        undefined = [s.rater for s in (self.model.skills if self.model else ()) if s.skill is None]
        if undefined:
            out.append(f"No variation (one label only, so no skill to measure): {names(undefined)}.")
        at_chance = [r for r in self.chance_raters if r not in undefined]
        if at_chance:
            out.append(f"Indistinguishable from chance (skill's 95% interval includes 0): {names(at_chance)}.")
        if self.confused_raters:
            out.append(f"Informative but confused (their labels say something, not what they name; their confusion "
                       f"rows are in the JSON report and on the Panel page): {names(self.confused_raters)}.")
        if not out:
            out.append("Every rater's skill is above chance (its 95% interval excludes 0).")
        if self.explanation:
            out.append(self.explanation)
        return out


def rates_test(coded: Coded) -> MarginalTest:
    """Whether the raters use the categories at the same rates: Stuart-Maxwell for two raters,
    Bhapkar's test for more; not tested on fewer than :data:`MIN_RATES_UNITS` units rated by every
    rater (one or two units' differences are no evidence of different rates)."""
    marginal = stuart_maxwell(paired_table(coded)) if coded.n_raters == 2 else marginal_homogeneity(coded)
    if marginal.units < MIN_RATES_UNITS:
        return MarginalTest(Fraction(0), 0, 1.0, marginal.units,
                            f"not tested: {marginal.units} unit{'' if marginal.units == 1 else 's'} rated by every "
                            f"rater; a test of equal rates needs at least {MIN_RATES_UNITS}")
    return marginal


def rates_sentence(coded: Coded, raters: Sequence[str], alpha_is_low: bool) -> str | None:
    """The sentence said beside a low alpha when the raters' category rates explain it (None when
    they do not, or cannot be tested: one rater, one category)."""
    if len(raters) < 2 or len(coded.categories.values) < 2:
        return None
    return explain_low_alpha(rates_test(coded), rater_rates(coded, raters), alpha_is_low)


def model_resamples(coded: Coded, bootstrap: int | None = None) -> int:
    """The skills' bootstrap resamples for these ratings (``bootstrap`` when given)."""
    if bootstrap is not None:
        return bootstrap
    return BOOTSTRAP if len(coded.code) <= FULL_BOOTSTRAP_RATINGS else LARGE_BOOTSTRAP


def rater_model(coded: Coded, raters: Sequence[str], bootstrap: int | None = None) -> RaterModel:
    """The study's rater model of ``coded`` (Dawid-Skene, :func:`model_resamples` resamples): the
    expensive part of a study, and the same whatever the floor and the rule."""
    return dawid_skene(coded, tuple(raters), bootstrap=model_resamples(coded, bootstrap))


def study_judges(rule: str, humans: Sequence[str], detectors: Sequence[str]) -> tuple[str, ...]:
    """The raters a study reads as judges: the detectors when the panel has people, else none; the
    ``judge-alone`` rule without people is a ValueError (it has no one to be alone against)."""
    if rule == "judge-alone" and not humans:
        raise ValueError("--relabel-rule judge-alone ranks first the units where a detector alone disagrees with "
                         "human raters who agree; this panel has no human rater (name them with --humans)")
    return tuple(detectors) if humans else ()


def annotation_study(coded: Coded, raters: Sequence[str], units: Sequence[str], level: Level, floor_permil: int,
                     *, rule: str = "uncertain-first", dimension: str = "", bootstrap: int | None = None,
                     judges: Sequence[str] = (), model: RaterModel | None = None) -> AnnotationStudy:
    """The study of one dimension's coded ratings (``raters`` and ``units`` name its columns and rows)
    against the alpha floor ``floor_permil`` (what the relabel queue moves alpha toward, and what
    "low" means for the rates' sentence). ``judges``: the raters that are judges or detectors when
    the others are people (the ``judge-alone`` rule's; every rule's why names a judge alone against
    agreeing humans). ``model``: the rater model of the same ratings (:func:`rater_model`), when a
    caller holds it: it depends on the ratings alone, not on the floor or the rule."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    names = tuple(raters)
    k = len(coded.categories.values)
    skipped = None
    if len(names) < 2:
        skipped = "A rater model needs two raters or more; this panel has one."
    elif len(coded.code) == 0:
        skipped = "No ratings: nothing to model."
    elif k < 2:
        skipped = (f"Every rating is {printable(coded.categories.values[0], 60)!r}: one category, so there is no "
                   "disagreement to model and no unit to relabel.")
    elif k > MAX_CATEGORIES:
        skipped = (f"{k:,} distinct values: the rater model (a confusion matrix per rater) is fitted for at most "
                   f"{MAX_CATEGORIES} categories; for continuous scores alpha at the interval level is the measure.")
    if skipped:
        return AnnotationStudy(dimension, level, coded.n_units, names, None, None, None, (), None, (), 0, skipped)
    if model is None:
        model = rater_model(coded, names, bootstrap)
    resamples = model_resamples(coded, bootstrap)
    queue = relabel_queue(coded, names, [str(u) for u in units], level=level, floor_permil=floor_permil, rule=rule,
                          model=model, judges=judges)
    marginal = rates_test(coded)
    rates = tuple(rater_rates(coded, names))
    low = queue.alpha is not None and not alpha_gate_at(queue.alpha, Fraction(floor_permil, 1000)).passed
    labels = model.labels()
    consensus = tuple((str(units[u]), labels[u], float(model.label_probability[u]))
                      for u in range(coded.n_units) if labels[u] is not None)
    return AnnotationStudy(dimension, level, coded.n_units, names, model, queue, marginal, rates,
                           explain_low_alpha(marginal, rates, low), consensus, resamples)
