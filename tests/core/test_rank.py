"""The bucket-table count of jecs_core._rank against numpy's binary search."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import jecs_core._blocks as blocks
import jecs_core._rank as rank
from jecs_core._blocks import BLOCK_ROWS
from jecs_core._rank import _FEW_DISTINCT, _SCAN, _run_ends, at_most_counter, count_at_most, count_at_most_unsorted


@contextlib.contextmanager
def block_rows(rows):
    """count_at_most with its row blocks ``rows`` long (hypothesis cannot take pytest's monkeypatch)."""
    kept, blocks.BLOCK_ROWS = blocks.BLOCK_ROWS, rows
    try:
        yield
    finally:
        blocks.BLOCK_ROWS = kept


@pytest.fixture(scope="module", autouse=True)
def _always_the_table():
    # These tests check the bucket table on short query arrays, which it would otherwise leave to
    # the binary search (module scope: hypothesis refuses function-scoped fixtures).
    kept = rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE
    rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE = 0, 0.0
    yield
    rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE = kept


def reference_count(reference, queries):
    return np.searchsorted(reference, queries, side="right").astype(np.int64) + 1


any_finite = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)
awkward = any_finite | st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308, 1.0, 1.0 + 2**-52])
tied = st.integers(-4, 4).map(float)  # few distinct values: crowded buckets, ties with the queries


@given(arrays(float, st.integers(1, 60), elements=awkward | tied), arrays(float, st.integers(0, 60), elements=awkward | tied))
def test_equals_the_binary_search_on_any_finite_values(reference, queries):
    reference = np.sort(reference)
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5000), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_equals_the_binary_search_on_large_tables(m, rounding, seed):
    # Rounded scores put more than the scanned number of reference values in one bucket.
    rng = np.random.default_rng(seed)
    reference = np.sort(np.round(rng.standard_normal(m) * 3, rounding))
    queries = np.round(rng.standard_normal(3 * m + 1) * 4, rounding)
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


def test_strided_queries_and_a_crowded_bucket():
    reference = np.sort(np.concatenate([np.zeros(3 * _SCAN), np.linspace(-1, 1, 100)]))
    queries = np.array([[-2.0, 0.0], [0.0, 1e-300], [-1e-300, 2.0], [0.5, -0.0]])
    for column in queries.T:
        np.testing.assert_array_equal(count_at_most(reference, column), reference_count(reference, column))


def test_a_single_reference_value_and_a_range_beyond_float64():
    for reference in (np.array([2.5]), np.array([-1.7e308, 1.7e308]), np.array([5e-324, 1e-323])):
        queries = np.array([-np.finfo(float).max, -1.0, 0.0, 2.5, 5e-324, 1e-323, 3.0, np.finfo(float).max])
        np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3 * _FEW_DISTINCT), st.integers(1, 50), st.integers(0, 2**32 - 1))
def test_tied_reference_values_either_side_of_the_few_distinct_cut(distinct, copies, seed):
    # Runs of equal values: the count is read where each run ends, after a search among the distinct
    # values (at most _FEW_DISTINCT of them) or through their bucket table (more).
    rng = np.random.default_rng(seed)
    values = np.cumsum(rng.integers(1, 4, distinct)) / 8.0
    reference = np.sort(np.repeat(values, rng.integers(1, copies + 1, distinct)))
    queries = np.concatenate([values, values - 1 / 16, values + 1 / 16, [values[0] - 1.0, values[-1] + 1.0]])
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


def test_runs_end_where_the_sorted_values_change_and_zeros_of_both_signs_tie():
    assert _run_ends(np.array([1.0, 2.0, 3.0])) is None
    np.testing.assert_array_equal(_run_ends(np.array([-0.0, 0.0, 0.0, 1.0, 2.0, 2.0])), [2, 3, 5])
    reference = np.array([-1.0, -0.0, 0.0, 0.0, 3.0])
    queries = np.array([-0.0, 0.0, -1.0, -2.0, 3.0, 5e-324, -5e-324])
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(0, 300), st.integers(1, 7), st.sampled_from([None, 0, 1]),
       st.integers(0, 2**32 - 1))
def test_blocks_of_queries_count_as_one_call(m, n, block, rounding, seed):
    # Row blocks of any size, a last block cut short, tied and untied references: the same counts.
    rng = np.random.default_rng(seed)
    reference = rng.standard_normal(m) * 2
    queries = rng.standard_normal(n) * 3
    if rounding is not None:
        reference, queries = np.round(reference, rounding), np.round(queries, rounding)
    reference = np.sort(reference)
    with block_rows(block):
        np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))
    count = at_most_counter(reference)
    parts = [count(queries[i: i + block]) for i in range(0, n, block)]
    np.testing.assert_array_equal(np.concatenate(parts) if parts else np.empty(0, np.int64),
                                  reference_count(reference, queries))


def test_a_column_longer_than_one_block():
    rng = np.random.default_rng(5)
    reference = np.sort(rng.standard_normal(2_000))
    queries = rng.standard_normal(2 * BLOCK_ROWS + 17)[::-1]  # a negative stride across blocks
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))


