"""The score block read in one pass: the values pandas gives, C-ordered, or None for the per-column checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core._columns as columns
from jecs_core._columns import plain_block


@st.composite
def frames(draw):
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 6))
    data = {"item_id": [f"i{j}" for j in range(n)]}
    for c in range(k):
        if draw(st.booleans()):
            data[f"score_{c}"] = np.array(draw(st.lists(st.integers(-2**40, 2**40), min_size=n, max_size=n)), dtype=np.int64)
        else:
            data[f"score_{c}"] = np.array(draw(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64),
                                                        min_size=n, max_size=n)))
    data["note"] = ["x"] * n
    return pd.DataFrame(data)


@pytest.mark.parametrize("fill_columns", [512, 0])  # the column-by-column fill and the one pandas call
@settings(max_examples=60, deadline=None)
@given(frame=frames())
def test_the_block_is_pandas_values_in_c_order_or_none_when_a_value_is_not_finite(fill_columns, frame):
    saved = columns._FILL_COLUMNS
    columns._FILL_COLUMNS = fill_columns
    try:
        names = [c for c in frame.columns if c.startswith("score_")]
        block = plain_block(frame, names)
    finally:
        columns._FILL_COLUMNS = saved
    expected = frame[names].to_numpy(dtype=float)
    if not np.isfinite(expected).all():
        assert block is None
    else:
        assert block.dtype == np.float64 and block.shape == expected.shape
        assert np.array_equal(block, expected) and np.array_equal(np.signbit(block), np.signbit(expected))
        if fill_columns:
            assert block.flags.c_contiguous


def test_other_orders_and_other_types_go_to_the_per_column_checks():
    frame = pd.DataFrame({"score_a": [1.0, 2.0], "score_b": ["1", "2"]})
    assert plain_block(frame, ["score_a", "score_b"]) is None  # text
    assert plain_block(frame, ["score_b", "score_a"]) is None  # not the frame's order
    assert plain_block(frame, []) is None
