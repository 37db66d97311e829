"""Post-hoc bounds on the number of contaminated items in any set, chosen after looking.

``fit_post_hoc(pvalues, delta=0.1)`` computes, once, what every later bound needs (max-p,
Hommel's ``h``, each item's Simes step, the bound of every nested top set of max-p), so that
``fit.bound(selected)`` for a hand-edited set costs one pass over the mask.  The bound holds with
probability at least ``1 - delta`` simultaneously over all sets (closed testing with Simes local
tests, Goeman & Solari 2011; the closed form of Goeman, Meijer, Krebs & Solari 2019; with the
calibration size given, also the calibration-urn family of ``urn``); assumptions, proof sketch and
the conformal granularity effect are in ``docs/GUARANTEES.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._rows import row_max
from .._shared_max_p import sorted_max_p
from .._validation import check_fraction, check_mask, check_positive_int, check_pvalue_matrix
from .._warn import warn_at_caller
from .closed_simes import hommel_h, max_null, top_set_max_null, u_index
from .urn import grid_index, urn_max_null, urn_resolves, urn_template, urn_top_sets

METHOD = "closed-simes-hommel"
# With the calibration size known and p-values on its grid: the smaller of the closed-testing
# bound and the calibration-urn bound, each at delta / 2 (a union bound keeps the minimum valid).
URN_METHOD = "closed-simes-hommel+conformal-urn"


def check_delta(delta, name: str = "delta") -> float:
    """``delta`` as a float in the open interval (0, 1)."""
    return check_fraction(delta, name, include_zero=False, include_one=False)


def max_p_vector(pvalues, name: str = "pvalues") -> np.ndarray:
    """The per-item max-p of an (n, K) matrix or a 1-D vector, checked (finite, in [0, 1])."""
    return row_max(check_pvalue_matrix(pvalues, name))


@dataclass(frozen=True)
class PostHocFit:
    """What the bound of any set needs, for one table and one ``delta``.

    Attributes
    ----------
    delta : float
        Error level: all bounds hold together with probability at least ``1 - delta``.
    method : str
        Name of the bound: ``"closed-simes-hommel"``, or ``"closed-simes-hommel+conformal-urn"``
        (the smaller of the two bounds, each at ``delta / 2``) when the calibration size is given
        and the p-values lie on its grid ``j / (m + 1)``.
    p_max : ndarray, shape (n,)
        Per-item max-p.
    h : int
        Hommel's value at the closed-testing share of ``delta`` (thresholds ``u delta_s / h``).
    steps : ndarray of int64, shape (n,)
        Per item, the smallest ``u`` with ``h p_i <= u delta_s``.
    top_set_bounds : ndarray of int64, shape (n + 1,)
        Entry ``r``: the bound for the ``r`` items with the smallest max-p.
    calibration_size : int or None
        ``m`` when the calibration-urn bound is part of the bound.
    """

    delta: float
    method: str
    p_max: np.ndarray
    h: int
    steps: np.ndarray
    top_set_bounds: np.ndarray
    calibration_size: int | None
    _sorted_p: np.ndarray
    _urn: tuple | None  # (grid index per item, levels, thresholds)

    def __post_init__(self):
        # Computed for this fit alone: read-only, so no caller can change a later bound by writing into them.
        for values in (self.steps, self.top_set_bounds, self._urn[0] if self._urn else None):
            if values is not None and values.flags.writeable:
                values.setflags(write=False)

    @property
    def n(self) -> int:
        return int(self.p_max.shape[0])

    def bound(self, selected) -> int:
        """Upper bound on the number of contaminated items in ``selected`` (boolean mask, length n).

        Parameters
        ----------
        selected : array_like of bool, shape (n,)
            Any set of this fit's items, chosen before or after looking at the p-values.

        Returns
        -------
        int
            At most this many items of ``selected`` are contaminated, for every set at once with probability
            at least ``1 - delta``; 0 for an empty set.

        Examples
        --------
        >>> import numpy as np
        >>> fit = fit_post_hoc(np.array([0.001, 0.003, 0.6, 0.2, 0.002]), delta=0.1)
        >>> fit.bound([True, True, False, False, True]), fit.bound([True, True, True, True, True])
        (0, 2)
        """
        mask = check_mask(selected, self.n)
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
        return _direct_bound(self.steps, mask, self._urn)


def _direct_bound(steps: np.ndarray, mask: np.ndarray, urn: tuple | None) -> int:
    """The bound of ``mask`` counted over its items: closed testing, and the urn's where it takes part."""
    bound = max_null(steps, mask)
    return bound if urn is None else min(bound, urn_max_null(urn[0], mask, *urn[1:]))


