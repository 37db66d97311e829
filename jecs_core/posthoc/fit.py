"""Post-hoc bounds on the number of contaminated items in any set, chosen after looking.

``fit_post_hoc(pvalues, delta=0.1)`` computes, once, what every later bound needs (max-p,
Hommel's ``h``, each item's Simes step, the bound of every nested top set of max-p), so that
``fit.bound(selected)`` for a hand-edited set costs one pass over the mask.  The bound holds with
probability at least ``1 - delta`` simultaneously over all sets (closed testing with Simes local
tests, Goeman & Solari 2011; the closed form of Goeman, Meijer, Krebs & Solari 2019); assumptions,
proof sketch and the conformal granularity effect are in ``docs/GUARANTEES.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_fraction, check_pvalue_matrix
from .closed_simes import hommel_h, max_null, top_set_max_null, u_index

METHOD = "closed-simes-hommel"


def check_delta(delta, name: str = "delta") -> float:
    """``delta`` as a float in the open interval (0, 1)."""
    return check_fraction(delta, name, include_zero=False, include_one=False)


def check_mask(selected, n: int, name: str = "selected") -> np.ndarray:
    """A boolean mask of length ``n``; integer 0/1 arrays and other types are refused."""
    mask = np.asarray(selected)
    if mask.dtype != bool:
        raise ValueError(f"{name} must be a boolean mask of length {n}, got dtype {mask.dtype}")
    if mask.ndim != 1 or mask.shape[0] != n:
        raise ValueError(f"{name} must be a boolean mask of length {n}, got shape {mask.shape}")
    return mask


def max_p_vector(pvalues, name: str = "pvalues") -> np.ndarray:
    """The per-item max-p of an (n, K) matrix or a 1-D vector, checked (finite, in [0, 1])."""
    return check_pvalue_matrix(pvalues, name).max(axis=1)


@dataclass(frozen=True)
class PostHocFit:
    """What the bound of any set needs, for one table and one ``delta``.

    Attributes
    ----------
    delta : float
        Error level: all bounds hold together with probability at least ``1 - delta``.
    method : str
        Name of the bound (``"closed-simes-hommel"``).
    p_max : ndarray, shape (n,)
        Per-item max-p.
    h : int
        Hommel's value at ``delta`` (the Simes thresholds are ``u delta / h``).
    steps : ndarray of int64, shape (n,)
        Per item, the smallest ``u`` with ``h p_i <= u delta``.
    top_set_bounds : ndarray of int64, shape (n + 1,)
        Entry ``r``: the bound for the ``r`` items with the smallest max-p.
    """

    delta: float
    method: str
    p_max: np.ndarray
    h: int
    steps: np.ndarray
    top_set_bounds: np.ndarray
    _sorted_p: np.ndarray

    @property
    def n(self) -> int:
        return int(self.p_max.shape[0])

    def bound(self, selected) -> int:
        """Upper bound on the number of contaminated items in ``selected`` (boolean mask, length n)."""
        return self._bound(check_mask(selected, self.n))

    def _bound(self, mask: np.ndarray) -> int:
        size = int(np.count_nonzero(mask))
        if size == 0:
            return 0
        # A set holding the `size` smallest max-p values (a step-up rule's selection) reads its
        # bound from the precomputed table: the bound depends only on the set's values, and the
        # set holds the smallest values iff no item outside it lies below its largest value.
        values = self.p_max[mask]
        edge = values.max()
        if int(np.count_nonzero(values < edge)) == int(np.searchsorted(self._sorted_p, edge, side="left")):
            return int(self.top_set_bounds[size])
        return max_null(self.steps, mask)


def fit_post_hoc(pvalues, *, delta: float = 0.1) -> PostHocFit:
    """Precompute the post-hoc bound of every set for one table.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values (:func:`jecs_core.table_pvalues`) or a max-p vector.
    delta : float, optional
        Error level in (0, 1): every set's bound holds, all at once, with probability at least
        ``1 - delta``.

    Returns
    -------
    PostHocFit
        ``fit.bound(selected)`` gives the bound of any boolean mask.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.001, 0.002], [0.003, 0.001], [0.6, 0.4], [0.2, 0.9], [0.002, 0.004]])
    >>> fit = fit_post_hoc(p, delta=0.1)
    >>> fit.bound(np.array([True, True, False, False, True]))
    0
    >>> fit.bound(np.array([True, True, True, True, True]))
    2
    """
    delta = check_delta(delta)
    p_max = max_p_vector(pvalues)
    order = np.argsort(p_max, kind="stable")
    sorted_p = p_max[order]
    h = hommel_h(sorted_p, delta)
    steps = u_index(p_max, h=h, delta=delta)
    top = top_set_max_null(steps[order])
    return PostHocFit(delta, METHOD, p_max, h, steps, top, sorted_p)


def post_hoc_bound(pvalues, selected, *, delta: float = 0.1) -> int:
    """Upper bound on the contaminated items in ``selected``, valid whichever set was picked.

    With probability at least ``1 - delta`` the bound holds for every set simultaneously, so the
    set (or the alpha that produced it) may be chosen after looking at the data.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values or a max-p vector.
    selected : array_like of bool, shape (n,)
        The set to bound.
    delta : float, optional
        Error level in (0, 1).

    Returns
    -------
    int
        At most this many items of ``selected`` are contaminated (``0 <= bound <= selected.sum()``).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0.001, 0.003, 0.6, 0.2, 0.002])
    >>> post_hoc_bound(p, p < 0.01, delta=0.1)
    0
    """
    delta = check_delta(delta)
    p_max = max_p_vector(pvalues)
    mask = check_mask(selected, p_max.shape[0])
    return fit_post_hoc(p_max, delta=delta)._bound(mask)
