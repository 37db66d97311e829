"""Scenarios with calibration shift: the calibration items' covariates differ from the test items'.

Each generator returns a labelled wide table of the data contract with covariate
columns ``x_<name>``: ``item_id``, ``split``, ``score_<model>``, ``member_<model>``,
``x_<name>``.  Scores are ``T_i^k = mu M_i^k + g(x_i) + e_i^k`` with i.i.d. N(0, 1)
noise and a covariate effect ``g`` shared by calibration and test items, so the member
scores' law *given the covariates* is the same in both splits (covariate shift only),
while their marginal law differs.  Membership of a test item is independent of its
covariates.  With ``shift = 0`` (``shift_none``) calibration and test covariates have
the same law, which is the control for false alarms and power cost.

The location scenario is the one measured in docs/CALIBRATION-SHIFT.md: calibration covariate N(1, 1),
test N(0, 1), ``T = 3 M + 1.5 x + e``, K = 3.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_fraction, check_positive_int, check_rng
from .synthetic import wide_table


def _check(rng, pool_size, n_models, calibration_fraction, contamination) -> tuple[int, int]:
    check_rng(rng, allow_none=False)
    pool_size = check_positive_int(pool_size, "pool_size", minimum=4)
    check_positive_int(n_models, "n_models")
    calibration_fraction = check_fraction(calibration_fraction, "calibration_fraction", include_zero=False, include_one=False)
    check_fraction(contamination, "contamination")
    m = min(max(int(round(calibration_fraction * pool_size)), 2), pool_size - 2)
    return m, pool_size - m


def _table(rng, cal_x: dict, test_x: dict, effect, *, n_models, contamination, mu) -> pd.DataFrame:
    """Scores ``mu M + effect(x) + N(0, 1)`` for all-member calibration and Bernoulli test labels."""
    m, n = len(next(iter(cal_x.values()))), len(next(iter(test_x.values())))
    members = (rng.random((n, n_models)) < contamination).astype(np.int8)
    cal = mu + effect(cal_x)[:, None] + rng.standard_normal((m, n_models))
    test = mu * members + effect(test_x)[:, None] + rng.standard_normal((n, n_models))
    frame = wide_table(cal, test, members)
    for name in cal_x:
        frame[f"x_{name}"] = np.r_[cal_x[name], test_x[name]]
    return frame


def location_shift(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 3,
                   calibration_fraction: float = 0.3, contamination: float = 0.3, mu: float = 3.0,
                   beta: float = 1.5, shift: float = 1.0) -> pd.DataFrame:
    """Calibration covariate ``x_len ~ N(shift, 1)``, test ``N(0, 1)``; ``T = mu M + beta x_len + e``.

    With the defaults (the location scenario of docs/CALIBRATION-SHIFT.md) the calibration members score higher than
    the test members, so plain conformal p-values of test members are too small.
    """
    m, n = _check(rng, pool_size, n_models, calibration_fraction, contamination)
    cal_x = {"len": shift + rng.standard_normal(m)}
    test_x = {"len": rng.standard_normal(n)}
    return _table(rng, cal_x, test_x, lambda x: beta * x["len"], n_models=n_models, contamination=contamination, mu=mu)


def scale_shift(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 3,
                calibration_fraction: float = 0.3, contamination: float = 0.3, mu: float = 3.0,
                beta: float = 1.5, cal_sd: float = 0.5) -> pd.DataFrame:
    """Calibration covariate ``x_len ~ N(0, cal_sd^2)``, test ``N(0, 1)``; ``T = mu M + beta x_len + e``.

    A narrow calibration set (``cal_sd < 1``) puts test members with small covariates
    below every calibration score.
    """
    if not cal_sd > 0:
        raise ValueError(f"cal_sd must be > 0, got {cal_sd!r}")
    m, n = _check(rng, pool_size, n_models, calibration_fraction, contamination)
    cal_x = {"len": cal_sd * rng.standard_normal(m)}
    test_x = {"len": rng.standard_normal(n)}
    return _table(rng, cal_x, test_x, lambda x: beta * x["len"], n_models=n_models, contamination=contamination, mu=mu)


def mixture_shift(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 3,
                  calibration_fraction: float = 0.3, contamination: float = 0.3, mu: float = 3.0,
                  beta: float = 1.0, source_effect: float = 2.0, cal_source_share: float = 0.9,
                  test_source_share: float = 0.5) -> pd.DataFrame:
    """Two sources: ``x_src`` in {0, 1} and ``x_len ~ N(0, 1)``; ``T = mu M + beta x_len + source_effect x_src + e``.

    The calibration set is ``cal_source_share`` source 1 (e.g. one site or year), the
    benchmark ``test_source_share``; source-0 test members then look less member-like.
    """
    check_fraction(cal_source_share, "cal_source_share")
    check_fraction(test_source_share, "test_source_share")
    m, n = _check(rng, pool_size, n_models, calibration_fraction, contamination)
    cal_x = {"src": (rng.random(m) < cal_source_share).astype(float), "len": rng.standard_normal(m)}
    test_x = {"src": (rng.random(n) < test_source_share).astype(float), "len": rng.standard_normal(n)}
    effect = lambda x: beta * x["len"] + source_effect * x["src"]
    return _table(rng, cal_x, test_x, effect, n_models=n_models, contamination=contamination, mu=mu)


def curved_shift(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 3,
                 calibration_fraction: float = 0.3, contamination: float = 0.3, mu: float = 3.0,
                 gamma: float = -0.5, shift: float = 1.0) -> pd.DataFrame:
    """The location shift with a curved covariate effect: ``T = mu M + gamma x_len^2 + e``.

    A linear location model fitted on the calibration set (centred at ``shift``) and
    extrapolated to the test items (centred at 0) overstates the test members' location
    when ``gamma < 0``: the residual method's model is wrong here, on purpose.
    """
    m, n = _check(rng, pool_size, n_models, calibration_fraction, contamination)
    cal_x = {"len": shift + rng.standard_normal(m)}
    test_x = {"len": rng.standard_normal(n)}
    return _table(rng, cal_x, test_x, lambda x: gamma * x["len"] ** 2, n_models=n_models, contamination=contamination, mu=mu)


def no_shift(rng: np.random.Generator, **params) -> pd.DataFrame:
    """The location scenario with ``shift = 0``: covariates with the same law in both splits."""
    return location_shift(rng, **{**params, "shift": 0.0})


SHIFT_SCENARIOS = {
    "shift_location": ("Calibration covariate N(1, 1), test N(0, 1); scores 3 M + 1.5 x_len + noise, K = 3.",
                       location_shift),
    "shift_scale": ("Calibration covariate N(0, 0.5^2), test N(0, 1); scores 3 M + 1.5 x_len + noise, K = 3.",
                    scale_shift),
    "shift_mixture": ("Two sources: calibration 90% source 1, test 50%; scores 3 M + x_len + 2 x_src + noise, K = 3.",
                      mixture_shift),
    "shift_curved": ("Calibration covariate N(1, 1), test N(0, 1); scores 3 M - 0.5 x_len^2 + noise, K = 3 "
                     "(a linear location model is wrong here).", curved_shift),
    "shift_none": ("Control: covariate N(0, 1) in both splits; scores 3 M + 1.5 x_len + noise, K = 3.", no_shift),
}
