"""Weighted conformal p-values under covariate shift.

With density ratio ``w(x) = dP_test-member(x) / dP_calibration(x)`` (Tibshirani, Barber,
Candès & Ramdas 2019, "Conformal prediction under a covariate shift"; for selection,
Jin & Candès 2023, "Model-free selective inference under covariate shift"), the
p-value of test item i for model k is::

    p_i^k = (sum_l w(X_l) 1{T_l^k <= T_i^k} + w(X_i)) / (sum_l w(X_l) + w(X_i))

over calibration items l.  With all weights equal it is the plain conformal p-value
``(1 + #{T_l <= T_i}) / (m + 1)``, bit for bit.  The weights here are estimated by a
cross-fitted classifier (:func:`estimate_density_ratio`), clipped, and their effective
sample size is reported: a small one means a few calibration items carry the p-values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._pvalue_kernel import conformal_pvalues
from .._validation import check_rng
from ._crossfit import make_folds, oof_probabilities
from ._features import Design, as_scores, pair


@dataclass(frozen=True)
class DensityRatio:
    """Estimated density ratios ``w(x)`` of the test and calibration items.

    Attributes
    ----------
    test_weights, cal_weights : numpy.ndarray
        Clipped ratios, shape (n,) and (m,).
    clip : float
        Ratios were clipped to ``[1 / clip, clip]``.
    n_clipped : int
        How many of the n + m ratios hit a clip bound.
    ess : float
        Effective sample size of the calibration weights, ``(sum w)^2 / sum w^2``.
    ess_fraction : float
        ``ess / m`` in (0, 1]; 1 means equal weights.
    """

    test_weights: np.ndarray
    cal_weights: np.ndarray
    clip: float
    n_clipped: int
    ess: float
    ess_fraction: float

    def to_dict(self) -> dict:
        return {"clip": self.clip, "n_clipped": self.n_clipped, "ess": self.ess, "ess_fraction": self.ess_fraction,
                "max_cal_weight_share": float(self.cal_weights.max() / self.cal_weights.sum())}


def effective_sample_size(weights) -> float:
    """Kish's effective sample size ``(sum w)^2 / sum w^2`` of positive weights."""
    w = np.asarray(weights, dtype=float)
    return float(w.sum() ** 2 / np.sum(w * w))


def estimate_density_ratio(test_X, cal_X, *, n_folds: int = 5, clip: float = 20.0, C: float = 1.0,
                           rng: np.random.Generator | None = None) -> DensityRatio:
    """Cross-fitted density ratios test/calibration from a logistic regression on covariates.

    ``w(x) = (m / n) * P(test | x) / P(calibration | x)``, each item's probability from
    the fold model not fitted on it (the design is :class:`~jecs_core.shift._features.Design`:
    standardised covariates and their squares).

    Parameters
    ----------
    test_X, cal_X : array_like, shape (n, d) and (m, d)
    n_folds : int
        Cross-fitting folds (>= 2).
    clip : float
        Ratios are clipped to ``[1 / clip, clip]`` (> 1), which bounds any one item's pull.
    C : float
        Inverse L2 penalty of the logistic regression.
    rng : numpy.random.Generator, optional
        The random fold assignment.
    """
    clip = float(clip)
    if not clip > 1.0 or not np.isfinite(clip):
        raise ValueError(f"clip must be a finite number > 1, got {clip!r}")
    test, cal = pair(test_X, cal_X)
    rng = check_rng(rng)
    X = np.vstack([test, cal])
    y = np.r_[np.ones(len(test), dtype=int), np.zeros(len(cal), dtype=int)]
    folds = make_folds(len(y), n_folds, rng)
    prob, _ = oof_probabilities(Design.fit(X)(X), y, folds, C=C)
    raw = len(cal) / len(test) * prob / (1.0 - prob)
    w = np.clip(raw, 1.0 / clip, clip)
    cal_w = w[len(test):]
    ess = effective_sample_size(cal_w)
    return DensityRatio(test_weights=w[: len(test)], cal_weights=cal_w, clip=clip,
                        n_clipped=int(np.count_nonzero(w != raw)), ess=ess, ess_fraction=ess / len(cal))


