"""The command line's parser: every command, its options and its help (the formats from the reader
registry), each command bound to its function.
"""

from __future__ import annotations
import argparse
import re
import textwrap
from typing import NoReturn, Sequence, cast
from agreebound.version import __version__
from agreebound.app.access import SHARES
from agreebound.cli.commands import calibrate, example, inspect, panel, samples, schema, serve, validate
from agreebound.cli.common import MAX_SEED, UsageError
from agreebound.cli.store_commands import audit, claim, compare, delete, history, prune, share
from agreebound.cli.drift_command import thresholds_option


_RAW = argparse.RawDescriptionHelpFormatter  # keeps the examples' line breaks in --help
#: An option's value that argparse would take for an option: a dash, then no letter and no dash.
_DASH_VALUE = re.compile(r"-(?![A-Za-z-])")

EXIT_CODE_HELP = """exit codes:
  0  ENFORCE / PASS_CALIBRATION
  1  REPORT_ONLY / FAIL_CALIBRATION / INCOMPLETE (a judge not decided: no contract, or a partial audit;
     never a pass)
  2  REFUSE_SINGLE
  3  bad input or usage: one line on stderr naming the file, row, column and reason
  4  internal error: a bug in agreebound, never a verdict (rerun with AGREEBOUND_TRACE=1 for the trace)"""

PANEL_EXAMPLES = """examples:
  agreebound panel sample_data/detector_panel.csv
  agreebound panel annotations.jsonl --humans alice,bob --level ordinal
  agreebound panel sample_data/detector_panel.csv --dimension sexual --json
  agreebound panel ratings.csv --rates rates.csv --thresholds thresholds.toml --preset krippendorff-reliable
  agreebound panel sample_data/krippendorff_2011.csv --level interval --report k2011.html
  agreebound panel vision.csv --order "1st grade,2nd grade,3rd grade,4th Grade" --level ordinal

""" + EXIT_CODE_HELP
INSPECT_EXAMPLES = """examples:
  agreebound inspect ratings.csv
  agreebound inspect export.xlsx --mapping-out mapping.json
  agreebound panel export.xlsx --mapping mapping.json

""" + EXIT_CODE_HELP
HISTORY_EXAMPLES = """examples:
  agreebound panel ratings.csv --record --label "week 48"
  agreebound history
  agreebound history --name ratings.csv --json
  agreebound history --alarms --baseline 3f9a2c1b          (the runs of 3f9a2c1b's data after it, EWMA)
  agreebound history --alarms --baseline 3f9a --control cusum --false-alarm-rate 0.002 --json
  agreebound --help

control bands (--alarms): each gating number of each run recorded after the baseline run (alpha per
dimension and level, the spread, a judge's rates) is standardised by its own 95% interval's standard
error, z = (value - baseline) / se, and charted by EWMA (lambda 0.2, L 3: 0.27% of in-control runs
alarm by chance; the limits carry the baseline run's own error) or CUSUM (k 0.5, h 5: a false alarm
after 465 in-control runs on average). The baseline is the run you pin, never estimated from the
runs it judges: without --baseline no band is drawn.

exit codes:
  0  listed; with --alarms: the newest run listed is not in alarm (or no baseline is pinned)
  1  with --alarms: the newest run listed is in alarm on at least one gating number
  3  bad input or usage: an unknown run id, a baseline of another kind, a bad option
  4  internal error"""
COMPARE_EXAMPLES = """examples:
  agreebound compare 3f9a2c1b7d4e 8d01c2aa9f10
  agreebound compare 3f9a 8d01 --json
  agreebound compare 3f9a 8d01 --thresholds thresholds.toml   # two judge logs: [drift] judge_shift_tolerance_permil

exit codes:
  0  no verdict got worse
  1  a regression: a verdict got worse (by its exit code), a dimension decided before is missing,
     or a gate checked before is no longer checked (spread not measured, rate not evaluable)
  3  bad input: an unknown run, runs of different kinds, or a database that cannot be read
  4  internal error"""
