"""The agreebound command line: the dashboard's verdicts for CI jobs and for files people send.

Exit codes: 0 ENFORCE / PASS_CALIBRATION, 1 REPORT_ONLY / FAIL_CALIBRATION, 2 REFUSE_SINGLE,
3 input error (the InputError line on stderr).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

from agreebound import __version__
from agreebound.analysis import measure_panels
from agreebound.calibration import format_example
from agreebound.formats import (
    InputError,
    parse_detector_rates,
    parse_judge_bundle,
    parse_judge_tables,
    parse_ratings,
    parse_thresholds,
)
from agreebound.panel import LEVELS
from agreebound.report import EXIT_CODES, calibration_report, panel_report, to_json, to_markdown, verdict_of
from agreebound.thresholds import DEFAULT, PRESETS, ThresholdSet

INPUT_ERROR = 3
ROOT = Path(__file__).resolve().parents[2]

PANEL_EXAMPLES = """examples:
  agreebound panel sample_data/detector_panel.csv
  agreebound panel sample_data/detector_panel.csv --dimension sexual --json
  agreebound panel ratings.csv --rates rates.csv --thresholds thresholds.toml --preset krippendorff-reliable
  agreebound panel sample_data/krippendorff_2011.csv --level interval --report k2011.html
"""
CAL_EXAMPLES = """examples:
  agreebound calibrate sample_data/judge_failing.json
  agreebound calibrate sample_data/judge_illustrative.json --json --report judge.md
  agreebound calibrate contract.json --references references.csv --observations observations.csv
"""


def _read(path: str) -> tuple[str, bytes]:
    p = Path(path)
    try:
        return p.name, p.read_bytes()
    except OSError as e:
        raise InputError(path, None, None, f"cannot read the file ({e.strerror})") from None


def _thresholds(args: argparse.Namespace) -> ThresholdSet:
    presets = dict(PRESETS)
    t = DEFAULT
    if args.thresholds:
        name, data = _read(args.thresholds)
        tf = parse_thresholds(name, data)
        presets, t = tf.presets, tf.thresholds
    if args.preset:
        if args.preset not in presets:
            raise InputError(args.thresholds or "--preset", None, None,
                             f"no preset {args.preset!r}; available: {', '.join(sorted(presets))}")
        t = presets[args.preset]
    return t


def _write_report(path: str, report: dict[str, Any], html_fn: Any) -> None:
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        text = to_json(report)
    elif suffix in (".md", ".markdown"):
        text = to_markdown(report)
    elif suffix in (".html", ".htm"):
        text = html_fn()
    else:
        raise InputError(path, None, None, "--report needs a .json, .md or .html file name")
    Path(path).write_text(text, encoding="utf-8")


def _panel(args: argparse.Namespace) -> int:
    name, data = _read(args.file)
    panels = parse_ratings(name, data)
    if args.dimension:
        if args.dimension not in panels:
            raise InputError(name, None, "dimension", f"no dimension {args.dimension!r}; the file has "
                             f"{', '.join(panels)}")
        panels = {args.dimension: panels[args.dimension]}
    inputs: list[tuple[str, bytes]] = [(name, data)]
    rates = None
    if args.rates:
        rname, rdata = _read(args.rates)
        rates = parse_detector_rates(rname, rdata)
        inputs.append((rname, rdata))
    t = _thresholds(args)
    if args.thresholds:
        inputs.append(_read(args.thresholds))
    positive: Any = "auto" if args.positive is None else _positive(args.positive)
    measurements = measure_panels(panels, args.level, positive, rates, Path(args.rates).name if args.rates else None)
    report = panel_report(measurements, t, inputs)

    def html() -> str:
        from agreebound.ui.html import panel_html

        return panel_html(measurements, t, report)

    return _emit(args, report, html, _print_panel)


def _print_panel(report: dict[str, Any]) -> None:
    for d in report["panel"]["dimensions"]:
        a = d["alpha"]
        alpha = f"{a['exact']} ({a['permil']} permil)" if a["defined"] else "undefined"
        spread = d["spread"]["exact"] if d["spread"]["state"] == "bounded" else d["spread"]["state"]
        print(f"{d['dimension']}: {d['verdict']}  alpha={alpha}  spread={spread}  detectors={d['ndet']}")
        for r in d["reasons"]:
            print(f"  - {r['message']}")
    print(f"overall: {report['panel']['verdict']}")


def _emit(args: argparse.Namespace, report: dict[str, Any], html: Any, print_text: Any) -> int:
    """Write --report, print JSON or text, and return the verdict's exit code."""
    if args.report:
        _write_report(args.report, report, html)
    if args.json:
        sys.stdout.write(to_json(report))
    else:
        print_text(report)
    return EXIT_CODES[verdict_of(report)]


