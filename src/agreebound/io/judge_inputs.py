"""A judge's inputs, read, not measured (agreebound.app.judge_input.measure_judge audits them):
the judge bundle JSON (``{"contract": {...}, "snapshot": {...}}``), the tabular trio (contract
JSON + references CSV + observations CSV), and a judge log (:mod:`agreebound.io.judge_logs`,
:mod:`agreebound.io.scored_logs`) with its references and contract, or a draft of one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Sequence

import numpy as np

from agreebound.judge.columns import Columns, as_frame, columns_of
from agreebound.judge.contract import JudgeInput, OBSERVATION_FIELDS, REFERENCE_FIELDS, JudgeCalibrationContract
from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject, JSONValue
from agreebound.core.thresholds import NET_FIELDS
from agreebound.io.json_toml import read_json

if TYPE_CHECKING:
    import pandas as pd

    from agreebound.core.thresholds import CalibrationThresholds
    from agreebound.io.judge_log_records import JudgeLog


def _contract(name: str, obj: JSONValue, path: str = "contract") -> JudgeCalibrationContract:
    fields = list(JudgeCalibrationContract.__dataclass_fields__)
    required = [f for f in fields if f not in NET_FIELDS]
    if not isinstance(obj, dict):
        raise InputError(name, None, path, "expected an object with the contract's fields " + ", ".join(required))
    missing = [f for f in required if f not in obj]
    extra = [k for k in obj if k not in fields]
    if missing:
        raise InputError(name, None, f"{path}.{missing[0]}", "missing field of the judge calibration contract")
    if extra:
        raise InputError(name, None, f"{path}.{extra[0]}", "unknown field; the contract has " + ", ".join(required)
                         + " (and optionally " + ", ".join(NET_FIELDS) + ")")
    try:
        return JudgeCalibrationContract(**obj)
    except ValueError as e:
        where = str(e).split(" ")[0]
        raise InputError(name, None, where, str(e)) from None


def _header(name: str, snap: JSONValue, path: str = "snapshot") -> tuple[JSONValue, JSONValue, JSONValue]:
    if not isinstance(snap, dict):
        raise InputError(name, None, path, "expected an object with scope, contract_content_id, rubric_digest")
    for key in ("scope", "contract_content_id", "rubric_digest"):
        if key not in snap:
            raise InputError(name, None, f"{path}.{key}", "missing field")
    return snap["scope"], snap["contract_content_id"], snap["rubric_digest"]


def _records_columns(name: str, items: JSONValue, fields: Sequence[str], what: str) -> Columns:
    """JSON records -> columns keeping each value's exact JSON type (agreebound.judge.columns)."""
    if not isinstance(items, list):
        raise InputError(name, None, f"snapshot.{what}", "expected a list of records")
    wanted = set(fields)
    for i, item in enumerate(items):
        if not isinstance(item, dict) or item.keys() != wanted:
            if not isinstance(item, dict):
                raise InputError(name, i + 1, None, f"expected an object with fields {', '.join(fields)}", row_label=what[:-1])
            missing = [f for f in fields if f not in item]
            extra = [k for k in item if k not in wanted]
            col = missing[0] if missing else extra[0]
            raise InputError(name, i + 1, col, "missing field" if missing else "unknown field", row_label=what[:-1])
    return columns_of(items, fields)


def read_judge_bundle(name: str, data: bytes, rebind: bool = False) -> JudgeInput:
    """``{"contract": {...}, "snapshot": {scope, contract_content_id, rubric_digest, references, observations}}``.

    ``rebind``: a snapshot that names another contract content is audited against this contract
    anyway, as a draft binding the result records (the dashboard's "bind to this contract")."""
    try:
        obj = read_json(name, data)
    except InputError as e:
        raise (_unknown_lines(name, data) or _not_json(name, data) or e) from None
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise _not_a_bundle(name, obj)
    contract = _contract(name, obj["contract"])
    snap = obj["snapshot"]
    header = _header(name, snap)
    extra = [k for k in snap if k not in ("scope", "contract_content_id", "rubric_digest", "references", "observations")]
    if extra:
        raise InputError(name, None, f"snapshot.{extra[0]}", "unknown field")
    for key in ("references", "observations"):
        if key not in snap:
            raise InputError(name, None, f"snapshot.{key}", "missing list of records")
    refs = _records_columns(name, snap["references"], REFERENCE_FIELDS, "references")
    obs = _records_columns(name, snap["observations"], OBSERVATION_FIELDS, "observations")
    labels = {"references": "reference", "observations": "observation"}
    rebound_from = None
    if rebind and header[1] != contract.content_id:
        rebound_from, header = str(header[1]), (header[0], contract.content_id, header[2])
    return JudgeInput(name, contract, header, refs, obs, row_labels=labels, rebound_from=rebound_from)