CAL_EXAMPLES = """examples:
  agreebound calibrate sample_data/judge_failing.json
  agreebound calibrate sample_data/judge_illustrative.json --json --report judge.md
  agreebound calibrate contract.json --references references.csv --observations observations.csv
  agreebound calibrate gpt-4_pair.jsonl --references human_judgments.jsonl
  agreebound calibrate contract.json --references 'refs/*.parquet' --observations 'obs/*.parquet' --engine duckdb
  agreebound calibrate scores.csv                      (item,rater,role,score: judges and humans in one table)
  agreebound calibrate logs/eval.json --references human_labels.csv --level interval
  agreebound calibrate mt_bench_single.jsonl --references human_scores.csv --judge gpt-4

""" + EXIT_CODE_HELP
CAL_DESCRIPTION = """Audit an LLM judge against human labels.

A pairwise judge (it picks one of two candidates) is decided against its calibration contract:
a bundle JSON, the tabular trio, or a judge log with --references.

A graded judge (a score on a scale) or a pass/fail judge (a verdict) is audited as a rater beside
the humans: its log ({scores}) with the human labels via --references (or in the same table). It
passes when its alpha with the humans is not worse than theirs with each other by more than the
margin, and above the floor; --level sets the scores' level of measurement."""

def cal_description(scores: str) -> str:
    """CAL_DESCRIPTION with the graded logs the registry reads, each paragraph wrapped (the help keeps
    line breaks as written)."""
    return "\n\n".join(textwrap.fill(" ".join(p.split()), 98) for p in CAL_DESCRIPTION.format(scores=scores).split("\n\n"))


VALIDATE_EXAMPLES = """examples:
  agreebound validate
  agreebound validate --seed 7 --json

exit codes:
  0  every measure recovered its planted value, every bias flag and verdict as planted
  1  something did not hold: the table names the judge and the measure (MISS)
  3  bad usage (a seed out of range)
  4  internal error"""
#: validate's largest seed (numpy's generators take any non-negative integer; this keeps it a 64-bit one)
class _Parser(argparse.ArgumentParser):
    #: The top-level parser's subcommands, by name (build_parser).
    commands: dict[str, argparse.ArgumentParser]

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        return super().parse_known_args(None if args is None else self.dash_values(list(args)), namespace)

    def dash_values(self, args: list[str]) -> list[str]:
        """An option's value that starts with a dash (``--missing -99,999``, ``--missing -,?``,
        ``--order -2,-1,0``) joined to it as ``--missing=-99,999``: argparse reads ``-99,999`` as an
        unknown option, so the value was "expected one argument" though it was given. Only a dash
        followed by no letter (short options are letters) or a lone dash; never after ``--``.

        >>> p = _Parser(prog="x")
        >>> _ = p.add_argument("--missing"), p.add_argument("--json", action="store_true")
        >>> p.dash_values(["--missing", "-99,999", "--json", "--missing", "-", "--missing", "--json"])
        ['--missing=-99,999', '--json', '--missing=-', '--missing', '--json']
        """
        out: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            action = self._option_string_actions.get(a)
            if a == "--":
                return out + args[i:]
            if action is not None and action.nargs is None and i + 1 < len(args) and a.startswith("--") \
                    and _DASH_VALUE.match(args[i + 1]):
                out.append(f"{a}={args[i + 1]}")
                i += 2
                continue
            out.append(a)
            i += 1
        return out

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} ({self.short_usage()}; see {self.prog} --help)")

    def short_usage(self) -> str:
        """One short usage line: the positional arguments, options summarised."""
        positional = []
        for a in self._actions:
            if a.option_strings or a.dest == "help":
                continue
            if a.choices and not a.metavar:
                shown = "{" + ",".join(a.choices) + "}"
            else:  # a positional's metavar is one text (a tuple is an option's, for nargs=N)
                shown = cast(str, a.metavar or a.dest)
            if a.nargs in ("*", "?"):  # optional, and said so
                shown = f"[{shown} ...]" if a.nargs == "*" else f"[{shown}]"
            positional.append(shown)
        return f"usage: {self.prog} [options] {' '.join(positional)}".rstrip()


