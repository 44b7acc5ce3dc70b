"""Writes tests/data/bad/: one malformed input per file (python tests/data/make_bad_files.py)."""

import json
from pathlib import Path

BAD = Path(__file__).resolve().parent / "bad"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


def bundle(mutate):
    obj = json.loads((SAMPLES / "judge_illustrative.json").read_text())
    mutate(obj)
    return json.dumps(obj, indent=1).encode()


def obs_csv(mutate_line):
    lines = (SAMPLES / "judge_failing_observations.csv").read_text().splitlines()
    lines[3] = mutate_line(lines[3])
    return ("\n".join(lines) + "\n").encode()


def refs_csv(mutate_line):
    lines = (SAMPLES / "judge_failing_references.csv").read_text().splitlines()
    lines[5] = mutate_line(lines[5])
    return ("\n".join(lines) + "\n").encode()


FILES = {
    # rating matrices
    "empty.csv": b"",
    "blank_lines.csv": b"\n\n  \n",
    "header_only.csv": b"unit,rater-a,rater-b\n",
    "duplicate_header.csv": b"unit,rater-a,rater-a\nu1,1,2\n",
    "ragged_long_row.csv": b"unit,rater-a,rater-b\nu1,1,2\nu2,1,2,3\n",
    "ragged_short_row.csv": b"unit,rater-a,rater-b\nu1,1,2\nu2,1\n",
    "binary.csv": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "duplicate_unit.csv": b"unit,rater-a,rater-b\nu1,1,2\nu2,1,1\nu1,2,2\n",
    "empty_unit.csv": b"unit,rater-a,rater-b\nu1,1,2\n,1,2\n",
    "no_raters.csv": b"unit\nu1\nu2\n",
    "unterminated_quote.csv": b'unit,rater-a,rater-b\nu1,"1,2\n',
    "long_duplicate.csv": b"dimension,unit,rater,value\nviolence,u1,det-a,1\nviolence,u2,det-a,0\nviolence,u1,det-a,0\n",
    "long_empty_rater.csv": b"unit,rater,value\nu1,det-a,1\nu1,,0\n",
    "long_labels_interval.csv": b"unit,rater,value\nu1,det-a,1\nu1,det-b,high\nu2,det-a,2\n",
    "garbage.parquet": b"PAR1 this is not really parquet PAR1",
    # detector rates
    "rates_decimal.csv": b"detector,positives,total\ndet-a,1.0,10\n",
    "rates_true.csv": b"detector,positives,total\ndet-a,3,10\ndet-b,4,true\n",
    "rates_space.csv": b"detector,positives,total\ndet-a, 3,10\n",
    "rates_exceed.csv": b"detector,positives,total\ndet-a,11,10\n",
    "rates_zero_total.csv": b"detector,positives,total\ndet-a,0,0\n",
    "rates_negative.csv": b"detector,positives,total\ndet-a,-1,10\n",
    "rates_duplicate.csv": b"detector,positives,total,dimension\ndet-a,1,10,insult\ndet-a,2,10,violence\ndet-a,3,10,insult\n",
    "rates_missing_column.csv": b"detector,positives\ndet-a,1\n",
    # judge bundles (JSON)
    "bundle_syntax.json": b'{\n  "contract": {},\n  "snapshot": {},\n}\n',
    "bundle_nan.json": b'{"contract": NaN, "snapshot": {}}',
    "bundle_missing_snapshot.json": bundle(lambda o: o.pop("snapshot")),
    "bundle_contract_repetitions.json": bundle(lambda o: o["contract"].update(repetitions_per_order=1)),
    "bundle_contract_extra.json": bundle(lambda o: o["contract"].update(owner="me")),
    "bundle_bool_repetition.json": bundle(lambda o: o["snapshot"]["observations"][5].update(repetition=True)),
    "bundle_float_tokens.json": bundle(lambda o: o["snapshot"]["observations"][2].update(candidate_a_tokens=80.0)),
    "bundle_missing_field.json": bundle(lambda o: o["snapshot"]["observations"][7].pop("judge_generator")),
    "bundle_unsorted_reviewers.json": bundle(lambda o: o["snapshot"]["references"][1].update(
        reviewer_ids=["reviewer:quality", "reviewer:policy"])),
    "bundle_unbound.json": bundle(lambda o: o["contract"].update(maximum_position_flip_bps=400)),
    "bundle_missing_repetition.json": bundle(lambda o: o["snapshot"]["observations"].pop(9)),
    "bundle_metadata_changes.json": bundle(lambda o: o["snapshot"]["observations"][6].update(candidate_b_tokens=71)),
    # judge tables (with the sample contract and the other sample table)
    "observations_decimal_repetition.csv": obs_csv(lambda l: l.replace(",ab,3,", ",ab,3.0,")),
    "observations_generator_space.csv": obs_csv(lambda l: l[:-len("judge-v1")] + " judge-v1"),
    "references_adjudicated_yes.csv": refs_csv(lambda l: l.rsplit(",", 1)[0] + ",yes"),
    # thresholds
    "thresholds_syntax.toml": b"[panel]\nalpha_floor_permil = \n",
    "thresholds_float.json": b'{"panel": {"alpha_floor_permil": 0.6}}',
    "thresholds_unknown.toml": b"[panel]\nalpha = 600\n",
    "thresholds_cap.toml": b"[panel]\nratio_cap_permil = 900\n",
}

if __name__ == "__main__":
    BAD.mkdir(exist_ok=True)
    for name, data in FILES.items():
        (BAD / name).write_bytes(data)
    print(f"wrote {len(FILES)} files to {BAD}")
