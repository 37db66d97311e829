"""The paper's JECS (Liu, Zeng, Wei), exactly as specified: an asymptotic guarantee."""

from __future__ import annotations

from .._shared_max_p import sorted_max_p
from ..envelope import DEFAULT_LAMBDA_GRID
from ..selection import fit_jecs, jecs
from .options import KNN, LAM, LAMBDA_GRID
from .registry import Guarantee, Rule


def _fit(pvalues, *, lam="auto", knn=None, lambda_grid=DEFAULT_LAMBDA_GRID):
    p_max, ordered = sorted_max_p(pvalues)
    return fit_jecs(p_max, lam=lam, knn=knn, lambda_grid=lambda_grid, sorted_p_max=ordered)


RULE = Rule(
    name="jecs",
    label="JECS (paper)",
    guarantee=Guarantee.ASYMPTOTIC,
    summary="Right-tail envelope of the max-p null CDF with a kNN anchor, then Storey-BH; valid as the "
    "tail grows, measurably above alpha when scores correlate across models or contamination sits in one model.",
    run=jecs,
    fit=_fit,
    options=(LAM, KNN, LAMBDA_GRID),
)
