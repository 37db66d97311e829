"""Properties of the post-hoc bound: range, monotonicity in the set and in delta, the path form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core.posthoc import fit_post_hoc, post_hoc_bound, post_hoc_path, post_hoc_record
from jecs_core.posthoc.closed_simes import max_null

# p-values on a conformal grid (ties and the 1/(m+1) floor) or continuous
_grid = st.integers(1, 20).map(lambda j: j / 21)
_unit = st.floats(0.0, 1.0, allow_nan=False)
pvalue_vectors = st.integers(1, 60).flatmap(
    lambda n: arrays(float, n, elements=st.one_of(_grid, _unit)))


def _masks(n, data):
    return np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)


@settings(max_examples=200, deadline=None)
@given(p=pvalue_vectors, data=st.data(), delta=st.floats(0.01, 0.99))
def test_bound_in_range_and_monotone_in_the_set(p, data, delta):
    fit = fit_post_hoc(p, delta=delta)
    small = _masks(p.size, data)
    large = small | _masks(p.size, data)
    b_small, b_large = fit.bound(small), fit.bound(large)
    assert 0 <= b_small <= small.sum()
    assert b_small <= b_large <= b_small + (large.sum() - small.sum())
    assert b_small == post_hoc_bound(p, small, delta=delta)
    assert b_small == max_null(fit.steps, small)  # the top-set shortcut agrees with the direct count


@settings(max_examples=200, deadline=None)
@given(p=pvalue_vectors, data=st.data(), d1=st.floats(0.01, 0.98), d2=st.floats(0.01, 0.98))
def test_bound_does_not_grow_with_delta(p, data, d1, d2):
    low, high = sorted((d1, d2))
    mask = _masks(p.size, data)
    assert post_hoc_bound(p, mask, delta=high) <= post_hoc_bound(p, mask, delta=low)


@settings(max_examples=100, deadline=None)
@given(p=pvalue_vectors, delta=st.floats(0.01, 0.99))
def test_top_set_table_equals_the_bound_of_each_top_set(p, delta):
    fit = fit_post_hoc(p, delta=delta)
    order = np.argsort(p, kind="stable")
    for r in range(p.size + 1):
        mask = np.zeros(p.size, dtype=bool)
        mask[order[:r]] = True
        assert fit.top_set_bounds[r] == max_null(fit.steps, mask)


@pytest.mark.filterwarnings("ignore:no max-p value")  # the paper JECS falls back to JMCS on tiny tables
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 80), k=st.integers(1, 4),
       method=st.sampled_from(["storey-maxp", "jmcs", "jecs", "union", "intersection"]))
def test_path_agrees_with_one_bound_per_alpha(seed, n, k, method):
    from jecs_core.rules import get_rule

    rng = np.random.default_rng(seed)
    p = np.where(rng.random((n, k)) < 0.6, rng.uniform(0, 0.02, (n, k)), rng.uniform(size=(n, k)))
    alphas = np.array([0.3, 0.05, 0.1, 0.2])
    path = post_hoc_path(p, alphas, method=method, delta=0.1)
    fit = get_rule(method).prepare(p)
    for i, alpha in enumerate(alphas):
        mask = fit.select(alpha).selected
        assert path.n_selected[i] == mask.sum()
        assert path.max_contaminated[i] == post_hoc_bound(p, mask, delta=0.1)
        expected_fdp = path.max_contaminated[i] / mask.sum() if mask.any() else 0.0
        assert path.max_fdp[i] == expected_fdp
    assert path.delta == 0.1 and path.method == "closed-simes-hommel"


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 30), data=st.data(), delta=st.floats(0.01, 0.99), top=st.booleans())
def test_one_set_bound_and_record_equal_the_fit_with_and_without_the_urn(m, data, delta, top):
    # Conformal p-values j / (m + 1), so the urn takes part when m is given; top sets take the fit's table.
    n = data.draw(st.integers(1, 60))
    p = np.array(data.draw(st.lists(st.integers(1, m + 1), min_size=n, max_size=n))) / (m + 1)
    mask = _masks(n, data)
    if top:
        mask = np.zeros(n, dtype=bool)
        mask[np.argsort(p, kind="stable")[: data.draw(st.integers(0, n))]] = True
    for calibration_size in (None, m):
        fit = fit_post_hoc(p, delta=delta, calibration_size=calibration_size)
        assert post_hoc_bound(p, mask, delta=delta, calibration_size=calibration_size) == fit.bound(mask)
        record = post_hoc_record(p, mask, delta=delta, calibration_size=calibration_size)
        assert (record["max_contaminated"], record["method"], record["n_selected"]) == (fit.bound(mask), fit.method, mask.sum())
