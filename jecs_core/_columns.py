"""Cell-level checks of the data contract: numbers, labels, and how rows are named in messages.

Every check returns its problems as one-line strings (``"<source>: column '<name>': ... at rows
..."``) instead of raising, so a caller can list all of them (the dashboard does) or raise the
first (the CLI does).
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

MAX_ROWS_LISTED = 5
SPLITS = ("calibration", "test")

# infer_dtype kinds that are plain numbers, and what the refused kinds are called in messages.
_NUMBER_KINDS = {"integer", "floating", "mixed-integer-float", "decimal", "empty"}
_REFUSED_KINDS = {
    "boolean": "boolean values (True/False)",
    "complex": "complex numbers",
    "datetime": "dates/times",
    "datetime64": "dates/times",
    "date": "dates",
    "time": "times of day",
    "timedelta": "time spans",
    "timedelta64": "time spans",
    "period": "periods",
    "bytes": "raw bytes",
    "interval": "intervals",
    "categorical": "categories",
}


def show(value) -> str:
    """repr() of a cell value without numpy's type wrapper (``2``, not ``np.int64(2)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


@dataclass(frozen=True)
class Where:
    """How rows of the checked frame are named in messages.

    ``origin[i]`` is the 0-based row of the source that frame row ``i`` came from (a long
    table's rows are pivoted to one row per item). Rows are 1-based data rows (the header not
    counted); when the frame was read from a file, the spreadsheet row (header = row 1) follows:
    ``from_file`` is ``True`` (rows one below the data row) or a :class:`jecs_core._csv_rows.SheetRows`,
    which counts blank lines too and adds the editor's line where a quoted line break makes it differ.
    """

    source: str
    origin: np.ndarray
    from_file: object = False

    def rows(self, mask_or_index, limit: int = MAX_ROWS_LISTED) -> str:
        index = np.asarray(mask_or_index)
        index = np.flatnonzero(index) if index.dtype == bool else index
        rows = np.sort(self.origin[index]) + 1
        plural = "s" if len(rows) > 1 else ""
        more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
        text = f"row{plural} {', '.join(str(int(r)) for r in rows[:limit])}{more}"
        if self.from_file:
            shown = rows[:limit] - 1
            sheet, lines = self.from_file(shown) if callable(self.from_file) else (shown + 2, shown + 2)
            listed = ", ".join(str(int(r)) for r in sheet)
            if list(lines) != list(sheet):  # a quoted cell's line breaks before the row: an editor's line differs
                listed += f"{more}; line{plural} " + ", ".join(str(int(r)) for r in lines)
            text += f" (spreadsheet row{plural} {listed}{more})"
        return text

    def problem(self, column: str | None, text: str) -> str:
        where = f"column '{column}': " if column is not None else ""
        return f"{self.source}: {where}{text}"


