"""One hypothesis per cluster of duplicated items: the whole cluster is kept or dropped.

A cluster's per-model p-value is the largest of its members' (so its max-p is the largest member
max-p). When any member is contaminated for a model, the member's conformal p-value is
super-uniform and the cluster's, being at least as large, is too: the cluster is a null hypothesis
with a valid p-value. Clusters are then treated as the independent items the rules assume; see
docs/GUARANTEES.md, "Duplicated items".
"""

from __future__ import annotations

import numpy as np

from .._validation import check_pvalue_matrix, frozen
from ..results import SelectionResult


def _check(pvalues, clusters) -> tuple[np.ndarray, np.ndarray]:
    p = check_pvalue_matrix(pvalues, "pvalues")
    labels = np.asarray(clusters)
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


class ClusterResult(SelectionResult):
    """A rule's cluster-level result seen item by item: per-item arrays expanded from the clusters.

    Parameters
    ----------
    result : SelectionResult
        The rule's result on the clusters' p-values (one hypothesis per cluster).
    clusters : numpy.ndarray of int, shape (n,)
        Each test item's cluster label.

    Attributes
    ----------
    selected : numpy.ndarray of bool, shape (n,)
        Read-only; an item is selected when its cluster is.
    n_clusters_selected : int
        How many clusters the rule kept.
    """

    __slots__ = ("result", "clusters", "selected", "n_clusters_selected")

    def __init__(self, result: SelectionResult, clusters: np.ndarray):
        labels = frozen(np.asarray(clusters))
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "clusters", labels)
        object.__setattr__(self, "selected", frozen(expand_clusters(result.selected, labels)))
        object.__setattr__(self, "n_clusters_selected", int(np.asarray(result.selected, dtype=bool).sum()))

    def __setattr__(self, name, value):
        raise AttributeError(f"ClusterResult is read-only; cannot set {name!r}")

    alpha = property(lambda self: self.result.alpha)
    threshold = property(lambda self: self.result.threshold)
    pi0_hat = property(lambda self: self.result.pi0_hat)
    fallback_reason = property(lambda self: self.result.fallback_reason)
    fits_lambda = property(lambda self: self.result.fits_lambda)

    def fit_summary(self):
        """The rule's fit rows (its fit is on the clusters' p-values)."""
        return self.result.fit_summary()

    def fit_notes(self):
        return self.result.fit_notes()

    def step_up_line(self):
        """The rule's step-up, on the clusters (one value per cluster, not per item)."""
        return self.result.step_up_line()

    def envelope_fit(self):
        """The rule's envelope fit, on the clusters' max-p values."""
        return self.result.envelope_fit()

    def model_selections(self):
        """Each model's own selection, per item (an item takes its cluster's row)."""
        per_cluster = self.result.model_selections()
        return None if per_cluster is None else frozen(np.asarray(per_cluster)[self.clusters])

    def item_columns(self):
        """The rule's per-cluster columns, per item (an item takes its cluster's value)."""
        return {name: frozen(np.asarray(values)[self.clusters]) for name, values in self.result.item_columns().items()}


def cluster_comparison(pvalues, clusters, *, alpha: float, models, contaminated=None, **options):
    """Every registered rule run with one hypothesis per cluster, as an item-level :class:`jecs_core.Comparison`.

    Each cluster's p-values are :func:`cluster_pvalues`; each rule selects clusters, and every item
    of a selected cluster is selected. The comparison's ``pvalues`` are the clusters' p-values
    repeated for each of their items. ``options`` (``lam``, ``knn``, ``lambda_grid``) go to the rules.
    """
    from ..compare import Comparison, compare_pvalues

    p, labels = _check(pvalues, clusters)
    grouped = cluster_pvalues(p, labels)
    grouped.setflags(write=False)  # ours alone: the comparison keeps it without a copy
    inner = compare_pvalues(grouped, alpha=alpha, models=models, **options)
    results = {name: ClusterResult(inner.result(name), labels) for name in inner.methods}
    per_item = grouped[labels]
    per_item.setflags(write=False)
    return Comparison(alpha=inner.alpha, models=inner.models, pvalues=per_item, results=results,
                      contaminated=None if contaminated is None else np.asarray(contaminated, dtype=bool))
