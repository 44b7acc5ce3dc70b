"""The History page's tables and actions: runs listed and filtered, one data set's timeline, two
runs compared, the compare pickers' defaults, a run opened, shared or deleted, retention and the
audit trail for admins. Reads and writes go through the shared store (ui.runs.store); a store
error is a message on the page (ui.state.session.say_history), never a crash."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import streamlit as st

from agreebound.app.access import SHARES, may_change
from agreebound.app.store import Run, Store, StoreError, amount, skipped_sentence
from agreebound.core.escape import md_text
from agreebound.ui import auth
from agreebound.ui.runs import is_scored_run, quota as _quota, slot_of, store
from agreebound.ui.state import K, SLOTS, session


def usage_line(s: Store) -> str:
    """"You store 12.3 MB of your 1,000 MB" (or with no limit)."""
    try:
        used = s.usage()
    except StoreError as e:
        return auth.shown(str(e))
    quota = _quota()
    return f"Your runs store {amount(used)} of files" + (f", of your {amount(quota)}." if quota else " (no limit).")


def _say_skipped(skipped: list[str]) -> None:
    """Runs left out of a listing because their stored JSON is damaged: named on the page, where
    the listing is (the rest of the history stays usable)."""
    if skipped:
        whose = "its" if len(skipped) == 1 else "their"
        st.warning(md_text(f"{skipped_sentence(skipped)} ({whose} stored data is damaged; the other runs are shown).",
                           400))


def all_runs(s: Store, limit: int = 5000) -> tuple[list[Run], str | None]:
    """Every run's summary (no reports: a listing of thousands stays cheap), or the error. A run
    that cannot be read is skipped, and said on the page."""
    skipped: list[str] = []
    try:
        found = s.runs(limit=limit, reports=False, skipped=skipped)
    except StoreError as e:
        return [], auth.shown(str(e))
    _say_skipped(skipped)
    session.set_history_skipped(skipped)  # said once: the timelines below name only the runs not said here
    return found, None


def filtered(s: Store, name: str | None, kind: str | None, judge: str | None, contract: str | None,
             verdict: str | None, since: str | None, until: str | None) -> tuple[list[Run], str | None]:
    """The runs under the page's filters (a run skipped here was said already by :func:`all_runs`)."""
    try:
        return s.runs(name=name, kind=kind, judge=judge, contract=contract, verdict=verdict, since=since, until=until,
                      reports=False, skipped=[]), None
    except StoreError as e:
        return [], auth.shown(str(e))


def with_reports(s: Store, name: str, kind: str, limit: int = 200, **filters: Any) -> tuple[list[Run], str | None]:
    """The newest ``limit`` runs of one data set with their reports (what a timeline draws), under
    the page's other filters; a run whose report cannot be read is skipped, and said."""
    skipped: list[str] = []
    try:
        found = s.runs(name=name, kind=kind, limit=limit, skipped=skipped, **filters)
    except StoreError as e:
        return [], auth.shown(str(e))
    said = set(session.history_skipped)
    _say_skipped([i for i in skipped if i not in said])
    return found, None


def full(s: Store, run_id: str) -> tuple[Run | None, str | None]:
    try:
        return s.get(run_id, prefix=False), None
    except StoreError as e:
        return None, auth.shown(str(e))


def timeline_of(of_data: list[Run]) -> Any:
    """The timeline of one data set's runs (history.timeline), for the History page's chart."""
    from agreebound.app.history import timeline

    return timeline(of_data)


def compared(s: Store, before: str, after: str) -> tuple[Any, str | None]:
    """Run ``before`` against run ``after`` (history.compare), or why they cannot be compared (a
    run that cannot be read, a panel run against a judge run)."""
    from agreebound.app.history import CompareError, compare

    (run_a, error_a), (run_b, error_b) = full(s, before), full(s, after)
    try:
        if error_a or error_b:
            raise CompareError(error_a or error_b or "")
        return compare(cast(Run, run_a), cast(Run, run_b)), None  # both read: no error
    except CompareError as e:
        return None, str(e)


def short_contract(cid: str | None) -> str:
    if not cid:
        return ""
    name, _, digest = cid.partition("@sha256:")
    return f"{name}@{digest[:12]}" if digest else cid