def build_parser() -> _Parser:
    parser = _Parser(
        prog="agreebound", formatter_class=_RAW,
        description="Is this verdict reliable enough to act on? Exact panel reliability and judge calibration.",
        epilog=EXIT_CODE_HELP)
    parser.add_argument("--version", action="version", version=f"agreebound {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    # Subcommands are added in the order `agreebound --help` lists them.
    commands = {"panel": _panel_parser(sub), "calibrate": _calibrate_parser(sub), "inspect": _inspect_parser(sub)}
    commands.update(_store_parsers(sub))
    commands.update(_plain_parsers(sub))
    from agreebound.cli.drift_command import drift_parser  # the drift command's options live beside it
    commands["drift"] = drift_parser(sub)
    parser.commands = commands
    return parser


def _panel_parser(sub: argparse._SubParsersAction[_Parser]) -> argparse.ArgumentParser:
    """`agreebound panel`: the ratings, how to read them, and what to measure."""
    from agreebound.panel.level_names import LEVELS
    from agreebound.app.recipes import ENGINES
    from agreebound.io.registry import RATINGS, format_list

    p = sub.add_parser("panel", help="alpha, detector spread and the enforcement verdict", formatter_class=_RAW,
                       epilog=PANEL_EXAMPLES, description="Decide whether a detector panel licenses enforcement.")
    p.add_argument("file", help="ratings: " + format_list(RATINGS) + "; "
                   "with --engine duckdb, long CSV/Parquet files or a quoted pattern ('ratings/*.parquet')")
    p.add_argument("more", nargs="*", default=[], metavar="FILE", help="more parts of the same long ratings (--engine duckdb)")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="numpy: in memory (files up to 200 MB, every layout); duckdb: long ratings (a row per "
                   "rating) out of core, any size, several files or a pattern; spark: the same on a Spark cluster "
                   "(--master). auto: duckdb for a pattern, several files or a long file over 200 MB, else numpy")
    p.add_argument("--master", default="local[2]", help="--engine spark: the cluster's master URL (default local[2])")
    _reading(p)
    p.add_argument("--dimension", help="only this dimension")
    p.add_argument("--level", choices=("auto", *LEVELS), default="auto",
                   help="level of measurement (default auto: nominal, the specification's level, except interval for "
                        "numbers with decimals or more than 20 distinct whole numbers; the suggested level and the "
                        "verdict at each level are printed beside it)")
    p.add_argument("--order", metavar="LABELS",
                   help="the categories' order, lowest first, comma-separated (\"1st grade,2nd grade,3rd grade\"), or a "
                   "JSON list for labels with commas ('[\"low, very\", \"low\"]'), or a JSON object of lists by "
                   "dimension; ordinal alpha then reads labels by rank (the default level becomes ordinal). A label "
                   "in the data but not in the order is an error; replaces a mapping's order")
    p.add_argument("--recode", metavar="FROM=TO",
                   help="rename or merge labels before reading them, without editing the file: \"First=1st grade,"
                   "1st=1st grade\" (or a JSON object); a label recoded to a number is that number. The report's "
                   "notes count the cells recoded; replaces a mapping's recode")
    p.add_argument("--interval", choices=("units", "pairs"), default="units",
                   help="alpha's 95%% interval, which strict mode, q and 'fragile' read: units (default), the "
                   "bootstrap over units, a 95%% interval; pairs: KALPHA's bootstrap over pairs, narrower than 95%% "
                   "when units have 3+ ratings")
    p.add_argument("--rates", help="detector rates CSV (detector,positives,total[,dimension])")
    p.add_argument("--positive", help="category counted as a detector's positive, as written in the file "
                   "(default: 1 on a 0/1 panel)")
    p.add_argument("--coefficients", action="store_true",
                   help="also report percent agreement, Cohen/Conger's kappa, Scott's pi/Fleiss' kappa, Gwet's AC1/AC2 "
                   "and Brennan-Prediger with 95%% intervals, pairwise kappas, per-category agreement and why they "
                   "differ from alpha (they do not decide: the verdict stays alpha's and the spread's)")
    p.add_argument("--study", action="store_true",
                   help="also report an annotation study: each rater's skill and agreement (Dawid-Skene) with 95%% "
                   "intervals, raters at chance or confused named, each unit's consensus label, whether the raters use "
                   "the categories at the same rates (Stuart-Maxwell, Bhapkar) and the relabel queue (it does not "
                   "decide)")
    p.add_argument("--relabel", metavar="PATH",
                   help="write the relabel queue (every rated unit, its consensus label and probability, ranked) to "
                   "PATH: CSV, or with --relabel-format a Label Studio task import (and its labelling config beside "
                   "it, PATH.xml) or Argilla records; implies --study")
    p.add_argument("--relabel-format", choices=("csv", "label-studio", "argilla"), default="csv",
                   help="the relabel queue's file format (default csv)")
    p.add_argument("--relabel-rule", choices=("uncertain-first", "gate-first", "judge-alone"), default="uncertain-first",
                   help="the relabel queue's order: uncertain-first (default: the least certain consensus first), "
                   "gate-first (the units that would move alpha furthest toward the floor first) or judge-alone (the "
                   "units where a detector alone disagrees with human raters who agree first; needs human raters)")
    _common(p)
    p.set_defaults(func=panel)
    return p


