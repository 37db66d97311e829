"""Per-item results of K models: the :class:`ResultsTable` and its readers for long and wide tables.

A results table holds one number per (item, model): ``correct`` (0/1) by default, or any per-item metric
(``exact_match``, ``f1``), from a long (``item_id, model, <metric>``) or a wide table (``item_id, <metric>_<model>``).

lm-evaluation-harness sample logs are read in :mod:`jecs_core.leaderboard.lmeval`.  Nothing is
dropped or renamed: a duplicate pair, an empty or non-numeric cell, an unknown model is a one-line
error naming the file and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import real_array

DEFAULT_METRIC = "correct"
TEXT_COLUMNS = ("item_id", "model")  # names, read as written: an id or a model "01" stays "01"


@dataclass(frozen=True)
class ResultsTable:
    """One per-item result per (item, model).

    Attributes
    ----------
    models : tuple of str
        Model names, in the order read.
    item_ids : numpy.ndarray of str, shape (n,)
        Distinct item ids.
    values : numpy.ndarray of float, shape (n, K)
        ``values[i, k]``: model ``k``'s result on item ``i``; NaN where the source has no result
        for that pair (a long table or a sample log that skips an item).
    metric : str
        The metric's name.
    source : str
        Where the results came from.
    notes : tuple of str
        One-line notes from reading (counted, never silent).
    """

    models: tuple[str, ...]
    item_ids: np.ndarray
    values: np.ndarray
    metric: str = DEFAULT_METRIC
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self):
        # A table built by hand gets the same checks as one read from a file.
        if isinstance(self.models, (str, bytes)) or not hasattr(self.models, "__iter__"):
            raise ValueError(f"models must be a sequence of model names, got {self.models!r}")
        models = tuple(str(m) for m in self.models)
        ids = np.asarray(self.item_ids, dtype=object)
        if ids.ndim != 1:
            raise ValueError(f"item_ids must be a one-dimensional sequence of ids, got {type(self.item_ids).__name__}")
        ids = ids.astype(str).astype(object)
        _refuse_surrogates(ids, "item_ids")
        _refuse_surrogates(models, "models")
        # A copy: a caller reusing its array must not change a table already built (or its leaderboard).
        values = np.array(real_array(self.values, "values", booleans=True), dtype=float)  # True/False: 1/0
        if values.ndim == 1 and len(models) == 1:
            values = values[:, None]
        if values.shape != (ids.shape[0], len(models)):
            raise ValueError(f"values must have shape (items, models) = ({ids.shape[0]}, {len(models)}), got {values.shape}")
        if len(set(models)) != len(models) or not models:
            raise ValueError(f"models must be distinct names, at least one, got {list(models)}")
        if pd.Series(ids).duplicated().any():
            raise ValueError("item_ids must be distinct; give one row per item")
        if np.isinf(values).any():
            raise ValueError("values must be finite numbers (NaN: no result for that item and model)")
        for array in (ids, values):
            array.setflags(write=False)
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "item_ids", ids)
        object.__setattr__(self, "values", values)

    @property
    def K(self) -> int:
        return len(self.models)

    @property
    def n(self) -> int:
        return int(self.item_ids.shape[0])

    @property
    def binary(self) -> bool:
        """True when every result is 0 or 1 (the Wilson interval and the exact McNemar test apply)."""
        return is_binary(self.values)

    def to_frame(self) -> pd.DataFrame:
        """The results in the long layout (``item_id, model, <metric>``), pairs without a result left out."""
        ids = np.repeat(self.item_ids, self.K)
        models = np.tile(np.asarray(self.models, dtype=object), self.n)
        flat = self.values.reshape(-1)
        keep = ~np.isnan(flat)
        return pd.DataFrame({"item_id": ids[keep], "model": models[keep], self.metric: flat[keep]})


def is_binary(values: np.ndarray) -> bool:
    """True when every value that is not NaN (no result) is 0 or 1."""
    finite = values[~np.isnan(values)]
    return bool(np.all((finite == 0) | (finite == 1)))


def lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (``"\\ud800"``, which JSON can spell): no character, so no file or
    table can hold it."""
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)