@given(arrays(float, st.integers(0, 80), elements=awkward | tied), arrays(float, st.integers(1, 40), elements=awkward | tied))
def test_ranking_the_queries_counts_as_sorting_the_reference(reference, queries):
    """The path for many more reference values than queries: unsorted reference, ties, zeros of both signs."""
    expected = reference_count(np.sort(reference), queries)
    np.testing.assert_array_equal(count_at_most_unsorted(reference, queries), expected)
    np.testing.assert_array_equal(count_at_most_unsorted(reference[::-1], queries), expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40), st.integers(1, 9), st.sampled_from([None, 0, 1]), st.integers(0, 2**32 - 1))
def test_ranking_the_queries_in_blocks_of_reference_values(n, ratio, block, rounding, seed):
    rng = np.random.default_rng(seed)
    reference = rng.standard_normal(n * ratio) * 3
    queries = rng.standard_normal(2 * n)[::2] * 4  # a strided column
    if rounding is not None:
        reference, queries = np.round(reference, rounding), np.round(queries, rounding)
    with block_rows(block):
        counted = count_at_most_unsorted(reference, queries)
    np.testing.assert_array_equal(counted, reference_count(np.sort(reference), queries))


@pytest.mark.parametrize(("m", "queries", "table"), [(10_000, 5_000, True), (10_000, 4_999, False), (1_000, 4_096, True),
                                                      (1_000, 4_095, False), (100, None, True)])
def test_the_table_is_built_only_for_enough_queries(monkeypatch, m, queries, table):
    # A table is built for at least 4,096 queries and at least half as many as reference values; the
    # counts are the binary search's either way.
    monkeypatch.setattr(rank, "_TABLE_FROM_QUERIES", 4096)
    monkeypatch.setattr(rank, "_TABLE_FROM_SHARE", 0.5)
    built = []
    real = rank._BucketTable
    monkeypatch.setattr(rank, "_BucketTable", lambda values: built.append(values.size) or real(values))
    rng = np.random.default_rng(m)
    # Untied; tied often (rounded); tied now and then (float32 draws: a few of 10,000).
    for reference in (np.sort(rng.standard_normal(m)), np.sort(np.round(rng.standard_normal(m) * 100)),
                      np.sort(rng.standard_normal(m).astype(np.float32))):
        built.clear()
        count = at_most_counter(reference, queries=queries)
        probes = (rng.standard_normal(300) * 50).astype(reference.dtype)
        np.testing.assert_array_equal(count(probes), reference_count(reference, probes))
        distinct = np.unique(reference).size
        few_queries = queries is not None and queries < max(4096, m / 2)
        if distinct == m or (few_queries and not rank._ties_common(reference)):  # each query a binary search
            expected = table
        else:  # the table over the distinct values, by the same rule
            expected = distinct > _FEW_DISTINCT and (queries is None or queries >= max(4096, distinct / 2))
        assert bool(built) == expected, (m, queries, distinct)


@pytest.mark.parametrize(("copies", "common"), [(1, False), (2, True), (50, True)])
def test_a_sample_of_neighbours_tells_common_ties_from_rare_ones(copies, common):
    rng = np.random.default_rng(copies)
    reference = np.sort(np.repeat(rng.standard_normal(200_000 // copies), copies))
    reference[: 100] = reference[0]  # a few ties among distinct values do not make them common
    assert rank._ties_common(reference) is common
    assert rank._ties_common(reference[-3:]) is (copies > 1)  # shorter than the sample: every pair is looked at


@given(arrays(np.float32, st.integers(1, 60), elements=st.floats(-4, 4, width=32) | st.sampled_from([0.0, -0.0, 1.5])),
       arrays(np.float32, st.integers(0, 60), elements=st.floats(width=32, allow_nan=False, allow_infinity=False)))
def test_float32_values_count_as_the_binary_search(reference, queries):
    ordered = np.sort(reference)
    np.testing.assert_array_equal(count_at_most(ordered, queries), reference_count(ordered, queries))
    if queries.size:  # the ranked form steps below each reference value in float32
        np.testing.assert_array_equal(count_at_most_unsorted(reference, queries), reference_count(ordered, queries))


@pytest.mark.parametrize(("below", "table"), [(0.0, True), (0.5, True), (0.9, False), (1.0, False)])
def test_queries_outside_the_reference_range_count_a_quarter_towards_a_table(monkeypatch, below, table):
    # 10,000 queries against 10,000 values: a table, unless most queries lie outside the values' range
    # (below it, as a strong detector puts non-members), where each search is cheap: 0.9 outside weigh
    # 0.1 + 0.9 / 4 = 0.325 of 10,000, under half of the values.
    monkeypatch.setattr(rank, "_TABLE_FROM_QUERIES", 4096)
    monkeypatch.setattr(rank, "_TABLE_FROM_SHARE", 0.5)
    built = []
    real = rank._BucketTable
    monkeypatch.setattr(rank, "_BucketTable", lambda values: built.append(values.size) or real(values))
    rng = np.random.default_rng(7)
    reference = np.sort(rng.standard_normal(10_000))
    queries = rng.standard_normal(10_000)
    queries[rng.random(10_000) < below] -= 50.0
    queries[:3] = [reference[-1], reference[0], 1e300]  # the range's ends: the top one counts as outside
    np.testing.assert_array_equal(count_at_most(reference, queries), reference_count(reference, queries))
    assert bool(built) is table
    assert rank._weighted_queries(reference, queries[:0]) == (0, 0.0)
    assert rank._weighted_queries(reference, 12) == (12, 12.0)
