"""Cross-model score correlation on the calibration set (Spearman).

Fine-tunes of one base model score items alike, and correlated scores are the
regime where the paper's JECS overshoots (the validity study's grid in docs/VALIDITY.md; the shipped audit's
models correlate at about 0.94).  The calibration items are members of every
model, so their scores show the cross-model dependence without any labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._common import as_table, fmt, json_matrix, json_number

# Above this many models the K x K matrix is not built (60,000 models would need 27 GiB and a
# sidecar of billions of numbers): the mean is computed without it, min and max are left out.
MATRIX_MAX_MODELS = 500


@dataclass(frozen=True)
class ScoreCorrelation:
    """Spearman correlation of the K models' calibration scores.

    Attributes
    ----------
    models : tuple of str
    matrix : numpy.ndarray, shape (K, K), or None
        Spearman rank correlations (average ranks for ties); NaN for a constant column. ``None``
        above ``MATRIX_MAX_MODELS`` models, where the K x K matrix would not fit in memory or in a
        sidecar (the summary is then computed in blocks of columns).
    mean, min, max : float
        Over the off-diagonal entries (NaN when K < 2); min and max are NaN above
        ``MATRIX_MAX_MODELS`` models (the mean is exact there too).
    n_items : int
        Calibration items used.
    """

    models: tuple[str, ...]
    matrix: np.ndarray | None
    mean: float
    min: float
    max: float
    n_items: int

    def to_dict(self) -> dict:
        return {"method": "spearman", "set": "calibration", "n_items": self.n_items,
                "mean": json_number(self.mean), "min": json_number(self.min), "max": json_number(self.max),
                "models": list(self.models), "matrix": None if self.matrix is None else json_matrix(self.matrix)}

    def lines(self) -> list[str]:
        if len(self.models) < 2:
            return ["cross-model score correlation: n/a (one model)"]
        return [f"cross-model score correlation (Spearman, calibration, {self.n_items} items): mean {fmt(self.mean)}"
                + (f"  min {fmt(self.min)}  max {fmt(self.max)}" if self.matrix is not None else
                   f"  (min and max not computed above {MATRIX_MAX_MODELS} models)")]


def _unit_ranks(scores) -> tuple[np.ndarray, np.ndarray]:
    """Centred average ranks of each column, scaled to unit norm (a constant column stays 0), and the norms."""
    values = np.asarray(scores, dtype=float)
    if values.ndim != 2 or values.shape[0] < 2:
        raise ValueError(f"scores must be a 2-D array with at least 2 rows, got shape {values.shape}")
    # pandas (loaded anyway) gives the average ranks without importing scipy.stats.
    ranks = pd.DataFrame(values, copy=False).rank(axis=0, method="average").to_numpy(dtype=float)
    centred = ranks - ranks.mean(axis=0)
    norms = np.sqrt((centred ** 2).sum(axis=0))
    return centred / np.where(norms > 0, norms, 1.0), norms


def spearman_matrix(scores) -> np.ndarray:
    """Spearman correlation matrix of the columns of ``scores`` (n, K): Pearson on average ranks."""
    unit, norms = _unit_ranks(scores)
    matrix = unit.T @ unit
    matrix[:, norms == 0] = np.nan
    matrix[norms == 0, :] = np.nan
    np.fill_diagonal(matrix, np.where(norms > 0, 1.0, np.nan))
    return np.clip(matrix, -1.0, 1.0)


def _mean_only(scores) -> tuple[float, float, float]:
    """Mean of the off-diagonal Spearman correlations in O(m K), without the matrix; min and max NaN.

    With unit-norm centred rank columns u_j, the off-diagonal sum is |sum_j u_j|^2 - K.
    """
    unit, norms = _unit_ranks(scores)
    unit = unit[:, norms > 0]  # constant columns have no correlation (NaN), left out as in the full matrix
    K = unit.shape[1]
    if K < 2:
        return (np.nan,) * 3
    total = unit.sum(axis=1)
    return float((total @ total - K) / (K * (K - 1))), np.nan, np.nan


def score_correlation(table) -> ScoreCorrelation:
    """Spearman correlation of the models' calibration scores, with off-diagonal mean / min / max.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        A score table; labels are not needed.

    Returns
    -------
    ScoreCorrelation
    """
    table = as_table(table)
    if table.K > MATRIX_MAX_MODELS:
        stats = _mean_only(table.calibration) if table.m >= 2 else (np.nan,) * 3
        return ScoreCorrelation(table.models, None, *stats, n_items=table.m)
    matrix = spearman_matrix(table.calibration) if table.m >= 2 else np.full((table.K, table.K), np.nan)
    off = matrix[~np.eye(table.K, dtype=bool)]
    off = off[np.isfinite(off)]
    stats = (float(off.mean()), float(off.min()), float(off.max())) if off.size else (np.nan,) * 3
    return ScoreCorrelation(table.models, matrix, *stats, n_items=table.m)
