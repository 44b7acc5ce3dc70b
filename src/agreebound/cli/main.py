"""The agreebound command line: the dashboard's verdicts for CI jobs and for files people send.

Exit codes are the contract a CI job gates on, so nothing else may ever produce a verdict's code:

  0  ENFORCE / PASS_CALIBRATION
  1  REPORT_ONLY / FAIL_CALIBRATION / INCOMPLETE (a judge not decided: no contract, or a partial audit)
  2  REFUSE_SINGLE
  3  bad input or bad usage (one line on stderr: file, row, column, reason; or the usage)
  4  internal error (one line on stderr: a bug in agreebound, never a verdict)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import traceback
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, NoReturn, Sequence

from agreebound.version import __version__
from agreebound.app.access import SHARE_WORDS, SHARES
from agreebound.core.errors import InputError, missing_extra
from agreebound.core.escape import printable

INPUT_ERROR = 3
INTERNAL_ERROR = 4
INTERRUPTED = 130
REPORT_SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm", ".xml")
_RAW = argparse.RawDescriptionHelpFormatter  # keeps the examples' line breaks in --help

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
  agreebound --help

""" + EXIT_CODE_HELP
COMPARE_EXAMPLES = """examples:
  agreebound compare 3f9a2c1b7d4e 8d01c2aa9f10
  agreebound compare 3f9a 8d01 --json

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
the humans: its log (inspect_ai, promptfoo, MT-Bench single-answer grading, judgekit/judgecal
JSONL, or a scores table item,rater,role,score) with the human labels via --references (or in the
same table). It passes when its alpha with the humans is not worse than theirs with each other by
more than the margin, and above the floor; --level sets the scores' level of measurement."""

VALIDATE_EXAMPLES = """examples:
  agreebound validate
  agreebound validate --seed 7 --json

exit codes:
  0  every measure recovered its planted value, every bias flag and verdict as planted
  1  something did not hold: the table names the judge and the measure (MISS)
  3  bad usage (a seed out of range)
  4  internal error"""
#: validate's largest seed (numpy's generators take any non-negative integer; this keeps it a 64-bit one)
MAX_SEED = 2**63 - 1


class UsageError(Exception):
    """A command line argparse would reject: exit 3 (argparse's own 2 is REFUSE_SINGLE here)."""


class _Parser(argparse.ArgumentParser):
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
            else:
                shown = a.metavar or a.dest
            if a.nargs in ("*", "?"):  # optional, and said so
                shown = f"[{shown} ...]" if a.nargs == "*" else f"[{shown}]"
            positional.append(shown)
        return f"usage: {self.prog} [options] {' '.join(positional)}".rstrip()


# --- reading ----------------------------------------------------------------------------------


def _read(path: str) -> tuple[str, bytes]:
    from agreebound.app.pipeline import read_file

    return read_file(path)


def _check_report_path(path: str, inputs: Sequence[str]) -> None:
    """Refuse, before any work, a report that cannot be written or would destroy an input."""
    p = Path(path)
    if p.is_dir():
        raise InputError(path, None, None, "--report names a folder; give a file name inside it, or end the folder "
                         "with / for a generated name")
    if p.exists():
        for given in inputs:
            try:
                same = os.path.samefile(p, given)
            except OSError:
                same = False
            if same:
                raise InputError(path, None, None, "--report names one of the inputs; writing it would destroy "
                                 "the input. Choose another file name")
    if p.suffix.lower() not in REPORT_SUFFIXES:
        raise InputError(path, None, None, "--report needs a .json, .md, .html or .xml (JUnit) file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(path, None, None, f"--report: the folder {printable(str(parent))} does not exist")


def _report_target(path: str, data: str, domain: str) -> str:
    """``--report DIR/`` (a folder written with its trailing slash): the HTML report in it, named
    ``{data's stem}-{domain}-{UTC time}.html`` (agreebound.render.names). Any other path is the
    report's file name as given (a folder without the slash is still refused)."""
    if not path.endswith(("/", os.sep)):
        return path
    from agreebound.render.names import report_filename

    return str(Path(path) / report_filename(Path(data).stem, domain, "html"))


def _write_report(path: str, text: str) -> None:
    """Write next to the target, then rename: a failed write never leaves half a report."""
    p = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".agreebound-", suffix=p.suffix, dir=p.parent if str(p.parent) else ".")
        try:
            # a lone surrogate (a name that was not UTF-8) as an escape, never a crash: the JSON
            # report escapes them itself (\\xNN), Markdown and HTML through escape.printable
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would have made it, not mkstemp's 0600
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        raise InputError(path, None, None, f"cannot write the report ({e.strerror})") from None


# --- commands ---------------------------------------------------------------------------------


def _render(path: str, result: Any) -> str:
    from agreebound.render.report import to_json, to_markdown

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return to_json(result.report)
    if suffix in (".md", ".markdown"):
        return to_markdown(result.report)
    if suffix == ".xml":
        return result.junit()
    return result.html()


def _inputs(args: argparse.Namespace, *names: str) -> list[str]:
    return [getattr(args, n) for n in names if getattr(args, n, None)]


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _names(text: str | None) -> tuple[str, ...] | None:
    return tuple(_split(text)) if text else None


def _source(path: str | None) -> Any:
    from agreebound.app.pipeline import Source

    return Source.at(path) if path else None


def _panel_recipe(args: argparse.Namespace) -> Any:
    """The panel command's flags as a pipeline recipe."""
    from agreebound.app.pipeline import UNSET, PanelRecipe, Source

    return PanelRecipe(tuple(Source.at(f) for f in [args.file, *args.more]), _source(args.mapping), args.level,
                       humans=_names(getattr(args, "humans", None)), detectors=_names(getattr(args, "detectors", None)),
                       dimension=args.dimension, engine=args.engine, master=args.master, interval=args.interval,
                       positive=UNSET if args.positive is None else args.positive, rates=_source(args.rates),
                       sheet=args.sheet, missing=_names(args.missing), coefficients=args.coefficients,
                       thresholds=_source(args.thresholds), preset=args.preset, strict=args.strict)


