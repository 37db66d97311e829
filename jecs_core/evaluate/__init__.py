"""Evaluation engine: the paper's Monte-Carlo protocol and its sensitivity sweeps.

* :func:`evaluate` repeats the protocol (80% subsamples of calibration and test,
  500 repetitions by default) and reports mean GCP and power with standard
  errors for JECS, JMCS, union and intersection at every alpha.
* :func:`sweep_lambda`, :func:`sweep_knn`, :func:`sweep_k`, :func:`sweep_rho`
  repeat it over a JECS option, the number of models or the training fraction.
* :func:`format_evaluation` / :func:`format_sweep` render the paper-style text tables.
"""

from .draws import DEFAULT_DRAW_FRACTION, DrawPlan, Draws, draw_plan, draw_subsamples
from .kernels import JECSSettings
from .montecarlo import DEFAULT_ALPHAS, DEFAULT_REPS, Evaluation, evaluate, jecs_settings
from .report import format_evaluation, format_sweep
from .summary import SE_DDOF, SUMMARY_COLUMNS
from .sweeps import (
    DEFAULT_SWEEP_ALPHAS,
    DEFAULT_SWEEP_KNNS,
    DEFAULT_SWEEP_LAMBDAS,
    DEFAULT_SWEEP_RHOS,
    default_ks,
    sweep_k,
    sweep_knn,
    sweep_lambda,
    sweep_rho,
    sweep_tables,
)

__all__ = [
    "DEFAULT_ALPHAS", "DEFAULT_DRAW_FRACTION", "DEFAULT_REPS", "SE_DDOF", "SUMMARY_COLUMNS",
    "DEFAULT_SWEEP_ALPHAS", "DEFAULT_SWEEP_KNNS", "DEFAULT_SWEEP_LAMBDAS", "DEFAULT_SWEEP_RHOS",
    "DrawPlan", "Draws", "Evaluation", "JECSSettings",
    "default_ks", "draw_plan", "draw_subsamples", "evaluate", "format_evaluation", "format_sweep", "jecs_settings",
    "sweep_k", "sweep_knn", "sweep_lambda", "sweep_rho", "sweep_tables",
]
