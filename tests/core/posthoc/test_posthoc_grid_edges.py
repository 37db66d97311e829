"""The calibration urn takes part only where it is sound: p-values on the stated grid, a delta its draws resolve."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.posthoc.urn import grid_index, urn_resolves

URN = "closed-simes-hommel+conformal-urn"


@pytest.mark.parametrize("delta", [1e-6, 0.0005, 0.0019, 0.00199])
def test_a_delta_finer_than_the_urn_resolves_is_closed_testing_alone(delta):
    rng = np.random.default_rng(1)
    p = jc.conformal_pvalues(rng.normal(size=(300, 2)) - 1.0, rng.normal(size=(40, 2)))
    selected = jc.select(p, alpha=0.2).selected
    fit = jc.fit_post_hoc(p, delta=delta, calibration_size=40)
    assert fit.method == "closed-simes-hommel"
    assert fit.bound(selected) == jc.post_hoc_bound(p, selected, delta=delta) == \
        jc.post_hoc_bound(p, selected, delta=delta, calibration_size=40)
    assert jc.fit_post_hoc(p, delta=0.002, calibration_size=40).method == URN


def test_urn_resolves_its_own_draws():
    assert not urn_resolves(0.00099) and urn_resolves(0.001) and urn_resolves(0.5)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 10**7), seed=st.integers(0, 2**32 - 1))
def test_conformal_pvalues_are_on_their_own_grid(m, seed):
    rng = np.random.default_rng(seed)
    cal = rng.normal(size=(min(m, 3000), 1))  # the grid is (1 + count) / (m + 1); m only sets the step
    count = (cal[:, 0][None, :] >= rng.normal(size=(50, 1))).sum(axis=1) * (m // cal.shape[0])
    p = ((1 + count) / (m + 1)).astype(float)
    assert np.array_equal(grid_index(p, m), 1 + count)


@settings(max_examples=80, deadline=None)
@given(true_m=st.integers(1, 500), claimed=st.integers(1, 10**7))
def test_a_coarser_grid_never_passes_as_a_finer_one(true_m, claimed):
    j = np.arange(1, true_m + 2)
    p = j / (true_m + 1)
    exact = all((Fraction(int(k), true_m + 1) * (claimed + 1)).denominator == 1 for k in j)
    assert (grid_index(p, claimed) is not None) == exact


def test_a_wrong_calibration_size_leaves_the_urn_out():
    rng = np.random.default_rng(0)
    p = jc.conformal_pvalues(rng.normal(size=(2000, 1)), rng.normal(size=(99, 1)))
    assert jc.fit_post_hoc(p, calibration_size=99).method == URN
    assert jc.fit_post_hoc(p, calibration_size=10**6).method == "closed-simes-hommel"
    assert jc.fit_post_hoc(p, calibration_size=10**5).method == "closed-simes-hommel"


def test_simultaneous_error_with_an_overstated_calibration_size():
    # All test items null: any set's bound below its size is an error. With m overstated the urn
    # must not take part, so the error stays at or below delta (it was about half the runs before).
    rng, errors, runs = np.random.default_rng(7), 0, 150
    for _ in range(runs):
        p = jc.conformal_pvalues(rng.normal(size=(400, 1)), rng.normal(size=(99, 1)))
        fit = jc.fit_post_hoc(p, delta=0.1, calibration_size=10**6)
        low = p[:, 0] <= np.quantile(p[:, 0], 0.1)
        errors += fit.bound(np.ones(400, bool)) < 400 or fit.bound(low) < low.sum()
    assert errors / runs <= 0.1 + 2 * np.sqrt(0.1 * 0.9 / runs)
