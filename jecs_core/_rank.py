"""Counts of sorted reference values at or below each query, through a bucket table.

A binary search (``numpy.searchsorted``) of 10^6 queries into 10^5 sorted values takes
about 17 dependent, cache-missing comparisons per query.  Here the reference range is cut
into about two buckets per reference value; the bucket of a value is
``floor((x - lo) * scale)``, clipped, and a table holds, per bucket, how many reference values
lie in earlier buckets.  A query whose bucket holds no reference value gets its count from one
table look-up; the others add the few values of their own bucket one comparison at a time, and
a query in a crowded bucket (a dense spot) falls back to the binary search. Building the table
touches a few entries per reference value, so it is built only when enough queries will use it;
a few queries against many values are each a binary search.

Tied reference values (rounded scores, losses printed to a few decimals) would crowd their
buckets, so the table is built over the distinct values instead, and each query's count is read
from where the run of its largest distinct value at or below it ends. With very few distinct
values a binary search over them (a few comparisons in cache) is cheaper than any table.

Why it is exact: the bucket function is monotone in ``x`` (a subtraction, a multiplication by a
positive number, a clip and a floor, each rounded monotonically in IEEE arithmetic) and is
computed by the same operations for the reference and the queries, so a reference value in an
earlier bucket is below the query and one in a later bucket is above it.
``benchmarks/bench_pvalues.py`` times it against the binary search; ``tests/core/test_conformal.py``
checks it equal to ``searchsorted`` on ties, duplicates, huge ranges and random tables.
"""

from __future__ import annotations

import functools

import numpy as np

from ._blocks import row_blocks

# Per occupied bucket, values compared one at a time before the binary search takes over.
_SCAN = 8

# At or below this many distinct reference values the queries are searched among them directly
# (benchmarks/bench_pvalues.py, tied cases: with 10 distinct values the search took 0.7x the table's time, with 85 1.15x).
_FEW_DISTINCT = 64
# The table is built only for at least this many queries and at least half as many queries as
# (distinct) reference values: its build touches about three times as many entries as there are
# values, and fewer queries save less than that on their searches (benchmarks/bench_rank.py).
# Towards the share, a query outside the reference range counts a quarter: its search takes the
# same branch at every step, which the processor predicts. Where most test scores lie below the
# calibration scores (a strong detector), a table over 2x as many values as queries cost 1.5x-1.7x
# the sort-and-search floor, against 1.1x searched (benchmarks/bench_rank.py --signal 4).
_TABLE_FROM_QUERIES = 4096
_TABLE_FROM_SHARE = 0.5
_OUTSIDE_WEIGHT = 0.25
_INSIDE_SAMPLE = 4096  # queries looked at to estimate how many fall within the reference range
# Without a table, searching among the distinct values pays for finding them only where ties are
# common (rounded scores); float32 scores tie now and then (about 470 of 10^5 normal draws), and
# finding the runs of 10^5 values cost half the time of 10^4 searches (benchmarks/bench_rank.py
# --dtype float32). A sample of neighbouring pairs tells the two apart at a fixed cost.
_TIE_SAMPLE = 4096
_TIED_SHARE = 0.25


def _bucket(values: np.ndarray, lo: float, scale: float, n_buckets: int, out: np.ndarray) -> np.ndarray:
    """``floor(clip((values - lo) * scale, -1, n_buckets)) + 1`` as intp, through the float buffer ``out``."""
    with np.errstate(over="ignore"):  # a far value becomes +-inf, which the clip brings back
        np.subtract(values, lo, out=out, dtype=out.dtype)  # float32 values widen exactly, then as float64 ones
        out *= scale
    np.clip(out, -1.0, float(n_buckets), out=out)
    np.floor(out, out=out)
    index = out.astype(np.intp)
    index += 1
    return index


