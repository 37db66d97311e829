"""jecs_core: Joint Envelope Conformal Selection (pure numpy / scipy / pandas).

Pick one shared subset of a benchmark whose global contamination rate (the
expected share of selected items in the training data of at least one of K
models) stays below alpha.  See "Provable Joint Decontamination for
Benchmarking Multiple Large Language Models" (Liu, Zeng, Wei).
"""

__version__ = "0.1.0"

from .compare import METHOD_LABELS, VALID_METHODS, Comparison, compare_methods, compare_pvalues
from .conformal import conformal_pvalues, table_pvalues
from .contract import MIN_CALIBRATION, calibration_warnings, validate_frame
from .data import ScoreTable, ScoreTableError, load_scores, load_scores_bytes, table_from_frame
from .envelope import DEFAULT_LAMBDA_GRID, Envelope, LambdaGrid, default_knn, fit_envelope

# The evaluator function stays at jecs_core.evaluate.evaluate: a top-level
# name "evaluate" would shadow the jecs_core.evaluate subpackage.
from .evaluate import Evaluation, format_evaluation, format_sweep, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from .export import selection_frame, selection_metadata, selection_warnings, write_selection

# As with evaluate: the leaderboard function stays at jecs_core.leaderboard.leaderboard.
from .leaderboard import Leaderboard, ResultsTable, load_results, load_results_bytes
from .metrics import SelectionMetrics, contaminated_items, gcp, power, selection_metrics
from .multitest import StepUpResult, benjamini_hochberg, bh_adjusted, storey_bh
from .posthoc import PostHocFit, PostHocPath, fit_post_hoc, post_hoc_bound, post_hoc_path
from .rules import DEFAULT_METHOD, METHODS, REGISTRY, Guarantee, Rule, get_rule, select
from .selection import (
    JECSFallbackWarning,
    JECSFit,
    JECSResult,
    JMCSResult,
    PerModelResult,
    fit_jecs,
    intersection_selection,
    jecs,
    jmcs,
    max_p,
    union_selection,
)

__all__ = [
    "__version__",
    "DEFAULT_METHOD", "METHODS", "REGISTRY", "Guarantee", "Rule", "get_rule", "select",
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