def _weights(values, name: str, rows: int) -> np.ndarray:
    w = np.asarray(values, dtype=float)
    if w.shape != (rows,):
        raise ValueError(f"{name} must have shape ({rows},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(f"{name} must be finite and positive")
    return w


def weighted_pvalues(test_scores, cal_scores, *, test_weights, cal_weights,
                     rng: np.random.Generator | None = None) -> np.ndarray:
    """Weighted conformal p-values, shape (n, K) (see the module docstring for the formula).

    Parameters
    ----------
    test_scores, cal_scores : array_like, shape (n, K) and (m, K)
        Scores, larger = more member-like; calibration items are members of every model.
    test_weights, cal_weights : array_like, shape (n,) and (m,)
        Positive density ratios ``w(X)``; only their ratios matter.
    rng : numpy.random.Generator, optional
        Randomised ties: ``(W_< + U (w_i + W_=)) / (W + w_i)`` with ``U ~ Unif(0, 1)``,
        as in :func:`jecs_core.conformal_pvalues`.
    """
    test = as_scores(test_scores, "test_scores")
    cal = as_scores(cal_scores, "cal_scores")
    if test.shape[1] != cal.shape[1]:
        raise ValueError(f"test_scores has {test.shape[1]} model column(s) but cal_scores has {cal.shape[1]}")
    if cal.shape[0] == 0:
        raise ValueError("cal_scores must have at least one row")
    tw = _weights(test_weights, "test_weights", test.shape[0])
    cw = _weights(cal_weights, "cal_weights", cal.shape[0])
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    # Rescale by the largest calibration weight, so that equal weights become exactly 1.0: the
    # cumulative sums are then exact integers and the result equals the unweighted formula bit for
    # bit. The total weight is then at least 1, so no p-value is 0/0 however far the weights spread;
    # a test weight that overflows here is the limit of an ever larger one (p = 1, or U when randomised).
    top = cw.max()
    with np.errstate(over="ignore", under="ignore"):
        tw, cw = tw / top, cw / top
    huge = np.isinf(tw)
    uniforms = rng.random(test.shape) if rng is not None else None
    out = np.empty(test.shape)
    # Its own loop, not jecs_core.conformal_pvalues: each test score needs the calibration
    # *weight* at or below it (a cumulative sum over the sorted column), where the plain
    # p-value needs a count.  Equal weights give conformal_pvalues bit for bit (tested).
    for k in range(test.shape[1]):
        order = np.argsort(cal[:, k], kind="stable")
        ref = cal[order, k]
        cum = np.r_[0.0, np.cumsum(cw[order])]
        total = cum[-1] + tw
        at_most = cum[np.searchsorted(ref, test[:, k], side="right")]
        with np.errstate(invalid="ignore"):  # inf / inf where a weight overflowed: replaced by its limit
            if uniforms is None:
                out[:, k] = np.where(huge, 1.0, (at_most + tw) / total)
            else:
                below = cum[np.searchsorted(ref, test[:, k], side="left")]
                out[:, k] = np.where(huge, uniforms[:, k], (below + uniforms[:, k] * (tw + (at_most - below))) / total)
    return out


def plain_pvalues(test_scores, cal_scores, *, rng: np.random.Generator | None = None) -> np.ndarray:
    """Unweighted conformal p-values: :func:`jecs_core.conformal_pvalues`, the one implementation.

    The shift checks call it by this name beside :func:`weighted_pvalues`, whose unit-weight case
    equals it bit for bit (a test holds this).
    """
    test, cal = as_scores(test_scores, "test_scores"), as_scores(cal_scores, "cal_scores")
    return conformal_pvalues(test, cal, rng=rng)
