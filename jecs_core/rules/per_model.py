"""Union and intersection of per-model BH selections: invalid baselines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_alpha, check_pvalue_matrix
from ..multitest import storey_bh
from ..selection import PerModelResult, intersection_selection, union_selection
from .registry import Guarantee, Rule


@dataclass(frozen=True)
class PerModelFit:
    """Per-model p-value columns sorted once, so each alpha is K step-up passes without a sort."""

    rule: str
    pvalues: np.ndarray
    sorted_columns: np.ndarray

    def select(self, alpha: float) -> PerModelResult:
        alpha = check_alpha(alpha)
        chosen = np.column_stack([
            storey_bh(self.pvalues[:, k], alpha=alpha, sorted_values=self.sorted_columns[:, k]).selected
            for k in range(self.pvalues.shape[1])
        ])
        return PerModelResult(alpha=alpha, rule=self.rule, per_model=chosen)


def _fitter(rule: str):
    def fit(pvalues) -> PerModelFit:
        p = check_pvalue_matrix(pvalues)
        return PerModelFit(rule, p, np.sort(p, axis=0))

    fit.__doc__ = f"Alpha-free part of the {rule} baseline; ``fit(p).select(a)`` equals the direct call."
    return fit


RULES = (
    Rule(
        name="union",
        label="Union (invalid baseline)",
        guarantee=Guarantee.INVALID,
        summary="Items that any model's BH selection keeps; shown because it fails to control the GCR.",
        run=union_selection,
        fit=_fitter("union"),
    ),
    Rule(
        name="intersection",
        label="Intersection (invalid baseline)",
        guarantee=Guarantee.INVALID,
        summary="Items that every model's BH selection keeps; shown because it fails to control the GCR.",
        run=intersection_selection,
        fit=_fitter("intersection"),
    ),
)
