"""Storey-BH on max-p (the default rule): brute force, properties, error control on fresh tables."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jecs_core.multitest import storey_bh
from jecs_core.rules import REGISTRY
from jecs_core.rules.jmcs import jmcs
from jecs_core.rules.storey_maxp import cap_correction, cap_level, fit_storey_maxp, storey_maxp
from jecs_core.selection import jecs


def brute_correction(n, lam=0.5):
    """max over n0 <= n of E[max(n0 (1 - lam) / (1 + B), w n0 / n)], B ~ Bin(n0 - 1, 1 - lam), by loops."""
    w = min(0.99, max(0.5, 1 - 1.5 / math.sqrt(n)))
    q = 1 - lam
    best = 0.0
    for n0 in range(1, n + 1):
        total = 0.0
        for k in range(n0):
            weight = math.comb(n0 - 1, k) * q**k * (1 - q) ** (n0 - 1 - k)
            total += weight * max(n0 * (1 - lam) / (1 + k), w * n0 / n)
        best = max(best, total)
    return best


def brute_force(pvalues, alpha, lam=0.5):
    """Straight from the definition, with plain loops."""
    rows = np.atleast_2d(np.asarray(pvalues, dtype=float).T).T.tolist()
    p_star = [max(row) for row in rows]
    n = len(p_star)
    raw = (1 + sum(1 for x in p_star if x > lam)) / (n * (1 - lam))
    # c(n) from the library: test_cap_correction_matches_brute_force checks it against the loops to
    # 1e-10; the loops' own float sums differ from it in the last bits, which flips p-values that
    # sit exactly on a threshold (a lattice tie) and would test rounding, not the rule.
    pi0 = cap_correction(n, lam) * min(raw, 1 / min(0.99, max(0.5, 1 - 1.5 / math.sqrt(n))))
    ordered = sorted(p_star)
    r_star = 0
    for r in range(1, n + 1):
        if ordered[r - 1] <= alpha * r / (pi0 * n):
            r_star = r
    if not any(x <= alpha for x in p_star):  # no single item is clean on its own: select nothing
        r_star = 0
    return [r_star > 0 and x <= ordered[r_star - 1] for x in p_star]


@st.composite
def pvalue_tables(draw):
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 4))
    if draw(st.booleans()):  # conformal lattice p-values, with ties
        m1 = draw(st.integers(2, 60))
        ints = draw(st.lists(st.integers(1, m1), min_size=n * k, max_size=n * k))
        return np.array(ints, dtype=float).reshape(n, k) / m1
    vals = draw(st.lists(st.floats(0.0, 1.0), min_size=n * k, max_size=n * k))
    return np.array(vals).reshape(n, k)


@settings(max_examples=300, deadline=None)
@given(pvalue_tables(), st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9]), st.sampled_from([0.2, 0.5, 0.8]))
@example(np.array([0.05] * 20 + [0.1] * 3 + [0.25] * 15)[:, None], 0.05, 0.2)  # the 20th threshold is 0.05 exactly
def test_matches_brute_force(p, alpha, lam):
    assert storey_maxp(p, alpha=alpha, lam=lam).selected.tolist() == brute_force(p, alpha, lam)


@settings(max_examples=150, deadline=None)
@given(pvalue_tables(), st.floats(0.01, 0.5), st.floats(0.01, 0.5))
def test_monotone_in_alpha(p, a1, a2):
    low, high = sorted((a1, a2))
    fit = fit_storey_maxp(p)
    assert np.all(fit.select(low).selected <= fit.select(high).selected)


@pytest.mark.parametrize("lam", [0.2, 0.5, 0.8])
def test_cap_correction_matches_brute_force(lam):
    for n in [1, 2, 3, 5, 8, 13, 21, 24, 34, 38, 60, 150]:
        # The implementation never goes below 1 (a smaller factor would be valid but is not used).
        assert cap_correction(n, lam) == pytest.approx(max(1.0, brute_correction(n, lam)), rel=1e-10, abs=1e-12)
    # The large-n path returns a valid upper bound, close to 1.
    assert 1.0 <= cap_correction(5000) < 1.002


def test_the_tail_bound_is_taken_at_n0_equal_to_n():
    """c(n)'s tail bound is evaluated at n0 = n only; it equals the maximum over every n0 <= n."""
    from jecs_core._binomial import binom_sf

    cap_correction.cache_clear()
    for n in [1, 2, 9, 64, 300, 2999, 3000, 3001, 4096, 25_000, 250_000]:
        for lam in (0.1, 0.5, 0.9):
            w, n0 = cap_level(n, lam), np.arange(1, n + 1)
            every = 1.0 + float(np.max(w * n0 / n * binom_sf(np.floor(n * (1 - lam) / w - 1), n0 - 1, 1 - lam)))
            if n > 3000 or every - 1.0 < 1e-6:  # where the bound itself is returned
                assert cap_correction(n, lam) == every
            else:
                assert cap_correction(n, lam) <= every


@settings(max_examples=150, deadline=None)
@given(pvalue_tables(), st.sampled_from([0.05, 0.1, 0.3]), st.randoms(use_true_random=False))
def test_order_invariant_and_between_bh_and_capped_storey(p, alpha, rnd):
    perm = list(range(p.shape[0]))
    rnd.shuffle(perm)
    a = storey_maxp(p, alpha=alpha).selected
    assert a[perm].tolist() == storey_maxp(p[perm], alpha=alpha).selected.tolist()
    p_star, n = p.max(axis=1), p.shape[0]
    raw = (1 + np.count_nonzero(p_star > 0.5)) / (n * 0.5)
    # Never more than Storey-BH with pi0 capped at 1, never less than BH at w alpha / c(n).
    assert np.all(a <= storey_bh(p_star, alpha=alpha, pi0=min(1.0, raw)).selected)
    assert np.all(jmcs(p, alpha=alpha * cap_level(n) / cap_correction(n)).selected <= a)


