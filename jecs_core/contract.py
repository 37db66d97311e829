"""The score-table data contract: what a usable table is, checked with every problem listed.

Wide table (CSV or Parquet): ``item_id`` (unique, non-empty), ``split`` in {calibration, test},
one ``score_<model>`` column per model (numbers; larger = more member-like), optional
``member_<model>`` labels (0/1 on test rows), optional ``x_<name>`` covariates (numbers), and any
other columns (e.g. ``text``), carried to the export untouched. Long table: ``item_id, split,
model, score[, member]`` (see :mod:`jecs_core._long`).

Refused, never renamed or dropped:

* a duplicate or empty column name;
* boolean, date/time, time-span, complex or categorical score or covariate columns (a
  True/False column is not read as 1/0), text, empty, NaN or infinite cells;
* fewer than :data:`MIN_CALIBRATION` calibration rows;
* names the selection export writes itself: a carried column ``selected``, ``selected_*`` or
  ``p_*``, and a model called ``max`` or ``tilde`` (its ``p_<model>`` column would be the
  export's ``p_max`` / ``p_tilde``).

Rows in messages are 1-based data rows; for a file the spreadsheet row (header = row 1) follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._columns import SPLITS, Where, empty_split, empty_text, label_column, numeric_column, plain_block, show, split_rows
from ._long import detect_layout, long_hint, long_to_wide, other_repeats, results_hint
from ._reach import calibration_reach as calibration_reach  # public here: what the contract warns about
from ._reach import calibration_warnings as calibration_warnings
from ._roles import (
    COVARIATE_PREFIX,
    MEMBER_PREFIX,
    RESERVED_MODELS,
    SCORE_PREFIX,
    is_reserved_column,
    misspelled_scores,
    role_lookalike,
)
from .io import ScoreTableError, check_header, one_line

# With one calibration item a per-model conformal p-value is 1/2 or 1: no table is usable.
# Above this, calibration_warnings() says when the set is too small for the chosen alpha.
MIN_CALIBRATION = 1


@dataclass(frozen=True)
class CheckedFrame:
    """The pieces of a frame that passed the contract (wide layout, in row order)."""

    frame: pd.DataFrame
    ids: np.ndarray
    is_calibration: np.ndarray
    models: tuple[str, ...]
    scores: np.ndarray
    members: np.ndarray | None  # test rows only, int8 0/1
    covariate_names: tuple[str, ...]
    covariates: np.ndarray
    extra_columns: tuple[str, ...]


def _split_value(value) -> str:  # an empty cell is no value at all, not an unknown one
    if value is None or (isinstance(value, float) and value != value) or (isinstance(value, str) and not value.strip()):
        return "empty value"
    return f"unknown value {show(value)}"


def _header(frame, source: str) -> tuple[pd.DataFrame | None, list[str]]:
    if not isinstance(frame, pd.DataFrame):
        return None, [f"{source}: expected a table (pandas.DataFrame), got {type(frame).__name__}"]
    names = [c if isinstance(c, str) else str(c) for c in frame.columns]
    try:
        check_header(names, source)
    except ScoreTableError as exc:
        return None, [str(exc)]
    if frame.shape[0] == 0:
        return None, [f"{source}: the table has no rows"]
    frame = frame.set_axis(names, axis=1).reset_index(drop=True)
    missing = [c for c in ("item_id", "split") if c not in frame.columns]
    if missing:
        return None, [f"{source}: missing required column '{c}' (columns found: {names[:12]}){results_hint(names)}"
                      for c in missing]
    return frame, []


def _ids_and_split(frame: pd.DataFrame, where: Where) -> tuple[np.ndarray, np.ndarray, list[str]]:
    problems = []
    empty = empty_text(frame["item_id"])
    if empty.any():
        problems.append(where.problem("item_id", f"empty id at {where.rows(empty)}"))
    as_text = frame["item_id"].astype(str)
    ids = as_text.to_numpy()
    # Counting distinct ids is one hash pass (over the Python strings: Arrow's hash of its string
    # chunks was 3-4x slower on a first call); the duplicate mask, twice as slow, only when one repeats.
    dup = None if len(pd.unique(ids)) == len(ids) else as_text.duplicated(keep=False).to_numpy() & ~empty
    if dup is not None and dup.any():
        first = ids[dup][0]
        problems.append(where.problem("item_id", f"duplicate id {first!r} at {where.rows(ids == first)}{other_repeats(ids[dup])}"
                                                 f"; ids must be unique{long_hint(frame.columns)}"))
    is_cal, unknown = split_rows(frame["split"])
    if unknown.any():
        value = _split_value(frame["split"].to_numpy()[unknown][0])
        problems.append(where.problem("split", f"{value} at {where.rows(unknown)}; expected one of {list(SPLITS)}"))
    return ids, is_cal, problems


def column_roles(frame: pd.DataFrame, where: Where) -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    """Score, member, covariate and carried columns, with naming problems."""
    names = list(frame.columns)
    scores = [c for c in names if c.startswith(SCORE_PREFIX)]
    members = [c for c in names if c.startswith(MEMBER_PREFIX)]
    covariates = [c for c in names if c.startswith(COVARIATE_PREFIX)]
    typed = {"item_id", "split", *scores, *members, *covariates}  # a set: one lookup per column, not a list scan
    extra = [c for c in names if c not in typed]
    problems = []
    if not scores:
        near = [(c, found[1]) for c in extra if isinstance(c, str)
                and (found := role_lookalike(c)) is not None and found[0] == SCORE_PREFIX]
        hint = "".join(f"; column {c!r} looks like {fixed!r}: rename it so" for c, fixed in near[:3])
        problems.append(f"{where.source}: no score columns; expected one column 'score_<model>' per model "
                        f"(or a long table with columns item_id, split, model, score){hint}")
    for column in scores + members + covariates:
        if column in (SCORE_PREFIX, MEMBER_PREFIX, COVARIATE_PREFIX):
            problems.append(where.problem(column, f"no name after '{column}'; name it '{column}<name>'"))
    for column in scores:
        if column[len(SCORE_PREFIX):] in RESERVED_MODELS:
            problems.append(where.problem(column, f"model name {column[len(SCORE_PREFIX):]!r} is reserved (the export writes "
                                                  f"'p_{column[len(SCORE_PREFIX):]}' itself); rename the model"))
    for column in extra:
        if is_reserved_column(column):
            problems.append(where.problem(column, "the name is reserved for the selection export (selected, selected_<method>, "
                                                  "p_max, p_tilde, p_<model>); rename the column"))
    models = {c[len(SCORE_PREFIX):] for c in scores}
    labelled = {c[len(MEMBER_PREFIX):] for c in members} - {""}  # "member_" alone is named above
    if labelled and labelled != models:  # the rename that fixes it first, then only the non-empty sides
        hint = misspelled_scores(labelled - models, extra, models).removeprefix("; ")
        sides = [f"{label}: {sorted(side)}" for label, side in (("score_ without member_", models - labelled),
                                                                ("member_ without score_", labelled - models)) if side]
        unlabelled = sorted(models - labelled)
        fix = (f"; labels are all or nothing: add {', '.join(MEMBER_PREFIX + m for m in unlabelled[:3])}"
               f"{' ...' if len(unlabelled) > 3 else ''} or leave out every member_ column"
               if unlabelled and not (labelled - models) else "")  # labels for some models only
        problems.append(f"{where.source}: " + (f"{hint}; " if hint else "")
                        + "member columns do not match score columns: " + "; ".join(sides) + fix)
    return scores, members, covariates, extra, problems



def _calibration_size(is_cal: np.ndarray, where: Where) -> list[str]:
    m, n = int(is_cal.sum()), int((~is_cal).sum())
    problems = []
    if m == 0:
        problems.append(where.problem("split", "no calibration rows; JECS needs known members to calibrate against"))
    elif m < MIN_CALIBRATION:
        problems.append(where.problem(
            "split", f"only {m} calibration row; at least {MIN_CALIBRATION} are needed (with m calibration items a "
                     f"conformal p-value is at least 1/(m+1) = {1 / (m + 1):.3g})"
        ))
    if n == 0:
        problems.append(where.problem("split", "no test rows; there is nothing to select from"))
    return problems


def _score_block(frame, columns, is_cal, where, kind_word="score") -> tuple[np.ndarray | None, list[str]]:
    block = plain_block(frame, columns) if kind_word == "score" else None
    if block is not None:
        return block, []
    problems, arrays = [], []
    for column in columns:
        empty = empty_split(frame[column], column, is_cal, where) if kind_word == "score" else []
        problems += empty
        if empty:
            continue
        values, problem = numeric_column(frame[column], column, where, kind_word=kind_word)
        problems += [problem] if problem else []
        arrays.append(values)
    if problems:
        return None, problems
    return (np.column_stack(arrays) if arrays else np.empty((len(frame), 0))), []


def _labels(frame, members, models, is_cal, where) -> tuple[np.ndarray | None, list[str]]:
    """The test rows' member labels as one int8 block (calibration rows are members by definition)."""
    if not members:
        return None, []
    is_test = ~is_cal
    # Filled a column at a time: a stacked float block of every row would be 8x the int8 result.
    block = np.empty((int(is_test.sum()), len(models)), dtype=np.int8)
    problems = []
    for k, model in enumerate(models):
        values, problem = label_column(frame[MEMBER_PREFIX + model], MEMBER_PREFIX + model, is_test, where)
        if problem:
            problems.append(problem)
        else:
            block[:, k] = values[is_test]
    return (None, problems) if problems else (block, [])


