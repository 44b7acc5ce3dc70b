"""Agreebound: is this verdict reliable enough to act on?

The entry points a notebook needs (see the README, "From Python")::

    import agreebound
    agreebound.krippendorff_alpha(reliability_data=matrix, level_of_measurement="ordinal")  # raters x units
    report = agreebound.audit_panel("ratings.csv")            # or a pandas DataFrame
    report.verdict, report.exit_code, report.report           # the JSON report as a dict
    agreebound.audit_judge("judge.json")                      # a bundle, a judge log, a scores table

Names are imported when first used, so ``import agreebound`` (and the command line's start) stays
light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agreebound.version import __version__

__all__ = [
    "__version__",
    "krippendorff_alpha",
    "audit_panel",
    "audit_judge",
    "verdicts",
    "Report",
    "AlphaResult",
    "InputError",
    "FieldError",
    "Level",
    "LEVELS",
]

#: name -> the module that defines it
_WHERE = {
    "krippendorff_alpha": "agreebound.api",
    "audit_panel": "agreebound.api",
    "audit_judge": "agreebound.api",
    "verdicts": "agreebound.api",
    "Level": "agreebound.panel.categories",
    "Report": "agreebound.app.pipeline",
    "AlphaResult": "agreebound.panel.result",
    "InputError": "agreebound.core.errors",
    "FieldError": "agreebound.core.errors",
    "LEVELS": "agreebound.panel.categories",
}

if TYPE_CHECKING:
    from agreebound.api import audit_judge, audit_panel, krippendorff_alpha, verdicts
    from agreebound.core.errors import FieldError, InputError
    from agreebound.panel.categories import LEVELS, Level
    from agreebound.panel.result import AlphaResult
    from agreebound.app.result import Report


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'agreebound' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
