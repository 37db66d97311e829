"""Every table reader and writer of the project, once.

* :func:`read_table` / :func:`read_table_bytes` read CSV or Parquet (never pickle). Column
  names are taken exactly as written: a duplicate or empty header is refused, never renamed
  (pandas would silently turn a second ``score_a`` into ``score_a.1``).
* :func:`write_table` and :func:`write_files_atomic` write through a temporary file in the
  target's directory and ``os.replace``, so a reader never sees half a file, and a pair of
  files is written both or neither.
* :func:`spreadsheet_safe` neutralises text cells a spreadsheet would run as a formula.
* :func:`file_sha256` and :func:`parse_name_path` are the single copies of helpers the CLI,
  scoring, the build pipeline and the dashboard share (and :mod:`jecs_core.all_scores` turns an
  all-scores table into score columns).

Every error is a :class:`ScoreTableError` (a ``ValueError``) whose message is one line that
starts with the file name.
"""

from __future__ import annotations

import csv
import hashlib
import io
import stat
import warnings
from pathlib import Path

import pandas as pd

from ._arrow_cells import plain_cells, to_frame
from ._csv_rows import long_row_problem, parse_problem, short_row, short_row_problem
from ._mixed_columns import text_where_mixed
from ._roles import (
    display_breaker,
    read_as_written,  # noqa: F401  (re-exported for the readers outside the core)
)
from ._writers import (  # noqa: F401  (re-exported: io is the one place to import them from)
    FORMULA_PREFIXES,
    WRITE_SUFFIXES,
    check_output_path,
    csv_bytes,
    spreadsheet_safe,
    write_files_atomic,
    write_table,
)
from .formats import content_hint, file_head, suffix, table_kind

# The long layout of a score table (one row per item and model; see jecs_core.data).
LONG_TABLE_COLUMNS = ("item_id", "split", "model", "score")
# The "all scores" table the scoring engine writes: every detection score of every model.
ALL_SCORES_COLUMNS = ("item_id", "model", "score_name", "value")

# Pandas' default NA strings; item_id is read without them so an id such as "NA" or "null" stays an id.
_NA_STRINGS = sorted(pd._libs.parsers.STR_NA_VALUES)


class ScoreTableError(ValueError):
    """A table that cannot be read or breaks the data contract; the message names file, column and rows.

    ``problems`` lists every problem found (the message is the first), for callers that show them all.
    """

    def __init__(self, message: str, problems=None):
        super().__init__(one_line(message))
        self.problems = [one_line(p) for p in problems] if problems else [one_line(message)]


# Every character str.splitlines() breaks at, written as an escape so a message stays one line
# even when a file or column name holds a newline.
_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text) -> str:
    """``text`` with line breaks escaped (``\\n``), so a message is always one line."""
    return str(text).translate(_LINE_BREAKS)


def _one_line(text) -> str:
    return " ".join(str(text).split())


