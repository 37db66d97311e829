"""All label-free diagnostics of one audit in one call (``jecs select``, the sidecar, the Select page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._validation import check_alpha, check_knn, check_lam, check_lambda_grid, check_pvalue_matrix
from ..checks import DirectionCheck, score_direction
from ..conformal import table_pvalues
from ..envelope import DEFAULT_LAMBDA_GRID
from ..rules import Guarantee
from ._common import as_table, check_count, fmt
from .bootstrap import Pi0Band, pi0_bootstrap
from .correlation import ScoreCorrelation, score_correlation
from .tail import TailDiagnostics, tail_diagnostics
from .twin_risk import TwinEvaluation, twin_evaluate

# Heuristic flags (the validity study's grid, docs/VALIDITY.md): where the paper's JECS was seen to overshoot.
HIGH_CORRELATION = 0.5
SMALL_TAIL = 50
SMALL_KNN = 8
WIDE_SLOPE_RATIO = 2.0
# The twin check fits one model per column and simulates (n, K) tables: minutes at a few hundred
# models, hours at tens of thousands.  Above this many models audit_diagnostics leaves it out.
TWIN_MAX_MODELS = 64


def plain_basis(shift_method: str | None) -> str | None:
    """What the diagnostics read, said wherever they are shown beside a covariate-aware selection.

    ``shift_method`` is the covariate method the rules' p-values used (``ShiftPValues.method``;
    ``None`` without covariates). The diagnostics model the plain scores, so beside a ``"weighted"`` or
    ``"residual"`` selection this returns a clause saying so; ``None`` when the rules read plain p-values.

    Examples
    --------
    >>> plain_basis("residual")
    'the diagnostics read the plain conformal p-values and scores, not the covariate-aware p-values the rules used (residual)'
    >>> plain_basis("none") is None and plain_basis(None) is None
    True
    """
    if shift_method in (None, "none"):
        return None
    return ("the diagnostics read the plain conformal p-values and scores, not the covariate-aware p-values "
            f"the rules used ({shift_method})")


@dataclass(frozen=True)
class AuditDiagnostics:
    """Label-free diagnostics of one audit at one alpha.

    Attributes
    ----------
    alpha : float
    correlation : ScoreCorrelation
    tail : TailDiagnostics
    pi0_band : Pi0Band
    twin : TwinEvaluation or None
        The matched-twin risk check at ``alpha`` (None when not run).
    jecs_safe : bool or None
        Whether the paper's JECS (every rule whose guarantee is only asymptotic) looks
        in its safe regime: its twin GCR is at most alpha + 2 SE in every exposure
        pattern.  None when the twin check was not run (or no such rule ran).
    flags : tuple of str
        Plain-language warnings from the correlation and the tail.
    reversed_scores : bool
        Test items score above the calibration members (:func:`jecs_core.checks.score_direction`):
        the scores likely run the other way, and no verdict on the paper's JECS is given.
    twin_skipped : str or None
        Why the twin check asked for was left out (more than ``TWIN_MAX_MODELS`` models).
    """

    alpha: float
    correlation: ScoreCorrelation
    tail: TailDiagnostics
    pi0_band: Pi0Band
    twin: TwinEvaluation | None
    jecs_safe: bool | None
    flags: tuple[str, ...]
    reversed_scores: bool = False
    twin_skipped: str | None = None

    @property
    def verdict(self) -> str:
        """One sentence on the paper's JECS for this audit."""
        if self.reversed_scores:
            return "paper's JECS safe regime: not assessed (the scores may run the other way; see the warning)"
        if self.jecs_safe is None:
            return f"paper's JECS safe regime: not assessed (no twin check{': ' + self.twin_skipped if self.twin_skipped else ''})"
        if self.jecs_safe:
            return (f"paper's JECS looks in its safe regime here: twin GCR <= alpha + 2 SE in every exposure "
                    f"pattern at alpha = {self.alpha:g}")
        rows = self.twin.summary
        bad = rows[rows["over_2se"] & (rows["guarantee"] == Guarantee.ASYMPTOTIC.value)]
        worst = bad.loc[bad["gcr"].idxmax()]
        return (f"paper's JECS is NOT in its safe regime here: twin GCR above alpha + 2 SE in pattern(s) "
                f"{', '.join(dict.fromkeys(bad['pattern']))} (up to {fmt(worst['gcr'])} at alpha = {self.alpha:g}); "
                f"prefer a finite-sample-valid rule")

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "correlation": self.correlation.to_dict(), "tail": self.tail.to_dict(),
                "pi0_bootstrap": self.pi0_band.to_dict(), "twin": None if self.twin is None else self.twin.to_dict(),
                "jecs_safe_regime": self.jecs_safe, "verdict": self.verdict, "flags": list(self.flags)}

    def lines(self) -> list[str]:
        out = ["diagnostics (no labels used):"]
        out += self.correlation.lines() + self.tail.lines() + self.pi0_band.lines()
        if self.twin is not None:
            out += self.twin.lines()
        out += [f"warning: {flag}" for flag in self.flags]
        out.append(f"verdict: {self.verdict}")
        return out

    def summary(self) -> str:
        return "\n".join(self.lines())


