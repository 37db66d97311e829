"""column_step_up equals storey_bh column by column, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core.multitest import column_step_up, storey_bh

grid = st.integers(1, 30).map(lambda c: c / 30)  # coarse grid: many ties, values at the thresholds


@given(
    arrays(float, st.tuples(st.integers(0, 60), st.integers(1, 4)), elements=grid),
    st.sampled_from([0.05, 0.1, 0.2, 1 / 3, 0.5, 0.9]),
    st.sampled_from([1.0, 0.5, 0.8, 1 / 3]),
)
def test_equals_storey_bh_per_column(p, alpha, pi0):
    chosen = column_step_up(p, alpha=alpha, pi0=pi0)
    for k in range(p.shape[1]):
        assert np.array_equal(chosen[:, k], storey_bh(p[:, k], alpha=alpha, pi0=pi0).selected)


def test_large_columns_with_conformal_ties():
    rng = np.random.default_rng(3)
    m = 200
    p = (1 + rng.integers(0, m + 1, size=(20_000, 3)) * (rng.random((20_000, 3)) < 0.7)) / (m + 1)
    for alpha in (0.05, 0.1, 0.3):
        chosen = column_step_up(p, alpha=alpha)
        assert chosen.any()
        for k in range(3):
            assert np.array_equal(chosen[:, k], storey_bh(p[:, k], alpha=alpha).selected)