def _checks(args: argparse.Namespace, domain: str) -> Any:
    """What the CLI checks once the pipeline chose an out-of-core engine: the flags it cannot serve
    yet (before any file is read), then the --report path against the files it resolved."""

    def check(engine: str, files: Any) -> None:
        if files is None:
            how = f"with --engine {engine}" if args.engine != "auto" else (
                "out of core (this file is read with DuckDB: a pattern, several files, or a long file over 200 MB)"
                if domain == "panel" else
                "out of core (these files are read with DuckDB: a pattern, Parquet, or over 200 MB)")
            flags = ("rates", "sheet", "record", "coefficients") if domain == "panel" else ("record",)
            for flag in flags:
                if getattr(args, flag, None):
                    raise UsageError(f"agreebound {args.command}: --{flag} is not available {how} yet")
        elif args.report:
            if domain == "panel":
                args.report_given, args.report = args.report, _report_target(args.report, files[0], "panel")
            _check_report_path(args.report, files)

    return check


def _run(args: argparse.Namespace, recipe: Any) -> Any:
    from agreebound.app.pipeline import RecipeError, run

    try:
        return run(recipe, _checks(args, "panel" if args.command == "panel" else "judge"))
    except RecipeError as e:
        raise UsageError(f"agreebound {args.command}: {e}") from None


def _panel(args: argparse.Namespace) -> int:
    _check_recording(args)
    from agreebound.app.pipeline import OUT_OF_CORE, panel_engine

    recipe = _panel_recipe(args)
    in_memory = panel_engine(recipe) not in OUT_OF_CORE
    if in_memory and args.more:
        raise UsageError("agreebound panel: several files are read with --engine duckdb (long ratings)")
    if in_memory and args.report:
        args.report_given, args.report = args.report, _report_target(args.report, args.file, "panel")
        _check_report_path(args.report, _inputs(args, "file", "rates", "thresholds", "mapping"))
    result = _run(args, recipe)
    if args.record:
        args.run = ("panel", list(result.inputs), result.recipe, result.thresholds)
    return _emit(args, result, _print_panel)


def _print_panel(report: dict[str, Any]) -> None:
    from agreebound.panel.levels import level_phrase, rater_noun
    from agreebound.render.report import plan_text, rows_read_text

    read = report.get("read")
    if read:
        m = read["mapping"]
        roles = {"wide": f"one row per unit; units {', '.join(m['unit']) or 'are the rows'}",
                 "long": f"one row per rating; unit {' + '.join(m['unit'])}, rater {m['rater']}, value {m['value']}"
                         + (f", dimension {m['dimension']}" if m["dimension"] else ""),
                 "transposed": f"one row per rater ({m['rater'] or 'rows'}), one column per unit"}[m["layout"]]
        rows = f", {rows_read_text(read['rows'])}" if read.get("rows") else ""
        print(f"read: {read['format']}{rows}, {roles}")
    notices = dict.fromkeys(n for d in report["panel"]["dimensions"] for n in d.get("notices", []))
    for n in notices:
        print(f"note: {printable(n)}")
    for d in report["panel"]["dimensions"]:
        a = d["alpha"]
        alpha = f"{a['exact']} ({a['permil']} permil)" if a["defined"] else "undefined"
        spread = d["spread"]["exact"] if d["spread"]["state"] == "bounded" else d["spread"]["state"]
        lv = d["level"]
        print(f"{printable(d['dimension'], 80)}: {d['verdict']} {level_phrase(lv['in_force'], lv['chosen_by'])}"
              f"{'  (depends on the level)' if lv['depends_on_level'] else ''}  alpha={alpha}  spread={spread}  "
              f"{rater_noun(d['detectors'] + d['humans'])}s={d['ndet']}")
        for r in d["reasons"]:
            print(f"  - {printable(r['message'])}")
        if a["interval"]["note"]:  # how alpha's interval was drawn, or why it is not the units bootstrap
            print(f"  interval: {printable(a['interval']['note'])}")
        if plan := plan_text(a.get("plan"), "alpha"):
            print(f"  alpha: {plan}")
        if d["seed_disagrees"]:
            print(f"  - the specification's integer formula ({printable(d['seed_path'])}) would decide "
                  f"{d['seed_verdict']}")
        if lv["note"]:
            print(f"  - depends on the level: {printable(lv['note'])}")
        others = ", ".join(f"{k} {'undefined' if v is None else v}" for k, v in lv["alpha_at_levels"].items() if k != a["level"])
        print(f"  level {a['level']}: {printable(lv['chosen_reason'])}" + (f"; alpha at other levels: {others}" if others else ""))
        if lv["suggested"] != a["level"]:
            print(f"  suggested level {lv['suggested']}: {printable(lv['reason'])} (--level {lv['suggested']})")
        if d["spread"]["state"] == "not measured" and d.get("positive_suggestion") is not None:
            print(f"  spread not checked: no detector rates; try --positive {printable(d['positive_suggestion'], 40)}")
        if d["kind"] == "label":
            cats = d["categories"]
            shown = ", ".join(f"{printable(c['category'], 40)} ({c['count']})" for c in cats["listed"])
            more = f", and {cats['total'] - len(cats['listed'])} more" if cats["total"] > len(cats["listed"]) else ""
            print(f"  categories ({cats['total']}): {shown}{more}")
            for f in cats.get("flags", []):
                print(f"  check: {printable(f)}")
        if d.get("coefficients"):
            _print_coefficients(d["coefficients"])
    print(f"overall: {report['panel']['verdict']}")


def _print_coefficients(section: dict[str, Any]) -> None:
    from agreebound.render.report import coefficient_rows

    print("  other coefficients (beside alpha; they do not decide):")
    rows = [["coefficient", "value", "95% interval", "agreement", "chance", "exact"]] + \
        [[r[0], r[1], r[3], r[4], r[5], r[2]] for r in coefficient_rows(section)]
    widths = [max(len(printable(r[i], 60)) for r in rows) for i in range(5)]
    for r in rows:
        print("    " + "  ".join(printable(c, 60).ljust(w) for c, w in zip(r, widths)) + "  " + printable(r[5], 80))
    for p in section["pairs"][:45]:
        kappa = "undefined" if p["cohen_kappa"] is None else f"{float(Fraction(p['cohen_kappa'])):.3f}"
        print(f"    pair {printable(p['a'], 40)} / {printable(p['b'], 40)}: Cohen's kappa {kappa} on "
              f"{p['shared_units']} units both rated")
    for t in section["explanation"]:
        print(f"  why: {printable(t)}")


