"""The CSV writer's repeated-value path (each distinct float formatted once) gives pandas' bytes."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core._fastcsv import write_csv

specials = [0.0, 1.0, -2.5, 1e-5, 1e16, 123456789.125, np.nan, np.inf, -np.inf, 1 / 3]


@settings(max_examples=25, deadline=None)
@given(st.integers(1001, 4000), st.integers(1, 300), st.lists(st.sampled_from(specials), max_size=4),
       st.integers(0, 2**32 - 1))
def test_repeated_floats_write_pandas_bytes(n, m, extra, seed):
    rng = np.random.default_rng(seed)
    pool = np.concatenate([(np.arange(m) + 1.0) / (m + 1), np.array(extra, dtype=float)])
    frame = pd.DataFrame({"id": [f"t{i}" for i in range(n)], "p": pool[rng.integers(0, len(pool), n)],
                          "q": rng.standard_normal(n)})
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")


@settings(max_examples=25, deadline=None)
@given(st.integers(1001, 3000), st.sampled_from(["int8", "int16", "int64", "uint8", "uint64"]),
       st.integers(-200, 200), st.integers(0, 5000), st.integers(0, 2**32 - 1))
def test_small_range_integers_write_pandas_bytes(n, dtype, low, width, seed):
    info = np.iinfo(dtype)
    low = min(max(low, info.min), info.max)
    high = min(low + width, info.max)
    rng = np.random.default_rng(seed)
    values = rng.integers(low, high, n, endpoint=True).astype(dtype)
    frame = pd.DataFrame({"id": [f"t{i}" for i in range(n)], "label": values, "extreme": values[::-1]})
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4000), st.integers(1001, 3000), st.sampled_from(["on", "randomized", "one off", "nan", "zero"]),
       st.integers(37, 900), st.integers(0, 2**32 - 1))
def test_columns_on_the_p_value_grid_write_pandas_bytes_block_by_block(m, n, kind, rows_per_block, seed):
    # Conformal p-values are k / (m + 1); a column with any other value must take the general path.
    import jecs_core._fastcsv as fastcsv

    rng = np.random.default_rng(seed)
    d = m + 1
    on = rng.integers(1, d + 1, n) / d
    other = on.copy()
    if kind == "randomized":
        other = (rng.integers(0, d, n) + rng.random(n)) / d
    elif kind == "one off":
        other[rng.integers(n)] = np.nextafter(other[0], 2.0)
    elif kind == "nan":
        other[rng.integers(n)] = np.nan
    elif kind == "zero":
        other[rng.integers(n)] = 0.0
    frame = pd.DataFrame({"id": [f"t{i}" for i in range(n)], "p_max": np.maximum(on, on[::-1]), "p_a": on, "p_b": other,
                          "score": rng.standard_normal(n)})
    assert fastcsv._on_grid(frame["p_a"].to_numpy(), d) and fastcsv._on_grid(frame["p_max"].to_numpy(), d)
    assert fastcsv._on_grid(other, d) == (kind == "on")
    buffer = io.BytesIO()
    before = fastcsv._ROWS_PER_CHUNK
    fastcsv._ROWS_PER_CHUNK = rows_per_block
    try:
        assert fastcsv.write_columns(frame, buffer, denominator=d) == "fast"
    finally:
        fastcsv._ROWS_PER_CHUNK = before
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")


def test_a_denominator_must_be_a_positive_integer():
    from jecs_core._fastcsv import write_columns

    frame = pd.DataFrame({"a": [0.5, 1.0], "b": [1, 2]})
    for bad in (0, -3, 2.5, True, "7"):
        with pytest.raises((ValueError, TypeError), match="denominator"):
            write_columns(frame, io.BytesIO(), denominator=bad)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 300), st.integers(1, 300), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_conformal_p_values_lie_on_the_grid_the_export_names(n, m, rounding, seed):
    # The export passes denominator = m + 1: every deterministic p-value column, and max-p, is on that grid.
    import jecs_core as jc
    from jecs_core._fastcsv import _on_grid

    rng = np.random.default_rng(seed)
    test, cal = (np.round(rng.standard_normal((rows, 3)), rounding) for rows in (n, m))
    p = jc.conformal_pvalues(test, cal)
    assert all(_on_grid(p[:, k], m + 1) for k in range(3)) and _on_grid(p.max(axis=1), m + 1)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 120), st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6),
       st.integers(0, 2**32 - 1))
def test_any_float_column_with_a_denominator_writes_pandas_bytes(d, n, strays, seed):
    # Grid values with arbitrary floats (-0.0, NaN, inf, subnormals, values near the grid) mixed in, or not.
    from jecs_core._fastcsv import write_columns

    rng = np.random.default_rng(seed)
    values = rng.integers(1, d + 1, n) / d
    for stray in strays:
        values[rng.integers(n)] = stray
    frame = pd.DataFrame({"id": np.arange(n), "p": values, "q": values[::-1].copy()})
    buffer = io.BytesIO()
    write_columns(frame, buffer, denominator=d)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("block", [1, 3, 50])
def test_the_grid_check_in_row_blocks_finds_a_stray_in_any_block(monkeypatch, block):
    import jecs_core._blocks as blocks
    from jecs_core import _fastcsv as fastcsv

    monkeypatch.setattr(blocks, "BLOCK_ROWS", block)
    values = np.arange(1, 101) / 101
    assert fastcsv._on_grid(values, 101)
    for where, stray in ((0, 0.5), (57, np.nan), (99, 1.0 + 1e-12), (99, 0.0), (3, 1.7e308), (4, -np.inf)):
        off = values.copy()
        off[where] = stray
        assert not fastcsv._on_grid(off, 101)
