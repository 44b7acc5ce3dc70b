"""Krippendorff's (2011) data as 160-odd tools export it (tests/support/exports.py) read through the CLI:
every shape reaches the published alpha at every level, 12 units, 41 ratings and 4 detectors,
with no hand editing beyond the one flag a user is told about."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from agreebound.cli.main import main

from tests.support import exports  # noqa: E402

FOLDER = Path(tempfile.mkdtemp(prefix="agreebound-exports-"))
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)  # made at import, gone with the process
MANIFEST = exports.generate(FOLDER)
PUBLISHED = {"nominal": "113/152", "ordinal": "108577/133160",
             "interval": "951/1120", "ratio": "18222619/22852465"}
# Flags the user must add, and whose need the import shows (asserted below).
NEEDS_FLAG = {"pd_na_dash.csv", "stata_minus99_nomissingflag.csv"}
# Columns literally named after roles ('rater', 'value', ...) over a wide table: contrived, ambiguous.
CONTRIVED = {"pd_rater_cols_synonyms.csv"}
# Float noise (0.1+0.2 style) kept exact by design: the interval alpha differs from the published one.
NOISY = {"b2_float_noisy.csv"}


def panel(capsys, path: str, *args: str) -> tuple[int, dict | str]:
    code = main(["panel", path, "--json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code in (0, 1, 2) else err)


def test_the_generator_writes_every_shape():
    assert len(MANIFEST) >= 160
    assert len({m["name"] for m in MANIFEST}) == len(MANIFEST)
    assert {m["kind"] for m in MANIFEST} == {"num", "lab", "dim"}


@pytest.mark.parametrize("m", [m for m in MANIFEST if m["name"] not in CONTRIVED], ids=lambda m: m["name"])
def test_export_reads_as_published(capsys, m):
    args = list(m["fix"] if m["name"] in NEEDS_FLAG else m["args"])
    code, rep = panel(capsys, m["file"], "--level", "nominal", *args)
    assert code in (0, 1, 2), rep
    dims = rep["panel"]["dimensions"]
    if m["kind"] == "dim":
        assert {d["dimension"]: d["alpha"]["exact"] for d in dims} == {"quality": "113/152", "tone": "113/152"}
        return
    assert len(dims) == 1, [d["dimension"] for d in dims]
    d = dims[0]
    assert (d["units"], d["ratings"], d["ndet"]) == (12, 41, 4)
    if m["kind"] == "lab":
        assert d["alpha"]["exact"] == m["expected"]
        return
    assert d["alpha"]["exact"] == PUBLISHED["nominal"]
    if m["name"] in NOISY:
        return
    assert d["level"]["alpha_at_levels"] == PUBLISHED
    code, rep = panel(capsys, m["file"], "--level", "interval", *args)
    assert rep["panel"]["dimensions"][0]["alpha"]["exact"] == PUBLISHED["interval"]


@pytest.mark.parametrize("name", sorted(NEEDS_FLAG))
def test_missing_codes_are_flagged_before_they_move_alpha(capsys, name):
    m = next(x for x in MANIFEST if x["name"] == name)
    code = main(["inspect", m["file"]])
    out, _ = capsys.readouterr()
    code_value = m["fix"][1]
    assert code == 0
    assert f"check '{code_value}': often means missing" in out
    code, rep = panel(capsys, m["file"], "--level", "nominal")
    assert rep["panel"]["dimensions"][0]["alpha"]["exact"] != PUBLISHED["nominal"]