def _refuse_surrogates(names, what: str) -> None:
    """A lone surrogate (``"\\ud800"``, from JSON) is no character: no file or table could hold it."""
    try:
        "\0".join(names).encode("utf-8")
    except UnicodeEncodeError:
        bad = next(name for name in names if lone_surrogate(name))
        raise ValueError(f"{what} {ascii(bad)} holds a lone surrogate (\\ud800-\\udfff), which is no character; "
                         "give ids and names as valid Unicode text") from None


def check_metric(metric, *, default: str = DEFAULT_METRIC) -> str:
    """``metric`` as a non-empty string (``None`` gives ``default``)."""
    if metric is None:
        return default
    if not isinstance(metric, str) or not metric.strip():
        raise ValueError(f"metric must be a non-empty column name, got {metric!r}")
    return metric.strip()


def _numeric(column: pd.Series, source: str, name: str) -> np.ndarray:
    """A metric column as floats; an empty, non-numeric or infinite cell is an error naming its row."""
    if column.dtype == bool:
        return column.to_numpy(dtype=float)
    values = pd.to_numeric(column, errors="coerce")
    bad = values.isna().to_numpy() | ~np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        cell = column.iloc[row]
        shown = "no value (an empty cell, NA, NaN or null)" if pd.isna(cell) else repr(cell.item() if hasattr(cell, "item") else cell)
        raise ValueError(f"{source}: column {name!r} row {row + 1} holds {shown}; "
                         f"expected a finite number in every row ({int(bad.sum())} such row(s))")
    return values.to_numpy(dtype=float)


def _ids(column: pd.Series, source: str) -> np.ndarray:
    ids = column.astype(str).to_numpy(dtype=object)
    empty = np.flatnonzero(column.isna().to_numpy() | (column.astype(str).str.strip() == "").to_numpy())
    if empty.size:
        raise ValueError(f"{source}: column 'item_id' row {int(empty[0]) + 1} is empty; every row needs an item id")
    return ids


def check_models(found: list[str], models, source: str) -> list[str]:
    if models is None:
        return found
    wanted = [str(m) for m in models]
    missing = [m for m in wanted if m not in found]
    if missing:
        raise ValueError(f"{source}: no results for model(s) {missing}; the file has {found}")
    return wanted


def _from_long(frame: pd.DataFrame, metric: str, models, source: str) -> ResultsTable:
    ids = _ids(frame["item_id"], source)
    unnamed = np.flatnonzero(frame["model"].isna().to_numpy() | (frame["model"].astype(str).str.strip() == "").to_numpy())
    if unnamed.size:
        raise ValueError(f"{source}: column 'model' row {int(unnamed[0]) + 1} is empty; every row needs its model's name")
    names = frame["model"].astype(str).to_numpy(dtype=object)
    values = _numeric(frame[metric], source, metric)
    order = check_models(list(dict.fromkeys(names)), models, source)
    keep = np.isin(names, order)
    ids, names, values = ids[keep], names[keep], values[keep]
    pairs = pd.DataFrame({"item_id": ids, "model": names})
    dup = pairs.duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise ValueError(f"{source}: item {ids[i]!r} has more than one {metric!r} for model {names[i]!r} "
                         f"({int(dup.sum())} duplicate row(s)); give one result per item and model")
    item_codes, item_ids = pd.factorize(pd.Series(ids, dtype=object))
    model_index = {name: k for k, name in enumerate(order)}
    matrix = np.full((len(item_ids), len(order)), np.nan)
    matrix[item_codes, [model_index[m] for m in names]] = values
    return ResultsTable(models=tuple(order), item_ids=np.asarray(item_ids, dtype=object), values=matrix,
                        metric=metric, source=source)


