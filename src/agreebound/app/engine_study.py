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


def engine_studies(recipe: PanelRecipe, engine: str, files: Sequence[str], m: ColumnMapping,
                   measurements: Mapping[str, PanelMeasurement], floor_permil: int) -> dict[str, AnnotationStudy]:
    """Each measured dimension's annotation study from the engine's triples (DuckDB or Spark)."""
    from agreebound.engines.common import LongColumns
    from agreebound.app.recipes import RecipeError
    from agreebound.panel.study import annotation_study

    columns = LongColumns(tuple(m.unit) or ("unit",), m.rater or "rater", m.value or "value", m.dimension)
    missing = tuple(dict.fromkeys([*(m.missing or ()), *(recipe.missing or ())]))
    dimensions = list(measurements)
    if engine == "spark":
        from agreebound.engines import spark_engine

        coding, found = spark_engine.rating_triples(list(files), columns, missing=missing, dimensions=dimensions,
                                                    master=recipe.master)
    else:
        from agreebound.engines.duckdb_engine import rating_triples

        coding, found = rating_triples(list(files), columns, missing=missing, dimensions=dimensions,
                                       delimiter=m.delimiter, display=recipe.display)
    out = {}
    for d, t in found.items():  # the dimensions in the order of their first row: a --relabel file's, as in memory
        measured = measurements[d]
        if recipe.study_rule == "judge-alone" and not measured.humans:
            raise RecipeError("--relabel-rule judge-alone ranks first the units where a detector alone disagrees "
                              f"with human raters who agree; {d!r} has no human rater (name them with --humans)")
        out[d] = annotation_study(coded_ratings(t, coding), t.raters, t.units, measured.level, floor_permil,
                                  rule=recipe.study_rule, dimension=d,
                                  judges=measured.detectors if measured.humans else ())
    return out