def run_level(r: Run) -> str:
    """The level a run was read at: recorded with it, or (runs recorded before) the level chosen; a
    graded judge's: the level chosen, else its kind's default ("from the data")."""
    if is_scored_run(r):
        return str(r.recipe.get("level") or "from the data")
    if r.kind != "panel":
        return ""
    read = r.recipe.get("level_read")
    if read:
        return str(read)
    chosen = r.recipe.get("level")
    return str(chosen) if chosen and chosen != "auto" else "not recorded (the default of its day)"


#: A run's kind in the History table: a graded or pass/fail judge's is a judge run, said so.
KIND_WORDS = {"panel": "panel", "judge": "judge", "scored": "judge (graded)"}


def runs_frame(rows: list[Run]) -> "Any":
    import pandas as pd

    return pd.DataFrame({
        "recorded (UTC)": [r.created_utc[:19].replace("T", " ") for r in rows],
        "verdict": [r.verdict for r in rows],
        "level": [run_level(r) for r in rows],
        "data": [r.data_name for r in rows],
        "label": [r.label or "" for r in rows],
        "kind": [KIND_WORDS[slot_of(r)] for r in rows],
        "judge": [r.judge or "" for r in rows],
        "contract": [short_contract(r.contract_id) for r in rows],
        "thresholds": [r.thresholds_source for r in rows],
        "from": [r.origin for r in rows],
        "owner": [r.owner_name for r in rows],
        "shared with": [auth.share_words(r.share) for r in rows],
        "run": [r.id for r in rows],
    })


def choice(r: Run) -> str:
    """A run as one line in a picker (user text: shown by Streamlit as plain text)."""
    label = f" ({r.label})" if r.label else ""
    return f"{r.created_utc[:19].replace('T', ' ')} · {r.data_name}{label} · {r.verdict} · {r.id}"


def compare_defaults(shown: list[Run], data_name: str | None) -> tuple[str, str]:
    """(after, before) for the compare pickers: the newest run of the data on the timeline, and the
    run of the same data and kind before it (else the next run of that kind, else the next run). A
    graded judge's run is of another kind than a pairwise judge's: they are not compared."""
    of_data = [r for r in shown if r.data_name == data_name] or shown
    after = of_data[0]
    kind = slot_of(after)
    for pool in ([r for r in of_data if slot_of(r) == kind], [r for r in shown if slot_of(r) == kind], shown):
        rest = [r for r in pool if r.id != after.id]
        if rest:
            return after.id, rest[0].id
    return after.id, after.id


def compare_frame(c: Any) -> "Any":
    """Two runs' gates side by side (history.compare): each gate's value, interval, threshold and
    result before and after, and why it flipped. A graded judge's gates are per judge: the first
    column names the judge, where a panel's names the dimension."""
    import pandas as pd

    from agreebound.app.history import show

    def value(g: Any) -> str:
        if g is None:
            return "absent"
        text = show(g.value, g.unit, g.state)
        if g.value is not None and g.low is not None and g.high is not None:
            scale = 100 if g.unit == "%" else 1
            fmt = "{:.1f}%" if g.unit == "%" else ("{:.2f}x" if g.unit == "x" else "{:.3f}")
            text += f" [{fmt.format(g.low * scale)}, {fmt.format(g.high * scale)}]"
        return text

    def threshold(gc: Any) -> str:
        b, a = gc.before, gc.after
        tb = show(b.threshold, gc.unit) if b is not None and b.threshold is not None else "none"
        ta = show(a.threshold, gc.unit) if a is not None and a.threshold is not None else "none"
        return tb if tb == ta else f"{tb} -> {ta}"

    def result(g: Any) -> str:
        if g is None:
            return "absent"
        return {True: "passes", False: "fails", None: g.state}[g.passed]

    return pd.DataFrame({
        ("judge" if is_scored_run(c.a) else "dimension"): [g.scope for g in c.gates],
        "gate": [g.label for g in c.gates],
        "before [95% interval]": [value(g.before) for g in c.gates],
        "after [95% interval]": [value(g.after) for g in c.gates],
        "threshold": [threshold(g) for g in c.gates],
        "result": [f"{result(g.before)} -> {result(g.after)}" if g.flipped or g.lost else result(g.after)
                   for g in c.gates],
        "why it flipped": [g.why for g in c.gates],
    })


