"""Monte-Carlo means and standard errors in a tidy frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..compare import METHOD_LABELS, VALID_METHODS

# Columns of every summary frame, in order (sweeps prepend parameter/setting/value).
SUMMARY_COLUMNS = (
    "method", "label", "valid", "alpha", "gcp", "gcp_se", "power", "power_se", "mean_selected", "over_target",
    "jecs_lambda_mean", "jecs_fallback_rate", "reps",
)
# Standard errors are std / sqrt(reps) with the sample standard deviation (ddof = 1).
SE_DDOF = 1


def standard_error(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``std(ddof=1) / sqrt(reps)`` along ``axis``; NaN with a single repetition."""
    reps = values.shape[axis]
    if reps < 2:
        return np.full(np.delete(values.shape, axis), np.nan)
    return values.std(axis=axis, ddof=SE_DDOF) / np.sqrt(reps)


def summary_rows(method: str, alphas, gcp: np.ndarray, power: np.ndarray, n_selected: np.ndarray,
                 jecs_lambda: np.ndarray | None = None) -> list[dict]:
    """One row per alpha for one method; arrays are (A, R).

    ``jecs_lambda`` (R,) is JECS's chosen lambda per repetition (NaN on fallback
    to JMCS); it fills ``jecs_lambda_mean`` (over the non-fallback repetitions)
    and ``jecs_fallback_rate`` on JECS rows, NaN elsewhere.
    """
    lam_mean = fallback = np.nan
    if method == "jecs" and jecs_lambda is not None:
        fell_back = np.isnan(jecs_lambda)
        fallback = float(fell_back.mean())
        lam_mean = float(jecs_lambda[~fell_back].mean()) if (~fell_back).any() else np.nan
    gcp_mean, power_mean = gcp.mean(axis=1), power.mean(axis=1)
    gcp_se, power_se = standard_error(gcp), standard_error(power)
    sizes = n_selected.mean(axis=1)
    return [
        {
            "method": method,
            "label": METHOD_LABELS[method],
            "valid": method in VALID_METHODS,
            "alpha": float(alpha),
            "gcp": float(gcp_mean[a]),
            "gcp_se": float(gcp_se[a]),
            "power": float(power_mean[a]),
            "power_se": float(power_se[a]),
            "mean_selected": float(sizes[a]),
            "over_target": bool(gcp_mean[a] > alpha),
            "jecs_lambda_mean": lam_mean,
            "jecs_fallback_rate": fallback,
            "reps": int(gcp.shape[1]),
        }
        for a, alpha in enumerate(alphas)
    ]


def summary_frame(rows: list[dict], leading: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows as a frame with the standard column order (``leading`` columns first)."""
    return pd.DataFrame(rows, columns=list(leading) + list(SUMMARY_COLUMNS))
