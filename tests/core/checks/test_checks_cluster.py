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
    ([0.1, 0.2], [0, 0], "pvalues must be a 2-D array"),
    ([[0.1], [0.2]], [0.0, 1.0], "clusters must be 2 integer labels"),
    ([[0.1], [0.2]], [0, 2], "every label used"),
])
def test_bad_input_is_one_clear_error(pvalues, clusters, match):
    with pytest.raises(ValueError, match=match):
        cluster_pvalues(pvalues, clusters)
