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

# Public names, by the module that defines them, imported on first use (PEP 562): the command
# line's parsers read SHIFT_METHODS without paying for pandas and the shift check's features.
_LAZY_NAMES = {
    "_features": ("TEXT_FEATURES", "text_features"),
    "check": ("ShiftCheck", "shift_check"),
    "choose": ("ShiftPValues", "choose_shift_method", "shift_pvalues"),
    "methods": ("SHIFT_METHODS",),
    "residual": ("ResidualFit", "residual_pvalues"),
    "table": ("covariate_columns", "parse_covariates", "table_shift_check", "table_shift_pvalues"),
    "weighted": ("DensityRatio", "effective_sample_size", "estimate_density_ratio", "weighted_pvalues"),
}
_MODULE_OF = {name: module for module, names in _LAZY_NAMES.items() for name in names}

__all__ = [
    "TEXT_FEATURES", "text_features", "ShiftCheck", "shift_check",
    "SHIFT_METHODS", "ShiftPValues", "choose_shift_method", "shift_pvalues",
    "ResidualFit", "residual_pvalues", "covariate_columns", "parse_covariates", "table_shift_check", "table_shift_pvalues",
    "DensityRatio", "effective_sample_size", "estimate_density_ratio", "weighted_pvalues",
]


def __getattr__(name: str):
    from .._lazy import attribute

    return attribute(__name__, _MODULE_OF, name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
