"""Binomial survival function and pmf without importing scipy.stats.

``scipy.stats`` takes most of a second to import, and the rules need two binomial
calls.  These are the compiled kernels ``scipy.stats.binom`` itself calls, with its
handling of the support's edges, so the values are bit-identical to
``binom.sf`` / ``binom.pmf`` for integer ``k``, integer ``n >= 0`` and ``0 < p < 1``
(tests/core/test_binomial.py checks it).  If a scipy release moves the kernels, the
functions fall back to ``scipy.stats``.
"""

from __future__ import annotations

import functools

import numpy as np


@functools.cache
def kernels():
    """``(pmf, sf)``: scipy's compiled binomial kernels, or ``(None, None)`` when this scipy lacks them.

    Imported on first use, not with the rules: ``scipy.special`` takes about a tenth of a second,
    which ``jecs select --help`` and the rules that never call a binomial need not pay.
    """
    try:
        from scipy.special._ufuncs import _binom_pmf, _binom_sf
    except ImportError:  # pragma: no cover - depends on the scipy release
        return None, None
    return _binom_pmf, _binom_sf


def binom_sf(k, n, p: float) -> np.ndarray:
    """``P(B > k)`` for ``B ~ Binomial(n, p)``: ``scipy.stats.binom.sf(k, n, p)``."""
    _, sf = kernels()
    if sf is None:  # pragma: no cover
        from scipy.stats import binom

        return binom.sf(k, n, p)
    k, n = np.broadcast_arrays(np.floor(np.asarray(k, dtype=float)), np.asarray(n))
    out = np.where(k < 0, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    out[inside] = sf(k[inside], n[inside], p)
    return out


def binom_pmf(k, n, p: float) -> np.ndarray:
    """``P(B = k)`` for ``B ~ Binomial(n, p)``: ``scipy.stats.binom.pmf(k, n, p)``."""
    pmf, _ = kernels()
    if pmf is None:  # pragma: no cover
        from scipy.stats import binom

        return binom.pmf(k, n, p)
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n))
    out = np.zeros(k.shape)
    inside = (k >= 0) & (k <= n)
    out[inside] = pmf(k[inside], n[inside], p)
    return out