def _element_kind(value) -> str | None:
    """None for a usable number or number-like text; else a refused kind of ``_REFUSED_KINDS`` or ``"text"``."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return "boolean"
    if isinstance(value, (complex, np.complexfloating)):
        return "complex"
    if isinstance(value, numbers.Real):
        return None
    if isinstance(value, str):
        try:
            float(value)
            return None
        except ValueError:
            return "text"
    return "other"


_DECIMAL_COMMA = re.compile(r"\s*[-+]?\d+,\d+\s*")


def _comma_hint(value) -> str:
    """Advice for ``0,1257``: a decimal comma, as a spreadsheet set to a comma locale writes numbers."""
    if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value):
        return f" (a decimal comma? write {value.strip().replace(',', '.')!r} with a point, as CSV numbers are)"
    return ""


def _mixed_problem(raw: pd.Series, column: str, where: Where, kind_word: str) -> str | None:
    kinds = np.array([_element_kind(v) for v in raw.to_numpy(dtype=object)], dtype=object)
    for kind in ("boolean", "complex", "other", "text"):
        bad = kinds == kind
        if bad.any():
            first = raw.to_numpy(dtype=object)[bad][0]
            if kind == "text":
                return where.problem(column, f"non-numeric value {show(first)} at {where.rows(bad)}; {kind_word}s must be "
                                             f"numbers{_comma_hint(first)}")
            what = _REFUSED_KINDS.get(kind, f"values of type {type(first).__name__}")
            return where.problem(column, f"{what} such as {show(first)} at {where.rows(bad)} are not {kind_word}s; write numbers")
    return None


def _dtype_problem(raw: pd.Series, column: str, where: Where, kind_word: str) -> str | None:
    dtype = raw.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        kind = "categorical"
    elif pd.api.types.is_bool_dtype(dtype):
        kind = "boolean"
    elif pd.api.types.is_complex_dtype(dtype):
        kind = "complex"
    elif pd.api.types.is_datetime64_any_dtype(dtype):
        kind = "datetime64"
    elif pd.api.types.is_timedelta64_dtype(dtype):
        kind = "timedelta64"
    elif pd.api.types.is_numeric_dtype(dtype):
        return None
    else:
        kind = pd.api.types.infer_dtype(raw, skipna=True)
        if kind in _NUMBER_KINDS or kind == "string":
            return None
        if kind not in _REFUSED_KINDS:
            return _mixed_problem(raw, column, where, kind_word)
    return where.problem(column, f"{_REFUSED_KINDS[kind]} are not {kind_word}s (column type {dtype}); write numbers")


EXACT_INTEGERS = 2.0**53  # every integer up to this size is a float64 exactly


def numeric_column(raw: pd.Series, column: str, where: Where, *, kind_word: str = "score") -> tuple[np.ndarray | None, str | None]:
    """``raw`` as finite floats, or ``(None, problem)``.

    Booleans, dates, time spans, complex numbers and categories are refused by type (a
    True/False column is not read as 1/0); text cells must parse as numbers; empty, NaN and
    infinite cells are refused.
    """
    problem = _dtype_problem(raw, column, where, kind_word)
    if problem:
        return None, problem
    if pd.api.types.is_numeric_dtype(raw.dtype):
        typed = raw
    else:
        typed = pd.to_numeric(raw, errors="coerce")
        text_cells = typed.isna().to_numpy() & raw.notna().to_numpy()
        if text_cells.any():
            first = raw[text_cells].iloc[0]
            return None, where.problem(column, f"non-numeric value {show(first)} at {where.rows(text_cells)}; {kind_word}s must be "
                                               f"numbers{_comma_hint(first)}")
    values = typed.to_numpy(dtype=float, na_value=np.nan)
    if pd.api.types.is_integer_dtype(typed.dtype):  # float64 holds every integer only up to 2^53
        big = np.abs(values) >= EXACT_INTEGERS
        inexact = big.copy()
        inexact[big] = [float(v) != v for v in typed[big].tolist()]
        if inexact.any():
            return None, where.problem(column, f"integer {kind_word} {typed[inexact].iloc[0]} at {where.rows(inexact)} "
                                               f"is beyond 2^53 and would be rounded as a float64 {kind_word}; store "
                                               f"{kind_word}s as floats (or scale them)")
    missing = np.isnan(values)
    if missing.any():
        return None, where.problem(column, f"missing {kind_word} (empty or NaN) at {where.rows(missing)}")
    infinite = ~np.isfinite(values)
    if infinite.any():
        first = float(values[infinite][0])
        return None, where.problem(column, f"non-finite {kind_word} ({first}) at {where.rows(infinite)}")
    return values, None


def _label_shown(value) -> str:
    # A label column with an empty cell is read as floats: the 0 written in the file is shown as 0, not 0.0.
    return show(int(value) if isinstance(value, float) and value.is_integer() else value)


def label_column(raw: pd.Series, column: str, rows: np.ndarray, where: Where) -> tuple[np.ndarray | None, str | None]:
    """Member labels as floats: 0 or 1 (True/False accepted) on every row where ``rows`` is True, 1 or empty elsewhere."""
    if pd.api.types.is_bool_dtype(raw.dtype):
        values = raw.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = rows & ~((values == 0.0) | (values == 1.0))  # NaN fails both
    if bad.any():
        first = raw[bad].iloc[0]
        return None, where.problem(
            column, f"label {_label_shown(first)} at {where.rows(bad)}; member labels must be 0 or 1 on every test row"
        )
    # A calibration row is a known member of every model, so its label can only agree (1) or be left out;
    # a 0 there would calibrate that model against a non-member.
    unlike = ~rows & (values != 1.0) & raw.notna().to_numpy()
    if unlike.any():
        first = raw[unlike].iloc[0]
        # A word ("True", "member") is a spelling to fix, a number other than 1 a non-member to move.
        advice = ("write 1; a whole column of True/False is read as 1/0 too" if np.isnan(values[unlike][0])
                  else "move a non-member to the test split")
        return None, where.problem(
            column, f"label {_label_shown(first)} at {where.rows(unlike)} (calibration); calibration items are known "
                    f"members, so their labels must be 1 or empty: {advice}"
        )
    return values, None


def empty_text(values: pd.Series) -> np.ndarray:
    """True where a cell is missing or blank text."""
    missing = values.isna().to_numpy()
    text = values.astype(str).str.strip().to_numpy() == ""
    return missing | text


def split_rows(raw: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row: is it a calibration row, and is its word none of :data:`SPLITS` (case and outer spaces ignored)."""
    # A split column holds a few distinct words: normalise those, not every cell.
    codes, words = pd.factorize(raw.astype(str), use_na_sentinel=False)  # a missing cell is a word too
    words = np.array([str(word).strip().lower() for word in words], dtype=object)
    return (words == "calibration")[codes], ~np.isin(words, SPLITS)[codes]


