"""Regenerate every file in sample_data/ deterministically: python sample_data/make_samples.py

The detector panel mirrors the ruler the panel seed cites: detectors disagree 3.9x on violence,
3.1x on insult and 1.45x on sexual content over the same corpus; alpha (detectors + a human) is
about 0.24 for violence and 0.43 for insult, and substantial for sexual.  With the default
thresholds (alpha >= 0.600, spread <= 2.0x) that reads REPORT_ONLY, REPORT_ONLY, ENFORCE.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd

from agreebound.judge.contract import ILLUSTRATIVE_CONTRACT, ILLUSTRATIVE_SNAPSHOT, snapshot_frames
from agreebound.io.judge_inputs import bundle_json
from agreebound.panel.alpha import krippendorff_alpha
from agreebound.app.synthetic import JudgeBehaviour, ScoredJudge, binary_panel, judge_frames, scored_frame

HERE = Path(__file__).resolve().parent
ITEMS = 600
DIMENSIONS = {
    # dimension: (positives per detector over the same 600 items, target alpha)
    "violence": ({"detector-lexicon": 40, "detector-classifier": 90, "detector-llm": 156}, 0.24),
    "insult": ({"detector-lexicon": 50, "detector-classifier": 100, "detector-llm": 155}, 0.43),
    "sexual": ({"detector-lexicon": 100, "detector-classifier": 120, "detector-llm": 145}, 0.78),
}


def closest_panel(positives: dict[str, int], target: float) -> pd.DataFrame:
    best, best_gap = None, 9.0
    for seed in range(12):
        frame = binary_panel(ITEMS, positives, target, seed=seed)
        value = krippendorff_alpha(frame.drop(columns="unit").astype("float64").to_numpy()).value
        gap = abs(float(value) - target)
        if gap < best_gap:
            best, best_gap = frame, gap
    return best


def detector_panel() -> pd.DataFrame:
    long_parts = []
    for dim, (positives, target) in DIMENSIONS.items():
        wide = closest_panel(positives, target)
        long = wide.melt(id_vars="unit", var_name="rater", value_name="value").dropna(subset=["value"])
        long.insert(0, "dimension", dim)
        long_parts.append(long)
    out = pd.concat(long_parts, ignore_index=True)
    out["value"] = out["value"].astype("int64")
    return out


def main() -> None:
    panel = detector_panel()
    panel.to_csv(HERE / "detector_panel.csv", index=False)
    rates = (panel[panel["rater"].str.startswith("detector")]
             .groupby(["dimension", "rater"], sort=False)["value"].agg(positives="sum", total="count").reset_index()
             .rename(columns={"rater": "detector"}))
    rates[["detector", "positives", "total", "dimension"]].to_csv(HERE / "detector_rates.csv", index=False)

    single = binary_panel(ITEMS, {"detector-solo": 120}, 0.9, seed=3)
    single.to_csv(HERE / "single_detector.csv", index=False)

    k2011 = [
        [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
        [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, 3, None, None],
    ]
    frame = pd.DataFrame(k2011, columns=["observer-a", "observer-b", "observer-c", "observer-d"], dtype="Int64")
    frame.insert(0, "unit", [f"unit-{i + 1:02d}" for i in range(len(k2011))])
    frame.to_csv(HERE / "krippendorff_2011.csv", index=False, na_rep="NA")

    refs, obs = snapshot_frames(ILLUSTRATIVE_SNAPSHOT)
    header = {"scope": ILLUSTRATIVE_SNAPSHOT.scope, "contract_content_id": ILLUSTRATIVE_SNAPSHOT.contract_content_id,
              "rubric_digest": ILLUSTRATIVE_SNAPSHOT.rubric_digest}
    (HERE / "judge_illustrative.json").write_text(bundle_json(ILLUSTRATIVE_CONTRACT, header, refs, obs))

    contract = replace(ILLUSTRATIVE_CONTRACT, version="judge-calibration-v2", scope="support-answer-comparison",
                       repetitions_per_order=3, minimum_cases=200)
    behaviour = JudgeBehaviour(accuracy=0.9, position_bias=0.12, noise=0.01, verbosity_bias=0.35,
                               self_preference=0.45, self_share=0.25, tie_share=0.1)
    contract, refs, obs, header = judge_frames(240, 3, behaviour, seed=11, contract=contract,
                                               rubric=b"support-rubric-v2")
    (HERE / "judge_failing.json").write_text(bundle_json(contract, header, refs, obs))
    (HERE / "judge_failing_contract.json").write_text(
        json.dumps({"contract": asdict(contract), "snapshot": header}, indent=2) + "\n")
    refs_csv = refs.copy()
    refs_csv["reviewer_ids"] = [";".join(r) for r in refs_csv["reviewer_ids"]]
    refs_csv["adjudicated"] = refs_csv["adjudicated"].map({True: "true", False: "false"})
    refs_csv.to_csv(HERE / "judge_failing_references.csv", index=False)
    obs.to_csv(HERE / "judge_failing_observations.csv", index=False)

    (HERE / "thresholds.toml").write_text(THRESHOLDS)
    graded_judge()


def graded_judge() -> None:
    """graded_judge.csv: a graded judge log (a scores table on a 1-5 scale), synthetic with planted
    behaviour: 120 items scored by 3 humans (noise 0.5 points), "judge-model" exchangeable with them
    (the same noise, no bias) and "judge-b" twice as noisy (1.0 points). With the default thresholds
    judge-model passes both gates and judge-b fails both, so the log's decision is FAIL."""
    frame = scored_frame([ScoredJudge("judge-model"), ScoredJudge("judge-b", noise=1.0)], 120, 3, seed=3)
    frame = frame.drop(columns=["line", "confidence"])  # no judge stated a confidence
    frame["score"] = frame["score"].astype("int64")
    frame["length"] = frame["length"].astype("int64")
    frame.to_csv(HERE / "graded_judge.csv", index=False)
    passfail_judge()


