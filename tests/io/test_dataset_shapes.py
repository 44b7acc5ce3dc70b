"""Annotation data sets as users keep them (issue 51): Hugging Face ``datasets`` rows with list
columns of annotators and labels (JSON Lines, JSON, Parquet, an Arrow file, a ``save_to_disk``
folder, a DatasetDict of one split) and Argilla v2 exports (nested records and flattened columns)
are read into long ratings, and give the true alpha of a table whose alpha is known: Krippendorff
(2011)'s reliability data, nominal alpha 113/152 = 0.743, the same exact fraction as the plain long
CSV of the same ratings and the ``krippendorff`` package's value. The fixtures are written by the
``datasets`` package's own writers (the reader needs only pyarrow)."""

from __future__ import annotations

import csv
import json
import os
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import datasets  # noqa: E402 - after the offline switches: the fixtures never reach the Hub

from tests.support.cli import process

datasets.disable_progress_bars()

K2011 = Path(__file__).resolve().parents[2] / "sample_data" / "krippendorff_2011.csv"
NAMES = ("one", "two", "three", "four", "five")


def _k2011() -> dict[str, dict[str, int]]:
    """unit -> rater -> value of Krippendorff (2011)'s table (NA left out)."""
    with open(K2011, newline="") as f:
        rows = list(csv.reader(f))
    raters = rows[0][1:]
    return {r[0]: {raters[j]: int(v) for j, v in enumerate(r[1:]) if v != "NA"} for r in rows[1:]}


TABLE = _k2011()


def _rating(v: int) -> int:
    """A second question's answer: the table's values capped at 3 (an alpha of its own)."""
    return min(v, 3)


