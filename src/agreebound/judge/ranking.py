"""Rankings from a judge's pairwise verdicts: Bradley-Terry ratings on the Elo scale, a bootstrap
95% interval per model, the groups of models the data cannot separate, a gate on one model against a
baseline, and the ratings corrected by human labels (prediction-powered inference).

**Battles.** One row per judgment: ``model_a``, ``model_b``, ``outcome`` ("a", "b" or "tie", in
candidate terms, whichever order the judge saw them in) and, where known, ``case_id`` (a case's
judgments in both orders are one unit of resampling). :func:`battles_of` makes them from an
audit's observations.

**Ratings** (:func:`fit_ratings`). The Bradley-Terry maximum-likelihood fit with a tie counted as
half a win for each side, P(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400)): the likelihood of
Chatbot Arena's ``compute_bt`` (FastChat ``fastchat/serve/monitor/rating_systems.py``: a tie is
outcome 1/2) and of arena-hard-auto v0.1's ``compute_mle_elo`` (each battle twice, a tie as one
a-win and one b-win). Ratings are 400 x the natural-scale coefficient + 1000. Anchoring, as those
peers do: a named ``anchor`` model is put at ``anchor_rating`` (every rating shifted by the same
amount); without one, each group of connected models has mean 1000 (what their optimiser, started
at zero, returns: the likelihood does not move when every rating moves together). Here the fit is
Newton's method run to machine precision; the peers stop at their optimiser's tolerance (on the
sample log 1e-8 points from arena-hard-auto v0.1's, 1.6e-4 from FastChat's, whose L-BFGS-B stops at
scipy's default ftol; tests/judge/test_ranking.py). FastChat's older ``compute_elo_mle_with_tie``
(the fschat 0.2.36 wheel) is another estimator: scikit-learn's default L2 penalty (C = 1) shrinks
every rating towards the others, and it puts llama-13b at 800.

The maximum likelihood exists only where no set of models won (or tied) none of its comparisons
with the rest (Zermelo 1929; Ford 1957): :class:`NoRatings` says which models won or lost every
comparison. Models never compared, even indirectly, have ratings on separate scales:
:attr:`Ranking.components` says so, and no comparison across them is made.

**Intervals.** A percentile bootstrap (2.5% and 97.5% quantiles, linear interpolation as
``np.quantile`` and pandas' ``quantile``) of ``draws`` resamples, from ``numpy.random.default_rng(seed)``:
by case when case ids are given (a case's judgments travel together: its two orders are not
independent), else by battle, drawn exactly as FastChat's ``compute_bootstrap_bt`` draws them (a
multinomial over the distinct (model_a, model_b, outcome) cells in its order), so with the same
seed the resampled data are the same. A draw in which some model won or lost every comparison has
no ratings; it is left out and counted (:attr:`Ranking.left_out_draws`).

**Tie groups.** Models in rating order; a new group starts below a model only when the bootstrap
95% interval of the rating difference between it and the next model lies above 0. Adjacent models
on separate scales are never separated. Not adjusted for the several comparisons: a group boundary
is a 95% statement about one adjacent pair.

>>> b = pd.DataFrame({"model_a": ["x", "x", "x", "y"], "model_b": ["y", "y", "y", "x"],
...                   "outcome": ["a", "a", "tie", "a"]})
>>> r = fit_ratings(b)  # x: 2.5 of 4 against y, so 400 log10(2.5 / 1.5) apart, mean 1000
>>> bool(abs(r["x"] - r["y"] - 400 * math.log10(2.5 / 1.5)) < 1e-9), float(round((r["x"] + r["y"]) / 2, 9))
(True, 1000.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from agreebound.core.errors import InputError
from agreebound.core.gate import straddles
from agreebound.core.intervals import Z95
from agreebound.core.json_types import JSONObject

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0
#: the natural-scale coefficient per rating point: P(i beats j) = expit(ALPHA (r_i - r_j))
ALPHA = math.log(BASE) / SCALE
OUTCOMES = ("a", "b", "tie")
DRAWS = 1000
SEED = 0
METHOD = ("Bradley-Terry maximum likelihood, a tie half a win for each side, on the Elo scale "
          "(400 points = 10:1 odds)")
GROUP_RULE = ("adjacent models share a group unless the bootstrap 95% interval of their rating difference "
              "lies above 0 (not adjusted for the several comparisons)")
_NEWTON_STEPS = 200


class NoRatings(ValueError):
    """The battles have no maximum-likelihood ratings: some set of models won (or lost) every
    comparison it had with the rest, so its ratings run off to infinity."""


def battles_of(observations: pd.DataFrame) -> pd.DataFrame:
    """An audit's observations as battles: one per judgment whose two candidates' generators are
    known and differ. ``selected_candidate`` is already in candidate terms in both orders (the
    readers map a game shown swapped back: io.judge_log_harnesses), so the order plays no part.

    >>> obs = pd.DataFrame({"case_id": ["c1", "c1", "c2"], "order": ["ab", "ba", "ab"],
    ...                     "selected_candidate": ["a", "tie", "b"], "candidate_a_generator": ["m1", "m1", "m1"],
    ...                     "candidate_b_generator": ["m2", "m2", None]})
    >>> battles_of(obs).to_dict("list")
    {'model_a': ['m1', 'm1'], 'model_b': ['m2', 'm2'], 'outcome': ['a', 'tie'], 'case_id': ['c1', 'c1']}
    """
    for col in ("case_id", "selected_candidate", "candidate_a_generator", "candidate_b_generator"):
        if col not in observations.columns:
            raise InputError("observations", None, col, "a ranking needs each judgment's two candidates' generators")
    a, b = observations["candidate_a_generator"], observations["candidate_b_generator"]
    keep = a.notna() & b.notna() & (a.astype(str) != b.astype(str))
    o = observations[keep]
    bad = ~o["selected_candidate"].isin(OUTCOMES)
    if bad.any():
        raise InputError("observations", int(np.flatnonzero(bad.to_numpy())[0]) + 1, "selected_candidate",
                         "expected a, b or tie")
    return pd.DataFrame({"model_a": o["candidate_a_generator"].astype(str).to_list(),
                         "model_b": o["candidate_b_generator"].astype(str).to_list(),
                         "outcome": o["selected_candidate"].astype(str).to_list(),
                         "case_id": o["case_id"].astype(str).to_list()})


# --- the fit ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cells:
    """Battles as FastChat's ``preprocess_for_bt`` counts them: the models in order of first
    appearance (model_a's column, then model_b's), the distinct (a, b, outcome) cells sorted as
    ``np.unique`` sorts them (outcome 0: b won, 1: a tie, 2: a won) and each battle's cell."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray  # a's score in the cell: 0, 1/2 or 1
    counts: np.ndarray
    of_battle: np.ndarray


