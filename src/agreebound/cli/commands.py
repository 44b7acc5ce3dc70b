"""The commands that read and decide (panel, calibrate, inspect, example, samples, schema, validate,
serve): a recipe from the arguments, the pipeline's run, the report written and the verdict's exit code.
"""

from __future__ import annotations
import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence
from agreebound.app.access import SHARE_WORDS
from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.render.text import print_calibration, print_panel, print_scored
from agreebound.cli.common import INPUT_ERROR, MAX_SEED, REPORT_SUFFIXES, UsageError, access_settings, open_store, printing

if TYPE_CHECKING:

    from agreebound.app.recipes import Check, JudgeRecipe, PanelRecipe, Source
    from agreebound.panel.study import AnnotationStudy
    from agreebound.app.result import Report
    from agreebound.judge.ranking import RankingGate


# --- reading ----------------------------------------------------------------------------------


def _read(path: str) -> tuple[str, bytes]:
    from agreebound.app.recipes import read_file

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


def _render(path: str, result: Report) -> str:
    from agreebound.render.report import to_json
    from agreebound.render.markdown import to_markdown

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


def _source(path: str | None) -> Source | None:
    from agreebound.app.recipes import Source

    return Source.at(path) if path else None


def _panel_recipe(args: argparse.Namespace) -> PanelRecipe:
    """The panel command's flags as a pipeline recipe."""
    from agreebound.app.recipes import UNSET, PanelRecipe, Source

    recipe = PanelRecipe(tuple(Source.at(f) for f in [args.file, *args.more]), _source(args.mapping), args.level,
                         humans=_names(getattr(args, "humans", None)),
                         detectors=_names(getattr(args, "detectors", None)),
                         dimension=args.dimension, engine=args.engine, master=args.master, interval=args.interval,
                         positive=UNSET if args.positive is None else args.positive, rates=_source(args.rates),
                         sheet=args.sheet, missing=_names(args.missing), coefficients=args.coefficients,
                         study=bool(getattr(args, "study", False) or getattr(args, "relabel", None)
                                    or getattr(args, "relabel_rule", "uncertain-first") != "uncertain-first"),
                         study_rule=getattr(args, "relabel_rule", "uncertain-first"),
                         thresholds=_source(args.thresholds), preset=args.preset, strict=args.strict)
    if getattr(args, "order", None) is not None or getattr(args, "recode", None) is not None:
        recipe = _with_order(args, recipe)
    return recipe


def _with_order(args: argparse.Namespace, recipe: PanelRecipe) -> PanelRecipe:
    """--order and --recode written into the mapping that reads the file: the mapping file's (kept
    under its name), else the one suggested for the file. The report's "read" section then shows
    them, and a recorded run replays them."""
    from dataclasses import replace

    from agreebound.app.recipes import OUT_OF_CORE, Source, panel_engine
    from agreebound.core.errors import FieldError
    from agreebound.io.mapping import parse_order, parse_recode
    from agreebound.io.ratings import parse_mapping, suggested_mapping

    flag = "--order" if args.order is not None else "--recode"
    if panel_engine(recipe) in OUT_OF_CORE:
        raise UsageError(f"agreebound panel: {flag} is read in memory (--engine numpy); it is not available out of "
                         "core yet")
    try:
        order = parse_order(args.order, "--order") if args.order is not None else None
        recode = parse_recode(args.recode, "--recode") if args.recode is not None else None
    except FieldError as e:
        where = e.field or flag  # the message names the option once, as InputError places it
        raise InputError(where, None, None, str(e).removeprefix(f"{where}: ")) from None
    if isinstance(recipe.mapping, Source):
        mapping = parse_mapping(*recipe.mapping.read())
    else:
        mapping = suggested_mapping(*recipe.ratings[0].read(), sheet=args.sheet)
    mapping = mapping.with_(order=mapping.order if order is None else order,
                            recode=mapping.recode if recode is None else recode)
    if isinstance(recipe.mapping, Source):
        return replace(recipe, mapping=Source(recipe.mapping.name, mapping.to_json().encode()))
    return replace(recipe, mapping=mapping.to_json())