def _calibrate_parser(sub: argparse._SubParsersAction[_Parser]) -> argparse.ArgumentParser:
    """`agreebound calibrate`: a judge's bundle, trio or log, and its contract."""
    from agreebound.app.recipes import ENGINES
    from agreebound.io.registry import HUMAN_VOTES, JUDGE_BUNDLE, JUDGE_LOG, JUDGE_TABLES, SCORES, format_list

    c = sub.add_parser("calibrate", help="audit an LLM judge (pairwise, graded or pass/fail) against human labels",
                       formatter_class=_RAW, epilog=CAL_EXAMPLES, description=cal_description(format_list(SCORES)))
    c.add_argument("bundle", help=f"{format_list(JUDGE_BUNDLE)}; the contract JSON of the {format_list(JUDGE_TABLES)}; "
                   f"a pairwise judge log ({format_list(JUDGE_LOG)}); or a graded or pass/fail judge's log "
                   f"({format_list(SCORES)})")
    c.add_argument("--references", help="references CSV (tabular trio), human judgments for a pairwise judge log "
                   f"({format_list(HUMAN_VOTES)}), or "
                   "human labels (scores or verdicts) for a graded or pass/fail judge's log")
    c.add_argument("--observations", help="observations CSV (tabular trio); with --engine duckdb, CSV/Parquet files "
                   "or a quoted pattern ('obs/*.parquet')")
    c.add_argument("--engine", choices=ENGINES, default="auto",
                   help="the tabular trio: numpy (in memory, up to 200 MB), duckdb (out of core) or spark (a cluster, "
                   "or local[N]); auto picks duckdb for a pattern, Parquet, or a file over 200 MB")
    c.add_argument("--master", default="local[2]", help="--engine spark: the cluster's master URL (default local[2])")
    c.add_argument("--contract", help="a judge log's contract (the trio's contract JSON); without one the log is "
                   "measured against illustrative limits (the seed's example), not a contract, and not decided "
                   "(INCOMPLETE, exit 1)")
    c.add_argument("--judge", help="a judge log holding several judges: the one to audit")
    c.add_argument("--level", choices=("nominal", "ordinal", "interval"),
                   help="a graded or pass/fail judge only: the scores' level of measurement for alpha and weighted "
                   "kappa (default: ordinal for a graded scale, nominal for pass/fail; the report says who chose it)")
    c.add_argument("--mapping", help="a judge log of another shape: a judge-log mapping, which of its fields is which "
                   "observation field "
                   '(JSON or TOML: {"judge_log": {"fields": {...}, "values": {...}}}; see docs/formats.md)')
    c.add_argument("--ranking", action="store_true",
                   help="a pairwise judge: rank the candidates' models from its verdicts in the report (Bradley-Terry "
                   "ratings, bootstrap 95%% intervals from 1,000 draws with a fixed seed, tie groups; the ratings "
                   "corrected by the human labels when --references gives some); off by default: the bootstrap "
                   "takes about a second on 20,000 judgments")
    c.add_argument("--beats", metavar="MODEL:BASELINE:MARGIN",
                   help="a pairwise judge: the ranking gate 'MODEL beats BASELINE by at least MARGIN' (rating points "
                   "on the Elo scale, 0 to 1000; or a win probability with %%, 50%% to 99.9%%); implies --ranking; "
                   "write a ':' inside a model's name as '\\:'. Reported as passes, fails or fragile; "
                   "information only: it never changes the judge's decision or the exit code")
    c.add_argument("--recalibrate", action="store_true",
                   help="a graded judge with human scores: map its scores onto the humans' scale (an isotonic map "
                   "to each item's humans' mean, cross-fitted over 5 folds so the error is measured out of sample), "
                   "report the error before and after and audit the mapped scores as the raw ones; beside the "
                   "decision, never part of it")
    c.add_argument("--map-out", metavar="PATH",
                   help="with --recalibrate: write each judge's map (breakpoints: score -> mapped value, and how to "
                   "apply it) to PATH (.json), for use in a pipeline")
    _common(c)
    c.set_defaults(func=calibrate)
    return c


