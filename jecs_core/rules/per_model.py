"""Union and intersection of per-model BH selections: invalid baselines."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._shared_max_p import is_shared
from .._validation import check_alpha, check_pvalue_matrix, frozen
from ..multitest import column_step_up
from ..results import SelectionResult
from .registry import Guarantee, Rule


@dataclass(frozen=True)
class PerModelResult(SelectionResult):
    """Union or intersection of the per-model BH selections (an invalid baseline).

    Attributes
    ----------
    alpha : float
        Level of every per-model BH.
    rule : {"union", "intersection"}
        How the per-model selections combine.
    per_model : numpy.ndarray of bool, shape (n, K)
        Each model's BH selection.
    """

    alpha: float
    rule: str
    per_model: np.ndarray

    @cached_property
    def selected(self) -> np.ndarray:
        # Read several times (the summary, the metrics, the export): one pass over the (n, K) matrix, kept read-only.
        chosen = self.per_model.any(axis=1) if self.rule == "union" else self.per_model.all(axis=1)
        chosen.setflags(write=False)
        return chosen

    @property
    def n_selected(self) -> int:
        return int(self.selected.sum())

    def model_selections(self) -> np.ndarray:
        return self.per_model


def _per_model(pvalues, alpha: float, rule: str) -> PerModelResult:
    p = check_pvalue_matrix(pvalues)
    alpha = check_alpha(alpha)
    chosen = column_step_up(p, alpha=alpha)  # storey_bh per column, without sorting whole columns
    return PerModelResult(alpha=alpha, rule=rule, per_model=chosen)


def union_selection(pvalues, *, alpha: float) -> PerModelResult:
    """Union of per-model BH selections at ``alpha``.  Invalid: does not control the GCR.

    Parameters
    ----------
    pvalues : array_like, shape (n, K)
        Per-model p-values.
    alpha : float
        Level of every per-model BH.

    Returns
    -------
    PerModelResult
        ``selected`` holds the items that any model's BH keeps.

    Examples
    --------
    >>> union_selection([[0.01, 0.9], [0.9, 0.9], [0.02, 0.01]], alpha=0.1).selected.tolist()
    [True, False, True]
    """
    return _per_model(pvalues, alpha, "union")


def intersection_selection(pvalues, *, alpha: float) -> PerModelResult:
    """Intersection of per-model BH selections at ``alpha``.  Invalid: does not control the GCR.

    Parameters
    ----------
    pvalues : array_like, shape (n, K)
        Per-model p-values.
    alpha : float
        Level of every per-model BH.

    Returns
    -------
    PerModelResult
        ``selected`` holds the items that every model's BH keeps.

    Examples
    --------
    >>> intersection_selection([[0.01, 0.9], [0.9, 0.9], [0.02, 0.01]], alpha=0.1).selected.tolist()
    [False, False, True]
    """
    return _per_model(pvalues, alpha, "intersection")


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
        # A read-only copy of a writeable input, so later selections stay true to what was fitted; the
        # matrix a sharing_max_p block holds is its owner's to keep unchanged, and is not copied.
        p = check_pvalue_matrix(pvalues)
        return PerModelFit(rule, p if is_shared(p) else frozen(p))

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
