"""High-cardinality data against a 5-category panel of the same size: time and peak memory.

Issue targets: 1M ratings with ~500,000 distinct decimal scores at the interval level, and
100,000 ratings with 5,000 distinct labels at the nominal level, each under 1 GiB peak RSS and
under 10x the time of a 5-category panel of the same size; 10,000 raters x 100 units decides in
under 2 s.

Time: the file path a user takes (parse the CSV bytes, measure alpha and its bootstrap, decide),
the high-cardinality file and its 5-category peer interleaved in one process, median of N
repetitions. Peak RSS: the CLI on each file in its own process (its own VmHWM).
Run: make bench (or .venv/bin/python -m bench.bench_cardinality).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from agreebound.panel.measure import measure_panels
from agreebound.panel.decide import decide_panel
from agreebound.io.ratings import parse_ratings
from agreebound.core.thresholds import PanelThresholds

from tests.support.peak import run_cli  # noqa: E402  (the CLI in its own process, with its own peak memory)

REPEATS = 5


def wide_csv(values: np.ndarray, fmt: str) -> bytes:
    lines = ["unit," + ",".join(f"r{j}" for j in range(values.shape[1]))]
    lines += [f"u{i}," + ",".join(fmt.format(v) for v in row) for i, row in enumerate(values)]
    return ("\n".join(lines) + "\n").encode()


def decimals(units: int, raters: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 500_000, units)
    return (truth[:, None] + rng.integers(-200, 200, (units, raters))) / 1000  # three decimals


def few(units: int, raters: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, units)
    return np.where(rng.random((units, raters)) < 0.7, truth[:, None], rng.integers(0, k, (units, raters)))


def labels(values: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda v: f"label-{v}")(values)


def run_path(data: bytes, level: str) -> float:
    t0 = time.perf_counter()
    panels = parse_ratings("bench.csv", data)
    ms = measure_panels(panels, level)
    for m in ms.values():
        decide_panel(m, PanelThresholds())
    return time.perf_counter() - t0


def interleaved(cases: list[tuple[str, bytes, str]]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for _ in range(REPEATS):
        for name, data, level in cases:
            times[name].append(run_path(data, level))
    return {name: statistics.median(t) for name, t in times.items()}


def peak_rss_mib(path: Path, level: str) -> tuple[float, int]:
    code, _, _, peak = run_cli(["panel", str(path), "--level", level])
    return peak, code


def main() -> None:
    print(f"medians of {REPEATS} interleaved repetitions; peak RSS of the CLI in its own process")
    groups = [
        ("1M ratings, interval", "interval",
         wide_csv(decimals(200_000, 5, 1), "{:.3f}"), wide_csv(few(200_000, 5, 5, 1), "{}")),
        ("100k ratings, nominal", "nominal",
         wide_csv(labels(few(20_000, 5, 5000, 2)), "{}"), wide_csv(few(20_000, 5, 5, 2), "{}")),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for title, level, high, low in groups:
            k_high = parse_ratings("x.csv", high)["all"].categories
            t = interleaved([("high", high, level), ("five", low, level)])
            rss = []
            for name, data in (("high", high), ("five", low)):
                path = Path(tmp) / f"{name}.csv"
                path.write_bytes(data)
                rss.append(peak_rss_mib(path, level))
            ratio = t["high"] / t["five"]
            ok &= ratio < 10 and rss[0][0] < 1024
            print(f"{title}: {len(k_high):,} distinct values {t['high']:.3f} s, {rss[0][0]:.0f} MiB peak | "
                  f"5 categories {t['five']:.3f} s, {rss[1][0]:.0f} MiB | time ratio {ratio:.2f}x "
                  f"(target < 10x, < 1024 MiB)")
        raters = wide_csv(few(100, 10_000, 2, 3), "{}")
        t = statistics.median(run_path(raters, "nominal") for _ in range(REPEATS))
        path = Path(tmp) / "raters.csv"
        path.write_bytes(raters)
        rss, _ = peak_rss_mib(path, "nominal")
        ok &= t < 2
        print(f"10,000 raters x 100 units: {t:.3f} s to a verdict, {rss:.0f} MiB peak (target < 2 s)")
    print("summary:", "all targets met" if ok else "A TARGET WAS MISSED")


if __name__ == "__main__":
    main()
