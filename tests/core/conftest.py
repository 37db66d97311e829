"""Fixtures shared by the rules' simulation checks of error control on fresh tables."""

from __future__ import annotations

import numpy as np
import pytest


def _fresh_tables(rng, reps, pool, n_models, mu, corr, single):
    """Fresh conformal tables: calibration 30% (members of every model), test Bernoulli(0.3)."""
    m = int(0.3 * pool)
    n = pool - m
    members = rng.random((reps, n, n_models)) < 0.3
    if single:
        members[:, :, 1:] = False
    shared_c, shared_t = rng.standard_normal((reps, m, 1)), rng.standard_normal((reps, n, 1))
    cal = mu + np.sqrt(corr) * shared_c + np.sqrt(1 - corr) * rng.standard_normal((reps, m, n_models))
    test = mu * members + np.sqrt(corr) * shared_t + np.sqrt(1 - corr) * rng.standard_normal((reps, n, n_models))
    cal = np.sort(cal, axis=1)
    for r in range(reps):
        p = np.column_stack([np.searchsorted(cal[r, :, k], test[r, :, k], side="right") for k in range(n_models)])
        yield (p + 1.0) / (m + 1), members[r].any(axis=1)


def _gcr(rule, tables, alpha):
    """Mean GCP of ``rule`` over ``tables`` and its standard error."""
    g = np.array([(s & bad).sum() / max(1, s.sum()) for s, bad in
                  ((rule(p, alpha=alpha).selected, bad) for p, bad in tables)])
    return g.mean(), g.std(ddof=1) / np.sqrt(g.size)


@pytest.fixture
def fresh_tables():
    """``fresh_tables(rng, reps, pool, n_models, mu, corr, single)`` yields ``(pvalues, contaminated)``."""
    return _fresh_tables


@pytest.fixture
def gcr_estimate():
    """``gcr_estimate(rule, tables, alpha)`` -> (mean GCP, standard error)."""
    return _gcr
