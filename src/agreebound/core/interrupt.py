"""Long reads give way: a reader calls :func:`checkpoint` every chunk or few thousand records.

The core knows nothing of who is waiting. The dashboard installs a check (its script run's own
stop-or-rerun check) so a preview or a measurement that the user left (a closed tab, another
upload) stops at the next chunk instead of running on; the CLI installs none, so there a
checkpoint costs one global read.
"""

from __future__ import annotations

from typing import Callable

_check: Callable[[], None] | None = None


def install(check: Callable[[], None] | None) -> None:
    """``check`` raises to stop the work (the caller's own exception, passed through untouched);
    it must be safe to call from any thread and cheap when nothing is asked."""
    global _check
    _check = check


def checkpoint() -> None:
    if _check is not None:
        _check()
