"""Control bands over one data set's runs: each gating number (a panel's alpha per dimension and
level, its spread; a judge's rates) charted against a baseline run the user pins
(agreebound.core.control), never against one estimated from the runs it judges.

The pinned run gives each number its baseline: its value, and its standard error read off its 95%
interval. Every run recorded after it is charted, oldest first, each value standardised by its own
interval's standard error; runs recorded before it are not charted (the chart watches what follows
its baseline). A run is in alarm when any of its numbers is outside its band.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from agreebound.app.history import is_scored, label, scoped_gates, show, unit
from agreebound.core.control import ALARM_HIGH, Baseline, ChartPoint, ControlSettings, Point, chart, se_from_interval
from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject

if TYPE_CHECKING:
    from agreebound.app.store import Run

#: A run's state on the control chart (:meth:`Bands.run_state`).
BASELINE, BEFORE, ALARM, IN_CONTROL, NO_BASELINE = ("baseline", "before the baseline", "alarm", "in control",
                                                    "no baseline")
#: Said wherever no baseline is pinned: no band is drawn rather than one estimated from the runs.
NOT_PINNED = ("No baseline is pinned, so no control band is drawn: a band estimated from the runs it judges would "
              "move with a drift and hide it. Pin a run as the baseline.")


class BandsError(ValueError):
    """A baseline that cannot chart these runs (another kind of run)."""


@dataclass(frozen=True)
class Band:
    """One gating number over the charted runs: its baseline from the pinned run, and each run's
    point (agreebound.core.control.ChartPoint: its band, statistic and state)."""

    scope: str
    gate: str
    label: str
    unit: str
    baseline: Baseline | None  # None: the pinned run gives this number no interval to chart it by
    runs: tuple[Run, ...]  # the charted runs, oldest first
    points: tuple[ChartPoint, ...]
    note: str = ""  # what the setting's promise assumes here, or why the number is not charted

    @property
    def title(self) -> str:
        return f"{self.scope} {self.label}"

    def alarms(self) -> list[tuple[Run, ChartPoint]]:
        return [(r, p) for r, p in zip(self.runs, self.points) if p.alarm]

    def said(self, value: float | None) -> str:
        return show(value, self.unit)

    def sentence(self, run: Run, p: ChartPoint, method: str) -> str:
        """One alarm in words: which run, which number, how it left its band."""
        high = p.state == ALARM_HIGH
        where = f"run {run.id[:12]} ({run.created_utc[:16].replace('T', ' ')}{', ' + run.label if run.label else ''})"
        base = self.said(self.baseline.mean) if self.baseline else "none"
        if method == "ewma":
            how = (f"the smoothed value {self.said(p.level_high)} is {'above the upper' if high else 'below the lower'} "
                   f"control limit {self.said(p.upper if high else p.lower)}")
        else:
            how = (f"{'the excess above' if high else 'the shortfall below'} the baseline, accumulated, is "
                   f"{p.high if high else p.low:.1f} standard errors, past h = {p.limit:g}")
        return f"{printable(self.title, 120)} of {printable(where, 200)} is {self.said(p.value)}: {how} (baseline {base})."


@dataclass(frozen=True)
class Bands:
    """Every followed number's band over one data set's runs, under one setting and one baseline."""

    settings: ControlSettings
    baseline_run: Run | None
    runs: tuple[Run, ...]  # every run given, oldest first
    bands: tuple[Band, ...]

    def alarms_of(self, run: Run) -> list[tuple[Band, ChartPoint]]:
        return [(b, p) for b in self.bands for r, p in zip(b.runs, b.points) if r.id == run.id and p.alarm]

    def run_state(self, run: Run) -> str:
        if self.baseline_run is None:
            return NO_BASELINE
        if run.id == self.baseline_run.id:
            return BASELINE
        if _order(run) < _order(self.baseline_run):
            return BEFORE
        return ALARM if self.alarms_of(run) else IN_CONTROL

    @property
    def newest(self) -> Run | None:
        return self.runs[-1] if self.runs else None

    @property
    def newest_in_alarm(self) -> bool:
        return self.newest is not None and self.run_state(self.newest) == ALARM

    def sentences(self) -> list[str]:
        """Every alarm in words, oldest run first."""
        found = sorted(((r, b, p) for b in self.bands for r, p in b.alarms()), key=lambda t: _order(t[0]))
        return [b.sentence(r, p, self.settings.method) for r, b, p in found]

    def headline(self) -> str:
        if self.baseline_run is None:
            return NOT_PINNED
        b = self.baseline_run
        alarmed = [r for r in self.runs if self.run_state(r) == ALARM]
        charted = [r for r in self.runs if self.run_state(r) in (ALARM, IN_CONTROL)]
        newest = self.newest
        now = ("" if newest is None or self.run_state(newest) not in (ALARM, IN_CONTROL) else
               f" The newest run is {'in alarm' if self.newest_in_alarm else 'in control'}.")
        per_run = self.settings.per_run_words(len(self.bands))
        return (f"Baseline: run {b.id[:12]} ({b.created_utc[:16].replace('T', ' ')}). {self.settings.words()}"
                + (f"; {per_run}" if per_run else "") + ". "
                f"{len(alarmed):,} of {len(charted):,} run{'' if len(charted) == 1 else 's'} after it "
                f"{'is' if len(alarmed) == 1 else 'are'} in alarm.{now}")

    def notes(self) -> list[str]:
        """What the setting's promise assumes with this baseline, and the numbers not charted."""
        if self.baseline_run is None:
            return []
        general = (["EWMA's limits include the baseline run's own error (from its 95% interval), which every run is "
                    "compared with: a single run as the baseline widens the band."]
                   if self.settings.method == "ewma" else [])
        return general + [f"{printable(b.title, 120)}: {b.note}" for b in self.bands if b.note]

    def run_dict(self, run: Run) -> JSONObject:
        """The fields a run carries in ``history --alarms --json``."""
        return {"state": self.run_state(run),
                "alarms": [{"scope": b.scope, "gate": b.gate, "side": "high" if p.state == ALARM_HIGH else "low",
                            "value": p.value, "band": [p.lower, p.upper], "baseline": b.baseline.mean if b.baseline
                            else None, "statistic": p.high if p.state == ALARM_HIGH else p.low, "limit": p.limit,
                            "sentence": b.sentence(run, p, self.settings.method)}
                           for b, p in self.alarms_of(run)]}

    def to_dict(self) -> JSONObject:
        base = self.baseline_run
        return {"settings": self.settings.to_dict(), "promise": self.settings.words(), "notes": self.notes(),
                "baseline_run": None if base is None else base.id, "headline": self.headline(),
                "newest_in_alarm": self.newest_in_alarm,
                "gates": [{"scope": b.scope, "gate": b.gate, "note": b.note,
                           "baseline": None if b.baseline is None else {"mean": b.baseline.mean, "se": b.baseline.se},
                           "runs": [{"run": r.id, "value": p.value, "z": p.z, "band": [p.lower, p.upper],
                                     "level": [p.level_low, p.level_high], "kept_by": [p.keep_low, p.keep_high],
                                     "statistic": {"high": p.high, "low": p.low, "limit": p.limit}, "state": p.state}
                                    for r, p in zip(b.runs, b.points)]} for b in self.bands]}