def _inspect_parser(sub: argparse._SubParsersAction[_Parser]) -> argparse.ArgumentParser:
    """`agreebound inspect`: preview how a rating file is read."""
    i = sub.add_parser("inspect", help="how a rating file will be read: layout, roles, first rows, categories",
                       formatter_class=_RAW, epilog=INSPECT_EXAMPLES,
                       description="Preview how a rating file is read, and write the mapping to reuse with --mapping. "
                                   "Exit 0: it reads; 3: it cannot be read this way (the preview says why).")
    i.add_argument("file", help="ratings, in any format panel reads")
    i.add_argument("--mapping", help="a mapping file (JSON or TOML) to preview instead of the suggestion")
    i.add_argument("--mapping-out", metavar="PATH", help="write the mapping (JSON) to reuse with panel --mapping")
    i.add_argument("--json", action="store_true", help="print the preview as JSON")
    i.set_defaults(func=inspect)
    return i


def _store_parsers(sub: argparse._SubParsersAction[_Parser]) -> dict[str, argparse.ArgumentParser]:
    """The commands over the history database: history, compare and delete."""
    h = sub.add_parser("history", help="runs recorded with --record or by the dashboard, newest first",
                       formatter_class=_RAW, epilog=HISTORY_EXAMPLES)
    h.add_argument("--name", help="only runs of this data (file name as recorded)")
    h.add_argument("--kind", choices=("panel", "judge"))
    h.add_argument("--verdict", help="only runs with this verdict (ENFORCE, REPORT_ONLY, FAIL_CALIBRATION, ...)")
    h.add_argument("--since", help="only runs recorded on or after this UTC date or time (2026-11-01)")
    h.add_argument("--until", help="only runs recorded on or before this UTC date or time")
    h.add_argument("--limit", type=int, default=200, help="at most this many runs (1 to 1,000,000; default 200)")
    h.add_argument("--json", action="store_true", help="print the runs as JSON")
    h.add_argument("--alarms", action="store_true",
                   help="chart the runs of one data set against a pinned baseline run and say which runs alarm on "
                        "which gate; exit 1 when the newest run is in alarm")
    h.add_argument("--baseline", metavar="RUN_ID",
                   help="with --alarms: the run every later run is charted against (its data and kind are charted "
                        "unless --name/--kind say otherwise)")
    h.add_argument("--control", choices=("ewma", "cusum"), help="with --alarms: the chart (default ewma)")
    h.add_argument("--false-alarm-rate", type=float, metavar="RATE",
                   help="with --alarms: derive the chart's width from a false-alarm rate (EWMA: the share of "
                        "in-control runs in alarm; CUSUM: one false alarm per 1/RATE runs on average)")
    _db(h)
    h.set_defaults(func=history)

    cm = sub.add_parser("compare", help="two runs side by side; exit 1 when a verdict got worse or the judge changed",
                        formatter_class=_RAW, epilog=COMPARE_EXAMPLES)
    cm.add_argument("run_a", metavar="RUN_A", help="the run before (an id, or a unique prefix of 4+ digits)")
    cm.add_argument("run_b", metavar="RUN_B", help="the run after")
    cm.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cm.add_argument("--tolerance", metavar="X", help="two judge runs: how far the judge may shift on the anchor items "
                    "(the same candidate text in both runs) before it counts as changed: a score, or points of win "
                    "rate (the drift command's default); overrides --thresholds")
    thresholds_option(cm)
    _db(cm)
    cm.set_defaults(func=compare)

    d = sub.add_parser("delete", help="delete a run, and its stored inputs when no other run uses them")
    d.add_argument("run", metavar="RUN")
    _db(d)
    d.set_defaults(func=delete)

    sh = sub.add_parser("share", help="who sees a run: private (its owner), team, or all (everyone signed in)")
    sh.add_argument("run", metavar="RUN")
    sh.add_argument("to", choices=SHARES, metavar="{private,team,all}")
    _db(sh)
    sh.set_defaults(func=share)

    pr = sub.add_parser("prune", help="retention: delete the runs older than N days (tombstones stay in the audit "
                        "trail)")
    pr.add_argument("--days", type=int, help="age in days (default: $AGREEBOUND_RETENTION_DAYS)")
    pr.add_argument("--dry-run", action="store_true", help="list the runs that would be deleted; delete nothing")
    _db(pr)
    pr.set_defaults(func=prune)

    au = sub.add_parser("audit", help="the audit trail: who recorded, opened, shared and deleted which run, when")
    au.add_argument("--run", help="only this run's events (its whole id)")
    au.add_argument("--limit", type=int, default=200, help="the newest N events (default 200)")
    au.add_argument("--json", action="store_true")
    _db(au)
    au.set_defaults(func=audit)

    cl = sub.add_parser("claim", help="give the runs an earlier version stored under an address to an account that "
                        "signed in (the operator's decision; a sign-in claims only its exact address)")
    cl.add_argument("--from", dest="source", required=True, metavar="NAME",
                    help="the owner name the runs are stored under (as `agreebound history` lists it, e.g. "
                         "alice@red.example)")
    cl.add_argument("--to", required=True, metavar="ACCOUNT",
                    help="the account's key (<issuer>|<subject>), or the address it is shown as, exactly")
    _db(cl)
    cl.set_defaults(func=claim)
    return {"history": h, "compare": cm, "delete": d, "share": sh, "prune": pr, "audit": au, "claim": cl}


