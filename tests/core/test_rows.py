"""Per-item reductions across model columns: the same values as numpy's, in any layout."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core._rows as rows
from jecs_core._rows import row_any, row_max

LAYOUTS = st.sampled_from(["C", "F", "strided rows", "column slice"])
DTYPES = st.sampled_from([np.float64, np.float32, np.int8, np.bool_])


def _matrix(seed: int, n: int, k: int, dtype, layout: str, nan_share: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.random((2 * n + 1, k + 2))
    if np.issubdtype(dtype, np.floating):
        base[rng.random(base.shape) < nan_share] = np.nan
        values = base.astype(dtype)
    else:
        values = (base < 0.2).astype(dtype)
    if layout == "strided rows":
        return values[::2][:n, :k]
    if layout == "column slice":
        return values[:n, 1 : k + 1]
    block = np.ascontiguousarray(values[:n, :k])
    return np.asfortranarray(block) if layout == "F" else block


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 300), k=st.integers(1, 20), dtype=DTYPES, layout=LAYOUTS,
       nan_share=st.sampled_from([0.0, 0.01, 0.5]), block=st.sampled_from([1, 7, 64, 4096]))
def test_the_same_values_as_numpy(seed, n, k, dtype, layout, nan_share, block):
    matrix = _matrix(seed, n, k, dtype, layout, nan_share)
    kept, rows.TRANSPOSE_ROWS = rows.TRANSPOSE_ROWS, block
    try:
        maximum, anything = row_max(matrix), row_any(matrix)
    finally:
        rows.TRANSPOSE_ROWS = kept
    np.testing.assert_array_equal(maximum, matrix.max(axis=1))
    assert maximum.dtype == matrix.max(axis=1).dtype and maximum.shape == (n,)
    np.testing.assert_array_equal(anything, np.any(matrix, axis=1))
    assert anything.dtype == np.bool_


def test_the_result_is_a_new_array():
    matrix = np.array([[0.2, 0.1], [0.3, 0.9]])
    out = row_max(matrix)
    out[:] = 0
    assert matrix.tolist() == [[0.2, 0.1], [0.3, 0.9]]
    single = np.array([[0.2], [0.3]])
    row_max(single)[:] = 0
    assert single.tolist() == [[0.2], [0.3]]


def test_the_blocked_path_is_taken_for_short_c_ordered_rows(monkeypatch):
    """Guards the layouts the blocks serve: C order, 2 to 16 columns; others reduce in one call."""
    seen = []
    real = np.asfortranarray
    monkeypatch.setattr(rows.np, "asfortranarray", lambda a: seen.append(a.shape) or real(a))
    monkeypatch.setattr(rows, "TRANSPOSE_ROWS", 100)
    row_max(np.zeros((250, 4)))
    assert seen == [(100, 4), (100, 4), (50, 4)]
    seen.clear()
    row_max(np.zeros((250, 4), order="F"))
    row_max(np.zeros((250, 17)))
    assert seen == []


def test_no_columns_is_refused_as_numpy_refuses_it():
    with pytest.raises(ValueError):
        row_max(np.zeros((3, 0)))
