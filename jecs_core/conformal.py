"""Conformal p-values of test items against a calibration set of known members.

For model k and test item i (paper, eq. prelim-model-p)::

    p_i^k = (1 + #{l in calibration : T_l^k <= T_i^k}) / (m + 1)

Scores are oriented so that larger means more member-like; a small p-value is
evidence that the item is *not* a member of model k.  The array computation lives in
:mod:`jecs_core._pvalue_kernel` (re-exported here); this module adds the score-table path.
"""

from __future__ import annotations

import numpy as np

from ._pvalue_kernel import conformal_pvalues, ordered_keys


def table_pvalues(table, *, rng: np.random.Generator | None = None, covariates=None,
                  shift_method: str = "auto") -> np.ndarray:
    """The (n, K) conformal p-value matrix of a :class:`~jecs_core.ScoreTable`.

    The one path from a score table to p-values: ``compare_methods``, the CLI, the
    dashboard, the Learn page and the evaluator's generic path all call it (the
    evaluator's batched count form is checked equal to it by a test).

    Parameters
    ----------
    table : ScoreTable
        Test scores ``table.test`` (n, K) and calibration scores ``table.calibration`` (m, K).
    rng : numpy.random.Generator, optional
        Randomized tie-breaking (see :func:`conformal_pvalues`).
    covariates : "all" or sequence of str, optional
        Covariates (``x_<name>`` columns, named with or without ``x_``) for p-values that
        account for a calibration shift; ``None`` (default) gives the plain p-values.
    shift_method : {"auto", "weighted", "residual", "none"}
        How covariates are used (see :func:`jecs_core.shift.shift_pvalues` and
        docs/CALIBRATION-SHIFT.md); only read when ``covariates`` is given.

    Returns
    -------
    numpy.ndarray, shape (n, K)
        ``p[i, k]``: item ``i``'s conformal p-value against model ``k``'s calibration scores
        (small = unlike a member).

    Examples
    --------
    >>> import pandas as pd, jecs_core as jc
    >>> table = jc.table_from_frame(pd.DataFrame({
    ...     "item_id": ["c1", "c2", "c3", "t1", "t2"], "split": ["calibration"] * 3 + ["test"] * 2,
    ...     "score_a": [2.0, 3.0, 4.0, 0.5, 3.5], "score_b": [1.0, 2.5, 3.0, 0.1, 2.8]}))
    >>> table_pvalues(table)
    array([[0.25, 0.25],
           [0.75, 0.75]])
    """
    if not (hasattr(table, "test") and hasattr(table, "calibration")):
        raise ValueError(f"table must be a ScoreTable (from load_scores or table_from_frame), got {type(table).__name__}; "
                         "for score arrays use conformal_pvalues(test_scores, calibration_scores)")
    if shift_method not in ("auto", "weighted", "residual", "none"):
        raise ValueError(f"shift_method must be 'auto', 'weighted', 'residual' or 'none', got {shift_method!r}")
    if covariates is None:
        return conformal_pvalues(table.test, table.calibration, rng=rng)
    from .shift.table import covariate_columns, table_shift_pvalues  # scikit-learn is only needed here

    if shift_method == "none":  # the covariates go unused, but a misspelt one is still an error
        covariate_columns(table, covariates)
        return conformal_pvalues(table.test, table.calibration, rng=rng)
    return table_shift_pvalues(table, covariates=covariates, method=shift_method, rng=rng).pvalues


__all__ = ["conformal_pvalues", "ordered_keys", "table_pvalues"]