def file_sha256(path: str | Path) -> str:
    """SHA-256 hex digest of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def parse_name_path(spec: str, *, what: str = "NAME=PATH") -> tuple[str, str]:
    """Split ``"NAME=PATH"`` at the first ``=``; both parts must be non-empty (whitespace stripped).

    Raises
    ------
    ValueError
        Naming ``what`` (e.g. ``"--model"``) and the text given.
    """
    if not isinstance(spec, str):
        raise ValueError(f"{what}: expected NAME=PATH, got {spec!r}")
    name, sep, path = spec.partition("=")
    name, path = name.strip(), path.strip()
    if not sep or not name or not path:
        raise ValueError(f"{what}: expected NAME=PATH, got {spec!r}")
    return name, path


def check_header(names, source: str) -> list[str]:
    """Refuse duplicate, empty or non-text column names (nothing is renamed); return them as a list."""
    names = list(names)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise ScoreTableError(f"{source}: column name {bad[0]!r} is not text; name every column with a string")
    empty = [i + 1 for i, n in enumerate(names) if not n.strip()]
    if empty:
        raise ScoreTableError(f"{source}: column {empty[0]} has an empty header; name every column")
    # A line break would split every printed table (a tab is left to the tab-separated file's own hint).
    broken = next(((n, ch) for n in names if (ch := display_breaker(n, allow="\t"))), None)
    if broken:
        raise ScoreTableError(f"{source}: column name {broken[0]!r} holds a line break or control character "
                              f"(U+{ord(broken[1]):04X}); rename it")
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise ScoreTableError(
                f"{source}: column {name!r} appears twice (columns {seen[name] + 1} and {i + 1}); column names must be unique"
            )
        seen[name] = i
    return names


def csv_header(stream, source: str) -> list[str]:
    """The header row of a CSV text stream, checked by :func:`check_header`; one-line errors name ``source``."""
    try:
        row = next(csv.reader(stream), None)
    except UnicodeDecodeError:  # UTF-16 ("Unicode text"), Latin-1, a gzip or binary file given as CSV
        hint = content_hint(file_head(getattr(stream, "buffer", None)), text=False)
        raise ScoreTableError(f"{source}: not UTF-8 text" + (hint or "; save it as CSV UTF-8 (a compressed or binary "
                                                                      "file is not read)")) from None
    except csv.Error as exc:
        raise ScoreTableError(f"{source}: could not read the CSV header ({exc.__class__.__name__}: {_one_line(exc)})") from None
    blank = row is not None and len(row) <= 1 and not "".join(row).strip()  # csv gives [] for an empty line
    if row is None or (blank and not any(map(str.strip, stream))):  # white space only reads as nothing too
        raise ScoreTableError(f"{source}: the file is empty")
    if blank:  # a reader that skipped it would take the next line as the header
        raise ScoreTableError(f"{source}: line 1 is blank; the header (item_id, split, score_<model>, ...) must be "
                              "the first line")
    hint = ",".join(row)
    if len(hint) == 5 and hint[:4].lower() == "sep=":  # Excel's "sep=," (or "sep=;") line above the header
        raise ScoreTableError(f"{source}: line 1 ({hint!r}) is Excel's separator hint, not the header; delete "
                              "that line, so that the header (item_id, split, score_<model>, ...) is the first line")
    for sep, word in ((";", "semicolon"), ("\t", "tab"), ("|", "pipe")):  # "item_id;split;score_a" read as one name
        if sum(name.count(sep) for name in row) >= len(row):
            raise ScoreTableError(f"{source}: looks {word}-separated ({sep!r} in its header line); save it as "
                                  "comma-separated CSV (in a spreadsheet: 'CSV, comma delimited')")
    marked = [i + 1 for i, name in enumerate(row) if name.startswith("\ufeff")]  # a file saved with two of them
    if marked:
        raise ScoreTableError(f"{source}: column {marked[0]} ({row[marked[0] - 1].lstrip(chr(0xFEFF))!r}) starts with a "
                              "stray byte-order mark (U+FEFF, an invisible character); delete that character from the header line")
    return check_header(row, source)


# Above this many columns a per-column NA dict costs pandas seconds per 10,000 columns (one Series each):
# the file is read with NA strings everywhere and its text columns re-read on their own.
WIDE_HEADER = 2_000


def csv_options(header: list[str], text_columns=("item_id",)) -> dict:
    """The ``pandas.read_csv`` options every score-table CSV is read with (one place, so every reader types cells alike)."""
    as_text = {name: str for name in text_columns if name in header}
    wide = len(header) > WIDE_HEADER
    na = _NA_STRINGS if wide else {name: _NA_STRINGS for name in header if name not in text_columns}
    return {"dtype": as_text or None, "keep_default_na": False, "na_values": na, "index_col": False,
            "encoding": "utf-8-sig"}


def _read_csv(handle, header: list[str], source: str, text_columns=("item_id",)) -> pd.DataFrame:
    text_columns = tuple(text_columns(header)) if callable(text_columns) else text_columns  # e.g. read_as_written
    options = csv_options(header, text_columns)
    as_text = options["dtype"] or {}
    wide = len(header) > WIDE_HEADER
    if wide and as_text and not isinstance(handle, (str, Path)):
        handle = io.BytesIO(handle.read())  # read twice below
    try:
        with warnings.catch_warnings():
            # A row longer than the header would be cut silently; make it an error instead.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            # Its advice (low_memory=False) is taken below, for the columns it concerns.
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(handle, **options)
    except pd.errors.EmptyDataError:
        raise ScoreTableError(f"{source}: the file is empty") from None
    except pd.errors.ParserWarning:
        raise ScoreTableError(long_row_problem(source, handle, len(header))) from None
    except pd.errors.ParserError as exc:  # its line numbers skip blank lines and a quoted cell's line breaks
        found = parse_problem(source, handle, len(header), str(exc))
        raise ScoreTableError(found or f"{source}: could not be read as CSV (ParserError: {_one_line(exc)})") from None
    except UnicodeDecodeError as exc:  # a Latin-1 cell far below a UTF-8 header
        raise ScoreTableError(f"{source}: not UTF-8 text ({_one_line(exc)}); save it as CSV UTF-8") from None
    except Exception as exc:  # the parser raises many types for malformed input
        raise ScoreTableError(f"{source}: could not be read as CSV ({exc.__class__.__name__}: {_one_line(exc)})") from None
    if wide and as_text:
        if not isinstance(handle, (str, Path)):
            handle.seek(0)
        kept = pd.read_csv(handle, usecols=list(as_text), dtype=as_text, keep_default_na=False, encoding="utf-8-sig")
        for name in as_text:
            frame[name] = kept[name].to_numpy()
    if list(frame.columns) != header:  # never let the parser rename a column behind our back
        raise ScoreTableError(f"{source}: the CSV header could not be read exactly as written")
    if len(header) > 1 and last_cell_empty(frame.iloc[:, -1]):  # a short row leaves it empty: find one
        found = short_row(handle, len(header))
        if found is not None:
            raise ScoreTableError(short_row_problem(source, found, len(header)))
    return text_where_mixed(frame, handle, options)


def last_cell_empty(column: pd.Series) -> bool:
    """Whether a CSV's last column has an empty cell (NaN, or "" where cells are read as text)."""
    return bool(column.isna().any() or (not pd.api.types.is_numeric_dtype(column.dtype) and column.eq("").any()))


