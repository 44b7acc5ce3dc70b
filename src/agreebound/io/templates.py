"""A template of every input, built by the same code that reads them (tests/io/test_templates.py
parses each one and checks what it gives). The Formats & help page offers each as a download.

The panel templates hold Krippendorff's (2011) reliability data (published alpha: nominal
113/152, interval 951/1120); the judge templates hold the seed's illustrative snapshot (it passes
its contract), so a template that loads also shows a known result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT, JudgeCalibrationContract, snapshot_frames
from agreebound.io.judge_logs import LogMapping
from agreebound.io.mapping import Mapping
from agreebound.core.thresholds import DEFAULT

K2011: list[list[int | None]] = [
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, 3, None, None],
]
RATERS = ("human-lead", "detector-a", "detector-b", "detector-c")
UNITS = tuple(f"item-{i + 1:02d}" for i in range(len(K2011)))


@dataclass(frozen=True)
class Template:
    key: str
    title: str
    file_name: str
    mime: str
    what: str  # one line: what it is, and where it goes
    build: Callable[[], str]


def ratings_wide() -> str:
    rows = ["unit," + ",".join(RATERS)]
    rows += [u + "," + ",".join("" if v is None else str(v) for v in r) for u, r in zip(UNITS, K2011)]
    return "\n".join(rows) + "\n"


def ratings_long() -> str:
    rows = ["dimension,unit,rater,value"]
    rows += [f"severity,{u},{rater},{v}" for u, r in zip(UNITS, K2011) for rater, v in zip(RATERS, r) if v is not None]
    return "\n".join(rows) + "\n"


def ratings_transposed() -> str:
    rows = ["rater," + ",".join(UNITS)]
    rows += [rater + "," + ",".join("" if r[j] is None else str(r[j]) for r in K2011) for j, rater in enumerate(RATERS)]
    return "\n".join(rows) + "\n"


def rates() -> str:
    """Each detector's positives among the items it rated, per dimension (here: severity >= 3)."""
    rows = ["detector,positives,total,dimension"]
    for j, rater in enumerate(RATERS):
        if rater.startswith("detector"):
            values = [v for r in K2011 if (v := r[j]) is not None]
            rows.append(f"{rater},{sum(v >= 3 for v in values)},{len(values)},severity")
    return "\n".join(rows) + "\n"


def thresholds_toml() -> str:
    p = DEFAULT.panel
    return (
        "# Agreebound thresholds: alpha floor and spread cap in permil; judge thresholds in basis points.\n"
        "[panel]\n"
        f"alpha_floor_permil = {p.alpha_floor_permil}\n"
        f"ratio_cap_permil = {p.ratio_cap_permil}\n"
        "\n"
        "# Optional: a [calibration] table makes a draft of each judge contract under these thresholds.\n"
        "# [calibration]\n"
        + "".join(f"# {k} = {v}\n" for k, v in _calibration_fields().items())
        + "\n"
        "# Optional presets, offered in the dashboard's sidebar and with --preset.\n"
        "[presets.exploratory]\n"
        "panel = { alpha_floor_permil = 400, ratio_cap_permil = 4000 }\n"
    )


def _calibration_fields() -> dict[str, int]:
    c = ILLUSTRATIVE_CONTRACT
    return {k: getattr(c, k) for k in ("minimum_reviewers", "minimum_human_agreement_bps", "maximum_position_flip_bps",
                                       "maximum_repeat_variance_bps", "maximum_verbosity_bias_bps",
                                       "maximum_self_preference_bps")}


def thresholds_json() -> str:
    return DEFAULT.to_json()


def _header() -> dict[str, str]:
    s = ILLUSTRATIVE_SNAPSHOT
    return {"scope": s.scope, "contract_content_id": s.contract_content_id, "rubric_digest": s.rubric_digest}


def contract_json(contract: JudgeCalibrationContract = ILLUSTRATIVE_CONTRACT, header: dict[str, str] | None = None) -> str:
    """The tabular trio's contract file: the contract, and the snapshot's header bound to it."""
    return json.dumps({"contract": contract.to_dict(), "snapshot": header or _header()}, indent=2) + "\n"


def references_csv() -> str:
    refs, _ = snapshot_frames(ILLUSTRATIVE_SNAPSHOT)
    refs = refs.copy()
    refs["reviewer_ids"] = [";".join(r) for r in refs["reviewer_ids"]]
    refs["adjudicated"] = refs["adjudicated"].map({True: "true", False: "false"})
    return refs.to_csv(index=False)


