"""Numbers behind the Learn page ("the super-uniformity tax").

Pure numpy functions; the figures in :mod:`dashboard.figures.lesson` draw them and
the Learn page arranges them.  The closed forms follow the paper's convexity
argument: for a contaminated item held by ``c`` models whose null p-values are
joined by the copula ``eta * comonotone + (1 - eta) * independent``, the max of
those p-values has CDF ``F0(x) = eta x + (1 - eta) x^c``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from jecs_core import compare_pvalues, conformal_pvalues, fit_envelope
from jecs_core.simulate.scenarios import copula_mixture


def maxp_null_cdf(x, *, eta: float, c: int) -> np.ndarray:
    """``F0(x) = eta x + (1 - eta) x^c``."""
    x = np.asarray(x, dtype=float)
    return eta * x + (1.0 - eta) * x**c


def maxp_null_density(x, *, eta: float, c: int) -> np.ndarray:
    """``f0(x) = eta + (1 - eta) c x^(c - 1)``, the derivative of :func:`maxp_null_cdf`."""
    x = np.asarray(x, dtype=float)
    return eta + (1.0 - eta) * c * x ** (c - 1)


def _check(n_models: int, eta: float, exposure: int) -> None:
    if int(n_models) < 1:
        raise ValueError(f"n_models must be >= 1, got {n_models}")
    if not 0.0 <= eta <= 1.0:
        raise ValueError(f"eta must be in [0, 1], got {eta}")
    if not 1 <= int(exposure) <= int(n_models):
        raise ValueError(f"exposure must be in [1, n_models={n_models}], got {exposure}")


def simulate_null_maxp(rng: np.random.Generator, *, n_items: int, n_models: int, eta: float, exposure: int,
                       mu: float = 4.0) -> np.ndarray:
    """Max-p of contaminated items: ``exposure`` models hold each item, the rest do not.

    The holders' p-values are Uniform(0, 1) joined by the copula mixture; a
    non-holder's p-value is that of a non-member scored ``N(0, 1)`` against
    members ``N(mu, 1)`` with a large calibration set, ``Phi(Z - mu)``: small,
    so it rarely sets the maximum (the masking the paper describes).
    """
    _check(n_models, eta, exposure)
    held = rng.random((n_items, exposure))
    comonotone = rng.random(n_items) < eta
    held[comonotone] = rng.random((int(comonotone.sum()), 1))
    p_max = held.max(axis=1)
    if n_models > exposure:
        others = ndtr(rng.standard_normal((n_items, n_models - exposure)) - mu)
        p_max = np.maximum(p_max, others.max(axis=1))
    return p_max


@dataclass(frozen=True)
class DensityLesson:
    """One model's null p-value density against the max-p null density."""

    x: np.ndarray
    single_model_density: np.ndarray
    maxp_density: np.ndarray
    simulated: np.ndarray  # simulated max-p values of contaminated items
    n_models: int
    eta: float
    exposure: int
    mass_above_half: float  # P(max-p > 0.5) under F0, for the caption


def density_lesson(*, n_models: int, eta: float, exposure: int | None = None, n_sim: int = 20_000, seed: int = 0) -> DensityLesson:
    """Data for the first figure; ``exposure=None`` means every one of the K models holds the item."""
    c = n_models if exposure is None else exposure
    _check(n_models, eta, c)
    x = np.linspace(0.0, 1.0, 201)
    rng = np.random.default_rng(seed)
    return DensityLesson(
        x=x,
        single_model_density=np.ones_like(x),
        maxp_density=maxp_null_density(x, eta=eta, c=c),
        simulated=simulate_null_maxp(rng, n_items=n_sim, n_models=n_models, eta=eta, exposure=c),
        n_models=n_models,
        eta=eta,
        exposure=c,
        mass_above_half=float(1.0 - maxp_null_cdf(0.5, eta=eta, c=c)),
    )


@dataclass(frozen=True)
class CutoffLesson:
    """The BH cut-off ``alpha r / n`` against the natural max-p null scale ``(r / n)^(1/K)``."""

    fraction: np.ndarray  # r / n
    bh_cutoff: np.ndarray
    natural_scale: np.ndarray
    alpha: float
    n_models: int


def cutoff_lesson(*, n_models: int, alpha: float, points: int = 200) -> CutoffLesson:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if int(n_models) < 1:
        raise ValueError(f"n_models must be >= 1, got {n_models}")
    fraction = np.linspace(1.0 / points, 1.0, points)
    return CutoffLesson(fraction, alpha * fraction, fraction ** (1.0 / n_models), alpha, n_models)


