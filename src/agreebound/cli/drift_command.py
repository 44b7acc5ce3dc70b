"""`agreebound drift BEFORE AFTER`: how much of the change between two judge runs is the judge's,
measured on anchor items (:mod:`agreebound.judge.drift`); exit 1 when the judge changed beyond
the tolerance, 0 otherwise, 3 on bad input.
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from agreebound.cli.common import UsageError, printing
from agreebound.core.escape import printable

DRIFT_EXAMPLES = """examples:
  agreebound drift run1/gpt-4_pair.jsonl run2/gpt-4_pair.jsonl
  agreebound drift before.csv after.csv --judge judge-model --tolerance 0.1
  agreebound drift before.jsonl after.jsonl --anchors anchors.txt --json

Anchors are the items whose candidate text is the same in both runs (read from the logs: MT-Bench
judge prompts, AlpacaEval outputs, MT-Bench single grading prompts, a scores table's output or
digest column); a log without text needs --anchors, a file of item ids (one a line; on an MT-Bench
pairwise log a question id stands for each of its cases).

exit codes:
  0  no judge change shown, inconclusive, or no anchors (the report says which)
  1  the judge changed: its shift on the anchors lies beyond the tolerance
  3  bad input or usage: one line on stderr naming the file, row, column and reason
  4  internal error: a bug in agreebound, never a verdict"""


def drift_parser(sub: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """The command's options (parser.py adds it with the other commands)."""
    from agreebound.judge.drift import DRIFT_TOLERANCE_DEFAULT

    d = sub.add_parser("drift", help="split the change between two judge runs into the judge's shift and the "
                       "systems' change, with anchor items; exit 1 when the judge changed",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DRIFT_EXAMPLES,
                       description="Did the systems change between two runs, or did the judge? Items whose candidate "
                       "text is the same in both runs (anchors) show the judge's own shift; the rest of the change is "
                       "the systems'.")
    d.add_argument("before", metavar="BEFORE", help="the earlier run's judge log (pairwise, graded or pass/fail)")
    d.add_argument("after", metavar="AFTER", help="the later run's judge log, of the same kind")
    d.add_argument("--anchors", metavar="FILE", help="declared anchor items, one item id a line (used instead of the "
                   "candidate text)")
    d.add_argument("--tolerance", metavar="X", help="how far the judge may shift before it counts as changed, on the "
                   f"headline's scale: a score (default {float(DRIFT_TOLERANCE_DEFAULT):g}) or points of win rate "
                   f"(default {float(DRIFT_TOLERANCE_DEFAULT) * 100:g})")
    d.add_argument("--judge", help="a log holding several judges: the one to compare")
    d.add_argument("--json", action="store_true", help="print the result as JSON")
    d.set_defaults(func=drift)
    return d


def _tolerance(text: str | None, win_rate: bool) -> Fraction | None:
    if text is None:
        return None
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"agreebound drift: --tolerance: expected a number, got {printable(text, 40)}") from None
    if value < 0 or value.denominator > 10**12:
        raise UsageError(f"agreebound drift: --tolerance: expected a number of at least 0, got {printable(text, 40)}")
    return value / 100 if win_rate else value


def drift(args: argparse.Namespace) -> int:
    from agreebound.app.recipes import read_file
    from agreebound.io.drift_logs import anchor_items, check_same_kind, read_anchor_list, read_drift_run
    from agreebound.judge.drift import WIN_RATE, DriftThresholds, decide_drift, measure_drift

    before = read_drift_run(*read_file(args.before), judge=args.judge)
    after = read_drift_run(*read_file(args.after), judge=args.judge)
    check_same_kind(before, after)
    declared = None if args.anchors is None else anchor_items(read_anchor_list(*read_file(args.anchors)), before, after)
    tolerance = _tolerance(args.tolerance, before.scale == WIN_RATE)
    thresholds = DriftThresholds() if tolerance is None else DriftThresholds(tolerance)
    measured = measure_drift(before.frame, after.frame, before.scale, declared)
    decision = decide_drift(measured, thresholds)

    def body() -> None:
        if args.json:
            report = decision.to_json()
            report["files"] = {"before": before.file, "after": after.file}
            report["read"] = [*before.notes, *after.notes]
            print(json.dumps(report, indent=2, allow_nan=False))
            return
        for line in [*before.notes, *after.notes, *decision.sentences()]:
            print(printable(line))

    printing(body)
    return decision.exit_code
