"""Union and intersection of per-model BH selections: invalid baselines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_alpha, check_pvalue_matrix
from ..multitest import column_step_up
from ..selection import PerModelResult, intersection_selection, union_selection
from .registry import Guarantee, Rule


@dataclass(frozen=True)
class PerModelFit:
    """Per-model p-value columns; each alpha is K step-up passes over the values that can pass."""

    rule: str
    pvalues: np.ndarray

    def select(self, alpha: float) -> PerModelResult:
        alpha = check_alpha(alpha)
        return PerModelResult(alpha=alpha, rule=self.rule, per_model=column_step_up(self.pvalues, alpha=alpha))


def _fitter(rule: str):
    def fit(pvalues) -> PerModelFit:
        return PerModelFit(rule, check_pvalue_matrix(pvalues))

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
