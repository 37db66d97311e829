"""The blocks of a :class:`jecs_core.ScoreTable` agree in shape: checked once, when the table is made.

A table read from a file is consistent by construction; one built by hand (tests, generators, a
user's own code) could pair 40 test rows with 30 ids and fail far away, in an export or a
leaderboard, with an IndexError. Here it fails at once, naming the field.
"""

from __future__ import annotations

import numpy as np


def _rows(shape) -> str:
    return f"shape {tuple(shape)}"


def settle_blocks(table) -> None:
    """Check ``table``'s blocks against its models and rows; give a hand-built table empty covariate blocks."""
    K, names = len(table.models), list(table.models)
    blocks = {}
    for name in ("test", "calibration"):
        shape = np.shape(getattr(table, name))
        if len(shape) != 2 or shape[1] != K:
            raise ValueError(f"ScoreTable.{name} must have shape (rows, {K}), one column per model {names}, got {_rows(shape)}")
        blocks[name] = shape[0]
    n, m = blocks["test"], blocks["calibration"]
    for name, rows in (("test_ids", n), ("calibration_ids", m)):
        if np.shape(getattr(table, name)) != (rows,):
            raise ValueError(f"ScoreTable.{name} must hold one id per row ({rows}), got {_rows(np.shape(getattr(table, name)))}")
    if table.test_members is not None and np.shape(table.test_members) != (n, K):
        raise ValueError(f"ScoreTable.test_members must have the test scores' shape ({n}, {K}), "
                         f"got {_rows(np.shape(table.test_members))}")
    d = len(table.covariate_names)
    for name, rows in (("covariates", n), ("calibration_covariates", m)):
        if getattr(table, name) is None:
            object.__setattr__(table, name, np.empty((rows, d)))
        elif np.shape(getattr(table, name)) != (rows, d):
            raise ValueError(f"ScoreTable.{name} must have shape ({rows}, {d}), one column per covariate, "
                             f"got {_rows(np.shape(getattr(table, name)))}")
    for name, rows in (("test_extra", n), ("calibration_extra", m)):
        extra = getattr(table, name)
        if len(extra.columns) and len(extra) != rows:
            raise ValueError(f"ScoreTable.{name} must have one row per item ({rows}), got {len(extra)}")