def _inspect(args: argparse.Namespace) -> int:
    """The preview: how the file will be read, its first rows, its categories; and the mapping."""
    from agreebound.io.preview import preview

    name, data = _read(args.file)
    if not args.mapping:
        from agreebound.io.formats import is_judge_log, is_scored_log

        if is_scored_log(name, data) and not is_judge_log(name, data):
            return _inspect_scored(args, name, data)
    mapping = None
    if args.mapping:
        from agreebound.io.formats import parse_mapping

        mname, mdata = _read(args.mapping)
        mapping = parse_mapping(mname, mdata)
    pv = preview(name, data, mapping)
    if args.mapping_out:
        _check_report_path_any(args.mapping_out, [args.file] + ([args.mapping] if args.mapping else []))
        _write_report(args.mapping_out, pv.mapping.to_json())
    if args.json:
        import json

        sys.stdout.write(json.dumps(pv.to_dict(), indent=2, sort_keys=True, ensure_ascii=True) + "\n")
    else:
        sys.stdout.write(pv.to_text())
    return 3 if pv.error else 0  # shown either way; 3: the file cannot be read through this mapping


def _inspect_scored(args: argparse.Namespace, name: str, data: bytes) -> int:
    """The preview of a graded or pass/fail judge's log: how it is read (its shape, what an item is,
    how scores were written, what was left out), the judge's identity, and its first scores."""
    import json

    from agreebound.io.formats import read_scored

    log = read_scored(name, data)
    rows = log.scores.head(8)
    columns = ["item", "rater", "role", "score", "model", "length", "confidence"]
    if args.json:
        out = {"file": log.file, "shape": log.shape, "notes": list(log.notes), "identity": log.identity,
               "judges": list(log.judges), "scale": None if log.scale is None else list(log.scale),
               "rows": json.loads(rows[columns].to_json(orient="records"))}
        sys.stdout.write(json.dumps(out, indent=2, sort_keys=True, ensure_ascii=True) + "\n")
        return 0
    print(f"file: {printable(log.file)} ({printable(log.shape)}): a graded or pass/fail judge's log")
    for n in log.notes:
        print(f"  {printable(n)}")
    print("identity: " + "; ".join(f"{printable(k)} {printable(v, 80)}" for k, v in sorted(log.identity.items())))
    print(f"judges: {', '.join(printable(j, 60) for j in log.judges)}")
    print("first scores:")
    print("  " + "  ".join(columns))
    for r in rows[columns].itertuples(index=False):
        print("  " + "  ".join(printable("" if isinstance(v, float) and v != v else v, 40) for v in r))
    print(f"audit it: agreebound calibrate {printable(args.file)} --references HUMAN_LABELS")
    return 0


def _check_report_path_any(path: str, inputs: Sequence[str]) -> None:
    if Path(path).suffix.lower() not in (".json", ".toml"):
        raise InputError(path, None, None, "--mapping-out needs a .json file name")
    _check_report_path(str(Path(path).with_suffix(".json")), inputs)


def _emit(args: argparse.Namespace, result: Any, print_text: Any) -> int:
    """Write --report, print JSON or text, and return the verdict's exit code."""
    from agreebound.render.report import EXIT_CODES, to_json, verdict_of

    report = result.report
    if args.report:
        _write_report(args.report, _render(args.report, result))
        if args.report != getattr(args, "report_given", args.report):  # a generated name: say it
            print(f"agreebound: wrote {printable(args.report)}", file=sys.stderr)
    code = EXIT_CODES[verdict_of(report)]
    recorded = _record(args, report) if getattr(args, "record", False) else None

    def body() -> None:
        if args.json:
            sys.stdout.write(to_json(report, ascii_only=True))
        else:
            print_text(report)
        if recorded:  # the id last, on stdout for text (scripts take the last line), stderr beside JSON
            print(recorded, file=sys.stderr if args.json else sys.stdout)

    _printing(body)  # a reader that went away (| head): the verdict stands; stop writing quietly
    return code


def _check_recording(args: argparse.Namespace) -> None:
    """--label before any work: it needs --record, and must be storable (UTF-8, no NUL, at most
    MAX_NAME_CHARS characters), so a run is never measured only to be refused at the end."""
    label = getattr(args, "label", None)
    if getattr(args, "share", None) is not None and not args.record:
        raise UsageError(f"agreebound {args.command}: --share says who sees a recorded run; add --record")
    if label is not None and not args.record:
        raise UsageError(f"agreebound {args.command}: --label names a recorded run; add --record")
    if label:
        from agreebound.app.store import label_problem

        why = label_problem(label)
        if why:
            raise UsageError(f"agreebound {args.command}: --label {why}; nothing was measured or recorded")


def _record(args: argparse.Namespace, report: dict[str, Any]) -> str:
    """Record the run (--record): before the verdict is printed, so a failed write (a full disk,
    a foreign database) is an error with exit 3, never a verdict that was silently not recorded."""
    from agreebound.app.store import Store

    kind, inputs, recipe, t = args.run
    with _open_store(args, "record") as store:
        quota = _access_settings().quota_bytes
        run = store.record(kind, inputs, report, recipe, t.to_dict(), t.source, label=args.label, origin="cli",
                           share=args.share or "private", quota_bytes=quota)
        shared = "" if run.share == "private" else f", shared with {SHARE_WORDS[run.share]}"
        return f"run {run.id} recorded in {store.where} as {run.owner_name}'s{shared}"


@contextmanager
def _open_store(args: argparse.Namespace, purpose: str) -> Iterator[Any]:
    """The history database as the terminal's user sees it (access.terminal_viewer: $AGREEBOUND_USER,
    default "local"): every run listed, runs recorded as theirs, prefixes among their own runs."""
    from agreebound.app.access import terminal_viewer
    from agreebound.app.store import Store

    with Store.open(args.db, purpose=purpose) as store:
        yield store.as_viewer(terminal_viewer())


