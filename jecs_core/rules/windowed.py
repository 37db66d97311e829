"""Windowed JECS: a JECS-style selection with a finite-sample GCR guarantee.

The paper's JECS, at a fixed lambda, is BH on the max-p values ``p*`` below
lambda with the cut-off ``alpha r / D`` where ``D = n F_fit(lam) / (lam (1 -
F_fit(lam))) pi0_hat`` works out to an estimate of the *count density* of
``p*`` just above lambda (k_n points in ``Y_(k) - lam``).  Its finite-sample
failure comes from the data-driven lambda (the smallest of several noisy
anchors) and the cap of ``pi0_hat`` at 1.  This rule keeps the envelope's
structure and replaces the anchor by an estimate whose *inverse* is unbiased
or conservative in finite samples, which is what the Storey-type proof needs:

* lambda is fixed (default 0.5); the tail ``(lam, 1]`` is cut into two
  windows ``(lam, e]`` and ``(e, 1]`` with ``e = (lam + 1) / 2``;
* each window gives ``X_j = (width_j) / (1 + #{p* in window j})``, Storey's
  "+1" estimator of the inverse count density in that window; the width of the
  lower window is reduced by ``delta``, the spacing of the p-value lattice
  (``1 / (m + 1)`` for conformal p-values), estimated as the smallest gap
  between distinct tail values, so discreteness cannot make it liberal;
* ``V = (X_1 + X_2) / 2`` and the selection is the step-up
  ``r* = max{r : p*_(r) <= min(lam, alpha r V)}``, keeping ``p* <= p*_(r*)``.

Guarantee (``docs/GUARANTEES.md``): if the test items are independent draws,
each null (contaminated) item's ``p*`` has a convex CDF ``F0`` (the paper's
Assumption 1, on the lattice's linear interpolation for discrete p-values),
then ``GCR <= alpha`` for every n.  Convexity gives ``F0(t) <= t F0(lam)/lam``
below lambda and a null mass of at least ``(F0(lam)/lam) * width`` in each
window; leave-one-out and ``E[1/(1+Binomial)] <= 1/(n q)`` finish the proof.
No distinguishability assumption (the paper's Assumption 2) is needed.

For the dashboard the result is also expressed on JECS's scale: the anchor
``F(lam) = lam D / (N + 1 + lam D)`` with ``D = 1 / V``, the transform
``p~ = (F(lam) / lam) p*`` below lambda, ``pi0_hat = (N + 1 + lam D) / n``
(not capped) and the threshold on ``p~``.

Example
-------
>>> import numpy as np
>>> from jecs_core.rules.windowed import fit_windowed
>>> rng = np.random.default_rng(0)
>>> p = np.concatenate([rng.uniform(0, 0.01, (60, 3)), rng.uniform(0, 1, (140, 3))])
>>> fit = fit_windowed(p)              # alpha-free: windows, V, anchor
>>> result = fit.select(0.1)
>>> result.n_selected, int(result.selected[:60].sum())
(60, 60)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._shared_max_p import sorted_max_p
from .._validation import check_alpha, check_fixed_lam, check_lam
from ..multitest import step_up_mask
from ..results import FitRow, SelectionResult, StepUpLine
from .options import Option
from .registry import Guarantee, Rule

DEFAULT_LAMBDA = 0.5


def _check_lam(lam) -> float:
    return check_fixed_lam(lam, DEFAULT_LAMBDA)


def lattice_step(tail: np.ndarray) -> float:
    """Smallest positive gap between distinct values of ``tail`` (sorted ascending).

    For p-values on a lattice ``{j / M}`` every such gap is a multiple of ``1/M``,
    so the result is never below the lattice spacing; for continuous p-values it
    is close to 0.  With fewer than two distinct values nothing is known, and
    ``inf`` is returned (the lower window then contributes 0, which is safe).
    """
    gaps = np.diff(tail)
    gaps = gaps[gaps > 0]
    return float(gaps.min()) if gaps.size else float("inf")


def window_inverse_density(sorted_pmax: np.ndarray, lam: float) -> tuple[float, dict]:
    """``V``, the conservative inverse count density of the tail, and its parts."""
    edge = 0.5 * (lam + 1.0)
    n = sorted_pmax.shape[0]
    start = int(np.searchsorted(sorted_pmax, lam, side="right"))
    split = int(np.searchsorted(sorted_pmax, edge, side="right"))
    tail = sorted_pmax[start:]
    delta = lattice_step(tail)
    n_low, n_high = split - start, n - split
    width_low = max(edge - lam - delta, 0.0)
    x_low = width_low / (1.0 + n_low)
    x_high = (1.0 - edge) / (1.0 + n_high)
    v = 0.5 * (x_low + x_high)
    parts = {"edge": edge, "m_tail": n - start, "n_low": n_low, "n_high": n_high,
             "lattice_step": delta, "x_low": x_low, "x_high": x_high}
    return v, parts


@dataclass(frozen=True)
class WindowedResult(SelectionResult):
    """The selection at one alpha, with what the dashboard draws."""

    alpha: float
    fit: WindowedFit
    r_star: int
    selected: np.ndarray
    fits_lambda: ClassVar[bool] = True

    @property
    def n_selected(self) -> int:
        return int(self.selected.sum())

    @property
    def threshold_pmax(self) -> float:
        """Cut-off on the max-p scale, ``min(lam, alpha r* V)`` (0 when nothing is selected)."""
        return 0.0 if self.r_star == 0 else min(self.fit.lam, self.alpha * self.r_star * self.fit.v)

    @property
    def threshold(self) -> float:
        """Cut-off on the transformed scale ``p~``, ``alpha r* / (pi0_hat n)`` capped at ``F(lam)``."""
        return self.fit.slope * self.threshold_pmax

    p_max = property(lambda self: self.fit.p_max)
    p_tilde = property(lambda self: self.fit.p_tilde)

    def item_columns(self) -> dict[str, np.ndarray]:
        return {"p_tilde": self.p_tilde}
    lam = property(lambda self: self.fit.lam)
    anchor = property(lambda self: self.fit.anchor)
    pi0_hat = property(lambda self: self.fit.pi0_hat)

    def envelope_at(self, x) -> np.ndarray:
        return self.fit.envelope_at(x)

    def step_up_line(self) -> StepUpLine:
        """Storey-BH on the transformed values ``p_tilde``."""
        return StepUpLine("p_tilde", self.p_tilde, self.r_star, self.threshold, self.pi0_hat)

    def fit_summary(self) -> tuple[FitRow, ...]:
        """lambda (fixed in advance), pi0_hat, cut-off."""
        return (FitRow("lambda", "lambda", self.lam, f"{self.lam:g} (fixed)"), *super().fit_summary())


@dataclass(frozen=True)
class WindowedFit:
    """The alpha-free part: tail windows, ``V``, anchor, transform and ``pi0_hat``.

    Attributes
    ----------
    p_max : numpy.ndarray, shape (n,)
    sorted_p_max : numpy.ndarray
    lam : float
        Fixed tail threshold; nothing above it is ever selected.
    v : float
        Inverse count-density estimate; the step-up cut-offs are ``alpha r v``.
    parts : dict
        Window edge, tail size ``m_tail``, window counts, lattice step, ``x_low``, ``x_high``.
    """

    p_max: np.ndarray
    sorted_p_max: np.ndarray
    lam: float
    v: float
    parts: dict

    @property
    def density(self) -> float:
        """``D = 1 / v``: the count density of p* above lambda the rule assumes at most."""
        return 1.0 / self.v if self.v > 0 else float("inf")

    @property
    def anchor(self) -> float:
        """JECS-scale anchor ``F(lam) = lam D / (N + 1 + lam D)`` (an envelope value at lambda)."""
        if self.v <= 0:
            return 1.0
        return self.lam / (self.v * (self.parts["m_tail"] + 1) + self.lam)

    @property
    def slope(self) -> float:
        return self.anchor / self.lam

    @property
    def pi0_hat(self) -> float:
        """``(N + 1 + lam D) / n``: the null proportion implied on the ``p~`` scale (not capped)."""
        n = self.p_max.shape[0]
        return float("inf") if self.v <= 0 else (self.parts["m_tail"] + 1 + self.lam / self.v) / n

    @property
    def p_tilde(self) -> np.ndarray:
        return self.envelope_at(self.p_max)

    def envelope_at(self, x) -> np.ndarray:
        """Linear ``F(lam) x / lam`` below lambda; above, the empirical tail as in JECS (display only)."""
        x = np.asarray(x, dtype=float)
        tail = self.sorted_p_max[self.sorted_p_max > self.lam]
        upper = self.anchor + (1 - self.anchor) * (
            np.searchsorted(tail, x, side="right") / max(tail.size, 1))
        return np.where(x <= self.lam, self.slope * x, upper)

    def select(self, alpha: float) -> WindowedResult:
        """Step-up at ``alpha`` with cut-offs ``min(lam, alpha r v)``."""
        alpha = check_alpha(alpha)
        ordered = self.sorted_p_max
        n = ordered.shape[0]
        cuts = np.minimum(self.lam, alpha * np.arange(1, n + 1) * self.v)
        passing = np.flatnonzero(ordered <= cuts)
        r_star = int(passing[-1] + 1) if passing.size else 0
        return WindowedResult(alpha, self, r_star, step_up_mask(self.p_max, ordered, r_star))


def fit_windowed(pvalues, *, lam=DEFAULT_LAMBDA) -> WindowedFit:
    """Fit the alpha-free part of windowed JECS.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values; the rule uses their per-item maximum.
    lam : float or "auto"
        Fixed tail threshold in (0, 1); ``"auto"`` means the default 0.5
        (choosing lambda from the data would void the guarantee).
    """
    lam = _check_lam(lam)
    p_star, ordered = sorted_max_p(pvalues)
    v, parts = window_inverse_density(ordered, lam)
    return WindowedFit(p_star, ordered, lam, float(v), parts)


def windowed_jecs(pvalues, *, alpha: float, lam=DEFAULT_LAMBDA) -> WindowedResult:
    """Windowed JECS at level ``alpha`` (see the module docstring)."""
    alpha = check_alpha(alpha)
    return fit_windowed(pvalues, lam=lam).select(alpha)


RULE = Rule(
    name="jecs-windowed",
    label="Windowed JECS",
    guarantee=Guarantee.FINITE_SAMPLE,
    summary="Max-p values below a fixed lambda, with a Storey-type '+1' estimate of the tail density in two "
    "windows above it; GCR <= alpha in finite samples for independent items whose null max-p CDF is convex.",
    run=windowed_jecs,
    fit=lambda pvalues, lam=DEFAULT_LAMBDA: fit_windowed(pvalues, lam=lam),
    options=(Option(name="lam", default=DEFAULT_LAMBDA, check=check_lam, auto=True,
                    help="windowed JECS only: its lambda, fixed in advance ('auto' means 0.5)"),),
)
