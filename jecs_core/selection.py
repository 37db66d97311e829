"""The max-p aggregation and the paper's JECS (JMCS lives in :mod:`jecs_core.rules.jmcs`, the
per-model union / intersection baselines in :mod:`jecs_core.rules.per_model`).

All take the (n, K) matrix of per-model conformal p-values (see
:func:`jecs_core.conformal_pvalues`), so one conformal pass serves every rule
and every alpha.
"""

from __future__ import annotations

import warnings

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
from .envelope import DEFAULT_LAMBDA_GRID, LambdaGrid, fit_from_sorted, fit_lambda_grid
from .jecs_fit import JECSFit, JECSResult
from .multitest import check_sorted_of


class JECSFallbackWarning(UserWarning):
    """JECS found no usable lambda and returned the JMCS selection instead."""


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

    Examples
    --------
    >>> import numpy as np, jecs_core as jc
    >>> p = np.random.default_rng(0).uniform(size=(200, 3))
    >>> p[:60] *= 0.01
    >>> fit = fit_jecs(jc.max_p(p))
    >>> fit.lam, fit.k_n, fit.lambda_mode
    (0.6, 11, 'auto')
    >>> result = fit.select(0.1)
    >>> result.n_selected, int(result.selected[:60].sum())
    (60, 60)
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
        The selection, with the fit's lambda, k_n, pi0_hat and ``p_tilde``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.random.default_rng(0).uniform(size=(200, 3))
    >>> p[:60] *= 0.01
    >>> result = jecs(p, alpha=0.1)
    >>> result.n_selected, result.lam
    (60, 0.6)
    """
    alpha = check_alpha(alpha)
    return fit_jecs(max_p(pvalues), lam=lam, knn=knn, lambda_grid=lambda_grid).select(alpha)
