"""The annotation study of long ratings read out of core (DuckDB or Spark): the engine returns each
dimension's ``GROUP BY unit, rater, value COUNT(*)`` (agreebound.engines.common.RatingTriples),
this module turns them into the coded ratings the in-memory reader would have made (the same
categories in the same order, units and raters numbered by their first row), and the one
:func:`agreebound.panel.study.annotation_study` studies them, as in memory.

Memory: the study holds every rating's unit, rater and code (3 int64 arrays) and the rater model's
work arrays; above :data:`agreebound.engines.common.MAX_STUDY_RATINGS` ratings the engines refuse
with an InputError before fetching any.

>>> import numpy as np
>>> from agreebound.engines.common import Coding, RatingTriples
>>> coding = Coding("label", ("1", "1.0", "x"), {"1": 0, "1.0": 1, "x": 2}, {"1": 1, "1.0": 1})
>>> t = RatingTriples("q", ("u1", "u2"), ("ann", "bo"), *(np.array(a) for a in ([0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 1, 2])))
>>> c = coded_ratings(t, coding)  # this dimension holds numbers only: "1" and "1.0" are one number
>>> c.categories.values, c.unit.tolist(), c.rater.tolist(), c.code.tolist()
((1,), [0, 0, 1, 1], [0, 1, 0, 0], [0, 0, 0, 0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence, cast

import numpy as np

from agreebound.panel.categories import Categories, Coded, Number, Value

if TYPE_CHECKING:
    from agreebound.app.recipes import PanelRecipe
    from agreebound.engines.common import Coding, RatingTriples
    from agreebound.io.mapping import Mapping as ColumnMapping
    from agreebound.panel.measure import PanelMeasurement
    from agreebound.panel.rater_model import RaterModel
    from agreebound.panel.study import AnnotationStudy

__all__ = ["coded_ratings", "engine_studies"]


def coded_ratings(triples: RatingTriples, coding: Coding) -> Coded:
    """One dimension's triples as :class:`Coded` (a count above 1 repeats the rating), its
    categories as the in-memory reader reads that dimension: the values it holds (numbers when all
    its texts are, whatever the other dimensions hold), sorted."""
    held = sorted({int(c) for c in np.unique(triples.code)})
    texts = [t for t, c in coding.code_of.items() if c in set(held)]
    kind, value_of = coding.within(texts)
    distinct = {value_of[c] for c in held}
    # numbers by value, labels (texts) as the reader sorts them
    values: list[Value] = list(sorted(cast("set[Number]", distinct))) if kind == "number" else sorted(distinct, key=str)
    index = {v: i for i, v in enumerate(values)}
    new = np.full(max(held, default=-1) + 1, -1, dtype=np.int64)
    for c in held:
        new[c] = index[value_of[c]]
    cats = Categories(exact=cast("list[Number]", values)) if kind == "number" else Categories(labels=values)
    count = np.asarray(triples.count, dtype=np.int64)
    return Coded(np.repeat(np.asarray(triples.unit, dtype=np.int64), count),
                 np.repeat(np.asarray(triples.rater, dtype=np.int64), count),
                 np.repeat(new[np.asarray(triples.code, dtype=np.int64)], count),
                 len(triples.units), len(triples.raters), cats)


#: One dimension's ratings as an engine returned them, coded as in memory: (coded, unit names, rater names).
EngineRatings = tuple[Coded, tuple[str, ...], tuple[str, ...]]


def engine_ratings(recipe: PanelRecipe, engine: str, files: Sequence[str], m: ColumnMapping,
                   dimensions: Sequence[str]) -> dict[str, EngineRatings]:
    """The ``dimensions``' ratings from the engine's triples (DuckDB or Spark), coded as the
    in-memory reader codes them, in the order of each dimension's first row."""
    from agreebound.engines.common import LongColumns

    columns = LongColumns(tuple(m.unit) or ("unit",), m.rater or "rater", m.value or "value", m.dimension)
    missing = tuple(dict.fromkeys([*(m.missing or ()), *(recipe.missing or ())]))
    if engine == "spark":
        from agreebound.engines import spark_engine

        coding, found = spark_engine.rating_triples(list(files), columns, missing=missing, dimensions=list(dimensions),
                                                    master=recipe.master)
    else:
        from agreebound.engines.duckdb_engine import rating_triples

        coding, found = rating_triples(list(files), columns, missing=missing, dimensions=list(dimensions),
                                       delimiter=m.delimiter, display=recipe.display)
    return {d: (coded_ratings(t, coding), t.units, t.raters) for d, t in found.items()}


def study_of(recipe: PanelRecipe, measured: PanelMeasurement, coded: Coded, raters: Sequence[str],
             units: Sequence[str], floor_permil: int, model: RaterModel | None = None) -> AnnotationStudy:
    """One dimension's annotation study as the recipe asks (its rule; the panel's detectors as the
    judges when it has people), in memory or from an engine's ratings alike; the judge-alone rule
    on a panel without people is a RecipeError (exit 3)."""
    from agreebound.app.recipes import RecipeError
    from agreebound.panel.study import annotation_study, study_judges

    try:
        judges = study_judges(recipe.study_rule, measured.humans, measured.detectors)
    except ValueError as e:
        raise RecipeError(f"{measured.dimension!r}: {e}") from None
    return annotation_study(coded, raters, units, measured.level, floor_permil, rule=recipe.study_rule,
                            dimension=measured.dimension, judges=judges, model=model)


def engine_studies(recipe: PanelRecipe, engine: str, files: Sequence[str], m: ColumnMapping,
                   measurements: Mapping[str, PanelMeasurement], floor_permil: int) -> dict[str, AnnotationStudy]:
    """Each measured dimension's annotation study from the engine's triples (DuckDB or Spark)."""
    found = engine_ratings(recipe, engine, files, m, list(measurements))
    # the dimensions in the order of their first row: a --relabel file's, as in memory
    return {d: study_of(recipe, measurements[d], coded, raters, units, floor_permil)
            for d, (coded, units, raters) in found.items()}
