"""The right-tail envelope of the max-p null CDF (paper, section 3.2 and appendix C.1).

From the right tail ``Y = sorted{p*_i : p*_i > lambda}`` (size ``m_R``):

* boundary density (kNN): ``g_hat = k_n / (m_R (Y_(k_n) - lambda))``;
* anchor: ``F_fit(lambda) = lambda g_hat / (1 + lambda g_hat)``;
* envelope: linear ``F_fit(lambda) x / lambda`` on ``(0, lambda]`` and
  ``F_fit(lambda) + (1 - F_fit(lambda)) G_hat(x)`` on ``(lambda, 1]`` where
  ``G_hat(x) = #{lambda < p* <= x} / m_R``.

The data-driven lambda minimises the left-branch slope ``F_fit(lambda) / lambda``
over a grid (ties to the smaller lambda); a lambda with an empty tail is skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._validation import check_at_most_n, check_knn, check_lambda, check_lambda_grid, check_positive_int, check_probability_vector

if TYPE_CHECKING:  # pandas only for to_frame: the rules import this module on their first call
    import pandas as pd

DEFAULT_LAMBDA_GRID: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
# A tail smaller than this is still used but flagged: the kNN density is noisy there.
MIN_TAIL_POINTS = 10


def default_knn(m_tail: int) -> int:
    """Default kNN size ``k_n = ceil(sqrt(m_R))`` clipped to ``[1, m_R]``.

    It satisfies the consistency conditions of the paper's kNN proposition:
    ``k_n -> inf`` and ``k_n / m_R -> 0`` as ``m_R -> inf``.

    Parameters
    ----------
    m_tail : int
        Size ``m_R`` of the right tail, an integer at least 1 (booleans and ``2.5`` are refused).

    Returns
    -------
    int
        The kNN size ``k_n``.

    Examples
    --------
    >>> default_knn(1), default_knn(10), default_knn(100)
    (1, 4, 10)
    """
    m_tail = check_positive_int(m_tail, "m_tail")
    return int(min(max(math.ceil(math.sqrt(m_tail)), 1), m_tail))


@dataclass(frozen=True)
class Envelope:
    """A fitted envelope ``F_fit`` for one lambda.

    Attributes
    ----------
    lam : float
        The right-tail threshold.
    tail : numpy.ndarray
        The sorted right-tail sample ``Y`` (values of p* above ``lam``).
    n : int
        Number of test items the tail was taken from.
    k_n : int
        kNN size used for the boundary density.
    g_hat : float
        Estimated right-boundary density of the tail at ``lam``.
    F_lambda : float
        The anchor ``F_fit(lam)``.
    """

    lam: float
    tail: np.ndarray
    n: int
    k_n: int
    g_hat: float
    F_lambda: float

    @property
    def m_tail(self) -> int:
        return int(self.tail.shape[0])

    @property
    def slope(self) -> float:
        """Slope of the linear left branch, ``F_fit(lam) / lam``."""
        return self.F_lambda / self.lam

    @property
    def pi0_raw(self) -> float:
        """Storey's estimate ``(m_R / n) / (1 - F_fit(lam))`` before the cap at 1."""
        return (self.m_tail / self.n) / (1.0 - self.F_lambda)

    @property
    def pi0_hat(self) -> float:
        """Storey's null-proportion estimate capped at 1."""
        return min(1.0, self.pi0_raw)

    def __call__(self, x) -> np.ndarray:
        """Evaluate ``F_fit`` at ``x`` (array-like in [0, 1])."""
        x = np.asarray(x, dtype=float)
        flat = x.reshape(-1)
        values = self.F_lambda * (flat / self.lam)
        # Only the values past lambda are looked up in the tail (a binary search each); a NaN goes there too.
        above = ~(flat <= self.lam)
        if above.any():
            tail_cdf = np.searchsorted(self.tail, flat[above], side="right") / self.m_tail
            values[above] = self.F_lambda + (1.0 - self.F_lambda) * tail_cdf
        return values.reshape(x.shape)


