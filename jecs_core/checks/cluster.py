"""One hypothesis per cluster of duplicated items: the whole cluster is kept or dropped.

A cluster's per-model p-value is the largest of its members' (so its max-p is the largest member
max-p). When any member is contaminated for a model, the member's conformal p-value is
super-uniform and the cluster's, being at least as large, is too: the cluster is a null hypothesis
with a valid p-value. Clusters are then treated as the independent items the rules assume; see
docs/GUARANTEES.md, "Duplicated items".
"""

from __future__ import annotations

import numpy as np


def _check(pvalues, clusters) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(pvalues, dtype=float)
    labels = np.asarray(clusters)
    if p.ndim != 2:
        raise ValueError(f"pvalues must be a 2-D array (n, K), got shape {p.shape}")
    if labels.shape != (p.shape[0],) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"clusters must be {p.shape[0]} integer labels, got shape {labels.shape} ({labels.dtype})")
    if labels.size and (labels.min() < 0 or np.setdiff1d(np.arange(labels.max() + 1), labels).size):
        raise ValueError("clusters must label items 0..c-1 with every label used")
    return p, labels


def cluster_pvalues(pvalues, clusters) -> np.ndarray:
    """Per-cluster, per-model p-values: the column-wise largest over each cluster's members.

    Parameters
    ----------
    pvalues : array_like, shape (n, K)
    clusters : array_like of int, shape (n,)
        Labels 0..c-1 (e.g. :attr:`DuplicateReport.clusters`).

    Returns
    -------
    numpy.ndarray, shape (c, K)

    Examples
    --------
    >>> cluster_pvalues([[0.1, 0.2], [0.3, 0.05], [0.5, 0.5]], [0, 0, 1]).tolist()
    [[0.3, 0.2], [0.5, 0.5]]
    """
    p, labels = _check(pvalues, clusters)
    out = np.full((int(labels.max()) + 1 if labels.size else 0, p.shape[1]), -np.inf)
    np.maximum.at(out, labels, p)
    return out


def expand_clusters(selected_clusters, clusters) -> np.ndarray:
    """Item-level selection from a cluster-level one: an item is selected when its cluster is."""
    chosen = np.asarray(selected_clusters, dtype=bool)
    return chosen[np.asarray(clusters)]