def _access_settings() -> Any:
    from agreebound.app.access import SettingError, settings

    try:
        return settings()
    except SettingError as e:
        raise UsageError(f"agreebound: {e}") from None


class OutputError(Exception):
    """Standard output could not be written (a full disk, a closed terminal): not a verdict, and
    not a bug; exit 4 with the reason."""


def _calibrate(args: argparse.Namespace) -> int:
    _check_recording(args)
    from agreebound.app.pipeline import JudgeRecipe, Source

    if args.report:
        args.report_given, args.report = args.report, _report_target(args.report, args.bundle, "judge")
        _check_report_path(args.report, _inputs(args, "bundle", "references", "observations", "thresholds",
                                                "contract", "mapping"))
    recipe = JudgeRecipe(Source.at(args.bundle), references=_source(args.references),
                         observations=_source(args.observations), contract=_source(args.contract),
                         mapping=_source(args.mapping), judge=args.judge, engine=args.engine, master=args.master,
                         thresholds=_source(args.thresholds), preset=args.preset, level=args.level,
                         strict=args.strict)
    result = _run(args, recipe)
    if args.level and result.kind != "scored":
        raise UsageError("agreebound calibrate: --level is for a graded or pass/fail judge's log (scores on a scale "
                         "or verdicts, with human labels); a pairwise judge's verdicts have no level of measurement")
    if args.record:
        args.run = ("judge", list(result.inputs), result.recipe, result.thresholds)
    return _emit(args, result, _print_scored if result.kind == "scored" else _print_calibration)


def _print_scored(report: dict[str, Any]) -> None:
    """A graded or pass/fail judge: the decision and for whom, what was read, each judge's gates and
    measures, the panel of judges."""
    from agreebound.render.scored import decided_for_words, level_words, panel_alpha, panel_rows

    s = report["scored"]
    print(f"decision: {s['decision']} for {printable(decided_for_words(s), 200)}")
    print(f"judge: {s['kind_words']}; level {level_words(s)}" + ("" if s["level"]["chosen_by"] == "user" else
                                                                 " (--level to choose another)"))
    print(f"read: {printable(s['shape'], 80)} {printable(s['file'], 120)}, {s['items']:,} items; judges: "
          f"{', '.join(printable(j, 60) for j in s['judges'])}; humans: "
          f"{', '.join(printable(h, 60) for h in s['humans']) or 'none'}")
    if s["identity"]:
        print("identity: " + "; ".join(f"{printable(k, 40)} {printable(v, 200)}" for k, v in s["identity"].items()))
    for n in s["notes"]:
        print(f"note: {printable(n, 600)}")
    for a in s["audits"]:
        _print_scored_judge(a)
    if s["panel"]:
        p = s["panel"]
        print(f"panel of judges: alpha among the judges {panel_alpha(p)}")
        for j, v in panel_rows(p):
            print(f"  without {printable(j, 60)}: {v}")
        print(f"  drop: {printable(p['drop'], 60) if p['drop'] else 'none'}: {p['why']}")
    print(f"thresholds ({printable(s['threshold_source'], 120)}): "
          + ", ".join(f"{k} {v}" for k, v in s["thresholds"].items()))
    print(f"overall: {s['decision']}")


def _print_scored_judge(a: dict[str, Any]) -> None:
    """One judge of a scored report: its gates with their plans, alphas, measures and confidence."""
    from agreebound.render.scored import (alpha_rows, confidence_lines, gate_interval, gate_notes, gate_result,
                                          gate_threshold, gate_value, measure_rows, pair_rows)

    print(f"judge {printable(a['judge'], 80)}: {a['decision']} ({a['items']:,} items, {a['pairs']:,} judge-human pairs)")
    if a["decision_reason"]:
        print(f"  not decided, this is not a pass: {a['decision_reason']}")
    for g in a["gates"]:
        interval = "" if g["value"] is None else f" {gate_interval(g)}"
        print(f"  {g['name']}: {gate_value(g)}{interval} ({gate_threshold(g)}): {gate_result(g)}")
        for n in gate_notes(g):
            print(f"    {n}")
    for title, value, interval, over in alpha_rows(a):
        print(f"  {title}: {value}" + ("" if interval == "-" else f" {interval}")
              + (f" ({printable(over, 300)})" if value == "not measured" else ""))
    for x, y, items, value in pair_rows(a):
        print(f"    {printable(x, 60)} ~ {printable(y, 60)}: {value} over {items} items")
    print("  measures beside the gates (they do not decide):")
    for title, value, interval, fraction, _method, why in measure_rows(a):
        if value == "not measured":
            print(f"    {title}: not measured: {why}")
            continue
        print(f"    {title}: {value}" + ("" if interval == "-" else f" {interval}")
              + ("" if fraction == "-" else f" = {printable(fraction, 300)}"))
    if a["confidence"]:
        print("  stated confidence against the humans:")
        for line in confidence_lines(a["confidence"]):
            print(f"    {line}")


