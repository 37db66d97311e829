"""JMCS: Benjamini-Hochberg on the max-p values (finite-sample valid)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_alpha
from ..multitest import storey_bh
from ..selection import JMCSResult, jmcs, max_p
from .registry import Guarantee, Rule


@dataclass(frozen=True)
class JMCSFit:
    """The alpha-free part of JMCS: max-p, sorted once, so each alpha is one step-up pass."""

    p_max: np.ndarray
    sorted_p_max: np.ndarray

    def select(self, alpha: float) -> JMCSResult:
        alpha = check_alpha(alpha)
        return JMCSResult(alpha=alpha, p_max=self.p_max, step=storey_bh(self.p_max, alpha=alpha, sorted_values=self.sorted_p_max))


def fit_jmcs(pvalues) -> JMCSFit:
    """Max-p of ``pvalues`` and its sorted copy; ``fit_jmcs(p).select(a)`` equals ``jmcs(p, alpha=a)``."""
    p_star = max_p(pvalues)
    return JMCSFit(p_star, np.sort(p_star))


RULE = Rule(
    name="jmcs",
    label="JMCS",
    guarantee=Guarantee.FINITE_SAMPLE,
    summary="BH on the per-item maximum of the model-wise conformal p-values; valid for any dependence "
    "across models, conservative because max-p is super-uniform.",
    run=jmcs,
    fit=fit_jmcs,
)