def at_most_counter(reference: np.ndarray, *, queries: int | np.ndarray | None = None):
    """A function ``count(queries)`` giving :func:`count_at_most` against ``reference``, its table built once.

    Call it on blocks of queries (any length) to keep the per-query buffers small. ``queries``, all
    the queries it will answer, or their number (unknown: ``None``), decides whether a bucket table
    pays for its build; when it does not, each query is a binary search.
    """
    queries = _weighted_queries(reference, queries)
    if not _table_pays(reference.shape[0], queries) and not _ties_common(reference):
        return functools.partial(_searched, reference)  # ties, if any, do not need their runs found to be searched
    ends = _run_ends(reference)
    if ends is None:
        return _BucketTable(reference).count
    # 1 + the count at or below each distinct value (and 1 below them all), indexed by 1 + the distinct
    # values at or below a query.
    at_most = np.empty(ends.shape[0] + 1, dtype=np.int64)
    at_most[0] = 1
    np.add(ends, 2, out=at_most[1:])
    distinct = reference[ends]
    if distinct.shape[0] <= _FEW_DISTINCT or not _table_pays(distinct.shape[0], queries):
        return lambda block: at_most[np.searchsorted(distinct, block, side="right")]
    table = _BucketTable(distinct)
    return lambda queries: at_most[table.count(queries) - 1]


