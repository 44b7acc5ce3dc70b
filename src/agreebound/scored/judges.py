"""Several judges at once: a panel of judges, each audited against the same humans."""

from __future__ import annotations
from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence
import numpy as np
from agreebound.panel.alpha import alpha
from agreebound.panel.categories import Categories, Level
from agreebound.panel.counts import PanelCounts, pairs_of_rows
from agreebound.scored.items import ScoredInput
from agreebound.scored.one_judge import JudgeAgreement


# --- several judges: a panel of judges ---------------------------------------------------------------

@dataclass(frozen=True)
class JudgePanel:
    """Several judges over the same items: alpha among them (the panel path), alpha without each,
    and which judge to drop."""

    alpha: Fraction | None
    without: dict[str, Fraction | None]
    drop: str | None
    why: str


def judge_panel(x: ScoredInput, level: Level, agreements: Sequence[JudgeAgreement]) -> JudgePanel | None:
    if len(x.judges) < 2:
        return None
    full, without = _judge_panel_alphas(x, level)
    drop, why = _drop(full, without, agreements)
    return JudgePanel(full, without, drop, why)


def _judge_panel_alphas(x: ScoredInput, level: Level) -> tuple[Fraction | None, dict[str, Fraction | None]]:
    """Alpha among the judges, and without each judge (three judges or more), through the panel path
    (agreebound.panel.alpha) from pair counts. Leaving one judge out changes only the items it scored, so
    each judge's counts are the panel's less its items' pairs plus the same items' pairs without its
    score: every judge's alpha costs its own items, not the whole log again (the whole log once per
    judge was quadratic in the judges)."""
    k = len(x.judges)
    m = x.matrix[:, :k]
    item, judge = np.nonzero(~np.isnan(m))  # by item, then judge
    score = m[item, judge]
    vals = np.unique(score)
    c = max(len(vals), 1)
    code = np.searchsorted(vals, score).astype(np.int64)
    # each item's histogram of the judges' scores: entries (item, value, count), by item then value
    keys, at, cnt = np.unique(item * c + code, return_inverse=True, return_counts=True)
    e_item, e_code = keys // c, keys % c
    starts = np.flatnonzero(np.r_[True, e_item[1:] != e_item[:-1]]) if len(keys) else np.zeros(0, dtype=np.int64)
    lens = np.diff(np.r_[starts, len(keys)])
    size = np.add.reduceat(cnt, starts) if len(keys) else np.zeros(0, dtype=np.int64)
    unit_of_entry = np.repeat(np.arange(len(starts)), lens)
    cats = Categories(floats=vals)
    totals = np.bincount(code, minlength=c)
    pairs = pairs_of_rows(e_code, cnt, starts, None, c)
    by_m = np.bincount(size) if len(size) else np.zeros(0, dtype=np.int64)

    ranked = sorted(x.judges)

    def alpha_of(pairs_m: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]], units_by_m: np.ndarray,
                 tot: np.ndarray, raters: list[str]) -> Fraction | None:
        counts = PanelCounts("judges", "number", cats, {int(s): int(units_by_m[s]) for s in np.flatnonzero(units_by_m)
                                                       if s}, pairs_m, tot, {}, raters=raters)
        return alpha(counts, level).value

    full = alpha_of(pairs, by_m, totals, ranked)
    if k <= 2:
        return full, {}
    without: dict[str, Fraction | None] = {}
    # the judge's cells by judge (stable: by item within a judge), and the entry each cell is in
    order = np.argsort(judge, kind="stable")
    bounds = np.searchsorted(judge[order], np.arange(k + 1))
    for i, name in enumerate(x.judges):
        mine = order[bounds[i]:bounds[i + 1]]  # the judge's cells
        units = unit_of_entry[at[mine]]  # the items it scored, as histogram rows
        rows = _ranges_of(starts[units], lens[units])  # those items' entries
        owner = np.repeat(np.arange(len(units)), lens[units])
        less = cnt[rows] - (rows == np.repeat(at[mine], lens[units]))  # its score taken out
        keep = less > 0
        before = pairs_of_rows(e_code[rows], cnt[rows], np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
                               if len(owner) else np.zeros(0, dtype=np.int64), None, c)
        o2 = owner[keep]
        after = pairs_of_rows(e_code[rows][keep], less[keep], np.flatnonzero(np.r_[True, o2[1:] != o2[:-1]])
                              if len(o2) else np.zeros(0, dtype=np.int64), None, c)
        units_m = by_m.copy()
        np.subtract.at(units_m, size[units], 1)
        np.add.at(units_m, size[units] - 1, 1)
        r = bisect_left(ranked, name)
        without[name] = alpha_of(_pairs_sum(pairs, before, after, c), units_m,
                                 totals - np.bincount(code[mine], minlength=c), ranked[:r] + ranked[r + 1:])
    return full, without


