"""The levels of measurement by name (how the distance between two values is read): their one
definition, on the standard library alone, so the command line's parser offers them without
importing numpy or pandas. agreebound.panel.categories re-exports them, where the readers and the
measures import them from; the rules about which level fits a panel are agreebound.panel.levels'.

>>> LEVELS
('nominal', 'ordinal', 'interval', 'ratio')
>>> is_level("ordinal"), is_level("auto")
(True, False)
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

#: The level of measurement: how the distance between two values is read.
Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = get_args(Level)


def is_level(name: object) -> TypeGuard[Level]:
    """``name`` is one of LEVELS (the checker then reads it as a Level)."""
    return name in LEVELS
