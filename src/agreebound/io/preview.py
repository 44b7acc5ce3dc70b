"""The mapping preview: how a rating file will be read, from its first rows only, before anything
is measured. The dashboard draws it; ``agreebound inspect`` prints it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from agreebound.core.errors import InputError
from agreebound.core.escape import printable
from agreebound.core.json_types import JSONObject
from agreebound.io.detect import header_names, near_duplicates, suggest
from agreebound.io.log_kinds import refuse_judge_log
from agreebound.io.panels import build_panels
from agreebound.io.mapping import Mapping
from agreebound.io.readers import read_source
from agreebound.io.tables import MISSING_CODES, MISSING_TOKENS, Table
from agreebound.panel.levels import default_level, suggest_level, suggest_positive
from agreebound.panel.ratings import category_texts

HEAD_ROWS = 10_000
SHOWN_ROWS = 8
SHOWN_CATEGORIES = 40


@dataclass(frozen=True)
class CategoryInfo:
    category: str
    count: int
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class DimensionPreview:
    dimension: str
    raters: tuple[str, ...]
    humans: tuple[str, ...]
    kind: str
    categories: tuple[CategoryInfo, ...]
    n_categories: int
    level: tuple[str, str]  # suggested level, why
    positive: object  # suggested positive category (two-valued data), or None
    default: tuple[str, str] = ("nominal", "")  # the level in force if nobody chooses, why


@dataclass(frozen=True)
class Preview:
    file: str
    format: str
    encoding: str
    delimiter: str
    sheets: tuple[str, ...]
    mapping: Mapping
    reasons: tuple[str, ...]
    notices: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]  # the first rows, as text
    head_only: bool  # True when the file has more rows than were read
    rows_read: int
    missing_found: dict[str, int] = field(default_factory=dict)  # spelling -> cells
    dimensions: tuple[DimensionPreview, ...] = ()
    error: str | None = None  # the mapping cannot be applied: why (the preview still shows the rows)
    skip: int = 0  # CSV: lines above the header that were skipped

    def to_dict(self) -> JSONObject:
        return {
            "file": self.file, "format": self.format, "encoding": self.encoding, "delimiter": self.delimiter,
            "skip": self.skip,
            "sheets": list(self.sheets), "mapping": self.mapping.to_dict(), "reasons": list(self.reasons),
            "notices": list(self.notices), "columns": list(self.columns), "rows": [list(r) for r in self.rows],
            "head_only": self.head_only, "rows_read": self.rows_read, "missing_found": self.missing_found,
            "error": self.error,
            "dimensions": [{"dimension": d.dimension, "raters": list(d.raters), "humans": list(d.humans),
                            "kind": d.kind, "n_categories": d.n_categories,
                            "categories": [{"category": c.category, "count": c.count, "flags": list(c.flags)}
                                           for c in d.categories],
                            "level": {"suggested": d.level[0], "reason": d.level[1]},
                            "positive_suggestion": None if d.positive is None else str(d.positive)}
                           for d in self.dimensions],
        }

    def to_text(self) -> str:
        m = self.mapping
        out = [f"file: {printable(self.file, 80)} ({self.format}"
               + (f", {self.encoding}" if self.encoding not in ("utf-8", "utf-8-sig") else "")
               + (f", delimiter {self.delimiter!r}" if self.format == "csv" and self.delimiter != "," else "") + ")"]
        out += [f"  {printable(r)}" for r in self.reasons]
        out += [f"  note: {printable(n)}" for n in self.notices]
        out.append(f"layout: {m.layout}")
        if m.unit:
            out.append(f"  unit: {' + '.join(printable(u, 60) for u in m.unit)}")
        for role in ("rater", "value", "dimension"):
            if getattr(m, role):
                out.append(f"  {role}: {printable(getattr(m, role), 60)}")
        if m.ignore:
            out.append(f"  ignored: {', '.join(printable(c, 40) for c in m.ignore)}")
        widths = [min(18, max([len(printable(c, 18))] + [len(printable(r[i], 18)) for r in self.rows]))
                  for i, c in enumerate(self.columns[:10])]
        out.append("first rows:")
        out.append("  " + "  ".join(printable(c, 18).ljust(w) for c, w in zip(self.columns, widths)))
        for r in self.rows:
            out.append("  " + "  ".join(printable(v, 18).ljust(w) for v, w in zip(r, widths)))
        if self.missing_found:
            out.append("missing cells: " + ", ".join(f"{printable(k) or '(empty)'!s} {v}" for k, v in self.missing_found.items()))
        if self.error:
            out.append(f"cannot read it this way: {printable(self.error)}")
        for d in self.dimensions:
            out.append(f"dimension {printable(d.dimension, 60)}: {len(d.raters)} raters "
                       f"({', '.join(printable(r, 30) for r in d.raters[:12])}{', ...' if len(d.raters) > 12 else ''})"
                       f"; humans: {', '.join(printable(h, 30) for h in d.humans) or 'none'}")
            out.append(f"  level: {d.default[0]} if none is chosen ({printable(d.default[1])})")
            if d.level[0] != d.default[0]:
                out.append(f"  suggested level: {d.level[0]} ({printable(d.level[1])}): --level {d.level[0]}")
            if d.positive is not None:
                out.append(f"  positive category for detector rates: try {printable(d.positive, 40)}")
            cats = ", ".join(f"{printable(c.category, 30)} ({c.count})" for c in d.categories[:20])
            out.append(f"  categories ({d.n_categories}): {cats}" + (", ..." if d.n_categories > 20 else ""))
            for c in d.categories:
                for f in c.flags:
                    out.append(f"  check {printable(c.category, 30)!r}: {printable(f)}")
        if self.head_only:
            out.append(f"(from the first {self.rows_read:,} rows)")
        out.append("mapping (reuse with --mapping):")
        out.append(json.dumps(m.to_dict(), ensure_ascii=True))
        return "\n".join(out) + "\n"


def _text_rows(table: Table, n: int) -> tuple[tuple[str, ...], ...]:
    rows = []
    for i in range(min(n, table.n_rows)):
        row = []
        for c in table.columns:
            code = int(c.codes[i])
            v = c.uniques[code] if code >= 0 else None
            row.append("" if v is None else (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)))
        rows.append(tuple(row))
    return tuple(rows)


def _missing_found(table: Table, mapping: Mapping) -> dict[str, int]:
    names = header_names(table)
    if mapping.layout == "long":
        cols = [names.index(mapping.value)] if mapping.value in names else []
    else:
        skip = set(mapping.unit) | set(mapping.ignore) | ({mapping.rater} if mapping.rater else set())
        cols = [i for i, n in enumerate(names) if n not in skip]
    found: dict[str, int] = {}
    tokens = MISSING_TOKENS | {m.strip() for m in mapping.missing}
    for i in cols:
        c = table.columns[i]
        counts = np.bincount(c.codes[c.codes >= 0], minlength=len(c.uniques))
        nulls = int((c.codes < 0).sum())
        if nulls:
            found["(null)"] = found.get("(null)", 0) + nulls
        for u, k in zip(c.uniques, counts):
            if k and isinstance(u, str) and u.strip() in tokens:
                key = u if u.strip() else ""
                found[key] = found.get(key, 0) + int(k)
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))


def preview(name: str, data: bytes, mapping: Mapping | None = None, head_rows: int = HEAD_ROWS) -> Preview:
    """Read the first rows, suggest (or apply) a mapping, and describe what would be measured."""
    if mapping is None:
        refuse_judge_log(name, data)
    source = read_source(name, data, mapping, head_rows=head_rows)
    if mapping is None:
        s = suggest(source.table, source.mapping)
        mapping, reasons = s.mapping, s.reasons
        if not mapping.header:
            source = read_source(name, data, mapping, head_rows=head_rows)
    else:
        reasons = ("the mapping given",)
    table = source.table
    columns = tuple(header_names(table)) if mapping.header else tuple(c.name for c in table.columns)
    error = None
    dims: list[DimensionPreview] = []
    try:
        panels = build_panels(table, mapping, source.notices)
    except InputError as e:
        panels, error = {}, str(e)
    for dim, p in list(panels.items())[:50]:
        counts = np.bincount(p.coded.code, minlength=len(p.categories)).tolist()
        texts = category_texts(p.categories) if len(p.categories) <= 2_000 else \
            [str(v) for v in p.categories.first(2_000)]
        counts = counts[: len(texts)]
        flags: dict[str, list[str]] = {t: [] for t in texts}
        if p.kind == "label":  # numbers are not misspelt: 7 occurring once beside 6 is a rating
            for rare, common, why in near_duplicates(texts, counts):
                flags[rare].append(f"maybe the same as {common!r}: {why}")
        for t, k in zip(texts, counts):
            if k == 1 and len(texts) > 2 and (p.kind == "label" or flags[t]):
                flags[t].append("occurs once")
            if p.kind == "label" and t.strip().lower() == "none":
                flags[t].append("read as a label; if it means missing, add it to the missing spellings")
            elif t.strip() in MISSING_CODES:
                flags[t].append("often means missing (a statistics package's code, a spreadsheet's dash or error); "
                                "if it does here, add it to the missing spellings")
        # flagged categories first (the reader's work), then by count
        order = np.lexsort((-np.asarray(counts), np.asarray([not flags[t] for t in texts])))
        shown = [CategoryInfo(texts[i], counts[i], tuple(flags[texts[i]])) for i in order[:SHOWN_CATEGORIES]]
        flagged = [CategoryInfo(texts[i], counts[i], tuple(flags[texts[i]])) for i in order[SHOWN_CATEGORIES:]
                   if flags[texts[i]]]
        level = suggest_level(p)
        dims.append(DimensionPreview(dim, tuple(p.raters), tuple(p.humans), p.kind, tuple(shown + flagged),
                                     len(p.categories), level, suggest_positive(p), default_level(p)))
    return Preview(name, source.format, source.sniffed.encoding, source.sniffed.delimiter, source.sheets, mapping,
                   tuple(reasons), source.notices, columns, _text_rows(table, SHOWN_ROWS), table.truncated,
                   table.n_rows, _missing_found(table, mapping), tuple(dims), error, source.skip)
