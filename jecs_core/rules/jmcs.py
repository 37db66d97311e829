"""JMCS (Joint Max Conformal Selection): Benjamini-Hochberg on the max-p values.

The one place for JMCS: its result class, the function, its alpha-free fit and its registry
entry.  Finite-sample valid for any dependence across models, because max-p is super-uniform
under the joint null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._shared_max_p import sorted_max_p
from .._validation import check_alpha
from ..multitest import StepUpResult, storey_bh, storey_bh_presorted
from ..results import SelectionResult, StepUpLine
from ..selection import max_p
from .registry import Guarantee, Rule


@dataclass(frozen=True)
class JMCSResult(SelectionResult):
    """Joint Max Conformal Selection: BH on the max-p values.

    Attributes
    ----------
    alpha : float
        Target level.
    p_max : numpy.ndarray, shape (n,)
        Max-p values.
    step : StepUpResult
        The BH step-up (``selected``, ``r_star``, ``threshold``).
    """

    alpha: float
    p_max: np.ndarray
    step: StepUpResult

    @property
    def selected(self) -> np.ndarray:
        return self.step.selected

    @property
    def n_selected(self) -> int:
        return self.step.n_selected

    @property
    def threshold(self) -> float:
        """Cut-off on max-p, ``alpha r* / n``."""
        return self.step.threshold

    def step_up_line(self) -> StepUpLine:
        """BH on max-p."""
        return StepUpLine("p_max", self.p_max, self.step.r_star, self.step.threshold, 1.0)


def jmcs(pvalues, *, alpha: float) -> JMCSResult:
    """Joint Max Conformal Selection: BH at ``alpha`` on the max-p values.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values (a 1-D array is one model).
    alpha : float
        Target global contamination rate in (0, 1).

    Returns
    -------
    JMCSResult
        ``selected`` (boolean mask), ``n_selected``, ``threshold`` (the cut-off on max-p).

    Examples
    --------
    >>> jmcs([[0.001, 0.004], [0.6, 0.2], [0.002, 0.003]], alpha=0.1).selected.tolist()
    [True, False, True]
    """
    p_star = max_p(pvalues)
    return JMCSResult(alpha=check_alpha(alpha), p_max=p_star, step=storey_bh(p_star, alpha=alpha))


@dataclass(frozen=True)
class JMCSFit:
    """The alpha-free part of JMCS: max-p, sorted once, so each alpha is one step-up pass; ``method`` names its rule."""

    p_max: np.ndarray
    sorted_p_max: np.ndarray
    method: ClassVar[str] = "jmcs"

    def select(self, alpha: float) -> JMCSResult:
        alpha = check_alpha(alpha)
        # p_max and its sort were checked and made once, when fitted: each alpha is the step-up pass alone.
        return JMCSResult(alpha=alpha, p_max=self.p_max, step=storey_bh_presorted(self.p_max, self.sorted_p_max, alpha=alpha))


def fit_jmcs(pvalues) -> JMCSFit:
    """Max-p of ``pvalues`` and its sorted copy; ``fit_jmcs(p).select(a)`` equals ``jmcs(p, alpha=a)``."""
    return JMCSFit(*sorted_max_p(pvalues))


RULE = Rule(
    name="jmcs",
    label="JMCS",
    guarantee=Guarantee.FINITE_SAMPLE,
    summary="BH on the per-item maximum of the model-wise conformal p-values; valid for any dependence "
    "across models, conservative because max-p is super-uniform.",
    run=jmcs,
    fit=fit_jmcs,
)