def _searched(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """:func:`count_at_most` by binary search alone."""
    return np.searchsorted(reference, queries, side="right").astype(np.int64) + 1


def _weighted_queries(reference: np.ndarray, queries) -> tuple[int, float] | None:
    """``(number of queries, their weight towards the share)``: a query outside the range of ``reference``
    weighs ``_OUTSIDE_WEIGHT`` (estimated from a sample); a number of queries is taken as all inside."""
    if queries is None:
        return None
    if not isinstance(queries, np.ndarray):
        return queries, float(queries)
    n = queries.shape[0]
    if not n:
        return 0, 0.0
    sample = queries[:: max(1, n // _INSIDE_SAMPLE)]
    inside = np.count_nonzero((sample >= reference[0]) & (sample < reference[-1])) / sample.shape[0]
    return n, n * (inside + (1.0 - inside) * _OUTSIDE_WEIGHT)


def _table_pays(values: int, queries: tuple[int, float] | None) -> bool:
    if queries is None:
        return True
    total, weight = queries
    return total >= _TABLE_FROM_QUERIES and weight >= _TABLE_FROM_SHARE * values


def count_at_most(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``1 + #{reference <= q}`` for each query, as int64 (``1 + searchsorted(reference, q, "right")``).

    Parameters
    ----------
    reference : numpy.ndarray of float64 or float32, shape (m,)
        Sorted ascending, finite, ``m >= 1``.
    queries : numpy.ndarray of the same dtype as ``reference``, shape (n,)
        Finite values (a strided column is fine).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        One plus the number of reference values at or below each query.
    """
    count = at_most_counter(reference, queries=queries)
    out = np.empty(queries.shape[0], dtype=np.int64)
    for rows in row_blocks(queries.shape[0]):  # the per-query buffers stay small (jecs_core._blocks)
        out[rows] = count(queries[rows])
    return out


def count_at_most_unsorted(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """:func:`count_at_most` without sorting ``reference``: the queries are sorted and ranked instead.

    Each reference value ``v`` is counted by every query at or above it, that is by the sorted
    queries from position ``#{q < v}`` on: one histogram of those positions, summed up the sorted
    queries, gives every count. ``#{q < v}`` is ``#{q <= v'}`` for ``v'`` the float64 just below
    ``v``, read from the bucket table of the sorted queries. This costs a sort of the n queries
    and a table look-up per reference value instead of a sort of the m reference values, so it
    pays when m is several times n (``benchmarks/bench_pvalues.py``, the rows with m > n).

    Parameters
    ----------
    reference : numpy.ndarray of float64 or float32, shape (m,)
        Finite values, in any order.
    queries : numpy.ndarray of the same dtype as ``reference``, shape (n,)
        Finite values, ``n >= 1`` (a strided column is fine).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        One plus the number of reference values at or below each query.
    """
    n = queries.shape[0]
    order = np.argsort(queries, kind="stable")
    count = at_most_counter(queries[order], queries=reference.shape[0])
    starts = np.zeros(n + 1, dtype=np.int64)  # how many reference values first count at each sorted position
    for rows in row_blocks(reference.shape[0]):
        with np.errstate(over="ignore"):  # below the most negative float lies -inf: below every query, as it should
            below = np.nextafter(reference[rows], -np.inf)
        starts += np.bincount(count(below) - 1, minlength=n + 1)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.cumsum(starts[:n]) + 1
    return out


def _ties_common(reference: np.ndarray) -> bool:
    """Whether a sample of neighbouring sorted values finds a tie in at least ``_TIED_SHARE`` of its pairs."""
    step = max(1, reference.shape[0] // _TIE_SAMPLE)
    left, right = reference[:-1:step], reference[1::step]
    return bool(np.count_nonzero(left == right) >= _TIED_SHARE * left.shape[0])


def _run_ends(reference: np.ndarray) -> np.ndarray | None:
    """Index of the last of each run of equal sorted values (``-0.0 == 0.0``); ``None`` when all differ."""
    differs = reference[1:] != reference[:-1]
    if differs.all():
        return None
    return np.append(np.flatnonzero(differs), reference.shape[0] - 1)


class _BucketTable:
    """The bucket table of sorted distinct ``reference`` values; :meth:`count` answers a block of queries."""

    def __init__(self, reference: np.ndarray):
        m = reference.shape[0]
        self.reference = reference
        lo, hi = float(reference[0]), float(reference[-1])
        self.n_buckets = n_buckets = 1 << max(10, min(20, int(m).bit_length() + 1))  # about two buckets per value
        span = hi - lo
        scale = n_buckets / span if span > 0 else 1.0
        self.lo, self.scale = lo, scale
        self.searched = not (np.isfinite(span) and np.isfinite(scale) and scale > 0)  # a range beyond float64
        if self.searched:
            return
        self.held = held = np.bincount(_bucket(reference, lo, scale, n_buckets, np.empty(m)), minlength=n_buckets + 2)
        # One table: 1 + the count before the bucket, negated where the bucket holds reference values.
        # Built in place: fresh arrays of this size cost more in first-touch page faults than in arithmetic.
        table = np.empty(n_buckets + 2, dtype=np.int64)
        table[0] = 0
        np.cumsum(held[:-1], out=table[1:])
        table += 1
        np.negative(table, out=table, where=held > 0)
        self.table = table

    def count(self, queries: np.ndarray) -> np.ndarray:
        if self.searched:
            return _searched(self.reference, queries)
        buckets = _bucket(queries, self.lo, self.scale, self.n_buckets, np.empty(queries.shape[0]))
        counts = self.table[buckets]
        crowded = np.flatnonzero(counts < 0)
        if crowded.size:
            counts[crowded] = _within_bucket(self.reference, queries[crowded], -counts[crowded],
                                             self.held[buckets[crowded]])
        return counts


def _bucket_count(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """:func:`count_at_most` through the bucket table, all ``reference`` values distinct, in one block."""
    return _BucketTable(reference).count(queries)


def _within_bucket(reference: np.ndarray, queries: np.ndarray, counts: np.ndarray, held: np.ndarray) -> np.ndarray:
    """Add to ``counts`` (1 + values in earlier buckets) the bucket's values at or below each query."""
    first = counts - 1  # index of the bucket's first reference value
    live = np.arange(queries.shape[0])
    for j in range(_SCAN):
        live = live[held[live] > j]
        if not live.size:
            return counts
        below = reference[first[live] + j] <= queries[live]
        live = live[below]
        counts[live] += 1
    live = live[held[live] > _SCAN]
    if live.size:
        counts[live] = np.searchsorted(reference, queries[live], side="right") + 1
    return counts


__all__ = ["at_most_counter", "count_at_most", "count_at_most_unsorted"]
