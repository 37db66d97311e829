"""A CSV writer that gives the bytes ``DataFrame.to_csv(index=False)`` gives, several times faster.

``pandas.to_csv`` formats every float through numpy's Python-level ``str`` (Dragon4), about
three microseconds a cell; a 10^6-row selection export has 3.6e7 cells. Here each column is
turned into text by Arrow's C++ kernels and the rows are joined by Arrow too:

* float64 (each distinct value formatted once): Arrow's shortest round-trip digits are the digits of ``repr``; only the layout can
  differ (Arrow writes ``1`` for ``1.0`` and switches to exponent notation at other magnitudes),
  so integral values get ``.0`` and every value Arrow wrote with an exponent, or that ``repr``
  writes with one (``|x| < 1e-4`` or ``>= 1e16``), is formatted by ``repr`` itself;
* integers as Arrow writes them (as ``str``); booleans ``True`` / ``False``; missing values empty;
* text quoted exactly when Python's ``csv`` module (``QUOTE_MINIMAL``, as pandas calls it) quotes
  it: a comma, a double quote or a newline (and a carriage return on Pythons that quote it).

Any other column type (dates, categories, mixed objects, float32, ...) makes :func:`write_csv`
fall back to ``DataFrame.to_csv`` for the whole frame, so the bytes never differ from pandas';
``tests/hostile/test_hostile_export.py`` compares the two on awkward frames.
"""

from __future__ import annotations

import csv
import io
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

_ROWS_PER_CHUNK = 200_000  # bounds the memory of one joined chunk


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
_QUOTE_PATTERN = "[" + "".join(c for c in (",", '"', "\n", "\r") if _csv_quotes(c)).replace("\n", "\\n").replace("\r", "\\r") + "]"


class _Unsupported(Exception):
    """A column the fast path does not format exactly like pandas."""


def _float_text(values: np.ndarray):
    """Format each distinct value once when values repeat (conformal p-values take at most m+1 values)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(values) > 1000 and not (np.signbit(values) & (values == 0)).any():  # unique() would merge -0.0 into 0.0
        # A hash pass (factorize) finds the distinct values without np.unique's sort of n values.
        inverse, distinct = pd.factorize(values, use_na_sentinel=False)
        if len(distinct) <= len(values) // 2:
            return pc.take(_float_text_each(np.asarray(distinct, dtype=np.float64)), pa.array(inverse))
    return _float_text_each(values)


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
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        raise _Unsupported from None
    if not pa.types.is_string(text.type) and not pa.types.is_large_string(text.type):
        if text.null_count == len(text) and len(text):  # an all-missing object column writes as empty cells
            return pa.nulls(len(text), pa.large_string())
        raise _Unsupported
    text = text.cast(pa.large_string())
    needs_quotes = pc.match_substring_regex(text, _QUOTE_PATTERN).fill_null(False)
    quoted = pc.binary_join_element_wise(_lit('"'), pc.replace_substring(text, '"', '""'), _lit('"'), _lit(""))
    return pc.if_else(needs_quotes, quoted, text)


def _column_text(series: pd.Series):
    """The column's cells as an Arrow string array (missing -> empty), or raise ``_Unsupported``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = series.dtype
    if dtype == np.float64:
        text = _float_text(series.to_numpy())
    elif dtype.kind in "iu" and isinstance(dtype, np.dtype):
        text = pc.cast(pa.array(series.to_numpy()), pa.string())
    elif dtype == np.bool_:
        text = pc.if_else(pa.array(series.to_numpy()), _lit("True"), _lit("False"))
    elif pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        text = _text_column(series)
    else:
        raise _Unsupported
    if isinstance(text, pa.ChunkedArray):  # Arrow-backed pandas columns come chunked; rows need one buffer
        text = text.combine_chunks()
    return text.cast(pa.large_string()).fill_null("")


def _header_line(columns) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([str(c) for c in columns])
    return buffer.getvalue()


def _write_rows(handle, texts: list, n_rows: int) -> None:
    import pyarrow.compute as pc

    for start in range(0, n_rows, _ROWS_PER_CHUNK):
        parts = [t.slice(start, _ROWS_PER_CHUNK) for t in texts]
        if len(parts) == 1:
            rows = pc.binary_join_element_wise(parts[0], _lit("\n"), _lit(""))
        else:
            rows = pc.binary_join_element_wise(pc.binary_join_element_wise(*parts, _lit(",")), _lit("\n"), _lit(""))
        if hasattr(rows, "combine_chunks"):
            rows = rows.combine_chunks()
        offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)[rows.offset: rows.offset + len(rows) + 1]
        handle.write(memoryview(rows.buffers()[2])[int(offsets[0]): int(offsets[-1])])


def write_csv(frame: pd.DataFrame, path) -> str:
    """Write ``frame`` like ``frame.to_csv(path, index=False)`` to a path or a binary file object.

    Returns ``"fast"`` or ``"pandas"`` (the path taken).
    """
    if hasattr(path, "write"):
        return _write_csv(frame, path)
    with open(path, "wb") as handle:
        return _write_csv(frame, handle)


def _write_csv(frame: pd.DataFrame, handle) -> str:
    # One column: the csv module quotes an empty cell ('""'); leave such frames to pandas.
    if not frame.columns.is_unique or frame.shape[1] < 2 or frame.shape[0] == 0:
        handle.write(frame.to_csv(index=False).encode("utf-8"))
        return "pandas"
    try:
        # Arrow's kernels release the GIL, so columns format in parallel on a multi-core machine.
        with ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
            texts = list(pool.map(lambda j: _column_text(frame.iloc[:, j]), range(frame.shape[1])))
    except _Unsupported:
        handle.write(frame.to_csv(index=False).encode("utf-8"))
        return "pandas"
    handle.write(_header_line(frame.columns).encode("utf-8"))
    _write_rows(handle, texts, frame.shape[0])
    return "fast"