def by_split(values: np.ndarray, is_cal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(calibration rows, test rows)`` of ``values``: views when the calibration rows come first (as
    most files are written), copies otherwise."""
    m = int(is_cal.sum())
    if is_cal[:m].all():
        return values[:m], values[m:]
    return values[is_cal], values[~is_cal]


def empty_split(raw: pd.Series, column: str, is_cal: np.ndarray, where: Where) -> list[str]:
    """One problem per split (calibration, test) in which every cell of ``raw`` is missing."""
    missing = raw.isna().to_numpy()
    if not missing.any():
        return []
    return [where.problem(column, f"model has no {name} rows (all {name} scores empty)")
            for part, name in ((is_cal, "calibration"), (~is_cal, "test")) if part.any() and missing[part].all()]


_FILL_COLUMNS = 512  # up to this many score columns, plain_block fills its block column by column


def plain_block(frame, columns, *, out: np.ndarray | None = None) -> np.ndarray | None:
    """Every score column at once when each is a plain NumPy int or float column of finite values.

    The common case (a table read from CSV or Parquet) is checked in one pass instead of one
    pass per column, which dominated tables of tens of thousands of models; ``None`` sends the
    table through the per-column checks and their messages. ``out`` (float64, ``len(frame)`` x
    ``len(columns)``) receives the block instead of a new array.
    """
    chosen = frame.columns.isin(columns)  # one hash pass; looking each name up in frame.dtypes took seconds
    if not columns or list(frame.columns[chosen]) != list(columns):  # another order, or a repeated name
        return None
    if not all(isinstance(d, np.dtype) and d.kind in "iuf" for d in frame.dtypes.to_numpy()[chosen]):
        return None
    positions = np.flatnonzero(chosen)
    if len(positions) <= _FILL_COLUMNS:
        # Filled column by column: a C-ordered block in one pass, where pandas' to_numpy interleaves
        # its per-column blocks into a Fortran-ordered one at about twice the cost (10^6 rows, K = 16).
        # One numpy call, not one per column: each call would let a thread parsing beside this one
        # (jecs_core._csv_chunks) take the GIL for up to a switch interval.
        block = np.empty((len(frame), len(positions))) if out is None else out
        np.stack([frame.iloc[:, position].to_numpy() for position in positions], axis=1, out=block)
    else:  # thousands of columns: one pandas call beats a Series per column
        block = frame.loc[:, chosen].to_numpy(dtype=float)
        if out is not None:
            out[...] = block
            block = out
    if not np.isfinite(block).all():
        return None
    integer = [d.kind in "iu" for d in frame.dtypes.to_numpy()[chosen]]
    if any(integer) and (np.abs(block[:, integer]) >= EXACT_INTEGERS).any():  # the per-column checks word it
        return None
    return block