def fit_post_hoc(pvalues, *, delta: float = 0.1, calibration_size: int | None = None) -> PostHocFit:
    """Precompute the post-hoc bound of every set for one table.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values (:func:`jecs_core.table_pvalues`) or a max-p vector.
    delta : float, optional
        Error level in (0, 1): every set's bound holds, all at once, with probability at least
        ``1 - delta``.
    calibration_size : int, optional
        ``m``, the calibration rows behind conformal p-values ``j / (m + 1)``.  When given and every
        p-value lies on that grid, the bound is the smaller of closed testing and the calibration-urn
        bound (each at ``delta / 2``), much tighter where the grid is coarse; otherwise (``None``,
        weighted p-values off the grid, or ``delta`` below about 0.002, finer than the urn's 4,000
        simulated draws resolve) closed testing at ``delta`` alone.  ``method`` says which.

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
    got = _prepared(pvalues, delta, calibration_size)
    # Steps and grid indices are nondecreasing in p, so the sorted values give their sorted copies
    # without an argsort.
    top = top_set_max_null(u_index(got.sorted_p, h=got.h, delta=got.simes_delta))
    if got.urn is None:
        return PostHocFit(got.delta, METHOD, got.p_max, got.h, got.steps, top, None, got.sorted_p, None)
    top = np.minimum(top, urn_top_sets(grid_index(got.sorted_p, got.m), *got.urn[1:]))
    return PostHocFit(got.delta, URN_METHOD, got.p_max, got.h, got.steps, top, got.m, got.sorted_p, got.urn)


class _Prepared(NamedTuple):
    """What any set's bound needs, checked: see :class:`PostHocFit` (``urn``: grid index per item, levels, thresholds)."""

    delta: float
    p_max: np.ndarray
    sorted_p: np.ndarray
    m: int | None
    simes_delta: float
    h: int
    steps: np.ndarray
    urn: tuple | None


def _prepared(pvalues, delta, calibration_size) -> _Prepared:
    delta = check_delta(delta)
    # The rules' max-p and its sort when fitted together with them (jecs_core._shared_max_p).
    p_max, sorted_p = sorted_max_p(pvalues)
    m = None if calibration_size is None else check_positive_int(calibration_size, "calibration_size")
    grid = None if m is None else grid_index(p_max, m)
    if m is not None and grid is None:  # said on every public path: fit_post_hoc, post_hoc_bound, post_hoc_path
        warn_at_caller(f"calibration_size: unused, as the p-values are not on the j / (m + 1) grid of m = {m} "
                       "(weighted p-values?); the bound is closed testing alone")
    if grid is not None and (grid.size == 0 or grid.min() < 1 or not urn_resolves(delta / 2)):
        # A p-value of 0 is not a conformal p-value; an empty table needs no urn; a delta the urn's
        # draws cannot certify leaves closed testing alone, at the whole delta.
        grid = None
    simes_delta = delta if grid is None else delta / 2
    h = hommel_h(sorted_p, simes_delta)
    urn = None if grid is None else (grid, *urn_template(p_max.shape[0], m, delta / 2))
    return _Prepared(delta, p_max, sorted_p, m, simes_delta, h, u_index(p_max, h=h, delta=simes_delta), urn)


def one_set_bound(pvalues, selected, *, delta: float = 0.1, calibration_size: int | None = None) -> tuple[int, str, float]:
    """``(bound, method, delta)`` for the one set ``selected``: ``fit_post_hoc(...).bound(selected)``, its
    ``method`` and checked ``delta``, without the table of every top set's bound that a fit builds for later sets."""
    got = _prepared(pvalues, delta, calibration_size)
    mask = check_mask(selected, got.p_max.shape[0])
    return _direct_bound(got.steps, mask, got.urn), METHOD if got.urn is None else URN_METHOD, got.delta


def post_hoc_bound(pvalues, selected, *, delta: float = 0.1, calibration_size: int | None = None) -> int:
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
    calibration_size : int, optional
        Calibration rows ``m`` behind the p-values (see :func:`fit_post_hoc`).  With p-values off the
        ``j / (m + 1)`` grid (weighted ones) the urn cannot take part: a ``UserWarning`` says that
        ``calibration_size`` went unused, rather than refusing, since closed testing alone is still a
        valid, looser bound.

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
    return one_set_bound(pvalues, selected, delta=delta, calibration_size=calibration_size)[0]