@dataclass(frozen=True)
class EnvelopeLesson:
    """A simulated audit: the true null CDF, the mixture ECDF and the fitted envelope."""

    x: np.ndarray
    null_cdf: np.ndarray  # empirical CDF of max-p over the contaminated items (known here)
    mixture_cdf: np.ndarray  # empirical CDF of max-p over all test items
    envelope: np.ndarray  # F_fit(x)
    lam: float
    anchor: float  # F_fit(lambda)
    pi0_hat: float
    pi0_true: float
    dominates: bool  # whether F_fit >= the null CDF everywhere on the grid


def envelope_lesson(*, n_models: int, eta: float, lam: float, pool_size: int = 3000, seed: int = 0) -> EnvelopeLesson:
    rng = np.random.default_rng(seed)
    frame = copula_mixture(rng, pool_size=pool_size, n_models=n_models, eta=eta)
    scores = frame.filter(like="score_").to_numpy()
    is_cal = (frame["split"] == "calibration").to_numpy()
    contaminated = frame.loc[~is_cal].filter(like="member_").to_numpy().any(axis=1)
    p_max = conformal_pvalues(scores[~is_cal], scores[is_cal]).max(axis=1)
    env = fit_envelope(p_max, lam)
    x = np.linspace(0.0, 1.0, 401)
    null_sorted = np.sort(p_max[contaminated])
    null_cdf = np.searchsorted(null_sorted, x, side="right") / max(1, null_sorted.size)
    mixture_cdf = np.searchsorted(np.sort(p_max), x, side="right") / p_max.size
    fitted = env(x)
    return EnvelopeLesson(
        x=x,
        null_cdf=null_cdf,
        mixture_cdf=mixture_cdf,
        envelope=fitted,
        lam=lam,
        anchor=env.F_lambda,
        pi0_hat=env.pi0_hat,
        pi0_true=float(contaminated.mean()),
        dominates=bool(np.all(fitted >= null_cdf - 1e-12)),
    )


# Rules the power lesson compares: the simple valid rule, the dashboard's default, the paper's rule.
POWER_METHODS = ("jmcs", "storey-maxp", "jecs")


@dataclass(frozen=True)
class PowerLesson:
    """Mean GCP and power of JMCS, the default rule (Storey-BH on max-p) and the paper's JECS against K."""

    n_models: np.ndarray
    gcp: dict  # method -> array over K
    power: dict
    alpha: float
    reps: int

    def above_alpha(self, method: str) -> list[tuple[int, float]]:
        """The (K, mean GCP) pairs where ``method``'s mean GCP is above alpha, in order of K."""
        return [(int(k), float(g)) for k, g in zip(self.n_models, self.gcp[method]) if g > self.alpha]


# K values simulated by the power lesson: every K up to 4, then a coarser grid (cost grows with K).
POWER_K_GRID = (1, 2, 3, 4, 6, 8, 12, 16)


def power_lesson(*, max_models: int, eta: float, alpha: float, reps: int = 12, pool_size: int = 600,
                 pure_share: float = 0.4, seed: int = 0) -> PowerLesson:
    """Simulate the K of :data:`POWER_K_GRID` up to ``max_models`` (and ``max_models`` itself).

    The per-model contamination ``q = 1 - pure_share^(1/K)`` keeps the share of
    jointly pure test items at ``pure_share`` for every K, so the curves show
    the cost of the max-p aggregate rather than a change in prevalence.
    """
    if int(max_models) < 1:
        raise ValueError(f"max_models must be >= 1, got {max_models}")
    rng = np.random.default_rng(seed)
    ks = np.array(sorted({k for k in POWER_K_GRID if k <= int(max_models)} | {int(max_models)}))
    gcp = {m: np.zeros(ks.size) for m in POWER_METHODS}
    power = {m: np.zeros(ks.size) for m in POWER_METHODS}
    for i, k in enumerate(ks):
        for _ in range(reps):
            contamination = 1.0 - pure_share ** (1.0 / k)
            frame = copula_mixture(rng, pool_size=pool_size, n_models=int(k), eta=eta, contamination=contamination)
            scores = frame.filter(like="score_").to_numpy()
            is_cal = (frame["split"] == "calibration").to_numpy()
            contaminated = frame.loc[~is_cal].filter(like="member_").to_numpy().any(axis=1)
            out = compare_pvalues(conformal_pvalues(scores[~is_cal], scores[is_cal]), alpha=alpha, contaminated=contaminated,
                                  methods=POWER_METHODS)
            for method in gcp:
                found = out.metrics(method)
                gcp[method][i] += found.gcp / reps
                power[method][i] += found.power / reps
    return PowerLesson(ks, gcp, power, alpha, reps)
