"""The textbook Simes linear template, the baseline the closed-testing bound is measured against.

Blanchard, Neuvial & Roquain (2020) bound the false discoveries in ``S`` by

    min over k = 1..|S| of  #{i in S : p_i >= delta k / n} + k - 1,

the same family as ``sanssouci.max_fp(p[S], sanssouci.linear_template(delta, n, n))``.
Closed testing with Simes replaces ``n`` by Hommel's ``h <= n`` (``closed_simes``).

Example
-------
>>> import numpy as np
>>> p = np.full(1000, 1 / 201)  # the best a conformal p-value with m = 200 calibration rows can do
>>> simes_template_bound(p, np.ones(1000, dtype=bool), delta=0.1)
49
"""

from __future__ import annotations

import numpy as np

from .fit import check_delta, check_mask, max_p_vector

GRANULARITY_NOTE = (
    "Why the bound has a floor. A conformal p-value computed against m calibration rows is never "
    "below 1/(m+1), however clean the item. Simes-type bounds compare the k-th smallest p-value "
    "with delta k / n, so the first n / (delta (m + 1)) thresholds cannot be reached by any item: "
    "even a set of perfectly clean items keeps a bound of about n / (delta (m + 1)) contaminated "
    "items (n = 1000 items, m = 200 calibration rows, delta = 0.1: about 49). Closed testing "
    "replaces n by Hommel's h, roughly the number of items that look contaminated, which shrinks "
    "this floor in proportion. Knowing m, jecs also uses the exact law of conformal p-values (the "
    "calibration urn): at each grid step it allows only a few standard deviations above the expected "
    "count n j / (m + 1), not n j / (delta (m + 1)), and reports the smaller of the two bounds, each "
    "at delta / 2. A larger calibration set shrinks the floor further."
)


def simes_template_bound(pvalues, selected, *, delta: float = 0.1) -> int:
    """``min_k #{i in S : p_i >= delta k / n} + k - 1`` on the per-item max-p (0 for an empty set).

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model p-values or a max-p vector.
    selected : array_like of bool, shape (n,)
    delta : float, optional
        Error level in (0, 1).

    Returns
    -------
    int
    """
    delta = check_delta(delta)
    p_max = max_p_vector(pvalues)
    n = p_max.shape[0]
    mask = check_mask(selected, n)
    values = np.sort(p_max[mask])
    size = values.shape[0]
    if size == 0:
        return 0
    k = np.arange(1, size + 1)
    below = np.searchsorted(values, delta * k / n, side="left")  # #{p < delta k / n}
    return int(min(size, np.min(size - below + k - 1)))
