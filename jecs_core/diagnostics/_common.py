"""Shared argument checks and JSON helpers of the diagnostics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_positive_int, check_seed  # noqa: F401  (check_seed re-exported)
from ..data import ScoreTable, table_from_frame


def as_table(table) -> ScoreTable:
    """A :class:`ScoreTable` (a wide/long DataFrame is validated first); labels are not needed."""
    if isinstance(table, pd.DataFrame):
        table = table_from_frame(table)
    if not isinstance(table, ScoreTable):
        raise ValueError(f"table must be a ScoreTable or a pandas.DataFrame, got {type(table).__name__}")
    return table


def check_count(value, name: str, minimum: int) -> int:
    return check_positive_int(value, name, minimum=minimum)


def check_level(value, name: str = "level") -> float:
    """A level in (0, 1): the shared alpha check under this argument's name."""
    return check_alpha(value, name)


def json_number(value):
    """A float for JSON: NaN and infinities become None (strict JSON has neither)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def json_matrix(matrix: np.ndarray) -> list[list]:
    return [[json_number(v) for v in row] for row in np.asarray(matrix, dtype=float)]


def fmt(value, digits: int = 3) -> str:
    """A number for the text summaries; NaN/None shown as 'n/a'."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:.{digits}f}"
