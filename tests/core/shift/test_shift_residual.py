"""Conformalised residuals: brute-force leave-one-out refits, properties, validity on a shifted scenario."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import jecs_core as jc
from jecs_core.shift import residual_pvalues
from jecs_core.shift.residual import lack_of_fit
from jecs_core.simulate.shift_scenarios import location_shift


def brute_force(test, cal, tX, cX, scale):
    """Refit without each calibration row in a loop; count like the conformal formula."""
    m, k = cal.shape
    D = np.column_stack([np.ones(m), cX])
    Dt = np.column_stack([np.ones(len(tX)), tX])
    out = np.empty(test.shape)
    for j in range(k):
        cal_res = np.empty(m)
        for i in range(m):
            keep = np.arange(m) != i
            beta = np.linalg.lstsq(D[keep], cal[keep, j], rcond=None)[0]
            var = 1 + D[i] @ np.linalg.inv(D[keep].T @ D[keep]) @ D[i]
            cal_res[i] = (cal[i, j] - D[i] @ beta) / np.sqrt(var)
        beta = np.linalg.lstsq(D, cal[:, j], rcond=None)[0]
        inv = np.linalg.inv(D.T @ D)
        test_res = np.array([(test[r, j] - Dt[r] @ beta) / np.sqrt(1 + Dt[r] @ inv @ Dt[r]) for r in range(len(test))])
        if scale:
            gamma = np.linalg.lstsq(D, np.log(np.abs(cal_res) + 1e-12), rcond=None)[0]
            cal_res = cal_res / np.exp(D @ gamma)
            test_res = test_res / np.exp(Dt @ gamma)
        for r in range(len(test)):
            out[r, j] = (1 + sum(c <= test_res[r] for c in cal_res)) / (m + 1)
    return out


@given(st.integers(0, 2**32 - 1), st.integers(1, 2), st.booleans())
def test_matches_leave_one_out_loops(seed, d, scale):
    rng = np.random.default_rng(seed)
    m, n, k = 15, 6, 2
    cX, tX = rng.standard_normal((m, d)), rng.standard_normal((n, d)) + 0.5
    cal = cX @ rng.standard_normal((d, k)) + rng.standard_normal((m, k))
    test = tX @ rng.standard_normal((d, k)) + rng.standard_normal((n, k))
    got = residual_pvalues(test, cal, tX, cX, scale=scale).pvalues
    np.testing.assert_allclose(got, brute_force(test, cal, tX, cX, scale), atol=1e-12)


@given(st.integers(0, 2**32 - 1), st.floats(-5, 5), st.floats(0.2, 5))
def test_invariant_to_affine_score_changes_that_follow_the_covariate(seed, slope, factor):
    """Adding any linear function of x to every score, or rescaling, leaves the p-values alone."""
    rng = np.random.default_rng(seed)
    cX, tX = rng.standard_normal((30, 1)), rng.standard_normal((10, 1))
    cal, test = rng.standard_normal((30, 2)), rng.standard_normal((10, 2))
    base = residual_pvalues(test, cal, tX, cX).pvalues
    moved = residual_pvalues(factor * test + slope * tX, factor * cal + slope * cX, tX, cX).pvalues
    np.testing.assert_allclose(moved, base, atol=1e-9)
    assert np.all((base > 0) & (base <= 1))


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="cal_scores needs more than"):
        residual_pvalues(np.zeros((3, 1)), np.zeros((4, 1)), np.zeros((3, 1)), np.zeros((4, 1)))
    with pytest.raises(ValueError, match="one row per"):
        residual_pvalues(np.zeros((3, 1)), np.zeros((20, 1)), np.zeros((2, 1)), np.zeros((20, 1)))
    with pytest.raises(ValueError, match="covariate column"):
        residual_pvalues(np.zeros((3, 1)), np.zeros((20, 1)), np.zeros((3, 2)), np.zeros((20, 1)))


def _arrays(frame):
    cal, test = frame[frame.split == "calibration"], frame[frame.split == "test"]
    sc = [c for c in frame if c.startswith("score_")]
    xc = [c for c in frame if c.startswith("x_")]
    mc = [c for c in frame if c.startswith("member_")]
    return test[sc].to_numpy(), cal[sc].to_numpy(), test[xc].to_numpy(), cal[xc].to_numpy(), test[mc].to_numpy().any(axis=1)


@pytest.mark.parametrize("method", ["jmcs", None])
def test_selection_holds_alpha_on_a_location_shift(method):
    """Fresh tables of the location-shift scenario: plain p-values exceed alpha, residual ones hold it."""
    alpha, reps = 0.1, 60
    plain, resid = [], []
    for seed in range(reps):
        test, cal, tX, cX, contaminated = _arrays(location_shift(np.random.default_rng(seed), pool_size=800))
        for store, p in ((plain, jc.conformal_pvalues(test, cal)), (resid, residual_pvalues(test, cal, tX, cX).pvalues)):
            store.append(jc.gcp(jc.select(p, alpha=alpha, method=method).selected, contaminated))
    plain, resid = np.array(plain), np.array(resid)
    assert resid.mean() <= alpha + 2 * resid.std(ddof=1) / np.sqrt(reps)
    assert plain.mean() > alpha + 2 * plain.std(ddof=1) / np.sqrt(reps)


def _f_test_reference(y, x):
    """The textbook nested-model F-test, one covariate, written out with polyfit."""
    rss1 = np.sum((y - np.polyval(np.polyfit(x, y, 1), x)) ** 2)
    rss2 = np.sum((y - np.polyval(np.polyfit(x, y, 2), x)) ** 2)
    dof = len(y) - 3
    return stats.f.sf((rss1 - rss2) / (rss2 / dof), 1, dof)


@given(st.integers(0, 2**32 - 1), st.floats(-1, 1))
def test_lack_of_fit_matches_the_textbook_f_test(seed, curvature):
    rng = np.random.default_rng(seed)
    x = 1 + rng.standard_normal(30)
    y = np.column_stack([2 * x + curvature * x**2 + rng.standard_normal(30), rng.standard_normal(30)])
    got = lack_of_fit(y, x[:, None])
    np.testing.assert_allclose(got, [_f_test_reference(y[:, k], x) for k in range(2)], rtol=1e-6, atol=1e-12)


def test_lack_of_fit_false_alarms_and_detection():
    rng = np.random.default_rng(5)
    linear = [lack_of_fit((1.5 * x + rng.standard_normal(200))[:, None], x[:, None])[0]
              for x in (rng.standard_normal(200) for _ in range(400))]
    assert np.mean(np.array(linear) <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
    x = 1 + rng.standard_normal(360)
    assert lack_of_fit((-0.5 * x**2 + rng.standard_normal(360))[:, None], x[:, None])[0] < 1e-6
    # A binary covariate has no square to add: not testable.
    assert np.isnan(lack_of_fit(rng.standard_normal((50, 1)), (rng.random((50, 1)) < 0.5).astype(float))[0])


def test_auto_refuses_the_residual_model_when_the_calibration_data_contradict_it():
    """Curved effect: residual p-values exceed alpha; auto sees the misfit and stays valid."""
    from jecs_core.shift import shift_pvalues
    from jecs_core.simulate.shift_scenarios import curved_shift

    alpha, reps = 0.1, 30
    resid, auto = [], []
    for seed in range(reps):
        test, cal, tX, cX, contaminated = _arrays(curved_shift(np.random.default_rng(seed)))
        chosen = shift_pvalues(test, cal, tX, cX)
        assert chosen.method == "weighted" and "lack-of-fit" in chosen.reason
        for store, p in ((resid, residual_pvalues(test, cal, tX, cX).pvalues), (auto, chosen.pvalues)):
            store.append(jc.gcp(jc.select(p, alpha=alpha).selected, contaminated))
    resid, auto = np.array(resid), np.array(auto)
    assert resid.mean() > alpha + 2 * resid.std(ddof=1) / np.sqrt(reps)
    assert auto.mean() <= alpha + 2 * max(auto.std(ddof=1), 1e-12) / np.sqrt(reps)
