"""A CSV writer that gives the bytes ``DataFrame.to_csv(index=False)`` gives, several times faster.

``pandas.to_csv`` formats every float through numpy's Python-level ``str`` (Dragon4), about
three microseconds a cell; a 10^6-row selection export has 3.6e7 cells. Here each column is
turned into text by Arrow's C++ kernels and the rows are joined by Arrow too:

* float64 (each distinct value formatted once; the m + 1 possible conformal p-values once for every
  p-value column, given ``denominator``): Arrow's shortest round-trip digits are the digits of ``repr``; only the layout can
  differ (Arrow writes ``1`` for ``1.0`` and switches to exponent notation at other magnitudes),
  so integral values get ``.0`` and every value Arrow wrote with an exponent, or that ``repr``
  writes with one (``|x| < 1e-4`` or ``>= 1e16``), is formatted by ``repr`` itself;
* integers as Arrow writes them (as ``str``); booleans ``True`` / ``False``; missing values empty;
* text quoted exactly when Python's ``csv`` module (``QUOTE_MINIMAL``, as pandas calls it) quotes
  it: a comma, a double quote or a newline (and a carriage return on Pythons that quote it).

Rows are formatted, joined and written a block at a time, blocks in parallel (:func:`write_columns` also takes a
mapping of arrays, so an export needs no DataFrame): the text in memory is one block's, not the file's.

Any other column type (dates, categories, mixed objects, float32, ...) makes :func:`write_csv`
fall back to ``DataFrame.to_csv`` for the whole frame, so the bytes never differ from pandas';
``tests/hostile/test_hostile_fuzz.py`` compares the two on awkward frames.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._arrow_text import holds_any_byte
from ._blocks import row_blocks
from ._grid import grid_steps

_ROWS_PER_CHUNK = 16_384  # rows formatted and joined at a time: bounds the text held in memory


def _lit(text: str):
    """A large-string scalar: Arrow's join kernels need every argument of one string type."""
    import pyarrow as pa

    return pa.scalar(text, pa.large_string())


def _csv_quotes(char: str) -> bool:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([f"a{char}b", "c"])
    return buffer.getvalue().startswith('"')


# The characters that make Python's csv module (as pandas calls it) quote a cell; whether a lone
# carriage return counts differs between Python versions, so ask the running one.
_QUOTING = [c for c in (",", '"', "\n", "\r") if _csv_quotes(c)]
_QUOTE_PATTERN = "[" + "".join(_QUOTING).replace("\n", "\\n").replace("\r", "\\r") + "]"
_QUOTE_BYTES = np.array([ord(c) for c in _QUOTING], dtype=np.uint8)


class _Unsupported(Exception):
    """A column the fast path does not format exactly like pandas."""


class _Grid(NamedTuple):
    """The texts of k / d for k = 1..d, shared by every column whose values all lie on that grid."""

    texts: object  # Arrow strings; row k - 1 is the text of k / d
    d: int


def _grid_texts(d: int) -> _Grid:
    return _Grid(_float_text_each(np.arange(1, d + 1, dtype=np.float64) / d), d)


def _on_grid(values: np.ndarray, d: int) -> bool:
    """Whether every value is k / d (as float64 division gives it) for an integer k in [1, d]."""
    for rows in row_blocks(values.shape[0]):  # small buffers beside the table
        k = grid_steps(values[rows], d)
        if k is None or not ((k >= 1) & (k <= d)).all():
            return False
    return True


def _float_plan(values: np.ndarray):
    """Each distinct value's text and every row's index into it, when values repeat (conformal p-values
    take at most m+1 values); ``None`` when formatting each value is as cheap."""
    if len(values) <= 1000 or (np.signbit(values) & (values == 0)).any():  # unique() would merge -0.0 into 0.0
        return None
    # A hash pass (factorize) finds the distinct values without np.unique's sort of n values.
    inverse, distinct = pd.factorize(values, use_na_sentinel=False)
    if len(distinct) > len(values) // 2:
        return None
    return _float_text_each(np.asarray(distinct, dtype=np.float64)), inverse.astype(np.int32, copy=False)