def cells_of(battles: pd.DataFrame) -> Cells:
    """The cells of battles (a row per judgment), or of aggregated battles: with a column ``n``, a row
    stands for ``n`` judgments of its (model_a, model_b, outcome) (rows with n = 0 are left out by the
    caller: a cell is a comparison made)."""
    if len(battles) == 0:
        raise NoRatings("no battles between two different models")
    codes, models = pd.factorize(pd.concat([battles["model_a"].astype(str), battles["model_b"].astype(str)]))
    n = len(battles)
    outcome = battles["outcome"].to_numpy()
    if not np.isin(outcome, OUTCOMES).all():
        raise ValueError("outcomes must be 'a', 'b' or 'tie'")
    schedule = np.column_stack([codes[:n], codes[n:], np.where(outcome == "a", 2, np.where(outcome == "b", 0, 1))])
    if (schedule[:, 0] == schedule[:, 1]).any():
        raise ValueError("a battle of a model against itself")
    unique, of_battle, counts = np.unique(schedule, axis=0, return_inverse=True, return_counts=True)
    of_battle = of_battle.reshape(-1)
    if "n" in battles.columns:  # aggregated battles: each row is n of them (one fit, whichever engine counted)
        counts = np.bincount(of_battle, weights=battles["n"].to_numpy(dtype=float), minlength=len(unique))
    return Cells(tuple(str(m) for m in models), unique[:, 0], unique[:, 1], unique[:, 2] / 2.0,
                 counts.astype(float), of_battle)


def components_of(n_models: int, a: np.ndarray, b: np.ndarray) -> list[list[int]]:
    """The groups of models connected by comparisons, each in index order, ordered by first model."""
    parent = list(range(n_models))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a.tolist(), b.tolist()):
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n_models):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _reach(start: int, edges: dict[int, set[int]]) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for j in edges.get(todo.pop(), ()):
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def _unbeaten(members: list[int], a: np.ndarray, b: np.ndarray, score: np.ndarray, w: np.ndarray,
              models: Sequence[str]) -> str | None:
    """Why a connected group has no maximum likelihood (None: it has one): its "won or tied against"
    graph must be strongly connected."""
    inside = set(members)
    beat: dict[int, set[int]] = {}
    lost: dict[int, set[int]] = {}
    for i, j, s, k in zip(a.tolist(), b.tolist(), score.tolist(), w.tolist()):
        if k <= 0 or i not in inside:
            continue
        if s > 0:  # i won or tied against j
            beat.setdefault(i, set()).add(j)
            lost.setdefault(j, set()).add(i)
        if s < 1:
            beat.setdefault(j, set()).add(i)
            lost.setdefault(i, set()).add(j)
    first = members[0]
    forward, backward = _reach(first, beat), _reach(first, lost)
    if len(forward) == len(members) and len(backward) == len(members):
        return None
    if len(forward) < len(members):  # nothing first beats, even through others, was ever beaten by them
        side, rest = inside - forward, forward
    else:  # what beats first, even through others, was never beaten by the rest
        side, rest = backward, inside - backward
    names = ", ".join(sorted(models[i] for i in side))
    others = ", ".join(sorted(models[i] for i in rest))
    return f"{names} won every comparison with {others} (no finite ratings)"


