"""The long layout of a score table: ``item_id, split, model, score[, member]`` plus per-item columns.

Cells are checked on the long rows themselves (so a message names the row of the file), then
the table is pivoted to the wide layout. Other columns (``text``, ``x_<name>`` covariates, ...)
must hold one value per item; they are carried to the wide table, not dropped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._columns import Where, empty_text, label_column, numeric_column
from ._roles import MEMBER_PREFIX, RESERVED_MODELS, SCORE_PREFIX, display_breaker, is_long_header, printed_form
from .io import LONG_TABLE_COLUMNS


def detect_layout(frame: pd.DataFrame) -> str:
    """``"long"`` if the frame has the long columns and no ``score_`` columns, else ``"wide"``."""
    return "long" if is_long_header(frame.columns) else "wide"


def long_hint(columns) -> str:
    """Why a table with repeated ids that looks long (one row per item and model) was read as wide; "" if it does not."""
    names = [str(name) for name in columns]
    spelled = {name.strip().lower(): name for name in names}
    if "model" not in spelled:
        return ""
    lead = " (one row per item and model? "
    if spelled["model"] != "model" or spelled.get("score", "score") != "score":
        found = [spelled[key] for key in ("model", "score") if key in spelled and spelled[key] != key]
        return lead + f"a long table's columns are named 'model' and 'score' exactly, found {found})"
    if "score" not in names:
        return lead + "a long table needs a 'score' column)"
    if any(name.startswith(SCORE_PREFIX) for name in names):
        return lead + "a long table holds its scores in 'score' only: drop the score_<model> columns)"
    return ""


def _names(frame: pd.DataFrame, where: Where) -> list[str]:
    missing = [c for c in LONG_TABLE_COLUMNS if c not in frame.columns]
    if missing:
        return [f"{where.source}: long table is missing column(s) {missing}; expected {list(LONG_TABLE_COLUMNS)}[, member]"]
    wide_named = [c for c in frame.columns if c.startswith((SCORE_PREFIX, MEMBER_PREFIX))]
    if wide_named:
        return [where.problem(wide_named[0], "a long table holds scores in 'score' and labels in 'member', "
                                             "not in score_<model> / member_<model> columns")]
    return []


def _cells(frame: pd.DataFrame, where: Where) -> tuple[np.ndarray | None, np.ndarray | None, list[str]]:
    problems = []
    for column, what in (("item_id", "empty id"), ("model", "empty model name")):
        empty = empty_text(frame[column])
        if empty.any():
            problems.append(where.problem(column, f"{what} at {where.rows(empty)}"))
    models = frame["model"].astype(str)
    # A model name heads the export's score_<model> and p_<model> columns: what a wide header refuses, refused here.
    breakers = models.map(display_breaker)
    if breakers.notna().any():  # rows of the first such name only: the message names that one
        first, breaker = models[breakers.notna()].iloc[0], breakers.dropna().iloc[0]
        at = (models == first).to_numpy(dtype=bool)
        problems.append(where.problem("model", f"model name {first!r} at {where.rows(at)} holds a line break or "
                                               f"control character (U+{ord(breaker):04X}); rename the model"))
    reserved = models.isin(RESERVED_MODELS).to_numpy()
    if reserved.any():
        name = models[reserved].iloc[0]
        problems.append(where.problem("model", f"model name {name!r} at {where.rows(reserved)} is reserved (the export "
                                               f"writes 'p_{name}' itself); rename the model"))
    scores, problem = numeric_column(frame["score"], "score", where)
    problems += [problem] if problem else []
    labels = None
    if "member" in frame.columns:
        is_test = frame["split"].astype(str).str.strip().str.lower().to_numpy() == "test"
        labels, problem = label_column(frame["member"], "member", is_test, where)
        problems += [problem] if problem else []
    return scores, labels, problems


def _per_item(frame: pd.DataFrame, ids: pd.Series, models: pd.Series, where: Where) -> list[str]:
    problems = []
    dup = pd.DataFrame({"i": ids, "m": models}).duplicated(keep=False).to_numpy()
    if dup.any():
        first = np.flatnonzero(dup)[0]
        same = ((ids == ids.iloc[first]) & (models == models.iloc[first])).to_numpy()  # the rows of the named pair
        others = other_repeats(list(zip(ids[dup], models[dup])), show=lambda pair: f"({pair[0]!r}, {pair[1]!r})")
        problems.append(where.problem("item_id'+'model", f"duplicate pair ({ids.iloc[first]!r}, {models.iloc[first]!r}) "
                                                         f"at {where.rows(same)}{others}"))
    carried = [c for c in frame.columns if c not in LONG_TABLE_COLUMNS and c != "member"]
    for column in ["split"] + carried:
        counts = frame[column].groupby(ids, sort=False).nunique(dropna=False)
        varying = counts[counts > 1]
        if len(varying):
            problems.append(where.problem(column, f"item {varying.index[0]!r} has more than one {column} value across its rows; "
                                                  "a long table's other columns need one value per item"))
    return problems


def long_to_wide(frame: pd.DataFrame, where: Where) -> tuple[pd.DataFrame | None, np.ndarray, list[str]]:
    """Check a long table and pivot it to the wide layout.

    Returns
    -------
    wide : pandas.DataFrame or None
        One row per item (first-seen order); None when there are problems.
    origin : numpy.ndarray
        For each wide row, the source row (0-based) of the item's first long row.
    problems : list of str
    """
    problems = _names(frame, where)
    if problems:
        return None, where.origin, problems
    scores, labels, problems = _cells(frame, where)
    ids = frame["item_id"].astype(str)
    models = frame["model"].astype(str)
    problems += _per_item(frame, ids, models, where)
    if problems:
        return None, where.origin, problems
    first = ~ids.duplicated().to_numpy()
    item_order = ids[first].to_numpy()
    model_order = list(dict.fromkeys(models))
    carried = [c for c in frame.columns if c not in ("item_id", "model", "score", "member")]
    wide = frame.loc[first, ["item_id"] + carried].reset_index(drop=True)
    values = pd.DataFrame({"i": ids.to_numpy(), "m": models.to_numpy(), "s": scores})
    grid = values.pivot(index="i", columns="m", values="s").reindex(index=item_order, columns=model_order)
    missing = np.argwhere(grid.isna().to_numpy())
    if len(missing):
        row, col = missing[0]
        splits = frame.loc[first, "split"].astype(str).str.strip().str.lower().to_numpy()
        return None, where.origin, [f"{where.source}: long table has no row for item {item_order[row]!r} and model "
                                    f"{model_order[col]!r}; every item needs one score per model"
                                    + _missing_hint(grid.isna().to_numpy(), col, splits, model_order)]
    block = {SCORE_PREFIX + m: grid[m].to_numpy() for m in model_order}
    if labels is not None:
        label_grid = pd.DataFrame({"i": ids.to_numpy(), "m": models.to_numpy(), "s": labels}).pivot(
            index="i", columns="m", values="s").reindex(index=item_order, columns=model_order)
        block.update({MEMBER_PREFIX + m: label_grid[m].to_numpy() for m in model_order})
    wide = pd.concat([wide[["item_id", "split"]], pd.DataFrame(block), wide.drop(columns=["item_id", "split"])], axis=1)
    return wide, where.origin[np.flatnonzero(first)], []


def _missing_hint(absent: np.ndarray, col: int, splits: np.ndarray, models: list[str]) -> str:
    """Why a model lacks rows, where it shows: a name spelt two ways, or a whole split without the model."""
    model = models[col]
    alike = [m for m in models if m != model and printed_form(m) == printed_form(model)]
    if alike:
        return (f"; model {model!r} and {', '.join(map(repr, alike))} differ only in letter case, spaces or "
                "invisible characters: if they are one model, spell its name one way in every row")
    for split in ("calibration", "test"):
        rows = splits == split
        if rows.any() and absent[rows, col].all() and not absent[~rows, col].all():
            return f"; model {model!r} has no {split} rows at all: score the {split} items with it too"
    return ""


def results_hint(names) -> str:
    """A hint for a table read as scores that holds none: no ``score_<model>`` column and no long-layout
    ``model``/``score`` pair, so likely per-item results (ids and a metric) meant for the leaderboard."""
    names = [str(n) for n in names]
    if any(n.startswith(SCORE_PREFIX) for n in names) or {"model", "score"} <= set(names) or "item_id" not in names:
        return ""
    return ("; with no score_<model> column either, this looks like per-item results (ids and a metric), which the "
            "leaderboard reads (jecs leaderboard --results, the Leaderboard page), not a score table")


def other_repeats(repeated, *, shown: int = 3, show=lambda value: repr(str(value))) -> str:
    """`` (also repeated: 'b', 'c' and 4 more)`` for the repeated values after the first (in order of
    appearance), so one message names every id to fix; ``""`` when only one value repeats. ``show``
    writes one value (an (item, model) pair, say)."""
    others = list(dict.fromkeys(repeated))[1:]
    if not others:
        return ""
    named = ", ".join(show(v) for v in others[:shown])
    return f" (also repeated: {named}" + (f" and {len(others) - shown} more)" if len(others) > shown else ")")