def observations_csv() -> str:
    _, obs = snapshot_frames(ILLUSTRATIVE_SNAPSHOT)
    return obs.to_csv(index=False)


def observations_jsonl() -> str:
    """A judge log in the observation fields (what a harness can write directly)."""
    _, obs = snapshot_frames(ILLUSTRATIVE_SNAPSHOT)
    return "".join(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}) + "\n"
                   for r in obs.to_dict("records"))


def bundle() -> str:
    from agreebound.io.judge_inputs import bundle_json

    refs, obs = snapshot_frames(ILLUSTRATIVE_SNAPSHOT)
    return bundle_json(ILLUSTRATIVE_CONTRACT, _header(), refs, obs)


def mapping_wide() -> str:
    return Mapping("wide", unit=("unit",), humans=("human-lead",), level="ordinal").to_json()


def mapping_long() -> str:
    return Mapping("long", unit=("unit",), rater="rater", value="value", dimension="dimension",
                   humans=("human-lead",), level="ordinal").to_json()


def mapping_transposed() -> str:
    return Mapping("transposed", rater="rater", humans=("human-lead",), level="ordinal").to_json()


def log_mapping() -> str:
    """For a harness whose records say ``{"qid", "shown_first": "A"|"B", "sample", "choice":
    "first"|"second"|"same", "len_a", "len_b", "gen_a", "gen_b", "model"}``."""
    return LogMapping(
        {"case_id": "qid", "order": "shown_first", "repetition": "sample", "selected_candidate": "choice",
         "candidate_a_tokens": "len_a", "candidate_b_tokens": "len_b", "candidate_a_generator": "gen_a",
         "candidate_b_generator": "gen_b", "judge_generator": "model"},
        {"order": {"A": "ab", "B": "ba"}, "selected_candidate": {"first": "a", "second": "b", "same": "tie"}},
    ).to_json()


CSV, JSON, TOML, JSONL = "text/csv", "application/json", "application/toml", "application/jsonl"
TEMPLATES: tuple[Template, ...] = (
    Template("ratings_wide", "Ratings, wide", "ratings-wide.csv", CSV,
             "one row per unit, a column per rater; empty = missing (Panel page, agreebound panel)", ratings_wide),
    Template("ratings_long", "Ratings, long", "ratings-long.csv", CSV,
             "one row per rating: dimension (optional), unit, rater, value", ratings_long),
    Template("ratings_transposed", "Ratings, raters x units", "ratings-raters-by-units.csv", CSV,
             "one row per rater, a column per unit (K-Alpha, the krippendorff package)", ratings_transposed),
    Template("rates", "Detector rates", "detector-rates.csv", CSV,
             "each detector's positives and total per dimension (Panel page, --rates)", rates),
    Template("thresholds_toml", "Thresholds (TOML)", "thresholds.toml", TOML,
             "the panel gate, an optional judge draft, presets (sidebar, --thresholds)", thresholds_toml),
    Template("thresholds_json", "Thresholds (JSON)", "thresholds.json", JSON,
             "the same as JSON (what the what-if page downloads)", thresholds_json),
    Template("contract", "Judge contract", "contract.json", JSON,
             "the trio's contract and snapshot header (Judge page, calibrate CONTRACT --references --observations)",
             contract_json),
    Template("references", "Human references", "references.csv", CSV,
             "one row per case: preferred candidate, reviewers (';'-joined), adjudicated", references_csv),
    Template("observations", "Judge observations", "observations.csv", CSV,
             "one row per judge verdict: case, order, repetition, a/b/tie, lengths, generators", observations_csv),
    Template("observations_jsonl", "Judge log (JSON Lines)", "judge-log.jsonl", JSONL,
             "the observations as a log a harness can write (Judge page, calibrate LOG.jsonl)", observations_jsonl),
    Template("bundle", "Judge bundle", "judge-bundle.json", JSON,
             "contract and snapshot with references and observations in one file", bundle),
    Template("mapping_wide", "Mapping: wide", "mapping-wide.json", JSON,
             "which column is which, for a wide file (panel --mapping, the preview's upload)", mapping_wide),
    Template("mapping_long", "Mapping: long", "mapping-long.json", JSON,
             "the same for a long file, with a dimension column", mapping_long),
    Template("mapping_transposed", "Mapping: raters x units", "mapping-raters-by-units.json", JSON,
             "the same for a file with one row per rater", mapping_transposed),
    Template("log_mapping", "Mapping: judge log", "judge-log-mapping.json", JSON,
             "a harness's own fields and values -> observation fields (calibrate LOG --mapping)", log_mapping),
)
BY_KEY = {t.key: t for t in TEMPLATES}

