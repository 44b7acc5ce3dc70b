"""The streamed JSON and JSON Lines readers: every error located by record or line without a
second parse, the line ends str.splitlines knows, JSON's own whitespace only, and values that
are not text refused (issue 21's review)."""

from __future__ import annotations

import json

import pytest

from agreebound.cli.main import main
from agreebound.core.errors import InputError
from agreebound.io.readers import read_source

RECORDS = [{"unit": f"u{i}", "r1": i % 3, "r2": i % 3} for i in range(30)]


def as_array(records, sep=",\n") -> bytes:
    return ("[\n" + sep.join(json.dumps(r) for r in records) + "\n]\n").encode()


def refused(name: str, data: bytes) -> str:
    with pytest.raises(InputError) as e:
        read_source(name, data)
    return str(e.value)


def test_array_errors_name_the_record_and_its_line():
    late = as_array(RECORDS).replace(b'{"unit": "u20", "r1": 2', b'{"unit": "u20", "r1": 2, "r1": 1', 1)
    assert refused("dup.json", late) == ("dup.json, record 21, column 'r1': duplicate key in one object (it starts on "
                                         "line 22); every key once (a repeated key would silently replace the first)")
    assert refused("t.json", as_array(RECORDS)[:-3] + b",\n]") == (
        "t.json, record 31: invalid JSON (Expecting value, line 32 character 1)")
    assert refused("m.json", as_array(RECORDS, sep="\n")) == (
        "m.json, line 3: invalid JSON (expected , or ] between the array's elements, after record 1)")
    assert refused("a.json", as_array(RECORDS) + b"{}") == "a.json, line 33: invalid JSON (text after the array, after record 30)"
    assert refused("n.json", as_array(RECORDS).replace(b'"r2": 4', b'"r2": NaN', 1).replace(b'"r2": 1}', b'"r2": NaN}', 1)) \
        == "n.json, record 2: invalid JSON: NaN is not a number JSON allows"


def test_json_lines_end_as_splitlines_says_and_bad_lines_are_located():
    lines = [json.dumps(r) for r in RECORDS]
    mixed = ("\r\n".join(lines[:10]) + "\r" + "\n".join(lines[10:])).encode()
    table = read_source("mixed.jsonl", mixed).table
    assert table.n_rows == 30 and table.row_of(29) == 30
    deep = "\n".join(lines[:3] + ['{"unit": "u", "r1": ' + "[" * 40 + "]" * 40 + "}"]).encode()
    assert refused("deep.jsonl", deep) == "deep.jsonl, line 4: nested too deeply (more than 32 levels)"
    dup = "\n".join(lines[:3] + ['{"unit": "u", "r1": 1, "r1": 2}']).encode()
    assert refused("dup.jsonl", dup) == ("dup.jsonl, line 4, column 'r1': duplicate key in one object; every key once "
                                         "(a repeated key would silently replace the first)")


def test_only_json_whitespace_before_the_array_and_no_lone_surrogates():
    assert refused("nbsp.json", "\u00a0".encode() + as_array(RECORDS)).startswith("nbsp.json, line 1: invalid JSON")
    sur = as_array(RECORDS).replace(b'"u3"', b'"\\ud800"', 1)
    assert refused("s.json", sur) == "s.json, record 4, column 'unit': a \\u escape of half a character (a lone " \
                                     "surrogate): not text"


def test_running_out_of_memory_in_the_cli_is_a_limit_not_a_bug(tmp_path, capsys, monkeypatch):
    import agreebound.io.ratings

    def hungry(*_a, **_k):
        raise MemoryError

    monkeypatch.setattr(agreebound.io.ratings, "import_ratings", hungry)
    path = tmp_path / "r.csv"
    path.write_text("unit,a,b\nu1,1,1\n")
    assert main(["panel", str(path)]) == 3
    assert capsys.readouterr().err == ("agreebound: the input needs more memory than this machine has; it is too large "
                                       "or too wide to read here (see the limits in docs/formats.md)\n")


def test_a_one_line_object_nested_past_the_parser_is_refused_as_too_deep_not_a_crash(tmp_path, capsys):
    deep = b'{"a":' * 10_000 + b"1" + b"}" * 10_000  # one line, so the sniffer parses it whole to tell JSON from JSON Lines
    assert refused("deep.json", deep) == "deep.json: nested too deeply (more than 32 levels)"
    path = tmp_path / "deep.json"
    path.write_bytes(deep)
    assert main(["panel", str(path)]) == 3
    assert capsys.readouterr().err == "deep.json: nested too deeply (more than 32 levels)\n"
    assert main(["inspect", str(path)]) == 3
    assert capsys.readouterr().err == "deep.json: nested too deeply (more than 32 levels)\n"


def test_a_recogniser_peeking_at_json_lines_stops_before_a_line_too_deep_to_parse():
    import sys

    from agreebound.io.sniff import Peek

    deep = b'{"unit": "u1", "r1": 1}\n' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b"\n"
    # Python's own limit, as the command line runs: a library another test loaded in this worker
    # (the import graph's) may have raised it, and 10,000 levels would then parse
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        assert Peek("x.jsonl", deep).records == (({"unit": "u1", "r1": 1}, 1),)
    finally:
        sys.setrecursionlimit(limit)
