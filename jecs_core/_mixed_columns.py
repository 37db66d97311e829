"""Columns that pandas' whole-file CSV reader typed one block of rows at a time, made whole again.

The reader infers each column's type per internal block of rows. A column whose early blocks hold
only numbers (``007``) and a later block text (``abc``) comes back mixed: ``7`` early, ``'007'``
later, the same cell text read two ways depending on where it sits. Typed over the whole column, any
column with a text cell is text; so a mixed column is read again as text, each cell as written and the
same strings missing, which is what reading the whole column at once (``low_memory=False``) gives at
a fraction of that read's memory.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def mixed_columns(frame: pd.DataFrame) -> list[str]:
    """The columns holding values of more than one type (numbers or booleans beside text)."""
    return [name for name in frame.columns[(frame.dtypes == np.dtype(object)).to_numpy()]
            if pd.api.types.infer_dtype(frame[name], skipna=True).startswith("mixed")]


def text_where_mixed(frame: pd.DataFrame, handle, options: dict) -> pd.DataFrame:
    """``frame`` with its :func:`mixed_columns` read again from ``handle`` as text, with the read's ``options``."""
    mixed = mixed_columns(frame)
    if not mixed:
        return frame
    if not isinstance(handle, (str, Path)):
        handle.seek(0)
    again = pd.read_csv(handle, **{**options, "usecols": mixed, "dtype": dict.fromkeys(mixed, str)})
    for name in mixed:
        frame[name] = again[name]
    return frame


__all__ = ["mixed_columns", "text_where_mixed"]
