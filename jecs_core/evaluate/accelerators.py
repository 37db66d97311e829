"""Optional batched accelerators, keyed by rule name, in this one place.

The evaluator runs every registered rule through the generic per-repetition
path (:mod:`jecs_core.evaluate.generic`).  A rule listed in :data:`ACCELERATORS`
is run instead by a batched kernel that works on the integer conformal counts
of a whole chunk of repetitions at once (see :mod:`.kernels`).  Each kernel
must give bit-identical numbers to the generic path; a test in
``tests/core/evaluate`` iterates this dict and checks exactly that, so a kernel that
drifts from its registry entry fails the suite.  A new rule needs no entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from types import MappingProxyType

import numpy as np

from ..envelope import DEFAULT_LAMBDA_GRID
from .draws import Draws
from .kernels import (
    MaxPOrder,
    Prepared,
    conformal_counts,
    fit_jecs_batch,
    max_p_order,
    metrics_from_rstar,
    per_model_selections,
    step_numerators,
    step_thresholds,
    step_up,
    storey_pi0_batch,
)
from .outcome import Outcome


class Batch:
    """One chunk of repetitions: the counts and the shared sorted orders, each computed on first use."""

    def __init__(self, prep: Prepared, draws: Draws, alphas: np.ndarray):
        self.prep, self.draws, self.alphas = prep, draws, alphas
        self.m_drawn, self.n_drawn = draws.calibration.shape[1], draws.test.shape[1]
        self.contaminated = prep.contaminated[draws.test]
        self.numerators = step_numerators(alphas, self.n_drawn)
        # BH (pi0 = 1), as storey_bh computes it: alpha r / (1.0 n).
        self.bh = step_thresholds(self.numerators, 1.0 * self.n_drawn)

    @cached_property
    def counts(self) -> np.ndarray:
        return conformal_counts(self.prep, self.draws.calibration, self.draws.test)

    @cached_property
    def order(self) -> MaxPOrder:
        return max_p_order(self.counts, self.contaminated, self.m_drawn)

    @cached_property
    def per_model(self) -> tuple[np.ndarray, np.ndarray]:
        """Union and intersection masks, (R, A, n) each (computed together)."""
        return per_model_selections(self.counts, self.bh, self.m_drawn)


def _from_rstar(batch: Batch, r_star: np.ndarray, **fit) -> Outcome:
    gcp, power = metrics_from_rstar(r_star, batch.order)
    return Outcome(gcp.T, power.T, r_star.T, **fit)


def _from_masks(batch: Batch, chosen: np.ndarray) -> Outcome:
    """Selection size, GCP and power of (R, A, n) masks, counted as metrics.gcp / metrics.power count them."""
    size = chosen.sum(axis=2)
    hits = (chosen & batch.contaminated[:, None, :]).sum(axis=2)
    n_pure = batch.n_drawn - batch.contaminated.sum(axis=1)
    gcp = hits / np.maximum(1, size)
    power = (size - hits) / np.maximum(1, n_pure)[:, None]
    return Outcome(gcp.T, power.T, size.T)


def _paper_jecs(batch: Batch, options: Mapping) -> Outcome:
    fit = fit_jecs_batch(batch.order.sorted_p, lam=options.get("lam", "auto"), knn=options.get("knn"),
                         lambda_grid=options.get("lambda_grid", DEFAULT_LAMBDA_GRID))
    r_star = step_up(fit.sorted_p_tilde, step_thresholds(batch.numerators, fit.pi0_hat * batch.n_drawn))
    return _from_rstar(batch, r_star, fit_lambda=fit.lam, fit_pi0=fit.pi0_hat)


def _storey_maxp(batch: Batch, options: Mapping) -> Outcome:
    from ..rules.options import STOREY_LAM
    from ..rules.storey_maxp import cap_correction, cap_level

    lam, n = STOREY_LAM.validate(options.get("storey_lam")), batch.n_drawn
    sorted_p = batch.order.sorted_p
    pi0 = storey_pi0_batch(sorted_p, lam=lam, cap=1.0 / cap_level(n, lam), correction=cap_correction(n, lam))
    r_star = step_up(sorted_p, step_thresholds(batch.numerators, pi0 * n))
    # The rule selects nothing at an alpha below the smallest max-p (see its module docstring).
    r_star[sorted_p[:, :1] > batch.alphas[None, :]] = 0
    return _from_rstar(batch, r_star, fit_lambda=np.full(pi0.shape, lam), fit_pi0=pi0)


def _jmcs(batch: Batch, options: Mapping) -> Outcome:
    return _from_rstar(batch, step_up(batch.order.sorted_p, batch.bh))


def _union(batch: Batch, options: Mapping) -> Outcome:
    return _from_masks(batch, batch.per_model[0])


def _intersection(batch: Batch, options: Mapping) -> Outcome:
    return _from_masks(batch, batch.per_model[1])


Accelerator = Callable[[Batch, Mapping], Outcome]

# Rule name -> batched kernel.  Optional: a rule missing here runs through the generic path.
ACCELERATORS: Mapping[str, Accelerator] = MappingProxyType({
    "jecs": _paper_jecs,
    "jmcs": _jmcs,
    "storey-maxp": _storey_maxp,
    "union": _union,
    "intersection": _intersection,
})
