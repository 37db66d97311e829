"""Duplicate score rows: the hashed labels group rows exactly as np.unique(axis=0) does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core.checks.duplicates import row_labels

cells = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 5e-324, 1e308]) | st.floats(allow_nan=False, allow_infinity=False)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return np.array_equal(np.equal.outer(a, a), np.equal.outer(b, b))


@given(arrays(float, st.tuples(st.integers(1, 40), st.integers(1, 4)), elements=cells))
def test_labels_group_rows_as_numpy_unique(values):
    expected = np.unique(values, axis=0, return_inverse=True)[1].ravel()
    assert _same_partition(row_labels(values), expected)


def test_a_hash_collision_falls_back_to_the_exact_sort(monkeypatch):
    import pandas as pd

    values = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    monkeypatch.setattr(pd.util, "hash_array", lambda column: np.zeros(len(column), dtype=np.uint64))
    assert _same_partition(row_labels(values), np.array([0, 1, 0]))


@pytest.mark.parametrize("edges", [0, 1, 5, 30])
def test_clusters_are_numbered_as_the_graph_search_numbers_them(edges):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from jecs_core.checks.duplicates import _components

    rng = np.random.default_rng(edges)
    n = 40
    src, dst = rng.integers(0, n, edges), rng.integers(0, n, edges)
    graph = coo_matrix((np.ones(edges), (src, dst)), shape=(n, n))
    np.testing.assert_array_equal(_components(n, src, dst), connected_components(graph, directed=False)[1])


@pytest.mark.parametrize("block", [1, 3, 7, 64])
def test_rows_hashed_in_blocks_group_as_one_pass(monkeypatch, block):
    # Copies of a row in different blocks (and a -0.0 against a 0.0) still get one label.
    import jecs_core._blocks as blocks

    rng = np.random.default_rng(block)
    values = np.round(rng.standard_normal((40, 3)), 0)
    values[[5, 17, 33]] = values[2]
    values[9], values[29] = [-0.0, 1.0, 2.0], [0.0, 1.0, 2.0]
    monkeypatch.setattr(blocks, "BLOCK_ROWS", block)
    expected = np.unique(values + 0.0, axis=0, return_inverse=True)[1].ravel()
    assert _same_partition(row_labels(values), expected)
    distinct = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(row_labels(distinct), np.arange(4))