def _positive(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text


def _calibrate(args: argparse.Namespace) -> int:
    name, data = _read(args.bundle)
    inputs: list[tuple[str, bytes]] = [(name, data)]
    if args.references or args.observations:
        if not (args.references and args.observations):
            raise InputError(name, None, None, "the tabular form needs --references and --observations")
        rname, rdata = _read(args.references)
        oname, odata = _read(args.observations)
        bundle = parse_judge_tables(name, data, rname, rdata, oname, odata)
        inputs += [(rname, rdata), (oname, odata)]
    else:
        bundle = parse_judge_bundle(name, data)
    t = _thresholds(args)
    if args.thresholds:
        inputs.append(_read(args.thresholds))
    report = calibration_report(bundle, t, inputs)

    def html() -> str:
        from agreebound.ui.html import calibration_html

        return calibration_html(bundle, t, report)

    return _emit(args, report, html, _print_calibration)


def _print_calibration(report: dict[str, Any]) -> None:
    c = report["calibration"]
    print(f"decision: {c['decision']} (against the {c['decided_against']['kind']} contract "
          f"{c['decided_against']['content_id']})")
    for r in c["rates"]:
        gate = "not evaluable" if not r["evaluable"] else ("pass" if r["passed"] else "FAIL")
        op = ">=" if r["kind"] == "min" else "<="
        print(f"  {r['name']}: {r['numerator']}/{r['denominator']} = {r['bps']} bps ({op} {r['threshold_bps']}): {gate}")
    if c["reference_issues"]:
        print(f"  reference issues: {len(c['reference_issues'])}")


def _serve(args: argparse.Namespace) -> int:
    app = ROOT / "app.py"
    if not app.exists():
        print("agreebound serve runs the dashboard from a source checkout (app.py not found)", file=sys.stderr)
        return INPUT_ERROR
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(args.port),
           "--browser.gatherUsageStats", "false"]
    return subprocess.call(cmd, cwd=ROOT, env={**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"})


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="agreebound", formatter_class=raw,
        description="Is this verdict reliable enough to act on? Exact panel reliability and judge calibration.",
        epilog="exit codes: 0 ENFORCE/PASS_CALIBRATION, 1 REPORT_ONLY/FAIL_CALIBRATION, 2 REFUSE_SINGLE, 3 input error")
    parser.add_argument("--version", action="version", version=f"agreebound {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("panel", help="alpha, detector spread and the enforcement verdict", formatter_class=raw,
                       epilog=PANEL_EXAMPLES, description="Decide whether a detector panel licenses enforcement.")
    p.add_argument("file", help="ratings: wide CSV, long CSV or Parquet")
    p.add_argument("--dimension", help="only this dimension")
    p.add_argument("--level", choices=LEVELS, default="nominal", help="level of measurement (default nominal)")
    p.add_argument("--rates", help="detector rates CSV (detector,positives,total[,dimension])")
    p.add_argument("--positive", help="category counted as a detector's positive (default: 1 on a 0/1 panel)")
    _common(p)
    p.set_defaults(func=_panel)

    c = sub.add_parser("calibrate", help="audit an LLM judge against its calibration contract", formatter_class=raw,
                       epilog=CAL_EXAMPLES, description="Audit a judge's pairwise verdicts against human references.")
    c.add_argument("bundle", help="judge bundle JSON, or the contract JSON of the tabular trio")
    c.add_argument("--references", help="references CSV (tabular trio)")
    c.add_argument("--observations", help="observations CSV (tabular trio)")
    _common(c)
    c.set_defaults(func=_calibrate)

    e = sub.add_parser("example", help="the seed's eight illustrative lines")
    e.set_defaults(func=lambda a: print(format_example()) or 0)

    s = sub.add_parser("serve", help="start the dashboard (source checkout)")
    s.add_argument("--port", type=int, default=8501)
    s.set_defaults(func=_serve)
    return parser


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--thresholds", help="thresholds file (JSON or TOML)")
    p.add_argument("--preset", help="a preset: built-in (" + ", ".join(PRESETS) + ") or from --thresholds")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument("--report", metavar="PATH", help="write a report: .json, .md or self-contained .html")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except InputError as e:
        print(str(e), file=sys.stderr)
        return INPUT_ERROR


if __name__ == "__main__":
    sys.exit(main())
