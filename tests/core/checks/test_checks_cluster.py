"""jecs_core.checks.cluster: cluster p-values against a loop, and singletons change nothing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jecs_core import compare_pvalues
from jecs_core.checks import cluster_comparison, cluster_pvalues, expand_clusters


def _loop_cluster_pvalues(p, labels):
    """For each cluster and model, the largest member p-value, by plain loops."""
    c = max(labels) + 1
    return [[max(p[i][k] for i in range(len(labels)) if labels[i] == j) for k in range(len(p[0]))] for j in range(c)]


@st.composite
def _clustered(draw):
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, 3))
    c = draw(st.integers(1, n))
    labels = list(range(c)) + draw(st.lists(st.integers(0, c - 1), min_size=n - c, max_size=n - c))
    labels = draw(st.permutations(labels))
    p = draw(st.lists(st.lists(st.floats(0.001, 1.0), min_size=k, max_size=k), min_size=n, max_size=n))
    return p, labels


@given(_clustered())
def test_cluster_pvalues_equal_a_loop_and_bound_every_member(case):
    p, labels = case
    got = cluster_pvalues(p, labels)
    np.testing.assert_array_equal(got, np.array(_loop_cluster_pvalues(p, labels)))
    assert (got[labels] >= np.asarray(p)).all()  # a cluster is as hard to select as its hardest member


@given(_clustered(), st.data())
def test_expand_clusters_selects_exactly_the_members_of_chosen_clusters(case, data):
    _, labels = case
    chosen = data.draw(st.lists(st.booleans(), min_size=max(labels) + 1, max_size=max(labels) + 1))
    expanded = expand_clusters(chosen, labels)
    assert expanded.tolist() == [chosen[j] for j in labels]


def test_singleton_clusters_give_the_plain_comparison():
    rng = np.random.default_rng(0)
    p = np.column_stack([rng.uniform(0, 1, 200) ** 3, rng.uniform(0, 1, 200) ** 3])
    plain = compare_pvalues(p, alpha=0.2, models=("a", "b"))
    clustered = cluster_comparison(p, np.arange(200), alpha=0.2, models=("a", "b"))
    for name in plain.methods:
        np.testing.assert_array_equal(clustered.selected(name), plain.selected(name), err_msg=name)


@pytest.mark.parametrize(("pvalues", "clusters", "match"), [
    ([[[0.1]], [[0.2]]], [0, 0], "pvalues must be a 1-D or 2-D array"),
    ([["0.1"], ["0.2"]], [0, 1], "pvalues"),
    ([[0.1], [1.2]], [0, 1], r"pvalues must hold finite values in \[0, 1\]"),
    ([[0.1], [np.nan]], [0, 1], r"pvalues must hold finite values in \[0, 1\]"),
    ([[True], [False]], [0, 1], "pvalues"),
    ([[0.1], [0.2]], [0.0, 1.0], "clusters must be 2 integer labels"),
    ([[0.1], [0.2]], [0, 2], "every label used"),
])
def test_bad_input_is_one_clear_error(pvalues, clusters, match):
    with pytest.raises(ValueError, match=match):
        cluster_pvalues(pvalues, clusters)


def test_one_model_given_as_a_vector_is_one_column():
    assert cluster_pvalues([0.1, 0.3, 0.2], [0, 0, 1]).tolist() == [[0.3], [0.2]]


def test_a_cluster_result_is_read_only_and_declares_per_item_arrays():
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, (60, 2)) ** 4
    labels = np.repeat(np.arange(30), 2)
    comparison = cluster_comparison(p, labels, alpha=0.3, models=("a", "b"))
    inner = compare_pvalues(cluster_pvalues(p, labels), alpha=0.3, models=("a", "b"))
    for name in comparison.methods:
        result = comparison.result(name)
        with pytest.raises(ValueError):
            result.selected[0] = not result.selected[0]
        with pytest.raises(AttributeError):
            result.selected = None
        assert result.alpha == 0.3 and result.n_clusters_selected == inner.result(name).n_selected
        for column, values in result.item_columns().items():  # e.g. JECS's p_tilde, one value per item
            np.testing.assert_array_equal(values, inner.result(name).item_columns()[column][labels])
        own = inner.result(name).model_selections()
        if own is not None:  # the per-model rules: each item takes its cluster's row
            np.testing.assert_array_equal(result.model_selections(), own[labels])
    assert comparison.result("jecs").item_columns()  # the check above ran on at least one rule's columns
