"""``np.sort`` of max-p vectors, by counting when their values repeat.

Conformal p-values take at most m + 1 values, ``k / (m + 1)``; with m well below n the per-item
maximum repeats a few values many times, and counting them is several times faster than a sort
of n values (``benchmarks/RESULTS.md``, "Few models").
"""

from __future__ import annotations

import numpy as np

from ._blocks import row_blocks
from ._grid import grid_steps

# From this many items a sample tells whether the values repeat enough for the counting sort.
_COUNTING_FROM = 1 << 15
_SAMPLE = 4096
# Grids up to this long are counted block by block, without an n-long array of their indices.
BLOCK_COUNTS = 1 << 16


def sorted_values(values: np.ndarray) -> np.ndarray:
    """``np.sort(values)`` for positive floats, by counting when few distinct values repeat many times.

    Conformal p-values take at most m + 1 values, k / (m + 1); with m well below n, counting each
    value and repeating the distinct ones in order by their counts is several times faster than a
    sort of n values, with the same result (``np.sort``'s output is the distinct values in order,
    each repeated). The values are counted on their grid k / d when the sample's gaps give one d
    that every value lies on, else through one hash pass. A sample of the values decides whether to
    count at all; values of any other shape are sorted.
    """
    n = values.shape[0]
    if n < _COUNTING_FROM or not values.min() > 0.0:  # zeros of both signs would merge into one
        return np.sort(values)
    drawn = values[:: max(1, n // _SAMPLE)]
    sample = np.unique(drawn)
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
