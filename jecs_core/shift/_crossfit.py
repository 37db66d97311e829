"""Cross-fitted probabilistic classifier of test-vs-calibration rows (scikit-learn).

Each row's probability comes from a model fitted on the other folds, so neither the
shift check's AUC nor a row's density-ratio weight uses that row's own label.  Folds
are a random partition drawn without looking at the labels, which keeps a label
permutation test exact (the statistic is a fixed function of rows and labels).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int

# Probabilities are clipped away from 0 and 1 before they become odds.
_EPS = 1e-6


def make_folds(n_rows: int, n_folds, rng: np.random.Generator) -> np.ndarray:
    """A fold index per row: a random, label-blind partition into ``n_folds`` near-equal parts."""
    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    if n_folds > n_rows:
        raise ValueError(f"n_folds must be at most the number of rows ({n_rows}), got {n_folds}")
    return rng.permutation(np.arange(n_rows) % n_folds)


def _classifier(C: float):
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("covariate-aware selection needs scikit-learn (pip install scikit-learn)") from exc
    # newton-cholesky does not penalise the intercept, so the fitted odds keep the
    # class ratio, which the density ratio needs.
    return LogisticRegression(C=C, solver="newton-cholesky", max_iter=200)


def fit_folds(Z: np.ndarray, y: np.ndarray, folds: np.ndarray, *, C: float = 1.0) -> list:
    """One classifier per fold, each fitted on the other folds (None where a class is absent)."""
    models = []
    for f in range(int(folds.max()) + 1):
        train = folds != f
        labels = y[train]
        if labels.min() == labels.max():
            models.append(None)
            continue
        models.append(_classifier(C).fit(Z[train], labels))
    return models


def predict_folds(models: list, Z: np.ndarray, y: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """Out-of-fold P(test | x) for every row."""
    prob = np.empty(Z.shape[0])
    for f, model in enumerate(models):
        rows = folds == f
        if model is None:
            # A training fold with one class only: fall back to that fold's class share.
            prob[rows] = y[folds != f].mean()
        else:
            prob[rows] = model.predict_proba(Z[rows])[:, 1]
    return np.clip(prob, _EPS, 1.0 - _EPS)


def oof_probabilities(Z: np.ndarray, y: np.ndarray, folds: np.ndarray, *, C: float = 1.0):
    """``(prob, models)``: cross-fitted P(test | x) and the fold models."""
    models = fit_folds(Z, y, folds, C=C)
    return predict_folds(models, Z, y, folds), models


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for ``y == 1`` against ``y == 0`` (ties count 1/2)."""
    y = np.asarray(y, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("auc needs rows of both classes")
    from scipy.stats import rankdata  # only a covariate-shift check pays scipy.stats' import time

    ranks = rankdata(score)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))