def _newton(members: list[int], a: np.ndarray, b: np.ndarray, score: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The Elo-scale maximum-likelihood ratings of one connected group (mean 0), by Newton's method
    on the group less its first model (the likelihood's one free direction), with step halving."""
    pos = {m: k for k, m in enumerate(members)}
    keep = np.isin(a, members) & (w > 0)
    ia = np.array([pos[i] for i in a[keep].tolist()], dtype=int)
    ib = np.array([pos[j] for j in b[keep].tolist()], dtype=int)
    s, k = score[keep], w[keep]
    m = len(members)
    r = np.zeros(m)

    def loglik(x: np.ndarray) -> float:
        d = ALPHA * (x[ia] - x[ib])
        return float(np.sum(k * (s * -np.logaddexp(0.0, -d) + (1 - s) * -np.logaddexp(0.0, d))))

    current = loglik(r)
    for _ in range(_NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-ALPHA * (r[ia] - r[ib])))
        g = np.zeros(m)
        np.add.at(g, ia, ALPHA * k * (s - p))
        np.add.at(g, ib, -ALPHA * k * (s - p))
        h = np.zeros((m, m))
        c = ALPHA * ALPHA * k * p * (1 - p)
        np.add.at(h, (ia, ia), c)
        np.add.at(h, (ib, ib), c)
        np.add.at(h, (ia, ib), -c)
        np.add.at(h, (ib, ia), -c)
        step = np.zeros(m)
        step[1:] = np.linalg.solve(h[1:, 1:], g[1:])
        t = 1.0
        while True:
            trial = r + t * step
            value = loglik(trial)
            if value >= current - 1e-12 * abs(current) or t < 1e-8:
                break
            t /= 2
        r, current = trial, value
        if np.max(np.abs(t * step)) < 1e-10:
            break
    return r - r.mean()


def _ratings(cells: Cells, w: np.ndarray, groups: list[list[int]], anchor: int | None,
             anchor_rating: float) -> np.ndarray:
    """Every model's rating from cell weights ``w``; NoRatings where a group has none."""
    out = np.zeros(len(cells.models))
    for members in groups:
        why = _unbeaten(members, cells.a, cells.b, cells.score, w, cells.models)
        if why is not None:
            raise NoRatings(why)
        out[members] = _newton(members, cells.a, cells.b, cells.score, w)
    out += INIT_RATING
    if anchor is not None:
        out += anchor_rating - out[anchor]
    return out


def fit_ratings(battles: pd.DataFrame, anchor: str | None = None, anchor_rating: float = INIT_RATING) -> pd.Series:
    """The Elo-scale Bradley-Terry ratings, highest first (NoRatings where none exist). ``battles``: a row
    per judgment, or aggregated counts with a column ``n`` (:func:`battle_counts`; what the SQL engines
    return): the fit reads only the weight of each (model_a, model_b, outcome) cell, so both give the
    same ratings.

    >>> counts = pd.DataFrame({"model_a": ["x", "x", "y"], "model_b": ["y", "y", "x"],
    ...                        "outcome": ["a", "tie", "a"], "n": [2, 1, 1]})  # the module's example, counted
    >>> r = fit_ratings(counts)
    >>> bool(abs(r["x"] - r["y"] - 400 * math.log10(2.5 / 1.5)) < 1e-9)
    True
    """
    cells = cells_of(battles)
    groups = components_of(len(cells.models), cells.a, cells.b)
    at = _anchor_index(cells, anchor)
    r = _ratings(cells, cells.counts, groups, at, anchor_rating)
    return pd.Series(r, index=list(cells.models)).sort_values(ascending=False)


def _anchor_index(cells: Cells, anchor: str | None) -> int | None:
    if anchor is None:
        return None
    if anchor not in cells.models:
        raise ValueError(f"the anchor {anchor!r} has no battle")
    return cells.models.index(anchor)


# --- the ranking -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ranking:
    """Models in rating order with their ratings, 95% intervals and tie groups (1 = the top group)."""

    models: tuple[str, ...]
    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    groups: tuple[int, ...]
    #: the groups of models connected by comparisons (more than one: ratings on separate scales)
    components: tuple[tuple[str, ...], ...]
    battles: int
    draws: int
    seed: int
    resampled: str  # "case" or "battle"
    left_out_draws: int
    anchor: str | None
    anchor_rating: float
    #: every kept draw's ratings, a row per draw, a column per model in :attr:`models`' order
    boot: np.ndarray = field(repr=False, compare=False)
    method: str = METHOD
    group_rule: str = GROUP_RULE
    #: the cases drawn as counts per kind of case (:func:`rank_kinds`: the same law as drawing cases)
    kinds: bool = False

    @property
    def interval_method(self) -> str:
        unit = "cases (a case's judgments together)" if self.resampled == "case" else "battles"
        if self.kinds:
            unit = "cases (a case's judgments together, drawn as how many cases of each kind of case)"
        text = (f"percentile bootstrap over {unit}: {self.draws:,} draws, seed {self.seed}, "
                f"numpy default_rng")
        if self.left_out_draws:
            text += (f"; {self.left_out_draws:,} draws in which a model won or lost every comparison were left out "
                     "(the interval is then somewhat too narrow)")
        return text

    @property
    def anchoring(self) -> str:
        if self.anchor is not None:
            return f"{self.anchor} at {self.anchor_rating:g}"
        return "mean 1000" + (" within each connected group" if len(self.components) > 1 else "")

    def component_of(self, model: str) -> int:
        return next(k for k, c in enumerate(self.components) if model in c)

    def difference(self, first: str, second: str) -> tuple[float, float | None, float | None]:
        """``first``'s rating less ``second``'s, with its bootstrap 95% interval (None: on separate scales)."""
        i, j = self.models.index(first), self.models.index(second)
        d = self.ratings[i] - self.ratings[j]
        if self.component_of(first) != self.component_of(second) or len(self.boot) == 0:
            return d, None, None
        lo, hi = np.quantile(self.boot[:, i] - self.boot[:, j], [0.025, 0.975])
        return d, float(lo), float(hi)

    def sentence(self) -> str:
        k = max(self.groups) if self.groups else 0
        text = (f"{len(self.models)} models in {k} group{'s' if k != 1 else ''} not separable from each other "
                f"(rule: {self.group_rule}).")
        if len(self.components) > 1:
            text += (f" The comparisons form {len(self.components)} separate sets of models: ratings compare only "
                     "within a set.")
        return text


def _draw_weights(cells: Cells, battles: pd.DataFrame, draws: int, seed: int, by_case: bool) -> np.ndarray:
    """Each draw's cell weights (a row per draw)."""
    rng = np.random.default_rng(seed)
    n = len(battles)
    if not by_case:  # FastChat's compute_bootstrap_bt: a multinomial over the distinct cells
        return rng.multinomial(n, cells.counts / cells.counts.sum(), size=draws).astype(float)
    case_codes, cases = pd.factorize(battles["case_id"].astype(str))
    times = rng.multinomial(len(cases), np.full(len(cases), 1.0 / len(cases)), size=draws)
    out = np.zeros((draws, len(cells.counts)))
    for d in range(draws):
        out[d] = np.bincount(cells.of_battle, weights=times[d][case_codes], minlength=len(cells.counts))
    return out


def rank(battles: pd.DataFrame, anchor: str | None = None, anchor_rating: float = INIT_RATING, draws: int = DRAWS,
         seed: int = SEED, by_case: bool | None = None) -> Ranking:
    """The ranking of the battles' models (NoRatings where the data have no ratings). ``by_case``:
    resample cases (default: when the battles have a case_id column) or battles."""
    if draws < 1:
        raise ValueError("draws must be at least 1")
    cells = cells_of(battles)
    if by_case is None:
        by_case = "case_id" in battles.columns
    return _ranking(cells, _draw_weights(cells, battles, draws, seed, by_case), anchor, anchor_rating, len(battles),
                    draws, seed, "case" if by_case else "battle")


def _ranking(cells: Cells, weights: np.ndarray, anchor: str | None, anchor_rating: float, n_battles: int, draws: int,
             seed: int, resampled: str, kinds: bool = False) -> Ranking:
    """The ranking of ``cells`` (the point fit from their counts) with each draw's cell ``weights``
    (a row per draw): the one fit, intervals and groups of :func:`rank` and :func:`rank_kinds`."""
    groups = components_of(len(cells.models), cells.a, cells.b)
    at = _anchor_index(cells, anchor)
    point = _ratings(cells, cells.counts, groups, at, anchor_rating)
    kept, left = [], 0
    for w in weights:
        try:
            kept.append(_ratings(cells, w, groups, at, anchor_rating))
        except NoRatings:
            left += 1
    boot = np.array(kept).reshape(len(kept), len(cells.models))
    order = sorted(range(len(cells.models)), key=lambda i: (-point[i], cells.models[i]))
    boot = boot[:, order]
    if len(boot):
        lower, upper = np.quantile(boot, [0.025, 0.975], axis=0)
    else:
        lower = upper = np.full(len(order), np.nan)
    comp_of = {i: k for k, g in enumerate(groups) for i in g}
    tie_groups, g = [], 1
    for pos, i in enumerate(order):
        if pos:
            prev = order[pos - 1]
            if comp_of[prev] == comp_of[i] and len(boot):
                if np.quantile(boot[:, pos - 1] - boot[:, pos], 0.025) > 0:
                    g += 1
        tie_groups.append(g)
    names = [cells.models[i] for i in order]
    return Ranking(tuple(names), tuple(float(point[i]) for i in order), tuple(float(x) for x in lower),
                   tuple(float(x) for x in upper), tuple(tie_groups),
                   tuple(tuple(sorted(cells.models[i] for i in g_)) for g_ in groups), n_battles, draws, seed,
                   resampled, left, anchor, anchor_rating, boot, kinds=kinds)


# --- counted battles: the ranking from counts (what the SQL engines return) ----------------------------------

#: A table of kinds of case: a kind is a model pair (candidate a's generator, candidate b's) and how many
#: of a case's judgments picked a, b and a tie; ``cases``: how many cases are of that kind.
KIND_COLUMNS = ("model_a", "model_b", "a", "b", "tie", "cases")


def kinds_frame(rows: Iterable[tuple[str, str, int, int, int, int]]) -> pd.DataFrame:
    """The table of kinds of case from its rows (:data:`KIND_COLUMNS`), in one order whoever counted them
    (sorted, as Python sorts: the SQL engines' and pandas' orders of text may differ), kinds of no
    case left out. Both paths' tables are then equal, and so are their rankings, draw for draw."""
    clean = sorted((str(ma), str(mb), int(a), int(b), int(t), int(n)) for ma, mb, a, b, t, n in rows if int(n) > 0)
    frame = pd.DataFrame(clean, columns=list(KIND_COLUMNS))
    return frame.astype({c: np.int64 for c in KIND_COLUMNS[2:]})


def case_kinds(battles: pd.DataFrame) -> pd.DataFrame:
    """Battles with case ids (:func:`battles_of`) counted as kinds of case (:func:`kinds_frame`): what
    the SQL engines aggregate out of core (agreebound.engines.judge_sql), here from the frames.

    >>> b = pd.DataFrame({"model_a": ["x"] * 4, "model_b": ["y"] * 4, "outcome": ["a", "a", "tie", "a"],
    ...                   "case_id": ["c1", "c1", "c2", "c2"]})
    >>> case_kinds(b).to_dict("records")
    [{'model_a': 'x', 'model_b': 'y', 'a': 1, 'b': 0, 'tie': 1, 'cases': 1}, {'model_a': 'x', 'model_b': 'y', 'a': 2, 'b': 0, 'tie': 0, 'cases': 1}]
    """
    if "case_id" not in battles.columns:
        raise ValueError("kinds of case need each battle's case_id")
    outcome = battles["outcome"].astype(str)
    frame = pd.DataFrame({"case_id": battles["case_id"].astype(str).to_numpy(),
                          "model_a": battles["model_a"].astype(str).to_numpy(),
                          "model_b": battles["model_b"].astype(str).to_numpy(),
                          "a": (outcome == "a").to_numpy(dtype=np.int64), "b": (outcome == "b").to_numpy(dtype=np.int64),
                          "tie": (outcome == "tie").to_numpy(dtype=np.int64)})
    by_case = frame.groupby("case_id", sort=False)
    if (by_case[["model_a", "model_b"]].nunique() > 1).to_numpy().any():
        raise ValueError("a case compares one model pair")
    per = by_case.agg(model_a=("model_a", "first"), model_b=("model_b", "first"), a=("a", "sum"), b=("b", "sum"),
                      tie=("tie", "sum"))
    counted = per.groupby(list(KIND_COLUMNS[:5]), sort=False).size()
    return kinds_frame((*key, n) for key, n in counted.items())


def _kind_rows(kinds: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The aggregated battles of a table of kinds (one row per kind and outcome it holds), and each
    row's kind and judgments per case."""
    rows, kind_of, per_case = [], [], []
    for i, (ma, mb, a, b, t, n) in enumerate(kinds[list(KIND_COLUMNS)].itertuples(index=False)):
        for o, c in zip(OUTCOMES, (int(a), int(b), int(t))):
            if c > 0 and int(n) > 0:
                rows.append((str(ma), str(mb), o, c * int(n)))
                kind_of.append(i)
                per_case.append(c)
    return (pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "n"]), np.asarray(kind_of, dtype=np.int64),
            np.asarray(per_case, dtype=float))


