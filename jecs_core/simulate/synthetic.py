"""The paper's synthetic setup (appendix "Synthetic setup for naive composition failure").

A pool of items, a share of which forms the calibration set (members of every
model); each test item is a member of model k with probability
``contamination`` independently; scores are ``T = mu * M + N(0, 1)``,
independent across models.  With the defaults (1200 items, K = 4, 30%
calibration, contamination 0.3, mu = 4) this is the paper's table 1 setup.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _check(value, name, low, high, *, low_open=False, high_open=False):
    ok_low = value > low if low_open else value >= low
    ok_high = value < high if high_open else value <= high
    if not (ok_low and ok_high):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {lo}{low}, {high}{hi}, got {value!r}")


def wide_table(cal_scores: np.ndarray, test_scores: np.ndarray, test_members: np.ndarray, models=None) -> pd.DataFrame:
    """Assemble calibration and test matrices into a labelled wide table of the data contract."""
    m, n_models = cal_scores.shape
    n = test_scores.shape[0]
    models = list(models) if models is not None else [f"m{k}" for k in range(n_models)]
    scores = np.vstack([cal_scores, test_scores])
    members = np.vstack([np.ones((m, n_models), dtype=np.int8), test_members.astype(np.int8)])
    # Every column in one construction: adding thousands of models one column at a time fragments the frame.
    columns = {
        "item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
        "split": ["calibration"] * m + ["test"] * n,
        **{f"score_{name}": scores[:, k] for k, name in enumerate(models)},
        **{f"member_{name}": members[:, k] for k, name in enumerate(models)},
    }
    return pd.DataFrame(columns)


def paper_synthetic(
    rng: np.random.Generator,
    *,
    pool_size: int = 1200,
    n_models: int = 4,
    calibration_fraction: float = 0.3,
    contamination: float = 0.3,
    mu: float = 4.0,
) -> pd.DataFrame:
    """A labelled wide score table of the paper's synthetic setup.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (the table is a pure function of its state).
    pool_size : int
        Number of items (calibration + test).
    n_models : int
        Number of audited models K.
    calibration_fraction : float
        Share of the pool used as calibration (members of every model).
    contamination : float
        Probability that a test item is a member of a given model.
    mu : float
        Member score shift: members ~ N(mu, 1), non-members ~ N(0, 1).
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if int(pool_size) != pool_size or pool_size < 2:
        raise ValueError(f"pool_size must be an integer >= 2, got {pool_size!r}")
    if int(n_models) != n_models or n_models < 1:
        raise ValueError(f"n_models must be an integer >= 1, got {n_models!r}")
    _check(calibration_fraction, "calibration_fraction", 0, 1, low_open=True, high_open=True)
    _check(contamination, "contamination", 0, 1)
    if not np.isfinite(mu):
        raise ValueError(f"mu must be finite, got {mu!r}")
    m = int(round(calibration_fraction * pool_size))
    m = min(max(m, 1), pool_size - 1)
    n = pool_size - m
    cal = mu + rng.standard_normal((m, n_models))
    members = (rng.random((n, n_models)) < contamination).astype(np.int8)
    test = mu * members + rng.standard_normal((n, n_models))
    return wide_table(cal, test, members)
