"""A graded judge's rank correlation with the humans, as G-Eval-style papers report it per dimension:
Spearman's rho and Kendall's tau-b, over items (the judge's score against the item's mean human
score) and over models (system level: each model's mean judge score against its mean human score).

The values are scipy's (``scipy.stats.spearmanr``; ``scipy.stats.kendalltau``, variant "b") on the
same vectors, bit for bit (tests/scored/test_correlation.py): Spearman's rho is the Pearson
correlation of the midranks (numpy's ``corrcoef``, as scipy computes it), Kendall's tau-b is
(concordant - discordant) / sqrt((pairs - ties in x) (pairs - ties in y)) from exact integer counts,
divided as scipy divides.

Intervals (95%) resample items, each item one cluster, in an item bootstrap (``BOOT`` resamples
from a fixed seed, so the same log gives the same report). Over items it is read as a BCa interval
(Efron, 1987: the percentiles shifted by the bootstrap's median bias and by the acceleration, from the
delete-one-item jackknife). At the system level the unit is still the item: each model's items are
resampled (a model keeps its number of items), every model's means recomputed, the correlation across
models recomputed, and the interval is the percentiles' (:func:`model_intervals` says why). Their
coverage is simulated in tests/scored/test_correlation.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from agreebound.core.escape import plural
from agreebound.judge.bias import Measure

#: Bootstrap resamples behind each interval, and the seed they are drawn from.
BOOT = 2000
SEED = 20240531
#: The bootstrap builds at most this many table cells at once (resamples x judge scores x human means).
_CELLS = 4_000_000
#: More (judge score, human mean) cells than this: the item-level interval is not computed (its
#: jackknife costs cells x cells: about 4 s at this size, minutes at 100,000).
MAX_CELLS = 20_000
#: A model with more distinct (judge score, human mean) pairs than this has its resampled means drawn
#: from their normal approximation (it has at least as many items: the resampling would cost BOOT x items).
MAX_MODEL_CELLS = 5_000
_NORMAL = NormalDist()


# --- the values, as scipy gives them ---------------------------------------------------------------

def midranks(v: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given the mean of the ranks they span (scipy's ``rankdata``, method "average")."""
    _, inverse, counts = np.unique(np.asarray(v, dtype=float), return_inverse=True, return_counts=True)
    before = np.cumsum(counts) - counts
    return (before + (counts + 1) / 2.0)[inverse]


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman's rho: the Pearson correlation of the midranks; None when either does not vary (or
    fewer than two values).

    >>> spearman(np.array([1, 2, 3, 4]), np.array([1, 3, 2, 4]))  # 1 - 6 * 2 / (4 * 15), as scipy computes it
    0.7999999999999999
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    ranked = np.column_stack([midranks(x), midranks(y)])
    return float(np.corrcoef(ranked, rowvar=False)[1, 0])


