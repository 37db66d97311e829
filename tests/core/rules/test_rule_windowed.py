"""Windowed JECS: brute-force agreement, properties, and error control on fresh tables."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.rules import REGISTRY
from jecs_core.rules.windowed import DEFAULT_LAMBDA, RULE, fit_windowed, windowed_jecs
from jecs_core.selection import jecs


def brute_force(pvalues, alpha, lam=DEFAULT_LAMBDA):
    """Straight from the definition, with plain loops."""
    p_star = [max(row) for row in np.atleast_2d(np.asarray(pvalues, dtype=float).T).T.tolist()]
    edge = (lam + 1.0) / 2.0
    distinct = sorted({x for x in p_star if x > lam})
    gaps = [b - a for a, b in zip(distinct, distinct[1:])]
    delta = min(gaps) if gaps else math.inf
    n_low = sum(1 for x in p_star if lam < x <= edge)
    n_high = sum(1 for x in p_star if x > edge)
    v = 0.5 * (max(edge - lam - delta, 0.0) / (1 + n_low) + (1.0 - edge) / (1 + n_high))
    ordered = sorted(p_star)
    r_star = 0
    for r in range(1, len(ordered) + 1):
        if ordered[r - 1] <= min(lam, alpha * r * v):
            r_star = r
    if r_star == 0:
        return [False] * len(p_star)
    return [x <= ordered[r_star - 1] for x in p_star]


lattice = st.integers(min_value=5, max_value=60)


@st.composite
def pvalue_tables(draw):
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 4))
    if draw(st.booleans()):  # conformal lattice p-values, with ties
        m1 = draw(lattice)
        ints = draw(st.lists(st.integers(1, m1), min_size=n * k, max_size=n * k))
        return np.array(ints, dtype=float).reshape(n, k) / m1
    vals = draw(st.lists(st.floats(0.0, 1.0), min_size=n * k, max_size=n * k))
    return np.array(vals).reshape(n, k)


@settings(max_examples=300, deadline=None)
@given(pvalue_tables(), st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9]), st.sampled_from([0.3, 0.5, 0.7, 0.9]))
def test_matches_brute_force(p, alpha, lam):
    got = windowed_jecs(p, alpha=alpha, lam=lam).selected
    assert got.tolist() == brute_force(p, alpha, lam)


@settings(max_examples=150, deadline=None)
@given(pvalue_tables(), st.floats(0.01, 0.5), st.floats(0.01, 0.5))
def test_monotone_in_alpha(p, a1, a2):
    low, high = sorted((a1, a2))
    fit = fit_windowed(p)
    assert np.all(fit.select(low).selected <= fit.select(high).selected)


@settings(max_examples=100, deadline=None)
@given(pvalue_tables(), st.randoms(use_true_random=False))
def test_order_invariant_and_below_lambda(p, rnd):
    perm = list(range(p.shape[0]))
    rnd.shuffle(perm)
    a = windowed_jecs(p, alpha=0.3).selected
    b = windowed_jecs(p[perm], alpha=0.3).selected
    assert a[perm].tolist() == b.tolist()
    assert np.all(p.max(axis=1)[a] <= DEFAULT_LAMBDA)


def test_all_ones_and_ties():
    assert windowed_jecs(np.ones((50, 3)), alpha=0.5).n_selected == 0
    # Tied max-p values are selected together or not at all.
    p = np.array([[0.01], [0.01], [0.01], [0.9], [0.95], [0.8]])
    sel = windowed_jecs(p, alpha=0.5, lam=0.5).selected
    assert len(set(sel[:3].tolist())) == 1


def test_dashboard_fields_consistent():
    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(0, 0.01, (80, 4)), rng.uniform(0, 1, (220, 4))])
    res = fit_windowed(p).select(0.1)
    # Selecting on p* <= threshold_pmax is the same as p~ <= threshold.
    assert np.array_equal(res.selected, res.p_max <= res.threshold_pmax + 1e-15)
    assert np.array_equal(res.selected, res.p_tilde <= res.threshold + 1e-15)
    assert 0 < res.anchor <= res.lam and res.pi0_hat > 0 and res.r_star == res.n_selected


def test_options_and_rule_object():
    # A research variant: a Rule object, deliberately not in the registry (see docs/GUARANTEES.md).
    rule = RULE
    assert rule.name not in REGISTRY and rule.valid and rule.option_names == ("lam",)
    p = np.random.default_rng(0).random((30, 2))
    assert rule.prepare(p, lam="auto").select(0.2).selected.tolist() == windowed_jecs(p, alpha=0.2).selected.tolist()
    with pytest.raises(ValueError, match="lam"):
        fit_windowed(p, lam=1.5)
    with pytest.raises(ValueError, match="alpha"):
        windowed_jecs(p, alpha=0.0)


@pytest.mark.parametrize("pool,n_models,mu,corr,single", [(300, 4, 4.0, 0.9, True), (300, 8, 2.1, 0.0, False),
                                                          (400, 2, 4.0, 0.0, True)])
def test_gcr_on_fresh_tables(pool, n_models, mu, corr, single, fresh_tables, gcr_estimate):
    reps = 400
    for alpha in (0.1, 0.3):
        tables = list(fresh_tables(np.random.default_rng(pool + n_models), reps, pool, n_models, mu, corr, single))
        gcr, se = gcr_estimate(windowed_jecs, tables, alpha)
        assert gcr <= alpha + 3 * se, (alpha, gcr, se)


def test_validity_check_can_fail(fresh_tables, gcr_estimate):
    """The same check flags the paper's JECS in a one-model, correlated regime."""
    warnings.simplefilter("ignore")
    tables = list(fresh_tables(np.random.default_rng(7), 400, 300, 4, 4.0, 0.9, True))
    gcr, se = gcr_estimate(jecs, tables, 0.1)
    assert gcr > 0.1 + 3 * se
    gcr_w, se_w = gcr_estimate(windowed_jecs, tables, 0.1)
    assert gcr_w <= 0.1 + 3 * se_w