def _ranges_of(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The indices starts[j] .. starts[j] + lens[j] - 1 of every j, concatenated."""
    if not len(lens):
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lens)
    return np.arange(ends[-1], dtype=np.int64) - np.repeat(ends - lens, lens) + np.repeat(starts, lens)


def _pairs_sum(full: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]],
               less: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]],
               more: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]], c: int
               ) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Pair counts (m -> (c, k, count), sorted by (c, k), counts > 0): ``full - less + more``. Exact
    in int64: a size's pair count is at most the square of the ratings (MAX_ROWS squared < 2^63)."""
    out = dict(full)
    for m in set(less) | set(more):
        parts = [(p, sign) for p, sign in ((full.get(m), 1), (less.get(m), -1), (more.get(m), 1)) if p is not None]
        key = np.concatenate([p[0] * c + p[1] for p, _ in parts])
        w = np.concatenate([np.asarray(p[2], dtype=np.int64) * sign for p, sign in parts])
        uniq, inv = np.unique(key, return_inverse=True)
        total = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(total, inv, w)
        keep = total > 0
        if keep.any():
            out[m] = (uniq[keep] // c, uniq[keep] % c, total[keep])
        else:
            out.pop(m, None)
    return out


def _rated_alpha(a: JudgeAgreement) -> Fraction | float:
    """A rated judge's alpha with the humans (measured: not None)."""
    assert a.judge_alpha.exact is not None
    return a.judge_alpha.exact


def _drop(full: Fraction | None, without: dict[str, Fraction | None], agreements: Sequence[JudgeAgreement]
          ) -> tuple[str | None, str]:
    """The judge to drop: with human labels, the one that agrees with them least when its interval
    lies below the best judge's alpha (none when they overlap: no judge stands out); without human
    labels, the one whose removal raises the judges' alpha most (none when no removal raises it)."""
    rated = [a for a in agreements if a.judge_alpha.exact is not None]
    if len(rated) >= 2:
        worst_a = min(rated, key=_rated_alpha)
        best = max(rated, key=_rated_alpha)
        w, b = worst_a.judge_alpha, best.judge_alpha
        if w.high is not None and w.high < float(_rated_alpha(best)):  # clearly below the best, not by chance
            return worst_a.judge, (f"it agrees with the humans least: alpha {w.value_text()} {w.interval_text()}, "
                                   f"below {best.judge}'s {b.value_text()}")
        return None, ("no judge stands out: the lowest alpha with the humans "
                      f"({worst_a.judge}, {w.value_text()} {w.interval_text()}) reaches the best's "
                      f"({best.judge}, {b.value_text()})")
    gains = [(v - full, j) for j, v in without.items() if v is not None and full is not None]
    if gains and max(gains)[0] > 0:
        gain, judge = max(gains)
        return judge, f"leaving it out raises the judges' alpha by {float(gain):.3f}"
    return None, "no judge's removal raises the judges' alpha"