def test_all_ones_ties_and_fields():
    assert storey_maxp(np.ones((50, 3)), alpha=0.5).n_selected == 0
    p = np.array([[0.01], [0.01], [0.01], [0.9], [0.95], [0.8], [0.02]])
    res = storey_maxp(p, alpha=0.5)
    assert len(set(res.selected[:3].tolist())) == 1
    assert res.pi0_hat == pytest.approx(cap_correction(7) * min((1 + 3) / (7 * 0.5), 1 / cap_level(7)))
    assert np.array_equal(res.selected, res.p_max <= res.threshold) and res.r_star == res.n_selected


def test_registered_as_finite_sample_default_candidate():
    rule = REGISTRY["storey-maxp"]
    assert rule.valid and rule.option_names == ("storey_lam",)
    p = np.random.default_rng(0).random((30, 2))
    assert rule.prepare(p).select(0.2).selected.tolist() == storey_maxp(p, alpha=0.2).selected.tolist()
    assert rule.prepare(p, storey_lam=0.7).select(0.2).pi0_hat == storey_maxp(p, alpha=0.2, lam=0.7).pi0_hat
    with pytest.raises(ValueError, match="does not take"):  # paper JECS's lambda never reaches this rule
        rule.prepare(p, lam=0.7)
    with pytest.raises(ValueError, match="lam"):
        fit_storey_maxp(p, lam=0.0)
    with pytest.raises(ValueError, match="alpha"):
        storey_maxp(p, alpha=1.0)


@pytest.mark.parametrize("pool,n_models,mu,corr,single", [(300, 4, 4.0, 0.9, True), (300, 8, 2.1, 0.0, False),
                                                          (400, 2, 4.0, 0.0, True)])
def test_gcr_on_fresh_tables(pool, n_models, mu, corr, single, fresh_tables, gcr_estimate):
    tables = list(fresh_tables(np.random.default_rng(pool * n_models), 400, pool, n_models, mu, corr, single))
    for alpha in (0.1, 0.3):
        gcr, se = gcr_estimate(storey_maxp, tables, alpha)
        assert gcr <= alpha + 3 * se, (alpha, gcr, se)


def test_gcr_all_null_uniform_small_n():
    """The corner where capping pi0 at 1 breaks the bound: every item null, p uniform, n = 5."""
    rng = np.random.default_rng(11)
    p = rng.random((40_000, 5))
    alpha = 0.05
    rejected = np.array([storey_maxp(row, alpha=alpha).n_selected > 0 for row in p])
    capped = np.array([storey_bh(row, alpha=alpha, pi0=min(1.0, fit_storey_maxp(row).pi0_hat)).n_selected > 0
                       for row in p])
    se = np.sqrt(alpha * (1 - alpha) / p.shape[0])
    assert rejected.mean() <= alpha + 3 * se          # GCR = P(any selection) here
    assert capped.mean() > alpha + 3 * se             # the capped variant does exceed alpha


def test_validity_check_can_fail(fresh_tables, gcr_estimate):
    """The same fresh-table check flags the paper's JECS in a one-model, correlated regime."""
    warnings.simplefilter("ignore")
    tables = list(fresh_tables(np.random.default_rng(7), 400, 300, 4, 4.0, 0.9, True))
    gcr, se = gcr_estimate(jecs, tables, 0.1)
    assert gcr > 0.1 + 3 * se
    gcr_s, se_s = gcr_estimate(storey_maxp, tables, 0.1)
    assert gcr_s <= 0.1 + 3 * se_s


def test_a_calibration_set_too_small_to_reach_alpha_selects_nothing():
    # One calibration row: every p-value is 1/2 or 1, so no item is clean on its own at alpha = 0.1.
    # Storey's lift alone (pi0_hat small because few max-p values are 1) would otherwise select
    # hundreds of items; on the shipped audit's first calibration row it selected 522 at GCP 0.33.
    import jecs_core as jc

    table = jc.load_scores(Path(__file__).resolve().parents[3] / "sample_data" / "real" / "wiki_smollm2_k8.csv")
    p = jc.conformal_pvalues(table.test, table.calibration[:1])
    assert p.min() == 0.5
    fit = REGISTRY["storey-maxp"].prepare(p)
    assert fit.pi0_hat < 0.5  # the lift that would have selected
    assert fit.select(0.1).n_selected == 0
    assert fit.select(0.5).n_selected > 0  # once alpha reaches the lattice the rule works again


@pytest.mark.parametrize("lam", [0.1, 0.3, 0.5, 0.7, 0.8, 0.9])
def test_the_large_n_correction_stays_small_for_any_lambda(lam):
    # Above the exact range the tail bound is c(n); its cut sits 3.2 binomial SDs out for every lambda.
    for n in (3001, 10_000, 10**6):
        assert 1.0 <= cap_correction(n, lam) < 1.0015
    assert cap_level(10_000, 0.5) == pytest.approx(1 - 3.2 / 100)  # the default lambda's level is unchanged