def _order(run: Run) -> tuple[str, str]:
    return (run.created_utc, run.id)


def _followed(run: Run) -> list[tuple[str, str, float | None, float | None, float | None, str]]:
    """(scope, gate, value, low, high, unit) of each gating number of a run that has a value: the
    structural count of detectors is no number to chart."""
    return [(scope, g.name, g.value, g.low, g.high, unit(g)) for scope, g in scoped_gates(run)
            if g.name != "detectors" and g.value is not None]


def control_bands(runs: Sequence[Run], baseline_run: Run | None,
                  settings: ControlSettings = ControlSettings()) -> Bands:
    """The bands of ``runs`` (one data set's, one kind) against ``baseline_run`` (None: no band)."""
    ordered = tuple(sorted(runs, key=_order))
    if baseline_run is None:
        return Bands(settings, None, ordered, ())
    for r in ordered:
        if r.kind != baseline_run.kind or is_scored(r) != is_scored(baseline_run):
            what = "graded or pass/fail judge" if is_scored(baseline_run) else baseline_run.kind
            raise BandsError(f"run {r.id} is not of the baseline run's kind (a {what} run, {baseline_run.id}): pin a "
                             "run of the kind charted")
    after = tuple(r for r in ordered if _order(r) > _order(baseline_run))
    numbers = dict(_numbers(after))
    bands = []
    for scope, gate, value, low, high, shown in _followed(baseline_run):
        base = Baseline.pinned(value, low, high) if value is not None else None
        points = [Point(*numbers.get((scope, gate, r.id), (None, None))) for r in after]
        if base is None:
            bands.append(Band(scope, gate, label(gate), shown, None, after, (),
                              "not charted: the baseline run gives it no 95% interval to scale differences by"))
            continue
        charted = chart(points, base, settings)
        bands.append(Band(scope, gate, label(gate), shown, base, after, charted, _note(settings, base, points)))
    return Bands(settings, baseline_run, ordered, tuple(bands))


def _numbers(runs: Sequence[Run]) -> list[tuple[tuple[str, str, str], tuple[float | None, float | None]]]:
    """((scope, gate, run id), (value, its standard error)) of every followed number of every run."""
    return [((scope, gate, r.id), (value, se_from_interval(low, high)))
            for r in runs for scope, gate, value, low, high, _ in _followed(r)]


def _note(settings: ControlSettings, base: Baseline, points: Sequence[Point]) -> str:
    """What the setting's promise assumes with this baseline: EWMA's limits carry the baseline run's
    own error; CUSUM's ARL0 takes the baseline as exact, so say what one of its standard errors off does."""
    if settings.method == "ewma":
        return ""
    ses = [p.se for p in points if p.se is not None and p.value is not None]
    if not ses or base.se == 0:
        return ""
    shift = base.se / statistics.median(ses)
    off = settings.arl(shift) or 0.0
    return (f"CUSUM takes the baseline as exact; the baseline run's own error is {shift:.2f} standard errors of a "
            f"run, and a baseline that far off brings a false alarm after {off:,.0f} runs on average (EWMA "
            "accounts for it)")
