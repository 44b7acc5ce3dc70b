"""Report parity: every report the CLI writes, before and after a change that must not change them.

    python tests/support/report_parity.py record OUT.json [--corpus DIR] [--random N]
    python tests/support/report_parity.py compare BEFORE.json AFTER.json [--ignore FIELD ...]

`record` runs the CLI in this process over every sample file, every file under tests/data and a
randomized corpus (panels and judge trios written by this script from a fixed seed, with nothing
of agreebound's, so the corpus is the same whichever version of the code records), and keeps, for
each command line, its exit code, its stderr and its stdout (the JSON report, the text report).
To record an older checkout, run this file with PYTHONPATH at that checkout's src/ (its CLI is
``agreebound.cli.main`` there, or the module ``agreebound.cli`` in trees before the packages).
`compare` names each command line whose outcome differs; `--ignore a.b.c` drops a JSON field
(dotted path, `*` for any key or index) that was changed on purpose. Exit 0 when all agree.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import io
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_data"
DATA = ROOT / "tests" / "data"
PANEL = SAMPLES / "detector_panel.csv"
TRIO = (SAMPLES / "judge_failing_contract.json", SAMPLES / "judge_failing_references.csv",
        SAMPLES / "judge_failing_observations.csv")


def _trio(contract: Path = TRIO[0], refs: Path = TRIO[1], obs: Path = TRIO[2]) -> list[str]:
    return ["calibrate", str(contract), "--references", str(refs), "--observations", str(obs)]


def commands_for(path: Path) -> list[list[str]]:
    """The command lines a file is read by, chosen by its name as the test data names them."""
    name, p = path.name, str(path)
    if path.suffix in {".py", ".md"} or name.startswith("make_"):
        return []
    if name.startswith("th_") or name.startswith("thresholds"):
        return [["panel", str(PANEL), "--thresholds", p], _trio() + ["--thresholds", p]]
    if name.startswith("rates_") or name == "detector_rates.csv":
        return [["panel", str(PANEL), "--rates", p]]
    if name.startswith("refs_") or name.startswith("references_"):
        return [_trio(refs=path)]
    if name.startswith("observations_"):
        return [_trio(obs=path)]
    if name.startswith("bundle_") or name in {"judge_failing.json", "judge_illustrative.json"}:
        return [["calibrate", p]]
    if name == "judge_failing_contract.json":
        return [_trio(), _trio() + ["--engine", "duckdb"]]
    if name in {"judge_failing_references.csv", "judge_failing_observations.csv"}:
        return []  # read by the trio above
    if name == "mt_bench_gpt-4_pair.jsonl":
        refs = str(path.parent / "mt_bench_human_judgments.jsonl")
        return [["calibrate", p, "--references", refs], ["calibrate", p, "--references", refs, "--contract",
                                                         str(TRIO[0])]]
    if name == "mt_bench_human_judgments.jsonl" or name.endswith(".mapping.json"):
        return []
    if name == "alpaca_eval_annotations.json":
        return [["calibrate", p]]
    if path.parent == DATA / "judge_logs" / "promptfoo" or name.endswith("_human.jsonl"):
        return []  # promptfoo's config, and human labels (read with their log)
    if path.parent in (DATA / "judge_logs", DATA / "scored_reports") or name in {"graded_judge.csv", "passfail_judge.csv"}:
        # graded, pass/fail and the newer pairwise judge logs
        human = path.with_name(name[:-len(".jsonl")] + "_human.jsonl") if name.endswith(".jsonl") else None
        return [["calibrate", p]] + ([["calibrate", p, "--references", str(human)]] if human and human.exists() else [])
    if name == "other_harness.jsonl":
        return [["calibrate", p, "--mapping", str(path.with_suffix(".mapping.json"))]]
    lines = [["panel", p], ["panel", p, "--coefficients"]]
    if path.suffix in {".csv", ".parquet"}:
        lines.append(["panel", p, "--engine", "duckdb"])
    return lines


def _random_panel(rng: random.Random, out: Path, i: int) -> tuple[Path, list[str]]:
    units, raters = rng.randint(2, 60), rng.randint(1, 6)
    kind = rng.choice(["binary", "small", "strings", "decimals", "wide_ints"])
    values = {"binary": ["0", "1"], "small": ["1", "2", "3", "4", "5"], "strings": ["low", "mid", "high", "n/a?"],
              "decimals": [f"{x / 4:.2f}" for x in range(12)], "wide_ints": [str(x) for x in range(40)]}[kind]
    missing = rng.choice([0.0, 0.1, 0.4])
    agree = rng.random()
    path = out / f"panel_{i:03d}.csv"
    names = [f"rater-{j}" if rng.random() < 0.8 else f"human-{j}" for j in range(raters)]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["unit", *names])
        for u in range(units):
            truth = rng.choice(values)
            row = []
            for _ in names:
                if rng.random() < missing:
                    row.append("")
                else:
                    row.append(truth if rng.random() < agree else rng.choice(values))
            w.writerow([f"u{u}", *row])
    extra = [[], ["--level", "ordinal"], ["--level", "interval"], ["--interval", "pairs"], ["--coefficients"],
             ["--preset", "krippendorff-reliable"]][i % 6]
    return path, extra


def _random_trio(rng: random.Random, out: Path, i: int) -> tuple[Path, Path]:
    """References and observations for the sample contract (3 repetitions an order, >= 200 cases)."""
    refs, obs = out / f"refs_{i:03d}.csv", out / f"obs_{i:03d}.csv"
    cases = rng.randint(200, 320)
    flip, noise, longer = rng.random() * 0.3, rng.random() * 0.2, rng.random() * 0.4
    with refs.open("w", newline="") as fr, obs.open("w", newline="") as fo:
        wr, wo = csv.writer(fr), csv.writer(fo)
        wr.writerow(["case_id", "preferred_candidate", "reviewer_ids", "adjudicated"])
        wo.writerow(["case_id", "order", "repetition", "selected_candidate", "candidate_a_tokens",
                     "candidate_b_tokens", "candidate_a_generator", "candidate_b_generator", "judge_generator"])
        for c in range(cases):
            case = f"case-{c:07d}"
            pref = rng.choice(["a", "b", "tie"]) if rng.random() < 0.9 else "tie"
            wr.writerow([case, pref, "reviewer:domain;reviewer:quality", "true"])
            ta, tb = rng.randint(20, 400), rng.randint(20, 400)
            ga = rng.choice(["judge-v1", "candidate-a", "model-x"])
            gb = rng.choice(["candidate-b", "model-y"])
            base = pref if rng.random() > noise * 2 else rng.choice(["a", "b", "tie"])
            if rng.random() < longer:
                base = "a" if ta > tb else "b"
            for order in ("ab", "ba"):
                verdict = base
                if order == "ba" and rng.random() < flip:
                    verdict = {"a": "b", "b": "a", "tie": "a"}[verdict]
                for rep in (1, 2, 3):
                    v = verdict if rng.random() > noise else rng.choice(["a", "b", "tie"])
                    wo.writerow([case, order, rep, v, ta, tb, ga, gb, "judge-v1"])
    return refs, obs


def command_lines(corpus: Path, n_random: int) -> list[list[str]]:
    lines: list[list[str]] = []
    for folder in (SAMPLES, DATA):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            lines.extend(commands_for(path))
    corpus.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20261201)
    for i in range(n_random):
        path, extra = _random_panel(rng, corpus, i)
        lines.append(["panel", str(path), *extra])
    for i in range(max(1, n_random // 10)):
        refs, obs = _random_trio(rng, corpus, i)
        lines.append(_trio(refs=refs, obs=obs))
    return lines


def run(argv: list[str]) -> dict:
    try:  # the tree under test, on PYTHONPATH: the command line's module
        cli = importlib.import_module("agreebound.cli.main")
    except ImportError:  # a tree from before the packages: agreebound/cli.py
        from agreebound import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    text = out.getvalue()
    json_out = None
    if code != 3:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            cli.main([*argv, "--json"])
        try:
            json_out = json.loads(buf.getvalue())
        except ValueError:
            json_out = buf.getvalue()
    result = {"exit": code, "stderr": err.getvalue(), "text": text, "json": json_out}
    # the checkout's own folder is not part of a report's meaning: two checkouts compare equal
    return json.loads(json.dumps(result).replace(str(ROOT), "<root>"))


def _key(argv: list[str]) -> str:
    return " ".join(a.replace(str(ROOT) + "/", "") for a in argv)


def record(dest: Path, corpus: Path, n_random: int) -> int:
    results = {}
    lines = command_lines(corpus, n_random)
    for argv in lines:
        results[_key(argv).replace(str(corpus), "<corpus>")] = run(argv)
    dest.write_text(json.dumps(results, indent=1, sort_keys=True, ensure_ascii=False))
    print(f"recorded {len(results)} command lines ({n_random} random panels) in {dest}")
    return 0


def _drop(value, path: list[str]):
    if not path or value is None:
        return value
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        keys = list(value) if head == "*" else [head]
        for k in keys:
            if k in value:
                if rest:
                    value[k] = _drop(value[k], rest)
                else:
                    del value[k]
    elif isinstance(value, list) and head == "*":
        return [_drop(v, rest) if rest else v for v in value]
    return value


def compare(before: Path, after: Path, ignore: list[str]) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = []
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x is None or y is None:
            differ.append((key, "only in one"))
            continue
        for field in ignore:
            x["json"] = _drop(x["json"], field.split("."))
            y["json"] = _drop(y["json"], field.split("."))
        for part in ("exit", "stderr", "json", "text"):
            if x[part] != y[part]:
                differ.append((key, part))
    for key, part in differ:
        print(f"DIFFERS ({part}): {key}")
    same = len(set(a) | set(b)) - len({k for k, _ in differ})
    print(f"{same} of {len(set(a) | set(b))} command lines identical (exit code, stderr, JSON report, text report)")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("--corpus", type=Path, default=Path("artifacts/parity-corpus"))
    r.add_argument("--random", type=int, default=300)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--ignore", action="append", default=[])
    args = parser.parse_args()
    if args.cmd == "record":
        return record(args.out, args.corpus, args.random)
    return compare(args.before, args.after, args.ignore)


if __name__ == "__main__":
    sys.exit(main())