def _not_a_bundle(name: str, obj: JSONValue) -> InputError:
    """JSON that is not a bundle: an empty list, or records or an object of a shape no reader knows,
    said as what it is, not only as a bundle's missing fields."""
    first = obj[0] if isinstance(obj, list) and obj else obj
    if isinstance(obj, list) and not obj:
        return InputError(name, None, None, "an empty list: no judgments to read (a judge log holds a record per "
                          'judgment; a bundle is a JSON object with "contract" and "snapshot")')
    if isinstance(first, dict) and not {"contract", "snapshot"} & set(first):
        fields = _fields_text(first)
        what = "a JSON list of records" if isinstance(obj, list) else "a JSON object"
        return InputError(name, None, None, f"{what} with fields {fields}: neither a judge bundle (\"contract\" and "
                          "\"snapshot\") nor a judge log Agreebound knows (MT-Bench, AlpacaEval, arena-hard, "
                          "inspect_ai, promptfoo, judgekit, judgecal, our observations, or one read through --mapping); "
                          "see docs/formats.md")
    return InputError(name, None, None, 'expected a JSON object with exactly "contract" and "snapshot"')


def _unknown_lines(name: str, data: bytes) -> InputError | None:
    """Valid JSON Lines of a shape no reader knows: said as such, not as "invalid JSON"."""
    lines = [line for line in data[:65536].splitlines() if line.strip()][:2]
    if len(lines) < 2:
        return None
    try:
        first = json.loads(lines[0])
        json.loads(lines[1])
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(first, dict):
        return None
    return InputError(name, None, None, f"JSON Lines with fields {_fields_text(first)}: not a shape Agreebound knows (a judge log "
                      "from MT-Bench, AlpacaEval or our observations, or one read through --mapping); see docs/formats.md")


def _fields_text(record: JSONObject) -> str:
    """A record's first eight field names, as a message lists them."""
    return ", ".join(printable(k, 30) for k in list(record)[:8]) + (", ..." if len(record) > 8 else "")


def _not_json(name: str, data: bytes) -> InputError | None:
    """Text that does not open as JSON (a rating table given to ``calibrate``): said as what it is
    and where each kind of file goes, not as "invalid JSON" at character 1."""
    from agreebound.io.sniff import refuse_gzip

    refuse_gzip(name, data)
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head or head[:1] in (b"{", b"["):
        return None
    return InputError(name, 1, None, "not JSON, and not a judge log or a graded or pass/fail judge's table "
                      "(columns such as item, judge, score): a judge's bundle is a JSON object with \"contract\" and "
                      "\"snapshot\", the tabular form takes --references and --observations, and a table of ratings "
                      "(units and raters) is a panel's: agreebound panel, or the dashboard's Panel page; see docs/formats.md", row_label="line")


def judge_tables_contract(name: str, data: bytes) -> tuple[JudgeCalibrationContract, tuple[JSONValue, JSONValue, JSONValue]]:
    """The tabular form's contract file: the contract and the snapshot's header (not yet validated)."""
    obj = read_json(name, data)
    if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
        raise InputError(name, None, None,
                         'expected a JSON object with exactly "contract" and "snapshot" (scope, contract_content_id, rubric_digest)')
    contract = _contract(name, obj["contract"])
    header = _header(name, obj["snapshot"])
    extra = [k for k in obj["snapshot"] if k not in ("scope", "contract_content_id", "rubric_digest")]
    if extra:
        raise InputError(name, None, f"snapshot.{extra[0]}", "unknown field (records go in the CSV files)")
    return contract, header


def read_judge_tables(contract_name: str, contract_data: bytes, references_name: str, references_data: bytes,
                       observations_name: str, observations_data: bytes) -> JudgeInput:
    """The tabular alternative: contract JSON (``{"contract": {...}, "snapshot": {scope, contract_content_id,
    rubric_digest}}``), references CSV (reviewer ids joined by ';') and observations CSV."""
    from agreebound.io.records import csv_columns

    contract, header = judge_tables_contract(contract_name, contract_data)
    refs, rt = csv_columns(references_name, references_data, REFERENCE_FIELDS)
    read, ot = csv_columns(observations_name, observations_data, OBSERVATION_FIELDS, extra=True)
    # any column beside the observation fields is the user's slice column (a prompt variant, a category)
    extras = [c for c in read if c not in OBSERVATION_FIELDS]
    obs = {f: read[f] for f in OBSERVATION_FIELDS}
    slices = as_frame({c: read[c] for c in ("case_id", *extras)}) if extras else None
    names = {"references": references_name, "observations": observations_name, "snapshot": contract_name}
    return JudgeInput(contract_name, contract, header, refs, obs, files=names,
                      locate={"references": rt.row_of, "observations": ot.row_of}, slices=slices)


