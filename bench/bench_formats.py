"""Parsing at scale (a benchmark, not a test): a 1M-row long rating CSV and a 1M-observation
judge set (the tabular trio), parsed and validated end to end, with the pandas reader beside us
as the peer for the raw CSV (it checks nothing: no ragged rows, no exact integers)."""

from __future__ import annotations

import io
import json
import time
from dataclasses import asdict

import numpy as np
import pandas as pd

from agreebound.io.judge_inputs import bundle_json
from agreebound.io.ratings import parse_ratings
from agreebound.app.pipeline import parse_judge_bundle, parse_judge_tables
from agreebound.app.synthetic import JudgeBehaviour, judge_frames


def timed(label, fn):
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    print(f"{label}: {dt:.2f} s")
    return dt, out


def main() -> None:
    rng = np.random.default_rng(0)
    units, raters = 125_000, 8
    frame = pd.DataFrame({
        "dimension": np.repeat(np.array(["violence", "insult"]), units * raters // 2),
        "unit": np.tile(np.repeat(np.arange(units // 2), raters), 2).astype(str),
        "rater": np.tile(np.array([f"det-{i}" for i in range(raters)]), units),
        "value": rng.integers(0, 5, size=units * raters),
    })
    data = frame.to_csv(index=False).encode()
    print(f"long rating CSV: {len(frame):,} rows, {len(data) / 2**20:.1f} MiB")
    ours, panels = timed("  agreebound.parse_ratings (strict, validated, pivoted)", lambda: parse_ratings("big.csv", data))
    peer, _ = timed("  pandas.read_csv (peer, no validation)", lambda: pd.read_csv(io.BytesIO(data), dtype=str))
    print(f"  ratio ours/pandas = {ours / peer:.2f}x; panels {[(k, len(v.units), len(v.raters), v.n_ratings) for k, v in panels.items()]}")

    contract, refs, obs, header = judge_frames(100_000, 5, JudgeBehaviour(noise=0.02), seed=3)
    refs_csv = refs.assign(reviewer_ids=[";".join(r) for r in refs["reviewer_ids"]],
                           adjudicated=refs["adjudicated"].map({True: "true", False: "false"})).to_csv(index=False).encode()
    obs_csv = obs.to_csv(index=False).encode()
    contract_json = json.dumps({"contract": asdict(contract), "snapshot": header}).encode()
    print(f"judge tables: {len(obs):,} observations, {len(obs_csv) / 2**20:.1f} MiB")
    timed("  agreebound.parse_judge_tables (parse + full seed validation + measure)",
          lambda: parse_judge_tables("c.json", contract_json, "r.csv", refs_csv, "o.csv", obs_csv))
    contract, refs, obs, header = judge_frames(100_000, 2, JudgeBehaviour(noise=0.02), seed=3)
    bundle = bundle_json(contract, header, refs, obs).encode()
    print(f"judge bundle JSON: {len(obs):,} observations, {len(bundle) / 2**20:.1f} MiB")
    timed("  agreebound.parse_judge_bundle (parse + full seed validation + measure)",
          lambda: parse_judge_bundle("b.json", bundle))


if __name__ == "__main__":
    main()