def _other_metric(columns: dict[str, str], metric: str) -> tuple[dict[str, str], list[str]]:
    """Split off other metrics' full sets of columns from the ``<metric>_`` ones, with a note for each.

    ``acc_norm_m0, acc_norm_m1`` beside ``acc_m0, acc_m1`` are the metric ``acc_norm``, not models
    ``norm_m0, norm_m1`` of ``acc``: a group ``<word>_<model>`` that covers exactly the models left
    once every such group is set aside (``acc_stderr_<model>`` may sit beside them too).
    """
    groups: dict[str, set[str]] = {}
    for name in columns:
        word, _, rest = name.partition("_")
        if rest in columns:
            groups.setdefault(word, set()).add(name)
    plain = set(columns).difference(*groups.values())
    other = {word: group for word, group in groups.items() if plain and {m.partition("_")[2] for m in group} == plain}
    notes = [f"columns {[columns[m] for m in sorted(group)]} are read as the metric '{metric}_{word}', not as models "
             f"of '{metric}'; choose the metric '{metric}_{word}' to rank on them" for word, group in sorted(other.items())]
    dropped = set().union(*other.values())
    return {m: c for m, c in columns.items() if m not in dropped}, notes


def _from_wide(frame: pd.DataFrame, metric: str, models, source: str) -> ResultsTable:
    prefix = f"{metric}_"
    columns = {c[len(prefix):]: c for c in frame.columns if isinstance(c, str) and c.startswith(prefix) and len(c) > len(prefix)}
    columns, notes = _other_metric(columns, metric) if models is None else (columns, [])
    order = check_models(list(columns), models, source)
    ids = _ids(frame["item_id"], source)
    dup = pd.Series(ids).duplicated().to_numpy()
    if dup.any():
        raise ValueError(f"{source}: item_id {ids[int(np.flatnonzero(dup)[0])]!r} appears in more than one row "
                         f"({int(dup.sum())} duplicate row(s)); give one row per item")
    matrix = np.column_stack([_numeric(frame[columns[m]], source, columns[m]) for m in order])
    return ResultsTable(models=tuple(order), item_ids=ids, values=matrix, metric=metric, source=source, notes=tuple(notes))


def results_from_frame(frame: pd.DataFrame, *, metric: str | None = None, models=None,
                       source: str = "<memory>") -> ResultsTable:
    """A :class:`ResultsTable` from a long (``item_id, model, <metric>``) or wide (``item_id, <metric>_<model>``) frame.

    Parameters
    ----------
    frame : pandas.DataFrame
        The results; the layout is read from the columns (a ``model`` column means long).
    metric : str, optional
        The metric column (long) or prefix (wide); default ``"correct"``.
    models : sequence of str, optional
        Models to keep, in this order (default: every model, in the order found).
    source : str
        Names the data in errors.

    Returns
    -------
    ResultsTable

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"item_id": ["a", "b"], "correct_m0": [1, 0], "correct_m1": [1, 1]})
    >>> results_from_frame(wide).values
    array([[1., 1.],
           [0., 1.]])
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    metric = check_metric(metric)
    if frame.empty and len(frame.columns):
        raise ValueError(f"{source}: the results have no rows (only the header {list(frame.columns)})")
    if "item_id" not in frame.columns:
        raise ValueError(f"{source}: no 'item_id' column; expected item_id, model, {metric} (long) "
                         f"or item_id, {metric}_<model> (wide), got {list(frame.columns)}")
    if "model" in frame.columns:
        if metric not in frame.columns:
            raise ValueError(f"{source}: no {metric!r} column in the long layout (item_id, model, {metric}); "
                             f"name the metric column (--metric, or the Leaderboard page's Metric field), got {list(frame.columns)}")
        return _from_long(frame, metric, models, source)
    if not any(isinstance(c, str) and c.startswith(f"{metric}_") for c in frame.columns):
        raise ValueError(f"{source}: no 'model' column and no {metric}_<model> column; expected item_id, model, {metric} "
                         f"(long) or item_id, {metric}_<model> (wide), got {list(frame.columns)}")
    return _from_wide(frame, metric, models, source)

