"""Numbers the Data page shows about the active table: member AUC per model and the shift check.

Pure functions over a :class:`jecs_core.ScoreTable`; the page caches them by the data key.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from jecs_core import ScoreTable


def auc(scores, labels) -> float:
    """Area under the ROC curve of ``scores`` for ``labels`` (1 = member), ties counted one half.

    The Mann-Whitney form: the share of (member, non-member) pairs the score orders
    correctly. One sort of the non-members and two binary searches per member, so a
    million items take milliseconds. NaN when either class is empty.
    """
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels).astype(bool)
    if scores.shape != labels.shape:
        raise ValueError(f"scores and labels must have the same shape, got {scores.shape} and {labels.shape}")
    positives, negatives = scores[labels], np.sort(scores[~labels])
    if positives.size == 0 or negatives.size == 0:
        return float("nan")
    below = np.searchsorted(negatives, positives, side="left").sum(dtype=np.float64)
    tied = np.searchsorted(negatives, positives, side="right").sum(dtype=np.float64) - below
    return float((below + 0.5 * tied) / (positives.size * negatives.size))


def member_auc(table: ScoreTable) -> pd.DataFrame:
    """Per model: members and non-members among the test items and the score's member AUC.

    Empty when the table has no member labels.
    """
    if not table.has_labels:
        return pd.DataFrame(columns=["model", "members", "non_members", "auc"])
    members = np.asarray(table.test_members, dtype=bool)
    rows = []
    for k, model in enumerate(table.models):
        rows.append({"model": model, "members": int(members[:, k].sum()), "non_members": int((~members[:, k]).sum()),
                     "auc": auc(table.test[:, k], members[:, k])})
    return pd.DataFrame(rows)


def shift_inputs(table: ScoreTable):
    """``(test_X, cal_X, names, test_text, cal_text)`` for the shift check, or None when there is nothing to check.

    Covariates are the table's ``x_<name>`` columns; texts are the ``text`` column when both
    splits carry it.
    """
    names = table.covariate_names
    test_X, cal_X = table.covariates, table.calibration_covariates
    test_extra, cal_extra = table.test_extra, table.calibration_extra
    has_text = "text" in test_extra.columns and "text" in cal_extra.columns
    if not names and not has_text:
        return None
    if not names:
        test_X, cal_X = np.empty((table.n, 0)), np.empty((table.m, 0))
    test_text = test_extra["text"].fillna("").astype(str).tolist() if has_text else None
    cal_text = cal_extra["text"].fillna("").astype(str).tolist() if has_text else None
    return test_X, cal_X, names, test_text, cal_text


def shift_available() -> bool:
    """True when ``jecs_core`` offers the table-level shift check."""
    try:
        from jecs_core.shift import table_shift_check  # noqa: F401
    except ImportError:
        return False
    return True


def run_shift_check(table: ScoreTable, *, seed: int = 0, n_permutations: int = 199):
    """The core's shift check on the table's covariates and texts (None when it has neither)."""
    from jecs_core.shift import table_shift_check

    if shift_inputs(table) is None:
        return None
    return table_shift_check(table, n_permutations=n_permutations, seed=seed)
