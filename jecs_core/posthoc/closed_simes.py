"""Closed testing with Simes local tests: Hommel's ``h`` and the true-discovery kernel.

For p-values ``p_1..p_n`` and level ``delta``, closed testing with Simes local tests
(Goeman & Solari 2011) bounds the number of true nulls in every set ``S`` at once.
Goeman, Meijer, Krebs & Solari (2019, Biometrika) show the bound has the closed form

    max_null(S) = min over u = 1..|S| of  #{i in S : h p_i > u delta} + u - 1

where ``h`` is Hommel's value, the size of the largest index set whose Simes test does not
reject.  With ``h`` replaced by ``n`` this is the textbook Simes linear template (Blanchard,
Neuvial & Roquain 2020), so the closed form is never looser and is much tighter when ``h`` is
well below ``n`` (many clear discoveries).

Comparisons ``p <= t`` are taken with a relative slack of ``1e-10`` in favour of ``<=``: conformal
p-values are rationals ``j / (m + 1)`` and ``delta`` a short decimal, so exact ties (which decide
whether the smallest grid value reaches a Simes threshold) must count as ties, not as float noise.

Example
-------
>>> import numpy as np
>>> p = np.array([0.001, 0.002, 0.004, 0.5, 0.7, 0.9])
>>> hommel_h(np.sort(p), 0.1)
3
>>> int(max_null(u_index(p, h=3, delta=0.1), np.ones(6, dtype=bool)))
3
"""

from __future__ import annotations

import numpy as np

# Relative slack so that exact rational ties p == k delta / i count as "<=" (see module docstring).
TIE = 1e-10


def hommel_h(sorted_p: np.ndarray, delta: float) -> int:
    """Hommel's ``h``: the largest ``i`` such that Simes does not reject the ``i`` largest p-values.

    ``h = max{i in 0..n : i p_(n-i+k) > k delta for k = 1..i}``.  Writing ``s = n - i``, the
    condition for one order statistic ``j > s`` is linear in ``s``: ``s (d - p_(j)) > d j - n p_(j)``
    (``d`` = delta with the tie slack), so the smallest admissible ``s`` follows from a suffix
    maximum in O(n) after sorting.

    Parameters
    ----------
    sorted_p : ndarray, shape (n,)
        P-values in ascending order.
    delta : float
        Level of the Simes local tests.

    Returns
    -------
    int
        ``h`` in ``0..n``.
    """
    n = sorted_p.shape[0]
    if n == 0:
        return 0
    d = delta * (1.0 + TIE)
    if sorted_p[-1] <= d:
        return 0  # the largest p-value alone is rejected, hence every set
    j = np.arange(1, n + 1, dtype=float)
    below = sorted_p < d
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(below, (d * j - n * sorted_p) / (d - sorted_p), -np.inf)
    # suffix[s] = max of g over order statistics j = s+1..n (0-based positions s..n-1)
    suffix = np.maximum.accumulate(g[::-1])[::-1]
    s = np.arange(n)
    ok = s > suffix
    s_star = int(np.argmax(ok)) if ok.any() else n
    # Guard the float arithmetic of g with the direct condition at s* and s* - 1.
    while s_star < n and not _simes_accepts(sorted_p, s_star, d):
        s_star += 1
    while s_star > 0 and _simes_accepts(sorted_p, s_star - 1, d):
        s_star -= 1
    return n - s_star


def _simes_accepts(sorted_p: np.ndarray, s: int, d: float) -> bool:
    """True when Simes at level ``d`` does not reject the ``n - s`` largest p-values."""
    n = sorted_p.shape[0]
    i = n - s
    k = np.arange(1, i + 1, dtype=float)
    return bool(np.all(i * sorted_p[s:] > k * d))


def u_index(p: np.ndarray, *, h: int, delta: float) -> np.ndarray:
    """Per item, the smallest ``u >= 1`` with ``h p_i <= u delta`` (as int64).

    With ``h = 0`` every item counts at ``u = 1`` (every hypothesis is rejected).
    """
    d = delta * (1.0 + TIE)
    return np.maximum(np.ceil(h * p / d), 1.0).astype(np.int64)


def max_null(u: np.ndarray, mask: np.ndarray) -> int:
    """``min_{1<=u<=|S|} #{i in S : u_i > u} + u - 1`` for ``S = mask`` (0 when ``S`` is empty)."""
    size = int(np.count_nonzero(mask))
    if size == 0:
        return 0
    counts = np.bincount(np.minimum(u[mask], size + 1), minlength=size + 2)
    covered = np.cumsum(counts[1 : size + 1])  # N_u = #{i in S : u_i <= u}, u = 1..size
    steps = np.arange(1, size + 1)
    return int(np.min(size - covered + steps - 1))


def top_set_max_null(sorted_u: np.ndarray) -> np.ndarray:
    """The bound for every nested top set: entry ``r`` is the bound for the ``r`` smallest p-values.

    ``sorted_u`` is the u-index of the p-values in ascending order of p.  The true-discovery
    count ``d_r = r - bound_r = max_{u<=r} min(r + 1 - u, a_u)`` with ``a_u = N_u - u + 1`` and
    ``N_u`` counted over all n items; ``d_r >= D`` iff ``U(D) + D - 1 <= r`` with ``U(D)`` the
    first ``u`` where the prefix maximum of ``a`` reaches ``D``, so all ``r`` cost one sort-free
    pass and a search (O(n log n)).

    Returns
    -------
    ndarray of int64, shape (n + 1,)
    """
    n = sorted_u.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    counts = np.bincount(np.minimum(sorted_u, n + 1), minlength=n + 2)
    covered = np.cumsum(counts[1 : n + 1])  # N_u for u = 1..n
    a = covered - np.arange(1, n + 1) + 1
    prefix = np.maximum.accumulate(a)
    top = int(prefix[-1])
    if top < 1:
        d = np.zeros(n + 1, dtype=np.int64)
    else:
        levels = np.arange(1, top + 1)
        first_u = np.searchsorted(prefix, levels, side="left") + 1  # U(D), 1-based
        cost = first_u + levels - 1  # strictly increasing in D
        d = np.searchsorted(cost, np.arange(n + 1), side="right").astype(np.int64)
    return np.arange(n + 1, dtype=np.int64) - d
