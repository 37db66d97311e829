"""The paper's JECS fit read as a diagnostic: tail size, kNN size, and how much the anchor moves over lambda.

The data-driven lambda takes the smallest slope ``F_fit(lambda) / lambda`` over a
grid, and each slope rests on a kNN density estimate from the ``k_n`` tail points
nearest lambda.  A small tail (m_R), a small k_n, or slopes that swing widely
across the grid mean the minimum is picked among noisy anchors, which drags
F_fit(lambda) and pi0_hat down (about 99% of protocol draws on the shipped real audit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..envelope import DEFAULT_LAMBDA_GRID, MIN_TAIL_POINTS
from ..selection import fit_jecs
from ._common import fmt, json_number

# Storey's finite-sample estimate on max-p uses this lambda (a conservative reference for pi0_hat).
STOREY_LAMBDA = 0.5


@dataclass(frozen=True)
class TailDiagnostics:
    """The paper's JECS fit on one table, as numbers an auditor can read.

    Attributes
    ----------
    n : int
        Test items.
    lam, m_tail, k_n, F_fit_lambda, pi0_hat : float or int or None
        The chosen lambda, its tail size m_R, kNN size k_n, anchor F_fit(lambda) and
        pi0_hat (None when the fit fell back to JMCS).
    grid : pandas.DataFrame
        One row per lambda on the grid (``LambdaGrid.to_frame()``).
    slope_min, slope_max : float
        Smallest and largest ``F_fit(lambda) / lambda`` over the usable lambdas.
    slope_ratio : float
        ``slope_max / slope_min`` (1 = the anchor does not move; NaN with < 2 usable lambdas).
    pi0_grid_min, pi0_grid_max : float
        Range of pi0_hat over the usable lambdas.
    storey_pi0 : float
        Storey's finite-sample estimate on max-p, ``min(1, (1 + #{p* > 0.5}) / (n * 0.5))``:
        a conservative reference: without its cap at 1 its expectation is at least pi0 for
        super-uniform nulls; the cap pulls it under (mean 0.953 at n = 20, 0.969 at n = 100 on
        all-null uniform tables).
    few_tail_points : bool
        The chosen tail has fewer than ``MIN_TAIL_POINTS`` points.
    """

    n: int
    lam: float | None
    m_tail: int | None
    k_n: int | None
    F_fit_lambda: float | None
    pi0_hat: float | None
    grid: pd.DataFrame
    slope_min: float
    slope_max: float
    slope_ratio: float
    pi0_grid_min: float
    pi0_grid_max: float
    storey_pi0: float
    few_tail_points: bool

    def to_dict(self) -> dict:
        grid = [{k: (json_number(v) if isinstance(v, float) else (None if pd.isna(v) else v.item()
                                                                  if hasattr(v, "item") else v))
                 for k, v in row.items()} for row in self.grid.to_dict(orient="records")]
        return {"n": self.n, "lambda": json_number(self.lam), "m_R": self.m_tail, "k_n": self.k_n,
                "F_fit_lambda": json_number(self.F_fit_lambda), "pi0_hat": json_number(self.pi0_hat),
                "slope_min": json_number(self.slope_min), "slope_max": json_number(self.slope_max),
                "slope_ratio": json_number(self.slope_ratio), "pi0_grid_min": json_number(self.pi0_grid_min),
                "pi0_grid_max": json_number(self.pi0_grid_max), "storey_pi0": json_number(self.storey_pi0),
                "few_tail_points": self.few_tail_points, "grid": grid}

    def lines(self) -> list[str]:
        if self.lam is None:
            return ["JECS tail: no max-p value above any lambda on the grid (the paper's JECS falls back to JMCS)"]
        flag = f" (fewer than {MIN_TAIL_POINTS} tail points)" if self.few_tail_points else ""
        return [
            f"JECS tail: lambda = {self.lam:g}  m_R = {self.m_tail}  k_n = {self.k_n}{flag}  "
            f"F_fit(lambda) = {fmt(self.F_fit_lambda, 4)}  pi0_hat = {fmt(self.pi0_hat, 4)}",
            f"F_fit/lambda over the grid: {fmt(self.slope_min, 4)} .. {fmt(self.slope_max, 4)} "
            f"(max/min {fmt(self.slope_ratio, 2)}); pi0_hat over the grid {fmt(self.pi0_grid_min)} .. "
            f"{fmt(self.pi0_grid_max)}; Storey pi0 on max-p (lambda 0.5, finite-sample form) {fmt(self.storey_pi0)}",
        ]


def storey_pi0(p_max, lam: float = STOREY_LAMBDA) -> float:
    """Storey's finite-sample null-share estimate ``min(1, (1 + #{p > lam}) / (n (1 - lam)))``."""
    values = np.asarray(p_max, dtype=float)
    return float(min(1.0, (1 + np.count_nonzero(values > lam)) / (values.size * (1.0 - lam))))


def tail_diagnostics(p_max, *, lam="auto", knn: int | None = None,
                     lambda_grid=DEFAULT_LAMBDA_GRID) -> TailDiagnostics:
    """Fit the paper's JECS on ``p_max`` and summarise its tail and the grid behind lambda.

    Parameters
    ----------
    p_max : array_like, shape (n,)
        Max-p values of the test items (``table_pvalues(table).max(axis=1)``).
    lam, knn, lambda_grid
        The shared rule options, as in :func:`jecs_core.fit_jecs`.
    """
    values = np.asarray(p_max, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"p_max must be a non-empty 1-D array, got shape {values.shape}")
    fit = fit_jecs(values, lam=lam, knn=knn, lambda_grid=lambda_grid, warn=False)
    grid = fit.grid.to_frame()
    usable = grid[grid["usable"]]
    slopes, pi0s = usable["slope"].to_numpy(float), usable["pi0_hat"].to_numpy(float)
    smin, smax = (float(slopes.min()), float(slopes.max())) if slopes.size else (np.nan, np.nan)
    ratio = smax / smin if slopes.size >= 2 and smin > 0 else np.nan
    pmin, pmax = (float(pi0s.min()), float(pi0s.max())) if pi0s.size else (np.nan, np.nan)
    env = fit.envelope
    return TailDiagnostics(
        n=int(values.size), lam=fit.lam, m_tail=None if env is None else env.m_tail, k_n=fit.k_n,
        F_fit_lambda=fit.F_fit_lambda, pi0_hat=None if env is None else float(fit.pi0_hat), grid=grid,
        slope_min=smin, slope_max=smax, slope_ratio=float(ratio), pi0_grid_min=pmin, pi0_grid_max=pmax,
        storey_pi0=storey_pi0(values), few_tail_points=env is not None and env.m_tail < MIN_TAIL_POINTS,
    )