def _float_text_each(values: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = np.isnan(values)
    text = pc.cast(pa.array(values, mask=missing), pa.large_string())
    magnitude = np.abs(values)
    python_exponent = (magnitude != 0) & ((magnitude < 1e-4) | (magnitude >= 1e16)) & np.isfinite(values)
    need_repr = python_exponent | pc.match_substring(text, "e").fill_null(False).to_numpy(zero_copy_only=False)
    integral = ~need_repr & ~missing & np.isfinite(values) & (np.floor(values) == values)
    if integral.any():
        text = pc.if_else(pa.array(integral), pc.binary_join_element_wise(text, _lit(".0"), _lit("")), text)
    if need_repr.any():
        rows = np.flatnonzero(need_repr)
        text = pc.replace_with_mask(text, pa.array(need_repr), pa.array([repr(v) for v in values[rows].tolist()], pa.large_string()))
    return text


def _text_column(series: pd.Series):
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        text = pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):  # e.g. Python ints beyond 64 bits
        raise _Unsupported from None
    if not pa.types.is_string(text.type) and not pa.types.is_large_string(text.type):
        if text.null_count == len(text) and len(text):  # an all-missing object column writes as empty cells
            return pa.nulls(len(text), pa.large_string())
        raise _Unsupported
    text = text.cast(pa.large_string())
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    if not holds_any_byte(text, _QUOTE_BYTES):  # one byte scan; the per-cell quoting below took 5x as long on 10^6 ids
        return text
    needs_quotes = pc.match_substring_regex(text, _QUOTE_PATTERN).fill_null(False)
    quoted = pc.binary_join_element_wise(_lit('"'), pc.replace_substring(text, '"', '""'), _lit('"'), _lit(""))
    return pc.if_else(needs_quotes, quoted, text)


def _column_text(series: pd.Series, plan=None, rows: slice = slice(None)):
    """The cells ``rows`` of the column as an Arrow string array (missing -> empty), or raise ``_Unsupported``.

    ``plan`` is the column's :func:`_float_plan` (float64 columns): the rows' texts are taken from it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = series.dtype
    if isinstance(plan, _Grid):  # k = rint(v * d), exact for values on the grid (checked before)
        text = pc.take(plan.texts, pa.array(np.rint(series.to_numpy()[rows] * plan.d).astype(np.int64) - 1))
    elif plan is not None:
        text = pc.take(plan[0], pa.array(plan[1][rows]))
    elif dtype == np.float64:
        text = _float_text_each(series.to_numpy()[rows])
    elif dtype.kind in "iu" and isinstance(dtype, np.dtype):
        text = pc.cast(pa.array(series.to_numpy()[rows]), pa.string())
    elif dtype == np.bool_:
        text = pc.if_else(pa.array(series.to_numpy()[rows]), _lit("True"), _lit("False"))
    elif isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iub":  # nullable: a gap is empty
        values = pa.array(series.iloc[rows], from_pandas=True)
        text = pc.if_else(values, _lit("True"), _lit("False")) if dtype.kind == "b" else pc.cast(values, pa.string())
    elif pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        text = _text_column(series.iloc[rows])
    else:
        raise _Unsupported
    if isinstance(text, pa.ChunkedArray):  # Arrow-backed pandas columns come chunked; rows need one buffer
        text = text.combine_chunks()
    return text.cast(pa.large_string()).fill_null("")


def _plans(pool, series: list, denominator: int | None) -> list:
    """Each column's plan: the shared grid of k / ``denominator`` for a float column wholly on it, else
    :func:`_float_plan` (float columns) or ``None``; the grid's texts are made once, if any column uses it."""
    floats = [column.dtype == np.float64 for column in series]
    on_grid = list(pool.map(lambda column, is_float: bool(is_float and denominator and _on_grid(column.to_numpy(), denominator)),
                            series, floats))
    grid = _grid_texts(denominator) if any(on_grid) else None
    return list(pool.map(lambda column, is_float, gridded: grid if gridded else _float_plan(column.to_numpy()) if is_float else None,
                         series, floats, on_grid))


def _header_line(columns) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([str(c) for c in columns])
    return buffer.getvalue()


def _joined_rows(texts: list) -> memoryview:
    """The CSV lines of one block: its columns' texts joined by commas, each row ended by a newline."""
    import pyarrow.compute as pc

    # The newline goes on the last column's cells (one column's pass), so the rows are joined in one pass.
    last = pc.binary_join_element_wise(texts[-1], _lit("\n"), _lit(""))
    rows = last if len(texts) == 1 else pc.binary_join_element_wise(*texts[:-1], last, _lit(","))
    if hasattr(rows, "combine_chunks"):
        rows = rows.combine_chunks()
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)[rows.offset: rows.offset + len(rows) + 1]
    return memoryview(rows.buffers()[2])[int(offsets[0]): int(offsets[-1])]