def _plain_parsers(sub: argparse._SubParsersAction[_Parser]) -> dict[str, argparse.ArgumentParser]:
    """The commands without data: example, validate and serve."""
    e = sub.add_parser("example", help="the seed's eight illustrative lines")
    e.set_defaults(func=example)

    v = sub.add_parser("validate", help="check the instrument: judges with planted defects, each audited; exit 0 "
                       "when every measure recovers its plant", formatter_class=_RAW, epilog=VALIDATE_EXAMPLES,
                       description="Audit six synthetic judges with planted defects (clean; first-slot preference;\n"
                       "length preference; self-preference; unbiased but 30% noisy; unstable repetitions) through\n"
                       "the pipeline, and check that every bias measure's 95% interval covers its planted value,\n"
                       "that the bias flags are raised where a bias was planted and nowhere else, and that each\n"
                       "verdict reads as planted.")
    v.add_argument("--seed", type=int, default=0, help=f"the synthetic data's seed (0 to {MAX_SEED}; default 0)")
    v.add_argument("--json", action="store_true", help="print the rows and checks as JSON")
    v.set_defaults(func=validate)

    s = sub.add_parser("serve", help="start the dashboard (on this machine only, unless --host says otherwise)",
                       description="Start the dashboard. Without sign-in it is single-user and binds to 127.0.0.1; a "
                       "team's server binds to 0.0.0.0 with sign-in (--auth; see the README, Deploy for a team).")
    s.add_argument("--host", help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
                   "interface, which without sign-in is warned about)")
    s.add_argument("--port", type=int, default=8501)
    s.add_argument("--auth", action="store_true", help="require sign-in (fails unless a provider is configured: "
                   "AGREEBOUND_OIDC_* or an [auth] section in .streamlit/secrets.toml)")
    s.add_argument("--check", action="store_true", help="print what is configured and exit: 0 safe, 1 unsafe (a "
                   "public address without sign-in, a short cookie secret), 3 not startable")
    s.set_defaults(func=serve)

    sa = sub.add_parser("samples", help="copy the bundled sample files into a folder (default ./sample_data), so "
                        "the examples run as written")
    sa.add_argument("folder", nargs="?", default="sample_data", help="where to write them (made if missing; files "
                    "already there are left as they are)")
    sa.set_defaults(func=samples)
    sc = sub.add_parser("schema", help="print the JSON report's schema (JSON Schema 2020-12, with a versioned $id)")
    sc.set_defaults(func=schema)
    return {"example": e, "validate": v, "serve": s, "samples": sa, "schema": sc}