def fit_from_sorted(sorted_pmax: np.ndarray, lam: float, knn: int | None) -> Envelope | None:
    start = int(np.searchsorted(sorted_pmax, lam, side="right"))
    tail = sorted_pmax[start:]
    m_tail = tail.shape[0]
    if m_tail == 0:
        return None
    k_n = default_knn(m_tail) if knn is None else min(knn, m_tail)
    g_hat = k_n / (m_tail * (tail[k_n - 1] - lam))
    F_lambda = lam * g_hat / (1.0 + lam * g_hat)
    return Envelope(lam=lam, tail=tail, n=int(sorted_pmax.shape[0]), k_n=k_n, g_hat=float(g_hat), F_lambda=float(F_lambda))


def fit_envelope(p_max, lam: float, *, knn: int | None = None) -> Envelope:
    """Fit the envelope at a fixed ``lam``.

    Parameters
    ----------
    p_max : array_like, shape (n,)
        Max-p values of the test items.
    lam : float
        Right-tail threshold in (0, 1).
    knn : int, optional
        kNN size, at most n (as in :func:`jecs_core.fit_jecs`); default :func:`default_knn` of the tail
        size.  Above the tail size, the tail size is used (``k_n`` says so).

    Returns
    -------
    Envelope
        The fitted ``F_fit`` (callable), with ``k_n``, ``g_hat``, ``F_lambda``, ``slope`` and ``pi0_hat``.

    Raises
    ------
    ValueError
        If no value of ``p_max`` lies above ``lam`` (the envelope is undefined).

    Examples
    --------
    >>> env = fit_envelope([0.1, 0.2, 0.55, 0.6, 0.8, 0.9], 0.5)
    >>> env.m_tail, env.k_n
    (4, 2)
    """
    lam = check_lambda(lam)
    knn = check_knn(knn)
    values = check_probability_vector(p_max, "p_max")
    if knn is not None:
        check_at_most_n(knn, max(values.size, 1), "knn")
    env = fit_from_sorted(np.sort(values), lam, knn)
    if env is None:
        raise ValueError(f"no max-p value lies above lam={lam}; the envelope needs a non-empty right tail")
    return env


@dataclass(frozen=True)
class LambdaGrid:
    """The per-lambda table behind the data-driven choice.

    Attributes
    ----------
    lambdas : tuple of float
        The grid, ascending.
    envelopes : tuple of Envelope or None
        ``envelopes[i]`` is ``None`` where the tail above ``lambdas[i]`` is empty (unusable).
    chosen : int or None
        Index of the selected lambda, or ``None`` when no lambda is usable.
    """

    lambdas: tuple[float, ...]
    envelopes: tuple[Envelope | None, ...]
    chosen: int | None

    def to_frame(self) -> pd.DataFrame:
        """One row per lambda: tail size, k_n, g_hat, F_fit(lambda), slope, flags."""
        import pandas as pd

        rows = []
        for i, (lam, env) in enumerate(zip(self.lambdas, self.envelopes)):
            rows.append(
                {
                    "lambda": lam,
                    "m_R": 0 if env is None else env.m_tail,
                    "k_n": None if env is None else env.k_n,
                    "g_hat": np.nan if env is None else env.g_hat,
                    "F_fit_lambda": np.nan if env is None else env.F_lambda,
                    "slope": np.nan if env is None else env.slope,
                    "pi0_hat": np.nan if env is None else env.pi0_hat,
                    "usable": env is not None,
                    "few_tail_points": env is not None and env.m_tail < MIN_TAIL_POINTS,
                    "chosen": i == self.chosen,
                }
            )
        frame = pd.DataFrame(rows)
        frame["k_n"] = frame["k_n"].astype("Int64")
        return frame


def fit_lambda_grid(sorted_pmax: np.ndarray, grid, knn: int | None) -> LambdaGrid:
    """Fit every lambda of ``grid`` on already-sorted max-p values and pick the smallest slope."""
    lambdas = tuple(sorted(check_lambda_grid(grid)))
    if not lambdas:
        raise ValueError("lambda_grid must hold at least one value")
    envelopes = tuple(fit_from_sorted(sorted_pmax, lam, knn) for lam in lambdas)
    slopes = np.array([np.inf if env is None else env.slope for env in envelopes])
    chosen = None if np.all(np.isinf(slopes)) else int(np.argmin(slopes))  # first minimum = smaller lambda
    return LambdaGrid(lambdas, envelopes, chosen)
