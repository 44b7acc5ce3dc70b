"""The one error type for bad input: where it is (file, row, column) and why, on one safe line."""

from __future__ import annotations

from agreebound.core.escape import printable
from agreebound.core.limits import MESSAGE_CHARS


class InputError(Exception):
    """Bad input: where it is (file, 1-based row as a spreadsheet shows it, column) and why.

    ``str()`` is one line: control characters, escapes and undecodable bytes in any part are
    shown escaped, and long parts are cut.
    """

    def __init__(self, file: str, row: int | None, column: str | None, reason: str, row_label: str = "row",
                 column_label: str = "column"):
        super().__init__(reason)
        self.file, self.row, self.column, self.reason, self.row_label = file, row, column, reason, row_label
        self.column_label = column_label

    def __str__(self) -> str:
        parts = [printable(self.file, 120)]
        if self.row is not None:
            parts.append(f"{self.row_label} {self.row}")
        if self.column is not None:
            parts.append(f"{self.column_label} '{printable(self.column, 60)}'")
        text = ", ".join(parts) + f": {printable(self.reason)}"
        if len(text) > MESSAGE_CHARS:
            text = text[: MESSAGE_CHARS - 3] + "..."
        return text


class FieldError(ValueError):
    """A value its rule refused, carrying the field (or a mapping's key) it names: whoever reports
    it reads ``field``, never the message's text. The message is the rule's own, unchanged.

    >>> e = FieldError("observation.order must be ab or ba", "order")
    >>> (str(e), e.field, isinstance(e, ValueError))
    ('observation.order must be ab or ba', 'order', True)
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def memory_message(name: str) -> str:
    """A file whose reading ran out of memory: a limit, said as such, on one line (the dashboard
    keeps what was loaded and goes on serving; the CLI says the same without a name and exits 3)."""
    return (f"{printable(name, 120)}: reading it needed more memory than this machine has; the file is too "
            "large or too wide to read here (see the limits in docs/formats.md)")


#: Optional parts, by the top-level module a feature imports: the extra that installs it, and what
#: it adds. ``pip install agreebound`` is the dashboard and the command line on files, DuckDB included.
EXTRAS = {
    "pyspark": ("spark", "the Spark engine (--engine spark)"),
    "psycopg": ("postgres", "a PostgreSQL history store (AGREEBOUND_DB=postgresql://...)"),
}


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The message for an optional part that is not installed (naming the extra to install), or
    None when the missing module is not an optional part's (then it is a bug).

    >>> missing_extra(ModuleNotFoundError("No module named 'pyspark'", name="pyspark"))
    "the Spark engine (--engine spark) needs the optional part 'spark', which is not installed: pip install 'agreebound[spark]'"
    >>> missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None
    True
    """
    top = (error.name or "").split(".")[0]
    if top not in EXTRAS:
        return None
    extra, what = EXTRAS[top]
    return f"{what} needs the optional part {extra!r}, which is not installed: pip install 'agreebound[{extra}]'"