def battle_counts(kinds: pd.DataFrame) -> pd.DataFrame:
    """The battles of a table of kinds as aggregated battles (model_a, model_b, outcome, n; rows with
    n > 0, one per kind and outcome): what :func:`fit_ratings` and :func:`cells_of` read."""
    return _kind_rows(kinds)[0]


def rank_kinds(kinds: pd.DataFrame, anchor: str | None = None, anchor_rating: float = INIT_RATING,
               draws: int = DRAWS, seed: int = SEED) -> Ranking:
    """The ranking from a table of kinds of case (:func:`case_kinds` in memory, the SQL engines out of
    core): the point ratings from the battles' counts (the one fit), the intervals from a case
    bootstrap drawn as counts of each kind: a draw of N cases with replacement from N is, per kind,
    how many of its cases were drawn, a multinomial over the kinds with probabilities cases / N:
    the same law as drawing the cases themselves (:func:`rank`'s by-case draws), without a row per
    case. With the same seed the same table gives the same ranking, whichever engine counted it."""
    if draws < 1:
        raise ValueError("draws must be at least 1")
    k = kinds[kinds["cases"] > 0].reset_index(drop=True)
    counts, of, each = _kind_rows(k)
    cells = cells_of(counts)
    cases = k["cases"].to_numpy(dtype=np.int64)
    n = int(cases.sum())
    times = np.random.default_rng(seed).multinomial(n, cases / n, size=draws)
    weights = np.stack([np.bincount(cells.of_battle, weights=times[d][of] * each, minlength=len(cells.counts))
                        for d in range(draws)])
    return _ranking(cells, weights, anchor, anchor_rating, int(counts["n"].sum()), draws, seed, "case", kinds=True)


