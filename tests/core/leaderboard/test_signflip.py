"""The sign-flip test of graded metrics: the look-up-table Monte Carlo against full enumeration (ties included),
its validity under the null, a family large enough that the fixed 1,999 draws could never reach Holm's threshold,
and the family-wise error on equal models."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.leaderboard.pairwise import SIGNFLIP_DRAWS, pairwise_table, sign_flip, signflip_draws


def _exact(d: np.ndarray) -> float:
    """The sign-flip p-value over all 2^n sign vectors (the identity among them)."""
    d = d[d != 0]
    flips = np.array(list(itertools.product([-1, 1], repeat=d.shape[0])))
    return float(np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-9))


@pytest.mark.parametrize("seed", range(6))
def test_monte_carlo_matches_full_enumeration_on_lattice_differences(seed):
    """Differences on a lattice (steps of 0.25) tie often: a tie with the observed sum counts as extreme."""
    rng = np.random.default_rng(seed)
    d = rng.integers(-4, 5, size=int(rng.integers(5, 13))) / 4
    d[0] = 0.75  # at least one nonzero difference
    exact, draws = _exact(d), 40_000
    estimate = sign_flip(d, rng=np.random.default_rng(100 + seed), draws=draws)
    se = np.sqrt(exact * (1 - exact) / draws) + 1 / draws
    assert abs(estimate - exact) <= 4 * se


def test_monte_carlo_counts_ties_of_sums_that_round_differently():
    """0.1 + 0.2 and 0.3 are one tie: the look-up sums must count it although float addition differs."""
    d = np.array([0.1, 0.2, -0.3, 0.1, 0.2, -0.3, 0.7, 0.3, 0.3, -0.1])
    assert sign_flip(d, rng=np.random.default_rng(0), draws=40_000) == pytest.approx(_exact(d), abs=0.01)


def test_the_monte_carlo_p_value_is_valid_under_the_null():
    """Differences symmetric about zero: P(p <= u) stays at or below u (three standard errors of slack)."""
    rng = np.random.default_rng(5)
    reps = 3000
    pvalues = np.array([sign_flip(rng.choice([-1.0, 1.0], 9) * rng.integers(0, 4, 9) / 3, rng=rng, draws=199)
                        for _ in range(reps)])
    for u in (0.01, 0.05, 0.1):
        assert np.mean(pvalues <= u) <= u + 3 * np.sqrt(u * (1 - u) / reps)


def test_the_draws_put_the_smallest_p_value_a_tenth_below_holms_first_threshold():
    assert signflip_draws(0, 0.05) == signflip_draws(1, 0.05) == SIGNFLIP_DRAWS
    for m, level in ((120, 0.05), (45, 0.01), (1, 0.0001)):
        draws = signflip_draws(m, level)
        assert 1 / (draws + 1) <= level / m / 10 < 1 / draws
    with pytest.raises(ValueError, match="level"):
        signflip_draws(3, 1.5)


def test_sixteen_models_with_large_gaps_have_significant_pairs():
    """K = 16 (a family of 120 pairs): with 1,999 draws no pair could pass Holm's 0.05 / 120."""
    rng = np.random.default_rng(0)
    values = np.clip(rng.normal(np.linspace(0.2, 0.8, 16), 0.2, size=(600, 16)), 0, 1)
    table = pairwise_table(values, [f"m{k:02d}" for k in range(16)], list(range(16))[::-1], binary=False,
                           rng=np.random.default_rng(1))
    assert table["p_value"].min() == pytest.approx(1 / (signflip_draws(120, 0.05) + 1))
    far = table[(table.model_a == "m15") & (table.model_b == "m00")].iloc[0]
    assert far.significant and table["significant"].sum() > 100


def test_equal_models_keep_the_family_wise_error():
    """Four models of equal skill on a graded metric: any significant pair in at most about 5% of runs."""
    rng = np.random.default_rng(8)
    runs, hits = 200, 0
    for _ in range(runs):
        values = np.round(rng.random((40, 1)) * 0.6 + rng.random((40, 4)) * 0.4, 1)  # ties on a 0.1 lattice
        hits += bool(pairwise_table(values, "abcd", range(4), binary=False, rng=rng)["significant"].any())
    assert hits / runs <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / runs)


differences = st.lists(st.integers(-8, 8).map(lambda v: v / 8), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(differences, st.integers(0, 2**32 - 1))
def test_the_p_value_is_in_the_unit_interval_and_symmetric_under_negation(d, seed):
    d = np.array(d)
    p = sign_flip(d, rng=np.random.default_rng(seed), draws=500)
    assert 0 < p <= 1
    assert sign_flip(-d, rng=np.random.default_rng(seed), draws=500) == p
