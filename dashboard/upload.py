"""Uploaded bytes -> a validated :class:`jecs_core.ScoreTable` (CSV or Parquet only, never pickle).

The Data page's file uploader and the tests both go through :func:`parse_upload`, so the
validation a user sees is the one the tests check. Bytes are parsed in memory by
:func:`jecs_core.load_scores_bytes` (the core's reader and data contract); nothing is written
to disk. :func:`problems` turns a refusal into the list of messages the page shows, with
the hints a spreadsheet user needs (the delimiter; line numbers where the message lacks them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from jecs_core import ScoreTable, ScoreTableError, load_scores_bytes
from jecs_core.formats import table_kind

# Used when Streamlit's ``server.maxUploadSize`` (in MB, see .streamlit/config.toml) is not available.
DEFAULT_MAX_UPLOAD_MB = 200
# A Parquet upload may decode to at most this many times the upload limit in memory (numbers at 8 bytes a cell).
MEMORY_FACTOR = 2
UPLOAD_TYPES = ("csv", "parquet")
LINE_HINT = ("Rows are counted as data rows, the header not included: data row r is on line r + 1 "
             "of the file (spreadsheet row r + 1).")


def parquet_footprint_problem(name: str, data: bytes, max_mb: float) -> str | None:
    """A one-line refusal for a Parquet upload whose rows would take far more memory than the upload limit.

    A few MB of Parquet can hold tens of millions of rows of repeated values (a run-length and
    dictionary encoded column costs almost nothing on disk): read, they take gigabytes of the
    shared server's memory. The footer says the row and column counts before anything is read;
    eight bytes per cell is what a number column takes in memory (text takes more).
    """
    shape = parquet_shape(name, data)
    if shape is None:
        return None
    rows, columns = shape
    cells_mb = rows * columns * 8 / 1e6
    if cells_mb <= MEMORY_FACTOR * max_mb:
        return None
    return (f"{name}: {rows:,} rows x {columns} columns would take at least {cells_mb:,.0f} MB in "
            f"memory, above {MEMORY_FACTOR} x the dashboard's {max_mb:g} MB upload limit (server.maxUploadSize in "
            ".streamlit/config.toml); use the command line (`jecs select`, `jecs score`) for larger tables")


def parquet_shape(name: str, data: bytes | Path) -> tuple[int, int] | None:
    """``(rows, columns)`` from a Parquet file's footer (its bytes or its path); ``None`` for any other file."""
    if table_kind(name) != "parquet":
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(str(data) if isinstance(data, Path) else pa.BufferReader(data)).metadata
    except (pa.ArrowException, OSError, ValueError):
        return None  # not a readable Parquet file: the reader names what is wrong with it
    return meta.num_rows, meta.num_columns


def parse_upload(
    name: str,
    data: bytes,
    *,
    layout: str = "auto",
    lower_is_member: bool = False,
    max_mb: float = DEFAULT_MAX_UPLOAD_MB,
    progress: Callable[[str], None] | None = None,
) -> ScoreTable:
    """Validate an uploaded score table.

    Parameters
    ----------
    name : str
        The uploaded file's name; its suffix picks the parser and it names the file in errors.
    data : bytes
        The file's content.
    layout : {"auto", "wide", "long"}
        See :func:`jecs_core.table_from_frame`.
    lower_is_member : bool
        Scores run the other way (smaller = more member-like); they are negated on load.
    max_mb : float
        Size limit in megabytes.
    progress : callable, optional
        ``progress(step)`` with a short description of each stage (reading, validating).

    Raises
    ------
    jecs_core.ScoreTableError
        With a readable message naming the file and, for contract errors, the column and rows.
    """
    size_mb = len(data) / 1e6
    if size_mb > max_mb:
        raise ScoreTableError(
            f"{name}: the file is {size_mb:,.1f} MB, above the dashboard's limit of {max_mb:g} MB "
            "(server.maxUploadSize in .streamlit/config.toml); use the command line (`jecs select`) for larger tables"
        )
    problem = parquet_footprint_problem(name, data, max_mb)
    if problem:
        raise ScoreTableError(problem)
    # The core's loader (messages name the spreadsheet row next to the data row), so an upload and
    # jecs_core.load_scores_bytes give one table for one file.
    return load_scores_bytes(data, name, layout=layout, lower_is_member=lower_is_member, progress=progress)


def _looks_semicolon_separated(name: str, data: bytes) -> bool:
    if table_kind(name) != "csv":
        return False
    first = data[:4096].split(b"\n", 1)[0]
    return first.count(b";") > 0 and first.count(b";") > first.count(b",")


def problems(name: str, data: bytes, error: Exception) -> list[str]:
    """Every problem of a refused file, as lines of plain text (most important first).

    Uses the error's ``problems`` list when the data contract provides one (all problems at
    once), else its message; adds a delimiter hint for semicolon-separated files and the
    line-number convention when rows are named.
    """
    lines = list(error.problems) if isinstance(error, ScoreTableError) else [str(error)]
    # The core's header check says it for most such files; said once.
    if _looks_semicolon_separated(name, data) and not any("semicolon" in line for line in lines):
        lines.insert(0, f"{name} looks semicolon-separated (';' in its header line). Save it as comma-separated "
                        "CSV (in a spreadsheet: 'CSV, comma delimited'), then upload it again.")
    numbered = re.compile(r"\brows? \[?\d")  # a message that names rows by number (not "the table has no rows")
    if any(numbered.search(line) for line in lines) and not any("spreadsheet row" in line for line in lines):
        lines.append(LINE_HINT)
    return lines


def upload_key(table: ScoreTable, layout: str) -> str:
    """A cache key that changes whenever the bytes or the load options do."""
    return f"upload:{table.source_sha256}:{layout}:{int(table.flipped)}"