def _reading(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mapping", help="which column is which: a mapping file (JSON or TOML; see agreebound inspect)")
    p.add_argument("--humans", help="raters who are people, comma-separated (the rest are independent detectors)")
    p.add_argument("--detectors", help="raters who are independent detectors, comma-separated (the rest are people)")
    p.add_argument("--sheet", help="Excel: the sheet to read (default: the first)")
    p.add_argument("--missing", help="extra spellings of a missing value, comma-separated (e.g. -99,999)")


def _common(p: argparse.ArgumentParser) -> None:
    from agreebound.core.thresholds import PRESETS

    p.add_argument("--thresholds", help="thresholds file (JSON or TOML)")
    p.add_argument("--preset", help="a preset: built-in (" + ", ".join(PRESETS) + ") or from --thresholds")
    p.add_argument("--strict", action="store_true", help="strict mode: every gate decides on its 95%% interval's "
                   "bound too, so a fragile verdict (its interval includes the threshold) fails; for CI jobs that "
                   "must not act on a verdict another sample could reverse")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument("--report", metavar="PATH", help="write a report: .json, .md, self-contained .html, or .xml (JUnit: "
                   "a test case per gate, for CI); a folder "
                   "ending in / gets the HTML report under a generated name (data-domain-UTC time.html)")
    p.add_argument("--record", action="store_true", help="record the run (inputs, thresholds, every value and "
                   "verdict) in the history database and print its id")
    p.add_argument("--label", help="a label for the recorded run (with --record)")
    p.add_argument("--share", choices=SHARES, help="who sees the recorded run on a shared dashboard (with --record): "
                   "private (default: you and admins), team (your team, $AGREEBOUND_TEAM), all (everyone signed in)")
    _db(p)


def _db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="URL", help="the history database: sqlite:///path/runs.db, a file path, or "
                   "postgresql://user@host/db (default: $AGREEBOUND_DB, else runs.db in ~/.local/share/agreebound)")


