"""A graded or pass/fail judge's input: items x raters (the judge and the humans), its kinds, gates and
their titles; the table every measure reads.
"""

from __future__ import annotations
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence
import numpy as np
import pandas as pd
from agreebound.core.errors import InputError
from agreebound.core.limits import (MAX_JUDGES, MAX_SCORE_VALUES, MIN_SCORE_MAGNITUDE, SCORE_RANGE,
                               within_magnitude)



KINDS = ("graded", "binary")
PASS, FAIL, INCOMPLETE = "PASS_CALIBRATION", "FAIL_CALIBRATION", "INCOMPLETE"
#: The gates of a graded or pass/fail judge: (name, threshold field, kind).
SCORED_GATES: tuple[tuple[str, str, str], ...] = (
    ("admissibility", "admissibility_margin_permil", "min"),
    ("judge_alpha", "judge_alpha_floor_permil", "min"),
)
GATE_TITLES = {"admissibility": "agreement with humans, against the humans' own (alpha difference)",
               "judge_alpha": "agreement with humans (alpha of the judge-human pairs)"}
JACKKNIFE = ("delete-one-item jackknife over {n:,} items (each item one cluster), t quantile with {df:,} "
             "degrees of freedom")


# --- the input: items x raters ------------------------------------------------------------------

@dataclass(frozen=True)
class ScoredInput:
    """Scores as items x raters (judges first, then humans; NaN missing), and per item the model
    whose answer was judged, its length, and each judge's stated confidence."""

    file: str
    items: tuple[str, ...]
    judges: tuple[str, ...]
    humans: tuple[str, ...]
    matrix: np.ndarray = field(repr=False)  # items x (judges + humans), float, NaN missing
    model: np.ndarray = field(repr=False)  # per item: str ("" unknown)
    length: np.ndarray = field(repr=False)  # per item: float (NaN unknown)
    confidence: np.ndarray = field(repr=False)  # items x judges: float (NaN none)
    notes: tuple[str, ...] = ()
    #: the scale's values when the log declares them (MT-Bench's 1..10), else None: the scores seen
    scale: tuple[float, ...] | None = None

    @property
    def raters(self) -> tuple[str, ...]:
        return self.judges + self.humans

    @cached_property
    def rater_at(self) -> dict[str, int]:
        """Each rater's column (looked up once: a search of the raters per lookup is quadratic in them)."""
        return {r: i for i, r in enumerate(self.raters)}

    def column(self, rater: str) -> np.ndarray:
        return self.matrix[:, self.rater_at[rater]]

    @cached_property
    def human_mean(self) -> np.ndarray:
        """Each item's mean human score, NaN where no human scored it (:func:`reference`)."""
        h = self.matrix[:, len(self.judges):]
        counts = (~np.isnan(h)).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, np.nansum(h, axis=1) / np.maximum(counts, 1), np.nan)

    @cached_property
    def models(self) -> tuple[tuple[str, ...], np.ndarray]:
        """The distinct models ("" unknown among them), in the order first seen, and each item's index
        into them: what a question about each model asks once per model, not once per item."""
        codes, names = pd.factorize(pd.Series(self.model, dtype=object))
        return tuple(str(n) for n in names), codes.astype(np.int64)

    @cached_property
    def two_humans(self) -> np.ndarray:
        """The items two or more humans scored (the admissibility gate's items)."""
        return (~np.isnan(self.matrix[:, len(self.judges):])).sum(1) >= 2

    @cached_property
    def values(self) -> tuple[float, ...]:
        v = self.matrix[~np.isnan(self.matrix)]
        return tuple(float(x) for x in np.unique(v))

    @property
    def kind(self) -> str:
        """"binary" when every score is 0 or 1 (pass/fail), else "graded"; a declared scale decides
        (a 1-10 judge that gave only 1s is still graded)."""
        return "binary" if set(self.scale or self.values) <= {0.0, 1.0} else "graded"

    @property
    def step(self) -> float:
        """One step of the scale: the smallest gap between its values (declared, else seen); 1 without two."""
        return scale_step(self.scale or self.values)


def scale_step(values: Sequence[float]) -> float:
    """The smallest gap between consecutive scale values (0.5 for C/P/I read as 0, 0.5, 1); 1 when
    there are fewer than two values."""
    v = sorted(set(values))
    return float(min(b - a for a, b in zip(v, v[1:]))) if len(v) > 1 else 1.0


