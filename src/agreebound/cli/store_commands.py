"""The commands over recorded runs (history, compare, delete, share, prune, audit, claim): each
opens the store as the caller, under the deployment's access rules.
"""

from __future__ import annotations
import argparse
import sys
from typing import TYPE_CHECKING, Any
from agreebound.app.access import SHARE_WORDS
from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.cli.common import UsageError, access_settings, open_store, printing

if TYPE_CHECKING:
    from types import ModuleType

    from agreebound.app.history import Comparison
    from agreebound.app.store import Run
    from agreebound.core.control import ControlSettings


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


def history(args: argparse.Namespace) -> int:
    import json

    from agreebound.app.store import MAX_LISTED_RUNS, skipped_sentence

    if not 1 <= args.limit <= MAX_LISTED_RUNS:
        raise UsageError(f"agreebound history: --limit {printable(args.limit, 40)} is out of range; give a number of "
                         f"runs from 1 to {MAX_LISTED_RUNS:,}")
    args.since, args.until = _utc_bound("--since", args.since), _utc_bound("--until", args.until)
    if args.alarms:
        return _alarms(args)
    for flag, given in (("--baseline", args.baseline), ("--control", args.control),
                        ("--false-alarm-rate", args.false_alarm_rate)):
        if given is not None:
            raise UsageError(f"agreebound history: {flag} charts runs against a baseline; give it with --alarms")
    skipped: list[str] = []
    with open_store(args, "read") as store:
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

    printing(body)
    return 0


def _control_settings(args: argparse.Namespace) -> ControlSettings:
    from agreebound.core.control import ControlSettings

    method = args.control or "ewma"
    if args.false_alarm_rate is None:
        return ControlSettings(method)
    try:
        return ControlSettings.for_false_alarms(method, args.false_alarm_rate)
    except ValueError as e:
        raise UsageError(f"agreebound history: --false-alarm-rate: {e}") from None


def _alarms(args: argparse.Namespace) -> int:
    """history --alarms: the runs of one data set charted against the pinned baseline run
    (agreebound.app.control_bands); exit 1 when the newest run listed is in alarm."""
    import json

    from agreebound.app.control_bands import BandsError, control_bands
    from agreebound.app.store import MAX_LISTED_RUNS, StoreError, skipped_sentence

    settings = _control_settings(args)
    skipped: list[str] = []
    with open_store(args, "read") as store:
        baseline = None
        if args.baseline is not None:
            try:
                baseline = store.get(args.baseline)
            except StoreError as e:
                raise UsageError(f"agreebound history --baseline: {printable(e, 300)}") from None
        name = args.name if args.name is not None else (baseline.data_name if baseline else None)
        kind = args.kind if args.kind is not None else (baseline.kind if baseline else None)
        # the chart runs over every run of the data set (the newest MAX_LISTED_RUNS): a --limit or a
        # --verdict that cut the series would restart it at another run; they choose what is listed
        series = store.runs(name=name, kind=kind, since=args.since, until=args.until, limit=MAX_LISTED_RUNS,
                            skipped=skipped)
        runs = [r for r in series if args.verdict is None or r.verdict == args.verdict][:args.limit]
        where = store.where
    try:
        bands = control_bands(series, baseline, settings)
    except BandsError as e:
        raise InputError("history --baseline", None, None, str(e)) from None

    def body() -> None:
        if skipped:
            print(f"agreebound: {skipped_sentence(skipped)}", file=sys.stderr)
        if args.json:
            listed = [{**r.summary(), "control": bands.run_dict(r)} for r in runs]
            sys.stdout.write(json.dumps({"db": where, "runs": listed, "skipped": skipped, "control": bands.to_dict()},
                                        indent=2, sort_keys=True, ensure_ascii=True) + "\n")
            return
        if not runs:
            print(f"no runs{' for ' + repr(printable(name, 60)) if name else ''} in {where}")
        else:
            width = max(len(r.id) for r in runs)
            print(f"{'run':{width}}  {'recorded (UTC)':19}  {'verdict':16}  {'control':19}  data  (label)")
            for r in runs:
                label = f"  ({printable(r.label, 60)})" if r.label else ""
                print(f"{r.id:{width}}  {r.created_utc[:19].replace('T', ' '):19}  {r.verdict:16}  "
                      f"{bands.run_state(r):19}  {printable(r.data_name, 60)}{label}")
        print(printable(bands.headline(), 600))
        for sentence in bands.sentences():
            print(f"  {printable(sentence, 400)}")
        for note in bands.notes():
            print(f"  note: {printable(note, 400)}")

    printing(body)
    return 1 if bands.newest_in_alarm else 0


