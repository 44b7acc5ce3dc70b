"""Rules about the data, not measurements: the level of measurement a panel's values admit, the
one in force when nobody chose, the one to suggest, the category that reads as a detector firing,
and how a level and a panel's raters are said.

The io preview, the measuring code and every renderer ask these the same question and get the
same answer; nothing here computes alpha or compares it with a threshold.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Protocol, Sequence, cast

import numpy as np

from agreebound.core.limits import RATIO_MAX_CATEGORIES
from agreebound.panel.categories import Categories, Level, Value
from agreebound.panel.ratings import RatingPanel


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
    """The level the values most likely mean, and why, in words (the rule's own words: never a
    label, which the notes show escaped). Never ratio: that needs a true zero only the user knows
    about. Labels that look ordered (:func:`inferred_order`) suggest ordinal in the order inferred,
    which the reader's notes show for the user to give or edit."""
    cats = panel.categories
    k = len(cats)
    if panel.kind == "label":
        if cats.ordered:
            return "ordinal", ORDER_GIVEN
        if inferred_order(cats.first(ORDER_GUESS_MAX + 1)) is not None:
            return "ordinal", ("the labels look ordered (numbered, or a rating scale's words): ordinal fits, in the "
                               "order the notes show (give it with --order, the mapping's order or the order box)")
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
        if cats.ordered:
            return "ordinal", ORDER_GIVEN
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
        return ("nominal", "ordinal") if panel.categories.ordered else ("nominal",)
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
    if suggested == "ordinal" and kind == "label":
        return "These labels look ordered."
    if suggested == "interval":
        return "These look like measurements, where distances mean something."
    return f"These look like {suggested} data."


#: Why ordered labels are read at the ordinal level (the default and the suggestion alike).
ORDER_GIVEN = "the categories' order was given: the ordinal level reads their ranks"
#: Label sets larger than this are not searched for an order (no rating scale has so many).
ORDER_GUESS_MAX = 30

#: Rating scales' words, lowest first; a set of labels all from one scale is read in its order.
#: Words on one rung are synonyms (a scale holding two of them is not ordered by these words).
SCALES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("strongly disagree",), ("disagree", "mostly disagree"), ("somewhat disagree", "slightly disagree"),
     ("neither agree nor disagree", "neutral", "undecided", "neither"), ("somewhat agree", "slightly agree"),
     ("agree", "mostly agree"), ("strongly agree",)),
    (("never",), ("rarely", "seldom"), ("sometimes", "occasionally"), ("often", "frequently"),
     ("usually", "very often", "almost always"), ("always",)),
    (("very poor", "terrible", "awful"), ("poor", "bad"), ("fair", "average", "ok", "okay", "acceptable"),
     ("good",), ("very good",), ("excellent",)),
    (("very low",), ("low",), ("medium", "moderate", "mid", "middle"), ("high",), ("very high",)),
    (("none",), ("mild", "slight", "minor"), ("moderate",), ("severe", "major"), ("critical", "extreme")),
    (("very unlikely",), ("unlikely",), ("neutral", "unsure"), ("likely",), ("very likely",)),
    (("very dissatisfied",), ("dissatisfied",), ("neutral",), ("satisfied",), ("very satisfied",)),
    (("not at all",), ("slightly", "a little"), ("moderately", "somewhat"), ("very", "quite a bit"),
     ("extremely",)),
)
_ORDINAL_WORDS = {w: i for i, w in enumerate(
    ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), 1)}
_NUMBER = re.compile(r"(?<![0-9.])(-?[0-9]{1,6})(?:st|nd|rd|th)?(?![0-9.])", re.IGNORECASE)
_WORD = re.compile(r"\b(" + "|".join(_ORDINAL_WORDS) + r")\b", re.IGNORECASE)


def inferred_order(labels: Sequence[Value]) -> tuple[str, ...] | None:
    """The order labels seem to have, lowest first, or None: each label numbered once (1st, 2nd,
    "grade 3", "Level 2 - fair", "third") with the same words around the numbers or the number
    first, distinct numbers; or every label one rung of one rating scale (:data:`SCALES`).
    At least three labels (two are ordered either way: every level gives one alpha).

    >>> inferred_order(["3rd grade", "1st grade", "4th Grade", "2nd grade"])
    ('1st grade', '2nd grade', '3rd grade', '4th Grade')
    >>> inferred_order(["Agree", "Strongly disagree", "Neutral", "Strongly agree"])
    ('Strongly disagree', 'Neutral', 'Agree', 'Strongly agree')
    >>> inferred_order(["cat", "dog", "bird"]) is None
    True
    """
    texts = [str(v) for v in labels]
    if not 3 <= len(texts) <= ORDER_GUESS_MAX:
        return None
    return _numbered(texts) or _on_a_scale(texts)