def _checks(args: argparse.Namespace, domain: str) -> Check:
    """What the CLI checks once the pipeline chose an out-of-core engine: the flags it cannot serve
    yet (before any file is read), then the --report path against the files it resolved."""

    def check(engine: str, files: Sequence[str] | None) -> None:
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


def _run(args: argparse.Namespace, recipe: PanelRecipe | JudgeRecipe) -> Report:
    from agreebound.app.recipes import RecipeError
    from agreebound.app.pipeline import run

    try:
        return run(recipe, _checks(args, "panel" if args.command == "panel" else "judge"))
    except RecipeError as e:
        raise UsageError(f"agreebound {args.command}: {e}") from None


def panel(args: argparse.Namespace) -> int:
    _check_recording(args)
    from agreebound.app.recipes import OUT_OF_CORE, panel_engine

    recipe = _panel_recipe(args)
    in_memory = panel_engine(recipe) not in OUT_OF_CORE
    if in_memory and args.more:
        raise UsageError("agreebound panel: several files are read with --engine duckdb (long ratings)")
    if in_memory and args.report:
        args.report_given, args.report = args.report, _report_target(args.report, args.file, "panel")
        _check_report_path(args.report, _inputs(args, "file", "rates", "thresholds", "mapping"))
    if getattr(args, "relabel", None):
        _check_relabel_targets(args)
    elif getattr(args, "relabel_format", "csv") != "csv":
        raise UsageError("agreebound panel: --relabel-format says how --relabel writes the queue; give --relabel PATH")
    result = _run(args, recipe)
    if getattr(args, "relabel", None):
        _write_relabel(args, result.view.studies)
    if args.record:
        args.run = ("panel", list(result.inputs), result.recipe, result.thresholds)
    return _emit(args, result, print_panel)


