"""What one rule under one option setting yields on a batch of repetitions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Outcome:
    """Per-repetition metrics of one rule (one option setting) on R repetitions and A alphas.

    Attributes
    ----------
    gcp, power : numpy.ndarray of float, shape (A, R)
    n_selected : numpy.ndarray of int, shape (A, R)
    fit_lambda : numpy.ndarray of float, shape (R,) or None
        The lambda the rule's alpha-free fit chose (NaN where it fell back and has
        none); ``None`` when the rule's fit reports no lambda at all.
    fit_pi0 : numpy.ndarray of float, shape (R,) or None
        The fit's ``pi0_hat``; ``None`` when the rule reports none.
    """

    gcp: np.ndarray
    power: np.ndarray
    n_selected: np.ndarray
    fit_lambda: np.ndarray | None = None
    fit_pi0: np.ndarray | None = None


def empty_arrays(n_alphas: int, reps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Uninitialised (A, R) gcp, power and n_selected arrays."""
    gcp = np.empty((n_alphas, reps))
    return gcp, np.empty_like(gcp), np.empty(gcp.shape, dtype=np.int64)