def compare(args: argparse.Namespace) -> int:
    import json

    from agreebound.app.history import CompareError, compare

    from agreebound.app.history import anchor_drift
    from agreebound.cli.drift_command import thresholds_arg, tolerance_arg

    tolerance, from_file = tolerance_arg("compare", args.tolerance), thresholds_arg(args.thresholds)
    with open_store(args, "read") as store:
        a, b = store.get(args.run_a), store.get(args.run_b)
        try:
            c = compare(a, b)
        except CompareError as e:
            raise InputError("compare", None, None, str(e)) from None
        # two judge logs: the judge's own shift on the anchor items, beside the verdicts
        drift, why = anchor_drift(a, b, store.inputs(a), store.inputs(b), tolerance,
                                  thresholds=from_file) if a.kind == "judge" else (None, "")
    printing(lambda: _print_comparison(args, a, b, c, json, drift, why))
    drifted = drift is not None and getattr(drift, "exit_code", 0) == 1
    return 1 if c.regression or drifted else 0


def _print_comparison(args: argparse.Namespace, a: Run, b: Run, c: Comparison, json: ModuleType,
                      drift: Any = None, why: str = "") -> None:
    from agreebound.app.history import show

    if args.json:
        said = c.to_dict()
        said["drift"] = None if drift is None else drift.to_json()
        said["drift_unavailable"] = why or None
        said["regression"] = c.regression or (drift is not None and drift.exit_code == 1)
        sys.stdout.write(json.dumps(said, indent=2, sort_keys=True, ensure_ascii=True) + "\n")
    else:
        print(f"before: run {a.id} {a.created_utc[:19].replace('T', ' ')} {a.verdict} {printable(a.data_name, 60)}")
        print(f"after:  run {b.id} {b.created_utc[:19].replace('T', ' ')} {b.verdict} {printable(b.data_name, 60)}")
        head = c.headline()
        if drift is not None and drift.exit_code == 1 and not c.regression:  # the exit code's reason comes first
            head = ("Regression: the judge's shift on the anchor items lies beyond the tolerance (below); "
                    + head[0].lower() + head[1:])
        print(printable(head, 2000))
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
        if drift is not None or why:
            print("  the judge's shift on the anchor items (the same candidate text in both runs):")
        for line in (drift.sentences() if drift is not None else [why] if why else []):
            print(f"    {printable(line, 600)}")


def delete(args: argparse.Namespace) -> int:
    with open_store(args, "delete") as store:
        run_id = store.resolve(args.run)
        gone = store.delete(run_id)
    print(f"deleted run {run_id} ({gone} stored input{'' if gone == 1 else 's'} no other run used)")
    return 0


def share(args: argparse.Namespace) -> int:
    with open_store(args, "record") as store:
        run = store.share(args.run, args.to)
    print(f"run {run.id} ({printable(run.data_name, 60)}, {printable(run.owner_name, 60)}'s) is shared with "
          f"{SHARE_WORDS[run.share]}")
    return 0


def prune(args: argparse.Namespace) -> int:
    """Retention: delete the runs older than --days (default $AGREEBOUND_RETENTION_DAYS)."""
    days = args.days if args.days is not None else access_settings().retention_days
    if days is None or not 1 <= days <= 36_500:
        raise UsageError("agreebound prune: give --days N (1 to 36,500), or set AGREEBOUND_RETENTION_DAYS")
    with open_store(args, "delete") as store:
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


def audit(args: argparse.Namespace) -> int:
    import json

    with open_store(args, "read") as store:
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

    printing(body)
    return 0


def claim(args: argparse.Namespace) -> int:
    """The operator gives the runs an earlier version stored under an owner name (an address in
    lower case) to an account that signed in (agreebound.app.store.Store.reassign): for an account whose
    provider's address is not exactly that name, which no sign-in claims by itself."""
    with open_store(args, "record") as store:
        key, shown, moved, before = store.reassign(args.source, args.to)
    was = f"; the name was claimed by {printable(before, 120)} before" if before and before != key else ""
    print(f"gave {moved:,} run{'' if moved == 1 else 's'} recorded as {printable(args.source, 80)} to "
          f"{printable(shown, 80)!r} ({printable(key, 120)}){was}")
    return 0


