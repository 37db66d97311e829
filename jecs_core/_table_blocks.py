"""The blocks of a :class:`jecs_core.ScoreTable` agree in shape: checked once, when the table is made.

A table read from a file is consistent by construction; one built by hand (tests, generators, a
user's own code) could pair 40 test rows with 30 ids and fail far away, in an export or a
leaderboard, with an IndexError. Here it fails at once, naming the field. Blocks given as lists become
arrays; repeated model names and member labels other than 0/1 are refused.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_names, only_0_1, real_array


def _rows(shape) -> str:
    return f"shape {tuple(shape)}"


def _as_array(table, name: str, numbers: bool) -> np.ndarray:
    """The field ``name`` as an array: a list or a frame given by hand becomes one (numbers checked as numbers)."""
    value = getattr(table, name)
    if not isinstance(value, np.ndarray):
        value = real_array(value, f"ScoreTable.{name}") if numbers else np.asarray(value)
        object.__setattr__(table, name, value)
    return value


def _check_labels(members: np.ndarray) -> None:
    """Member labels are 0/1 (or booleans): a 0.5 or a 2 would read as a member."""
    if not only_0_1(members):
        raise ValueError(f"ScoreTable.test_members must hold 0/1 labels (or booleans), got dtype {members.dtype} "
                         "with other values")


def settle_blocks(table) -> None:
    """Check ``table``'s blocks against its models and rows; give a hand-built table empty covariate blocks."""
    names = list(check_names(table.models, "ScoreTable.models"))
    K = len(names)
    blocks = {}
    for name in ("test", "calibration"):
        shape = np.shape(_as_array(table, name, numbers=True))
        if len(shape) != 2 or shape[1] != K:
            raise ValueError(f"ScoreTable.{name} must have shape (rows, {K}), one column per model {names}, got {_rows(shape)}")
        blocks[name] = shape[0]
    n, m = blocks["test"], blocks["calibration"]
    for name, rows in (("test_ids", n), ("calibration_ids", m)):
        if np.shape(_as_array(table, name, numbers=False)) != (rows,):
            raise ValueError(f"ScoreTable.{name} must hold one id per row ({rows}), got {_rows(np.shape(getattr(table, name)))}")
    if table.test_members is not None:
        if np.shape(_as_array(table, "test_members", numbers=False)) != (n, K):
            raise ValueError(f"ScoreTable.test_members must have the test scores' shape ({n}, {K}), "
                             f"got {_rows(np.shape(table.test_members))}")
        _check_labels(table.test_members)
    d = len(table.covariate_names)
    for name, rows in (("covariates", n), ("calibration_covariates", m)):
        if getattr(table, name) is None:
            object.__setattr__(table, name, np.empty((rows, d)))
        elif np.shape(_as_array(table, name, numbers=True)) != (rows, d):
            raise ValueError(f"ScoreTable.{name} must have shape ({rows}, {d}), one column per covariate, "
                             f"got {_rows(np.shape(getattr(table, name)))}")
    for name, rows in (("test_extra", n), ("calibration_extra", m)):
        extra = getattr(table, name)
        if len(extra.columns) and len(extra) != rows:
            raise ValueError(f"ScoreTable.{name} must have one row per item ({rows}), got {len(extra)}")


def model_indices(models: tuple, chosen) -> tuple[tuple, list[int]]:
    """The names ``chosen`` (distinct, each one of ``models``) and their column indices, for ``subset_models``."""
    chosen = check_names(chosen, "models")
    unknown = [m for m in chosen if m not in models]
    if unknown:
        raise ValueError(f"models {unknown} are not in this table (it has {list(models)})")
    return chosen, [models.index(m) for m in chosen]
