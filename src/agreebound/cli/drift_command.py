"""`agreebound drift BEFORE AFTER`: how much of the change between two judge runs is the judge's,
measured on anchor items (:mod:`agreebound.judge.drift`); exit 1 when the judge changed beyond
the tolerance, 0 otherwise, 3 on bad input.
"""

from __future__ import annotations

import argparse
import json
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from agreebound.cli.common import UsageError, printing
from agreebound.core.escape import printable

if TYPE_CHECKING:
    from agreebound.core.thresholds import DriftThresholds

DRIFT_EXAMPLES = """examples:
  agreebound drift run1/gpt-4_pair.jsonl run2/gpt-4_pair.jsonl
  agreebound drift before.csv after.csv --judge judge-model --tolerance 0.1
  agreebound drift before.jsonl after.jsonl --anchors anchors.txt --json
  agreebound drift before.csv after.csv --thresholds thresholds.toml   # [drift] judge_shift_tolerance_permil = 80

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
    # judge.drift's DRIFT_TOLERANCE_DEFAULT, read where it is defined: the parser stays off numpy and pandas
    from agreebound.core.thresholds import DriftThresholds

    DRIFT_TOLERANCE_DEFAULT = DriftThresholds().tolerance

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
                   f"(default {float(DRIFT_TOLERANCE_DEFAULT) * 100:g}); overrides --thresholds")
    thresholds_option(d)
    d.add_argument("--judge", help="a log holding several judges: the one to compare")
    d.add_argument("--json", action="store_true", help="print the result as JSON")
    d.set_defaults(func=drift)
    return d


def thresholds_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--thresholds", metavar="FILE", help="a thresholds file (JSON or TOML, as the panel and "
                        "calibrate commands take): its [drift] table's judge_shift_tolerance_permil is the tolerance "
                        "(permil of the headline's scale: 50 = 0.050 of a score, or 5 points of a win rate)")


#: A tolerance as a user types it: a decimal (0.05, .5, 5) or a ratio (1/80); no exponent (1e999999
#: would be a number of a million digits), a few digits at most.
_NUMBER = re.compile(r"\d{1,12}(\.\d{0,12})?|\.\d{1,12}|\d{1,12}/\d{1,12}")


def tolerance_arg(command: str, text: str | None) -> Fraction | None:
    """``--tolerance`` as given (points for a win rate: the caller scales it), exactly; a usage
    error (exit 3) when it is not a number from 0 to 100 (the tolerance's legal range
    (agreebound.core.thresholds.RANGES) on a score's scale)."""
    from agreebound.core.thresholds import DriftThresholds, PERMIL, RANGES

    if text is None:
        return None
    hi = Fraction(RANGES["judge_shift_tolerance_permil"].hi, PERMIL)
    where = f"agreebound {command}: --tolerance: expected a number of at least 0 and at most {hi}, got {printable(text, 40)}"
    if not _NUMBER.fullmatch(text.strip()):
        raise UsageError(where)
    try:
        value = Fraction(text.strip())
        DriftThresholds.from_tolerance(value)  # in the legal range (a win rate's points, scaled down, are too)
    except (ValueError, ZeroDivisionError):
        raise UsageError(where) from None
    return value


def thresholds_arg(path: str | None) -> "DriftThresholds | None":
    """``--thresholds FILE``'s drift table (the file read and checked as the panel command reads
    it: a bad value is an InputError naming the key and its line); None without the flag."""
    if path is None:
        return None
    from agreebound.app.recipes import read_file
    from agreebound.io.threshold_files import parse_thresholds

    return parse_thresholds(*read_file(path)).thresholds.drift


def drift_thresholds(tolerance: Fraction | None, from_file: "DriftThresholds | None",
                     win_rate_points: bool) -> "DriftThresholds":
    """The tolerance in force: ``--tolerance`` (points for a win rate when ``win_rate_points``), exactly,
    over the file's, over the default."""
    from agreebound.core.thresholds import DriftThresholds

    if tolerance is not None:
        return DriftThresholds.from_tolerance(tolerance / 100 if win_rate_points else tolerance)
    return from_file if from_file is not None else DriftThresholds()


def drift(args: argparse.Namespace) -> int:
    from agreebound.app.recipes import read_file
    from agreebound.io.drift_logs import anchor_items, check_same_kind, read_anchor_list, read_drift_run
    from agreebound.judge.drift import WIN_RATE, decide_drift, measure_drift

    tolerance, from_file = tolerance_arg("drift", args.tolerance), thresholds_arg(args.thresholds)
    before = read_drift_run(*read_file(args.before), judge=args.judge)
    after = read_drift_run(*read_file(args.after), judge=args.judge)
    check_same_kind(before, after)
    declared = None if args.anchors is None else anchor_items(read_anchor_list(*read_file(args.anchors)), before, after)
    thresholds = drift_thresholds(tolerance, from_file, before.scale == WIN_RATE)
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