def _dense(v: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's code 0..k-1 in ascending order, and k."""
    values, inverse = np.unique(np.asarray(v, dtype=float), return_inverse=True)
    return inverse.astype(np.int64), len(values)


def inversions(v: np.ndarray) -> int:
    """Pairs i < j with v[i] > v[j] (strictly), by a bottom-up merge sort whose every level is one
    vectorized sort and search: O(n log^2 n) in numpy, never n^2.

    >>> inversions(np.array([3, 1, 2, 2, 0]))  # 3>1, 3>2, 3>2, 3>0, 1>0, 2>0, 2>0
    7
    """
    cur = np.asarray(v, dtype=np.int64)
    n = len(cur)
    if n < 2:
        return 0
    cur = cur - cur.min()
    big = int(cur.max()) + 1
    idx = np.arange(n, dtype=np.int64)
    total, width = 0, 1
    while width < n:
        pair = idx // (2 * width)
        key = cur + pair * big  # each pair of runs in its own band of values: one global search serves all
        left = (idx // width) % 2 == 0
        lkeys, rkeys, rpair = key[left], key[~left], pair[~left]
        end = np.searchsorted(lkeys, (rpair + 1) * big, side="left")
        at_most = np.searchsorted(lkeys, rkeys, side="right")
        total += int((end - at_most).sum())  # left elements of the same pair greater than each right one
        cur = np.sort(key, kind="stable") - pair * big
        width *= 2
    return total


def concordance(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int]:
    """(concordant - discordant pairs, pairs not tied in x, pairs not tied in y), exact integers:
    Kendall's tau-b is the first over the square root of the product of the others (Knight 1966).
    In the order sorted by x, then y, a pair is discordant exactly when y falls (an inversion); the
    pairs not tied in x less the discordant ones and those tied in y alone are concordant."""
    xc, _ = _dense(x)
    yc, _ = _dense(y)
    n = len(xc)
    pairs = n * (n - 1) // 2

    def ties(codes: np.ndarray) -> int:
        c = np.unique(codes, return_counts=True)[1].astype(np.int64)
        return int((c * (c - 1) // 2).sum())

    if n < 2:
        return 0, 0, 0
    kx, ky = int(xc.max()) + 1, int(yc.max()) + 1
    if kx * ky <= n < 2**31:  # few distinct values (a scale): the pairs by cells of a table, exact in int64
        t = np.bincount(xc * ky + yc, minlength=kx * ky).reshape(kx, ky)
        above = np.cumsum(t, axis=0) - t  # per cell: the items in rows above it (smaller x), by column
        run = np.cumsum(above, axis=1)
        smaller, larger = run - above, above.sum(axis=1, keepdims=True) - run  # smaller x and smaller / larger y
        r, s = t.sum(axis=1), t.sum(axis=0)
        return (int((t * (smaller - larger)).sum()), pairs - int((r * (r - 1) // 2).sum()),
                pairs - int((s * (s - 1) // 2).sum()))
    order = np.lexsort((yc, xc))
    discordant = inversions(yc[order])
    tx, ty = ties(xc), ties(yc)
    both = ties(xc * (int(yc.max()) + 1) + yc)
    concordant = (pairs - tx) - discordant - (ty - both)
    return concordant - discordant, pairs - tx, pairs - ty


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kendall's tau-b; None when either does not vary (or fewer than two values).

    >>> kendall_tau_b(np.array([1, 2, 3, 4]), np.array([1, 3, 2, 4]))  # (5 - 1) / 6, as scipy divides
    0.6666666666666669
    """
    if len(x) < 2:
        return None
    cmd, nx, ny = concordance(x, y)
    if nx == 0 or ny == 0:
        return None
    tau = cmd / np.sqrt(nx) / np.sqrt(ny)  # divided as scipy divides: the same float
    return float(np.minimum(1.0, max(-1.0, tau)))


# --- the same over batches of tables of counts (the bootstrap's resamples) ---------------------------

def table_spearman(t: np.ndarray) -> np.ndarray:
    """Spearman's rho of each (..., c, d) table of counts (rows: x's values ascending, columns: y's),
    in floating point; NaN where either margin does not vary."""
    r, s = t.sum(-1), t.sum(-2)
    n = r.sum(-1)
    mid = ((n + 1) / 2)[..., None]
    dx = np.cumsum(r, -1) - r + (r + 1) / 2 - mid
    dy = np.cumsum(s, -1) - s + (s + 1) / 2 - mid
    cov = np.einsum("...c,...cd,...d->...", dx, t, dy)
    vx, vy = (r * dx * dx).sum(-1), (s * dy * dy).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((vx > 0) & (vy > 0), cov / np.sqrt(vx * vy), np.nan)


def table_kendall(t: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each (..., c, d) table of counts, in floating point; NaN where undefined."""
    above = np.cumsum(t, -2) - t  # per column: the counts in the rows above (smaller x)
    run = np.cumsum(above, -1)
    less = run - above  # smaller x, smaller y
    more = above.sum(-1, keepdims=True) - run  # smaller x, larger y
    cmd = (t * (less - more)).sum((-2, -1))
    r, s = t.sum(-1), t.sum(-2)
    n = r.sum(-1)
    pairs = n * (n - 1) / 2
    nx = pairs - (r * (r - 1) / 2).sum(-1)
    ny = pairs - (s * (s - 1) / 2).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((nx > 0) & (ny > 0), cmd / np.sqrt(nx * ny), np.nan)


def batch_ranks(v: np.ndarray) -> np.ndarray:
    """Midranks along the last axis of a (B, m) array (m small: pairwise comparisons)."""
    less = (v[..., None, :] < v[..., :, None]).sum(-1)
    equal = (v[..., None, :] == v[..., :, None]).sum(-1)
    return less + (equal + 1) / 2.0


def batch_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair of two (B, m) arrays; NaN where either row does not vary."""
    rx, ry = batch_ranks(x), batch_ranks(y)
    rx, ry = rx - rx.mean(-1, keepdims=True), ry - ry.mean(-1, keepdims=True)
    vx, vy = (rx * rx).sum(-1), (ry * ry).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((vx > 0) & (vy > 0), (rx * ry).sum(-1) / np.sqrt(vx * vy), np.nan)


def batch_kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair of two (B, m) arrays; NaN where either row does not vary."""
    sx = np.sign(x[..., :, None] - x[..., None, :])
    sy = np.sign(y[..., :, None] - y[..., None, :])
    cmd = (sx * sy).sum((-2, -1)) / 2
    nx, ny = (sx != 0).sum((-2, -1)) / 2, (sy != 0).sum((-2, -1)) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((nx > 0) & (ny > 0), cmd / np.sqrt(nx * ny), np.nan)


# --- intervals --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Interval:
    """A 95% interval and how it was drawn; ``low`` None: none, ``method`` says why."""

    low: float | None
    high: float | None
    method: str


def bca(estimate: float, boot: np.ndarray, jack: np.ndarray, jack_weights: np.ndarray | None = None,
        level: float = 0.95) -> tuple[float, float] | None:
    """The BCa interval from the bootstrap replicates (NaN ones left out) and the delete-one
    jackknife values (``jack_weights``: how many items each value stands for). None when the
    bootstrap distribution has no spread or the bias correction is unbounded (every replicate on one
    side of the estimate)."""
    boot = boot[np.isfinite(boot)]
    if len(boot) < 2 or np.ptp(boot) == 0:
        return None
    below = (np.sum(boot < estimate) + np.sum(boot == estimate) / 2) / len(boot)
    if not 0 < below < 1:
        return None
    z0 = _NORMAL.inv_cdf(float(below))
    w = np.ones(len(jack)) if jack_weights is None else np.asarray(jack_weights, dtype=float)
    ok = np.isfinite(jack)
    acc = 0.0
    if ok.sum() > 2:
        j, w = jack[ok], w[ok]
        d = np.sum(w * j) / np.sum(w) - j
        den = 6 * np.sum(w * d ** 2) ** 1.5
        acc = float(np.sum(w * d ** 3) / den) if den > 0 else 0.0
    out = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        z = _NORMAL.inv_cdf(q)
        p = _NORMAL.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        out.append(float(np.quantile(boot, min(max(p, 0.0), 1.0))))
    return out[0], out[1]


def _method(how: str, n: int, models: int = 0, undefined: int = 0) -> str:
    within = f", resampled within each of the {models:,} models" if models else ""
    left = f"; {undefined:,} resamples without variation left out" if undefined else ""
    return (f"{how} item bootstrap ({BOOT:,} resamples of the {n:,} items, each item one cluster{within}; "
            f"fixed seed {SEED}){left}")


def item_intervals(x: np.ndarray, y: np.ndarray, estimates: tuple[float | None, float | None],
                   seed: int = SEED) -> tuple[Interval, Interval]:
    """Spearman's and Kendall's 95% BCa intervals over items (one (x, y) per item): the items
    resampled, as a table of (x value, y value) counts, and the jackknife for the acceleration a cell
    at a time (leaving out any one of a cell's items leaves the same table)."""
    xc, c = _dense(x)
    yc, d = _dense(y)
    n = len(xc)
    if c * d > MAX_CELLS:
        none = Interval(None, None, f"no interval: more than {MAX_CELLS:,} (judge score, human mean) cells")
        return none, none
    cell, counts = np.unique(xc * d + yc, return_counts=True)
    table = np.zeros(c * d)
    table[cell] = counts
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=BOOT)  # resampled items, by cell
    block = max(1, _CELLS // (c * d))
    rho, tau = np.empty(BOOT), np.empty(BOOT)
    for start in range(0, BOOT, block):
        stop = min(start + block, BOOT)
        t = np.zeros((stop - start, c * d))
        t[:, cell] = draws[start:stop]
        rho[start:stop], tau[start:stop] = table_spearman(t.reshape(-1, c, d)), table_kendall(t.reshape(-1, c, d))
    jack_rho, jack_tau = np.empty(len(cell)), np.empty(len(cell))
    for start in range(0, len(cell), block):
        stop = min(start + block, len(cell))
        t = np.broadcast_to(table, (stop - start, c * d)).copy()
        t[np.arange(stop - start), cell[start:stop]] -= 1
        jack_rho[start:stop] = table_spearman(t.reshape(-1, c, d))
        jack_tau[start:stop] = table_kendall(t.reshape(-1, c, d))
    out = []
    for est, boot, jack in ((estimates[0], rho, jack_rho), (estimates[1], tau, jack_tau)):
        if est is None:
            out.append(Interval(None, None, ""))
            continue
        got = bca(est, boot, jack, counts)
        out.append(Interval(None, None, SPREADLESS) if got is None else
                   Interval(got[0], got[1], _method("BCa", n, undefined=int((~np.isfinite(boot)).sum()))))
    return out[0], out[1]


SPREADLESS = "no interval: the resampled correlations do not spread around the value"


def percentile(boot: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """The percentile interval of the replicates (NaN ones left out); None without two."""
    boot = boot[np.isfinite(boot)]
    if len(boot) < 2:
        return None
    low, high = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def _distinct_pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (x, y) rows ascending (by x, then y) and how many times each occurs: numpy's
    ``unique(axis=0, return_counts=True)`` of the stacked pairs, by one integer per pair.

    >>> _distinct_pairs(np.array([2.0, 1.0, 2.0, 1.0]), np.array([0.5, 3.0, 0.5, 1.0]))
    (array([[1. , 1. ],
           [1. , 3. ],
           [2. , 0.5]]), array([1, 1, 2]))
    """
    xv, xc = np.unique(x, return_inverse=True)
    yv, yc = np.unique(y, return_inverse=True)
    key, counts = np.unique(xc.ravel().astype(np.int64) * len(yv) + yc.ravel(), return_counts=True)
    return np.column_stack([xv[key // len(yv)], yv[key % len(yv)]]), counts


def model_intervals(model: np.ndarray, x: np.ndarray, y: np.ndarray, estimates: tuple[float | None, float | None],
                    seed: int = SEED) -> tuple[Interval, Interval]:
    """Spearman's and Kendall's 95% percentile intervals across models (``model``: each item's
    model code 0..m-1; x, y: each item's judge score and human mean): each model's items resampled
    (its number of items kept), every model's means recomputed, the correlation recomputed. A
    percentile interval, not BCa: across a few models the correlation takes a few values only, and
    the bias correction of so discrete a statistic undercovers (tests/scored/test_correlation.py)."""
    m = int(model.max()) + 1
    n = len(model)
    rng = np.random.default_rng(seed)
    sx, sy = np.zeros((BOOT, m)), np.zeros((BOOT, m))
    normal = 0
    for k in range(m):
        mine = np.flatnonzero(model == k)
        pairs = np.column_stack([x[mine], y[mine]])
        cells, counts = _distinct_pairs(x[mine], y[mine])
        if len(cells) <= MAX_MODEL_CELLS:
            draws = rng.multinomial(len(mine), counts / len(mine), size=BOOT)
            sx[:, k], sy[:, k] = draws @ cells[:, 0] / len(mine), draws @ cells[:, 1] / len(mine)
        else:  # so many distinct pairs, so many items: the resampled means are normal (the CLT), drawn so
            normal += 1
            cov = np.cov(pairs, rowvar=False) / len(mine)
            means = rng.multivariate_normal(pairs.mean(0), cov, size=BOOT, method="cholesky" if np.all(
                np.linalg.eigvalsh(cov) > 0) else "eigh")
            sx[:, k], sy[:, k] = means[:, 0], means[:, 1]
    rho, tau = np.empty(BOOT), np.empty(BOOT)
    block = max(1, _CELLS // (m * m))
    for start in range(0, BOOT, block):
        stop = min(start + block, BOOT)
        rho[start:stop] = batch_spearman(sx[start:stop], sy[start:stop])
        tau[start:stop] = batch_kendall(sx[start:stop], sy[start:stop])
    out = []
    for est, boot in ((estimates[0], rho), (estimates[1], tau)):
        got = None if est is None else percentile(boot)
        out.append(Interval(None, None, "") if est is None else Interval(None, None, SPREADLESS) if got is None else
                   Interval(got[0], got[1], _method("percentile", n, m, int((~np.isfinite(boot)).sum()))
                            + (f"; {normal:,} models with more than {MAX_MODEL_CELLS:,} distinct score pairs: their "
                               "resampled means drawn from the normal approximation" if normal else "")))
    return out[0], out[1]


# --- the measures ------------------------------------------------------------------------------------

#: (name, title, what): the rank correlations beside a graded judge's gates, in the order shown.
RANK_MEASURES = (("spearman_items", "Spearman's rho with the humans, over items", "items"),
                 ("kendall_items", "Kendall's tau-b with the humans, over items", "items"),
                 ("spearman_models", "Spearman's rho with the humans, over models", "system level"),
                 ("kendall_models", "Kendall's tau-b with the humans, over models", "system level"))
#: Fewer models than this: no correlation across models.
MIN_MODELS = 3
_ITEM_WORDS = ("the judge's score against the item's human score (the mean of its humans' scores where several "
               "scored it), over the items both scored; ties take the mean of their ranks")
_MODEL_WORDS = ("each model's mean judge score against its mean human score (the mean over its items of each item's "
                "human score), over the models; the items with the judge's score, a human's and a model")
DEFINITIONS = {
    "spearman_items": f"Spearman's rank correlation (scipy.stats.spearmanr) of {_ITEM_WORDS}",
    "kendall_items": f"Kendall's tau-b (scipy.stats.kendalltau, variant b) of {_ITEM_WORDS}",
    "spearman_models": f"Spearman's rank correlation (scipy.stats.spearmanr) of {_MODEL_WORDS}",
    "kendall_models": f"Kendall's tau-b (scipy.stats.kendalltau, variant b) of {_MODEL_WORDS}",
}


def rank_measures(judge: np.ndarray, human: np.ndarray, model: np.ndarray, min_items: int) -> tuple[Measure, ...]:
    """Spearman's rho and Kendall's tau-b of a judge's scores with the human scores, over items and
    over models, as measures beside the gates (kind "coefficient"; their titles say over how many
    items or models). ``judge``, ``human`` (each item's human mean), ``model`` (each item's model, ""
    unknown): per item, NaN where not scored. ``min_items``: fewer items, no interval."""
    both = ~np.isnan(judge) & ~np.isnan(human)
    j, h, mod = judge[both], human[both], np.asarray(model, dtype=object)[both]
    n = len(j)
    values = (spearman(j, h), kendall_tau_b(j, h))
    if n < min_items:
        few = Interval(None, None, f"no interval: {plural(n, 'item')}, fewer than {min_items}")
        iv: tuple[Interval, Interval] = (few, few)
    else:
        iv = item_intervals(j, h, values)
    out = [_measure(name, f"{title} (n = {plural(n, 'item')})", v, i, n)
           for (name, title, _), v, i in zip(RANK_MEASURES[:2], values, iv)]
    known = mod != ""
    names, code = np.unique(mod[known].astype(str), return_inverse=True)
    m, k = len(names), int(known.sum())
    if m < MIN_MODELS:
        why = ("the log names no model for the items the judge and a human scored" if m == 0 else
               f"{plural(m, 'model')} in the log; a correlation across models needs {MIN_MODELS} or more")
        return tuple(out) + tuple(Measure(name, f"{title} ({over})", None, "", kind="coefficient",
                                          definition=DEFINITIONS[name], unavailable=why)
                                  for name, title, over in RANK_MEASURES[2:])
    jk, hk = j[known], h[known]
    sizes = np.bincount(code, minlength=m)
    mj, mh = np.bincount(code, jk, m) / sizes, np.bincount(code, hk, m) / sizes
    values = (spearman(mj, mh), kendall_tau_b(mj, mh))
    if k < min_items:
        few = Interval(None, None, f"no interval: {plural(k, 'item')}, fewer than {min_items}")
        iv = (few, few)
    else:
        iv = model_intervals(code, jk, hk, values)
    return tuple(out) + tuple(_measure(name, f"{title} ({over}; n = {plural(m, 'model')}, {plural(k, 'item')})",
                                       v, i, k) for (name, title, over), v, i in zip(RANK_MEASURES[2:], values, iv))


def _measure(name: str, title: str, value: float | None, interval: Interval, items: int) -> Measure:
    if value is None:
        return Measure(name, title, None, "", kind="coefficient", definition=DEFINITIONS[name],
                       unavailable="undefined: the judge's or the humans' scores do not vary")
    return Measure(name, title, value, "", interval.low, interval.high, interval.method, DEFINITIONS[name],
                   "coefficient", cases=items)