def _print_calibration(report: dict[str, Any]) -> None:
    from agreebound.render.report import plan_text

    c = report["calibration"]
    given = c.get("contract_origin", "given") == "given"
    if given:
        print(f"decision: {c['decision']} (against the {c['decided_against']['kind']} contract, "
              f"{c['decided_against']['content_id']})")
    else:  # no contract: measured against the draft's limits, never decided
        print(f"decision: {c['decision']} ({c['decision_reason']})")
        print(f"measured against {printable(c['contract_source'])} ({c['decided_against']['content_id']}, drafted "
              "from the log); give the contract (--contract CONTRACT.json) for a decision")
    for n in c.get("notes", []):
        print(f"note: {printable(n)}")
    for r in c["rates"]:
        op = ">=" if r["kind"] == "min" else "<="
        if r.get("unavailable"):
            print(f"  {r['name']}: not evaluable: {printable(r['unavailable'])}")
            continue
        gate = "not evaluable (no opportunities)" if not r["evaluable"] else ("pass" if r["passed"] else "FAIL")
        if not given and r["evaluable"]:  # a comparison with an example limit, not a gate's verdict
            gate = "within the limit" if r["passed"] else "outside the limit"
        print(f"  {r['name']}: {r['numerator']}/{r['denominator']} = {r['bps']} bps ({op} {r['threshold_bps']}"
              f"{'' if given else ' illustrative' if c['contract_origin'] == 'illustrative' else ' in force'}): {gate}")
        if r.get("interval95"):  # case-aware: each case's observations counted as one cluster
            low, high = r["interval95"]
            cases = f"{r['cases']} case{'' if r['cases'] == 1 else 's'}"
            print(f"    95% interval [{low:.2%}, {high:.2%}] ({cases}, {r['observations']} observations; "
                  f"design effect {r['design_effect']:.3g})")
        if plan := plan_text(r.get("plan")):
            print(f"    {plan}")
    for g in c.get("net_gates", []):  # the gates a contract opted in to: the bias net of disagreement
        state = "not evaluable" if not g["evaluable"] else ("pass" if g["passed"] else "FAIL")
        value = "-" if g.get("value") is None else f"{g['value'] * 100:.1f} points"
        iv = g.get("interval95")
        value += f" [{iv[0] * 100:.1f}, {iv[1] * 100:.1f}]" if iv else ""
        print(f"  {g['name']}: {value} (<= {g['threshold_bps'] / 100:g} points): {state}")
        if plan := plan_text(g.get("plan")):
            print(f"    {plan}")
    if c["reference_issues"]:
        print(f"  reference issues: {len(c['reference_issues'])}")
    _print_bias(c.get("bias"))
    _print_headline(c.get("headline"))
    if c.get("confidence"):  # a judge that states a probability (AlpacaEval's weighted annotators)
        from agreebound.render.scored import confidence_lines

        print("stated confidence against the humans:")
        for line in confidence_lines(c["confidence"]):
            print(f"  {printable(line)}")
    if not given:
        measurable = sum(r["evaluable"] and not r.get("unavailable") for r in c["rates"])
        print(f"  INCOMPLETE: {c['decision_reason']}: not decided, this is not a pass ({measurable} of "
              f"{len(c['rates'])} gates measurable)")
    elif c["decision"] == "INCOMPLETE":
        some = any(not r.get("unavailable") for r in c["rates"])
        print("  INCOMPLETE: " + ("every gate that could be evaluated passed, but some could not" if some
                                  else "no gate could be evaluated from this source") + ": this is not a pass")


def _print_bias(bias: dict[str, Any] | None) -> None:
    """Bias or disagreement? Each measure beside the gates with its exact fraction and interval, and
    each failing raw gate read against them."""
    from agreebound.render.report import bias_measures, measure_interval, measure_value

    if not bias:
        return
    print("bias or disagreement? (measures beside the gates; not gates unless the contract says so)")
    for m in bias_measures(bias):
        if m.get("value") is None:
            print(f"  {m['title']}: not measured: {printable(m.get('unavailable') or '', 300)}")
            continue
        interval = measure_interval(m)
        test = "" if m.get("p_value") is None else f"; p = {m['p_value']:.2g}"
        print(f"  {m['title']}: {measure_value(m)} = {m['fraction']}" + (f" {interval}" if interval else "") + test)
    if bias.get("mix_note"):
        print(f"  note: {printable(bias['mix_note'], 400)}")
    for n in bias.get("verdict_notes", []):
        print(f"  {printable(n, 400)}")


def _print_headline(headline: dict[str, Any] | None) -> None:
    """The corrected headline: each model pair's win rate, the judge's and corrected by the labels."""
    if not headline or not headline.get("pairs"):
        return
    print("corrected headline (win rate of the first model of each pair; judge only, prediction-powered, human only):")
    for p in headline["pairs"]:
        print(f"  {printable(p['sentence'], 800)}")
    print(f"  note: {printable(headline['note'], 800)}")


def _printing(body: Any) -> None:
    """Run ``body`` (which prints); a reader that went away (``| head``) ends the output quietly,
    and a stdout that cannot be written is an OutputError (exit 4), never a verdict."""
    try:
        body()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError as e:
        raise OutputError(f"could not write the output ({e.strerror or e})") from None


def _utc_bound(flag: str, text: str | None) -> str | None:
    """--since/--until: a UTC date (2026-11-01) or date and time (2026-11-01T09:30)."""
    if text is None:
        return None
    from datetime import datetime

    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"agreebound history: {flag} {printable(text, 40)!r} is not a UTC date (2026-11-01) or time "
                         "(2026-11-01T09:30)") from None
    return text


def _history(args: argparse.Namespace) -> int:
    import json

    from agreebound.app.store import MAX_LISTED_RUNS, Store, skipped_sentence

    if not 1 <= args.limit <= MAX_LISTED_RUNS:
        raise UsageError(f"agreebound history: --limit {printable(args.limit, 40)} is out of range; give a number of "
                         f"runs from 1 to {MAX_LISTED_RUNS:,}")
    args.since, args.until = _utc_bound("--since", args.since), _utc_bound("--until", args.until)
    skipped: list[str] = []
    with _open_store(args, "read") as store:
        runs = store.runs(name=args.name, kind=args.kind, verdict=args.verdict, since=args.since, until=args.until,
                          limit=args.limit, reports=False, skipped=skipped)  # summaries: no reports read
        where = store.where

    def body() -> None:
        if skipped:  # one damaged run does not hide the others; it is named, on stderr
            print(f"agreebound: {skipped_sentence(skipped)}", file=sys.stderr)
        if args.json:
            sys.stdout.write(json.dumps({"db": where, "runs": [r.summary() for r in runs], "skipped": skipped},
                                        indent=2, sort_keys=True, ensure_ascii=True) + "\n")
            return
        if not runs:
            print(f"no runs{' for ' + repr(printable(args.name, 60)) if args.name else ''} in {where}")
            return
        width = max(len(r.id) for r in runs)
        owners = [printable(r.owner_name, 60) for r in runs]
        who = max(len("owner"), *(len(o) for o in owners))
        print(f"{'run':{width}}  {'recorded (UTC)':19}  {'kind':5}  {'verdict':16}  {'owner':{who}}  {'shared':7}  "
              "data  (label)")
        for r, owner in zip(runs, owners):
            label = f"  ({printable(r.label, 60)})" if r.label else ""
            print(f"{r.id:{width}}  {r.created_utc[:19].replace('T', ' '):19}  {r.kind:5}  {r.verdict:16}  "
                  f"{owner:{who}}  {r.share:7}  {printable(r.data_name, 60)}{label}")

    _printing(body)
    return 0


