"""The max-p aggregation and the paper's JECS (JMCS lives in :mod:`jecs_core.rules.jmcs`, the
per-model union / intersection baselines in :mod:`jecs_core.rules.per_model`).

All take the (n, K) matrix of per-model conformal p-values (see
:func:`jecs_core.conformal_pvalues`), so one conformal pass serves every rule
and every alpha.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._counting_sort import sorted_values
from ._rows import row_max
from ._validation import (
    check_alpha,
    check_at_most_n,
    check_bool,
    check_knn,
    check_lam,
    check_lambda_grid,
    check_probability_vector,
    check_pvalue_matrix,
    frozen,
)
from .envelope import DEFAULT_LAMBDA_GRID, Envelope, LambdaGrid, fit_from_sorted, fit_lambda_grid
from .multitest import StepUpResult, check_sorted_of, step_up_mask, step_up_sorted
from .results import FitRow, SelectionResult, StepUpLine, row


class JECSFallbackWarning(UserWarning):
    """JECS found no usable lambda and returned the JMCS selection instead."""


@dataclass(frozen=True)
class JECSFit:
    """The alpha-free part of JECS: lambda choice, envelope, transformed values, pi0.

    Attributes
    ----------
    p_max : numpy.ndarray, shape (n,)
        Max-p values.
    sorted_p_max : numpy.ndarray
        ``p_max`` sorted ascending (the envelope keeps this order, so Storey-BH reuses it).
    grid : LambdaGrid
        The per-lambda table (only the manual lambda when ``lambda_mode == "manual"``).
    lambda_mode : str
        ``"auto"`` (data-driven) or ``"manual"``.
    envelope : Envelope or None
        The chosen envelope; ``None`` when JECS falls back to JMCS.
    p_tilde : numpy.ndarray
        ``F_fit(p_max)``; equal to ``p_max`` on fallback.
    pi0_hat : float
        Capped Storey estimate (1.0 on fallback).
    fallback_reason : str or None
        Why JECS fell back to JMCS, or ``None``.
    method : str
        Class-level: the registered rule this fit belongs to (``compare_pvalues(fits=...)`` checks it).
    """

    p_max: np.ndarray
    sorted_p_max: np.ndarray
    grid: LambdaGrid
    lambda_mode: str
    envelope: Envelope | None
    p_tilde: np.ndarray
    sorted_p_tilde: np.ndarray
    pi0_hat: float
    fallback_reason: str | None
    method: ClassVar[str] = "jecs"

    @property
    def fallback_to_jmcs(self) -> bool:
        return self.envelope is None

    @property
    def lam(self) -> float | None:
        return None if self.envelope is None else self.envelope.lam

    @property
    def k_n(self) -> int | None:
        return None if self.envelope is None else self.envelope.k_n

    @property
    def g_hat(self) -> float | None:
        return None if self.envelope is None else self.envelope.g_hat

    @property
    def F_fit_lambda(self) -> float | None:
        return None if self.envelope is None else self.envelope.F_lambda

    @property
    def pi0_raw(self) -> float | None:
        return None if self.envelope is None else self.envelope.pi0_raw

    def envelope_at(self, x) -> np.ndarray:
        """``F_fit(x)``; the identity on fallback (JMCS uses p_max as is)."""
        if self.envelope is None:
            return np.asarray(x, dtype=float)
        return self.envelope(x)

    def select(self, alpha: float) -> JECSResult:
        """Storey-BH at ``alpha`` on the transformed values."""
        alpha = check_alpha(alpha)
        r_star = step_up_sorted(self.sorted_p_tilde, alpha, self.pi0_hat)
        n = self.p_max.shape[0]
        if r_star == 0:
            step = StepUpResult(np.zeros(n, dtype=bool), 0, 0.0, alpha, self.pi0_hat)
        else:
            selected = step_up_mask(self.p_tilde, self.sorted_p_tilde, r_star)
            step = StepUpResult(selected, r_star, alpha * r_star / (self.pi0_hat * n), alpha, self.pi0_hat)
        return JECSResult(alpha=alpha, fit=self, step=step)


@dataclass(frozen=True)
class JECSResult(SelectionResult):
    """Joint Envelope Conformal Selection at one alpha (fit + Storey-BH step).

    Attributes
    ----------
    alpha : float
        Target level.
    fit : JECSFit
        The alpha-free part (lambda, envelope, ``p_tilde``, ``pi0_hat``), re-exposed as properties.
    step : StepUpResult
        Storey-BH on ``p_tilde`` at ``pi0_hat``.
    """

    alpha: float
    fit: JECSFit
    step: StepUpResult
    fits_lambda: ClassVar[bool] = True

    @property
    def selected(self) -> np.ndarray:
        return self.step.selected

    @property
    def n_selected(self) -> int:
        return self.step.n_selected

    @property
    def r_star(self) -> int:
        return self.step.r_star

    @property
    def threshold(self) -> float:
        """Cut-off on the transformed scale, ``alpha r* / (pi0_hat n)``."""
        return self.step.threshold

    # The fitted quantities, re-exposed so callers need not reach into ``fit``.
    p_max = property(lambda self: self.fit.p_max)
    p_tilde = property(lambda self: self.fit.p_tilde)

    def item_columns(self) -> dict[str, np.ndarray]:
        return {"p_tilde": self.p_tilde}
    lam = property(lambda self: self.fit.lam)
    k_n = property(lambda self: self.fit.k_n)
    g_hat = property(lambda self: self.fit.g_hat)
    F_fit_lambda = property(lambda self: self.fit.F_fit_lambda)
    pi0_hat = property(lambda self: self.fit.pi0_hat)
    grid = property(lambda self: self.fit.grid)
    fallback_to_jmcs = property(lambda self: self.fit.fallback_to_jmcs)
    fallback_reason = property(lambda self: self.fit.fallback_reason)

    def envelope_at(self, x) -> np.ndarray:
        return self.fit.envelope_at(x)

    def step_up_line(self) -> StepUpLine:
        """Storey-BH on ``p_tilde`` (max-p itself on fallback)."""
        statistic = "p_max" if self.fallback_to_jmcs else "p_tilde"
        return StepUpLine(statistic, self.p_tilde, self.r_star, self.threshold, self.pi0_hat)

    def envelope_fit(self) -> JECSFit:
        return self.fit

    def fit_notes(self) -> tuple[str, ...]:
        envelope = self.fit.envelope
        if envelope is not None and envelope.m_tail < 10:
            return (f"only {envelope.m_tail} max-p values above lambda; the envelope is noisy",)
        return ()

    def fit_summary(self) -> tuple[FitRow, ...]:
        """lambda (and whether data-driven), k_n, F_fit(lambda), pi0_hat, cut-off; nothing but the cut-off on fallback."""
        if self.fallback_to_jmcs:
            return (row("threshold", self.threshold, "{:.4g}", "cut-off"),)
        mode = "data-driven" if self.fit.lambda_mode == "auto" else "manual"
        return (FitRow("lambda", "lambda", self.lam, f"{self.lam:g} ({mode})"), row("k_n", self.k_n, "{}"),
                row("F_fit_lambda", self.F_fit_lambda, label="F_fit(lambda)"), *super().fit_summary())


def max_p(pvalues) -> np.ndarray:
    """Per-item maximum of the model-wise p-values (valid for the joint null).

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model p-values.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> max_p([[0.01, 0.2], [0.5, 0.3]]).tolist()
    [0.2, 0.5]
    """
    return row_max(check_pvalue_matrix(pvalues))


def fit_jecs(p_max, *, lam="auto", knn: int | None = None, lambda_grid=DEFAULT_LAMBDA_GRID, warn: bool = True,
             sorted_p_max=None) -> JECSFit:
    """Fit the alpha-free part of JECS on max-p values.

    Parameters
    ----------
    p_max : array_like, shape (n,)
        Max-p values of the test items.
    lam : "auto" or float
        ``"auto"`` picks lambda from ``lambda_grid`` by the smallest slope
        ``F_fit(lambda) / lambda`` (ties to the smaller lambda); a float fixes it.
    knn : int, optional
        kNN size for the boundary density; default ``ceil(sqrt(m_R))``.
    lambda_grid : sequence of float
        Candidate lambdas for ``lam="auto"``.
    warn : bool
        Emit :class:`JECSFallbackWarning` when falling back to JMCS, and a ``UserWarning`` when
        ``knn`` is more than the chosen tail holds (``k_n`` is then the tail size).
    sorted_p_max : array_like, shape (n,), optional
        ``p_max`` sorted ascending, when the caller has it (checked in O(n) as
        :func:`jecs_core.storey_bh` checks its ``sorted_values``); sorted here otherwise.

    Returns
    -------
    JECSFit
        The alpha-free part; ``fit.select(alpha)`` gives a :class:`JECSResult`.
    """
    p_star = frozen(check_probability_vector(p_max, "p_max"))
    knn = check_knn(knn)
    lam = check_lam(lam)
    lambda_grid = check_lambda_grid(lambda_grid)  # checked whatever lam is: select() refuses a bad grid too
    warn = check_bool(warn, "warn")
    if knn is not None:
        check_at_most_n(knn, max(p_star.size, 1), "knn")
    if sorted_p_max is None:
        ordered = sorted_values(p_star)
    else:
        ordered = frozen(check_sorted_of(sorted_p_max, p_star, "sorted_p_max", "p_max"))
    if lam == "auto":
        grid, mode = fit_lambda_grid(ordered, lambda_grid, knn), "auto"
    else:
        env = fit_from_sorted(ordered, lam, knn)
        grid, mode = LambdaGrid((lam,), (env,), None if env is None else 0), "manual"
    if grid.chosen is None:
        reason = (f"no max-p value lies above any lambda in {list(grid.lambdas)}; "
                  "the envelope is undefined, so JECS returns the JMCS selection")
        if warn:
            warnings.warn(reason, JECSFallbackWarning, stacklevel=2)
        return JECSFit(p_star, ordered, grid, mode, None, frozen(p_star), frozen(ordered), 1.0, reason)
    env = grid.envelopes[grid.chosen]
    if warn and knn is not None and env.k_n < knn:  # the kNN density needs k_n of the tail's values
        warnings.warn(f"knn = {knn} is more than the {env.k_n} max-p values above lambda = {env.lam:g}; "
                      f"k_n = {env.k_n} is used", UserWarning, stacklevel=2)
    # The envelope is non-decreasing, so transforming the sorted values keeps them sorted. Read-only: every
    # result of this fit hands out p_tilde, and a write into one would change the next select().
    p_tilde, sorted_p_tilde = env(p_star), env(ordered)
    p_tilde.setflags(write=False)
    sorted_p_tilde.setflags(write=False)
    return JECSFit(p_star, ordered, grid, mode, env, p_tilde, sorted_p_tilde, env.pi0_hat, None)


def jecs(pvalues, *, alpha: float, lam="auto", knn: int | None = None, lambda_grid=DEFAULT_LAMBDA_GRID) -> JECSResult:
    """Joint Envelope Conformal Selection.

    Aggregates the per-model p-values by their maximum, fits the right-tail
    envelope of the max-p null CDF, transforms ``p~ = F_fit(p*)`` and applies
    Storey-BH with ``pi0_hat`` capped at 1.  Falls back to JMCS (with a
    :class:`JECSFallbackWarning`) when no lambda has a non-empty tail.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values.
    alpha : float
        Target global contamination rate in (0, 1).
    lam, knn, lambda_grid
        See :func:`fit_jecs`.

    Returns
    -------
    JECSResult
    """
    alpha = check_alpha(alpha)
    return fit_jecs(max_p(pvalues), lam=lam, knn=knn, lambda_grid=lambda_grid).select(alpha)
