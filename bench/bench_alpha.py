"""Exact alpha (agreebound) against the krippendorff package, side by side in one process.

Prints, with PASS/FAIL: the time ratio ours/theirs on 200,000 units x 8 raters, nominal (target
<= 0.15x since issue 57, was 0.3x) and on 50 interval values (target <= 0.05x); alpha from 1e7 coded
ratings against np.bincount over the same codes (target <= 1.5x since issue 57, was 3x: reading the
values once is the floor, and the counts are one bincount of the same size plus one blocked read of
the count matrix); the peak traced memory of ours at 2M ratings (target < 1 GiB). Each figure is
printed with the machine's load (/proc/loadavg). Run: make bench (or .venv/bin/python -m
bench.bench_alpha).
"""

from __future__ import annotations

import statistics
import time
import tracemalloc

import krippendorff
import numpy as np

from agreebound.panel.alpha import alpha, krippendorff_alpha
from agreebound.panel.categories import encode
from agreebound.panel.counts import from_coded
from agreebound.panel.intervals import bootstrap_alpha, bootstrap_alpha_units, pairable_pairs


def panel(units: int, raters: int, values: int, missing: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, values, size=units)
    noisy = rng.integers(0, values, size=(units, raters))
    data = np.where(rng.random((units, raters)) < 0.6, truth[:, None], noisy).astype(np.float64)
    data[rng.random((units, raters)) < missing] = np.nan
    return data


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(name: str, data: np.ndarray, level: str, repeats: int = 7) -> float:
    ours = krippendorff_alpha(data, level)
    theirs = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
    assert abs(float(ours.value) - theirs) < 1e-9, (float(ours.value), theirs)
    # Interleaved so both see the same machine state; medians, not minimums.
    t_ours, t_theirs = [], []
    for _ in range(repeats):
        t_ours.append(timed(lambda: krippendorff_alpha(data, level)))
        t_theirs.append(timed(lambda: krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)))
    o, t = statistics.median(t_ours), statistics.median(t_theirs)
    print(f"{name}: ours {o * 1000:.1f} ms (exact {ours.value.numerator.bit_length()}-bit numerator), "
          f"krippendorff {t * 1000:.1f} ms, ratio ours/theirs = {o / t:.3f}x, alpha = {float(ours.value):.6f} "
          f"(medians of {repeats} interleaved repetitions)")
    return o / t


def against_bincount(repeats: int = 11) -> float:
    """Alpha from 1e7 coded ratings (the counts, then alpha: what follows reading a file) against
    np.bincount over the same codes (unit x value cells: the least any counting does), interleaved."""
    data = panel(1_250_000, 8, 5, 0.0, 4)
    coded = encode(data)
    k = len(coded.categories)

    def floor() -> np.ndarray:
        return np.bincount(coded.unit * k + coded.code, minlength=coded.n_units * k)

    def ours() -> object:
        return alpha(from_coded(coded), "nominal")

    t_ours, t_floor, t_whole = [], [], []
    for _ in range(repeats):
        t_ours.append(timed(ours))
        t_floor.append(timed(floor))
        t_whole.append(timed(lambda: krippendorff_alpha(data, "nominal")))
    o, f, w = (statistics.median(t) for t in (t_ours, t_floor, t_whole))
    print(f"{coded.n_ratings:,} ratings ({coded.n_units:,} units x 8 raters, {k} values, nominal): alpha from "
          f"the codes {o * 1000:.0f} ms, np.bincount over the same codes {f * 1000:.0f} ms: {o / f:.2f}x; "
          f"from the float matrix (coding included) {w * 1000:.0f} ms (medians of {repeats} interleaved repetitions)")
    return o / f


def main() -> int:
    r1 = compare("200,000 units x 8 raters x 5 categories, 20% missing, nominal",
                 panel(200_000, 8, 5, 0.2, 1), "nominal")
    r2 = compare("20,000 units x 5 raters x 50 values, interval",
                 panel(20_000, 5, 50, 0.0, 2), "interval")
    r3 = against_bincount()
    big = panel(200_000, 8, 5, 0.2, 1)
    result = krippendorff_alpha(big, "nominal")
    t0 = time.perf_counter()
    boot = bootstrap_alpha(result, pairs=pairable_pairs(big), draws=2000, seed=0)
    t_boot = time.perf_counter() - t0
    t0 = time.perf_counter()
    units = bootstrap_alpha_units(big, "nominal", draws=2000, seed=0, result=result)
    t_units = time.perf_counter() - t0
    print(f"bootstrap on the 200,000 x 8 panel: units (the default), 2,000 draws: {t_units:.2f} s "
          f"(95% [{units.low:.4f}, {units.high:.4f}]); pairs (KALPHA), 2,000 draws: {t_boot * 1000:.1f} ms "
          f"(95% [{boot.low:.4f}, {boot.high:.4f}])")
    data = panel(250_000, 8, 5, 0.0, 3)  # 2,000,000 ratings
    tracemalloc.start()
    krippendorff_alpha(data, "nominal")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak traced memory, 2,000,000 ratings nominal: {peak / 2**20:.1f} MiB (input itself {data.nbytes / 2**20:.1f} MiB)")
    checks = [(f"200,000 x 8 nominal: {r1:.3f}x the krippendorff package's time (target <= 0.15x)", r1 <= 0.15),
              (f"50 interval values: {r2:.4f}x the krippendorff package's time (target <= 0.05x)", r2 <= 0.05),
              (f"1e7 ratings: {r3:.2f}x np.bincount over the same codes (target <= 1.5x)", r3 <= 1.5),
              (f"2M ratings: peak traced memory {peak / 2**20:.0f} MiB (target < 1 GiB)", peak < 2**30)]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}: {text} (load {load})")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
