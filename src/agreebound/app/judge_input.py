"""A judge set measured: io reads a judge input (a bundle, the tabular trio, a judge log) without
measuring it; :func:`measure_judge` audits it with calibration's public measuring functions and
returns the :class:`JudgeBundle` every report and page draws.

Measuring lives here, in the core, so that io never imports the measuring code (issue 23).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, cast

import numpy as np

from agreebound.judge.columns import Frame, as_frame, columns_of

from agreebound.judge.agreement import HumanAgreement, human_agreement, judge_votes, labels_index, vote_counts
from agreebound.judge.counts import LABELS, JudgeCounts
from agreebound.panel.alpha import alpha as alpha_of_counts
from agreebound.panel.counts import PanelCounts, from_rows
from agreebound.panel.result import AlphaResult
from agreebound.judge.measure import CalibrationMeasurement
from agreebound.judge.frames import FrameError, measure_frames
from agreebound.judge.contract import REFERENCE_FIELDS, JudgeCalibrationContract
from agreebound.scored.confidence import Calibration, calibration
from agreebound.core.errors import InputError
from agreebound.core.escape import excerpt

if TYPE_CHECKING:
    import pandas as pd

    from agreebound.judge.contract import JudgeInput


@dataclass(frozen=True)
class JudgeBundle:
    """A validated judge set: the contract, the snapshot header, the frames and their measurement."""

    file: str
    contract: JudgeCalibrationContract
    scope: str
    contract_content_id: str
    rubric_digest: str
    #: the references and observations as read: a frame (a log's), or columns (a bundle's records, the
    #: trio's CSVs: agreebound.judge.columns); :attr:`references` and :attr:`observations` are their frames
    reference_records: Frame
    observation_records: Frame
    measurement: CalibrationMeasurement
    #: The snapshot named another contract content and the user bound it to this contract anyway
    #: (a draft binding, shown as such; never the file's own claim).
    rebound_from: str | None = None
    #: A log whose judge states a probability (AlpacaEval's weighted annotators): that confidence
    #: against the humans' preference (agreebound.scored.confidence); None when it states none.
    confidence: Calibration | None = None
    #: The individual human votes behind the references (case_id, reviewer, vote), when they were read
    #: from one line per vote (agreebound.io.judge_logs.read_references); None otherwise.
    human_votes: "pd.DataFrame | None" = None
    #: the harness whose log this is, as io recognised it ("mt-bench judgments"); "" for the
    #: project's own bundle or tables
    harness: str = ""
    #: The slice columns beside the observations (case_id and one column each, one row per
    #: observation: a log's template, turn, category; a CSV's extra columns), for agreebound.judge.slices;
    #: None when the data has none.
    slices: "pd.DataFrame | None" = None

    @cached_property
    def references(self) -> "pd.DataFrame":
        """The references as a pandas frame (imports pandas)."""
        return as_frame(self.reference_records)

    @cached_property
    def observations(self) -> "pd.DataFrame":
        """The observations as a pandas frame (imports pandas)."""
        return as_frame(self.observation_records)

    @cached_property
    def human_agreement(self) -> HumanAgreement | None:
        """The judge against the individual human votes (Zheng et al. 2023's per-vote agreement, with
        and without ties), the human-human ceiling and their differences, each with a case-clustered
        interval; None without individual votes (or a measurement with no per-case rows)."""
        return human_agreement_of(self.measurement, self.human_votes)

    @cached_property
    def judge_human_alpha(self) -> AlphaResult:
        """Alpha (nominal) between the human reference and the judge's majority in each order: the
        judge read as a rater beside the humans, from the audit's pattern counts (every engine's)."""
        return judge_human_alpha(self.measurement.counts)


class UnboundSnapshot(InputError):
    """The snapshot names another content of this contract (same scope, another content id): the
    dashboard offers to bind it to this contract as a draft. A typed error, so no caller reads the
    message's words to know it."""


def measure_judge(judge: "JudgeInput") -> JudgeBundle:
    """Audit a judge input: the seed's full audit, or (a judge log lacking what it needs) the
    partial audit whose missing gates say why."""
    if judge.log is not None:
        return _measure_log(judge)
    return _measure_full(judge)


def _measure_full(judge: "JudgeInput") -> JudgeBundle:
    """A bundle or the tabular trio: a refused record is an InputError naming its file, row and field."""
    scope, content_id, digest = judge.header
    refs = judge.references if judge.references is not None else columns_of((), REFERENCE_FIELDS)
    try:
        m = measure_frames(judge.contract, refs, judge.observations, scope=scope, contract_content_id=content_id,
                           rubric_digest=digest)
    except FrameError as e:
        frame = e.frame or "snapshot"
        file = judge.files.get(frame, judge.file)
        row = None if e.row is None else judge.locate.get(frame, lambda i: i + 1)(e.row)
        column = e.field if frame != "snapshot" else (f"snapshot.{e.field}" if e.field else None)
        # records are checked before the binding: a snapshot-level refusal of an unbound snapshot is the binding's
        error = UnboundSnapshot if frame == "snapshot" and judge.unbound else InputError
        raise error(file, row, column, str(e), row_label=judge.row_labels.get(frame, "row")) from None
    except ValueError as e:
        error = UnboundSnapshot if judge.unbound else InputError
        raise error(judge.file, None, None, str(e)) from None
    # measured: the header's fields are the snapshot's valid ids (measure_frames checked them)
    return JudgeBundle(judge.file, judge.contract, cast(str, scope), cast(str, content_id), cast(str, digest), refs,
                       judge.observations, m, rebound_from=judge.rebound_from, slices=judge.slices)


