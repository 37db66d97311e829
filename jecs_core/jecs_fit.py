"""The paper's JECS as objects: :class:`JECSFit` (the alpha-free part) and :class:`JECSResult`
(one alpha). :func:`jecs_core.fit_jecs` makes the fit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._validation import check_alpha
from .envelope import Envelope, LambdaGrid
from .multitest import StepUpResult, step_up_mask, step_up_sorted
from .results import FitRow, SelectionResult, StepUpLine, row


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
        """Storey-BH at ``alpha`` on the transformed values ``p_tilde``, with this fit's ``pi0_hat``.

        Parameters
        ----------
        alpha : float
            Target global contamination rate in (0, 1).

        Returns
        -------
        JECSResult
            The selection; the fit is reused, so a path of alphas costs one step-up each.

        Examples
        --------
        >>> import numpy as np, jecs_core as jc
        >>> p = np.random.default_rng(0).uniform(size=(200, 3))
        >>> p[:60] *= 0.01  # 60 items unlike every model's members
        >>> fit = jc.fit_jecs(jc.max_p(p))
        >>> [fit.select(alpha).n_selected for alpha in (0.05, 0.1, 0.2)]
        [60, 60, 60]
        """
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
