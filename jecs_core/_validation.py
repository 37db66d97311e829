"""Small argument checks shared by the statistical functions.

Every public function validates its inputs with these helpers so that the
error names the offending argument and says what was expected.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_alpha(alpha: float, name: str = "alpha") -> float:
    """Return ``alpha`` as a float, or raise if it is not in the open interval (0, 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {alpha!r}")
    return value


def check_probability_vector(values, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float array of numbers in [0, 1]."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(f"{name} must hold finite values in [0, 1]")
    return arr


def check_pvalue_matrix(values, name: str = "pvalues") -> np.ndarray:
    """Return an (n, K) float array of p-values; a 1-D input is one model (K = 1)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 1-D or 2-D array, got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one column (model)")
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(f"{name} must hold finite values in [0, 1]")
    return arr


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