# --- the gate --------------------------------------------------------------------------------------------


#: A gate's margin units: rating points, or the win probability against the baseline in permil.
MARGIN_UNITS = ("elo", "win_permil")


@dataclass(frozen=True)
class RankingGate:
    """Threshold data: ``model`` beats ``baseline`` by at least ``margin`` (rating points, or a win
    probability in permil: 600 = wins 60% of its comparisons with the baseline, ties half). Strict
    mode: the difference's bootstrap 95% lower bound must clear the margin too."""

    model: str
    baseline: str
    margin: int = 0
    unit: str = "elo"
    strict: bool = False

    def __post_init__(self) -> None:
        if self.unit not in MARGIN_UNITS:
            raise ValueError(f"unit must be one of {', '.join(MARGIN_UNITS)}, got {self.unit!r}")
        lo, hi = (0, 1000) if self.unit == "elo" else (500, 999)
        if type(self.margin) is not int or not lo <= self.margin <= hi:
            raise ValueError(f"margin must be a whole number between {lo} and {hi} ({self.unit}), got {self.margin!r}")
        if type(self.strict) is not bool:
            raise ValueError(f"strict must be true or false, got {self.strict!r}")
        if self.model == self.baseline:
            raise ValueError("the model and the baseline must differ")

    @property
    def margin_points(self) -> float:
        """The margin as a rating difference (a win probability p is 400 log10(p / (1 - p)) points)."""
        if self.unit == "elo":
            return float(self.margin)
        p = self.margin / 1000
        return SCALE * math.log10(p / (1 - p))

    def words(self) -> str:
        m = f"{self.margin} points" if self.unit == "elo" else f"a win probability of {self.margin / 10:g}%"
        return f"{self.model} beats {self.baseline} by at least {m}" + (" (strict: the 95% bound too)" if self.strict else "")


