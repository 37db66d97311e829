"""jecs_core: Joint Envelope Conformal Selection (pure numpy / scipy / pandas).

Pick one shared subset of a benchmark whose global contamination rate (the
expected share of selected items in the training data of at least one of K
models) stays below alpha.  See "Provable Joint Decontamination for
Benchmarking Multiple Large Language Models" (Liu, Zeng, Wei).
"""

__version__ = "0.1.0"

# Public names, by the module that defines them.  They are imported on first use
# (PEP 562 module __getattr__), so ``import jecs_core`` does not pay for scipy.stats,
# pandas or pyarrow until a name that needs them is touched; tests/core/test_lazy_imports.py
# checks every name in __all__ resolves and appears here.  The evaluator function stays at
# jecs_core.evaluate.evaluate and the leaderboard function at jecs_core.leaderboard.leaderboard:
# a top-level name would shadow the subpackage.
_LAZY_NAMES = {
    "compare": ("METHOD_LABELS", "VALID_METHODS", "Comparison", "compare_methods", "compare_pvalues"),
    "conformal": ("conformal_pvalues", "table_pvalues"),
    "contract": ("MIN_CALIBRATION", "calibration_warnings", "validate_frame"),
    "data": ("ScoreTable", "ScoreTableError", "load_scores", "load_scores_bytes", "table_from_frame"),
    "envelope": ("DEFAULT_LAMBDA_GRID", "Envelope", "LambdaGrid", "default_knn", "fit_envelope"),
    "evaluate": ("Evaluation", "format_evaluation", "format_sweep", "sweep_k", "sweep_knn", "sweep_lambda",
                 "sweep_rho"),
    "export": ("selection_frame", "selection_metadata", "selection_warnings", "write_selection"),
    "leaderboard": ("Leaderboard", "ResultsTable", "load_results", "load_results_bytes"),
    "metrics": ("SelectionMetrics", "contaminated_items", "gcp", "power", "selection_metrics"),
    "multitest": ("StepUpResult", "benjamini_hochberg", "bh_adjusted", "storey_bh"),
    "posthoc": ("PostHocFit", "PostHocPath", "fit_post_hoc", "post_hoc_bound", "post_hoc_path"),
    "results": ("FitRow", "SelectionResult"),
    "rules": ("DEFAULT_METHOD", "METHODS", "REGISTRY", "Guarantee", "Option", "Rule", "get_rule", "select"),
    "rules.per_model": ("PerModelResult", "intersection_selection", "union_selection"),
    "rules.jmcs": ("JMCSResult", "jmcs"),
    "selection": ("JECSFallbackWarning", "JECSFit", "JECSResult", "fit_jecs", "jecs", "max_p"),
}
_MODULE_OF = {name: module for module, names in _LAZY_NAMES.items() for name in names}


def __getattr__(name: str):
    from ._lazy import attribute

    return attribute(__name__, _MODULE_OF, name)


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    "DEFAULT_METHOD", "METHODS", "REGISTRY", "Guarantee", "Option", "Rule", "get_rule", "select",
    "FitRow", "SelectionResult",
    "METHOD_LABELS", "VALID_METHODS", "Comparison", "compare_methods", "compare_pvalues",
    "conformal_pvalues", "table_pvalues",
    "MIN_CALIBRATION", "calibration_warnings", "validate_frame",
    "ScoreTable", "ScoreTableError", "load_scores", "load_scores_bytes", "table_from_frame",
    "DEFAULT_LAMBDA_GRID", "Envelope", "LambdaGrid", "default_knn", "fit_envelope",
    "selection_frame", "selection_metadata", "selection_warnings", "write_selection",
    "Evaluation", "format_evaluation", "format_sweep", "sweep_k", "sweep_knn", "sweep_lambda", "sweep_rho",
    "SelectionMetrics", "contaminated_items", "gcp", "power", "selection_metrics",
    "StepUpResult", "benjamini_hochberg", "bh_adjusted", "storey_bh",
    "Leaderboard", "ResultsTable", "load_results", "load_results_bytes",
    "PostHocFit", "PostHocPath", "fit_post_hoc", "post_hoc_bound", "post_hoc_path",
    "JECSFallbackWarning", "JECSFit", "JECSResult", "JMCSResult", "PerModelResult",
    "fit_jecs", "intersection_selection", "jecs", "jmcs", "max_p", "union_selection",
]
