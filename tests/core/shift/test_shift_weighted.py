"""Weighted conformal p-values: brute-force definition, the unweighted special case, properties, validity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core import conformal_pvalues
from jecs_core.shift import effective_sample_size, estimate_density_ratio, weighted_pvalues
from jecs_core.shift.weighted import plain_pvalues


def brute_force(test, cal, tw, cw, uniforms=None):
    """The definition, one sum at a time."""
    n, k = test.shape
    out = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            below = sum(cw[c] for c in range(len(cal)) if cal[c, j] < test[i, j])
            tied = sum(cw[c] for c in range(len(cal)) if cal[c, j] == test[i, j])
            total = sum(cw) + tw[i]
            u = 1.0 if uniforms is None else uniforms[i, j]
            out[i, j] = (below + u * (tw[i] + tied)) / total
    return out


scores = st.floats(-3, 3, allow_nan=False).map(lambda x: round(x, 1))  # rounding creates ties
weights = st.floats(0.05, 20.0, allow_nan=False)


@st.composite
def problems(draw):
    k = draw(st.integers(1, 3))
    n, m = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    test = draw(arrays(float, (n, k), elements=scores))
    cal = draw(arrays(float, (m, k), elements=scores))
    tw = draw(arrays(float, n, elements=weights))
    cw = draw(arrays(float, m, elements=weights))
    return test, cal, tw, cw


@given(problems())
def test_matches_brute_force(problem):
    test, cal, tw, cw = problem
    np.testing.assert_allclose(weighted_pvalues(test, cal, test_weights=tw, cal_weights=cw),
                               brute_force(test, cal, tw, cw), rtol=1e-12, atol=1e-14)


@given(problems(), st.integers(0, 2**32 - 1))
def test_randomised_matches_brute_force(problem, seed):
    test, cal, tw, cw = problem
    uniforms = np.random.default_rng(seed).random(test.shape)
    got = weighted_pvalues(test, cal, test_weights=tw, cal_weights=cw, rng=np.random.default_rng(seed))
    np.testing.assert_allclose(got, brute_force(test, cal, tw, cw, uniforms), rtol=1e-12, atol=1e-14)


def exact(test, cal, tw, cw, uniforms=None):
    """The definition in exact rational arithmetic, then rounded: no overflow or underflow at any spread."""
    from fractions import Fraction

    out = np.empty(test.shape)
    for i, j in np.ndindex(test.shape):
        below = sum((Fraction(w) for c, w in zip(cal[:, j], cw) if c < test[i, j]), Fraction(0))
        tied = sum((Fraction(w) for c, w in zip(cal[:, j], cw) if c == test[i, j]), Fraction(0))
        u = Fraction(1) if uniforms is None else Fraction(uniforms[i, j])
        out[i, j] = float((below + u * (Fraction(tw[i]) + tied)) / (sum(map(Fraction, cw)) + Fraction(tw[i])))
    return out


@given(problems(), st.lists(st.sampled_from([1e-300, 1e-200, 1e-30, 1.0, 1e30, 1e200, 1e300]), min_size=20,
                            max_size=20), st.integers(0, 2**32 - 1), st.booleans())
def test_weights_spread_over_the_whole_float_range_give_the_exact_value(problem, spread, seed, randomised):
    test, cal, tw, cw = problem
    tw, cw = tw * np.array(spread[:len(tw)]), cw * np.array(spread[10:10 + len(cw)])
    rng = np.random.default_rng(seed) if randomised else None
    uniforms = np.random.default_rng(seed).random(test.shape) if randomised else None
    got = weighted_pvalues(test, cal, test_weights=tw, cal_weights=cw, rng=rng)
    assert np.isfinite(got).all() and (got >= 0).all() and (got <= 1).all()
    np.testing.assert_allclose(got, exact(test, cal, tw, cw, uniforms), rtol=1e-9, atol=1e-12)


@given(problems(), st.floats(1e-3, 1e3), st.integers(0, 2**32 - 1))
def test_equal_weights_give_plain_pvalues_exactly(problem, weight, seed):
    test, cal, _, _ = problem
    n, m = len(test), len(cal)
    same = dict(test_weights=np.full(n, weight), cal_weights=np.full(m, weight))
    assert np.array_equal(weighted_pvalues(test, cal, **same), conformal_pvalues(test, cal))
    assert np.array_equal(weighted_pvalues(test, cal, **same, rng=np.random.default_rng(seed)),
                          conformal_pvalues(test, cal, rng=np.random.default_rng(seed)))
    assert np.array_equal(plain_pvalues(test, cal), conformal_pvalues(test, cal))
    assert np.array_equal(plain_pvalues(test, cal, rng=np.random.default_rng(seed)),
                          conformal_pvalues(test, cal, rng=np.random.default_rng(seed)))


@given(problems(), st.floats(1e-3, 1e3))
def test_properties(problem, factor):
    test, cal, tw, cw = problem
    p = weighted_pvalues(test, cal, test_weights=tw, cal_weights=cw)
    assert np.all(p > 0) and np.all(p <= 1)
    # A common rescaling of the weights changes nothing.
    np.testing.assert_allclose(weighted_pvalues(test, cal, test_weights=tw * factor, cal_weights=cw * factor), p, rtol=1e-12)
    # Monotone in the test score, for the same weight.
    higher = weighted_pvalues(test + 0.05, cal, test_weights=tw, cal_weights=cw)
    assert np.all(higher >= p - 1e-12)
    # The floor: an item's own weight over the total.
    assert np.all(p >= (tw / (cw.sum() + tw))[:, None] - 1e-12)


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="test_weights"):
        weighted_pvalues(np.zeros((2, 1)), np.zeros((3, 1)), test_weights=[1, -1], cal_weights=[1, 1, 1])
    with pytest.raises(ValueError, match="cal_weights"):
        weighted_pvalues(np.zeros((2, 1)), np.zeros((3, 1)), test_weights=[1, 1], cal_weights=[1, 1])
    with pytest.raises(ValueError, match="clip"):
        estimate_density_ratio(np.zeros((5, 1)), np.zeros((5, 1)), clip=1.0)


def test_effective_sample_size():
    assert effective_sample_size(np.ones(7)) == pytest.approx(7.0)
    assert effective_sample_size([1.0, 0.0, 0.0]) == pytest.approx(1.0)


def test_estimated_ratio_tracks_the_true_ratio():
    """Location shift N(1, 1) -> N(0, 1): true log ratio is 0.5 - x."""
    rng = np.random.default_rng(3)
    cal_x, test_x = 1 + rng.standard_normal(1500), rng.standard_normal(3000)
    ratio = estimate_density_ratio(test_x, cal_x, rng=rng)
    true = np.exp(0.5 - cal_x)
    central = np.abs(cal_x - 1) < 1.5
    assert np.corrcoef(np.log(ratio.cal_weights[central]), np.log(true[central]))[0, 1] > 0.95
    # ESS share of the true ratio is 1 / E[w^2] = exp(-1) ~ 0.37.
    assert 0.25 < ratio.ess_fraction < 0.5
    same = estimate_density_ratio(rng.standard_normal(1000), rng.standard_normal(1000), rng=rng)
    assert same.ess_fraction > 0.95


def test_marginal_validity_with_true_weights():
    """Tibshirani et al.: with the true ratio, P(p <= a) <= a for a member under covariate shift."""
    rng = np.random.default_rng(11)
    reps, m, levels = 4000, 40, np.array([0.05, 0.1, 0.2])
    hits, plain_hits = np.zeros(len(levels)), np.zeros(len(levels))
    for _ in range(reps):
        cal_x, x = 1 + rng.standard_normal(m), rng.standard_normal(1)
        cal_t, t = 1.5 * cal_x + rng.standard_normal(m), 1.5 * x + rng.standard_normal(1)
        p = weighted_pvalues(t, cal_t, test_weights=np.exp(0.5 - x), cal_weights=np.exp(0.5 - cal_x))[0, 0]
        hits += p <= levels
        plain_hits += conformal_pvalues(t, cal_t)[0, 0] <= levels
    se = np.sqrt(levels * (1 - levels) / reps)
    assert np.all(hits / reps <= levels + 3 * se)
    assert np.all(plain_hits / reps > levels + 3 * se)  # the shift does break the plain p-value
