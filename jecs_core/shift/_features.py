"""Covariate matrices: validation, the classifier's design, and simple text features.

Everything here looks only at covariates (and texts), never at scores or labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_score_matrix

TEXT_FEATURES = ("t_words", "t_chars", "t_digit_share", "t_upper_share", "t_punct_share", "t_mean_word_length")
_PUNCT = re.compile(r"[^\w\s]")


def as_covariates(values, name: str, *, rows: int | None = None) -> np.ndarray:
    """Return ``values`` as a finite (rows, d) float array; 1-D is one covariate."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a 1-D or 2-D array with at least one column, got shape {arr.shape}")
    if rows is not None and arr.shape[0] != rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows but the matching scores have {rows}")
    if not np.all(np.isfinite(arr)):
        row, col = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} must be finite; found {arr[row, col]!r} at row {row}, column {col}")
    return arr


def as_scores(values, name: str) -> np.ndarray:
    """Return ``values`` as a finite (rows, K) float array; 1-D is one model."""
    return check_score_matrix(values, name)


def pair(test_X, cal_X) -> tuple[np.ndarray, np.ndarray]:
    """Validated (n, d) test and (m, d) calibration covariates with the same columns."""
    test = as_covariates(test_X, "test_X")
    cal = as_covariates(cal_X, "cal_X")
    if test.shape[1] != cal.shape[1]:
        raise ValueError(f"test_X has {test.shape[1]} covariate column(s) but cal_X has {cal.shape[1]}")
    return test, cal


def feature_names(names, d: int, prefix: str = "x") -> tuple[str, ...]:
    """``names`` checked against d columns, or ``x0, x1, ...``."""
    if names is None:
        return tuple(f"{prefix}{j}" for j in range(d))
    names = tuple(str(n) for n in names)
    if len(names) != d:
        raise ValueError(f"names must give one name per covariate column ({d}), got {len(names)}")
    return names


def text_features(texts: Sequence[str]) -> pd.DataFrame:
    """Simple, model-free features of each text (one row per text).

    Columns: ``t_words`` (whitespace-separated words), ``t_chars`` (characters),
    ``t_digit_share``, ``t_upper_share``, ``t_punct_share`` (shares of the
    characters), ``t_mean_word_length``.  Missing texts count as empty.
    """
    rows = []
    for text in texts:
        s = "" if text is None or (isinstance(text, float) and np.isnan(text)) else str(text)
        chars = max(len(s), 1)
        words = s.split()
        rows.append((
            len(words), len(s),
            sum(c.isdigit() for c in s) / chars,
            sum(c.isupper() for c in s) / chars,
            len(_PUNCT.findall(s)) / chars,
            float(np.mean([len(w) for w in words])) if words else 0.0,
        ))
    return pd.DataFrame(rows, columns=list(TEXT_FEATURES), dtype=float)


@dataclass(frozen=True)
class Design:
    """The classifier's features: pooled standardisation plus squares of non-binary columns.

    The squares let a linear classifier see a change of spread (a scale shift), and
    make the fitted log-odds exactly quadratic, which is the log density ratio of two
    normals.  The centring and scaling use the pooled rows, which ignores which rows
    are calibration and which are test, so permuting those labels does not change it.
    """

    mean: np.ndarray
    scale: np.ndarray
    squared: np.ndarray  # bool per column

    @classmethod
    def fit(cls, pooled: np.ndarray) -> Design:
        mean = pooled.mean(axis=0)
        scale = pooled.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        squared = np.array([np.unique(col).size > 2 for col in pooled.T])
        return cls(mean=mean, scale=scale, squared=squared)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        z = (X - self.mean) / self.scale
        return np.hstack([z, z[:, self.squared] ** 2])
