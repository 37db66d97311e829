"""Which calibration size a table's post-hoc bound may use: the urn's only when no two test items are copies.

The calibration urn (:mod:`.urn`) needs the contaminated test items to fall below each calibration
value independently given the calibration rows. Copies of one item share one score row, so they fall
together, and the urn's thresholds undercount them: with 20 contaminated items copied 50 times each
(m = 1,000, delta = 0.1) the urn-based bound was exceeded in about half of simulated tables, closed
testing alone in under delta of them (identical p-values keep the Simes inequality; docs/GUARANTEES.md).
A table whose test items repeat a score row or a text therefore gets closed testing alone
(``docs/GUARANTEES.md``, "Post-hoc bounds")."""

from __future__ import annotations

import numpy as np


def exact_copies(table) -> bool:
    """Whether two test items of ``table`` share a score row or a text (white space aside)."""
    from ..checks.duplicates import TEXT_COLUMN, normalised_test_texts, row_labels  # pandas: on use

    if table.n < 2:
        return False
    if int(row_labels(table.test).max()) + 1 < table.n:
        return True
    if TEXT_COLUMN not in table.test_extra.columns:
        return False
    return bool(normalised_test_texts(table).dropna().duplicated().any())


def clustered(comparison) -> bool:
    """Whether ``comparison``'s p-values are clusters' (:func:`jecs_core.checks.cluster_comparison`), some
    shared by several items."""
    from ..checks.cluster import ClusterResult

    for result in comparison.results.values():
        if isinstance(result, ClusterResult) and np.unique(result.clusters).size < len(result.clusters):
            return True
    return False


def post_hoc_calibration_size(table, *, duplicates=None, comparison=None) -> int | None:
    """``calibration_size`` for :func:`jecs_core.fit_post_hoc` on ``table``'s p-values.

    Parameters
    ----------
    table : ScoreTable
    duplicates : DuplicateReport, optional
        :func:`jecs_core.checks.find_duplicates` of ``table`` when the caller has run it (its counts of
        shared score rows and texts decide); without it, score rows and texts are compared here.
        Near-duplicate texts do not count (their scores differ; see ``docs/GUARANTEES.md``).
    comparison : Comparison, optional
        The comparison whose p-values the bound will read: clusters' p-values, each shared by the
        items of its cluster, are copies too.

    Returns
    -------
    int or None
        ``table.m``, or ``None`` (closed testing alone) when some test items are copies of each other
        or ``comparison``'s p-values are not plain conformal ones (covariate-aware p-values).

    Examples
    --------
    >>> import pandas as pd
    >>> import jecs_core as jc
    >>> frame = pd.DataFrame({"item_id": ["c1", "c2", "t1", "t2", "t3"],
    ...                       "split": ["calibration"] * 2 + ["test"] * 3,
    ...                       "score_a": [0.1, 0.5, 0.2, 0.3, 0.4]})
    >>> post_hoc_calibration_size(jc.table_from_frame(frame))
    2
    >>> frame.loc[4, "score_a"] = 0.3  # t3 repeats t2's score row
    >>> post_hoc_calibration_size(jc.table_from_frame(frame)) is None
    True
    """
    copies = (comparison is not None and clustered(comparison)) or (
        exact_copies(table) if duplicates is None else duplicates.exact)
    if copies or table.m == 0:
        return None
    if comparison is not None and not _on_grid(comparison.p_max, table.m):
        return None  # covariate-aware (weighted, residual) p-values: the urn's counting does not apply
    return table.m


def _on_grid(p_max: np.ndarray, m: int) -> bool:
    """Whether every item's max-p (the comparison's, checked when it was made) is a plain conformal p-value
    of ``m`` calibration items, ``j / (m + 1)``."""
    from .urn import grid_index

    return grid_index(p_max, m) is not None
