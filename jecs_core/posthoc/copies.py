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
    """Whether two test items of ``table`` share a score row (to float noise) or a text (white space aside)."""
    from ..checks.duplicates import TEXT_COLUMN, copy_labels, normalised_test_texts  # pandas: on use

    if table.n < 2:
        return False
    if int(copy_labels(table.test).max()) + 1 < table.n:
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


def post_hoc_calibration_size(table, *, duplicates=None, comparison=None, plain: bool | None = None) -> int | None:
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
    plain : bool, optional
        Whether those p-values are the table's plain conformal ones, when the caller knows (it made
        them); by default a table with covariates has its plain p-values computed to compare.

    Returns
    -------
    int or None
        ``table.m``, or ``None`` (closed testing alone) when some test items are copies of each other
        (score rows equal to float noise, or texts) or ``comparison``'s p-values are not the table's plain
        conformal ones (covariate-aware p-values, weighted or residual).

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
    if plain is False or (plain is None and comparison is not None and not _plain(table, comparison)):
        return None  # covariate-aware (weighted, residual) p-values: the urn's counting does not apply
    return table.m


def _plain(table, comparison) -> bool:
    """Whether the comparison's max-p values are the table's plain conformal ones.

    Weighted p-values leave the ``j / (m + 1)`` grid; residual p-values stay on it, yet the fitted
    location and scale they share move every test item at once, which the urn cannot allow for
    (measured: the urn-based bound exceeded in 0.21 of tables at delta = 0.1). Only a table with
    covariates can have either, so only then are its plain p-values computed to compare.
    """
    from .urn import grid_index

    if grid_index(comparison.p_max, table.m) is None:
        return False
    if not table.covariate_names:
        return True
    from ..conformal import table_pvalues

    return bool(np.array_equal(table_pvalues(table).max(axis=1), comparison.p_max))