def open_from_table() -> None:
    """on_click of Open: the selected run is opened on the next run of the page."""
    session.ask_to_open(session.widget(K.HISTORY_PICK))


def chart_opener(key: str) -> Any:
    """on_select of a timeline chart: a clicked point opens its run (customdata[0])."""

    def opener() -> None:
        sel = session.widget(key)
        try:
            session.ask_to_open(sel["selection"]["points"][0]["customdata"][0])
        except (KeyError, IndexError, TypeError):
            pass

    return opener


def mine(r: Run) -> bool:
    """The visitor may delete and share ``r`` (its owner, or an admin)."""
    return may_change(auth.viewer(), r.owner)


def share(run_id: str) -> None:
    """on_change of a run's sharing control (``K.SHARE_PICK``)."""
    s, to = store(), session.widget(K.SHARE_PICK)
    if s is None or to not in SHARES:
        return
    try:
        run = s.share(run_id, to)
    except StoreError as e:
        session.say_history("error", auth.shown(str(e)))
        return
    session.say_history("info", f"Run {run.id} is now private: only its owner (and admins) see it."
                        if run.share == "private" else f"Run {run.id} is shared with {auth.share_words(run.share)}.")


def prune(days: int) -> None:
    """An admin's retention on request: delete the runs older than ``days`` days."""
    s = store()
    if s is None:
        return
    try:
        gone, freed = s.prune(days)
    except StoreError as e:
        session.say_history("error", auth.shown(str(e)))
        return
    session.say_history("info", f"Deleted {len(gone):,} run{'' if len(gone) == 1 else 's'} recorded more than "
                                f"{days:,} days ago ({freed:,} stored file{'' if freed == 1 else 's'} freed); the audit "
                                "trail keeps their tombstones.")


def prune_preview(s: Store, days: int) -> str:
    """How many runs (of every user) retention would delete now."""
    try:
        n = len(s.older_than(days))
    except StoreError as e:
        return auth.shown(str(e))
    return f"{n:,} run{'' if n == 1 else 's'} recorded more than {days:,} days ago would be deleted."


def audit_trail(s: Store, limit: int = 500) -> tuple[list[dict[str, Any]], str | None]:
    try:
        return s.trail(limit=limit), None
    except StoreError as e:
        return [], auth.shown(str(e))


def audit_frame(events: list[dict[str, Any]]) -> Any:
    """The audit trail as a table (admins): when, who, what, which run, and the run as it was."""
    import pandas as pd

    def what(e: dict[str, Any]) -> str:
        d = e["detail"]
        if e["action"] == "share":
            return f"{auth.share_words(str(d.get('from')))} -> {auth.share_words(str(d.get('to')))}"
        if e["action"] == "reid":
            return f"was run {d.get('old_id')}"
        how = {"link": "through a link", "history": "from the History page"}.get(str(d.get("how")), d.get("how"))
        return " · ".join(str(x) for x in (d.get("data_name"), d.get("verdict"), how,
                                           "as an admin" if d.get("as_admin") else None) if x)

    return pd.DataFrame({"when (UTC)": [e["at_utc"][:19].replace("T", " ") for e in events],
                         "who": [e.get("actor_shown", e["actor"]) for e in events], "did": [e["action"] for e in events],
                         "run": [e["run_id"] for e in events], "what": [what(e) for e in events],
                         "owner": [str(e["detail"].get("owner", "")) for e in events]})


def delete(run_id: str) -> None:
    s = store()
    if s is None:
        return
    try:
        gone = s.delete(run_id)
    except StoreError as e:
        session.say_history("error", auth.shown(str(e)))
        return
    session.say_history("info", f"Deleted run {run_id} ({gone} stored file{'' if gone == 1 else 's'} no other run "
                                "used).")
    for kind in SLOTS:
        held = session.loaded(kind)
        if held is not None and held.run == run_id:
            session.set_loaded(kind, replace(held, run=None))  # the data stays loaded; the link no longer names it


def shown_of(shown: list[Run], everything: list[Run]) -> str:
    """The listing's heading: how many runs the filters leave, of all."""
    return f"{len(shown):,} of {len(everything):,} runs"


def trail_caption(events: list[dict[str, Any]]) -> str:
    return (f"The newest {len(events):,} event{'' if len(events) == 1 else 's'}. Deleted runs keep their "
            "row here (a tombstone); `agreebound audit` prints the whole trail.")
