"""The post-hoc bound along a rule's whole alpha path, for the dashboard's slider."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._rows import row_max
from .._validation import check_alphas, check_pvalue_matrix
from ..rules import get_rule
from .fit import check_delta, fit_post_hoc


@dataclass(frozen=True)
class PostHocPath:
    """The bound of the set a rule selects at each alpha.

    Attributes
    ----------
    alphas : ndarray, shape (a,)
    n_selected : ndarray of int64, shape (a,)
    max_contaminated : ndarray of int64, shape (a,)
        Upper bound on contaminated items in each selection (all alphas hold together with
        probability at least ``1 - delta``, so the alpha may be picked after looking).
    max_fdp : ndarray, shape (a,)
        ``max_contaminated / n_selected`` (0 where nothing is selected).
    delta : float
    method : str
        Name of the bound.
    """

    alphas: np.ndarray
    n_selected: np.ndarray
    max_contaminated: np.ndarray
    max_fdp: np.ndarray
    delta: float
    method: str

    def __post_init__(self):
        for values in (self.alphas, self.n_selected, self.max_contaminated, self.max_fdp):
            if values.flags.writeable:
                values.setflags(write=False)


def post_hoc_path(pvalues, alphas, *, method: str | None = None, delta: float = 0.1,
                  calibration_size: int | None = None, **options) -> PostHocPath:
    """The post-hoc bound for every alpha of a registered rule, from one alpha-free fit.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values or a max-p vector.
    alphas : array_like of float
        Levels in (0, 1), any order, each once (one number is one level).
    method : str, optional
        A registered rule (``None``: the default rule).
    delta : float, optional
        Error level in (0, 1) shared by the whole path: the bounds hold for every alpha (and every
        other set) together.
    calibration_size : int, optional
        Calibration rows ``m`` behind the p-values (see :func:`jecs_core.fit_post_hoc`).
    **options
        Options of that rule (``lam``, ``knn``, ``lambda_grid``).

    Returns
    -------
    PostHocPath

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = np.concatenate([rng.uniform(0, 0.002, 80), rng.uniform(0, 1, 20)])
    >>> path = post_hoc_path(p, [0.05, 0.1, 0.2], method="jmcs", delta=0.1)
    >>> path.n_selected.tolist(), path.max_contaminated.tolist()
    ([81, 81, 83], [1, 1, 3])
    """
    delta = check_delta(delta)
    levels = np.array(check_alphas(alphas), dtype=float)  # a copy: the path keeps it read-only
    rule = get_rule(method)
    matrix = check_pvalue_matrix(pvalues)
    prepared = rule.prepare(matrix, **options)
    # The bound needs max-p only: passing the vector skips a second check of the whole matrix.
    fit = fit_post_hoc(row_max(matrix), delta=delta, calibration_size=calibration_size)
    n_selected = np.zeros(levels.shape[0], dtype=np.int64)
    bounds = np.zeros(levels.shape[0], dtype=np.int64)
    for index, level in enumerate(levels):
        mask = np.asarray(prepared.select(float(level)).selected, dtype=bool)
        n_selected[index] = int(np.count_nonzero(mask))
        bounds[index] = fit.bound(mask)
    fdp = np.divide(bounds, n_selected, out=np.zeros(levels.shape[0]), where=n_selected > 0)
    return PostHocPath(levels, n_selected, bounds, fdp, delta, fit.method)