def _compare(args: argparse.Namespace) -> int:
    import json

    from agreebound.app.history import CompareError, compare

    with _open_store(args, "read") as store:
        a, b = store.get(args.run_a), store.get(args.run_b)
    try:
        c = compare(a, b)
    except CompareError as e:
        raise InputError("compare", None, None, str(e)) from None
    _printing(lambda: _print_comparison(args, a, b, c, json))
    return 1 if c.regression else 0


def _print_comparison(args: argparse.Namespace, a: Any, b: Any, c: Any, json: Any) -> None:
    from agreebound.app.history import show

    if args.json:
        sys.stdout.write(json.dumps(c.to_dict(), indent=2, sort_keys=True, ensure_ascii=True) + "\n")
    else:
        print(f"before: run {a.id} {a.created_utc[:19].replace('T', ' ')} {a.verdict} {printable(a.data_name, 60)}")
        print(f"after:  run {b.id} {b.created_utc[:19].replace('T', ' ')} {b.verdict} {printable(b.data_name, 60)}")
        print(printable(c.headline(), 2000))
        for v in c.verdicts:
            if v.direction != "same":
                print(f"  {printable(v.scope, 60)}: {v.before or 'absent'} -> {v.after or 'absent'} ({v.direction})")
        for g in c.gates:
            before = show(g.before.value, g.unit, g.before.state) if g.before else "absent"
            after = show(g.after.value, g.unit, g.after.state) if g.after else "absent"
            mark = f"  FLIPPED, {printable(g.why, 300)}" if g.flipped else ("  NO LONGER CHECKED" if g.lost else "")
            print(f"  {printable(g.scope, 40)} {g.label}: {before} -> {after}{mark}")
        for sh in c.alpha_shifts:
            print(f"  {printable(sh.sentence(), 300)}")
        if c.measures:
            print("  bias or disagreement? (measures beside the gates)")
        for m in c.measures:
            print(f"    {printable(m.sentence(), 300)}")


def _delete(args: argparse.Namespace) -> int:
    with _open_store(args, "delete") as store:
        run_id = store.resolve(args.run)
        gone = store.delete(run_id)
    print(f"deleted run {run_id} ({gone} stored input{'' if gone == 1 else 's'} no other run used)")
    return 0


def _share(args: argparse.Namespace) -> int:
    with _open_store(args, "record") as store:
        run = store.share(args.run, args.to)
    print(f"run {run.id} ({printable(run.data_name, 60)}, {printable(run.owner_name, 60)}'s) is shared with "
          f"{SHARE_WORDS[run.share]}")
    return 0


def _prune(args: argparse.Namespace) -> int:
    """Retention: delete the runs older than --days (default $AGREEBOUND_RETENTION_DAYS)."""
    days = args.days if args.days is not None else _access_settings().retention_days
    if days is None or not 1 <= days <= 36_500:
        raise UsageError("agreebound prune: give --days N (1 to 36,500), or set AGREEBOUND_RETENTION_DAYS")
    with _open_store(args, "delete") as store:
        if args.dry_run:
            old, freed = store.older_than(days), 0
        else:
            old, freed = store.prune(days)
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {len(old):,} run{'' if len(old) == 1 else 's'} recorded more than {days:,} days ago"
          + ("" if args.dry_run else f" ({freed:,} stored input{'' if freed == 1 else 's'} no other run used)"))
    for r in old:
        print(f"  {r.id}  {r.created_utc[:19].replace('T', ' ')}  {printable(r.data_name, 60)}  "
              f"[{printable(r.owner_name, 60)}]")
    return 0


def _audit(args: argparse.Namespace) -> int:
    import json

    with _open_store(args, "read") as store:
        events = store.trail(limit=args.limit, run_id=args.run)

    def body() -> None:
        if args.json:
            sys.stdout.write(json.dumps(events, indent=2, sort_keys=True, ensure_ascii=True) + "\n")
            return
        for e in events:
            d = e["detail"]
            what = printable(d.get("data_name", ""), 60)
            extra = f" {d.get('from')} -> {d.get('to')}" if e["action"] == "share" else ""
            print(f"{e['at_utc'][:19].replace('T', ' ')}  {printable(e.get('actor_shown', e['actor']), 60)}  {e['action']:8}  "
                  f"{e['run_id']}  {what}{extra}")
        if not events:
            print("no events")

    _printing(body)
    return 0


def _claim(args: argparse.Namespace) -> int:
    """The operator gives the runs an earlier version stored under an owner name (an address in
    lower case) to an account that signed in (agreebound.app.store.Store.reassign): for an account whose
    provider's address is not exactly that name, which no sign-in claims by itself."""
    with _open_store(args, "record") as store:
        key, shown, moved, before = store.reassign(args.source, args.to)
    was = f"; the name was claimed by {printable(before, 120)} before" if before and before != key else ""
    print(f"gave {moved:,} run{'' if moved == 1 else 's'} recorded as {printable(args.source, 80)} to "
          f"{printable(shown, 80)!r} ({printable(key, 120)}){was}")
    return 0


def _example(args: argparse.Namespace) -> int:
    from agreebound.judge.calibration import format_example

    print(format_example())
    return 0


def _samples(args: argparse.Namespace) -> int:
    """Copy the bundled samples into a folder, so the README's examples run from an install."""
    from agreebound.app.resources import copy_samples, samples

    dest = Path(args.folder)
    try:
        written = copy_samples(dest)
    except OSError as e:
        print(f"agreebound samples: cannot write into {printable(str(dest), 200)} ({printable(e, 160)})",
              file=sys.stderr)
        return INPUT_ERROR
    total = sum(1 for p in samples().rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    kept = total - len(written)
    print(f"{len(written)} sample files written to {printable(str(dest), 200)}"
          + (f" ({kept} already there, left as they were)" if kept else "")
          + f"; try: agreebound panel {printable(str(dest / 'detector_panel.csv'), 200)}")
    return 0


def _schema(args: argparse.Namespace) -> int:
    """Print the JSON report's schema, as the package ships it."""
    from agreebound.app.resources import schema_text

    sys.stdout.write(schema_text())
    return 0


def _validate(args: argparse.Namespace) -> int:
    """Planted judges audited by the pipeline and read against their plants: 0 when all hold."""
    import json

    from agreebound.app.validate import table, validate

    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"agreebound validate: --seed {printable(args.seed, 40)} is out of range; give a whole "
                         f"number from 0 to {MAX_SEED}")
    v = validate(args.seed)

    def body() -> None:
        if args.json:
            sys.stdout.write(json.dumps(v.to_dict(), indent=2, sort_keys=True, ensure_ascii=True) + "\n")
        else:
            sys.stdout.write(table(v))

    _printing(body)
    return 0 if v.holds else 1


