"""Benjamini-Hochberg and Storey-BH step-up selection.

Both rules share one step-up (Benjamini & Hochberg 1995; Storey, Taylor & Siegmund 2004;
docs/GUARANTEES.md)::

    r* = max{r : p_(r) <= alpha r / (pi0 n)},   select p_i <= alpha r* / (pi0 n)

with ``r* = 0`` selecting nothing.  BH is the case ``pi0 = 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._step_up import last_pass, step_up_rank
from ._validation import check_alpha, check_fraction, check_probability_vector, frozen, real_array


@dataclass(frozen=True)
class StepUpResult:
    """Outcome of one step-up selection.

    Attributes
    ----------
    selected : numpy.ndarray of bool, shape (n,)
        Which items are selected (rejected nulls).
    r_star : int
        Number of selections of the step-up rule (0 when nothing is selected).
    threshold : float
        Cut-off on the input scale, ``alpha r* / (pi0 n)`` (0.0 when ``r* = 0``).
    alpha, pi0 : float
        Level and null-proportion factor used.
    """

    selected: np.ndarray
    r_star: int
    threshold: float
    alpha: float
    pi0: float

    def __post_init__(self):
        # Read-only: the results that hand this mask out are frozen, and a write into it would change them.
        object.__setattr__(self, "selected", frozen(np.asarray(self.selected)))

    @property
    def n_selected(self) -> int:
        return int(self.r_star)


def check_sorted_of(sorted_values, values: np.ndarray, name: str, of: str) -> np.ndarray:
    """``sorted_values`` as a float array, checked in O(n) to be ``numpy.sort(values)`` (``values`` already checked).

    A wrong sort gives a wrong selection in silence, so its shape, ends, order and sum are compared with
    ``values``: equal ends and a non-decreasing order keep every value in ``values``' range, and the sum
    (to float rounding) catches values moved inside it.  ``">="`` is False beside a NaN, so a NaN fails.
    """
    ordered = real_array(sorted_values, name)
    n = values.shape[0]
    if ordered.shape != values.shape:
        raise ValueError(f"{name} must be numpy.sort({of}), of shape {values.shape}, got shape {ordered.shape}")
    if n and not (
            ordered[0] == values.min() and ordered[-1] == values.max() and bool((ordered[1:] >= ordered[:-1]).all())
            and abs(float(ordered.sum()) - float(values.sum())) <= 1e-9 * n):
        raise ValueError(f"{name} must be numpy.sort({of}) (same values, ascending)")
    return ordered


def _check_pi0(pi0: float) -> float:
    return check_fraction(pi0, "pi0", include_zero=False)


# Binary searches tried before the step-up scans what is left of the sorted values.
_SEARCHES = 32


def step_up_sorted(sorted_values: np.ndarray, alpha: float, pi0: float) -> int:
    """Return r* for values already sorted ascending (no validation; internal fast path).

    With ``t(c) = alpha c / (pi0 n)`` (rounded as the scan in ``_step_up.last_pass`` rounds it, so
    non-decreasing in ``c``), ``r*`` is the largest ``c`` with ``#{p <= t(c)} = c``, and counting
    down from ``c = n`` (each count one binary search) reaches it: every count stays at or above
    ``r*`` and a repeated count is a passing rank. On strong-signal tables a few searches replace a
    pass over all n values; a slow descent scans the values still in range instead.
    """
    n = sorted_values.shape[0]
    scale = pi0 * n
    count = n
    for _ in range(_SEARCHES):
        if count == 0:
            return 0
        below = int(np.searchsorted(sorted_values, alpha * count / scale, side="right"))
        if below == count:
            return count
        count = below
    return last_pass(sorted_values[:count], 0, alpha, pi0, n)[0]


def step_up_mask(values, sorted_values, r_star: int) -> np.ndarray:
    """The items a step-up keeps once ``r*`` is known: those at or below the ``r*``-th smallest value.

    Items tied with ``p_(r*)`` all pass; anything above it failed its own step.  Every step-up
    rule (BH, Storey-BH, the paper's JECS, storey-maxp, windowed JECS) selects through this.

    Parameters
    ----------
    values : array_like, shape (n,)
        The ranked statistic, in item order.
    sorted_values : numpy.ndarray, shape (>= r*,)
        The same values sorted ascending (or the smallest of them, at least ``r*``).
    r_star : int
        How many items the step-up keeps; 0 keeps none.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

    Examples
    --------
    >>> step_up_mask([0.3, 0.01, 0.2, 0.01], [0.01, 0.01, 0.2, 0.3], 2).tolist()
    [False, True, False, True]
    """
    values = np.asarray(values)
    if r_star == 0:
        return np.zeros(values.shape, dtype=bool)
    return values <= sorted_values[r_star - 1]


def storey_bh(pvalues, *, alpha: float, pi0: float = 1.0, sorted_values: np.ndarray | None = None) -> StepUpResult:
    """Storey-BH (adaptive BH) selection at level ``alpha`` with null proportion ``pi0``.

    Parameters
    ----------
    pvalues : array_like, shape (n,)
        Values in [0, 1]; small values are selected.
    alpha : float
        Target level in (0, 1).
    pi0 : float, default 1.0
        Estimated null proportion in (0, 1]; ``pi0 = 1`` is plain BH.
    sorted_values : numpy.ndarray, optional
        ``numpy.sort(pvalues)`` if the caller already has it (saves a sort).

    Returns
    -------
    StepUpResult
        ``selected``, ``r_star``, ``threshold``.

    Examples
    --------
    A null proportion below 1 loosens the cut-off: plain BH selects two of these, Storey-BH three.

    >>> storey_bh([0.001, 0.02, 0.09, 0.5], alpha=0.1).selected.tolist()
    [True, True, False, False]
    >>> result = storey_bh([0.001, 0.02, 0.09, 0.5], alpha=0.1, pi0=0.5)
    >>> result.selected.tolist(), result.r_star, round(result.threshold, 3)
    ([True, True, True, False], 3, 0.15)
    """
    values = check_probability_vector(pvalues, "pvalues")
    alpha = check_alpha(alpha)
    pi0 = _check_pi0(pi0)
    if sorted_values is None:
        ordered = np.sort(values)
    else:
        ordered = check_sorted_of(sorted_values, values, "sorted_values", "pvalues")
    return storey_bh_presorted(values, ordered, alpha=alpha, pi0=pi0)


def storey_bh_presorted(values: np.ndarray, ordered: np.ndarray, *, alpha: float, pi0: float = 1.0) -> StepUpResult:
    """:func:`storey_bh` on checked values and their sort, without checking them again (a fit's select, per alpha)."""
    n = values.shape[0]
    r_star = step_up_sorted(ordered, alpha, pi0)
    if r_star == 0:
        return StepUpResult(np.zeros(n, dtype=bool), 0, 0.0, alpha, pi0)
    threshold = alpha * r_star / (pi0 * n)
    return StepUpResult(step_up_mask(values, ordered, r_star), r_star, float(threshold), alpha, pi0)


def benjamini_hochberg(pvalues, *, alpha: float) -> StepUpResult:
    """Benjamini-Hochberg selection at level ``alpha`` (Storey-BH with ``pi0 = 1``).

    Parameters
    ----------
    pvalues : array_like, shape (n,)
        Values in [0, 1]; small values are selected.
    alpha : float
        Target level in (0, 1).

    Returns
    -------
    StepUpResult
        ``selected``, ``r_star``, ``threshold``.

    Examples
    --------
    >>> benjamini_hochberg([0.001, 0.02, 0.04, 0.5], alpha=0.1).selected.tolist()
    [True, True, True, False]
    """
    return storey_bh(pvalues, alpha=alpha, pi0=1.0)


def bh_adjusted(pvalues, *, pi0: float = 1.0) -> np.ndarray:
    """BH-adjusted values (q-values), ``min_{j >= i} pi0 n p_(j) / j`` capped at 1.

    With ``pi0 = 1`` this equals ``scipy.stats.false_discovery_control(p, method="bh")``.
    An item is selected by :func:`storey_bh` at level alpha exactly when its
    adjusted value is <= alpha.

    Parameters
    ----------
    pvalues : array_like, shape (n,)
        Values in [0, 1].
    pi0 : float, default 1.0
        Null-proportion factor in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (n,)
        The adjusted values, in the input order.

    Examples
    --------
    >>> bh_adjusted([0.001, 0.02, 0.04, 0.5])
    array([0.004     , 0.04      , 0.05333333, 0.5       ])
    """
    values = check_probability_vector(pvalues, "pvalues")
    pi0 = _check_pi0(pi0)
    n = values.shape[0]
    if n == 0:
        return values.copy()
    order = np.argsort(values, kind="stable")
    scaled = pi0 * n * values[order] / np.arange(1, n + 1)
    scaled = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(n)
    out[order] = np.minimum(scaled, 1.0)
    return out


def column_step_up(pvalues: np.ndarray, *, alpha: float, pi0: float = 1.0) -> np.ndarray:
    """``storey_bh(p[:, k], alpha=alpha, pi0=pi0).selected`` for every column ``k``, bit for bit.

    No column is sorted whole: :func:`jecs_core._step_up.step_up_rank` buckets the values that
    can pass and sorts only the buckets around the crossing.

    Parameters
    ----------
    pvalues : numpy.ndarray, shape (n, K)
        Already validated p-values.
    alpha, pi0 : float
        Already validated level and null proportion.

    Returns
    -------
    numpy.ndarray of bool, shape (n, K)
    """
    n, n_columns = pvalues.shape
    chosen = np.zeros((n, n_columns), dtype=bool)
    if n == 0:
        return chosen
    for k in range(n_columns):
        column = pvalues[:, k]
        r_star, cutoff = step_up_rank(column, alpha, pi0)
        if r_star:
            chosen[:, k] = column <= cutoff  # step_up_mask's test, with the r*-th smallest value known
    return chosen
