"""A graded judge's log as a document: one JSON document (inspect_ai's log, whose NaN scores are
read as missing; promptfoo's results), an inspect_ai ``.eval`` archive read as the same object
(each member bounded while it inflates, and only what the reader uses of each sample kept), or
JSON Lines records with their line numbers.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from agreebound.core.errors import InputError
from agreebound.io.archive import open_archive
from agreebound.io.json_toml import DuplicateKey, json_depth, no_duplicates
from agreebound.io.readers import json_line_records
from agreebound.io.score_values import Counted
from agreebound.io.sniff import sniff
from agreebound.io.tables import decode_text, transcode
from agreebound.core.limits import MAX_ARCHIVE_JSON_MEMBER_BYTES, MAX_NAME_CHARS, MAX_NESTING, MAX_ROWS
from agreebound.core.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    import zipfile

# --- reading the bytes ---------------------------------------------------------------------------


def _nan_only(token: str) -> float:
    """inspect_ai writes an unscored sample's value as NaN (Python's JSON extension): only NaN passes."""
    if token == "NaN":
        return math.nan
    raise ValueError(f"invalid JSON: {token} is not a number JSON allows")


def json_allowing_nan(name: str, data: bytes | bytearray) -> JSONValue:
    """A JSON document read strictly (every key once, depth within the limit) except that NaN is
    read as a missing score: inspect_ai's logs hold it for every unscored sample."""
    text = decode_text(name, data, "a JSON document")
    if json_depth(data) > MAX_NESTING:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)")
    try:
        return json.loads(text, parse_constant=_nan_only, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise InputError(name, e.lineno, None, f"invalid JSON ({e.msg}, character {e.colno})", row_label="line") from None
    except DuplicateKey as e:
        raise InputError(name, None, e.key, "duplicate key in one object; every key once") from None
    except RecursionError:
        raise InputError(name, None, None, f"nested too deeply (more than {MAX_NESTING} levels)") from None
    except ValueError as e:
        raise InputError(name, None, None, str(e)) from None


def grading_model(score: JSONObject) -> str | None:
    """The model that wrote a model-graded score's grading reply (``metadata.grading[-1].model``)."""
    meta = score.get("metadata")
    grading = meta.get("grading") if isinstance(meta, dict) else None
    if isinstance(grading, list):
        for message in reversed(grading):
            if isinstance(message, dict) and message.get("role") == "assistant" and message.get("model"):
                return str(message["model"])
    return None


#: What the reader keeps of an inspect_ai archive's sample, as soon as it is parsed: its id and
#: epoch, and of each score what :func:`read_inspect` reads (the value, the recorded reason, the start of
#: the explanation, the grading model, the answer's token count). Messages, events, attachments and
#: the texts themselves are dropped, so what is held stays small however large each sample is
#: (31 samples of 60 MB each once held 2.2 GB).
_TEXT_KEPT = 200


def _text(v: JSONValue) -> JSONValue:
    return v[:_TEXT_KEPT] if isinstance(v, str) else v


def _score_kept(sc: JSONValue) -> JSONValue:
    if not isinstance(sc, dict):
        return sc
    kept: JSONObject = {k: _text(sc[k]) for k in ("value", "reason", "explanation") if k in sc}
    if isinstance(sc.get("answer"), str):
        kept["answer"] = Counted(sc["answer"])
    model = grading_model(sc)
    if model is not None:
        kept["metadata"] = {"grading": [{"role": "assistant", "model": _text(model)}]}
    return kept


def _kept(name: str, sample: JSONValue) -> JSONValue:
    if not isinstance(sample, dict):
        return sample
    if isinstance(sample.get("id"), str) and len(sample["id"]) > MAX_NAME_CHARS:
        raise InputError(name, None, "id", f"a sample id of {len(sample['id']):,} characters; the limit is "
                         f"{MAX_NAME_CHARS:,}")
    kept = {k: sample[k] for k in ("id", "epoch") if k in sample}
    scores = sample.get("scores")
    if "scores" in sample:
        kept["scores"] = {k: _score_kept(sc) for k, sc in scores.items()} if isinstance(scores, dict) else scores
    output = sample.get("output")
    if isinstance(output, dict) and isinstance(output.get("completion"), str):
        kept["output"] = {"completion": Counted(output["completion"])}
    return kept


def _inspect_archive(name: str, data: bytes) -> JSONObject:
    """An inspect_ai ``.eval`` archive (a zip: header.json, samples/<id>_epoch_<n>.json) as the same
    object a ``--log-format json`` log holds: the header's fields and ``samples``. Every member is
    inflated through :mod:`agreebound.io.archive`, bounded while it inflates."""
    archive = open_archive(name, data, ".eval archive")
    infos = archive.infos()
    by_name = {i.filename: i for i in infos}
    first = by_name.get("header.json") or by_name.get("_journal/start.json")
    if first is None:
        raise InputError(name, None, None, "a zip archive without header.json: not an inspect_ai .eval log")

    def member(info: zipfile.ZipInfo) -> JSONValue:
        text = archive.read(info, "JSON member", MAX_ARCHIVE_JSON_MEMBER_BYTES)
        return json_allowing_nan(f"{name}:{info.filename}", text)

    obj = member(first)
    if not isinstance(obj, dict):
        raise InputError(name, None, first.filename, "expected a JSON object")
    samples = [i for i in infos if i.filename.startswith("samples/") and i.filename.endswith(".json")]
    if len(samples) > MAX_ROWS:
        raise InputError(name, None, None, f"{len(samples):,} samples; the limit is {MAX_ROWS:,}")
    obj = dict(obj)
    obj.pop("samples", None)
    obj["samples"] = [_kept(f"{name}:{i.filename}", member(i)) for i in samples]
    return obj


def read_document(name: str, data: bytes) -> tuple[JSONValue, list[JSONObject], list[int]]:
    """The file as one JSON document (inspect_ai, promptfoo), or as records and their lines."""
    if data[:4] == b"PK\x03\x04":
        return _inspect_archive(name, data), [], []
    sn = sniff(name, data)
    utf8 = transcode(name, data, sn.encoding)
    if sn.format == "json":
        obj = json_allowing_nan(name, utf8)
        if isinstance(obj, list):
            if not all(isinstance(r, dict) for r in obj):
                raise InputError(name, None, None, "expected a list of JSON objects")
            return None, obj, list(range(1, len(obj) + 1))
        return obj, [], []
    if sn.format == "jsonl":
        records, lines = [], []
        for obj, i in json_line_records(name, utf8.decode("utf-8-sig")):
            records.append(obj)
            lines.append(i)
        if not records:
            raise InputError(name, None, None, "the file has no JSON records")
        return None, records, lines
    raise InputError(name, None, None, "expected a judge log: JSON (inspect_ai, promptfoo), an inspect_ai .eval "
                     "archive, or JSON Lines (MT-Bench single grading, judgekit)")
