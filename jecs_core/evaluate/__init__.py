"""Evaluation engine: the paper's Monte-Carlo protocol and its sensitivity sweeps (the twin estimate is in ``jecs_core.diagnostics``).

* :func:`evaluate` repeats the protocol (80% subsamples of calibration and test,
  500 repetitions by default) and reports mean GCP and power with standard
  errors for any registered rules at every alpha.  Its standard errors cover
  subsampling noise on the one table only.
* :func:`sweep_lambda`, :func:`sweep_knn`, :func:`sweep_k`, :func:`sweep_rho`
  repeat it over a shared rule option, the number of models or the training fraction.
* :func:`format_evaluation` / :func:`format_sweep` render the paper-style text tables.

Every rule runs through one generic per-repetition path; the batched kernels in
:data:`ACCELERATORS` are optional and checked bit-identical to it.
"""

# Public names, by the module that defines them, imported on first use (PEP 562): the command
# line's parsers read the sweeps' defaults without paying for pandas and the protocol.
_LAZY_NAMES = {
    "_params": ("RuleOptions", "rule_options"),
    "accelerators": ("ACCELERATORS",),
    "defaults": ("DEFAULT_SWEEP_ALPHAS", "DEFAULT_SWEEP_KNNS", "DEFAULT_SWEEP_LAMBDAS", "DEFAULT_SWEEP_RHOS",
                 "methods_taking"),
    "draws": ("DEFAULT_DRAW_FRACTION", "DrawPlan", "Draws", "draw_plan", "draw_subsamples"),
    "montecarlo": ("DEFAULT_ALPHAS", "DEFAULT_REPS", "Evaluation", "evaluate"),
    "report": ("format_evaluation", "format_sweep", "format_twin_comparison"),
    "summary": ("SE_DDOF", "SE_SCOPE_NOTE", "SUMMARY_COLUMNS"),
    "sweeps": ("sweep_knn", "sweep_lambda", "sweep_tables"),
    "table_sweeps": ("default_ks", "sweep_k", "sweep_rho"),
}
_MODULE_OF = {name: module for module, names in _LAZY_NAMES.items() for name in names}

__all__ = [
    "ACCELERATORS", "DEFAULT_ALPHAS", "DEFAULT_DRAW_FRACTION", "DEFAULT_REPS", "SE_DDOF", "SE_SCOPE_NOTE",
    "SUMMARY_COLUMNS", "DEFAULT_SWEEP_ALPHAS", "DEFAULT_SWEEP_KNNS", "DEFAULT_SWEEP_LAMBDAS", "DEFAULT_SWEEP_RHOS",
    "DrawPlan", "Draws", "Evaluation", "RuleOptions",
    "default_ks", "draw_plan", "draw_subsamples", "evaluate", "format_evaluation", "format_sweep",
    "format_twin_comparison", "methods_taking",
    "rule_options", "sweep_k", "sweep_knn", "sweep_lambda", "sweep_rho", "sweep_tables",
]


def __getattr__(name: str):
    from .._lazy import attribute

    return attribute(__name__, _MODULE_OF, name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