def scored_input(frame: pd.DataFrame, file: str = "") -> ScoredInput:
    """The long scores table (io's SCORE_COLUMNS: item, rater, role, score, model, length,
    confidence, line) as items x raters. Two scores of one rater on one item are a located error."""
    for col in ("item", "rater", "role", "score"):
        if col not in frame:
            raise InputError(file, None, col, "a scores table needs the columns item, rater, role and score")
    f = frame.reset_index(drop=True)
    line = f["line"].to_numpy() if "line" in f else np.arange(1, len(f) + 1)
    dup = f.duplicated(["item", "rater"], keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise InputError(file, int(line[i]), "item", f"a second score of rater {f['rater'][i]!s:.60} on item "
                         f"{f['item'][i]!s:.60}: one score per rater and item")
    score = pd.to_numeric(f["score"], errors="coerce").to_numpy(dtype=float)
    if np.isnan(score).any():
        i = int(np.flatnonzero(np.isnan(score))[0])
        raise InputError(file, int(line[i]), "score", "expected a number (a score, or 1/0 for pass/fail)")
    _check_magnitude(file, line, "score", score, SCORE_RANGE, smallest=MIN_SCORE_MAGNITUDE)
    check_scale(file, len(np.unique(score)))
    role = f["role"].astype(str).to_numpy()
    # raters and items in the order first seen, each row's as a code (hashed once: not a Python
    # object per row)
    rc, names = pd.factorize(f["rater"].astype(str), use_na_sentinel=False)
    names = list(names)

    def first_seen(mask: np.ndarray) -> tuple[str, ...]:
        return tuple(names[int(c)] for c in pd.unique(rc[mask]))

    judges = first_seen(role == "judge")
    if not judges:
        raise InputError(file, None, "role", "no judge scores (role 'judge')")
    check_judges(file, len(judges))
    humans = first_seen(role == "human")
    if "length" in f:
        ln = pd.to_numeric(f["length"], errors="coerce").to_numpy(dtype=float)
        _check_magnitude(file, line, "length", ln[~np.isnan(ln)], "an answer length from -10^15 to 10^15",
                         np.flatnonzero(~np.isnan(ln)))
    ii, item_names = pd.factorize(f["item"].astype(str), use_na_sentinel=False)
    items = tuple(item_names.tolist())
    raters = judges + humans
    ri = pd.Index(raters).get_indexer(pd.Index(names, dtype=object))[rc] if len(rc) else np.zeros(0, dtype=np.int64)
    keep = ri >= 0  # a role other than judge/human: not a rater here
    matrix = np.full((len(items), len(raters)), np.nan)
    matrix[ii[keep], ri[keep]] = score[keep]
    model, length, conf = _per_item(f, ii, ri, len(items), len(judges))
    notes = () if keep.all() else (f"{int((~keep).sum()):,} scores with a role other than judge or human left out",)
    return ScoredInput(file, items, judges, humans, matrix, model, length, conf, notes)


def _check_magnitude(file: str, line: np.ndarray, column: str, values: np.ndarray, expected: str,
                     at: np.ndarray | None = None, smallest: float = 0.0) -> None:
    """Every value finite, within MAX_SCORE_MAGNITUDE and 0 or at least ``smallest`` in size, else the
    first that is not, located (``at``: the values' positions in the table, when they are a part of
    its rows)."""
    bad = ~within_magnitude(values, smallest)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(line[i if at is None else at[i]])
        raise InputError(file, row, column, f"expected {expected}, got {float(values[i])!r}")


def check_judges(file: str, judges: int) -> None:
    """At most MAX_JUDGES judges in one audit, checked before any judge is measured."""
    if judges > MAX_JUDGES:
        raise InputError(file, None, "rater", f"{judges:,} judges (raters with the role judge); one audit compares at "
                         f"most {MAX_JUDGES:,} judges, each measured against the humans: audit the log in parts of "
                         f"at most {MAX_JUDGES:,} judges")


def check_scale(file: str, distinct: int) -> None:
    """A judge's scores on a scale of at most MAX_SCORE_VALUES values, before any table is built."""
    if distinct > MAX_SCORE_VALUES:
        raise InputError(file, None, "score", f"{distinct:,} distinct scores; a graded judge's scale has at most "
                         f"{MAX_SCORE_VALUES} values (round continuous scores to a scale, or audit them as ratings "
                         "at the interval level on the Panel page)")


def _per_item(f: pd.DataFrame, ii: np.ndarray, ri: np.ndarray, n: int, n_judges: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each item's model and length (the first given), each judge's confidence on it."""
    model = np.full(n, "", dtype=object)
    length = np.full(n, np.nan)
    conf = np.full((n, n_judges), np.nan)
    if "model" in f:
        m = f["model"].fillna("").astype(str).to_numpy()
        given = m != ""
        model[ii[given][::-1]] = m[given][::-1]  # the first given wins
    if "length" in f:
        ln = pd.to_numeric(f["length"], errors="coerce").to_numpy(dtype=float)
        given = ~np.isnan(ln)
        length[ii[given][::-1]] = ln[given][::-1]
    if "confidence" in f:
        c = pd.to_numeric(f["confidence"], errors="coerce").to_numpy(dtype=float)
        j = (ri >= 0) & (ri < n_judges) & ~np.isnan(c)
        conf[ii[j], ri[j]] = c[j]
    return model, length, conf