def _check_output(path: str, option: str, suffix: str, inputs: Sequence[str], why: str = "") -> None:
    """Refuse, before any work, an output file (``option``'s, ending in ``suffix``) that cannot be
    written or would destroy an input."""
    p = Path(path)
    if p.suffix.lower() != suffix:
        raise InputError(path, None, None, f"{option}{why} needs a {suffix} file name")
    if p.is_dir():
        raise InputError(path, None, None, f"{option} names a folder; give a file name inside it")
    for given in inputs:
        try:
            same = p.exists() and os.path.samefile(p, given)
        except OSError:
            same = False
        if same:
            raise InputError(path, None, None, f"{option} names one of the inputs; writing it would destroy the input. "
                             "Choose another file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(path, None, None, f"{option}: the folder {printable(str(parent))} does not exist")


def _check_relabel_targets(args: argparse.Namespace) -> None:
    """--relabel's file (and Label Studio's config beside it, PATH.xml): the right ending, not a
    folder, not an input, not the --report file."""
    inputs = _inputs(args, "file", "rates", "thresholds", "mapping")
    _check_output(args.relabel, "--relabel", ".csv" if args.relabel_format == "csv" else ".json", inputs,
                  f" with --relabel-format {args.relabel_format}")
    targets = [args.relabel] + ([args.relabel + ".xml"] if args.relabel_format == "label-studio" else [])
    if len(targets) > 1:
        _check_output(targets[1], "--relabel's labelling config", ".xml", inputs)
    report = getattr(args, "report", None)
    if report and any(os.path.abspath(t) == os.path.abspath(report) for t in targets):
        raise InputError(report, None, None, "--report and --relabel name the same file; one would overwrite the "
                         "other. Choose another file name")


def _write_relabel(args: argparse.Namespace, studies: Mapping[str, AnnotationStudy]) -> None:
    """--relabel: every dimension's queue in one file (a ``dimension`` field or column, and a record
    id of dimension/unit, when the panel has several), in --relabel-format; Label Studio's labelling
    config beside it (PATH.xml)."""
    import json

    from agreebound.panel.relabel import argilla_records, label_studio_config, label_studio_tasks, queue_csv

    _check_relabel_targets(args)  # again: out of core, --report's file is known only now
    queues = {d: s.queue for d, s in studies.items() if s.queue is not None}
    if not queues:
        skipped = "; ".join(s.skipped or "" for s in studies.values())
        raise UsageError(f"agreebound panel: --relabel: no queue to write ({skipped})")
    many = len(studies) > 1
    if args.relabel_format == "csv":
        _write_report(args.relabel, "".join(queue_csv(q, d if many else None, header=i == 0)
                                            for i, (d, q) in enumerate(queues.items())))
        return
    records: list[dict[str, object]] = []
    for d, q in queues.items():
        made = json.loads(label_studio_tasks(q) if args.relabel_format == "label-studio" else argilla_records(q))
        if many:
            for r in made:
                r.setdefault("data" if args.relabel_format == "label-studio" else "metadata", {})["dimension"] = d
                if "id" in r:  # an Argilla record's id is unique in its dataset: a unit once per dimension
                    r["id"] = f"{d}/{r['id']}"
        records += made
    _write_report(args.relabel, json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    if args.relabel_format == "label-studio":
        labels = list(dict.fromkeys(str(v) for s in studies.values() if s.model is not None for v in s.model.labels_))
        _write_report(args.relabel + ".xml", label_studio_config(labels))


def inspect(args: argparse.Namespace) -> int:
    """The preview: how the file will be read, its first rows, its categories; and the mapping."""
    from agreebound.io.preview import preview

    name, data = _read(args.file)
    if not args.mapping:
        from agreebound.io.log_kinds import is_judge_log, is_scored_log

        if is_scored_log(name, data) and not is_judge_log(name, data):
            return _inspect_scored(args, name, data)
    mapping = None
    if args.mapping:
        from agreebound.io.ratings import parse_mapping

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

    from agreebound.io.scored_logs import read_scored

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


def _emit(args: argparse.Namespace, result: Report, print_text: Callable[[dict[str, Any]], None]) -> int:
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

    printing(body)  # a reader that went away (| head): the verdict stands; stop writing quietly
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

    kind, inputs, recipe, t = args.run
    with open_store(args, "record") as store:
        quota = access_settings().quota_bytes
        run = store.record(kind, inputs, report, recipe, t.to_dict(), t.source, label=args.label, origin="cli",
                           share=args.share or "private", quota_bytes=quota)
        shared = "" if run.share == "private" else f", shared with {SHARE_WORDS[run.share]}"
        return f"run {run.id} recorded in {store.where} as {run.owner_name}'s{shared}"


def calibrate(args: argparse.Namespace) -> int:
    _check_recording(args)
    from agreebound.app.recipes import JudgeRecipe, Source

    if args.report:
        args.report_given, args.report = args.report, _report_target(args.report, args.bundle, "judge")
        _check_report_path(args.report, _inputs(args, "bundle", "references", "observations", "thresholds",
                                                "contract", "mapping"))
    recipe = JudgeRecipe(Source.at(args.bundle), references=_source(args.references),
                         observations=_source(args.observations), contract=_source(args.contract),
                         mapping=_source(args.mapping), judge=args.judge, engine=args.engine, master=args.master,
                         thresholds=_source(args.thresholds), preset=args.preset, level=args.level,
                         strict=args.strict, ranking=args.ranking, beats=ranking_gate(args.beats, args.strict),
                         recalibrate=bool(getattr(args, "recalibrate", False) or getattr(args, "map_out", None)))
    if getattr(args, "map_out", None):
        _check_output(args.map_out, "--map-out", ".json", _inputs(args, "bundle", "references", "observations",
                                                                  "thresholds", "contract", "mapping"))
        if args.report and os.path.abspath(args.report) == os.path.abspath(args.map_out):
            raise InputError(args.report, None, None, "--report and --map-out name the same file; one would overwrite "
                             "the other. Choose another file name")
    result = _run(args, recipe)
    if recipe.recalibrate and result.kind != "scored":
        raise UsageError("agreebound calibrate: --recalibrate maps a graded judge's scores onto the humans' scale; a "
                         "pairwise judge's verdicts have no scale")
    if getattr(args, "map_out", None):
        import json

        maps = [r["map"] for r in result.report["scored"]["recalibration"] if r["mapped"]]
        if not maps:
            raise UsageError("agreebound calibrate: --map-out: no judge could be mapped: " + "; ".join(dict.fromkeys(
                printable(r["why_not"], 200) for r in result.report["scored"]["recalibration"])))
        _write_report(args.map_out, json.dumps({"maps": maps}, indent=2, ensure_ascii=False) + "\n")
    if args.level and result.kind != "scored":
        raise UsageError("agreebound calibrate: --level is for a graded or pass/fail judge's log (scores on a scale "
                         "or verdicts, with human labels); a pairwise judge's verdicts have no level of measurement")
    if (args.ranking or args.beats) and result.kind == "scored":
        raise UsageError("agreebound calibrate: --ranking and --beats rank the models a pairwise judge compared; a "
                         "graded or pass/fail judge's log has no pairwise verdicts")
    if args.record:
        args.run = ("judge", list(result.inputs), result.recipe, result.thresholds)
    return _emit(args, result, print_scored if result.kind == "scored" else print_calibration)


def ranking_gate(given: str | None, strict: bool = False) -> RankingGate | None:
    r"""``--beats MODEL:BASELINE:MARGIN`` as a ranking gate: the margin in rating points, or with
    ``%`` a win probability (to a tenth of a percent); a backslash before a colon keeps it in a model's name.

    >>> ranking_gate("gpt-4:llama-13b:50")
    RankingGate(model='gpt-4', baseline='llama-13b', margin=50, unit='elo', strict=False)
    >>> ranking_gate("llama3\\:8b:gpt-4:60.5%").margin, ranking_gate("a:b:60%").unit
    (605, 'win_permil')
    """
    if given is None:
        return None
    from decimal import Decimal, InvalidOperation

    from agreebound.judge.ranking import RankingGate

    parts = [p.replace("\0", ":") for p in given.replace("\\:", "\0").split(":")]
    usage = (f"agreebound calibrate: --beats {printable(given, 200)!r}: give MODEL:BASELINE:MARGIN (e.g. "
             "gpt-4:llama-13b:50 or gpt-4:llama-13b:60%; a ':' inside a name written '\\:')")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise UsageError(usage)
    model, baseline, margin = parts
    try:
        if margin.endswith("%"):
            permil = Decimal(margin[:-1].strip()) * 10
            if permil != permil.to_integral_value():
                raise UsageError(f"{usage}: a win probability to a tenth of a percent at most")
            gate = RankingGate(model, baseline, int(permil), "win_permil", strict)
        else:
            gate = RankingGate(model, baseline, int(margin.strip()), "elo", strict)
    except (InvalidOperation, ValueError, OverflowError) as e:
        raise UsageError(f"{usage}: {e}") from None
    return gate


def example(args: argparse.Namespace) -> int:
    from agreebound.judge.seed_report import format_example

    print(format_example())
    return 0


def samples(args: argparse.Namespace) -> int:
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


def schema(args: argparse.Namespace) -> int:
    """Print the JSON report's schema, as the package ships it."""
    from agreebound.app.resources import schema_text

    sys.stdout.write(schema_text())
    return 0


def validate(args: argparse.Namespace) -> int:
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

    printing(body)
    return 0 if v.holds else 1


def serve(args: argparse.Namespace) -> int:
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


def _prune_on_start(days: int | None) -> None:
    """Retention applied when the server starts (AGREEBOUND_RETENTION_DAYS); a store that cannot be
    opened is said and the server starts anyway (its pages say why there is no history)."""
    if days is None:
        return
    from agreebound.app.store import StoreError, configured_url

    if configured_url() is None:
        return
    try:
        with open_store(argparse.Namespace(db=None), "delete") as store:
            old, _ = store.prune(days)
        print(f"agreebound serve: retention: deleted {len(old):,} run(s) older than {days:,} days", file=sys.stderr)
    except StoreError as e:
        print(f"agreebound serve: retention not applied: {e}", file=sys.stderr)


