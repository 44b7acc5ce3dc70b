"""Diagnostics beside a panel's verdict: alpha with each rater removed, the units that disagree most,
each detector against the human column.
"""

from __future__ import annotations
from fractions import Fraction
from typing import Sequence
import numpy as np
from agreebound.core.limits import DIAGNOSTIC_RATERS
from agreebound.panel.alpha import alpha as alpha_of_counts
from agreebound.panel.alpha import alpha_without_each_rater as _alpha_without_each
from agreebound.panel.counts import PanelCounts, from_coded
from agreebound.panel.result import AlphaResult
from agreebound.panel.categories import Coded, Level, Ratings, encode
from agreebound.panel.alpha import unit_disagreement as _histogram_disagreement


# --- diagnostics -----------------------------------------------------------------------------


def _without_rater(c: Coded, j: int) -> Coded:
    keep = c.rater != j
    return Coded(c.unit[keep], np.where(c.rater[keep] > j, c.rater[keep] - 1, c.rater[keep]), c.code[keep],
                 c.n_units, c.n_raters - 1, c.categories)


def _pair(c: Coded, a: int, b: int) -> Coded:
    keep = (c.rater == a) | (c.rater == b)
    return Coded(c.unit[keep], (c.rater[keep] == b).astype(np.int64), c.code[keep], c.n_units, 2, c.categories)


def alpha_without_each_rater(ratings: Coded | Ratings, raters: Sequence[str], level: Level) -> dict[str, Fraction | None]:
    """Alpha with each rater left out, in memory (one alpha per rater: empty above DIAGNOSTIC_RATERS
    raters): the counts of the others' ratings measured by agreebound.panel.alpha's one leave-one-out."""
    c = encode(ratings)
    index = {name: j for j, name in enumerate(raters)}

    def counts_without(name: str) -> PanelCounts:
        return from_coded(_without_rater(c, index[name]), [r for r in raters if r != name])

    return _alpha_without_each(list(raters), counts_without, level, DIAGNOSTIC_RATERS)


def unit_disagreement(ratings: Coded | Ratings, level: Level, result: AlphaResult) -> np.ndarray:
    """Each unit's contribution to the observed disagreement sum_ck o_ck d2_ck (0 for unpairable):
    the numpy engine's unit histograms (one per pairable unit, in unit order) measured by
    agreebound.panel.alpha.unit_disagreement."""
    c = encode(ratings)
    out = np.zeros(c.n_units)
    if result.value is None:
        return out
    pairable = np.flatnonzero(np.bincount(c.unit, minlength=c.n_units) >= 2)
    out[pairable] = _histogram_disagreement(from_coded(c), level)
    return out


def detector_vs_human(ratings: Coded | Ratings, raters: Sequence[str], humans: Sequence[str],
                      level: Level) -> dict[str, Fraction | None]:
    """Alpha of each non-human rater against the (first) human rater (empty above DIAGNOSTIC_RATERS)."""
    if not humans or len(raters) > DIAGNOSTIC_RATERS:
        return {}
    c = encode(ratings)
    h = list(raters).index(humans[0])
    return {name: alpha_of_counts(from_coded(_pair(c, j, h), (name, humans[0])), level).value
            for j, name in enumerate(raters) if name not in humans}