@dataclass(frozen=True)
class RankingDecision:
    """The gate decided: passed None = not decidable (why says so). ``fragile``: the difference's
    bootstrap 95% interval holds the margin (values on both sides of it), so another sample of the
    same size could reach the other result."""

    gate: RankingGate
    passed: bool | None
    difference: float | None
    lower: float | None
    upper: float | None
    win_probability: float | None
    why: str
    fragile: bool = False

    @property
    def status(self) -> str:
        """The result in a word or two: "passes", "fails", "not decided", with ", fragile" when the
        interval holds the margin."""
        word = "not decided" if self.passed is None else "passes" if self.passed else "fails"
        return word + (", fragile" if self.fragile else "")

    def sentence(self) -> str:
        """The gate and its result in words, as the reports and the page say them."""
        why = self.why.rstrip(".")
        text = f"{self.gate.words()}: {why if self.passed is not None else 'not decided: ' + why}"
        if self.fragile:
            text += (f". Fragile: the difference's 95% interval holds the margin of {self.gate.margin_points:.1f} "
                     "points, so another sample could reach the other result")
        return text + "."

    def to_dict(self) -> JSONObject:
        return {"gate": self.gate.words(), "model": self.gate.model, "baseline": self.gate.baseline,
                "margin": self.gate.margin, "unit": self.gate.unit, "strict": self.gate.strict,
                "passed": self.passed, "difference": _r6(self.difference), "interval95": None if self.lower is None
                else [_r6(self.lower), _r6(self.upper)], "win_probability": _r6(self.win_probability), "why": self.why,
                "fragile": self.fragile, "status": self.status, "sentence": self.sentence()}


def win_probability(points: float) -> float:
    """P(beats) for a rating difference (ties half)."""
    return 1.0 / (1.0 + BASE ** (-points / SCALE))


def decide_gate(ranking: Ranking, gate: RankingGate) -> RankingDecision:
    """The one comparison of a ranking with its gate."""
    for m in (gate.model, gate.baseline):
        if m not in ranking.models:
            return RankingDecision(gate, None, None, None, None, None, f"{m} has no battle")
    d, lo, hi = ranking.difference(gate.model, gate.baseline)
    if lo is None:
        return RankingDecision(gate, None, d, None, None, None,
                               f"{gate.model} and {gate.baseline} were never compared, even through other models")
    need = gate.margin_points
    passed = d >= need and (not gate.strict or lo >= need)
    p = win_probability(d)
    diff = f"{d:+.1f} points [{lo:+.1f}, {hi:+.1f}] (a win probability of {100 * p:.1f}%)"
    if passed:
        why = f"passes: {gate.model} leads {gate.baseline} by {diff}"
    elif d >= need:
        why = f"fails in strict mode: the lead {diff} has its 95% lower bound below the margin of {need:.1f} points"
    else:
        why = f"fails: {gate.model} leads {gate.baseline} by {diff}, short of the margin of {need:.1f} points"
    return RankingDecision(gate, passed, d, lo, hi, p, why, straddles(lo, hi, "min", need))


# --- prediction-powered ratings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PPIRatings:
    """Ratings corrected by the human labels of some cases (prediction-powered inference with
    PPI++'s power tuning, as ppi-python's ``ppi_logistic_ci``), the anchor fixed at its rating,
    each other model with a normal 95% interval."""

    models: tuple[str, ...]
    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    lam: float
    labelled: int
    unlabelled: int
    anchor: str
    method: str = ("prediction-powered Bradley-Terry (Angelopoulos et al. 2023): the logistic M-estimator over "
                   "cases, the judge's share of a case's verdicts rectified by the humans' label where there is one, "
                   "PPI++'s tuned lambda as ppi-python's ppi_logistic_ci, normal 95% intervals")