def read_judge_log(name: str, data: bytes, references: tuple[str, bytes] | None = None,
                    contract: tuple[str, bytes] | None = None, judge: str | None = None,
                    thresholds: CalibrationThresholds | None = None, mapping: tuple[str, bytes] | None = None) -> JudgeInput:
    """An evaluation harness's judge log (MT-Bench, AlpacaEval; any other JSON Lines through a
    ``mapping`` file, see :class:`agreebound.io.judge_logs.LogMapping`), with human
    references from a second file and a contract JSON (the trio's) if given. With everything the
    seed needs, the seed's full audit; otherwise a partial audit whose missing gates say why
    (never a pass). Without a contract the gates are measured against illustrative limits (the
    seed's example) and nothing is decided (INCOMPLETE). Read only: measure_judge audits it."""
    from agreebound.io.judge_logs import parse_log_mapping
    from agreebound.io.judge_logs import read_judge_log as read_log

    log = read_log(name, data, judge, parse_log_mapping(*mapping) if mapping else None)
    return judge_input_of(name, data, log, references, contract, thresholds)


def read_single_as_pairs(name: str, data: bytes, references: tuple[str, bytes], contract: tuple[str, bytes] | None = None,
                         judge: str | None = None, thresholds: CalibrationThresholds | None = None) -> JudgeInput:
    """A single-answer grading log (MT-Bench) audited against pairwise human votes
    (:func:`agreebound.io.judge_logs.single_as_pairs`): the pairwise judge audit of its implied choices."""
    from agreebound.io.judge_logs import single_as_pairs
    from agreebound.io.scored_logs import read_scored_log

    log = single_as_pairs(read_scored_log(name, data, judge), *references)
    return judge_input_of(name, data, log, references, contract, thresholds)


def judge_input_of(name: str, data: bytes, log: JudgeLog, references: tuple[str, bytes] | None,
                   contract: tuple[str, bytes] | None, thresholds: CalibrationThresholds | None) -> JudgeInput:
    """A read judge log with its references and contract (or a draft of one) as the audit's input."""
    from hashlib import sha256 as _sha

    from agreebound.io.judge_log_records import slice_columns
    from agreebound.io.judge_logs import draft_contract, lacks_of, read_references, seed_frames

    refs, ref_notes = (read_references(references[0], references[1], log) if references else (None, ()))
    if contract is not None:
        obj = read_json(contract[0], contract[1])
        if not isinstance(obj, dict) or set(obj) != {"contract", "snapshot"}:
            raise InputError(contract[0], None, None, 'expected a JSON object with exactly "contract" and "snapshot"')
        c = _contract(contract[0], obj["contract"])
        header = _header(contract[0], obj["snapshot"])
    else:
        c = draft_contract(log, thresholds)
        header = (c.scope, c.content_id, _sha(data).hexdigest())
    given = contract is not None  # without one, the draft's limits measure but never decide
    lacks = tuple(lacks_of(log, refs))
    obs = seed_frames(log)
    complete = not lacks and refs is not None and set(refs["case_id"]) == set(obs["case_id"])
    columns = slice_columns(log.observations)
    slices = log.observations[["case_id", *columns]].reset_index(drop=True) if columns else None
    return JudgeInput(name, c, header, refs, obs, log=log, lacks=lacks, notes=log.notes + ref_notes,
                      contract_given=given, complete=complete, slices=slices)


def bundle_json(contract: JudgeCalibrationContract, header: dict[str, str], refs: "pd.DataFrame",
                obs: "pd.DataFrame") -> str:
    """The bundle JSON for frames (the inverse of :func:`read_judge_bundle`)."""
    def records(frame: "pd.DataFrame") -> list[JSONObject]:
        out = frame.to_dict("records")
        for r in out:
            for k, v in r.items():
                if isinstance(v, tuple):
                    r[k] = list(v)
                elif isinstance(v, np.generic):
                    r[k] = v.item()
        return out

    return json.dumps({"contract": contract.to_dict(), "snapshot": {**header, "references": records(refs),
                                                                  "observations": records(obs)}}, indent=1) + "\n"
