"""Monte-Carlo means and standard errors in a tidy frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rules import REGISTRY

# Columns of every summary frame, in order (sweeps prepend parameter/setting/value).
SUMMARY_COLUMNS = (
    "method", "label", "guarantee", "valid", "alpha", "gcp", "gcp_se", "power", "power_se", "mean_selected",
    "over_target", "lambda_mean", "fallback_rate", "reps",
)
# Standard errors are std / sqrt(reps) with the sample standard deviation (ddof = 1).
SE_DDOF = 1
# Said wherever a protocol SE is shown: it is conditional on the one table evaluated.
SE_SCOPE_NOTE = (
    "These standard errors cover only the subsampling noise on this one fixed table. A rule's GCP varies far "
    "more between independent tables of the same design (tens of times this SE on audit-like designs: "
    "26-65 times on the shipped real audit at 500 repetitions), so the protocol mean is not the rule's unconditional GCR; the twin estimate "
    "(twin_evaluate, jecs evaluate --twin) averages over fresh synthetic tables matched to this audit and "
    "prints the ratio."
)


def standard_error(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``std(ddof=1) / sqrt(reps)`` along ``axis``; NaN with a single repetition."""
    reps = values.shape[axis]
    if reps < 2:
        return np.full(np.delete(values.shape, axis), np.nan)
    return values.std(axis=axis, ddof=SE_DDOF) / np.sqrt(reps)


def summary_rows(method: str, alphas, gcp: np.ndarray, power: np.ndarray, n_selected: np.ndarray,
                 fit_lambda: np.ndarray | None = None) -> list[dict]:
    """One row per alpha for one method; arrays are (A, R).

    ``fit_lambda`` (R,) is the lambda the rule's fit chose per repetition (NaN where
    it fell back, e.g. the paper's JECS to JMCS), ``None`` for a rule whose fit
    reports no lambda; it fills ``lambda_mean`` (over the repetitions with a lambda)
    and ``fallback_rate``, NaN for rules without one.  Label, guarantee and validity
    come from the rule registry.
    """
    rule = REGISTRY[method]
    lam_mean = fallback = np.nan
    if fit_lambda is not None:
        fell_back = np.isnan(fit_lambda)
        fallback = float(fell_back.mean())
        lam_mean = float(fit_lambda[~fell_back].mean()) if (~fell_back).any() else np.nan
    gcp_mean, power_mean = gcp.mean(axis=1), power.mean(axis=1)
    gcp_se, power_se = standard_error(gcp), standard_error(power)
    sizes = n_selected.mean(axis=1)
    return [
        {
            "method": method,
            "label": rule.label,
            "guarantee": rule.guarantee.value,
            "valid": rule.valid,
            "alpha": float(alpha),
            "gcp": float(gcp_mean[a]),
            "gcp_se": float(gcp_se[a]),
            "power": float(power_mean[a]),
            "power_se": float(power_se[a]),
            "mean_selected": float(sizes[a]),
            "over_target": bool(gcp_mean[a] > alpha),
            "lambda_mean": lam_mean,
            "fallback_rate": fallback,
            "reps": int(gcp.shape[1]),
        }
        for a, alpha in enumerate(alphas)
    ]


def summary_frame(rows: list[dict], leading: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows as a frame with the standard column order (``leading`` columns first)."""
    return pd.DataFrame(rows, columns=list(leading) + list(SUMMARY_COLUMNS))
