"""The calibration-urn reference family: its law against direct conformal draws, its bound, its fallbacks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.posthoc import fit_post_hoc, post_hoc_bound
from jecs_core.posthoc.closed_simes import max_null
from jecs_core.posthoc.urn import draw_counts, grid_index, grid_levels, urn_max_null, urn_template, urn_top_sets


def _direct_counts(rng, n, m, levels):
    """N_j from genuine conformal p-values of n null items against m calibration rows."""
    cal = np.sort(rng.standard_normal(m))
    grid = 1 + np.searchsorted(cal, rng.standard_normal(n), side="right")  # p = grid / (m + 1)
    return np.searchsorted(np.sort(grid), levels, side="right")


@pytest.mark.parametrize("n, m", [(40, 15), (300, 90), (200, 1000)])
def test_template_error_on_direct_conformal_draws(n, m):
    rng = np.random.default_rng(n + m)
    reps = 3000
    for delta in (0.1, 0.05):
        levels, thresholds = urn_template(n, m, delta)
        hits = np.mean([np.any(_direct_counts(rng, n, m, levels) >= thresholds) for _ in range(reps)])
        assert hits <= delta + 2 * np.sqrt(delta * (1 - delta) / reps)


def test_simulated_counts_match_direct_draws_in_mean_and_spread():
    n, m, reps = 250, 60, 4000
    levels = grid_levels(m)
    fast = draw_counts(n, m, levels, reps, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    direct = np.array([_direct_counts(rng, n, m, levels) for _ in range(reps)])
    w = levels / (m + 1)
    sd = np.sqrt(n * w * (1 - w) * (n + m + 1) / (m + 2))  # beta-binomial
    assert np.all(np.abs(fast.mean(axis=0) - n * w) < 4 * sd / np.sqrt(reps))
    assert np.all(np.abs(direct.mean(axis=0) - n * w) < 4 * sd / np.sqrt(reps))
    np.testing.assert_allclose(fast.std(axis=0), sd, rtol=0.06)
    np.testing.assert_allclose(direct.std(axis=0), sd, rtol=0.06)


def test_top_set_table_equals_each_top_set():
    rng = np.random.default_rng(3)
    for _ in range(80):
        n, m = int(rng.integers(1, 200)), int(rng.integers(3, 120))
        grid = np.sort(rng.integers(1, m + 2, n))
        levels, thresholds = urn_template(n, m, 0.1)
        top = urn_top_sets(grid, levels, thresholds)
        for r in range(n + 1):
            assert top[r] == urn_max_null(grid, np.arange(n) < r, levels, thresholds)


def test_combined_bound_is_the_smaller_half_bound():
    rng = np.random.default_rng(4)
    m = 50
    p = rng.integers(1, m + 2, (300, 3)) / (m + 1)
    p[:120] = rng.integers(1, 4, (120, 3)) / (m + 1)
    fit = fit_post_hoc(p, delta=0.1, calibration_size=m)
    assert fit.method == "closed-simes-hommel+conformal-urn" and fit.calibration_size == m
    half = fit_post_hoc(p, delta=0.05)
    levels, thresholds = urn_template(300, m, 0.05)
    grid = np.rint(p.max(axis=1) * (m + 1)).astype(int)
    for _ in range(50):
        mask = rng.random(300) < rng.random()
        expected = min(max_null(half.steps, mask), urn_max_null(grid, mask, levels, thresholds))
        assert fit.bound(mask) == expected == post_hoc_bound(p, mask, delta=0.1, calibration_size=m)


def test_off_grid_or_zero_pvalues_fall_back_to_closed_testing():
    rng = np.random.default_rng(5)
    weighted = rng.uniform(size=(100, 2))
    assert fit_post_hoc(weighted, calibration_size=40).method == "closed-simes-hommel"
    on_grid = rng.integers(0, 41, (100, 2)) / 41
    on_grid[0] = 0.0
    assert fit_post_hoc(on_grid, calibration_size=40).method == "closed-simes-hommel"


@pytest.mark.parametrize("value", [0, -3, 2.5, "40", True])
def test_bad_calibration_size(value):
    with pytest.raises(ValueError, match=r"^calibration_size must be an integer >= 1"):
        fit_post_hoc(np.array([0.5, 0.25]), calibration_size=value)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), m=st.integers(2, 80), data=st.data())
def test_urn_bound_in_range_and_monotone_in_the_set(seed, n, m, data):
    rng = np.random.default_rng(seed)
    p = rng.integers(1, m + 2, n) / (m + 1)
    fit = fit_post_hoc(p, delta=0.1, calibration_size=m)
    small = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    large = small | (rng.random(n) < 0.3)
    assert 0 <= fit.bound(small) <= fit.bound(large) <= large.sum()
    assert fit.bound(large) <= fit.bound(small) + (large.sum() - small.sum())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 150), m=st.integers(2, 80),
       d1=st.floats(0.02, 0.9), d2=st.floats(0.02, 0.9))
def test_urn_bound_does_not_grow_with_delta(seed, n, m, d1, d2):
    rng = np.random.default_rng(seed)
    p = rng.integers(1, m + 2, n) / (m + 1)
    mask = rng.random(n) < 0.7
    low, high = sorted((d1, d2))
    assert (fit_post_hoc(p, delta=high, calibration_size=m).bound(mask)
            <= fit_post_hoc(p, delta=low, calibration_size=m).bound(mask))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), m=st.integers(1, 300), block=st.integers(1, 9))
def test_blocks_of_items_give_the_one_pass_results(seed, n, m, block):
    # Every per-item step is elementwise, so any block size gives the same arrays; an off-grid value
    # in a late block still refuses the grid.
    import jecs_core._blocks as blocks

    rng = np.random.default_rng(seed)
    grid = np.sort(rng.integers(1, m + 2, n))
    levels, thresholds = urn_template(n, m, 0.05)
    p = grid / (m + 1)
    whole = urn_top_sets(grid, levels, thresholds), grid_index(p, m)
    kept, blocks.BLOCK_ROWS = blocks.BLOCK_ROWS, block
    try:
        np.testing.assert_array_equal(urn_top_sets(grid, levels, thresholds), whole[0])
        np.testing.assert_array_equal(grid_index(p, m), whole[1])
        off = p.copy()
        off[-1] = (grid[-1] - 0.5) / (m + 1)
        assert grid_index(off, m) is None
    finally:
        blocks.BLOCK_ROWS = kept
    np.testing.assert_array_equal(whole[1], grid)
