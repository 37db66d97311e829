"""One entry point that runs all four selection rules on one score table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import check_alpha, check_pvalue_matrix
from .conformal import conformal_pvalues
from .data import ScoreTable
from .envelope import DEFAULT_LAMBDA_GRID
from .metrics import SelectionMetrics, selection_metrics
from .selection import (
    JECSFit,
    JECSResult,
    JMCSResult,
    PerModelResult,
    fit_jecs,
    intersection_selection,
    jmcs,
    union_selection,
)

METHODS: tuple[str, ...] = ("jecs", "jmcs", "union", "intersection")
# Union and intersection are shown because they fail to control the GCR.
VALID_METHODS = frozenset({"jecs", "jmcs"})
METHOD_LABELS = {
    "jecs": "JECS",
    "jmcs": "JMCS",
    "union": "Union (invalid baseline)",
    "intersection": "Intersection (invalid baseline)",
}


@dataclass(frozen=True)
class Comparison:
    """The four selections at one alpha, with everything needed to draw and export them.

    Attributes
    ----------
    alpha : float
    models : tuple of str
    pvalues : numpy.ndarray, shape (n, K)
        Per-model conformal p-values.
    jecs, jmcs, union, intersection
        The result of each rule.
    contaminated : numpy.ndarray of bool or None
        Test items that are members of some model, when labels are known.
    """

    alpha: float
    models: tuple[str, ...]
    pvalues: np.ndarray
    jecs: JECSResult
    jmcs: JMCSResult
    union: PerModelResult
    intersection: PerModelResult
    contaminated: np.ndarray | None = None

    @property
    def p_max(self) -> np.ndarray:
        return self.jmcs.p_max

    def result(self, method: str):
        if method not in METHODS:
            raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
        return getattr(self, method)

    def selected(self, method: str) -> np.ndarray:
        return self.result(method).selected

    def metrics(self, method: str) -> SelectionMetrics | None:
        if self.contaminated is None:
            return None
        return selection_metrics(self.selected(method), self.contaminated)

    def summary(self) -> pd.DataFrame:
        """One row per method: label, validity, selected count, and GCP/power when labelled."""
        rows = []
        for method in METHODS:
            row = {
                "method": method,
                "label": METHOD_LABELS[method],
                "valid": method in VALID_METHODS,
                "n_selected": int(self.selected(method).sum()),
            }
            found = self.metrics(method)
            if found is not None:
                row["gcp"] = found.gcp
                row["power"] = found.power
            rows.append(row)
        return pd.DataFrame(rows)


def compare_pvalues(
    pvalues,
    *,
    alpha: float,
    lam="auto",
    knn: int | None = None,
    lambda_grid_values=DEFAULT_LAMBDA_GRID,
    models=None,
    contaminated=None,
    jecs_fit: JECSFit | None = None,
) -> Comparison:
    """Run JECS, JMCS, union and intersection on a p-value matrix.

    ``jecs_fit`` may be passed to reuse an alpha-free JECS fit (the dashboard
    does this while the user drags alpha).
    """
    p = check_pvalue_matrix(pvalues)
    alpha = check_alpha(alpha)
    models = tuple(models) if models is not None else tuple(f"m{k}" for k in range(p.shape[1]))
    if len(models) != p.shape[1]:
        raise ValueError(f"models has {len(models)} names but pvalues has {p.shape[1]} columns")
    jmcs_result: JMCSResult = jmcs(p, alpha=alpha)
    fit = jecs_fit if jecs_fit is not None else fit_jecs(jmcs_result.p_max, lam=lam, knn=knn, lambda_grid_values=lambda_grid_values)
    con = None if contaminated is None else np.asarray(contaminated, dtype=bool)
    if con is not None and con.shape != (p.shape[0],):
        raise ValueError(f"contaminated must have shape ({p.shape[0]},), got {con.shape}")
    return Comparison(
        alpha=alpha,
        models=models,
        pvalues=p,
        jecs=fit.select(alpha),
        jmcs=jmcs_result,
        union=union_selection(p, alpha=alpha),
        intersection=intersection_selection(p, alpha=alpha),
        contaminated=con,
    )


def compare_methods(
    table: ScoreTable,
    *,
    alpha: float,
    lam="auto",
    knn: int | None = None,
    lambda_grid_values=DEFAULT_LAMBDA_GRID,
    rng: np.random.Generator | None = None,
) -> Comparison:
    """Conformal p-values of ``table`` and all four selections at ``alpha``.

    Parameters
    ----------
    table : ScoreTable
        A validated score table (see :func:`jecs_core.load_scores`).
    alpha : float
        Target global contamination rate in (0, 1).
    lam : "auto" or float
        Data-driven lambda (default) or a fixed one.
    knn : int, optional
        kNN size for the boundary density (default ``ceil(sqrt(m_R))``).
    lambda_grid_values : sequence of float
        Grid for the data-driven lambda.
    rng : numpy.random.Generator, optional
        Randomized tie-breaking of the conformal p-values.
    """
    pvalues = conformal_pvalues(table.test, table.calibration, rng=rng)
    return compare_pvalues(
        pvalues,
        alpha=alpha,
        lam=lam,
        knn=knn,
        lambda_grid_values=lambda_grid_values,
        models=table.models,
        contaminated=table.contaminated,
    )
