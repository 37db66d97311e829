"""Where a CSV's rows lie in the file: read again only when a message has to name a line.

pandas cuts a row longer than the header only with a warning (turned into an error by the readers)
and fills a shorter row's missing trailing cells as if they were empty, so a calibration label or
a carried text cell would be lost in silence. A missing trailing field always leaves the last
column empty, so the readers look here only when the last column has an empty cell.

pandas skips blank lines and numbers neither them nor the lines of a quoted cell's line breaks, so
every line number here comes from Python's csv module: the physical line, as an editor counts lines.
"""

from __future__ import annotations

import contextlib
import csv
import io
from array import array
from pathlib import Path

from .formats import table_kind


class _Lines:
    """The lines the csv reader takes, counted; ``ended`` once it asked for one past the last."""

    def __init__(self, stream):
        self.stream, self.count, self.ended, self.last = stream, 0, False, ""
        self.start = 1  # the first line of the record being read

    def __iter__(self):
        return self

    def __next__(self) -> str:
        line = self.stream.readline()
        if not line:
            self.ended = True
            raise StopIteration
        self.count, self.last = self.count + 1, line
        return line


@contextlib.contextmanager
def _text(source):
    """The text of a path, of bytes, or of a binary file object (read from its start and left open)."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as raw:  # streamed: called on files of any size
            yield io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="")
        return
    handle = io.BytesIO(source) if isinstance(source, (bytes, bytearray, memoryview)) else source
    handle.seek(0)
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="replace", newline="")
    try:
        yield text
    finally:
        text.detach()  # the caller's file stays open (and is read again when nothing was found)


def _records(lines: _Lines):
    """``(first line, spreadsheet row, fields, ran to the end inside a quote)`` of every record after the header."""
    reader = csv.reader(lines)
    next(reader, None)
    sheet = 1
    while True:
        start = lines.start = lines.count + 1
        row = next(reader, None)
        if row is None:
            return
        sheet += 1
        # A record ends at a line end outside quotes: one that asked past the last line was still inside one.
        yield start, sheet, row, lines.ended


def _blank(row: list[str]) -> bool:
    """A line pandas skips: empty, or spaces and tabs only (a quoted empty cell is a row)."""
    return not row or (len(row) == 1 and row[0] != "" and not row[0].strip())


def _first(source, wrong) -> tuple[int, int] | None:
    """``(first line, fields)`` of the first non-blank record after the header for which ``wrong(fields)`` holds."""
    with _text(source) as stream:
        for start, _, row, _ in _records(_Lines(stream)):
            if not _blank(row) and wrong(len(row)):
                return start, len(row)
    return None


def _long_row(source: str, found: tuple[int, int] | None, fields: int) -> str:
    where = "a data row has more fields" if found is None else f"line {found[0]} has {found[1]} field(s), more"
    return f"{source}: {where} than the header's {fields}; quote text that holds commas"


def long_row_problem(source: str, handle, fields: int) -> str:
    """The message for the first row with more than ``fields`` fields (a comment line as header counts too)."""
    return _long_row(source, _first(handle, lambda count: count > fields), fields)


def short_row(handle, fields: int) -> tuple[int, int] | None:
    """``(line, fields found)`` of the first row with fewer than ``fields`` fields, else ``None``."""
    return _first(handle, lambda count: count < fields)


def short_row_problem(source: str, found: tuple[int, int], fields: int) -> str:
    line, count = found
    return (f"{source}: line {line} has {count} field(s), fewer than the header's {fields}; its last cells would "
            "be read as empty (quote text that holds a line break, and give every row all its fields)")


def _breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _unclosed(source: str, line: int) -> str:
    return (f"{source}: line {line} opens a quoted cell (\") that is never closed; close it, and write a quote "
            "inside a cell as two (\"\")")


def parse_problem(source: str, handle, fields: int, reason: str) -> str | None:
    """The message for a file pandas' tokenizer refused (``reason``, its words), or ``None`` when none is found:
    a row longer than the header, or a quote left open to the end of the file."""
    lines = None
    try:
        with _text(handle) as stream:
            lines = _Lines(stream)
            for start, _, row, unclosed in _records(lines):
                if unclosed:  # the open cell is the row's last: it holds every line break after its quote
                    cell, end = row[-1], len(lines.last) - len(lines.last.rstrip("\r\n"))
                    return _unclosed(source, lines.count - _breaks(cell[: len(cell) - end]))
                if not _blank(row) and len(row) > fields:
                    return _long_row(source, (start, len(row)), fields)
    except csv.Error:  # a quote left open makes its cell outgrow the csv module's size limit
        if lines is not None and "EOF inside string" in reason:
            return _unclosed(source, lines.start)
    return None


class SheetRows:
    """``rows -> (spreadsheet rows, first lines)`` of a CSV's 0-based data rows (header = row 1 = line 1).

    The file is read again at the first call, which comes only when a message names a row: a
    spreadsheet shows a blank line as a row and a quoted cell's line breaks in one row; an editor
    numbers every line.
    """

    def __init__(self, source):
        self.source, self.table = source, None

    def __call__(self, rows) -> tuple[list[int], list[int]]:
        if self.table is None:
            sheet, first = array("q"), array("q")
            try:
                with _text(self.source) as stream:
                    for start, number, row, _ in _records(_Lines(stream)):
                        if not _blank(row):
                            sheet.append(number)
                            first.append(start)
            except csv.Error:  # a cell past the csv module's size limit: rows past it are counted as if plain
                pass
            self.table = sheet, first
        sheet, first = self.table
        pick = [int(r) for r in rows]
        return ([sheet[r] if r < len(sheet) else r + 2 for r in pick],
                [first[r] if r < len(first) else r + 2 for r in pick])


def sheet_rows(source, name=None):
    """A :class:`SheetRows` for a CSV (a path, or its bytes and ``name``), else ``False``."""
    return SheetRows(source) if table_kind(name if name is not None else source) == "csv" else False
