"""The files the product reads besides its code: the dashboard (``app.py``, ``pages/``), its
Streamlit config, the samples, the Help page's docs, the report schema and the licence.

They travel inside the package, under ``agreebound/site`` (in a checkout, links to the top-level
folders the design card keeps; in the wheel and the sdist, the files themselves), and are found
through the package with :mod:`importlib.resources`, never through the source tree: ``pip install
agreebound`` then ``agreebound serve`` works from any folder.

>>> sorted(p.name for p in samples().glob("krippendorff_2011.*"))
['krippendorff_2011.csv']
>>> app_script().name, (site() / "pages" / "panel.py").is_file()
('app.py', True)
"""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

#: The report schema's file, inside ``site/schemas``.
REPORT_SCHEMA = "report.schema.json"


class MissingResource(FileNotFoundError):
    """A file the package should carry is not there (a broken install)."""


def site() -> Path:
    """The folder holding ``app.py``, ``pages/``, ``.streamlit/``, ``sample_data/``, ``docs/``,
    ``schemas/``: a real folder, since Streamlit runs the app from files."""
    root = files("agreebound") / "site"
    path = Path(str(root))
    if not isinstance(root, Path) or not (path / "app.py").is_file():
        raise MissingResource(f"agreebound's dashboard files are not installed as files ({root}): reinstall the "
                              "package with pip (a zipped or partial install cannot serve the dashboard)")
    return path


def app_script() -> Path:
    """The dashboard's main script (``streamlit run`` it from its folder)."""
    return site() / "app.py"


def samples() -> Path:
    """The bundled samples' folder (read-only in an install: :func:`copy_samples` writes a copy)."""
    return site() / "sample_data"


def sample_bytes(name: str) -> bytes:
    """A bundled sample's bytes, by its path under ``sample_data/`` (``judge_logs/x.jsonl``)."""
    return (samples() / name).read_bytes()


def doc_text(name: str) -> str:
    """A document the Help page shows (``formats.md``)."""
    return (site() / "docs" / name).read_text(encoding="utf-8")


def schema_text() -> str:
    """The JSON report's schema (JSON Schema 2020-12), as shipped."""
    return (site() / "schemas" / REPORT_SCHEMA).read_text(encoding="utf-8")


def copy_samples(dest: Path) -> list[Path]:
    """Copy the samples into ``dest`` (made if missing; files already there are left as they are),
    so the README's examples run as written from an installed package. Returns the files written."""
    written = []
    src = samples()
    for path in sorted(src.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        target = dest / path.relative_to(src)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        written.append(target)
    return written
