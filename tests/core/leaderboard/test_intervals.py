"""Intervals: published reference values, brute-force ranges, properties, and coverage on fresh data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.leaderboard.intervals import (
    BOOTSTRAP_MAX_N,
    binary_clean_range,
    inflation_interval,
    mean_interval,
    newcombe_difference,
    truly_clean_range,
    wilson_interval,
)


@pytest.mark.parametrize(("s", "n", "low", "high"), [
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I (method 3, the score interval).
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_published_values(s, n, low, high):
    got = wilson_interval(s, n)
    assert (float(got[0]), float(got[1])) == pytest.approx((low, high), abs=5e-5)


def test_newcombe_difference_matches_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873-890: 56/70 - 48/80, method 10: 0.0524 to 0.3339.
    low, high = newcombe_difference(56, 70, 48, 80)
    assert (float(low), float(high)) == pytest.approx((0.0524, 0.3339), abs=5e-5)


def test_empty_groups_give_nan_not_a_made_up_interval():
    assert np.isnan(wilson_interval(0, 0)).all()
    assert np.isnan(mean_interval([], rng=np.random.default_rng(0))).all()
    assert np.isnan(truly_clean_range([], 3)).all() and np.isnan(binary_clean_range(0, 0, 3)).all()
    assert np.isnan(inflation_interval([], [1.0], rng=np.random.default_rng(0))).all()
    assert inflation_interval([0.5, 0.2], [], rng=np.random.default_rng(0)) == (0.0, 0.0)


def _brute_range(values, bound):
    means = [np.mean([v for i, v in enumerate(values) if i not in drop])
             for j in range(min(bound, len(values) - 1) + 1) for drop in itertools.combinations(range(len(values)), j)]
    return min(means), max(means)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=8), st.integers(0, 9))
def test_the_range_is_the_extremes_over_every_removable_subset(values, bound):
    assert truly_clean_range(values, bound) == pytest.approx(_brute_range(values, bound), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=40), st.integers(0, 45))
def test_the_binary_range_from_counts_equals_the_general_one(values, bound):
    counts = binary_clean_range(sum(values), len(values), bound)
    assert counts == pytest.approx(truly_clean_range(values, bound), abs=1e-12)
    low, high = counts
    assert low <= np.mean(values) + 1e-12 <= high + 2e-12
    wider = binary_clean_range(sum(values), len(values), bound + 1)
    assert wider[0] <= low + 1e-12 and wider[1] >= high - 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 200), st.integers(1, 200), st.floats(0.5, 0.99))
def test_wilson_contains_the_proportion_and_widens_with_confidence(s, n, confidence):
    s = min(s, n)
    low, high = wilson_interval(s, n, confidence=confidence)
    assert 0 <= low <= s / n <= high <= 1
    wide = wilson_interval(s, n, confidence=min(0.999, confidence + 0.005))
    assert wide[0] <= low + 1e-12 and wide[1] >= high - 1e-12


def test_wilson_covers_at_the_nominal_rate_on_fresh_data():
    rng = np.random.default_rng(11)
    for p, n in ((0.3, 80), (0.9, 200), (0.5, 30)):
        s = rng.binomial(n, p, size=4000)
        low, high = wilson_interval(s, np.full(s.shape, n))
        assert 0.93 <= ((low <= p) & (p <= high)).mean() <= 0.975


def test_the_bootstrap_interval_covers_a_skewed_mean_on_fresh_data():
    rng = np.random.default_rng(12)
    hits = sum(low <= 0.25 <= high for low, high in
               (mean_interval(rng.beta(0.5, 1.5, size=150), rng=rng, draws=1000) for _ in range(300)))
    assert 0.91 <= hits / 300 <= 0.98


def test_the_normal_interval_above_the_bootstrap_limit_covers_on_fresh_data():
    rng = np.random.default_rng(13)
    n = BOOTSTRAP_MAX_N + 1
    hits = sum(low <= 0.25 <= high for low, high in
               (mean_interval(rng.beta(0.5, 1.5, size=n), rng=rng) for _ in range(200)))
    assert 0.92 <= hits / 200 <= 0.99


def test_the_inflation_intervals_cover_on_fresh_data():
    """mean(all) - mean(clean) has expectation w (mu_rest - mu_clean); both interval forms cover it."""
    rng = np.random.default_rng(14)
    n_clean, n_rest, mu_clean, mu_rest = 120, 80, 0.5, 0.7
    truth = n_rest / (n_clean + n_rest) * (mu_rest - mu_clean)
    binary = non_binary = 0
    for _ in range(300):
        s_c, s_r = rng.binomial(n_clean, mu_clean), rng.binomial(n_rest, mu_rest)
        low, high = newcombe_difference(s_r, n_rest, s_c, n_clean)
        binary += bool(low * n_rest / 200 <= truth <= high * n_rest / 200)
        clean, rest = rng.beta(2, 2, n_clean) * 2 * mu_clean, rng.beta(2, 2, n_rest) * 2 * mu_rest  # means mu_*
        low, high = inflation_interval(clean, rest, rng=rng, draws=800)
        non_binary += bool(low <= truth <= high)
    assert 0.92 <= binary / 300 <= 0.985 and 0.91 <= non_binary / 300 <= 0.98


def test_bootstrap_draws_are_reproducible_from_the_seed():
    values = np.random.default_rng(1).random(300)
    assert mean_interval(values, rng=np.random.default_rng(5)) == mean_interval(values, rng=np.random.default_rng(5))


@pytest.mark.parametrize("n", [2, 5, 12])
def test_graded_intervals_on_few_items_cover_on_fresh_data(n):
    rng = np.random.default_rng(100 + n)
    reps = 400
    hits = sum(low <= 0.5 <= high for low, high in (mean_interval(rng.random(n), rng=rng, draws=300) for _ in range(reps)))
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps) - 0.03  # t's own shortfall on a flat law is ~0.03


@pytest.mark.parametrize("n_clean, n_rest", [(1, 120), (120, 1), (3, 120)])
def test_inflation_with_a_tiny_group_covers_on_fresh_data(n_clean, n_rest):
    rng = np.random.default_rng(n_clean * 7 + n_rest)
    reps = 400
    hits = sum(low <= 0.0 <= high for low, high in (
        inflation_interval(rng.normal(size=n_clean), rng.normal(size=n_rest), rng=rng, draws=300) for _ in range(reps)))
    assert hits / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)


def test_one_graded_value_has_no_interval():
    assert np.isnan(mean_interval([0.7], rng=np.random.default_rng(0))).all()


def test_the_bootstrap_of_few_levels_draws_the_same_means_as_resampling_items():
    """Counts per level are multinomial: the means' distribution is the item resample's (same quantiles)."""
    from jecs_core.leaderboard.intervals import _bootstrap_means

    rng = np.random.default_rng(3)
    values = rng.choice([0.0, 0.25, 0.5, 1.0], size=4000, p=[0.5, 0.2, 0.2, 0.1])
    by_level = _bootstrap_means(values, np.random.default_rng(4), 4000)
    jitter = values + np.arange(values.shape[0]) * 1e-12  # every value distinct: the item resample
    by_item = _bootstrap_means(jitter, np.random.default_rng(5), 4000)
    se = values.std() / np.sqrt(values.shape[0])
    assert abs(by_level.mean() - values.mean()) < 0.1 * se and abs(by_item.mean() - values.mean()) < 0.1 * se
    assert by_level.std() == pytest.approx(se, rel=0.05) and by_item.std() == pytest.approx(se, rel=0.05)
    for q in (0.025, 0.5, 0.975):
        assert abs(np.quantile(by_level, q) - np.quantile(by_item, q)) < 0.15 * se
