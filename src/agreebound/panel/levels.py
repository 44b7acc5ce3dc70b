"""Rules about the data, not measurements: the level of measurement a panel's values admit, the
one in force when nobody chose, the one to suggest, the category that reads as a detector firing,
and how a level and a panel's raters are said.

The io preview, the measuring code and every renderer ask these the same question and get the
same answer; nothing here computes alpha or compares it with a threshold.
"""

from __future__ import annotations

from typing import Protocol, Sequence, cast

import numpy as np

from agreebound.core.limits import RATIO_MAX_CATEGORIES
from agreebound.panel.categories import Categories, Level, Value
from agreebound.panel.ratings import HUMAN_PREFIX, RatingPanel


#: Who chose the level in force: the user (--level, the level picker), the mapping file, or nobody
#: (the default rule, :func:`default_level`).
LEVEL_ORIGINS = ("user", "mapping", "default")
#: Above this many distinct whole numbers nominal reads every value as a category of its own.
NOMINAL_MAX_VALUES = 20
#: How each origin of the level in force is said beside it.
LEVEL_ORIGIN_WORDS = {"user": "chosen", "mapping": "the mapping's", "default": "the default"}


class PanelValues(Protocol):
    """What these rules read of a panel: its kind ("integer", "decimal" or "label") and its
    categories (a :class:`RatingPanel`, or counts read as one)."""

    @property
    def kind(self) -> str: ...

    @property
    def categories(self) -> Categories: ...


def suggest_level(panel: PanelValues) -> tuple[Level, str]:
    """The level the values most likely mean, and why, in words. Never ratio: that needs a true
    zero only the user knows about."""
    cats = panel.categories
    k = len(cats)
    if panel.kind == "label":
        return "nominal", "the values are labels (categories with no order)"
    if k <= 2:
        return "nominal", f"{k} distinct value{'s' if k != 1 else ''}: every level gives the same alpha"
    if panel.kind == "integer" and k <= 10:
        shown = ", ".join(str(v) for v in cats.first(3)) + ("..." if k > 3 else "")
        return "ordinal", (f"{k} ordered whole numbers ({shown}), like a rating scale: ordinal or interval fits; "
                           "nominal would treat neighbouring values as unrelated")
    return "interval", (f"{k:,} numeric values: distances between them mean something; nominal would treat "
                        "close values as unrelated")


def default_level(panel: PanelValues) -> tuple[Level, str]:
    """The level in force when nobody chose one, and why: the specification's (the seeds' nominal,
    also R ``kripp.alpha``'s default), except where nominal cannot mean anything: numbers with
    decimals, or more than :data:`NOMINAL_MAX_VALUES` distinct whole numbers (then interval).
    The suggested level (:func:`suggest_level`) is offered beside it, never silently applied."""
    cats = panel.categories
    k = len(cats)
    if panel.kind == "label":
        return "nominal", "the values are labels (nominal is the only level they admit)"
    if panel.kind == "decimal":
        return "interval", ("numbers with decimals: nominal would make every distinct number a category of its "
                            "own, so the default is interval")
    if k > NOMINAL_MAX_VALUES:
        return "interval", (f"{k:,} distinct whole numbers, more than {NOMINAL_MAX_VALUES}: nominal would make each "
                            "a category of its own, so the default is interval")
    return "nominal", "the specification's level, and R kripp.alpha's default"


def admissible_levels(panel: PanelValues) -> tuple[Level, ...]:
    """The levels these values can be read at: labels are nominal only; ratio needs values >= 0
    and at most RATIO_MAX_CATEGORIES of them."""
    if panel.kind == "label":
        return ("nominal",)
    cats = panel.categories
    out: tuple[Level, ...] = ("nominal", "ordinal", "interval")
    if len(cats) and cats.floats.min() >= 0 and len(cats) <= RATIO_MAX_CATEGORIES:
        out += ("ratio",)
    return out


def level_question(suggested: Level, kind: str, values: Sequence[Value]) -> str:
    """Why the suggested level, in the reader's words ("These look like a 1-5 rating scale."), for
    the one-click switch; ``values``: the panel's distinct values, in order."""
    if suggested == "ordinal" and kind == "integer" and len(values):
        return f"These look like a {values[0]}-{values[-1]} rating scale."
    if suggested == "interval":
        return "These look like measurements, where distances mean something."
    return f"These look like {suggested} data."


def level_phrase(level: Level, chosen_by: str) -> str:
    """How a verdict or an alpha names its level.

    >>> level_phrase("nominal", "default")
    'at the nominal level (the default)'
    """
    return f"at the {level} level ({LEVEL_ORIGIN_WORDS[chosen_by]})"


POSITIVE_WORDS = ("1", "yes", "y", "true", "positive", "pos", "toxic", "flagged", "flag", "unsafe", "harmful",
                  "violation", "violating", "spam", "abusive", "offensive", "hate", "accept", "relevant", "present")


def suggest_positive(panel: PanelValues, counts: np.ndarray | Sequence[int] | None = None) -> Value | None:
    """For two-valued data, the value that reads as a detector firing (1, yes, toxic, ...), or the
    rarer one (``counts``: each category's ratings; by default counted from the panel); None otherwise."""
    cats = panel.categories
    if len(cats) != 2:
        return None
    values = list(cats.values)
    for v in values:
        if str(v).strip().lower() in POSITIVE_WORDS:
            return v
    if counts is None:
        counts = np.bincount(cast(RatingPanel, panel).coded.code, minlength=2)  # counted from its ratings
    return values[int(np.argmin(counts))]


def default_positive(categories: tuple[Value, ...]) -> int | None:
    """1 for a 0/1 panel; otherwise no default (the caller must choose a positive category).

    >>> default_positive((0, 1)), default_positive(("no", "yes"))
    (1, None)
    """
    if categories and len(categories) <= 2 and set(categories) <= {0, 1} and 1 in categories:
        return 1
    return None


def rater_noun(raters: Sequence[str]) -> str:
    """"rater" when the panel is a human study (every rater named as a person: the rule that then
    counts them all as independent), "detector" otherwise: the words a reader's panel deserves."""
    return "rater" if raters and all(r.lower().startswith(HUMAN_PREFIX) for r in raters) else "detector"
