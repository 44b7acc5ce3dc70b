"""User text is data: how it is shown in a terminal, in Markdown, in HTML and in a spreadsheet.

Every name, label, file name, header, cell and URL parameter passes through one of these before
it reaches a terminal, a Markdown renderer (Streamlit's ``st.markdown``/``st.error``/tab labels,
Markdown reports), HTML (reports, plotly labels) or a CSV download.

>>> printable("red\\x1b[31m\\nline")
'red\\\\x1b[31m\\\\nline'
>>> excerpt("x" * 100)
"'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (100 characters)"
>>> md_text("[click](https://evil.example)")
'\\\\[click\\\\]\\\\(https\\u2060\\\\:\\\\/\\\\/evil\\\\.example\\\\)'
>>> csv_cell("=HYPERLINK(1)"), csv_cell("-0.5"), csv_cell("-bad")
("'=HYPERLINK(1)", '-0.5', "'-bad")
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import TypeVar, overload

from agreebound.core.limits import EXCERPT_CHARS

_T = TypeVar("_T")
_K = TypeVar("_K")

# Characters never sent raw to a terminal or a page: C0 and C1 controls, DEL, lone surrogates
# (undecodable file names), and every invisible character that can hide, reorder or fake text:
# Unicode's format characters (Cf: bidi controls, zero-width characters, the BOM, tag
# characters), line and paragraph separators, variation selectors and the Hangul fillers.
_INVISIBLE = ("\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u180b-\u180f"
              "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
              "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
              "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef")
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff" + _INVISIBLE + "]")
#: The invisible characters above, spelled for RE2 (pyarrow's and DuckDB's regular expressions),
#: so names are normalised alike in memory, in Arrow and in SQL (surrogates cannot occur in valid
#: UTF-8, so RE2 needs no class for them).
INVISIBLE_RE2 = (r"\p{Cf}\x{34f}\x{115f}-\x{1160}\x{180b}-\x{180f}\x{2028}-\x{2029}\x{3164}\x{fe00}-\x{fe0f}"
                 r"\x{ffa0}\x{e0100}-\x{e01ef}")
#: A control or invisible character, for RE2.
UNSAFE_RE2 = r"[\x{00}-\x{1f}\x{7f}-\x{9f}" + INVISIBLE_RE2 + "]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object, limit: int | None = None) -> str:
    """One line of safe text: control, invisible and undecodable characters shown as escapes."""
    s = str(text)
    if limit is not None and len(s) > limit:
        s = s[:limit]
        return _UNSAFE.sub(_escape_char, s) + f"... ({len(str(text)):,} characters)"
    return _UNSAFE.sub(_escape_char, s)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A quoted, escaped, cut excerpt of a cell for an error message."""
    s = str(value)
    if len(s) <= limit:
        return "'" + printable(s) + "'"
    return "'" + printable(s[:limit]) + f"...' ({len(s):,} characters)"


def plural(n: int, word: str) -> str:
    """A count and its noun, in the singular for one: ``plural(1, "item")`` is "1 item".

    >>> plural(1, "item"), plural(1200, "item")
    ('1 item', '1,200 items')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def has_unsafe(text: str) -> bool:
    """True when the text holds a control, invisible or undecodable character."""
    return _UNSAFE.search(text) is not None


# Zero-width and bidi characters removed from names; surrounding white space stripped.
_STRIP_FROM_NAMES = re.compile("[" + _INVISIBLE + "]")


def normalise_name(text: str) -> str:
    """A name as Agreebound compares names: NFC, invisible characters removed, spaces trimmed."""
    return unicodedata.normalize("NFC", _STRIP_FROM_NAMES.sub("", text)).strip()


# --- Markdown (Streamlit and Markdown reports) -----------------------------------------------

_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
# GFM turns http://..., www. and e-mail addresses into links after escapes are resolved, so the
# escapes cannot stop it: an invisible word joiner after the scheme (or the @) does.
_AUTOLINK = re.compile(r"(?i)(https?|ftp|www|mailto|xmpp)(?=\\[:.])|(\\@)")
WORD_JOINER = "\u2060"


def md_text(text: object, limit: int | None = 200) -> str:
    """User text inside Markdown: every ASCII punctuation character backslash-escaped (CommonMark
    allows it), so no link, image, HTML, emphasis, directive (``:red[...]``, ``:material/...:``)
    or math can form; autolinks broken by an invisible word joiner; controls escaped; one line.
    It reads exactly as the text it is."""
    s = _MD_PUNCT.sub(r"\\\1", printable(text, limit))
    return _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, s)


def md_code(text: object, limit: int | None = 200) -> str:
    """User text as a Markdown code span that it cannot break out of."""
    s = printable(text, limit)
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


# --- HTML (reports, plotly labels and hover text) --------------------------------------------


def html_text(text: object, limit: int | None = 200) -> str:
    """User text for HTML and for plotly strings (which render a subset of HTML tags)."""
    return html.escape(printable(text, limit), quote=True)


# --- spreadsheets ----------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?|-\d+/\d+")


def csv_cell(value: _T) -> _T | str:
    """OWASP CSV injection: a text cell that a spreadsheet would read as a formula gets a leading
    apostrophe. Numbers (and text that is only a number, like -0.5, or an exact fraction, like
    -146/6289: two whole numbers divided, which nothing can run) are left as they are.

    >>> csv_cell("-146/6289"), csv_cell("-0.5"), csv_cell("=HYPERLINK(1)"), csv_cell("-1/2+cmd")
    ('-146/6289', '-0.5', "'=HYPERLINK(1)", "'-1/2+cmd")
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    if _NUMBER.fullmatch(value):
        return value
    return "'" + value


#: A lone surrogate: a byte that was not UTF-8 (U+DC80-U+DCFF, ``surrogateescape``) or a half of a
#: pair that lost its other half (a JSON ``\\ud800`` escape).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def utf8_safe(text: str) -> str:
    """``text`` as UTF-8 can hold it: each lone surrogate written as an escape.

    A file name the operating system gave with bytes that are not UTF-8 arrives in Python with each
    such byte as a lone surrogate (``surrogateescape``), which no UTF-8 file or database can hold.
    Wherever a name is written as UTF-8 (a JSON report, the history database) each such byte is
    written as the escape ``\\xNN`` (the byte), any other lone surrogate as ``\\uXXXX``, and the rest
    of the name is kept:

    >>> print(utf8_safe("k" + chr(0xDCFF) + ".csv"), utf8_safe("half " + chr(0xD800)), utf8_safe("caf\u00e9"))
    k\\xff.csv half \\ud800 caf\u00e9
    >>> print(utf8_safe_tree({"inputs": [{"file": "k" + chr(0xDCFF)}], "n": 3}))
    {'inputs': [{'file': 'k\\\\xff'}], 'n': 3}
    """
    return LONE_SURROGATE.sub(_surrogate, text)


@overload
def utf8_safe_tree(obj: str) -> str: ...
@overload
def utf8_safe_tree(obj: dict[_K, _T]) -> dict[_K, _T]: ...
@overload
def utf8_safe_tree(obj: list[_T] | tuple[_T, ...]) -> list[_T]: ...
@overload
def utf8_safe_tree(obj: _T) -> _T: ...


def utf8_safe_tree(obj: object) -> object:
    """Every text (keys too) of a JSON-like tree of dicts, lists and tuples through :func:`utf8_safe`."""
    if isinstance(obj, str):
        return utf8_safe(obj)
    if isinstance(obj, dict):
        return {utf8_safe_tree(k): utf8_safe_tree(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [utf8_safe_tree(v) for v in obj]
    return obj
