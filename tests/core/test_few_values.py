"""``equals_any`` answers as ``np.isin`` does, for every numeric kind the checks pass it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from jecs_core._arrow_text import holds_any_byte
from jecs_core._few_values import equals_any
from jecs_core._validation import check_mask
from jecs_core.metrics import contaminated_items

KINDS = st.sampled_from([np.int8, np.uint8, np.int64, np.float32, np.float64, np.bool_])


@settings(max_examples=200, deadline=None)
@given(data=st.data(), dtype=KINDS)
def test_equals_any_matches_isin(data, dtype):
    values = data.draw(hnp.arrays(dtype, hnp.array_shapes(max_dims=2, max_side=30)))
    choices = data.draw(st.lists(st.integers(-3, 300), min_size=0, max_size=6))
    expected = np.isin(values, choices)
    got = equals_any(values, choices)
    assert got.dtype == bool and got.shape == values.shape
    np.testing.assert_array_equal(got, expected)


def test_nan_and_text_follow_isin():
    np.testing.assert_array_equal(equals_any(np.array([0.0, np.nan, 1.0, -0.0]), (0, 1)), [True, False, True, True])
    words = np.array(["0", "1", "a"])
    np.testing.assert_array_equal(equals_any(words, (0, 1)), np.isin(words, (0, 1)))


def test_label_and_mask_checks_still_refuse_other_values():
    with pytest.raises(ValueError, match="members must hold only 0 and 1"):
        contaminated_items(np.array([[0, 2], [1, 0]], dtype=np.int8))
    with pytest.raises(ValueError, match="selected must be a boolean mask"):
        check_mask(np.array([0.0, 0.5]), None)
    assert check_mask(np.array([0, 1, 1], dtype=np.int8), 3).tolist() == [False, True, True]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=20), st.sampled_from(['"', "\x00", ",", "\n"]))
def test_byte_scan_finds_exactly_the_cells_holding_a_code(cells, code):
    import pyarrow as pa

    found = holds_any_byte(pa.array(cells, type=pa.string()), np.array([ord(code)], dtype=np.uint8))
    assert found == any(code in cell for cell in cells)
