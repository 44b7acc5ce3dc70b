"""The graded audit at 1e5 items x (judge + 2 humans) against the krippendorff package plus
scikit-learn (and scipy) computing the same point values, side by side in one process.

Ours: what the command line computes for a graded judge's verdict from its scores table in memory
(agreebound.scored.audit.measure_scored: every measure with its 95% interval; decide_scored; the
report's view). The peer, from the same long scores table: the table pivoted to items x raters
(pandas), then the point values our audit reports, without intervals:

* krippendorff.alpha at the audit's level (ordinal) of the judge-human pairs pooled (each pair of
  scores on an item one unit), of the human-human pairs, of the judge-human pairs on the items two
  humans scored (the admissibility difference), and of each two raters;
* scikit-learn: exact agreement (accuracy_score) and quadratic-weighted kappa (cohen_kappa_score)
  over the judge-human pairs; numpy: agreement within one step, leniency, the SD ratio, the length
  effect (a Pearson correlation), self-preference, each model's mean score;
* scipy: Spearman's rho and Kendall's tau-b with the humans' mean, over items and over models.

The peer's alphas and kappa are checked against ours (1e-9) before timing. Both are timed in CPU
seconds (time.process_time: what the issue measures), interleaved, medians. Target: ours within
1.5x of the peer (intervals included: the delete-one-item jackknives come from item sums by
subtraction). Run: make bench (or .venv/bin/python -m bench.bench_graded_audit [items] [repeats]).
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score

from agreebound.app.synthetic import ScoredJudge, scored_frame
from agreebound.core.thresholds import ThresholdSet
from agreebound.render.view import scored_view
from agreebound.scored.audit import measure_scored
from agreebound.scored.decide import decide_scored

#: Ours may take at most this many times the peer's CPU time.
TARGET = 1.5
JUDGE, HUMANS = "judge-model", ("human-1", "human-2")


def ours(frame: pd.DataFrame) -> dict[str, float]:
    m = measure_scored(frame, "graded.csv")
    d = decide_scored(m)
    scored_view(m, d, ThresholdSet(), [("graded.csv", b"")])
    a = m.agreement(JUDGE)
    return {"judge_alpha": float(a.judge_alpha.exact), "human_alpha": float(a.human_alpha.exact),
            "difference": float(a.difference.exact), "weighted_kappa": float(a.measure("weighted_kappa").exact),
            "exact_agreement": float(a.measure("exact_agreement").exact),
            "spearman_items": float(a.measure("spearman_items").exact),
            "kendall_models": float(a.measure("kendall_models").exact)}


def peer(frame: pd.DataFrame, level: str = "ordinal") -> dict[str, float]:
    wide = frame.pivot(index="item", columns="rater", values="score")
    per_item = frame.drop_duplicates("item").set_index("item").loc[wide.index]
    j = wide[JUDGE].to_numpy()
    hs = [wide[h].to_numpy() for h in HUMANS]
    both = [~np.isnan(j) & ~np.isnan(h) for h in hs]
    jp = np.concatenate([j[b] for b in both])
    hp = np.concatenate([h[b] for h, b in zip(hs, both)])

    def kalpha(*rows: np.ndarray) -> float:
        return float(krippendorff.alpha(reliability_data=np.vstack(rows), level_of_measurement=level))

    two = ~np.isnan(hs[0]) & ~np.isnan(hs[1])
    out = {"judge_alpha": kalpha(jp, hp), "human_alpha": kalpha(hs[0][two], hs[1][two])}
    out["difference"] = kalpha(np.r_[j[two], j[two]], np.r_[hs[0][two], hs[1][two]]) - out["human_alpha"]
    for h in hs:  # each two raters' alpha, as the audit lists them
        kalpha(j, h)
    out["exact_agreement"] = accuracy_score(hp, jp)
    out["weighted_kappa"] = cohen_kappa_score(jp, hp, weights="quadratic")
    np.mean(np.abs(jp - hp) <= 1)  # within one step
    np.mean(jp - hp)  # leniency
    np.std(jp) / np.std(hp)  # central tendency
    ref = np.nanmean(np.column_stack(hs), axis=1)
    ok = ~np.isnan(j) & ~np.isnan(ref)
    length = per_item["length"].to_numpy(dtype=float)
    np.corrcoef((j - ref)[ok], length[ok])  # length effect
    model = per_item["model"].to_numpy(dtype=str)
    own = model == JUDGE
    np.mean((j - ref)[ok & own]) - np.mean((j - ref)[ok & ~own])  # self-preference
    out["spearman_items"] = float(stats.spearmanr(j[ok], ref[ok]).statistic)
    stats.kendalltau(j[ok], ref[ok])
    means = pd.DataFrame({"m": model[ok], "j": j[ok], "h": ref[ok]}).groupby("m").mean()
    stats.spearmanr(means["j"], means["h"])
    out["kendall_models"] = float(stats.kendalltau(means["j"], means["h"]).statistic)
    frame[frame["role"] == "judge"].groupby("model")["score"].mean()  # each model's mean score
    return out


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main(items: int = 100_000, repeats: int = 5) -> int:
    frame = scored_frame([ScoredJudge(JUDGE)], items, len(HUMANS), seed=5)
    warnings.simplefilter("ignore")
    mine, theirs = ours(frame), peer(frame)
    for key, value in theirs.items():
        assert abs(mine[key] - value) < 1e-9, (key, mine[key], value)
    t_ours, t_peer = [], []
    for _ in range(repeats):  # interleaved, so both see the same machine state
        t_ours.append(cpu(lambda: ours(frame)))
        t_peer.append(cpu(lambda: peer(frame)))
    o, p = statistics.median(t_ours), statistics.median(t_peer)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"graded audit, {items:,} items x (judge + {len(HUMANS)} humans), 1-5 scale, ordinal: ours {o:.2f} CPU-s "
          f"(measure with every interval, decide, the report's view), krippendorff + scikit-learn + scipy "
          f"{p:.2f} CPU-s (the same point values, no intervals); medians of {repeats} interleaved repetitions, "
          f"load {load}")
    ok = o <= TARGET * p
    print(f"{'PASS' if ok else 'FAIL'}: graded audit {o / p:.2f}x the peer's CPU time (target <= {TARGET}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    raise SystemExit(main(*args))
