"""BH and Storey-BH: reference checks against scipy and step-up properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import false_discovery_control

from jecs_core import benjamini_hochberg, bh_adjusted, storey_bh

pvalue_arrays = arrays(
    float,
    st.integers(1, 60),
    elements=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])),
)
alphas = st.floats(0.001, 0.999)


def test_adjusted_matches_scipy_on_random_inputs():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        # A mix of signal and null, with ties from rounding.
        p = np.concatenate([rng.beta(0.3, 4, n // 3), rng.random(n - n // 3)])
        if rng.random() < 0.5:
            p = np.round(p, 2)
        np.testing.assert_allclose(bh_adjusted(p), false_discovery_control(p, method="bh"), rtol=1e-12, atol=1e-15)


def test_selection_matches_scipy_adjusted_values():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        p = np.round(np.concatenate([rng.beta(0.3, 4, n // 2), rng.random(n - n // 2)]), 3)
        alpha = float(rng.uniform(0.01, 0.5))
        selected = benjamini_hochberg(p, alpha=alpha).selected
        expected = false_discovery_control(p, method="bh") <= alpha
        # scipy's adjusted values carry float rounding; compare away from the exact boundary.
        q = false_discovery_control(p, method="bh")
        clear = np.abs(q - alpha) > 1e-12
        np.testing.assert_array_equal(selected[clear], expected[clear])


def test_known_small_example():
    p = np.array([0.01, 0.04, 0.03, 0.20, 0.9])
    # sorted: .01 .03 .04 .20 .90 vs 0.1 r/5 = .02 .04 .06 .08 .10 -> r* = 3
    result = benjamini_hochberg(p, alpha=0.1)
    assert result.r_star == 3
    assert result.threshold == pytest.approx(0.06)
    np.testing.assert_array_equal(result.selected, [True, True, True, False, False])


def test_storey_equals_bh_at_scaled_alpha():
    rng = np.random.default_rng(3)
    p = rng.random(500) ** 3
    for pi0 in (0.2, 0.5, 0.9):
        a = storey_bh(p, alpha=0.05, pi0=pi0)
        b = benjamini_hochberg(p, alpha=0.05 / pi0)
        np.testing.assert_array_equal(a.selected, b.selected)
        np.testing.assert_array_equal(a.selected, bh_adjusted(p, pi0=pi0) <= 0.05 + 1e-12)


def test_nothing_selected_and_empty_input():
    result = benjamini_hochberg(np.array([0.5, 0.9, 1.0]), alpha=0.1)
    assert result.r_star == 0 and result.threshold == 0.0 and not result.selected.any()
    empty = benjamini_hochberg(np.array([]), alpha=0.1)
    assert empty.r_star == 0 and empty.selected.shape == (0,)


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, float("nan"), "0.1", True])
def test_bad_alpha_names_argument(bad):
    with pytest.raises(ValueError, match="alpha"):
        benjamini_hochberg(np.array([0.1]), alpha=bad)


@pytest.mark.parametrize("bad", [0, -1, 1.2, float("nan")])
def test_bad_pi0_names_argument(bad):
    with pytest.raises(ValueError, match="pi0"):
        storey_bh(np.array([0.1]), alpha=0.1, pi0=bad)


def test_bad_pvalues_rejected():
    with pytest.raises(ValueError, match="pvalues"):
        benjamini_hochberg(np.array([0.1, 1.2]), alpha=0.1)
    with pytest.raises(ValueError, match="pvalues"):
        benjamini_hochberg(np.array([[0.1]]), alpha=0.1)


@given(pvalue_arrays, alphas)
def test_selection_is_prefix_of_sorted_values(p, alpha):
    result = benjamini_hochberg(p, alpha=alpha)
    order = np.sort(p)
    assert result.selected.sum() == result.r_star
    if result.r_star:
        # Everything at or below the r*-th smallest value is selected, nothing above it.
        cut = order[result.r_star - 1]
        np.testing.assert_array_equal(result.selected, p <= cut)
        assert cut <= alpha * result.r_star / len(p) + 1e-15


@given(pvalue_arrays, alphas, alphas)
def test_selection_monotone_in_alpha(p, a1, a2):
    low, high = sorted((a1, a2))
    small = benjamini_hochberg(p, alpha=low).selected
    large = benjamini_hochberg(p, alpha=high).selected
    assert not (small & ~large).any()


@given(pvalue_arrays, alphas, st.floats(0.05, 1.0))
def test_adjusted_values_agree_with_selection(p, alpha, pi0):
    q = bh_adjusted(p, pi0=pi0)
    selected = storey_bh(p, alpha=alpha, pi0=pi0).selected
    clear = np.abs(q - alpha) > 1e-9
    np.testing.assert_array_equal(selected[clear], (q <= alpha)[clear])
    assert np.all((q >= 0) & (q <= 1))


def test_step_up_mask_reference():
    from jecs_core.multitest import step_up_mask

    values = np.array([0.3, 0.01, 0.2, 0.01, 0.2])
    ordered = np.sort(values)
    assert step_up_mask(values, ordered, 0).tolist() == [False] * 5
    assert step_up_mask(values, ordered, 1).tolist() == [False, True, False, True, False]  # ties pass together
    assert step_up_mask(values, ordered, 3).tolist() == [False, True, True, True, True]
    assert step_up_mask(values, ordered, 5).all()


@given(pvalue_arrays, st.data())
def test_step_up_mask_keeps_exactly_the_values_at_or_below_the_r_th(p, data):
    from jecs_core.multitest import step_up_mask

    r_star = data.draw(st.integers(0, p.size))
    chosen = step_up_mask(p, np.sort(p), r_star)
    # A loop over the items: kept when the r*-th smallest value is not below it.
    expected = [r_star > 0 and v <= sorted(p)[r_star - 1] for v in p]
    assert chosen.tolist() == expected
    assert chosen.sum() >= r_star


@given(pvalue_arrays, alphas)
def test_storey_bh_selects_through_step_up_mask(p, alpha):
    from jecs_core.multitest import step_up_mask

    found = storey_bh(p, alpha=alpha)
    assert np.array_equal(found.selected, step_up_mask(p, np.sort(p), found.r_star))


def _step_up_scan(ordered, alpha, pi0):
    # The step-up read straight off its definition: the highest rank whose value passes.
    n = ordered.shape[0]
    passing = [r for r in range(1, n + 1) if ordered[r - 1] <= alpha * r / (pi0 * n)]
    return passing[-1] if passing else 0


@given(values=st.lists(st.floats(0.0, 1.0) | st.sampled_from([0.0, 1e-3, 0.01, 0.05, 0.5, 1.0]), max_size=300),
       alpha=st.floats(1e-4, 0.999), pi0=st.floats(1e-3, 1.0), searches=st.sampled_from([0, 1, 3, 32]))
def test_step_up_by_searches_equals_the_scan(values, alpha, pi0, searches):
    # Counting down by binary searches, with any number of searches before the scan takes over.
    import jecs_core.multitest as multitest

    ordered = np.sort(np.asarray(values, dtype=float))
    kept = multitest._SEARCHES
    multitest._SEARCHES = searches
    try:
        got = multitest.step_up_sorted(ordered, alpha, pi0)
    finally:
        multitest._SEARCHES = kept
    assert got == _step_up_scan(ordered, alpha, pi0)


def test_step_up_on_a_slow_descent_and_on_exact_crossings():
    # Values sitting just above each rank's threshold make the count fall by one per search, so the
    # searches run out and the scan finishes; values exactly on the thresholds all pass.
    from jecs_core.multitest import step_up_sorted

    n, alpha = 2000, 0.1
    ranks = np.arange(1, n + 1)
    on_line = alpha * ranks / n
    assert step_up_sorted(on_line, alpha, 1.0) == n
    above = np.nextafter(on_line, 1.0)
    above[:50] = on_line[:50]
    assert step_up_sorted(above, alpha, 1.0) == _step_up_scan(above, alpha, 1.0) == 50


@pytest.mark.parametrize("given", ["abc", [0.1, "x"], "nan-inside"])
def test_a_sort_that_is_not_numbers_or_holds_nan_is_refused_naming_it(given):
    p = np.random.default_rng(3).uniform(size=12)
    if given == "nan-inside":
        given = np.sort(p)
        given[5] = np.nan
    with pytest.raises(ValueError, match="^sorted_values must "):
        storey_bh(p, alpha=0.1, sorted_values=given)
