"""Simulation scenarios: labelled wide score tables for the Monte-Carlo evaluator.

Every generator takes a :class:`numpy.random.Generator` first and keyword-only
parameters, and returns a wide table of the data contract (``item_id``,
``split``, ``score_<model>``, ``member_<model>``).  Scores follow
``T_i^k = mu_k M_i^k + e_i^k`` with standard-normal marginal noise ``e``; the
scenarios differ in who is a member of what and in how ``e`` depends across
models.  Calibration items are members of every model and get the same noise
model as the test items, so each model's conformal p-values stay valid.

The catalogue of named scenarios (:data:`jecs_core.simulate.catalog.SCENARIOS`)
lists them for the dashboard and the evaluator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtri

from .._validation import check_fraction, check_positive_int, check_rng
from .split import DEFAULT_CALIBRATION_FRACTION, DEFAULT_CLEAN_FRACTION, DEFAULT_RHO, three_block_split
from .synthetic import wide_table

Noise = Callable[[np.random.Generator, tuple[int, int]], np.ndarray]


# --------------------------------------------------------------------------- checks

def _check_rng(rng) -> None:
    check_rng(rng, allow_none=False)


def _check_unit(value, name: str) -> float:
    return check_fraction(value, name)


def _check_count(value, name: str, minimum: int) -> int:
    return check_positive_int(value, name, minimum=minimum)


def model_mus(mu, n_models: int) -> np.ndarray:
    """Per-model signal ``mu_k``: a scalar repeated K times, or a length-K sequence."""
    mus = np.broadcast_to(np.asarray(mu, dtype=float), (n_models,)) if np.ndim(mu) == 0 else np.asarray(mu, dtype=float)
    if mus.shape != (n_models,):
        raise ValueError(f"mu must be a number or {n_models} numbers (one per model), got {len(mus)}")
    if not np.all(np.isfinite(mus)):
        raise ValueError(f"mu must be finite, got {mu!r}")
    return np.array(mus)


def _calibration_size(pool_size: int, calibration_fraction: float) -> int:
    # Same rounding as paper_synthetic, so the default pools have the same sizes.
    if not 0.0 < calibration_fraction < 1.0:
        raise ValueError(f"calibration_fraction must be in (0, 1), got {calibration_fraction!r}")
    return min(max(int(round(calibration_fraction * pool_size)), 1), pool_size - 1)


# --------------------------------------------------------------------------- noise models

def independent_noise(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """i.i.d. N(0, 1) noise, independent across models (the paper's setup)."""
    return rng.standard_normal(shape)


def latent_noise(correlation: float) -> Noise:
    """Noise with a shared per-item latent: ``sqrt(r) Z_i + sqrt(1 - r) e_ik``.

    Marginals stay N(0, 1); any two models' noises have correlation ``r``.
    """
    r = _check_unit(correlation, "correlation")

    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        shared = rng.standard_normal((shape[0], 1))
        return np.sqrt(r) * shared + np.sqrt(1.0 - r) * rng.standard_normal(shape)

    return draw


def copula_noise(eta: float) -> Noise:
    """Noise whose copula is ``eta * comonotone + (1 - eta) * independent``.

    Each item is, with probability ``eta``, perfectly dependent across models
    (one uniform ``U_i`` shared by all), otherwise independent; the uniforms are
    mapped to N(0, 1) by the normal quantile.  For an item that is a member of
    ``c`` models, the max of those models' null p-values then has CDF
    ``eta x + (1 - eta) x^c`` (paper, convexity justification of the null CDF).
    """
    eta = _check_unit(eta, "eta")

    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        n, k = shape
        comonotone = rng.random(n) < eta
        uniforms = rng.random(shape)
        uniforms[comonotone] = rng.random((int(comonotone.sum()), 1))
        # rng.random is in [0, 1); the half-step keeps it off 0 so ndtri stays finite.
        return ndtri(uniforms + 2.0 ** -54)

    return draw


def score_table(rng: np.random.Generator, test_members: np.ndarray, *, calibration_size: int,
                mu=4.0, noise: Noise = independent_noise, models=None) -> pd.DataFrame:
    """Scores ``mu_k M + noise`` for calibration (all members) and test items, as a wide table.

    Parameters
    ----------
    rng : numpy.random.Generator
    test_members : array of 0/1, shape (n, K)
        Membership labels of the test items.
    calibration_size : int
        Number of calibration items (members of every model).
    mu : float or sequence of K floats
        Member score shift per model.
    noise : callable
        ``noise(rng, shape)`` returning standard-normal-marginal noise.
    models : sequence of str, optional
        Model names (default ``m0, m1, ...``).
    """
    members = np.asarray(test_members, dtype=np.int8)
    n_models = members.shape[1]
    mus = model_mus(mu, n_models)
    cal = mus + noise(rng, (calibration_size, n_models))
    test = mus * members + noise(rng, members.shape)
    return wide_table(cal, test, members, models=models)


# --------------------------------------------------------------------------- scenarios

def shared_latent(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 4,
                  calibration_fraction: float = 0.3, contamination: float = 0.3, mu=4.0,
                  correlation: float = 0.5) -> pd.DataFrame:
    """The paper's synthetic setup with noise correlated across models.

    Parameters
    ----------
    rng : numpy.random.Generator
    pool_size, n_models, calibration_fraction, contamination, mu
        As in :func:`sample_data.paper_synthetic` (``mu`` may be one per model).
    correlation : float
        Correlation ``r`` in [0, 1] of the noise of any two models (see :func:`latent_noise`).
    """
    _check_rng(rng)
    n_models = _check_count(n_models, "n_models", 1)
    m = _calibration_size(_check_count(pool_size, "pool_size", 2), calibration_fraction)
    contamination = _check_unit(contamination, "contamination")
    noise = latent_noise(correlation)
    members = (rng.random((pool_size - m, n_models)) < contamination).astype(np.int8)
    return score_table(rng, members, calibration_size=m, mu=mu, noise=noise)


def copula_mixture(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 4,
                   calibration_fraction: float = 0.3, contamination: float = 0.3, mu=4.0,
                   eta: float = 0.5) -> pd.DataFrame:
    """The paper's synthetic setup with the ``eta`` comonotone/independent copula mixture.

    Parameters
    ----------
    rng : numpy.random.Generator
    pool_size, n_models, calibration_fraction, contamination, mu
        As in :func:`sample_data.paper_synthetic`.
    eta : float
        Weight in [0, 1] of the comonotone copula (see :func:`copula_noise`).
    """
    _check_rng(rng)
    n_models = _check_count(n_models, "n_models", 1)
    m = _calibration_size(_check_count(pool_size, "pool_size", 2), calibration_fraction)
    contamination = _check_unit(contamination, "contamination")
    noise = copula_noise(eta)
    members = (rng.random((pool_size - m, n_models)) < contamination).astype(np.int8)
    return score_table(rng, members, calibration_size=m, mu=mu, noise=noise)


def exposure_members(rng: np.random.Generator, n_items: int, n_models: int, *,
                     pure_fraction: float, exposure_weights: Sequence[float] | None = None) -> np.ndarray:
    """Membership labels with a chosen distribution of the exposure count ``c``.

    Each item is jointly pure with probability ``pure_fraction``; otherwise it
    is in the training data of ``c ~ exposure_weights`` (over c = 1..K, uniform
    by default) models chosen uniformly at random.
    """
    pure_fraction = _check_unit(pure_fraction, "pure_fraction")
    weights = np.ones(n_models) if exposure_weights is None else np.asarray(exposure_weights, dtype=float)
    if weights.shape != (n_models,) or np.any(weights < 0) or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ValueError(
            f"exposure_weights must be {n_models} non-negative numbers (weights of c = 1..{n_models}) with a positive sum"
        )
    exposure = rng.choice(np.arange(1, n_models + 1), size=n_items, p=weights / weights.sum())
    exposure[rng.random(n_items) < pure_fraction] = 0
    # A random ranking of the models per item; the c lowest-ranked ones hold it.
    ranks = np.argsort(rng.random((n_items, n_models)), axis=1).argsort(axis=1)
    return (ranks < exposure[:, None]).astype(np.int8)


def heterogeneous_exposure(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 4,
                           calibration_fraction: float = 0.3, pure_fraction: float = 0.24,
                           exposure_weights: Sequence[float] | None = None, mu=4.0) -> pd.DataFrame:
    """Some items are in many models' training data, some in one.

    Parameters
    ----------
    rng : numpy.random.Generator
    pool_size, n_models, calibration_fraction, mu
        As in :func:`sample_data.paper_synthetic`.
    pure_fraction : float
        Share of jointly pure test items (default 0.24, the paper setup's ``0.7^4``).
    exposure_weights : sequence of K floats, optional
        Relative frequency of exposure counts ``c = 1..K`` among contaminated
        items (uniform by default).
    """
    _check_rng(rng)
    n_models = _check_count(n_models, "n_models", 1)
    m = _calibration_size(_check_count(pool_size, "pool_size", 2), calibration_fraction)
    members = exposure_members(rng, pool_size - m, n_models, pure_fraction=pure_fraction, exposure_weights=exposure_weights)
    return score_table(rng, members, calibration_size=m, mu=mu)


def heterogeneous_strength(rng: np.random.Generator, *, pool_size: int = 1200, n_models: int = 4,
                           calibration_fraction: float = 0.3, contamination: float = 0.3,
                           mus: Sequence[float] | None = None) -> pd.DataFrame:
    """Models of different detection strength: a separate ``mu_k`` per model.

    Parameters
    ----------
    rng : numpy.random.Generator
    pool_size, n_models, calibration_fraction, contamination
        As in :func:`sample_data.paper_synthetic`.
    mus : sequence of K floats, optional
        Member score shift of each model; default evenly spaced from 1.5 to 4.
    """
    _check_rng(rng)
    n_models = _check_count(n_models, "n_models", 1)
    m = _calibration_size(_check_count(pool_size, "pool_size", 2), calibration_fraction)
    contamination = _check_unit(contamination, "contamination")
    mu = np.linspace(1.5, 4.0, n_models) if mus is None else mus
    members = (rng.random((pool_size - m, n_models)) < contamination).astype(np.int8)
    return score_table(rng, members, calibration_size=m, mu=mu)


def three_block(rng: np.random.Generator, *, pool_size: int = 789, n_models: int = 16,
                clean_fraction: float = DEFAULT_CLEAN_FRACTION,
                calibration_fraction: float = DEFAULT_CALIBRATION_FRACTION,
                rho: float = DEFAULT_RHO, mu=4.0, correlation: float = 0.0) -> pd.DataFrame:
    """A synthetic pool run through the paper's three-block split (see :mod:`jecs_core.simulate.split`).

    Defaults mirror the paper's real audits (789 items as in WikiMIA: 553 test,
    236 calibration; K = 16, ``a = b = 0.3``, ``rho = 0.125``) with the synthetic
    setup's signal ``mu = 4`` (with K = 16, a weaker signal such as ``mu = 2``
    leaves both valid methods selecting nothing at alpha = 0.1).

    Parameters
    ----------
    rng : numpy.random.Generator
    pool_size, n_models : int
    clean_fraction, calibration_fraction, rho : float
        The split's ``a``, ``b`` and per-model training fraction of the remainder.
    mu : float or sequence of K floats
        Member score shift per model.
    correlation : float
        Noise correlation across models (see :func:`latent_noise`).
    """
    _check_rng(rng)
    n_models = _check_count(n_models, "n_models", 1)
    pool_size = _check_count(pool_size, "pool_size", 2)
    mus = model_mus(mu, n_models)
    noise = latent_noise(correlation)

    def simulate(members: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        return mus * members + noise(gen, members.shape)

    return three_block_split(
        [f"i{i}" for i in range(pool_size)], models=n_models, rng=rng, clean_fraction=clean_fraction,
        calibration_fraction=calibration_fraction, rho=rho, scores=simulate,
    )
