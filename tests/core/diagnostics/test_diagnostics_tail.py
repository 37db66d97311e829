"""JECS tail diagnostics and the pi0_hat bootstrap band: reference checks, properties, coverage."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import fit_jecs, table_from_frame, table_pvalues
from jecs_core.diagnostics import pi0_bootstrap, storey_pi0, tail_diagnostics
from jecs_core.diagnostics.bootstrap import resample_rows
from jecs_core.simulate.synthetic import paper_synthetic


def _p_max(seed: int, pool_size: int = 1200) -> np.ndarray:
    table = table_from_frame(paper_synthetic(np.random.default_rng(seed), pool_size=pool_size))
    return table_pvalues(table).max(axis=1)


def test_tail_numbers_are_the_fit_and_its_grid():
    p_max = _p_max(0)
    found = tail_diagnostics(p_max)
    fit = fit_jecs(p_max, warn=False)
    assert (found.lam, found.k_n, found.F_fit_lambda, found.pi0_hat) == (fit.lam, fit.k_n, fit.F_fit_lambda, fit.pi0_hat)
    assert found.m_tail == int(np.sum(p_max > fit.lam))
    slopes = [env.slope for env in fit.grid.envelopes if env is not None]
    assert found.slope_min == min(slopes) and found.slope_max == max(slopes)
    assert found.slope_ratio == pytest.approx(max(slopes) / min(slopes))
    assert found.storey_pi0 == min(1.0, (1 + np.sum(p_max > 0.5)) / (p_max.size * 0.5))
    text = "\n".join(found.lines())
    assert f"m_R = {found.m_tail}" in text and f"k_n = {found.k_n}" in text
    json.dumps(found.to_dict(), allow_nan=False)


def test_tail_reports_the_fallback_without_a_tail():
    found = tail_diagnostics(np.full(20, 0.01))
    assert found.lam is None and found.pi0_hat is None and "falls back" in found.lines()[0]
    json.dumps(found.to_dict(), allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(0.001, 1.0), min_size=1, max_size=60), lam=st.sampled_from([0.3, 0.5, 0.8]))
def test_storey_matches_its_formula_and_stays_in_range(values, lam):
    p = np.array(values)
    expected = min(1.0, (1 + sum(v > lam for v in values)) / (len(values) * (1 - lam)))
    assert storey_pi0(p, lam) == pytest.approx(expected) and 0 < storey_pi0(p, lam) <= 1


def test_bootstrap_replicates_equal_a_loop_of_fit_jecs():
    p_max = _p_max(1, pool_size=300)
    band = pi0_bootstrap(p_max, reps=30, seed=5)
    rows = resample_rows(p_max.size, 30, band.seed)
    loop = [fit_jecs(p_max[r], warn=False).pi0_hat for r in rows]
    np.testing.assert_allclose(band.replicates, loop, rtol=1e-13)
    assert band.estimate == fit_jecs(p_max, warn=False).pi0_hat
    low, high = np.quantile(loop, [0.05, 0.95])
    assert (band.low, band.high) == pytest.approx((low, high))


def test_bootstrap_with_fixed_lambda_and_knn_equals_the_loop():
    p_max = _p_max(2, pool_size=300)
    band = pi0_bootstrap(p_max, lam=0.6, knn=4, reps=12, seed=1)
    loop = [fit_jecs(p_max[r], lam=0.6, knn=4, warn=False).pi0_hat for r in resample_rows(p_max.size, 12, 1)]
    np.testing.assert_allclose(band.replicates, loop, rtol=1e-13)


def test_bootstrap_is_seeded_and_checks_its_arguments():
    p_max = _p_max(3, pool_size=300)
    a, b = pi0_bootstrap(p_max, reps=20, seed=9), pi0_bootstrap(p_max, reps=20, seed=9)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert not np.array_equal(a.replicates, pi0_bootstrap(p_max, reps=20, seed=10).replicates)
    for kwargs, name in (({"reps": 1}, "reps"), ({"level": 1.0}, "level"), ({"seed": -2}, "seed"),
                         ({"lam": 2.0}, "lam")):
        with pytest.raises(ValueError, match=name):
            pi0_bootstrap(p_max, **kwargs)
    json.dumps(a.to_dict(), allow_nan=False)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), level=st.floats(0.5, 0.95))
def test_band_is_ordered_and_inside_zero_one(seed, level):
    rng = np.random.default_rng(seed)
    p_max = np.concatenate([rng.uniform(0.01, 1, 80), rng.uniform(0.0, 0.05, 120)])
    band = pi0_bootstrap(p_max, reps=40, level=level, seed=seed)
    assert 0 <= band.low <= band.high <= 1
    assert band.low <= np.median(band.replicates) <= band.high


def test_band_covers_the_estimators_mean_on_fresh_tables():
    # Simulation check: over fresh tables from one generator, a 90% band should cover the
    # mean of pi0_hat (what the bootstrap targets) most of the time.  A percentile band of a
    # non-smooth estimator may under-cover somewhat, hence the margin.
    truth = np.mean([fit_jecs(_p_max(1000 + s, pool_size=600), warn=False).pi0_hat for s in range(300)])
    bands = [pi0_bootstrap(_p_max(s, pool_size=600), reps=200, seed=s) for s in range(60)]
    covered = np.mean([band.low <= truth <= band.high for band in bands])
    assert covered >= 0.8, covered  # measured 0.93


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), grid=st.sampled_from([5, 21, 101]), n=st.integers(2, 400))
def test_bootstrap_on_tied_values_equals_the_loop(seed, grid, n):
    # Conformal max-p values sit on a grid j / (m + 1): many ties, which the counted resample must keep.
    rng = np.random.default_rng(seed)
    p_max = rng.integers(1, grid + 1, n) / (grid + 1)
    band = pi0_bootstrap(p_max, reps=6, seed=seed)
    loop = [fit_jecs(p_max[r], warn=False).pi0_hat for r in resample_rows(n, 6, band.seed)]
    np.testing.assert_allclose(band.replicates, loop, rtol=1e-13)


def test_the_automatic_knn_is_spelt_none_or_auto_alike():
    values = _p_max(5, pool_size=400)
    assert np.array_equal(pi0_bootstrap(values, knn="auto", reps=20, seed=1).replicates,
                          pi0_bootstrap(values, knn=None, reps=20, seed=1).replicates)
    with pytest.raises(ValueError, match=r"^knn must be a positive integer or 'auto'"):
        pi0_bootstrap(values, knn="3", reps=20)
