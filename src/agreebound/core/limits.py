"""Every limit on input size and shape, defined once; the CLI and the dashboard check the same ones,
before the work.

The upload limit is the dashboard's ``server.maxUploadSize`` (``.streamlit/config.toml``, in MB):
Streamlit's uploader counts a megabyte as 10**6 bytes on Linux and as 2**20 on some platforms, so
the limit here is the smaller reading, 200 * 10**6 bytes, for every input however it arrives
(a test keeps the two in step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast, overload

if TYPE_CHECKING:
    import numpy as np

#: server.maxUploadSize in .streamlit/config.toml, in MB.
UPLOAD_MB = 200
#: Bytes in one input file (checked with stat before reading, or on the uploaded bytes).
MAX_INPUT_BYTES = UPLOAD_MB * 10**6
#: Cells in one table (rows x columns), counted before a table is decoded (Parquet metadata) or
#: while it is read (CSV), and the rows of a table.
MAX_CELLS = 40_000_000
MAX_ROWS = 10_000_000
#: Columns in one table (a wide file's raters: each column costs about 13 KB to read) and
#: distinct raters in a long file.
MAX_COLUMNS = 20_000
MAX_RATERS = 100_000
#: Distinct labels in one dimension (numbers are not limited: they are held as float64).
MAX_LABELS = 1_000_000
#: Characters in one name or label (unit, rater, dimension, category).
MAX_NAME_CHARS = 1_000
#: Significant digits in a number. Ratings are held as float64 (every decimal with at most 15
#: significant digits has its own float64 and keeps its order), and read back exactly.
MAX_SIGNIFICANT_DIGITS = 15
#: Digits in a count (detector rates' positives and totals, token counts): counts beyond 10**18
#: are not counts of anything real, and Python refuses integers past 4,300 digits.
MAX_COUNT_DIGITS = 18
#: Nesting depth of JSON and TOML documents (the deepest real input, a bundle, has 4).
MAX_NESTING = 32
#: Uncompressed bytes a Parquet file may decode to, read from its metadata before decoding.
MAX_PARQUET_UNCOMPRESSED_BYTES = 2 * 10**9
#: An .xlsx part other than a sheet (workbook, relationships, styles) unpacks to at most this, and
#: the shared-string table to at most the next; sheets are streamed and their cells counted, within
#: the archive's total (MAX_PARQUET_UNCOMPRESSED_BYTES). Excel holds at most 32,767 characters in
#: a cell; a workbook's distinct texts are held in memory, so they are bounded too.
MAX_XLSX_PART_BYTES = 64 * 10**6
#: A sheet's XML: Excel's whole 1,048,576 rows x 20 columns of numbers is about 600 MB of it.
MAX_XLSX_SHEET_BYTES = 10**9
MAX_XLSX_STRINGS_BYTES = 256 * 10**6
XLSX_CELL_CHARS = 32_767
MAX_SHARED_STRINGS = 4_000_000
#: Characters of text a workbook's cells and shared strings may hold in all: each cell is capped,
#: but 30,000 cells of 32,767 characters pack into 2 MB. Ratings' labels are at most
#: MAX_NAME_CHARS each; this leaves room for long comment columns beside them.
MAX_XLSX_TEXT_CHARS = 100_000_000
#: One JSON member of an archive (an inspect_ai ``.eval`` log's header or one sample, attachments
#: included), counted as it inflates: a member is held whole while it is parsed (its bytes, its
#: text and its objects, about three times this at the worst), so this keeps one member's reading
#: within a few hundred MB. Real samples, long agent transcripts with images included, are a few MB.
MAX_ARCHIVE_JSON_MEMBER_BYTES = 64 * 10**6
#: All members of one zip archive together, counted as they inflate (and as declared, before).
MAX_ARCHIVE_UNPACKED_BYTES = MAX_PARQUET_UNCOMPRESSED_BYTES
#: Members of one zip archive, and the bytes of its central directory, read from its end record
#: before the directory is parsed: Python's zipfile holds about 600 bytes per member (100,000
#: members: 60 MB), and a 174 MB archive of 2,000,000 empty members took 1.5 GB. 100,000 is one
#: sample a member for 100,000 samples; the directory's bytes bound a count the end record
#: understates (at most 365,000 entries of the smallest size in 16 MB).
MAX_ARCHIVE_MEMBERS = 100_000
MAX_ARCHIVE_DIRECTORY_BYTES = 16 * 10**6
#: Characters of a URL parameter (the thresholds travel in ``?th=``).
MAX_URL_PARAM_CHARS = 4_000

#: Distinct values for which the coincidence matrix is built (a k x k structure): the heatmap,
#: the grouped bootstrap of non-nominal alpha and ratio alpha need it. Above, alpha and its
#: bootstrap come from sorted values and moments in O(n) and the matrix is not drawn.
COINCIDENCE_MAX_CATEGORIES = 64
#: The numpy engine holds the units' histograms as a values x units count matrix (one bincount,
#: then a pass per value) up to this many values; above, as sorted (unit, value, count) entries.
DENSE_MAX_CATEGORIES = 32
#: Ratio alpha's distance ((a - b) / (a + b))^2 has a new denominator for every pair of values, so
#: its exact expected disagreement needs the k x k matrix: it is computed up to this many values.
RATIO_MAX_CATEGORIES = COINCIDENCE_MAX_CATEGORIES
#: The largest score (and answer length) magnitude read, 10^15: below 2^53 (9.007e15), so every
#: whole number up to it is held exactly by a float64 as the file wrote it; and the audit's float
#: sums stay finite with room to spare (a square at most 1e30, times MAX_ROWS pairs 1e37; alpha's
#: expected disagreement (2 x 10^7 pairs)^2 x (2 x 10^15)^2 = 1.6e45, against float64's 1.8e308).
#: Beyond it a score is refused, located, before any sum is taken.
MAX_SCORE_MAGNITUDE = 10**15
#: The smallest magnitude of a score other than 0, 10^-15: a score is read exactly, as the decimal
#: it prints as, and alpha at the interval level squares the scores' common denominator, which a
#: float must still hold (from 10^-15 up, with a float's 17 digits at most, it is below 10^64; a
#: score of 5e-324 made it an integer no float holds: an internal error).
MIN_SCORE_MAGNITUDE = 1e-15
SCORE_RANGE = "a score from -10^15 to 10^15, 0 or at least 10^-15 in size"


@overload
def within_magnitude(x: float, smallest: float = 0.0) -> bool: ...
@overload
def within_magnitude(x: np.ndarray, smallest: float = 0.0) -> np.ndarray: ...


def within_magnitude(x: float | np.ndarray, smallest: float = 0.0) -> bool | np.ndarray:
    """The one rule for a score's (or an answer length's) size: at most MAX_SCORE_MAGNITUDE, and 0
    or at least ``smallest`` (MIN_SCORE_MAGNITUDE for a score); for a float or a numpy array
    elementwise. NaN and the infinities are outside.

    >>> within_magnitude(1e15), within_magnitude(1e308), within_magnitude(5e-324, MIN_SCORE_MAGNITUDE)
    (True, False, False)
    """
    size = cast("float | np.ndarray", abs(x))  # abs of the union reads as object
    return (size <= MAX_SCORE_MAGNITUDE) & ((size == 0) | (size >= smallest))


#: One audit compares at most this many judges: each judge is measured against the humans with its
#: own intervals (a few ms a judge, linear: 1,000 judges take about 3 s from the command line, 20,000
#: took 84 s to measure), and the report lists every judge. More are refused before the work, with
#: their count.
MAX_JUDGES = 1_000
#: A graded judge's scale: at most this many distinct scores (its audit builds score x score tables
#: for every pair of raters, so the tables grow with the square of this).
MAX_SCORE_VALUES = 200

#: Pages and reports draw every chart for at most this many dimensions (the worst first), and
#: summarise the rest in one table.
DETAIL_DIMENSIONS = 12
#: Leave-one-rater-out and detector-vs-human diagnostics run one alpha per rater: up to this many.
DIAGNOSTIC_RATERS = 50
#: Categories listed in a text report / the CLI before "... and N more".
LISTED_CATEGORIES = 30

#: How much of a bad cell an error message quotes, and the longest message.
EXCERPT_CHARS = 40
MESSAGE_CHARS = 400
#: Characters of a --positive category typed on the command line.
MAX_TYPED_CHARS = 200
