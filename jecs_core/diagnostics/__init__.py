"""Diagnostics an auditor can read without labels.

* :func:`score_correlation`: cross-model Spearman correlation on the calibration set.
* :func:`tail_diagnostics`: the paper's JECS tail (m_R, k_n) and how much
  F_fit(lambda) / lambda moves over the lambda grid.
* :func:`pi0_bootstrap`: a percentile bootstrap band for JECS's pi0_hat.
* :func:`fit_twin` / :func:`twin_evaluate`: the matched-twin risk check, every
  registered rule's unconditional GCR on fresh synthetic tables like the audit.
* :func:`audit_diagnostics`: all of the above in one call, with a verdict on
  whether the paper's JECS looks in its safe regime.

Each returns a frozen dataclass with ``to_dict()`` (JSON-safe, for the sidecar)
and ``lines()`` (text, for ``jecs select``).
"""

from .audit import AuditDiagnostics, audit_diagnostics, plain_basis
from .bootstrap import Pi0Band, pi0_bootstrap
from .correlation import ScoreCorrelation, score_correlation, spearman_matrix
from .tail import TailDiagnostics, storey_pi0, tail_diagnostics
from .twin_model import PATTERNS, TwinModel, fit_twin
from .twin_risk import TWIN_COLUMNS, TwinEvaluation, twin_evaluate

__all__ = [
    "PATTERNS", "TWIN_COLUMNS", "AuditDiagnostics", "Pi0Band", "ScoreCorrelation", "TailDiagnostics",
    "TwinEvaluation", "TwinModel", "audit_diagnostics", "fit_twin", "pi0_bootstrap", "plain_basis", "score_correlation",
    "spearman_matrix", "storey_pi0", "tail_diagnostics", "twin_evaluate",
]