def _cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    proc = process(*args, timeout=180, stdin=stdin, text=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _report(path: Path | str, *more: str) -> dict:
    code, out, err = _cli("panel", str(path), "--json", *more)
    assert code in (0, 1, 2) and err == "", err
    return json.loads(out)


def _dims(report: dict) -> dict[str, dict]:
    return {d["dimension"]: d for d in report["panel"]["dimensions"]}


def _long_csv(path: Path, dims: dict[str, callable]) -> Path:
    """The same ratings as a plain long CSV (the reference reading), one dimension per question."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["unit", "rater", "value"] + (["dimension"] if len(dims) > 1 else []))
        for d, value in dims.items():
            for unit, by in TABLE.items():
                for rater, v in by.items():
                    w.writerow([unit, rater, value(v)] + ([d] if len(dims) > 1 else []))
    return path


def _same_alpha(got: dict, want: dict) -> None:
    """The same measurement: alpha's exact fraction, its disagreements, pairable values, units, ratings."""
    for key in ("exact", "observed_disagreement", "expected_disagreement", "pairable", "permil"):
        assert got["alpha"][key] == want["alpha"][key], key
    assert (got["units"], got["ratings"]) == (want["units"], want["ratings"])


def _krippendorff(value=lambda v: v) -> float:
    import krippendorff

    raters = sorted({r for by in TABLE.values() for r in by})
    data = np.array([[value(TABLE[u][r]) if r in TABLE[u] else np.nan for u in TABLE] for r in raters], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


# --- Hugging Face datasets rows with list columns --------------------------------------------------


def _hf_rows(names: bool = False, second: bool = False) -> list[dict]:
    rows = []
    for unit, by in TABLE.items():
        row = {"id": unit, "text": f"the text of {unit}", "annotators": list(by),
               "labels": [v - 1 if names else v for v in by.values()]}
        if second:
            row["ratings"] = [_rating(v) for v in by.values()]
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """The long CSV's reports: one question, the same with label names, and two questions."""
    tmp = tmp_path_factory.mktemp("reference")
    return {"plain": _dims(_report(_long_csv(tmp / "plain.csv", {"all": lambda v: v})))["all"],
            "names": _dims(_report(_long_csv(tmp / "names.csv", {"all": lambda v: NAMES[v - 1]})))["all"],
            "two": _dims(_report(_long_csv(tmp / "two.csv", {"labels": lambda v: v, "ratings": _rating})))}


def _write_hf(ds, tmp: Path, how: str) -> Path:
    if how == "jsonl":
        ds.to_json(tmp / "rows.jsonl")
        return tmp / "rows.jsonl"
    if how == "json":
        ds.to_json(tmp / "rows.json", lines=False)
        return tmp / "rows.json"
    if how == "parquet":
        ds.to_parquet(tmp / "rows.parquet")
        return tmp / "rows.parquet"
    if how == "save_to_disk":
        ds.save_to_disk(str(tmp / "saved"))
        return tmp / "saved"
    if how == "arrow":
        ds.save_to_disk(str(tmp / "saved"))
        return next((tmp / "saved").glob("*.arrow"))
    if how == "datasetdict":
        datasets.DatasetDict({"train": ds}).save_to_disk(str(tmp / "dict"))
        return tmp / "dict"
    raise AssertionError(how)


HF_FORMATS = ("jsonl", "json", "parquet", "save_to_disk", "arrow", "datasetdict")


@pytest.mark.parametrize("how", HF_FORMATS)
def test_list_columns_of_annotators_and_labels_give_the_true_alpha(tmp_path, reference, how):
    path = _write_hf(datasets.Dataset.from_list(_hf_rows()), tmp_path, how)
    report = _report(path)
    got = _dims(report)["all"]
    _same_alpha(got, reference["plain"])
    assert got["alpha"]["exact"] == "113/152"
    assert float(Fraction(got["alpha"]["exact"])) == pytest.approx(_krippendorff(), abs=1e-12)
    assert report["read"]["format"] == "dataset-lists"
    assert report["read"]["mapping"]["unit"] == ["id"] and report["read"]["mapping"]["rater"] == "annotators"
    assert got["notices"][-2:] == ["read as a data set with list columns: each rater in 'annotators' paired with the "
                                   "label at the same place in 'labels', 41 ratings", "units: the 'id' field"]
    if how in ("save_to_disk", "datasetdict"):
        split = ", its only split 'train'" if how == "datasetdict" else ""
        assert got["notices"][0] == f"read as a Hugging Face dataset saved with save_to_disk{split}: 1 Arrow file, 12 rows"


def test_several_label_lists_beside_one_annotator_list_are_dimensions(tmp_path, reference):
    path = _write_hf(datasets.Dataset.from_list(_hf_rows(second=True)), tmp_path, "parquet")
    got = _dims(_report(path))
    assert set(got) == {"labels", "ratings"}
    for d in got:
        _same_alpha(got[d], reference["two"][d])
    assert got["labels"]["alpha"]["exact"] == "113/152" and got["ratings"]["alpha"]["exact"] != "113/152"
    assert float(Fraction(got["ratings"]["alpha"]["exact"])) == pytest.approx(_krippendorff(_rating), abs=1e-12)


@pytest.mark.parametrize("how", ("parquet", "save_to_disk"))
def test_class_label_codes_are_read_as_their_names(tmp_path, reference, how):
    seq = getattr(datasets, "List", None) or datasets.Sequence
    features = datasets.Features({"id": datasets.Value("string"), "text": datasets.Value("string"),
                                  "annotators": seq(datasets.Value("string")),
                                  "labels": seq(datasets.ClassLabel(names=list(NAMES)))})
    path = _write_hf(datasets.Dataset.from_list(_hf_rows(names=True), features=features), tmp_path, how)
    got = _dims(_report(path))["all"]
    _same_alpha(got, reference["names"])
    assert {c["category"] for c in got["categories"]["listed"]} == set(NAMES)
    assert "'labels' holds class-label codes: read as their names (one, two, three, four, five)" in got["notices"]


def test_a_datasetdict_of_several_splits_names_them_and_reads_none(tmp_path):
    ds = datasets.Dataset.from_list(_hf_rows())
    datasets.DatasetDict({"train": ds, "test": ds}).save_to_disk(str(tmp_path / "dict"))
    code, out, err = _cli("panel", str(tmp_path / "dict"))
    assert (code, out) == (3, "")
    assert err == (f"dict: a DatasetDict with 2 splits (train, test): give one split's folder, e.g. "
                   f"{tmp_path / 'dict' / 'train'}\n")


def test_lists_that_do_not_pair_are_refused_at_their_record(tmp_path):
    rows = _hf_rows()
    rows[3]["labels"] = rows[3]["labels"][:-1]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _cli("panel", str(path)) == (3, "", "rows.jsonl, line 4, column 'labels': 3 labels beside 4 raters in "
                                        "'annotators'; the lists pair a rater with a label by position\n")


def test_a_list_of_labels_without_its_raters_is_still_refused(tmp_path):
    path = tmp_path / "labels_only.jsonl"
    path.write_text("".join(json.dumps({"id": r["id"], "labels": r["labels"]}) + "\n" for r in _hf_rows()))
    code, out, err = _cli("panel", str(path))
    assert (code, out) == (3, "")
    assert err.startswith("labels_only.jsonl, ") and "'labels'" in err and "Traceback" not in err


# --- Argilla v2 exports --------------------------------------------------------------------------

LABELS = ("a", "b", "c", "d", "e")


def _argilla_responses(unit: str, by: dict[str, int]) -> dict[str, list[tuple[str, object, str]]]:
    """Per question, (user, value, status): the table's ratings submitted, plus what must be left
    out: drafts and discarded responses from other users, and a multi-label question."""
    label = [(u, LABELS[v - 1], "submitted") for u, v in by.items()]
    rating = [(u, _rating(v), "submitted") for u, v in by.items()]
    i = int(unit.split("-")[1])
    if i % 3 == 0:
        label.append(("observer-x", "e", "draft"))
    if i % 4 == 0:
        rating.append(("observer-y", 1, "discarded"))
    topics = [(u, ["t1", "t2"] if v % 2 else ["t1"], "submitted") for u, v in by.items()]
    return {"label": label, "rating": rating, "topics": topics}


def _argilla_nested() -> list[dict]:
    out = []
    for k, (unit, by) in enumerate(TABLE.items()):
        rs = _argilla_responses(unit, by)
        out.append({"id": unit, "fields": {"text": f"the text of {unit}"}, "metadata": {"source": "k2011"},
                    "suggestions": {"label": {"value": "a", "score": 0.5, "agent": "model-1"}} if k % 2 else {},
                    "responses": {q: [{"value": v, "user_id": u, "status": s} for u, v, s in r] for q, r in rs.items()},
                    "vectors": {}, "status": "completed", "_server_id": f"00000000-0000-0000-0000-{k:012d}"})
    return out


def _argilla_flat() -> list[dict]:
    out = []
    for k, (unit, by) in enumerate(TABLE.items()):
        rec = {"id": unit, "status": "completed", "_server_id": f"00000000-0000-0000-0000-{k:012d}",
               "text": f"the text of {unit}", "source": "k2011",
               "label.suggestion": "a" if k % 2 else None, "label.suggestion.score": 0.5 if k % 2 else None,
               "label.suggestion.agent": "model-1" if k % 2 else None}
        for q, r in _argilla_responses(unit, by).items():
            rec[f"{q}.responses"] = [v for _, v, _ in r]
            rec[f"{q}.responses.users"] = [u for u, _, _ in r]
            rec[f"{q}.responses.status"] = [s for _, _, s in r]
        out.append(rec)
    return out


@pytest.fixture(scope="module")
def argilla_reference(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("argilla")
    return _dims(_report(_long_csv(tmp / "questions.csv", {"label": lambda v: LABELS[v - 1], "rating": _rating})))


def _write_argilla(tmp: Path, how: str) -> Path:
    if how == "nested.json":
        (tmp / "records.json").write_text(json.dumps(_argilla_nested()))
        return tmp / "records.json"
    if how == "nested.jsonl":
        (tmp / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _argilla_nested()))
        return tmp / "records.jsonl"
    if how == "flat.jsonl":
        (tmp / "flat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _argilla_flat()))
        return tmp / "flat.jsonl"
    ds = datasets.Dataset.from_list(_argilla_flat())
    if how == "flat.parquet":
        ds.to_parquet(tmp / "flat.parquet")
        return tmp / "flat.parquet"
    if how == "flat.save_to_disk":
        ds.save_to_disk(str(tmp / "argilla_saved"))
        return tmp / "argilla_saved"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ("nested.json", "nested.jsonl", "flat.jsonl", "flat.parquet", "flat.save_to_disk"))
def test_argilla_exports_give_the_true_alpha_of_each_question(tmp_path, argilla_reference, how):
    report = _report(_write_argilla(tmp_path, how))
    got = _dims(report)
    assert set(got) == {"label", "rating"}  # the multi-label question is left out, and said so
    for q in got:
        _same_alpha(got[q], argilla_reference[q])
    assert got["label"]["alpha"]["exact"] == "113/152"
    assert float(Fraction(got["rating"]["alpha"]["exact"])) == pytest.approx(_krippendorff(_rating), abs=1e-12)
    form = "nested records" if how.startswith("nested") else "flattened columns"
    assert report["read"]["format"] == ("argilla" if how.startswith("nested") else "argilla-flat")
    unit = "record" if how == "nested.json" else "line" if how.endswith("jsonl") else "row"
    assert report["read"]["rows"]["label"] == unit
    notes = got["label"]["notices"]
    assert (f"read as an Argilla export ({form}): 82 submitted responses from 12 records (record id = unit, user = "
            "rater, question = dimension: label, rating)") in notes
    assert ("left out: 3 discarded, 4 draft responses (only submitted responses are ratings; drafts and discarded "
            "responses are not)") in notes
    assert ("question 'topics' left out (41 responses): its answers are lists (multi-label, ranking or spans), and a "
            "rating here is one label") in notes
    assert "6 suggestions (pre-annotations) left out: suggestions are not raters" in notes


def test_argilla_responses_without_a_status_are_read_as_submitted_and_counted(tmp_path, argilla_reference):
    records = _argilla_nested()
    for r in records:  # an older export: no status on responses, drafts not exported
        r["responses"] = {q: [{k: v for k, v in x.items() if k != "status"} for x in rs if x["status"] == "submitted"]
                          for q, rs in r["responses"].items() if q != "topics"}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(records))
    got = _dims(_report(path))
    for q in got:
        _same_alpha(got[q], argilla_reference[q])
    assert "82 responses carry no status (an older export): read as submitted" in got["label"]["notices"]


def test_an_argilla_export_with_nothing_submitted_says_what_was_left_out(tmp_path):
    records = _argilla_nested()
    for r in records:
        for rs in r["responses"].values():
            for x in rs:
                x["status"] = "draft" if x["user_id"] != "observer-a" else "discarded"
    path = tmp_path / "drafts.json"
    path.write_text(json.dumps(records))
    code, out, err = _cli("panel", str(path))
    assert (code, out) == (3, "")
    assert err == ("drafts.json: an Argilla export with no submitted responses to read (27 discarded, 103 draft "
                   "responses left out: only submitted responses are ratings)\n")


def test_a_parquet_list_column_of_no_known_shape_is_refused_naming_it(tmp_path):
    datasets.Dataset.from_list([{"id": r["id"], "votes": r["labels"]} for r in _hf_rows()]).to_parquet(tmp_path / "v.parquet")
    assert _cli("panel", str(tmp_path / "v.parquet")) == (
        3, "", "v.parquet, column 'votes': a list column (list<element: int64>): a cell holds one label. A list of "
               "raters beside a list of their labels is read when the columns are named as docs/formats.md lists "
               "(e.g. annotators and labels)\n")


# --- Arrow IPC compression bombs --------------------------------------------------------------------
# Small files made at test time (nothing large is committed) that decode to gigabytes: each is refused
# from its record batches' metadata (a compressed buffer states its decoded length first), before one
# batch is decompressed: exit 3, one line naming the file and the limit, within bounds.

from tests.support.peak import run_cli  # noqa: E402

BOMB_PEAK_MIB = 400
BOMB_SECONDS = 10
DECODED_LIMIT = "the limit is 2,000,000,000 bytes"  # agreebound.core.limits.MAX_PARQUET_UNCOMPRESSED_BYTES


def _zero_batch(mib: int):
    """A record batch of ``mib`` MiB of zero bytes in 64 binary cells; the zeros are never touched
    (a calloc'd buffer), so making it costs no memory, and zstd packs each 256 MiB into ~8 KB."""
    import pyarrow as pa

    size = mib << 20
    offsets = pa.array(range(0, size + 1, size // 64), type=pa.int64()).buffers()[1]
    cells = pa.Array.from_buffers(pa.large_binary(), 64, [None, offsets, pa.py_buffer(bytes(size))])
    return pa.record_batch({"id": pa.array(range(64)), "blob": cells})


def _write_ipc(path: Path, batches: list, fmt: str) -> Path:
    import pyarrow.ipc as ipc

    options = ipc.IpcWriteOptions(compression="zstd")
    with (ipc.new_file if fmt == "file" else ipc.new_stream)(str(path), batches[0].schema, options=options) as w:
        for b in batches:
            w.write_batch(b)
    return path


def _one_huge_batch(path: Path) -> Path:
    """One record batch whose compressed buffer claims 3 GB decoded (its 8 MiB of zeros' stated
    length rewritten): it must be refused from the claim, never decoded whole."""
    import struct

    import pyarrow as pa

    _write_ipc(path, [pa.record_batch({"n": pa.array(np.zeros(1 << 20, dtype=np.int64))})], "stream")
    data = path.read_bytes()
    stated = struct.pack("<q", 8 << 20)
    assert data.count(stated) == 1
    path.write_bytes(data.replace(stated, struct.pack("<q", 3 * 10**9)))
    return path


@pytest.fixture(scope="module")
def arrow_bombs(tmp_path_factory) -> dict[str, tuple[Path, str, str]]:
    """name -> (what to read, the file the message names, the limit it says)."""
    root = tmp_path_factory.mktemp("arrow_bombs")
    eight = [_zero_batch(256)] * 8  # 8 x 256 MiB = 2 GiB decoded
    stream = _write_ipc(root / "bomb.arrow", eight, "stream")
    saved = root / "saved"
    saved.mkdir()
    (saved / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    stream_copy = saved / "data-00000-of-00001.arrow"
    stream_copy.write_bytes(stream.read_bytes())
    return {
        "stream": (stream, "bomb.arrow", DECODED_LIMIT),
        "file": (_write_ipc(root / "bomb_file.arrow", eight, "file"), "bomb_file.arrow", DECODED_LIMIT),
        "one huge batch": (_one_huge_batch(root / "huge.arrow"), "huge.arrow", DECODED_LIMIT),
        "save_to_disk": (saved, "saved/data-00000-of-00001.arrow",
                         "the limit is 200,000,000 bytes (a save_to_disk folder is read as one input file)"),
    }


def test_the_arrow_bombs_are_small_files_that_decode_past_two_gigabytes(arrow_bombs):
    import pyarrow.ipc as ipc

    for key in ("stream", "file"):
        path = arrow_bombs[key][0]
        assert path.stat().st_size < 200_000, key
        reader = ipc.open_file(str(path)) if key == "file" else ipc.open_stream(str(path))
        first = reader.get_batch(0) if key == "file" else reader.read_next_batch()  # one batch: 256 MiB
        assert first.nbytes > 256 << 20
        assert (reader.num_record_batches if key == "file" else 1 + sum(1 for _ in reader)) == 8


@pytest.mark.parametrize("case", ("stream", "file", "one huge batch", "save_to_disk"))
def test_an_arrow_bomb_is_refused_from_its_metadata_within_bounds(arrow_bombs, case):
    path, named, limit = arrow_bombs[case]
    started = time.monotonic()
    code, out, err, peak = run_cli(["panel", str(path)], timeout=120)
    seconds = time.monotonic() - started
    lines = err.decode().splitlines()
    assert (code, out) == (3, b""), err[-400:]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{named}: the file's record batches decode to ") and lines[0].endswith(limit), lines[0]
    assert peak < BOMB_PEAK_MIB, peak
    assert seconds < BOMB_SECONDS, seconds


def test_arrow_files_within_the_limits_read_as_before(tmp_path):
    """Compressed, dictionary-encoded, several batches, file and stream: the same table back."""
    import pyarrow as pa

    from agreebound.io.arrow_datasets import read_arrow

    table = pa.table({"id": pa.array(range(6)), "label": pa.array(list("xyxyzz")).dictionary_encode(),
                      "raters": pa.array([["a", "b"]] * 6)})
    for fmt in ("file", "stream"):
        path = _write_ipc(tmp_path / f"t.{fmt}", table.to_batches(max_chunksize=2), fmt)
        assert read_arrow(path.name, path.read_bytes()).equals(table)


def test_one_list_type_test_covers_every_arrow_list_type():
    """agreebound.io.tables holds the one test, and the shapes use it: list views are lists too."""
    import pyarrow as pa

    from agreebound.io import dataset_shapes, tables

    assert dataset_shapes.list_type is tables.list_type
    lists = [pa.list_(pa.int64()), pa.large_list(pa.string()), pa.list_(pa.int64(), 2)]
    if hasattr(pa, "list_view"):
        lists += [pa.list_view(pa.int64()), pa.large_list_view(pa.string())]
    assert all(tables.list_type(t) for t in lists)
    assert not any(tables.list_type(t) for t in (pa.string(), pa.int64(), pa.struct([("a", pa.int64())]),
                                                 pa.map_(pa.string(), pa.int64())))


def test_an_arrow_list_view_column_of_no_known_shape_is_refused_as_a_list(tmp_path):
    import pyarrow as pa

    if not hasattr(pa, "list_view"):
        pytest.skip("this pyarrow has no list views")
    table = pa.table({"id": [1, 2], "votes": pa.array([[1, 2], [3]], type=pa.list_view(pa.int64()))})
    path = _write_ipc(tmp_path / "votes.arrow", table.to_batches(), "stream")
    assert _cli("panel", str(path)) == (
        3, "", "votes.arrow, column 'votes': a list column (list_view<element: int64>): a cell holds one label. A list "
               "of raters beside a list of their labels is read when the columns are named as docs/formats.md lists "
               "(e.g. annotators and labels)\n")