def passfail_judge() -> None:
    """passfail_judge.csv: a pass/fail judge log (scores 1 = pass, 0 = fail) with the judge's stated
    probability of pass, synthetic with planted behaviour: 300 items, 3 humans (noise 0.5), the
    judge a little less noisy (0.4) and its stated probability a gentle logistic of the item's
    quality (slope 1, log-odds doubled), flatter than the humans' verdicts: miscalibrated (ECE about
    0.13), which an isotonic map fitted on half the items mostly corrects on the other half."""
    judge = ScoredJudge("judge-model", noise=0.4, confidence_slope=1.0, overconfidence=2.0)
    frame = scored_frame([judge], 300, 3, scale=(0, 1), seed=6).drop(columns=["line"])
    frame["score"] = frame["score"].astype("int64")
    frame["length"] = frame["length"].astype("int64")
    frame.to_csv(HERE / "passfail_judge.csv", index=False)


THRESHOLDS = """\
# Agreebound thresholds: the data every verdict is decided against.
# panel: Krippendorff alpha floor and detector spread cap, both in permil (the seed's defaults:
# 600 = Krippendorff's 'substantial' 0.6; 2000 = a 2.0x max/min spread across detectors).
# The judge calibration thresholds default to each contract's own; a [calibration] table here
# makes a draft contract (with its own content id) shown beside the bound one.

[panel]
alpha_floor_permil = 600
ratio_cap_permil = 2000

# Built-in presets (seed-defaults, krippendorff-tentative, krippendorff-reliable) are always
# offered; a file adds its own.

[presets.exploratory]
# Looser screening for exploratory dashboards: never for enforcement.
panel = { alpha_floor_permil = 400, ratio_cap_permil = 4000 }

[presets.release-gate]
# A stricter gate for release decisions: tighter spread, and a stricter judge contract draft.
panel = { alpha_floor_permil = 700, ratio_cap_permil = 1500 }
calibration = { minimum_reviewers = 2, minimum_human_agreement_bps = 9000, maximum_position_flip_bps = 300, maximum_repeat_variance_bps = 300, maximum_verbosity_bias_bps = 300, maximum_self_preference_bps = 300 }
"""


if __name__ == "__main__":
    main()
