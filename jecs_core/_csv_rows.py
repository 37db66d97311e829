"""Where a CSV row has another number of fields than its header: read only when a parse needs the line.

pandas cuts a row longer than the header only with a warning (turned into an error by the readers)
and fills a shorter row's missing trailing cells as if they were empty, so a calibration label or
a carried text cell would be lost in silence. A missing trailing field always leaves the last
column empty, so the readers look here only when the last column has an empty cell.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path


def _first(handle, wrong) -> tuple[int, int] | None:
    """``(first line, fields)`` of the first non-blank record after the header for which ``wrong(fields)`` holds."""
    if isinstance(handle, (str, Path)):
        with open(handle, "rb") as raw:  # streamed: the chunked reader calls this on files of any size
            return _first(raw, wrong)
    handle.seek(0)
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
    try:
        reader = csv.reader(text)
        next(reader, None)
        start = reader.line_num + 1
        for row in reader:
            if row and not (len(row) == 1 and not row[0].strip()) and wrong(len(row)):  # pandas skips blank lines
                return start, len(row)
            start = reader.line_num + 1
        return None
    finally:
        text.detach()  # the caller's file stays open (and is read again when nothing was found)


def long_row(handle, fields: int) -> str:
    """"line N" of the first row with more than ``fields`` fields (a comment line as header counts too)."""
    found = _first(handle, lambda count: count > fields)
    return "a data row" if found is None else f"line {found[0]}"


def short_row(handle, fields: int) -> tuple[int, int] | None:
    """``(line, fields found)`` of the first row with fewer than ``fields`` fields, else ``None``."""
    return _first(handle, lambda count: count < fields)


def short_row_problem(source: str, found: tuple[int, int], fields: int) -> str:
    line, count = found
    return (f"{source}: line {line} has {count} field(s), fewer than the header's {fields}; its last cells would "
            "be read as empty (quote text that holds a line break, and give every row all its fields)")