def _flags(correlation: ScoreCorrelation, tail: TailDiagnostics) -> tuple[str, ...]:
    flags = []
    if correlation.mean == correlation.mean and correlation.mean > HIGH_CORRELATION:
        flags.append(f"scores correlate across models (mean Spearman {fmt(correlation.mean)} > {HIGH_CORRELATION}): "
                     "the regime where the paper's JECS was measured above alpha")
    if tail.m_tail is not None and (tail.m_tail < SMALL_TAIL or (tail.k_n or 0) < SMALL_KNN):
        flags.append(f"small JECS tail (m_R = {tail.m_tail}, k_n = {tail.k_n}): the envelope anchor is noisy")
    if tail.slope_ratio == tail.slope_ratio and tail.slope_ratio > WIDE_SLOPE_RATIO:
        flags.append(f"F_fit(lambda)/lambda moves {fmt(tail.slope_ratio, 2)}x over the lambda grid: the data-driven "
                     "lambda picks the smallest of noisy anchors, pulling pi0_hat down")
    return tuple(flags)


def audit_diagnostics(table, *, alpha: float = 0.1, lam="auto", knn: int | None = None,
                      lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID, seed: int | None = 0, bootstrap: int = 200,
                      twin_tables: int = 100, twin: bool = True, methods: Sequence[str] | None = None,
                      workers: int | None = None, pvalues: np.ndarray | None = None,
                      direction: DirectionCheck | None = None) -> AuditDiagnostics:
    """Every label-free diagnostic of an audit: correlation, JECS tail, pi0 band, matched-twin risk check.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        The audit; labels are not used.
    alpha : float
        Target level of the twin check.
    lam, knn, lambda_grid
        The shared rule options, as passed to the selection.
    seed : int or None
        Seed of the bootstrap and the twins.
    bootstrap : int
        Bootstrap replicates of pi0_hat (>= 2).
    twin_tables : int
        Fresh twin tables per exposure pattern (>= 2).  Twins of audits with more than
        3,000 test items are drawn at 3,000 (``fit_twin(max_test=...)``).
    twin : bool
        Run the matched-twin risk check (left out above ``TWIN_MAX_MODELS`` models, saying so in
        ``twin_skipped`` and the verdict).
    methods : sequence of str, optional
        Rules of the twin check; default every registered rule.
    workers : int, optional
        Threads of the twin check; default every core (the numbers do not depend on it).
    pvalues : numpy.ndarray, shape (n, K), optional
        The table's plain conformal p-values (:func:`jecs_core.table_pvalues` without covariates or
        ``rng``) when the caller has them already; computed here otherwise. The reversed-score
        check reads its counts from them too.
    direction : DirectionCheck, optional
        The table's reversed-score check (:func:`jecs_core.checks.score_direction`), likewise.

    Returns
    -------
    AuditDiagnostics
    """
    table = as_table(table)
    alpha = check_alpha(alpha)
    twin_tables = check_count(twin_tables, "twin_tables", 2)
    bootstrap = check_count(bootstrap, "bootstrap", 2)  # named here: pi0_bootstrap calls it reps
    lam, knn, lambda_grid = check_lam(lam), check_knn(knn), check_lambda_grid(lambda_grid)
    if pvalues is not None:
        pvalues = check_pvalue_matrix(pvalues)
        if pvalues.shape != (table.n, table.K):
            raise ValueError(f"pvalues must have the table's shape (n, K) = ({table.n}, {table.K}), got {pvalues.shape}")
    if direction is not None and not isinstance(direction, DirectionCheck):
        raise ValueError(f"direction must be a DirectionCheck (jecs_core.checks.score_direction), got {type(direction).__name__}")
    p_max = (table_pvalues(table) if pvalues is None else pvalues).max(axis=1)
    correlation = score_correlation(table)
    tail = tail_diagnostics(p_max, lam=lam, knn=knn, lambda_grid=lambda_grid)
    band = pi0_bootstrap(p_max, lam=lam, knn=knn, lambda_grid=lambda_grid, reps=bootstrap, seed=seed)
    check = skipped = None
    if twin and table.K > TWIN_MAX_MODELS:
        twin, skipped = False, f"skipped above {TWIN_MAX_MODELS} models, K = {table.K:,}"
    if twin:
        check = twin_evaluate(table, alphas=(alpha,), tables=twin_tables, seed=seed, methods=methods, lam=lam,
                              knn=knn, lambda_grid=lambda_grid, workers=workers)
    safe = None if check is None else check.asymptotic_safe
    return AuditDiagnostics(alpha, correlation, tail, band, check, safe, _flags(correlation, tail),
                            reversed_scores=(score_direction(table, pvalues=pvalues) if direction is None else direction).likely_reversed, twin_skipped=skipped)

