"""Conformalised residuals of a per-model location-scale model fitted on the calibration set.

For each model k the calibration scores (all members) are regressed on the covariates,
``T^k = a_k + b_k' x + s_k(x) e`` with ``log s_k(x)`` linear in x, and the conformal
p-values are computed on standardised residuals instead of raw scores.  When the member
scores' conditional law given the covariates really is location-scale of this form with
one residual law for calibration and test members alike, the standardised residuals of
members do not depend on x, so a covariate shift between calibration and test no longer
moves them.  That assumption is a model: where it fails (a non-linear location, a residual
law that changes with x) the p-values can be invalid, and nothing here can detect it.

Two details keep the calibration residuals comparable with the test residuals: the
calibration residuals are leave-one-out (``e_i / (1 - h_ii)``), since a test item is not
in the fit either, and both are studentised by the prediction variance of the fitted line
(``sqrt(1 + h(x))`` for a test item, ``sqrt(1 / (1 - h_ii))`` for calibration item i), so
that under a normal linear model with a constant scale (``scale=False``) both have exactly the
law ``N(0, s^2)`` wherever x lies. The fitted log-scale is not studentised: its estimation
error, extrapolated to test covariates far from the calibration ones, remains (measured in
docs/CALIBRATION-SHIFT.md, "Guarantee").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._features import as_scores, pair
from .weighted import plain_pvalues

# Added to |residual| before the log in the scale fit so an exact zero stays finite.
_TINY = 1e-12


@dataclass(frozen=True)
class ResidualFit:
    """Per-model location-scale fits and the residual p-values.

    Attributes
    ----------
    pvalues : numpy.ndarray, shape (n, K)
    location : numpy.ndarray, shape (K, d + 1)
        Intercept and slopes of each model's location fit.
    log_scale : numpy.ndarray, shape (K, d + 1) or None
        Coefficients of each model's log-scale fit (None when ``scale=False``).
    r2 : numpy.ndarray, shape (K,)
        Share of the calibration score variance the location fit explains.
    max_leverage : float
        Largest test leverage ``h(x)``; large values mean test covariates far outside
        the calibration range, where the fitted line is extrapolated.
    lack_of_fit : numpy.ndarray, shape (K,)
        Per model, the F-test p-value of adding the squares of the non-binary covariates
        to the location fit on the calibration set (NaN when there is nothing to add or
        too few rows).  A small value says the linear location model misfits even where
        the calibration items are; beyond them it can only be worse.
    """

    pvalues: np.ndarray
    location: np.ndarray
    log_scale: np.ndarray | None
    r2: np.ndarray
    max_leverage: float
    lack_of_fit: np.ndarray | None = None

    def to_dict(self) -> dict:
        lof = [] if self.lack_of_fit is None else [None if np.isnan(v) else float(v) for v in self.lack_of_fit]
        return {"r2": [float(v) for v in self.r2], "max_test_leverage": self.max_leverage, "lack_of_fit_pvalue": lof,
                "scale_model": self.log_scale is not None}


def _studentised(test, cal, D_test, D_cal):
    """Leave-one-out calibration residuals and test residuals, both studentised, per column."""
    coef, *_ = np.linalg.lstsq(D_cal, cal, rcond=None)
    gram_inv = np.linalg.pinv(D_cal.T @ D_cal)
    h_cal = np.einsum("ij,jk,ik->i", D_cal, gram_inv, D_cal)
    h_test = np.einsum("ij,jk,ik->i", D_test, gram_inv, D_test)
    # A calibration row with leverage 1 has no leave-one-out residual; cap it just below.
    one_minus = np.maximum(1.0 - h_cal, 1e-8)[:, None]
    cal_loo = (cal - D_cal @ coef) / one_minus
    cal_res = cal_loo * np.sqrt(one_minus)           # e_i / sqrt(1 - h_ii)
    test_res = (test - D_test @ coef) / np.sqrt(1.0 + h_test)[:, None]
    return coef, cal_res, test_res, h_test


def lack_of_fit(cal: np.ndarray, cX: np.ndarray) -> np.ndarray:
    """Per-column F-test p-values of linear vs linear-plus-squares location fits (see :class:`ResidualFit`)."""
    curved = np.array([np.unique(col).size > 2 for col in cX.T], dtype=bool)
    D_lin = np.column_stack([np.ones(len(cX)), cX])
    q, dof = int(curved.sum()), len(cX) - D_lin.shape[1] - int(curved.sum())
    if q == 0 or dof < 1:
        return np.full(cal.shape[1], np.nan)
    # Centre before squaring so the squares are not nearly collinear with the linear terms.
    sq = (cX[:, curved] - cX[:, curved].mean(axis=0)) ** 2
    D_quad = np.column_stack([D_lin, sq])
    rss = [np.sum((cal - D @ np.linalg.lstsq(D, cal, rcond=None)[0]) ** 2, axis=0) for D in (D_lin, D_quad)]
    stat = ((rss[0] - rss[1]) / q) / np.maximum(rss[1] / dof, np.finfo(float).tiny)
    from scipy.stats import f as f_dist  # only covariate-shift runs pay scipy.stats' import time

    return f_dist.sf(np.maximum(stat, 0.0), q, dof)


def residual_pvalues(test_scores, cal_scores, test_X, cal_X, *, scale: bool = True,
                     rng: np.random.Generator | None = None) -> ResidualFit:
    """Conformal p-values on standardised residuals of per-model location-scale fits.

    Parameters
    ----------
    test_scores, cal_scores : array_like, shape (n, K) and (m, K)
        Scores, larger = more member-like; calibration items are members of every model.
    test_X, cal_X : array_like, shape (n, d) and (m, d)
        Covariates.  The calibration set needs more than ``2 (d + 1)`` rows.
    scale : bool
        Also fit ``log s_k(x)`` linear in x (on the log absolute leave-one-out residuals)
        and divide by it; ``False`` keeps a constant scale (location model only).
    rng : numpy.random.Generator, optional
        Randomised tie-breaking (see :func:`jecs_core.conformal_pvalues`).

    Returns
    -------
    ResidualFit
    """
    test = as_scores(test_scores, "test_scores")
    cal = as_scores(cal_scores, "cal_scores")
    if test.shape[1] != cal.shape[1]:
        raise ValueError(f"test_scores has {test.shape[1]} model column(s) but cal_scores has {cal.shape[1]}")
    tX, cX = pair(test_X, cal_X)
    if tX.shape[0] != test.shape[0] or cX.shape[0] != cal.shape[0]:
        raise ValueError("test_X / cal_X must have one row per test / calibration score row")
    d = cX.shape[1]
    if cal.shape[0] <= 2 * (d + 1):
        raise ValueError(f"cal_scores needs more than {2 * (d + 1)} rows to fit a location-scale model on {d} covariate(s)")
    D_cal = np.column_stack([np.ones(len(cX)), cX])
    D_test = np.column_stack([np.ones(len(tX)), tX])
    coef, cal_res, test_res, h_test = _studentised(test, cal, D_test, D_cal)
    log_scale = None
    if scale:
        log_scale, *_ = np.linalg.lstsq(D_cal, np.log(np.abs(cal_res) + _TINY), rcond=None)
        cal_res = cal_res / np.exp(D_cal @ log_scale)
        test_res = test_res / np.exp(D_test @ log_scale)
    variance = cal.var(axis=0)
    resid_var = (cal - D_cal @ coef).var(axis=0)
    r2 = np.where(variance > 0, 1.0 - resid_var / np.where(variance > 0, variance, 1.0), 0.0)
    return ResidualFit(pvalues=plain_pvalues(test_res, cal_res, rng=rng), location=coef.T,
                       log_scale=None if log_scale is None else log_scale.T, r2=r2,
                       max_leverage=float(h_test.max()) if len(h_test) else 0.0, lack_of_fit=lack_of_fit(cal, cX))
