"""What a notebook or a script calls: alpha from an array or a frame, a panel audit and a judge
audit from files or frames, each giving the same numbers and verdicts as the command line.

>>> import numpy as np
>>> reliability_data = [[np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
...                     [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
...                     [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4]]
>>> a = krippendorff_alpha(reliability_data=reliability_data, level_of_measurement="nominal")
>>> a.value, round(float(a.value), 6)   # the krippendorff package's README gives 0.691358
(Fraction(56, 81), 0.691358)
>>> round(float(krippendorff_alpha(reliability_data=reliability_data, level_of_measurement="interval").value), 6)
0.810845
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Literal, Sequence, TypeAlias

# the level of measurement: its one definition, beside LEVELS (agreebound.Level is this one)
from agreebound.panel.categories import Level

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from agreebound.panel.categories import Ratings
    from agreebound.panel.result import AlphaResult
    from agreebound.app.result import Report
    from agreebound.app.recipes import Source

#: An input as the functions take it: a file's path, its bytes, or a pandas frame.
Data: TypeAlias = "str | os.PathLike[str] | bytes | bytearray | pd.DataFrame"


def krippendorff_alpha(ratings: Ratings | None = None, *, reliability_data: Ratings | None = None,
                       level: Level | None = None,
                       level_of_measurement: Level | None = None) -> "AlphaResult":
    """Krippendorff's alpha, exact (``.value`` is a :class:`~fractions.Fraction`, None where
    undefined; ``.permil`` the seed's integer form).

    ``ratings``: units x raters (rows are units: a frame with a column per rater, or an array);
    ``reliability_data``: raters x units, as the ``krippendorff`` package takes it (same numbers).
    Missing ratings are None or NaN. ``level`` (or ``level_of_measurement``, the package's name):
    nominal (default), ordinal, interval or ratio.
    """
    from agreebound.panel.alpha import krippendorff_alpha as _alpha

    if (ratings is None) == (reliability_data is None):
        raise TypeError("give ratings (units x raters) or reliability_data (raters x units), not both or neither")
    if level is not None and level_of_measurement is not None and level != level_of_measurement:
        raise TypeError(f"level {level!r} and level_of_measurement {level_of_measurement!r} disagree: give one")
    chosen = level or level_of_measurement or "nominal"
    matrix = _matrix(ratings) if ratings is not None else _matrix(reliability_data).T
    return _alpha(matrix, chosen)


def _matrix(data: Ratings) -> np.ndarray:
    """A frame's or a nested sequence's values as a 2-D array; text keeps its Python objects (numpy
    would turn a mixed row's numbers into strings)."""
    import numpy as np

    if hasattr(data, "to_numpy"):  # a pandas frame: text and mixed columns come out as objects
        data = data.to_numpy()
    try:
        arr = np.asarray(data)
        if arr.dtype.kind in "US":
            arr = np.asarray(data, dtype=object)
    except ValueError:  # rows of different lengths
        raise ValueError("expected a two-dimensional matrix: rows of equal length") from None
    if arr.ndim != 2:
        raise ValueError(f"expected a two-dimensional matrix, got {arr.ndim} dimension(s)")
    return arr


def _source(data: Data, name: str) -> "Source":
    """A file path, bytes (named ``name``) or a pandas frame (written as CSV in memory) as an input."""
    from agreebound.app.recipes import Source

    if isinstance(data, (str, os.PathLike)):
        return Source.at(os.fspath(data))
    if isinstance(data, (bytes, bytearray)):
        return Source(name, bytes(data))
    if hasattr(data, "to_csv"):
        buffer = io.StringIO()
        data.to_csv(buffer, index=_named_index(data))
        return Source(name if name.endswith(".csv") else f"{name}.csv", buffer.getvalue().encode("utf-8"))
    raise TypeError(f"expected a file path, bytes or a pandas DataFrame, got {type(data).__name__}")


def _named_index(frame: pd.DataFrame) -> bool:
    """A frame's index is data (the unit ids) when it is named; a default 0..n-1 index is not."""
    return any(n is not None for n in getattr(frame.index, "names", [None]))


def audit_panel(data: Data, *more: Data, level: Level | Literal["auto"] = "auto", humans: Sequence[str] | None = None,
                detectors: Sequence[str] | None = None, dimension: str | None = None, mapping: Data | None = None,
                rates: Data | None = None, thresholds: Data | None = None, preset: str | None = None, engine: str = "auto",
                name: str = "ratings") -> "Report":
    """The panel audit ``agreebound panel`` runs: alpha, the detectors' spread and the verdict per
    dimension, under the thresholds (a file, or the defaults).

    ``data``: a ratings file (any format the command line reads, or several long files / a pattern
    with ``engine="duckdb"``), its bytes, or a frame (one row per unit and a column per rater, or
    one row per rating with unit, rater and value columns: read as a CSV file would be).
    The :class:`~agreebound.app.result.Report` holds ``report`` (the JSON report as a dict),
    ``decisions`` and ``html()``.
    """
    from agreebound.app.recipes import PanelRecipe
    from agreebound.app.pipeline import run

    ratings = tuple(_source(d, name) for d in (data, *more))
    recipe = PanelRecipe(ratings, _optional(mapping, "mapping.json"), level,
                         "user" if level != "auto" else None,
                         humans=tuple(humans) if humans is not None else None,
                         detectors=tuple(detectors) if detectors is not None else None, dimension=dimension,
                         engine=engine, rates=_optional(rates, "rates.csv"),
                         thresholds=_optional(thresholds, "thresholds.toml"), preset=preset)
    return run(recipe)


def audit_judge(data: Data, *, references: Data | None = None, observations: Data | None = None,
                contract: Data | None = None, mapping: Data | None = None, judge: str | None = None,
                level: Level | None = None, thresholds: Data | None = None,
                preset: str | None = None, engine: str = "auto", name: str = "judge") -> "Report":
    """The judge audit ``agreebound calibrate`` runs: a pairwise judge's bundle or log (with human
    ``references``, a ``contract``), the tabular trio (``data`` the contract, with ``references`` and
    ``observations``), or a graded or pass/fail judge's log or scores table (a frame with item,
    rater, role, score columns is read as that table)."""
    from agreebound.app.recipes import JudgeRecipe
    from agreebound.app.pipeline import run

    recipe = JudgeRecipe(_source(data, name), references=_optional(references, "references.csv"),
                         observations=_optional(observations, "observations.csv"),
                         contract=_optional(contract, "contract.json"), mapping=_optional(mapping, "mapping.json"),
                         judge=judge, engine=engine, thresholds=_optional(thresholds, "thresholds.toml"),
                         preset=preset, level=level)
    return run(recipe)


def _optional(data: Data | None, name: str) -> "Source | None":
    return None if data is None else _source(data, name)


def verdicts(report: "Report") -> dict[str, str]:
    """The verdict per dimension (a panel) or the judge's decision, as the command line prints it
    (``report.verdict`` is the one the exit code reports, ``report.exit_code`` that code).

    >>> from agreebound.app.resources import samples
    >>> r = audit_panel(samples() / "krippendorff_2011.csv", level="interval")
    >>> verdicts(r), r.verdict, r.exit_code
    ({'all': 'ENFORCE'}, 'ENFORCE', 0)
    """
    r = report.report
    if r["kind"] == "panel":
        return {d["dimension"]: d["verdict"] for d in r["panel"]["dimensions"]}
    return {"judge": report.verdict}