def _measure_log(judge: "JudgeInput") -> JudgeBundle:
    """A judge log: the full audit when it has everything the seed needs, else the partial one."""
    from agreebound.io.judge_logs import human_votes_of
    from agreebound.judge.partial import measure_partial

    c, refs, obs, notes, log = judge.contract, judge.references, judge.observations, judge.notes, judge.log
    assert log is not None  # measure_judge's branch for a log
    # the contract's draft (its scope and content id, the log's digest), or a given snapshot's as read
    header = cast("tuple[str, str, str]", judge.header)
    if judge.complete:
        try:
            m = measure_frames(c, refs, obs, scope=header[0], contract_content_id=header[1], rubric_digest=header[2])
            m = replace(m, notes=notes, contract_given=judge.contract_given)
            return JudgeBundle(judge.file, c, header[0], header[1], header[2], refs, obs, m,
                               confidence=stated_preferences(log.observations, refs), human_votes=human_votes_of(refs),
                               harness=log.shape, slices=judge.slices)
        except (FrameError, ValueError) as e:
            notes += (f"the seed's full audit refuses this data ({excerpt(str(e), 160)}): a partial audit follows",)
    m = measure_partial(c, log.observations, refs, judge.lacks, header)
    m = replace(m, notes=notes + m.notes, contract_given=judge.contract_given)
    return JudgeBundle(judge.file, c, header[0], header[1], header[2], refs if refs is not None else columns_of((), REFERENCE_FIELDS), obs, m,
                       confidence=stated_preferences(log.observations, refs), human_votes=human_votes_of(refs),
                       harness=log.shape, slices=judge.slices)


def stated_preferences(observations: "pd.DataFrame", references: "pd.DataFrame | None") -> Calibration | None:
    """A pairwise judge's stated probability that candidate b is the better (the ``stated`` column of
    a log that has one: AlpacaEval's weighted annotators), one forecast per case (the mean over its
    annotations), against the humans' preference: b = 1, a = 0; a case the humans call a tie has no
    outcome and is left out (counted). None without stated probabilities or two scored cases."""
    if references is None or "stated" not in observations or observations["stated"].isna().all():
        return None
    p = observations.groupby("case_id")["stated"].mean()
    pref = references.set_index("case_id")["preferred_candidate"].reindex(p.index)
    scored = pref.isin(["a", "b"]).to_numpy()
    tie = int((pref == "tie").sum())
    if scored.sum() < 2:
        return None
    return calibration(p.to_numpy()[scored], (pref[scored] == "b").to_numpy(dtype=float), split=tie, unit="cases",
                       left_out="the humans call a tie")


def human_agreement_of(m: CalibrationMeasurement, votes: "pd.DataFrame | None") -> HumanAgreement | None:
    """The judge against individual human votes (agreebound.judge.agreement.human_agreement): the
    judge's one vote per case from the measurement's per-order majorities, the votes counted per
    case, and the audit's reference-not-tie agreements per case beside them. None without votes,
    without per-case rows (an out-of-core measurement) or when the references are unavailable."""
    if votes is None or not len(votes) or m.rows is None or "human_agreement" in m.unavailable:
        return None
    cases = m.cases
    index = {c: i for i, c in enumerate(cases["case_id"])}
    case_index = votes["case_id"].map(index)
    known = case_index.notna().to_numpy() & (labels_index(votes["vote"].tolist()) >= 0)
    humans = vote_counts(case_index.to_numpy()[known].astype(np.int64),
                         labels_index(votes["vote"].to_numpy()[known].tolist()), len(cases))
    judge = judge_votes(labels_index(cases["majority_ab"].tolist()), labels_index(cases["majority_ba"].tolist()))
    decisive = cases["preferred"].isin(["a", "b"]).to_numpy()
    not_tie = (np.where(decisive, cases["agreements"].to_numpy(dtype=np.int64), 0),
               np.where(decisive, cases["observations"].to_numpy(dtype=np.int64), 0))
    return human_agreement(judge, humans, int(votes["reviewer"][known].nunique()), not_tie)


def human_alpha_counts(counts: JudgeCounts) -> PanelCounts:
    """The judge-human alpha's panel counts (nominal): each case a unit of the human reference and
    the judge's majority in each order, from the pattern counts."""
    units: dict[int, int] = {}
    pairs: dict[tuple[int, int, int], int] = {}
    totals = [0, 0, 0]
    raters: dict[tuple[str, int], int] = {}
    for pattern, n in counts.patterns.items():
        for rater, v in zip(("human", "judge ab", "judge ba"), pattern):
            if v >= 0:
                raters[(rater, v)] = raters.get((rater, v), 0) + n
        values = [v for v in pattern if v >= 0]
        m = len(values)
        units[m] = units.get(m, 0) + n
        hist = np.bincount(values, minlength=3) if values else np.zeros(3, dtype=np.int64)
        for c in range(3):
            totals[c] += int(hist[c]) * n
            for k in range(3):
                p = int(hist[c]) * int(hist[k]) - (int(hist[c]) if c == k else 0)
                if p and m > 1:
                    pairs[(m, c, k)] = pairs.get((m, c, k), 0) + p * n
    return from_rows("judge-human", "label", LABELS, units, [(m, c, k, n) for (m, c, k), n in pairs.items()],
                     totals, [(r, c, n) for (r, c), n in raters.items()])


def judge_human_alpha(counts: JudgeCounts) -> AlphaResult:
    """The judge-human alpha of an audit's counts (in a partial audit, over the cases with a human
    reference: the counts' reference facts are theirs)."""
    return alpha_of_counts(human_alpha_counts(counts), "nominal")