def _numbered(texts: list[str]) -> tuple[str, ...] | None:
    ranks, rests, first = [], set(), True
    for t in texts:
        found = [(int(m.group(1)), m.start(), m.end()) for m in _NUMBER.finditer(t)]
        found += [(_ORDINAL_WORDS[m.group(1).lower()], m.start(), m.end()) for m in _WORD.finditer(t)]
        if len(found) != 1:
            return None
        n, a, b = found[0]
        ranks.append(n)
        rests.add(" ".join((t[:a] + " " + t[b:]).lower().split()))
        first = first and not t[:a].strip()
    if len(set(ranks)) != len(ranks) or not (len(rests) == 1 or first):
        return None
    return tuple(t for _, t in sorted(zip(ranks, texts)))


def _on_a_scale(texts: list[str]) -> tuple[str, ...] | None:
    words = [" ".join(t.lower().replace("_", " ").replace("-", " ").split()) for t in texts]
    for scale in SCALES:
        rung = {w: i for i, rungs in enumerate(scale) for w in rungs}
        if all(w in rung for w in words) and len({rung[w] for w in words}) == len(words):
            return tuple(t for _, t in sorted(zip((rung[w] for w in words), texts)))
    return None


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


#: Words that, opening a word of a rater's name, mark an automatic detector ("detector-lexicon",
#: "toxicity_classifier", "model-b", "llm-judge", "gpt4o"). Names of people and of human coders
#: ("observer-a", "judge 3", "alice") carry none of them.
DETECTOR_WORDS = ("detector", "classifier", "model", "llm", "gpt")
_NAME_WORDS = re.compile(r"[a-z]+")


def rater_noun(raters: Sequence[str], humans: Sequence[str] = (), rates_given: bool = False) -> str:
    """What a panel's raters are called on every surface (the page, the command line, the reports,
    the JSON's ``rater_word``): "detector" for a detector panel, "rater" for a study of raters.

    The one rule: a panel is a detector panel when a detector rates file was given
    (``rates_given``), when some raters are people beside the others (``humans``: by their names,
    the mapping's humans, ``--humans`` or ``--detectors``: a human baseline beside detectors), or
    when any rater's name says detector, classifier, model, llm or gpt (:data:`DETECTOR_WORDS`).
    Otherwise its raters are raters: clinicians, coders, judges of wine.

    >>> rater_noun(["observer-a", "observer-b", "observer-c"])
    'rater'
    >>> rater_noun(["detector-lexicon", "detector-ml", "detector-llm"])
    'detector'
    >>> rater_noun(["detector-solo", "human"], humans=["human"])
    'detector'
    >>> rater_noun(["human-1", "human-2"]), rater_noun(["alice", "bob"], rates_given=True)
    ('rater', 'detector')
    """
    if rates_given or humans:
        return "detector"
    named = any(w.startswith(DETECTOR_WORDS) for r in raters for w in _NAME_WORDS.findall(str(r).lower()))
    return "detector" if named else "rater"


def panel_noun(m: object) -> str:
    """:func:`rater_noun` of a measured panel (agreebound.panel.measure.PanelMeasurement: its
    raters, its humans and whether its rates came from a file)."""
    source = str(getattr(m, "rates_source", ""))
    return rater_noun(getattr(m, "raters"), getattr(m, "humans"), source.startswith("file:"))


_SEED_WORDS = re.compile(r"\bdetector(\(s\)|s)?\b")


def in_raters_words(text: str, noun: str) -> str:
    """A decided sentence in the seed's words ("1 independent detector(s)", "detector spread")
    said of a panel's raters when ``noun`` is "rater" (unchanged for a detector panel). For the
    decided reasons' own sentences only: never user text.

    >>> in_raters_words("detector spread 3.90x: one detector found nothing", "rater")
    'rater spread 3.90x: one rater found nothing'
    >>> in_raters_words("1 independent detector(s)", "detector")
    '1 independent detector(s)'
    """
    if noun == "detector":
        return text
    return _SEED_WORDS.sub(lambda mt: noun + (mt.group(1) or ""), text)


def rater_word(d: Mapping[str, Any]) -> str:
    """What a report's dimension calls its raters: its ``rater_word``, or for a report written before
    it was stored, the same rule (agreebound.panel.levels.rater_noun) read from its raters.

    >>> rater_word({"rater_word": "rater"}), rater_word({"detectors": ["a", "b"], "humans": ["human"]})
    ('rater', 'detector')
    """
    if d.get("rater_word") in ("rater", "detector"):
        return str(d["rater_word"])
    return rater_noun(d["detectors"] + d["humans"], d["humans"], str(d.get("rates_source", "")).startswith("file:"))


def raters_word(dims: Sequence[Mapping[str, Any]]) -> str:
    """A report's dimensions' raters in one plural word (a table's column): "raters" or
    "detectors" when every dimension says so, "independent raters" for a mix.

    >>> raters_word([{"rater_word": "rater"}]), raters_word([{"rater_word": "rater"}, {"rater_word": "detector"}])
    ('raters', 'independent raters')
    """
    words = {rater_word(d) for d in dims}
    return f"{words.pop()}s" if len(words) == 1 else "independent raters"