def _serve(args: argparse.Namespace) -> int:
    """Start the dashboard with the settings agreebound.app.serve chooses; --check prints them and
    exits 1 on an unsafe combination (a public bind without sign-in)."""
    from agreebound.app import serve
    from agreebound.app.store import configured_url, describe

    from agreebound.app.resources import MissingResource, app_script

    try:
        app = app_script()
    except MissingResource as e:
        print(f"agreebound serve: {e}", file=sys.stderr)
        return INPUT_ERROR
    try:
        plan = serve.plan(args.host, args.port, args.auth, [app.parent, Path.home()])
    except serve.ServeError as e:
        print(f"agreebound serve: {e}", file=sys.stderr)
        return INPUT_ERROR
    url = configured_url()
    store_line = "recording off (AGREEBOUND_DB=off)" if url is None else describe(url)
    if args.check:
        print("\n".join(serve.check_lines(plan, store_line)))
        print("unsafe: do not serve this way" if plan.unsafe else "safe to serve")
        return 1 if plan.unsafe else 0
    for line in plan.unsafe:
        print(f"agreebound serve: WARNING: {line}", file=sys.stderr)
    _prune_on_start(plan.access.retention_days)
    try:
        secrets_at = serve.secrets_file(plan)
    except (serve.ServeError, OSError) as e:
        print(f"agreebound serve: cannot write the sign-in settings for Streamlit: {e}", file=sys.stderr)
        return INPUT_ERROR
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), *plan.options(secrets_at)]
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    if plan.signin is not None:
        env[serve.REQUIRE_SIGNIN_ENV] = "1"
    if secrets_at is not None:  # the secrets are in the private file now, not in the server's environment
        for name in serve.SECRET_ENV:
            env.pop(name, None)
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(app.parent)
    # the server replaces this process: a container's stop signal (or Ctrl-C) reaches Streamlit itself
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