def check_frame(frame, *, source: str = "<memory>", layout: str = "auto", from_file: bool = False
                ) -> tuple[CheckedFrame | None, list[str]]:
    """Check ``frame`` against the contract; return the checked pieces (None on failure) and every problem."""
    if layout not in ("auto", "wide", "long"):
        raise ValueError(f"layout must be 'auto', 'wide' or 'long', got {layout!r}")
    frame, problems = _header(frame, source)
    if frame is None:
        return None, problems
    origin = np.arange(len(frame))
    if layout == "long" or (layout == "auto" and detect_layout(frame) == "long"):
        frame, origin, problems = long_to_wide(frame, Where(source, origin, from_file))
        if frame is None:
            return None, problems
    where = Where(source, origin, from_file)
    ids, is_cal, problems = _ids_and_split(frame, where)
    score_cols, member_cols, covariate_cols, extra, found = column_roles(frame, where)
    problems += found
    if problems:
        return None, problems
    problems += _calibration_size(is_cal, where)
    scores, found = _score_block(frame, score_cols, is_cal, where)
    problems += found
    models = tuple(c[len(SCORE_PREFIX):] for c in score_cols)
    members, found = _labels(frame, member_cols, models, is_cal, where)
    problems += found
    covariates, found = _score_block(frame, covariate_cols, is_cal, where, kind_word="covariate")
    problems += found
    if problems:
        return None, problems
    return CheckedFrame(frame, ids, is_cal, models, scores, members,
                        tuple(c[len(COVARIATE_PREFIX):] for c in covariate_cols), covariates, tuple(extra)), []


def validate_frame(frame, *, source: str = "<memory>", layout: str = "auto", from_file: bool = False) -> list[str]:
    """Every contract problem of ``frame`` as one-line messages (empty when the table is usable).

    Checks stop at the first stage that fails (header, then ids / split / column names, then
    cell values), so a later problem may only show once the earlier ones are fixed.

    Parameters
    ----------
    frame : pandas.DataFrame
        A wide or long score table.
    source : str
        Name used in the messages (usually the file path).
    layout : {"auto", "wide", "long"}
        As in :func:`jecs_core.table_from_frame`.
    from_file : bool
        The frame was read from a file: messages add the spreadsheet row (header = row 1).

    Returns
    -------
    list of str
        One line per problem, naming the column and rows.

    Examples
    --------
    >>> import pandas as pd
    >>> validate_frame(pd.DataFrame({"item_id": ["t1"], "score_a": [0.5]}), source="s.csv")
    ["s.csv: missing required column 'split' (columns found: ['item_id', 'score_a'])"]
    """
    return [one_line(p) for p in check_frame(frame, source=source, layout=layout, from_file=from_file)[1]]
