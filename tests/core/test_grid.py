"""``grid_steps`` reads the grid indices of values on ``k / d`` and refuses anything else."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jecs_core._grid import grid_steps


@pytest.mark.filterwarnings("error::RuntimeWarning")
@given(d=st.integers(1, 10**6), k=st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=50),
       stray=st.none() | st.floats(allow_nan=True, allow_infinity=True))
def test_the_steps_rebuild_every_value_and_a_stray_is_refused(d, k, stray):
    steps = np.asarray(k, dtype=float)
    values = steps / d
    np.testing.assert_array_equal(grid_steps(values, d), steps)
    if stray is not None and not (np.isfinite(stray) and np.rint(stray * d) / d == stray):
        values[len(k) // 2] = stray
        got = grid_steps(values, d)
        # Off the grid, or (infinite) on it with an infinite step, which callers bound.
        assert got is None or (np.isinf(stray) and np.isinf(got[len(k) // 2]))
