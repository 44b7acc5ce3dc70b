"""The package's version: one place (pyproject.toml reads it; reports and the store record it)."""

__version__ = "0.1.0"