def write_csv(frame: pd.DataFrame, path) -> str:
    """Write ``frame`` like ``frame.to_csv(path, index=False)`` to a path or a binary file object.

    Returns ``"fast"`` or ``"pandas"`` (the path taken).
    """
    return write_columns(frame, path)


def write_columns(columns, path, *, workers: int | None = None, denominator: int | None = None) -> str:
    """Write ``columns`` like ``pandas.DataFrame(columns).to_csv(path, index=False)``, a block of rows at a time.

    Parameters
    ----------
    columns : pandas.DataFrame or mapping of str to 1-D array
        The table; a mapping's arrays are wrapped without copying (no DataFrame is built unless
        a column type sends the write to pandas).
    path : str, pathlib.Path or binary file object
        Where to write.
    workers : int, optional
        Threads formatting blocks of rows while this one writes them (default: one per CPU, at
        most 8); a caller with other work running beside the export leaves it cores by asking for fewer.
    denominator : int, optional
        ``d`` when float columns may hold only the values k / d for integers k in [1, d] (conformal
        p-values: d = m + 1): the d texts are formatted once for every column found wholly on
        that grid, and a row's text is looked up by k. Every float column is checked; one that is
        not on the grid is formatted as any other.

    Returns
    -------
    str
        ``"fast"`` or ``"pandas"`` (the path taken).
    """
    workers = max(1, min(8, os.cpu_count() or 1)) if workers is None else max(1, int(workers))
    if denominator is not None and (isinstance(denominator, bool) or int(denominator) != denominator or denominator < 1):
        raise ValueError(f"denominator must be an integer >= 1, got {denominator!r}")
    if hasattr(path, "write"):
        return _write_csv(columns, path, workers, denominator)
    with open(path, "wb") as handle:
        return _write_csv(columns, handle, workers, denominator)


def _pandas_csv(columns, handle) -> str:
    frame = columns if isinstance(columns, pd.DataFrame) else pd.DataFrame(dict(columns))
    handle.write(frame.to_csv(index=False).encode("utf-8"))
    return "pandas"


def _write_csv(columns, handle, workers: int, denominator: int | None) -> str:
    if isinstance(columns, pd.DataFrame):
        names, series = list(columns.columns), [columns.iloc[:, j] for j in range(columns.shape[1])]
        unique = columns.columns.is_unique
    else:
        names, unique = list(columns), True
        series = [value if isinstance(value, pd.Series) else pd.Series(np.asarray(value), copy=False) for value in columns.values()]
    n_rows = len(series[0]) if series else 0
    # One column: the csv module quotes an empty cell ('""'); leave such frames to pandas.
    if not unique or len(series) < 2 or n_rows == 0:
        return _pandas_csv(columns, handle)
    start = handle.tell() if handle.seekable() else None
    def block(first: int) -> memoryview:  # one block's lines: every column formatted for its rows, then joined
        rows = slice(first, first + _ROWS_PER_CHUNK)
        return _joined_rows([_column_text(s, plan, rows) for s, plan in zip(series, plans)])

    # Arrow's kernels release the GIL, so blocks of rows format and join in parallel on a multi-core
    # machine while the lines already done are written in order; one block per thread is in
    # memory beside the one being written.
    pending: deque = deque()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            plans = _plans(pool, series, denominator if denominator and denominator <= n_rows else None)
            starts = iter(range(0, n_rows, _ROWS_PER_CHUNK))
            pending.extend(pool.submit(block, first) for first in itertools.islice(starts, workers))
            header = True
            while pending:
                lines = pending.popleft().result()
                pending.extend(pool.submit(block, first) for first in itertools.islice(starts, 1))
                if header:  # once every column type is known to be taken
                    handle.write(_header_line(names).encode("utf-8"))
                    header = False
                handle.write(lines)
        except _Unsupported:
            for future in pending:
                future.cancel()
            if start is None:
                raise ValueError("a column type the fast CSV writer does not take, on an unseekable output") from None
            handle.seek(start)
            handle.truncate()
            return _pandas_csv(columns, handle)
    return "fast"
