"""Calibration shift: a model-free shift check and covariate-aware conformal p-values.

The paper's p-values assume the calibration items (known members) are exchangeable
with the benchmark's members.  When the calibration texts come from elsewhere, their
covariates (length, source, date, ...) differ, and so do their scores.  This package
offers

* :func:`shift_check` -- does a classifier on the covariates (and simple text
  features) tell calibration from test items better than chance?
* :func:`weighted_pvalues` with :func:`estimate_density_ratio` -- weighted conformal
  p-values (Tibshirani et al. 2019; Jin & Candès 2023);
* :func:`residual_pvalues` -- conformalised residuals of a per-model location-scale
  model fitted on the calibration set;
* :func:`shift_pvalues` -- one call with ``method="auto"|"weighted"|"residual"|"none"``
  and the documented choice rule :func:`choose_shift_method`;
* :func:`table_shift_pvalues` / :func:`table_shift_check` -- the same on a ScoreTable.

Assumptions and guarantees: ``docs/CALIBRATION-SHIFT.md``.
"""

from ._features import TEXT_FEATURES, text_features
from .check import ShiftCheck, shift_check
from .choose import SHIFT_METHODS, ShiftPValues, choose_shift_method, shift_pvalues
from .residual import ResidualFit, residual_pvalues
from .table import covariate_columns, parse_covariates, table_shift_check, table_shift_pvalues
from .weighted import DensityRatio, effective_sample_size, estimate_density_ratio, weighted_pvalues

__all__ = [
    "TEXT_FEATURES", "text_features", "ShiftCheck", "shift_check",
    "SHIFT_METHODS", "ShiftPValues", "choose_shift_method", "shift_pvalues",
    "ResidualFit", "residual_pvalues", "covariate_columns", "parse_covariates", "table_shift_check", "table_shift_pvalues",
    "DensityRatio", "effective_sample_size", "estimate_density_ratio", "weighted_pvalues",
]