def _case_units(battles: pd.DataFrame, models: Sequence[str], anchor: str,
                human: Mapping[str, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per case: the design row (ln 10 (e_a - e_b) without the anchor's column), the judge's score
    for model_a (its share of the case's verdicts, ties half), the humans' (NaN: unlabelled), and
    whether it is labelled."""
    score = battles["outcome"].map({"a": 1.0, "tie": 0.5, "b": 0.0})
    frame = battles.assign(score=score)
    per = frame.groupby("case_id", sort=True).agg(model_a=("model_a", "first"), model_b=("model_b", "first"),
                                                   pairs=("model_b", "nunique"), a_s=("model_a", "nunique"),
                                                   yhat=("score", "mean"))
    if (per["pairs"] > 1).any() or (per["a_s"] > 1).any():
        raise ValueError("a case compares one model pair")
    cols = [m for m in models if m != anchor]
    at = {m: k for k, m in enumerate(cols)}
    x = np.zeros((len(per), len(cols)))
    for r, (ma, mb) in enumerate(zip(per["model_a"], per["model_b"])):
        if ma in at:
            x[r, at[ma]] += math.log(BASE)
        if mb in at:
            x[r, at[mb]] -= math.log(BASE)
    y = np.array([{"a": 1.0, "tie": 0.5, "b": 0.0}.get(str(human.get(c, "")), np.nan) for c in per.index])
    return x, per["yhat"].to_numpy(float), y, ~np.isnan(y)


def _expit(t: np.ndarray) -> np.ndarray:
    return np.asarray(np.exp(-np.logaddexp(0.0, -t)))


def _ppi_fit(x: np.ndarray, y: np.ndarray, yh: np.ndarray, xu: np.ndarray, yhu: np.ndarray, lam: float) -> np.ndarray:
    """The rectified logistic loss's minimiser (convex for lam in [0, 1]), by damped Newton."""
    n, big_n = len(y), len(yhu)
    theta = np.zeros(x.shape[1])

    def loss(t: np.ndarray) -> float:
        zu, zl = xu @ t, x @ t
        return float(lam / big_n * np.sum(-yhu * zu + np.logaddexp(0, zu)) - lam / n * np.sum(-yh * zl + np.logaddexp(0, zl))
                     + 1 / n * np.sum(-y * zl + np.logaddexp(0, zl)))

    current = loss(theta)
    for _ in range(_NEWTON_STEPS):
        mu, mul = _expit(xu @ theta), _expit(x @ theta)
        g = lam / big_n * xu.T @ (mu - yhu) - lam / n * x.T @ (mul - yh) + 1 / n * x.T @ (mul - y)
        h = lam / big_n * (xu.T * (mu * (1 - mu))) @ xu + (1 - lam) / n * (x.T * (mul * (1 - mul))) @ x
        step = -np.linalg.solve(h, g)
        t = 1.0
        while True:
            trial = theta + t * step
            value = loss(trial)
            if value <= current + 1e-14 * abs(current) or t < 1e-8:
                break
            t /= 2
        theta, current = trial, value
        if np.max(np.abs(t * step)) < 1e-12:
            break
    return theta


def _ppi_stats(theta: np.ndarray, x: np.ndarray, y: np.ndarray, yh: np.ndarray, xu: np.ndarray, yhu: np.ndarray,
               use_unlabelled: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """ppi-python's _logistic_get_stats: the gradients per unit and the inverse Hessian."""
    n, big_n = len(y), len(yhu)
    mu, mu_u = _expit(x @ theta), _expit(xu @ theta)
    if use_unlabelled:
        hess = ((xu.T * (mu_u * (1 - mu_u))) @ xu + (x.T * (mu * (1 - mu))) @ x) / (n + big_n)
    else:
        hess = (x.T * (mu * (1 - mu))) @ x / n
    return x * (mu - y)[:, None], x * (mu - yh)[:, None], xu * (mu_u - yhu)[:, None], np.linalg.inv(hess)


def _ppi_lam(g: np.ndarray, gh: np.ndarray, ghu: np.ndarray, inv: np.ndarray) -> float:
    """ppi-python's _calc_lam_glm (overall, clipped to [0, 1])."""
    n, big_n = len(g), len(ghu)
    gc, ghc = g - g.mean(axis=0), gh - gh.mean(axis=0)
    cov = (gc.T @ ghc + ghc.T @ gc) / n
    var = np.atleast_2d(np.cov(np.concatenate([gh, ghu]).T))
    lam = np.trace(inv @ cov @ inv) / (2 * (1 + n / big_n) * np.trace(inv @ var @ inv))
    return float(np.clip(lam, 0.0, 1.0))


def ppi_ratings(battles: pd.DataFrame, human: Mapping[str, str], anchor: str) -> PPIRatings:
    """The prediction-powered ratings: cases (``case_id``) with a human label ("a", "b", "tie" in
    ``human``) rectify the judge's verdicts on all. Needs 2 labelled cases, 1 unlabelled and every
    model connected to the anchor (else ValueError)."""
    cells = cells_of(battles)
    if anchor not in cells.models:
        raise ValueError(f"the anchor {anchor!r} has no battle")
    if len(components_of(len(cells.models), cells.a, cells.b)) > 1:
        raise ValueError("some models are never compared with the anchor, even through other models")
    x_all, yh_all, y_all, lab = _case_units(battles, cells.models, anchor, human)
    x, y, yh = x_all[lab], y_all[lab], yh_all[lab]
    xu, yhu = x_all[~lab], yh_all[~lab]
    if len(y) < 2 or len(yhu) < 1:
        raise ValueError("prediction-powered ratings need 2 labelled cases and 1 unlabelled")
    # ppi_logistic_ci with lam=None: the point estimate tunes lam at plain PPI's estimate, then the
    # interval tunes it again at that estimate and refits with it
    first = _ppi_fit(x, y, yh, xu, yhu, 1.0)
    lam1 = _ppi_lam(*_ppi_stats(first, x, y, yh, xu, yhu, True))
    second = _ppi_fit(x, y, yh, xu, yhu, lam1)
    lam = _ppi_lam(*_ppi_stats(second, x, y, yh, xu, yhu, True))
    theta = _ppi_fit(x, y, yh, xu, yhu, lam)
    g, gh, ghu, inv = _ppi_stats(theta, x, y, yh, xu, yhu, lam != 0)
    n, big_n = len(y), len(yhu)
    var_u = np.atleast_2d(np.cov((lam * ghu).T))
    var = np.atleast_2d(np.cov(g.T - lam * gh.T))
    sigma = inv @ (n / big_n * var_u + var) @ inv
    se = np.sqrt(np.diag(sigma) / n)
    cols = [m for m in cells.models if m != anchor]
    rating = {anchor: (INIT_RATING, INIT_RATING, INIT_RATING)}
    for k, m in enumerate(cols):
        rating[m] = (INIT_RATING + SCALE * theta[k], INIT_RATING + SCALE * (theta[k] - Z95 * se[k]),
                     INIT_RATING + SCALE * (theta[k] + Z95 * se[k]))
    names = sorted(rating, key=lambda m: (-rating[m][0], m))
    return PPIRatings(tuple(names), tuple(float(rating[m][0]) for m in names), tuple(float(rating[m][1]) for m in names),
                      tuple(float(rating[m][2]) for m in names), lam, n, big_n, anchor)


@dataclass(frozen=True)
class PPIShift:
    """How far the human labels move the ratings: the judge-only ratings shifted so that the PPI
    anchor sits at its rating too (both scales then agree on it), each model's move, and the order."""

    judge: Mapping[str, float]
    moved: Mapping[str, float]
    largest: str
    order_changed: bool

    def sentence(self, ppi: PPIRatings) -> str:
        cases = ppi.labelled + ppi.unlabelled
        judge_order = sorted(self.judge, key=lambda m: (-self.judge[m], m))
        head = (f"With the humans' labels on {ppi.labelled:,} of {cases:,} cases (lambda {ppi.lam:.2f}), the ratings "
                f"move by at most {abs(self.moved[self.largest]):.1f} points ({self.largest}: "
                f"{self.judge[self.largest]:.1f} by the judge alone, "
                f"{self.judge[self.largest] + self.moved[self.largest]:.1f} corrected), both with {ppi.anchor} at "
                f"{INIT_RATING:g}; ")
        if not self.order_changed:
            return head + "the order is the same."
        return head + f"the order changes: {' > '.join(judge_order)} by the judge alone, {' > '.join(ppi.models)} corrected."


def ppi_shift(ranking: Ranking, ppi: PPIRatings) -> PPIShift:
    """The judge-only ranking beside the prediction-powered one (the same models: ppi_ratings needs
    every model connected to its anchor, so the ranking has one scale).

    >>> b = pd.DataFrame({"model_a": ["x", "x", "x", "y"], "model_b": ["y", "y", "y", "x"],
    ...                   "outcome": ["a", "a", "tie", "a"], "case_id": ["c1", "c2", "c3", "c4"]})
    >>> r = rank(b, draws=20)
    >>> p = PPIRatings(("x", "y"), (1100.0, 1000.0), (1000.0, 1000.0), (1200.0, 1000.0), 0.5, 2, 2, "y")
    >>> s = ppi_shift(r, p)
    >>> round(s.judge["x"], 1), round(s.moved["x"], 1), s.largest, s.order_changed
    (1088.7, 11.3, 'x', False)
    """
    shift = INIT_RATING - ranking.ratings[ranking.models.index(ppi.anchor)]
    judge = {m: r + shift for m, r in zip(ranking.models, ranking.ratings)}
    corrected = dict(zip(ppi.models, ppi.ratings))
    moved = {m: corrected[m] - judge[m] for m in ppi.models}
    largest = sorted(moved, key=lambda m: (-abs(moved[m]), m))[0]
    judge_order = sorted(judge, key=lambda m: (-judge[m], m))
    return PPIShift(judge, moved, largest, tuple(judge_order) != tuple(ppi.models))


# --- the report block ------------------------------------------------------------------------------------


def _r6(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)


def ranking_dict(result: Ranking, decision: RankingDecision | None = None, ppi: PPIRatings | None = None,
                 ppi_unavailable: str | None = None) -> JSONObject:
    """The ranking as a report stores it (floats to 6 decimals); with the prediction-powered ratings
    beside the judge's when there are some (``ppi``), or why there are none though human labels
    exist (``ppi_unavailable``)."""
    out: JSONObject = {
        "models": [{"rank": k + 1, "model": m, "rating": _r6(r), "interval95": [_r6(lo), _r6(hi)], "tie_group": g}
                   for k, (m, r, lo, hi, g) in enumerate(zip(result.models, result.ratings, result.lower,
                                                              result.upper, result.groups))],
        "method": result.method, "anchoring": result.anchoring, "interval_method": result.interval_method,
        "draws": result.draws, "seed": result.seed, "resampled": result.resampled,
        "left_out_draws": result.left_out_draws, "battles": result.battles,
        "tie_group_rule": result.group_rule, "groups": max(result.groups, default=0),
        "components": [list(c) for c in result.components], "sentence": result.sentence(),
        "gate": None if decision is None else decision.to_dict(),
    }
    if ppi is not None:
        shift = ppi_shift(result, ppi)
        out["ppi"] = {"models": [{"model": m, "rating": _r6(r), "interval95": [_r6(lo), _r6(hi)],
                                  "judge_only": _r6(shift.judge[m]), "moved": _r6(shift.moved[m])}
                                 for m, r, lo, hi in zip(ppi.models, ppi.ratings, ppi.lower, ppi.upper)],
                      "lambda": _r6(ppi.lam), "labelled": ppi.labelled, "unlabelled": ppi.unlabelled,
                      "anchor": ppi.anchor, "method": ppi.method, "largest_move": _r6(abs(shift.moved[shift.largest])),
                      "order_changed": shift.order_changed, "sentence": shift.sentence(ppi)}
    elif ppi_unavailable is not None:
        out["ppi"] = {"unavailable": ppi_unavailable}
    return out


def no_ranking_dict(why: str, decision: RankingDecision | None = None) -> JSONObject:
    """The report's ranking block when there is none: why, and the gate asked for (not decided)."""
    return {"unavailable": why, "gate": None if decision is None else decision.to_dict()}
