"""The agreebound command line (grown by the reports/CLI issue)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("agreebound: the command line arrives with the reports issue", file=sys.stderr)
    return 0
