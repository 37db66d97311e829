"""An all-scores table (every detection score of every model, long: :data:`~jecs_core.io.ALL_SCORES_COLUMNS`, as
``jecs score --all-scores`` writes it) as the ``score_<model>`` columns of one chosen score; the dashboard's
real audit sample switches its detection score through it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .io import ALL_SCORES_COLUMNS


def pivot_scores(long: pd.DataFrame, score_name: str, *, item_ids=None, models=None) -> pd.DataFrame:
    """One detection score of an all-scores table (:data:`ALL_SCORES_COLUMNS`) as ``score_<model>`` columns.

    Parameters
    ----------
    long : pandas.DataFrame
        ``item_id, model, score_name, value``.
    score_name : str
        The score to pick (e.g. ``"minkpp"``).
    item_ids : array_like, optional
        Row order of the result (default: first appearance in ``long``); ids without a value get NaN.
    models : sequence of str, optional
        Column order (default: first appearance in ``long``).

    Returns
    -------
    pandas.DataFrame
        One row per id (a RangeIndex), one ``score_<model>`` column per model.
    """
    missing = [c for c in ALL_SCORES_COLUMNS if c not in long.columns]
    if missing:
        raise ValueError(f"long: missing column(s) {missing}; expected {list(ALL_SCORES_COLUMNS)}")
    chosen = long[long["score_name"] == score_name]
    if chosen.empty:
        raise ValueError(f"score_name: no rows with score_name {score_name!r}; found {sorted(map(str, long['score_name'].unique()))}")
    models = list(dict.fromkeys(chosen["model"])) if models is None else list(models)
    item_ids = pd.unique(chosen["item_id"]) if item_ids is None else np.asarray(item_ids)
    if chosen.duplicated(["item_id", "model"]).any():
        raise ValueError(f"long: more than one {score_name!r} value for some (item_id, model) pair")
    wide = chosen.pivot(index="item_id", columns="model", values="value")
    return pd.DataFrame({f"score_{m}": (wide[m].reindex(item_ids).to_numpy() if m in wide.columns else np.nan)
                         for m in models}, index=pd.RangeIndex(len(item_ids)))