def _read_parquet(handle, source: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(handle)
        check_header(parquet.schema_arrow.names, source)  # before reading: pyarrow fails on duplicates
        arrow = parquet.read()
    except ScoreTableError:
        raise
    except Exception as exc:
        raise ScoreTableError(f"{source}: could not be read as Parquet ({exc.__class__.__name__}: {_one_line(exc)})"
                              f"{content_hint(file_head(handle))}") from None
    arrow = plain_cells(arrow, source, ScoreTableError)
    try:
        frame = to_frame(arrow)
    except Exception as exc:
        raise ScoreTableError(f"{source}: could not convert the Parquet columns ({exc.__class__.__name__}: {_one_line(exc)})") from None
    if frame.index.names != [None]:  # a stored, named pandas index is data: bring it back as columns
        frame = frame.reset_index()
    frame = frame.reset_index(drop=True)
    check_header(frame.columns, source)
    return frame


def _kind(name: str, source: str) -> str:
    kind = table_kind(name)
    if kind is None:
        raise ScoreTableError(f"{source}: unsupported file type '{suffix(name)}', expected .csv or .parquet")
    return kind


def read_table(path: str | Path, *, text_columns=("item_id",)) -> pd.DataFrame:
    """Read a ``.csv`` or ``.parquet`` file (by extension) into a DataFrame, column names exactly as written.

    A CSV's ``text_columns`` (default ``item_id``, or a function of the header) are text, without pandas' NA strings
    ("NA" stays "NA", an empty cell is ""); the rest is typed. Parquet is read through pyarrow; nothing is unpickled.

    Raises
    ------
    ScoreTableError
        One line naming the file: missing, a directory, an unknown extension, unreadable,
        or a duplicate / empty column name.
    """
    if not str(path).strip():  # Path("") is the working directory
        raise ScoreTableError(f"the path is empty ({str(path)!r}); name a .csv or .parquet file")
    path = Path(path)
    source = str(path)
    if not path.exists():
        raise ScoreTableError(f"{source}: file not found")
    if path.is_dir():
        raise ScoreTableError(f"{source}: is a directory, expected a .csv or .parquet file")
    if not stat.S_ISREG(path.stat().st_mode):  # a device or FIFO would be read without end or block forever
        raise ScoreTableError(f"{source}: not a regular file (a device, pipe or socket); expected a .csv or .parquet file")
    kind = _kind(path.name, source)
    try:
        if kind == "parquet":
            return _read_parquet(str(path), source)
        with open(path, encoding="utf-8-sig", newline="") as stream:
            header = csv_header(stream, source)
        return _read_csv(path, header, source, text_columns)
    except OSError as exc:
        raise ScoreTableError(f"{source}: could not be read ({exc.__class__.__name__}: {_one_line(exc.strerror or exc)})") from None


def read_table_bytes(data: bytes, name: str, *, text_columns=("item_id",)) -> pd.DataFrame:
    """:func:`read_table` for uploaded bytes; ``name``'s extension picks the parser and names the file in errors."""
    source = str(name)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ScoreTableError(f"{source}: expected the file's bytes, got {type(data).__name__}")
    kind = _kind(source, source)
    if len(data) == 0:
        raise ScoreTableError(f"{source}: the file is empty")
    if kind == "parquet":
        import pyarrow as pa

        return _read_parquet(pa.BufferReader(bytes(data)), source)
    header = csv_header(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=""), source)
    return _read_csv(io.BytesIO(data), header, source, text_columns)
