"""Covariate-aware p-values behind one call, and the documented rule that picks the method.

The rule for ``method="auto"`` looks only at the covariates and at which split each
item is in -- never at the scores' p-values or at any selection -- so it cannot be
tuned by the result:

* with no covariates, plain conformal p-values (``"none"``);
* otherwise estimate the density ratios and fit the location-scale model on the
  calibration set.  If the calibration scores contradict the linear location model (the
  F-test of adding squared covariates, Bonferroni over the K models, below
  ``max_lack_of_fit`` = 0.01), use the **weighted** p-values: the residual method's
  assumption is then known to fail, and the weighted method stays valid (if perhaps
  powerless).  Otherwise use the **residual** p-values when the calibration weights keep
  less than ``min_ess_fraction`` (default one half) of the calibration set as effective
  sample size -- the weighted p-values then lose nearly all power, because a few
  calibration items carry them -- or when the covariates explain at least ``min_r2``
  (default 0.1) of the calibration scores' variance (mean over models) -- the residuals
  then remove that variance, while weighted p-values keep it as noise;
* else use the **weighted** p-values, whose assumption is the weaker one (covariate
  shift only, no model of the scores).

The rule reads the calibration scores (through R^2) but never the test scores.

There is deliberately no "no shift detected, so use plain p-values" branch: a pre-test
with limited power would make validity depend on that test being right.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_alpha
from .methods import SHIFT_METHODS
from .residual import ResidualFit, residual_pvalues
from .weighted import DensityRatio, estimate_density_ratio, plain_pvalues, weighted_pvalues

DEFAULT_MIN_ESS_FRACTION = 0.5
DEFAULT_MIN_R2 = 0.1
DEFAULT_MAX_LACK_OF_FIT = 0.01


@dataclass(frozen=True)
class ShiftPValues:
    """p-values from :func:`shift_pvalues` and what produced them.

    Attributes
    ----------
    pvalues : numpy.ndarray, shape (n, K)
    method : str
        The method used: ``"weighted"``, ``"residual"`` or ``"none"``.
    requested : str
        The method asked for (``"auto"`` or one of the above).
    reason : str
        One sentence: why this method.
    ratio : DensityRatio or None
        The estimated density ratios (when they were estimated).
    residual : ResidualFit or None
        The location-scale fits (when the residual method ran).
    """

    pvalues: np.ndarray
    method: str
    requested: str
    reason: str
    ratio: DensityRatio | None = None
    residual: ResidualFit | None = field(default=None)

    def to_dict(self) -> dict:
        """A JSON-ready record for the selection sidecar."""
        out = {"method": self.method, "requested": self.requested, "reason": self.reason}
        if self.ratio is not None:
            out["density_ratio"] = self.ratio.to_dict()
        if self.residual is not None:
            out["residual_model"] = self.residual.to_dict()
        return out

    def lines(self) -> list[str]:
        """Plain-text lines for ``jecs select``."""
        out = [f"covariate-aware p-values: {self.method} (requested {self.requested}): {self.reason}"]
        if self.ratio is not None:
            out.append(f"  density ratio: effective calibration size {self.ratio.ess:.1f} "
                       f"({self.ratio.ess_fraction:.0%} of m), {self.ratio.n_clipped} ratio(s) clipped at {self.ratio.clip:g}")
        if self.residual is not None:
            lof = self.residual.lack_of_fit
            tail = "" if lof is None else "   lack-of-fit p: " + ", ".join(f"{v:.2g}" for v in lof)
            out.append("  location fit R^2 per model: " + ", ".join(f"{v:.2f}" for v in self.residual.r2) + tail)
        return out


def choose_shift_method(ratio: DensityRatio, r2, *, lack_of_fit=None, min_ess_fraction: float = DEFAULT_MIN_ESS_FRACTION,
                        min_r2: float = DEFAULT_MIN_R2, max_lack_of_fit: float = DEFAULT_MAX_LACK_OF_FIT) -> tuple[str, str]:
    """``(method, reason)`` by the documented rule (module docstring).

    Parameters
    ----------
    ratio : DensityRatio
        The estimated weights (their effective-size share is read).
    r2 : array_like, shape (K,)
        Per-model R^2 of the location fit on the calibration set (:attr:`ResidualFit.r2`).
    lack_of_fit : array_like, shape (K,), optional
        Per-model lack-of-fit p-values (:attr:`ResidualFit.lack_of_fit`; NaN = not testable).
    min_ess_fraction, min_r2, max_lack_of_fit : float
        Thresholds in (0, 1).
    """
    min_ess_fraction = check_alpha(min_ess_fraction, "min_ess_fraction")
    min_r2 = check_alpha(min_r2, "min_r2")
    max_lack_of_fit = check_alpha(max_lack_of_fit, "max_lack_of_fit")
    mean_r2 = float(np.mean(r2))
    lof = np.asarray([] if lack_of_fit is None else lack_of_fit, dtype=float)
    lof = lof[~np.isnan(lof)]
    if lof.size and lof.min() * lof.size < max_lack_of_fit:
        return "weighted", (f"the calibration scores contradict the linear location model (lack-of-fit p = "
                            f"{lof.min():.2g}, Bonferroni over {lof.size} model(s), < {max_lack_of_fit:g}); "
                            "the model-free weighted method is used")
    if ratio.ess_fraction < min_ess_fraction:
        return "residual", (f"weights keep only {ratio.ess_fraction:.0%} of the calibration set as effective size "
                            f"(< {min_ess_fraction:.0%}); weighted p-values would have little power")
    if mean_r2 >= min_r2:
        return "residual", (f"covariates explain {mean_r2:.0%} of the calibration scores' variance (>= {min_r2:.0%}); "
                            "residuals remove it")
    return "weighted", (f"weights keep {ratio.ess_fraction:.0%} of the calibration set as effective size and covariates "
                        f"explain only {mean_r2:.0%} of the scores' variance, so no score model is needed")


def shift_pvalues(test_scores, cal_scores, test_X=None, cal_X=None, *, method: str = "auto",
                  rng: np.random.Generator | None = None, n_folds: int = 5, clip: float = 20.0,
                  scale: bool = True, min_ess_fraction: float = DEFAULT_MIN_ESS_FRACTION,
                  min_r2: float = DEFAULT_MIN_R2, max_lack_of_fit: float = DEFAULT_MAX_LACK_OF_FIT,
                  ratio_rng: np.random.Generator | None = None) -> ShiftPValues:
    """Per-model p-values that account for a covariate shift between calibration and test items.

    Parameters
    ----------
    test_scores, cal_scores : array_like, shape (n, K) and (m, K)
    test_X, cal_X : array_like, shape (n, d) and (m, d), optional
        Covariates; without them only ``method="none"`` / ``"auto"`` (which then means none) work.
    method : {"auto", "weighted", "residual", "none"}
        ``"auto"`` applies :func:`choose_shift_method`.
    rng : numpy.random.Generator, optional
        Randomised tie-breaking of the p-values (as in :func:`jecs_core.conformal_pvalues`).
    n_folds, clip
        Density-ratio estimation (see :func:`estimate_density_ratio`).
    scale : bool
        Fit a scale model in the residual method (see :func:`residual_pvalues`).
    min_ess_fraction, min_r2, max_lack_of_fit : float
        The ``auto`` rule's thresholds (see :func:`choose_shift_method`).
    ratio_rng : numpy.random.Generator, optional
        The cross-fitting folds of the density ratio (default: a fixed seed, so the
        p-values of one table do not change between calls).
    """
    if method not in SHIFT_METHODS:
        raise ValueError(f"method must be one of {list(SHIFT_METHODS)}, got {method!r}")
    if (test_X is None) != (cal_X is None):
        raise ValueError("test_X and cal_X must be given together")
    if test_X is None:
        if method in ("weighted", "residual"):
            raise ValueError(f"method {method!r} needs covariates (test_X, cal_X)")
        return ShiftPValues(plain_pvalues(test_scores, cal_scores, rng=rng), "none", method, "no covariates given")
    if method == "none":
        return ShiftPValues(plain_pvalues(test_scores, cal_scores, rng=rng), "none", method, "asked for plain p-values")
    if method == "residual":
        fit = residual_pvalues(test_scores, cal_scores, test_X, cal_X, scale=scale, rng=rng)
        return ShiftPValues(fit.pvalues, "residual", method, "asked for the residual method", residual=fit)
    ratio = estimate_density_ratio(test_X, cal_X, n_folds=n_folds, clip=clip,
                                   rng=ratio_rng if ratio_rng is not None else np.random.default_rng(0))
    if method == "weighted":
        p = weighted_pvalues(test_scores, cal_scores, test_weights=ratio.test_weights, cal_weights=ratio.cal_weights, rng=rng)
        return ShiftPValues(p, "weighted", method, "asked for the weighted method", ratio=ratio)
    # The tie-breaking uniforms are drawn only by the method finally used.
    fit = residual_pvalues(test_scores, cal_scores, test_X, cal_X, scale=scale)
    chosen, reason = choose_shift_method(ratio, fit.r2, lack_of_fit=fit.lack_of_fit, min_ess_fraction=min_ess_fraction,
                                         min_r2=min_r2, max_lack_of_fit=max_lack_of_fit)
    if chosen == "weighted":
        p = weighted_pvalues(test_scores, cal_scores, test_weights=ratio.test_weights, cal_weights=ratio.cal_weights, rng=rng)
        return ShiftPValues(p, "weighted", method, reason, ratio=ratio, residual=fit)
    if rng is not None:
        fit = residual_pvalues(test_scores, cal_scores, test_X, cal_X, scale=scale, rng=rng)
    return ShiftPValues(fit.pvalues, "residual", method, reason, ratio=ratio, residual=fit)