def _prune_on_start(days: int | None) -> None:
    """Retention applied when the server starts (AGREEBOUND_RETENTION_DAYS); a store that cannot be
    opened is said and the server starts anyway (its pages say why there is no history)."""
    if days is None:
        return
    from agreebound.app.store import StoreError, configured_url

    if configured_url() is None:
        return
    try:
        with _open_store(argparse.Namespace(db=None), "delete") as store:
            old, _ = store.prune(days)
        print(f"agreebound serve: retention: deleted {len(old):,} run(s) older than {days:,} days", file=sys.stderr)
    except StoreError as e:
        print(f"agreebound serve: retention not applied: {e}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
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
    parser.commands = commands  # type: ignore[attr-defined]
    return parser


def _panel_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """`agreebound panel`: the ratings, how to read them, and what to measure."""
    from agreebound.panel.categories import LEVELS
    from agreebound.app.pipeline import ENGINES

    p = sub.add_parser("panel", help="alpha, detector spread and the enforcement verdict", formatter_class=_RAW,
                       epilog=PANEL_EXAMPLES, description="Decide whether a detector panel licenses enforcement.")
    p.add_argument("file", help="ratings: CSV/TSV, Excel .xlsx, Parquet, JSON Lines, Label Studio or Prodigy export; "
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
    _common(p)
    p.set_defaults(func=_panel)
    return p


def _calibrate_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """`agreebound calibrate`: a judge's bundle, trio or log, and its contract."""
    from agreebound.app.pipeline import ENGINES

    c = sub.add_parser("calibrate", help="audit an LLM judge (pairwise, graded or pass/fail) against human labels",
                       formatter_class=_RAW, epilog=CAL_EXAMPLES, description=CAL_DESCRIPTION)
    c.add_argument("bundle", help="judge bundle JSON; the contract JSON of the tabular trio; a pairwise judge log "
                   "(MT-Bench judgments JSONL, AlpacaEval annotations JSON); or a graded or pass/fail judge's log "
                   "(inspect_ai, promptfoo, MT-Bench single-answer grading, judgekit/judgecal JSONL, or a scores "
                   "table item,rater,role,score)")
    c.add_argument("--references", help="references CSV (tabular trio), human judgments for a pairwise judge log, or "
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
    c.add_argument("--mapping", help="a judge log of another shape: which of its fields is which observation field "
                   '(JSON or TOML: {"judge_log": {"fields": {...}, "values": {...}}}; see docs/formats.md)')
    _common(c)
    c.set_defaults(func=_calibrate)
    return c


def _inspect_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """`agreebound inspect`: preview how a rating file is read."""
    i = sub.add_parser("inspect", help="how a rating file will be read: layout, roles, first rows, categories",
                       formatter_class=_RAW, epilog=INSPECT_EXAMPLES,
                       description="Preview how a rating file is read, and write the mapping to reuse with --mapping. "
                                   "Exit 0: it reads; 3: it cannot be read this way (the preview says why).")
    i.add_argument("file", help="ratings, in any format panel reads")
    i.add_argument("--mapping", help="a mapping file (JSON or TOML) to preview instead of the suggestion")
    i.add_argument("--mapping-out", metavar="PATH", help="write the mapping (JSON) to reuse with panel --mapping")
    i.add_argument("--json", action="store_true", help="print the preview as JSON")
    i.set_defaults(func=_inspect)
    return i


def _store_parsers(sub: argparse._SubParsersAction) -> dict[str, argparse.ArgumentParser]:
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
    _db(h)
    h.set_defaults(func=_history)

    cm = sub.add_parser("compare", help="two runs side by side; exit 1 when a verdict got worse",
                        formatter_class=_RAW, epilog=COMPARE_EXAMPLES)
    cm.add_argument("run_a", metavar="RUN_A", help="the run before (an id, or a unique prefix of 4+ digits)")
    cm.add_argument("run_b", metavar="RUN_B", help="the run after")
    cm.add_argument("--json", action="store_true", help="print the comparison as JSON")
    _db(cm)
    cm.set_defaults(func=_compare)

    d = sub.add_parser("delete", help="delete a run, and its stored inputs when no other run uses them")
    d.add_argument("run", metavar="RUN")
    _db(d)
    d.set_defaults(func=_delete)

    sh = sub.add_parser("share", help="who sees a run: private (its owner), team, or all (everyone signed in)")
    sh.add_argument("run", metavar="RUN")
    sh.add_argument("to", choices=SHARES, metavar="{private,team,all}")
    _db(sh)
    sh.set_defaults(func=_share)

    pr = sub.add_parser("prune", help="retention: delete the runs older than N days (tombstones stay in the audit "
                        "trail)")
    pr.add_argument("--days", type=int, help="age in days (default: $AGREEBOUND_RETENTION_DAYS)")
    pr.add_argument("--dry-run", action="store_true", help="list the runs that would be deleted; delete nothing")
    _db(pr)
    pr.set_defaults(func=_prune)

    au = sub.add_parser("audit", help="the audit trail: who recorded, opened, shared and deleted which run, when")
    au.add_argument("--run", help="only this run's events (its whole id)")
    au.add_argument("--limit", type=int, default=200, help="the newest N events (default 200)")
    au.add_argument("--json", action="store_true")
    _db(au)
    au.set_defaults(func=_audit)

    cl = sub.add_parser("claim", help="give the runs an earlier version stored under an address to an account that "
                        "signed in (the operator's decision; a sign-in claims only its exact address)")
    cl.add_argument("--from", dest="source", required=True, metavar="NAME",
                    help="the owner name the runs are stored under (as `agreebound history` lists it, e.g. "
                         "alice@red.example)")
    cl.add_argument("--to", required=True, metavar="ACCOUNT",
                    help="the account's key (<issuer>|<subject>), or the address it is shown as, exactly")
    _db(cl)
    cl.set_defaults(func=_claim)
    return {"history": h, "compare": cm, "delete": d, "share": sh, "prune": pr, "audit": au, "claim": cl}


def _plain_parsers(sub: argparse._SubParsersAction) -> dict[str, argparse.ArgumentParser]:
    """The commands without data: example, validate and serve."""
    e = sub.add_parser("example", help="the seed's eight illustrative lines")
    e.set_defaults(func=_example)

    v = sub.add_parser("validate", help="check the instrument: judges with planted defects, each audited; exit 0 "
                       "when every measure recovers its plant", formatter_class=_RAW, epilog=VALIDATE_EXAMPLES,
                       description="Audit six synthetic judges with planted defects (clean; first-slot preference;\n"
                       "length preference; self-preference; unbiased but 30% noisy; unstable repetitions) through\n"
                       "the pipeline, and check that every bias measure's 95% interval covers its planted value,\n"
                       "that the bias flags are raised where a bias was planted and nowhere else, and that each\n"
                       "verdict reads as planted.")
    v.add_argument("--seed", type=int, default=0, help=f"the synthetic data's seed (0 to {MAX_SEED}; default 0)")
    v.add_argument("--json", action="store_true", help="print the rows and checks as JSON")
    v.set_defaults(func=_validate)

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
    s.set_defaults(func=_serve)

    sa = sub.add_parser("samples", help="copy the bundled sample files into a folder (default ./sample_data), so "
                        "the examples run as written")
    sa.add_argument("folder", nargs="?", default="sample_data", help="where to write them (made if missing; files "
                    "already there are left as they are)")
    sa.set_defaults(func=_samples)
    sc = sub.add_parser("schema", help="print the JSON report's schema (JSON Schema 2020-12, with a versioned $id)")
    sc.set_defaults(func=_schema)
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


def _safe_streams() -> None:
    """Whatever the locale, an undecodable name prints as escapes instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass


def _internal(error: BaseException) -> int:
    what = f"{type(error).__name__}: {printable(error, 160)}"
    print(f"agreebound: internal error ({what}). This is a bug in agreebound, not a verdict: please report it with "
          "the command line; rerun with AGREEBOUND_TRACE=1 to print the trace.", file=sys.stderr)
    if os.environ.get("AGREEBOUND_TRACE"):
        traceback.print_exception(error, file=sys.stderr)
    return INTERNAL_ERROR


def _store_error() -> type[BaseException]:
    """The store's error type, imported only once a command has touched the store."""
    mod = sys.modules.get("agreebound.app.store")
    return mod.StoreError if mod is not None else _Never


class _Never(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    _safe_streams()
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # said with the command's own usage line, not the top level's
            parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
        return int(args.func(args))
    except UsageError as e:
        print(printable(e), file=sys.stderr)
        return INPUT_ERROR
    except InputError as e:
        print(str(e), file=sys.stderr)
        return INPUT_ERROR
    except KeyboardInterrupt:
        print("agreebound: interrupted", file=sys.stderr)
        return INTERRUPTED
    except ModuleNotFoundError as e:
        if (extra := missing_extra(e)) is None:
            return _internal(e)
        print(f"agreebound: {extra}", file=sys.stderr)
        return INPUT_ERROR
    except MemoryError:  # every reader is bounded before the work; what still does not fit is too large here
        print("agreebound: the input needs more memory than this machine has; it is too large or too wide to "
              "read here (see the limits in docs/formats.md)", file=sys.stderr)
        return INPUT_ERROR
    except _store_error() as e:
        print(f"agreebound: {printable(e, 400)}", file=sys.stderr)
        return INPUT_ERROR
    except OutputError as e:
        print(f"agreebound: {e}; no verdict was given", file=sys.stderr)
        return INTERNAL_ERROR
    except SystemExit:
        raise  # --help and --version
    except BaseException as e:  # noqa: BLE001 - the one place that turns a crash into exit 4
        return _internal(e)


if __name__ == "__main__":
    sys.exit(main())
