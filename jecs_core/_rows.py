"""Per-item reductions across the K model columns of an (n, K) matrix.

numpy reduces a C-ordered matrix along its short rows one row at a time: ``max(axis=1)`` of
10^6 x 2 float64 p-values takes about 34 ms against 0.6 ms for the same matrix in Fortran
order (``benchmarks/RESULTS.md``, "Row-wise maximum"). A matrix with few columns is therefore
copied to Fortran order a block of rows at a time and reduced there; the block stays in cache,
so the copy costs less than the slow reduction. Results are the same values as numpy's.
"""

from __future__ import annotations

import numpy as np

from ._blocks import row_blocks

# Rows per transposed block: 4,096 x 16 float64 values (512 KiB) stay in the second-level cache.
TRANSPOSE_ROWS = 4096
# From this many columns the plain reduction is faster than transposing (measured up to 64).
_MOST_COLUMNS = 16


def row_max(matrix: np.ndarray) -> np.ndarray:
    """``matrix.max(axis=1)`` for a 2-D array with at least one column (NaN propagates as there).

    Examples
    --------
    >>> row_max(np.array([[0.1, 0.7], [0.4, 0.2]])).tolist()
    [0.7, 0.4]
    """
    return _reduced(matrix, lambda values: values.max(axis=1), matrix.dtype)


def row_any(matrix: np.ndarray) -> np.ndarray:
    """``np.any(matrix, axis=1)``: whether each row holds a non-zero value.

    Examples
    --------
    >>> row_any(np.array([[0, 1], [0, 0]], dtype=np.int8)).tolist()
    [True, False]
    """
    return _reduced(matrix, lambda values: np.any(values, axis=1), np.bool_)


def _reduced(matrix: np.ndarray, reduce, dtype) -> np.ndarray:
    n, k = matrix.shape
    if k <= 1 or matrix.flags.f_contiguous or not matrix.flags.c_contiguous or k > _MOST_COLUMNS:
        return reduce(matrix)
    out = np.empty(n, dtype=dtype)
    for rows in row_blocks(n, TRANSPOSE_ROWS):
        out[rows] = reduce(np.asfortranarray(matrix[rows]))
    return out
