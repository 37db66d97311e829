"""Storey-BH on the max-p values with a finite-sample null-proportion estimate.

The default selection rule.  With ``p*_i = max_k p_i^k``, ``N = #{p* > lam}``::

    pi0_hat = c(n) * min((1 + N) / (n (1 - lam)), 1 / w(n))   (lam = 0.5, w(n) = 1 - 1.5 / sqrt(n))
    r* = max{r : p*_(r) <= alpha r / (pi0_hat n)},   select p* <= p*_(r*)

``(1 + N) / (n (1 - lam))`` is Storey's "+1" estimator.  Capping it at 1 (the
textbook Storey-BH) can push the GCR above alpha when almost every item
is contaminated; capping at ``1 / w(n)`` and multiplying by the exact correction
``c(n) = max_{n0 <= n} E[max(n0 (1 - lam) / (1 + B), w(n) n0 / n)]``,
``B ~ Binomial(n0 - 1, 1 - lam)``, keeps the bound (``c(n) - 1`` is about 0.001 or below).  Without the cap the rule would select far less than JMCS when
most items are contaminated; with it, it never falls below BH at ``w(n) alpha / c(n)``.

Guarantee (``docs/GUARANTEES.md``): GCR <= alpha for every n when the null
(contaminated) items' max-p values are super-uniform (the paper's Lemma 1) and
independent of each other and of the pure items' values — Storey, Taylor &
Siegmund (2004, Thm 3) plus the corrected cap (``docs/GUARANTEES.md``); for
conformal p-values sharing one calibration set see Mary & Roquain (2022) and
Marandon et al. (2024).  (The plain cap ``min(1, pi0_hat)`` exceeds alpha with
all-null uniform p-values: n = 5, alpha = 0.05 gives 0.058.)

One guard: when no max-p value is at or below alpha (a calibration set too small for any
p-value to reach alpha, 1/(m+1) > alpha), the rule selects nothing, as BH would; without it a
small pi0_hat alone could carry a large selection off one unlucky calibration row.

In JECS terms this is the identity envelope (``p~ = p*``, anchor ``F(lam) = lam``).

Example
-------
>>> import numpy as np
>>> from jecs_core.rules.storey_maxp import fit_storey_maxp
>>> p = np.array([[0.01, 0.02], [0.9, 0.5], [0.03, 0.01], [0.6, 0.99], [0.002, 0.004]])
>>> fit = fit_storey_maxp(p)
>>> round(fit.pi0_hat, 3), fit.select(0.2).selected.tolist()
(1.2, [True, False, True, False, True])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from .._binomial import binom_pmf, binom_sf  # scipy.stats' kernels, without its import time
from .._shared_max_p import sorted_max_p
from .._validation import check_alpha, check_fixed_lam
from ..multitest import step_up_mask, step_up_sorted
from ..results import FitRow, SelectionResult, StepUpLine
from .options import STOREY_LAM
from .registry import Guarantee, Rule

DEFAULT_LAMBDA = 0.5


def cap_level(n: int, lam: float = DEFAULT_LAMBDA) -> float:
    """``w(n)``: the estimate is capped at ``1 / w(n)``, not at 1 (a fixed function of n and lam).

    ``1 - 1.5 / sqrt(n)`` (about 1.5 standard deviations of Storey's estimate below 1 when
    every item is null) where ``c(n)`` is computed exactly; above that, where the cheaper tail
    bound must be small by itself, ``1 - z / sqrt(n)`` with ``z = 3.2 sqrt(lam / (1 - lam))``
    (3.2 at lam = 0.5), which puts the cut 3.2 binomial standard deviations out whatever lam
    is; clipped to [0.5, 0.99]. Either way ``c(n) - 1`` stays about 0.001 or below.
    """
    z = 1.5 if n <= _EXACT_MAX_N else 3.2 * np.sqrt(lam / (1.0 - lam))
    return float(min(0.99, max(0.5, 1.0 - z / np.sqrt(max(n, 1)))))

# Above this n the exact maximum over n0 is skipped: the tail bound is already 1 to double precision.
_EXACT_MAX_N = 3000


@lru_cache(maxsize=256)
def cap_correction(n: int, lam: float = DEFAULT_LAMBDA) -> float:
    """``c(n) = max_{n0 <= n} E[max(n0 (1 - lam) / (1 + B), w n0 / n)]``, ``B ~ Bin(n0 - 1, 1 - lam)``, ``w = w(n)``.

    The worst case of the capped estimator: every null max-p uniform, no pure item above
    lam.  ``E[max(Y, t)] = E[Y] + E[(t - Y)_+]`` with ``E[Y] = 1 - lam^n0 <= 1``, and
    ``Y < t`` needs ``B > n (1 - lam) / w - 1``, so ``E[(t - Y)_+] <= t P(B > n (1 - lam) / w - 1)``:
    that bound is used for large n, the exact expectation (maximised over n0) otherwise.
    """
    if n < 1:
        return 1.0
    w = cap_level(n, lam)
    # The bound's term w n0 / n P(B > ...) is largest at n0 = n: a binomial tail over more trials is
    # no smaller, and the factor grows with n0. So one binomial call, not n (about 0.05 s at n = 10^6);
    # w n / n is kept as written so the value is rounded as the term at n0 = n always was.
    bound = 1.0 + float(w * n / n * binom_sf(np.floor(n * (1 - lam) / w - 1), n - 1, 1 - lam))
    if bound - 1.0 < 1e-6 or n > _EXACT_MAX_N:  # the bound is itself valid; exact only tightens it
        return bound
    first = max(int(np.floor(n * (1 - lam) / w)), 1)  # smaller n0 never have Y < w n0 / n
    k = np.arange(n)[None, :]
    exact = 1.0
    for start in range(first, n + 1, 256):  # blocks of n0 keep the matrix small
        sizes = np.arange(start, min(start + 256, n + 1))[:, None]
        values = np.maximum(sizes * (1 - lam) / (1 + k), w * sizes / n)
        pmf = np.where(k < sizes, binom_pmf(k, sizes - 1, 1 - lam), 0.0)
        exact = max(exact, float((pmf * values).sum(axis=1).max()))
    return min(bound, exact)


def _check_lam(lam) -> float:
    return check_fixed_lam(lam, DEFAULT_LAMBDA)


@dataclass(frozen=True)
class StoreyMaxPResult(SelectionResult):
    """Selection at one alpha, with what the dashboard draws."""

    alpha: float
    fit: StoreyMaxPFit
    r_star: int
    selected: np.ndarray
    fits_lambda: ClassVar[bool] = True

    @property
    def n_selected(self) -> int:
        return int(self.selected.sum())

    @property
    def threshold(self) -> float:
        """Cut-off on p* (= p~), ``alpha r* / (pi0_hat n)``; 0 when nothing is selected."""
        return self.alpha * self.r_star / (self.fit.pi0_hat * self.fit.p_max.shape[0]) if self.r_star else 0.0

    p_max = property(lambda self: self.fit.p_max)
    # The step-up runs on max-p itself, so p~ is p_max: no item_columns(), the export's p_max says it all.
    p_tilde = property(lambda self: self.fit.p_max)
    lam = property(lambda self: self.fit.lam)
    anchor = property(lambda self: self.fit.lam)
    pi0_hat = property(lambda self: self.fit.pi0_hat)

    def envelope_at(self, x) -> np.ndarray:
        return np.asarray(x, dtype=float)

    def step_up_line(self) -> StepUpLine:
        """Storey-BH on max-p itself."""
        return StepUpLine("p_max", self.p_max, self.r_star, self.threshold, self.pi0_hat)

    def fit_summary(self) -> tuple[FitRow, ...]:
        """lambda (fixed in advance), pi0_hat, cut-off."""
        return (FitRow("lambda", "lambda", self.lam, f"{self.lam:g} (fixed)"), *super().fit_summary())


@dataclass(frozen=True)
class StoreyMaxPFit:
    """Alpha-free part: max-p values (sorted) and ``pi0_hat``; ``method`` names its rule (class-level)."""

    p_max: np.ndarray
    sorted_p_max: np.ndarray
    lam: float
    m_tail: int
    pi0_hat: float
    method: ClassVar[str] = "storey-maxp"

    def select(self, alpha: float) -> StoreyMaxPResult:
        alpha = check_alpha(alpha)
        r_star = step_up_sorted(self.sorted_p_max, alpha, self.pi0_hat)
        if self.sorted_p_max.size and self.sorted_p_max[0] > alpha:
            # No item is clean on its own at this alpha (e.g. a calibration set so small that
            # 1/(m+1) > alpha): the adaptive lift alone must not carry a selection.  Selecting
            # nothing here only removes selections, so the guarantee is untouched.
            r_star = 0
        return StoreyMaxPResult(alpha, self, r_star, step_up_mask(self.p_max, self.sorted_p_max, r_star))


def fit_storey_maxp(pvalues, *, lam=DEFAULT_LAMBDA) -> StoreyMaxPFit:
    """Max-p values and the corrected "+1" Storey estimate at a fixed ``lam``.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values.
    lam : float or "auto"
        Fixed threshold in (0, 1); ``"auto"`` means 0.5.
    """
    lam = _check_lam(lam)
    p_star, ordered = sorted_max_p(pvalues)
    n = p_star.shape[0]
    m_tail = n - int(np.searchsorted(ordered, lam, side="right"))
    raw = (1 + m_tail) / (max(n, 1) * (1 - lam))
    pi0 = cap_correction(n, lam) * min(raw, 1.0 / cap_level(n, lam))
    return StoreyMaxPFit(p_star, ordered, lam, m_tail, float(pi0))


def storey_maxp(pvalues, *, alpha: float, lam=DEFAULT_LAMBDA) -> StoreyMaxPResult:
    """Storey-BH on max-p at level ``alpha`` (see the module docstring)."""
    alpha = check_alpha(alpha)
    return fit_storey_maxp(pvalues, lam=lam).select(alpha)


RULE = Rule(
    name="storey-maxp",
    label="Storey-BH on max-p",
    guarantee=Guarantee.FINITE_SAMPLE,
    summary="Storey-BH on the per-item maximum of the model-wise p-values, '+1' null-proportion estimate at a "
    "lambda fixed in advance (storey_lam, default 0.5) with the cap correction c(n) computed for that lambda; "
    "GCR <= alpha in finite samples for independent items.",
    run=lambda pvalues, *, alpha, storey_lam=DEFAULT_LAMBDA: storey_maxp(pvalues, alpha=alpha, lam=storey_lam),
    fit=lambda pvalues, storey_lam=DEFAULT_LAMBDA: fit_storey_maxp(pvalues, lam=storey_lam),
    options=(STOREY_LAM,),
)
