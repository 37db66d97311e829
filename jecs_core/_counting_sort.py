"""``np.sort`` of max-p vectors, by counting when their values repeat and counting pays here.

Conformal p-values take at most m + 1 values, ``k / (m + 1)``; with m well below n the per-item
maximum repeats a few values many times. Where numpy sorts floats with scalar code, counting them
is several times faster than a sort of n values; where it sorts with SIMD sorting networks
(numpy 2 on x86-64 with AVX2 or AVX-512, for one) the sort is as fast or faster at every size measured
(``benchmarks/RESULTS.md``, "Few models"; ``benchmarks/bench_maxp_sort.py``). Both give the same
array, so the process times the two once on a probe (``jecs_core._probe``) and keeps the faster.
"""

from __future__ import annotations

import numpy as np

from ._blocks import row_blocks
from ._grid import grid_steps
from ._probe import shortcut_pays

# From this many items a sample tells whether the values repeat enough for the counting sort.
_COUNTING_FROM = 1 << 15
_SAMPLE = 4096
# Grids up to this long are counted block by block, without an n-long array of their indices.
BLOCK_COUNTS = 1 << 16
# The probe: conformal-like p-values (m = 1000) of the smallest size that is counted.
_PROBE_SIZE, _PROBE_GRID = 1 << 15, 1001
_counting_pays: bool | None = None


def sorted_values(values: np.ndarray) -> np.ndarray:
    """``np.sort(values)`` for positive floats, by counting when few distinct values repeat many times.

    Conformal p-values take at most m + 1 values, k / (m + 1); with m well below n, counting each
    value and repeating the distinct ones in order by their counts gives the same array
    (``np.sort``'s output is the distinct values in order, each repeated), several times faster
    where numpy's sort is scalar code. Counting is tried only where :func:`counting_pays`; a sample
    of the values then decides whether to count; they are counted on their grid k / d when the
    sample's gaps give one d that every value lies on, else through one hash pass; values of any
    other shape are sorted.
    """
    if values.shape[0] < _COUNTING_FROM or not counting_pays():
        return np.sort(values)
    return _counted(values)


def counting_pays() -> bool:
    """Whether counting repeated grid values beats ``np.sort`` on this machine: timed once per process.

    The probe is ``2**15`` conformal-like p-values on the grid of m = 1000, each way timed three
    times, interleaved (about 5 ms in all; :func:`jecs_core._probe.shortcut_pays`). Run on the first
    sort large enough to be counted.
    """
    global _counting_pays
    if _counting_pays is None:
        # Grid values in a scrambled order (a multiplicative step): no numpy.random to import.
        probe = (np.arange(_PROBE_SIZE) * 7919 % _PROBE_GRID + 1) / _PROBE_GRID
        _counting_pays = shortcut_pays(lambda: _counted(probe), lambda: np.sort(probe))
    return _counting_pays


def _counted(values: np.ndarray) -> np.ndarray:
    """``np.sort(values)``, counted on a grid or through a hash pass when a sample shows them repeating."""
    n = values.shape[0]
    if not values.min() > 0.0:  # zeros of both signs would merge into one
        return np.sort(values)
    drawn = values[:: max(1, n // _SAMPLE)]
    sample = _distinct(drawn)
    if sample.size > drawn.size // 4:
        return np.sort(values)
    on_grid = _counted_on_grid(values, sample)
    if on_grid is not None:
        return on_grid
    import pandas as pd  # a hash pass; loaded here, for large inputs only

    codes, distinct = pd.factorize(values, use_na_sentinel=False)
    if distinct.size > n // 16:  # the sample misled: more distinct values than counting pays for
        return np.sort(values)
    order = np.argsort(distinct)
    return np.repeat(distinct[order], np.bincount(codes, minlength=distinct.size)[order])


def _counted_on_grid(values: np.ndarray, sample: np.ndarray) -> np.ndarray | None:
    """``np.sort(values)`` rebuilt from counts when every value is ``k / d`` (float division) for whole
    numbers ``k`` and one ``d`` read off the smallest gap between the sorted distinct ``sample``
    values; ``None`` when they are not (or the grid would be longer than the values)."""
    n = values.shape[0]
    if sample.size < 2:
        return None
    with np.errstate(over="ignore"):  # a subnormal gap gives an infinite d, refused below
        d = float(np.rint(1.0 / np.diff(sample).min()))
    largest = values.max()
    if not (d >= 1.0 and largest * d <= n):  # k at most n: counts no longer than the values
        return None
    top = int(np.rint(largest * d))
    # Short grids are counted block by block; a long one (up to n values) would be zeroed per block.
    counts = np.zeros(top + 1, np.intp) if top < BLOCK_COUNTS else None
    k = None if counts is not None else np.empty(n, np.intp)
    for rows in row_blocks(n):  # the temporaries stay block-sized
        steps = grid_steps(values[rows], d)
        if steps is None:
            return None
        if counts is None:
            k[rows] = steps
        else:
            counted = np.bincount(steps.astype(np.intp))
            counts[: counted.size] += counted
    if counts is None:
        counts = np.bincount(k)
    return np.repeat(np.arange(counts.size) / d, counts)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values in order, as ``np.unique`` gives them, without its import of ``numpy.ma``."""
    ordered = np.sort(values)
    if ordered.size == 0:
        return ordered
    keep = np.empty(ordered.size, bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
