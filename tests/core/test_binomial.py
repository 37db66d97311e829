"""The scipy.stats-free binomial helpers equal scipy.stats.binom bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom

from jecs_core._binomial import binom_pmf, binom_sf

probabilities = st.floats(0.01, 0.99)


@given(st.lists(st.integers(-3, 400), min_size=1, max_size=30), st.integers(0, 400), probabilities)
def test_sf_and_pmf_equal_scipy_stats(ks, n, p):
    k = np.array(ks, dtype=float)
    assert np.array_equal(binom_sf(k, n, p), binom.sf(k, n, p))
    assert np.array_equal(binom_pmf(k, n, p), binom.pmf(k, n, p))


def test_the_storey_cap_grid_is_bit_identical():
    # The shape cap_correction evaluates: one k against every null count n0 - 1.
    for n in (1, 2, 7, 50, 999, 3000, 100_000):
        for lam in (0.1, 0.5, 0.9):
            n0 = np.arange(1, n + 1)
            k = np.floor(n * (1 - lam) / 0.95 - 1)
            assert np.array_equal(binom_sf(k, n0 - 1, 1 - lam), binom.sf(k, n0 - 1, 1 - lam))
    sizes, k = np.arange(1, 300)[:, None], np.arange(300)[None, :]
    assert np.array_equal(binom_pmf(k, sizes - 1, 0.5), binom.pmf(k, sizes - 1, 0.5))
